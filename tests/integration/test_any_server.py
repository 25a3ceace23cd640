"""Another MCP server, started from its command line: listed, run against, and reported when it fails."""

from __future__ import annotations

import json
import shlex
import sys

import pytest

from helpers import flow_cli

SERVER = shlex.join([sys.executable, "-m", "weather_demo"])  # a server started the way any other is


@pytest.mark.parametrize(("era", "setup"), [("handshake", "initialize"), ("modern", "server/discover")])
def test_tools_lists_what_a_server_offers_and_records_the_frames(tmp_path, era, setup):
    out = tmp_path / "tools.json"
    proc = flow_cli("tools", "--server", SERVER, "--era", era, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("weather-demo · protocol ")
    assert "tool     get_weather(city)" in proc.stdout and "resource weather://cities" in proc.stdout
    assert "prompt   weather_report" in proc.stdout
    trace = json.loads(out.read_text(encoding="utf-8"))
    methods = [h["payload"].get("method") for h in trace["hops"] if h["kind"] == "mcp.request"]
    assert methods == [setup, "tools/list", "resources/list", "prompts/list"]
    assert trace["meta"]["server"]["era"] == era and trace["meta"]["server"]["command"] == SERVER


def test_run_against_another_server_has_no_step_zero(tmp_path):
    out = tmp_path / "run.json"
    proc = flow_cli("run", "--server", SERVER, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    hops = json.loads(out.read_text(encoding="utf-8"))["hops"]
    steps = [h["step"] for h in hops]
    assert 0 not in steps and steps[0] == 1 and 10 in steps  # its decorators are not ours to read


def test_a_server_that_fails_to_start_is_one_line_with_its_own_words(tmp_path):
    failing = shlex.join([sys.executable, "-c", "import sys; sys.stderr.write('no config file\\n'); sys.exit(2)"])
    proc = flow_cli("tools", "--server", failing)
    assert proc.returncode == 1 and proc.stderr == "error: the MCP server did not start: no config file\n"
    proc = flow_cli("run", "--server", failing, "--out", str(tmp_path / "r.json"))
    assert proc.returncode == 1 and "did not start: no config file" in proc.stderr and "Traceback" not in proc.stderr
