"""The app's start: it loads what the first visitor's page needs before it serves, and says on the console when it
is ready (the first page then comes about as fast as the next: bench/browser.py's first render)."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
import urllib.request

from flow.cli.app import app_command, server_environment
from helpers import ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _healthy(url: str) -> bool:
    """Whether the server answers ok within 30 s (it binds its port just after it says it is ready)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            return urllib.request.urlopen(url, timeout=5).read() == b"ok"
        except OSError:
            time.sleep(0.1)
    return False


def test_the_app_says_on_the_console_when_it_is_ready_and_then_serves():
    port = _free_port()
    proc = subprocess.Popen(
        app_command(port=port),
        cwd=ROOT,
        env=server_environment(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    ready = threading.Event()
    lines: list[str] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if line.startswith("mcp-flow: ready"):
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert ready.wait(120), lines
        assert "the pages' modules and the samples loaded in" in lines[-1]
        assert _healthy(f"http://127.0.0.1:{port}/_stcore/health")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
