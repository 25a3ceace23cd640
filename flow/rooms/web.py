"""The rooms' HTTP routes, mounted beside Streamlit's own (serve.py: `st.App("app.py", routes=room_routes())`).

    GET  /room/{code}                 the follower page (the viewer, read-only to the room)
    GET  /room/{code}/bundle/{lang}   the trace's viewer bundle in that language (?round=N: of that round, else 409)
    POST /room/{code}/join            {"token"?} -> {"token", "snapshot"}; a token is how a follower answers
    GET  /room/{code}/events          Server-Sent Events after ?after=N (or Last-Event-ID); ?watch=KEY adds tallies
    POST /room/{code}/view            the teacher's view (header X-Room-Key)
    POST /room/{code}/reveal          {"index"} (header X-Room-Key)
    POST /room/{code}/answer          {"token", "index", "choice"}

A refusal is JSON {"error", "error_zh"} with its status; a body is read up to 4 KiB. Nothing a visitor sends
names a file, a program or an address: the code picks a room in the store, nothing else.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from flow.rooms.page import follower_html, missing_html
from flow.rooms.store import LANGS, RoomError, RoomStore, no_room, valid_code

MAX_BODY = 4096

_NO_STORE = {"Cache-Control": "no-store"}


def _refused(exc: RoomError) -> JSONResponse:
    return JSONResponse(exc.to_json(), status_code=exc.status, headers=_NO_STORE)


async def _body(request: Request) -> Any:
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise RoomError(
                413, f"a request to a room is at most {MAX_BODY} bytes", f"发给房间的请求最多 {MAX_BODY} 字节"
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


Handler = Callable[[Request], Awaitable[Response]]


def room_routes(store: Callable[[], RoomStore]) -> list[Route]:
    """The routes, reading the store through `store()` (made on first use, so importing serve.py connects nothing)."""

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
        # exists() is the page's (blocking) call: a thread keeps a slow Redis off the event loop.
        if not await anyio.to_thread.run_sync(store().exists, code):
            raise no_room()
        return HTMLResponse(follower_html(code), headers=_NO_STORE)

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
        token, snap = await store().join(code, _token(given) if given is not None else None)
        return JSONResponse({"token": token, "snapshot": snap.to_json()}, headers=_NO_STORE)

    async def events(request: Request) -> Response:
        code = _code(request)
        raw = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
        after = _count(raw, 11) or 0
        watch = request.query_params.get("watch", "")[:64]
        tallies = bool(watch) and await store().is_watcher(code, watch)
        stream = await store().listen(code, after, tallies=tallies)

        async def body() -> AsyncIterator[str]:
            yield "retry: 1000\n\n"  # a dropped stream comes back within a second, from where it was
            async for event in stream:
                yield event.sse()

        return StreamingResponse(
            body(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

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
