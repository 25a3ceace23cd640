"""The school deployment recipe in deploy/, run as written on loopback: one Redis, two app processes started as
mcp-flow@.service starts them (its ExecStart, with mcp-flow.env's environment) and nginx with deploy/nginx.conf
in front (its ports moved to free ones). A student's browser reaches the pages, Streamlit's websocket and a room
through nginx, and follows the teacher whichever app process the teacher's moves go through."""

from __future__ import annotations

import asyncio
import base64
import os
import queue
import re
import shlex
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


ACCESS_LOG = "/var/log/nginx/mcp-flow.access.log"


def _nginx_conf(work: Path, listen: int, apps: list[int]) -> Path:
    """deploy/nginx.conf with its ports moved and its files kept in WORK (its access log as WORK/access.log, in the
    recipe's own format)."""
    text = (DEPLOY / "nginx.conf").read_text()
    assert "listen 80;" in text and "server 127.0.0.1:8501;" in text and "server 127.0.0.1:8502;" in text
    assert f"access_log {ACCESS_LOG} " in text
    text = text.replace("listen 80;", f"listen 127.0.0.1:{listen};")
    text = text.replace(ACCESS_LOG, str(work / "access.log"))
    for documented, free in zip((8501, 8502), apps, strict=True):
        text = text.replace(f"server 127.0.0.1:{documented};", f"server 127.0.0.1:{free};")
    temp = " ".join(f"{kind}_temp_path {work / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    text = text.replace("http {", f"http {{\n    access_log off; {temp}", 1)
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


@pytest.fixture(scope="module")
def school(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str], Path]]:
    """nginx's URL, the two app processes' URLs, as the recipe runs them, and the folder of nginx's files (its
    access log)."""
    tmp_path = tmp_path_factory.mktemp("school")
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
        yield f"http://127.0.0.1:{front}", urls, tmp_path
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
    front, (a, b), _ = school
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


CLASS = 300
_TLS = ssl.create_default_context()  # one for every device (each of its own costs 50 ms; nothing here uses TLS)


def _device(n: int, group: int = 2) -> httpx.AsyncClient:
    """A student's device: its own loopback address, 127.GROUP.x.y (Linux routes the whole of 127.0.0.0/8 to lo),
    never nginx's own 127.0.0.1, so nginx sees each device as the school network would."""
    address = f"127.{group}.{n // 250}.{n % 250 + 1}"
    limits = httpx.Limits(max_connections=None)
    transport = httpx.AsyncHTTPTransport(verify=_TLS, local_address=address, limits=limits)
    return httpx.AsyncClient(transport=transport, timeout=30)


async def _join(device: httpx.AsyncClient, room: str, forged: str | None = None) -> httpx.Response:
    headers = {"X-Forwarded-For": forged, "X-Real-IP": forged} if forged else {}
    return await device.post(f"{room}/join", json={}, headers=headers)


async def _listen(device: httpx.AsyncClient, room: str, params: dict[str, str]) -> httpx.Response:
    """An event stream opened (its status and headers read), left open until closed."""
    return await device.send(device.build_request("GET", f"{room}/events", params=params), stream=True)


async def _abuse(room: str) -> tuple[list[str], list[httpx.Response], list[int], list[int]]:
    """One student's device joins 260 times, each time writing another address into the forwarding headers, then
    opens 200 event streams with the tokens it got: its tokens, its streams held open, the refusals' statuses."""
    async with _device(0, group=3) as abuser:
        joins = [await _join(abuser, room, forged=f"203.0.113.{n % 250 + 1}") for n in range(260)]
        tokens = [r.json()["token"] for r in joins if r.status_code == 200]
        held, refused = [], []
        for n in range(200):
            got = await _listen(abuser, room, {"after": "0", "token": tokens[n % len(tokens)]})
            if got.status_code == 200:
                held.append(got)
            else:
                refused.append(got.status_code)
                await got.aclose()
        return tokens, held, [r.status_code for r in joins if r.status_code != 200], refused


async def _class(front: str, code: str, key: str, watch: str) -> tuple[list[int], list[int], list[str]]:
    """The abusive student first, holding its streams; then a class of CLASS devices, each joining and opening its
    event stream through nginx, all held at once, and the teacher's own viewer (its watch key) and a move: the
    class's join and stream statuses, and every secret that went through nginx."""
    room = f"{front}/room/{code}"
    tokens, held, refused_joins, refused_streams = await _abuse(room)
    assert refused_joins and set(refused_joins) == {429}  # the forged headers bought it nothing
    assert len(held) == 16 and set(refused_streams) == {429}  # its own budget, Limits.client_streams
    devices = [_device(n) for n in range(CLASS)]
    try:
        joins = await asyncio.gather(*(_join(d, room) for d in devices))
        ok = [r.json()["token"] for r in joins if r.status_code == 200]
        streams = await asyncio.gather(
            *(_listen(d, room, {"after": "0", "token": t}) for d, t in zip(devices, ok, strict=False))
        )
        async with _device(0, group=4) as teacher:
            viewer = await _listen(teacher, room, {"watch": watch})
            moved = await teacher.post(f"{room}/view", json={"index": 1, "lang": "en"}, headers={"X-Room-Key": key})
            assert viewer.status_code == 200 and moved.status_code == 200
            await viewer.aclose()
        for stream in [*streams, *held]:
            await stream.aclose()
        return [r.status_code for r in joins], [s.status_code for s in streams], [*tokens, *ok, watch, key]
    finally:
        await asyncio.gather(*(d.aclose() for d in devices))


def _logged(log: Path, code: str, lines: int) -> str:
    """The access log once nginx has written `lines` lines of room `code` (a request is logged when it ends)."""
    for _ in range(100):
        text = log.read_text()
        if text.count(f"/room/{code}/") >= lines:
            return text
        time.sleep(0.1)
    return log.read_text()


def test_a_class_of_300_follows_through_nginx_and_one_abusive_student_is_refused_alone(school, redis_url):
    front, _, work = school
    teacher = RedisRooms(redis_url)
    keys = teacher.create(BUNDLES, CHOICES, RoomView(index=0, lang="zh"))
    joins, streams, secrets = asyncio.run(_class(front, keys.code, keys.key, keys.watch))
    assert joins == [200] * CLASS and streams == [200] * CLASS  # no classmate refused
    # The recipe's access log names each request's path, never a follower's token or the teacher's keys.
    log = _logged(work / "access.log", keys.code, 260 + 200 + 2 * CLASS + 2)
    assert log.count(f"/room/{keys.code}/") == 260 + 200 + 2 * CLASS + 2 and "127.2.1.50 " in log
    assert [s for s in secrets if s in log] == []
    assert "token=" not in log and "watch=" not in log
    # Each device sticks to one app process, and one classroom's /24 is spread over both (ip_hash would not).
    served: dict[str, set[str]] = {}
    for address, upstream in re.findall(
        rf"^(127\.2\.0\.\d+) .*/room/{keys.code}/\S+ .* (127\.0\.0\.1:\d+) ", log, re.M
    ):
        served.setdefault(address, set()).add(upstream)
    assert len(served) == 250 and all(len(upstreams) == 1 for upstreams in served.values())
    assert len(set().union(*served.values())) == 2
    teacher.close(keys.code, keys.key)


def test_the_apps_server_believes_no_forwarding_header_only_the_rooms_do():
    """mcp-flow app runs Streamlit's uvicorn with FORWARDED_ALLOW_IPS empty: its proxy-headers middleware, which by
    default believes X-Forwarded-For from any loopback peer (an SSH tunnel too), leaves the peer as it is, and the
    rooms alone decide from MCP_FLOW_TRUSTED_PROXIES."""
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    from flow.cli.app import SERVER_ENV, server_environment

    assert server_environment({"PATH": "/bin", "FORWARDED_ALLOW_IPS": "*"}) == {"PATH": "/bin", **SERVER_ENV}
    seen: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["client"])

    scope = {"type": "http", "client": ("127.0.0.1", 5000), "headers": [(b"x-forwarded-for", b"192.0.2.7")]}
    for trusted, client in ((SERVER_ENV["FORWARDED_ALLOW_IPS"], "127.0.0.1"), ("127.0.0.1,::1", "192.0.2.7")):
        asyncio.run(ProxyHeadersMiddleware(app, trusted_hosts=trusted)(dict(scope), None, None))  # type: ignore[arg-type]
        assert seen.pop()[0] == client  # (uvicorn's default, second, would put the header's address in its place)
