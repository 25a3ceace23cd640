"""The Run page's live list (flow_ui/live.py): hops are shown in order as they arrive, a fast run's no sooner than the
pace apart, a slow run's as they come; the run itself is not slowed, so the trace keeps the times it measured. A run
whose server asks the user waits for the page's answer, and a page that comes back shows what it showed before."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future

from flow import Hop, ModelConfig, RunOptions, RunResult, ServerSpec, run
from flow_ui.live import LiveRun, PageAnswerer, hop_line, in_thread
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


def watch(
    start: Callable[[Callable[[Hop], None]], Future[RunResult]], show: Callable[[Hop], object], *, pace_s: float
) -> RunResult:
    """Follow a run that asks nothing to its end."""
    result = LiveRun(start, PageAnswerer(1.0)).follow(show, pace_s=pace_s)
    assert result is not None
    return result


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


def test_a_run_that_asks_the_user_waits_for_the_pages_answer_and_is_followed_again():
    answerer = PageAnswerer(30.0)
    options = RunOptions.build(server=ServerSpec(transport="memory"), transport="memory", asks=True)
    live = LiveRun(
        lambda on_hop: in_thread(
            lambda: run("我这里今天天气怎么样？", options=options, on_hop=on_hop, answerer=answerer)
        ),
        answerer,
    )
    first: list[Hop] = []
    assert live.follow(first.append, pace_s=0.0) is None  # every hop so far shown, and the run waits
    asked = answerer.asked
    assert asked is not None and asked.question.schema["required"] == ["city"]
    assert first[-1].kind == "user.input" and first[-1].direction == "request"
    assert not answerer.answer(asked.number + 1, "accept", {"city": "上海"})  # no such question: not taken
    assert answerer.answer(asked.number, "accept", {"city": "上海"}) and answerer.asked is None
    assert not answerer.answer(asked.number, "decline", {})  # answered already
    again: list[Hop] = []
    result = live.follow(again.append, pace_s=0.0)
    assert result is not None and result.ok, result and result.trace.meta.error
    assert again[: len(first)] == first and [h.seq for h in again] == [h.seq for h in result.trace.hops]
    [answered] = [h for h in result.trace.hops if h.kind == "user.input" and h.direction == "response"]
    assert answered.payload["content"] == {"city": "上海"} and answered.payload["answered_by"] == "form"


def test_an_answer_after_the_timeout_is_not_taken():
    answerer = PageAnswerer(0.2)
    options = RunOptions.build(
        server=ServerSpec(transport="memory"), transport="memory", asks=True, elicit_timeout_s=0.2
    )
    live = LiveRun(
        lambda on_hop: in_thread(
            lambda: run("我这里今天天气怎么样？", options=options, on_hop=on_hop, answerer=answerer)
        ),
        answerer,
    )
    assert live.follow(lambda hop: None, pace_s=0.0) is None
    asked = answerer.asked
    assert asked is not None
    time.sleep(0.5)
    assert answerer.asked is None and not answerer.answer(asked.number, "accept", {"city": "上海"})
    result = live.follow(lambda hop: None, pace_s=0.0)
    assert result is not None
    [answered] = [h for h in result.trace.hops if h.kind == "user.input" and h.direction == "response"]
    assert answered.payload["action"] == "cancel" and answered.payload["timed_out"] == 0.2
