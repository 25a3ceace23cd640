"""Streamlit entry point: language, then navigation; each page lives in app_pages/."""

import streamlit as st

from flow_ui.i18n import t
from flow_ui.state import state

# A narrower sidebar than Streamlit's 300 px: at 1280 × 720 the Step through page then has the width its viewer needs
# for a JSON card beside a diagram with 13 px labels (flow/views/viewer_assets/layout.mjs, chooseLayout()).
st.set_page_config(page_title="MCP Flow · 工具调用全流程", page_icon="🔎", layout="wide", initial_sidebar_state=240)
app = state()
# Less empty space above each page: a projector has few pixels to spare. A phone keeps room for the button that opens
# the sidebar, which floats over the top of the page.
st.html(
    "<style>.block-container { padding-top: 2.2rem; padding-bottom: 1rem; }"
    "@media (max-width: 640px) { .block-container { padding-top: 3.6rem; } }</style>"
)
with st.sidebar:
    # One label in both languages: a label that changed with the choice would reset the widget.
    st.session_state.setdefault("lang_choice", app.lang)
    app.lang = st.radio(
        "语言 · Language",
        ["zh", "en"],
        key="lang_choice",
        horizontal=True,
        format_func=lambda code: {"zh": "中文", "en": "English"}[code],
    )
    st.caption(t("offline_note", app.lang))

pages = [
    st.Page("app_pages/run.py", title=t("page_run", app.lang), icon=":material/play_arrow:", url_path="run"),
    st.Page("app_pages/step.py", title=t("page_step", app.lang), icon=":material/footprint:", default=True),
    st.Page(
        "app_pages/compare.py", title=t("page_compare", app.lang), icon=":material/compare_arrows:", url_path="compare"
    ),
    st.Page("app_pages/hops.py", title=t("page_hops", app.lang), icon=":material/table_rows:", url_path="hops"),
]
st.navigation(pages).run()
