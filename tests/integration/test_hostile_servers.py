"""Servers are untrusted: one that floods, talks garbage, goes quiet or dies gives a clear hop and a clean end.

Every case runs tests/data/hostile_server.py over real stdio through the real SDK, and then looks
for anything of it left in the process table.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
import uuid
from pathlib import Path

import anyio
import pytest

from flow import RunOptions, run
from flow.backends.scripted import load_script
from flow.engine.loop import call_server_tool, inspect_server
from flow.engine.model import ModelConfig
from flow.servers.connect import STDERR_TAIL_BYTES
from flow.servers.spec import ServerSpec
from helpers import TOKEN, flow_cli, server_facts, start_demo_server, stop_demo_server

HOSTILE = Path(__file__).parents[1] / "data" / "hostile_server.py"


@pytest.fixture
def hostile():
    """Builds the command line of a hostile server; afterwards, fails if any process of it is still alive."""
    tags: list[str] = []

    def command(behaviour: str, *, on: str = "tools/call") -> str:
        tags.append(f"hostile-{uuid.uuid4().hex}")
        return shlex.join([sys.executable, str(HOSTILE), "--behaviour", behaviour, "--on", on, "--tag", tags[-1]])

    yield command
    left = [pid for tag in tags for pid in _alive(tag)]
    for pid in left:  # so that a failure here leaves nothing behind either
        os.kill(pid, signal.SIGKILL)
    assert left == [], "processes of the hostile server were left running"


def _alive(tag: str) -> list[int]:
    """Live (not zombie) processes whose command line carries the tag."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry.name}/cmdline").read_bytes().split(b"\0")
            state = Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tag.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def _engine_tools(server: str, timeout_s: float = 10.0):
    result, _ = anyio.run(lambda: inspect_server(ServerSpec(command=tuple(shlex.split(server))), timeout_s=timeout_s))
    return result


def _engine_call(server: str, timeout_s: float = 10.0):
    result, _ = anyio.run(
        lambda: call_server_tool(
            ServerSpec(command=tuple(shlex.split(server))), "echo", {"message": "hi"}, timeout_s=timeout_s
        )
    )
    return result


def _one_line(proc) -> str:
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


def _server_error(trace: dict) -> dict:
    """The hop where the server's failure happened (there is one, and it is the server's)."""
    errors = [h for h in trace["hops"] if h["kind"] == "error" and h["source"] == "mcp_server"]
    assert len(errors) == 1, [h["summary"] for h in trace["hops"]]
    return errors[0]


def test_a_line_that_is_not_json_rpc_ends_the_call_at_once(tmp_path, hostile):
    out = tmp_path / "call.json"
    proc = flow_cli(
        "call", "echo", "--args", '{"message": "hi"}', "--server", hostile("invalid-json"), "--out", str(out)
    )
    line = _one_line(proc)
    assert line.startswith(
        "error: the MCP server sent a line that is not JSON-RPC during tools/call: "
        "\"{'result': not json at all\" (Invalid JSON"
    )
    trace = json.loads(out.read_text(encoding="utf-8"))
    err = _server_error(trace)
    assert (err["step"], err["target"]) == (7, "mcp_client")  # where it happened: the answer to tools/call
    assert err["payload"]["line_start"] == "{'result': not json at all"
    assert trace["hops"][-1]["kind"] == "error" and trace["meta"]["outcome"] == "error"


def test_a_flood_of_garbage_on_stdout_is_cut_off_and_not_copied_into_the_trace(tmp_path, hostile):
    out = tmp_path / "tools.json"
    proc = flow_cli("tools", "--server", hostile("flood-stdout", on="tools/list"), "--timeout", "5", "--out", str(out))
    line = _one_line(proc)
    assert line.startswith(
        "error: the MCP server sent a line that is not JSON-RPC during tools/list: "
        "'this is not JSON-RPC this is not JSON-RPC"
    )
    assert len(line) < 300
    trace = json.loads(out.read_text(encoding="utf-8"))
    err = _server_error(trace)
    assert err["step"] == 2 and err["payload"]["line_chars"] == 105_000
    assert len(err["payload"]["line_start"]) == 201  # 200 characters and an ellipsis
    assert out.stat().st_size < 20_000  # one capped excerpt, not the flood


def test_a_line_with_no_end_times_out_and_the_server_is_stopped(hostile):
    # 64 MB with no newline: the SDK's reader is still taking it in at the timeout, then the server is killed. It
    # was answering, not silent: bytes of its answer were waiting in the pipe.
    result = _engine_tools(hostile("long-line", on="tools/list"), timeout_s=1)
    assert result.error is not None and result.error.startswith(
        "the MCP server began answering tools/list, but its answer was still arriving after 1 s (a large answer is "
        "slow to arrive"
    )
    err = _server_error(json.loads(result.trace.model_dump_json()))
    assert err["payload"]["answering"] is True and err["payload"]["unread_bytes"] > 0


def test_an_answer_still_arriving_at_the_timeout_of_a_run_is_told_apart_from_silence(hostile):
    script = load_script('[{"call": "echo", "arguments": {"message": "hi"}}]')

    def run_against(behaviour: str):
        server = ServerSpec(command=tuple(shlex.split(hostile(behaviour))))
        options = RunOptions.build(server=server, mcp_timeout_s=1)
        return run("echo hi", options=options, model=ModelConfig.scripted(script))

    arriving = run_against("long-line")
    assert arriving.error is not None and arriving.trace.meta.error_zh is not None
    assert arriving.error.startswith("the MCP server began answering tools/call echo, but its answer was still")
    assert "开始回答 tools/call echo" in arriving.trace.meta.error_zh
    err = _server_error(json.loads(arriving.trace.model_dump_json()))
    assert err["step"] == 7 and err["payload"]["answering"] is True and err["payload"]["error"] == "timeout"
    silent = run_against("never-answer")
    assert silent.error == "the MCP server did not answer tools/call echo within 1 s"
    assert "answering" not in _server_error(json.loads(silent.trace.model_dump_json()))["payload"]


@pytest.mark.parametrize("on", ["initialize", "tools/list"])
def test_a_server_that_never_answers_times_out_naming_the_request(hostile, on):
    result = _engine_tools(hostile("never-answer", on=on), timeout_s=1)
    assert result.error == f"the MCP server did not answer {on} within 1 s"
    assert result.trace.meta.error_zh == f"MCP 服务器在 1 秒内没有回答 {on}"
    trace = json.loads(result.trace.model_dump_json())
    err = _server_error(trace)
    assert err["step"] == 2 and err["payload"]["method"] == on
    cancelled = [h for h in trace["hops"] if h["payload"].get("method") == "notifications/cancelled"]
    if on == "initialize":
        assert cancelled == []  # the spec forbids cancelling initialize
    else:
        assert len(cancelled) == 1  # the client said it gave up, before the hop that says so
        assert trace["hops"].index(cancelled[0]) < trace["hops"].index(err)


def test_a_server_that_exits_mid_call_ends_with_its_last_words(tmp_path, hostile):
    out = tmp_path / "call.json"
    proc = flow_cli("call", "echo", "--server", hostile("exit-mid-call"), "--out", str(out))
    assert _one_line(proc) == (
        "error: the MCP server closed the connection during tools/call (its process ended): "
        "hostile: giving up in the middle of a request"
    )
    err = _server_error(json.loads(out.read_text(encoding="utf-8")))
    assert err["step"] == 7 and err["payload"]["error"] == "connection closed"


def test_a_run_whose_server_exits_mid_call_records_it_at_step_seven(tmp_path, hostile):
    out = tmp_path / "run.json"
    proc = flow_cli(
        "run",
        "--server",
        hostile("exit-mid-call"),
        "--script",
        '{"call": "echo", "arguments": {"message": "hi"}}',
        "--out",
        str(out),
    )
    assert _one_line(proc) == "error: the MCP server closed the connection during tools/call echo (its process ended)"
    trace = json.loads(out.read_text(encoding="utf-8"))
    assert _server_error(trace)["step"] == 7
    last = trace["hops"][-1]
    assert last["kind"] == "error" and last["step"] == 10
    assert last["payload"]["server_stderr"].endswith("hostile: giving up in the middle of a request")


def test_a_run_against_a_server_that_talks_garbage_ends_cleanly(hostile):
    result = run(
        "hi",
        options=RunOptions(server_command=tuple(shlex.split(hostile("invalid-json"))), mcp_timeout_s=5),
        model=ModelConfig.scripted(load_script('{"call": "echo", "arguments": {"message": "hi"}}')),
    )
    assert result.error is not None and result.error.startswith(
        "the MCP server sent a line that is not JSON-RPC during tools/call"
    )
    assert result.trace.meta.error_zh is not None and result.trace.meta.error_zh.startswith(
        "MCP 服务器发来一行不是 JSON-RPC 的内容（tools/call 期间）"
    )
    assert [h.kind for h in result.trace.hops][-2:] == ["error", "error"]  # the server's hop, then the user's line
    assert result.trace.hops[-2].source == "mcp_server" and result.trace.hops[-2].step == 7


def test_a_server_that_exits_at_start_says_why(hostile):
    proc = flow_cli("tools", "--server", hostile("exit-at-start"))
    assert _one_line(proc) == "error: the MCP server did not start: hostile: refusing to start (exit-at-start)"


def test_a_command_that_does_not_exist_says_so():
    proc = flow_cli("tools", "--server", "mcp-flow-no-such-server --stdio")
    assert _one_line(proc) == (
        "error: the MCP server did not start: no such command: mcp-flow-no-such-server "
        "(not a file, and not found on PATH)"
    )


def test_a_stderr_flood_is_kept_on_disk_and_only_its_tail_read(hostile):
    result = _engine_tools(hostile("flood-stderr,never-answer", on="tools/list"), timeout_s=1)
    assert result.error == (
        "the MCP server did not answer tools/list within 1 s "
        "(it wrote 10.0 MB to stderr; the trace keeps the last 2 KB)"
    )
    err = _server_error(json.loads(result.trace.model_dump_json()))
    tail = err["payload"]["server_stderr"]
    assert len(tail.encode()) <= STDERR_TAIL_BYTES and tail.endswith("hostile: last words of the flood")


def test_a_noisy_server_that_works_is_fine_and_the_noise_is_noted(tmp_path, hostile):
    out = tmp_path / "tools.json"
    proc = flow_cli("tools", "--server", hostile("flood-stderr"), "--out", str(out))
    assert proc.returncode == 0 and "tool     echo(message)" in proc.stdout
    assert proc.stderr == "note: the MCP server wrote 10.0 MB to stderr\n"
    assert json.loads(out.read_text(encoding="utf-8"))["meta"]["server"]["stderr_bytes"] > 10 << 20


@pytest.mark.parametrize("behaviour", ["spawn-child", "spawn-child,never-answer"])
def test_a_child_the_server_left_running_is_reaped(hostile, behaviour):
    # The SDK kills the process group only when the server itself will not exit; this child outlives a
    # server that exits politely, and is found by the token in its environment. The fixture checks.
    result = _engine_call(hostile(behaviour), timeout_s=2)
    assert result.ok == (behaviour == "spawn-child"), result.error


# Which servers may be started at all: only those configured by whoever started the program.


def test_typed_commands_are_off_unless_the_app_was_started_allowing_them():
    from flow.servers.config import allow_typed_commands

    assert not allow_typed_commands(["app.py"], {})
    assert not allow_typed_commands(["app.py"], {"MCP_FLOW_ALLOW_COMMANDS": "yes"})  # only an explicit 1
    assert not allow_typed_commands(["--allow-server-commands"], {})  # the program's name is not a flag
    assert allow_typed_commands(["app.py", "--allow-server-commands"], {})
    assert allow_typed_commands(["app.py"], {"MCP_FLOW_ALLOW_COMMANDS": "1"})


def test_a_servers_file_in_claude_desktops_shape_adds_servers_with_their_environment(tmp_path, monkeypatch):
    from flow.servers.config import EVERYTHING_SERVER, configured_servers

    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-servers")

    config = tmp_path / "servers.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "everything-with-env": {
                        "command": str(EVERYTHING_SERVER),
                        "args": ["stdio"],
                        "env": {"MCP_FLOW_GREETING": "你好"},
                        "disabled": False,
                    }
                }
            }
        ),
        encoding="utf-8",
    )  # keys this program does not use are ignored
    servers = configured_servers({"MCP_FLOW_SERVERS": str(config)})
    assert {"weather-demo", "everything-with-env"} <= set(servers)
    spec = servers["everything-with-env"].spec
    assert spec.describe()["env"] == ["MCP_FLOW_GREETING"]  # names only in a trace
    result, called = anyio.run(lambda: call_server_tool(spec, "get-env", {}))
    assert result.ok and called is not None, result.error
    env = json.loads(called["content"][0]["text"])

    assert env["MCP_FLOW_GREETING"] == "你好"
    assert "OPENAI_API_KEY" not in env  # the SDK passes a short list of variables, not this program's whole environment


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{not json", "not JSON"),
        ('{"servers": {}}', 'expected {"mcpServers": {"name": {"command": ..., "args": [...]}}}'),
        ('{"mcpServers": {"a": {"args": []}}}', "mcpServers.a: needs a `command` (a non-empty string), or a `url`"),
        ('{"mcpServers": {"a": {"url": "ws://x"}}}', "mcpServers.a: `url` must be an http:// or https:// URL"),
        ('{"mcpServers": {"a": {"command": "x", "args": "y"}}}', "mcpServers.a: `args` must be a list of strings"),
        ('{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}', "mcpServers.a: `env` must map names to strings"),
    ],
)
def test_a_bad_servers_file_is_one_line_naming_the_entry(tmp_path, text, words):
    from flow.servers.config import ServerConfigError, load_servers_file

    config = tmp_path / "servers.json"
    config.write_text(text, encoding="utf-8")
    with pytest.raises(ServerConfigError) as info:
        load_servers_file(config)
    assert str(info.value).startswith(f"{config}: ") and words in str(info.value) and "\n" not in str(info.value)


def test_a_run_passes_the_configured_environment_and_records_no_secret_value():
    options = RunOptions(
        server_command=(sys.executable, "-m", "weather_demo"),
        server_env=(
            ("PYTHONPATH", str(Path(__file__).resolve().parents[2])),
            ("WEATHER_API_TOKEN", "tok-1234567890"),
        ),
    )
    result = run("北京今天天气怎么样？", options=options, model=ModelConfig())
    assert result.ok, result.error  # the server started: PYTHONPATH reached it
    assert result.trace.meta.settings["server_env"] == [
        ["PYTHONPATH", "[redacted]"],
        ["WEATHER_API_TOKEN", "[redacted]"],
    ]
    assert server_facts(result.trace)["env"] == ["PYTHONPATH", "WEATHER_API_TOKEN"]
    assert "tok-1234567890" not in result.trace.model_dump_json()
    assert RunOptions.from_settings(result.trace.meta.settings).server_env == ()  # a trace never chooses a server


def test_a_servers_file_may_name_a_streamable_http_server_whose_token_stays_in_the_environment(tmp_path, monkeypatch):
    from flow.servers.config import configured_servers

    server = start_demo_server("--token", TOKEN)
    try:
        config = tmp_path / "servers.json"
        config.write_text(
            json.dumps({"mcpServers": {"class-server": {"url": server.url, "bearer_token_env": "CLASS_MCP_TOKEN"}}}),
            encoding="utf-8",
        )
        monkeypatch.setenv("CLASS_MCP_TOKEN", TOKEN)
        spec = configured_servers({"MCP_FLOW_SERVERS": str(config)})["class-server"].spec
        assert spec.is_http and TOKEN not in config.read_text(encoding="utf-8")
        result, listing = anyio.run(lambda: inspect_server(spec))
        assert result.ok, result.error
        assert "get_weather" in {t["name"] for t in listing["tools"]}
        assert server_facts(result.trace)["auth"] == "bearer" and TOKEN not in result.trace.model_dump_json()
    finally:
        stop_demo_server(server)
