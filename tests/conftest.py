"""Fixtures shared by several test modules. Plain helpers (ROOT, flow_cli, ...) are in helpers.py: a test
module imports those, never another test module or this file."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from bench.browser import CHROMIUM, CHROMIUM_ARGS, serve_app
from helpers import ROOT, TOKEN, DemoServer, run_flow_sync, start_demo_server, stop_demo_server


@pytest.fixture
def runner() -> Callable[..., Any]:
    return run_flow_sync


@pytest.fixture
def mock_server() -> Iterator[str]:
    """`python -m flow mock-server` on a free loopback port; its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "flow", "mock-server", "--port", "0"], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = line.split("listening on ", 1)[1].split()[0]
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def demo() -> Iterator[DemoServer]:
    """The demo server over Streamable HTTP in its own process, behind TOKEN, for the tests of one module."""
    server = start_demo_server("--token", TOKEN)
    try:
        yield server
    finally:
        stop_demo_server(server)


# The app in a real browser: Debian's Chromium, headless, driven by Playwright, against `streamlit run`.
@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    """The app served by `streamlit run` on a free loopback port, for the tests of one module (as the benchmark
    serves it)."""
    with serve_app() as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright  # only the browser tests need it

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
