"""Message 6 from inside the server: the demo server's own report of running a tool, in every transport, paired with
its call; a server's report is data (bounded, checked, marked), and direct mode and old recordings are unchanged."""

from __future__ import annotations

import copy
import json
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.server.lowlevel import Server

from flow import RunOptions
from flow.backends.replay import replay
from flow.capture.recorder import Recorder
from flow.engine.loop import call_server_tool
from flow.engine.model import ModelConfig
from flow.runs import run_flow
from flow.servers.connect import open_session
from flow.servers.spec import ServerSpec
from flow.trace.factory import json_bytes
from flow.trace.files import load_trace, parse_trace
from flow.trace.model import Hop, Trace
from flow.trace.normalise import normalise
from flow.trace.reports import REPORT_KEY, REPORT_MAX_BYTES, RefusedReport, read_report
from helpers import ROOT, replay_report, run_flow_sync
from weather_demo import report as demo_report

QUESTION = "北京和上海今天天气怎么样？"


def reported_pairs(trace: Trace) -> list[tuple[Hop, Hop, Hop, Hop, Hop]]:
    """Each tools/call with what came back for it: (request frame, the server's two hops, answer frame, the app's
    result), found by the JSON-RPC id, never by position; and checks the order between them."""
    hops = trace.hops
    out = []
    for call in (h for h in hops if h.kind == "mcp.request" and h.payload["method"] == "tools/call"):
        rid = call.jsonrpc_id
        if any(h.kind == "mcp.error" and h.jsonrpc_id == rid for h in hops):
            continue  # refused before any function ran
        invoke = [h for h in hops if h.kind == "tool.invoke" and h.jsonrpc_id == rid]
        ran = [h for h in hops if h.kind == "tool.result" and h.source == "tool" and h.jsonrpc_id == rid]
        answer = [h for h in hops if h.kind == "mcp.response" and h.jsonrpc_id == rid]
        assert len(invoke) == len(ran) == len(answer) == 1, rid
        got = next(h for h in hops if h.kind == "tool.result" and h.source == "mcp_client" and h.seq > answer[0].seq)
        assert call.seq < invoke[0].seq < ran[0].seq < answer[0].seq < got.seq  # in order, between the two frames
        out.append((call, invoke[0], ran[0], answer[0], got))
    return out


def check_reported(trace: Trace, *, calls: int) -> None:
    reverse = {h.tool_call_id: h for h in trace.hops if h.kind == "translate.reverse"}
    pairs = reported_pairs(trace)
    assert len(pairs) == calls
    for call, invoke, ran, answer, got in pairs:
        assert (invoke.source, invoke.target, invoke.step, invoke.direction) == ("mcp_server", "tool", 6, "request")
        assert (ran.source, ran.target, ran.step, ran.direction) == ("tool", "mcp_server", 7, "response")
        # Paired with the model's call the app translated, by its tool_call_id, as the app's own result is.
        assert invoke.tool_call_id == ran.tool_call_id == got.tool_call_id
        request = reverse[invoke.tool_call_id].payload["call_request"]
        assert invoke.payload["function"] == call.payload["params"]["name"] == request["name"]
        assert invoke.payload["kwargs"] == call.payload["params"]["arguments"] == request["arguments"]
        assert invoke.payload["reported_by"] == ran.payload["reported_by"] == "mcp_server"
        # What the function returned is what the server then put in the result's structuredContent.
        assert ran.payload["isError"] is False
        assert ran.payload["return"] == answer.payload["result"]["structuredContent"]
        clock = ran.payload["server_clock"]
        assert (
            clock["started_at"] <= clock["ended_at"]
            and invoke.payload["server_clock"]["started_at"] == clock["started_at"]
        )
        # Placed on the app's clock inside the call: after it was sent, no later than its answer arrived.
        assert call.t_end_ms <= invoke.t_start_ms <= ran.t_end_ms <= answer.t_end_ms
    parse_trace(json.loads(trace.to_json()))  # what was recorded loads back


def test_in_memory_the_server_reports_each_call_in_order_and_paired():
    result = run_flow_sync(QUESTION, transport="memory")
    assert result.ok, result.error
    check_reported(result.trace, calls=2)
    assert {h.payload["kwargs"]["city"] for h in result.trace.hops if h.kind == "tool.invoke"} == {"北京", "上海"}


def test_over_stdio_the_server_process_reports_it_too():
    result = run_flow_sync(QUESTION, transport="stdio")
    assert result.ok, result.error
    check_reported(result.trace, calls=2)


def test_a_function_that_raises_is_reported_as_raised():
    trace = load_trace(ROOT / "sample_traces" / "tool-error.json")
    ran = next(h for h in trace.hops if h.kind == "tool.result" and h.source == "tool")
    assert ran.direction == "error" and ran.payload["isError"] is True and "return" not in ran.payload
    assert ran.payload["raised"]["type"] == "ToolError" and "No weather data" in ran.payload["raised"]["message"]
    answer = next(h for h in trace.hops if h.kind == "mcp.response" and h.jsonrpc_id == ran.jsonrpc_id)
    assert answer.payload["result"]["isError"] is True


def test_no_function_runs_for_an_unknown_tool_so_no_report():
    trace = load_trace(ROOT / "sample_traces" / "unknown-tool.json")
    refused = [h.jsonrpc_id for h in trace.hops if h.kind == "mcp.error"]
    assert refused
    assert not any(h.source == "mcp_server" and h.target == "tool" and h.jsonrpc_id in refused for h in trace.hops)
    # ...while the same run's call of the tool that exists is reported
    assert len(reported_pairs(trace)) == 1


def test_direct_mode_is_unchanged():
    result = run_flow_sync(QUESTION, mode="direct")
    assert result.ok
    assert not any("mcp_server" in (h.source, h.target) for h in result.trace.hops)
    invokes = [h for h in result.trace.hops if h.kind == "tool.invoke"]
    assert [(h.source, h.target) for h in invokes] == [("app", "tool")] * 2
    assert all("reported_by" not in h.payload for h in invokes)


def test_a_call_no_model_asked_for_is_paired_by_its_jsonrpc_id():
    result, got = anyio.run(lambda: call_server_tool(ServerSpec(transport="memory"), "get_weather", {"city": "东京"}))
    assert got is not None and not got["isError"]
    invoke = next(h for h in result.trace.hops if h.kind == "tool.invoke")
    assert invoke.tool_call_id is None and invoke.jsonrpc_id is not None
    parse_trace(json.loads(result.trace.to_json()))  # the loader takes the tools/call's id as its partner


def test_replay_reproduces_the_report_and_compares_it():
    recorded = load_trace(ROOT / "sample_traces" / "two-cities-parallel.json")
    again = replay(recorded)
    assert replay_report(again.trace)["diverged"] is False
    shown = [normalise(h.payload) for h in again.trace.hops if h.source == "tool" and h.target == "mcp_server"]
    assert shown == [normalise(h.payload) for h in recorded.hops if h.source == "tool" and h.target == "mcp_server"]
    # A recording whose server reported something else diverges where it differs.
    tampered = recorded.model_copy(deep=True)
    ran = next(h for h in tampered.hops if h.source == "tool" and h.target == "mcp_server")
    ran.payload["return"]["temp_low_c"] = 99
    divergences = replay_report(replay(tampered).trace)["divergences"]
    assert any(f"tool result for {ran.tool_call_id} differs" in d and "return.temp_low_c" in d for d in divergences)


def test_a_recording_from_before_the_reports_replays_without_divergence():
    recorded = load_trace(ROOT / "sample_traces" / "beijing-mcp.json")
    recorded.hops = [h for h in recorded.hops if "tool" not in (h.source, h.target) or h.source == "app"]
    assert not any(h.kind == "tool.invoke" for h in recorded.hops)
    assert replay_report(replay(recorded).trace)["diverged"] is False


def test_the_demo_server_and_the_tap_use_one_key_outside_the_reserved_prefixes():
    assert demo_report.REPORT_KEY == REPORT_KEY
    prefix, _, name = REPORT_KEY.partition("/")
    labels = prefix.split(".")
    assert name and len(labels) >= 2 and labels[1] not in ("modelcontextprotocol", "mcp")


# --- a server's report is data ---------------------------------------------------------------------------------


GOOD: dict[str, Any] = {
    "function": "get_weather",
    "kwargs": {"city": "北京"},
    "server_clock": {"started_at": "2026-12-01T10:00:00.000100+00:00", "ended_at": "2026-12-01T10:00:00.000300+00:00"},
    "outcome": "returned",
    "value": {"ok": True},
}


def with_report(report: Any) -> dict[str, Any]:
    return {"content": [], "_meta": {REPORT_KEY: report}}


def changed(**fields: Any) -> dict[str, Any]:
    report = copy.deepcopy(GOOD)
    for key, value in fields.items():
        if value is KeyError:
            del report[key]
        else:
            report[key] = value
    return report


def test_a_good_report_becomes_two_payloads_of_the_fields_named_and_nothing_else():
    got = read_report(with_report({**GOOD, "kind": "llm.request", "source": "model", "step": 3}), tool="get_weather")
    assert got is not None and got.duration_ms == pytest.approx(0.2)
    assert got.invoke == {
        "function": "get_weather",
        "kwargs": {"city": "北京"},
        "reported_by": "mcp_server",
        "server_clock": {"started_at": GOOD["server_clock"]["started_at"]},
    }
    assert got.result == {
        "return": {"ok": True},
        "isError": False,
        "reported_by": "mcp_server",
        "server_clock": GOOD["server_clock"],
    }
    assert read_report({"content": []}, tool="get_weather") is None  # a server that does not report: no hops
    assert read_report({"_meta": {"other/key": GOOD}}, tool="get_weather") is None


@pytest.mark.parametrize(
    ("report", "why"),
    [
        (changed(function="delete_everything"), "another function"),
        (changed(function=KeyError), "another function"),
        ("ran it", "not a JSON object"),
        (changed(kwargs=["北京"]), "kwargs"),
        (changed(kwargs={f"a{i}": i for i in range(65)}), "kwargs"),
        (changed(server_clock={"started_at": 1, "ended_at": 2}), "ISO 8601"),
        (changed(server_clock={"started_at": "2026-12-01T10:00:00", "ended_at": "2026-12-01T10:00:01"}), "offset"),
        (
            changed(server_clock={"started_at": "2026-12-01T10:00:01+00:00", "ended_at": "2026-12-01T10:00:00+00:00"}),
            "ends before",
        ),
        (changed(outcome="teleported"), "outcome"),
        (changed(value=KeyError), "outcome"),
        (changed(outcome="raised", raised={"type": 5, "message": "x"}), "type and a message"),
        (changed(value="x" * REPORT_MAX_BYTES), "over the 64 KB"),
    ],
)
def test_a_report_that_fails_a_check_is_refused_in_one_line(report, why):
    with pytest.raises(RefusedReport, match=why) as caught:
        read_report(with_report(report), tool="get_weather")
    assert "\n" not in str(caught.value)


def _hostile_server(meta_for: Any) -> Server[Any]:
    """A server that lists get_weather and answers each call with whatever `meta_for(n)` puts in `_meta`; it also
    puts a report on its tool list, where none belongs."""
    calls = 0
    tool = {"name": "get_weather", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult.model_validate({"tools": [tool], "_meta": {REPORT_KEY: GOOD}})

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        nonlocal calls
        calls += 1
        return types.CallToolResult.model_validate(
            {"content": [{"type": "text", "text": "sunny"}], "isError": False, "_meta": meta_for(calls)}
        )

    return Server("hostile", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


def run_against(server: Server[Any], question: str = QUESTION) -> Trace:
    async def go() -> Trace:
        rec = Recorder()
        spec = ServerSpec(transport="memory", server=server)
        async with open_session(spec, era="handshake", recorder=rec) as session:
            result = await run_flow(
                question,
                options=RunOptions(transport="memory"),
                model=ModelConfig(model="mock"),
                recorder=rec,
                session=session,
            )
        assert result.ok, result.error
        return result.trace

    return anyio.run(go)


def test_a_third_party_server_that_reports_is_read_by_the_same_rules():
    trace = run_against(_hostile_server(lambda n: {REPORT_KEY: GOOD}))
    # Its word is recorded, marked as its own, with the ids the client gave the call, never ids it chose.
    check_shape = [
        (h.kind, h.source, h.target) for h in trace.hops if h.jsonrpc_id is not None and "tool" in (h.source, h.target)
    ]
    assert check_shape == [("tool.invoke", "mcp_server", "tool"), ("tool.result", "tool", "mcp_server")] * 2
    listing = next(h for h in trace.hops if h.kind == "mcp.response" and "tools" in h.payload["result"])
    assert REPORT_KEY in listing.payload["result"]["_meta"]  # a report on another answer is left in the frame...
    assert sum(h.kind == "tool.invoke" for h in trace.hops) == 2  # ...and makes no hop


def test_a_hostile_report_is_refused_on_the_answer_and_makes_no_hop():
    forged = {
        1: {REPORT_KEY: changed(function="transfer_money")},  # a report about a function that was not called
        2: {REPORT_KEY: changed(value="x" * (1 << 20))},  # a flood
    }
    trace = run_against(_hostile_server(lambda n: forged[n]))
    assert not any(h.kind == "tool.invoke" or (h.source, h.target) == ("tool", "mcp_server") for h in trace.hops)
    answers = [h for h in trace.hops if h.kind == "mcp.response" and h.step == 7]
    assert [a.summary.split(" · ")[1] for a in answers] == [
        "its execution report was refused: it names another function than the tool called",
        f"its execution report was refused: {len(json_bytes(forged[2][REPORT_KEY])):,} bytes, "
        "over the 64 KB a report may have",
    ]
    parse_trace(json.loads(trace.to_json()))


def test_a_server_cannot_grow_the_trace_past_two_hops_a_call():
    many = {REPORT_KEY: GOOD, **{f"{REPORT_KEY}{i}": GOOD for i in range(50)}}
    trace = run_against(_hostile_server(lambda n: many))
    assert sum(h.kind == "tool.invoke" for h in trace.hops) == 2  # one a call, whatever else `_meta` holds


def _reported_payloads(trace: Trace) -> list[tuple[str, Any]]:
    keep = ("function", "kwargs", "return", "raised", "isError", "reported_by")
    return [
        (h.kind, {k: v for k, v in h.payload.items() if k in keep})
        for h in trace.hops
        if (h.source, h.target) in (("mcp_server", "tool"), ("tool", "mcp_server"))
    ]


@pytest.mark.parametrize("name", ["two-cities-parallel", "tool-error"])
def test_otlp_and_jsonrpc_logs_carry_the_report_there_and_back(name):
    from flow.interop.importers import import_bytes
    from flow.interop.otlp import to_otlp_json

    original = load_trace(ROOT / "sample_traces" / f"{name}.json")
    assert _reported_payloads(original)
    back = import_bytes(to_otlp_json(original).encode(), name="run.otlp.json")
    assert _reported_payloads(back) == _reported_payloads(original)  # the server's clock stays behind
    frames = "\n".join(json.dumps(h.payload, ensure_ascii=False) for h in original.hops if h.kind.startswith("mcp."))
    log = import_bytes(frames.encode(), name="session.jsonl")
    assert _reported_payloads(log) == _reported_payloads(original)
