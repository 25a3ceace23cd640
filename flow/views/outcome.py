"""What happened in a run, in one line, and the hop to open it at: "the model sent arguments for get_weather that are
not valid JSON (hop 11); the app called nothing and sent the error back …; the model tried again …".

The Run page shows it when a run ends, with a jump to that hop; `mcp-flow run` prints it. Every clause is read from
the trace's hops (the model's replies, what became of each call it asked for, how the run ended) and names the hop
that shows it. Pure: trace in, words out, for any trace a file may hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from flow.text.names import Lang
from flow.text.outcome import OUTCOME_TEXT
from flow.trace.json_text import read_json_text
from flow.trace.model import Hop, Trace, as_dict, as_list
from flow.trace.pairing import exchanges
from flow.trace.payloads import LlmRequest, LlmResponse, McpReported, McpRequest, McpResponse, UserInput, typed
from flow.trace.rounds import call_rounds
from flow.trace.summaries import call_text, input_requests
from flow.views.closing import CallFate, Decision, calls_and_fates, sampled_calls
from flow.views.labels import shown_arguments
from flow.wire.hosted import arguments_value
from flow.wire.reading import Readings, offer_of, read_trace
from flow.wire.recorded import api_of_request, api_of_trace

Verdict = Literal["clean", "answered_after_problem", "stopped", "no_answer", "unknown"]
LANGS: tuple[Lang, ...] = ("zh", "en")
SHOWN_CALLS = 3  # a reply with more calls is written as the first ones "and N more"
KEPT_ASKING = 3  # this many replies with tool_calls and no failure are one clause
_PROBLEMS = ("refused", "rpc_error", "direct_failed", "raised", "error_result")


@dataclass(frozen=True)
class Clause:
    key: str  # a key of OUTCOME_TEXT
    seqs: tuple[int, ...]  # the hops it is about, the first where it happened
    problem: bool = False
    values: tuple[tuple[str, str | dict[Lang, str]], ...] = ()  # what fills the text; a dict is in both languages


@dataclass(frozen=True)
class Outcome:
    """A run's one line in each language, whether it went through cleanly, and the hop to open it at: where the
    first thing went wrong, else the model's first decision, else its answer."""

    verdict: Verdict
    seq: int
    text: dict[Lang, str]
    clauses: tuple[Clause, ...]


def _t(key: str, lang: Lang, **values: object) -> str:
    return OUTCOME_TEXT[key][lang].format(**values)


def _at(seqs: tuple[int, ...], lang: Lang) -> str:
    if not seqs:
        return ""
    if len(seqs) == 1:
        return _t("at", lang, seq=seqs[0])
    return _t("at_many", lang, seqs=("、" if lang == "zh" else ", ").join(str(s) for s in seqs))


def _list(items: list[str], lang: Lang) -> str:
    """`a`, `a and b`, `a, b and c`, `a, b, c and 2 more` (zh: 、 and 等 N 个调用)."""
    shown, rest = items[:SHOWN_CALLS], len(items) - SHOWN_CALLS
    if lang == "zh":
        return "、".join(shown) + (_t("more", lang, n=len(items)) if rest > 0 else "")
    if rest > 0:
        return ", ".join(shown) + _t("more", lang, n=rest)
    return ", ".join(shown[:-1]) + _t("and", lang) + shown[-1] if len(shown) > 1 else "".join(shown)


def _offered(read: Readings) -> set[str] | None:
    """The function tools the model's requests offered it; None when no request offered any, so that no call is
    said to be missing from them."""
    return {name for ex in read.model for name in ex.offer.functions} or None


def _arguments_problem(hop: Hop) -> str:
    """Why the app refused a call's arguments, read from the arguments themselves: not JSON, not an object, or (so
    the app checked them against the schema) not what the schema asks."""
    arguments = as_dict(as_dict(as_dict(hop.payload).get("tool_call")).get("function")).get("arguments")
    if not isinstance(arguments, str):
        return "not_object" if not isinstance(arguments, dict) else "off_schema"
    ok, value = read_json_text(arguments or "{}")
    if not ok:
        return "not_json"
    return "off_schema" if isinstance(value, dict) else "not_object"


class _Reading:
    """What the clauses look up in a trace, found once."""

    def __init__(self, trace: Trace, read: Readings) -> None:
        self.trace = trace
        self.offered = _offered(read)
        self.by_seq = {h.seq: h for h in trace.hops}
        # the JSON-RPC frame that answered each tools/call, by the model's call it carried out
        self.replies = {ex.tool_call_id: ex.reply.seq for ex in exchanges(trace.hops) if ex.tool_call_id and ex.reply}
        # a call that took several rounds (2026-07-28) is answered by its last round's reply
        rounds = call_rounds(trace.hops).by_seq
        for call_id, seq in self.replies.items():
            if seq in rounds and (last := rounds[seq][0].replies[-1]) is not None:
                self.replies[call_id] = last.seq
        self.last_request = max((ex.request.seq for ex in read.model), default=0)
        key = f"result_{api_of_trace(trace).name}"
        self.result: dict[Lang, str] = {lang: OUTCOME_TEXT[key][lang] for lang in LANGS}

    def sent_back(self, refusal: Hop) -> bool:
        """The app said it sends the refusal back, and a later request to the model carried it."""
        said = as_dict(refusal.payload).get("sent_back_to_model") is True
        return said and self.last_request > refusal.seq

    def reply_frame(self, fate: CallFate) -> int | None:
        """The hop of the JSON-RPC frame that answered a call (the fate's own hop is the MCP client's result)."""
        return self.replies.get(fate.call_id, fate.seq)


def _decision_clauses(r: _Reading, d: Decision, fates: list[CallFate], again: bool) -> list[Clause]:
    """A reply with tool_calls, and what became of its calls."""
    trace, offered = r.trace, r.offered
    out: list[Clause] = []
    caller_faults = [
        f
        for f in fates
        if f.fate == "refused"
        or (f.fate in ("rpc_error", "direct_failed") and offered is not None and f.name not in offered)
    ]
    for f in caller_faults:
        if f.fate == "refused":
            refusal = r.by_seq.get(f.seq) if f.seq is not None else None
            key = _arguments_problem(refusal) if refusal is not None else "off_schema"
        else:
            key = "not_offered"
        out.append(Clause(key, (d.seq,), problem=True, values=(("name", f.name),)))
    if not caller_faults:
        calls = [f"{f.name}({f.args})" for f in fates] or list(d.calls)
        out.append(Clause("retried" if again else "called", (d.seq,), values=(("calls", _lists(calls)),)))
    ran = [f for f in fates if f.fate == "ran"]
    if ran:
        seqs = tuple(f.seq for f in ran if f.seq is not None)
        out.append(_ran("ran_app" if trace.meta.mode == "direct" else "ran_server", ran, seqs))
    answered = [f for f in fates if f.fate == "unreported"]
    if answered:
        replies = tuple(seq for f in answered if (seq := r.reply_frame(f)) is not None)
        out.append(_ran("answered_call", answered, replies))
    for f in fates:
        seqs = (f.seq,) if f.seq is not None else ()
        if f.fate == "refused":
            refusal = r.by_seq.get(f.seq) if f.seq is not None else None
            kept = refusal is None or not r.sent_back(refusal)
            out.append(Clause("refused_kept" if kept else "refused", seqs, True, (("result", r.result),)))
        elif f.fate == "rpc_error":
            frame = r.reply_frame(f)
            out.append(Clause("rpc_error", (frame,) if frame else (), True, (("code", f.detail),)))
        elif f.fate == "direct_failed":
            out.append(Clause("app_error", seqs, problem=True))
        elif f.fate == "raised":
            key = "raised_app" if trace.meta.mode == "direct" else "raised_server"
            out.append(Clause(key, seqs, True, (("call", f"{f.name}({f.args})"), ("error", f.detail))))
        elif f.fate == "error_result":
            out.append(Clause("error_result", seqs, True, (("call", f"{f.name}({f.args})"),)))
    return out


def _lists(items: list[str]) -> dict[Lang, str]:
    return {lang: _list(items, lang) for lang in LANGS}


def _ran(key: str, fates: list[CallFate], seqs: tuple[int, ...]) -> Clause:
    """The calls of one reply that ran (or were answered): the tool's name, or "the N calls" (they may all be one
    tool)."""
    if len(fates) == 1:
        return Clause(key, seqs, values=(("name", fates[0].name),))
    return Clause(f"{key}_many", seqs, values=(("n", str(len(fates))),))


def _stop_line(error: str, lang: Lang) -> str:
    """The run's error line after "the run stopped:", without a "stopped:" of its own (the round limit's)."""
    said = OUTCOME_TEXT["stopped_prefix"][lang]
    return error.removeprefix(said).rstrip("。." if lang == "zh" else ".")


def _ending(trace: Trace, read: Readings, failed_last: bool, decided: bool) -> Clause:
    hops = trace.hops
    meta = trace.meta
    if meta.outcome == "error":
        # Where the failure that ended the run first shows: the first of the error hops that end the trace (a dead
        # server's, then the app's line to the user), not an earlier failure the run recovered from.
        failed = {h.seq for h in read.failures}
        i = len(hops)
        while i > 0 and hops[i - 1].seq in failed:
            i -= 1
        stop = hops[min(i, len(hops) - 1)]
        error: dict[Lang, str] = {
            "en": _stop_line(meta.error or "", "en"),
            "zh": _stop_line(meta.error_zh or meta.error or "", "zh"),
        }
        return Clause("stopped", (stop.seq,), problem=True, values=(("error", error),))
    answer = read.answer
    if answer is None and meta.outcome == "unknown":  # a recording that cannot say what the app did at the end
        last = next((ex.reply for ex in reversed(read.model) if ex.reply is not None), None)
        return Clause("unknown_end", (last.seq if last is not None else hops[-1].seq,))
    if answer is None:
        return Clause("no_answer", (hops[-1].seq,), problem=True)
    reply = next((ex.reply for ex in reversed(read.model) if ex.reply and ex.reply.seq < answer.seq), None)
    seqs = (reply.seq,) if reply is not None else (answer.seq,)
    if not (meta.answer or "").strip():
        return Clause("answered_empty", seqs, problem=True)
    if failed_last:
        return Clause("answered_after_error", seqs)
    return Clause("answered" if decided else "answered_no_tool", seqs)


def _reported_call(hop: Hop) -> str:
    p = as_dict(hop.payload)
    return call_text(p.get("name"), p.get("arguments"))


def _calls_tool(hop: Hop) -> bool:
    """Whether a hop is a tools/call, as the provider reports it or as a recorder saw its frame."""
    match typed(hop):
        case McpReported(payload=p) | McpRequest(payload=p):
            return p["method"] == "tools/call"
        case _:
            return False


def _called_after(trace: Trace, seq: int) -> bool:
    """Was any tool called after hop `seq`, by the provider's report or a frame a recorder saw?"""
    return any(h.seq > seq and h.direction == "request" and _calls_tool(h) for h in trace.hops)


def _hosted_clauses(trace: Trace, read: Readings) -> list[Clause]:
    """Hosted MCP: the app calls no tool; the provider asks its approval (Responses), its MCP client calls the server
    and says so in its reply. Each call as the provider reports it, whether a recorder saw it too, and where the
    report and the frame disagree; then how the run ended. Told in the order of the hops that show them: a call a
    recorder saw at its frame, the provider's report of it where the reply brought it."""
    told: list[tuple[int, Clause]] = []
    asked: dict[str, str] = {}
    for ex in read.model:
        for request_id, approve in ex.approves:
            key = "hosted_approved" if approve else "hosted_denied"
            if not approve and not _called_after(trace, ex.request.seq):
                key = "hosted_denied_none"
            call = asked.get(request_id, request_id)
            told.append((ex.request.seq, Clause(key, (ex.request.seq,), values=(("call", call),))))
        at = ex.reply.seq if ex.reply is not None else ex.request.seq  # asks come only in a reply
        for ask in ex.asks_approval:
            asked[ask.id] = call = call_text(ask.name, arguments_value(ask.arguments))
            told.append((at, Clause("hosted_asked", (at,), values=(("call", call),))))
    failed = False
    reports: list[int] = []  # report hops of calls a recorder saw: told once, after what they report
    for hop in read.reported:
        p = as_dict(hop.payload)
        seen = p.get("observed") if isinstance(p.get("observed"), int) else None
        if p.get("method") == "tools/call" and hop.direction == "request":
            calls = (("calls", _reported_call(hop)),)
            if seen is not None:
                told.append((seen, Clause("hosted_called_seen", (seen,), values=calls)))
                reports.append(hop.seq)
            else:
                told.append((hop.seq, Clause("hosted_called", (hop.seq,), values=calls)))
                told.append((hop.seq, Clause("hosted_unseen", ())))
        elif p.get("method") == "tools/call":
            failed = p.get("is_error") is True
            if failed:
                at, key = (seen, "hosted_error_seen") if seen is not None else (hop.seq, "hosted_error")
                told.append((at, Clause(key, (at,), True, (("call", _reported_call(hop)),))))
            if seen is not None:
                reports.append(hop.seq)
        if p.get("mismatch"):
            what = ", ".join(str(m) for m in as_list(p.get("mismatch")))
            told.append((hop.seq, Clause("hosted_mismatch", (hop.seq,), True, (("what", what),))))
    if reports:
        told.append((reports[0], Clause("hosted_reported", tuple(reports))))
    told += _unread(read)
    decided = any(c.key in ("hosted_called", "hosted_called_seen", "hosted_asked", "unread_report") for _, c in told)
    ending = _ending(trace, read, failed, decided)
    told.append((ending.seqs[0] if ending.seqs else trace.hops[-1].seq + 1, ending))
    # In the order of the hops they point at: what was seen when it happened, the provider's report when it came.
    return [clause for _, clause in sorted(told, key=lambda pair: pair[0])]


def _unread(read: Readings) -> list[tuple[int, Clause]]:
    """Each reply that tells of tools or MCP in a form nothing here reads (a gateway's own item types): said so, at
    the reply, rather than counted as no call."""
    told: list[tuple[int, Clause]] = []
    for ex in read.model:
        if ex.unread and ex.reply is not None:
            said = Clause("unread_report", (ex.reply.seq,), values=(("types", ", ".join(ex.unread)),))
            told.append((ex.reply.seq, said))
    return told


def _clauses(trace: Trace) -> list[Clause]:
    read = read_trace(trace.hops)
    if trace.meta.mode == "hosted" or read.reported:
        return _hosted_clauses(trace, read)
    r = _Reading(trace, read)
    decisions, fates = calls_and_fates(trace, read)
    by_id = {f.call_id: f for f in fates if f.call_id}
    # one call per id: a trace recorded before its stream's pieces were joined by id holds them as calls that share it
    of = [[by_id[i] for i in dict.fromkeys(d.ids) if i in by_id] for d in decisions]
    out: list[Clause] = []
    failed = False  # the latest calls went wrong, and the model has not asked again since
    if len(decisions) >= KEPT_ASKING and not any(f.fate in _PROBLEMS for fs in of for f in fs):
        out.append(Clause("kept_asking", tuple(d.seq for d in decisions), values=(("n", str(len(decisions))),)))
    else:
        for i, (d, fs) in enumerate(zip(decisions, of, strict=True)):
            said = _decision_clauses(r, d, fs, again=i > 0 and failed)
            following = decisions[i + 1].seq if i + 1 < len(decisions) else trace.hops[-1].seq + 1
            out += said[:1] + _asked_clauses(trace, d.seq, following) + said[1:]  # asked while the calls ran
            failed = any(f.fate in _PROBLEMS for f in fs)
    unread = [clause for _, clause in _unread(read)]
    out += unread
    out.append(_ending(trace, read, failed, bool(decisions or unread)))
    return out


def _asked_clauses(trace: Trace, after: int, before: int) -> list[Clause]:
    """What the server asked the host between two hops (during the calls of one reply): the user (and the answer),
    the host's model (sampling), the client's folders (roots), in either era."""
    out: list[Clause] = []
    offered: set[str] = set()  # the server's own tools its latest sampling request offered the host's model
    for hop in trace.hops:
        if not after < hop.seq < before:
            continue
        match typed(hop):
            case UserInput(payload=p) if p.get("mode") == "sampling" and "timed_out" not in p:
                # the host's own question: may the server's request go to the model?
                key = "asked_approval" if hop.direction == "request" else "approved"
                out.append(Clause(key if p.get("action", "accept") == "accept" else "denied", (hop.seq,)))
            case UserInput(payload=p) if hop.direction == "request":
                out.append(Clause("asked_user", (hop.seq,)))
            case UserInput(payload=p):
                action = str(p.get("action") or "cancel")
                values = ", ".join(f"{k}={v}" for k, v in as_dict(p.get("content")).items())
                key = (
                    "user_timed_out"
                    if "timed_out" in p
                    else f"user_{action}" + ("" if values or action != "accept" else "_plain")
                )
                if key in OUTCOME_TEXT:
                    out.append(Clause(key, (hop.seq,), values=(("values", values),)))
            case LlmRequest(payload=p) if "for_server" in p:
                offered = set(offer_of(p["body"], api_of_request(p).name).functions)
                again = bool(out) and out[-1].key == "sampled_calls"  # with the results of the tools it asked for
                out.append(Clause("asked_model_again" if again else "asked_model", (hop.seq,)))
            case LlmResponse(payload=p) if "for_server" in p and (uses := sampled_calls(hop)):
                # the server's own tool only when its request offered one by that name
                own = [f"{c.name}({shown_arguments(c.arguments)})" for c in uses if c.name in offered]
                others = [f"{c.name}({shown_arguments(c.arguments)})" for c in uses if c.name not in offered]
                if own:
                    out.append(Clause("sampled_calls", (hop.seq,), values=(("calls", ", ".join(own)),)))
                if others:
                    out.append(Clause("sampled_unoffered", (hop.seq,), True, (("calls", ", ".join(others)),)))
            case McpRequest(payload=p) if hop.source == "mcp_server" and p["method"] == "roots/list":
                out.append(Clause("asked_roots", (hop.seq,)))  # 2025-11-25: the server asks
            case McpResponse(payload=p) if "roots/list" in input_requests(p["result"]).values():
                out.append(Clause("asked_roots", (hop.seq,)))  # 2026-07-28: an input-required result asks
            case _:
                pass  # nothing the server asked
    return out


def _line(clauses: list[Clause], lang: Lang) -> str:
    parts = []
    for c in clauses:
        values = {k: v[lang] if isinstance(v, dict) else v for k, v in c.values}
        parts.append(_t(c.key, lang, at=_at(c.seqs, lang), **values))
    if lang == "zh":
        return "；".join(parts) + "。"
    text = "; ".join(parts) + "."
    return text[:1].upper() + text[1:]


def run_outcome(trace: Trace) -> Outcome:
    """The trace's one-line outcome in both languages, and the hop it points at."""
    if not trace.hops:
        return Outcome("no_answer", 0, {lang: _t("empty_trace", lang) for lang in LANGS}, ())
    clauses = _clauses(trace)
    problem = next((c for c in clauses if c.problem and c.seqs), None)
    pointed = problem or next((c for c in clauses if c.seqs), None)
    end = clauses[-1].key
    verdict: Verdict = "answered_after_problem" if problem else "clean"
    if end in ("stopped", "no_answer"):
        verdict = "stopped" if end == "stopped" else "no_answer"
    elif end == "unknown_end":
        verdict = "unknown"
    seq = pointed.seqs[0] if pointed is not None else trace.hops[0].seq
    return Outcome(verdict, seq, {lang: _line(clauses, lang) for lang in LANGS}, tuple(clauses))
