"""Counts over a trace's hops: model calls, tool calls, bytes and time."""

from __future__ import annotations

import math
import re

from flow.trace.model import Hop, Stats, as_dict
from flow.trace.payloads import Failure, LlmRequest, McpReported, TranslateReverse, is_a, typed
from flow.trace.steps import Step

RETRY_HEADER = "x-stainless-retry-count"  # the openai SDK numbers the attempts of one call: 0, 1, ...


def retry_number(headers: object) -> int:
    """Which retry of its call a request is, as its headers number it (the openai SDK's); 0 for a first attempt."""
    found = as_dict(headers)
    value = found.get(RETRY_HEADER)  # as recorded (httpx names headers in lower case); a file may spell it otherwise
    if value is None:
        value = next((v for k, v in found.items() if str(k).lower() == RETRY_HEADER), None)
    if value is None:
        return 0
    text = str(value).strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) < 6 else 0


def _is_model_call(h: Hop) -> bool:
    """A model request that is not a retry (the SDK's sending again of the same call); one the recorder cut is a
    call: its headers are not known."""
    match typed(h):
        case LlmRequest(payload=p):
            return not retry_number(p.get("headers"))
        case _:
            return is_a(h, LlmRequest)


def model_calls(hops: list[Hop]) -> int:
    """The model calls the app made: a request the SDK sent again (its retry) is the same call."""
    return sum(_is_model_call(h) for h in hops)


def _is_tool_call(h: Hop) -> bool:
    """A call the model asked for: one the app translated (step 5) or refused there, or, in hosted MCP, a tools/call
    the provider reports its MCP client made (the app translates nothing: the provider runs the loop)."""
    match typed(h):
        case McpReported(payload=p):
            return h.direction == "request" and p["method"] == "tools/call"
        case _:
            return is_a(h, TranslateReverse) or (is_a(h, Failure) and h.step == Step.REVERSE_TRANSLATION)


def tool_calls(hops: list[Hop]) -> int:
    """The calls the model asked for, including those the app rejected before sending (step 5 errors); in hosted
    MCP, the calls the provider reports (`summary_line` says so)."""
    return sum(_is_tool_call(h) for h in hops)


def _is_frame(kind: str) -> bool:
    return kind.startswith("mcp.") and kind != "mcp.reported"  # a report is the provider's word, not a frame


def mcp_frames(hops: list[Hop]) -> int:
    """JSON-RPC frames on the MCP transport, as a recorder saw them: what `Stats.wire_frames` counts."""
    return sum(_is_frame(h.kind) for h in hops)


def hop_stats(hops: list[Hop], elapsed_ms: float) -> Stats:
    """The figures `TraceMeta.stats` holds: counts of hops, calls and frames, time and tokens. One pass, as a
    recorder computes them at the end of every run; the counts are those of the three functions above."""
    calls = tools = frames = prompt = completion = 0
    for h in hops:
        if _is_model_call(h):
            calls += 1
        elif _is_tool_call(h):
            tools += 1
        elif _is_frame(h.kind):
            frames += 1
        if h.usage:
            prompt += h.usage.get("prompt_tokens") or 0
            completion += h.usage.get("completion_tokens") or 0
    return {
        "hops": len(hops),
        "model_calls": calls,
        "tool_calls": tools,
        "wire_frames": frames,
        "elapsed_ms": round(elapsed_ms, 1),
        "prompt_tokens": prompt,
        "completion_tokens": completion,
    }


_CJK = re.compile(r"[\u4e00-\u9fff]")


def estimate_tokens(text: str) -> int:
    """A stable stand-in for a tokenizer: one token per CJK character, one per four other characters."""
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)
