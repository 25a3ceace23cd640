"""The closing view is computed from the readings of the model exchanges (flow.wire.reading): a hosted run is told
as the provider's work, a request the host made for an MCP server (sampling) is not counted as the app's, and what
MCP did names what the server sent as well as what the client sent. Each test reads a committed sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from flow.samples import SAMPLES
from flow.text.names import Lang
from flow.trace.files import load_trace
from flow.trace.model import Trace
from flow.views.closing import closing_facts, sections
from flow.views.compare import point
from flow.views.lesson import lesson_markdown
from flow.views.tool_cost import request_costs, tool_cost_points
from flow.wire.reading import model_exchanges, offer_of, read_trace

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_traces"
HOSTED = [s.name for s in SAMPLES if s.name.startswith("hosted-")]


def _sample(name: str) -> Trace:
    return load_trace(SAMPLE_DIR / f"{name}.json")


def _texts(trace: Trace, lang: Lang = "en") -> dict[str, str]:
    _, parts = sections(trace, lang)
    out = {f"{s.key}.{i.label}": i.text for s in parts for i in s.items if i.label}
    out["cost"] = " ".join(i.text for s in parts if s.key == "cost" for i in s.items)
    return out


def test_every_hosted_sample_is_named() -> None:
    assert sorted(HOSTED) == ["hosted-messages", "hosted-responses", "hosted-responses-approval", "hosted-tool-error"]


@pytest.mark.parametrize("name", HOSTED)
def test_hosted_closing_says_the_provider_chose_and_called(name: str) -> None:
    trace = _sample(name)
    en = _texts(trace)
    said = " ".join(en.values())
    # what the old view said of a hosted run, none of which happened
    for wrong in (
        "asked for no tool",
        "No one:",
        "does both translations",
        "Lives inside the host",
        "Not one JSON-RPC frame reaches it",
        "are the 1 tool definitions",
    ):
        assert wrong not in said, (name, wrong)
    fc = en["questions.Where is function calling?"]
    assert "get_weather(city=" in fc and "provider's model chose" in fc
    assert "provider's MCP client called it" in en["questions.Who ran the tool?"]
    assert en["roles.MCP client"].startswith("Lives at the model provider")
    assert "moved" in en["cost"] and "input_tokens" in en["cost"]
    zh = " ".join(_texts(trace, "zh").values())
    assert "服务商的模型选了 get_weather" in zh and "两边的翻译" not in zh


def test_hosted_tool_runs_are_paired_with_what_the_recorder_saw() -> None:
    facts = closing_facts(_sample("hosted-responses"))
    calls = [r for r in facts.reported if r.exchange.method == "tools/call"]
    assert [(r.exchange.name, r.seq, r.ran) for r in calls] == [("get_weather", 13, 10)]
    assert facts.frames == 7  # the frames the recorder saw, not the provider's report of them
    assert facts.servers == ("weather",)


def test_hosted_approval_is_told_with_the_app_s_answer() -> None:
    en = _texts(_sample("hosted-responses-approval"))
    assert "asked the app to approve get_weather(city=北京) (hop 9" in en["questions.Where is function calling?"]
    assert "approved it at hop 12" in en["questions.Where is function calling?"]
    assert "call_id" not in en["roles.Model API"]  # the follow-up carries an approval, not a result


def test_requests_the_host_made_for_the_server_are_not_the_app_s() -> None:
    trace = _sample("asks-sampling-tools")
    facts = closing_facts(trace)
    assert facts.sampled == (15, 19)
    assert [r.seq for r in facts.own] == [10, 24]
    en = _texts(trace)
    assert en["roles.Model API"].startswith("Receives the app's 2 requests")
    assert "And 2 requests the host sent for the server (hops 15, 19)" in en["roles.Model API"]
    assert "The server sent the client its own: sampling/createMessage." in en["questions.What did MCP do?"]
    assert "Through sampling" in en["roles.MCP server"]
    assert "this run's 2 requests" in en["cost"] and "The 2 requests the host sent for the server" in en["cost"]


def test_no_call_means_no_reverse_translation() -> None:
    en = _texts(_sample("tool-choice-none"))
    assert "both translations" not in en["roles.Host app"]
    assert "no reverse translation" in en["roles.Host app"]


@pytest.mark.parametrize("name", [s.name for s in SAMPLES])
def test_english_counts_agree_with_their_nouns(name: str) -> None:
    said = " ".join(_texts(_sample(name)).values())
    for wrong in (" 1 requests", " 1 HTTP requests", " 1 model requests", " 1 tools", "1 tool definitions"):
        assert wrong not in said, (name, wrong)


def test_mock_token_counts_are_said_to_be_estimates() -> None:
    trace = _sample("beijing-mcp")
    assert trace.meta.model["backend"] == "mock"
    assert "stand-in estimate" in _texts(trace)["cost"]
    trace.meta.model["backend"] = "openai"
    assert "stand-in estimate" not in _texts(trace)["cost"]


def test_tool_cost_points_leave_out_what_the_app_did_not_send_as_definitions() -> None:
    traces = [_sample(n) for n in ("asks-sampling-tools", "hosted-responses", "beijing-mcp")]
    points = tool_cost_points(traces)
    assert {p.source for p in points} == {"asks-sampling-tools", "beijing-mcp"}
    assert [p.request for p in points if p.source == "asks-sampling-tools"] == [1, 2]
    assert all(p.tools == 12 for p in points if p.source == "asks-sampling-tools")
    assert [c.for_server for c in request_costs(traces[0])] == [False, True, True, False]


def test_offer_tells_function_tools_from_hosted_servers() -> None:
    responses = {
        "tools": [
            {"type": "mcp", "server_label": "weather", "server_url": "https://x.test/mcp", "require_approval": "never"},
            {"type": "function", "name": "f", "parameters": {}},
        ]
    }
    offer = offer_of(responses, "responses")
    assert offer.functions == ("f",) and offer.servers == ("weather",) and offer.server_bytes > 0
    messages = {
        "tools": [{"type": "mcp_toolset", "mcp_server_name": "w"}, {"name": "g", "input_schema": {}}],
        "mcp_servers": [{"type": "url", "url": "https://x.test/mcp", "name": "w"}],
    }
    offer = offer_of(messages, "messages")
    assert offer.functions == ("g",) and offer.servers == ("w",)
    chat = {"tools": [{"type": "function", "function": {"name": "h", "parameters": {}}}]}
    assert offer_of(chat, "chat").functions == ("h",) and offer_of(chat, "chat").servers == ()


def test_every_model_request_is_read_once() -> None:
    trace = _sample("asks-sampling-tools")
    readings = model_exchanges(trace.hops)
    assert [r.asker for r in readings] == ["app", "host_for_server", "host_for_server", "app"]
    assert [c.name for c in readings[0].calls] == ["plan_outing"]


@pytest.mark.parametrize("name", HOSTED)
def test_hosted_overview_says_the_provider_does_the_middle(name: str) -> None:
    trace = _sample(name)
    script = lesson_markdown(trace, lang="en")
    overview = script.split("## The ten messages at a glance", 1)[1].split("## Hop by hop", 1)[0]
    rows = {
        int(line.split("|")[2]): line
        for line in overview.splitlines()
        if line.startswith("| ") and "---" not in line and "Step" not in line
    }
    assert "hosted MCP mode" in script
    for wrong in (
        "translated to flat function definitions",
        "function_call items",
        "App → MCP Client",
        "tool_use blocks",
    ):
        assert wrong not in overview, (name, wrong)
    assert "the provider's MCP client → MCP server" in rows[2]
    assert "no functions" in rows[3]
    assert "inside the provider" in rows[4] and "inside the provider" in rows[5]
    zh = lesson_markdown(trace, lang="zh")
    assert "托管 MCP 模式" in zh and "服务商的 MCP 客户端 → MCP 服务器" in zh


def test_compare_reads_the_hosted_call_and_the_hosted_request() -> None:
    hosted, app_side = _sample("hosted-messages"), _sample("beijing-mcp")
    said = point(hosted, app_side, lang="en")
    assert "A: none" not in said and "neither run calls a tool" not in said
    assert "the same tool call get_weather(city=北京)" in said
    assert "A is hosted MCP" in said
    assert "A: name, description and input_schema" not in said  # the hosted request has no function definitions
    assert "no function definitions, one entry naming the MCP server" in said
    zh = point(hosted, app_side, lang="zh")
    assert "A 是托管 MCP" in zh


@pytest.mark.parametrize("name", [s.name for s in SAMPLES])
def test_one_reading_agrees_with_the_trace_s_own_counts(name: str) -> None:
    """The reading sorts each hop once by its kind: its frames and model requests are the ones the recorder counted
    (the stats the trace was saved with), its answer is the app's, and every request is read as someone's."""
    trace = _sample(name)
    read = read_trace(trace.hops)
    stats = trace.meta.stats
    assert len(read.frames) == stats.get("wire_frames")
    assert len(read.model) == stats.get("model_calls")
    assert (read.answer is not None) == any(h.kind == "app.answer" for h in trace.hops)
    assert all(ex.asker == ("host_for_server" if "for_server" in ex.request.payload else "app") for ex in read.model)
