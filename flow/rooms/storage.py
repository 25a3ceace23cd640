"""Where rooms are kept: storage primitives, and no rule. The rules (flow.rooms.rules) decide; a storage only keeps.

A storage runs a step on one room atomically (`transact`): the step reads through a `RoomTx` (the room's record,
its tokens, its screens, its ballots, its kept events), then writes (put the record, append an event keeping the
last N, add or drop a token or a screen, count a vote, reveal, drop the room). `MemoryStorage` holds rooms in this
process behind one lock; flow.rooms.redis_store.RedisStorage shares them between processes, and runs a step again
from the start when another process changed the room meanwhile, so a step decides from what it read only. Each
storage tells this process's listeners every event appended (`follow`), in id order per room.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from flow.rooms.events import Body, Event, Lang
from flow.rooms.store import Held, Presence, Record, Screen

T = TypeVar("T")


class Follower(Protocol):
    """This process's listeners on one event loop."""

    def deliver(self, code: str, event: Event) -> None:
        """An event of room `code`; a room's events come in id order."""
        ...

    def lost(self) -> None:
        """The events stopped coming (the storage's connection broke)."""
        ...


class RoomTx(Protocol):
    """One step on one room: its reads, then its writes. `record()` is None when there is no such room (it
    closed or expired); the other reads assume there is one."""

    code: str

    def now(self) -> float:
        """The storage's clock, in seconds (the deadlines, the leases and the teacher's bucket are on it)."""
        ...

    # ---- reads ----
    def record(self) -> Record | None: ...
    def last(self) -> int:
        """The room's last event id."""
        ...

    def bundle(self, lang: Lang) -> str: ...
    def held(self) -> Held:
        """Every other room that is open now."""
        ...

    def has_token(self, token: str) -> bool: ...
    def token_count(self) -> int: ...
    def tokens(self) -> list[str]:
        """The followers' tokens, oldest first."""
        ...

    def online(self) -> set[str]:
        """The tokens whose screen has an event stream open."""
        ...

    def streams_of(self, token: str) -> int:
        """How many event streams are open with `token` (their leases run out or not)."""
        ...

    def presence(self) -> Presence: ...
    def attached(self, screens: Sequence[Screen]) -> list[bool]:
        """Which of `screens` have their stream open (leased)."""
        ...

    def answered(self, index: int, token: str) -> bool: ...
    def counts(self, index: int, n: int) -> list[int]: ...
    def revealed(self) -> dict[int, list[int]]: ...
    def kept(self) -> list[Event]:
        """The events the room keeps for a screen that reconnects, oldest first."""
        ...

    # ---- writes ----
    def put(self, record: Record, bundles: Mapping[str, str] | None = None) -> None:
        """The room's record (and its bundles, when given); the room expires at `record.deadline`."""
        ...

    def append(self, body: Body, *, keep: int) -> Event:
        """The room's next event, passed to every process's screens of the room, and kept with the last `keep`
        (0: not kept)."""
        ...

    def add_token(self, token: str) -> None: ...
    def remove_token(self, token: str) -> None: ...
    def attach(self, screen: Screen, until: float) -> None:
        """A stream that opened, leased until `until`."""
        ...

    def lease(self, screen: Screen, until: float) -> None:
        """An attached stream's lease, extended."""
        ...

    def detach(self, screen: Screen) -> None: ...
    def vote(self, index: int, token: str, choice: int) -> None: ...
    def reveal(self, index: int, counts: list[int]) -> None: ...
    def clear_ballots(self) -> None:
        """Forget every question's votes, voters and reveal (another trace's questions start empty)."""
        ...

    def drop(self) -> None: ...


class RoomStorage(Protocol):
    blocking: bool  # whether its calls wait on a network (the rules then run them on worker threads)

    def transact(self, code: str, step: Callable[[RoomTx], T]) -> T:
        """`step` on room `code`, atomically; what it returns. A step that raises writes nothing."""
        ...

    def read(self, code: str, step: Callable[[RoomTx], T]) -> T:
        """`step` on room `code`, for its reads only."""
        ...

    def sweep(self) -> list[str]:
        """The rooms past their deadline, forgotten: each code is returned once, to one process."""
        ...

    def announce(self, code: str, event: Event) -> None:
        """`event` to every process's screens of room `code`, kept nowhere (the room may be gone)."""
        ...

    async def follow(self, follower: Follower) -> None:
        """From now on, every event of every room reaches `follower`, this event loop's listeners."""
        ...

    async def aclose(self) -> None: ...


@dataclass
class _Room:
    record: Record
    bundles: dict[str, str]
    last: int = 0
    tokens: dict[str, None] = field(default_factory=dict)  # in the order given
    online: dict[str, int] = field(default_factory=dict)  # token -> its open streams
    screens: dict[str, float] = field(default_factory=dict)  # member -> lease
    teachers: set[str] = field(default_factory=set)
    answered: set[tuple[int, str]] = field(default_factory=set)
    counts: dict[tuple[int, int], int] = field(default_factory=dict)  # (index, choice) -> votes
    revealed: dict[int, list[int]] = field(default_factory=dict)
    backlog: deque[Event] = field(default_factory=deque)


class _MemoryTx:
    def __init__(self, storage: MemoryStorage, code: str) -> None:
        self.code, self.storage = code, storage
        self._room = storage.rooms.get(code)
        self._writes: list[Callable[[], None]] = []
        self._events: list[Event] = []

    def _reading(self) -> None:
        assert not self._writes, "a step reads, then writes (a storage shared by processes cannot read back)"

    @property
    def room(self) -> _Room:
        self._reading()
        assert self._room is not None, "a step reads an open room"
        return self._room

    def now(self) -> float:
        self._reading()
        return self.storage.clock()

    def record(self) -> Record | None:
        if self._room is None or self._room.record.deadline <= self.now():
            return None
        return self._room.record

    def last(self) -> int:
        return self.room.last

    def bundle(self, lang: Lang) -> str:
        return self.room.bundles[lang]

    def held(self) -> Held:
        now = self.now()  # (a read)
        others = [r for c, r in self.storage.rooms.items() if c != self.code and r.record.deadline > now]
        return Held(len(others), sum(r.record.size for r in others))

    def has_token(self, token: str) -> bool:
        return token in self.room.tokens

    def token_count(self) -> int:
        return len(self.room.tokens)

    def tokens(self) -> list[str]:
        return list(self.room.tokens)

    def online(self) -> set[str]:
        return set(self.room.online)

    def streams_of(self, token: str) -> int:
        return self.room.online.get(token, 0)

    def presence(self) -> Presence:
        room, now = self.room, self.now()
        expired = [Screen.of(m) for m, until in room.screens.items() if until <= now]
        return Presence(len(room.screens), len(room.teachers), expired)

    def attached(self, screens: Sequence[Screen]) -> list[bool]:
        return [screen.member in self.room.screens for screen in screens]

    def answered(self, index: int, token: str) -> bool:
        return (index, token) in self.room.answered

    def counts(self, index: int, n: int) -> list[int]:
        return [self.room.counts.get((index, c), 0) for c in range(1, n + 1)]

    def revealed(self) -> dict[int, list[int]]:
        return dict(self.room.revealed)

    def kept(self) -> list[Event]:
        return list(self.room.backlog)

    # ---- writes: applied together once the step returns ----

    def put(self, record: Record, bundles: Mapping[str, str] | None = None) -> None:
        rooms, code = self.storage.rooms, self.code

        def write() -> None:
            room = rooms.get(code)
            if room is None:
                rooms[code] = _Room(record, dict(bundles or {}))
                return
            room.record = record
            if bundles is not None:
                room.bundles = dict(bundles)

        self._writes.append(write)

    def append(self, body: Body, *, keep: int) -> Event:
        assert self._room is not None, "a step appends to an open room"
        event = Event((self._events[-1].id if self._events else self._room.last) + 1, body)
        self._events.append(event)

        def write() -> None:
            room = self.storage.rooms[self.code]
            room.last = event.id
            if keep:
                room.backlog.append(event)
                while len(room.backlog) > keep:
                    room.backlog.popleft()

        self._writes.append(write)
        return event

    def _change(self, write: Callable[[_Room], None]) -> None:
        self._writes.append(lambda: write(self.storage.rooms[self.code]))

    def add_token(self, token: str) -> None:
        self._change(lambda room: room.tokens.__setitem__(token, None))

    def remove_token(self, token: str) -> None:
        self._change(lambda room: room.tokens.pop(token, None))

    def attach(self, screen: Screen, until: float) -> None:
        def write(room: _Room) -> None:
            room.screens[screen.member] = until
            if screen.teacher:
                room.teachers.add(screen.member)
            if screen.token is not None:
                room.online[screen.token] = room.online.get(screen.token, 0) + 1

        self._change(write)

    def lease(self, screen: Screen, until: float) -> None:
        self._change(lambda room: room.screens.__setitem__(screen.member, until))

    def detach(self, screen: Screen) -> None:
        def write(room: _Room) -> None:
            if room.screens.pop(screen.member, None) is not None and screen.token is not None:
                left = room.online.get(screen.token, 0) - 1
                if left > 0:
                    room.online[screen.token] = left
                else:
                    room.online.pop(screen.token, None)
            room.teachers.discard(screen.member)

        self._change(write)

    def vote(self, index: int, token: str, choice: int) -> None:
        def write(room: _Room) -> None:
            room.answered.add((index, token))
            room.counts[index, choice] = room.counts.get((index, choice), 0) + 1

        self._change(write)

    def reveal(self, index: int, counts: list[int]) -> None:
        self._change(lambda room: room.revealed.__setitem__(index, list(counts)))

    def clear_ballots(self) -> None:
        def write(room: _Room) -> None:
            room.answered.clear()
            room.counts.clear()
            room.revealed.clear()

        self._change(write)

    def drop(self) -> None:
        def write() -> None:
            del self.storage.rooms[self.code]

        self._writes.append(write)

    def commit(self) -> list[Event]:
        for write in self._writes:
            write()
        return self._events


class MemoryStorage:
    """Rooms in this process, behind one lock (the page's thread creates rooms, the event loop serves them)."""

    blocking = False

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.rooms: dict[str, _Room] = {}
        self._lock = threading.RLock()
        self._followers: dict[asyncio.AbstractEventLoop, Follower] = {}

    def transact(self, code: str, step: Callable[[RoomTx], T]) -> T:
        with self._lock:
            tx = _MemoryTx(self, code)
            result = step(tx)
            for event in tx.commit():
                self._tell(code, event)
            return result

    def read(self, code: str, step: Callable[[RoomTx], T]) -> T:
        with self._lock:
            return step(_MemoryTx(self, code))

    def sweep(self) -> list[str]:
        with self._lock:
            now = self.clock()
            gone = [code for code, room in self.rooms.items() if room.record.deadline <= now]
            for code in gone:
                del self.rooms[code]
            return gone

    def announce(self, code: str, event: Event) -> None:
        with self._lock:
            self._tell(code, event)

    def _tell(self, code: str, event: Event) -> None:
        for follower in self._followers.values():
            follower.deliver(code, event)

    async def follow(self, follower: Follower) -> None:
        with self._lock:
            for gone in [loop for loop in self._followers if loop.is_closed()]:
                del self._followers[gone]
            self._followers[asyncio.get_running_loop()] = follower

    async def aclose(self) -> None:
        with self._lock:
            self._followers.clear()
