"""OTLP/JSON that follows the GenAI and MCP semantic conventions (what `flow.interop.otlp` writes, and what other
GenAI instrumentations send) as a trace: each span it knows becomes the hops the engine would have recorded."""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flow.interop.common import (
    INVALID_ARGUMENTS,
    NO_RESPONSE,
    REPORTED_ARGUMENTS_ATTR,
    REPORTED_BY_ATTR,
    REPORTED_RESULT_ATTR,
    SERVER_METHODS,
    Hops,
    finish,
    json_line,
    json_or_text,
    method_step,
    quoted,
)
from flow.trace.files import TraceError, json_value_problem
from flow.trace.model import Actor, ImportInfo, Kind, Trace, TraceMeta, as_dict, as_list, usage_counts
from flow.trace.steps import answer_step
from flow.trace.summaries import arguments_text, frame_kind, frame_summary
from flow.wire.chat import CHAT

_CHAT_OPERATIONS = {"chat", "text_completion", "generate_content"}


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
        if role == "tool":
            continue
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
        self.has_mcp = any(s.method for s in spans)
        chats = sorted((s for s in spans if s.operation in _CHAT_OPERATIONS and not s.method), key=lambda s: s.start_ns)
        self.chat_round = {s.span_id: i for i, s in enumerate(chats, 1)}
        self.chat_starts = [s.start_ns for s in chats]
        self.events: list[tuple[int, int, dict[str, Any]]] = []  # (when it happened, walk order, hop)
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
        self,
        when_ns: int,
        kind: Kind,
        source: Actor,
        target: Actor,
        payload: Any,
        *,
        step: int | None,
        start_ns: int,
        end_ns: int | None = None,
        **extra: Any,
    ) -> None:
        """A hop placed in the trace's order at `when_ns` (ties in the order of these calls), its times from
        `start_ns` to `end_ns` (default `when_ns`)."""
        self.events.append(
            (
                when_ns,
                len(self.events),
                dict(
                    kind=kind,
                    source=source,
                    target=target,
                    payload=payload,
                    step=step,
                    t_start_ms=self.ms(start_ns),
                    t_end_ms=self.ms(when_ns if end_ns is None else end_ns),
                    **extra,
                ),
            )
        )

    def round_at(self, ns: int) -> int:
        return sum(start <= ns for start in self.chat_starts)

    def walk(self, span: _Span, parent: _Span | None) -> None:
        if span.attrs.get(REPORTED_BY_ATTR) == "mcp_server" and parent is not None and parent.method == "tools/call":
            return  # a server's report of its function: its tools/call's hops hold it (`reported`)
        if span.method:
            if span.kind == 2 and parent is not None and parent.method:
                pass  # the server's side of a call its client span already shows
            else:
                self.mcp(span, parent)
        elif span.operation in ("invoke_agent", "invoke_workflow"):
            self.agent(span)
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

    def agent(self, span: _Span) -> None:
        messages = _openai_messages(_messages_attr(span, "gen_ai.input.messages", self.unmapped), self.unmapped)
        question = _last_text(messages, "user")
        self.meta["question"] = self.meta["question"] or question
        if question is not None:
            self.hop(
                span.start_ns,
                "user.message",
                "user",
                "app",
                {"content": question},
                step=1,
                start_ns=span.start_ns,
                summary=question,
            )

    def agent_end(self, span: _Span) -> None:
        rnd = self.round_at(span.end_ns)
        if span.error:
            self.meta["error"] = span.error[1] or span.error[0]
            self.hop(
                span.end_ns,
                "error",
                "app",
                "user",
                {"error": span.error[0], "message": span.error[1]},
                step=10,
                start_ns=span.end_ns,
                direction="error",
                rnd=rnd,
                summary=self.meta["error"],
            )
            return
        messages = _openai_messages(_messages_attr(span, "gen_ai.output.messages", self.unmapped), self.unmapped)
        answer = _last_text(messages, "assistant")
        if answer is not None:
            self.meta["answer"] = answer
            self.hop(
                span.end_ns,
                "app.answer",
                "app",
                "user",
                {"content": answer},
                step=10,
                start_ns=span.end_ns,
                rnd=rnd,
                summary=answer[:80],
            )

    def chat(self, span: _Span) -> None:
        a = span.attrs
        rnd = self.chat_round[span.span_id]
        self.meta["model"] = self.meta["model"] or a.get("gen_ai.request.model")
        self.meta["provider"] = self.meta["provider"] or a.get("gen_ai.provider.name")
        messages = [
            {"role": "system", "content": p.get("content")}
            for p in as_list(json_or_text(a.get("gen_ai.system_instructions")))
            if isinstance(p, dict)
        ]
        messages += _openai_messages(_messages_attr(span, "gen_ai.input.messages", self.unmapped), self.unmapped)
        body: dict[str, Any] = {"model": a.get("gen_ai.request.model"), "messages": messages}
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
        if self.meta["question"] is None:
            self.meta["question"] = _last_text(messages, "user")
        self.hop(
            span.start_ns,
            "llm.request",
            "app",
            "model",
            {"body": body},
            step=3 if rnd == 1 else 8,
            start_ns=span.start_ns,
            direction="request",
            rnd=rnd,
            summary=f"chat {body['model']}: {len(messages)} messages, {len(body.get('tools') or [])} tools",
        )
        if span.error:
            status = _code(span.error[0])
            self.hop(
                span.end_ns,
                "llm.error",
                "model",
                "app",
                {"status": status, "error": span.error[0], "message": span.error[1]},
                step=3 if rnd == 1 else 8,
                start_ns=span.start_ns,
                direction="error",
                rnd=rnd,
                summary=f"{span.error[0]}: {span.error[1]}".strip(": "),
            )
            return
        outputs = _openai_messages(_messages_attr(span, "gen_ai.output.messages", self.unmapped), self.unmapped)
        choices: list[dict[str, Any]] = [
            {
                "index": i,
                "message": {k: v for k, v in m.items() if k != "finish_reason"},
                "finish_reason": m.get("finish_reason"),
            }
            for i, m in enumerate(outputs)
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
        self.hop(
            span.end_ns,
            "llm.response",
            "model",
            "app",
            {"status": 200, "body": response},
            step=4 if asks else 9,
            start_ns=span.start_ns,
            direction="response",
            rnd=rnd,
            usage=usage,
            summary=CHAT.response_summary(response),
        )

    def tool(self, span: _Span) -> None:
        a = span.attrs
        name = str(a.get("gen_ai.tool.name") or span.name.removeprefix("execute_tool ").strip() or "unknown")
        call_id = a.get("gen_ai.tool.call.id")
        if not call_id:
            call_id = f"call_{span.span_id[:8]}"
            self.unmapped.add("execute_tool spans without gen_ai.tool.call.id: ids made up from the span id")
        call_id = str(call_id)
        args = json_or_text(a.get("gen_ai.tool.call.arguments"))
        tool_call = {
            "id": call_id,
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args or {}, ensure_ascii=False),
            },
        }
        rnd = self.round_at(span.start_ns)
        over_mcp = any(c.method == "tools/call" for c in span.children)
        if span.error and span.error[0] == INVALID_ARGUMENTS:  # refused by the app before anything ran
            self.hop(
                span.start_ns,
                "error",
                "app",
                "app",
                {"tool_call": tool_call, "error": span.error[1], "sent_back_to_model": True},
                step=5,
                start_ns=span.start_ns,
                direction="error",
                rnd=rnd,
                tool_call_id=call_id,
                summary=f"bad arguments: {span.error[1]}",
            )
            return
        arguments = args if isinstance(args, dict) else {}
        self.hop(
            span.start_ns,
            "translate.reverse",
            "app",
            "mcp_client" if over_mcp else "tool",
            {"tool_call": tool_call, "call_request": {"name": name, "arguments": arguments}},
            step=5,
            start_ns=span.start_ns,
            direction="request",
            rnd=rnd,
            tool_call_id=call_id,
            summary=f"call {name}({', '.join(f'{k}={v}' for k, v in arguments.items())})",
        )
        if not over_mcp:
            self.hop(
                span.start_ns,
                "tool.invoke",
                "app",
                "tool",
                {"function": name, "kwargs": arguments},
                step=6,
                start_ns=span.start_ns,
                direction="request",
                rnd=rnd,
                tool_call_id=call_id,
                summary=f"{name}({', '.join(f'{k}={v}' for k, v in arguments.items())})",
            )
        self.tool_result(span, call_id, rnd, over_mcp)

    def tool_result(self, span: _Span, call_id: str, rnd: int, over_mcp: bool) -> None:
        source: Actor = "mcp_client" if over_mcp else "tool"
        error = span.error
        if error and _code(error[0]) is not None:  # a JSON-RPC error code: no result came back
            self.hop(
                span.end_ns,
                "tool.result",
                source,
                "app",
                {"error": {"code": _code(error[0]), "message": error[1]}},
                step=7,
                start_ns=span.start_ns,
                direction="error",
                rnd=rnd,
                tool_call_id=call_id,
                summary=f"protocol error {error[0]}: {error[1]}",
            )
            return
        if error and error[0] != "tool_error":
            if not over_mcp:  # over MCP, the tools/call span's own error hop says it
                self.hop(
                    span.end_ns,
                    "error",
                    "tool",
                    "app",
                    {"error": error[0], "message": error[1]},
                    step=7,
                    start_ns=span.start_ns,
                    direction="error",
                    rnd=rnd,
                    tool_call_id=call_id,
                    summary=error[1] or error[0],
                )
            return
        value = json_or_text(span.attrs.get("gen_ai.tool.call.result"))
        text = error[1] if error else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        payload: dict[str, Any] = {"isError": bool(error), "tool_message_content": text}
        if over_mcp:
            result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": bool(error)}
            if isinstance(value, dict):
                result["structuredContent"] = value
            payload = {"result": result, "tool_message_content": text}
        else:
            payload["return"] = value
        self.hop(
            span.end_ns,
            "tool.result",
            source,
            "app",
            payload,
            step=7,
            start_ns=span.start_ns,
            direction="error" if error and not over_mcp else "response",
            rnd=rnd,
            tool_call_id=call_id,
            summary=("isError: " if error else "") + " ".join(str(text).split())[:60],
        )

    def mcp(self, span: _Span, parent: _Span | None) -> None:
        a, method = span.attrs, str(span.method)
        server = self.meta["server"]
        server.setdefault("protocol_version", a.get("mcp.protocol.version"))
        if a.get("network.transport"):
            server.setdefault("transport", "stdio" if a["network.transport"] == "pipe" else a["network.transport"])
        if span.kind == 2:
            server.setdefault("name", span.service)
        for child in span.children:
            if child.kind == 2 and child.method:
                server.setdefault("name", child.service)
        rpc_id = _rpc_id(a.get("jsonrpc.request.id"))
        params: dict[str, Any] = {}
        if method == "tools/call":
            params = {
                "name": a.get("gen_ai.tool.name"),
                "arguments": json_or_text(a.get("gen_ai.tool.call.arguments")) or {},
            }
        elif a.get("gen_ai.prompt.name"):
            params = {"name": a["gen_ai.prompt.name"]}
        elif a.get("mcp.resource.uri"):
            params = {"uri": a["mcp.resource.uri"]}
        frame: dict[str, Any] = {"jsonrpc": "2.0", **({"id": rpc_id} if rpc_id is not None else {}), "method": method}
        if params:
            frame["params"] = params
        sender_is_client = method not in SERVER_METHODS
        source: Actor = "mcp_client" if sender_is_client else "mcp_server"
        target: Actor = "mcp_server" if sender_is_client else "mcp_client"
        step = method_step(method)
        rnd = self.round_at(span.start_ns) if method == "tools/call" else 0
        extra: dict[str, Any] = {}
        if parent is not None and parent.method and parent.kind == 2:  # sent while the server handled a request
            step = method_step(parent.method)
            rnd = self.round_at(parent.start_ns) if parent.method == "tools/call" else 0
            if method == "notifications/progress":
                extra["progress_of"] = _rpc_id(parent.attrs.get("jsonrpc.request.id"))
            self.unmapped.add("parameters of notifications (progress, log text): the conventions do not record them")
        kind: Kind = "mcp.request" if rpc_id is not None else "mcp.notification"
        self.hop(
            span.start_ns,
            kind,
            source,
            target,
            frame,
            step=step,
            start_ns=span.start_ns,
            rnd=rnd,
            direction="request" if rpc_id is not None else "notification",
            jsonrpc_id=rpc_id,
            summary=frame_summary(frame, None) if params else method,
            **extra,
        )
        if rpc_id is None:
            return
        if method == "tools/call":
            self.reported(span, rpc_id, rnd)
        error = span.error
        if error and error[0] == NO_RESPONSE:
            return
        if error and _code(error[0]) is not None:
            reply: dict[str, Any] = {
                "jsonrpc": "2.0",
                "id": rpc_id,
                "error": {"code": _code(error[0]), "message": error[1]},
            }
        elif error and error[0] != "tool_error":
            self.hop(
                span.end_ns,
                "error",
                target,
                source,
                {"error": error[0], "message": error[1]},
                step=answer_step(step),
                start_ns=span.start_ns,
                direction="error",
                rnd=rnd,
                summary=error[1] or error[0],
            )
            return
        else:
            result: dict[str, Any] = {}
            if method == "tools/call":
                value = json_or_text(a.get("gen_ai.tool.call.result"))
                text = error[1] if error else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                result = {"content": [{"type": "text", "text": text}], "isError": bool(error)}
                if isinstance(value, dict):
                    result["structuredContent"] = value
            else:
                self.unmapped.add(
                    "results of MCP requests other than tools/call: the conventions do not record "
                    "them, so their result frames are empty"
                )
            reply = {"jsonrpc": "2.0", "id": rpc_id, "result": result}
        reply_kind = frame_kind(reply)
        self.hop(
            span.end_ns,
            reply_kind,
            target,
            source,
            reply,
            step=answer_step(step),
            start_ns=span.start_ns,
            direction="error" if reply_kind == "mcp.error" else "response",
            rnd=rnd,
            jsonrpc_id=rpc_id,
            summary=frame_summary(reply, method),
        )

    def reported(self, client: _Span, rpc_id: int | str, rnd: int) -> None:
        """The server's report of running the tool's function, if its span holds one: MCP server → tool and back,
        just before the tools/call's answer, where the MCP tap records them (the report arrives with the answer)."""
        for server in (c for c in client.children if c.kind == 2 and c.method == "tools/call"):
            for span in server.children:
                if span.attrs.get(REPORTED_BY_ATTR) != "mcp_server":
                    continue
                a = span.attrs
                name = str(a.get("code.function.name") or span.name or "unknown")
                kwargs = as_dict(json_or_text(a.get(REPORTED_ARGUMENTS_ATTR)))
                call_id = a.get("gen_ai.tool.call.id")
                ids = {"jsonrpc_id": rpc_id, "tool_call_id": str(call_id) if call_id else None, "rnd": rnd}
                mark = {"reported_by": "mcp_server"}
                shown = arguments_text(kwargs)  # as the tap wrote it (flow.trace.reports)
                self.hop(
                    client.end_ns,
                    "tool.invoke",
                    "mcp_server",
                    "tool",
                    {"function": name, "kwargs": kwargs, **mark},
                    step=6,
                    start_ns=span.start_ns,
                    end_ns=span.start_ns,
                    direction="request",
                    summary=f"the server runs {name}({shown})",
                    **ids,
                )
                if span.error:
                    result: dict[str, Any] = {"raised": {"type": span.error[0], "message": span.error[1]}}
                    summary = f"isError: raised {span.error[0]}: {' '.join(span.error[1].split())[:50]}"
                else:
                    value = json_or_text(a.get(REPORTED_RESULT_ATTR))
                    result = {"return": value}
                    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                    summary = " ".join(text.split())[:60]
                self.hop(
                    client.end_ns,
                    "tool.result",
                    "tool",
                    "mcp_server",
                    {**result, "isError": bool(span.error), **mark},
                    step=7,
                    start_ns=span.start_ns,
                    end_ns=span.end_ns,
                    direction="error" if span.error else "response",
                    summary=summary,
                    **ids,
                )
                self.unmapped.add("the server's own clock in its reports of running its tools: spans keep the app's")
                return

    def trace(self, started_at: str) -> Trace:
        for root in self.roots:
            self.walk(root, None)
        hops = Hops(self.name)
        for _, _, spec in sorted(self.events, key=lambda e: (e[0], e[1])):
            hops.add(**spec)
        if not hops.hops:
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
            mode="mcp" if self.has_mcp else "direct",
            question=m["question"] or f"(imported OTLP trace {Path(self.name).name})",
            model={k: v for k, v in (("name", m["model"]), ("provider", m["provider"])) if v},
            server={"name": "mcp-server", **server} if self.has_mcp else None,
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
        return finish(meta, hops.hops, self.name)


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
