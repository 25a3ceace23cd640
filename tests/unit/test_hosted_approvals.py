"""A hosted run answers at most `MAX_APPROVALS` approval requests: each answered request and its answer go back to
the provider in every later request, and the openai SDK reads a request's whole input through its types, so a
provider asking for thousands (issue 43: a replay of 20,000 took 152 s) stops the run in one line, in both
languages, as an error hop right after the answer that asked, recording and replay alike; the SDK is not called
again. The requests are counted at the model transport the SDK is given, not timed."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx2

from bench.hosted import approvals_recording
from flow import ModelConfig, RunOptions, RunResult
from flow.backends.replay import replay
from flow.engine.options import MAX_APPROVALS
from flow.runs import run_flow
from flow.text.errors import error_line

QUESTION = "北京今天天气怎么样？"
URL = "https://mcp.example.com/mcp"


def _asking(counts: list[int]) -> dict[str, Any]:
    """A Responses answer asking approval for `counts[0]` calls (`counts`: the rounds still to come), or with none
    left, the final text."""
    output: list[dict[str, Any]]
    if not counts:
        text = {"type": "output_text", "text": "北京今天晴。", "annotations": []}
        output = [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [text]}]
    else:
        output = [
            {"type": "mcp_approval_request", "id": f"mcpr_{len(counts)}_{i}", "server_label": "mcp"}
            | {"name": "get_weather", "arguments": '{"city":"北京"}'}
            for i in range(counts[0])
        ]
    response = {"id": "resp_1", "object": "response", "created_at": 1, "model": "m", "status": "completed"}
    return response | {"output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}


def _run(counts: list[int], **options: Any) -> tuple[RunResult, list[dict[str, Any]]]:
    """A hosted run against a provider asking `counts` approvals round by round; the request bodies it was sent."""
    sent: list[dict[str, Any]] = []

    async def answer(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(await request.aread()))
        return httpx2.Response(200, json=_asking(counts[len(sent) - 1 :]))

    model = ModelConfig(backend="openai", model="m", base_url="http://gateway.test/v1", api_key="k")
    chosen = RunOptions(mode="hosted", api="responses", server_url=URL, require_approval="always", **options)

    async def main() -> RunResult:
        return await run_flow(QUESTION, options=chosen, model=model, model_transport=httpx2.MockTransport(answer))

    return anyio.run(main), sent


def _answered(body: dict[str, Any]) -> int:
    return sum(1 for i in body["input"] if isinstance(i, dict) and i.get("type") == "mcp_approval_response")


def test_an_answer_asking_more_approvals_than_the_app_gives_stops_the_run_before_the_sdk_is_called_again() -> None:
    n = MAX_APPROVALS + 1
    result, sent = _run([n])
    assert len(sent) == 1  # no request carried n answers back through the SDK
    assert result.error == error_line("too_many_approvals", "en", count=n, limit=MAX_APPROVALS)
    assert result.trace.meta.error_zh == error_line("too_many_approvals", "zh", count=n, limit=MAX_APPROVALS)
    assert [h.kind for h in result.trace.hops][-2:] == ["llm.response", "error"]  # where it happened
    assert result.error is not None and "\n" not in result.error  # one line


def test_the_limit_counts_every_round_of_one_run() -> None:
    half = MAX_APPROVALS // 2 + 1
    result, sent = _run([half, half], max_rounds=5)
    assert len(sent) == 2 and _answered(sent[1]) == half  # the first round's were answered
    assert result.error == error_line("too_many_approvals", "en", count=2 * half, limit=MAX_APPROVALS)


def test_a_run_within_the_limit_answers_every_request() -> None:
    result, sent = _run([MAX_APPROVALS - 1, 1], max_rounds=5)
    assert result.error is None and result.answer == "北京今天晴。"
    assert [_answered(b) for b in sent] == [0, MAX_APPROVALS - 1, MAX_APPROVALS]


def test_a_replay_of_a_recording_past_the_limit_stops_at_the_answer_that_asked() -> None:
    n = 2000
    result = replay(approvals_recording(n))
    assert result.error == error_line("too_many_approvals", "en", count=n, limit=MAX_APPROVALS)
    replayed = result.trace.meta.replay
    assert replayed is not None and replayed["served"] == 1 and replayed["recorded_model_exchanges"] == 2
    kinds = [h.kind for h in result.trace.hops]
    assert kinds.count("llm.request") == 1 and "error" in kinds


def test_a_replay_of_a_recording_within_the_limit_matches_it() -> None:
    result = replay(approvals_recording(MAX_APPROVALS))
    assert result.error is None and result.trace.meta.replay is not None
    assert result.trace.meta.replay["served"] == 2 and not result.trace.meta.replay["diverged"]
