"""Comparing two runs of the same question (typically direct function calling vs MCP), step by step."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flow.capture.recorder import compact_json
from flow.text.names import FIGURE_NAMES, PHASE_NAMES, STEP_NAMES, Lang
from flow.trace.model import PHASES, Hop, Trace
from flow.trace.payloads import payload_of
from flow.trace.stats import estimate_tokens, mcp_frames, model_calls, tool_calls
from flow.trace.steps import Step


@dataclass(frozen=True)
class Figures:
    """The numbers that tell two runs apart."""

    hops: int
    wire_messages: int  # what crossed a wire: MCP frames, and the model's HTTP requests, responses and stream events
    model_calls: int
    tool_calls: int
    bytes_to_model: int
    tool_definition_bytes: int  # the "tools" array, summed over every model request
    prompt_tokens: int
    tool_definition_tokens: int  # estimated with the mock's tokenizer stand-in
    elapsed_ms: float

    @property
    def tool_share(self) -> float:
        return self.tool_definition_bytes / self.bytes_to_model if self.bytes_to_model else 0.0


_MODEL_HTTP = ("llm.request", "llm.response", "llm.chunk")  # the model's HTTP: requests, answers, stream events


def figures(trace: Trace) -> Figures:
    requests = [h for h in trace.hops if h.kind == "llm.request"]
    bodies = [p["body"] for h in requests if (p := payload_of(h, "llm.request")) is not None]
    tools = [b.get("tools", []) for b in bodies if isinstance(b, dict)]
    return Figures(
        hops=len(trace.hops),
        wire_messages=mcp_frames(trace.hops) + sum(h.kind in _MODEL_HTTP for h in trace.hops),
        model_calls=model_calls(trace.hops),
        tool_calls=tool_calls(trace.hops),
        bytes_to_model=sum(h.bytes for h in requests),
        tool_definition_bytes=sum(len(compact_json(t).encode()) for t in tools),
        prompt_tokens=sum(int((h.usage or {}).get("prompt_tokens") or 0) for h in trace.hops),
        tool_definition_tokens=sum(estimate_tokens(json.dumps(t, ensure_ascii=False)) for t in tools),
        elapsed_ms=float(trace.meta.stats.get("elapsed_ms") or (trace.hops[-1].t_end_ms if trace.hops else 0.0)),
    )


def _span(hops: list[Hop]) -> float:
    return round(max(h.t_end_ms for h in hops) - min(h.t_start_ms for h in hops), 1) if hops else 0.0


def per_step(a: Trace, b: Trace, *, lang: Lang = "en") -> list[dict[str, Any]]:
    """One row per step of the flow: hops and MCP frames (`Stats.wire_frames`) in each run, and what exists in
    only one."""
    out = []
    for step in Step:
        ha = [h for h in a.hops if h.step == step]
        hb = [h for h in b.hops if h.step == step]
        kinds_a, kinds_b = {h.kind for h in ha}, {h.kind for h in hb}
        out.append(
            {
                "step": int(step),
                "what": STEP_NAMES[step][lang],
                "phase": step.phase,
                "hops A": len(ha),
                "hops B": len(hb),
                "wire frames A": mcp_frames(ha),
                "wire frames B": mcp_frames(hb),
                "ms A": _span(ha),
                "ms B": _span(hb),
                "only in A": ", ".join(sorted(kinds_a - kinds_b)),
                "only in B": ", ".join(sorted(kinds_b - kinds_a)),
            }
        )
    return out


def per_phase_ms(trace: Trace) -> dict[str, float]:
    return {phase: _span([h for h in trace.hops if h.phase == phase]) for phase in PHASES}


def summary_rows(a: Trace, b: Trace, *, lang: Lang = "en") -> list[dict[str, Any]]:
    fa, fb = figures(a), figures(b)
    rows = [
        ("hops", fa.hops, fb.hops),
        ("wire_messages", fa.wire_messages, fb.wire_messages),
        ("model_calls", fa.model_calls, fb.model_calls),
        ("tool_calls", fa.tool_calls, fb.tool_calls),
        ("bytes", fa.bytes_to_model, fb.bytes_to_model),
        ("tool_bytes", fa.tool_definition_bytes, fb.tool_definition_bytes),
        ("share", f"{fa.tool_share:.0%}", f"{fb.tool_share:.0%}"),
        ("prompt_tokens", fa.prompt_tokens, fb.prompt_tokens),
        ("tool_tokens", fa.tool_definition_tokens, fb.tool_definition_tokens),
        ("elapsed", round(fa.elapsed_ms), round(fb.elapsed_ms)),
    ]
    out = [{"figure": FIGURE_NAMES[key][lang], "A": va, "B": vb} for key, va, vb in rows]
    for (phase, ma), mb in zip(per_phase_ms(a).items(), per_phase_ms(b).values(), strict=True):
        name = FIGURE_NAMES["phase_ms"][lang].format(phase=PHASE_NAMES[phase][lang])  # type: ignore[index]
        out.append({"figure": name, "A": ma, "B": mb})
    return out
