"""A classroom room's state behind a small interface: what the teacher shows, who follows, what the class answered.

A room holds one trace at a time (its viewer bundles, one per language; the teacher may put another in its
place, which starts a new round of the same room), the teacher's view (hop index, language, the questions and
captions toggles), the questions' tallies, who is connected, and the events followers receive, each with an id
that only grows. The teacher's key moves the room; a follower's token only answers, once per question; answers are
counts, never linked to who gave them, and only a follower whose screen follows the room (an event stream open with
its token) answers, so a script pays for each answer with an open stream. Everything is bounded: rooms, the viewer
data they hold together, followers per room (a full room lets a newcomer in for a token that no screen follows), the
teacher's events per second, the events kept for a follower who reconnects, and a room idle for two hours is gone.

`MemoryRooms` keeps rooms in this process; `flow.rooms.redis_store.RedisRooms` shares them between processes.
Both satisfy `RoomStore`, which the web routes (flow.rooms.web) and the Step page use.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import threading
import time
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol, get_args

Lang = Literal["zh", "en"]
LANGS: tuple[Lang, ...] = get_args(Lang)

# Codes are what a QR code and a link carry: 14 characters from 32 (70 bits), no look-alikes (0/o, 1/l).
_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
CODE_LENGTH = 14


@dataclass(frozen=True)
class Limits:
    """What one app process (or every process sharing one Redis) allows; each has its own message."""

    rooms: int = 100
    followers: int = 500
    teacher_events_per_s: float = 20.0
    teacher_burst: int = 40
    idle_s: float = 2 * 3600.0
    backlog: int = 256  # events kept for a follower who reconnects with Last-Event-ID
    bundle_bytes: int = 32 * 2**20
    all_bundle_bytes: int = 256 * 2**20  # every room's viewer data together: the memory, not only the count
    queue: int = 1024  # events waiting for one slow follower before it is dropped (it reconnects and catches up)
    # What the routes allow one process and one remote address (flow.rooms.web): every event stream is an open file.
    streams: int = 2000  # open at once in this process, and never more than half its open-file limit
    client_streams: int = 16  # open at once from one address (a student's tabs, a teacher's screen)
    client_join_burst: int = 10  # new followers one address adds at once,
    client_joins_per_s: float = 0.2  # then one every five seconds (a reload keeps its token and costs nothing)


class RoomError(Exception):
    """A one-line refusal, in both languages, with the HTTP status the routes answer with."""

    def __init__(self, status: int, message: str, message_zh: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.message_zh = message_zh

    def to_json(self) -> dict[str, str]:
        return {"error": self.message, "error_zh": self.message_zh}


def no_room() -> RoomError:
    return RoomError(
        404,
        "no such room: it was closed, it expired after two idle hours, or the link is wrong",
        "没有这个房间：已关闭、闲置两小时后过期，或链接有误",
    )


def too_many_rooms(limit: int) -> RoomError:
    return RoomError(
        429,
        f"too many rooms are open on this server ({limit}); close one or wait for one to expire",
        f"本服务器打开的房间已达上限（{limit} 个）；请关闭一个或等它过期",
    )


def room_full(limit: int) -> RoomError:
    return RoomError(429, f"this room is full ({limit} followers)", f"这个房间已满（{limit} 人）")


def too_much_data(limit: int) -> RoomError:
    return RoomError(
        429,
        f"the rooms on this server hold at most {limit // 2**20} MiB of viewer data together; close a room, wait for "
        "one to expire, or present a smaller trace",
        f"本服务器所有房间合计最多保存 {limit // 2**20} MiB 的查看器数据；请关闭一个房间、等它过期，或展示更小的记录",
    )


def joining_too_fast(per_s: float) -> RoomError:
    return RoomError(
        429,
        f"too many new followers from this address: one every {1 / per_s:g} s; try again shortly",
        f"来自这个地址的新学生太多：每 {1 / per_s:g} 秒一个；请稍后再试",
    )


def not_following() -> RoomError:
    return RoomError(
        403,
        "answers come from a screen that follows the room: open the room's page (its link or QR code) to answer",
        "只有正在跟随房间的屏幕才能回答：请打开房间的页面（链接或二维码）再回答",
    )


def not_teacher() -> RoomError:
    return RoomError(
        403, "only the teacher moves the room: a follower looks on its own", "只有老师能移动房间：学生只能自己翻看"
    )


def too_fast(per_s: float) -> RoomError:
    return RoomError(
        429,
        f"too many events: the teacher's view changes at most {per_s:g} times a second",
        f"事件太多：老师的视图每秒最多变化 {per_s:g} 次",
    )


def not_a_follower() -> RoomError:
    return RoomError(
        403,
        "join the room first: this follower token is not one the room gave out",
        "请先加入房间：这个学生令牌不是房间发出的",
    )


def no_question(index: int) -> RoomError:
    return RoomError(400, f"hop {index + 1} asks no question", f"第 {index + 1} 跳没有问题")


def bad_choice(n: int) -> RoomError:
    return RoomError(400, f"a choice is a number from 1 to {n}", f"选项是 1 到 {n} 的数字")


def answered_once() -> RoomError:
    return RoomError(
        409,
        "this question was answered from this screen already: one answer each",
        "这台设备已经回答过这个问题：每人一次",
    )


def revealed_already() -> RoomError:
    return RoomError(409, "the teacher has revealed this question: answers are closed", "老师已揭晓答案：不再接受回答")


def bad_bundle(problem: str) -> RoomError:
    return RoomError(400, f"cannot present this trace: {problem}", f"无法展示这个记录：{problem}")


def other_round(current: int) -> RoomError:
    return RoomError(
        409,
        f"the room shows another trace now (round {current}): the page follows it",
        f"房间已换成另一个记录（第 {current} 轮）：页面会跟上",
    )


@dataclass(frozen=True)
class RoomKeys:
    """What the teacher's page keeps: the code anyone may know, the key that moves the room, the key that reads
    the tallies (the teacher's own viewer listens with it)."""

    code: str
    key: str
    watch: str


@dataclass(frozen=True)
class RoomView:
    """The teacher's view, as the teacher's viewer posts it and followers apply it."""

    index: int = 0
    lang: Lang = "zh"
    quiz: bool = False
    captions: bool = False
    closing: bool = False  # the closing view, the step after the last hop, is open

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "lang": self.lang,
            "quiz": self.quiz,
            "captions": self.captions,
            "closing": self.closing,
        }


def within(view: RoomView, hops: int) -> RoomView:
    """The view of a trace of `hops` hops: its index no further than the last."""
    return replace(view, index=min(view.index, hops - 1))


def view_from(data: Any, hops: int) -> RoomView:
    """A posted view, checked: an object with an index into the trace, a language, two switches, and whether the
    closing view is open."""
    if not isinstance(data, Mapping):
        raise RoomError(
            400,
            "a view is a JSON object {index, lang, quiz, captions}",
            "视图应为 JSON 对象 {index, lang, quiz, captions}",
        )
    index = data.get("index")
    if type(index) is not int or not 0 <= index < hops:
        raise RoomError(400, f"index is a hop from 0 to {hops - 1}", f"index 应为 0 到 {hops - 1} 的跳序号")
    lang = data.get("lang", "zh")
    if lang not in LANGS:
        raise RoomError(400, "lang is zh or en", "lang 应为 zh 或 en")
    return RoomView(
        index=index,
        lang=lang,
        quiz=bool(data.get("quiz")),
        captions=bool(data.get("captions")),
        closing=bool(data.get("closing")),
    )


EventKind = Literal["view", "tally", "joined", "reveal", "teacher", "closed", "ping"]
# What only the teacher's own viewer hears (it listens with the watch key): the class sees counts at the reveal.
TEACHER_ONLY: frozenset[EventKind] = frozenset({"tally", "joined"})


@dataclass(frozen=True)
class Event:
    """One thing followers receive; `id` only grows within a room. Kinds: view (the teacher moved, switched
    language or a toggle, or put another trace in the room: its `round` then grows), tally (counts changed) and
    joined (how many screens follow now, how many ever joined), for the teacher only; reveal; teacher (the
    teacher's screen connected or gone, e.g. while it reloads); closed; ping (a heartbeat, never stored)."""

    id: int
    kind: EventKind
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, **self.data}

    def sse(self) -> str:
        if self.kind == "ping":
            return ": ping\n\n"
        return f"id: {self.id}\nevent: {self.kind}\ndata: {json.dumps(self.data, separators=(',', ':'))}\n\n"


@dataclass(frozen=True)
class Snapshot:
    """What a follower needs on arrival: the view, the round (which trace the room shows), which questions were
    revealed (with their counts), the hops' count, whether the teacher's screen is connected, and the last event
    id (a stream resumes after it)."""

    view: RoomView
    hops: int
    revealed: dict[int, list[int]]
    followers: int
    last: int
    round: int = 1
    teacher: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "view": self.view.to_json(),
            "round": self.round,
            "hops": self.hops,
            "revealed": {str(k): v for k, v in sorted(self.revealed.items())},
            "followers": self.followers,
            "teacher": self.teacher,
            "last": self.last,
        }


def view_event(view: RoomView, round_: int) -> dict[str, Any]:
    """A view as followers hear it: with the round, so a follower sees when the trace changed."""
    return {"round": round_, **view.to_json()}


def bundles_digest(bundles: Mapping[str, str]) -> str:
    """What tells one trace's bundles from another's: putting the same bundles in the room again is no new round."""
    return hashlib.sha256("\0".join(bundles[lang] for lang in LANGS).encode()).hexdigest()


PING = Event(0, "ping", {})  # a comment line on a quiet stream, so nothing between closes it as idle
LISTENER_SLACK = 8  # streams beyond the follower limit, for a follower whose old stream has not closed yet


def same_secret(given: str, known: str) -> bool:
    """A key or token compared in constant time; as bytes, since compare_digest refuses non-ASCII text (a
    header may carry any Latin-1 character)."""
    return secrets.compare_digest(given.encode(), known.encode())


def new_code() -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(CODE_LENGTH))


def valid_code(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(c in _ALPHABET for c in code)


def check_bundles(bundles: Mapping[str, str], limit: int) -> tuple[int, int]:
    """The bundles a room serves, one per language, checked; returns the trace's number of hops and the bundles'
    size (UTF-8 bytes, what the rooms' memory limit counts)."""
    if set(bundles) != set(LANGS):
        raise bad_bundle("a room needs the trace's viewer bundle in Chinese and in English")
    size = sum(len(text.encode()) for text in bundles.values())
    if size > limit:
        raise bad_bundle(f"{size / 2**20:.0f} MiB of viewer data is over the {limit // 2**20} MiB a room holds")
    hops = {len(json.loads(text).get("hops", [])) for text in bundles.values()}
    if len(hops) != 1 or 0 in hops:
        raise bad_bundle("the bundles hold no hops, or not the same hops")
    return hops.pop(), size


def check_choices(choices: Mapping[int, int], hops: int) -> dict[int, int]:
    return {int(i): int(n) for i, n in choices.items() if 0 <= int(i) < hops and int(n) >= 2}


class Bucket:
    """A token bucket: `rate` a second, `burst` at once."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float]) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens = float(burst)
        self.at = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def give_back(self) -> None:
        """What `take` took, for an act that turned out to cost nothing."""
        self.tokens = min(self.burst, self.tokens + 1)


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
        # Marked only once done: a leave cut short (its read was cancelled) runs again at aclose(); both stores'
        # leaves may run twice.
        if not self._left:
            await self._leave()
            self._left = True

    async def aclose(self) -> None:
        try:
            await self._events.aclose()
        finally:
            await self.leave()


class RoomStore(Protocol):
    """What the routes and the Step page need of room state. `create`, `close`, `exists` and `lang_of` are called
    from the page's script thread (or a worker thread); the rest from the server's event loop."""

    limits: Limits

    def create(self, bundles: Mapping[str, str], choices: Mapping[int, int], view: RoomView) -> RoomKeys: ...

    def retrace(
        self, code: str, key: str, bundles: Mapping[str, str], choices: Mapping[int, int], view: RoomView
    ) -> int:
        """Put another trace in the room (the teacher's page shows another one): a new round, its tallies empty,
        its followers told; the same bundles again only move the view. Returns the round."""
        ...

    def close(self, code: str, key: str) -> None: ...

    def exists(self, code: str) -> bool: ...

    def lang_of(self, code: str) -> Lang | None:
        """The language the room shows now (a follower's page is in it), or None when there is no such room."""
        ...

    def take_back(self, code: str, key: str) -> tuple[RoomKeys, RoomView] | None:
        """The open room's keys and the teacher's last view when `key` is its teacher's, else None (a teacher's
        page that reloaded takes its room back with them, and its toggles as the class last saw them)."""
        ...

    async def bundle(self, code: str, lang: Lang, round_: int | None = None) -> str:
        """A bundle of the room's trace; with `round_`, only if the room is still in that round (else 409)."""
        ...

    async def join(self, code: str, token: str | None, *, may_add: bool = True) -> tuple[str, Snapshot]:
        """A follower's token and the room as it is. A token the room gave comes back as it is; otherwise a new
        one, when `may_add` (the routes' rate per address), in place of one no screen follows if the room is full."""
        ...

    async def move(self, code: str, key: str, data: Any) -> Event: ...

    async def reveal(self, code: str, key: str, index: int) -> Event: ...

    async def answer(self, code: str, token: str, index: int, choice: int) -> None:
        """One answer of a follower whose token has an event stream open (else not_following())."""
        ...

    async def is_watcher(self, code: str, watch: str) -> bool: ...

    async def listen(
        self, code: str, after: int, *, tallies: bool, token: str | None = None, heartbeat_s: float = 15.0
    ) -> Stream:
        """The room's events after id `after` (those still kept), then each as it happens (a `PING` after each
        quiet `heartbeat_s`), until the room closes or expires or this listener falls too far behind. With a
        token the room gave, the stream is that follower's screen (it may answer while it is open). Refusals (no
        room, too many listeners) are raised here, before the stream starts."""
        ...

    async def aclose(self) -> None: ...


@dataclass
class _Room:
    bundles: dict[str, str]
    hops: int
    size: int  # the bundles' UTF-8 bytes
    choices: dict[int, int]  # hop index -> number of choices, for the hops that ask
    key: str
    watch: str
    view: RoomView
    bucket: Bucket
    touched: float
    tokens: dict[str, None] = field(default_factory=dict)  # in the order given: the oldest goes first when full
    online: dict[str, int] = field(default_factory=dict)  # token -> its open streams
    counts: dict[int, list[int]] = field(default_factory=dict)
    answered: dict[int, set[str]] = field(default_factory=dict)
    revealed: dict[int, list[int]] = field(default_factory=dict)
    backlog: deque[Event] = field(default_factory=deque)
    last: int = 0
    listeners: set[_Listener] = field(default_factory=set)
    round: int = 1
    digest: str = ""

    def teachers(self) -> int:
        return sum(1 for listener in self.listeners if listener.tallies)

    def attach(self, listener: _Listener) -> None:
        self.listeners.add(listener)
        if listener.token is not None:
            self.online[listener.token] = self.online.get(listener.token, 0) + 1

    def detach(self, listener: _Listener) -> bool:
        """Forget a listener; False when it was gone already."""
        if listener not in self.listeners:
            return False
        self.listeners.discard(listener)
        if listener.token is not None:
            left = self.online.get(listener.token, 0) - 1
            if left > 0:
                self.online[listener.token] = left
            else:
                self.online.pop(listener.token, None)
        return True


@dataclass(eq=False)
class _Listener:
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[Event | None]
    tallies: bool
    token: str | None = None  # the follower whose screen this is, when it gave a token the room knows
    pending: int = 0  # events handed to the queue and not yet taken (the queue's own size lags the handing)


class MemoryRooms:
    """Rooms in this process: a lock around the state (the page's thread creates, the event loop serves), one
    queue per listening follower, fed with `call_soon_threadsafe`."""

    def __init__(self, limits: Limits | None = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits or Limits()
        self.clock = clock
        self._rooms: dict[str, _Room] = {}
        self._lock = threading.Lock()

    # ---- the page's side ----

    def _room_for(self, size: int, replacing: int = 0) -> None:
        """Refuse bundles of `size` bytes that would take every room's viewer data over its limit."""
        held = sum(room.size for room in self._rooms.values()) - replacing
        if held + size > self.limits.all_bundle_bytes:
            raise too_much_data(self.limits.all_bundle_bytes)

    def create(self, bundles: Mapping[str, str], choices: Mapping[int, int], view: RoomView) -> RoomKeys:
        hops, size = check_bundles(bundles, self.limits.bundle_bytes)
        with self._lock:
            self._sweep()
            if len(self._rooms) >= self.limits.rooms:
                raise too_many_rooms(self.limits.rooms)
            self._room_for(size)
            code = new_code()
            made = RoomKeys(code=code, key=secrets.token_urlsafe(24), watch=secrets.token_urlsafe(24))
            self._rooms[code] = _Room(
                bundles=dict(bundles),
                hops=hops,
                size=size,
                choices=check_choices(choices, hops),
                key=made.key,
                watch=made.watch,
                view=within(view, hops),
                bucket=Bucket(self.limits.teacher_events_per_s, self.limits.teacher_burst, self.clock),
                touched=self.clock(),
                digest=bundles_digest(bundles),
            )
            return made

    def retrace(
        self, code: str, key: str, bundles: Mapping[str, str], choices: Mapping[int, int], view: RoomView
    ) -> int:
        hops, size = check_bundles(bundles, self.limits.bundle_bytes)
        digest = bundles_digest(bundles)
        with self._lock:
            room = self._room(code)
            if not same_secret(key, room.key):
                raise not_teacher()
            if digest != room.digest:
                self._room_for(size, replacing=room.size)
                room.round += 1
                room.digest = digest
                room.bundles = dict(bundles)
                room.hops = hops
                room.size = size
                room.choices = check_choices(choices, hops)
                room.counts.clear()
                room.answered.clear()
                room.revealed.clear()
            room.view = within(view, room.hops)
            room.touched = self.clock()
            self._publish(room, "view", view_event(room.view, room.round))
            return room.round

    def close(self, code: str, key: str) -> None:
        with self._lock:
            room = self._rooms.get(code)
            if room is None:
                return
            if not same_secret(key, room.key):
                raise not_teacher()
            self._publish(room, "closed", {})
            del self._rooms[code]

    def exists(self, code: str) -> bool:
        with self._lock:
            self._sweep()
            return code in self._rooms

    def lang_of(self, code: str) -> Lang | None:
        with self._lock:
            self._sweep()
            room = self._rooms.get(code)
            return None if room is None else room.view.lang

    def take_back(self, code: str, key: str) -> tuple[RoomKeys, RoomView] | None:
        with self._lock:
            self._sweep()
            room = self._rooms.get(code)
            if room is None or not same_secret(key, room.key):
                return None
            return RoomKeys(code=code, key=room.key, watch=room.watch), room.view

    # ---- the routes' side ----

    def _room(self, code: str) -> _Room:
        self._sweep()
        room = self._rooms.get(code)
        if room is None:
            raise no_room()
        return room

    def _sweep(self) -> None:
        now = self.clock()
        for code in [c for c, r in self._rooms.items() if now - r.touched > self.limits.idle_s]:
            self._publish(self._rooms.pop(code), "closed", {"expired": True})

    def _publish(self, room: _Room, kind: EventKind, data: dict[str, Any]) -> Event:
        room.last += 1
        event = Event(room.last, kind, data)
        if kind not in TEACHER_ONLY:  # a reconnecting follower needs what it missed; counts move on anyway
            room.backlog.append(event)
            while len(room.backlog) > self.limits.backlog:
                room.backlog.popleft()
        for listener in list(room.listeners):
            if kind in TEACHER_ONLY and not listener.tallies:
                continue
            if listener.pending >= self.limits.queue:
                # A follower this far behind is dropped; its browser reconnects and resumes from the backlog.
                room.detach(listener)
                listener.loop.call_soon_threadsafe(listener.queue.put_nowait, None)
                continue
            listener.pending += 1
            listener.loop.call_soon_threadsafe(listener.queue.put_nowait, event)
        if kind == "closed":
            for listener in room.listeners:
                listener.loop.call_soon_threadsafe(listener.queue.put_nowait, None)
            room.listeners.clear()
            room.online.clear()
        return event

    async def bundle(self, code: str, lang: Lang, round_: int | None = None) -> str:
        with self._lock:
            room = self._room(code)
            if round_ is not None and round_ != room.round:
                raise other_round(room.round)
            return room.bundles[lang]

    async def join(self, code: str, token: str | None, *, may_add: bool = True) -> tuple[str, Snapshot]:
        with self._lock:
            room = self._room(code)
            if token is None or token not in room.tokens:
                if not may_add:
                    raise joining_too_fast(self.limits.client_joins_per_s)
                if len(room.tokens) >= self.limits.followers:
                    # Full: a newcomer takes the place of the oldest token no screen follows (one a script made
                    # and left, or a student gone), never of a screen that follows.
                    idle = next((t for t in room.tokens if t not in room.online), None)
                    if idle is None:
                        raise room_full(self.limits.followers)
                    del room.tokens[idle]
                token = secrets.token_urlsafe(16)
                room.tokens[token] = None
                self._here(room)
            snap = Snapshot(
                room.view,
                room.hops,
                dict(room.revealed),
                len(room.tokens),
                room.last,
                round=room.round,
                teacher=room.teachers() > 0,
            )
            return token, snap

    def _here(self, room: _Room) -> None:
        """Tell the teacher how many screens follow now (streams open) and how many ever joined."""
        following = len(room.listeners) - room.teachers()
        self._publish(room, "joined", {"followers": following, "joined": len(room.tokens)})

    async def move(self, code: str, key: str, data: Any) -> Event:
        with self._lock:
            room = self._room(code)
            if not same_secret(key, room.key):
                raise not_teacher()
            view = view_from(data, room.hops)
            if not room.bucket.take():
                raise too_fast(self.limits.teacher_events_per_s)
            room.view = view
            room.touched = self.clock()
            return self._publish(room, "view", view_event(view, room.round))

    async def reveal(self, code: str, key: str, index: int) -> Event:
        with self._lock:
            room = self._room(code)
            if not same_secret(key, room.key):
                raise not_teacher()
            if index not in room.choices:
                raise no_question(index)
            if not room.bucket.take():
                raise too_fast(self.limits.teacher_events_per_s)
            counts = room.counts.get(index, [0] * room.choices[index])
            room.revealed[index] = counts
            room.touched = self.clock()
            return self._publish(room, "reveal", {"index": index, "counts": counts})

    async def answer(self, code: str, token: str, index: int, choice: int) -> None:
        with self._lock:
            room = self._room(code)
            if token not in room.tokens:
                raise not_a_follower()
            if token not in room.online:
                raise not_following()
            if index not in room.choices:
                raise no_question(index)
            n = room.choices[index]
            if type(choice) is not int or not 1 <= choice <= n:
                raise bad_choice(n)
            if index in room.revealed:
                raise revealed_already()
            who = room.answered.setdefault(index, set())
            if token in who:
                raise answered_once()
            who.add(token)
            counts = room.counts.setdefault(index, [0] * n)
            counts[choice - 1] += 1
            self._publish(room, "tally", {"index": index, "counts": list(counts)})

    async def is_watcher(self, code: str, watch: str) -> bool:
        with self._lock:
            return same_secret(watch, self._room(code).watch)

    async def listen(
        self, code: str, after: int, *, tallies: bool, token: str | None = None, heartbeat_s: float = 15.0
    ) -> Stream:
        listener = _Listener(asyncio.get_running_loop(), asyncio.Queue(), tallies)
        with self._lock:
            room = self._room(code)
            if len(room.listeners) >= self.limits.followers + LISTENER_SLACK:
                raise room_full(self.limits.followers)
            if token is not None and token in room.tokens:
                listener.token = token
            missed = [e for e in room.backlog if e.id > after]
            if after and room.backlog and room.backlog[0].id > after + 1:
                # Further behind than the events kept: where the room is now, then the reveals.
                missed = [
                    Event(room.last, "view", view_event(room.view, room.round)),
                    Event(room.last, "teacher", {"here": room.teachers() > 0}),
                ] + [Event(room.last, "reveal", {"index": i, "counts": c}) for i, c in sorted(room.revealed.items())]
            first_teacher = tallies and room.teachers() == 0
            room.attach(listener)
            if first_teacher:
                self._publish(room, "teacher", {"here": True})
            self._here(room)

        async def leave() -> None:
            with self._lock:
                if room.detach(listener) and self._rooms.get(code) is room:  # (not dropped, nor closed)
                    if listener.tallies and room.teachers() == 0:
                        self._publish(room, "teacher", {"here": False})
                    self._here(room)

        return Stream(self._stream(listener, missed, after, heartbeat_s), leave)

    async def _stream(
        self, listener: _Listener, missed: list[Event], after: int, heartbeat_s: float
    ) -> AsyncGenerator[Event]:
        for event in missed:
            yield event
        while True:
            try:
                got = await asyncio.wait_for(listener.queue.get(), heartbeat_s)
            except TimeoutError:
                yield PING
                continue
            if got is None:
                return
            with self._lock:
                listener.pending -= 1
            if got.id > after:
                yield got

    async def aclose(self) -> None:
        with self._lock:
            for room in self._rooms.values():
                for listener in room.listeners:
                    listener.loop.call_soon_threadsafe(listener.queue.put_nowait, None)
                room.listeners.clear()
                room.online.clear()
