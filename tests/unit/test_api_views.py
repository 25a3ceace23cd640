"""A run recorded through Responses or Anthropic Messages is shown and taught in that API's own terms: the labels,
the hop facts, the inspector's focus and the teaching texts name function_call / tool_use, call_id / tool_use_id,
function_call_output / tool_result, and never fall back to a Chat Completions sentence."""

from __future__ import annotations

import itertools
from functools import cache
from typing import Any

import pytest

from flow.engine.options import RunOptions
from flow.runs import run
from flow.text.teaching import hop_contexts, situation, teaching_text
from flow.trace.model import Hop, Trace
from flow.trace.steps import Step
from flow.views.focus import focus_json
from flow.views.labels import label_lines
from flow.views.table import focus_view
from flow.wire.facts import PARSED_ARGUMENTS

APIS = ("chat", "responses", "messages")
MODES = ("mcp", "direct")
CALLS = {"chat": "tool_calls", "responses": "function_call", "messages": "tool_use"}
RESULTS = {"chat": "role: tool", "responses": "function_call_output", "messages": "tool_result"}


@cache
def _trace(api: str, mode: str, stream: bool = False, previous: bool = False) -> Trace:
    options = RunOptions(api=api, mode=mode, stream=stream, previous_response=previous, transport="memory")  # type: ignore[arg-type]
    result = run("北京今天天气怎么样？", options=options)
    assert result.ok, result.error
    return result.trace


def _first(trace: Trace, kind: str, step: Step) -> Hop:
    return next(h for h in trace.hops if h.kind == kind and h.step == step)


@pytest.mark.parametrize(("api", "mode"), list(itertools.product(APIS, MODES)))
def test_the_decision_and_the_backfill_are_labelled_in_the_apis_own_words(api: str, mode: str) -> None:
    trace = _trace(api, mode)
    decision = _first(trace, "llm.response", Step.DECISION)
    assert " ".join(label_lines(decision, width=60)) == f"{CALLS[api]}: get_weather(city=北京)"
    backfill = " ".join(label_lines(_first(trace, "llm.request", Step.BACKFILL), width=60, lang="zh"))
    assert backfill == f"{RESULTS[api]} ({_ids(trace)[0]})"


def _ids(trace: Trace) -> list[str]:
    return [h.tool_call_id for h in trace.hops if h.kind == "translate.reverse" and h.tool_call_id]


@pytest.mark.parametrize("mode", MODES)
def test_a_responses_decision_shows_the_arguments_string_and_a_messages_one_the_input_object(mode: str) -> None:
    responses = focus_view(_first(_trace("responses", mode), "llm.response", Step.DECISION))
    item = responses["output"][0]
    assert item["type"] == "function_call" and isinstance(item["arguments"], str)
    assert item[PARSED_ARGUMENTS] == {"city": "北京"} and item["call_id"].startswith("call_")
    assert responses["status"] == "completed" and responses["HTTP status"] == 200
    messages = focus_view(_first(_trace("messages", mode), "llm.response", Step.DECISION))
    assert messages["content"][0]["input"] == {"city": "北京"} and messages["stop_reason"] == "tool_use"
    assert "tool_calls" not in responses and "tool_calls" not in messages


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_the_focus_pairs_each_call_with_the_result_that_quotes_its_id(api: str) -> None:
    trace = _trace(api, "mcp")
    call_id = _ids(trace)[0]
    decision = focus_json(_first(trace, "llm.response", Step.DECISION))
    assert call_id in decision["pairs"]
    backfill_hop = _first(trace, "llm.request", Step.BACKFILL)
    view = focus_view(backfill_hop)
    backfill = focus_json(backfill_hop, view)
    painted = [c["path"] for c in backfill["colours"] if c["colour"] == backfill["pairs"][call_id]]
    field = "call_id" if api == "responses" else "tool_use_id"
    assert any(p[-1] == field for p in painted), painted  # the result's own id
    assert any(p[-1] in ("call_id", "id") and p != painted[-1] for p in painted), painted  # and the call it answers
    assert view[field] == call_id


def test_a_messages_request_shows_its_top_level_system_and_max_tokens() -> None:
    view = focus_view(_first(_trace("messages", "mcp"), "llm.request", Step.ASK_MODEL))
    assert isinstance(view["system"], str) and view["max_tokens"] > 0
    assert all(m["role"] != "system" for m in view["messages"])


def test_the_forward_translation_names_the_field_each_api_takes_the_schema_in() -> None:
    for api, field in (("chat", "parameters"), ("responses", "parameters"), ("messages", "input_schema")):
        hop = _first(_trace(api, "mcp"), "translate.forward", Step.ASK_MODEL)
        assert label_lines(hop) == [f"inputSchema → {field} ×4"]
        text = teaching_text(hop, "en")
        assert field in text
        if api == "responses":
            assert "flat" in text
        if api == "messages":
            assert 'no type "function"' in text


def _texts(trace: Trace, lang: str) -> list[tuple[Hop, str, str]]:
    return [
        (hop, situation(hop, ctx).key, teaching_text(hop, lang, context=ctx))  # type: ignore[arg-type]
        for hop, ctx in zip(trace.hops, hop_contexts(trace.hops), strict=True)
    ]


CHAT_ONLY = ("chat.completions", "tool_call_id", "tool_calls", "delta.", "choices", "工具消息")


@pytest.mark.parametrize(
    ("api", "mode", "stream"), list(itertools.product(["responses", "messages"], MODES, [False, True]))
)
def test_no_hop_of_a_responses_or_messages_run_is_taught_with_a_chat_completions_sentence(
    api: str, mode: str, stream: bool
) -> None:
    trace = _trace(api, mode, stream)
    for lang in ("en", "zh"):
        for hop, key, text in _texts(trace, lang):
            if hop.kind.startswith(("llm.", "translate.")) or (hop.kind == "tool.result" and hop.target == "app"):
                assert key.startswith(api + "."), (hop.seq, hop.kind, key)
            assert not any(word in text for word in CHAT_ONLY), (hop.seq, key, text)


def test_the_messages_reverse_translation_says_the_input_was_already_an_object() -> None:
    for mode in MODES:
        trace = _trace("messages", mode)
        hop = _first(trace, "translate.reverse", Step.REVERSE_TRANSLATION)
        assert "already" in teaching_text(hop, "en") and "parse" in teaching_text(hop, "en")
        assert (
            "已经是" in teaching_text(hop, "zh") and "不用解析" in teaching_text(hop, "zh")
        ) or "没有字符串要解析" in (teaching_text(hop, "zh"))
    hop = _first(_trace("responses", "mcp"), "translate.reverse", Step.REVERSE_TRANSLATION)
    assert "JSON string" in teaching_text(hop, "en") and "call_id" in teaching_text(hop, "en")


def test_the_decision_is_taught_with_the_apis_id_and_arguments() -> None:
    responses = dict((k, t) for _, k, t in _texts(_trace("responses", "mcp"), "en"))
    assert "arguments still a JSON string" in responses["responses.decide.one"]
    messages = dict((k, t) for _, k, t in _texts(_trace("messages", "mcp"), "en"))
    assert "already a JSON object" in messages["messages.decide.one"]
    assert 'stop_reason is "tool_use"' in messages["messages.decide.one"]
    backfill = messages["messages.ask.backfill"]
    assert "tool_result" in backfill and "tool_use_id" in backfill and "user message" in backfill


def test_a_backfill_with_previous_response_id_says_only_the_new_items_were_sent() -> None:
    trace = _trace("responses", "mcp", previous=True)
    hop = _first(trace, "llm.request", Step.BACKFILL)
    view = focus_view(hop)
    assert view["previous_response_id"].startswith("resp_")
    assert [i["type"] for i in view["input"]] == ["function_call_output"]
    assert ["previous_response_id"] in focus_json(hop, view)["highlight"]
    key = next(k for h, k, _ in _texts(trace, "en") if h is hop)
    assert key == "responses.ask.backfill.previous"
    assert view["previous_response_id"] in teaching_text(hop, "en", context=hop_contexts(trace.hops)[hop.seq - 1])


def test_stream_events_are_labelled_and_taught_by_their_type() -> None:
    responses = _trace("responses", "mcp", True)
    chunks: list[Any] = [h for h in responses.hops if h.kind == "llm.chunk" and h.step == Step.DECISION]
    started = next(h for h in chunks if h.payload["data"]["type"] == "response.output_item.added")
    assert "function_call get_weather" in label_lines(started, width=60)[0]
    assert "call_id" in teaching_text(started, "en")
    messages = _trace("messages", "mcp", True)
    piece = next(
        h for h in messages.hops if h.kind == "llm.chunk" and h.payload["data"].get("type") == "content_block_delta"
    )
    assert "partial_json +=" in label_lines(piece, width=60)[0]
    assert "input_json_delta" in teaching_text(piece, "en")
    assembled = _first(messages, "llm.assembled", Step.DECISION)
    assert " ".join(label_lines(assembled, width=60)) == "assembled tool_use: get_weather(city=北京)"
