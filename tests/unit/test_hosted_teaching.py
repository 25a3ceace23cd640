"""Hosted MCP's teaching texts: each is true of the hop it is shown on. The request names the server the provider must
reach and the credential it will see; the provider's frames say who sent them; the response that carries the loop
names its own items; approval asked, given and refused; the reported hops say what the app cannot know; the answer
counts the app's own requests. Facts are computed from each trace, never written into the test."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from flow.backends.mock_hosted import PROVIDER_CLIENT
from flow.text.names import Lang
from flow.text.teaching import HopContext, hop_contexts, situation, teaching_text
from flow.text.teaching.situations import MOCK_PROVIDER_CLIENT
from flow.trace.factory import new_hop
from flow.trace.files import load_trace
from flow.trace.model import Hop, Trace
from helpers import ROOT, run_flow_sync

LANGS: tuple[Lang, ...] = ("zh", "en")
HOSTED = ["hosted-responses", "hosted-responses-approval", "hosted-messages", "hosted-tool-error"]


@cache
def _trace(name: str) -> Trace:
    return load_trace(ROOT / "sample_traces" / f"{name}.json")


def _told(hops: list[Hop]) -> list[tuple[Hop, HopContext, str, dict[Lang, str]]]:
    return [
        (hop, ctx, situation(hop, ctx).key, {lang: teaching_text(hop, lang, context=ctx) for lang in LANGS})
        for hop, ctx in zip(hops, hop_contexts(hops), strict=True)
    ]


def _body(hop: Hop) -> dict[str, Any]:
    assert isinstance(hop.payload, dict) and isinstance(hop.payload["body"], dict)
    return hop.payload["body"]


def test_the_mock_providers_client_is_named_as_the_mock_names_itself():
    assert MOCK_PROVIDER_CLIENT == PROVIDER_CLIENT.name


@pytest.mark.parametrize("name", HOSTED)
def test_the_first_request_names_the_server_the_provider_must_reach_and_the_credential_it_sees(name: str):
    hop, ctx, key, texts = next(t for t in _told(_trace(name).hops) if t[0].kind == "llm.request")
    assert ctx.hosted and key.endswith("hosted.ask")  # every sample sends a credential
    body = _body(hop)
    url = body["tools"][0]["server_url"] if "mcp_servers" not in body else body["mcp_servers"][0]["url"]
    field = "headers" if "mcp_servers" not in body else "authorization_token"
    for lang in LANGS:
        assert url in texts[lang] and field in texts[lang]
        assert "function" not in texts["en"] or "no function definitions" in texts["en"]
    assert "credential" in texts["en"] and "reachable from the provider" in texts["en"]
    assert "凭据" in texts["zh"] and "服务商的网络" in texts["zh"]


def test_a_request_without_a_credential_says_the_server_is_open_to_whoever_reaches_it():
    hop = _trace("hosted-responses").hops[2]
    body = _body(hop)
    tool = {k: v for k, v in body["tools"][0].items() if k != "headers"}
    bare = hop.model_copy(update={"payload": {**hop.payload, "body": {**body, "tools": [tool]}}})
    ctx = HopContext(hosted=True)
    assert situation(bare, ctx).key == "responses.hosted.ask.open"
    assert "no headers" in teaching_text(bare, "en", context=ctx)


@pytest.mark.parametrize("name", HOSTED)
def test_the_providers_frames_say_who_sent_them_and_how_a_real_providers_would_be_seen(name: str):
    frames = [t for t in _told(_trace(name).hops) if t[0].kind.startswith("mcp.") and t[0].kind != "mcp.reported"]
    assert frames
    for hop, _, _, texts in frames:
        assert "the provider's MCP client" in texts["en"] and "服务商的 MCP 客户端" in texts["zh"], hop.seq
        assert "this app offers every tool listed" not in texts["en"]  # the app-side MCP text, false here
        opens = hop.payload.get("method") == "initialize"
        assert ("mcp-flow proxy-http" in texts["en"]) == opens and ("mock provider" in texts["en"]) == opens


@pytest.mark.parametrize("name", ["hosted-responses", "hosted-tool-error"])
def test_the_response_that_carries_the_loop_names_its_own_items_and_says_where_the_messages_happened(name: str):
    hop, _, key, texts = next(t for t in _told(_trace(name).hops) if t[0].kind == "llm.response")
    items = [i["type"] for i in _body(hop)["output"]]
    assert "mcp_call" in items
    for lang in LANGS:
        assert all(i in texts[lang] for i in items)
    assert "without asking for any tool" not in texts["en"]  # the function-calling text, false here
    failed = any(i.get("error") for i in _body(hop)["output"] if i["type"] == "mcp_call")
    assert key == ("responses.hosted.answer.failed" if failed else "responses.hosted.answer")
    if failed:
        assert "mcp_tool_execution_error" in texts["en"] and "failed" in texts["en"]
    else:
        assert "messages 5 to 8" in texts["en"] and "第 5 到 8 条消息" in texts["zh"]


def test_the_messages_answer_says_whether_a_block_reports_the_listing():
    hop, ctx, key, texts = next(t for t in _told(_trace("hosted-messages").hops) if t[0].kind == "llm.response")
    blocks = [b["type"] for b in _body(hop)["content"]]
    assert "mcp_tool_listing" not in blocks and key == "messages.hosted.answer"
    assert "no block here reports the listing" in texts["en"]
    listing = {"type": "mcp_tool_listing", "mcp_server_name": "weather", "tools": []}
    body = {**_body(hop), "content": [listing, *_body(hop)["content"]]}
    listed = hop.model_copy(update={"payload": {**hop.payload, "body": body}})
    assert situation(listed, ctx).key == "messages.hosted.answer.listed"
    assert "no block here reports" not in teaching_text(listed, "en", context=ctx)


def test_approval_asked_given_and_the_call_that_follows():
    told = _told(_trace("hosted-responses-approval").hops)
    keys = {t[0].seq: t[2] for t in told}
    asked = next(t for t in told if t[2] == "responses.hosted.approval")
    ask_item = next(i for i in _body(asked[0])["output"] if i["type"] == "mcp_approval_request")
    assert ask_item["id"] in asked[3]["en"] and "no tools/call" in asked[3]["en"]
    # no tools/call frame was seen before the app answered
    answered = next(t for t in told if t[2] == "responses.hosted.approve")
    calls = [h.seq for h, _, _, _ in told if h.kind == "mcp.request" and h.payload.get("method") == "tools/call"]
    assert calls and min(calls) > answered[0].seq
    assert "last word" in answered[3]["en"] and "最后决定权" in answered[3]["zh"]
    assert "responses.hosted.answer.approved" in keys.values() and "reported.call.approved" in keys.values()
    shown = told[-1]
    requests = sum(h.kind == "llm.request" for h in _trace("hosted-responses-approval").hops)
    assert shown[2] == "answer.shown.hosted" and f"sent {requests} requests" in shown[3]["en"]


def test_a_denied_call_is_told_as_refused_and_nothing_was_called():
    hops = run_flow_sync(mode="hosted", api="responses", require_approval="always", approve=False).trace.hops
    told = _told(hops)
    keys = [k for _, _, k, _ in told]
    assert "responses.hosted.deny" in keys and "responses.hosted.answer.denied" in keys
    assert not any(h.kind == "mcp.request" and h.payload.get("method") == "tools/call" for h in hops)
    denied = next(t for t in told if t[2] == "responses.hosted.deny")
    assert "approve false" in denied[3]["en"]


@pytest.mark.parametrize("name", HOSTED)
def test_reported_hops_say_what_the_app_cannot_know_and_name_the_frame_they_pair_with(name: str):
    reported = [t for t in _told(_trace(name).hops) if t[0].kind == "mcp.reported"]
    assert reported
    for hop, _, key, texts in reported:
        if key == "reported.list.request":
            assert ": none" not in texts["en"] and "：无" not in texts["zh"]
        if hop.direction == "request":
            assert "retried" in texts["en"] or "retries" in texts["en"]
        observed = hop.payload.get("observed")
        if isinstance(observed, int):
            assert f"as hop {observed}" in texts["en"] and f"第 {observed} 跳" in texts["zh"]


def test_the_answer_counts_the_apps_own_requests():
    for name in HOSTED:
        hops = _trace(name).hops
        _, _, key, texts = _told(hops)[-1]
        requests = sum(h.kind == "llm.request" for h in hops)
        word = "request" if requests == 1 else "requests"
        assert key == "answer.shown.hosted" and f"sent {requests} {word} to the model API" in texts["en"]
        assert "one to decide in each tool round" not in texts["en"]


def test_a_reported_tool_error_is_quoted_so_the_chinese_text_keeps_the_glossary():
    from flow.text.glossary import problems

    _, _, key, texts = next(
        t for t in _told(_trace("hosted-tool-error").hops) if t[0].kind == "mcp.reported" and t[0].direction == "error"
    )
    assert key == "reported.result.error.typed" and "mcp_tool_execution_error" in texts["en"]
    assert not problems(texts["zh"], "zh"), problems(texts["zh"], "zh")


def test_a_hosted_frame_seen_by_a_recorder_other_than_the_mock_says_so():
    hop = new_hop(
        seq=1,
        kind="mcp.request",
        source="mcp_client",
        target="mcp_server",
        payload={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "clientInfo": {"name": "openai-mcp", "version": "1"}},
        },
        step=2,
        t_start_ms=0.0,
        t_end_ms=0.0,
        size=0,
    )
    ctx = HopContext(hosted=True, provider_client="openai-mcp")
    text = teaching_text(hop, "en", context=ctx)
    assert "a recorder stood in front of the server" in text and "mock provider" not in text
