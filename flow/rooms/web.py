"""The rooms' HTTP routes, mounted beside Streamlit's own (flow_ui/serve.py: `st.App("app.py", routes=room_routes())`).

    GET  /room/{code}                 the follower page (the viewer, read-only to the room)
    GET  /room/{code}/bundle/{lang}   the trace's viewer bundle in that language (?round=N: of that round, else 409)
    POST /room/{code}/join            {"token"?} -> {"token", "snapshot"}; a token is how a follower answers
    GET  /room/{code}/events          Server-Sent Events after ?after=N (or Last-Event-ID): the teacher's with
                                      ?watch=KEY (it hears the tallies), else a follower's screen with ?token=T
                                      (a follower answers while it is open)
    POST /room/{code}/view            the teacher's view (header X-Room-Key)
    POST /room/{code}/reveal          {"index"} (header X-Room-Key)
    POST /room/{code}/answer          {"token", "index", "choice"}

They are one Starlette application mounted at /room, whose exception handlers answer a refusal (`RoomError`): JSON
{"error", "error_zh"} with its status, or on the follower page a page with the same line. A body is read up to
4 KiB, nested at most 8 deep. Each event stream (its events written by sse-starlette's `ServerSentEvent`, sent as
Starlette's streaming response) holds an open file for as long as it
lasts, so this process serves at most `Limits.streams` of them (never more than half its open-file limit) and
`Limits.client_streams` from one client; a client adds a new follower to a room at the rate `Limits.client_join*`
allows. A client is the remote address the ASGI scope gives, or, when that is a reverse proxy the operator trusts
(`Proxies`, MCP_FLOW_TRUSTED_PROXIES), the address that proxy appended to X-Forwarded-For: a school's nginx passes
each student's device on as its own client. Nothing a visitor sends names a file, a program or an address: the
code picks a room in the store, nothing else.
"""

from __future__ import annotations

import ipaddress
import json
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from sse_starlette import ServerSentEvent
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import Receive, Scope, Send

from flow.rooms.events import Event, Ping
from flow.rooms.page import follower_html, missing_html
from flow.rooms.rules import Rooms, Stream
from flow.rooms.store import LANGS, Bucket, Limits, RoomError, valid_code

MAX_BODY = 4096
MAX_DEPTH = 8  # a room's bodies are flat objects; json's own recursion would fail at ~1,000 brackets with a 500
CLIENTS_KEPT = 4096  # the join rates remembered, the least recently seen client forgotten first

_NO_STORE = {"Cache-Control": "no-store"}


def _depth(data: bytes) -> int:
    """How deep a JSON text nests arrays and objects (brackets inside strings do not count)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        elif byte in b"]}":
            depth -= 1
    return deepest


async def _body(request: Request) -> Any:
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise RoomError("body_too_large", limit=MAX_BODY)
    if _depth(data) > MAX_DEPTH:
        raise RoomError("body_too_deep", limit=MAX_DEPTH)
    try:
        return json.loads(data or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise RoomError("body_not_json") from None


def _fields(data: Any) -> dict[str, Any]:
    """A body's fields; a body that is not an object has none."""
    return data if isinstance(data, dict) else {}


def _code(request: Request) -> str:
    # Codes are lower case; one read off a screen and typed in capitals is the same room.
    code = str(request.path_params["code"]).lower()
    if not valid_code(code):
        raise RoomError("no_room")
    return code


def _count(raw: str, digits: int) -> int | None:
    """A number a visitor wrote in a URL or a header: ASCII digits only (str.isdigit takes '²' too, which int()
    refuses), at most `digits` of them; None otherwise."""
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= digits else None


def _int(value: Any, name: str) -> int:
    if type(value) is not int:
        raise RoomError("not_whole_number", name=name)
    return value


def _token(value: Any) -> str:
    if not isinstance(value, str) or not 8 <= len(value) <= 64:
        raise RoomError("bad_token")
    return value


def _key(request: Request) -> str:
    return request.headers.get("x-room-key", "")[:64]


def _address(text: str) -> str | None:
    """An IP address as one text whatever way it was written (an IPv4 address mapped into IPv6 as IPv4), or None
    when `text` is not one."""
    try:
        ip = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return str(mapped or ip)


@dataclass(frozen=True)
class Proxies:
    """The reverse proxies the operator trusts to say whom they pass a request for (MCP_FLOW_TRUSTED_PROXIES):
    addresses or networks. None unless the operator names them: then no forwarding header is read."""

    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Proxies:
        """Addresses or networks separated by commas or spaces; what is neither is left out (trusting less)."""
        networks = []
        for part in text.replace(",", " ").split():
            try:
                networks.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                continue
        return cls(tuple(networks))

    def trusts(self, address: str) -> bool:
        ip = _address(address)
        return ip is not None and any(ipaddress.ip_address(ip) in net for net in self.networks)


NO_PROXIES = Proxies()


def client_address(peer: str, forwarded_for: list[str], real_ip: str | None, proxies: Proxies) -> str:
    """Who asks, for the budgets of one client: the socket's `peer`; or, when the peer is a proxy the operator
    trusts, the client it names. X-Forwarded-For is read from the right: each proxy appends the address it had the
    request from, and whatever is left of the first address no trusted proxy wrote came from the client, who may
    write anything there. Without that header, X-Real-IP; with neither (or a hop that is no address), the peer."""
    if not proxies.trusts(peer):
        return peer
    hops = [hop for value in forwarded_for for hop in value.split(",")]
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            return peer
        if not proxies.trusts(address):
            return address
    if hops:
        return _address(hops[0]) or peer  # every hop a trusted proxy: the first of them asked
    return _address(real_ip or "") or peer


def _client(request: Request) -> str:
    """Who asks: `client_address` of the remote address the ASGI scope gives ('' when the server gives none)."""
    peer = request.client.host if request.client is not None else ""
    proxies = _served(request).proxies
    headers = request.headers
    return client_address(peer, headers.getlist("x-forwarded-for"), headers.get("x-real-ip"), proxies)


def open_files_limit() -> int | None:
    """This process's soft limit on open files, or None where there is none to read (Windows) or it is unlimited."""
    try:
        import resource
    except ImportError:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY or soft <= 0 else int(soft)


def stream_limit(limits: Limits, files: int | None) -> int:
    """The event streams this process serves at once: the configured number, and at most half its open files
    (the other half for Streamlit's own connections, the requests that come and go, Redis, the files it reads)."""
    return limits.streams if files is None else max(1, min(limits.streams, files // 2))


class Gate:
    """Places for event streams: `total` in this process, `per_client` from one address. Thread-safe (a test or an
    app may serve from more than one event loop)."""

    def __init__(self, total: int, per_client: int) -> None:
        self.total, self.per_client = total, per_client
        self.open = 0
        self.by_client: dict[str, int] = {}
        self._lock = threading.Lock()

    def enter(self, client: str) -> None:
        with self._lock:
            mine = self.by_client.get(client, 0)
            if mine >= self.per_client:
                raise RoomError("streams_from_address", limit=self.per_client)
            if self.open >= self.total:
                raise RoomError("streams_in_all", limit=self.total)
            self.open += 1
            self.by_client[client] = mine + 1

    def leave(self, client: str) -> None:
        with self._lock:
            self.open -= 1
            left = self.by_client.get(client, 0) - 1
            if left > 0:
                self.by_client[client] = left
            else:
                self.by_client.pop(client, None)


class JoinRates:
    """A token bucket per client for adding followers; the least recently seen clients are forgotten beyond
    CLIENTS_KEPT (a forgotten client starts again with a full bucket, which is no more than a new address gets)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = limits.client_joins_per_s, limits.client_join_burst, clock
        self.buckets: OrderedDict[str, Bucket] = OrderedDict()
        self._lock = threading.Lock()

    def _bucket(self, client: str) -> Bucket:
        bucket = self.buckets.pop(client, None) or Bucket(self.burst, self.clock())
        self.buckets[client] = bucket
        while len(self.buckets) > CLIENTS_KEPT:
            self.buckets.popitem(last=False)
        return bucket

    def take(self, client: str) -> bool:
        with self._lock:
            taken = self._bucket(client).take(self.clock(), self.rate, self.burst)
            if taken is not None:
                self.buckets[client] = taken
            return taken is not None

    def give_back(self, client: str) -> None:
        with self._lock:
            self.buckets[client] = self._bucket(client).give_back(self.burst)


class Served:
    """What the routes share: the store, read through `store()` on first use (so importing flow_ui/serve.py
    connects nothing), the places for event streams and the join rates, made with the store's limits."""

    def __init__(self, store: Callable[[], Rooms], open_files: int | None, proxies: Proxies) -> None:
        self.store, self.files, self.proxies = store, open_files, proxies
        self._lock = threading.Lock()

    @cached_property
    def gate(self) -> Gate:
        with self._lock:
            limits = self.store().limits
            return Gate(stream_limit(limits, self.files), limits.client_streams)

    @cached_property
    def joins(self) -> JoinRates:
        with self._lock:
            return JoinRates(self.store().limits)


def _served(request: Request) -> Served:
    served: Served = request.app.state.rooms
    return served


def _event(event: Event) -> bytes:
    if isinstance(event.body, Ping):
        return ServerSentEvent(comment="ping", sep="\n").encode()
    return ServerSentEvent(event.data_json, event=event.kind, id=str(event.id), sep="\n").encode()


# X-Accel-Buffering: a reverse proxy (nginx, deploy/nginx.conf) passes each event on as it comes.
_STREAM_HEADERS = {**_NO_STORE, "X-Accel-Buffering": "no"}


class _EventStream(StreamingResponse):
    """An event stream that gives its place back (to the gate and to the store) however the response ends: done,
    cancelled by the client leaving, or refused before its first byte.

    sse-starlette writes each event; Starlette's own streaming response sends them. sse-starlette's
    EventSourceResponse would add a task group of three tasks to every open stream (its sender, a shutdown listener
    and a disconnect listener: twice the memory per follower in the room benchmark) for what the store's heartbeat
    (a ping comment) and the server's closing of the connection already do here."""

    def __init__(self, stream: Stream, release: Callable[[], None]) -> None:
        self.stream, self.release = stream, release

        async def body() -> AsyncIterator[bytes]:
            # A dropped stream comes back within a second, from where it was.
            yield ServerSentEvent(retry=1000, sep="\n").encode()
            async for event in stream:
                yield _event(event)

        super().__init__(body(), media_type="text/event-stream", headers=_STREAM_HEADERS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            try:
                await self.stream.aclose()
            finally:
                self.release()


async def page(request: Request) -> Response:
    code = _code(request)
    lang = await _served(request).store().page_lang(code)
    if lang is None:
        raise RoomError("no_room")
    return HTMLResponse(follower_html(code, lang), headers=_NO_STORE)


async def bundle(request: Request) -> Response:
    lang = request.path_params["lang"]
    if lang not in LANGS:
        raise RoomError("no_bundle_lang")
    round_ = _count(request.query_params.get("round", ""), 8)
    text = await _served(request).store().bundle(_code(request), lang, round_)
    # A round's bundle never changes, so the browser may keep it; without a round, it is whatever is current.
    cache = "private, max-age=3600" if round_ is not None else "no-store"
    return Response(text, media_type="application/json", headers={"Cache-Control": cache})


async def join(request: Request) -> Response:
    served, code = _served(request), _code(request)
    given = _fields(await _body(request)).get("token")
    given = _token(given) if given is not None else None
    client = _client(request)
    may_add = served.joins.take(client)
    token, snap = await served.store().join(code, given, may_add=may_add)
    if may_add and token == given:
        served.joins.give_back(client)  # a follower coming back (a reload) adds no one
    return JSONResponse({"token": token, "snapshot": snap.to_json()}, headers=_NO_STORE)


async def events(request: Request) -> Response:
    served, code = _served(request), _code(request)
    raw = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
    after = _count(raw, 11) or 0
    watch = request.query_params.get("watch", "")[:64]
    token = request.query_params.get("token", "")[:64] or None
    client, store = _client(request), served.store()
    served.gate.enter(client)
    try:
        tallies = bool(watch) and await store.is_watcher(code, watch)
        stream = await store.listen(code, after, tallies=tallies, token=token)
    except BaseException:
        served.gate.leave(client)
        raise
    return _EventStream(stream, lambda: served.gate.leave(client))


async def view(request: Request) -> Response:
    event = await _served(request).store().move(_code(request), _key(request), await _body(request))
    return JSONResponse({"id": event.id}, headers=_NO_STORE)


async def reveal(request: Request) -> Response:
    index = _int(_fields(await _body(request)).get("index"), "index")
    event = await _served(request).store().reveal(_code(request), _key(request), index)
    return JSONResponse({"id": event.id}, headers=_NO_STORE)


async def answer(request: Request) -> Response:
    data = await _body(request)
    if not isinstance(data, dict):
        raise RoomError("bad_answer")
    token, index, choice = (
        _token(data.get("token")),
        _int(data.get("index"), "index"),
        _int(data.get("choice"), "choice"),
    )
    await _served(request).store().answer(_code(request), token, index, choice)
    return Response(status_code=204, headers=_NO_STORE)


def _missing_page(exc: RoomError) -> Response:
    return HTMLResponse(missing_html(exc), status_code=exc.status, headers=_NO_STORE)


async def nowhere(request: Request) -> Response:
    """/room with no code: no room (not the app's pages under a "page not found")."""
    return _missing_page(RoomError("no_room"))


async def _not_here(request: Request, exc: Exception) -> Response:
    """No route under /room: no room; another method on a route gets Starlette's own answer."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return _missing_page(RoomError("no_room"))
    return Response(exc.detail, status_code=exc.status_code, headers=exc.headers)


async def refused(request: Request, exc: Exception) -> Response:
    """A refusal: on the follower page a page, elsewhere JSON, with its one line in both languages."""
    assert isinstance(exc, RoomError)
    if request.scope.get("endpoint") is page:
        return _missing_page(exc)
    return JSONResponse(exc.to_json(), status_code=exc.status, headers=_NO_STORE)


def room_routes(
    store: Callable[[], Rooms], *, open_files: int | None = None, proxies: Proxies = NO_PROXIES
) -> list[BaseRoute]:
    """The routes, reading the store through `store()`. The streams' limit follows `open_files` (this process's
    own limit when not given); a client is told by its address, or by what `proxies` say of it."""
    rooms = Starlette(
        routes=[
            Route("/{code}", page, methods=["GET"]),
            Route("/{code}/bundle/{lang}", bundle, methods=["GET"]),
            Route("/{code}/join", join, methods=["POST"]),
            Route("/{code}/events", events, methods=["GET"]),
            Route("/{code}/view", view, methods=["POST"]),
            Route("/{code}/reveal", reveal, methods=["POST"]),
            Route("/{code}/answer", answer, methods=["POST"]),
        ],
        exception_handlers={RoomError: refused, HTTPException: _not_here},
    )
    rooms.state.rooms = Served(store, open_files if open_files is not None else open_files_limit(), proxies)
    return [Route("/room", nowhere, methods=["GET"]), Mount("/room", app=rooms)]
