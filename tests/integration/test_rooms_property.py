"""The two stores keep the same rooms: random sequences of what a teacher's page, followers and their screens do,
run on rooms in memory and rooms in a real Redis side by side, give the same answers, the same refusals and the
same events, ids included.

The rules are written once (flow.rooms.rules); what this checks is that the storage primitives under them
(flow.rooms.storage.MemoryStorage, flow.rooms.redis_store.RedisStorage) keep the same state. Codes, keys and
tokens are random in each store, so each is compared by its place (the second room, a room's third token).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import redis
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule, run_state_machine_as_test

from flow.rooms.events import Event
from flow.rooms.redis_store import RedisRooms
from flow.rooms.rules import MemoryRooms, Rooms, Stream
from flow.rooms.store import Limits, RoomError, RoomKeys, RoomView

TRACES = [  # two traces a room may show, of 3 and 5 hops, with their questions' number of choices by hop
    ({lang: json.dumps({"lang": lang, "hops": [{"n": i} for i in range(3)]}) for lang in ("zh", "en")}, {1: 3}),
    ({lang: json.dumps({"lang": lang, "hops": [{"n": i} for i in range(5)]}) for lang in ("zh", "en")}, {0: 2, 3: 4}),
]
# Small limits, so that a short run meets them; the teacher's bucket refills too slowly to matter within a run.
LIMITS = Limits(rooms=3, followers=3, backlog=2, teacher_events_per_s=1e-6, teacher_burst=6)
HEARTBEAT_S = 120.0  # no heartbeat within a run: only the rooms' own events
rooms_ = st.integers(0, 4)
keys_ = st.sampled_from(["key", "key", "key", "watch", "none"])  # mostly the teacher's


class SameRooms(RuleBasedStateMachine):
    redis_url = ""  # the test's Redis (a subclass sets it)

    def __init__(self) -> None:
        super().__init__()
        redis.Redis.from_url(self.redis_url).flushall()
        self.loop = asyncio.new_event_loop()
        self.stores: tuple[Rooms, Rooms] = (MemoryRooms(LIMITS), RedisRooms(self.redis_url, LIMITS))
        self.rooms: list[tuple[RoomKeys, RoomKeys]] = []
        self.tokens: list[list[tuple[str, str]]] = []  # by room: each follower's token in either store
        self.streams: list[tuple[Stream, Stream]] = []
        self.open: list[int] = []  # the rooms not closed yet, by their place in self.rooms
        self.shows: list[int] = []  # by room: the trace it shows now
        self.following: list[list[int]] = []  # by room: the tokens (by place) a screen followed with

    # ---- running one act on both stores, and comparing ----

    def both(self, act: Any, seen: Any = None) -> tuple[Any, Any]:
        """`act(store, i)` on each store (i: 0 memory, 1 Redis), awaited when it is a coroutine; each outcome a
        value or the refusal's code, status and line. What `seen(outcome, i)` makes of them (`plain` unless
        given) is the same in both, or the run fails."""
        got = []
        for i, store in enumerate(self.stores):
            try:
                value = act(store, i)
                if asyncio.iscoroutine(value):
                    value = self.loop.run_until_complete(asyncio.wait_for(value, 10))
                got.append(value)
            except RoomError as exc:
                got.append(("refused", exc.code, exc.status, exc.message))
        memory, redis_ = got
        seen = seen or self.plain
        assert seen(memory, 0) == seen(redis_, 1), (memory, redis_)
        return memory, redis_

    def plain(self, value: Any, i: int) -> Any:
        """A value with each store's own codes, keys and tokens named by their place."""
        names = {keys[i].code: f"room{n}" for n, keys in enumerate(self.rooms)}
        names |= {keys[i].key: f"key{n}" for n, keys in enumerate(self.rooms)}
        names |= {keys[i].watch: f"watch{n}" for n, keys in enumerate(self.rooms)}
        names |= {pair[i]: f"token{n}.{t}" for n, tokens in enumerate(self.tokens) for t, pair in enumerate(tokens)}
        if isinstance(value, str):
            return names.get(value, value)
        if isinstance(value, RoomKeys):
            return [names.get(value.code, "?"), names.get(value.key, "?"), names.get(value.watch, "?")]
        if isinstance(value, tuple | list):
            return [self.plain(v, i) for v in value]
        if isinstance(value, Stream):
            return "a stream"
        if isinstance(value, Event | RoomView) or hasattr(value, "to_json"):
            return value.to_json()
        return value

    @staticmethod
    def made(value: Any, i: int) -> Any:
        """A room made (its keys are new in each store), or the refusal."""
        return "made" if isinstance(value, RoomKeys) else value

    def joined(self, value: Any, i: int) -> Any:
        """A token the room gave before (by its place), or a new one; and the snapshot."""
        if value[0] == "refused":
            return value
        token, snapshot = value
        known = [pair[i] for tokens in self.tokens for pair in tokens]
        return [self.plain(token, i) if token in known else "a new token", snapshot.to_json()]

    def at(self, n: int) -> int | None:
        """Room n: mostly one still open (n counts those), now and then a closed one (n past them)."""
        if n < len(self.open):
            return self.open[n]
        return n % len(self.rooms) if self.rooms else None

    def room(self, n: int, i: int) -> RoomKeys:
        at = self.at(n)
        return RoomKeys("x" * 14, "", "") if at is None else self.rooms[at][i]

    def key(self, n: int, i: int, which: str) -> str:
        keys = self.room(n, i)
        return {"key": keys.key, "watch": keys.watch, "none": "not-a-key"}[which]

    def token(self, n: int, t: int, i: int) -> str:
        at = self.at(n)
        tokens = [] if at is None else self.tokens[at]
        return tokens[t % len(tokens)][i] if tokens and t >= 0 else "never-given-token"

    # ---- the teacher's page ----

    @initialize(trace=st.integers(0, 1), index=st.integers(0, 4), lang=st.sampled_from(["zh", "en"]))
    def first(self, trace: int, index: int, lang: str) -> None:
        """A run starts with a room open, and the teacher's viewer listening (it hears the tallies)."""
        self.create(trace, index, lang)
        self.opened(0, True, -1, 0)

    @rule(trace=st.integers(0, 1), index=st.integers(0, 4), lang=st.sampled_from(["zh", "en"]))
    def create(self, trace: int, index: int, lang: str) -> None:
        bundles, choices = TRACES[trace]
        view = RoomView(index=index, lang="en" if lang == "en" else "zh")
        made = self.both(lambda store, i: store.create(bundles, choices, view), self.made)
        if isinstance(made[0], RoomKeys):
            self.open.append(len(self.rooms))
            self.rooms.append(made)
            self.tokens.append([])
            self.shows.append(trace)
            self.following.append([])

    @precondition(lambda self: self.rooms)
    @rule(n=rooms_, trace=st.integers(0, 1), index=st.integers(0, 4), which=keys_)
    def retrace(self, n: int, trace: int, index: int, which: str) -> None:
        bundles, choices = TRACES[trace]
        view = RoomView(index=index)
        done, _ = self.both(
            lambda store, i: store.retrace(self.room(n, i).code, self.key(n, i, which), bundles, choices, view)
        )
        at = self.at(n)
        if isinstance(done, int) and at is not None:
            self.shows[at] = trace

    @precondition(lambda self: self.rooms)
    @rule(n=rooms_, which=keys_)
    def close(self, n: int, which: str) -> None:
        closed, _ = self.both(lambda store, i: store.close(self.room(n, i).code, self.key(n, i, which)))
        if closed is None and self.at(n) in self.open:
            self.open.remove(self.at(n))  # type: ignore[arg-type]

    @rule(n=rooms_, which=keys_)
    def look(self, n: int, which: str) -> None:
        """What the page reads: whether the room is open, its language, and taking it back."""
        self.both(lambda store, i: store.exists(self.room(n, i).code))
        self.both(lambda store, i: store.lang_of(self.room(n, i).code))
        self.both(lambda store, i: store.take_back(self.room(n, i).code, self.key(n, i, which)))

    # ---- the routes ----

    @rule(n=rooms_, lang=st.sampled_from(["zh", "en"]), round_=st.sampled_from([None, 1, 2]))
    def fetch_bundle(self, n: int, lang: str, round_: int | None) -> None:
        self.both(lambda store, i: store.bundle(self.room(n, i).code, lang, round_))  # type: ignore[arg-type]

    @rule(n=rooms_, t=st.integers(-1, 4), may_add=st.booleans())
    def join(self, n: int, t: int, may_add: bool) -> None:
        given = (lambda i: None) if t < 0 else (lambda i: self.token(n, t, i))
        memory, redis_ = self.both(
            lambda store, i: store.join(self.room(n, i).code, given(i), may_add=may_add), self.joined
        )
        at = self.at(n)
        if memory[0] != "refused" and at is not None:
            tokens = self.tokens[at]
            if (memory[0], redis_[0]) not in tokens:
                tokens.append((memory[0], redis_[0]))

    @rule(
        n=rooms_,
        which=keys_,
        index=st.integers(-1, 5),
        lang=st.sampled_from(["zh", "en", "fr"]),
        flags=st.integers(0, 7),
    )
    def move(self, n: int, which: str, index: int, lang: str, flags: int) -> None:
        view = {
            "index": index,
            "lang": lang,
            "quiz": bool(flags & 1),
            "captions": bool(flags & 2),
            "closing": bool(flags & 4),
        }
        self.both(lambda store, i: store.move(self.room(n, i).code, self.key(n, i, which), view))

    @rule(n=rooms_, which=keys_, index=st.integers(0, 4))
    def reveal(self, n: int, which: str, index: int) -> None:
        self.both(lambda store, i: store.reveal(self.room(n, i).code, self.key(n, i, which), index))

    @rule(n=rooms_, t=st.integers(-1, 4), index=st.integers(0, 4), choice=st.integers(0, 4))
    def answer(self, n: int, t: int, index: int, choice: int) -> None:
        self.both(lambda store, i: store.answer(self.room(n, i).code, self.token(n, t, i), index, choice))

    @precondition(lambda self: any(self.following[at] for at in self.open))
    @rule(n=rooms_, t=st.integers(0, 4), question=st.integers(0, 1), choice=st.integers(0, 3))
    def vote(self, n: int, t: int, question: int, choice: int) -> None:
        """A student whose screen follows a room answers one of the questions of the trace the room shows."""
        followed = [at for at in self.open if self.following[at]]
        at = followed[n % len(followed)]
        index, choices = sorted(TRACES[self.shows[at]][1].items())[question % len(TRACES[self.shows[at]][1])]
        token = self.following[at][t % len(self.following[at])]
        self.answer(self.open.index(at), token, index, 1 + choice % choices)

    @rule(n=rooms_, after=st.sampled_from([0, 1, 3, 8]))
    def follow(self, n: int, after: int) -> None:
        """A student opens the room's page: it joins, then its screen listens with the token it got."""
        self.join(n, -1, True)
        at = self.at(n)
        if at is not None and self.tokens[at]:
            t = len(self.tokens[at]) - 1
            if self.opened(n, False, t, after):
                self.following[at].append(t)

    @rule(n=rooms_, watch=st.booleans(), t=st.integers(-1, 4), after=st.sampled_from([0, 1, 3, 8]))
    def listen(self, n: int, watch: bool, t: int, after: int) -> None:
        self.opened(n, watch, t, after)

    def opened(self, n: int, watch: bool, t: int, after: int) -> bool:
        """A stream opened on each store, or the same refusal; whether it opened."""

        def act(store: Rooms, i: int) -> Any:
            token = self.token(n, t, i) if t >= 0 else None
            return store.listen(self.room(n, i).code, after, tallies=watch, token=token, heartbeat_s=HEARTBEAT_S)

        opened = self.both(act)
        if isinstance(opened[0], Stream):
            self.streams.append(opened)
        return isinstance(opened[0], Stream)

    @precondition(lambda self: self.streams)
    @rule(s=st.integers(0, 20))
    def leave(self, s: int) -> None:
        """A screen closes its tab: its stream ends, and the others hear how many follow now (what it heard before
        is not compared: Redis passes events on in their own time)."""
        pair = self.streams.pop(s % len(self.streams))
        self.both(lambda store, i: pair[i].aclose())

    # ---- at the end: every room closed, every stream heard to its end ----

    def teardown(self) -> None:
        try:
            for n in range(len(self.rooms)):
                self.both(lambda store, i, n=n: store.close(self.room(n, i).code, self.room(n, i).key))
            for pair in self.streams:
                heard = [self.loop.run_until_complete(asyncio.wait_for(self.drain(stream), 10)) for stream in pair]
                assert heard[0] == heard[1], heard
        finally:
            for store in self.stores:
                self.loop.run_until_complete(store.aclose())
            self.loop.close()

    async def drain(self, stream: Stream) -> list[dict[str, Any]]:
        return [event.to_json() async for event in stream]


def test_memory_and_redis_keep_the_same_rooms(redis_url: str) -> None:
    class OnThisRedis(SameRooms):
        pass

    OnThisRedis.redis_url = redis_url
    run_state_machine_as_test(
        OnThisRedis, settings=settings(max_examples=100, stateful_step_count=50, derandomize=True, deadline=None)
    )
