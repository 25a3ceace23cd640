"""Fixtures shared by several test modules, and the lanes. Plain helpers (ROOT, flow_cli, ...) are in helpers.py: a
test module imports those, never this file. A module split in two lanes (tests/unit/test_render.py and
tests/integration/test_render_cli.py) keeps its helpers in the unit half, which pyproject.toml puts on the path.

The lanes are folders: tests/unit (in this process, fast), tests/integration (real servers and processes: Redis,
nginx, Phoenix, the npm servers, the wheel, the command line), tests/browser (the app in Chromium). Each test is
marked with its lane's name (`pytest -m unit`), and given its lane's time limit (pytest-timeout) unless it sets its
own with @pytest.mark.timeout."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from bench.browser import CHROMIUM, CHROMIUM_ARGS, serve_app
from helpers import ROOT, TOKEN, DemoServer, Ran, run_flow_sync, start_demo_server, stop_demo_server

if TYPE_CHECKING:  # only the rooms' tests load Redis's client and the rooms
    import redis

    from flow.rooms.rules import Rooms


# Seconds a test of each lane may take before pytest-timeout stops it: generous, so that only a hung test reaches
# them on a loaded machine.
LANE_TIMEOUTS = {"unit": 120, "integration": 300, "browser": 300}
TESTS = ROOT / "tests"


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.hasplugin("timeout"):  # a venv synced before pytest-timeout joined the dev group
        config.addinivalue_line("markers", "timeout(seconds): the time limit pytest-timeout would give the test")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks each test with its lane, the folder under tests/ it is in; a test module outside the lanes is an error."""
    for item in items:
        lane = item.path.relative_to(TESTS).parts[0] if item.path.is_relative_to(TESTS) else ""
        if lane not in LANE_TIMEOUTS:
            raise pytest.UsageError(
                f"{item.path}: a test module belongs in a lane: tests/unit, tests/integration or tests/browser"
            )
        item.add_marker(getattr(pytest.mark, lane))
        item.add_marker(pytest.mark.timeout(LANE_TIMEOUTS[lane]))


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., Ran]:
    """`python -m flow ARGS` in this process: its exit code and what it printed. No provider configured (the
    command line's tests, in both lanes)."""
    from flow.cli import main

    for name in [k for k in os.environ if k.startswith("OPENAI_")]:
        monkeypatch.delenv(name)

    def call(*args: str) -> Ran:
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return Ran(code, out, err)

    return call


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


# Classroom rooms: a real Redis, and a store of each kind for the contract both keep.
@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real redis-server on a free loopback port, nothing saved to disk, stopped after the module."""
    import redis

    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed: run ./dev.sh test (it installs Debian's redis-server)")
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = int(free.getsockname()[1])
    workdir = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(workdir)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url, socket_timeout=1)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    pytest.fail("redis-server did not start")
                time.sleep(0.05)
        yield url
    finally:
        client.close()
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def r(redis_url: str) -> Iterator[redis.Redis]:
    """A plain client on the test Redis, emptied before each test."""
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True, socket_timeout=2)
    client.flushall()
    yield client
    client.close()


@pytest.fixture(params=["memory", "redis"])
def make(request: pytest.FixtureRequest) -> Iterator[Callable[..., Rooms]]:
    """Makes a store of each kind, with the given limits (the contract holds for both); closed after the test."""
    from flow.rooms.redis_store import RedisRooms
    from flow.rooms.rules import MemoryRooms

    made: list[Rooms] = []
    url = request.getfixturevalue("redis_url") if request.param == "redis" else ""
    if url:
        request.getfixturevalue("r")  # an empty Redis

    def store(limits: Any = None) -> Rooms:
        made.append(RedisRooms(url, limits) if url else MemoryRooms(limits))
        return made[-1]

    yield store
    for each in made:
        asyncio.run(each.aclose())
