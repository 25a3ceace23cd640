"""The app as an ASGI app: Streamlit's pages (app.py) with the classroom rooms' routes beside them.

`./dev.sh app` runs `streamlit run serve.py`; `uvicorn serve:app` serves the same app.
"""

import streamlit as st

from flow.rooms import room_routes

app = st.App("app.py", routes=room_routes())
