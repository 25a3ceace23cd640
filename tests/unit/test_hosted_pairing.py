"""Hosted MCP: which frames a recorder saw each reported exchange is paired with. The pairing indexes the frames once
(`flow.wire.hosted.reported_drafts`); here a plain reference, one pass over every frame for each report as the
rule reads, says what the pairs must be, on traces with many reports and many frames of the shapes a run, a merge
and an import make: Responses items and Messages blocks, names with a server's label on either side, frames tagged
with the item's id, answers missing or shared, ids used again, frames from before the request."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from flow.trace.model import Hop
from flow.trace.pairing import same_tool
from flow.wire.base import ApiName
from flow.wire.hosted import Exchange, exchanges, reported_drafts

NAMES = ["get_weather", "weather-get_weather", "mcp__weather__get_weather", "get_forecast", "w.get_forecast", "x"]
NAMES += ["a-x", "b-x", "a/b-x", "x_x", "a__x_x", ""]  # "x_x": a single `_` is no label's separator


def _request(seq: int, rid: Any, method: str, name: Any = None, *, call_id: str | None = None) -> Hop:
    params = {} if method == "tools/list" else {"name": name, "arguments": {"n": seq % 3}}
    payload = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
    return Hop(
        seq=seq,
        step=None,
        phase=None,
        source="mcp_client",
        target="mcp_server",
        kind="mcp.request",
        jsonrpc_id=rid,
        tool_call_id=call_id,
        payload=payload,
    )


def _answer(seq: int, rid: Any, *, error: bool = False) -> Hop:
    said = {"error": {"code": -32000, "message": "no"}} if error else {"result": {"content": [], "isError": False}}
    return Hop(
        seq=seq,
        step=None,
        phase=None,
        source="mcp_server",
        target="mcp_client",
        kind="mcp.error" if error else "mcp.response",
        jsonrpc_id=rid,
        payload={"jsonrpc": "2.0", "id": rid, **said},
    )


def _other(seq: int) -> Hop:
    return Hop(seq=seq, step=None, phase=None, source="app", target="model", kind="llm.request", payload={"body": {}})


def _frames(rng: random.Random, n: int) -> list[Hop]:
    """`n` requests as a recorder sees them, most answered (some by an error, some twice, some never), ids used again
    by another session, and hops of other kinds between them; in the order of their seq, as a recording holds them."""
    hops: list[Hop] = []
    pending: list[Any] = []
    for _ in range(n):
        seq = len(hops) + 1
        rid = rng.choice([rng.randrange(n // 4 + 1), f"r{rng.randrange(n // 4 + 1)}"])
        if rng.random() < 0.15:
            hops.append(_request(seq, rid, "tools/list"))
        else:
            name = rng.choice([*NAMES, 7, None])
            call_id = f"mcp_{rng.randrange(n)}" if rng.random() < 0.3 else None
            hops.append(_request(seq, rid, "tools/call", name, call_id=call_id))
        pending.append(rid)
        while pending and rng.random() < 0.6:
            answered = pending.pop(rng.randrange(len(pending)))
            if rng.random() < 0.9:
                hops.append(_answer(len(hops) + 1, answered, error=rng.random() < 0.2))
        if rng.random() < 0.1:
            hops.append(_other(len(hops) + 1))
    return hops


def _responses_body(rng: random.Random, n: int) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    for i in range(n):
        if rng.random() < 0.15:
            output.append({"type": "mcp_list_tools", "id": f"mcpl_{i}", "server_label": "weather", "tools": []})
            continue
        said = {"output": "ok", "error": None} if rng.random() < 0.8 else {"output": None, "error": {"message": "no"}}
        item_id = f"mcp_{rng.randrange(n)}" if rng.random() < 0.7 else ""
        name = rng.choice(NAMES)
        arguments = json.dumps({"n": rng.randrange(3)})
        output.append({"type": "mcp_call", "id": item_id, "server_label": "weather", "name": name} | said)
        output[-1]["arguments"] = arguments
    return {"output": output}


def _messages_body(rng: random.Random, n: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for i in range(n):
        block = {"type": "mcp_tool_use", "id": f"mcp_{i}", "name": rng.choice(NAMES), "server_name": "weather"}
        content.append(block | {"input": {"n": rng.randrange(3)}})
        if rng.random() < 0.8:
            content.append({"type": "mcp_tool_result", "tool_use_id": f"mcp_{i}", "content": [], "is_error": False})
    return {"content": content}


def _reference(seen: list[Hop], exs: list[Exchange], since: int) -> list[tuple[int | None, int | None]]:
    """The rule, read plainly: for each report in turn, the frames after `since` not yet paired, of its method; a
    tools/call's of the report's id, else of its tool's name, else the first whose name is that name after a server's
    label or the other way round; the first of them, and the first answer after it with its JSON-RPC id."""
    taken: set[int] = set()
    pairs: list[tuple[int | None, int | None]] = []
    for ex in exs:
        requests = [
            h
            for h in seen
            if h.seq > since and h.kind == "mcp.request" and h.seq not in taken and h.payload["method"] == ex.method
        ]
        if ex.method == "tools/call":
            named = [(h, h.payload["params"]["name"]) for h in requests]
            same_id = [h for h in requests if ex.id and h.tool_call_id == ex.id]
            exact = [h for h, name in named if isinstance(name, str) and name == ex.name]
            labelled = [h for h, name in named if same_tool(name, ex.name)]
            requests = same_id or exact or labelled
        if not requests:
            pairs.append((None, None))
            continue
        sent = requests[0]
        taken.add(sent.seq)
        if ex.answer is None:  # a call reported with no result: no answer of it to pair
            pairs.append((sent.seq, None))
            continue
        kinds = ("mcp.response", "mcp.error")
        answer = next(
            (h for h in seen if h.seq > sent.seq and h.kind in kinds and h.jsonrpc_id == sent.jsonrpc_id), None
        )
        pairs.append((sent.seq, answer.seq if answer is not None else None))
    return pairs


def _paired(api: ApiName, body: dict[str, Any], seen: list[Hop], since: int) -> list[tuple[int | None, int | None]]:
    """The pairs `reported_drafts` made: each report's request and answer hops, what each says it observed."""
    drafts = iter(reported_drafts(api, body, response_seq=len(seen) + 1, seen=seen, since_seq=since))
    pairs: list[tuple[int | None, int | None]] = []
    for ex in exchanges(body):
        request = next(drafts).payload.get("observed")
        answer = next(drafts).payload.get("observed") if ex.answer is not None else None
        assert request is not None or answer is None
        pairs.append((request, answer))
    assert next(drafts, None) is None
    return pairs


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("api", ["responses", "messages"])
def test_many_reports_are_paired_with_many_frames_as_the_plain_rule_pairs_them(api: ApiName, seed: int) -> None:
    rng = random.Random(seed)
    seen = _frames(rng, 450)
    body = _responses_body(rng, 500) if api == "responses" else _messages_body(rng, 500)
    since = rng.choice([0, len(seen) // 5])  # the frames before the request that led to the report are not its
    pairs = _paired(api, body, seen, since)
    assert pairs == _reference(seen, exchanges(body), since)
    observed = [p for p in pairs if p[0] is not None]
    # the traces are varied enough to try each rule: most reports paired, some not, some answers missing
    assert len(pairs) // 3 < len(observed) < len(pairs)
    assert any(a is None for _, a in observed)
    assert any(a is not None for _, a in observed)
    assert len({s for s, _ in observed}) == len(observed)  # a frame is paired once


def _call_item(item_id: str, name: str, city: str) -> dict[str, Any]:
    arguments = json.dumps({"city": city}, ensure_ascii=False)
    return {"type": "mcp_call", "id": item_id, "server_label": "weather", "name": name, "arguments": arguments}


def _call_frame(seq: int, rid: int, name: str, city: str, *, call_id: str | None = None) -> Hop:
    hop = _request(seq, rid, "tools/call", name, call_id=call_id)
    hop.payload["params"]["arguments"] = {"city": city}
    return hop


def test_two_reports_of_the_same_call_are_paired_in_the_order_the_frames_came():
    seen = [_call_frame(1, 1, "get_weather", "北京"), _call_frame(2, 2, "get_weather", "北京")]
    seen += [_answer(3, 2), _answer(4, 1)]  # answered out of order
    body = {"output": [_call_item("", "get_weather", "北京"), _call_item("", "get_weather", "北京")]}
    assert _paired("responses", body, seen, 0) == [(1, 4), (2, 3)] == _reference(seen, exchanges(body), 0)


def test_a_report_takes_its_own_id_first_then_its_exact_name_then_a_labelled_one():
    seen = [
        _call_frame(1, 1, "weather-get_weather", "北京"),
        _call_frame(2, 2, "get_weather", "北京"),
        _call_frame(3, 3, "get_weather", "北京", call_id="mcp_b"),
        _call_frame(4, 4, "get_forecast", "北京"),
    ]
    # "mcp_b" is the third frame's; the exact name's first untaken is the second; then only the labelled one is left
    body = {
        "output": [
            _call_item("mcp_b", "get_weather", "北京"),
            _call_item("mcp_a", "get_weather", "北京"),
            _call_item("mcp_c", "get_weather", "北京"),
            _call_item("mcp_d", "get_weather", "北京"),
        ]
    }
    assert _paired("responses", body, seen, 0) == [(3, None), (2, None), (1, None), (None, None)]
    assert _reference(seen, exchanges(body), 0) == [(3, None), (2, None), (1, None), (None, None)]


def test_among_labelled_names_the_earliest_frame_wins_whichever_side_has_the_label():
    seen = [
        _call_frame(1, 1, "mcp__weather__get_weather", "北京"),
        _call_frame(2, 2, "get_weather", "北京"),
        _call_frame(3, 3, "weather.get_weather", "北京"),
    ]
    # the report has the label, then the frames have it (two labels: neither names the other)
    body = {"output": [_call_item("", "weather-get_weather", "北京")] + [_call_item("", "get_weather", "北京")] * 2}
    expected = [(2, None), (1, None), (3, None)]
    assert _paired("responses", body, seen, 0) == expected == _reference(seen, exchanges(body), 0)


def test_an_answer_is_the_first_with_the_requests_id_after_it_even_one_another_report_had():
    seen = [_answer(1, 5), _call_frame(2, 5, "get_weather", "北京"), _call_frame(3, 5, "get_weather", "上海")]
    seen += [_answer(4, 5), _answer(5, 5)]
    body = {"output": [_call_item("", "get_weather", "北京"), _call_item("", "get_weather", "上海")]}
    assert _paired("responses", body, seen, 0) == [(2, 4), (3, 4)] == _reference(seen, exchanges(body), 0)
    assert _paired("responses", body, seen, 2) == [(3, 4), (None, None)] == _reference(seen, exchanges(body), 2)
