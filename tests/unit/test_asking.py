"""A server that asks, through the real SDK over every transport (in memory, stdio to `python -m weather_demo --asks`,
Streamable HTTP to the demo server on a loopback socket) in both protocol eras: elicitation (accept, decline,
cancel), sampling and roots. 2025-11-25: the server's requests mid tools/call and the client's answers, paired by
id; 2026-07-28: input-required results and the call made again under a new id with the answers and the echoed
request state, grouped into one logical call by `flow.trace.rounds`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio
import pytest

from flow.engine.options import HOST_CAPABILITIES, RunOptions, RunResult
from flow.runs import run_flow
from flow.servers import builtin
from flow.servers.spec import TOKEN_ENV, ServerSpec
from flow.trace.model import Hop, as_dict
from flow.trace.rounds import call_rounds, input_required
from flow.trace.steps import Step

HTTP_TOKEN = "asking-test-token-5e4d3c2b1a"
NOTES = builtin.demo_roots()[0]


@dataclass(frozen=True)
class Case:
    question: str
    method: str  # what the server asks
    tool: str
    answers: tuple[tuple[str, str], ...] = ()
    action: str = "accept"
    said: str = ""  # what the answer must hold


CASES = {
    "accept": Case("我这里今天天气怎么样？", "elicitation/create", "weather_here", (("city", "上海"),), said="多云"),
    "decline": Case("我这里今天天气怎么样？", "elicitation/create", "weather_here", action="decline", said="(decline)"),
    "cancel": Case("我这里今天天气怎么样？", "elicitation/create", "weather_here", action="cancel", said="(cancel)"),
    "sampling": Case(
        "用一句话说说北京未来三天的天气", "sampling/createMessage", "forecast_in_words", said="北京未来3天"
    ),
    "roots": Case("北京有什么课堂笔记？", "roots/list", "class_notes", said="Beijing.md"),
}


def asked_run(case: Case, transport: Any, era: Any) -> RunResult:
    """One question on the demo server that asks, over `transport`, in `era`."""

    async def go() -> RunResult:
        common: dict[str, Any] = {
            "asks": True,
            "era": era,
            "answers": case.answers,
            "elicit_action": case.action,
            "elicit_timeout_s": 10.0,
        }
        if transport != "http":
            options = RunOptions.build(server=ServerSpec(transport=transport, asks=True), transport=transport, **common)
            return await run_flow(case.question, options=options)
        async with builtin.demo_over_http(HTTP_TOKEN, asks=True) as url:
            # A server reached by URL is not the one the run starts, so the host's capabilities and roots are named.
            options = RunOptions.build(
                server=ServerSpec(url=url, transport="http"),
                host_capabilities=HOST_CAPABILITIES,
                roots=[NOTES],
                **common,
            )
            return await run_flow(case.question, options=options)

    return anyio.run(go)


def frames(hops: list[Hop], source: str, *, method: str | None = None) -> list[Hop]:
    return [
        h
        for h in hops
        if h.kind.startswith("mcp.")
        and h.source == source
        and (method is None or as_dict(h.payload).get("method") == method)
    ]


def calls_of(hops: list[Hop]) -> list[Hop]:
    return frames(hops, "mcp_client", method="tools/call")


def reply_to(hops: list[Hop], request: Hop) -> Hop:
    """The answer to `request`: the frame the other side sent with its id."""
    return next(
        h
        for h in hops
        if h.kind in ("mcp.response", "mcp.error")
        and h.source == request.target
        and h.jsonrpc_id == request.jsonrpc_id
        and h.seq > request.seq
    )


def check_answer_given(hops: list[Hop], case: Case, asked: dict[str, Any], answered: dict[str, Any]) -> None:
    """What the host did with the question, whoever carried it: the user's hops, the model's hops, the roots."""
    if case.method == "elicitation/create":
        question, reply = [h for h in hops if h.kind == "user.input"]
        assert (question.source, question.target, question.direction) == ("app", "user", "request")
        assert (reply.source, reply.target, reply.direction) == ("user", "app", "response")
        assert question.payload["asked"] == reply.payload["asked"] == asked
        assert question.payload["mode"] == "form" and "city" in question.payload["requested_schema"]["properties"]
        assert question.step == reply.step == 6
        assert reply.payload["action"] == answered["action"] == case.action
        if case.action == "accept":
            assert reply.payload["content"] == answered["content"] == {"city": "上海"}
        else:
            assert "content" not in reply.payload and "content" not in answered
        assert not [h for h in hops if h.kind in ("llm.request", "llm.response") and "for_server" in h.payload]
    elif case.method == "sampling/createMessage":
        request, response = [h for h in hops if h.kind in ("llm.request", "llm.response") and "for_server" in h.payload]
        assert (request.source, request.target, response.source, response.target) == (
            "mcp_client",
            "model",
            "model",
            "mcp_client",
        )
        assert request.payload["for_server"] == response.payload["for_server"] == asked
        assert request.step == response.step == 6
        said = response.payload["body"]["choices"][0]["message"]["content"]
        assert answered["content"]["text"] == said and said in (answer_text(hops) or "")
        sent = request.payload["body"]
        assert sent["max_tokens"] == 120 and "Forecast data" in sent["messages"][-1]["content"]
        assert not [h for h in hops if h.kind == "user.input"]
    else:
        assert [r["uri"] for r in answered["roots"]] == [f"file://{NOTES}"]
        assert not [h for h in hops if h.kind == "user.input"]


def answer_text(hops: list[Hop]) -> str | None:
    return next((h.payload.get("content") for h in hops if h.kind == "app.answer"), None)


def check_handshake(hops: list[Hop], case: Case) -> None:
    """2025-11-25: one tools/call, the server's request in the middle of it, the client's answer with its id."""
    (call,) = calls_of(hops)
    (asked,) = frames(hops, "mcp_server", method=case.method)
    assert asked.kind == "mcp.request" and asked.target == "mcp_client" and asked.step == 6
    answered = reply_to(hops, asked)
    assert answered.kind == "mcp.response" and answered.source == "mcp_client" and answered.step == 6
    result = reply_to(hops, call)
    assert call.seq < asked.seq < answered.seq < result.seq  # asked and answered while the call was open
    assert "resultType" not in result.payload["result"] or result.payload["result"]["resultType"] == "complete"
    assert not call_rounds(hops).calls  # one round: nothing to group
    check_answer_given(hops, case, {"method": case.method, "jsonrpc_id": asked.jsonrpc_id}, answered.payload["result"])


def check_modern(hops: list[Hop], case: Case) -> None:
    """2026-07-28: no request from the server; an input-required result, the answers, the call again under a new id
    with the answers and the state echoed; one logical call in two rounds."""
    assert not [h for h in hops if h.kind == "mcp.request" and h.source == "mcp_server"]
    first, again = calls_of(hops)
    needs, done = reply_to(hops, first), reply_to(hops, again)
    assert input_required(needs) and not input_required(done)
    result = needs.payload["result"]
    ((key, wanted),) = result["inputRequests"].items()
    assert wanted["method"] == case.method
    params = again.payload["params"]
    assert again.jsonrpc_id != first.jsonrpc_id
    assert "requestState" not in first.payload["params"] and params["requestState"] == result["requestState"]
    assert params["name"] == first.payload["params"]["name"] == case.tool
    assert list(params["inputResponses"]) == [key]
    assert first.seq < needs.seq < again.seq < done.seq
    rounds = call_rounds(hops)
    (logical,) = rounds.calls
    assert logical.requests == [first, again] and logical.replies == [needs, done] and logical.finished
    assert [rounds.by_seq[h.seq][1] for h in (first, needs, again, done)] == [1, 1, 2, 2]
    assert not rounds.unpaired
    check_answer_given(hops, case, {"method": case.method, "key": key}, params["inputResponses"][key])


@pytest.fixture(autouse=True)
def _token(monkeypatch):
    monkeypatch.setenv(TOKEN_ENV, HTTP_TOKEN)


@pytest.mark.parametrize("era", ["handshake", "modern"])
@pytest.mark.parametrize("transport", ["memory", "stdio", "http"])
@pytest.mark.parametrize("name", list(CASES))
def test_a_server_that_asks_is_answered_and_recorded(name, transport, era):
    case = CASES[name]
    result = asked_run(case, transport, era)
    assert result.ok, result.error
    hops = result.trace.hops
    assert result.trace.meta.settings["era"] == era
    (check_handshake if era == "handshake" else check_modern)(hops, case)
    assert case.said in (result.answer or "")
    (tool,) = [h for h in hops if h.kind == "tool.result"]
    assert tool.step == 7


def frame_hop(seq: int, source: Any, payload: dict[str, Any]) -> Hop:
    kind = "mcp.request" if "method" in payload else "mcp.response"
    target = "mcp_server" if source == "mcp_client" else "mcp_client"
    return Hop(
        seq=seq,
        step=Step.CALL_TOOL,
        phase=None,
        source=source,
        target=target,
        kind=kind,
        payload=payload,
        jsonrpc_id=payload["id"],
    )


def call(seq: int, rid: int, state: str | None = None) -> Hop:
    params: dict[str, Any] = {"name": "weather_here", "arguments": {}}
    if state is not None:
        params |= {"requestState": state, "inputResponses": {"k": {"action": "accept", "content": {"city": "上海"}}}}
    return frame_hop(seq, "mcp_client", {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})


def needs_input(seq: int, rid: int, state: str) -> Hop:
    ask = {"k": {"method": "elicitation/create", "params": {"message": "Which city?", "requestedSchema": {}}}}
    result = {"resultType": "input_required", "inputRequests": ask, "requestState": state}
    return frame_hop(seq, "mcp_server", {"jsonrpc": "2.0", "id": rid, "result": result})


def done(seq: int, rid: int) -> Hop:
    result = {"content": [{"type": "text", "text": "ok"}], "isError": False}
    return frame_hop(seq, "mcp_server", {"jsonrpc": "2.0", "id": rid, "result": result})


def test_two_results_giving_the_same_state_leave_the_retry_unpaired():
    """Two calls both answered with input-required and the same request state: a retry naming it could continue
    either, so it continues neither."""
    hops = [needs_input(2, 1, "S"), needs_input(4, 2, "S"), call(5, 3, "S"), done(6, 3)]
    hops = [call(1, 1), hops[0], call(3, 2), *hops[1:]]
    rounds = call_rounds(hops)
    assert [c.requests for c in rounds.calls] == [[hops[0]], [hops[2]]]
    assert [c.finished for c in rounds.calls] == [False, False]
    assert rounds.unpaired == [hops[4]]
    assert hops[4].seq not in rounds.by_seq and hops[5].seq not in rounds.by_seq


def test_a_retry_naming_an_unknown_state_is_unpaired_and_the_known_one_is_paired():
    hops = [
        call(1, 1),
        needs_input(2, 1, "S1"),
        call(3, 2, "nobody-gave-this"),
        done(4, 2),
        call(5, 3, "S1"),
        done(6, 3),
    ]
    rounds = call_rounds(hops)
    (logical,) = rounds.calls
    assert logical.requests == [hops[0], hops[4]] and logical.replies == [hops[1], hops[5]] and logical.finished
    assert rounds.unpaired == [hops[2]]
    assert {seq: r for seq, (_, r) in rounds.by_seq.items()} == {1: 1, 2: 1, 5: 2, 6: 2}


def test_the_same_state_twice_from_one_call_pairs_only_the_first_retry():
    """A state is spent once: a second retry naming the state the first already continued is not guessed to be a
    third round."""
    hops = [call(1, 1), needs_input(2, 1, "S"), call(3, 2, "S"), done(4, 2), call(5, 3, "S"), done(6, 3)]
    rounds = call_rounds(hops)
    (logical,) = rounds.calls
    assert logical.requests == [hops[0], hops[2]]
    assert rounds.unpaired == [hops[4]]
