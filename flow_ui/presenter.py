"""Presenter mode for the pages that show no viewer (Compare, Hops), the Step through viewer's mode carried over:
the same keys (P turns it on or off, Esc leaves it: flow's page_keys.mjs on the viewer's keys.mjs), the same words,
and the same place a reload finds it (`?presenter=1` in the URL). The viewer lifts its own element above the page;
these pages are Streamlit's elements, which no component can lift, so the mode hides Streamlit's chrome and the
sidebar and sizes the page's text for the back row of a projector's room (texts 22 px, labels and tables 20 px)."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st
from streamlit.components.v2 import component

from flow import Lang, page_keys_js
from flow_ui.i18n import t

_mount = component("mcp_flow_page_keys", js=page_keys_js())

PRESENTER_CSS = """<style>
header[data-testid="stHeader"], section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stToolbar"], [data-testid="stDecoration"] { display: none !important; }
.block-container { padding: 0.5rem 1rem 2rem 1rem !important; max-width: 100% !important; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMain"] [data-testid="stMarkdownContainer"] li { font-size: 22px !important; line-height: 1.45; }
[data-testid="stMain"] h1 { font-size: 34px !important; padding: 0.2rem 0 !important; }
[data-testid="stMain"] h2, [data-testid="stMain"] h3 { font-size: 28px !important; padding: 0.2rem 0 !important; }
[data-testid="stMain"] [data-testid="stCaptionContainer"], [data-testid="stMain"] [data-testid="stCaptionContainer"] p,
[data-testid="stMain"] .stButton button p { font-size: 20px !important; }
[data-testid="stMain"] table td, [data-testid="stMain"] table th { font-size: 20px !important; }
[data-testid="stMain"] [data-testid="stWidgetLabel"] p, [data-testid="stMain"] input,
[data-testid="stMain"] [data-baseweb="select"] * { font-size: 20px !important; }
[data-testid="stMain"] [data-testid="stJson"] { font-size: 20px !important; }
[data-testid="stMain"] [data-testid="stJson"] * { font-size: inherit !important; }
.cmp-title { font-size: 20px; }
</style>"""


def presenter_on() -> bool:
    return st.query_params.get("presenter") == "1"


def presenter_to_url(on: bool) -> None:
    """Presenter mode on or off in the URL (`?presenter=1`), where a reload finds it: Step through's too."""
    if on:
        st.query_params["presenter"] = "1"
    else:
        st.query_params.pop("presenter", None)


def presenter_mode(page: str, lang: Lang, *, button_in: Any = None) -> bool:
    """The page's presenter mode: its button (in `button_in`, a column of the page's, or where the page is), its
    keys, and, when on, the chrome hidden and the text enlarged; True when on (the page then shows only what the
    room reads)."""
    key = f"page_keys_{page}"

    def on_key() -> None:
        asked = st.session_state.get(key, {}).get("presenter")
        if isinstance(asked, bool):
            presenter_to_url(asked)

    on = presenter_on()
    _mount(key=key, data=json.dumps({"presenter": on}), on_presenter_change=on_key)
    (button_in or st.container()).button(
        t("presenter_off" if on else "presenter_on", lang),
        key=f"presenter_button_{page}",
        help=t("presenter_help", lang),
        icon=":material/co_present:",
        on_click=presenter_to_url,
        args=(not on,),
        width="stretch" if button_in is not None else "content",
    )
    if on:
        st.html(PRESENTER_CSS)
    return on
