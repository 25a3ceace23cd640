"""The demo server's own account of each tool it runs: message 6 of the lesson, seen from inside the server.

The client sees only the tools/call frame go out and its answer come back; what happens between (the Python function
called with its arguments, what it returned or raised) is the server's to tell. The demo server tells it in the
CallToolResult's `_meta`, under its own prefixed key (`REPORT_KEY`: reverse DNS, and not one of the prefixes the MCP
spec reserves, whose second label is `modelcontextprotocol` or `mcp`). `_meta` is part of every result on every
transport, so the report travels in memory, over stdio and over Streamable HTTP alike, and anyone reading the wire
sees it. Times are the server's own clock, as UTC times to the microsecond (a fixed width: a report's size, so a
frame's, does not change with the time it was made); the end is the start plus what the server's monotonic clock
measured.

The report is bounded here (`REPORT_VALUE_BYTES`) and checked again by whoever reads it: it is a server's word.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import functools
import inspect
import json
import time
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context

REPORT_KEY = "dev.mcp-flow/tool-execution"


"""The `_meta` key of the report (flow's MCP tap reads the same key; a test pins the two together)."""


REPORT_VALUE_BYTES = 16 * 1024


"""What the report keeps of the arguments or of the returned value as JSON; a longer one is reported as its start:
the whole value is in the result's content already."""


EXCERPT_CHARS = 1000


def _at(start: dt.datetime, elapsed_s: float = 0.0) -> str:
    return (start + dt.timedelta(seconds=elapsed_s)).isoformat(timespec="microseconds")


def _bounded(value: Any) -> tuple[Any, dict[str, Any]]:
    """The value as JSON the report can carry, or its start as text when it is too long; and what was cut."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text.encode()) <= REPORT_VALUE_BYTES:
        return json.loads(text), {}
    return text[:EXCERPT_CHARS] + "…", {"clipped_bytes": len(text.encode())}


class _Report:
    """One call being run: what it was called with, when it started, and (once it ends) how."""

    def __init__(self, name: str, kwargs: dict[str, Any]) -> None:
        shown, cut = _bounded(kwargs)
        self.data: dict[str, Any] = {"function": name, "kwargs": shown if isinstance(shown, dict) else {}}
        if cut:
            self.data["kwargs_clipped_bytes"] = cut["clipped_bytes"]
        self._wall = dt.datetime.now(dt.timezone.utc)
        self._t0 = time.perf_counter()

    def _ended(self) -> None:
        self.data["server_clock"] = {
            "started_at": _at(self._wall),
            "ended_at": _at(self._wall, time.perf_counter() - self._t0),
        }

    def returned(self, value: Any) -> None:
        self._ended()
        shown, cut = _bounded(value)
        self.data.update(outcome="returned", value=shown)
        if cut:
            self.data["value_clipped_bytes"] = cut["clipped_bytes"]

    def raised(self, exc: BaseException) -> None:
        self._ended()
        self.data.update(outcome="raised", raised={"type": type(exc).__name__, "message": str(exc)[:EXCERPT_CHARS]})


_current: contextvars.ContextVar[list[_Report] | None] = contextvars.ContextVar("tool_execution", default=None)


"""The calls of the tools/call being handled (set by `ReportToolExecution`)."""


def reported(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a tool function so each call it makes is noted for the report (a plain def stays a plain def, which the
    SDK runs in a worker thread; an async def stays async). Arguments that are the SDK's `Context` are left out:
    the report says what the function was called with by the model's call, not the server's plumbing."""

    def begin(kwargs: dict[str, Any]) -> _Report | None:
        sink = _current.get()
        if sink is None:
            return None  # called outside a tools/call (a test calling the function): nothing to report to
        report = _Report(fn.__name__, {k: v for k, v in kwargs.items() if not isinstance(v, Context)})
        sink.append(report)
        return report

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def run_async(**kwargs: Any) -> Any:
            report = begin(kwargs)
            try:
                value = await fn(**kwargs)
            except BaseException as exc:
                if report is not None:
                    report.raised(exc)
                raise
            if report is not None:
                report.returned(value)
            return value

        return run_async

    @functools.wraps(fn)
    def run(**kwargs: Any) -> Any:
        report = begin(kwargs)
        try:
            value = fn(**kwargs)
        except BaseException as exc:
            if report is not None:
                report.raised(exc)
            raise
        if report is not None:
            report.returned(value)
        return value

    return run


class ReportToolExecution:
    """Server middleware: around each tools/call, collect what the wrapped function reported and put it in the
    result's `_meta`. A call whose function never ran (arguments refused, an unknown tool) carries no report."""

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if ctx.method != "tools/call":
            return await call_next(ctx)
        sink: list[_Report] = []
        token = _current.set(sink)
        try:
            result = await call_next(ctx)
        finally:
            _current.reset(token)
        if not sink or "outcome" not in sink[0].data or not isinstance(result, dict):
            return result  # (the SDK hands middleware the result in its wire form, a dict)
        meta = result.get("_meta")
        return {**result, "_meta": {**(meta if isinstance(meta, dict) else {}), REPORT_KEY: sink[0].data}}
