"""The Step through page's viewer: flow's client-side trace viewer mounted as a Streamlit custom component (v2).

The component is registered once, when this module is first imported. Its data is the trace's
bundle (built once per trace and language, then shared) and the hop to start at; stepping happens
in the browser, and the position comes back as the component's state `hop`: {"trace": digest, "hop": N}.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import streamlit as st

from flow import Lang, bundle_json, trace_digest, viewer_bundle, viewer_css, viewer_js
from ui.state import Loaded

VIEWER_KEY = "trace_viewer"

_mount = st.components.v2.component("mcp_flow_trace_viewer", css=viewer_css(), js=viewer_js())


@st.cache_resource(max_entries=32, show_spinner=False)
def _bundle_json(key: str, lang: Lang, _trace: Any) -> str:
    """The bundle as JSON text, made once per trace and language and shared by every session.

    Text, not a dict: each report from the viewer reruns the page's fragment, and Streamlit serialises
    and hashes the component's data on every run; a string of a 1,000-hop trace costs a few ms, the
    same data as nested dicts over a hundred."""
    return bundle_json(viewer_bundle(_trace, lang=lang))


def bundle(item: Loaded, lang: Lang) -> dict[str, Any]:
    """The bundle as the viewer receives it (for tests and other pages)."""
    return json.loads(_bundle_json(item.key, lang, item.trace))


def trace_viewer(item: Loaded, lang: Lang, *, start: int, on_hop: Callable[[], None]) -> Any:
    """Mount the viewer at hop index `start` (0-based). The browser sends the data again only when it changes:
    `start` is what the page knew when it was last drawn as a whole, not every step since."""
    data = f'{{"start": {int(start)}, "bundle": {_bundle_json(item.key, lang, item.trace)}}}'
    return _mount(key=VIEWER_KEY, data=data, on_hop_change=on_hop)


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
