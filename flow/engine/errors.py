"""Any failure of a run as a `FlowError`: a code and its parameters, which flow.text.errors words in both languages."""

from __future__ import annotations

import re
from typing import Any

import anyio
import openai
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

from flow.engine.model import ModelConfig
from flow.engine.options import RunOptions
from flow.servers.connect import leaf_exception
from flow.text.errors import OPTION_HINTS, FlowError


class FlowAbort(FlowError):
    """Ends a run early: the run's own reason (the round limit, a tool call the server refused...)."""


def _rejected_option(status: int, err: dict[str, Any], detail: str) -> str | None:
    """The request option a 400/422 names, when it is one the app could leave out."""
    if status not in (400, 422):
        return None
    named = str(err.get("param") or "")
    for option in OPTION_HINTS:
        if option == named.rsplit(".", 1)[-1] or option in detail or option.replace("_", " ") in detail:
            return option
    return None


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


def _detail_of(body: object) -> str:
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


def _options_sent(options: RunOptions) -> tuple[str, ...]:
    """The request options the app sent only because they were asked for: the likely cause of a refusal that gives
    no reason."""
    sent = []
    if options.tool_choice != "auto":
        sent.append("tool_choice")
    if not options.parallel:
        sent.append("parallel_tool_calls")
    if options.strict:
        sent.append("strict")
    if options.stream:
        sent.append("stream_options")
    return tuple(sent)


def as_flow_error(exc: BaseException, options: RunOptions, model: ModelConfig) -> FlowError:
    """What stopped a run, as the code and parameters of the one line a user can act on."""
    exc = leaf_exception(exc)
    if isinstance(exc, FlowError):  # a FlowAbort, or a server or model that broke, refused or went quiet
        return exc
    if isinstance(exc, openai.APIStatusError):
        body = exc.body if isinstance(exc.body, dict) else {}
        err = body.get("error", body)
        full = _detail_of(exc.body)
        option = _rejected_option(exc.status_code, err if isinstance(err, dict) else {}, full)
        detail, more_lines = provider_line(full)
        suspects = () if detail or option else _options_sent(options)
        return FlowError(
            "model_http", status=exc.status_code, detail=detail, option=option, more_lines=more_lines, suspects=suspects
        )
    if isinstance(exc, openai.APITimeoutError):
        return FlowError("model_timeout", timeout_s=model.timeout_s)
    if isinstance(exc, openai.APIConnectionError):
        return FlowError("model_unreachable", url=model.describe()["base_url"], cause=str(exc.__cause__ or exc))
    if isinstance(exc, openai.APIError):  # an error event inside a stream that began well
        return FlowError("model_stream_error", message=exc.message)
    if (isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT) or isinstance(exc, TimeoutError):
        return FlowError("mcp_timeout", timeout_s=options.mcp_timeout_s, detail=str(exc))
    if (isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED) or isinstance(
        exc, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, ConnectionError)
    ):
        return FlowError("mcp_closed")
    if isinstance(exc, MCPError):
        return FlowError("mcp_error", code=exc.code, message=exc.message)
    if isinstance(exc, OSError):
        return FlowError("server_cannot_start", detail=str(exc))
    return FlowError("unexpected", kind=type(exc).__name__, detail=str(exc))
