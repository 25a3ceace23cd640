"""Tasks (run a tool as a task, poll tasks/get): what the installed MCP SDK has of them. It has the 2025-11-25 task
types but dispatches none of their methods, and no 2026-07-28 tasks extension, so the demo has no task tool; these
tests hold that account true, and fail the day the SDK gains them (then the demo and the docs should use them)."""

from __future__ import annotations

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types.methods import CLIENT_REQUESTS, SERVER_NOTIFICATIONS

from flow.capture.recorder import Recorder
from flow.servers.connect import open_session
from flow.servers.spec import ServerSpec

TASK_METHODS = {"tasks/get", "tasks/result", "tasks/list", "tasks/cancel"}


def test_the_sdk_has_the_task_types_but_no_task_method_in_either_era():
    assert types.GetTaskRequest(params=types.GetTaskRequestParams(task_id="t")).method == "tasks/get"
    assert not TASK_METHODS & {method for method, _ in CLIENT_REQUESTS}
    assert "notifications/tasks/status" not in {method for method, _ in SERVER_NOTIFICATIONS}


def test_the_demo_server_answers_tasks_get_with_method_not_found():
    async def go() -> int:
        async with open_session(ServerSpec(transport="memory", asks=True), era="handshake", recorder=Recorder()) as s:
            request = types.GetTaskRequest(params=types.GetTaskRequestParams(task_id="t"))
            try:
                await s.client.session.send_request(request, types.GetTaskResult)
            except MCPError as exc:
                return exc.code
        return 0

    assert anyio.run(go) == types.METHOD_NOT_FOUND
