"""Failures are hops, not crashes: each is recorded where it happens and the run ends cleanly."""

from __future__ import annotations

import anyio
import pytest

from flow import ModelConfig, RunOptions, ServerSpec, run, run_flow
from flow.capture.recorder import Recorder
from flow.servers.connect import open_session
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
    calls = [
        h
        for h in result.trace.hops
        if h.kind in ("mcp.request", "tool.invoke")
        and (h.payload.get("method") == "tools/call" or h.source == "app")  # not the server's report of its run
    ]
    assert len(calls) == 1 and result.answer is not None and "北京" in result.answer


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
    tool_result = next(h for h in result.trace.hops if h.kind == "tool.result" and h.target == "app")
    if mode == "mcp":
        frame = next(h for h in result.trace.hops if h.kind == "mcp.response" and h.step == 7)
        assert frame.payload["result"]["isError"] is True
        assert tool_result.payload["result"]["isError"] is True
    else:
        assert tool_result.payload["isError"] is True
    assert "No weather data for '火星'" in _tool_messages(result)[0]["content"]
    assert result.answer is not None and "返回了错误" in result.answer  # the mock model read the error it was sent back


def test_an_unknown_tool_is_a_jsonrpc_error_from_the_server():
    result = run_flow_sync(model="mock-wrong-tool")
    assert result.ok
    err = next(h for h in result.trace.hops if h.kind == "mcp.error")
    assert (err.step, err.source, err.target) == (7, "mcp_server", "mcp_client")
    assert err.payload["error"]["code"] == -32602 and "get_current_weather" in err.payload["error"]["message"]
    assert "JSON-RPC error -32602" in _tool_messages(result)[0]["content"]
    assert result.answer is not None and "北京今天晴" in result.answer  # the model recovered with the right name


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
    assert result.error is not None and words.lower() in result.error.lower() and "\n" not in result.error
    err = next(h for h in result.trace.hops if h.kind == "llm.error")
    assert err.payload["status"] == status and err.step == 3
    assert result.trace.hops[-1].kind == "error" and result.trace.meta.outcome == "error"


def test_model_timeout_ends_the_run():
    result = run_flow_sync(model="mock-slow", timeout_s=0.3)
    assert result.error is not None and "did not answer within 0.3 s" in result.error
    err = next(h for h in result.trace.hops if h.kind == "llm.error")
    assert err.payload["error"] == "deadline"  # the call's total time ran out before the per-read timeout could


def test_unreachable_model_endpoint_is_a_clear_error():
    from flow import ModelConfig, RunOptions

    # Port 9 on loopback: nothing listens there, so the connection is refused at once.
    result = run(
        "北京今天天气怎么样？",
        options=RunOptions(transport="memory"),
        model=ModelConfig(backend="openai", model="gpt-x", base_url="http://127.0.0.1:9/v1", api_key="sk-x"),
    )
    assert result.error is not None and "cannot reach the model endpoint at http://127.0.0.1:9/v1" in result.error
    assert any(h.kind == "llm.error" for h in result.trace.hops)


def test_a_server_that_dies_mid_call_ends_the_run_with_its_stderr():
    result = run_flow_sync(transport="stdio", server_fault="die")
    assert result.error is not None and "closed the connection during tools/call get_weather" in result.error
    err = next(h for h in result.trace.hops if h.kind == "error" and h.step == 7)
    assert err.source == "mcp_server"
    assert kinds(result.trace.hops)[-1] == "error"


QUESTION = "北京今天天气怎么样？"


class _Escapes(BaseException):
    """An exception the SDK's handlers do not turn into an error answer: it ends the server's run."""


def _server_that_escapes():
    from mcp.server import MCPServer

    server = MCPServer("ends-badly")

    @server.tool()
    async def get_weather(city: str) -> str:
        """The weather."""
        raise _Escapes("its own run ended")

    return server


def test_an_in_process_server_whose_run_fails_is_a_closed_connection_and_nothing_else():
    async def go():
        rec = Recorder()
        spec = ServerSpec(transport="memory", server=_server_that_escapes())
        async with open_session(spec, era="handshake", recorder=rec) as session:
            options, model = RunOptions(transport="memory"), ModelConfig(model="mock")
            return await run_flow(QUESTION, options=options, model=model, recorder=rec, session=session)

    result = anyio.run(go)
    assert not result.ok
    assert result.error == "the in-process MCP server stopped during tools/call get_weather: its own run ended"
    assert any(h.kind == "error" and h.step == 7 and h.source == "mcp_server" for h in result.trace.hops)


def test_a_server_that_hangs_times_out():
    result = run_flow_sync(transport="stdio", server_fault="hang", mcp_timeout_s=3)
    assert result.error is not None and "did not answer tools/call get_weather within 3 s" in result.error
    cancel = [
        h
        for h in result.trace.hops
        if h.payload and isinstance(h.payload, dict) and h.payload.get("method") == "notifications/cancelled"
    ]
    assert len(cancel) == 1  # the client told the server it gave up, and that frame is in the trace


def test_hitting_the_round_limit_is_recorded():
    result = run_flow_sync(question="北京今天天气怎么样？给我一个出行建议", max_rounds=1)
    assert result.error is not None and "still asked for tools after 1 tool round " in result.error
    assert result.trace.hops[-1].kind == "error"
    assert result.trace.meta.stats.get("model_calls") == 2


def test_max_rounds_counts_tool_rounds_and_still_gets_the_answer():
    one = run_flow_sync(max_rounds=1)
    assert one.ok and one.trace.meta.stats.get("model_calls") == 2
    two = run_flow_sync(question="北京今天天气怎么样？给我一个出行建议", max_rounds=2)
    assert two.ok and two.trace.meta.stats.get("model_calls") == 3


def test_every_error_code_is_worded_in_both_languages_in_one_table():
    from typing import get_args

    from flow.text.errors import _LINES, ErrorCode

    assert set(_LINES) == set(get_args(ErrorCode))
    assert all(len(pair) == 2 and all(pair) for pair in _LINES.values())


@pytest.mark.parametrize(
    ("code", "params", "en", "zh"),
    [
        (
            "mcp_only",
            {},
            "resources and prompts are MCP features; use --mode mcp to read or fetch them",
            "资源和提示模板是 MCP 的功能；请使用 MCP 模式读取或获取它们",
        ),
        (
            "tool_call_error",
            {"name": "echo", "code": -32602, "message": "Unknown tool: echo"},
            "the MCP server answered tools/call echo with error -32602: Unknown tool: echo",
            "MCP 服务器对 tools/call echo 返回错误 -32602：Unknown tool: echo",
        ),
        (
            "mcp_error",
            {"code": -32601, "message": "Method not found"},
            "the MCP server answered with error -32601: Method not found",
            "MCP 服务器返回错误 -32601：Method not found",
        ),
        (
            "max_rounds",
            {"rounds": 2},
            "stopped: the model still asked for tools after 2 tool rounds (raise --max-rounds, or check the tools' answers)",
            "已停止：经过 2 轮工具调用后，模型仍在请求工具（可提高最多轮数，或检查工具的返回）",
        ),
        (
            "model_http",
            {"status": 400, "detail": "Unknown parameter: 'stream_options'.", "option": "stream_options"},
            "the model endpoint answered HTTP 400: Unknown parameter: 'stream_options'. (this provider does not accept the "
            "request option `stream_options`: drop it (leave out --stream; in the app, turn off streaming) and run again)",
            "模型接口返回 HTTP 400：Unknown parameter: 'stream_options'.（这个服务商不接受请求参数 `stream_options`：请去掉它"
            "（命令行去掉 --stream；应用中关闭流式）后重试）",
        ),
        (
            "arguments_not_text",
            {"where": "choices[0].message.tool_calls", "i": 0, "name": "get_weather"},
            "the model endpoint's answer cannot be read: choices[0].message.tool_calls[0] (get_weather) has arguments that "
            "are not a string",
            "模型接口的回答无法读取：choices[0].message.tool_calls[0]（get_weather）的 arguments 不是字符串",
        ),
    ],
)
def test_an_error_is_a_code_and_parameters_worded_in_one_place(code, params, en, zh):
    import pickle

    from flow.text.errors import FlowError

    error = FlowError(code, **params)
    assert (str(error), error.line("en"), error.line("zh")) == (en, en, zh)
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), again.code, again.params, again.lines) == (FlowError, code, params, error.lines)


def test_the_cli_and_the_app_say_the_same_line_for_a_failed_run():
    from flow.text.errors import FlowError

    result = run_flow_sync(question="北京今天天气怎么样？给我一个出行建议", max_rounds=1)
    said = FlowError("max_rounds", rounds=1)
    assert (result.error, result.error_in("en"), result.error_in("zh")) == (str(said), said.line("en"), said.line("zh"))
    assert result.trace.meta.error_zh == said.line("zh")


def test_a_tool_the_server_refuses_in_a_direct_call_is_one_line_in_both_languages():
    import anyio

    from flow.engine.loop import call_server_tool
    from flow.servers.spec import ServerSpec

    result, called = anyio.run(lambda: call_server_tool(ServerSpec(transport="memory"), "no_such_tool", {}))
    assert called is None and result.error is not None
    assert result.error.startswith("the MCP server answered tools/call no_such_tool with error -32602: ")
    zh = result.error_in("zh")
    assert zh is not None and zh.startswith("MCP 服务器对 tools/call no_such_tool 返回错误 -32602：")
    assert result.trace.hops[-1].payload == {"error": "FlowAbort", "message": result.error}


def test_resources_in_direct_mode_end_the_run_with_one_line():
    result = run_flow_sync(mode="direct", resources=("weather://cities",))
    assert result.error == "resources and prompts are MCP features; use --mode mcp to read or fetch them"
    assert result.error_in("zh") == "资源和提示模板是 MCP 的功能；请使用 MCP 模式读取或获取它们"


def test_the_failure_shown_where_the_answer_would_be_is_chinese_in_the_chinese_interface():
    from flow.views.labels import short_label

    result = run_flow_sync(server_fault="hang", mcp_timeout_s=0.5)
    assert not result.ok
    failed = result.trace.hops[-1]
    assert failed.kind == "error" and failed.step == 10
    assert failed.payload["message_zh"] == result.trace.meta.error_zh
    assert short_label(failed, 400, lang="zh") == result.trace.meta.error_zh
    assert short_label(failed, 400, lang="en") == result.error
