"""The tool loop: one question through the model and the tools, every hop recorded.

The same loop serves both modes; only how tools are listed and executed differs
(`_McpTools` over a real MCP session, `_DirectTools` calling local functions).
"""

from __future__ import annotations

import builtins
import datetime as dt
import json
import math
import os
import traceback
import warnings
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import anyio
import httpx2
from mcp.client._input_required import InputRequiredRoundsExceededError
from mcp.client.subscriptions import Subscription, ToolsListChanged
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT, URL_ELICITATION_REQUIRED, ToolListChangedNotification
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from flow.capture.mcp import FrameTap
from flow.capture.recorder import Recorder
from flow.engine.asking import ask_model
from flow.engine.errors import FlowAbort, as_flow_error
from flow.engine.host import MAX_INPUT_ROUNDS, Answerer, GivenAnswers, Host, sampling_consent
from flow.engine.hosted import record_report, run_hosted
from flow.engine.model import ModelClient, ModelConfig
from flow.engine.options import MAX_CALLS_PER_TURN, SYSTEM_PROMPT, Backfill, RunOptions, RunResult
from flow.engine.translate import (
    ArgumentError,
    CallRequest,
    function_spec,
    map_content,
    output_problems,
    parse_arguments,
    resource_text,
    tool_spec,
)
from flow.servers import builtin
from flow.servers.connect import McpSession, connect, leaf_exception, server_stderr_tail, timed_out
from flow.servers.spec import Era, ServerSpec
from flow.text.errors import EMPTY_ANSWER, SERVER_FAILURES
from flow.trace import hops
from flow.trace.model import Actor, Hop, Trace, TraceMeta, as_dict
from flow.trace.payloads import CallRequest as CallRequestPayload
from flow.trace.payloads import (
    ErrorPayload,
    JsonObject,
    McpNotification,
    McpRequest,
    McpResponse,
    PromptRef,
    RpcError,
    StructuredCheck,
    ToolCall,
    is_a,
    of_kind,
    typed,
)
from flow.trace.redact import url_secrets
from flow.trace.stats import hop_stats
from flow.trace.steps import Step
from flow.trace.summaries import arguments_text
from flow.wire import API
from flow.wire.base import Call, Conversation, Native, Settings, ToolOutput, ToolSpec, WireApi, previous_response


@dataclass
class _Setup:
    """What the app has before it first asks the model."""

    tools: list[ToolSpec]
    context: list[str] = field(default_factory=list)  # resource texts for the system message
    prompt_messages: list[dict[str, Any]] | None = None


class _Tools(Protocol):
    api: WireApi

    async def list(self) -> _Setup: ...
    async def relisted(self) -> builtins.list[ToolSpec] | None: ...
    async def call(self, call: Call) -> ToolOutput: ...


NOTICE_WAIT_S = 1.0


"""How long the app waits for its MCP client to hand it a tools/list_changed notification the tap has already seen
on the wire (the SDK hands each notification over in a task of its own, so it may come just after the answer)."""


@dataclass
class _Changes:
    """What the server said changed while the run goes on, as the SDK client hands it over: in 2025-11-25 a
    notification on the session (the client's message handler), in 2026-07-28 an event on the run's
    subscriptions/listen stream."""

    tools: bool = False
    _told: anyio.Event = field(default_factory=anyio.Event)

    async def on_message(self, message: Any) -> None:
        """The SDK client's `message_handler`."""
        if isinstance(message, ToolListChangedNotification):
            self._tools_changed()

    async def follow(self, subscription: Subscription) -> None:
        async for event in subscription:
            if isinstance(event, ToolsListChanged):
                self._tools_changed()

    def _tools_changed(self) -> None:
        self.tools = True
        self._told.set()

    async def tools_told(self, seen_on_wire: bool) -> bool:
        """Whether the tool list changed since it was last listed; a notification already seen on the wire is
        waited for (`NOTICE_WAIT_S`). Reading it resets it."""
        if seen_on_wire and not self.tools:
            with anyio.move_on_after(NOTICE_WAIT_S):
                await self._told.wait()
        told, self.tools = self.tools, False
        self._told = anyio.Event()
        return told


def _dump(model: Any) -> dict[str, Any]:
    """An SDK object as the JSON the wire carries (aliases, no empty fields)."""
    result: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return result


def _content_text(result: dict[str, Any]) -> str:
    """A CallToolResult as the role "tool" message's text: a tool message carries text only, so an image, audio or
    binary resource goes as a line that says what it was (`map_content`)."""
    text = "\n".join(map_content(block, role="tool").text for block in result.get("content") or [])
    return f"Error: {text}" if result.get("isError") and not text.startswith("Error") else text


@dataclass
class _McpTools:
    client: Any
    tap: FrameTap
    rec: Recorder
    options: RunOptions
    api: WireApi
    schemas: dict[str, dict[str, Any]] = field(default_factory=dict)
    host: Host | None = None  # what the host answers when the server asks (sampling, elicitation, roots)
    changes: _Changes = field(default_factory=_Changes)
    output_schemas: dict[str, Any] = field(default_factory=dict)  # each tool's outputSchema, as last listed
    _listed_at: int = 0  # the seq of the last hop before the tools were last listed

    @asynccontextmanager
    async def opened(self) -> AsyncIterator[None]:
        """What the run does with the session before it lists the tools, and keeps while it runs (step 2): a ping,
        resource subscriptions, and in 2026-07-28 the subscriptions/listen stream that carries change events."""
        options, client = self.options, self.client
        modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)  # ping and resources/subscribe: 2025-11-25 only
            if options.ping:
                if modern:
                    raise FlowAbort("ping_modern")
                await client.send_ping()
            if not modern:
                for uri in options.subscribe:
                    await client.subscribe_resource(uri)
        if not modern or not (options.listen or options.subscribe):
            yield
            return
        async with (
            client.listen(tools_list_changed=options.listen, resource_subscriptions=list(options.subscribe)) as sub,
            anyio.create_task_group() as tg,
        ):
            tg.start_soon(self.changes.follow, sub)
            try:
                yield
            finally:
                tg.cancel_scope.cancel()
                self.rec.step = Step.SHOW_ANSWER  # the run is over: the client ends its stream (a cancel)

    async def list(self) -> _Setup:
        rec = self.rec
        rec.step = Step.LIST_TOOLS
        mcp_tools = await self._list_tools()
        setup = _Setup(tools=[])
        if self.options.resources:
            await self.client.list_resources()
            for uri in self.options.resources:
                setup.context.append(await self._read(uri))
        if self.options.prompt:
            await self.client.list_prompts()
            setup.prompt_messages = await self._prompt(self.options.prompt)
        rec.step = Step.ASK_MODEL
        setup.tools = self._translate(mcp_tools)
        return setup

    async def _list_tools(self) -> builtins.list[JsonObject]:
        """tools/list, and the list the MCP client hands the app (step 2)."""
        self._listed_at = len(self.rec.hops)
        listed = await self.client.list_tools()
        mcp_tools = [_dump(t) for t in listed.tools]
        self.rec.add(hops.tools_listed(mcp_tools))
        self.output_schemas = {str(t.get("name")): t.get("outputSchema") for t in mcp_tools}
        return mcp_tools

    def _translate(self, mcp_tools: builtins.list[JsonObject]) -> builtins.list[ToolSpec]:
        """The forward translation (step 3): each tool as the model API takes it."""
        specs = [tool_spec(t, strict=self.options.strict) for t in mcp_tools]
        self.schemas = {spec.name: spec.parameters for spec in specs}
        translated = [self.api.tool(spec) for spec in specs]
        self.rec.add(hops.tools_translated(mcp_tools, translated, schema_field=self.api.schema_field))
        return specs

    async def relisted(self) -> builtins.list[ToolSpec] | None:
        """Before the next model request: when the server said its tool list changed, list and translate the tools
        again (steps 2 and 3 of the round the app is in), so the request offers the tools the server has now."""
        seen = any(
            n.payload["method"] == "notifications/tools/list_changed"
            for n in of_kind(self.rec.hops[self._listed_at :], McpNotification)
        )
        if not await self.changes.tools_told(seen):
            return None
        rec = self.rec
        step, rec.step = rec.step, Step.LIST_TOOLS
        try:
            return self._translate(await self._list_tools())
        finally:
            rec.step = step

    async def _read(self, uri: str) -> str:
        """A resource read, and its text as the context the system message carries."""
        data = _dump(await self.client.read_resource(uri))
        text, hows = resource_text(data.get("contents"))
        context = f"Context from the MCP resource {uri}:\n{text}"
        self.rec.add(hops.resource_read(uri, data, text))
        as_chat = [{"role": "system", "content": context}]  # joined into the system message
        self.rec.add(hops.content_translated(f"resource {uri}", data.get("contents") or [], as_chat, hows))
        return context

    async def _prompt(self, name: str) -> builtins.list[dict[str, Any]]:
        """A prompt fetched, and its messages as the model API takes them."""
        data = _dump(await self.client.get_prompt(name, dict(self.options.prompt_args)))
        mapped = [(m["role"], map_content(m["content"], role=m["role"])) for m in data.get("messages") or []]
        messages = [
            {"role": role, "content": m.text if m.part.get("type") == "text" else [m.part]} for role, m in mapped
        ]
        self.rec.add(hops.prompt_fetched(name, data, messages))
        blocks = [m["content"] for m in data.get("messages") or []]
        self.rec.add(hops.content_translated(f"prompt {name}", blocks, messages, [m.how for _, m in mapped]))
        return messages

    async def _call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """tools/call within the run's MCP timeout, not counting the time the host spends answering the server in the
        middle of it (2025-11-25: the user filling a form, the host's model writing for the server): the SDK's own
        clock would count it, so a host that can be asked keeps the clock itself and cancels the call when the
        server's own time is up (the SDK then tells the server, with notifications/cancelled)."""
        host, limit = self.host, self.options.mcp_timeout_s
        if host is None:
            return await self.client.call_tool(name, arguments, progress_callback=_progress_seen)
        start = anyio.current_time()
        outcome: list[Any] = []  # the result, or what the call raised
        async with anyio.create_task_group() as tg:

            async def call() -> None:
                try:
                    outcome.append(
                        await self.client.call_tool(name, arguments, math.inf, progress_callback=_progress_seen)
                    )
                except Exception as exc:  # raised here, outside the task group, as a call without it raises
                    outcome.append(exc)
                tg.cancel_scope.cancel()

            tg.start_soon(call)
            while anyio.current_time() - start - host.busy_since(start) < limit:
                await anyio.sleep(_CLOCK_TICK_S)
            tg.cancel_scope.cancel()  # the server's own time is up: the SDK cancels the request
        if not outcome:
            raise MCPError(REQUEST_TIMEOUT, f"Request 'tools/call' timed out after {limit:g}s of the server's own")
        if isinstance(outcome[0], Exception):
            raise outcome[0]
        return outcome[0]

    async def call(self, call: Call) -> ToolOutput:
        rec = self.rec
        translated = _reverse_translate(rec, call, self.schemas, strict=self.options.strict, target="mcp_client")
        if isinstance(translated, ToolOutput):
            return translated
        request, reverse_hop = translated
        self.tap.expect_call(request.name, call.id)  # so the server's report of the call names it
        try:
            # A progress callback makes the SDK send a progress token, so a server may report how far it got.
            result = await self._call_tool(request.name, request.arguments)
        except InputRequiredRoundsExceededError:
            abort = FlowAbort("input_rounds", rounds=MAX_INPUT_ROUNDS, tool=request.name)
            payload: ErrorPayload = {"error": "input rounds", "rounds": MAX_INPUT_ROUNDS}
            rec.add(hops.client_failed(payload, str(abort), step=Step.TOOL_RESULT))
            raise abort from None
        except RuntimeError as exc:
            # The SDK checks structuredContent against the tool's outputSchema itself, and refuses a result that
            # departs from it (mcp.client.session.ClientSession.validate_tool_result): the answer is on the wire.
            if self.tap.fault is not None or not _output_refused(str(exc)):
                raise
            return self._refused_output(request.name, call.id, str(exc), since=reverse_hop.seq)
        except MCPError as exc:
            return await self._failed(exc, request.name, call.id, reverse_hop)
        finally:
            self.tap.forget_call(call.id)
        data = _dump(result)
        content = _content_text(data)
        check = self._checked(request.name, data)
        if check is not None and check["backfill"] == "structured":
            content = json.dumps(data["structuredContent"], ensure_ascii=False)
        rec.add(hops.call_answered(data, content, call_id=call.id, structured=check))
        return ToolOutput(call.id, content, is_error=bool(data.get("isError")))

    async def _failed(self, exc: MCPError, name: str, call_id: str, reverse_hop: Hop) -> ToolOutput:
        """A tools/call the SDK ended with an error: a JSON-RPC error the server answered (sent back to the model), or
        no answer at all (the run stops, recorded where it happened)."""
        rec = self.rec
        if self.tap.fault is not None:
            raise self.tap.fault from None  # a stdio server broke the protocol; the tap recorded where
        if exc.code in (CONNECTION_CLOSED, REQUEST_TIMEOUT) and "tools/call" in self.tap.unanswered:
            # No frame came back: the client gave up on its own, so this is no protocol error.
            method = f"tools/call {name}"
            seen: ErrorPayload = {"error": "connection closed"}
            if exc.code == REQUEST_TIMEOUT:  # silent, or still sending a large answer
                fault, seen = timed_out(method, self.options.mcp_timeout_s, self.tap.unread_bytes())
                seen.pop("method", None)
                seen.pop("timeout_s", None)
                abort = FlowAbort(fault.code, **fault.params)
            elif self.tap.stopped is not None:
                abort = FlowAbort("server_stopped", method=method, said=self.tap.stopped)
            else:
                abort = FlowAbort("server_closed_http" if self.tap.http else "server_closed", method=method)
            lost = hops.server_failed(
                {**seen, "sdk_error": {"code": exc.code, "message": exc.message}},
                str(abort),
                step=Step.TOOL_RESULT,
                tool_call_id=call_id,
            )
            rec.add(lost, t_start_ms=reverse_hop.t_start_ms)
            raise abort from None
        error: RpcError = {"code": exc.code, "message": exc.message}
        if exc.error.data is not None:  # what the server said beside the error, kept (-32042: the pages to visit)
            error["data"] = exc.error.data
        rec.add(hops.call_refused(error, call_id=call_id))
        told = f"Error: {exc.message} (JSON-RPC error {exc.code})"
        if exc.code == URL_ELICITATION_REQUIRED:  # the server wants the user on a page of its own first
            if self.host is not None and "elicitation" in self.options.host_capabilities:
                told += f": {await self.host.offer_pages(exc.error)}"
            else:
                told += ": the server wants the user to open a page first; this host declared no elicitation"
        return ToolOutput(call_id, told, is_error=True)

    def _checked(self, name: str, data: JsonObject) -> StructuredCheck | None:
        """The host's check of a result's structuredContent against the tool's outputSchema, when the run checks
        (an error result is not checked: the schema describes what a tool returns when it works), and which form
        goes back to the model."""
        options = self.options
        if not (options.check_output or options.backfill == "structured"):
            return None
        if data.get("isError") or "structuredContent" not in data:
            return None
        schema = self.output_schemas.get(name)
        problems = output_problems(data["structuredContent"], schema) if isinstance(schema, dict) else []
        backfill: Backfill = "structured" if options.backfill == "structured" and not problems else "text"
        return {"valid": not problems, "errors": problems, "backfill": backfill}

    def _refused_output(self, name: str, call_id: str, said: str, *, since: int) -> ToolOutput:
        """A result the SDK refused because its structuredContent departs from the outputSchema: recorded as the
        answer the wire carried, with what the host's own check finds, and an error for the model."""
        data = self._answered(name, since)
        schema = self.output_schemas.get(name)
        problems = (
            output_problems(data["structuredContent"], schema)
            if isinstance(schema, dict) and "structuredContent" in data
            else []
        )
        check: StructuredCheck = {"valid": False, "errors": problems or [said], "backfill": "text"}
        content = f"Error: the tool's result does not match its output schema ({check['errors'][0]})"
        self.rec.add(hops.call_answered(data, content, call_id=call_id, structured=check))
        return ToolOutput(call_id, content, is_error=True)

    def _answered(self, name: str, since: int) -> JsonObject:
        """The result of the last answer the server sent, after hop `since`, to a tools/call of `name`: {} when none
        came, or the recorder cut it."""
        asked = {
            json.dumps(r.hop.jsonrpc_id)
            for r in of_kind(self.rec.hops, McpRequest)
            if r.hop.seq > since
            and r.payload["method"] == "tools/call"
            and as_dict(r.payload.get("params")).get("name") == name
        }
        answers = [h for h in self.rec.hops if is_a(h, McpResponse) and json.dumps(h.jsonrpc_id) in asked]
        match typed(answers[-1]) if answers else None:
            case McpResponse(payload=p):
                return as_dict(p.get("result"))
            case _:
                return {}


def _output_refused(said: str) -> bool:
    """Whether the SDK's RuntimeError is its refusal of a result for its outputSchema (the SDK's own words)."""
    return said.startswith(("Invalid structured content returned by tool", "Invalid schema for tool")) or (
        said.startswith("Tool ") and said.endswith("has an output schema but did not return structured content")
    )


async def _progress_seen(progress: float, total: float | None, message: str | None) -> None:
    """The notifications are recorded by the frame tap; the app has nothing more to do with them."""


@dataclass
class _DirectTools:
    rec: Recorder
    options: RunOptions
    api: WireApi
    schemas: dict[str, dict[str, Any]] = field(default_factory=dict)

    async def list(self) -> _Setup:
        if self.options.resources or self.options.prompt:
            raise FlowAbort("mcp_only")
        specs = [function_spec(t, strict=self.options.strict) for t in builtin.DIRECT_TOOL_SCHEMAS]
        self.schemas = {spec.name: spec.parameters for spec in specs}
        self.rec.add(hops.local_tools([self.api.tool(spec) for spec in specs]))
        return _Setup(tools=specs)

    async def relisted(self) -> builtins.list[ToolSpec] | None:
        return None  # the app's own functions do not change while it runs

    async def call(self, call: Call) -> ToolOutput:
        rec = self.rec
        translated = _reverse_translate(rec, call, self.schemas, strict=self.options.strict, target="tool")
        if isinstance(translated, ToolOutput):
            return translated
        request, _ = translated
        function = builtin.DIRECT_FUNCTIONS.get(request.name)
        invoke = rec.add(hops.function_called(request.name, request.arguments, call.id))
        is_error = False
        try:
            if function is None:
                raise LookupError(f"Unknown tool: {request.name}")
            value: Any = await anyio.to_thread.run_sync(lambda: function(**request.arguments))
            content = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        except Exception as exc:  # boundary: whatever the tool raises goes back to the model as text
            is_error = True
            value = None
            content = f"Error: {type(exc).__name__}: {exc}"
        returned = hops.function_returned(value, content, is_error=is_error, call_id=call.id)
        rec.add(returned, t_start_ms=invoke.t_start_ms)
        return ToolOutput(call.id, content, is_error=is_error)


def _reverse_translate(
    rec: Recorder, call: Call, schemas: dict[str, dict[str, Any]], *, strict: bool, target: Actor
) -> tuple[CallRequest, Hop] | ToolOutput:
    """Step 5: the call's arguments (a JSON string, or the object Messages sends) become a call request; or the
    error that goes back to the model."""
    api_call: dict[str, Any] | None = None
    tool_call: ToolCall
    if "function" in call.raw:
        tool_call = cast(ToolCall, call.raw)
    else:  # Responses and Messages: the call in the form the app reads, and as the API wrote it
        tool_call = {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
        api_call = call.raw
    try:
        request = parse_arguments(call.name, call.arguments, schemas.get(call.name), check_schema=strict)
    except ArgumentError as exc:
        rec.add(hops.arguments_refused(tool_call, str(exc), api_call=api_call))
        text = f"Error: {exc}. Call the tool again with valid JSON arguments that match its schema."
        return ToolOutput(call.id, text, is_error=True)
    asked: CallRequestPayload = {"name": request.name, "arguments": request.arguments}
    return request, rec.add(hops.reverse_translation(tool_call, asked, target=target, api_call=api_call))


_CLOCK_TICK_S = 0.05  # how often a call's own clock is read while the host may be answering its server


def new_recorder(options: RunOptions, model: ModelConfig, *, on_hop: Callable[[Hop], None] | None = None) -> Recorder:
    """A run's recorder, told the secrets it must keep out of the trace: the model's key and those in its URL, and
    the server's."""
    secrets = [model.api_key or "", *url_secrets(model.base_url or ""), *_server_secrets(options.server_spec())]
    return Recorder(secrets=secrets, on_hop=on_hop)


async def run_flow(
    question: str,
    *,
    options: RunOptions = RunOptions(),
    model: ModelConfig = ModelConfig(),
    on_hop: Callable[[Hop], None] | None = None,
    model_transport: httpx2.AsyncBaseTransport | None = None,
    recorder: Recorder | None = None,
    session: McpSession | None = None,
    answerer: Answerer | None = None,
    session_host: Host | None = None,
) -> RunResult:
    """Run one question end to end and return the trace; failures end the run as hops, never raise.

    `model_transport` replaces the model's transport (the replay model); it is still recorded. `answerer` answers a
    server's questions to the user (default: the answers the options give). `session_host` answers the server of a
    `session` opened with its callbacks; without it the server of a reused session cannot ask."""
    if options.prompt and options.mode == "mcp":
        # A prompt run sends the prompt's messages, not a typed question: the trace names what the user chose,
        # the way a client offers a prompt (as a slash command), so no question that was never sent is shown.
        args = dict(options.prompt_args)
        question = f"/{options.prompt}" + (f" {arguments_text(args)}" if args else "")
    spec = options.server_spec()
    rec = recorder or new_recorder(options, model, on_hop=on_hop)
    meta = TraceMeta(
        mode=options.mode,
        question=question,
        model=model.describe(options.api),
        server=spec.describe() if options.mode != "direct" else None,
        settings=options.settings()
        | sampling_consent(
            options.host_capabilities, approve_sampling=options.approve_sampling, paid=model.backend == "openai"
        ),
        started_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    )
    run = _Run(question, options, model, model_transport, rec, meta, API[options.api], session_host=session_host)
    run.answerer = answerer or GivenAnswers(dict(options.answers), options.elicit_action)
    answer: str | None = None
    error: str | None = None
    try:
        if options.mode == "mcp":
            answer = await run.through_mcp(spec, session)
        elif options.mode == "hosted":
            answer = await run.hosted()
        else:
            answer = await run.direct()
    except Exception as exc:  # boundary: every failure becomes a hop and one line, never a traceback
        error = run.failed(exc)
    return run.result(answer, error)


@dataclass
class _Run:
    """One run under way: what it was asked, what it records into, and how it ends."""

    question: str
    options: RunOptions
    model: ModelConfig
    transport: httpx2.AsyncBaseTransport | None
    rec: Recorder
    meta: TraceMeta
    api: WireApi
    stderr_tail: str = ""  # the end of a stdio server's stderr, when the run failed while it ran
    error_zh: str | None = None
    answerer: Answerer = field(default_factory=lambda: GivenAnswers({}))
    session_host: Host | None = None  # the host whose callbacks a reused session was opened with

    def host(self, spec: ServerSpec) -> Host | None:
        """What answers the server when it asks, if the host declares it can (`RunOptions.host_capabilities`)."""
        options = self.options
        if not options.host_capabilities:
            return None
        roots = list(options.roots) or (builtin.demo_roots() if spec.is_demo and spec.asks else [])
        modern, approve = options.era == "modern", options.approve_sampling
        return Host(self.rec, self.answerer, roots, options.elicit_timeout_s, modern=modern, approve_sampling=approve)

    async def through_mcp(self, spec: ServerSpec, session: McpSession | None) -> str:
        rec, options = self.rec, self.options
        served = session.spec if session else spec
        if served.is_demo:  # step 0 is the demo server's code; another's is not ours
            await _record_server_tools(rec, asks=served.asks)
        prompt: PromptRef | None = None
        if options.prompt:
            prompt = {"name": options.prompt, "arguments": dict(options.prompt_args)}
        rec.add(hops.question(self.question, prompt))
        rec.step = Step.LIST_TOOLS
        if session is not None:
            # A connection kept open across runs: its set-up frames belong to the run that opened it.
            session.tap.recorder = rec
            self.meta.server = {**session.describe(), "reused_session": True}
            reused = _McpTools(session.client, session.tap, rec, options, self.api, host=self.session_host)
            async with reused.opened():
                return await self.loop(reused)
        host = self.host(spec)
        callbacks: dict[str, Any] = host.callbacks(options.host_capabilities) if host is not None else {}
        changes = _Changes()
        callbacks["message_handler"] = changes.on_message  # the server's notifications, as the SDK hands them over
        async with connect(
            spec, era=options.era, recorder=rec, timeout_s=options.mcp_timeout_s, callbacks=callbacks
        ) as (client, tap, err):
            self.meta.server = McpSession(client, tap, spec).describe()
            try:
                tools = _McpTools(client, tap, rec, options, self.api, host=host, changes=changes)
                async with tools.opened():
                    return await self.loop(tools)
            except BaseException:
                self.stderr_tail = server_stderr_tail(err)
                raise

    async def direct(self) -> str:
        self.rec.add(hops.tools_written(builtin.DIRECT_TOOL_SCHEMAS, builtin.DIRECT_WRITTEN_BY))
        self.rec.add(hops.question(self.question))
        return await self.loop(_DirectTools(self.rec, self.options, self.api))

    async def hosted(self) -> str:
        if not self.options.server_url:  # step 0 is the demo server's code; another's is not ours
            await _record_server_tools(self.rec)
        self.rec.add(hops.question(self.question))
        return await run_hosted(
            self.question,
            options=self.options,
            config=self.model,
            transport=self.transport,
            rec=self.rec,
            api=self.api,
            meta=self.meta,
        )

    async def loop(self, tools: _Tools) -> str:
        return await _loop(self.question, tools, self.rec, self.options, self.model, self.transport)

    def failed(self, exc: Exception) -> str:
        """The failure as a hop where the answer would have been (step 10), and its line."""
        if os.environ.get("FLOW_DEBUG"):
            traceback.print_exc()
        cause = leaf_exception(exc)
        failure = as_flow_error(cause, self.options, self.model)
        error, self.error_zh = failure.line("en"), failure.line("zh")
        payload: ErrorPayload = {"error": type(cause).__name__, "message": error, "message_zh": self.error_zh}
        if self.stderr_tail and failure.code in SERVER_FAILURES:  # a stop of the run's own is not the server's doing
            payload["server_stderr"] = self.stderr_tail
        self.rec.add(hops.run_failed(payload, error))
        return error

    def result(self, answer: str | None, error: str | None) -> RunResult:
        rec, meta = self.rec, self.meta
        meta.outcome = "ok" if error is None else "error"
        # A server or model may echo a secret back: what the run keeps and prints is scrubbed as its hops are.
        answer, error, error_zh = rec.scrub(answer), rec.scrub(error), rec.scrub(self.error_zh)
        meta.answer, meta.error = answer, error
        meta.error_zh = error_zh if error else None
        meta.stats = hop_stats(rec.hops, rec.now_ms())
        return RunResult(Trace(meta=meta, hops=rec.hops), answer, error)


def _server_secrets(spec: ServerSpec) -> list[str]:
    """What the recorder must scrub if a server echoes it: its bearer token, secret-named environment values."""
    return spec.secret_values()


async def _record_server_tools(rec: Recorder, *, asks: bool = False) -> None:
    """Step 0: what the demo server's decorators built, read from the same code the server runs."""
    built = builtin.SERVER_BUILT_FROM + (" and weather_demo/asking.py" if asks else "")
    rec.add(hops.tools_built(await builtin.demo_tool_listing(asks=asks), built))


def _check_choice(choice: str, offered: list[str]) -> None:
    """A tool_choice that names a function the request does not offer (a server that lists no tools) is refused
    before it is sent: providers answer it with HTTP 400, and the run says why in its own words."""
    if choice not in ("auto", "none", "required") and choice not in offered:
        raise FlowAbort("tool_choice_unoffered", name=choice, tools=", ".join(offered))


async def _loop(
    question: str, tools: _Tools, rec: Recorder, options: RunOptions, config: ModelConfig, transport: Any
) -> str:
    setup = await tools.list()
    model = ModelClient(config, rec, api=tools.api, transport=transport)
    if isinstance(tools, _McpTools) and tools.host is not None:
        tools.host.model = model  # a server that asks for sampling is answered by the run's own model
    api = model.api
    definitions = [api.tool(spec) for spec in setup.tools]
    conversation = Conversation("\n\n".join([SYSTEM_PROMPT, *setup.context]))
    if setup.prompt_messages is not None:
        conversation.items += [Native(m) for m in setup.prompt_messages]
    else:
        conversation.items.append(question)
    told: set[str] = set()
    _check_choice(options.tool_choice, [spec.name for spec in setup.tools])
    async with model:
        # max_rounds tool rounds, then one more request for the answer that uses their results.
        for round_no in range(1, options.max_rounds + 2):
            rec.round = round_no
            changed = await tools.relisted() if round_no > 1 else None
            if changed is not None:
                definitions = [api.tool(spec) for spec in changed]
            rec.step = Step.ASK_MODEL if round_no == 1 else Step.BACKFILL
            settings = Settings(
                model.config.model,
                tool_choice=options.tool_choice if round_no == 1 else "auto",
                parallel=options.parallel,
                stream=options.stream,
                adapt=options.adapt,
                previous_response_id=previous_response(conversation) if options.previous_response else None,
            )
            request = api.request(conversation, definitions, settings)
            # A change is told on the first request that makes it; later requests repeat the changed history.
            rec.adaptations = [a.as_json() for a in request.adapted if a.path not in told]
            told.update(a.path for a in request.adapted)
            since = rec.hops[-1].seq if rec.hops else 0
            turn = await ask_model(model, rec, request.body, timeout_s=model.config.timeout_s)
            rec.adaptations = []
            record_report(rec, api, turn, since)
            if not turn.calls:
                answer = turn.text or ""
                rec.add(hops.answer(answer, empty_line=EMPTY_ANSWER["en"]))
                return answer
            if round_no > options.max_rounds:
                raise FlowAbort("max_rounds", rounds=options.max_rounds)
            if len(turn.calls) > MAX_CALLS_PER_TURN:  # each would be a real tools/call, and the run has deadlines
                raise FlowAbort("too_many_calls", count=len(turn.calls), limit=MAX_CALLS_PER_TURN)
            conversation.items.append(turn)
            rec.step = Step.CALL_TOOL
            results: list[ToolOutput | None] = [None] * len(turn.calls)

            async def run_one(out: list[ToolOutput | None], i: int, call: Call) -> None:
                out[i] = await tools.call(call)

            async with anyio.create_task_group() as tg:
                for i, call in enumerate(turn.calls):
                    tg.start_soon(run_one, results, i, call)
            conversation.items += [output for output in results if output is not None]
    raise AssertionError("unreachable: the loop returns an answer or stops")


_PROBE_SETTINGS = (
    "era",
    "transport",
    "server_command",
    "server_env",
    "server_env_public",
    "server_url",
    "bearer_token_env",
)


"""What a probe of a server (no model) keeps of a run's settings: how the server was reached."""


async def _probe(
    spec: ServerSpec,
    *,
    era: Era,
    timeout_s: float,
    question: str,
    extra: dict[str, Any],
    work: Callable[[Any, Recorder], Any],
) -> tuple[RunResult, Any]:
    """Connect, do `work(client, recorder)` with no model involved, and record it all as a trace."""
    rec = Recorder(secrets=_server_secrets(spec))
    settings = RunOptions(era=era, transport=spec.transport).with_server(spec).settings()
    meta = TraceMeta(
        mode="mcp",
        question=question,
        server=spec.describe(),
        settings={**{k: v for k, v in settings.items() if k in _PROBE_SETTINGS}, **extra},
        started_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    )
    error: str | None = None
    value: Any = None
    tap: FrameTap | None = None
    rec.step = Step.LIST_TOOLS
    try:
        async with connect(spec, era=era, recorder=rec, timeout_s=timeout_s) as (client, tap, _err):
            meta.server = McpSession(client, tap, spec).describe()
            value = await work(client, rec)
    except Exception as exc:  # boundary: one line and a hop, as for a run
        failure = as_flow_error(exc, RunOptions(mcp_timeout_s=timeout_s), ModelConfig())
        error, meta.error_zh = failure.line("en"), failure.line("zh")
        rec.add(hops.run_failed({"error": type(leaf_exception(exc)).__name__, "message": error}, error, step=None))
    if tap is not None and spec.transport == "stdio" and not spec.is_http and meta.server is not None:
        meta.server["stderr_bytes"] = tap.stderr_bytes
    error, meta.error_zh = rec.scrub(error), rec.scrub(meta.error_zh)
    meta.outcome, meta.error = ("ok", None) if error is None else ("error", error)
    meta.stats = hop_stats(rec.hops, rec.now_ms())
    return RunResult(Trace(meta=meta, hops=rec.hops), None, error), value


async def inspect_server(
    spec: ServerSpec, *, era: Era = "handshake", timeout_s: float = 10.0
) -> tuple[RunResult, dict[str, list[dict[str, Any]]]]:
    """Connect, list what the server offers (tools, resources, prompts), and record it all as a trace."""

    async def listing(client: Any, rec: Recorder) -> dict[str, list[dict[str, Any]]]:
        listed: dict[str, list[dict[str, Any]]] = {"tools": [], "resources": [], "prompts": []}
        caps = client.server_capabilities
        if caps.tools is not None:
            listed["tools"] = [_dump(t) for t in (await client.list_tools()).tools]
        if caps.resources is not None:
            listed["resources"] = [_dump(r) for r in (await client.list_resources()).resources]
        if caps.prompts is not None:
            listed["prompts"] = [_dump(p) for p in (await client.list_prompts()).prompts]
        rec.add(hops.offered(listed))
        return listed

    result, listed = await _probe(
        spec,
        era=era,
        timeout_s=timeout_s,
        extra={},
        work=listing,
        question="(list the server's tools, resources and prompts)",
    )
    return result, listed or {"tools": [], "resources": [], "prompts": []}


async def call_server_tool(
    spec: ServerSpec, name: str, arguments: dict[str, Any], *, era: Era = "handshake", timeout_s: float = 10.0
) -> tuple[RunResult, dict[str, Any] | None]:
    """Connect, list the tools and call one directly, no model involved: the engineer's view of a server, recorded.

    The call carries a progress token, so a server that reports progress sends its
    notifications/progress frames and they are in the trace."""

    async def call(client: Any, rec: Recorder) -> dict[str, Any]:
        if client.server_capabilities.tools is not None:
            # As a host does before it calls: the listing (step 2) gives the SDK the tool's output schema, which
            # it would otherwise fetch with a tools/list of its own after the call, in the middle of steps 6 and 7.
            await client.list_tools()
        rec.step = Step.CALL_TOOL
        try:
            result = _dump(await client.call_tool(name, arguments, progress_callback=_progress_seen))
        except MCPError as exc:
            if exc.code in (CONNECTION_CLOSED, REQUEST_TIMEOUT):
                raise  # the server went away or quiet: connect() says which
            raise FlowAbort("tool_call_error", name=name, code=exc.code, message=exc.message) from None
        content = _content_text(result)
        rec.add(hops.call_answered(result, content, call_id=None))
        return result

    shown = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())
    return await _probe(
        spec,
        era=era,
        timeout_s=timeout_s,
        extra={"tool": name, "arguments": arguments},
        work=call,
        question=f"(call the tool {name}({shown}) directly)",
    )
