"""The app's start: it loads what the first visitor's page needs before it serves, and says on the console when it
is ready (the first page then comes about as fast as the next: bench/browser.py's first render)."""

from __future__ import annotations

import subprocess
import threading

from bench.browser import app_process


def test_the_app_says_on_the_console_when_it_is_ready_and_then_serves():
    # app_process yields once the app answers its health check: the ready line, said before it serves, is there.
    with app_process(stderr=subprocess.PIPE) as (_, proc):
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
        assert "the pages' modules loaded in" in lines[-1]
