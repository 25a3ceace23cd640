"""Names, numbers and short labels shared by every picture of a trace."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any, Literal, assert_never

from flow.trace import Actor, Hop, Mode, Phase, Trace, as_dict, as_list, escape_controls

Lang = Literal["zh", "en"]

ACTOR_NAMES: dict[Actor, dict[Lang, str]] = {
    "user": {"en": "User", "zh": "用户"},
    "app": {"en": "App", "zh": "应用"},
    "mcp_client": {"en": "MCP Client", "zh": "MCP 客户端"},
    "mcp_server": {"en": "MCP Server", "zh": "MCP 服务器"},
    "tool": {"en": "Tool", "zh": "工具函数"},
    "model": {"en": "Model API", "zh": "模型 API"},
}
PHASE_NAMES: dict[Phase, dict[Lang, str]] = {
    "prepare": {"en": "prepare", "zh": "准备"},
    "request": {"en": "request", "zh": "请求"},
    "decision": {"en": "decision", "zh": "决策"},
    "execute": {"en": "execute", "zh": "执行"},
    "backfill": {"en": "backfill", "zh": "回填"},
    "answer": {"en": "answer", "zh": "回答"},
}
PHASE_COLORS: dict[Phase, str] = {
    "prepare": "#f2f2f2",
    "request": "#e8f1fb",
    "decision": "#fdf3e1",
    "execute": "#e9f6ec",
    "backfill": "#f3ecfa",
    "answer": "#fbeaea",
}


def lifelines(mode: Mode) -> list[Actor]:
    """The design's fixed column order."""
    if mode == "direct":
        return ["user", "app", "tool", "model"]
    return ["user", "app", "mcp_client", "mcp_server", "model"]


def trace_lifelines(trace: Trace) -> list[Actor]:
    """The mode's lifelines, plus any actor a foreign trace uses that the mode does not have."""
    cols = lifelines(trace.meta.mode)
    extra = [a for a in ("tool", "mcp_client", "mcp_server") if a not in cols and any(a in (h.source, h.target) for h in trace.hops)]
    return cols[:-1] + extra + cols[-1:]


def display_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def clip(text: str, width: int) -> str:
    """One line, at most `width` display columns (a CJK character counts two), control characters escaped."""
    text = escape_controls(re.sub(r"\s+", " ", text).strip())
    if display_width(text) <= width:
        return text
    out, used = "", 0
    for c in text:
        w = display_width(c)
        if used + w > width - 1:
            break
        out, used = out + c, used + w
    return out + "…"


def _letters(n: int) -> str:
    """0 -> a, 25 -> z, 26 -> aa: sub-numbers for the hops of one step."""
    out = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        out = chr(97 + r) + out
    return out


def step_numbers(trace: Trace) -> dict[int, str]:
    """A number per hop: its step, sub-lettered when the step has several hops (2a, 2b);
    later tool rounds are prefixed (r2·4). Wire frames outside a step get "·"."""
    groups: dict[tuple[int, int], list[int]] = {}
    def tool_round(h: Hop) -> int:
        # `round` counts model requests; a backfill (8) belongs to the tool round it answers.
        assert h.step is not None
        if not 4 <= h.step <= 8:
            return 0
        return h.round - 1 if h.step == 8 else h.round

    for h in trace.hops:
        if h.step is not None:
            groups.setdefault((tool_round(h), h.step), []).append(h.seq)
    rounds = {r for r, _ in groups if r}
    out: dict[int, str] = {}
    for (rnd, step), seqs in groups.items():
        prefix = f"r{rnd}·" if len(rounds) > 1 and rnd > 1 else ""
        for i, seq in enumerate(seqs):
            out[seq] = f"{prefix}{step}{_letters(i) if len(seqs) > 1 else ''}"
    for h in trace.hops:
        out.setdefault(h.seq, "·")
    return out


def _tool_ids(body: dict[str, Any]) -> list[str]:
    """The tool_call_ids of the role "tool" messages at the end of a request."""
    ids: list[str] = []
    for msg in reversed(as_list(body.get("messages"))):
        if not isinstance(msg, dict) or msg.get("role") != "tool":
            break
        ids.insert(0, str(msg.get("tool_call_id")))
    return ids


def short_label(hop: Hop, width: int = 32) -> str:
    """What the arrow says: the one fact a class should read off it."""
    p = as_dict(hop.payload)
    kind = hop.kind
    match kind:
        case "prepare.tools":
            tools = [as_dict(t) for t in as_list(p.get("tools"))]
            names = [t.get("name") or as_dict(t.get("function")).get("name") for t in tools]
            text = "tools: " + ", ".join(str(n) for n in names)
        case "user.message" | "app.answer":
            text = str(p.get("content") or hop.summary)
        case "llm.request":
            body = as_dict(p.get("body"))
            ids = _tool_ids(body)
            if ids:
                text = f"role: tool ({ids[0]})" if len(ids) == 1 else f"role: tool ×{len(ids)} ({', '.join(ids)})"
            else:
                text = f"messages + tools ({len(as_list(body.get('messages')))} msgs, {len(as_list(body.get('tools')))} tools)"
        case "llm.response":
            text = hop.summary
        case "llm.error":
            text = hop.summary or "error"
        case "translate.forward":
            text = f"inputSchema → parameters ({len(as_list(p.get('openai')))} tools)"
        case "mcp.response":
            text = hop.summary.replace("result of ", "result: ")
        case "tool.result" if hop.summary and not hop.summary.startswith(("isError", "protocol error")):
            text = "result: " + hop.summary
        case (
            "tool.list" | "client.result" | "mcp.request" | "mcp.error" | "mcp.notification" | "llm.chunk"
            | "llm.assembled" | "translate.reverse" | "tool.invoke" | "tool.result" | "error" | "replay.divergence"
        ):
            text = hop.summary
        case _:
            assert_never(kind)
    return clip(text or kind, width)


def arrow_style(hop: Hop) -> Literal["request", "response", "notification", "error", "self"]:
    if hop.kind in ("error", "mcp.error", "llm.error", "replay.divergence") or hop.direction == "error":
        return "error"
    if hop.source == hop.target:
        return "self"
    if hop.direction == "notification":
        return "notification"
    if hop.direction == "response" or hop.kind in ("llm.chunk", "tool.list", "client.result", "app.answer"):
        return "response"
    return "request"


_UPSTREAM = {"mcp_server": "mcp_client", "model": "app", "tool": "app", "mcp_client": "app"}


def is_reply(hop: Hop) -> bool:
    """Does this hop travel back toward the one who asked?"""
    return hop.direction == "response" or hop.kind in ("mcp.response", "mcp.error", "llm.response", "llm.error",
                                                        "llm.chunk", "tool.result") or _UPSTREAM.get(hop.source) == hop.target


def pretty(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)
