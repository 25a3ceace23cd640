"""Hosted MCP: the model provider is the MCP client, and runs the tool loop.

The app names the server in its request (`flow.wire.hosted`), sends no MCP itself, and reads back the provider's
report of what its MCP client did, recorded as `mcp.reported` hops beside whatever frames a recorder saw. With the
demo server the run serves it over Streamable HTTP on a loopback port for as long as the run lasts, behind a bearer
token made for the run: the credential the provider is given, which the trace never holds. A stand-in provider that
acts as the MCP client (the mock) is granted the servers this run configured, and only those; a real provider is
given the URL the operator chose (`--server URL`), since it must reach the server from where it runs.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from flow.capture.recorder import Recorder
from flow.engine.asking import ask_model
from flow.engine.errors import FlowAbort
from flow.engine.model import ModelClient, ModelConfig
from flow.engine.options import MAX_APPROVALS, MAX_REPORTED_ITEMS, SYSTEM_PROMPT, RunOptions
from flow.servers import builtin
from flow.servers.spec import Era
from flow.text.errors import EMPTY_ANSWER
from flow.trace import hops
from flow.trace.model import TraceMeta
from flow.trace.payloads import LlmAssembled, LlmResponse, is_a, typed
from flow.trace.redact import REDACTED, redact_url
from flow.trace.steps import Step
from flow.trace.summaries import call_text
from flow.wire.base import Call, Conversation, Native, Settings, Turn, WireApi, previous_response
from flow.wire.hosted import (
    HostedServer,
    approval_requests,
    approval_response,
    arguments_value,
    exchanges,
    reported_drafts,
    request_fields,
)

DEMO_LABEL = "weather"

REPLAYED_URL = "http://127.0.0.1:0/mcp"  # what a re-run names instead: nothing listens there, and nothing is asked to


"""The label the demo server goes by in a hosted request (`server_label`, `mcp_servers[].name`)."""


@dataclass(frozen=True)
class McpGrant:
    """What a stand-in provider may reach as an MCP client for one run: the URLs this run configured, the recorder
    its frames go to (they are observed: the stand-in's client is tapped like the app's), the era and the timeout."""

    urls: frozenset[str]
    recorder: Recorder
    era: Era
    timeout_s: float


class HostedPeer(Protocol):
    """A model transport that can act as the provider's MCP client (the mock): told which servers it may reach."""

    def grant_mcp(self, grant: McpGrant | None) -> None: ...


@asynccontextmanager
async def _server(options: RunOptions, model: ModelConfig, rec: Recorder) -> AsyncIterator[HostedServer]:
    """The server the provider is told to use: the operator's (`--server URL`), or the demo server on loopback."""
    if options.server_url:
        token = options.server_spec().token()
        if token:
            rec.add_secret(token)
        label = "mcp"
        yield HostedServer(label, options.server_url, options.require_approval, token=token)
        return
    if model.backend == "openai":
        raise FlowAbort("hosted_unreachable")
    if model.backend == "replay":  # the recorded responses report what the provider did: no server is needed
        # and no credential: the re-run names the placeholder the recording shows where the token was
        yield HostedServer(DEMO_LABEL, REPLAYED_URL, options.require_approval, token=REDACTED)
        return
    token = secrets.token_urlsafe(18)
    rec.add_secret(token)
    async with builtin.demo_over_http(token) as url:
        yield HostedServer(DEMO_LABEL, url, options.require_approval, token=token)


async def run_hosted(
    question: str,
    *,
    options: RunOptions,
    config: ModelConfig,
    transport: Any,
    rec: Recorder,
    api: WireApi,
    meta: TraceMeta,
) -> str:
    """One question through a provider that is the MCP client: the answer, every hop recorded; `meta.server` says
    which server the provider was told to reach, and that the provider is its client."""
    if not api.hosted_mcp:
        raise FlowAbort("hosted_api")
    if options.resources or options.prompt or options.server_command:
        raise FlowAbort("hosted_resources")
    async with _server(options, config, rec) as server:
        meta.server = {
            "name": "weather-demo" if server.label == DEMO_LABEL else server.label,
            "transport": "http",
            "url": redact_url(server.url),
            "client": "provider",  # the model provider's MCP client reaches it, not the app
            "auth": "bearer" if server.token else "none",
            "require_approval": server.require_approval,
        }
        grant = getattr(transport, "grant_mcp", None)
        if grant is not None:
            grant(McpGrant(frozenset({server.url}), rec, options.era, options.mcp_timeout_s))
        try:
            return await _loop(question, server, options, config, transport, rec, api)
        finally:
            if grant is not None:
                grant(None)


async def _loop(
    question: str,
    server: HostedServer,
    options: RunOptions,
    config: ModelConfig,
    transport: Any,
    rec: Recorder,
    api: WireApi,
) -> str:
    """Ask; record what the provider reports it did; answer its approval requests, at most `MAX_APPROVALS` in the
    run; until it answers."""
    tools, extra = request_fields(api.name, server)
    approvals = 0
    conversation = Conversation(SYSTEM_PROMPT, [question])
    model = ModelClient(config, rec, api=api, transport=transport)
    async with model:
        for round_no in range(1, options.max_rounds + 2):
            rec.round = round_no
            rec.step = Step.ASK_MODEL if round_no == 1 else Step.BACKFILL
            choice = options.tool_choice if round_no == 1 and options.tool_choice in ("none", "required") else "auto"
            previous = previous_response(conversation) if options.previous_response else None
            settings = Settings(
                config.model, choice, options.parallel, options.stream, options.adapt, previous_response_id=previous
            )
            body = {**api.request(conversation, tools, settings).body, **extra}
            since = rec.hops[-1].seq if rec.hops else 0
            turn = await ask_model(model, rec, body, timeout_s=config.timeout_s)
            record_report(rec, api, turn, since)
            if turn.calls:  # the app offered no function: a call of one is not an answer, empty or not
                raise FlowAbort("hosted_function_call", calls=", ".join(_shown(c) for c in turn.calls))
            asked = approval_requests(turn.raw)
            if not asked:
                answer = turn.text or ""
                rec.add(hops.answer(answer, empty_line=EMPTY_ANSWER["en"]))
                return answer
            approvals += len(asked)
            if approvals > MAX_APPROVALS:  # refused before the SDK reads them all back in the next request
                raise FlowAbort("too_many_approvals", count=approvals, limit=MAX_APPROVALS)
            if round_no > options.max_rounds:
                raise FlowAbort("max_rounds", rounds=options.max_rounds)
            conversation.items.append(turn)
            conversation.items += [Native(approval_response(a, approve=options.approve)) for a in asked]
    raise AssertionError("unreachable: the loop returns an answer or stops")


def _shown(call: Call) -> str:
    """A call as the run's error line writes it: `get_weather(city=北京)`, or its arguments as they came."""
    return call_text(call.name, call.parsed if call.parsed is not None else arguments_value(call.arguments))


def record_report(rec: Recorder, api: WireApi, turn: Turn, since: int) -> None:
    """The `mcp.reported` hops the model's turn stands for, after the hop that carried it, paired with the frames a
    recorder saw since the request went out; none when it reports no MCP exchange. In any mode: a provider or a
    gateway may run MCP servers of its own configuration for an app that named none."""
    carried = next((h for h in reversed(rec.hops) if is_a(h, LlmResponse, LlmAssembled)), None)
    seq = carried.seq if carried is not None else 0
    reply = typed(carried) if carried is not None else None
    # The items as they crossed the wire (the SDK's objects leave out what was null); an assembled stream's turn
    body = reply.payload.get("body") if isinstance(reply, LlmResponse) else None
    if (count := len(exchanges(body or turn.raw))) > MAX_REPORTED_ITEMS:  # each is a hop, paired with the frames
        raise FlowAbort("too_many_reported", count=count, limit=MAX_REPORTED_ITEMS)
    for draft in reported_drafts(api.name, body or turn.raw, response_seq=seq, seen=rec.hops, since_seq=since):
        rec.add(draft)
