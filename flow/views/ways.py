"""The ways to give a model a tool, side by side: Chat Completions or Responses function calling (the app holds the
functions), app-side MCP (the app is the MCP client) and hosted MCP (the model provider is the MCP client and runs
the tool loop). For one question, one trace of each: who holds the tool definitions, who runs the loop, how many
requests the app makes, what crosses the app's boundary, where the server must run, what the app can see; and where
each of the articles' ten messages happens in each way.

Figures come from the traces (the mode, the requests, their bytes and tokens, the frames, the provider's reported
exchanges); only what is a fact of the way itself is fixed text (`flow.text.ways`). Pure: traces in, rows and words
out.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flow.text.apis import API_WORDS
from flow.text.names import Lang, plurals
from flow.text.route import MESSAGE_NAMES
from flow.text.ways import (
    CELLS,
    FUNCTION_CALLING,
    PLACE_NAMES,
    PLACE_TEXT,
    POINT_TEXT,
    ROW_NAMES,
    WAY_NAMES,
    Place,
    Way,
)
from flow.trace.model import Trace, as_dict, as_list
from flow.trace.route import route
from flow.trace.stats import model_calls
from flow.trace.steps import Step
from flow.views.compare import message_name, shape
from flow.wire.base import ApiName
from flow.wire.reading import Readings, read_trace
from flow.wire.recorded import api_of_trace

FOUR_WAYS = ("beijing-direct", "responses-direct", "beijing-mcp", "hosted-responses")


"""The samples of the four ways, for the same Beijing question: Chat Completions and Responses function calling,
app-side MCP, hosted MCP."""


_APP_SIDE = frozenset({"user", "app", "model"})  # a hop between two of these crosses the app's own boundary
_SERVER_SIDE = frozenset({"mcp_server", "tool"})


@dataclass(frozen=True)
class WayFacts:
    """What one trace says of its way of giving the model a tool."""

    way: Way
    api: ApiName
    sent_tools: tuple[tuple[str, int], ...]  # the tools array of the app's first request: (type, how many)
    listing: tuple[str, ...]  # app-side MCP: the list methods the app's client sent
    requests: int  # model calls the app made (a retry is the same call)
    backfills: int  # of which, requests that send tool results back (message 8)
    approvals: int  # hosted: the approval requests the app answered (`mcp_approval_response` input items)
    bytes_sent: int
    bytes_received: int
    prompt_tokens: int | None  # None where the model reported no usage
    app_frames: int  # JSON-RPC frames of the app's own MCP client
    provider_frames: int  # hosted: frames of the provider's MCP client a recorder saw
    reported: int  # hosted: exchanges the provider reports (their request side)
    reported_items: tuple[str, ...]  # hosted: the item or block types the report came in
    transport: str  # app-side MCP: the transport the app spoke to the server over
    server_url: str  # hosted: the URL the app asked the provider to reach


def way_of(trace: Trace) -> Way:
    """The way a trace gave its model tools, from its mode."""
    mode = trace.meta.mode
    return "functions" if mode == "direct" else "hosted" if mode == "hosted" else "app_mcp"


def _sent_tools(read: Readings) -> tuple[tuple[str, int], ...]:
    first = read.model[0].request if read.model else None
    body = as_dict(as_dict(first.payload if first else None).get("body"))
    counts: dict[str, int] = {}
    for tool in as_list(body.get("tools")):
        kind = str(as_dict(tool).get("type") or "custom")  # Anthropic's own tools carry no type
        counts[kind] = counts.get(kind, 0) + 1
    if as_list(body.get("mcp_servers")):
        counts["mcp_servers"] = len(as_list(body.get("mcp_servers")))
    return tuple(counts.items())


def _server_url(read: Readings) -> str:
    """The first hosted server a request named, by its URL ("" when none did)."""
    return next((url for ex in read.model for url in ex.offer.server_urls), "")


def facts(trace: Trace) -> WayFacts:
    """What `trace` says of its way: counted from its hops, its mode and its settings."""
    way = way_of(trace)
    hops = trace.hops
    read = read_trace(hops)
    usage = [int((h.usage or {}).get("prompt_tokens") or 0) for h in hops if h.usage]
    frames = len(read.frames)
    reported = [h for h in read.reported if h.direction == "request"]
    return WayFacts(
        way=way,
        api=api_of_trace(trace).name,
        sent_tools=_sent_tools(read),
        listing=shape(trace).discovery_methods if way == "app_mcp" else (),
        requests=model_calls(hops),
        backfills=sum(ex.request.step == Step.BACKFILL for ex in read.model),
        approvals=sum(len(ex.approves) for ex in read.model),
        bytes_sent=sum(ex.bytes for ex in read.model),
        bytes_received=sum(ex.received for ex in read.model),
        prompt_tokens=sum(usage) if usage else None,
        # in hosted mode the MCP client is the provider's: the app's own client sent nothing
        app_frames=0 if way == "hosted" else frames,
        provider_frames=frames if way == "hosted" else 0,
        reported=len(reported),
        reported_items=tuple(dict.fromkeys(str(as_dict(as_dict(h.payload).get("item")).get("type")) for h in reported)),
        transport=str((trace.meta.server or {}).get("transport") or trace.meta.settings.get("transport") or ""),
        server_url=_server_url(read),
    )


def way_name(f: WayFacts, lang: Lang) -> str:
    """ "Chat Completions function calling", "hosted MCP (Responses)": the way and the API it spoke."""
    return WAY_NAMES[f.way][lang].format(api=API_WORDS[f.api]["api"], functions=FUNCTION_CALLING[f.api][lang])


def _c(key: str, lang: Lang, **values: object) -> str:
    return CELLS[key][lang].format(**values)


def _sep(lang: Lang) -> str:
    return "、" if lang == "zh" else ", "


def _cells(f: WayFacts, lang: Lang) -> dict[str, str]:
    """One trace's column of the table."""
    sent = _sep(lang).join(_c("sent_tools", lang, n=n, types=kind) for kind, n in f.sent_tools)
    if f.way == "functions":
        definitions, server = _c("definitions.functions", lang), _c("server.functions", lang)
        sees = _c("sees.functions", lang)
    elif f.way == "app_mcp":
        definitions = _c("definitions.app_mcp", lang, listing=_sep(lang).join(f.listing) or "tools/list")
        known = f.transport if f.transport in ("memory", "stdio") else "http"
        server, sees = _c(f"server.{known}", lang), _c("sees.app_mcp", lang, frames=f.app_frames)
    else:
        definitions = _c("definitions.hosted", lang)
        server = _c("server.hosted", lang, url=f.server_url or "—")
        sees = _c("sees.hosted", lang, items=_sep(lang).join(f.reported_items) or "—")
    if f.way != "hosted":
        loop = _c("loop.app", lang, backfills=f.backfills)
    elif f.approvals:
        loop = _c("loop.approved", lang, approvals=f.approvals, n=f.requests)
    else:
        loop = _c("loop.provider", lang)
    provider = (
        _c("provider_mcp", lang, reported=f.reported, observed=f.provider_frames)
        if f.way == "hosted"
        else _c("provider_none", lang)
    )
    return {
        "definitions": definitions,
        "sent_tools": sent or _c("no_tools", lang),
        "loop": loop,
        "requests": str(f.requests),
        "bytes_sent": f"{f.bytes_sent:,}",
        "bytes_received": f"{f.bytes_received:,}",
        "prompt_tokens": _c("no_tokens", lang) if f.prompt_tokens is None else f"{f.prompt_tokens:,}",
        "app_frames": str(f.app_frames),
        "provider_mcp": provider,
        "server": server,
        "sees": sees,
    }


def column_titles(traces: Sequence[Trace], lang: Lang) -> list[str]:
    """Each trace's column title: its way's name, numbered when two traces share one."""
    names = [way_name(facts(t), lang) for t in traces]
    return [f"{n} · {i + 1}" if names.count(n) > 1 else n for i, n in enumerate(names)]


def ways_table(traces: Sequence[Trace], *, lang: Lang = "en") -> list[dict[str, str]]:
    """One row per question the table answers, one column per trace (titled by `column_titles`)."""
    titles = column_titles(traces, lang)
    columns = [_cells(facts(t), lang) for t in traces]
    return [
        {"": ROW_NAMES[row][lang], **{title: col[row] for title, col in zip(titles, columns, strict=True)}}
        for row in ROW_NAMES
    ]


# --- where each message happens ------------------------------------------------------------------------------------

# Hosted MCP: the provider lists the tools, decides, calls and hands the result back to its model itself.
_AT_PROVIDER = (
    Step.LIST_TOOLS,
    Step.DECISION,
    Step.REVERSE_TRANSLATION,
    Step.CALL_TOOL,
    Step.TOOL_RESULT,
    Step.BACKFILL,
)


@dataclass(frozen=True)
class Stop:
    """One of the articles' messages in one way: where it happens, and how many of the trace's hops are it (at
    the provider: of which, reported by the provider and frames a recorder saw)."""

    step: Step
    place: Place
    hops: int
    reported: int = 0
    observed: int = 0


def places(trace: Trace) -> list[Stop]:
    """Where each of the articles' messages (phase zero and 1-10) happens in this trace's way: through the app, in
    the app's process (function calling), on the app's MCP wire, at the provider (hosted MCP), or nowhere."""
    hosted = trace.meta.mode == "hosted"
    read = read_trace(trace.hops)
    told = {h.seq for h in read.reported}  # the provider's reports: drawn between the MCP lifelines, seen by no one
    frames = {h.seq for h in read.frames}
    out: list[Stop] = []
    for message in route(trace):
        mine = [h for h in trace.hops if h.step == message.step]
        app_side = [h for h in mine if h.source in _APP_SIDE and h.target in _APP_SIDE and h.seq not in told]
        reported = sum(h.seq in told for h in mine)
        observed = sum(h.seq in frames for h in mine)
        place: Place
        if hosted and message.step in _AT_PROVIDER and not app_side:
            place = "provider"
        elif not mine:
            place = "missing"
        elif message.state == "in_process":
            place = "in_process"
        elif any(h.kind.startswith("mcp.") for h in mine) and not hosted:
            place = "mcp"
        elif all(h.source in _SERVER_SIDE and h.target in _SERVER_SIDE for h in mine):
            place = "server"
        else:
            place = "app"
        out.append(Stop(message.step, place, len(mine), reported if hosted else 0, observed if hosted else 0))
    return out


def place_cell(stop: Stop, lang: Lang) -> str:
    """A message's cell: where it happens, with the provider's reported hops and any frames seen there."""
    word = PLACE_NAMES[stop.place][lang]
    if stop.place != "provider" or not (stop.reported or stop.observed):
        return word
    seen = {"zh": "报告 {r} · 看到 {o} 帧", "en": "{r} reported · {o} seen"}[lang].format(
        r=stop.reported, o=stop.observed
    )
    return f"{word} ({seen})" if lang == "en" else f"{word}（{seen}）"


def route_rows(traces: Sequence[Trace], *, lang: Lang = "en") -> list[dict[str, str]]:
    """One row per message, one column per trace: where the message happens in that trace's way."""
    titles = column_titles(traces, lang)
    columns = [places(t) for t in traces]
    rows = []
    for i, step in enumerate(Step):
        row = {"": message_name(int(step), lang) + " · " + MESSAGE_NAMES[step][lang]}
        row.update({title: place_cell(col[i], lang) for title, col in zip(titles, columns, strict=True)})
        rows.append(row)
    return rows


_PLACE_COLOURS: dict[Place, str] = {
    "app": "#2e7d32",
    "in_process": "#81c784",
    "mcp": "#1565c0",
    "server": "#6a1b9a",
    "provider": "#e65100",
    "missing": "#bdbdbd",
}


def route_strips_html(traces: Sequence[Trace], *, lang: Lang = "en") -> str:
    """The route strip of each way, one row each: phase zero and messages 1-10 as cells coloured by where they
    happen (a cell's tooltip says why), with a legend. Self-contained HTML, every text escaped."""
    titles = column_titles(traces, lang)
    head = "".join(f'<div class="ws-n">{int(s)}</div>' for s in Step)
    rows = [f'<div class="ws-name"></div>{head}']
    for title, trace in zip(titles, traces, strict=True):
        cells = []
        for stop in places(trace):
            tip = f"{message_name(int(stop.step), lang)}: {place_cell(stop, lang)}. {PLACE_TEXT[stop.place][lang]}"
            cells.append(
                f'<div class="ws-cell" data-place="{stop.place}" title="{html.escape(tip)}" '
                f'style="background:{_PLACE_COLOURS[stop.place]}">{html.escape(PLACE_NAMES[stop.place][lang])}</div>'
            )
        rows.append(f'<div class="ws-name" title="{html.escape(title)}">{html.escape(title)}</div>' + "".join(cells))
    legend = "".join(
        f'<span class="ws-key"><i style="background:{colour}"></i>{html.escape(PLACE_NAMES[p][lang])}</span>'
        for p, colour in _PLACE_COLOURS.items()
    )
    style = (
        "<style>.ws-grid{display:grid;grid-template-columns:minmax(9em,16em) repeat(11,minmax(0,1fr));gap:3px;"
        "align-items:stretch;font-size:15px}.ws-n{text-align:center;font-weight:600}"
        ".ws-name{font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;align-self:center}"
        ".ws-cell{color:#fff;text-align:center;border-radius:4px;padding:4px 2px;line-height:1.2;"
        "overflow-wrap:anywhere;display:flex;align-items:center;justify-content:center}"
        '.ws-cell[data-place="missing"],.ws-cell[data-place="in_process"]{color:#111}'
        ".ws-legend{margin-top:6px;font-size:14px}.ws-key{margin-right:14px;white-space:nowrap}"
        ".ws-key i{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:4px;"
        "vertical-align:-1px}</style>"
    )
    return (
        f'{style}<div class="ws-grid" data-testid="ways-route">{"".join(rows)}</div>'
        f'<div class="ws-legend">{legend}</div>'
    )


# --- what it teaches -----------------------------------------------------------------------------------------------


def _p(key: str, lang: Lang, **values: object) -> str:
    return plurals(POINT_TEXT[key][lang], values).format(**values)


def ways_point(traces: Sequence[Trace], *, lang: Lang = "en") -> str:
    """What the traces side by side teach, from their own figures: the requests the app made in function calling
    against hosted MCP, the frames of the app's MCP client in app-side against hosted MCP, what of the provider's
    MCP the hosted trace holds, the bytes each sent; and what hosted MCP costs in security. Each sentence only
    where its traces are there."""
    found = [(way_name(f, lang), f) for f in (facts(t) for t in traces)]
    by_way: dict[Way, tuple[str, WayFacts]] = {}
    for name, f in found:
        by_way.setdefault(f.way, (name, f))
    parts: list[str] = []
    hosted = by_way.get("hosted")
    if hosted is not None and "functions" in by_way and hosted[1].requests == 1:  # the loop inside one request
        (base, fb), (name, fh) = by_way["functions"], hosted
        parts.append(_p("requests", lang, base=base, n_base=fb.requests, hosted=name, n_hosted=fh.requests))
    if hosted is not None and "app_mcp" in by_way:
        (app_mcp, fm), (name, _) = by_way["app_mcp"], hosted
        parts.append(_p("frames", lang, app_mcp=app_mcp, frames=fm.app_frames, hosted=name))
    if hosted is not None:
        fh = hosted[1]
        key = "observed" if fh.provider_frames else "report_only"
        parts.append(_p(key, lang, observed=fh.provider_frames, reported=fh.reported))
    sent = _sep(lang).join(f"{name} {f.bytes_sent:,}" for name, f in found)
    parts.append(_p("bytes", lang, figures=sent))
    if hosted is not None:
        parts.append(_p("security", lang))
    return ("" if lang == "zh" else " ").join(parts)


def ways_summary(traces: Sequence[Trace], *, lang: Lang = "en") -> dict[str, Any]:
    """The whole comparison as data, for an export or a test: the titles, the table, the route rows, the point."""
    return {
        "titles": column_titles(traces, lang),
        "table": ways_table(traces, lang=lang),
        "route": route_rows(traces, lang=lang),
        "point": ways_point(traces, lang=lang),
    }
