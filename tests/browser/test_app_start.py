"""The app's start: it loads what the first visitor's page needs before it serves, and says on the console when it
is ready (the first page then comes about as fast as the next: bench/browser.py's first render). In a clone,
`streamlit run app.py` (what a Streamlit user tries first) serves the same app, with the same settings, on this
machine only."""

from __future__ import annotations

import subprocess
import sys
import threading
import tomllib
from typing import Any

from bench.browser import PAINTED, app_process
from flow.cli.app import SETTINGS
from helpers import ROOT


def _ready_line(proc: subprocess.Popen[bytes]) -> str:
    """The line the app says on its console when it is ready (waited for up to 60 s), or all it said."""
    ready = threading.Event()
    lines: list[str] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line.decode(errors="replace"))
            if lines[-1].startswith("mcp-flow: ready"):
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    assert ready.wait(60), lines
    return lines[-1]


def test_the_app_says_on_the_console_when_it_is_ready_and_then_serves():
    # app_process yields once the app answers its health check: the ready line, said before it serves, is there.
    with app_process(stderr=subprocess.PIPE) as (_, proc):
        assert "the pages' modules loaded in" in _ready_line(proc)


def _streamlit_run_app_py(port: int) -> list[str]:
    return [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]


def test_streamlit_run_app_py_in_the_clone_shows_the_app(browser: Any):
    # In the clone's root, as a newcomer types it: the pages and the rooms' routes (flow_ui/serve.py's app), warmed.
    with app_process(stderr=subprocess.PIPE, command=_streamlit_run_app_py) as (url, proc):
        assert "the pages' modules loaded in" in _ready_line(proc)
        page = browser.new_page(locale="en-US")
        try:
            page.set_default_timeout(60_000)
            page.goto(url)
            page.get_by_text("语言 · Language").wait_for()  # the sidebar of flow_ui/app.py
            page.locator(PAINTED).wait_for()  # the default page, Step through, drew its viewer
        finally:
            page.close()


def test_streamlit_run_app_py_has_the_settings_of_mcp_flow_app_and_stays_on_this_machine():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    said = {f"{section}.{name}": value for section, options in config.items() for name, value in options.items()}
    as_typed = {name: str(value).lower() if isinstance(value, bool) else str(value) for name, value in said.items()}
    assert as_typed == {**SETTINGS, "server.address": "127.0.0.1"}
