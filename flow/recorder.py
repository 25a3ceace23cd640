"""The recorder: numbers hops from its own counter and stamps them with the run's clock.

The orchestrator sets the context (round, the step the app is in); the wire taps call
`record` with what they saw. Order comes from `seq`, never from the timestamps.
"""

from __future__ import annotations

import json
import re
import time

import pydantic_core
from collections.abc import Callable, Iterable
from typing import Any

from flow.redact import needs_redaction, redact, secret_values
from flow.trace import (
    MAX_DEPTH,
    PAYLOAD_DEPTH,
    STEP_PHASE,
    Actor,
    Direction,
    Hop,
    Kind,
    Phase,
    usage_counts,
    writable_json,
)

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def json_bytes(payload: Any) -> bytes:
    """Compact JSON as UTF-8; pydantic-core's encoder is several times faster than the json module's."""
    try:
        return pydantic_core.to_json(payload)
    except pydantic_core.PydanticSerializationError:
        # backslashreplace: a lone surrogate (pydantic-core refuses it) becomes its escape, which `record` spots
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)
        return text.encode("utf-8", "backslashreplace")


def compact_json(payload: Any) -> str:
    """Compact JSON text."""
    return json_bytes(payload).decode()


_HOP_FIELDS = frozenset(Hop.model_fields)  # copied per hop: a set copies a frozenset faster than a tuple


def _trusted_hop(values: dict[str, Any]) -> Hop:
    """A hop from every field's value, typed by `Recorder.record`'s signature: what `Hop.model_construct` does
    (the same four attributes), without its loop over aliases and defaults, or a validator's pass. Run
    amid the SDKs' work, either of those costs recording a third of its time per hop."""
    hop = Hop.__new__(Hop)
    _set = object.__setattr__
    _set(hop, "__dict__", values)
    _set(hop, "__pydantic_fields_set__", set(_HOP_FIELDS))
    _set(hop, "__pydantic_extra__", {})
    _set(hop, "__pydantic_private__", None)
    return hop


class Recorder:
    """Collects hops for one run."""

    enabled = True

    def __init__(self, *, secrets: Iterable[str] = (), on_hop: Callable[[Hop], None] | None = None) -> None:
        self.hops: list[Hop] = []
        self.round = 0
        self.step: int | None = None  # the numbered step the app is in; wire frames default to it
        self._secrets = secret_values(secrets) if self.enabled else []  # the baseline leaves recording's work undone
        self._secrets_utf8 = [v.encode() for v in self._secrets]
        self._on_hop = on_hop
        self._t0 = time.perf_counter()

    def now_ms(self) -> float:
        return round((time.perf_counter() - self._t0) * 1000, 3)

    def record(
        self,
        *,
        kind: Kind,
        source: Actor,
        target: Actor,
        payload: Any,
        step: int | None = None,
        phase: Phase | None = None,
        direction: Direction = "event",
        t_start_ms: float | None = None,
        size: int | None = None,
        wire_text: str | bytes | None = None,
        jsonrpc_id: int | str | None = None,
        tool_call_id: str | None = None,
        usage: dict[str, Any] | None = None,
        summary: str = "",
    ) -> Hop:
        """`wire_text`, when the caller has it, is everything in the payload as text or as UTF-8 (what crossed
        the wire, plus any URL): it is searched for secrets instead of serialising the payload again."""
        now = self.now_ms()
        wire = json_bytes(payload) if wire_text is None else wire_text
        if isinstance(wire, str):
            wire = wire.encode("utf-8", "backslashreplace")
        if _SURROGATE_ESCAPE.search(wire):  # JSON text escaped half a UTF-16 pair, which no file can hold
            payload, summary, jsonrpc_id, tool_call_id = writable_json((payload, summary, jsonrpc_id, tool_call_id))
        if wire.count(b"[") + wire.count(b"{") >= MAX_DEPTH - PAYLOAD_DEPTH:  # it might nest too deeply to load
            payload = writable_json(payload, depth=PAYLOAD_DEPTH)
        if needs_redaction(wire, self._secrets_utf8):  # the walk is the costly part of recording; most hops skip it
            payload = redact(payload, self._secrets)
            wire = json_bytes(payload)
        hop = _trusted_hop(
            {
                "seq": len(self.hops) + 1,
                "step": step,
                "phase": phase or (STEP_PHASE[step] if step is not None else None),
                "source": source,
                "target": target,
                "kind": kind,
                "direction": direction,
                "round": self.round,
                "payload": payload,
                "t_start_ms": now if t_start_ms is None else t_start_ms,
                "t_end_ms": now,
                "bytes": len(wire) if size is None else size,
                "jsonrpc_id": jsonrpc_id,
                "tool_call_id": tool_call_id,
                "usage": usage_counts(usage),
                "summary": summary,
                "explain": kind if step is None else f"step{step}.{kind}",
            }
        )
        self.hops.append(hop)
        if self._on_hop is not None:
            self._on_hop(hop)
        return hop

    def restep(self, hop: Hop, step: int) -> None:
        """Move a hop to a step decided after it was recorded (a streamed chunk's step is known at the end)."""
        hop.step = step
        hop.phase = STEP_PHASE[step]
        hop.explain = f"step{step}.{hop.kind}"


class NullRecorder(Recorder):
    """Records nothing: the baseline that measures what recording costs."""

    enabled = False

    def record(self, **kwargs: Any) -> Hop:  # type: ignore[override]
        return _NO_HOP


_NO_HOP = Hop(seq=0, step=None, phase=None, source="app", target="app", kind="error")
