"""One payload type per hop kind: what each kind's `Hop.payload` holds.

TypedDicts, so recording builds plain dicts and pays nothing for them; a file is checked against them once, when
it is read (`payload_problem`), and readers take a payload through `payload_of(hop, kind)`, typed by its kind.

Lenient at the wire, strict inside: what the app itself writes (a call request, the HTTP exchange's method, URL,
status and headers, an error's facts) is declared with its type, and a file holding another type there is refused
with the path. What a peer chose to say (an HTTP body from the model, a JSON-RPC frame's params and result, the
tool list a server sent) stays JSON as it came (`Json`, `JsonObject`): a recording must always load, whatever a
provider or server sent. Unknown keys are kept and ignored everywhere, as in the rest of the format.

A payload the recorder cut (`Hop.clipped` says what) may be the start of its JSON as text, or null: it is not
checked, and `payload_of` gives None for it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import GenericAlias
from typing import Annotated, Any, Generic, Literal, NotRequired, TypeAlias, TypeVar, cast, overload

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from flow.trace.model import KINDS, Hop, Kind, is_array, is_object

Json = Any


"""Any JSON value, kept as it came."""


JsonObject = dict[str, Any]


"""A JSON object whose keys are a peer's to choose."""


_OPEN = ConfigDict(extra="allow")


P = TypeVar("P", covariant=True)


H = TypeVar("H", bound="_Of[Any]")


# --- shapes the app builds and the payloads share ----------------------------------------------------------------


@with_config(_OPEN)
class FunctionCall(TypedDict):
    """The function a tool call names, with its arguments as the JSON *string* the model wrote."""

    name: str
    arguments: str


@with_config(_OPEN)
class ToolCall(TypedDict):
    """One tool call of an assistant message, as the app reads it (and sends it back in step 8)."""

    id: str
    type: NotRequired[Json]  # "function"; a provider's own value is kept as it came
    function: FunctionCall


@with_config(_OPEN)
class AssistantMessage(TypedDict):
    """The model's turn the app assembled from a stream, in its API's form: Chat Completions' assistant message
    (`role`, `content` text, `tool_calls`), Responses' `output` items (and the response's `id`), or Messages'
    `content` blocks. Responses' items are kept as the completed response listed them, whatever their shape:
    a provider's stray `null` among them is drawn as it came, as it is in an unstreamed body."""

    role: NotRequired[str]
    content: NotRequired[str | None | list[JsonObject]]
    tool_calls: NotRequired[list[ToolCall]]
    output: NotRequired[list[Json]]


@with_config(_OPEN)
class CallRequest(TypedDict):
    """Step 5's result: the tool's name and its arguments parsed into an object."""

    name: str
    arguments: JsonObject


@with_config(_OPEN)
class RpcError(TypedDict):
    """A JSON-RPC error object."""

    code: int
    message: str
    data: NotRequired[Json]


@with_config(_OPEN)
class PromptRef(TypedDict):
    name: str
    arguments: JsonObject


@with_config(_OPEN)
class HttpExchange(TypedDict):
    """One HTTP exchange with an MCP server over Streamable HTTP that failed: what was sent, and what came back."""

    method: str
    url: str
    jsonrpc: NotRequired[JsonObject]  # the id and method of the frame the request carried
    status: NotRequired[int]
    response_headers: NotRequired[dict[str, str]]
    response_body: NotRequired[Json]
    exception: NotRequired[str]
    message: NotRequired[str]


@with_config(_OPEN)
class ChatRequest(TypedDict, total=False):
    """The chat.completions request body, as the openai SDK sent it (or an importer rebuilt it)."""

    model: str | None
    messages: list[JsonObject]
    tools: list[JsonObject]
    stream: bool
    tool_choice: Json
    parallel_tool_calls: bool


# --- one payload type per kind -------------------------------------------------------------------------------------


@with_config(_OPEN)
class PrepareToolsPayload(TypedDict):
    """Step 0: the tool list as it was built, and by what."""

    tools: list[JsonObject]
    built_from: NotRequired[str]  # MCP mode: the decorators that built them
    written_by: NotRequired[str]  # direct mode: where the hand-written schemas are


@with_config(_OPEN)
class UserMessagePayload(TypedDict):
    content: str
    prompt: NotRequired[PromptRef]  # the MCP prompt the question is asked through


@with_config(_OPEN)
class ToolListPayload(TypedDict):
    """Direct mode, step 2: the app's own function schemas, in OpenAI's format."""

    tools: list[JsonObject]


@with_config(_OPEN)
class ClientResultPayload(TypedDict, total=False):
    """What the MCP client hands the app: the tool list, a resource read, a prompt fetched, or a server's listing."""

    tools: list[JsonObject]
    resources: list[JsonObject]
    prompts: list[JsonObject]
    uri: str  # a resource read
    prompt: str  # a prompt fetched
    result: JsonObject  # the SDK's result object, as JSON
    as_chat_messages: list[JsonObject]  # a prompt's messages as the chat messages the app sends


@with_config(_OPEN)
class McpRequestPayload(TypedDict):
    """A JSON-RPC request frame, as the transport carried it."""

    jsonrpc: NotRequired[str]
    id: int | str
    method: str
    params: NotRequired[JsonObject]


@with_config(_OPEN)
class McpNotificationPayload(TypedDict):
    jsonrpc: NotRequired[str]
    id: NotRequired[None]  # a log may write "id": null, which makes a frame no one answers
    method: str
    params: NotRequired[JsonObject]


@with_config(_OPEN)
class McpResponsePayload(TypedDict):
    jsonrpc: NotRequired[str]
    id: NotRequired[int | str | None]
    result: JsonObject


@with_config(_OPEN)
class McpErrorPayload(TypedDict):
    jsonrpc: NotRequired[str]
    id: NotRequired[int | str | None]
    error: RpcError


@with_config(_OPEN)
class McpReportedPayload(TypedDict):
    """Hosted MCP: one side of an MCP exchange the model provider reports it made as the MCP client, rebuilt from
    the output item (Responses: `mcp_list_tools`, `mcp_call`) or content block (Messages: `mcp_tool_use`,
    `mcp_tool_result`) it wrote. Nobody here saw it cross a wire: no timing, retries or headers are known."""

    reported_by: str  # the API whose response carried the report: "responses" | "messages"
    method: str  # "tools/list" | "tools/call"
    server: str  # the server's label (Responses `server_label`, Messages `server_name`)
    item: JsonObject  # the item or block as the provider wrote it
    response_seq: int  # the model hop (llm.response or llm.assembled) that carried it
    name: NotRequired[str]  # the tool called
    arguments: NotRequired[Json]  # its arguments as reported (an object, or the JSON text Responses writes)
    tools: NotRequired[list[str]]  # tools/list: the names the provider says it listed
    output: NotRequired[str]  # tools/call: the result's text as reported
    is_error: NotRequired[bool]
    observed: NotRequired[int]  # the seq of the frame a recorder saw for this same exchange, when one did
    mismatch: NotRequired[list[str]]  # where the report and the observed frame disagree


@with_config(_OPEN)
class ServerAsk(TypedDict):
    """Which request of the MCP server the host is answering: a request the server sent back over the session
    (2025-11-25, its JSON-RPC id) or one of the input requests of an input-required result (2026-07-28, its key)."""

    method: str  # "sampling/createMessage" | "elicitation/create" | "roots/list"
    jsonrpc_id: NotRequired[int | str]
    key: NotRequired[str]


@with_config(_OPEN)
class UserInputPayload(TypedDict):
    """A server asked the user something (elicitation): the question as the host put it to the user, or the user's
    answer. `action` and `content` are the answer's; the rest is the question's."""

    asked: ServerAsk
    mode: NotRequired[str]  # "form" | "url" | "sampling" (the host asks whether the server may use its model)
    message: NotRequired[str]
    requested_schema: NotRequired[JsonObject]  # form mode: the fields the server asks for
    url: NotRequired[str]  # URL mode: where the user is sent, outside the MCP client
    sampling: NotRequired[JsonObject]  # sampling: what the host's model would be sent (messages, tools, maxTokens)
    action: NotRequired[str]  # the answer: "accept" | "decline" | "cancel"
    content: NotRequired[JsonObject]  # accepted form values
    answered_by: NotRequired[str]  # who answered for the user: "form" (the Run page), "prompt", "options"
    timed_out: NotRequired[float]  # no answer came within this many seconds: cancelled


@with_config(_OPEN)
class TranslateForwardPayload(TypedDict):
    """Step 3: each MCP tool as the server listed it, and the OpenAI function it became."""

    mcp: list[JsonObject]
    openai: list[JsonObject]
    # Or step 2: a prompt's messages or a resource's contents (`what`) as chat messages, and how each was mapped.
    what: NotRequired[str]
    content: NotRequired[list[str]]


@with_config(_OPEN)
class Adaptation(TypedDict):
    """A value the app changed before sending, so that every compatible server takes the request."""

    path: str  # where in the body, as a JSON path: messages[2].content
    received: Json  # what the model had written there
    sent: Json  # what the app sent instead
    why: str  # a code flow.text words: "content_null"


@with_config(_OPEN)
class LlmRequestPayload(TypedDict):
    """The HTTP request the openai SDK sent (an importer keeps only the body)."""

    method: NotRequired[str]
    url: NotRequired[str]  # without user-info or query values
    headers: NotRequired[dict[str, str]]  # secrets redacted
    body: ChatRequest | str  # text when it was not JSON
    adapted: NotRequired[list[Adaptation]]  # what the app changed in the body, and why (RunOptions.adapt)
    for_server: NotRequired[ServerAsk]  # sampling: the MCP server's request this model call answers


@with_config(_OPEN)
class LlmResponsePayload(TypedDict):
    status: NotRequired[int]
    headers: NotRequired[dict[str, str]]
    body: Json  # the completion as the provider sent it, or its text when it was not JSON
    for_server: NotRequired[ServerAsk]  # sampling: the MCP server's request this answer goes back to


@with_config(_OPEN)
class LlmChunkPayload(TypedDict):
    """One server-sent event; the first of a stream also carries the response's status and headers."""

    status: NotRequired[int]
    headers: NotRequired[dict[str, str]]
    data: Json


@with_config(_OPEN)
class LlmAssembledPayload(TypedDict):
    message: AssistantMessage
    finish_reason: str | None


@with_config(_OPEN)
class LlmErrorPayload(TypedDict, total=False):
    """A model call that failed: an HTTP error status with its body, or what the app saw instead of an answer."""

    status: int | None  # an HTTP error status (an importer may know none)
    headers: dict[str, str]
    body: Json
    error: str  # what failed: an exception's name, "deadline", "too large", "malformed response"
    message: str
    reason: str  # why the answer could not be read
    limit_s: float  # the deadline crossed
    received_bytes: int
    answered: bool  # whether the response's headers had arrived
    limit_bytes: int  # the size cap crossed
    wire_bytes: int
    decoded_bytes: int
    stream: bool


@with_config(_OPEN)
class TranslateReversePayload(TypedDict):
    """Step 5: the model's tool call, and the call request it became."""

    tool_call: ToolCall
    call_request: CallRequest
    api_call: NotRequired[JsonObject]  # the call as Responses or Messages wrote it


@with_config(_OPEN)
class ServerClock(TypedDict, total=False):
    """Times on a server's own clock, as it reported them (ISO 8601): never compared with the app's hop times."""

    started_at: str
    ended_at: str


@with_config(_OPEN)
class ToolInvokePayload(TypedDict):
    """Step 6: the Python function called with its arguments. Direct mode: the app calls it itself. MCP mode: the
    server's own report of calling it (`flow.trace.reports`), marked `reported_by`."""

    function: str
    kwargs: JsonObject
    reported_by: NotRequired[Literal["mcp_server"]]
    server_clock: NotRequired[ServerClock]
    kwargs_clipped_bytes: NotRequired[int]  # the server reported only the start of long arguments


@with_config(_OPEN)
class RaisedError(TypedDict):
    """What a tool function raised, as its server reported it."""

    type: str
    message: str


# Step 7: the result as the app receives it ("return" is a keyword, so this one is written as a call).
@with_config(_OPEN)
class StructuredCheck(TypedDict):
    """What the host made of a result's structuredContent: whether it matches the tool's outputSchema (the errors
    if not), and which of the result's two forms the role "tool" message carried to the model."""

    valid: bool
    errors: list[str]
    backfill: Literal["text", "structured"]


ToolResultPayload = TypedDict(
    "ToolResultPayload",
    {
        "result": JsonObject,  # MCP mode: the CallToolResult, as JSON
        "error": RpcError,  # MCP mode: the JSON-RPC error that came back instead of a result
        "return": Json,  # direct mode, and a server's report: what the function returned
        "isError": bool,  # direct mode, and a server's report: whether it raised
        "raised": RaisedError,  # a server's report: what the function raised
        "tool_message_content": str,  # the text the role "tool" message carries to the model
        "tool_message_parts": list[Json],  # its content parts, when it was sent as a list of them
        "reported_by": Literal["mcp_server"],  # tool → MCP server: the server's own report, not a wire frame
        "server_clock": ServerClock,
        "value_clipped_bytes": int,  # the server reported only the start of a long value
        "structured": StructuredCheck,  # MCP mode: the host's check of structuredContent, when the run checks it
    },
    total=False,
)
with_config(_OPEN)(ToolResultPayload)


@with_config(_OPEN)
class AppAnswerPayload(TypedDict):
    content: str


@with_config(_OPEN)
class ErrorPayload(TypedDict, total=False):
    """A failure the app detected, recorded where it happened: any of these facts, as they apply."""

    error: str  # what failed, in a word or two ("timeout", an exception's name), or the bad arguments' reason
    message: str
    message_zh: str  # step 10: the same line in Chinese, as the user was told it
    method: str  # the MCP request that went unanswered
    timeout_s: float
    answering: bool  # at the timeout the server had begun to send its answer (`unread_bytes` were waiting)
    unread_bytes: int
    server_raised: str  # what an in-process server raised when its run ended
    server_stderr: str  # the end of a stdio server's stderr
    sdk_error: RpcError  # what the MCP SDK reported
    tool_call: ToolCall  # step 5: the call whose arguments were refused
    api_call: JsonObject  # ...as Responses or Messages wrote it
    sent_back_to_model: bool
    http: HttpExchange  # an MCP exchange over HTTP that failed
    bytes: int  # a message over the size cap: its size (or at least that much), the cap, and how it began
    at_least: bool
    limit_bytes: int
    line_start: str
    line_chars: int
    reason: str  # why a line from a server is not JSON-RPC
    asked: ServerAsk  # a server's question the host refused to answer (a limit it crossed)
    rounds: int  # a call that took more input-required rounds than the host allows
    pings: int  # ping requests a server sent in a row, nothing else between them (a flood)


@with_config(_OPEN)
class ReplayDivergencePayload(TypedDict):
    divergence: str
    request_number: NotRequired[int]
    tool_call_id: NotRequired[str]


PAYLOAD_TYPES: dict[Kind, Any] = {
    "prepare.tools": PrepareToolsPayload,
    "user.message": UserMessagePayload,
    "user.input": UserInputPayload,
    "tool.list": ToolListPayload,
    "client.result": ClientResultPayload,
    "mcp.request": McpRequestPayload,
    "mcp.response": McpResponsePayload,
    "mcp.error": McpErrorPayload,
    "mcp.notification": McpNotificationPayload,
    "mcp.reported": McpReportedPayload,
    "translate.forward": TranslateForwardPayload,
    "llm.request": LlmRequestPayload,
    "llm.response": LlmResponsePayload,
    "llm.chunk": LlmChunkPayload,
    "llm.assembled": LlmAssembledPayload,
    "llm.error": LlmErrorPayload,
    "translate.reverse": TranslateReversePayload,
    "tool.invoke": ToolInvokePayload,
    "tool.result": ToolResultPayload,
    "app.answer": AppAnswerPayload,
    "error": ErrorPayload,
    "replay.divergence": ReplayDivergencePayload,
}


assert set(PAYLOAD_TYPES) == set(KINDS), "every kind has a payload type"


Payload: TypeAlias = (
    PrepareToolsPayload
    | UserMessagePayload
    | UserInputPayload
    | ToolListPayload
    | ClientResultPayload
    | McpRequestPayload
    | McpResponsePayload
    | McpErrorPayload
    | McpNotificationPayload
    | McpReportedPayload
    | TranslateForwardPayload
    | LlmRequestPayload
    | LlmResponsePayload
    | LlmChunkPayload
    | LlmAssembledPayload
    | LlmErrorPayload
    | TranslateReversePayload
    | ToolInvokePayload
    | ToolResultPayload
    | AppAnswerPayload
    | ErrorPayload
    | ReplayDivergencePayload
)


"""Any hop's payload."""


@overload
def payload_of(hop: Hop, kind: Literal["prepare.tools"]) -> PrepareToolsPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["user.message"]) -> UserMessagePayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["user.input"]) -> UserInputPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["tool.list"]) -> ToolListPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["client.result"]) -> ClientResultPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["mcp.request"]) -> McpRequestPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["mcp.response"]) -> McpResponsePayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["mcp.error"]) -> McpErrorPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["mcp.notification"]) -> McpNotificationPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["mcp.reported"]) -> McpReportedPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["translate.forward"]) -> TranslateForwardPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["llm.request"]) -> LlmRequestPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["llm.response"]) -> LlmResponsePayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["llm.chunk"]) -> LlmChunkPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["llm.assembled"]) -> LlmAssembledPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["llm.error"]) -> LlmErrorPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["translate.reverse"]) -> TranslateReversePayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["tool.invoke"]) -> ToolInvokePayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["tool.result"]) -> ToolResultPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["app.answer"]) -> AppAnswerPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["error"]) -> ErrorPayload | None: ...
@overload
def payload_of(hop: Hop, kind: Literal["replay.divergence"]) -> ReplayDivergencePayload | None: ...
def payload_of(hop: Hop, kind: Kind) -> Payload | None:
    """The hop's payload typed by its kind, when the hop is of `kind` and its payload is whole: None for another
    kind, and for a payload the recorder cut to text or left out. A loaded trace's payloads have been checked
    (`payload_problem`); what the engine records is of these types (tests run it and check)."""
    if hop.kind != kind or not is_object(hop.payload):
        return None
    return cast("Payload", hop.payload)


# --- a hop typed by its kind -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Of(Generic[P]):
    hop: Hop
    payload: P


class PrepareTools(_Of[PrepareToolsPayload]):
    __slots__ = ()


class UserMessage(_Of[UserMessagePayload]):
    __slots__ = ()


class ToolList(_Of[ToolListPayload]):
    __slots__ = ()


class ClientResult(_Of[ClientResultPayload]):
    __slots__ = ()


class McpRequest(_Of[McpRequestPayload]):
    __slots__ = ()


class McpResponse(_Of[McpResponsePayload]):
    __slots__ = ()


class McpError(_Of[McpErrorPayload]):
    __slots__ = ()


class McpNotification(_Of[McpNotificationPayload]):
    __slots__ = ()


class McpReported(_Of[McpReportedPayload]):
    __slots__ = ()


class UserInput(_Of[UserInputPayload]):
    __slots__ = ()


class TranslateForward(_Of[TranslateForwardPayload]):
    __slots__ = ()


class LlmRequest(_Of[LlmRequestPayload]):
    __slots__ = ()


class LlmResponse(_Of[LlmResponsePayload]):
    __slots__ = ()


class LlmChunk(_Of[LlmChunkPayload]):
    __slots__ = ()


class LlmAssembled(_Of[LlmAssembledPayload]):
    __slots__ = ()


class LlmError(_Of[LlmErrorPayload]):
    __slots__ = ()


class TranslateReverse(_Of[TranslateReversePayload]):
    __slots__ = ()


class ToolInvoke(_Of[ToolInvokePayload]):
    __slots__ = ()


class ToolResult(_Of[ToolResultPayload]):
    __slots__ = ()


class AppAnswer(_Of[AppAnswerPayload]):
    __slots__ = ()


class Failure(_Of[ErrorPayload]):
    __slots__ = ()


class ReplayDivergence(_Of[ReplayDivergencePayload]):
    __slots__ = ()


class Clipped(_Of[None]):
    """A hop whose payload the recorder cut to text, or left out (`Hop.clipped` says what): its kind, no payload."""

    __slots__ = ()


ModelHop: TypeAlias = LlmRequest | LlmResponse | LlmChunk | LlmAssembled | LlmError


"""A hop to or from a model API (its body speaks one of the APIs in `flow.wire`)."""


TypedHop: TypeAlias = (
    PrepareTools
    | UserMessage
    | ToolList
    | ClientResult
    | McpRequest
    | McpResponse
    | McpError
    | McpNotification
    | McpReported
    | UserInput
    | TranslateForward
    | LlmRequest
    | LlmResponse
    | LlmChunk
    | LlmAssembled
    | LlmError
    | TranslateReverse
    | ToolInvoke
    | ToolResult
    | AppAnswer
    | Failure
    | ReplayDivergence
    | Clipped
)


"""A hop with its payload typed by its kind: what a reader matches on (`match typed(hop): case ToolResult(payload=p)`)
and ends with `assert_never`, so that a new kind fails the type check wherever it is not handled."""


_TYPED: dict[Kind, type[_Of[Any]]] = {
    "prepare.tools": PrepareTools,
    "user.message": UserMessage,
    "tool.list": ToolList,
    "client.result": ClientResult,
    "mcp.request": McpRequest,
    "mcp.response": McpResponse,
    "mcp.error": McpError,
    "mcp.notification": McpNotification,
    "mcp.reported": McpReported,
    "user.input": UserInput,
    "translate.forward": TranslateForward,
    "llm.request": LlmRequest,
    "llm.response": LlmResponse,
    "llm.chunk": LlmChunk,
    "llm.assembled": LlmAssembled,
    "llm.error": LlmError,
    "translate.reverse": TranslateReverse,
    "tool.invoke": ToolInvoke,
    "tool.result": ToolResult,
    "app.answer": AppAnswer,
    "error": Failure,
    "replay.divergence": ReplayDivergence,
}


assert set(_TYPED) == set(KINDS), "every kind has its typed hop"


def typed(hop: Hop) -> TypedHop:
    """The hop with its payload typed by its kind; `Clipped` for a payload that is not whole. A loaded trace's
    payloads have been checked against their types (`payload_problem`); what the engine records is of them."""
    if not is_object(hop.payload):
        return Clipped(hop, None)
    return cast(TypedHop, _TYPED[hop.kind](hop, hop.payload))


def is_a(hop: Hop, *kinds: type[_Of[Any]]) -> bool:
    """Whether the hop is of one of these kinds (`is_a(hop, ToolResult)`), its payload whole or clipped: for a
    reader that counts, pairs or places hops by their kind and reads no payload."""
    return _TYPED[hop.kind] in kinds


def of_kind(hops: Iterable[Hop], kind: type[H]) -> Iterator[H]:
    """The hops of one kind whose payload is whole, typed (`of_kind(hops, LlmRequest)`): for a reader of their
    payloads (a clipped one has none to read)."""
    for hop in hops:
        if _TYPED[hop.kind] is kind and is_object(hop.payload):
            yield kind(hop, hop.payload)


_make_typed_dict: Any = TypedDict  # called with names made at run time, which a type checker cannot follow


def _tagged(kind: Kind) -> Any:
    """The hop as the check sees it: its kind, which picks its payload's type, and its payload."""
    return _make_typed_dict(f"Hop[{kind}]", {"kind": Literal[kind], "payload": PAYLOAD_TYPES[kind]})


def _check_adapter() -> TypeAdapter[list[Any]]:
    """Every hop's payload against its kind's type, in one call: a union of the tagged hops, discriminated by
    `kind`."""
    union: Any = functools.reduce(lambda a, b: a | b, [_tagged(kind) for kind in KINDS])
    hops: Any = GenericAlias(list, (Annotated[union, Field(discriminator="kind")],))  # list[...] of a run-time type
    return TypeAdapter(hops)


_CHECK = _check_adapter()


def payload_problem(hops: list[Hop]) -> tuple[int, tuple[Any, ...], str] | None:
    """The first payload that is not its kind's type, as (the hop's index, the path in its payload, what is
    wrong), or None. One pass over the whole trace; a payload the recorder cut (`Hop.clipped`) is not checked."""
    checked = [(i, h) for i, h in enumerate(hops) if not (h.clipped and not isinstance(h.payload, dict))]
    try:
        _CHECK.validate_python([{"kind": h.kind, "payload": h.payload} for _, h in checked], strict=True)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        index, _, _, *loc = err["loc"]  # the list index, the kind that picked the type, "payload", then the path
        i, hop = checked[int(index)]
        missing = err["type"] == "missing"
        return i, error_path(hop.payload, loc, missing=missing), "missing" if missing else err["msg"]
    return None


def error_path(value: Any, loc: Sequence[Any], *, missing: bool) -> tuple[Any, ...]:
    """The parts of a validation error's location that are places in `value` (pydantic adds the names of a union's
    members, `int` or `ChatRequest`), and the key that is missing, if one is."""
    out: list[Any] = []
    for n, part in enumerate(loc):
        if is_array(value) and type(part) is int and 0 <= part < len(value):
            value = value[part]
        elif is_object(value) and part in value:
            value = value[part]
        elif not (missing and n == len(loc) - 1):
            continue
        out.append(part)
    return tuple(out)


def payload_schemas() -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON Schema of each kind's payload, as (the kind -> a reference, the definitions referred to)."""
    defs: dict[str, Any] = {}
    refs: dict[str, Any] = {}
    for kind, payload_type in PAYLOAD_TYPES.items():
        schema = TypeAdapter(payload_type).json_schema(ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        name = schema.get("title") or payload_type.__name__
        defs[name] = schema
        refs[kind] = {"$ref": f"#/$defs/{name}"}
    return refs, defs
