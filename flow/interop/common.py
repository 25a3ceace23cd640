"""What the two importers share, and what the OTLP exporter writes that its importer reads back: the MCP methods'
sides and steps, hop numbering and the finished trace, how a value from the input is quoted in a message."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from flow.trace.factory import checked_hop
from flow.trace.files import TraceError, json_value_problem, parse_trace
from flow.trace.hops import Draft
from flow.trace.json_text import read_json_text
from flow.trace.model import Hop, Trace, TraceMeta
from flow.trace.redact import credentials, redact_recording
from flow.trace.stats import hop_stats
from flow.trace.steps import Step

INVALID_ARGUMENTS = "invalid_arguments"  # error.type of a tool call the app refused before running it (step 5)


NO_RESPONSE = "no_response"  # error.type of an MCP request no frame answered before the run ended


# A server's report of running a tool's function: a span of the code (`code.function.name`) under the server's
# tools/call span, with what it was called with and returned; marked as the server's word.
REPORTED_BY_ATTR = "mcp_flow.reported_by"
REPORTED_ARGUMENTS_ATTR = "mcp_flow.function.arguments"
REPORTED_RESULT_ATTR = "mcp_flow.function.result"


# Hosted MCP: a model provider's report of an MCP exchange its own client made, as a span under the model call that
# carried the report, `REPORTED_BY_ATTR` "provider". Nobody here saw it: it has the model call's window for its times
# (`TIMING_ATTR`), and keeps the items or blocks the provider wrote, in the order it wrote them, so an import rebuilds
# the same report; whether a recorder also saw the frames, and where they disagree, beside them.
BY_PROVIDER = "provider"
REPORTED_API_ATTR = "mcp_flow.reported.api"  # the API whose response carried the report: "responses" | "messages"
REPORTED_ITEMS_ATTR = "mcp_flow.reported.items"  # the item (Responses) or the use and result blocks (Messages), JSON
REPORTED_INDEX_ATTR = "mcp_flow.reported.index"  # the exchange's place among those one response reports
REPORTED_SERVER_ATTR = "mcp_flow.reported.server"  # the server's label as the request named it
OBSERVED_ATTR = "mcp_flow.observed"  # whether a recorder also saw the frames of this exchange
MISMATCH_ATTR = "mcp_flow.mismatch"  # where the report and those frames disagree
TIMING_ATTR = "mcp_flow.timing"
MODEL_CALL_WINDOW = "model_call_window"  # its times are the model call's: the provider reports none


# A server that asks (sampling, elicitation, roots). What the host did for the server's request is marked with that
# request: its method, and its JSON-RPC id (2025-11-25, a request over the session) or its key among the input
# requests of an input-required result (2026-07-28). A sampling model call is a `chat` span with these; the question
# to the user an `ASK_USER_SPAN` span with them and the `USER_*` attributes.
REQUESTED_BY_ATTR = "mcp_flow.requested_by"  # "mcp_server": the host made this model call for the server
FOR_SERVER_METHOD_ATTR = "mcp_flow.for_server.method"
FOR_SERVER_ID_ATTR = "mcp_flow.for_server.jsonrpc_id"
FOR_SERVER_KEY_ATTR = "mcp_flow.for_server.key"
ASK_USER_SPAN = "ask_user"
USER_ATTRS = {  # a user.input payload's field -> its attribute (objects as JSON text)
    "mode": "mcp_flow.user.mode",
    "message": "mcp_flow.user.message",
    "requested_schema": "mcp_flow.user.requested_schema",
    "url": "mcp_flow.user.url",
    "action": "mcp_flow.user.action",
    "content": "mcp_flow.user.content",
    "answered_by": "mcp_flow.user.answered_by",
    "timed_out": "mcp_flow.user.timed_out",
}
USER_ANSWER_FIELDS = ("action", "content", "answered_by", "timed_out")


# 2026-07-28: one logical call over several rounds (`flow.trace.rounds`). Each round's tools/call spans keep the
# execute_tool span of the model's call as their parent and say which logical call and round they are; what the
# rounds carry (the input-required result's requests and state, the retried call's answers and echoed state) is kept
# so an import rebuilds the same frames and pairs them again by request state. A retry that names no single state
# gets no logical call: it is shown unpaired, not guessed.
LOGICAL_CALL_ATTR = "mcp_flow.logical_call"
ROUND_ATTR = "mcp_flow.round"
CALL_STATE_ATTR = "mcp_flow.call.request_state"
CALL_RESPONSES_ATTR = "mcp_flow.call.input_responses"
REQUIRED_STATE_ATTR = "mcp_flow.input_required.request_state"
REQUIRED_REQUESTS_ATTR = "mcp_flow.input_required.input_requests"
# 2025-11-25: a request the server sent the client, with its parameters and the client's result (the conventions
# record neither)
SERVER_PARAMS_ATTR = "mcp_flow.request.params"
CLIENT_RESULT_ATTR = "mcp_flow.response.result"


class NothingRecorded(TraceError):
    """Recordings with no MCP message and no model exchange in them: nothing to show. Worded once, for the file
    reader (`import`), `merge` and `record` alike."""

    def __init__(self, names: str) -> None:
        super().__init__(f"{names}: nothing recorded (no MCP message and no model exchange)")


def json_or_text(text: Any) -> Any:
    """A string holding JSON as its values; anything else, or a string that is not JSON, as it is."""
    if not isinstance(text, str):
        return text
    ok, value = read_json_text(text)
    return value if ok else text  # arguments a model got wrong stay as it wrote them


# Requests and notifications the MCP spec has the server send; every other method goes client to server.
SERVER_METHODS = {
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "notifications/message",
    "notifications/progress",
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
    "notifications/prompts/list_changed",
    "notifications/subscriptions/acknowledged",
}


# Set-up and listing belong to step 2, as the orchestrator records them; tools/call is 6 and its answer 7.
STEP2_METHODS = {
    "initialize",
    "notifications/initialized",
    "server/discover",
    "tools/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "ping",
    "resources/subscribe",
    "subscriptions/listen",
}


def method_step(method: str) -> Step | None:
    return Step.CALL_TOOL if method == "tools/call" else Step.LIST_TOOLS if method in STEP2_METHODS else None


@dataclass
class Hops:
    """Hops numbered in the order they are added, built and validated by the hop factory; times in ms from the
    recording's start."""

    name: str
    hops: list[Hop] = field(default_factory=list)
    session: int | None = None  # the MCP session the next frames crossed in, when a recording holds several

    def add(
        self,
        draft: Draft[Any],
        *,
        t_start_ms: float,
        t_end_ms: float,
        rnd: int = 0,
        inferred: str | None = None,
    ) -> None:
        """The hop `draft` describes, numbered, at the recording's times. `inferred`: what a merge of the proxies'
        recordings guessed (the hop crossed no wire they saw), and how; its line says so."""
        seq = len(self.hops) + 1
        extra: dict[str, Any] = {}
        if draft.progress_of is not None:  # the request a progress notification reports on, when known
            extra["progress_of"] = draft.progress_of
        summary = draft.summary
        if draft.session is not None:  # a hop placed again (a merge): its line says its session already
            extra["session"] = draft.session
        elif self.session is not None:
            extra["session"] = self.session
            summary = f"session {self.session} · {summary}"
        if inferred:
            extra["inferred"] = inferred
            summary = f"{summary} (inferred)"
        try:
            self.hops.append(
                checked_hop(
                    seq=seq,
                    kind=draft.kind,
                    source=draft.source,
                    target=draft.target,
                    payload=draft.payload,
                    step=draft.step,
                    phase=draft.phase,
                    direction=draft.direction,
                    rnd=rnd,
                    t_start_ms=round(t_start_ms, 3),
                    t_end_ms=round(max(t_start_ms, t_end_ms), 3),
                    jsonrpc_id=draft.jsonrpc_id,
                    tool_call_id=draft.tool_call_id,
                    usage=draft.usage,
                    summary=summary,
                    extra=extra or None,
                )
            )
        except ValidationError as exc:  # a value of the recording no trace can hold (a time beyond range, ...)
            err = exc.errors()[0]
            where = ".".join(str(part) for part in err["loc"])
            raise TraceError(f"{self.name}: hop {seq} ({draft.kind}) would have {where}: {err['msg']}") from None


def finish(meta: TraceMeta, hops: list[Hop], name: str) -> Trace:
    """Stats, then the redaction and the validation a saved trace gets: an imported trace is a trace like any other,
    and holds no credential from the moment it is one (a hosted MCP token a provider echoed, say)."""
    start = min((h.t_start_ms for h in hops), default=0.0)
    end = max((h.t_end_ms for h in hops), default=0.0)
    meta.stats = hop_stats(hops, end - start)
    data = Trace(meta=meta, hops=hops).file_data()
    if credentials(data):  # most recordings hand none on: the whole redaction is left to the file's writer
        data = redact_recording(data)
    return parse_trace(data, name=name)


def quoted(value: Any, width: int = 60) -> str:
    """A value from the input, for a message: quoted, and clipped."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def json_line(raw: str, where: str) -> Any:
    """One JSON value, refused in one line when it is not JSON or holds what no trace can (see `json_value_problem`)."""
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise TraceError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError as exc:  # a number too long to convert
        raise TraceError(f"{where}: not JSON ({exc})") from None
    problem = json_value_problem(value)
    if problem:
        raise TraceError(f"{where}: {problem}")
    return value
