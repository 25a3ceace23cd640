"""What a provider's error body says, as the one line a user is told: read from the body whatever shape the provider
gave it (OpenAI's, vLLM's, Ollama's, a validator's), by the engine for an error it caught and by merge for one the
wire shows."""

from __future__ import annotations

import re

# A field a validator names (pydantic's "messages.2.content" on its own line, its message indented below it).
_FIELD_LINE = re.compile(r"^(?:body\.)?([A-Za-z_]\w*(?:\.\w+)*)\n[ \t]+(\S[^\n]*?)(?: \[type=[^\]\n]*\])?$", re.M)
_TRACEBACK_LINE = re.compile(r"^\s*(Traceback \(most recent call last\):|File \"|\^+$|For further information)")
_EXPECTED = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "dictionary": "an object",
    "object": "an object",
    "list": "an array",
    "array": "an array",
}


def _field_path(loc: str) -> str:
    """pydantic's dotted location as a JSON path: messages.2.content -> messages[2].content."""
    return re.sub(r"\.(\d+)(?=\.|$)", r"[\1]", loc)


def _plain(message: str) -> str:
    """A validator's message in plain words, where it is one of the common ones."""
    if found := re.fullmatch(r"Input should be a valid (\w+)", message.strip()):
        return "expected " + _EXPECTED.get(found[1], found[1])
    return {"Field required": "missing"}.get(message.strip(), message.strip())


def provider_line(text: str) -> tuple[str, int]:
    """A provider's error message as one line, and how many more lines it had: the field it rejects in plain words
    when it names one (`messages[2].content: expected a string`), else its first line that is not a traceback's.
    The whole message stays in the llm.error hop."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if found := _FIELD_LINE.search(text.strip()):
        line = f"{_field_path(found[1])}: {_plain(found[2])}"
    else:
        told = [line for line in lines if not _TRACEBACK_LINE.match(line)]
        line = " ".join((told or lines or [""])[0].split())
    if len(line) > 200:
        line = line[:199] + "…"
    return line, max(0, len(lines) - 1)


def provider_detail(body: object) -> str:
    """The message a provider's error body carries: the text of a body that is not JSON, OpenAI's `error.message`
    (vLLM's top-level `message`, Ollama's `error` string), or a validator's `detail` (FastAPI: loc and msg); empty
    when it says nothing."""
    if isinstance(body, str):
        return body
    if not isinstance(body, dict):
        return ""
    err = body.get("error", body)
    if isinstance(err, str):
        return err
    if isinstance(err, dict) and err.get("message"):
        return str(err["message"])
    detail = body.get("detail")
    if isinstance(detail, list) and detail and isinstance(detail[0], dict):
        loc = ".".join(str(p) for p in detail[0].get("loc") or [] if p != "body")
        return f"{loc}\n  {detail[0].get('msg', '')}" if loc else str(detail[0].get("msg", ""))
    return detail if isinstance(detail, str) else ""
