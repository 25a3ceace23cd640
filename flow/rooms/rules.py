"""The rooms' rules, each written once, over a storage's primitives (flow.rooms.storage; flow.rooms.redis_store).

Who may do what (the teacher's key moves the room, a follower's token answers once while its screen follows), the
limits and their refusals, the teacher's token bucket, which events are kept for a screen that reconnects (not the
teacher's own: tallies and joins), who hears what, and what a screen that connects or goes tells the others: all
here. `Rooms` is what the routes (flow.rooms.web) and the Step page (flow_ui/rooms.py) use: `create`, `retrace`,
`close`, `exists`, `lang_of` and `take_back` are called from the page's script thread; the rest from the server's
event loop, which runs a storage that waits on a network (Redis) on worker threads.
"""

from __future__ import annotations

import asyncio
import functools
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Awaitable, Callable, Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from flow.rooms.events import PING, Body, Closed, Event, Joined, Lang, Reveal, Tally, Teacher, View
from flow.rooms.storage import MemoryStorage, RoomStorage, RoomTx
from flow.rooms.store import (
    Bucket,
    Limits,
    Presence,
    Record,
    RoomError,
    RoomKeys,
    RoomView,
    Screen,
    Snapshot,
    bundles_digest,
    check_bundles,
    check_choices,
    new_code,
    same_secret,
    view_from,
    within,
)

T = TypeVar("T")
LISTENER_SLACK = 8  # streams beyond the follower limit, for a follower whose old stream has not closed yet
_LOCKS = 64  # steps on one room in this process wait for each other (a storage shared by processes retries less)
# Threads for the steps of a storage that waits on a network (Redis). A step is two or three round trips and a class's
# screens renew together (`Leases`), so a few suffice. Each more thread contends for the GIL with the event loop and
# keeps its own malloc arena, which holds on to the bundles it read (sixteen: the app's RSS grew 2.5 times as much per
# follower page, and 200 light followers' p95 by 4 ms, in the room benchmark).
_WORKERS = 4
# A bundle (the viewer's data, up to Limits.bundle_bytes) is the same for every follower of a round: this process
# keeps the last ones it served, up to this many characters, instead of reading one copy from the storage per page.
_BUNDLES_KEPT = 64 * 2**20


def view_event(view: RoomView, round_: int) -> View:
    """A view as followers hear it: with the round, so a follower sees when the trace changed."""
    return View(round_, view.index, view.lang, view.quiz, view.captions, view.closing)


@dataclass(eq=False)
class _Listener:
    """One open stream of this process: its queue, on its event loop."""

    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[Event | None]
    tallies: bool  # the teacher's own viewer: it hears the tallies and the joins
    thread: int  # its loop's thread
    pending: int = 0  # events handed to the queue and not yet taken (from another thread the queue's size lags)

    def put(self, item: Event | None) -> None:
        if self.loop.is_closed():
            return  # (a store that outlived a test's loop)
        if threading.get_ident() == self.thread:
            self.queue.put_nowait(item)
        else:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)


class Fanout:
    """One event loop's listeners, by room: each event to those who may hear it, in the order it came. A listener
    `queue` events behind is dropped: its browser reconnects and catches up from the events kept."""

    def __init__(self, queue: int) -> None:
        self.queue = queue
        self.rooms: dict[str, set[_Listener]] = {}
        self._lock = threading.Lock()

    def add(self, code: str, listener: _Listener) -> None:
        with self._lock:
            self.rooms.setdefault(code, set()).add(listener)

    def remove(self, code: str, listener: _Listener) -> None:
        with self._lock:
            listeners = self.rooms.get(code)
            if listeners is not None:
                listeners.discard(listener)
                if not listeners:
                    del self.rooms[code]

    def deliver(self, code: str, event: Event) -> None:
        with self._lock:
            listeners = self.rooms.get(code)
            if not listeners:
                return
            for listener in list(listeners):
                if event.body.teacher_only and not listener.tallies:
                    continue
                if listener.pending >= self.queue:
                    listeners.discard(listener)
                    listener.put(None)
                    continue
                listener.pending += 1
                listener.put(event)
            if isinstance(event.body, Closed):
                for listener in listeners:
                    listener.put(None)
                del self.rooms[code]

    def took(self, listener: _Listener) -> None:
        with self._lock:
            listener.pending -= 1

    def lost(self) -> None:
        """The events stopped coming (the storage's connection broke): every stream ends, and its browser
        reconnects."""
        with self._lock:
            for listeners in self.rooms.values():
                for listener in listeners:
                    listener.put(None)
            self.rooms.clear()


class Leases:
    """One event loop's screens renewing their leases, by room: those that ask while a renewal of the room is on
    its way go together in the next one. A class whose screens opened together renews together, in a few steps
    instead of one each (a teacher's press would wait behind them all)."""

    def __init__(self, renew: Callable[[str, list[Screen], float], Awaitable[bool]]) -> None:
        self._renew = renew
        self._asking: dict[tuple[str, float], list[tuple[Screen, asyncio.Future[bool]]]] = {}
        self._running: dict[tuple[str, float], asyncio.Task[None]] = {}

    async def renew(self, code: str, screen: Screen, lease_s: float) -> bool:
        """Whether the room is still there once `screen`'s lease is extended (RoomError when the storage fails)."""
        key = (code, lease_s)
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._asking.setdefault(key, []).append((screen, answer))
        if key not in self._running:
            self._running[key] = asyncio.create_task(self._run(key))
        return await answer

    async def _run(self, key: tuple[str, float]) -> None:
        asking: list[tuple[Screen, asyncio.Future[bool]]] = []
        try:
            while asking := self._asking.pop(key, []):
                asking = [(screen, answer) for screen, answer in asking if not answer.done()]  # (its stream ended)
                if not asking:
                    continue
                try:
                    here = await self._renew(key[0], [screen for screen, _ in asking], key[1])
                except Exception as exc:
                    _settle(asking, exc)
                    continue
                _settle(asking, here)
        finally:
            del self._running[key]
            for _, answer in asking + self._asking.pop(key, []):  # (still unanswered: the loop is closing)
                answer.cancel()


def _settle(asking: list[tuple[Screen, asyncio.Future[bool]]], outcome: bool | Exception) -> None:
    for _, answer in asking:
        if answer.done():
            continue  # (its stream ended meanwhile)
        if isinstance(outcome, Exception):
            answer.set_exception(outcome)
        else:
            answer.set_result(outcome)


class Stream:
    """A listener's events. `aclose()` ends it and gives its place back whether or not it was ever read: a client
    that leaves before the first event never starts the generator, whose own `finally` would then never run."""

    def __init__(self, events: AsyncGenerator[Event], leave: Callable[[], Awaitable[None]]) -> None:
        self._events = events
        self._leave = leave
        self._left = False

    def __aiter__(self) -> Stream:
        return self

    async def __anext__(self) -> Event:
        try:
            return await anext(self._events)
        except BaseException:  # the events ended (the room closed, the listener was dropped), or the read was cancelled
            await self.leave()
            raise

    async def leave(self) -> None:
        # Marked only once done: a leave cut short (its read was cancelled) runs again at aclose().
        if not self._left:
            await self._leave()
            self._left = True

    async def aclose(self) -> None:
        try:
            await self._events.aclose()
        finally:
            await self.leave()


def _open(tx: RoomTx) -> Record:
    record = tx.record()
    if record is None:
        raise RoomError("no_room")
    return record


def _teachers(tx: RoomTx, key: str) -> Record:
    record = _open(tx)
    if not same_secret(key, record.key):
        raise RoomError("not_teacher")
    return record


def _without_expired(tx: RoomTx, presence: Presence, keep: Collection[Screen] = ()) -> tuple[int, int]:
    """Drop the screens whose lease ran out (their process is gone), but those to `keep`; the streams and the
    teacher's among them that are left."""
    gone = [screen for screen in presence.expired if screen not in keep]
    for screen in gone:
        tx.detach(screen)
    return presence.listeners - len(gone), presence.teachers - sum(screen.teacher for screen in gone)


class Rooms:
    """Rooms kept by `storage` within `limits`, each rule once."""

    def __init__(self, storage: RoomStorage, limits: Limits | None = None) -> None:
        self.storage = storage
        self.limits = limits or Limits()
        self._locks = [threading.Lock() for _ in range(_LOCKS)]
        # Each event loop's listeners and lease renewals (a test may serve from two loops).
        self._loops: dict[asyncio.AbstractEventLoop, tuple[Fanout, Leases]] = {}
        self._loops_lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._bundles: OrderedDict[tuple[str, str, str], str] = OrderedDict()  # (code, lang, digest) -> text
        self._bundles_lock = threading.Lock()

    # ---- how a step runs ----

    def _transact(self, code: str, step: Callable[[RoomTx], T]) -> T:
        with self._locks[hash(code) % _LOCKS]:
            return self.storage.transact(code, step)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` on a worker thread when the storage waits on a network, else here."""
        if not self.storage.blocking:
            return fn(*args)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="rooms")
        return await asyncio.get_running_loop().run_in_executor(self._pool, functools.partial(fn, *args))

    def _say(self, tx: RoomTx, body: Body) -> Event:
        """An event to the room: kept for a screen that reconnects unless it is the teacher's own."""
        return tx.append(body, keep=0 if body.teacher_only else self.limits.backlog)

    def _spend(self, record: Record, now: float) -> Record:
        """The teacher's act takes a token from the room's bucket and keeps the room open for its idle time."""
        bucket = record.bucket.take(now, self.limits.teacher_events_per_s, self.limits.teacher_burst)
        if bucket is None:
            raise RoomError("too_fast", per_s=self.limits.teacher_events_per_s)
        return replace(record, bucket=bucket, deadline=now + self.limits.idle_s)

    def _present(self, tx: RoomTx, had: int, screens: int, teachers: int, tokens: int) -> Event:
        """What the room's screens changing says: to the class, that the teacher's screen came or its last went
        (`had` teacher screens before); to the teacher, how many screens follow and how many ever joined."""
        if had > 0 and teachers == 0:
            self._say(tx, Teacher(here=False))
        elif had == 0 and teachers > 0:
            self._say(tx, Teacher(here=True))
        return self._say(tx, Joined(followers=screens - teachers, joined=tokens))

    def _sweep(self) -> None:
        """Forget the rooms past their idle time; their screens hear it."""
        for code in self.storage.sweep():
            self.storage.announce(code, Event(0, Closed(expired=True)))

    # ---- the page's side ----

    def create(self, bundles: Mapping[str, str], choices: Mapping[int, int], view: RoomView) -> RoomKeys:
        hops, size = check_bundles(bundles, self.limits.bundle_bytes)
        made = RoomKeys(code=new_code(), key=secrets.token_urlsafe(24), watch=secrets.token_urlsafe(24))
        picked, digest, first = check_choices(choices, hops), bundles_digest(bundles), within(view, hops)
        limits = self.limits

        def step(tx: RoomTx) -> None:
            now, held = tx.now(), tx.held()
            if held.rooms >= limits.rooms:
                raise RoomError("too_many_rooms", limit=limits.rooms)
            if held.bytes + size > limits.all_bundle_bytes:
                raise RoomError("too_much_data", limit=limits.all_bundle_bytes)
            bucket = Bucket(limits.teacher_burst, now)  # full
            record = Record(made.key, made.watch, hops, picked, first, digest, size, bucket, now + limits.idle_s)
            tx.put(record, bundles)

        self._sweep()
        self._transact(made.code, step)
        return made

    def retrace(
        self, code: str, key: str, bundles: Mapping[str, str], choices: Mapping[int, int], view: RoomView
    ) -> int:
        """Put another trace in the room (the teacher's page shows another one): a new round, its tallies empty,
        its followers told; the same bundles again only move the view. Returns the round."""
        hops, size = check_bundles(bundles, self.limits.bundle_bytes)
        digest = bundles_digest(bundles)

        def step(tx: RoomTx) -> int:
            now = tx.now()
            record = _teachers(tx, key)
            fresh = digest != record.digest
            if fresh:
                if tx.held().bytes + size > self.limits.all_bundle_bytes:
                    raise RoomError("too_much_data", limit=self.limits.all_bundle_bytes)
                picked = check_choices(choices, hops)
                record = replace(record, round=record.round + 1, digest=digest, hops=hops, size=size, choices=picked)
                tx.clear_ballots()
            record = replace(record, view=within(view, record.hops), deadline=now + self.limits.idle_s)
            tx.put(record, bundles if fresh else None)
            self._say(tx, view_event(record.view, record.round))
            return record.round

        return self._transact(code, step)

    def close(self, code: str, key: str) -> None:
        def step(tx: RoomTx) -> None:
            record = tx.record()
            if record is None:
                return  # closed or expired already
            if not same_secret(key, record.key):
                raise RoomError("not_teacher")
            self._say(tx, Closed())
            tx.drop()

        self._transact(code, step)

    def exists(self, code: str) -> bool:
        self._sweep()
        return self.storage.read(code, lambda tx: tx.record() is not None)

    def lang_of(self, code: str) -> Lang | None:
        """The language the room shows now (a follower's page is in it), or None when there is no such room."""
        self._sweep()
        record = self.storage.read(code, lambda tx: tx.record())
        return None if record is None else record.view.lang

    async def page_lang(self, code: str) -> Lang | None:
        """`lang_of` for the follower page's route, on the same few worker threads as the other steps: a class
        opening the page at once would otherwise start a thread each (anyio's pool holds forty)."""
        return await self._run(self.lang_of, code)

    def take_back(self, code: str, key: str) -> tuple[RoomKeys, RoomView] | None:
        """The open room's keys and the teacher's last view when `key` is its teacher's, else None (a teacher's
        page that reloaded takes its room back with them, and its toggles as the class last saw them)."""
        self._sweep()
        record = self.storage.read(code, lambda tx: tx.record())
        if record is None or not same_secret(key, record.key):
            return None
        return RoomKeys(code=code, key=record.key, watch=record.watch), record.view

    # ---- the routes' side ----

    async def bundle(self, code: str, lang: Lang, round_: int | None = None) -> str:
        """A bundle of the room's trace; with `round_`, only if the room is still in that round (else 409)."""

        def step(tx: RoomTx) -> str:
            record = _open(tx)
            if round_ is not None and round_ != record.round:
                raise RoomError("other_round", current=record.round)
            key = (code, lang, record.digest)
            with self._bundles_lock:
                kept = self._bundles.get(key)
                if kept is not None:
                    self._bundles.move_to_end(key)
                    return kept
            text = tx.bundle(lang)
            if text:
                self._keep_bundle(key, text)
            return text

        return await self._run(self.storage.read, code, step)

    def _keep_bundle(self, key: tuple[str, str, str], text: str) -> None:
        with self._bundles_lock:
            self._bundles[key] = text
            size = sum(map(len, self._bundles.values()))
            while size > _BUNDLES_KEPT and len(self._bundles) > 1:
                size -= len(self._bundles.popitem(last=False)[1])

    async def join(self, code: str, token: str | None, *, may_add: bool = True) -> tuple[str, Snapshot]:
        """A follower's token and the room as it is. A token the room gave comes back as it is; otherwise a new
        one, when `may_add` (the routes' rate per address), in place of one no screen follows if the room is full."""
        return await self._run(self._transact, code, functools.partial(self._join, token, may_add))

    def _join(self, token: str | None, may_add: bool, tx: RoomTx) -> tuple[str, Snapshot]:
        record = _open(tx)
        presence, tokens, last, revealed = tx.presence(), tx.token_count(), tx.last(), tx.revealed()
        teachers = presence.teachers - sum(s.teacher for s in presence.expired)
        if token is not None and tx.has_token(token):
            snap = Snapshot(record.view, record.hops, revealed, tokens, last, round=record.round, teacher=teachers > 0)
            return token, snap
        if not may_add:
            raise RoomError("joining_too_fast", per_s=self.limits.client_joins_per_s)
        idle = None
        if tokens >= self.limits.followers:
            # Full: a newcomer takes the place of the oldest token no screen follows (one a script made and left,
            # or a student gone), never of a screen that follows.
            online = tx.online()
            idle = next((t for t in tx.tokens() if t not in online), None)
            if idle is None:
                raise RoomError("room_full", limit=self.limits.followers)
            tx.remove_token(idle)
            tokens -= 1
        given = secrets.token_urlsafe(16)
        tx.add_token(given)
        screens, teachers = _without_expired(tx, presence)
        said = self._present(tx, presence.teachers, screens, teachers, tokens + 1)
        snap = Snapshot(
            record.view, record.hops, revealed, tokens + 1, said.id, round=record.round, teacher=teachers > 0
        )
        return given, snap

    async def move(self, code: str, key: str, data: Any) -> Event:
        def step(tx: RoomTx) -> Event:
            now = tx.now()
            record = _teachers(tx, key)
            view = view_from(data, record.hops)
            record = replace(self._spend(record, now), view=view)
            tx.put(record)
            return self._say(tx, view_event(view, record.round))

        return await self._run(self._transact, code, step)

    async def reveal(self, code: str, key: str, index: int) -> Event:
        def step(tx: RoomTx) -> Event:
            now = tx.now()
            record = _teachers(tx, key)
            if index not in record.choices:
                raise RoomError("no_question", index=index)
            record = self._spend(record, now)
            counts = tx.counts(index, record.choices[index])
            tx.reveal(index, counts)
            tx.put(record)
            return self._say(tx, Reveal(index, counts))

        return await self._run(self._transact, code, step)

    async def answer(self, code: str, token: str, index: int, choice: int) -> None:
        """One answer of a follower whose token has an event stream open (else not_following)."""

        def step(tx: RoomTx) -> None:
            record = _open(tx)
            if not tx.has_token(token):
                raise RoomError("not_a_follower")
            if token not in tx.online():
                raise RoomError("not_following")
            if index not in record.choices:
                raise RoomError("no_question", index=index)
            n = record.choices[index]
            if type(choice) is not int or not 1 <= choice <= n:
                raise RoomError("bad_choice", n=n)
            if index in tx.revealed():
                raise RoomError("revealed_already")
            if tx.answered(index, token):
                raise RoomError("answered_once")
            counts = tx.counts(index, n)
            counts[choice - 1] += 1
            tx.vote(index, token, choice)
            self._say(tx, Tally(index, counts))

        await self._run(self._transact, code, step)

    async def is_watcher(self, code: str, watch: str) -> bool:
        return await self._run(self.storage.read, code, lambda tx: same_secret(watch, _open(tx).watch))

    # ---- listening ----

    def _here(self) -> tuple[Fanout, Leases]:
        """This event loop's listeners and lease renewals."""
        loop = asyncio.get_running_loop()
        with self._loops_lock:
            here = self._loops.get(loop)
            if here is None:
                for gone in [other for other in self._loops if other.is_closed()]:
                    del self._loops[gone]
                here = self._loops[loop] = (Fanout(self.limits.queue), Leases(self._renew))
        return here

    async def _fanout(self) -> Fanout:
        """This event loop's listeners, which the storage tells every event."""
        fanout = self._here()[0]
        await self.storage.follow(fanout)
        return fanout

    async def listen(
        self, code: str, after: int, *, tallies: bool, token: str | None = None, heartbeat_s: float = 15.0
    ) -> Stream:
        """The room's events after id `after` (those still kept), then each as it happens (a `PING` after each
        quiet `heartbeat_s`), until the room closes or expires or this listener falls too far behind. The
        teacher's own viewer hears the `tallies`; any other stream is a follower's screen, with a token the room
        gave (it may answer while the stream is open). Refusals (no room, not a follower, too many listeners) are
        raised here, before the stream starts."""
        fanout = await self._fanout()
        loop = asyncio.get_running_loop()
        listener = _Listener(loop, asyncio.Queue(), tallies, threading.get_ident())
        fanout.add(code, listener)  # before the kept events are read, so that nothing appended in between is missed
        lease_s = 2 * heartbeat_s + 10  # a screen whose process is gone is forgotten after this
        screen = Screen(secrets.token_hex(8), token, tallies)
        try:
            screen, missed, seen = await self._run(
                self._transact, code, functools.partial(self._listen, screen, after, lease_s)
            )
        except BaseException:
            fanout.remove(code, listener)
            raise

        async def leave() -> None:
            fanout.remove(code, listener)
            try:
                await self._run(self._transact, code, functools.partial(self._leave, screen))
            except RoomError:
                pass  # the storage went away: the lease runs out on its own

        lease = functools.partial(self._here()[1].renew, code, screen, lease_s)
        return Stream(self._events(fanout, listener, lease, missed, seen, heartbeat_s), leave)

    def _listen(self, screen: Screen, after: int, lease_s: float, tx: RoomTx) -> tuple[Screen, list[Event], int]:
        record = _open(tx)
        now, presence = tx.now(), tx.presence()
        if presence.listeners - len(presence.expired) >= self.limits.followers + LISTENER_SLACK:
            raise RoomError("room_full", limit=self.limits.followers)
        if not screen.teacher:
            self._follower_screen(tx, screen, presence)
        kept, last, revealed, tokens = tx.kept(), tx.last(), tx.revealed(), tx.token_count()
        screens, teachers = _without_expired(tx, presence)
        tx.attach(screen, now + lease_s)
        screens, teachers = screens + 1, teachers + screen.teacher
        self._present(tx, presence.teachers, screens, teachers, tokens)
        missed = [e for e in kept if e.id > after]
        if after and kept and kept[0].id > after + 1:
            # Further behind than the events kept: where the room is now, then the reveals.
            missed = [
                Event(last, view_event(record.view, record.round)),
                Event(last, Teacher(here=teachers > 0)),
            ] + [Event(last, Reveal(i, c)) for i, c in sorted(revealed.items())]
        return screen, missed, max(after, last)

    def _follower_screen(self, tx: RoomTx, screen: Screen, presence: Presence) -> None:
        """A follower's stream carries a token the room gave, open at most `Limits.token_streams` times: the
        room's places go to those who joined, at each address's join rate, never to streams anyone may open."""
        if screen.token is None or not tx.has_token(screen.token):
            raise RoomError("not_a_follower")
        gone = sum(1 for s in presence.expired if s.token == screen.token)
        if tx.streams_of(screen.token) - gone >= self.limits.token_streams:
            raise RoomError("streams_of_token", limit=self.limits.token_streams)

    def _leave(self, screen: Screen, tx: RoomTx) -> None:
        if tx.record() is None or not tx.attached([screen])[0]:
            return  # the room is gone, or the screen was forgotten already
        presence, tokens = tx.presence(), tx.token_count()
        screens, teachers = _without_expired(tx, presence, keep=[screen])
        tx.detach(screen)
        self._present(tx, presence.teachers, screens - 1, teachers - screen.teacher, tokens)

    async def _renew(self, code: str, screens: list[Screen], lease_s: float) -> bool:
        """Extend the leases of this process's `screens` (and forget those whose lease ran out); False when the room
        is gone."""
        return await self._run(self._transact, code, functools.partial(self._lease, screens, lease_s))

    def _lease(self, screens: list[Screen], lease_s: float, tx: RoomTx) -> bool:
        if tx.record() is None:
            return False
        now, presence, attached = tx.now(), tx.presence(), tx.attached(screens)
        if all(attached) and not presence.expired:
            for screen in screens:
                tx.lease(screen, now + lease_s)
            return True
        tokens = tx.token_count()
        n, teachers = _without_expired(tx, presence, keep=screens)
        for screen, on in zip(screens, attached, strict=True):
            if on:
                tx.lease(screen, now + lease_s)
            else:  # forgotten while its process was too busy to renew: here again
                tx.attach(screen, now + lease_s)
                n, teachers = n + 1, teachers + screen.teacher
        self._present(tx, presence.teachers, n, teachers, tokens)
        return True

    async def _events(
        self,
        fanout: Fanout,
        listener: _Listener,
        lease: Callable[[], Awaitable[bool]],
        missed: list[Event],
        seen: int,
        heartbeat_s: float,
    ) -> AsyncGenerator[Event]:
        for event in missed:
            yield event
        loop = asyncio.get_running_loop()
        leased = loop.time()
        while True:
            try:
                got = await asyncio.wait_for(listener.queue.get(), heartbeat_s)
            except TimeoutError:
                try:
                    here = await lease()
                except RoomError:
                    return  # the storage went away: the browser reconnects and hears why
                if not here:
                    yield Event(seen + 1, Closed(expired=True))
                    return
                leased = loop.time()
                yield PING
                continue
            if got is None:
                return
            fanout.took(listener)
            if isinstance(got.body, Closed):
                yield Event(max(got.id, seen + 1), got.body)
                return
            if got.id > seen:
                seen = got.id
                yield got
            if loop.time() - leased >= heartbeat_s:  # a busy stream keeps its lease too
                try:
                    await lease()
                except RoomError:
                    return
                leased = loop.time()

    async def aclose(self) -> None:
        """End every stream of this process, let the storage's connections go."""
        with self._loops_lock:
            fanouts, self._loops = [fanout for fanout, _ in self._loops.values()], {}
        for fanout in fanouts:
            fanout.lost()
        await self.storage.aclose()
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None


class MemoryRooms(Rooms):
    """Rooms in this process (one app process; no Redis)."""

    def __init__(self, limits: Limits | None = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(MemoryStorage(clock), limits)
