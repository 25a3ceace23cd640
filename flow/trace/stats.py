"""Counts over a trace's hops: model calls, tool calls, bytes and time."""

from __future__ import annotations

import math
import re

from flow.trace.model import Hop, Stats, as_dict
from flow.trace.steps import Step

RETRY_HEADER = "x-stainless-retry-count"  # the openai SDK numbers the attempts of one call: 0, 1, ...


def retry_number(headers: object) -> int:
    """Which retry of its call a request is, as its headers number it (the openai SDK's); 0 for a first attempt."""
    for key, value in as_dict(headers).items():
        if str(key).lower() == RETRY_HEADER:
            text = str(value).strip()
            return int(text) if text.isascii() and text.isdigit() and len(text) < 6 else 0
    return 0


def model_calls(hops: list[Hop]) -> int:
    """The model calls the app made: a request the SDK sent again (its retry) is the same call."""
    return sum(h.kind == "llm.request" and not retry_number(as_dict(h.payload).get("headers")) for h in hops)


def tool_calls(hops: list[Hop]) -> int:
    """The calls the model asked for, including those the app rejected before sending (step 5 errors)."""
    refused = Step.REVERSE_TRANSLATION
    return sum(h.kind == "translate.reverse" or (h.kind == "error" and h.step == refused) for h in hops)


def mcp_frames(hops: list[Hop]) -> int:
    """JSON-RPC frames on the MCP transport: what `Stats.wire_frames` counts."""
    return sum(h.kind.startswith("mcp.") for h in hops)


def hop_stats(hops: list[Hop], elapsed_ms: float) -> Stats:
    """The figures `TraceMeta.stats` holds: counts of hops, calls and frames, time and tokens."""
    usage = [h.usage for h in hops if h.usage]
    return {
        "hops": len(hops),
        "model_calls": model_calls(hops),
        "tool_calls": tool_calls(hops),
        "wire_frames": mcp_frames(hops),
        "elapsed_ms": round(elapsed_ms, 1),
        "prompt_tokens": sum(u.get("prompt_tokens") or 0 for u in usage),
        "completion_tokens": sum(u.get("completion_tokens") or 0 for u in usage),
    }


_CJK = re.compile(r"[\u4e00-\u9fff]")


def estimate_tokens(text: str) -> int:
    """A stable stand-in for a tokenizer: one token per CJK character, one per four other characters."""
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)
