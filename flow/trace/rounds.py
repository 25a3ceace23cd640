"""One logical call over several rounds (MCP 2026-07-28): a `tools/call` answered with an input-required result, the
host's answers, and the call made again under a new JSON-RPC id carrying them with the echoed request state.

The rounds are linked by the request state, never by id alone: a call that names the state an input-required result
gave is that result's next round. A call naming a state no result gave, or a state two results gave, is left
unpaired rather than guessed. Pure: frames in, groups out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from flow.trace.model import Hop, as_dict
from flow.trace.pairing import exchanges
from flow.trace.payloads import McpRequest, McpResponse, is_a, typed
from flow.trace.steps import Step, answer_step


@dataclass(eq=False)
class CallRounds:
    """The rounds of one logical call: each round's request hop and its answer (None while unanswered)."""

    number: int  # 1, 2, ... in the order the first rounds were sent
    requests: list[Hop] = field(default_factory=list[Hop])
    replies: list[Hop | None] = field(default_factory=list["Hop | None"])

    @property
    def finished(self) -> bool:
        """Its last answer is a result the call ends with (not another input-required result)."""
        last = self.replies[-1] if self.replies else None
        return last is not None and is_a(last, McpResponse) and not input_required(last)


@dataclass
class Rounds:
    """Every logical call that took more than one round, and the retries that could not be placed."""

    calls: list[CallRounds]
    by_seq: dict[int, tuple[CallRounds, int]]  # a request's or reply's seq -> its call and its round (1-based)
    unpaired: list[Hop]  # retried calls whose request state names no single input-required result


def input_required(hop: Hop) -> bool:
    """An answer that asks the client for input before the call can finish (`resultType: input_required`)."""
    match typed(hop):
        case McpResponse(payload=p):
            return as_dict(p.get("result")).get("resultType") == "input_required"
        case _:
            return False


def reply_step(asked: Step | None, frame: object) -> Step | None:
    """The step of a server's answer to a request sent in step `asked`: the next one (a tools/call's result is message
    7), except an input-required result, which does not end the call: it stays in the step the call is in."""
    result = as_dict(as_dict(frame).get("result"))
    if result.get("resultType") == "input_required":
        return asked
    return answer_step(asked)


def _state(params: object) -> str | None:
    state = as_dict(params).get("requestState")
    return state if isinstance(state, str) else None


def call_rounds(hops: Iterable[Hop]) -> Rounds:
    """The logical calls of a trace's frames, linked by request state."""
    calls: list[CallRounds] = []
    waiting: dict[str, CallRounds | None] = {}  # a state an input-required result gave -> its call (None: given twice)
    unpaired: list[Hop] = []
    for ex in exchanges(list(hops)):
        match typed(ex.request):
            case McpRequest(payload=frame) if frame["method"] == "tools/call" and ex.request.source == "mcp_client":
                state = _state(frame.get("params"))
            case _:
                continue
        call: CallRounds | None
        if state is None:
            call = CallRounds(len(calls) + 1)
        else:
            call = waiting.pop(state, None)
            if call is None:
                unpaired.append(ex.request)
                continue
        call.requests.append(ex.request)
        call.replies.append(ex.reply)
        if call.number > len(calls):
            calls.append(call)
        if ex.reply is not None and input_required(ex.reply):
            given = _state(as_dict(ex.reply.payload).get("result"))
            if given is not None:
                waiting[given] = None if given in waiting else call  # the same state twice is no link at all
    multi = [
        c
        for c in calls
        if len(c.requests) > 1 or (c.replies and c.replies[0] is not None and input_required(c.replies[0]))
    ]
    by_seq: dict[int, tuple[CallRounds, int]] = {}
    for call in multi:
        for i, (request, reply) in enumerate(zip(call.requests, call.replies, strict=True), 1):
            by_seq[request.seq] = (call, i)
            if reply is not None:
                by_seq[reply.seq] = (call, i)
    for n, call in enumerate(multi, 1):
        call.number = n
    return Rounds(multi, by_seq, unpaired)
