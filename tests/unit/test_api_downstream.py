"""What is read off a Responses or Messages trace after the run: the closing view, the one-line outcome, the
tool-cost points, the OTLP export and its re-import, the lesson's overview, the step texts and Compare's sentence
all say the run's own API's words, read from its own bodies, never Chat Completions' keys."""

from __future__ import annotations

import json
from functools import cache

import pytest

from flow.interop.otlp import to_otlp_json
from flow.interop.otlp_import import import_otlp_json
from flow.text.teaching import step_texts
from flow.trace.model import Trace
from flow.trace.steps import Step
from flow.views.closing import closing_facts, sections
from flow.views.compare import apis_compared, figures, point
from flow.views.lesson import lesson_markdown
from flow.views.outcome import run_outcome
from flow.views.tool_cost import request_costs, tool_cost_chart, tool_cost_points
from helpers import ROOT, run_flow_sync

APIS = ("responses", "messages")
ID = {"chat": "tool_call_id", "responses": "call_id", "messages": "tool_use_id"}


@cache
def traced(api: str, model: str = "mock", mode: str = "mcp", previous: bool = False) -> Trace:
    return run_flow_sync(model=model, api=api, mode=mode, previous_response=previous).trace


def _closing(trace: Trace, lang: str = "en") -> str:
    return " ".join(i.text for s in sections(trace, lang)[1] for i in s.items)  # type: ignore[arg-type]


@pytest.mark.parametrize("api", APIS)
def test_the_closing_view_reads_the_calls_and_says_the_apis_words(api):
    trace = traced(api)
    facts = closing_facts(trace)
    assert facts.api == api and [d.calls for d in facts.decisions] == [("get_weather(city=北京)",)]
    text = _closing(trace)
    assert ID[api] in text and "tool_call_id" not in text and "prompt_tokens" not in text
    assert ("inputSchema → input_schema" if api == "messages" else "inputSchema → parameters") in text
    assert ("stop_reason" if api == "messages" else "status") in text
    assert "Chat Completions" not in text
    assert "call_id" in _closing(traced("chat")) and "prompt_tokens" in _closing(traced("chat"))


def test_a_responses_run_with_previous_response_id_says_its_follow_up_did_not_resend_the_conversation():
    assert "previous_response_id" in _closing(traced("responses", previous=True))
    assert "names no previous_response_id" in _closing(traced("responses"))


@pytest.mark.parametrize("api", APIS)
def test_the_one_line_outcome_of_bad_json_arguments_names_the_apis_result(api):
    outcome = run_outcome(traced(api, model="mock-bad-json"))
    assert outcome.verdict == "answered_after_problem"
    result = {"responses": "a function_call_output item", "messages": "a tool_result block"}[api]
    assert "not valid JSON" in outcome.text["en"] and f"as {result}" in outcome.text["en"]
    assert "the model tried again with get_weather(city=北京)" in outcome.text["en"]
    clean = run_outcome(traced(api)).text["en"]
    assert clean.startswith("The model called get_weather(city=北京)") and "without calling" not in clean


def test_tool_cost_points_carry_their_api_and_the_chart_names_its_token_fields():
    points = tool_cost_points([traced("chat"), traced("messages")])
    assert {p.api for p in points} == {"chat", "messages"}
    chart = tool_cost_chart(points)
    assert chart["encoding"]["y"]["title"] == "prompt_tokens / input_tokens"
    assert {v["way"] for v in chart["data"]["values"]} == {  # two APIs on one chart: each named, none the default
        "MCP · weather-demo · Chat Completions",
        "MCP · weather-demo · Anthropic Messages",
    }
    one = tool_cost_chart(tool_cost_points([traced("messages")]))
    assert {v["way"] for v in one["data"]["values"]} == {"MCP · weather-demo"}


def _chat_spans(otlp: str) -> list[dict]:
    spans = [s for rs in json.loads(otlp)["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    out = []
    for span in spans:
        if span["name"].startswith("chat "):
            out.append({a["key"]: next(iter(a["value"].values())) for a in span["attributes"]})
    return out


@pytest.mark.parametrize(("api", "provider", "api_type"), [("chat", "openai", "chat_completions"), ("responses", "openai", "responses"), ("messages", "anthropic", None)])  # fmt: skip
def test_otlp_names_the_provider_and_api_and_reads_each_apis_messages(api, provider, api_type):
    first, backfill = _chat_spans(to_otlp_json(traced(api)))
    assert first["gen_ai.provider.name"] == provider and first.get("openai.api.type") == api_type
    assert first["gen_ai.operation.name"] == "chat"
    tools = json.loads(first["gen_ai.tool.definitions"])
    assert all({"type", "name", "description", "parameters"} <= set(t) and "function" not in t for t in tools)
    assert not any("input_schema" in t for t in tools)
    decided = json.loads(first["gen_ai.output.messages"])[0]
    assert decided["finish_reason"] == "tool_call"
    assert [(p["type"], p["name"], p["arguments"]) for p in decided["parts"]] == [("tool_call", "get_weather", {"city": "北京"})]  # fmt: skip
    sent = [p for m in json.loads(backfill["gen_ai.input.messages"]) for p in m["parts"]]
    call_id = decided["parts"][0]["id"]
    assert ("tool_call_response", call_id) in [(p["type"], p.get("id")) for p in sent]
    assert int(first["gen_ai.usage.input_tokens"]) > 0 and int(first["gen_ai.usage.output_tokens"]) > 0
    if api != "chat":
        assert "helpful assistant" in json.loads(first["gen_ai.system_instructions"])[0]["content"]


@pytest.mark.parametrize("api", APIS)
def test_an_exported_run_of_each_api_imports_back_with_its_calls_and_says_how_its_bodies_were_rebuilt(api):
    trace = traced(api, previous=api == "responses")
    back = import_otlp_json(to_otlp_json(trace), name="exported.json")
    assert [h.kind for h in back.hops if h.kind.startswith("llm.")] == ["llm.request", "llm.response"] * 2
    backfill = [h for h in back.hops if h.kind == "llm.request"][1]
    tool_messages = [m for m in backfill.payload["body"]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == [h.tool_call_id for h in trace.hops if h.kind == "translate.reverse"]  # fmt: skip
    assert not [m for m in backfill.payload["body"]["messages"] if m["role"] == "user" and m["content"] is None]
    assert back.meta.answer == trace.meta.answer
    assert back.meta.imported is not None
    assert any("rebuilt in Chat Completions' form" in n for n in back.meta.imported.unmapped)


@pytest.mark.parametrize("api", APIS)
def test_the_lesson_overview_and_the_step_texts_say_what_this_api_sends(api):
    script = lesson_markdown(traced(api), lang="en")
    overview = script.split("## Hop by hop")[0]
    assert ("tool_use blocks" if api == "messages" else "function_call items") in overview
    assert 'plus the role "tool" results' not in overview and "tool_calls: a function name" not in overview
    texts = step_texts(api)  # type: ignore[arg-type]
    assert "tool_calls" not in texts[Step.DECISION]["en"] and "tool_call_id" not in texts[Step.BACKFILL]["en"]
    assert ID[api] in texts[Step.BACKFILL]["en"]
    assert "tool_call_id" in step_texts("chat")[Step.BACKFILL]["en"]


def test_compare_of_two_apis_says_so_and_where_the_bytes_differ():
    chat, messages = traced("chat"), traced("messages")
    said = apis_compared(chat, messages)
    assert said is not None and said.startswith("A speaks Chat Completions, B Anthropic Messages")
    assert "nested under function" in said and "input_schema" in said and "tool_result blocks" in said
    # the figures are the traces' own: the tool definitions' bytes of a request, the bytes sent in all
    weights = [request_costs(t)[0].tool_bytes for t in (chat, messages)]
    assert weights[0] != weights[1] and f"weigh {weights[0]:,} and {weights[1]:,} bytes" in said
    assert f"sent {figures(chat).bytes_to_model:,} and {figures(messages).bytes_to_model:,} bytes" in said
    assert apis_compared(chat, traced("chat")) is None
    assert point(chat, messages, lang="zh").startswith("A 用 Chat Completions，B 用 Anthropic Messages")
    # a Responses follow-up with previous_response_id is told apart
    assert "beside previous_response_id" in (apis_compared(chat, traced("responses", previous=True)) or "")


def test_compare_of_messages_direct_and_mcp_says_the_input_needs_no_parsing():
    from flow.trace.files import load_trace
    from flow.views.compare import point

    a, b = (load_trace(ROOT / "sample_traces" / f"messages-{m}.json") for m in ("direct", "mcp"))
    said = point(a, b, lang="en")
    assert "tool_use's input object" in said and "json.loads" not in said
    chat = point(*(load_trace(ROOT / "sample_traces" / f"beijing-{m}.json") for m in ("direct", "mcp")), lang="en")
    assert "json.loads of the arguments" in chat
