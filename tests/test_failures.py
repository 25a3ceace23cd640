"""Failures are hops, not crashes: each is recorded where it happens and the run ends cleanly."""

from __future__ import annotations

import pytest

from helpers import kinds, model_requests, run_flow_sync


def _tool_messages(result):
    return [m for m in model_requests(result.trace.hops)[-1]["messages"] if m["role"] == "tool"]


@pytest.mark.parametrize("mode", ["mcp", "direct"])
def test_arguments_that_are_not_json_go_back_to_the_model_as_the_tool_message(mode):
    result = run_flow_sync(model="mock-bad-json", mode=mode)
    assert result.ok, result.error
    err = next(h for h in result.trace.hops if h.kind == "error")
    assert (err.step, err.source) == (5, "app") and "not valid JSON" in err.payload["error"]
    first_tool_msg = _tool_messages(result)[0]
    assert first_tool_msg["tool_call_id"] == err.tool_call_id
    assert first_tool_msg["content"].startswith("Error: arguments for get_weather are not valid JSON")
    # The broken call never reached the server; the corrected one did.
    calls = [h for h in result.trace.hops if h.kind in ("mcp.request", "tool.invoke")
             and (h.payload.get("method") == "tools/call" or h.kind == "tool.invoke")]
    assert len(calls) == 1 and "北京" in result.answer


def test_arguments_that_fail_the_schema_are_caught_by_the_app_in_strict_mode():
    result = run_flow_sync(model="mock-bad-args", strict=True)
    assert result.ok
    err = next(h for h in result.trace.hops if h.kind == "error")
    assert err.step == 5 and "missing required field 'city'" in err.payload["error"]


def test_arguments_that_fail_the_schema_are_caught_by_the_server_otherwise():
    result = run_flow_sync(model="mock-bad-args")
    assert result.ok
    first = next(h for h in result.trace.hops if h.kind == "mcp.response" and h.step == 7)
    assert first.payload["result"]["isError"] is True
    assert "city" in first.payload["result"]["content"][0]["text"]


@pytest.mark.parametrize("mode", ["mcp", "direct"])
def test_a_tool_that_raises_is_an_error_result_the_model_reads(mode):
    result = run_flow_sync(question="火星今天天气怎么样？", mode=mode)
    assert result.ok
    tool_result = next(h for h in result.trace.hops if h.kind == "tool.result" and h.step == 7)
    if mode == "mcp":
        frame = next(h for h in result.trace.hops if h.kind == "mcp.response" and h.step == 7)
        assert frame.payload["result"]["isError"] is True
        assert tool_result.payload["result"]["isError"] is True
    else:
        assert tool_result.payload["isError"] is True
    assert "No weather data for '火星'" in _tool_messages(result)[0]["content"]
    assert "失败" in result.answer


def test_an_unknown_tool_is_a_jsonrpc_error_from_the_server():
    result = run_flow_sync(model="mock-wrong-tool")
    assert result.ok
    err = next(h for h in result.trace.hops if h.kind == "mcp.error")
    assert (err.step, err.source, err.target) == (7, "mcp_server", "mcp_client")
    assert err.payload["error"]["code"] == -32602 and "get_current_weather" in err.payload["error"]["message"]
    assert "JSON-RPC error -32602" in _tool_messages(result)[0]["content"]
    assert "北京今天晴" in result.answer  # the model recovered with the right name


def test_an_unknown_tool_in_direct_mode_is_an_error_result():
    result = run_flow_sync(model="mock-wrong-tool", mode="direct")
    assert result.ok
    res = next(h for h in result.trace.hops if h.kind == "tool.result")
    assert res.payload["isError"] is True and "Unknown tool" in res.payload["tool_message_content"]


@pytest.mark.parametrize(
    ("model", "status", "words"),
    [("mock-error-401", 401, "API key"), ("mock-error-429", 429, "rate limit"), ("mock-error-500", 500, "HTTP 500")],
)
def test_model_http_errors_end_the_run_with_one_line(model, status, words):
    result = run_flow_sync(model=model)
    assert not result.ok and words.lower() in result.error.lower() and "\n" not in result.error
    err = next(h for h in result.trace.hops if h.kind == "llm.error")
    assert err.payload["status"] == status and err.step == 3
    assert result.trace.hops[-1].kind == "error" and result.trace.meta.outcome == "error"


def test_model_timeout_ends_the_run():
    result = run_flow_sync(model="mock-slow", timeout_s=0.3)
    assert not result.ok and "did not answer within 0.3 s" in result.error
    err = next(h for h in result.trace.hops if h.kind == "llm.error")
    assert err.payload["error"] == "deadline"  # the call's total time ran out before the per-read timeout could


def test_unreachable_model_endpoint_is_a_clear_error():
    from flow import ModelConfig, RunOptions, run

    # Port 9 on loopback: nothing listens there, so the connection is refused at once.
    result = run("北京今天天气怎么样？", options=RunOptions(transport="memory"),
                 model=ModelConfig(backend="openai", model="gpt-x", base_url="http://127.0.0.1:9/v1", api_key="sk-x"))
    assert not result.ok and "cannot reach the model endpoint at http://127.0.0.1:9/v1" in result.error
    assert any(h.kind == "llm.error" for h in result.trace.hops)


def test_a_server_that_dies_mid_call_ends_the_run_with_its_stderr():
    result = run_flow_sync(transport="stdio", server_fault="die")
    assert not result.ok and "closed the connection during tools/call get_weather" in result.error
    err = next(h for h in result.trace.hops if h.kind == "error" and h.step == 7)
    assert err.source == "mcp_server"
    assert kinds(result.trace.hops)[-1] == "error"


def test_a_server_that_hangs_times_out():
    result = run_flow_sync(transport="stdio", server_fault="hang", mcp_timeout_s=3)
    assert not result.ok and "did not answer tools/call get_weather within 3 s" in result.error
    cancel = [h for h in result.trace.hops if h.payload and isinstance(h.payload, dict)
              and h.payload.get("method") == "notifications/cancelled"]
    assert len(cancel) == 1  # the client told the server it gave up, and that frame is in the trace


def test_hitting_the_round_limit_is_recorded():
    result = run_flow_sync(question="北京今天天气怎么样？给我一个出行建议", max_rounds=1)
    assert not result.ok and "still asked for tools after 1 tool round " in result.error
    assert result.trace.hops[-1].kind == "error"
    assert result.trace.meta.stats["model_calls"] == 2


def test_max_rounds_counts_tool_rounds_and_still_gets_the_answer():
    one = run_flow_sync(max_rounds=1)
    assert one.ok and one.trace.meta.stats["model_calls"] == 2
    two = run_flow_sync(question="北京今天天气怎么样？给我一个出行建议", max_rounds=2)
    assert two.ok and two.trace.meta.stats["model_calls"] == 3
