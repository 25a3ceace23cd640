"""Sampling with tools, through the real SDK in both protocol eras: the demo's `plan_outing` asks the host's model
whether a city suits a class outing and offers it the server's own `get_forecast`; the model asks for the tool, the
server runs it itself and asks again with the result. The host declares `sampling.tools`, gives the model the
server's tools in the run's own model API, hands the model's tool use back to the server, and never runs it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_asking import HTTP_TOKEN, Case, asked_run

from flow import RunOptions, run
from flow.backends.scripted import load_script
from flow.engine.model import ModelConfig
from flow.servers.spec import TOKEN_ENV, ServerSpec
from flow.trace.model import Hop, Trace, as_dict
from flow.trace.rounds import call_rounds
from flow.views.closing import calls_and_fates
from flow.views.outcome import run_outcome

OUTING = Case("明天适合带全班去北京郊游吗？", "sampling/createMessage", "plan_outing", said="适合出游")


@pytest.fixture(autouse=True)
def _token(monkeypatch):
    monkeypatch.setenv(TOKEN_ENV, HTTP_TOKEN)


def for_server(trace: Trace, kind: str) -> list[Hop]:
    return [h for h in trace.hops if h.kind == kind and "for_server" in as_dict(h.payload)]


def declared_sampling(trace: Trace) -> list[Any]:
    """Every `sampling` capability the client declared, at any depth of its requests (initialize in 2025-11-25, each
    request's _meta in 2026-07-28)."""
    found: list[Any] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("sampling"), dict):
                found.append(value["sampling"])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for hop in trace.hops:
        if hop.kind == "mcp.request" and hop.source == "mcp_client":
            walk(hop.payload)
    return found


@pytest.mark.parametrize("era", ["handshake", "modern"])
@pytest.mark.parametrize("transport", ["memory", "stdio", "http"])
def test_the_host_model_uses_the_servers_tool_and_the_server_runs_it(transport, era):
    result = asked_run(OUTING, transport, era)
    assert result.ok, result.error
    trace = result.trace
    assert declared_sampling(trace) and all(s == {"tools": {}} for s in declared_sampling(trace))
    first, second = for_server(trace, "llm.request")
    assert [t["function"]["name"] for t in first.payload["body"]["tools"]] == ["get_forecast"]
    used, _ = for_server(trace, "llm.response")
    (call,) = used.payload["body"]["choices"][0]["message"]["tool_calls"]
    assert call["function"]["name"] == "get_forecast"
    assert json.loads(call["function"]["arguments"]) == {"city": "北京", "days": 2}
    # The server ran its tool and sent the result back: the model's call, then the forecast under the call's id.
    messages = second.payload["body"]["messages"]
    assert messages[-2]["tool_calls"][0]["id"] == call["id"]
    assert messages[-1]["role"] == "tool" and messages[-1]["tool_call_id"] == call["id"]
    assert json.loads(messages[-1]["content"])["city_en"] == "Beijing"
    assert "适合出游" in (result.answer or "")
    # The app's model decided one call; the host's model's call is the server's, never run by the app.
    decisions, fates = calls_and_fates(trace)
    assert [d.calls for d in decisions] == [("plan_outing(city=北京)",)]
    assert [f.name for f in fates] == ["plan_outing"]
    assert not [h for h in trace.hops if h.kind == "translate.reverse" and "get_forecast" in json.dumps(h.payload)]
    keys = [c.key for c in run_outcome(trace).clauses]
    assert keys[1:4] == ["asked_model", "sampled_calls", "asked_model_again"]
    (check_handshake if era == "handshake" else check_modern)(trace, call["id"])


def check_handshake(trace: Trace, call_id: str) -> None:
    """2025-11-25: two sampling requests from the server; the client's first answer is the model's tool use."""
    asks = [h for h in trace.hops if h.kind == "mcp.request" and h.source == "mcp_server"]
    assert [h.payload["method"] for h in asks] == ["sampling/createMessage"] * 2
    assert [t["name"] for t in asks[0].payload["params"]["tools"]] == ["get_forecast"]
    answers = [h for h in trace.hops if h.kind == "mcp.response" and h.source == "mcp_client"]
    assert [h.jsonrpc_id for h in answers] == [h.jsonrpc_id for h in asks]
    use = answers[0].payload["result"]
    assert use["stopReason"] == "toolUse"
    assert use["content"] == [
        {"type": "tool_use", "id": call_id, "name": "get_forecast", "input": {"city": "北京", "days": 2}}
    ]
    replayed = asks[1].payload["params"]["messages"]
    assert [m["role"] for m in replayed] == ["user", "assistant", "user"]
    assert replayed[2]["content"][0]["type"] == "tool_result" and replayed[2]["content"][0]["toolUseId"] == call_id
    assert answers[1].payload["result"]["stopReason"] == "endTurn"


def check_modern(trace: Trace, call_id: str) -> None:
    """2026-07-28: one logical call in three rounds, the model's tool use carried back in the second round."""
    calls = [h for h in trace.hops if h.kind == "mcp.request" and h.payload.get("method") == "tools/call"]
    assert len(calls) == 3 and len({h.jsonrpc_id for h in calls}) == 3
    rounds = call_rounds(trace.hops)
    assert len(rounds.calls) == 1 and not rounds.unpaired
    assert [rounds.by_seq[h.seq][1] for h in calls] == [1, 2, 3]
    (response,) = calls[1].payload["params"]["inputResponses"].values()
    assert response["stopReason"] == "toolUse" and response["content"][0]["id"] == call_id


@pytest.mark.parametrize(
    ("api", "result_of"),
    [
        ("responses", lambda body: [i for i in body["input"] if i.get("type") == "function_call_output"]),
        (
            "messages",
            lambda body: [
                b
                for m in body["messages"]
                if isinstance(m["content"], list)
                for b in m["content"]
                if b.get("type") == "tool_result"
            ],
        ),
    ],
)
def test_the_servers_tools_go_in_the_runs_own_model_api(api, result_of):
    options = RunOptions.build(server=ServerSpec(), asks=True, transport="memory", api=api)
    result = run("Is the weather in Shanghai good for a class outing?", options=options)
    assert result.ok, result.error
    first, second = for_server(result.trace, "llm.request")
    assert [t["name"] for t in first.payload["body"]["tools"]] == ["get_forecast"]
    (sent,) = result_of(second.payload["body"])
    output = sent.get("output", sent.get("content"))
    assert json.loads(output)["city_en"] == "Shanghai"
    assert "good time for an outing" in (result.answer or "")


def test_a_tool_the_server_did_not_offer_is_refused_by_the_server_not_run_by_the_host():
    """A scripted model answers every conversation's first request alike, so the host's model asks for plan_outing,
    which the server did not offer it: the server says so in its next sampling request, and the host runs nothing."""
    script = load_script('[{"call": "plan_outing", "arguments": {"city": "北京"}}, {"answer": "去吧，天气不错。"}]')
    options = RunOptions.build(server=ServerSpec(), asks=True, transport="memory")
    result = run("明天适合带全班去北京郊游吗？", options=options, model=ModelConfig.scripted(script))
    assert result.ok, result.error
    _, second = for_server(result.trace, "llm.request")
    assert second.payload["body"]["messages"][-1]["content"] == "Error: no tool called 'plan_outing'"
    assert [d.calls for d in calls_and_fates(result.trace)[0]] == [("plan_outing(city=北京)",)]
    assert len([h for h in result.trace.hops if h.kind == "translate.reverse"]) == 1
    (tool,) = [h for h in result.trace.hops if h.kind == "tool.result"]
    assert "去吧，天气不错。" in json.dumps(tool.payload, ensure_ascii=False)
