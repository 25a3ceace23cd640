"""A run shown as it happens: its hops listed as they arrive, a fast run at a pace a class can follow. No page here.

The run goes on a thread of its own and hands each hop over a queue; the page's script shows them. The pace is
the page's only: the run is not slowed, and the trace keeps the times it measured.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future

import flow
from flow import ACTOR_NAMES, Lang, short_label
from flow_ui.text import plain

PACE_S = 0.25  # how long each hop of a fast run stays before the next is shown


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


def watch(
    start: Callable[[Callable[[flow.Hop], None]], Future[flow.RunResult]],
    show: Callable[[flow.Hop], object],
    *,
    pace_s: float,
) -> flow.RunResult:
    """Start a run and show each hop as it arrives, no sooner than `pace_s` after the one before: a run faster than
    that is shown at that pace, a slower one as it happens. The hops' recorded times are the run's own."""
    arrived: queue.Queue[flow.Hop] = queue.Queue()
    pending = start(arrived.put)
    shown_at = -math.inf
    while not pending.done() or not arrived.empty():
        try:
            hop = arrived.get(timeout=0.05)
        except queue.Empty:
            continue
        time.sleep(max(0.0, shown_at + pace_s - time.monotonic()))
        show(hop)
        shown_at = time.monotonic()
    return pending.result()
