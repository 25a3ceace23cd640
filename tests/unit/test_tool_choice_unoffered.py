"""A tool_choice that names a function the request would not offer (a server that lists no tools) is refused before
it is sent, in one line and a hop, instead of going out beside an empty tools list for the provider to refuse."""

from __future__ import annotations

import anyio
import httpx2
from mcp.server import MCPServer

from flow import ModelConfig, RunOptions, RunResult
from flow.capture.recorder import Recorder
from flow.runs import run_flow
from flow.servers.connect import open_session
from flow.servers.spec import ServerSpec

QUESTION = "北京今天天气怎么样？"


def _run(server: MCPServer, choice: str) -> tuple[RunResult, list[object]]:
    sent: list[object] = []

    async def provider(request: httpx2.Request) -> httpx2.Response:  # counts what reached it
        sent.append(await request.aread())
        return httpx2.Response(400, json={"error": {"message": "tool_choice names a tool not in tools"}})

    async def go() -> RunResult:
        rec = Recorder()
        async with open_session(ServerSpec(transport="memory", server=server), era="handshake", recorder=rec) as s:
            options = RunOptions(transport="memory", tool_choice=choice)
            model = ModelConfig(backend="openai", model="gpt", base_url="http://provider.test/v1", api_key="k")
            transport = httpx2.MockTransport(provider)
            return await run_flow(
                QUESTION, options=options, model=model, recorder=rec, session=s, model_transport=transport
            )

    return anyio.run(go), sent


def test_a_named_choice_with_no_tools_listed_is_refused_before_sending() -> None:
    result, sent = _run(MCPServer("lists-nothing"), "get_weather")
    assert not sent
    assert result.error == (
        "stopped before asking the model: --tool-choice names get_weather, but the request would offer no tools at "
        "all (the server listed none); providers refuse such a request (HTTP 400), so it was not sent"
    )
    assert result.trace.hops[-1].kind == "error" and "get_weather" in result.trace.hops[-1].summary
    assert "服务器没有列出任何工具" in str(result.trace.meta.error_zh)


def test_a_named_choice_of_a_tool_the_server_does_not_list_is_refused() -> None:
    server = MCPServer("lists-one")

    @server.tool()
    async def get_forecast(city: str) -> str:
        """The forecast."""
        return "晴"

    result, sent = _run(server, "get_weather")
    assert not sent and "names get_weather, but the request would offer only get_forecast" in str(result.error)
