"""What the app does before it serves, whichever file Streamlit was given (flow_ui/serve.py for `mcp-flow app`, the
clone's app.py for `streamlit run app.py`): load the modules the pages import, so the first visitor's page comes
as fast as the next, then say on the console that it is ready."""

import sys
import time


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


def say_ready(took: float) -> None:
    print(f"mcp-flow: ready: the pages' modules loaded in {took:.1f} s", file=sys.stderr, flush=True)
