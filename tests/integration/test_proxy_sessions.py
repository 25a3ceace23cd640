"""Several MCP sessions through one `proxy-http` (an inspector opens three) are told apart in the trace: each frame's
line carries its session's number (never the Mcp-Session-Id, a credential of the session), the import pairs each
session's requests with its own answers (every session's initialize is id 0), and each hop says its session, on its
arrow and in its line."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from flow.capture.recorder import Recorder
from flow.interop.importers import import_file
from flow.proxy.http import mcp_http_proxy
from flow.servers.connect import open_session
from flow.servers.spec import ServerSpec
from flow.views.labels import label_lines
from helpers import TOKEN, DemoServer, start_demo_server, stop_demo_server


@pytest.fixture(scope="module")
def demo() -> Iterator[DemoServer]:
    server = start_demo_server(env={"MCP_BEARER_TOKEN": TOKEN})
    yield server
    stop_demo_server(server)


def _three_sessions(url: str) -> list[str]:
    """Three sessions open at once, as an inspector holds them: each set up before any lists, then each lists."""

    async def go() -> list[str]:
        spec = ServerSpec(transport="http", url=url, bearer_token=TOKEN)
        async with contextlib.AsyncExitStack() as stack:
            sessions = [
                await stack.enter_async_context(open_session(spec, era="handshake", recorder=Recorder()))
                for _ in range(3)
            ]
            listed = [await s.client.list_tools() for s in sessions]
            return [t.name for tools in listed for t in tools.tools]

    return anyio.run(go)


def test_three_sessions_through_one_proxy_are_told_apart(tmp_path: Any, demo: DemoServer) -> None:
    log = tmp_path / "inspector.jsonl"
    served = mcp_http_proxy(demo.url, str(log)).start()
    try:
        names = _three_sessions(served.url)
    finally:
        served.stop()
    assert names.count("get_weather") == 3
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    framed = [line for line in lines if "message" in line]
    assert {line.get("session") for line in framed} == {1, 2, 3}, framed
    assert b"mcp-session-id" not in log.read_bytes().lower()

    trace = import_file(log)
    frames = [h for h in trace.hops if h.kind.startswith("mcp.")]
    assert {h.session for h in frames} == {1, 2, 3}
    for n in (1, 2, 3):
        mine = [h for h in frames if h.session == n]
        methods = [h.payload.get("method") for h in mine if h.kind == "mcp.request"]
        assert methods[:2] == ["initialize", "tools/list"], methods
        answers = [h for h in mine if h.kind == "mcp.response"]
        assert len(answers) == 2 and all(h.step is not None for h in answers)  # each paired with its own request
        assert all(h.summary.startswith(f"session {n} · ") for h in mine), [h.summary for h in mine]
        assert f"(MCP session {n})" in label_lines(mine[0])
        assert f"（MCP 会话 {n}）" in label_lines(mine[0], lang="zh")
    unmapped = trace.meta.imported.unmapped if trace.meta.imported else []
    assert not any("got no response" in note or "whose request is not in the log" in note for note in unmapped)
    assert any("3 MCP sessions crossed the proxy" in note for note in unmapped)
