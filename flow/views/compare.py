"""Comparing two runs of the same question (typically direct function calling vs MCP): what one adds to the
other and what stays the same, the figures that do not depend on noise, and the steps side by side.

Times are left out on purpose: one run's milliseconds are noise (successive runs of the same question give
32 and 246 ms for the same hop), and the MCP session's set-up falls on whichever run comes first. `bench/`
prints medians with their spread for whoever needs time.

For direct mode against MCP the sentence is the lesson's point: the requests the model receives are practically
the same and the tool definitions are most of them in both; what MCP adds once per session (or, in 2026-07-28,
once before any question: that era has no session) and what per question; what MCP buys and when to choose it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flow.text.apis import API_WORDS
from flow.text.closing import CLOSING_TEXT, COMPARE_POINT_TEXT
from flow.text.names import (
    COMPARE_TEXT,
    FIGURE_NAMES,
    KIND_NAMES,
    Lang,
    plurals,
)
from flow.text.route import MESSAGE_NAMES as ROUTE_NAMES
from flow.trace.model import PHASES, Hop, Kind, Trace
from flow.trace.pairing import exchanges
from flow.trace.payloads import TranslateForward, TranslateReverse, is_a, payload_of
from flow.trace.stats import mcp_frames, model_calls, tool_calls
from flow.trace.steps import Step
from flow.views.diagram import NARROW, WIDE, aligned_room, to_dot
from flow.views.labels import shown_arguments
from flow.views.tool_cost import request_costs
from flow.wire.base import ApiName
from flow.wire.reading import model_exchanges
from flow.wire.recorded import api_of_trace


@dataclass(frozen=True)
class Figures:
    """The numbers that tell two runs apart."""

    hops: int
    wire_messages: int  # what crossed a wire: MCP frames, and the model's HTTP requests, responses and stream events
    model_calls: int
    tool_calls: int
    bytes_to_model: int
    tool_definition_bytes: int  # the "tools" array, summed over every model request
    prompt_tokens: int
    tool_definition_tokens: int  # estimated with the mock's tokenizer stand-in
    elapsed_ms: float
    mcp_frames: int = 0  # JSON-RPC frames on the MCP transport

    @property
    def tool_share(self) -> float:
        return self.tool_definition_bytes / self.bytes_to_model if self.bytes_to_model else 0.0


_MODEL_HTTP = ("llm.request", "llm.response", "llm.chunk")  # the model's HTTP: requests, answers, stream events


def figures(trace: Trace) -> Figures:
    costs = request_costs(trace)
    return Figures(
        hops=len(trace.hops),
        wire_messages=mcp_frames(trace.hops) + sum(h.kind in _MODEL_HTTP for h in trace.hops),
        model_calls=model_calls(trace.hops),
        tool_calls=tool_calls(trace.hops),
        bytes_to_model=sum(c.bytes for c in costs),
        tool_definition_bytes=sum(c.tool_bytes for c in costs),
        prompt_tokens=sum(int((h.usage or {}).get("prompt_tokens") or 0) for h in trace.hops),
        tool_definition_tokens=sum(c.tool_tokens for c in costs),
        elapsed_ms=float(trace.meta.stats.get("elapsed_ms") or (trace.hops[-1].t_end_ms if trace.hops else 0.0)),
        mcp_frames=mcp_frames(trace.hops),
    )


# --- what one run adds to the other -----------------------------------------------------------------------------

SETUP_METHODS = ("initialize", "notifications/initialized")  # the handshake era's session set-up
DISCOVER_METHODS = ("server/discover",)  # 2026-07-28: asks for versions and capabilities; sets up no session


TRANSLATIONS: tuple[Kind, ...] = ("translate.forward", "translate.reverse")


@dataclass(frozen=True)
class Shape:
    """What a run's structure holds, counted from its hops: the MCP session's set-up and discovery (frames and the
    methods they carry), the translations between MCP and function calling, the model's calls and decisions."""

    setup_frames: int
    setup_methods: tuple[str, ...]
    discover_frames: int
    discovery_frames: int
    discovery_methods: tuple[str, ...]
    translations: dict[Kind, int]  # translate.forward / translate.reverse hops
    mcp_frames: int
    model_calls: int
    decisions: tuple[str, ...]  # each tool call the model asked for, as name(arguments), in order
    answer: str | None
    mode: str = field(default="mcp")
    api: ApiName = "chat"  # the model API its requests went to
    call_frames: int = 0  # tools/call requests and what answered them
    calls: int = 0  # tools/call requests

    @property
    def translation_hops(self) -> int:
        return sum(self.translations.values())


def _frames(ex_request: Hop, reply: Hop | None) -> int:
    return 1 + (reply is not None and reply.kind.startswith("mcp."))


def _call_text(name: Any, arguments: Any) -> str:
    return f"{name}({shown_arguments(arguments)})"


def _decisions(trace: Trace) -> tuple[str, ...]:
    """The tool calls the model asked for, by name and parsed arguments (ids differ from run to run): those its
    replies hand the app, and in hosted MCP those the provider reports its model chose and its client made; not the
    calls the host's model wrote for a server (sampling: they are the server's)."""
    out: list[str] = []
    for ex in model_exchanges(trace.hops):
        if ex.for_server:
            continue
        out += [_call_text(c.name, c.arguments) for c in ex.calls]
        out += [_call_text(r.name, r.arguments) for r in ex.reported if r.method == "tools/call"]
    return tuple(out)


def shape(trace: Trace) -> Shape:
    setup: list[str] = []
    discovery: list[str] = []
    n_setup = n_discover = n_discovery = n_call = calls = 0
    for ex in exchanges(trace.hops):
        method = str(ex.request.payload.get("method")) if isinstance(ex.request.payload, dict) else ""
        if method in SETUP_METHODS:
            n_setup += _frames(ex.request, ex.reply)
            setup += [method] if method not in setup else []
        elif method in DISCOVER_METHODS:
            n_discover += _frames(ex.request, ex.reply)
        elif method == "tools/call":
            n_call += _frames(ex.request, ex.reply)
            calls += 1
        elif method.endswith("/list"):
            n_discovery += _frames(ex.request, ex.reply)
            discovery += [method] if method not in discovery else []
    translations: dict[Kind, int] = dict.fromkeys(TRANSLATIONS, 0)
    for hop in trace.hops:
        # direct mode's translate.reverse hop is the app reading the arguments (json.loads) for its own function:
        # a reverse translation turns a tool_call into an MCP tools/call
        if is_a(hop, TranslateForward) or (is_a(hop, TranslateReverse) and hop.target == "mcp_client"):
            translations[hop.kind] += 1
    answers = [p["content"] for h in trace.hops if (p := payload_of(h, "app.answer")) is not None]
    return Shape(
        setup_frames=n_setup,
        setup_methods=tuple(setup),
        discover_frames=n_discover,
        discovery_frames=n_discovery,
        discovery_methods=tuple(discovery),
        translations=translations,
        mcp_frames=mcp_frames(trace.hops),
        model_calls=model_calls(trace.hops),
        decisions=_decisions(trace),
        answer=answers[-1] if answers else None,
        mode=trace.meta.mode,
        api=api_of_trace(trace).name,
        call_frames=n_call,
        calls=calls,
    )


def _c(key: str, lang: Lang, **values: object) -> str:
    return plurals(COMPARE_TEXT[key][lang], values).format(**values)


def _p(key: str, lang: Lang, **values: object) -> str:
    return COMPARE_POINT_TEXT[key][lang].format(**values)


def api_title(trace: Trace) -> str:
    """The model API a trace's requests went to, as the interface names it ("Chat Completions", "Responses")."""
    return API_WORDS[api_of_trace(trace).name]["api"]


def pair_names(a: Trace, b: Trace, *, lang: Lang = "zh") -> tuple[str, str, str]:
    """What Compare is about and what to call its two sides: their modes when those differ ("Direct mode vs MCP"),
    else their model APIs when those do ("Chat Completions vs Responses (MCP)"), else two runs; each side named by
    its API wherever the two APIs differ ("A · Responses"), plainly A and B otherwise."""
    modes = (a.meta.mode, b.meta.mode)
    apis = (api_title(a), api_title(b))
    sides = (f"A · {apis[0]}", f"B · {apis[1]}") if apis[0] != apis[1] else ("A", "B")
    if modes[0] != modes[1]:
        heading = _p("heading_modes", lang, a=_p(f"mode_{modes[0]}", lang), b=_p(f"mode_{modes[1]}", lang))
        return heading[:1].upper() + heading[1:], sides[0], sides[1]
    if apis[0] != apis[1]:
        return _p("heading_apis", lang, a=apis[0], b=apis[1], mode=_p(f"mode_{modes[0]}", lang)), sides[0], sides[1]
    return _p("heading_two", lang), "A", "B"


def _list(items: list[str], lang: Lang, zh: str = "、", en: str = ", ") -> str:
    return (zh if lang == "zh" else en).join(items)


def _frames_text(n: int, lang: Lang) -> str:
    return _p("frame" if n == 1 else "frames", lang, n=n)


def _model_side(sa: Shape, sb: Shape, base: str, other: str, lang: Lang) -> tuple[list[str], list[str]]:
    """What stays the same on the model's side, and what differs: its calls, the tool calls it asks for, the answer."""
    same: list[str] = []
    differs: list[str] = []
    if sa.model_calls == sb.model_calls:
        same.append(_c("same_calls", lang, n=sa.model_calls))
    else:
        differs.append(_c("other_calls", lang, base=base, n_base=sa.model_calls, other=other, n=sb.model_calls))
    if sa.decisions == sb.decisions:
        same.append(
            _c("same_decisions", lang, calls=_list(list(sa.decisions), lang)) if sa.decisions else _c("no_calls", lang)
        )
    else:
        shown = {side: _list(list(s.decisions), lang) or _c("none", lang) for side, s in (("a", sa), ("b", sb))}
        differs.append(_c("other_decisions", lang, base=base, a=shown["a"], other=other, b=shown["b"]))
    if sa.answer == sb.answer:
        same.append(_c("same_answer", lang))
    else:
        differs.append(_c("other_answer", lang))
    return same, differs


def _every_request_has_tools(*traces: Trace) -> bool:
    for trace in traces:
        for hop in trace.hops:
            body = payload_of(hop, "llm.request")
            if body is not None and not (isinstance(body["body"], dict) and body["body"].get("tools")):
                return False
    return True


def _direct_vs_mcp(a: Trace, b: Trace, sa: Shape, sb: Shape, lang: Lang) -> str:
    """The lesson's point, from its own figures: the model's requests, what MCP adds once and per question, the
    model's side, what MCP buys and when to choose which."""
    base, other = _p("direct", lang), "MCP"
    reading = "no_translation" if api_of_trace(a).arguments_json else "no_translation_messages"
    parts = [_requests_compared(a, b, base, other, lang), _what_mcp_adds(sb, lang), _p(reading, lang)]
    same, differs = _model_side(sa, sb, base, other, lang)
    if same:
        parts.append(_p("model_side", lang, same=_list(same, lang, "、", "; ")))
    if differs:
        parts.append(_p("model_differs", lang, differs=_list(differs, lang, "、", "; ")))
    parts.append(_p("buys_choose", lang))
    return ("" if lang == "zh" else " ").join(parts)


def _requests_compared(a: Trace, b: Trace, base: str, other: str, lang: Lang) -> str:
    """The model's requests in the two runs: practically the same (how many, their bytes, the tools' share), or
    how they differ."""
    fa, fb = figures(a), figures(b)
    share_a, share_b = f"{fa.tool_share:.0%}", f"{fb.tool_share:.0%}"
    near = abs(fa.bytes_to_model - fb.bytes_to_model) <= 0.05 * max(fa.bytes_to_model, fb.bytes_to_model, 1)
    if fa.model_calls == fb.model_calls and near and api_of_trace(a) is api_of_trace(b):
        share = share_a if share_a == share_b else _p("shares", lang, a=share_a, b=share_b)
        return _p(
            "requests_same",
            lang,
            calls=fa.model_calls,
            bytes_a=f"{fa.bytes_to_model:,}",
            bytes_b=f"{fb.bytes_to_model:,}",
            share=share,
            again=_p("again", lang) if fa.model_calls > 1 and _every_request_has_tools(a, b) else "",
        )
    return _p(
        "requests_differ",
        lang,
        base=base,
        other=other,
        n_a=fa.model_calls,
        n_b=fb.model_calls,
        bytes_a=f"{fa.bytes_to_model:,}",
        bytes_b=f"{fb.bytes_to_model:,}",
        share_a=share_a,
        share_b=share_b,
    )


def _what_mcp_adds(sb: Shape, lang: Lang) -> str:
    """What MCP adds once (a session's setup or a client's discovery, and the tool listing) and per question."""
    listing = _list(list(sb.discovery_methods), lang) or "tools/list"
    n_list = _frames_text(sb.discovery_frames, lang)
    if sb.setup_frames:
        once = _p(
            "per_session",
            lang,
            setup=_list(list(sb.setup_methods), lang, " + ", " + "),
            n_setup=_frames_text(sb.setup_frames, lang),
            listing=listing,
            n_list=n_list,
        )
    elif sb.discover_frames:
        once = _p(
            "per_client",
            lang,
            discover="server/discover",
            n_setup=_frames_text(sb.discover_frames, lang),
            listing=listing,
            n_list=n_list,
        )
    else:
        once = _p("listing_only", lang, listing=listing, n_list=n_list)
    words = {f"w_{k}": v for k, v in API_WORDS[sb.api].items()}
    return once + _p("per_question", lang, calls=sb.calls, call_frames=_frames_text(sb.call_frames, lang), **words)


def _backfill(trace: Trace, lang: Lang) -> tuple[str, str]:
    """How a run's first backfill sends the tool results back, in its API's terms, and that request's bytes."""
    if trace.meta.mode == "hosted":  # the provider hands the result to its model; the app sends none
        return _p("back_hosted", lang), "—"
    first = next((ex for ex in model_exchanges(trace.hops) if ex.request.step == Step.BACKFILL), None)
    if first is None:
        return _p("no_backfill", lang), "—"
    return _p("back_previous" if first.previous else f"back_{first.api}", lang), f"{first.bytes:,}"


def _shape(trace: Trace, lang: Lang) -> str:
    """How a run's requests give the model its tools: the API's function format, or (hosted MCP) an entry naming the
    server, whose tools the provider lists itself."""
    if trace.meta.mode == "hosted":
        return _p("shape_hosted", lang)
    return _p(f"shape_{api_of_trace(trace).name}", lang)


def apis_compared(a: Trace, b: Trace, *, lang: Lang = "en") -> str | None:
    """When the two runs spoke different model APIs: which, and where their request bytes differ (measured): all
    the bytes sent, the tool definitions a request (nested, flat, input_schema), the backfill's form and its bytes.
    None when they spoke the same API."""
    api_a, api_b = api_of_trace(a).name, api_of_trace(b).name
    if api_a == api_b:
        return None
    fa, fb = figures(a), figures(b)
    ca, cb = request_costs(a), request_costs(b)
    (back_a, bytes_back_a), (back_b, bytes_back_b) = _backfill(a, lang), _backfill(b, lang)
    return _p(
        "apis",
        lang,
        api_a=API_WORDS[api_a]["api"],
        api_b=API_WORDS[api_b]["api"],
        bytes_a=f"{fa.bytes_to_model:,}",
        bytes_b=f"{fb.bytes_to_model:,}",
        tools_a=f"{ca[0].tool_bytes:,}" if ca else "—",
        tools_b=f"{cb[0].tool_bytes:,}" if cb else "—",
        shape_a=_shape(a, lang),
        shape_b=_shape(b, lang),
        back_a=back_a,
        back_b=back_b,
        back_bytes_a=bytes_back_a,
        back_bytes_b=bytes_back_b,
    )


def point(a: Trace, b: Trace, *, lang: Lang = "en") -> str:
    """What a pair of runs teaches (see `_point`); two runs of different model APIs begin with where their bytes
    differ (`apis_compared`)."""
    leads = [t for t in (apis_compared(a, b, lang=lang), _hosted_compared(a, b, lang)) if t]
    return ("" if lang == "zh" else " ").join([*leads, _point(a, b, lang=lang)])


def _hosted_compared(a: Trace, b: Trace, lang: Lang) -> str | None:
    """When one run is hosted MCP and the other is not: who listed, chose, called and handed back in each."""
    hosted = [side for side, t in (("A", a), ("B", b)) if t.meta.mode == "hosted"]
    if len(hosted) != 1:
        return None
    other = "B" if hosted[0] == "A" else "A"
    return _p("hosted_lead", lang, hosted=hosted[0], other=other)


def _point(a: Trace, b: Trace, *, lang: Lang = "en") -> str:
    """What a pair of runs teaches, computed from the two traces in either order. Direct mode against MCP: the
    model's requests practically the same and the tool definitions' share of them, what MCP adds once per session
    and per question, the model's side, what MCP buys and when to choose which. Any other pair (two eras, two runs of
    one mode): how the second differs (set-up, discovery, translations, frames) and what stays the same."""
    sa, sb = shape(a), shape(b)
    if sa.mode == "mcp" and sb.mode == "direct":  # say what MCP adds, whichever side it was put on
        sa, sb = sb, sa
        a, b = b, a
    if sa.mode == "direct" and sb.mode == "mcp":
        return _direct_vs_mcp(a, b, sa, sb, lang)
    base, other = _c("side", lang, side="A"), _c("side", lang, side="B")
    adds: list[str] = []
    for n_a, n_b, what, methods in (
        (sa.setup_frames, sb.setup_frames, "setup", sb.setup_methods or sa.setup_methods),
        (sa.discovery_frames, sb.discovery_frames, "discovery", sb.discovery_methods or sa.discovery_methods),
    ):
        if n_a != n_b:
            detail = _list(list(methods), lang) + (_c("versus", lang, base=base, n=n_a) if n_a else "")
            adds.append(_c(what, lang, n=n_b, detail=detail))
    if sa.discover_frames != sb.discover_frames:
        adds.append(_p("discover_piece", lang, n=sb.discover_frames))
    if sa.translation_hops != sb.translation_hops:
        more: list[Kind] = [k for k in TRANSLATIONS if sb.translations[k] > sa.translations[k]]
        detail = _c("more", lang, kinds=_list([KIND_NAMES[k][lang] for k in more], lang)) if more else ""
        adds.append(
            _c("translations", lang, n=sb.translation_hops, base=base, n_base=sa.translation_hops, detail=detail)
        )
    if sa.mcp_frames != sb.mcp_frames:
        adds.append(_c("frames", lang, n=sb.mcp_frames, base=base, n_base=sa.mcp_frames))
    same, differs = _model_side(sa, sb, base, other, lang)
    head = _c("has", lang, other=other, base=base, adds=_list(adds, lang, "，")) if adds else _c("adds_nothing", lang)
    tail = _c("same", lang, same=_list(same, lang, "、", "; ")) if same else ""
    tail += _c("differs", lang, differs=_list(differs, lang, "、", "; ")) if differs else ""
    return head + tail + _c("end", lang)


# --- the figures and the steps -----------------------------------------------------------------------------------


def summary_rows(a: Trace, b: Trace, *, lang: Lang = "en") -> list[dict[str, Any]]:
    """The figures that do not depend on noise, one row each: counts, bytes and tokens, the tool definitions' share.
    No times (see the module's docstring)."""
    fa, fb = figures(a), figures(b)
    rows = [
        ("hops", fa.hops, fb.hops),
        ("mcp_frames", fa.mcp_frames, fb.mcp_frames),
        ("wire_messages", fa.wire_messages, fb.wire_messages),
        ("model_calls", fa.model_calls, fb.model_calls),
        ("tool_calls", fa.tool_calls, fb.tool_calls),
        ("bytes", fa.bytes_to_model, fb.bytes_to_model),
        ("tool_bytes", fa.tool_definition_bytes, fb.tool_definition_bytes),
        ("share", f"{fa.tool_share:.0%}", f"{fb.tool_share:.0%}"),
        ("prompt_tokens", fa.prompt_tokens, fb.prompt_tokens),
        ("tool_tokens", fa.tool_definition_tokens, fb.tool_definition_tokens),
    ]
    return [{"figure": FIGURE_NAMES[key][lang], "A": va, "B": vb} for key, va, vb in rows]


def _only(kinds: list[Kind], lang: Lang) -> str:
    """Kinds in plain words, whole, each once, with how many hops when more than one."""
    counts: dict[Kind, int] = {}
    for k in kinds:
        counts[k] = counts.get(k, 0) + 1
    sep = "、" if lang == "zh" else ", "
    return sep.join(KIND_NAMES[k][lang] + (f" ×{n}" if n > 1 else "") for k, n in counts.items())


def per_step(a: Trace, b: Trace, *, lang: Lang = "en") -> list[dict[str, Any]]:
    """One row per message of the lesson (the app's step numbers are the articles' message numbers 1-10; step 0 is
    the phase before anyone asks): hops and MCP frames in each run, and the hops only one run has, in plain words."""
    out = []
    for step in Step:
        ha = [h for h in a.hops if h.step == step]
        hb = [h for h in b.hops if h.step == step]
        kinds_a, kinds_b = {h.kind for h in ha}, {h.kind for h in hb}
        out.append(
            {
                "step": int(step),
                "what": message_name(int(step), lang) + " · " + ROUTE_NAMES[step][lang],
                "phase": step.phase,
                "hops A": len(ha),
                "hops B": len(hb),
                "wire frames A": mcp_frames(ha),
                "wire frames B": mcp_frames(hb),
                "only in A": _only([h.kind for h in ha if h.kind not in kinds_b], lang),
                "only in B": _only([h.kind for h in hb if h.kind not in kinds_a], lang),
            }
        )
    return out


def message_name(step: int, lang: Lang) -> str:
    """The articles' name for a step, as Step through's route says it: message 1-10, or phase zero for step 0."""
    return CLOSING_TEXT["phase_zero"][lang] if step == 0 else CLOSING_TEXT["message"][lang].format(n=step)


def _span(hops: list[Hop]) -> float:
    return round(max(h.t_end_ms for h in hops) - min(h.t_start_ms for h in hops), 1) if hops else 0.0


def per_phase_ms(trace: Trace) -> dict[str, float]:
    """Milliseconds per phase of one recorded run (Compare does not show them: one run's times are noise)."""
    return {phase: _span([h for h in trace.hops if h.phase == phase]) for phase in PHASES}


def side_by_side(a: Trace, b: Trace, *, lang: Lang = "en") -> tuple[str, str]:
    """The two whole diagrams as DOT, each message (the articles' numbers, the app's steps) at the same height in
    both: drawn at one scale, side by side, message 4 of one is level with message 4 of the other."""
    dot_a, dot_b = aligned_dots(a, b, lang=lang)
    return dot_a, dot_b


def aligned_dots(*traces: Trace, lang: Lang = "en", narrow: bool = False) -> tuple[str, ...]:
    """Any number of whole diagrams as DOT, each message at the same height in all of them (see `side_by_side`);
    `narrow`: the lifelines closer together (diagram.NARROW), for two diagrams side by side on a projector's page."""
    spacing = NARROW if narrow else WIDE
    room = aligned_room(*traces, lang=lang, spacing=spacing)
    return tuple(to_dot(t, window=None, lang=lang, room=room, spacing=spacing) for t in traces)


def own_dots(*traces: Trace, lang: Lang = "en", narrow: bool = False) -> tuple[str, ...]:
    """The same diagrams each at its own heights: one above the other, where no message of one stands beside the
    other's, the room a message of the other run takes would only be an empty band."""
    spacing = NARROW if narrow else WIDE
    return tuple(to_dot(t, window=None, lang=lang, spacing=spacing) for t in traces)
