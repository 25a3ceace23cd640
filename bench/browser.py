"""The trace viewer in headless Chromium: how fast a step paints, whether presses and autoplay keep pace,
how soon Step through shows, and whether the current arrow stays in view (issue 13's targets).

Both hosts are measured: the app's Step through page (`streamlit run` on a free loopback port) and the
self-contained file of `python -m flow render --format html`. Step times are taken inside the page
(performance.now() around a key event until the viewer marks the position painted), so the driver's
round trips are not in them. Figures are printed and written, never asserted.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_traces"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
SIZES = [(1280, 720), (1920, 1080)]
PAINTED = "[data-flow-viewer][data-current]"

# One timed step per round: the key goes in as a page event, and the time is read when the viewer marks the
# new position painted (data-current). The pauses between steps vary, so that in the app some presses land
# while the page handles the viewer's report of the previous one (sent 300 ms after the presses settle), as
# a class's clicker would. At the last hop, Home (untimed) starts over.
_STEPS = """async ({count, gaps}) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const press = (key) => document.body.dispatchEvent(
    new KeyboardEvent('keydown', {key, bubbles: true, cancelable: true}));
  const painted = (root, pos) => new Promise((resolve) => {
    if (root.dataset.current === String(pos)) { resolve(true); return; }
    const timer = setTimeout(() => { obs.disconnect(); resolve(false); }, 10000);
    const obs = new MutationObserver(() => {
      if (root.dataset.current === String(pos)) { clearTimeout(timer); obs.disconnect(); resolve(true); }
    });
    obs.observe(root, {attributes: true, attributeFilter: ['data-current']});
  });
  const times = []; let lost = 0;
  for (let k = 0; k < count; k++) {
    let v = window.__viewer;
    if (v.index >= v.count - 1) { press('Home'); await painted(v.root, 1); await sleep(gaps[0]); v = window.__viewer; }
    const target = v.index + 2;
    const done = painted(v.root, target);
    const t0 = performance.now();
    press('ArrowRight');
    if (await done) times.push(performance.now() - t0); else lost += 1;
    await sleep(gaps[k % gaps.length]);
  }
  return {times, lost};
}"""

# The current row (arrow, its label, the parts of a self-call) against the viewport and the diagram's scroll box:
# {ok, arrow, box}. The browser tests call it for one hop; _OUT_OF_VIEW for every hop.
CURRENT_IN_VIEW = """() => {
  const root = window.__viewer.root;
  const box = root.querySelector('.fv-diagram').getBoundingClientRect();
  const parts = [...root.querySelectorAll('.fv-svg g.fv-current')];
  if (!parts.length) return {ok: false, why: 'nothing highlighted'};
  let top = Infinity, bottom = -Infinity, left = Infinity, right = -Infinity;
  for (const p of parts) {
    const r = p.getBoundingClientRect();
    top = Math.min(top, r.top); bottom = Math.max(bottom, r.bottom);
    left = Math.min(left, r.left); right = Math.max(right, r.right);
  }
  const inside = (t, b, l, r) => top >= t - 0.5 && bottom <= b + 0.5 && left >= l - 0.5 && right <= r + 0.5;
  // Below the lifelines' names where they are kept at the top of the scrolled box (diagram.mjs drawHeads).
  const heads = root.querySelector('.fv-heads.fv-on svg');
  const under = heads ? heads.getBoundingClientRect().bottom : box.top;
  const ok = inside(0, innerHeight, 0, innerWidth) && inside(under, box.bottom, box.left, box.right);
  return {ok, arrow: [left, top, right, bottom].map(Math.round), viewport: [innerWidth, innerHeight],
          box: [box.left, box.top, box.right, box.bottom].map(Math.round)};
}"""

# Every hop of the loaded trace: go there, let the scroll settle, then check the current row (CURRENT_IN_VIEW).
_OUT_OF_VIEW = (
    """async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const inView = """
    + CURRENT_IN_VIEW
    + """;
  const v = window.__viewer;
  const bad = [];
  for (let i = 0; i < v.count; i++) {
    v.goto(i);
    const t0 = performance.now();
    while (v.root.dataset.current !== String(i + 1) && performance.now() - t0 < 5000) await frame();
    const diagram = v.root.querySelector('.fv-diagram');
    let last = '', same = 0;
    while (same < 3 && performance.now() - t0 < 3000) {
      await frame();
      const now = diagram.scrollTop + ',' + diagram.scrollLeft;
      same = now === last ? same + 1 : 0; last = now;
    }
    const seen = inView();
    if (!seen.ok) bad.push({hop: i + 1, ...seen});
  }
  return bad;
}"""
)

# Times of each change of position while autoplay runs (performance.now(), ms).
_WATCH = """() => {
  const root = window.__viewer.root;
  window.__benchMarks = [];
  let last = root.dataset.current;
  new MutationObserver(() => {
    if (root.dataset.current !== last) { last = root.dataset.current; window.__benchMarks.push(performance.now()); }
  }).observe(root, {attributes: true, attributeFilter: ['data-current']});
}"""

# Installed before the page loads: when the viewer first marks a position painted, relative to the request.
_FIRST_PAINT = """(() => {
  window.__benchPainted = null;
  const look = () => {
    const v = window.__viewer;
    if (v && v.root && v.root.dataset.current) { window.__benchPainted = performance.now(); return; }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();"""


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile: the smallest value with at least p % of the values at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def app_process(
    env: dict[str, str] | None = None,
    *,
    stderr: int = subprocess.DEVNULL,
    command: Callable[[int], list[str]] | None = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`mcp-flow app` (the pages and the rooms' routes, as `./dev.sh app` serves them), or `command(port)`, on a
    free loopback port, in the clone's root, with no OPENAI_ variables and the given ones; stopped afterwards. Yields
    its URL and its process, once it answers its health check (`stderr=subprocess.PIPE` keeps what it said on its
    console for the caller)."""
    from flow.cli.app import app_command

    port = _free_port()
    base = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_") and k != "MCP_FLOW_ROOMS_REDIS"}
    proc = subprocess.Popen(
        command(port) if command else app_command(port=port),  # by default what `mcp-flow app --port PORT` runs
        cwd=ROOT,
        env={**base, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("the app (mcp-flow app) did not start") from None
                time.sleep(0.1)
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def serve_app() -> Iterator[str]:
    """The app on a free loopback port (app_process); yields its URL."""
    with app_process() as (url, _):
        yield url


def _open(browser: Any, url: str, size: tuple[int, int] = SIZES[0]) -> Any:
    context = browser.new_context(locale="en-US", viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.set_default_timeout(120_000)
    page.goto(url)
    page.locator(PAINTED).wait_for()
    return page


def _goto(page: Any, index: int) -> None:
    page.evaluate("i => window.__viewer.goto(i)", index)
    page.locator(f"[data-flow-viewer][data-current='{index + 1}']").wait_for()


def _steps(page: Any, count: int, gaps_ms: list[int]) -> dict[str, Any]:
    """`count` timed steps; beside the times, the page's main-thread busy time per step (Chromium's TaskDuration),
    which other work on a shared machine does not inflate as it does the wall clock."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")

    def busy() -> float:
        return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "TaskDuration")

    before = busy()
    got = page.evaluate(_STEPS, {"count": count, "gaps": gaps_ms})
    cpu_ms = (busy() - before) * 1000 / count
    cdp.detach()
    times = got["times"] or [math.nan]
    return {"p50": statistics.median(times), "p95": percentile(times, 95), "lost": got["lost"], "cpu": cpu_ms}


def _upload(page: Any, path: Path, hops: int) -> None:
    """Load a trace file into Step through through the sidebar's uploader, and wait until the viewer shows it."""
    page.get_by_text("Upload a file", exact=True).click()
    # From a position other than the first, so the new trace (which starts at its first hop) is seen arriving.
    if page.evaluate("() => window.__viewer.count") > 1:
        _goto(page, 1)
    page.locator("input[type='file']").first.set_input_files(str(path))  # the trace's; the second is its questions
    page.wait_for_function(
        "n => window.__viewer && window.__viewer.count === n && window.__viewer.root.dataset.current === '1'", arg=hops
    )
    page.wait_for_timeout(300)


def _presenter(page: Any, on: bool) -> None:
    if (page.locator("[data-flow-viewer]").get_attribute("data-mode") == "presenter") != on:
        page.locator(".fv-presenter").click()
    page.locator(f"[data-flow-viewer][data-mode='{'presenter' if on else 'normal'}']").wait_for()


def _out_of_view(page: Any, where: str, hops: int) -> tuple[int, list[str]]:
    """Every hop of what is loaded, normal and presenter mode, at each size: (cases checked, cases out of view)."""
    shown = page.evaluate("() => window.__viewer.count")
    if shown != hops:
        raise RuntimeError(f"{where}: the viewer shows {shown} hops, the trace has {hops}")
    checked, bad = 0, []
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.wait_for_timeout(200)
        for presenter in (False, True):
            _presenter(page, presenter)
            checked += hops
            mode = "presenter" if presenter else "normal"
            bad += [
                f"{where} {size[0]}x{size[1]} {mode} hop {b['hop']}: "
                + json.dumps({k: v for k, v in b.items() if k != "hop"})
                for b in page.evaluate(_OUT_OF_VIEW)
            ]
    _presenter(page, False)
    page.set_viewport_size({"width": SIZES[0][0], "height": SIZES[0][1]})
    return checked, bad


def _painted_s(page: Any) -> float:
    page.wait_for_function("() => window.__benchPainted !== null")
    return page.evaluate("() => window.__benchPainted") / 1000


def _first_render(browser: Any, url: str, repeats: int) -> tuple[list[float], list[float], list[float]]:
    """Seconds from requesting Step through to the viewer painted, warm server: in a new browser context
    (nothing cached: Streamlit's 3 MB of scripts come over the wire), then reloaded (the browser's cache warm);
    with the machine's 1-minute load average after each, since other work on a shared machine slows both."""
    fresh, cached, load = [], [], []
    for _ in range(repeats):
        context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 720})
        context.add_init_script(_FIRST_PAINT)
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(url)
        fresh.append(_painted_s(page))
        page.reload()
        cached.append(_painted_s(page))
        context.close()
        load.append(os.getloadavg()[0])
    return fresh, cached, load


def _autoplay(page: Any, steps: int) -> dict[str, float]:
    """Autoplay at 1 s a step from the first hop: the mean period between painted positions over `steps` steps."""
    _goto(page, 0)
    page.locator(".fv-speed").select_option("1")
    page.evaluate(_WATCH)
    page.locator(".fv-play").click()
    page.wait_for_function("n => window.__benchMarks.length >= n", arg=steps + 1, timeout=(steps + 10) * 1000)
    page.locator(".fv-play").click()  # pause
    marks = page.evaluate("() => window.__benchMarks")[: steps + 1]
    gaps = [b - a for a, b in itertools.pairwise(marks)]
    period = (marks[-1] - marks[0]) / steps
    return {
        "autoplay_period_ms": period,
        "autoplay_error_pct": (period - 1000) / 10,
        "autoplay_worst_step_ms": max(gaps, key=lambda g: abs(g - 1000)),
    }


def _presses(page: Any, count: int) -> int:
    """`count` presses of → 50 ms apart through the keyboard (real input events); how many hops the viewer moved."""
    _goto(page, 0)
    page.locator(".fv-title").click()  # the keys go to the page, not to a sidebar widget
    for _ in range(count):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(50)
    page.wait_for_timeout(1500)  # let every press land and the page settle
    return int(page.evaluate("() => window.__viewer.index"))


def _render_html(trace_file: Path, out: Path) -> None:
    """The self-contained file, made as a user makes it: `python -m flow render --format html`."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "flow",
            "render",
            str(trace_file),
            "--format",
            "html",
            "--lang",
            "en",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=300,
    )


def browser_figures(quick: bool) -> dict[str, Any]:
    """Every browser figure of issue 13, for the app and the HTML file."""
    from flow.samples import synthetic_trace
    from flow.trace.files import load_trace
    from flow.views.html import to_html

    large_n = 100 if quick else 1000
    # The app opens on the Beijing MCP sample: it comes first, and the others are uploaded.
    others = [] if quick else sorted(p.stem for p in SAMPLES.glob("*.json") if p.stem != "beijing-mcp")
    samples = ["beijing-mcp", *others]
    with tempfile.TemporaryDirectory() as tmp_name:
        # Every file first: making a trace runs an event loop, which cannot start inside Playwright's.
        tmp = Path(tmp_name)
        files = {
            "large": tmp / f"synthetic-{large_n}.json",
            "html": tmp / "beijing-mcp.html",
            "html_large": tmp / f"synthetic-{large_n}.html",
        }
        files["large"].write_text(synthetic_trace(large_n).to_json(), encoding="utf-8")
        _render_html(SAMPLES / "beijing-mcp.json", files["html"])
        _render_html(files["large"], files["html_large"])
        hops = {}
        for name in samples:
            trace = load_trace(SAMPLES / f"{name}.json")
            hops[name] = len(trace.hops)
            files[f"html:{name}"] = tmp / f"{name}.html"
            files[f"html:{name}"].write_text(to_html(trace, lang="en"), encoding="utf-8")
        two_rounds = len(load_trace(SAMPLES / "two-rounds.json").hops)  # the presses' trace: 20 never reach its end
        out = _measure(files, hops, large_n, quick, two_rounds)
    out["large_trace_hops"] = large_n
    return out


def _measure(
    files: dict[str, Path], hops: dict[str, int], large_n: int, quick: bool, two_rounds: int
) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    repeats = 6 if quick else 40
    pauses = [50, 150] if quick else [200, 450, 1000]  # between timed steps, in turn
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            with serve_app() as url:
                out, app_cases, app_checked = _app_figures(
                    browser, url, files, hops, large_n, two_rounds, quick=quick, repeats=repeats, pauses=pauses
                )
            html, html_cases, html_checked = _html_figures(browser, files, hops, large_n, repeats, pauses)
            out.update(html)
        finally:
            browser.close()
    cases = app_cases + html_cases
    out["out_of_view"] = len(cases)
    out["out_of_view_html"] = len(cases) - out["out_of_view_app"]
    out["out_of_view_checked"] = app_checked + html_checked
    out["out_of_view_cases"] = cases
    return out


def _app_figures(
    browser: Any,
    url: str,
    files: dict[str, Path],
    hops: dict[str, int],
    large_n: int,
    two_rounds: int,
    *,
    quick: bool,
    repeats: int,
    pauses: list[int],
) -> tuple[dict[str, Any], list[str], int]:
    """The app's viewer: its first render, steps on a sample and on a large trace, autoplay, presses, and every
    sample checked for arrows out of view (the cases found, and how many arrows were checked)."""
    out: dict[str, Any] = {}
    cases: list[str] = []
    checked = 0
    _open(browser, url).context.close()  # warm: the first session imports and draws
    fresh, cached, load = _first_render(browser, url, 2 if quick else 5)
    out.update(
        first_render_s=statistics.median(fresh),
        first_render_max_s=max(fresh),
        first_render_cached_s=statistics.median(cached),
        first_render_load=statistics.median(load),
    )

    page = _open(browser, url)
    small = _steps(page, repeats, pauses)
    out.update(
        step_p50_ms=small["p50"],
        step_p95_ms=small["p95"],
        step_busy_ms=small["cpu"],
        steps_lost=small["lost"],
    )
    out.update(_autoplay(page, 2 if quick else 6))
    for name, n_hops in hops.items():
        if name != "beijing-mcp":
            _upload(page, SAMPLES / f"{name}.json", n_hops)
        n, bad = _out_of_view(page, f"app {name}", n_hops)
        checked += n
        cases += bad
    out["out_of_view_app"] = len(cases)
    _upload(page, SAMPLES / "two-rounds.json", two_rounds)
    out["presses_sent"] = 20
    out["presses_moved"] = _presses(page, 20)
    _upload(page, files["large"], large_n)
    _goto(page, large_n // 10)
    large = _steps(page, repeats, pauses)
    out.update(
        large_step_p50_ms=large["p50"],
        large_step_p95_ms=large["p95"],
        large_step_busy_ms=large["cpu"],
        large_steps_lost=large["lost"],
    )
    page.context.close()
    return out, cases, checked


def _html_figures(
    browser: Any, files: dict[str, Path], hops: dict[str, int], large_n: int, repeats: int, pauses: list[int]
) -> tuple[dict[str, Any], list[str], int]:
    """The exported HTML viewer: steps on a sample and on a large trace, and every sample checked for arrows out
    of view (the cases found, and how many arrows were checked)."""
    cases: list[str] = []
    checked = 0
    page = _open(browser, files["html"].as_uri())
    small = _steps(page, repeats, pauses)
    out: dict[str, Any] = dict(
        html_step_p50_ms=small["p50"], html_step_p95_ms=small["p95"], html_step_busy_ms=small["cpu"]
    )
    page.context.close()
    page = _open(browser, files["html_large"].as_uri())
    _goto(page, large_n // 10)
    large = _steps(page, repeats, pauses)
    out.update(
        html_large_step_p50_ms=large["p50"],
        html_large_step_p95_ms=large["p95"],
        html_large_step_busy_ms=large["cpu"],
        html_steps_lost=small["lost"] + large["lost"],
    )
    page.context.close()
    for name in hops:
        page = _open(browser, files[f"html:{name}"].as_uri())
        n, bad = _out_of_view(page, f"html {name}", hops[name])
        checked += n
        cases += bad
        page.context.close()
    return out, cases, checked
