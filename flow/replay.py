"""Replaying a trace: a cursor to step through it, and an offline re-run against a replay model.

The replay model is one more transport behind the openai SDK: it serves the model responses
recorded in a trace, in order, and checks each request against the recorded one. The tools
really run again. Wherever the re-run departs from the recording, a `replay.divergence` hop
says so.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2

from flow.model_side import ModelConfig
from flow.orchestrator import RunOptions, RunResult, run_flow
from flow.recorder import Recorder
from flow.samples import normalise
from flow.trace import Hop, Phase, Trace, TraceError


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
    out: list[Exchange] = []
    for hop in trace.hops:
        payload = hop.payload if isinstance(hop.payload, dict) else {}
        if hop.kind == "llm.request":
            out.append(Exchange(request=payload.get("body")))
        elif not out:
            continue
        elif hop.kind == "llm.response" or (hop.kind == "llm.error" and "status" in payload):
            out[-1].status, out[-1].body = payload.get("status", 200), payload.get("body")
        elif hop.kind == "llm.error":
            out[-1].transport_error = str(payload.get("error") or "ConnectError")
        elif hop.kind == "llm.chunk":
            if out[-1].events is None:
                out[-1].events, out[-1].status = [], payload.get("status", 200)
            out[-1].events.append(payload.get("data"))
    return out


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The JSON path of the first place two values differ, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{path}.{key}".lstrip(".") + (": only in the recording" if key in a else ": only in the re-run")
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path.lstrip('.')}: {len(a)} items recorded, {len(b)} now"
        return None
    if a != b:
        return f"{path.lstrip('.') or '(body)'}: recorded {json.dumps(a, ensure_ascii=False)[:60]}, now {json.dumps(b, ensure_ascii=False)[:60]}"
    return None


class _Events(httpx2.AsyncByteStream):
    def __init__(self, events: list[Any]) -> None:
        self._events = events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for data in self._events:
            text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
            await anyio.sleep(0)
            yield f"data: {text}\n\n".encode()


@dataclass
class ReplayModelTransport(httpx2.AsyncBaseTransport):
    """Serves recorded responses by position; a request unlike the recorded one is a divergence."""

    exchanges: list[Exchange]
    recorder: Recorder
    served: int = 0
    divergences: list[str] = field(default_factory=list)

    def _diverge(self, text: str, **extra: Any) -> None:
        self.divergences.append(text)
        self.recorder.record(kind="replay.divergence", source="model", target="app", payload={"divergence": text, **extra},
                             step=self.recorder.step, direction="event", summary=text)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(await request.aread())
        n = self.served
        self.served += 1
        if n >= len(self.exchanges):
            message = f"the recording has no response for model request #{n + 1} (it holds {len(self.exchanges)})"
            self._diverge(message, request_number=n + 1)
            return httpx2.Response(500, json={"error": {"message": message, "type": "replay_exhausted"}})
        recorded = self.exchanges[n]
        diff = first_difference(normalise(recorded.request), normalise(body))
        if diff:
            self._diverge(f"model request #{n + 1} differs from the recording at {diff}", request_number=n + 1)
        if recorded.transport_error:
            error_type = getattr(httpx2, recorded.transport_error, httpx2.ConnectError)
            raise error_type(f"replayed {recorded.transport_error}", request=request)
        if recorded.events is not None:
            return httpx2.Response(recorded.status or 200, headers={"content-type": "text/event-stream"},
                                   stream=_Events(recorded.events))
        return httpx2.Response(recorded.status or 200, json=recorded.body)


def replay(trace: Trace, *, source: str = "", transport: str | None = None) -> RunResult:
    """Re-run a recorded flow offline: the recorded model answers, the tools run again."""
    meta = trace.meta
    settings = dict(meta.settings)
    if transport:
        settings["transport"] = transport
    options = RunOptions.from_settings({**settings, "mode": meta.mode})
    model = ModelConfig(backend="replay", model=str(meta.model.get("name") or "replay"),
                        base_url=meta.model.get("base_url"), timeout_s=float(meta.model.get("timeout_s") or 60))
    recorded_results = {h.tool_call_id: h for h in trace.hops if h.kind == "tool.result" and h.tool_call_id}

    def check_tool_result(hop: Hop) -> None:
        if hop.kind != "tool.result" or not hop.tool_call_id:
            return
        before = recorded_results.get(hop.tool_call_id)
        if before is None:
            transport._diverge(f"tool result for {hop.tool_call_id} has no counterpart in the recording",
                                 tool_call_id=hop.tool_call_id)
            return
        diff = first_difference(normalise(before.payload), normalise(hop.payload))
        if diff:
            transport._diverge(f"tool result for {hop.tool_call_id} differs from the recording at {diff}",
                                 tool_call_id=hop.tool_call_id)

    recorder = Recorder(on_hop=check_tool_result)  # the check runs only once `transport` below exists
    transport = ReplayModelTransport(recorded_exchanges(trace), recorder)
    result = anyio.run(lambda: run_flow(meta.question, options=options, model=model, recorder=recorder,
                                        model_transport=transport))
    t = transport
    if t.served < len(t.exchanges) and not t.divergences:
        t._diverge(f"the re-run made {t.served} model requests; the recording has {len(t.exchanges)}")
    result.trace.meta.replay = {
        "source": source,
        "recorded_model_exchanges": len(t.exchanges),
        "served": t.served,
        "diverged": bool(t.divergences),
        "divergences": t.divergences,
    }
    for key in ("title", "note", "sample"):
        setattr(result.trace.meta, key, getattr(meta, key))
    return result


def same_steps(a: Trace, b: Trace) -> bool:
    """Do two traces go through the same steps and kinds in the same order?"""
    return [(h.step, h.kind) for h in a.hops] == [(h.step, h.kind) for h in b.hops if h.kind != "replay.divergence"]
