"""The benchmark: every figure as a ratio against a baseline measured in the same run.

    python -m bench            # full sizes; prints a table and writes bench/results.json
    python -m bench --quick    # tiny sizes, a few repeats: checks that every figure is produced (writes no file)
    python -m bench --browser  # only the viewer in headless Chromium (bench/browser.py); --quick and --out as above
    python -m bench --room     # only the classroom rooms under load (bench/room.py: the app, Chromium, Redis)
    python -m bench --no-browser  # everything else (the test suite's quick run: the browser parts take minutes)

A run of one part (--browser, --room, --no-browser) writing bench/results.json replaces only its parts' keys.

These machines are noisy, so the targets are judged on ratios and medians, never asserted in tests.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
import tracemalloc
import urllib.request
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import anyio

import flow
from bench.browser import browser_figures
from bench.hosted import approval_figures, hosted_figures
from bench.room import room_figures
from flow.capture.recorder import NullRecorder, Recorder
from flow.cli.app import app_command
from flow.engine.options import RunOptions
from flow.runs import run_flow
from flow.samples import synthetic_trace
from flow.servers.connect import open_session
from flow.servers.spec import ServerSpec, TransportName
from flow.views.diagram import MAX_ARROWS, to_dot, to_mermaid
from flow.views.html import to_html
from flow.views.table import hop_dataframe
from weather_demo.server import shared_server

ROOT = Path(__file__).resolve().parent.parent

QUESTIONS = ["北京今天天气怎么样？", "北京和上海今天天气怎么样？"]  # one tool round, then a parallel round


def median_ms(fn: Callable[[], Any], repeats: int, warmup: int = 2) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


async def amedian_ms(fn: Callable[[], Awaitable[Any]], repeats: int, warmup: int = 2) -> float:
    for _ in range(warmup):
        await fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        await fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


async def _flow(recorder_cls: type[Recorder], transport: TransportName = "memory") -> None:
    for question in QUESTIONS:
        result = await run_flow(question, options=RunOptions(transport=transport), recorder=recorder_cls())
        assert result.ok, result.error


async def _bare_sdk() -> None:
    """The floor: the same SDK calls with no orchestrator and no recording."""
    import httpx2
    import openai
    from mcp import Client
    from mcp.client._memory import InMemoryTransport
    from mcp_types import TextContent

    from flow.backends.mock import MockModelTransport

    model = openai.AsyncOpenAI(
        api_key="x",
        base_url="http://mock.local/v1",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=MockModelTransport()),
    )
    async with Client(InMemoryTransport(shared_server()), mode="legacy", cache=None) as client, model:
        for question, cities in zip(QUESTIONS, (["北京"], ["北京", "上海"]), strict=True):
            tools = (await client.list_tools()).tools
            schema: list[Any] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description or "", "parameters": t.input_schema},
                }
                for t in tools
            ]
            messages: list[Any] = [{"role": "user", "content": question}]
            first = await model.chat.completions.create(model="mock", messages=messages, tools=schema)
            messages.append(first.choices[0].message.model_dump(exclude_none=True))
            for call, city in zip(first.choices[0].message.tool_calls or [], cities, strict=False):
                block = (await client.call_tool("get_weather", {"city": city})).content[0]
                assert isinstance(block, TextContent)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": block.text})
            await model.chat.completions.create(model="mock", messages=messages, tools=schema)


def recording_overhead(repeats: int) -> dict[str, float]:
    """Recording on, off (the null recorder) and the bare SDK calls, timed in rounds of one run each.

    The order alternates from round to round (on, off, bare; then bare, off, on), so that drift in the
    machine's speed, and whatever one run leaves behind for the next, fall on all three alike; every
    timed run starts from a collected heap, so none pays for the garbage of the run before it. The
    overhead is the median over rounds of on / off within a round: the two runs of a pair are
    milliseconds apart, where other work on a shared machine can slow a whole stretch of rounds.
    Process CPU time is taken beside the wall clock: time spent waiting for a core is not in it."""

    async def main() -> dict[str, float]:
        runs = {"on": lambda: _flow(Recorder), "off": lambda: _flow(NullRecorder), "bare": _bare_sdk}
        wall: dict[str, list[float]] = {k: [] for k in runs}
        cpu: dict[str, list[float]] = {k: [] for k in runs}
        load: list[float] = []
        names = list(runs)
        for i in range(repeats + 2):
            for name in names if i % 2 == 0 else names[::-1]:
                gc.collect()
                t0, c0 = time.perf_counter(), time.process_time()
                await runs[name]()
                t1, c1 = time.perf_counter(), time.process_time()
                if i >= 2:  # the first rounds warm up
                    wall[name].append((t1 - t0) * 1000)
                    cpu[name].append((c1 - c0) * 1000)
            load.append(os.getloadavg()[0])
        on, off, bare = (statistics.median(wall[k]) for k in ("on", "off", "bare"))

        def paired(a: list[float], b: list[float]) -> float:
            return statistics.median(x / y for x, y in zip(a, b, strict=True))

        return {
            "recorded_ms": on,
            "recorded_ms_per_question": on / len(QUESTIONS),
            "unrecorded_ms": off,
            "bare_sdk_ms": bare,
            "recorded_over_unrecorded": paired(wall["on"], wall["off"]),
            "recorded_over_unrecorded_cpu": paired(cpu["on"], cpu["off"]),
            "ratio_of_medians": on / off,
            "recorded_over_bare": paired(wall["on"], wall["bare"]),
            "recording_load": statistics.median(load),
        }

    return anyio.run(main)


def stdio_cold_warm(repeats: int) -> dict[str, float]:
    async def main() -> dict[str, float]:
        memory = await amedian_ms(lambda: _flow(Recorder, "memory"), repeats)
        cold = await amedian_ms(lambda: _flow(Recorder, "stdio"), max(2, repeats // 4), warmup=1)
        async with open_session(ServerSpec(transport="stdio"), era="handshake", recorder=Recorder()) as session:

            async def warm_flow() -> None:
                for question in QUESTIONS:
                    result = await run_flow(question, options=RunOptions(transport="stdio"), session=session)
                    assert result.ok, result.error

            warm = await amedian_ms(warm_flow, repeats)
        return {
            "memory_ms": memory,
            "stdio_cold_ms": cold,
            "stdio_warm_ms": warm,
            "warm_over_memory": warm / memory,
            "cold_over_warm": cold / warm,
        }

    return anyio.run(main)


def scaling(sizes: list[int], repeats: int) -> list[dict[str, float]]:
    rows = []
    for n in sizes:
        trace = synthetic_trace(n)
        text = trace.to_json().encode()
        middle = trace.hops[n // 2].seq
        r = max(1, repeats if n <= 1000 else repeats // 3)
        figures = {
            "load_validate": median_ms(partial(flow.read_trace_bytes, text), r, 1),
            "dot_frame": median_ms(partial(to_dot, trace, current=middle, window=36), r, 1),
            "hop_table": median_ms(partial(hop_dataframe, trace), r, 1),
            "mermaid": median_ms(partial(to_mermaid, trace), r, 1),
        }
        if n <= MAX_ARROWS:  # one HTML page draws the whole trace: a longer one is refused
            figures["html"] = median_ms(partial(to_html, trace), max(1, r // 3), 0)
        row: dict[str, float] = {"hops": n, "file_kb": len(text) / 1024}
        for name, ms in figures.items():
            row[f"{name}_ms"] = ms
            row[f"{name}_us_per_hop"] = ms * 1000 / n
        rows.append(row)
    return rows


def app_step_change(n_hops: int, repeats: int) -> dict[str, float]:
    """Server-side time of the run that follows a step on the step page, measured through AppTest.

    The browser steps by itself; once the presses settle, the viewer reports the hop it shows and the
    page's fragment reruns. AppTest reruns the whole page for that report, so this is an upper bound."""
    from streamlit.testing.v1 import AppTest

    from flow.views.viewer import trace_digest

    def per_report(trace: flow.Trace) -> float:
        at = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=120).run()
        at.radio(key="step_source_zh").set_value("upload").run()
        at.file_uploader(key="step_upload").set_value(("t.json", trace.to_json().encode(), "application/json")).run()
        assert not at.exception and not at.error, at.error
        digest = trace_digest(trace)
        middle = max(1, len(trace.hops) // 2)
        hops = iter([middle + 1, middle] * (repeats + 2))  # back and forth around the middle, never off an end

        def report() -> None:
            # What the viewer's setStateValue("hop", ...) sends, beside the other widgets' values.
            states = at._tree.get_widget_states()
            widget = states.widgets.add()
            widget.id = at.get("bidi_component")[0].proto.id
            widget.json_value = json.dumps({"hop": {"trace": digest, "hop": next(hops)}})
            at._run(states)

        return median_ms(report, repeats, warmup=1)

    small = per_report(flow.load_trace(ROOT / "sample_traces" / "beijing-mcp.json"))
    large = per_report(synthetic_trace(n_hops))
    return {
        "small_trace_step_ms": small,
        "large_trace_step_ms": large,
        "large_over_small": large / small,
        "large_trace_hops": n_hops,
    }


def app_startup() -> dict[str, float]:
    """Seconds from `streamlit run` to the health endpoint answering, against bare Python starting."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import streamlit"], check=True)
    import_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        app_command(port=port),  # what `mcp-flow app` runs
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1).read() == b"ok":
                    break
            except OSError:
                if time.perf_counter() - t0 > 120:
                    raise RuntimeError("the app did not start within 120 s") from None
                time.sleep(0.05)
        startup_s = time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    return {"startup_s": startup_s, "import_streamlit_s": import_s, "startup_over_import": startup_s / import_s}


def memory(n_hops: int) -> dict[str, float]:
    text = synthetic_trace(n_hops).to_json().encode()
    tracemalloc.start()
    flow.read_trace_bytes(text)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"hops": n_hops, "file_mb": len(text) / 2**20, "peak_mb": peak / 2**20, "peak_over_file": peak / len(text)}


TARGETS = {
    "recorded_over_unrecorded": ("<=", 1.10),
    "recorded_ms_per_question": ("<", 20.0),
    "warm_over_memory": ("<=", 1.5),
    "large_trace_step_ms": ("<", 150.0),
    # issue 13: the viewer in the browser
    "step_p50_ms": ("<=", 50.0),
    "step_p95_ms": ("<=", 100.0),
    "large_step_p50_ms": ("<=", 50.0),
    "large_step_p95_ms": ("<=", 100.0),
    "html_step_p50_ms": ("<=", 50.0),
    "html_step_p95_ms": ("<=", 100.0),
    "html_large_step_p50_ms": ("<=", 50.0),
    "html_large_step_p95_ms": ("<=", 100.0),
    "presses_moved": ("==", 20),
    "autoplay_error_pct": ("±", 10.0),
    "first_render_s": ("<=", 1.5),
    "out_of_view": ("==", 0),
    # classroom rooms: the teacher's press to the followers' highlighted hop
    "lag_p95_ms": ("<=", 1000.0),
    "missed": ("==", 0),
    "reordered": ("==", 0),
    "stress_lag_p95_ms": ("<=", 1000.0),
    "lite_lag_p95_ms": ("<=", 1000.0),
    "lite_dropped": ("==", 0),
}


# The figures a shared machine's other work moves most, each with the 1-minute load average taken beside it.
LOAD_OF = {
    "recorded_over_unrecorded": "recording_load",
    "recorded_over_unrecorded_cpu": "recording_load",
    "first_render_s": "first_render_load",
}


def _verdict(key: str, value: float, section: dict[str, Any]) -> str:
    load = f"  (load {section[LOAD_OF[key]]:.2f})" if LOAD_OF.get(key) in section else ""
    if key not in TARGETS:
        return load
    op, limit = TARGETS[key]
    checks = {"<=": value <= limit, "<": value < limit, "==": value == limit, "±": abs(value) <= limit}
    return f"  (target {op} {limit:g}: {'met' if checks[op] else 'MISSED'}){load}"


def _print_scaling(value: list[dict[str, float]]) -> dict[str, float]:
    """The scaling table, µs per hop at each size, and how that grew over the last size step (returned)."""
    keys = [k for k in value[0] if k.endswith("_us_per_hop")]
    print(
        f"{'hops':>7} {'file KB':>9} "
        + " ".join(f"{k.removesuffix('_us_per_hop'):>14}" for k in keys)
        + "   (µs per hop)"
    )
    for row in value:
        print(
            f"{row['hops']:>7} {row['file_kb']:>9.0f} "
            + " ".join(f"{row[k]:>14.1f}" if k in row else f"{'-':>14}" for k in keys)
        )
    having = {k: [row[k] for row in value if k in row] for k in keys}  # html stops at MAX_ARROWS
    growth = {k: v[-1] / v[-2] for k, v in having.items()}
    print(
        "growth of µs/hop over the last size step (≈1 is linear): "
        + ", ".join(f"{k.removesuffix('_us_per_hop')} {g:.2f}" for k, g in growth.items())
    )
    for row in value:
        if row["hops"] == 1000:
            print(
                f"1,000-hop frame: {row['dot_frame_ms']:.1f} ms (target < 100: "
                f"{'met' if row['dot_frame_ms'] < 100 else 'MISSED'})"
            )
        if row["hops"] == 10000:
            print(
                f"10,000-hop load: {row['load_validate_ms']:.0f} ms (target < 1000: "
                f"{'met' if row['load_validate_ms'] < 1000 else 'MISSED'})"
            )
    return growth


def _print_figures(value: dict[str, Any]) -> None:
    """One section's figures, one a line, each with its target's verdict."""
    for key, v in value.items():
        if isinstance(v, list):  # the browser's cases out of view, one a line
            print(f"  {key:28} {len(v):10d}" + "".join(f"\n    {case}" for case in v))
        elif v is None or isinstance(v, str | bool):  # the rooms' store; a figure not measured here
            print(f"  {key:28} {'not measured' if v is None else str(v):>10}")
        else:
            print(f"  {key:28} {v:10.3f}{_verdict(key, v, value)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes and few repeats (for the test suite)")
    parser.add_argument(
        "--out",
        help="where to write the figures as JSON (default: bench/results.json for a full "
        "run; a quick run writes nothing unless told, so it never replaces the committed figures)",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--browser", action="store_true", help="only the trace viewer in headless Chromium")
    which.add_argument("--room", action="store_true", help="only the classroom rooms under load (Chromium, Redis)")
    which.add_argument(
        "--no-browser", action="store_true", help="everything but the browser and the rooms (no Chromium needed)"
    )
    args = parser.parse_args(argv)
    quick = args.quick
    repeats = 3 if quick else 25
    sizes = [10, 100] if quick else [10, 100, 1000, 10000]

    print(
        f"machine: {os.cpu_count()} CPUs · Python {platform.python_version()} · {platform.machine()}"
        + f" · load {os.getloadavg()[0]:.2f}"
        + (" · quick mode" if quick else "")
    )
    results: dict[str, Any] = {"cpus": os.cpu_count(), "python": platform.python_version(), "quick": quick}
    sections: list[tuple[str, Callable[[], Any]]] = [
        ("recording", lambda: recording_overhead(3 if quick else 50)),  # the closest target: more rounds
        ("stdio", lambda: stdio_cold_warm(max(3, repeats // 2))),
        ("scaling", lambda: scaling(sizes, repeats)),
        ("app_step", lambda: app_step_change(100 if quick else 1000, 3 if quick else 10)),
        ("app_startup", app_startup),
        ("memory", lambda: memory(100 if quick else 10000)),
        ("hosted", lambda: hosted_figures(quick)),  # pairing a provider's reports: alone, merge, the OTLP import
        ("approvals", lambda: approval_figures(quick)),  # replaying a provider's flood of approval requests
        ("browser", lambda: browser_figures(quick)),
        ("room", lambda: room_figures(quick)),
    ]
    if args.browser or args.room:
        sections = [s for s in sections if s[0] == ("browser" if args.browser else "room")]
    elif args.no_browser:
        sections = [s for s in sections if s[0] not in ("browser", "room")]
    for name, fn in sections:
        value = fn()
        results[name] = value
        print(f"\n[{name}]")
        if isinstance(value, list):
            results["scaling_growth"] = _print_scaling(value)
        else:
            _print_figures(value)
    default = ROOT / "bench" / "results.json"
    out = args.out or (None if quick else str(default))
    if out and not args.out and (args.browser or args.room or args.no_browser) and default.exists():
        # One part's run: the other parts' figures in the file stay as they were.
        results = {**json.loads(default.read_text(encoding="utf-8")), **results}
    if out:
        Path(out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        print(f"\nwritten: {out}")
    return 0
