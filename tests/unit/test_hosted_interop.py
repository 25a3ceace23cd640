"""Hosted MCP through the proxies and OpenTelemetry: a real app whose provider is the MCP client, recorded by the model
proxy (and `proxy-http` in front of the server), merges into a hosted trace whose `mcp.reported` hops follow the reply
that reported them, paired with the frames seen; the export puts them under their model span, marked reported, with
that span's window; the import reads them back as reported, never as frames.

The bodies are built with the installed SDKs' own types (openai `Response` and its `McpListTools`, `McpCall`,
`McpApprovalRequest` items; anthropic `BetaMessage` with `mcp_tool_use` / `mcp_tool_result` blocks), dumped as the
provider sends them."""

from __future__ import annotations

import json
from typing import Any

from anthropic.types.beta import BetaMessage, BetaTextBlock, BetaUsage
from anthropic.types.beta.beta_mcp_tool_result_block import BetaMCPToolResultBlock
from anthropic.types.beta.beta_mcp_tool_use_block import BetaMCPToolUseBlock
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseCreatedEvent,
    ResponseMcpCallCompletedEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseTextDeltaEvent,
)
from openai.types.responses.response_output_item import McpApprovalRequest, McpCall, McpListTools, McpListToolsTool
from openai.types.responses.response_output_message import ResponseOutputMessage
from openai.types.responses.response_output_text import ResponseOutputText

from flow.interop.merge import merge_recordings
from flow.interop.otlp import to_otlp_json
from flow.interop.otlp_import import import_otlp_json
from flow.trace.model import Hop, Trace
from helpers import unmapped

QUESTION = "北京今天天气怎么样？"
URL = "https://mcp.example.com/mcp"
MCP_TOOL = {"type": "mcp", "server_label": "weather", "server_url": URL, "require_approval": "never"}
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
CLIENT, SERVER, INTERNAL = 3, 2, 1  # OTLP SpanKind numbers


def _json(model: Any) -> dict[str, Any]:
    return model.model_dump(mode="json")


LISTED = _json(
    McpListTools(
        id="mcpl_1",
        server_label="weather",
        type="mcp_list_tools",
        tools=[McpListToolsTool(name="get_weather", input_schema=SCHEMA, description="城市天气")],
    )
)


def _called(output: str, **more: Any) -> dict[str, Any]:
    call = McpCall(
        id="mcp_1",
        type="mcp_call",
        server_label="weather",
        name="get_weather",
        arguments='{"city": "北京"}',
        output=output,
        status="completed",
        **more,
    )
    return _json(call)


def _said(text: str) -> dict[str, Any]:
    part = ResponseOutputText(type="output_text", text=text, annotations=[])
    return _json(
        ResponseOutputMessage(id="msg_1", type="message", role="assistant", status="completed", content=[part])
    )


def _response(rid: str, output: list[dict[str, Any]]) -> dict[str, Any]:
    response = {"id": rid, "object": "response", "created_at": 1767000000.0, "model": "gpt-5", "status": "completed"}
    response |= {"output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [MCP_TOOL]}
    return _json(Response.model_validate(response))


def _responses_request(*items: dict[str, Any], previous: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "gpt-5", "input": [{"role": "user", "content": QUESTION}, *items]}
    body["tools"] = [MCP_TOOL]
    if previous:
        body["previous_response_id"] = previous
    return body


# --- the recordings, as the proxies write them ------------------------------------------------------------------


def _lines(*entries: dict[str, Any]) -> str:
    return "\n".join(json.dumps(e, ensure_ascii=False) for e in entries)


def _model_recording(path: str, *exchanges: tuple[float, dict[str, Any], Any]) -> str:
    """The model proxy's recording: per exchange (its time, the request body, the response body or its events)."""
    header = {"mcp_flow_proxy": {"version": 1, "transport": "model-http", "upstream": "https://p.example/v1"}}
    entries: list[dict[str, Any]] = [{**header, "timestamp": 100.0}]
    for n, (t, body, answer) in enumerate(exchanges, 1):
        streamed = isinstance(answer, list)
        entries += [
            {"exchange": n, "event": "request", "timestamp": t, "method": "POST", "path": path, "headers": {}, "body": body},
            {"exchange": n, "event": "response", "timestamp": t + 0.4, "status": 200, "stream": streamed, "headers": {}},
        ]  # fmt: skip
        if streamed:
            entries += [
                {"exchange": n, "event": "chunk", "timestamp": t + 0.4 + i / 1e4, "data": data}
                for i, data in enumerate(answer)
            ]
        else:
            entries.append({"exchange": n, "event": "body", "timestamp": t + 0.4, "bytes": 1, "body": answer})
        entries.append({"exchange": n, "event": "end", "timestamp": t + 0.45})
    return _lines(*entries)


def _mcp_recording(t: float, *, said: str = "晴", error: bool = False) -> str:
    """What `proxy-http` in front of the server saw the provider's MCP client send and get back."""
    call = {"name": "get_weather", "arguments": {"city": "北京"}}
    frames = [
        ("client_to_server", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "provider", "version": "1"}}}),
        ("server_to_client", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "weather-demo", "version": "1"}}}),
        ("client_to_server", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ("client_to_server", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ("server_to_client", {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "get_weather", "inputSchema": SCHEMA}]}}),
        ("client_to_server", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}),
        ("server_to_client", {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": said}], "isError": error}}),
    ]  # fmt: skip
    header = {"mcp_flow_proxy": {"version": 1, "transport": "streamable-http", "upstream": URL}, "timestamp": 100.0}
    return _lines(
        header, *({"direction": d, "timestamp": t + i / 100, "message": m} for i, (d, m) in enumerate(frames))
    )


def _reported(trace: Trace) -> list[Hop]:
    return [h for h in trace.hops if h.kind == "mcp.reported"]


def _seq(trace: Trace, kind: str, method: str) -> int:
    return next(h.seq for h in trace.hops if h.kind == kind and h.payload.get("method") == method)


def _answer_of(trace: Trace, request_seq: int) -> int:
    request = trace.hops[request_seq - 1]
    return next(h.seq for h in trace.hops if h.kind == "mcp.response" and h.jsonrpc_id == request.jsonrpc_id)


def _responses_run(*, said: str = "晴") -> Trace:
    """A Responses run with hosted MCP, the server behind `proxy-http`: the provider reports 晴，25°C where the
    server said `said`."""
    body = _response("resp_1", [LISTED, _called("晴，25°C"), _said("北京今天晴，25°C。")])
    model = _model_recording("/v1/responses", (100.1, _responses_request(), body))
    return merge_recordings([("mcp.jsonl", _mcp_recording(100.2, said=said)), ("model.jsonl", model)], app_exit_code=0)


# --- merge -------------------------------------------------------------------------------------------------------


def test_a_responses_report_follows_its_reply_paired_with_the_frames_seen_and_says_where_they_disagree():
    trace = _responses_run()
    assert trace.meta.mode == "hosted"
    assert trace.meta.server is not None and trace.meta.server["name"] == "weather" and trace.meta.server["url"] == URL
    kinds = [h.kind for h in trace.hops]
    asked, replied = kinds.index("llm.request"), kinds.index("llm.response")
    # The provider's client spoke to the server while the app waited for the reply: the frames sit in between.
    between = {h.payload.get("method") for h in trace.hops[asked:replied] if h.kind == "mcp.request"}
    assert between == {"initialize", "tools/list", "tools/call"}
    reported = _reported(trace)
    assert kinds[replied + 1 : replied + 5] == ["mcp.reported"] * 4 and len(reported) == 4
    assert {h.payload["response_seq"] for h in reported} == {trace.hops[replied].seq}
    # The report has no times: no duration is made up, each is placed when the reply that told of it arrived.
    assert {(h.t_start_ms, h.t_end_ms) for h in reported} == {(trace.hops[replied].t_end_ms,) * 2}
    assert [(h.source, h.target, h.direction, h.step) for h in reported] == [
        ("mcp_client", "mcp_server", "request", 2),
        ("mcp_server", "mcp_client", "response", 2),
        ("mcp_client", "mcp_server", "request", 6),
        ("mcp_server", "mcp_client", "response", 7),
    ]
    listed, list_answer, call, call_answer = (h.payload for h in reported)
    assert listed["item"] == LISTED and list_answer["tools"] == ["get_weather"]
    assert call["item"]["type"] == "mcp_call" and call["arguments"] == {"city": "北京"}
    # Each side is paired with the frame seen of it; the provider's text differs from the server's.
    list_sent, call_sent = _seq(trace, "mcp.request", "tools/list"), _seq(trace, "mcp.request", "tools/call")
    assert (listed["observed"], list_answer["observed"]) == (list_sent, _answer_of(trace, list_sent))
    assert (call["observed"], call_answer["observed"]) == (call_sent, _answer_of(trace, call_sent))
    assert "mismatch" not in listed and call_answer["mismatch"] == ["output"]
    assert call_answer["output"] == "晴，25°C" and call_answer["is_error"] is False
    # Nothing of the app's own tool loop is invented: it listed nothing, translated nothing, ran nothing.
    assert not {"translate.forward", "translate.reverse", "tool.result", "app.tools"} & set(kinds)
    assert not any("no tool call of the model matches it" in n for n in unmapped(trace))
    assert any(n.startswith("hosted MCP: the provider's MCP client called the server") for n in unmapped(trace))
    assert trace.meta.answer == "北京今天晴，25°C。" and trace.meta.outcome == "ok"


def test_when_the_report_and_the_frames_agree_no_mismatch_is_shown():
    agreed = _responses_run(said="晴，25°C")
    assert all("mismatch" not in h.payload for h in _reported(agreed))
    assert all("observed" in h.payload for h in _reported(agreed))


def test_without_a_recording_of_the_server_the_report_stands_alone():
    body = _response("resp_1", [LISTED, _called("晴"), _said("晴。")])
    trace = merge_recordings([("model.jsonl", _model_recording("/v1/responses", (100.1, _responses_request(), body)))])
    assert trace.meta.mode == "hosted" and trace.meta.server == {"name": "weather", "url": URL}
    assert len(_reported(trace)) == 4 and not any("observed" in h.payload for h in _reported(trace))
    assert not any(h.kind.startswith("mcp.") and h.kind != "mcp.reported" for h in trace.hops)


def _messages_body(*, is_error: bool) -> dict[str, Any]:
    use = BetaMCPToolUseBlock(
        id="mcptoolu_1", type="mcp_tool_use", name="get_weather", server_name="weather", input={"city": "北京"}
    )
    result = BetaMCPToolResultBlock(
        type="mcp_tool_result",
        tool_use_id="mcptoolu_1",
        is_error=is_error,
        content=[BetaTextBlock(type="text", text="city not found")],
    )
    message = BetaMessage(
        id="msg_1",
        type="message",
        role="assistant",
        model="claude-sonnet-4-5",
        content=[use, result, BetaTextBlock(type="text", text="没查到北京的天气。")],
        stop_reason="end_turn",
        stop_sequence=None,
        usage=BetaUsage(input_tokens=30, output_tokens=12),
    )
    return _json(message)


MESSAGES_REQUEST = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "messages": [{"role": "user", "content": QUESTION}],
    "mcp_servers": [{"type": "url", "url": URL, "name": "weather"}],
    "tools": [{"type": "mcp_toolset", "mcp_server_name": "weather"}],
}


def _messages_run(*, observed_error: bool) -> Trace:
    model = _model_recording("/v1/messages", (100.1, MESSAGES_REQUEST, _messages_body(is_error=True)))
    mcp = _mcp_recording(100.2, said="city not found", error=observed_error)
    return merge_recordings([("mcp.jsonl", mcp), ("model.jsonl", model)], app_exit_code=0)


def test_a_messages_report_of_a_tool_error_is_paired_by_tool_name_and_a_differing_is_error_is_shown():
    trace = _messages_run(observed_error=True)
    assert trace.meta.mode == "hosted"
    call, answer = _reported(trace)  # the connector reports no listing, only the use and the result
    assert (call.payload["reported_by"], call.payload["server"]) == ("messages", "weather")
    assert call.payload["item"]["type"] == "mcp_tool_use" and answer.payload["item"]["type"] == "mcp_tool_result"
    assert (answer.direction, answer.payload["is_error"], answer.payload["output"]) == ("error", True, "city not found")
    call_sent = _seq(trace, "mcp.request", "tools/call")
    assert (call.payload["observed"], answer.payload["observed"]) == (call_sent, _answer_of(trace, call_sent))
    assert "mismatch" not in answer.payload
    # The server said the call went well where the provider reports an error: the pair says so.
    assert _reported(_messages_run(observed_error=False))[1].payload["mismatch"] == ["isError"]


def _stream(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A Responses stream of `body`, event by event as the SDK types them."""
    created = {**body, "status": "in_progress", "output": []}
    events: list[Any] = [
        ResponseCreatedEvent.model_validate({"type": "response.created", "sequence_number": 0, "response": created})
    ]
    for i, item in enumerate(body["output"]):
        n = len(events)
        added = {"type": "response.output_item.added", "sequence_number": n, "output_index": i, "item": item}
        events.append(ResponseOutputItemAddedEvent.model_validate(added))
        if item["type"] == "mcp_call":
            events.append(
                ResponseMcpCallCompletedEvent(
                    type="response.mcp_call.completed", sequence_number=n + 1, output_index=i, item_id=item["id"]
                )
            )
        if item["type"] == "message":
            text = item["content"][0]["text"]
            events.append(
                ResponseTextDeltaEvent(
                    type="response.output_text.delta",
                    sequence_number=n + 1,
                    output_index=i,
                    item_id=item["id"],
                    content_index=0,
                    delta=text,
                    logprobs=[],
                )
            )
        done = {"type": "response.output_item.done", "sequence_number": len(events), "output_index": i, "item": item}
        events.append(ResponseOutputItemDoneEvent.model_validate(done))
    completed = {"type": "response.completed", "sequence_number": len(events), "response": body}
    events.append(ResponseCompletedEvent.model_validate(completed))
    return [_json(e) for e in events]


def test_a_streamed_report_follows_the_assembled_turn():
    body = _response("resp_1", [LISTED, _called("晴"), _said("晴。")])
    request = {**_responses_request(), "stream": True}
    model = _model_recording("/v1/responses", (100.1, request, _stream(body)))
    trace = merge_recordings([("mcp.jsonl", _mcp_recording(100.2)), ("model.jsonl", model)], app_exit_code=0)
    assembled = next(h for h in trace.hops if h.kind == "llm.assembled")
    reported = _reported(trace)
    assert len(reported) == 4 and {h.payload["response_seq"] for h in reported} == {assembled.seq}
    assert reported[0].seq == assembled.seq + 1 and all("mismatch" not in h.payload for h in reported)
    assert reported[2].payload["observed"] == _seq(trace, "mcp.request", "tools/call")
    assert trace.meta.answer == "晴。"


def test_an_approval_request_is_an_answer_and_the_call_it_allows_is_reported_after_the_next_reply():
    approval = _json(
        McpApprovalRequest(
            id="mcpr_1",
            type="mcp_approval_request",
            server_label="weather",
            name="get_weather",
            arguments='{"city": "北京"}',
        )
    )
    first = _response("resp_1", [LISTED, approval])
    approve = {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True}
    second = _response("resp_2", [_called("晴", approval_request_id="mcpr_1"), _said("晴。")])
    model = _model_recording(
        "/v1/responses",
        (100.1, _responses_request(), first),
        (101.1, _responses_request(approve, previous="resp_1"), second),
    )
    trace = merge_recordings([("model.jsonl", model)], app_exit_code=0)
    assert trace.meta.outcome == "ok" and trace.meta.answer == "晴。" and not any(h.kind == "error" for h in trace.hops)
    responses = [h.seq for h in trace.hops if h.kind == "llm.response"]
    by_reply = [(h.payload["response_seq"], h.payload["method"], h.direction) for h in _reported(trace)]
    assert by_reply == [
        (responses[0], "tools/list", "request"),
        (responses[0], "tools/list", "response"),
        (responses[1], "tools/call", "request"),
        (responses[1], "tools/call", "response"),
    ]


# --- OpenTelemetry -----------------------------------------------------------------------------------------------


def _spans(trace: Trace) -> list[dict[str, Any]]:
    out = []
    for rs in json.loads(to_otlp_json(trace))["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                attrs = {a["key"]: next(iter(a["value"].values())) for a in span.get("attributes", [])}
                out.append({**span, "attrs": attrs})
    return out


def test_the_provider_calls_are_spans_under_their_model_span_marked_reported_with_its_window():
    trace = _responses_run()
    spans = _spans(trace)
    chat = next(s for s in spans if s["attrs"].get("gen_ai.operation.name") == "chat")
    reported = [s for s in spans if s["attrs"].get("mcp_flow.reported_by") == "provider"]
    assert [s["name"] for s in reported] == ["tools/list", "tools/call get_weather"]
    for span in reported:
        assert span["parentSpanId"] == chat["spanId"] and span["kind"] == INTERNAL
        # No made-up timing: the model call's window, and an attribute that says so.
        assert (span["startTimeUnixNano"], span["endTimeUnixNano"]) == (
            chat["startTimeUnixNano"],
            chat["endTimeUnixNano"],
        )
        assert span["attrs"]["mcp_flow.timing"] == "model_call_window"
        assert span["attrs"]["mcp_flow.reported.api"] == "responses" and span["attrs"]["mcp_flow.observed"] is True
        assert span["attrs"]["gen_ai.provider.name"] == "openai"
    call = reported[1]["attrs"]
    assert call["mcp.method.name"] == "tools/call" and call["gen_ai.operation.name"] == "execute_tool"
    assert (call["gen_ai.tool.name"], call["gen_ai.tool.call.id"], call["gen_ai.tool.type"]) == (
        "get_weather",
        "mcp_1",
        "extension",
    )
    assert json.loads(call["gen_ai.tool.call.arguments"]) == {"city": "北京"}
    assert call["gen_ai.tool.call.result"] == "晴，25°C"
    assert call["mcp_flow.mismatch"] == {"values": [{"stringValue": "output"}]}
    # The frames seen keep their spans: the client's request and the server's handling of it, not marked reported.
    seen = [s for s in spans if s["name"] == "tools/call get_weather" and "mcp_flow.reported_by" not in s["attrs"]]
    assert sorted(s["kind"] for s in seen) == [SERVER, CLIENT]
    assert all(s["parentSpanId"] != chat["spanId"] for s in seen)


def test_a_reported_tool_error_marks_its_span():
    spans = _spans(_messages_run(observed_error=False))
    call = next(s for s in spans if s["attrs"].get("mcp_flow.reported_by") == "provider")
    assert call["status"]["code"] == 2 and call["attrs"]["error.type"] == "tool_error"
    assert call["attrs"]["gen_ai.provider.name"] == "anthropic"
    assert call["attrs"]["mcp_flow.mismatch"] == {"values": [{"stringValue": "isError"}]}


def _reported_view(trace: Trace) -> list[tuple[Any, ...]]:
    """What the reported hops say, and which kind of hop each is paired with (seqs differ between the traces)."""
    out = []
    for h in _reported(trace):
        p = h.payload
        paired = trace.hops[p["observed"] - 1].kind if "observed" in p else None
        said = (p.get("name"), p.get("arguments"), p.get("output"), p.get("is_error"), p.get("mismatch"))
        out.append((h.direction, h.step, p["method"], p["reported_by"], p["item"], *said, paired))
    return out


def test_the_import_reads_the_reports_back_as_reported_never_as_frames():
    for merged in (_responses_run(), _messages_run(observed_error=False)):
        back = import_otlp_json(to_otlp_json(merged), name="hosted.otlp.json")
        assert back.meta.mode == "hosted"
        assert _reported_view(back) == _reported_view(merged)
        # The frames seen come back as frames, and only they: no report became one.
        frames = [(h.kind, h.payload.get("method")) for h in back.hops if h.kind == "mcp.request"]
        assert frames == [(h.kind, h.payload.get("method")) for h in merged.hops if h.kind == "mcp.request"]
        response = next(h for h in back.hops if h.kind == "llm.response")
        assert {h.payload["response_seq"] for h in _reported(back)} == {response.seq}
        assert all(h.seq > response.seq for h in _reported(back))
        assert any(n.startswith("hosted MCP: the provider's reports come back as mcp.reported") for n in unmapped(back))


def test_a_report_alone_imports_as_hosted_and_one_outside_a_model_call_is_left_out_and_said():
    body = _response("resp_1", [LISTED, _called("晴"), _said("晴。")])
    alone = merge_recordings([("model.jsonl", _model_recording("/v1/responses", (100.1, _responses_request(), body)))])
    data = json.loads(to_otlp_json(alone))
    back = import_otlp_json(json.dumps(data), name="alone.json")
    assert back.meta.mode == "hosted" and back.meta.server is not None and back.meta.server["name"] == "weather"
    assert _reported_view(back) == _reported_view(alone)
    # The same report hung from the root instead of its model span: not a hop, and the import says why.
    spans = [s for rs in data["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    root = next(s for s in spans if not s.get("parentSpanId"))
    for span in spans:
        if any(a["key"] == "mcp_flow.reported_by" for a in span["attributes"]):
            span["parentSpanId"] = root["spanId"]
    moved = import_otlp_json(json.dumps(data), name="moved.json")
    assert _reported(moved) == [] and not any(h.kind.startswith("mcp.") for h in moved.hops)
    assert "span 'tools/call get_weather': a provider's report outside a model call: left out" in unmapped(moved)


def test_a_report_that_names_no_method_still_exports_a_span_the_import_reads() -> None:
    """A file may hold a reported hop with an empty method: its span gets a name, so the export imports back."""
    from flow.interop.importers import import_bytes
    from flow.trace.files import load_trace
    from helpers import ROOT

    trace = load_trace(ROOT / "sample_traces" / "hosted-responses.json")
    for hop in trace.hops:
        if hop.kind == "mcp.reported":
            hop.payload["method"] = ""
    back = import_bytes(to_otlp_json(trace).encode(), name="run.otlp.json")
    assert back.meta.imported is not None and any(h.kind == "llm.response" for h in back.hops)
