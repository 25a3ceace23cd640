"""The teaching text of each hop: two or three sentences, in Chinese and English, saying what crosses, why, and
what to notice in this hop's own payload (the negotiated version, the tool names, the id that pairs, isError...).

`situation` (in `situations.py`) reads the hop and picks a text (in `texts.py`) and the values to fill it with;
`teaching_text` renders it. The viewer, the Step page and `python -m flow lesson` all call `teaching_text`, so a
class reads the same words everywhere. A text that depends on the hop's neighbours (a tools/call sent while
others are in flight, or for a name the server never listed, or answered by an error; why a run ended; the request a
reply answers) takes them from a `HopContext` (`hop_contexts(trace.hops)`); without one, the hop's own payload
decides, and the text claims no more than the payload shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from flow.text.names import Lang, plurals
from flow.text.teaching.situations import LIST_ITEMS, HopContext, Situation, hop_contexts, situation
from flow.text.teaching.steps import STEP_TEXTS, step_texts
from flow.text.teaching.texts import FALLBACK, NOTES, TEXTS
from flow.trace.model import Hop

__all__ = [
    "FALLBACK",
    "STEP_TEXTS",
    "TEXTS",
    "HopContext",
    "Situation",
    "hop_contexts",
    "situation",
    "step_texts",
    "teaching_text",
    "teaching_texts",
]


_SEPARATOR: dict[Lang, str] = {"zh": "、", "en": ", "}


_NONE: dict[Lang, str] = {"zh": "无", "en": "none"}


def _shown(value: str | list[str], lang: Lang) -> str:
    if isinstance(value, str):
        return value
    if not value:
        return _NONE[lang]
    items = value[:LIST_ITEMS] + (["…"] if len(value) > LIST_ITEMS else [])
    return _SEPARATOR[lang].join(items)


def render(found: Situation, lang: Lang) -> str:
    """A situation's text in `lang`, filled."""
    template = TEXTS.get(found.key, TEXTS[FALLBACK])[lang]
    if found.key in TEXTS and found.note in NOTES:
        template += NOTES[found.note][lang]
    values = {name: _shown(v, lang) for name, v in {**found.derived, **found.fills}.items()}
    template = plurals(template, values)
    try:
        return template.format_map(values)
    except (KeyError, IndexError, ValueError):  # a template and its situation out of step: say something true
        return TEXTS[FALLBACK][lang]


_INFERRED: dict[Lang, str] = {
    "en": " Inferred from what the proxies recorded, not seen crossing a wire: {how}.",
    "zh": "（这一步是根据代理的记录推断的，并非在线路上看到的。）",
}


def teaching_text(hop: Hop, lang: Lang = "zh", *, context: HopContext | None = None) -> str:
    """The hop's teaching text in `lang`; `context` (from `hop_contexts`) lets it speak of its neighbours. A hop a
    merge of the proxies' recordings inferred (`inferred`) says so, and how."""
    text = render(situation(hop, context), lang)
    return text + _INFERRED[lang].format(how=hop.inferred) if hop.inferred else text


def teaching_texts(hops: Sequence[Hop], lang: Lang) -> list[str]:
    """Every hop's text, each with its context: what a viewer or a lesson shows for a whole trace."""
    return [teaching_text(hop, lang, context=ctx) for hop, ctx in zip(hops, hop_contexts(hops), strict=True)]
