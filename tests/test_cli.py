"""The command line as a user runs it: separate processes, real files, real sockets."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers import ROOT, flow_cli


@pytest.mark.parametrize("mode", ["mcp", "direct"])
def test_run_prints_answer_and_summary_and_writes_the_trace(tmp_path, mode):
    out = tmp_path / f"beijing-{mode}.json"
    proc = flow_cli("run", "--mode", mode, "--question", "北京今天天气怎么样？", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    answer, summary = proc.stdout.strip().splitlines()
    assert answer.startswith("北京今天晴")
    assert summary.startswith("hops ") and "model calls 2" in summary and "tool calls 1" in summary and " ms" in summary
    trace = json.loads(out.read_text(encoding="utf-8"))
    assert trace["format_version"] == 1 and trace["meta"]["mode"] == mode
    assert trace["meta"]["question"] == "北京今天天气怎么样？"
    for hop in trace["hops"]:
        for key in ("seq", "step", "phase", "source", "target", "kind", "payload", "t_start_ms", "t_end_ms", "bytes",
                    "jsonrpc_id", "tool_call_id"):
            assert key in hop
    assert proc.stderr == ""


def test_show_prints_a_hop_table(tmp_path):
    out = tmp_path / "t.json"
    assert flow_cli("run", "--transport", "memory", "--out", str(out)).returncode == 0
    proc = flow_cli("show", str(out))
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[1].split()[:4] == ["seq", "step", "phase", "from"]
    trace = json.loads(out.read_text(encoding="utf-8"))
    assert len([ln for ln in lines if ln[:4].strip().isdigit()]) == len(trace["hops"])
    assert any("tools/call get_weather(city=北京)" in ln for ln in lines)


def test_a_failed_run_exits_non_zero_with_one_line_and_still_writes_the_trace(tmp_path):
    out = tmp_path / "fail.json"
    proc = flow_cli("run", "--transport", "memory", "--model", "mock-error-401", "--out", str(out))
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0 and proc.stderr.startswith("error: the model endpoint answered HTTP 401")
    assert "Traceback" not in proc.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["meta"]["outcome"] == "error"


def test_show_of_a_broken_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format_version": 1, "hops": [', encoding="utf-8")
    proc = flow_cli("show", str(bad))
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr
    proc = flow_cli("show", str(tmp_path / "missing.json"))
    assert proc.returncode == 2 and "no such file" in proc.stderr


@pytest.mark.parametrize("stream", [False, True])
def test_the_mock_model_served_over_http_answers_the_real_sdk(tmp_path, mock_server, stream):
    out = tmp_path / "http.json"
    args = ["run", "--transport", "memory", "--base-url", mock_server, "--model", "mock", "--out", str(out),
            "--question", "北京和上海今天天气怎么样？"]
    proc = flow_cli(*args, *(["--stream"] if stream else []), env={"OPENAI_API_KEY": "sk-test-fake-0123456789"})
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert "sk-test-fake-0123456789" not in text
    trace = json.loads(text)
    assert trace["meta"]["model"]["backend"] == "openai" and trace["meta"]["model"]["base_url"] == mock_server
    requests = [h for h in trace["hops"] if h["kind"] == "llm.request"]
    assert requests[0]["payload"]["url"].startswith(mock_server)
    if stream:
        chunk_steps = [h["step"] for h in trace["hops"] if h["kind"] == "llm.chunk"]
        assert chunk_steps.count(4) >= 8 and chunk_steps.count(9) >= 3  # every event of both streams, placed
        assert chunk_steps == sorted(chunk_steps)
    assert "北京" in proc.stdout and "上海" in proc.stdout


def test_importing_flow_does_not_import_streamlit():
    code = "import sys, flow, flow.cli, flow.engine.loop; print('streamlit' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "False", proc.stderr


def test_public_surface_is_what_all_says():
    import flow

    # The names are imported on first use; each one named in __all__ must resolve, and only those do.
    assert sorted(flow.__all__) == sorted(flow._HOME)
    assert all(getattr(flow, name).__module__ == flow._HOME[name] for name in flow.__all__
               if getattr(getattr(flow, name), "__module__", "typing") != "typing"  # a Literal alias says typing
               and not isinstance(getattr(flow, name), (int, list)))
    assert not hasattr(flow, "no_such_name")


def test_a_stdio_demo_server_does_not_import_the_model_side():
    code = "import sys, weather_demo.server; print('openai' in sys.modules, 'flow.orchestrator' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "False False", proc.stderr


@pytest.mark.parametrize(("server", "words"), [("'unterminated", "No closing quotation"), ("", "--server is empty")])
def test_a_server_option_that_cannot_be_read_is_one_line(server, words):
    proc = flow_cli("tools", "--server", server)
    assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
