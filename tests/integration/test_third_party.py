"""MCP servers this project did not write, from PyPI and npm, started over stdio through the command line.

mcp-server-time (Python, the `mcp` SDK) speaks both protocol eras; server-everything (TypeScript
SDK 1.x) speaks only the handshake era, so asking it for the modern one shows the fallback.
Both are installed by ./dev.sh setup; nothing here reaches the network.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

import anyio
import pytest

from flow.engine.loop import call_server_tool, inspect_server
from flow.servers.config import EVERYTHING_SERVER, TIME_SERVER, built_in_servers
from flow.servers.spec import Era, ServerSpec
from helpers import flow_cli

TIME = shlex.join([str(TIME_SERVER), "--local-timezone", "UTC"])
EVERYTHING = shlex.join([str(EVERYTHING_SERVER), "stdio"])


def _trace(path):
    return json.loads(path.read_text(encoding="utf-8"))


def _engine_call(
    server: str, tool: str, arguments: dict[str, Any], era: Era = "handshake"
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The engine under `python -m flow call`, in this process; returns the trace as saved and the result (None
    when the call got none)."""
    result, called = anyio.run(
        lambda: call_server_tool(ServerSpec(command=tuple(shlex.split(server))), tool, arguments, era=era)
    )
    return json.loads(result.trace.model_dump_json()), called


def _requests(trace):
    return [h["payload"]["method"] for h in trace["hops"] if h["kind"] == "mcp.request"]


def test_the_third_party_servers_are_installed_and_offered():
    # ./dev.sh setup installs both; if this fails, run it (a missing server must not look like a pass).
    assert TIME_SERVER.exists(), f"{TIME_SERVER} is missing: run ./dev.sh setup"
    assert EVERYTHING_SERVER.exists(), f"{EVERYTHING_SERVER} is missing: run ./dev.sh setup (needs node and npm)"
    assert {"weather-demo", "mcp-server-time", "server-everything"} <= set(built_in_servers())


@pytest.mark.parametrize(
    ("era", "version", "setup"),
    [("handshake", "2025-11-25", "initialize"), ("modern", "2026-07-28", "server/discover")],
)
def test_mcp_server_time_lists_its_tools_in_both_eras(tmp_path, era, version, setup):
    out = tmp_path / "tools.json"
    proc = flow_cli("tools", "--server", TIME, "--era", era, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"mcp-time · protocol {version} ({era} era)")
    assert "tool     get_current_time(timezone)" in proc.stdout
    assert "tool     convert_time(source_timezone, time, target_timezone)" in proc.stdout
    trace = _trace(out)
    assert trace["meta"]["server"]["protocol_version"] == version and trace["meta"]["server"]["era"] == era
    assert _requests(trace)[:2] == [setup, "tools/list"]


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_mcp_server_time_answers_a_direct_call_in_both_eras(tmp_path, era):
    if era == "handshake":  # once through the command line, once through the engine under it
        out = tmp_path / "call.json"
        proc = flow_cli(
            "call",
            "get_current_time",
            "--args",
            '{"timezone": "Asia/Shanghai"}',
            "--server",
            TIME,
            "--era",
            era,
            "--out",
            str(out),
        )
        assert proc.returncode == 0, proc.stderr
        answer = json.loads(proc.stdout.split("\nhops ")[0])
        trace = _trace(out)
    else:
        trace, called = _engine_call(TIME, "get_current_time", {"timezone": "Asia/Shanghai"}, era=era)
        assert called is not None
        answer = json.loads(called["content"][0]["text"])
    assert answer["timezone"] == "Asia/Shanghai" and answer["datetime"].endswith("+08:00")
    assert trace["meta"]["server"]["era"] == era and trace["meta"]["outcome"] == "ok"
    call = next(h for h in trace["hops"] if h["kind"] == "mcp.request" and h["payload"]["method"] == "tools/call")
    reply = next(h for h in trace["hops"] if h["kind"] == "mcp.response" and h["jsonrpc_id"] == call["jsonrpc_id"])
    assert (call["step"], reply["step"]) == (6, 7)
    assert call["payload"]["params"]["arguments"] == {"timezone": "Asia/Shanghai"}
    assert json.loads(reply["payload"]["result"]["content"][0]["text"]) == answer


def test_mcp_server_time_reports_a_bad_time_zone_as_a_tool_error():
    trace, called = _engine_call(TIME, "get_current_time", {"timezone": "Mars/Olympus"})
    assert called is not None and called["isError"] is True and "Mars/Olympus" in called["content"][0]["text"]
    assert trace["meta"]["outcome"] == "ok"  # the server answered; the tool said no
    # A CallToolResult with isError is an answer on the wire like any other: the tool failed, the protocol did not.
    result = next(h for h in trace["hops"] if h["kind"] == "tool.result")
    assert result["direction"] == "response" and result["summary"].startswith("isError: ")


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_server_everything_lists_its_tools_and_an_old_server_falls_back_from_modern(tmp_path, era):
    if era == "modern":
        out = tmp_path / "tools.json"
        proc = flow_cli("tools", "--server", EVERYTHING, "--era", era, "--out", str(out))
        assert proc.returncode == 0, proc.stderr
        # It speaks only the handshake era: asked for modern, the client probes, is refused, and shakes hands.
        assert proc.stdout.startswith("mcp-servers/everything · protocol 2025-11-25 (handshake era)")
        assert "tool     echo(message)" in proc.stdout and "tool     trigger-long-running-operation(" in proc.stdout
        trace = _trace(out)
    else:
        result, listing = anyio.run(lambda: inspect_server(ServerSpec(command=tuple(shlex.split(EVERYTHING))), era=era))
        assert result.ok, result.error
        assert {"echo", "get-sum", "trigger-long-running-operation"} <= {t["name"] for t in listing["tools"]}
        trace = json.loads(result.trace.model_dump_json())
    assert trace["meta"]["settings"]["era"] == era  # what was asked for, beside what was negotiated
    assert trace["meta"]["server"]["era"] == "handshake"
    frames = [
        (h["kind"], h["payload"].get("method") or h["payload"].get("error", {}).get("code"))
        for h in trace["hops"]
        if h["kind"].startswith("mcp.")
    ][:4]
    if era == "modern":
        assert frames[:3] == [("mcp.request", "server/discover"), ("mcp.error", -32601), ("mcp.request", "initialize")]
    else:
        assert frames[0] == ("mcp.request", "initialize")


def test_server_everything_echoes():
    trace, called = _engine_call(EVERYTHING, "echo", {"message": "你好，MCP"})
    assert called is not None and called["content"] == [{"type": "text", "text": "Echo: 你好，MCP"}]
    result = next(h for h in trace["hops"] if h["kind"] == "tool.result")
    assert result["payload"]["tool_message_content"] == "Echo: 你好，MCP"


def test_server_everything_progress_notifications_are_recorded_frames():
    trace, called = _engine_call(
        EVERYTHING, "trigger-long-running-operation", {"duration": 0.3, "steps": 3}, era="modern"
    )
    assert called is not None and "Long running operation completed" in called["content"][0]["text"]
    hops = trace["hops"]
    call = next(h for h in hops if h["kind"] == "mcp.request" and h["payload"]["method"] == "tools/call")
    token = call["payload"]["params"]["_meta"]["progressToken"]  # asked for, or no progress would be sent
    progress = [
        h for h in hops if h["kind"] == "mcp.notification" and h["payload"]["method"] == "notifications/progress"
    ]
    assert [(h["source"], h["target"]) for h in progress] == [("mcp_server", "mcp_client")] * 3
    assert [h["payload"]["params"] for h in progress] == [
        {"progress": i, "total": 3, "progressToken": token} for i in (1, 2, 3)
    ]
    reply = next(h for h in hops if h["kind"] == "mcp.response" and h["jsonrpc_id"] == call["jsonrpc_id"])
    assert hops.index(progress[-1]) < hops.index(reply)  # in the order the wire carried them


def test_list_changed_notifications_from_server_everything_are_recorded_in_the_call_step():
    # Its gzip tool registers a new resource for the session, and says the lists changed.
    trace, _ = _engine_call(
        EVERYTHING,
        "gzip-file-as-resource",
        {"name": "a.txt", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resource"},
    )
    changed = [h for h in trace["hops"] if h["kind"] == "mcp.notification" and h["source"] == "mcp_server"]
    assert {h["payload"]["method"] for h in changed} >= {"notifications/resources/list_changed"}
    # Each in the step it arrived in: the tool's in the call; the one server-everything sends as it lists its tools
    # in the listing `call` makes first.
    steps = {h["payload"]["method"]: h["step"] for h in changed}
    assert steps["notifications/resources/list_changed"] == 6
    assert steps.get("notifications/tools/list_changed", 2) == 2
    assert all(h["summary"] == h["payload"]["method"] for h in changed)


def test_a_scripted_run_against_server_everything_works_from_the_cli(tmp_path):
    out = tmp_path / "run.json"
    script = '{"call": "get-sum", "arguments": {"a": 19, "b": 23}}'
    proc = flow_cli("run", "--server", EVERYTHING, "--script", script, "-q", "19 加 23 等于几？", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "42" in proc.stdout
    trace = _trace(out)
    assert trace["meta"]["server"]["name"] == "mcp-servers/everything"
    steps = [h["step"] for h in trace["hops"] if h["step"] is not None]
    assert {1, 2, 3, 4, 5, 6, 7, 8, 9, 10} <= set(steps)
    result = next(h for h in trace["hops"] if h["kind"] == "tool.result")
    assert "42" in result["payload"]["tool_message_content"]


def test_a_server_that_prints_its_environment_never_hands_the_app_s_process_token_to_the_trace():
    """The app marks a stdio server's processes with a token in their environment (to reap leftovers);
    server-everything's get-env prints that environment, and the trace holds the variable, not its value."""
    trace, _ = _engine_call(EVERYTHING, "get-env", {})
    text = json.dumps(trace, ensure_ascii=False)
    assert "MCP_FLOW_SERVER_TOKEN" in text  # the tool really printed the environment
    value = re.search(r"MCP_FLOW_SERVER_TOKEN[\\\"\s:=]+([^\\\"\s,}]+)", text)
    assert value is not None and value[1] == "[redacted]", value
    assert not re.search(r"\b[0-9a-f]{32}\b", text)  # no uuid4().hex anywhere
