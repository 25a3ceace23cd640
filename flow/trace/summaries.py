"""The one line each hop's arrow says, worked out from the message alone (no SDK types)."""

from __future__ import annotations

import json
from typing import Any

from flow.trace.model import Kind, as_dict, is_object


def counted(n: int, noun: str) -> str:
    """A number and what it counts, in the plural unless it is one: 1 message, 2 messages."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def amount_text(n: int) -> str:
    """A byte count as a person reads it."""
    if n < 10 * 1024:
        return counted(n, "byte")
    if n < 1 << 20:
        return f"{n / 1024:.0f} KB"
    return f"{round(n / (1 << 20), 1):g} MB"


def frame_kind(frame: dict[str, Any]) -> Kind:
    if "method" in frame:
        return "mcp.request" if "id" in frame else "mcp.notification"
    return "mcp.error" if "error" in frame else "mcp.response"


def arguments_text(args: dict[str, Any]) -> str:
    """Arguments as a summary shows them: `city=北京, days=3, strict=false` (values as JSON writes them, strings
    bare), the one way every summary of a call writes them."""
    return ", ".join(
        f"{k}={v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)}" for k, v in args.items()
    )


def call_text(name: Any, arguments: Any) -> str:
    """A call as every line writes it: `get_weather(city=北京)`; arguments that are not an object as they came."""
    shown = arguments_text(arguments) if is_object(arguments) else str(arguments)
    return f"{name}({shown})"


def frame_summary(frame: dict[str, Any], method: str | None) -> str:
    """The one line a frame's arrow says; `method` is the request's, for a response."""
    if "method" in frame:
        params = as_dict(frame.get("params"))  # a frame is whatever crossed the wire, or a log file holds
        if frame["method"] == "notifications/message":
            return f"log {params.get('level')}: {params.get('data')}"
        if frame["method"] == "tools/call":
            line = "tools/call " + call_text(params.get("name"), as_dict(params.get("arguments")))
            if "requestState" in params or "inputResponses" in params:
                answers = as_dict(params.get("inputResponses"))
                line += f" again, with {counted(len(answers), 'answer')}" if answers else " again"
            return line
        if frame["method"] == "resources/read":
            return f"resources/read {params.get('uri')}"
        if frame["method"] == "prompts/get":
            return f"prompts/get {params.get('name')}"
        return str(frame["method"])
    if "error" in frame:
        error = as_dict(frame["error"])
        return f"error {error.get('code')}: {error.get('message')}"
    result = as_dict(frame.get("result"))
    if result.get("resultType") == "input_required":
        asked = list(input_requests(result).values())
        return "input required: " + (", ".join(str(m) for m in asked) if asked else "call again with the state")
    if method == "tools/call" and "content" not in result and is_object(result.get("task")):
        task = as_dict(result["task"])  # a 2025-11-25 task in place of the result: its id and status, not a result
        said = f": {task['statusMessage']}" if task.get("statusMessage") else ""
        return f"task {task.get('taskId')} of tools/call ({task.get('status')}){said}"
    if method == "tools/call":
        return f"result of tools/call (isError: {str(result.get('isError', False)).lower()})"
    return f"result of {method}" if method else "result"


def input_requests(result: Any) -> dict[str, Any]:
    """What an input-required result (2026-07-28) asks the client, by key: the method of each input request, as the
    frame holds it (any JSON value a file may put there)."""
    return {str(k): as_dict(r).get("method") for k, r in as_dict(as_dict(result).get("inputRequests")).items()}


def progress_summary(params: dict[str, Any], what: str) -> str:
    """A progress notification's line, naming the request it reports on (`what`, e.g. "tools/call get_forecast")."""

    def number(value: Any) -> str:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) < 1e300:
            return f"{value:g}"
        return repr(value)  # the spec says a number; a hostile frame may say anything

    total = params.get("total")
    return f"progress {number(params.get('progress'))}{f'/{number(total)}' if total is not None else ''} of {what}" + (
        f": {params['message']}" if params.get("message") else ""
    )
