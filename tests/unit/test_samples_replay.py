"""The sample library never drifts from the engine, and every trace re-runs offline."""

from __future__ import annotations

import json

import pytest

from flow import ModelConfig, RunOptions, run
from flow.backends.replay import Cursor, replay, same_steps
from flow.samples import SAMPLES, write_samples
from flow.trace.files import TraceError, load_trace
from flow.trace.normalise import normalise
from flow.trace.questions import questions_for
from helpers import ROOT, replay_report, server_facts

SAMPLE_DIR = ROOT / "sample_traces"


STOPPED = {"round-limit", "asks-cancelled"}  # samples whose point is a run that stops before an answer


def test_the_committed_samples_are_exactly_the_library():
    assert sorted(p.stem for p in SAMPLE_DIR.glob("*.json")) == sorted(s.name for s in SAMPLES)


def test_regenerated_samples_match_the_committed_ones(tmp_path):
    write_samples(tmp_path)
    for sample in SAMPLES:
        fresh = json.loads((tmp_path / f"{sample.name}.json").read_text(encoding="utf-8"))
        committed = json.loads((SAMPLE_DIR / f"{sample.name}.json").read_text(encoding="utf-8"))
        assert normalise(fresh) == normalise(committed), f"{sample.name} drifted: run python -m flow samples"
    # The questions travel with the traces, where `lesson`, `render` and the app look for them.
    copied = sorted(p.name for p in (tmp_path / "questions").iterdir())
    assert copied == sorted(p.name for p in (SAMPLE_DIR / "questions").glob("*.questions.json"))
    assert questions_for(tmp_path / "beijing-mcp.json")


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
def test_each_sample_has_a_title_and_a_note_in_both_languages(sample):
    meta = load_trace(SAMPLE_DIR / f"{sample.name}.json").meta
    assert meta.outcome == ("error" if sample.name in STOPPED else "ok")
    for text in (meta.title, meta.note):
        assert text is not None and set(text) == {"zh", "en"} and all(text.values())
    assert meta.note is not None and any("\u4e00" <= c <= "\u9fff" for c in meta.note["zh"])


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
def test_replaying_each_sample_offline_reproduces_its_steps(sample):
    recorded = load_trace(SAMPLE_DIR / f"{sample.name}.json")
    result = replay(recorded, source=sample.name)
    assert replay_report(result.trace)["diverged"] is False, replay_report(result.trace)["divergences"]
    assert result.answer == recorded.meta.answer
    if replay_report(result.trace)["tools"] == "recorded":
        # Another server's results are served back by a stand-in whose session opens before the question: the
        # set-up frames may come first; from the first model request on, the steps are the recording's.
        assert sorted_steps_before_the_model(recorded) == sorted_steps_before_the_model(result.trace)
        assert steps_from_the_model(recorded) == steps_from_the_model(result.trace)
    elif replay_report(result.trace)["tools"] == "provider":
        # Hosted MCP replays without a server: the frames the provider's client sent are the recording's alone;
        # everything the app saw (its requests, the responses, the provider's reports) comes back as it was.
        observed = ("mcp.request", "mcp.response", "mcp.notification", "mcp.error", "tool.invoke", "tool.result")
        seen = recorded.model_copy(update={"hops": [h for h in recorded.hops if h.kind not in observed]})
        assert not any(h.kind in observed for h in result.trace.hops)
        assert same_steps(seen, result.trace)
    else:
        assert same_steps(recorded, result.trace)
    assert replay_report(result.trace)["served"] == sum(h.kind == "llm.request" for h in recorded.hops)


def _model_first(trace):
    return next(i for i, h in enumerate(trace.hops) if h.kind == "translate.forward")


def sorted_steps_before_the_model(trace):
    return sorted((h.step, h.kind) for h in trace.hops[: _model_first(trace)])


def steps_from_the_model(trace):
    return [(h.step, h.kind) for h in trace.hops[_model_first(trace) :] if h.kind != "replay.divergence"]


def test_a_replay_that_departs_says_so_and_records_where():
    recorded = load_trace(SAMPLE_DIR / "beijing-mcp.json")
    recorded.meta.question = "上海今天天气怎么样？"  # the app now asks something else
    result = replay(recorded)
    info = replay_report(result.trace)
    assert info["diverged"] is True
    assert "messages[1].content" in info["divergences"][0]
    divergence = next(h for h in result.trace.hops if h.kind == "replay.divergence")
    assert divergence.step == 3  # found at the first model request


def test_a_changed_tool_result_is_a_divergence():
    recorded = load_trace(SAMPLE_DIR / "beijing-direct.json")
    hop = next(h for h in recorded.hops if h.kind == "tool.result")
    hop.payload["tool_message_content"] = hop.payload["tool_message_content"].replace("-3", "-30")
    result = replay(recorded)
    assert any("tool result for" in d for d in replay_report(result.trace)["divergences"])


def test_replay_runs_the_demo_server_over_the_transport_the_recording_used_by_default():
    # `run` defaults to stdio: what it records replays over stdio too; an in-process recording, in process.
    recorded = run("北京今天天气怎么样？", options=RunOptions(), model=ModelConfig())
    assert recorded.ok and recorded.trace.meta.settings["transport"] == "stdio"
    again = replay(recorded.trace)
    assert again.ok and server_facts(again.trace)["transport"] == "stdio" and not replay_report(again.trace)["diverged"]
    sample = load_trace(SAMPLE_DIR / "beijing-mcp.json")
    assert server_facts(replay(sample).trace)["transport"] == sample.meta.settings["transport"] == "memory"


def test_cursor_steps_forward_and_back_and_jumps():
    trace = load_trace(SAMPLE_DIR / "beijing-mcp.json")
    cursor = Cursor(trace)
    assert cursor.at_start and cursor.current.step == 0
    assert cursor.prev().seq == 1  # clamps at the start
    assert cursor.next().step == 1 and len(cursor.so_far) == 2
    hop = cursor.goto_step(6)
    assert hop.kind == "mcp.request" and hop.payload["method"] == "tools/call"
    assert cursor.so_far[-1] is hop and cursor.prev().step == 5
    cursor.goto(10_000)
    assert cursor.at_end and cursor.current.kind == "app.answer"
    assert cursor.goto_phase("decision").step == 4
    with pytest.raises(TraceError, match="step 11 does not occur"):
        cursor.goto_step(11)
