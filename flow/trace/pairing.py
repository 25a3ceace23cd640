"""Which request each reply answers: one home for pairing, used by the live MCP tap, the JSON-RPC log importer and
the OTLP exporter.

`Pairing` is the state machine for JSON-RPC: fed messages in the order they crossed, it says which open request a
response or error answers (by the asker's side and the id), which request a progress notification reports on (by
its token), and which requests were still open at the end. `exchanges`, `model_calls` and `tool_calls` pair a
trace's hops with it: MCP frames by id, a model's replies with its latest request, and a tool call's hops by the
model's `tool_call_id`. Pure: no SDK, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from flow.trace.model import Hop, as_dict, is_object
from flow.trace.payloads import (
    Failure,
    LlmAssembled,
    LlmChunk,
    LlmError,
    LlmRequest,
    LlmResponse,
    McpError,
    McpNotification,
    McpRequest,
    McpResponse,
    TranslateReverse,
    is_a,
)
from flow.trace.steps import Step, answer_step
from flow.trace.summaries import frame_summary


@dataclass(slots=True, eq=False)
class Request:
    """A request as the pairing keeps it until its reply: who sent it, its id, method and params, and what the
    caller numbered it with (a hop's step and round, its time, a log line), plus anything the caller hangs on it."""

    side: str  # who sent it: "client" or "server" for frames, an actor for a trace's hops
    id: Any  # the JSON-RPC id, as it came: a reader of a log or a trace may meet any JSON value
    method: str
    params: dict[str, Any]
    step: Step | None = None
    t_ms: float = 0.0
    seq: int = 0  # the caller's number for it: a hop's seq, a log's line
    round: int = 0
    tag: Any = None  # the caller's own object for it (the exporter's exchange)

    @property
    def answer_step(self) -> Step | None:
        """The step its answer belongs to (a tools/call's result is step 7)."""
        return answer_step(self.step)

    @property
    def what(self) -> str:
        """The request as a progress line names it: its method and what it acts on ("tools/call get_forecast")."""
        return frame_summary({"method": self.method, "params": self.params}, None).split("(")[0]


class Pairing:
    """Open requests by (side, id), in the order they were sent, and the progress tokens they asked for.

    A second request with an id still open takes its place (JSON-RPC says ids are unique among open requests; a
    reply then answers the later one) and the first is kept in `duplicates`; a reply that answers no open request
    is noted in `unknown`. A progress token stays tied to its request after the reply: a late report still names it.
    """

    __slots__ = ("_open", "_progress", "duplicates", "unknown")

    def __init__(self) -> None:
        self._open: dict[tuple[str, Any], Request] = {}
        self._progress: dict[int | str, Request] = {}
        self.duplicates: list[Request] = []  # requests displaced before any reply by a later one with the same id
        self.unknown: list[tuple[str, Any]] = []  # (asker, id) of replies to no open request

    def request(
        self,
        side: str,
        rid: Any,
        method: str,
        params: Any = None,
        *,
        step: Step | None = None,
        t_ms: float = 0.0,
        seq: int = 0,
        rnd: int = 0,
        tag: Any = None,
    ) -> Request:
        """A request `side` sent: open until a reply with its id comes back (see `reply`)."""
        params = as_dict(params)
        req = Request(side, rid, method, params, step, t_ms, seq, rnd, tag)
        key = (side, rid)
        displaced = self._open.get(key)
        if displaced is not None:
            self.duplicates.append(displaced)
        self._open[key] = req  # a dict keeps a key's first place: the order stays that of first sending
        meta = params.get("_meta")
        token = meta.get("progressToken") if is_object(meta) else None
        if isinstance(token, (str, int)):  # what else a frame holds names no request
            self._progress[token] = req
        return req

    def reply(self, asker: str, rid: Any) -> Request | None:
        """The open request from `asker` with this id, now answered; None when no such request is open."""
        req = self._open.pop((asker, rid), None)
        if req is None:
            self.unknown.append((asker, rid))
        return req

    def progress(self, token: Any) -> Request | None:
        """The request that asked for progress with this token (a notifications/progress names it)."""
        return self._progress.get(token) if isinstance(token, (str, int)) else None

    def awaited(self, asker: str, rid: Any) -> Request | None:
        """The open request from `asker` with this id, left open."""
        return self._open.get((asker, rid))

    def is_open(self, asker: str, rid: Any) -> bool:
        return (asker, rid) in self._open

    def close(self, req: Request) -> None:
        """Take a request out as answered some other way (the failure that ended it instead of a reply)."""
        if self._open.get((req.side, req.id)) is req:
            del self._open[(req.side, req.id)]

    def latest(self, side: str) -> Request | None:
        """The last open request `side` sent: what the other side is handling while it says something unasked."""
        for (sender, _), req in reversed(self._open.items()):
            if sender == side:
                return req
        return None

    def oldest(self) -> Request | None:
        """The first open request: the one a failure to answer belongs to."""
        return next(iter(self._open.values()), None)

    @property
    def unanswered(self) -> list[Request]:
        """The open requests, in the order they were sent."""
        return list(self._open.values())


# --- one call's identity ----------------------------------------------------------------------------------------


class StreamedCalls:
    """Which tool call a streamed piece belongs to, for every API's stream reader: one call, one key.

    A piece names its call by an id, a position (Chat Completions' `index`, a Messages block's, a Responses item's),
    both or neither. An id seen before is that call wherever the piece comes (a gateway may stream one call as
    several blocks or deltas, each with the call's id and a new position); else a position seen before is the call
    last made there, unless the piece brings another id (a provider that numbers parallel calls all 0); a piece with
    neither continues the latest call. A call's key is the position it first came at, or the next free one.
    """

    __slots__ = ("_ids", "_keys", "latest")

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}  # a call's id -> its key
        self._keys: dict[int, int] = {}  # a position -> the key of the call last made there
        self.latest: int | None = None

    def key(self, position: Any, call_id: Any) -> tuple[int, bool]:
        """The key of the call a piece at `position` with `call_id` belongs to (either may be absent or of any type
        a recording holds), and whether the piece starts it."""
        given = call_id if isinstance(call_id, str) and call_id else None
        at = position if type(position) is int else None
        there = self._keys.get(at) if at is not None else None
        if given is not None and given in self._ids:
            key, new = self._ids[given], False
        elif there is not None and (given is None or there not in self._ids.values()):
            key, new = there, False
        elif at is None and given is None and self.latest is not None:
            key, new = self.latest, False
        else:
            taken = set(self._keys.values()) | set(self._ids.values())
            key = at if at is not None and at not in taken else max(taken, default=-1) + 1
            new = True
        if at is not None and (new or there is None):
            self._keys[at] = key
        if given is not None:
            self._ids.setdefault(given, key)
        self.latest = key
        return key, new

    def known(self, position: Any) -> int | None:
        """The key of the call last made at a position, None for a position no call came at."""
        return self._keys.get(position) if type(position) is int else None


NAME_SEPARATORS = ("-", "__", ".", "/", ":")


"""What a gateway puts between a server's label and a tool's name (`weather-get_weather`, `mcp__weather__get_weather`);
a single `_` is left out: it is inside too many tools' own names."""


def prefixed(name: Any, tool: Any) -> bool:
    """Whether `name` is the tool's name after a label and a separator: `weather-get_weather` for `get_weather`."""
    if not (isinstance(name, str) and isinstance(tool, str) and tool):
        return False
    return any(name.endswith(sep + tool) and len(name) > len(sep + tool) for sep in NAME_SEPARATORS)


def same_tool(a: Any, b: Any) -> bool:
    """Whether two names name one tool: the same name, or one of them the other after a server's label."""
    return (a == b and isinstance(a, str)) or prefixed(a, b) or prefixed(b, a)


def first_named(names: Sequence[Any], name: Any) -> int | None:
    """Where the first of `names` that names the tool `name` names is: the same name first, else the first with a
    server's label before it (or before `name`), as a gateway writes it; None when none does."""
    exact = next((i for i, n in enumerate(names) if n == name and isinstance(n, str)), None)
    if exact is not None:
        return exact
    return next((i for i, n in enumerate(names) if same_tool(n, name)), None)


# --- a trace's hops, paired -------------------------------------------------------------------------------------


@dataclass(eq=False)
class Exchange:
    """An MCP request (or notification) hop, the hop that answered it, and what ties it to the rest of the run."""

    request: Hop  # an mcp.request or mcp.notification
    reply: Hop | None = None  # mcp.response, mcp.error, or the error hop when no frame came back
    tool_call_id: str | None = None  # a tools/call: the model's call it carries out
    within: Exchange | None = None  # the request the server was handling when it sent this (progress, logs)


@dataclass(eq=False)
class ModelCall:
    request: Hop  # llm.request
    replies: list[Hop] = field(default_factory=list[Hop])  # llm.response, llm.chunk, llm.assembled, llm.error


@dataclass(eq=False)
class ToolCall:
    first: Hop  # translate.reverse, or the step-5 error when the arguments were refused
    hops: list[Hop] = field(default_factory=list[Hop])


MODEL_REPLIES = (LlmResponse, LlmChunk, LlmAssembled, LlmError)


def model_calls(hops: Iterable[Hop]) -> list[ModelCall]:
    """Each model request with what came back for it: a model's replies answer its latest request."""
    calls: list[ModelCall] = []
    for hop in hops:
        if is_a(hop, LlmRequest):
            calls.append(ModelCall(hop))
        elif is_a(hop, *MODEL_REPLIES) and calls:
            calls[-1].replies.append(hop)
    return calls


def tool_calls(hops: Iterable[Hop]) -> dict[str, ToolCall]:
    """Each tool call the model asked for, by its `tool_call_id`: from the app's reading of it (step 5) on."""
    calls: dict[str, ToolCall] = {}
    for hop in hops:
        if not hop.tool_call_id:
            continue
        if hop.tool_call_id not in calls:
            if not is_a(hop, TranslateReverse) and not (is_a(hop, Failure) and hop.step == 5):
                continue
            calls[hop.tool_call_id] = ToolCall(hop)
        calls[hop.tool_call_id].hops.append(hop)
    return calls


def exchanges(hops: Iterable[Hop]) -> list[Exchange]:
    """MCP frames paired by JSON-RPC id (per sending side); a tools/call tied to the model's call it carries out
    (the oldest translated call of that tool name not yet sent, `first_named`); what the server says unasked tied to
    the request it names (`progress_of`) or else the latest it is handling."""
    out: list[Exchange] = []
    pairing = Pairing()
    awaiting: list[tuple[str, str]] = []  # (tool name, tool_call_id) translated but not yet sent
    for hop in hops:
        frame = as_dict(hop.payload)  # a hop the recorder cut still pairs, by its kind and its ids
        if is_a(hop, TranslateReverse) and hop.target == "mcp_client" and hop.tool_call_id:
            awaiting.append((str(as_dict(frame.get("call_request")).get("name")), hop.tool_call_id))
        elif is_a(hop, McpRequest, McpNotification):
            ex = Exchange(hop)
            if hop.source == "mcp_server":
                named = getattr(hop, "progress_of", None)
                named = named if isinstance(named, (int, str)) else None  # an extra field: any JSON value
                handling = pairing.awaited("mcp_client", named) or pairing.latest("mcp_client")
                ex.within = handling.tag if handling is not None else None
            if frame.get("method") == "tools/call" and awaiting:
                i = first_named([n for n, _ in awaiting], as_dict(frame.get("params")).get("name"))
                ex.tool_call_id = awaiting.pop(i or 0)[1]
            out.append(ex)
            if is_a(hop, McpRequest):
                pairing.request(hop.source, hop.jsonrpc_id, str(frame.get("method")), tag=ex)
        elif is_a(hop, McpResponse, McpError):
            req = pairing.reply(hop.target, hop.jsonrpc_id)
            if req is not None:
                req.tag.reply = hop
        elif is_a(hop, Failure) and hop.step == 7 and hop.tool_call_id:  # the server never answered
            for req in pairing.unanswered:
                if req.tag.tool_call_id == hop.tool_call_id:
                    req.tag.reply = hop
                    pairing.close(req)
    return out
