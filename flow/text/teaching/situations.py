"""Which situation a hop is in, and the values its text is filled with: read from the hop's own payload.

A hop's payload is typed by its kind (`typed`); what a peer sent inside it (a model's body, a frame's params and
result, a server's tool list) is JSON as it came, so those parts are taken through `as_dict` / `as_list` and checked
for their type: an odd value gets a plainer situation, never an exception. A payload the recorder cut gets the
fallback text, which claims nothing of it. Values filled in are the payload's own (clipped to a line's worth,
whitespace folded); counts the text states are kept apart, as derived.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeAlias, assert_never

from flow.text.apis import api_words
from flow.text.teaching.texts import FALLBACK
from flow.trace.factory import json_bytes
from flow.trace.json_text import read_json_text
from flow.trace.model import Hop, as_dict, as_list
from flow.trace.payloads import (
    Adaptation,
    AppAnswer,
    ChatRequest,
    ClientResult,
    ClientResultPayload,
    Clipped,
    ErrorPayload,
    Failure,
    JsonObject,
    LlmAssembled,
    LlmAssembledPayload,
    LlmChunk,
    LlmError,
    LlmErrorPayload,
    LlmRequest,
    LlmRequestPayload,
    LlmResponse,
    LlmResponsePayload,
    McpError,
    McpNotification,
    McpReported,
    McpReportedPayload,
    McpRequest,
    McpResponse,
    PrepareTools,
    ReplayDivergence,
    ToolInvoke,
    ToolList,
    ToolResult,
    ToolResultPayload,
    TranslateForward,
    TranslateForwardPayload,
    TranslateReverse,
    TypedHop,
    UserInput,
    UserInputPayload,
    UserMessage,
    is_a,
    payload_of,
    typed,
)
from flow.trace.reports import REPORT_KEY
from flow.trace.rounds import call_rounds, input_required
from flow.trace.steps import Step
from flow.trace.summaries import call_text, input_requests
from flow.wire import API
from flow.wire.base import ApiName, ChoicePlaces, ItemPlaces, WireApi
from flow.wire.chat import first_choice
from flow.wire.hosted import hosted_servers
from flow.wire.reading import model_exchanges, reply_turn
from flow.wire.recorded import answered, api_of_body, api_of_request, arguments_of, conversation, tool_names, turn_of

VALUE_CHARS = 48


"""A value filled into a text is clipped to this many characters (then "…")."""


LIST_ITEMS = 6


"""A list filled into a text shows this many items (then "…")."""


@dataclass(frozen=True)
class HopContext:
    """What a hop's text may need from its neighbours: the hop just before it; how many tools/call requests (other
    than this hop) were sent and not yet answered when it crossed; for a request, the hop that answers it (`answer`,
    found by its JSON-RPC id); the tool names the app was last given (`listed`: a tools/list result, the MCP client's
    list, or direct mode's own schemas; None before any); the model request sent before this hop (`asked`); and
    whether a chunk of the stream since that request brought delta.tool_calls (`streamed_calls`); and the model API
    the run's requests went to (`api`: "chat", "responses" or "messages"), which decides how the app answers a call.
    Hosted MCP: whether the run's requests named a server for the provider to reach (`hosted`), the name the
    provider's MCP client gave itself in a frame the recorder saw (`provider_client`), the model's last response
    before this hop (`response`: the one whose report an `mcp.reported` hop is rebuilt from) and how many requests
    the app had sent the model by then (`requests`)."""

    previous: Hop | None = None
    calls_waiting: int = 0
    answer: Hop | None = None
    listed: tuple[str, ...] | None = None
    asked: Hop | None = None
    streamed_calls: bool = False
    api: ApiName = "chat"
    hosted: bool = False
    provider_client: str = ""
    response: Hop | None = None
    requests: int = 0
    round: int = 0
    first_id: str | None = None
    unpaired: bool = False
    listens: tuple[str, ...] = ()
    changed_from: tuple[str, ...] | None = None
    url_mode: bool = False
    app_asked: Hop | None = None


"""`round`, `first_id`, `unpaired` (2026-07-28): a tools/call's round in its logical call and the JSON-RPC id of the
call's first round, linked by request state (`flow.trace.rounds`); or a retry that state links to no single call.
`listens`: the ids of the subscriptions/listen requests sent so far. `changed_from`: the tool names the app held when
the server said its tool list changed, until the app's next model request (None when it did not). `url_mode`: the
elicitation this hop answers (the user's answer, or the client's answer to the server) was in URL mode, whose answer
has no content. `app_asked`: the model request the app itself sent last (`asked` may be one the host sent for a server,
through sampling)."""


@dataclass(frozen=True)
class Situation:
    """A text's key, the values from the payload it is filled with (a str, or a list of them), and what the app
    worked out or read from the hop's neighbours (`derived`: counts, defaults, the tools listed before); `note`
    names a sentence (in `texts.NOTES`) said after the text, filled from the same values, where one fact holds for
    hops of many situations (a frame of hosted MCP that never crossed the app)."""

    key: str
    fills: dict[str, str | list[str]] = field(default_factory=dict)
    derived: dict[str, str | list[str]] = field(default_factory=dict)
    note: str | None = None


_ANSWERS = ("mcp.response", "mcp.error")


def _listing(t: TypedHop, listed: tuple[str, ...] | None, paged: bool) -> tuple[tuple[str, ...] | None, bool]:
    """The tool list as this hop leaves it: a page after one with nextCursor adds to the list, any other list
    replaces it; and whether the next page is still to come."""
    found = _listed(t)
    if found is None:
        return listed, paged
    more = isinstance(t, McpResponse) and "nextCursor" in as_dict(t.payload.get("result"))
    return ((listed or ()) + found if paged else found), more


def hop_contexts(hops: Sequence[Hop]) -> list[HopContext]:
    """Each hop's context, in two passes over the trace (the first finds each request's answer)."""
    answers = _answers(hops)
    model = model_exchanges(hops)
    api: ApiName = model[0].api if model else "chat"
    hosted = any(ex.offer.servers for ex in model)
    client = _provider_client(hops) if hosted else ""
    response: Hop | None = None
    requests = 0
    out: list[HopContext] = []
    waiting: set[Any] = set()
    previous: Hop | None = None
    listed: tuple[str, ...] | None = None
    asked: Hop | None = None
    streamed_calls = False
    paged = False
    rounds, behind = _rounds_of(hops), _behind_of(hops)
    listens: tuple[str, ...] = ()
    changed_from: tuple[str, ...] | None = None
    for i, hop in enumerate(hops):
        payload, t = as_dict(hop.payload), typed(hop)
        rpc_id = _hashable(payload.get("id", hop.jsonrpc_id))
        if isinstance(t, McpResponse | McpError) or (isinstance(t, Clipped) and hop.kind in _ANSWERS):
            waiting.discard(rpc_id)  # a frame that answers, whole or cut
        out.append(
            HopContext(
                previous,
                len(waiting),
                answers.get(i),
                listed,
                asked,
                streamed_calls,
                api,
                hosted=hosted,
                provider_client=client,
                response=response,
                requests=requests,
                **(rounds(hop) | behind[i]),
                listens=listens,
                changed_from=changed_from,
            )
        )
        listens, changed_from = _session(hop, payload, listens, changed_from, listed)
        listed, paged = _listing(t, listed, paged)
        match t:
            case McpRequest(payload=p) if p["method"] == "tools/call":
                waiting.add(rpc_id)
            case Failure() if hop.step == Step.TOOL_RESULT:
                waiting.clear()  # the client gave up on what it was waiting for
            case LlmRequest():
                asked, streamed_calls, requests = hop, False, requests + 1
            case LlmResponse() | LlmAssembled():
                response = hop
            case LlmChunk():
                streamed_calls = streamed_calls or _chunk_calls(payload)
            case _:
                pass
        previous = hop
    return out


def _behind_of(hops: Sequence[Hop]) -> list[dict[str, Any]]:
    """Each hop's `app_asked` (the app's own last model request before it) and `url_mode` (it answers a URL-mode
    elicitation: the user's answer to a URL-mode question, or the client's answer to the server's request)."""
    out: list[dict[str, Any]] = []
    app_asked: Hop | None = None
    url_asks: set[Any] = set()  # the ids of the server's URL-mode elicitation/create requests
    user_url = False  # the server's last question to the user was in URL mode
    for hop in hops:
        payload = as_dict(hop.payload)
        rpc_id = _hashable(payload.get("id", hop.jsonrpc_id))
        if is_a(hop, UserInput):
            url_mode = user_url and hop.direction != "request"
            user_url = payload.get("mode") == "url" if hop.direction == "request" else user_url
        else:
            url_mode = is_a(hop, McpResponse) and hop.source == "mcp_client" and rpc_id in url_asks
        out.append({"app_asked": app_asked, "url_mode": url_mode})
        if is_a(hop, McpRequest) and hop.source == "mcp_server" and as_dict(payload.get("params")).get("mode") == "url":
            url_asks.add(rpc_id)
        elif is_a(hop, LlmRequest) and hop.source == "app":
            app_asked = hop
    return out


def _rounds_of(hops: Sequence[Hop]) -> Callable[[Hop], dict[str, Any]]:
    """A hop's round in its logical call (2026-07-28), the JSON-RPC id of that call's first round, and whether it is
    a retry its request state links to no single call (`flow.trace.rounds`)."""
    rounds = call_rounds(hops)
    unpaired = {h.seq for h in rounds.unpaired}

    def of(hop: Hop) -> dict[str, Any]:
        call, n = rounds.by_seq.get(hop.seq, (None, 0))
        first = as_dict(call.requests[0].payload).get("id") if call is not None else None
        return {"round": n, "first_id": value(first), "unpaired": hop.seq in unpaired}

    return of


def _session(
    hop: Hop,
    payload: JsonObject,
    listens: tuple[str, ...],
    changed_from: tuple[str, ...] | None,
    listed: tuple[str, ...] | None,
) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
    """The listen requests open so far, and the tools listed before the server said its list changed (until the
    next model request, which offers the new list)."""
    method = payload.get("method")
    if is_a(hop, McpRequest) and method == "subscriptions/listen" and value(payload.get("id")):
        return (*listens, str(value(payload.get("id")))), changed_from
    if is_a(hop, McpNotification) and method == "notifications/tools/list_changed":
        return listens, listed or ()
    if is_a(hop, LlmRequest):
        return listens, None
    return listens, changed_from


def _answers(hops: Sequence[Hop]) -> dict[int, Hop]:
    """A request's place in `hops` → the first answer after it, from its target, with its id."""
    answers: dict[int, Hop] = {}
    asked_of: dict[tuple[str, Any], int] = {}
    for i, hop in enumerate(hops):
        key = _hashable(as_dict(hop.payload).get("id", hop.jsonrpc_id))
        if is_a(hop, McpRequest):
            asked_of[(hop.target, key)] = i
        elif is_a(hop, McpResponse, McpError) and (hop.source, key) in asked_of:
            answers[asked_of.pop((hop.source, key))] = hop
    return answers


def _provider_client(hops: Sequence[Hop]) -> str:
    """Hosted MCP: the name the MCP client gave itself in the first initialize a recorder saw ("" when none was)."""
    for hop in hops:
        request = payload_of(hop, "mcp.request")
        if request is not None and request["method"] == "initialize":
            return value(as_dict(as_dict(request.get("params")).get("clientInfo")).get("name")) or ""
    return ""


def _listed(t: TypedHop) -> tuple[str, ...] | None:
    """The tool names a hop gives the app, if it is one that lists them."""
    match t:
        case McpResponse(payload=p) if "tools" in p["result"]:
            return tuple(_names(p["result"].get("tools")))
        case ClientResult(payload=p) if "tools" in p:
            return tuple(_names(p["tools"]))
        case ToolList(payload=p):
            return tuple(_names(p["tools"]) or _names([tool.get("function") for tool in p["tools"]]))
        case PrepareTools(hop=hop, payload=p) if hop.source == "app":
            return tuple(_names(p["tools"]) or _names([tool.get("function") for tool in p["tools"]]))
    return None


def _chunk_calls(p: dict[str, Any]) -> bool:
    """A stream chunk brings delta.tool_calls."""
    return bool(as_list(as_dict(first_choice(p.get("data")).get("delta")).get("tool_calls")))


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else repr(value)


# --- values ---------------------------------------------------------------------------------------------------------


_SPACE = re.compile(r"\s+")


def value(v: Any) -> str | None:
    """A scalar of the payload as a text shows it: strings with whitespace folded and clipped, numbers and
    true/false as JSON writes them; None for anything else (or an empty string)."""
    if isinstance(v, str):
        text = _SPACE.sub(" ", v).strip()
        if not text:
            return None
        return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1].rstrip() + "…"
    if isinstance(v, bool) or (isinstance(v, (int, float)) and v == v and abs(v) != float("inf")):
        return json.dumps(v)
    return None


def _raw(v: Any) -> str | None:
    """A string value exactly as it came, for one that is code (an arguments string, a fragment): clipped, not
    folded, so what the class reads is what the model wrote."""
    if not isinstance(v, str) or not v:
        return None
    text = v.replace("\n", " ").replace("\r", " ").replace("\t", " ")
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def _fields(items: Any) -> list[str]:
    """The fields the objects of a list hold, each named once, in the order first met."""
    return list(dict.fromkeys(k for item in as_list(items) for k in as_dict(item) if value(k)))


def _names(items: Any, key: str = "name") -> list[str]:
    """The `key` of each object in a list, those that are text."""
    out = []
    for item in as_list(items):
        v = value(as_dict(item).get(key))
        if v is not None:
            out.append(v)
    return out


def _fills(**values: Any) -> dict[str, str | list[str]] | None:
    """The values, when every one is there (a str, or a list that may be empty); None when one is missing."""
    out: dict[str, str | list[str]] = {}
    for name, v in values.items():
        if v is None:
            return None
        out[name] = v
    return out


def _keyed(api: ApiName, key: str) -> str:
    """A situation's key for a run through `api`: the key with the API's prefix in front (`responses.decide.one`),
    whose text says what that API puts on the wire (Chat Completions' texts, the first, have none)."""
    return api_words(api).texts + key


def _situation(key: str, derived: Mapping[str, str | list[str]] | None = None, **values: Any) -> Situation | None:
    fills = _fills(**values)
    return None if fills is None else Situation(key, fills, dict(derived or {}))


# --- the situations --------------------------------------------------------------------------------------------------


def situation(hop: Hop, context: HopContext | None = None) -> Situation:
    """The hop's situation: the most specific one its payload supports, else the fallback."""
    context = context or HopContext()
    found = _by_kind(typed(hop), context) or Situation(FALLBACK)
    if (
        context.hosted
        and found.key != FALLBACK
        and hop.kind in _FRAME_KINDS
        and "mcp_client" in (hop.source, hop.target)
    ):
        opens = as_dict(hop.payload).get("method") in ("initialize", "server/discover")  # a session's first frame
        mock = context.provider_client == MOCK_PROVIDER_CLIENT
        note = ("hosted.observed.mock" if mock else "hosted.observed") if opens else "hosted.observed.short"
        return replace(found, note=note)
    if context.changed_from is not None and found.key != FALLBACK:
        return _relisted(hop, found, context.changed_from)
    return found


def _relisted(hop: Hop, found: Situation, before: tuple[str, ...]) -> Situation:
    """A hop of the tool list fetched and translated again after the server said it changed: what is new in it."""
    if is_a(hop, McpRequest) and as_dict(hop.payload).get("method") == "tools/list":
        return replace(found, note="relist.request")
    listed = _listed(typed(hop))
    if is_a(hop, TranslateForward) and "mcp" in as_dict(hop.payload):
        listed = tuple(_names(as_dict(hop.payload).get("mcp")))
    if listed is None:
        return found
    added = [n for n in listed if n not in before]
    where = "translate" if is_a(hop, TranslateForward) else "list"
    if not added:
        return replace(found, note=f"relist.{where}.none")
    return replace(found, note=f"relist.{where}", derived={**found.derived, "added": added})


_FRAME_KINDS = ("mcp.request", "mcp.response", "mcp.notification", "mcp.error")


MOCK_PROVIDER_CLIENT = "mcp-flow-mock-provider"


"""How the offline mock provider's MCP client names itself in initialize (`flow.backends.mock_hosted`)."""


AppHop: TypeAlias = PrepareTools | UserMessage | ToolList | ClientResult | TranslateForward | AppAnswer


FrameHop: TypeAlias = McpRequest | McpNotification | McpResponse | McpError


ModelHop: TypeAlias = LlmRequest | LlmResponse | LlmChunk | LlmAssembled | LlmError


CallHop: TypeAlias = TranslateReverse | ToolInvoke | ToolResult


def _by_kind(t: TypedHop, ctx: HopContext) -> Situation | None:
    """One function per kind, grouped by who speaks; every one ends in `assert_never`, so a new kind fails the type
    check here until its text is chosen."""
    match t:
        case PrepareTools() | UserMessage() | ToolList() | ClientResult() | TranslateForward() | AppAnswer() as app:
            return _app(app, ctx)
        case McpRequest() | McpNotification() | McpResponse() | McpError() as frame:
            return _frame(frame, ctx)
        case LlmRequest() | LlmResponse() | LlmChunk() | LlmAssembled() | LlmError() as model:
            return _model(model, ctx)
        case TranslateReverse() | ToolInvoke() | ToolResult() as call:
            return _call(call, ctx)
        case Failure(hop=hop, payload=p):
            return _failure(hop, p, ctx)
        case ReplayDivergence(payload=p):
            return (
                _situation("replay.divergence", request_number=value(p.get("request_number")))
                or _situation("replay.divergence.tool", tool_call_id=value(p.get("tool_call_id")))
                or Situation("replay.divergence.plain")
            )
        case McpReported(hop=hop, payload=p):
            return _reported(hop, p, ctx)
        case UserInput(hop=hop, payload=p):
            return _user_input(hop, p, ctx)
        case Clipped():  # the recorder cut the payload: a text can claim nothing of it
            return None
        case _ as never:
            assert_never(never)


def _sampling_consent(hop: Hop, p: UserInputPayload) -> Situation | None:
    """The host asks its user whether a server's sampling request may go to the model, or the user's answer."""
    if hop.direction == "request":
        shown = as_dict(p.get("sampling"))
        messages = shown.get("messages")
        count = value(len(messages)) if isinstance(messages, list) else None
        return _situation("user.asked.sampling", messages=count, max_tokens=value(shown.get("maxTokens")))
    if p.get("action") == "accept":
        return Situation("user.answered.accept.sampling")
    return Situation("user.answered.deny.sampling")


def _user_input(hop: Hop, p: UserInputPayload, ctx: HopContext) -> Situation | None:
    """A server's question to the user, or the user's answer."""
    if p.get("mode") == "sampling" and "timed_out" not in p:
        return _sampling_consent(hop, p)
    if hop.direction == "request":
        if p.get("mode") == "url":
            return _situation("user.asked.url", url=value(p.get("url")))
        return _situation("user.asked", message=value(p.get("message")))
    if "timed_out" in p:
        return _situation("user.answered.timeout", seconds=value(f"{p['timed_out']:g}"))
    action = p.get("action")
    if action == "accept" and ctx.url_mode:
        return Situation("user.answered.accept.url")
    if action == "accept":
        content = p.get("content") or {}
        shown = ", ".join(f"{k}={v}" for k, v in content.items()) or "{}"
        return Situation(
            "user.answered.accept", derived={"content": value(shown) or "{}"}
        )  # key=value pairs the text composes
    if action in ("decline", "cancel"):
        return Situation(f"user.answered.{action}")
    return None


def _reported(hop: Hop, p: McpReportedPayload, ctx: HopContext) -> Situation | None:
    """Hosted MCP: an exchange the provider reports; a disagreement with what a recorder saw comes first, and a
    frame a recorder saw of the same exchange is named after the text."""
    if p.get("mismatch"):
        return _situation("reported.mismatch", mismatch=[m for m in p.get("mismatch") or [] if value(m)])
    found = _reported_side(hop, p, ctx)
    if found is not None and isinstance(p.get("observed"), int):
        return replace(found, derived={**found.derived, "observed": str(p.get("observed"))}, note="reported.paired")
    return found


def _reported_side(hop: Hop, p: McpReportedPayload, ctx: HopContext) -> Situation | None:
    item_of = as_dict(p["item"])
    item = value(item_of.get("type"))
    server = value(p["server"])
    if p["method"] == "tools/list":
        if hop.direction == "request":
            return _situation("reported.list.request", server=server, item=item)
        return _situation("reported.list", server=server, tools=[t for t in map(value, p.get("tools") or []) if t])
    if hop.direction == "request":
        approval = value(item_of.get("approval_request_id"))
        if approval is not None:
            return _situation("reported.call.approved", name=value(p.get("name")), approval=approval, item=item)
        return _situation("reported.call", name=value(p.get("name")), server=server, item=item)
    answered_too = _answer_text(ctx.response) is not None  # the same response carries the model's answer
    output = value(p.get("output") or "-")
    if p.get("is_error"):
        error_type = value(as_dict(item_of.get("error")).get("type"))
        if error_type is not None and answered_too:
            return _situation("reported.result.error.typed", output=output, error=error_type, item=item)
        return _situation(
            "reported.result.error" if answered_too else "reported.result.error.only", output=output, item=item
        )
    return _situation("reported.result" if answered_too else "reported.result.only", output=output, item=item)


def _answer_text(hop: Hop | None) -> str | None:
    """The text of the model's answer in a response (or an assembled stream), None when it wrote none."""
    match typed(hop) if hop is not None else None:
        case LlmResponse(payload=p):
            body = as_dict(p["body"])
            turn = turn_of(body, api_of_body(body))
        case LlmAssembled(payload=p):
            turn = turn_of(p["message"], api_of_body(p["message"]), assembled=True, finish=p["finish_reason"])
        case _:
            return None
    return value(turn.text) if turn is not None else None


def _app(t: AppHop, ctx: HopContext) -> Situation | None:
    """What the app holds, is asked, is handed, translates or shows."""
    match t:
        case PrepareTools(hop=hop, payload=p):
            tools = _names(p["tools"]) or _names([tool.get("function") for tool in p["tools"]])
            if "written_by" in p or hop.source == "app":
                return _situation(_keyed(ctx.api, "prepare.direct"), tools=tools)
            return _situation(
                "hosted.prepare" if ctx.hosted else "prepare.mcp", tools=tools, fields=_fields(p["tools"])
            )
        case UserMessage(payload=p):
            prompt = value(p["prompt"]["name"]) if "prompt" in p else None
            if prompt is not None:
                return _situation("question.prompt", prompt=prompt)
            return _situation("question", question=value(p["content"]))
        case ToolList(payload=p):
            tools = _names([tool.get("function") for tool in p["tools"]]) or _names(p["tools"])
            return _situation(_keyed(ctx.api, "direct.tools"), tools=tools)
        case ClientResult(payload=p):
            return _client_result(p)
        case TranslateForward(payload=p):
            return _translation(p)
        case AppAnswer(payload=p):
            if p["content"] == "":
                return Situation("answer.shown.empty")
            if ctx.hosted:  # the app made only model requests: the loop ran at the provider
                return _situation("answer.shown.hosted", {"requests": str(ctx.requests)}, content=value(p["content"]))
            return _situation("answer.shown", content=value(p["content"]))
        case _ as never:
            assert_never(never)


def _client_result(p: ClientResultPayload) -> Situation | None:
    if "tools" in p:
        return _situation("client.tools", tools=_names(p["tools"]))
    if "uri" in p:
        return _situation("client.resource", uri=value(p["uri"]))
    if "prompt" in p:
        return _situation("client.prompt", prompt=value(p["prompt"]))
    return Situation("client.other")


def _translation(p: TranslateForwardPayload) -> Situation | None:
    if "content" not in p:
        return _forward(p)
    # a prompt's messages or a resource's contents, translated for the model API
    hows = [v for v in (value(h) for h in p["content"]) if v]
    if any(h not in ("text", "resource_text", "blob_as_text") for h in hows):
        return _situation("translate.content.mixed", what=value(p.get("what")), hows=hows)
    return _situation("translate.content", what=value(p.get("what")))


def _frame(t: FrameHop, ctx: HopContext) -> Situation | None:
    """A JSON-RPC frame between the MCP client and server."""
    match t:
        case McpRequest(hop=hop, payload=p) if hop.source == "mcp_server":
            return _server_asks(value(p["id"]), p["method"], p.get("params", {}))
        case McpRequest(payload=p):
            return _request(value(p["id"]), p["method"], p.get("params", {}), ctx)
        case McpNotification(payload=p):
            return _notification(p["method"], p.get("params", {}), ctx)
        case McpResponse(hop=hop, payload=p) if hop.source == "mcp_client":
            return _client_answers(value(p.get("id", hop.jsonrpc_id)), p["result"], ctx)
        case McpResponse(hop=hop, payload=p) if input_required(hop):
            asked = input_requests(p["result"]).values()
            methods = list(dict.fromkeys(v for v in (value(method) for method in asked) if v))
            return _situation("input_required", id=value(p.get("id", hop.jsonrpc_id)), methods=methods)
        case McpResponse(hop=hop, payload=p):
            return _frame_back(value(p.get("id", hop.jsonrpc_id)), p["result"])
        case McpError(hop=hop, payload=p):
            error = p["error"]
            rpc_id = value(p.get("id", hop.jsonrpc_id))
            return _situation("rpc.error", id=rpc_id, code=value(error["code"]), message=value(error["message"]))
        case _ as never:
            assert_never(never)


_LIST_CHANGED = re.compile(r"^notifications/\w+/list_changed$")


def _notification(method: str, params: JsonObject, ctx: HopContext) -> Situation | None:
    """A notification, by its method; its params are the peer's, as they came."""
    if method == "notifications/subscriptions/acknowledged":
        listen = value(as_dict(params.get("_meta")).get("io.modelcontextprotocol/subscriptionId"))
        return _situation("listen.acknowledged", id=listen, kinds=_opted_in(params.get("notifications")))
    if method == "notifications/cancelled" and value(params.get("requestId")) in ctx.listens:
        return _situation("cancelled.listen", request_id=value(params.get("requestId")))
    if method == "notifications/initialized":
        return Situation("initialized")
    if method == "notifications/progress":
        token, progress = value(params.get("progressToken")), value(params.get("progress"))
        return _situation("progress", token=token, progress=progress, total=value(params.get("total"))) or (
            _situation("progress.open", token=token, progress=progress)
        )
    if method == "notifications/message":
        data = params.get("data")
        return _situation("log", level=value(params.get("level")), data=value(data) or _raw(_json(data)))
    if method == "notifications/cancelled":
        return _situation("cancelled", request_id=value(params.get("requestId"))) or _situation(
            "rpc.notification", method=value(method)
        )
    if _LIST_CHANGED.match(method):
        return _situation("list_changed", method=value(method))
    if method == "notifications/resources/updated":
        return _situation("resource_updated", uri=value(params.get("uri"))) or _situation(
            "rpc.notification", method=value(method)
        )
    return _situation("rpc.notification", method=value(method))


_LISTINGS = {"tools/list": "tools_list", "resources/list": "resources_list", "prompts/list": "prompts_list"}


"""A request that names nothing but what it lists: its text's key."""


def _request(rpc_id: str | None, method: str, params: JsonObject, ctx: HopContext) -> Situation | None:
    """A request, by its method; its params are the peer's, as they came."""
    if method == "initialize" and (host := _host_capabilities(params.get("capabilities"))):
        return _situation(
            "initialize.request.host",
            {"requests": [_HOST_CAPABILITIES[c] for c in host]},
            id=rpc_id,
            version=value(params.get("protocolVersion")),
            client=value(as_dict(params.get("clientInfo")).get("name")),
            capabilities=host,
        )
    if method == "initialize":
        return _situation(
            "initialize.request",
            id=rpc_id,
            version=value(params.get("protocolVersion")),
            client=value(as_dict(params.get("clientInfo")).get("name")),
        )
    if method == "server/discover":
        meta = as_dict(params.get("_meta"))
        version = value(meta.get("io.modelcontextprotocol/protocolVersion"))
        if host := _host_capabilities(meta.get("io.modelcontextprotocol/clientCapabilities")):
            return _situation("discover.request.host", id=rpc_id, version=version, capabilities=host)
        return _situation("discover.request", id=rpc_id, version=version)
    if method == "subscriptions/listen":
        return _situation("listen.request", id=rpc_id, kinds=_opted_in(params.get("notifications")))
    if method == "tools/list" and ctx.hosted:  # the provider's client lists them, for the provider
        return _situation("hosted.tools_list.request", id=rpc_id)
    if method in _LISTINGS:
        return _situation(f"{_LISTINGS[method]}.request", id=rpc_id)
    if method == "resources/read":
        return _situation("resources_read.request", id=rpc_id, uri=value(params.get("uri")))
    if method == "prompts/get":
        return _situation("prompts_get.request", id=rpc_id, prompt=value(params.get("name")))
    if method == "ping":
        return _situation("ping.request", id=rpc_id)
    if method in ("resources/subscribe", "resources/unsubscribe"):
        key = "subscribe" if method == "resources/subscribe" else "unsubscribe"
        return _situation(f"{key}.request", id=rpc_id, uri=value(params.get("uri")))
    if method == "tools/call" and ("requestState" in params or "inputResponses" in params):
        return _retry(rpc_id, value(params.get("name")), params, ctx)
    if method == "tools/call":
        return _call_request(rpc_id, value(params.get("name")), ctx)
    return _situation("rpc.request", id=rpc_id, method=value(method))


def _opted_in(notifications: Any) -> list[str]:
    """The kinds of notification a subscriptions/listen filter opts in to: its keys set to true or to a list."""
    return [k for k, v in as_dict(notifications).items() if value(k) and (v is True or as_list(v))]


_HOST_CAPABILITIES = {"sampling": "sampling/createMessage", "elicitation": "elicitation/create", "roots": "roots/list"}


"""What a host may declare it does for a server (the client capabilities a server's own requests need), and the
request each one lets a server send."""


def _host_capabilities(capabilities: Any) -> list[str]:
    """The host capabilities a client declares (in initialize, or in a 2026-07-28 request's _meta)."""
    return [c for c in _HOST_CAPABILITIES if c in as_dict(capabilities)]


def _retry(rpc_id: str | None, name: str | None, params: JsonObject, ctx: HopContext) -> Situation | None:
    """A tools/call sent again with the host's answers (2026-07-28): its round of the logical call its request state
    links it to, or unpaired; without the trace around it, what the frame itself says."""
    keys = [k for k in as_dict(params.get("inputResponses")) if value(k)]
    if ctx.round > 1 and ctx.first_id is not None:
        derived = {"round": str(ctx.round), "first_id": ctx.first_id}
        return _situation("call.retry", derived, id=rpc_id, name=name, keys=keys)
    if ctx.unpaired:
        return _situation("call.retry.unpaired", id=rpc_id, name=name, keys=keys)
    return _situation("call.retry.plain", id=rpc_id, name=name, keys=keys)


def _server_asks(rpc_id: str | None, method: str, params: JsonObject) -> Situation | None:
    """A request the server sends the client over the session (2025-11-25): for the host's model, the user, or the
    client's roots."""
    if method == "sampling/createMessage":
        derived = {"messages": str(len(as_list(params.get("messages"))))}
        tools = _names(params.get("tools"))
        if tools:
            return _situation("asks.sampling.tools", id=rpc_id, tools=tools, max_tokens=value(params.get("maxTokens")))
        return _situation("asks.sampling", derived, id=rpc_id, max_tokens=value(params.get("maxTokens")))
    if method == "elicitation/create" and params.get("mode") == "url":
        return _situation("asks.elicit.url", id=rpc_id, url=value(params.get("url")))
    if method == "elicitation/create":
        fields = [k for k in as_dict(as_dict(params.get("requestedSchema")).get("properties")) if value(k)]
        return _situation("asks.elicit", id=rpc_id, message=value(params.get("message")), fields=fields)
    if method == "roots/list":
        return _situation("asks.roots", id=rpc_id)
    return _situation("asks.other", id=rpc_id, method=value(method))


def _client_answers(rpc_id: str | None, result: JsonObject, ctx: HopContext) -> Situation | None:
    """The client's answer to a request the server sent it, known by its shape (a result names no method)."""
    if "roots" in result:
        uris = _names(result.get("roots"), "uri")
        return _situation("answers.roots", {"count": str(len(as_list(result.get("roots"))))}, id=rpc_id, uris=uris)
    action = result.get("action")
    if action == "accept" and ctx.url_mode:
        return _situation("answers.elicit.accept.url", id=rpc_id)
    if action in ("accept", "decline", "cancel"):
        content = as_dict(result.get("content"))
        shown = ", ".join(f"{k}={v}" for k, v in ((k, value(v)) for k, v in content.items()) if v is not None)
        if action == "accept":
            return _situation("answers.elicit.accept", {"content": value(shown) or "{}"}, id=rpc_id)
        return _situation(f"answers.elicit.{action}", id=rpc_id)
    if result.get("role") == "assistant":
        said = result.get("content")
        blocks = [as_dict(b) for b in (said if isinstance(said, list) else [said])]
        uses = [call_text(b.get("name"), b.get("input")) for b in blocks if b.get("type") == "tool_use"]
        if uses:
            return _situation("answers.sampling.tool_use", {"calls": ", ".join(uses)}, id=rpc_id)
        text = value(" ".join(str(b["text"]) for b in blocks if "text" in b))
        model, stop = value(result.get("model")), value(result.get("stopReason"))
        return _situation("answers.sampling", id=rpc_id, text=text, model=model, stop=stop) or _situation(
            "rpc.result", id=rpc_id
        )
    return _situation("rpc.result", id=rpc_id)


def _call_request(rpc_id: str | None, name: str | None, ctx: HopContext) -> Situation | None:
    """A tools/call: sent while others are in flight, for a name never listed, answered by a function that ran, or
    checked by the server before any ran."""
    if ctx.hosted and not ctx.calls_waiting:  # the provider's client sends what its model chose
        return _situation("hosted.call.request", id=rpc_id, name=name)
    if ctx.calls_waiting:
        return _situation("call.request.in_flight", {"waiting": str(ctx.calls_waiting)}, id=rpc_id, name=name)
    if ctx.listed is not None and name is not None and name not in ctx.listed:
        return _situation("call.request.unlisted", {"listed": list(ctx.listed)}, id=rpc_id, name=name)
    if _ran(ctx.answer):
        return _situation("call.request", id=rpc_id, name=name)
    return _situation("call.request.checked", id=rpc_id, name=name)


def _ran(answer: Hop | None) -> bool:
    """The answer to a tools/call shows that a function ran: a result that is no error, or one whose server's report
    (in `_meta`) says the function ran."""
    if answer is None or not is_a(answer, McpResponse):
        return False
    got = payload_of(answer, "mcp.response")
    result = got["result"] if got is not None else {}  # a result the recorder cut was a result all the same
    return result.get("isError") is not True or REPORT_KEY in as_dict(result.get("_meta"))


# What a server writes when the arguments failed its inputSchema before any function ran (the Python SDK: pydantic's
# "1 validation error for get_weatherArguments").
_INVALID_ARGUMENTS = re.compile(r"\bvalidation errors? for \w+Arguments\b|\bInput validation error\b")


def _frame_back(rpc_id: str | None, result: JsonObject) -> Situation | None:
    """A result frame, by its shape: a result names no method, and a text needs none of its neighbours."""
    caps = sorted(as_dict(result.get("capabilities")))
    if "supportedVersions" in result:
        versions = [v for v in (value(x) for x in as_list(result.get("supportedVersions"))) if v]
        return _situation("discover.result", id=rpc_id, versions=versions, capabilities=caps)
    if "protocolVersion" in result:
        return _situation(
            "initialize.result", id=rpc_id, version=value(result.get("protocolVersion")), capabilities=caps
        )
    if "isError" in result or "content" in result:
        return _call_result(rpc_id, result)
    if "tools" in result:
        tools, fields = _names(result.get("tools")), _fields(result.get("tools"))
        cursor = value(result.get("nextCursor"))
        if cursor is not None:
            return _situation("tools_list.result.page", id=rpc_id, tools=tools, fields=fields, cursor=cursor)
        return _situation("tools_list.result", id=rpc_id, tools=tools, fields=fields)
    if "resources" in result:
        return _situation("resources_list.result", uris=_names(result.get("resources"), "uri"))
    if "contents" in result:
        first = as_dict(next(iter(as_list(result.get("contents"))), None))
        return _situation("resources_read.result", uri=value(first.get("uri")), mime=value(first.get("mimeType")))
    if "prompts" in result:
        return _situation("prompts_list.result", prompts=_names(result.get("prompts")))
    if "messages" in result:
        return _situation("prompts_get.result", roles=_names(result.get("messages"), "role"))
    return _situation("rpc.result", id=rpc_id)


def _call_result(rpc_id: str | None, result: JsonObject) -> Situation | None:
    """A CallToolResult on the wire: the function raised, the arguments failed the schema, another failure, or a
    result, structured or not."""
    texts = [t for t in (as_dict(b).get("text") for b in as_list(result.get("content"))) if isinstance(t, str)]
    text = next((v for v in (value(t) for t in texts) if v), None)
    if result.get("isError") is True:
        report = as_dict(as_dict(result.get("_meta")).get(REPORT_KEY))
        if report.get("outcome") == "raised":
            return _situation("result.wire.raised", id=rpc_id, is_error="true", text=text or "")
        if any(_INVALID_ARGUMENTS.search(t) for t in texts):
            return _situation("result.wire.invalid", id=rpc_id, is_error="true", text=text or "")
        return _situation("result.wire.failed", id=rpc_id, is_error="true", text=text or "")
    is_error = value(result.get("isError", False))
    if "structuredContent" in result:
        return _situation("result.wire.structured", id=rpc_id, is_error=is_error)
    return _situation("result.wire.ok", id=rpc_id, is_error=is_error)


def _removed_keys(before: Any, after: Any) -> list[str]:
    """The keys `before` (a JSON Schema) has that `after` lacks, at any depth, each named once, in order."""
    out: list[str] = []
    b, a = as_dict(before), as_dict(after)
    for key, v in b.items():
        if key not in a:
            out.append(key)
        elif isinstance(v, dict):
            out += _removed_keys(v, a[key])
    return list(dict.fromkeys(out))


def _count_removed(before: Any, after: Any) -> int:
    b, a = as_dict(before), as_dict(after)
    return sum(1 if k not in a else _count_removed(v, a[k]) if isinstance(v, dict) else 0 for k, v in b.items())


_FUNCTION_FIELDS = ("name", "description", "inputSchema")  # what a chat function has a field for (as parameters)


def _forward(p: TranslateForwardPayload) -> Situation | None:
    """The forward translation, saying what changed between the MCP tools and the functions, as this hop shows:
    keys removed from the schemas, tool fields a chat function has no place for, and a strict rewrite."""
    mcp = p["mcp"]  # each tool as the server listed it
    sent = p["openai"]  # each as the model API takes it: nested under function (Chat), flat (Responses, Messages)
    # the API by the shape of what was sent: Chat nests a function, Messages names its schema input_schema
    functions = [as_dict(t.get("function")) if "function" in t else t for t in sent]
    nested, input_schema = any("function" in t for t in sent) or not sent, any("input_schema" in f for f in functions)
    api: ApiName = "messages" if input_schema else "chat" if nested else "responses"
    schema = API[api].schema_field
    tools = _names(mcp)
    removed: list[str] = []
    count = 0
    for tool, fn in zip(mcp, functions, strict=False):
        removed += [k for k in _removed_keys(tool.get("inputSchema"), fn.get(schema)) if value(k)]
        count += _count_removed(tool.get("inputSchema"), fn.get(schema))
    removed = list(dict.fromkeys(removed))
    left_out = list(dict.fromkeys(k for tool in mcp for k in tool if k not in _FUNCTION_FIELDS and value(k)))
    derived = {"count": str(count)}
    if functions and any(fn.get("strict") is True for fn in functions):
        both = list(dict.fromkeys(removed + left_out))
        return _situation(_keyed(api, "translate.forward.strict"), derived, tools=tools, removed=both)
    if removed and left_out:
        return _situation(_keyed(api, "translate.forward"), derived, tools=tools, removed=removed, left_out=left_out)
    if removed:
        return _situation(_keyed(api, "translate.forward.schema"), derived, tools=tools, removed=removed)
    if left_out:
        return _situation(_keyed(api, "translate.forward.fields"), tools=tools, left_out=left_out)
    return _situation(_keyed(api, "translate.forward.same"), tools=tools)


def _parsed(text: Any) -> Any:
    """A string parsed as JSON; None when it is not a string or not JSON."""
    if not isinstance(text, str):
        return None
    ok, value = read_json_text(text)
    return value if ok else None


def _json(v: Any) -> str | None:
    try:
        return json.dumps(v, ensure_ascii=False) if v is not None else None
    except (TypeError, ValueError):
        return None


def _tools_share(body: Mapping[str, Any]) -> str | None:
    """How much of a request body (as compact JSON) its tool definitions are, in whole per cent; None without tools."""
    whole, tools = len(json_bytes(body)), len(json_bytes(body.get("tools")))  # as a hop's `bytes` counts
    if not whole or not as_list(body.get("tools")):
        return None
    return str(round(100 * tools / whole))


def _body(hop: Hop | None) -> ChatRequest:
    """The body of a model request, {} for any other hop or a body that was not JSON."""
    request = payload_of(hop, "llm.request") if hop is not None else None
    body = request["body"] if request is not None else None
    return body if isinstance(body, dict) else {}


def _model(t: ModelHop, ctx: HopContext) -> Situation | None:
    """What crosses to and from the model API."""
    match t:
        case LlmRequest(payload=p) if "for_server" in p:
            return _for_server(p)
        case LlmResponse(payload=p) if "for_server" in p:
            return _answer_for_server(p)
        case LlmRequest(hop=hop, payload=p):
            return _model_request(hop, p, ctx)
        case LlmResponse(hop=hop, payload=p):
            return _model_response(hop, as_dict(p["body"]), ctx)  # the provider's JSON, as it came
        case LlmChunk(payload=p):
            return _stream_event(p["data"], ctx)
        case LlmAssembled(payload=p):
            wire = api_of_body(p["message"])
            match wire.places:
                case ChoicePlaces():
                    return _assembled(p)
                case ItemPlaces():
                    return _api_assembled(p, wire)
                case _ as never:
                    assert_never(never)
        case LlmError(payload=p):
            return _model_error(p)
        case _ as never:
            assert_never(never)


def _answer_for_server(p: LlmResponsePayload) -> Situation | None:
    """The host's model's reply to an MCP server's sampling request: its calls (the server's), or its text."""
    body = as_dict(p["body"])
    turn = turn_of(body, api_of_body(body))
    method = value(as_dict(p.get("for_server")).get("method"))
    calls = [call_text(c.name, _object(arguments_of(c))) for c in turn.calls] if turn is not None else []
    if calls:
        return _situation("answer.for_server.calls", {"calls": ", ".join(calls)}, method=method)
    text = value(turn.text) if turn is not None else None
    return _situation("answer.for_server", text=text, method=method)


def _model_request(hop: Hop, p: LlmRequestPayload, ctx: HopContext) -> Situation | None:
    """3 and 8, in the terms of the API the request was sent to (hosted MCP: naming a server, or approving)."""
    wire = api_of_request(p)
    match wire.places:
        case ChoicePlaces():
            return _ask(hop, p, ctx)
        case ItemPlaces():
            return _hosted_ask(hop, p, wire) if ctx.hosted else _api_ask(hop, wire, ctx)
        case _ as never:
            assert_never(never)


def _model_response(hop: Hop, body: dict[str, Any], ctx: HopContext) -> Situation | None:
    """4 and 9, in the terms of the API the response speaks (hosted MCP: what the provider reports)."""
    wire = api_of_body(body)
    match wire.places:
        case ChoicePlaces():
            return _model_answer(hop, body, ctx)
        case ItemPlaces() as places:
            return _hosted_answer(body, wire, ctx) if ctx.hosted else _api_answer(hop, body, wire, places, ctx)
        case _ as never:
            assert_never(never)


def _stream_event(data: Any, ctx: HopContext) -> Situation | None:
    """One event of a stream, in its API's terms: a chunk, or an event of a type whose text that API's teaching
    has (an API with none gets the step's general text)."""
    wire = api_of_body(data)
    match wire.places:
        case ChoicePlaces():
            return _chunk(data, ctx)
        case ItemPlaces():
            own = _OWN_EVENTS.get(wire.name)
            return own(as_dict(data)) if own is not None else None
        case _ as never:
            assert_never(never)


def _object(arguments: Any) -> Any:
    """A call's arguments as an object where they are JSON text (Chat, Responses), to be shown as `key=value`."""
    if not isinstance(arguments, str):
        return arguments
    ok, value = read_json_text(arguments)
    return value if ok else arguments


def _for_server(p: LlmRequestPayload) -> Situation | None:
    """The host's model call for an MCP server's sampling request: the server's messages and token limit."""
    api = api_of_request(p)
    body = as_dict(p["body"])
    field = api.max_tokens_field
    derived = {"messages": str(len(conversation(body, api)))}
    tools = [t for t in tool_names(body) if value(t)]
    if tools:
        return _situation(
            "ask.for_server.tools", derived, method=value(as_dict(p.get("for_server")).get("method")), tools=tools
        )
    return _situation(
        "ask.for_server",
        derived,
        method=value(as_dict(p.get("for_server")).get("method")),
        field=value(field) if field in body else None,
        limit=value(body.get(field)),
    )


def _ask(hop: Hop, p: LlmRequestPayload, ctx: HopContext) -> Situation | None:
    body = _body(hop)
    count = {"messages": str(len(body.get("messages", [])))}
    if hop.step == Step.ASK_MODEL:
        return _ask_first(body, count)
    if hop.step == Step.BACKFILL:
        return _backfill(body, p.get("adapted", []), count, _body(ctx.app_asked).get("tool_choice", "auto"))
    return _situation("ask.other", count)


def _ask_first(body: ChatRequest, count: dict[str, str]) -> Situation | None:
    """3: the first request, with the tools and the tool_choice it sends."""
    choice = body.get("tool_choice", "auto")
    derived = {**count, "tools": str(len(body.get("tools", []))), "share": _tools_share(body) or "0"}
    named = value(as_dict(as_dict(choice).get("function")).get("name"))
    if named is not None:  # on the wire a named choice is an object, never the bare name
        return _situation("ask.first.named", derived, name=named)
    if "tool_choice" not in body:
        derived["choice"] = "auto"
        return _situation("ask.first", derived)
    return _situation("ask.first", derived, choice=value(choice))


def _backfill(body: ChatRequest, adapted: list[Adaptation], count: dict[str, str], before: Any) -> Situation | None:
    """8: the results sent back, what the app changed so that every compatible server takes the request
    (RunOptions.adapt), and a tool_choice set back to auto from one that forced a call (`before`: the app's previous
    request's)."""
    results = [m for m in body.get("messages", []) if m.get("role") == "tool"]
    ids = [v for v in (value(m.get("tool_call_id")) for m in results) if v]
    paths = [v for v in (value(a["path"]) for a in adapted) if v]
    derived = {**count, "results": str(len(results))}
    back = "_auto" if body.get("tool_choice", "auto") == "auto" and _forces(before) else ""
    if back:
        derived["before"] = json.dumps(before, ensure_ascii=False)
    if paths:
        key = "ask.backfill.auto_adapted" if back else "ask.backfill.adapted"
        return _situation(key, derived, ids=ids, path=paths[0])
    return _situation("ask.backfill.auto" if back else "ask.backfill", derived, ids=ids)


def _calls(message: Mapping[str, Any]) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    calls = [as_dict(c) for c in as_list(message.get("tool_calls"))]
    names = [v for v in (value(as_dict(c.get("function")).get("name")) for c in calls) if v]
    ids = [v for v in (value(c.get("id")) for c in calls) if v]
    return names, ids, calls


def _model_answer(hop: Hop, body: dict[str, Any], ctx: HopContext) -> Situation | None:
    choice = first_choice(body)
    message = as_dict(choice.get("message"))
    finish = value(choice.get("finish_reason"))
    names, ids, calls = _calls(message)
    odd = finish is not None and finish != "tool_calls"  # a provider that says "stop" beside tool_calls
    if len(calls) > 1:
        if odd:
            return _situation("decide.parallel.finish", {"count": str(len(calls))}, names=names, ids=ids, finish=finish)
        return _situation("decide.parallel", {"count": str(len(calls))}, names=names, ids=ids)
    if calls:
        fn = as_dict(calls[0].get("function"))
        return _situation(
            "decide.one.finish" if odd else "decide.one",
            name=value(fn.get("name")),
            arguments=_raw(fn.get("arguments")),
            id=value(calls[0].get("id")),
            finish=finish,
        )
    content = value(message.get("content"))
    if content is None and message.get("content") in ("", None) and finish is not None:
        return _situation("answer.empty", finish=finish)
    if hop.round <= 1:
        return _situation("answer.at_once", content=content, finish=finish)
    if hop.scripted:  # the script wrote this answer: no model read the results
        return _situation("answer.after_tools.scripted", content=content)
    return _answer_after_tools(body, content, finish, _body(ctx.asked))


def _answer_after_tools(body: dict[str, Any], content: str | None, finish: str | None, asked: ChatRequest) -> Situation:
    """9 after a tool round: the answer, what it cost (the prompt tokens reported) and the tools' share of the
    request that asked for it."""
    tokens = value(as_dict(body.get("usage")).get("prompt_tokens"))
    share = _tools_share(asked)
    if share is not None:
        derived = {"share": share, "tools": str(len(asked.get("tools", [])))}
        found = _situation("answer.after_tools", derived, content=content, finish=finish, prompt_tokens=tokens)
    else:
        found = _situation("answer.after_tools.no_share", content=content, finish=finish, prompt_tokens=tokens)
    return (
        found
        or _situation("answer.after_tools.no_usage", content=content, finish=finish)
        or Situation("response.other")
    )


def _chunk(data: Any, ctx: HopContext) -> Situation | None:
    """One stream event (the provider's JSON, as it came)."""
    if data == "[DONE]":
        return Situation("chunk.done")
    data = as_dict(data)
    choices = as_list(data.get("choices"))
    usage = as_dict(data.get("usage"))
    if not choices and usage:
        return _situation(
            "chunk.usage",
            prompt_tokens=value(usage.get("prompt_tokens")),
            completion_tokens=value(usage.get("completion_tokens")),
        )
    choice = as_dict(next(iter(choices), None))
    delta = as_dict(choice.get("delta"))
    finish = value(choice.get("finish_reason"))
    if finish is not None:
        called = ctx.streamed_calls or bool(as_list(delta.get("tool_calls")))
        if called:
            return _situation("chunk.finish" if not any(delta.values()) else "chunk.finish.delta", finish=finish)
        return _situation(
            "chunk.finish.answer" if not any(delta.values()) else "chunk.finish.answer_delta", finish=finish
        )
    return _delta(delta)


def _delta(delta: dict[str, Any]) -> Situation | None:
    """A chunk's delta: a call starting, its arguments arriving, text, or the role."""
    calls = [as_dict(c) for c in as_list(delta.get("tool_calls"))]
    if calls:
        call = calls[0]
        fn = as_dict(call.get("function"))
        if "id" in call or "name" in fn:
            return _situation("chunk.call_start", id=value(call.get("id")), name=value(fn.get("name")))
        return _situation("chunk.arguments", index=value(call.get("index")), fragment=_raw(fn.get("arguments")))
    if isinstance(delta.get("content"), str) and delta["content"]:
        return _situation("chunk.content", delta=_raw(delta["content"]))
    if "role" in delta:
        return _situation("chunk.role", role=value(delta.get("role")))
    return Situation("chunk.other")


def _assembled(p: LlmAssembledPayload) -> Situation | None:
    message = p["message"]
    finish = value(p["finish_reason"])
    names, ids, calls = _calls(message)
    if calls:
        return _situation("assembled.calls", names=names, ids=ids, finish=finish)
    content = message.get("content")
    if "content" not in message or not (content is None or isinstance(content, str)):
        return None  # Responses' output items, Messages' content blocks: the general text says what this hop is
    return _situation("assembled.content", content=value(content), finish=finish)


# What a server says when it refused the request itself, whatever status it gave (llama-cpp-python: 500 for
# FastAPI's validation errors): then the request is what must change, and sending it again fails the same way.
_REFUSED = re.compile(r"\bvalidation errors?\b|\bInput should be\b|\bField required\b|\binvalid_request_error\b")


def _model_error(p: LlmErrorPayload) -> Situation | None:
    status = p.get("status")
    if status is not None:
        return _http_error(status, as_dict(as_dict(p.get("body")).get("error")))  # the provider's JSON, as it came
    error = p.get("error")
    if error == "deadline" or "limit_s" in p:
        return _situation("model.deadline", limit_s=value(p.get("limit_s")))
    if error == "too large" or "limit_bytes" in p:
        return _situation("model.too_large", limit_bytes=value(p.get("limit_bytes")))
    if error == "malformed response" or "reason" in p:
        return _situation("model.malformed", reason=value(p.get("reason")))
    return _situation("model.unreachable", error=value(error))


def _http_error(status: int, err: dict[str, Any]) -> Situation | None:
    """An HTTP error status, and what the provider's error object says."""
    message = value(err.get("message")) or ""
    key = {401: "model.401", 403: "model.401", 404: "model.404", 429: "model.429"}.get(status)
    if key is None and 500 <= status <= 599:
        refused = _REFUSED.search(message) or err.get("type") == "invalid_request_error"
        key = "model.5xx.refused" if refused else "model.5xx"
    if key is not None and message:
        return _situation(key, status=value(status), message=message)
    return _situation("model.status", status=value(status))


def _call(t: CallHop, ctx: HopContext) -> Situation | None:
    """A tool call on its way to the function, and its result on the way back."""
    match t:
        case TranslateReverse(hop=hop, payload=p):
            fn = p["tool_call"]["function"]
            key = "reverse.direct" if hop.target == "tool" else "reverse.mcp"
            api_call = as_dict(as_dict(p).get("api_call"))  # the call as Responses or Messages wrote it
            if api_call.get("type") == "tool_use" and isinstance(api_call.get("input"), dict):
                return _situation(
                    "messages." + key,
                    input=_raw(_json(api_call["input"])),
                    name=value(api_call.get("name")),
                    id=value(api_call.get("id")),
                )
            if api_call.get("type") == "function_call":
                return _situation(
                    "responses." + key,
                    arguments=_raw(api_call.get("arguments")),
                    name=value(api_call.get("name")),
                    id=value(api_call.get("call_id")),
                )
            return _situation(
                key, arguments=_raw(fn["arguments"]), name=value(fn["name"]), id=value(p["tool_call"]["id"])
            )
        case ToolInvoke(hop=hop, payload=p):
            return _invoke(hop, value(p["function"]), ctx)
        case ToolResult(hop=hop, payload=p):
            return _result(hop, p, ctx)
        case _ as never:
            assert_never(never)


def _invoke(hop: Hop, name: str | None, ctx: HopContext) -> Situation | None:
    if hop.source == "mcp_server":  # only ever rebuilt from the server's report in the result's _meta
        return _situation("invoke.server", function=name) or Situation("invoke.server.unnamed")
    if ctx.listed is not None and name is not None and name not in ctx.listed:
        return _situation("invoke.direct.unknown", {"listed": list(ctx.listed)}, function=name)
    return _situation("invoke.direct", function=name)


def _result(hop: Hop, p: ToolResultPayload, ctx: HopContext) -> Situation | None:
    call_id = value(hop.tool_call_id)
    if hop.source == "tool" and hop.target == "mcp_server":
        return _server_result(p)
    if "error" in p and "result" not in p:  # the JSON-RPC error, handed on: no CallToolResult exists
        return _situation(_keyed(ctx.api, "result.app.rpc_error"), id=call_id, code=value(p["error"]["code"]))
    if "result" in p:
        result = p["result"]
        if result.get("isError") is True:
            return _situation(_keyed(ctx.api, "result.app.failed"), id=call_id, is_error="true")
        key = "result.app.ok"
        check = as_dict(p.get("structured"))
        if check.get("backfill") == "structured":  # the host checked it and sent it in place of the text
            return _situation("result.app.structured_sent", id=call_id, is_error=value(result.get("isError", False)))
        if check.get("valid") is False and p.get("tool_message_content") != _text_of(result):
            errors = [v for v in (value(e) for e in as_list(check.get("errors"))) if v]
            return _situation("result.app.structured_refused", id=call_id, error=errors[:1])
        if "structuredContent" in result:  # left out of the tool message: say whether its text holds the same value
            same = _parsed(p.get("tool_message_content")) == result.get("structuredContent")
            key = "result.app.structured" if same else "result.app.structured_dropped"
        return _situation(_keyed(ctx.api, key), id=call_id, is_error=value(result.get("isError", False)))
    if "return" in p or "isError" in p:
        return _direct_result(call_id, p, ctx)
    return Situation("result.other")


def _text_of(result: JsonObject) -> str:
    """A CallToolResult's text blocks, one after another, as a tool message carries them."""
    blocks = (as_dict(b) for b in as_list(result.get("content")))
    return "\n".join(str(b.get("text")) for b in blocks if b.get("type") == "text")


def _server_result(p: ToolResultPayload) -> Situation:
    """A server's report of running the function: what it raised, or that it returned."""
    failed = p.get("isError") is True or p.get("result", {}).get("isError") is True
    if failed and "raised" in p:  # the report names the exception: say which
        raised = p["raised"]
        found = _situation("result.server.raised", error=value(raised["type"]), message=value(raised["message"]))
        return found or Situation("result.server.failed")
    return Situation("result.server.failed" if failed else "result.server")


def _direct_result(call_id: str | None, p: ToolResultPayload, ctx: HopContext) -> Situation | None:
    """Direct mode: what the app's own function returned, or raised (for a name it never offered, say so)."""
    error = value(p.get("tool_message_content")) or value(p.get("return")) or ""
    if p.get("isError") is not True:
        return _situation(_keyed(ctx.api, "result.direct.ok"), id=call_id)
    before = ctx.previous
    if before is not None and is_a(before, ToolInvoke) and situation(before, ctx).key == "invoke.direct.unknown":
        return _situation(_keyed(ctx.api, "result.direct.unknown"), id=call_id, error=error)
    return _situation(_keyed(ctx.api, "result.direct.failed"), id=call_id, error=error)


_SETUP_METHODS = ("initialize", "server/discover", "tools/list")  # what the app asks before it has a tool list


def _failure(hop: Hop, p: ErrorPayload, ctx: HopContext) -> Situation | None:
    error = p.get("error")
    if hop.step == Step.REVERSE_TRANSLATION and "tool_call" in p:
        call = p["tool_call"]
        key = "arguments.not_json" if isinstance(error, str) and "not valid JSON" in error else "arguments.schema"
        fn = call["function"]
        return _situation(key, name=value(fn["name"]), arguments=_raw(fn["arguments"]), id=value(call["id"]))
    if error in ("connection closed", "timeout"):
        key = "server.closed" if error == "connection closed" else "server.timeout"
        method = value(p.get("method"))
        if method in _SETUP_METHODS:  # the set-up went unanswered: no tool was listed or called yet
            return _situation(f"{key}.setup", method=method)
        return _situation(key, code=value(p["sdk_error"]["code"]) if "sdk_error" in p else None)
    if "http" in p:
        http = p["http"]
        return _situation("server.http", method=value(http.get("jsonrpc", {}).get("method")) or value(http["method"]))
    if hop.source == "mcp_server" and isinstance(error, str):
        return _situation("server.broke", error=value(error))
    if hop.step == Step.SHOW_ANSWER:
        return _run_end(ctx.previous)
    return Situation("failure.other")


def _run_end(before: Hop | None) -> Situation:
    """10: why the run ended without an answer, as the hop before it shows."""
    if before is not None and is_a(before, LlmError):
        return Situation("end.model_failed")
    if before is not None and is_a(before, Failure) and before.source == "mcp_server":
        method = value((payload_of(before, "error") or {}).get("method"))
        if method in _SETUP_METHODS:
            return Situation("end.server_failed.setup", {}, {"method": method})
        return Situation("end.server_failed")
    if before is not None and _asks_for_tools(before):
        return Situation("end.round_limit")
    return Situation("end.failed")


def _asks_for_tools(hop: Hop) -> bool:
    """The hop is the model asking for tools (a response or an assembled stream with tool_calls)."""
    match typed(hop):
        case LlmAssembled() | LlmResponse():
            got = reply_turn(hop)  # read by the reply's own API
            return got is not None and bool(got[0])
        case _:
            return False


# --- Responses and Messages: the same steps in their shapes ----------------------------------------


def _is_auto(choice: Any) -> bool:
    return choice == "auto" or as_dict(choice).get("type") == "auto"


def _forces(choice: Any) -> bool:
    """Whether a tool_choice makes the model call a tool: "required" (Messages "any") or one named tool; "none"
    forbids a call and "auto" leaves it to the model."""
    kind = choice if isinstance(choice, str) else as_dict(choice).get("type")
    return kind in ("required", "any", "function", "tool")


def _api_ask(hop: Hop, api: WireApi, ctx: HopContext) -> Situation | None:
    """3 and 8 of a Responses or Messages run: the first request (the tools, the tool_choice as that API writes it,
    Messages' top-level system and required max_tokens), or the backfill (the results as function_call_output items
    or tool_result blocks; with previous_response_id, only what is new)."""
    body, words = _body(hop), api_words(api.name)
    count = {words.count_fill: str(len(conversation(body, api)))}  # Responses counts input items
    required = as_dict(body)  # a field an API requires (Messages' max_tokens), where the request has it
    extra = {"max_tokens": value(required["max_tokens"])} if "max_tokens" in required else {}
    if hop.step == Step.ASK_MODEL:
        choice = body.get("tool_choice", "auto")
        derived = {**count, "tools": str(len(as_list(body.get("tools")))), "share": _tools_share(body) or "0"}
        named = as_dict(choice).get("name") if as_dict(choice).get("type") in ("function", "tool") else None
        if named is not None:  # on the wire a named choice is an object, never the bare name
            return _situation(_keyed(api.name, "ask.first.named"), derived, name=value(named), **extra)
        if value(choice) is None:  # Messages writes every choice as an object: its JSON is the payload's, re-written
            return _situation(_keyed(api.name, "ask.first"), {**derived, "choice": _json(choice) or ""}, **extra)
        return _situation(_keyed(api.name, "ask.first"), derived, choice=value(choice), **extra)
    if hop.step == Step.BACKFILL:
        ids = [v for v in (value(i) for _, i in answered(body, api)) if v]
        previous = value(body.get("previous_response_id"))
        if previous is not None:  # Responses' own field
            return _situation("responses.ask.backfill.previous", count, ids=ids, previous=previous)
        before = _body(ctx.app_asked).get("tool_choice", "auto")
        if _is_auto(body.get("tool_choice", "auto")) and _forces(before):
            derived = {**count, "before": json.dumps(before, ensure_ascii=False)}
            return _situation(_keyed(api.name, "ask.backfill.auto"), derived, ids=ids)
        return _situation(_keyed(api.name, "ask.backfill"), count, ids=ids)
    return _situation(_keyed(api.name, "ask.other"), count)


def _stopped(api: WireApi, finish: Any) -> dict[str, Any]:
    """Why the model stopped, under the name its API's texts give it: a Responses status, a Messages stop_reason."""
    return {api_words(api.name).finish_fill: value(finish)}


def _api_answer(hop: Hop, body: dict[str, Any], api: WireApi, places: ItemPlaces, ctx: HopContext) -> Situation | None:
    """4 and 9 of a Responses or Messages run, read by the API's own reader: the calls (function_call items with
    their arguments string; tool_use blocks with their input object), or the answer and what it cost."""
    turn = turn_of(body, api)
    if turn is None:
        return Situation(_keyed(api.name, "response.other"))
    stopped = _stopped(api, turn.finish)
    names = [v for v in (value(c.name) for c in turn.calls) if v]
    ids = [v for v in (value(c.id) for c in turn.calls) if v]
    if len(turn.calls) > 1:
        return _situation(_keyed(api.name, "decide.parallel"), {"count": str(len(turn.calls))}, names=names, ids=ids)
    if turn.calls:
        call, key = turn.calls[0], _keyed(api.name, "decide.one")
        if call.parsed is not None:  # an input object (Messages): as JSON, the payload's, re-written
            derived = {places.arguments: _raw(_json(call.parsed)) or ""}
            return _situation(key, derived, name=value(call.name), id=value(call.id), **stopped)
        given = {places.arguments: _raw(call.arguments)}  # the arguments as the model wrote them
        return _situation(key, None, name=value(call.name), id=value(call.id), **given, **stopped)
    content = value(turn.text)
    if hop.round <= 1:
        return _situation(_keyed(api.name, "answer.at_once"), content=content, **stopped)
    if hop.scripted:
        return _situation("answer.after_tools.scripted", content=content)
    asked = _body(ctx.asked)
    share = _tools_share(asked)
    tokens = value(as_dict(body.get("usage")).get("input_tokens"))
    found = None
    if share is not None:
        derived = {"share": share, "tools": str(len(as_list(asked.get("tools"))))}
        found = _situation(
            _keyed(api.name, "answer.after_tools"), derived, content=content, input_tokens=tokens, **stopped
        )
    return (
        found
        or _situation(_keyed(api.name, "answer.after_tools.no_usage"), content=content, **stopped)
        or Situation(_keyed(api.name, "response.other"))
    )


def _responses_event(data: dict[str, Any]) -> Situation | None:
    """One typed event of a Responses stream."""
    kind = data.get("type")
    item = as_dict(data.get("item"))
    if kind == "response.output_item.added" and item.get("type") == "function_call":
        return _situation("responses.event.call_start", id=value(item.get("call_id")), name=value(item.get("name")))
    if kind == "response.output_item.added":
        return _situation("responses.event.item", item=value(item.get("type")))
    if kind == "response.function_call_arguments.delta":
        return _situation("responses.event.arguments", fragment=_raw(data.get("delta")))
    if kind == "response.function_call_arguments.done":
        return _situation("responses.event.arguments_done", arguments=_raw(data.get("arguments")))
    if kind == "response.output_text.delta":
        return _situation("responses.event.text", fragment=_raw(data.get("delta")))
    if kind == "response.completed":
        response = as_dict(data.get("response"))
        usage = as_dict(response.get("usage"))
        found = _situation(
            "responses.event.completed",
            status=value(response.get("status")),
            input_tokens=value(usage.get("input_tokens")),
            output_tokens=value(usage.get("output_tokens")),
        )
        if found is not None:
            return found
    return _situation("responses.event.other", type=value(kind))


def _messages_event(data: dict[str, Any]) -> Situation | None:
    """One event of a Messages stream."""
    kind = data.get("type")
    block, delta = as_dict(data.get("content_block")), as_dict(data.get("delta"))
    if kind == "message_start":
        return Situation("messages.event.start")
    if kind == "content_block_start" and block.get("type") == "tool_use":
        return _situation("messages.event.call_start", id=value(block.get("id")), name=value(block.get("name")))
    if kind == "content_block_start":
        return _situation("messages.event.block", block=value(block.get("type")))
    if kind == "content_block_delta" and delta.get("type") == "input_json_delta":
        return _situation("messages.event.input", fragment=_raw(delta.get("partial_json")))
    if kind == "content_block_delta" and delta.get("type") == "text_delta":
        return _situation("messages.event.text", fragment=_raw(delta.get("text")))
    if kind == "content_block_stop":
        return Situation("messages.event.block_stop")
    if kind == "message_delta" and delta.get("stop_reason") is not None:
        return _situation("messages.event.stop_reason", stop=value(delta.get("stop_reason")))
    if kind == "message_stop":
        return Situation("messages.event.stop")
    return _situation("messages.event.other", type=value(kind))


def _api_assembled(p: LlmAssembledPayload, api: WireApi) -> Situation | None:
    """The turn the app assembled from a Responses or Messages stream: its calls, or its text."""
    turn = turn_of(p["message"], api, assembled=True, finish=p["finish_reason"])
    if turn is None:
        return None
    stopped = _stopped(api, p["finish_reason"])
    if turn.calls:
        names = [v for v in (value(c.name) for c in turn.calls) if v]
        ids = [v for v in (value(c.id) for c in turn.calls) if v]
        return _situation(_keyed(api.name, "assembled.calls"), names=names, ids=ids, **stopped)
    return _situation(_keyed(api.name, "assembled.content"), content=value(turn.text), **stopped)


# --- hosted MCP: the app names a server, the provider is its client ------------------------------------------------


def _hosted_ask(hop: Hop, p: LlmRequestPayload, api: WireApi) -> Situation | None:
    """A request of a hosted run: the server it names for the provider (with or without a credential), or the app's
    answer to an approval request (Responses `mcp_approval_response`)."""
    body = _body(hop)
    items = {"items": str(len(conversation(body, api)))}
    answers = [as_dict(i) for i in conversation(body, api) if as_dict(i).get("type") == "mcp_approval_response"]
    if answers and hop.step != Step.ASK_MODEL:
        last = answers[-1]
        key = "responses.hosted.approve" if last.get("approve") is True else "responses.hosted.deny"
        return _situation(key, items, id=value(last.get("approval_request_id")), approve=value(last.get("approve")))
    servers = hosted_servers(body)
    if not servers:
        return _api_ask(hop, api, HopContext())
    server = servers[0]
    open_ = "" if server["headers"] else ".open"  # no credential: the server must let anyone in who reaches it
    approval = server["require_approval"]  # the rule a Responses mcp tool states
    stated = {
        "approval": value(approval) or _json(approval),
        "beta": value(as_dict(p.get("headers")).get("anthropic-beta")),  # Messages' connector, a named beta
    }
    derived = {k: v for k, v in stated.items() if v}
    key = _keyed(api.name, f"hosted.ask{open_}")
    return _situation(key, derived, server=value(server["label"]), url=value(server["url"]))


def _hosted_answer(body: dict[str, Any], api: WireApi, ctx: HopContext) -> Situation | None:
    """A response of a hosted run: what its items (Responses) or blocks (Messages) report of the provider's MCP
    client, and the model's answer after it, in the texts that API's teaching has for its own report (an API with
    none gets the step's general text)."""
    own = _OWN_HOSTED_ANSWERS.get(api.name)
    return own(body, api, ctx) if own is not None else None


def _hosted_messages(body: dict[str, Any], api: WireApi) -> Situation | None:
    """A response of a hosted Messages run: its mcp_tool_use and mcp_tool_result blocks, and the answer."""
    blocks = [as_dict(b) for b in as_list(body.get("content"))]
    kinds = [v for v in (value(b.get("type")) for b in blocks) if v]
    uses = [b for b in blocks if b.get("type") == "mcp_tool_use"]
    stop = value(body.get("stop_reason"))
    content = _answer_text_of(body, api)
    if not uses:
        return _situation("messages.hosted.answer.no_call", blocks=kinds, content=content, stop=stop)
    use = uses[0]
    failed = any(b.get("type") == "mcp_tool_result" and b.get("is_error") is True for b in blocks)
    listed = ".listed" if "mcp_tool_listing" in kinds else ""
    key = "messages.hosted.answer.failed" if failed else f"messages.hosted.answer{listed}"
    return _situation(
        key, blocks=kinds, name=value(use.get("name")), id=value(use.get("id")), content=content, stop=stop
    )


def _hosted_responses(body: dict[str, Any], ctx: HopContext) -> Situation | None:
    output = [as_dict(i) for i in as_list(body.get("output"))]
    items = [v for v in (value(i.get("type")) for i in output) if v]
    status = value(body.get("status"))
    asks = [i for i in output if i.get("type") == "mcp_approval_request"]
    if asks:
        ask = asks[0]
        return _situation(
            "responses.hosted.approval",
            items=items,
            name=value(ask.get("name")),
            arguments=_raw(ask.get("arguments")),
            id=value(ask.get("id")),
        )
    content = _answer_text_of(body, API["responses"])
    calls = [i for i in output if i.get("type") == "mcp_call"]
    if not calls:
        denied = any(
            as_dict(i).get("type") == "mcp_approval_response" and as_dict(i).get("approve") is False
            for i in conversation(_body(ctx.asked), API["responses"])
        )
        key = "responses.hosted.answer.denied" if denied else "responses.hosted.answer.no_call"
        return _situation(key, items=items, content=content, status=status)
    call = calls[0]
    names = [v for v in (value(c.get("name")) for c in calls) if v]
    error = as_dict(call.get("error"))
    if call.get("error") is not None:
        return _situation(
            "responses.hosted.answer.failed",
            items=items,
            name=value(call.get("name")),
            error=value(error.get("type")) or "",
            call_status=value(call.get("status")) or "",
            content=content,
        )
    approval = value(call.get("approval_request_id"))
    if approval is not None:
        return _situation("responses.hosted.answer.approved", items=items, id=approval, content=content, status=status)
    listed = "" if "mcp_list_tools" in items else ".unlisted"
    return _situation(f"responses.hosted.answer{listed}", items=items, names=names, content=content, status=status)


def _answer_text_of(body: dict[str, Any], api: WireApi) -> str | None:
    turn = turn_of(body, api)
    return value(turn.text) if turn is not None else None


# Each API's own teaching of what only it puts on the wire: its stream's event types, and the items or blocks in
# which its provider reports hosted MCP. An API with none here is taught by the neutral texts.
_OWN_EVENTS: dict[ApiName, Callable[[dict[str, Any]], Situation | None]] = {
    "responses": _responses_event,
    "messages": _messages_event,
}
_OWN_HOSTED_ANSWERS: dict[ApiName, Callable[[dict[str, Any], WireApi, HopContext], Situation | None]] = {
    "responses": lambda body, _api, ctx: _hosted_responses(body, ctx),
    "messages": lambda body, api, _ctx: _hosted_messages(body, api),
}
