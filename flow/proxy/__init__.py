"""Proxies that record any app: an MCP server over stdio or Streamable HTTP, and an OpenAI-compatible model API,
each relayed unchanged while what crosses is written to a JSON Lines recording (`flow.proxy.log`)."""
