"""A server's own account of running a tool (message 6 seen from inside the server), read from a CallToolResult.

The demo server puts it in the result's `_meta` under `REPORT_KEY` (see `weather_demo/report.py`); any server may.
It is a server's word, so it is read as data: bounded (`REPORT_MAX_BYTES`), every field checked, only the fields
named here kept, and it can only speak of the tool the client called. What it becomes is fixed here, not chosen
by the server: two hops, MCP server → tool (`tool.invoke`, step 6) and tool → MCP server (`tool.result`, step 7),
each payload marked `reported_by: "mcp_server"`, placed between the tools/call frame and its answer. A report that
fails a check becomes no hop; the caller says why on the answer's own hop. Pure: no SDK, no clock.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from flow.trace.factory import json_bytes
from flow.trace.model import MAX_MS

REPORT_KEY = "dev.mcp-flow/tool-execution"


"""The `_meta` key (reverse DNS, outside the prefixes the MCP spec reserves); the demo server writes the same key."""


REPORT_MAX_BYTES = 64 * 1024


"""A report larger than this (as compact JSON) is refused: the result it describes is in the frame already."""


MAX_KWARGS = 64  # arguments a report may name


NAME_CHARS = 100  # an exception's type name, as kept


MESSAGE_CHARS = 2000  # an exception's message, as kept


REPORTED_BY = "mcp_server"


@dataclass(frozen=True, slots=True)
class ExecutionReport:
    """A report that passed every check: the two payloads it becomes, the one-line summaries, and the server's
    own clock (milliseconds on the server's clock, which the app's cannot be compared with)."""

    invoke: dict[str, Any]
    result: dict[str, Any]
    invoke_summary: str
    result_summary: str
    raised: bool
    duration_ms: float


class RefusedReport(ValueError):
    """A report that failed a check: the message says which, in one line."""


def _number(value: Any, what: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value) or not 0 <= value <= MAX_MS:
        raise RefusedReport(f"{what} is not a time in milliseconds")
    return float(value)


def _kv(kwargs: dict[str, Any]) -> str:
    return ", ".join(
        f"{k}={json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v}" for k, v in kwargs.items()
    )


def read_report(result: Any, *, tool: Any) -> ExecutionReport | None:
    """The report in a tools/call result's `_meta`, checked; None when there is none. `tool` is the name the
    client's tools/call asked for. Raises `RefusedReport` for a report that does not pass."""
    meta = result.get("_meta") if isinstance(result, dict) else None
    if not isinstance(meta, dict) or REPORT_KEY not in meta:
        return None
    report = meta[REPORT_KEY]
    size = len(json_bytes(report))
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
    clock = report.get("server_clock")
    if not isinstance(clock, dict):
        raise RefusedReport("server_clock is not an object")
    started = _number(clock.get("started_ms"), "server_clock.started_ms")
    ended = _number(clock.get("ended_ms"), "server_clock.ended_ms")
    if ended < started:
        raise RefusedReport("server_clock ends before it starts")
    outcome = report.get("outcome")
    invoke: dict[str, Any] = {
        "function": function,
        "kwargs": kwargs,
        "reported_by": REPORTED_BY,
        "server_clock": {"started_ms": started},
    }
    shown: dict[str, Any] = {"reported_by": REPORTED_BY, "server_clock": {"started_ms": started, "ended_ms": ended}}
    for key, into in (("kwargs_clipped_bytes", invoke), ("value_clipped_bytes", shown)):
        value = report.get(key)
        if type(value) is int and 0 <= value <= 1 << 40:
            into[key] = value
    if outcome == "returned" and "value" in report:
        value = report["value"]
        result_payload: dict[str, Any] = {"return": value, "isError": False, **shown}
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        result_summary = " ".join(text.split())[:60]
    elif outcome == "raised" and isinstance(raised := report.get("raised"), dict):
        name, message = raised.get("type"), raised.get("message")
        if not isinstance(name, str) or not isinstance(message, str):
            raise RefusedReport("raised needs a type and a message, both text")
        error = {"type": name[:NAME_CHARS], "message": message[:MESSAGE_CHARS]}
        result_payload = {"raised": error, "isError": True, **shown}
        result_summary = f"isError: raised {error['type']}: {' '.join(error['message'].split())[:50]}"
    else:
        raise RefusedReport('outcome is neither "returned" with a value nor "raised" with an exception')
    return ExecutionReport(
        invoke=invoke,
        result=result_payload,
        invoke_summary=f"the server runs {function}({_kv(kwargs)})",
        result_summary=result_summary,
        raised=outcome == "raised",
        duration_ms=round(ended - started, 3),
    )
