"""Replaying a trace: a cursor to step through it, and an offline re-run against a replay model.

The replay model is one more transport behind the openai SDK: it serves the model responses
recorded in a trace, in order, and checks each request against the recorded one. The tools
really run again, on the demo server or on a server the user names; a recording of any other
server has its tool results served back by an in-process MCP server built from the recording, which
first asks the client again what the recorded server asked it during each call.
Wherever the re-run departs from the recording, a `replay.divergence` hop says so.

A trace is data, never instructions: nothing in it chooses a program to run, an environment
variable to read or a URL to contact. The settings a re-run takes from it are checked and bounded
by `RunOptions.from_settings`.
"""

from __future__ import annotations

import functools
import json
from collections import defaultdict, deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import anyio
import httpx2
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from pydantic import TypeAdapter, ValidationError

from flow.capture.recorder import Recorder
from flow.engine.host import GivenAnswers, Host, ReplayedAnswers, recorded_sampling
from flow.engine.loop import run_flow
from flow.engine.model import ModelConfig
from flow.engine.options import RunOptions, RunResult
from flow.servers.connect import open_session
from flow.servers.spec import ServerSpec
from flow.trace import hops
from flow.trace.files import TraceError, escape_controls
from flow.trace.model import Hop, Trace, TraceMeta, as_dict
from flow.trace.normalise import normalise
from flow.trace.payloads import (
    CallRequest,
    ClientResult,
    Clipped,
    LlmChunk,
    LlmError,
    LlmResponse,
    McpError,
    McpRequest,
    McpResponse,
    ReplayDivergence,
    ReplayDivergencePayload,
    ToolResult,
    TranslateReverse,
    is_a,
    typed,
)
from flow.trace.rounds import call_rounds, input_required
from flow.trace.steps import Phase
from flow.wire.reading import model_exchanges

# The replay model's address: never resolved or contacted (the replay transport answers every request), and
# nothing of a recording's own base URL reaches the client.
REPLAY_BASE_URL = "http://replay.invalid/v1"


# Where a re-run's tool results come from; "provider": hosted MCP, whose calls the recorded responses report
ToolsSource = Literal["demo", "server", "recorded", "provider"]


DEMO_SERVER_NAME = ServerSpec().describe()["name"]  # as a recording of the demo server names it


class Cursor:
    """A position in a trace, shared by the app and the CLI. Moves clamp at both ends."""

    def __init__(self, trace: Trace, index: int = 0) -> None:
        if not trace.hops:
            raise TraceError("the trace has no hops to step through")
        self.trace = trace
        self.index = 0
        self.goto(index)

    @property
    def current(self) -> Hop:
        return self.trace.hops[self.index]

    @property
    def so_far(self) -> list[Hop]:
        return self.trace.hops[: self.index + 1]

    @property
    def at_start(self) -> bool:
        return self.index == 0

    @property
    def at_end(self) -> bool:
        return self.index == len(self.trace.hops) - 1

    def goto(self, index: int) -> Hop:
        self.index = max(0, min(index, len(self.trace.hops) - 1))
        return self.current

    def next(self) -> Hop:
        return self.goto(self.index + 1)

    def prev(self) -> Hop:
        return self.goto(self.index - 1)

    def goto_seq(self, seq: int) -> Hop:
        for i, hop in enumerate(self.trace.hops):
            if hop.seq == seq:
                return self.goto(i)
        raise TraceError(f"no hop with seq {seq} (the trace has 1-{len(self.trace.hops)})")

    def goto_step(self, step: int) -> Hop:
        """The first hop of a numbered step."""
        for i, hop in enumerate(self.trace.hops):
            if hop.step == step:
                return self.goto(i)
        raise TraceError(f"step {step} does not occur in this trace (it has {', '.join(map(str, self.steps()))})")

    def goto_phase(self, phase: Phase) -> Hop:
        for i, hop in enumerate(self.trace.hops):
            if hop.phase == phase:
                return self.goto(i)
        raise TraceError(f"phase {phase} does not occur in this trace")

    def steps(self) -> list[int]:
        return sorted({h.step for h in self.trace.hops if h.step is not None})

    def hops_of_step(self, step: int) -> list[Hop]:
        return [h for h in self.trace.hops if h.step == step]


@dataclass
class Exchange:
    """One recorded model HTTP exchange."""

    request: Any
    status: int | None = None
    body: Any = None
    events: list[Any] | None = None
    transport_error: str | None = None


def recorded_exchanges(trace: Trace) -> list[Exchange]:
    """What the model was sent and answered, request by request, from the trace's reading of its model exchanges."""
    out: list[Exchange] = []
    for model in model_exchanges(trace.hops):
        ex = Exchange(request=as_dict(model.request.payload).get("body"))
        for hop in model.replies:
            match typed(hop):
                case LlmResponse(payload=p):
                    ex.status, ex.body = p.get("status", 200), p.get("body")
                case LlmError(payload=p) if "status" in p:  # the provider answered with an error status
                    ex.status, ex.body = p.get("status", 200), p.get("body")
                case LlmError(payload=p):  # no answer came: the connection failed
                    ex.transport_error = str(p.get("error") or "ConnectError")
                case LlmChunk(payload=p):
                    if ex.events is None:
                        ex.events, ex.status = [], p.get("status", 200)
                    ex.events.append(p.get("data"))
                case _:
                    pass  # the turn the app assembled from the events: the events are what is replayed
        out.append(ex)
    return out


def first_difference(a: Any, b: Any) -> str | None:
    """The JSON path of the first place two values differ, with both values, or None. Keys and texts come from
    the file: a control or bidirectional character shows as its escape, so the line reads as it is stored."""
    found = _first_difference(a, b)
    return None if found is None else escape_controls(found)


def _first_difference(a: Any, b: Any, path: str = "") -> str | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{path}.{key}".lstrip(".") + (": only in the recording" if key in a else ": only in the re-run")
            found = _first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):  # the shorter's end, if all else agrees, is below
            found = _first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path.lstrip('.')}: {len(a)} items recorded, {len(b)} now"
        return None
    if a != b:
        where = path.lstrip(".") or "(body)"
        if isinstance(a, str) and isinstance(b, str):  # texts: from a little before the first character that differs
            at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
            start = max(0, at - 15)
            cut = "…" if start else ""
            a, b = cut + a[start : start + 50], cut + b[start : start + 50]
        recorded, now = (escape_controls(json.dumps(v, ensure_ascii=False))[:60] for v in (a, b))
        return f"{where}: recorded {recorded}, now {now}"
    return None


# The failures of a model request the recorder writes by name (llm.error's "error"), as httpx raises them.
_TRANSPORT_ERRORS: dict[str, type[httpx2.TransportError]] = {
    error.__name__: error
    for error in (
        httpx2.ConnectError,
        httpx2.ConnectTimeout,
        httpx2.ReadTimeout,
        httpx2.WriteTimeout,
        httpx2.PoolTimeout,
        httpx2.ReadError,
        httpx2.WriteError,
        httpx2.CloseError,
        httpx2.RemoteProtocolError,
        httpx2.LocalProtocolError,
        httpx2.ProxyError,
        httpx2.UnsupportedProtocol,
    )
}


class _Events(httpx2.AsyncByteStream):
    def __init__(self, events: list[Any]) -> None:
        self._events = events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for data in self._events:
            text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
            # An event whose data says its type (Responses, Messages) is named by it, as those APIs send it: the
            # anthropic SDK reads only named events. A chunk of Chat Completions names no type.
            kind = data.get("type") if isinstance(data, dict) else None
            name = f"event: {kind}\n" if isinstance(kind, str) and kind.isprintable() and kind else ""
            await anyio.sleep(0)
            yield f"{name}data: {text}\n\n".encode()


@dataclass
class ReplayModelTransport(httpx2.AsyncBaseTransport):
    """Serves recorded responses by position; a request unlike the recorded one is a divergence."""

    exchanges: list[Exchange]
    recorder: Recorder
    times_vary: bool = True  # the tools are the demo server's or the app's own: only their date-times may differ
    served: int = 0
    divergences: list[str] = field(default_factory=list)

    def _diverge(self, text: str, *, request_number: int | None = None, tool_call_id: str | None = None) -> None:
        self.divergences.append(text)
        payload: ReplayDivergencePayload = {"divergence": text}
        if request_number is not None:
            payload["request_number"] = request_number
        if tool_call_id is not None:
            payload["tool_call_id"] = tool_call_id
        self.recorder.add(hops.diverged(payload, step=self.recorder.step))

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(await request.aread())
        n = self.served
        self.served += 1
        if n >= len(self.exchanges):
            message = f"the recording has no response for model request #{n + 1} (it holds {len(self.exchanges)})"
            self._diverge(message, request_number=n + 1)
            return httpx2.Response(500, json={"error": {"message": message, "type": "replay_exhausted"}})
        recorded = self.exchanges[n]
        times = self.times_vary
        diff = first_difference(normalise(recorded.request, times=times), normalise(body, times=times))
        if diff:
            self._diverge(f"model request #{n + 1} differs from the recording at {diff}", request_number=n + 1)
        if recorded.transport_error:
            # The recorded name only picks among these; any other name replays as a failed connection.
            error_type = _TRANSPORT_ERRORS.get(recorded.transport_error, httpx2.ConnectError)
            raise error_type(f"replayed {_plain(recorded.transport_error)}", request=request)
        if recorded.events is not None:
            return httpx2.Response(
                recorded.status or 200, headers={"content-type": "text/event-stream"}, stream=_Events(recorded.events)
            )
        return httpx2.Response(recorded.status or 200, json=recorded.body)


class ReplayError(Exception):
    """A re-run that cannot be done as asked; the message is one line."""


def _plain(text: Any, limit: int = 60) -> str:
    """A recorded name made safe for one terminal line: printable characters only, clipped."""
    shown = "".join(c if c.isprintable() and not 0xD800 <= ord(c) <= 0xDFFF else "?" for c in str(text)[: limit + 1])
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def recorded_server(meta: TraceMeta) -> str | None:
    """The MCP server a recording says it came from, when that is not the demo server; None for the demo
    server and for direct mode (whose tools are this program's own functions). Only used to describe it."""
    if meta.mode == "direct":
        return None
    settings = meta.settings if isinstance(meta.settings, dict) else {}
    server = meta.server if isinstance(meta.server, dict) else {}
    name = server.get("name", DEMO_SERVER_NAME)
    # The name is the server's own word for itself (any server may call itself the demo's name); how it was
    # reached is what tells a recording of another server.
    if settings.get("server_url") or server.get("transport") == "http":
        return f"a Streamable HTTP server calling itself {_plain(name)}"
    if settings.get("server_command"):
        return f"a stdio command whose server calls itself {_plain(name)}"
    if name != DEMO_SERVER_NAME or meta.imported is not None:
        return _plain(name) if name else "an unnamed server"
    return None


def replay_model(meta: TraceMeta) -> ModelConfig:
    """The model side of a re-run: the recorded model name (requests carry it), nothing else from the file."""
    name = meta.model.get("name") if isinstance(meta.model, dict) else None
    if name is None:
        name = "replay"
    if not isinstance(name, str) or not 0 < len(name) <= 256:
        raise TraceError(f"meta.model.name: {_plain(json.dumps(name))} is not a model name of 1 to 256 characters")
    return ModelConfig(backend="replay", model=name, base_url=REPLAY_BASE_URL, timeout_s=60.0)


def replay(
    trace: Trace,
    *,
    source: str = "",
    transport: Literal["stdio", "memory"] | None = None,
    server: ServerSpec | None = None,
) -> RunResult:
    """Re-run a recorded flow offline: the recorded model answers; the tools run again on the demo server
    (over the transport the recording used, unless `transport` says otherwise) or on `server`, which only a user names. A recording
    of another server with no `server` given replays the model side only: its tool results are served back.

    Raises `TraceError` for settings a re-run cannot take, `ReplayError` for a choice that cannot work."""
    meta = trace.meta
    options = RunOptions.from_settings({**meta.settings, "mode": meta.mode})
    model = replay_model(meta)
    other = recorded_server(meta)
    if meta.mode == "hosted":
        if server is not None or transport is not None:
            raise ReplayError(
                "the recording is hosted MCP: the provider was the MCP client, and its reports are served back from "
                "the recording, so --server and --transport do not apply"
            )
        tools: ToolsSource = "provider"
    else:
        tools, options = _where_tools_run(options, other=other, transport=transport, server=server)
    check = _ToolResultCheck(trace)
    # The user-named server's secrets are scrubbed as in a run.
    recorder = Recorder(secrets=server.secret_values() if server is not None else (), on_hop=check)
    check.transport = transport_ = ReplayModelTransport(
        recorded_exchanges(trace), recorder, times_vary=tools == "demo" or meta.mode == "direct"
    )

    again = functools.partial(run_flow, meta.question, options=options, model=model, recorder=recorder)

    async def rerun() -> RunResult:
        if tools != "recorded":  # "provider": no server at all; the recorded responses report the provider's calls
            return await again(model_transport=transport_, answerer=_answers(options, trace))
        spec = ServerSpec(transport="memory", server=recorded_mcp_server(trace, name=other or "recorded"))
        host = _replay_host(options, recorder, trace)
        callbacks = host.callbacks(options.host_capabilities) if host is not None else None
        async with open_session(
            spec, era=options.era, recorder=recorder, timeout_s=options.mcp_timeout_s, callbacks=callbacks
        ) as session:
            return await again(model_transport=transport_, session=session, session_host=host)

    result = anyio.run(rerun)
    _note_replay(result.trace, meta, transport_, tools=tools, other=other, source=source)
    return result


def _replay_host(options: RunOptions, recorder: Recorder, trace: Trace) -> Host | None:
    """The host that answers what the stand-in for a recorded server asks again: as the recording's options say, with
    no roots (a re-run never reads folders from a trace); each sampling request approved, edited or denied as the
    recording's user did (`recorded_sampling`)."""
    if not options.host_capabilities:
        return None
    return Host(recorder, _answers(options, trace), [], options.elicit_timeout_s, modern=options.era == "modern")


def _answers(options: RunOptions, trace: Trace) -> ReplayedAnswers:
    """What the replay's user answers: each sampling request as the recording's user did, each form as its options
    say."""
    return ReplayedAnswers(recorded_sampling(trace.hops), GivenAnswers(dict(options.answers), options.elicit_action))


def _where_tools_run(
    options: RunOptions,
    *,
    other: str | None,
    transport: Literal["stdio", "memory"] | None,
    server: ServerSpec | None,
) -> tuple[ToolsSource, RunOptions]:
    """Where a re-run's tool results come from, and the recording's options changed to get them there: the server a
    user named, the demo server (as the recording ran it), or, for a recording of another server, the recording."""
    if server is not None:
        if options.mode == "direct":
            raise ReplayError(
                "the recording is in direct mode: its tools are this program's own functions, "
                "so --server does not apply"
            )
        if transport is not None:
            raise ReplayError("--transport is for the demo server: a --server command runs over stdio, a URL over HTTP")
        return "server", replace(options, transport="stdio", server_fault="none").with_server(server)
    if other is None:
        # As the recording ran: `run` and the app default to stdio, and a replay does what the recording did.
        recorded = options.transport if options.transport in ("stdio", "memory") else "stdio"
        chosen = transport or ("stdio" if options.server_fault != "none" else recorded)
        if chosen == "memory" and options.server_fault == "die":
            raise ReplayError(
                "the recording made the demo server die (server_fault die), which in process would end "
                "this program: replay it with --transport stdio"
            )
        return "demo", replace(options, transport=chosen)
    if transport is not None:
        raise ReplayError(
            f"the recording came from {other}, not the demo server: --transport does not apply "
            "(name a server with --server, or leave both out to replay the model side only)"
        )
    return "recorded", replace(options, transport="memory", server_fault="none")


class _ToolResultCheck:
    """The recorder's `on_hop` in a re-run: each tool result against the recording's, a difference (or a result the
    recording lacks) a divergence on `transport`, which is set once it exists."""

    def __init__(self, trace: Trace) -> None:
        # Keyed by who handed the result on as well: a server's report of its function's return (tool → MCP server)
        # and the result the app got (MCP client → app) carry the same tool_call_id.
        self.recorded = {(h.source, h.tool_call_id): h for h in trace.hops if is_a(h, ToolResult) and h.tool_call_id}
        # A recording made before servers reported their tools' execution has no such hops: a re-run's are not
        # compared.
        self.has_reports = any(h.source == "tool" and h.target == "mcp_server" for h in trace.hops)
        self.transport: ReplayModelTransport | None = None

    def __call__(self, hop: Hop) -> None:
        if not is_a(hop, ToolResult) or not hop.tool_call_id:
            return
        if hop.target == "mcp_server" and not self.has_reports:
            return
        transport_ = self.transport
        assert transport_ is not None, "the re-run's model transport comes before its first hop"
        before = self.recorded.get((hop.source, hop.tool_call_id))
        if before is None:
            transport_._diverge(
                f"tool result for {hop.tool_call_id} has no counterpart in the recording", tool_call_id=hop.tool_call_id
            )
            return
        times = transport_.times_vary
        diff = first_difference(normalise(before.payload, times=times), normalise(hop.payload, times=times))
        if diff:
            transport_._diverge(
                f"tool result for {hop.tool_call_id} differs from the recording at {diff}",
                tool_call_id=hop.tool_call_id,
            )


def _note_replay(
    trace: Trace, meta: TraceMeta, t: ReplayModelTransport, *, tools: ToolsSource, other: str | None, source: str
) -> None:
    """Write into a re-run's trace what it replayed and how far it kept to the recording (a model request the
    recording has and the re-run did not make is a divergence too), and the recording's title, note and sample."""
    if t.served < len(t.exchanges) and not t.divergences:
        t._diverge(f"the re-run made {t.served} model requests; the recording has {len(t.exchanges)}")
    if tools == "recorded" and trace.meta.server is not None:
        trace.meta.server.pop("reused_session", None)
        trace.meta.server["replayed_from"] = other
    trace.meta.replay = {
        "source": source,
        # demo: the demo server ran them; server: one the user named; recorded: served back; provider: hosted MCP
        "tools": tools,
        "recorded_model_exchanges": len(t.exchanges),
        "served": t.served,
        "diverged": bool(t.divergences),
        "divergences": t.divergences,
    }
    for key in ("title", "note", "sample"):
        setattr(trace.meta, key, getattr(meta, key))


def _arguments_key(arguments: Any) -> str:
    return json.dumps(arguments or {}, sort_keys=True, ensure_ascii=False, default=str)


def _checked(model: Any, data: Any, what: str) -> Any:
    """A recorded value as the SDK type the server answers with, or an MCP error saying it is not one."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise MCPError(
            types.INTERNAL_ERROR, f"the recording's {what} is not valid MCP ({exc.error_count()} problems)"
        ) from None


@dataclass
class _Asked:
    """What a recorded server asked the client while one logical call ran: in 2025-11-25 its requests (method,
    params) in the middle of the call; in 2026-07-28 its input-required results, one a round, in order."""

    requests: list[tuple[str, Any]] = field(default_factory=list[tuple[str, Any]])
    rounds: list[Any] = field(default_factory=list[Any])


@dataclass
class _RecordedAnswers:
    """What a recording's server answered: its tool list, each call's results by tool and arguments (in recorded
    order), what it asked the client during each call (likewise), and the resources it read and prompts it fetched,
    by URI and name (the first answer of each)."""

    tools: Any = None
    results: dict[tuple[str, str], deque[dict[str, Any]]] = field(default_factory=lambda: defaultdict(deque))
    asked: dict[tuple[str, str], deque[_Asked]] = field(default_factory=lambda: defaultdict(deque))
    resources: dict[str, Any] = field(default_factory=dict)
    prompts: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, trace: Trace) -> _RecordedAnswers:
        out = cls()
        calls: dict[str, CallRequest] = {}
        for hop in trace.hops:
            match typed(hop):
                case TranslateReverse(payload=p) if hop.tool_call_id:
                    calls[hop.tool_call_id] = p["call_request"]
                case ClientResult(payload=p):
                    if "tools" in p and out.tools is None:
                        out.tools = p["tools"]
                    elif "uri" in p:
                        out.resources.setdefault(p["uri"], p.get("result"))
                    elif "prompt" in p:
                        out.prompts.setdefault(p["prompt"], p.get("result"))
                case ToolResult() | Clipped() if (
                    is_a(hop, ToolResult)
                    and hop.target == "app"  # what the client got, not a server's report of its function
                    and (request := calls.get(hop.tool_call_id or ""))
                ):
                    # One the recorder cut keeps its place, and fails the call it answers: its result is not known.
                    out.results[(request["name"], _arguments_key(request["arguments"]))].append(as_dict(hop.payload))
                case _:
                    pass
        out._read_asks(trace.hops)
        return out

    def _read_asks(self, recorded: list[Hop]) -> None:
        """Each logical tools/call's questions to the client, by its tool and arguments. A server's request belongs to
        the one call open when it came (none is guessed while several are); rounds go by request state
        (`call_rounds`), never by id."""
        rounds = call_rounds(recorded)
        open_calls: dict[str, tuple[tuple[str, str], _Asked]] = {}
        for hop in recorded:
            match typed(hop):
                case McpRequest(payload=p) if hop.source == "mcp_client" and p["method"] == "tools/call":
                    params = as_dict(p.get("params"))
                    placed = rounds.by_seq.get(hop.seq)
                    if (placed is not None and placed[1] > 1) or not isinstance(params.get("name"), str):
                        continue  # a later round of a call already counted, or no call this server can answer
                    asked = _Asked()
                    if placed is not None:
                        asked.rounds = [_result_of(r) for r in placed[0].replies if r is not None and input_required(r)]
                    key = (params["name"], _arguments_key(params.get("arguments")))
                    self.asked[key].append(asked)
                    open_calls[json.dumps(hop.jsonrpc_id)] = (key, asked)
                case McpRequest(payload=p) if hop.source == "mcp_server" and len(open_calls) == 1:
                    [(_, asked)] = open_calls.values()
                    asked.requests.append((p["method"], p.get("params")))
                case _ if is_a(hop, McpResponse, McpError) and hop.source == "mcp_server":  # whole or cut: answered
                    open_calls.pop(json.dumps(hop.jsonrpc_id), None)
                case _:
                    pass


def _result_of(hop: Hop) -> Any:
    """The result a response hop carries."""
    return as_dict(hop.payload).get("result")


_SERVER_REQUEST: TypeAdapter[types.ServerRequest] = TypeAdapter(types.ServerRequest)


async def _ask_again(ctx: Any, method: str, params: Any) -> None:
    """Send the client a request the recorded server sent it mid-call (2025-11-25), and wait for its answer, which
    the recording's result does not depend on. One the SDK cannot send, or the client refuses, is passed over."""
    try:
        request = _SERVER_REQUEST.validate_python({"method": method, "params": params})
        await ctx.session.send_request(
            request, types.EmptyResult, metadata=ServerMessageMetadata(related_request_id=ctx.request_id)
        )
    except (MCPError, ValidationError, ValueError):
        pass


def _recorded_error(error: Any) -> MCPError:
    """The MCP error a recorded call failed with, as far as the recording says it (an internal error if not)."""
    error = error if isinstance(error, dict) else {}
    code = error.get("code")
    code = code if isinstance(code, int) else types.INTERNAL_ERROR
    return MCPError(code, str(error.get("message") or "the recording holds no result for this call"))


def recorded_mcp_server(trace: Trace, *, name: str = "recorded") -> Server[Any]:
    """An MCP server that answers from a recording: its tool list, and each tools/call with the result recorded
    for the same tool and arguments (in recorded order), after asking the client what the recorded server asked it
    during that call (its requests in 2025-11-25, its input-required rounds in 2026-07-28); its resource reads and its
    prompt. It runs nothing."""
    answers = _RecordedAnswers.of(trace)
    waiting: dict[str, deque[Any]] = {}  # a call's input-required rounds still to give, by the state last given

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return _checked(types.ListToolsResult, {"tools": answers.tools or []}, "tool list")

    async def call_tool(
        ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        key = (params.name, _arguments_key(params.arguments))
        rounds = waiting.pop(params.request_state, None) if params.request_state is not None else None
        if rounds is None:
            asked = answers.asked[key].popleft() if answers.asked.get(key) else _Asked()
            for method, asked_params in asked.requests:
                await _ask_again(ctx, method, asked_params)
            rounds = deque(asked.rounds)
        if rounds:
            needs = _checked(types.InputRequiredResult, rounds.popleft(), "input-required result")
            if needs.request_state is not None:
                waiting[needs.request_state] = rounds
            return needs
        queue = answers.results.get(key)
        if not queue:
            raise MCPError(types.INVALID_PARAMS, f"the recording has no result for {params.name} with these arguments")
        recorded = queue.popleft()
        if "result" in recorded:
            return _checked(types.CallToolResult, recorded["result"], "tool result")
        raise _recorded_error(recorded.get("error"))

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(uri=uri, name=uri) for uri in answers.resources])

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        if str(params.uri) not in answers.resources:
            raise MCPError(types.INVALID_PARAMS, f"the recording did not read the resource {params.uri}")
        return _checked(types.ReadResourceResult, answers.resources[str(params.uri)], "resource")

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt(name=prompt) for prompt in answers.prompts])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name not in answers.prompts:
            raise MCPError(types.INVALID_PARAMS, f"the recording did not fetch the prompt {params.name}")
        return _checked(types.GetPromptResult, answers.prompts[params.name], "prompt")

    return Server(
        name,
        version="recorded",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


def same_steps(a: Trace, b: Trace) -> bool:
    """Do two traces go through the same steps and kinds in the same order?"""
    return [(h.step, h.kind) for h in a.hops] == [(h.step, h.kind) for h in b.hops if not is_a(h, ReplayDivergence)]
