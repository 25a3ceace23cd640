"""MCP over Streamable HTTP: the demo server in its own process on a real localhost socket, the CLI
in another, a bearer token between them."""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from flow import RunOptions, run
from flow.cli import main
from flow.engine.model import ModelConfig
from flow.servers.spec import ServerSpec
from flow.trace.files import load_trace
from helpers import (
    ROOT,
    TOKEN,
    DemoServer,
    Ran,
    must_search,
    numbered_steps,
    server_facts,
    start_demo_server,
    stop_demo_server,
)

WRONG = "wrong-token-0a1b2c3d"
REFUSED = "error: the MCP server refused the bearer token (HTTP 401)"


@pytest.fixture
def start_server() -> Iterator:
    started: list[DemoServer] = []

    def start(*args: str, env: dict[str, str] | None = None) -> DemoServer:
        started.append(start_demo_server(*args, env=env))
        return started[-1]

    yield start
    for server in started:
        stop_demo_server(server)


@pytest.fixture
def cli(capsys, monkeypatch):
    """`python -m flow ...` with the token in MCP_BEARER_TOKEN (or none): in this process, which is quicker,
    or as its own process (`own_process=True`) where what a user sees on the terminal is the point."""

    def call(*args: str, token: str | None = TOKEN, own_process: bool = False) -> Ran:
        if own_process:
            env = {k: v for k, v in os.environ.items() if k != "MCP_BEARER_TOKEN" and not k.startswith("OPENAI_")}
            env.update({"MCP_BEARER_TOKEN": token} if token else {})
            proc = subprocess.run(
                [sys.executable, "-m", "flow", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
            )
            return Ran(proc.returncode, proc.stdout, proc.stderr)
        with monkeypatch.context() as m:
            m.delenv("MCP_BEARER_TOKEN", raising=False)
            if token:
                m.setenv("MCP_BEARER_TOKEN", token)
            capsys.readouterr()
            code = main(list(args))
            captured = capsys.readouterr()
        return Ran(code, captured.out, captured.err)

    return call


def saved(path: Path) -> tuple[dict, bytes]:
    data = path.read_bytes()
    return json.loads(data), data


@pytest.mark.parametrize(("era", "setup"), [("handshake", "initialize"), ("modern", "server/discover")])
def test_tools_over_http_lists_the_server_and_records_the_set_up(demo, cli, tmp_path, era, setup):
    out = tmp_path / "tools.json"
    proc = cli("tools", "--server", demo.url, "--era", era, "--out", str(out), own_process=era == "handshake")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].startswith("weather-demo · protocol ")
    assert proc.stdout.splitlines()[0].endswith(f"({era} era) · {demo.url} (bearer token)")
    assert "tool     get_weather(city)" in proc.stdout and "prompt   weather_report" in proc.stdout
    trace, data = saved(out)
    methods = [h["payload"].get("method") for h in trace["hops"] if h["kind"] == "mcp.request"]
    assert methods == [setup, "tools/list", "resources/list", "prompts/list"]
    server = trace["meta"]["server"]
    assert server["transport"] == "http" and server["url"] == demo.url and server["auth"] == "bearer"
    assert server["era"] == era and server["protocol_version"] == ("2026-07-28" if era == "modern" else "2025-11-25")
    # The handshake era opens a session the server names in Mcp-Session-Id; the stateless era has none.
    assert bool(server["http_session_id"]) == (era == "handshake")
    assert TOKEN.encode() not in data and TOKEN not in proc.stdout + proc.stderr


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_run_over_http_answers_with_the_ten_steps(demo, cli, tmp_path, era):
    out = tmp_path / "run.json"
    proc = cli("run", "--server", demo.url, "--era", era, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("北京今天晴")
    trace = load_trace(out)
    assert numbered_steps(trace.hops) == list(range(1, 11))
    calls = [h for h in trace.hops if h.kind == "mcp.request" and h.payload["method"] == "tools/call"]
    assert [(h.step, h.payload["params"]["arguments"]) for h in calls] == [(6, {"city": "北京"})]
    assert server_facts(trace)["era"] == era and server_facts(trace)["transport"] == "http"
    assert trace.meta.settings["server_url"] == demo.url
    assert TOKEN.encode() not in out.read_bytes()


@pytest.mark.parametrize(
    ("command", "token", "line"),
    [
        ("tools", WRONG, REFUSED),
        ("run", None, "error: the MCP server requires a bearer token (HTTP 401): set MCP_BEARER_TOKEN"),
    ],
)
def test_a_refused_token_is_one_line_and_an_error_hop(demo, cli, tmp_path, command, token, line):
    out = tmp_path / "refused.json"
    proc = cli(command, "--server", demo.url, "--out", str(out), token=token, own_process=command == "tools")
    assert proc.returncode == 1
    assert proc.stderr.strip() == line  # one line, no traceback, no log noise
    trace, data = saved(out)
    statuses = [
        h["payload"]["http"]["status"] for h in trace["hops"] if h["kind"] == "error" and "http" in h["payload"]
    ]
    assert statuses == [401]
    refused = next(h for h in trace["hops"] if h["kind"] == "error" and "http" in h["payload"])
    assert (refused["source"], refused["target"], refused["payload"]["http"]["jsonrpc"]["method"]) == (
        "mcp_server",
        "mcp_client",
        "initialize",
    )
    assert trace["hops"][-1]["kind"] == "error" and trace["meta"]["error"] == line.removeprefix("error: ")
    assert "MCP 服务器" in trace["meta"]["error_zh"]
    # The frame the SDK made up for the failed POST never crossed the wire, so it is no mcp.error hop.
    assert not [h for h in trace["hops"] if h["kind"] == "mcp.error"]
    assert TOKEN.encode() not in data and WRONG.encode() not in data


def test_the_modern_era_falls_back_to_the_handshake_and_both_are_refused(demo, cli, tmp_path):
    out = tmp_path / "refused.json"
    proc = cli("tools", "--server", demo.url, "--era", "modern", "--out", str(out), token=WRONG)
    assert proc.returncode == 1 and proc.stderr.strip() == REFUSED
    trace, _ = saved(out)
    refused = [h["payload"]["http"]["jsonrpc"]["method"] for h in trace["hops"] if "http" in (h["payload"] or {})]
    assert refused == ["server/discover", "initialize"]


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_a_server_that_dies_mid_run_ends_the_run_cleanly(start_server, cli, tmp_path, era):
    server = start_server("--token", TOKEN, "--fault", "die")
    out = tmp_path / "died.json"
    proc = cli("run", "--server", server.url, "--era", era, "--out", str(out))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith("error: the MCP server") and "tools/call" in line
    trace = load_trace(out)
    call = next(h for h in trace.hops if h.kind == "mcp.request" and h.payload["method"] == "tools/call")
    after = [h for h in trace.hops if h.seq > call.seq]
    broken = [h for h in after if h.kind == "error" and "http" in h.payload]
    assert any(h.payload["http"].get("jsonrpc", {}).get("method") == "tools/call" for h in broken)
    assert not [h for h in after if h.kind in ("mcp.response", "mcp.error")]  # no answer came, none is shown
    assert after[-1].kind == "error" and after[-1].step == 10
    assert server.proc.wait(timeout=10) == 3  # it really died, as --fault die does


def test_a_hanging_server_and_the_cancel_that_crossed_the_wire_or_not(start_server, cli, tmp_path):
    """A cancel is a POSTed notification in the handshake era; at 2026-07-28 the client closes the
    request's stream instead, so no cancel frame crosses the wire and none is recorded."""
    server = start_server("--token", TOKEN, "--fault", "hang")
    for era, cancels in (("handshake", 1), ("modern", 0)):
        out = tmp_path / f"hang-{era}.json"
        proc = cli("run", "--server", server.url, "--era", era, "--mcp-timeout", "1", "--out", str(out))
        assert proc.returncode == 1
        assert proc.stderr.strip() == "error: the MCP server did not answer tools/call get_weather within 1 s"
        trace = load_trace(out)
        sent = [h.payload["method"] for h in trace.hops if h.kind == "mcp.notification" and h.source == "mcp_client"]
        assert sent.count("notifications/cancelled") == cancels, sent


def test_a_server_that_is_not_there(cli, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    out = tmp_path / "nothing.json"
    proc = cli("tools", "--server", f"http://127.0.0.1:{port}/mcp", "--out", str(out), own_process=True)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: cannot reach the MCP server at http://127.0.0.1:{port}/mcp")
    assert len(proc.stderr.strip().splitlines()) == 1
    assert [h["kind"] for h in saved(out)[0]["hops"]] == ["mcp.request", "error", "error"]


def test_a_wrong_path_is_a_404(demo, cli, tmp_path):
    url = demo.url.removesuffix("/mcp") + "/nope"
    proc = cli("tools", "--server", url, "--out", str(tmp_path / "404.json"))
    assert proc.returncode == 1 and proc.stderr.strip() == f"error: no MCP endpoint at {url} (HTTP 404)"


def test_demo_server_makes_a_token_and_prints_it_once(start_server, cli, tmp_path):
    server = start_server()
    said = "\n".join(server.lines)
    token = must_search(r"bearer token \(shown only now\): (\S+)", said).group(1)
    assert said.count(token) == 2 and f"MCP_BEARER_TOKEN={token} python -m flow tools --server {server.url}" in said
    assert server.url.startswith("http://127.0.0.1:")  # bound to this machine unless told otherwise
    assert cli("tools", "--server", server.url, token=token).returncode == 0
    proc = cli("tools", "--server", server.url, token=None)
    assert proc.returncode == 1 and "HTTP 401" in proc.stderr


def test_demo_server_without_auth(start_server, cli, tmp_path):
    server = start_server("--no-auth")
    assert "no auth" in server.lines[0] and "token" not in "\n".join(server.lines[1:])
    out = tmp_path / "open.json"
    proc = cli("tools", "--server", server.url, "--out", str(out), token=None)
    assert proc.returncode == 0, proc.stderr
    assert saved(out)[0]["meta"]["server"]["auth"] == "none"


def test_the_token_can_come_from_another_variable_and_is_scrubbed_if_echoed(demo, monkeypatch):
    """In-process, as the app runs it: the spec names the variable; the token itself is no option."""
    monkeypatch.setenv("DEMO_AUTH", TOKEN)
    options = RunOptions(server_url=demo.url, bearer_token_env="DEMO_AUTH")
    assert options.server_spec() == ServerSpec(transport="http", url=demo.url, bearer_token_env="DEMO_AUTH")
    result = run("北京今天天气怎么样？", options=options, model=ModelConfig(model="mock"))
    assert result.ok, result.error
    assert server_facts(result.trace)["bearer_token_env"] == "DEMO_AUTH"
    assert TOKEN not in result.trace.to_json()
    echo = ServerSpec(url=demo.url, bearer_token=TOKEN)
    assert TOKEN not in repr(echo) and TOKEN not in json.dumps(echo.describe())


def test_server_env_reaches_a_stdio_server_and_secret_values_stay_out(cli, tmp_path):
    needs_env = shlex.join(
        [
            sys.executable,
            "-c",
            "import os, sys; from weather_demo.server import main; "
            "sys.exit('DEMO_FLAG is not set') if os.environ.get('DEMO_FLAG') != 'on' else main([])",
        ]
    )
    out = tmp_path / "env.json"
    secret = "sk-not-a-real-key-123456"
    proc = cli(
        "tools",
        "--server",
        needs_env,
        "--server-env-public",
        "DEMO_FLAG=on",
        "--server-env",
        f"DEMO_API_KEY={secret}",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    trace, data = saved(out)
    assert trace["meta"]["server"]["env"] == ["DEMO_API_KEY", "DEMO_FLAG"]
    assert trace["meta"]["settings"]["server_env"] == [["DEMO_API_KEY", "[redacted]"], ["DEMO_FLAG", "on"]]
    assert secret.encode() not in data
    proc = cli("tools", "--server", needs_env, "--out", str(tmp_path / "no-env.json"))
    assert proc.returncode == 1 and "DEMO_FLAG is not set" in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--server-env", "=x"], "--server-env wants NAME=VALUE or NAME"),
        (["--server-env", "MCP_FLOW_SURELY_UNSET"], "MCP_FLOW_SURELY_UNSET is not set in this environment"),
        (["--server-env-public", "NOVALUE"], "--server-env-public wants NAME=VALUE"),
        (["--server", "http://127.0.0.1:1/mcp", "--server-env", "A=1"], "--server-env is for a server started from"),
        (["--server", "ws://127.0.0.1:1/mcp"], "only http:// and https:// URLs"),
    ],
)
def test_bad_server_options_are_one_line(cli, args, message):
    proc = cli("tools", *args)
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and message in proc.stderr
    assert len(proc.stderr.splitlines()) == 1


def test_a_session_kept_open_over_http_records_each_run(demo, monkeypatch):
    """What the app's "keep running" option does, with an HTTP server: set-up once, each run its own frames."""
    from flow.warm import WarmSession

    monkeypatch.setenv("MCP_BEARER_TOKEN", TOKEN)
    warm = WarmSession(ServerSpec(url=demo.url), era="handshake")
    try:
        options = RunOptions(server_url=demo.url)
        first, second = (
            warm.run("北京今天天气怎么样？", options=options, model=ModelConfig(model="mock")) for _ in "12"
        )
    finally:
        warm.close()
    for result in (first, second):
        assert result.ok, result.error
        assert server_facts(result.trace)["reused_session"] and server_facts(result.trace)["http_session_id"]
        methods = [h.payload["method"] for h in result.trace.hops if h.kind == "mcp.request"]
        assert methods == ["tools/list", "tools/call"]


def test_credentials_in_a_url_stay_out_of_the_trace(demo, tmp_path):
    url = demo.url.replace("http://", "http://someone:pa55word-xyz@")
    result = run(
        "北京今天天气怎么样？",
        options=RunOptions(server_url=url, bearer_token_env="NO_SUCH_VARIABLE"),
        model=ModelConfig(model="mock"),
    )
    assert result.error == "the MCP server requires a bearer token (HTTP 401): set NO_SUCH_VARIABLE"
    text = result.trace.to_json()
    assert "pa55word-xyz" not in text and server_facts(result.trace)["url"] == demo.url
