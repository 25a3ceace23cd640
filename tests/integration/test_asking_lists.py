"""The session beyond tools/call, through the real SDK on the demo server that asks: a tool list that changes while
the client is connected, resource subscriptions, ping, and a slow call the client cancels."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from flow import RunOptions, run
from flow.backends.scripted import load_script
from flow.engine.model import ModelConfig
from flow.servers.spec import Era, ServerSpec, TransportName
from flow.trace.steps import Step
from helpers import ROOT

UNLOCK_THEN_ALERT = '[{"call": "unlock_alerts"}, {"call": "weather_alerts", "arguments": {"city": "上海"}}]'


def asking_run(script: str, *, era: Era = "handshake", transport: TransportName = "memory", **options):
    built = RunOptions.build(server=ServerSpec(), asks=True, era=era, transport=transport, **options)
    return run("上海有天气预警吗？", options=built, model=ModelConfig.scripted(load_script(script)))


def frames(result, method: str, kind: str | None = None):
    return [
        h
        for h in result.trace.hops
        if h.kind.startswith("mcp.") and (kind is None or h.kind == kind) and (h.payload or {}).get("method") == method
    ]


def offered(request_hop) -> list[str]:
    return [t["function"]["name"] for t in request_hop.payload["body"]["tools"]]


@pytest.mark.parametrize(
    ("era", "transport"), [("handshake", "memory"), ("modern", "memory"), ("handshake", "stdio"), ("modern", "stdio")]
)
def test_a_tool_added_mid_run_is_listed_again_and_offered_in_the_next_request(era, transport):
    result = asking_run(UNLOCK_THEN_ALERT, era=era, transport=transport, listen=era == "modern")
    assert result.ok, result.error
    hops = result.trace.hops
    requests = [h for h in hops if h.kind == "llm.request"]
    assert "weather_alerts" not in offered(requests[0])
    assert "weather_alerts" in offered(requests[1])  # the request after the notification offers the new tool
    [notice] = frames(result, "notifications/tools/list_changed")
    assert notice.source == "mcp_server" and notice.step == Step.CALL_TOOL and notice.round == 1
    lists = frames(result, "tools/list", "mcp.request")
    assert len(lists) == 2
    relist = lists[1]
    # Re-listed after the server said so, in the round that follows, before that round's model request.
    assert notice.seq < relist.seq < requests[1].seq and relist.step == Step.LIST_TOOLS and relist.round == 2
    listed = [h for h in hops if h.kind == "client.result" and "tools" in (h.payload or {})]
    assert [len(h.payload["tools"]) for h in listed] == [
        len(listed[0].payload["tools"]),
        len(listed[0].payload["tools"]) + 1,
    ]
    answer = [h for h in hops if h.kind == "tool.result"][-1]
    assert json.loads(answer.payload["tool_message_content"])["city"] == "上海"
    if era == "modern":  # 2026-07-28: change events come only on the listen stream the client opened
        [listen] = frames(result, "subscriptions/listen", "mcp.request")
        assert listen.payload["params"]["notifications"]["toolsListChanged"] is True
        assert listen.seq < lists[0].seq


def test_without_a_change_the_tools_are_listed_once():
    result = asking_run('[{"call": "weather_card", "arguments": {"city": "北京"}}, {"answer": "晴"}]')
    assert result.ok, result.error
    assert len(frames(result, "tools/list", "mcp.request")) == 1


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_a_subscribed_resource_is_told_updated(era):
    result = asking_run(UNLOCK_THEN_ALERT, era=era, subscribe=["weather://alerts"])
    assert result.ok, result.error
    [updated] = frames(result, "notifications/resources/updated")
    assert updated.payload["params"]["uri"] == "weather://alerts" and updated.source == "mcp_server"
    if era == "handshake":
        [asked] = frames(result, "resources/subscribe", "mcp.request")
        assert asked.payload["params"]["uri"] == "weather://alerts" and asked.step == Step.LIST_TOOLS
        [answered] = [h for h in result.trace.hops if h.kind == "mcp.response" and h.jsonrpc_id == asked.jsonrpc_id]
        assert answered.seq < updated.seq
    else:
        [listen] = frames(result, "subscriptions/listen", "mcp.request")
        assert listen.payload["params"]["notifications"]["resourceSubscriptions"] == ["weather://alerts"]
    assert list(result.trace.meta.settings["subscribe"]) == ["weather://alerts"]


def test_without_a_subscription_no_update_is_sent():
    result = asking_run(UNLOCK_THEN_ALERT)
    assert result.ok and not frames(result, "notifications/resources/updated")


def test_ping_is_a_request_and_its_answer_in_step_2():
    result = asking_run('{"answer": "好"}', ping=True)
    assert result.ok, result.error
    [ping] = frames(result, "ping", "mcp.request")
    answer = next(h for h in result.trace.hops if h.kind == "mcp.response" and h.jsonrpc_id == ping.jsonrpc_id)
    assert ping.step == answer.step == Step.LIST_TOOLS
    assert answer.payload["result"] == {}
    assert result.trace.meta.settings["ping"] is True


def test_ping_in_the_2026_era_is_one_line():
    result = asking_run('{"answer": "好"}', ping=True, era="modern")
    assert result.error == "ping is a 2025-11-25 request, removed in 2026-07-28: use --era handshake to send one"
    assert not frames(result, "ping")


def test_the_cli_refuses_ping_in_the_2026_era():
    proc = subprocess.run(
        [sys.executable, "-m", "flow", "run", "--asks", "--transport", "memory", "--era", "modern", "--ping"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.strip() == "error: --ping: ping is a 2025-11-25 request, removed in 2026-07-28; use --era handshake"
    )


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_a_call_past_the_timeout_is_cancelled_and_the_server_told(era):
    result = asking_run('{"call": "slow_report", "arguments": {"city": "北京"}}', era=era, mcp_timeout_s=1.0)
    assert result.error and "slow_report" in result.error
    [call] = [h for h in frames(result, "tools/call", "mcp.request")]
    cancels = frames(result, "notifications/cancelled")
    told = [c for c in cancels if c.payload["params"]["requestId"] == call.jsonrpc_id]
    assert len(told) == 1 and told[0].source == "mcp_client" and told[0].step == Step.CALL_TOOL
    failed = next(h for h in result.trace.hops if h.kind == "error" and h.source == "mcp_server")
    assert call.seq < told[0].seq < failed.seq


def test_the_default_demo_server_is_unchanged():
    result = run(
        "北京今天天气怎么样？",
        options=RunOptions(transport="memory", era="modern"),
        model=ModelConfig(),
    )
    assert result.ok
    names = {t["name"] for t in result.trace.hops[0].payload["tools"]}
    assert "unlock_alerts" not in names and "weather_card" not in names
    assert not frames(result, "subscriptions/listen") and not frames(result, "ping")
    assert not any("structured" in (h.payload or {}) for h in result.trace.hops if h.kind == "tool.result")
    assert not {"listen", "subscribe", "ping", "backfill", "check_output"} & set(result.trace.meta.settings)


def test_the_sdks_process_wide_listen_ids_are_numbered_again_per_trace_for_comparing() -> None:
    """The SDK's client counts listen requests across the process (listen-1, listen-2, ...): two runs of the same flow
    compare equal whichever they got, and two listens in one trace stay two."""
    from flow.trace.normalise import normalise

    def frames(*ids: str) -> list[dict[str, object]]:
        return [{"id": i, "method": "subscriptions/listen", "state": {"requestState": "s"}} for i in ids]

    assert normalise(frames("listen-1")) == normalise(frames("listen-7"))
    assert normalise(frames("listen-3", "listen-4")) == normalise(frames("listen-8", "listen-9"))
    assert normalise(frames("listen-3", "listen-3")) != normalise(frames("listen-3", "listen-4"))
    assert normalise(frames("listen-1"))[0]["state"] == {"requestState": "<request state 1>"}
