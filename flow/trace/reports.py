"""A server's own account of running a tool (message 6 seen from inside the server), read from a CallToolResult.

The demo server puts it in the result's `_meta` under `REPORT_KEY` (see `weather_demo/report.py`); any server may.
It is a server's word, so it is read as data: bounded (`REPORT_MAX_BYTES`), every field checked, only the fields
named here kept, and it can only speak of the tool the client called. What it becomes is fixed here, not chosen
by the server: two hops, MCP server → tool (`tool.invoke`, step 6) and tool → MCP server (`tool.result`, step 7),
each payload marked `reported_by: "mcp_server"`, placed between the tools/call frame and its answer. A report that
fails a check becomes no hop; the caller says why on the answer's own hop. Pure: no SDK, no clock.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any, Literal

from flow.trace.factory import json_bytes
from flow.trace.payloads import RaisedError, ServerClock, ToolInvokePayload, ToolResultPayload
from flow.trace.summaries import call_text

REPORT_KEY = "dev.mcp-flow/tool-execution"


"""The `_meta` key (reverse DNS, outside the prefixes the MCP spec reserves); the demo server writes the same key."""


REPORT_MAX_BYTES = 64 * 1024


"""A report larger than this (as compact JSON) is refused: the result it describes is in the frame already."""


MAX_KWARGS = 64  # arguments a report may name


NAME_CHARS = 100  # an exception's type name, as kept


MESSAGE_CHARS = 2000  # an exception's message, as kept


REPORTED_BY: Literal["mcp_server"] = "mcp_server"


@dataclass(frozen=True, slots=True)
class ExecutionReport:
    """A report that passed every check: the two payloads it becomes, the one-line summaries, and how long the
    function ran by the server's own clock (the times themselves are the server's, never compared with the app's)."""

    invoke: ToolInvokePayload
    result: ToolResultPayload
    invoke_summary: str
    result_summary: str
    raised: bool
    duration_ms: float


class RefusedReport(ValueError):
    """A report that failed a check: the message says which, in one line."""


TIME_CHARS = 40  # an ISO 8601 time with microseconds and an offset takes 32


MAX_DURATION_S = 24 * 3600.0  # a reported run longer than a day is not one a trace shows


def _time(value: Any, what: str) -> dt.datetime:
    if isinstance(value, str) and len(value) <= TIME_CHARS:
        try:
            at = dt.datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            if at.tzinfo is not None:
                return at
    raise RefusedReport(f"{what} is not an ISO 8601 time with its offset")


def read_report(result: Any, *, tool: Any, frame_bytes: int | None = None) -> ExecutionReport | None:
    """The report in a tools/call result's `_meta`, checked; None when there is none. `tool` is the name the
    client's tools/call asked for; `frame_bytes`, when the caller measured the frame, spares measuring a report
    that cannot be larger. Raises `RefusedReport` for a report that does not pass."""
    meta = result.get("_meta") if isinstance(result, dict) else None
    if not isinstance(meta, dict) or REPORT_KEY not in meta:
        return None
    report = meta[REPORT_KEY]
    size = frame_bytes if frame_bytes is not None and frame_bytes <= REPORT_MAX_BYTES else len(json_bytes(report))
    if size > REPORT_MAX_BYTES:
        raise RefusedReport(f"{size:,} bytes, over the {REPORT_MAX_BYTES // 1024} KB a report may have")
    if not isinstance(report, dict):
        raise RefusedReport("not a JSON object")
    function = report.get("function")
    if not isinstance(tool, str) or function != tool:
        raise RefusedReport("it names another function than the tool called")
    kwargs = report.get("kwargs")
    if not isinstance(kwargs, dict) or len(kwargs) > MAX_KWARGS:
        raise RefusedReport(f"kwargs is not an object of at most {MAX_KWARGS} arguments")
    started_at, ended_at, duration_s = _server_clock(report.get("server_clock"))
    times: ServerClock = {"started_at": started_at, "ended_at": ended_at}
    outcome = report.get("outcome")
    invoke: ToolInvokePayload = {
        "function": tool,  # the name the report gives, found equal above
        "kwargs": kwargs,
        "reported_by": REPORTED_BY,
        "server_clock": {"started_at": started_at},
    }
    shown: ToolResultPayload = {"reported_by": REPORTED_BY, "server_clock": times}
    clipped = report.get("kwargs_clipped_bytes")
    if type(clipped) is int and 0 <= clipped <= 1 << 40:
        invoke["kwargs_clipped_bytes"] = clipped
    clipped = report.get("value_clipped_bytes")
    if type(clipped) is int and 0 <= clipped <= 1 << 40:
        shown["value_clipped_bytes"] = clipped
    result_payload, result_summary = _outcome(report, shown)
    return ExecutionReport(
        invoke=invoke,
        result=result_payload,
        invoke_summary="the server runs " + call_text(function, kwargs),
        result_summary=result_summary,
        raised=outcome == "raised",
        duration_ms=round(duration_s * 1000, 3),
    )


def _server_clock(clock: Any) -> tuple[str, str, float]:
    """A report's server clock, checked: when the run it times started and ended, and how long it took (seconds)."""
    if not isinstance(clock, dict):
        raise RefusedReport("server_clock is not an object")
    started = _time(clock.get("started_at"), "server_clock.started_at")
    ended = _time(clock.get("ended_at"), "server_clock.ended_at")
    duration_s = (ended - started).total_seconds()
    if not 0 <= duration_s <= MAX_DURATION_S:
        raise RefusedReport("server_clock ends before it starts, or a day after")
    return clock["started_at"], clock["ended_at"], duration_s


def _outcome(report: dict[str, Any], shown: ToolResultPayload) -> tuple[ToolResultPayload, str]:
    """The result hop's payload (`shown` and what the function returned or raised) and its summary."""
    outcome = report.get("outcome")
    if outcome == "returned" and "value" in report:
        value = report["value"]
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return {"return": value, "isError": False, **shown}, " ".join(text.split())[:60]
    if outcome == "raised" and isinstance(raised := report.get("raised"), dict):
        name, message = raised.get("type"), raised.get("message")
        if not isinstance(name, str) or not isinstance(message, str):
            raise RefusedReport("raised needs a type and a message, both text")
        error: RaisedError = {"type": name[:NAME_CHARS], "message": message[:MESSAGE_CHARS]}
        summary = f"isError: raised {error['type']}: {' '.join(error['message'].split())[:50]}"
        return {"raised": error, "isError": True, **shown}, summary
    raise RefusedReport('outcome is neither "returned" with a value nor "raised" with an exception')


def refused_note(summary: str, reason: str) -> str:
    """The answer's one line when the report it carried was refused: the place a person sees why there are no
    hops for the server's side."""
    return f"{summary} · its execution report was refused: {reason}"


def placed(sent_ms: float, answered_ms: float, report: ExecutionReport) -> tuple[float, float]:
    """Where the function ran on the app's clock: the duration the server measured, ending no later than its answer
    arrived and starting no earlier than the call was sent (the two clocks are never compared)."""
    began = round(max(sent_ms, answered_ms - report.duration_ms), 3)
    return began, min(answered_ms, round(began + report.duration_ms, 3))
