"""Rooms in Redis (flow.rooms.redis_store): the store contract, run against MemoryRooms (the reference) and
RedisRooms alike; then what only Redis does: two stores on one Redis as two processes, expiry by TTL, a Redis
that does not answer, and two real app processes sharing a room. A real `redis-server` runs for the module
(./dev.sh test installs Debian's)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import socket
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx2
import pytest
import redis
import uvicorn
from starlette.applications import Starlette

from flow.cli.app import app_command
from flow.rooms.events import Event
from flow.rooms.redis_store import RedisRooms
from flow.rooms.rules import Rooms, Stream
from flow.rooms.store import Limits, RoomError, RoomKeys, RoomView
from flow.rooms.web import NO_PROXIES, Proxies, open_files_limit, room_routes, stream_limit
from helpers import ROOT

T = TypeVar("T")
HOPS = 3
BUNDLES = {
    lang: json.dumps({"lang": lang, "hops": [{"n": i} for i in range(HOPS)]}, ensure_ascii=False)
    for lang in ("zh", "en")
}
CHOICES = {1: 3}  # hop 1 asks a question with three choices


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


Make = Callable[..., Rooms]  # the `make` fixture (conftest.py): a store of each kind, with the given limits


async def _follow(store: Rooms, code: str, after: int, **options: Any) -> Stream:
    """A follower's screen: the token the room gives at join, then its event stream."""
    token, _ = await store.join(code, None)
    return await store.listen(code, after, tallies=False, token=token, **options)


def run(main: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(asyncio.wait_for(main(), 30))


async def nxt(stream: AsyncIterator[Event], timeout: float = 5.0) -> Event:
    return await asyncio.wait_for(anext(stream), timeout)


async def ended(stream: AsyncIterator[Event], timeout: float = 5.0) -> bool:
    try:
        await asyncio.wait_for(anext(stream), timeout)
    except StopAsyncIteration:
        return True
    return False


async def quiet(stream: AsyncIterator[Event], timeout: float = 0.3) -> bool:
    """Nothing arrives within `timeout` (the read is left pending: tests close their stores after)."""
    task = asyncio.ensure_future(anext(stream))
    done, _ = await asyncio.wait({task}, timeout=timeout)
    task.cancel()
    return not done


def refused(exc: pytest.ExceptionInfo[RoomError], expected: RoomError) -> None:
    assert (exc.value.status, exc.value.message, exc.value.message_zh) == (
        expected.status,
        expected.message,
        expected.message_zh,
    )


def open_room(store: Rooms) -> RoomKeys:
    return store.create(BUNDLES, CHOICES, RoomView(index=0, lang="zh"))


# ---- the contract, for both stores ----


def test_create_serves_the_bundles_and_a_join_gives_a_token_that_is_reused(make: Make) -> None:
    store = make()
    keys = open_room(store)
    assert store.exists(keys.code) and not store.exists("x" * 14)

    async def main() -> None:
        assert await store.bundle(keys.code, "en") == BUNDLES["en"]
        assert await store.bundle(keys.code, "zh") == BUNDLES["zh"]
        token, snap = await store.join(keys.code, None)
        assert snap.to_json() == {
            "view": {"index": 0, "lang": "zh", "quiz": False, "captions": False, "closing": False},
            "round": 1,
            "hops": HOPS,
            "revealed": {},
            "followers": 1,
            "teacher": False,  # the teacher's viewer has not connected yet
            "last": 1,
        }
        again, snap2 = await store.join(keys.code, token)
        assert again == token and snap2.followers == 1 and snap2.last == 1  # no new follower, no event
        other, snap3 = await store.join(keys.code, "not-a-token-it-gave")
        assert other not in (token, "not-a-token-it-gave") and snap3.followers == 2 and snap3.last == 2
        with pytest.raises(RoomError) as exc:
            await store.join("x" * 14, None)
        refused(exc, RoomError("no_room"))
        with pytest.raises(RoomError) as exc:
            await store.bundle("x" * 14, "zh")
        refused(exc, RoomError("no_room"))
        await store.aclose()

    run(main)


def test_a_follower_follows_a_move_with_growing_ids(make: Make) -> None:
    store = make()
    keys = open_room(store)

    async def main() -> None:
        _, snap = await store.join(keys.code, None)
        stream = await _follow(store, keys.code, snap.last)
        first = await store.move(keys.code, keys.key, {"index": 2, "lang": "en", "quiz": True})
        second = await store.move(keys.code, keys.key, {"index": 1, "lang": "zh", "captions": True})
        # (the stream's opening told the teacher, which took an id)
        assert snap.last < first.id and second.id == first.id + 1
        got = [await nxt(stream), await nxt(stream)]
        assert got == [first, second]
        assert got[0].to_json() == {
            "id": first.id,
            "kind": "view",
            "round": 1,
            "index": 2,
            "lang": "en",
            "quiz": True,
            "captions": False,
            "closing": False,
        }
        _, snap = await store.join(keys.code, None)
        assert snap.view == RoomView(index=1, lang="zh", quiz=False, captions=True)
        with pytest.raises(RoomError) as exc:
            await store.move(keys.code, keys.key, {"index": HOPS})
        assert exc.value.status == 400
        other = open_room(store)  # ids are per room
        assert (await store.move(other.code, other.key, {"index": 0})).id == 1
        await store.aclose()

    run(main)


def test_a_reconnecting_follower_catches_up_after_its_last_event(make: Make) -> None:
    store = make(Limits(backlog=3))
    keys = open_room(store)

    async def main() -> None:
        ids = [(await store.move(keys.code, keys.key, {"index": i % HOPS})).id for i in range(3)]
        stream = await _follow(store, keys.code, ids[0])
        assert [(await nxt(stream)).id for _ in range(2)] == ids[1:]
        assert await quiet(stream)
        # Further behind than the three events kept: where the room is now, then the reveals.
        revealed = (await store.reveal(keys.code, keys.key, 1)).id
        last = (await store.move(keys.code, keys.key, {"index": 2, "lang": "en"})).id
        behind = await _follow(store, keys.code, ids[0])
        got = [await nxt(behind) for _ in range(3)]
        assert [{k: v for k, v in e.to_json().items() if k != "id"} for e in got] == [
            {"kind": "view", "round": 1, "index": 2, "lang": "en", "quiz": False, "captions": False, "closing": False},
            {"kind": "teacher", "here": False},
            {"kind": "reveal", "index": 1, "counts": [0, 0, 0]},
        ]
        # All at the room's last id, which is the move's or, when the stream closed above told the teacher
        # how many follow after the move, that event's.
        assert len({e.id for e in got}) == 1 and got[0].id >= last
        fresh = await _follow(store, keys.code, 0)  # a first connection hears what is kept
        assert [(await nxt(fresh)).id for _ in range(3)] == [ids[2], revealed, last]
        await store.aclose()

    run(main)


def test_answers_are_once_each_closed_at_the_reveal_and_counted(make: Make) -> None:
    store = make()
    keys = open_room(store)

    async def main() -> None:
        a, _ = await store.join(keys.code, None)
        b, _ = await store.join(keys.code, None)
        screens = [await store.listen(keys.code, 0, tallies=False, token=t) for t in (a, b)]
        await store.answer(keys.code, a, 1, 2)
        with pytest.raises(RoomError) as exc:
            await store.answer(keys.code, a, 1, 3)
        refused(exc, RoomError("answered_once"))
        with pytest.raises(RoomError) as exc:
            await store.answer(keys.code, "never-given-token", 1, 1)
        refused(exc, RoomError("not_a_follower"))
        with pytest.raises(RoomError) as exc:
            await store.answer(keys.code, b, 0, 1)
        refused(exc, RoomError("no_question", index=0))
        for choice in (0, 4):
            with pytest.raises(RoomError) as exc:
                await store.answer(keys.code, b, 1, choice)
            refused(exc, RoomError("bad_choice", n=3))
        await store.answer(keys.code, b, 1, 2)
        event = await store.reveal(keys.code, keys.key, 1)
        assert event.kind == "reveal" and event.data == {"index": 1, "counts": [0, 2, 0]}
        c, snap = await store.join(keys.code, None)
        assert snap.revealed == {1: [0, 2, 0]}
        screens.append(await store.listen(keys.code, 0, tallies=False, token=c))
        with pytest.raises(RoomError) as exc:
            await store.answer(keys.code, c, 1, 1)
        refused(exc, RoomError("revealed_already"))
        with pytest.raises(RoomError) as exc:
            await store.reveal(keys.code, keys.key, 0)
        refused(exc, RoomError("no_question", index=0))
        await store.aclose()

    run(main)


def test_tallies_and_joins_reach_only_the_watch_listener(make: Make) -> None:
    store = make()
    keys = open_room(store)

    async def main() -> None:
        assert await store.is_watcher(keys.code, keys.watch)
        assert not await store.is_watcher(keys.code, keys.key)
        teacher = await store.listen(keys.code, 0, tallies=True)
        follower = await _follow(store, keys.code, 0)
        token, _ = await store.join(keys.code, None)
        screen = await store.listen(keys.code, 0, tallies=False, token=token)
        await store.answer(keys.code, token, 1, 3)
        moved = await store.move(keys.code, keys.key, {"index": 1})
        assert [(e.kind, e.data) for e in [await nxt(teacher) for _ in range(8)]] == [
            ("teacher", {"here": True}),
            ("joined", {"followers": 0, "joined": 0}),  # the teacher's own stream is not a follower
            ("joined", {"followers": 0, "joined": 1}),  # a follower's token
            ("joined", {"followers": 1, "joined": 1}),  # that follower's screen
            ("joined", {"followers": 1, "joined": 2}),  # another's token
            ("joined", {"followers": 2, "joined": 2}),  # and its screen
            ("tally", {"index": 1, "counts": [0, 0, 1]}),
            ("view", moved.data),
        ]
        here = await nxt(follower)  # the follower hears that the teacher is there, then the move
        assert (here.kind, here.data) == ("teacher", {"here": True})
        assert await nxt(follower) == moved
        late = await store.listen(keys.code, 0, tallies=True)  # the backlog keeps no tallies
        assert [await nxt(late), await nxt(late)] == [here, moved]
        assert screen
        await store.aclose()

    run(main)


def test_close_ends_the_streams_and_the_room(make: Make) -> None:
    store = make()
    keys = open_room(store)

    async def main() -> None:
        stream = await _follow(store, keys.code, 0)
        with pytest.raises(RoomError) as exc:
            await asyncio.to_thread(store.close, keys.code, keys.watch)
        refused(exc, RoomError("not_teacher"))
        await asyncio.to_thread(store.close, keys.code, keys.key)
        event = await nxt(stream)
        assert (event.kind, event.data) == ("closed", {}) and event.id > 0
        assert await ended(stream)
        assert not store.exists(keys.code)
        with pytest.raises(RoomError) as exc:
            await store.join(keys.code, None)
        refused(exc, RoomError("no_room"))
        with pytest.raises(RoomError) as exc:
            await store.listen(keys.code, 0, tallies=False, token="a-token-it-gave-once")
        refused(exc, RoomError("no_room"))
        await asyncio.to_thread(store.close, keys.code, keys.key)  # closing a closed room is nothing
        await store.aclose()

    run(main)


def test_a_room_idle_too_long_expires_and_its_streams_hear_it(make: Make) -> None:
    store = make(Limits(idle_s=0.4))
    keys = open_room(store)

    async def main() -> None:
        stream = await _follow(store, keys.code, 0, heartbeat_s=0.1)
        await asyncio.sleep(0.25)
        await store.move(keys.code, keys.key, {"index": 1})  # the teacher's act keeps it open
        assert (await nxt(stream)).kind == "view"
        await asyncio.sleep(0.25)
        assert store.exists(keys.code)
        await asyncio.sleep(0.3)
        assert not store.exists(keys.code)  # (the memory store sweeps here)
        while (event := await nxt(stream)).kind == "ping":
            pass
        assert (event.kind, event.data) == ("closed", {"expired": True})
        assert await ended(stream)
        with pytest.raises(RoomError) as exc:
            await store.join(keys.code, None)
        refused(exc, RoomError("no_room"))
        await store.aclose()

    run(main)


def test_the_limits_on_rooms_followers_and_streams(make: Make) -> None:
    store = make(Limits(rooms=2, followers=2, token_streams=6))
    first, _ = open_room(store), open_room(store)
    with pytest.raises(RoomError) as exc:
        open_room(store)
    refused(exc, RoomError("too_many_rooms", limit=2))
    store.close(first.code, first.key)
    keys = open_room(store)

    async def main() -> None:
        a, _ = await store.join(keys.code, None)
        b, _ = await store.join(keys.code, None)
        streams = [await store.listen(keys.code, 0, tallies=False, token=t) for t in (a, b)]  # both follow
        with pytest.raises(RoomError) as exc:
            await store.join(keys.code, None)
        refused(exc, RoomError("room_full", limit=2))
        assert (await store.join(keys.code, a))[0] == a  # a follower already in comes back
        # A stream is a follower's: with no token, or one the room never gave, it takes no place.
        for stranger in (None, "not-a-token-it-gave"):
            with pytest.raises(RoomError) as exc:
                await store.listen(keys.code, 0, tallies=False, token=stranger)
            refused(exc, RoomError("not_a_follower"))
        # Each token's screens (here up to six), and the room's: its followers and a few reconnecting (ten).
        streams += [await store.listen(keys.code, 0, tallies=False, token=t) for t in (a, b) for _ in range(4)]
        with pytest.raises(RoomError) as exc:
            await store.listen(keys.code, 0, tallies=False, token=a)
        refused(exc, RoomError("room_full", limit=2))
        assert streams
        await store.aclose()

    run(main)


def test_the_teacher_is_rate_limited(make: Make) -> None:
    store = make(Limits(teacher_events_per_s=2, teacher_burst=3))
    keys = open_room(store)

    async def main() -> None:
        for i in range(3):
            await store.move(keys.code, keys.key, {"index": i})
        with pytest.raises(RoomError) as exc:
            await store.move(keys.code, keys.key, {"index": 0})
        refused(exc, RoomError("too_fast", per_s=2))
        with pytest.raises(RoomError) as exc:
            await store.reveal(keys.code, keys.key, 1)
        refused(exc, RoomError("too_fast", per_s=2))
        await asyncio.sleep(0.6)  # a token back after half a second
        await store.move(keys.code, keys.key, {"index": 0})
        await store.aclose()

    run(main)


def test_only_the_teachers_key_moves_the_room(make: Make) -> None:
    store = make()
    keys = open_room(store)

    async def main() -> None:
        token, _ = await store.join(keys.code, None)
        for wrong in (token, keys.watch, ""):
            with pytest.raises(RoomError) as exc:
                await store.move(keys.code, wrong, {"index": 1})
            refused(exc, RoomError("not_teacher"))
            with pytest.raises(RoomError) as exc:
                await store.reveal(keys.code, wrong, 1)
            refused(exc, RoomError("not_teacher"))
        with pytest.raises(RoomError) as exc:
            await store.move(keys.code, "clé", {"index": 1})  # a header decoded as Latin-1: refused, not a 500
        refused(exc, RoomError("not_teacher"))
        assert not await store.is_watcher(keys.code, "clé")
        with pytest.raises(RoomError) as exc:
            await store.move("x" * 14, keys.key, {"index": 1})
        refused(exc, RoomError("no_room"))
        _, snap = await store.join(keys.code, token)
        assert snap.view.index == 0 and snap.last == 1
        await store.aclose()

    run(main)


def test_a_follower_too_far_behind_is_dropped(make: Make) -> None:
    store = make(Limits(queue=2))
    keys = open_room(store)

    async def main() -> None:
        token, _ = await store.join(keys.code, None)
        slow = await store.listen(keys.code, 0, tallies=False, token=token)
        moved = []
        for i in range(3):
            moved.append((await store.move(keys.code, keys.key, {"index": i})).id)
            await asyncio.sleep(0.05)
        assert [(await nxt(slow)).id for _ in range(2)] == moved[:2]
        assert await ended(slow)
        again = await store.listen(keys.code, moved[1], tallies=False, token=token)  # it reconnects, catches up
        assert (await nxt(again)).id == moved[2]
        await store.aclose()

    run(main)


def test_another_trace_is_a_new_round_of_the_same_room(make: Make) -> None:
    """The teacher's page shows another trace: the room keeps its code and followers, its tallies start again,
    a follower hears the round in the view and fetches that round's bundle; an old round's bundle is refused."""
    store = make()
    keys = open_room(store)
    other = {lang: json.dumps({"lang": lang, "hops": [{"n": i} for i in range(5)]}) for lang in ("zh", "en")}

    async def main() -> None:
        assert await store.bundle(keys.code, "en", 1) == BUNDLES["en"]  # the process keeps it now
        token, snap = await store.join(keys.code, None)
        stream = await store.listen(keys.code, snap.last, tallies=False, token=token)
        await store.answer(keys.code, token, 1, 2)
        await store.reveal(keys.code, keys.key, 1)
        assert (await nxt(stream)).kind == "reveal"
        with pytest.raises(RoomError) as exc:
            await asyncio.to_thread(store.retrace, keys.code, token, other, {3: 2}, RoomView(index=4))
        refused(exc, RoomError("not_teacher"))
        assert await asyncio.to_thread(store.retrace, keys.code, keys.key, other, {3: 2}, RoomView(index=4)) == 2
        moved = await nxt(stream)
        assert (moved.kind, moved.data) == (
            "view",
            {"round": 2, "index": 4, "lang": "zh", "quiz": False, "captions": False, "closing": False},
        )
        assert await store.bundle(keys.code, "en", 2) == await store.bundle(keys.code, "en") == other["en"]
        with pytest.raises(RoomError) as exc:
            await store.bundle(keys.code, "en", 1)
        assert exc.value.status == 409 and "round 2" in exc.value.message
        _, snap = await store.join(keys.code, token)  # the same follower, in the new round
        assert (snap.round, snap.hops, snap.revealed) == (2, 5, {})
        await store.answer(keys.code, token, 3, 1)  # answers open again, for the new trace's questions
        with pytest.raises(RoomError) as exc:
            await store.answer(keys.code, token, 1, 1)
        refused(exc, RoomError("no_question", index=1))
        await store.move(keys.code, keys.key, {"index": 4})  # a hop the new trace has (the old one had 3)
        assert (await nxt(stream)).data["index"] == 4
        # The same trace again is no new round: only the view moves.
        assert await asyncio.to_thread(store.retrace, keys.code, keys.key, other, {3: 2}, RoomView(index=1)) == 2
        assert (await nxt(stream)).data["round"] == 2
        await store.aclose()

    run(main)


def test_a_bundle_read_once_is_served_from_the_process_but_never_for_a_closed_room(
    make: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every follower of a round gets the same bundle: the process keeps the last ones it read (within a size),
    and a room's rules still come first."""
    import flow.rooms.rules as rules

    monkeypatch.setattr(rules, "_BUNDLES_KEPT", max(map(len, BUNDLES.values())))  # room for one
    store = make()
    keys, other = open_room(store), open_room(store)

    async def main() -> None:
        for _ in range(2):
            assert await store.bundle(keys.code, "zh") == BUNDLES["zh"]
            assert await store.bundle(other.code, "en", 1) == BUNDLES["en"]
        assert len(store._bundles) == 1  # the last one read
        await asyncio.to_thread(store.close, other.code, other.key)
        with pytest.raises(RoomError) as exc:
            await store.bundle(other.code, "en", 1)
        refused(exc, RoomError("no_room"))
        await store.aclose()

    run(main)


def test_followers_hear_when_the_teachers_screen_goes_and_comes_back(make: Make) -> None:
    """A teacher's page that reloads drops its stream: followers hear that the teacher is away, then back; the
    teacher hears how many screens follow as they come and go."""
    store = make()
    keys = open_room(store)

    async def main() -> None:
        teacher = await store.listen(keys.code, 0, tallies=True)
        token, snap = await store.join(keys.code, None)
        assert snap.teacher
        follower = await store.listen(keys.code, snap.last, tallies=False, token=token)
        while (await nxt(teacher)).data != {"followers": 1, "joined": 1}:
            pass
        second = await store.listen(keys.code, snap.last, tallies=False, token=token)  # the same page, twice
        reading = asyncio.ensure_future(anext(second))  # the server reads a stream as soon as it opens
        assert (await nxt(teacher)).data == {"followers": 2, "joined": 1}
        reading.cancel()  # a student closed the tab: the server cancels what was reading the stream
        await asyncio.gather(reading, return_exceptions=True)
        assert (await nxt(teacher)).data == {"followers": 1, "joined": 1}
        reading = asyncio.ensure_future(anext(teacher))
        await asyncio.sleep(0)
        reading.cancel()  # the teacher's page reloads: the server cancels what was reading its stream
        await asyncio.gather(reading, return_exceptions=True)
        gone = await nxt(follower)
        assert (gone.kind, gone.data) == ("teacher", {"here": False})
        _, snap = await store.join(keys.code, None)
        assert not snap.teacher
        back = await store.listen(keys.code, 0, tallies=True)
        came = await nxt(follower)
        assert (came.kind, came.data) == ("teacher", {"here": True})
        await store.move(keys.code, keys.key, {"index": 2, "quiz": True})
        # A reloaded page takes it back, with the view the class last saw.
        assert await asyncio.to_thread(store.take_back, keys.code, keys.key) == (keys, RoomView(index=2, quiz=True))
        assert await asyncio.to_thread(store.take_back, keys.code, keys.watch) is None
        assert await asyncio.to_thread(store.take_back, "x" * 14, keys.key) is None
        assert back
        await store.aclose()

    run(main)


def test_an_answer_needs_a_screen_that_follows_the_room(make: Make) -> None:
    """A token alone answers nothing: a script that mints tokens pays for each answer with an open stream."""
    store = make()
    keys = open_room(store)

    async def main() -> None:
        token, _ = await store.join(keys.code, None)
        with pytest.raises(RoomError) as exc:
            await store.answer(keys.code, token, 1, 1)
        refused(exc, RoomError("not_following"))
        with pytest.raises(RoomError) as exc:
            await store.answer(keys.code, "not-a-token-it-gave", 1, 1)
        refused(exc, RoomError("not_a_follower"))
        screen = await store.listen(keys.code, 0, tallies=False, token=token)
        await store.answer(keys.code, token, 1, 2)
        await screen.aclose()
        other, _ = await store.join(keys.code, None)
        with pytest.raises(RoomError) as exc:
            await store.answer(keys.code, other, 1, 1)  # the first screen closed: it made no place for another
        refused(exc, RoomError("not_following"))
        assert (await store.reveal(keys.code, keys.key, 1)).data["counts"] == [0, 1, 0]
        await store.aclose()

    run(main)


def test_a_full_room_lets_a_newcomer_in_for_a_token_no_screen_follows(make: Make) -> None:
    """Tokens a script made and left do not lock the class out; a screen that follows keeps its place."""
    store = make(Limits(followers=2))
    keys = open_room(store)

    async def main() -> None:
        following, _ = await store.join(keys.code, None)
        await store.join(keys.code, None)  # joined, and no screen of it follows
        screen = await store.listen(keys.code, 0, tallies=False, token=following)
        newcomer, snap = await store.join(keys.code, None)
        assert snap.followers == 2
        assert (await store.join(keys.code, following))[0] == following  # still in
        late = await store.listen(keys.code, 0, tallies=False, token=newcomer)
        with pytest.raises(RoomError) as exc:
            await store.join(keys.code, None)  # both follow now
        refused(exc, RoomError("room_full", limit=2))
        await store.answer(keys.code, following, 1, 1)
        await store.answer(keys.code, newcomer, 1, 2)
        await screen.aclose()
        await late.aclose()
        await store.aclose()

    run(main)


def test_a_join_that_may_not_add_refuses_a_newcomer_only(make: Make) -> None:
    """The routes' rate per address (may_add=False) keeps new followers out and lets a reload back in."""
    store = make()
    keys = open_room(store)

    async def main() -> None:
        token, _ = await store.join(keys.code, None)
        assert (await store.join(keys.code, token, may_add=False))[0] == token
        for given in (None, "not-a-token-it-gave"):
            with pytest.raises(RoomError) as exc:
                await store.join(keys.code, given, may_add=False)
            refused(exc, RoomError("joining_too_fast", per_s=Limits().client_joins_per_s))
        assert (await store.join(keys.code, None))[1].followers == 2
        await store.aclose()

    run(main)


def test_every_rooms_viewer_data_together_is_bounded(make: Make) -> None:
    """The rooms' memory, not only their number: creating or retracing past the limit is refused, closing frees it."""
    size = sum(len(text.encode()) for text in BUNDLES.values())
    store = make(Limits(all_bundle_bytes=2 * size + 10))
    first, second = open_room(store), open_room(store)
    with pytest.raises(RoomError) as exc:
        open_room(store)
    refused(exc, RoomError("too_much_data", limit=2 * size + 10))
    bigger = {lang: text + " " * 40 for lang, text in BUNDLES.items()}
    with pytest.raises(RoomError) as exc:
        store.retrace(second.code, second.key, bigger, CHOICES, RoomView())
    refused(exc, RoomError("too_much_data", limit=2 * size + 10))
    assert store.retrace(second.code, second.key, BUNDLES, CHOICES, RoomView(index=1)) == 1  # the same trace: fits
    store.close(first.code, first.key)
    assert store.retrace(second.code, second.key, bigger, CHOICES, RoomView()) == 2
    with pytest.raises(RoomError) as exc:
        open_room(store)  # the bigger trace left no room for another
    refused(exc, RoomError("too_much_data", limit=2 * size + 10))
    store.close(second.code, second.key)
    open_room(store)
    assert "MiB of viewer data" in RoomError("too_much_data", limit=256 * 2**20).message


def test_a_stream_closed_before_it_was_read_gives_its_place_back(make: Make) -> None:
    """A client that leaves before its stream's first event: closing the stream lets its place go all the same."""
    store = make(Limits(followers=1, token_streams=9))  # nine streams at once (one follower and eight for reconnects)

    async def main() -> None:
        keys = open_room(store)
        token, _ = await store.join(keys.code, None)
        for _ in range(3):
            streams = [await store.listen(keys.code, 0, tallies=False, token=token) for _ in range(9)]
            for stream in streams:
                await stream.aclose()
        teacher = await store.listen(keys.code, 0, tallies=True)
        while (event := await nxt(teacher)).kind != "joined":
            pass
        assert event.data["followers"] == 0
        await store.aclose()

    run(main)


def test_the_follower_page_is_in_the_rooms_language(make: Make) -> None:
    store = make()
    keys = store.create(BUNDLES, CHOICES, RoomView(lang="en"))
    assert store.lang_of(keys.code) == "en" and store.lang_of("x" * 14) is None

    async def main() -> None:
        await store.move(keys.code, keys.key, {"index": 0, "lang": "zh"})
        await store.aclose()

    run(main)
    assert store.lang_of(keys.code) == "zh"


# ---- the routes, over HTTP, on each store ----


@contextlib.contextmanager
def served(store: Rooms, open_files: int | None = None, proxies: Proxies = NO_PROXIES) -> Iterator[str]:
    """The rooms' routes on `store`, served by uvicorn on a free loopback port (believing no forwarding header
    itself, as `mcp-flow app` runs it); yields the base URL."""
    app = Starlette(routes=room_routes(lambda: store, open_files=open_files, proxies=proxies))
    port = _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", forwarded_allow_ips="")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _from(address: str) -> httpx2.Client:
    """A client whose connections come from `address` (any 127.x.y.z is this machine): another remote address."""
    return httpx2.Client(transport=httpx2.HTTPTransport(local_address=address), timeout=10)


def test_routes_refuse_deeply_nested_bodies_with_one_line(make: Make) -> None:
    """A thousand brackets, under the 4 KiB a body may be, are a 400 with one line, not json's RecursionError as a
    500, before any key is checked."""
    store = make()
    keys = open_room(store)
    deep = b"[" * 1000 + b"]" * 1000
    with served(store) as base, httpx2.Client(timeout=10) as http:
        for path in ("join", "view", "reveal", "answer"):
            got = http.post(f"{base}/room/{keys.code}/{path}", content=deep, headers={"x-room-key": "wrong"})
            assert got.status_code == 400, (path, got.text)
            assert got.json()["error"].startswith("the request body nests deeper than 8 levels")
        strings = json.dumps({"token": "[" * 40, "index": 1, "choice": 1})  # brackets in a string do not nest
        parsed = http.post(f"{base}/room/{keys.code}/answer", content=strings)
        assert (parsed.status_code, parsed.json()) == (403, RoomError("not_a_follower").to_json())


def test_routes_bound_event_streams_per_client_and_in_all(make: Make) -> None:
    """One client that knows a room's code cannot open streams until the process runs out of files: three from one
    address, five in all (half of ten open files), each refusal one line; a stream that ends gives its place back."""
    store = make(Limits(client_streams=3, token_streams=10))
    keys = open_room(store)
    with contextlib.ExitStack() as stack:
        base = stack.enter_context(served(store, open_files=10))
        one, two, three = (stack.enter_context(_from(f"127.0.0.{n}")) for n in (1, 2, 3))
        token = one.post(f"{base}/room/{keys.code}/join", json={}).json()["token"]
        url = f"{base}/room/{keys.code}/events?token={token}"
        opened = [stack.enter_context(one.stream("GET", url)) for _ in range(3)]
        assert all(r.status_code == 200 for r in opened)
        with one.stream("GET", url) as fourth:
            fourth.read()
            assert fourth.status_code == 429
            assert fourth.json()["error"] == "too many event streams from this address (3): close a room's tab or two"
        more = [stack.enter_context(two.stream("GET", url)) for _ in range(2)]
        assert all(r.status_code == 200 for r in more)
        with three.stream("GET", url) as sixth:
            sixth.read()
            assert sixth.status_code == 503 and sixth.json()["error"].startswith("this server follows as many screens")
        more[0].close()
        deadline = time.monotonic() + 10
        while True:  # the server hears the client leave, then lets another in
            with three.stream("GET", url) as again:
                if again.status_code == 200:
                    break
            assert time.monotonic() < deadline, "the closed stream never gave its place back"
            time.sleep(0.05)
    assert stream_limit(Limits(), 1024) == 512 and stream_limit(Limits(streams=100), 1024) == 100
    assert stream_limit(Limits(), None) == Limits().streams
    limit = open_files_limit()
    assert limit is None or limit > 0


def test_routes_rate_new_followers_per_client(make: Make) -> None:
    """520 joins in a fraction of a second filled a room: one address adds three at once here, then waits; a reload
    (a token the room gave) and another address are let in."""
    store = make(Limits(client_join_burst=3, client_joins_per_s=0.01))
    keys = open_room(store)
    with served(store) as base, _from("127.0.0.1") as one, _from("127.0.0.2") as two:
        url = f"{base}/room/{keys.code}/join"
        tokens = [one.post(url, json={}).json()["token"] for _ in range(3)]
        refused_join = one.post(url, json={})
        assert refused_join.status_code == 429
        assert refused_join.json() == RoomError("joining_too_fast", per_s=0.01).to_json()
        assert "one every 100 s" in refused_join.json()["error"]
        assert one.post(url, json={"token": "made-up-token"}).status_code == 429
        back = one.post(url, json={"token": tokens[0]})
        assert back.status_code == 200 and back.json()["token"] == tokens[0]
        assert two.post(url, json={}).status_code == 200


def test_routes_tell_students_behind_the_trusted_proxy_apart_and_believe_no_one_else(make: Make) -> None:
    """Behind the school's nginx every student arrives from 127.0.0.1: the address nginx appends to
    X-Forwarded-For is each one's budget. From any other peer the header is the client's own word: ignored."""
    store = make(Limits(client_join_burst=2, client_joins_per_s=0.01))
    keys = open_room(store)
    with served(store, proxies=Proxies.parse("127.0.0.1")) as base, _from("127.0.0.1") as nginx:
        with _from("127.0.0.2") as stranger:
            url = f"{base}/room/{keys.code}/join"

            def join(client: httpx2.Client, forwarded: str) -> int:
                return client.post(url, json={}, headers={"X-Forwarded-For": forwarded}).status_code

            # Thirty students through nginx, each with a forged address of its own before the one nginx appended.
            students = [join(nginx, f"198.51.100.{n % 3}, 192.0.2.{n}") for n in range(30)]
            assert students == [200] * 30
            # One student, whatever it writes on the left, is one address: two joins at once, then wait.
            one = [join(nginx, f"198.51.100.{n}, 192.0.2.200") for n in range(3)]
            assert one == [200, 200, 429]
            # The same header from a peer that is not the proxy names nobody: all of them are that peer.
            assert [join(stranger, f"192.0.2.{n}") for n in range(3)] == [200, 200, 429]


def test_routes_let_no_stream_fill_a_room_without_joining(make: Make) -> None:
    """Forty addresses holding seventeen streams each filled a room's places without a join: now a stream is a
    follower's, with a token the room gave, and one token holds two."""
    store = make()
    keys = open_room(store)
    with served(store) as base, contextlib.ExitStack() as stack:
        url = f"{base}/room/{keys.code}/events"
        for n in range(1, 6):
            client = stack.enter_context(_from(f"127.0.1.{n}"))
            for params in ({}, {"token": "made-up-token"}, {"watch": "guess"}):
                with client.stream("GET", url, params=params) as got:
                    got.read()
                    assert (got.status_code, got.json()) == (403, RoomError("not_a_follower").to_json())
        one = stack.enter_context(_from("127.0.1.9"))
        token = one.post(f"{base}/room/{keys.code}/join", json={}).json()["token"]
        held = [stack.enter_context(one.stream("GET", url, params={"token": token})) for _ in range(2)]
        assert [r.status_code for r in held] == [200, 200]
        with one.stream("GET", url, params={"token": token}) as third:
            third.read()
            assert (third.status_code, third.json()) == (429, RoomError("streams_of_token", limit=2).to_json())


def test_routes_serve_the_follower_page_in_the_rooms_language(make: Make) -> None:
    store = make()
    keys = store.create(BUNDLES, CHOICES, RoomView(lang="en"))
    with served(store) as base, httpx2.Client(timeout=10) as http:
        page = http.get(f"{base}/room/{keys.code}")
        assert page.status_code == 200 and page.text.startswith('<!DOCTYPE html>\n<html lang="en">')
        assert "document.documentElement.lang" in page.text  # and it follows the teacher's switches


# ---- what only Redis does ----


def test_two_processes_share_a_room_in_order(redis_url: str, r: redis.Redis) -> None:
    a, b = RedisRooms(redis_url), RedisRooms(redis_url)
    keys = open_room(a)
    assert b.exists(keys.code)

    async def main() -> None:
        teacher = await a.listen(keys.code, 0, tallies=True)
        token, snap = await b.join(keys.code, None)
        follower = await b.listen(keys.code, snap.last, tallies=False, token=token)
        posted = [await a.move(keys.code, keys.key, {"index": i % HOPS, "lang": "en"}) for i in range(10)]
        assert [await nxt(follower) for _ in posted] == posted
        await b.answer(keys.code, token, 1, 1)
        heard = [(await nxt(teacher)).kind for _ in range(4)]
        assert heard == ["teacher", "joined", "joined", "joined"]  # itself, the token on B, the stream on B
        while (event := await nxt(teacher)).kind == "view":
            pass
        assert (event.kind, event.data) == ("tally", {"index": 1, "counts": [1, 0, 0]})
        assert await b.bundle(keys.code, "en") == BUNDLES["en"]
        await asyncio.to_thread(a.close, keys.code, keys.key)
        assert (await nxt(follower)).kind == "closed"
        assert await ended(follower)
        await a.aclose()
        await b.aclose()

    run(main)


def test_every_key_expires_and_no_key_links_a_token_to_a_choice(redis_url: str, r: redis.Redis) -> None:
    store = RedisRooms(redis_url, Limits(idle_s=60))
    keys = open_room(store)

    async def main() -> str:
        token, _ = await store.join(keys.code, None)
        stream = await store.listen(keys.code, 0, tallies=False, token=token)
        await store.answer(keys.code, token, 1, 3)
        for name in r.scan_iter(f"mcpflow:room:{{{keys.code}}}:*"):  # made by steps that did not move the deadline
            assert 0 < r.pttl(name) <= 60_000, name
        await store.move(keys.code, keys.key, {"index": 1})
        await store.reveal(keys.code, keys.key, 1)
        assert (await nxt(stream)).kind == "view"
        await store.aclose()
        return token

    token = run(main)
    names = list(r.scan_iter(f"mcpflow:room:{{{keys.code}}}:*"))
    assert len(names) == 10  # every part but the teachers' streams (no teacher listened)
    for name in names:
        assert 0 < r.pttl(name) <= 60_000, name
    assert r.smembers(f"mcpflow:room:{{{keys.code}}}:answered") == {f"1:{token}"}
    assert r.hgetall(f"mcpflow:room:{{{keys.code}}}:counts") == {"1:3": "1"}
    expires = r.zscore("mcpflow:rooms", keys.code)
    assert expires is not None and 0 < expires - time.time() * 1000 <= 60_000


def test_a_redis_that_does_not_answer_is_a_one_line_503_without_the_password() -> None:
    port = _free_port()  # nothing listens there
    store = RedisRooms(f"redis://user:s3cret-pw@127.0.0.1:{port}/0", timeout_s=1)
    expected = f"the rooms' Redis at 127.0.0.1:{port} does not answer"
    started = time.monotonic()
    for call in (lambda: open_room(store), lambda: store.exists("x" * 14), lambda: store.close("x" * 14, "k")):
        with pytest.raises(RoomError) as exc:
            call()
        assert (exc.value.status, exc.value.message) == (503, expected)
        assert "s3cret" not in exc.value.message + exc.value.message_zh and "\n" not in exc.value.message

    async def main() -> None:
        for coro in (
            store.join("x" * 14, None),
            store.listen("x" * 14, 0, tallies=False),
            store.bundle("x" * 14, "en"),
        ):
            with pytest.raises(RoomError) as exc:
                await coro
            assert (exc.value.status, exc.value.message) == (503, expected)
            assert exc.value.__cause__ is None and exc.value.__suppress_context__
        await store.aclose()

    run(main)
    assert time.monotonic() - started < 5
    with pytest.raises(RoomError) as exc:
        RedisRooms("http://user:s3cret-pw@example.org/")
    assert exc.value.status == 503 and "s3cret" not in exc.value.message


def _serve(port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    command = app_command(port=port)  # what `mcp-flow app --port PORT` runs
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _healthy(httpx: Any, url: str, proc: subprocess.Popen[bytes], deadline: float) -> None:
    while True:
        try:
            if httpx.get(f"{url}/_stcore/health", timeout=2).text == "ok":
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            pytest.fail(f"the app at {url} did not start")
        time.sleep(0.2)


def test_two_app_processes_share_a_room_over_http(redis_url: str, r: redis.Redis, tmp_path: Path) -> None:
    import httpx2 as httpx

    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["MCP_FLOW_ROOMS_REDIS"] = redis_url
    ports = [_free_port(), _free_port()]
    procs = [_serve(port, env) for port in ports]
    a, b = (f"http://127.0.0.1:{port}" for port in ports)
    try:
        deadline = time.monotonic() + 60
        _healthy(httpx, a, procs[0], deadline)
        _healthy(httpx, b, procs[1], deadline)
        teacher = RedisRooms(redis_url)
        keys = open_room(teacher)  # the Step page's script thread does this in the app
        lines: queue.Queue[str] = queue.Queue()
        joined = httpx.post(f"{b}/room/{keys.code}/join", json={}, timeout=5).json()
        assert joined["snapshot"]["hops"] == HOPS
        params = {"after": "0", "token": joined["token"]}  # the follower's screen, so that it may answer

        def read() -> None:
            with httpx.stream("GET", f"{b}/room/{keys.code}/events", params=params, timeout=10) as got:
                lines.put(f"status {got.status_code}")
                for line in got.iter_lines():
                    if line:
                        lines.put(line)
                    if line == "event: closed":
                        return  # the room closed: the stream closes, so the apps stop at once

        threading.Thread(target=read, daemon=True).start()
        assert lines.get(timeout=10) == "status 200"  # listen() has subscribed before the response starts
        assert lines.get(timeout=10) == "retry: 1000"
        moved = httpx.post(
            f"{a}/room/{keys.code}/view",
            json={"index": 2, "lang": "en"},
            headers={"X-Room-Key": keys.key},
            timeout=5,
        )
        assert moved.status_code == 200
        got = [lines.get(timeout=10) for _ in range(3)]
        assert got == [
            f"id: {moved.json()['id']}",
            "event: view",
            'data: {"round":1,"index":2,"lang":"en","quiz":false,"captions":false,"closing":false}',
        ]
        wrong = httpx.post(f"{b}/room/{keys.code}/view", json={"index": 1}, headers={"X-Room-Key": "no"}, timeout=5)
        assert (wrong.status_code, wrong.json()) == (403, RoomError("not_teacher").to_json())
        answer = {"token": joined["token"], "index": 1, "choice": 2}
        assert httpx.post(f"{a}/room/{keys.code}/answer", json=answer, timeout=5).status_code == 204
        again = httpx.post(f"{b}/room/{keys.code}/answer", json=answer, timeout=5)
        assert (again.status_code, again.json()) == (409, RoomError("answered_once").to_json())
        assert httpx.get(f"{b}/room/{keys.code}/bundle/en", timeout=5).text == BUNDLES["en"]
        assert httpx.get(f"{a}/room/{keys.code}", timeout=5).status_code == 200
        teacher.close(keys.code, keys.key)
        while lines.get(timeout=10) != "event: closed":
            pass
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_two_hundred_followers_arriving_at_once_are_all_let_in(make: Make) -> None:
    """More followers than the store keeps connections to Redis: each waits for one, none is refused
    (a pool that refuses when full turned half of a 200-student room away with a 503)."""

    async def main() -> None:
        store = make(None)
        room = open_room(store)

        listening: list[AsyncIterator[Event]] = []
        all_in = asyncio.Event()

        async def arrive() -> Event:
            token, snap = await store.join(room.code, None)
            stream = await store.listen(room.code, snap.last, tallies=False, token=token)
            listening.append(stream)
            if len(listening) == 200:
                all_in.set()
            return await nxt(stream, 10)

        arrivals = [asyncio.ensure_future(arrive()) for _ in range(200)]
        await asyncio.wait_for(all_in.wait(), 20)  # every one let in (a refusal would raise in its task)
        await store.move(room.code, room.key, {"index": 2, "lang": "zh"})
        got = await asyncio.gather(*arrivals)
        assert [e.data["index"] for e in got] == [2] * 200
        await store.aclose()

    run(main)
