"""Rooms in Redis, so that several app processes behind one address share them (MCP_FLOW_ROOMS_REDIS).

`RedisStorage` keeps what `MemoryStorage` keeps (flow.rooms.storage), under `mcpflow:room:{CODE}:` (the braces make
CODE a hash tag), each key named in `_Keys`: the record (a JSON document flow.rooms.store writes), the bundles, the
tokens in the order given, the screens leased until a time, the ballots, the kept events (JSON flow.rooms.events
writes). Every key expires at the room's deadline; the sorted set `mcpflow:rooms` holds each open room's deadline
and the hash `mcpflow:rooms:bytes` each room's viewer data, so the limits count every process's rooms.

A step is one optimistic transaction, Redis's own, on a connection of its own: WATCH the room's record (and the
rooms' set when the step counts them), read, then MULTI … EXEC the writes; when another process changed the room in
between, EXEC refuses and the step runs again. Every step that writes counts itself in the record's hash, so
watching it watches the room. Round trips are what a step costs: the WATCH goes with the reads most steps need
(`_Head`), and the writes go at once, so a teacher's press is two. An event takes the room's next id, joins the kept
events and is published on the room's channel in the same EXEC, so ids and publish order agree; each process reads
every room's channel over one pub/sub connection per event loop (a pattern subscription). No Lua: nothing here needs
more than WATCH and MULTI.

Redis's clock (TIME) drives the deadlines, the leases and the teacher's token bucket, so the processes need not
agree on one. A Redis that does not answer is a 503 with one line; no message carries the URL's password.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

import redis
import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.connection import Connection
from redis.exceptions import AuthenticationError, RedisError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry
from redis.typing import EncodableT

from flow.rooms.events import Body, Event, Lang, stored_event
from flow.rooms.rules import Rooms
from flow.rooms.storage import Follower, RoomTx
from flow.rooms.store import Held, Limits, Presence, Record, RoomError, Screen

T = TypeVar("T")
RETRIES = 50  # a step that another process keeps changing the room under is refused ("busy") after this many


@dataclass(frozen=True)
class _Keys:
    """A room's keys, by what each holds."""

    meta: str  # hash: record (JSON), last (the last event id), joins (tokens ever given), version (writes)
    zh: str  # the Chinese bundle
    en: str  # the English bundle
    tokens: str  # sorted set: the followers' tokens, by the order given
    online: str  # hash: TOKEN -> how many of the open streams are that follower's (it may answer while one is)
    screens: str  # sorted set: the open streams (Screen.member), leased until the score (ms)
    teachers: str  # sorted set: those of them that are the teacher's own viewer, leased alike
    answered: str  # set: "INDEX:TOKEN", who answered which question (never which choice)
    counts: str  # hash: "INDEX:CHOICE" -> votes
    revealed: str  # hash: INDEX -> counts (JSON list)
    backlog: str  # list: the last events a reconnecting screen needs (JSON)

    @classmethod
    def of(cls, prefix: str, code: str) -> _Keys:
        base = f"{prefix}:room:{{{code}}}:"
        parts = {"zh": "bundle:zh", "en": "bundle:en"}
        return cls(**{f.name: base + parts.get(f.name, f.name) for f in fields(cls)})

    def all(self) -> list[str]:
        return [getattr(self, f.name) for f in fields(self)]


def _ms(seconds: float) -> int:
    return int(seconds * 1000)


def _texts(got: Any) -> dict[str, str]:
    """A hash as Redis answers it: a map (RESP3) or a flat list of fields and values (RESP2)."""
    if isinstance(got, dict):
        return {str(k): str(v) for k, v in got.items()}
    return {str(k): str(v) for k, v in zip(got[::2], got[1::2], strict=True)}


def _soonest(got: Any) -> float | None:
    """The lowest score of `ZRANGE key 0 0 WITHSCORES` (RESP3: [[member, score]]; RESP2: [member, score])."""
    if not got:
        return None
    return float(got[0][1] if isinstance(got[0], list) else got[1])


def redis_address(url: str) -> str:
    """Where a redis:// URL points, for messages: HOST:PORT (or a socket's path), never its user or password."""
    try:
        parts = urlsplit(url)
        if parts.scheme == "unix":
            return unquote(parts.path) or "?"
        host = parts.hostname or "localhost"
        return f"[{host}]:{parts.port or 6379}" if ":" in host else f"{host}:{parts.port or 6379}"
    except ValueError:
        return "?"


class _RedisTx:
    """A step's reads and writes on one connection of its own. The first read asks, in one round trip, what most
    steps need (Redis's clock, the record's hash, how many tokens and screens, the soonest lease), after WATCH when
    the step writes; another read is one more round trip; the writes go at once between MULTI and EXEC."""

    def __init__(self, storage: RedisStorage, code: str, conn: Connection, *, watch: bool) -> None:
        self.code, self.storage, self.watch = code, storage, watch
        self.conn: Any = conn  # (its methods are untyped in redis-py)
        self.k = _Keys.of(storage.prefix, code)
        self._head: _Head | None = None
        self._record: Record | None = None  # the record put
        self._writes: list[tuple[EncodableT, ...]] = []
        self._own = frozenset(self.k.all())
        self._touched: set[str] = set()  # the room's keys written
        self._last: int | None = None  # the last id appended
        self._joins: int | None = None
        self._dropped = False

    def _ask(self, *commands: tuple[EncodableT, ...]) -> list[Any]:
        """`commands` in one round trip; their replies."""
        assert not self._writes, "a step reads, then writes: within MULTI nothing can be read back"
        self.conn.send_packed_command(self.conn.pack_commands(commands))
        return [self.conn.read_response() for _ in commands]

    def _h(self) -> _Head:
        if self._head is None:
            k = self.k
            watch: list[tuple[EncodableT, ...]] = [("WATCH", k.meta)] if self.watch else []
            *_, (seconds, micros), meta, tokens, screens, teachers, soonest = self._ask(
                *watch,
                ("TIME",),
                ("HGETALL", k.meta),
                ("ZCARD", k.tokens),
                ("ZCARD", k.screens),
                ("ZCARD", k.teachers),
                ("ZRANGE", k.screens, 0, 0, "WITHSCORES"),
            )
            soon = _soonest(soonest)
            self._head = _Head(
                int(seconds) + int(micros) / 1_000_000,
                _texts(meta),
                int(tokens),
                int(screens),
                int(teachers),
                None if soon is None else soon / 1000,
            )
        return self._head

    def now(self) -> float:
        return self._h().now

    def record(self) -> Record | None:
        text = self._h().meta.get("record")
        return None if text is None else Record.from_json(text)

    def last(self) -> int:
        return int(self._h().meta.get("last", 0))

    def bundle(self, lang: Lang) -> str:
        [text] = self._ask(("GET", self.k.zh if lang == "zh" else self.k.en))
        return str(text or "")

    def held(self) -> Held:
        rooms, sizes = self.storage.rooms_key, self.storage.sizes_key
        watch: list[tuple[EncodableT, ...]] = [("WATCH", rooms, sizes)] if self.watch else []
        # What the step decides from: the other rooms too.
        *_, open_ = self._ask(*watch, ("ZRANGEBYSCORE", rooms, f"({_ms(self.now())}", "+inf"))
        others = [str(c) for c in open_ if c != self.code]
        [held] = self._ask(("HMGET", sizes, *others)) if others else [[]]
        return Held(len(others), sum(int(n or 0) for n in held))

    def has_token(self, token: str) -> bool:
        [score] = self._ask(("ZSCORE", self.k.tokens, token))
        return score is not None

    def token_count(self) -> int:
        return self._h().tokens

    def tokens(self) -> list[str]:
        [tokens] = self._ask(("ZRANGE", self.k.tokens, 0, -1))
        return [str(token) for token in tokens]

    def online(self) -> set[str]:
        [online] = self._ask(("HGETALL", self.k.online))
        return {token for token, n in _texts(online).items() if int(n) > 0}

    def streams_of(self, token: str) -> int:
        [n] = self._ask(("HGET", self.k.online, token))
        return int(n or 0)

    def presence(self) -> Presence:
        head, expired = self._h(), []
        if head.soonest is not None and head.soonest <= head.now:  # (rare: a process went away)
            [expired] = self._ask(("ZRANGEBYSCORE", self.k.screens, "-inf", _ms(head.now)))
        return Presence(head.screens, head.teachers, [Screen.of(str(m)) for m in expired])

    def attached(self, screens: Sequence[Screen]) -> list[bool]:
        [scores] = self._ask(("ZMSCORE", self.k.screens, *[screen.member for screen in screens]))
        return [score is not None for score in scores]

    def answered(self, index: int, token: str) -> bool:
        [member] = self._ask(("SISMEMBER", self.k.answered, f"{index}:{token}"))
        return bool(member)

    def counts(self, index: int, n: int) -> list[int]:
        [got] = self._ask(("HMGET", self.k.counts, *[f"{index}:{c}" for c in range(1, n + 1)]))
        return [int(c or 0) for c in got]

    def revealed(self) -> dict[int, list[int]]:
        [revealed] = self._ask(("HGETALL", self.k.revealed))
        return {int(i): json.loads(c) for i, c in _texts(revealed).items()}

    def kept(self) -> list[Event]:
        [kept] = self._ask(("LRANGE", self.k.backlog, 0, -1))
        return [e for e in map(stored_event, kept) if e is not None]

    # ---- writes: Redis commands, sent between MULTI and EXEC ----

    def _do(self, *command: EncodableT) -> None:
        self._writes.append(command)
        if command[1] in self._own:
            self._touched.add(str(command[1]))

    def put(self, record: Record, bundles: Mapping[str, str] | None = None) -> None:
        self._record = record
        self._do("HSET", self.k.meta, "record", record.to_json())
        if bundles is not None:
            self._do("SET", self.k.zh, bundles["zh"])
            self._do("SET", self.k.en, bundles["en"])
        self._do("ZADD", self.storage.rooms_key, _ms(record.deadline), self.code)
        self._do("HSET", self.storage.sizes_key, self.code, record.size)

    def append(self, body: Body, *, keep: int) -> Event:
        self._last = (self.last() if self._last is None else self._last) + 1
        event = Event(self._last, body)
        text = event.stored()
        self._do("HSET", self.k.meta, "last", event.id)
        if keep:
            self._do("RPUSH", self.k.backlog, text)
            self._do("LTRIM", self.k.backlog, -keep, -1)
        self._do("PUBLISH", self.storage.channel(self.code), text)
        return event

    def add_token(self, token: str) -> None:
        self._joins = (int(self._h().meta.get("joins", 0)) if self._joins is None else self._joins) + 1
        self._do("HSET", self.k.meta, "joins", self._joins)
        self._do("ZADD", self.k.tokens, self._joins, token)

    def remove_token(self, token: str) -> None:
        self._do("ZREM", self.k.tokens, token)
        self._do("HDEL", self.k.online, token)

    def attach(self, screen: Screen, until: float) -> None:
        self._do("ZADD", self.k.screens, _ms(until), screen.member)
        if screen.teacher:
            self._do("ZADD", self.k.teachers, _ms(until), screen.member)
        if screen.token is not None:
            self._do("HINCRBY", self.k.online, screen.token, 1)

    def lease(self, screen: Screen, until: float) -> None:
        self._do("ZADD", self.k.screens, "XX", _ms(until), screen.member)
        if screen.teacher:
            self._do("ZADD", self.k.teachers, "XX", _ms(until), screen.member)

    def detach(self, screen: Screen) -> None:
        self._do("ZREM", self.k.screens, screen.member)
        self._do("ZREM", self.k.teachers, screen.member)
        if screen.token is not None:
            self._do("HINCRBY", self.k.online, screen.token, -1)  # (at 0 it stays until the token goes)

    def vote(self, index: int, token: str, choice: int) -> None:
        self._do("SADD", self.k.answered, f"{index}:{token}")
        self._do("HINCRBY", self.k.counts, f"{index}:{choice}", 1)

    def reveal(self, index: int, counts: list[int]) -> None:
        self._do("HSET", self.k.revealed, index, json.dumps(counts))

    def clear_ballots(self) -> None:
        self._do("DEL", self.k.answered, self.k.counts, self.k.revealed)

    def drop(self) -> None:
        self._dropped = True
        self._do("DEL", *self.k.all())
        self._do("ZREM", self.storage.rooms_key, self.code)
        self._do("HDEL", self.storage.sizes_key, self.code)

    def commit(self) -> bool:
        """The writes, at once; False when another process changed the room since the step's first read."""
        if not self._writes:
            self.abandon()
            return True
        record = self._record or self.record()
        if record is not None and not self._dropped:
            self._do("HINCRBY", self.k.meta, "version", 1)  # every write changes the watched hash
            # Each key expires with the room: all of them when the deadline moved, else those written (one may be new).
            for key in self.k.all() if self._record is not None else sorted(self._touched):
                self._do("PEXPIREAT", key, _ms(record.deadline))
        commands = [("MULTI",), *self._writes, ("EXEC",)]
        self.conn.send_packed_command(self.conn.pack_commands(commands))
        queued: list[ResponseError] = []
        for _ in commands[:-1]:
            try:
                self.conn.read_response()  # OK, then QUEUED each
            except ResponseError as exc:
                queued.append(exc)
        done = self.conn.read_response()  # (EXECABORT raises here when a command was refused)
        if queued:
            raise queued[0]
        if done is None:
            return False
        for reply in done:
            if isinstance(reply, ResponseError):
                raise reply
        return True

    def abandon(self) -> None:
        """Nothing is written (the step wrote nothing, or refused): the connection watches nothing for the next."""
        if self.watch and self._head is not None:
            self._ask(("UNWATCH",))


@dataclass(frozen=True)
class _Head:
    """What a step's first read fetches."""

    now: float  # Redis's clock (s)
    meta: dict[str, str]  # the record's hash
    tokens: int
    screens: int
    teachers: int
    soonest: float | None  # the soonest a screen's lease runs out (s)


@dataclass(eq=False)
class _Hub:
    """One event loop's pub/sub connection, subscribed to every room's channel: each event to `follower`."""

    client: aioredis.Redis
    pubsub: PubSub
    follower: Follower
    started: asyncio.Task[None] | None = None
    reading: asyncio.Task[None] | None = None
    alive: bool = True

    async def start(self, pattern: str, timeout_s: float) -> None:
        """Subscribe, and wait until Redis says so: from then on no event of any room passes unseen."""
        await self.pubsub.psubscribe(pattern)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise RedisTimeoutError("no answer to PSUBSCRIBE")
            message = await self.pubsub.get_message(timeout=left)
            if message is not None and message["type"] == "psubscribe":
                break
        self.reading = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            while True:
                message = await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=5.0)
                if message is None or message["type"] != "pmessage":
                    continue
                channel, event = str(message["channel"]), stored_event(message["data"])
                if event is not None and "{" in channel:
                    self.follower.deliver(channel[channel.index("{") + 1 : channel.index("}")], event)
        except (RedisError, OSError):
            pass  # Redis went away: every local stream ends, and its browser reconnects (and hears a 503)
        finally:
            self.alive = False
            self.follower.lost()

    async def close(self) -> None:
        self.alive = False
        for task in (self.started, self.reading):
            if task is not None:
                task.cancel()
                try:
                    await task
                except (asyncio.CancelledError, Exception):
                    pass
        try:
            closer: Any = self.pubsub.aclose  # untyped in redis-py
            await closer()
            await self.client.aclose()
        except (RedisError, OSError):
            pass


class RedisStorage:
    """Rooms in the Redis at `url`, shared by every process that uses it with the same `prefix`. Steps use a
    blocking client (on the page's script thread, and on the rules' worker threads for the routes); the events
    come over an asyncio one."""

    blocking = True

    def __init__(self, url: str, *, prefix: str = "mcpflow", timeout_s: float = 5.0) -> None:
        self.prefix = prefix
        self.timeout_s = timeout_s
        self.address = redis_address(url)
        self.rooms_key, self.sizes_key = f"{prefix}:rooms", f"{prefix}:rooms:bytes"
        self._url = url
        try:
            self.client = redis.Redis.from_url(url, **self._options(Retry(NoBackoff(), 0)))
        except (ValueError, RedisError):
            raise RoomError("redis_url", address=self.address) from None
        self._hubs: dict[asyncio.AbstractEventLoop, _Hub] = {}

    def _options(self, retry: Retry | AsyncRetry) -> dict[str, Any]:
        # No retries: a Redis that does not answer is a 503 within the timeout.
        return {
            "decode_responses": True,
            "socket_timeout": self.timeout_s,
            "socket_connect_timeout": self.timeout_s,
            "retry": retry,
            "health_check_interval": 5,
        }

    def channel(self, code: str) -> str:
        return f"{self.prefix}:room:{{{code}}}:events"

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Redis's failures as one-line refusals (503), never a traceback, never the URL's password."""
        try:
            yield
        except AuthenticationError:
            raise RoomError("redis_refused", address=self.address) from None
        except (RedisConnectionError, RedisTimeoutError, OSError, TimeoutError):
            raise RoomError("redis_silent", address=self.address) from None
        except RedisError as exc:
            raise RoomError("redis_error", address=self.address, kind=type(exc).__name__) from None

    def transact(self, code: str, step: Callable[[RoomTx], T]) -> T:
        with self._guard(), self._connection() as conn:
            for _ in range(RETRIES):
                tx = _RedisTx(self, code, conn, watch=True)
                try:
                    result = step(tx)
                except RoomError:
                    tx.abandon()
                    raise
                if tx.commit():
                    return result
        raise RoomError("busy")

    def read(self, code: str, step: Callable[[RoomTx], T]) -> T:
        with self._guard(), self._connection() as conn:
            return step(_RedisTx(self, code, conn, watch=False))

    @contextmanager
    def _connection(self) -> Iterator[Connection]:
        """A connection of the client's pool for one step; closed rather than given back when the step broke off
        mid-way (it may still be watching, or owe replies)."""
        pool = self.client.connection_pool
        conn: Any = pool.get_connection()
        try:
            yield conn
        except BaseException as exc:
            if not isinstance(exc, RoomError):
                conn.disconnect()
            raise
        finally:
            pool.release(conn)

    def sweep(self) -> list[str]:
        with self._guard():
            seconds, micros = self.client.time()
            now = _ms(seconds + micros / 1_000_000)
            pipe = self.client.pipeline(transaction=True)
            pipe.zrangebyscore(self.rooms_key, "-inf", now)
            pipe.zremrangebyscore(self.rooms_key, "-inf", now)
            gone, _ = pipe.execute()
            if gone:
                self.client.hdel(self.sizes_key, *gone)
            return list(gone)

    def announce(self, code: str, event: Event) -> None:
        with self._guard():
            self.client.publish(self.channel(code), event.stored())

    async def follow(self, follower: Follower) -> None:
        loop = asyncio.get_running_loop()
        for gone in [other for other in self._hubs if other.is_closed()]:
            del self._hubs[gone]
        hub = self._hubs.get(loop)
        if hub is None or not hub.alive or hub.follower is not follower:
            if hub is not None:
                await hub.close()
            client = aioredis.Redis.from_url(self._url, **self._options(AsyncRetry(NoBackoff(), 0)))
            hub = self._hubs[loop] = _Hub(client, client.pubsub(), follower)
            # Started once, however many streams open meanwhile: each waits for the same subscription.
            hub.started = asyncio.create_task(hub.start(f"{self.prefix}:room:*:events", self.timeout_s))
        assert hub.started is not None
        try:
            with self._guard():
                await asyncio.shield(hub.started)
        except BaseException:
            if self._hubs.get(loop) is hub:
                del self._hubs[loop]
                await hub.close()
            raise

    async def aclose(self) -> None:
        """Close this loop's pub/sub connection and the blocking client's connections."""
        hub = self._hubs.pop(asyncio.get_running_loop(), None)
        if hub is not None:
            await hub.close()
        self.client.close()


class RedisRooms(Rooms):
    """Rooms in the Redis at `url` (flow.rooms.rules over `RedisStorage`)."""

    def __init__(
        self, url: str, limits: Limits | None = None, *, prefix: str = "mcpflow", timeout_s: float = 5.0
    ) -> None:
        super().__init__(RedisStorage(url, prefix=prefix, timeout_s=timeout_s), limits)
