"""The articles' route through a trace: each hop's message, each message's state and why, and what the viewer gets."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from flow.samples import SAMPLES
from flow.text.names import Lang
from flow.text.route import CAPTIONS, MESSAGE_NAMES, REASON_TEXT
from flow.trace.files import load_trace, parse_trace
from flow.trace.model import Trace
from flow.trace.questions import words
from flow.trace.route import message_of, route, stop_hop
from flow.trace.steps import STEPS, Step, phase_spans
from flow.views.viewer import bundle_json, viewer_bundle, viewer_css, viewer_js
from helpers import ROOT


def _sent(trace: Trace, lang: Lang) -> dict[str, Any]:
    """The viewer's bundle as the browser parses it."""
    return json.loads(bundle_json(viewer_bundle(trace, lang=lang)))


CJK = re.compile(r"[\u4e00-\u9fff]")


def sample(name: str):
    return load_trace(ROOT / "sample_traces" / f"{name}.json")


def data(name: str) -> dict:
    return json.loads((ROOT / "sample_traces" / f"{name}.json").read_text(encoding="utf-8"))


def without_server_hops(raw: dict) -> dict:
    """A trace as a server that does not report running the tool records it: no hop MCP server → tool and back
    (the demo server reports them, so the samples may hold them)."""
    raw["hops"] = [
        h
        for h in raw["hops"]
        if "mcp_server" not in (h["source"], h["target"])
        or h["kind"].startswith("mcp.")
        or h["kind"] == "prepare.tools"
    ]
    for seq, hop in enumerate(raw["hops"], 1):
        hop["seq"] = seq
    return raw


def states(trace) -> dict[int, tuple[str, str | None]]:
    return {int(m.step): (m.state, m.reason) for m in route(trace)}


@pytest.mark.parametrize("name", [s.name for s in SAMPLES])
def test_every_hop_of_every_sample_maps_to_the_message_its_step_numbers(name):
    trace = sample(name)
    messages = route(trace)
    assert [int(m.step) for m in messages] == list(range(11))
    for i, hop in enumerate(trace.hops):
        m = message_of(hop)
        assert m is not None and int(m) == hop.step
        entry = messages[int(m)]
        assert entry.first is not None and entry.first <= i
        assert trace.hops[entry.first].step == hop.step  # a click jumps to the message's first hop
    for message in messages:
        assert message.hops == sum(h.step == int(message.step) for h in trace.hops)
        assert (message.first is None) == (message.state == "missing") == (message.hops == 0)
        assert message.app_phase == STEPS[message.step].phase


def test_the_articles_phases_group_the_messages_as_the_articles_do():
    groups: dict[int, list[int]] = {}
    for step, info in STEPS.items():
        groups.setdefault(info.article_phase, []).append(int(step))
    assert groups == {0: [0], 1: [1, 2, 3], 2: [4], 3: [5, 6, 7], 4: [8, 9, 10]}
    # The app splits the articles' last phase in two: that is where the overview shows both.
    assert {STEPS[Step(n)].phase for n in groups[4]} == {"backfill", "answer"}


def test_the_routes_bands_are_the_phases_spans_of_the_one_step_table():
    assert phase_spans("article") == [(0, 0, 0), (1, 1, 3), (2, 4, 4), (3, 5, 7), (4, 8, 10)]
    assert phase_spans("app") == [
        ("prepare", 0, 0),
        ("request", 1, 3),
        ("decision", 4, 4),
        ("execute", 5, 7),
        ("backfill", 8, 8),
        ("answer", 9, 10),
    ]
    spans = viewer_bundle(load_trace(ROOT / "sample_traces" / "beijing-mcp.json"))["route"]["spans"]
    assert spans == {"app": phase_spans("app"), "article": phase_spans("article")}


def test_mcp_mode_without_the_servers_own_hop_says_message_6_was_not_reported():
    got = states(parse_trace(without_server_hops(data("beijing-mcp"))))
    assert got[6] == ("partial", "server_silent")
    assert got[3] == ("corrected", "host_sends") and got[7] == ("corrected", "host_pairs")
    assert all(state == "present" for n, (state, _) in got.items() if n not in (3, 6, 7))


def test_a_server_that_reports_running_the_tool_completes_message_6():
    raw = without_server_hops(data("beijing-mcp"))
    call = next(i for i, h in enumerate(raw["hops"]) if h["step"] == 6)
    invoke = copy.deepcopy(data("beijing-direct")["hops"][6])
    assert invoke["kind"] == "tool.invoke"
    invoke.update(source="mcp_server", target="tool")
    raw["hops"].insert(call + 1, invoke)
    for seq, hop in enumerate(raw["hops"], 1):
        hop["seq"] = seq
    trace = parse_trace(raw)
    got = states(trace)
    assert got[6] == ("present", None)
    assert route(trace)[6].hops == 2


def test_direct_mode_shrinks_messages_2_and_5_to_7_to_in_process_hops():
    got = states(sample("beijing-direct"))
    assert {n for n, (state, _) in got.items() if state == "in_process"} == {2, 5, 6, 7}
    assert {reason for n, (_, reason) in got.items() if n in {2, 5, 6, 7}} == {"direct_in_process"}
    assert got[6][0] != "partial"  # there is no server to report


def test_no_tool_call_means_messages_4_to_8_never_happened():
    got = states(sample("tool-choice-none"))
    assert {n for n, (state, _) in got.items() if state == "missing"} == {4, 5, 6, 7, 8}
    assert {got[n][1] for n in range(4, 9)} == {"no_tool_call"}


def test_a_run_that_stopped_says_so_for_the_messages_it_never_reached():
    raw = data("beijing-mcp")
    raw["hops"] = [h for h in raw["hops"] if h["step"] <= 4]
    raw["meta"]["outcome"] = "error"
    got = states(parse_trace(raw))
    assert {got[n] for n in range(5, 11)} == {("missing", "stopped")}
    assert got[4] == ("present", None)


def test_visits_count_each_return_to_a_message():
    rounds = route(sample("two-rounds"))
    assert rounds[4].visits == 2 and rounds[4].hops == 2
    parallel = route(sample("two-cities-parallel"))
    # Two calls sent, then each answer with the server's report of its run (6b) before it: 6, 5, 6 6b, 7..., 6b, 7...
    assert parallel[5].visits == 2 and parallel[6].visits == 3


def test_a_wire_frame_outside_the_numbered_steps_belongs_to_no_message():
    raw = data("beijing-mcp")
    frame = next(h for h in raw["hops"] if h["kind"] == "mcp.notification")
    frame["step"] = None
    frame["phase"] = None
    trace = parse_trace(raw)
    hop = next(h for h in trace.hops if h.seq == frame["seq"])
    assert message_of(hop) is None
    bundle = viewer_bundle(trace, lang="en")
    assert next(h for h in bundle["hops"] if h["seq"] == frame["seq"])["message"] is None


def test_the_words_exist_in_both_languages_and_each_language_is_its_own():
    for table in (MESSAGE_NAMES, CAPTIONS, REASON_TEXT):
        for value in table.values():
            assert set(value) == {"zh", "en"} and all(value.values())
            assert CJK.search(value["zh"]) and not CJK.search(value["en"]), value


def test_the_viewer_gets_the_route_with_each_hop_s_message():
    trace = sample("beijing-direct")
    bundle = viewer_bundle(trace, lang="zh")
    messages = bundle["route"]["messages"]
    assert [m["n"] for m in messages] == list(range(11))
    assert [h["message"] for h in bundle["hops"]] == [h.step for h in trace.hops]
    six = messages[6]
    assert six["state"] == "in_process" and six["reason_text"] == words(REASON_TEXT["direct_in_process"])
    assert six["name"] == MESSAGE_NAMES[Step.CALL_TOOL] and six["caption"] == CAPTIONS[Step.CALL_TOOL]
    assert six["article_route"]["en"] == "MCP Client → Tool"  # as the articles tell it, not as this run goes
    assert six["app_name"]["en"] == "call the tool"
    assert set(bundle["route"]["article_phases"]) == {"0", "1", "2", "3", "4"}
    assert messages[0]["state"] == "present" and messages[0]["article_phase"] == 0


def test_the_viewer_bundle_carries_the_route_and_question_code():
    js, css = viewer_js(), viewer_css()
    for needle in ("class RouteStrip", "class Quiz", "function mountViewer", "export default function"):
        assert needle in js
    assert js.index("class RouteStrip") < js.index("function mountViewer")  # one module, parts first
    assert ".fv-rcell" in css and ".fv-quiz-card" in css and ".fv-json" in css


# ---- failed runs, told truly (issue 24): where the run stopped, and how ----


@pytest.fixture(scope="module")
def hung():
    """A run whose MCP server never answers tools/call (the demo's hang fault, in process, a short timeout)."""
    from helpers import run_flow_sync

    result = run_flow_sync(server_fault="hang", mcp_timeout_s=0.5)
    assert not result.ok
    return result.trace


@pytest.fixture(scope="module")
def died():
    """A run whose MCP server dies in the middle of tools/call (the demo's die fault, in process)."""
    from helpers import run_flow_sync

    result = run_flow_sync(server_fault="die")
    assert not result.ok
    return result.trace


def test_after_a_hang_the_route_says_the_run_stopped_at_message_7_on_a_timeout(hung):
    got = states(hung)
    assert got[6] == ("partial", "unanswered")  # not "not reported": the server never answered at all
    assert got[7] == ("partial", "timed_out")
    assert got[8] == got[9] == ("missing", "stopped")  # not "not recorded": the run never got there
    assert got[10] == ("partial", "error_shown")
    assert (
        "stopped at message 7" in REASON_TEXT["unanswered"]["en"] and "第 7 条消息" in REASON_TEXT["unanswered"]["zh"]
    )
    assert "timeout" in REASON_TEXT["timed_out"]["en"] and "超时" in REASON_TEXT["timed_out"]["zh"]
    stopped = stop_hop(hung)
    assert stopped is not None and stopped.step == 7


def test_after_a_dead_server_the_route_says_the_connection_closed_at_message_7(died):
    got = states(died)
    assert got[6] == ("partial", "unanswered")
    assert got[7] == ("partial", "connection_closed")
    assert got[8] == got[9] == ("missing", "stopped")
    assert got[10] == ("partial", "error_shown")


def test_the_strip_never_says_not_reported_or_not_recorded_for_a_run_that_stopped(hung, died):
    for trace in (hung, died):
        bundle = _sent(trace, "en")
        for m in bundle["route"]["messages"]:
            assert m["reason"] not in ("server_silent", "not_recorded"), m
        assert bundle["route"]["messages"][8]["reason_short"]["en"] == "run stopped"
        assert bundle["route"]["messages"][7]["reason_short"]["en"] in ("timed out", "disconnected")


def test_a_model_error_stops_the_run_at_message_3():
    raw = data("beijing-mcp")
    request = next(h for h in raw["hops"] if h["kind"] == "llm.request")
    failed = {
        **copy.deepcopy(request),
        "seq": request["seq"] + 1,
        "kind": "llm.error",
        "source": "model",
        "target": "app",
        "direction": "error",
        "payload": {"status": 500},
    }
    end = {
        **copy.deepcopy(failed),
        "seq": failed["seq"] + 1,
        "kind": "error",
        "source": "app",
        "target": "user",
        "step": 10,
        "phase": "answer",
        "payload": {"error": "InternalServerError"},
    }
    raw["hops"] = [h for h in raw["hops"] if h["seq"] <= request["seq"]] + [failed, end]
    raw["meta"]["outcome"] = "error"
    got = states(parse_trace(raw))
    assert got[3] == ("partial", "failed_here")
    assert {got[n] for n in range(4, 10)} == {("missing", "stopped")}
    assert got[10] == ("partial", "error_shown")


# ---- where article 000 is wrong (issue 24): message 3 is the host's, message 7 has no tool_call_id ----


MCP_RUNS_THAT_WENT_THROUGH = [
    s.name for s in SAMPLES if (t := sample(s.name)).meta.mode == "mcp" and t.meta.outcome == "ok"
]


@pytest.mark.parametrize("name", MCP_RUNS_THAT_WENT_THROUGH)
def test_message_3_is_sent_by_the_host_app_not_the_mcp_client(name):
    trace = sample(name)
    messages = route(trace)
    three = messages[Step.ASK_MODEL]
    assert (three.state, three.reason) == ("corrected", "host_sends")
    # The trace agrees: the app sends its own requests, the MCP client sends nothing of them to the model. (A model
    # call the host makes for an MCP server that asks (sampling, `for_server`) is the client's, inside message 6.)
    own = [h for h in trace.hops if "for_server" not in h.payload]
    requests = [h for h in own if h.kind == "llm.request"]
    assert requests and {(h.source, h.target) for h in requests} == {("app", "model")}
    assert not any(h.source == "mcp_client" and h.target == "model" for h in own)
    for_server = [h for h in trace.hops if h.kind == "llm.request" and "for_server" in h.payload]
    assert all((h.source, h.target, h.step) == ("mcp_client", "model", Step.CALL_TOOL) for h in for_server)
    seven = messages[Step.TOOL_RESULT]
    if seven.state != "missing":
        assert (seven.state, seven.reason) == ("corrected", "host_pairs")


def test_the_strip_says_where_article_000_is_wrong_in_both_languages():
    bundle = _sent(sample("beijing-mcp"), "zh")
    three, seven = bundle["route"]["messages"][3], bundle["route"]["messages"][7]
    assert three["article_route"]["en"] == "MCP Client → Model API"  # what the article says, shown as its claim
    assert (
        "that is wrong" in three["reason_text"]["en"]
        and "MCP defines no function-calling format" in (three["reason_text"]["en"])
    )
    assert "host app" in three["reason_text"]["en"] and "宿主应用" in three["reason_text"]["zh"]
    assert "这是错的" in three["reason_text"]["zh"]
    assert "a CallToolResult has no such field" in seven["reason_text"]["en"]
    assert "CallToolResult 没有这个字段" in seven["reason_text"]["zh"]
    assert three["reason_short"]["en"] == seven["reason_short"]["en"] == "article wrong"
    # Direct mode has no MCP client to be wrong about.
    direct = viewer_bundle(sample("beijing-direct"), lang="en")["route"]["messages"]
    assert direct[3]["reason"] is None and direct[7]["reason"] == "direct_in_process"


def test_message_6_is_named_for_the_call_not_for_a_run_that_may_not_happen():
    """unknown-tool: the server refuses the first tools/call (-32602) and runs nothing; a hung server never says."""
    trace = sample("unknown-tool")
    assert any(h.kind == "mcp.error" and h.step == 7 for h in trace.hops)
    assert MESSAGE_NAMES[Step.CALL_TOOL] == {"zh": "调用函数", "en": "call the function"}
    assert "runs" not in MESSAGE_NAMES[Step.CALL_TOOL]["en"] and "运行" not in MESSAGE_NAMES[Step.CALL_TOOL]["zh"]
