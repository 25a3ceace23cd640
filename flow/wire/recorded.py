"""Which model API a recorded model hop speaks, and what its body says read through that API's wire format.

A request knows its URL path (`flow.wire.api_for_path`); a response body, an assembled turn and a stream event
are told apart by their own shape: a chat completion has `choices`, a Responses body `output` items and Responses
events a `response.` type, a Messages body `content` blocks beside `stop_reason` and Messages events their own
types. With no sign of another API a hop is read as Chat Completions, the API every older trace was recorded with.
The views, the teaching texts and the exporters read a body through these, never by one API's keys; each API's
words for what they find are in `flow.text.apis`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, assert_never

from flow.trace.model import Trace, as_dict, as_list, is_object
from flow.wire import API, api_for_path
from flow.wire.base import Turn, WireApi, WireProblem

MESSAGES_EVENTS = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    }
)


"""The event types of an Anthropic Messages stream (an `error` event is told apart by its `error` object)."""


def _path(url: Any) -> str:
    text = url if isinstance(url, str) else ""
    return text.split("?", 1)[0].split("#", 1)[0]


def api_of_request(payload: Mapping[str, Any]) -> WireApi:
    """The API a recorded model request was sent to: by its URL path, else by its body's shape."""
    found = api_for_path(_path(payload.get("url")))
    if found is not None:
        return found
    body = as_dict(payload.get("body"))
    if "input" in body or "instructions" in body or "previous_response_id" in body:
        return API["responses"]
    if "max_tokens" in body and isinstance(body.get("system"), (str, list)):
        return API["messages"]
    return API["chat"]


def api_of_body(body: Any) -> WireApi:
    """The API a response body, an assembled turn or a stream event belongs to, by its shape."""
    body = as_dict(body)
    if "choices" in body:
        return API["chat"]
    kind = body.get("type")
    if isinstance(kind, str) and kind.startswith("response."):
        return API["responses"]
    if kind in MESSAGES_EVENTS or (kind == "error" and isinstance(body.get("error"), dict)):
        return API["messages"]
    if body.get("object") == "response" or isinstance(body.get("output"), list):
        return API["responses"]
    if kind == "message" or (isinstance(body.get("content"), list) and "role" not in body):
        return API["messages"]
    return API["chat"]


def api_named(name: Any) -> WireApi:
    """The API a trace's settings name (`meta.settings.api`); Chat Completions when they name none."""
    return API[name] if name in API else API["chat"]


def is_chat(api: WireApi) -> bool:
    return api.name == "chat"


def turn_of(body: Any, api: WireApi, *, finish: Any = None) -> Turn | None:
    """The model's turn in a body (or an assembled message, its `finish` given beside it), read by its API; None
    when the API cannot read it."""
    body = as_dict(body)
    if finish is not None:
        key = {"chat": None, "responses": "status", "messages": "stop_reason"}[api.name]
        if key is not None and key not in body:
            body = {**body, key: finish}
    if api.name == "chat" and "choices" not in body and ("tool_calls" in body or "content" in body):
        body = {"choices": [{"message": body, "finish_reason": finish}]}  # an assembled message
    try:
        return api.read(body)
    except (WireProblem, KeyError, TypeError, AttributeError):
        return None


def arguments_of(call: Any) -> Any:
    """A call's arguments as the model sent them: the object (Messages) or the JSON string (the others)."""
    return call.parsed if call.parsed is not None else call.arguments


def tool_names(body: Any) -> list[str]:
    """The names of the tools a request offers, in any of the three APIs (Chat nests them under `function`)."""
    tools = [as_dict(t) for t in as_list(as_dict(body).get("tools"))]
    return [str(t.get("name") or as_dict(t.get("function")).get("name") or "") for t in tools]


def conversation(body: Any, api: WireApi) -> list[Any]:
    """What a request carries of the conversation: its messages (Chat, Messages) or input items (Responses)."""
    body = as_dict(body)
    items = body.get("input" if api.name == "responses" else "messages")
    if isinstance(items, str):  # Responses takes a bare string as the user's text
        return [items]
    return as_list(items)


def answered(body: Any, api: WireApi) -> list[tuple[tuple[str | int, ...], str]]:
    """The tool results a request ends with (the ones this backfill sends), each as (its path in the body, the call
    id it quotes): Chat's trailing role "tool" messages, Responses' trailing `function_call_output` items, the
    `tool_result` blocks of Messages' last user message."""
    items = conversation(body, api)
    out: list[tuple[tuple[str | int, ...], str]] = []
    if api.name == "messages":
        last = as_dict(items[-1]) if items else {}
        blocks = last.get("content") if last.get("role") == "user" else None
        for j, block in enumerate(as_list(blocks)):
            if as_dict(block).get("type") == "tool_result":
                out.append((("messages", len(items) - 1, "content", j), str(as_dict(block).get("tool_use_id"))))
        return out
    field, kind, key = (
        ("input", "function_call_output", "call_id")
        if api.name == "responses"
        else ("messages", "tool", "tool_call_id")
    )
    for i in range(len(items) - 1, -1, -1):
        item = as_dict(items[i])
        if (item.get("type") if api.name == "responses" else item.get("role")) != kind:
            break
        out.append(((field, i), str(item.get(key))))
    return out[::-1]


def sent_results(body: Any, api: WireApi) -> list[tuple[str, Any]]:
    """The tool results a request sends back, each as (the call id it answers, its content): Chat's role "tool"
    messages, Responses' function_call_output items, Messages' tool_result blocks."""
    found: list[tuple[Any, Any]] = []
    for item in map(as_dict, conversation(body, api)):
        match api.name:
            case "chat" if item.get("role") == "tool":
                found.append((item.get("tool_call_id"), item.get("content")))
            case "responses" if item.get("type") == "function_call_output":
                found.append((item.get("call_id"), item.get("output")))
            case "messages" if item.get("role") == "user":
                blocks = [as_dict(b) for b in as_list(item.get("content"))]
                found += [(b.get("tool_use_id"), b.get("content")) for b in blocks if b.get("type") == "tool_result"]
            case "chat" | "responses" | "messages":
                pass  # not a result
            case _ as never:
                assert_never(never)
    return [(i, content) for i, content in found if isinstance(i, str)]


def api_of_trace(trace: Trace) -> WireApi:
    """The API a trace's model requests were sent to: its first request's, else the one its settings name."""
    first = next((h for h in trace.hops if h.kind == "llm.request"), None)
    if first is not None and is_object(first.payload):
        return api_of_request(first.payload)
    return api_named(trace.meta.settings.get("api"))
