"""The built-in tools: the demo MCP server (run in process by the memory transport) and the same functions
that direct mode calls. The one module of `flow` that names the `weather_demo` package."""

from __future__ import annotations

import functools
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio

from weather_demo import tools as demo_tools

DIRECT_FUNCTIONS = demo_tools.DIRECT_FUNCTIONS
DIRECT_TOOL_SCHEMAS = demo_tools.DIRECT_TOOL_SCHEMAS
CITY_NAMES = demo_tools.CITY_NAMES  # the cities the mock model knows to ask about
DIRECT_WRITTEN_BY = "hand, in weather_demo/tools.py"
SERVER_BUILT_FROM = "@server.tool() decorators in weather_demo/server.py"

_listed: dict[bool, list[dict[str, Any]]] = {}  # what the demo server is built with, with and without `asks`


def demo_server(fault: Any = "none", *, asks: bool = False) -> Any:
    """The demo server, built once per fault (imported on first use: a run on another server never loads it);
    `asks` adds the tools that ask the client back."""
    from weather_demo.server import shared_server

    return shared_server(fault, asks)


def demo_notifications(*, asks: bool) -> Any:
    """The changes the demo server declares it will announce (`weather_demo.server.notification_options`)."""
    from weather_demo.server import notification_options

    return notification_options(asks=asks)


def demo_roots() -> list[str]:
    """The folder the demo's `class_notes` tool reads when a run names no root of its own: the class's notes."""
    from weather_demo.asking import NOTES_DIR

    return [str(NOTES_DIR)]


async def demo_tool_listing(*, asks: bool = False) -> list[dict[str, Any]]:
    """What the demo server's decorators built (with the tools that ask back, for `asks`), read from the same code the
    server runs."""
    if asks not in _listed:
        tools = await demo_server(asks=asks).list_tools()
        _listed[asks] = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
    return _listed[asks]


def many_tools_server(n: int) -> Any:
    """The many-tools demo server (get_weather among operations tools) with its first `n` tools, run in process:
    what a host pays in every model request for the tool definitions it exposes."""
    from weather_demo.many_tools import build_many_tools_server

    return build_many_tools_server(n)


DEMO_HTTP_PATH = "/mcp"


@asynccontextmanager
async def demo_over_http(token: str, *, asks: bool = False) -> AsyncIterator[str]:
    """The demo server over Streamable HTTP on a free loopback port, in this process, for as long as the block runs;
    yields its URL. Requests without `token` as their bearer token are refused (401), as from any server on a
    network: the one that calls it (a model provider's MCP client) must be given the credential. `asks` adds the
    tools that ask the client back."""
    import uvicorn

    from weather_demo.server import allowed_hosts, build_server, transport_security

    host = "127.0.0.1"
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((host, 0))
    sock.listen(16)
    url = f"http://{host}:{sock.getsockname()[1]}{DEMO_HTTP_PATH}"
    # Over HTTP the SDK declares tools.listChanged false whatever the server sends (`notification_options`).
    app = build_server(bearer_token=token, asks=asks).streamable_http_app(
        streamable_http_path=DEMO_HTTP_PATH, host=host, transport_security=transport_security(allowed_hosts(host))
    )
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(functools.partial(server.serve, sockets=[sock]))
            with anyio.fail_after(10):
                while not server.started:
                    await anyio.sleep(0.005)
            try:
                yield url
            finally:
                server.should_exit = True
    finally:
        sock.close()
