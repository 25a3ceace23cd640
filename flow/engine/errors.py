"""Any failure of a run as a `FlowError`: a code and its parameters, which flow.text.errors words in both languages."""

from __future__ import annotations

from typing import Any

import anthropic
import anyio
import openai
import pydantic
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

from flow.engine.model import ModelConfig
from flow.engine.options import RunOptions
from flow.servers.connect import leaf_exception
from flow.text.errors import OPTION_HINTS, FlowError
from flow.text.provider import names_a_field, provider_detail, provider_line


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
    if isinstance(exc, (openai.APIStatusError, anthropic.APIStatusError)):
        body = exc.body if isinstance(exc.body, dict) else {}
        err = body.get("error", body)
        full = provider_detail(exc.body)
        option = _rejected_option(exc.status_code, err if isinstance(err, dict) else {}, full)
        detail, more_lines = provider_line(full)
        suspects = () if detail or option else _options_sent(options)
        return FlowError(
            "model_http",
            status=exc.status_code,
            detail=detail,
            option=option,
            more_lines=more_lines,
            suspects=suspects,
            refused=exc.status_code >= 500 and names_a_field(full),
        )
    if isinstance(exc, (openai.APITimeoutError, anthropic.APITimeoutError)):
        return FlowError("model_timeout", timeout_s=model.timeout_s)
    if isinstance(exc, (openai.APIConnectionError, anthropic.APIConnectionError)):
        url = model.describe(options.api)["base_url"]
        return FlowError("model_unreachable", url=url, cause=str(exc.__cause__ or exc))
    if isinstance(exc, (openai.APIError, anthropic.APIError)):  # an error event inside a stream that began well
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
    if isinstance(exc, pydantic.ValidationError) and exc.title == "CallToolResult":
        return _unreadable_result(exc)
    return FlowError("unexpected", kind=type(exc).__name__, detail=str(exc))


def _unreadable_result(exc: pydantic.ValidationError) -> FlowError:
    """A tools/call answer the MCP SDK could not read as a CallToolResult, in one line: a task (2025-11-25) the app
    never asked for is named with its id and status; anything else by the first field the SDK found wrong."""
    first = exc.errors()[0]
    said = first.get("input")
    task = said.get("task") if isinstance(said, dict) else None
    if isinstance(task, dict):
        return FlowError("tool_answered_task", task=str(task.get("taskId"))[:80], status=str(task.get("status"))[:40])
    where = ".".join(str(part) for part in first.get("loc", ())) or "result"
    return FlowError("tool_result_unreadable", detail=f"{where}: {first.get('msg')}"[:200])
