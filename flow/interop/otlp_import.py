"""OTLP/JSON that follows the GenAI and MCP semantic conventions (what `flow.interop.otlp` writes, and what other
GenAI instrumentations send) as a trace: each span it knows becomes the hops the engine would have recorded."""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

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
    NO_RESPONSE,
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
    SERVER_METHODS,
    SERVER_PARAMS_ATTR,
    STEP2_METHODS,
    USER_ANSWER_FIELDS,
    USER_ATTRS,
    Hops,
    finish,
    json_line,
    json_or_text,
    method_step,
    quoted,
)
from flow.text.errors import EMPTY_ANSWER
from flow.trace import hops
from flow.trace.files import TraceError, json_value_problem
from flow.trace.hops import Draft
from flow.trace.model import ImportInfo, Trace, TraceMeta, as_dict, as_list, usage_counts
from flow.trace.payloads import (
    CallRequest,
    ChatRequest,
    ErrorPayload,
    JsonObject,
    LlmRequest,
    LlmResponse,
    LlmResponsePayload,
    Payload,
    RpcError,
    ServerAsk,
    ToolCall,
    ToolResultPayload,
    UserInputPayload,
    typed,
)
from flow.trace.reports import REPORTED_BY, ExecutionReport
from flow.trace.rounds import reply_step
from flow.trace.steps import Step, answer_step
from flow.trace.summaries import call_text, frame_summary
from flow.wire import API
from flow.wire.base import ApiName
from flow.wire.chat import CHAT
from flow.wire.hosted import reported_drafts

_CHAT_OPERATIONS = {"chat", "text_completion", "generate_content"}
# (gen_ai.provider.name, openai.api.type) of a chat span whose API was not Chat Completions
_API_SPOKEN = {("openai", "responses"): "the Responses API", ("anthropic", "None"): "the Anthropic Messages API"}


@dataclass
class _Span:
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    kind: int  # OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer
    start_ns: int
    end_ns: int
    attrs: dict[str, Any]
    error: tuple[str, str] | None  # error.type (or "_OTHER") and the status message, when the span failed
    service: str
    children: list[_Span] = field(default_factory=list)

    @property
    def operation(self) -> str:
        return str(self.attrs.get("gen_ai.operation.name") or "")

    @property
    def method(self) -> str | None:
        method = self.attrs.get("mcp.method.name")
        return str(method) if method else None


def _any_value(value: Any) -> Any:
    if not isinstance(value, dict) or not value:
        return None
    key, inner = next(iter(value.items()))
    if key == "intValue":  # a JSON number or, as protobuf's JSON mapping writes 64-bit integers, a string
        return _int(inner)
    if key == "arrayValue":
        return [_any_value(v) for v in (inner or {}).get("values", [])]
    if key == "kvlistValue":
        return _attributes((inner or {}).get("values", []))
    return inner  # stringValue, boolValue, doubleValue, bytesValue (base64 text)


def _attributes(items: Any) -> dict[str, Any]:
    return {str(a["key"]): _any_value(a.get("value")) for a in as_list(items) if isinstance(a, dict) and "key" in a}


_INTEGER = re.compile(r"-?[0-9]{1,20}")


def _int(value: Any) -> int:
    """An integer written as a number or as decimal digits; anything else is a ValueError the span reader reports."""
    if type(value) is int or (isinstance(value, str) and _INTEGER.fullmatch(value.strip())):
        return int(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**64:
        return int(value)
    raise ValueError(f"{quoted(value)} is not an integer")


def _code(text: str) -> int | None:
    """error.type as a number, when it is one (an HTTP status, a JSON-RPC error code)."""
    return int(text) if _INTEGER.fullmatch(text) else None


def _span_id(value: Any, size: int, where: str) -> str:
    """OTLP/JSON ids are hex; the protobuf JSON mapping (and some tools) write base64: take both."""
    if not value:
        return ""
    text = str(value)
    if len(text) == size * 2:
        try:
            bytes.fromhex(text)
            return text.lower()
        except ValueError:
            pass
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise TraceError(f"{where}: {quoted(text)} is not a {size}-byte id in hex or base64")
    return raw.hex()


_KINDS = {
    "SPAN_KIND_INTERNAL": 1,
    "SPAN_KIND_SERVER": 2,
    "SPAN_KIND_CLIENT": 3,
    "SPAN_KIND_PRODUCER": 4,
    "SPAN_KIND_CONSUMER": 5,
}


def _otlp_spans(data: Any, where: str) -> list[_Span]:
    if not isinstance(data, dict) or not isinstance(data.get("resourceSpans"), list):
        raise TraceError(f"{where}: not OTLP/JSON (no resourceSpans array at the top level)")
    problem = json_value_problem(data)
    if problem:
        raise TraceError(f"{where}: {problem}")
    spans: list[_Span] = []
    for i, resource_spans in enumerate(data["resourceSpans"]):
        if not isinstance(resource_spans, dict):
            raise TraceError(f"{where}: resourceSpans[{i}]: not a JSON object")
        resource = _attributes(as_dict(resource_spans.get("resource")).get("attributes"))
        scopes = as_list(resource_spans.get("scopeSpans") or resource_spans.get("instrumentationLibrarySpans"))
        for j, scope in enumerate(scopes):
            for k, raw in enumerate(as_list(scope.get("spans")) if isinstance(scope, dict) else [scope]):
                at = f"{where}: resourceSpans[{i}].scopeSpans[{j}].spans[{k}]"
                try:
                    spans.append(_span(raw, str(resource.get("service.name") or ""), at))
                except (TypeError, ValueError, AttributeError, OverflowError) as exc:  # a wrong type somewhere inside
                    raise TraceError(f"{at}: not a valid OTLP span ({exc})") from None
    if not spans:
        raise TraceError(f"{where}: the OTLP/JSON holds no spans")
    return spans


def _span(raw: dict[str, Any], service: str, at: str) -> _Span:
    missing = [key for key in ("traceId", "spanId", "name", "startTimeUnixNano") if not raw.get(key)]
    if missing:
        raise TraceError(f"{at}: missing {missing[0]}")
    attrs = _attributes(raw.get("attributes"))
    status = as_dict(raw.get("status"))
    failed = status.get("code") in (2, "STATUS_CODE_ERROR") or "error.type" in attrs
    start = _int(raw["startTimeUnixNano"])
    end = _int(raw.get("endTimeUnixNano") or start)
    if not (0 <= start < 2**64 and 0 <= end < 2**64):
        raise ValueError("a time outside OTLP's unsigned 64-bit nanoseconds")
    kind = raw.get("kind", 1)
    return _Span(
        trace_id=_span_id(raw["traceId"], 16, f"{at}.traceId"),
        span_id=_span_id(raw["spanId"], 8, f"{at}.spanId"),
        parent_id=_span_id(raw.get("parentSpanId"), 8, f"{at}.parentSpanId"),
        name=str(raw["name"]),
        kind=kind if isinstance(kind, int) else _KINDS.get(str(kind), 1),
        start_ns=start,
        end_ns=max(start, end),
        attrs=attrs,
        error=(str(attrs.get("error.type") or "_OTHER"), str(status.get("message") or "")) if failed else None,
        service=service,
    )


def _read_otlp(text: str, name: str) -> list[_Span]:
    """One OTLP/JSON document, or JSON Lines of them (the collector's file exporter writes one a line)."""
    try:
        return _otlp_spans(json.loads(text), name)
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data":
            raise TraceError(f"{name} line {exc.lineno}: not JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError as exc:  # a number too long to convert
        raise TraceError(f"{name}: not JSON ({exc})") from None
    spans: list[_Span] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.strip():
            spans += _otlp_spans(json_line(line, f"{name} line {lineno}"), f"{name} line {lineno}")
    return spans


def _rpc_id(value: Any) -> int | str | None:
    """jsonrpc.request.id is a string; the frame's id was a number when it looks like one."""
    if isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)
    return value if value is None or isinstance(value, str) or type(value) is int else str(value)


def _messages_attr(span: _Span, key: str, unmapped: set[str]) -> list[dict[str, Any]]:
    value = json_or_text(span.attrs.get(key))
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(m, dict) for m in value):
        unmapped.add(f"{key} of span {quoted(span.name)}: not a list of messages")
        return []
    return value


def _openai_messages(messages: list[dict[str, Any]], unmapped: set[str]) -> list[dict[str, Any]]:
    """GenAI convention messages back into OpenAI chat messages (what the app sent and received)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        role = str(message.get("role") or "user")
        parts = [p for p in as_list(message.get("parts")) if isinstance(p, dict)]
        texts, calls = [], []
        for part in parts:
            kind = part.get("type")
            if kind == "text":
                texts.append(str(part.get("content", "")))
            elif kind == "tool_call":
                args = part.get("arguments")
                calls.append(
                    {
                        "id": part.get("id"),
                        "type": "function",
                        "function": {
                            "name": part.get("name"),
                            "arguments": args if isinstance(args, str) else json.dumps(args or {}, ensure_ascii=False),
                        },
                    }
                )
            elif kind == "tool_call_response":
                response = part.get("response", part.get("result"))
                out.append(
                    {
                        "role": "tool",
                        "tool_call_id": part.get("id"),
                        "content": response if isinstance(response, str) else json.dumps(response, ensure_ascii=False),
                    }
                )
            else:
                unmapped.add(f"message parts of type {quoted(kind)}")
        if role == "tool" or (
            parts and not texts and not calls and all(p.get("type") == "tool_call_response" for p in parts)
        ):
            continue  # Anthropic's tool results ride in a user message: they became the role "tool" messages above
        converted: dict[str, Any] = {"role": role, "content": "".join(texts) if texts else None}
        if calls:
            converted["tool_calls"] = calls
        if "finish_reason" in message:
            finish = message["finish_reason"]
            converted["finish_reason"] = "tool_calls" if finish == "tool_call" else finish
        out.append(converted)
    return out


def _last_text(messages: list[dict[str, Any]], role: str) -> str | None:
    for message in reversed(messages):
        if message.get("role") == role and message.get("content"):
            return str(message["content"])
    return None


def _loops(span: _Span, by_id: dict[str, _Span]) -> bool:
    seen: set[str] = set()
    while span.parent_id in by_id:
        if span.span_id in seen:
            return True
        seen.add(span.span_id)
        span = by_id[span.parent_id]
    return False


def _by_provider(span: _Span) -> bool:
    """A span of an MCP call a model provider reports its own client made (hosted MCP), not one anybody saw."""
    return span.attrs.get(REPORTED_BY_ATTR) == BY_PROVIDER


def _index(value: Any) -> int:
    return value if type(value) is int else 0


@dataclass(frozen=True, slots=True)
class _Placed:
    """A hop to add: what crossed, when on the trace's clock (ms from its first span), and in which round."""

    draft: Draft[Payload]
    t_start_ms: float
    t_end_ms: float
    rnd: int


@dataclass(frozen=True, slots=True)
class _Report:
    """Hosted MCP: what a model call's response reported of its provider's MCP calls, as the body the items or
    blocks came in; its hops are made once the hops before it are numbered (they name the response and the frames
    they pair with by seq), with no duration, when the response arrived (the report has no times)."""

    api: ApiName
    body: JsonObject
    t_ms: float
    rnd: int


def _call_result(text: str, value: Any, is_error: bool) -> JsonObject:
    """A CallToolResult rebuilt from what the conventions record: its content blocks when the value is a list of them
    (what the exporter writes of a result with no structured content), else the result's text; and its value when an
    object."""
    blocks = isinstance(value, list) and value and all(isinstance(b, dict) and "type" in b for b in value)
    content = value if blocks else [{"type": "text", "text": text}]
    result: JsonObject = {"content": content, "isError": is_error}
    if isinstance(value, dict):
        result["structuredContent"] = value
    return result


def _tool_output(span: _Span) -> tuple[Any, str]:
    """A tool span's result: its value, and the text the model reads of it (an error's message when it failed)."""
    value = json_or_text(span.attrs.get("gen_ai.tool.call.result"))
    error = span.error
    text = error[1] if error else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return value, text


def _request_frame(span: _Span, method: str, rpc_id: int | str | None) -> JsonObject:
    """The JSON-RPC frame an MCP span stands for, with the parameters the conventions record (and those our export
    adds: a retried call's answers and state, a server's request's parameters)."""
    a = span.attrs
    params: JsonObject = {}
    if method == "tools/call":
        params = {
            "name": a.get("gen_ai.tool.name"),
            "arguments": json_or_text(a.get("gen_ai.tool.call.arguments")) or {},
        }
        if isinstance(a.get(CALL_STATE_ATTR), str):
            params["requestState"] = a[CALL_STATE_ATTR]
            params["inputResponses"] = as_dict(json_or_text(a.get(CALL_RESPONSES_ATTR)))
    elif isinstance(asked := json_or_text(a.get(SERVER_PARAMS_ATTR)), dict):
        params = asked
    elif a.get("gen_ai.prompt.name"):
        params = {"name": a["gen_ai.prompt.name"]}
    elif a.get("mcp.resource.uri"):
        params = {"uri": a["mcp.resource.uri"]}
    frame: JsonObject = {"jsonrpc": "2.0", **({"id": rpc_id} if rpc_id is not None else {}), "method": method}
    if params:
        frame["params"] = params
    return frame


def _server_ask(span: _Span) -> ServerAsk | None:
    """The server's request something the host did answers (`REQUESTED_BY_ATTR`), or None."""
    a = span.attrs
    if a.get(REQUESTED_BY_ATTR) != "mcp_server":
        return None
    ask: ServerAsk = {"method": str(a.get(FOR_SERVER_METHOD_ATTR) or "")}
    if isinstance(rid := a.get(FOR_SERVER_ID_ATTR), (int, str)):
        ask["jsonrpc_id"] = rid
    if isinstance(key := a.get(FOR_SERVER_KEY_ATTR), str):
        ask["key"] = key
    return ask


def _user_input(span: _Span, ask: ServerAsk, fields: tuple[str, ...]) -> UserInputPayload:
    """A user.input payload from an `ASK_USER_SPAN` span's attributes: of the question or of the answer."""
    payload: dict[str, Any] = {"asked": ask}
    for name in fields:
        if (attr := USER_ATTRS[name]) in span.attrs:
            value = span.attrs[attr]
            payload[name] = json_or_text(value) if name in ("requested_schema", "content") else value
    return payload  # type: ignore[return-value]  # the attributes our export wrote; the loader checks the hop


def _execution_report(span: _Span) -> ExecutionReport:
    """A server's span of running its tool's function (`REPORTED_BY_ATTR`), as the report the MCP tap reads from a
    result's `_meta` (`flow.trace.reports`), worded by the same rules."""
    a = span.attrs
    name = str(a.get("code.function.name") or span.name or "unknown")
    kwargs = as_dict(json_or_text(a.get(REPORTED_ARGUMENTS_ATTR)))
    result: ToolResultPayload
    if span.error:
        result = {
            "raised": {"type": span.error[0], "message": span.error[1]},
            "isError": True,
            "reported_by": REPORTED_BY,
        }
        summary = f"isError: raised {span.error[0]}: {' '.join(span.error[1].split())[:50]}"
    else:
        value = json_or_text(a.get(REPORTED_RESULT_ATTR))
        result = {"return": value, "isError": False, "reported_by": REPORTED_BY}
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        summary = " ".join(text.split())[:60]
    return ExecutionReport(
        invoke={"function": name, "kwargs": kwargs, "reported_by": REPORTED_BY},
        result=result,
        invoke_summary="the server runs " + call_text(name, kwargs),
        result_summary=summary,
        raised=span.error is not None,
        duration_ms=(span.end_ns - span.start_ns) / 1e6,
    )


class _OtlpImport:
    """Walks one trace's span tree; each span it knows becomes the hops the orchestrator would have recorded."""

    def __init__(self, spans: list[_Span], name: str) -> None:
        self.name = name
        self.unmapped: set[str] = set()
        self.other_spans: Counter[str] = Counter()  # spans neither GenAI nor MCP, by name
        self.t0 = min(s.start_ns for s in spans)
        by_id = {s.span_id: s for s in spans}
        self.roots: list[_Span] = []
        for span in sorted(spans, key=lambda s: (s.start_ns, -s.end_ns)):
            parent = by_id.get(span.parent_id)
            if parent is not None and _loops(span, by_id):
                parent = None
                self.unmapped.add(f"span {quoted(span.name)}: its parents form a loop, so it is taken as a root")
            (parent.children if parent else self.roots).append(span)
        self.has_mcp = any(s.method and not _by_provider(s) for s in spans)
        self.hosted = False  # a provider reports MCP calls of its own client
        self.hosted_server = ""  # the label of the server it reports calling
        # The model calls of the tool loop; one made for an MCP server (sampling) is part of a tool call, not a round
        chats = sorted(
            (s for s in spans if s.operation in _CHAT_OPERATIONS and not s.method and _server_ask(s) is None),
            key=lambda s: s.start_ns,
        )
        self.chat_round = {s.span_id: i for i, s in enumerate(chats, 1)}
        self.chat_starts = [s.start_ns for s in chats]
        self.chat_windows = [(s.start_ns, s.end_ns) for s in chats]
        self.call_starts = sorted(
            s.start_ns for s in spans if s.method == "tools/call" and s.kind == 3 and not _by_provider(s)
        )
        self.events: list[tuple[int, int, _Placed | _Report]] = []  # (when it happened, walk order, hop)
        self.meta: dict[str, Any] = {
            "question": None,
            "answer": None,
            "error": None,
            "model": None,
            "provider": None,
            "server": {},
        }

    def ms(self, ns: int) -> float:
        return (ns - self.t0) / 1e6

    def hop(
        self, when_ns: int, draft: Draft[Payload], *, start_ns: int, end_ns: int | None = None, rnd: int = 0
    ) -> None:
        """A hop placed in the trace's order at `when_ns` (ties in the order of these calls), its times from
        `start_ns` to `end_ns` (default `when_ns`)."""
        placed = _Placed(draft, self.ms(start_ns), self.ms(when_ns if end_ns is None else end_ns), rnd)
        self.events.append((when_ns, len(self.events), placed))

    def round_at(self, ns: int) -> int:
        return sum(start <= ns for start in self.chat_starts)

    def frame_round(self, method: str, ns: int) -> int:
        """A frame's round: that of the model request it follows (a call's; a list asked for again after the server
        said it changed; any frame sent while a model request was out, a provider's MCP client's in hosted MCP); the
        session's set-up and listing before the first request, 0."""
        rnd = self.round_at(ns)
        inside = any(start <= ns <= end for start, end in self.chat_windows)
        # a list asked for again after the first request belongs to the round whose request offers it
        relisted = rnd and not inside and method in STEP2_METHODS - {"ping", "subscriptions/listen"}
        return rnd + 1 if relisted else rnd

    def messages(self, span: _Span, key: str) -> list[JsonObject]:
        """The GenAI messages a span's attribute `key` holds, as OpenAI chat messages."""
        return _openai_messages(_messages_attr(span, key, self.unmapped), self.unmapped)

    def walk(self, span: _Span, parent: _Span | None) -> None:
        if span.attrs.get(REPORTED_BY_ATTR) == "mcp_server" and parent is not None and parent.method == "tools/call":
            return  # a server's report of its function: its tools/call's hops hold it (`reported`)
        if _by_provider(span):
            if parent is None or parent.operation not in _CHAT_OPERATIONS or parent.method:
                self.unmapped.add(f"span {quoted(span.name)}: a provider's report outside a model call: left out")
            return  # a provider's report of its MCP calls: its model call's hops hold it (`provider_reports`)
        if span.method:
            if span.kind == 2 and parent is not None and parent.method:
                pass  # the server's side of a call its client span already shows
            else:
                self.mcp(span, parent)
        elif span.operation in ("invoke_agent", "invoke_workflow"):
            self.agent(span)
        elif (ask := _server_ask(span)) is not None and span.name == ASK_USER_SPAN:
            self.ask_user(span, ask)
        elif span.operation in _CHAT_OPERATIONS and ask is not None:
            self.chat_for_server(span, ask)
        elif span.operation in _CHAT_OPERATIONS:
            self.chat(span)
        elif span.operation == "execute_tool":
            self.tool(span)
        else:
            self.other_spans[span.name] += 1
        for child in span.children:
            self.walk(child, span)
        if span.operation in ("invoke_agent", "invoke_workflow") and not span.method:
            self.agent_end(span)

    # --- the agent: the question and the answer --------------------------------------------------------------------

    def agent(self, span: _Span) -> None:
        question = _last_text(self.messages(span, "gen_ai.input.messages"), "user")
        self.meta["question"] = self.meta["question"] or question
        if question is not None:
            self.hop(span.start_ns, hops.question(question), start_ns=span.start_ns)

    def agent_end(self, span: _Span) -> None:
        rnd = self.round_at(span.end_ns)
        if span.error:
            self.meta["error"] = span.error[1] or span.error[0]
            failed = hops.run_failed({"error": span.error[0], "message": span.error[1]}, self.meta["error"])
            self.hop(span.end_ns, failed, start_ns=span.end_ns, rnd=rnd)
            return
        answer = _last_text(self.messages(span, "gen_ai.output.messages"), "assistant")
        if answer is not None:
            self.meta["answer"] = answer
            shown = hops.answer(answer, empty_line=EMPTY_ANSWER["en"])
            # shown as the model's last answer came in; what the client sends after it (a cancel) comes after
            at = min(span.end_ns, max((end for _, end in self.chat_windows), default=span.end_ns))
            self.hop(at, shown, start_ns=at, rnd=rnd)

    # --- the model ---------------------------------------------------------------------------------------------------

    def chat(self, span: _Span) -> None:
        a = span.attrs
        rnd = self.chat_round[span.span_id]
        self.meta["model"] = self.meta["model"] or a.get("gen_ai.request.model")
        self.meta["provider"] = self.meta["provider"] or a.get("gen_ai.provider.name")
        spoken = _API_SPOKEN.get((str(a.get("gen_ai.provider.name")), str(a.get("openai.api.type"))))
        if spoken is not None:
            self.unmapped.add(f"model calls made with {spoken}: their bodies are rebuilt in Chat Completions' form")
        body = self.chat_body(span)
        if self.meta["question"] is None:
            self.meta["question"] = _last_text(body.get("messages", []), "user")
        step = Step.ASK_MODEL if rnd == 1 else Step.BACKFILL
        # The body is rebuilt in Chat Completions' form, so its line names that API's path.
        sent = hops.model_request({"body": body}, step=step, path=CHAT.path, carries=CHAT.request_summary(body))
        self.hop(span.start_ns, sent, start_ns=span.start_ns, rnd=rnd)
        if span.error:
            kind, message = span.error
            failed = hops.model_failed(
                {"status": _code(kind), "error": kind, "message": message},
                step=step,
                summary=f"{kind}: {message}".strip(": "),
            )
            self.hop(span.end_ns, failed, start_ns=span.start_ns, rnd=rnd)
            return
        self.hop(span.end_ns, self.chat_response(span), start_ns=span.start_ns, rnd=rnd)
        self.provider_reports(span, rnd)

    def chat_for_server(self, span: _Span, ask: ServerAsk) -> None:
        """A model call the host made for an MCP server (sampling): the host's MCP client asks the model, in the
        step of the tool call that asked."""
        rnd = self.round_at(span.start_ns)
        body = self.chat_body(span)
        sent = hops.model_request(
            {"body": body, "for_server": ask}, step=Step.CALL_TOOL, path=CHAT.path, carries=CHAT.request_summary(body)
        )
        self.hop(span.start_ns, sent, start_ns=span.start_ns, rnd=rnd)
        if span.error:
            kind, message = span.error
            failed = hops.model_failed(
                {"status": _code(kind), "error": kind, "message": message},
                step=Step.CALL_TOOL,
                summary=f"{kind}: {message}".strip(": "),
            )
            self.hop(span.end_ns, failed, start_ns=span.start_ns, rnd=rnd)
            return
        self.hop(span.end_ns, self.chat_response(span, ask), start_ns=span.start_ns, rnd=rnd)

    def ask_user(self, span: _Span, ask: ServerAsk) -> None:
        """A server's question put to the user, and the answer when one came: the two user.input hops."""
        rnd = self.round_at(span.start_ns)
        asked = hops.user_asked(_user_input(span, ask, ("mode", "message", "requested_schema", "url")))
        self.hop(span.start_ns, asked, start_ns=span.start_ns, rnd=rnd)
        if USER_ATTRS["action"] in span.attrs:
            answered = hops.user_answered(_user_input(span, ask, USER_ANSWER_FIELDS))
            self.hop(span.end_ns, answered, start_ns=span.end_ns, rnd=rnd)

    def provider_reports(self, chat: _Span, rnd: int) -> None:
        """Hosted MCP: the MCP calls the provider reports under this model call, as the items or blocks its spans
        keep, in the order the response reported them: `mcp.reported` hops again, never frames (nobody saw them)."""
        reported = sorted(
            (c for c in chat.children if _by_provider(c)), key=lambda c: _index(c.attrs.get(REPORTED_INDEX_ATTR))
        )
        if not reported:
            return
        api = reported[0].attrs.get(REPORTED_API_ATTR)
        items: list[JsonObject] = []
        for span in reported:
            said = json_or_text(span.attrs.get(REPORTED_ITEMS_ATTR))
            if span.attrs.get(REPORTED_API_ATTR) != api or not isinstance(said, list) or not said:
                self.unmapped.add(f"span {quoted(span.name)}: a provider's report without its items: left out")
                continue
            items += [i for i in said if isinstance(i, dict)]
            self.hosted_server = self.hosted_server or str(span.attrs.get(REPORTED_SERVER_ATTR) or "")
        # where the API's response carries the report: Responses' output, Messages' content; Chat reports none
        reporting = next((a for a in API.values() if a.name == api), None)
        body = reporting.reported_body(items) if reporting is not None else None
        if reporting is None or body is None:
            self.unmapped.add(
                f"provider reports of the API {quoted(api)}: only Responses and Messages report MCP calls"
            )
            return
        self.hosted = True
        self.unmapped.add(
            "hosted MCP: the provider's reports come back as mcp.reported hops from the items their spans keep; the "
            "model response they name is rebuilt in Chat Completions' form, without those items"
        )
        report = _Report(reporting.name, body, self.ms(chat.end_ns), rnd)
        self.events.append((chat.end_ns, len(self.events), report))

    def add_reports(self, out: Hops, report: _Report) -> None:
        """A report's hops after the model response that carried it, paired with the frames seen since its request."""
        # the hops made here carry whole payloads: none is `Clipped`
        request = next((h for h in reversed(out.hops) if isinstance(typed(h), LlmRequest)), None)
        response = next((h for h in reversed(out.hops) if isinstance(typed(h), LlmResponse)), None)
        if request is None or response is None or response.seq < request.seq:
            return
        drafts = reported_drafts(
            report.api, report.body, response_seq=response.seq, seen=out.hops, since_seq=request.seq
        )
        for draft in drafts:
            out.add(draft, t_start_ms=report.t_ms, t_end_ms=report.t_ms, rnd=report.rnd)

    def chat_body(self, span: _Span) -> ChatRequest:
        """The request body a chat span stands for: the system instructions, the input messages, the tools."""
        a = span.attrs
        messages: list[JsonObject] = [
            {"role": "system", "content": p.get("content")}
            for p in as_list(json_or_text(a.get("gen_ai.system_instructions")))
            if isinstance(p, dict)
        ]
        messages += self.messages(span, "gen_ai.input.messages")
        body: ChatRequest = {"model": a.get("gen_ai.request.model"), "messages": messages}
        tools = json_or_text(a.get("gen_ai.tool.definitions"))
        if isinstance(tools, list) and tools:
            body["tools"] = [
                {"type": t.get("type", "function"), "function": {k: v for k, v in t.items() if k != "type"}}
                for t in tools
                if isinstance(t, dict)
            ]
        if a.get("gen_ai.request.stream"):
            body["stream"] = True
            self.unmapped.add("streamed chunks: the spans hold the assembled message, shown as one response")
        return body

    def chat_response(self, span: _Span, ask: ServerAsk | None = None) -> Draft[LlmResponsePayload]:
        """The completion a chat span stands for: its output messages as choices, and the tokens it counted; `ask`
        the server's request it answers, for a model call made for a server."""
        a = span.attrs
        choices: list[JsonObject] = [
            {
                "index": i,
                "message": {k: v for k, v in m.items() if k != "finish_reason"},
                "finish_reason": m.get("finish_reason"),
            }
            for i, m in enumerate(self.messages(span, "gen_ai.output.messages"))
        ]
        tokens = {
            "prompt_tokens": a.get("gen_ai.usage.input_tokens"),
            "completion_tokens": a.get("gen_ai.usage.output_tokens"),
        }
        usage = usage_counts(tokens)  # the counts that are counts, as the recorder keeps them
        if usage:
            usage["total_tokens"] = (usage.get("prompt_tokens") or 0) + (usage.get("completion_tokens") or 0)
        response = {
            "id": a.get("gen_ai.response.id"),
            "model": a.get("gen_ai.response.model"),
            "choices": choices,
            "usage": usage,
        }
        asks = any(c["message"].get("tool_calls") or c["finish_reason"] == "tool_calls" for c in choices)
        # Hosted MCP: a provider that asks the app to approve a call has decided on it (a part of the provider's type)
        asks = asks or any(
            as_dict(p).get("type") == "mcp_approval_request"
            for m in _messages_attr(span, "gen_ai.output.messages", self.unmapped)
            for p in as_list(m.get("parts"))
        )
        answered: LlmResponsePayload = {"status": 200, "body": response}
        if ask is not None:
            answered["for_server"] = ask
        return hops.model_response(
            answered,
            step=Step.DECISION if asks else Step.MODEL_ANSWER,
            summary=CHAT.response_summary(response),
        )

    # --- the app's tool call -----------------------------------------------------------------------------------------

    def tool_call(self, span: _Span) -> ToolCall:
        """The model's tool call an execute_tool span carries out, with its arguments as a JSON string."""
        a = span.attrs
        name = str(a.get("gen_ai.tool.name") or span.name.removeprefix("execute_tool ").strip() or "unknown")
        call_id = a.get("gen_ai.tool.call.id")
        if not call_id:
            call_id = f"call_{span.span_id[:8]}"
            self.unmapped.add("execute_tool spans without gen_ai.tool.call.id: ids made up from the span id")
        args = json_or_text(a.get("gen_ai.tool.call.arguments"))
        arguments = args if isinstance(args, str) else json.dumps(args or {}, ensure_ascii=False)
        return {"id": str(call_id), "type": "function", "function": {"name": name, "arguments": arguments}}

    def tool(self, span: _Span) -> None:
        tool_call = self.tool_call(span)
        call_id, name = tool_call["id"], tool_call["function"]["name"]
        rnd = self.round_at(span.start_ns)
        over_mcp = any(c.method == "tools/call" for c in span.children)
        if span.error and span.error[0] == INVALID_ARGUMENTS:  # refused by the app before anything ran
            self.hop(span.start_ns, hops.arguments_refused(tool_call, span.error[1]), start_ns=span.start_ns, rnd=rnd)
            return
        args = json_or_text(span.attrs.get("gen_ai.tool.call.arguments"))
        arguments = args if isinstance(args, dict) else {}
        request: CallRequest = {"name": name, "arguments": arguments}
        asked = hops.reverse_translation(tool_call, request, target="mcp_client" if over_mcp else "tool")
        self.hop(span.start_ns, asked, start_ns=span.start_ns, rnd=rnd)
        if not over_mcp:
            self.hop(span.start_ns, hops.function_called(name, arguments, call_id), start_ns=span.start_ns, rnd=rnd)
        result = self.tool_result(span, call_id, over_mcp)
        if result is not None:
            self.hop(span.end_ns, result, start_ns=span.start_ns, rnd=rnd)

    def tool_result(self, span: _Span, call_id: str, over_mcp: bool) -> Draft[Payload] | None:
        """What came back to the app: the result (over MCP, or the function's return), a JSON-RPC error code, or
        a failure the span reports; None where the tools/call span's own hops say it."""
        error = span.error
        code = _code(error[0]) if error else None
        if error and code is not None:  # a JSON-RPC error code: no result came back
            refused: RpcError = {"code": code, "message": error[1]}
            return hops.call_refused(refused, call_id=call_id, source="mcp_client" if over_mcp else "tool")
        if error and error[0] != "tool_error":
            if over_mcp:  # the tools/call span's own error hop says it
                return None
            return hops.function_failed({"error": error[0], "message": error[1]}, error[1] or error[0], call_id=call_id)
        value, text = _tool_output(span)
        if over_mcp:
            return hops.call_answered(_call_result(text, value, bool(error)), text, call_id=call_id)
        return hops.function_returned(value, text, is_error=bool(error), call_id=call_id)

    # --- MCP -----------------------------------------------------------------------------------------------------------

    def mcp(self, span: _Span, parent: _Span | None) -> None:
        method = str(span.method)
        self.note_server(span)
        rpc_id = _rpc_id(span.attrs.get("jsonrpc.request.id"))
        frame = _request_frame(span, method, rpc_id)
        from_client = method not in SERVER_METHODS
        step, rnd, progress_of = self.placed(span, parent, method)
        said = hops.frame(
            frame,
            source="mcp_client" if from_client else "mcp_server",
            target="mcp_server" if from_client else "mcp_client",
            step=step,
            summary=frame_summary(frame, None) if "params" in frame else method,
            progress_of=progress_of,
        )
        self.hop(span.start_ns, said, start_ns=span.start_ns, rnd=rnd)
        if rpc_id is None:
            return
        if method == "tools/call":
            self.reported(span, rpc_id, rnd)
        # The client's answer to a server's request is in the step it was asked in
        step_back = answer_step(step) if from_client else step
        reply = self.reply(span, method, rpc_id, step_back, from_client=from_client, call_id=self.carried(span, parent))
        if reply is not None and from_client:  # an input-required result does not end the call: it stays in its step
            reply = replace(reply, step=reply_step(step, reply.payload))
        if reply is not None:
            self.hop(span.end_ns, reply, start_ns=span.start_ns, rnd=rnd)

    def note_server(self, span: _Span) -> None:
        """What an MCP span says of the server: its protocol version, its transport, its name."""
        a, server = span.attrs, self.meta["server"]
        server.setdefault("protocol_version", a.get("mcp.protocol.version"))
        if a.get("network.transport"):
            server.setdefault("transport", "stdio" if a["network.transport"] == "pipe" else a["network.transport"])
        if span.kind == 2:
            server.setdefault("name", span.service)
        for child in span.children:
            if child.kind == 2 and child.method:
                server.setdefault("name", child.service)

    def placed(self, span: _Span, parent: _Span | None, method: str) -> tuple[Step | None, int, int | str | None]:
        """An MCP message's step and round, and the request a progress notification reports on: those of the
        request the server was handling when it sent the message, if it was handling one."""
        if parent is not None and parent.method and parent.kind == 2:
            if method.startswith("notifications/"):
                self.unmapped.add(
                    "parameters of notifications (progress, log text): the conventions do not record them"
                )
            if parent.method == "subscriptions/listen" and self.calling(span.start_ns):
                # what comes on a listen stream belongs to no step of the stream's: to the tool call under way
                return Step.CALL_TOOL, self.round_at(span.start_ns), None
            rnd = self.frame_round(parent.method, parent.start_ns)
            progress_of = (
                _rpc_id(parent.attrs.get("jsonrpc.request.id")) if method == "notifications/progress" else None
            )
            return method_step(parent.method), rnd, progress_of
        step = method_step(method)
        if step is None and self.calling(span.start_ns):  # a tool call's round: a cancel of a call given up on, say
            return Step.CALL_TOOL, self.round_at(span.start_ns), None
        if step is None and self.chat_windows and span.start_ns > max(end for _, end in self.chat_windows):
            step = Step.SHOW_ANSWER  # sent after the model's last answer: the run is ending (a stream's cancel)
        return step, self.frame_round(method, span.start_ns), None

    def calling(self, ns: int) -> bool:
        """Whether a tools/call has been sent in the round that is under way at `ns` (the round's results have not
        yet gone back to the model)."""
        rnd = self.round_at(ns)
        return any(start <= ns and self.round_at(start) == rnd for start in self.call_starts)

    def carried(self, span: _Span, parent: _Span | None) -> str | None:
        """The model's tool call a tools/call span carries out: that of the execute_tool span it is under."""
        if span.method != "tools/call" or parent is None or parent.method or parent.operation != "execute_tool":
            return None
        return self.tool_call(parent)["id"]

    def reply(
        self,
        span: _Span,
        method: str,
        rpc_id: int | str,
        step: Step | None,
        *,
        from_client: bool,
        call_id: str | None = None,
    ) -> Draft[Payload] | None:
        """The answer to an MCP request: a result frame, an error frame for a JSON-RPC error code, or the failure the
        span reports instead (for a tools/call, of the model's call `call_id`); None when no answer came."""
        error = span.error
        if error and error[0] == NO_RESPONSE:
            return None
        code = _code(error[0]) if error else None
        reply: JsonObject
        if error and code is not None:
            reply = {"jsonrpc": "2.0", "id": rpc_id, "error": {"code": code, "message": error[1]}}
        elif error and error[0] != "tool_error":
            payload: ErrorPayload = {"error": error[0], "message": error[1]}
            summary = error[1] or error[0]
            if from_client:
                return hops.server_failed(payload, summary, step=step, tool_call_id=call_id)
            return hops.client_failed(payload, summary, step=step)
        elif method == "tools/call" and isinstance(span.attrs.get(REQUIRED_STATE_ATTR), str):
            result: JsonObject = {
                "resultType": "input_required",
                "inputRequests": as_dict(json_or_text(span.attrs.get(REQUIRED_REQUESTS_ATTR))),
                "requestState": span.attrs[REQUIRED_STATE_ATTR],
            }
            reply = {"jsonrpc": "2.0", "id": rpc_id, "result": result}
        elif method == "tools/call":
            value, text = _tool_output(span)
            reply = {"jsonrpc": "2.0", "id": rpc_id, "result": _call_result(text, value, bool(error))}
        elif isinstance(answered := json_or_text(span.attrs.get(CLIENT_RESULT_ATTR)), dict):
            reply = {"jsonrpc": "2.0", "id": rpc_id, "result": answered}
        else:
            self.unmapped.add(
                "results of MCP requests other than tools/call: the conventions do not record "
                "them, so their result frames are empty"
            )
            reply = {"jsonrpc": "2.0", "id": rpc_id, "result": {}}
        return hops.frame(
            reply,
            source="mcp_server" if from_client else "mcp_client",
            target="mcp_client" if from_client else "mcp_server",
            step=step,
            method=method,
        )

    def reported(self, client: _Span, rpc_id: int | str, rnd: int) -> None:
        """The server's report of running the tool's function, if its span holds one: MCP server → tool and back,
        just before the tools/call's answer, where the MCP tap records them (the report arrives with the answer)."""
        for server in (c for c in client.children if c.kind == 2 and c.method == "tools/call"):
            for span in server.children:
                if span.attrs.get(REPORTED_BY_ATTR) != "mcp_server":
                    continue
                call_id = span.attrs.get("gen_ai.tool.call.id")
                report = _execution_report(span)
                invoked, returned = hops.run_reported(
                    report, jsonrpc_id=rpc_id, call_id=str(call_id) if call_id else None
                )
                self.hop(client.end_ns, invoked, start_ns=span.start_ns, end_ns=span.start_ns, rnd=rnd)
                self.hop(client.end_ns, returned, start_ns=span.start_ns, end_ns=span.end_ns, rnd=rnd)
                self.unmapped.add("the server's own clock in its reports of running its tools: spans keep the app's")
                return

    def trace(self, started_at: str) -> Trace:
        for root in self.roots:
            self.walk(root, None)
        out = Hops(self.name)
        for _, _, placed in sorted(self.events, key=lambda e: (e[0], e[1])):
            if isinstance(placed, _Report):
                self.add_reports(out, placed)
                continue
            out.add(placed.draft, t_start_ms=placed.t_start_ms, t_end_ms=placed.t_end_ms, rnd=placed.rnd)
        if not out.hops:
            raise TraceError(
                f"{self.name}: none of its spans is a GenAI or MCP span, so there is nothing to step through"
            )
        if self.other_spans:
            names = ", ".join(quoted(n) + (f" ×{k}" if k > 1 else "") for n, k in self.other_spans.most_common(10))
            more = len(self.other_spans) - 10
            self.unmapped.add(
                f"spans neither GenAI nor MCP: {names}" + (f" and {more} other names" if more > 0 else "")
            )
        m = self.meta
        server = {k: v for k, v in m["server"].items() if v is not None}
        meta = TraceMeta(
            mode="hosted" if self.hosted else "mcp" if self.has_mcp else "direct",
            question=m["question"] or f"(imported OTLP trace {Path(self.name).name})",
            model={k: v for k, v in (("name", m["model"]), ("provider", m["provider"])) if v},
            server={"name": self.hosted_server or "mcp-server", **server} if self.has_mcp or self.hosted else None,
            started_at=started_at,
            outcome="error" if m["error"] else "ok",
            answer=m["answer"],
            error=m["error"],
            imported=ImportInfo(
                format="otlp-json",
                file=self.name,
                unmapped=sorted(self.unmapped)
                + ["wire frames and HTTP bodies are rebuilt from span attributes, not the bytes that were sent"],
            ),
        )
        return finish(meta, out.hops, self.name)


def import_otlp_json(text: str, *, name: str) -> Trace:
    """OTLP/JSON spans that follow the GenAI and MCP conventions; the first trace in the file is imported."""
    spans = _read_otlp(text, name)
    traces = Counter(s.trace_id for s in spans)
    first = min(spans, key=lambda s: s.start_ns).trace_id
    chosen = [s for s in spans if s.trace_id == first]
    job = _OtlpImport(chosen, name)
    if len(traces) > 1:
        job.unmapped.add(f"{len(traces) - 1} more trace(s) in the file left out: one trace is imported, the earliest")
    started = dt.datetime.fromtimestamp(job.t0 // 10**9, dt.timezone.utc).replace(microsecond=job.t0 % 10**9 // 1000)
    return job.trace(started.isoformat())  # a RecursionError on deep nesting becomes import_bytes' one line
