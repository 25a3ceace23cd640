"""The model-API seam: the neutral shapes the engine thinks in, and the one interface each model API implements.

A model API (Chat Completions today) is a wire format: how a conversation and its tools become a request body,
how a response body or a stream of events becomes the model's turn, and how the app writes that turn and the
tools' results back. Everything here is JSON in, JSON out, with no SDK: the engine sends the bodies through the
API's official SDK, the HTTP tap and merge label what they recorded with the same reader, and the views read a
recorded body through it. The raw bodies stay beside the neutral view (`Turn.raw`), because showing the wire is
the product.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from flow.trace.model import as_dict, as_list, is_array, is_object
from flow.trace.payloads import Adaptation as AdaptationPayload
from flow.trace.steps import Step

ApiName = Literal["chat", "responses", "messages"]


"""The model APIs the engine speaks: OpenAI Chat Completions, OpenAI Responses, Anthropic Messages (a trace's
`meta.settings.api`; absent means "chat")."""


ToolChoice = str


"""Neutral tool choice: "auto", "none", "required", or the name of the one tool the model must call."""


class WireProblem(Exception):
    """A response the app cannot read: a code (`flow.text.errors` words it) and its facts."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code, self.params = code, params


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool as the app offers it to a model: a name, a description and the JSON Schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]
    strict: bool = False


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call the model made: its id, the tool's name, and its arguments as the JSON text the model wrote."""

    id: str
    name: str
    arguments: str
    raw: dict[str, Any]  # the call as the API wrote it, sent back as it came
    parsed: dict[str, Any] | None = None  # the arguments as an object, where the API sends them so (Messages)


@dataclass(frozen=True, slots=True)
class CallWritten:
    """A tool call someone else kept, to be written as this API's model would have written it: an MCP server's
    sampling request replays the model's earlier `tool_use` so."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Turn:
    """The model's turn: its text (None when it wrote none), the calls it made, why it stopped, and the message as
    the API wrote it (`raw`), which the app sends back in the next request."""

    text: str | None
    calls: tuple[Call, ...]
    finish: str | None
    raw: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What the app sends back for one call: the text the model reads, and whether the tool failed."""

    call_id: str
    content: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class Native:
    """A message already in the API's own form (a prompt's messages as the app translated them)."""

    message: dict[str, Any]


Item = str | Turn | ToolOutput | Native


"""One entry of a conversation: the user's text, the model's turn, a tool's output, or a message in the API's form."""


@dataclass
class Conversation:
    """What the app has said and heard so far; the model API has no memory, so every request carries all of it."""

    system: str
    items: list[Item] = field(default_factory=list[Item])


def previous_response(conversation: Conversation) -> str | None:
    """The id of the model's last response (Responses), which a follow-up names instead of sending it again."""
    turns = [item for item in conversation.items if isinstance(item, Turn)]
    last = turns[-1].raw.get("id") if turns else None
    return last if isinstance(last, str) and last else None


@dataclass(frozen=True, slots=True)
class Settings:
    """What a request asks of the model besides the conversation and the tools."""

    model: str
    tool_choice: ToolChoice = "auto"
    parallel: bool = True  # False: ask for at most one call per turn
    stream: bool = False
    adapt: bool = True  # change what some servers refuse (a null content beside tool calls), and say so
    previous_response_id: str | None = None  # Responses: send only what is new, and name the response it follows


@dataclass(frozen=True, slots=True)
class Adaptation:
    """A value the app changed before sending, so that every compatible server takes the request."""

    path: str  # where in the body, as a JSON path: messages[2].content
    received: Any
    sent: Any
    why: str  # a code flow.text words: "content_null"

    def as_json(self) -> AdaptationPayload:
        return {"path": self.path, "received": self.received, "sent": self.sent, "why": self.why}


@dataclass(frozen=True, slots=True)
class Request:
    """A request body, and what the app changed in it (`Settings.adapt`)."""

    body: dict[str, Any]
    adapted: tuple[Adaptation, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call a recorded model reply asks its asker to run: the tool's name, its arguments as the model sent
    them (a JSON string, or Messages' object) and the call's id ("" when the model gave none)."""

    name: str
    arguments: Any
    id: str


RecordedTurn = tuple[list[ToolCall], str | None]


"""The calls a recorded reply asks for, in the neutral form the pairing uses, and why the model stopped."""


def read_safely(api: WireApi, body: dict[str, Any]) -> Turn | None:
    """A recorded body read by its API, or None when that API cannot read it (a foreign or broken shape)."""
    return read_or_none(api.read, body)


def trailing_results(
    body: Any, field: str, tag: str, kind: str, id_key: str
) -> list[tuple[tuple[str | int, ...], str]]:
    """The tool results a request's conversation ends with, each as (its path, the call id it quotes): the items
    under `field` whose `tag` ("role", "type") is `kind`, up to the first that is not."""
    items = conversation_items(as_dict(body), field)
    out: list[tuple[tuple[str | int, ...], str]] = []
    for i in range(len(items) - 1, -1, -1):
        item = as_dict(items[i])
        if item.get(tag) != kind:
            break
        out.append(((field, i), str(item.get(id_key))))
    return out[::-1]


def read_recorded(api: WireApi, body: Any, *, assembled: bool, finish: Any) -> RecordedTurn | None:
    """A recorded reply (or a message assembled from a stream) read by its API's own reader, its calls in the
    neutral form; None when that reader cannot read it."""
    turn = read_safely(api, api.assembled_body(body, finish) if assembled else as_dict(body))
    if turn is None:
        return None
    return [ToolCall(c.name, c.parsed if c.parsed is not None else c.arguments, c.id) for c in turn.calls], turn.finish


def conversation_items(body: dict[str, Any], field: str) -> list[Any]:
    """What a request carries of the conversation under `field`; Responses takes a bare string as the user's text."""
    items = body.get(field)
    if isinstance(items, str):
        return [items]
    return as_list(items)


@dataclass(frozen=True, slots=True)
class ChoicePlaces:
    """Where the inspector looks in an API that answers with choices and talks in role messages (Chat Completions):
    a reply's `tool_calls` and `content` beside its `finish_reason`, a backfill's role "tool" messages after the
    assistant message whose calls they answer, a chunk's `delta`."""


@dataclass(frozen=True, slots=True)
class ItemPlaces:
    """Where the inspector looks in an API that writes a turn as a list of typed parts (Responses' output items,
    Messages' content blocks)."""

    turn: str  # where a reply's parts are: "output", "content"
    call: str  # a call's part type: "function_call", "tool_use"
    call_id: str  # its id's key: "call_id", "id"
    arguments: str  # its arguments' key: "arguments" (a JSON string), "input" (an object)
    text_in_content: bool  # a reply's text part holds its text in its own `content` (Responses' message items)
    finish: str  # why the model stopped: "status", "stop_reason"
    result_id: str  # the call id a sent result quotes: "call_id", "tool_use_id"
    in_messages: bool  # calls and results are blocks inside role messages (Messages), not items of their own


Places = ChoicePlaces | ItemPlaces


@dataclass(frozen=True, slots=True)
class CallStarts:
    """A stream event that starts a call: the part the API calls it ("tool_call", "function_call", "tool_use")."""

    part: str
    name: Any


@dataclass(frozen=True, slots=True)
class Piece:
    """A stream event that brings a piece of a field: text, or a call's arguments, by the field's wire name."""

    field: str
    text: Any


@dataclass(frozen=True, slots=True)
class Stopped:
    """A stream event that says why the model stopped, by the field's wire name."""

    field: str
    reason: Any


@dataclass(frozen=True, slots=True)
class Named:
    """Any other stream event, by what it is (its type, or what it carries: "usage", "role assistant"); `what` is
    None for a chunk that says nothing a lesson reads."""

    what: str | None


EventPart = CallStarts | Piece | Stopped | Named


"""What one stream event brings, read by its API: what the event's line in the diagram says."""


# --- a recorded body read back into neutral parts ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TextPart:
    """Text someone wrote: the user, the app's system prompt, the model."""

    text: Any  # a string; a recording's part may hold other JSON, kept as it came
    part_kind: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ToolCallPart:
    """A tool call the model made: its id, the tool's name, and its arguments (the JSON text, or the object where
    the API sends one), as the body wrote them."""

    call_id: Any
    name: Any
    arguments: Any
    part_kind: Literal["tool-call"] = "tool-call"


@dataclass(frozen=True, slots=True)
class ToolReturnPart:
    """What the app sent back for a call: the call's id and the content as the API carried it."""

    call_id: Any
    content: Any
    part_kind: Literal["tool-return"] = "tool-return"


@dataclass(frozen=True, slots=True)
class OtherPart:
    """A piece no other part stands for (an image, a hosted MCP item): its type, and the piece as it came."""

    type: str
    value: Any
    part_kind: Literal["other"] = "other"


Part = TextPart | ToolCallPart | ToolReturnPart | OtherPart


"""One piece of a message read back from a recorded body."""


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a recorded request: its role as the body names it ("system", "user", "assistant", "tool")
    and its parts."""

    role: Any
    parts: tuple[Part, ...]


@dataclass(frozen=True, slots=True)
class Reply:
    """One message the model answered with: its parts, why it stopped in neutral words ("tool_call", "stop",
    "length"; the provider's own word where none fits), and the provider's own word."""

    parts: tuple[Part, ...]
    finish: Any
    said_finish: Any


def text_parts(content: Any) -> list[Part]:
    """Content as parts: a string, or a list of content parts (OpenAI's) or blocks (Anthropic's), whose text parts
    become text and any other is kept as it came."""
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [TextPart(content)]
    if is_array(content):
        return [_content_part(p) for p in content]
    return [OtherPart("unknown", content)]


def _content_part(piece: Any) -> Part:
    if not is_object(piece):
        return OtherPart("unknown", piece)
    kind = piece.get("type")
    return TextPart(piece.get("text")) if kind in ("text", "input_text", "output_text") else OtherPart(str(kind), piece)


def read_or_none(read: Callable[[Any], Turn], body: Any) -> Turn | None:
    """The turn `read` finds in a recorded body, None when it finds none (the recording is what it is)."""
    try:
        return read(body)
    except (WireProblem, KeyError, TypeError, AttributeError):
        return None


def turn_reply(turn: Turn, finish_words: Mapping[str, str], *extra: Part) -> Reply:
    """The model's turn as a reply, the API's finish words put in neutral ones (a turn that calls a tool stops to
    call it); `extra`, the turn's parts no field of `Turn` holds."""
    calls = [ToolCallPart(c.id, c.name, c.parsed if c.parsed is not None else c.arguments) for c in turn.calls]
    finish = "tool_call" if turn.calls else finish_words.get(str(turn.finish), turn.finish or "stop")
    return Reply((*text_parts(turn.text), *calls, *extra), finish, turn.finish)


class Stream(Protocol):
    """A streamed response, event by event: each event's line, the turn they build, and whether the model has
    decided to call a tool (which makes the stream step 4 rather than 9)."""

    events: int
    decided: bool
    problem: WireProblem | None  # the first event the app cannot read; the engine stops there

    def add(self, event: Any) -> str: ...
    def turn(self) -> Turn: ...


class WireApi(Protocol):
    """One model API's wire format."""

    name: ApiName
    path: str  # the request's path under the base URL: "/chat/completions"
    schema_field: str  # where a tool definition carries the JSON Schema of its arguments: "parameters"
    sdk: Literal["openai", "anthropic"]  # the official SDK the app speaks it with
    arguments_json: bool  # a call's arguments come as a JSON string the app must parse (not as an object)
    keeps_responses: bool  # the provider keeps a response for a follow-up to name (previous_response_id)
    hosted_mcp: bool  # the request can name MCP servers for the provider to reach itself (hosted MCP)
    hosted_approval: bool  # hosted MCP calls can wait for the app's approval (mcp_approval_request)
    conversation_field: str  # where a request carries the conversation: "messages", or Responses' "input"
    places: Places  # where the inspector looks in its bodies
    max_tokens_field: str  # the request field that bounds the reply's length

    # Reading a recorded body: which API it speaks, and what it says, never raising on a foreign shape.
    def claims_request(self, body: dict[str, Any]) -> bool: ...
    def claims_body(self, body: dict[str, Any]) -> Literal["sure", "likely"] | None: ...
    def is_function(self, tool: dict[str, Any]) -> bool: ...
    def recorded_turn(self, body: Any, *, assembled: bool, finish: Any) -> RecordedTurn | None: ...
    def answered(self, body: Any) -> list[tuple[tuple[str | int, ...], str]]: ...
    def sent_results(self, body: Any) -> list[tuple[Any, Any]]: ...
    def event_part(self, data: dict[str, Any], said: str) -> EventPart: ...  # `said`: the line the stream wrote

    # What the inspector puts first in a recorded body: the fields a lesson about this API is about.
    def request_facts(self, body: dict[str, Any]) -> dict[str, Any]: ...
    def reply_facts(self, body: dict[str, Any]) -> dict[str, Any]: ...
    def event_facts(self, data: dict[str, Any]) -> dict[str, Any]: ...

    def tool(self, spec: ToolSpec) -> dict[str, Any]: ...
    def request(self, conversation: Conversation, tools: Sequence[dict[str, Any]], settings: Settings) -> Request: ...
    def read(self, response: Any) -> Turn: ...
    def turn(self, text: str | None, calls: Sequence[CallWritten]) -> Turn: ...
    def stream(self) -> Stream: ...
    def response_step(self, body: Any) -> Step: ...
    def request_summary(self, body: Any) -> str: ...
    def response_summary(self, body: Any) -> str: ...
    def turn_summary(self, turn: Turn) -> str: ...

    # Reading a recorded body back into neutral parts (the OpenTelemetry export and the importers).

    def input_messages(self, body: Any) -> list[Message]: ...  # a request's conversation, as messages
    def instructions(self, body: Any) -> list[Part]: ...  # a request's system text beside its messages (none: Chat)
    # a request's tools, each flat: its type, name, description and `parameters`, beside any other key it has
    def tool_definitions(self, body: Any) -> list[dict[str, Any]]: ...
    def replies(self, response: Any) -> list[Reply] | None: ...  # a whole response's; None: the API cannot read it
    # the response body a message assembled from a stream stands for (`llm.assembled` keeps the finish reason apart)
    def assembled_body(self, message: Any, finish: Any) -> dict[str, Any]: ...
    def stream_response(self, event: dict[str, Any]) -> dict[str, Any]: ...  # what an event says of the response
    # a response body carrying a provider's report of its MCP calls (hosted MCP); None: the API reports none
    def reported_body(self, items: list[dict[str, Any]]) -> dict[str, Any] | None: ...
