"""The bounds on a server that asks: a question to the user nobody answers is cancelled on time, a sampling request
too large is refused, and a server that asks too often is told no; each is a hop and one line."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp_types import CreateMessageRequestParams, ErrorData, SamplingMessage, TextContent

from flow.capture.recorder import Recorder
from flow.engine.host import MAX_ASKS, MAX_SAMPLING_BYTES, MAX_SAMPLING_TOKENS, Answer, GivenAnswers, Host, Question
from flow.engine.options import RunOptions
from flow.runs import run_flow
from flow.servers.spec import ServerSpec


class NeverAnswers:
    """A user who never answers the form."""

    async def __call__(self, question: Question) -> Answer:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_a_question_never_answered_is_cancelled_on_time(era):
    options = RunOptions.build(
        server=ServerSpec(transport="memory", asks=True), asks=True, transport="memory", era=era, elicit_timeout_s=0.3
    )

    async def go() -> Any:
        with anyio.fail_after(10):
            return await run_flow("我这里今天天气怎么样？", options=options, answerer=NeverAnswers())

    result = anyio.run(go)
    assert result.ok, result.error  # the tool hears "cancel" and says so; the run goes on
    question, answer = [h for h in result.trace.hops if h.kind == "user.input"]
    assert answer.payload["action"] == "cancel" and answer.payload["timed_out"] == 0.3
    assert "no answer within 0.3 s" in answer.summary
    assert 250 <= answer.t_end_ms - question.t_start_ms < 5000
    assert "(cancel)" in (result.answer or "")


class _Context:
    def __init__(self, request_id: int) -> None:
        self.request_id = request_id


def _sampling(max_tokens: int, text: str = "hi") -> CreateMessageRequestParams:
    return CreateMessageRequestParams(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=text))], max_tokens=max_tokens
    )


@pytest.mark.parametrize(
    ("params", "said"),
    [
        (_sampling(MAX_SAMPLING_TOKENS + 1), f"the host allows {MAX_SAMPLING_TOKENS}"),
        (_sampling(100, "x" * MAX_SAMPLING_BYTES), f"the host sends at most {MAX_SAMPLING_BYTES}"),
    ],
    ids=["tokens", "bytes"],
)
def test_a_sampling_request_too_large_is_refused_with_an_error_hop(params, said):
    rec = Recorder()
    host = Host(rec, GivenAnswers({}), [], 1.0)  # no model: a refused request never reaches it
    answered = anyio.run(host.sampling, _Context(7), params)  # type: ignore[arg-type]
    assert isinstance(answered, ErrorData) and said in answered.message
    (hop,) = rec.hops
    assert hop.kind == "error" and hop.payload["error"] == "refused"
    assert hop.payload["asked"] == {"method": "sampling/createMessage", "jsonrpc_id": 7}
    assert said in hop.summary and "\n" not in hop.summary


def test_a_server_that_asks_too_often_is_told_no():
    rec = Recorder()
    host = Host(rec, GivenAnswers({}), ["/tmp"], 1.0, modern=True)

    async def ask(n: int) -> Any:
        return await host.list_roots(_Context(n))  # type: ignore[arg-type]

    answers = [anyio.run(ask, n) for n in range(MAX_ASKS + 2)]
    assert all(not isinstance(a, ErrorData) for a in answers[:MAX_ASKS])
    assert all(isinstance(a, ErrorData) for a in answers[MAX_ASKS:])
    refused = [h for h in rec.hops if h.kind == "error"]
    assert len(refused) == 2 and refused[0].payload["asked"] == {"method": "roots/list", "key": str(MAX_ASKS)}
    assert f"more than {MAX_ASKS} times" in refused[0].summary
