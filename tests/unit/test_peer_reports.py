"""Gateways that report the MCP work they did in their own shapes, told as they are: a non-streamed reply with a
gateway's own item types (LiteLLM's `mcp_tools_fetched` and `tool_execution_results`, a listing and results as JSON
text) is said to be a report this tool does not read, never "tool calls 0"; a stream whose listing and calls come only
in its events (the completed response leaves them out) is read from those events; an Anthropic `mcp_tool_listing`
block is the listing it is.

The peers answer through the real SDKs over an httpx2 transport the app's model client is given."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx2
import pytest
from anthropic.types.beta import BetaMessage, BetaTextBlock, BetaUsage
from anthropic.types.beta.beta_mcp_tool import BetaMCPTool
from anthropic.types.beta.beta_mcp_tool_listing_block import BetaMCPToolListingBlock
from openai.types.responses import Response
from openai.types.responses.response_output_item import McpCall, McpListTools, McpListToolsTool
from openai.types.responses.response_output_message import ResponseOutputMessage
from openai.types.responses.response_output_text import ResponseOutputText

from flow import ModelConfig, RunOptions, RunResult
from flow.backends.mock import EventStream
from flow.runs import run_flow
from flow.views.outcome import run_outcome
from flow.views.table import summary_line
from flow.wire.hosted import exchanges, unread_reports

QUESTION = "北京今天天气怎么样？"
ANSWER = "北京今天晴。"
HOSTED = {"mode": "hosted", "server_url": "https://mcp.example.com/mcp"}


def _run(handler: Any, **options: Any) -> RunResult:
    async def answer(request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        return handler(json.loads(request.content))

    model = ModelConfig(backend="openai", model="gpt", base_url="http://gateway.test/v1", api_key="k")

    async def main() -> RunResult:
        return await run_flow(
            QUESTION,
            options=RunOptions(transport="memory", **options),
            model=model,
            model_transport=httpx2.MockTransport(answer),
        )

    return anyio.run(main)


def _said() -> dict[str, Any]:
    part = ResponseOutputText(type="output_text", text=ANSWER, annotations=[])
    message = ResponseOutputMessage(id="msg_1", type="message", role="assistant", status="completed", content=[part])
    return message.model_dump(mode="json")


def _response(output: list[dict[str, Any]], *, own: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    """An openai `Response` of `output`, and after it items of types the SDK does not know (`own`)."""
    response = {"id": "resp_1", "object": "response", "created_at": 1.0, "model": "gpt", "status": "completed"}
    response |= {"output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
    typed = Response.model_validate(response).model_dump(mode="json")
    return {**typed, "output": [*typed["output"], *own]}


def _own_items() -> list[dict[str, Any]]:
    """What a LiteLLM proxy appends to a non-streamed response after running the MCP tools itself: two items of its
    own types, each an output_text of JSON (the tools fetched; each call's id and result)."""
    tools = [{"name": "get_weather", "description": "weather", "inputSchema": {"type": "object"}}]
    results = [{"tool_call_id": "call_1", "result": "晴"}]
    return [
        {
            "type": kind,
            "id": f"{kind}_1",
            "status": "completed",
            "role": "system",
            "content": [{"type": "output_text", "text": json.dumps(said), "annotations": []}],
        }
        for kind, said in (("mcp_tools_fetched", tools), ("tool_execution_results", results))
    ]


@pytest.mark.parametrize("mode", [HOSTED, {"mode": "mcp"}])
def test_a_gateways_own_report_is_said_unread_never_tool_calls_0(mode: dict[str, Any]) -> None:
    trace = _run(
        lambda body: httpx2.Response(200, json=_response([_said()], own=tuple(_own_items()))), api="responses", **mode
    )
    line = summary_line(trace.trace)
    assert "tool calls 0" not in line and "in a form this tool does not read" in line, line
    assert "mcp_tools_fetched, tool_execution_results" in line, line
    said = run_outcome(trace.trace).text
    assert "without calling a tool" not in said["en"], said["en"]
    assert "a form this tool does not read (mcp_tools_fetched, tool_execution_results)" in said["en"], said["en"]
    assert "读不懂" in said["zh"]


def test_the_sdks_own_tool_types_are_not_unread_reports() -> None:
    """Every item and block type the installed SDKs know is read or a provider's own tool, never an unread report."""
    import typing

    import openai.types.responses.response_output_item as items
    from anthropic.types.beta import BetaContentBlock

    def kinds(union: Any) -> list[str]:
        if typing.get_origin(union) is typing.Annotated:
            return kinds(typing.get_args(union)[0])
        out: list[str] = []
        for member in typing.get_args(union):
            if typing.get_origin(member) in (typing.Annotated, typing.Union):
                out += kinds(member)
            elif hasattr(member, "model_fields") and "type" in member.model_fields:
                out += typing.get_args(member.model_fields["type"].annotation)
        return out

    every = kinds(items.ResponseOutputItem) + kinds(BetaContentBlock)
    assert "mcp_tool_listing" in every and "mcp_call" in every
    assert unread_reports({"output": [{"type": k} for k in every]}) == ()
    assert unread_reports({"content": [{"type": k} for k in every]}) == ()


def _listing_and_call() -> list[dict[str, Any]]:
    listed = McpListTools(
        id="mcpl_1",
        type="mcp_list_tools",
        server_label="mcp",
        tools=[McpListToolsTool(name="get_weather", input_schema={"type": "object"})],
    )
    called = McpCall(
        id="mcp_1", type="mcp_call", server_label="mcp", name="get_weather", arguments='{"city": "北京"}', output="晴"
    )
    return [listed.model_dump(mode="json"), called.model_dump(mode="json")]


def test_a_stream_whose_listing_and_calls_are_only_in_its_events_is_read_from_them() -> None:
    """Every item numbered 0, as a gateway was seen to stream them; the completed response holds only the answer."""

    def stream(body: dict[str, Any]) -> httpx2.Response:
        done: list[dict[str, Any]] = [
            {"type": "response.output_item.done", "output_index": 0, "item": i} for i in [*_listing_and_call(), _said()]
        ]
        completed = {"type": "response.completed", "response": _response([_said()])}
        events = [{**e, "sequence_number": n} for n, e in enumerate([*done, completed])]
        return httpx2.Response(200, stream=EventStream(events), headers={"content-type": "text/event-stream"})

    trace = _run(stream, api="responses", stream=True, **HOSTED).trace
    reported = [h.payload["method"] for h in trace.hops if h.kind == "mcp.reported"]
    assert reported == ["tools/list", "tools/list", "tools/call", "tools/call"], [h.summary for h in trace.hops]
    assert "tool calls 1 (reported by the provider)" in summary_line(trace)
    assert "get_weather(city=北京), by the provider's report" in run_outcome(trace).text["en"]


def test_an_anthropic_tool_listing_block_is_the_listing() -> None:
    listing = BetaMCPToolListingBlock(
        type="mcp_tool_listing", mcp_server_name="weather", tools=[BetaMCPTool(name="get_weather", input_schema={})]
    )
    message = BetaMessage(
        id="msg_1",
        type="message",
        role="assistant",
        model="claude",
        content=[listing, BetaTextBlock(type="text", text=ANSWER)],
        stop_reason="end_turn",
        stop_sequence=None,
        usage=BetaUsage(input_tokens=3, output_tokens=3),
    ).model_dump(mode="json")
    [listed] = exchanges(message)
    assert (listed.method, listed.server, listed.tools) == ("tools/list", "weather", ("get_weather",))
