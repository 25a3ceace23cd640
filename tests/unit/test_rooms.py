"""Classroom rooms on the sample trace: the rules (flow.rooms.rules) on each store, and the routes served over HTTP.

The rules, in memory and in a real Redis alike (the `make` fixture): join (a token kept across reloads), follow,
catch up after a reconnect, questions answered once and counted, the tally only for the teacher until the reveal,
and a follower's attempt to move the room refused; then, in memory with a clock the test moves, expiry and each
limit with its message. The routes: the same through uvicorn and httpx2, Server-Sent Events read by httpx2's
event source.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest
import uvicorn
from starlette.applications import Starlette

import flow
from flow.rooms.events import Event
from flow.rooms.rules import Leases, MemoryRooms, Rooms, Stream
from flow.rooms.store import CODE_LENGTH, Limits, RoomError, RoomView, Screen, valid_code
from flow.rooms.web import room_routes
from helpers import ROOT

SAMPLE = flow.load_trace(ROOT / "sample_traces" / "beijing-mcp.json")
QUESTIONS = flow.questions_for(SAMPLE)


def _bundles() -> dict[str, str]:
    return {lang: flow.bundle_json(flow.viewer_bundle(SAMPLE, lang=lang, questions=QUESTIONS)) for lang in ("zh", "en")}


BUNDLES = _bundles()
HOPS = len(SAMPLE.hops)
INDEX_OF = {hop.seq: i for i, hop in enumerate(SAMPLE.hops)}
CHOICES = {INDEX_OF[seq]: len(q.choices) for seq, q in QUESTIONS.items()}
ASKED = min(CHOICES)  # the first hop that asks
Make = Callable[..., Rooms]  # the `make` fixture (conftest.py): a store of each kind, in memory and in Redis


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _follow(store: Rooms, code: str, after: int, **options: Any) -> Stream:
    """A follower's screen: the token the room gives at join, then its event stream."""
    token, _ = await store.join(code, None)
    return await store.listen(code, after, tallies=False, token=token, **options)


def _view(index: int, **extra: Any) -> dict[str, Any]:
    return {"index": index, "lang": "zh", "quiz": True, "captions": False, **extra}


async def _take(stream: Any, n: int, timeout: float = 5.0) -> list[Event]:
    out: list[Event] = []
    async with asyncio.timeout(timeout):
        async for event in stream:
            if event.kind != "ping":
                out.append(event)
            if len(out) == n:
                break
    return out


def test_codes_are_long_and_unguessable():
    store = MemoryRooms()
    codes = {store.create(BUNDLES, CHOICES, RoomView()).code for _ in range(50)}
    assert len(codes) == 50
    assert all(len(c) == CODE_LENGTH and valid_code(c) for c in codes)
    assert not valid_code("../../etc/passwd") and not valid_code("ABCDEFGHIJKLMN")


def test_join_keeps_a_token_and_counts_followers(make: Make):
    async def main() -> None:
        store = make()
        room = store.create(BUNDLES, CHOICES, RoomView(index=3, lang="en"))
        token, snap = await store.join(room.code, None)
        again, snap2 = await store.join(room.code, token)  # a reload: the same follower
        other, snap3 = await store.join(room.code, None)
        assert again == token and other != token
        assert snap.view == RoomView(index=3, lang="en") and snap.hops == HOPS
        assert (snap.followers, snap2.followers, snap3.followers) == (1, 1, 2)
        assert json.loads(await store.bundle(room.code, "en"))["lang"] == "en"

    asyncio.run(main())


def test_followers_follow_the_teacher_in_order(make: Make):
    async def main() -> None:
        store = make()
        room = store.create(BUNDLES, CHOICES, RoomView())
        _, snap = await store.join(room.code, None)
        streams = [await _follow(store, room.code, snap.last) for _ in range(3)]
        for i in range(1, 8):
            await store.move(room.code, room.key, _view(i))
        for stream in streams:
            got = await _take(stream, 7)
            assert [e.data["index"] for e in got] == list(range(1, 8))
            assert [e.id for e in got] == sorted(e.id for e in got)

    asyncio.run(main())


def test_a_follower_cannot_move_the_room_or_reveal(make: Make):
    async def main() -> None:
        store = make()
        room = store.create(BUNDLES, CHOICES, RoomView())
        token, _ = await store.join(room.code, None)
        for key in (token, room.watch, "", "x" * 40):
            with pytest.raises(RoomError) as moved:
                await store.move(room.code, key, _view(5))
            assert moved.value.status == 403 and "only the teacher" in moved.value.message
            with pytest.raises(RoomError):
                await store.reveal(room.code, key, ASKED)
        _, snap = await store.join(room.code, token)
        assert snap.view.index == 0

    asyncio.run(main())


def test_a_reconnecting_follower_catches_up(make: Make):
    async def main() -> None:
        store = make(Limits(backlog=4))
        room = store.create(BUNDLES, CHOICES, RoomView())
        first = await store.move(room.code, room.key, _view(1))
        await store.move(room.code, room.key, _view(2))
        await store.move(room.code, room.key, _view(3))
        # Back after the first event: the two after it, from the backlog.
        got = await _take(await _follow(store, room.code, first.id), 2)
        assert [e.data["index"] for e in got] == [2, 3]
        for i in range(4, 12):
            await store.move(room.code, room.key, _view(i))
        # Further behind than the backlog: where the room is now.
        got = await _take(await _follow(store, room.code, first.id), 1)
        assert got[0].kind == "view" and got[0].data["index"] == 11

    asyncio.run(main())


def test_questions_answered_once_tallied_for_the_teacher_and_revealed(make: Make):
    async def main() -> None:
        store = make()
        room = store.create(BUNDLES, CHOICES, RoomView())
        assert await store.is_watcher(room.code, room.watch) and not await store.is_watcher(room.code, room.key)
        student = await _follow(store, room.code, 0)  # (its join comes before the teacher hears joins)
        teacher = await store.listen(room.code, 0, tallies=True)
        tokens = [(await store.join(room.code, None))[0] for _ in range(3)]
        screens = [await store.listen(room.code, 0, tallies=False, token=token) for token in tokens]
        for token, choice in zip(tokens, (1, 2, 2), strict=True):
            await store.answer(room.code, token, ASKED, choice)
        with pytest.raises(RoomError) as twice:
            await store.answer(room.code, tokens[0], ASKED, 2)
        assert twice.value.status == 409
        with pytest.raises(RoomError):
            await store.answer(room.code, "not-a-token-of-this-room", ASKED, 1)
        with pytest.raises(RoomError):
            await store.answer(room.code, tokens[0], ASKED + 1 if ASKED + 1 not in CHOICES else 0, 1)
        with pytest.raises(RoomError) as out_of_range:
            await store.answer(room.code, tokens[1], max(CHOICES), CHOICES[max(CHOICES)] + 1)
        assert "a choice is a number from 1" in out_of_range.value.message
        # Itself, then who follows now as its own stream, three joins and their screens arrive, then three tallies.
        heard = await _take(teacher, 11)
        assert [e.kind for e in heard] == ["teacher"] + ["joined"] * 7 + ["tally"] * 3
        tallies = [e for e in heard if e.kind == "tally"]
        assert [e.data["counts"][:2] for e in tallies] == [[1, 0], [1, 1], [1, 2]]
        await store.reveal(room.code, room.key, ASKED)
        late, _ = await store.join(room.code, None)
        screens.append(await store.listen(room.code, 0, tallies=False, token=late))
        with pytest.raises(RoomError) as closed:
            await store.answer(room.code, late, ASKED, 1)
        assert closed.value.status == 409
        # The class heard no tally, no join: that the teacher is there, then the reveal, with the counts.
        got = await _take(student, 2)
        assert got[0].kind == "teacher" and got[0].data == {"here": True}
        assert got[1].kind == "reveal" and got[1].data["counts"][:2] == [1, 2]
        _, snap = await store.join(room.code, tokens[0])
        assert snap.revealed[ASKED][:2] == [1, 2]

    asyncio.run(main())


def test_an_idle_room_expires_after_two_hours_and_a_busy_one_does_not():
    async def main() -> None:
        clock = Clock()
        store = MemoryRooms(clock=clock)
        assert store.limits.idle_s == 7200
        idle = store.create(BUNDLES, CHOICES, RoomView())
        busy = store.create(BUNDLES, CHOICES, RoomView())
        stream = await _follow(store, idle.code, 0)
        clock.now += 3600
        await store.move(busy.code, busy.key, _view(1))
        clock.now += 3601
        assert not store.exists(idle.code) and store.exists(busy.code)
        got = await _take(stream, 1)
        assert got[0].kind == "closed" and got[0].data == {"expired": True}
        with pytest.raises(RoomError) as gone:
            await store.join(idle.code, None)
        assert gone.value.status == 404 and "expired" in gone.value.message

    asyncio.run(main())


def test_limits_each_have_their_message():
    async def main() -> None:
        clock = Clock()
        store = MemoryRooms(Limits(rooms=2, followers=3, teacher_events_per_s=5, teacher_burst=5), clock=clock)
        room = store.create(BUNDLES, CHOICES, RoomView())
        store.create(BUNDLES, CHOICES, RoomView())
        with pytest.raises(RoomError) as rooms:
            store.create(BUNDLES, CHOICES, RoomView())
        assert rooms.value.status == 429 and "too many rooms" in rooms.value.message
        for _ in range(3):  # three screens that follow: none gives its place to a newcomer
            token, _ = await store.join(room.code, None)
            await store.listen(room.code, 0, tallies=False, token=token)
        with pytest.raises(RoomError) as full:
            await store.join(room.code, None)
        assert "this room is full (3 followers)" == full.value.message and "已满" in full.value.message_zh
        for i in range(5):
            await store.move(room.code, room.key, _view(i))
        with pytest.raises(RoomError) as fast:
            await store.move(room.code, room.key, _view(6))
        assert fast.value.status == 429 and "at most 5 times a second" in fast.value.message
        clock.now += 1.0  # a second later the teacher may move again
        await store.move(room.code, room.key, _view(6))
        with pytest.raises(RoomError) as big:
            MemoryRooms(Limits(bundle_bytes=1000)).create(BUNDLES, CHOICES, RoomView())
        assert "MiB" in big.value.message
        for bad in ({"index": HOPS}, {"index": -1}, {"index": "3"}, {"index": 1, "lang": "fr"}, [1, 2]):
            with pytest.raises(RoomError) as wrong:
                await store.move(room.code, room.key, bad)
            assert wrong.value.status == 400

    asyncio.run(main())


def test_a_slow_follower_is_dropped_not_waited_for():
    async def main() -> None:
        store = MemoryRooms(Limits(queue=5, teacher_events_per_s=1000, teacher_burst=1000))
        room = store.create(BUNDLES, CHOICES, RoomView())
        slow = await _follow(store, room.code, 0)
        for i in range(20):
            await store.move(room.code, room.key, _view(i % HOPS))
        await asyncio.sleep(0.05)
        got = [e async for e in slow]  # ends: dropped once its queue held five
        assert len(got) <= 6

    asyncio.run(main())


def test_closing_ends_every_stream(make: Make):
    async def main() -> None:
        store = make()
        room = store.create(BUNDLES, CHOICES, RoomView())
        stream = await _follow(store, room.code, 0)
        with pytest.raises(RoomError):
            store.close(room.code, room.watch)
        store.close(room.code, room.key)
        got = [e async for e in stream]
        assert [e.kind for e in got] == ["closed"]
        assert not store.exists(room.code)

    asyncio.run(main())


# ---- the routes, over HTTP ----


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, MemoryRooms]]:
    store = MemoryRooms(Limits(followers=50))
    app = Starlette(routes=room_routes(lambda: store))
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}", store
    server.should_exit = True
    thread.join(timeout=10)


def _heard(source: httpx2.EventSource, n: int) -> list[httpx2.ServerSentEvent]:
    """The first `n` events of a stream (not its opening `retry`), read by httpx2's event source."""
    return list(itertools.islice((e for e in source if e.event != "message"), n))


def test_routes_join_follow_answer_and_refuse(served):
    base, store = served
    room = store.create(BUNDLES, CHOICES, RoomView())
    url = f"{base}/room/{room.code}"
    with httpx2.Client(timeout=10) as http:
        page = http.get(url)
        assert page.status_code == 200 and "followRoom" in page.text and room.code in page.text
        assert room.key not in page.text and room.watch not in page.text
        joined = http.post(url + "/join", json={}).json()
        token = joined["token"]
        assert joined["snapshot"]["hops"] == HOPS
        assert http.get(url + "/bundle/en").json()["lang"] == "en"
        # A follower's attempt to move the room, with its own token or none, is refused.
        for headers in ({}, {"x-room-key": token}, {"x-room-key": room.watch}):
            refused = http.post(url + "/view", json=_view(4), headers=headers)
            assert refused.status_code == 403
            assert refused.json()["error"].startswith("only the teacher moves the room")
        answer = {"token": token, "index": ASKED, "choice": 1}
        assert http.post(url + "/answer", json=answer).status_code == 403  # no screen of its own follows yet
        after = joined["snapshot"]["last"]
        with http.sse(url + "/events", params={"after": after, "token": token}) as stream:
            assert stream.response.headers["content-type"].startswith("text/event-stream")
            for i in (1, 2, 3):
                assert http.post(url + "/view", json=_view(i), headers={"x-room-key": room.key}).status_code == 200
            assert http.post(url + "/answer", json=answer).status_code == 204
            again = http.post(url + "/answer", json=answer)
            assert again.status_code == 409 and "error_zh" in again.json()
            got = _heard(stream, 3)  # (leaving its events behind closes the stream)
        assert [(e.event, json.loads(e.data)["index"]) for e in got] == [("view", 1), ("view", 2), ("view", 3)]
        assert http.post(url + "/reveal", json={"index": ASKED}, headers={"x-room-key": token}).status_code == 403
        assert http.post(url + "/reveal", json={"index": ASKED}, headers={"x-room-key": room.key}).status_code == 200
        # Bad input: one line each, never a traceback.
        for body in (b"not json", b"[" * 5000, b'{"token": 5}'):
            bad = http.post(url + "/answer", content=body)
            assert bad.status_code in (400, 413) and "Traceback" not in bad.text and bad.json()["error"]
        missing = http.get(f"{base}/room/abcdefghijkmnp")
        assert missing.status_code == 404 and "no such room" in missing.text
        for nothing in ("/room", "/room/"):  # no code: a room's one line, not the app's pages
            gone = http.get(base + nothing)
            assert gone.status_code == 404 and "no such room" in gone.text and "followRoom" not in gone.text
        shouted = http.get(f"{base}/room/{room.code.upper()}")  # a code typed in capitals is the same room
        assert shouted.status_code == 200 and room.code in shouted.text
        assert http.get(url + "/bundle/en", params={"round": 1}).headers["cache-control"].startswith("private")
        assert http.get(url + "/bundle/en").headers["cache-control"] == "no-store"
        for odd in ("²", "١", "-1", "1e3", "9" * 40):  # not a round: the current bundle, never a 500
            assert http.get(url + "/bundle/en", params={"round": odd}).status_code == 200
        odd_after = {"after": "²", "token": http.post(url + "/join", json={}).json()["token"]}
        with http.stream("GET", url + "/events", params=odd_after) as odd_stream:
            assert odd_stream.status_code == 200
        odd_id = {"token": http.post(url + "/join", json={}).json()["token"]}
        with http.stream(
            "GET", url + "/events", params=odd_id, headers={b"last-event-id": "²".encode("latin-1")}
        ) as odd_stream:
            assert odd_stream.status_code == 200
        later = http.get(url + "/bundle/en", params={"round": 2})
        assert later.status_code == 409 and later.json()["error"].startswith("the room shows another trace")
        assert http.get(f"{base}/room/..%2f..%2fetc").status_code == 404
        assert http.get(url + "/bundle/fr").status_code == 404


def test_routes_stream_the_tally_only_to_the_watch_key(served):
    base, store = served
    room = store.create(BUNDLES, CHOICES, RoomView())
    url = f"{base}/room/{room.code}"
    with httpx2.Client(timeout=10) as http:
        token = http.post(url + "/join", json={}).json()["token"]
        with http.sse(url + "/events", params={"watch": room.watch}) as teacher:
            with http.sse(url + "/events", params={"watch": "guess", "after": 0, "token": token}) as student:
                http.post(url + "/answer", json={"token": token, "index": ASKED, "choice": 2})
                http.post(url + "/reveal", json={"index": ASKED}, headers={"x-room-key": room.key})
                heard = _heard(teacher, 5)
                seen = _heard(student, 2)
    heard = [e for e in heard if e.event != "joined"]  # (who follows now: the two streams opening)
    assert [e.event for e in heard] == ["teacher", "tally", "reveal"]
    assert json.loads(heard[1].data)["counts"][1] == 1
    assert [e.event for e in seen] == ["teacher", "reveal"]  # no tally before the reveal, no joins


def test_a_room_taken_back_sets_lesson_toggles_that_take_no_default_too():
    """Taking a room back after a reload sets the Step page's toggles through their keys (app_pages/step.py,
    reclaim); a widget created with a default `value` as well makes Streamlit log a warning with a 30-line stack."""
    import ast

    tree = ast.parse((ROOT / "flow_ui" / "app_pages" / "step.py").read_text(encoding="utf-8"))
    toggles = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "toggle"
    ]
    assert len(toggles) == 2
    for toggle in toggles:
        given = {keyword.arg for keyword in toggle.keywords}
        assert "key" in given and "value" not in given, ast.unparse(toggle)


def test_the_operator_sets_what_one_address_may_for_a_class_behind_one_address():
    from flow.rooms import PER_ADDRESS_ENV, limits_from

    assert limits_from({}) == Limits()
    got = limits_from({PER_ADDRESS_ENV: " 40 "})
    assert (got.client_streams, got.client_join_burst) == (
        40,
        40,
    ) and got.client_joins_per_s == Limits().client_joins_per_s
    for odd in ("0", "-3", "²", "1e3", "9" * 40, "many"):
        assert limits_from({PER_ADDRESS_ENV: odd}) == Limits()


def test_the_closing_view_is_part_of_the_teachers_view(make: Make):
    """The teacher opens the closing view after the last hop: a follower joining now is told so, and back on a hop
    it is closed again (a view without the field, as an older page posts it, is a hop)."""

    async def main() -> None:
        store = make()
        room = store.create(BUNDLES, CHOICES, RoomView())
        await store.move(room.code, room.key, _view(HOPS - 1, closing=True))
        _, snap = await store.join(room.code, None)
        assert snap.view == RoomView(index=HOPS - 1, quiz=True, closing=True)
        assert snap.view.to_json()["closing"] is True
        await store.move(room.code, room.key, _view(HOPS - 1))
        _, snap = await store.join(room.code, None)
        assert snap.view.closing is False

    asyncio.run(main())


def test_screens_that_renew_together_renew_in_one_step() -> None:
    """A class's screens renew their leases in a few steps on the room, not one each (a teacher's press waits behind
    every step on its room): those asking while a renewal is on its way go in the next one, and each hears how it
    went."""
    steps: list[list[str]] = []
    fail = False

    async def renew(code: str, screens: list[Screen], lease_s: float) -> bool:
        steps.append([s.id for s in screens])
        await asyncio.sleep(0.01)  # on its way to the storage
        if fail:
            raise RoomError("redis_silent", address="127.0.0.1:1")
        return code == "OPEN"

    async def main() -> None:
        nonlocal fail
        leases = Leases(renew)
        screens = [Screen(f"s{i}", None, False) for i in range(40)]
        first = asyncio.ensure_future(leases.renew("OPEN", screens[0], 40))
        await asyncio.sleep(0)  # the first renewal leaves alone
        rest = [leases.renew("OPEN", s, 40) for s in screens[1:]]
        assert await asyncio.gather(first, *rest) == [True] * 40
        assert steps == [["s0"], [f"s{i}" for i in range(1, 40)]]
        assert await asyncio.gather(*(leases.renew("GONE", s, 40) for s in screens[:3])) == [False] * 3
        fail = True
        got = await asyncio.gather(*(leases.renew("OPEN", s, 40) for s in screens[:3]), return_exceptions=True)
        assert [type(e) for e in got] == [RoomError] * 3
        # One that stopped waiting (its stream closed) leaves the others their answer.
        fail = False
        waiting = [asyncio.ensure_future(leases.renew("OPEN", s, 40)) for s in screens[:3]]
        await asyncio.sleep(0)
        waiting[1].cancel()
        assert await asyncio.gather(waiting[0], waiting[2]) == [True, True]
        # A stream that ended while waiting for the next renewal is not in it (it would be attached again).
        steps.clear()
        first = asyncio.ensure_future(leases.renew("OPEN", screens[0], 40))
        await asyncio.sleep(0)
        waiting = [asyncio.ensure_future(leases.renew("OPEN", s, 40)) for s in screens[1:4]]
        await asyncio.sleep(0)
        waiting[0].cancel()
        assert await asyncio.gather(first, waiting[1], waiting[2]) == [True, True, True]
        assert steps == [["s0"], ["s2", "s3"]]

    asyncio.run(asyncio.wait_for(main(), 10))


def test_a_client_is_its_peer_unless_the_peer_is_a_trusted_proxy():
    from flow.rooms import PROXIES_ENV, proxies_from
    from flow.rooms.web import Proxies, client_address

    nginx = Proxies.parse("127.0.0.1")
    # No proxy named: the header is what the client wrote, from loopback too.
    assert proxies_from({}) == Proxies() and client_address("127.0.0.1", ["192.0.2.7"], "192.0.2.8", Proxies()) == (
        "127.0.0.1"
    )
    assert client_address("192.0.2.50", ["192.0.2.7"], "192.0.2.8", nginx) == "192.0.2.50"  # not the proxy
    # From the proxy: the address it appended, the rightmost; what the client wrote to its left is never read.
    assert client_address("127.0.0.1", ["203.0.113.9, 192.0.2.7"], None, nginx) == "192.0.2.7"
    assert client_address("127.0.0.1", ["203.0.113.9", "192.0.2.7"], None, nginx) == "192.0.2.7"  # two headers
    # Proxies the operator trusts, one behind another, are skipped from the right.
    chain = proxies_from({PROXIES_ENV: "127.0.0.1, 10.1.0.0/16"})
    assert client_address("127.0.0.1", ["203.0.113.9, 192.0.2.7, 10.1.2.3"], None, chain) == "192.0.2.7"
    # No X-Forwarded-For: X-Real-IP; neither, or a hop that is no address: the proxy itself.
    assert client_address("127.0.0.1", [], "192.0.2.8", nginx) == "192.0.2.8"
    assert client_address("127.0.0.1", [], None, nginx) == "127.0.0.1"
    assert client_address("127.0.0.1", ["192.0.2.7, evil"], "192.0.2.8", nginx) == "127.0.0.1"
    assert client_address("127.0.0.1", [], "not an address", nginx) == "127.0.0.1"
    # One device, one address, however it is written.
    assert client_address("::ffff:127.0.0.1", [" ::ffff:192.0.2.7 "], None, nginx) == "192.0.2.7"
    assert client_address("127.0.0.1", ["2001:DB8:0:0::1"], None, nginx) == "2001:db8::1"
    # What is no address or network in the setting is left out: trusting less, never more.
    assert proxies_from({PROXIES_ENV: "127.0.0.1 nginx 10.0.0.0/33 ::1"}) == Proxies.parse("127.0.0.1,::1")
    assert not Proxies.parse("127.0.0.1").trusts("testclient")


def test_a_follower_token_holds_two_streams_at_once(make: Make):
    """A script that joined once cannot fill the room with streams: its token's page, and that page back."""

    async def main() -> None:
        store = make()
        room = store.create(BUNDLES, CHOICES, RoomView())
        token, _ = await store.join(room.code, None)
        page, back = [await store.listen(room.code, 0, tallies=False, token=token) for _ in range(2)]
        with pytest.raises(RoomError) as third:
            await store.listen(room.code, 0, tallies=False, token=token)
        assert third.value.status == 429 and third.value.message.startswith("this follower's page is open 2 times")
        await page.aclose()
        again = await store.listen(room.code, 0, tallies=False, token=token)  # a place given back is taken again
        for stranger in (None, "a-token-of-another-room"):
            with pytest.raises(RoomError) as refused:
                await store.listen(room.code, 0, tallies=False, token=stranger)
            assert refused.value.status == 403 and refused.value.message.startswith("join the room first")
        teacher = await store.listen(room.code, 0, tallies=True)  # the teacher's viewer needs no token
        for stream in (back, again, teacher):
            await stream.aclose()

    asyncio.run(main())
