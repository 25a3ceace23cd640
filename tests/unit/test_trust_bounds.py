"""Bounded work for bounded input (issue 12): what a reader takes, what a view draws, what the recorder keeps.

A file that is not a file (a pipe, a device), a trace with too many hops or one huge string is refused in one
line; the largest trace that loads is drawn, or refused, with bounded output in every format; and a run whose tool
returns 10 MB writes a trace that loads and says what was cut.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from flow import ModelConfig, RunOptions, run
from flow.backends.scripted import parse_script
from flow.capture.recorder import CLIPPED_TEXT_CHARS, HOP_PAYLOAD_BYTES, RUN_PAYLOAD_BYTES, Recorder
from flow.cli import main
from flow.interop.importers import import_bytes
from flow.samples import synthetic_trace
from flow.trace import hops
from flow.trace.files import (
    MAX_HOPS,
    MAX_STRING_CHARS,
    MAX_TRACE_BYTES,
    TraceError,
    load_trace,
    read_trace_bytes,
    save_trace,
)
from flow.trace.model import Trace
from flow.trace.steps import Step
from flow.views.diagram import MAX_ARROWS, RenderError, rows, to_dot
from flow.views.html import to_html
from flow.views.table import VIEW_BYTES, focus_view
from flow.views.viewer import PART_BYTES, PART_HOPS, bundle_json, part_trace, viewer_bundle, viewer_parts
from helpers import ROOT

SAMPLE = ROOT / "sample_traces" / "beijing-mcp.json"


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The command line in this process: exit code, stdout, stderr."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(text: str) -> str:
    assert text.strip() and "\n" not in text.strip() and "Traceback" not in text, text[:500]
    return text.strip()


# --- files that are not files ---------------------------------------------------------------------


@pytest.fixture
def fifo(tmp_path):
    """A named pipe no one writes to. Should a reader ever block on it, a writer comes after 20 s and closes it
    at once: the reader then sees an empty file, and the test fails instead of hanging."""
    path = tmp_path / "trace.json"
    os.mkfifo(path)
    done = threading.Event()

    def unblock() -> None:
        if not done.wait(20):
            with open(path, "wb"):
                pass

    watchdog = threading.Thread(target=unblock, daemon=True)
    watchdog.start()
    yield path
    done.set()
    watchdog.join()


@pytest.mark.parametrize("command", ["validate", "show", "render", "import"])
def test_a_named_pipe_is_refused_in_one_line_without_waiting_for_a_writer(capsys, fifo, command):
    out = fifo.with_suffix(".out")
    code, stdout, stderr = cli(
        capsys, command, str(fifo), *(["--out", str(out)] if command in ("render", "import") else [])
    )
    assert code != 0
    assert f"{fifo}: is a pipe, not a file" in one_line(stdout + stderr)
    assert not out.exists()  # nothing half-written


def test_the_reader_refuses_devices_and_folders_but_reads_a_file(tmp_path):
    with pytest.raises(TraceError, match="is a folder"):
        load_trace(tmp_path)
    assert load_trace(SAMPLE).hops


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux /proc")
def test_a_file_is_read_to_the_limit_and_no_further():
    # /proc files say they are empty and are not: like a file still being written, only what is read counts.
    from flow.trace.files import read_limited

    assert os.stat("/proc/self/status").st_size == 0
    assert read_limited("/proc/self/status", limit=100_000)
    with pytest.raises(TraceError, match=r"/proc/self/status: .* over the"):
        read_limited("/proc/self/status", limit=100)


# --- too many hops, too long a string -----------------------------------------------------------------


def trace_data(n_hops: int) -> dict:
    """A valid trace of `n_hops` small hops, made as data (fast at any size)."""
    base = json.loads(SAMPLE.read_text(encoding="utf-8"))
    hop = {k: v for k, v in base["hops"][1].items()}
    base["hops"] = [{**hop, "seq": i + 1} for i in range(n_hops)]
    return base


def test_a_trace_over_the_hop_limit_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "many.json"
    path.write_text(json.dumps(trace_data(MAX_HOPS + 1)), encoding="utf-8")
    code, out, err = cli(capsys, "validate", str(path))
    assert code == 1
    assert one_line(out + err) == f"{path}: hops: {MAX_HOPS + 1:,} hops is over the limit of {MAX_HOPS:,} for a trace"
    for command in (["show"], ["render", "--format", "mermaid", "--out", str(tmp_path / "m.mmd")]):
        code, out, err = cli(capsys, *command, str(path))
        assert code == 2 and "over the limit" in one_line(err)
    assert not (tmp_path / "m.mmd").exists()
    with pytest.raises(TraceError, match="over the limit"):
        import_bytes(path.read_bytes(), name="upload.json")  # the app's upload reader


def test_a_trace_at_the_hop_limit_loads():
    assert len(read_trace_bytes(json.dumps(trace_data(MAX_HOPS)).encode()).hops) == MAX_HOPS


def test_a_json_rpc_log_with_more_messages_than_hops_allowed_is_refused_before_it_is_parsed():
    line = json.dumps(
        {
            "direction": "incoming",
            "message": {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}},
        }
    )
    with pytest.raises(TraceError) as caught:
        import_bytes(("\n".join([line] * (MAX_HOPS + 1)) + "\n").encode(), name="log.jsonl")
    assert (
        str(caught.value) == f"log.jsonl: {MAX_HOPS + 1:,} messages is over the limit of {MAX_HOPS:,} hops for a trace"
    )


def test_one_huge_string_is_refused_naming_its_place(tmp_path, capsys):
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["hops"][3]["summary"] = "x" * (MAX_STRING_CHARS + 1)
    path = tmp_path / "huge-string.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    for command in ("validate", "show"):
        code, out, err = cli(capsys, command, str(path))
        assert code != 0
        assert one_line(out + err).endswith(
            f"{path}: hops[3].summary: {MAX_STRING_CHARS + 1:,} characters of text is "
            f"over the limit of {MAX_STRING_CHARS:,} for one value"
        )
    with pytest.raises(TraceError, match=r"upload.json: hops\[3\].summary: .* over the limit"):
        import_bytes(path.read_bytes(), name="upload.json")
    data["hops"][3]["summary"] = "x"
    data["hops"][4]["payload"] = {"x" * (MAX_STRING_CHARS + 1): 1}  # a key is text too
    with pytest.raises(TraceError, match=r"hops\[4\]\.payload\.\(a key\): .* over the limit"):
        read_trace_bytes(json.dumps(data).encode(), name="t")


def test_show_of_strings_at_the_limit_prints_a_bounded_amount(tmp_path, capsys):
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    for hop in data["hops"][:5]:
        hop["summary"] = "北" * MAX_STRING_CHARS  # wide characters: the table cell measures display columns
    data["hops"][4]["payload"]["params"] = {"text": "y" * MAX_STRING_CHARS, "more": ["z" * MAX_STRING_CHARS] * 3}
    path = tmp_path / "at-limit.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    code, out, _ = cli(capsys, "show", str(path))
    assert code == 0 and len(out) < 300 * len(data["hops"])  # one table line a hop, each cut with "…"
    assert "北北北…" in out
    code, out, _ = cli(capsys, "show", str(path), "--hop", "5")
    assert code == 0 and len(out) < VIEW_BYTES // 4
    assert "[clipped: 1,048,576 characters in all]" in out


# --- every view draws a bounded amount -------------------------------------------------------------


@pytest.fixture(scope="module")
def largest(tmp_path_factory) -> Path:
    """The largest trace the loader takes: MAX_HOPS hops of real tool rounds, one arrow each."""
    path = tmp_path_factory.mktemp("largest") / "largest.json"
    save_trace(synthetic_trace(MAX_HOPS), path)
    assert path.stat().st_size < MAX_TRACE_BYTES
    return path


@pytest.fixture(scope="module")
def undrawable(tmp_path_factory) -> Path:
    """One arrow more than a picture draws."""
    path = tmp_path_factory.mktemp("undrawable") / "undrawable.json"
    save_trace(synthetic_trace(MAX_ARROWS + 1), path)
    return path


def test_the_largest_trace_is_refused_whole_drawn_in_a_window_and_written_as_mermaid(tmp_path, capsys, largest):
    code, _, err = cli(capsys, "render", str(largest), "--format", "svg", "--out", str(tmp_path / "whole.svg"))
    line = one_line(err)
    assert code == 2 and f"{MAX_HOPS:,} arrows are more than one picture draws ({MAX_ARROWS:,})" in line
    assert "--window" in line and not (tmp_path / "whole.svg").exists()
    out = tmp_path / "window.svg"
    code, _, err = cli(
        capsys,
        "render",
        str(largest),
        "--format",
        "svg",
        "--window",
        str(MAX_ARROWS),
        "--hop",
        str(MAX_HOPS - 10),
        "--out",
        str(out),
    )
    assert code == 0, err
    svg = out.read_text(encoding="utf-8")
    assert svg.count('class="edge hop ') == MAX_ARROWS and f'id="hop&#45;{MAX_HOPS - 10}"' in svg
    assert "earlier hops" in svg
    # Mermaid is text, one line an arrow: the whole trace, bounded by the hop limit.
    code, _, err = cli(capsys, "render", str(largest), "--format", "mermaid", "--out", str(tmp_path / "all.mmd"))
    assert code == 0 and (tmp_path / "all.mmd").stat().st_size < 200 * MAX_HOPS


def test_every_picture_format_refuses_more_arrows_than_it_draws_in_one_line(tmp_path, capsys, undrawable):
    for fmt in ("dot", "svg", "png", "html"):
        out = tmp_path / f"whole.{fmt}"
        code, _, err = cli(capsys, "render", str(undrawable), "--format", fmt, "--out", str(out))
        line = one_line(err)
        assert code == 2 and f"{MAX_ARROWS + 1:,} arrows are more than one picture draws ({MAX_ARROWS:,})" in line, fmt
        assert "--window" in line and not out.exists()
    code, _, err = cli(capsys, "render", str(undrawable), "--format", "svg", "--window", str(MAX_ARROWS + 1))
    assert code == 2 and f"a window of {MAX_ARROWS + 1:,} arrows are more than one picture draws" in one_line(err)


def test_the_widest_window_as_png_fits_one_image(tmp_path, capsys, undrawable):
    out = tmp_path / "window.png"
    code, _, err = cli(
        capsys, "render", str(undrawable), "--format", "png", "--window", str(MAX_ARROWS), "--out", str(out)
    )
    assert code == 0, err
    head = out.read_bytes()[:24]
    width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    assert head.startswith(b"\x89PNG") and 0 < width < 4000 and 0 < height <= 32767


def test_pages_that_ask_for_the_whole_picture_get_a_bounded_window(largest):
    """The app's pages call to_dot (the Step page with a window, Compare and the SVG download without): no call
    draws more than MAX_ARROWS arrows, and the picture says how many hops it leaves out."""
    trace = load_trace(largest)
    for current, window in ((None, None), (MAX_HOPS - 1, 10**6)):
        dot = to_dot(trace, current=current, window=window)
        assert dot.count('[class="hop ') <= MAX_ARROWS
        assert "later hops" in dot or "earlier hops" in dot
    with pytest.raises(RenderError, match="too long for one HTML page"):
        to_html(trace)
    assert len(rows(trace)) == MAX_HOPS


def test_a_long_trace_is_viewed_in_parts_each_drawn_whole_within_what_a_browser_takes(largest):
    trace = load_trace(largest)
    parts = viewer_parts(trace)
    assert len(parts) == MAX_HOPS // PART_HOPS and all(len(p) == PART_HOPS for p in parts)
    assert [i for p in parts for i in p] == list(range(MAX_HOPS))  # every hop once, in order
    last = part_trace(trace, parts[-1])
    assert [h.seq for h in last.hops] == list(range(MAX_HOPS - PART_HOPS + 1, MAX_HOPS + 1))
    bundle = viewer_bundle(last, lang="en")
    assert bundle["svg"] and bundle["svg_error"] is None  # a part's diagram is drawn whole
    assert len(bundle_json(bundle).encode()) <= PART_BYTES
    small = load_trace(SAMPLE)
    assert viewer_parts(small) == [range(len(small.hops))] and part_trace(small, range(len(small.hops))) is small


def _heavy_trace(n_hops: int) -> Trace:
    """A trace of few hops, each holding about 300 KB of JSON: few enough arrows, too much data for one viewer."""
    trace = synthetic_trace(n_hops)
    padding = ["北京 sunny " * 10] * 3000
    hops = [h.model_copy(update={"payload": {**h.payload, "padding": padding}}) for h in trace.hops]
    return trace.model_copy(update={"hops": hops})


def test_a_trace_with_more_data_than_a_viewer_takes_is_viewed_in_parts_and_refused_as_one_page(tmp_path, capsys):
    trace = _heavy_trace(120)
    parts = viewer_parts(trace)
    assert len(parts) > 1 and [i for p in parts for i in p] == list(range(120))
    first = bundle_json(viewer_bundle(part_trace(trace, parts[0]), lang="zh"))
    assert PART_BYTES // 4 < len(first.encode()) <= PART_BYTES  # the estimate is within reach of what is sent
    with pytest.raises(RenderError, match="too much for one HTML page"):
        to_html(trace)
    save_trace(trace, tmp_path / "heavy.json")
    code, _, err = cli(capsys, "render", str(tmp_path / "heavy.json"), "--format", "html", "-o", str(tmp_path / "h"))
    assert code == 2 and one_line(err).startswith("error: too much for one HTML page: its 120 hops hold more than")
    assert not (tmp_path / "h").exists()


def test_a_hops_json_view_is_bounded_whatever_the_hop_holds():
    trace = load_trace(SAMPLE)
    hop = trace.hops[4].model_copy(update={"payload": {"text": "y" * MAX_STRING_CHARS, "many": ["z" * 1000] * 5000}})
    view = focus_view(hop)
    assert set(view) == {"clipped", "json"} and len(view["json"]) <= VIEW_BYTES
    small = trace.hops[4]
    assert focus_view(small)["payload"] == small.payload  # a small hop is shown whole


# --- what the recorder writes always loads -------------------------------------------------------


@pytest.mark.parametrize("mode", ["direct", "mcp"])
def test_a_run_whose_tool_returns_10_mb_writes_a_trace_that_loads_and_says_it_was_clipped(tmp_path, mode):
    # best_practice echoes an unknown topic back: a scripted model asks it about 10 MB of text.
    topic = "z" * 10_000_000
    script = parse_script([{"call": "best_practice", "arguments": {"topic": topic}}, {"answer": "done"}])
    result = run(
        "what is good practice?", options=RunOptions(mode=mode, transport="memory"), model=ModelConfig.scripted(script)
    )
    assert result.ok, result.error
    path = save_trace(result.trace, tmp_path / "big-result.json")
    assert path.stat().st_size < 4 * HOP_PAYLOAD_BYTES  # the 10 MB appears in six hops and the script
    loaded = load_trace(path)
    tool_result = next(h for h in loaded.hops if h.kind == "tool.result" and h.target == "app")
    assert tool_result.bytes > 10_000_000  # the size that crossed stays on the hop
    assert tool_result.clipped is not None and "cut short" in tool_result.clipped
    text = tool_result.payload["tool_message_content"]
    assert text.startswith("No stored advice for 'zzz") and len(text) <= CLIPPED_TEXT_CHARS
    assert text.endswith("characters in all]")
    assert loaded.meta.answer == "done"


def test_the_recorder_stops_at_the_hop_limit_with_a_last_hop_saying_so(tmp_path):
    rec = Recorder()
    log = {"jsonrpc": "2.0", "method": "notifications/message"}
    handed_back = [
        rec.add(hops.frame(dict(log), source="mcp_server", target="mcp_client", step=Step.CALL_TOOL))
        for _ in range(MAX_HOPS + 5)
    ]
    hop = handed_back[-1]
    assert len(rec.hops) == MAX_HOPS and rec.dropped == 6
    assert rec.hops[-1].kind == "error" and "limit of 20,000 hops" in rec.hops[-1].summary
    assert hop.seq == 0 and hop not in rec.hops  # handed back for the caller to use, not kept
    trace = Trace(meta=load_trace(SAMPLE).meta, hops=rec.hops)
    assert len(load_trace(save_trace(trace, tmp_path / "t.json")).hops) == MAX_HOPS


def test_the_recorder_keeps_payloads_to_a_budget_for_the_run(tmp_path):
    rec = Recorder()
    chunk = "p" * (HOP_PAYLOAD_BYTES - 100)  # just under the hop budget: kept whole, until the run's runs out
    for _ in range(RUN_PAYLOAD_BYTES // HOP_PAYLOAD_BYTES + 3):
        rec.add(hops.function_returned(chunk, "ok", is_error=False, call_id="call_1"))
    kept = [h for h in rec.hops if h.payload is not None]
    dropped = [h for h in rec.hops if h.payload is None]
    assert kept and dropped and all(h.clipped is not None and "not kept" in h.clipped for h in dropped)
    assert not hasattr(kept[0], "clipped") or kept[0].clipped is None
    assert sum(len(json.dumps(h.payload)) for h in kept) <= RUN_PAYLOAD_BYTES
    assert all(h.bytes > len(chunk) for h in rec.hops)


def test_save_clips_a_long_answer_it_never_recorded_and_the_file_loads(tmp_path):
    trace = load_trace(SAMPLE)
    trace.meta.answer = "a" * (3 * MAX_STRING_CHARS)
    answer = load_trace(save_trace(trace, tmp_path / "long-answer.json")).meta.answer
    assert answer is not None and len(answer) <= MAX_STRING_CHARS and answer.endswith("characters in all]")


@pytest.mark.parametrize("text", ['say "hi" ' * (MAX_STRING_CHARS // 9 + 1), "\n\\" * (MAX_STRING_CHARS // 2 + 1)])
def test_save_clips_a_long_text_of_escapes_and_the_file_loads(tmp_path, text):
    """Quotes and backslashes are written as escapes, two characters each: the text is still found too long."""
    trace = load_trace(SAMPLE)
    trace.meta.answer = text
    answer = load_trace(save_trace(trace, tmp_path / "escapes.json")).meta.answer
    assert answer is not None and len(answer) <= MAX_STRING_CHARS and answer.endswith("characters in all]")


def test_save_writes_a_large_trace_with_nothing_to_clip_as_it_is(tmp_path):
    trace = synthetic_trace(2_000)
    path = save_trace(trace, tmp_path / "large.json")
    assert (
        path.read_text(encoding="utf-8")
        == trace.to_json()
        == json.dumps(json.loads(trace.to_json()), ensure_ascii=False, indent=1)
    )


def _many_keys_trace(n_keys: int) -> Trace:
    trace = synthetic_trace(12)
    last = trace.hops[-1]
    keys = {f"{i:x}": 0 for i in range(n_keys)}
    return trace.model_copy(update={"hops": [*trace.hops[:-1], last.model_copy(update={"payload": {"keys": keys}})]})


def _peak(work) -> int:
    import tracemalloc

    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_naming_a_trace_for_the_viewer_copies_none_of_it():
    """A 3-million-key trace took 800 MB more to name (its file text, built through copies) than to load."""
    from flow.views.viewer import trace_digest

    trace = _many_keys_trace(200_000)
    size = len(trace.to_json())
    assert _peak(lambda: trace_digest(trace)) < 1.5 * size  # the file text took about 11 times its size


def test_the_indented_file_text_is_written_without_holding_all_its_pieces():
    from flow.trace.model import indented_json

    data = _many_keys_trace(200_000).file_data()
    text = indented_json(data)
    assert text == json.dumps(data, ensure_ascii=False, indent=1)
    del text
    assert _peak(lambda: indented_json(data)) < 0.5 * _peak(lambda: json.dumps(data, ensure_ascii=False, indent=1))
