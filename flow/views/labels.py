"""Names, numbers and short labels shared by every picture of a trace."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias, assert_never

from flow.text.apis import API_WORDS, api_words
from flow.text.errors import EMPTY_ANSWER
from flow.text.names import KIND_NAMES, LABEL_TEXT, Lang, plurals
from flow.trace.files import escape_controls
from flow.trace.model import Actor, Hop, Mode, Trace, as_dict, as_list
from flow.trace.payloads import (
    AppAnswer,
    ClientResult,
    ClientResultPayload,
    Clipped,
    ErrorPayload,
    Failure,
    HttpExchange,
    JsonObject,
    LlmAssembled,
    LlmChunk,
    LlmChunkPayload,
    LlmError,
    LlmErrorPayload,
    LlmRequest,
    LlmRequestPayload,
    LlmResponse,
    McpError,
    McpNotification,
    McpNotificationPayload,
    McpReported,
    McpReportedPayload,
    McpRequest,
    McpRequestPayload,
    McpResponse,
    McpResponsePayload,
    ModelHop,
    PrepareTools,
    ReplayDivergence,
    ToolInvoke,
    ToolList,
    ToolResult,
    ToolResultPayload,
    TranslateForward,
    TranslateReverse,
    UserInput,
    UserInputPayload,
    UserMessage,
    is_a,
    typed,
)
from flow.trace.rounds import Rounds
from flow.trace.steps import STEPS, Phase
from flow.trace.summaries import amount_text, arguments_text, call_text, frame_summary, input_requests
from flow.wire.base import CallStarts, EventPart, Named, Piece, Stopped, WireApi
from flow.wire.facts import parse_arguments_text
from flow.wire.hosted import hosted_servers
from flow.wire.reading import reply_turn
from flow.wire.recorded import answered, api_of_body, api_of_request, conversation

PHASE_COLORS: dict[Phase, str] = {
    "prepare": "#f2f2f2",
    "request": "#e8f1fb",
    "decision": "#fdf3e1",
    "execute": "#e9f6ec",
    "backfill": "#f3ecfa",
    "answer": "#fbeaea",
}


def lifelines(mode: Mode) -> list[Actor]:
    """The design's fixed column order. Hosted MCP puts the MCP client beside the model API, whose provider runs it,
    and the server after it: every arrow joins neighbours (app ↔ model ↔ client ↔ server ↔ tool)."""
    if mode == "direct":
        return ["user", "app", "tool", "model"]
    if mode == "hosted":
        return ["user", "app", "model", "mcp_client", "mcp_server"]
    return ["user", "app", "mcp_client", "mcp_server", "model"]


def trace_lifelines(trace: Trace) -> list[Actor]:
    """The mode's lifelines, plus any actor a foreign trace uses that the mode does not have (before the model API;
    in hosted MCP, after the server, where the model API is not last)."""
    cols = lifelines(trace.meta.mode)
    extra: list[Actor] = [
        a
        for a in ("tool", "mcp_client", "mcp_server")
        if a not in cols and any(a in (h.source, h.target) for h in trace.hops)
    ]
    if trace.meta.mode == "hosted":
        return cols + extra
    return cols[:-1] + extra + cols[-1:]


AT_PROVIDER_ACTORS: tuple[Actor, ...] = ("model", "mcp_client")


"""Hosted MCP: the lifelines that run at the model provider, drawn grouped (its API, and the MCP client it runs)."""


def provider_group(trace: Trace) -> tuple[Actor, ...]:
    """The lifelines a picture groups as "at the provider": the model API and its MCP client in hosted MCP, none
    otherwise."""
    return AT_PROVIDER_ACTORS if trace.meta.mode == "hosted" else ()


def display_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def clip(text: str, width: int) -> str:
    """One line, at most `width` display columns (a CJK character counts two), control characters escaped."""
    text = escape_controls(re.sub(r"\s+", " ", text).strip())
    if display_width(text) <= width:
        return text
    out, used = "", 0
    for c in text:
        w = display_width(c)
        if used + w > width - 1:
            break
        out, used = out + c, used + w
    return out + "…"


def _letters(n: int) -> str:
    """0 -> a, 25 -> z, 26 -> aa: sub-numbers for the hops of one step."""
    out = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        out = chr(97 + r) + out
    return out


def step_numbers(trace: Trace) -> dict[int, str]:
    """A number per hop: its step, sub-lettered when the step has several hops (2a, 2b);
    later tool rounds are prefixed (r2·4). Wire frames outside a step get "·"."""
    groups: dict[tuple[int, int], list[int]] = {}

    def tool_round(h: Hop) -> int:
        # `round` counts model requests; a backfill (8) belongs to the tool round it answers.
        assert h.step is not None
        shift = STEPS[h.step].round_shift
        return 0 if shift is None else h.round + shift

    for h in trace.hops:
        if h.step is not None:
            groups.setdefault((tool_round(h), h.step), []).append(h.seq)
    rounds = {r for r, _ in groups if r}
    out: dict[int, str] = {}
    for (rnd, step), seqs in groups.items():
        prefix = f"r{rnd}·" if len(rounds) > 1 and rnd > 1 else ""
        for i, seq in enumerate(seqs):
            out[seq] = f"{prefix}{step}{_letters(i) if len(seqs) > 1 else ''}"
    for h in trace.hops:
        out.setdefault(h.seq, "·")
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _tool_ids(messages: list[JsonObject]) -> list[str]:
    """The tool_call_ids of the role "tool" messages at the end of a request."""
    ids: list[str] = []
    for msg in reversed(messages):
        if msg.get("role") != "tool":
            break
        ids.append(str(msg.get("tool_call_id")))
    return ids[::-1]


def shown_arguments(arguments: Any) -> str:
    """A call's arguments (the JSON string the model sent, or the parsed object) as `city=北京, days=3`, the way
    every summary writes them; text that is not a JSON object is shown as it came."""
    ok, args = parse_arguments_text(arguments) if isinstance(arguments, str) else (True, arguments)
    return arguments_text(args) if ok and isinstance(args, dict) else str(arguments)


# A label is atoms joined by spaces; a line may break between two atoms, never inside one.
VALUE_WIDTHS = (16, 8)  # argument values are shortened to these widths, in turn, only while a label has too many lines


MAX_LINES = 3


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _call_atoms(name: Any, arguments: Any, value_width: int | None, lang: Lang = "en") -> list[str]:
    """One call as atoms: `name(key=value,` … `key=value)`; values are shortened to `value_width` columns (0: all
    left out), never a key or the name. `arguments` is the parsed object or the JSON string the model sent."""
    if value_width == 0:
        return [f"{name}(…)"]
    args = arguments
    if isinstance(arguments, str):
        ok, args = parse_arguments_text(arguments)
        if not ok:
            return [f"{name}({clip(arguments, value_width or 24)} {_w('not_json', lang)})"]
    if not isinstance(args, dict):
        return [f"{name}({clip(_value_text(args), value_width or 24)})"]
    if not args:
        return [f"{name}()"]
    parts = [
        f"{k}={_value_text(v) if value_width is None else clip(_value_text(v), value_width)}" for k, v in args.items()
    ]
    parts = [p + "," for p in parts[:-1]] + [parts[-1] + ")"]
    parts[0] = f"{name}({parts[0]}"
    return parts


def _joined(items: list[list[str]]) -> list[str]:
    """Items (each a list of atoms) as one run of atoms, a comma after every item but the last."""
    atoms: list[str] = []
    for i, item in enumerate(items):
        atoms += item[:-1] + [item[-1] + ("," if i < len(items) - 1 else "")]
    return atoms


def _lay_out(atoms: list[str], tail: str, width: int) -> list[str]:
    """Greedy lines of at most `width` columns, breaking only between atoms (an atom wider than `width`
    keeps a line of its own, up to twice the width); the free `tail` fills what is left of the last line.
    Stops a line after MAX_LINES: the caller only asks whether they fit."""
    lines: list[str] = []
    for atom in atoms:
        if len(lines) > MAX_LINES:
            break
        atom = clip(atom, 2 * width)
        if lines and display_width(lines[-1]) + 1 + display_width(atom) <= width:
            lines[-1] += " " + atom
        else:
            lines.append(atom)
    if tail:
        room = width - display_width(lines[-1]) - 3 if lines else width
        if lines and room >= min(12, display_width(re.sub(r"\s+", " ", tail).strip())):
            lines[-1] += " · " + clip(tail, room)
        else:
            lines.append(clip(tail, width))
    return lines


def _broken(atoms: list[str], width: int) -> list[str]:
    """A call's atoms with its first one (`name(key=value`) broken after the "(" when it is wider than `width`."""
    name, paren, rest = atoms[0].partition("(")
    if display_width(atoms[0]) <= width or not paren or rest in ("", ")"):
        return atoms
    return [name + paren, rest, *atoms[1:]]


def _calls_label(head: str, calls: list[tuple[Any, Any]], width: int, lang: Lang = "en") -> list[str]:
    """Every call whole, in as few lines as fit: long argument values shortened first, then the arguments left out,
    then repeated names counted (`get_weather(…) ×3`); only beyond that are calls left out, and counted."""
    fits = len(calls) <= MAX_LINES * width // 2  # a call takes at least two columns: beyond this, only counts can fit
    tries = [[_call_atoms(n, a, w, lang) for n, a in calls] for w in (None, *VALUE_WIDTHS)] if fits else []
    # a call wider than a line, its values whole, breaks after its "(" before any value is shortened to nothing
    tries += [broken for items in tries if (broken := [_broken(item, width) for item in items]) != items]
    tries += [[_call_atoms(n, a, 0, lang) for n, a in calls]] if fits else []
    counts: dict[str, int] = {}
    for n, _ in calls:
        counts[str(n)] = counts.get(str(n), 0) + 1
    tries.append([[f"{n}(…)" + (f" ×{k}" if k > 1 else "")] for n, k in counts.items()])
    laid = [_lay_out([head][: bool(head)] + _joined(items), "", width) for items in tries]
    for lines in laid:
        if len(lines) <= MAX_LINES and all(display_width(line) <= width for line in lines):
            return lines
    for lines in laid[len(VALUE_WIDTHS) if fits else 0 :]:  # a name or a key alone may be wider than the room
        if len(lines) <= MAX_LINES:
            return lines
    return _some(head, tries[-1], width, lang=lang)


def _some(head: str, items: list[list[str]], width: int, max_lines: int = MAX_LINES, *, lang: Lang = "en") -> list[str]:
    """As many whole items as fit in `max_lines`, then how many more there are."""
    most = min(len(items), max_lines * width // 2)  # an item takes at least two columns: no more can fit
    for keep in range(most, -1, -1):
        more = [[_w("more", lang, n=len(items) - keep)]] if keep < len(items) else []
        lines = _lay_out([head][: bool(head)] + _joined(items[:keep] + more), "", width)
        if len(lines) <= max_lines:
            return lines
    return [clip(head, width)]


def _w(key: str, lang: Lang, **values: object) -> str:
    """A label word in the interface language, filled in; English "{n} tool(s)" says "1 tool" or "2 tools"."""
    text = plurals(LABEL_TEXT[key][lang], values)
    return text.format(**values) if values else text


def label_lines(hop: Hop, width: int = 32, *, lang: Lang = "en", rounds: Rounds | None = None) -> list[str]:
    """What the arrow says, as lines of at most `width` columns: the one fact a class should read off it.
    A key value (a call with its arguments, every parallel call, an isError flag, a tool_call_id) is never cut;
    free text (a question, a result, an error message) is clipped to one line.

    Every language's label is made from the hop's payload by the same rule, in the words of `LABEL_TEXT`. Where the
    payload cannot say (the recorder cut it, or it holds nothing a label reads), the arrow says the recorded summary
    in English, the language it is written in, and the kind's name in another.

    `rounds` (`flow.trace.rounds.call_rounds` of the whole trace) adds to a tools/call of several rounds (2026-07-28)
    which round of which call it is, or that a retry could not be paired."""
    # escaped: a terminal must not run them, and graphviz refuses a label that holds one
    lines = [escape_controls(line) for line in _label_lines(hop, width, lang) if line]
    lines = lines or [clip(_unsaid(hop, lang), width)]
    more = round_line(hop, rounds, lang) if rounds is not None else []
    lines += [clip(line, width) for line in more or _again(hop, lang)]
    if hop.session is not None:  # one of several MCP sessions a recording holds: which, on its arrow
        lines.append(_w("session", lang, n=hop.session))
    mark = _w("inferred", lang)
    # A hop a merge inferred says so on its arrow, once (an English summary may say it already).
    return lines + [mark] if hop.inferred and not lines[-1].endswith(mark) else lines


def _unsaid(hop: Hop, lang: Lang) -> str:
    """What an arrow says when its payload cannot say: the recorded summary (English), else the kind's name (its code
    in English, as the table writes it)."""
    if lang == "en":
        return hop.summary if clip(hop.summary, 8) else hop.kind
    return KIND_NAMES[hop.kind][lang]


def _line(text: str, width: int) -> list[str]:
    """Free text as a label: one clipped line, or none when there is no text (`_unsaid` stands in)."""
    return [clip(text, width)] if text else []


AppHop: TypeAlias = PrepareTools | ToolList | ClientResult | UserMessage | AppAnswer | TranslateForward


FrameHop: TypeAlias = McpRequest | McpResponse | McpError | McpNotification


CallHop: TypeAlias = TranslateReverse | ToolInvoke | ToolResult


def _label_lines(hop: Hop, width: int, lang: Lang) -> list[str]:
    """One function per kind, grouped by who speaks; every one ends in `assert_never`, so a new kind fails the type
    check here until its label is written."""
    match typed(hop):
        case PrepareTools() | ToolList() | ClientResult() | UserMessage() | AppAnswer() | TranslateForward() as t:
            return _app_label(t, width, lang)
        case LlmRequest() | LlmResponse() | LlmChunk() | LlmAssembled() | LlmError() as t:
            return _model_label(t, width, lang)
        case McpRequest() | McpResponse() | McpError() | McpNotification() as t:
            return _frame_label(t, width, lang)
        case TranslateReverse() | ToolInvoke() | ToolResult() as t:
            return _call_label(t, width, lang)
        case Failure(payload=p):
            return _line(_failure_text(p, lang), width)
        case ReplayDivergence(payload=p):
            return _line(_w("divergence", lang, what=p["divergence"]), width)
        case McpReported(hop=h, payload=p):
            return _reported_label(h, p, width, lang)
        case UserInput(hop=h, payload=p):
            return _line(_user_input_text(h, p, lang), width)
        case Clipped():  # the payload cannot say (`_unsaid`)
            return []
        case _ as never:
            assert_never(never)


def _user_input_text(hop: Hop, p: UserInputPayload, lang: Lang) -> str:
    """A server's question to the user (elicitation), or the user's answer."""
    if hop.direction == "request":
        if p.get("mode") == "url":
            return _w("user_asked_url", lang, url=p.get("url", ""))
        if p.get("mode") == "sampling":
            return _w("user_asked_sampling", lang, what=p.get("message", ""))
        return _w("user_asked", lang, what=p.get("message", ""))
    if "timed_out" in p:
        return _w("user_timed_out", lang, s=f"{p['timed_out']:g}")
    action = p.get("action", "cancel")
    if action == "accept":
        values = ", ".join(f"{k}={v}" for k, v in (p.get("content") or {}).items())
        return _w("user_accept", lang, values=values) if values else _w("user_accept_plain", lang)
    return _w("user_decline" if action == "decline" else "user_cancel", lang)


def _app_label(t: AppHop, width: int, lang: Lang) -> list[str]:
    """What the app holds, is asked, is handed or says."""
    match t:
        case PrepareTools(payload=p):
            return _listing(_w("tools", lang), p["tools"], width, lang)
        case ToolList(payload=p):
            return _listing(_w("n_functions", lang, n=len(p["tools"])), p["tools"], width, lang)
        case ClientResult(payload=p):
            return _client_label(p, width, lang)
        case UserMessage(payload=p):
            return _line(p["content"], width)
        case AppAnswer(payload=p):
            return _line(p["content"] if p["content"].strip() else EMPTY_ANSWER[lang], width)  # said, not blank
        case TranslateForward(payload=p):
            if "content" in p:  # MCP content → chat messages
                return _line(_w("content_translation", lang, n=len(p["content"])), width)
            field = "input_schema" if any("input_schema" in t for t in p["openai"]) else "parameters"
            return _line(f"inputSchema → {field} ×{len(p['openai'])}", width)
        case _ as never:
            assert_never(never)


def _model_label(t: ModelHop, width: int, lang: Lang) -> list[str]:
    """What crosses to and from the model API."""
    match t:
        case LlmRequest(hop=h, payload=p) if "for_server" in p:  # sampling: the host's model, for the server
            return _prefixed(_w("for_server", lang), _request_label(h, p, width, lang), width)
        case LlmResponse(hop=h, payload=p) if "for_server" in p:
            return _prefixed(_w("for_server", lang), _reply_label(h, width, lang, assembled=False), width)
        case LlmRequest(hop=h, payload=p):
            return _request_label(h, p, width, lang)
        case LlmResponse(hop=h):
            return _reply_label(h, width, lang, assembled=False)
        case LlmChunk(hop=h, payload=p):
            return _line(_chunk_text(h, p, lang), width)
        case LlmAssembled(hop=h):
            return _reply_label(h, width, lang, assembled=True)
        case LlmError(payload=p):
            return _line(_model_error_text(p, lang), width)
        case _ as never:
            assert_never(never)


def _frame_label(t: FrameHop, width: int, lang: Lang) -> list[str]:
    """A JSON-RPC frame between the MCP client and server."""
    match t:
        case McpRequest(hop=h, payload=p) if h.source == "mcp_server":
            return _server_request_label(p, width, lang)
        case McpRequest(payload=p):
            if p["method"] == "tools/call" and "params" in p:
                params = p["params"]  # as it crossed the wire
                return _calls_label("tools/call", [(params.get("name"), params.get("arguments"))], width, lang)
            return _line(frame_summary(dict(p), None), width)
        case McpNotification(hop=h, payload=p):
            return _line(_notification_text(h, p, lang), width)
        case McpResponse(hop=h, payload=p) if h.source == "mcp_client":
            return _line(_client_answer_text(p["result"], lang), width)
        case McpResponse(hop=h, payload=p):
            return _mcp_result_label(h, p, width, lang)
        case McpError(payload=p):
            error = p["error"]
            return _line(_w("rpc_error", lang, code=error["code"], message=error["message"]), width)
        case _ as never:
            assert_never(never)


def _server_request_label(p: McpRequestPayload, width: int, lang: Lang) -> list[str]:
    """A request the server sends the client (2025-11-25): what it asks of the host's model, of the user, or for
    the client's roots."""
    method, params = p["method"], as_dict(p.get("params"))
    if method == "sampling/createMessage":
        messages = as_list(params.get("messages"))
        blocks = _blocks(_dict(messages[-1]).get("content")) if messages else []
        results = sum(b.get("type") == "tool_result" for b in blocks)
        last = f"tool_result ×{results}" if results else next((b.get("text") for b in blocks if "text" in b), None)
        asked = _value_text(params.get("systemPrompt") or last or "")
        limit = f"maxTokens {_value_text(params.get('maxTokens'))}"
        tools = [str(_dict(t).get("name")) for t in as_list(params.get("tools"))]
        if tools:  # sampling with tools: the server's own tools, offered to the host's model
            offered = _w("offered_tools", lang, names=", ".join(tools))
            return [method, *_line(f"{limit} · {offered}", width), *_line(asked, width)]
        return [method, *_line(f"{limit} · {asked}", width)]
    if method == "elicitation/create":
        what = params.get("url") if params.get("mode") == "url" else params.get("message")
        return [method, *_line(_value_text(what or ""), width)]
    return _line(method, width)


def _prefixed(prefix: str, lines: list[str], width: int) -> list[str]:
    """`prefix` on a line of its own above `lines`, within MAX_LINES: beside the first line where it fits there, else
    the last lines run together and cut to the width."""
    if len(lines) < MAX_LINES:
        return [prefix, *lines]
    if display_width(f"{prefix} {lines[0]}") <= width:
        return [f"{prefix} {lines[0]}", *lines[1:MAX_LINES]]
    return [prefix, *lines[: MAX_LINES - 2], clip(" ".join(lines[MAX_LINES - 2 :]), width)]


def _blocks(content: Any) -> list[dict[str, Any]]:
    """A sampling message's content as its blocks: one block, or a list of them (sampling with tools)."""
    return [_dict(b) for b in (content if isinstance(content, list) else [content])]


def _root_name(root: Mapping[str, Any]) -> str:
    """A root as a label names it: its name, else the last two parts of its URI (where the clone lies on the host's
    disk tells a class nothing; the card shows the whole URI)."""
    name = _value_text(root.get("name") or "")
    if name:
        return name
    parts = [p for p in str(root.get("uri", "")).split("/") if p]
    return "…/" + "/".join(parts[-2:]) if len(parts) > 3 else "/".join(parts)


def _client_answer_text(result: Mapping[str, Any], lang: Lang) -> str:
    """The client's answer to a server's request, known by its shape: the model's text, the user's choice, the
    roots."""
    if "roots" in result:
        roots = [_root_name(_dict(r)) for r in as_list(result.get("roots"))]
        return _w("roots_given", lang, n=len(roots), uris=", ".join(roots))
    action = result.get("action")
    if action == "accept":
        values = ", ".join(f"{k}={_value_text(v)}" for k, v in _dict(result.get("content")).items())
        return _w("user_accept", lang, values=values) if values else _w("user_accept_plain", lang)
    if action in ("decline", "cancel"):
        return _w(f"user_{action}", lang)
    if result.get("role") == "assistant":
        blocks = _blocks(result.get("content"))
        uses = [call_text(b.get("name"), b.get("input")) for b in blocks if b.get("type") == "tool_use"]
        if uses:
            return _w("sampled_use", lang, calls=", ".join(uses))
        return _w("sampled", lang, text=" ".join(_value_text(b.get("text", "")) for b in blocks if "text" in b))
    return _w("result", lang)


def _reported_label(hop: Hop, p: McpReportedPayload, width: int, lang: Lang) -> list[str]:
    """Hosted MCP: what the provider says its MCP client sent or got, marked as its report (and where it disagrees
    with the frame a recorder saw)."""
    mark = [_w("reported", lang)]
    if p.get("mismatch"):
        mark = [clip(_w("reported_mismatch", lang, what=", ".join(p.get("mismatch") or [])), width), *mark]
    if p["method"] == "tools/list":
        if hop.direction == "request":
            return ["tools/list", *mark]
        tools = [{"name": n} for n in p.get("tools") or []]
        return _listing(_w("n_tools", lang, n=len(tools)), tools, width, lang) + mark
    if hop.direction == "request":
        return _calls_label("tools/call", [(p.get("name"), p.get("arguments"))], width, lang)[:2] + mark
    head = "isError: true · " if p.get("is_error") else ""
    return _line(head + (p.get("output") or ""), width) + mark


def _call_label(t: CallHop, width: int, lang: Lang) -> list[str]:
    """A tool call on its way to the function, and its result on the way back."""
    match t:
        case TranslateReverse(payload=p):
            call = p["call_request"]
            return _calls_label(_w("call", lang), [(call["name"], call["arguments"])], width, lang)
        case ToolInvoke(payload=p):
            return _calls_label("", [(p["function"], p["kwargs"])], width, lang)
        case ToolResult(hop=h, payload=p):
            return _tool_result_label(h, p, width, lang)
        case _ as never:
            assert_never(never)


def _listing(head: str, tools: list[JsonObject], width: int, lang: Lang) -> list[str]:
    """A tool list: every name (an MCP tool's own, or an OpenAI function's), in two lines at most."""
    names = [t.get("name") or _dict(t.get("function")).get("name") for t in tools]
    return _some(head, [[str(n)] for n in names], width, max_lines=2, lang=lang)


def _client_label(p: ClientResultPayload, width: int, lang: Lang) -> list[str]:
    """What the MCP client handed the app: the tool list, a resource read, a prompt, or other listings."""
    if "tools" in p:
        return _listing(_w("n_tools", lang, n=len(p["tools"])), p["tools"], width, lang)
    if "uri" in p:
        contents = p.get("result", {}).get("contents")  # the server's JSON, as it came
        texts = [str(_dict(c).get("text", "")) for c in contents] if isinstance(contents, list) else []
        return _line(_w("resource", lang, uri=p["uri"], text=clip(" ".join(texts), 50)), width)
    if "prompt" in p:
        return _line(_w("prompt", lang, name=p["prompt"], n=len(p.get("as_chat_messages", []))), width)
    listed = [(k, v) for k, v in p.items() if k in ("resources", "prompts") and isinstance(v, list)]
    return _line(", ".join(_w("listed", lang, n=len(v), what=k) for k, v in listed), width)


def _request_label(hop: Hop, p: LlmRequestPayload, width: int, lang: Lang) -> list[str]:
    """A model request: the call ids a backfill answers (in its API's own result form), or how much conversation and
    how many tools it sends."""
    body = p["body"]
    if isinstance(body, str) or not body:  # a body that was not JSON says nothing a label can count
        return []
    api = api_of_request(p)
    scripted = _w("scripted", lang) if hop.scripted else ""
    if servers := hosted_servers(body):
        return _hosted_request_label(scripted, as_dict(body), api, servers, width, lang)
    if ids := [i for _, i in answered(body, api)]:
        word = API_WORDS[api.name]["result"]
        head = word if len(ids) == 1 else f"{word} ×{len(ids)}"
        items = [[("(" if k == 0 else "") + i + (")" if k == len(ids) - 1 else "")] for k, i in enumerate(ids)]
        return _some(scripted + head, items, width, lang=lang)
    stream = _w("stream_flag", lang) if body.get("stream") else ""
    sent, tools = len(conversation(body, api)), len(body.get("tools", []))
    count = _w(api_words(api.name).sent, lang, m=sent, t=tools)
    return _line(scripted + count + stream, width)


_HOSTED_TOOLS = ("mcp", "mcp_toolset")  # tool types that name a server for the provider to reach, not a function


def _hosted_request_label(
    scripted: str, body: dict[str, Any], wire: WireApi, servers: list[dict[str, Any]], width: int, lang: Lang
) -> list[str]:
    """Hosted MCP: a request that names servers for the provider to use: the app's approval answers first (the
    app's last word on a call), then how much conversation it sends and which servers, with their approval rule
    (Responses) or the toolset that enables them (Messages)."""
    items = [i for i in as_list(body.get("input")) if isinstance(i, dict)]  # Responses' approval answers
    asked = {i.get("id"): i.get("name") for i in items if i.get("type") == "mcp_approval_request"}
    atoms: list[str] = []
    for item in items:
        if item.get("type") == "mcp_approval_response":
            said = "approves" if item.get("approve") is True else "denies"
            name = asked.get(item.get("approval_request_id")) or item.get("approval_request_id")
            atoms.append(_w(said, lang, name=_value_text(name)) + " ·")
    tools = [t for t in as_list(body.get("tools")) if not (isinstance(t, dict) and t.get("type") in _HOSTED_TOOLS)]
    sent = len(conversation(body, wire))
    head = _w(api_words(wire.name).sent + "_head", lang, m=sent)
    atoms.append(scripted + head)
    if tools:
        atoms.append(_w("n_tools", lang, n=len(tools)).rstrip(":：") + " +")
    atoms.append(_w("one_server", lang) if len(servers) == 1 else _w("n_servers", lang, n=len(servers)))
    toolsets = {t.get("mcp_server_name") for t in as_list(body.get("tools")) if isinstance(t, dict)}
    for k, server in enumerate(servers):
        rule = server.get("require_approval") if server.get("approval_asked") else None
        how = _w("approval", lang, value=clip(_value_text(rule), 16)) if rule is not None else ""
        how = "(mcp_toolset)" if server.get("label") in toolsets else how  # Messages' connector enables it so
        atoms += [str(server.get("label")) + ("," if k < len(servers) - 1 and not how else ""), how]
    lines = _lay_out([a for a in atoms if a], "", width)
    return lines[:MAX_LINES]


def _hosted_item_atoms(item: dict[str, Any], value_width: int | None, lang: Lang) -> list[str]:
    """One output item or content block of a hosted-MCP turn as atoms: its type, and the call it reports or asks
    approval for; None for an item that is none of these."""
    kind = str(item.get("type"))
    if kind in ("mcp_call", "mcp_tool_use", "function_call", "tool_use"):
        arguments = item.get("arguments") if "arguments" in item else item.get("input")
        atoms = [kind, *_call_atoms(item.get("name"), arguments, value_width, lang)]
        return atoms + ([_w("call_failed", lang)] if kind == "mcp_call" and item.get("error") is not None else [])
    if kind == "mcp_approval_request":
        return [_w("asks_approval", lang), *_call_atoms(item.get("name"), item.get("arguments"), value_width, lang)]
    if kind == "mcp_tool_result" and item.get("is_error") is True:
        return [kind, "(isError: true)"]
    return [kind]


def _hosted_turn_label(scripted: str, body: dict[str, Any], width: int, lang: Lang) -> list[str] | None:
    """Hosted MCP: a turn that reports what the provider's MCP client did (`mcp_list_tools`, `mcp_call`,
    `mcp_tool_use`, `mcp_tool_result`) or asks the app's approval, item by item in order; None for a turn with no
    such item."""
    found = body.get("output") if isinstance(body.get("output"), list) else body.get("content")
    items = [i for i in found if isinstance(i, dict)] if isinstance(found, list) else []
    if not any(str(i.get("type")).startswith("mcp_") for i in items):
        return None
    lines: list[str] = []
    for value_width in (None, *VALUE_WIDTHS, 0):
        parts = [_hosted_item_atoms(i, value_width, lang) for i in items]
        atoms = [a for part in parts for a in part[:-1] + [part[-1] + " ·"]]
        atoms[-1] = atoms[-1].removesuffix(" ·")
        atoms[0] = scripted + atoms[0]
        lines = _lay_out(atoms, "", width)
        if len(lines) <= MAX_LINES:
            return lines
    return lines[:MAX_LINES]


def _reply_label(hop: Hop, width: int, lang: Lang, *, assembled: bool) -> list[str]:
    """A model reply (a whole response, or the turn the app assembled from a stream), read once for every API: what a
    hosted-MCP turn reports, the calls it asks for under the API's own name, or why the model stopped."""
    payload = as_dict(hop.payload)
    body = payload.get("message" if assembled else "body")
    scripted = _w("scripted", lang) if hop.scripted else ""
    status = payload.get("status", 0)
    if not assembled and isinstance(status, int) and status >= 400:
        return _line(_w("http_status", lang, status=status), width)
    if isinstance(body, dict) and (hosted := _hosted_turn_label(scripted, body, width, lang)) is not None:
        return hosted
    words = API_WORDS[api_of_body(body).name]
    got = reply_turn(hop)
    if got is not None and got[0]:
        calls = [(c.name, c.arguments) for c in got[0]]
        head = _w("assembled_of", lang, what=words["calls"]) if assembled else words["calls"] + ":"
        return _calls_label(scripted + head, calls, width, lang)
    said = got[1] if got is not None else payload.get("finish_reason") if assembled else None
    stop = f"{words['finish']}: {said}" if said is not None else ""
    if assembled:
        return _line(_w("assembled", lang, what=stop), width)
    return _line(scripted + (stop or _w("response", lang)), width)


def _mcp_result_label(hop: Hop, p: McpResponsePayload, width: int, lang: Lang) -> list[str]:
    """A result frame: a tool's isError flag, or the request it answers (which only the pairing knew, and the
    recorded summary names: "result of tools/list")."""
    result = p["result"]
    if result.get("resultType") == "input_required":
        asked = [[str(method)] for method in input_requests(result).values()]
        return _some(_w("input_required", lang), asked, width, lang=lang) if asked else [_w("state_only", lang)]
    if "isError" in result:
        return [_w("result_flag", lang, flag=_value_text(result["isError"]))]
    method = hop.summary.removeprefix("result of ") if hop.summary.startswith("result of ") else ""
    return _line(_w("result_of", lang, method=method) if method else _w("result", lang), width)


def _tool_result_label(hop: Hop, p: ToolResultPayload, width: int, lang: Lang) -> list[str]:
    """A tool's result: what the function did (a server's report), its isError flag and text, or the protocol
    error that came back instead."""
    if p.get("reported_by") == "mcp_server":  # inside the server: what the function did
        if "raised" in p:
            return _lay_out(["isError: true"], _w("function_raised", lang, type=p["raised"]["type"]), width)
        return _lay_out(["isError: false"], _w("function_returned", lang), width)
    # MCP mode: the flag is the CallToolResult's; direct mode: the payload's own. A protocol error has none.
    flags: Mapping[str, object] = {} if "error" in p else p.get("result", p)
    content = p.get("tool_message_content")
    if "isError" in flags:
        tail = content if content is not None else hop.summary.removeprefix("isError: ")
        if flags["isError"] is True:
            return _lay_out(["isError: true"], tail, width)
        return _line(_w("result_text", lang, text=tail), width)
    if "error" in p:
        return _line(_w("protocol_error", lang, code=p["error"]["code"], message=p["error"]["message"]), width)
    return _line(_w("result_text", lang, text=_value_text(content)) if content is not None else "", width)


def _first_text(payload: Mapping[str, object], *keys: str) -> str:
    """The first of `keys` the payload holds a value for, as text (a payload value, shown as it came)."""
    for key in keys:
        value = payload.get(key)
        if value not in (None, ""):
            return _value_text(value)
    return ""


def _model_error_text(p: LlmErrorPayload, lang: Lang) -> str:
    """A model call that failed: its HTTP error status, the limit it crossed, or what the app saw."""
    status = p.get("status")
    if status is not None and status >= 400:
        what = _w("http_status", lang, status=status)
    elif p.get("error") == "deadline" and "limit_s" in p:
        what = _w("deadline", lang, s=f"{p['limit_s']:g}")
    elif p.get("error") == "too large" and "limit_bytes" in p:
        what = _w("too_large", lang, limit=amount_text(p["limit_bytes"]))
    else:
        what = _first_text(p, "message", "reason", "error")
    return _w("model_error", lang, what=what) if what else ""


def _notification_text(hop: Hop, p: McpNotificationPayload, lang: Lang) -> str:
    method, params = p["method"], p.get("params", {})  # params: the peer's JSON, as it came
    if method == "notifications/message":
        return _w("log", lang, level=params.get("level"), data=_value_text(params.get("data")))
    if method == "notifications/progress":
        total = params.get("total")
        done = _value_text(params.get("progress")) + (f"/{_value_text(total)}" if total is not None else "")
        # The request it reports on, which only the recorder knew: the summary names it ("… of tools/call x").
        found = re.match(r"progress \S+ of (.*?)(?:: |$)", hop.summary)
        what = found[1] if found else str(params.get("progressToken", ""))
        if params.get("message"):
            return _w("progress_said", lang, done=done, what=what, message=params["message"])
        return _w("progress", lang, done=done, what=what)
    return method


def _chunk_text(hop: Hop, p: LlmChunkPayload, lang: Lang) -> str:
    """One stream event, as its API reads it (`WireApi.event_part`): a call starting, a piece of its arguments or of
    text, why the model stopped, or what else it is. Its number, and whether a delta starts a call, are the
    stream's memory, which the recorded summary states (flow.wire.chat.ChatStream: a name sent again in every delta
    starts nothing)."""
    found = re.match(r"(?:chunk|event) (\d+)", hop.summary)
    n = found[1] if found else "?"
    data = p["data"]  # the provider's JSON, as it came
    if not isinstance(data, dict):
        return _w("chunk", lang, n=n, what=clip(_value_text(data), 30))
    api = api_of_body(data)
    unit = api_words(api.name).streamed
    what = _event_what(api.event_part(data, hop.summary), lang)
    return _w(unit, lang, n=n, what=what) if what is not None else _w(f"{unit}_plain", lang, n=n)


def _event_what(event: EventPart, lang: Lang) -> str | None:
    """What a stream event is, in a few words; None for an event with nothing to say beyond its kind."""
    match event:
        case CallStarts(part=part, name=name):
            return _w("event_call", lang, what=part, name=name)
        case Piece(field=field, text=text):
            return f"{field} += {text!r}"
        case Stopped(field=field, reason=reason):
            return f"{field}: {reason}"
        case Named(what=str() as named):
            return named
        case Named():
            return None
        case _ as never:
            assert_never(never)


_TOLD: dict[Lang, Literal["message", "message_zh"]] = {"en": "message", "zh": "message_zh"}


def _failure_text(p: ErrorPayload, lang: Lang) -> str:
    """A failure the app detected: the bad arguments' reason, the line the user was told (in their language), or
    what failed, as the payload says it."""
    if "tool_call" in p and p.get("error"):
        return _w("bad_arguments", lang, why=p.get("error"))
    if "message_zh" in p and (told := p.get(_TOLD[lang])):  # step 10: the user's line, in both languages
        return told
    if "http" in p:
        return _http_failure_text(p["http"], lang)
    if p.get("error") == "timeout" and "method" in p and "timeout_s" in p:
        late = "slow_answer" if p.get("answering") else "no_answer"  # silence, or an answer still arriving
        return _w("failure", lang, what=_w(late, lang, method=p["method"], s=f"{p['timeout_s']:g}"))
    what = _first_text(p, "message") or _joined_text(p, "error", "reason") or _first_text(p, "method")
    return _w("failure", lang, what=what) if what else ""


def _joined_text(payload: Mapping[str, object], what: str, why: str) -> str:
    """`what: why`, or as much of it as the payload holds."""
    return ": ".join(t for t in (_first_text(payload, what), _first_text(payload, why)) if t)


def _http_failure_text(http: HttpExchange, lang: Lang) -> str:
    """An exchange with an MCP server over HTTP that failed: its status, or the exception it ended in."""
    what = f"{http['method']} {http.get('jsonrpc', {}).get('method') or ''}".strip()
    if "status" in http:
        return _w("http_failed", lang, status=http["status"], what=what)
    cause = _joined_text(http, "exception", "message")
    return _w("failure", lang, what=f"HTTP {what}: {cause}" if cause else f"HTTP {what}")


def short_label(hop: Hop, width: int = 32, *, lang: Lang = "en", rounds: Rounds | None = None) -> str:
    """The arrow's label as text, its lines (see `label_lines`) joined by newlines."""
    return "\n".join(label_lines(hop, width, lang=lang, rounds=rounds))


def _again(hop: Hop, lang: Lang) -> list[str]:
    """A tools/call sent again with the host's answers and the request state (2026-07-28), as the frame says."""
    frame = as_dict(hop.payload) if is_a(hop, McpRequest) else {}
    params = as_dict(frame.get("params"))
    if frame.get("method") != "tools/call" or not ("inputResponses" in params or "requestState" in params):
        return []
    return [_w("again_with", lang, n=len(as_dict(params.get("inputResponses"))))]


def round_line(hop: Hop, rounds: Rounds, lang: Lang) -> list[str]:
    """Which round of which logical call a tools/call or its answer is, or that a retry names no single call."""
    if hop.seq in rounds.by_seq:
        call, n = rounds.by_seq[hop.seq]
        return [_w("round_of", lang, round=n, call=call.number)]
    if any(h.seq == hop.seq for h in rounds.unpaired):
        return [_w("round_unpaired", lang)]
    return []


ArrowStyle = Literal["request", "response", "notification", "error", "self"]


def arrow_style(hop: Hop) -> ArrowStyle:
    if is_a(hop, Failure, McpError, LlmError, ReplayDivergence) or hop.direction == "error":
        return "error"
    if hop.source == hop.target:
        return "self"
    if hop.direction == "notification":
        return "notification"
    if hop.direction == "response" or is_a(hop, LlmChunk, ToolList, ClientResult, AppAnswer):
        return "response"
    return "request"


def is_reported(hop: Hop) -> bool:
    """Is this hop what another party says happened (hosted MCP: the provider's report), not bytes the recorder saw?
    Such an arrow is drawn hollow and dashed, and shows no time."""
    return is_a(hop, McpReported)


_UPSTREAM = {"mcp_server": "mcp_client", "model": "app", "tool": "app", "mcp_client": "app"}


def is_reply(hop: Hop) -> bool:
    """Does this hop travel back toward the one who asked?"""
    return (
        hop.direction == "response"
        or is_a(hop, McpResponse, McpError, LlmResponse, LlmError, LlmChunk, ToolResult)
        or _UPSTREAM.get(hop.source) == hop.target
    )


def pretty(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)
