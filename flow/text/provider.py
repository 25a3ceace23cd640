"""What a provider's error body says, as the one line a user is told: read from the body whatever shape the provider
gave it (OpenAI's, vLLM's, Ollama's, a validator's, llama-cpp-python's), by the engine for an error it caught and by
merge for one the wire shows."""

from __future__ import annotations

import ast
import re
from typing import Any

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


# FastAPI's validation errors as text (llama-cpp-python's HTTP 500): a count, then one Python repr of a dict a line.
_REPR_HEAD = re.compile(r"^\d+ validation errors?(?: for \w+)?:$")
MAX_REPR_LINES = 64  # the errors read from one message; a union of many branches gives a few per message
MAX_REPR_CHARS = 8192  # one error's repr; its `input` may repeat a whole message, but a flood is not parsed


def _repr_errors(lines: list[str]) -> list[dict[str, Any]]:
    """The error dicts of a FastAPI validation message, each line read with `ast.literal_eval` (literals only,
    never code), bounded in count and length; [] when the text is not one."""
    if not lines or not _REPR_HEAD.match(lines[0].strip()):
        return []
    errors = []
    for line in lines[1 : MAX_REPR_LINES + 1]:
        line = line.strip()
        if not line.startswith("{") or len(line) > MAX_REPR_CHARS:
            continue
        try:
            value = ast.literal_eval(line)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(value, dict) and isinstance(value.get("loc"), (tuple, list)) and value.get("msg"):
            errors.append(value)
    return errors


def _is_branch(part: object) -> bool:
    """A union's branch in a pydantic location (`ChatCompletionRequestAssistantMessage`, `list[...]`), not a field."""
    return isinstance(part, str) and (part[:1].isupper() or "[" in part)


def _union_choice(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The errors that matter in a union's: for the first message refused, those of the branch its own role picks
    (the one whose `role` it did not fail), not of the branches written for other roles."""
    first = errors[0]["loc"]
    branch_at = next((n for n, part in enumerate(first) if _is_branch(part)), None)
    if branch_at is None:
        return [errors[0]]
    where = tuple(first[:branch_at])
    same = [e for e in errors if tuple(e["loc"][:branch_at]) == where and len(e["loc"]) > branch_at]
    branches: dict[Any, list[dict[str, Any]]] = {}
    for e in same:
        branches.setdefault(e["loc"][branch_at], []).append(e)
    for found in branches.values():
        if not any(tuple(e["loc"][branch_at + 1 :]) == ("role",) for e in found):
            return found
    return [errors[0]]


def _repr_line(errors: list[dict[str, Any]]) -> str:
    """The chosen errors in plain words: `messages[2].content: expected a string, not null`."""
    said = []
    for e in _union_choice(errors)[:3]:
        path = ".".join(str(p) for n, p in enumerate(e["loc"]) if not (n == 0 and p == "body") and not _is_branch(p))
        words = _plain(str(e["msg"])) + (", not null" if "input" in e and e["input"] is None else "")
        said.append(f"{_field_path(path)}: {words}" if path else words)
    return "; ".join(said)


def provider_line(text: str) -> tuple[str, int]:
    """A provider's error message as one line, and how many more lines it had: the field it rejects in plain words
    when it names one (`messages[2].content: expected a string`), else its first line that is not a traceback's.
    The whole message stays in the llm.error hop."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if errors := _repr_errors(lines):
        line = _repr_line(errors)
    elif found := _FIELD_LINE.search(text.strip()):
        line = f"{_field_path(found[1])}: {_plain(found[2])}"
    else:
        told = [line for line in lines if not _TRACEBACK_LINE.match(line)]
        line = " ".join((told or lines or [""])[0].split())
    if len(line) > 200:
        line = line[:199] + "…"
    return line, max(0, len(lines) - 1)


def names_a_field(text: str) -> bool:
    """Whether a provider's message is a validator's, naming a field of the request it refused."""
    return bool(_repr_errors([line for line in text.strip().splitlines() if line.strip()])) or bool(
        _FIELD_LINE.search(text.strip())
    )


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
