"""The viewer bundle's shape: what flow.views.viewer.viewer_bundle sends the browser, as types.

The producer is typed with these (mypy checks `viewer_bundle` against them), and `bundle_schema()` turns them into
the JSON Schema committed as schema/viewer-bundle.schema.json, which a test checks real bundles of every sample
against and the viewer's JavaScript tests (tests/js/) check their bundles against. Every object in the schema is
closed: a field the Python side adds must be named here first, so the schema tells the JavaScript side about it.
"""

from __future__ import annotations

from typing import Any, Final, Literal, NotRequired

from pydantic import TypeAdapter
from typing_extensions import TypedDict

from flow.trace.model import Kind
from flow.trace.questions import QuestionJson, Words
from flow.trace.route import MessageState, Reason
from flow.trace.steps import ArticlePhase, Phase
from flow.views.labels import ArrowStyle

__all__ = ["BUNDLE_VERSION", "Bundle", "BundleHop", "ClosingBundle", "RouteBundle", "Words", "bundle_schema"]

BUNDLE_VERSION: Final = 1


class PhaseLook(TypedDict):
    name: Words
    color: str  # "#rrggbb"


class ArticlePhaseWords(TypedDict):
    name: Words
    short: Words


class RouteMessage(TypedDict):
    """One of the articles' messages (0: the preparation before any) as this trace has it."""

    n: int
    state: MessageState
    first: int | None  # the index of its first hop, where a click jumps to
    hops: int
    visits: int
    article_phase: ArticlePhase
    app_phase: Phase
    name: Words
    app_name: Words
    article_route: Words
    reason: Reason | None
    reason_short: Words | None
    reason_text: Words | None
    corrected_article: Words | None  # the article this message corrects, named (its cell opens the whole note)
    caption: Words


class Spans(TypedDict):
    """The bands above and below the messages: [phase, first message, last message], from the one step table."""

    app: list[tuple[Phase, int, int]]
    article: list[tuple[ArticlePhase, int, int]]


class RouteBundle(TypedDict):
    messages: list[RouteMessage]
    spans: Spans
    article_phases: dict[str, ArticlePhaseWords]  # by article phase, "0" to "4"


class ClosingItem(TypedDict):
    label: str | None
    text: str


class ClosingSection(TypedDict):
    key: str
    heading: str
    items: list[ClosingItem]
    bar: float | None


class ClosingText(TypedDict):
    title: str
    notice: str | None
    sections: list[ClosingSection]


class ClosingBundle(TypedDict):
    zh: ClosingText
    en: ClosingText


class Pair(TypedDict):
    seq: int
    index: int


class FocusColour(TypedDict):
    path: list[str | int]
    color: str


class FocusOpen(TypedDict):
    path: list[str | int]
    open: Literal[True]


FocusItem = list[str | int] | FocusColour | FocusOpen

BundleHop = TypedDict(
    "BundleHop",
    {
        "seq": int,
        "number": str,  # its number as the diagram shows it ("3", "3.2")
        "row": int,  # its arrow, by index into the bundle's rows
        "kind": Kind,
        "phase": Phase | None,
        "from": Words,  # where its arrow starts: a timeout's is the waiting side
        "to": Words,
        "lanes": tuple[int, int],  # the two lifelines its arrow joins, by index into the bundle's lanes
        "label": str,
        "teach": Words,
        "view": dict[str, Any],  # the JSON card: the payload with the fields a lesson is about first
        "message": int | None,  # the articles' message it belongs to
        "aside": NotRequired[Words],  # a server that asks: where it fits among the ten messages
        "reported": NotRequired[Literal[True]],  # hosted MCP: the provider's report, not a frame seen
        "mismatch": NotRequired[list[str]],  # what the report and the frame disagree on
        "pair": NotRequired[Pair],  # the other side of a reported/observed pair
        "question": NotRequired[QuestionJson],  # asked before the hop is shown
        "focus": NotRequired[list[FocusItem]],  # paths into `view` to open and mark (none: open a few levels)
    },
)


class Provider(TypedDict):
    """Hosted MCP: the lanes (by index) that run at the model provider, and what the group is called."""

    lanes: list[int]
    name: Words


class Bundle(TypedDict):
    version: Literal[1]
    trace: str  # the trace's digest: a host tells a new trace from the same one redrawn
    lang: Literal["zh", "en"]  # the language the drawing and the labels are in
    title: Words
    note: Words
    svg: str | None  # the whole diagram, nothing highlighted
    svg_error: str | None  # why there is no diagram
    rows: list[str]  # each arrow's id in the drawing, in order
    row_styles: list[ArrowStyle]  # each arrow's style (an error's label is drawn red)
    lanes: list[Words]  # the lifelines, left to right
    provider: Provider
    hops: list[BundleHop]
    phases: dict[Phase, PhaseLook]
    route: RouteBundle
    ui: dict[str, Words]  # the interface wording (flow.text.views.VIEWER_TEXT)
    choice_keys: str  # the keys that pick a question's choices, in order
    closing: ClosingBundle | None  # None for a part of a long trace


def bundle_schema() -> dict[str, Any]:
    """The JSON Schema of a bundle, as committed in schema/viewer-bundle.schema.json."""
    schema = TypeAdapter(Bundle).json_schema()
    for shape in [schema, *schema["$defs"].values()]:
        if "properties" in shape:  # a TypedDict: closed (a dict[str, X] has its own additionalProperties)
            shape.setdefault("additionalProperties", False)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "MCP Flow viewer bundle"
    schema["description"] = (
        "What flow.views.viewer.viewer_bundle sends the trace viewer (flow/views/viewer_assets/), once per trace and"
        " language. Generated from flow.views.bundle_types: python -m flow schema --viewer-bundle."
    )
    return schema
