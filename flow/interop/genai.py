"""A model request and its reply in the GenAI semantic conventions' terms, whichever model API carried them.

The conventions describe a chat the same way for every provider: the system instructions, input and output messages
of typed parts (`text`, `tool_call` with an id, a name and the arguments, `tool_call_response` with the id it
answers), the tool definitions as `{type, name, description, parameters}`, and a finish reason of their own
(`tool_call`, `stop`, `length`) beside the provider's. Each API puts these in other places: Chat Completions has the
system prompt and the tool results among its messages and nests a tool under `function`; Responses has
`instructions`, input items (`function_call`, `function_call_output`) and flat tools; Anthropic Messages has a
top-level `system`, `tool_use` / `tool_result` content blocks whose input is an object, and `input_schema`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, assert_never

from flow.interop.common import json_or_text
from flow.trace.model import as_dict, as_list
from flow.wire.base import ApiName, Turn, WireApi
from flow.wire.hosted import approval_items
from flow.wire.recorded import conversation

PROVIDERS: dict[ApiName, str] = {"chat": "openai", "responses": "openai", "messages": "anthropic"}


"""`gen_ai.provider.name` per API: the conventions' value for the provider whose API the app spoke (a local server
or a gateway that speaks it is named the same way: the wire is that provider's)."""


OPENAI_API_TYPES: dict[ApiName, str] = {"chat": "chat_completions", "responses": "responses"}


"""`openai.api.type`: which of OpenAI's two APIs a span used (Anthropic's spans have no such attribute)."""


# The conventions' finish reasons for the providers' own words.
_FINISH = {"tool_calls": "tool_call", "function_call": "tool_call", "tool_use": "tool_call", "end_turn": "stop"}
_FINISH |= {"max_tokens": "length", "stop_sequence": "stop", "completed": "stop", "incomplete": "length"}


def _text_parts(content: Any) -> list[dict[str, Any]]:
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    if isinstance(content, list):  # content parts: OpenAI's, or text blocks
        return [
            {"type": "text", "content": p.get("text")}
            if isinstance(p, dict) and p.get("type") in ("text", "input_text", "output_text")
            else {"type": str(p.get("type") if isinstance(p, dict) else "unknown"), "value": p}
            for p in content
        ]
    return [{"type": "unknown", "value": content}]


def _tool_call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    return {"type": "tool_call", "id": call_id, "name": name, "arguments": json_or_text(arguments)}


def _tool_response(call_id: Any, response: Any) -> dict[str, Any]:
    return {"type": "tool_call_response", "id": call_id, "response": response}


def chat_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """One Chat Completions message: a role and typed parts."""
    role = message.get("role", "user")
    if role == "tool":
        return {"role": "tool", "parts": [_tool_response(message.get("tool_call_id"), message.get("content"))]}
    parts = _text_parts(message.get("content"))
    for call in map(as_dict, as_list(message.get("tool_calls"))):
        fn = as_dict(call.get("function"))
        parts.append(_tool_call(call.get("id"), fn.get("name"), fn.get("arguments")))
    return {"role": role, "parts": parts}


def _responses_item(item: Any) -> dict[str, Any]:
    """One Responses input item: a message (the user's, or an output message sent back), a function_call the model
    made, the function_call_output that answers it; an item of another type kept as it came."""
    if isinstance(item, str):
        return {"role": "user", "parts": _text_parts(item)}
    item = as_dict(item)
    kind = item.get("type")
    if kind == "function_call":
        return {
            "role": "assistant",
            "parts": [_tool_call(item.get("call_id"), item.get("name"), item.get("arguments"))],
        }
    if kind == "function_call_output":
        return {"role": "tool", "parts": [_tool_response(item.get("call_id"), item.get("output"))]}
    if kind in (None, "message"):
        return {"role": item.get("role", "user"), "parts": _text_parts(item.get("content"))}
    return {"role": "assistant", "parts": [{"type": str(kind), "value": item}]}


def _messages_message(message: Any) -> dict[str, Any]:
    """One Anthropic message: its text, tool_use and tool_result blocks as parts (a tool_result stays in the user
    message that carries it, as on the wire)."""
    message = as_dict(message)
    content = message.get("content")
    parts: list[dict[str, Any]] = []
    for block in as_list(content) if not isinstance(content, str) else []:
        block = as_dict(block)
        kind = block.get("type")
        if kind == "tool_use":
            parts.append(_tool_call(block.get("id"), block.get("name"), block.get("input")))
        elif kind == "tool_result":
            parts.append(_tool_response(block.get("tool_use_id"), block.get("content")))
        else:
            parts += _text_parts([block])
    return {"role": message.get("role", "user"), "parts": parts or _text_parts(content)}


def input_messages(body: Any, api: WireApi) -> list[dict[str, Any]]:
    """What a request sends of the conversation, as the conventions' messages (Chat's system message among them)."""
    items = conversation(body, api)
    match api.name:
        case "responses":
            return [_responses_item(i) for i in items]
        case "messages":
            return [_messages_message(m) for m in items]
        case "chat":
            return [chat_message(as_dict(m)) for m in items]
        case _ as never:
            assert_never(never)


def system_instructions(body: Any, api: WireApi) -> list[dict[str, Any]] | None:
    """Responses' `instructions` and Messages' `system`, as text parts; None for Chat (its system prompt is a
    message)."""
    body = as_dict(body)
    match api.name:
        case "chat":
            return None
        case "responses":
            return _text_parts(body.get("instructions")) or None
        case "messages":
            return _text_parts(body.get("system")) or None
        case _ as never:
            assert_never(never)


def tool_definitions(body: Any, api: WireApi) -> list[dict[str, Any]] | None:
    """The request's tools as `{type, name, description, parameters}`: Chat's out of `function`, Responses' as they
    are, Messages' `input_schema` under the conventions' name."""
    tools = [as_dict(t) for t in as_list(as_dict(body).get("tools"))]
    if not tools:
        return None
    match api.name:
        case "chat":
            return [{"type": t.get("type", "function"), **as_dict(t.get("function"))} for t in tools]
        case "responses":
            return tools
        case "messages":
            return [
                {
                    "type": t.get("type", "function"),
                    **{("parameters" if k == "input_schema" else k): v for k, v in t.items()},
                }
                for t in tools
            ]
        case _ as never:
            assert_never(never)


def output_message(turn: Turn, api: WireApi) -> dict[str, Any]:
    """The model's turn, read by its API, as the conventions' assistant message with their finish reason."""
    parts = _text_parts(turn.text)
    for call in turn.calls:
        parts.append(_tool_call(call.id, call.name, call.parsed if call.parsed is not None else call.arguments))
    # Hosted MCP: the provider's request for the app's approval, a part of its own type (the conventions' generic part)
    parts += [{"type": "mcp_approval_request", "value": item} for item in approval_items(turn.raw)]
    finish = "tool_call" if turn.calls else _FINISH.get(str(turn.finish), turn.finish or "stop")
    return {"role": "assistant", "parts": parts, "finish_reason": finish}


def chat_output(message: Mapping[str, Any], finish_reason: Any) -> dict[str, Any]:
    """A Chat Completions assistant message; gen_ai.response.finish_reasons keeps the provider's own word."""
    finish = "tool_call" if finish_reason in ("tool_calls", "function_call") else finish_reason or "stop"
    return {**chat_message({**message, "role": "assistant"}), "finish_reason": finish}
