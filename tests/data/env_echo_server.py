"""A stdio MCP server whose one tool answers with the value of an environment variable it was given: a server
that echoes a secret back, as a misbehaving or debugging server may."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("env-echo")


@server.tool()
def getenv(name: str) -> str:
    """The value of one environment variable of this server's process."""
    return os.environ.get(name, "")


if __name__ == "__main__":
    server.run()
