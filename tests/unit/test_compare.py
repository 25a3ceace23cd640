"""Compare makes the point: the one sentence is computed from the two traces, the figures are the ones noise cannot
move, "only in A / B" is in plain words, and the two diagrams put each message at the same height."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from flow.text.names import KIND_NAMES
from flow.text.route import MESSAGE_NAMES as ROUTE_NAMES
from flow.trace.files import load_trace
from flow.trace.model import Trace
from flow.trace.steps import Step
from flow.views.compare import figures, message_name, per_step, point, shape, side_by_side, summary_rows
from flow.views.diagram import LINE_H, ROW_H, to_dot
from helpers import ROOT


def sample(name: str) -> Trace:
    return load_trace(ROOT / "sample_traces" / f"{name}.json")


def frames_of(trace: Trace, methods: tuple[str, ...]) -> int:
    """MCP frames that carry one of `methods`, or answer a request that did: counted here by JSON-RPC id."""
    asked = {h.jsonrpc_id for h in trace.hops if h.kind == "mcp.request" and h.payload.get("method") in methods}
    sent = sum(h.kind.startswith("mcp.") and h.payload.get("method") in methods for h in trace.hops)
    answered = sum(h.kind in ("mcp.response", "mcp.error") and h.jsonrpc_id in asked for h in trace.hops)
    return sent + answered


SETUP = ("initialize", "notifications/initialized")
DISCOVER = ("server/discover",)


def shares(trace: Trace) -> str:
    """The tool definitions' share of the bytes sent to the model, computed here from the request payloads."""
    bodies = [h.payload["body"] for h in trace.hops if h.kind == "llm.request"]
    tools = sum(len(json.dumps(b["tools"], ensure_ascii=False, separators=(",", ":")).encode()) for b in bodies)
    return f"{tools / sum(h.bytes for h in trace.hops if h.kind == 'llm.request'):.0%}"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_sentence_names_its_own_tables_decisive_figures(lang):
    direct, mcp = sample("beijing-direct"), sample("beijing-mcp")
    setup, listing = frames_of(mcp, SETUP), frames_of(mcp, ("tools/list",))
    calls = sum(h.kind == "llm.request" for h in mcp.hops)
    assert (setup, listing, calls, shares(direct), shares(mcp)) == (3, 2, 2, "78%", "78%")
    rows = {r["figure"]: (r["A"], r["B"]) for r in summary_rows(direct, mcp, lang="en")}
    text = point(direct, mcp, lang=lang)
    if lang == "zh":
        expected = [
            "模型收到的请求几乎一样",
            f"工具定义在两边都占 {shares(mcp)}",
            f"MCP 每个会话多一次 initialize + notifications/initialized（{setup} 帧）和 tools/list（{listing} 帧）",
            "每个问题多宿主的正向翻译",
            f"同样被调用 {calls} 次",
            "最终回答相同",
            "一个服务器给许多宿主复用",
            "几个固定函数、一个应用，用函数调用就够了",
        ]
    else:
        expected = [
            "The model receives practically the same requests",
            f"the tool definitions are {shares(mcp)} of them in both",
            f"once per session, initialize + notifications/initialized ({setup} frames) and tools/list ({listing} frames)",
            "per question, the host's forward translation",
            f"called {calls} times",
            "the same answer",
            "one server reused by many hosts",
            "function calling for a few fixed functions in one app",
        ]
    expected += [f"{b:,}" for b in rows["bytes sent to the model"]] + [rows["tool definitions' share of the bytes"][1]]
    for part in expected + ["get_weather(city=北京)"]:
        assert part in text, (part, text)
    assert point(mcp, direct, lang=lang) == text  # what MCP adds, whichever side it is on


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_direct_modes_json_loads_is_not_called_a_reverse_translation(lang):
    direct, mcp = sample("beijing-direct"), sample("beijing-mcp")
    assert any(h.kind == "translate.reverse" and h.target == "tool" for h in direct.hops)  # the hop that was counted
    assert shape(direct).translations["translate.reverse"] == 0
    text = point(direct, mcp, lang=lang)
    assert ("这不是反向翻译" if lang == "zh" else "json.loads of the arguments is no reverse translation") in text
    # the wrong count the issue names: "2 translation hops (direct function calling: 1 ...)"
    assert "direct function calling: 1" not in text and "直接函数调用 1 跳" not in text
    assert "2 translation hops" not in text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_server_discover_is_not_counted_as_session_set_up(lang):
    direct, modern = sample("beijing-direct"), sample("era-modern")
    assert frames_of(modern, SETUP) == 0 and frames_of(modern, DISCOVER) == 2
    assert shape(modern).setup_frames == 0 and shape(modern).discover_frames == 2
    text = point(direct, modern, lang=lang)
    assert "server/discover" in text
    assert ("2026-07-28 没有会话" if lang == "zh" else "2026-07-28 has no session") in text
    assert ("每个会话" if lang == "zh" else "once per session") not in text
    assert "会话建立 2 帧" not in text and "session set-up of 2 frames" not in text
    era = point(sample("era-handshake"), modern, lang=lang)
    assert (
        "server/discover 2 帧（不是会话建立" if lang == "zh" else "server/discover of 2 frames (no session set-up"
    ) in era


def test_the_sentence_follows_the_traces_not_a_script():
    handshake, modern = sample("era-handshake"), sample("era-modern")
    text = point(handshake, modern, lang="zh")
    assert f"会话建立 {frames_of(modern, SETUP)} 帧（initialize、notifications/initialized；A：3 帧）" in text
    assert "工具发现" not in text and "多了" not in text  # both list their tools alike; B has fewer frames, not more
    different = point(sample("beijing-direct"), sample("two-rounds"), lang="en")
    assert different.startswith("The model receives different requests")
    assert "What differs" in different and "best_practice(topic=sunny)" in different
    assert "the model calls (direct mode: 2, MCP: 3)" in different
    assert f"MCP 3 calls of {figures(sample('two-rounds')).bytes_to_model:,} bytes" in different
    same = point(sample("beijing-mcp"), sample("beijing-mcp"), lang="en")
    assert same.startswith("The two runs have the same set-up") and "adds" not in same


def test_a_shape_counts_what_the_hops_hold():
    s = shape(sample("beijing-mcp"))
    assert s.setup_methods == ("initialize", "notifications/initialized") and s.discovery_methods == ("tools/list",)
    assert s.translations == {"translate.forward": 1, "translate.reverse": 1}
    assert (s.calls, s.call_frames) == (1, 2)
    assert s.decisions == ("get_weather(city=北京)",)
    assert shape(sample("beijing-direct")).setup_frames == 0


def test_the_figures_hold_no_times_and_match_the_traces():
    a, b = sample("beijing-direct"), sample("beijing-mcp")
    for lang in ("zh", "en"):
        names = [r["figure"] for r in summary_rows(a, b, lang=lang)]
        assert not [n for n in names if "ms" in n or "耗时" in n or "毫秒" in n], names
    zh = [r["figure"] for r in summary_rows(a, b, lang="zh")]
    assert {"输入词元数（prompt_tokens，模型报告）", "工具定义的词元数（估算）"} <= set(zh)
    assert not [n for n in zh if "提示词" in n or " token" in n]  # the glossary: 词元, and prompt_tokens shares no 提示
    rows = {r["figure"]: (r["A"], r["B"]) for r in summary_rows(a, b, lang="en")}
    assert rows["hops"] == (len(a.hops), len(b.hops))
    frames = (a.meta.stats.get("wire_frames"), b.meta.stats.get("wire_frames"))
    assert None not in frames and rows["MCP wire frames"] == frames

    assert rows["model calls"] == (2, 2)
    requests = [h for h in b.hops if h.kind == "llm.request"]
    assert rows["bytes sent to the model"][1] == sum(h.bytes for h in requests) == figures(b).bytes_to_model
    assert rows["tool definitions' share of the bytes"] == (
        f"{figures(a).tool_share:.0%}",
        f"{figures(b).tool_share:.0%}",
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_only_in_a_or_b_is_in_plain_words_and_whole(lang):
    table = per_step(sample("beijing-direct"), sample("beijing-mcp"), lang=lang)
    assert [r["step"] for r in table] == list(range(11))
    two = table[2]
    assert two["only in A"] == KIND_NAMES["tool.list"][lang]
    assert f"{KIND_NAMES['mcp.request'][lang]} ×2" in two["only in B"]
    assert KIND_NAMES["mcp.notification"][lang] in two["only in B"]
    for row in table:
        for side in ("only in A", "only in B"):
            assert not re.search(r"\b[a-z]+\.[a-z]+\b", row[side]) and "…" not in row[side], row[side]
    # the names Step through's route gives the same message (flow.text.route, as the viewer's strip shows them)
    for step in (Step.ASK_MODEL, Step.REVERSE_TRANSLATION):
        assert table[step]["what"] == message_name(step, lang) + " · " + ROUTE_NAMES[step][lang]
    assert table[3]["what"] == ("消息 3 · 带工具问模型" if lang == "zh" else "message 3 · ask with tools")
    assert table[0]["what"].startswith("阶段零" if lang == "zh" else "phase zero")


def _message_tops(dot: str) -> dict[str, float]:
    """Where each message begins (points, from the top) in a diagram's DOT: the first arrow of that message, raised
    by its row's height (a label of several lines makes a row taller)."""
    ys: dict[int, float] = {}
    for i, y in re.findall(r'\br(\d+)(?:a|p0) \[pos="[-\d.]+,([-\d.]+)!"', dot):
        ys.setdefault(int(i), float(y) - (6.48 if f"r{i}p0" in dot else 0))  # a self-loop starts 0.09 in higher
    tops: dict[str, float] = {}
    for i, number, body in re.findall(r"\br(\d+)l \[label=<<B>([^<]*)</B>(.*?)> id=", dot):
        key = re.match(r"(r\d+·)?\d+", number)
        if key and key[0] not in tops:
            tops[key[0]] = ys[int(i)] + (ROW_H + body.count("<BR/>") * LINE_H) * 72
    return tops


@pytest.mark.parametrize(
    ("a", "b"), [("beijing-direct", "beijing-mcp"), ("beijing-direct", "two-rounds"), ("tool-choice-none", "streaming")]
)
def test_the_two_diagrams_put_each_message_level(a, b):
    ta, tb = sample(a), sample(b)
    dot_a, dot_b = side_by_side(ta, tb, lang="zh")
    tops_a, tops_b = _message_tops(dot_a), _message_tops(dot_b)
    shared = set(tops_a) & set(tops_b)
    assert {"1", "3", "9", "10"} <= shared
    assert all(abs(tops_a[k] - tops_b[k]) < 0.5 for k in shared), {k: (tops_a[k], tops_b[k]) for k in shared}
    # drawn alone, they are not level: the alignment is the comparison's doing
    alone_a, alone_b = (
        _message_tops(to_dot(ta, window=None, lang="zh")),
        _message_tops(to_dot(tb, window=None, lang="zh")),
    )
    assert any(abs(alone_a[k] - alone_b[k]) > 5 for k in shared)


# --- the page ----------------------------------------------------------------------------------------------------


def compare_page(lang: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=90).run()
    at.radio(key="lang_choice").set_value(lang).run()
    at.switch_page("app_pages/compare.py").run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_page_puts_the_sentence_and_the_diagrams_first(lang):
    at = compare_page(lang)
    [info] = at.info
    assert info.value.replace("\\", "") == point(sample("beijing-direct"), sample("beijing-mcp"), lang=lang)
    [diagrams] = [e for e in at.get("html") if "compare-diagrams" in e.proto.body]
    body = diagrams.proto.body
    assert body.count('src="data:image/svg+xml;base64,') == 4  # side by side, and one above the other (a phone)
    # one scale: side by side each column is as wide as its picture's share; the direct run has a lifeline fewer
    [columns] = re.findall(
        r"\.cmp-pair\{[^}]*grid-template-columns:minmax\(0,([\d.]+)fr\) minmax\(0,([\d.]+)fr\)", body
    )
    assert 0.6 < float(columns[0]) / float(columns[1]) < 1
    widths = [float(w) for w in re.findall(r'style="width:([\d.]+)%"', body.split("compare-diagrams-stacked")[1])]
    assert widths[1] == 100.0 and 60 < widths[0] < 100  # one above the other, the same scale
    # the sentence, then the diagrams, then the figures and the messages, in the page's order
    order = [id(e) for e in at.main]
    assert (
        order.index(id(info)) < order.index(id(diagrams)) < order.index(id(at.table[0])) < order.index(id(at.table[1]))
    )
    assert not at.get("graphviz_chart")  # drawn once, as pictures at one scale


def test_the_page_follows_the_pickers_and_shows_no_times():
    at = compare_page("en")
    at.selectbox(key="compare_a_en").set_value("sample:era-handshake").run()
    at.selectbox(key="compare_b_en").set_value("sample:era-modern").run()
    assert not at.exception
    assert "server/discover" in at.info[0].value and "Compared with A, B" in at.info[0].value
    assert "session set-up of 0 frames" in at.info[0].value  # discover is not counted as one
    figures_table = at.table[0].value
    assert not [f for f in figures_table["figure"] if "ms" in f.split()]
    assert "MCP wire frames" in list(figures_table["figure"])
    steps = at.table[1].value
    assert "message 2 · which tools" in list(steps["what"])


def _band_edges(dot: str) -> list[tuple[str, float, float]]:
    """Each phase band of a diagram: its phase's name, top and bottom (points)."""
    names = dict(re.findall(r'\bbandlabel(\d+) \[label="([^"]*)"', dot))
    edges = []
    for b, height, y in re.findall(r'\bband(\d+) \[[^\]]*height=([\d.]+) pos="[-\d.]+,([-\d.]+)!"', dot):
        half = float(height) * 72 / 2
        edges.append((names[b], float(y) + half, float(y) - half))
    return edges


def test_the_phase_bands_of_the_two_diagrams_meet_at_the_same_heights():
    dot_a, dot_b = side_by_side(sample("beijing-direct"), sample("beijing-mcp"), lang="zh")
    bands_a, bands_b = _band_edges(dot_a), _band_edges(dot_b)
    assert [n for n, _, _ in bands_a] == [n for n, _, _ in bands_b] == ["准备", "请求", "决策", "执行", "回填", "回答"]
    for (name, top_a, bottom_a), (_, top_b, bottom_b) in zip(bands_a, bands_b, strict=True):
        assert abs(top_a - top_b) < 1 and abs(bottom_a - bottom_b) < 1, (name, top_a, top_b, bottom_a, bottom_b)


def test_the_sentences_share_moves_when_a_traces_tools_change():
    direct, mcp = sample("beijing-direct"), sample("beijing-mcp")
    hops = []
    for hop in mcp.hops:
        if hop.kind == "llm.request":
            body = {**hop.payload["body"], "tools": hop.payload["body"]["tools"][:1]}
            size = len(json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode())
            hop = hop.model_copy(update={"payload": {**hop.payload, "body": body}, "bytes": size})
        hops.append(hop)
    fewer = mcp.model_copy(update={"hops": hops})
    moved = shares(fewer)
    assert moved != shares(mcp) == "78%"
    text = point(direct, fewer, lang="en")
    assert text.startswith("The model receives different requests")  # one tool against four: not the same
    assert f"tool definitions {moved}" in text and f"{figures(fewer).bytes_to_model:,} bytes" in text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_two_runs_through_two_apis_name_their_api_in_the_pickers(lang):
    """'Run two' with two APIs: the A and B pickers say which API each run went to (the question and the mode are the
    same), and the diagrams' titles, whose side names already carry the API, do not say it twice."""
    at = compare_page(lang)
    at.radio(key="compare_pair").set_value("chat_responses")
    at.button[0].click().run()  # the form's submit button
    assert not at.exception, at.exception
    picked = [at.selectbox(key=f"compare_{side}_{lang}") for side in ("a", "b")]
    shown = [box.format_func(box.value) for box in picked]
    apis = ("Chat Completions", "Responses")
    for title, api in zip(shown, apis, strict=True):
        assert f" · {api} · " in title, shown
    diagrams = next(e for e in at.main if "compare-diagrams" in str(getattr(e, "proto", "")))
    titles = re.findall(r'class=\\?"cmp-title\\?" title=\\?"([^"\\]*)', str(diagrams.proto))
    assert len(titles) == 4, titles  # each side's title, side by side and stacked
    for title in titles:
        assert sum(title.count(api) for api in apis) == 1, title  # "A · Responses · #2 MCP · …"
