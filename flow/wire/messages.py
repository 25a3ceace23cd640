"""Anthropic Messages (`POST /v1/messages`): the other API most people meet tool use through.

Tools are `{"name", "description", "input_schema"}`; the system prompt is the top-level `system` field and
`max_tokens` is required. The model's turn is the response's `content` blocks: `text` blocks and `tool_use` blocks
(`id`, `name`, and `input` as a JSON *object*, not a string), with `stop_reason: "tool_use"`. The app sends the
assistant's blocks back as they came, then one `user` message whose `tool_result` blocks carry each call's
`tool_use_id` (and `is_error`). `tool_choice` is an object (`auto`, `any`, `tool` with a name, `none`), which also
carries `disable_parallel_tool_use`.

A stream is `message_start`, then per block `content_block_start`, `content_block_delta` (`text_delta`, or
`input_json_delta` with a piece of the input's JSON), `content_block_stop`, then `message_delta` (the stop reason)
and `message_stop`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pydantic

from flow.trace.files import MAX_STRING_CHARS
from flow.trace.json_text import read_json_text
from flow.trace.model import as_dict, as_list, is_array, is_object
from flow.trace.pairing import StreamedCalls
from flow.trace.steps import Step
from flow.trace.summaries import call_text, counted
from flow.wire.base import (
    ApiName,
    Call,
    CallStarts,
    CallWritten,
    Conversation,
    EventPart,
    ItemPlaces,
    Message,
    Named,
    Native,
    Part,
    Piece,
    Places,
    RecordedTurn,
    Reply,
    Request,
    Settings,
    Stopped,
    ToolCallPart,
    ToolOutput,
    ToolReturnPart,
    ToolSpec,
    Turn,
    WireProblem,
    conversation_items,
    read_or_none,
    read_recorded,
    text_parts,
    turn_reply,
)
from flow.wire.chat import clip_label, excerpt, get, quoted_label
from flow.wire.facts import EVENT_KEYS, picked

EVENTS = frozenset(
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


MAX_TOKENS = 1024  # the answer's cap the app sends: required by the API, far above what a weather answer takes


def _plain(value: Any) -> Any:
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", exclude_none=True, warnings=False)
    return value


# --- the request ---------------------------------------------------------------------------------------------------


def tool_choice(choice: str, parallel: bool) -> dict[str, Any]:
    """The neutral choice as Messages writes it; one call at a time is said inside it (not for "none")."""
    out: dict[str, Any]
    if choice == "required":
        out = {"type": "any"}
    elif choice in ("auto", "none"):
        out = {"type": choice}
    else:
        out = {"type": "tool", "name": choice}
    if not parallel and out["type"] != "none":
        out["disable_parallel_tool_use"] = True
    return out


def _messages(conversation: Conversation) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []  # tool results go back together, in one user message
    for item in conversation.items:
        if isinstance(item, ToolOutput):
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": item.call_id, "content": item.content}
            if item.is_error:
                result["is_error"] = True
            results.append(result)
            continue
        if results:
            messages.append({"role": "user", "content": results})
            results = []
        if isinstance(item, str):
            messages.append({"role": "user", "content": item})
        elif isinstance(item, Native):
            messages.append(item.message)
        else:
            messages.append({"role": "assistant", "content": item.raw["content"]})
    if results:
        messages.append({"role": "user", "content": results})
    return messages


# --- a whole response --------------------------------------------------------------------------------------------------


def _turn(content: list[Any], stop: Any, raw: dict[str, Any]) -> Turn:
    calls: list[Call] = []
    texts: list[str] = []
    for i, block in enumerate(content):
        kind = get(block, "type")
        if kind == "text":
            texts.append(str(get(block, "text") or ""))
        elif kind == "tool_use":
            name, call_id, given = get(block, "name"), get(block, "id"), get(block, "input")
            where = f"content[{i}]"
            if not isinstance(name, str) or not name:
                raise WireProblem("call_without_name", where=where, i=i)
            if not isinstance(call_id, str) or not call_id:
                raise WireProblem("call_without_id", where=where, i=i, name=name)
            if isinstance(given, str):  # JSON text where the object belongs: the reverse translation parses it
                calls.append(Call(call_id, name, given, as_dict(_plain(block))))
                continue
            if not is_object(given):
                raise WireProblem("input_not_object", where=where, name=name)
            calls.append(Call(call_id, name, json.dumps(given, ensure_ascii=False), as_dict(_plain(block)), given))
    return Turn("".join(texts) if texts else None, tuple(calls), None if stop is None else str(stop), raw)


def read(message: Any) -> Turn:
    if not isinstance(message, (pydantic.BaseModel, dict)):
        raise WireProblem("body_not_object", excerpt=excerpt(message))
    content = get(message, "content")
    if not is_array(content):
        raise WireProblem("no_content_blocks", excerpt=excerpt(content))
    raw = as_dict(_plain(message))
    turn = _turn(content, get(message, "stop_reason"), {"content": raw["content"]})
    if turn.text is None and not turn.calls:
        raise WireProblem("no_text_no_calls", field="stop_reason", finish=str(turn.finish))
    return turn


def response_step(body: Any) -> Step:
    body = as_dict(body)
    content = body.get("content")
    blocks = content if is_array(content) else []
    if body.get("stop_reason") == "tool_use" or any(as_dict(b).get("type") == "tool_use" for b in blocks):
        return Step.DECISION
    return Step.MODEL_ANSWER


def response_summary(body: Any) -> str:
    body = as_dict(body)
    content = body.get("content")
    if not is_array(content):
        return "response"
    uses = [as_dict(b) for b in content if as_dict(b).get("type") == "tool_use"]
    if uses:
        return "tool_use: " + ", ".join(call_text(b.get("name"), b.get("input")) for b in uses)
    kinds = [str(as_dict(b).get("type")) for b in content]
    hosted = any(k.startswith("mcp_") for k in kinds)  # hosted MCP: the blocks report what the provider did
    return f"stop_reason: {body.get('stop_reason')}" + (f" ({', '.join(kinds)})" if hosted else "")


def request_summary(body: Any) -> str:
    body = as_dict(body)
    messages, tools = body.get("messages"), body.get("tools")
    servers = [str(as_dict(s).get("name")) for s in as_list(body.get("mcp_servers"))]
    toolsets = sum(as_dict(t).get("type") == "mcp_toolset" for t in tools) if is_array(tools) else 0
    n_tools = (len(tools) if is_array(tools) else 0) - toolsets
    said = [counted(n_tools, "tool")] if n_tools or not servers else []
    said += [f"{counted(len(servers), 'MCP server')} ({', '.join(servers)})"] if servers else []
    return ", ".join([counted(len(messages) if is_array(messages) else 0, "message"), *said]) + (
        " (stream)" if body.get("stream") else ""
    )


# --- a stream ------------------------------------------------------------------------------------------------------


_INPUT_BLOCKS = ("tool_use", "mcp_tool_use", "server_tool_use")


"""Blocks whose `input` a stream sends as pieces of JSON text (`input_json_delta`): the app's calls, and the calls the
provider makes itself (an MCP connector's, a server tool's)."""


@dataclass
class _Block:
    block: dict[str, Any]
    pieces: list[str] = field(default_factory=list[str])


@dataclass
class MessagesStream:
    """The events of one streamed message, added in order: each event's line, and the blocks they build."""

    limit: int = MAX_STRING_CHARS
    events: int = 0
    decided: bool = False
    problem: WireProblem | None = None
    stop: str | None = None
    stopped: bool = False  # message_stop came
    blocks: dict[int, _Block] = field(default_factory=dict[int, _Block])
    calls: StreamedCalls = field(default_factory=StreamedCalls)  # which block a call's pieces go to, by its id

    def add(self, event: Any) -> str:
        self.events += 1
        n = self.events
        data = as_dict(_plain(event))
        kind = str(data.get("type") or "")
        index = data.get("index")
        if kind == "content_block_start" and isinstance(index, int):
            block = as_dict(data.get("content_block"))
            if block.get("type") in _INPUT_BLOCKS:
                index, new = self.calls.key(index, block.get("id"))
                if not new:  # the same call's id again: its input goes on where it left off
                    return f"event {n}: {block.get('type')} {clip_label(str(block.get('name')))} goes on"
            self.blocks[index] = _Block(dict(block))
            if block.get("type") == "tool_use":
                self.decided = True
                return f"event {n}: tool_use {clip_label(str(block.get('name')))} starts"
            return f"event {n}: {block.get('type')} block starts"
        at = self._block(index) if kind == "content_block_delta" else None
        slot = self.blocks.get(at) if at is not None else None
        if slot is not None:
            delta = as_dict(data.get("delta"))
            piece = str(delta.get("partial_json", delta.get("text", "")) or "")
            slot.pieces.append(piece)
            what = "input +=" if delta.get("type") == "input_json_delta" else "text +="
            return f"event {n}: {what} {quoted_label(piece)}"
        if kind == "message_delta":
            stop = as_dict(data.get("delta")).get("stop_reason")
            if stop is not None:
                self.stop = str(stop)
                self.decided = self.decided or self.stop == "tool_use"
            return f"event {n}: stop_reason: {stop}"
        if kind == "message_stop":
            self.stopped = True
        elif kind == "error":
            message = as_dict(data.get("error")).get("message")
            self.problem = self.problem or WireProblem("model_stream_error", message=str(message))
        return f"event {n}: {kind or str(event)[:30]}"

    def _block(self, index: Any) -> int | None:
        """The block a delta at `index` adds to: the call's first block when the call came again at this index."""
        if type(index) is not int:
            return None
        key = self.calls.known(index)
        return index if key is None else key

    def content(self) -> list[dict[str, Any]]:
        """The blocks the deltas built: a text block's text, a tool_use block's input parsed from its pieces."""
        out: list[dict[str, Any]] = []
        for _, slot in sorted(self.blocks.items()):
            block = dict(slot.block)
            joined = "".join(slot.pieces)[: self.limit]
            if block.get("type") == "text":
                block["text"] = str(block.get("text") or "") + joined
            elif block.get("type") in _INPUT_BLOCKS and slot.pieces:
                ok, value = read_json_text(joined or "{}")
                block["input"] = value if ok else joined  # what the model streamed, when it is not JSON
            out.append(block)
        return out

    def message(self) -> dict[str, Any]:
        return {"content": self.content(), "stop_reason": self.stop}

    def turn(self) -> Turn:
        if self.problem is not None:
            raise self.problem
        if not self.stopped or self.stop is None:
            if not self.events:
                raise WireProblem("stream_empty")
            text = "".join(str(b.get("text") or "") for b in self.content() if b.get("type") == "text")
            raise WireProblem("stream_truncated", chunks=self.events, chars=len(text))
        content = self.content()
        return _turn(content, self.stop, {"content": content})


# --- a recorded body read back ---------------------------------------------------------------------------------------


FINISH_WORDS = {"tool_use": "tool_call", "end_turn": "stop", "max_tokens": "length", "stop_sequence": "stop"}


"""A message's stop_reason in neutral words."""


def _message(message: Any) -> Message:
    """One message: its text, tool_use and tool_result blocks as parts (a tool_result stays in the user message
    that carries it, as on the wire)."""
    message = as_dict(message)
    content = message.get("content")
    parts: list[Part] = []
    for block in as_list(content) if not isinstance(content, str) else []:
        block = as_dict(block)
        kind = block.get("type")
        if kind == "tool_use":
            parts.append(ToolCallPart(block.get("id"), block.get("name"), block.get("input")))
        elif kind == "tool_result":
            parts.append(ToolReturnPart(block.get("tool_use_id"), block.get("content")))
        else:
            parts += text_parts([block])
    return Message(message.get("role", "user"), tuple(parts or text_parts(content)))


# --- the interface --------------------------------------------------------------------------------------------------


class Messages:
    """Anthropic Messages as the engine, the taps and the views use it."""

    name: ApiName = "messages"
    path = "/messages"
    schema_field = "input_schema"
    sdk: Literal["openai", "anthropic"] = "anthropic"
    arguments_json = False  # a tool_use's input is already an object
    keeps_responses = False
    hosted_mcp = True  # the MCP connector (beta mcp-client-2025-11-20)
    hosted_approval = False
    conversation_field = "messages"
    places: Places = ItemPlaces(
        turn="content",
        call="tool_use",
        call_id="id",
        arguments="input",
        text_in_content=False,
        finish="stop_reason",
        result_id="tool_use_id",
        in_messages=True,
    )
    max_tokens_field = "max_tokens"

    def claims_request(self, body: dict[str, Any]) -> bool:
        return "max_tokens" in body and isinstance(body.get("system"), (str, list))

    def claims_body(self, body: dict[str, Any]) -> Literal["sure", "likely"] | None:
        kind = body.get("type")
        if kind in EVENTS or (kind == "error" and isinstance(body.get("error"), dict)):  # a stream event
            return "sure"
        return "likely" if kind == "message" or (isinstance(body.get("content"), list) and "role" not in body) else None

    def is_function(self, tool: dict[str, Any]) -> bool:
        return tool.get("type") in (None, "custom")  # not a provider's own tool, nor an MCP toolset

    def recorded_turn(self, body: Any, *, assembled: bool, finish: Any) -> RecordedTurn | None:
        return read_recorded(self, body, assembled=assembled, finish=finish)

    def event_part(self, data: dict[str, Any], said: str) -> EventPart:
        """An event: a call starting, a piece of its input or of text, why the message stopped, or the event's
        type."""
        kind = str(data.get("type"))
        block, moved = as_dict(data.get("content_block")), as_dict(data.get("delta"))
        if kind == "content_block_start" and block.get("type") == "tool_use":
            return CallStarts("tool_use", block.get("name"))
        if kind == "content_block_delta" and moved.get("type") == "input_json_delta":
            return Piece("partial_json", moved.get("partial_json"))
        if kind == "content_block_delta" and moved.get("type") == "text_delta":
            return Piece("text", moved.get("text"))
        if kind == "message_delta" and moved.get("stop_reason") is not None:
            return Stopped("stop_reason", moved["stop_reason"])
        return Named(kind)

    def answered(self, body: Any) -> list[tuple[tuple[str | int, ...], str]]:
        items = conversation_items(as_dict(body), "messages")
        last = as_dict(items[-1]) if items else {}
        blocks = last.get("content") if last.get("role") == "user" else None
        return [
            (("messages", len(items) - 1, "content", j), str(as_dict(block).get("tool_use_id")))
            for j, block in enumerate(as_list(blocks))
            if as_dict(block).get("type") == "tool_result"
        ]

    def sent_results(self, body: Any) -> list[tuple[Any, Any]]:
        found: list[tuple[Any, Any]] = []
        for item in map(as_dict, conversation_items(as_dict(body), "messages")):
            if item.get("role") == "user":
                blocks = [as_dict(b) for b in as_list(item.get("content"))]
                found += [(b.get("tool_use_id"), b.get("content")) for b in blocks if b.get("type") == "tool_result"]
        return found

    def request_facts(self, body: dict[str, Any]) -> dict[str, Any]:
        """The messages sent, the call ids its tool_result blocks quote, the top-level `system` and the required
        `max_tokens`."""
        facts: dict[str, Any] = {"messages": conversation_items(body, "messages")}
        ids = [i for _, i in self.answered(body)]
        if ids:
            facts["tool_use_id"] = ids if len(ids) > 1 else ids[0]
        return facts | picked(body, ("system", "max_tokens", "tool_choice", "stream"))

    def reply_facts(self, body: dict[str, Any]) -> dict[str, Any]:
        """The content blocks (a tool_use's input already an object) and why the model stopped."""
        facts = picked(body, ("content", "stop_reason", "usage"))
        return facts | ({"error": body["error"]} if body.get("error") is not None else {})

    def event_facts(self, data: dict[str, Any]) -> dict[str, Any]:
        return picked(data, EVENT_KEYS)

    def tool(self, spec: ToolSpec) -> dict[str, Any]:
        tool: dict[str, Any] = {"name": spec.name, "description": spec.description, "input_schema": spec.parameters}
        if spec.strict:
            tool["strict"] = True
        return tool

    def request(self, conversation: Conversation, tools: Sequence[dict[str, Any]], settings: Settings) -> Request:
        body: dict[str, Any] = {
            "model": settings.model,
            "max_tokens": MAX_TOKENS,
            "system": conversation.system,
            "messages": _messages(conversation),
            "tools": list(tools),
            "tool_choice": tool_choice(settings.tool_choice, settings.parallel),
        }
        if settings.stream:
            body["stream"] = True
        return Request(body)

    def read(self, response: Any) -> Turn:
        return read(response)

    def turn(self, text: str | None, calls: Sequence[CallWritten]) -> Turn:
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in calls]
        return read({"role": "assistant", "content": blocks, "stop_reason": "tool_use" if calls else "end_turn"})

    def stream(self) -> MessagesStream:
        return MessagesStream()

    def response_step(self, body: Any) -> Step:
        return response_step(body)

    def request_summary(self, body: Any) -> str:
        return request_summary(body)

    def response_summary(self, body: Any) -> str:
        return response_summary(body)

    def turn_summary(self, turn: Turn) -> str:
        return response_summary({**turn.raw, "stop_reason": turn.finish})

    # Reading a recorded body back into neutral parts (the OpenTelemetry export and the importers).

    def input_messages(self, body: Any) -> list[Message]:
        items = as_dict(body).get("messages")
        return [_message(m) for m in ([items] if isinstance(items, str) else as_list(items))]

    def instructions(self, body: Any) -> list[Part]:
        return text_parts(as_dict(body).get("system"))

    def tool_definitions(self, body: Any) -> list[dict[str, Any]]:
        tools = map(as_dict, as_list(as_dict(body).get("tools")))
        return [
            {
                "type": t.get("type", "function"),
                **{("parameters" if k == "input_schema" else k): v for k, v in t.items()},
            }
            for t in tools
        ]

    def replies(self, response: Any) -> list[Reply] | None:
        turn = read_or_none(read, as_dict(response))
        return None if turn is None else [turn_reply(turn, FINISH_WORDS)]

    def assembled_body(self, message: Any, finish: Any) -> dict[str, Any]:
        body = as_dict(message)
        return {**body, "stop_reason": finish} if finish is not None and "stop_reason" not in body else body

    def stream_response(self, event: dict[str, Any]) -> dict[str, Any]:
        return as_dict(event.get("message"))  # message_start names the message

    def reported_body(self, items: list[dict[str, Any]]) -> dict[str, Any] | None:
        return {"content": items}


MESSAGES = Messages()
