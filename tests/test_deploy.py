"""The school deployment recipe in deploy/, run as written on loopback: one Redis, two app processes started as
mcp-flow@.service starts them (its ExecStart, with mcp-flow.env's environment) and nginx with deploy/nginx.conf
in front (its ports moved to free ones). A student's browser reaches the pages, Streamlit's websocket and a room
through nginx, and follows the teacher whichever app process the teacher's moves go through."""

from __future__ import annotations

import base64
import os
import queue
import re
import shlex
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
from test_rooms_redis import BUNDLES, CHOICES, HOPS

from flow.rooms.redis_store import RedisRooms
from flow.rooms.store import RoomView
from helpers import ROOT

DEPLOY = ROOT / "deploy"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _unit_command(port: int) -> list[str]:
    """ExecStart of mcp-flow@.service for instance PORT, run with this environment's mcp-flow (python -m flow)."""
    [line] = [x for x in (DEPLOY / "mcp-flow@.service").read_text().splitlines() if x.startswith("ExecStart=")]
    program, *args = shlex.split(line.removeprefix("ExecStart=").replace("%i", str(port)))
    assert Path(program).name == "mcp-flow"
    return [sys.executable, "-m", "flow", *args]


def _env_file(redis: str) -> dict[str, str]:
    pairs = dict(
        line.split("=", 1) for line in (DEPLOY / "mcp-flow.env").read_text().splitlines() if line and line[0] != "#"
    )
    assert pairs["MCP_FLOW_ROOMS_REDIS"].startswith("redis://127.0.0.1:6379/")
    return pairs | {"MCP_FLOW_ROOMS_REDIS": redis}  # the test's own Redis, on a free port


def _nginx_conf(work: Path, listen: int, apps: list[int]) -> Path:
    """deploy/nginx.conf with its ports moved and its files kept in WORK."""
    text = (DEPLOY / "nginx.conf").read_text()
    assert "listen 80;" in text and "server 127.0.0.1:8501;" in text and "server 127.0.0.1:8502;" in text
    text = text.replace("listen 80;", f"listen 127.0.0.1:{listen};")
    for documented, free in zip((8501, 8502), apps, strict=True):
        text = text.replace(f"server 127.0.0.1:{documented};", f"server 127.0.0.1:{free};")
    temp = " ".join(f"{kind}_temp_path {work / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    text = text.replace("http {", f"http {{\n    access_log {work / 'access.log'}; {temp}", 1)
    conf = work / "nginx.conf"
    conf.write_text(f"pid {work / 'nginx.pid'};\nerror_log {work / 'error.log'};\n{text}")
    return conf


def _wait(url: str, procs: list[subprocess.Popen[bytes]], deadline: float) -> None:
    while True:
        try:
            if httpx.get(f"{url}/_stcore/health", timeout=2).text == "ok":
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
            pytest.fail(f"{url} did not answer")
        time.sleep(0.2)


@pytest.fixture
def school(redis_url: str, tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """nginx's URL and the two app processes' URLs, as the recipe runs them."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        pytest.fail("nginx is not installed: run ./dev.sh test (it installs Debian's nginx)")
    apps, front = [_free_port(), _free_port()], _free_port()
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "MCP_FLOW_"))}
    env = base | _env_file(redis_url)
    procs = [
        subprocess.Popen(_unit_command(p), cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for p in apps
    ]
    conf = _nginx_conf(tmp_path, front, apps)
    procs.append(
        subprocess.Popen(
            [nginx, "-p", str(tmp_path), "-c", str(conf), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    )
    urls = [f"http://127.0.0.1:{p}" for p in apps]
    try:
        deadline = time.monotonic() + 90
        for url in [*urls, f"http://127.0.0.1:{front}"]:
            _wait(url, procs, deadline)
        yield f"http://127.0.0.1:{front}", urls
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def _websocket_upgrade(url: str) -> str:
    """The status line nginx gives a browser opening Streamlit's websocket."""
    host, port = url.removeprefix("http://").split(":")
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /_stcore/stream HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: streamlit\r\n"
        f"Origin: {url}\r\n\r\n"
    )
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(request.encode())
        return s.recv(4096).decode(errors="replace").split("\r\n")[0]


def test_a_student_follows_a_room_through_nginx_whichever_process_the_teacher_reaches(school, redis_url):
    front, (a, b) = school
    assert httpx.get(front, timeout=10).status_code == 200  # the app's page
    assert re.fullmatch(r"HTTP/1\.1 101 .*", _websocket_upgrade(front))
    teacher = RedisRooms(redis_url)
    keys = teacher.create(BUNDLES, CHOICES, RoomView(index=0, lang="zh"))
    joined = httpx.post(f"{front}/room/{keys.code}/join", json={}, timeout=5).json()
    assert joined["snapshot"]["hops"] == HOPS
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        params = {"after": "0", "token": joined["token"]}
        try:
            with httpx.stream("GET", f"{front}/room/{keys.code}/events", params=params, timeout=20) as got:
                for line in got.iter_lines():
                    if line.startswith("data:"):
                        lines.put(line)
                    if line == "event: closed":
                        return
        except httpx.HTTPError:
            return  # the servers stopped at the end of the test

    threading.Thread(target=read, daemon=True).start()
    time.sleep(1)  # the stream has subscribed
    for index, app in ((1, a), (2, b)):  # one move through each app process
        moved = httpx.post(
            f"{app}/room/{keys.code}/view",
            json={"index": index, "lang": "en"},
            headers={"X-Room-Key": keys.key},
            timeout=5,
        )
        assert moved.status_code == 200
        assert f'"index":{index}' in lines.get(timeout=10)  # nginx passed the event on at once
    # nginx refuses a body over the app's upload limit (53 MiB: client_max_body_size 53m) before the app sees it.
    too_big = httpx.post(f"{front}/_stcore/upload_file/x/y", content=b" " * (54 * 2**20), timeout=30)
    assert too_big.status_code == 413
    teacher.close(keys.code, keys.key)
