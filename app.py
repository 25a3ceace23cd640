"""Streamlit entry point: navigation only; each page lives in pages/."""

import streamlit as st

st.set_page_config(page_title="MCP Flow · 工具调用全流程", page_icon="🔎", layout="wide")
page = st.navigation([st.Page("pages/run.py", title="Run · 运行", icon="▶️", default=True)])
page.run()
