"""One constructor per hop kind (or per situation of a kind): what crossed, typed with its kind's payload.

A constructor decides once what every producer of that hop would otherwise decide on its own: the kind, the two
sides, the direction, the step and the line a table or an arrow shows. It returns a `Draft`; the recorder stamps a
draft with its counter, its clock and its secrets (`flow.capture.recorder.Recorder.add`), an importer or a merge
with the times the recording holds (`flow.interop.common.Hops.add`). No producer passes a payload of no type.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from flow.trace.model import Actor, Direction, Hop, Kind, Usage, as_dict, as_list, is_array, is_object, usage_counts
from flow.trace.payloads import (
    AppAnswerPayload,
    CallRequest,
    ClientResultPayload,
    ErrorPayload,
    Json,
    JsonObject,
    LlmAssembledPayload,
    LlmChunkPayload,
    LlmErrorPayload,
    LlmRequestPayload,
    LlmResponsePayload,
    McpErrorPayload,
    McpNotificationPayload,
    McpReportedPayload,
    McpRequestPayload,
    McpResponsePayload,
    Payload,
    PrepareToolsPayload,
    PromptRef,
    ReplayDivergencePayload,
    RpcError,
    ServerAsk,
    StructuredCheck,
    ToolCall,
    ToolInvokePayload,
    ToolListPayload,
    ToolResultPayload,
    TranslateForwardPayload,
    TranslateReversePayload,
    UserInputPayload,
    UserMessagePayload,
    payload_of,
)
from flow.trace.reports import ExecutionReport
from flow.trace.steps import Phase, Step
from flow.trace.summaries import call_text, counted, frame_kind, frame_summary

P = TypeVar("P", covariant=True)

McpPayload = McpRequestPayload | McpResponsePayload | McpErrorPayload | McpNotificationPayload


@dataclass(frozen=True, slots=True)
class Draft(Generic[P]):
    """A hop before it is numbered and timed: what crossed, from whom to whom, where in the flow, and its line."""

    kind: Kind
    source: Actor
    target: Actor
    payload: P
    step: Step | None
    direction: Direction = "event"
    summary: str = ""
    jsonrpc_id: int | str | None = None
    tool_call_id: str | None = None
    usage: Usage | None = None
    progress_of: int | str | None = None  # the request a progress notification reports on
    phase: Phase | None = None  # the step's phase unless said
    session: int | None = None  # the MCP session a frame crossed in, when a recording holds several


def _names(tools: Sequence[Any], *, nested: bool = False) -> str:
    return ", ".join(str((t.get("function") if nested else t).get("name")) for t in tools)


# --- step 0 and 1: the tools as built, the question --------------------------------------------------------------


def tools_built(tools: list[JsonObject], built_from: str) -> Draft[PrepareToolsPayload]:
    """MCP mode: the tool list the server's decorators built, before anyone asks."""
    return Draft(
        "prepare.tools",
        "mcp_server",
        "mcp_server",
        {"built_from": built_from, "tools": tools},
        Step.TOOLS_EXIST,
        summary="tools built from decorated functions: " + _names(tools),
    )


def tools_written(tools: list[JsonObject], written_by: str) -> Draft[PrepareToolsPayload]:
    """Direct mode: the function schemas written by hand in the app."""
    return Draft(
        "prepare.tools",
        "app",
        "app",
        {"written_by": written_by, "tools": tools},
        Step.TOOLS_EXIST,
        summary="hand-written schemas: " + _names(tools, nested=True),
    )


def question(content: str, prompt: PromptRef | None = None) -> Draft[UserMessagePayload]:
    payload: UserMessagePayload = {"content": content}
    if prompt is not None:
        payload["prompt"] = prompt
    return Draft("user.message", "user", "app", payload, Step.QUESTION, summary=content)


# --- step 2: what the app has to offer -----------------------------------------------------------------------------


def local_tools(tools: list[JsonObject]) -> Draft[ToolListPayload]:
    """Direct mode: the app's own function schemas, as the model API takes them."""
    names = [str(t.get("function", t).get("name")) for t in tools]
    return Draft(
        "tool.list",
        "tool",
        "app",
        {"tools": tools},
        Step.LIST_TOOLS,
        "response",
        f"{len(tools)} local functions: " + ", ".join(names),
    )


def tools_listed(tools: list[JsonObject]) -> Draft[ClientResultPayload]:
    """The MCP client hands the app the server's tool list."""
    return Draft(
        "client.result",
        "mcp_client",
        "app",
        {"tools": tools},
        Step.LIST_TOOLS,
        "response",
        f"{len(tools)} tools: " + _names(tools),
    )


def offered(listed: dict[str, list[JsonObject]]) -> Draft[ClientResultPayload]:
    """What a server offers, listed with no model involved (`mcp-flow tools`)."""
    payload: ClientResultPayload = {
        "tools": listed["tools"],
        "resources": listed["resources"],
        "prompts": listed["prompts"],
    }
    summary = ", ".join(f"{len(v)} {k}" for k, v in listed.items())
    return Draft("client.result", "mcp_client", "app", payload, Step.LIST_TOOLS, "response", summary)


def resource_read(uri: str, result: JsonObject, text: str) -> Draft[ClientResultPayload]:
    return Draft(
        "client.result",
        "mcp_client",
        "app",
        {"uri": uri, "result": result},
        Step.LIST_TOOLS,
        "response",
        f"resource {uri}: {' '.join(text.split())[:50]}",
    )


def prompt_fetched(name: str, result: JsonObject, as_chat: list[JsonObject]) -> Draft[ClientResultPayload]:
    return Draft(
        "client.result",
        "mcp_client",
        "app",
        {"prompt": name, "result": result, "as_chat_messages": as_chat},
        Step.LIST_TOOLS,
        "response",
        f"prompt {name}: {counted(len(as_chat), 'message')}",
    )


def content_translated(
    what: str, mcp: list[Any], chat: list[JsonObject], hows: list[str]
) -> Draft[TranslateForwardPayload]:
    """The app's translation of MCP content (a prompt's messages, a resource's contents) into what the model API
    takes: each block, what it became, and how."""
    kinds = [str(b.get("type") or "text") if is_object(b) and "type" in b else "contents" for b in mcp]
    return Draft(
        "translate.forward",
        "app",
        "app",
        {"what": what, "mcp": mcp, "openai": chat, "content": hows},
        Step.LIST_TOOLS,
        summary=f"{what}: " + ", ".join(f"{k} → {h}" for k, h in zip(kinds, hows, strict=False)),
    )


# --- step 3: the forward translation -----------------------------------------------------------------------------


def tools_translated(
    mcp: list[JsonObject], translated: list[JsonObject], *, schema_field: str = "parameters"
) -> Draft[TranslateForwardPayload]:
    """Each MCP tool as the server listed it, and the tool definition the model API is sent; `schema_field` is
    where that API wants the schema (`parameters`; Messages: `input_schema`)."""
    return Draft(
        "translate.forward",
        "app",
        "app",
        {"mcp": mcp, "openai": translated},
        Step.ASK_MODEL,
        summary=f"inputSchema → {schema_field} for " + _names(mcp),
    )


# --- MCP frames ------------------------------------------------------------------------------------------------------


_FRAME_DIRECTION: dict[Kind, Direction] = {
    "mcp.request": "request",
    "mcp.notification": "notification",
    "mcp.error": "error",
    "mcp.response": "response",
}


def frame(
    message: JsonObject,
    *,
    source: Actor,
    target: Actor,
    step: Step | None,
    method: str | None = None,
    summary: str = "",
    progress_of: int | str | None = None,
) -> Draft[McpPayload]:
    """One JSON-RPC frame as the transport carried it; `method` is the request's, for an answer. A request whose id
    is null (a log may hold one: the spec discourages it) is answered by no one, so it is a notification."""
    kind = frame_kind(message)
    if kind == "mcp.request" and message.get("id") is None:
        kind = "mcp.notification"
    return Draft(
        kind,
        source,
        target,
        message,  # type: ignore[arg-type]  # frame_kind read its shape
        step,
        _FRAME_DIRECTION[kind],
        summary or frame_summary(message, method),
        jsonrpc_id=message.get("id"),
        progress_of=progress_of,
    )


def recorded(hop: Hop, *, tool_call_id: str | None = None) -> Draft[Payload]:
    """A hop another reader made with these constructors (the JSON-RPC log importer's, which a merge places again on
    its own clock): what crossed, as that reader said it, its payload checked against its kind's type when that
    reader's trace was finished; `tool_call_id`, the model's call it belongs to, when the merge has learnt it."""
    return Draft(
        hop.kind,
        hop.source,
        hop.target,
        hop.payload,
        hop.step,
        hop.direction,
        hop.summary,
        jsonrpc_id=hop.jsonrpc_id,
        tool_call_id=tool_call_id or hop.tool_call_id,
        usage=hop.usage,
        progress_of=hop.progress_of,
        phase=hop.phase,
        session=hop.session,
    )


def provider_reported(payload: McpReportedPayload, *, answer: bool, summary: str) -> Draft[McpReportedPayload]:
    """Hosted MCP: one side of an MCP exchange as the model provider reports it (its request to the server, or the
    server's answer), drawn between the provider's MCP client and the server like the frames it stands for, in the
    step those frames would have; its kind says it was reported, not seen."""
    listing = payload.get("method") == "tools/list"
    step = Step.LIST_TOOLS if listing else Step.TOOL_RESULT if answer else Step.CALL_TOOL
    if not answer:
        return Draft("mcp.reported", "mcp_client", "mcp_server", payload, step, "request", summary)
    direction: Direction = "error" if payload.get("is_error") else "response"
    return Draft("mcp.reported", "mcp_server", "mcp_client", payload, step, direction, summary)


# --- the model's side --------------------------------------------------------------------------------------------


def model_request(
    payload: LlmRequestPayload, *, step: Step | None, path: str, carries: str
) -> Draft[LlmRequestPayload]:
    """The HTTP request the SDK sent; `carries` is the model API's line of what its body holds. A request made for
    an MCP server (sampling, `for_server`) is sent by the host's MCP client, in the step of the call that asked."""
    adapted = payload.get("adapted") or []
    summary = f"{payload.get('method', 'POST')} {path}: {carries}" + (
        f", {len(adapted)} adapted by the app" if adapted else ""
    )
    if "for_server" in payload:
        return Draft(
            "llm.request", "mcp_client", "model", payload, Step.CALL_TOOL, "request", f"for the server: {summary}"
        )
    return Draft("llm.request", "app", "model", payload, step, "request", summary)


def model_response(payload: LlmResponsePayload, *, step: Step, summary: str) -> Draft[LlmResponsePayload]:
    """A whole response; its step (the decision or the answer) and line are read by the model API's format; one
    for an MCP server's sampling request goes back to the host's MCP client, in the step of the call."""
    body = payload.get("body")
    usage = usage_counts(body.get("usage") if is_object(body) else None)
    if "for_server" in payload:
        summary = f"for the server: {summary}"
        return Draft("llm.response", "model", "mcp_client", payload, Step.CALL_TOOL, "response", summary, usage=usage)
    return Draft("llm.response", "model", "app", payload, step, "response", summary, usage=usage)


# --- a server asks the user ------------------------------------------------------------------------------------------


def user_asked(payload: UserInputPayload) -> Draft[UserInputPayload]:
    """The host puts a server's question to the user (elicitation), in the step of the call that asked."""
    what = payload.get("url") if payload.get("mode") == "url" else payload.get("message", "")
    return Draft("user.input", "app", "user", payload, Step.CALL_TOOL, "request", f"the server asks: {what}")


def user_answered(payload: UserInputPayload) -> Draft[UserInputPayload]:
    """The user's answer to a server's question: accept (with the form's values), decline or cancel."""
    action = payload.get("action", "cancel")
    content = payload.get("content")
    shown = ", ".join(f"{k}={v}" for k, v in content.items()) if action == "accept" and content else ""
    if "timed_out" in payload:
        shown = f"no answer within {payload['timed_out']:g} s"
    summary = f"{action}" + (f": {shown}" if shown else "")
    return Draft("user.input", "user", "app", payload, Step.CALL_TOOL, "response", summary)


def server_ask(method: str, *, jsonrpc_id: int | str | None = None, key: str | None = None) -> ServerAsk:
    """Which request of the server the host answers: by its JSON-RPC id (2025-11-25) or input-request key."""
    ask: ServerAsk = {"method": method}
    if jsonrpc_id is not None:
        ask["jsonrpc_id"] = jsonrpc_id
    if key is not None:
        ask["key"] = key
    return ask


def model_chunk(payload: LlmChunkPayload, *, step: Step, summary: str) -> Draft[LlmChunkPayload]:
    """One event of a streamed response, with its line (`flow.wire`'s stream says what it did)."""
    data = as_dict(payload.get("data"))
    usage = data.get("usage")
    if data.get("type") == "response.completed":  # Responses: the usage is the completed response's
        usage = as_dict(data.get("response")).get("usage")
    elif data.get("type") == "message_start":  # Messages: the input here; the output in message_delta, whole
        usage = {"input_tokens": as_dict(as_dict(data.get("message")).get("usage")).get("input_tokens")}
    return Draft("llm.chunk", "model", "app", payload, step, "response", summary, usage=usage_counts(usage))


def model_failed(payload: LlmErrorPayload, *, step: Step | None, summary: str) -> Draft[LlmErrorPayload]:
    """A model call that failed: an HTTP error status, a transport failure, a limit crossed, an unreadable answer."""
    return Draft("llm.error", "model", "app", payload, step, "error", summary)


def assembled(message: Any, finish: str | None, *, decided: bool, summary: str) -> Draft[LlmAssembledPayload]:
    """The message the app assembled from a stream."""
    step = Step.DECISION if decided else Step.MODEL_ANSWER
    return Draft("llm.assembled", "app", "app", {"message": message, "finish_reason": finish}, step, summary=summary)


# --- steps 5 to 7: the call ------------------------------------------------------------------------------------------


def reverse_translation(
    tool_call: ToolCall, request: CallRequest, *, target: Actor, api_call: JsonObject | None = None
) -> Draft[TranslateReversePayload]:
    """The tool call's arguments become a call request: to the MCP client, or to the function in direct mode.
    `api_call` is the call as an API other than Chat Completions wrote it (a Responses `function_call` item, a
    Messages `tool_use` block), beside the call in Chat Completions' form that the app reads."""
    payload: TranslateReversePayload = {"tool_call": tool_call, "call_request": request}
    if api_call is not None:
        payload["api_call"] = api_call
    return Draft(
        "translate.reverse",
        "app",
        target,
        payload,
        Step.REVERSE_TRANSLATION,
        "request",
        "call " + call_text(request["name"], request["arguments"]),
        tool_call_id=tool_call["id"],
    )


def arguments_refused(tool_call: ToolCall, reason: str, *, api_call: JsonObject | None = None) -> Draft[ErrorPayload]:
    """Arguments the app cannot use: nothing leaves the app, and the error goes back to the model in step 8."""
    payload: ErrorPayload = {"tool_call": tool_call, "error": reason, "sent_back_to_model": True}
    if api_call is not None:
        payload["api_call"] = api_call
    return Draft(
        "error",
        "app",
        "app",
        payload,
        Step.REVERSE_TRANSLATION,
        "error",
        f"bad arguments: {reason}",
        tool_call_id=tool_call["id"],
    )


def function_called(name: str, kwargs: JsonObject, call_id: str) -> Draft[ToolInvokePayload]:
    """Direct mode: the app calls its own function."""
    return Draft(
        "tool.invoke",
        "app",
        "tool",
        {"function": name, "kwargs": kwargs},
        Step.CALL_TOOL,
        "request",
        call_text(name, kwargs),
        tool_call_id=call_id,
    )


def function_returned(value: Any, content: str, *, is_error: bool, call_id: str) -> Draft[ToolResultPayload]:
    """Direct mode: what the function returned (or raised), and the text the model will read."""
    return Draft(
        "tool.result",
        "tool",
        "app",
        {"return": value, "isError": is_error, "tool_message_content": content},
        Step.TOOL_RESULT,
        "error" if is_error else "response",
        ("isError: " if is_error else "") + content[:60],
        tool_call_id=call_id,
    )


def call_answered(
    result: JsonObject, content: str, *, call_id: str | None, structured: StructuredCheck | None = None
) -> Draft[ToolResultPayload]:
    """MCP mode: the CallToolResult the MCP client hands the app. A result with isError is an answer like any
    other on the wire (the tool failed, the protocol did not). `structured`: the host's check of its
    structuredContent, when the run checks it."""
    is_error = bool(result.get("isError"))
    payload: ToolResultPayload = {"result": result, "tool_message_content": content}
    if structured is not None:
        payload["structured"] = structured
    return Draft(
        "tool.result",
        "mcp_client",
        "app",
        payload,
        Step.TOOL_RESULT,
        "response",
        ("isError: " if is_error else "") + " ".join(content.split())[:60],
        tool_call_id=call_id,
    )


def call_refused(error: RpcError, *, call_id: str, source: Actor = "mcp_client") -> Draft[ToolResultPayload]:
    """MCP mode: a JSON-RPC error came back instead of a result. `source` is who handed the app the error: the MCP
    client, or the function itself where an imported span says a direct call failed with a numeric error code."""
    return Draft(
        "tool.result",
        source,
        "app",
        {"error": error},
        Step.TOOL_RESULT,
        "error",
        f"protocol error {error['code']}: {error['message']}",
        tool_call_id=call_id,
    )


def call_received(answer: Hop, sent: Json, *, call_id: str) -> Draft[ToolResultPayload]:
    """MCP mode, as a merge of the proxies' recordings infers it: the answer frame to a tools/call (an mcp.response
    or mcp.error hop) as the MCP client hands it to the app, its line as `call_answered` (the result's text) or
    `call_refused` words it; and what the app's next model request sent back under the call's tool_call_id (`sent`:
    a role "tool" message's content, None when no request sent it back)."""
    refused = payload_of(answer, "mcp.error")
    if refused is not None:
        draft = call_refused(refused["error"], call_id=call_id)
    else:
        answered = payload_of(answer, "mcp.response")
        result = answered["result"] if answered is not None else {}
        texts = [str(b.get("text")) for b in as_list(result.get("content")) if as_dict(b).get("type") == "text"]
        draft = call_answered(result, " ".join(texts), call_id=call_id)
    text, parts = _tool_message(sent)
    payload: ToolResultPayload = {**draft.payload, "tool_message_content": text}
    if parts is not None:
        payload["tool_message_parts"] = parts
    return replace(draft, payload=payload)


def _tool_message(content: Json) -> tuple[str, list[Json] | None]:
    """What a role "tool" message sent back: its text, and its parts when it was sent as a list of them (as
    openai-agents sends it), kept as they were; a text part's text is what the model reads of it."""
    if content is None:
        return "", None
    if isinstance(content, str):
        return content, None
    if is_array(content):
        texts = [str(p["text"]) for p in content if is_object(p) and p.get("type") == "text" and "text" in p]
        others = [p for p in content if not (is_object(p) and p.get("type") == "text")]
        text = "\n".join(texts)
        if others:
            text += ("\n" if text else "") + json.dumps(others, ensure_ascii=False)
        return text, content
    return json.dumps(content, ensure_ascii=False), None


def function_failed(payload: ErrorPayload, summary: str, *, call_id: str) -> Draft[ErrorPayload]:
    """Direct mode: a call of the function that failed with neither a value nor an error it returned (an imported
    span says only that it failed, and how)."""
    return Draft("error", "tool", "app", payload, Step.TOOL_RESULT, "error", summary, tool_call_id=call_id)


def run_reported(
    report: ExecutionReport, *, jsonrpc_id: int | str | None, call_id: str | None
) -> tuple[Draft[ToolInvokePayload], Draft[ToolResultPayload]]:
    """A server's own account of running the tool's function (`flow.trace.reports`): the call and its return,
    inside the server, drawn between the server and the function."""
    return (
        Draft(
            "tool.invoke",
            "mcp_server",
            "tool",
            report.invoke,
            Step.CALL_TOOL,
            "request",
            report.invoke_summary,
            jsonrpc_id=jsonrpc_id,
            tool_call_id=call_id,
        ),
        Draft(
            "tool.result",
            "tool",
            "mcp_server",
            report.result,
            Step.TOOL_RESULT,
            "error" if report.raised else "response",
            report.result_summary,
            jsonrpc_id=jsonrpc_id,
            tool_call_id=call_id,
        ),
    )


# --- step 10, failures, replay ---------------------------------------------------------------------------------------


def answer(content: str, *, empty_line: str) -> Draft[AppAnswerPayload]:
    """The answer shown to the user; `empty_line` is what the line says when the model wrote nothing."""
    summary = content[:80] if content.strip() else empty_line
    return Draft("app.answer", "app", "user", {"content": content}, Step.SHOW_ANSWER, summary=summary)


def run_failed(payload: ErrorPayload, summary: str, *, step: Step | None = Step.SHOW_ANSWER) -> Draft[ErrorPayload]:
    """The line the user gets where the answer would have been (step 10), or where a probe stopped."""
    return Draft("error", "app", "user", payload, step, "error", summary)


def server_failed(
    payload: ErrorPayload,
    summary: str,
    *,
    step: Step | None,
    jsonrpc_id: int | str | None = None,
    tool_call_id: str | None = None,
) -> Draft[ErrorPayload]:
    """What went wrong on the server's side as the client saw it: a frame it could not read, a request no answer
    came for, a process that died, an HTTP exchange that failed."""
    return Draft(
        "error",
        "mcp_server",
        "mcp_client",
        payload,
        step,
        "error",
        summary,
        jsonrpc_id=jsonrpc_id,
        tool_call_id=tool_call_id,
    )


def client_failed(payload: ErrorPayload, summary: str, *, step: Step | None) -> Draft[ErrorPayload]:
    """What went wrong on the client's side as the server saw it: a request the server sent (sampling,
    elicitation, roots) that failed with no answer frame."""
    return Draft("error", "mcp_client", "mcp_server", payload, step, "error", summary)


def line_unrecorded(
    payload: ErrorPayload, summary: str, *, from_client: bool, step: Step | None
) -> Draft[ErrorPayload]:
    """A line a proxy relayed but could not record as a frame (too large, or not JSON-RPC), from its sender."""
    source: Actor = "mcp_client" if from_client else "mcp_server"
    target: Actor = "mcp_server" if from_client else "mcp_client"
    return Draft("error", source, target, payload, step, "error", summary)


def recording_stopped(note: str) -> Draft[ErrorPayload]:
    """The trace's last hop when it reached its hop limit."""
    return Draft("error", "app", "app", {"error": note}, None, "event", note)


def diverged(payload: ReplayDivergencePayload, *, step: Step | None) -> Draft[ReplayDivergencePayload]:
    """A re-run departed from the recording it replays."""
    return Draft("replay.divergence", "model", "app", payload, step, "event", payload["divergence"])
