"""The recording engine: both modes, both eras, both transports, through the real SDKs."""

from __future__ import annotations

import json

import jsonschema
import pytest

from helpers import kinds, model_requests, numbered_steps, run_flow_sync, server_facts

TEN = list(range(1, 11))


@pytest.mark.parametrize("mode", ["mcp", "direct"])
def test_one_round_shows_every_step_in_order(mode):
    result = run_flow_sync(mode=mode)
    assert result.ok, result.error
    assert result.answer is not None and "北京" in result.answer and "°C" in result.answer
    assert numbered_steps(result.trace.hops) == [0, *TEN]
    seqs = [h.seq for h in result.trace.hops]
    assert seqs == list(range(1, len(seqs) + 1))
    stats = result.trace.meta.stats
    assert stats.get("model_calls") == 2 and stats.get("tool_calls") == 1


def test_stdio_transport_runs_the_real_server_process():
    result = run_flow_sync(transport="stdio")
    assert result.ok, result.error
    assert numbered_steps(result.trace.hops) == [0, *TEN]
    assert server_facts(result.trace)["transport"] == "stdio"
    assert server_facts(result.trace)["server_info"]["name"] == "weather-demo"


def test_direct_mode_has_no_mcp_frames_and_calls_the_function_in_process():
    hops = run_flow_sync(mode="direct").trace.hops
    assert not any(k.startswith("mcp.") for k in kinds(hops))
    invoke = next(h for h in hops if h.kind == "tool.invoke")
    assert (invoke.source, invoke.target, invoke.step) == ("app", "tool", 6)
    assert invoke.payload == {"function": "get_weather", "kwargs": {"city": "北京"}}


def test_jsonrpc_responses_match_requests_by_id():
    hops = run_flow_sync(question="北京和上海今天天气怎么样？").trace.hops
    requests = {h.jsonrpc_id: h for h in hops if h.kind == "mcp.request"}
    responses = [h for h in hops if h.kind in ("mcp.response", "mcp.error")]
    assert len(requests) >= 4 and len(responses) == len(requests)
    for resp in responses:
        req = requests[resp.jsonrpc_id]
        assert req.seq < resp.seq
        assert resp.payload["id"] == req.payload["id"]
        assert (req.source, resp.source) == ("mcp_client", "mcp_server")
    call_responses = [h for h in responses if requests[h.jsonrpc_id].payload["method"] == "tools/call"]
    assert {h.step for h in call_responses} == {7}


@pytest.mark.parametrize("mode", ["mcp", "direct"])
def test_every_tool_message_answers_a_call_the_assistant_issued(mode):
    hops = run_flow_sync(question="北京和上海今天天气怎么样？", mode=mode).trace.hops
    for body in model_requests(hops):
        issued: set[str] = set()
        for msg in body["messages"]:
            if msg["role"] == "assistant":
                issued = {tc["id"] for tc in msg.get("tool_calls") or []}
            if msg["role"] == "tool":
                assert msg["tool_call_id"] in issued
    last = model_requests(hops)[-1]["messages"]
    assert [m["role"] for m in last].count("tool") == 2


def test_forward_translation_gives_valid_openai_tool_schemas():
    hops = run_flow_sync().trace.hops
    forward = next(h for h in hops if h.kind == "translate.forward")
    assert forward.step == 3
    mcp_tools, openai_tools = forward.payload["mcp"], forward.payload["openai"]
    assert [t["name"] for t in mcp_tools] == [t["function"]["name"] for t in openai_tools]
    for mcp_tool, tool in zip(mcp_tools, openai_tools, strict=True):
        assert tool["type"] == "function"
        fn = tool["function"]
        assert fn["description"] == mcp_tool["description"]
        assert fn["parameters"]["type"] == "object"
        assert fn["parameters"]["required"] == mcp_tool["inputSchema"]["required"]
        assert set(fn["parameters"]["properties"]) == set(mcp_tool["inputSchema"]["properties"])
        jsonschema.Draft202012Validator.check_schema(fn["parameters"])
    # What was sent to the model is exactly the translation.
    assert model_requests(hops)[0]["tools"] == openai_tools


def test_strict_schemas_forbid_extra_fields():
    hops = run_flow_sync(strict=True).trace.hops
    for tool in model_requests(hops)[0]["tools"]:
        assert tool["function"]["strict"] is True
        assert tool["function"]["parameters"]["additionalProperties"] is False


@pytest.mark.parametrize("mode", ["mcp", "direct"])
def test_two_cities_are_two_parallel_tool_calls_in_one_response(mode):
    result = run_flow_sync(question="北京和上海今天天气怎么样？", mode=mode)
    hops = result.trace.hops
    decisions = [h for h in hops if h.kind == "llm.response" and h.step == 4]
    assert len(decisions) == 1
    calls = decisions[0].payload["body"]["choices"][0]["message"]["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"city": "北京"}, {"city": "上海"}]
    results = [h for h in hops if h.kind == "tool.result" and h.step == 7]
    assert {h.tool_call_id for h in results} == {c["id"] for c in calls}
    assert result.answer is not None and "北京" in result.answer and "上海" in result.answer


def test_no_parallel_gives_one_call_per_round():
    result = run_flow_sync(question="北京和上海今天天气怎么样？", parallel=False)
    assert result.ok
    bodies = model_requests(result.trace.hops)
    assert all(b["parallel_tool_calls"] is False for b in bodies)
    decisions = [h for h in result.trace.hops if h.kind == "llm.response" and h.step == 4]
    assert [len(h.payload["body"]["choices"][0]["message"]["tool_calls"]) for h in decisions] == [1, 1]


def test_english_question_gets_an_english_answer():
    result = run_flow_sync(question="What's the weather like in London today?")
    assert result.ok and result.answer is not None and result.answer.startswith("London today")


def test_two_rounds_when_the_second_call_depends_on_the_first_result():
    result = run_flow_sync(question="北京今天天气怎么样？给我一个出行建议")
    assert result.ok, result.error
    reverse = [h for h in result.trace.hops if h.kind == "translate.reverse"]
    assert [(h.round, h.payload["call_request"]["name"]) for h in reverse] == [(1, "get_weather"), (2, "best_practice")]
    # The advice follows from what the weather tool returned (sunny in Beijing).
    assert reverse[1].payload["call_request"]["arguments"] == {"topic": "sunny"}
    assert result.trace.meta.stats.get("model_calls") == 3


@pytest.mark.parametrize(
    ("choice", "expect_tools"),
    [("none", []), ("required", ["get_weather"]), ("calc_work_hours", ["calc_work_hours"])],
)
def test_tool_choice_is_sent_and_honoured(choice, expect_tools):
    result = run_flow_sync(question="北京今天天气怎么样？", tool_choice=choice)
    assert result.ok, result.error
    first = model_requests(result.trace.hops)[0]
    sent = first["tool_choice"]
    assert sent == (choice if choice in ("none", "required") else {"type": "function", "function": {"name": choice}})
    called = [h.payload["call_request"]["name"] for h in result.trace.hops if h.kind == "translate.reverse"]
    assert called[: len(expect_tools)] == expect_tools and (expect_tools or not called)


def test_a_question_with_no_fitting_tool_is_answered_directly():
    result = run_flow_sync(question="你好，你是谁？")
    assert result.ok and result.trace.meta.stats.get("tool_calls") == 0
    assert numbered_steps(result.trace.hops) == [0, 1, 2, 3, 9, 10]


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_each_era_shows_its_own_setup_frames(era):
    result = run_flow_sync(era=era)
    assert result.ok
    setup = [h.payload.get("method") for h in result.trace.hops if h.step == 2 and h.kind.startswith("mcp.")]
    if era == "handshake":
        assert setup[:3] == ["initialize", None, "notifications/initialized"]
        assert "server/discover" not in setup
        assert server_facts(result.trace)["protocol_version"] == "2025-11-25"
    else:
        assert setup[:2] == ["server/discover", None]
        assert "initialize" not in setup and "notifications/initialized" not in setup
        assert server_facts(result.trace)["protocol_version"] == "2026-07-28"
    assert server_facts(result.trace)["era"] == era
    assert "tools/list" in setup


@pytest.mark.parametrize("mode", ["mcp", "direct"])
def test_streaming_reassembles_the_same_arguments_as_non_streaming(mode):
    question = "北京和上海今天天气怎么样？"
    plain = run_flow_sync(question=question, mode=mode)
    streamed = run_flow_sync(question=question, mode=mode, stream=True)
    assert streamed.ok and streamed.answer == plain.answer

    def calls(result):
        return [h.payload["tool_call"]["function"] for h in result.trace.hops if h.kind == "translate.reverse"]

    assert calls(streamed) == calls(plain)
    chunks = [h for h in streamed.trace.hops if h.kind == "llm.chunk" and h.step == 4]
    arg_pieces = [h for h in chunks if "arguments +=" in h.summary]
    assert len(arg_pieces) >= 4  # the arguments really arrived split across chunks
    assert numbered_steps(streamed.trace.hops) == [0, *TEN]
    assembled = [h for h in streamed.trace.hops if h.kind == "llm.assembled"]
    assert [h.step for h in assembled] == [4, 9]


def test_model_hops_carry_usage_and_http_headers_without_authorization():
    hops = run_flow_sync().trace.hops
    responses = [h for h in hops if h.kind == "llm.response"]
    assert all(h.usage and (h.usage.get("total_tokens") or 0) > 0 for h in responses)

    request = next(h for h in hops if h.kind == "llm.request")
    assert request.payload["headers"]["authorization"] == "[redacted]"
    assert request.payload["url"].endswith("/chat/completions")
    assert request.bytes > 500  # the raw body the SDK sent, tool schemas included


def test_a_recorded_frame_is_the_text_the_stdio_transport_writes():
    from mcp.shared.message import SessionMessage
    from mcp_types.jsonrpc import JSONRPCRequest, JSONRPCResponse

    from flow.capture.mcp import FrameTap
    from flow.capture.recorder import Recorder, json_bytes

    tap = FrameTap(Recorder())
    request = JSONRPCRequest(
        jsonrpc="2.0", id=7, method="tools/call", params={"name": "get_weather", "arguments": {"city": "北京"}}
    )
    response = JSONRPCResponse(
        jsonrpc="2.0",
        id=7,
        result={"content": [{"type": "text", "text": "晴 25°C"}], "odd": [float("inf"), 1e300, 10**30, None]},
    )
    tap.outgoing(SessionMessage(request))
    tap.incoming(SessionMessage(response))
    for hop, frame in zip(tap.recorder.hops, [request, response], strict=True):
        wire = frame.model_dump_json(by_alias=True, exclude_unset=True)
        assert json_bytes(hop.payload).decode() == wire and hop.bytes == len(wire.encode())
        assert hop.payload == json.loads(wire)
