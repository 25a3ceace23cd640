"""The sequence diagram: pure functions from a trace to DOT (and Mermaid).

The DOT uses neato with every node pinned, so the picture is a textbook sequence diagram:
lifelines in fixed columns, time flowing down, one horizontal arrow per hop, phases as bands.
Each arrow's `id` names the hops it stands for (`hop-12`, or `hop-12-20` for collapsed
stream chunks), which the HTML export and the tests rely on.
"""

from __future__ import annotations

import html
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

import graphviz

from flow.text.names import AT_PROVIDER, LABEL_TEXT, PHASE_NAMES, Lang, actor_names
from flow.text.views import DIAGRAM_TEXT
from flow.trace.model import Actor, Hop, Mode, Trace, as_dict
from flow.trace.payloads import LlmChunk, is_a
from flow.trace.rounds import Rounds, call_rounds
from flow.trace.steps import Phase
from flow.views.labels import (
    PHASE_COLORS,
    arrow_style,
    display_width,
    is_reply,
    is_reported,
    label_lines,
    provider_group,
    short_label,
    step_numbers,
    trace_lifelines,
)

COL_W = 2.2  # inches between lifelines


@dataclass(frozen=True)
class Spacing:
    """How far apart the lifelines stand (inches) and how wide a head's name may be (display columns) before it
    takes two lines: the names must not touch at that distance."""

    col_w: float
    head_most: int


WIDE = Spacing(COL_W, 12)
# Compare sets two diagrams side by side on a 1280-px page beside the sidebar: a 6-lifeline diagram drawn this
# narrow keeps its arrow labels at 12 px there (labels are as large as ever, the gaps between lifelines shorter).
NARROW = Spacing(1.6, 6)


ROW_H = 0.66


LABEL_DY = 0.23


FONT = "sans-serif"


LABEL_SIZE = 20


LINE_H = LABEL_SIZE / 72  # inches: each further line of a label lowers its arrow this much (graphviz: 1 em a line)


HEAD_SIZE = 20


SMALL_SIZE = 14  # phase names; elements of class "small" (a page's CSS may need to know)


CURRENT = "#1565c0"


NORMAL = "#303030"


ERROR = "#c62828"


FADED = "#c4c4c4"


FADED_TEXT = "#a8a8a8"


FADED_ERROR = "#eab0b0"


REPORTED = "#6a3fa0"  # a hop the provider reported, which nobody here saw cross a wire


PROVIDER_LINE = "#8e6cc4"


PROVIDER_FILL = "#8e6cc41c"  # translucent: the phase bands show through the provider's box


MAX_ARROWS = 1_000


"""The most arrows one picture draws: about 47,000 pixels tall, past what a PNG holds unscaled (32,767) and about
what a browser lays out in a few seconds. A longer trace is drawn a window at a time; a real run is 20 to 200."""


def gave_up(hop: Hop) -> bool:
    """Is this hop a timeout: the waiting side giving up, which nothing from the other side carried?"""
    error = hop.payload.get("error") if isinstance(hop.payload, dict) else None
    return (hop.kind, error) in (("error", "timeout"), ("llm.error", "deadline"))


def drawn_ends(hop: Hop) -> tuple[Actor, Actor]:
    """Where a hop's arrow starts and ends. A timeout is the waiting side's own event (an MCP client that stopped
    waiting for tools/call, an app whose model call ran out of time): drawn on its lifeline, never as an arrow from
    a server or a model that sent nothing."""
    if gave_up(hop):
        return hop.target, hop.target
    return hop.source, hop.target


@dataclass
class Row:
    """One arrow: a hop, or a run of stream chunks (or of one request's progress notifications) drawn as one."""

    hops: list[Hop]
    number: str
    lang: Lang = "en"
    rounds: Rounds | None = None  # the trace's logical calls of several rounds, for a tools/call's label
    _label: str | None = None

    @property
    def label(self) -> str:
        """Made on first use: a window over a long trace labels only the rows it shows."""
        if self._label is None:
            if len(self.hops) == 1:
                self._label = short_label(self.hops[0], lang=self.lang, rounds=self.rounds)
            elif is_a(self.hops[0], LlmChunk):
                self._label = LABEL_TEXT["stream_rows"][self.lang].format(n=len(self.hops))
            else:
                last = label_lines(self.hops[-1], 200, lang=self.lang)[0]
                # the request the notices report on, with the last one's count and message
                what = last.split(" of ", 1)[-1] if self.lang == "en" else last.split(" · ", 1)[-1]
                self._label = LABEL_TEXT["progress_rows"][self.lang].format(n=len(self.hops), what=what)
        return self._label

    @property
    def first(self) -> Hop:
        return self.hops[0]

    @property
    def arrow_id(self) -> str:
        first, last = self.hops[0].seq, self.hops[-1].seq
        return f"hop-{first}" if first == last else f"hop-{first}-{last}"

    def holds(self, seq: int) -> bool:
        return self.hops[0].seq <= seq <= self.hops[-1].seq


def _same_run(first: Hop, hop: Hop) -> bool:
    """Does `hop` continue the run `first` began: the chunks of one stream, or one request's progress?"""
    if is_a(hop, LlmChunk):
        return is_a(first, LlmChunk) and first.step == hop.step
    return hop.progress_of is not None and first.progress_of == hop.progress_of


def rows(trace: Trace, *, collapse_chunks: bool = True, lang: Lang = "en") -> list[Row]:
    """The diagram's arrows in order; `lang` is the language their labels are made in."""
    numbers = step_numbers(trace)
    rounds = call_rounds(trace.hops)
    out: list[Row] = []
    for hop in trace.hops:
        prev = out[-1] if out else None
        if collapse_chunks and prev is not None and _same_run(prev.first, hop):
            prev.hops.append(hop)
            continue
        out.append(Row([hop], numbers[hop.seq], lang, rounds))
    for row in out:
        if len(row.hops) > 1:
            row.number = f"{row.number}–{numbers[row.hops[-1].seq]}"
    return out


def too_many_arrows(trace: Trace, *, window: int | None = None, collapse_chunks: bool = True) -> str | None:
    """Why a picture of the trace (or of a `window` of arrows) cannot be drawn whole, in one line, or None.
    `to_dot` draws such a trace a window at a time; a caller that promised the whole picture refuses with this."""
    total = len(rows(trace, collapse_chunks=collapse_chunks))
    if min(total, window or total) <= MAX_ARROWS:
        return None
    drawn = f"a window of {window:,} arrows" if window else f"{total:,} arrows"
    return f"{drawn} are more than one picture draws ({MAX_ARROWS:,})"


def message_key(row: Row) -> str:
    """The message a row belongs to, as its number names it without sub-letters ("2" for 2a-2f, "r2·4" for a second
    round's decision); "" for a wire frame outside any step."""
    found = re.match(r"(r\d+·)?\d+", row.number)
    return found[0] if found else ""


def message_heights(
    trace: Trace, *, lang: Lang = "en", collapse_chunks: bool = True, spacing: Spacing = WIDE
) -> dict[str, float]:
    """How tall (inches) each message's rows are in the whole diagram of `trace`, in order; `to_dot(room=...)`
    takes the larger of two traces' heights to draw them aligned (`aligned_room`)."""
    cols = trace_lifelines(trace)
    x_of: dict[Actor, float] = {actor: i * spacing.col_w for i, actor in enumerate(cols)}
    out: dict[str, float] = {}
    group = ""
    for row in rows(trace, collapse_chunks=collapse_chunks, lang=lang)[:MAX_ARROWS]:
        group = message_key(row) or group
        out[group] = out.get(group, 0.0) + ROW_H + _row_text(row, x_of, lang).count("\n") * LINE_H
    return out


def aligned_room(*traces: Trace, lang: Lang = "en", spacing: Spacing = WIDE) -> dict[str, float]:
    """The room each message takes when the traces are drawn side by side, each message level in all of them: the
    tallest height, in the order the messages come (a message one trace lacks goes after the one before it)."""
    out: dict[str, float] = {}
    for trace in traces:
        heights = message_heights(trace, lang=lang, spacing=spacing)
        keys = list(out)
        for k, height in heights.items():
            if k not in out:
                before = list(heights)[: list(heights).index(k)]
                at = max((keys.index(b) + 1 for b in before if b in keys), default=0)
                keys.insert(at, k)
            out[k] = max(out.get(k, 0.0), height)
        out = {k: out[k] for k in keys}
    return out


def _window(all_rows: list[Row], current: int | None, window: int | None, lead: int | None) -> tuple[int, int]:
    if window is None or len(all_rows) <= window:
        return 0, len(all_rows)
    idx = next((i for i, r in enumerate(all_rows) if current is not None and r.holds(current)), 0)
    start = max(0, min(idx - (window // 3 if lead is None else lead), len(all_rows) - window))
    return start, start + window


def _html_label(number: str, text: str, *, bold: bool) -> str:
    body = f"<B>{html.escape(number)}</B>  " + "<BR/>".join(html.escape(line) for line in text.split("\n"))
    return f"<{'<B>' + body + '</B>' if bold else body}>"


def _pos(x: float, y: float) -> str:
    """A pinned position, given in inches, written in points (see `inputscale` in `to_dot`)."""
    return f"{x * 72:.1f},{y * 72:.1f}!"


def to_dot(
    trace: Trace,
    *,
    current: int | None = None,
    window: int | None = 40,
    lang: Lang = "en",
    collapse_chunks: bool = True,
    lead: int | None = None,
    room: Mapping[str, float] | None = None,
    spacing: Spacing = WIDE,
) -> str:
    """DOT for the whole trace or a window of it; `current` (a hop's seq) is highlighted,
    earlier hops drawn normally, later ones faded. `lead` arrows come before the current one
    in a window (default: a third of it). Never more than `MAX_ARROWS`: a longer trace, or a wider
    window, is drawn as a window of that many, marked above and below with the hops left out."""
    if window is None or window > MAX_ARROWS:
        window = MAX_ARROWS
    cols = trace_lifelines(trace)
    col_w = spacing.col_w
    x_of: dict[Actor, float] = {actor: i * col_w for i, actor in enumerate(cols)}
    all_rows = rows(trace, collapse_chunks=collapse_chunks, lang=lang)
    start, end = _window(all_rows, current, window, lead)
    shown = all_rows[start:end]
    top = -ROW_H if start > 0 else 0.0
    texts = [_row_text(row, x_of, lang) for row in shown]
    ys, gaps = _row_heights(shown, texts, top=top, room=room)
    last_y = ys[-1] if ys else top
    bottom = last_y - (2 if end < len(all_rows) else 1) * ROW_H

    g = _new_graph()
    _draw_phase_bands(g, shown, ys, gaps, top=top, right=(len(cols) - 1) * col_w + 1.0, lang=lang)
    provider_xs = [x_of[a] for a in provider_group(trace) if a in x_of]
    _draw_provider(g, provider_xs, top=top, bottom=bottom, lang=lang, col_w=col_w)
    _draw_lifelines(g, cols, x_of, bottom=bottom, lang=lang, mode=trace.meta.mode, head_most=spacing.head_most)
    middle = (len(cols) - 1) * col_w / 2
    if start > 0:
        earlier = sum(len(r.hops) for r in all_rows[:start])
        _draw_left_out(g, "more_above", DIAGRAM_TEXT["more_above"][lang].format(n=earlier), _pos(middle, -ROW_H))
    if end < len(all_rows):
        later = sum(len(r.hops) for r in all_rows[end:])
        _draw_left_out(g, "more_below", DIAGRAM_TEXT["more_below"][lang].format(n=later), _pos(middle, last_y - ROW_H))

    out = _Statements([], [], [])
    for i, row in enumerate(shown):
        _draw_row(out, row, i, texts[i], y=ys[i], x_of=x_of, current=current)
    _write_statements(g, out)
    return str(g.source)


def _row_heights(
    shown: list[Row], texts: list[str], *, top: float, room: Mapping[str, float] | None
) -> tuple[list[float], dict[int, float]]:
    """Each arrow's y, and the room left empty below a row (by its index) where its message ends.

    A row is ROW_H tall, plus LINE_H for every further line of its label (which grows upwards). With `room`,
    each message's rows take at least the height given for it, so that two diagrams drawn with the same `room`
    put each message at the same height (the Compare page). A message this trace lacks keeps its room empty;
    `room` lists the messages in order."""
    order = list(room or {})
    ys: list[float] = []
    gaps: dict[int, float] = {}
    y, group, used = top, "", 0.0
    for row, text in zip(shown, texts, strict=True):
        key = message_key(row) or group
        if room is not None and key != group:
            before = y
            y -= max(0.0, room.get(group, 0.0) - used)
            i = order.index(group) if group in order else -1
            j = order.index(key) if key in order else i + 1
            y -= sum(room[k] for k in order[i + 1 : j])
            group, used = key, 0.0
            if ys:  # the room left over belongs to the message above: a phase band ends where its message does
                gaps[len(ys) - 1] = before - y
        height = ROW_H + text.count("\n") * LINE_H
        y, used = y - height, used + height
        ys.append(y)
    return ys, gaps


def _new_graph() -> graphviz.Digraph:
    g = graphviz.Digraph("sequence", engine="neato")
    # Positions are written in points with inputscale=72, which both a full neato run (the browser's)
    # and `neato -n` (no layout pass: linear in the hops, used by `render`) read the same way.
    g.attr(
        layout="neato",
        inputscale="72",
        outputorder="nodesfirst",
        splines="false",
        bgcolor="white",
        pad="0.3",
        fontname=FONT,
        margin="0",
    )
    g.attr("node", fontname=FONT, fontsize=str(LABEL_SIZE), label="")
    g.attr("edge", fontname=FONT, arrowsize="0.9")
    return g


def _draw_phase_bands(
    g: graphviz.Digraph,
    shown: list[Row],
    ys: list[float],
    gaps: dict[int, float],
    *,
    top: float,
    right: float,
    lang: Lang,
) -> None:
    """Phase bands behind everything, labelled at the left: one per run of rows in the same phase."""
    left = -1.6
    band: list[tuple[Phase | None, int, int]] = []
    phase: Phase | None = None
    for i, row in enumerate(shown):
        phase = row.first.phase or phase
        if band and band[-1][0] == phase:
            band[-1] = (phase, band[-1][1], i)
        else:
            band.append((phase, i, i))
    for b, (ph, i0, i1) in enumerate(band):
        if ph is None:
            continue
        top_y = (ys[i0 - 1] - gaps.get(i0 - 1, 0.0) if i0 else top) - ROW_H / 2
        bot_y = ys[i1] - gaps.get(i1, 0.0) - ROW_H / 2
        g.node(
            f"band{b}",
            shape="box",
            style="filled",
            color=PHASE_COLORS[ph],
            fillcolor=PHASE_COLORS[ph],
            width=f"{right - left:.3f}",
            height=f"{top_y - bot_y:.3f}",
            fixedsize="true",
            pos=_pos((left + right) / 2, (top_y + bot_y) / 2),
        )
        g.node(
            f"bandlabel{b}",
            label=PHASE_NAMES[ph][lang],
            shape="plaintext",
            fontsize=str(SMALL_SIZE),
            fontcolor="#707070",
            pos=_pos(left + 0.42, top_y - 0.16),
            **{"class": "small"},
        )


def _draw_provider(
    g: graphviz.Digraph, xs: list[float], *, top: float, bottom: float, lang: Lang, col_w: float = COL_W
) -> None:
    """Hosted MCP: one translucent box around the lifelines that run at the model provider (its API and its MCP
    client), from above their heads to below their feet, named at its top."""
    if not xs:
        return
    left, right = min(xs) - col_w / 2 + 0.08, max(xs) + col_w / 2 - 0.08
    high, low = max(top, 0.0) + 0.95, bottom - 0.5
    g.node(
        "provider_group",
        id="provider-group",
        shape="box",
        style="rounded,dashed,filled",
        color=PROVIDER_LINE,
        fillcolor=PROVIDER_FILL,
        penwidth="2",
        width=f"{right - left:.3f}",
        height=f"{high - low:.3f}",
        fixedsize="true",
        pos=_pos((left + right) / 2, (high + low) / 2),
    )
    g.node(
        "provider_label",
        id="provider-label",
        label=f"<<B>{html.escape(AT_PROVIDER[lang])}</B>>",
        shape="plaintext",
        fontsize=str(SMALL_SIZE + 2),
        fontcolor=REPORTED,
        pos=_pos((left + right) / 2, high - 0.2),
    )


def head_name(name: str, most: int = 12) -> str:
    """A lifeline's name on its head: a name wider than `most` columns on two lines, broken at the space nearest its
    middle ("Provider's" / "MCP client"), and each line broken so again while it is still too wide ("MCP" /
    "client" where the lifelines stand close), so that neighbouring heads keep apart."""
    spaces = [i for i, c in enumerate(name) if c == " "]
    if display_width(name) <= most or not spaces:
        return name
    at = min(spaces, key=lambda i: abs(display_width(name[:i]) - display_width(name[i + 1 :])))
    return head_name(name[:at], most) + "\n" + head_name(name[at + 1 :], most)


def _draw_lifelines(
    g: graphviz.Digraph,
    cols: list[Actor],
    x_of: dict[Actor, float],
    *,
    bottom: float,
    lang: Lang,
    mode: Mode,
    head_most: int = WIDE.head_most,
) -> None:
    """Lifelines: a head on top, a foot below, a dashed line between (a node, so labels can sit on it)."""
    names = actor_names(mode)
    for actor in cols:
        x = x_of[actor]
        name = head_name(names[actor][lang], head_most)
        g.node(
            f"line_{actor}",
            id=f"lifeline-{actor}",  # for a page that checks every lifeline is on screen
            shape="box",
            style="dashed",
            color="#9e9e9e",
            width="0.001",
            height=f"{-bottom:.3f}",
            fixedsize="true",
            pos=_pos(x, bottom / 2),
        )
        for end_name, y in (("head", 0.0), ("foot", bottom)):
            # Wide enough for the name whatever the renderer thinks a CJK character measures.
            width = max(1.0, max(display_width(line) for line in name.split("\n")) * HEAD_SIZE * 0.6 / 72 + 0.3)
            g.node(
                f"{end_name}_{actor}",
                id=f"{end_name}-{actor}",  # the viewer keeps a copy of the heads in view (diagram.mjs drawHeads)
                label="<<B>" + "<BR/>".join(html.escape(line) for line in name.split("\n")) + "</B>>",
                shape="box",
                style="rounded,filled",
                fillcolor="white",
                color="#505050",
                penwidth="1.6",
                fontsize=str(HEAD_SIZE),
                margin="0.15,0.06",
                width=f"{width:.2f}",
                pos=_pos(x, y),
            )


def _draw_left_out(g: graphviz.Digraph, name: str, label: str, pos: str) -> None:
    """The mark above or below a window that says how many hops it leaves out."""
    g.node(name, label=label, shape="plaintext", fontcolor="#707070", pos=pos)


def _write_statements(g: graphviz.Digraph, out: _Statements) -> None:
    """The rows' points, labels and arrows; defaults hold what they share, so each statement stays short."""
    g.attr("node", shape="point", width="0.01", style="invis")
    for name, pos in out.points:
        g.node(name, pos=pos)
    g.attr(
        "node",
        shape="box",
        style="filled",
        color="white",
        fillcolor="white",
        fontcolor=NORMAL,
        margin="0.04,0.01",
        height="0.1",
        width="0",
    )
    for name, attrs in out.labels:
        g.node(name, **attrs)
    g.attr("edge", color=NORMAL, penwidth="1.6")
    for tail, head, attrs in out.edges:
        g.edge(tail, head, **attrs)


@dataclass
class _Statements:
    """The rows' statements, grouped so that shared attributes can be defaults (a 1,000-hop DOT stays fast)."""

    points: list[tuple[str, str]]
    edges: list[tuple[str, str, dict[str, str]]]
    labels: list[tuple[str, dict[str, str]]]


def _label_width(span_in: float) -> int:
    """How many display columns a label may take: about what fits over its arrow, never fewer than 30."""
    return max(30, min(64, int(span_in * 72 / (LABEL_SIZE * 0.52))))


def _row_text(row: Row, x_of: dict[Actor, float], lang: Lang) -> str:
    """The words on a row's arrow: its hop's label in the room its span gives, or the row's own for a run of hops."""
    hop = row.first
    if len(row.hops) > 1:
        return row.label
    source, target = drawn_ends(hop)
    return short_label(hop, _label_width(abs(x_of[target] - x_of[source])), lang=lang, rounds=row.rounds)


def _row_colours(hop: Hop, style: str, reported: bool, *, is_current: bool, later: bool) -> tuple[str, str, str]:
    """An arrow's colour, its label's colour and its width: the current hop's, a later one's (faded), or its own (an
    error's, a reported hop's, red when the report disagrees with the frame seen)."""
    wrong = style == "error" or bool(reported and as_dict(hop.payload).get("mismatch"))
    if is_current:
        return CURRENT, CURRENT, "3.5"
    if later:
        return FADED_ERROR if wrong else FADED, FADED_TEXT, "1.2"
    color = ERROR if wrong else REPORTED if reported else NORMAL
    return color, color, "1.6"


def _draw_row(
    out: _Statements, row: Row, i: int, text: str, *, y: float, x_of: dict[Actor, float], current: int | None
) -> None:
    hop = row.first
    style = arrow_style(hop)
    is_current = current is not None and row.holds(current)
    later = current is not None and hop.seq > current
    reported = is_reported(hop)
    color, text_color, width = _row_colours(hop, style, reported, is_current=is_current, later=later)
    looks: dict[str, str] = {}
    if color != NORMAL:
        looks["color"] = color
    if width != "1.6":
        looks["penwidth"] = width
    classes = f"hop {style}" + (" reported" if reported else "") + (" current" if is_current else "")
    edge = {**looks, "id": row.arrow_id, "class": classes}
    line = {"request": "solid", "self": "solid", "error": "solid", "response": "dashed", "notification": "dotted"}[
        style
    ]
    source, target = drawn_ends(hop)
    if style == "error" and is_reply(hop) and source != target:
        line = "dashed"  # an error that answers something is drawn like the answer it replaces
    if line != "solid":
        edge["style"] = line
    if style in ("response", "notification"):
        edge["arrowhead"] = "vee"
    if reported:  # the provider's word, not a frame seen: dashed, with a hollow head, whichever way it goes
        edge["style"], edge["arrowhead"] = "dashed", "onormal"
    xs, xt = x_of[source], x_of[target]
    raise_by = text.count("\n") * LINE_H / 2  # a taller label keeps its bottom edge where a one-line label has it
    label = {"label": _html_label(row.number, text, bold=is_current), "id": f"label-{row.arrow_id}"}
    if is_current:
        label["color"] = label["fillcolor"] = "#fff8c4"
    if text_color != NORMAL:
        label["fontcolor"] = text_color
    if source == target:
        loop = 0.42
        pts = [(xs, y + 0.09), (xs + loop, y + 0.09), (xs + loop, y - 0.09), (xs, y - 0.09)]
        out.points += [(f"r{i}p{k}", _pos(px, py)) for k, (px, py) in enumerate(pts)]
        out.edges.append((f"r{i}p0", f"r{i}p1", {**looks, "arrowhead": "none"}))
        out.edges.append((f"r{i}p1", f"r{i}p2", {**looks, "arrowhead": "none"}))
        out.edges.append((f"r{i}p2", f"r{i}p3", edge))
        est = (
            max(display_width(line) for line in (row.number + "  " + text).split("\n")) * LABEL_SIZE * 0.55
        ) / 72 + 0.2
        # Beside the loop, on whichever side has room: right of the left columns, left of the right ones.
        on_right = xs < max(x_of.values()) / 2 + 0.01
        lx = xs + loop + 0.22 + est / 2 if on_right else xs - 0.2 - est / 2
        out.labels.append((f"r{i}l", {**label, "pos": _pos(lx, y + raise_by)}))
        return
    out.points += [(f"r{i}a", _pos(xs, y)), (f"r{i}b", _pos(xt, y))]
    out.edges.append((f"r{i}a", f"r{i}b", edge))
    out.labels.append((f"r{i}l", {**label, "pos": _pos((xs + xt) / 2, y + LABEL_DY + raise_by)}))


def overview_dot(trace: Trace, *, current: int | None = None, lang: Lang = "en", slices: int = 40) -> str:
    """A compact strip of the whole run, whatever its length: up to `slices` equal slices of hops, each
    coloured by its phase, the one holding the current hop marked."""
    hops = trace.hops
    n = max(1, min(slices, len(hops)))
    g = graphviz.Digraph("overview")
    g.attr(rankdir="LR", nodesep="0", ranksep="0", bgcolor="white", pad="0.05")
    g.attr(
        "node",
        shape="box",
        style="filled",
        fontname=FONT,
        fontsize="10",
        height="0.3",
        fixedsize="true",
        width=f"{10.0 / n:.3f}",
        label="",
        penwidth="0.5",
        color="white",
    )
    g.attr("edge", style="invis", arrowhead="none")
    phase: Phase | None = None
    for i in range(n if hops else 0):  # a trace without hops is an empty strip
        part = hops[i * len(hops) // n : (i + 1) * len(hops) // n] or hops[-1:]
        counts: dict[Phase | None, int] = {}
        for h in part:
            phase = h.phase or phase
            counts[phase] = counts.get(phase, 0) + 1
        major = max(counts, key=lambda p: counts[p])
        here = current is not None and part[0].seq <= current <= part[-1].seq
        attrs = {
            "fillcolor": PHASE_COLORS[major] if major else "#eeeeee",
            "tooltip": f"{part[0].seq}-{part[-1].seq} {PHASE_NAMES[major][lang] if major else ''}",
        }
        if here:
            attrs.update(label="●", fontcolor=CURRENT, color=CURRENT, penwidth="2.5")
        g.node(f"s{i}", **attrs)
        if i:
            g.edge(f"s{i - 1}", f"s{i}")
    return str(g.source)


class RenderError(Exception):
    """The picture cannot be made here; the message says why in one line."""


def render(dot: str, fmt: str) -> bytes:
    """Lay out and draw DOT with the graphviz program (installed by ./dev.sh)."""
    pinned = "layout=neato" in dot
    # Every node of the sequence diagram is pinned, so skip neato's layout pass (-n), which grows
    # quadratically with the hops.
    command = ["neato", "-n"] if pinned else ["dot"]
    try:
        done = subprocess.run([*command, f"-T{fmt}"], input=dot.encode(), capture_output=True, timeout=300)
    except FileNotFoundError:
        raise RenderError(
            "graphviz is not installed: pictures need its `dot` program (Debian/Ubuntu: sudo apt install graphviz, "
            "macOS: brew install graphviz; ./dev.sh setup installs it)"
        ) from None
    except subprocess.TimeoutExpired:
        raise RenderError("graphviz took more than 5 minutes to draw this") from None
    if done.returncode != 0:
        raise RenderError(f"graphviz could not draw this: {done.stderr.decode(errors='replace').strip()[:200]}")
    return done.stdout


_MERMAID_ESCAPES = str.maketrans({"#": "#35;", ";": "#59;", "\n": " "})


def _mermaid_text(text: str) -> str:
    """Text as a Mermaid label holds it: `#` and `;` as entity codes, in one pass (a second would escape the first's
    `;`), and on one line."""
    return text.translate(_MERMAID_ESCAPES)


_MERMAID_ARROW = {"request": "->>", "self": "->>", "response": "-->>", "notification": "--)", "error": "-x"}


_MERMAID_REPORTED_ARROW = "--)"  # dotted, with an open head: the provider's word, not a frame seen


_MERMAID_REPORTED = "rgba(142, 108, 196, 0.16)"


_MERMAID_PROVIDER = "rgba(142, 108, 196, 0.12)"


_MERMAID_RGB = {
    ph: "rgb({}, {}, {})".format(*(int(c[i : i + 2], 16) for i in (1, 3, 5))) for ph, c in PHASE_COLORS.items()
}


def to_mermaid(trace: Trace, *, lang: Lang = "en", collapse_chunks: bool = True) -> str:
    """A Mermaid sequenceDiagram: renders on GitHub and in many docs tools. Hosted MCP groups the provider's
    lifelines in a box, and draws each run of the provider's reported hops dashed with an open head, on a tint."""
    cols = trace_lifelines(trace)
    names = actor_names(trace.meta.mode)
    group = provider_group(trace)
    alias = {actor: actor.replace("mcp_", "").upper()[:1] + str(i) for i, actor in enumerate(cols)}
    lines = ["sequenceDiagram"]
    for a in cols:
        if group and a == group[0]:
            lines.append(f"    box {_MERMAID_PROVIDER} {_mermaid_text(AT_PROVIDER[lang])}")
        lines.append(f"    participant {alias[a]} as {_mermaid_text(names[a][lang])}")
        if group and a == group[-1]:
            lines.append("    end")
    phase: Phase | None = None
    open_rect = tinted = False
    for row in rows(trace, collapse_chunks=collapse_chunks, lang=lang):
        hop = row.first
        reported = is_reported(hop)
        if tinted and (not reported or (hop.phase and hop.phase != phase)):
            lines.append("    end")
            tinted = False
        if hop.phase and hop.phase != phase:
            if open_rect:
                lines.append("    end")
            phase = hop.phase
            lines.append(f"    rect {_MERMAID_RGB[phase]}")
            lines.append(f"    Note over {alias[cols[0]]},{alias[cols[-1]]}: {_mermaid_text(PHASE_NAMES[phase][lang])}")
            open_rect = True
        if reported and not tinted:
            lines.append(f"    rect {_MERMAID_REPORTED}")
            tinted = True
        arrow = _MERMAID_REPORTED_ARROW if reported else _MERMAID_ARROW[arrow_style(hop)]
        text = row.label if len(row.hops) > 1 else short_label(hop, 56, lang=lang, rounds=row.rounds)
        source, target = drawn_ends(hop)
        lines.append(f"    {alias[source]}{arrow}{alias[target]}: {_mermaid_text(row.number + ' ' + text)}")
    lines += ["    end"] * (tinted + open_rect)
    return "\n".join(lines) + "\n"
