"""What the inspector puts first in a model body: the fields a lesson is about, picked from the body as it came,
with a call's arguments string read as JSON beside it. Each API's module says which fields (`WireApi.request_facts`,
`reply_facts`, `event_facts`); these are the helpers they share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flow.trace.json_text import read_json_text

PARSED_ARGUMENTS = "arguments (parsed)"


"""The key the inspector puts beside a tool call's `arguments` string: what that string reads as (not a wire field)."""


def picked(payload: Mapping[str, object], keys: tuple[str, ...]) -> dict[str, Any]:
    """The keys of `payload` that are there, in the order given."""
    return {key: payload[key] for key in keys if key in payload}


def parse_arguments_text(text: Any) -> tuple[bool, Any]:
    """A tool_call's `arguments` string read as JSON: (True, the value), or (False, why it is not JSON).
    Total, for any value a trace file holds."""
    if not isinstance(text, str):
        return False, f"not a string but {type(text).__name__}"
    return read_json_text(text or "{}")


def with_parsed_arguments(call: dict[str, Any]) -> dict[str, Any]:
    """A call (or its `function`) with its `arguments` string read as JSON right after it, as the app reads it at
    step 5."""
    ok, parsed = parse_arguments_text(call["arguments"])
    shown: dict[str, Any] = {}
    for key, value in call.items():
        shown[key] = value
        if key == "arguments":
            shown[PARSED_ARGUMENTS] = parsed if ok else f"not JSON: {parsed}"
    return shown


ERROR_KEYS = ("tool_choice", "parallel_tool_calls", "stream", "usage", "error")


"""What the inspector shows first of a failed exchange's body, whatever API it came from: the provider's error (and
what the request asked, where an error body echoes it)."""


EVENT_KEYS = ("type", "item", "content_block", "delta", "arguments", "message", "response", "usage", "error")


"""What a stream event that names its type (Responses, Messages) is about: its type and what it brings."""
