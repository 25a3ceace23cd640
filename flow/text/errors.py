"""Errors that carry their own one-line explanation, in both languages."""

from __future__ import annotations


class Explained(Exception):
    """A failure whose message is already the one line the user sees; `zh` is the same line in Chinese."""

    def __init__(self, message: str, zh: str | None = None) -> None:
        super().__init__(message)
        self.zh = zh or message


class ServerHttpError(Explained):
    """An MCP server over HTTP refused or dropped the connection."""


class ServerFault(Explained):
    """The server broke the protocol, went silent or exited mid-request: the line says what it did."""


class ModelLimitError(Explained):
    """A model call crossed its total deadline or its size cap; the tap recorded where, as an llm.error hop.

    Not an httpx error on purpose: the openai SDK hands it on as it is, without retrying it."""


class MalformedResponse(Explained):
    """The model endpoint answered, but not with a chat completion the app can read."""
