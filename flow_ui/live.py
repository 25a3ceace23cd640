"""A run shown as it happens: its hops listed as they arrive, a fast run at a pace a class can follow, and the
questions its server asks the user handed to the page. No page here.

The run goes on a thread of its own and hands each hop over a queue; the page's script shows them. Streamlit runs
the script again on every click, so the run is followed by a `LiveRun` the session keeps: each script run shows
what was shown before at once and goes on from there. The pace is the page's only: the run is not slowed, and the
trace keeps the times it measured.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Literal

import anyio

import flow
from flow import ACTOR_NAMES, Answer, Lang, Question, short_label
from flow_ui.text import plain

PACE_S = 0.25  # how long each hop of a fast run stays before the next is shown
POLL_S = 0.05  # how often a run waiting for the user looks for the answer


def hop_line(hop: flow.Hop, lang: Lang) -> str:
    """One hop as a line of the run's list: number, step, who to whom, what; a failure in red."""
    step = "·" if hop.step is None else hop.step
    what = plain(short_label(hop, 70, lang=lang))
    return (
        f"`{hop.seq:>3}` **{step}** {ACTOR_NAMES[hop.source][lang]} → {ACTOR_NAMES[hop.target][lang]}"
        f" · {f':red[{what}]' if hop.direction == 'error' else what}"
    )


def in_thread(work: Callable[[], flow.RunResult]) -> Future[flow.RunResult]:
    """Run `work` on a thread of its own, so that a page can show its hops while it runs."""
    done: Future[flow.RunResult] = Future()

    def target() -> None:
        try:
            done.set_result(work())
        except BaseException as exc:  # boundary: handed to the page, which shows it as the run's failure
            done.set_exception(exc)

    threading.Thread(target=target, name="mcp-flow-run", daemon=True).start()
    return done


@dataclass(frozen=True)
class Asked:
    """A question waiting for the person at the page: its number in the run, and when it is given up."""

    number: int
    question: Question
    deadline: float  # time.monotonic() at which the run cancels it


class PageAnswerer:
    """The `Answerer` of a run started from a page: it hands each question to the page's thread and waits, on the
    run's own event loop, for the answer the page gives. The run's `elicit_timeout_s` bounds the wait (the host
    cancels it); an answer that comes after that is not taken."""

    def __init__(self, timeout_s: float) -> None:
        self._timeout_s = timeout_s
        self._lock = threading.Lock()
        self._waiting: tuple[Asked, Future[Answer]] | None = None
        self._asked = 0

    @property
    def asked(self) -> Asked | None:
        """The question the run waits on now, if any."""
        with self._lock:
            return self._waiting[0] if self._waiting else None

    def answer(self, number: int, action: Literal["accept", "decline", "cancel"], content: dict[str, Any]) -> bool:
        """Give the answer to question `number`; False when it no longer waits (answered, or given up)."""
        with self._lock:
            if self._waiting is None or self._waiting[0].number != number:
                return False
            self._waiting[1].set_result(Answer(action, content if action == "accept" else {}, answered_by="form"))
            self._waiting = None
            return True

    async def __call__(self, question: Question) -> Answer:
        given: Future[Answer] = Future()
        with self._lock:
            self._asked += 1
            self._waiting = (Asked(self._asked, question, time.monotonic() + self._timeout_s), given)
        try:
            # The page's thread is no event loop's: looking every POLL_S keeps the wait cancellable at the timeout.
            while not given.done():
                await anyio.sleep(POLL_S)
            return given.result()
        finally:
            with self._lock:
                if self._waiting is not None and self._waiting[1] is given:
                    self._waiting = None


class LiveRun:
    """One run under way, kept by the session across the page's script runs: the hops that came, how many of them
    the page has shown, and the question it waits on."""

    def __init__(self, start: Callable[[Callable[[flow.Hop], None]], Future[flow.RunResult]], answerer: PageAnswerer):
        self.answerer = answerer
        self.hops: list[flow.Hop] = []
        self.shown = 0
        self._arrived: queue.Queue[flow.Hop] = queue.Queue()
        self._result = start(self._arrived.put)

    def follow(self, show: Callable[[flow.Hop], object], *, pace_s: float) -> flow.RunResult | None:
        """Show the hops shown before, then each new one as it arrives, no sooner than `pace_s` after the one before:
        a run faster than that is shown at that pace, a slower one as it happens. Returns the run's result when it
        is over, or None when every hop so far is shown and the run waits for the user's answer."""
        for hop in self.hops[: self.shown]:
            show(hop)
        shown_at = -math.inf
        while True:
            # Every hop was handed over before the result, and before the question it asks: drained below.
            over, waiting = self._result.done(), self.answerer.asked is not None
            self._drain()
            if self.shown < len(self.hops):
                time.sleep(max(0.0, shown_at + pace_s - time.monotonic()))
                show(self.hops[self.shown])
                self.shown += 1
                shown_at = time.monotonic()
            elif waiting:
                return None
            elif over:
                return self._result.result()
            else:
                try:
                    self.hops.append(self._arrived.get(timeout=POLL_S))
                except queue.Empty:
                    pass

    def _drain(self) -> None:
        while True:
            try:
                self.hops.append(self._arrived.get_nowait())
            except queue.Empty:
                return
