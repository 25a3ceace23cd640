"""The recorder: numbers hops from its own counter and stamps them with the run's clock.

The orchestrator sets the context (round, the step the app is in); the wire taps call
`record` with what they saw. Order comes from `seq`, never from the timestamps.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from typing import Any

from flow.trace.factory import json_bytes, new_hop
from flow.trace.files import MAX_HOPS, MAX_STRING_CHARS, clip_strings
from flow.trace.hops import Draft, recording_stopped
from flow.trace.model import MAX_DEPTH, PAYLOAD_DEPTH, Hop, writable_json
from flow.trace.payloads import Adaptation, ServerAsk
from flow.trace.redact import credentials, needs_redaction, redact, secret_values
from flow.trace.steps import Step

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


HOP_PAYLOAD_BYTES = 1 << 20


"""A hop's payload over this (as compact JSON) is clipped: its long text values are cut (`CLIPPED_TEXT_CHARS`),
or, if that is not enough, only the start of its JSON is kept. A 10 MB tool result is copied into the frame, the
tool message and every later model request; unclipped, one run wrote a 73 MB trace its own loader refused."""


CLIPPED_TEXT_CHARS = 64 * 1024


"""What a clipped hop keeps of each long text value, or of its whole JSON: enough to read, far under the limits."""


RUN_PAYLOAD_BYTES = 20 << 20


"""Payloads kept for one run: past this, hops are recorded without their payload. `MAX_HOPS` hops without their
payloads take under 20 MB (about 400 bytes each, plus a summary), so the file stays under `MAX_TRACE_BYTES`
with room for `meta` (`save_trace` drops the indentation if it must)."""


assert HOP_PAYLOAD_BYTES <= MAX_STRING_CHARS  # a payload within budget cannot hold a string over the limit


SERVER_ASK: ContextVar[ServerAsk | None] = ContextVar("server_ask", default=None)


"""Set while the host asks its model for an MCP server (sampling): the model tap marks the hops it records with it.
A context variable, because several tool calls may run at once and only the one that asked is answering."""


class Recorder:
    """Collects hops for one run."""

    enabled = True

    def __init__(self, *, secrets: Iterable[str] = (), on_hop: Callable[[Hop], None] | None = None) -> None:
        self.hops: list[Hop] = []
        self.round = 0
        self.step: Step | None = None  # the numbered step the app is in; wire frames default to it
        # What the app changed in the request it is sending, so that its hop says so (`flow.engine.loop`).
        self.adaptations: list[Adaptation] = []
        self._secrets = secret_values(secrets) if self.enabled else []  # the baseline leaves recording's work undone
        self._secrets_utf8 = [v.encode() for v in self._secrets]
        self._on_hop = on_hop
        self._t0 = time.perf_counter()
        self._payload_bytes = 0  # payload bytes kept so far, held to RUN_PAYLOAD_BYTES
        self.dropped = 0  # hops past MAX_HOPS, handed back to their callers but not kept

    def now_ms(self) -> float:
        return round((time.perf_counter() - self._t0) * 1000, 3)

    def add(
        self,
        draft: Draft[Any],
        *,
        t_start_ms: float | None = None,
        t_end_ms: float | None = None,
        size: int | None = None,
        wire_text: str | bytes | None = None,
    ) -> Hop:
        """The hop `draft` describes, numbered and timed, its secrets redacted and its payload held to the limits.

        `wire_text`, when the caller has it, is everything in the payload as text or as UTF-8 (what crossed the wire,
        plus any URL): it is searched for secrets instead of serialising the payload again. `t_end_ms` (default
        now): for what happened before the app learned of it, as a server's report."""
        now = self.now_ms()
        seq = len(self.hops) + 1
        step = draft.step
        if seq >= MAX_HOPS:
            return self._past_limit(draft, now if t_start_ms is None else t_start_ms)
        payload, summary, jsonrpc_id, tool_call_id, wire_bytes = self._writable(draft, wire_text)
        clipped = None
        # Two comparisons a hop: only an oversized payload, or one past the run's budget, costs more.
        if wire_bytes > HOP_PAYLOAD_BYTES or self._payload_bytes + wire_bytes > RUN_PAYLOAD_BYTES:
            payload, kept, clipped = self._clip(payload, wire_bytes)
            self._payload_bytes += kept
        else:
            self._payload_bytes += wire_bytes
        extra: dict[str, Any] | None = None  # fields a hop carries only sometimes: what was cut, a progress's request
        if clipped or draft.progress_of is not None:
            extra = {"clipped": clipped} if clipped else {}
            if draft.progress_of is not None:
                extra["progress_of"] = draft.progress_of
        hop = new_hop(
            seq=seq,
            kind=draft.kind,
            source=draft.source,
            target=draft.target,
            payload=payload,
            step=step,
            phase=draft.phase,
            direction=draft.direction,
            rnd=self.round,
            t_start_ms=now if t_start_ms is None else t_start_ms,
            t_end_ms=now if t_end_ms is None else t_end_ms,
            size=wire_bytes if size is None else size,
            jsonrpc_id=jsonrpc_id,
            tool_call_id=tool_call_id,
            usage=draft.usage,
            summary=summary,
            extra=extra,
        )
        self.hops.append(hop)
        if self._on_hop is not None:
            self._on_hop(hop)
        return hop

    def _writable(
        self, draft: Draft[Any], wire_text: str | bytes | None
    ) -> tuple[Any, str, int | str | None, str | None, int]:
        """The draft's payload, summary and ids as a trace can hold them (JSON a file can hold, nested no deeper
        than a load takes, the run's secrets redacted), and the payload's size in bytes."""
        payload, summary, jsonrpc_id, tool_call_id = draft.payload, draft.summary, draft.jsonrpc_id, draft.tool_call_id
        wire = json_bytes(payload) if wire_text is None else wire_text
        if isinstance(wire, str):
            wire = wire.encode("utf-8", "backslashreplace")
        if _SURROGATE_ESCAPE.search(wire):  # JSON text escaped half a UTF-16 pair, which no file can hold
            payload, summary, jsonrpc_id, tool_call_id = writable_json((payload, summary, jsonrpc_id, tool_call_id))
        if wire.count(b"[") + wire.count(b"{") >= MAX_DEPTH - PAYLOAD_DEPTH:  # it might nest too deeply to load
            payload = writable_json(payload, depth=PAYLOAD_DEPTH)
        if needs_redaction(wire, self._secrets_utf8):  # the walk is the costly part of recording; most hops skip it
            self.add_secret(*credentials(payload))  # the run's own and any other: a provider may echo it anywhere
            payload = redact(payload, self._secrets)
            wire = json_bytes(payload)
        if self._secrets and summary and any(s in summary for s in self._secrets):
            summary = redact(summary, self._secrets)
        return payload, summary, jsonrpc_id, tool_call_id, len(wire)

    def add_secret(self, *values: str) -> None:
        """More values never to write, learnt during the run (the token that marks a stdio server's processes:
        a server that prints its environment would otherwise hand it to the trace)."""
        if self.enabled and any(v not in self._secrets for v in values):
            self._secrets = secret_values([*self._secrets, *values])
            self._secrets_utf8 = [v.encode() for v in self._secrets]

    def scrub(self, value: Any) -> Any:
        """`value` with the run's secrets (those this recorder was given, and the environment's) replaced: for
        what a run keeps beside its hops, such as the answer and the error line."""
        return redact(value, self._secrets) if self._secrets and value is not None else value

    def _clip(self, payload: Any, wire_bytes: int) -> tuple[Any, int, str]:
        """The payload as the trace keeps it, its size, and what was cut: long text values cut short; if that is
        not enough, the start of its JSON as text; past the run's budget, nothing."""
        if self._payload_bytes + min(wire_bytes, HOP_PAYLOAD_BYTES) > RUN_PAYLOAD_BYTES:
            return (
                None,
                0,
                (
                    f"payload of {wire_bytes:,} bytes not kept: this run's payloads reached the "
                    f"{RUN_PAYLOAD_BYTES // 2**20} MB a trace keeps"
                ),
            )
        try:
            cut, count = clip_strings(payload, CLIPPED_TEXT_CHARS)
            kept = json_bytes(cut)
        except RecursionError:
            cut, count, kept = None, 0, b""
        if count and len(kept) <= HOP_PAYLOAD_BYTES:
            return (
                cut,
                len(kept),
                (
                    f"payload of {wire_bytes:,} bytes: {count} text value(s) over "
                    f"{CLIPPED_TEXT_CHARS:,} characters cut short"
                ),
            )
        start = json_bytes(payload)[:CLIPPED_TEXT_CHARS].decode(errors="ignore")
        return (
            start,
            len(start),
            (f"payload of {wire_bytes:,} bytes: only the first {CLIPPED_TEXT_CHARS:,} bytes of its JSON kept, as text"),
        )

    def _past_limit(self, draft: Draft[Any], t_start_ms: float) -> Hop:
        """A hop past `MAX_HOPS` is handed back but not kept; the trace's last hop says where recording stopped."""
        self.dropped += 1
        if len(self.hops) == MAX_HOPS - 1:
            note = f"the trace reached its limit of {MAX_HOPS:,} hops: the hops after this one were not recorded"
            stop = recording_stopped(note)
            now = self.now_ms()
            self.hops.append(_hop(stop, seq=MAX_HOPS, rnd=self.round, t_start_ms=now, t_end_ms=now))
            if self._on_hop is not None:
                self._on_hop(self.hops[-1])
        kept = Draft(draft.kind, draft.source, draft.target, None, draft.step, draft.direction, _NOT_RECORDED)
        return _hop(kept, seq=0, rnd=self.round, t_start_ms=t_start_ms, t_end_ms=self.now_ms())

    def restep(self, hop: Hop, step: Step) -> None:
        """Move a hop to a step decided after it was recorded (a streamed chunk's step is known at the end)."""
        hop.step = step
        hop.phase = step.phase


class NullRecorder(Recorder):
    """Records nothing: the baseline that measures what recording costs."""

    enabled = False

    def add(self, draft: Draft[Any], **stamp: Any) -> Hop:
        return _NO_HOP


_NO_HOP = Hop(seq=0, step=None, phase=None, source="app", target="app", kind="error")


_NOT_RECORDED = "not recorded: past the trace's hop limit"


def _hop(draft: Draft[Any], *, seq: int, rnd: int, t_start_ms: float, t_end_ms: float) -> Hop:
    """A hop from a draft with no payload work to do (the limit's own hops)."""
    return new_hop(
        seq=seq,
        kind=draft.kind,
        source=draft.source,
        target=draft.target,
        payload=draft.payload,
        step=draft.step,
        direction=draft.direction,
        rnd=rnd,
        t_start_ms=t_start_ms,
        t_end_ms=t_end_ms,
        size=0,
        summary=draft.summary,
    )
