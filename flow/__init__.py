"""See how a language model uses tools: run a question, record every hop, show the trace.

Nothing in this package imports Streamlit; the app's pages call what is exported here.
"""

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
