"""Structured results: the host checks a result's structuredContent against the tool's outputSchema, records what it
found, and backfills the text content (as before) or the structured content, as the run chooses."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.server import Server

from flow import RunOptions, run
from flow.backends import model_transport
from flow.backends.scripted import load_script
from flow.capture.recorder import Recorder
from flow.engine.loop import run_flow
from flow.engine.model import ModelConfig
from flow.engine.translate import output_problems
from flow.servers.connect import open_session
from flow.servers.spec import Era, ServerSpec, TransportName

CARD = '[{"call": "weather_card", "arguments": {"city": "北京"}}, {"answer": "北京今天晴。"}]'


def card_run(*, era: Era = "handshake", transport: TransportName = "memory", **options):
    built = RunOptions.build(server=ServerSpec(), asks=True, era=era, transport=transport, **options)
    return run("北京今天天气怎么样？", options=built, model=ModelConfig.scripted(load_script(CARD)))


def tool_result(result):
    return next(h for h in result.trace.hops if h.kind == "tool.result")


def tool_message(result) -> str:
    backfill = [h for h in result.trace.hops if h.kind == "llm.request"][1]
    return next(m["content"] for m in backfill.payload["body"]["messages"] if m["role"] == "tool")


@pytest.mark.parametrize(("era", "transport"), [("handshake", "memory"), ("modern", "memory"), ("modern", "stdio")])
def test_a_valid_structured_result_is_checked_and_the_text_goes_back_by_default(era, transport):
    result = card_run(era=era, transport=transport)
    assert result.ok, result.error
    hop = tool_result(result)
    assert hop.payload["structured"] == {"valid": True, "errors": [], "backfill": "text"}
    data = hop.payload["result"]
    assert data["structuredContent"]["city_en"] == "Beijing"
    assert tool_message(result) == data["content"][0]["text"] == hop.payload["tool_message_content"]
    assert "backfill" not in result.trace.meta.settings


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_backfill_structured_sends_the_structured_content_and_records_the_choice(era):
    result = card_run(era=era, backfill="structured")
    assert result.ok, result.error
    hop = tool_result(result)
    assert hop.payload["structured"]["backfill"] == "structured"
    sent = tool_message(result)
    assert json.loads(sent) == hop.payload["result"]["structuredContent"]
    assert sent == hop.payload["tool_message_content"]
    assert result.trace.meta.settings["backfill"] == "structured"
    assert result.trace.meta.settings["check_output"] is True


def test_no_check_no_record():
    result = card_run(check_output=False)
    assert result.ok and "structured" not in tool_result(result).payload


def lying_server() -> Server[Any]:
    """A server whose tool `card` declares an outputSchema and answers with structuredContent that departs from it."""
    tool = {
        "name": "card",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
        "outputSchema": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "temp_c": {"type": "integer"}},
            "required": ["city", "temp_c"],
        },
    }

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult.model_validate({"tools": [tool]})

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        city = (params.arguments or {}).get("city")
        return types.CallToolResult.model_validate(
            {
                "content": [{"type": "text", "text": f"{city}: warm"}],
                "structuredContent": {"city": city, "temp_c": "warm"},
            }
        )

    return Server("liar", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_structured_content_that_departs_from_the_schema_is_recorded_and_refused(era):
    script = '[{"call": "card", "arguments": {"city": "北京"}}, {"answer": "不知道"}]'

    async def go():
        rec = Recorder()
        spec = ServerSpec(transport="memory", server=lying_server())
        async with open_session(spec, era=era, recorder=rec) as session:
            return await run_flow(
                "北京？",
                options=RunOptions(transport="memory", era=era, check_output=True),
                model=(model := ModelConfig.scripted(load_script(script))),
                model_transport=model_transport(model),
                recorder=rec,
                session=session,
            )

    result = anyio.run(go)
    assert result.ok, result.error
    hop = tool_result(result)
    check = hop.payload["structured"]
    assert check["valid"] is False and check["backfill"] == "text"
    assert check["errors"] == ["temp_c: 'warm' is not of type 'integer'"]
    assert hop.payload["result"]["structuredContent"] == {"city": "北京", "temp_c": "warm"}  # as the wire carried it
    assert tool_message(result).startswith("Error: the tool's result does not match its output schema")


def test_output_problems_names_each_departure():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a", "b"]}
    assert output_problems({"a": 1, "b": 0}, schema) == []
    assert output_problems({"a": "x"}, schema) == [
        "(top): 'b' is a required property",
        "a: 'x' is not of type 'integer'",
    ]
    assert output_problems({}, {"type": "nonsense"})[0].startswith("the outputSchema is not a JSON Schema")
