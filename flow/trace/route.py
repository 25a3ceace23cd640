"""The articles' route through one trace: the ten numbered messages in their four phases (plus phase zero), each hop
mapped to its message, and for each message whether this trace has it, and if not, why.

The app's step number is the articles' message number (step 0 is the articles' phase zero); a wire frame outside
a numbered step belongs to no message. The articles group the messages in four phases, the app in six (it splits
the last into backfill and answer): both groupings are here, the names a person reads are in `flow.text.route`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from flow.trace.model import Hop, Trace
from flow.trace.payloads import Failure, ToolInvoke, is_a
from flow.trace.steps import STEPS, ArticlePhase, Phase, Step

# How a message stands in one trace:
#   present: its hops are here, as the articles draw them;
#   in_process: direct mode, the app does it in its own process (no MCP client or server);
#   partial: the request is here but not all of it (the server did not report running the tool, the run stopped
#            here, an error was shown instead of an answer);
#   corrected: its hops are here, and the articles tell it wrongly (the reason says what really happens);
#   missing: no hop of this trace is this message.
MessageState = Literal["present", "in_process", "partial", "corrected", "missing"]

# Why a message is not (wholly) here, or not as the articles tell it; the words are in flow.text.route.
Reason = Literal[
    "direct_in_process",  # direct mode: an in-process hop, no MCP client or server
    "server_silent",  # MCP mode: the server did not report its execution of the tool
    "no_tool_call",  # the model answered without asking for a tool, so the tool round never happened
    "unanswered",  # MCP mode: the tools/call went out and the run stopped at message 7 with no answer to it
    "timed_out",  # the run stopped here: no complete answer came in time and the waiting side gave up
    "connection_closed",  # the run stopped here: the connection to the MCP server closed before any answer
    "failed_here",  # the run stopped here with another error
    "stopped",  # the run ended (an error) before this message
    "error_shown",  # message 10: the user was shown the error, not an answer
    "host_sends",  # MCP mode, message 3: the host app translates and sends it, not the MCP client (article 000)
    "host_pairs",  # MCP mode, message 7: a CallToolResult has no tool_call_id; the host pairs it (article 000)
    "not_recorded",  # an imported or partial recording has no hop for it
    "at_provider",  # hosted MCP: the provider's MCP client and its model do it; nothing of it crosses the app
]

# Where article 000 tells an MCP message wrongly, and the hop by which the trace shows it: the app's own request
# to the model (message 3), an MCP server's answer, which carries a JSON-RPC id and no tool_call_id (message 7).
_CORRECTED: dict[Step, tuple[Reason, tuple[str, ...]]] = {
    Step.ASK_MODEL: ("host_sends", ("llm.request",)),
    Step.TOOL_RESULT: ("host_pairs", ("mcp.response", "mcp.error")),
}

# Steps that shrink to in-process hops when there is no MCP client or server.
_IN_PROCESS = (Step.LIST_TOOLS, Step.REVERSE_TRANSLATION, Step.CALL_TOOL, Step.TOOL_RESULT)
_TOOL_ROUND = (Step.DECISION, Step.REVERSE_TRANSLATION, Step.CALL_TOOL, Step.TOOL_RESULT, Step.BACKFILL)

# Hosted MCP: the messages the provider handles itself (the listing and the whole tool round), unless the app takes
# part (an approval asked of it in message 4, its answer in message 8).
_AT_PROVIDER = (Step.LIST_TOOLS, *_TOOL_ROUND)


@dataclass(frozen=True, slots=True)
class Message:
    """One of the articles' messages as it stands in one trace."""

    step: Step  # its number: the app's step and the articles' message number (0: phase zero)
    article_phase: ArticlePhase
    app_phase: Phase
    state: MessageState
    reason: Reason | None
    first: int | None  # the index of its first hop in the trace, where a click jumps to
    hops: int  # how many hops of the trace are this message
    visits: int  # how many separate times the trace comes to it (two tool rounds: message 4 twice)


def message_of(hop: Hop) -> Step | None:
    """The articles' message a hop belongs to: its step; None for a wire frame outside the numbered steps."""
    return None if hop.step is None else Step(hop.step)


def server_reports_execution(trace: Trace) -> bool:
    """Whether the MCP server itself recorded running a tool (its hop MCP server → tool)."""
    return any(is_a(h, ToolInvoke) and h.source == "mcp_server" for h in trace.hops)


def stop_hop(trace: Trace) -> Hop | None:
    """Where a failed run stopped: its last numbered hop before the error it showed the user (message 10); None
    for a run that did not fail."""
    if trace.meta.outcome != "error":
        return None
    hops = [h for h in trace.hops if h.step is not None]
    while hops and hops[-1].step == Step.SHOW_ANSWER and is_a(hops[-1], Failure):
        hops.pop()
    return hops[-1] if hops else None


def _stop_reason(hop: Hop) -> Reason | None:
    """How a run stopped at `hop`, from what its payload says; None where the hop is no error (a recording cut
    short, say: it tells nothing of how)."""
    if hop.direction != "error" and hop.kind not in ("error", "llm.error"):
        return None
    error = hop.payload.get("error") if isinstance(hop.payload, dict) else None
    if (hop.kind, error) in (("error", "timeout"), ("llm.error", "deadline")):
        return "timed_out"
    if (hop.kind, error) == ("error", "connection closed"):
        return "connection_closed"
    return "failed_here"


def route(trace: Trace) -> list[Message]:
    """The eleven entries (phase zero and messages 1-10) for this trace, in order."""
    first: dict[Step, int] = {}
    count: dict[Step, int] = {}
    visits: dict[Step, int] = {}
    previous: Step | None = None
    for i, hop in enumerate(trace.hops):
        step = message_of(hop)
        if step is None:
            continue  # a wire frame between numbered hops does not end a visit
        first.setdefault(step, i)
        count[step] = count.get(step, 0) + 1
        if step != previous:
            visits[step] = visits.get(step, 0) + 1
        previous = step
    run = _Run.of(trace, has=set(first))
    out = []
    for step in Step:
        state, reason = run.state(step)
        out.append(
            Message(
                step=step,
                article_phase=STEPS[step].article_phase,
                app_phase=STEPS[step].phase,
                state=state,
                reason=reason,
                first=first.get(step),
                hops=count.get(step, 0),
                visits=visits.get(step, 0),
            )
        )
    return out


@dataclass(frozen=True)
class _Run:
    """What one trace says of its whole run, from which each message's state follows."""

    trace: Trace
    has: set[Step]  # the messages it has a hop of
    direct: bool
    hosted: bool  # the provider is the MCP client
    reported: bool  # the MCP server reported running the tool
    stopped_at: Step | None
    how: Reason | None  # how it stopped there
    shown: list[str]  # the kinds of the hops of message 10

    @classmethod
    def of(cls, trace: Trace, *, has: set[Step]) -> _Run:
        stop = stop_hop(trace)
        return cls(
            trace=trace,
            has=has,
            direct=trace.meta.mode == "direct",
            hosted=trace.meta.mode == "hosted",
            reported=server_reports_execution(trace),
            stopped_at=None if stop is None or stop.step is None else Step(stop.step),
            how=None if stop is None else _stop_reason(stop),
            shown=[h.kind for h in trace.hops if h.step == Step.SHOW_ANSWER],
        )

    def state(self, step: Step) -> tuple[MessageState, Reason | None]:
        """How `step` stands in this run, and why, if it is not simply present."""
        if self.hosted and step in _AT_PROVIDER and not self._app_takes_part(step):
            return ("present" if step in self.has else "missing"), "at_provider"
        if step not in self.has:
            if step in _TOOL_ROUND and Step.DECISION not in self.has and Step.MODEL_ANSWER in self.has:
                return "missing", "no_tool_call"
            if self.stopped_at is not None and step > self.stopped_at:
                return "missing", "stopped"
            return "missing", "not_recorded"
        if step == self.stopped_at and self.how is not None:
            return "partial", self.how
        if step == Step.SHOW_ANSWER and self.shown and all(k == "error" for k in self.shown):
            return "partial", "error_shown"
        if self.direct:
            return ("in_process", "direct_in_process") if step in _IN_PROCESS else ("present", None)
        if (
            step == Step.CALL_TOOL
            and self.stopped_at == Step.TOOL_RESULT
            and self.how in ("timed_out", "connection_closed")
        ):
            return "partial", "unanswered"
        if step == Step.CALL_TOOL and not self.reported:
            return "partial", "server_silent"
        if (
            step in _CORRECTED
            and not self.hosted  # the hosted app translates nothing: it names a server, and sends that itself
            and any(h.step == step and h.kind in _CORRECTED[step][1] for h in self.trace.hops)
        ):
            return "corrected", _CORRECTED[step][0]
        return "present", None

    def _app_takes_part(self, step: Step) -> bool:
        """Whether a hop of this step crosses the app's boundary (the app sends or receives it)."""
        return any(h.step == step and "app" in (h.source, h.target) for h in self.trace.hops)
