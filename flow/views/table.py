"""Tables of hops (terminal text, rows, a pandas DataFrame) and a JSON view of one hop that puts what matters first."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, assert_never

from flow.text.names import ACTOR_NAMES, AT_PROVIDER, KIND_NAMES, PHASE_NAMES, Lang, actor_names
from flow.trace.files import clip_strings, clip_text, escape_controls
from flow.trace.model import Hop, Trace, as_dict
from flow.trace.payloads import (
    AppAnswer,
    ClientResult,
    Clipped,
    Failure,
    LlmAssembled,
    LlmChunk,
    LlmError,
    LlmRequest,
    LlmResponse,
    McpError,
    McpNotification,
    McpReported,
    McpRequest,
    McpResponse,
    ModelHop,
    PrepareTools,
    ReplayDivergence,
    ToolInvoke,
    ToolList,
    ToolResult,
    TranslateForward,
    TranslateReverse,
    TypedHop,
    UserInput,
    UserMessage,
    of_kind,
    typed,
)
from flow.trace.rounds import Rounds, call_rounds
from flow.trace.stats import tool_calls
from flow.trace.summaries import input_requests
from flow.views.labels import (
    display_width,
    is_reported,
    label_lines,
    provider_group,
    round_line,
    trace_lifelines,
)
from flow.wire.facts import ERROR_KEYS, picked
from flow.wire.reading import model_exchanges
from flow.wire.recorded import api_of_body, api_of_request

if TYPE_CHECKING:
    import pandas as pd


ACTOR_LABEL = {actor: names["en"] for actor, names in ACTOR_NAMES.items()}


TABLE_COLUMNS = ["seq", "step", "phase", "from", "to", "kind", "summary", "ms", "bytes", "tokens"]


def terminal_safe(text: str) -> str:
    """Text from a trace, fit for a terminal: control characters shown as escapes (`\\x1b`), never sent raw.
    Line breaks and tabs stay."""
    return escape_controls(text, keep="\n\t")


def _fit(text: str, width: int) -> str:
    """Exactly `width` display columns: padded, or cut with "…". Only the start of a long text is looked at."""
    text = re.sub(r"\s+", " ", text[: 2 * width + 2])  # the rest cannot show; a cell never walks a megabyte
    over = len(text) > width or display_width(text) > width  # a character is at least one column
    out, used = "", 0
    for c in text:
        w = display_width(c)
        if used + w > width - (1 if over else 0):
            return out + "…" + " " * (width - used - 1)
        out, used = out + c, used + w
    return out + " " * (width - used)


def _tokens(hop: Hop) -> int | None:
    if not hop.usage:
        return None
    total = hop.usage.get("total_tokens")
    return int(total) if isinstance(total, int) else None


def _summary(hop: Hop, lang: Lang, rounds: Rounds) -> str:
    """The summary cell: the recorded summary in English; in another language the arrow's label, made from the
    hop's kind and payload (the recorded summary is English and stays as the file holds it). A tools/call of
    several rounds says which round of which call it is, in both."""
    if lang == "en":
        text = " · ".join([hop.summary, *round_line(hop, rounds, lang)])
    else:
        text = " ".join(label_lines(hop, SUMMARY_WIDTH, lang=lang, rounds=rounds))
    return re.sub(r"\s+", " ", text)


SUMMARY_WIDTH = 90


def hop_rows(trace: Trace, *, lang: Lang = "en") -> list[dict[str, Any]]:
    """One row per hop, the columns a person scans first. In English a kind is its code name (`mcp.request`),
    in Chinese its plain name. A hop the provider reported has no time (None): nobody here saw it take any."""
    names = actor_names(trace.meta.mode)
    rounds = call_rounds(trace.hops)
    return [
        {
            "seq": h.seq,
            "step": "" if h.step is None else str(h.step),
            "phase": PHASE_NAMES[h.phase][lang] if h.phase else "",
            "from": names[h.source][lang],
            "to": names[h.target][lang],
            "kind": h.kind if lang == "en" else KIND_NAMES[h.kind][lang],
            "summary": _summary(h, lang, rounds),
            "ms": None if is_reported(h) else round(h.t_end_ms - h.t_start_ms, 1),
            "bytes": h.bytes,
            "tokens": _tokens(h),
        }
        for h in trace.hops
    ]


def hop_dataframe(trace: Trace, *, lang: Lang = "en") -> pd.DataFrame:
    import pandas as pd  # only here: the CLI and the engine start faster without it

    frame = pd.DataFrame(hop_rows(trace, lang=lang), columns=TABLE_COLUMNS)
    frame["tokens"] = frame["tokens"].astype("Int64")
    if frame["ms"].isna().any():  # a hop the provider reported took no time anyone saw: "—", never 0 or a blank
        frame["ms"] = [NO_TIME if ms != ms else f"{ms:.1f}" for ms in frame["ms"]]
    return frame


NO_TIME = "—"


"""The time cell of a hop nobody saw take any (the provider's report of an MCP exchange)."""


def lifeline_line(trace: Trace, *, lang: Lang = "en") -> str:
    """Hosted MCP: the lifelines in order, those at the model provider in brackets named for it; "" for any other
    mode, whose lifelines are the usual ones."""
    group = provider_group(trace)
    if not group:
        return ""
    names = actor_names(trace.meta.mode)
    cols = trace_lifelines(trace)
    shown = [names[a][lang] for a in cols]
    first, last = cols.index(group[0]), cols.index(group[-1])
    shown[first] = f"[{AT_PROVIDER[lang]}: {shown[first]}"
    shown[last] += "]"
    return " · ".join(shown)


def hop_table(trace: Trace, *, summary_width: int = 60) -> str:
    """The hops as a terminal table; hosted MCP adds its lifelines above it, those at the provider in brackets."""
    names = actor_names(trace.meta.mode)
    pairs = max((display_width(f"{names[h.source]['en']} → {names[h.target]['en']}") for h in trace.hops), default=0)
    widths = {
        "seq": 4,
        "step": 4,
        "phase": 9,
        "from → to": max(26, min(40, pairs)),
        "kind": 18,
        "summary": summary_width,
        "ms": 8,
        "bytes": 7,
    }
    lines = [" ".join(_fit(name, w) for name, w in widths.items()).rstrip(), " ".join("-" * w for w in widths.values())]
    if above := lifeline_line(trace):
        lines.insert(0, f"lifelines: {above}")
    for row in hop_rows(trace):
        row["from → to"] = f"{row['from']} → {row['to']}"
        row["ms"] = NO_TIME if row["ms"] is None else row["ms"]
        lines.append(" ".join(_fit(terminal_safe(str(row[name])), w) for name, w in widths.items()).rstrip())
    return "\n".join(lines)


def summary_line(trace: Trace) -> str:
    s = trace.meta.stats
    parts = [
        f"hops {s.get('hops', len(trace.hops))}",
        f"model calls {s.get('model_calls', 0)}",
        _tool_calls_figure(trace),
        f"elapsed {s.get('elapsed_ms', 0):.0f} ms",
    ]
    if tokens := s.get("prompt_tokens"):
        parts.append(f"tokens {tokens}+{s.get('completion_tokens', 0)}")
    if trace.meta.outcome == "ok" and trace.meta.answer is not None and not trace.meta.answer.strip():
        parts.append("empty answer")
    return terminal_safe(" · ".join(parts))


def _tool_calls_figure(trace: Trace) -> str:
    """The tool calls figure: the calls the model asked for. In hosted MCP the app makes none: the figure is the calls
    the provider reports its MCP client made, counted from the hops (a trace recorded before the provider's calls
    were counted stores 0), and says so; with no model at all (`mcp-flow call`), the tools/call requests sent."""
    if trace.meta.mode == "hosted":
        reported = tool_calls(trace.hops)
        return _unread_figure(trace) if not reported else f"tool calls {reported} (reported by the provider)"
    asked = trace.meta.stats.get("tool_calls", 0)
    if not asked and (unread := _unread_figure(trace)):
        return unread
    sent = [
        r
        for r in of_kind(trace.hops, McpRequest)
        if r.hop.source == "mcp_client" and r.payload["method"] == "tools/call"
    ]
    if not asked and sent and not trace.meta.stats.get("model_calls"):  # `call`: the app called a tool, no model asked
        return f"tools/call {len(sent)} (no model)"
    return f"tool calls {asked}"


def _unread_figure(trace: Trace) -> str:
    """No calls counted, because the provider reported its tool use in a form not read (a gateway's own item types):
    the figure says so, never 0; empty when nothing such was reported (hosted: the provider's 0 as ever)."""
    unread = {kind: None for ex in model_exchanges(trace.hops) for kind in ex.unread}
    if unread:
        return f"tool calls unknown (the provider reported them in a form this tool does not read: {', '.join(unread)})"
    return "tool calls 0 (reported by the provider)" if trace.meta.mode == "hosted" else ""


VIEW_TEXT_CHARS = 20_000


"""A text value longer than this is shown cut short in a hop's JSON view (a page, `show --hop`, the HTML file)."""


VIEW_BYTES = 512 * 1024


"""A hop's JSON view larger than this (after cutting long texts) is shown as the start of its JSON text: a page
or a terminal shows a bounded amount whatever one hop holds."""


RECORDER = "recorder"  # the view's key for what the recorder adds, apart from what crossed


def bounded_view(value: Any) -> Any:
    """`value` as a viewer shows it: long texts cut (`VIEW_TEXT_CHARS`); if its JSON is still over `VIEW_BYTES`,
    the start of that JSON as text, saying so. The same object when it is small."""
    try:
        value, _ = clip_strings(value, VIEW_TEXT_CHARS)
        text = json_text(value)
    except RecursionError:
        return "(nested too deeply to show)"
    if len(text) <= VIEW_BYTES:
        return value
    return clip_text(text, VIEW_BYTES)


def focus_view(hop: Hop, *, rounds: Rounds | None = None) -> dict[str, Any]:
    """The hop's JSON with the fields a lesson is about pulled to the top, then the whole payload, then under
    `recorder` what the recorder adds of its own (never mixed with what crossed); bounded in size (`bounded_view`),
    so one huge hop cannot stall the page that shows it. `rounds` (the trace's `call_rounds`) adds a tools/call's
    round in its logical call."""
    view = _focus_view(hop)
    recorder = _recorder(hop, view)
    if rounds is not None and hop.seq in rounds.by_seq:
        call, n = rounds.by_seq[hop.seq]
        recorder["round"] = {"call": call.number, "round": n, "of": len(call.requests)}
    elif rounds is not None and any(h.seq == hop.seq for h in rounds.unpaired):
        recorder["round"] = "unpaired"
    if recorder:
        view[RECORDER] = recorder
    bounded = bounded_view(view)
    return bounded if isinstance(bounded, dict) else {"clipped": "shown cut short", "json": bounded}


def _focus_view(hop: Hop) -> dict[str, Any]:
    return {**_facts(typed(hop)), "payload": hop.payload}


def _recorder(hop: Hop, view: dict[str, Any]) -> dict[str, Any]:
    """What the recorder adds of its own, which crossed no boundary: the model's call id it pairs a hop with where
    the view does not show it crossing (an MCP server and a tool never see it), and what it cut from the payload."""
    out: dict[str, Any] = {}
    if hop.tool_call_id and "tool_call_id" not in view:
        out["tool_call_id"] = hop.tool_call_id
    if hop.clipped:
        out["clipped"] = hop.clipped
    return out


_CALL_KEYS = ("tool_call", "api_call", "call_request", "tool_message_content", "isError", "error", "content")


"""What a lesson is about in a hop of the app's own (a question, a translation, a call, a result, an answer)."""


def _facts(t: TypedHop) -> dict[str, Any]:
    """The fields a lesson is about, by kind."""
    match t:
        case LlmRequest() | LlmResponse() | LlmChunk() | LlmAssembled() | LlmError():
            return _model_facts(t)
        case McpRequest(payload=p) | McpResponse(payload=p) | McpError(payload=p) | McpNotification(payload=p):
            return _frame_facts(p)
        case (
            PrepareTools(payload=p)
            | UserMessage(payload=p)
            | ToolList(payload=p)
            | ClientResult(payload=p)
            | TranslateForward(payload=p)
            | TranslateReverse(payload=p)
            | ToolInvoke(payload=p)
            | ToolResult(payload=p)
            | AppAnswer(payload=p)
            | Failure(payload=p)
            | ReplayDivergence(payload=p)
        ):
            facts = picked(p, _CALL_KEYS)
            if "api_call" in facts:  # the call as its API wrote it; the Chat-shaped copy stays in the payload
                del facts["tool_call"]
            return facts
        case McpReported(payload=p) | UserInput(payload=p):  # a provider's report; a server's question to the user
            return picked(p, _REPORTED_KEYS + _USER_INPUT_KEYS)
        case Clipped():
            return {}
        case _ as never:
            assert_never(never)


def _model_facts(t: ModelHop) -> dict[str, Any]:
    """What a lesson is about in a model hop: the fields its API says a lesson is about (`WireApi.request_facts`
    and its kin), and the HTTP status where the hop has one."""
    body: Any
    match t:
        case LlmRequest(payload=p):
            body = p["body"]
            return api_of_request(p).request_facts(body) if isinstance(body, dict) else {}
        case LlmResponse(payload=p):
            body = p["body"]
            if not isinstance(body, dict):
                return _status(p)
            if p.get("status", 0) >= 400:  # an error status: the provider's error body, as it came
                return picked(body, ERROR_KEYS) | _status(p)
            facts = api_of_body(body).reply_facts(body)
            # a Responses body has a status of its own ("completed"), which is what the lesson is about
            return facts | ({"HTTP status": p["status"]} if "status" in facts and "status" in p else _status(p))
        case LlmChunk(payload=p):
            data = p["data"]
            return (api_of_body(data).event_facts(data) if isinstance(data, dict) else {}) | _status(p)
        case LlmAssembled(payload=p):
            api = api_of_body(p["message"])  # the message stands where a whole response's turn does
            return api.reply_facts(api.assembled_body(p["message"], p["finish_reason"]))
        case LlmError(payload=p):
            body = p.get("body")
            return (picked(body, ERROR_KEYS) if isinstance(body, dict) else {}) | _status(p)
        case _ as never:
            assert_never(never)


_USER_INPUT_KEYS = (
    "asked",
    "mode",
    "message",
    "url",
    "requested_schema",
    "action",
    "content",
    "answered_by",
    "timed_out",
)


_REPORTED_KEYS = ("mismatch", "observed", "is_error", "method", "name", "arguments", "tools", "output")


"""What a lesson is about in the provider's report of an MCP exchange: where it disagrees with the frame seen, which
frame that is, and what the report says was asked and answered."""


def _status(payload: Mapping[str, object]) -> dict[str, Any]:
    """The HTTP status a model hop's payload holds."""
    return picked(payload, ("status",))


def _frame_facts(frame: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON-RPC frame's method, id, params, result or error, and a tool result's isError; what an input-required
    result asks for and a retried call answers (2026-07-28), with its request state shortened."""
    result = frame.get("result")
    flag = {"isError": result["isError"]} if isinstance(result, dict) and "isError" in result else {}
    asking = _asking_facts(as_dict(result) if "result" in frame else as_dict(frame.get("params")))
    # the flag above the result it qualifies: a long error text below cannot push it out of a small card
    return asking | picked(frame, ("method", "id", "params")) | flag | picked(frame, ("result", "error"))


STATE_CHARS = 16


"""A request state is opaque and long: the card's top shows its start (the whole of it stays in the payload)."""


def _asking_facts(part: dict[str, Any]) -> dict[str, Any]:
    """An input-required result's input requests (key: method), and a retry's answers (their keys); either's request
    state, shortened."""
    facts: dict[str, Any] = {}
    if part.get("resultType") == "input_required":
        facts["resultType"] = "input_required"
        facts["inputRequests"] = input_requests(part)
    if isinstance(part.get("inputResponses"), dict):
        facts["inputResponses"] = list(part["inputResponses"])
    state = part.get("requestState")
    if isinstance(state, str):
        facts["requestState"] = state if len(state) <= STATE_CHARS else f"{state[:STATE_CHARS]}…"
    return facts


def json_text(value: Any) -> str:
    """Compact JSON text of a decoded value, as a viewer measures it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
