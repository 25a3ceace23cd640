"""Rooms in Redis, so that several app processes behind one address share them (MCP_FLOW_ROOMS_REDIS).

`RedisRooms` behaves as `MemoryRooms` does (flow.rooms.store): the same refusals, limits and event ids. Each room
is a few keys under `mcpflow:room:{CODE}:` (the braces make CODE a hash tag), all expiring after `limits.idle_s`
from the teacher's last act; the sorted set `mcpflow:rooms` holds each open room's deadline, so the room limit
counts every process's rooms, and the hash `mcpflow:rooms:bytes` each room's viewer data (their memory limit). Every change is one Lua script, so it is atomic across processes: an event takes
the room's next id, joins the capped backlog (not the teacher's own kinds) and is published on the room's
channel in the same step, so ids and publish order agree. Each process reads all rooms' channels over one pub/sub
connection (a pattern subscription) and hands each event to its local listeners' queues.

Redis's clock (TIME) drives the deadlines and the teacher's token bucket, so the processes need not agree on one.
A Redis that does not answer is a 503 with one line; no message carries the URL's password.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncGenerator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, cast, get_args
from urllib.parse import unquote, urlsplit

import redis
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.commands.core import AsyncScript, Script
from redis.exceptions import AuthenticationError, RedisError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry
from redis.typing import EncodableT

from flow.rooms.store import (
    LISTENER_SLACK,
    PING,
    TEACHER_ONLY,
    Event,
    EventKind,
    Lang,
    Limits,
    RoomError,
    RoomKeys,
    RoomView,
    Snapshot,
    Stream,
    answered_once,
    bad_choice,
    bundles_digest,
    check_bundles,
    check_choices,
    joining_too_fast,
    new_code,
    no_question,
    no_room,
    not_a_follower,
    not_following,
    not_teacher,
    other_round,
    revealed_already,
    room_full,
    same_secret,
    too_fast,
    too_many_rooms,
    too_much_data,
    view_from,
    within,
)

# A room's keys, in the order every script receives them (KEYS[1..12]); KEYS[13] is the rooms' sorted set, KEYS[14]
# the rooms' sizes.
_PARTS = (
    "meta",  # hash: key, watch, hops, choices (JSON), view (JSON), last (the last event id), round, digest
    "bundle:zh",
    "bundle:en",
    "tokens",  # set: the followers' tokens
    "answered",  # set: "INDEX:TOKEN", who answered which question (never which choice)
    "counts",  # hash: "INDEX:CHOICE" -> count
    "revealed",  # hash: INDEX -> counts (JSON list)
    "backlog",  # list: the last events a reconnecting follower needs (JSON)
    "bucket",  # hash: the teacher's token bucket (tokens, at)
    "listeners",  # sorted set: the open streams (ID, or ID|TOKEN for a follower's screen), leased until the score (ms)
    "teachers",  # sorted set: those of them that are the teacher's own viewer (the watch key's), leased alike
    "online",  # hash: TOKEN -> how many of the open streams are that follower's (it may answer while one is)
)
_KINDS: frozenset[str] = frozenset(get_args(EventKind))

# ARGV[1..4] are the same for every script: the room's code, its channel, the idle time (ms) and the backlog cap.
_PRELUDE = """
local META, TOKENS, ANSWERED, COUNTS = KEYS[1], KEYS[4], KEYS[5], KEYS[6]
local REVEALED, BACKLOG, BUCKET, LISTENERS, TEACHERS = KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11]
local ONLINE, ROOMS, SIZES = KEYS[12], KEYS[13], KEYS[14]
local PARTS = 12
local CODE, CHANNEL, IDLE_MS, CAP = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function same_ttl(key)
  local ttl = redis.call('PTTL', META)
  if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
end

-- A stream ID|TOKEN is that follower's screen: ONLINE counts them by token.
local function token_of(member)
  local bar = string.find(member, '|', 1, true)
  if bar then return string.sub(member, bar + 1) end
  return nil
end

local function remember(member)
  local token = token_of(member)
  if token then
    redis.call('HINCRBY', ONLINE, token, 1)
    same_ttl(ONLINE)
  end
end

local function forget(member)
  local token = token_of(member)
  if token and redis.call('HINCRBY', ONLINE, token, -1) <= 0 then redis.call('HDEL', ONLINE, token) end
end

local function drop_expired(now)
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', LISTENERS, '-inf', now)) do forget(member) end
  redis.call('ZREMRANGEBYSCORE', LISTENERS, '-inf', now)
end

-- Every room's viewer data together, with `size` bytes in place of this room's own.
local function held_with(size)
  local held = size - tonumber(redis.call('HGET', SIZES, CODE) or '0')
  for _, n in ipairs(redis.call('HVALS', SIZES)) do held = held + tonumber(n) end
  return held
end

local function publish(kind, data, teacher_only)
  local id = redis.call('HINCRBY', META, 'last', 1)
  local event = '{"id":' .. id .. ',"kind":"' .. kind .. '","data":' .. data .. '}'
  if teacher_only == '0' then
    redis.call('RPUSH', BACKLOG, event)
    redis.call('LTRIM', BACKLOG, -CAP, -1)
    same_ttl(BACKLOG)
  end
  redis.call('PUBLISH', CHANNEL, event)
  return id
end

local function touch()
  for i = 1, PARTS do redis.call('PEXPIRE', KEYS[i], IDLE_MS) end
  redis.call('ZADD', ROOMS, 'XX', now_ms() + IDLE_MS, CODE)
end

local function take(rate, burst)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
  local b = redis.call('HMGET', BUCKET, 'tokens', 'at')
  local tokens = tonumber(b[1]) or burst
  local at = tonumber(b[2]) or now
  tokens = math.min(burst, tokens + (now - at) * rate)
  local ok = tokens >= 1
  if ok then tokens = tokens - 1 end
  redis.call('HSET', BUCKET, 'tokens', string.format('%.6f', tokens), 'at', string.format('%.6f', now))
  same_ttl(BUCKET)
  return ok
end

-- A view as followers hear it: the stored view (compact JSON) with the room's round first.
local function view_event(view)
  return '{"round":' .. (redis.call('HGET', META, 'round') or '1') .. ',' .. string.sub(view, 2)
end

-- Leases past their time are streams whose process is gone: drop them; the teacher hears how many follow now,
-- and followers hear when the teacher's last screen went. `had` is how many teacher streams there were before.
local function present(had)
  local now = now_ms()
  drop_expired(now)
  redis.call('ZREMRANGEBYSCORE', TEACHERS, '-inf', now)
  local teachers = redis.call('ZCARD', TEACHERS)
  if had > 0 and teachers == 0 then publish('teacher', '{"here":false}', '0') end
  if had == 0 and teachers > 0 then publish('teacher', '{"here":true}', '0') end
  local following = redis.call('ZCARD', LISTENERS) - teachers
  publish('joined', '{"followers":' .. following .. ',"joined":' .. redis.call('SCARD', TOKENS) .. '}', '1')
end

local function counts_of(index, n)
  local counts = {}
  for c = 1, n do counts[c] = tonumber(redis.call('HGET', COUNTS, index .. ':' .. c) or '0') end
  return '[' .. table.concat(counts, ',') .. ']'
end
"""

_SCRIPTS = {
    # ARGV[5] the room limit, ARGV[6] and ARGV[7] what goes before and after a code to name its channel, ARGV[8] the
    # bundles' size, ARGV[9] the limit of every room's together.
    "create": """
local now = now_ms()
for _, c in ipairs(redis.call('ZRANGEBYSCORE', ROOMS, '-inf', now)) do
  redis.call('ZREM', ROOMS, c)
  redis.call('HDEL', SIZES, c)
  redis.call('PUBLISH', ARGV[6] .. c .. ARGV[7], '{"id":0,"kind":"closed","data":{"expired":true}}')
end
if redis.call('ZCARD', ROOMS) >= tonumber(ARGV[5]) then return 'too_many' end
if held_with(tonumber(ARGV[8])) > tonumber(ARGV[9]) then return 'too_much' end
redis.call('ZADD', ROOMS, now + IDLE_MS, CODE)
redis.call('HSET', SIZES, CODE, ARGV[8])
return 'ok'
""",
    "close": """
if redis.call('EXISTS', META) == 0 then
  redis.call('ZREM', ROOMS, CODE)
  redis.call('HDEL', SIZES, CODE)
  return 0
end
publish('closed', '{}', '0')
for i = 1, PARTS do redis.call('DEL', KEYS[i]) end
redis.call('ZREM', ROOMS, CODE)
redis.call('HDEL', SIZES, CODE)
return 1
""",
    # ARGV[5] the token given ('' for none), ARGV[6] a new token, ARGV[7] the follower limit, ARGV[8] '1' when a new
    # follower may be added. Full, a newcomer takes the place of a token no screen follows.
    "join": """
if redis.call('EXISTS', META) == 0 then return {'no_room'} end
local token = ARGV[5]
if token == '' or redis.call('SISMEMBER', TOKENS, token) == 0 then
  if ARGV[8] ~= '1' then return {'slow'} end
  if redis.call('SCARD', TOKENS) >= tonumber(ARGV[7]) then
    local idle = nil
    for _, t in ipairs(redis.call('SMEMBERS', TOKENS)) do
      if redis.call('HEXISTS', ONLINE, t) == 0 then
        idle = t
        break
      end
    end
    if not idle then return {'full'} end
    redis.call('SREM', TOKENS, idle)
  end
  token = ARGV[6]
  redis.call('SADD', TOKENS, token)
  same_ttl(TOKENS)
  present(redis.call('ZCARD', TEACHERS))
end
local m = redis.call('HMGET', META, 'view', 'hops', 'last', 'round')
return {'ok', token, m[1], m[2], m[3], redis.call('SCARD', TOKENS), redis.call('HGETALL', REVEALED), m[4] or '1',
  redis.call('ZCARD', TEACHERS)}
""",
    # ARGV[5] the rate, ARGV[6] the burst, ARGV[7] the view (JSON).
    "move": """
if redis.call('EXISTS', META) == 0 then return {'no_room'} end
if not take(tonumber(ARGV[5]), tonumber(ARGV[6])) then return {'too_fast'} end
redis.call('HSET', META, 'view', ARGV[7])
touch()
return {'ok', publish('view', view_event(ARGV[7]), '0'), redis.call('HGET', META, 'round') or '1'}
""",
    # ARGV[5] the bundles' digest, ARGV[6] and ARGV[7] the bundles (zh, en), ARGV[8] the hops, ARGV[9] the choices
    # (JSON), ARGV[10] the view (JSON), ARGV[11] the bundles' size, ARGV[12] the limit of every room's together. The
    # same digest again only moves the view.
    "retrace": """
if redis.call('EXISTS', META) == 0 then return {'no_room'} end
if redis.call('HGET', META, 'digest') ~= ARGV[5] then
  if held_with(tonumber(ARGV[11])) > tonumber(ARGV[12]) then return {'too_much'} end
  redis.call('HSET', SIZES, CODE, ARGV[11])
  redis.call('HINCRBY', META, 'round', 1)
  redis.call('HSET', META, 'digest', ARGV[5], 'hops', ARGV[8], 'choices', ARGV[9])
  redis.call('SET', KEYS[2], ARGV[6])
  redis.call('SET', KEYS[3], ARGV[7])
  redis.call('DEL', COUNTS, ANSWERED, REVEALED)
end
redis.call('HSET', META, 'view', ARGV[10])
touch()
publish('view', view_event(ARGV[10]), '0')
return {'ok', redis.call('HGET', META, 'round')}
""",
    # ARGV[5] the rate, ARGV[6] the burst, ARGV[7] the question's hop index, ARGV[8] its number of choices.
    "reveal": """
if redis.call('EXISTS', META) == 0 then return {'no_room'} end
if not take(tonumber(ARGV[5]), tonumber(ARGV[6])) then return {'too_fast'} end
local counts = counts_of(ARGV[7], tonumber(ARGV[8]))
redis.call('HSET', REVEALED, ARGV[7], counts)
touch()
return {'ok', publish('reveal', '{"index":' .. ARGV[7] .. ',"counts":' .. counts .. '}', '0'), counts}
""",
    # ARGV[5] the token, ARGV[6] the hop index, ARGV[7] its number of choices (0: no question), ARGV[8] the choice.
    "answer": """
if redis.call('EXISTS', META) == 0 then return 'no_room' end
if redis.call('SISMEMBER', TOKENS, ARGV[5]) == 0 then return 'not_follower' end
if redis.call('HEXISTS', ONLINE, ARGV[5]) == 0 then return 'not_following' end
local n, choice = tonumber(ARGV[7]), tonumber(ARGV[8])
if n == 0 then return 'no_question' end
if choice < 1 or choice > n then return 'bad_choice' end
if redis.call('HEXISTS', REVEALED, ARGV[6]) == 1 then return 'revealed' end
if redis.call('SADD', ANSWERED, ARGV[6] .. ':' .. ARGV[5]) == 0 then return 'answered' end
same_ttl(ANSWERED)
redis.call('HINCRBY', COUNTS, ARGV[6] .. ':' .. choice, 1)
same_ttl(COUNTS)
publish('tally', '{"index":' .. ARGV[6] .. ',"counts":' .. counts_of(ARGV[6], n) .. '}', '1')
return 'ok'
""",
    # ARGV[5] the stream's id, ARGV[6] its lease (ms), ARGV[7] the stream limit, ARGV[8] '1' for the teacher's,
    # ARGV[9] the follower's token ('' for none). Returns the stream's name in LISTENERS.
    "listen": """
if redis.call('EXISTS', META) == 0 then return {'no_room'} end
local now = now_ms()
local had = redis.call('ZCARD', TEACHERS)
drop_expired(now)
if redis.call('ZCARD', LISTENERS) >= tonumber(ARGV[7]) then return {'full'} end
local m = redis.call('HMGET', META, 'view', 'last')
local backlog = redis.call('LRANGE', BACKLOG, 0, -1)
local member = ARGV[5]
if ARGV[9] ~= '' and redis.call('SISMEMBER', TOKENS, ARGV[9]) == 1 then member = ARGV[5] .. '|' .. ARGV[9] end
redis.call('ZADD', LISTENERS, now + tonumber(ARGV[6]), member)
same_ttl(LISTENERS)
remember(member)
if ARGV[8] == '1' then
  redis.call('ZADD', TEACHERS, now + tonumber(ARGV[6]), member)
  same_ttl(TEACHERS)
end
present(had)
local teacher = redis.call('ZCARD', TEACHERS) > 0
return {'ok', view_event(m[1]), m[2], backlog, redis.call('HGETALL', REVEALED), teacher and '1' or '0', member}
""",
    # ARGV[5] the stream's name, ARGV[6] its lease (ms), ARGV[7] '1' for the teacher's: 0 when the room is gone.
    "lease": """
if redis.call('EXISTS', META) == 0 then return 0 end
local had = redis.call('ZCARD', TEACHERS)
local now = now_ms()
if redis.call('ZADD', LISTENERS, now + tonumber(ARGV[6]), ARGV[5]) == 1 then remember(ARGV[5]) end
same_ttl(LISTENERS)
if ARGV[7] == '1' then
  redis.call('ZADD', TEACHERS, now + tonumber(ARGV[6]), ARGV[5])
  same_ttl(TEACHERS)
end
if redis.call('ZCOUNT', LISTENERS, '-inf', now) > 0 then present(had) end
return 1
""",
    # ARGV[5] the stream's name: it ended.
    "leave": """
if redis.call('EXISTS', META) == 0 then return 0 end
local had = redis.call('ZCARD', TEACHERS)
if redis.call('ZREM', LISTENERS, ARGV[5]) == 1 then forget(ARGV[5]) end
redis.call('ZREM', TEACHERS, ARGV[5])
present(had)
return 1
""",
}

_REFUSALS = {
    "no_room": no_room,
    "not_follower": not_a_follower,
    "not_following": not_following,
    "answered": answered_once,
    "revealed": revealed_already,
}


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


def _event(text: str) -> Event | None:
    """An event as the scripts publish and keep it, or None for anything else."""
    try:
        raw = json.loads(text)
        kind, data = raw["kind"], raw["data"]
        if kind not in _KINDS or not isinstance(data, dict) or type(raw["id"]) is not int:
            return None
        return Event(raw["id"], cast(EventKind, kind), data)
    except (ValueError, KeyError, TypeError):
        return None


def _revealed(flat: Sequence[Any]) -> dict[int, list[int]]:
    """HGETALL's flat [index, counts, ...] as {index: counts}."""
    return {int(flat[i]): [int(c) for c in json.loads(flat[i + 1])] for i in range(0, len(flat), 2)}


def _compact(data: Mapping[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"))


@dataclass(eq=False)
class _Listener:
    queue: asyncio.Queue[Event | None]
    tallies: bool


class _Hub:
    """This process's one pub/sub connection, subscribed to every room's channel; it hands each event to the
    queues of the local listeners of that room, dropping a listener that falls `queue` events behind."""

    def __init__(self, client: aioredis.Redis, pattern: str, queue: int) -> None:
        self.pubsub = client.pubsub()
        self.pattern = pattern
        self.queue = queue
        self.rooms: dict[str, set[_Listener]] = {}
        self.task: asyncio.Task[None] | None = None
        self.alive = True

    async def start(self, timeout_s: float) -> None:
        """Subscribe, and wait until Redis says so: from then on no event of any room passes unseen."""
        await self.pubsub.psubscribe(self.pattern)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise RedisTimeoutError("no answer to PSUBSCRIBE")
            message = await self.pubsub.get_message(timeout=left)
            if message is not None and message["type"] == "psubscribe":
                break
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            while True:
                message = await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=5.0)
                if message is not None and message["type"] == "pmessage":
                    self._dispatch(str(message["channel"]), str(message["data"]))
        except (RedisError, OSError):
            pass  # Redis went away: every local stream ends, and its browser reconnects (and hears a 503)
        finally:
            self.alive = False
            self._end_all()

    def _dispatch(self, channel: str, text: str) -> None:
        listeners = self.rooms.get(channel)
        event = _event(text)
        if not listeners or event is None:
            return
        for listener in list(listeners):
            if event.kind in TEACHER_ONLY and not listener.tallies:
                continue
            if listener.queue.qsize() >= self.queue:
                # A follower this far behind is dropped; its browser reconnects and resumes from the backlog.
                listeners.discard(listener)
                listener.queue.put_nowait(None)
                continue
            listener.queue.put_nowait(event)
        if event.kind == "closed":
            for listener in listeners:
                listener.queue.put_nowait(None)
            del self.rooms[channel]

    def add(self, channel: str, listener: _Listener) -> None:
        self.rooms.setdefault(channel, set()).add(listener)

    def remove(self, channel: str, listener: _Listener) -> None:
        listeners = self.rooms.get(channel)
        if listeners is not None:
            listeners.discard(listener)
            if not listeners:
                del self.rooms[channel]

    def _end_all(self) -> None:
        for listeners in self.rooms.values():
            for listener in listeners:
                listener.queue.put_nowait(None)
        self.rooms.clear()

    async def close(self) -> None:
        self._end_all()
        if self.task is not None:
            self.task.cancel()
            try:
                await self.task
            except (asyncio.CancelledError, Exception):
                pass
        try:
            closer: Any = self.pubsub.aclose  # untyped in redis-py
            await closer()
        except (RedisError, OSError):
            pass


@dataclass(eq=False)
class _Loop:
    """What one event loop uses: its async client, the scripts registered on it, its hub."""

    loop: asyncio.AbstractEventLoop
    client: aioredis.Redis
    scripts: dict[str, AsyncScript]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    hub: _Hub | None = None


POOL_SIZE = 32  # connections to Redis per event loop; a call waits for one, at most the timeout


class RedisRooms:
    """Rooms in the Redis at `url`, shared by every process that uses it with the same `prefix`. `create`,
    `close` and `exists` use a blocking client (the page's script thread); the rest an asyncio one."""

    def __init__(
        self, url: str, limits: Limits | None = None, *, prefix: str = "mcpflow", timeout_s: float = 5.0
    ) -> None:
        self.limits = limits or Limits()
        self.prefix = prefix
        self.timeout_s = timeout_s
        self.address = redis_address(url)
        self._url = url
        self._idle_ms = max(1, int(self.limits.idle_s * 1000))
        try:
            self._sync = redis.Redis.from_url(url, **self._options(Retry(NoBackoff(), 0)))
        except (ValueError, RedisError):
            raise RoomError(
                503,
                f"{self.address}: the rooms' Redis URL is not one redis-py reads (redis://, rediss:// or unix://)",
                f"{self.address}：房间的 Redis 地址无法识别（应为 redis://、rediss:// 或 unix://）",
            ) from None
        self._sync_scripts: dict[str, Script] = {
            name: self._sync.register_script(_PRELUDE + body) for name, body in _SCRIPTS.items()
        }
        self._aio: _Loop | None = None

    def _options(self, retry: Retry | AsyncRetry) -> dict[str, Any]:
        # No retries: a script must not run twice, and a Redis that does not answer is a 503 within the timeout.
        return {
            "decode_responses": True,
            "socket_timeout": self.timeout_s,
            "socket_connect_timeout": self.timeout_s,
            "retry": retry,
            "health_check_interval": 5,
        }

    # ---- names ----

    def _keys(self, code: str) -> list[str]:
        base = f"{self.prefix}:room:{{{code}}}:"
        return [base + part for part in _PARTS] + [f"{self.prefix}:rooms", f"{self.prefix}:rooms:bytes"]

    def _channel(self, code: str) -> str:
        return f"{self.prefix}:room:{{{code}}}:events"

    def _argv(self, code: str, *more: EncodableT) -> list[EncodableT]:
        return [code, self._channel(code), self._idle_ms, self.limits.backlog, *more]

    # ---- errors ----

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Redis's failures as one-line refusals (503), never a traceback, never the URL's password."""
        try:
            yield
        except AuthenticationError:
            raise RoomError(
                503,
                f"the rooms' Redis at {self.address} refused this server's credentials",
                f"房间的 Redis（{self.address}）拒绝了本服务器的凭据",
            ) from None
        except (RedisConnectionError, RedisTimeoutError, OSError, TimeoutError):
            raise RoomError(
                503,
                f"the rooms' Redis at {self.address} does not answer",
                f"房间的 Redis（{self.address}）没有响应",
            ) from None
        except RedisError as exc:
            raise RoomError(
                503,
                f"the rooms' Redis at {self.address} answered with an error ({type(exc).__name__})",
                f"房间的 Redis（{self.address}）返回了错误（{type(exc).__name__}）",
            ) from None

    # ---- the page's side ----

    def _run(self, name: str, code: str, *more: EncodableT) -> Any:
        return self._sync_scripts[name](keys=self._keys(code), args=self._argv(code, *more))

    def create(self, bundles: Mapping[str, str], choices: Mapping[int, int], view: RoomView) -> RoomKeys:
        hops, size = check_bundles(bundles, self.limits.bundle_bytes)
        picked = check_choices(choices, hops)
        code = new_code()
        made = RoomKeys(code=code, key=secrets.token_urlsafe(24), watch=secrets.token_urlsafe(24))
        first = within(view, hops)
        keys = self._keys(code)
        before, after = self._channel(code).split(code)
        with self._guard():
            made_room = self._run("create", code, self.limits.rooms, before, after, size, self.limits.all_bundle_bytes)
            if made_room == "too_many":
                raise too_many_rooms(self.limits.rooms)
            if made_room == "too_much":
                raise too_much_data(self.limits.all_bundle_bytes)
            try:
                pipe = self._sync.pipeline(transaction=True)
                meta: dict[EncodableT, EncodableT] = {
                    "key": made.key,
                    "watch": made.watch,
                    "hops": hops,
                    "choices": _compact({str(i): n for i, n in picked.items()}),
                    "view": _compact(first.to_json()),
                    "last": 0,
                    "round": 1,
                    "digest": bundles_digest(bundles),
                }
                pipe.hset(keys[0], mapping=meta)
                pipe.pexpire(keys[0], self._idle_ms)
                pipe.set(keys[1], bundles["zh"], px=self._idle_ms)
                pipe.set(keys[2], bundles["en"], px=self._idle_ms)
                pipe.execute()
            except BaseException:
                try:
                    self._sync.zrem(keys[-2], code)
                    self._sync.hdel(keys[-1], code)
                except RedisError:
                    pass
                raise
        return made

    def retrace(
        self, code: str, key: str, bundles: Mapping[str, str], choices: Mapping[int, int], view: RoomView
    ) -> int:
        hops, size = check_bundles(bundles, self.limits.bundle_bytes)
        picked = _compact({str(i): n for i, n in check_choices(choices, hops).items()})
        first = within(view, hops)
        if self.take_back(code, key) is None:
            raise no_room() if not self.exists(code) else not_teacher()
        with self._guard():
            got = self._run(
                "retrace",
                code,
                bundles_digest(bundles),
                bundles["zh"],
                bundles["en"],
                hops,
                picked,
                _compact(first.to_json()),
                size,
                self.limits.all_bundle_bytes,
            )
        if got[0] == "no_room":
            raise no_room()
        if got[0] == "too_much":
            raise too_much_data(self.limits.all_bundle_bytes)
        return int(got[1])

    def close(self, code: str, key: str) -> None:
        with self._guard():
            known = self._sync.hget(self._keys(code)[0], "key")
            if known is None:
                return
            if not same_secret(key, str(known)):
                raise not_teacher()
            self._run("close", code)

    def exists(self, code: str) -> bool:
        with self._guard():
            return bool(self._sync.exists(self._keys(code)[0]))

    def lang_of(self, code: str) -> Lang | None:
        with self._guard():
            view = self._sync.hget(self._keys(code)[0], "view")
        return None if view is None else _view(str(view)).lang

    def take_back(self, code: str, key: str) -> tuple[RoomKeys, RoomView] | None:
        with self._guard():
            known, watch, view = self._sync.hmget(self._keys(code)[0], ["key", "watch", "view"])
        if known is None or watch is None or view is None or not same_secret(key, str(known)):
            return None
        return RoomKeys(code=code, key=str(known), watch=str(watch)), _view(str(view))

    # ---- the routes' side ----

    def _state(self) -> _Loop:
        """This event loop's client and scripts (a store used from a second loop makes its own)."""
        loop = asyncio.get_running_loop()
        if self._aio is None or self._aio.loop is not loop:
            # A pool that waits for a free connection (up to the timeout) rather than refusing: two hundred
            # followers joining at once would otherwise find the default pool's hundred connections taken.
            pool = aioredis.BlockingConnectionPool.from_url(
                self._url,
                max_connections=POOL_SIZE,
                timeout=self.timeout_s,
                **self._options(AsyncRetry(NoBackoff(), 0)),
            )
            client = aioredis.Redis(connection_pool=pool)
            scripts = {name: client.register_script(_PRELUDE + body) for name, body in _SCRIPTS.items()}
            self._aio = _Loop(loop, client, scripts)
        return self._aio

    async def _call(self, name: str, code: str, *more: EncodableT) -> Any:
        with self._guard():
            return await self._state().scripts[name](keys=self._keys(code), args=self._argv(code, *more))

    async def _meta(self, code: str, *fields: str) -> list[str]:
        """The room's FIELDS, or no_room()."""
        with self._guard():
            got = await self._state().client.hmget(self._keys(code)[0], list(fields))
        if got[0] is None:
            raise no_room()
        return [str(v) for v in got]

    async def bundle(self, code: str, lang: Lang, round_: int | None = None) -> str:
        keys = self._keys(code)
        with self._guard():
            pipe = self._state().client.pipeline(transaction=True)
            pipe.hget(keys[0], "round")
            pipe.get(keys[1 if lang == "zh" else 2])
            current, text = await pipe.execute()
        if text is None or current is None:
            raise no_room()
        if round_ is not None and round_ != int(current):
            raise other_round(int(current))
        return str(text)

    async def join(self, code: str, token: str | None, *, may_add: bool = True) -> tuple[str, Snapshot]:
        new = secrets.token_urlsafe(16)
        got = await self._call("join", code, token or "", new, self.limits.followers, "1" if may_add else "0")
        if got[0] == "no_room":
            raise no_room()
        if got[0] == "slow":
            raise joining_too_fast(self.limits.client_joins_per_s)
        if got[0] == "full":
            raise room_full(self.limits.followers)
        _, given, view, hops, last, followers, revealed, round_, teachers = got
        snap = Snapshot(
            _view(view),
            int(hops),
            _revealed(revealed),
            int(followers),
            int(last),
            round=int(round_),
            teacher=int(teachers) > 0,
        )
        return str(given), snap

    async def move(self, code: str, key: str, data: Any) -> Event:
        known, hops = await self._meta(code, "key", "hops")
        if not same_secret(key, known):
            raise not_teacher()
        view = view_from(data, int(hops)).to_json()
        rate, burst = self.limits.teacher_events_per_s, self.limits.teacher_burst
        got = await self._call("move", code, rate, burst, _compact(view))
        self._refused(got[0])
        return Event(int(got[1]), "view", {"round": int(got[2]), **view})

    async def reveal(self, code: str, key: str, index: int) -> Event:
        known, choices = await self._meta(code, "key", "choices")
        if not same_secret(key, known):
            raise not_teacher()
        n = json.loads(choices).get(str(index)) if type(index) is int else None
        if n is None:
            raise no_question(index)
        rate, burst = self.limits.teacher_events_per_s, self.limits.teacher_burst
        got = await self._call("reveal", code, rate, burst, index, n)
        self._refused(got[0])
        return Event(int(got[1]), "reveal", {"index": index, "counts": [int(c) for c in json.loads(got[2])]})

    def _refused(self, status: str) -> None:
        if status == "no_room":
            raise no_room()
        if status == "too_fast":
            raise too_fast(self.limits.teacher_events_per_s)

    async def answer(self, code: str, token: str, index: int, choice: int) -> None:
        (choices,) = await self._meta(code, "choices")
        n = int(json.loads(choices).get(str(index), 0)) if type(index) is int else 0
        picked = choice if type(choice) is int and 1 <= choice <= n else 0
        status = await self._call("answer", code, token, index, n, picked)
        if status == "no_question":
            raise no_question(index)
        if status == "bad_choice":
            raise bad_choice(n)
        if status in _REFUSALS:
            raise _REFUSALS[status]()

    async def is_watcher(self, code: str, watch: str) -> bool:
        (known,) = await self._meta(code, "watch")
        return same_secret(watch, known)

    async def _hub(self) -> _Hub:
        """This loop's hub, subscribed (started again if Redis dropped it)."""
        state = self._state()
        async with state.lock:
            if state.hub is None or not state.hub.alive:
                hub = _Hub(state.client, f"{self.prefix}:room:*:events", self.limits.queue)
                with self._guard():
                    try:
                        await hub.start(self.timeout_s)
                    except BaseException:
                        await hub.close()
                        raise
                state.hub = hub
            return state.hub

    async def listen(
        self, code: str, after: int, *, tallies: bool, token: str | None = None, heartbeat_s: float = 15.0
    ) -> Stream:
        hub = await self._hub()
        listener = _Listener(asyncio.Queue(), tallies)
        channel, lid = self._channel(code), secrets.token_hex(8)
        lease_ms = int((2 * heartbeat_s + self.timeout_s + 5) * 1000)
        hub.add(channel, listener)  # before the backlog is read, so nothing published in between is missed
        teacher = "1" if tallies else "0"
        try:
            limit = self.limits.followers + LISTENER_SLACK
            got = await self._call("listen", code, lid, lease_ms, limit, teacher, token or "")
            if got[0] == "no_room":
                raise no_room()
            if got[0] == "full":
                raise room_full(self.limits.followers)
        except BaseException:
            hub.remove(channel, listener)
            raise
        _, view, last_text, backlog, revealed, teacher_here, member = got
        member = str(member)
        last = int(last_text)
        kept = [e for e in (_event(text) for text in backlog) if e is not None]
        missed = [e for e in kept if e.id > after]
        if after and kept and kept[0].id > after + 1:
            # Further behind than the events kept: where the room is now, then the reveals.
            missed = [
                Event(last, "view", json.loads(view)),
                Event(last, "teacher", {"here": teacher_here == "1"}),
            ] + [Event(last, "reveal", {"index": i, "counts": c}) for i, c in sorted(_revealed(revealed).items())]

        async def leave() -> None:
            hub.remove(channel, listener)
            try:
                await asyncio.wait_for(self._call("leave", code, member), self.timeout_s)
            except (RoomError, RuntimeError, TimeoutError):
                pass  # the lease runs out on its own

        events = self._stream(code, listener, member, teacher, lease_ms, missed, max(after, last), heartbeat_s)
        return Stream(events, leave)

    async def _stream(
        self,
        code: str,
        listener: _Listener,
        member: str,
        teacher: str,
        lease_ms: int,
        missed: list[Event],
        seen: int,
        heartbeat_s: float,
    ) -> AsyncGenerator[Event]:
        loop = asyncio.get_running_loop()
        for event in missed:
            yield event
        leased = loop.time()
        while True:
            try:
                got = await asyncio.wait_for(listener.queue.get(), heartbeat_s)
            except TimeoutError:
                try:
                    here = await self._call("lease", code, member, lease_ms, teacher)
                except RoomError:
                    return  # Redis went away: the browser reconnects and hears why
                if not here:
                    yield Event(seen + 1, "closed", {"expired": True})
                    return
                leased = loop.time()
                yield PING
                continue
            if got is None:
                return
            if got.kind == "closed":
                yield Event(max(got.id, seen + 1), "closed", got.data)
                return
            if got.id > seen:
                seen = got.id
                yield got
            if loop.time() - leased >= heartbeat_s:  # a busy stream keeps its lease too
                try:
                    await self._call("lease", code, member, lease_ms, teacher)
                except RoomError:
                    return
                leased = loop.time()

    async def aclose(self) -> None:
        """End every local stream, close the clients."""
        state, self._aio = self._aio, None
        if state is not None:
            if state.hub is not None:
                await state.hub.close()
            try:
                await state.client.aclose()
            except (RedisError, OSError):
                pass
        self._sync.close()


def _view(text: str) -> RoomView:
    data = json.loads(text)
    return RoomView(
        index=int(data["index"]),
        lang=data["lang"],
        quiz=bool(data["quiz"]),
        captions=bool(data["captions"]),
        closing=bool(data.get("closing")),
    )
