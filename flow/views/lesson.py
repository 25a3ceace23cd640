"""A lesson script for any trace, as Markdown a teacher can print or paste into slides: the question, the ten
messages at a glance (which hops of this trace are which message, and why a message has none), then each hop with
its step, its message, from → to, its question and that question's answer, then its teaching text (the viewer's
own) and the focus of its payload.

Everything taken from the file is data: prose is escaped so that no value becomes markup, and JSON sits in a fence
longer than any run of backticks inside it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

from flow.text.names import ACTOR_NAMES, Lang
from flow.text.route import (
    ARTICLE_PHASE_NAMES,
    CAPTIONS,
    DIRECT_PHASE_NAMES,
    REASON_TEXT,
    article_route,
    route_cell,
)
from flow.text.teaching import teaching_texts
from flow.text.teaching.lesson import API_CROSSES, ARTICLE_MESSAGES, HOSTED_MESSAGES, LESSON_TEXT
from flow.text.ways import LESSON_WORDS
from flow.trace.files import escape_controls
from flow.trace.model import Hop, Trace
from flow.trace.route import Message, route, stop_hop
from flow.trace.steps import Step
from flow.views.closing import closing_markdown
from flow.views.diagram import drawn_ends
from flow.views.focus import Path, focus, resolve
from flow.views.table import focus_view
from flow.views.ways import column_titles, route_rows, ways_point, ways_table
from flow.wire.recorded import api_of_trace

FOCUS_PATHS = 4


"""A hop's focus shows at most this many of the values the inspector highlights."""


@dataclass(frozen=True)
class LessonQuestion:
    """A question asked before a hop (predict, then reveal), already in the lesson's language: the CLI reads them
    from the trace's questions file (`flow.trace.questions.questions_for`)."""

    text: str
    choices: Sequence[str] = field(default_factory=tuple)
    answer: int | None = None  # the index of the right choice
    why: str | None = None  # why it is the right one, said with the answer


def _t(key: str, lang: Lang, **values: object) -> str:
    return LESSON_TEXT[key][lang].format(**values)


_PROSE_SPECIAL = re.compile(r"([\\`*\[\]<>|#])|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def prose(text: str) -> str:
    """Text from a file as Markdown prose: one line, and no character that could start markup or raw HTML."""
    line = " ".join(text.split())
    return _PROSE_SPECIAL.sub(lambda m: "\\" + m.group(0), line)


def fenced(text: str, info: str = "json") -> str:
    """A code block whose fence no run of backticks inside can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def _path_name(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


BRIEF_DEPTH = 4


"""How deep a focus value is shown; deeper containers are named by their size."""


BRIEF_KEYS = 8


"""How many keys of an object a focus value shows."""


BRIEF_ITEMS = 2


"""How many items of a list a focus value shows (the rest are counted)."""


BRIEF_CHARS = 80


"""Strings inside a focus value are clipped to this many characters."""


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def brief(value: Any, depth: int = 0) -> Any:
    """A JSON value cut down for a page: strings clipped, the first few keys and items kept, deeper containers
    replaced by a note of their size. Still JSON, so the excerpt reads like the payload it comes from."""
    if isinstance(value, str):
        return value if len(value) <= BRIEF_CHARS else value[: BRIEF_CHARS - 1] + "…"
    if isinstance(value, dict):
        if depth >= BRIEF_DEPTH and value:
            return f"{{… {_count(len(value), 'key')}}}"
        out = {str(k): brief(v, depth + 1) for k, v in list(value.items())[:BRIEF_KEYS]}
        if len(value) > BRIEF_KEYS:
            out["…"] = f"{len(value) - BRIEF_KEYS} more keys"
        return out
    if isinstance(value, list):
        if depth >= BRIEF_DEPTH and value:
            return [f"… {_count(len(value), 'item')}"]
        items = [brief(v, depth + 1) for v in value[:BRIEF_ITEMS]]
        return items + ([f"… {len(value) - BRIEF_ITEMS} more items"] if len(value) > BRIEF_ITEMS else [])
    return value


def focus_excerpt(hop: Hop) -> dict[str, Any]:
    """The values `flow.views.focus` highlights in the hop's JSON view, by their path: a short JSON excerpt."""
    view = focus_view(hop)
    found = focus(hop, view)
    paths = list(found.highlight) or [p for p in found.open if p and p != ("payload",)][:1]
    excerpt: dict[str, Any] = {}
    for path in paths[:FOCUS_PATHS]:
        ok, value = resolve(view, path)
        if ok:
            excerpt[_path_name(path)] = brief(value)
    return excerpt


def _excerpt_text(excerpt: dict[str, Any]) -> str:
    """One line per highlighted value, the whole still a JSON object."""
    lines = [f" {json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}" for k, v in excerpt.items()]
    return "{\n" + ",\n".join(lines) + "\n}"


def _message_label(step: int | None, lang: Lang) -> str:
    if step is None:
        return _t("wire_only", lang)
    return _t("phase_zero_of", lang) if step == 0 else _t("message_of", lang, step=step)


def _missing(message: Message, trace: Trace, lang: Lang) -> str:
    """Why a message has no hop in this trace."""
    stop = stop_hop(trace)
    if message.reason == "stopped" and stop is not None:
        return _t("missing.stopped", lang, seq=stop.seq, n=stop.step)
    if message.reason == "no_tool_call":
        return _t("missing.no_round", lang)
    if trace.meta.mode == "direct" and message.step == Step.LIST_TOOLS:
        return _t("missing.direct", lang)
    return _t("missing.none", lang)


def _hops_cell(message: Message, seqs: list[int], trace: Trace, lang: Lang) -> str:
    """Which hops are the message, and what the route says of it where it is not as the articles tell it."""
    if not seqs:
        return _missing(message, trace, lang)
    shown = ", ".join(str(s) for s in seqs[:12]) + (" …" if len(seqs) > 12 else "")
    if message.reason == "server_silent":
        return shown + _PARENS[lang].format(_t("missing.server_side", lang))
    if message.reason is not None and message.reason != "direct_in_process":  # the route column says that one
        return shown + " · " + REASON_TEXT[message.reason][lang]
    return shown


def _row(trace: Trace, m: Message, lang: Lang) -> tuple[str, str, str]:
    """The phase, the way and what crosses of one message, as the trace's mode (and API) has it."""
    step, message = m.step, ARTICLE_MESSAGES[m.step]
    api = api_of_trace(trace).name
    mode = trace.meta.mode
    match mode:
        case "direct":  # nothing of MCP: no decorators, tools/list, MCP client, tools/call or CallToolResult
            phase = DIRECT_PHASE_NAMES[m.article_phase][lang]
            way = message.direct_route[lang] if message.direct_route else article_route(step, lang)
            crosses = (message.direct_crosses or message.crosses)[lang]
        case "mcp":
            phase, way, crosses = (
                ARTICLE_PHASE_NAMES[m.article_phase][lang],
                route_cell(step, lang),
                message.crosses[lang],
            )
        case "hosted":  # the provider is the MCP client: it lists, chooses, calls and backfills itself
            hosted = HOSTED_MESSAGES[step]
            said = (hosted.by_api or {}).get(api, hosted.crosses)
            return ARTICLE_PHASE_NAMES[m.article_phase][lang], hosted.route[lang], said[lang]
        case _:
            assert_never(mode)
    api_crosses = API_CROSSES[api]
    return phase, way, api_crosses[step][lang] if step in api_crosses else crosses


def _overview(trace: Trace, lang: Lang, *, restaurant: bool) -> list[str]:
    by_step: dict[int, list[int]] = {}
    for hop in trace.hops:
        if hop.step is not None:
            by_step.setdefault(hop.step, []).append(hop.seq)
    columns = ["message", "step", "phase", "route", "crosses", "hops"] + (["restaurant"] if restaurant else [])
    lines = [
        "| " + " | ".join(_t("col." + c, lang) for c in columns) + " |",
        "|" + "---|" * len(columns),
    ]
    for m in route(trace):
        step = m.step
        phase, way, crosses = _row(trace, m, lang)
        cells = [
            _t("phase_zero", lang) if step == 0 else _t("message_n", lang, n=int(step)),
            str(int(step)),
            phase,
            way,
            crosses,
            _hops_cell(m, by_step.get(step, []), trace, lang),
        ] + ([CAPTIONS[step][lang]] if restaurant else [])
        lines.append("| " + " | ".join(cells) + " |")
    return lines


_LETTERS = "ABCDEFGHIJ"


_COLON: dict[Lang, str] = {"zh": "：", "en": ":"}
_PARENS: dict[Lang, str] = {"zh": "（{}）", "en": " ({})"}


def _ask(question: LessonQuestion, lang: Lang) -> list[str]:
    """The question and its choices, before the hop."""
    lines = ["", f"**{_t('question', lang)}{_COLON[lang]}** {prose(question.text)}", ""]
    lines += [f"- {_LETTERS[i]}. {prose(c)}" for i, c in enumerate(question.choices[: len(_LETTERS)])]
    return lines


def _reveal(question: LessonQuestion, lang: Lang) -> list[str]:
    """The right choice, said before the hop's text (a teacher reads the script top to bottom: the text would give
    the answer away)."""
    i = question.answer
    if i is None or not 0 <= i < min(len(question.choices), len(_LETTERS)):
        return []
    answer = f"**{_t('answer', lang)}{_COLON[lang]}** {_LETTERS[i]}. {prose(question.choices[i])}"
    return ["", answer] + (["", prose(question.why)] if question.why else [])


def lesson_markdown(
    trace: Trace,
    *,
    lang: Lang = "zh",
    restaurant: bool = False,
    questions: Mapping[int, LessonQuestion] | None = None,
) -> str:
    """The lesson script of `trace` in `lang`. `restaurant` adds the metaphor's captions to the overview (for a
    first lesson); `questions` (by hop seq) are asked, and answered, before their hops' texts."""
    meta = trace.meta
    title = (meta.title or {}).get(lang) or meta.question
    mode = _t("mode." + meta.mode, lang)
    out = [f"# {prose(title)}", "", _t("subtitle", lang, mode=mode, hops=len(trace.hops))]
    if title != meta.question:  # the user's own words, quoted in Chinese like any text a payload holds
        out += ["", f"> “{prose(meta.question)}”" if lang == "zh" else f"> {prose(meta.question)}"]
    out += ["", f"## {_t('overview', lang)}", "", _t("overview_note", lang), ""]
    out += _overview(trace, lang, restaurant=restaurant)
    out += ["", f"## {_t('hops', lang)}"]
    texts = teaching_texts(trace.hops, lang)
    for hop, text in zip(trace.hops, texts, strict=True):
        source, target = drawn_ends(hop)  # a timeout is its waiting side's own event, as the diagram draws it
        route = f"{ACTOR_NAMES[source][lang]} → {ACTOR_NAMES[target][lang]}"
        out += ["", f"### {_t('hop_title', lang, seq=hop.seq, message=_message_label(hop.step, lang), route=route)}"]
        question = (questions or {}).get(hop.seq)
        if question is not None:  # the answer before the hop's text, which may state it
            out += _ask(question, lang) + _reveal(question, lang)
        out += ["", prose(text)]
        excerpt = focus_excerpt(hop)
        if excerpt:
            body = _excerpt_text(excerpt)
            out += ["", _t("focus", lang), "", fenced(body)]
    out += closing_markdown(trace, lang, prose)
    # A terminal obeys ESC and BEL and a bidi override reorders what it shows: every such character from the file
    # is written as its escape (inside JSON, the same escape JSON reads back).
    return escape_controls("\n".join(out) + "\n", keep="\n")


def _markdown_table(rows: Sequence[Mapping[str, str]], first: str) -> list[str]:
    """Rows of cells (the same keys each, the first the row's name) as a Markdown table; every cell escaped."""
    keys = list(rows[0])
    lines = ["| " + " | ".join([first, *(prose(k) for k in keys[1:])]) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(prose(row[k]) for k in keys) + " |" for row in rows]
    return lines


def four_ways_markdown(traces: Sequence[Trace], *, lang: Lang = "zh") -> str:
    """The lesson's section on the ways to give a model a tool, as Markdown: the traces named, the table of what
    each way holds, runs and shows (`flow.views.ways`), where each of the ten messages happens in each, and what
    the traces side by side teach. Every figure from the traces."""

    def w(key: str, **values: object) -> str:
        return LESSON_WORDS[key][lang].format(**values)

    names = ("、" if lang == "zh" else ", ").join(column_titles(traces, lang))
    question = traces[0].meta.question if traces else ""
    out = [f"# {w('title')}", "", prose(w("intro", question=question, names=names))]
    out += ["", f"## {w('table')}", ""] + _markdown_table(ways_table(traces, lang=lang), w("col.row"))
    out += ["", f"## {w('route')}", "", prose(w("route_note")), ""]
    out += _markdown_table(route_rows(traces, lang=lang), w("col.message"))
    out += ["", f"## {w('point')}", "", prose(ways_point(traces, lang=lang))]
    return escape_controls("\n".join(out) + "\n", keep="\n")
