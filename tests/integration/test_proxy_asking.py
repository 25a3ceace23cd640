"""The MCP proxy over Streamable HTTP (`python -m flow proxy-http`) in front of the demo server that asks (its own
process, behind a bearer token), in both eras: the server's questions and the client's answers cross the proxy as
separate HTTP exchanges, and its recording imports paired as the app recorded them, the server's request with the
client's answer in 2025-11-25, the input-required rounds of one logical call in 2026-07-28."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flow.cli import main
from flow.interop.importers import import_file
from flow.proxy.http import mcp_http_proxy
from flow.trace.files import load_trace
from flow.trace.model import Hop, Trace, as_dict
from flow.trace.normalise import normalise
from flow.trace.rounds import CallRounds, call_rounds, input_required
from flow.trace.steps import Step
from helpers import TOKEN, DemoServer, start_demo_server, stop_demo_server

# What each feature asks, the question that makes the mock model call its tool, and what the host is told to answer.
FEATURES = {
    "elicitation": ("elicitation/create", "我这里今天天气怎么样？", ["--answer", "city=上海"]),
    "sampling": ("sampling/createMessage", "用一句话说说北京未来三天的天气", []),
}


@pytest.fixture(scope="module")
def demo() -> Iterator[DemoServer]:
    server = start_demo_server("--asks", env={"MCP_BEARER_TOKEN": TOKEN})
    yield server
    stop_demo_server(server)


def recorded_through_the_proxy(
    tmp_path: Path, demo: DemoServer, feature: str, era: str, capsys: pytest.CaptureFixture[str]
) -> tuple[Trace, Trace, bytes]:
    """The app's own trace of one asking run through the proxy, the proxy's recording imported, and its bytes."""
    _, question, answers = FEATURES[feature]
    log, out = tmp_path / "http.jsonl", tmp_path / "run.json"
    served = mcp_http_proxy(demo.url, str(log)).start()
    try:
        code = main(
            ["run", "--server", served.url, "--era", era, "--host-capability", feature, *answers]
            + ["-q", question, "--out", str(out)]
        )
    finally:
        served.stop()
    assert code == 0, capsys.readouterr().err
    return load_trace(out), import_file(log), log.read_bytes()


def wire(trace: Trace, side: str) -> list[tuple[Any, ...]]:
    return [
        (h.kind, h.target, h.step, h.jsonrpc_id, json.dumps(normalise(h.payload), sort_keys=True))
        for h in trace.hops
        if h.kind.startswith("mcp.") and h.source == side
    ]


def method_of(hop: Hop) -> Any:
    return as_dict(hop.payload).get("method")


def reply_to(hops: list[Hop], request: Hop) -> Hop:
    return next(
        h
        for h in hops
        if h.kind in ("mcp.response", "mcp.error") and h.source == request.target and h.jsonrpc_id == request.jsonrpc_id
    )


def rounds_shape(trace: Trace) -> list[list[tuple[Any, Any, Any]]]:
    """Each logical call as (request id, the state it echoed, the state its reply gave) per round."""
    return [
        [
            (
                request.jsonrpc_id,
                as_dict(request.payload)["params"].get("requestState"),
                as_dict(reply.payload)["result"].get("requestState"),
            )
            for request, reply in zip(call.requests, answered(call), strict=True)
        ]
        for call in call_rounds(trace.hops).calls
    ]


def answered(call: CallRounds) -> list[Hop]:
    """A logical call's replies, every round having one."""
    replies = [r for r in call.replies if r is not None]
    assert len(replies) == len(call.replies), "a round went unanswered"
    return replies


def check_handshake(hops: list[Hop], method: str) -> None:
    """2025-11-25: the server's request inside the open tools/call, answered by the client under its id."""
    [call] = [h for h in hops if h.kind == "mcp.request" and method_of(h) == "tools/call"]
    [asked] = [h for h in hops if h.kind == "mcp.request" and h.source == "mcp_server"]
    assert method_of(asked) == method and (asked.target, asked.step) == ("mcp_client", Step.CALL_TOOL)
    answered = reply_to(hops, asked)
    assert answered.kind == "mcp.response" and (answered.source, answered.step) == ("mcp_client", Step.CALL_TOOL)
    result = reply_to(hops, call)
    assert call.seq < asked.seq < answered.seq < result.seq and result.step == Step.TOOL_RESULT
    assert not call_rounds(hops).calls


def check_modern(hops: list[Hop], method: str) -> None:
    """2026-07-28: no request from the server; one logical call in two rounds, tied by the echoed request state."""
    assert not [h for h in hops if h.kind == "mcp.request" and h.source == "mcp_server"]
    rounds = call_rounds(hops)
    [logical] = rounds.calls
    first, again = logical.requests
    needs, done = answered(logical)
    assert logical.finished and not rounds.unpaired and first.jsonrpc_id != again.jsonrpc_id
    assert input_required(needs) and not input_required(done)
    [(key, asked)] = needs.payload["result"]["inputRequests"].items()
    assert asked["method"] == method
    params = again.payload["params"]
    assert params["requestState"] == needs.payload["result"]["requestState"] and list(params["inputResponses"]) == [key]
    assert [rounds.by_seq[h.seq][1] for h in (first, needs, again, done)] == [1, 1, 2, 2]
    assert (first.step, needs.step, again.step, done.step) == (6, 6, 6, 7)


@pytest.mark.parametrize("era", ["handshake", "modern"])
@pytest.mark.parametrize("feature", list(FEATURES))
def test_an_asking_run_through_the_http_proxy_is_recorded_paired_as_the_app_has_it(
    tmp_path: Path, demo: DemoServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], feature, era
) -> None:
    monkeypatch.setenv("MCP_BEARER_TOKEN", TOKEN)
    app, recorded, written = recorded_through_the_proxy(tmp_path, demo, feature, era, capsys)
    method = FEATURES[feature][0]
    # Over HTTP each request has its own exchange (the client's answer is a POST of its own), so each side's frames
    # are compared in their own order.
    for side in ("mcp_client", "mcp_server"):
        assert wire(recorded, side) == wire(app, side)
    for trace in (app, recorded):
        (check_handshake if era == "handshake" else check_modern)(trace.hops, method)
    assert rounds_shape(recorded) == rounds_shape(app)
    assert recorded.meta.server and recorded.meta.server["transport"] == "streamable-http"
    assert TOKEN.encode() not in written and b"authorization" not in written.lower()
