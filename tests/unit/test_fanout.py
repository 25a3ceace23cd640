"""One provider answer cannot fan out past the run's deadlines: a turn that asks for more tool calls than the app
runs at once is refused whole, before any tools/call; a hosted answer reporting more MCP exchanges than the app
reads is refused before it is read. Each is one line, in the CLI's and the page's words, and a hop where it
happened (after the reply that asked), through the real SDKs."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2
import pytest

from flow import ModelConfig, RunOptions, RunResult
from flow.engine.options import MAX_CALLS_PER_TURN, MAX_REPORTED_ITEMS
from flow.runs import run_flow
from flow.text.errors import error_line

QUESTION = "北京今天天气怎么样？"


def _run(reply: dict[str, Any], **options: Any) -> RunResult:
    async def answer(request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        return httpx2.Response(200, json=reply)

    options.setdefault("transport", "memory")
    model = ModelConfig(backend="openai", model="m", base_url="http://gateway.test/v1", api_key="k")

    async def main() -> RunResult:
        return await run_flow(
            QUESTION, options=RunOptions(**options), model=model, model_transport=httpx2.MockTransport(answer)
        )

    return anyio.run(main)


def _completion(n: int) -> dict[str, Any]:
    calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"北京"}'}}
        for i in range(n)
    ]
    message = {"role": "assistant", "content": None, "tool_calls": calls}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    return {"id": "c1", "object": "chat.completion", "created": 1, "model": "m", "choices": [choice]}


@pytest.mark.parametrize("mode", ["mcp", "direct"])
def test_a_turn_with_more_calls_than_the_app_runs_is_refused_before_any_call(mode: str) -> None:
    n = MAX_CALLS_PER_TURN + 1
    result = _run(_completion(n), mode=mode)
    trace = result.trace
    assert result.error == error_line("too_many_calls", "en", count=n, limit=MAX_CALLS_PER_TURN)
    assert trace.meta.error_zh == error_line("too_many_calls", "zh", count=n, limit=MAX_CALLS_PER_TURN)
    calls = [h for h in trace.hops if h.kind in ("tool.invoke", "mcp.request") and "tools/call" in h.summary]
    assert not calls and not any(h.kind == "tool.invoke" for h in trace.hops)
    kinds = [h.kind for h in trace.hops]
    assert kinds[-2:] == ["llm.response", "error"], kinds  # drawn right after the reply that asked


def test_a_turn_at_the_limit_runs_every_call() -> None:
    result = _run(_completion(3), mode="direct", max_rounds=1)
    assert sum(h.kind == "tool.invoke" for h in result.trace.hops) == 3


def _hosted_report(n: int) -> dict[str, Any]:
    calls = [
        {
            "type": "mcp_call",
            "id": f"mcp_{i}",
            "server_label": "mcp",
            "name": "get_weather",
            "arguments": '{"city":"北京"}',
            "output": "晴",
        }
        for i in range(n)
    ]
    text = {"type": "output_text", "text": "北京今天晴。", "annotations": []}
    message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [text]}
    response = {"id": "resp_1", "object": "response", "created_at": 1, "model": "m", "status": "completed"}
    return response | {"output": [*calls, message], "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}


def test_a_hosted_answer_reporting_more_than_the_app_reads_is_refused_unread() -> None:
    n = MAX_REPORTED_ITEMS + 1
    result = _run(_hosted_report(n), mode="hosted", api="responses", server_url="https://mcp.example.com/mcp")
    trace = result.trace
    assert result.error == error_line("too_many_reported", "en", count=n, limit=MAX_REPORTED_ITEMS)
    assert not any(h.kind == "mcp.reported" for h in trace.hops)
    assert [h.kind for h in trace.hops][-2:] == ["llm.response", "error"]
    assert len(trace.hops[-2].payload["body"]["output"]) == n + 1  # the answer is kept as it came


def test_a_hosted_answer_within_the_limit_is_read() -> None:
    result = _run(_hosted_report(2), mode="hosted", api="responses", server_url="https://mcp.example.com/mcp")
    assert result.error is None and sum(h.kind == "mcp.reported" for h in result.trace.hops) >= 2
