"""The Chinese interface has no English left but protocol names and JSON: every page (Run, Step through, Compare,
Hops) and every render format (DOT, SVG, Mermaid, the hop table, HTML) is drawn in zh for every sample, and each
label and text is scanned for English words.

A word is allowed when it is a protocol name, a JSON key shown as code, an acronym or a unit (ALLOWED); when it is
an identifier (an underscore or a digit in it: `get_weather`, `call_5504518c0`); when it comes from the payload
the text shows (a string value of that hop, the keys of a call's arguments, the question); or when it sits inside
`code` in Markdown. Anything else is an English word in the Chinese interface, and the test names it."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable
from typing import Any, cast

import pytest
from streamlit.testing.v1 import AppTest

from flow.samples import SAMPLES
from flow.trace.files import load_trace
from flow.trace.model import Hop, Trace
from flow.views.compare import per_step, point, side_by_side, summary_rows
from flow.views.diagram import render, rows, to_dot, to_mermaid
from flow.views.html import to_html
from flow.views.labels import label_lines
from flow.views.table import hop_rows
from helpers import ROOT, must_search

NAMES = [s.name for s in SAMPLES]


ALLOWED = {
    # MCP and JSON-RPC methods, as the wire names them
    "initialize",
    "tools/list",
    "tools/call",
    "notifications/initialized",
    "notifications/progress",
    "notifications/message",
    "server/discover",
    "resources/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "resources/subscribe",
    "subscriptions/listen",
    "notifications/cancelled",
    "notifications/subscriptions/acknowledged",
    "notifications/resources/updated",
    "ping",
    # the capabilities a server may ask a host for, and what may change: MCP's own names
    "sampling",
    "elicitation",
    "roots",
    "listChanged",
    # JSON keys and values shown as code on an arrow or in a sentence
    "role",
    "tool",
    "assistant",
    "isError",
    "inputSchema",
    "parameters",
    "arguments",
    "content",
    "usage",
    "DONE",
    "true",
    "false",
    "stop",
    "auto",
    "none",
    "required",
    "strict",
    # the keys of a server's asks, of the host's answers and of a structured result (MCP)
    "maxTokens",
    "systemPrompt",
    "inputRequests",
    "inputResponses",
    "requestState",
    "resultType",
    "structuredContent",
    "outputSchema",
    # the Responses and Messages APIs' own keys and values, shown as code on an arrow
    "input",
    "status",
    "completed",
    "text",  # a Messages stream's text_delta adds to the text: "text += …"
    # names: protocols, formats, products, and what an operator types
    "MCP",
    "API",
    "Key",
    "JSON",
    "RPC",  # JSON-RPC, the protocol MCP speaks
    "HTTP",
    "HTML",
    "SVG",
    "CSV",
    "OTLP",
    "OpenTelemetry",
    "OpenAI",
    "Anthropic",
    "Chat",
    "Completions",
    "Responses",
    "Messages",
    "vs",  # Compare's "Chat Completions vs Anthropic Messages"
    "SDK",
    "Base",
    "URL",
    "Schema",
    "token",
    "stdio",
    "python",
    "bench",
    "dev",  # ./dev.sh app --lan and mcp-flow app --lan, the commands that serve a room to a classroom
    "mcp",
    "flow",
    "sh",
    "app",
    "lan",
    "English",  # the language switch names the other language in its own words
    "Language",
    "A",
    "B",
    "ops",  # the 40-tool demo server is named ops-demo on the wire (its InitializeResult's serverInfo)
    "demo",
    # the keys of a keyboard, as they are printed on it
    "Home",
    "End",
    "PageUp",
    "Esc",
    "PageDown",
    # units
    "ms",
    "KB",
    "MB",
}


WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:/[A-Za-z_][A-Za-z0-9_]*)*")


def words(text: str) -> set[str]:
    return set(WORD.findall(text))


def _walk(value: Any, out: set[str], *, under: str = "") -> None:
    """The words of a payload's string values, and the keys of a call's arguments or of a form's answers (shown as
    `city=北京`)."""
    if isinstance(value, str):
        out |= words(value)
        if under == "arguments":
            try:
                parsed = json.loads(value)
            except (json.JSONDecodeError, RecursionError):
                return
            _walk(parsed, out, under="kwargs")
    elif isinstance(value, dict):
        if under in ("arguments", "kwargs"):
            out |= {k for k in value if isinstance(k, str)}
        for key, item in value.items():
            # a Messages tool_use block holds its arguments as an object under "input"; an accepted form (MCP
            # elicitation) its answers as an object under "content", shown like arguments (`city=上海`)
            kwargs = key == "input" or (key == "content" and isinstance(item, dict))
            _walk(item, out, under=key if key in ("arguments", "kwargs") else "kwargs" if kwargs else "")
    elif isinstance(value, list):
        for item in value:
            _walk(item, out, under=under)


def hop_words(hop: Hop) -> set[str]:
    found: set[str] = set()
    _walk(hop.payload, found)
    return found


def trace_words(trace: Trace) -> set[str]:
    """What a page about the trace may show in English: its question, title, model and every hop's payload words.
    (Pages show payload values: the questions, answers and tool results themselves.)"""
    found = words(trace.meta.question) | words(json.dumps(trace.meta.model, ensure_ascii=False, default=str))
    found |= words(json.dumps(trace.meta.title or {}, ensure_ascii=False))
    for hop in trace.hops:
        found |= hop_words(hop)
    return found


def english(text: str, allowed: Iterable[str] = ()) -> list[str]:
    """The English words of `text` outside the allow-list: inline `code` is left out, identifiers pass."""
    text = re.sub(r"`[^`]*`", " ", text)
    known = ALLOWED | set(allowed)
    out = set()
    for m in WORD.finditer(text):
        w = m[0]
        if w in known or re.search(r"[_0-9]", w) or len(w) < 2:
            continue
        if re.match(r"/?…", text[m.end() :]) and any(k.startswith(w) for k in known):
            continue  # a payload value cut short to fit: the start of an allowed word
        out.add(w)
    return sorted(out)


def sample(name: str) -> Trace:
    return load_trace(ROOT / "sample_traces" / f"{name}.json")


# --- the scanner itself ------------------------------------------------------------------------------------------


def test_the_scanner_finds_an_english_label_and_passes_protocol_and_payload():
    hop = sample("beijing-mcp").hops[9]  # the first model request
    assert english("2 messages + 4 tools", hop_words(hop)) == ["messages"]  # "tools" is in its payload
    assert english("stream: 8 chunks · +2 more", hop_words(hop)) == ["chunks", "more", "stream"]
    assert english('结果：{ "conditio…', {"condition"}) == [] and english("conditio", {"condition"}) == ["conditio"]
    assert english("2 条消息 + 4 个工具", hop_words(hop)) == []
    assert english("tools/call get_weather(city=北京) · result (isError: true)", {"city"}) == ["result"]
    assert english("第 `mcp.request` 跳") == []


# --- every render format -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_arrow_label_is_chinese(name):
    trace = sample(name)
    for hop in trace.hops:
        for width in (30, 56, 80):
            text = " ".join(label_lines(hop, width, lang="zh"))
            assert not english(text, hop_words(hop)), (hop.seq, hop.kind, text)
    for row in rows(trace, lang="zh"):  # a stream's chunks or a request's progress drawn as one arrow
        allowed = set().union(*(hop_words(h) for h in row.hops))
        assert not english(row.label, allowed), (row.number, row.label)


def _dot_texts(dot: str) -> list[str]:
    """The text of every label in DOT: HTML-like labels (<...>) and quoted ones."""
    texts = []
    for line in dot.splitlines():
        if found := re.search(r"label=<(.*)>(?: \w+=|\]$)", line):
            texts.append(html.unescape(re.sub(r"<[^<>]*>", " ", found[1])))
        texts += re.findall(r'label="((?:[^"\\]|\\.)*)"', line)
    return texts


@pytest.mark.parametrize("name", NAMES)
def test_the_diagram_in_every_format_is_chinese(name):
    trace = sample(name)
    allowed = trace_words(trace)
    dot = to_dot(trace, window=None, lang="zh")
    found = [w for text in _dot_texts(dot) for w in english(text, allowed)]
    assert _dot_texts(dot) and not found, found
    svg = render(dot, "svg").decode()
    svg_texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg, flags=re.S)]
    assert svg_texts and not [w for t in svg_texts for w in english(t, allowed)]
    mermaid = to_mermaid(trace, lang="zh")
    body = [line.split(":", 1)[-1] for line in mermaid.splitlines()[1:] if not line.strip().startswith("rect")]
    # Mermaid's own words: a participant's alias, a box's colour (hosted MCP's lifelines at the provider)
    found = [w for line in body for w in english(re.sub(r"participant \w+ as|box rgba\([^)]*\)", " ", line), allowed)]
    assert not found, found


@pytest.mark.parametrize("name", NAMES)
def test_the_hop_table_is_chinese(name):
    trace = sample(name)
    for hop, row in zip(trace.hops, hop_rows(trace, lang="zh"), strict=True):
        for column in ("phase", "from", "to", "kind", "summary"):
            assert not english(str(row[column]), hop_words(hop)), (hop.seq, column, row[column])


@pytest.mark.parametrize("name", ["beijing-mcp", "streaming", "unknown-tool"])
def test_the_html_export_draws_its_diagram_and_controls_in_chinese(name):
    trace = sample(name)
    page = to_html(trace, lang="zh")
    bundle = json.loads(must_search(r'<script type="application/json" id="flow-bundle">(.*?)</script>', page, re.S)[1])
    allowed = trace_words(trace)
    svg_texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", bundle["svg"], flags=re.S)]
    assert svg_texts and not [w for t in svg_texts for w in english(t, allowed)]
    controls = [re.sub(r"\{\w+\}", " ", texts["zh"]) for texts in bundle["ui"].values()]  # {n} is filled in
    assert not [w for t in controls for w in english(t)], controls
    assert not [w for p in bundle["phases"].values() for w in english(p["name"]["zh"])]
    assert not english(must_search(r"<title>(.*?)</title>", page)[1], allowed)
    labels = [h["label"] for h in bundle["hops"]]  # the viewer's list and header
    assert labels and not [w for t in labels for w in english(t, allowed)], labels


@pytest.mark.parametrize(("a", "b"), [("beijing-direct", "beijing-mcp"), ("era-handshake", "era-modern")])
def test_the_comparison_is_chinese(a, b):
    ta, tb = sample(a), sample(b)
    allowed = trace_words(ta) | trace_words(tb)
    assert not english(point(ta, tb, lang="zh"), allowed)
    for row in summary_rows(ta, tb, lang="zh") + per_step(ta, tb, lang="zh"):
        for key, value in row.items():
            if key not in ("phase",):  # the phase code is named by the page
                assert not english(str(value), allowed), (key, value)
    for dot in side_by_side(ta, tb, lang="zh"):
        assert not [w for text in _dot_texts(dot) for w in english(text, allowed)]


# --- every page --------------------------------------------------------------------------------------------------


def _element_texts(at: AppTest) -> list[str]:
    """Every text a person reads on the page: headings, Markdown, captions, alerts, widget labels, options and
    placeholders, buttons, table headers and cells, the Compare diagrams' titles. JSON views are left out."""
    out: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success"):
        out += [str(getattr(e, "value", "")) for e in at.get(kind)]
    for kind in ("selectbox", "multiselect", "radio", "text_input", "text_area", "number_input", "checkbox"):
        for e in at.get(kind):
            out.append(str(getattr(e, "label", "")))
            out += [str(o) for o in getattr(e.proto, "options", [])]
            if getattr(e.proto, "placeholder", ""):
                out.append(e.proto.placeholder)
            elif kind == "multiselect":  # no placeholder given: the browser shows Streamlit's own, in English
                out.append("Choose options" if e.proto.options else "No options to select")
            if getattr(e.proto, "help", ""):
                out.append(e.proto.help)
    for kind in ("button", "download_button", "form_submit_button", "expander", "status"):
        out += [str(getattr(e.proto, "label", "")) for e in at.get(kind)]
    out += [e.proto.popover.label for e in at.get("popover")]
    for e in at.get("button_group"):  # pills
        out += [str(getattr(e.proto, "label", ""))] + [str(o.content) for o in e.proto.options]
    for e in [*at.get("table"), *at.get("dataframe")]:
        frame = cast(Any, e).value  # a table or a dataframe: an element, never a block
        out += [str(c) for c in frame.columns]
        out += [str(v) for v in frame.astype(str).to_numpy().ravel()]
    for e in at.get("html"):
        out += [re.sub(r"<[^>]+>", " ", m) for m in re.findall(r'class="cmp-title"[^>]*>(.*?)</div>', e.proto.body)]
    return out


def zh_app() -> AppTest:
    at = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=90).run()
    at.radio(key="lang_choice").set_value("zh").run()
    assert not at.exception
    return at


def _scan(at: AppTest, allowed: set[str], where: str) -> None:
    assert not at.exception, at.exception
    found = {w: text for text in _element_texts(at) for w in english(text, allowed)}
    assert not found, (where, found)


ALL_SAMPLE_WORDS = set().union(*(trace_words(sample(n)) for n in NAMES))


def _run_names() -> set[str]:
    """The names the Run page offers to choose from: the mock models, the providers, the servers and what the demo
    server offers (resources, prompts). Products' and programs' own names, in no language."""
    from flow import EXAMPLE_QUESTIONS, MOCK_MODELS, PRESETS, configured_servers

    names = {*MOCK_MODELS, *(p.name for p in PRESETS), *(p.model for p in PRESETS), *configured_servers()}
    names |= {
        "weather://cities",
        "weather://alerts",
        "dev://now",
        "weather_report",
        "README",
        "openai",
        "id",
        "llama.cpp",
    }
    names |= set(EXAMPLE_QUESTIONS)  # the questions a class may ask, some of them in English on purpose
    return set().union(*(words(n) for n in names))


def test_the_run_page_is_chinese():
    at = zh_app()
    at.switch_page("app_pages/run.py").run()
    names = _run_names()
    for mode in ("direct", "mcp"):
        at.radio(key="mode_zh").set_value(mode).run()
        for backend in ("mock", "scripted", "provider"):
            at.radio(key="backend_zh").set_value(backend).run()
            _scan(at, names, f"run {mode} {backend}")
    # the words a name may hold are not a licence for the page's own words
    assert not {"Run", "Question", "Mode", "Options", "Transport"} & names


def test_every_page_shows_every_sample_in_chinese():
    at = zh_app()
    for name in NAMES:
        words_of = trace_words(sample(name))
        at.switch_page("app_pages/hops.py").run()
        at.selectbox(key="hops_trace_zh").set_value(f"sample:{name}").run()
        _scan(at, words_of, f"hops {name}")
        at.switch_page("app_pages/step.py").run()
        at.selectbox(key="step_sample_zh").set_value(f"sample:{name}").run()
        _scan(at, words_of, f"step {name}")
    at.switch_page("app_pages/compare.py").run()
    for a, b in (("beijing-direct", "beijing-mcp"), ("era-handshake", "era-modern"), ("tool-error", "two-rounds")):
        at.selectbox(key="compare_a_zh").set_value(f"sample:{a}").run()
        at.selectbox(key="compare_b_zh").set_value(f"sample:{b}").run()
        _scan(at, trace_words(sample(a)) | trace_words(sample(b)), f"compare {a} {b}")


def test_a_run_is_named_in_chinese_in_the_pickers():
    at = zh_app()
    at.switch_page("app_pages/compare.py").run()
    at.button[0].click().run()  # run both modes on the example question
    assert not at.exception
    options = [o for e in at.get("selectbox") for o in e.proto.options]
    runs = [o for o in options if o.startswith("第 ")]
    assert len(runs) >= 2 and any("直接调用模式" in o for o in runs), options
    assert not [o for o in options if "direct" in o]
    _scan(at, ALL_SAMPLE_WORDS, "compare after a run")


def test_the_run_page_with_the_tools_that_ask_back_is_chinese():
    """The toggle, the roots line, the examples and the form in Chinese; the server's own words (its message, its
    field's title and description, as the hops so far hold them) stay as it wrote them."""
    at = zh_app()
    at.session_state["app"].choices["pace"] = False
    at.switch_page("app_pages/run.py").run()
    at.toggle(key="asks_zh").set_value(True).run()
    _scan(at, _run_names(), "run asks")
    at.text_input(key="question").set_value("我这里今天天气怎么样？").run()
    at.button(key="run").click().run()
    live = at.session_state["app"].live
    assert live.answerer.asked is not None  # the form is up
    _scan(at, _run_names() | set().union(*(hop_words(h) for h in live.hops)), "run asks form")
    at.button(key="ask_cancel").click().run()
    assert at.session_state["app"].live is None
