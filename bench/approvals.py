"""Replaying a hosted MCP run whose provider asked for many approvals: the time per approval at ten times the approvals
over the time at the smaller size (≈1 is linear), and, as the baseline measured in the same run, how much longer the
openai SDK's `create` takes than the model client's send for the request that answers them (the client hands the SDK
the body `flow.wire` wrote through its `post`; `create` first walks every item through every type it might be).
Figures are printed, never asserted. `python -m bench` runs it (`--quick`: ten times smaller)."""

from __future__ import annotations

import copy
import gc
import time
from typing import Any

import anyio
import httpx2

from flow.backends.replay import replay
from flow.capture.recorder import Recorder
from flow.engine.model import ModelClient, ModelConfig, make_client
from flow.trace.model import Trace
from flow.trace.shipped import SAMPLE_DIR
from flow.wire import API

SAMPLE = "hosted-responses-approval.json"


def approvals_trace(n: int) -> Trace:
    """The approval sample with its one approval request made `n`: the provider's answer lists them all, and the
    recorded next request approves each, as the app does."""
    trace = Trace.model_validate_json((SAMPLE_DIR / SAMPLE).read_text(encoding="utf-8"))
    answer = next(h for h in trace.hops if h.kind == "llm.response")
    again = [h for h in trace.hops if h.kind == "llm.request"][1]
    asked = next(o for o in answer.payload["body"]["output"] if o["type"] == "mcp_approval_request")
    many = [{**asked, "id": f"{asked['id']}_{i}"} for i in range(n)]
    body = answer.payload["body"]
    body["output"] = [o for o in body["output"] if o["type"] != "mcp_approval_request"] + many
    items: list[dict[str, Any]] = []
    for item in again.payload["body"]["input"]:
        if item.get("type") == "mcp_approval_request":
            items += [{**item, "id": r["id"]} for r in many]
        elif item.get("type") == "mcp_approval_response":
            items += [{**item, "approval_request_id": r["id"]} for r in many]
        else:
            items.append(item)
    again.payload["body"]["input"] = items
    return trace


def _seconds(fn: Any) -> float:
    gc.collect()
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def _request_body(trace: Trace) -> dict[str, Any]:
    return copy.deepcopy([h for h in trace.hops if h.kind == "llm.request"][1].payload["body"])


async def _answer(request: httpx2.Request) -> httpx2.Response:
    await request.aread()
    return httpx2.Response(200, json={"id": "resp_1", "object": "response", "status": "completed", "output": []})


def _send_both(body: dict[str, Any]) -> tuple[float, float]:
    """Seconds for the model client's send, and for the SDK's `create`, of the same body to the same stand-in."""
    config = ModelConfig(backend="openai", model="mock", base_url="http://p.test/v1", api_key="k")
    api = API["responses"]

    async def client() -> None:
        await ModelClient(config, Recorder(), api=api, transport=httpx2.MockTransport(_answer)).send(body)

    async def create() -> None:
        sdk = make_client(config, Recorder(), api=api, transport=httpx2.MockTransport(_answer))
        await sdk.responses.create(**body)  # type: ignore[union-attr]

    return _seconds(lambda: anyio.run(client)), _seconds(lambda: anyio.run(create))


def approval_figures(quick: bool) -> dict[str, float]:
    small, large = (200, 2000) if quick else (2000, 20000)
    per: dict[int, float] = {}
    for n in (small, large):
        trace = approvals_trace(n)
        per[n] = _seconds(lambda: replay(trace, source="bench")) * 1000 / n  # noqa: B023 (called at once)
    sent, created = _send_both(_request_body(approvals_trace(small)))
    return {
        "replay_approvals": large,
        "replay_ms_per_approval": per[large],
        "replay_growth": per[large] / per[small],
        "send_approvals": small,
        "create_over_send": created / sent,
    }
