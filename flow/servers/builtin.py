"""The built-in tools: the demo MCP server (run in process by the memory transport) and the same functions
that direct mode calls. The one module of `flow` that names the `weather_demo` package."""

from __future__ import annotations

from typing import Any

from weather_demo import tools as demo_tools

DIRECT_FUNCTIONS = demo_tools.DIRECT_FUNCTIONS
DIRECT_TOOL_SCHEMAS = demo_tools.DIRECT_TOOL_SCHEMAS
CITY_NAMES = demo_tools.CITY_NAMES  # the cities the mock model knows to ask about
DIRECT_WRITTEN_BY = "hand, in weather_demo/tools.py"
SERVER_BUILT_FROM = "@server.tool() decorators in weather_demo/server.py"

_listed: list[dict[str, Any]] = []  # the demo server's tools never change within a process


def demo_server(fault: Any = "none") -> Any:
    """The demo server, built once per fault (imported on first use: a run on another server never loads it)."""
    from weather_demo.server import shared_server

    return shared_server(fault)


async def demo_tool_listing() -> list[dict[str, Any]]:
    """What the demo server's decorators built, read from the same code the server runs."""
    if not _listed:
        _listed.extend(
            t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in await demo_server().list_tools()
        )
    return _listed


def many_tools_server(n: int) -> Any:
    """The many-tools demo server (get_weather among operations tools) with its first `n` tools, run in process:
    what a host pays in every model request for the tool definitions it exposes."""
    from weather_demo.many_tools import build_many_tools_server

    return build_many_tools_server(n)
