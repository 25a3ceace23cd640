"""The MCP side: a transport wrapper that records every JSON-RPC frame, and the ways to reach a server.

The wrapper sits between `mcp.Client` and the real transport (in-memory, a stdio subprocess,
or Streamable HTTP), so what is recorded is exactly what the transport carried. Over HTTP a
second tap on the HTTP client notes what only HTTP says: the session id, failed statuses, and
which JSON-RPC answers really arrived (the SDK makes up an error frame when none did).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import struct
import tempfile
import termios
import uuid
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import IO, Any

import anyio
import httpx2
from mcp import Client
from mcp.client import Transport
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT, Implementation
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from flow.capture.mcp import MAX_FRAME_BYTES, SSE_EVENT_SLACK, FrameTap, McpHttpTap, TappedTransport
from flow.capture.recorder import Recorder
from flow.servers.memory import MemoryTransport
from flow.servers.spec import SERVER_TOKEN_ENV, Era, ServerSpec, pids_marked, reap_leftovers
from flow.text.errors import FlowError, Note, ServerFault, ServerHttpError
from flow.trace.factory import APP_NAME
from flow.trace.payloads import ErrorPayload, HttpExchange
from flow.trace.redact import redact_url
from flow.trace.steps import Step

CLIENT_INFO = Implementation(name=APP_NAME, version="0.1.0")


STDERR_TAIL_BYTES = 2048  # how much of a server's stderr is read back; the rest stays in its file


@asynccontextmanager
async def connect(
    spec: ServerSpec,
    *,
    era: Era,
    recorder: Recorder,
    timeout_s: float,
    max_frame_bytes: int = MAX_FRAME_BYTES,
    headers: Mapping[str, str] | None = None,
    client_info: Implementation = CLIENT_INFO,
    callbacks: Mapping[str, Any] | None = None,
) -> AsyncIterator[tuple[Client, FrameTap, IO[str] | None]]:
    """Open a recorded MCP session; yields the client, its tap, and the server's stderr (stdio only).

    A stdio server that breaks the protocol, goes silent or exits raises `ServerFault` naming what it
    did; when the session ends, any process the server left behind is killed. Every request has
    `timeout_s` in all (the SDK's clock runs from sending it to its answer; bytes trickling in do not reset it), and a message from the server over `max_frame_bytes` ends the session. `headers` (HTTP only) are
    sent instead of the bearer token the spec names: those a hosted-MCP request gave its provider. `callbacks`: the
    SDK client's answers to a server that asks (`flow.engine.host.Host.callbacks`), declared as its capabilities."""
    if spec.is_http:
        async with _connect_http(
            spec,
            era=era,
            recorder=recorder,
            timeout_s=timeout_s,
            max_frame_bytes=max_frame_bytes,
            headers=headers,
            client_info=client_info,
            callbacks=callbacks,
        ) as opened:
            yield opened
        return
    tap = FrameTap(recorder, max_frame_bytes=max_frame_bytes)
    with contextlib.ExitStack() as files:
        inner, err = _inner_transport(spec, tap, recorder=recorder, files=files)
        client = Client(
            TappedTransport(inner, tap),
            mode="legacy" if era == "handshake" else "auto",
            read_timeout_seconds=timeout_s,
            client_info=CLIENT_INFO,
            cache=None,  # every list must really cross the wire, or the lesson has a hole in it
            **(callbacks or {}),
        )
        entered = False
        try:
            async with client:
                entered = True
                try:
                    yield client, tap, err
                except Exception as exc:
                    if _timed_out(leaf_exception(exc)) and tap.unanswered:
                        unread = tap.unread_bytes()  # now, while the server and its pipe are still there
                        tap.unread_bytes = lambda: unread
                    raise
        except Exception as exc:
            failure = _named_failure(leaf_exception(exc), spec, tap, err, entered=entered, timeout_s=timeout_s)
            if failure is None:
                raise
            raise failure from exc
        finally:
            tap.stderr_bytes = server_stderr_bytes(err)


def _inner_transport(
    spec: ServerSpec, tap: FrameTap, *, recorder: Recorder, files: contextlib.ExitStack
) -> tuple[Transport, IO[str] | None]:
    """The transport the tap wraps: the server in this process, or a subprocess over stdio with its stderr file.

    A subprocess gets a random token in its environment, kept out of the trace, by which the processes it leaves
    behind are found and killed when `files` closes."""
    if spec.transport == "memory" and spec.server is not None:
        return MemoryTransport(spec.server, on_died=tap.server_stopped), None
    if spec.transport == "memory" and spec.is_demo:
        from flow.servers.builtin import demo_notifications, demo_server

        server, notifications = demo_server(spec.fault, asks=spec.asks), demo_notifications(asks=spec.asks)
        return MemoryTransport(server, on_died=tap.server_stopped, notifications=notifications), None
    token = uuid.uuid4().hex
    # The server's stderr goes to a file, so a crash can be reported with its last words
    # and a flood of it costs disk, not memory.
    err = files.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace"))
    params = spec.stdio_parameters()
    params = params.model_copy(update={"env": {**(params.env or {}), SERVER_TOKEN_ENV: token}})
    recorder.add_secret(token)
    inner = stdio_client(params, errlog=err)
    tap.unread_bytes = lambda: stdout_backlog(token)
    files.callback(reap_leftovers, token)
    return inner, err


def _named_failure(
    leaf: BaseException, spec: ServerSpec, tap: FrameTap, err: IO[str] | None, *, entered: bool, timeout_s: float
) -> FlowError | None:
    """What a session that failed with `leaf` is reported as: a server that never started, in its own last words;
    a fault the tap saw or a request left unanswered; None when it is none of these (the error goes on as it is)."""
    if tap.fault is None and not entered and err is not None and not _timed_out(leaf):
        # It never got as far as answering: its own last words say why better than "connection closed".
        last = server_stderr_tail(err).splitlines()
        if isinstance(leaf, FileNotFoundError) and not last:
            return ServerStartError("server_no_command", command=leaf.filename or spec.command[:1])
        said = last[-1] if last else f"{type(leaf).__name__}: {leaf}"
        return ServerStartError("server_said", said=said, notes=_missing_module(said) + _flood_notes(err))
    fault = tap.fault or _silence(leaf, tap, err, timeout_s)
    if fault is not None:
        return fault.with_notes(*_flood_notes(err))
    return None


def _timed_out(exc: BaseException) -> bool:
    return isinstance(exc, TimeoutError) or (isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT)


def _silence(exc: BaseException, tap: FrameTap, err: IO[str] | None, timeout_s: float) -> ServerFault | None:
    """A request the server never answered, because it went quiet or its connection closed; recorded as its hop."""
    if not tap.unanswered:
        return None
    method = tap.unanswered[0]
    payload: ErrorPayload
    if _timed_out(exc):
        fault, payload = timed_out(method, timeout_s, tap.unread_bytes())
    elif isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED and tap.stopped is not None:
        fault = ServerFault("server_stopped", method=method, said=tap.stopped)
        payload = {"error": "connection closed", "method": method, "server_raised": tap.stopped}
    elif isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED:
        lines = server_stderr_tail(err).splitlines()
        fault = ServerFault("server_closed", method=method, said=lines[-1][:200] if lines else "")
        payload = {"error": "connection closed", "method": method}
    else:
        return None
    if err is not None:
        payload["server_stderr"] = server_stderr_tail(err)
    tap.record_fault(fault, payload)
    return fault


def timed_out(method: str, timeout_s: float, unread: int | None) -> tuple[ServerFault, ErrorPayload]:
    """A request unanswered at its timeout: silence, or an answer the server had begun to send (bytes of it were
    still waiting to be read), which a large answer over stdio is: what the user is told, and what the hop keeps."""
    payload: ErrorPayload = {"error": "timeout", "method": method, "timeout_s": timeout_s}
    if unread:
        payload["answering"], payload["unread_bytes"] = True, unread
        return ServerFault("server_slow_answer", method=method, timeout_s=timeout_s), payload
    return ServerFault("server_silent", method=method, timeout_s=timeout_s), payload


def stdout_backlog(token: str) -> int | None:
    """How many bytes a stdio server (the processes marked by `token`) has written to its stdout that this process
    has not read yet, as the kernel counts them in the pipe; None where that cannot be told (no /proc)."""
    pipes = set()
    for pid in pids_marked(token):
        with contextlib.suppress(OSError):
            link = os.readlink(f"/proc/{pid}/fd/1")
            if link.startswith("pipe:"):
                pipes.add(link)
    if not pipes:
        return None
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/self/fd/{name}") in pipes:  # the read end the client holds
                    waiting = fcntl.ioctl(int(name), termios.FIONREAD, b"\0\0\0\0")
                    return int(struct.unpack("i", waiting)[0])
    return None


class ServerStartError(FlowError):
    """The server process failed before the session was set up; the line quotes its last line of stderr."""


def leaf_exception(exc: BaseException) -> BaseException:
    """The failure that matters inside the exception groups task groups wrap it in."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _http_failure_line(spec: ServerSpec, http: McpHttpTap, unanswered: list[str]) -> ServerHttpError:
    failure: HttpExchange | dict[str, Any] = http.failure or {}
    status, url = failure.get("status"), redact_url(spec.url)
    body = failure.get("response_body")
    detail = ""
    if isinstance(body, dict):
        detail = str(body.get("error_description") or body.get("error") or body.get("message") or "")
    if status == 401 and spec.token():
        return ServerHttpError("http_token_refused")
    if status == 401:
        return ServerHttpError("http_token_needed", env=spec.bearer_token_env)
    if status == 404:
        return ServerHttpError("http_no_endpoint", url=url)
    if status is not None:
        return ServerHttpError("http_status", status=status, detail=detail)
    cause = f"{failure.get('exception')}: {failure.get('message')}"
    if not http.reached:
        return ServerHttpError("http_unreachable", url=url, cause=cause)
    return ServerHttpError("http_broke", during=unanswered[-1] if unanswered else "", cause=cause)


@asynccontextmanager
async def _connect_http(
    spec: ServerSpec,
    *,
    era: Era,
    recorder: Recorder,
    timeout_s: float,
    max_frame_bytes: int = MAX_FRAME_BYTES,
    headers: Mapping[str, str] | None = None,
    client_info: Implementation = CLIENT_INFO,
    callbacks: Mapping[str, Any] | None = None,
) -> AsyncIterator[tuple[Client, FrameTap, IO[str] | None]]:
    tap = FrameTap(recorder, max_frame_bytes=max_frame_bytes)
    http = McpHttpTap(httpx2.AsyncHTTPTransport(), tap)
    tap.http = http
    tap.unread_bytes = http.arriving_bytes
    if headers is None:
        token = spec.token()
        headers = {"Authorization": f"Bearer {token}"} if token else {}
    # The SDK's own timeouts, but connecting fails as fast as an answer may take.
    timeout = httpx2.Timeout(30.0, connect=timeout_s, read=300.0)
    async with httpx2.AsyncClient(transport=http, headers=headers, timeout=timeout) as http_client:
        client = Client(
            # The SDK's own cap on an event (1 MB unless told) follows the tap's, a little above it: it counts the
            # event's other lines (`event:`, `id:`) too, and must not fire before the tap names the oversized message.
            TappedTransport(
                streamable_http_client(
                    spec.url, http_client=http_client, max_sse_event_size=max_frame_bytes + SSE_EVENT_SLACK
                ),
                tap,
            ),
            mode="legacy" if era == "handshake" else "auto",
            read_timeout_seconds=timeout_s,
            client_info=client_info,
            cache=None,
            **(callbacks or {}),
        )
        try:
            async with client:
                yield client, tap, None
        except Exception as exc:
            if tap.fault is not None and isinstance(
                leaf_exception(exc), (MCPError, anyio.EndOfStream, httpx2.HTTPError)
            ):
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
async def open_session(
    spec: ServerSpec,
    *,
    era: Era,
    recorder: Recorder,
    timeout_s: float = 10.0,
    callbacks: Mapping[str, Any] | None = None,
) -> AsyncIterator[McpSession]:
    """Connect once and run many flows on the same session (pass it to `run_flow(session=...)`); `callbacks` as for
    `connect` (then pass their host as `run_flow(session_host=...)`)."""
    recorder.step = Step.LIST_TOOLS
    async with connect(spec, era=era, recorder=recorder, timeout_s=timeout_s, callbacks=callbacks) as (client, tap, _):
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


_NO_MODULE = re.compile(r"No module named '?([\w.]+)'?")


def _missing_module(said: str) -> tuple[Note, ...]:
    """What to say after a Python server's last words when they are that it could not find a module: most often
    `python -m flow proxy` (or a server of one's own) started outside the folder that holds it."""
    found = _NO_MODULE.search(said)
    return (("python_no_module", {"module": found.group(1)}),) if found else ()


def _flood_notes(err: IO[str] | None) -> tuple[Note, ...]:
    """What to say after a server's failure when it flooded its stderr."""
    size = server_stderr_bytes(err)
    if size <= STDERR_FLOOD_BYTES:
        return ()
    return (("stderr_flood", {"written_bytes": size, "kept_bytes": STDERR_TAIL_BYTES}),)


def server_stderr_bytes(err: IO[str] | None) -> int:
    """How much the server wrote to stderr in all."""
    if err is None:
        return 0
    err.flush()
    return os.fstat(err.fileno()).st_size
