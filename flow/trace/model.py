"""The trace: format version, metadata and hops.

A hop is one message that crossed one boundary. Its kind is drawn from a fixed set so
renderers can branch over kinds exhaustively.
"""

from __future__ import annotations

import io
import json
import re
from typing import Annotated, Any, Literal, get_args

import pydantic_core
from pydantic import BaseModel, ConfigDict, Field, with_config
from typing_extensions import TypedDict, TypeIs

from flow.trace.steps import Phase, Step

FORMAT_VERSION = 1


Actor = Literal["user", "app", "mcp_client", "mcp_server", "tool", "model"]


Mode = Literal["mcp", "direct", "hosted"]


"""How the model gets its tools: the app runs an MCP client (mcp), the app holds the functions (direct), or the
model provider is the MCP client and runs the tool loop itself (hosted)."""


Kind = Literal[
    "prepare.tools",  # step 0: the tool list as it was built (decorators or hand-written schemas)
    "user.message",  # step 1: the question
    "user.input",  # a server's question put to the user (elicitation), and the user's answer
    "tool.list",  # direct mode step 2: the app's local tool schemas
    "client.result",  # what the MCP client hands the app: the tool list, a resource, a prompt
    "mcp.request",  # a JSON-RPC request frame on the MCP transport
    "mcp.response",  # a JSON-RPC result frame
    "mcp.error",  # a JSON-RPC error frame
    "mcp.notification",  # a JSON-RPC notification frame
    "mcp.reported",  # hosted MCP: an MCP exchange the model provider says it made (rebuilt from its report, not seen)
    "translate.forward",  # MCP inputSchema -> OpenAI function parameters
    "llm.request",  # HTTP request body the openai SDK sent
    "llm.response",  # HTTP response body it received
    "llm.chunk",  # one server-sent event of a streamed response
    "llm.assembled",  # the assistant message the app assembled from chunks
    "llm.error",  # an HTTP error status or a transport failure talking to the model
    "translate.reverse",  # tool_call (JSON string arguments) -> call request (parsed arguments)
    "tool.invoke",  # direct mode: the app calls the Python function
    "tool.result",  # the result as the app receives it
    "app.answer",  # step 10: the answer shown to the user
    "error",  # a failure the app detected (bad arguments, dead server, round limit, ...)
    "replay.divergence",  # a re-run departed from the recording it replays
]


Direction = Literal["request", "response", "notification", "error", "event"]


ACTORS: tuple[Actor, ...] = get_args(Actor)


KINDS: tuple[Kind, ...] = get_args(Kind)


PHASES: tuple[Phase, ...] = get_args(Phase)


MAX_MS = 1e12


"""Hop times are milliseconds from the run's start: a bound far beyond any run (31 years) keeps every sum finite."""


MAX_COUNT = 10**12


"""Counters (bytes, tokens, rounds, hops) above this are not a recording's."""


MAX_DEPTH = 254


"""JSON nested deeper than this is refused: no recording nests so deep, every reader recurses over payloads, and
it is where pydantic-core's encoder (which `json_value_problem` runs first) stops."""


Millis = Annotated[float, Field(ge=-MAX_MS, le=MAX_MS, allow_inf_nan=False)]


Count = Annotated[int, Field(strict=True, ge=0, le=MAX_COUNT)]


@with_config(ConfigDict(extra="allow"))
class Usage(TypedDict, total=False):
    """Token counts a model reported (OpenAI's `usage`); other fields the provider sent are kept as they came."""

    prompt_tokens: Count | None
    completion_tokens: Count | None
    total_tokens: Count | None


@with_config(ConfigDict(extra="allow"))
class Stats(TypedDict, total=False):
    """The figures `hop_stats` computes for `TraceMeta.stats`."""

    hops: Count
    model_calls: Count
    tool_calls: Count
    wire_frames: Count  # JSON-RPC frames on the MCP transport (the mcp.* hops); the model's HTTP is not counted
    elapsed_ms: Annotated[float, Field(ge=0, le=2 * MAX_MS, allow_inf_nan=False)]
    prompt_tokens: Count
    completion_tokens: Count


def is_object(value: object) -> TypeIs[dict[str, Any]]:
    """Whether a JSON value is an object. isinstance checks only that it is a dict; decoded JSON's keys are
    strings, and its values any JSON, which this says so that a reader's `.get` is typed."""
    return isinstance(value, dict)


def is_array(value: object) -> TypeIs[list[Any]]:
    """Whether a JSON value is an array (a list: what `json.loads` and pydantic's dump make of one)."""
    return isinstance(value, list)


def is_sequence(value: object) -> TypeIs[list[Any] | tuple[Any, ...]]:
    """Whether a value is one JSON writes as an array: a list, or a tuple built in code."""
    return isinstance(value, (list, tuple))


def usage_counts(usage: Any) -> Usage | None:
    """A model's `usage` object as a hop keeps it: the token counts that are counts, the rest dropped (the
    payload keeps the body as it came), in Chat Completions' names (Responses and Messages say `input_tokens` and
    `output_tokens`). What a provider sends must never make a trace its loader refuses."""
    if not is_object(usage):
        return None

    def count(key: str, other: str = "") -> int | None:
        value = usage.get(key, usage.get(other))
        return value if type(value) is int and 0 <= value <= MAX_COUNT else None

    out: Usage = {}
    if (prompt := count("prompt_tokens", "input_tokens")) is not None:
        out["prompt_tokens"] = prompt
    if (completion := count("completion_tokens", "output_tokens")) is not None:
        out["completion_tokens"] = completion
    if (total := count("total_tokens")) is not None:
        out["total_tokens"] = total
    return out or None


def _absent(value: object) -> bool:
    return value is None


class Hop(BaseModel):
    """One event in a trace: a message crossing from one actor to another. `payload` holds the type its kind
    has (`flow.trace.payloads`); the loader checks it, and readers take it through `payload_of`."""

    model_config = ConfigDict(extra="allow")

    seq: int
    step: Step | None
    phase: Phase | None
    source: Actor
    target: Actor
    kind: Kind
    direction: Direction = "event"
    round: Count = 0
    payload: Any = None
    t_start_ms: Millis = 0.0
    t_end_ms: Millis = 0.0
    bytes: Count = 0
    jsonrpc_id: int | str | None = None
    tool_call_id: str | None = None
    usage: Usage | None = None
    summary: str = ""
    # Present only where they say something: a file holds no null for them, and a file without them loads.
    clipped: str | None = Field(default=None, exclude_if=_absent)  # what the recorder cut from the payload
    scripted: bool | None = Field(default=None, exclude_if=_absent)  # a model hop answered by the user's script
    progress_of: int | str | None = Field(default=None, exclude_if=_absent)  # the request a progress notice is about
    # A hop a merge of the proxies' recordings inferred (it crossed no wire they saw): what was guessed, and how.
    inferred: str | None = Field(default=None, exclude_if=_absent)
    # The MCP session a frame crossed in, numbered from 1 in the order they began, when a recording holds several
    # (an inspector opens three through one proxy-http); never the session's id, a credential of the session.
    session: Count | None = Field(default=None, exclude_if=_absent)


def as_dict(value: Any) -> dict[str, Any]:
    """A payload part that should be an object, or {}: a payload is whatever was recorded (or written by hand),
    so every reader takes its parts through these two instead of trusting their shape."""
    return value if is_object(value) else {}


def as_list(value: Any) -> list[Any]:
    """A payload part that should be an array, or []."""
    return value if is_array(value) else []


ImportFormat = Literal["jsonrpc-jsonl", "otlp-json", "proxy-jsonl"]


class ImportInfo(BaseModel):
    """Where an imported trace came from, and what of the recording could not become hops."""

    format: ImportFormat
    file: str
    unmapped: list[str] = Field(default_factory=list)


class TraceMeta(BaseModel):
    """What the run was: mode, question, model, server, settings, and how it ended."""

    model_config = ConfigDict(extra="allow")

    mode: Mode
    question: str
    model: dict[str, Any] = Field(default_factory=dict)
    server: dict[str, Any] | None = None
    settings: dict[str, Any] = Field(default_factory=dict)
    started_at: str = ""
    outcome: Literal["ok", "error", "unknown"] = "ok"  # unknown: a recording that cannot say (no exit code)
    answer: str | None = None
    error: str | None = None
    error_zh: str | None = None  # the same line in Chinese, for the app
    stats: Stats = Field(default_factory=lambda: Stats())
    title: dict[str, str] | None = None  # samples: {"zh": ..., "en": ...}
    note: dict[str, str] | None = None  # samples: a teaching paragraph in both languages
    sample: str | None = None  # samples: the name it is generated under
    replay: dict[str, Any] | None = None  # set on a re-run: what was replayed and where it diverged
    imported: ImportInfo | None = None  # set by `python -m flow import`: recorded by another tool


class Trace(BaseModel):
    """A recorded run. Files carry `format_version`; see `FORMAT_POLICY`."""

    model_config = ConfigDict(extra="allow")

    format_version: int = FORMAT_VERSION
    meta: TraceMeta
    hops: list[Hop] = Field(default_factory=list[Hop])

    def file_data(self) -> dict[str, Any]:
        """The trace as JSON values; a payload nested too deeply for the encoder (built in code, or parsed from
        a string inside a recording) is cut where the loader would refuse it."""
        try:
            return self.model_dump(mode="json")
        except ValueError:  # pydantic-core: "Maximum serialization depth exceeded"
            hops = [h.model_copy(update={"payload": writable_json(h.payload, depth=PAYLOAD_DEPTH)}) for h in self.hops]
            return self.model_copy(update={"hops": hops}).model_dump(mode="json")

    def to_json(self) -> str:
        """The file text: one more redaction pass catches any secret the recorder could not know."""
        from flow.trace.redact import assert_no_secrets, redact_recording

        data = writable_json(self.file_data())  # so what is written always loads
        text = indented_json(redact_recording(data))
        assert_no_secrets(text)
        return text


def indented_json(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, indent=1)`, written piece by piece: dumps keeps every piece of an
    indented text in one list before joining them (500 MB for a trace of 3 million keys)."""
    out = io.StringIO()
    for piece in json.JSONEncoder(ensure_ascii=False, indent=1).iterencode(value):
        out.write(piece)
    return out.getvalue()


LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # in a str, a pair is one code point: any surrogate is alone


PAYLOAD_DEPTH = 3


"""How deep a hop's payload sits in a trace file (`hops[i].payload`)."""


def writable_json(value: Any, *, depth: int = 0) -> Any:
    """The value as a file can hold it and `json_value_problem` lets back in: every lone surrogate replaced by
    U+FFFD, every part nested deeper than `MAX_DEPTH` (counted from the file's top, the value sitting `depth`
    levels down) replaced by a note saying so. For a whole file, one fast encoder pass tells when nothing
    needs to change, and the same object comes back."""
    if depth == 0:
        try:
            pydantic_core.to_json(value, inf_nan_mode="constants")
            return value
        except (pydantic_core.PydanticSerializationError, ValueError, RecursionError):
            pass
    return _writable(value, depth)


def _writable(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value)
    if not (is_object(value) or is_sequence(value)):
        return value
    if depth >= MAX_DEPTH:
        return f"(nested more than {MAX_DEPTH} levels deep: left out)"
    if is_object(value):
        return {_writable(k, depth): _writable(v, depth + 1) for k, v in value.items()}
    return type(value)(_writable(v, depth + 1) for v in value)
