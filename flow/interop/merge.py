"""What the proxies recorded of one app's run (`python -m flow proxy`, `proxy-http`, `proxy-model`), merged into one
trace on one clock, with the steps the app would have given its hops.

The wire is as recorded: MCP frames (through `jsonrpc_log`), the model's request and response bodies and streamed
events. What happened inside the app is inferred, and every inferred hop says so in its `inferred` field and its
summary: the question (the first request's last user message), the forward translation (the listed MCP tools beside
the functions the first request sent), the assembled stream, the reverse translation (which tool call of the model a
`tools/call` carries out: matched by name and arguments, or by name alone, among the calls asked before it), the
result the app received (with the text its next request sent back under that `tool_call_id`), and the answer shown.

Hosted MCP (a request names MCP servers for the provider to call): the provider's MCP client makes the calls, so no
tools/call carries out a call of the app's and nothing is translated; each model reply that reports MCP exchanges is
followed by the `mcp.reported` hops rebuilt from its items or blocks, paired with the frames a `proxy-http` in front of
the server saw of the same exchange.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, assert_never

from pydantic import TypeAdapter, ValidationError

from flow.interop.common import Hops, NothingRecorded, finish, json_line, json_or_text, quoted
from flow.interop.jsonrpc_log import import_jsonrpc_log
from flow.text.apis import API_WORDS
from flow.text.errors import EMPTY_ANSWER, ErrorCode, error_line
from flow.text.provider import names_a_field, provider_detail, provider_line
from flow.text.recordings import APP_EXITED
from flow.trace import hops
from flow.trace.files import TraceError
from flow.trace.hops import Draft
from flow.trace.model import Hop, ImportInfo, Trace, TraceMeta, as_dict, as_list
from flow.trace.pairing import same_tool
from flow.trace.payloads import (
    ChatRequest,
    JsonObject,
    LlmChunkPayload,
    LlmErrorPayload,
    LlmRequestPayload,
    LlmResponsePayload,
    McpError,
    McpRequestPayload,
    McpResponse,
    Payload,
    ToolCall,
    ToolInvoke,
    ToolResult,
    is_a,
    payload_of,
    typed,
)
from flow.trace.stats import RETRY_HEADER, retry_number
from flow.trace.steps import Step
from flow.trace.summaries import counted
from flow.wire import api_for_path
from flow.wire.base import Call, ChoicePlaces, ItemPlaces, TextPart, Turn, WireApi, WireProblem
from flow.wire.chat import CHAT
from flow.wire.hosted import approval_requests, exchanges, hosted_servers, reported_drafts
from flow.wire.recorded import conversation, sent_results, tool_names

MODEL_TRANSPORT = "model-http"  # the header's transport in a recording of `proxy-model`


Recording = tuple[str, str]  # a file's name and its text

UNSEEN_END = (
    "no exit code (a plain merge): whether the app showed the user the answer, or crashed first, is not recorded, "
    "so the trace draws no answer to the user and its outcome is unknown; `record` gives the exit code"
)


def recording_kind(text: str) -> str:
    """ "model" for a recording of the model proxy, else "mcp" (an MCP proxy's, or any JSON-RPC log)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        header = json.loads(first)
    except ValueError:
        return "mcp"
    proxy = header.get("mcp_flow_proxy") if isinstance(header, dict) else None
    return "model" if isinstance(proxy, dict) and proxy.get("transport") == MODEL_TRANSPORT else "mcp"


@dataclass
class _Exchange:
    """One model call as the model proxy recorded it."""

    n: int
    request: dict[str, Any] = field(default_factory=dict)
    response: dict[str, Any] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    chunks: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> Any:
        """The response's HTTP status as the proxy recorded it (a trace's check refuses one that is not a number)."""
        return self.response.get("status")


def _model_log(text: str, name: str) -> tuple[dict[str, Any], list[_Exchange], list[str]]:
    """The header, the exchanges with a request, and the proxy's notes (what crossed, or failed to, outside one)."""
    header: dict[str, Any] = {}
    exchanges: dict[int, _Exchange] = {}
    notes: list[str] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        entry = json_line(raw, f"{name} line {lineno}")
        if not isinstance(entry, dict):
            raise TraceError(f"{name} line {lineno}: expected a JSON object")
        if isinstance(entry.get("mcp_flow_proxy"), dict):
            header = entry["mcp_flow_proxy"]
            continue
        n, event, t = entry.get("exchange"), entry.get("event"), entry.get("timestamp")
        if "mcp_flow_proxy_end" in entry:
            continue
        if isinstance(entry.get("note"), str) and n is None:
            notes.append(f"line {lineno}: {entry['note'][:200]}")
            continue
        if type(n) is not int or not isinstance(t, (int, float)) or isinstance(t, bool):
            raise TraceError(f"{name} line {lineno}: not a model proxy's line (no exchange number and timestamp)")
        ex = exchanges.setdefault(n, _Exchange(n))
        if event == "request":
            ex.request = entry
        elif event == "response":
            ex.response = entry
        elif event == "body":
            ex.body = entry
        elif event == "chunk":
            ex.chunks.append(entry)
        elif event == "end":
            ex.end = entry
        else:
            raise TraceError(f"{name} line {lineno}: unknown event {quoted(event)}")
    if not header:
        raise TraceError(f"{name}: not a recording of python -m flow proxy-model (no header line)")
    return header, [exchanges[n] for n in sorted(exchanges) if exchanges[n].request], notes


_CHAT_REQUEST: TypeAdapter[ChatRequest] = TypeAdapter(ChatRequest)


def _chat_request(body: Any) -> ChatRequest | str:
    """The request body as a hop holds it: a chat request, or its JSON as text when it is not one (lenient at the
    wire: what a client sent must not stop a merge)."""
    if isinstance(body, str):
        return body
    try:
        return _CHAT_REQUEST.validate_python(body, strict=True)
    except ValidationError:
        return json.dumps(body, ensure_ascii=False)


@dataclass
class _Call:
    """A tool call the model asked for, waiting for the tools/call that carries it out."""

    tool_call: ToolCall
    rnd: int
    t_ms: float
    taken: bool = False
    api_call: JsonObject | None = None  # the call as Responses or Messages wrote it

    @property
    def name(self) -> str:
        return self.tool_call["function"]["name"]

    @property
    def arguments(self) -> Any:
        return json_or_text(self.tool_call["function"]["arguments"])


Failure = tuple[str, str, str]  # what failed in a word or two, and the line in English and Chinese


@dataclass
class _Event:
    """A hop to add, at its times on the merged clock (placed by when it ended) and in its round; `inferred` says
    what was guessed, and how, for a hop that crossed no wire the proxies saw. Whether it shows the run failing (and
    how the app would say so), or the model answering, which a run that failed before goes on from."""

    draft: Draft[Payload]
    t_start_ms: float
    t_end_ms: float
    rnd: int = 0
    inferred: str | None = None
    failure: Failure | None = None
    answered: bool = False
    # Hosted MCP: a model reply that reports MCP exchanges, with the request it answers and the body that reports them
    reports: tuple[_Event, Any] | None = None
    seq: int = 0  # its hop's, once added

    @property
    def t_ms(self) -> float:
        return self.t_end_ms

    def add_to(self, out: Hops) -> None:
        out.add(self.draft, t_start_ms=self.t_start_ms, t_end_ms=self.t_end_ms, rnd=self.rnd, inferred=self.inferred)
        self.seq = out.hops[-1].seq


Clock = Callable[[dict[str, Any]], float]  # a model proxy's line's time, in ms on the merged clock


def _headers(entry: dict[str, Any]) -> dict[str, str]:
    return {str(k): str(v) for k, v in as_dict(entry.get("headers")).items()}


class _Merge:
    """The state of one merge: the model's tool calls still to be carried out, what the backfills sent back, and
    what the trace's meta will say."""

    def __init__(self, name: str, conversation: int | None = None) -> None:
        self.name = name
        self.conversation = conversation  # which of several in the model recording, from 1; None: the last
        # When there are several: the MCP frames kept are the set-up (before the first model request) and those that
        # crossed from the chosen conversation's first request to the next one's (ms on the merged clock).
        self.window: tuple[float, float, float] | None = None
        self.notes: list[str] = []
        self.calls: list[_Call] = []
        self.asides: set[int] = set()  # the model exchanges made for an MCP server (sampling), by number
        self.tool_messages: dict[str, Any] = {}  # the content each backfill sent back, by tool_call_id
        self.question: str | None = None
        self.answer: str | None = None
        self.model: dict[str, Any] = {}
        self.base_url = ""
        # The first model request that sent functions, and those functions: the forward translation is inferred there.
        self.first_offer: tuple[_Event, list[JsonObject]] | None = None
        self.api: WireApi = CHAT  # the model API the app spoke: the first recorded request's
        self.hosted: list[dict[str, Any]] = []  # the MCP servers the requests ask the provider to call (hosted MCP)

    # --- the model's side ----------------------------------------------------------------------------------------

    def model_side(self, recording: Recording | None, t0: float) -> list[_Event]:
        """The model proxy's recording as events: its notes kept, its exchanges of one conversation stepped."""
        if recording is None:
            return []
        header, exchanges, notes = _model_log(recording[1], recording[0])
        self.notes += notes
        return self.model_events(exchanges, t0, str(header.get("upstream") or ""))

    def model_events(self, exchanges: list[_Exchange], t0: float, base_url: str) -> list[_Event]:
        def ms(entry: dict[str, Any]) -> float:
            return (float(entry.get("timestamp") or t0) - t0) * 1000

        chats = self.one_conversation(self.api_exchanges(exchanges), ms)
        self.base_url = base_url
        events: list[_Event] = []
        rnd, attempt, previous = 0, 0, None
        for ex in chats:
            if ex.n in self.asides:
                events += self.aside_events(ex, rnd, ms)
                continue
            attempt = _attempt(ex, previous, attempt)
            rnd += 0 if attempt else 1  # the SDK sending a call again is the same call, in the same round
            previous = ex
            asked = self.request_event(ex, rnd, attempt, ms)
            events += [asked, *self.answer_events(ex, asked, ms)]
        return events

    def api_exchanges(self, exchanges: list[_Exchange]) -> list[_Exchange]:
        """The exchanges of the model API the app spoke (the first request's on a path one of them serves); the others
        are recorded, not stepped, and a note says so."""
        apis = [api_for_path(str(ex.request.get("path") or "").split("?", 1)[0]) for ex in exchanges]
        self.api = next((api for api in apis if api is not None), CHAT)
        others = [ex for ex, api in zip(exchanges, apis, strict=True) if api is not self.api]
        if others:
            first = others[0].request
            self.notes.append(
                f"{counted(len(others), 'model exchange')} on other paths (the first: {first.get('method')} "
                f"{quoted(first.get('path'))}): recorded, not stepped (only {API_WORDS[self.api.name]['api']} is)"
            )
        return [ex for ex in exchanges if ex not in others]

    def request_event(self, ex: _Exchange, rnd: int, attempt: int, ms: Clock) -> _Event:
        """The request as the model proxy saw it (a backfill when it sends tool results back); the first one's last
        user message is the question."""
        req = ex.request
        body = req.get("body")
        results = sent_results(body, self.api)
        for call_id, content in results:
            self.tool_messages.setdefault(call_id, content)
        step = Step.BACKFILL if results else Step.ASK_MODEL
        if self.question is None:
            self.question = _last_user_text(body, self.api)
            self.model = {"name": as_dict(body).get("model"), "base_url": self.base_url}
        for server in hosted_servers(body):
            if all(server["url"] != known["url"] for known in self.hosted):
                self.hosted.append(server)
        payload: LlmRequestPayload = {
            "method": str(req.get("method") or "POST"),
            "url": self.base_url.rstrip("/") + str(req.get("path") or "").removeprefix("/v1"),
            "headers": _headers(req),
            "body": _chat_request(body),
        }
        again = f", retry {attempt} of the same call" if attempt else ""
        carries = self.api.request_summary(body) + again
        t_req = ms(req)
        sent = hops.model_request(payload, step=step, path=str(req.get("path")), carries=carries)
        asked = _Event(sent, t_req, t_req, rnd)
        tools = payload["body"].get("tools") if isinstance(payload["body"], dict) else None
        if tools and self.first_offer is None:
            self.first_offer = (asked, tools)
        return asked

    def aside_events(self, ex: _Exchange, rnd: int, ms: Clock) -> list[_Event]:
        """A model call the host made for an MCP server (sampling) while the app's conversation waited on a tool
        call: the request and its answer, drawn between the MCP client and the model in step 6."""
        req, ask = ex.request, hops.server_ask("sampling/createMessage")
        body = req.get("body")
        payload: LlmRequestPayload = {
            "method": str(req.get("method") or "POST"),
            "url": self.base_url.rstrip("/") + str(req.get("path") or "").removeprefix("/v1"),
            "headers": _headers(req),
            "body": _chat_request(body),
            "for_server": ask,
        }
        sent = hops.model_request(
            payload, step=Step.CALL_TOOL, path=str(req.get("path")), carries=self.api.request_summary(body)
        )
        asked = _Event(sent, ms(req), ms(req), rnd, inferred=_ASIDE)
        if _failed_status(ex) or not ex.response:
            return [asked, self.failed_event(ex, asked, ms)]
        got_body = (ex.body or {}).get("body")
        answered: LlmResponsePayload = {"status": ex.status, "headers": _headers(ex.response), "body": got_body}
        answered["for_server"] = ask
        got = hops.model_response(answered, step=Step.CALL_TOOL, summary=self.api.response_summary(got_body))
        return [asked, _Event(got, asked.t_start_ms, ms(ex.body or ex.end or ex.response), rnd, inferred=_ASIDE)]

    def one_conversation(self, chats: list[_Exchange], ms: Clock) -> list[_Exchange]:
        """The exchanges of one conversation: a long-running model proxy records several, and one trace shows one
        (the last, unless `conversation` names another), saying so in a note. A call the host made for an MCP server
        in the middle of one (sampling: no tools, continuing no conversation) goes with the conversation it came in."""
        runs, asides = _asides(_conversations(chats, self.api))
        self.asides = {ex.n for run in asides for ex in run}
        if self.conversation is None and len(runs) < 2:
            return chats
        chosen = len(runs) if self.conversation is None else self.conversation
        if not 1 <= chosen <= len(runs):
            raise TraceError(
                f"{self.name}: conversation {chosen}: the model recording holds {counted(len(runs), 'conversation')}"
                + (" (numbered from 1)" if chosen < 1 else "")
            )
        if len(runs) < 2:
            return chats
        run = runs[chosen - 1]
        starts = [ms(r[0].request) for r in runs]
        self.window = (starts[0], starts[chosen - 1], starts[chosen] if chosen < len(runs) else float("inf"))
        which = "the last" if chosen == len(runs) else ("the first" if chosen == 1 else f"number {chosen}")
        self.notes.append(
            f"the model recording holds {len(runs)} conversations (a request that does not resend the one before it "
            f"starts a new one): this trace is {which}, {chosen} of {len(runs)} (exchanges {run[0].n} to {run[-1].n}), "
            "with the MCP set-up and the frames that crossed during it; merge --conversation N shows another"
        )
        return run

    def answer_events(self, ex: _Exchange, asked: _Event, ms: Clock) -> list[_Event]:
        """What came back for a request: a failure, the streamed events and the message assembled from them, or a
        whole response; the tool calls it asks for wait for the tools/calls that carry them out."""
        if _failed_status(ex) or not ex.response:
            return [self.failed_event(ex, asked, ms)]
        match self.api.places:
            case ItemPlaces():  # a turn of typed parts, read by its API's own reader
                return self.api_answer(ex, asked, ms)
            case ChoicePlaces():
                pass  # its choices are read below, streamed or whole, leniently
            case _ as never:
                assert_never(never)
        events, message, step = self.streamed(ex, asked, ms) if ex.chunks else self.whole(ex, asked, ms)
        if message is None:  # cut short: nothing to read the calls or the answer from
            return events
        for call in as_list(message.get("tool_calls")):
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                self.calls.append(_Call(_tool_call(call), asked.rnd, events[-1].t_end_ms))
        if step == Step.MODEL_ANSWER and isinstance(message.get("content"), str):
            self.answer = message["content"]
        return events

    def api_answer(self, ex: _Exchange, asked: _Event, ms: Clock) -> list[_Event]:
        """A Responses or Messages answer, read by its API as the app reads it: the calls it asks for wait for their
        tools/calls, its text is the answer."""
        events, turn = self.api_streamed(ex, asked, ms) if ex.chunks else self.api_whole(ex, asked, ms)
        if turn is None:
            return events
        for call in turn.calls:
            self.calls.append(_Call(_call_of(call), asked.rnd, events[-1].t_end_ms, api_call=call.raw))
        if not turn.calls and turn.text is not None:
            self.answer = turn.text
        return events

    def api_streamed(self, ex: _Exchange, asked: _Event, ms: Clock) -> tuple[list[_Event], Turn | None]:
        """The streamed events, labelled by the API's one stream reader, and the turn the app assembled from them; a
        stream the app cannot read (cut short, an error event) is the failure the app would meet."""
        stream = self.api.stream()
        labels = [stream.add(chunk.get("data")) for chunk in ex.chunks]
        step = Step.DECISION if stream.decided else Step.MODEL_ANSWER
        events = _chunk_events(ex, asked, step, labels, ms)
        t_end = ms(ex.chunks[-1])
        try:
            turn = stream.turn()
        except WireProblem as problem:
            if (asks := self.approval_asked(problem, ex, asked, t_end)) is not None:
                return [*events, asks], None
            en, zh = (error_line(problem.code, lang, **problem.params) for lang in ("en", "zh"))  # type: ignore[arg-type]
            failed = hops.model_failed({"error": "malformed response", "reason": en}, step=step, summary=en)
            said = f"the stream could not be read as the app reads it ({problem.code})"
            events.append(_Event(failed, t_end, t_end, asked.rnd, said, failure=("malformed response", en, zh)))
            return events, None
        line = "assembled " + self.api.turn_summary(turn)
        assembled = hops.assembled(turn.raw, turn.finish, decided=bool(turn.calls), summary=line)
        said = "assembled here from the streamed events, as a client does"
        reports = (asked, turn.raw) if exchanges(turn.raw) else None
        events.append(_Event(assembled, t_end, t_end, asked.rnd, said, answered=True, reports=reports))
        return events, turn

    def approval_asked(self, problem: WireProblem, ex: _Exchange, asked: _Event, t: float) -> _Event | None:
        """A streamed Responses turn with no text and no call of the app's that asks the app to approve the
        provider's MCP calls instead (hosted MCP): no failure, the app answers it; the completed response's output,
        with the exchanges it reports."""
        done = (as_dict(c.get("data")) for c in reversed(ex.chunks))
        response = next((as_dict(d.get("response")) for d in done if d.get("type") == "response.completed"), {})
        message = {"id": response.get("id"), "output": response.get("output")}
        if problem.code != "no_text_no_calls" or not approval_requests(message):
            return None
        line = "assembled " + self.api.response_summary(message)
        status = response.get("status")
        assembled = hops.assembled(message, str(status) if status else None, decided=True, summary=line)
        said = "assembled here from the streamed events, as a client does"
        reports = (asked, message) if exchanges(message) else None
        return _Event(assembled, t, t, asked.rnd, said, answered=True, reports=reports)

    def api_whole(self, ex: _Exchange, asked: _Event, ms: Clock) -> tuple[list[_Event], Turn | None]:
        """A whole response, and its turn; one the app cannot read is a failure when the recording can say so."""
        body = (ex.body or {}).get("body", (ex.body or {}).get("body_too_large"))
        payload: LlmResponsePayload = {"status": ex.status, "headers": _headers(ex.response), "body": body}
        got = hops.model_response(payload, step=self.api.response_step(body), summary=self.api.response_summary(body))
        turn, failure = None, None
        # A hosted MCP turn may ask only for the app's approval of the provider's calls: an answer, not a failure.
        approval = bool(approval_requests(body))
        try:
            turn = self.api.read(body)
        except WireProblem as problem:
            if not (approval and problem.code == "no_text_no_calls"):
                failure = self._unread(ex, body, ex.end.get("error"), problem)
        t = ms(ex.body or ex.end or ex.response)
        reports = (asked, body) if exchanges(body) else None
        answered = turn is not None or (approval and failure is None)
        return [_Event(got, asked.t_start_ms, t, asked.rnd, failure=failure, answered=answered, reports=reports)], turn

    def failed_event(self, ex: _Exchange, asked: _Event, ms: Clock) -> _Event:
        """An HTTP error status, or no answer at all (the proxy says why)."""
        status, error = ex.status, ex.end.get("error")
        body = (ex.body or {}).get("body")
        payload: LlmErrorPayload = {
            "status": status if type(status) is int else None,
            "headers": _headers(ex.response),
            "body": body,
        }
        if error:
            payload["error"] = "proxy"
            payload["message"] = str(error)
        summary = f"HTTP {status}" if type(status) is int else str(error or "no answer")
        failed = hops.model_failed(payload, step=asked.draft.step, summary=summary)
        t = ms(ex.end or ex.body or ex.response or ex.request)
        return _Event(failed, asked.t_start_ms, t, asked.rnd, failure=self._model_failure(status, body, error))

    def streamed(self, ex: _Exchange, asked: _Event, ms: Clock) -> tuple[list[_Event], dict[str, Any] | None, Step]:
        """The streamed events, labelled by the one stream assembler, and the message the app assembled from them
        (None, and a failure, when the stream was cut short)."""
        stream = CHAT.stream()
        labels = [stream.add(chunk.get("data")) for chunk in ex.chunks]
        message, finish = stream.message(), stream.finish
        step = Step.DECISION if message.get("tool_calls") else Step.MODEL_ANSWER
        events = _chunk_events(ex, asked, step, labels, ms)
        t_end = ms(ex.chunks[-1])
        unrecorded = sum("data" not in chunk for chunk in ex.chunks)  # too large for the proxy to keep
        if finish is None and not unrecorded:  # cut short: no answer to assemble, as a client reading fails
            events.append(_cut_short(ex, str(message.get("content") or ""), step, t_end, asked.rnd))
            return events, None, step
        cut = stream.cut()
        said = "assembled here from the streamed deltas, as a client does" + (
            f" (from those recorded: {counted(unrecorded, 'event')} too large to keep)" if unrecorded else ""
        )
        line = "assembled " + CHAT.response_summary({"choices": [{"message": message, "finish_reason": finish}]})
        assembled = hops.assembled(message, finish, decided=step == Step.DECISION, summary=line)
        inferred = said + (f"; cut to the limit of one value: {cut}" if cut else "")
        events.append(_Event(assembled, t_end, t_end, asked.rnd, inferred, answered=True))
        return events, message, step

    def whole(self, ex: _Exchange, asked: _Event, ms: Clock) -> tuple[list[_Event], dict[str, Any], Step]:
        """A whole response, and its message; one the app cannot read is a failure when the recording can say so."""
        body = (ex.body or {}).get("body", (ex.body or {}).get("body_too_large"))
        message = _message_of(body)
        step = CHAT.response_step(body)
        payload: LlmResponsePayload = {
            "status": ex.status,
            "headers": _headers(ex.response),
            "body": body,
        }
        got = hops.model_response(payload, step=step, summary=CHAT.response_summary(body))
        failure = None if message else self._unread(ex, body, ex.end.get("error"))
        t = ms(ex.body or ex.end or ex.response)
        return [_Event(got, asked.t_start_ms, t, asked.rnd, failure=failure, answered=bool(message))], message, step

    def _unread(self, ex: _Exchange, body: Any, error: Any, problem: WireProblem | None = None) -> Failure | None:
        """How the app would tell an answer with no message it can read (`problem`: what its API's reader found);
        None when the recording cannot say (a body too large to record, which the app may well have read)."""
        if error or ex.body is None:
            return self._model_failure(None, None, error)
        if "body" not in ex.body:
            return None
        code: ErrorCode
        params: dict[str, Any] = {}
        if problem is not None:
            code, params = problem.code, problem.params  # type: ignore[assignment]
        elif not isinstance(body, dict):
            code, params = "body_not_json", {"excerpt": str(body)[:80]}
        elif not as_list(body.get("choices")):
            code, params = "no_choices", {"excerpt": quoted(body.get("choices"), 80)}
        else:
            code = "no_message"
        return "malformed response", error_line(code, "en", **params), error_line(code, "zh", **params)

    def _model_failure(self, status: Any, body: Any, error: Any) -> Failure:
        """How the app would tell a model call that failed: an HTTP error status with what its body says, or no
        answer at all."""
        if type(status) is int:
            full = provider_detail(body)
            detail, more_lines = provider_line(full)
            said = {"detail": detail, "more_lines": more_lines, "refused": status >= 500 and names_a_field(full)}
            en, zh = (error_line("model_http", lang, status=status, **said) for lang in ("en", "zh"))
            return f"HTTP {status}", en, zh
        cause = str(error or "no answer was recorded")[:200]
        url = self.base_url or "(unknown)"
        en, zh = (error_line("model_unreachable", lang, url=url, cause=cause) for lang in ("en", "zh"))
        return "no answer", en, zh

    # --- the MCP side ----------------------------------------------------------------------------------------------

    def mcp_side(self, recording: Recording | None, t0: float) -> tuple[Trace | None, list[_Event], list[str]]:
        """The MCP proxy's recording, read as a JSON-RPC log, as events on the merged clock (of one conversation's
        time when the model recording holds several), and the log's notes."""
        if recording is None:
            return None, [], []
        try:
            imported = import_jsonrpc_log(recording[1], name=recording[0])
        except NothingRecorded as exc:  # the server was started, and nothing crossed: the model's side still counts
            return None, [], [str(exc)]
        started = imported.meta.started_at
        offset = (dt.datetime.fromisoformat(started).timestamp() - t0) * 1000 if started else 0.0
        frames = imported.hops
        if self.window is not None:
            set_up_until, start, end = self.window
            frames = [h for h in frames if h.t_end_ms + offset < set_up_until or start <= h.t_end_ms + offset < end]
        notes = [
            n
            for n in (imported.meta.imported.unmapped if imported.meta.imported else [])
            if not n.startswith("a JSON-RPC log holds only MCP frames")
        ]
        return imported, self.mcp_events(frames, offset), notes

    def match(self, name: str, arguments: Any, t_ms: float) -> tuple[_Call | None, str]:
        """The model's tool call a tools/call carries out: the earliest not yet taken, asked before it, with its
        name and arguments; else with its name alone; and how it was matched. A name is the tool's own first, else
        the tool's after a server's label (`same_tool`: a gateway offers the model `weather-get_weather`)."""
        asked = [c for c in self.calls if not c.taken and same_tool(c.name, name) and c.t_ms <= t_ms + 1]
        asked.sort(key=lambda c: c.name != name)  # stable: the exact names first, each in the order asked
        exact = [c for c in asked if c.arguments == arguments]
        if exact:
            exact[0].taken = True
            return exact[0], "matched by name and arguments"
        if asked:
            asked[0].taken = True
            return asked[0], "matched by name only (the arguments differ)"
        return None, ""

    def mcp_events(self, frames: list[Hop], offset_ms: float) -> list[_Event]:
        """The MCP hops on the merged clock; around each tools/call the model asked for, the app's hops."""
        events: list[_Event] = []
        carried: dict[int | str | None, tuple[_Call, str]] = {}  # the model's call a tools/call carries out, by id
        for hop in frames:
            t = hop.t_end_ms + offset_ms
            request = payload_of(hop, "mcp.request")
            if request is not None and request["method"] == "tools/call":
                reverse = self.reverse(hop, request, t, carried)
                events += [reverse] if reverse is not None else []
            paired = carried.get(hop.jsonrpc_id) if hop.step in (Step.CALL_TOOL, Step.TOOL_RESULT) else None
            call = paired[0] if paired is not None else None
            tool_call_id = call.tool_call["id"] if call is not None and is_a(hop, ToolInvoke, ToolResult) else None
            placed = hops.recorded(hop, tool_call_id=tool_call_id)
            rnd = call.rnd if call is not None else hop.round
            events.append(_Event(placed, hop.t_start_ms + offset_ms, t, rnd, failure=_mcp_failure(hop)))
            if paired is not None and is_a(hop, McpResponse, McpError) and hop.step == Step.TOOL_RESULT:
                events.append(self.received(hop, paired, t))
            listed = None if self.hosted else _listed(hop, t)  # hosted MCP: the list went to the provider
            events += [listed] if listed is not None else []
        return events

    def reverse(
        self, hop: Hop, request: McpRequestPayload, t: float, carried: dict[int | str | None, tuple[_Call, str]]
    ) -> _Event | None:
        """The reverse translation a tools/call carries out, when a tool call of the model matches it."""
        params = as_dict(request.get("params"))
        name = str(params.get("name") or "")
        arguments = as_dict(params.get("arguments"))
        call, how = self.match(name, arguments, t)
        if call is None:
            if not self.hosted:  # hosted MCP: the provider's client made it, for no call of the app's
                self.notes.append(
                    f"tools/call {name} (id {quoted(hop.jsonrpc_id)}): no tool call of the model matches it"
                )
            return None
        carried[hop.jsonrpc_id] = (call, how)
        tool_call_id = call.tool_call["id"]
        draft = hops.reverse_translation(
            call.tool_call, {"name": name, "arguments": arguments}, target="mcp_client", api_call=call.api_call
        )
        how_inferred = f"the tools/call that carries out the model's call {tool_call_id}: {how}"
        return _Event(draft, t, t, call.rnd, how_inferred)

    def received(self, hop: Hop, paired: tuple[_Call, str], t: float) -> _Event:
        """The result as the app received it (step 7): what its next request sent back, when it did."""
        call, how = paired
        tool_call_id = call.tool_call["id"]
        sent = self.tool_messages.get(tool_call_id)
        backfilled = (
            "its text is what the next model request sent back" if sent is not None else "no later request sent it back"
        )
        draft = hops.call_received(hop, sent, call_id=tool_call_id)
        return _Event(draft, t, t, call.rnd, f"for the model's call {tool_call_id} ({how}); {backfilled}")

    # --- the trace -------------------------------------------------------------------------------------------------

    def add_reported(self, out: Hops, reply: _Event, asked: _Event, body: Any) -> None:
        """Hosted MCP: the exchanges a model reply reports, as `mcp.reported` hops after it, each paired with the
        frames recorded since its request of the same exchange. The report has no times: each is placed, with no
        duration, when the reply that told of it arrived."""
        drafts = reported_drafts(self.api.name, body, response_seq=reply.seq, seen=out.hops, since_seq=asked.seq)
        for draft in drafts:
            out.add(draft, t_start_ms=reply.t_end_ms, t_end_ms=reply.t_end_ms, rnd=reply.rnd)

    def exited(self, code: int | None, failure: Failure | None) -> Failure | None:
        """The run's failure, given the app's exit code (from `record`) when there is one: noted, and the failure
        when the wire shows none."""
        if code is None:
            return failure
        self.notes.append(APP_EXITED["en"].format(code=code))
        if code != 0 and failure is None:
            return (f"exit code {code}", APP_EXITED["en"].format(code=code), APP_EXITED["zh"].format(code=code))
        return failure

    def trace_hops(
        self, events: list[_Event], listed: list[JsonObject], *, failed: bool, exited: bool, names: str
    ) -> tuple[Hops, float, int]:
        """The events as hops, with the app's hops only inferred: the question, the forward translation beside the
        first request that sent functions, and the answer unless the wire shows the run failing or the app's exit is
        not known (a plain merge cannot tell an app that showed it from one that crashed first); the last time, and
        the last round."""
        out = Hops(self.name)
        if self.question is not None:
            asked = hops.question(self.question)
            out.add(asked, t_start_ms=0.0, t_end_ms=0.0, inferred="the last user message of the first model request")
        for event in events:
            if self.first_offer is not None and event is self.first_offer[0] and listed and not self.hosted:
                forward = hops.tools_translated(listed, self.first_offer[1], schema_field=self.api.schema_field)
                said = "the tools the server listed beside the functions the first model request sent"
                out.add(forward, t_start_ms=event.t_ms, t_end_ms=event.t_ms, inferred=said)
            event.add_to(out)
            if event.reports is not None:
                self.add_reported(out, event, *event.reports)
        t_last = max((e.t_ms for e in events), default=0.0)
        rounds = max((e.rnd for e in events if e.draft.kind == "llm.request"), default=0)
        if self.answer is not None and not failed and exited:
            shown = hops.answer(self.answer, empty_line=EMPTY_ANSWER["en"])
            said = "the model's final answer; what the app showed the user is not recorded"
            out.add(shown, t_start_ms=t_last, t_end_ms=t_last, rnd=rounds, inferred=said)
        if not out.hops:  # an exit code alone is not a recording
            raise NothingRecorded(names)
        return out, t_last, rounds


def _failed_status(ex: _Exchange) -> bool:
    return type(ex.status) is int and ex.status >= 400


def _cut_short(ex: _Exchange, content: str, step: Step, t_end: float, rnd: int) -> _Event:
    """A stream that ended with no finish_reason: the failure a client reading it meets."""
    en, zh = (error_line("stream_truncated", lang, chunks=len(ex.chunks), chars=len(content)) for lang in ("en", "zh"))
    failed = hops.model_failed({"error": "malformed response", "reason": en}, step=step, summary=en)
    error = ex.end.get("error")
    said = "the stream ended with no finish_reason" + (f" ({error})" if error else "")
    return _Event(failed, t_end, t_end, rnd, said, failure=("malformed response", en, zh))


def _listed(hop: Hop, t: float) -> _Event | None:
    """The tool list the MCP client hands the app, beside the server's answer to tools/list."""
    response = payload_of(hop, "mcp.response")
    if response is None or hop.step != Step.LIST_TOOLS or "tools" not in response["result"]:
        return None
    tools = [tool for tool in as_list(response["result"]["tools"]) if isinstance(tool, dict)]
    said = "the tool list the server sent, as the MCP client hands it to the app"
    return _Event(hops.tools_listed(tools), t, t, inferred=said)


def _mcp_failure(hop: Hop) -> Failure | None:
    """How the app would tell what an MCP hop shows going wrong: a JSON-RPC error; None for every other hop (a line
    the proxy could not record may still have been read: the app's exit code says whether the run failed)."""
    refused = payload_of(hop, "mcp.error")
    if refused is None:
        return None
    error = refused["error"]
    code, message = error.get("code"), str(error.get("message") or "")[:200]
    en, zh = (error_line("mcp_error", lang, code=code, message=message) for lang in ("en", "zh"))
    return f"JSON-RPC error {code}", en, zh


def _outcome(events: list[_Event]) -> tuple[Failure | None, _Event | None]:
    """The last failure the run did not go on from (the model answered after it), and its event."""
    failure: Failure | None = None
    failed_at: _Event | None = None
    for event in events:
        if event.failure is not None:
            failure, failed_at = event.failure, event
        elif event.answered:
            failure = failed_at = None
    return failure, failed_at


def _tool_call(call: dict[str, Any]) -> ToolCall:
    """A model's tool call as the app's hops hold one: an id, a name and the arguments as a string."""
    fn = as_dict(call.get("function"))
    arguments = fn.get("arguments")
    return {
        "id": str(call.get("id")),
        "type": "function",
        "function": {
            "name": str(fn.get("name") or ""),
            "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False),
        },
    }


def _message_of(body: Any) -> dict[str, Any]:
    choices = as_list(as_dict(body).get("choices"))
    return as_dict(as_dict(choices[0]).get("message")) if choices else {}


def _failed(ex: _Exchange) -> bool:
    return not ex.response or _failed_status(ex) or bool(ex.end.get("error"))


def _attempt(ex: _Exchange, previous: _Exchange | None, before: int) -> int:
    """Which retry of its call an exchange is (0: a call of its own): the same body sent again, numbered by the
    openai SDK's header, or when no header numbers it, after an attempt that failed."""
    if previous is None or ex.request.get("body") != previous.request.get("body"):
        return 0
    headers = as_dict(ex.request.get("headers"))
    if any(str(k).lower() == RETRY_HEADER for k in headers):
        return retry_number(headers)
    return before + 1 if _failed(previous) else 0


_ASIDE = (
    "for the MCP server: a request with no tools that continues no conversation, sent while the app's conversation "
    "waited on a tool call (the host asking its model for a server: sampling)"
)


def _asides(runs: list[list[_Exchange]]) -> tuple[list[list[_Exchange]], list[list[_Exchange]]]:
    """Conversations, and the calls made in the middle of one of them for an MCP server (sampling): a run of requests
    all sent between two requests of another conversation, offering no tools or other tools than it does (sampling
    with tools: the server's own)."""

    def offered(run: list[_Exchange]) -> set[str]:
        return {name for ex in run for name in tool_names(ex.request.get("body"))}

    asides = [
        run
        for run in runs
        if any(
            other is not run
            and other[0].n < run[0].n
            and other[-1].n > run[-1].n
            and (not offered(run) or offered(run) != offered(other))
            for other in runs
        )
    ]
    kept = [run for run in runs if run not in asides]
    for run in asides:  # back into the conversation it came in, in the order they were sent
        host = next(other for other in kept if other[0].n < run[0].n and other[-1].n > run[-1].n)
        host += run
        host.sort(key=lambda ex: ex.n)
    return kept, asides


def _conversations(chats: list[_Exchange], api: WireApi) -> list[list[_Exchange]]:
    """Model exchanges in conversations. A model API is stateless: each request of a conversation resends all it has
    said so far (messages, or Responses' input items), so a request whose conversation does not begin with the
    previous request's starts a new one (a retry, resending the same, does not). A request with none belongs to the
    conversation it comes in, and so does a Responses follow-up that names the response it follows
    (previous_response_id: the server keeps the rest)."""
    runs: list[list[_Exchange]] = []
    said: list[list[Any]] = []  # what each conversation's latest request resent
    for ex in chats:
        body = ex.request.get("body")
        messages = conversation(body, api)
        follows = bool(as_dict(body).get("previous_response_id"))
        if runs and (not messages or follows):
            runs[-1].append(ex)
            said[-1] = messages or said[-1]
            continue
        # the latest conversation this request goes on with (one may resume after a call made in its middle)
        resumed = next((i for i in reversed(range(len(runs))) if said[i] and messages[: len(said[i])] == said[i]), None)
        if resumed is None:
            runs.append([ex])
            said.append(messages)
        else:
            runs[resumed].append(ex)
            said[resumed] = messages
    return runs


def _last_user_text(body: Any, api: WireApi) -> str | None:
    """The last user message's text in a request, as its API reads it: a string, or the text blocks of a list
    (Anthropic's style; Responses also takes its input as one string). A message of tool results alone has none."""
    for message in reversed(api.input_messages(body)):
        texts = [p.text for p in message.parts if isinstance(p, TextPart) and isinstance(p.text, str)]
        if message.role == "user" and "".join(texts):
            return "\n".join(t for t in texts if t)
    return None


def _call_of(call: Call) -> ToolCall:
    """A Responses or Messages call in the form the app's hops hold one (beside the call as its API wrote it)."""
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def _start(text: str) -> float | None:
    """The epoch time of the first thing a recording saw cross."""
    for raw in text.splitlines():
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(entry, dict) or "mcp_flow_proxy" in entry:  # a proxy starts before the app talks
            continue
        t = entry.get("timestamp")
        if isinstance(t, (int, float)) and not isinstance(t, bool):
            return float(t)
    return None


def _one_of_each(recordings: list[Recording], name: str) -> tuple[Recording | None, Recording | None]:
    """The MCP recording and the model one, each at most one."""
    mcp = [(n, t) for n, t in recordings if recording_kind(t) == "mcp"]
    models = [(n, t) for n, t in recordings if recording_kind(t) == "model"]
    if len(models) > 1:
        raise TraceError(f"{name}: {len(models)} model recordings: merge one run's, one model recording at most")
    if len(mcp) > 1:
        raise TraceError(f"{name}: {len(mcp)} MCP recordings: this merge takes one MCP server's")
    if not recordings:
        raise TraceError(f"{name}: nothing to merge")
    return (mcp[0] if mcp else None), (models[0] if models else None)


def merge_recordings(
    recordings: list[Recording],
    *,
    name: str = "merged",
    conversation: int | None = None,
    app_exit_code: int | None = None,
) -> Trace:
    """Recordings (name, text) of one run, MCP ones and at most one of the model proxy, as one trace; of several
    conversations in the model recording, the one numbered `conversation` (from 1), by default the last.

    The run failed when the wire shows a failure the model never answered after (an HTTP error, a JSON-RPC error, a
    stream cut short), or when the app's exit code (from `record`) says so: then the trace ends in the error hop the
    app would have shown, and its meta says `outcome: "error"` with the line."""
    mcp, model = _one_of_each(recordings, name)
    starts = [s for _, t in recordings if (s := _start(t)) is not None]
    t0 = min(starts) if starts else 0.0
    job = _Merge(name, conversation)
    model_events = job.model_side(model, t0)
    imported, mcp_events, unmapped = job.mcp_side(mcp, t0)
    events = _interleave(mcp_events, model_events)
    failure, failed_at = _outcome(events)
    failure = job.exited(app_exit_code, failure)
    names = ", ".join(n for n, _ in recordings)
    listed = _listed_tools(imported.hops if imported else [])
    exited = app_exit_code is not None
    out, t_last, rounds = job.trace_hops(events, listed, failed=failed_at is not None, exited=exited, names=names)
    if failure is not None:
        word, en, zh = failure
        seen = "the failure the wire shows" if failed_at is not None else "the app's exit code"
        failed = hops.run_failed({"error": word, "message": en, "message_zh": zh}, en)
        said = f"{seen}, as the app would tell it; what the app showed the user is not recorded"
        rnd = failed_at.rnd if failed_at is not None else rounds
        out.add(failed, t_start_ms=t_last, t_end_ms=t_last, rnd=rnd, inferred=said)
    unmapped += _merge_notes(job, paired=imported is not None)
    if failure is None and not exited:
        unmapped.append(UNSEEN_END)
    server = imported.meta.server if imported else None
    if job.hosted:  # the server by the label the request gave it (its reports name it so), and its frames' facts
        named = job.hosted[0]
        server = {**(server or {}), "name": named["label"] or "mcp-server", "url": named["url"]}
    meta = TraceMeta(
        mode="hosted" if job.hosted else "mcp" if imported else "direct",
        question=job.question or f"(recorded by the proxies: {Path(name).name})",
        model={k: v for k, v in job.model.items() if v},
        server=server,
        settings=imported.meta.settings if imported else {},
        started_at=dt.datetime.fromtimestamp(t0, dt.timezone.utc).isoformat() if starts else "",
        answer=job.answer,
        outcome="error" if failure is not None else "ok" if exited else "unknown",
        error=failure[1] if failure is not None else None,
        error_zh=failure[2] if failure is not None else None,
        imported=ImportInfo(format="proxy-jsonl", file=names, unmapped=unmapped),
    )
    return finish(meta, out.hops, name)


def _merge_notes(job: _Merge, *, paired: bool) -> list[str]:
    """What a merged trace says it could not record as it crossed: the merge's own notes, and what it inferred."""
    notes = list(job.notes)
    if job.hosted:
        notes.append(
            "hosted MCP: the provider's MCP client called the server, so the app neither listed, translated nor ran "
            "a tool; the mcp.reported hops are the provider's report of those calls, rebuilt from its "
            + ("items or blocks, paired with the frames the MCP recording saw" if paired else "items or blocks")
        )
    notes.append(
        "recorded by the proxies: the wire as it crossed; the question, the translations, which tool call each "
        "tools/call carries out and the answer shown are inferred (each such hop says so in `inferred`)"
    )
    return notes


def _interleave(first: list[_Event], second: list[_Event]) -> list[_Event]:
    """Two sequences, each in its own order, merged by time (the first's event first on a tie)."""
    merged: list[_Event] = []
    i = j = 0
    while i < len(first) or j < len(second):
        if j >= len(second) or (i < len(first) and first[i].t_ms <= second[j].t_ms):
            merged.append(first[i])
            i += 1
        else:
            merged.append(second[j])
            j += 1
    return merged


def _listed_tools(frames: list[Hop]) -> list[JsonObject]:
    for hop in frames:
        said = typed(hop)
        listed = as_dict(said.payload.get("result")).get("tools") if isinstance(said, McpResponse) else None
        if isinstance(listed, list):
            return [t for t in listed if isinstance(t, dict)]
    return []


def _chunk_events(ex: _Exchange, asked: _Event, step: Step, labels: list[str], ms: Clock) -> list[_Event]:
    """A recorded stream's events as hops of one step, each with its reader's line; the first carries the HTTP
    status and headers."""
    events = []
    for i, chunk in enumerate(ex.chunks):
        payload: LlmChunkPayload = {"data": chunk.get("data", chunk.get("data_too_large"))}
        if i == 0:
            payload = {"status": ex.status, "headers": _headers(ex.response), **payload}
        got = hops.model_chunk(payload, step=step, summary=labels[i])
        events.append(_Event(got, asked.t_start_ms, ms(chunk), asked.rnd))
    return events
