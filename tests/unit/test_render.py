"""The pictures: sequence diagram (DOT, SVG, PNG), Mermaid, HTML, the hop table and the JSON view."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from flow.samples import SAMPLES, synthetic_trace
from flow.trace.files import load_trace
from flow.trace.model import KINDS, Hop
from flow.views.diagram import overview_dot, render, rows, to_dot, to_mermaid
from flow.views.focus import focus
from flow.views.html import to_html
from flow.views.labels import clip, display_width, short_label, step_numbers
from flow.views.table import TABLE_COLUMNS, focus_view, hop_dataframe
from flow.views.viewer import viewer_js
from helpers import ROOT, must_search

GOLDEN = ROOT / "tests" / "golden"
NAMES = [s.name for s in SAMPLES]


def sample(name: str):
    return load_trace(ROOT / "sample_traces" / f"{name}.json")


def _check_golden(path: Path, text: str) -> None:
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), (
        f"missing golden file {path.name}: run UPDATE_GOLDEN=1 ./dev.sh test tests/unit/test_render.py"
    )
    assert text == path.read_text(encoding="utf-8"), f"{path.name} changed: review, then UPDATE_GOLDEN=1"


@pytest.mark.parametrize("name", NAMES)
def test_dot_matches_golden(name):
    trace = sample(name)
    current = next(h.seq for h in trace.hops if h.step == 6 or h.step == 9)
    _check_golden(GOLDEN / f"{name}.dot", to_dot(trace, current=current, window=None))


@pytest.mark.parametrize("name", NAMES)
def test_mermaid_matches_golden(name):
    _check_golden(GOLDEN / f"{name}.mmd", to_mermaid(sample(name), lang="zh"))


def _arrow_ids(dot: str) -> list[str]:
    return re.findall(r'->\s*\S+\s*\[[^\]]*\bid="(hop-[\d-]+)"', dot)


def _covered(ids: list[str]) -> list[int]:
    seqs = []
    for arrow in ids:
        first, _, last = arrow.removeprefix("hop-").partition("-")
        seqs += list(range(int(first), int(last or first) + 1))
    return seqs


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("collapse", [True, False])
def test_every_hop_is_exactly_one_arrow(name, collapse):
    trace = sample(name)
    ids = _arrow_ids(to_dot(trace, window=None, collapse_chunks=collapse))
    assert sorted(_covered(ids)) == [h.seq for h in trace.hops]
    if not collapse:
        assert len(ids) == len(trace.hops)


def test_stream_chunks_collapse_into_one_arrow_per_response():
    trace = sample("streaming")
    chunk_rows = [r for r in rows(trace) if r.first.kind == "llm.chunk"]
    assert len(chunk_rows) == 2 and all(len(r.hops) > 3 for r in chunk_rows)
    assert chunk_rows[0].label.startswith("stream: ") and chunk_rows[0].number.startswith("4a–")


def _arrow_attrs(dot: str, arrow_id: str) -> str:
    found = re.search(rf'\[([^\]]*\bid="{arrow_id}"[^\]]*)\]', dot)
    assert found, arrow_id
    return found.group(1)


def test_the_highlight_moves_with_the_current_hop():
    trace = sample("beijing-mcp")
    for hop in trace.hops:
        dot = to_dot(trace, current=hop.seq, window=None)
        current = [a for a in _arrow_ids(dot) if "current" in _arrow_attrs(dot, a)]
        assert current == [f"hop-{hop.seq}"]
        if hop.seq > 1:
            assert 'color="#c4c4c4"' not in _arrow_attrs(dot, f"hop-{hop.seq - 1}")  # earlier: drawn normally
        if hop.seq < len(trace.hops):
            later = _arrow_attrs(dot, f"hop-{hop.seq + 1}")
            assert 'color="#c4c4c4"' in later or 'color="#eab0b0"' in later  # later: faded


def test_numbers_follow_steps_with_letters_and_rounds():
    numbers = step_numbers(sample("two-rounds"))
    values = list(numbers.values())
    assert values[:4] == ["0", "1", "2a", "2b"]
    assert "4" in values and "r2·4" in values and "9" in values and "10" in values


def test_a_large_trace_shows_a_window_around_the_current_hop():
    trace = synthetic_trace(1000)
    dot = to_dot(trace, current=600, window=30)
    ids = _arrow_ids(dot)
    assert len(ids) == 30 and 600 in _covered(ids)
    assert "earlier hops" in dot and "later hops" in dot


def test_every_kind_has_a_short_label_even_with_its_payload_left_out():
    for kind in KINDS:
        hop = Hop(
            seq=1,
            step=None,
            phase=None,
            source="app",
            target="app",
            kind=kind,
            payload=None,
            summary="x",
            clipped="payload not kept",
        )
        assert short_label(hop)


def test_labels_are_clipped_by_display_width_so_chinese_fits():
    text = clip("北京今天天气怎么样？" * 10, 30)
    assert display_width(text) <= 30 and text.endswith("…")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_svg_holds_the_lifeline_names_and_step_numbers(lang):
    trace = sample("beijing-mcp")
    svg = render(to_dot(trace, window=None, lang=lang), "svg").decode()
    texts = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
    names = (
        ["User", "App", "MCP Client", "MCP Server", "Model API"]
        if lang == "en"
        else ["用户", "应用", "MCP 客户端", "MCP 服务器", "模型 API"]
    )
    for name in names:
        assert name in texts
    # 6a the tools/call frame, 6b the server calling its function; 7a the function's return, 7b the answer frame
    for number in ["1", "2a", "3b", "4", "5", "6a", "6b", "7a", "7c", "8", "9", "10"]:
        assert re.search(rf"<text[^>]*>{number}</text>", svg), number
    assert "北京今天天气怎么样" in texts
    # The lifelines stand in columns across the picture, in the design's order.
    xs = [float(must_search(rf'<text[^>]*x="([\d.]+)"[^>]*>{name}</text>', svg).group(1)) for name in names]
    assert xs == sorted(xs) and xs[-1] - xs[0] > 500


def test_direct_mode_has_four_lifelines():
    svg = render(to_dot(sample("beijing-direct"), window=None), "svg").decode()
    assert "Tool" in svg and "MCP Client" not in svg


def test_html_export_holds_every_hop_and_references_nothing_outside():
    trace = sample("two-cities-parallel")
    page = to_html(trace)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I)
    assert "<script src" not in page and "<link" not in page and "import(" not in page
    bundle = json.loads(
        must_search(r'<script type="application/json" id="flow-bundle">(.*?)</script>', page, re.S).group(1)
    )
    assert [h["seq"] for h in bundle["hops"]] == [h.seq for h in trace.hops]
    assert bundle["hops"][0]["teach"]["zh"] and bundle["hops"][0]["teach"]["en"]
    # Every hop names an arrow of the one drawing the page carries.
    svg = bundle["svg"]
    assert svg.startswith("<svg")
    for hop in bundle["hops"]:
        assert f'id="{bundle["rows"][hop["row"]]}"'.replace("-", "&#45;") in svg
    # The viewer's own script and styles, inlined: the same files the Step through page mounts.
    assert viewer_js().splitlines()[0] in page and "function mountViewer" in page and ".fv-diagram" in page


def test_hop_dataframe_has_the_columns_to_filter_on():
    trace = sample("two-cities-parallel")
    frame = hop_dataframe(trace)
    assert list(frame.columns) == TABLE_COLUMNS and len(frame) == len(trace.hops)
    assert frame["tokens"].dropna().gt(0).all() and frame["tokens"].notna().sum() == 2
    assert set(frame.loc[frame["kind"] == "mcp.request", "to"]) == {"MCP Server"}


def test_json_view_puts_what_matters_first():
    trace = sample("beijing-mcp")
    decision = next(h for h in trace.hops if h.kind == "llm.response" and h.step == 4)
    view = focus_view(decision)
    # The decision: the `content: null`, then the calls beside it (issue 13), so a 720p card shows both; then the rest.
    assert list(view)[:5] == ["content", "tool_calls", "role", "finish_reason", "usage"] and list(view)[-1] == "payload"
    assert view["content"] is None
    backfill = next(h for h in trace.hops if h.kind == "llm.request" and h.step == 8)
    assert backfill.payload["body"]["messages"][-1]["tool_call_id"] == focus_view(backfill)["tool_call_id"]
    call = next(h for h in trace.hops if h.kind == "mcp.response" and h.step == 7)
    assert list(focus_view(call))[:4] == ["id", "isError", "result", "payload"]
    request = next(h for h in trace.hops if h.kind == "mcp.request" and h.step == 6)
    assert list(focus_view(request))[:3] == ["method", "id", "params"]


def test_the_card_keeps_the_recorders_own_fields_apart_from_what_crossed():
    """Between the MCP server and its function no tool_call_id crosses: the card opens on the payload, and the
    model's call id the recorder pairs the hop with sits under `recorder`, after it."""
    trace = sample("beijing-mcp")
    for hop in (h for h in trace.hops if h.kind in ("tool.invoke", "tool.result") and h.source != "app"):
        assert hop.tool_call_id and "tool_call_id" not in json.dumps(hop.payload)
        view = focus_view(hop)
        assert "tool_call_id" not in view and list(view)[-2:] == ["payload", "recorder"]
        assert view["recorder"] == {"tool_call_id": hop.tool_call_id}
        assert all(path[0] != "tool_call_id" for path in focus(hop, view).highlight)


def test_the_overview_stays_compact_and_marks_where_we_are():
    trace = synthetic_trace(1000)
    dot = overview_dot(trace, current=600)
    assert dot.count("fillcolor=") == 40
    marked = re.findall(r"(s\d+) \[[^\]]*label=\"●\"", dot)
    assert marked == ["s23"]  # hop 600 of 1000 lies in slice 24 of 40
    small = overview_dot(load_trace(ROOT / "sample_traces" / "beijing-mcp.json"), current=1)
    assert small.count("fillcolor=") == 20 and re.findall(r"(s\d+) \[[^\]]*label=\"●\"", small) == ["s0"]
