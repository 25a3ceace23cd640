"""Runs against peers shaped like real ones, told as they happened: a gateway in front of a local model that streams
one tool call as many pieces sharing its id, a gateway that prefixes tool names with the server's label, a provider's
hosted MCP report that was not streamed, a call the app cannot run, and a scripted model answering a real server's
sampling request.

The peers answer through the real SDKs (an httpx2 transport the app's model client is given), in the shapes the
installed SDK types describe; the demo MCP server runs in process."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx2
import pytest
from anthropic.types import Message, ToolUseBlock, Usage
from anthropic.types.beta import BetaMessage, BetaTextBlock, BetaUsage
from anthropic.types.beta.beta_mcp_tool_result_block import BetaMCPToolResultBlock
from anthropic.types.beta.beta_mcp_tool_use_block import BetaMCPToolUseBlock
from openai.types.responses import Response, ResponseFunctionToolCall
from openai.types.responses.response_output_item import McpCall, McpListTools, McpListToolsTool
from openai.types.responses.response_output_message import ResponseOutputMessage
from openai.types.responses.response_output_text import ResponseOutputText

from flow import ModelConfig, RunOptions, RunResult, run
from flow.backends.mock import Call as MockCall
from flow.backends.mock import EventStream, MockModelTransport, reply, sse_events
from flow.backends.scripted import ScriptedModelTransport, parse_script
from flow.engine.hosted import McpGrant
from flow.engine.options import HOST_CAPABILITIES
from flow.runs import run_flow
from flow.trace.pairing import first_named
from flow.views.outcome import run_outcome
from flow.views.table import summary_line
from flow.wire.chat import CHAT

QUESTION = "北京今天天气怎么样？"
PIECES = ['{"', "city", '":', ' "', "北京", '"', "}", ""]  # one call's arguments, as a local model streams them
ANSWER = "北京今天晴。"


def _through_gateway(handler: Any, **options: Any) -> RunResult:
    """A run whose model answers are `handler`'s (an async function of the request's body), over the real SDK."""

    async def answer(request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        return await handler(json.loads(request.content))

    options.setdefault("transport", "memory")
    model = ModelConfig(backend="openai", model="ollama/qwen", base_url="http://gateway.test/v1", api_key="k")

    async def main() -> RunResult:
        return await run_flow(
            QUESTION, options=RunOptions(**options), model=model, model_transport=httpx2.MockTransport(answer)
        )

    return anyio.run(main)


def _events(events: list[dict[str, Any]], *, named: bool = False) -> httpx2.Response:
    return httpx2.Response(200, stream=EventStream(events, named=named), headers={"content-type": "text/event-stream"})


# --- (a) one call streamed as pieces that share its id ------------------------------------------------------------


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    """A `ChatCompletionChunk` as the openai SDK types it."""
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "ollama/qwen",
        "choices": [choice],
    }


async def _chat_gateway(body: dict[str, Any]) -> httpx2.Response:
    """Every delta of the one call carries its id and name and no `index`, as a gateway in front of a local model
    was seen to send them."""
    if any(m.get("role") == "tool" for m in body["messages"]):
        return _events([_chunk({"role": "assistant", "content": ANSWER}), _chunk({}, "stop")])
    call = {"id": "call_abc", "type": "function"}
    deltas = [_chunk({"tool_calls": [{**call, "function": {"name": "get_weather", "arguments": p}}]}) for p in PIECES]
    return _events([*deltas, _chunk({}, "tool_calls")])


def test_a_chat_deltas_sharing_an_id_are_one_call() -> None:
    trace = _through_gateway(_chat_gateway, stream=True).trace
    said = run_outcome(trace).text["en"]
    assert "called nothing" not in said and "not valid JSON" not in said
    assert said.startswith("The model called get_weather(city=北京)"), said
    assert trace.meta.stats.get("tool_calls") == 1


def test_a_chat_deltas_sharing_an_index_without_ids_are_one_call() -> None:
    """Chat Completions' own shape: the id and name only in the first delta, the index in all of them."""

    async def chat(body: dict[str, Any]) -> httpx2.Response:
        if any(m.get("role") == "tool" for m in body["messages"]):
            return _events([_chunk({"role": "assistant", "content": ANSWER}), _chunk({}, "stop")])
        first = {"index": 0, "id": "call_abc", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
        rest = [{"index": 0, "function": {"arguments": p}} for p in PIECES]
        return _events([_chunk({"tool_calls": [d]}) for d in [first, *rest]] + [_chunk({}, "tool_calls")])

    trace = _through_gateway(chat, stream=True).trace
    assert run_outcome(trace).text["en"].startswith("The model called get_weather(city=北京)")
    assert trace.meta.stats.get("tool_calls") == 1


def _message_event(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


async def _messages_gateway(body: dict[str, Any]) -> httpx2.Response:
    """Anthropic Messages events (`RawMessageStreamEvent`), one `tool_use` block per piece, each with the call's id."""
    start = _message_event(
        "message_start",
        message={
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "ollama/qwen",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 0},
        },
    )
    last = body["messages"][-1]
    blocks: list[dict[str, Any]] = []
    if any(b.get("type") == "tool_result" for b in last["content"] if isinstance(last["content"], list)):
        stop = "end_turn"
        blocks += [
            _message_event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
            _message_event("content_block_delta", index=0, delta={"type": "text_delta", "text": ANSWER}),
            _message_event("content_block_stop", index=0),
        ]
    else:
        stop = "tool_use"
        use = {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}
        for i, piece in enumerate(PIECES):
            blocks += [
                _message_event("content_block_start", index=i, content_block=use),
                _message_event(
                    "content_block_delta", index=i, delta={"type": "input_json_delta", "partial_json": piece}
                ),
                _message_event("content_block_stop", index=i),
            ]
    end = [
        _message_event("message_delta", delta={"stop_reason": stop, "stop_sequence": None}, usage={"output_tokens": 5}),
        _message_event("message_stop"),
    ]
    return _events([start, *blocks, *end], named=True)


def test_a_messages_blocks_sharing_an_id_are_one_call() -> None:
    trace = _through_gateway(_messages_gateway, stream=True, api="messages").trace
    said = run_outcome(trace).text["en"]
    assert said.count("called") == 1 and "called nothing" not in said, said
    assert said.startswith("The model called get_weather(city=北京)"), said
    assert trace.meta.stats.get("tool_calls") == 1


def _responses_gateway(body: dict[str, Any]) -> httpx2.Response:
    """Responses events (`ResponseStreamEvent`), one `function_call` item per piece, each with the call's call_id,
    and a completed response whose output lists them so too."""
    if any(i.get("type") == "function_call_output" for i in body["input"] if isinstance(i, dict)):
        text = {"type": "output_text", "text": ANSWER, "annotations": []}
        message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [text]}
        output, status = [message], "completed"
    else:
        call = {"type": "function_call", "call_id": "call_abc", "name": "get_weather", "status": "completed"}
        output = [{**call, "id": f"fc_{i}", "arguments": piece} for i, piece in enumerate(PIECES)]
        status = "completed"
    response = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "ollama/qwen",
        "status": status,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    events: list[dict[str, Any]] = [
        *({"type": "response.output_item.added", "output_index": i, "item": item} for i, item in enumerate(output)),
        {"type": "response.completed", "response": response},
    ]
    return _events([{**e, "sequence_number": n} for n, e in enumerate(events)])


def test_a_responses_items_sharing_a_call_id_are_one_call() -> None:
    async def handler(body: dict[str, Any]) -> httpx2.Response:
        return _responses_gateway(body)

    trace = _through_gateway(handler, stream=True, api="responses").trace
    said = run_outcome(trace).text["en"]
    assert said.count("called") == 1 and "called nothing" not in said, said
    assert said.startswith("The model called get_weather(city=北京)"), said
    assert trace.meta.stats.get("tool_calls") == 1


# --- (b) a gateway that prefixes tool names with the server's label ---------------------------------------------------


class _LabellingGateway(httpx2.AsyncBaseTransport):
    """The mock provider as the MCP client, behind a gateway that reports each tool by its server's label and its name
    (LiteLLM's `weather-get_weather`, Claude Code's `mcp__weather__get_weather`); its MCP client is tapped as ever."""

    def __init__(self) -> None:
        self.inner = MockModelTransport()

    def grant_mcp(self, grant: McpGrant | None) -> None:
        self.inner.grant_mcp(grant)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        got = await self.inner.handle_async_request(request)
        body = json.loads(await got.aread())
        for item in body.get("output", []):  # Responses: mcp_list_tools, mcp_call
            for tool in item.get("tools", []) if item.get("type") == "mcp_list_tools" else []:
                tool["name"] = f"{item['server_label']}-{tool['name']}"
            if item.get("type") == "mcp_call":
                item["name"] = f"{item['server_label']}-{item['name']}"
        for block in body.get("content", []):  # Messages: mcp_tool_use
            if block.get("type") == "mcp_tool_use":
                block["name"] = f"mcp__{block['server_name']}__{block['name']}"
        kept = {k: v for k, v in got.headers.items() if k.lower() not in ("content-length", "content-encoding")}
        return httpx2.Response(got.status_code, headers=kept, json=body)


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_b_a_call_reported_under_a_prefixed_name_is_the_call_seen(api: str) -> None:
    async def main() -> RunResult:
        options = RunOptions(transport="memory", mode="hosted", api=api)  # type: ignore[arg-type]
        return await run_flow(QUESTION, options=options, model=ModelConfig(), model_transport=_LabellingGateway())

    trace = anyio.run(main).trace
    reported = [h for h in trace.hops if h.kind == "mcp.reported" and h.payload.get("method") == "tools/call"]
    seen = [h for h in trace.hops if h.kind == "mcp.request" and h.payload.get("method") == "tools/call"]
    assert len(seen) == 1 and reported, [h.summary for h in trace.hops]
    assert reported[0].payload["name"] != "get_weather"  # the gateway's name, as it reported it
    assert reported[0].payload.get("observed") == seen[0].seq  # drawn once, as the call seen
    said = run_outcome(trace).text["en"]
    assert "and the recorder saw the call" in said and "no frame of that call was seen" not in said, said
    assert "differs from the frame seen" not in said, said


def test_b_a_name_pairs_exactly_first_then_after_a_label() -> None:
    assert first_named(["weather-get_weather", "get_weather"], "get_weather") == 1
    assert first_named(["mcp__weather__get_weather"], "get_weather") == 0
    assert first_named(["get_weather"], "weather-get_weather") == 0
    assert first_named(["weather"], "get_weather") is None  # a name's own `_` is no separator
    assert first_named(["-get_weather", "get_forecast"], "get_weather") is None


# --- (d) a function call the app cannot run -----------------------------------------------------------------------


def _function_call_reply(path: str) -> dict[str, Any]:
    """A reply that asks the app to run a function (a gateway that handed the server's tool to the model as one):
    an openai `Response` with a `function_call` item, or an anthropic `Message` with a `tool_use` block."""
    if path.endswith("/responses"):
        call = ResponseFunctionToolCall(
            type="function_call", id="fc_1", call_id="call_1", name="weather-get_weather", arguments='{"city":"北京"}'
        )
        response = {"id": "resp_1", "object": "response", "created_at": 1.0, "model": "gpt", "status": "completed"}
        response |= {"output": [call.model_dump()], "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
        return Response.model_validate(response).model_dump(mode="json")
    use = ToolUseBlock(type="tool_use", id="toolu_1", name="get_weather", input={"city": "北京"})
    return Message(
        id="msg_1",
        type="message",
        role="assistant",
        model="claude",
        content=[use],
        stop_reason="tool_use",
        usage=Usage(input_tokens=5, output_tokens=5),
    ).model_dump(mode="json")


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_d_a_function_call_in_hosted_mcp_is_no_empty_answer(api: str) -> None:
    async def answer(request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        return httpx2.Response(200, json=_function_call_reply(request.url.path))

    options = RunOptions(transport="memory", mode="hosted", api=api, server_url="https://mcp.example.com/mcp")  # type: ignore[arg-type]
    model = ModelConfig(backend="openai", model="gpt", base_url="http://gateway.test/v1", api_key="k")

    async def main() -> RunResult:
        return await run_flow(QUESTION, options=options, model=model, model_transport=httpx2.MockTransport(answer))

    trace = anyio.run(main).trace
    said = run_outcome(trace).text["en"]
    assert "empty" not in said and "empty answer" not in summary_line(trace), said
    assert trace.meta.outcome == "error" and "get_weather(city=北京) as a function of the app's" in said, said
    assert "get_weather(city=北京)" in run_outcome(trace).text["zh"]


# --- (e) a scripted model answering a real server's sampling request ---------------------------------------------

ASKING = {"transport": "memory", "asks": True, "host_capabilities": HOST_CAPABILITIES, "check_output": True}
FORECAST = "用一句话说说北京未来三天的天气"
SCRIPT = parse_script([{"call": "forecast_in_words", "arguments": {"city": "北京"}}, {"answer": "北京未来三天晴。"}])


def test_e_a_scripted_model_answers_a_servers_sampling_in_words() -> None:
    """The demo server's forecast_in_words asks the host's model for a sentence (sampling/createMessage, no tools):
    the script's turns are the app's conversation, so that request is answered in words, not with the script's
    call, and the story says the server got its answer."""
    trace = run(FORECAST, options=RunOptions(**ASKING), model=ModelConfig.scripted(SCRIPT)).trace  # type: ignore[arg-type]
    for_server = [h for h in trace.hops if h.kind == "llm.response" and "for_server" in h.payload]
    assert for_server and "tool_calls" not in json.dumps(for_server[0].payload["body"]), for_server[0].summary
    said = run_outcome(trace).text["en"]
    assert "its own tool" not in said and "the server answered forecast_in_words" in said, said


def test_e_a_call_the_sampling_request_did_not_offer_is_not_the_servers_own_tool() -> None:
    """A model that calls a tool anyway when the host asks for the server (its request offers none): said as a call
    of a tool nobody offered, never as the server's own tool."""
    scripted = ScriptedModelTransport(SCRIPT)

    async def answer(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(await request.aread())
        if body.get("tools"):
            return await scripted.handle_async_request(request)
        called = reply({**body, "model": "scripted"}, [MockCall("forecast_in_words", '{"city": "北京"}')])
        return httpx2.Response(called.status, json=called.body)

    async def main() -> RunResult:
        options = RunOptions(**ASKING)  # type: ignore[arg-type]
        return await run_flow(
            FORECAST, options=options, model=ModelConfig.scripted(SCRIPT), model_transport=httpx2.MockTransport(answer)
        )

    said = run_outcome(anyio.run(main).trace).text["en"]
    assert "its own tool" not in said, said
    assert "a tool the server's request did not offer" in said, said


# --- (c) a provider's report of MCP calls it made on its own, not streamed ------------------------------------------


def _reporting_reply(path: str) -> dict[str, Any]:
    """A gateway that runs the MCP servers of its own configuration answers with its report in its API's own
    types: an openai `Response` with `mcp_list_tools` and `mcp_call` items, or an anthropic `BetaMessage` with
    `mcp_tool_use` and `mcp_tool_result` blocks; then the answer."""
    if path.endswith("/responses"):
        schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        listed = McpListTools(
            id="mcpl_1",
            type="mcp_list_tools",
            server_label="weather",
            tools=[McpListToolsTool(name="get_weather", input_schema=schema)],
        )
        called = McpCall(
            id="mcp_1",
            type="mcp_call",
            server_label="weather",
            name="get_weather",
            arguments='{"city": "北京"}',
            output="晴",
        )
        part = ResponseOutputText(type="output_text", text=ANSWER, annotations=[])
        said = ResponseOutputMessage(id="msg_1", type="message", role="assistant", status="completed", content=[part])
        response = {"id": "resp_1", "object": "response", "created_at": 1.0, "model": "gpt", "status": "completed"}
        output = [item.model_dump(mode="json") for item in (listed, called, said)]
        response |= {"output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
        return Response.model_validate(response).model_dump(mode="json")
    use = BetaMCPToolUseBlock(
        id="mcptoolu_1", type="mcp_tool_use", name="get_weather", server_name="weather", input={"city": "北京"}
    )
    result = BetaMCPToolResultBlock(
        type="mcp_tool_result",
        tool_use_id="mcptoolu_1",
        is_error=False,
        content=[BetaTextBlock(type="text", text="晴")],
    )
    return BetaMessage(
        id="msg_1",
        type="message",
        role="assistant",
        model="claude",
        content=[use, result, BetaTextBlock(type="text", text=ANSWER)],
        stop_reason="end_turn",
        stop_sequence=None,
        usage=BetaUsage(input_tokens=30, output_tokens=12),
    ).model_dump(mode="json")


@pytest.mark.parametrize("mode", ["mcp", "direct"])
@pytest.mark.parametrize("api", ["responses", "messages"])
def test_c_a_non_streamed_report_of_the_providers_own_mcp_calls_is_counted_and_told(api: str, mode: str) -> None:
    async def answer(body: dict[str, Any]) -> httpx2.Response:
        return httpx2.Response(200, json=_reporting_reply("/responses" if "input" in body else "/messages"))

    trace = _through_gateway(answer, api=api, mode=mode).trace
    reported = [h for h in trace.hops if h.kind == "mcp.reported"]
    assert [h.payload["method"] for h in reported][-2:] == ["tools/call", "tools/call"], [h.summary for h in trace.hops]
    assert trace.meta.stats.get("tool_calls") == 1 and "tool calls 1" in summary_line(trace)
    said = run_outcome(trace).text["en"]
    assert "without calling a tool" not in said and "called get_weather(city=北京), by the provider's report" in said, (
        said
    )


def test_a_parallel_calls_a_provider_numbers_all_0_are_told_apart_by_their_ids() -> None:
    """Some OpenAI-compatible providers give every parallel call `index` 0: each brings its own id, so two calls."""
    stream = CHAT.stream()
    for city, call_id in (("北京", "call_1"), ("上海", "call_2")):
        first = {"index": 0, "id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": ""}}
        stream.add(_chunk({"tool_calls": [first]}))
        stream.add(_chunk({"tool_calls": [{"index": 0, "function": {"arguments": json.dumps({"city": city})}}]}))
    stream.add(_chunk({}, "tool_calls"))
    turn = stream.turn()
    assert [(c.id, json.loads(c.arguments)["city"]) for c in turn.calls] == [("call_1", "北京"), ("call_2", "上海")]


# --- a Responses stream that ends badly, events one at a time as over a socket ----------------------------------------


class _NamedThenDone(httpx2.AsyncByteStream):
    """Named Responses events, then the `[DONE]` some gateways send after them, one at a time as over a socket."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self._events = events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for part in [*sse_events(self._events, named=True), b"data: [DONE]\n\n"]:
            await anyio.sleep(0)
            yield part


def _responses_events(*events: dict[str, Any]) -> httpx2.Response:
    numbered = [{**e, "sequence_number": n} for n, e in enumerate(events)]
    return httpx2.Response(200, stream=_NamedThenDone(numbered), headers={"content-type": "text/event-stream"})


_RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "ollama/qwen",
    "status": "in_progress",
    "output": [],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
}


@pytest.mark.parametrize(
    "last",
    [
        {"type": "error", "code": "overloaded", "message": "the provider is overloaded", "param": None},
        {
            "type": "response.failed",
            "response": {**_RESPONSE, "error": {"code": "x", "message": "the provider is overloaded"}},
        },
    ],
)
def test_a_responses_stream_that_fails_is_kept_to_its_end(last: dict[str, Any]) -> None:
    """The run stops at the failure, and the trace still holds what the server sent after it (its `[DONE]`), as it
    does for a stream that went well: the app reads the stream out before it closes it."""

    async def handler(body: dict[str, Any]) -> httpx2.Response:
        return _responses_events({"type": "response.created", "response": _RESPONSE}, last)

    result = _through_gateway(handler, stream=True, api="responses")
    assert result.error == "the model endpoint reported an error in its answer: the provider is overloaded"
    chunks = [h.summary for h in result.trace.hops if h.kind == "llm.chunk"]
    assert chunks == ["event 1: response.created", f"event 2: {last['type']}", "event 3: [DONE]"], chunks
    assert [h.kind for h in result.trace.hops][-2:] == ["llm.error", "error"]


def test_a_responses_stream_that_completes_twice_takes_neither_answer() -> None:
    def completed(text: str) -> dict[str, Any]:
        said = {"type": "output_text", "text": text, "annotations": []}
        message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [said]}
        return {"type": "response.completed", "response": {**_RESPONSE, "status": "completed", "output": [message]}}

    async def handler(body: dict[str, Any]) -> httpx2.Response:
        return _responses_events(completed("晴。"), completed("雨。"))

    result = _through_gateway(handler, stream=True, api="responses")
    assert result.error == (
        "the model endpoint's answer cannot be read: the stream said twice that it had finished (events 1 and 2); "
        "neither of its answers is taken"
    )
    assert result.trace.meta.answer is None
    assert [h.summary for h in result.trace.hops if h.kind == "llm.chunk"][-1] == "event 3: [DONE]"
