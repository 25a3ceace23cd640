"""OpenAI Responses (`POST /responses`): the API OpenAI recommends for new work.

Tools are flat, `{"type": "function", "name", "description", "parameters", "strict"}` (not nested under
`function`; `strict` must be sent, and the API takes it as true when it is null or missing, so the app says false
unless it rewrote the schema for strict mode). The system prompt is `instructions`; the conversation is `input`, a
list of items. The model's turn is the response's `output`: `function_call` items (`call_id`, `name`, `arguments`
still a JSON *string*) and `message` items of `output_text` parts, and any other item (reasoning, …) the app does not
read but must send back as it came. The app answers a call with a `function_call_output` input item carrying the
same `call_id`. A follow-up either sends the whole input again, the model's output items included, or only the new
items beside `previous_response_id`, and the server keeps the rest: two very different requests on the wire.

A stream is typed events (`response.output_item.added`, `response.function_call_arguments.delta` / `.done`,
`response.output_text.delta`, `response.completed`, …): assembled by item, the same for the engine, the HTTP tap
and merge.
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
    OtherPart,
    Part,
    Piece,
    Places,
    RecordedTurn,
    Reply,
    Request,
    Settings,
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
    trailing_results,
    turn_reply,
)
from flow.wire.chat import clip_label, excerpt, get, quoted_label
from flow.wire.facts import EVENT_KEYS, picked, with_parsed_arguments
from flow.wire.hosted import approval_items

CALL_ITEMS = ("function_call",)


"""Output items that are calls the app runs (hosted tools' items are the provider's own)."""


def _plain(value: Any) -> Any:
    """An SDK object as the JSON it came as, or the JSON itself."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", exclude_none=True, warnings=False)
    return value


# --- the request ---------------------------------------------------------------------------------------------------


def tool_choice(choice: str) -> Any:
    if choice in ("auto", "none", "required"):
        return choice
    return {"type": "function", "name": choice}


def _input(conversation: Conversation, *, since_response: bool) -> list[dict[str, Any]]:
    """The conversation as input items; with a previous response, only what came after the model's last turn."""
    items = conversation.items
    if since_response:
        last = max((i for i, item in enumerate(items) if isinstance(item, Turn)), default=-1)
        items = items[last + 1 :]
    out: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, str):
            out.append({"role": "user", "content": item})
        elif isinstance(item, Native):
            out.append(item.message)
        elif isinstance(item, ToolOutput):
            out.append({"type": "function_call_output", "call_id": item.call_id, "output": item.content})
        else:
            out += item.raw["output"]  # every output item, as it came: reasoning and messages too
    return out


# --- a whole response --------------------------------------------------------------------------------------------------


def _calls(output: list[Any]) -> tuple[Call, ...]:
    """The function_call items, one call per call_id: a gateway may write one call as several items sharing its id,
    each with a piece of the arguments, which add up in order."""
    calls: dict[str, Call] = {}
    for i, item in enumerate(output):
        if get(item, "type") not in CALL_ITEMS:
            continue
        name, call_id, arguments = get(item, "name"), get(item, "call_id"), get(item, "arguments")
        where = f"output[{i}]"
        if not isinstance(name, str) or not name:
            raise WireProblem("call_without_name", where=where, i=i)
        if not isinstance(call_id, str) or not call_id:
            raise WireProblem("call_without_id", where=where, i=i, name=name)
        if arguments is None:
            arguments = ""
        elif not isinstance(arguments, str):
            raise WireProblem("arguments_not_text", where=where, i=i, name=name)
        same = calls.get(call_id)
        if same is not None:
            calls[call_id] = Call(call_id, same.name, same.arguments + arguments, same.raw)
        else:
            calls[call_id] = Call(call_id, name, arguments, as_dict(_plain(item)))
    return tuple(calls.values())


def _text(output: list[Any]) -> str | None:
    """The text of the output's message items (its `output_text` parts), None when there is none."""
    pieces = [
        str(get(part, "text") or "")
        for item in output
        if get(item, "type") == "message"
        for part in as_list(get(item, "content"))
        if get(part, "type") == "output_text"
    ]
    return "".join(pieces) if pieces else None


def read(response: Any) -> Turn:
    """The model's turn in a response (the SDK's object, or its JSON); `WireProblem` says what is wrong."""
    if not isinstance(response, (pydantic.BaseModel, dict)):
        raise WireProblem("body_not_object", excerpt=excerpt(response))
    output = get(response, "output")
    if not is_array(output):
        raise WireProblem("no_output", excerpt=excerpt(output))
    calls = _calls(output)
    text = _text(output)
    status = get(response, "status")
    if text is None and not calls and not any(get(i, "type") == "mcp_approval_request" for i in output):
        raise WireProblem("no_text_no_calls", field="status", finish=str(status))
    raw = as_dict(_plain(response))
    return Turn(text, calls, None if status is None else str(status), {"id": raw.get("id"), "output": raw["output"]})


def response_step(body: Any) -> Step:
    output = as_dict(body).get("output")
    items = output if is_array(output) else []
    decided = ("mcp_approval_request", *CALL_ITEMS)  # an approval request: the model chose a call the app must allow
    return Step.DECISION if any(as_dict(i).get("type") in decided for i in items) else Step.MODEL_ANSWER


def _item_text(item: dict[str, Any]) -> str:
    return call_text(item.get("name"), _arguments(item.get("arguments")))


def _arguments(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    ok, value = read_json_text(raw or "{}")
    return value if ok else raw[:40] + " (not JSON)"


def response_summary(body: Any) -> str:
    output = as_dict(body).get("output")
    if not is_array(output):
        return "response"
    calls = [as_dict(i) for i in output if as_dict(i).get("type") in CALL_ITEMS]
    if calls:
        return "function_call: " + ", ".join(_item_text(c) for c in calls)
    kinds = [str(as_dict(i).get("type")) for i in output]
    return f"status: {as_dict(body).get('status')}" + (f" ({', '.join(kinds)})" if kinds else "")


def request_summary(body: Any) -> str:
    body = as_dict(body)
    items = body.get("input")
    n = len(items) if is_array(items) else 1 if isinstance(items, str) else 0
    tools = [as_dict(t) for t in as_list(body.get("tools"))]
    servers = [str(t.get("server_label")) for t in tools if t.get("type") == "mcp"]  # hosted MCP: no function
    said = [counted(len(tools) - len(servers), "tool")] if len(tools) > len(servers) or not servers else []
    said += [f"{counted(len(servers), 'MCP server')} ({', '.join(servers)})"] if servers else []
    return (
        ", ".join([counted(n, "input item"), *said])
        + (" after " + str(body["previous_response_id"]) if body.get("previous_response_id") else "")
        + (" (stream)" if body.get("stream") else "")
    )


# --- a stream ------------------------------------------------------------------------------------------------------


@dataclass
class _Item:
    item: dict[str, Any]
    arguments: list[str] = field(default_factory=list[str])
    text: list[str] = field(default_factory=list[str])


@dataclass
class ResponsesStream:
    """The typed events of one streamed response, added in order: each event's line, the output items they build
    (the `response.completed` event's response when it came, else what the deltas added up to)."""

    limit: int = MAX_STRING_CHARS
    events: int = 0
    decided: bool = False
    problem: WireProblem | None = None
    completed: dict[str, Any] | None = None
    ended_at: int = 0  # the event that completed it
    items: dict[int, _Item] = field(default_factory=dict[int, _Item])
    call_ids: set[Any] = field(default_factory=set[Any])  # the call_ids of the calls started so far
    # the hosted MCP items the events finished, by id: a gateway may number every item 0, or leave them out of the
    # completed response
    mcp_items: dict[Any, dict[str, Any]] = field(default_factory=dict[Any, dict[str, Any]])

    def add(self, event: Any) -> str:
        self.events += 1
        n = self.events
        data = as_dict(_plain(event))
        kind = str(data.get("type") or "")
        if not kind:
            return f"event {n}: {str(event)[:30]}"
        index = data.get("output_index")
        slot = self.items.get(index) if isinstance(index, int) else None
        if kind == "response.output_item.added" and isinstance(index, int):
            item = as_dict(data.get("item"))
            self.items[index] = _Item(item)
            if item.get("type") in CALL_ITEMS:
                self.decided = True
                again = "continues" if item.get("call_id") in self.call_ids else "starts"  # one call, many items
                self.call_ids.add(item.get("call_id"))
                return f"event {n}: {item.get('type')} {clip_label(str(item.get('name')))} {again}"
            return f"event {n}: {item.get('type')} item starts"
        if kind == "response.function_call_arguments.delta" and slot is not None:
            piece = str(data.get("delta") or "")
            slot.arguments.append(piece)
            return f"event {n}: arguments += {quoted_label(piece)}"
        if kind == "response.output_text.delta" and slot is not None:
            piece = str(data.get("delta") or "")
            slot.text.append(piece)
            return f"event {n}: text += {quoted_label(piece)}"
        if kind == "response.output_item.done" and isinstance(index, int):
            self.items[index] = _Item(as_dict(data.get("item")))
            if str(self.items[index].item.get("type") or "").startswith("mcp_"):
                self.mcp_items[self.items[index].item.get("id")] = self.items[index].item
            return f"event {n}: {as_dict(data.get('item')).get('type')} item done"
        if kind in ("response.completed", "response.incomplete"):
            if self.completed is not None:  # two answers: taking either would be a guess
                self._fail(WireProblem("stream_ended_twice", first=self.ended_at, second=n))
            self.completed, self.ended_at = as_dict(data.get("response")), n
            return f"event {n}: {kind.removeprefix('response.')} (status: {self.completed.get('status')})"
        if kind == "response.failed":  # the response's own error says why
            said = as_dict(as_dict(data.get("response")).get("error")).get("message")
            self._fail(WireProblem("model_stream_error", message=str(said)))
        elif kind == "error":
            self._fail(WireProblem("model_stream_error", message=str(data.get("message"))))
        return f"event {n}: {kind}"

    def _fail(self, problem: WireProblem) -> None:
        if self.problem is None:
            self.problem = problem

    def message(self) -> dict[str, Any]:
        """What the events built: the completed response's output, or the items assembled from their deltas."""
        done = self.completed.get("output") if self.completed is not None else None
        if self.completed is not None and is_array(done):
            return {"id": self.completed.get("id"), "output": [*self._reported_only(done), *done]}
        output: list[dict[str, Any]] = []
        for _, slot in sorted(self.items.items()):
            item = dict(slot.item)
            if item.get("type") in CALL_ITEMS and slot.arguments and not item.get("arguments"):
                item["arguments"] = "".join(slot.arguments)[: self.limit]
            if item.get("type") == "message" and slot.text and not item.get("content"):
                item["content"] = [{"type": "output_text", "text": "".join(slot.text)[: self.limit]}]
            output.append(item)
        return {"output": output}

    def _reported_only(self, done: list[Any]) -> list[dict[str, Any]]:
        """The hosted MCP items the events brought that the completed response leaves out (a gateway that lists the
        tools only inside the stream): the provider's report is what the stream said, in the order it said it."""
        kept = {as_dict(i).get("id") for i in done}
        return [item for key, item in self.mcp_items.items() if key not in kept]

    def turn(self) -> Turn:
        if self.problem is not None:
            raise self.problem
        if self.completed is None:
            if not self.events:
                raise WireProblem("stream_empty")
            raise WireProblem("stream_truncated", chunks=self.events, chars=len(_text(self.message()["output"]) or ""))
        return read({**self.completed, "output": self.message()["output"]})


# --- a recorded body read back ---------------------------------------------------------------------------------------


FINISH_WORDS = {"completed": "stop", "incomplete": "length"}  # a response's status in neutral words


def _input_message(item: Any) -> Message:
    """One input item: a message (the user's, or an output message sent back), a function_call the model made,
    the function_call_output that answers it; an item of another type kept as it came."""
    if isinstance(item, str):
        return Message("user", tuple(text_parts(item)))
    item = as_dict(item)
    kind = item.get("type")
    if kind == "function_call":
        return Message("assistant", (ToolCallPart(item.get("call_id"), item.get("name"), item.get("arguments")),))
    if kind == "function_call_output":
        return Message("tool", (ToolReturnPart(item.get("call_id"), item.get("output")),))
    if kind in (None, "message"):
        return Message(item.get("role", "user"), tuple(text_parts(item.get("content"))))
    return Message("assistant", (OtherPart(str(kind), item),))


def _replies(body: dict[str, Any]) -> list[Reply] | None:
    """The turn's reply; the provider's requests for the app's approval (hosted MCP) are parts of their own type."""
    turn = read_or_none(read, body)
    if turn is None:
        return None
    return [turn_reply(turn, FINISH_WORDS, *(OtherPart("mcp_approval_request", i) for i in approval_items(turn.raw)))]


# --- the interface --------------------------------------------------------------------------------------------------


def _with_parsed_arguments(item: Any) -> Any:
    if not is_object(item) or item.get("type") != "function_call" or "arguments" not in item:
        return item
    return with_parsed_arguments(item)


class Responses:
    """OpenAI Responses as the engine, the taps and the views use it."""

    name: ApiName = "responses"
    path = "/responses"
    schema_field = "parameters"
    sdk: Literal["openai", "anthropic"] = "openai"
    arguments_json = True
    keeps_responses = True  # `store` defaults to true; a follow-up uses it only by naming previous_response_id
    hosted_mcp = True
    hosted_approval = True
    conversation_field = "input"
    places: Places = ItemPlaces(
        turn="output",
        call="function_call",
        call_id="call_id",
        arguments="arguments",
        text_in_content=True,
        finish="status",
        result_id="call_id",
        in_messages=False,
    )
    max_tokens_field = "max_output_tokens"

    def claims_request(self, body: dict[str, Any]) -> bool:
        return "input" in body or "instructions" in body or "previous_response_id" in body

    def claims_body(self, body: dict[str, Any]) -> Literal["sure", "likely"] | None:
        kind = body.get("type")
        if isinstance(kind, str) and kind.startswith("response."):  # a stream event
            return "sure"
        return "likely" if body.get("object") == "response" or isinstance(body.get("output"), list) else None

    def is_function(self, tool: dict[str, Any]) -> bool:
        return tool.get("type") == "function"

    def recorded_turn(self, body: Any, *, assembled: bool, finish: Any) -> RecordedTurn | None:
        return read_recorded(self, body, assembled=assembled, finish=finish)

    def event_part(self, data: dict[str, Any], said: str) -> EventPart:
        """An event: a call starting (as the stream said: an item with a call_id seen before continues that call), a
        piece of its arguments or of text, or the event's type."""
        kind, item = str(data.get("type")), as_dict(data.get("item"))
        if kind == "response.output_item.added" and item.get("type") == "function_call" and said.endswith(" starts"):
            return CallStarts("function_call", item.get("name"))  # not an item that continues a call by its id
        if kind in ("response.function_call_arguments.delta", "response.output_text.delta"):
            return Piece("arguments" if "arguments" in kind else "output_text", data.get("delta"))
        return Named(kind)

    def answered(self, body: Any) -> list[tuple[tuple[str | int, ...], str]]:
        return trailing_results(body, "input", "type", "function_call_output", "call_id")

    def sent_results(self, body: Any) -> list[tuple[Any, Any]]:
        items = map(as_dict, conversation_items(as_dict(body), "input"))
        return [(i.get("call_id"), i.get("output")) for i in items if i.get("type") == "function_call_output"]

    def request_facts(self, body: dict[str, Any]) -> dict[str, Any]:
        """The input items sent, the call ids its function_call_output items quote, and `previous_response_id`."""
        facts: dict[str, Any] = {"input": conversation_items(body, "input")}
        ids = [i for _, i in self.answered(body)]
        if ids:
            facts["call_id"] = ids if len(ids) > 1 else ids[0]
        return facts | picked(
            body, ("instructions", "previous_response_id", "tool_choice", "parallel_tool_calls", "stream")
        )

    def reply_facts(self, body: dict[str, Any]) -> dict[str, Any]:
        """The response's id, its output items (a call's arguments string read as JSON beside it), its status."""
        output = body.get("output")
        items = [_with_parsed_arguments(i) for i in output] if is_array(output) else output
        facts = picked(body, ("id",)) | {"output": items} | picked(body, ("status", "usage"))
        return facts | ({"error": body["error"]} if body.get("error") is not None else {})

    def event_facts(self, data: dict[str, Any]) -> dict[str, Any]:
        return picked(data, EVENT_KEYS)

    def tool(self, spec: ToolSpec) -> dict[str, Any]:
        return {
            "type": "function",
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.parameters,
            "strict": spec.strict,
        }

    def request(self, conversation: Conversation, tools: Sequence[dict[str, Any]], settings: Settings) -> Request:
        previous = settings.previous_response_id
        body: dict[str, Any] = {
            "model": settings.model,
            "instructions": conversation.system,
            "input": _input(conversation, since_response=previous is not None),
            "tools": list(tools),
            "tool_choice": tool_choice(settings.tool_choice),
        }
        if previous is not None:
            body["previous_response_id"] = previous
        if not settings.parallel:
            body["parallel_tool_calls"] = False
        if settings.stream:
            body["stream"] = True
        return Request(body)

    def read(self, response: Any) -> Turn:
        return read(response)

    def turn(self, text: str | None, calls: Sequence[CallWritten]) -> Turn:
        output: list[dict[str, Any]] = []
        if text:
            output.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})
        output += [
            {
                "type": "function_call",
                "call_id": c.id,
                "name": c.name,
                "arguments": json.dumps(c.arguments, ensure_ascii=False),
            }
            for c in calls
        ]
        return read({"output": output, "status": "completed"})

    def stream(self) -> ResponsesStream:
        return ResponsesStream()

    def response_step(self, body: Any) -> Step:
        return response_step(body)

    def request_summary(self, body: Any) -> str:
        return request_summary(body)

    def response_summary(self, body: Any) -> str:
        return response_summary(body)

    def turn_summary(self, turn: Turn) -> str:
        return response_summary({**turn.raw, "status": turn.finish})

    # Reading a recorded body back into neutral parts (the OpenTelemetry export and the importers).

    def input_messages(self, body: Any) -> list[Message]:
        items = as_dict(body).get("input")
        return [_input_message(i) for i in ([items] if isinstance(items, str) else as_list(items))]

    def instructions(self, body: Any) -> list[Part]:
        return text_parts(as_dict(body).get("instructions"))

    def tool_definitions(self, body: Any) -> list[dict[str, Any]]:
        return [as_dict(t) for t in as_list(as_dict(body).get("tools"))]  # flat already

    def replies(self, response: Any) -> list[Reply] | None:
        return _replies(as_dict(response))

    def assembled_body(self, message: Any, finish: Any) -> dict[str, Any]:
        body = as_dict(message)
        return {**body, "status": finish} if finish is not None and "status" not in body else body

    def stream_response(self, event: dict[str, Any]) -> dict[str, Any]:
        return as_dict(event.get("response"))  # its first events name the response

    def reported_body(self, items: list[dict[str, Any]]) -> dict[str, Any] | None:
        return {"output": items}


RESPONSES = Responses()
