"""Widgets the pages share: the diagram (Compare), pickers and downloads. No flow logic here.

The Step through page steps with the client-side viewer (flow_ui/trace_viewer.py) instead."""

from __future__ import annotations

import base64
import html as html_text
import math
import re
from collections.abc import Sequence
from typing import Any

import graphviz
import streamlit as st

import flow
from flow import (
    LABEL_SIZE,
    SMALL_SIZE,
    Lang,
    RenderError,
    TraceError,
    aligned_dots,
    overview_dot,
    own_dots,
    render,
    to_dot,
    to_html,
    to_otlp_json,
    trace_text,
)
from flow_ui.i18n import t
from flow_ui.state import AppState, Loaded, all_traces, state, trace_title

WINDOW = 36  # arrows drawn around the current hop; a long trace gets the overview strip too


@st.cache_data(max_entries=256, show_spinner=False)
def _dot(key: str, current: int | None, lang: Lang, window: int | None, lead: int | None, _trace: flow.Trace) -> str:
    return to_dot(_trace, current=current, window=window, lang=lang, lead=lead)


@st.cache_data(max_entries=64, show_spinner=False)
def _overview(key: str, current: int | None, lang: Lang, _trace: flow.Trace) -> str:
    return overview_dot(_trace, current=current, lang=lang)


# Streamlit sets every text in a graphviz chart to one small size; give the diagram its own sizes back.
DIAGRAM_CSS = f"""<style>
[data-testid="stGraphVizChart"] svg text {{ font-size: {LABEL_SIZE}px !important; }}
[data-testid="stGraphVizChart"] svg g.small text {{ font-size: {SMALL_SIZE}px !important; }}
</style>"""


def diagram(
    item: Loaded, current: int | None, lang: Lang, *, window: int | None = WINDOW, lead: int | None = None
) -> None:
    st.html(DIAGRAM_CSS)
    dot = _dot(item.key, current, lang, window, lead, item.trace)
    st.graphviz_chart(graphviz.Source(dot, engine="neato"), width="stretch")
    if window is not None and len(item.trace.hops) > window:
        st.caption(t("overview", lang))
        st.graphviz_chart(graphviz.Source(_overview(item.key, current, lang, item.trace)), width="stretch")


@st.cache_data(max_entries=64, show_spinner=False)
def _aligned_svgs(
    keys: tuple[str, ...], lang: Lang, _traces: tuple[flow.Trace, ...], *, narrow: bool = False, level: bool = True
) -> tuple[str, ...]:
    """The diagrams drawn by graphviz, each message level with the same message of the others (`level`; else each
    at its own heights); on failure, the one line that says why, in place of each."""
    dots = aligned_dots if level else own_dots
    try:
        return tuple(render(dot, "svg").decode("utf-8") for dot in dots(*_traces, lang=lang, narrow=narrow))
    except RenderError as exc:
        return (f"<p>{html_text.escape(str(exc))}</p>",) * len(_traces)


_SVG_SIZE = re.compile(r'<svg width="([\d.]+)pt" height="[\d.]+pt"')


READABLE_PX = 12  # the smallest arrow label Compare draws side by side (on a normal screen, at 1280 × 720 too)
GAP_PX = 18
PAIR_GAP_PX = 12  # between Compare's two diagrams: the row's every pixel counts at 1280 × 720


def _widths(svgs: Sequence[str]) -> list[float]:
    return [float(m[1]) if (m := _SVG_SIZE.search(svg)) else 0.0 for svg in svgs]


def _picture(svg: str, width: float, alt: str, *, style: str) -> str:
    # An image, not inline SVG: st.html keeps only what its sanitiser allows, and a picture is drawn whole.
    picture = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return f'<img alt="{alt}" style="{style}" src="data:image/svg+xml;base64,{picture}">' if width else svg


def _cells(
    titles: Sequence[tuple[str, str]], svgs: Sequence[str], widths: Sequence[float], styles: Sequence[str], lang: Lang
) -> list[str]:
    """Each picture under its name and title."""
    cells = []
    for (name, title), svg, width, style in zip(titles, svgs, widths, styles, strict=True):
        head = html_text.escape(f"{name} · {title}")
        picture = _picture(svg, width, html_text.escape(t("diagram_alt", lang, name=name)), style=style)
        cells.append(f'<div class="cmp-side"><div class="cmp-title" title="{head}">{head}</div>{picture}</div>')
    return cells


def _shares(widths: Sequence[float]) -> list[str]:
    """Each picture as wide as its share of the widest: one scale for all."""
    widest = max(widths) or 1.0
    return [f"width:{100 * w / widest if w else 100:.1f}%" for w in widths]


def _show(level: str, rules: str, cells: Sequence[str], stacked: Sequence[str]) -> None:
    """The pictures level with each other in the grid of class `level` (`rules`: its layout, and the container
    widths where it gives way), and the same pictures each at its own heights one above the other, shown in its
    place: without the others beside it, room kept for their messages would be empty bands."""
    st.html(
        "<style>.cmp-wrap{container-type:inline-size}"
        ".cmp-stack{display:none;grid-template-columns:minmax(0,1fr);gap:28px}"
        ".cmp-side{min-width:0}"
        ".cmp-title{font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;margin-bottom:4px;"
        "line-height:1.5;height:1.5em}"  # one fixed line: a fallback font cannot push one picture lower
        f"{rules}</style>"
        f'<div class="cmp-wrap"><div class="{level}" data-testid="compare-diagrams">{"".join(cells)}</div>'
        f'<div class="cmp-stack" data-testid="compare-diagrams-stacked">{"".join(stacked)}</div></div>'
    )


def aligned_diagrams(a: Loaded, b: Loaded, lang: Lang, *, names: tuple[str, str] = ("A", "B")) -> None:
    """Two sequence diagrams side by side at one scale, so that message N of one is level with message N of the
    other: each column as wide as its picture's share (a narrower diagram is drawn narrower, not larger), drawn with
    the lifelines close (diagram.NARROW) so that their labels keep READABLE_PX at 1280 × 720 beside the sidebar.
    Where the page is too narrow even so (a phone), one above the other, each at its own heights. `names`: what each
    side is called ("A · Responses" where the two differ by API, so the titles leave the API out)."""
    keys, traces = (a.key, b.key), (a.trace, b.trace)
    level = _aligned_svgs(keys, lang, traces, narrow=True)
    own = _aligned_svgs(keys, lang, traces, narrow=True, level=False)
    widths, own_widths = _widths(level), _widths(own)
    # The drawing's units are its labels' size (LABEL_SIZE): side by side, the pictures share the row by width.
    fits = math.ceil(READABLE_PX * sum(widths) / LABEL_SIZE + PAIR_GAP_PX)
    columns = " ".join(f"minmax(0,{w or 1:.0f}fr)" for w in widths)
    titles = [(name, shown_title(item, lang, api=False)) for name, item in zip(names, (a, b), strict=True)]
    _show(
        "cmp-pair",
        f".cmp-pair{{display:grid;grid-template-columns:{columns};gap:{PAIR_GAP_PX}px;align-items:start}}"
        f"@container (max-width:{fits}px){{.cmp-pair{{display:none}}.cmp-stack{{display:grid}}}}",
        _cells(titles, level, widths, ["width:100%"] * len(level), lang),
        _cells(titles, own, own_widths, _shares(own_widths), lang),
    )


def aligned_grid(named: Sequence[tuple[str, Loaded]], lang: Lang, *, readable_px: int = READABLE_PX) -> None:
    """Several sequence diagrams at one scale, each message level across a row: all in one row where each label is
    still `readable_px` or more, else two to a row, else one above the other (the page's width decides, in the
    browser), then each at its own heights."""
    keys, traces = tuple(item.key for _, item in named), tuple(item.trace for _, item in named)
    svgs, own = _aligned_svgs(keys, lang, traces), _aligned_svgs(keys, lang, traces, level=False)
    widths, own_widths = _widths(svgs), _widths(own)
    widest = max(widths) or 1.0

    # The drawing's units are its labels' size (LABEL_SIZE): n to a row, each picture gets 1/n of it, less the gaps.
    def row_px(n: int) -> int:
        return math.ceil(n * readable_px * widest / LABEL_SIZE + (n - 1) * GAP_PX)

    n = len(named)
    rules = f".cmp-row{{display:grid;grid-template-columns:repeat({n},minmax(0,1fr));gap:{GAP_PX}px;align-items:start}}"
    if n > 2:
        rules += f"@container (max-width:{row_px(n)}px){{.cmp-row{{grid-template-columns:repeat(2,minmax(0,1fr))}}}}"
    rules += f"@container (max-width:{row_px(min(n, 2))}px){{.cmp-row{{display:none}}.cmp-stack{{display:grid}}}}"
    titles = [(name, shown_title(item, lang)) for name, item in named]
    _show(
        "cmp-row",
        rules,
        _cells(titles, svgs, widths, _shares(widths), lang),
        _cells(titles, own, own_widths, _shares(own_widths), lang),
    )


def _memory(key: str) -> tuple[str, Any]:
    """The widget key for the current language, and the callback that keeps its value under `key`."""
    app = state()
    widget_key = f"{key}_{app.lang}"

    def remember() -> None:
        app.choices[key] = st.session_state[widget_key]

    return widget_key, remember


def remembered(widget: Any, label: str, options: Sequence[Any], *, key: str, default: Any = None, **kwargs: Any) -> Any:
    """A radio or selectbox whose choice survives a language switch.

    Its labels change with the language, and a browser shows a widget whose options changed under
    the same key with nothing selected; so each language gets its own widget (`{key}_{lang}`), and
    the choice itself lives in the app state, under `key`."""
    value = state().choices.get(key, default)
    index = list(options).index(value) if value in options else 0
    widget_key, remember = _memory(key)
    return widget(label, options, index=index, key=widget_key, on_change=remember, **kwargs)


def remembered_value(widget: Any, label: str, *, key: str, default: Any, **kwargs: Any) -> Any:
    """The same for widgets with a `value` (checkbox, toggle, number input)."""
    widget_key, remember = _memory(key)
    return widget(label, value=state().choices.get(key, default), key=widget_key, on_change=remember, **kwargs)


def remembered_multiselect(label: str, options: Sequence[Any], *, key: str, **kwargs: Any) -> list[Any]:
    """The same for a multiselect; choices no longer offered are dropped."""
    widget_key, remember = _memory(key)
    chosen = [o for o in state().choices.get(key, []) if o in options]  # type: ignore[attr-defined]
    return st.multiselect(label, options, default=chosen, key=widget_key, on_change=remember, **kwargs)


def shown_title(item: Loaded, lang: Lang, *, api: bool = True) -> str:
    """A trace's name in the interface language: a sample's title, an upload's file name, or a run's number, mode,
    model API and question (the stored label of a run is English: "#1 direct · …"), so two runs of one question
    through two APIs are told apart in a picker. `api=False` where the API is named beside it (Compare's sides)."""
    numbered = re.match(r"#(\d+) ", item.label) if item.key.startswith("run:") else None
    if numbered is None:
        return trace_title(item, lang)
    meta = item.trace.meta
    mode = t(f"mode_short_{meta.mode}", lang)
    if api:
        mode = f"{mode} · {flow.api_title(item.trace)}"
    return t("run_title_item", lang, n=numbered[1], mode=mode, question=meta.question)


def picker(app: AppState, label: str, selected: str, *, key: str) -> str:
    """Choose among samples, uploads and runs; returns the chosen key. Each language has its own widget
    (`{key}_{lang}`): a browser keeps showing the title it drew in the other language under the same key."""
    items = all_traces(app)
    keys = list(items)
    key = f"{key}_{app.lang}"
    if st.session_state.get(key) not in keys:  # (the other language's widget is forgotten when not drawn)
        st.session_state[key] = selected if selected in keys else keys[0]
    return st.selectbox(label, keys, key=key, format_func=lambda k: shown_title(items[k], app.lang))


def trace_file(trace: flow.Trace) -> str:
    """The trace's JSON download: the very text `mcp-flow run --out` writes (`trace_text`: redacted, clipped to the
    loader's bounds), so every file the app gives out loads again; or the one line saying why none can be written."""
    try:
        return trace_text(trace)
    except TraceError as exc:
        return str(exc)


def downloads(item: Loaded, lang: Lang, *, questions: dict[int, Any] | None = None) -> None:
    base = item.label.replace("/", "_").replace(" ", "_")[:40] or "trace"

    def html() -> str:
        try:
            return to_html(item.trace, lang=lang, questions=questions)
        except RenderError as exc:
            return f"<!DOCTYPE html><p>{html_text.escape(str(exc))}</p>"

    def svg() -> bytes:
        try:
            return render(to_dot(item.trace, window=None, lang=lang), "svg")
        except RenderError as exc:
            return f"<svg xmlns='http://www.w3.org/2000/svg'><text y='20'>{html_text.escape(str(exc))}</text></svg>".encode()

    cols = st.columns(4)
    cols[0].download_button(
        t("download_trace", lang),
        lambda: trace_file(item.trace),
        file_name=f"{base}.json",
        mime="application/json",
        on_click="ignore",
        width="stretch",
    )
    cols[1].download_button(
        t("download_html", lang), html, file_name=f"{base}.html", mime="text/html", on_click="ignore", width="stretch"
    )
    cols[2].download_button(
        t("download_svg", lang), svg, file_name=f"{base}.svg", mime="image/svg+xml", on_click="ignore", width="stretch"
    )
    cols[3].download_button(
        t("download_otlp", lang),
        lambda: to_otlp_json(item.trace),
        file_name=f"{base}.otlp.json",
        mime="application/json",
        on_click="ignore",
        width="stretch",
        key="download_otlp",
    )
