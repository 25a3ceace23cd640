"""Classroom rooms: students' screens follow the teacher's viewer, and the class answers its questions.

One store per process (`room_store()`): rooms in memory, or in Redis when the operator sets MCP_FLOW_ROOMS_REDIS
(a redis:// URL), so that several app processes behind one address share them. MCP_FLOW_ROOMS_PER_ADDRESS (a
number) is how many event streams and new followers at once one address may have, for a class behind one
address (a proxy, a NAT) or a load test; 16 streams and 10 followers otherwise. The routes (flow.rooms.web) are
mounted beside Streamlit's by flow_ui/serve.py; `rooms_served()` tells the Step page whether they are.
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
from flow.rooms.web import room_routes as _routes

if TYPE_CHECKING:
    from starlette.routing import BaseRoute

__all__ = [
    "PER_ADDRESS_ENV",
    "REDIS_ENV",
    "Limits",
    "MemoryRooms",
    "RoomError",
    "RoomKeys",
    "RoomView",
    "Rooms",
    "limits_from",
    "qr_svg",
    "room_routes",
    "room_store",
    "rooms_served",
]

REDIS_ENV = "MCP_FLOW_ROOMS_REDIS"
PER_ADDRESS_ENV = "MCP_FLOW_ROOMS_PER_ADDRESS"

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
    return _routes(room_store)


def rooms_served() -> bool:
    return _served
