"""The app as an ASGI app: Streamlit's pages (app.py) with the classroom rooms' routes beside them.

`mcp-flow app` (and `./dev.sh app`) runs `streamlit run` on this file; `uvicorn flow_ui.serve:app` serves the same app;
a clone's top-level app.py is the same for `streamlit run app.py`. Before it serves, it loads what the first
visitor's page needs (flow_ui/start.py), so the first page comes as fast as the next; the console says when it is
ready.
"""

import streamlit as st

from flow import room_routes
from flow_ui.start import say_ready, warm

took = warm()
# Streamlit finds the app by this assignment in the file it runs (an `st.App(...)` call, read from the source).
app = st.App("app.py", routes=room_routes())
say_ready(took)
