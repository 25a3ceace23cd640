"""The Step through page's viewer: flow's client-side trace viewer mounted as a Streamlit custom component (v2).

The component is registered once, when this module is first imported. Its data is the trace's
bundle (built once per trace, language and questions, then shared), the hop to start at and the page's
toggles (questions, restaurant captions); stepping happens in the browser, and the position comes back as
the component's state `hop`: {"trace": digest, "hop": N}.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import streamlit as st
from streamlit.components.v2 import component

import flow
from flow import Lang, bundle_json, part_trace, trace_digest, viewer_bundle, viewer_css, viewer_js, viewer_parts
from flow_ui.state import AppState, Loaded

VIEWER_KEY = "trace_viewer"

_mount = component("mcp_flow_trace_viewer", css=viewer_css(), js=viewer_js())


@st.cache_resource(max_entries=64, show_spinner=False)
def _sample_questions(key: str, _trace: Any) -> dict[int, Any]:
    """A sample's committed questions (sample_traces/questions/), read once per server."""
    return flow.questions_for(_trace)


def questions(app: AppState, item: Loaded) -> dict[int, Any]:
    """The questions of the trace the page shows: an uploaded questions file, else a sample's own (a sample's JSON
    downloaded and uploaded again keeps them, as its HTML does, when its hops are still the sample's); {} when none.
    A sample's file that cannot be used raises `flow.QuestionsError` (a test keeps them usable)."""
    if item.key in app.questions:
        return app.questions[item.key]
    if item.key.startswith("sample:"):
        return _sample_questions(item.key, item.trace)
    try:  # an upload names its sample in meta.sample: one of the committed questions files, or none
        return flow.questions_for(item.trace)
    except flow.QuestionsError:  # edited so that the sample's questions no longer fit its hops
        return {}


def add_questions(app: AppState, item: Loaded, name: str, data: bytes) -> dict[int, Any]:
    """Read an uploaded questions file for this trace; raises `flow.QuestionsError` with one line for the page."""
    found = flow.bind_questions(flow.read_questions_bytes(data, name=name), item.trace, name=name)
    app.questions[item.key] = found
    return found


@st.cache_resource(max_entries=32, show_spinner=False)
def _parts(key: str, _trace: Any) -> list[range]:
    return viewer_parts(_trace)


def parts(item: Loaded) -> list[range]:
    """The parts the viewer shows the trace in (flow.viewer_parts): one, unless it is too long or too large."""
    return _parts(item.key, item.trace)


def part_at(item: Loaded, index: int) -> range:
    """The part that holds the hop at `index`."""
    found = parts(item)
    return next((p for p in found if index in p), found[0])


@st.cache_resource(max_entries=32, show_spinner=False)
def _part(key: str, start: int, stop: int, label: str, _trace: Any) -> Loaded:
    return Loaded(f"{key}#{start + 1}-{stop}", label, part_trace(_trace, range(start, stop)))


def part_item(item: Loaded, part: range) -> Loaded:
    """What the viewer holds of the trace: the whole of it, or one part as a trace of its own, under its own key."""
    if part.start == 0 and part.stop >= len(item.trace.hops):
        return item
    return _part(item.key, part.start, part.stop, item.label, item.trace)


def _questions_key(found: dict[int, Any]) -> str:
    return json.dumps({seq: q.to_json() for seq, q in sorted(found.items())}, ensure_ascii=False) if found else ""


@st.cache_resource(max_entries=32, show_spinner=False)
def _bundle_json(key: str, lang: Lang, questions_key: str, _trace: Any, _questions: Any) -> str:
    """The bundle as JSON text, made once per trace and language and shared by every session.

    Text, not a dict: each report from the viewer reruns the page's fragment, and Streamlit serialises
    and hashes the component's data on every run; a string of a 1,000-hop trace costs a few ms, the
    same data as nested dicts over a hundred."""
    return bundle_json(viewer_bundle(_trace, lang=lang, questions=_questions or None))


def bundle_text(item: Loaded, lang: Lang, found: dict[int, Any] | None = None) -> str:
    """The bundle as JSON text, from the shared cache (a room serves it to its followers)."""
    found = found or {}
    return _bundle_json(item.key, lang, _questions_key(found), item.trace, found)


def bundle(item: Loaded, lang: Lang, found: dict[int, Any] | None = None) -> dict[str, Any]:
    """The bundle as the viewer receives it (for tests and other pages)."""
    found = found or {}
    return json.loads(_bundle_json(item.key, lang, _questions_key(found), item.trace, found))


def trace_viewer(
    item: Loaded,
    lang: Lang,
    *,
    start: int,
    on_hop: Callable[[], None],
    on_room: Callable[[], None] | None = None,
    found: dict[int, Any] | None = None,
    quiz: bool = False,
    captions: bool = False,
    room: dict[str, Any] | None = None,
    presenter: bool = False,
    on_presenter: Callable[[], None] | None = None,
) -> Any:
    """Mount the viewer at hop index `start` (0-based), with the trace's questions (`found`, by hop seq), the
    page's toggles, the room it presents to (flow_ui.rooms.viewer_room) and whether it opens in presenter mode. The browser sends the data again only when it changes: `start` is what the page knew when
    it was last drawn as a whole, not every step since."""
    found = found or {}
    text = _bundle_json(item.key, lang, _questions_key(found), item.trace, found)
    options = json.dumps({"questions": bool(quiz), "captions": bool(captions), "room": room, "presenter": presenter})
    data = f'{{"start": {int(start)}, "options": {options}, "bundle": {text}}}'
    return _mount(
        key=VIEWER_KEY,
        data=data,
        on_hop_change=on_hop,
        on_room_change=on_room or (lambda: None),
        on_presenter_change=on_presenter or (lambda: None),
    )


def reported_presenter() -> bool | None:
    """Whether the viewer last said it is in presenter mode; None if it has not said."""
    state = st.session_state.get(VIEWER_KEY)
    value = state.get("presenter") if isinstance(state, dict) else None
    return value if isinstance(value, bool) else None


def reclaimed_room() -> Any:
    """What the viewer of a page that reloaded handed over: {code, key} of the room its tab presented (untrusted:
    flow_ui.rooms.reclaim checks it with the room), or None."""
    state = st.session_state.get(VIEWER_KEY)
    return state.get("room") if isinstance(state, dict) else None


@st.cache_resource(max_entries=32, show_spinner=False)
def _digest(key: str, _trace: Any) -> str:
    return trace_digest(_trace)


def reported_hop(item: Loaded) -> int | None:
    """The 1-based hop the viewer last reported for this trace; None if it reported none, or about another trace."""
    state = st.session_state.get(VIEWER_KEY)
    value = state.get("hop") if isinstance(state, dict) else None
    if not isinstance(value, dict) or value.get("trace") != _digest(item.key, item.trace):
        return None
    hop = value.get("hop")
    return hop if isinstance(hop, int) and not isinstance(hop, bool) else None
