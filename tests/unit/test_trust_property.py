"""Every reader is total: a valid trace with any one field replaced by any JSON value gives a result or one clear
line, never another exception or a traceback, in bounded time.

The traces start as committed samples; one path anywhere in the file (meta, settings, a hop's fields, a leaf deep
in a payload) gets an arbitrary JSON value: NaN, infinities, huge numbers, lone surrogates, control characters,
deep nesting, big strings. Each case then goes through the command line (validate, show, render, export, import),
the cursor, and the functions the app's pages call on an upload.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
from datetime import timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import flow.cli
from flow.backends.replay import Cursor
from flow.interop.importers import import_bytes
from flow.interop.otlp import to_otlp_json
from flow.text.teaching import teaching_text
from flow.trace.files import TraceError, read_trace_bytes
from flow.trace.model import Trace
from flow.trace.steps import Phase
from flow.views.compare import figures, per_phase_ms, per_step, point, summary_rows
from flow.views.diagram import RenderError, aligned_room, overview_dot, to_dot, to_mermaid
from flow.views.labels import short_label, step_numbers, trace_lifelines
from flow.views.table import focus_view, hop_dataframe, hop_table, summary_line
from flow.views.viewer import viewer_bundle
from flow_ui.state import AppState, add_upload
from flow_ui.text import plain, table_csv
from helpers import ROOT

# A few samples that between them hold every hop kind the readers branch on.
SAMPLES = {
    name: json.loads((ROOT / "sample_traces" / f"{name}.json").read_text(encoding="utf-8"))
    for name in ("beijing-mcp", "beijing-direct", "streaming", "unknown-tool", "progress-notifications")
}


def _paths(value: Any, loc: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document that holds a value: containers and leaves alike."""
    out = [loc] if loc else []
    if isinstance(value, dict):
        for key, inner in value.items():
            out += _paths(inner, (*loc, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            out += _paths(inner, (*loc, i))
    return out


PATHS = {name: _paths(data) for name, data in SAMPLES.items()}


def _nested(depth: int) -> Any:
    value: Any = "bottom"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


_text = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), max_size=12)
_special_text = st.sampled_from(
    [
        "",
        "\ud800",
        "a\udfffb",
        "\x1b[31mred\x1b[0m\x07",
        "\x9b2J",
        "\u202egnp.exe",
        "NaN",
        "12",
        "-1",
        "1e400",
        "x" * 100_000,
        "line\nbreak\r",
        "\x00",
    ]
)
_numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from(
        [0, -1, 1, 10**300, -(10**300), 2**63, 2**64, math.nan, math.inf, -math.inf, 1e308, -1e308, 5e-324, 0.5]
    ),
    st.floats(allow_nan=True, allow_infinity=True),
)
_leaves = st.one_of(st.none(), st.booleans(), _numbers, _text, _special_text)
JSON_VALUES = st.one_of(
    _leaves,
    st.recursive(
        _leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(st.one_of(_text, _special_text), inner, max_size=4)
        ),
        max_leaves=12,
    ),
    st.integers(min_value=1, max_value=400).map(_nested),
    st.sampled_from([[], {}, [[]], {"": None}]),
)


@st.composite
def mutated_traces(draw: st.DrawFn) -> bytes:
    name = draw(st.sampled_from(sorted(SAMPLES)))
    data = json.loads(json.dumps(SAMPLES[name]))
    *parents, last = draw(st.sampled_from(PATHS[name]))
    target = data
    for key in parents:
        target = target[key]
    target[last] = draw(JSON_VALUES)
    # ASCII JSON: a lone surrogate goes into the file as the escape a hostile file would hold
    return json.dumps(data).encode()


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = flow.cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _one_error_line(code: int, err: str, argv: tuple[str, ...]) -> None:
    """The command line's promise: exit 0 with nothing on stderr, or exit 2 with one line."""
    if code == 0:
        assert err == "", (argv, err)
    else:
        assert code == 2, (argv, code, err)
        assert err.startswith("error: ") and err.count("\n") == 1 and len(err) < 2000, (argv, err)


def _printable(text: str) -> bool:
    """What `show` prints reaches a terminal: no escape, bell or other control character but the line break."""
    return not any((ord(c) < 32 and c != "\n") or 0x7F <= ord(c) < 0xA0 for c in text)


def run_every_reader(path: Path, tmp: Path) -> None:
    file = str(path)
    code, out, err = _cli("validate", file)
    assert code in (0, 1) and err == "" and out.count("\n") == 1, (code, out, err)
    valid = code == 0
    for argv in (
        ("show", file),
        ("show", file, "--hop", "2"),
        ("show", file, "--step", "4"),
        ("render", file, "--format", "dot", "--out", str(tmp / "t.dot")),
        ("render", file, "--format", "mermaid", "--out", str(tmp / "t.mmd")),
        ("render", file, "--format", "html", "--out", str(tmp / "t.html")),
        ("render", file, "--format", "svg", "--hop", "3", "--out", str(tmp / "t.svg")),
        ("export", file, "--otlp-json", str(tmp / "t.otlp.json")),
        ("import", file, "--out", str(tmp / "t.trace.json")),
    ):
        if not valid and argv[0] not in ("show", "import"):
            continue  # they all start with the loader `show` has just shown refusing the file
        code, out, err = _cli(*argv)
        _one_error_line(code, err, argv)
        if argv[0] == "show":
            assert _printable(out), out
            assert (code == 0) == valid or "--hop" in argv or "--step" in argv, (argv, err)
    if not valid:
        return
    # What the pages call on an upload: the loader, then the pictures, labels, lessons, tables and figures.
    app = AppState()
    try:
        item = add_upload(app, path.name, path.read_bytes())
    except TraceError as exc:
        raise AssertionError(f"validate said OK, the upload said: {exc}") from None
    trace: Trace = item.trace
    try:
        cursor = Cursor(trace)
    except TraceError:
        assert not trace.hops
    else:
        cursor.goto(len(trace.hops) // 2)
        phases: tuple[Phase, ...] = ("request", "execute")
        for phase in phases:
            with contextlib.suppress(TraceError):
                cursor.goto_phase(phase)
    numbers = step_numbers(trace)
    trace_lifelines(trace)
    for hop in trace.hops:
        assert hop.seq in numbers
        plain(short_label(hop, 80))
        plain(short_label(hop, 80, lang="zh"))  # the Chinese label is made from the payload: total too
        plain(teaching_text(hop, "zh"))
        json.dumps(focus_view(hop), ensure_ascii=False)
    hop_table(trace)
    summary_line(trace)
    table_csv(hop_dataframe(trace, lang="zh"))
    plain(trace.meta.question)
    for other in (trace, Trace.model_validate(SAMPLES["beijing-direct"])):
        figures(trace)
        per_step(trace, other)
        per_phase_ms(trace)
        summary_rows(other, trace, lang="zh")
        plain(point(trace, other, lang="zh"))
        aligned_room(trace, other, lang="zh")

    to_otlp_json(trace)
    viewer_bundle(trace, lang="zh")  # the Step page's client-side viewer
    try:
        current = trace.hops[0].seq if trace.hops else None
        to_dot(trace, current=current, window=14, lang="en", lead=1)
        overview_dot(trace, current=current, lang="zh")
        to_mermaid(trace, lang="zh")  # HTML (and through it SVG) went through `render` above
    except RenderError:
        pass  # a one-line refusal the pages show as such


@settings(
    max_examples=75,
    derandomize=True,
    deadline=timedelta(seconds=10),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(raw=mutated_traces())
def test_any_value_in_any_field_is_a_result_or_one_line(raw: bytes, tmp_path: Path) -> None:
    path = tmp_path / "mutated.json"
    path.write_bytes(raw)
    run_every_reader(path, tmp_path)


# --- importers: another tool's recording with one value replaced ------------------------------------------------


def _jsonrpc_log(name: str) -> list[Any]:
    """The sample's MCP frames as an Inspector-style log: one entry a line, with direction and time."""
    hops = [h for h in SAMPLES[name]["hops"] if h["kind"].startswith("mcp.")]
    return [
        {
            "direction": "outgoing" if h["source"] == "mcp_client" else "incoming",
            "timestamp": 1_780_000_000_000 + int(h["t_start_ms"]),
            "message": h["payload"],
        }
        for h in hops
    ]


RECORDINGS: dict[str, tuple[str, Any]] = {
    "otlp:beijing-mcp": ("otlp-json", json.loads(to_otlp_json(Trace.model_validate(SAMPLES["beijing-mcp"])))),
    "otlp:unknown-tool": ("otlp-json", json.loads(to_otlp_json(Trace.model_validate(SAMPLES["unknown-tool"])))),
    "jsonrpc:progress-notifications": ("jsonrpc-jsonl", _jsonrpc_log("progress-notifications")),
    "jsonrpc:beijing-mcp": ("jsonrpc-jsonl", _jsonrpc_log("beijing-mcp")),
}
RECORDING_PATHS = {name: _paths(data) for name, (_, data) in RECORDINGS.items()}


@st.composite
def mutated_recordings(draw: st.DrawFn) -> tuple[str, bytes]:
    name = draw(st.sampled_from(sorted(RECORDINGS)))
    fmt, original = RECORDINGS[name]
    data = json.loads(json.dumps(original))
    *parents, last = draw(st.sampled_from(RECORDING_PATHS[name]))
    target = data
    for key in parents:
        target = target[key]
    target[last] = draw(JSON_VALUES)
    if fmt == "jsonrpc-jsonl":
        return fmt, "\n".join(json.dumps(entry) for entry in data).encode()
    return fmt, json.dumps(data).encode()


@settings(
    max_examples=100,
    derandomize=True,
    deadline=timedelta(seconds=5),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=mutated_recordings())
def test_any_value_in_an_imported_recording_is_a_trace_or_one_line(case: tuple[str, bytes]) -> None:
    fmt, raw = case
    for chosen in ("auto", fmt):
        try:
            trace = import_bytes(raw, name="recording.json", fmt=chosen)
        except TraceError as exc:
            assert "\n" not in str(exc) and len(str(exc)) < 2000
            continue
        # an imported trace is a trace like any other: it saves, loads again and exports
        assert read_trace_bytes(trace.to_json().encode()).hops == trace.hops
        to_otlp_json(trace)
        hop_table(trace)
