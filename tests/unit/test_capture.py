"""The capture layer's parts on their own: the pairing state machine, the hop factory, and the MCP frame tap driven
over the SDK's in-memory streams (as the SDK's own tests drive a session), then over the in-memory transport."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.server import Server
from mcp.shared.memory import MessageStream, create_client_server_memory_streams
from mcp.shared.message import SessionMessage
from mcp_types import ListToolsResult, Tool, jsonrpc_message_adapter
from pydantic import ValidationError

from flow.capture.mcp import FrameTap, TappedTransport
from flow.capture.recorder import Recorder
from flow.servers.builtin import demo_server
from flow.servers.memory import MemoryTransport
from flow.trace import hops
from flow.trace.factory import SUMMARY_CHARS, checked_hop, new_hop
from flow.trace.model import Hop
from flow.trace.pairing import Pairing
from flow.trace.steps import Step

# --- the pairing state machine ----------------------------------------------------------------------------------


def test_replies_that_come_back_out_of_order_answer_their_own_requests():
    pairing = Pairing()
    pairing.request("client", 1, "tools/list", step=Step.LIST_TOOLS, t_ms=1.0)
    get_weather = {"name": "get_weather", "arguments": {"city": "北京"}}
    pairing.request("client", 2, "tools/call", get_weather, step=Step.CALL_TOOL, t_ms=2.0)
    pairing.request("client", 3, "tools/call", {"name": "get_forecast"}, step=Step.CALL_TOOL, t_ms=3.0)
    answered = [pairing.reply("client", rid) for rid in (3, 1, 2)]
    assert [(r.id, r.method, r.params.get("name"), r.answer_step, r.t_ms) for r in answered if r] == [
        (3, "tools/call", "get_forecast", 7, 3.0),
        (1, "tools/list", None, 2, 1.0),
        (2, "tools/call", "get_weather", 7, 2.0),
    ]
    assert pairing.unanswered == [] and pairing.unknown == [] and pairing.duplicates == []


def test_the_two_sides_number_their_requests_apart():
    pairing = Pairing()
    client = pairing.request("client", 1, "tools/call")
    server = pairing.request("server", 1, "sampling/createMessage")
    assert pairing.reply("server", 1) is server  # the client's answer to the server's request
    assert pairing.awaited("client", 1) is client and pairing.is_open("client", 1) and not pairing.is_open("server", 1)


def test_a_reply_to_an_id_no_open_request_has_is_noted():
    pairing = Pairing()
    pairing.request("client", 1, "ping")
    assert pairing.reply("client", 1) is not None
    assert pairing.reply("client", 1) is None  # answered already
    assert pairing.reply("client", 9) is None  # never asked
    assert pairing.unknown == [("client", 1), ("client", 9)]


def test_a_second_request_with_an_open_id_takes_its_place():
    pairing = Pairing()
    first = pairing.request("client", 5, "tools/list")
    pairing.request("client", 6, "ping")
    second = pairing.request("client", 5, "tools/call")
    assert pairing.duplicates == [first]
    assert [r.method for r in pairing.unanswered] == ["tools/call", "ping"]  # in the place the id was first sent
    assert pairing.reply("client", 5) is second


def test_what_is_still_open_at_the_end_in_the_order_it_was_sent():
    pairing = Pairing()
    for rid, method in enumerate(["initialize", "tools/list", "tools/call"], 1):
        pairing.request("client", rid, method, seq=10 + rid)
    pairing.request("server", 1, "roots/list")
    pairing.reply("client", 2)
    assert [(r.side, r.method, r.seq) for r in pairing.unanswered] == [
        ("client", "initialize", 11),
        ("client", "tools/call", 13),
        ("server", "roots/list", 0),
    ]
    assert pairing.oldest() is pairing.unanswered[0]
    latest = pairing.latest("client")
    assert latest is not None and latest.method == "tools/call"  # what the server is handling while it speaks
    pairing.close(latest)
    assert [r.method for r in pairing.unanswered] == ["initialize", "roots/list"]


def test_a_progress_notification_names_its_request_by_token():
    pairing = Pairing()
    pairing.request("client", 1, "tools/list", {"_meta": {"progressToken": "other"}})
    call = pairing.request(
        "client",
        2,
        "tools/call",
        {"name": "get_forecast", "arguments": {"days": 3}, "_meta": {"progressToken": 77}},
        step=Step.CALL_TOOL,
    )
    assert pairing.progress(77) is call and call.what == "tools/call get_forecast"
    pairing.reply("client", 2)
    assert pairing.progress(77) is call  # a late report still names it
    assert pairing.progress("unknown") is None
    assert pairing.progress({"not": "a token"}) is None and pairing.progress(None) is None


# --- the hop factory --------------------------------------------------------------------------------------------


def _fields(**over: Any) -> dict[str, Any]:
    return {
        "seq": 3,
        "kind": "mcp.notification",
        "source": "mcp_server",
        "target": "mcp_client",
        "payload": {"method": "notifications/progress"},
        "step": Step.CALL_TOOL,  # as the recorder passes it: a Step, which a file reads back as one
        "direction": "notification",
        "rnd": 1,
        "t_start_ms": 1.5,
        "t_end_ms": 2.0,
        "jsonrpc_id": None,
        "summary": "progress " + "x" * 300,
        "extra": {"progress_of": 4},
        **over,
    }


def test_the_fast_hop_is_the_hop_validation_builds():
    fast = new_hop(size=len('{"method":"notifications/progress"}'), **_fields())
    checked = checked_hop(**_fields())  # its size from the payload's compact JSON
    assert fast == checked and fast.model_fields_set == checked.model_fields_set
    assert fast.progress_of == checked.progress_of == 4 and "progress_of" in fast.model_fields_set  # a declared field
    assert (fast.phase, checked.bytes) == ("execute", 35)
    assert len(fast.summary) == SUMMARY_CHARS and fast.summary.endswith("characters in all]")
    assert Hop.model_validate(fast.model_dump()) == fast


def test_a_value_no_trace_can_hold_is_refused_by_the_checked_build():
    with pytest.raises(ValidationError):
        checked_hop(**_fields(t_start_ms=1e15))


def test_a_recorded_progress_notification_carries_its_request_from_the_start():
    seen: list[Hop] = []
    rec = Recorder(on_hop=seen.append)
    progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}}
    hop = rec.add(hops.frame(progress, source="mcp_server", target="mcp_client", step=Step.CALL_TOOL, progress_of=4))
    assert seen[0].progress_of == 4  # a live view sees it too, not only the saved trace
    again = Hop.model_validate(hop.model_dump())
    assert hop == again and hop.model_fields_set == again.model_fields_set


# --- the frame tap, over the SDK's memory streams ---------------------------------------------------------------


def _message(frame: dict[str, Any]) -> SessionMessage:
    return SessionMessage(jsonrpc_message_adapter.validate_python(frame))


def _call(rid: int, tool: str, token: Any = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": tool, "arguments": {"city": "北京"}}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def _result(rid: int, result: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": result or {"content": [], "isError": False}}


def _progress(token: Any, n: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": token, "progress": n, "total": 3, "message": f"day {n} of 3"},
    }


class _ClientEnds:
    """A `Transport` handing over the client's ends of a memory stream pair: the test plays the server."""

    def __init__(self, streams: MessageStream) -> None:
        self.streams = streams

    async def __aenter__(self) -> MessageStream:
        return self.streams

    async def __aexit__(self, *exc: object) -> None:
        return None


Script = Callable[
    [Callable[[dict[str, Any]], Awaitable[None]], Callable[[dict[str, Any]], Awaitable[None]]], Awaitable[None]
]


def _tapped(script: Script, *, step: Step | None = Step.LIST_TOOLS) -> FrameTap:
    """Run a transcript through a tapped transport: `client(frame)` sends a frame from the client and hands it to
    the server, `server(frame)` sends one back and reads it on the client's side (one at a time, so a stream's
    one-message buffer never blocks); returns the tap."""
    tap = FrameTap(Recorder())
    tap.recorder.step = step

    async def main() -> None:
        async with (
            create_client_server_memory_streams() as (client_ends, (server_read, server_write)),
            TappedTransport(_ClientEnds(client_ends), tap) as (read, write),
        ):

            async def client(frame: dict[str, Any]) -> None:
                await write.send(_message(frame))
                await server_read.receive()
                await anyio.sleep(0.02)  # so each request has its own time

            async def server(frame: dict[str, Any]) -> None:
                await server_write.send(_message(frame))
                await read.receive()

            await script(client, server)

    anyio.run(main)
    return tap


def _hop(tap: FrameTap, kind: str, jsonrpc_id: Any) -> Hop:
    return next(h for h in tap.recorder.hops if h.kind == kind and h.jsonrpc_id == jsonrpc_id)


def test_the_tap_pairs_replies_that_come_back_out_of_order():
    async def script(client, server):
        await client({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        await client(_call(2, "get_weather"))
        await client(_call(3, "get_forecast"))
        await server(_result(3))
        await server(_result(1, {"tools": []}))
        await server(_result(2, {"content": [], "isError": True}))

    tap = _tapped(script)
    assert [(h.jsonrpc_id, h.step, h.summary) for h in tap.recorder.hops if h.kind == "mcp.response"] == [
        (3, 7, "result of tools/call (isError: false)"),
        (1, 2, "result of tools/list"),
        (2, 7, "result of tools/call (isError: true)"),
    ]
    for rid in (1, 2, 3):  # each answer starts when its own request was sent, 20 ms from the others
        assert abs(_hop(tap, "mcp.response", rid).t_start_ms - _hop(tap, "mcp.request", rid).t_start_ms) < 10
    assert tap.unanswered == [] and tap.pairing.unknown == []


def test_the_tap_ties_progress_to_its_request_by_token_and_names_what_stays_unanswered():
    async def script(client, server):
        await client(_call(7, "get_forecast", token="tok"))
        await server(_progress("tok", 1))
        await server(_progress("someone else's", 2))

    tap = _tapped(script, step=None)
    tied, untied = [h for h in tap.recorder.hops if h.kind == "mcp.notification"]
    assert (tied.step, tied.progress_of, tied.summary) == (
        6,
        7,
        "progress 1/3 of tools/call get_forecast: day 1 of 3",
    )
    assert (untied.step, untied.progress_of, untied.summary) == (None, None, "notifications/progress")
    assert tap.unanswered == ["tools/call"]
    awaited = tap.awaited(7)
    assert awaited is not None and awaited[0] == 7  # a failure to answer it belongs to the result's step
    assert tap.awaited(8) is None


def test_the_tap_records_a_reply_to_no_request_where_it_came_and_a_reused_id_as_the_later_request():
    async def script(client, server):
        await server(_result(99))
        await client({"jsonrpc": "2.0", "id": 5, "method": "tools/list"})
        await client(_call(5, "get_weather"))  # the same id while the first is open: the SDK never does this
        await server(_result(5))

    tap = _tapped(script)
    stray = _hop(tap, "mcp.response", 99)
    assert (stray.step, stray.summary, stray.t_start_ms) == (None, "result", stray.t_end_ms)
    assert tap.pairing.unknown == [("client", 99)]
    assert [r.method for r in tap.pairing.duplicates] == ["tools/list"]
    assert _hop(tap, "mcp.response", 5).summary == "result of tools/call (isError: false)"
    assert tap.unanswered == []


# --- the frame tap over the in-memory transport, with real servers ------------------------------------------------


def test_the_tap_pairs_parallel_calls_to_the_demo_server_over_the_memory_transport():
    tap = FrameTap(Recorder())

    async def main() -> None:
        async with Client(TappedTransport(MemoryTransport(demo_server()), tap), mode="legacy", cache=None) as client:
            tap.recorder.step = Step.LIST_TOOLS
            await client.list_tools()
            async with anyio.create_task_group() as tg:
                for city in ("北京", "上海", "广州"):
                    tg.start_soon(client.call_tool, "get_weather", {"city": city})

    anyio.run(main)
    hops = tap.recorder.hops
    requests = {h.jsonrpc_id: h for h in hops if h.kind == "mcp.request"}
    responses = [h for h in hops if h.kind == "mcp.response"]
    assert Counter(h.jsonrpc_id for h in responses) == Counter(requests.keys())  # each request answered once
    for reply in responses:
        asked = requests[reply.jsonrpc_id]
        method = asked.payload["method"]
        assert reply.step == (7 if method == "tools/call" else asked.step)
        said = "result of tools/call (isError: false)" if method == "tools/call" else f"result of {method}"
        assert reply.summary == said
        assert reply.t_start_ms <= asked.t_start_ms
    assert sum(h.payload["method"] == "tools/call" for h in requests.values()) == 3
    assert tap.unanswered == []


def test_the_memory_transport_serves_a_low_level_server_too():
    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="echo", input_schema={"type": "object"})])

    tap = FrameTap(Recorder())

    async def main() -> list[str]:
        server = Server("low-level", on_list_tools=list_tools)
        async with Client(TappedTransport(MemoryTransport(server), tap), mode="legacy", cache=None) as client:
            return [t.name for t in (await client.list_tools()).tools]

    assert anyio.run(main) == ["echo"]
    assert [h.summary for h in tap.recorder.hops if h.kind == "mcp.response"] == [
        "result of initialize",
        "result of tools/list",
    ]
