"""The command line in its own process: exit codes, one-line errors, what it imports (the commands themselves are
tested in this process: tests/unit/test_cli.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from flow.engine.options import RunOptions
from flow.servers.spec import ServerSpec
from flow.trace.files import read_trace_bytes
from helpers import ROOT, flow_cli, server_facts


def test_a_failed_run_exits_non_zero_with_one_line_and_still_writes_the_trace(tmp_path):
    out = tmp_path / "fail.json"
    proc = flow_cli("run", "--transport", "memory", "--model", "mock-error-401", "--out", str(out))
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0 and proc.stderr.startswith(
        "error: the model endpoint answered HTTP 401"
    )
    assert "Traceback" not in proc.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["meta"]["outcome"] == "error"
    # What happened, read from the trace: where the run stopped, and why.
    assert "what happened: The run stopped (hop 11): the model endpoint answered HTTP 401" in proc.stdout


def test_a_usage_error_from_the_real_entry_point_is_one_line_and_exit_2():
    proc = flow_cli("run", "--max-rounds", "0")
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", "error: --max-rounds must be at least 1\n")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["run", "--max-rounds", "0"], "--max-rounds must be at least 1"),
        (
            ["run", "--mode", "direct", "--resource", "weather://cities"],
            "--server, --server-fault, --resource and --prompt need an MCP server: use --mode mcp",
        ),
        (
            ["run", "--script", "[{answer: hi}]", "--model", "mock"],
            "--script is the model; leave out --model and --base-url",
        ),
        (["run", "--prompt", "weather_report", "--prompt-arg", "city"], "--prompt-arg wants NAME=VALUE, got 'city'"),
        (["export", "x.json"], "say where the spans go: --otlp-json OUT and/or --otlp-endpoint URL"),
        (
            ["samples", "--out", "-"],
            "--out -: the samples are a folder of files, and standard output holds one; name a folder",
        ),
        (["show", "a\udcffb.json"], "argument 2 is not UTF-8 text: a\\udcffb.json"),
        (["tools", "--server", "'unterminated"], '--server "\'unterminated": No closing quotation'),
        (
            ["tools", "--server", ""],
            "--server is empty: give a command line or an http(s):// URL, or leave it out for the demo server",
        ),
        # What argparse finds wrong is one line too, never the usage block.
        ([], "mcp-flow: the following arguments are required: command (see mcp-flow --help)"),
        (
            ["merge", "--out", "x.json"],
            "mcp-flow merge: the following arguments are required: RECORDING (see mcp-flow merge --help)",
        ),
        (
            ["proxy-model"],
            "mcp-flow proxy-model: the following arguments are required: --upstream, --out/-o "
            "(see mcp-flow proxy-model --help)",
        ),
        (
            ["run", "--mode", "x"],
            "mcp-flow run: argument --mode: invalid choice: 'x' (choose from 'mcp', 'direct', 'hosted') "
            "(see mcp-flow run --help)",
        ),
        # Seconds are checked by one rule, which no NaN or infinity passes.
        (
            ["record", "--timeout", "nan", "-o", "x.json", "--", "true"],
            "--timeout nan: give seconds above 0 and at most 86400",
        ),
        (
            ["record", "--timeout", "-5", "-o", "x.json", "--", "true"],
            "--timeout -5: give seconds above 0 and at most 86400",
        ),
        (
            ["proxy-model", "--upstream", "http://h/v1", "-o", "m.jsonl", "--timeout", "inf"],
            "--timeout inf: give seconds above 0 and at most 86400",
        ),
        (
            ["proxy-http", "--upstream", "http://h/mcp", "-o", "m.jsonl", "--timeout", "nan"],
            "--timeout nan: give seconds above 0 and at most 86400",
        ),
        (
            ["proxy", "--grace", "nan", "-o", "m.jsonl", "--", "true"],
            "--grace nan: give seconds above 0 and at most 300",
        ),
        (
            ["proxy", "--grace", "inf", "-o", "m.jsonl", "--", "true"],
            "--grace inf: give seconds above 0 and at most 300",
        ),
    ],
)
def test_every_usage_error_is_one_line_through_the_one_handler(cli, args, line, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing a refused command might leave lands in the repository
    ran = cli(*args)
    assert (ran.returncode, ran.stdout, ran.stderr) == (2, "", f"error: {line}\n")
    assert list(tmp_path.iterdir()) == []


def test_tools_and_call_write_their_trace_to_stdout_for_dash(cli):
    ran = cli("tools", "--out", "-")
    assert ran.returncode == 0, ran.stderr
    assert server_facts(read_trace_bytes(ran.stdout.encode("utf-8")))["name"] == "weather-demo"
    assert "  tool     get_weather(city) — " in ran.stderr
    ran = cli("call", "get_weather", "--args", '{"city": "北京"}', "-o", "-")
    assert ran.returncode == 0, ran.stderr
    assert read_trace_bytes(ran.stdout.encode("utf-8")).hops[-1].kind == "tool.result"
    assert '"city": "北京"' in ran.stderr
    assert "tools/call 1 (no model)" in ran.stderr and "tool calls 0" not in ran.stderr  # issue 43


def test_one_builder_resolves_the_server_choice():
    demo = ServerSpec(transport="memory")
    other = ServerSpec(command=("python", "-m", "some_server"))
    chosen: dict[str, Any] = {
        "mode": "mcp",
        "transport": "memory",
        "server_fault": "die",
        "prompt": "",
        "resources": ["a://b"],
        "prompt_args": {"city": "北京"},
    }
    on_demo = RunOptions.build(server=demo, **chosen)
    assert (on_demo.transport, on_demo.server_fault, on_demo.prompt) == ("memory", "die", None)
    assert (on_demo.resources, on_demo.prompt_args) == (("a://b",), (("city", "北京"),))
    on_other = RunOptions.build(server=other, **chosen)  # transport and fault are the demo server's own
    assert (on_other.transport, on_other.server_fault, on_other.server_command) == ("stdio", "none", other.command)
    as_direct: dict[str, Any] = {**chosen, "mode": "direct"}
    direct = RunOptions.build(server=demo, **as_direct)
    assert direct.server_fault == "none"


@pytest.mark.parametrize("stream", [False, True])
def test_the_mock_model_served_over_http_answers_the_real_sdk(tmp_path, cli, monkeypatch, mock_server, stream):
    out = tmp_path / "http.json"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-fake-0123456789")
    args = [
        "run",
        "--transport",
        "memory",
        "--base-url",
        mock_server,
        "--model",
        "mock",
        "--out",
        str(out),
        "--question",
        "北京和上海今天天气怎么样？",
    ]
    ran = cli(*args, *(["--stream"] if stream else []))
    assert ran.returncode == 0, ran.stderr
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
    assert "北京" in ran.stdout and "上海" in ran.stdout


def test_importing_flow_does_not_import_streamlit():
    code = "import sys, flow, flow.cli, flow.engine.loop; print('streamlit' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "False", proc.stderr


def test_the_help_pages_load_no_model_sdk():
    # The engine and the backends load with the commands that use them: a client waits for `mcp-flow proxy`.
    code = (
        "import sys\nfrom flow.cli import main\nfor argv in (['--help'], ['proxy', '--help'], ['proxy-model', '--help']):"
        "\n    try: main(argv)\n    except SystemExit: pass\n"
        "print(sorted({'openai', 'anthropic', 'flow.engine', 'flow.backends'} & set(sys.modules)))"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.stdout.splitlines()[-1] == "[]", proc.stderr
    assert "mcp-flow proxy-model" in proc.stdout  # the help pages were printed, from the same process


def test_a_stdio_demo_server_does_not_import_the_model_side():
    code = "import sys, weather_demo.server; print('openai' in sys.modules, 'flow.orchestrator' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "False False", proc.stderr
