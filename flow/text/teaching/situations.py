"""Which situation a hop is in, and the values its text is filled with: read from the hop's own payload.

A payload is whatever was recorded (or written by hand), so every part is taken through `as_dict` / `as_list`
and checked for its type: an odd payload gets a plainer situation, never an exception. Values filled in are the
payload's own (clipped to a line's worth, whitespace folded); counts the text states are kept apart, as derived.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from flow.text.teaching.texts import FALLBACK
from flow.trace.model import Hop, as_dict, as_list

VALUE_CHARS = 48


"""A value filled into a text is clipped to this many characters (then "…")."""


LIST_ITEMS = 6


"""A list filled into a text shows this many items (then "…")."""


@dataclass(frozen=True)
class HopContext:
    """What a hop's text may need from its neighbours: the hop just before it, and how many tools/call requests
    (other than this hop) were sent and not yet answered when it crossed."""

    previous: Hop | None = None
    calls_waiting: int = 0


@dataclass(frozen=True)
class Situation:
    """A text's key, the values from the payload it is filled with (a str, or a list of them), and the counts or
    defaults the app worked out (`derived`)."""

    key: str
    fills: dict[str, str | list[str]] = field(default_factory=dict)
    derived: dict[str, str] = field(default_factory=dict)


def hop_contexts(hops: Sequence[Hop]) -> list[HopContext]:
    """Each hop's context, in one pass over the trace."""
    out: list[HopContext] = []
    waiting: set[Any] = set()
    previous: Hop | None = None
    for hop in hops:
        payload = as_dict(hop.payload)
        rpc_id = payload.get("id", hop.jsonrpc_id)
        if hop.kind in ("mcp.response", "mcp.error"):
            waiting.discard(_hashable(rpc_id))
        out.append(HopContext(previous=previous, calls_waiting=len(waiting)))
        if hop.kind == "mcp.request" and payload.get("method") == "tools/call":
            waiting.add(_hashable(rpc_id))
        elif hop.kind == "error" and hop.step == 7:
            waiting.clear()  # the client gave up on what it was waiting for
        previous = hop
    return out


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else repr(value)


# --- values ---------------------------------------------------------------------------------------------------------


_SPACE = re.compile(r"\s+")


def value(v: Any) -> str | None:
    """A scalar of the payload as a text shows it: strings with whitespace folded and clipped, numbers and
    true/false as JSON writes them; None for anything else (or an empty string)."""
    if isinstance(v, str):
        text = _SPACE.sub(" ", v).strip()
        if not text:
            return None
        return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1].rstrip() + "…"
    if isinstance(v, bool) or (isinstance(v, (int, float)) and v == v and abs(v) != float("inf")):
        return json.dumps(v)
    return None


def _raw(v: Any) -> str | None:
    """A string value exactly as it came, for one that is code (an arguments string, a fragment): clipped, not
    folded, so what the class reads is what the model wrote."""
    if not isinstance(v, str) or not v:
        return None
    text = v.replace("\n", " ").replace("\r", " ").replace("\t", " ")
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def _names(items: Any, key: str = "name") -> list[str]:
    """The `key` of each object in a list, those that are text."""
    out = []
    for item in as_list(items):
        v = value(as_dict(item).get(key))
        if v is not None:
            out.append(v)
    return out


def _fills(**values: Any) -> dict[str, str | list[str]] | None:
    """The values, when every one is there (a str, or a list that may be empty); None when one is missing."""
    out: dict[str, str | list[str]] = {}
    for name, v in values.items():
        if v is None:
            return None
        out[name] = v
    return out


def _situation(key: str, derived: dict[str, str] | None = None, **values: Any) -> Situation | None:
    fills = _fills(**values)
    return None if fills is None else Situation(key, fills, derived or {})


# --- the situations --------------------------------------------------------------------------------------------------


def situation(hop: Hop, context: HopContext | None = None) -> Situation:
    """The hop's situation: the most specific one its payload supports, else the fallback."""
    context = context or HopContext()
    found = _by_kind(hop, as_dict(hop.payload), context)
    return found or Situation(FALLBACK)


def _by_kind(hop: Hop, p: dict[str, Any], ctx: HopContext) -> Situation | None:
    kind = hop.kind
    if kind == "prepare.tools":
        tools = _names(p.get("tools")) or _names([as_dict(t).get("function") for t in as_list(p.get("tools"))])
        return _situation("prepare.direct" if "written_by" in p or hop.source == "app" else "prepare.mcp", tools=tools)
    if kind == "user.message":
        prompt = value(as_dict(p.get("prompt")).get("name"))
        if prompt is not None:
            return _situation("question.prompt", prompt=prompt)
        return _situation("question", question=value(p.get("content")))
    if kind == "tool.list":
        return _situation("direct.tools", tools=_names([as_dict(t).get("function") for t in as_list(p.get("tools"))]))
    if kind == "client.result":
        return _client_result(p)
    if kind in ("mcp.request", "mcp.notification"):
        return _frame_out(hop, p, ctx)
    if kind == "mcp.response":
        return _frame_back(hop, p)
    if kind == "mcp.error":
        err = as_dict(p.get("error"))
        return _situation(
            "rpc.error",
            id=value(p.get("id", hop.jsonrpc_id)),
            code=value(err.get("code")),
            message=value(err.get("message")),
        )
    if kind == "translate.forward":
        if "content" in p:  # a prompt's messages or a resource's contents, translated for the chat API
            hows = [v for v in (value(h) for h in as_list(p.get("content"))) if v]
            if any(h not in ("text", "resource_text", "blob_as_text") for h in hows):
                return _situation("translate.content.mixed", what=value(p.get("what")), hows=hows)
            return _situation("translate.content", what=value(p.get("what")))
        return _situation("translate.forward", tools=_names(p.get("mcp")))
    if kind == "llm.request":
        return _ask(hop, p)
    if kind == "llm.response":
        return _model_answer(hop, as_dict(p.get("body")))
    if kind == "llm.chunk":
        return _chunk(p)
    if kind == "llm.assembled":
        return _assembled(p)
    if kind == "llm.error":
        return _model_error(p)
    if kind == "translate.reverse":
        return _reverse(hop, p)
    if kind == "tool.invoke":
        return _invoke(hop, p)
    if kind == "tool.result":
        return _result(hop, p)
    if kind == "app.answer":
        return _situation("answer.shown", content=value(p.get("content")))
    if kind == "error":
        return _failure(hop, p, ctx)
    if kind == "replay.divergence":
        return (
            _situation("replay.divergence", request_number=value(p.get("request_number")))
            or _situation("replay.divergence.tool", tool_call_id=value(p.get("tool_call_id")))
            or Situation("replay.divergence.plain")
        )
    return None


def _client_result(p: dict[str, Any]) -> Situation | None:
    if "tools" in p:
        return _situation("client.tools", tools=_names(p.get("tools")))
    if "uri" in p:
        return _situation("client.resource", uri=value(p.get("uri")))
    if "prompt" in p:
        return _situation("client.prompt", prompt=value(p.get("prompt")))
    return Situation("client.other")


_LIST_CHANGED = re.compile(r"^notifications/\w+/list_changed$")


def _frame_out(hop: Hop, p: dict[str, Any], ctx: HopContext) -> Situation | None:
    """A request or a notification, by its method."""
    method = p.get("method")
    params = as_dict(p.get("params"))
    rpc_id = value(p.get("id", hop.jsonrpc_id))
    if not isinstance(method, str):
        return None
    if hop.kind == "mcp.notification":
        if method == "notifications/initialized":
            return Situation("initialized")
        if method == "notifications/progress":
            token, progress = value(params.get("progressToken")), value(params.get("progress"))
            return _situation("progress", token=token, progress=progress, total=value(params.get("total"))) or (
                _situation("progress.open", token=token, progress=progress)
            )
        if method == "notifications/message":
            data = params.get("data")
            return _situation("log", level=value(params.get("level")), data=value(data) or _raw(_json(data)))
        if method == "notifications/cancelled":
            return _situation("cancelled", request_id=value(params.get("requestId"))) or _situation(
                "rpc.notification", method=value(method)
            )
        if _LIST_CHANGED.match(method):
            return _situation("list_changed", method=value(method))
        return _situation("rpc.notification", method=value(method))
    meta = as_dict(params.get("_meta"))
    if method == "initialize":
        return _situation(
            "initialize.request",
            id=rpc_id,
            version=value(params.get("protocolVersion")),
            client=value(as_dict(params.get("clientInfo")).get("name")),
        )
    if method == "server/discover":
        return _situation(
            "discover.request", id=rpc_id, version=value(meta.get("io.modelcontextprotocol/protocolVersion"))
        )
    if method == "tools/list":
        return _situation("tools_list.request", id=rpc_id)
    if method == "resources/list":
        return _situation("resources_list.request", id=rpc_id)
    if method == "resources/read":
        return _situation("resources_read.request", id=rpc_id, uri=value(params.get("uri")))
    if method == "prompts/list":
        return _situation("prompts_list.request", id=rpc_id)
    if method == "prompts/get":
        return _situation("prompts_get.request", id=rpc_id, prompt=value(params.get("name")))
    if method == "tools/call":
        name = value(params.get("name"))
        if ctx.calls_waiting:
            return _situation("call.request.in_flight", {"waiting": str(ctx.calls_waiting)}, id=rpc_id, name=name)
        return _situation("call.request", id=rpc_id, name=name)
    return _situation("rpc.request", id=rpc_id, method=value(method))


def _frame_back(hop: Hop, p: dict[str, Any]) -> Situation | None:
    """A result frame, by its shape: a result names no method, and a text needs none of its neighbours."""
    result = as_dict(p.get("result"))
    rpc_id = value(p.get("id", hop.jsonrpc_id))
    caps = sorted(as_dict(result.get("capabilities")))
    if "supportedVersions" in result:
        versions = [v for v in (value(x) for x in as_list(result.get("supportedVersions"))) if v]
        return _situation("discover.result", id=rpc_id, versions=versions, capabilities=caps)
    if "protocolVersion" in result:
        return _situation(
            "initialize.result", id=rpc_id, version=value(result.get("protocolVersion")), capabilities=caps
        )
    if "isError" in result or "content" in result:
        text = next((t for t in (value(as_dict(b).get("text")) for b in as_list(result.get("content"))) if t), None)
        if result.get("isError") is True:
            return _situation("result.wire.failed", id=rpc_id, is_error="true", text=text or "")
        return _situation("result.wire.ok", id=rpc_id, is_error=value(result.get("isError", False)))
    if "tools" in result:
        return _situation("tools_list.result", id=rpc_id, tools=_names(result.get("tools")))
    if "resources" in result:
        return _situation("resources_list.result", uris=_names(result.get("resources"), "uri"))
    if "contents" in result:
        first = as_dict(next(iter(as_list(result.get("contents"))), None))
        return _situation("resources_read.result", uri=value(first.get("uri")), mime=value(first.get("mimeType")))
    if "prompts" in result:
        return _situation("prompts_list.result", prompts=_names(result.get("prompts")))
    if "messages" in result:
        return _situation("prompts_get.result", roles=_names(result.get("messages"), "role"))
    return _situation("rpc.result", id=rpc_id)


def _json(v: Any) -> str | None:
    try:
        return json.dumps(v, ensure_ascii=False) if v is not None else None
    except (TypeError, ValueError):
        return None


def _ask(hop: Hop, p: dict[str, Any]) -> Situation | None:
    body = as_dict(p.get("body"))
    messages = as_list(body.get("messages"))
    count = {"messages": str(len(messages))}
    if hop.step == 3:
        choice = body.get("tool_choice", "auto")
        shown = value(choice) or value(as_dict(as_dict(choice).get("function")).get("name"))
        derived = {**count, "tools": str(len(as_list(body.get("tools"))))}
        if "tool_choice" not in body:
            derived["choice"] = "auto"
            return _situation("ask.first", derived)
        return _situation("ask.first", derived, choice=shown)
    if hop.step == 8:
        results = [as_dict(m) for m in messages if as_dict(m).get("role") == "tool"]
        ids = [v for v in (value(m.get("tool_call_id")) for m in results) if v]
        adapted = [as_dict(a) for a in as_list(p.get("adapted"))]
        paths = [v for v in (value(a.get("path")) for a in adapted) if v]
        if paths:  # what the app changed so that every compatible server takes the request (RunOptions.adapt)
            return _situation("ask.backfill.adapted", {**count, "results": str(len(results))}, ids=ids, path=paths[0])
        return _situation("ask.backfill", {**count, "results": str(len(results))}, ids=ids)
    return _situation("ask.other", count)


def _calls(message: dict[str, Any]) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    calls = [as_dict(c) for c in as_list(message.get("tool_calls"))]
    names = [v for v in (value(as_dict(c.get("function")).get("name")) for c in calls) if v]
    ids = [v for v in (value(c.get("id")) for c in calls) if v]
    return names, ids, calls


def _model_answer(hop: Hop, body: dict[str, Any]) -> Situation | None:
    choice = as_dict(next(iter(as_list(body.get("choices"))), None))
    message = as_dict(choice.get("message"))
    finish = value(choice.get("finish_reason"))
    names, ids, calls = _calls(message)
    if len(calls) > 1:
        return _situation("decide.parallel", {"count": str(len(calls))}, names=names, ids=ids)
    if calls:
        fn = as_dict(calls[0].get("function"))
        return _situation(
            "decide.one",
            name=value(fn.get("name")),
            arguments=_raw(fn.get("arguments")),
            id=value(calls[0].get("id")),
            finish=finish,
        )
    content = value(message.get("content"))
    if hop.round <= 1:
        return _situation("answer.at_once", content=content, finish=finish)
    tokens = value(as_dict(body.get("usage")).get("prompt_tokens"))
    return (
        _situation("answer.after_tools", content=content, finish=finish, prompt_tokens=tokens)
        or _situation("answer.after_tools.no_usage", content=content, finish=finish)
        or Situation("response.other")
    )


def _chunk(p: dict[str, Any]) -> Situation | None:
    data = p.get("data")
    if data == "[DONE]":
        return Situation("chunk.done")
    data = as_dict(data)
    choices = as_list(data.get("choices"))
    usage = as_dict(data.get("usage"))
    if not choices and usage:
        return _situation(
            "chunk.usage",
            prompt_tokens=value(usage.get("prompt_tokens")),
            completion_tokens=value(usage.get("completion_tokens")),
        )
    choice = as_dict(next(iter(choices), None))
    delta = as_dict(choice.get("delta"))
    finish = value(choice.get("finish_reason"))
    if finish is not None:
        return _situation("chunk.finish", finish=finish)
    calls = [as_dict(c) for c in as_list(delta.get("tool_calls"))]
    if calls:
        call = calls[0]
        fn = as_dict(call.get("function"))
        if "id" in call or "name" in fn:
            return _situation("chunk.call_start", id=value(call.get("id")), name=value(fn.get("name")))
        return _situation("chunk.arguments", index=value(call.get("index")), fragment=_raw(fn.get("arguments")))
    if isinstance(delta.get("content"), str) and delta["content"]:
        return _situation("chunk.content", delta=_raw(delta["content"]))
    if "role" in delta:
        return _situation("chunk.role", role=value(delta.get("role")))
    return Situation("chunk.other")


def _assembled(p: dict[str, Any]) -> Situation | None:
    message = as_dict(p.get("message"))
    finish = value(p.get("finish_reason"))
    names, ids, calls = _calls(message)
    if calls:
        return _situation("assembled.calls", names=names, ids=ids, finish=finish)
    return _situation("assembled.content", content=value(message.get("content")), finish=finish)


# What a server says when it refused the request itself, whatever status it gave (llama-cpp-python: 500 for
# FastAPI's validation errors): then the request is what must change, and sending it again fails the same way.
_REFUSED = re.compile(r"\bvalidation errors?\b|\bInput should be\b|\bField required\b|\binvalid_request_error\b")


def _model_error(p: dict[str, Any]) -> Situation | None:
    status = p.get("status")
    if isinstance(status, int) and not isinstance(status, bool):
        err = as_dict(as_dict(p.get("body")).get("error"))
        message = value(err.get("message")) or ""
        key = {401: "model.401", 403: "model.401", 404: "model.404", 429: "model.429"}.get(status)
        if key is None and 500 <= status <= 599:
            refused = _REFUSED.search(message) or err.get("type") == "invalid_request_error"
            key = "model.5xx.refused" if refused else "model.5xx"
        if key is not None and message:
            return _situation(key, status=value(status), message=message)
        return _situation("model.status", status=value(status))
    error = p.get("error")
    if error == "deadline" or "limit_s" in p:
        return _situation("model.deadline", limit_s=value(p.get("limit_s")))
    if error == "too large" or "limit_bytes" in p:
        return _situation("model.too_large", limit_bytes=value(p.get("limit_bytes")))
    if error == "malformed response" or "reason" in p:
        return _situation("model.malformed", reason=value(p.get("reason")))
    return _situation("model.unreachable", error=value(error))


def _reverse(hop: Hop, p: dict[str, Any]) -> Situation:
    call = as_dict(p.get("tool_call"))
    fn = as_dict(call.get("function"))
    key = "reverse.direct" if hop.target == "tool" else "reverse.mcp"
    return _situation(
        key, arguments=_raw(fn.get("arguments")), name=value(fn.get("name")), id=value(call.get("id", hop.tool_call_id))
    ) or Situation(FALLBACK)


def _invoke(hop: Hop, p: dict[str, Any]) -> Situation | None:
    name = next((v for v in (value(p.get(k)) for k in ("function", "name", "tool")) if v), None)
    if hop.source == "mcp_server":
        return _situation("invoke.server", function=name) or Situation("invoke.server.unnamed")
    return _situation("invoke.direct", function=name)


def _result(hop: Hop, p: dict[str, Any]) -> Situation | None:
    call_id = value(hop.tool_call_id)
    if hop.source == "tool" and hop.target == "mcp_server":
        failed = p.get("isError") is True or as_dict(p.get("result")).get("isError") is True
        return Situation("result.server.failed" if failed else "result.server")
    if "error" in p and "result" not in p:  # the JSON-RPC error, handed on: no CallToolResult exists
        return _situation("result.app.rpc_error", id=call_id, code=value(as_dict(p.get("error")).get("code")))
    if "result" in p:
        result = as_dict(p.get("result"))
        failed = result.get("isError") is True
        return _situation(
            "result.app.failed" if failed else "result.app.ok", id=call_id, is_error=value(result.get("isError", False))
        )
    if "return" in p or "isError" in p:
        failed = p.get("isError") is True
        return _situation(
            "result.direct.failed" if failed else "result.direct.ok",
            id=call_id,
            is_error=value(p.get("isError", False)),
        )
    return Situation("result.other")


def _failure(hop: Hop, p: dict[str, Any], ctx: HopContext) -> Situation | None:
    error = p.get("error")
    if hop.step == 5 and "tool_call" in p:
        call = as_dict(p.get("tool_call"))
        fn = as_dict(call.get("function"))
        key = "arguments.not_json" if isinstance(error, str) and "not valid JSON" in error else "arguments.schema"
        return _situation(
            key, name=value(fn.get("name")), arguments=_raw(fn.get("arguments")), id=value(call.get("id"))
        )
    if error in ("connection closed", "timeout"):
        key = "server.closed" if error == "connection closed" else "server.timeout"
        return _situation(key, code=value(as_dict(p.get("sdk_error")).get("code")))
    if "http" in p:
        http = as_dict(p.get("http"))
        call = as_dict(http.get("jsonrpc"))
        return _situation("server.http", method=value(call.get("method")) or value(http.get("method")))
    if hop.source == "mcp_server" and isinstance(error, str):
        return _situation("server.broke", error=value(error))
    if hop.step == 10:
        before = ctx.previous
        if before is not None and before.kind == "llm.error":
            return Situation("end.model_failed")
        if before is not None and before.kind == "error" and before.source == "mcp_server":
            return Situation("end.server_failed")
        if before is not None and _asks_for_tools(before):
            return Situation("end.round_limit")
        return Situation("end.failed")
    return Situation("failure.other")


def _asks_for_tools(hop: Hop) -> bool:
    """The hop is the model asking for tools (a response or an assembled stream with tool_calls)."""
    p = as_dict(hop.payload)
    if hop.kind == "llm.assembled":
        return bool(as_list(as_dict(p.get("message")).get("tool_calls")))
    if hop.kind == "llm.response":
        choice = as_dict(next(iter(as_list(as_dict(p.get("body")).get("choices"))), None))
        return bool(as_list(as_dict(choice.get("message")).get("tool_calls")))
    return False
