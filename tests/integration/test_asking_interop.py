"""A server that asks, through every reader downstream of a run: replay offline, the OTLP export and its import, the
stdio recording proxy and the JSON-RPC log import of what it recorded."""

from __future__ import annotations

import itertools
import shlex
import sys
from typing import Any

import pytest
from opentelemetry.trace import SpanKind

from flow.backends.replay import replay
from flow.engine.options import RunOptions
from flow.interop.importers import import_bytes, import_file
from flow.interop.otlp import to_otlp_json, to_spans
from flow.runs import run
from flow.servers.spec import ServerSpec
from flow.trace.files import load_trace, save_trace
from flow.trace.model import Trace
from flow.trace.normalise import normalise
from flow.trace.rounds import call_rounds
from helpers import flow_cli

PY = sys.executable
QUESTIONS = {
    "elicitation": ("我这里今天天气怎么样？", {"city": "上海"}),
    "sampling": ("用一句话说说北京未来三天的天气", {}),
    "roots": ("北京有什么课堂笔记？", {}),
    "sampling_tools": ("明天适合带全班去北京郊游吗？", {}),
}
ERAS = ["handshake", "modern"]
ASKS = {"elicitation": 1, "sampling": 1, "roots": 1, "sampling_tools": 2}  # how often the tool asks the host
MODEL_CALLS = {"sampling": 1, "sampling_tools": 2}  # of them, the host's model calls for the server
_NOT_EXPORTED = {"prepare.tools", "tool.list", "translate.forward", "client.result"}


def recorded(feature: str, era: Any, **options: Any) -> Trace:
    question, answers = QUESTIONS[feature]
    built = RunOptions.build(
        server=ServerSpec(transport="memory", asks=True), asks=True, transport="memory", era=era, answers=answers,
        **options,
    )  # fmt: skip
    result = run(question, options=built)
    assert result.ok, result.error
    return result.trace


def asked(trace: Trace) -> list[tuple[Any, ...]]:
    """What the host did for the server: its model calls (marked for_server) and the user's hops."""
    return [
        (h.kind, h.source, h.target, h.step, normalise(h.payload.get("for_server") or h.payload.get("asked")))
        for h in trace.hops
        if h.kind == "user.input" or (h.kind.startswith("llm.") and "for_server" in h.payload)
    ]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("feature", list(QUESTIONS))
def test_replay_serves_the_servers_model_calls_in_order_and_answers_as_recorded(feature, era, tmp_path):
    original = recorded(feature, era)
    path = tmp_path / "asks.json"
    save_trace(original, path)
    proc = flow_cli("replay", str(path), "-o", str(tmp_path / "again.json"))
    assert proc.returncode == 0, proc.stderr
    assert "replay matched the recording" in proc.stdout + proc.stderr
    again = replay(original, source=str(path))
    report = again.trace.meta.replay or {}
    assert report["diverged"] is False and report["divergences"] == []
    served = len([h for h in original.hops if h.kind == "llm.request"])
    assert report["served"] == report["recorded_model_exchanges"] == served
    assert served == 2 + MODEL_CALLS.get(feature, 0)  # the server's model calls are served from the recording too
    assert asked(again.trace) == asked(original)
    assert again.answer == original.meta.answer


def test_a_replay_answers_the_form_from_the_recordings_settings():
    """Answers are data: a recording declined is declined again; the form is never filled by guess."""
    original = recorded("elicitation", "modern", elicit_action="decline")
    again = replay(original)
    assert (again.trace.meta.replay or {})["diverged"] is False
    (answer,) = [h for h in again.trace.hops if h.kind == "user.input" and h.direction == "response"]
    assert answer.payload["action"] == "decline" and "content" not in answer.payload


def test_a_replay_never_takes_its_roots_from_the_recording(tmp_path):
    """Roots are folders on this machine: a recording made with a root of its own replays with the default root,
    and the differing tool result is a divergence, said."""
    (tmp_path / "Beijing.md").write_text("# a note only this folder has\n", encoding="utf-8")
    original = recorded("roots", "handshake", roots=[str(tmp_path)])
    assert "a note only this folder has" in (original.meta.answer or "")
    assert list(original.meta.settings["roots"]) == [str(tmp_path)]
    again = replay(original)
    (result,) = [h for h in again.trace.hops if h.kind == "tool.result" and h.target == "app"]
    assert "Dry, windy winters" in str(result.payload) and "a note only this folder has" not in str(result.payload)
    assert "roots" not in again.trace.meta.settings
    report = again.trace.meta.replay or {}
    assert report["diverged"] is True and any("tool result" in d for d in report["divergences"])


def _shape(trace: Trace) -> list[tuple[Any, ...]]:
    return [
        (h.kind, h.step, h.source, h.target, h.jsonrpc_id, h.tool_call_id, h.round)
        for h in trace.hops
        if h.kind not in _NOT_EXPORTED
    ]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("feature", list(QUESTIONS))
def test_an_asking_trace_exports_to_otlp_and_imports_back_to_the_same_steps(feature, era):
    original = recorded(feature, era)
    back = import_bytes(to_otlp_json(original).encode(), name="asks.otlp.json")
    expected = sorted(_shape(original), key=lambda r: r[0] != "user.message")
    assert _shape(back) == expected
    assert asked(back) == asked(original)
    for kind in ("user.input",):
        assert [h.payload for h in back.hops if h.kind == kind] == [h.payload for h in original.hops if h.kind == kind]
    # The frames that carry the asking come back as they were, so the rounds group again by request state.
    frames = [normalise(h.payload) for h in original.hops if h.step == 6 and h.kind.startswith("mcp.")]
    # (what the export leaves out: the _meta of a tools/call's params and of an input-required result)
    assert [normalise(h.payload) for h in back.hops if h.step == 6 and h.kind.startswith("mcp.")] == [
        {**f, "params": {k: v for k, v in f["params"].items() if k != "_meta"}} if f.get("method") == "tools/call"
        else {**f, "result": {k: v for k, v in f["result"].items() if k != "_meta"}} if "result" in f
        else f
        for f in frames
    ]  # fmt: skip
    rounds = [[h.jsonrpc_id for h in c.requests] for c in call_rounds(back.hops).calls]
    assert rounds == [[h.jsonrpc_id for h in c.requests] for c in call_rounds(original.hops).calls]
    assert rounds == ([list(range(3, 4 + ASKS[feature]))] if era == "modern" else [])


def _tree(trace: Trace) -> dict[str, Any]:
    spans = to_spans(trace)
    by_id = {s.context.span_id: s for s in spans if s.context is not None}

    def parent(s: Any) -> Any:
        return by_id[s.parent.span_id] if s.parent is not None else None

    return {"spans": spans, "parent": parent}


def test_otlp_a_handshake_sampling_call_is_under_the_request_it_answers():
    tree = _tree(recorded("sampling", "handshake"))
    spans, parent = tree["spans"], tree["parent"]
    (chat,) = [s for s in spans if s.name.startswith("chat") and s.attributes.get("mcp_flow.requested_by")]
    assert chat.attributes["mcp_flow.requested_by"] == "mcp_server"
    assert chat.attributes["mcp_flow.for_server.method"] == "sampling/createMessage"
    answering = parent(chat)
    assert (answering.name, answering.kind) == ("sampling/createMessage", SpanKind.SERVER)
    assert answering.resource.attributes["service.name"] == "mcp-flow-app"
    asking = parent(answering)
    assert asking.kind == SpanKind.CLIENT and asking.resource.attributes["service.name"] == "weather-demo"
    call_server = parent(asking)
    assert (call_server.name, call_server.kind) == ("tools/call forecast_in_words", SpanKind.SERVER)
    assert parent(parent(call_server)).name == "execute_tool forecast_in_words"


@pytest.mark.parametrize("feature", ["elicitation", "sampling", "sampling_tools"])
def test_otlp_a_modern_logical_call_is_its_rounds_under_one_execute_tool_span(feature):
    tree = _tree(recorded(feature, "modern"))
    spans, parent = tree["spans"], tree["parent"]
    (tool,) = [s for s in spans if s.name.startswith("execute_tool")]
    rounds = [s for s in spans if s.name.startswith("tools/call") and s.kind == SpanKind.CLIENT]
    asks = ASKS[feature]
    assert [parent(s) for s in rounds] == [tool] * (asks + 1)
    assert [(s.attributes["mcp_flow.logical_call"], s.attributes["mcp_flow.round"]) for s in rounds] == [
        (1, n) for n in range(1, asks + 2)
    ]
    for before, after in itertools.pairwise(rounds):
        state = before.attributes["mcp_flow.input_required.request_state"]
        assert after.attributes["mcp_flow.call.request_state"] == state
        assert before.attributes["jsonrpc.request.id"] != after.attributes["jsonrpc.request.id"]
    did = [s for s in spans if s.attributes.get("mcp_flow.requested_by") == "mcp_server"]
    assert len(did) == asks
    for span, (before, after) in zip(did, itertools.pairwise(rounds), strict=True):
        assert parent(span) == tool and before.end_time <= span.start_time <= after.start_time
        assert span.name == ("ask_user" if feature == "elicitation" else "chat mock")
    span = did[0]
    if feature == "elicitation":
        assert span.attributes["mcp_flow.user.action"] == "accept"
        assert span.attributes["mcp_flow.user.content"] == '{"city": "上海"}'


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("feature", ["elicitation", "sampling", "sampling_tools"])
def test_the_stdio_proxy_records_both_directions_as_the_app_does(tmp_path, feature, era):
    """The server's requests and the client's answers pass the proxy both ways, and its recording imports as the
    frames the app recorded, in the same steps."""
    log, out = tmp_path / "mcp.jsonl", tmp_path / "run.json"
    server = shlex.join([PY, "-m", "flow", "proxy", "--out", str(log), "--", PY, "-m", "weather_demo", "--asks"])
    question, answers = QUESTIONS[feature]
    extra = [f"--answer={k}={v}" for k, v in answers.items()]
    caps = [a for c in ("sampling", "elicitation", "roots") for a in ("--host-capability", c)]
    proc = flow_cli("run", "--server", server, "--era", era, *caps, *extra, "-q", question, "--out", str(out))
    assert proc.returncode == 0, proc.stderr

    def wire(trace: Trace) -> list[tuple[Any, ...]]:
        return [
            (h.kind, h.source, h.target, h.step, h.jsonrpc_id, normalise(h.payload))
            for h in trace.hops
            if h.kind.startswith("mcp.")
        ]

    app = load_trace(out)
    from_proxy = import_file(log)
    assert wire(from_proxy) == wire(app)
    method = "elicitation/create" if feature == "elicitation" else "sampling/createMessage"
    back = [h for h in from_proxy.hops if h.source == "mcp_server" and h.kind == "mcp.request"]
    if era == "handshake":
        assert len(back) == ASKS[feature]
        for request in back:
            assert request.payload["method"] == method and request.step == 6
            (answer,) = [
                h
                for h in from_proxy.hops
                if h.source == "mcp_client" and h.kind == "mcp.response" and h.jsonrpc_id == request.jsonrpc_id
            ]
            assert answer.kind == "mcp.response" and answer.step == 6
    else:
        assert back == []
        (logical,) = call_rounds(from_proxy.hops).calls
        assert len(logical.requests) == ASKS[feature] + 1 and logical.finished


def test_a_file_with_hostile_asking_fields_exports_and_imports_without_a_traceback() -> None:
    """What names the server's request in a file (the ask's key or id, the input requests) may be any JSON value."""
    from flow.trace.files import load_trace
    from helpers import ROOT

    trace = load_trace(ROOT / "sample_traces" / "asks-elicitation-modern.json")
    for hop in trace.hops:
        if hop.kind == "user.input":
            hop.payload["asked"] = {"method": "elicitation/create", "key": [1]}
        elif hop.kind == "mcp.response" and (hop.payload.get("result") or {}).get("resultType") == "input_required":
            hop.payload["result"]["inputRequests"] = 5
    back = import_bytes(to_otlp_json(trace).encode(), name="hostile.otlp.json")
    assert any(h.kind == "user.input" for h in back.hops)
