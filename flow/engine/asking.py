"""One model call, within its time: the request sent through the API's SDK, the answer read (or assembled from its
stream) into the model's turn, and every way it can fail told in one line and recorded as a hop."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import anyio
import openai

from flow.capture.recorder import Recorder
from flow.engine.model import ModelClient, malformed, not_json
from flow.text.errors import FlowError, MalformedResponse, ModelLimitError
from flow.trace import hops
from flow.wire.base import Turn, WireProblem

READ_OUT_S = 0.5  # what is left of a failed stream: its `[DONE]`, which comes at once, not a stall
DEADLINE_GRACE_S = 1.0  # the tap's deadline fires first wherever it sees the wire; this one covers the SDK's own waits


async def ask_model(model: ModelClient, rec: Recorder, body: dict[str, Any], *, timeout_s: float) -> Turn:
    """One model call within the call's total time; returns the model's turn.

    An answer the app cannot read (no choices, a tool call without a name, a body that is not JSON, a stream cut
    off before it said it finished) ends the run with one line and an llm.error hop, never a KeyError. The model
    tap holds each attempt to the deadline; this scope also bounds what the SDK does between attempts (its retries
    sleep, up to a minute when a server asks), so that the time is total for the user."""
    with anyio.CancelScope(deadline=anyio.current_time() + timeout_s + DEADLINE_GRACE_S):
        try:
            return await _completion(model, rec, body)
        except MalformedResponse as exc:
            if exc.recorded:
                raise
            rec.add(
                hops.model_failed({"error": "malformed response", "reason": str(exc)}, step=rec.step, summary=str(exc))
            )
            raise
    late = ModelLimitError("model_deadline", timeout_s=timeout_s)
    rec.add(hops.model_failed({"error": "deadline", "limit_s": timeout_s}, step=rec.step, summary=str(late)))
    raise late


async def _read_out(answer: Any) -> None:
    """The rest of a stream that has already failed, read for a moment (as the openai SDK drains one after its
    `[DONE]`): the trace keeps what the server sent to its end, and every reader of the stream, the SDK's and the
    tap's, finishes here rather than in a finalizer at exit. Whatever goes wrong in it, the first failure stands."""
    with anyio.move_on_after(READ_OUT_S):
        try:
            async for _ in answer:
                pass
        except (FlowError, openai.APIError, anthropic.APIError, json.JSONDecodeError):
            pass


async def _completion(model: ModelClient, rec: Recorder, body: dict[str, Any]) -> Turn:
    api = model.api
    stream = bool(body.get("stream"))
    try:
        if not stream:
            response = await model.send(body)
            if isinstance(response, str):  # the SDK hands over a body that is not JSON as text
                raise not_json(response, stream=False)
            return api.read(response)
        events = api.stream()
        answer = await model.send(body)
        async for event in answer:
            events.add(event)
            if events.problem is not None:
                await _read_out(answer)
                raise events.problem
        turn = events.turn()
    except json.JSONDecodeError as exc:  # the SDK parses what the server said is JSON, and it was not
        raise not_json(exc.doc, stream=stream) from None
    except WireProblem as problem:
        raise malformed(problem) from None
    summary = "assembled " + api.turn_summary(turn)
    rec.add(hops.assembled(turn.raw, turn.finish, decided=bool(turn.calls), summary=summary))
    return turn
