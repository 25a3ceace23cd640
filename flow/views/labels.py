"""Names, numbers and short labels shared by every picture of a trace."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from typing import Any, Literal, assert_never

from flow.text.errors import EMPTY_ANSWER
from flow.text.names import KIND_NAMES, LABEL_TEXT, Lang
from flow.trace.files import escape_controls
from flow.trace.model import Actor, Hop, Mode, Trace
from flow.trace.payloads import JsonObject, payload_of
from flow.trace.steps import STEPS, Phase
from flow.trace.summaries import arguments_text, frame_summary

PHASE_COLORS: dict[Phase, str] = {
    "prepare": "#f2f2f2",
    "request": "#e8f1fb",
    "decision": "#fdf3e1",
    "execute": "#e9f6ec",
    "backfill": "#f3ecfa",
    "answer": "#fbeaea",
}


def lifelines(mode: Mode) -> list[Actor]:
    """The design's fixed column order."""
    if mode == "direct":
        return ["user", "app", "tool", "model"]
    return ["user", "app", "mcp_client", "mcp_server", "model"]


def trace_lifelines(trace: Trace) -> list[Actor]:
    """The mode's lifelines, plus any actor a foreign trace uses that the mode does not have."""
    cols = lifelines(trace.meta.mode)
    extra: list[Actor] = [
        a
        for a in ("tool", "mcp_client", "mcp_server")
        if a not in cols and any(a in (h.source, h.target) for h in trace.hops)
    ]
    return cols[:-1] + extra + cols[-1:]


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


def parse_arguments_text(text: Any) -> tuple[bool, Any]:
    """A tool_call's `arguments` string read as JSON: (True, the value), or (False, why it is not JSON).
    Total, for any value a trace file holds."""
    if not isinstance(text, str):
        return False, f"not a string but {type(text).__name__}"
    try:
        return True, json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        return False, f"{exc.msg} at position {exc.pos}"
    except RecursionError:
        return False, "nested too deeply"


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


def _calls_of(message: dict[str, Any]) -> list[tuple[Any, Any]]:
    """(name, arguments string) of each tool call an assistant message holds."""
    calls = message.get("tool_calls")
    out = []
    for call in calls if isinstance(calls, list) else []:
        fn = _dict(_dict(call).get("function"))
        out.append((fn.get("name"), fn.get("arguments")))
    return out


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


def _calls_label(head: str, calls: list[tuple[Any, Any]], width: int, lang: Lang = "en") -> list[str]:
    """Every call whole, in as few lines as fit: long argument values shortened first, then the arguments left out,
    then repeated names counted (`get_weather(…) ×3`); only beyond that are calls left out, and counted."""
    fits = len(calls) <= MAX_LINES * width // 2  # a call takes at least two columns: beyond this, only counts can fit
    tries = [[_call_atoms(n, a, w, lang) for n, a in calls] for w in (None, *VALUE_WIDTHS, 0)] if fits else []
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
    """A label word in the interface language, filled in."""
    text = LABEL_TEXT[key][lang]
    return text.format(**values) if values else text


def label_lines(hop: Hop, width: int = 32, *, lang: Lang = "en") -> list[str]:
    """What the arrow says, as lines of at most `width` columns: the one fact a class should read off it.
    A key value (a call with its arguments, every parallel call, an isError flag, a tool_call_id) is never cut;
    free text (a question, a result, an error message) is clipped to one line.

    In English, where no key value is shown, the arrow says the hop's recorded `summary`; in Chinese the label is
    made from the hop's kind and payload (the summary is English, and stays as the trace file holds it)."""
    # escaped: a terminal must not run them, and graphviz refuses a label that holds one
    lines = [escape_controls(line) for line in _label_lines(hop, width, lang) if line]
    lines = lines or [clip(hop.kind if lang == "en" else KIND_NAMES[hop.kind][lang], width)]
    mark = _w("inferred", lang)
    # A hop a merge inferred says so on its arrow, once (an English summary may say it already).
    return lines + [mark] if hop.inferred and not lines[-1].endswith(mark) else lines


def _label_lines(hop: Hop, width: int, lang: Lang) -> list[str]:
    kind = hop.kind
    scripted = _w("scripted", lang) if hop.scripted else ""
    zh = lang != "en"  # the recorded summary is English: other languages say it from the payload
    text: str
    match kind:
        case "prepare.tools" | "tool.list" | "client.result":
            listing = payload_of(hop, kind)
            tools = listing.get("tools") if listing is not None else None
            if tools is None:
                text = _client_text(hop, lang) if zh else hop.summary
            else:
                names = [t.get("name") or _dict(t.get("function")).get("name") for t in tools]
                what = {"prepare.tools": "tools", "tool.list": "n_functions", "client.result": "n_tools"}[kind]
                head = _w(what, lang, n=len(names))
                return _some(head, [[str(n)] for n in names], width, max_lines=2, lang=lang)
        case "user.message" | "app.answer":
            said = payload_of(hop, kind)
            text = (said["content"] if said is not None else "") or ("" if zh else hop.summary)
            if kind == "app.answer" and said is not None and not said["content"].strip():
                text = EMPTY_ANSWER[lang]  # said, not shown as nothing
        case "llm.request":
            request = payload_of(hop, "llm.request")
            body = request["body"] if request is not None else None
            if not isinstance(body, dict) or not body:  # text, or a payload cut short
                text = KIND_NAMES[kind][lang] if zh else hop.summary
            elif ids := _tool_ids(body.get("messages", [])):
                head = "role: tool" if len(ids) == 1 else f"role: tool ×{len(ids)}"
                items = [[("(" if k == 0 else "") + i + (")" if k == len(ids) - 1 else "")] for k, i in enumerate(ids)]
                return _some(scripted + head, items, width, lang=lang)
            else:
                n_msgs, n_tools = len(body.get("messages", [])), len(body.get("tools", []))
                stream = _w("stream_flag", lang) if body.get("stream") else ""
                text = scripted + _w("request", lang, m=n_msgs, t=n_tools) + stream
        case "llm.response":
            response = payload_of(hop, "llm.response")
            choices = _dict(response["body"]).get("choices") if response is not None else None  # JSON, as it came
            choice = _dict(choices[0]) if isinstance(choices, list) and choices else {}
            calls = _calls_of(_dict(choice.get("message")))
            if calls:
                return _calls_label(scripted + "tool_calls:", calls, width, lang)
            if not zh:
                text = hop.summary
            elif response is not None and isinstance(response.get("status"), int) and response["status"] >= 400:
                text = _w("http_status", lang, status=response["status"])
            else:
                text = scripted + (_finish(choice) or _w("response", lang))
        case "llm.assembled":
            assembled = payload_of(hop, "llm.assembled")
            message = assembled["message"] if assembled is not None else None
            calls = (
                [(c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls", [])]
                if message is not None
                else []
            )
            if calls:
                return _calls_label(scripted + _w("assembled_calls", lang), calls, width, lang)
            if not zh:
                text = hop.summary
            else:
                finish = assembled["finish_reason"] if assembled is not None else None
                text = _w("assembled", lang, what=f"finish_reason: {finish}")
        case "translate.reverse":
            if (reverse := payload_of(hop, "translate.reverse")) is not None:
                call = reverse["call_request"]
                return _calls_label(_w("call", lang), [(call["name"], call["arguments"])], width, lang)
            text = KIND_NAMES[kind][lang] if zh else hop.summary
        case "tool.invoke":
            if (invoke := payload_of(hop, "tool.invoke")) is not None:
                return _calls_label("", [(invoke["function"], invoke["kwargs"])], width, lang)
            text = KIND_NAMES[kind][lang] if zh else hop.summary
        case "mcp.request":
            frame = payload_of(hop, "mcp.request")
            if frame is not None and frame["method"] == "tools/call" and "params" in frame:
                params = frame["params"]  # as it crossed the wire
                return _calls_label("tools/call", [(params.get("name"), params.get("arguments"))], width, lang)
            if not zh:
                text = hop.summary
            else:
                text = frame_summary(dict(frame), None) if frame is not None else KIND_NAMES[kind][lang]
        case "mcp.response":
            answer = payload_of(hop, "mcp.response")
            result = answer["result"] if answer is not None else {}
            if "isError" in result:
                return [_w("result_flag", lang, flag=_value_text(result["isError"]))]
            if not zh:
                text = hop.summary.replace("result of ", "result: ")
            elif hop.summary.startswith("result of "):  # the request's method, which only the pairing knew
                text = _w("result_of", lang, method=hop.summary.removeprefix("result of "))
            else:
                text = _w("result", lang)
        case "tool.result":
            got = payload_of(hop, "tool.result")
            # MCP mode: the flag is the CallToolResult's; direct mode: the payload's own. A protocol error has none.
            flags: Mapping[str, object] = {} if got is None or "error" in got else got.get("result", got)
            content = got.get("tool_message_content") if got is not None else None
            if got is not None and got.get("reported_by") == "mcp_server":  # inside the server: what the function did
                raised = got.get("raised")
                if isinstance(raised, Mapping):
                    return _lay_out(["isError: true"], _w("function_raised", lang, type=raised.get("type", "")), width)
                return _lay_out(["isError: false"], _w("function_returned", lang), width)
            if "isError" in flags:
                tail = content if content is not None else hop.summary.removeprefix("isError: ")
                if flags["isError"] is True:
                    return _lay_out(["isError: true"], tail, width)
                text = _w("result_text", lang, text=tail)
            elif zh:
                text = _tool_result_text(got, content, lang) or KIND_NAMES[kind][lang]
            elif hop.summary and not hop.summary.startswith(("isError", "protocol error")):
                text = "result: " + hop.summary
            else:
                text = hop.summary
        case "llm.error":
            if not zh:
                text = hop.summary or "error"
            else:
                failed = payload_of(hop, "llm.error") or {}
                status = failed.get("status")
                what = _w("http_status", lang, status=status) if isinstance(status, int) else ""
                text = _w("model_error", lang, what=what or _first_text(failed, "message", "reason", "error"))
        case "translate.forward":
            forward = payload_of(hop, kind)
            if forward is not None and "content" in forward:  # MCP content → chat messages
                text = _w("content_translation", lang, n=len(forward["content"]))
            else:
                text = f"inputSchema → parameters ×{len(forward['openai']) if forward is not None else 0}"
        case "mcp.error":
            if not zh:
                text = hop.summary
            else:
                error = _dict(_dict(hop.payload).get("error"))
                text = _w("rpc_error", lang, code=error.get("code"), message=error.get("message"))
        case "mcp.notification":
            text = _notification_text(hop, lang) if zh else hop.summary
        case "llm.chunk":
            text = _chunk_text(hop, lang) if zh else hop.summary
        case "error":
            text = _failure_text(hop, lang) if zh else hop.summary
        case "replay.divergence":
            what = _first_text(_dict(hop.payload), "message", "reason", "error", "expected")
            text = _w("divergence", lang, what=what) if zh else hop.summary
        case _:
            assert_never(kind)
    return [clip(text or (kind if not zh else KIND_NAMES[kind][lang]), width)]


def _first_text(payload: Mapping[str, Any], *keys: str) -> str:
    """The first of `keys` the payload holds a value for, as text (a payload value, shown as it came)."""
    for key in keys:
        value = payload.get(key)
        if value not in (None, ""):
            return _value_text(value)
    return ""


def _finish(choice: Mapping[str, Any]) -> str:
    reason = choice.get("finish_reason")
    return f"finish_reason: {reason}" if reason is not None else ""


def _client_text(hop: Hop, lang: Lang) -> str:
    """What the MCP client handed the app when it is not a tool list: a resource read, a prompt, other listings."""
    got = _dict(hop.payload)
    if "uri" in got:
        contents = _dict(got.get("result")).get("contents")
        texts = [str(_dict(c).get("text", "")) for c in contents] if isinstance(contents, list) else []
        return _w("resource", lang, uri=got["uri"], text=clip(" ".join(texts), 50))
    if "prompt" in got:
        messages = got.get("as_chat_messages")
        return _w("prompt", lang, name=got["prompt"], n=len(messages) if isinstance(messages, list) else 0)
    listed = [(k, v) for k, v in got.items() if k in ("tools", "resources", "prompts") and isinstance(v, list)]
    return ", ".join(_w("listed", lang, n=len(v), what=k) for k, v in listed) or KIND_NAMES[hop.kind][lang]


def _tool_result_text(got: Mapping[str, Any] | None, content: Any, lang: Lang) -> str:
    """A tool result that carries no isError flag: a JSON-RPC error in its place, or the content."""
    if got is None:
        return ""
    error = got.get("error")
    if isinstance(error, dict):
        return _w("protocol_error", lang, code=error.get("code"), message=error.get("message"))
    if content is not None:
        return _w("result_text", lang, text=_value_text(content))
    return ""


def _notification_text(hop: Hop, lang: Lang) -> str:
    frame = _dict(hop.payload)
    method, params = str(frame.get("method", "")), _dict(frame.get("params"))
    if method == "notifications/message":
        return _w("log", lang, level=params.get("level"), data=_value_text(params.get("data")))
    if method == "notifications/progress":
        total = params.get("total")
        done = f"{_value_text(params.get('progress'))}" + (f"/{_value_text(total)}" if total is not None else "")
        # The request it reports on, which only the recorder knew: the summary names it ("… of tools/call x").
        found = re.match(r"progress \S+ of (.*?)(?:: |$)", hop.summary)
        what = found[1] if found else str(params.get("progressToken", ""))
        text = _w("progress", lang, done=done, what=what)
        return text + (f"：{params['message']}" if params.get("message") else "")
    return method or KIND_NAMES[hop.kind][lang]


def _chunk_text(hop: Hop, lang: Lang) -> str:
    """One stream event, as the recorder summed it up, in the interface language."""
    found = re.match(r"chunk (\d+)", hop.summary)
    n = found[1] if found else "?"
    data = _dict(hop.payload).get("data")
    if not isinstance(data, dict):
        return _w("chunk", lang, n=n, what=clip(_value_text(data), 30))
    choices = data.get("choices")
    choice = _dict(choices[0]) if isinstance(choices, list) and choices else {}
    if not choice:
        return _w("chunk", lang, n=n, what="usage") if data.get("usage") else _w("chunk_plain", lang, n=n)
    delta = _dict(choice.get("delta"))
    if choice.get("finish_reason"):
        return _w("chunk", lang, n=n, what=_finish(choice))
    calls = delta.get("tool_calls")
    if isinstance(calls, list) and calls:
        fn = _dict(_dict(calls[0]).get("function"))
        # Whether a delta starts a call is the stream's memory (flow.wire.chat.ChatStream), which the summary states: a name
        # sent again in every delta starts nothing.
        if fn.get("name") and re.match(r"chunk \d+: tool_call .* starts", hop.summary):
            return _w("chunk", lang, n=n, what=_w("chunk_name", lang, name=fn["name"]))
        return _w("chunk", lang, n=n, what=f"arguments += {fn.get('arguments', '')!r}")
    content = delta.get("content")
    if isinstance(content, str) and (content or not delta.get("role")):
        return _w("chunk", lang, n=n, what=f"content += {content!r}")
    return _w("chunk", lang, n=n, what=f"role {delta.get('role', '')}".strip())


def _failure_text(hop: Hop, lang: Lang) -> str:
    """A failure the app detected: the bad arguments' reason, or what failed, as the payload says it."""
    got = _dict(hop.payload)
    if "tool_call" in got and got.get("error"):
        return _w("bad_arguments", lang, why=_value_text(got["error"]))
    said = _first_text(got, "message_zh") if lang == "zh" else ""  # the line as the user was told it, in Chinese
    return said or _w(
        "failure", lang, what=_first_text(got, "message", "error", "method") or KIND_NAMES[hop.kind][lang]
    )


def short_label(hop: Hop, width: int = 32, *, lang: Lang = "en") -> str:
    """The arrow's label as text, its lines (see `label_lines`) joined by newlines."""
    return "\n".join(label_lines(hop, width, lang=lang))


def arrow_style(hop: Hop) -> Literal["request", "response", "notification", "error", "self"]:
    if hop.kind in ("error", "mcp.error", "llm.error", "replay.divergence") or hop.direction == "error":
        return "error"
    if hop.source == hop.target:
        return "self"
    if hop.direction == "notification":
        return "notification"
    if hop.direction == "response" or hop.kind in ("llm.chunk", "tool.list", "client.result", "app.answer"):
        return "response"
    return "request"


_UPSTREAM = {"mcp_server": "mcp_client", "model": "app", "tool": "app", "mcp_client": "app"}


def is_reply(hop: Hop) -> bool:
    """Does this hop travel back toward the one who asked?"""
    return (
        hop.direction == "response"
        or hop.kind in ("mcp.response", "mcp.error", "llm.response", "llm.error", "llm.chunk", "tool.result")
        or _UPSTREAM.get(hop.source) == hop.target
    )


def pretty(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)
