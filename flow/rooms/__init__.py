"""Classroom rooms: students' screens follow the teacher's viewer, and the class answers its questions.

One store per process (`room_store()`): rooms in memory, or in Redis when the operator sets MCP_FLOW_ROOMS_REDIS
(a redis:// URL), so that several app processes behind one address share them. The routes (flow.rooms.web) are
mounted beside Streamlit's by serve.py; `rooms_served()` tells the Step page whether they are.
"""

from __future__ import annotations

import os
import threading

from flow.rooms.page import qr_svg
from flow.rooms.store import Limits, MemoryRooms, RoomError, RoomKeys, RoomStore, RoomView
from flow.rooms.web import room_routes as _routes

__all__ = [
    "REDIS_ENV",
    "Limits",
    "RoomError",
    "RoomKeys",
    "RoomStore",
    "RoomView",
    "qr_svg",
    "room_routes",
    "rooms",
    "rooms_served",
]

REDIS_ENV = "MCP_FLOW_ROOMS_REDIS"

_store: RoomStore | None = None
_lock = threading.Lock()
_served = False


def room_store() -> RoomStore:
    """This process's store, made on first use from the operator's environment."""
    global _store
    with _lock:
        if _store is None:
            url = os.environ.get(REDIS_ENV, "").strip()
            if url:
                from flow.rooms.redis_store import RedisRooms

                _store = RedisRooms(url)
            else:
                _store = MemoryRooms()
        return _store


def room_routes() -> list[object]:
    """The rooms' routes for `st.App(..., routes=...)`; from then on `rooms_served()` is true in this process."""
    global _served
    _served = True
    return list(_routes(room_store))


def rooms_served() -> bool:
    return _served
