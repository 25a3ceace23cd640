"""`streamlit run app.py` in a clone: the web app, its pages (flow_ui/app.py, flow_ui/app_pages/) with the classroom
rooms' routes beside them, as `mcp-flow app` serves it (flow_ui/serve.py). Streamlit reads its settings from
.streamlit/config.toml beside this file: this machine only, as `mcp-flow app` without `--lan`.

`./dev.sh app` (or `.venv/bin/mcp-flow app`) is the way to serve a class: it also keeps Streamlit's proxy-headers
middleware from believing a forwarded address (see flow/cli/app.py, SERVER_ENV), which Streamlit's own command
cannot be told from here. This file is not in the wheel: an installed program has `mcp-flow app`.
"""

import streamlit as st

from flow import room_routes
from flow_ui.start import say_ready, warm

took = warm()
# Streamlit finds the app by this assignment in the file it runs (an `st.App(...)` call, read from the source); the
# path is relative to this file.
app = st.App("flow_ui/app.py", routes=room_routes())
say_ready(took)
