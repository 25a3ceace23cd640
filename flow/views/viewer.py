"""The client-side trace viewer's data: one bundle per trace and language, and its assets.

The viewer (flow/views/viewer_assets/: ES modules from main.mjs down, and viewer.css, lesson.css, room.css; our own
code, no network) receives the bundle once and steps in the browser: highlighting, fading, scrolling, the route and
the panels are DOM updates. Three hosts mount the same files, joined into one module (`viewer_js`): the Step through
page (a Streamlit custom component), the self-contained HTML export (`flow.render_html.to_html`) and a room's
follower page. Nothing here imports Streamlit.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pydantic_core

from flow.text.names import AT_PROVIDER, PHASE_NAMES, STEP_NAMES, Lang, actor_names
from flow.text.route import (
    ARTICLE_PHASE_NAMES,
    ARTICLE_PHASE_SHORT,
    ARTICLES,
    CAPTIONS,
    CORRECTS,
    DIRECT_PHASE_NAMES,
    MESSAGE_NAMES,
    REASON_SHORT,
    REASON_TEXT,
    article_route,
    aside_of,
)
from flow.text.teaching import teaching_texts
from flow.text.views import VIEWER_TEXT
from flow.trace.files import clip_strings
from flow.trace.model import Hop, Trace, as_dict
from flow.trace.questions import CHOICE_KEYS, Question, words
from flow.trace.rounds import call_rounds
from flow.trace.route import message_of, route
from flow.trace.steps import phase_spans
from flow.views.bundle_types import (
    BUNDLE_VERSION,
    Bundle,
    BundleHop,
    FocusColour,
    FocusItem,
    FocusOpen,
    RouteBundle,
    RouteMessage,
)
from flow.views.closing import closing_bundle
from flow.views.diagram import MAX_ARROWS, RenderError, drawn_ends, render, rows, to_dot
from flow.views.focus import PAIR_PALETTE, focus
from flow.views.js_modules import join_modules
from flow.views.labels import PHASE_COLORS, arrow_style, is_reported, provider_group, short_label, trace_lifelines
from flow.views.table import VIEW_BYTES, VIEW_TEXT_CHARS, focus_view

ASSETS = Path(__file__).resolve().parent / "viewer_assets"


def _focus_for(hop: Hop, view: dict[str, Any]) -> list[FocusItem] | None:
    """The inspector's focus for the viewer: highlighted paths, pairings as `{path, color}`, and containers only
    opened as `{path, open: true}` (see flow.focus); None means 'open a few levels'."""
    found = focus(hop, view)
    colour_of = {path: PAIR_PALETTE[k % len(PAIR_PALETTE)] for path, k in found.colours}
    items: list[FocusItem] = [
        FocusColour(path=list(p), color=colour_of[p]) if p in colour_of else list[str | int](p) for p in found.highlight
    ]
    items += [FocusColour(path=list(p), color=c) for p, c in colour_of.items() if p not in found.highlight]
    items += [FocusOpen(path=list(p), open=True) for p in found.open if p not in found.highlight]
    return items or None


def _svg(trace: Trace, lang: Lang) -> tuple[str | None, str | None]:
    """The whole diagram, nothing highlighted (the viewer does that), ready to inline; or the reason it cannot be drawn."""
    try:
        svg = render(to_dot(trace, window=None, lang=lang), "svg").decode("utf-8")
    except RenderError as exc:
        return None, str(exc)
    svg = re.sub(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->|<title>[^<]*</title>", "", svg, flags=re.S)
    return svg.strip(), None


def trace_digest(trace: Trace) -> str:
    """A short name for a trace's content, so a host can tell a new trace from the same one redrawn. The encoder's
    bytes, not the file text: that one is built through copies of the whole trace (a 3-million-key payload took
    800 MB more to name)."""
    try:
        data = pydantic_core.to_json(trace, inf_nan_mode="constants")
    except (pydantic_core.PydanticSerializationError, ValueError, RecursionError):  # built in code, never loaded
        data = trace.to_json().encode("utf-8")
    return hashlib.sha256(data).hexdigest()[:16]


PART_HOPS = MAX_ARROWS


"""The most hops one viewer holds: its diagram is drawn whole."""


PART_BYTES = 24 * 2**20


"""About the most viewer data one part holds: a browser gets it in one message (Streamlit refuses one over 200 MB),
and a classroom room keeps it (32 MiB). A 20,000-hop trace's data was 207 MB."""


_HOP_BYTES = 4096  # a hop's words, label and focus beside its JSON view


def _hop_cost(hop: Hop) -> int:
    """An upper estimate of a hop's share of the bundle: its JSON view holds the payload with long texts cut and the
    fields a lesson is about again (at most `VIEW_BYTES` in all; half again for escapes, should it be cut to text)."""
    try:
        size = len(pydantic_core.to_json(clip_strings(hop.payload, VIEW_TEXT_CHARS)[0], inf_nan_mode="constants"))
    except (pydantic_core.PydanticSerializationError, ValueError, RecursionError):
        size = VIEW_BYTES
    return min(2 * size, VIEW_BYTES) * 3 // 2 + _HOP_BYTES


def viewer_parts(trace: Trace, *, max_hops: int = PART_HOPS, max_bytes: int = PART_BYTES) -> list[range]:
    """The trace's hops (by index) in consecutive parts the viewer can hold, each at most `max_hops` hops and about
    `max_bytes` of data (never less than one hop); one part for every trace of ordinary size."""
    parts: list[range] = []
    start, used = 0, 0
    for i, hop in enumerate(trace.hops):
        cost = _hop_cost(hop)
        if i > start and (i - start >= max_hops or used + cost > max_bytes):
            parts.append(range(start, i))
            start, used = i, 0
        used += cost
    parts.append(range(start, len(trace.hops)))
    return parts


def part_trace(trace: Trace, part: range) -> Trace:
    """The hops of one part as a trace of their own (their `seq` kept), for the viewer: the whole trace for a part
    that holds it all."""
    if part.start == 0 and part.stop >= len(trace.hops):
        return trace
    return trace.model_copy(update={"hops": trace.hops[part.start : part.stop]})


def route_bundle(trace: Trace) -> RouteBundle:
    """The articles' route for the viewer's overview: phase zero and the ten messages, each with its state in this
    trace, its words in both languages and the hop a click jumps to."""
    messages: list[RouteMessage] = []
    for m in route(trace):
        messages.append(
            {
                "n": int(m.step),
                "state": m.state,
                "first": m.first,
                "hops": m.hops,
                "visits": m.visits,
                "article_phase": m.article_phase,
                "app_phase": m.app_phase,
                "name": words(MESSAGE_NAMES[m.step]),
                "app_name": words(STEP_NAMES[m.step]),
                "article_route": {"zh": article_route(m.step, "zh"), "en": article_route(m.step, "en")},
                "reason": m.reason,
                "reason_short": words(REASON_SHORT[m.reason]) if m.reason else None,
                "reason_text": words(REASON_TEXT[m.reason]) if m.reason else None,
                "corrected_article": words(ARTICLES[CORRECTS[m.reason]]) if m.reason in CORRECTS else None,
                "caption": words(CAPTIONS[m.step]),
            }
        )
    return {
        "messages": messages,
        # the bands above and below the messages: [phase, first step, last step], from the one step table
        "spans": {
            "app": [(p, int(a), int(b)) for p, a, b in phase_spans("app")],
            "article": [(p, int(a), int(b)) for p, a, b in phase_spans("article")],
        },
        "article_phases": {
            str(k): {"name": words(v), "short": words(ARTICLE_PHASE_SHORT[k])}
            for k, v in (DIRECT_PHASE_NAMES if trace.meta.mode == "direct" else ARTICLE_PHASE_NAMES).items()
        },
    }


def viewer_bundle(trace: Trace, *, lang: Lang = "zh", questions: Mapping[int, Question] | None = None) -> Bundle:
    """Everything the viewer needs for one trace, in one JSON-ready dict (sent once per trace and language); its
    shape is flow.views.bundle_types.Bundle, committed as schema/viewer-bundle.schema.json.

    `svg` is drawn once with no hop highlighted; arrows carry ids `hop-N` / `hop-A-B` and labels `label-hop-…` (see
    flow.render_diagram), in the order of `rows`, and `row_styles` says each arrow's style. Each hop names its arrow
    by index into `rows`. A hop's `focus` is a list of JSON paths into its `view` (or into `view.payload`) to open and
    highlight; an item may also be `{"path": [...], "color": "#hex"}` to pair fields by colour. `closing` is the
    closing view shown as one more step after the last hop (flow.views.closing; None for a part of a long trace).
    `lanes` names the lifelines left to right, and a hop's `lanes` the two its arrow joins (a phone draws the hops as
    rows of them). A hop's `message` is the articles' message it belongs to (see `route_bundle`), and `question` the
    question asked before it, if any (`questions`: by hop `seq`, from flow.questions_for), its choices picked with
    `choice_keys`.
    """
    svg, error = _svg(trace, lang)
    all_rows = rows(trace)
    row_of: dict[int, int] = {}
    for r, row in enumerate(all_rows):
        for h in row.hops:
            row_of[h.seq] = r
    numbers = {h.seq: row.number for row in rows(trace, collapse_chunks=False) for h in row.hops}
    lanes = trace_lifelines(trace)
    names = actor_names(trace.meta.mode)
    pairs = reported_pairs(trace)
    index_of = {h.seq: i for i, h in enumerate(trace.hops)}
    hops: list[BundleHop] = []
    teach = {code: teaching_texts(trace.hops, code) for code in ("zh", "en")}  # texts that need neighbours
    rounds = call_rounds(trace.hops)
    for i, hop in enumerate(trace.hops):
        view = focus_view(hop, rounds=rounds)
        start, end = drawn_ends(hop)  # a timeout is the waiting side's own event
        item: BundleHop = {
            "seq": hop.seq,
            "number": numbers[hop.seq],
            "row": row_of[hop.seq],
            "kind": hop.kind,
            "phase": hop.phase,
            "from": words(names[start]),
            "to": words(names[hop.target]),
            "lanes": (lanes.index(start), lanes.index(end)),
            "label": short_label(hop, 80, lang=lang, rounds=rounds),
            "teach": {"zh": teach["zh"][i], "en": teach["en"][i]},
            "view": view,
            "message": None if (step := message_of(hop)) is None else int(step),
        }
        if (aside := aside_of(hop)) is not None:  # a server that asks: where it fits among the ten messages
            item["aside"] = words(aside)
        if is_reported(hop):
            item["reported"] = True
            if mismatch := [str(m) for m in as_dict(hop.payload).get("mismatch") or []]:
                item["mismatch"] = mismatch
        if (twin := pairs.get(hop.seq)) is not None and twin in index_of:
            item["pair"] = {"seq": twin, "index": index_of[twin]}
        if questions and hop.seq in questions:
            item["question"] = questions[hop.seq].to_json()
        hop_focus = _focus_for(hop, view)
        if hop_focus is not None:
            item["focus"] = hop_focus
        hops.append(item)
    meta = trace.meta
    return {
        "version": BUNDLE_VERSION,
        "trace": trace_digest(trace),
        "lang": lang,
        "title": {
            "zh": (meta.title or {}).get("zh") or meta.question,
            "en": (meta.title or {}).get("en") or meta.question,
        },
        "note": {"zh": (meta.note or {}).get("zh", ""), "en": (meta.note or {}).get("en", "")},
        "svg": svg,
        "svg_error": error,
        "rows": [row.arrow_id for row in all_rows],
        "row_styles": [arrow_style(row.first) for row in all_rows],
        "lanes": [words(names[actor]) for actor in lanes],
        # hosted MCP: the lanes (by index) that run at the model provider, and what the group is called
        "provider": {"lanes": [lanes.index(a) for a in provider_group(trace)], "name": words(AT_PROVIDER)},
        "hops": hops,
        "phases": {p: {"name": words(PHASE_NAMES[p]), "color": PHASE_COLORS[p]} for p in PHASE_NAMES},
        "route": route_bundle(trace),
        "ui": {key: words(value) for key, value in VIEWER_TEXT.items()},
        "choice_keys": CHOICE_KEYS,
        "closing": closing_bundle(trace) if _whole(trace) else None,
    }


def reported_pairs(trace: Trace) -> dict[int, int]:
    """Each hop the provider reported with the frame a recorder saw of the same exchange, both ways (seq → seq): a
    reported hop's `observed`, and that frame's reporter."""
    out: dict[int, int] = {}
    frames = {h.seq for h in trace.hops if h.kind.startswith("mcp.") and not is_reported(h)}
    for hop in trace.hops:
        seen = as_dict(hop.payload).get("observed") if is_reported(hop) else None
        # A file may name any number: only a frame this trace holds is a pair.
        if isinstance(seen, int) and not isinstance(seen, bool) and seen in frames:
            out[hop.seq] = seen
            out.setdefault(seen, hop.seq)
    return out


def _whole(trace: Trace) -> bool:
    """Whether the trace holds all the hops it was recorded with: a part of a long trace gets no closing view, which
    would speak of the part as if it were the run."""
    recorded = trace.meta.stats.get("hops")
    return not isinstance(recorded, int) or recorded == len(trace.hops)


# The viewer's entry module (it imports the others) and its style sheets, joined in this order.
JS_ENTRY = "main.mjs"
PAGE_KEYS_ENTRY = "page_keys.mjs"  # the other entry: presenter mode's keys on a page without the viewer
CSS_PARTS = ("viewer.css", "lesson.css", "room.css")


@cache
def viewer_js() -> str:
    """The viewer's script: its ES modules joined into one module (flow.views.js_modules), whose default export is
    the Streamlit component entry and whose top level holds `mountViewer` and `followRoom` for a page's own script."""
    return join_modules(ASSETS, JS_ENTRY)


@cache
def page_keys_js() -> str:
    """The script of a page that shows no viewer but has its presenter mode (Compare, Hops): the viewer's keys for
    the mode (page_keys.mjs, on keys.mjs), whose default export is a Streamlit component entry."""
    return join_modules(ASSETS, PAGE_KEYS_ENTRY)


@cache
def viewer_css() -> str:
    return "\n".join((ASSETS / name).read_text(encoding="utf-8") for name in CSS_PARTS)


def bundle_json(value: object) -> str:
    """JSON text a browser's JSON.parse reads: a payload may hold NaN or Infinity (Python's JSON reads them),
    which JSON has no word for, so those are written as the strings "NaN", "Infinity", "-Infinity"."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(value), ensure_ascii=False, allow_nan=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def script_json(value: object) -> str:
    """JSON that cannot end the <script> element it sits in."""
    return bundle_json(value).replace("</", "<\\/").replace("<!--", "<\\!--")
