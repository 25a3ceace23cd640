"""OpenAI Responses and Anthropic Messages beside Chat Completions: the bodies the app writes are what the installed
SDKs' types accept, a stream adds up to the whole response, and a run goes through each API's real SDK, to the mock
in process and over a socket, in both modes, streamed or not, with the mock's failures in each API's own shape."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming
from pydantic import TypeAdapter

from flow import ModelConfig, RunOptions, run
from flow.backends.mock_apis import new_store, respond_messages, respond_responses
from flow.backends.mock_http import make_server
from flow.backends.replay import replay
from flow.engine.options import SYSTEM_PROMPT
from flow.trace.files import read_trace_bytes, trace_text
from flow.wire import API, api_for_path
from flow.wire.base import (
    CallWritten,
    Conversation,
    Settings,
    TextPart,
    ToolCallPart,
    ToolOutput,
    ToolReturnPart,
    ToolSpec,
    Turn,
)
from helpers import model_requests

WEATHER = ToolSpec(
    "get_weather",
    "Current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
QUESTION = "北京和上海今天天气怎么样？"
SDK_TYPES: dict[str, Any] = {"responses": ResponseCreateParamsNonStreaming, "messages": MessageCreateParamsNonStreaming}


def _keys(typed: Any) -> set[str]:
    return set(typed.__required_keys__) | set(typed.__optional_keys__)


def _answer(api: str, body: dict[str, Any], store: Any = None) -> Any:
    reply = respond_responses(body, new_store() if store is None else store) if api == "responses" else None
    return reply if reply is not None else respond_messages(body)


def _turn_after_tools(
    api: str, *, chain: bool = False, **settings: Any
) -> tuple[Conversation, list[dict[str, Any]], Any]:
    """A conversation through one round of calls answered by the mock, and the follow-up request's body."""
    wire = API[api]  # type: ignore[index]
    tools = [wire.tool(WEATHER)]
    conversation = Conversation(SYSTEM_PROMPT, [QUESTION])
    store = new_store()
    first = wire.request(conversation, tools, Settings("mock", **settings)).body
    reply = respond_responses(first, store) if api == "responses" else respond_messages(first)
    turn = wire.read(reply.body)
    conversation.items.append(turn)
    conversation.items += [ToolOutput(c.id, '{"ok": true}', is_error=i == 1) for i, c in enumerate(turn.calls)]
    previous = turn.raw.get("id") if chain else None
    follow = wire.request(conversation, tools, Settings("mock", previous_response_id=previous)).body
    return conversation, [first, follow], store


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_request_bodies_are_what_the_sdk_types_take(api: str) -> None:
    typed = SDK_TYPES[api]
    _, bodies, _ = _turn_after_tools(api, tool_choice="get_weather", parallel=False)
    for body in bodies:
        assert set(body) <= _keys(typed), set(body) - _keys(typed)
        TypeAdapter(typed).validate_python(body)
    first, follow = bodies
    if api == "responses":
        assert first["instructions"] == SYSTEM_PROMPT and first["input"] == [{"role": "user", "content": QUESTION}]
        tool = first["tools"][0]
        assert set(tool) == {"type", "name", "description", "parameters", "strict"} and tool["strict"] is False
        assert first["tool_choice"] == {"type": "function", "name": "get_weather"}
        assert first["parallel_tool_calls"] is False
        outputs = [i for i in follow["input"] if i.get("type") == "function_call_output"]
        calls = [i for i in follow["input"] if i.get("type") == "function_call"]
        assert [o["call_id"] for o in outputs] == [c["call_id"] for c in calls] and calls
        assert all(isinstance(c["arguments"], str) for c in calls)
    else:
        assert first["system"] == SYSTEM_PROMPT and first["max_tokens"] > 0
        assert first["messages"] == [{"role": "user", "content": QUESTION}]
        assert set(first["tools"][0]) == {"name", "description", "input_schema"}
        assert first["tool_choice"] == {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True}
        assistant, results = follow["messages"][1:]
        assert assistant["role"] == "assistant" and results["role"] == "user"
        uses = [b for b in assistant["content"] if b["type"] == "tool_use"]
        assert uses and all(isinstance(b["input"], dict) for b in uses)
        assert [b["tool_use_id"] for b in results["content"]] == [b["id"] for b in uses]


def test_a_responses_follow_up_by_previous_response_id_sends_only_what_is_new() -> None:
    _, (_, whole), _ = _turn_after_tools("responses")
    _, (_, chained), store = _turn_after_tools("responses", chain=True)
    assert "previous_response_id" not in whole
    assert chained["previous_response_id"] in store
    assert [i["type"] for i in chained["input"]] == ["function_call_output", "function_call_output"]
    assert len(whole["input"]) == 1 + 2 + 2  # the question, the two calls, their two outputs

    # the mock reads the chained request as the whole one: the same answer
    def said(body: dict[str, Any], store: Any) -> str:
        answered = respond_responses(body, store).body
        assert answered is not None
        return str(answered["output"][0]["content"][0]["text"])

    assert said(chained, store) == said(whole, new_store()) and "ok" in said(whole, new_store())
    unknown = respond_responses({**chained, "previous_response_id": "resp_nowhere"}, new_store())
    assert unknown.status == 400 and (unknown.body or {})["error"]["code"] == "previous_response_not_found"


def test_messages_tool_results_carry_is_error() -> None:
    _, (_, follow), _ = _turn_after_tools("messages")
    results = follow["messages"][-1]["content"]
    assert [r.get("is_error", False) for r in results] == [False, True]


@pytest.mark.parametrize("api", ["responses", "messages"])
@pytest.mark.parametrize("question", [QUESTION, "你好，请介绍一下你自己。"])
def test_a_stream_adds_up_to_the_whole_response(api: str, question: str) -> None:
    wire = API[api]  # type: ignore[index]
    body = wire.request(Conversation(SYSTEM_PROMPT, [question]), [wire.tool(WEATHER)], Settings("mock")).body
    whole = wire.read(_answer(api, body).body)
    stream = wire.stream()
    lines = [stream.add(event) for event in _answer(api, {**body, "stream": True}).chunks]
    streamed = stream.turn()

    def calls(turn: Turn) -> list[tuple[str, str, Any]]:  # ids are the mock's digest of the body, stream flag too
        return [(c.name, c.arguments, c.parsed) for c in turn.calls]

    assert (streamed.text, calls(streamed), streamed.finish) == (whole.text, calls(whole), whole.finish)
    assert stream.decided == bool(whole.calls)
    assert all(line.startswith("event ") for line in lines)
    if whole.calls:
        assert len(whole.calls) == 2 and {json.loads(c.arguments)["city"] for c in whole.calls} == {"北京", "上海"}
    else:
        assert whole.text


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_a_stream_cut_short_is_no_answer(api: str) -> None:
    wire = API[api]  # type: ignore[index]
    body = wire.request(Conversation(SYSTEM_PROMPT, ["你好"]), [], Settings("mock", stream=True)).body
    stream = wire.stream()
    for event in _answer(api, body).chunks[:-1]:  # the completing event never comes
        stream.add(event)
    with pytest.raises(Exception, match="stream_truncated"):
        stream.turn()


def test_api_for_path_knows_each_api() -> None:
    assert api_for_path("/v1/responses") is API["responses"]
    assert api_for_path("/v1/messages/") is API["messages"]
    assert api_for_path("/v1/chat/completions") is API["chat"]


def _run(api: str, **options: Any) -> Any:
    model = options.pop("model", "mock")
    config = options.pop("config", None) or ModelConfig(model=model, timeout_s=30)
    options.setdefault("transport", "memory")
    return run(QUESTION, options=RunOptions(api=api, **options), model=config)  # type: ignore[arg-type]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("mode", ["direct", "mcp"])
@pytest.mark.parametrize("api", ["responses", "messages"])
def test_a_run_through_each_api_and_mode(api: str, mode: str, stream: bool) -> None:
    result = _run(api, mode=mode, stream=stream)
    assert result.ok, result.error
    assert "北京" in (result.answer or "") and "上海" in (result.answer or "")
    requests = [h for h in result.trace.hops if h.kind == "llm.request"]
    assert [h.payload["url"].rsplit("/", 2)[-1] for h in requests] == [api, api]
    assert result.trace.meta.settings["api"] == api
    replies = {h.kind for h in result.trace.hops if h.source == "model"}
    assert replies == ({"llm.chunk"} if stream else {"llm.response"})
    reverse = [h for h in result.trace.hops if h.kind == "translate.reverse"]
    ids = {h.tool_call_id for h in reverse}
    first = requests[0].payload["body"]
    if api == "responses":
        assert ids == {h["api_call"]["call_id"] for h in (r.payload for r in reverse)}
        assert all(r.payload["api_call"]["type"] == "function_call" for r in reverse)
    else:
        assert all(isinstance(r.payload["api_call"]["input"], dict) for r in reverse)
        assert first["system"] == SYSTEM_PROMPT
    if mode == "mcp":
        forward = next(h for h in result.trace.hops if h.kind == "translate.forward")
        schema = "input_schema" if api == "messages" else "parameters"
        assert forward.summary.startswith(f"inputSchema → {schema}")
        assert all(schema in tool for tool in forward.payload["openai"])
    assert result.trace.meta.stats["prompt_tokens"] > 0
    loaded = read_trace_bytes(trace_text(result.trace).encode())  # it loads, and replays offline without a difference
    again = replay(loaded, transport="memory")
    replayed = again.trace.meta.replay or {}
    assert again.ok and replayed["diverged"] is False, replayed["divergences"]


@pytest.mark.parametrize("stream", [False, True])
def test_a_responses_run_by_previous_response_id(stream: bool) -> None:
    result = _run("responses", previous_response=True, stream=stream)
    assert result.ok, result.error
    first, follow = model_requests(result.trace.hops)
    assert "previous_response_id" not in first and follow["previous_response_id"].startswith("resp_")
    assert {i["type"] for i in follow["input"]} == {"function_call_output"}
    assert result.trace.meta.settings["previous_response"] is True
    again = replay(read_trace_bytes(trace_text(result.trace).encode()), transport="memory")
    assert again.ok and not (again.trace.meta.replay or {})["diverged"]


def test_a_chat_run_records_no_api_setting() -> None:
    result = _run("chat")
    assert result.ok and "api" not in result.trace.meta.settings
    assert "previous_response" not in result.trace.meta.settings


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_bad_arguments_go_back_to_the_model_and_it_recovers(api: str) -> None:
    result = _run(api, model="mock-bad-json", mode="direct")
    assert result.ok, result.error
    refused = [h for h in result.trace.hops if h.kind == "error" and h.step == 5]
    assert refused and "not valid JSON" in refused[0].summary
    backfill = model_requests(result.trace.hops)[1]
    if api == "messages":
        result_block = backfill["messages"][-1]["content"][0]
        assert result_block["is_error"] is True and "not valid JSON" in result_block["content"]
    else:
        output = next(i for i in backfill["input"] if i.get("type") == "function_call_output")
        assert "not valid JSON" in output["output"]


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_a_wrong_tool_is_told_to_the_model(api: str) -> None:
    result = _run(api, model="mock-wrong-tool", mode="direct")
    assert result.ok, result.error
    assert any("get_current_weather" in h.summary for h in result.trace.hops if h.kind == "translate.reverse")
    assert "北京" in (result.answer or "")


@pytest.mark.parametrize("api", ["responses", "messages"])
@pytest.mark.parametrize("status", [401, 429, 500])
def test_http_errors_in_each_apis_own_shape(api: str, status: int) -> None:
    result = _run(api, model=f"mock-error-{status}", mode="direct")
    assert not result.ok and f"HTTP {status}" in (result.error or "")
    failed = next(h for h in result.trace.hops if h.kind == "llm.error")
    body = failed.payload["body"]
    if api == "messages":
        assert body["type"] == "error" and {"type", "message"} <= set(body["error"])
    else:
        assert {"message", "type", "code"} <= set(body["error"])


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_one_call_at_a_time_refused_by_a_server_that_does_not_take_it(api: str) -> None:
    refused = _run(api, model="mock-no-parallel", mode="direct", parallel=False)
    assert not refused.ok and "HTTP 400" in (refused.error or "")
    assert _run(api, model="mock-no-parallel", mode="direct").ok
    one = _run(api, mode="direct", parallel=False)
    assert one.ok and len([h for h in one.trace.hops if h.kind == "translate.reverse"]) == 2  # one per round


@pytest.fixture
def socket_mock() -> Iterator[str]:
    server = make_server(0, api_key="sk-test-socket-key")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("api", ["responses", "messages"])
def test_over_a_socket_with_a_key_that_stays_out_of_the_trace(socket_mock: str, api: str, stream: bool) -> None:
    base_url = socket_mock if api == "messages" else socket_mock + "/v1"  # the anthropic SDK adds /v1 itself
    key = "sk-test-socket-key"
    config = ModelConfig(backend="openai", model="mock", base_url=base_url, api_key=key, timeout_s=30)
    result = _run(api, config=config, mode="direct", stream=stream, previous_response=api == "responses")
    assert result.ok, result.error
    assert key not in trace_text(result.trace)
    headers = next(h for h in result.trace.hops if h.kind == "llm.request").payload["headers"]
    assert headers["authorization"] == "[redacted]"  # the installed anthropic SDK sends its key as a bearer token too
    wrong = ModelConfig(backend="openai", model="mock", base_url=base_url, api_key="sk-wrong", timeout_s=30)
    assert "HTTP 401" in (_run(api, config=wrong, mode="direct").error or "")


def test_the_anthropic_key_goes_only_to_its_configured_base_url() -> None:
    env = {"ANTHROPIC_API_KEY": "sk-ant-test"}
    home = ModelConfig.from_env(model="claude-x", api="messages", environ=env)
    assert home.api_key == "sk-ant-test" and home.base_url == "https://api.anthropic.com"
    elsewhere = ModelConfig.from_env(model="claude-x", api="messages", base_url="http://127.0.0.1:9/", environ=env)
    assert elsewhere.api_key is None
    configured = {**env, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    assert ModelConfig.from_env(model="m", api="messages", base_url="http://127.0.0.1:9", environ=configured).api_key
    openai_key = ModelConfig.from_env(model="m", api="messages", environ={"OPENAI_API_KEY": "sk-openai"})
    assert openai_key.api_key is None
    assert ModelConfig.from_env(api="messages", environ=env).backend == "mock"


def test_replay_takes_the_api_from_the_recording_checked() -> None:
    assert RunOptions.from_settings({"api": "messages"}).api == "messages"
    with pytest.raises(Exception, match=r"meta\.settings\.api"):
        RunOptions.from_settings({"api": "soap"})


def test_the_anthropic_preset_keeps_the_openai_key_away() -> None:
    from flow.providers import PRESETS, key_for

    anthropic_preset = next(p for p in PRESETS if p.api == "messages")
    env = {"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk-openai", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    assert key_for(anthropic_preset, "https://api.anthropic.com", "", env).key == "sk-ant"
    assert key_for(anthropic_preset, "http://127.0.0.1:9/v1", "", env).key is None


def test_a_refused_one_call_at_a_time_in_messages_says_to_leave_out_no_parallel():
    from flow.engine.errors import _rejected_option

    detail = "tool_choice.disable_parallel_tool_use: Extra inputs are not permitted"
    assert _rejected_option(400, {"message": detail}, detail) == "disable_parallel_tool_use"


@pytest.mark.parametrize("api", ["chat", "responses", "messages"])
def test_a_request_the_api_wrote_reads_back_into_the_same_neutral_parts(api: str) -> None:
    """What each API writes, read back by the same API (the OpenTelemetry export reads recorded bodies so): the
    system text, the user's question, the model's call and the tool's result, the tools flat, the reply."""
    wire = API[api]  # type: ignore[index]
    turn = wire.turn(None, [CallWritten("call_1", "get_weather", {"city": "北京"})])
    conversation = Conversation("Be brief.", [QUESTION, turn, ToolOutput("call_1", "晴")])
    body = wire.request(conversation, [wire.tool(WEATHER)], Settings("mock")).body

    parts = [p for m in wire.input_messages(body) for p in m.parts]
    system = [*wire.instructions(body), *(p for m in wire.input_messages(body) if m.role == "system" for p in m.parts)]
    assert system == [TextPart("Be brief.")]
    assert TextPart(QUESTION) in parts
    call = next(p for p in parts if isinstance(p, ToolCallPart))
    arguments = json.loads(call.arguments) if wire.arguments_json else call.arguments
    assert (call.call_id, call.name, arguments) == ("call_1", "get_weather", {"city": "北京"})
    assert [(p.call_id, p.content) for p in parts if isinstance(p, ToolReturnPart)] == [("call_1", "晴")]
    assert [(t["type"], t["name"], t["parameters"]) for t in wire.tool_definitions(body)] == [
        ("function", "get_weather", WEATHER.parameters)
    ]

    answer = wire.turn("晴，25 度。", [])
    replies = wire.replies(wire.assembled_body(answer.raw, answer.finish))  # as a stream's message is kept
    assert replies is not None and [(r.parts, r.finish) for r in replies] == [((TextPart("晴，25 度。"),), "stop")]
    assert (wire.reported_body([{"type": "mcp_call"}]) is None) == (not wire.hosted_mcp)
