"""Classroom rooms under load: students' screens following a teacher's viewer over Server-Sent Events.

The server under test is the app itself (`mcp-flow app`, the rooms routes beside Streamlit's). The
teacher's presses are the request the teacher's viewer sends (POST /room/{code}/view with X-Room-Key, one every
`PACE_S`); a press's lag runs from just before that request leaves (time.time() here) to the follower's
highlighted hop: in a headless Chromium follower page, when the viewer marks the new position painted
(`data-current`, read by a MutationObserver as performance.timeOrigin + performance.now(), the same machine
clock); in the lighter client (httpx2: join, then GET /events read by its event source as EventSource reads it,
reconnecting from the last id when a stream ends), when the step's event arrives. Each follower's steps are
checked against what the teacher sent: none missing, none out of order.

The server's CPU is its process's utime + stime (/proc) over the teaching, less the same teaching with no
follower, per follower and step; its memory the RSS once the followers are connected less the RSS before.

Rooms are made where the app keeps them. With Redis (`redis-server` on a free port, MCP_FLOW_ROOMS_REDIS for the
app processes) the bench makes a room in Redis itself (flow.rooms.redis_store.RedisRooms), and a second app
process on the same Redis serves a follower of the teacher's presses to the first. Without Redis (no
`redis-server` on this machine) the app keeps rooms in memory, so the bench makes each room
as a teacher does: the Step page in Chromium, "Present to a room", and reads the keys from the teacher's viewer.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import importlib.util
import itertools
import json
import os
import shutil
import socket
import statistics
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx2
import redis

from bench.browser import CHROMIUM, CHROMIUM_ARGS, app_process, percentile

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "sample_traces" / "beijing-mcp.json"
REDIS_SERVER = "redis-server"
PACE_S = 0.3  # between the teacher's presses: a teacher holding → (the stress pace; the light followers' pace)
CLASS_PACE_S = 1.0  # a brisk lecture: twice as fast as the viewer's own autoplay default (2 s a step)
SETTLE_S = 2.0  # after the last press, for the last steps to arrive
LANG: Literal["zh", "en"] = "en"
_CLK = os.sysconf("SC_CLK_TCK")


# ---- processes ----


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def redis_available() -> bool:
    return shutil.which(REDIS_SERVER) is not None and importlib.util.find_spec("flow.rooms.redis_store") is not None


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A throwaway `redis-server` on a free loopback port (nothing saved); yields its redis:// URL."""
    port = _free_port()
    proc = subprocess.Popen(
        [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url, socket_timeout=1)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        yield url
    finally:
        client.close()
        _stop(proc)


@dataclass
class App:
    url: str
    port: int
    pid: int


@contextlib.contextmanager
def serve(redis_url: str | None) -> Iterator[App]:
    """`mcp-flow app` (the app with the rooms routes) on a free loopback port."""
    # Every follower here comes from this machine's one address: the per-address bounds are set for a class.
    env = {"MCP_FLOW_ROOMS_PER_ADDRESS": "1000", **({"MCP_FLOW_ROOMS_REDIS": redis_url} if redis_url else {})}
    with app_process(env) as (url, proc):
        yield App(url, int(url.rsplit(":", 1)[1]), proc.pid)


def cpu_ms(pid: int) -> float:
    """utime + stime of a process and its waited-for children, in ms."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) * 1000 / _CLK


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


# ---- rooms ----


@dataclass(frozen=True)
class Room:
    base: str  # the app serving it, http://host:port
    code: str
    key: str
    hops: int


def bundles() -> dict[str, str]:
    import flow

    trace = flow.load_trace(TRACE)
    return {lang: flow.bundle_json(flow.viewer_bundle(trace, lang=lang)) for lang in ("zh", "en")}


def redis_room(redis_url: str, base: str, texts: dict[str, str]) -> Room:
    """A room made in Redis from this process, as the Step page of any app process on that Redis makes one."""
    import flow
    from flow.rooms.redis_store import RedisRooms

    keys = RedisRooms(redis_url).create(texts, {}, flow.RoomView(index=0, lang=LANG))
    return Room(base, keys.code, keys.key, len(json.loads(texts[LANG])["hops"]))


async def page_room(browser: Any, base: str) -> tuple[Room, Any]:
    """A room made as a teacher makes one: the Step page, "Present to a room". The keys are not on the page: they
    are read from the teacher's viewer's first post of its view (the request that carries X-Room-Key). Returns
    the room and the teacher's browser context (keep it open while the room is used)."""
    context = await browser.new_context(locale="en-US", viewport={"width": 1280, "height": 720})
    page = await context.new_page()
    page.set_default_timeout(120_000)
    await page.goto(base)
    await page.locator("[data-flow-viewer][data-current]").wait_for()
    async with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/view")) as posted:
        await page.get_by_role("button", name="Present to a room").click()
    request = await posted.value
    code = request.url.rsplit("/", 2)[-2]
    key = (await request.all_headers())["x-room-key"]
    hops = await page.evaluate("() => window.__viewer.count")
    await page.wait_for_timeout(300)
    return Room(base, code, key, int(hops)), context


# ---- HTTP ----


def followers_client() -> httpx2.AsyncClient:
    """One client for a crowd of followers: a connection each, and no read timeout (a stream is quiet between
    steps)."""
    return httpx2.AsyncClient(
        timeout=httpx2.Timeout(10, read=None),
        limits=httpx2.Limits(max_connections=None, max_keepalive_connections=None),
    )


# ---- the teacher ----


@dataclass
class Sent:
    index: int
    at: float  # time.time() just before the request left
    id: int | None  # the event's id, from the answer; None if refused
    status: int


async def teach(room: Room, steps: int, pace_s: float = PACE_S) -> list[Sent]:
    """`steps` presses of →, one every `pace_s` (a steady schedule, not a sleep after each), from hop 1, each
    posted as the teacher's viewer posts it (one connection kept, as a browser keeps it)."""
    sent: list[Sent] = []
    start = time.monotonic()
    async with httpx2.AsyncClient(base_url=room.base, timeout=10) as http:
        for k in range(1, steps + 1):
            await asyncio.sleep(max(0.0, start + k * pace_s - time.monotonic()))
            index = k % room.hops
            at = time.time()
            got = await http.post(
                f"/room/{room.code}/view",
                json={"index": index, "lang": LANG, "quiz": False, "captions": False},
                headers={"X-Room-Key": room.key},
            )
            event_id = got.json().get("id") if got.status_code == 200 else None
            sent.append(Sent(index, at, event_id, got.status_code))
    return sent


# ---- the lighter follower ----


@dataclass
class Lite:
    base: str
    code: str
    got: list[tuple[int, int, float]] = field(default_factory=list)  # (event id, hop index, time.time())
    drops: int = 0
    why: list[str] = field(default_factory=list)  # each drop: what ended the stream
    after: int = 0
    token: str = ""  # the room's token for this follower: a stream shows it (flow.rooms.web)
    connected: asyncio.Event = field(default_factory=asyncio.Event)

    async def join(self, http: httpx2.AsyncClient) -> None:
        got = await http.post(f"{self.base}/room/{self.code}/join", json={})
        if got.status_code != 200:
            raise RuntimeError(f"join refused: {got.status_code} {got.text}")
        self.after = int(got.json()["snapshot"]["last"])
        self.token = str(got.json()["token"])

    async def follow(self, http: httpx2.AsyncClient) -> None:
        """GET /events from the last id heard, as EventSource does, until cancelled; a stream that ends is a drop,
        and the follower comes back (after the server's `retry`, 1 s) from where it was."""
        while True:
            why = "the stream ended"
            try:
                await self._stream(http)
            except (httpx2.HTTPError, ValueError) as exc:
                why = str(exc) or type(exc).__name__
            self.drops += 1
            self.why.append(why)
            await asyncio.sleep(1.0)

    async def _stream(self, http: httpx2.AsyncClient) -> None:
        async with http.sse(
            f"{self.base}/room/{self.code}/events", params={"after": self.after, "token": self.token}
        ) as source:
            if source.response.status_code != 200:
                body = (await source.response.aread()).decode(errors="replace")
                raise ValueError(f"events answered {source.response.status_code}: {body[-300:]}")
            self.connected.set()
            async for event in source:
                if event.id.isdigit():
                    self.after = int(event.id)
                if event.event == "view":
                    self.got.append((self.after, int(json.loads(event.data)["index"]), time.time()))


def _judge_ids(sent: list[Sent], got: list[tuple[int, int, float]]) -> tuple[list[float], int, int]:
    """(lags in ms, steps missed, steps out of order) for one follower that hears event ids."""
    at = {s.id: s.at for s in sent if s.id is not None}
    ids = [g[0] for g in got if g[0] in at]
    reordered = sum(1 for a, b in itertools.pairwise(ids) if b <= a)
    first: dict[int, float] = {}
    for event_id, _, t in got:
        first.setdefault(event_id, t)
    lags = [(first[i] - at[i]) * 1000 for i in at if i in first]
    return lags, len(at) - len(lags), reordered


def _judge_hops(sent: list[Sent], marks: list[tuple[int, float]]) -> tuple[list[float], int, int]:
    """The same for a browser follower, which shows hops (1-based), not event ids: the marks are matched to the
    presses in order; a press with no mark is missed, a mark matching no press in order is out of order."""
    ok = [s for s in sent if s.id is not None]
    lags: list[float] = []
    k = 0
    reordered = 0
    for hop, t in marks:
        j = k
        while j < len(ok) and ok[j].index + 1 != hop:
            j += 1
        if j == len(ok):
            reordered += 1
            continue
        lags.append((t - ok[j].at) * 1000)
        k = j + 1
    return lags, len(ok) - len(lags), reordered


@dataclass
class Phase:
    lags: list[float]  # ms, every follower's every step it showed
    missed: int  # steps a follower never heard
    reordered: int  # steps a follower heard after a later one
    drops: int  # streams that ended under a follower
    cpu_ms: float  # the server's, over the presses and the settling after
    rss_before_mb: float
    rss_mb: float  # the server's, with the followers connected
    busy_pct: float  # the whole machine's, over the presses
    refused: int  # presses the server refused
    why: list[str]  # what ended each dropped stream, with how many times
    wall_s: float = float("nan")  # the presses and the settling after
    heard: list[float] = field(default_factory=list)  # browser followers: ms to the step's event in the page
    unpainted: int = 0  # browser followers: steps heard but never painted (the viewer went on to a later one)
    page_busy_ms: float = float("nan")  # browser followers: each page's main-thread time per step

    @property
    def server_cpu_pct(self) -> float:
        return self.cpu_ms / self.wall_s / 10

    def p(self, q: float, values: list[float] | None = None) -> float:
        values = self.lags if values is None else values
        return percentile(values, q) if values else float("nan")


async def _teach_measured(
    room: Room,
    pid: int,
    steps: int,
    settled: Callable[[list[Sent]], Awaitable[None]] | None = None,
    pace_s: float = PACE_S,
) -> tuple[list[Sent], float, float, float]:
    """The presses, then the settling: (what was sent, the server's CPU ms, the machine's busy % over the
    presses, the seconds it all took)."""
    c0, (b0, t0), w0 = cpu_ms(pid), machine_busy(), time.monotonic()
    sent = await teach(room, steps, pace_s)
    b1, t1 = machine_busy()
    await (settled(sent) if settled else asyncio.sleep(SETTLE_S))
    return sent, cpu_ms(pid) - c0, 100 * (b1 - b0) / max(1, t1 - t0), time.monotonic() - w0


async def lite_phase(room: Room, pid: int, n: int, steps: int, extra: list[Lite] | None = None) -> Phase:
    """`n` lighter followers on the room's app (and `extra` ones elsewhere) through `steps` presses."""
    rss0 = rss_mb(pid)
    followers = [Lite(room.base, room.code) for _ in range(n)] + (extra or [])
    async with followers_client() as http:
        for i in range(0, len(followers), 20):  # a class arriving, twenty at a time
            await asyncio.gather(*(f.join(http) for f in followers[i : i + 20]))
        tasks = [asyncio.create_task(f.follow(http)) for f in followers]
        await asyncio.wait_for(asyncio.gather(*(f.connected.wait() for f in followers)), 60)
        await asyncio.sleep(0.5)
        rss1 = rss_mb(pid)
        sent, cpu, busy, wall = await _teach_measured(room, pid, steps)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    lags: list[float] = []
    missed = reordered = 0
    for f in followers:
        one, m, r = _judge_ids(sent, f.got)
        lags += one
        missed += m
        reordered += r
    return Phase(
        lags,
        missed,
        reordered,
        sum(f.drops for f in followers),
        cpu,
        rss0,
        rss1,
        busy,
        sum(1 for s in sent if s.id is None),
        [f"{n} × {w}" for w, n in collections.Counter(w for f in followers for w in f.why).most_common()],
        wall,
    )


# Installed before a follower page loads: every change of the highlighted hop, and every `view` event the page's
# EventSource hears (before room.mjs handles it), on the machine's clock (ms).
_MARKS = """(() => {
  window.__roomMarks = [];
  window.__roomHeard = [];
  const now = () => performance.timeOrigin + performance.now();
  new MutationObserver((records) => {
    const t = now();
    for (const r of records) {
      if (r.attributeName === 'data-current' && r.target.matches('[data-flow-viewer]') && r.target.dataset.current) {
        window.__roomMarks.push([+r.target.dataset.current, t]);
      }
    }
  }).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-current']});
  const Source = window.EventSource;
  window.EventSource = class extends Source {
    constructor(...args) {
      super(...args);
      this.addEventListener('view', (e) => window.__roomHeard.push([+e.lastEventId, now()]));
    }
  };
})();"""


@dataclass
class Pages:
    """Follower pages, one browser context each (its own tab, its own token), opened four at a time."""

    browser: Any
    room: Room
    pages: list[Any] = field(default_factory=list)
    cdp: list[Any] = field(default_factory=list)
    open_s: float = 0.0

    async def grow(self, n: int) -> None:
        gate = asyncio.Semaphore(4)
        t0 = time.monotonic()

        async def one() -> None:
            async with gate:
                context = await self.browser.new_context(locale="en-US", viewport={"width": 1280, "height": 720})
                await context.add_init_script(_MARKS)
                page = await context.new_page()
                page.set_default_timeout(120_000)
                await page.goto(f"{self.room.base}/room/{self.room.code}")
                await page.locator("[data-flow-viewer][data-current]").wait_for()
                cdp = await context.new_cdp_session(page)
                await cdp.send("Performance.enable")
                self.pages.append(page)
                self.cdp.append(cdp)

        await asyncio.gather(*(one() for _ in range(n - len(self.pages))))
        self.open_s += time.monotonic() - t0

    async def busy_s(self) -> list[float]:
        """Each page's main-thread time so far (Chromium's TaskDuration)."""
        got = await asyncio.gather(*(c.send("Performance.getMetrics") for c in self.cdp))
        return [next(m["value"] for m in g["metrics"] if m["name"] == "TaskDuration") for g in got]

    async def shrink(self, n: int) -> None:
        for page in self.pages[n:]:
            await page.context.close()
        del self.pages[n:], self.cdp[n:]

    async def local_busy_ms(self, steps: int) -> float:
        """The baseline: the pages step on their own (the viewer's goto, as a room's step calls it, at the
        teacher's pace), all at once; each page's main-thread ms per step. They stop following the room."""
        some = self.pages
        before = await self.busy_s()
        script = """async ({steps, pace}) => {
          const v = window.__viewer;
          for (let k = 0; k < steps; k++) { v.goto((v.index + 1) % v.count); await new Promise((r) => setTimeout(r, pace)); }
        }"""
        await asyncio.gather(*(p.evaluate(script, {"steps": steps, "pace": PACE_S * 1000}) for p in some))
        after = await self.busy_s()
        return statistics.fmean(b - a for a, b in zip(before, after, strict=True)) * 1000 / steps

    async def close(self) -> None:
        for page in self.pages:
            await page.context.close()


async def browser_phase(pages: Pages, pid: int, steps: int, rss0: float, pace_s: float = PACE_S) -> Phase:
    """The open follower pages through `steps` presses `pace_s` apart; after the last, until every page shows it
    (at most 30 s)."""
    await asyncio.sleep(1.0)
    rss1 = rss_mb(pid)
    start = time.time() * 1000
    busy0 = await pages.busy_s()

    async def caught_up(sent: list[Sent]) -> None:
        last = sent[-1].index + 1
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            shown = await asyncio.gather(
                *(p.evaluate("() => (window.__roomMarks.at(-1) || [0])[0]") for p in pages.pages)
            )
            if all(h == last for h in shown):
                break
            await asyncio.sleep(0.5)
        await asyncio.sleep(0.5)

    sent, cpu, busy, wall = await _teach_measured(pages.room, pid, steps, caught_up, pace_s)
    busy1 = await pages.busy_s()
    phase = Phase([], 0, 0, 0, cpu, rss0, rss1, busy, sum(1 for s in sent if s.id is None), [], wall)
    phase.page_busy_ms = statistics.fmean(b - a for a, b in zip(busy0, busy1, strict=True)) * 1000 / steps
    for page in pages.pages:
        marks = [(int(h), t / 1000) for h, t in await page.evaluate("() => window.__roomMarks") if t >= start]
        heard = [(int(i), 0, t / 1000) for i, t in await page.evaluate("() => window.__roomHeard") if t >= start]
        lags, unpainted, _ = _judge_hops(sent, marks)
        heard_lags, missed, reordered = _judge_ids(sent, heard)
        phase.lags += lags
        phase.heard += heard_lags
        phase.missed += missed
        phase.reordered += reordered
        phase.unpainted += max(0, unpainted - missed)
    return phase


def browser_keys(prefix: str, phase: Phase) -> dict[str, float]:
    """What every phase of follower pages reports, its keys after `prefix`."""
    figures = {
        "lag_p50_ms": phase.p(50),
        "lag_p95_ms": phase.p(95),
        "missed": phase.missed,
        "reordered": phase.reordered,
        "unpainted": phase.unpainted,
        "page_busy_ms_per_step": phase.page_busy_ms,
        "machine_busy_pct": phase.busy_pct,
    }
    return {prefix + key: value for key, value in figures.items()}


async def idle_cpu(room: Room, pid: int, steps: int, pace_s: float = PACE_S) -> float:
    """The baseline: the server's CPU ms a second for the presses at the same pace with nobody following."""
    _, cpu, _, wall = await _teach_measured(room, pid, steps, pace_s=pace_s)
    return cpu / wall


# ---- the whole ----


def room_figures(quick: bool = False) -> dict[str, Any]:
    """Every figure of the rooms' load test (a few followers and steps with `quick`)."""
    few, followers, lite_followers, steps = (2, 4, 10, 10) if quick else (5, 40, 200, 50)
    use_redis = redis_available()
    texts = bundles() if use_redis else {}
    with contextlib.ExitStack() as stack:
        redis_url = stack.enter_context(redis_server()) if use_redis else None
        a = stack.enter_context(serve(redis_url))
        b = stack.enter_context(serve(redis_url)) if redis_url else None
        return asyncio.run(_measure(a, b, redis_url, texts, (few, followers, lite_followers), steps))


async def _measure(
    a: App, b: App | None, redis_url: str | None, texts: dict[str, str], sizes: tuple[int, int, int], steps: int
) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    few, followers, lite_n = sizes
    out: dict[str, Any] = {
        "store": "redis" if redis_url else "memory",
        "load_avg_1m": os.getloadavg()[0],  # others' work on this machine when the run began
        "followers": followers,
        "steps": steps,
    }
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        rooms = _Rooms(browser, a.url, redis_url, texts)
        try:
            room = await rooms.new()
            await lite_phase(room, a.pid, 2, 5)  # warm: the routes, the store's first calls (Redis: its scripts)
            # Each pace has its own baseline: the server's work grows with the presses a second, not only with time.
            idle = await idle_cpu(room, a.pid, min(steps, 20))
            idle_class = await idle_cpu(room, a.pid, min(steps, 20), CLASS_PACE_S)
            out["idle_cpu_ms_per_s"] = idle
            out.update(await _browser_figures(browser, room, a.pid, (few, followers), steps, (idle, idle_class)))
            out.update(await _lite_figures(rooms, a.pid, (followers, lite_n), steps, idle))
            if b is not None and redis_url:
                room = await asyncio.to_thread(redis_room, redis_url, a.url, texts)
                out.update(await _cross_process_figures(room, a.pid, b, steps))
            else:
                out["redis_cross_process"] = None  # not measured: no Redis store or no redis-server here
        finally:
            await rooms.close()
            await browser.close()
    return out


class _Rooms:
    """A new room for each phase: in Redis as the Step page makes one, or opened by a teacher's page (the page of
    the room before is closed, and its room with it)."""

    def __init__(self, browser: Any, base: str, redis_url: str | None, texts: dict[str, str]) -> None:
        self.browser, self.base, self.redis_url, self.texts = browser, base, redis_url, texts
        self.teacher: Any = None

    async def new(self) -> Room:
        if self.redis_url:  # the store is synchronous there, as on the Step page's script thread
            return await asyncio.to_thread(redis_room, self.redis_url, self.base, self.texts)
        if self.teacher is not None:
            await self.teacher.close()  # its room closes with the next one
        room, self.teacher = await page_room(self.browser, self.base)
        return room

    async def close(self) -> None:
        if self.teacher is not None:
            await self.teacher.close()


def _per_follower_step(phase: Phase, n: int, steps: int, baseline: float) -> float:
    """The server's CPU time (ms) per follower per step, over what it spends idle at the same pace."""
    return (phase.cpu_ms - baseline * phase.wall_s) / (n * steps)


async def _browser_figures(
    browser: Any, room: Room, pid: int, sizes: tuple[int, int], steps: int, idle: tuple[float, float]
) -> dict[str, Any]:
    """A few pages first, then the whole class at a lecture's pace, then the whole class with the teacher
    holding →: the lag with the machine to spare, then without."""
    (few, followers), (idle_stress, idle_class) = sizes, idle
    pages = Pages(browser, room)
    rss0 = rss_mb(pid)
    await pages.grow(few)
    first = await browser_phase(pages, pid, steps, rss0)
    await pages.grow(followers)
    shown = await browser_phase(pages, pid, steps, rss0, CLASS_PACE_S)
    stress = await browser_phase(pages, pid, steps, rss0)
    await pages.shrink(few)  # the baseline with the machine as the few pages had it
    local = await pages.local_busy_ms(20)
    await pages.close()
    return dict(
        pace_s=CLASS_PACE_S,
        **browser_keys("", shown),
        heard_p50_ms=shown.p(50, shown.heard),
        heard_p95_ms=shown.p(95, shown.heard),
        refused_presses=shown.refused,
        cpu_ms_per_follower_step=_per_follower_step(shown, followers, steps, idle_class),
        rss_mb_per_follower=(shown.rss_mb - rss0) / followers,
        server_cpu_pct=shown.server_cpu_pct,
        pages_open_s=pages.open_s,
        few_followers=few,
        **browser_keys("few_", first),
        local_page_busy_ms_per_step=local,
        room_over_local_busy=first.page_busy_ms / local,
        stress_pace_s=PACE_S,
        **browser_keys("stress_", stress),
        stress_cpu_ms_per_follower_step=_per_follower_step(stress, followers, steps, idle_stress),
    )


async def _lite_figures(rooms: _Rooms, pid: int, sizes: tuple[int, int], steps: int, idle: float) -> dict[str, Any]:
    """Light followers, each in a room of its own: as many as the browsers were, then a crowd of them."""
    followers, lite_n = sizes
    lite40 = await lite_phase(await rooms.new(), pid, followers, steps)
    lite = await lite_phase(await rooms.new(), pid, lite_n, steps)
    return dict(
        lite_as_browsers_lag_p50_ms=lite40.p(50),
        lite_as_browsers_lag_p95_ms=lite40.p(95),
        lite_as_browsers_missed=lite40.missed,
        lite_as_browsers_reordered=lite40.reordered,
        lite_as_browsers_cpu_ms_per_follower_step=_per_follower_step(lite40, followers, steps, idle),
        lite_as_browsers_rss_mb_per_follower=(lite40.rss_mb - lite40.rss_before_mb) / followers,
        lite_followers=lite_n,
        lite_lag_p50_ms=lite.p(50),
        lite_lag_p95_ms=lite.p(95),
        lite_missed=lite.missed,
        lite_reordered=lite.reordered,
        lite_dropped=lite.drops,
        lite_drop_reasons=lite.why,
        lite_cpu_ms_per_follower_step=_per_follower_step(lite, lite_n, steps, idle),
        lite_rss_mb_per_follower=(lite.rss_mb - lite.rss_before_mb) / lite_n,
        lite_server_cpu_pct=lite.server_cpu_pct,
        lite_machine_busy_pct=lite.busy_pct,
    )


async def _cross_process_figures(room: Room, pid: int, b: App, steps: int) -> dict[str, Any]:
    """Followers on a second app process, in a room the first one serves: Redis carries every step across."""
    there = [Lite(b.url, room.code) for _ in range(5)]
    cross = await lite_phase(room, pid, 0, steps, extra=there)
    ok = cross.missed == 0 and cross.reordered == 0 and cross.drops == 0 and len(cross.lags) > 0
    return dict(
        redis_cross_process=ok,
        cross_lag_p50_ms=cross.p(50),
        cross_lag_p95_ms=cross.p(95),
        cross_missed=cross.missed,
        cross_reordered=cross.reordered,
    )
