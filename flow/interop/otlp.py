"""A trace as OpenTelemetry spans, following the GenAI and MCP semantic conventions.

The spans are built with the OpenTelemetry SDK from the hops (times from `meta.started_at` plus each
hop's offset), then written as OTLP/JSON or sent to a collector over OTLP/HTTP, so a run recorded
here opens in Jaeger, Phoenix, Langfuse or Logfire with the same shape as the diagram:

    invoke_agent mcp-flow-app                 the run (INTERNAL)
      initialize, tools/list, ...             MCP set-up and listing (CLIENT, each with its SERVER child)
      chat {model}                            one per model call (CLIENT)
        tools/call {tool}                     hosted MCP: a call the provider reports its MCP client made (INTERNAL,
                                              marked reported, with the model call's window for its times)
      execute_tool {tool}                     one per tool call the model asked for (INTERNAL)
        tools/call {tool}                     MCP mode: the client's request (CLIENT); in 2026-07-28 one per round of
                                              the logical call, marked with its number and round
          tools/call {tool}                   the server's handling of it (SERVER, in the server's service)
            sampling/createMessage, ...       2025-11-25: a request the server sends back (CLIENT, the server's)
              sampling/createMessage          the host answering it (SERVER, the app's)
                chat {model}                  the host's model asked for the server (CLIENT, marked for_server)
                ask_user                      the question put to the user, and the answer (INTERNAL)
        chat {model}, ask_user                2026-07-28: what the host did for an input-required result, between
                                              the rounds, under the call's execute_tool span
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import hashlib
import json
import logging
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

from google.protobuf.json_format import MessageToDict
from opentelemetry import trace as otel_trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import SpanKind, Status, StatusCode

from flow.interop.common import (
    ASK_USER_SPAN,
    BY_PROVIDER,
    CALL_RESPONSES_ATTR,
    CALL_STATE_ATTR,
    CLIENT_RESULT_ATTR,
    FOR_SERVER_ID_ATTR,
    FOR_SERVER_KEY_ATTR,
    FOR_SERVER_METHOD_ATTR,
    INVALID_ARGUMENTS,
    LOGICAL_CALL_ATTR,
    MISMATCH_ATTR,
    MODEL_CALL_WINDOW,
    NO_RESPONSE,
    OBSERVED_ATTR,
    REPORTED_API_ATTR,
    REPORTED_ARGUMENTS_ATTR,
    REPORTED_BY_ATTR,
    REPORTED_INDEX_ATTR,
    REPORTED_ITEMS_ATTR,
    REPORTED_RESULT_ATTR,
    REPORTED_SERVER_ATTR,
    REQUESTED_BY_ATTR,
    REQUIRED_REQUESTS_ATTR,
    REQUIRED_STATE_ATTR,
    ROUND_ATTR,
    SERVER_PARAMS_ATTR,
    TIMING_ATTR,
    USER_ATTRS,
)
from flow.interop.genai import (
    OPENAI_API_TYPES,
    as_message,
    input_messages,
    output_message,
    provider,
    system_instructions,
    tool_definitions,
)
from flow.trace.factory import APP_NAME
from flow.trace.model import Hop, Trace, as_dict, as_list, writable_json
from flow.trace.pairing import Exchange, ModelCall, ToolCall, exchanges, model_calls, tool_calls
from flow.trace.payloads import (
    Failure,
    LlmChunk,
    McpReportedPayload,
    ServerAsk,
    ToolInvoke,
    ToolResult,
    UserInput,
    is_a,
    payload_of,
    typed,
)
from flow.trace.redact import REDACTED, assert_no_secrets, redact_recording
from flow.trace.rounds import Rounds, call_rounds, input_required
from flow.trace.steps import Step
from flow.trace.summaries import input_requests
from flow.wire import API
from flow.wire.base import Message, Reply, WireApi, text_parts
from flow.wire.recorded import api_of_request, api_of_trace

SCOPE = "mcp-flow"


Attributes = dict[str, Any]


class OtlpExportError(Exception):
    """The spans could not be delivered; the message is one line for the user."""


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _attribute(value: Any) -> Any:
    """A value OpenTelemetry takes as an attribute: str, bool, a 64-bit int, a float, or a list of one of these;
    anything else a trace holds (an object, a mixed list, a huge number) as its JSON text."""
    if isinstance(value, (str, bool, float)):
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**63 else str(value)
    if isinstance(value, (list, tuple)) and value:
        kinds = {type(v) for v in value}
        if (len(kinds) == 1 and kinds <= {str, bool, float}) or (
            kinds == {int} and all(-(2**63) <= v < 2**63 for v in value)
        ):
            return list(value)
    return _dumps(value)


def _host_port(url: Any) -> tuple[str | None, int | None]:
    """server.address and server.port of a recorded model URL; nothing for one that does not parse."""
    try:
        parts = urlsplit(str(url or ""))
        port = parts.port
    except ValueError:  # a bracket left open, a port out of range
        return None, None
    host = parts.hostname
    return host, port or ({"https": 443, "http": 80}.get(parts.scheme) if host else None)


class _SeededIds(IdGenerator):
    """Trace and span ids derived from the trace itself: exporting the same file twice gives the same ids,
    so a collector sees one trace, not two copies."""

    def __init__(self, seed: str) -> None:
        self._seed = seed.encode()
        self._n = 0

    def _digest(self, n: int) -> bytes:
        return hashlib.sha256(self._seed + n.to_bytes(4, "big")).digest()

    def generate_trace_id(self) -> int:
        return int.from_bytes(self._digest(0)[:16], "big") or 1

    def generate_span_id(self) -> int:
        self._n += 1
        return int.from_bytes(self._digest(self._n)[:8], "big") or 1


_MAX_NS = 2**64 - 1


def _epoch_ns(started_at: str) -> int:
    """Nanoseconds since the epoch at `started_at`; 0 (1970) when it is no ISO time OTLP can hold, so the spans
    keep their spacing."""
    try:
        start = dt.datetime.fromisoformat(started_at)
        if start.tzinfo is None:
            start = start.replace(tzinfo=dt.timezone.utc)
        ns = int(start.timestamp()) * 10**9 + start.microsecond * 1000
    except (ValueError, OverflowError):  # not ISO 8601, or an offset that moves it past year 1 or 9999
        return 0
    return ns if 0 <= ns <= _MAX_NS else 0


class _Reply:
    """What a model call's replies say, read in its API's terms: the output messages (each with the provider's own
    finish reason), the response's id and model, the usage, the stream's events and the error."""

    def __init__(self, api: WireApi) -> None:
        self.api = api
        self.outputs: list[tuple[dict[str, Any], Any]] = []
        self.response: dict[str, Any] = {}
        self.usage: Mapping[str, Any] = {}
        self.chunks: list[Hop] = []
        self.error: tuple[str, str] | None = None

    def _replied(self, replies: list[Reply] | None) -> None:
        if replies is not None:  # None: a body its API cannot read leaves what was read before
            self.outputs = [(output_message(r), r.said_finish) for r in replies]

    def add(self, hop: Hop) -> None:
        # A response body or a chunk is the provider's JSON, as it came: read with care.
        if is_a(hop, LlmChunk):
            self.chunks.append(hop)
        if (answer := payload_of(hop, "llm.response")) is not None and isinstance(answer["body"], dict):
            self.response = answer["body"]
            self._replied(self.api.replies(answer["body"]))
        elif (assembled := payload_of(hop, "llm.assembled")) is not None:
            self._replied(self.api.replies(self.api.assembled_body(assembled["message"], assembled["finish_reason"])))
        elif (chunk := payload_of(hop, "llm.chunk")) is not None and isinstance(chunk["data"], dict):
            self.response = self.response or self.api.stream_response(chunk["data"])
        elif (failed := payload_of(hop, "llm.error")) is not None:
            detail = as_dict(as_dict(failed.get("body")).get("error"))
            self.error = (
                str(failed.get("status") or failed.get("error") or "_OTHER"),
                str(detail.get("message") or failed.get("message") or hop.summary),
            )
        self.usage = {**self.usage, **(hop.usage or {})}  # Messages counts input in message_start, output after


PROVIDER_CLIENT_SERVICE = "model-provider-mcp-client"


"""The service a hosted trace's observed frames are sent by: the model provider's MCP client."""


class _SpanBuilder:
    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.base_ns = _epoch_ns(trace.meta.started_at)
        last = trace.hops[-1].t_end_ms if trace.hops else 0
        ids = _SeededIds(f"{trace.meta.started_at}|{trace.meta.question}|{len(trace.hops)}|{last}")
        self.sink = InMemorySpanExporter()
        server = trace.meta.server or {}
        sides = [("app", APP_NAME), ("mcp_server", str(server.get("name") or "mcp-server"))]
        if trace.meta.mode == "hosted":  # the frames' client is the model provider's, not the app's
            sides.append(("provider_client", PROVIDER_CLIENT_SERVICE))
        self.tracers = {side: self._tracer(name, ids) for side, name in sides}
        transport = server.get("transport")
        # The MCP conventions name stdio "pipe"; the in-memory transport is no network, so it gets none.
        self.mcp_common: Attributes = {
            "mcp.protocol.version": server.get("protocol_version"),
            "network.transport": "pipe" if transport == "stdio" else None,
        }

    def _tracer(self, service: str, ids: IdGenerator) -> otel_trace.Tracer:
        provider = TracerProvider(
            resource=Resource.create({SERVICE_NAME: service}), id_generator=ids, shutdown_on_exit=False
        )
        provider.add_span_processor(SimpleSpanProcessor(self.sink))
        return provider.get_tracer(SCOPE)

    def ns(self, ms: float) -> int:
        # OTLP times are unsigned 64-bit nanoseconds: a start time or offset beyond them is clamped, not a crash
        return min(max(self.base_ns + round(ms * 1_000_000), 0), _MAX_NS)

    def span(
        self,
        side: str,
        name: str,
        parent: otel_trace.Span | None,
        kind: SpanKind,
        start_ms: float,
        end_ms: float,
        attributes: Attributes,
        error: tuple[str, str] | None = None,
    ) -> otel_trace.Span:
        attrs = {k: _attribute(v) for k, v in attributes.items() if v is not None}
        if error:
            attrs["error.type"] = error[0]
        context = otel_trace.set_span_in_context(parent) if parent is not None else None
        span = self.tracers[side].start_span(name, context, kind, attrs, start_time=self.ns(start_ms))
        if error:
            span.set_status(Status(StatusCode.ERROR, error[1]))
        span.end(end_time=self.ns(max(start_ms, end_ms)))
        return span

    def root(self) -> otel_trace.Span:
        meta, hops = self.trace.meta, self.trace.hops
        failure = next((h for h in reversed(hops) if is_a(h, Failure) and h.target == "user"), None)
        error = None
        if meta.outcome == "error":
            failed = payload_of(failure, "error") if failure is not None else None
            error = (str((failed.get("error") if failed else None) or "_OTHER"), meta.error or "")
        attrs: Attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": APP_NAME,
            "gen_ai.provider.name": provider(api_of_trace(self.trace)),
            "gen_ai.request.model": meta.model.get("name"),
            "gen_ai.input.messages": _dumps([as_message(Message("user", tuple(text_parts(meta.question))))]),
            "gen_ai.output.messages": _dumps([output_message(Reply(tuple(text_parts(meta.answer)), "stop", "stop"))])
            if meta.answer is not None
            else None,
        }
        start = min((h.t_start_ms for h in hops), default=0.0)
        end = max((h.t_end_ms for h in hops), default=0.0)
        return self.span("app", f"invoke_agent {APP_NAME}", None, SpanKind.INTERNAL, start, end, attrs, error)

    def chat(self, call: ModelCall, parent: otel_trace.Span) -> otel_trace.Span:
        request = payload_of(call.request, "llm.request")
        body = request["body"] if request is not None and isinstance(request["body"], dict) else {}
        api = api_of_request(request) if request is not None else api_of_trace(self.trace)
        model = body.get("model") or self.trace.meta.model.get("name")
        host, port = _host_port(request.get("url") if request is not None else None)
        tools = tool_definitions(body, api)
        attrs: Attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": provider(api),
            "openai.api.type": OPENAI_API_TYPES.get(api.name),
            "gen_ai.request.model": model,
            "gen_ai.request.stream": True if body.get("stream") else None,
            "server.address": host,
            "server.port": port,
            "gen_ai.system_instructions": _dumps(said) if (said := system_instructions(body, api)) else None,
            "gen_ai.input.messages": _dumps(input_messages(body, api)),
            "gen_ai.tool.definitions": _dumps(tools) if tools else None,
            **_for_server_attrs(request.get("for_server") if request is not None else None),
        }
        reply = _Reply(api)
        for hop in call.replies:
            reply.add(hop)
        if reply.outputs:
            attrs["gen_ai.output.messages"] = _dumps([m for m, _ in reply.outputs])
            attrs["gen_ai.response.finish_reasons"] = [str(f or "stop") for _, f in reply.outputs]
        attrs["gen_ai.response.id"] = reply.response.get("id")
        attrs["gen_ai.response.model"] = reply.response.get("model")
        attrs["gen_ai.usage.input_tokens"] = reply.usage.get("prompt_tokens")
        attrs["gen_ai.usage.output_tokens"] = reply.usage.get("completion_tokens")
        if reply.chunks:
            attrs["gen_ai.response.time_to_first_chunk"] = (reply.chunks[0].t_end_ms - call.request.t_start_ms) / 1000
        start, end = _window(call)
        return self.span("app", f"chat {model}", parent, SpanKind.CLIENT, start, end, attrs, reply.error)

    def provider_reports(self, call: ModelCall, chat: otel_trace.Span) -> None:
        """Hosted MCP: each MCP exchange a reply of this model call reports (`mcp.reported` hops), as a span under
        the call's span. The provider's client made it, not the app, and nobody here saw it: an INTERNAL span, marked
        reported, with the model call's window for its times (the report has none)."""
        start, end = _window(call)
        for index, (sent, answer) in enumerate(_reported(self.trace.hops, {h.seq for h in call.replies})):
            self.provider_call(sent, answer, chat, start, end, index)

    def provider_call(
        self,
        sent: McpReportedPayload,
        answer: McpReportedPayload | None,
        parent: otel_trace.Span,
        start: float,
        end: float,
        index: int,
    ) -> None:
        method, name, api = sent["method"], sent.get("name"), sent["reported_by"]
        items = [sent["item"]] + ([answer["item"]] if answer is not None and answer["item"] != sent["item"] else [])
        said = answer or sent
        attrs: Attributes = {
            "mcp.method.name": method,
            "gen_ai.provider.name": next((provider(a) for a in API.values() if a.name == api), None),
            REPORTED_BY_ATTR: BY_PROVIDER,
            REPORTED_API_ATTR: api,
            REPORTED_SERVER_ATTR: sent["server"],
            REPORTED_INDEX_ATTR: index,
            REPORTED_ITEMS_ATTR: _dumps(items),
            TIMING_ATTR: MODEL_CALL_WINDOW,
            OBSERVED_ATTR: "observed" in sent,
            MISMATCH_ATTR: sorted({*sent.get("mismatch", []), *said.get("mismatch", [])}) or None,
        }
        if method == "tools/call":
            arguments = sent.get("arguments")
            attrs |= {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.id": sent["item"].get("id"),
                # the conventions' word for a tool that runs on the agent's side: here, the provider's
                "gen_ai.tool.type": "extension",
                "gen_ai.tool.call.arguments": arguments if isinstance(arguments, str) else _dumps(arguments or {}),
                "gen_ai.tool.call.result": answer.get("output") if answer is not None else None,
            }
        error = None
        if answer is not None and answer.get("is_error"):
            error = ("tool_error" if method == "tools/call" else "_OTHER", str(answer.get("output") or ""))
        # a span needs a name: a report that names no method (a file may hold one) is still the provider's MCP
        span_name = (f"{method} {name}" if name else method).strip() or "mcp (reported)"
        self.span("app", span_name, parent, SpanKind.INTERNAL, start, end, attrs, error)

    def execute_tool(self, call_id: str, call: ToolCall, parent: otel_trace.Span) -> otel_trace.Span:
        reverse, refused = payload_of(call.first, "translate.reverse"), payload_of(call.first, "error")
        tool_call = reverse["tool_call"] if reverse is not None else refused.get("tool_call") if refused else None
        function = tool_call["function"] if tool_call is not None else None
        request = reverse["call_request"] if reverse is not None else None
        name = (request["name"] if request else None) or (function["name"] if function else None) or "unknown"
        arguments = request["arguments"] if request else function["arguments"] if function else None
        attrs: Attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.type": "function",
            "gen_ai.tool.call.arguments": _dumps(arguments),
        }
        error = None
        if isinstance(typed(call.first), Failure):  # the app refused the arguments
            error = (INVALID_ARGUMENTS, str((refused.get("error") if refused else None) or call.first.summary))
        for hop in call.hops:
            if hop.target == "mcp_server":
                continue  # the server's report of its function: a span of its own, under the server's (`mcp`)
            match typed(hop):
                case ToolResult(payload=p) if "error" in p:  # a JSON-RPC error instead of a result
                    error = (str(p["error"]["code"]), str(p["error"]["message"]))
                case ToolResult(payload=p):
                    result = p.get("result", {})
                    value = result.get("structuredContent", p.get("return"))
                    said = value if value is not None else p.get("tool_message_content")
                    attrs["gen_ai.tool.call.result"] = _dumps(said)
                    if result.get("isError") or p.get("isError"):
                        error = ("tool_error", str(p.get("tool_message_content") or hop.summary))
                case Failure(payload=failed) if hop.step == Step.TOOL_RESULT:
                    error = (str(failed.get("error") or "_OTHER").replace(" ", "_"), hop.summary)
                case _:
                    pass  # the call's other hops: its frames and its translation
        end = max(h.t_end_ms for h in call.hops)
        return self.span(
            "app", f"execute_tool {name}", parent, SpanKind.INTERNAL, call.first.t_start_ms, end, attrs, error
        )

    def mcp(self, ex: Exchange, parent: otel_trace.Span, extra: Attributes | None = None) -> otel_trace.Span:
        """The sender's CLIENT span and the receiver's SERVER span under it, with `extra` attributes; returns the
        SERVER span."""
        frame = payload_of(ex.request, "mcp.request") or payload_of(ex.request, "mcp.notification")
        method = str(frame["method"] if frame is not None else None)
        params = frame.get("params", {}) if frame is not None else {}
        attrs: Attributes = {"mcp.method.name": method, **self.mcp_common, **(extra or {})}
        if ex.request.jsonrpc_id is not None:
            attrs["jsonrpc.request.id"] = str(ex.request.jsonrpc_id)
        target = None
        if method == "tools/call":
            target = params.get("name")
            attrs.update(
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": target,
                    "gen_ai.tool.call.arguments": _dumps(params.get("arguments") or {}),
                }
            )
        elif method == "prompts/get":
            target = attrs["gen_ai.prompt.name"] = params.get("name")
        elif method.startswith("resources/") and params.get("uri"):
            attrs["mcp.resource.uri"] = params["uri"]
        error = None
        if ex.reply is not None and (failed := payload_of(ex.reply, "mcp.error")) is not None:
            err: Mapping[str, Any] = failed["error"]
            error = (str(err.get("code")), str(err.get("message")))
            attrs["rpc.response.status_code"] = str(err.get("code"))
        elif ex.reply is not None and (unanswered := payload_of(ex.reply, "error")) is not None:
            what = unanswered.get("error") or "_OTHER"
            error = (str(what).replace(" ", "_"), ex.reply.summary)
        elif ex.reply is None and ex.request.direction == "request":
            error = (NO_RESPONSE, "no answer was recorded before the run ended")
        elif (
            method == "tools/call"
            and ex.reply is not None
            and not input_required(ex.reply)  # no result yet: the round's attributes say what it asks for
            and (reply := payload_of(ex.reply, "mcp.response"))
        ):
            result = reply["result"]
            value = result.get("structuredContent", result.get("content"))
            attrs["gen_ai.tool.call.result"] = _dumps(value)
            if result.get("isError"):
                text = " ".join(str(c.get("text", "")) for c in as_list(result.get("content")) if isinstance(c, dict))
                error = ("tool_error", text)
        name = f"{method} {target}" if target else method
        client_side = "provider_client" if "provider_client" in self.tracers else "app"
        sender = client_side if ex.request.source == "mcp_client" else "mcp_server"
        receiver = "mcp_server" if sender == client_side else client_side
        # An unanswered request lasts until the run gave up on it.
        end = ex.reply.t_end_ms if ex.reply is not None else self.trace.hops[-1].t_end_ms
        if ex.request.direction == "notification":
            end = ex.request.t_end_ms
        client = self.span(sender, name, parent, SpanKind.CLIENT, ex.request.t_start_ms, end, attrs, error)
        # The server saw the frame when it arrived and answered just before the client read the answer.
        server = self.span(receiver, name, client, SpanKind.SERVER, ex.request.t_end_ms, end, attrs, error)
        if method == "tools/call" and ex.reply is not None:
            self.reported(ex, server)
        return server

    def reported(self, ex: Exchange, server: otel_trace.Span) -> None:
        """The server's own report of running the tool's function (MCP server → tool and back), as a span of the
        function's code inside the server's span, marked `REPORTED_BY_ATTR`."""
        rid = ex.request.jsonrpc_id
        near = [typed(h) for h in self.trace.hops if h.jsonrpc_id == rid]
        invoke = next((t for t in near if isinstance(t, ToolInvoke) and t.hop.source == "mcp_server"), None)
        ran = next((t for t in near if isinstance(t, ToolResult) and t.hop.target == "mcp_server"), None)
        if invoke is None or ran is None:
            return
        called, got = invoke.payload, ran.payload
        # Not an execute_tool span: that is the model's tool call, once (the app's span); this is the code it ran.
        attrs: Attributes = {
            "code.function.name": called["function"],
            "gen_ai.tool.call.id": invoke.hop.tool_call_id,
            REPORTED_ARGUMENTS_ATTR: _dumps(called["kwargs"]),
            REPORTED_BY_ATTR: "mcp_server",
        }
        error = None
        if "raised" in got:
            error = (str(got["raised"]["type"]), str(got["raised"]["message"]))
        else:
            attrs[REPORTED_RESULT_ATTR] = _dumps(got.get("return"))
        self.span(
            "mcp_server",
            str(called["function"]),
            server,
            SpanKind.INTERNAL,
            invoke.hop.t_start_ms,
            ran.hop.t_end_ms,
            attrs,
            error,
        )

    def ask_user(self, question: Hop, answer: Hop | None, parent: otel_trace.Span) -> None:
        """A server's question put to the user and the answer (two user.input hops), as one INTERNAL span of the
        app's, from the question to the answer (or the end of the run, if none came)."""
        asked = as_dict(question.payload)
        said = {**asked, **{k: v for k, v in as_dict(answer.payload if answer else None).items() if k != "asked"}}
        attrs: Attributes = {
            **_for_server_attrs(asked.get("asked")),
            **{attr: said[name] for name, attr in USER_ATTRS.items() if name in said},
        }
        end = answer.t_end_ms if answer is not None else self.trace.hops[-1].t_end_ms
        self.span("app", ASK_USER_SPAN, parent, SpanKind.INTERNAL, question.t_start_ms, end, attrs)


def _for_server_attrs(ask: Any) -> Attributes:
    """The attributes of something the host did for a server's request (`ServerAsk`): none when it was not."""
    ask = as_dict(ask)
    if not ask:
        return {}
    return {
        REQUESTED_BY_ATTR: "mcp_server",
        FOR_SERVER_METHOD_ATTR: ask.get("method"),
        FOR_SERVER_ID_ATTR: ask.get("jsonrpc_id"),
        FOR_SERVER_KEY_ATTR: ask.get("key"),
    }


def _frame_attrs(ex: Exchange, rounds: Rounds) -> Attributes:
    """What the conventions do not record of an exchange and an import needs to rebuild it: a 2026-07-28 round's
    place in its logical call and what it carried; a 2025-11-25 server request's parameters and the client's
    result."""
    attrs: Attributes = {}
    placed = rounds.by_seq.get(ex.request.seq)
    if placed is not None:
        attrs[LOGICAL_CALL_ATTR], attrs[ROUND_ATTR] = placed[0].number, placed[1]
    params = as_dict(as_dict(ex.request.payload).get("params"))
    result = as_dict(as_dict(ex.reply.payload).get("result")) if ex.reply is not None else {}
    if "requestState" in params:
        attrs[CALL_STATE_ATTR] = params["requestState"]
        attrs[CALL_RESPONSES_ATTR] = _dumps(params.get("inputResponses"))
    if ex.reply is not None and input_required(ex.reply):
        attrs[REQUIRED_STATE_ATTR] = result.get("requestState")
        attrs[REQUIRED_REQUESTS_ATTR] = _dumps(result.get("inputRequests"))
    if ex.request.source == "mcp_server" and ex.request.direction == "request":
        attrs[SERVER_PARAMS_ATTR] = _dumps(params) if params else None
        answered = ex.reply is not None and ex.reply.direction == "response"  # not an error frame
        attrs[CLIENT_RESULT_ATTR] = _dumps(result) if answered else None
    return attrs


def _questions(hops: list[Hop]) -> list[tuple[Hop, Hop | None]]:
    """Each question put to the user, with its answer: the next answer to the same server request."""
    pairs: list[tuple[Hop, Hop | None]] = []
    for hop in hops:
        if not is_a(hop, UserInput):
            continue
        asked = as_dict(hop.payload).get("asked")
        if hop.direction == "request":
            pairs.append((hop, None))
            continue
        i = next((i for i, (q, a) in enumerate(pairs) if a is None and as_dict(q.payload).get("asked") == asked), None)
        if i is not None:
            pairs[i] = (pairs[i][0], hop)
    return pairs


def to_spans(trace: Trace) -> list[ReadableSpan]:
    """The trace as finished SDK spans, ordered by start time; built from the trace as a file would hold it,
    redacted, since a run still in memory may hold a secret the recorder could not know."""
    trace = Trace.model_validate(redact_recording(writable_json(trace.file_data())))
    builder = _SpanBuilder(trace)
    root = builder.root()
    tool_spans = {
        call_id: builder.execute_tool(call_id, call, root) for call_id, call in tool_calls(trace.hops).items()
    }
    rounds = call_rounds(trace.hops)
    all_exchanges = exchanges(trace.hops)
    by_request = {ex.request.seq: ex for ex in all_exchanges}
    server_spans: dict[Exchange, otel_trace.Span] = {}  # what the server was handling: the parent of what it says
    answering: dict[int | str, otel_trace.Span] = {}  # a server's request id -> the app's span answering it
    for ex in all_exchanges:
        within = server_spans.get(ex.within) if ex.within is not None else None
        call_id = ex.tool_call_id
        if call_id is None and ex.request.seq in rounds.by_seq:  # a later round: the model's call the first carried
            call_id = by_request[rounds.by_seq[ex.request.seq][0].requests[0].seq].tool_call_id
        parent = within or tool_spans.get(call_id or "", root)
        server_spans[ex] = builder.mcp(ex, parent, _frame_attrs(ex, rounds))
        if ex.request.source == "mcp_server" and ex.request.jsonrpc_id is not None:
            answering[ex.request.jsonrpc_id] = server_spans[ex]

    def for_server(ask: Any, seq: int) -> otel_trace.Span:
        """The span what the host did for a server's request goes under: the app's span answering that request
        (2025-11-25), else the execute_tool span of the call whose input-required result asked for it."""
        ask = as_dict(ask)
        rid, key = ask.get("jsonrpc_id"), ask.get("key")  # a file may hold anything there
        if "jsonrpc_id" in ask:
            return answering.get(rid, root) if isinstance(rid, (int, str)) else root
        asking = [
            ex
            for ex in all_exchanges
            if ex.reply is not None
            and ex.reply.seq < seq
            and input_required(ex.reply)
            and isinstance(key, str)
            and key in input_requests(as_dict(ex.reply.payload).get("result"))
        ]
        if not asking:
            return root
        placed = rounds.by_seq.get(asking[-1].request.seq)
        first = by_request[placed[0].requests[0].seq] if placed is not None else asking[-1]
        return tool_spans.get(first.tool_call_id or "", root)

    for model_call in model_calls(trace.hops):
        asked: ServerAsk | None = as_dict(model_call.request.payload).get("for_server")
        parent = for_server(asked, model_call.request.seq) if asked else root
        builder.provider_reports(model_call, builder.chat(model_call, parent))
    for question, answer in _questions(trace.hops):
        builder.ask_user(question, answer, for_server(as_dict(question.payload).get("asked"), question.seq))
    return sorted(builder.sink.get_finished_spans(), key=lambda s: s.start_time or 0)


def _window(call: ModelCall) -> tuple[float, float]:
    """A model call's times: from its request to its last reply."""
    return call.request.t_start_ms, max((h.t_end_ms for h in call.replies), default=call.request.t_end_ms)


def _reported(hop_list: list[Hop], replies: set[int]) -> list[tuple[McpReportedPayload, McpReportedPayload | None]]:
    """The exchanges the replies `replies` (seqs) report, in the order they report them: each `mcp.reported` request
    with the answer that follows it, when it was reported."""
    found: list[tuple[McpReportedPayload, McpReportedPayload | None]] = []
    for hop in hop_list:
        said = payload_of(hop, "mcp.reported")
        if said is None or said["response_seq"] not in replies:
            continue
        if hop.direction == "request":
            found.append((said, None))
        elif found and found[-1][1] is None and found[-1][0].get("name") == said.get("name"):
            found[-1] = (found[-1][0], said)
    return found


def _hex(value: str) -> str:
    return base64.b64decode(value).hex()


def to_otlp_json(trace: Trace) -> str:
    """OTLP/JSON (an ExportTraceServiceRequest), as a collector's OTLP/HTTP JSON endpoint or file exporter takes it."""
    return _otlp_json(to_spans(trace))


def _otlp_json(spans: list[ReadableSpan]) -> str:
    data = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    # The protobuf JSON mapping writes bytes as base64, but OTLP/JSON wants trace and span ids as hex.
    for resource_spans in data.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = _hex(span[key])
    text = json.dumps(data, ensure_ascii=False, indent=1)
    assert_no_secrets(text)
    return text


def traces_url(endpoint: str) -> str:
    """A collector's base URL (http://localhost:4318) gets the traces path; a full URL is kept."""
    url = urlsplit(endpoint)
    if url.scheme not in ("http", "https") or not url.hostname:
        raise OtlpExportError(f"{endpoint!r} is not an http:// or https:// URL (e.g. http://localhost:4318)")
    return endpoint.rstrip("/") + "/v1/traces" if url.path in ("", "/") else endpoint


@contextlib.contextmanager
def _exporter_log() -> Iterator[list[str]]:
    """What the exporter logs while it tries (it reports failures only there), kept off the console."""
    lines: list[str] = []

    class _Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    logger = logging.getLogger("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    handler, propagate = _Keep(logging.WARNING), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield lines
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def send_otlp(trace: Trace, endpoint: str, *, timeout_s: float = 10.0, headers: Mapping[str, str] | None = None) -> int:
    """Send the spans to a collector over OTLP/HTTP (protobuf); returns how many were sent. `headers` go with the
    request (a collector's key, e.g. Langfuse's Basic authorization), over those the OTel exporter reads from
    OTEL_EXPORTER_OTLP_TRACES_HEADERS or OTEL_EXPORTER_OTLP_HEADERS; their values never reach an error message."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    url = traces_url(endpoint)
    spans = to_spans(trace)
    _otlp_json(spans)  # refuses spans that hold a secret
    exporter = OTLPSpanExporter(endpoint=url, timeout=timeout_s, headers=dict(headers) if headers else None)
    try:
        with _exporter_log() as lines:
            result = exporter.export(spans)
    finally:
        exporter.shutdown()  # type: ignore[no-untyped-call]  # the OTel exporter's method has no annotations
    if result is not SpanExportResult.SUCCESS:
        reason = lines[-1] if lines else "no reason given"
        # A collector may say back what it was sent: a header's value, or a word of it (the key after "Basic").
        said = {part for value in (headers or {}).values() for part in (value, *value.split()) if len(part) >= 6}
        for secret in sorted(said, key=len, reverse=True):
            reason = reason.replace(secret, REDACTED)
        raise OtlpExportError(f"the OTLP endpoint {url} did not take the spans: {' '.join(reason.split())[:300]}")
    return len(spans)
