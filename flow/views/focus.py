"""The step's focus: which parts of a hop's JSON view the inspector opens and highlights.

Every path is a list of keys and indices into the view `flow.views.table.focus_view` builds (the JSON the inspector
shows), and is only ever one that exists there: a foreign or odd trace gets a smaller focus, never a path to
nothing. A pairing (a tool call and the answer that names its id; an MCP schema and the OpenAI one it became)
is drawn as a colour: paths that share a colour index belong together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, assert_never

from flow.trace.model import Hop, as_dict
from flow.trace.payloads import (
    AppAnswer,
    ClientResult,
    Clipped,
    Failure,
    LlmAssembled,
    LlmChunk,
    LlmError,
    LlmRequest,
    LlmResponse,
    McpError,
    McpNotification,
    McpReported,
    McpRequest,
    McpResponse,
    PrepareTools,
    ReplayDivergence,
    ToolInvoke,
    ToolList,
    ToolResult,
    TranslateForward,
    TranslateForwardPayload,
    TranslateReverse,
    UserInput,
    UserMessage,
    is_a,
    typed,
)
from flow.views.table import RECORDER, focus_view
from flow.wire.base import ChoicePlaces, ItemPlaces, Places, WireApi
from flow.wire.facts import PARSED_ARGUMENTS
from flow.wire.recorded import api_of_body, api_of_request

Path = tuple[str | int, ...]


MAX_OPEN_ITEMS = 8  # items of one list opened at once (content blocks, messages); the rest stay one click away


MAX_PAIRS = 24  # pairings coloured in one hop


PAIR_PALETTE = ("#0072b2", "#d55e00", "#007a5a", "#aa3377", "#7a5c00", "#5a4fcf")


"""Colour k is PAIR_PALETTE[k % len(PAIR_PALETTE)]: distinguishable with common colour blindness, ≥ 4.5:1 on white."""


@dataclass(frozen=True)
class Focus:
    """What the inspector does on arriving at a hop. `open`: containers shown expanded (with their ancestors);
    `highlight`: values marked, the first one scrolled into view (their ancestors are expanded too); `colours`:
    (path, k) drawn in pair colour k; `pairs`: the tool_call_id (or tool name) each colour index stands for."""

    open: tuple[Path, ...] = ()
    highlight: tuple[Path, ...] = ()
    colours: tuple[tuple[Path, int], ...] = ()
    pairs: tuple[tuple[str, int], ...] = ()


def resolve(view: Any, path: Path) -> tuple[bool, Any]:
    """(True, the value) at `path` in `view`, or (False, None) if the path points at nothing."""
    node = view
    for key in path:
        if isinstance(node, dict) and isinstance(key, str) and key in node:
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int) and not isinstance(key, bool) and 0 <= key < len(node):
            node = node[key]
        else:
            return False, None
    return True, node


class _Builder:
    """Collects paths, keeping only those that exist in the view, each once, in order."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view
        self.opened: dict[Path, None] = {}  # ordered sets
        self.marked: dict[Path, None] = {}
        self.painted: list[tuple[Path, int]] = []
        self.pairs: dict[str, int] = {}

    def at(self, *path: str | int) -> Any:
        return resolve(self.view, path)[1]

    def has(self, *path: str | int) -> bool:
        return resolve(self.view, path)[0]

    def open(self, *path: str | int) -> bool:
        if path not in self.opened and isinstance(self.at(*path), (dict, list)):
            self.opened[path] = None
            return True
        return path in self.opened

    def mark(self, *path: str | int, open_it: bool = False) -> bool:
        if not self.has(*path):
            return False
        self.marked[path] = None
        if open_it:
            self.open(*path)
        return True

    def open_items(self, *path: str | int, last: bool = False) -> None:
        """Open a list and its first (or last) few items."""
        items = self.at(*path)
        if not self.open(*path) or not isinstance(items, list):
            return
        indices = range(len(items))
        for i in list(indices)[-MAX_OPEN_ITEMS:] if last else list(indices)[:MAX_OPEN_ITEMS]:
            self.open(*path, i)

    def colour(self, key: Any, *path: str | int) -> None:
        """Paint `path` in the colour of `key` (a new colour for a key not seen before)."""
        if not isinstance(key, str) or not self.has(*path):
            return
        if key not in self.pairs:
            if len(self.pairs) >= MAX_PAIRS:
                return
            self.pairs[key] = len(self.pairs)
        self.painted.append((path, self.pairs[key]))

    def build(self) -> Focus:
        return Focus(tuple(self.opened), tuple(self.marked), tuple(self.painted), tuple(self.pairs.items()))


def _first(items: Any) -> list[tuple[int, Any]]:
    """(index, item) of the first MAX_PAIRS items of a list: what one hop's focus can show and colour apart."""
    return list(enumerate(items[:MAX_PAIRS])) if isinstance(items, list) else []


def _schemas(b: _Builder, p: TranslateForwardPayload) -> None:
    """3a: each MCP inputSchema and the OpenAI parameters it became, one colour per tool; the first pair open."""
    if not b.has("payload", "mcp") or not b.has("payload", "openai"):
        b.mark("payload", open_it=True)
        return
    if "content" in p:  # step 2: MCP content → chat messages: how each block was mapped, and what it became
        b.mark("payload", "content", open_it=True)
        b.mark("payload", "openai", open_it=True)
        return
    where: dict[str, tuple[str | int, ...]] = {}  # each tool's schema, where its API puts it
    for j, tool in enumerate(p["openai"]):
        at: tuple[str, ...]
        if "function" in tool:  # Chat Completions: nested under function
            name, at = as_dict(tool.get("function")).get("name"), ("function", "parameters")
        else:  # Responses: flat, parameters; Messages: input_schema
            name, at = tool.get("name"), ("input_schema",) if "input_schema" in tool else ("parameters",)
        if isinstance(name, str):
            where.setdefault(name, ("payload", "openai", j, *at))
    first = True
    for i, tool in enumerate(p["mcp"]):  # as the server listed them
        name = tool.get("name")
        if not isinstance(name, str) or name not in where:
            continue
        for path in (("payload", "mcp", i, "inputSchema"), where[name]):
            b.colour(name, *path)
            if first:
                b.mark(*path, open_it=True)
        first = False
    b.open("payload", "mcp")
    b.open("payload", "openai")


def _tool_calls(b: _Builder) -> None:
    """4: `content: null` and each call's raw arguments string beside its parsed object, a colour per call id."""
    calls = b.at("tool_calls")
    b.mark("content")
    b.open("tool_calls")
    for k, call in _first(calls):
        b.open("tool_calls", k)
        b.open("tool_calls", k, "function")
        b.mark("tool_calls", k, "function", "arguments")
        b.mark("tool_calls", k, "function", PARSED_ARGUMENTS, open_it=True)
        b.colour(call.get("id") if isinstance(call, dict) else None, "tool_calls", k, "id")


def _backfill(b: _Builder, tool_at: list[int]) -> None:
    """8: the assistant message with its tool_calls and each role "tool" message answering one, paired by colour."""
    messages = b.at("messages")
    assistant = next(
        (
            i
            for i in range(tool_at[0] - 1, -1, -1)
            if isinstance(messages[i], dict) and messages[i].get("role") == "assistant"
        ),
        None,
    )
    b.open("messages")
    if assistant is not None:
        b.mark("messages", assistant, open_it=True)
        calls = b.at("messages", assistant, "tool_calls")
        b.open("messages", assistant, "tool_calls")
        for k, call in _first(calls):
            b.open("messages", assistant, "tool_calls", k)
            b.colour(call.get("id") if isinstance(call, dict) else None, "messages", assistant, "tool_calls", k, "id")
    for i in tool_at[:MAX_PAIRS]:
        b.mark("messages", i, open_it=True)
        b.colour(messages[i].get("tool_call_id"), "messages", i, "tool_call_id")


def _trailing_tool_messages(messages: Any) -> list[int]:
    """Indices of the role "tool" messages that end a request: the answers this backfill sends."""
    out: list[int] = []
    for i in range(len(messages) - 1, -1, -1) if isinstance(messages, list) else ():
        if not isinstance(messages[i], dict) or messages[i].get("role") != "tool":
            break
        out.append(i)
    return out[::-1]


def _error(b: _Builder) -> None:
    """An error hop: the error object (and the message beside a bare error name); for refused arguments, the string."""
    found = False
    for path in (
        ("error",),
        ("payload", "error"),
        ("payload", "message"),
        ("payload", "http"),
        ("payload", "divergence"),
    ):
        if path == ("payload", "error") and found:
            continue
        found = b.mark(*path, open_it=True) or found
    b.mark("status")
    b.mark("tool_call", "function", "arguments")
    b.open("tool_call")
    b.open("tool_call", "function")


def _result(b: _Builder, result: Path, *, app_side: bool) -> None:
    """7: the result's `content` and its `isError`; a protocol error handed on as the result, as an error; other
    results (a tool list, a resource) opened."""
    if isinstance(b.at("error"), dict):
        _error(b)
    if b.mark(*result, "content"):
        b.open_items(*result, "content")
        # a failure's flag at the top, where the card opens; otherwise beside the content it qualifies
        if not (b.at("isError") is True and b.mark("isError")) and not b.mark(*result, "isError"):
            b.mark("isError")
    elif app_side:  # a direct-mode result: the text for the model and the flag; a server's report: the value
        if not b.mark("tool_message_content") and not b.mark("payload", "return", open_it=True):
            b.mark("payload", "raised", open_it=True)
        b.mark("isError")
    elif not b.mark(*result, "tools", open_it=True):
        b.mark(*result, open_it=True)


def focus(hop: Hop, view: dict[str, Any] | None = None) -> Focus:
    """The hop's focus in `view` (by default its `focus_view`): what the step is about, per hop kind."""
    b = _Builder(focus_view(hop) if view is None else view)
    b.mark(RECORDER, "round")  # a tools/call's round in its logical call (2026-07-28), when the view says it
    if _asking(b, hop):
        return b.build()
    match typed(hop):
        case Failure() | McpError() | LlmError() | ReplayDivergence():
            _error(b)
        case PrepareTools() | ToolList() | ClientResult():
            _listing(b)
        case UserMessage() | AppAnswer():
            b.mark("content")
        case TranslateForward(payload=p):
            _schemas(b, p)
        case LlmRequest() | LlmResponse() | LlmAssembled() | LlmChunk() as model:
            _model(b, model)
        case TranslateReverse():
            _reverse(b)
        case ToolInvoke():
            b.mark("payload", "function")
            b.mark("payload", "kwargs", open_it=True)
        case McpRequest() | McpNotification():
            _frame_out(b)
        case McpResponse():
            _result(b, ("result",), app_side=False)
        case ToolResult():
            _result(b, ("payload", "result"), app_side=True)
        case McpReported() | UserInput() as aside:
            _aside(b, aside)
        case Clipped():  # what the recorder cut, and what is left of it
            b.mark(RECORDER, "clipped")
            b.mark("payload")
        case _ as never:
            assert_never(never)
    return b.build()


def _asking(b: _Builder, hop: Hop) -> bool:
    """A server that asks, and what answers it: its request (what it asks of the host's model, the user or the
    roots), the client's answer, an input-required result, a retried call, the host's model call for the server,
    and the host capabilities a client declares. False for any other hop."""
    payload = as_dict(hop.payload)
    params, result = as_dict(payload.get("params")), as_dict(payload.get("result"))
    if is_a(hop, McpRequest) and hop.source == "mcp_server":
        b.mark("method")
        for key in ("message", "url", "systemPrompt", "maxTokens"):
            b.mark("params", key)
        b.mark("params", "requestedSchema", open_it=True)
        if "tools" in params:  # sampling with tools: the limit and the tools offered first (the messages replay a
            b.mark("params", "tools")  # tool use and its result, long, below)
        else:
            b.mark("params", "messages", open_it=True)
        b.open("params")
        return True
    if is_a(hop, McpResponse) and hop.source == "mcp_client":
        for key in ("action", "model", "stopReason"):
            b.mark("result", key)
        b.mark("result", "content", open_it=True)
        b.mark("result", "roots", open_it=True)
        b.open_items("result", "roots")
        return True
    if is_a(hop, McpResponse) and result.get("resultType") == "input_required":
        # the facts at the top (what is asked, by method; the state, shortened): the result below holds them whole
        for fact in ("resultType", "inputRequests", "requestState"):
            b.mark(fact, open_it=True)
        return True
    if is_a(hop, McpRequest) and ("inputResponses" in params or "requestState" in params):
        for fact in ("inputResponses", "requestState"):
            b.mark(fact, open_it=True)
        b.mark("params", "name")
        return True
    if is_a(hop, LlmRequest, LlmResponse) and "for_server" in payload:
        b.mark("payload", "for_server", open_it=True)
        return False  # and the model call's own focus
    if is_a(hop, McpRequest) and payload.get("method") in ("initialize", "server/discover"):
        where = ("params", "capabilities") if payload.get("method") == "initialize" else ("params", "_meta", _CAPS_META)
        host = as_dict(b.at(*where))
        if any(c in host for c in ("sampling", "elicitation", "roots")):
            b.mark(*where, open_it=True)
            for c in ("sampling", "elicitation", "roots"):
                b.mark(*where, c)
            return True
    return False


_CAPS_META = "io.modelcontextprotocol/clientCapabilities"


def _aside(b: _Builder, t: McpReported | UserInput) -> None:
    """What a provider says crossed (where it disagrees with the frame seen), or a server's question to the user
    and the answer (what was asked, what was chosen and given)."""
    match t:
        case McpReported(payload=p):
            b.mark("mismatch")
            b.mark("observed")
            if p.get("is_error"):
                b.mark("is_error")
            b.mark("name" if p["method"] == "tools/call" else "method")
            b.mark("arguments", open_it=True)
        case UserInput(hop=h) if h.direction == "request":
            b.mark("message")
            b.mark("url")
            b.mark("requested_schema", open_it=True)
        case UserInput():
            b.mark("action")
            b.mark("content", open_it=True)


def _model(b: _Builder, hop: LlmRequest | LlmResponse | LlmAssembled | LlmChunk) -> None:
    """3, 4, 8, 9 and a stream's events, each in the terms of the model API it was recorded with."""
    match hop:
        case LlmRequest(payload=p):
            wire = api_of_request(p)
            match wire.places:
                case ChoicePlaces():
                    _request(b)
                case ItemPlaces() as places:
                    _api_request(b, wire, places, p["body"])
                case _ as never:
                    assert_never(never)
        case LlmResponse(payload=p):
            _reply(b, api_of_body(p["body"]).places)
        case LlmAssembled(payload=p):
            _reply(b, api_of_body(p["message"]).places)
        case LlmChunk(payload=p):
            match api_of_body(p["data"]).places:
                case ChoicePlaces():
                    _chunk(b)
                case ItemPlaces():
                    if not any(b.mark(key, open_it=True) for key in ("delta", "item", "content_block", "usage")):
                        b.mark("type")
                case _ as never:
                    assert_never(never)


def _reply(b: _Builder, places: Places) -> None:
    """4 and 9: the model's calls, or its answer, in the terms of the API that carried them."""
    match places:
        case ChoicePlaces():
            _decision(b)
        case ItemPlaces():
            _api_decision(b, places)
        case _ as never:
            assert_never(never)


def _listing(b: _Builder) -> None:
    """0 and 2: the tool list (or what else the client handed over), its first item open."""
    for key in ("tools", "result", "prompt"):
        if b.mark("payload", key, open_it=True):
            b.open("payload", key, 0)
            return


def _request(b: _Builder) -> None:
    """3 and 8: a backfill's tool messages paired with the calls they answer; else the last messages and the
    tools."""
    tool_at = _trailing_tool_messages(b.at("messages"))
    if tool_at:
        _backfill(b, tool_at)
        return
    b.mark("messages")
    b.open_items("messages", last=True)
    if b.mark("payload", "body", "tools", open_it=True):
        b.open("payload", "body", "tools", 0)
        b.open("payload", "body", "tools", 0, "function")


def _decision(b: _Builder) -> None:
    """4 and 9: the tool calls the model asks for, or its answer and why it stopped."""
    if isinstance(b.at("tool_calls"), list):
        _tool_calls(b)
    else:
        b.mark("content")
        b.mark("finish_reason")
    b.mark("error", open_it=True)


def _chunk(b: _Builder) -> None:
    """One stream event: its delta, or the usage it reports."""
    if not b.mark("payload", "data", "choices", 0, "delta", open_it=True):
        if not b.mark("payload", "data", "usage", open_it=True):
            b.mark("payload", "data")


def _reverse(b: _Builder) -> None:
    """5: the call request's name and parsed arguments, the tool call it came from beside it: as Chat Completions
    wrote it (its arguments a string), or as Responses (a string too) or Messages (`input`, an object) did."""
    b.open("call_request")
    b.mark("call_request", "name")
    b.mark("call_request", "arguments", open_it=True)
    if b.open("api_call"):
        if not b.mark("api_call", "input", open_it=True):
            b.mark("api_call", "arguments")
        return
    b.open("tool_call")
    b.open("tool_call", "function")


def _api_request(b: _Builder, wire: WireApi, places: ItemPlaces, body: Any) -> None:
    """3 and 8 of Responses and Messages: a backfill's tool results (function_call_output items, tool_result blocks)
    paired by colour with the calls they answer (function_call items, tool_use blocks) where the request carries
    them; else the conversation, the tools and what that API asks for beside them."""
    field = wire.conversation_field
    results = wire.answered(body)
    items = b.at(field)
    if _approvals(b, field):
        return
    if results and isinstance(items, list):
        b.open(field)
        first = results[0][0][1]
        assert isinstance(first, int)
        # the model's calls, as they were sent back, then the results that answer them
        if places.in_messages:
            _calls_in_message_before(b, places, field, items, first)
        else:
            _call_items_before(b, places, field, items, first, several=len(results) > 1)
        for path, call_id in results[:MAX_PAIRS]:
            b.mark(*path, open_it=True)
            if places.in_messages:
                b.open(*path[:-2])  # the user message the result blocks are in
            b.colour(call_id, *path, places.result_id)
        b.mark("previous_response_id")
        return
    b.mark(field)
    b.open_items(field, last=True)
    for key in ("instructions", "system", "max_tokens", "previous_response_id"):
        b.mark(key)
    if b.mark("payload", "body", "tools", open_it=True):
        b.open("payload", "body", "tools", 0)


def _call_items_before(
    b: _Builder, places: ItemPlaces, field: str, items: list[Any], first: int, *, several: bool
) -> None:
    """Responses: the function_call items just before the outputs, each coloured by its call_id (several calls stay
    one line each, so the outputs fit a 720p card)."""
    for i in range(first - 1, -1, -1):
        item = as_dict(items[i])
        if item.get("type") != places.call:
            return
        if several:
            b.mark(field, i)
            continue
        b.mark(field, i, open_it=True)
        b.colour(item.get(places.call_id), field, i, places.call_id)


def _calls_in_message_before(b: _Builder, places: ItemPlaces, field: str, items: list[Any], first: int) -> None:
    """Messages: the assistant message before the results, its tool_use blocks coloured by their ids."""
    for i in range(first - 1, -1, -1):
        item = as_dict(items[i])
        if item.get("role") != "assistant":
            continue
        b.mark(field, i, open_it=True)
        b.open(field, i, "content")
        for k, block in _first(item.get("content")):
            if as_dict(block).get("type") == places.call:
                b.open(field, i, "content", k)
                b.colour(as_dict(block).get(places.call_id), field, i, "content", k, places.call_id)
        return


def _approvals(b: _Builder, field: str) -> bool:
    """Hosted MCP (Responses): the app's answers to approval requests (`mcp_approval_response` items), each paired by
    colour with the request it answers; False for a request that answers none."""
    items = b.at(field)
    answers = [k for k, i in _first(items) if as_dict(i).get("type") == "mcp_approval_response"]
    if not answers:
        return False
    b.open(field)
    for k, item in _first(items):
        item = as_dict(item)
        if item.get("type") == "mcp_approval_request":
            b.colour(item.get("id"), field, k, "id")
    for k in answers:
        b.mark(field, k, "approve")
        b.open(field, k)
        b.colour(as_dict(items[k]).get("approval_request_id"), field, k, "approval_request_id")
    return True


_HOSTED_CALLS = {"mcp_call": "arguments", "mcp_approval_request": "arguments", "mcp_tool_use": "input"}


def _hosted_decision(b: _Builder, field: str) -> bool:
    """Hosted MCP: a turn that reports the provider's MCP calls (`mcp_call`, `mcp_tool_use`) or asks approval for
    one: each call's name and arguments, and an error it reports; the tool listings stay one click away. False for a
    turn with no MCP item."""
    items = b.at(field)
    if not any(str(as_dict(i).get("type")).startswith("mcp_") for _, i in _first(items)):
        return False
    b.open(field)
    for k, item in _first(items):
        item = as_dict(item)
        kind = str(item.get("type"))
        if kind in _HOSTED_CALLS:
            b.open(field, k)
            b.mark(field, k, "name")
            b.mark(field, k, _HOSTED_CALLS[kind], open_it=True)
            if item.get("error") is not None:
                b.mark(field, k, "error", open_it=True)
        elif kind == "mcp_tool_result" and item.get("is_error") is True:
            b.open(field, k)
            b.mark(field, k, "is_error")
    return True


def _api_decision(b: _Builder, places: ItemPlaces) -> None:
    """4 and 9 of Responses and Messages: each function_call item's arguments string beside its parsed object, or
    each tool_use block's input (already an object), a colour per call id; else the text and why it stopped."""
    field, kind, key, args = places.turn, places.call, places.call_id, places.arguments
    if _hosted_decision(b, field):
        return
    called = False
    b.open(field)
    for k, item in _first(b.at(field)):
        item = as_dict(item)
        if item.get("type") != kind:
            continue
        called = True
        b.open(field, k)
        b.mark(field, k, args, open_it=True)
        b.mark(field, k, PARSED_ARGUMENTS, open_it=True)
        b.colour(item.get(key), field, k, key)
    if not called:
        b.mark(field)
        b.open_items(field)
        if places.text_in_content:  # an output message's text is in its content
            for k, _ in _first(b.at(field)):
                b.open(field, k, "content")
    b.mark(places.finish)
    b.mark("error", open_it=True)


def _frame_out(b: _Builder) -> None:
    """A request or notification: what it names and its arguments (tools/call, prompts/get), else its method."""
    if b.has("params", "name"):
        b.open("params")
        b.mark("params", "name")
        b.mark("params", "arguments", open_it=True)
    else:
        b.mark("method")
        b.open("params")


def focus_json(hop: Hop, view: dict[str, Any] | None = None) -> dict[str, Any]:
    """The focus as plain JSON for the client-side viewer: paths as lists of keys (strings) and indices (numbers).
    Pass the view actually shown, if it is not `focus_view(hop)`."""
    f = focus(hop, view)
    return {
        "open": [list(p) for p in f.open],
        "highlight": [list(p) for p in f.highlight],
        "colours": [{"path": list(p), "colour": k} for p, k in f.colours],
        "pairs": dict(f.pairs),
    }


def view_and_focus(hop: Hop) -> dict[str, Any]:
    """What the viewer needs for a hop's inspector: the JSON view and its focus, made from the same view."""
    view = focus_view(hop)
    return {"view": view, "focus": focus_json(hop, view)}
