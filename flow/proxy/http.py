"""The HTTP proxies: a local endpoint on 127.0.0.1 that forwards each request to the real one and streams the answer
back as it comes (an event stream chunk by chunk), while a recording (`ModelRecording`, `McpRecording`) notes what
crossed. `python -m flow proxy-model` stands in for an OpenAI-compatible API, `python -m flow proxy-http` for an MCP
server over Streamable HTTP.

Headers go through to the upstream as the client sent them (its key, `Mcp-Session-Id`), minus those about this one
connection, and the proxy adds none: it keeps no cookies and sends no credentials of its own. A secret header is
recorded as `[redacted]` by the rule the app's traces use, and its value is scrubbed from anything that is. Each
exchange is bounded: its request body in size, the request bodies held at once in all, the whole exchange (the request
body's arrival in it) by one deadline, what is recorded by the log's caps.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import signal
import socket
import sys
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from http.cookiejar import Cookie, CookieJar
from types import FrameType
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

import anyio
import httpx2
import uvicorn
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from flow.proxy.log import ProxyLog, excerpt, now
from flow.trace.redact import credentials, header_secrets, redact_headers, redact_text, redact_url, url_secrets
from flow.trace.summaries import amount_text

MAX_REQUEST_BYTES = 32 << 20  # a request body: far above any chat request or JSON-RPC frame

MAX_HELD_BYTES = 64 << 20  # the request bodies a proxy holds at once, being read or forwarded, in all

TIMEOUT_S = 600.0  # one exchange, from the request to the answer's last byte

_HOP_BY_HOP = {
    "host",
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "content-length",
    "accept-encoding",
    "content-encoding",
}

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"]


def recordable_headers(headers: list[tuple[str, str]]) -> dict[str, str]:
    """Headers as a recording may keep them: as the app's trace keeps them, a secret one's value `[redacted]`."""
    return {k.lower(): v for k, v in redact_headers(headers).items()}


def json_or_text(data: bytes) -> Any:
    """A body as a recording keeps it: its JSON, which the log redacts as a trace is, else its text, redacted here
    (`api_key=…` in a form)."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return redact_text(data.decode("utf-8", errors="replace"))


def _start(chunks: deque[bytes], limit: int) -> bytes:
    """The first `limit` bytes of a body in chunks."""
    kept = bytearray()
    for chunk in chunks:
        if len(kept) >= limit:
            break
        kept += chunk[: limit - len(kept)]
    return bytes(kept)


async def _sent_once(chunks: deque[bytes]) -> AsyncIterator[bytes]:
    """A request body's chunks as they came, each let go once sent: the upstream's response, which keeps its request
    while it streams, does not keep the body, which `Relay.held_bytes` no longer counts."""
    while chunks:
        yield chunks.popleft()


class _NoCookies(CookieJar):
    """The upstream client's cookie jar, which keeps none: a proxy passes each client's cookies on as they are, and
    one client's `Set-Cookie` back to it alone, never to the next client."""

    def set_cookie(self, cookie: Cookie) -> None:
        pass

    def extract_cookies(self, response: Any, request: Any) -> None:
        pass


class Recording(Protocol):
    """What a proxy notes of each exchange, numbered from 1."""

    log: ProxyLog

    def request(self, n: int, request: Request, sent: list[tuple[str, str]], body: bytes, size: int, t: float) -> None:
        """`sent`: the headers as they went upstream (a client's secret ones already in the log's secrets); `body`:
        the start of the body, at most the frame cap and one byte of its `size`."""

    def response(self, n: int, status: int, headers: list[tuple[str, str]], stream: bool, t: float) -> None: ...

    def event(self, n: int, data: bytes, size: int, t: float) -> None: ...

    def body(self, n: int, data: bytes, size: int, t: float) -> None: ...

    def end(self, n: int, t: float, error: str | None) -> None: ...


@dataclass
class _Events:
    """A server-sent event stream cut into events as it arrives, each event's data at most `cap` bytes kept."""

    cap: int
    buffer: bytearray = field(default_factory=bytearray)
    over: int = 0  # bytes of the current event past the cap, not kept

    def feed(self, chunk: bytes) -> list[tuple[bytes, int]]:
        """The events `chunk` completes, as (their data lines joined, their whole size)."""
        if self.buffer.endswith(b"\r") and chunk.startswith(b"\n"):
            del self.buffer[-1]
        self.buffer += chunk.replace(b"\r\n", b"\n") if b"\r" in chunk else chunk
        done: list[tuple[bytes, int]] = []
        while (end := self.buffer.find(b"\n\n")) >= 0:
            done.append(self._event(bytes(self.buffer[:end]), self.over))
            del self.buffer[: end + 2]
            self.over = 0
        if len(self.buffer) > self.cap:
            self.over += len(self.buffer) - self.cap
            del self.buffer[self.cap :]
        return done

    def finish(self) -> list[tuple[bytes, int]]:
        rest = bytes(self.buffer)
        self.buffer.clear()
        return [self._event(rest, self.over)] if rest.strip() else []

    @staticmethod
    def _event(raw: bytes, over: int) -> tuple[bytes, int]:
        data = [line[5:].removeprefix(b" ") for line in raw.split(b"\n") if line.startswith(b"data:")]
        return b"\n".join(data), len(raw) + over


class Relay:
    """The local endpoint: each request forwarded to `target(path)` and its answer streamed back."""

    def __init__(
        self,
        target: Callable[[str], str | None],
        recording: Recording,
        *,
        timeout_s: float = TIMEOUT_S,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        self.target, self.recording, self.timeout_s = target, recording, timeout_s
        self.max_request_bytes, self.max_held_bytes = MAX_REQUEST_BYTES, MAX_HELD_BYTES
        self.held_bytes = 0  # of the request bodies being read or forwarded now; one event loop changes it
        self._transport = transport
        self.exchanges = 0
        self.client: httpx2.AsyncClient | None = None
        self.app = Starlette(
            routes=[Route("/{path:path}", self.handle, methods=METHODS)],
            lifespan=contextlib.asynccontextmanager(self._lifespan),
        )

    async def _lifespan(self, app: Starlette) -> AsyncIterator[None]:
        timeout = httpx2.Timeout(self.timeout_s, connect=min(30.0, self.timeout_s))
        async with httpx2.AsyncClient(
            timeout=timeout, transport=self._transport, follow_redirects=False, cookies=_NoCookies()
        ) as client:
            self.client = client
            yield

    async def handle(self, request: Request) -> Response:
        deadline = anyio.current_time() + self.timeout_s  # the exchange's one deadline: its request body comes in it
        url = self.target(request.url.path)
        if url is None:
            return _error(404, f"no route {request.url.path}: this proxy serves /v1/...")
        if request.url.query:
            url += ("&" if "?" in url else "?") + request.url.query
        # Before anything is recorded: a key in a header or a query value may come back in any answer.
        self.recording.log.add_secrets(header_secrets(request.headers.items()) + url_secrets(str(request.url)))
        too_big = f"request body over {amount_text(self.max_request_bytes)}"
        declared = request.headers.get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > self.max_request_bytes:
            return self._refuse(request, 413, too_big, 0)
        chunks: deque[bytes] = deque()
        held = 0
        try:
            with anyio.CancelScope(deadline=deadline) as waiting:
                async for chunk in request.stream():
                    if held + len(chunk) > self.max_request_bytes:
                        return self._refuse(request, 413, too_big, held)
                    if self.held_bytes + len(chunk) > self.max_held_bytes:
                        full = amount_text(self.max_held_bytes)
                        why = f"the proxy holds as many request bodies at once as it may ({full} in all)"
                        return self._refuse(request, 503, why, held, retry=True)
                    if chunk:
                        chunks.append(chunk)
                        held += len(chunk)
                        self.held_bytes += len(chunk)
            if waiting.cancelled_caught:
                return self._refuse(request, 408, f"the request body did not come within {self.timeout_s:g} s", held)
            return await self._forward(request, url, chunks, held, deadline)
        except ClientDisconnect:  # nothing was forwarded, and there is no one to answer
            self._note_refused(request, "the client left before its request was complete", held)
            return Response(status_code=400)
        finally:
            self.held_bytes -= held

    def _note_refused(self, request: Request, why: str, came: int) -> None:
        self.recording.log.note(
            f"{request.method} {request.url.path}: {why} ({amount_text(came)} of it came): not forwarded", now()
        )

    def _refuse(self, request: Request, status: int, why: str, came: int, *, retry: bool = False) -> Response:
        """An answer of the proxy's own to a request it does not forward, and its line in the recording. The rest of
        the body is not read, so the connection closes after the answer."""
        self._note_refused(request, why, came)
        response = _error(status, f"{why}: not forwarded" + (", try again" if retry else ""))
        response.headers["connection"] = "close"
        if retry:
            response.headers["retry-after"] = "1"
        return response

    async def _forward(self, request: Request, url: str, chunks: deque[bytes], size: int, deadline: float) -> Response:
        self.exchanges += 1
        n, rec = self.exchanges, self.recording
        start = _start(chunks, rec.log.max_frame_bytes + 1)
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP]
        headers.append(("accept-encoding", "identity"))  # so that what is recorded is what is read
        if size:
            headers.append(("content-length", str(size)))
        # Built here, not by the client, which would add its own headers and cookies: the request goes as the client
        # sent it, and the recording shows it as it went.
        outgoing = httpx2.Request(request.method, url, headers=headers, content=_sent_once(chunks) if size else b"")
        rec.request(n, request, outgoing.headers.multi_items(), start, size, now())
        assert self.client is not None
        try:
            with anyio.fail_after(max(deadline - anyio.current_time(), 0)):
                upstream = await self.client.send(outgoing, stream=True)
        except (httpx2.HTTPError, TimeoutError) as exc:
            what = "no answer in time" if isinstance(exc, TimeoutError) else f"{type(exc).__name__}: {exc}"
            rec.end(n, now(), f"the upstream could not be reached: {what}")
            return _error(502, f"the proxy could not reach the upstream: {what}")
        kept = [(k, v) for k, v in upstream.headers.multi_items() if k.lower() not in _HOP_BY_HOP]
        stream = "text/event-stream" in upstream.headers.get("content-type", "")
        rec.response(n, upstream.status_code, kept, stream, now())
        response = StreamingResponse(self._relay(n, upstream, stream, deadline), status_code=upstream.status_code)
        response.raw_headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in kept]
        return response

    async def _relay(self, n: int, upstream: httpx2.Response, stream: bool, deadline: float) -> AsyncIterator[bytes]:
        """The answer's bytes as they arrive, noted on the way; the exchange's deadline ends a stream that stalls."""
        rec, cap = self.recording, self.recording.log.max_frame_bytes
        events, body, size = _Events(cap), bytearray(), 0
        error: str | None = None
        cut = False
        chunks = upstream.aiter_bytes()
        try:
            while True:
                chunk = None  # stays None only when the deadline cut the wait short
                with anyio.move_on_after(deadline - anyio.current_time()):
                    try:
                        chunk = await chunks.__anext__()
                    except StopAsyncIteration:
                        break
                if chunk is None:
                    error = f"the answer did not end within {self.timeout_s:g} s: cut here"
                    cut = True
                    break
                t = now()
                if stream:
                    for data, whole in events.feed(chunk):
                        rec.event(n, data, whole, t)
                else:
                    size += len(chunk)
                    if len(body) <= cap:
                        body += chunk[: cap + 1 - len(body)]
                yield chunk
        except httpx2.HTTPError as exc:  # a reset, or a body shorter than its Content-Length
            error = f"the upstream's answer broke off: {type(exc).__name__}: {exc}"
            cut = True
        finally:
            await upstream.aclose()
            t = now()
            if stream:
                for data, whole in events.finish():
                    rec.event(n, data, whole, t)
            elif error is None or size:
                rec.body(n, bytes(body), size, t)
            rec.end(n, t, error)
        if cut:
            # Ended as a cut connection ends, whether the deadline or the upstream cut it, not as a complete answer:
            # the client's HTTP library raises, where a normal end would hand it the partial answer as if it were all.
            raise AnswerCut(error)


class AnswerCut(Exception):
    """Raised from an answer's stream to end the response abnormally (the connection closed mid-body); the server
    logs it as one line, with no traceback (`_QuietCuts`)."""


class _QuietCuts(logging.Filter):
    """uvicorn logs whatever an app raises with its traceback; a cut answer is no bug, and is in the recording."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], AnswerCut):
            record.msg, record.args, record.exc_info = f"answer cut: {record.exc_info[1]}", (), None
        return True


_QUIET_CUTS = _QuietCuts()


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": "proxy_error"}}, status_code=status)


class ModelRecording:
    """A model API's exchanges as lines of their own: request, response (or its events), end."""

    def __init__(self, log: ProxyLog) -> None:
        self.log = log

    def _body(self, data: bytes, size: int) -> dict[str, Any]:
        if size > self.log.max_frame_bytes:
            return {"body_too_large": {"bytes": size, "limit_bytes": self.log.max_frame_bytes, "start": excerpt(data)}}
        return {"body": json_or_text(data)} if data else {}

    def request(self, n: int, request: Request, sent: list[tuple[str, str]], body: bytes, size: int, t: float) -> None:
        recorded = self._body(body, size)
        # Before the answer is recorded: a credential the body hands on (a hosted MCP server's token) may come back.
        self.log.add_secrets(credentials(recorded))
        self.log.entry(
            {
                "exchange": n,
                "event": "request",
                "timestamp": t,
                "method": request.method,
                "path": redact_url(request.url.path + (f"?{request.url.query}" if request.url.query else "")),
                "headers": recordable_headers(sent),
                "bytes": size,
                **recorded,
            }
        )

    def response(self, n: int, status: int, headers: list[tuple[str, str]], stream: bool, t: float) -> None:
        entry = {"exchange": n, "event": "response", "timestamp": t, "status": status, "stream": stream}
        self.log.entry({**entry, "headers": recordable_headers(headers)})

    def event(self, n: int, data: bytes, size: int, t: float) -> None:
        if not data:
            return  # a comment or a keep-alive: no data
        entry: dict[str, Any] = {"exchange": n, "event": "chunk", "timestamp": t, "bytes": size}
        if size > self.log.max_frame_bytes:
            entry["data_too_large"] = {"bytes": size, "start": excerpt(data)}
        else:
            entry["data"] = json_or_text(data)
        self.log.entry(entry)

    def body(self, n: int, data: bytes, size: int, t: float) -> None:
        self.log.entry({"exchange": n, "event": "body", "timestamp": t, "bytes": size, **self._body(data, size)})

    def end(self, n: int, t: float, error: str | None) -> None:
        self.log.entry({"exchange": n, "event": "end", "timestamp": t, **({"error": error} if error else {})})


class McpRecording:
    """An MCP server's frames over Streamable HTTP, in the JSON-RPC log shape the stdio proxy writes: each POSTed
    frame, each frame of a JSON answer or an event stream; no header, so no session id or token. Several sessions
    through one proxy (an inspector opens three) are told apart by a number per `Mcp-Session-Id`, in the order they
    began, on each frame's line: the id itself, a credential of the session, is never written."""

    def __init__(self, log: ProxyLog) -> None:
        self.log = log
        self._json: set[int] = set()  # exchanges whose answer is one JSON body
        self._sessions: dict[str, int] = {}  # each Mcp-Session-Id seen, by its number
        self._session_of: dict[int, int] = {}  # an exchange's session, while it lasts
        # a request that named no session (an initialize): written when its answer names the session it began
        self._waiting: dict[int, tuple[bytes, int, float]] = {}

    def _number(self, session_id: str) -> int:
        return self._sessions.setdefault(session_id, len(self._sessions) + 1)

    def request(self, n: int, request: Request, sent: list[tuple[str, str]], body: bytes, size: int, t: float) -> None:
        session_id = request.headers.get("mcp-session-id")
        if session_id:
            self._session_of[n] = self._number(session_id)
        if frame := body.strip():
            if session_id:
                self.log.frame("client_to_server", frame, len(frame) + size - len(body), t, session=self._session_of[n])
            else:
                self._waiting[n] = (frame, len(frame) + size - len(body), t)

    def _write_waiting(self, n: int) -> None:
        if (waiting := self._waiting.pop(n, None)) is not None:
            self.log.frame("client_to_server", *waiting, session=self._session_of.get(n))

    def response(self, n: int, status: int, headers: list[tuple[str, str]], stream: bool, t: float) -> None:
        named = next((v for k, v in headers if k.lower() == "mcp-session-id"), "")
        if named and n not in self._session_of:
            self._session_of[n] = self._number(named)
        self._write_waiting(n)
        if status >= 400:  # what the transport says, not a frame: noted for the import to list
            self.log.entry({"note": f"HTTP {status} from the server", "status": status, "timestamp": t})
        elif not stream and any(k.lower() == "content-type" and "json" in v for k, v in headers):
            self._json.add(n)

    def event(self, n: int, data: bytes, size: int, t: float) -> None:
        if data.strip():
            self.log.frame("server_to_client", data.strip(), size, t, session=self._session_of.get(n))

    def body(self, n: int, data: bytes, size: int, t: float) -> None:
        if n in self._json and data.strip():
            self.log.frame("server_to_client", data.strip(), size, t, session=self._session_of.get(n))
        self._json.discard(n)

    def end(self, n: int, t: float, error: str | None) -> None:
        self._write_waiting(n)  # no answer came
        self._session_of.pop(n, None)
        if error:
            self.log.note(error, t)


def bind(port: int) -> socket.socket:
    """A listening socket on this machine only (127.0.0.1); port 0 picks a free one. A port that cannot be had is
    one plain line naming it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        why = "is in use" if exc.errno == errno.EADDRINUSE else f"cannot be used ({exc.strerror or exc})"
        raise OSError(f"port {port} on 127.0.0.1 {why}: give another with --port, or --port 0 for a free one") from None
    sock.set_inheritable(False)
    return sock


def recording_log(sock: socket.socket, out: str, header: dict[str, Any], secrets: list[str]) -> ProxyLog:
    """The recording of a proxy listening on `sock`, which is closed if the recording cannot be made."""
    try:
        return ProxyLog(out, header, secrets=secrets)
    except OSError:
        sock.close()
        raise


class Served:
    """A relay served by uvicorn on a socket of its own, in this thread (`run`) or a background one (`start`)."""

    def __init__(self, relay: Relay, sock: socket.socket, url: str) -> None:
        self.relay, self.sock, self.url = relay, sock, url
        self.port: int = sock.getsockname()[1]
        # A stream still open when the proxy is told to stop gets a few seconds, then is cut: stopping is bounded.
        config = uvicorn.Config(
            relay.app, log_level="warning", lifespan="on", access_log=False, timeout_graceful_shutdown=5
        )
        self.server = uvicorn.Server(config)
        logging.getLogger("uvicorn.error").addFilter(_QUIET_CUTS)  # after the config, which sets its loggers up
        self._thread: threading.Thread | None = None

    def run(self, ready: Callable[[], None] | None = None) -> int | None:
        """Serve until stopped; in the main thread, SIGINT and SIGTERM stop it alike, each ending the recording
        with its last line, from before `ready` is called (to say the proxy listens) on. Returns the signal that
        stopped it, if one did."""
        stopped: list[int] = []

        def stop(signum: int, frame: FrameType | None) -> None:
            stopped.append(signum)
            self.server.should_exit = True

        # While it serves, uvicorn catches these itself, and raises each again when it has stopped: here.
        main = threading.current_thread() is threading.main_thread()
        before = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)} if main else {}
        try:
            if ready is not None:
                ready()
            self.server.run(sockets=[self.sock])
        finally:
            end: dict[str, Any] = {"exchanges": self.relay.exchanges}
            if stopped:
                end["stopped_by"] = signal.Signals(stopped[0]).name
            self.relay.recording.log.close(end)
            for sig, handler in before.items():  # only once the last line is written
                signal.signal(sig, handler)
        return stopped[0] if stopped else None

    def start(self) -> Served:
        self._thread = threading.Thread(target=self.run, name="proxy-http", daemon=True)
        self._thread.start()
        while not self.server.started:
            if not self._thread.is_alive():
                raise OSError("the proxy did not start")
            self._thread.join(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def upstream_parts(url: str) -> tuple[str, str]:
    """`--upstream` as the proxy reaches it: the URL without its query, and the query (`?api-version=…`), which goes
    at the end of every request's URL, before the client's own. A URL with user-info is refused: the proxy passes on
    the client's own `Authorization`, and never sends a credential of its own in its place; a fragment is never
    sent, by any client."""
    try:
        parts = urlsplit(url)
    except ValueError:
        parts = urlsplit("")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"--upstream {redact_url(url)!r}: give an http:// or https:// URL")
    if "@" in parts.netloc:
        raise ValueError(
            f"--upstream {redact_url(url)!r}: the URL holds a user name or password, which the proxy does not send: "
            "the client's own credentials go through it (Authorization), so give them to the client"
        )
    return urlunsplit(parts._replace(query="", fragment="")), parts.query


def model_proxy(
    upstream: str,
    out: str,
    *,
    port: int = 0,
    timeout_s: float = TIMEOUT_S,
    transport: httpx2.AsyncBaseTransport | None = None,
) -> Served:
    """An OpenAI-compatible endpoint at http://127.0.0.1:PORT/v1 whose every request goes to `upstream` (a base URL,
    e.g. https://api.openai.com/v1): /v1/chat/completions to {upstream}/chat/completions, with the upstream's query
    after that path."""
    base, query = upstream_parts(upstream)
    base = base.rstrip("/")
    sock = bind(port)
    local = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    header = {"transport": "model-http", "upstream": redact_url(upstream), "listen": local}
    log = recording_log(sock, out, header, url_secrets(upstream))

    def target(path: str) -> str | None:
        if path != "/v1" and not path.startswith("/v1/"):
            return None
        return base + path[3:] + (f"?{query}" if query else "")

    return Served(Relay(target, ModelRecording(log), timeout_s=timeout_s, transport=transport), sock, local)


def mcp_http_proxy(
    upstream: str,
    out: str,
    *,
    port: int = 0,
    timeout_s: float = TIMEOUT_S,
    transport: httpx2.AsyncBaseTransport | None = None,
) -> Served:
    """A Streamable HTTP endpoint at http://127.0.0.1:PORT/mcp whose every request goes to the MCP server's URL."""
    base, query = upstream_parts(upstream)
    url = base + (f"?{query}" if query else "")
    sock = bind(port)
    local = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    header = {"transport": "streamable-http", "upstream": redact_url(upstream), "listen": local}
    log = recording_log(sock, out, header, url_secrets(upstream))
    return Served(Relay(lambda path: url, McpRecording(log), timeout_s=timeout_s, transport=transport), sock, local)
