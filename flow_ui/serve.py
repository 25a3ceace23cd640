"""The app as an ASGI app: Streamlit's pages (app.py) with the classroom rooms' routes beside them.

`mcp-flow app` (and `./dev.sh app`) runs `streamlit run` on this file; `uvicorn flow_ui.serve:app` serves the same app.
"""

import streamlit as st

from flow import room_routes

app = st.App("app.py", routes=room_routes())
