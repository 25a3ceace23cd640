"""OpenAI Chat Completions (`POST /chat/completions`): the wire format the articles teach.

Tools are `{"type": "function", "function": {name, description, parameters}}`; the model's turn is the first
choice's assistant message, its calls in `tool_calls` with the arguments as a JSON *string*; the app sends that
message back as it came, then one role "tool" message per call, carrying its `tool_call_id`.

A stream is chunks of `choices[].delta`. The rule for adding them up, one for the engine (which reads what the SDK
hands it), the HTTP tap and merge (which label the events they recorded): a tool-call delta belongs to the call
`flow.trace.pairing.StreamedCalls` names, by its id first (a gateway may stream one call as deltas that each carry
the call's id and no `index`), then by its `index`, else the latest call. A name sent again whole is the same name
(some servers repeat it, and the id, in every delta): only a piece that is not the whole name so far continues it.
Text is kept as pieces and joined once, and no value grows past what one value of a trace may hold
(`MAX_STRING_CHARS`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pydantic

from flow.trace.files import MAX_STRING_CHARS
from flow.trace.json_text import read_json_text
from flow.trace.model import as_dict, as_list, is_array, is_object
from flow.trace.pairing import StreamedCalls
from flow.trace.steps import Step
from flow.trace.summaries import arguments_text, counted
from flow.wire.base import (
    Adaptation,
    ApiName,
    Call,
    CallStarts,
    CallWritten,
    ChoicePlaces,
    Conversation,
    EventPart,
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
    ToolCall,
    ToolCallPart,
    ToolOutput,
    ToolReturnPart,
    ToolSpec,
    Turn,
    WireProblem,
    conversation_items,
    text_parts,
    trailing_results,
)
from flow.wire.facts import ERROR_KEYS, picked, with_parsed_arguments

LABEL_CHARS = 60  # of a piece of text, what a chunk's line quotes


def get(obj: Any, name: str) -> Any:
    """A field of an SDK object or of a plain dict, None when absent: the SDK builds responses without checking
    them, and a recording holds whatever came, so any field may be missing or of another type."""
    if is_object(obj):
        return obj.get(name)
    if isinstance(obj, pydantic.BaseModel):
        return getattr(obj, name, None)
    return None


def excerpt(value: Any) -> str:
    """The start of a value, quoted, for a line that says what came instead of what was expected."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return repr(text[:60] + ("…" if len(text) > 60 else ""))


# --- the request ------------------------------------------------------------------------------------------------------


def tool_choice(choice: str) -> Any:
    """The neutral choice as Chat Completions writes it: a word, or the one function the model must call."""
    if choice in ("auto", "none", "required"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def _messages(conversation: Conversation, adapt: bool) -> tuple[list[dict[str, Any]], list[Adaptation]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": conversation.system}]
    adapted: list[Adaptation] = []
    for item in conversation.items:
        if isinstance(item, str):
            messages.append({"role": "user", "content": item})
        elif isinstance(item, Native):
            messages.append(item.message)
        elif isinstance(item, ToolOutput):
            messages.append({"role": "tool", "tool_call_id": item.call_id, "content": item.content})
        else:
            message = item.raw
            if message.get("content") is None and item.calls and adapt:
                # OpenAI takes null beside tool_calls; some compatible servers refuse it (HTTP 500), none refuses "".
                message = {**message, "content": ""}
                adapted.append(Adaptation(f"messages[{len(messages)}].content", None, "", "content_null"))
            messages.append(message)
    return messages, adapted


def _turn(message: dict[str, Any], finish: str | None) -> Turn:
    sent: list[dict[str, Any]] = message.get("tool_calls") or []
    calls = tuple(Call(c["id"], c["function"]["name"], c["function"]["arguments"], c) for c in sent)
    return Turn(message.get("content"), calls, finish, message)


# --- a whole response ---------------------------------------------------------------------------------------------------


def _tool_calls(value: Any, where: str) -> list[dict[str, Any]]:
    """Tool calls as the app sends them back, each with an id, a function name and its arguments as a string."""
    if value is None:
        return []
    if not is_array(value):
        raise WireProblem("not_a_list", where=where)
    calls: list[dict[str, Any]] = []
    for i, call in enumerate(value):
        fn = get(call, "function")
        name, call_id, arguments = get(fn, "name"), get(call, "id"), get(fn, "arguments")
        if not isinstance(name, str) or not name:
            raise WireProblem("call_without_name", where=where, i=i)
        if not isinstance(call_id, str) or not call_id:
            raise WireProblem("call_without_id", where=where, i=i, name=name)
        if is_object(arguments):  # an object where a JSON string belongs: some providers
            arguments = json.dumps(arguments, ensure_ascii=False)
        elif arguments is None:
            arguments = ""
        elif not isinstance(arguments, str):
            raise WireProblem("arguments_not_text", where=where, i=i, name=name)
        dumped: dict[str, Any] = (
            call.model_dump(mode="json", exclude_none=True, warnings=False)
            if isinstance(call, pydantic.BaseModel)
            else dict(call)
        )
        dumped.setdefault("type", "function")
        dumped["id"] = call_id
        dumped["function"] = {**as_dict(dumped.get("function")), "name": name, "arguments": arguments}
        calls.append(dumped)
    return calls


def read(completion: Any) -> Turn:
    """The model's turn in a chat completion (the SDK's object, or its JSON); `WireProblem` says what is wrong."""
    if not isinstance(completion, (pydantic.BaseModel, dict)):
        raise WireProblem("body_not_object", excerpt=excerpt(completion))
    choices = get(completion, "choices")
    if not is_array(choices) or not choices:
        raise WireProblem("no_choices", excerpt=excerpt(choices))
    message = get(choices[0], "message")
    if not isinstance(message, (pydantic.BaseModel, dict)):
        raise WireProblem("no_message")
    content = get(message, "content")
    if content is not None and not isinstance(content, str):
        raise WireProblem("content_not_text")
    calls = _tool_calls(get(message, "tool_calls"), "choices[0].message.tool_calls")
    if content is None and not calls and get(message, "refusal") is None:
        raise WireProblem("no_content", finish=str(get(choices[0], "finish_reason")))
    out: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        out["tool_calls"] = calls
    finish = get(choices[0], "finish_reason")
    return _turn(out, None if finish is None else str(finish))


def first_choice(body: Any) -> dict[str, Any]:
    """The first choice of a completion or a chunk, or {} when it has none a reader can use."""
    choices = body.get("choices") if is_object(body) else None
    return as_dict(choices[0]) if is_array(choices) and choices else {}


def response_step(body: Any) -> Step:
    """A response (or a chunk) that asks for tools is the decision (step 4); one that answers is step 9."""
    choice = first_choice(body)
    message = as_dict(choice.get("message")) or as_dict(choice.get("delta"))
    if message.get("tool_calls") or choice.get("finish_reason") == "tool_calls":
        return Step.DECISION
    return Step.MODEL_ANSWER


def call_text(call: Any) -> str:
    """One tool call of a message as a summary writes it: `get_weather(city=北京)`."""
    fn = as_dict(as_dict(call).get("function"))
    raw = fn.get("arguments")
    text = raw if isinstance(raw, str) else "" if raw is None else json.dumps(raw, ensure_ascii=False, default=str)
    ok, args = read_json_text(text or "{}")
    if not ok:
        shown = text[:40] + " (not JSON)"
    else:
        shown = arguments_text(args) if is_object(args) else json.dumps(args, ensure_ascii=False)
    return f"{fn.get('name')}({shown})"


def request_summary(body: Any) -> str:
    """What a request body carries, in a line: `2 messages, 4 tools (stream)`."""
    body = as_dict(body)
    messages, tools = body.get("messages"), body.get("tools")
    return (
        f"{counted(len(messages) if is_array(messages) else 0, 'message')}, "
        f"{counted(len(tools) if is_array(tools) else 0, 'tool')}" + (" (stream)" if body.get("stream") else "")
    )


def response_summary(body: Any) -> str:
    """A completion's line: the calls it asks for, or why it stopped."""
    choice = first_choice(body)
    if not choice:
        return "response"
    calls = as_dict(choice.get("message")).get("tool_calls")
    if is_array(calls) and calls:
        return "tool_calls: " + ", ".join(call_text(c) for c in calls)
    return f"finish_reason: {choice.get('finish_reason')}"


def turn_summary(turn: Turn) -> str:
    """The assembled turn's line, as a whole response's would read."""
    return response_summary({"choices": [{"message": turn.raw, "finish_reason": turn.finish}]})


# --- a stream -----------------------------------------------------------------------------------------------------------


class _Text:
    """Text that arrives in pieces: kept as a list, joined once, and cut at `limit` characters."""

    __slots__ = ("_joined", "_pieces", "chars", "cut", "limit")

    def __init__(self, limit: int) -> None:
        self._pieces: list[str] = []
        self._joined: str | None = ""
        self.chars = 0
        self.cut = 0  # characters that came after the limit
        self.limit = limit

    def add(self, piece: str) -> None:
        room = self.limit - self.chars
        if len(piece) > room:
            self.cut += len(piece) - max(room, 0)
            piece = piece[: max(room, 0)]
        if piece:
            self._pieces.append(piece)
            self.chars += len(piece)
            self._joined = None

    def is_whole(self, piece: str) -> bool:
        """Whether `piece` is all the text so far (compared only when the lengths agree)."""
        return len(piece) == self.chars and piece == self.text()

    def text(self) -> str:
        if self._joined is None:
            self._joined = "".join(self._pieces)
            self._pieces = [self._joined] if self._joined else []
        return self._joined


@dataclass
class _Slot:
    name: _Text
    arguments: _Text
    id: str = ""


@dataclass
class ChatStream:
    """The chunks of one streamed completion, added in order (the SDK's objects or their JSON): each chunk's line,
    the assistant message they build, and the first chunk the app cannot read (`problem`)."""

    limit: int = MAX_STRING_CHARS
    events: int = 0
    decided: bool = False  # a chunk brought delta.tool_calls or finish_reason "tool_calls"
    finish: str | None = None
    problem: WireProblem | None = None
    calls: dict[int, _Slot] = field(default_factory=dict[int, _Slot])
    identity: StreamedCalls = field(default_factory=StreamedCalls)  # which call each delta continues
    _content: _Text | None = None  # None until a delta carries content, "" when it was streamed empty

    def add(self, event: Any) -> str:
        """One chunk (its first choice: the app asks for one); its line: `chunk 3: arguments += '京"}'`."""
        self.events += 1
        n = self.events
        if not isinstance(event, (dict, pydantic.BaseModel)):
            return f"chunk {n}: {str(event)[:30]}"
        choices = get(event, "choices")
        if not is_array(choices) or not choices:
            if choices is not None and not is_array(choices):
                self._fail(WireProblem("chunk_choices_not_list", chunk=n))
            return f"chunk {n}: usage" if get(event, "usage") else f"chunk {n}"
        choice = choices[0]
        delta = get(choice, "delta")
        content, calls = get(delta, "content"), get(delta, "tool_calls")
        if isinstance(content, str):
            self._add_content(content)
        elif content is not None:
            self._fail(WireProblem("chunk_content_not_text", chunk=n))
        said: list[str] = []
        if is_array(calls):
            self.decided = self.decided or bool(calls)
            for i, part in enumerate(calls):
                fn = get(part, "function")
                arguments = get(fn, "arguments")
                if is_object(arguments):  # an object where a JSON string belongs: some providers
                    arguments = json.dumps(arguments, ensure_ascii=False)
                arguments = arguments if isinstance(arguments, str) else None
                said.append(self._add_call(get(part, "index"), get(part, "id"), get(fn, "name"), arguments, i == 0))
        elif calls is not None:
            self._fail(WireProblem("chunk_calls_not_list", chunk=n))
            said.append(f"tool_calls is not a list ({type(calls).__name__})")
        finish = get(choice, "finish_reason")
        if finish is not None:
            self.finish = str(finish)
            self.decided = self.decided or self.finish == "tool_calls"
            return f"chunk {n}: finish_reason: {finish}"
        if said:
            return f"chunk {n}: {said[0]}" + (f" (and {len(said) - 1} more tool_call deltas)" if len(said) > 1 else "")
        role = get(delta, "role")
        if isinstance(content, str) and (content or not role):
            return f"chunk {n}: content += {quoted_label(content)}"
        return f"chunk {n}: role {role or ''}".strip()

    def _fail(self, problem: WireProblem) -> None:
        if self.problem is None:
            self.problem = problem

    def _add_content(self, piece: str) -> None:
        if self._content is None:
            self._content = _Text(self.limit)
        self._content.add(piece)

    def _add_call(self, index: Any, call_id: Any, name: Any, arguments: str | None, said: bool) -> str:
        """One tool-call delta; what it did, as a line's words (only the first of an event's deltas is told)."""
        key, new = self.identity.key(index, call_id)
        slot = self.calls.setdefault(key, _Slot(_Text(self.limit), _Text(self.limit)))
        if isinstance(call_id, str) and call_id:
            slot.id = call_id
        if isinstance(arguments, str):
            slot.arguments.add(arguments)
        renamed = isinstance(name, str) and name and not slot.name.is_whole(name)
        if renamed:
            slot.name.add(name)
        if not said:
            return ""
        more = f", arguments += {quoted_label(arguments)}" if arguments else ""
        if renamed:
            if new or slot.name.chars == len(name):
                return f"tool_call {clip_label(name)} starts{more}"
            return f"tool_call name += {quoted_label(name)}{more}"
        repeated = " (its name and id sent again)" if isinstance(name, str) and name else ""
        return f"arguments += {quoted_label(arguments or '')}{repeated}"

    def message(self) -> dict[str, Any]:
        """The assistant message so far: content as streamed (null when no delta carried any), the calls by index."""
        content = self._content.text() if self._content is not None else None
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if self.calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name.text(), "arguments": c.arguments.text()}}
                for _, c in sorted(self.calls.items())
            ]
        return message

    def cut(self) -> str | None:
        """What the limit left out of the message, in a line; None when nothing was."""
        parts = [("content", self._content)] if self._content is not None else []
        for i, c in sorted(self.calls.items()):
            parts += [(f"tool_calls[{i}].function.name", c.name), (f"tool_calls[{i}].function.arguments", c.arguments)]
        cut = [f"{where}: {text.cut:,} characters past the first {text.limit:,}" for where, text in parts if text.cut]
        return "; ".join(cut) or None

    def turn(self) -> Turn:
        """The turn the stream built; a stream that never said it finished is truncated, never an (empty) answer."""
        if self.problem is not None:
            raise self.problem
        if self.finish is None:
            if not self.events:
                raise WireProblem("stream_empty")
            content = self.message()["content"] or ""
            raise WireProblem("stream_truncated", chunks=self.events, chars=len(content))
        message = self.message()
        calls = _tool_calls(message.pop("tool_calls", None) or [], "the streamed tool_calls")
        if calls:
            message["tool_calls"] = calls
        return _turn(message, self.finish)


def clip_label(text: str) -> str:
    """A piece of text as a line quotes it: at most LABEL_CHARS characters."""
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def quoted_label(text: str | None) -> str:
    """A streamed fragment as a line quotes it, in quotes so its spaces show."""
    shown = repr(text)
    return shown if len(shown) <= LABEL_CHARS + 2 else shown[: LABEL_CHARS + 1] + "…"


# --- a recorded body read back ---------------------------------------------------------------------------------------


def _message(message: dict[str, Any]) -> Message:
    """One message: a role "tool" message is the result it carries, any other its content and its tool calls."""
    role = message.get("role", "user")
    if role == "tool":
        return Message("tool", (ToolReturnPart(message.get("tool_call_id"), message.get("content")),))
    parts: list[Part] = text_parts(message.get("content"))
    for call in map(as_dict, as_list(message.get("tool_calls"))):
        fn = as_dict(call.get("function"))
        parts.append(ToolCallPart(call.get("id"), fn.get("name"), fn.get("arguments")))
    return Message(role, tuple(parts))


def _reply(message: Any, finish: Any) -> Reply:
    """An assistant message and its choice's finish reason (the one Chat word for a tool call put in neutral ones)."""
    neutral = "tool_call" if finish in ("tool_calls", "function_call") else finish or "stop"
    return Reply(_message({**as_dict(message), "role": "assistant"}).parts, neutral, finish)


# --- the interface --------------------------------------------------------------------------------------------------------


def _body_facts(body: dict[str, Any]) -> dict[str, Any]:
    """A completion's, a chunk's or a request's facts: the assistant message's tool calls and content, the finish
    reason, the messages sent and the tool_call_ids they answer. The body is the provider's JSON as it came, so it
    is read with care."""
    facts = _choice_facts(first_choice(body))
    messages = body.get("messages")
    if is_array(messages):
        facts["messages"] = [_message_facts(m) for m in messages]
        ids = [as_dict(m).get("tool_call_id") for m in messages if as_dict(m).get("tool_call_id")]
        if ids:
            facts["tool_call_id"] = ids if len(ids) > 1 else ids[0]
    return facts | picked(body, ERROR_KEYS)


def _message_facts(msg: Any) -> Any:
    return picked(msg, ("role", "tool_call_id", "tool_calls", "content")) if is_object(msg) else msg


def _choice_facts(choice: dict[str, Any]) -> dict[str, Any]:
    """A choice's message (or a chunk's delta): its content, tool calls, role, and the finish reason."""
    facts: dict[str, Any] = {}
    message = as_dict(choice.get("message") or choice.get("delta"))
    whole = "message" in choice  # a whole message, not one chunk's delta
    if whole and "content" in message:  # first: null when the model asks for tools instead of answering
        facts["content"] = message["content"]
    if message.get("tool_calls"):
        facts["tool_calls"] = _with_parsed_arguments(message["tool_calls"]) if whole else message["tool_calls"]
    if "role" in message:
        facts["role"] = message["role"]
    if choice.get("finish_reason") is not None:
        facts["finish_reason"] = choice["finish_reason"]
    return facts


def _with_parsed_arguments(calls: Any) -> Any:
    """Tool calls with their arguments string read as JSON beside it."""
    if not is_array(calls):
        return calls
    out: list[Any] = []
    for call in calls:
        fn = as_dict(call).get("function")
        if not is_object(fn) or "arguments" not in fn:
            out.append(call)
            continue
        out.append({**as_dict(call), "function": with_parsed_arguments(fn)})
    return out


def _lenient_turn(message: Any, finish: Any) -> RecordedTurn:
    calls = [as_dict(c) for c in as_list(as_dict(message).get("tool_calls"))]
    found = [
        ToolCall(
            str(as_dict(c.get("function")).get("name")),
            as_dict(c.get("function")).get("arguments"),
            str(c.get("id") or ""),
        )
        for c in calls
    ]
    return found, finish if isinstance(finish, str) else None


class ChatCompletions:
    """Chat Completions as the engine, the taps and the views use it."""

    name: ApiName = "chat"
    path = "/chat/completions"
    schema_field = "parameters"
    sdk: Literal["openai", "anthropic"] = "openai"
    arguments_json = True
    keeps_responses = False
    hosted_mcp = False
    hosted_approval = False
    conversation_field = "messages"
    places: Places = ChoicePlaces()
    max_tokens_field = "max_tokens"

    def claims_request(self, body: dict[str, Any]) -> bool:
        return False  # a request of no other API's shape is read as Chat Completions (registered first)

    def claims_body(self, body: dict[str, Any]) -> Literal["sure", "likely"] | None:
        return "sure" if "choices" in body else None

    def is_function(self, tool: dict[str, Any]) -> bool:
        return tool.get("type") == "function"

    def recorded_turn(self, body: Any, *, assembled: bool, finish: Any) -> RecordedTurn | None:
        """Read leniently: a call without an id (some local servers send none) is still a call the model asked
        for."""
        if assembled:
            return _lenient_turn(body, finish)
        choice = first_choice(body)
        return _lenient_turn(choice.get("message"), choice.get("finish_reason")) if choice else None

    def event_part(self, data: dict[str, Any], said: str) -> EventPart:
        """A chunk: a call starting (which only the stream's memory knows: a name sent again in every delta starts
        nothing, so the line the stream wrote says), a piece of its arguments or of text, why it stopped, or what
        else it carries."""
        choice = first_choice(data)
        if not choice:
            return Named("usage" if data.get("usage") else None)
        delta = as_dict(choice.get("delta"))
        if choice.get("finish_reason"):
            return Stopped("finish_reason", choice["finish_reason"])
        calls = delta.get("tool_calls")
        if is_array(calls) and calls:
            fn = as_dict(as_dict(calls[0]).get("function"))
            if fn.get("name") and re.match(r"chunk \d+: tool_call .* starts", said):
                return CallStarts("tool_call", fn["name"])
            return Piece("arguments", fn.get("arguments", ""))
        content = delta.get("content")
        if isinstance(content, str) and (content or not delta.get("role")):
            return Piece("content", content)
        return Named(f"role {delta.get('role', '')}".strip())

    def answered(self, body: Any) -> list[tuple[tuple[str | int, ...], str]]:
        return trailing_results(body, "messages", "role", "tool", "tool_call_id")

    def sent_results(self, body: Any) -> list[tuple[Any, Any]]:
        items = map(as_dict, conversation_items(as_dict(body), "messages"))
        return [(i.get("tool_call_id"), i.get("content")) for i in items if i.get("role") == "tool"]

    def request_facts(self, body: dict[str, Any]) -> dict[str, Any]:
        return _body_facts(body)

    def reply_facts(self, body: dict[str, Any]) -> dict[str, Any]:
        return _body_facts(body)

    def event_facts(self, data: dict[str, Any]) -> dict[str, Any]:
        return _body_facts(data)

    def tool(self, spec: ToolSpec) -> dict[str, Any]:
        fn: dict[str, Any] = {"name": spec.name, "description": spec.description, "parameters": spec.parameters}
        if spec.strict:
            fn["strict"] = True
        return {"type": "function", "function": fn}

    def request(self, conversation: Conversation, tools: Sequence[dict[str, Any]], settings: Settings) -> Request:
        messages, adapted = _messages(conversation, settings.adapt)
        body: dict[str, Any] = {"model": settings.model, "messages": messages, "tools": list(tools)}
        body["tool_choice"] = tool_choice(settings.tool_choice)
        if not settings.parallel:
            body["parallel_tool_calls"] = False
        if settings.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}  # the last chunk then says what the call cost
        return Request(body, tuple(adapted))

    def read(self, response: Any) -> Turn:
        return read(response)

    def turn(self, text: str | None, calls: Sequence[CallWritten]) -> Turn:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
                }
                for c in calls
            ]
        return read({"choices": [{"message": message, "finish_reason": "tool_calls" if calls else "stop"}]})

    def stream(self) -> ChatStream:
        return ChatStream()

    def response_step(self, body: Any) -> Step:
        return response_step(body)

    def request_summary(self, body: Any) -> str:
        return request_summary(body)

    def response_summary(self, body: Any) -> str:
        return response_summary(body)

    def turn_summary(self, turn: Turn) -> str:
        return turn_summary(turn)

    # Reading a recorded body back into neutral parts (the OpenTelemetry export and the importers).

    def input_messages(self, body: Any) -> list[Message]:
        items = as_dict(body).get("messages")
        return [_message(as_dict(m)) for m in ([items] if isinstance(items, str) else as_list(items))]

    def instructions(self, body: Any) -> list[Part]:
        return []  # the system prompt is a message

    def tool_definitions(self, body: Any) -> list[dict[str, Any]]:
        tools = map(as_dict, as_list(as_dict(body).get("tools")))
        return [{"type": t.get("type", "function"), **as_dict(t.get("function"))} for t in tools]

    def replies(self, response: Any) -> list[Reply] | None:
        choices = map(as_dict, as_list(as_dict(response).get("choices")))
        return [_reply(c.get("message"), c.get("finish_reason")) for c in choices]

    def assembled_body(self, message: Any, finish: Any) -> dict[str, Any]:
        return {"choices": [{"message": message, "finish_reason": finish}]}

    def stream_response(self, event: dict[str, Any]) -> dict[str, Any]:
        return event  # every chunk names the completion

    def reported_body(self, items: list[dict[str, Any]]) -> dict[str, Any] | None:
        return None


CHAT = ChatCompletions()
