"""An MCP server object run in this process, reached over memory streams: a client `Transport` built on the SDK's
public `create_client_server_memory_streams` and the server's own `run` (the SDK's `InMemoryTransport` does the same,
but lives in a private module)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import TracebackType
from typing import Any, Self

import anyio
from mcp.client._transport import WriteStream  # the SDK's stream protocol; no public module exports it yet
from mcp.server import MCPServer, NotificationOptions, Server
from mcp.shared.memory import MessageStream, create_client_server_memory_streams
from mcp.shared.message import SessionMessage

SHUTDOWN_GRACE_S = 2.0  # how long a server's own teardown may take once its input has ended, before it is cancelled


def lowlevel_server(server: Server[Any] | MCPServer) -> Server[Any]:
    """The low-level `Server` that serves a connection over a pair of streams."""
    if isinstance(server, MCPServer):
        # MCPServer has no public way to its low-level server: the SDK's own `Client` and `InMemoryTransport` read this
        # attribute (with a to-do to make it public). The one public route, `streamable_http_app().session_manager.app`,
        # builds a Starlette app and an HTTP session manager to get there; reading the attribute is the smaller step.
        return server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    return server


@asynccontextmanager
async def _served(
    server: Server[Any], on_died: Callable[[str], None], notifications: NotificationOptions | None
) -> AsyncIterator[MessageStream]:
    async with create_client_server_memory_streams() as (client_streams, (server_read, server_write)):
        done = anyio.Event()

        async def serve() -> None:
            try:
                options = server.create_initialization_options(notifications)
                await server.run(server_read, _ClosedByHost(server_write), options)
            except BaseException as exc:
                if not _died(exc):
                    raise
                # A server that raised out of its run has died, and only it: its side of the
                # streams closes, which its client sees as a process's pipes closing; nothing in this process exits.
                leaf = _leaf(exc)
                on_died(str(leaf) or type(leaf).__name__)
            finally:
                await server_write.aclose()
                await server_read.aclose()
                done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(serve)
            try:
                yield client_streams
            finally:
                # The end of its input ends the server's loop: close both ways rather than cancel it, and cancel
                # only a server whose own teardown (its lifespan's exit) does not finish in time.
                await client_streams[1].aclose()
                await server_write.aclose()
                with anyio.move_on_after(SHUTDOWN_GRACE_S):
                    await done.wait()
                if not done.is_set():
                    tg.cancel_scope.cancel()


class _ClosedByHost:
    """The server's side of its output, which the server's run cannot close: its host closes it once it knows why the
    run ended, so a client never sees the connection close before the host has heard what the server raised."""

    def __init__(self, inner: WriteStream[SessionMessage]) -> None:
        self._inner = inner

    async def send(self, item: SessionMessage, /) -> None:
        await self._inner.send(item)

    async def aclose(self) -> None:
        return None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> None:
        return None


def _died(exc: BaseException) -> bool:
    """Whether a server's run ended by failing rather than by being cancelled or interrupted."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_died(inner) for inner in exc.exceptions)
    return not isinstance(exc, (anyio.get_cancelled_exc_class(), KeyboardInterrupt))


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


class MemoryTransport:
    """A `Transport` (the SDK's protocol for `mcp.Client`) to a server run in this process while it is entered.

    `on_died` hears what the server raised when its run failed (it is then gone, as a crashed process would be);
    `notifications` are the changes the server declares it will announce (its capabilities' listChanged)."""

    def __init__(
        self,
        server: Server[Any] | MCPServer,
        *,
        on_died: Callable[[str], None] | None = None,
        notifications: NotificationOptions | None = None,
    ) -> None:
        self._server = lowlevel_server(server)
        self._cm: AbstractAsyncContextManager[MessageStream] | None = None
        self._on_died = on_died or (lambda said: None)
        self._notifications = notifications

    async def __aenter__(self) -> MessageStream:
        self._cm = _served(self._server, self._on_died, self._notifications)
        return await self._cm.__aenter__()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None:
        cm, self._cm = self._cm, None
        return await cm.__aexit__(exc_type, exc_val, exc_tb) if cm is not None else None
