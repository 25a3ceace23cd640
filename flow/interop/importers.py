"""Recordings made by other tools, turned into traces this app can step through.

Two formats come in: a JSON-RPC message log in JSON Lines (the MCP Inspector's and MCP sniffers'
shape: one message a line, with its direction and time) and OTLP/JSON that follows the GenAI and MCP
semantic conventions (what `flow.otel` writes, and what other GenAI instrumentations send). Hops get
the kinds and steps the orchestrator would give them; what has no place in a trace is listed in
`meta.imported.unmapped`. Every problem with the input is a one-line `TraceError` naming the line.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import ValidationError

from flow.capture.recorder import json_bytes
from flow.interop.otlp import INVALID_ARGUMENTS, NO_RESPONSE, json_or_text
from flow.trace.files import (
    MAX_HOPS,
    MAX_TRACE_BYTES,
    TraceError,
    json_value_problem,
    parse_trace,
    read_limited,
    read_trace_bytes,
)
from flow.trace.model import (
    STEP_PHASE,
    Actor,
    Direction,
    Hop,
    ImportFormat,
    ImportInfo,
    Kind,
    Trace,
    TraceMeta,
    answer_step,
    as_dict,
    as_list,
    usage_counts,
)
from flow.trace.stats import hop_stats
from flow.trace.summaries import frame_kind, frame_summary, progress_summary, response_summary

FORMATS: tuple[str, ...] = ("auto", *get_args(ImportFormat))


# How a log names the way a message went, seen from the client (the Inspector is a client).
_DIRECTIONS = {
    "outgoing": "client", "send": "client", "sent": "client", "client_to_server": "client", "request": "client",
    "incoming": "server", "recv": "server", "received": "server", "server_to_client": "server",
    "response": "server",
}


# Requests and notifications the MCP spec has the server send; every other method goes client to server.
_SERVER_METHODS = {
    "sampling/createMessage", "elicitation/create", "roots/list", "notifications/message", "notifications/progress",
    "notifications/tools/list_changed", "notifications/resources/list_changed", "notifications/resources/updated",
    "notifications/prompts/list_changed",
}


# Set-up and listing belong to step 2, as the orchestrator records them; tools/call is 6 and its answer 7.
_STEP2_METHODS = {
    "initialize", "notifications/initialized", "server/discover", "tools/list", "resources/list",
    "resources/templates/list", "resources/read", "prompts/list", "prompts/get",
}


_CHAT_OPERATIONS = {"chat", "text_completion", "generate_content"}


def _method_step(method: str) -> int | None:
    return 6 if method == "tools/call" else 2 if method in _STEP2_METHODS else None


@dataclass
class _Hops:
    """Hops numbered in the order they are added; times in ms from the recording's start."""

    name: str
    hops: list[Hop] = field(default_factory=list)

    def add(self, kind: Kind, source: Actor, target: Actor, payload: Any, *, step: int | None, t_start_ms: float,
            t_end_ms: float, direction: Direction = "event", rnd: int = 0, jsonrpc_id: int | str | None = None,
            tool_call_id: str | None = None, usage: dict[str, Any] | None = None, summary: str = "",
            progress_of: int | str | None = None) -> None:
        # progress_of (the request a progress notification reports on) is an extra field the tap sets only when known
        known = {"progress_of": progress_of} if progress_of is not None else {}
        seq = len(self.hops) + 1
        try:
            self.hops.append(Hop(
                seq=seq, step=step, phase=None if step is None else STEP_PHASE[step], source=source,
                target=target, kind=kind, direction=direction, round=rnd, payload=payload,
                t_start_ms=round(t_start_ms, 3), t_end_ms=round(max(t_start_ms, t_end_ms), 3),
                bytes=len(json_bytes(payload)), jsonrpc_id=jsonrpc_id, tool_call_id=tool_call_id,
                usage=usage, summary=summary, explain=kind if step is None else f"step{step}.{kind}", **known,
            ))
        except ValidationError as exc:  # a value of the recording no trace can hold (a time beyond range, ...)
            err = exc.errors()[0]
            where = ".".join(str(part) for part in err["loc"])
            raise TraceError(f"{self.name}: hop {seq} ({kind}) would have {where}: {err['msg']}") from None


def _finish(meta: TraceMeta, hops: list[Hop], name: str) -> Trace:
    """Stats, then the same validation a saved trace gets: an imported trace is a trace like any other."""
    start = min((h.t_start_ms for h in hops), default=0.0)
    end = max((h.t_end_ms for h in hops), default=0.0)
    meta.stats = hop_stats(hops, end - start)
    return parse_trace(Trace(meta=meta, hops=hops).file_data(), name=name)


def _timestamp(value: Any, where: str) -> float | None:
    """Seconds since the epoch, from an ISO 8601 time or an epoch number (s, ms, µs or ns by size)."""
    if value is None:
        return None
    seconds: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        seconds = float(value)
        for scale in (1e18, 1e15, 1e12):
            if abs(value) >= scale / 1e1:
                seconds = value / (scale / 1e9)
                break
    elif isinstance(value, str):
        try:
            moment = dt.datetime.fromisoformat(value.strip())
            seconds = (moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)).timestamp()
        except (ValueError, OverflowError):
            pass
    if seconds is None:
        raise TraceError(f"{where}: timestamp {_quoted(value)} is neither an ISO 8601 time nor an epoch number")
    if not _EPOCH_RANGE[0] <= seconds <= _EPOCH_RANGE[1]:
        raise TraceError(f"{where}: timestamp {_quoted(value)} is not between the years 1970 and 9999")
    return seconds


_EPOCH_RANGE = (0.0, 253402300799.0)  # 1970-01-01 to 9999-12-31, what a datetime can show


def _quoted(value: Any, width: int = 60) -> str:
    """A value from the input, for a message: quoted, and clipped."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _rpc_key(value: Any, what: str, where: str) -> Any:
    """A JSON-RPC id or method as the log holds it, refused when it is not one (an object, an array, a fraction)."""
    if value is None or isinstance(value, str) or (what == "id" and type(value) is int):
        return value
    raise TraceError(f"{where}: a JSON-RPC {what} is a string{' or an integer' if what == 'id' else ''}, "
                     f"not {_quoted(value)}")


@dataclass
class _Line:
    lineno: int
    sender: str | None  # "client" or "server"; None when the log does not say
    time_s: float | None
    frame: dict[str, Any]


def _log_lines(text: str, name: str) -> list[_Line]:
    lines: list[_Line] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        where = f"{name} line {lineno}"
        entry = _json_line(raw, where)
        if isinstance(entry, list) or (isinstance(entry, dict) and "message" not in entry and
                                       any(k in entry for k in ("jsonrpc", "method", "result", "error"))):
            message, sender, time_s = entry, None, None  # a bare frame, or a bare batch
        elif not isinstance(entry, dict):
            raise TraceError(f"{where}: expected a JSON object, got {type(entry).__name__}")
        else:
            message = entry.get("message", entry.get("frame"))
            if isinstance(message, str):  # some loggers keep the frame as the text that crossed the wire
                message = _json_line(message, f"{where}: message")
            direction = entry.get("direction")
            sender = None
            if direction is not None:
                sender = _DIRECTIONS.get(str(direction).strip().lower().replace("-", "_").replace(" ", "_"))
                if sender is None:
                    raise TraceError(f"{where}: unknown direction {_quoted(direction)} (expected outgoing or incoming, "
                                     "client_to_server or server_to_client, send or recv)")
            time_s = _timestamp(entry.get("timestamp", entry.get("time", entry.get("ts"))), where)
        for frame in message if isinstance(message, list) else [message]:  # a JSON-RPC batch is several frames
            if not isinstance(frame, dict) or not any(k in frame for k in ("method", "result", "error")):
                raise TraceError(f"{where}: not a JSON-RPC message (no method, result or error)")
            _rpc_key(frame.get("id"), "id", where)
            _rpc_key(frame.get("method"), "method", where)
            lines.append(_Line(lineno, sender, time_s, frame))
    if not lines:
        raise TraceError(f"{name}: no JSON-RPC messages in the file")
    return lines


def _json_line(raw: str, where: str) -> Any:
    """One JSON value, refused in one line when it is not JSON or holds what no trace can (see `json_value_problem`)."""
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise TraceError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError as exc:  # a number too long to convert
        raise TraceError(f"{where}: not JSON ({exc})") from None
    problem = json_value_problem(value)
    if problem:
        raise TraceError(f"{where}: {problem}")
    return value


def import_jsonrpc_log(text: str, *, name: str) -> Trace:
    """A JSON-RPC message log, one message a line, as MCP frames between the MCP client and server.

    A line without a direction is placed by its method: requests and notifications the MCP spec has the
    server send go server to client, every other one client to server; a response goes back to whoever
    sent the request with its id (server to client when no such request is in the log)."""
    lines = _log_lines(text, name)
    times = [line.time_s for line in lines if line.time_s is not None]
    t0 = times[0] if times else 0.0
    out = _Hops(name)
    unmapped: list[str] = []
    pending: dict[tuple[str, Any], tuple[str, float, int | None, int, int]] = {}  # method, ms, step, round, line
    server: dict[str, Any] = {"name": "mcp-server", "transport": None, "protocol_version": None, "era": "handshake"}
    progress: dict[Any, tuple[Any, int | None, int, str]] = {}  # token -> request id, step, round, what it is
    tool_round, t_ms = 0, 0.0
    for line in lines:
        frame = line.frame
        t_ms = (line.time_s - t0) * 1000 if line.time_s is not None else t_ms
        kind = frame_kind(frame)
        if kind == "mcp.request" and frame.get("id") is None:
            kind = "mcp.notification"  # "id": null is discouraged and answered by no one
        method = frame.get("method")
        sender = line.sender
        if sender is None and method is not None:
            sender = "server" if method in _SERVER_METHODS else "client"
        elif sender is None:  # an answer goes back to whoever asked; the server answers unless only it asked
            asked_by_server = ("server", frame.get("id")) in pending and ("client", frame.get("id")) not in pending
            sender = "client" if asked_by_server else "server"
        source: Actor = "mcp_client" if sender == "client" else "mcp_server"
        target: Actor = "mcp_server" if sender == "client" else "mcp_client"
        if method is not None:
            step = _method_step(str(method))
            if method == "tools/call" and not any(p[0] == "tools/call" for p in pending.values()):
                tool_round += 1  # calls sent while others are still open belong to the same round
            rnd = tool_round if method == "tools/call" else 0
            params = as_dict(frame.get("params"))
            summary, progress_of = frame_summary(frame, None), None
            token = params.get("progressToken")
            token = token if isinstance(token, (str, int)) else None  # anything else names no request
            if kind == "mcp.request":
                pending[(sender, frame["id"])] = (str(method), t_ms, step, rnd, line.lineno)
                sent = as_dict(params.get("_meta")).get("progressToken")
                if isinstance(sent, (str, int)):
                    progress[sent] = (frame["id"], step, rnd, summary.split("(")[0])
            elif sender == "server" and token is not None and token in progress:  # tied to its request by token
                progress_of, step, rnd, what = progress[token]
                summary = progress_summary(params, what)
            elif sender == "server":  # a log line or the like, said while the server handles the latest request
                handling = [p for (side, _), p in pending.items() if side == "client"]
                step, rnd = (_method_step(handling[-1][0]), handling[-1][3]) if handling else (step, rnd)
            if method == "server/discover":
                server["era"] = "modern"
            # The 2026 protocol states its version on every request instead of agreeing on it once.
            stated = as_dict(params.get("_meta")).get("io.modelcontextprotocol/protocolVersion")
            server["protocol_version"] = server["protocol_version"] or stated
            out.add(kind, source, target, frame, step=step, t_start_ms=t_ms, t_end_ms=t_ms, rnd=rnd,
                    direction="request" if kind == "mcp.request" else "notification", jsonrpc_id=frame.get("id"),
                    summary=summary, progress_of=progress_of)
            continue
        asked = pending.pop(("client" if sender == "server" else "server", frame.get("id")), None)
        if asked is None:  # the log may start after the request was sent
            unmapped.append(f"line {line.lineno}: an answer to id {_quoted(frame.get('id'))}, whose request is not in the log")
        asked_method, t_start, req_step, rnd, _ = asked or (None, t_ms, None, 0, 0)
        result = frame.get("result")
        if asked_method in ("initialize", "server/discover") and isinstance(result, dict):
            info = as_dict(result.get("serverInfo") or as_dict(result.get("_meta")).get("io.modelcontextprotocol/serverInfo"))
            server.update(name=str(info.get("name") or server["name"]), server_info=info or None,
                          protocol_version=result.get("protocolVersion") or server["protocol_version"])
        out.add(kind, source, target, frame, step=answer_step(req_step), t_start_ms=t_start, t_end_ms=t_ms, rnd=rnd,
                direction="error" if kind == "mcp.error" else "response", jsonrpc_id=frame.get("id"),
                summary=frame_summary(frame, asked_method))
    for method, _, _, _, lineno in pending.values():
        unmapped.append(f"line {lineno}: {method} got no response in the log")
    if not times:
        unmapped.append("no timestamps: every hop is placed at 0 ms")
    unmapped.append("a JSON-RPC log holds only MCP frames: no question, model calls or answer")
    started = dt.datetime.fromtimestamp(t0, dt.timezone.utc).isoformat() if times else ""
    meta = TraceMeta(mode="mcp", question=f"(imported JSON-RPC log {Path(name).name})", server=server,
                     started_at=started, imported=ImportInfo(format="jsonrpc-jsonl", file=name, unmapped=unmapped))
    return _finish(meta, out.hops, name)


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
    raise ValueError(f"{_quoted(value)} is not an integer")


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
        raise TraceError(f"{where}: {_quoted(text)} is not a {size}-byte id in hex or base64")
    return raw.hex()


_KINDS = {"SPAN_KIND_INTERNAL": 1, "SPAN_KIND_SERVER": 2, "SPAN_KIND_CLIENT": 3, "SPAN_KIND_PRODUCER": 4,
          "SPAN_KIND_CONSUMER": 5}


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
            spans += _otlp_spans(_json_line(line, f"{name} line {lineno}"), f"{name} line {lineno}")
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
        unmapped.add(f"{key} of span {_quoted(span.name)}: not a list of messages")
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
                calls.append({"id": part.get("id"), "type": "function", "function": {
                    "name": part.get("name"),
                    "arguments": args if isinstance(args, str) else json.dumps(args or {}, ensure_ascii=False)}})
            elif kind == "tool_call_response":
                response = part.get("response", part.get("result"))
                out.append({"role": "tool", "tool_call_id": part.get("id"),
                            "content": response if isinstance(response, str) else json.dumps(response, ensure_ascii=False)})
            else:
                unmapped.add(f"message parts of type {_quoted(kind)}")
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
        self.roots = []
        for span in sorted(spans, key=lambda s: (s.start_ns, -s.end_ns)):
            parent = by_id.get(span.parent_id)
            if parent is not None and _loops(span, by_id):
                parent = None
                self.unmapped.add(f"span {_quoted(span.name)}: its parents form a loop, so it is taken as a root")
            (parent.children if parent else self.roots).append(span)
        self.has_mcp = any(s.method for s in spans)
        chats = sorted((s for s in spans if s.operation in _CHAT_OPERATIONS and not s.method), key=lambda s: s.start_ns)
        self.chat_round = {s.span_id: i for i, s in enumerate(chats, 1)}
        self.chat_starts = [s.start_ns for s in chats]
        self.events: list[tuple[int, int, dict[str, Any]]] = []  # (when it happened, walk order, hop)
        self.meta: dict[str, Any] = {"question": None, "answer": None, "error": None, "model": None, "provider": None,
                                     "server": {}}

    def ms(self, ns: int) -> float:
        return (ns - self.t0) / 1e6

    def hop(self, when_ns: int, kind: Kind, source: Actor, target: Actor, payload: Any, *, step: int | None,
            start_ns: int, **extra: Any) -> None:
        self.events.append((when_ns, len(self.events), dict(kind=kind, source=source, target=target, payload=payload,
                                                            step=step, t_start_ms=self.ms(start_ns),
                                                            t_end_ms=self.ms(when_ns), **extra)))

    def round_at(self, ns: int) -> int:
        return sum(start <= ns for start in self.chat_starts)

    def walk(self, span: _Span, parent: _Span | None) -> None:
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
            self.hop(span.start_ns, "user.message", "user", "app", {"content": question}, step=1,
                     start_ns=span.start_ns, summary=question)

    def agent_end(self, span: _Span) -> None:
        rnd = self.round_at(span.end_ns)
        if span.error:
            self.meta["error"] = span.error[1] or span.error[0]
            self.hop(span.end_ns, "error", "app", "user", {"error": span.error[0], "message": span.error[1]}, step=10,
                     start_ns=span.end_ns, direction="error", rnd=rnd, summary=self.meta["error"])
            return
        messages = _openai_messages(_messages_attr(span, "gen_ai.output.messages", self.unmapped), self.unmapped)
        answer = _last_text(messages, "assistant")
        if answer is not None:
            self.meta["answer"] = answer
            self.hop(span.end_ns, "app.answer", "app", "user", {"content": answer}, step=10, start_ns=span.end_ns,
                     rnd=rnd, summary=answer[:80])

    def chat(self, span: _Span) -> None:
        a = span.attrs
        rnd = self.chat_round[span.span_id]
        self.meta["model"] = self.meta["model"] or a.get("gen_ai.request.model")
        self.meta["provider"] = self.meta["provider"] or a.get("gen_ai.provider.name")
        messages = [{"role": "system", "content": p.get("content")} for p in
                    as_list(json_or_text(a.get("gen_ai.system_instructions"))) if isinstance(p, dict)]
        messages += _openai_messages(_messages_attr(span, "gen_ai.input.messages", self.unmapped), self.unmapped)
        body: dict[str, Any] = {"model": a.get("gen_ai.request.model"), "messages": messages}
        tools = json_or_text(a.get("gen_ai.tool.definitions"))
        if isinstance(tools, list) and tools:
            body["tools"] = [{"type": t.get("type", "function"), "function": {k: v for k, v in t.items() if k != "type"}}
                             for t in tools if isinstance(t, dict)]
        if a.get("gen_ai.request.stream"):
            body["stream"] = True
            self.unmapped.add("streamed chunks: the spans hold the assembled message, shown as one response")
        if self.meta["question"] is None:
            self.meta["question"] = _last_text(messages, "user")
        self.hop(span.start_ns, "llm.request", "app", "model", {"body": body}, step=3 if rnd == 1 else 8,
                 start_ns=span.start_ns, direction="request", rnd=rnd,
                 summary=f"chat {body['model']}: {len(messages)} messages, {len(body.get('tools') or [])} tools")
        if span.error:
            status = _code(span.error[0])
            self.hop(span.end_ns, "llm.error", "model", "app", {"status": status, "error": span.error[0],
                     "message": span.error[1]}, step=3 if rnd == 1 else 8, start_ns=span.start_ns, direction="error",
                     rnd=rnd, summary=f"{span.error[0]}: {span.error[1]}".strip(": "))
            return
        outputs = _openai_messages(_messages_attr(span, "gen_ai.output.messages", self.unmapped), self.unmapped)
        choices = [{"index": i, "message": {k: v for k, v in m.items() if k != "finish_reason"},
                    "finish_reason": m.get("finish_reason")} for i, m in enumerate(outputs)]
        tokens = {"prompt_tokens": a.get("gen_ai.usage.input_tokens"), "completion_tokens": a.get("gen_ai.usage.output_tokens")}
        usage = usage_counts(tokens)  # the counts that are counts, as the recorder keeps them
        if usage:
            usage["total_tokens"] = sum(v or 0 for v in usage.values())
        response = {"id": a.get("gen_ai.response.id"), "model": a.get("gen_ai.response.model"), "choices": choices,
                    "usage": usage}
        asks = any(c["message"].get("tool_calls") or c["finish_reason"] == "tool_calls" for c in choices)
        self.hop(span.end_ns, "llm.response", "model", "app", {"status": 200, "body": response}, step=4 if asks else 9,
                 start_ns=span.start_ns, direction="response", rnd=rnd, usage=usage,
                 summary=response_summary(response))

    def tool(self, span: _Span) -> None:
        a = span.attrs
        name = str(a.get("gen_ai.tool.name") or span.name.removeprefix("execute_tool ").strip() or "unknown")
        call_id = a.get("gen_ai.tool.call.id")
        if not call_id:
            call_id = f"call_{span.span_id[:8]}"
            self.unmapped.add("execute_tool spans without gen_ai.tool.call.id: ids made up from the span id")
        call_id = str(call_id)
        args = json_or_text(a.get("gen_ai.tool.call.arguments"))
        tool_call = {"id": call_id, "type": "function", "function": {
            "name": name, "arguments": args if isinstance(args, str) else json.dumps(args or {}, ensure_ascii=False)}}
        rnd = self.round_at(span.start_ns)
        over_mcp = any(c.method == "tools/call" for c in span.children)
        if span.error and span.error[0] == INVALID_ARGUMENTS:  # refused by the app before anything ran
            self.hop(span.start_ns, "error", "app", "app", {"tool_call": tool_call, "error": span.error[1],
                     "sent_back_to_model": True}, step=5, start_ns=span.start_ns, direction="error", rnd=rnd,
                     tool_call_id=call_id, summary=f"bad arguments: {span.error[1]}")
            return
        arguments = args if isinstance(args, dict) else {}
        self.hop(span.start_ns, "translate.reverse", "app", "mcp_client" if over_mcp else "tool",
                 {"tool_call": tool_call, "call_request": {"name": name, "arguments": arguments}}, step=5,
                 start_ns=span.start_ns, direction="request", rnd=rnd, tool_call_id=call_id,
                 summary=f"call {name}({', '.join(f'{k}={v}' for k, v in arguments.items())})")
        if not over_mcp:
            self.hop(span.start_ns, "tool.invoke", "app", "tool", {"function": name, "kwargs": arguments}, step=6,
                     start_ns=span.start_ns, direction="request", rnd=rnd, tool_call_id=call_id,
                     summary=f"{name}({', '.join(f'{k}={v}' for k, v in arguments.items())})")
        self.tool_result(span, call_id, rnd, over_mcp)

    def tool_result(self, span: _Span, call_id: str, rnd: int, over_mcp: bool) -> None:
        source: Actor = "mcp_client" if over_mcp else "tool"
        error = span.error
        if error and _code(error[0]) is not None:  # a JSON-RPC error code: no result came back
            self.hop(span.end_ns, "tool.result", source, "app", {"error": {"code": _code(error[0]), "message": error[1]}},
                     step=7, start_ns=span.start_ns, direction="error", rnd=rnd, tool_call_id=call_id,
                     summary=f"protocol error {error[0]}: {error[1]}")
            return
        if error and error[0] != "tool_error":
            if not over_mcp:  # over MCP, the tools/call span's own error hop says it
                self.hop(span.end_ns, "error", "tool", "app", {"error": error[0], "message": error[1]}, step=7,
                         start_ns=span.start_ns, direction="error", rnd=rnd, tool_call_id=call_id,
                         summary=error[1] or error[0])
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
        self.hop(span.end_ns, "tool.result", source, "app", payload, step=7, start_ns=span.start_ns,
                 direction="error" if error and not over_mcp else "response", rnd=rnd, tool_call_id=call_id,
                 summary=("isError: " if error else "") + " ".join(str(text).split())[:60])

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
            params = {"name": a.get("gen_ai.tool.name"), "arguments": json_or_text(a.get("gen_ai.tool.call.arguments")) or {}}
        elif a.get("gen_ai.prompt.name"):
            params = {"name": a["gen_ai.prompt.name"]}
        elif a.get("mcp.resource.uri"):
            params = {"uri": a["mcp.resource.uri"]}
        frame: dict[str, Any] = {"jsonrpc": "2.0", **({"id": rpc_id} if rpc_id is not None else {}), "method": method}
        if params:
            frame["params"] = params
        sender_is_client = method not in _SERVER_METHODS
        source: Actor = "mcp_client" if sender_is_client else "mcp_server"
        target: Actor = "mcp_server" if sender_is_client else "mcp_client"
        step = _method_step(method)
        rnd = self.round_at(span.start_ns) if method == "tools/call" else 0
        extra: dict[str, Any] = {}
        if parent is not None and parent.method and parent.kind == 2:  # sent while the server handled a request
            step = _method_step(parent.method)
            rnd = self.round_at(parent.start_ns) if parent.method == "tools/call" else 0
            if method == "notifications/progress":
                extra["progress_of"] = _rpc_id(parent.attrs.get("jsonrpc.request.id"))
            self.unmapped.add("parameters of notifications (progress, log text): the conventions do not record them")
        kind: Kind = "mcp.request" if rpc_id is not None else "mcp.notification"
        self.hop(span.start_ns, kind, source, target, frame, step=step, start_ns=span.start_ns, rnd=rnd,
                 direction="request" if rpc_id is not None else "notification", jsonrpc_id=rpc_id,
                 summary=frame_summary(frame, None) if params else method, **extra)
        if rpc_id is None:
            return
        error = span.error
        if error and error[0] == NO_RESPONSE:
            return
        if error and _code(error[0]) is not None:
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": rpc_id, "error": {"code": _code(error[0]), "message": error[1]}}
        elif error and error[0] != "tool_error":
            self.hop(span.end_ns, "error", target, source, {"error": error[0], "message": error[1]},
                     step=answer_step(step), start_ns=span.start_ns, direction="error", rnd=rnd,
                     summary=error[1] or error[0])
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
                self.unmapped.add("results of MCP requests other than tools/call: the conventions do not record "
                                  "them, so their result frames are empty")
            reply = {"jsonrpc": "2.0", "id": rpc_id, "result": result}
        reply_kind = frame_kind(reply)
        self.hop(span.end_ns, reply_kind, target, source, reply, step=answer_step(step), start_ns=span.start_ns,
                 direction="error" if reply_kind == "mcp.error" else "response", rnd=rnd, jsonrpc_id=rpc_id,
                 summary=frame_summary(reply, method))

    def trace(self, started_at: str) -> Trace:
        for root in self.roots:
            self.walk(root, None)
        hops = _Hops(self.name)
        for _, _, spec in sorted(self.events, key=lambda e: (e[0], e[1])):
            hops.add(**spec)
        if not hops.hops:
            raise TraceError(f"{self.name}: none of its spans is a GenAI or MCP span, so there is nothing to step through")
        if self.other_spans:
            names = ", ".join(_quoted(n) + (f" ×{k}" if k > 1 else "") for n, k in self.other_spans.most_common(10))
            more = len(self.other_spans) - 10
            self.unmapped.add(f"spans neither GenAI nor MCP: {names}" + (f" and {more} other names" if more > 0 else ""))
        m = self.meta
        server = {k: v for k, v in m["server"].items() if v is not None}
        meta = TraceMeta(
            mode="mcp" if self.has_mcp else "direct",
            question=m["question"] or f"(imported OTLP trace {Path(self.name).name})",
            model={k: v for k, v in (("name", m["model"]), ("provider", m["provider"])) if v},
            server={"name": "mcp-server", **server} if self.has_mcp else None,
            started_at=started_at, outcome="error" if m["error"] else "ok", answer=m["answer"], error=m["error"],
            imported=ImportInfo(format="otlp-json", file=self.name, unmapped=sorted(self.unmapped) + [
                "wire frames and HTTP bodies are rebuilt from span attributes, not the bytes that were sent"]),
        )
        return _finish(meta, hops.hops, self.name)


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


def _text(data: bytes, name: str) -> str:
    if len(data) > MAX_TRACE_BYTES:
        raise TraceError(f"{name}: {len(data) / 1e6:.0f} MB is over the {MAX_TRACE_BYTES // 2**20} MB limit")
    if not data.strip():
        raise TraceError(f"{name}: the file is empty")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TraceError(f"{name}: not a text file (binary data, or not UTF-8)") from None


def detect_format(text: str) -> ImportFormat | Literal["trace"]:
    """By content: OTLP/JSON, a JSON-RPC log, or else a trace of this app (whose loader explains any problem)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    if '"resourceSpans"' in first[:4096] or '"resourceSpans"' in text[:4096]:
        return "otlp-json"
    if '"format_version"' in text[:4096]:
        return "trace"
    try:
        entry = json.loads(first)
    except json.JSONDecodeError:
        return "trace"  # not one JSON value a line: a (broken) trace file, told as such
    if isinstance(entry, list) and entry:  # a JSON-RPC batch
        entry = entry[0]
    if isinstance(entry, dict) and any(k in entry for k in ("direction", "message", "jsonrpc", "method", "result")):
        return "jsonrpc-jsonl"
    return "trace"


def import_bytes(data: bytes, *, name: str, fmt: str = "auto") -> Trace:
    """A recording in one of `FORMATS` (or, with "auto", a trace of this app too) as a trace."""
    text = _text(data, name)
    try:
        chosen = detect_format(text) if fmt == "auto" else fmt
        if chosen == "trace":
            return read_trace_bytes(data, name=name)
        if chosen == "otlp-json":
            return import_otlp_json(text, name=name)
        if chosen == "jsonrpc-jsonl":
            # Every message becomes a hop: count the lines before parsing any, so a huge log is refused at once.
            messages = sum(1 for line in text.splitlines() if line.strip())
            if messages > MAX_HOPS:
                raise TraceError(f"{name}: {messages:,} messages is over the limit of {MAX_HOPS:,} hops for a trace")
            return import_jsonrpc_log(text, name=name)
    except RecursionError:
        raise TraceError(f"{name}: nested too deeply to import") from None
    raise TraceError(f"unknown import format {fmt!r} (expected one of {', '.join(FORMATS)})")


def import_file(path: str | Path, *, fmt: str = "auto") -> Trace:
    """A recording from a file, read as a trace file is: a regular file within the size limit (`read_limited`)."""
    return import_bytes(read_limited(path, what="file"), name=str(path), fmt=fmt)
