"""Arrow labels never cut a key value: `isError: true`, every parallel call, each call's arguments, each tool_call_id."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from flow.samples import SAMPLES
from flow.text.names import KIND_NAMES
from flow.trace.files import load_trace
from flow.trace.model import KINDS, Hop, Trace
from flow.trace.steps import Step
from flow.views.diagram import COL_W, _label_width, render, rows, to_dot
from flow.views.labels import MAX_LINES, display_width, label_lines, short_label, trace_lifelines
from flow.wire.recorded import api_of_body, turn_of
from helpers import ROOT, odd_payload_hops

NAMES = [s.name for s in SAMPLES]
WIDTHS = [30, 45, 56, 80]  # the diagram's narrowest and widest arrows, Mermaid, the lists


def sample(name: str) -> Trace:
    return load_trace(ROOT / "sample_traces" / f"{name}.json")


def diagram_width(trace: Trace, hop: Hop) -> int:
    x = {a: i * COL_W for i, a in enumerate(trace_lifelines(trace))}
    return _label_width(abs(x[hop.target] - x[hop.source]))


def widths(trace: Trace, hop: Hop) -> list[int]:
    return [diagram_width(trace, hop), *WIDTHS]


def is_error(hop: Hop) -> bool | None:
    holder = hop.payload.get("result", hop.payload) if isinstance(hop.payload, dict) else {}
    return holder.get("isError") if isinstance(holder, dict) else None


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", NAMES)
def test_is_error_true_is_always_readable(name, lang):
    trace = sample(name)
    for hop in trace.hops:
        if hop.kind in ("tool.result", "mcp.response") and is_error(hop) is True:
            for width in widths(trace, hop):
                assert any("isError: true" in line for line in label_lines(hop, width, lang=lang)), (hop.seq, width)
        if hop.kind == "mcp.response" and is_error(hop) is False:
            said = {"en": "result (isError: false)", "zh": "结果（isError: false）"}[lang]
            assert label_lines(hop, diagram_width(trace, hop), lang=lang) == [said]


def test_the_samples_hold_an_error_result():
    assert any(is_error(h) is True for h in sample("tool-error").hops if h.kind == "tool.result")


def _calls(hop: Hop) -> list[tuple[str, dict]]:
    """The calls a decision holds, read by the API it was recorded with (Chat Completions, Responses, Messages)."""
    body = hop.payload["body"] if hop.kind == "llm.response" else hop.payload["message"]
    api = api_of_body(body)
    turn = turn_of(body, api, finish=hop.payload.get("finish_reason") if hop.kind == "llm.assembled" else None)
    assert turn is not None, (hop.seq, api.name)
    return [(c.name, c.parsed if c.parsed is not None else json.loads(c.arguments)) for c in turn.calls]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", NAMES)
def test_every_call_of_a_decision_is_in_its_label_whole(name, lang):
    trace = sample(name)
    for hop in trace.hops:
        if hop.kind not in ("llm.response", "llm.assembled") or hop.step != 4 or "not JSON" in hop.summary:
            continue
        for width in widths(trace, hop):
            text = " ".join(label_lines(hop, width, lang=lang))
            for fn, args in _calls(hop):
                whole = fn + "(" + ", ".join(f"{k}={v}" for k, v in args.items()) + ")"
                # a call wider than the line breaks after its "(" (the lines are joined with a space here)
                seen = text.replace(fn + "( ", fn + "(") if display_width(whole) > width else text
                if (
                    max((display_width(str(v)) for v in args.values()), default=0) <= 16
                ):  # short values are never shortened
                    assert whole in seen, (hop.seq, width, text)
                else:
                    assert fn + "(" + next(iter(args)) + "=" in text
            assert text.count("(") >= len(_calls(hop))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_parallel_calls_and_their_answers_are_all_named(lang):
    for name in ("two-cities-parallel", "quirky-provider"):
        trace = sample(name)
        decision = next(h for h in trace.hops if h.kind == "llm.response" and h.step == 4)
        assert len(_calls(decision)) == 2
        backfill = next(h for h in trace.hops if h.kind == "llm.request" and h.step == 8)
        ids = [m["tool_call_id"] for m in backfill.payload["body"]["messages"] if m.get("role") == "tool"]
        for width in widths(trace, decision):
            text = " ".join(label_lines(decision, width, lang=lang))
            assert "get_weather(city=北京)" in text and "get_weather(city=上海)" in text
            ids_text = " ".join(label_lines(backfill, width, lang=lang))
            assert all(i in ids_text for i in ids) and "×2" in ids_text


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", NAMES)
def test_lines_keep_to_the_width_and_the_line_limit(name, lang):
    trace = sample(name)
    for hop in trace.hops:
        for width in widths(trace, hop):
            lines = label_lines(hop, width, lang=lang)
            assert 1 <= len(lines) <= MAX_LINES and all(lines)
            assert all(display_width(line) <= width for line in lines), (hop.seq, width, lines)
            assert short_label(hop, width, lang=lang) == "\n".join(lines)


def _decision(calls: list[tuple[str, dict]]) -> Hop:
    tool_calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a, ensure_ascii=False)}}
        for i, (n, a) in enumerate(calls)
    ]
    return Hop(
        seq=1,
        step=Step.DECISION,
        phase="decision",
        source="model",
        target="app",
        kind="llm.response",
        payload={"body": {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": tool_calls}}]}},
    )


def test_a_long_value_is_shortened_but_the_call_stays_readable():
    hop = _decision([("get_weather", {"city": "你好，请介绍一下你自己。" * 5, "unit": "c"})])
    text = " ".join(label_lines(hop, 30))
    assert "get_weather(city=你好" in text and "…" in text and "unit=c)" in text


def test_many_parallel_calls_keep_every_name():
    calls = [(f"tool_{i}", {"city": "北京"}) for i in range(6)] + [("get_weather", {"city": "上海"})] * 5
    lines = label_lines(_decision(calls), 45)
    assert len(lines) <= MAX_LINES
    text = " ".join(lines)
    assert all(f"tool_{i}(" in text for i in range(6)) and "get_weather(…) ×5" in text


def test_a_chinese_label_says_in_chinese_what_the_english_one_says():
    trace = sample("streaming")
    said = {h.seq: (short_label(h, 80), short_label(h, 80, lang="zh")) for h in trace.hops}
    assert said[10] == ("2 messages + 4 tools (stream)", "2 条消息 + 4 个工具（流式）")
    assert said[12] == ("chunk 2: tool_call get_weather starts", "第 2 个分块：tool_call get_weather 开始")
    last_assembled = [h.seq for h in trace.hops if h.kind == "llm.assembled"][-1]
    assert said[4][1] == "initialize 的结果" and said[last_assembled][1] == "拼装完成 finish_reason: stop"
    assert [r.label for r in rows(trace, lang="zh") if len(r.hops) > 1][0] == "流式：8 个分块"
    many = label_lines(_decision([(f"tool_{i}", {}) for i in range(60)]), 30, lang="zh")
    assert re.search(r"另 \d+ 个$", many[-1])


def test_beyond_the_room_calls_are_counted_not_cut():
    lines = label_lines(_decision([(f"tool_{i}", {}) for i in range(60)]), 30)
    assert len(lines) <= MAX_LINES and re.search(r"\+\d+ more$", lines[-1])
    assert all(
        re.fullmatch(r"(tool_calls:|tool_\d+\(…\),?|\+\d+ more)", atom)
        for line in lines
        for atom in re.split(r" (?=tool_|\+)", line)
    )


@pytest.mark.parametrize(
    "payload",
    [
        None,
        "text",
        [],
        {},
        {"tools": [1, None, {"function": 2}]},
        {"body": {"choices": [{"message": {"tool_calls": [1, {"function": "f"}]}}]}},
        {
            "body": {
                "choices": [{"message": {"tool_calls": [{"function": {"name": "n" * 500, "arguments": "[" * 100000}}]}}]
            }
        },
        {"body": {"messages": [{"role": "tool"}, {"role": "tool", "tool_call_id": 7}]}},
        {"call_request": {"name": None, "arguments": [1]}},
        {"function": "f", "kwargs": 3},
        {"method": "tools/call", "params": {"arguments": "x"}},
        {"result": {"isError": "yes"}},
        {"isError": True, "tool_message_content": 5},
        {"openai": 3},
    ],
)
def test_a_label_of_an_odd_payload_is_text_or_the_file_is_refused(payload):
    """A payload not of its kind's type never loads; any that loads (a wire body holds what the peer sent) or that
    the recorder cut (`clipped`) gets a label."""
    for kind, hop in odd_payload_hops(payload):
        for lang in ("en", "zh"):
            lines = label_lines(hop, 30, lang=lang)
            assert lines and all(isinstance(line, str) and display_width(line) <= 60 for line in lines), (kind, lang)


def test_a_label_of_several_lines_is_drawn_on_several_lines_with_room_above():
    trace = sample("two-cities-parallel")
    # Without the server's reports of running its function, so without the Tool column: the decision's arrow is
    # then narrow enough that its two calls take two lines.
    trace.hops = [h for h in trace.hops if "tool" not in (h.source, h.target)]
    decision = next(h for h in trace.hops if h.kind == "llm.response" and h.step == 4)
    assert "\n" in short_label(decision, diagram_width(trace, decision))
    dot = to_dot(trace, window=None)
    assert re.search(
        rf'label=<[^\n]*get_weather\(city=北京\),<BR/>get_weather\(city=上海\)> id="label-hop-{decision.seq}"', dot
    )
    # Arrows step down the page, one row apart, and a row whose label has more lines is taller.
    found = re.findall(r'r\d+(a|p0) \[pos="[\d.-]+,([\d.-]+)!"', dot)  # a self-loop starts 0.09 in above its row
    ys = [float(y) - (0.09 * 72 if point == "p0" else 0) for point, y in found]
    gaps = [round(a - b, 1) for a, b in itertools.pairwise(ys)]
    lines = [short_label(r.first, diagram_width(trace, r.first)).count("\n") for r in rows(trace)][1:]
    assert all(g > 0 for g in gaps) and len(gaps) == len(lines)
    assert all((g > min(gaps) + 1) == (n > 0) for g, n in zip(gaps, lines, strict=True))
    svg = render(dot, "svg").decode()
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert any("get_weather(city=北京)" in t for t in texts) and any("get_weather(city=上海)" in t for t in texts)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_empty_answer_is_said_not_shown_as_nothing(lang):
    from flow.text.errors import EMPTY_ANSWER

    hop = Hop(
        seq=1,
        step=Step.SHOW_ANSWER,
        phase="answer",
        source="app",
        target="user",
        kind="app.answer",
        payload={"content": ""},
    )
    assert short_label(hop, 60, lang=lang) == EMPTY_ANSWER[lang]


@pytest.mark.parametrize("name", NAMES)
def test_a_label_is_made_from_the_payload_in_both_languages(name):
    """Whatever the recorded summary says, the arrow says what the payload holds, by the same rule in English and
    in Chinese; only what the pairing or the stream knew (the method a result answers, a chunk's number, the request
    a progress notice is about) is read from the summary, in both languages."""
    trace = sample(name)
    for hop in trace.hops:
        if hop.kind in ("mcp.response", "llm.chunk", "mcp.notification"):
            continue
        other = hop.model_copy(update={"summary": "something else"})
        for lang in ("en", "zh"):
            assert label_lines(other, 80, lang=lang) == label_lines(hop, 80, lang=lang), (hop.seq, lang)


def test_every_kind_has_a_name_and_a_label_when_its_payload_is_cut():
    for kind in KINDS:
        assert set(KIND_NAMES[kind]) == {"en", "zh"}, kind
        hop = Hop(seq=1, step=None, phase=None, source="app", target="app", kind=kind, payload="{", clipped="cut")
        assert label_lines(hop, lang="zh") == [KIND_NAMES[kind]["zh"]]
        assert label_lines(hop.model_copy(update={"summary": "what was recorded"})) == ["what was recorded"]
        assert label_lines(hop) == [kind]  # no summary either: the kind, as the English table names it


@pytest.mark.parametrize(
    ("payload", "en", "zh"),
    [
        (
            {"error": "timeout", "method": "tools/call", "timeout_s": 0.5},
            "no answer to tools/call within 0.5 s",
            "故障：0.5 秒内没有回答 tools/call",
        ),
        (
            {"error": "timeout", "method": "tools/call", "timeout_s": 30.0, "answering": True, "unread_bytes": 9},
            "the answer to tools/call still arriving after 30 s",
            "故障：30 秒后 tools/call 的回答仍未传完",
        ),
        (
            {
                "http": {
                    "method": "POST",
                    "url": "http://127.0.0.1:1/mcp",
                    "jsonrpc": {"method": "tools/list"},
                    "status": 404,
                }
            },
            "HTTP 404 for POST tools/list",
            "故障：HTTP 404（POST tools/list）",
        ),
    ],
)
def test_a_server_failure_says_what_its_payload_holds_in_both_languages(payload, en, zh):
    hop = Hop(
        seq=1,
        step=Step.TOOL_RESULT,
        phase="execute",
        source="mcp_server",
        target="mcp_client",
        kind="error",
        payload=payload,
    )
    assert (short_label(hop, 80), short_label(hop, 80, lang="zh")) == (en, zh)


def test_a_model_failure_says_the_limit_it_crossed_in_both_languages():
    def said(payload):
        hop = Hop(
            seq=1, step=Step.DECISION, phase="decision", source="model", target="app", kind="llm.error", payload=payload
        )
        return short_label(hop, 80), short_label(hop, 80, lang="zh")

    assert said({"error": "deadline", "limit_s": 30.0}) == (
        "no complete answer within 30 s",
        "模型出错：30 秒内没有完整的回答",
    )
    assert said({"error": "too large", "limit_bytes": 10 << 20}) == (
        "answer over 10 MB: reading stopped",
        "模型出错：回答超过 10 MB，已停止读取",
    )
    assert said({"status": 429, "body": {}}) == ("HTTP 429", "模型出错：HTTP 429 错误")
