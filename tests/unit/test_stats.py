"""The figures a trace's meta holds (flow.trace.stats.hop_stats), counted in one pass at the end of every run: they
are the counts of model_calls, tool_calls and mcp_frames and the sums of the hops' token usage, for every sample."""

from __future__ import annotations

import pytest

import flow
from flow.trace.stats import hop_stats, mcp_frames, model_calls, retry_number, tool_calls
from helpers import ROOT

SAMPLES = sorted((ROOT / "sample_traces").glob("*.json"))


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_one_pass_counts_what_the_three_counters_count(path):
    hops = flow.load_trace(path).hops
    stats = hop_stats(hops, 12.345)
    usage = [h.usage for h in hops if h.usage]
    assert stats == {
        "hops": len(hops),
        "model_calls": model_calls(hops),
        "tool_calls": tool_calls(hops),
        "wire_frames": mcp_frames(hops),
        "elapsed_ms": 12.3,
        "prompt_tokens": sum(u.get("prompt_tokens") or 0 for u in usage),
        "completion_tokens": sum(u.get("completion_tokens") or 0 for u in usage),
    }


def test_a_retry_is_numbered_by_its_header_however_a_file_spells_it():
    assert retry_number({"x-stainless-retry-count": "2"}) == 2
    assert retry_number({"X-Stainless-Retry-Count": "1"}) == 1
    assert retry_number({"x-stainless-retry-count": "many"}) == 0
    assert retry_number({"accept": "*/*"}) == 0
    assert retry_number("not headers") == 0
