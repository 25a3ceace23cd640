"""The closing view: what a whole trace shows, said after its last hop, in the viewer, the HTML export and the lesson
script alike.

Every figure and every hop number comes from the trace: article 000's three questions answered from its hops, the
roles and what each one saw, the tool definitions' share of what the model was sent (bytes of `tools` against the
request body, and `prompt_tokens` where the model reported usage), article 004's 40-tool sum with this run's
figures, and when to choose which. A run that stopped says so, and says only what the hops before the stop show.
Pure: trace in, words out.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from flow.text.apis import API_WORDS
from flow.text.closing import CLOSING_TEXT
from flow.text.names import Lang, plurals
from flow.trace.factory import compact_json
from flow.trace.model import Hop, Trace, as_dict
from flow.trace.pairing import exchanges
from flow.trace.payloads import LlmResponse, typed
from flow.trace.steps import Step
from flow.views.bundle_types import ClosingBundle, ClosingText
from flow.views.labels import shown_arguments
from flow.views.tool_cost import RequestCost, costs_of
from flow.wire import API
from flow.wire.base import ApiName, ToolCall
from flow.wire.hosted import Exchange as HostedExchange
from flow.wire.reading import ModelExchange, Readings, read_trace, reply_turn
from flow.wire.recorded import api_of_trace

Fate = Literal[
    "ran", "raised", "unreported", "error_result", "rpc_error", "refused", "direct_failed", "no_result", "not_sent"
]


@dataclass(frozen=True)
class Decision:
    """A model reply that asked for tools (message 4): the hop, the calls as name(arguments), its finish_reason."""

    seq: int
    calls: tuple[str, ...]
    finish: str | None
    ids: tuple[str, ...] = ()  # each call's tool_call_id, as the model gave it ("" when it gave none)


@dataclass(frozen=True)
class CallFate:
    """What became of one tool call the model asked for, and the hop that shows it."""

    name: str
    args: str
    fate: Fate
    seq: int | None
    detail: str = ""
    call_id: str = ""  # the model's tool_call_id for it


@dataclass(frozen=True)
class Reported:
    """One MCP exchange a provider reports it made (hosted MCP): the reply hop that reports it, and the hop where the
    recorder saw the tool run at the server, when it saw it."""

    seq: int
    exchange: HostedExchange
    ran: int | None = None


@dataclass(frozen=True)
class Approval:
    """A call the provider's client asked the app to approve (hop `seq`), and the app's answer (hop `answered`, None
    when it gave none)."""

    seq: int
    call: str
    answered: int | None
    approve: bool


@dataclass(frozen=True)
class Closing:
    """What a trace shows, as facts: the words are put on them by `sections`."""

    mode: str
    last_seq: int
    stopped: bool
    stop_step: int | None
    error: dict[Lang, str]
    answered: bool
    decisions: tuple[Decision, ...]
    requests: tuple[RequestCost, ...]
    frames: int
    methods: tuple[str, ...]
    forward: tuple[int, ...]
    reverse: tuple[int, ...]
    fates: tuple[CallFate, ...]
    pairs: tuple[tuple[str, str], ...]  # (tool_call_id, JSON-RPC id) the host kept
    ids_in_mcp: bool  # a tool_call_id appears in an MCP frame
    question_in_mcp: bool
    jsonrpc_to_model: bool  # a JSON-RPC frame's marker appears in a request to the model
    backfill: bool
    schemas_seq: int | None  # direct mode: the hand-written schemas
    offered: tuple[int, tuple[str, ...]] | None = None  # the hop where the server announced resources / prompts
    extra: dict[str, Any] = field(default_factory=dict)
    api: ApiName = "chat"  # the model API the requests went to
    previous: bool = False  # a follow-up named previous_response_id (Responses)
    server_methods: tuple[str, ...] = ()  # what the server sent the client unasked: its requests, its notifications
    sampled: tuple[int, ...] = ()  # the model requests the host made for the server (sampling/createMessage)
    reported: tuple[Reported, ...] = ()  # hosted: the MCP exchanges the provider reports it made
    servers: tuple[str, ...] = ()  # hosted: the servers the app's requests named
    mock_tokens: bool = False  # the token counts are the offline mock's, made with the app's stand-in estimate
    approvals: tuple[Approval, ...] = ()  # hosted: calls the provider asked the app to approve, and its answers

    @property
    def own(self) -> tuple[RequestCost, ...]:
        """The app's own requests to the model (not the host's for a server)."""
        return tuple(r for r in self.requests if not r.for_server)

    @property
    def words(self) -> dict[str, str]:
        """The API's own names, as the texts' `{w_…}` fields take them."""
        return {f"w_{k}": v for k, v in API_WORDS[self.api].items()}

    @property
    def tool_bytes(self) -> int:
        return sum(r.tool_bytes for r in self.own)

    @property
    def bytes(self) -> int:
        return sum(r.bytes for r in self.own)

    @property
    def share(self) -> float:
        return self.tool_bytes / self.bytes if self.bytes else 0.0


def _text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=True, default=str)
    except (TypeError, ValueError, RecursionError):
        return ""


def sampled_calls(hop: Hop) -> list[ToolCall]:
    """The calls the host's model asked for in a reply it wrote for an MCP server (sampling with tools): the
    server's to run, never the app's."""
    match typed(hop):
        case LlmResponse(payload=p) if "for_server" in p:
            got = reply_turn(hop)
            return got[0] if got else []
        case _:
            return []


def _decisions(readings: list[ModelExchange]) -> list[Decision]:
    """The app's model's replies that asked the app for tools (the host's requests for a server are the server's)."""
    return [
        Decision(
            ex.reply.seq,
            tuple(f"{c.name}({shown_arguments(c.arguments)})" for c in ex.calls),
            ex.finish,
            tuple(c.id for c in ex.calls),
        )
        for ex in readings
        if ex.reply is not None and ex.calls and not ex.for_server
    ]


def _known_functions(read: Readings) -> set[str]:
    """The tool names the run had: the server's list, or direct mode's hand-written schemas."""
    names: set[str] = set()
    for hop in read.listed:
        for tool in as_dict(hop.payload).get("tools") or []:
            tool = as_dict(tool)
            names.add(str(as_dict(tool.get("function")).get("name") or tool.get("name")))
    return names


def _raised(hop: Hop) -> str:
    payload = as_dict(hop.payload)
    kind = as_dict(payload.get("raised")).get("type")
    if kind:
        return str(kind)
    found = re.match(r"Error: (\w+)", str(payload.get("tool_message_content") or ""))
    return found[1] if found else "isError"


def _fates(trace: Trace, read: Readings) -> list[CallFate]:
    out: list[CallFate] = []
    known = _known_functions(read)
    for thread in read.threads:
        call_id = thread.id
        first = as_dict(thread.taken.payload)
        fn = as_dict(as_dict(first.get("tool_call")).get("function"))
        name, args = str(fn.get("name")), shown_arguments(fn.get("arguments"))
        if thread.refused:
            out.append(CallFate(name, args, "refused", thread.taken.seq, call_id=call_id))
            continue
        invoke, results, to_app = thread.invoked, thread.results, thread.to_app
        raised = next((h for h in results if "raised" in as_dict(h.payload)), None)
        error = as_dict(as_dict(to_app.payload).get("error")) if to_app is not None else {}
        if invoke is not None and trace.meta.mode == "direct" and known and name not in known:
            out.append(CallFate(name, args, "direct_failed", to_app.seq if to_app else invoke.seq, call_id=call_id))
        elif invoke is not None:
            failed = raised or next((h for h in results if as_dict(h.payload).get("isError") is True), None)
            if failed is not None:
                out.append(CallFate(name, args, "raised", failed.seq, _raised(failed), call_id=call_id))
            else:
                out.append(CallFate(name, args, "ran", invoke.seq, invoke.source, call_id=call_id))
        elif error:
            out.append(
                CallFate(
                    name, args, "rpc_error", to_app.seq if to_app else None, str(error.get("code")), call_id=call_id
                )
            )
        elif to_app is not None and trace.meta.mode == "direct":
            out.append(CallFate(name, args, "direct_failed", to_app.seq, call_id=call_id))
        elif to_app is not None and as_dict(as_dict(to_app.payload).get("result")).get("isError") is True:
            out.append(CallFate(name, args, "error_result", to_app.seq, call_id=call_id))
        elif to_app is not None:
            out.append(CallFate(name, args, "unreported", to_app.seq, call_id=call_id))
        else:
            out.append(CallFate(name, args, "no_result", None, call_id=call_id))
    return out


def _not_sent(read: Readings) -> list[CallFate]:
    """The tool calls the model asked the app for that the app never took up (the run stopped first)."""
    handled = {t.id for t in read.threads}
    return [
        CallFate(c.name, shown_arguments(c.arguments), "not_sent", ex.reply.seq, call_id=c.id)
        for ex in read.model
        if ex.reply is not None and not ex.for_server
        for c in ex.calls
        if c.id and c.id not in handled
    ]


def calls_and_fates(trace: Trace, read: Readings | None = None) -> tuple[list[Decision], list[CallFate]]:
    """The model's decisions (replies with tool_calls) in order, and what became of each call it asked for; `read`
    is the trace's reading, when the caller has made it already."""
    read = read if read is not None else read_trace(trace.hops)
    return _decisions(list(read.model)), _fates(trace, read) + _not_sent(read)


def closing_facts(trace: Trace) -> Closing:
    """The facts of the closing view, computed from the trace's hops."""
    hops = trace.hops
    read = read_trace(hops)
    readings = list(read.model)
    costs, (decisions, fates) = costs_of(readings), calls_and_fates(trace, read)
    ids = {i for d in decisions for i in d.ids if i}
    mcp_text = [_text(h.payload) for h in (*read.frames, *read.reported)]
    methods, pairs, offered = _mcp_facts(hops)
    bodies = [compact_json(as_dict(ex.request.payload).get("body")) for ex in readings]
    meta = trace.meta
    stopped = meta.outcome == "error"
    failures = read.failures if stopped else ()
    last = failures[0] if failures else (hops[-1] if hops else None)
    server_methods = dict.fromkeys(str(as_dict(h.payload).get("method") or "") for h in read.from_server)
    return Closing(
        mode=meta.mode,
        last_seq=last.seq if last else 0,
        stopped=stopped,
        stop_step=int(last.step) if last is not None and last.step is not None else None,
        error={"en": meta.error or "", "zh": meta.error_zh or meta.error or ""},
        answered=read.answer is not None and not stopped,
        decisions=tuple(decisions),
        requests=tuple(costs),
        frames=len(read.frames),
        methods=tuple(methods),
        # the tool definitions' translation; one with `what` carries a resource's or a prompt's content instead
        forward=tuple(h.seq for h in read.forward),
        reverse=tuple(h.seq for h in read.reverse),
        fates=tuple(fates),
        pairs=tuple(pairs),
        ids_in_mcp=any(i in t for i in ids for t in mcp_text),
        question_in_mcp=bool(meta.question) and any(meta.question in t for t in mcp_text),
        jsonrpc_to_model=any('"jsonrpc"' in b for b in bodies),
        backfill=any(ex.request.step == Step.BACKFILL for ex in readings),
        schemas_seq=read.schemas.seq if read.schemas is not None else None,
        offered=offered,
        api=api_of_trace(trace).name,
        previous=any(ex.previous for ex in readings),
        server_methods=tuple(m for m in server_methods if m),
        sampled=tuple(ex.request.seq for ex in readings if ex.for_server),
        reported=_reported(readings, read.invoked),
        servers=tuple(dict.fromkeys(s for ex in readings for s in ex.offer.servers)),
        mock_tokens=as_dict(meta.model).get("backend") == "mock",
        approvals=_approvals(readings),
    )


def _mcp_facts(
    hops: list[Hop],
) -> tuple[list[str], list[tuple[str, str]], tuple[int, tuple[str, ...]] | None]:
    """From the MCP exchanges: the methods the client sent, the (tool_call_id, JSON-RPC id) pairs the host kept, and
    where the server announced resources or prompts."""
    methods: list[str] = []
    offered: tuple[int, tuple[str, ...]] | None = None
    pairs: list[tuple[str, str]] = []
    for ex in exchanges(hops):
        method = str(as_dict(ex.request.payload).get("method") or "")
        if method and method not in methods and ex.request.source == "mcp_client":
            methods.append(method)
        if ex.tool_call_id and ex.request.jsonrpc_id is not None:
            pairs.append((ex.tool_call_id, str(ex.request.jsonrpc_id)))
        if method in ("initialize", "server/discover") and ex.reply is not None and offered is None:
            caps = as_dict(as_dict(as_dict(ex.reply.payload).get("result")).get("capabilities"))
            named = tuple(c for c in ("resources", "prompts") if c in caps)
            offered = (ex.reply.seq, named) if named else None
    return methods, pairs, offered


def _approvals(readings: list[ModelExchange]) -> tuple[Approval, ...]:
    answers = {rid: (ex.request.seq, approve) for ex in readings for rid, approve in ex.approves}
    return tuple(
        Approval(
            ex.reply.seq,
            f"{asked.name}({shown_arguments(asked.arguments)})",
            answers.get(asked.id, (None, False))[0],
            answers.get(asked.id, (None, False))[1],
        )
        for ex in readings
        if ex.reply is not None
        for asked in ex.asks_approval
    )


def _reported(readings: list[ModelExchange], invoked: tuple[Hop, ...]) -> tuple[Reported, ...]:
    """The exchanges the provider reports (hosted MCP), each with the run the recorder saw of a call at the server
    (the tool.invoke hops, taken in order by name)."""
    invokes = [h for h in invoked if h.source == "mcp_server"]
    out: list[Reported] = []
    for ex in readings:
        for reported in ex.reported:
            seen = next((h for h in invokes if as_dict(h.payload).get("function") == reported.name), None)
            if seen is not None and reported.method == "tools/call":
                invokes.remove(seen)
            ran = seen.seq if seen is not None and reported.method == "tools/call" else None
            out.append(Reported(ex.reply.seq if ex.reply is not None else ex.request.seq, reported, ran))
    return tuple(out)


# --- the words ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    label: str | None
    text: str


@dataclass(frozen=True)
class Section:
    key: str
    heading: str
    items: tuple[Item, ...]
    bar: float | None = None  # the tool definitions' share, for a bar beside the figures


def _t(key: str, lang: Lang, **values: object) -> str:
    return plurals(CLOSING_TEXT[key][lang], values).format(**values)


def _n(value: float) -> str:
    return f"{math.floor(value + 0.5):,}"


def _pct(value: float) -> str:
    return f"{value:.0%}"


def _hops(seqs: list[int] | tuple[int, ...], lang: Lang) -> str:
    shown = ("、" if lang == "zh" else ", ").join(str(s) for s in seqs)
    if lang == "zh":
        return f"第 {shown} 跳"
    return ("hop " if len(seqs) == 1 else "hops ") + shown


def _join(items: list[str], lang: Lang) -> str:
    return ("；" if lang == "zh" else "; ").join(items)


def _where(step: int | None, lang: Lang) -> str:
    if step is None:
        return _t("wire", lang)
    return _t("phase_zero", lang) if step == 0 else _t("message", lang, n=step)


def _calls(reported: Iterable[Reported]) -> list[Reported]:
    return [r for r in reported if r.exchange.method == "tools/call"]


def _shown(r: Reported) -> str:
    return f"{r.exchange.name}({shown_arguments(r.exchange.arguments)})"


def _fc_hosted(c: Closing, lang: Lang) -> str:
    """Hosted MCP: the provider's model chose the call and its client made it; the app was handed no call."""
    first = c.own[0] if c.own else None
    servers = ("、" if lang == "zh" else ", ").join(c.servers) or "?"
    calls = _calls(c.reported)
    if not calls:
        key = "fc_hosted_none" if c.reported or not c.stopped else "fc_no_reply"
        return _t(key, lang, request=first.seq if first else "?", servers=servers, **c.words)
    text = _t(
        "fc_hosted",
        lang,
        hops=_hops(sorted({r.seq for r in calls}), lang),
        calls=("、" if lang == "zh" else ", ").join(_shown(r) for r in calls),
        request=first.seq if first else "?",
        servers=servers,
        **c.words,
    )
    for a in c.approvals:
        key = "approval_none" if a.answered is None else ("approval_yes" if a.approve else "approval_no")
        text += ("" if lang == "zh" else " ") + _t(key, lang, call=a.call, seq=a.seq, answered=a.answered)
    return text


def _fc(c: Closing, lang: Lang) -> str:
    if c.mode == "hosted":
        return _fc_hosted(c, lang)
    if c.decisions:
        calls = _join([", ".join(d.calls) for d in c.decisions], lang)
        finishes = sorted({d.finish for d in c.decisions if d.finish}) or ["null"]
        finish = ("、" if lang == "zh" else ", ").join(f'"{f}"' if f != "null" else f for f in finishes)
        first = c.own[0] if c.own else None
        return _t(
            "fc_decided",
            lang,
            hops=_hops([d.seq for d in c.decisions], lang),
            calls=calls,
            finish=finish,
            request=first.seq if first else "?",
            n_tools=first.tools if first else 0,
            **c.words,
        )
    if c.own and not c.stopped:
        with_tools = all(r.tools for r in c.own)
        key = ("fc_none" if with_tools else "fc_none_some") if len(c.own) != 1 else "fc_none_one"
        return _t(key, lang, requests=len(c.own))
    return _t("fc_no_reply", lang, **c.words)


def _mcp_hosted(c: Closing, lang: Lang) -> str:
    sep = "、" if lang == "zh" else ", "
    reported = _hops(sorted({r.seq for r in c.reported}), lang) if c.reported else ""
    methods = sep.join(dict.fromkeys(r.exchange.method for r in c.reported))
    if c.frames:
        text = _t("mcp_hosted_seen", lang, frames=c.frames, methods=sep.join(c.methods))
        if c.reported:
            text += ("" if lang == "zh" else " ") + _t("mcp_hosted_report", lang, reported=reported, methods=methods)
    elif c.reported:
        text = _t("mcp_hosted_unseen", lang, reported=reported, methods=methods)
    else:
        return _t("mcp_hosted_nothing", lang)
    return text + ("" if lang == "zh" else " ") + _t("mcp_hosted_no_translation", lang, **c.words)


def _mcp(c: Closing, lang: Lang) -> str:
    if c.mode == "hosted":
        return _mcp_hosted(c, lang)
    if c.mode == "direct":
        key = "mcp_none" if API[c.api].arguments_json else "mcp_none_messages"  # Messages' input is an object
        return _t(key, lang, schemas=c.schemas_seq if c.schemas_seq is not None else "?", **c.words)
    if not c.frames:
        return _t("mcp_no_frames", lang)
    setup = ""
    if "initialize" in c.methods:
        setup = _t("setup_handshake", lang)
    elif "server/discover" in c.methods:
        setup = _t("setup_discover", lang)
    text = _t("mcp_did", lang, frames=c.frames, methods=("、" if lang == "zh" else ", ").join(c.methods), setup=setup)
    sep = " " if lang == "en" else ""
    if c.server_methods:
        methods = ("、" if lang == "zh" else ", ").join(c.server_methods)
        text = text.rstrip() + sep + _t("server_sent", lang, methods=methods)
    if c.forward and c.reverse:
        text = (
            text.rstrip()
            + sep
            + _t(
                "translations_by_host",
                lang,
                forward=_hops(c.forward, lang),
                reverse=_hops(c.reverse, lang),
                **c.words,
            )
        )
    elif c.forward:
        text = text.rstrip() + sep + _t("forward_by_host", lang, forward=_hops(c.forward, lang), **c.words)
    return text.strip()


def _tool_hosted(c: Closing, lang: Lang) -> str:
    calls = _calls(c.reported)
    if not calls:
        return _t("tool_stopped" if c.stopped else "no_tool_hosted", lang)
    parts: list[str] = []
    for r in calls:
        ex = r.exchange
        if r.ran is not None:
            text = _t("ran_hosted", lang, call=_shown(r), seq=r.ran)
        else:
            text = _t("reported_hosted", lang, call=_shown(r), seq=r.seq)
        if ex.is_error:
            said = (ex.output or "").strip()
            said = said if len(said) <= 200 else said[:199] + "…"
            text += ("" if lang == "zh" else " ") + _t("hosted_error", lang, output=said.rstrip("。."))
        parts.append(text)
    sep = "" if lang == "zh" else " "
    return sep.join(parts) + sep + _t("app_ran_none", lang)


def _tool(c: Closing, lang: Lang) -> str:
    if c.mode == "hosted":
        return _tool_hosted(c, lang)
    if not c.fates:
        return _t("tool_stopped" if c.stopped else "no_tool", lang)
    parts: list[str] = []
    for f in c.fates:
        if f.fate in ("ran", "raised"):
            key = "ran_app" if c.mode == "direct" else "ran_server"
            text = _t(key, lang, name=f.name, args=f.args, seq=f.seq)
            if f.fate == "raised":
                text += ("" if lang == "zh" else " ") + _t("ran_raised", lang, error=f.detail, seq=f.seq)
            parts.append(text)
        elif f.fate == "rpc_error":
            parts.append(_t("rpc_error", lang, name=f"{f.name}({f.args})", code=f.detail, seq=f.seq))
        else:
            parts.append(_t(f.fate, lang, name=f"{f.name}({f.args})", seq=f.seq))
    last = _t("model_runs_none" if c.mode == "direct" else "nobody_ran_model", lang)
    return (" " if lang == "en" else "").join(parts) + ("" if lang == "zh" else " ") + last


def _model_role(c: Closing, lang: Lang) -> str:
    own = len(c.own)
    carries = _t(f"carries_{c.api}", lang) if c.mode != "hosted" else _t(f"carries_hosted_{c.api}", lang)
    text = _t(
        "model",
        lang,
        requests=own,
        carries=carries,
        backfill=_backfill_carries(c, lang),
        # hosted: the provider's own client speaks JSON-RPC, so frames do reach the provider, not through the app
        no_frame="" if c.jsonrpc_to_model or c.mode == "hosted" else _t("model_no_frame", lang),
    ).strip()
    if c.sampled:
        sep = "" if lang == "zh" else " "
        text += sep + _t("model_sampled", lang, n=len(c.sampled), hops=_hops(c.sampled, lang))
    return text


def _backfill_carries(c: Closing, lang: Lang) -> str:
    """What the app's follow-up requests carry back: the call ids of the results (app-side), or the app's answers to
    the provider's approval requests (hosted MCP: the app has no result to send)."""
    if c.mode == "hosted":
        return _t("model_approvals", lang) if any(a.answered is not None for a in c.approvals) else ""
    return _t("model_backfill", lang, **c.words) if c.backfill else ""


def _roles_hosted(c: Closing, lang: Lang) -> list[Item]:
    sep = "、" if lang == "zh" else ", "
    first = c.own[0] if c.own else None
    reported = _hops(sorted({r.seq for r in c.reported}), lang) if c.reported else _t("no_report", lang)
    return [
        Item(
            _t("role_host", lang),
            _t(
                "host_hosted", lang, request=first.seq if first else "?", servers=sep.join(c.servers), reported=reported
            ),
        ),
        Item(
            _t("role_client", lang), _t("client_hosted" if c.frames else "client_hosted_unseen", lang, frames=c.frames)
        ),
        Item(_t("role_server", lang), _t("server_hosted", lang)),
        Item(_t("role_model", lang), _model_role(c, lang)),
    ]


def _roles(c: Closing, lang: Lang) -> list[Item]:
    model = _model_role(c, lang)
    if c.mode == "hosted":
        return _roles_hosted(c, lang)
    if c.mode == "direct":
        return [
            Item(
                _t("role_host", lang),
                _t("host_direct", lang) + ("" if lang == "zh" else " ") + _t("direct_no_mcp", lang),
            ),
            Item(_t("role_model", lang), model),
        ]
    sep = "、" if lang == "zh" else ", "
    requests = len(c.requests)
    if c.pairs:
        pairs = sep.join(f"{tc} ↔ id {rpc}" for tc, rpc in c.pairs)
        host = _t("host_mcp", lang, requests=requests, pairs=pairs, **c.words)
    else:
        done = "host_both" if c.reverse else ("host_forward" if c.forward else "")
        host = _t("host_mcp_nopair", lang, requests=requests, translated=_t(done, lang) if done else "")
    no_id = "" if c.ids_in_mcp else _t("client_no_id", lang, **c.words)
    client = _t("client", lang, frames=c.frames, no_id=no_id).strip()
    sampled = _t("server_sampled", lang, hops=_hops(c.sampled, lang)) if c.sampled else ""
    server = _t("server", lang, no_question="" if c.question_in_mcp else _t("server_no_question", lang))
    server += ("" if lang == "zh" or not sampled else " ") + sampled
    return [
        Item(_t("role_host", lang), host),
        Item(_t("role_client", lang), client),
        Item(_t("role_server", lang), server),
        Item(_t("role_model", lang), model),
    ]


def _cost_hosted(c: Closing, lang: Lang) -> list[Item]:
    """Hosted MCP: the app's requests carry an entry naming the server, not definitions; the provider lists the tools
    and renders them into its own prompt, where they count in its input tokens and no byte of the app's shows them."""
    items: list[Item] = []
    sep = "、" if lang == "zh" else ", "
    for k, r in enumerate(c.own, start=1):
        items.append(
            Item(
                None,
                _t(
                    "cost_hosted_request",
                    lang,
                    k=k,
                    seq=r.seq,
                    total=_n(r.bytes),
                    named=_n(r.server_bytes),
                    servers=sep.join(r.servers) or "?",
                    tools=_n(r.tool_bytes),
                ),
            )
        )
    prompt = sum(r.prompt_tokens or 0 for r in c.own)
    reported = any(r.prompt_tokens is not None for r in c.own)
    key = "cost_hosted_tokens" if reported else "cost_hosted_no_tokens"
    items.append(Item(None, _t(key, lang, prompt=_n(prompt), **c.words)))
    if reported and c.mock_tokens:
        items.append(Item(None, _t("tokens_mock", lang, **c.words)))
    return items


def _cost(c: Closing, lang: Lang) -> list[Item]:
    if not c.own:
        return [Item(None, _t("cost_no_request", lang))]
    if c.mode == "hosted":
        return _cost_hosted(c, lang)
    items: list[Item] = []
    for k, r in enumerate(c.own, start=1):
        tokens = ""
        if r.prompt_tokens is not None and r.tools:
            tokens = _t("cost_tokens", lang, prompt=_n(r.prompt_tokens), est=_n(r.tool_tokens), **c.words)
        share = _pct(r.tool_bytes / r.bytes) if r.bytes else "—"
        items.append(
            Item(
                None,
                _t(
                    "cost_request",
                    lang,
                    k=k,
                    seq=r.seq,
                    total=_n(r.bytes),
                    tools=_n(r.tool_bytes),
                    n_tools=r.tools,
                    share=share,
                    tokens=tokens,
                ),
            )
        )
    all_tools = len(c.own) > 1 and len({r.tools for r in c.own}) == 1 and c.own[0].tools > 0
    again = _t("cost_again", lang, requests=len(c.own)) if all_tools else ""
    items.append(
        Item(None, _t("cost_total", lang, total=_n(c.bytes), tools=_n(c.tool_bytes), share=_pct(c.share), again=again))
    )
    sampled = [r for r in c.requests if r.for_server]
    if sampled:
        items.append(
            Item(
                None,
                _t(
                    "cost_sampled",
                    lang,
                    n=len(sampled),
                    hops=_hops([r.seq for r in sampled], lang),
                    total=_n(sum(r.bytes for r in sampled)),
                    tools=_n(sum(r.tool_bytes for r in sampled)),
                ),
            )
        )
    items.append(Item(None, _cost_both(c, lang)))
    items += _article_004(c, lang)
    if c.mock_tokens and any(r.prompt_tokens is not None for r in c.own):
        items.append(Item(None, _t("tokens_mock", lang, **c.words)))
    return items


def _article_004(c: Closing, lang: Lang) -> list[Item]:
    """Article 004's sum with this run's figures, and where the article is wrong about what MCP saves."""
    first = next((r for r in c.own if r.tools), None)
    if first is None:
        return []
    each = first.tool_tokens / first.tools
    forty = math.floor(each * 40 + 0.5)
    sums = _t(
        "cost_40",
        lang,
        n_tools=first.tools,
        est=_n(first.tool_tokens),
        each=_n(each),
        forty=_n(forty),
        run=_n(forty * len(c.own)),
        requests=len(c.own),
    )
    return [Item(None, sums), Item(None, _t("cost_correction", lang, requests=len(c.own), n_tools=first.tools))]


def _cost_both(c: Closing, lang: Lang) -> str:
    """That function calling without MCP sends the definitions again too, in the terms of the run's API."""
    if not API[c.api].keeps_responses:
        return _t("cost_both", lang, **c.words)
    every = all(r.tools for r in c.own)
    return _t("cost_both_previous" if c.previous and every else "cost_both_responses", lang)


def _choose(c: Closing, lang: Lang) -> list[Item]:
    offered = ""
    if c.offered is not None:
        caps = ("和" if lang == "zh" else " and ").join(_t("cap_" + k, lang) for k in c.offered[1])
        offered = _t("buys_offered", lang, seq=c.offered[0], caps=caps)
    return [
        Item(None, _t("choose_fc", lang)),
        Item(None, _t("choose_mcp", lang)),
        Item(None, _t("buys", lang, offered=offered)),
    ]


def sections(trace: Trace, lang: Lang) -> tuple[str | None, list[Section]]:
    """The closing view in `lang`: a notice when the run stopped or gave no answer, then the sections."""
    c = closing_facts(trace)
    notice = None
    if c.stopped:
        error = c.error[lang] or c.error["en"]
        notice = _t("stopped", lang, seq=c.last_seq, where=_where(c.stop_step, lang), error=error.rstrip("。."))
    elif not c.answered:
        notice = _t("no_answer", lang, seq=c.last_seq)
    questions = Section(
        "questions",
        _t("questions", lang),
        (
            Item(_t("q_fc", lang), _fc(c, lang)),
            Item(_t("q_mcp", lang), _mcp(c, lang)),
            Item(_t("q_tool", lang), _tool(c, lang)),
        ),
    )
    out = [
        questions,
        Section("roles", _t("roles", lang), tuple(_roles(c, lang))),
        Section("cost", _t("cost", lang), tuple(_cost(c, lang)), bar=c.share if c.own and c.mode != "hosted" else None),
        Section("choose", _t("choose", lang), tuple(_choose(c, lang))),
    ]
    return notice, out


def closing_bundle(trace: Trace) -> ClosingBundle:
    """The closing view for the viewer, in both languages (the viewer switches language without asking again)."""

    def text(lang: Lang) -> ClosingText:
        notice, parts = sections(trace, lang)
        return {
            "title": _t("title", lang),
            "notice": notice,
            "sections": [
                {
                    "key": s.key,
                    "heading": s.heading,
                    "items": [{"label": i.label, "text": i.text} for i in s.items],
                    "bar": s.bar,
                }
                for s in parts
            ],
        }

    return {"zh": text("zh"), "en": text("en")}


def closing_markdown(trace: Trace, lang: Lang, prose: Callable[[str], str]) -> list[str]:
    """The closing view as lines of the lesson script; `prose` escapes text for Markdown (the lesson's own)."""
    notice, parts = sections(trace, lang)
    lines = ["", f"## {prose(_t('title', lang))}"]
    if notice:
        lines += ["", f"> {prose(notice)}"]
    for s in parts:
        lines += ["", f"**{prose(s.heading)}**", ""]  # not a heading: the script's ### are its hops
        for item in s.items:
            mark = "" if item.label and item.label[-1] in "?？" else ("：" if lang == "zh" else ":")
            label = f"**{prose(item.label)}**{mark}{'' if lang == 'zh' else ' '}" if item.label else ""
            lines.append(f"- {label}{prose(item.text)}")
    return lines
