"""The MCP taps: a transport wrapper that records every JSON-RPC frame, and over HTTP a second tap
on the HTTP client that notes what only HTTP says: the session id, failed statuses, and which JSON-RPC
answers really arrived (the SDK makes up an error frame when none did).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import Any, Self

import anyio
import httpx2
from mcp.client import Transport

# The SDK's stream protocols, which its own transports are typed by: `mcp.client._transport` exports them (its
# `__all__`), and no public module does yet.
from mcp.client._transport import ReadStream, TransportStreams, WriteStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from flow.capture.recorder import Recorder
from flow.text.errors import ServerFault
from flow.trace import hops
from flow.trace.factory import json_bytes
from flow.trace.pairing import Pairing, Request
from flow.trace.payloads import ErrorPayload, HttpExchange
from flow.trace.redact import redact_headers, redact_url
from flow.trace.reports import RefusedReport, placed, read_report, refused_note
from flow.trace.rounds import reply_step
from flow.trace.steps import Step
from flow.trace.summaries import frame_kind, frame_summary, progress_summary

EXCERPT_CHARS = 200  # how much of a line that is not JSON-RPC a hop keeps: a flood is not copied into the trace


MAX_FRAME_BYTES = 32 << 20


"""One JSON-RPC message from a server; a larger one ends the session. A tool result travels twice in one message
(`content` text and `structuredContent`), so a 10 MB result is a 20 MB frame: it is recorded clipped, not refused."""


MAX_PINGS_IN_A_ROW = 1_000


"""Ping requests a server may send with nothing else between them before the session ends as a flood: a keep-alive
pings once in a while, and the SDK answers each at once, so a thousand in a row is a server pinging in a loop."""


SSE_EVENT_SLACK = 64 << 10  # room for an event's own lines beside its data, in the SDK's count of its size


def frame_json(message: SessionMessage) -> dict[str, Any]:
    """The frame as JSON values, as the stdio transport serialises it (the recorder's compact JSON of this is
    that text, byte for byte): one pass, where the text and a parse of it took two."""
    frame: dict[str, Any] = message.message.model_dump(by_alias=True, exclude_unset=True, mode="json")
    return frame


_STEP_2 = ("initialize", "notifications/initialized", "server/discover", "tools/list")


"""A session's set-up and its tool listing belong to step 2 whenever they cross: over HTTP the notification that ends
the set-up is posted in the background, and may go out after the client has moved on; the SDK lists the tools after a
call whose output schema it has not seen."""


class FrameTap:
    """Records frames in both directions and pairs responses with their requests by id; a frame from the server
    larger than `max_frame_bytes` is not recorded or handed on: it ends the session as a fault."""

    def __init__(self, recorder: Recorder, *, max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
        self.recorder = recorder
        self.max_frame_bytes = max_frame_bytes
        self.pairing = Pairing()  # the client's requests, until their answers: what each answer answers
        self.http: McpHttpTap | None = None  # over Streamable HTTP, the tap on the HTTP client
        self.fault: ServerFault | None = None  # the first thing a stdio server did that ends the session
        self.stderr_bytes = 0  # how much a stdio server wrote to stderr, set when the session ends
        self.stopped: str | None = None  # what an in-process server raised when its run failed (it is gone then)
        self._calls: list[tuple[str, str]] = []  # (tool name, tool_call_id) the app is about to send as tools/call
        # Bytes of an answer the server has begun to send and the client has not read whole (None: cannot be told):
        # over stdio those waiting in the pipe, over HTTP those of a message not yet ended; set by whoever connects.
        # More than none when a request timed out means the server was answering, not silent.
        self.unread_bytes: Callable[[], int | None] = lambda: None
        self.reports = 0  # execution reports turned into hops
        self.refused_reports = 0
        self.pings_in_a_row = 0  # the server's ping requests since its last frame of another kind

    def expect_call(self, name: str, tool_call_id: str) -> None:
        """The app is about to call this tool for the model's call `tool_call_id`: the next tools/call of that name
        carries it out (the same rule `flow.trace.pairing.exchanges` pairs a trace by)."""
        self._calls.append((name, tool_call_id))

    def forget_call(self, tool_call_id: str) -> None:
        """The call is over; if it never reached the wire, it must not claim a later tools/call."""
        self._calls = [c for c in self._calls if c[1] != tool_call_id]

    def server_stopped(self, said: str) -> None:
        """An in-process server's run failed with this (its connection is closed now, as a dead process's is)."""
        self.stopped = said[:200]

    def _pending_step(self) -> Step | None:
        """The step of the oldest unanswered request: where a failure to answer it belongs."""
        oldest = self.pairing.oldest()
        return oldest.answer_step if oldest is not None else self.recorder.step

    def record_fault(self, fault: ServerFault, payload: ErrorPayload) -> None:
        """Remember what the server did and record it where it happened, as the server's hop."""
        self.fault = self.fault or fault
        if self.recorder.enabled:
            self.recorder.add(hops.server_failed(payload, str(fault), step=self._pending_step()))

    def awaited(self, jsonrpc_id: Any) -> tuple[Step | None, float] | None:
        """For a request still waiting: the step its answer belongs to, and when it was sent."""
        req = self.pairing.awaited("client", jsonrpc_id)
        return None if req is None else (req.answer_step, req.t_ms)

    def outgoing(self, message: SessionMessage) -> None:
        if self.http is not None:
            return  # over HTTP a frame is recorded as it is POSTed: the transport does not send every one
        if self.recorder.enabled:
            self.sent(frame_json(message))

    def sent(self, frame: dict[str, Any], text: str | None = None) -> None:
        """Record one frame the client sent: its JSON values, and its text where the transport wrote one."""
        rec = self.recorder
        if not rec.enabled:
            return
        method = frame.get("method")
        step = Step.CALL_TOOL if method == "tools/call" else Step.LIST_TOOLS if method in _STEP_2 else rec.step
        method_answered, t_start = None, None
        if "id" in frame and "method" not in frame:
            # The client's answer to a request the server sent it (sampling, elicitation, roots, ping): the step it
            # was asked in, and its method for the hop's line.
            asked_by_server = self.pairing.reply("server", frame.get("id"))
            if asked_by_server is not None:
                method_answered, t_start, step = asked_by_server.method, asked_by_server.t_ms, asked_by_server.step
        if "id" in frame and "method" in frame:
            tool_call_id = None
            if step is Step.CALL_TOOL and self._calls:
                name = (frame.get("params") or {}).get("name")
                i = next((i for i, (n, _) in enumerate(self._calls) if n == name), None)
                tool_call_id = self._calls.pop(i)[1] if i is not None else None
            self.pairing.request(
                "client",
                frame["id"],
                frame["method"],
                frame.get("params"),
                step=step,
                t_ms=rec.now_ms(),
                tag=tool_call_id,
            )
        sent = hops.frame(frame, source="mcp_client", target="mcp_server", step=step, method=method_answered)
        rec.add(sent, t_start_ms=t_start, wire_text=text)

    def incoming(self, item: SessionMessage | Exception) -> None:
        rec = self.recorder
        if isinstance(item, Exception) and self.http is None:
            self.record_fault(*_unreadable(item, self.unanswered))
            return
        if not rec.enabled:
            return
        if isinstance(item, Exception):
            unreadable: ErrorPayload = {"error": type(item).__name__, "message": str(item)}
            rec.add(hops.server_failed(unreadable, f"unreadable frame: {type(item).__name__}", step=None))
            return
        frame = frame_json(item)
        self.received(frame)
        self._count_pings(frame)

    def _count_pings(self, frame: dict[str, Any]) -> None:
        """A server that sends ping after ping and nothing else ends the session, told as the ping flood it is."""
        if frame.get("method") != "ping" or "id" not in frame:
            self.pings_in_a_row = 0
            return
        self.pings_in_a_row += 1
        if self.pings_in_a_row >= MAX_PINGS_IN_A_ROW:
            during = self.unanswered[0] if self.unanswered else ""
            fault = ServerFault("ping_flood", count=self.pings_in_a_row, during=during)
            self.record_fault(fault, {"error": "ping flood", "pings": self.pings_in_a_row, "method": during})

    def received(self, frame: dict[str, Any]) -> None:
        """Record one frame from the server (its JSON values): an answer paired with its request, a notification in
        the step it came in."""
        rec = self.recorder
        wire = json_bytes(frame)  # what the recorder would make of it: measured here, and handed to it
        if len(wire) > self.max_frame_bytes:
            self.record_fault(*self.oversized(len(wire), wire[:EXCERPT_CHARS].decode("utf-8", errors="replace")))
            return
        kind = frame_kind(frame)
        if kind == "mcp.error" and self.http is not None and not self.http.carried(frame.get("id")):
            # The SDK's HTTP transport makes up an error frame when an exchange fails; the HTTP tap has
            # recorded the failure itself, and the request stays unanswered, as it is.
            return
        method, t_start, step = None, None, None
        progress_of = None
        summary = None
        if kind in ("mcp.response", "mcp.error"):
            asked = self.pairing.reply("client", frame.get("id"))
            if asked is not None:
                method, t_start, step = asked.method, asked.t_ms, reply_step(asked.step, frame)
                if method == "tools/call" and kind == "mcp.response":
                    refused = self._reported(asked, frame.get("result"), len(wire))
                    if refused:
                        summary = refused_note(frame_summary(frame, method), refused)
        elif kind == "mcp.request":
            # The server asks the client something in the middle of what it is doing (2025-11-25): the step the
            # client's oldest open request is in (a tools/call: step 6), else the app's.
            oldest = self.pairing.oldest()
            step = oldest.step if oldest is not None and oldest.side == "client" else rec.step
            self.pairing.request(
                "server", frame.get("id"), str(frame.get("method")), frame.get("params"), step=step, t_ms=rec.now_ms()
            )
        elif kind == "mcp.notification":
            step = rec.step  # what the server says while the app is in a step belongs to that step
            params = frame.get("params") or {}
            if frame.get("method") == "notifications/progress":
                # Grouped with the request that asked for progress, by its token.
                asked = self.pairing.progress(params.get("progressToken"))
                if asked is not None:
                    progress_of, step, summary = asked.id, asked.step, progress_summary(params, asked.what)
        got = hops.frame(
            frame,
            source="mcp_server",
            target="mcp_client",
            step=step,
            method=method,
            summary=summary or "",
            progress_of=progress_of,
        )
        rec.add(got, t_start_ms=t_start, wire_text=wire)

    def _reported(self, asked: Request, result: Any, frame_bytes: int) -> str | None:
        """The server's own account of running the tool, if its answer carries one (`flow.trace.reports`), as two
        hops before the answer's; or why it was refused."""
        try:
            report = read_report(result, tool=asked.params.get("name"), frame_bytes=frame_bytes)
        except RefusedReport as exc:
            self.refused_reports += 1
            return str(exc)
        if report is None:
            return None
        self.reports += 1
        rec = self.recorder
        began, ended = placed(asked.t_ms, rec.now_ms(), report)  # the server's own times stay in the payloads
        invoked, returned = hops.run_reported(report, jsonrpc_id=asked.id, call_id=asked.tag)
        rec.add(invoked, t_start_ms=began, t_end_ms=began)
        rec.add(returned, t_start_ms=began, t_end_ms=ended)
        return None

    @property
    def unanswered(self) -> list[str]:
        """The methods of the client's requests still waiting for the server's answer."""
        return [req.method for req in self.pairing.unanswered if req.side == "client"]

    def oversized(self, size: int, start: str, *, at_least: bool = False) -> tuple[ServerFault, ErrorPayload]:
        """A message over the cap: what the user is told, and what the hop keeps (its size and first characters)."""
        fault = ServerFault(
            "message_too_large",
            size_bytes=size,
            limit_bytes=self.max_frame_bytes,
            at_least=at_least,
            during=self.unanswered[0] if self.unanswered else "",
        )
        excerpt = start[:EXCERPT_CHARS] + ("…" if size > EXCERPT_CHARS else "")
        return fault, {
            "error": "message too large",
            "bytes": size,
            "at_least": at_least,
            "limit_bytes": self.max_frame_bytes,
            "line_start": excerpt,
        }


def _unreadable(exc: Exception, unanswered: list[str]) -> tuple[ServerFault, ErrorPayload]:
    """A line the transport could not read as JSON-RPC: what the user is told, and what the hop keeps."""
    line: Any = None
    reason = f"{type(exc).__name__}: {exc}"
    errors = exc.errors() if isinstance(exc, ValidationError) else []
    if errors:
        line = errors[0].get("input")
        reason = (
            errors[0]["msg"] if errors[0].get("type") == "json_invalid" else "valid JSON, but not a JSON-RPC message"
        )
    text = (
        line if isinstance(line, str) else json.dumps(line, ensure_ascii=False, default=str) if line is not None else ""
    )
    excerpt = text[:EXCERPT_CHARS] + ("…" if len(text) > EXCERPT_CHARS else "")
    shown = " ".join(excerpt.split())[:80]
    fault = ServerFault("not_jsonrpc", shown=shown, reason=reason, during=unanswered[0] if unanswered else "")
    return fault, {"error": "not JSON-RPC", "reason": reason, "line_start": excerpt, "line_chars": len(text)}


class _TapRead:
    """A transport's read stream, each message shown to the tap before the client reads it."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception], tap: FrameTap) -> None:
        self._inner, self._tap = inner, tap

    async def receive(self) -> SessionMessage | Exception:
        item = await self._inner.receive()
        self._tap.incoming(item)
        if self._tap.fault is not None:
            # Only JSON-RPC may come out of a server, each message within the cap: end the session now, not at
            # the timeout, and read no more of a flood.
            raise anyio.EndOfStream
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> None:
        await self.aclose()


class _TapWrite:
    """A transport's write stream, each message shown to the tap before it is sent."""

    def __init__(self, inner: WriteStream[SessionMessage], tap: FrameTap) -> None:
        self._inner, self._tap = inner, tap

    async def send(self, item: SessionMessage, /) -> None:
        self._tap.outgoing(item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> None:
        await self.aclose()


class TappedTransport:
    """A `Transport` that hands `mcp.Client` the inner transport's streams, wrapped by a tap."""

    def __init__(self, inner: Transport, tap: FrameTap) -> None:
        self._inner, self.tap = inner, tap

    async def __aenter__(self) -> TransportStreams:
        read, write = await self._inner.__aenter__()
        return _TapRead(read, self.tap), _TapWrite(write, self.tap)

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)


def _answer_ids(text: str) -> list[Any]:
    """Ids of the JSON-RPC answers in an HTTP body: one JSON message, or the data lines of an event stream."""
    ids = []
    for chunk in (
        [text]
        if text.lstrip().startswith("{")
        else [line[5:] for line in text.splitlines() if line.startswith("data:")]
    ):
        try:
            message = json.loads(chunk)
        except json.JSONDecodeError:
            continue
        for m in message if isinstance(message, list) else [message]:
            if isinstance(m, dict) and "id" in m and ("result" in m or "error" in m):
                ids.append(m["id"])
    return ids


class FrameTooLarge(httpx2.StreamError):
    """A line of a server's HTTP body grew past the message cap: the body is read no further. A `StreamError`,
    because that is what the SDK's transport takes as a body it could not read (it then fails the request)."""


class _BodyTap(httpx2.AsyncByteStream):
    """Passes a response body through unchanged, noting the answers in it and how it ended; a line (a JSON body,
    or an event's data) longer than the message cap is not passed on: the tap records it and stops reading."""

    def __init__(self, inner: Any, http: McpHttpTap, exchange: HttpExchange) -> None:
        self._inner, self._http, self._exchange = inner, http, exchange
        self._pending: list[bytes] = []  # the line not yet ended
        self._pending_bytes = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                self._take(chunk)
                self._http.arriving[id(self)] = self._pending_bytes
                yield chunk
        except FrameTooLarge:
            raise
        except Exception as exc:
            self._http.failed(self._exchange, exc)
            raise
        self._http.saw_answers(_answer_ids(b"".join(self._pending).decode("utf-8", errors="replace")))
        self._pending, self._pending_bytes = [], 0
        self._http.arriving.pop(id(self), None)

    def _take(self, chunk: bytes) -> None:
        """Whole lines are read for answers; a line is joined from its pieces once, when it ends."""
        limit = self._http.frames.max_frame_bytes
        if b"\n" not in chunk:
            self._pending.append(chunk)
            self._pending_bytes += len(chunk)
            if self._pending_bytes > limit:
                self._too_large(self._pending_bytes, b"".join(self._pending[:1]), at_least=True)
            return
        head, _, rest = chunk.rpartition(b"\n")
        text = b"".join([*self._pending, head])
        longest = max(text.split(b"\n"), key=len)
        if len(longest) > limit:
            self._too_large(len(longest), longest)
        self._http.saw_answers(_answer_ids(text.decode("utf-8", errors="replace")))
        self._pending, self._pending_bytes = ([rest] if rest else []), len(rest)
        if self._pending_bytes > limit:
            self._too_large(self._pending_bytes, rest, at_least=True)

    def _too_large(self, size: int, start: bytes, *, at_least: bool = False) -> None:
        frames = self._http.frames
        text = start[: EXCERPT_CHARS + 8].decode("utf-8", errors="replace")
        frames.record_fault(*frames.oversized(size, text.removeprefix("data:").strip(), at_least=at_least))
        raise FrameTooLarge(str(frames.fault))

    async def aclose(self) -> None:
        await self._inner.aclose()


class McpHttpTap(httpx2.AsyncBaseTransport):
    """Wraps the HTTP transport the MCP client is given (composition, as the model side does).

    The JSON-RPC frames themselves are recorded by `FrameTap`; this records what only HTTP
    says: a failed status or a broken connection, as an error hop where it happened, and the
    session id the server assigned. Request headers are never recorded: one holds the token."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, frames: FrameTap) -> None:
        # The frame tap's recorder is the one to use: a session kept open across runs hands it each run's.
        self._inner, self.frames = inner, frames
        self.session_id: str | None = None
        self.failure: HttpExchange | None = None  # the first failed exchange: status or exception
        self.reached = False  # whether the server ever answered over HTTP
        self._get_failed = False
        self._closing = False  # the client ended the session: its event stream closing is no failure
        self._answered: set[str] = set()
        self._blind = False  # a compressed body cannot be read here: then every frame is taken as sent
        # Per body still being read: the bytes of its message not yet ended (an answer on its way). A body cut off
        # mid-message keeps its count, so a timeout that cut it is still told as an answer arriving.
        self.arriving: dict[int, int] = {}

    def arriving_bytes(self) -> int:
        """The bytes of messages the server has begun and not ended, in every body being read."""
        return sum(self.arriving.values())

    def carried(self, jsonrpc_id: Any) -> bool:
        return self._blind or json.dumps(jsonrpc_id) in self._answered

    def saw_answers(self, ids: list[Any]) -> None:
        self._answered.update(json.dumps(i) for i in ids)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        sent: Any = None
        if request.method == "POST":
            text = request.content.decode("utf-8", errors="replace")
            with contextlib.suppress(ValueError):
                sent = json.loads(text)
            if isinstance(sent, dict):
                # The POST body is the frame exactly as it went out. Recording here, not where the client
                # wrote it, leaves out what the transport never sends (at 2026-07-28 a cancel is a closed stream).
                self.frames.sent(sent, text)
        exchange: HttpExchange = {"method": request.method, "url": redact_url(str(request.url))}
        self._closing = self._closing or request.method == "DELETE"
        if isinstance(sent, dict):
            exchange["jsonrpc"] = {k: sent[k] for k in ("id", "method") if k in sent}
        try:
            response = await self._inner.handle_async_request(request)
        except Exception as exc:
            self.failed(exchange, exc)
            raise
        self.reached = True
        self.session_id = response.headers.get("mcp-session-id") or self.session_id
        self._blind = self._blind or response.headers.get("content-encoding", "identity").lower() != "identity"
        if response.status_code >= 400:
            content = await _read_at_most(response, self.frames.max_frame_bytes)
            body = content.decode("utf-8", errors="replace")
            self.saw_answers(_answer_ids(body))  # a JSON-RPC error in an error status's body did arrive
            with contextlib.suppress(json.JSONDecodeError):
                body = json.loads(body)
            self.failed(
                {
                    **exchange,
                    "status": response.status_code,
                    "response_headers": redact_headers(response.headers.multi_items()),
                    "response_body": body,
                },
                None,
            )
            # Handed on decoded, as read: without the headers that described the bytes on the wire.
            headers = [
                (k, v)
                for k, v in response.headers.multi_items()
                if k.lower() not in ("content-length", "content-encoding")
            ]
            return httpx2.Response(
                response.status_code, headers=headers, content=content, request=request, extensions=response.extensions
            )
        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=_BodyTap(response.stream, self, exchange),
            request=request,
            extensions=response.extensions,
        )

    def failed(self, exchange: HttpExchange, exc: BaseException | None) -> None:
        if exc is not None:
            exchange = {**exchange, "exception": type(exc).__name__, "message": str(exc)}
        if self._closing or (exchange["method"] == "GET" and self._get_failed):
            return  # ending the session, or the SDK retrying its event stream: nothing new to learn
        self._get_failed = self._get_failed or exchange["method"] == "GET"
        self.failure = self.failure or exchange
        rec = self.frames.recorder
        if not rec.enabled:
            return
        call = exchange.get("jsonrpc") or {}
        what = f"{exchange['method']} {call.get('method') or ''}".strip()
        status = exchange.get("status")
        if exchange["method"] == "GET":
            what = "GET (the server's event stream)"
        summary = f"HTTP {status} for {what}" if status else f"HTTP {what}: {type(exc).__name__}: {exc}"
        awaited = self.frames.awaited(call["id"]) if "id" in call else None
        step, t_start = awaited if awaited is not None else (rec.step, None)
        lost = hops.server_failed({"http": exchange}, summary, step=step, jsonrpc_id=call.get("id"))
        rec.add(lost, t_start_ms=t_start)

    async def aclose(self) -> None:
        await self._inner.aclose()


async def _read_at_most(response: httpx2.Response, limit: int) -> bytes:
    """An error status's body (decoded), up to `limit` bytes: it is shown, not followed; the rest is not read."""
    parts: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            parts.append(chunk)
            size += len(chunk)
            if size > limit:
                break
    finally:
        await response.aclose()
    return b"".join(parts)[:limit]
