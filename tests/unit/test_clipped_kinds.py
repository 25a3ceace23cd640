"""A hop the recorder cut (`Hop.clipped`: its payload not kept, or kept as the start of its JSON) has no payload to
read, but it is still of its kind: the readers that count, pair or place hops by their kind count, pair and place it
as they do the whole hop. `typed(hop)` gives `Clipped` for it, so these readers test its kind with `is_a`."""

from __future__ import annotations

from dataclasses import replace

import pytest

import flow
from flow.backends.replay import _RecordedAnswers, _ToolResultCheck, same_steps
from flow.cli import main
from flow.engine import loop
from flow.text.route import aside_of
from flow.trace.model import Trace
from flow.trace.pairing import exchanges, model_calls, tool_calls
from flow.trace.payloads import Clipped, Failure, LlmRequest, McpRequest, ToolResult, UserInput, is_a, typed
from flow.trace.route import server_reports_execution, stop_hop
from flow.trace.stats import hop_stats
from flow.views.compare import shape
from flow.views.diagram import rows
from helpers import ROOT

SAMPLES = sorted((ROOT / "sample_traces").glob("*.json"))


def _cut(trace: Trace, *kinds: type[ToolResult]) -> Trace:
    """The trace with the payloads of these kinds (of every kind, when none is named) not kept, as the recorder
    marks a payload past the run's budget."""
    hops = [
        h.model_copy(update={"payload": None, "clipped": "payload not kept"}) if not kinds or is_a(h, *kinds) else h
        for h in trace.hops
    ]
    return trace.model_copy(update={"hops": hops})


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_a_hop_the_recorder_cut_is_still_paired_and_placed_by_its_kind(path):
    whole = flow.load_trace(path)
    cut = _cut(whole)
    assert all(isinstance(typed(h), Clipped) for h in cut.hops)

    def seqs(calls):
        return [(c.request.seq, [r.seq for r in c.replies]) for c in calls]

    assert seqs(model_calls(cut.hops)) == seqs(model_calls(whole.hops))
    assert {k: [h.seq for h in c.hops] for k, c in tool_calls(cut.hops).items()} == {
        k: [h.seq for h in c.hops] for k, c in tool_calls(whole.hops).items()
    }

    def answered(hops):  # by the frames' ids (an unanswered call's error is tied to it by the tools/call it read)
        return [(ex.request.seq, ex.reply.seq if ex.reply and not is_a(ex.reply, Failure) else None) for ex in hops]

    assert answered(exchanges(cut.hops)) == answered(exchanges(whole.hops))
    assert server_reports_execution(cut) == server_reports_execution(whole)
    assert (stop_hop(cut) or cut.hops[0]).seq == (stop_hop(whole) or whole.hops[0]).seq
    assert [[h.seq for h in r.hops] for r in rows(cut)] == [[h.seq for h in r.hops] for r in rows(whole)]
    assert shape(cut).translations == shape(whole).translations
    assert same_steps(whole, cut) and same_steps(cut, whole)
    assert set(_ToolResultCheck(cut).recorded) == set(_ToolResultCheck(whole).recorded)


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_a_hop_the_recorder_cut_is_still_counted(path):
    whole = flow.load_trace(path)
    whole_stats, cut_stats = hop_stats(whole.hops, 0), hop_stats(_cut(whole).hops, 0)
    # Its headers are not known, so a request is a call, not a retry.
    requests = sum(is_a(h, LlmRequest) for h in whole.hops)
    assert cut_stats.get("model_calls") == requests >= (whole_stats.get("model_calls") or 0)
    assert cut_stats.get("wire_frames") == whole_stats.get("wire_frames")
    if whole.meta.mode != "hosted":  # a provider's report of a call is read from its payload
        assert cut_stats.get("tool_calls") == whole_stats.get("tool_calls")


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_a_server_asking_is_an_aside_by_its_kind_even_cut(path):
    cut = _cut(flow.load_trace(path))
    for hop in cut.hops:
        if (is_a(hop, McpRequest) and hop.source == "mcp_server") or is_a(hop, UserInput):
            assert aside_of(hop) is not None, hop.seq


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_a_replayed_result_the_recorder_cut_keeps_its_place(path):
    """The recorded server answers each call with the next result recorded for it: one that was cut still takes
    its turn (and fails the call it answers), so the later calls get their own results."""
    whole = flow.load_trace(path)
    recorded = _RecordedAnswers.of(whole).results
    cut = _RecordedAnswers.of(_cut(whole, ToolResult)).results
    assert {k: len(q) for k, q in cut.items()} == {k: len(q) for k, q in recorded.items()}
    assert all(r == {} for q in cut.values() for r in q)


def test_flow_call_says_what_the_recorder_cut_of_a_result(tmp_path, monkeypatch, capsys):
    """`flow call` prints the result's text, or, when the recorder cut it, what was cut (it failed on it before)."""
    real = loop.call_server_tool

    async def result_cut(*args, **kwargs):
        result, called = await real(*args, **kwargs)
        return replace(result, trace=_cut(result.trace, ToolResult)), called

    monkeypatch.setattr(loop, "call_server_tool", result_cut)
    code = main(["call", "get_weather", "--args", '{"city": "北京"}', "-o", str(tmp_path / "call.json")])
    assert code == 0 and capsys.readouterr().out.splitlines()[0] == "(payload not kept)"
