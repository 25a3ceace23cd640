"""The MCP side: a transport wrapper that records every JSON-RPC frame, and the ways to reach a server.

The wrapper sits between `mcp.Client` and the real transport (in-memory or a stdio
subprocess), so what is recorded is exactly what the transport carried.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

import anyio
from mcp import Client, StdioServerParameters
from mcp.client import Transport
from mcp.client._memory import InMemoryTransport
from mcp.client.stdio import stdio_client
from mcp.shared.message import SessionMessage
from mcp_types import Implementation
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from flow.recorder import Recorder
from flow.trace import Kind

Era = Literal["handshake", "modern"]
TransportName = Literal["memory", "stdio"]
PROJECT_ROOT = Path(__file__).resolve().parent.parent
CLIENT_INFO = Implementation(name="mcp-flow-app", version="0.1.0")


def frame_text(message: SessionMessage) -> str:
    """The frame as the stdio transport serialises it."""
    return message.message.model_dump_json(by_alias=True, exclude_unset=True)


def frame_kind(frame: dict[str, Any]) -> Kind:
    if "method" in frame:
        return "mcp.request" if "id" in frame else "mcp.notification"
    return "mcp.error" if "error" in frame else "mcp.response"


def frame_summary(frame: dict[str, Any], method: str | None) -> str:
    """The one line a frame's arrow says; `method` is the request's, for a response."""
    if "method" in frame:
        params = frame.get("params") or {}
        if frame["method"] == "notifications/message":
            return f"log {params.get('level')}: {params.get('data')}"
        if frame["method"] == "tools/call":
            args = ", ".join(f"{k}={v}" for k, v in (params.get("arguments") or {}).items())
            return f"tools/call {params.get('name')}({args})"
        if frame["method"] == "resources/read":
            return f"resources/read {params.get('uri')}"
        if frame["method"] == "prompts/get":
            return f"prompts/get {params.get('name')}"
        return str(frame["method"])
    if "error" in frame:
        return f"error {frame['error'].get('code')}: {frame['error'].get('message')}"
    result = frame.get("result") or {}
    if method == "tools/call":
        return f"result of tools/call (isError: {str(result.get('isError', False)).lower()})"
    return f"result of {method}" if method else "result"


def progress_summary(params: dict[str, Any], what: str) -> str:
    """A progress notification's line, naming the request it reports on (`what`, e.g. "tools/call get_forecast")."""
    total = params.get("total")
    return (f"progress {params.get('progress'):g}{f'/{total:g}' if total is not None else ''} of {what}"
            + (f": {params['message']}" if params.get("message") else ""))


class FrameTap:
    """Records frames in both directions and pairs responses with their requests by id."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self._pending: dict[Any, tuple[str, float, int | None]] = {}
        self._progress: dict[Any, tuple[Any, int | None, str]] = {}  # progress token -> (request id, step, what)

    def outgoing(self, message: SessionMessage) -> None:
        rec = self.recorder
        if not rec.enabled:
            return
        text = frame_text(message)
        frame = json.loads(text)
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
        text = frame_text(item)
        frame = json.loads(text)
        kind = frame_kind(frame)
        method, t_start, step = None, None, None
        progress_of = None
        summary = None
        if kind in ("mcp.response", "mcp.error") and frame.get("id") in self._pending:
            method, t_start, req_step = self._pending.pop(frame["id"])
            step = 7 if req_step == 6 else req_step
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
            wire_text=text,
            jsonrpc_id=frame.get("id"),
            summary=summary or frame_summary(frame, method),
        )
        if progress_of is not None:
            hop.progress_of = progress_of  # type: ignore[attr-defined]  # the id of the request it reports on

    @property
    def unanswered(self) -> list[str]:
        return [method for method, _, _ in self._pending.values()]


class _TapRead:
    def __init__(self, inner: Any, tap: FrameTap) -> None:
        self._inner, self._tap = inner, tap

    async def receive(self) -> SessionMessage | Exception:
        item = await self._inner.receive()
        self._tap.incoming(item)
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


@dataclass(frozen=True, kw_only=True)
class ServerSpec:
    """Which server to reach and how: the demo server (in memory or over stdio), or any stdio command."""

    transport: TransportName = "stdio"
    fault: Literal["none", "die", "hang"] = "none"
    command: tuple[str, ...] = ()  # another server's command line; empty means the demo server

    @property
    def is_demo(self) -> bool:
        return not self.command

    def describe(self) -> dict[str, Any]:
        if not self.is_demo:
            return {"name": Path(self.command[0]).name, "transport": "stdio", "command": shlex.join(self.command),
                    "fault": "none"}
        command = None
        if self.transport == "stdio":
            command = " ".join(["python", "-m", "flow.demo_server", *self._fault_args()])
        return {"name": "weather-demo", "transport": self.transport, "command": command, "fault": self.fault}

    def _fault_args(self) -> list[str]:
        return ["--fault", self.fault] if self.fault != "none" else []

    def stdio_parameters(self) -> StdioServerParameters:
        if not self.is_demo:
            # Run exactly as configured by whoever started this program: no shell, the environment the SDK passes.
            return StdioServerParameters(command=self.command[0], args=list(self.command[1:]))
        return StdioServerParameters(
            command=sys.executable,
            args=["-m", "flow.demo_server", *self._fault_args()],
            env={"PYTHONPATH": str(PROJECT_ROOT)},
            cwd=str(PROJECT_ROOT),
        )


@asynccontextmanager
async def connect(
    spec: ServerSpec, *, era: Era, recorder: Recorder, timeout_s: float
) -> AsyncIterator[tuple[Client, FrameTap, IO[str] | None]]:
    """Open a recorded MCP session; yields the client, its tap, and the server's stderr (stdio only)."""
    tap = FrameTap(recorder)
    with contextlib.ExitStack() as files:
        err: IO[str] | None = None
        if spec.transport == "memory" and spec.is_demo:
            from flow.demo_server import shared_server

            inner: Transport = InMemoryTransport(shared_server(spec.fault))
        else:
            # The server's stderr goes to a file, so a crash can be reported with its last words.
            err = files.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace"))
            inner = stdio_client(spec.stdio_parameters(), errlog=err)
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
            if entered or err is None:
                raise
            # It never got as far as answering: its own last words say why better than "connection closed".
            last = server_stderr_tail(err).splitlines()
            raise ServerStartError(last[-1] if last else f"{type(exc).__name__}: {exc}") from exc


class ServerStartError(Exception):
    """The server process failed before the session was set up; the message is its last line of stderr."""


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
        }


@asynccontextmanager
async def open_session(spec: ServerSpec, *, era: Era, recorder: Recorder, timeout_s: float = 10.0) -> AsyncIterator[McpSession]:
    """Connect once and run many flows on the same session (pass it to `run_flow(session=...)`)."""
    recorder.step = 2
    async with connect(spec, era=era, recorder=recorder, timeout_s=timeout_s) as (client, tap, _err):
        yield McpSession(client, tap, spec)


def server_stderr_tail(err: IO[str] | None, limit: int = 2000) -> str:
    if err is None:
        return ""
    err.flush()
    err.seek(0)
    return err.read()[-limit:].strip()
