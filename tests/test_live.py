"""The Run page's live list (flow_ui/live.py): hops are shown in order as they arrive, a fast run's no sooner than the
pace apart, a slow run's as they come; the run itself is not slowed, so the trace keeps the times it measured."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future

from flow import Hop, ModelConfig, RunOptions, RunResult, run
from flow_ui.live import hop_line, in_thread, watch
from helpers import run_flow_sync

RESULT = run_flow_sync(mode="direct")  # a real run's hops and result, handed out again below


def _producer(gap_s: float) -> Callable[[Callable[[Hop], None]], Future[RunResult]]:
    """A run that hands over RESULT's hops `gap_s` apart, on a thread of its own."""

    def start(on_hop: Callable[[Hop], None]) -> Future[RunResult]:
        done: Future[RunResult] = Future()

        def work() -> None:
            for hop in RESULT.trace.hops:
                time.sleep(gap_s)
                on_hop(hop)
            done.set_result(RESULT)

        threading.Thread(target=work, daemon=True).start()
        return done

    return start


def _shown(start: Callable[[Callable[[Hop], None]], Future[RunResult]], pace_s: float) -> list[tuple[float, int]]:
    seen: list[tuple[float, int]] = []
    result = watch(start, lambda hop: seen.append((time.monotonic(), hop.seq)), pace_s=pace_s)
    assert result is RESULT
    return seen


def test_a_fast_run_is_shown_in_order_at_the_pace():
    seen = _shown(_producer(0.0), pace_s=0.05)
    assert [seq for _, seq in seen] == [h.seq for h in RESULT.trace.hops]
    gaps = [b - a for (a, _), (b, _) in itertools.pairwise(seen)]
    assert min(gaps) >= 0.045  # never two hops closer than the pace


def test_a_slow_run_is_shown_as_it_happens():
    started = time.monotonic()
    seen = _shown(_producer(0.08), pace_s=0.02)
    # Each hop is shown within a moment of its arrival (0.08 s apart): the pace adds nothing to a slower run.
    lateness = [t - (started + 0.08 * (i + 1)) for i, (t, _) in enumerate(seen)]
    assert max(lateness) < 0.25 and len(seen) == len(RESULT.trace.hops)


def test_the_pace_does_not_slow_the_run_or_change_its_times():
    shown: list[Hop] = []
    began = time.monotonic()
    result = watch(
        lambda on_hop: in_thread(
            lambda: run("北京今天天气怎么样？", options=RunOptions(mode="direct"), model=ModelConfig(), on_hop=on_hop)
        ),
        shown.append,
        pace_s=0.1,
    )
    watched_ms = (time.monotonic() - began) * 1000
    assert result.ok and [h.seq for h in shown] == [h.seq for h in result.trace.hops]
    assert watched_ms >= 100 * (len(shown) - 1)  # shown at the pace ...
    elapsed_ms = result.trace.meta.stats.get("elapsed_ms")
    assert elapsed_ms is not None and elapsed_ms < watched_ms / 2  # ... while the run took its own time


def test_a_failure_is_red_and_every_line_is_one_line():
    failed = run_flow_sync(model="mock-error-401").trace
    lines = [hop_line(h, "en") for h in failed.hops]
    assert all("\n" not in line for line in lines)
    assert [":red[" in line for line in lines] == [h.direction == "error" for h in failed.hops]
    assert any(":red[" in line for line in lines)
