"""What the host answers when an MCP server asks it something: its model (sampling), its user (elicitation) and
its folders (roots).

These are the SDK client's callbacks. The SDK calls them the same way in both protocol eras: for a request the
server sent back over the session (2025-11-25) and for each input request of an input-required result (2026-07-28),
which it then sends back in a retried call. What they do is recorded: a sampling request goes to the run's own model
through the model API's format and tap (its hops marked as made for the server), a question goes to the user (a
`user.input` hop each way); the frames themselves are recorded by the frame tap like any other.

Every question is bounded: a sampling request asking for more than `MAX_SAMPLING_TOKENS` or carrying more than
`MAX_SAMPLING_BYTES` is refused, a server may ask at most `MAX_ASKS` times in a run, and a question to the user
is cancelled after the run's `elicit_timeout_s`; each is an error hop and one line.
"""

from __future__ import annotations

import collections
import contextlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import anyio
from mcp.client.context import ClientRequestContext
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    ElicitRequestParams,
    ElicitRequestURLParams,
    ElicitResult,
    ErrorData,
    ListRootsResult,
    Root,
    SamplingCapability,
    SamplingMessage,
    SamplingMessageContentBlock,
    SamplingToolsCapability,
    TextContent,
    ToolResultContent,
    ToolUseContent,
)
from pydantic import FileUrl, ValidationError

from flow.capture.recorder import SERVER_ASK, Recorder
from flow.engine.asking import ask_model
from flow.engine.model import ModelClient
from flow.trace import hops
from flow.trace.json_text import read_json_text
from flow.trace.model import Hop
from flow.trace.payloads import ServerAsk, UserInputPayload
from flow.wire.base import CallWritten, Conversation, Item, Native, Settings, ToolOutput, ToolSpec, Turn, WireApi

MAX_SAMPLING_TOKENS = 2048  # the most a server may ask the host's model to write for it
MAX_SAMPLING_BYTES = 64 * 1024  # the most text a server may send the host's model in one sampling request
MAX_ASKS = 20  # the most questions (of every kind) a server may ask in one run
MAX_FIELDS = 64  # the most fields a server's form may ask for
MAX_CHOICES = 1000  # the most choices one field may offer
MAX_PAGES = 5  # the most pages one error -32042 may ask the user to visit
MAX_INPUT_ROUNDS = 10  # 2026-07-28: the most input-required rounds one call may take (the SDK's own default)
USER_REJECTED = -1  # the spec's error for a sampling request the user denied ("User rejected sampling request")

Action = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class SampledMessage:
    """One message of a server's sampling request as the person approving it reads it."""

    role: str
    text: str  # the text the host's model would be sent (a tool's use or result, an image, named)
    editable: bool  # a message of text alone, which the person may rewrite before it is sent


@dataclass(frozen=True)
class SamplingRequest:
    """What a server's sampling request would send the host's model, shown before anything is sent."""

    system_prompt: str
    messages: tuple[SampledMessage, ...]
    tools: tuple[str, ...]  # the names of the server's tools offered to the model with it
    max_tokens: int


@dataclass(frozen=True)
class Question:
    """A server's question to the user, as the host shows it; or (mode "sampling") the host's own question to its
    user: may the server's request go to the model? An accepted answer's content may carry the edits: "texts" (one
    per message; an editable one rewritten) and "max_tokens"."""

    message: str
    mode: str  # "form" | "url" | "sampling"
    schema: dict[str, Any]  # form mode: the JSON Schema of the fields asked for
    url: str = ""
    sampling: SamplingRequest | None = None


@dataclass(frozen=True)
class Answer:
    action: Action
    content: dict[str, Any] = field(default_factory=dict[str, Any])
    answered_by: str = "options"


class Answerer(Protocol):
    """Whoever answers for the user: the run's options, a prompt on the terminal, a form on the Run page."""

    async def __call__(self, question: Question) -> Answer: ...


@dataclass(frozen=True)
class GivenAnswers:
    """The answers a run was started with (`--answer field=value`, `--decline`, `--cancel`): each field's value
    typed as the form asks (a number, a yes/no, one of its choices); a form whose required fields were not all given
    is cancelled, never filled in by guess. A sampling request is denied: nobody is there to approve it."""

    values: Mapping[str, str]
    action: Action = "accept"

    async def __call__(self, question: Question) -> Answer:
        if question.mode == "sampling":  # nobody to ask: the safe answer is no (`--approve-sampling` says yes)
            return Answer("decline", answered_by="nobody")
        if question.mode == "url":  # whether the user goes to the page: `--answer open=yes` or `open=no`
            said = typed_value({"type": "boolean"}, self.values.get("open", ""))
            if self.action != "accept" or said is None:
                return Answer(self.action if self.action != "accept" else "cancel")
            return Answer("accept" if said else "decline")
        if self.action != "accept":
            return Answer(self.action)
        content, missing = form_values(question.schema, self.values)
        return Answer("cancel") if missing else Answer("accept", content)


def form_fields(schema: Mapping[str, Any]) -> list[tuple[str, dict[str, Any], bool]] | str:
    """A form's fields as (name, schema, required), or the one line saying why no one can fill it in. The SDK takes
    any object as a `requestedSchema`; the spec allows a flat object of primitive fields (text, number, yes/no, one
    or several of a list of choices), and a form outside that is refused, never half-shown or guessed at."""
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    if not isinstance(properties, dict):
        return "its properties are not an object of fields"
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        return "its required is not a list of field names"
    if len(properties) > MAX_FIELDS:
        return f"it has {len(properties)} fields; the host shows at most {MAX_FIELDS}"
    fields: list[tuple[str, dict[str, Any], bool]] = []
    for name, prop in properties.items():
        problem = _field_problem(prop)
        if problem is not None:
            return f"field {name!r} {problem}"
        fields.append((name, prop, name in required))
    return fields


def _field_problem(prop: Any) -> str | None:
    """Why one field of a form is outside what the spec allows, or None."""
    if not isinstance(prop, dict):
        return "is not a schema"
    kind = prop.get("type", "string")
    if kind not in ("string", "number", "integer", "boolean", "array"):
        return f"is of type {str(kind)[:40]}; a form holds only text, numbers, yes/no and choices"
    if kind == "array":
        items = prop.get("items")
        if not isinstance(items, dict) or field_choices(items) is None:
            return "is a list but not of choices"
        return _choices_problem(items)
    low, high = prop.get("minimum"), prop.get("maximum")
    if isinstance(low, (int, float)) and isinstance(high, (int, float)) and low > high:
        return f"asks for a number from {low} to {high}"
    return _choices_problem(prop)


def _choices_problem(prop: Mapping[str, Any]) -> str | None:
    enum = prop.get("enum")
    if isinstance(enum, list) and not enum:
        return "offers no choice"
    groups = [enum] if isinstance(enum, list) else []
    groups += [[o.get("const") for o in prop[k] if isinstance(o, dict)] for k in _ONE if isinstance(prop.get(k), list)]
    for values in groups:
        if not all(_primitive(v) for v in values):
            return "offers a choice that is not a text, a number or yes/no"
        if len(values) > MAX_CHOICES:
            return f"offers {len(values)} choices; the host shows at most {MAX_CHOICES}"
    return None


def _primitive(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


_ONE = ("oneOf", "anyOf")


def form_values(schema: Mapping[str, Any], given: Mapping[str, str]) -> tuple[dict[str, Any], list[str]]:
    """The values of a form from text answers, typed by its schema's fields; and the required fields not given (or
    given a value the field refuses). A form no one can fill in (`form_fields`) has every required field missing."""
    fields = form_fields(schema)
    if isinstance(fields, str):
        return {}, [fields]
    content: dict[str, Any] = {}
    missing: list[str] = []
    for name, prop, required in fields:
        text = given.get(name)
        value = None if text is None else typed_value(prop, text)
        if value is None:
            if required:
                missing.append(name)
            continue
        content[name] = value
    return content, missing


def field_choices(prop: Mapping[str, Any]) -> tuple[list[Any], dict[Any, str]] | None:
    """A form field's choices and their titles, in each shape the spec gives them (`enum`, `enum` with
    `enumNames`, `oneOf`/`anyOf` of `const` and `title`); None when the field is free."""
    if isinstance(prop.get("enum"), list):
        values = list(prop["enum"])
        if not all(_primitive(v) for v in values):  # a choice that cannot be shown or told apart
            return None
        names = prop.get("enumNames")
        titles = dict(zip(values, names, strict=False)) if isinstance(names, list) else {}
        return values, {v: str(titles.get(v, v)) for v in values}
    for key in ("oneOf", "anyOf"):
        options = prop.get(key)
        if (
            isinstance(options, list)
            and options
            and all(isinstance(o, dict) and _primitive(o.get("const", [])) for o in options)
        ):
            return [o["const"] for o in options], {o["const"]: str(o.get("title", o["const"])) for o in options}
    return None


def typed_value(prop: Mapping[str, Any], text: str) -> Any:
    """`text` as the field `prop` takes it, or None when it cannot be: one of its choices (by value or by title), a
    list of them for a multi-select (comma-separated), a yes/no, a number, or the text."""
    kind = prop.get("type", "string")
    if kind == "array":
        items = prop.get("items") if isinstance(prop.get("items"), dict) else {}
        picked = [typed_value(items or {}, part.strip()) for part in text.split(",") if part.strip()]
        return None if any(p is None for p in picked) else picked
    listed = field_choices(prop)
    if listed is not None:
        values, titles = listed
        return next((v for v in values if text.strip() in (str(v), titles[v])), None)
    if kind == "boolean":
        lowered = text.strip().lower()
        return (
            True
            if lowered in ("true", "yes", "y", "1", "是")
            else False
            if lowered in ("false", "no", "n", "0", "否")
            else None
        )
    if kind in ("number", "integer"):
        try:
            number = float(text) if kind == "number" else int(text)
        except ValueError:
            return None
        return number
    return text


@dataclass
class Host:
    """The host's answers to one run's server: its model for sampling, `answerer` for the user, `roots` for its
    folders. `model` is set once the run has opened its model client (the server cannot ask before a call)."""

    rec: Recorder
    answerer: Answerer
    roots: list[str]
    elicit_timeout_s: float
    model: ModelClient | None = None
    modern: bool = False  # 2026-07-28: a question comes as an input request of a result, named by its key
    approve_sampling: bool = False  # the operator approved every sampling request of the run
    asked: int = 0
    busy_s: float = 0.0  # time spent answering the server (its user's form, its model call), ended answers
    _answering: list[float] = field(default_factory=list[float])  # when each answer under way began

    def busy_since(self, start: float) -> float:
        """Seconds since `start` (anyio's clock) the host spent answering the server: the time a call's own clock
        does not count, since the server was waiting on the host, not working."""
        now = anyio.current_time()
        return self.busy_s + sum(now - max(t, start) for t in self._answering)

    @contextlib.contextmanager
    def answering(self) -> Iterator[None]:
        began = anyio.current_time()
        self._answering.append(began)
        try:
            yield
        finally:
            self._answering.remove(began)
            self.busy_s += anyio.current_time() - began

    def callbacks(self, capabilities: tuple[str, ...]) -> dict[str, Any]:
        """The SDK client's callbacks for the capabilities the host declares (the SDK declares what it is given)."""
        given = {
            "sampling": ("sampling_callback", self.sampling),
            "elicitation": ("elicitation_callback", self.elicitation),
            "roots": ("list_roots_callback", self.list_roots),
        }
        chosen: dict[str, Any] = dict(given[c] for c in capabilities if c in given)
        if "sampling" in capabilities:  # the host's model may use the tools a server offers in its request
            chosen["sampling_capabilities"] = SamplingCapability(tools=SamplingToolsCapability())
        return {"input_required_max_rounds": MAX_INPUT_ROUNDS, **chosen}

    def _ask(self, method: str, context: ClientRequestContext) -> ServerAsk:
        """The server's request being answered: by its JSON-RPC id when it came over the session (2025-11-25), by
        its key among the input requests of an input-required result (2026-07-28)."""
        rid = context.request_id
        if not isinstance(rid, (int, str)):
            return hops.server_ask(method)
        return hops.server_ask(method, key=str(rid)) if self.modern else hops.server_ask(method, jsonrpc_id=rid)

    def _count(self, ask: ServerAsk) -> ErrorData | None:
        self.asked += 1
        if self.asked <= MAX_ASKS:
            return None
        return self._refuse(ask, f"the server asked more than {MAX_ASKS} times in one run; no more are answered")

    def _refuse(self, ask: ServerAsk, reason: str, *, code: int = INVALID_REQUEST) -> ErrorData:
        self.rec.add(
            hops.client_failed({"error": "refused", "asked": ask, "reason": reason}, reason, step=self.rec.step)
        )
        return ErrorData(code=code, message=reason)

    async def sampling(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | CreateMessageResultWithTools | ErrorData:
        ask = self._ask("sampling/createMessage", context)
        refused = self._count(ask) or self._sampling_refused(ask, params)
        if refused is not None:
            return refused
        model = self.model
        assert model is not None, "a server asks only during a call, after the run opened its model"
        approved = await self._approved(ask, params, paid=model.config.backend == "openai")
        if isinstance(approved, ErrorData):
            return approved
        params = approved
        api = model.api
        conversation = Conversation(params.system_prompt or "", [i for m in params.messages for i in _items(m, api)])
        # The server's tools go to the model only for this request (sampling with tools); the host runs none of them.
        tools = [api.tool(ToolSpec(t.name, t.description or "", t.input_schema)) for t in params.tools or []]
        choice = (params.tool_choice.mode if params.tool_choice else None) or "auto"
        request = api.request(conversation, tools, Settings(model.config.model, tool_choice=choice, stream=False))
        body = dict(request.body)
        if not tools:  # no tool keys at all: a provider may refuse an empty list
            body = {k: v for k, v in body.items() if k not in _TOOL_KEYS}
        body[api.max_tokens_field] = params.max_tokens
        token = SERVER_ASK.set(ask)
        try:
            with self.answering():
                turn = await ask_model(model, self.rec, body, timeout_s=model.config.timeout_s)
        finally:
            SERVER_ASK.reset(token)
        if params.tools or params.tool_choice:
            return self._with_tools(ask, turn, model.config.model)
        text = turn.text or ""
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=text),
            model=model.config.model,
            stop_reason="endTurn",
        )

    async def _approved(
        self, ask: ServerAsk, params: CreateMessageRequestParams, *, paid: bool
    ) -> CreateMessageRequestParams | ErrorData:
        """The server's request as it may go to the host's model (maybe edited), or the error that it may not. The
        spec wants a person able to see and deny each request: a model that costs nothing (mock, scripted,
        replayed) is sent at once, as is every request of a run whose operator approved them all (the trace's
        settings say which, `sampling_consent`); otherwise the answerer asks (a `user.input` hop each way), and
        anything but an approval is the error the spec names (-1, the user rejected the request)."""
        replaying = isinstance(self.answerer, ReplayedAnswers) and bool(self.answerer.sampling)
        if not replaying and (not paid or self.approve_sampling):
            return params
        shown = sampling_request(params)
        question = Question(message=_sampling_line(shown), mode="sampling", schema={}, sampling=shown)
        self.rec.add(
            hops.user_asked({"asked": ask, "mode": "sampling", "message": question.message, "sampling": _shown(shown)})
        )
        answer: Answer | None = None
        with self.answering(), anyio.move_on_after(self.elicit_timeout_s):
            answer = await self.answerer(question)
        answered: UserInputPayload = {"asked": ask, "mode": "sampling"}
        if answer is None:
            answered["action"], answered["timed_out"] = "cancel", self.elicit_timeout_s
        else:
            answered["action"], answered["answered_by"] = answer.action, answer.answered_by
        edited = edited_request(params, answer.content) if answer is not None and answer.action == "accept" else None
        if answer is not None and edited is not None and edited != params:
            answered["content"] = _edits(params, edited)
        self.rec.add(hops.user_answered(answered))
        if answer is None or edited is None:
            return self._rejected(ask, answer)
        return self._sampling_refused(ask, edited) or edited  # the person's edits are held to the same bounds

    def _rejected(self, ask: ServerAsk, answer: Answer | None) -> ErrorData:
        if answer is None:
            reason = f"User rejected sampling request: no answer within {self.elicit_timeout_s:g} s"
        elif answer.answered_by == "nobody":
            reason = "User rejected sampling request: nobody was there to approve it (--approve-sampling approves)"
        else:
            reason = "User rejected sampling request"
        self.rec.add(
            hops.client_failed({"error": "rejected", "asked": ask, "reason": reason}, reason, step=self.rec.step)
        )
        return ErrorData(code=USER_REJECTED, message=reason)

    def _with_tools(self, ask: ServerAsk, turn: Turn, model: str) -> CreateMessageResultWithTools | ErrorData:
        """The model's turn as a sampling result that may use the server's tools: its text and its `tool_use`
        blocks, which the server runs itself and sends back in its next sampling request."""
        content: list[SamplingMessageContentBlock] = [TextContent(type="text", text=turn.text)] if turn.text else []
        for call in turn.calls:
            arguments = call.parsed if call.parsed is not None else _object(call.arguments)
            if arguments is None:
                return self._refuse(ask, f"the model's arguments for {call.name} are not a JSON object")
            content.append(ToolUseContent(type="tool_use", id=call.id, name=call.name, input=arguments))
        return CreateMessageResultWithTools(
            role="assistant",
            content=content or [TextContent(type="text", text="")],
            model=model,
            stop_reason="toolUse" if turn.calls else "endTurn",
        )

    def _sampling_refused(self, ask: ServerAsk, params: CreateMessageRequestParams) -> ErrorData | None:
        if params.max_tokens > MAX_SAMPLING_TOKENS:
            return self._refuse(
                ask, f"the server asked the model for {params.max_tokens} tokens; the host allows {MAX_SAMPLING_TOKENS}"
            )
        size = len(params.model_dump_json(by_alias=True).encode())
        if size > MAX_SAMPLING_BYTES:
            return self._refuse(
                ask, f"the server's sampling request is {size} bytes; the host sends at most {MAX_SAMPLING_BYTES}"
            )
        return None

    async def elicitation(self, context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult | ErrorData:
        ask = self._ask("elicitation/create", context)
        refused = self._count(ask)
        if refused is not None:
            return refused
        data = params.model_dump(by_alias=True, exclude_none=True, mode="json")
        mode = str(data.get("mode") or "form")
        if mode != "url" and isinstance(fields := form_fields(data.get("requestedSchema") or {}), str):
            return self._refuse(ask, f"the server's form cannot be filled in: {fields}", code=INVALID_PARAMS)
        question = Question(
            message=str(data.get("message") or ""),
            mode=mode,
            schema=data.get("requestedSchema") or {},
            url=str(data.get("url") or ""),
        )
        asked: UserInputPayload = {"asked": ask, "mode": mode, "message": question.message}
        if mode == "url":
            asked["url"] = question.url
        else:
            asked["requested_schema"] = question.schema
        self.rec.add(hops.user_asked(asked))
        answer: Answer | None = None
        with self.answering(), anyio.move_on_after(self.elicit_timeout_s):
            answer = await self.answerer(question)
        answered: UserInputPayload = {"asked": ask}
        if answer is None:
            answered["action"], answered["timed_out"] = "cancel", self.elicit_timeout_s
            answer = Answer("cancel")
        else:
            answered["action"], answered["answered_by"] = answer.action, answer.answered_by
            if answer.action == "accept" and mode != "url":
                answered["content"] = answer.content
        self.rec.add(hops.user_answered(answered))
        if answer.action == "accept" and mode != "url":
            return ElicitResult(action="accept", content=answer.content)
        return ElicitResult(action=answer.action)

    async def offer_pages(self, error: ErrorData) -> str:
        """A tools/call answered with error -32042 (URL elicitation required, 2025-11-25): each page the server wants
        the user to visit first is offered to the user as a URL-mode question (never opened by the host), recorded a
        `user.input` hop each way; returns what to tell the model: each address and the user's answer. The host does
        not retry the call: the model may call the tool again once the user has been there."""
        data = error.data if isinstance(error.data, dict) else {}
        named = data.get("elicitations")
        offered: list[Any] = named if isinstance(named, list) else []
        told: list[str] = []
        for raw in offered[:MAX_PAGES]:
            try:
                page = ElicitRequestURLParams.model_validate(raw)
            except ValidationError:
                told.append("one page the server named is not a URL elicitation (not offered)")
                continue
            ask = hops.server_ask("elicitation/create", key=page.elicitation_id)
            if self._count(ask) is not None:
                break
            question = Question(message=page.message, mode="url", schema={}, url=page.url)
            self.rec.add(hops.user_asked({"asked": ask, "mode": "url", "message": page.message, "url": page.url}))
            answer: Answer | None = None
            with self.answering(), anyio.move_on_after(self.elicit_timeout_s):
                answer = await self.answerer(question)
            answered: UserInputPayload = {"asked": ask, "action": answer.action if answer else "cancel"}
            if answer is None:
                answered["timed_out"] = self.elicit_timeout_s
            else:
                answered["answered_by"] = answer.answered_by
            self.rec.add(hops.user_answered(answered))
            told.append(f"the user was asked to open {page.url} ({page.message}) and answered {answered['action']}")
        return "; ".join(told) or "the server named no page to open"

    async def list_roots(self, context: ClientRequestContext) -> ListRootsResult | ErrorData:
        refused = self._count(self._ask("roots/list", context))
        if refused is not None:
            return refused
        return ListRootsResult(
            roots=[Root(uri=FileUrl(Path(r).resolve().as_uri()), name=Path(r).name) for r in self.roots]
        )


_TOOL_KEYS = ("tools", "tool_choice", "parallel_tool_calls")


SamplingConsent = Literal["free", "operator", "asked"]


def sampling_consent(capabilities: tuple[str, ...], *, approve_sampling: bool, paid: bool) -> dict[str, str]:
    """How a run's sampling requests are approved, as its trace's settings name it: "free" (the model costs nothing,
    so none is asked about), "operator" (every request approved for the run: `--approve-sampling`, the Run page's
    switch), "asked" (a person approves each one); nothing when the host cannot be asked for its model."""
    if "sampling" not in capabilities:
        return {}
    consent: SamplingConsent = "asked" if paid and not approve_sampling else "operator" if paid else "free"
    return {"sampling_approval": consent}


def sampling_request(params: CreateMessageRequestParams) -> SamplingRequest:
    """A server's sampling request as the person approving it reads it."""
    return SamplingRequest(
        system_prompt=params.system_prompt or "",
        messages=tuple(SampledMessage(m.role, _text(m.content_as_list), _editable(m)) for m in params.messages),
        tools=tuple(t.name for t in params.tools or []),
        max_tokens=params.max_tokens,
    )


def edited_request(params: CreateMessageRequestParams, content: Mapping[str, Any]) -> CreateMessageRequestParams:
    """The request as the person approved it: an editable message's text rewritten ("texts", one per message) and
    maxTokens changed ("max_tokens", from 1 to the host's bound); anything else in `content` is left as asked."""
    texts = content.get("texts")
    messages = list(params.messages)
    for i, (message, text) in enumerate(zip(messages, texts if isinstance(texts, list) else [], strict=False)):
        if _editable(message) and isinstance(text, str) and text != _text(message.content_as_list):
            messages[i] = message.model_copy(update={"content": TextContent(type="text", text=text)})
    tokens = content.get("max_tokens")
    if isinstance(tokens, int) and not isinstance(tokens, bool):
        tokens = min(max(tokens, 1), MAX_SAMPLING_TOKENS)
    else:
        tokens = params.max_tokens
    return params.model_copy(update={"messages": messages, "max_tokens": tokens})


def _editable(message: SamplingMessage) -> bool:
    return all(isinstance(b, TextContent) for b in message.content_as_list)


def _sampling_line(shown: SamplingRequest) -> str:
    tools = f", {len(shown.tools)} tool(s) offered" if shown.tools else ""
    return f"sampling/createMessage: {len(shown.messages)} message(s){tools}, maxTokens {shown.max_tokens}"


def _shown(shown: SamplingRequest) -> dict[str, Any]:
    """The request as the trace records what the person was shown (the spec's field names)."""
    out: dict[str, Any] = {"messages": [{"role": m.role, "text": m.text} for m in shown.messages]}
    if shown.system_prompt:
        out["systemPrompt"] = shown.system_prompt
    if shown.tools:
        out["tools"] = list(shown.tools)
    out["maxTokens"] = shown.max_tokens
    return out


@dataclass
class ReplayedAnswers:
    """A replay's answerer: each of the host's sampling questions answered as the recording's user answered it (in
    order: approved, edited or denied again, whatever the model costs now), every other question by `others`."""

    sampling: collections.deque[Answer]
    others: Answerer

    async def __call__(self, question: Question) -> Answer:
        if question.mode == "sampling" and self.sampling:
            return self.sampling.popleft()
        return await self.others(question)


def recorded_sampling(hops_: Iterable[Hop]) -> collections.deque[Answer]:
    """The answers a recording's user gave to the host's sampling questions, in order, as a replay gives them again:
    the action, who answered, and the edits as `_edits` wrote them ("message N", "maxTokens"); a question left
    unanswered is a cancel."""
    out: collections.deque[Answer] = collections.deque()
    for hop in hops_:
        p = hop.payload if isinstance(hop.payload, dict) else {}
        if hop.kind != "user.input" or hop.direction != "response" or p.get("mode") != "sampling":
            continue
        given = p.get("content")
        edits: dict[str, Any] = given if isinstance(given, dict) else {}
        numbered = {int(k.split()[1]): v for k, v in edits.items() if re.fullmatch(r"message [1-9][0-9]{0,2}", k)}
        texts = [numbered.get(i) for i in range(1, max(numbered, default=0) + 1)]
        said = p.get("action")
        action: Action = "accept" if said == "accept" else "decline" if said == "decline" else "cancel"
        content = {"texts": texts, "max_tokens": edits.get("maxTokens")}
        by = p.get("answered_by")  # who answered then (a person, nobody): the server hears the same reason again
        out.append(Answer(action, content, answered_by=by if isinstance(by, str) else "recording"))
    return out


def _edits(asked: CreateMessageRequestParams, sent: CreateMessageRequestParams) -> dict[str, Any]:
    """What the person changed before approving: each rewritten message by its number, and maxTokens."""
    out: dict[str, Any] = {
        f"message {i + 1}": _text(b.content_as_list)
        for i, (a, b) in enumerate(zip(asked.messages, sent.messages, strict=True))
        if a != b
    }
    if asked.max_tokens != sent.max_tokens:
        out["maxTokens"] = sent.max_tokens
    return out


def _items(message: SamplingMessage, api: WireApi) -> list[Item]:
    """A sampling message as the conversation holds it: the user's text or the results of the server's tools; the
    assistant's text as a message every one of the three APIs takes in the same form ({"role": "assistant",
    "content": text}), or, when it used the server's tools, as the run's API writes a model's turn."""
    blocks = message.content_as_list
    results = [b for b in blocks if isinstance(b, ToolResultContent)]
    if results:
        return [ToolOutput(r.tool_use_id, _text(r.content), is_error=bool(r.is_error)) for r in results]
    uses = [b for b in blocks if isinstance(b, ToolUseContent)]
    text = _text([b for b in blocks if not isinstance(b, ToolUseContent)]) if len(uses) < len(blocks) else ""
    if message.role == "user":
        return [text]
    if uses:
        return [api.turn(text or None, [CallWritten(u.id, u.name, u.input) for u in uses])]
    return [Native({"role": "assistant", "content": text})]


def _object(arguments: str) -> dict[str, Any] | None:
    ok, value = read_json_text(arguments)
    return value if ok and isinstance(value, dict) else None


def _text(content: Any) -> str:
    """A sampling message's content as the text the host sends its model (images and audio are named, not sent)."""
    blocks = content if isinstance(content, list) else [content]
    parts = []
    for block in blocks:
        if isinstance(block, TextContent):
            parts.append(block.text)
        else:
            parts.append(f"[{getattr(block, 'type', 'content')} not sent]")
    return "\n".join(parts)


__all__ = [
    "Answer",
    "Answerer",
    "GivenAnswers",
    "Host",
    "Question",
    "SampledMessage",
    "SamplingRequest",
    "edited_request",
    "field_choices",
    "form_fields",
    "form_values",
    "sampling_consent",
    "sampling_request",
    "typed_value",
]
