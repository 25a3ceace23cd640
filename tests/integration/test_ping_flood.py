"""A server that pings in a loop is told as what it does, "the MCP server sent 1,000 ping requests in a row", and
stopped there, in seconds and a couple of thousand hops, not left to fill the trace to its limit and then be called
an answer slow to arrive. A server that pings now and then between its other frames goes on as it was."""

from __future__ import annotations

import shlex
import sys
from typing import Any

from mcp.shared.message import SessionMessage
from mcp_types import jsonrpc_message_adapter

from flow.capture.mcp import MAX_PINGS_IN_A_ROW, FrameTap
from flow.capture.recorder import Recorder
from flow.cli import main
from flow.trace.files import load_trace
from helpers import ROOT

PINGING = shlex.join([sys.executable, str(ROOT / "tests" / "data" / "hostile_server.py"), "--behaviour", "ping-flood"])
LINE = (
    "the MCP server sent 1,000 ping requests in a row during tools/call and nothing else: a server pinging in a loop; "
    "the app stopped answering and ended the session"
)


def _message(frame: dict[str, Any]) -> SessionMessage:
    return SessionMessage(jsonrpc_message_adapter.validate_python(frame))


def test_a_server_pinging_in_a_loop_ends_the_run_in_one_true_line(tmp_path, capsys):
    out = tmp_path / "run.json"
    script = '{"call": "echo", "arguments": {"message": "hi"}}'
    assert main(["run", "--server", PINGING, "--script", script, "-o", str(out)]) == 1
    _, err = capsys.readouterr()
    assert err == f"error: {LINE}\n"
    trace = load_trace(out)
    assert len(trace.hops) < 3 * MAX_PINGS_IN_A_ROW
    assert [h.kind for h in trace.hops[-2:]] == ["error", "error"] and trace.hops[-2].payload["pings"] == 1_000
    assert trace.meta.error_zh is not None and "连续发来 1,000 个 ping 请求" in trace.meta.error_zh


def test_pings_between_other_frames_are_no_flood():
    tap = FrameTap(Recorder())
    progress = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "working"}}
    for round_ in range(3):
        for n in range(MAX_PINGS_IN_A_ROW - 1):
            tap.incoming(_message({"jsonrpc": "2.0", "id": f"p-{round_}-{n}", "method": "ping"}))
        tap.incoming(_message(progress))
    assert tap.fault is None
    tap.incoming(_message({"jsonrpc": "2.0", "id": "last", "method": "ping"}))
    assert tap.fault is None and tap.pings_in_a_row == 1
