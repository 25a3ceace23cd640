"""The Step page's room: "Present to a room" makes one for the trace on screen, its link and QR code go to the
teacher's viewer, which from then on posts where it is (flow's viewer, room.mjs); closing it ends it for everyone.
The room shows what the teacher's page shows: another trace on the page is a new round of the same room. A page
that reloaded takes its room back when its viewer hands over the room's code and key (kept in that browser tab).
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

import streamlit as st

import flow
from flow_ui.state import AppState, Loaded

_LOOPBACK = {"127.0.0.1", "localhost", "::1", ""}


@dataclass(frozen=True)
class Presenting:
    """The room this session presents: its keys, the trace it shows, what students open."""

    keys: flow.RoomKeys
    trace_key: str
    link: str
    qr: str
    lan: bool


def _lan_address() -> str | None:
    """This machine's address on its network, read from the route a UDP socket would take (nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            address = str(s.getsockname()[0])
        except OSError:
            return None
    return None if address.startswith("127.") else address


def join_base() -> tuple[str, bool]:
    """Where students open rooms (scheme://host:port) and whether other machines can reach it at all."""
    bound = str(st.get_option("server.address") or "")
    port = int(st.get_option("server.port") or 8501)
    seen = urlsplit(st.context.url or "")
    lan = bound not in _LOOPBACK
    host = seen.hostname or "localhost"
    if lan and (host in _LOOPBACK or host.startswith("127.")):
        host = _lan_address() or host
    scheme = seen.scheme or "http"
    return f"{scheme}://{host}:{seen.port or port}", lan


def _choices(item: Loaded, found: dict[int, Any]) -> dict[int, int]:
    """The questions by hop index, each with its number of choices."""
    index_of = {hop.seq: i for i, hop in enumerate(item.trace.hops)}
    return {index_of[seq]: len(q.choices) for seq, q in found.items() if seq in index_of}


def _view(app: AppState) -> flow.RoomView:
    return flow.RoomView(index=app.index, lang=app.lang, quiz=app.quiz, captions=app.captions)


def _presenting(keys: flow.RoomKeys, item: Loaded) -> Presenting:
    base, lan = join_base()
    link = f"{base}/room/{keys.code}"
    return Presenting(keys=keys, trace_key=item.key, link=link, qr=flow.qr_svg(link), lan=lan)


def present(app: AppState, item: Loaded, bundles: dict[str, str], found: dict[int, Any]) -> None:
    """Open a room for `item` (closing this session's earlier one); raises flow.RoomError with one line."""
    close(app)
    keys = flow.room_store().create(bundles, _choices(item, found), _view(app))
    app.room = _presenting(keys, item)


def follow_page(
    app: AppState, room: Presenting, item: Loaded, bundles: dict[str, str], found: dict[int, Any]
) -> Presenting:
    """The page shows another trace than the room: the room follows it (a new round; the same link); returns the
    room as it is now. Raises flow.RoomError with one line (the new trace too big for a room, say); the room keeps
    the old one then."""
    if room.trace_key != item.key:
        flow.room_store().retrace(room.keys.code, room.keys.key, bundles, _choices(item, found), _view(app))
        app.room = room = replace(room, trace_key=item.key)
    return room


def reclaim(
    app: AppState, given: Any, item: Loaded, bundles: dict[str, str], found: dict[int, Any]
) -> flow.RoomView | None:
    """Take back the room a reloaded page's viewer remembers ({code, key}), if it is still open and the key is its
    teacher's: the page takes the lesson toggles the class last saw, and the room shows this page's trace.
    Returns that view (for the page's toggles), or None when there is nothing to take back."""
    if app.room is not None or not isinstance(given, dict):
        return None
    code, key = given.get("code"), given.get("key")
    if not (isinstance(code, str) and isinstance(key, str) and len(code) < 64 and len(key) < 128):
        return None
    store = flow.room_store()
    found_room = store.take_back(code, key)
    if found_room is None:
        return None
    keys, view = found_room
    app.quiz, app.captions = view.quiz, view.captions
    store.retrace(code, key, bundles, _choices(item, found), _view(app))
    app.room = _presenting(keys, item)
    return view


def close(app: AppState) -> None:
    room = app.room
    app.room = None
    if isinstance(room, Presenting):
        try:
            flow.room_store().close(room.keys.code, room.keys.key)
        except flow.RoomError:
            pass  # gone already


def live(app: AppState) -> Presenting | None:
    """This session's room if the store still has it (a room idle two hours expires)."""
    room = app.room
    if isinstance(room, Presenting) and flow.room_store().exists(room.keys.code):
        return room
    app.room = None
    return None


def viewer_room(room: Presenting | None, item: Loaded) -> dict[str, Any] | None:
    """What the teacher's viewer needs to post its view and hear the tallies; None when the room shows another trace."""
    if room is None or room.trace_key != item.key:
        return None
    k = room.keys
    return {
        "role": "teacher",
        "code": k.code,
        "key": k.key,
        "watch": k.watch,
        "link": room.link,
        "qr": room.qr,
        "lan": room.lan,
    }
