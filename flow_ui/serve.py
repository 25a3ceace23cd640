"""The app as an ASGI app: Streamlit's pages (app.py) with the classroom rooms' routes beside them.

`mcp-flow app` (and `./dev.sh app`) runs `streamlit run` on this file; `uvicorn flow_ui.serve:app` serves the same app.
Before it serves, it loads what the first visitor's page needs (the modules the pages import), so the
first page comes as fast as the next; the console says when it is ready.
"""

import sys
import time

import streamlit as st

from flow import room_routes


def warm() -> float:
    """Import what the pages import; the seconds it took. (The samples, 0.1 s, are read by the first page: a
    Streamlit cache called before the server runs only warns on the console.)"""
    start = time.perf_counter()
    import flow_ui.asking
    import flow_ui.live
    import flow_ui.rooms
    import flow_ui.state
    import flow_ui.trace_viewer
    import flow_ui.view  # noqa: F401

    return time.perf_counter() - start


took = warm()
app = st.App("app.py", routes=room_routes())
print(f"mcp-flow: ready: the pages' modules loaded in {took:.1f} s", file=sys.stderr, flush=True)
