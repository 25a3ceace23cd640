"""A hop table for the terminal: pure function of a trace, aware of wide (CJK) characters."""

from __future__ import annotations

import re
import unicodedata

from flow.trace import Trace

ACTOR_LABEL = {"user": "User", "app": "App", "mcp_client": "MCP Client", "mcp_server": "MCP Server", "tool": "Tool",
               "model": "Model API"}


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _fit(text: str, width: int) -> str:
    text = re.sub(r"\s+", " ", text)
    out, used = "", 0
    for c in text:
        w = _width(c)
        if used + w > width - (1 if _width(text) > width else 0):
            return out + "…" + " " * (width - used - 1)
        out, used = out + c, used + w
    return out + " " * (width - used)


def hop_rows(trace: Trace) -> list[dict[str, object]]:
    """One row per hop, the columns a person scans first."""
    return [
        {
            "seq": h.seq,
            "step": "" if h.step is None else str(h.step),
            "phase": h.phase or "",
            "from → to": f"{ACTOR_LABEL[h.source]} → {ACTOR_LABEL[h.target]}",
            "kind": h.kind,
            "summary": re.sub(r"\s+", " ", h.summary),
            "ms": round(h.t_end_ms - h.t_start_ms, 1),
            "bytes": h.bytes,
        }
        for h in trace.hops
    ]


def hop_table(trace: Trace, *, summary_width: int = 60) -> str:
    widths = {"seq": 4, "step": 4, "phase": 9, "from → to": 26, "kind": 18, "summary": summary_width, "ms": 8, "bytes": 7}
    lines = [" ".join(_fit(name, w) for name, w in widths.items()).rstrip(), " ".join("-" * w for w in widths.values())]
    for row in hop_rows(trace):
        lines.append(" ".join(_fit(str(row[name]), w) for name, w in widths.items()).rstrip())
    return "\n".join(lines)


def summary_line(trace: Trace) -> str:
    s = trace.meta.stats
    parts = [f"hops {s.get('hops', len(trace.hops))}", f"model calls {s.get('model_calls', 0)}",
             f"tool calls {s.get('tool_calls', 0)}", f"elapsed {s.get('elapsed_ms', 0):.0f} ms"]
    if s.get("prompt_tokens"):
        parts.append(f"tokens {s['prompt_tokens']}+{s.get('completion_tokens', 0)}")
    return " · ".join(parts)
