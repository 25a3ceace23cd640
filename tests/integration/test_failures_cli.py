"""Failures through the command line and a server process (the other failures are tested in this process:
tests/unit/test_failures.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from flow import ModelConfig, RunOptions, ServerSpec, load_trace, run
from flow.backends.scripted import load_script
from helpers import ROOT, kinds, run_flow_sync


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_an_in_memory_server_that_dies_mid_call_ends_only_the_run(era):
    # The demo's "die" fault in this process closes the server's side of the connection; the process goes on.
    result = run_flow_sync(transport="memory", server_fault="die", era=era)
    assert not result.ok
    assert result.error == (
        "the in-process MCP server stopped during tools/call get_weather: "
        "weather-demo crashed on tools/call (--fault die)"
    )
    err = next(h for h in result.trace.hops if h.kind == "error" and h.step == 7)
    assert (err.source, err.target, err.payload["error"]) == ("mcp_server", "mcp_client", "connection closed")
    assert kinds(result.trace.hops)[-1] == "error"
    assert run_flow_sync(transport="memory").ok  # and the next run in the same process works


def test_a_server_that_dies_in_memory_is_one_line_exit_1_and_a_trace_from_the_cli(tmp_path):
    out = tmp_path / "died.json"
    done = subprocess.run(
        [sys.executable, "-m", "flow", "run", "--transport", "memory", "--server-fault", "die", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("error: the in-process MCP server stopped during tools/call")
    assert "Traceback" not in done.stderr
    assert load_trace(out).meta.outcome == "error"


def test_a_round_limit_stop_carries_no_server_stderr_but_a_server_failure_does():
    # A server that says one line on stderr as it starts, as many do: nothing to do with a stop of the run's own.
    started = "import runpy, sys; print('weather-demo: serving on stdio', file=sys.stderr, flush=True); "
    server = ServerSpec(
        command=(sys.executable, "-c", started + "runpy.run_module('weather_demo', run_name='__main__')")
    )
    limited = run(
        "北京今天天气怎么样？给我一个出行建议",
        options=RunOptions.build(server=server, max_rounds=1),
        model=ModelConfig(model="mock"),
    )
    assert limited.error is not None
    assert limited.error.startswith("stopped: the model still asked for tools after 1 tool round")
    assert "server_stderr" not in limited.trace.hops[-1].payload
    hostile = Path(__file__).parents[1] / "data" / "hostile_server.py"
    dying = ServerSpec(command=(sys.executable, str(hostile), "--behaviour", "exit-mid-call"))
    died = run(
        "echo hi",
        options=RunOptions.build(server=dying),
        model=ModelConfig.scripted(load_script('[{"call": "echo", "arguments": {"message": "hi"}}]')),
    )
    assert died.error is not None
    assert died.error.startswith("the MCP server closed the connection during tools/call echo")
    # Its last words, where the user is told it closed.
    assert died.trace.hops[-1].payload["server_stderr"] == "hostile: giving up in the middle of a request"
