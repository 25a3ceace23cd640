"""The MCP side: a transport wrapper that records every JSON-RPC frame, and the ways to reach a server.

The wrapper sits between `mcp.Client` and the real transport (in-memory, a stdio subprocess,
or Streamable HTTP), so what is recorded is exactly what the transport carried. Over HTTP a
second tap on the HTTP client notes what only HTTP says: the session id, failed statuses, and
which JSON-RPC answers really arrived (the SDK makes up an error frame when none did).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal
from urllib.parse import urlsplit

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client import Transport
from mcp.client._memory import InMemoryTransport
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT, Implementation
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from flow.recorder import Recorder, json_bytes
from flow.redact import REDACTED, redact_headers, redact_url, url_secrets
from flow.trace import Kind, answer_step, as_dict

Era = Literal["handshake", "modern"]
TransportName = Literal["memory", "stdio", "http"]
TOKEN_ENV = "MCP_BEARER_TOKEN"  # where an HTTP server's bearer token is read from unless told otherwise
PROJECT_ROOT = Path(__file__).resolve().parent.parent
CLIENT_INFO = Implementation(name="mcp-flow-app", version="0.1.0")
EXCERPT_CHARS = 200  # how much of a line that is not JSON-RPC a hop keeps: a flood is not copied into the trace
STDERR_TAIL_BYTES = 2048  # how much of a server's stderr is read back; the rest stays in its file
SERVER_TOKEN_ENV = "MCP_FLOW_SERVER_TOKEN"  # marks a stdio server's processes, so leftovers can be found and reaped
MAX_FRAME_BYTES = 32 << 20
"""One JSON-RPC message from a server; a larger one ends the session. A tool result travels twice in one message
(`content` text and `structuredContent`), so a 10 MB result is a 20 MB frame: it is recorded clipped, not refused."""


SSE_EVENT_SLACK = 64 << 10  # room for an event's own lines beside its data, in the SDK's count of its size


def amount_text(n: int) -> str:
    """A byte count as a person reads it."""
    if n < 10 * 1024:
        return f"{n} bytes"
    if n < 1 << 20:
        return f"{n / 1024:.0f} KB"
    return f"{round(n / (1 << 20), 1):g} MB"


def frame_json(message: SessionMessage) -> dict[str, Any]:
    """The frame as JSON values, as the stdio transport serialises it (the recorder's compact JSON of this is
    that text, byte for byte): one pass, where the text and a parse of it took two."""
    frame: dict[str, Any] = message.message.model_dump(by_alias=True, exclude_unset=True, mode="json")
    return frame


def frame_kind(frame: dict[str, Any]) -> Kind:
    if "method" in frame:
        return "mcp.request" if "id" in frame else "mcp.notification"
    return "mcp.error" if "error" in frame else "mcp.response"


def frame_summary(frame: dict[str, Any], method: str | None) -> str:
    """The one line a frame's arrow says; `method` is the request's, for a response."""
    if "method" in frame:
        params = as_dict(frame.get("params"))  # a frame is whatever crossed the wire, or a log file holds
        if frame["method"] == "notifications/message":
            return f"log {params.get('level')}: {params.get('data')}"
        if frame["method"] == "tools/call":
            args = ", ".join(f"{k}={v}" for k, v in as_dict(params.get("arguments")).items())
            return f"tools/call {params.get('name')}({args})"
        if frame["method"] == "resources/read":
            return f"resources/read {params.get('uri')}"
        if frame["method"] == "prompts/get":
            return f"prompts/get {params.get('name')}"
        return str(frame["method"])
    if "error" in frame:
        error = as_dict(frame["error"])
        return f"error {error.get('code')}: {error.get('message')}"
    result = as_dict(frame.get("result"))
    if method == "tools/call":
        return f"result of tools/call (isError: {str(result.get('isError', False)).lower()})"
    return f"result of {method}" if method else "result"


def progress_summary(params: dict[str, Any], what: str) -> str:
    """A progress notification's line, naming the request it reports on (`what`, e.g. "tools/call get_forecast")."""
    def number(value: Any) -> str:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) < 1e300:
            return f"{value:g}"
        return repr(value)  # the spec says a number; a hostile frame may say anything

    total = params.get("total")
    return (f"progress {number(params.get('progress'))}{f'/{number(total)}' if total is not None else ''} of {what}"
            + (f": {params['message']}" if params.get("message") else ""))


class FrameTap:
    """Records frames in both directions and pairs responses with their requests by id; a frame from the server
    larger than `max_frame_bytes` is not recorded or handed on: it ends the session as a fault."""

    def __init__(self, recorder: Recorder, *, max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
        self.recorder = recorder
        self.max_frame_bytes = max_frame_bytes
        self._pending: dict[Any, tuple[str, float, int | None]] = {}
        self._progress: dict[Any, tuple[Any, int | None, str]] = {}  # progress token -> (request id, step, what)
        self.http: HttpTap | None = None  # over Streamable HTTP, the tap on the HTTP client
        self.fault: ServerFault | None = None  # the first thing a stdio server did that ends the session
        self.stderr_bytes = 0  # how much a stdio server wrote to stderr, set when the session ends

    def _pending_step(self) -> int | None:
        """The step of the oldest unanswered request: where a failure to answer it belongs."""
        for _, _, step in self._pending.values():
            return answer_step(step)
        return self.recorder.step

    def record_fault(self, fault: ServerFault, payload: dict[str, Any]) -> None:
        """Remember what the server did and record it where it happened, as the server's hop."""
        self.fault = self.fault or fault
        if self.recorder.enabled:
            self.recorder.record(kind="error", source="mcp_server", target="mcp_client", payload=payload,
                                 step=self._pending_step(), direction="error", summary=str(fault))

    def awaited(self, jsonrpc_id: Any) -> tuple[int | None, float] | None:
        """For a request still waiting: the step its answer belongs to, and when it was sent."""
        entry = self._pending.get(jsonrpc_id)
        if entry is None:
            return None
        return answer_step(entry[2]), entry[1]

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
        step = 6 if frame.get("method") == "tools/call" else rec.step
        if "id" in frame and "method" in frame:
            self._pending[frame["id"]] = (frame["method"], rec.now_ms(), step)
            token = ((frame.get("params") or {}).get("_meta") or {}).get("progressToken")
            if token is not None:
                self._progress[token] = (frame["id"], step, frame_summary(frame, None).split("(")[0])
        kind = frame_kind(frame)
        rec.record(
            kind=kind,
            source="mcp_client",
            target="mcp_server",
            payload=frame,
            step=step,
            direction="request" if kind == "mcp.request" else "notification",
            wire_text=text,
            jsonrpc_id=frame.get("id"),
            summary=frame_summary(frame, None),
        )

    def incoming(self, item: SessionMessage | Exception) -> None:
        rec = self.recorder
        if isinstance(item, Exception) and self.http is None:
            self.record_fault(*_unreadable(item, self.unanswered))
            return
        if not rec.enabled:
            return
        if isinstance(item, Exception):
            rec.record(
                kind="error",
                source="mcp_server",
                target="mcp_client",
                payload={"error": type(item).__name__, "message": str(item)},
                step=None,
                direction="error",
                summary=f"unreadable frame: {type(item).__name__}",
            )
            return
        frame = frame_json(item)
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
        if kind in ("mcp.response", "mcp.error") and frame.get("id") in self._pending:
            method, t_start, req_step = self._pending.pop(frame["id"])
            step = answer_step(req_step)
        elif kind == "mcp.notification":
            step = rec.step  # what the server says while the app is in a step belongs to that step
            params = frame.get("params") or {}
            if frame.get("method") == "notifications/progress" and params.get("progressToken") in self._progress:
                # Grouped with the request that asked for progress, by its token.
                progress_of, step, what = self._progress[params["progressToken"]]
                summary = progress_summary(params, what)
        hop = rec.record(
            kind=kind,
            source="mcp_server",
            target="mcp_client",
            payload=frame,
            step=step,
            direction={"mcp.request": "request", "mcp.notification": "notification", "mcp.error": "error"}.get(
                kind, "response"
            ),
            t_start_ms=t_start,
            wire_text=wire,
            jsonrpc_id=frame.get("id"),
            summary=summary or frame_summary(frame, method),
        )
        if progress_of is not None:
            hop.progress_of = progress_of  # type: ignore[attr-defined]  # the id of the request it reports on

    @property
    def unanswered(self) -> list[str]:
        return [method for method, _, _ in self._pending.values()]

    def oversized(self, size: int, start: str, *, at_least: bool = False) -> tuple[ServerFault, dict[str, Any]]:
        """A message over the cap: what the user is told, and what the hop keeps (its size and first characters)."""
        during = self.unanswered[0] if self.unanswered else ""
        limit = amount_text(self.max_frame_bytes)
        amount = limit if at_least else amount_text(size)  # cut off while arriving: how far it got depends on chunking
        fault = ServerFault(
            f"the MCP server sent a message of {'more than ' if at_least else ''}{amount}"
            f"{' during ' + during if during else ''}, over the {limit} limit for one message: the session was ended",
            f"MCP 服务器{'在 ' + during + ' 期间' if during else ''}发来一条{'至少 ' if at_least else ' '}{amount} 的消息，"
            f"超过单条消息 {limit} 的上限，会话已结束",
        )
        excerpt = start[:EXCERPT_CHARS] + ("…" if size > EXCERPT_CHARS else "")
        return fault, {"error": "message too large", "bytes": size, "at_least": at_least,
                       "limit_bytes": self.max_frame_bytes, "line_start": excerpt}


def _unreadable(exc: Exception, unanswered: list[str]) -> tuple[ServerFault, dict[str, Any]]:
    """A line the transport could not read as JSON-RPC: what the user is told, and what the hop keeps."""
    line: Any = None
    reason = f"{type(exc).__name__}: {exc}"
    errors = exc.errors() if isinstance(exc, ValidationError) else []
    if errors:
        line = errors[0].get("input")
        reason = errors[0]["msg"] if errors[0].get("type") == "json_invalid" else "valid JSON, but not a JSON-RPC message"
    text = line if isinstance(line, str) else json.dumps(line, ensure_ascii=False, default=str) if line is not None else ""
    excerpt = text[:EXCERPT_CHARS] + ("…" if len(text) > EXCERPT_CHARS else "")
    shown = " ".join(excerpt.split())[:80]
    during = f" during {unanswered[0]}" if unanswered else ""
    fault = ServerFault(f"the MCP server sent a line that is not JSON-RPC{during}: {shown!r} ({reason})",
                        f"MCP 服务器发来一行不是 JSON-RPC 的内容{'（' + unanswered[0] + ' 期间）' if unanswered else ''}："
                        f"{shown!r}（{reason}）")
    return fault, {"error": "not JSON-RPC", "reason": reason, "line_start": excerpt, "line_chars": len(text)}


class _TapRead:
    def __init__(self, inner: Any, tap: FrameTap) -> None:
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

    def __aiter__(self) -> _TapRead:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _TapRead:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _TapWrite:
    def __init__(self, inner: Any, tap: FrameTap) -> None:
        self._inner, self._tap = inner, tap

    async def send(self, item: SessionMessage, /) -> None:
        self._tap.outgoing(item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TapWrite:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class TappedTransport:
    """A `Transport` that hands `mcp.Client` the inner transport's streams, wrapped by a tap."""

    def __init__(self, inner: Transport, tap: FrameTap) -> None:
        self._inner, self.tap = inner, tap

    async def __aenter__(self) -> tuple[_TapRead, _TapWrite]:
        read, write = await self._inner.__aenter__()
        return _TapRead(read, self.tap), _TapWrite(write, self.tap)

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self._inner.__aexit__(*exc)


def _answer_ids(text: str) -> list[Any]:
    """Ids of the JSON-RPC answers in an HTTP body: one JSON message, or the data lines of an event stream."""
    ids = []
    for chunk in [text] if text.lstrip().startswith("{") else [
        line[5:] for line in text.splitlines() if line.startswith("data:")
    ]:
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

    def __init__(self, inner: Any, http: HttpTap, exchange: dict[str, Any]) -> None:
        self._inner, self._http, self._exchange = inner, http, exchange
        self._pending: list[bytes] = []  # the line not yet ended
        self._pending_bytes = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                self._take(chunk)
                yield chunk
        except FrameTooLarge:
            raise
        except Exception as exc:
            self._http.failed(self._exchange, exc)
            raise
        self._http.saw_answers(_answer_ids(b"".join(self._pending).decode("utf-8", errors="replace")))
        self._pending, self._pending_bytes = [], 0

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


class HttpTap(httpx2.AsyncBaseTransport):
    """Wraps the HTTP transport the MCP client is given (composition, as the model side does).

    The JSON-RPC frames themselves are recorded by `FrameTap`; this records what only HTTP
    says: a failed status or a broken connection, as an error hop where it happened, and the
    session id the server assigned. Request headers are never recorded: one holds the token."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, frames: FrameTap) -> None:
        # The frame tap's recorder is the one to use: a session kept open across runs hands it each run's.
        self._inner, self.frames = inner, frames
        self.session_id: str | None = None
        self.failure: dict[str, Any] | None = None  # the first failed exchange: status or exception
        self.reached = False  # whether the server ever answered over HTTP
        self._get_failed = False
        self._closing = False  # the client ended the session: its event stream closing is no failure
        self._answered: set[str] = set()
        self._blind = False  # a compressed body cannot be read here: then every frame is taken as sent

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
        exchange: dict[str, Any] = {"method": request.method, "url": redact_url(str(request.url))}
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
            self.failed({**exchange, "status": response.status_code, "response_headers": redact_headers(
                response.headers.multi_items()), "response_body": body}, None)
            # Handed on decoded, as read: without the headers that described the bytes on the wire.
            headers = [(k, v) for k, v in response.headers.multi_items()
                       if k.lower() not in ("content-length", "content-encoding")]
            return httpx2.Response(response.status_code, headers=headers, content=content,
                                   request=request, extensions=response.extensions)
        return httpx2.Response(response.status_code, headers=response.headers,
                               stream=_BodyTap(response.stream, self, exchange), request=request,
                               extensions=response.extensions)

    def failed(self, exchange: dict[str, Any], exc: BaseException | None) -> None:
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
        rec.record(kind="error", source="mcp_server", target="mcp_client", payload={"http": exchange}, step=step,
                   direction="error", t_start_ms=t_start, jsonrpc_id=call.get("id"), summary=summary)

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


@dataclass(frozen=True, kw_only=True)
class ServerSpec:
    """Which server to reach and how: the demo server (in memory or over stdio), any stdio command
    (with extra environment), a Streamable HTTP endpoint with an optional bearer token, or an
    MCP server object served in this process (`server`, over memory).

    The token is read when connecting, from `bearer_token` or else the `bearer_token_env`
    variable, and is never described or recorded. Environment values are secrets unless their
    names are in `env_public`."""

    transport: TransportName = "stdio"
    fault: Literal["none", "die", "hang"] = "none"
    command: tuple[str, ...] = ()  # another server's command line; empty means the demo server
    env: tuple[tuple[str, str], ...] = ()  # extra environment for a stdio command, over the SDK's default one
    env_public: tuple[str, ...] = ()  # names in `env` whose values may be written into a trace
    url: str = ""  # a Streamable HTTP endpoint instead of a command
    bearer_token_env: str = TOKEN_ENV
    bearer_token: str | None = field(default=None, repr=False, compare=False)
    server: Any = field(default=None, repr=False, compare=False)  # an mcp Server/MCPServer run in this process

    @property
    def is_demo(self) -> bool:
        return not self.command and not self.url and self.server is None

    @property
    def is_http(self) -> bool:
        return bool(self.url)

    def token(self) -> str | None:
        return self.bearer_token or (os.environ.get(self.bearer_token_env) if self.bearer_token_env else None) or None

    def recorded_env(self) -> list[list[str]]:
        """The environment as a trace holds it: every value redacted unless its name was marked public."""
        public = set(self.env_public)
        return [[k, v if k in public else REDACTED] for k, v in self.env]

    def secret_values(self) -> list[str]:
        """What a recorder must scrub if the server echoes it: the bearer token, what the URL hides,
        and every environment value not marked public."""
        public = set(self.env_public)
        return [self.token() or "", *url_secrets(self.url), *(v for k, v in self.env if k not in public)]

    def describe(self) -> dict[str, Any]:
        if self.is_http:
            url = redact_url(self.url)
            host = urlsplit(url).netloc.rpartition("@")[2]
            described: dict[str, Any] = {"name": host or url, "transport": "http", "url": url,
                                         "command": None, "fault": "none", "auth": "bearer" if self.token() else "none"}
            if self.token() and not self.bearer_token:
                described["bearer_token_env"] = self.bearer_token_env  # where it came from; never its value
            return described
        if self.server is not None:
            return {"name": str(getattr(self.server, "name", "") or "in-process"), "transport": "memory",
                    "command": None, "fault": "none", "in_process": True}
        if not self.is_demo:
            described = {"name": Path(self.command[0]).name, "transport": "stdio", "command": shlex.join(self.command),
                         "fault": "none"}
            if self.env:
                described["env"] = [k for k, _ in self.env]  # names only: values are often keys
            return described
        command = None
        if self.transport == "stdio":
            command = " ".join(["python", "-m", "flow.demo_server", *self._fault_args()])
        return {"name": "weather-demo", "transport": self.transport, "command": command, "fault": self.fault}

    def _fault_args(self) -> list[str]:
        return ["--fault", self.fault] if self.fault != "none" else []

    def stdio_parameters(self) -> StdioServerParameters:
        if not self.is_demo:
            # Run exactly as configured by whoever started this program: no shell, the environment the SDK
            # passes plus what was asked for.
            return StdioServerParameters(command=self.command[0], args=list(self.command[1:]),
                                         env=dict(self.env) or None)
        return StdioServerParameters(
            command=sys.executable,
            args=["-m", "flow.demo_server", *self._fault_args()],
            env={"PYTHONPATH": str(PROJECT_ROOT)},
            cwd=str(PROJECT_ROOT),
        )


@asynccontextmanager
async def connect(
    spec: ServerSpec, *, era: Era, recorder: Recorder, timeout_s: float, max_frame_bytes: int = MAX_FRAME_BYTES
) -> AsyncIterator[tuple[Client, FrameTap, IO[str] | None]]:
    """Open a recorded MCP session; yields the client, its tap, and the server's stderr (stdio only).

    A stdio server that breaks the protocol, goes silent or exits raises `ServerFault` naming what it
    did; when the session ends, any process the server left behind is killed. Every request has
    `timeout_s` in all (the SDK's clock runs from sending it to its answer; bytes trickling in do not
    reset it), and a message from the server over `max_frame_bytes` ends the session."""
    if spec.is_http:
        async with _connect_http(spec, era=era, recorder=recorder, timeout_s=timeout_s,
                                 max_frame_bytes=max_frame_bytes) as opened:
            yield opened
        return
    tap = FrameTap(recorder, max_frame_bytes=max_frame_bytes)
    token = uuid.uuid4().hex
    with contextlib.ExitStack() as files:
        err: IO[str] | None = None
        if spec.transport == "memory" and spec.server is not None:
            inner: Transport = InMemoryTransport(spec.server)
        elif spec.transport == "memory" and spec.is_demo:
            from flow.demo_server import shared_server

            inner = InMemoryTransport(shared_server(spec.fault))
        else:
            # The server's stderr goes to a file, so a crash can be reported with its last words
            # and a flood of it costs disk, not memory.
            err = files.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace"))
            params = spec.stdio_parameters()
            params = params.model_copy(update={"env": {**(params.env or {}), SERVER_TOKEN_ENV: token}})
            inner = stdio_client(params, errlog=err)
            files.callback(reap_leftovers, token)
        client = Client(
            TappedTransport(inner, tap),
            mode="legacy" if era == "handshake" else "auto",
            read_timeout_seconds=timeout_s,
            client_info=CLIENT_INFO,
            cache=None,  # every list must really cross the wire, or the lesson has a hole in it
        )
        entered = False
        try:
            async with client:
                entered = True
                yield client, tap, err
        except Exception as exc:
            leaf = leaf_exception(exc)
            if tap.fault is None and not entered and err is not None and not _timed_out(leaf):
                # It never got as far as answering: its own last words say why better than "connection closed".
                last = server_stderr_tail(err).splitlines()
                if isinstance(leaf, FileNotFoundError) and not last:
                    raise ServerStartError(f"no such command: {leaf.filename or spec.command[:1]} (not a file, "
                                           "and not found on PATH)") from exc
                raise ServerStartError((last[-1] if last else f"{type(leaf).__name__}: {leaf}") + _flood_note(err)) from exc
            fault = tap.fault or _silence(leaf, tap, err, timeout_s)
            if fault is not None:
                note = _flood_note(err)
                raise ServerFault(str(fault) + note, fault.zh + note) from exc
            raise
        finally:
            tap.stderr_bytes = server_stderr_bytes(err)


def _timed_out(exc: BaseException) -> bool:
    return isinstance(exc, TimeoutError) or isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT


def _silence(exc: BaseException, tap: FrameTap, err: IO[str] | None, timeout_s: float) -> ServerFault | None:
    """A request the server never answered, because it went quiet or its connection closed; recorded as its hop."""
    if not tap.unanswered:
        return None
    method = tap.unanswered[0]
    if _timed_out(exc):
        fault = ServerFault(f"the MCP server did not answer {method} within {timeout_s:g} s",
                            f"MCP 服务器在 {timeout_s:g} 秒内没有回答 {method}")
        payload: dict[str, Any] = {"error": "timeout", "method": method, "timeout_s": timeout_s}
    elif isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED:
        lines = server_stderr_tail(err).splitlines()
        last = f": {lines[-1][:200]}" if lines else ""
        fault = ServerFault(f"the MCP server closed the connection during {method} (its process ended){last}",
                            f"MCP 服务器在 {method} 期间关闭了连接（进程已退出）{last.replace(': ', '：', 1)}")
        payload = {"error": "connection closed", "method": method}
    else:
        return None
    if err is not None:
        payload["server_stderr"] = server_stderr_tail(err)
    tap.record_fault(fault, payload)
    return fault


class ServerStartError(Exception):
    """The server process failed before the session was set up; the message is its last line of stderr."""


class Explained(Exception):
    """A failure whose message is already the one line the user sees; `zh` is the same line in Chinese."""

    def __init__(self, message: str, zh: str | None = None) -> None:
        super().__init__(message)
        self.zh = zh or message


class ServerHttpError(Explained):
    """An MCP server over HTTP refused or dropped the connection."""


class ServerFault(Explained):
    """The server broke the protocol, went silent or exited mid-request: the line says what it did."""


def _pids_marked(token: str) -> list[int]:
    """Processes whose environment carries this token: a stdio server and whatever it started."""
    marker = f"{SERVER_TOKEN_ENV}={token}".encode()
    found = []
    with contextlib.suppress(FileNotFoundError):  # no /proc: nothing to scan (not Linux)
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as f:
                    if marker in f.read().split(b"\0"):
                        found.append(int(entry.name))
            except OSError:  # gone already, or not ours to read
                continue
    return found


def reap_leftovers(token: str) -> list[int]:
    """Kill what a stdio server left running after its session closed.

    The SDK closes the server's stdin and kills its process group only if the server itself does not
    exit; a child the server started and did not stop outlives it. Those carry the token we put in
    the server's environment. Returns the pids it killed."""
    killed: list[int] = []
    for _ in range(5):  # again, until none is left: one may have been forking while we looked
        marked = [pid for pid in _pids_marked(token) if pid not in killed]
        if not marked:
            break
        for pid in marked:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
        time.sleep(0.02)
    return killed


def leaf_exception(exc: BaseException) -> BaseException:
    """The failure that matters inside the exception groups task groups wrap it in."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _http_failure_line(spec: ServerSpec, http: HttpTap, unanswered: list[str]) -> ServerHttpError:
    failure = http.failure or {}
    status, url = failure.get("status"), redact_url(spec.url)
    body = failure.get("response_body")
    detail = ""
    if isinstance(body, dict):
        detail = str(body.get("error_description") or body.get("error") or body.get("message") or "")
    if status == 401 and spec.token():
        return ServerHttpError("the MCP server refused the bearer token (HTTP 401)",
                               "MCP 服务器拒绝了这个 bearer token（HTTP 401）")
    if status == 401:
        return ServerHttpError(f"the MCP server requires a bearer token (HTTP 401): set {spec.bearer_token_env}",
                               f"MCP 服务器需要 bearer token（HTTP 401）：请设置 {spec.bearer_token_env}")
    if status == 404:
        return ServerHttpError(f"no MCP endpoint at {url} (HTTP 404)", f"{url} 没有 MCP 端点（HTTP 404）")
    if status is not None:
        return ServerHttpError(f"the MCP server answered HTTP {status}" + (f": {detail}" if detail else ""),
                               f"MCP 服务器返回 HTTP {status}" + (f"：{detail}" if detail else ""))
    cause = f"{failure.get('exception')}: {failure.get('message')}"
    if not http.reached:
        return ServerHttpError(f"cannot reach the MCP server at {url} ({cause})", f"无法连接 MCP 服务器 {url}（{cause}）")
    during = unanswered[-1] if unanswered else ""
    return ServerHttpError(
        f"the MCP server's HTTP connection broke{' during ' + during if during else ''} ({cause})",
        f"MCP 服务器的 HTTP 连接中断{'（' + during + ' 期间）' if during else ''}（{cause}）",
    )


@asynccontextmanager
async def _connect_http(
    spec: ServerSpec, *, era: Era, recorder: Recorder, timeout_s: float, max_frame_bytes: int = MAX_FRAME_BYTES
) -> AsyncIterator[tuple[Client, FrameTap, IO[str] | None]]:
    token = spec.token()
    tap = FrameTap(recorder, max_frame_bytes=max_frame_bytes)
    http = HttpTap(httpx2.AsyncHTTPTransport(), tap)
    tap.http = http
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    # The SDK's own timeouts, but connecting fails as fast as an answer may take.
    timeout = httpx2.Timeout(30.0, connect=timeout_s, read=300.0)
    async with httpx2.AsyncClient(transport=http, headers=headers, timeout=timeout) as http_client:
        client = Client(
            # The SDK's own cap on an event (1 MB unless told) follows the tap's, a little above it: it counts the
            # event's other lines (`event:`, `id:`) too, and must not fire before the tap names the oversized message.
            TappedTransport(streamable_http_client(spec.url, http_client=http_client,
                                                   max_sse_event_size=max_frame_bytes + SSE_EVENT_SLACK), tap),
            mode="legacy" if era == "handshake" else "auto",
            read_timeout_seconds=timeout_s,
            client_info=CLIENT_INFO,
            cache=None,
        )
        try:
            async with client:
                yield client, tap, None
        except Exception as exc:
            if tap.fault is not None and isinstance(leaf_exception(exc), (MCPError, anyio.EndOfStream, httpx2.HTTPError)):
                raise tap.fault from exc  # the server broke a rule the tap keeps (a message over the cap)
            if http.failure is None or not isinstance(leaf_exception(exc), (MCPError, httpx2.HTTPError)):
                raise  # the run's own reason (a FlowAbort, a model error) says more than the connection
            raise _http_failure_line(spec, http, tap.unanswered) from exc


@dataclass
class McpSession:
    """A connected, recorded MCP client; `open_session` keeps one open across runs."""

    client: Client
    tap: FrameTap
    spec: ServerSpec

    def describe(self) -> dict[str, Any]:
        version = self.client.protocol_version
        info = self.client.server_info
        described = self.spec.describe()
        return {
            **described,
            "name": info.name if info and info.name else described["name"],
            "protocol_version": version,
            "era": "modern" if version in MODERN_PROTOCOL_VERSIONS else "handshake",
            "server_info": info.model_dump(mode="json", exclude_none=True) if info else None,
            # Streamable HTTP: the session the server assigned (handshake era), from the Mcp-Session-Id header.
            **({"http_session_id": self.tap.http.session_id} if self.tap.http is not None else {}),
        }


@asynccontextmanager
async def open_session(spec: ServerSpec, *, era: Era, recorder: Recorder, timeout_s: float = 10.0) -> AsyncIterator[McpSession]:
    """Connect once and run many flows on the same session (pass it to `run_flow(session=...)`)."""
    recorder.step = 2
    async with connect(spec, era=era, recorder=recorder, timeout_s=timeout_s) as (client, tap, _err):
        yield McpSession(client, tap, spec)


def server_stderr_tail(err: IO[str] | None, limit: int = STDERR_TAIL_BYTES) -> str:
    """The last `limit` bytes the server wrote to stderr, read without loading the rest."""
    if err is None:
        return ""
    err.flush()
    size = os.fstat(err.fileno()).st_size
    data = os.pread(err.fileno(), limit, max(0, size - limit))
    return data.decode("utf-8", errors="replace").strip()


STDERR_FLOOD_BYTES = 1 << 20  # more stderr than this is worth a mention in the error line


def _flood_note(err: IO[str] | None) -> str:
    size = server_stderr_bytes(err)
    if size <= STDERR_FLOOD_BYTES:
        return ""
    return f" (it wrote {size / (1 << 20):.1f} MB to stderr; the trace keeps the last {STDERR_TAIL_BYTES // 1024} KB)"


def server_stderr_bytes(err: IO[str] | None) -> int:
    """How much the server wrote to stderr in all."""
    if err is None:
        return 0
    err.flush()
    return os.fstat(err.fileno()).st_size
