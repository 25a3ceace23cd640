"""Each model API's own words for what a recorded hop shows: its name for a model's calls, why it stopped, the
app's answer to a call, the id that pairs them, where a tool holds its JSON Schema. Which API a hop speaks is
`flow.wire.recorded`'s to tell."""

from __future__ import annotations

from flow.wire.base import ApiName

API_WORDS: dict[ApiName, dict[str, str]] = {
    "chat": {
        "calls": "tool_calls",
        "call": "tool_call",
        "finish": "finish_reason",
        "result": "role: tool",
        "id": "tool_call_id",
        "schema": "parameters",
        "tokens": "prompt_tokens",
        "api": "Chat Completions",
        "conversation": "messages",
    },
    "responses": {
        "calls": "function_call",
        "call": "function_call",
        "finish": "status",
        "result": "function_call_output",
        "id": "call_id",
        "schema": "parameters",
        "tokens": "input_tokens",
        "api": "Responses",
        "conversation": "input",
    },
    "messages": {
        "calls": "tool_use",
        "call": "tool_use",
        "finish": "stop_reason",
        "result": "tool_result",
        "id": "tool_use_id",
        "schema": "input_schema",
        "tokens": "input_tokens",
        "api": "Anthropic Messages",
        "conversation": "messages",
    },
}


"""Each API's own names for a model's calls (the field, and one call), why it stopped, the app's answer to a call,
the id that pairs them, where a tool definition holds its JSON Schema, the input's token count, the API's name, and
the field a request carries the conversation in."""
