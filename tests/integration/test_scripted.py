"""The scripted model: the user states the model's decisions; the rest of the flow is real."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from flow import RunOptions, run
from flow.backends.scripted import ScriptError, load_script
from flow.engine.model import ModelConfig
from flow.trace.files import load_trace, save_trace
from helpers import ROOT, server_facts

TIME_SERVER = f"{shlex.quote(str(Path(sys.executable).parent / 'mcp-server-time'))} --local-timezone UTC"


def scripted(script: str, question: str = "随便问一个问题", **options):
    options.setdefault("transport", "memory")
    return run(question, options=RunOptions(**options), model=ModelConfig.scripted(load_script(script)))


def test_a_yaml_script_file_drives_the_calls_and_the_answer(tmp_path):
    path = tmp_path / "demo.yaml"
    path.write_text(
        "- call: calc_work_hours\n  arguments: {start: '08:00', end: '17:30'}\n- answer: 八个半小时减午休。\n",
        encoding="utf-8",
    )
    result = scripted(str(path))
    assert result.ok and result.answer == "八个半小时减午休。"
    tool_result = next(h for h in result.trace.hops if h.kind == "tool.result" and h.target == "app")
    assert json.loads(tool_result.payload["tool_message_content"])["hours"] == 8.5  # the real tool ran


def test_every_model_hop_and_only_those_is_marked_scripted(tmp_path):
    result = scripted('[{"call": "get_weather", "arguments": {"city": "北京"}}]', stream=True)
    assert result.ok
    model_hops = [h for h in result.trace.hops if "model" in (h.source, h.target)]
    assert model_hops and all(h.scripted for h in model_hops)
    assert not any(h.scripted for h in result.trace.hops if h not in model_hops)
    assert all(h.summary.startswith("scripted · ") for h in model_hops)
    meta = result.trace.meta.model
    assert meta["backend"] == "scripted" and meta["script"] == [
        {"calls": [{"call": "get_weather", "arguments": {"city": "北京"}}]}
    ]
    # The mark survives saving and loading.
    save_trace(result.trace, tmp_path / "t.json")
    loaded = load_trace(tmp_path / "t.json")
    assert sum(bool(h.scripted) for h in loaded.hops) == len(model_hops)


def test_one_turn_with_two_calls_is_one_parallel_response():
    result = scripted(
        "- calls:\n  - {call: get_weather, arguments: {city: 北京}}\n  - {call: get_weather, arguments: {city: 上海}}\n"
    )
    decision = next(h for h in result.trace.hops if h.kind == "llm.response" and h.step == 4)
    calls = decision.payload["body"]["choices"][0]["message"]["tool_calls"]
    assert [json.loads(c["function"]["arguments"])["city"] for c in calls] == ["北京", "上海"]
    assert result.answer is not None and "北京" in result.answer and "上海" in result.answer  # from both results


def test_answer_directly_makes_no_tool_call():
    result = scripted("answer: 我不需要工具。")
    assert result.answer == "我不需要工具。"
    assert not any(h.kind in ("translate.reverse", "mcp.request") and h.step == 6 for h in result.trace.hops)


def test_a_scripted_call_to_a_missing_tool_shows_the_servers_answer():
    result = scripted("call: no_such_tool")
    assert result.ok
    assert any(h.kind == "mcp.error" for h in result.trace.hops)
    assert result.answer is not None and "no_such_tool" in result.answer


@pytest.mark.parametrize(
    ("script", "words"),
    [
        ('[{"cal": 1}]', "turn 1: unknown key 'cal'"),
        ("- call: get_weather\n  arguments: 3\n", "turn 1: arguments must be an object"),
        ("- calls: []", "turn 1: `calls` must be a non-empty list"),
        ("- answer: ok\n- {call: x, arguments: '{bad'}", "turn 2: arguments are not JSON"),
        ("- call: [", "not JSON or YAML at line 1"),
        ("missing.yaml", "neither a script file nor a script"),
    ],
)
def test_a_bad_script_is_one_line_naming_the_turn(script, words):
    with pytest.raises(ScriptError, match=None) as info:
        load_script(script)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_the_cli_runs_a_third_party_server_with_a_script_in_both_eras(tmp_path):
    script = '{"call": "get_current_time", "arguments": {"timezone": "Asia/Shanghai"}}'
    for era, version in (("handshake", None), ("modern", "2026-07-28")):
        out = tmp_path / f"{era}.json"
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "flow",
                "run",
                "--server",
                TIME_SERVER,
                "--era",
                era,
                "--script",
                script,
                "-q",
                "上海现在几点？",
                "-o",
                str(out),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        assert "Asia/Shanghai" in proc.stdout and "+08:00" in proc.stdout
        trace = load_trace(out)
        server = server_facts(trace)

        assert server["name"] == "mcp-time" and server["era"] == era
        if version:
            assert server["protocol_version"] == version
        call = next(h for h in trace.hops if h.kind == "mcp.request" and h.payload.get("method") == "tools/call")
        params = call.payload["params"]
        assert (params["name"], params["arguments"]) == ("get_current_time", {"timezone": "Asia/Shanghai"})


def test_the_cli_refuses_a_script_with_a_model():
    proc = subprocess.run(
        [sys.executable, "-m", "flow", "run", "--script", "answer: hi", "--model", "mock"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert (
        proc.returncode == 2 and proc.stderr.strip() == "error: --script is the model; leave out --model and --base-url"
    )
