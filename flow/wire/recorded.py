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
from typing import Any

from flow.trace.model import Trace, as_dict, as_list, is_object
from flow.trace.payloads import LlmRequest, is_a
from flow.wire import API, DEFAULT_API, api_for_path
from flow.wire.base import Turn, WireApi, conversation_items, read_safely


def _path(url: Any) -> str:
    text = url if isinstance(url, str) else ""
    return text.split("?", 1)[0].split("#", 1)[0]


def api_of_request(payload: Mapping[str, Any]) -> WireApi:
    """The API a recorded model request was sent to: by its URL path, else by its body's shape."""
    found = api_for_path(_path(payload.get("url")))
    if found is not None:
        return found
    body = as_dict(payload.get("body"))
    return next((api for api in API.values() if api.claims_request(body)), DEFAULT_API)


def api_of_body(body: Any) -> WireApi:
    """The API a response body, an assembled turn or a stream event belongs to, by its shape."""
    body = as_dict(body)
    claims = [(api, api.claims_body(body)) for api in API.values()]
    sure = next((api for api, claim in claims if claim == "sure"), None)
    return sure or next((api for api, claim in claims if claim == "likely"), DEFAULT_API)


def api_named(name: Any) -> WireApi:
    """The API a trace's settings name (`meta.settings.api`); Chat Completions when they name none."""
    return API[name] if name in API else DEFAULT_API


def turn_of(body: Any, api: WireApi, *, assembled: bool = False, finish: Any = None) -> Turn | None:
    """The model's turn in a response body, or in a message assembled from a stream (`assembled`, or its `finish`
    given beside it), read by its API; None when the API cannot read it."""
    whole = api.assembled_body(body, finish) if assembled or finish is not None else as_dict(body)
    return read_safely(api, whole)


def arguments_of(call: Any) -> Any:
    """A call's arguments as the model sent them: the object (Messages) or the JSON string (the others)."""
    return call.parsed if call.parsed is not None else call.arguments


def tool_names(body: Any) -> list[str]:
    """The names of the tools a request offers, in any of the three APIs (Chat nests them under `function`)."""
    tools = [as_dict(t) for t in as_list(as_dict(body).get("tools"))]
    return [str(t.get("name") or as_dict(t.get("function")).get("name") or "") for t in tools]


def conversation(body: Any, api: WireApi) -> list[Any]:
    """What a request carries of the conversation: its messages (Chat, Messages) or input items (Responses)."""
    return conversation_items(as_dict(body), api.conversation_field)


def answered(body: Any, api: WireApi) -> list[tuple[tuple[str | int, ...], str]]:
    """The tool results a request ends with (the ones this backfill sends), each as (its path in the body, the call
    id it quotes): Chat's trailing role "tool" messages, Responses' trailing `function_call_output` items, the
    `tool_result` blocks of Messages' last user message."""
    return api.answered(body)


def sent_results(body: Any, api: WireApi) -> list[tuple[str, Any]]:
    """The tool results a request sends back, each as (the call id it answers, its content): Chat's role "tool"
    messages, Responses' function_call_output items, Messages' tool_result blocks."""
    found = api.sent_results(body)
    return [(i, content) for i, content in found if isinstance(i, str)]


def api_of_trace(trace: Trace) -> WireApi:
    """The API a trace's model requests were sent to: its first request's, else the one its settings name."""
    first = next((h for h in trace.hops if is_a(h, LlmRequest)), None)
    if first is not None and is_object(first.payload):
        return api_of_request(first.payload)
    return api_named(trace.meta.settings.get("api"))
