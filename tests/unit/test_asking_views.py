"""What a reader sees of a server that asks, on traces made by really running the demo's asking tools in both eras:
the arrows go the way the frames went (server -> client for its requests, MCP Client <-> Model API for sampling),
every label says what is asked or answered in zh and en (the Chinese with no English but wire names and payload
values), the rounds of a 2026-07-28 call are shown as rounds of one call, and the card highlights what the hop is
about."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_asking_teaching import CASES, asked, asking_hops
from test_zh_interface import english, hop_words

from flow.text.names import KIND_NAMES
from flow.trace.files import load_trace
from flow.trace.model import Trace
from flow.trace.rounds import call_rounds
from flow.views.diagram import drawn_ends, rows, to_mermaid
from flow.views.focus import focus
from flow.views.labels import label_lines
from flow.views.table import focus_view, hop_rows

WIRE = {"sampling/createMessage", "elicitation/create", "roots/list", "maxTokens", "finish_reason"}


def _keys(value: object) -> set[str]:
    """The keys of a payload at any depth: a form's field names (`city=上海`) are shown as the wire has them."""
    if isinstance(value, dict):
        return {k for k in value if isinstance(k, str)} | {w for v in value.values() for w in _keys(v)}
    if isinstance(value, list):
        return {w for v in value for w in _keys(v)}
    return set()


def _method(trace: Trace, method: str):
    return next(h for h in trace.hops if h.kind == "mcp.request" and h.payload.get("method") == method)


@pytest.mark.parametrize(("tool", "era", "question"), CASES)
def test_every_asking_hop_is_labelled_in_both_languages(tool, era, question):
    trace = asked(question, era)
    rounds = call_rounds(trace.hops)
    for hop in asking_hops(trace):
        zh = label_lines(hop, 32, lang="zh", rounds=rounds)
        en = label_lines(hop, 32, lang="en", rounds=rounds)
        assert zh and en and zh != [KIND_NAMES[hop.kind]["zh"]], (hop.seq, zh)  # said from the payload
        assert not [w for line in zh for w in english(line, hop_words(hop) | _keys(hop.payload) | WIRE)], (hop.seq, zh)
    allowed = WIRE | {w for h in trace.hops for w in hop_words(h) | _keys(h.payload)}
    for row in hop_rows(trace, lang="zh"):
        assert not english(row["summary"], allowed), row


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_sampling_is_drawn_between_the_mcp_client_and_the_model_api(era):
    trace = asked("用一句话说说北京未来三天的天气", era)
    hops = [h for h in trace.hops if "for_server" in h.payload]
    assert [drawn_ends(h) for h in hops] == [("mcp_client", "model"), ("model", "mcp_client")]
    assert all(label_lines(h, lang="en")[0] == "for the MCP server:" for h in hops)
    mermaid = to_mermaid(trace, lang="zh")
    assert "替 MCP 服务器" in mermaid
    if era == "handshake":  # the server's own request, right to left as recorded
        request = _method(trace, "sampling/createMessage")
        assert drawn_ends(request) == ("mcp_server", "mcp_client")
        assert label_lines(request, 40)[:2] == ["sampling/createMessage", "maxTokens 120 · Say this weather foreca…"]


def test_the_rounds_of_one_call_are_shown_in_the_label_the_table_and_the_card():
    trace = asked("What's the weather where I am?", "modern")
    rounds = call_rounds(trace.hops)
    calls = [h for h in trace.hops if h.kind == "mcp.request" and h.payload.get("method") == "tools/call"]
    assert len(calls) == 2 and calls[0].payload["id"] != calls[1].payload["id"]
    assert label_lines(calls[1], 32, rounds=rounds)[-1] == "round 2 of call 1"
    assert label_lines(calls[1], 32, lang="zh", rounds=rounds)[-1] == "第 1 次调用 · 第 2 轮"
    assert label_lines(calls[1], 32)[-1] == "again, with 1 answer"  # alone, the frame says only what it holds
    drawn = {row.first.seq: row.label for row in rows(trace, lang="zh")}
    assert drawn[calls[0].seq].endswith("第 1 次调用 · 第 1 轮")
    summaries = {r["seq"]: r["summary"] for r in hop_rows(trace)}
    assert summaries[calls[1].seq].endswith("· round 2 of call 1")
    view = focus_view(calls[1], rounds=rounds)
    assert view["recorder"]["round"] == {"call": 1, "round": 2, "of": 2}  # the recorder's count, not the frame's
    assert view["inputResponses"] == list(calls[1].payload["params"]["inputResponses"])
    assert view["requestState"].endswith("…") and len(view["requestState"]) == 17
    marked = focus(calls[1], view).highlight
    # the facts at the top of the card, short enough that the call's name below still fits a 720p card
    assert ("inputResponses",) in marked and ("requestState",) in marked and ("params", "name") in marked
    assert ("recorder", "round") in marked


def test_an_input_required_result_names_what_it_asks_for():
    trace = asked("北京有什么课堂笔记？", "modern")
    result = next(h for h in trace.hops if "input_required" in str(h.payload) and h.kind == "mcp.response")
    assert label_lines(result, 32, lang="zh") == ["需要补充输入： roots/list"]
    view = focus_view(result)
    assert list(view["inputRequests"].values()) == ["roots/list"]
    assert ("inputRequests",) in focus(result, view).highlight


def test_the_card_highlights_what_a_server_asks_and_what_the_client_answers():
    trace = asked("我这里今天天气怎么样？", "handshake")
    request = _method(trace, "elicitation/create")
    assert drawn_ends(request) == ("mcp_server", "mcp_client")
    marked = focus(request).highlight
    assert ("params", "message") in marked and ("params", "requestedSchema") in marked
    answer = next(h for h in trace.hops if h.kind == "mcp.response" and h.source == "mcp_client")
    assert label_lines(answer, lang="zh") == ["接受：city=上海"]
    assert ("result", "action") in focus(answer).highlight
    initialize = _method(trace, "initialize")
    assert ("params", "capabilities", "elicitation") in focus(initialize).highlight
    roots = asked("北京有什么课堂笔记？", "handshake")
    given = next(h for h in roots.hops if h.kind == "mcp.response" and h.source == "mcp_client")
    assert label_lines(given, 60, lang="en") == ["1 root: notes"]  # its name, not where the clone lies
    unnamed = given.model_copy(deep=True)
    del unnamed.payload["result"]["roots"][0]["name"]
    assert label_lines(unnamed, 60, lang="en") == ["1 root: …/weather_demo/notes"]
    assert ("result", "roots") in focus(given).highlight


def test_mermaid_escapes_hash_and_semicolon_once():
    """Issue 43: `C#;` became `C#35#59;#59;` (the `;` of `#35;` escaped again)."""
    trace = load_trace(Path("sample_traces/beijing-mcp.json"))
    asked = next(h for h in trace.hops if h.kind == "user.message")
    asked.payload["content"] = asked.summary = "C#; 天气"
    mermaid = to_mermaid(trace, lang="en")
    assert "C#35;#59;" in mermaid and "#35#59;" not in mermaid
