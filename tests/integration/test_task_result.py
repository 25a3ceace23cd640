"""A server that answers tools/call with a task (2025-11-25) the app never asked for: the arrow says it is a task,
with its id and status, and the run stops on one line in both languages, never a pydantic dump of what the SDK could
not read. The server is tests/data/hostile_server.py, a real stdio process, behind the real MCP SDK."""

from __future__ import annotations

import shlex
import sys

from flow.cli import main
from flow.trace.files import load_trace
from helpers import ROOT

TASK_SERVER = shlex.join(
    [sys.executable, str(ROOT / "tests" / "data" / "hostile_server.py"), "--behaviour", "task-result"]
)
LINE = (
    "the MCP server answered tools/call with a task (task-7, working) instead of its result: the app asked for no "
    "task and does not poll one (tasks/get)"
)


def test_a_task_in_place_of_a_tools_call_result_is_one_line_and_its_arrow_names_the_task(tmp_path, capsys):
    out = tmp_path / "run.json"
    script = '{"call": "echo", "arguments": {"message": "hi"}}'
    assert main(["run", "--server", TASK_SERVER, "--script", script, "-o", str(out)]) == 1
    _, err = capsys.readouterr()
    assert err == f"error: {LINE}\n"
    trace = load_trace(out)
    answer, stop = trace.hops[-2:]
    assert answer.kind == "mcp.response" and answer.summary == "task task-7 of tools/call (working): still thinking"
    assert stop.kind == "error" and stop.summary == LINE
    assert trace.meta.error_zh is not None and trace.meta.error_zh.startswith(
        "MCP 服务器对 tools/call 的回答是一个任务"
    )


def test_call_says_the_same_line(tmp_path, capsys):
    out = tmp_path / "call.json"
    assert main(["call", "echo", "--args", '{"message": "hi"}', "--server", TASK_SERVER, "-o", str(out)]) == 1
    _, err = capsys.readouterr()
    assert err == f"error: {LINE}\n"
