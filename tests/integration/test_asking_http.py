"""The session beyond tools/call over Streamable HTTP: the demo server with its asking tools on a loopback socket
(uvicorn, in this process), reached by URL through the real SDK in both eras. A tool list that changes, a resource
subscription and its update, ping, a slow call the client gives up on; and a run whose server asked, recorded over
HTTP, replayed offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from flow.backends.replay import replay
from flow.backends.scripted import load_script
from flow.engine.model import ModelConfig
from flow.engine.options import HOST_CAPABILITIES, RunOptions, RunResult
from flow.runs import run_flow
from flow.servers import builtin
from flow.servers.spec import TOKEN_ENV, Era, ServerSpec
from flow.trace.files import load_trace, save_trace
from flow.trace.model import Hop, Trace, as_dict
from flow.trace.rounds import call_rounds
from flow.trace.steps import Step
from helpers import flow_cli, replay_report

HTTP_TOKEN = "asking-http-token-7c6b5a4d3e"
UNLOCK_THEN_ALERT = '[{"call": "unlock_alerts"}, {"call": "weather_alerts", "arguments": {"city": "上海"}}]'
SLOW = '{"call": "slow_report", "arguments": {"city": "北京"}}'
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"  # names, in _meta, the listen stream a change came on


@pytest.fixture(autouse=True)
def _token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, HTTP_TOKEN)  # the run reads a server's token from the environment


def http_run(script: str, *, era: Era, question: str = "上海有天气预警吗？", **options: Any) -> RunResult:
    """One scripted question on the demo server that asks, served over Streamable HTTP for this run alone."""

    async def go() -> RunResult:
        async with builtin.demo_over_http(HTTP_TOKEN, asks=True) as url:
            built = RunOptions.build(server=ServerSpec(url=url, transport="http"), era=era, **options)
            return await run_flow(question, options=built, model=ModelConfig.scripted(load_script(script)))

    return anyio.run(go)


def frames(result: RunResult, method: str, kind: str | None = None) -> list[Hop]:
    return [
        h
        for h in result.trace.hops
        if h.kind.startswith("mcp.") and (kind is None or h.kind == kind) and as_dict(h.payload).get("method") == method
    ]


def method_of(hop: Hop) -> Any:
    return as_dict(hop.payload).get("method")


def reply_to(result: RunResult, request: Hop) -> Hop:
    return next(
        h
        for h in result.trace.hops
        if h.kind in ("mcp.response", "mcp.error") and h.source == request.target and h.jsonrpc_id == request.jsonrpc_id
    )


def offered(request: Hop) -> list[str]:
    return [t["function"]["name"] for t in request.payload["body"]["tools"]]


def listened(result: RunResult, wants: dict[str, Any]) -> Hop:
    """2026-07-28: the one subscriptions/listen request, asking for `wants`, acknowledged on its own stream before
    the tools are listed."""
    [listen] = frames(result, "subscriptions/listen", "mcp.request")
    assert (listen.source, listen.target, listen.step) == ("mcp_client", "mcp_server", Step.LIST_TOOLS)
    assert {k: v for k, v in listen.payload["params"]["notifications"].items() if k in wants} == wants
    [ack] = frames(result, "notifications/subscriptions/acknowledged")
    assert ack.source == "mcp_server" and ack.payload["params"]["_meta"][SUBSCRIPTION_ID] == listen.jsonrpc_id
    assert listen.seq < ack.seq < frames(result, "tools/list", "mcp.request")[0].seq
    return listen


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_a_tool_added_mid_run_is_announced_and_listed_again(era: Era) -> None:
    result = http_run(UNLOCK_THEN_ALERT, era=era, listen=era == "modern")
    assert result.ok, result.error
    requests = [h for h in result.trace.hops if h.kind == "llm.request"]
    assert "weather_alerts" not in offered(requests[0]) and "weather_alerts" in offered(requests[1])
    [unlock, _] = frames(result, "tools/call", "mcp.request")
    [notice] = frames(result, "notifications/tools/list_changed")
    # The notice rides a stream of the server's own (2025-11-25: its event stream; 2026-07-28: the listen stream),
    # not the call's answer: it comes while the call runs or as its result arrives, in the first round.
    assert (notice.source, notice.target, notice.kind) == ("mcp_server", "mcp_client", "mcp.notification")
    assert notice.step in (Step.CALL_TOOL, Step.TOOL_RESULT) and notice.round == 1 and unlock.seq < notice.seq
    first, relist = frames(result, "tools/list", "mcp.request")
    assert first.step == relist.step == Step.LIST_TOOLS and relist.round == 2
    assert notice.seq < relist.seq < reply_to(result, relist).seq < requests[1].seq
    listed = [h for h in result.trace.hops if h.kind == "client.result" and "tools" in as_dict(h.payload)]
    n = len(listed[0].payload["tools"])
    assert [len(h.payload["tools"]) for h in listed] == [n, n + 1]
    if era == "modern":  # the change came on the stream the client opened for it
        listen = listened(result, {"toolsListChanged": True})
        assert notice.payload["params"]["_meta"][SUBSCRIPTION_ID] == listen.jsonrpc_id
    else:
        assert not frames(result, "subscriptions/listen")


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_a_subscribed_resource_is_told_updated(era: Era) -> None:
    result = http_run(UNLOCK_THEN_ALERT, era=era, subscribe=["weather://alerts"])
    assert result.ok, result.error
    [unlock, _] = frames(result, "tools/call", "mcp.request")
    [updated] = frames(result, "notifications/resources/updated")
    assert (updated.source, updated.target, updated.kind) == ("mcp_server", "mcp_client", "mcp.notification")
    assert updated.payload["params"]["uri"] == "weather://alerts"
    assert updated.step in (Step.CALL_TOOL, Step.TOOL_RESULT) and updated.round == 1 and unlock.seq < updated.seq
    if era == "handshake":  # a request of its own, answered before the question reaches the model
        [asked] = frames(result, "resources/subscribe", "mcp.request")
        assert (asked.source, asked.step) == ("mcp_client", Step.LIST_TOOLS)
        assert asked.payload["params"] == {"uri": "weather://alerts"}
        answered = reply_to(result, asked)
        assert answered.kind == "mcp.response" and answered.payload["result"] == {} and answered.step == Step.LIST_TOOLS
        assert answered.seq < unlock.seq
        assert not frames(result, "subscriptions/listen")
    else:  # 2026-07-28 has no resources/subscribe: the URI is named on the listen stream, and the update comes there
        assert not frames(result, "resources/subscribe")
        listen = listened(result, {"resourceSubscriptions": ["weather://alerts"]})
        assert updated.payload["params"]["_meta"][SUBSCRIPTION_ID] == listen.jsonrpc_id
    assert list(result.trace.meta.settings["subscribe"]) == ["weather://alerts"]


def test_without_a_subscription_no_update_is_sent() -> None:
    result = http_run(UNLOCK_THEN_ALERT, era="handshake")
    assert result.ok, result.error
    assert not frames(result, "notifications/resources/updated") and not frames(result, "resources/subscribe")


def test_ping_is_a_request_and_its_empty_answer_in_step_2() -> None:
    result = http_run('{"answer": "好"}', era="handshake", ping=True)
    assert result.ok, result.error
    [ping] = frames(result, "ping", "mcp.request")
    assert (ping.source, ping.target, ping.step) == ("mcp_client", "mcp_server", Step.LIST_TOOLS)
    answer = reply_to(result, ping)
    assert answer.kind == "mcp.response" and answer.payload["result"] == {} and answer.step == Step.LIST_TOOLS
    [initialized] = frames(result, "notifications/initialized")
    assert initialized.seq < ping.seq < answer.seq < frames(result, "tools/list", "mcp.request")[0].seq


def test_ping_in_the_2026_era_is_refused_in_one_line_and_never_sent() -> None:
    result = http_run('{"answer": "好"}', era="modern", ping=True)
    said = "ping is a 2025-11-25 request, removed in 2026-07-28: use --era handshake to send one"
    assert result.error == said
    assert not frames(result, "ping") and not [h for h in result.trace.hops if h.kind == "llm.request"]
    [refused] = [h for h in result.trace.hops if h.kind == "error"]
    assert as_dict(refused.payload)["message"] == said and (refused.source, refused.target) == ("app", "user")


def _timed_out(result: RunResult) -> tuple[Hop, Hop]:
    """The slow call and the error hop that says the server did not answer it in time."""
    assert result.error == "the MCP server did not answer tools/call slow_report within 1 s"
    [call] = frames(result, "tools/call", "mcp.request")
    assert call.payload["params"]["name"] == "slow_report" and call.step == Step.CALL_TOOL
    [late] = [h for h in result.trace.hops if h.kind == "error" and h.source == "mcp_server"]
    assert late.payload["error"] == "timeout" and call.seq < late.seq
    assert not [h for h in result.trace.hops if h.kind == "mcp.response" and h.jsonrpc_id == call.jsonrpc_id]
    return call, late


def test_a_call_past_the_timeout_is_cancelled_and_the_server_told() -> None:
    """2025-11-25: the client gives up on the call and posts notifications/cancelled naming its id."""
    result = http_run(SLOW, era="handshake", mcp_timeout_s=1.0)
    call, _ = _timed_out(result)
    [told] = frames(result, "notifications/cancelled")
    assert (told.source, told.target, told.kind, told.step) == ("mcp_client", "mcp_server", "mcp.notification", 6)
    assert told.payload["params"]["requestId"] == call.jsonrpc_id and "timed out" in told.payload["params"]["reason"]
    assert call.seq < told.seq


def test_in_the_2026_era_over_http_the_call_is_given_up_without_a_cancel_frame() -> None:
    """2026-07-28 over Streamable HTTP has no client-to-server notifications: the SDK closes the call's own POST
    instead of sending notifications/cancelled, so no such frame crosses and none is recorded."""
    result = http_run(SLOW, era="modern", mcp_timeout_s=1.0)
    _timed_out(result)
    assert not frames(result, "notifications/cancelled")


# What each asking tool asks, the question that makes the mock model call it, and the user's answers.
ASKING = {
    "elicitation": ("elicitation/create", "我这里今天天气怎么样？", (("city", "上海"),)),
    "sampling": ("sampling/createMessage", "用一句话说说北京未来三天的天气", ()),
    "roots": ("roots/list", "北京有什么课堂笔记？", ()),
}


def asked_over_http(feature: str, era: Era) -> RunResult:
    """One question to an asking tool of the demo server over Streamable HTTP, the mock model deciding, the host
    declaring all it can answer and sharing the demo's notes."""
    _, question, answers = ASKING[feature]

    async def go() -> RunResult:
        async with builtin.demo_over_http(HTTP_TOKEN, asks=True) as url:
            built = RunOptions.build(
                server=ServerSpec(url=url, transport="http"),
                era=era,
                host_capabilities=HOST_CAPABILITIES,
                roots=builtin.demo_roots(),
                answers=answers,
            )
            return await run_flow(question, options=built)

    return anyio.run(go)


def from_the_model_on(trace: Trace) -> list[tuple[Any, ...]]:
    """Every hop from the first model request on, as where it went and what it was: the set-up before it is the
    stand-in's, opened before the question."""
    first = next(i for i, h in enumerate(trace.hops) if h.kind == "translate.forward")
    return [
        (h.step, h.kind, h.source, h.target, as_dict(h.payload).get("method") if h.kind.startswith("mcp.") else None)
        for h in trace.hops[first:]
        if h.kind != "replay.divergence"
    ]


def user_answers(trace: Trace) -> list[tuple[Any, Any]]:
    return [
        (h.payload.get("action"), h.payload.get("content"))
        for h in trace.hops
        if h.kind == "user.input" and h.direction == "response"
    ]


@pytest.mark.parametrize("era", ["handshake", "modern"])
@pytest.mark.parametrize("feature", list(ASKING))
def test_an_asking_run_recorded_over_http_replays_offline_to_the_same_hops(feature: str, era: Era) -> None:
    """A server reached by URL is not re-run: its stand-in, built from the recording, answers each call as it was
    answered and first asks the client what the recorded server asked (2025-11-25: its requests mid-call;
    2026-07-28: its input-required results, continued by the echoed request state); the host answers again, its
    model's part served by the recording."""
    recorded = asked_over_http(feature, era)
    assert recorded.ok, recorded.error
    again = replay(recorded.trace)
    report = replay_report(again.trace)
    assert report["tools"] == "recorded" and report["diverged"] is False, report["divergences"]
    assert (
        report["served"]
        == sum(h.kind == "llm.request" for h in recorded.trace.hops)
        == (3 if feature == "sampling" else 2)
    )
    assert again.ok and again.answer == recorded.answer
    assert from_the_model_on(again.trace) == from_the_model_on(recorded.trace)
    assert user_answers(again.trace) == user_answers(recorded.trace)
    method = ASKING[feature][0]
    asked = [
        h for h in again.trace.hops if h.kind == "mcp.request" and h.source == "mcp_server" and method_of(h) == method
    ]
    if era == "handshake":
        [request] = asked
        assert request.step == Step.CALL_TOOL and reply_to(again, request).source == "mcp_client"
        assert not call_rounds(again.trace.hops).calls
    else:
        assert not asked
        [logical] = call_rounds(again.trace.hops).calls
        [first] = call_rounds(recorded.trace.hops).calls
        assert logical.finished and len(logical.requests) == len(first.requests) == 2
        states = [as_dict(r.payload)["params"].get("requestState") for r in (*logical.requests, *first.requests)]
        assert states[0] is states[2] is None and states[1] == states[3]  # the recorded state, given back and echoed


def test_the_replay_command_replays_an_http_recording_of_sampling(tmp_path: Path) -> None:
    recorded = asked_over_http("sampling", "modern")
    saved, out = save_trace(recorded.trace, tmp_path / "sampling-http.json"), tmp_path / "again.json"
    proc = flow_cli("replay", str(saved), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "replay matched the recording: 3 model exchanges" in proc.stdout
    assert from_the_model_on(load_trace(out)) == from_the_model_on(recorded.trace)
