"""See how a language model uses tools: run a question, record every hop, show the trace.

Nothing in this package imports Streamlit; the app's pages call what is exported here.

The names are imported on first use: a stdio MCP server started as `python -m flow.demo_server`
imports this package first, and should not pay for the openai SDK and the orchestrator it never uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flow.model_side import ModelConfig
    from flow.orchestrator import RunOptions, RunResult, run, run_flow
    from flow.render_text import hop_rows, hop_table, summary_line
    from flow.replay import Cursor, replay
    from flow.samples import SAMPLES
    from flow.trace import (
        FORMAT_VERSION,
        MAX_TRACE_BYTES,
        Hop,
        Trace,
        TraceError,
        TraceMeta,
        load_trace,
        parse_trace,
        read_trace_bytes,
        save_trace,
    )

_HOME = {
    "ModelConfig": "flow.model_side",
    **dict.fromkeys(("RunOptions", "RunResult", "run", "run_flow"), "flow.orchestrator"),
    **dict.fromkeys(("hop_rows", "hop_table", "summary_line"), "flow.render_text"),
    **dict.fromkeys(("Cursor", "replay"), "flow.replay"),
    "SAMPLES": "flow.samples",
    **dict.fromkeys(("FORMAT_VERSION", "MAX_TRACE_BYTES", "Hop", "Trace", "TraceError", "TraceMeta", "load_trace",
                     "parse_trace", "read_trace_bytes", "save_trace"), "flow.trace"),
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'flow' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name]), name)
    globals()[name] = value
    return value


__all__ = [
    "Cursor",
    "FORMAT_VERSION",
    "MAX_TRACE_BYTES",
    "SAMPLES",
    "Hop",
    "ModelConfig",
    "RunOptions",
    "RunResult",
    "Trace",
    "TraceError",
    "TraceMeta",
    "hop_rows",
    "hop_table",
    "load_trace",
    "parse_trace",
    "read_trace_bytes",
    "replay",
    "run",
    "run_flow",
    "save_trace",
    "summary_line",
]
