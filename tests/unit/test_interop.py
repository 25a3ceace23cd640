"""Export to OpenTelemetry (OTLP/JSON and OTLP/HTTP) and import from other recorders (JSON-RPC logs, OTLP/JSON)."""

from __future__ import annotations

import base64
import datetime as dt
import http.server
import json
import socket
import threading
from typing import Any, ClassVar

import pytest
from google.protobuf.json_format import ParseDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from flow.cli import main
from flow.interop.importers import import_bytes
from flow.interop.otlp import send_otlp, to_otlp_json
from flow.trace.files import MAX_TRACE_BYTES, TraceError, load_trace, parse_trace
from flow.trace.model import Trace
from flow.trace.stats import model_calls, tool_calls
from flow.views.diagram import to_dot, to_mermaid
from flow.views.html import to_html
from flow.views.table import summary_line
from helpers import ROOT, Ran, server_facts, unmapped

SAMPLES = sorted((ROOT / "sample_traces").glob("*.json"))
CLIENT, SERVER, INTERNAL = 3, 2, 1  # OTLP SpanKind numbers


def sample(name: str) -> Trace:
    return load_trace(ROOT / "sample_traces" / f"{name}.json")


def on_stdio(trace: Trace) -> Trace:
    """The same run as if the server had been a stdio subprocess (the samples use the in-memory transport)."""
    return trace.model_copy(
        update={"meta": trace.meta.model_copy(update={"server": {**(trace.meta.server or {}), "transport": "stdio"}})}
    )


def spans_of(otlp: dict[str, Any]) -> list[dict[str, Any]]:
    """Every span, with its attributes as a plain dict and its resource's service.name beside it."""
    out = []
    for rs in otlp["resourceSpans"]:
        service = {a["key"]: a["value"] for a in rs["resource"]["attributes"]}["service.name"]["stringValue"]
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                attrs = {a["key"]: next(iter(a["value"].values())) for a in span.get("attributes", [])}
                out.append({**span, "attrs": attrs, "service": service})
    return sorted(out, key=lambda s: int(s["startTimeUnixNano"]))


def export(trace: Trace) -> list[dict[str, Any]]:
    return spans_of(json.loads(to_otlp_json(trace)))


@pytest.fixture
def cli(capsys):
    """The command line's `main`, in this process (a new interpreter per call would cost seconds each)."""

    def run(*args: str) -> Ran:
        code = main(list(args))
        out, err = capsys.readouterr()
        return Ran(code, out, err)

    return run


# --- export ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_the_export_is_otlp_json_with_hex_ids(path):
    data = json.loads(to_otlp_json(load_trace(path)))
    ids = []
    for rs in data["resourceSpans"]:
        for span in (s for ss in rs["scopeSpans"] for s in ss["spans"]):
            assert len(span["traceId"]) == 32 and len(span["spanId"]) == 16 and isinstance(span["kind"], int)
            ids.append(span["spanId"])
            for key in ("traceId", "spanId", "parentSpanId"):  # the protobuf JSON mapping wants base64
                if key in span:
                    span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    request = ParseDict(data, ExportTraceServiceRequest())  # unknown or mistyped OTLP fields would raise
    assert sum(len(ss.spans) for rs in request.resource_spans for ss in rs.scope_spans) == len(ids) == len(set(ids))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_every_model_call_and_tool_call_is_a_span_with_the_conventions_attributes(path):
    trace = load_trace(path)
    spans = export(trace)
    chats = [s for s in spans if s["attrs"].get("gen_ai.operation.name") == "chat"]
    tools = [s for s in spans if s["name"].startswith("execute_tool ")]
    if trace.meta.mode == "hosted":  # the calls the provider reports, under the model span that carried the report
        tools = [
            s
            for s in spans
            if s["attrs"].get("mcp_flow.reported_by") == "provider"
            and s["attrs"].get("gen_ai.operation.name") == "execute_tool"
        ]
    assert len(chats) == model_calls(trace.hops) and len(tools) == tool_calls(trace.hops)
    hosted = trace.meta.mode == "hosted"
    usage: list[dict[str, Any]] = []  # per model call: what the provider reported, if anything
    for hop in trace.hops:
        if hop.kind == "llm.request":
            usage.append({})
        elif hop.usage:  # a Messages stream counts the input in message_start, the output in message_delta
            usage[-1] = {**usage[-1], **hop.usage}
    for chat, used in zip(chats, usage, strict=True):
        a = chat["attrs"]
        assert chat["name"] == f"chat {a['gen_ai.request.model']}" and chat["kind"] == CLIENT
        provider = "anthropic" if trace.meta.settings.get("api") == "messages" else "openai"  # by the API it spoke
        assert a["gen_ai.provider.name"] == provider and a["gen_ai.request.model"] == trace.meta.model["name"]
        assert (a.get("gen_ai.usage.input_tokens"), a.get("gen_ai.usage.output_tokens")) == (
            str(used["prompt_tokens"]) if used else None,
            str(used["completion_tokens"]) if used else None,
        )
        reasons = [v["stringValue"] for v in a["gen_ai.response.finish_reasons"]["values"]]
        output = json.loads(a["gen_ai.output.messages"])
        # the provider's own word: Chat's finish_reason, Responses' status, Messages' stop_reason
        said = ("stop", "tool_calls", "completed", "tool_use", "end_turn")
        assert [m["role"] for m in output] == ["assistant"] and reasons[0] in said
        # Hosted MCP: the provider's own items (mcp_list_tools, mcp_call, an approval asked and given) are the
        # conventions' generic parts, of their own type, holding the item as it came
        assert all(
            p["type"] in ("text", "tool_call", "tool_call_response")
            or (hosted and p["type"].startswith("mcp_") and isinstance(p.get("value"), dict))
            for m in json.loads(a["gen_ai.input.messages"]) + output
            for p in m["parts"]
        )
    if hosted:  # the calls the provider reports are its spans, item for item, under the model span, and untimed
        reported = [
            h.payload["item"].get("id")
            for h in trace.hops
            if h.kind == "mcp.reported" and h.direction == "request" and h.payload["method"] == "tools/call"
        ]
        assert [t["attrs"]["gen_ai.tool.call.id"] for t in tools] == reported
        chat_ids = {c["spanId"] for c in chats}
        assert all(t["kind"] == INTERNAL and t["parentSpanId"] in chat_ids for t in tools)
        # the frames a recorder saw were sent by the provider's MCP client, not by the app
        observed = [sp for sp in spans if sp["kind"] == CLIENT and sp["attrs"].get("mcp.method.name")]
        assert observed and {sp["service"] for sp in observed} == {"model-provider-mcp-client"}
        return
    # The tool calls the model asked for are the execute_tool spans, id for id (not those the host's model asked of an
    # MCP server's own tools, in a call made for the server: the server runs them, the app never does).
    asked = [
        p["id"]
        for c in chats
        if c["attrs"].get("mcp_flow.requested_by") != "mcp_server"
        for m in json.loads(c["attrs"]["gen_ai.output.messages"])
        for p in m["parts"]
        if p["type"] == "tool_call"
    ]
    # A run stopped at its round limit never runs the last reply's calls: they have no span.
    ran = {h.tool_call_id for h in trace.hops if h.tool_call_id and not h.kind.startswith("llm.")}
    assert [t["attrs"]["gen_ai.tool.call.id"] for t in tools] == [i for i in asked if i in ran]
    assert len(ran & set(asked)) == len(asked) or trace.meta.settings.get("max_rounds") == len(chats) - 1
    for tool in tools:
        assert tool["name"] == f"execute_tool {tool['attrs']['gen_ai.tool.name']}" and tool["kind"] == INTERNAL
        assert "gen_ai.tool.call.arguments" in tool["attrs"]


def test_mcp_spans_carry_method_id_protocol_and_transport_with_the_server_span_as_child():
    trace = on_stdio(sample("two-cities-parallel"))
    spans = export(trace)
    by_id = {s["spanId"]: s for s in spans}
    root = spans[0]
    assert root["name"] == "invoke_agent mcp-flow-app" and "parentSpanId" not in root
    assert {s["traceId"] for s in spans} == {root["traceId"]}
    frames = [h for h in trace.hops if h.kind in ("mcp.request", "mcp.notification")]
    clients = [s for s in spans if "mcp.method.name" in s["attrs"] and s["kind"] == CLIENT]
    assert [c["attrs"]["mcp.method.name"] for c in clients] == [h.payload["method"] for h in frames]
    for client, hop in zip(clients, frames, strict=True):
        a = client["attrs"]
        assert a.get("jsonrpc.request.id") == (None if hop.jsonrpc_id is None else str(hop.jsonrpc_id))
        assert a["mcp.protocol.version"] == "2025-11-25" and a["network.transport"] == "pipe"
        server = [s for s in spans if s.get("parentSpanId") == client["spanId"]]
        assert [(s["kind"], s["name"], s["service"]) for s in server] == [(SERVER, client["name"], "weather-demo")]
        parent = by_id[client["parentSpanId"]]
        if a["mcp.method.name"] == "tools/call":
            assert client["name"] == f"tools/call {a['gen_ai.tool.name']}"
            assert parent["name"] == f"execute_tool {a['gen_ai.tool.name']}"
            assert json.loads(a["gen_ai.tool.call.arguments"]) == hop.payload["params"]["arguments"]
        else:
            assert parent is root
    assert {
        json.loads(c["attrs"]["gen_ai.tool.call.arguments"])["city"]
        for c in clients
        if c["attrs"]["mcp.method.name"] == "tools/call"
    } == {"北京", "上海"}
    assert [by_id[s["parentSpanId"]]["name"] for s in spans if s["name"].startswith("chat ")] == [root["name"]] * 2


def test_tool_errors_and_protocol_errors_set_error_type_and_status():
    failed = [s for s in export(sample("tool-error")) if "error.type" in s["attrs"]]
    assert {(s["name"], s["attrs"]["error.type"], s["status"]["code"]) for s in failed} == {
        ("execute_tool get_weather", "tool_error", 2),
        ("tools/call get_weather", "tool_error", 2),
        ("get_weather", "ToolError", 2),  # the server's report: its function raised
    }
    unknown = [s for s in export(sample("unknown-tool")) if s["name"] == "tools/call get_current_weather"]
    assert len(unknown) == 2 and all(s["attrs"]["error.type"] == "-32602" for s in unknown)
    assert all(s["attrs"]["rpc.response.status_code"] == "-32602" for s in unknown)
    assert unknown[0]["status"]["message"] == "Unknown tool: get_current_weather"
    refused = [s for s in export(sample("bad-json-arguments")) if s["attrs"].get("error.type") == "invalid_arguments"]
    assert [s["name"] for s in refused] == ["execute_tool get_weather"]


def test_no_header_or_secret_reaches_an_export(monkeypatch):
    trace = sample("beijing-mcp")
    text = to_otlp_json(trace)
    assert "authorization" not in text.lower() and "x-stainless" not in text  # headers are not exported at all
    monkeypatch.setenv("DEMO_API_KEY", "sk-live-0123456789")
    question = trace.meta.model_copy(update={"question": "my key is sk-live-0123456789"})
    text = to_otlp_json(trace.model_copy(update={"meta": question}))  # redacted as a saved trace would be
    assert "sk-live-0123456789" not in text and "my key is [redacted]" in text


def test_span_times_are_the_hops_times():
    trace = sample("beijing-mcp")
    spans = export(trace)
    base = int(dt.datetime.fromisoformat(trace.meta.started_at).timestamp()) * 10**9  # whole seconds: exact

    def at(ms: float) -> int:
        return base + round(ms * 1e6)

    requests = [h for h in trace.hops if h.kind == "llm.request"]
    responses = [h for h in trace.hops if h.kind == "llm.response"]
    chats = [s for s in spans if s["name"].startswith("chat ")]
    assert [(int(s["startTimeUnixNano"]), int(s["endTimeUnixNano"])) for s in chats] == [
        (at(q.t_start_ms), at(r.t_end_ms)) for q, r in zip(requests, responses, strict=True)
    ]
    assert int(spans[0]["startTimeUnixNano"]) == at(trace.hops[0].t_start_ms)
    assert int(spans[0]["endTimeUnixNano"]) == at(trace.hops[-1].t_end_ms)


def test_a_failed_run_marks_the_root_span(runner):
    result = runner(model="mock-error-401")
    root = export(result.trace)[0]
    assert root["status"]["code"] == 2 and "HTTP 401" in root["status"]["message"]
    chat = next(s for s in export(result.trace) if s["name"].startswith("chat "))
    assert chat["attrs"]["error.type"] == "401"
    back = import_bytes(to_otlp_json(result.trace).encode(), name="failed.otlp.json")
    assert (back.meta.outcome, back.meta.error) == ("error", result.error)
    assert [(h.kind, h.step) for h in back.hops][-2:] == [("llm.error", 3), ("error", 10)]


class _Collector(http.server.BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, str, bytes]]] = []
    headers_seen: ClassVar[list[dict[str, str]]] = []
    refuse = False  # answer 401 with the request's Authorization header in the reason, as a careless one might

    def do_POST(self) -> None:  # the name http.server calls
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.path, self.headers["Content-Type"], body))
        self.headers_seen.append({k.lower(): v for k, v in self.headers.items()})
        if self.refuse:  # the exporter reports the status line's reason
            key = str(self.headers.get("Authorization"))
            self.send_response(401, f"bad key {key}, that is {key.split()[-1]}")
        else:
            self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def collector():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    _Collector.received, _Collector.headers_seen, _Collector.refuse = [], [], False
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _Collector.received
    server.shutdown()
    server.server_close()


def test_a_live_export_reaches_an_otlp_http_receiver_whole(collector):
    url, received = collector
    trace = on_stdio(sample("unknown-tool"))
    assert send_otlp(trace, url) == len(export(trace))
    [(path, content_type, body)] = received
    assert (path, content_type) == ("/v1/traces", "application/x-protobuf")
    request = ExportTraceServiceRequest.FromString(body)
    sent = sorted(
        (s.name, s.span_id.hex(), s.parent_span_id.hex(), s.start_time_unix_nano, s.end_time_unix_nano)
        for rs in request.resource_spans
        for ss in rs.scope_spans
        for s in ss.spans
    )
    written = sorted(
        (s["name"], s["spanId"], s.get("parentSpanId", ""), int(s["startTimeUnixNano"]), int(s["endTimeUnixNano"]))
        for s in export(trace)
    )
    # agent, 3 chats, 2 tools, 5 MCP client + server pairs, the server's run of the one tool it has
    assert sent == written and len(sent) == 17


def test_the_cli_exports_to_a_file_and_a_collector(tmp_path, collector, cli):
    url, received = collector
    out = tmp_path / "run.otlp.json"
    proc = cli(
        "export", str(ROOT / "sample_traces" / "beijing-mcp.json"), "--otlp-json", str(out), "--otlp-endpoint", url
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [str(out), f"13 spans sent to {url}"] and len(received) == 1
    assert len(export(sample("beijing-mcp"))) == sum(
        len(ss["spans"]) for rs in json.loads(out.read_text())["resourceSpans"] for ss in rs["scopeSpans"]
    )


def test_the_cli_sends_otlp_headers_and_never_prints_their_values(collector, cli):
    url, received = collector
    key = "Basic cGstbGYtMTIzNDpzay1sZi01Njc4"  # base64 of a made-up Langfuse public:secret key pair
    beijing = str(ROOT / "sample_traces" / "beijing-mcp.json")
    args = ["export", beijing, "--otlp-endpoint", url, "--otlp-header", f"Authorization={key}"]
    proc = cli(*args, "--otlp-header", "x-langfuse-ingestion-version=4")
    assert proc.returncode == 0 and proc.stdout == f"13 spans sent to {url}\n" and proc.stderr == ""
    [headers] = _Collector.headers_seen
    assert headers["authorization"] == key and headers["x-langfuse-ingestion-version"] == "4"
    assert received[0][0] == "/v1/traces"
    # A collector that refuses the key and says it back: the one error line has the reason, not the key.
    _Collector.refuse = True
    proc = cli(*args, "--timeout", "2")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert "401" in proc.stderr and "bad key [redacted], that is [redacted]" in proc.stderr
    assert "cGstbGY" not in proc.stdout + proc.stderr
    # A header that is not NAME=VALUE (a key pasted alone) is refused without being shown.
    for bad in ("cGstbGYtMTIzNDpzay1sZi01Njc4", "=cGstbGYtMTIzNDpzay1sZi01Njc4"):
        proc = cli("export", beijing, "--otlp-endpoint", url, "--otlp-header", bad)
        assert proc.returncode == 2 and proc.stderr.startswith("error: --otlp-header wants NAME=VALUE")
        assert "cGstbGY" not in proc.stdout + proc.stderr
    proc = cli("export", beijing, "--otlp-json", "-", "--otlp-header", f"Authorization={key}")
    assert proc.returncode == 2 and "cGstbGY" not in proc.stdout + proc.stderr
    assert len(received) == 2  # the refused and the accepted export, nothing from the refused command lines


def test_the_cli_says_in_one_line_when_the_collector_cannot_be_reached(cli):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here once the socket is closed
    proc = cli(
        "export",
        str(ROOT / "sample_traces" / "beijing-mcp.json"),
        "--otlp-endpoint",
        f"http://127.0.0.1:{port}",
        "--timeout",
        "0.5",
    )
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(f"error: the OTLP endpoint http://127.0.0.1:{port}/v1/traces did not take the spans")
    for args in (["--otlp-endpoint", "localhost:4318"], []):
        proc = cli("export", str(ROOT / "sample_traces" / "beijing-mcp.json"), *args)
        assert proc.returncode in (1, 2) and proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1


# --- import ---------------------------------------------------------------------------------------

# Hops that have no span: the step-0 tool list, translations and the client's hand-over stay in the app.
_NOT_EXPORTED = {"prepare.tools", "tool.list", "translate.forward", "client.result", "llm.chunk", "llm.assembled"}


def _shape(trace: Trace, *, streamed: bool = False) -> list[tuple[Any, ...]]:
    rows = []
    for h in trace.hops:
        if h.kind in _NOT_EXPORTED:
            continue
        kind = "llm.response" if streamed and h.kind == "llm.assembled" else h.kind
        rows.append((kind, h.step, h.source, h.target, h.jsonrpc_id, h.tool_call_id, h.round))
    return rows


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_an_exported_trace_imports_back_to_the_same_steps(path):
    original = load_trace(path)
    back = import_bytes(to_otlp_json(original).encode(), name="run.otlp.json")
    assert back.meta.imported is not None and back.meta.imported.format == "otlp-json"
    assert back.meta.imported.unmapped  # at least: frames are rebuilt, not recorded bytes
    streamed = any(h.kind == "llm.chunk" for h in original.hops)
    expected = _shape(original)
    if streamed:  # chunks come back as one response, where the app assembled them
        expected = [
            r
            for r in _shape(
                original.model_copy(
                    update={
                        "hops": [
                            h.model_copy(update={"kind": "llm.response", "source": "model"})
                            if h.kind == "llm.assembled"
                            else h
                            for h in original.hops
                        ]
                    }
                )
            )
        ]
    # The question is the import's root, so it comes back first, even where the session opened before it was asked.
    expected = sorted(expected, key=lambda r: r[0] != "user.message")
    assert _shape(back) == expected
    assert (back.meta.mode, back.meta.question, back.meta.answer, back.meta.outcome) == (
        original.meta.mode,
        original.meta.question,
        original.meta.answer,
        original.meta.outcome,
    )
    figures = [(t.meta.stats.get("model_calls"), t.meta.stats.get("tool_calls")) for t in (back, original)]
    assert figures[0] == figures[1] and None not in figures[1], figures

    first = next(h for h in back.hops if h.kind == "llm.request")
    sent = next(h for h in original.hops if h.kind == "llm.request").payload["body"]
    if "messages" in sent and "system" not in sent:  # Chat Completions: the same messages come back
        assert first.payload["body"]["messages"] == sent["messages"]
    else:  # Responses or Messages: rebuilt in Chat Completions' form, the system prompt first
        system = sent.get("instructions", sent.get("system"))
        expected_messages = [{"role": "system", "content": system}, {"role": "user", "content": original.meta.question}]
        assert first.payload["body"]["messages"] == expected_messages
    # The app's hops are built by the constructors the engine uses, so they say the same lines.
    for kind in ("user.message", "translate.reverse", "app.answer"):
        assert [h.summary for h in back.hops if h.kind == kind] == [h.summary for h in original.hops if h.kind == kind]
    # An imported trace is a trace: it validates and it draws.
    parse_trace(back.model_dump(mode="json"))
    assert "digraph" in to_dot(back) and "sequenceDiagram" in to_mermaid(back) and "<html" in to_html(back).lower()


def test_spans_from_another_recorder_import_leniently():
    """Base64 ids and enum names (the protobuf JSON mapping), chat spans without an agent span, an HTTP span."""

    def b64(hex_id: str) -> str:
        return base64.b64encode(bytes.fromhex(hex_id)).decode()

    def attrs(**values: Any) -> list[dict[str, Any]]:
        return [
            {"key": k.replace("__", "."), "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}}
            for k, v in values.items()
        ]

    trace_id = b64("ab" * 16)
    chat = {
        "traceId": trace_id,
        "spanId": b64("01" * 8),
        "name": "chat gpt-4o",
        "kind": "SPAN_KIND_CLIENT",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000000500000000",
        "attributes": attrs(
            gen_ai__operation__name="chat",
            gen_ai__request__model="gpt-4o",
            gen_ai__system_instructions=json.dumps([{"type": "text", "content": "Be brief."}]),
            gen_ai__input__messages=json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}]),
            gen_ai__output__messages=json.dumps(
                [{"role": "assistant", "finish_reason": "stop", "parts": [{"type": "text", "content": "Hello"}]}]
            ),
            gen_ai__usage__input_tokens=5,
            gen_ai__usage__output_tokens=2,
        ),
    }
    http_span = {
        "traceId": trace_id,
        "spanId": b64("02" * 8),
        "parentSpanId": b64("01" * 8),
        "name": "POST",
        "kind": 3,
        "startTimeUnixNano": "1700000000100000000",
        "endTimeUnixNano": "1700000000400000000",
    }
    data = {
        "resourceSpans": [
            {
                "resource": {"attributes": attrs(service__name="someone-else")},
                "scopeSpans": [{"spans": [http_span, chat]}],
            }
        ]
    }
    trace = import_bytes(json.dumps(data).encode(), name="theirs.json")
    assert [(h.kind, h.step, h.t_end_ms) for h in trace.hops] == [("llm.request", 3, 0.0), ("llm.response", 9, 500.0)]
    # The body is rebuilt in Chat Completions' form, and its line says so as a recorded request's does.
    assert trace.hops[0].summary == "POST /chat/completions: 2 messages, 0 tools"
    assert trace.hops[0].payload["body"]["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]
    assert trace.hops[1].usage == {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    assert (trace.meta.mode, trace.meta.question, trace.meta.started_at) == (
        "direct",
        "Hi",
        "2023-11-14T22:13:20+00:00",
    )
    assert "spans neither GenAI nor MCP: 'POST'" in unmapped(trace)


def _jsonrpc_log(trace: Trace, *, bare: bool = False) -> bytes:
    """The trace's MCP frames as an MCP Inspector style log: one message a line, with direction and time."""
    base = dt.datetime.fromisoformat(trace.meta.started_at)
    lines = []
    for h in trace.hops:
        if h.kind.startswith("mcp."):
            entry = (
                h.payload
                if bare
                else {
                    "direction": "outgoing" if h.source == "mcp_client" else "incoming",
                    "timestamp": (base + dt.timedelta(milliseconds=h.t_end_ms)).isoformat(),
                    "message": h.payload,
                }
            )
            lines.append(json.dumps(entry, ensure_ascii=False))
    return "\n".join(lines).encode()


@pytest.mark.parametrize("bare", [False, True], ids=["with-direction", "bare-frames"])
@pytest.mark.parametrize(
    "name", ["two-cities-parallel", "unknown-tool", "era-modern", "resource-read", "progress-notifications"]
)
def test_a_jsonrpc_log_imports_as_the_mcp_hops_the_orchestrator_recorded(name, bare):
    original = sample(name)
    back = import_bytes(_jsonrpc_log(original, bare=bare), name="session.jsonl")
    # The frames, and the server's reports of running its tools, which its answers carry (read by the same rules)
    reported = (("mcp_server", "tool"), ("tool", "mcp_server"))
    frames = [h for h in original.hops if h.kind.startswith("mcp.") or (h.source, h.target) in reported]

    def shape(hops):
        return [(h.kind, h.step, h.source, h.target, h.jsonrpc_id, h.payload) for h in hops]

    assert shape(back.hops) == shape(frames)
    assert [h.round for h in back.hops if h.step in (6, 7)] == [h.round for h in frames if h.step in (6, 7)]
    assert back.meta.imported is not None and back.meta.imported.format == "jsonrpc-jsonl"
    assert server_facts(back)["protocol_version"] == server_facts(original)["protocol_version"]
    assert server_facts(back)["era"] == server_facts(original)["era"]
    if not bare:  # the frames' times come from the log (a report's are placed by its duration, before its answer)
        wire = [h for h in frames if h.kind.startswith("mcp.")]
        assert [h.t_end_ms for h in back.hops if h.kind.startswith("mcp.")] == pytest.approx(
            [h.t_end_ms - wire[0].t_end_ms for h in wire], abs=1e-3
        )
        for invoke in (h for h in back.hops if h.kind == "tool.invoke"):
            call, answer = (h for h in back.hops if h.jsonrpc_id == invoke.jsonrpc_id and h.kind.startswith("mcp."))
            assert call.t_end_ms <= invoke.t_start_ms <= answer.t_end_ms
    assert "digraph" in to_dot(back)


def test_a_partial_log_is_imported_with_what_is_missing_listed():
    lines = [
        {
            "direction": "client_to_server",
            "timestamp": 1795999971.5,
            "message": {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "get_weather"}},
        },
        {
            "direction": "server_to_client",
            "timestamp": 1795999971600,
            "message": {"jsonrpc": "2.0", "id": 3, "result": {}},
        },
    ]
    trace = import_bytes("\n".join(json.dumps(x) for x in lines).encode(), name="cut.jsonl")
    assert [(h.kind, h.step, h.t_end_ms) for h in trace.hops] == [
        ("mcp.request", 6, 0.0),
        ("mcp.response", None, 100.0),
    ]
    assert unmapped(trace)[:2] == [
        "line 2: an answer to id 3, whose request is not in the log",
        "line 1: tools/call got no response in the log",
    ]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            '{"direction": "outgoing", "message": {"jsonrpc": "2.0", "id": 1, "method": "ping"}}\n\n{"direction": ',
            "log.jsonl line 3: not JSON (Expecting value at column 15)",
        ),
        (
            '{"direction": "sideways", "message": {"jsonrpc": "2.0", "method": "ping"}}',
            "log.jsonl line 1: unknown direction 'sideways'",
        ),
        (
            '{"timestamp": "yesterday", "message": {"jsonrpc": "2.0", "method": "ping"}}',
            "log.jsonl line 1: timestamp 'yesterday' is neither an ISO 8601 time nor an epoch number",
        ),
        (
            '{"jsonrpc": "2.0", "method": "ping"}\n{"direction": "incoming", "message": {"hello": 1}}',
            "log.jsonl line 2: not a JSON-RPC message (no method, result or error)",
        ),
        ("", "log.jsonl: the file is empty"),
        (
            '{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "00", "name": "x"}]}]}]}',
            "log.jsonl: resourceSpans[0].scopeSpans[0].spans[0]: missing spanId",
        ),
        ('{"resourceSpans": []}', "log.jsonl: the OTLP/JSON holds no spans"),
        (
            json.dumps(
                {
                    "resourceSpans": [
                        {
                            "scopeSpans": [
                                {
                                    "spans": [
                                        {
                                            "traceId": "ab" * 16,
                                            "spanId": "cd" * 8,
                                            "name": "GET /",
                                            "startTimeUnixNano": "1",
                                        }
                                    ]
                                }
                            ]
                        }
                    ]
                }
            ),
            "log.jsonl: none of its spans is a GenAI or MCP span, so there is nothing to step through",
        ),
    ],
)
def test_bad_input_is_one_line_naming_the_line(text, error):
    from flow.trace.files import TraceError

    with pytest.raises(TraceError) as caught:
        import_bytes(text.encode(), name="log.jsonl")
    assert str(caught.value).startswith(error) and "\n" not in str(caught.value)


def test_the_cli_imports_and_reports_bad_lines(tmp_path, cli):
    log = tmp_path / "session.jsonl"
    log.write_bytes(_jsonrpc_log(sample("beijing-mcp")))
    proc = cli("import", str(log))
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "session.trace.json"
    assert proc.stdout.splitlines()[-1] == f"{summary_line(load_trace(out))} → {out}"
    assert proc.stdout.splitlines()[-1].startswith(
        "hops 9 · model calls 0 · tools/call 1 (no model) · elapsed "
    )  # 7 frames, the server's two hops: a session of MCP alone says the call it sent, not "tool calls 0"
    imported = load_trace(out).meta.imported
    assert imported is not None and imported.file == str(log)

    assert cli("show", str(out)).returncode == 0 and cli("render", str(out), "-f", "mermaid").returncode == 0
    log.write_text(log.read_text(encoding="utf-8") + "\nnot json\n", encoding="utf-8")
    proc = cli("import", str(log), "--format", "jsonrpc-jsonl")
    assert proc.returncode == 2 and proc.stderr == f"error: {log} line 8: not JSON (Expecting value at column 1)\n"


def test_an_import_over_the_size_limit_is_one_line_in_the_units_of_the_limit():
    with pytest.raises(TraceError) as refused:
        import_bytes(b" " * (MAX_TRACE_BYTES + 2**20), name="big.jsonl")
    assert str(refused.value) == "big.jsonl: 51.0 MiB is over the 50 MiB limit for a file to import"
