"""What the proxies recorded of one app's run (`python -m flow proxy`, `proxy-http`, `proxy-model`), merged into one
trace on one clock, with the steps the app would have given its hops.

The wire is as recorded: MCP frames (through `jsonrpc_log`), the model's request and response bodies and streamed
events. What happened inside the app is inferred, and every inferred hop says so in its `inferred` field and its
summary: the question (the first request's last user message), the forward translation (the listed MCP tools beside
the functions the first request sent), the assembled stream, the reverse translation (which tool call of the model a
`tools/call` carries out: matched by name and arguments, or by name alone, among the calls asked before it), the
result the app received (with the text its next request sent back under that `tool_call_id`), and the answer shown.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from flow.interop.common import Hops, NothingRecorded, finish, json_line, json_or_text, quoted
from flow.interop.jsonrpc_log import import_jsonrpc_log
from flow.text.errors import ErrorCode, error_line
from flow.text.provider import names_a_field, provider_detail, provider_line
from flow.text.recordings import APP_EXITED
from flow.trace.files import TraceError
from flow.trace.model import Hop, ImportInfo, Trace, TraceMeta, as_dict, as_list, usage_counts
from flow.trace.payloads import ChatRequest
from flow.trace.stats import RETRY_HEADER, retry_number
from flow.trace.steps import Step
from flow.trace.summaries import arguments_text, counted
from flow.wire.chat import CHAT

MODEL_TRANSPORT = "model-http"  # the header's transport in a recording of `proxy-model`


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


def _tool_call(call: dict[str, Any]) -> dict[str, Any]:
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


@dataclass
class _Call:
    """A tool call the model asked for, waiting for the tools/call that carries it out."""

    tool_call: dict[str, Any]
    rnd: int
    t_ms: float
    taken: bool = False

    @property
    def name(self) -> str:
        return str(as_dict(self.tool_call.get("function")).get("name") or "")

    @property
    def arguments(self) -> Any:
        return json_or_text(as_dict(self.tool_call.get("function")).get("arguments"))


Failure = tuple[str, str, str]  # what failed in a word or two, and the line in English and Chinese


@dataclass
class _Event:
    """A hop to add (`Hops.add`'s arguments), and when it crossed on the merged clock; whether it shows the run
    failing (and how the app would say so), or the model answering, which a run that failed before goes on from."""

    t_ms: float
    spec: dict[str, Any]
    failure: Failure | None = None
    answered: bool = False


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
        self.tool_messages: dict[str, Any] = {}  # the content each backfill sent back, by tool_call_id
        self.question: str | None = None
        self.answer: str | None = None
        self.model: dict[str, Any] = {}
        self.base_url = ""

    def model_events(self, exchanges: list[_Exchange], t0: float, base_url: str) -> list[_Event]:
        events: list[_Event] = []

        def ms(entry: dict[str, Any]) -> float:
            return (float(entry.get("timestamp") or t0) - t0) * 1000

        others = [ex for ex in exchanges if not str(ex.request.get("path") or "").endswith("/chat/completions")]
        if others:
            first = others[0].request
            self.notes.append(
                f"{counted(len(others), 'model exchange')} on other paths (the first: {first.get('method')} "
                f"{quoted(first.get('path'))}): recorded, not stepped (only Chat Completions is)"
            )
        chats = self.one_conversation([ex for ex in exchanges if ex not in others], ms)
        self.base_url = base_url
        rnd, attempt, previous = 0, 0, None
        for ex in chats:
            req = ex.request
            body = req.get("body")
            attempt = _attempt(ex, previous, attempt)
            rnd += 0 if attempt else 1  # the SDK sending a call again is the same call, in the same round
            previous = ex
            messages = [as_dict(m) for m in as_list(as_dict(body).get("messages"))]
            for m in messages:
                if m.get("role") == "tool" and isinstance(m.get("tool_call_id"), str):
                    self.tool_messages.setdefault(m["tool_call_id"], m.get("content"))
            backfill = any(m.get("role") == "tool" for m in messages)
            step = Step.BACKFILL if backfill else Step.ASK_MODEL
            if self.question is None:
                users = [m.get("content") for m in messages if m.get("role") == "user"]
                self.question = next((u for u in reversed(users) if isinstance(u, str) and u), None)
                self.model = {"name": as_dict(body).get("model"), "base_url": base_url}
            t_req = ms(req)
            payload: dict[str, Any] = {
                "method": str(req.get("method") or "POST"),
                "url": base_url.rstrip("/") + str(req.get("path") or "").removeprefix("/v1"),
                "headers": {str(k): str(v) for k, v in as_dict(req.get("headers")).items()},
                "body": _chat_request(body),
            }
            n_tools = len(as_list(as_dict(body).get("tools")))
            stream = " (stream)" if as_dict(body).get("stream") else ""
            again = f", retry {attempt} of the same call" if attempt else ""
            events.append(
                _Event(
                    t_req,
                    dict(
                        kind="llm.request",
                        source="app",
                        target="model",
                        payload=payload,
                        step=step,
                        t_start_ms=t_req,
                        t_end_ms=t_req,
                        direction="request",
                        rnd=rnd,
                        summary=f"{payload['method']} {req.get('path')}: {counted(len(messages), 'message')}, "
                        f"{counted(n_tools, 'tool')}{stream}{again}",
                    ),
                )
            )
            events += self.answer_events(ex, rnd, step, t_req, ms)
        return events

    def one_conversation(self, chats: list[_Exchange], ms: Callable[[dict[str, Any]], float]) -> list[_Exchange]:
        """The exchanges of one conversation: a long-running model proxy records several, and one trace shows one
        (the last, unless `conversation` names another), saying so in a note."""
        runs = _conversations(chats)
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

    def answer_events(self, ex: _Exchange, rnd: int, step: Step, t_req: float, ms: Any) -> list[_Event]:
        events: list[_Event] = []
        status = ex.response.get("status")
        headers = {str(k): str(v) for k, v in as_dict(ex.response.get("headers")).items()}
        error = ex.end.get("error")
        if not ex.response or (type(status) is int and status >= 400):
            body = (ex.body or {}).get("body")
            t = ms(ex.end or ex.body or ex.response or ex.request)
            payload: dict[str, Any] = {
                "status": status if type(status) is int else None,
                "headers": headers,
                "body": body,
            }
            if error:
                payload["error"], payload["message"] = "proxy", str(error)
            summary = f"HTTP {status}" if type(status) is int else str(error or "no answer")
            event = self._event(t, "llm.error", payload, step, t_req, rnd, summary, direction="error")
            event.failure = self._model_failure(status, body, error)
            return [event]
        if ex.chunks:
            stream = CHAT.stream()
            labels = [stream.add(chunk.get("data")) for chunk in ex.chunks]
            message, finish_reason = stream.message(), stream.finish
            answer_step = Step.DECISION if message.get("tool_calls") else Step.MODEL_ANSWER
            for i, chunk in enumerate(ex.chunks, 1):
                payload = {"data": chunk.get("data", chunk.get("data_too_large"))}
                if i == 1:
                    payload = {"status": status, "headers": headers, **payload}
                usage = usage_counts(as_dict(chunk.get("data")).get("usage"))
                events.append(
                    self._event(ms(chunk), "llm.chunk", payload, answer_step, t_req, rnd, labels[i - 1], usage=usage)
                )
            t_end = ms(ex.chunks[-1])
            unrecorded = sum("data" not in chunk for chunk in ex.chunks)  # too large for the proxy to keep
            if finish_reason is None and not unrecorded:  # cut short: no answer to assemble, as a client reading fails
                content = message.get("content") or ""
                line = (
                    error_line("stream_truncated", "en", chunks=len(ex.chunks), chars=len(content)),
                    error_line("stream_truncated", "zh", chunks=len(ex.chunks), chars=len(content)),
                )
                event = self._event(
                    t_end,
                    "llm.error",
                    {"error": "malformed response", "reason": line[0]},
                    answer_step,
                    t_end,
                    rnd,
                    line[0],
                    source="model",
                    direction="error",
                    inferred="the stream ended with no finish_reason" + (f" ({error})" if error else ""),
                )
                event.failure = ("malformed response", *line)
                events.append(event)
                return events
            assembled = {"message": message, "finish_reason": finish_reason}
            cut = stream.cut()
            said = "assembled here from the streamed deltas, as a client does" + (
                f" (from those recorded: {counted(unrecorded, 'event')} too large to keep)" if unrecorded else ""
            )
            event = self._event(
                t_end,
                "llm.assembled",
                assembled,
                answer_step,
                t_end,
                rnd,
                "assembled " + CHAT.response_summary({"choices": [assembled]}),
                source="app",
                direction="event",
                inferred=said + (f"; cut to the limit of one value: {cut}" if cut else ""),
            )
            event.answered = True
            events.append(event)
        else:
            body = (ex.body or {}).get("body", (ex.body or {}).get("body_too_large"))
            message = _message_of(body)
            answer_step = CHAT.response_step(body)
            t_end = ms(ex.body or ex.end or ex.response)
            usage = usage_counts(as_dict(body).get("usage"))
            event = self._event(
                t_end,
                "llm.response",
                {"status": status, "headers": headers, "body": body},
                answer_step,
                t_req,
                rnd,
                CHAT.response_summary(body),
                direction="response",
                usage=usage,
            )
            event.answered = bool(message)
            if not message:
                event.failure = self._unread(ex, body, error)
            events.append(event)
        for call in as_list(message.get("tool_calls")):
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                self.calls.append(_Call(_tool_call(call), rnd, t_end))
        if answer_step == Step.MODEL_ANSWER and isinstance(message.get("content"), str):
            self.answer = message["content"]
        return events

    def _unread(self, ex: _Exchange, body: Any, error: Any) -> Failure | None:
        """How the app would tell an answer with no message it can read; None when the recording cannot say (a body
        too large to record, which the app may well have read)."""
        if error or ex.body is None:
            return self._model_failure(None, None, error)
        if "body" not in ex.body:
            return None
        code: ErrorCode
        params: dict[str, Any] = {}
        if not isinstance(body, dict):
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

    @staticmethod
    def _event(
        t: float,
        kind: str,
        payload: Any,
        step: Step,
        t_start: float,
        rnd: int,
        summary: str,
        *,
        source: str = "model",
        direction: str = "response",
        usage: Any = None,
        inferred: str | None = None,
    ) -> _Event:
        spec: dict[str, Any] = dict(
            kind=kind,
            source=source,
            target="app",
            payload=payload,
            step=step,
            t_start_ms=t_start,
            t_end_ms=t,
            direction=direction,
            rnd=rnd,
            summary=summary,
            usage=usage,
        )
        if inferred:
            spec["extra"] = {"inferred": inferred}
            spec["summary"] = f"{summary} (inferred)"
        return _Event(t, spec)

    def match(self, name: str, arguments: Any, t_ms: float) -> tuple[_Call | None, str]:
        """The model's tool call a tools/call carries out: the earliest not yet taken, asked before it, with its
        name and arguments; else with its name alone; and how it was matched."""
        asked = [c for c in self.calls if not c.taken and c.name == name and c.t_ms <= t_ms + 1]
        exact = [c for c in asked if c.arguments == arguments]
        if exact:
            exact[0].taken = True
            return exact[0], "matched by name and arguments"
        if asked:
            asked[0].taken = True
            return asked[0], "matched by name only (the arguments differ)"
        return None, ""

    def mcp_events(self, hops: list[Hop], offset_ms: float) -> list[_Event]:
        """The MCP hops on the merged clock; around each tools/call the model asked for, the app's hops."""
        events: list[_Event] = []
        by_id: dict[Any, tuple[_Call, str]] = {}
        for hop in hops:
            spec = _spec(hop, offset_ms)
            t = hop.t_end_ms + offset_ms
            frame = as_dict(hop.payload)
            if hop.kind == "mcp.request" and frame.get("method") == "tools/call":
                params = as_dict(frame.get("params"))
                name = str(params.get("name") or "")
                arguments = as_dict(params.get("arguments"))
                call, how = self.match(name, arguments, t)
                if call is not None:
                    by_id[hop.jsonrpc_id] = (call, how)
                    spec["rnd"] = call.rnd
                    tool_call_id = str(call.tool_call["id"])
                    events.append(
                        _Event(
                            t,
                            dict(
                                kind="translate.reverse",
                                source="app",
                                target="mcp_client",
                                payload={
                                    "tool_call": call.tool_call,
                                    "call_request": {"name": name, "arguments": arguments},
                                },
                                step=Step.REVERSE_TRANSLATION,
                                t_start_ms=t,
                                t_end_ms=t,
                                direction="request",
                                rnd=call.rnd,
                                tool_call_id=tool_call_id,
                                summary=f"call {name}({arguments_text(arguments)}) ({how}, inferred)",
                                extra={
                                    "inferred": f"the tools/call that carries out the model's call {tool_call_id}: {how}"
                                },
                            ),
                        )
                    )
                else:
                    self.notes.append(
                        f"tools/call {name} (id {quoted(hop.jsonrpc_id)}): no tool call of the model matches it"
                    )
            paired = by_id.get(hop.jsonrpc_id) if hop.step in (Step.CALL_TOOL, Step.TOOL_RESULT) else None
            if paired is not None:
                spec["rnd"] = paired[0].rnd
                if hop.kind in ("tool.invoke", "tool.result"):
                    spec["tool_call_id"] = str(paired[0].tool_call["id"])
            events.append(_Event(t, spec, failure=_mcp_failure(hop)))
            if paired is not None and hop.kind in ("mcp.response", "mcp.error") and hop.step == Step.TOOL_RESULT:
                events.append(self.received(hop, paired, t))
            listed = [t for t in as_list(as_dict(frame.get("result")).get("tools")) if isinstance(t, dict)]
            if hop.kind == "mcp.response" and hop.step == Step.LIST_TOOLS and "tools" in as_dict(frame.get("result")):
                names = ", ".join(str(as_dict(tool).get("name")) for tool in listed)
                events.append(
                    _Event(
                        t,
                        dict(
                            kind="client.result",
                            source="mcp_client",
                            target="app",
                            payload={"tools": listed},
                            step=Step.LIST_TOOLS,
                            t_start_ms=t,
                            t_end_ms=t,
                            direction="response",
                            summary=f"{len(listed)} tools: {names} (inferred)",
                            extra={"inferred": "the tool list the server sent, as the MCP client hands it to the app"},
                        ),
                    )
                )
        return events

    def received(self, hop: Hop, paired: tuple[_Call, str], t: float) -> _Event:
        """The result as the app received it (step 7): what its next request sent back, when it did."""
        call, how = paired
        tool_call_id = str(call.tool_call["id"])
        frame = as_dict(hop.payload)
        sent = self.tool_messages.get(tool_call_id)
        if hop.kind == "mcp.error":
            payload: dict[str, Any] = {"error": frame.get("error")}
            summary = f"protocol error {as_dict(frame.get('error')).get('code')}"
        else:
            result = as_dict(frame.get("result"))
            texts = [str(b.get("text")) for b in as_list(result.get("content")) if as_dict(b).get("type") == "text"]
            payload = {"result": result}
            summary = ("isError: " if result.get("isError") else "") + " ".join(" ".join(texts).split())[:60]
        text, parts = _tool_message(sent)
        payload["tool_message_content"] = text
        if parts is not None:
            payload["tool_message_parts"] = parts
        backfilled = (
            "its text is what the next model request sent back" if sent is not None else "no later request sent it back"
        )
        return _Event(
            t,
            dict(
                kind="tool.result",
                source="mcp_client",
                target="app",
                payload=payload,
                step=Step.TOOL_RESULT,
                t_start_ms=t,
                t_end_ms=t,
                direction="error" if hop.kind == "mcp.error" else "response",
                rnd=call.rnd,
                tool_call_id=tool_call_id,
                summary=f"{summary} (inferred)",
                extra={"inferred": f"for the model's call {tool_call_id} ({how}); {backfilled}"},
            ),
        )


def _mcp_failure(hop: Hop) -> Failure | None:
    """How the app would tell what an MCP hop shows going wrong: a JSON-RPC error; None for every other hop (a line
    the proxy could not record may still have been read: the app's exit code says whether the run failed)."""
    if hop.kind == "mcp.error":
        error = as_dict(as_dict(hop.payload).get("error"))
        code, message = error.get("code"), str(error.get("message") or "")[:200]
        en, zh = (error_line("mcp_error", lang, code=code, message=message) for lang in ("en", "zh"))
        return f"JSON-RPC error {code}", en, zh
    return None


def _tool_message(content: Any) -> tuple[str, list[Any] | None]:
    """What a role "tool" message sent back: its text, and its parts when it was sent as a list of them (as
    openai-agents sends it), kept as they were; a text part's text is what the model reads of it."""
    if content is None:
        return "", None
    if isinstance(content, str):
        return content, None
    if isinstance(content, list):
        texts = [str(p["text"]) for p in content if isinstance(p, dict) and p.get("type") == "text" and "text" in p]
        others = [p for p in content if not (isinstance(p, dict) and p.get("type") == "text")]
        text = "\n".join(texts)
        if others:
            text += ("\n" if text else "") + json.dumps(others, ensure_ascii=False)
        return text, content
    return json.dumps(content, ensure_ascii=False), None


def _failed(ex: _Exchange) -> bool:
    status = ex.response.get("status")
    return not ex.response or (type(status) is int and status >= 400) or bool(ex.end.get("error"))


def _attempt(ex: _Exchange, previous: _Exchange | None, before: int) -> int:
    """Which retry of its call an exchange is (0: a call of its own): the same body sent again, numbered by the
    openai SDK's header, or when no header numbers it, after an attempt that failed."""
    if previous is None or ex.request.get("body") != previous.request.get("body"):
        return 0
    headers = as_dict(ex.request.get("headers"))
    if any(str(k).lower() == RETRY_HEADER for k in headers):
        return retry_number(headers)
    return before + 1 if _failed(previous) else 0


def _spec(hop: Hop, offset_ms: float) -> dict[str, Any]:
    extra = {"progress_of": hop.progress_of} if hop.progress_of is not None else None
    return dict(
        kind=hop.kind,
        source=hop.source,
        target=hop.target,
        payload=hop.payload,
        step=hop.step,
        t_start_ms=hop.t_start_ms + offset_ms,
        t_end_ms=hop.t_end_ms + offset_ms,
        direction=hop.direction,
        rnd=hop.round,
        jsonrpc_id=hop.jsonrpc_id,
        tool_call_id=hop.tool_call_id,
        summary=hop.summary,
        extra=extra,
    )


def _conversations(chats: list[_Exchange]) -> list[list[_Exchange]]:
    """Chat exchanges in conversations. A chat API is stateless: each request of a conversation resends all its
    messages so far, so a request whose messages do not begin with the previous request's starts a new one (a retry,
    resending the same, does not). A request with no messages belongs to the conversation it comes in."""
    runs: list[list[_Exchange]] = []
    previous: list[Any] = []
    for ex in chats:
        messages = as_list(as_dict(ex.request.get("body")).get("messages"))
        if runs and (not messages or messages[: len(previous)] == previous):
            runs[-1].append(ex)
        else:
            runs.append([ex])
        previous = messages or previous
    return runs


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


def merge_recordings(
    recordings: list[tuple[str, str]],
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
    mcp = [(n, t) for n, t in recordings if recording_kind(t) == "mcp"]
    models = [(n, t) for n, t in recordings if recording_kind(t) == "model"]
    if len(models) > 1:
        raise TraceError(f"{name}: {len(models)} model recordings: merge one run's, one model recording at most")
    if len(mcp) > 1:
        raise TraceError(f"{name}: {len(mcp)} MCP recordings: this merge takes one MCP server's")
    if not recordings:
        raise TraceError(f"{name}: nothing to merge")
    starts = [s for _, t in recordings if (s := _start(t)) is not None]
    t0 = min(starts) if starts else 0.0
    job = _Merge(name, conversation)
    model_events: list[_Event] = []
    header: dict[str, Any] = {}
    if models:
        header, exchanges, proxy_notes = _model_log(models[0][1], models[0][0])
        job.notes += proxy_notes
        model_events = job.model_events(exchanges, t0, str(header.get("upstream") or ""))
    imported: Trace | None = None
    mcp_events: list[_Event] = []
    unmapped: list[str] = []
    if mcp:
        try:
            imported = import_jsonrpc_log(mcp[0][1], name=mcp[0][0])
        except NothingRecorded as exc:  # the server was started, and nothing crossed: the model's side still counts
            unmapped.append(str(exc))
    if imported is not None:
        started = imported.meta.started_at
        offset = (dt.datetime.fromisoformat(started).timestamp() - t0) * 1000 if started else 0.0
        hops = imported.hops
        if job.window is not None:
            set_up_until, start, end = job.window
            hops = [h for h in hops if h.t_end_ms + offset < set_up_until or start <= h.t_end_ms + offset < end]
        mcp_events = job.mcp_events(hops, offset)
        unmapped += [
            n
            for n in (imported.meta.imported.unmapped if imported.meta.imported else [])
            if not n.startswith("a JSON-RPC log holds only MCP frames")
        ]
    events = _interleave(mcp_events, model_events)
    failure: Failure | None = None  # the last failure the run did not go on from
    failed_at: _Event | None = None
    for event in events:
        if event.failure is not None:
            failure, failed_at = event.failure, event
        elif event.answered:
            failure = failed_at = None
    if app_exit_code is not None:
        job.notes.append(APP_EXITED["en"].format(code=app_exit_code))
        if app_exit_code != 0 and failure is None:
            failure = (
                f"exit code {app_exit_code}",
                APP_EXITED["en"].format(code=app_exit_code),
                APP_EXITED["zh"].format(code=app_exit_code),
            )
    out = Hops(name)
    if job.question is not None:
        out.add(
            "user.message",
            "user",
            "app",
            {"content": job.question},
            step=Step.QUESTION,
            t_start_ms=0.0,
            t_end_ms=0.0,
            summary=f"{job.question} (inferred)",
            extra={"inferred": "the last user message of the first model request"},
        )
    forward_done = False
    tools_listed = _listed_tools(imported.hops if imported else [])
    for event in events:
        spec = event.spec
        if not forward_done and spec["kind"] == "llm.request" and tools_listed and _tools(spec["payload"]):
            forward_done = True
            out.add(
                "translate.forward",
                "app",
                "app",
                {"mcp": tools_listed, "openai": _tools(spec["payload"])},
                step=Step.ASK_MODEL,
                t_start_ms=event.t_ms,
                t_end_ms=event.t_ms,
                summary="inputSchema → parameters for "
                + ", ".join(str(as_dict(t).get("name")) for t in tools_listed)
                + " (inferred)",
                extra={"inferred": "the tools the server listed beside the functions the first model request sent"},
            )
        out.add(**spec)
    t_last = max((e.t_ms for e in events), default=0.0)
    rounds = max((int(e.spec["rnd"]) for e in model_events if e.spec["kind"] == "llm.request"), default=0)
    if job.answer is not None and failed_at is None:
        out.add(
            "app.answer",
            "app",
            "user",
            {"content": job.answer},
            step=Step.SHOW_ANSWER,
            t_start_ms=t_last,
            t_end_ms=t_last,
            rnd=rounds,
            summary=f"{job.answer[:80]} (inferred)",
            extra={"inferred": "the model's final answer; what the app showed the user is not recorded"},
        )
    if not out.hops:  # an exit code alone is not a recording
        raise NothingRecorded(", ".join(n for n, _ in recordings))
    if failure is not None:
        word, en, zh = failure
        seen = "the failure the wire shows" if failed_at is not None else "the app's exit code"
        out.add(
            "error",
            "app",
            "user",
            {"error": word, "message": en, "message_zh": zh},
            step=Step.SHOW_ANSWER,
            t_start_ms=t_last,
            t_end_ms=t_last,
            direction="error",
            rnd=int(failed_at.spec.get("rnd") or 0) if failed_at is not None else rounds,
            summary=f"{en} (inferred)",
            extra={"inferred": f"{seen}, as the app would tell it; what the app showed the user is not recorded"},
        )
    unmapped += job.notes
    unmapped.append(
        "recorded by the proxies: the wire as it crossed; the question, the translations, which tool call each "
        "tools/call carries out and the answer shown are inferred (each such hop says so in `inferred`)"
    )
    server = imported.meta.server if imported else None
    meta = TraceMeta(
        mode="mcp" if imported else "direct",
        question=job.question or f"(recorded by the proxies: {Path(name).name})",
        model={k: v for k, v in job.model.items() if v},
        server=server,
        settings=imported.meta.settings if imported else {},
        started_at=dt.datetime.fromtimestamp(t0, dt.timezone.utc).isoformat() if starts else "",
        answer=job.answer,
        outcome="error" if failure is not None else "ok",
        error=failure[1] if failure is not None else None,
        error_zh=failure[2] if failure is not None else None,
        imported=ImportInfo(format="proxy-jsonl", file=", ".join(n for n, _ in recordings), unmapped=unmapped),
    )
    return finish(meta, out.hops, name)


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


def _listed_tools(hops: list[Hop]) -> list[Any]:
    for hop in hops:
        listed = as_dict(as_dict(hop.payload).get("result")).get("tools")
        if hop.kind == "mcp.response" and isinstance(listed, list):
            return [t for t in listed if isinstance(t, dict)]
    return []


def _tools(payload: Any) -> list[Any]:
    return [t for t in as_list(as_dict(as_dict(payload).get("body")).get("tools")) if isinstance(t, dict)]
