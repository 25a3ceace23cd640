"""Comparing two runs of the same question (typically direct function calling vs MCP), step by step."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flow.mock_model import estimate_tokens
from flow.labels import PHASE_NAMES, Lang
from flow.recorder import compact_json
from flow.trace import PHASES, STEP_PHASE, Hop, Trace, model_calls, tool_calls

STEP_NAMES: dict[int, dict[Lang, str]] = {
    0: {"en": "tools exist", "zh": "工具已定义"},
    1: {"en": "question", "zh": "提问"},
    2: {"en": "list tools", "zh": "获取工具清单"},
    3: {"en": "ask the model", "zh": "询问模型"},
    4: {"en": "model decides", "zh": "模型决策"},
    5: {"en": "reverse translation", "zh": "反向翻译"},
    6: {"en": "call the tool", "zh": "调用工具"},
    7: {"en": "tool result", "zh": "工具结果"},
    8: {"en": "send results back", "zh": "回填结果"},
    9: {"en": "final answer", "zh": "最终回答"},
    10: {"en": "answer shown", "zh": "展示回答"},
}
FIGURE_NAMES: dict[str, dict[Lang, str]] = {
    "hops": {"en": "hops", "zh": "跳数"},
    "wire": {"en": "wire frames (JSON-RPC + HTTP)", "zh": "线路帧（JSON-RPC + HTTP）"},
    "model_calls": {"en": "model calls", "zh": "模型调用次数"},
    "tool_calls": {"en": "tool calls", "zh": "工具调用次数"},
    "bytes": {"en": "bytes sent to the model", "zh": "发给模型的字节数"},
    "tool_bytes": {"en": "… of which tool definitions", "zh": "……其中工具定义"},
    "share": {"en": "tool definitions' share of the bytes", "zh": "工具定义所占比例"},
    "prompt_tokens": {"en": "prompt tokens (reported)", "zh": "提示词 token（模型报告）"},
    "tool_tokens": {"en": "tool definition tokens (estimated)", "zh": "工具定义 token（估算）"},
    "elapsed": {"en": "elapsed ms", "zh": "总耗时（毫秒）"},
    "phase_ms": {"en": "ms in {phase}", "zh": "{phase}阶段耗时（毫秒）"},
}


@dataclass(frozen=True)
class Figures:
    """The numbers that tell two runs apart."""

    hops: int
    wire_frames: int
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


def figures(trace: Trace) -> Figures:
    requests = [h for h in trace.hops if h.kind == "llm.request"]
    bodies = [h.payload.get("body") for h in requests if isinstance(h.payload, dict)]
    tools = [b.get("tools") or [] for b in bodies if isinstance(b, dict)]
    return Figures(
        hops=len(trace.hops),
        wire_frames=sum(h.kind.startswith("mcp.") or h.kind in ("llm.request", "llm.response", "llm.chunk") for h in trace.hops),
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
    """One row per step of the flow: hops and wire frames in each run, and what exists in only one."""
    out = []
    for step, name in STEP_NAMES.items():
        ha = [h for h in a.hops if h.step == step]
        hb = [h for h in b.hops if h.step == step]
        kinds_a, kinds_b = {h.kind for h in ha}, {h.kind for h in hb}
        out.append(
            {
                "step": step,
                "what": name[lang],
                "phase": STEP_PHASE[step],
                "hops A": len(ha),
                "hops B": len(hb),
                "wire frames A": sum(h.kind.startswith("mcp.") for h in ha),
                "wire frames B": sum(h.kind.startswith("mcp.") for h in hb),
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
        ("wire", fa.wire_frames, fb.wire_frames),
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
    for (phase, ma), mb in zip(per_phase_ms(a).items(), per_phase_ms(b).values()):
        name = FIGURE_NAMES["phase_ms"][lang].format(phase=PHASE_NAMES[phase][lang])  # type: ignore[index]
        out.append({"figure": name, "A": ma, "B": mb})
    return out
