"""The offline mock provider as the MCP client: hosted MCP in OpenAI Responses and Anthropic Messages.

Given a request that names an MCP server (`flow.wire.hosted`), the mock does what a provider does: it connects to
the server with the official `mcp` SDK over Streamable HTTP (sending the headers the request gave it), lists the
tools, lets the mock model decide, calls the tools, and answers with the items or blocks the API references describe:
Responses `mcp_list_tools`, `mcp_call` (output, or error) and, where the request requires approval,
`mcp_approval_request` (the app answers with `mcp_approval_response` in its next request); Messages `mcp_tool_use`
and `mcp_tool_result`. Its client is tapped like the app's, so the frames it exchanges are recorded, as observed, in
the run that granted it the server (`flow.engine.hosted.McpGrant`).

It reaches only what it was granted: the servers the run configured (the demo server on loopback by default). A URL
in a request that the run did not configure is never contacted; the answer is the API's error instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import Implementation

from flow.backends.mock import DENIED, Call, Conversation, MockReply, _Attempt, _ids, answer_from_results
from flow.backends.mock_apis import (
    MESSAGES,
    RESPONSES,
    ResponseStore,
    _anthropic_error,
    _args,
    _common_refusal,
    _decision,
    _Dialect,
    _message_events,
    _parts_text,
    _response_events,
    items_so_far,
    store_response,
)
from flow.engine.hosted import McpGrant
from flow.servers.connect import connect
from flow.servers.spec import ServerSpec
from flow.trace.stats import estimate_tokens
from flow.trace.steps import Step
from flow.wire.hosted import hosted_servers

PROVIDER_CLIENT = Implementation(name="mcp-flow-mock-provider", version="0.1.0")  # how its client names itself


MAX_CALL_ROUNDS = 5  # model passes the provider makes in one request before it answers with what it has


@dataclass
class _State:
    """What the conversation so far tells the provider: the question, the tools it listed (by an earlier
    `mcp_list_tools`), the calls made, and the approvals asked and answered."""

    question: str = ""
    listed: list[dict[str, Any]] | None = None
    attempts: list[_Attempt] = field(default_factory=list[_Attempt])
    asked: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])  # approval id -> request
    answered: dict[str, bool] = field(default_factory=dict[str, bool])  # approval id -> approve
    done: set[str] = field(default_factory=set[str])  # approval ids whose call was made (or refused)


def _responses_state(items: list[Any], label: str) -> _State:
    state = _State()
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if item.get("role") == "user":
            content = item.get("content")
            state.question = content if isinstance(content, str) else _parts_text(content)
        elif kind == "mcp_list_tools" and item.get("server_label") == label:
            state.listed = [t for t in item.get("tools") or [] if isinstance(t, dict)]
        elif kind == "mcp_call":
            result = item.get("output")
            ok = item.get("error") is None
            state.attempts.append(_attempt(item.get("name"), item.get("arguments"), result, ok))
            if item.get("approval_request_id"):
                state.done.add(str(item["approval_request_id"]))
        elif kind == "mcp_approval_request":
            state.asked[str(item.get("id"))] = item
        elif kind == "mcp_approval_response":
            state.answered[str(item.get("approval_request_id"))] = item.get("approve") is True
    return state


def _attempt(name: Any, arguments: Any, result: Any, ok: bool) -> _Attempt:
    text = result if isinstance(result, str) else "Error: the call failed"
    return _Attempt(str(name or ""), _args(arguments), text, ok)


def _messages_state(messages: list[Any]) -> _State:
    state = _State()
    for m in messages:
        if isinstance(m, dict) and m.get("role") == "user":
            content = m.get("content")
            state.question = content if isinstance(content, str) else _parts_text(content)
    return state


@dataclass
class _Outcome:
    """One MCP call as the provider saw it: the result's text, whether it failed, and the error item's field."""

    text: str
    is_error: bool
    error: dict[str, Any] | None = None
    content: list[Any] = field(default_factory=list[Any])


class _Provider:
    """One request answered by a provider that is the MCP client; what it reports, and how, is its API's
    (`_ResponsesProvider`, `_MessagesProvider`)."""

    dialect: _Dialect
    call_prefix: str  # an id's prefix for a call it reports

    def __init__(self, body: dict[str, Any], server: dict[str, Any], grant: McpGrant) -> None:
        self.body, self.server, self.grant = body, server, grant
        self.out: list[dict[str, Any]] = []
        _, self.digest = _ids(_stable(body))  # the same ids whichever port the server listens on
        self.n = 0

    def _id(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}_{self.digest[:20]}{self.n}"

    async def answer(self, state: _State) -> str | None:
        """Act on the conversation: list if need be, make the approved calls, then decide and call until the model
        answers (its text) or a call needs the app's approval (None)."""
        rec = self.grant.recorder
        kept = rec.step
        rec.step = Step.LIST_TOOLS
        spec = ServerSpec(transport="http", url=self.server["url"])
        headers = {str(k): str(v) for k, v in self.server["headers"].items()}
        try:
            async with connect(
                spec,
                era=self.grant.era,
                recorder=rec,
                timeout_s=self.grant.timeout_s,
                headers=headers,
                client_info=PROVIDER_CLIENT,
            ) as (client, tap, _):
                if state.listed is None:
                    listed = await client.list_tools()
                    state.listed = [
                        {
                            "name": t.name,
                            "description": t.description,
                            "input_schema": t.input_schema,
                            "annotations": t.annotations.model_dump(exclude_none=True) if t.annotations else None,
                        }
                        for t in listed.tools
                    ]
                    self._listed(state.listed)
                return await self._calls(state, client, tap)
        finally:
            rec.step = kept

    async def _calls(self, state: _State, client: Any, tap: Any) -> str | None:
        conv = Conversation(
            state.question, {t["name"]: {**t, "parameters": t["input_schema"]} for t in state.listed or []}
        )
        conv.attempts = list(state.attempts)
        for approval_id, approve in state.answered.items():
            asked = state.asked.get(approval_id)
            if asked is None or approval_id in state.done:
                continue
            state.done.add(approval_id)
            call = Call(str(asked.get("name")), str(asked.get("arguments") or "{}"))
            if approve:
                await self._call(conv, call, client, tap, approval_id=approval_id)
            else:  # the app said no: the model is told so, and no call is made
                conv.attempts.append(_Attempt(call.name, _args(call.arguments), DENIED, False))
        for _ in range(MAX_CALL_ROUNDS):
            decision = _decision(conv, {**self.body, "tool_choice": "auto"}, dialect=self.dialect, model=self._model())
            if isinstance(decision, str):
                return decision
            conv.rounds += 1
            if self._needs_approval():
                for call in decision:
                    self.out.append(
                        {
                            "type": "mcp_approval_request",
                            "id": self._id("mcpr"),
                            "server_label": self.server["label"],
                            "name": call.name,
                            "arguments": call.arguments,
                        }
                    )
                return None
            for call in decision:
                await self._call(conv, call, client, tap)
        return answer_from_results(conv, tools_allowed=True)

    def _model(self) -> str:
        model = str(self.body.get("model") or "mock")
        return model if model in ("mock", "mock-empty", "mock-no-parallel") else "mock"

    def _listed(self, tools: list[dict[str, Any]]) -> None:
        """Report the tools it listed (Messages reports none)."""

    def _needs_approval(self) -> bool:
        return False  # Messages' connector asks no approval

    def _report(self, call: Call, item_id: str, args: dict[str, Any], outcome: _Outcome, approval: str | None) -> None:
        raise NotImplementedError

    async def _call(
        self, conv: Conversation, call: Call, client: Any, tap: Any, *, approval_id: str | None = None
    ) -> None:
        """Call the tool over MCP (its frames tagged with the item's id, so the report pairs with them), and write
        what happened as the API reports it."""
        item_id = self._id(self.call_prefix)
        args = _args(call.arguments) or {}
        rec = self.grant.recorder
        rec.step = Step.CALL_TOOL
        tap.expect_call(call.name, item_id)
        try:
            result = await client.call_tool(call.name, args)
            data = result.model_dump(by_alias=True, exclude_none=True, mode="json")
            content = data.get("content") or []
            text = "\n".join(str(b.get("text") or "") for b in content if b.get("type") == "text")
            failed = bool(data.get("isError"))
            outcome = _Outcome(
                text, failed, {"type": "mcp_tool_execution_error", "content": content} if failed else None, content
            )
        except MCPError as exc:
            text = f"Error: {exc.message} (JSON-RPC error {exc.code})"
            outcome = _Outcome(text, True, {"type": "mcp_protocol_error", "code": exc.code, "message": exc.message})
        finally:
            tap.forget_call(item_id)
        conv.attempts.append(
            _Attempt(
                call.name,
                args,
                outcome.text if not outcome.is_error else f"Error: {outcome.text}",
                not outcome.is_error,
            )
        )
        self._report(call, item_id, args, outcome, approval_id)


class _ResponsesProvider(_Provider):
    """Responses: an mcp_list_tools item, mcp_approval_request items where the server's rule asks, an mcp_call
    item per call."""

    dialect = RESPONSES
    call_prefix = "mcp"

    def _listed(self, tools: list[dict[str, Any]]) -> None:
        self.out.append(
            {"type": "mcp_list_tools", "id": self._id("mcpl"), "server_label": self.server["label"], "tools": tools}
        )

    def _needs_approval(self) -> bool:
        return self.server.get("require_approval", "always") != "never"

    def _report(self, call: Call, item_id: str, args: dict[str, Any], outcome: _Outcome, approval: str | None) -> None:
        self.out.append(
            {
                "type": "mcp_call",
                "id": item_id,
                "server_label": self.server["label"],
                "name": call.name,
                "arguments": call.arguments,
                "output": None if outcome.is_error else outcome.text,
                "error": outcome.error,
                "status": "failed" if outcome.is_error else "completed",
                "approval_request_id": approval,
            }
        )


class _MessagesProvider(_Provider):
    """Messages (the MCP connector): an mcp_tool_use block and its mcp_tool_result block per call."""

    dialect = MESSAGES
    call_prefix = "mcptoolu"

    def _report(self, call: Call, item_id: str, args: dict[str, Any], outcome: _Outcome, approval: str | None) -> None:
        self.out.append(
            {
                "type": "mcp_tool_use",
                "id": item_id,
                "name": call.name,
                "server_name": self.server["label"],
                "input": args,
            }
        )
        blocks = [{"type": "text", "text": b.get("text", "")} for b in outcome.content if b.get("type") == "text"]
        self.out.append(
            {
                "type": "mcp_tool_result",
                "tool_use_id": item_id,
                "is_error": outcome.is_error,
                "content": blocks or [{"type": "text", "text": outcome.text}],
            }
        )


def _stable(body: dict[str, Any]) -> dict[str, Any]:
    """The body without where the server is and its credential (a port and a token made for each run), so that a
    request gets the same ids whichever they were."""
    tools = [
        {k: v for k, v in t.items() if k not in ("server_url", "headers")}
        for t in body.get("tools") or []
        if isinstance(t, dict)
    ]
    return {**{k: v for k, v in body.items() if k != "mcp_servers"}, "tools": tools}


def _by_path(path: str) -> tuple[_Dialect, bool]:
    """The API a hosted request was sent to, by its path: its dialect, and whether it is Messages."""
    messages = path.rstrip("/").endswith("/messages")
    return (MESSAGES if messages else RESPONSES), messages


def not_granted(path: str, body: Any) -> MockReply:
    """The answer to a request naming a server this mock may not reach: the API's error; nothing is contacted."""
    return _by_path(path)[0].not_allowed(hosted_servers(body)[0]["url"])


def is_hosted(body: Any) -> bool:
    return bool(hosted_servers(body))


async def respond_hosted(path: str, body: dict[str, Any], store: ResponseStore, grant: McpGrant | None) -> MockReply:
    """Answer a request that names an MCP server, as a provider that is its client would."""
    dialect, messages = _by_path(path)
    refused = _common_refusal(body, dialect=dialect)
    if refused is not None:
        return refused
    server = hosted_servers(body)[0]
    if grant is None or server["url"] not in grant.urls:
        return dialect.not_allowed(server["url"])
    return await (_messages(body, server, grant) if messages else _responses(body, server, store, grant))


async def _responses(body: dict[str, Any], server: dict[str, Any], store: ResponseStore, grant: McpGrant) -> MockReply:
    items = items_so_far(body, store)
    if isinstance(items, MockReply):
        return items
    provider = _ResponsesProvider(body, server, grant)
    text = await provider.answer(_responses_state(items, server["label"]))
    output = provider.out
    if text is not None:
        output.append(
            {
                "type": "message",
                "id": f"msg_{provider.digest[:24]}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    response_id = "resp_" + _ids(_stable(body))[0].removeprefix("chatcmpl-")
    response = store_response(body, items, output, store, usage=_usage(body, output), id_=response_id)
    if body.get("stream"):
        return MockReply(200, chunks=list(_response_events(response)), named=True)
    return MockReply(200, response)


async def _messages(body: dict[str, Any], server: dict[str, Any], grant: McpGrant) -> MockReply:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return _anthropic_error(400, "invalid_request_error", "messages: at least one message is required")
    provider = _MessagesProvider(body, server, grant)
    text = await provider.answer(_messages_state(messages)) or ""
    content = [*provider.out, {"type": "text", "text": text}]
    message_id, _ = _ids(_stable(body))
    prompt_tokens, output_tokens = _usage(body, content)
    message = {
        "id": "msg_" + message_id.removeprefix("chatcmpl-"),
        "type": "message",
        "role": "assistant",
        "model": str(body.get("model") or "mock"),
        "content": content,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": prompt_tokens, "output_tokens": output_tokens},
    }
    if body.get("stream"):
        return MockReply(200, chunks=list(_message_events(message, text)), named=True)
    return MockReply(200, message)


def _usage(body: dict[str, Any], output: list[dict[str, Any]]) -> tuple[int, int]:
    """Tokens as a provider counts them: the request, and what its MCP client brought into the model's context (the
    listed tools' definitions, the results); the model's own words out."""
    brought = [o for o in output if o.get("type") in ("mcp_list_tools", "mcp_call", "mcp_tool_result")]
    said = [o for o in output if o.get("type") not in ("mcp_list_tools", "mcp_tool_result")]
    prompt = json.dumps([body.get("input") or body.get("messages"), body.get("tools"), brought], ensure_ascii=False)
    return estimate_tokens(prompt), estimate_tokens(json.dumps(said, ensure_ascii=False))
