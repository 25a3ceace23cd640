"""Replaying and showing the samples through the command line and an HTTP provider served in its own process (the
replays themselves are tested in this process: tests/unit/test_samples_replay.py)."""

from __future__ import annotations

import json

from flow import ModelConfig, RunOptions, run
from flow.backends.replay import replay
from flow.trace.files import load_trace
from helpers import ROOT, flow_cli, replay_report

SAMPLE_DIR = ROOT / "sample_traces"


def test_a_recording_of_an_http_provider_replays_with_no_network(mock_server):
    # Recorded against an OpenAI-compatible server over a real socket, streamed...
    recorded = run(
        "北京和上海今天天气怎么样？",
        options=RunOptions(transport="memory", stream=True),
        model=ModelConfig(backend="openai", model="mock", base_url=mock_server, api_key="sk-local"),
    ).trace
    assert recorded.meta.model["backend"] == "openai"
    # ...then replayed with the endpoint gone: only the recording answers.
    recorded.meta.model["base_url"] = "http://127.0.0.1:1/v1"
    result = replay(recorded)
    assert result.ok and replay_report(result.trace)["diverged"] is False
    assert result.answer == recorded.meta.answer
    assert sum(h.kind == "llm.chunk" for h in result.trace.hops) == sum(h.kind == "llm.chunk" for h in recorded.hops)


def test_replay_cli_reports_match_and_divergence(tmp_path):
    out = tmp_path / "r.json"
    proc = flow_cli("replay", str(SAMPLE_DIR / "two-cities-parallel.json"), "--out", str(out))
    assert proc.returncode == 0 and "replay matched the recording: 2 model exchanges" in proc.stdout
    assert replay_report(load_trace(out))["diverged"] is False
    tampered = tmp_path / "t.json"
    data = json.loads((SAMPLE_DIR / "beijing-direct.json").read_text(encoding="utf-8"))
    data["meta"]["settings"]["tool_choice"] = "none"
    tampered.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    proc = flow_cli("replay", str(tampered), "--out", str(out))
    assert proc.returncode == 1 and "replay diverged from the recording: model request #1" in proc.stderr


def test_show_step_prints_the_hops_of_that_step_with_payloads():
    proc = flow_cli("show", str(SAMPLE_DIR / "beijing-mcp.json"), "--step", "4")
    assert proc.returncode == 0
    assert proc.stdout.startswith("#11 step 4 (decision) · Model API → App · llm.response · tool_calls: get_weather")
    assert '"finish_reason": "tool_calls"' in proc.stdout
    proc = flow_cli("show", str(SAMPLE_DIR / "beijing-mcp.json"), "--step", "11")
    assert proc.returncode == 2 and "step 11 does not occur" in proc.stderr
