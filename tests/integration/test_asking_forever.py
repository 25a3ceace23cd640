"""A server that never stops asking, over stdio through the real SDK: in 2026-07-28 the host stops a call after
MAX_INPUT_ROUNDS input-required rounds with one line; in 2025-11-25 it answers at most MAX_ASKS questions in a run and
refuses the next, each an error hop, and the run goes on without hanging."""

from __future__ import annotations

import sys

from flow.backends.scripted import load_script
from flow.engine.host import MAX_ASKS, MAX_INPUT_ROUNDS
from flow.engine.model import ModelConfig
from flow.engine.options import RunOptions
from flow.runs import run
from flow.servers.spec import Era, ServerSpec
from helpers import ROOT

SERVER = ServerSpec(command=(sys.executable, str(ROOT / "tests" / "data" / "asks_forever.py")))


def _run(era: Era):
    options = RunOptions.build(server=SERVER, host_capabilities=["elicitation"], era=era, answers={"x": "1"})
    return run("loop", options=options, model=ModelConfig.scripted(load_script('[{"call": "loop"}]')))


def test_in_2026_07_28_the_rounds_stop_at_the_limit_with_one_line() -> None:
    result = _run("modern")
    assert not result.ok and result.error is not None
    assert f"after {MAX_INPUT_ROUNDS} rounds of loop" in result.error and "\n" not in result.error
    calls = [h for h in result.trace.hops if h.kind == "mcp.request" and h.payload.get("method") == "tools/call"]
    assert len(calls) == MAX_INPUT_ROUNDS + 1  # the first call and its retries, each under a new id
    assert len({h.payload["id"] for h in calls}) == len(calls)
    [stopped, *_] = [h for h in result.trace.hops if h.kind == "error"]
    assert stopped.payload.get("rounds") == MAX_INPUT_ROUNDS
    assert len([h for h in result.trace.hops if h.kind == "user.input"]) == 2 * MAX_INPUT_ROUNDS


def test_in_2025_11_25_questions_past_the_limit_are_refused_and_the_run_goes_on() -> None:
    result = _run("handshake")
    assert result.ok, result.error
    asked = [h for h in result.trace.hops if h.kind == "user.input" and h.direction == "request"]
    assert len(asked) == MAX_ASKS
    [refused] = [h for h in result.trace.hops if h.kind == "error"]
    assert refused.payload["error"] == "refused" and f"more than {MAX_ASKS} times" in refused.summary
    # the server got an error for the question it asked too many and passed it on as the answer to tools/call
    errors = [h for h in result.trace.hops if h.kind == "mcp.error"]
    assert errors and all(f"more than {MAX_ASKS} times" in h.payload["error"]["message"] for h in errors)
    answered = next(h for h in result.trace.hops if h.kind == "tool.result")
    assert f"more than {MAX_ASKS} times" in str(answered.payload["error"])
