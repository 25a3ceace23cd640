"""An MCP server object run in this process, reached over memory streams: a client `Transport` built on the SDK's
public `create_client_server_memory_streams` and the server's own `run` (the SDK's `InMemoryTransport` does the same,
but lives in a private module)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import TracebackType
from typing import Any

import anyio
from mcp.server import MCPServer, Server
from mcp.shared.memory import MessageStream, create_client_server_memory_streams

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
async def _served(server: Server[Any]) -> AsyncIterator[MessageStream]:
    async with create_client_server_memory_streams() as (client_streams, (server_read, server_write)):
        done = anyio.Event()

        async def serve() -> None:
            try:
                await server.run(server_read, server_write, server.create_initialization_options())
            finally:
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


class MemoryTransport:
    """A `Transport` (the SDK's protocol for `mcp.Client`) to a server run in this process while it is entered."""

    def __init__(self, server: Server[Any] | MCPServer) -> None:
        self._server = lowlevel_server(server)
        self._cm: AbstractAsyncContextManager[MessageStream] | None = None

    async def __aenter__(self) -> MessageStream:
        self._cm = _served(self._server)
        return await self._cm.__aenter__()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        cm, self._cm = self._cm, None
        return await cm.__aexit__(exc_type, exc, tb) if cm is not None else None
