"""The trace: format version, metadata and hops, with one adapter to save and load it.

A hop is one message that crossed one boundary. Its kind is drawn from a fixed set so
renderers can branch over kinds exhaustively.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

FORMAT_VERSION = 1

Actor = Literal["user", "app", "mcp_client", "mcp_server", "tool", "model"]
Phase = Literal["prepare", "request", "decision", "execute", "backfill", "answer"]
Mode = Literal["mcp", "direct"]
Kind = Literal[
    "prepare.tools",  # step 0: the tool list as it was built (decorators or hand-written schemas)
    "user.message",  # step 1: the question
    "tool.list",  # direct mode step 2: the app's local tool schemas
    "mcp.request",  # a JSON-RPC request frame on the MCP transport
    "mcp.response",  # a JSON-RPC result frame
    "mcp.error",  # a JSON-RPC error frame
    "mcp.notification",  # a JSON-RPC notification frame
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
]
Direction = Literal["request", "response", "notification", "error", "event"]

ACTORS: tuple[Actor, ...] = get_args(Actor)
KINDS: tuple[Kind, ...] = get_args(Kind)
PHASES: tuple[Phase, ...] = get_args(Phase)

# Which phase each numbered step of the design table belongs to.
STEP_PHASE: dict[int, Phase] = {
    0: "prepare",
    1: "request",
    2: "request",
    3: "request",
    4: "decision",
    5: "execute",
    6: "execute",
    7: "execute",
    8: "backfill",
    9: "answer",
    10: "answer",
}


class Hop(BaseModel):
    """One event in a trace: a message crossing from one actor to another."""

    model_config = ConfigDict(extra="allow")

    seq: int
    step: int | None
    phase: Phase | None
    source: Actor
    target: Actor
    kind: Kind
    direction: Direction = "event"
    round: int = 0
    payload: Any = None
    t_start_ms: float = 0.0
    t_end_ms: float = 0.0
    bytes: int = 0
    jsonrpc_id: int | str | None = None
    tool_call_id: str | None = None
    usage: dict[str, Any] | None = None
    summary: str = ""
    explain: str = ""


class TraceMeta(BaseModel):
    """What the run was: mode, question, model, server, settings, and how it ended."""

    model_config = ConfigDict(extra="allow")

    mode: Mode
    question: str
    model: dict[str, Any] = Field(default_factory=dict)
    server: dict[str, Any] | None = None
    settings: dict[str, Any] = Field(default_factory=dict)
    started_at: str = ""
    outcome: Literal["ok", "error"] = "ok"
    answer: str | None = None
    error: str | None = None
    stats: dict[str, Any] = Field(default_factory=dict)


class Trace(BaseModel):
    model_config = ConfigDict(extra="allow")

    format_version: int = FORMAT_VERSION
    meta: TraceMeta
    hops: list[Hop] = Field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), ensure_ascii=False, indent=1)


class TraceError(Exception):
    """A trace file that cannot be used; the message is one line for the user."""


def save_trace(trace: Trace, path: str | Path) -> Path:
    from flow.redact import assert_no_secrets

    text = trace.to_json()
    assert_no_secrets(text)
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)  # never leave a half-written trace behind
    return path


def load_trace(path: str | Path) -> Trace:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TraceError(f"{path}: no such file") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TraceError(f"{path}: not a JSON trace ({exc})") from None
    return parse_trace(data, name=str(path))


def parse_trace(data: Any, *, name: str = "trace") -> Trace:
    from pydantic import ValidationError

    if not isinstance(data, dict):
        raise TraceError(f"{name}: a trace is a JSON object, got {type(data).__name__}")
    version = data.get("format_version")
    if isinstance(version, int) and version > FORMAT_VERSION:
        raise TraceError(f"{name}: written by a newer version (format {version}; this one reads up to {FORMAT_VERSION})")
    try:
        return Trace.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in err["loc"]).replace(".[", "[")
        raise TraceError(f"{name}: {where}: {err['msg']}") from None
