"""The numbered steps of the flow and what each one means: its phase, where a reply to it belongs, whether the app
asks the model in it. One table (`STEPS`); the names a person reads are in `flow.text.names`, keyed by `Step`.

A trace file holds a step as its number (0-10), or null for a wire frame outside a numbered step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Literal, TypeVar, overload

Phase = Literal["prepare", "request", "decision", "execute", "backfill", "answer"]
ArticlePhase = Literal[0, 1, 2, 3, 4]  # the articles' four phases, and 0: the preparation before any message
_P = TypeVar("_P")


class Step(IntEnum):
    """A step of the design's flow; the value is the number a trace file holds."""

    TOOLS_EXIST = 0  # the tool list as it was built, before anyone asks
    QUESTION = 1  # user → app
    LIST_TOOLS = 2  # app → MCP client → MCP server: session set-up and tools/list
    ASK_MODEL = 3  # app → model: the first chat request, with the tools
    DECISION = 4  # model → app: tool_calls
    REVERSE_TRANSLATION = 5  # the tool_call's JSON string becomes a call request
    CALL_TOOL = 6  # tools/call, or the direct call of the function
    TOOL_RESULT = 7  # the result on its way back to the app
    BACKFILL = 8  # app → model: the conversation again, with one role "tool" message per call
    MODEL_ANSWER = 9  # model → app: the final content
    SHOW_ANSWER = 10  # app → user

    @property
    def info(self) -> StepInfo:
        return STEPS[self]

    @property
    def phase(self) -> Phase:
        return STEPS[self].phase


@dataclass(frozen=True, slots=True)
class StepInfo:
    """What a step means for the code that records and reads hops."""

    phase: Phase  # the app's six phases
    article_phase: ArticlePhase  # the articles group the same steps in four (the last holds backfill and answer)
    answered_in: Step  # where the reply to a request sent in this step belongs: a tools/call (6) is answered in 7
    asks_model: bool = False  # the app sends a chat request in this step (3 first, 8 after each tool round)
    # For the steps of a tool round (4-8): what to add to a hop's `round` (its model request's number) to get the
    # tool round it belongs to; a backfill is the request after the round it answers. None outside a tool round.
    round_shift: int | None = None


STEPS: dict[Step, StepInfo] = {
    Step.TOOLS_EXIST: StepInfo("prepare", 0, Step.TOOLS_EXIST),
    Step.QUESTION: StepInfo("request", 1, Step.QUESTION),
    Step.LIST_TOOLS: StepInfo("request", 1, Step.LIST_TOOLS),
    Step.ASK_MODEL: StepInfo("request", 1, Step.ASK_MODEL, asks_model=True),
    Step.DECISION: StepInfo("decision", 2, Step.DECISION, round_shift=0),
    Step.REVERSE_TRANSLATION: StepInfo("execute", 3, Step.REVERSE_TRANSLATION, round_shift=0),
    Step.CALL_TOOL: StepInfo("execute", 3, Step.TOOL_RESULT, round_shift=0),
    Step.TOOL_RESULT: StepInfo("execute", 3, Step.TOOL_RESULT, round_shift=0),
    Step.BACKFILL: StepInfo("backfill", 4, Step.BACKFILL, asks_model=True, round_shift=-1),
    Step.MODEL_ANSWER: StepInfo("answer", 4, Step.MODEL_ANSWER),
    Step.SHOW_ANSWER: StepInfo("answer", 4, Step.SHOW_ANSWER),
}


STEP_OF: tuple[Step, ...] = tuple(Step)


"""The member for a step number (`STEP_OF[3]` is `Step.ASK_MODEL`): a tuple index, where `Step(3)` costs a
recorder ten times as much per hop."""


assert [int(s) for s in STEP_OF] == list(range(len(STEP_OF))) and set(STEPS) == set(Step)


def _spans(phase_of: Callable[[Step], _P]) -> list[tuple[_P, Step, Step]]:
    spans: list[tuple[_P, Step, Step]] = []
    for step in Step:
        phase = phase_of(step)
        if spans and spans[-1][0] == phase:
            spans[-1] = (phase, spans[-1][1], step)
        else:
            spans.append((phase, step, step))
    return spans


@overload
def phase_spans(grouping: Literal["app"]) -> list[tuple[Phase, Step, Step]]: ...
@overload
def phase_spans(grouping: Literal["article"]) -> list[tuple[ArticlePhase, Step, Step]]: ...
def phase_spans(
    grouping: Literal["app", "article"],
) -> list[tuple[Phase, Step, Step]] | list[tuple[ArticlePhase, Step, Step]]:
    """Each phase of one grouping with its first and last step, in order: the bands the viewer's route draws.
    A grouping's phases are runs of consecutive steps (asserted below)."""
    if grouping == "app":
        return _spans(lambda step: STEPS[step].phase)
    return _spans(lambda step: STEPS[step].article_phase)


assert len({p for p, _, _ in phase_spans("app")}) == len(phase_spans("app"))
assert len({p for p, _, _ in phase_spans("article")}) == len(phase_spans("article"))


def answer_step(request_step: int | None) -> Step | None:
    """The step an answer belongs to: a tools/call is step 6 and its result step 7; other answers share their
    request's step."""
    return None if request_step is None else STEPS[STEP_OF[request_step]].answered_in
