"""One reading of each model exchange of a trace, made once from its hops: who asked and for whom, what the request
offered the model (function tools the app runs, MCP servers a provider reaches), the calls the reply hands the app,
the MCP traffic the provider reports it made, why the model stopped and what it counted.

The closing view, Compare, the tool-cost figures, the "what happened" story and the lesson's overview read these
instead of the bodies, so a hosted run (the provider's model chose the call, its client made it) or a request the
host made for an MCP server (sampling) is never summed up as the app's own function calling. The bodies stay on the
hops, untouched: showing the wire is the product. Pure: hops in, readings out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, assert_never

from flow.trace.factory import json_bytes
from flow.trace.model import Hop, as_dict, as_list
from flow.trace.pairing import model_calls, tool_calls
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
    TranslateReverse,
    UserInput,
    UserMessage,
    is_a,
    typed,
)
from flow.trace.stats import estimate_tokens
from flow.wire import API, hosted
from flow.wire.base import ApiName, ToolCall
from flow.wire.recorded import api_of_body, api_of_request

Asker = Literal["app", "host_for_server"]


"""Who sent a model request: the app for its own conversation, or the host's client for an MCP server that asked it
to sample (sampling/createMessage: the reply, and any call in it, is the server's)."""


@dataclass(frozen=True, slots=True)
class Offer:
    """What a request offered the model to call: the function tools (the asker runs them; their definitions are in
    the bytes the app sends), and the MCP servers a provider is to reach itself (hosted MCP: the provider lists their
    tools and puts the definitions into its own prompt, out of the app's sight)."""

    functions: tuple[str, ...]
    function_bytes: int  # the function definitions, as compact JSON
    function_tokens: int  # the same, estimated with the app's stand-in tokenizer (`estimate_tokens`)
    servers: tuple[str, ...]  # the hosted servers' labels
    server_urls: tuple[str, ...]  # and their URLs, in the same order
    server_bytes: int  # the entries that name them (Responses' `mcp` tools; Messages' toolsets and `mcp_servers`)


@dataclass(frozen=True, slots=True)
class ModelExchange:
    """One request to a model and what came back for it, read."""

    api: ApiName
    asker: Asker
    request: Hop
    replies: tuple[Hop, ...]  # everything that came back: a response, or a stream's events and its assembled turn
    reply: Hop | None  # the reply the calls are read from: the assembled turn of a stream, else the response
    offer: Offer
    calls: tuple[ToolCall, ...]  # what the reply hands the asker to run
    reported: tuple[hosted.Exchange, ...]  # the MCP exchanges the provider says it made for this reply
    unread: tuple[str, ...]  # the types of its items that tell of tools in a form nothing here reads
    asks_approval: tuple[hosted.ApprovalRequest, ...]  # calls the provider's client waits for the app to approve
    approves: tuple[tuple[str, bool], ...]  # the request's answers to earlier approval requests: (their id, approve)
    finish: str | None
    prompt_tokens: int | None  # as the reply's usage reported them
    previous: bool  # the request names previous_response_id (Responses)

    @property
    def bytes(self) -> int:
        return self.request.bytes

    @property
    def received(self) -> int:
        """The bytes that came back over HTTP: a response's body, or a stream's events (not the turn the app
        assembled from them)."""
        return sum(r.bytes for r in self.replies if is_a(r, LlmResponse, LlmChunk))

    @property
    def for_server(self) -> bool:
        return self.asker == "host_for_server"


def _name(tool: dict[str, Any]) -> str:
    return str(tool.get("name") or as_dict(tool.get("function")).get("name") or "")


def offer_of(body: Any, api: ApiName) -> Offer:
    """What a request body offers the model: its function tools and the hosted MCP servers it names."""
    body = as_dict(body)
    tools = [as_dict(t) for t in as_list(body.get("tools"))]
    wire = API[api]
    functions = [t for t in tools if wire.is_function(t)]
    others = [t for t in tools if not wire.is_function(t)]
    named = hosted.hosted_servers(body)
    servers = tuple(str(s.get("label") or "") for s in named)
    naming = [*others, *as_list(body.get("mcp_servers"))] if servers else []
    return Offer(
        functions=tuple(_name(t) for t in functions),
        function_bytes=len(json_bytes(functions)) if functions else 0,
        function_tokens=estimate_tokens(json.dumps(functions, ensure_ascii=False)) if functions else 0,
        servers=servers,
        server_urls=tuple(str(s.get("url") or "") for s in named),
        server_bytes=len(json_bytes(naming)) if naming else 0,
    )


def reply_turn(hop: Hop) -> tuple[list[ToolCall], str | None] | None:
    """The calls a model reply (a response, or a stream's assembled turn) asks for, in its API's terms (tool_calls,
    function_call items, tool_use blocks), and why the model stopped; None for a body no API reads."""
    payload = as_dict(hop.payload)
    assembled = is_a(hop, LlmAssembled)
    body = payload.get("message") if assembled else payload.get("body")
    return api_of_body(body).recorded_turn(body, assembled=assembled, finish=payload.get("finish_reason"))


def _read(request: Hop, replies: Sequence[Hop]) -> ModelExchange:
    payload = as_dict(request.payload)
    api = api_of_request(payload).name
    reply = next((r for r in replies if is_a(r, LlmAssembled)), None) or next(
        (r for r in replies if is_a(r, LlmResponse)), None
    )
    got = reply_turn(reply) if reply is not None else None
    reply_body = as_dict(reply.payload).get("message" if is_a(reply, LlmAssembled) else "body") if reply else None
    usage = next((r.usage for r in replies if r.usage and r.usage.get("prompt_tokens") is not None), None)
    return ModelExchange(
        api=api,
        asker="host_for_server" if "for_server" in payload else "app",
        request=request,
        replies=tuple(replies),
        reply=reply,
        offer=offer_of(payload.get("body"), api),
        calls=tuple(got[0]) if got else (),
        reported=tuple(hosted.exchanges(reply_body)) if reply_body is not None else (),
        unread=hosted.unread_reports(reply_body),
        asks_approval=hosted.approval_requests(reply_body) if reply_body is not None else (),
        approves=tuple(
            (str(i.get("approval_request_id") or ""), i.get("approve") is True)
            for i in map(as_dict, as_list(as_dict(payload.get("body")).get("input")))
            if i.get("type") == "mcp_approval_response"
        ),
        finish=got[1] if got else None,
        prompt_tokens=int(usage.get("prompt_tokens") or 0) if usage else None,
        previous=bool(as_dict(payload.get("body")).get("previous_response_id")),
    )


def model_exchanges(hops: Iterable[Hop]) -> list[ModelExchange]:
    """Every model request of a trace with what came back for it, read, in the order they were sent."""
    return [_read(call.request, call.replies) for call in model_calls(hops)]


@dataclass(frozen=True, slots=True)
class Readings:
    """A whole trace read once, each hop by its kind (an exhaustive match: a new kind fails the type check here):
    the model exchanges, and the hops each view asks about, sorted by what they are rather than left for every view
    to find again in the bodies."""

    model: tuple[ModelExchange, ...]
    answer: Hop | None  # the app's answer to the user (the last one)
    failures: tuple[Hop, ...]  # what the app detected went wrong (error), and failed model calls (llm.error)
    forward: tuple[Hop, ...]  # the host's translations of tool definitions (not a resource's or a prompt's content)
    reverse: tuple[Hop, ...]  # the host's translations of a model's call into a tools/call (not direct mode's reading)
    schemas: Hop | None  # direct mode: the app's hand-written tool list
    listed: tuple[Hop, ...]  # where tool definitions are listed: the server's decorators, direct mode's schemas
    frames: tuple[Hop, ...]  # JSON-RPC frames recorded on a wire (requests, responses, errors, notifications)
    reported: tuple[Hop, ...]  # a provider's report of an MCP exchange (hosted MCP)
    invoked: tuple[Hop, ...]  # a tool function's run, as the server or the app reported it
    threads: tuple[CallThread, ...]  # each tool call the model asked the app for, by its call id (call_threads)

    @property
    def from_server(self) -> tuple[Hop, ...]:
        """What the server sent the client unasked: its requests and notifications."""
        return tuple(h for h in self.frames if h.source == "mcp_server" and h.direction in ("request", "notification"))


def read_trace(hops: Sequence[Hop]) -> Readings:
    """Every hop of a trace read once, by its kind."""
    sorted_: dict[str, list[Hop]] = {k: [] for k in _BINS}
    answer: Hop | None = None
    for hop in hops:
        match typed(hop):
            case AppAnswer():
                answer = hop
            case Failure() | LlmError():
                sorted_["failures"].append(hop)
            case TranslateForward(payload=p) if "what" not in p:
                sorted_["forward"].append(hop)
            case TranslateReverse() if hop.target == "mcp_client":
                sorted_["reverse"].append(hop)
            case ToolList():
                sorted_["listed"].append(hop)
                sorted_["schemas"].append(hop)
            case PrepareTools():
                sorted_["listed"].append(hop)
            case McpRequest() | McpResponse() | McpError() | McpNotification():
                sorted_["frames"].append(hop)
            case McpReported():
                sorted_["reported"].append(hop)
            case ToolInvoke():
                sorted_["invoked"].append(hop)
            case Clipped():  # a payload not kept whole: still a frame when its kind says so
                if is_a(hop, McpRequest, McpResponse, McpError, McpNotification):
                    sorted_["frames"].append(hop)
            case (
                UserMessage()
                | ClientResult()
                | TranslateForward()
                | TranslateReverse()
                | LlmRequest()
                | LlmResponse()
                | LlmChunk()
                | LlmAssembled()
                | ToolResult()
                | UserInput()
                | ReplayDivergence()
            ):
                pass  # read as model exchanges or call threads, or by the views that show them one by one
            case _ as never:
                assert_never(never)
    return Readings(
        model=tuple(model_exchanges(hops)),
        answer=answer,
        failures=tuple(sorted_["failures"]),
        forward=tuple(sorted_["forward"]),
        reverse=tuple(sorted_["reverse"]),
        schemas=sorted_["schemas"][0] if sorted_["schemas"] else None,
        listed=tuple(sorted_["listed"]),
        frames=tuple(sorted_["frames"]),
        reported=tuple(sorted_["reported"]),
        invoked=tuple(sorted_["invoked"]),
        threads=tuple(call_threads(hops)),
    )


_BINS = ("failures", "forward", "reverse", "schemas", "listed", "frames", "reported", "invoked")


@dataclass(frozen=True, slots=True)
class CallThread:
    """One tool call the model asked the app for, from the app's reading of it (step 5) on, by its call id: refused
    there, or the function's run (as the server or the app reports it) and the results that came back."""

    id: str
    taken: Hop  # the app's reading of the call (translate.reverse), or its refusal of the arguments
    refused: bool
    invoked: Hop | None
    results: tuple[Hop, ...]

    @property
    def to_app(self) -> Hop | None:
        """The result as it reached the app."""
        return next((h for h in self.results if h.target == "app"), None)


def call_threads(hops: Iterable[Hop]) -> list[CallThread]:
    """Each tool call the model asked the app for, its hops sorted once by their kind."""
    out: list[CallThread] = []
    for call_id, call in tool_calls(hops).items():
        invoked: Hop | None = None
        results: list[Hop] = []
        for hop in call.hops:
            match typed(hop):
                case ToolInvoke() if invoked is None:
                    invoked = hop
                case ToolResult():
                    results.append(hop)
                case _:
                    pass  # the MCP frames that carry it are the exchanges' (flow.trace.pairing)
        refused = isinstance(typed(call.first), Failure)
        out.append(CallThread(call_id, call.first, refused, invoked, tuple(results)))
    return out
