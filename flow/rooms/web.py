"""The rooms' HTTP routes, mounted beside Streamlit's own (flow_ui/serve.py: `st.App("app.py", routes=room_routes())`).

    GET  /room/{code}                 the follower page (the viewer, read-only to the room)
    GET  /room/{code}/bundle/{lang}   the trace's viewer bundle in that language (?round=N: of that round, else 409)
    POST /room/{code}/join            {"token"?} -> {"token", "snapshot"}; a token is how a follower answers
    GET  /room/{code}/events          Server-Sent Events after ?after=N (or Last-Event-ID); ?watch=KEY adds tallies,
                                      ?token=T makes it that follower's screen (a follower answers while it is open)
    POST /room/{code}/view            the teacher's view (header X-Room-Key)
    POST /room/{code}/reveal          {"index"} (header X-Room-Key)
    POST /room/{code}/answer          {"token", "index", "choice"}

A refusal is JSON {"error", "error_zh"} with its status; a body is read up to 4 KiB, nested at most 8 deep. Each
event stream holds an open file for as long as it lasts, so this process serves at most `Limits.streams` of them
(never more than half its open-file limit) and `Limits.client_streams` from one client; a client (the remote address
the ASGI scope gives) adds a new follower to a room at the rate `Limits.client_join*` allows. Nothing a visitor
sends names a file, a program or an address: the code picks a room in the store, nothing else.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from flow.rooms.page import follower_html, missing_html
from flow.rooms.store import LANGS, Bucket, Limits, RoomError, RoomStore, Stream, no_room, valid_code

MAX_BODY = 4096
MAX_DEPTH = 8  # a room's bodies are flat objects; json's own recursion would fail at ~1,000 brackets with a 500
CLIENTS_KEPT = 4096  # the join rates remembered, the least recently seen client forgotten first

_NO_STORE = {"Cache-Control": "no-store"}


def _refused(exc: RoomError) -> JSONResponse:
    return JSONResponse(exc.to_json(), status_code=exc.status, headers=_NO_STORE)


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
            raise RoomError(
                413, f"a request to a room is at most {MAX_BODY} bytes", f"发给房间的请求最多 {MAX_BODY} 字节"
            )
    if _depth(data) > MAX_DEPTH:
        raise RoomError(
            400,
            f"the request body nests deeper than {MAX_DEPTH} levels: a room's requests are flat JSON objects",
            f"请求内容嵌套超过 {MAX_DEPTH} 层：发给房间的请求是扁平的 JSON 对象",
        )
    try:
        return json.loads(data or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise RoomError(400, "the request body is not JSON", "请求内容不是 JSON") from None


def _code(request: Request) -> str:
    # Codes are lower case; one read off a screen and typed in capitals is the same room.
    code = str(request.path_params["code"]).lower()
    if not valid_code(code):
        raise no_room()
    return code


def _count(raw: str, digits: int) -> int | None:
    """A number a visitor wrote in a URL or a header: ASCII digits only (str.isdigit takes '²' too, which int()
    refuses), at most `digits` of them; None otherwise."""
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= digits else None


def _int(value: Any, name: str) -> int:
    if type(value) is not int:
        raise RoomError(400, f"{name} is a whole number", f"{name} 应为整数")
    return value


def _token(value: Any) -> str:
    if not isinstance(value, str) or not 8 <= len(value) <= 64:
        raise RoomError(400, "token is the string the room gave at join", "token 应为加入房间时得到的字符串")
    return value


def _key(request: Request) -> str:
    return request.headers.get("x-room-key", "")[:64]


def _client(request: Request) -> str:
    """Who asks: the remote address as the ASGI scope gives it ('' when the server gives none)."""
    return request.client.host if request.client is not None else ""


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
                raise RoomError(
                    429,
                    f"too many event streams from this address ({self.per_client}): close a room's tab or two",
                    f"来自这个地址的事件流太多（{self.per_client} 个）：请关闭一两个房间标签页",
                )
            if self.open >= self.total:
                raise RoomError(
                    503,
                    f"this server follows as many screens as it can ({self.total}); try again in a moment",
                    f"本服务器跟随的屏幕已达上限（{self.total} 个）；请稍后再试",
                )
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
        self.limits, self.clock = limits, clock
        self.buckets: OrderedDict[str, Bucket] = OrderedDict()
        self._lock = threading.Lock()

    def _bucket(self, client: str) -> Bucket:
        bucket = self.buckets.get(client)
        if bucket is None:
            bucket = Bucket(self.limits.client_joins_per_s, self.limits.client_join_burst, self.clock)
            self.buckets[client] = bucket
            while len(self.buckets) > CLIENTS_KEPT:
                self.buckets.popitem(last=False)
        self.buckets.move_to_end(client)
        return bucket

    def take(self, client: str) -> bool:
        with self._lock:
            return self._bucket(client).take()

    def give_back(self, client: str) -> None:
        with self._lock:
            self._bucket(client).give_back()


class _EventStream(StreamingResponse):
    """An event stream that gives its place back (to the gate and to the store) however the response ends: done,
    cancelled by the client leaving, or refused before its first byte."""

    def __init__(self, stream: Stream, release: Callable[[], None]) -> None:
        self.stream, self.release = stream, release

        async def body() -> AsyncIterator[str]:
            yield "retry: 1000\n\n"  # a dropped stream comes back within a second, from where it was
            async for event in stream:
                yield event.sse()

        super().__init__(
            body(), media_type="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            try:
                await self.stream.aclose()
            finally:
                self.release()


Handler = Callable[[Request], Awaitable[Response]]


def room_routes(store: Callable[[], RoomStore], *, open_files: int | None = None) -> list[Route]:
    """The routes, reading the store through `store()` (made on first use, so importing flow_ui/serve.py connects nothing).
    The streams' limit follows `open_files` (this process's own limit when not given)."""
    files = open_files if open_files is not None else open_files_limit()
    made: dict[str, Any] = {}  # the gate and the join rates, made with the store's limits on first use
    made_lock = threading.Lock()

    def gate() -> Gate:
        with made_lock:
            if "gate" not in made:
                limits = store().limits
                made["gate"] = Gate(stream_limit(limits, files), limits.client_streams)
            return made["gate"]  # type: ignore[no-any-return]

    def joins() -> JoinRates:
        with made_lock:
            if "joins" not in made:
                made["joins"] = JoinRates(store().limits)
            return made["joins"]  # type: ignore[no-any-return]

    def guarded(handler: Handler) -> Handler:
        async def run(request: Request) -> Response:
            try:
                return await handler(request)
            except RoomError as exc:
                if request.method == "GET" and handler is page:
                    return HTMLResponse(missing_html(exc), status_code=exc.status, headers=_NO_STORE)
                return _refused(exc)

        return run

    async def page(request: Request) -> Response:
        code = _code(request)
        # lang_of() is the page's (blocking) call: a thread keeps a slow Redis off the event loop.
        lang = await anyio.to_thread.run_sync(store().lang_of, code)
        if lang is None:
            raise no_room()
        return HTMLResponse(follower_html(code, lang), headers=_NO_STORE)

    async def bundle(request: Request) -> Response:
        lang = request.path_params["lang"]
        if lang not in LANGS:
            raise RoomError(404, "a bundle is zh or en", "只有 zh 或 en 两种")
        raw = request.query_params.get("round", "")
        round_ = _count(raw, 8)
        text = await store().bundle(_code(request), lang, round_)
        # A round's bundle never changes, so the browser may keep it; without a round, it is whatever is current.
        cache = "private, max-age=3600" if round_ is not None else "no-store"
        return Response(text, media_type="application/json", headers={"Cache-Control": cache})

    async def join(request: Request) -> Response:
        code = _code(request)
        data = await _body(request)
        given = data.get("token") if isinstance(data, dict) else None
        given = _token(given) if given is not None else None
        client = _client(request)
        may_add = joins().take(client)
        token, snap = await store().join(code, given, may_add=may_add)
        if may_add and token == given:
            joins().give_back(client)  # a follower coming back (a reload) adds no one
        return JSONResponse({"token": token, "snapshot": snap.to_json()}, headers=_NO_STORE)

    async def events(request: Request) -> Response:
        code = _code(request)
        raw = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
        after = _count(raw, 11) or 0
        watch = request.query_params.get("watch", "")[:64]
        token = request.query_params.get("token", "")[:64] or None
        client = _client(request)
        gate().enter(client)
        try:
            tallies = bool(watch) and await store().is_watcher(code, watch)
            stream = await store().listen(code, after, tallies=tallies, token=token)
        except BaseException:
            gate().leave(client)
            raise
        return _EventStream(stream, lambda: gate().leave(client))

    async def view(request: Request) -> Response:
        event = await store().move(_code(request), _key(request), await _body(request))
        return JSONResponse({"id": event.id}, headers=_NO_STORE)

    async def reveal(request: Request) -> Response:
        data = await _body(request)
        index = _int(data.get("index") if isinstance(data, dict) else None, "index")
        event = await store().reveal(_code(request), _key(request), index)
        return JSONResponse({"id": event.id}, headers=_NO_STORE)

    async def answer(request: Request) -> Response:
        data = await _body(request)
        if not isinstance(data, dict):
            raise RoomError(400, "an answer is {token, index, choice}", "回答应为 {token, index, choice}")
        await store().answer(
            _code(request),
            _token(data.get("token")),
            _int(data.get("index"), "index"),
            _int(data.get("choice"), "choice"),
        )
        return Response(status_code=204, headers=_NO_STORE)

    async def nowhere(request: Request) -> Response:
        exc = no_room()
        return HTMLResponse(missing_html(exc), status_code=exc.status, headers=_NO_STORE)

    return [
        # /room with no code is no room (not the app's own pages under a "page not found").
        Route("/room", nowhere, methods=["GET"]),
        Route("/room/", nowhere, methods=["GET"]),
        Route("/room/{code}", guarded(page), methods=["GET"]),
        Route("/room/{code}/bundle/{lang}", guarded(bundle), methods=["GET"]),
        Route("/room/{code}/join", guarded(join), methods=["POST"]),
        Route("/room/{code}/events", guarded(events), methods=["GET"]),
        Route("/room/{code}/view", guarded(view), methods=["POST"]),
        Route("/room/{code}/reveal", guarded(reveal), methods=["POST"]),
        Route("/room/{code}/answer", guarded(answer), methods=["POST"]),
    ]
