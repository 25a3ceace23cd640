"""The Step page's room: "Present to a room" makes one for the trace on screen, its link and QR code go to the
teacher's viewer, which from then on posts where it is (flow's viewer, room.js); closing it ends it for everyone.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import streamlit as st

import flow
from ui.state import AppState, Loaded

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


def present(app: AppState, item: Loaded, bundles: dict[str, str], found: dict[int, Any]) -> None:
    """Open a room for `item` (closing this session's earlier one); raises flow.RoomError with one line."""
    close(app)
    index_of = {hop.seq: i for i, hop in enumerate(item.trace.hops)}
    choices = {index_of[seq]: len(q.choices) for seq, q in found.items() if seq in index_of}
    view = flow.RoomView(index=app.index, lang=app.lang, quiz=app.quiz, captions=app.captions)
    keys = flow.room_store().create(bundles, choices, view)
    base, lan = join_base()
    link = f"{base}/room/{keys.code}"
    app.room = Presenting(keys=keys, trace_key=item.key, link=link, qr=flow.qr_svg(link), lan=lan)


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
    return {"role": "teacher", "code": k.code, "key": k.key, "watch": k.watch, "link": room.link, "qr": room.qr}
