"""Classroom rooms: students' screens follow the teacher's viewer, and the class answers its questions.

One store per process (`room_store()`): rooms in memory, or in Redis when the operator sets MCP_FLOW_ROOMS_REDIS
(a redis:// URL), so that several app processes behind one address share them. MCP_FLOW_ROOMS_PER_ADDRESS (a
number) is how many event streams and new followers at once one address may have, for a class behind one
address (a NAT) or a load test; 16 streams and 10 followers otherwise. MCP_FLOW_TRUSTED_PROXIES names the reverse
proxies (addresses or networks) whose X-Forwarded-For / X-Real-IP tell which client a request is for, so that a
class behind the school's nginx is many addresses; unset, no such header is believed. The routes (flow.rooms.web)
are mounted beside Streamlit's by flow_ui/serve.py; `rooms_served()` tells the Step page whether they are.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from flow.rooms.page import qr_svg
from flow.rooms.rules import MemoryRooms, Rooms
from flow.rooms.store import Limits, RoomError, RoomKeys, RoomView
from flow.rooms.web import Proxies
from flow.rooms.web import room_routes as _routes

if TYPE_CHECKING:
    from starlette.routing import BaseRoute

__all__ = [
    "PER_ADDRESS_ENV",
    "PROXIES_ENV",
    "REDIS_ENV",
    "Proxies",
    "Limits",
    "MemoryRooms",
    "RoomError",
    "RoomKeys",
    "RoomView",
    "Rooms",
    "limits_from",
    "proxies_from",
    "qr_svg",
    "room_routes",
    "room_store",
    "rooms_served",
]

REDIS_ENV = "MCP_FLOW_ROOMS_REDIS"
PER_ADDRESS_ENV = "MCP_FLOW_ROOMS_PER_ADDRESS"
PROXIES_ENV = "MCP_FLOW_TRUSTED_PROXIES"

_store: Rooms | None = None
_lock = threading.Lock()
_served = False


def limits_from(environ: Mapping[str, str]) -> Limits:
    """The rooms' limits, with the operator's number per address (ASCII digits, 1 to 100,000) if one is set; any
    other value leaves the defaults."""
    raw = environ.get(PER_ADDRESS_ENV, "").strip()
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 6 and 1 <= int(raw) <= 100_000):
        return Limits()
    return replace(Limits(), client_streams=int(raw), client_join_burst=int(raw))


def proxies_from(environ: Mapping[str, str]) -> Proxies:
    """The reverse proxies the operator trusts (MCP_FLOW_TRUSTED_PROXIES); none when it is unset."""
    return Proxies.parse(environ.get(PROXIES_ENV, ""))


def room_store() -> Rooms:
    """This process's store, made on first use from the operator's environment."""
    global _store
    with _lock:
        if _store is None:
            url = os.environ.get(REDIS_ENV, "").strip()
            limits = limits_from(os.environ)
            if url:
                from flow.rooms.redis_store import RedisRooms

                _store = RedisRooms(url, limits)
            else:
                _store = MemoryRooms(limits)
        return _store


def room_routes() -> list[BaseRoute]:
    """The rooms' routes for `st.App(..., routes=...)`; from then on `rooms_served()` is true in this process."""
    global _served
    _served = True
    return _routes(room_store, proxies=proxies_from(os.environ))


def rooms_served() -> bool:
    return _served
