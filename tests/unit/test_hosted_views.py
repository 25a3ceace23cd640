"""Hosted MCP drawn and listed honestly: the provider's MCP client beside the Model API and boxed with it "at the
provider" in every picture (DOT/SVG, Mermaid, the viewer's bundle, the show table); the provider's reported hops
dashed with a hollow head, paired with the frame a recorder saw, and never timed; the model hops' labels saying which
servers a request names and what a reply reports; the outcome line and the tool calls figure telling what happened."""

from __future__ import annotations

import copy
import html
import re
from functools import cache

import pytest

from flow.text.names import Lang
from flow.trace.files import load_trace
from flow.trace.model import Hop, Trace, as_dict
from flow.trace.stats import hop_stats, mcp_frames, tool_calls
from flow.views.diagram import ERROR, render, to_dot, to_mermaid
from flow.views.labels import label_lines, trace_lifelines
from flow.views.outcome import run_outcome
from flow.views.table import hop_rows, hop_table, summary_line
from flow.views.viewer import viewer_bundle, viewer_css, viewer_js
from helpers import ROOT, run_flow_sync

HOSTED = ["hosted-responses", "hosted-responses-approval", "hosted-messages", "hosted-tool-error"]


@cache
def sample(name: str) -> Trace:
    return load_trace(ROOT / "sample_traces" / f"{name}.json")


@cache
def denied() -> Trace:
    """A hosted run whose app answers no to the provider's approval request."""
    result = run_flow_sync(mode="hosted", api="responses", require_approval="always", approve=False)
    assert result.ok
    return result.trace


def _reported(trace: Trace) -> list[Hop]:
    return [h for h in trace.hops if h.kind == "mcp.reported"]


def _edge(dot: str, seq: int) -> str:
    found = re.search(rf'\[([^\]]*\bid="hop-{seq}"[^\]]*)\]', dot)
    assert found, seq
    return found[1]


# --- lifelines ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", HOSTED)
def test_the_mcp_client_sits_with_the_provider_and_is_named_for_it(name):
    trace = sample(name)
    assert trace_lifelines(trace) == ["user", "app", "model", "mcp_client", "mcp_server", "tool"]
    rows = hop_rows(trace)
    assert {r["from"] for r in rows} >= {"Provider's MCP client", "Model API", "MCP Server"}
    assert "MCP Client" not in {r["from"] for r in rows} | {r["to"] for r in rows}
    assert any(r["from"] == "服务商的 MCP 客户端" for r in hop_rows(trace, lang="zh"))
    table = hop_table(trace)
    assert table.splitlines()[0] == (
        "lifelines: User · App · [at the provider: Model API · Provider's MCP client] · MCP Server · Tool"
    )


def test_other_modes_keep_their_lifelines_and_names():
    assert trace_lifelines(sample("beijing-mcp")) == ["user", "app", "mcp_client", "mcp_server", "tool", "model"]
    assert trace_lifelines(sample("beijing-direct")) == ["user", "app", "tool", "model"]
    dot = to_dot(sample("beijing-mcp"), window=None)
    assert "provider" not in dot and "Provider" not in dot
    assert not hop_table(sample("beijing-mcp")).startswith("lifelines")
    assert "box " not in to_mermaid(sample("beijing-mcp"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_diagram_boxes_the_model_api_and_its_mcp_client_at_the_provider(lang):
    trace = sample("hosted-responses")
    dot = to_dot(trace, window=None, lang=lang)
    x = {
        a: float(must(rf'head_{a} \[[^\]]*pos="([\d.-]+),', dot)) for a in ("app", "model", "mcp_client", "mcp_server")
    }
    assert x["app"] < x["model"] < x["mcp_client"] < x["mcp_server"]
    box = must(r"provider_group \[([^\]]*)\]", dot)
    centre, width = float(must(r'pos="([\d.-]+),', box)), float(must(r'\bwidth="?([\d.]+)', box)) * 72
    assert centre - width / 2 < x["model"] and x["mcp_client"] < centre + width / 2  # both inside
    assert centre - width / 2 > x["app"] and centre + width / 2 < x["mcp_server"]  # nobody else
    said = {"en": ["at the provider", "Provider's", "MCP client"], "zh": ["模型服务商一侧", "服务商的", "MCP 客户端"]}
    head = html.unescape(must(r"head_mcp_client \[label=<<B>(.*?)</B>>", dot))
    assert head == f"{said[lang][1]}<BR/>{said[lang][2]}"  # on two lines, so the heads beside it keep apart
    svg = render(dot, "svg").decode()
    texts = [html.unescape(t).strip() for t in re.findall(r"<text[^>]*>(.*?)</text>", svg)]
    assert 'id="provider&#45;group"' in svg and all(s in texts for s in said[lang])


def test_mermaid_boxes_the_provider_lifelines():
    text = to_mermaid(sample("hosted-messages"), lang="en")
    box = must(r"\n    box [^\n]* at the provider\n(.*?)\n    end\n", text, re.S)
    assert box.splitlines() == ["    participant M2 as Model API", "    participant C3 as Provider's MCP client"]


def test_the_viewer_bundle_names_the_lanes_and_the_provider_group():
    bundle = viewer_bundle(sample("hosted-responses"), lang="en")
    assert [lane["en"] for lane in bundle["lanes"]] == [
        "User", "App", "Model API", "Provider's MCP client", "MCP Server", "Tool"
    ]  # fmt: skip
    assert bundle["provider"]["lanes"] == [2, 3] and bundle["provider"]["name"]["zh"] == "模型服务商一侧"
    assert bundle["hops"][8]["from"]["en"] == "Provider's MCP client"
    assert viewer_bundle(sample("beijing-mcp"), lang="en")["provider"]["lanes"] == []


# --- reported hops ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", HOSTED)
def test_reported_arrows_are_dashed_and_hollow_and_observed_ones_are_not(name):
    trace = sample(name)
    dot = to_dot(trace, window=None)
    for hop in trace.hops:
        attrs = _edge(dot, hop.seq)
        if hop.kind == "mcp.reported":
            assert "style=dashed" in attrs and "arrowhead=onormal" in attrs and "reported" in attrs, attrs
        else:
            assert "onormal" not in attrs and "reported" not in attrs, attrs
    svg = render(dot, "svg").decode()
    drawn = re.findall(r'<g id="hop&#45;(\d+)" class="edge hop (\w+) reported', svg)
    assert sorted(int(s) for s, _ in drawn) == [h.seq for h in _reported(trace)]
    for seq, _ in drawn:  # the line is dashed in the picture itself, without the viewer's CSS
        group = must(rf'<g id="hop&#45;{seq}" class="edge[^"]*">(.*?)</g>', svg, re.S)
        head = re.search(r"<polygon[^>]*>", group)
        assert "stroke-dasharray" in group and head and 'fill="none"' in head[0]


@pytest.mark.parametrize("name", HOSTED)
def test_mermaid_draws_reported_hops_dotted_with_an_open_head_on_a_tint(name):
    trace = sample(name)
    lines = to_mermaid(trace, lang="en").splitlines()
    reported = [line for line in lines if "(reported by the provider)" in line]
    assert len(reported) == len(_reported(trace))
    assert all(re.match(r"    [CS]\d--\)[CS]\d: ", line) for line in reported), reported
    for line in reported:  # each in a tinted rect opened before it
        before = lines[: lines.index(line)]
        assert any(b.startswith("    rect rgba(142, 108, 196") for b in before)


def test_the_viewer_pairs_a_reported_hop_with_the_frame_seen_both_ways():
    trace = sample("hosted-responses")
    bundle = viewer_bundle(trace, lang="en")
    hops = bundle["hops"]
    call = next(h for h in hops if h["kind"] == "mcp.reported" and h["label"].startswith("tools/call"))
    seen = as_dict(trace.hops[call["seq"] - 1].payload)["observed"]
    assert call.get("reported") and call.get("pair") == {"seq": seen, "index": seen - 1}
    frame = hops[seen - 1]
    assert frame["kind"] == "mcp.request" and frame["pair"]["seq"] == call["seq"] and "reported" not in frame
    js, css = viewer_js(), viewer_css()
    assert "paintPair" in js and "hop.reported" in js and "observed_at" in js
    assert re.search(r"g\.edge\.reported path \{ stroke-dasharray", css)
    assert bundle["ui"]["observed_at"]["en"] == "observed at hop {n}"


def test_a_mismatch_is_drawn_red_and_said_on_the_card():
    trace = copy.deepcopy(sample("hosted-responses"))
    hop = next(h for h in _reported(trace) if h.direction == "request" and as_dict(h.payload)["method"] == "tools/call")
    payload = as_dict(hop.payload)
    payload["mismatch"] = ["arguments"]
    attrs = _edge(to_dot(trace, window=None), hop.seq)
    assert f'color="{ERROR}"' in attrs and "onormal" in attrs
    assert "≠ observed: arguments" in label_lines(hop, 40)
    item = next(h for h in viewer_bundle(trace, lang="en")["hops"] if h["seq"] == hop.seq)
    assert item.get("mismatch") == ["arguments"]


@pytest.mark.parametrize("name", HOSTED)
def test_a_reported_hop_shows_no_time(name):
    trace = sample(name)
    rows = hop_rows(trace)
    assert [r["ms"] is None for r in rows] == [h.kind == "mcp.reported" for h in trace.hops]
    table = hop_table(trace).splitlines()
    for hop in _reported(trace):
        line = next(line for line in table if line.startswith(f"{hop.seq} "))
        assert " — " in line and "0.0" not in line


# --- labels ---------------------------------------------------------------------------------------------------------


def _label(trace: Trace, seq: int, lang: Lang = "en") -> str:
    return " ".join(label_lines(trace.hops[seq - 1], 80, lang=lang))


def _first(trace: Trace, kind: str) -> int:
    return next(h.seq for h in trace.hops if h.kind == kind)


def test_the_model_hops_say_which_servers_and_what_the_provider_reports():
    t = sample("hosted-responses")
    assert _label(t, _first(t, "llm.request")) == "input: 1 item + 1 MCP server: weather (approval: never)"
    assert _label(t, _first(t, "llm.request"), "zh") == "input：1 项 + 1 个 MCP 服务器： weather （审批：never）"
    assert _label(t, _first(t, "llm.response")) == "mcp_list_tools · mcp_call get_weather(city=北京) · message"
    m = sample("hosted-messages")
    assert _label(m, _first(m, "llm.request")) == "1 message + 1 MCP server: weather (mcp_toolset)"
    assert _label(m, _first(m, "llm.response")) == "mcp_tool_use get_weather(city=北京) · mcp_tool_result · text"
    e = sample("hosted-tool-error")
    assert _label(e, _first(e, "llm.response")) == "mcp_list_tools · mcp_call get_weather(city=火星) (error) · message"


def test_the_approval_is_asked_then_given_or_refused_on_the_model_hops():
    a = sample("hosted-responses-approval")
    requests = [h.seq for h in a.hops if h.kind == "llm.request"]
    assert _label(a, _first(a, "llm.response")) == "mcp_list_tools · asks approval: get_weather(city=北京)"
    assert _label(a, requests[1]).startswith("approves get_weather · input: 4 items")
    assert _label(a, requests[1], "zh").startswith("批准 get_weather")
    d = denied()
    assert _label(d, [h.seq for h in d.hops if h.kind == "llm.request"][1]).startswith("denies get_weather")


def test_a_reported_listing_names_the_tools_it_reports():
    t = sample("hosted-responses")
    listed = next(h for h in _reported(t) if h.direction == "response" and as_dict(h.payload)["method"] == "tools/list")
    assert label_lines(listed, 30) == ["4 tools: get_weather,", "get_forecast, +2 more", "(reported by the provider)"]


# --- what happened, and the figures -------------------------------------------------------------------------------


def test_the_outcome_says_the_provider_called_the_tool_and_the_recorder_saw_it():
    trace = sample("hosted-responses")
    out = run_outcome(trace)
    call = next(
        h for h in _reported(trace) if h.direction == "request" and as_dict(h.payload)["method"] == "tools/call"
    )
    seen = as_dict(call.payload)["observed"]
    assert out.verdict == "clean"
    assert out.text["en"].startswith(
        f"The provider's MCP client called get_weather(city=北京), and the recorder saw the call (hop {seen}); "
        "the model answered"
    )
    assert f"the provider's reply reported the same (hops {call.seq}, " in out.text["en"]
    cited = [int(n) for n in re.findall(r"\d+", re.sub(r"get_weather\([^)]*\)", "", out.text["en"]))]
    assert cited == sorted(cited), cited  # told in the order of the hops it points at
    assert "without calling a tool" not in out.text["en"] and "没有调用工具" not in out.text["zh"]


def test_the_outcome_says_a_reported_error_and_points_at_it():
    trace = sample("hosted-tool-error")
    out = run_outcome(trace)
    error = next(h for h in _reported(trace) if as_dict(h.payload).get("is_error"))
    seen = as_dict(error.payload)["observed"]  # the error frame the recorder saw, which the report names
    assert out.verdict == "answered_after_problem" and out.seq == seen
    assert f"get_weather(city=火星) came back as an error (isError: true) (hop {seen})" in out.text["en"]
    assert "the model answered from the error" in out.text["en"]


def test_the_outcome_says_the_approval_asked_and_the_answer():
    approved = run_outcome(sample("hosted-responses-approval")).text["en"]
    assert approved.startswith("The provider asked the app to approve get_weather(city=北京) (hop ")
    assert "; the app approved it (hop " in approved and "the provider's MCP client called" in approved
    refused = run_outcome(denied()).text
    assert "the app denied it, and no tool was called" in refused["en"] and "应用拒绝了" in refused["zh"]
    assert "MCP client called" not in refused["en"]


@pytest.mark.parametrize("name", HOSTED)
def test_tool_calls_counts_the_calls_the_provider_reports_and_says_so(name):
    trace = sample(name)
    calls = [h for h in _reported(trace) if h.direction == "request" and as_dict(h.payload)["method"] == "tools/call"]
    assert tool_calls(trace.hops) == len(calls) == 1
    assert hop_stats(trace.hops, 1.0).get("tool_calls") == 1
    frames = [h for h in trace.hops if h.kind in ("mcp.request", "mcp.response", "mcp.notification", "mcp.error")]
    assert mcp_frames(trace.hops) == len(frames)  # the provider's reports are not frames
    assert "tool calls 1 (reported by the provider)" in summary_line(trace)
    assert "tool calls 1 ·" in summary_line(sample("beijing-mcp"))


def must(pattern: str, text: str, flags: int = 0) -> str:
    found = re.search(pattern, text, flags)
    assert found, pattern
    return found[1]


def test_a_report_naming_a_frame_the_trace_does_not_hold_is_paired_with_nothing() -> None:
    from flow.trace.files import load_trace
    from flow.views.viewer import reported_pairs
    from helpers import ROOT

    trace = load_trace(ROOT / "sample_traces" / "hosted-responses.json")
    reported = [h for h in trace.hops if h.kind == "mcp.reported"]
    reported[0].payload["observed"] = 99999  # no such hop
    reported[1].payload["observed"] = reported[2].seq  # a report, not a frame
    pairs = reported_pairs(trace)
    assert reported[0].seq not in pairs and reported[1].seq not in pairs and 99999 not in pairs
    assert pairs[reported[2].seq] == reported[2].payload["observed"]
