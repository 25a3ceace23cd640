"""Hosted MCP at scale: how the time to pair a provider's reports with the frames a recorder saw grows with the number
of reports, alone, in `merge` and in the OTLP import, as the time per report at ten times the reports over the time
per report at the smaller size (≈1 is linear). Figures are printed, never asserted.

The pairing alone goes from 1,000 to 10,000 reports; merge and the import from 400 to 4,000, since a trace holds at
most 20,000 hops and a merged report with its frames is four (the request and answer frames, and the reported request
and answer). `python -m bench` runs it (`--quick`: ten times smaller).

`approval_figures`: replaying a recording whose provider asked for 20,000 approvals (issue 43: 152 s), which a run
refuses past `MAX_APPROVALS`, against the SDK's `create` of the request that would have answered them all, measured in
the same run."""

from __future__ import annotations

import copy
import gc
import json
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio
import httpx2

from flow.backends.replay import replay
from flow.capture.recorder import Recorder
from flow.engine.model import ModelConfig, make_client
from flow.engine.options import MAX_APPROVALS
from flow.interop.merge import merge_recordings
from flow.interop.otlp import to_otlp_json
from flow.interop.otlp_import import import_otlp_json
from flow.trace.model import Hop, Trace
from flow.trace.shipped import SAMPLE_DIR
from flow.wire import API
from flow.wire.hosted import reported_drafts

URL = "https://mcp.example.com/mcp"


def _calls(n: int) -> list[dict[str, Any]]:
    """What a Responses answer reports of `n` calls of one tool, one city each."""
    return [
        {"type": "mcp_call", "id": f"mcp_{i}", "server_label": "weather", "name": "get_weather", "status": "completed"}
        | {"arguments": json.dumps({"city": f"城{i}"}, ensure_ascii=False), "output": "晴", "error": None}
        for i in range(n)
    ]


def _frames(n: int) -> list[dict[str, Any]]:
    """The frames `proxy-http` saw of those calls: each tools/call and its answer."""
    frames: list[dict[str, Any]] = []
    for i in range(n):
        call = {"name": "get_weather", "arguments": {"city": f"城{i}"}}
        frames.append({"direction": "client_to_server", "message": {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": call}})  # fmt: skip
        answer = {"content": [{"type": "text", "text": "晴"}], "isError": False}
        frames.append({"direction": "server_to_client", "message": {"jsonrpc": "2.0", "id": i, "result": answer}})
    return frames


def recordings(n: int) -> list[tuple[str, str]]:
    """The model proxy's recording of one Responses answer reporting `n` hosted calls, and `proxy-http`'s of them."""
    body = {"id": "resp_1", "object": "response", "created_at": 1767000000, "model": "gpt-5", "status": "completed"}
    body["output"] = [*_calls(n), {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                                   "content": [{"type": "output_text", "text": "晴。", "annotations": []}]}]  # fmt: skip
    tool = {"type": "mcp", "server_label": "weather", "server_url": URL, "require_approval": "never"}
    request = {"model": "gpt-5", "input": [{"role": "user", "content": "天气？"}], "tools": [tool]}
    model = [
        {"mcp_flow_proxy": {"version": 1, "transport": "model-http", "upstream": "https://p.example/v1"}, "timestamp": 100.0},
        {"exchange": 1, "event": "request", "timestamp": 100.1, "method": "POST", "path": "/v1/responses", "headers": {}, "body": request},
        {"exchange": 1, "event": "response", "timestamp": 200.0, "status": 200, "stream": False, "headers": {}},
        {"exchange": 1, "event": "body", "timestamp": 200.0, "bytes": 1, "body": body},
        {"exchange": 1, "event": "end", "timestamp": 200.0},
    ]  # fmt: skip
    mcp = [{"mcp_flow_proxy": {"version": 1, "transport": "streamable-http", "upstream": URL}, "timestamp": 100.0}]
    mcp += [frame | {"timestamp": 100.2 + i / 1e4} for i, frame in enumerate(_frames(n))]
    return [(name, "\n".join(json.dumps(line, ensure_ascii=False) for line in lines)) for name, lines in (("mcp.jsonl", mcp), ("model.jsonl", model))]  # fmt: skip


def _frame_hops(n: int) -> list[Hop]:
    """The frames as a trace holds them, for the pairing alone."""
    hops: list[Hop] = []
    for frame in _frames(n):
        message = frame["message"]
        kind = "mcp.request" if "method" in message else "mcp.response"
        ends = ("mcp_client", "mcp_server") if kind == "mcp.request" else ("mcp_server", "mcp_client")
        hops.append(
            Hop(seq=len(hops) + 1, step=None, phase=None, source=ends[0], target=ends[1], kind=kind,
                jsonrpc_id=message["id"], payload=message)
        )  # fmt: skip
    return hops


def _ms_per_report(fn: Callable[[], Any], reports: int) -> float:
    gc.collect()
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000 / reports


def hosted_figures(quick: bool) -> dict[str, float]:
    """ms per report at the larger size of each part, and how that grew from the smaller size (≈1 is linear)."""
    per: dict[str, dict[int, float]] = {"pairing": {}, "merge": {}, "import": {}}
    for n in (100, 1000) if quick else (1000, 10000):
        body, seen = {"output": _calls(n)}, _frame_hops(n)
        per["pairing"][n] = _ms_per_report(partial(reported_drafts, "responses", body, response_seq=0, seen=seen), n)
    for n in (40, 400) if quick else (400, 4000):
        recorded = recordings(n)
        merged = merge_recordings(recorded, name="bench")
        per["merge"][n] = _ms_per_report(partial(merge_recordings, recorded, name="bench"), n)
        per["import"][n] = _ms_per_report(partial(import_otlp_json, to_otlp_json(merged), name="b.json"), n)
    out: dict[str, float] = {}
    for part, by_size in per.items():
        small, large = sorted(by_size)
        out[f"{part}_reports"] = large
        out[f"{part}_ms_per_report"] = by_size[large]
        out[f"{part}_growth"] = by_size[large] / by_size[small]
    return out


def approvals_recording(n: int) -> Trace:
    """The approval sample as a recording made with no limit would hold `n` approvals: the provider's answer asks them
    all, and the recorded next request answers each, as the app did."""
    trace = Trace.model_validate_json((SAMPLE_DIR / "hosted-responses-approval.json").read_text(encoding="utf-8"))
    answer = next(h for h in trace.hops if h.kind == "llm.response")
    again = [h for h in trace.hops if h.kind == "llm.request"][1]
    asked = next(o for o in answer.payload["body"]["output"] if o["type"] == "mcp_approval_request")
    many = [{**asked, "id": f"{asked['id']}_{i}"} for i in range(n)]
    answer.payload["body"]["output"] = [o for o in answer.payload["body"]["output"] if o is not asked] + many
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


def _seconds(fn: Callable[[], Any]) -> float:
    gc.collect()
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


async def _completed(request: httpx2.Request) -> httpx2.Response:
    await request.aread()
    return httpx2.Response(200, json={"id": "resp_1", "object": "response", "status": "completed", "output": []})


def _answering_s(trace: Trace) -> float:
    """Seconds for the openai SDK's `create` of the recorded request answering every approval, to a stand-in."""
    body = copy.deepcopy([h for h in trace.hops if h.kind == "llm.request"][1].payload["body"])
    config = ModelConfig(backend="openai", model="m", base_url="http://p.test/v1", api_key="k")

    async def create() -> None:
        sdk = make_client(config, Recorder(), api=API["responses"], transport=httpx2.MockTransport(_completed))
        await sdk.responses.create(**body)  # type: ignore[union-attr]

    return _seconds(lambda: anyio.run(create))


def approval_figures(quick: bool) -> dict[str, float]:
    """The replay of a recording past `MAX_APPROVALS`, of one at it and of the one-approval sample: its time, the model
    requests it made, and what answering them all would have cost the SDK's `create` in the next request."""
    n = 2000 if quick else 20000
    many, at_cap, one = approvals_recording(n), approvals_recording(MAX_APPROVALS), approvals_recording(1)
    seconds: dict[str, float] = {}
    served = 0
    for name, trace in (("refused", many), ("cap", at_cap), ("one", one)):
        result = replay(trace, source="bench")
        seconds[name] = _seconds(lambda: replay(trace, source="bench"))  # noqa: B023 (called at once)
        if name == "refused":
            served = (result.trace.meta.replay or {}).get("served", 0)
    return {
        "approvals_refused": n,
        "approvals_refused_requests": served,
        "approvals_refused_ms": seconds["refused"] * 1000,
        "approvals_answering_over_refused": _answering_s(many) / seconds["refused"],
        "approvals_cap_over_one": seconds["cap"] / seconds["one"],
    }
