"""A model request and its reply in the GenAI semantic conventions' terms, whichever model API carried them.

The conventions describe a chat the same way for every provider: the system instructions, input and output messages
of typed parts (`text`, `tool_call` with an id, a name and the arguments, `tool_call_response` with the id it
answers), the tool definitions as `{type, name, description, parameters}`, and a finish reason of their own
(`tool_call`, `stop`, `length`) beside the provider's. Each API puts these in other places; its module in
`flow.wire` reads a recorded body back into neutral messages and parts (`WireApi.input_messages`, `replies`, ...),
and this module writes those in the conventions' shapes, the same for every API.
"""

from __future__ import annotations

from typing import Any, assert_never

from flow.interop.common import json_or_text
from flow.wire.base import ApiName, Message, OtherPart, Part, Reply, TextPart, ToolCallPart, ToolReturnPart, WireApi


def provider(api: WireApi) -> str:
    """`gen_ai.provider.name`: the conventions' value for the provider whose API the app spoke, the one whose SDK
    speaks it ("openai", "anthropic"; a local server or a gateway that speaks it is named the same way: the wire is
    that provider's)."""
    return api.sdk


OPENAI_API_TYPES: dict[ApiName, str] = {"chat": "chat_completions", "responses": "responses"}


"""`openai.api.type`: which of OpenAI's two APIs a span used (Anthropic's spans have no such attribute)."""


def as_part(piece: Part) -> dict[str, Any]:
    """One neutral part as the conventions write it."""
    match piece:
        case TextPart(text=text):
            return {"type": "text", "content": text}
        case ToolCallPart(call_id=call_id, name=name, arguments=arguments):
            return {"type": "tool_call", "id": call_id, "name": name, "arguments": json_or_text(arguments)}
        case ToolReturnPart(call_id=call_id, content=content):
            return {"type": "tool_call_response", "id": call_id, "response": content}
        case OtherPart(type=kind, value=value):
            return {"type": kind, "value": value}
        case _ as never:
            assert_never(never)


def as_message(said: Message) -> dict[str, Any]:
    """A message: a role and typed parts."""
    return {"role": said.role, "parts": [as_part(p) for p in said.parts]}


def output_message(reply: Reply) -> dict[str, Any]:
    """The model's reply as the conventions' assistant message with their finish reason (gen_ai.response.finish_reasons
    keeps the provider's own word)."""
    return {"role": "assistant", "parts": [as_part(p) for p in reply.parts], "finish_reason": reply.finish}


def input_messages(body: Any, api: WireApi) -> list[dict[str, Any]]:
    """What a request sends of the conversation, as the conventions' messages (Chat's system message among them)."""
    return [as_message(m) for m in api.input_messages(body)]


def system_instructions(body: Any, api: WireApi) -> list[dict[str, Any]] | None:
    """The system text a request sends beside its messages (Responses' `instructions`, Messages' `system`), as text
    parts; None when it sends none there (Chat: its system prompt is a message)."""
    return [as_part(p) for p in api.instructions(body)] or None


def tool_definitions(body: Any, api: WireApi) -> list[dict[str, Any]] | None:
    """The request's tools as `{type, name, description, parameters}`."""
    return api.tool_definitions(body) or None
