"""The Step through page's viewer: flow's client-side trace viewer mounted as a Streamlit custom component (v2).

The component is registered once, when this module is first imported. Its data is the trace's
bundle (built once per trace and language, then shared) and the hop to start at; stepping happens
in the browser, and the position comes back as the component's state `hop` (1-based).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from flow.labels import Lang
from flow.viewer import viewer_bundle, viewer_css, viewer_js
from ui.state import Loaded

VIEWER_KEY = "trace_viewer"

_mount = st.components.v2.component("mcp_flow_trace_viewer", css=viewer_css(), js=viewer_js())


@st.cache_resource(max_entries=32, show_spinner=False)
def _bundle(key: str, lang: Lang, _trace: Any) -> dict[str, Any]:
    """Shared by every session and never changed (a cached resource is not copied: this is large for long traces)."""
    return viewer_bundle(_trace, lang=lang)


def bundle(item: Loaded, lang: Lang) -> dict[str, Any]:
    return _bundle(item.key, lang, item.trace)


def trace_viewer(item: Loaded, lang: Lang, *, start: int, on_hop: Callable[[], None]) -> Any:
    """Mount the viewer at hop index `start` (0-based). The browser sends the data again only when it changes:
    `start` is what the page knew when it was last drawn as a whole, not every step since."""
    return _mount(key=VIEWER_KEY, data={"bundle": bundle(item, lang), "start": start}, default={"hop": start + 1},
                  on_hop_change=on_hop)


def reported_hop() -> int | None:
    """The 1-based hop the viewer last reported, if any."""
    value = st.session_state.get(VIEWER_KEY)
    hop = value.get("hop") if isinstance(value, dict) else None
    return hop if isinstance(hop, int) and not isinstance(hop, bool) else None
