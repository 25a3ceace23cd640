"""Building a hop: one home for what a hop's fields are made of, shared by the recorder and both importers.

A caller says what crossed (kind, sides, payload, step, ids, times); the factory derives the rest as the format
defines it: the phase from the step, the size as compact JSON, the summary clipped to one line's worth.
What is about recording (the counter, the clock, secrets, clipping payloads) stays in the recorder; what is about
reading another tool's recording (its times, its problems) stays in the importers.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic_core

from flow.trace.files import clip_text
from flow.trace.model import Actor, Direction, Hop, Kind, Usage
from flow.trace.steps import STEP_OF, STEPS, Phase

APP_NAME = "mcp-flow-app"


"""The app's name wherever a trace's "app" is named to others: the MCP client's `clientInfo`, the OTLP service."""


SUMMARY_CHARS = 200


"""A summary is one line for a table cell or an arrow; callers build it from the payload, so it is clipped here."""


def json_bytes(payload: Any) -> bytes:
    """Compact JSON as UTF-8, what a hop's `bytes` counts; pydantic-core's encoder is several times faster than
    the json module's."""
    try:
        return pydantic_core.to_json(payload)
    except pydantic_core.PydanticSerializationError:
        # backslashreplace: a lone surrogate (pydantic-core refuses it) becomes its escape, which the recorder spots
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)
        return text.encode("utf-8", "backslashreplace")


def compact_json(payload: Any) -> str:
    """Compact JSON text."""
    return json_bytes(payload).decode()


def phase_of(step: int | None) -> Phase | None:
    return STEPS[STEP_OF[step]].phase if step is not None else None


_OPTIONAL_FIELDS = (
    "clipped",
    "scripted",
    "progress_of",
    "inferred",
    "session",
)  # absent unless set: a file holds them only where they apply
_HOP_FIELDS = frozenset(Hop.model_fields).difference(_OPTIONAL_FIELDS)  # a set copies a frozenset faster than a tuple


def new_hop(
    *,
    seq: int,
    kind: Kind,
    source: Actor,
    target: Actor,
    payload: Any,
    step: int | None,
    phase: Phase | None = None,
    direction: Direction = "event",
    rnd: int = 0,
    t_start_ms: float,
    t_end_ms: float,
    size: int,
    jsonrpc_id: int | str | None = None,
    tool_call_id: str | None = None,
    usage: Usage | None = None,
    summary: str = "",
    extra: dict[str, Any] | None = None,
) -> Hop:
    """A hop from values typed by this signature (the recorder's, amid the SDKs' work): what `Hop.model_construct`
    does (the same four attributes), without its loop over aliases and defaults, or a validator's pass; either of
    those costs recording a third of its time per hop. `extra` holds the fields a hop carries only sometimes
    (`clipped`, `progress_of`). `phase` defaults to the step's."""
    if len(summary) > SUMMARY_CHARS:
        summary = clip_text(summary, SUMMARY_CHARS)
    hop = Hop.__new__(Hop)
    _set = object.__setattr__
    _set(
        hop,
        "__dict__",
        {
            "seq": seq,
            "step": step,
            "phase": phase or phase_of(step),
            "source": source,
            "target": target,
            "kind": kind,
            "direction": direction,
            "round": rnd,
            "payload": payload,
            "t_start_ms": t_start_ms,
            "t_end_ms": t_end_ms,
            "bytes": size,
            "jsonrpc_id": jsonrpc_id,
            "tool_call_id": tool_call_id,
            "usage": usage,
            "summary": summary,
            "clipped": None,
            "scripted": None,
            "progress_of": None,
            "inferred": None,
            "session": None,
            **(extra or {}),
        },
    )
    _set(hop, "__pydantic_fields_set__", set(_HOP_FIELDS) | extra.keys() if extra else set(_HOP_FIELDS))
    _set(hop, "__pydantic_extra__", {})
    _set(hop, "__pydantic_private__", None)
    return hop


def checked_hop(*, size: int | None = None, **fields: Any) -> Hop:
    """The same hop from values read from outside (another tool's recording), validated: raises pydantic's
    `ValidationError` on a value no trace can hold. `size` defaults to the payload's compact JSON."""
    hop = new_hop(size=len(json_bytes(fields.get("payload"))) if size is None else size, **fields)
    return Hop.model_validate({k: v for k, v in hop.__dict__.items() if k in hop.model_fields_set})
