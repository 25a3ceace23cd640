"""A test MCP server that never stops asking: in 2025-11-25 its tool sends elicitation/create again and again in the
middle of tools/call; in 2026-07-28 it answers every tools/call (and every retry) with an input-required result.
Run over stdio: `python tests/data/asks_forever.py`."""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

server = MCPServer("asks-forever")


class Anything(BaseModel):
    x: str = ""


@server.tool(description="Asks the user a question, forever.")
async def loop(ctx: Context) -> InputRequiredResult | str:
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        form = ElicitRequestFormParams(message="Again?", requested_schema={"type": "object", "properties": {}})
        return InputRequiredResult(input_requests={"again": ElicitRequest(params=form)}, request_state="round")
    for _ in range(1000):
        await ctx.elicit("Again?", Anything)
    return "never"


if __name__ == "__main__":
    anyio.run(server.run_stdio_async)
