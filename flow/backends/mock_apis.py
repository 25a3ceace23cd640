"""The offline mock model's answers in OpenAI Responses and Anthropic Messages, beside its Chat Completions.

The mock decides the same way whatever API it is asked through (`flow.backends.mock`): it reads the question, the
tools and the calls so far out of the request, then writes its decision in the API's own shapes, as the official API
references give them, its errors in the API's own error body. The model names choose the same behaviours where
they apply: arguments that are not JSON, arguments that miss a field, a tool that does not exist, HTTP errors, a
slow answer, an empty answer, a model that never stops calling, and a refusal of `strict` or of one call at a
time. The quirks of some Chat Completions servers (`mock-quirky`, `mock-llamacpp`) are theirs: asked through the
other APIs, those names answer as `mock` does.

Responses keeps what it answered, so that a follow-up may name it by `previous_response_id` and send only what is
new; the store is the caller's (one per transport, or per `mock-server`) and holds at most `STORED_RESPONSES`.
"""

from __future__ import annotations

import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from flow.backends.mock import (
    _ERRORS,
    MODEL_NAMES,
    SLOW_SECONDS,
    Call,
    Conversation,
    MockReply,
    _Attempt,
    _decide,
    _ids,
    _text,
)
from flow.trace.json_text import read_json_text
from flow.trace.model import as_dict
from flow.trace.stats import estimate_tokens

STORED_RESPONSES = 1000  # responses a mock keeps for previous_response_id; the oldest go first


ResponseStore = OrderedDict[str, list[dict[str, Any]]]


"""What a mock Responses endpoint answered: a response's id, and its whole input with its output after it."""


def new_store() -> ResponseStore:
    return OrderedDict()


# --- reading a request as the mock's conversation ----------------------------------------------------------------------


def _record_results(conv: Conversation, by_id: dict[str, _Attempt], call_id: Any, text: str) -> None:
    attempt = by_id.get(str(call_id))
    if attempt is not None:
        attempt.result = text
        attempt.ok = not text.lstrip().lower().startswith("error")


def _args(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict):
        return value
    ok, parsed = read_json_text(value or "{}") if isinstance(value, str) else (False, None)
    return parsed if ok and isinstance(parsed, dict) else None


def _responses_conversation(items: list[Any], tools: list[Any]) -> Conversation:
    conv = Conversation(question="", tools={})
    for t in tools:
        if isinstance(t, dict) and t.get("type") == "function" and t.get("name"):
            conv.tools[t["name"]] = t
    by_id: dict[str, _Attempt] = {}
    calling = False  # inside a run of function_call items: one model turn
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "function_call":
            if not calling:
                conv.rounds += 1
            calling = True
            attempt = _Attempt(str(item.get("name") or ""), _args(item.get("arguments")))
            conv.attempts.append(attempt)
            by_id[str(item.get("call_id"))] = attempt
            continue
        calling = False
        if kind == "function_call_output":
            output = item.get("output")
            _record_results(conv, by_id, item.get("call_id"), output if isinstance(output, str) else _text(output))
        elif item.get("role") == "user":
            content = item.get("content")
            conv.question = content if isinstance(content, str) else _parts_text(content)
    return conv


def _parts_text(content: Any) -> str:
    if not isinstance(content, list):
        return ""
    return "".join(str(p.get("text") or "") for p in content if isinstance(p, dict) and "text" in p)


def _messages_conversation(messages: list[Any], tools: list[Any]) -> Conversation:
    conv = Conversation(question="", tools={})
    for t in tools:
        if isinstance(t, dict) and t.get("name") and "input_schema" in t:
            conv.tools[t["name"]] = {**t, "parameters": t["input_schema"]}
    by_id: dict[str, _Attempt] = {}
    for m in messages:
        if not isinstance(m, dict):
            continue
        content = m.get("content")
        blocks = content if isinstance(content, list) else []
        if m.get("role") == "assistant":
            uses = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
            conv.rounds += bool(uses)
            for b in uses:
                attempt = _Attempt(str(b.get("name") or ""), _args(b.get("input")))
                conv.attempts.append(attempt)
                by_id[str(b.get("id"))] = attempt
        elif m.get("role") == "user":
            results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
            for b in results:
                given = b.get("content")
                text = given if isinstance(given, str) else _parts_text(given)
                _record_results(conv, by_id, b.get("tool_use_id"), text)
            if not results:
                conv.question = content if isinstance(content, str) else _parts_text(content)
    return conv


def _decision(conv: Conversation, body: dict[str, Any], *, dialect: _Dialect, model: str) -> list[Call] | str:
    choice = body.get("tool_choice")
    view = {"tool_choice": dialect.chat_choice(choice), "parallel_tool_calls": dialect.parallel(body)}
    behaviour = model if model not in ("mock-quirky", "mock-llamacpp") else "mock"
    decision = _decide(conv, view, behaviour)
    return "" if model == "mock-empty" and isinstance(decision, str) else decision


def _usage_counts(body: dict[str, Any], decision: list[Call] | str) -> tuple[int, int]:
    prompt = json.dumps([body.get("input") or body.get("messages"), body.get("tools")], ensure_ascii=False)
    out = decision if isinstance(decision, str) else json.dumps([c.__dict__ for c in decision], ensure_ascii=False)
    return estimate_tokens(prompt), estimate_tokens(out)


def _pieces(text: str, n: int) -> list[str]:
    size = max(1, math.ceil(len(text) / n))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


# --- OpenAI Responses --------------------------------------------------------------------------------------------------


def _openai_error(status: int, message: str, kind: str, *, param: str | None = None, code: Any = None) -> MockReply:
    return MockReply(status, {"error": {"message": message, "type": kind, "param": param, "code": code}})


def _anthropic_error(status: int, kind: str, message: str) -> MockReply:
    return MockReply(status, {"type": "error", "error": {"type": kind, "message": message}})


_NOT_ALLOWED = (
    "the mock provider reaches only the MCP servers its operator configured for this run; it did not contact {url!r}"
)


@dataclass(frozen=True)
class _Dialect:
    """How one provider's API words what the mock's shared decisions read and its refusals: its tool_choice as Chat
    Completions' (which the mock's decision takes), whether it allows parallel calls, the field a no-parallel model
    refuses, and its errors."""

    chat_choice: Callable[[Any], Any]
    parallel: Callable[[dict[str, Any]], bool]
    parallel_field: Callable[[dict[str, Any]], str | None]  # the field naming parallel calls, when the body has it
    error: Callable[[int, str, str, Any], MockReply]  # status, message, OpenAI's error type, OpenAI's code
    not_found: Callable[[str], MockReply]
    refused: Callable[[str], MockReply]
    not_allowed: Callable[[str], MockReply]  # hosted MCP: a server the mock may not reach, by its URL


def _responses_choice(choice: Any) -> Any:
    if isinstance(choice, dict) and choice.get("type") == "function":
        return {"type": "function", "function": {"name": choice.get("name")}}
    return choice if choice is not None else "auto"


def _messages_choice(choice: Any) -> Any:
    kind = choice.get("type") if isinstance(choice, dict) else "auto"
    if kind == "tool":
        return {"type": "function", "function": {"name": choice.get("name")}}
    return {"any": "required", "none": "none"}.get(str(kind), "auto")


def _disables_parallel(body: dict[str, Any]) -> bool:
    choice = body.get("tool_choice")
    return isinstance(choice, dict) and "disable_parallel_tool_use" in choice


RESPONSES = _Dialect(
    chat_choice=_responses_choice,
    parallel=lambda body: body.get("parallel_tool_calls") is not False,
    parallel_field=lambda body: "parallel_tool_calls" if "parallel_tool_calls" in body else None,
    error=lambda status, message, kind, code: _openai_error(status, message, kind, code=code),
    not_found=lambda model: _openai_error(
        404, f"The model `{model}` does not exist or you do not have access to it.", "invalid_request_error",
        code="model_not_found",
    ),
    refused=lambda field: _openai_error(
        400, f"Unrecognized request argument supplied: {field}", "invalid_request_error", param=field
    ),
    not_allowed=lambda url: _openai_error(
        424, _NOT_ALLOWED.format(url=url), "invalid_request_error", code="mcp_server_not_allowed"
    ),
)  # fmt: skip


MESSAGES = _Dialect(
    chat_choice=_messages_choice,
    parallel=lambda body: as_dict(body.get("tool_choice")).get("disable_parallel_tool_use") is not True,
    parallel_field=lambda body: "tool_choice.disable_parallel_tool_use" if _disables_parallel(body) else None,
    error=lambda status, message, _kind, _code: _anthropic_error(
        status, {401: "authentication_error", 429: "rate_limit_error"}.get(status, "api_error"), message
    ),
    not_found=lambda model: _anthropic_error(404, "not_found_error", f"model: {model}"),
    refused=lambda field: _anthropic_error(400, "invalid_request_error", f"{field}: Extra inputs are not permitted"),
    not_allowed=lambda url: _anthropic_error(400, "invalid_request_error", _NOT_ALLOWED.format(url=url)),
)


def _common_refusal(body: dict[str, Any], *, dialect: _Dialect) -> MockReply | None:
    """The answers that do not depend on the conversation: an error model, an unknown model, a refused option."""
    model = str(body.get("model") or "mock")
    if model.startswith("mock-error-"):
        code = model.rsplit("-", 1)[-1]
        err_code, message, err_type = _ERRORS.get(code, _ERRORS["500"])
        return dialect.error(int(code) if code in _ERRORS else 500, message, err_type, err_code)
    if model not in MODEL_NAMES:
        return dialect.not_found(model)
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    if model == "mock-no-strict" and any(t.get("strict") is True for t in tools):
        return dialect.refused("strict")
    if model == "mock-no-parallel" and (field := dialect.parallel_field(body)) is not None:
        return dialect.refused(field)
    return None


def respond_responses(body: dict[str, Any], store: ResponseStore) -> MockReply:
    """Answer one `POST /v1/responses` body."""
    refused = _common_refusal(body, dialect=RESPONSES)
    if refused is not None:
        return refused
    items = items_so_far(body, store)
    if isinstance(items, MockReply):
        return items
    model = str(body.get("model") or "mock")
    conv = _responses_conversation(items, list(body.get("tools") or []))
    decision = _decision(conv, body, dialect=RESPONSES, model=model)
    response_id, digest = _ids(body)
    response_id = "resp_" + response_id.removeprefix("chatcmpl-")
    output: list[dict[str, Any]]
    if isinstance(decision, str):
        text = {"type": "output_text", "text": decision, "annotations": []}
        output = [
            {
                "type": "message",
                "id": f"msg_{digest[:24]}",
                "status": "completed",
                "role": "assistant",
                "content": [text],
            }
        ]
    else:
        output = [
            {
                "type": "function_call",
                "id": f"fc_{digest[20 + 8 * i : 28 + 8 * i]}{i}",
                "call_id": f"call_{digest[20 + 8 * i : 28 + 8 * i]}{i}",
                "name": c.name,
                "arguments": c.arguments,
                "status": "completed",
            }
            for i, c in enumerate(decision)
        ]
    response = store_response(body, items, output, store, usage=_usage_counts(body, decision), id_=response_id)
    delay = SLOW_SECONDS if model == "mock-slow" else 0.0
    if body.get("stream"):
        return MockReply(200, chunks=list(_response_events(response)), delay_s=delay, named=True)
    return MockReply(200, response, delay_s=delay)


def items_so_far(body: dict[str, Any], store: ResponseStore) -> list[Any] | MockReply:
    """A Responses request's whole conversation: its input after what the response it names held, or the error for a
    `previous_response_id` this endpoint does not keep."""
    given = body.get("input")
    items: list[Any] = [{"role": "user", "content": given}] if isinstance(given, str) else list(given or [])
    previous = body.get("previous_response_id")
    if previous is None:
        return items
    if previous not in store:
        return _openai_error(
            400,
            f"Previous response with id '{previous}' not found.",
            "invalid_request_error",
            param="previous_response_id",
            code="previous_response_not_found",
        )
    return [*store[previous], *items]


def store_response(
    body: dict[str, Any],
    items: list[Any],
    output: list[dict[str, Any]],
    store: ResponseStore,
    *,
    usage: tuple[int, int],
    id_: str | None = None,
) -> dict[str, Any]:
    """The response object for `output`, kept in `store` (with the input it followed) for `previous_response_id`."""
    response_id = id_ or "resp_" + _ids(body)[0].removeprefix("chatcmpl-")
    model = str(body.get("model") or "mock")
    previous = body.get("previous_response_id")
    store[response_id] = [*items, *output]
    while len(store) > STORED_RESPONSES:
        store.popitem(last=False)
    prompt_tokens, output_tokens = usage
    response: dict[str, Any] = {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "model": model,
        "output": output,
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "previous_response_id": previous,
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools") or [],
        "usage": {
            "input_tokens": prompt_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt_tokens + output_tokens,
        },
    }
    return response


def _response_events(response: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A response as the typed events of its stream, numbered."""
    n = 0

    def event(kind: str, **fields: Any) -> dict[str, Any]:
        nonlocal n
        n += 1
        return {"type": kind, "sequence_number": n - 1, **fields}

    started = {**response, "status": "in_progress", "output": [], "usage": None}
    yield event("response.created", response=started)
    yield event("response.in_progress", response=started)
    for i, item in enumerate(response["output"]):
        if item["type"] == "function_call":
            yield event(
                "response.output_item.added", output_index=i, item={**item, "arguments": "", "status": "in_progress"}
            )
            for piece in _pieces(item["arguments"], 3):
                yield event("response.function_call_arguments.delta", item_id=item["id"], output_index=i, delta=piece)
            yield event(
                "response.function_call_arguments.done",
                item_id=item["id"],
                output_index=i,
                name=item["name"],
                arguments=item["arguments"],
            )
        elif item["type"] != "message":  # a hosted tool's item (mcp_list_tools, mcp_call, ...): added, then done
            yield event("response.output_item.added", output_index=i, item={**item, "status": "in_progress"})
        else:
            part = item["content"][0]
            yield event(
                "response.output_item.added", output_index=i, item={**item, "status": "in_progress", "content": []}
            )
            empty = {**part, "text": ""}
            yield event("response.content_part.added", item_id=item["id"], output_index=i, content_index=0, part=empty)
            for piece in _pieces(part["text"], max(2, len(part["text"]) // 8)):
                yield event(
                    "response.output_text.delta",
                    item_id=item["id"],
                    output_index=i,
                    content_index=0,
                    delta=piece,
                    logprobs=[],
                )
            yield event(
                "response.output_text.done",
                item_id=item["id"],
                output_index=i,
                content_index=0,
                text=part["text"],
                logprobs=[],
            )
            yield event("response.content_part.done", item_id=item["id"], output_index=i, content_index=0, part=part)
        yield event("response.output_item.done", output_index=i, item=item)
    yield event("response.completed", response=response)


# --- Anthropic Messages ------------------------------------------------------------------------------------------------


def respond_messages(body: dict[str, Any]) -> MockReply:
    """Answer one `POST /v1/messages` body."""
    refused = _common_refusal(body, dialect=MESSAGES)
    if refused is not None:
        return refused
    if not isinstance(body.get("max_tokens"), int):
        return _anthropic_error(400, "invalid_request_error", "max_tokens: Field required")
    if not isinstance(body.get("messages"), list) or not body["messages"]:
        return _anthropic_error(400, "invalid_request_error", "messages: at least one message is required")
    model = str(body.get("model") or "mock")
    conv = _messages_conversation(body["messages"], list(body.get("tools") or []))
    decision = _decision(conv, body, dialect=MESSAGES, model=model)
    message_id, digest = _ids(body)
    content: list[dict[str, Any]]
    if isinstance(decision, str):
        content, stop = [{"type": "text", "text": decision}], "end_turn"
    else:
        content = [
            {
                "type": "tool_use",
                "id": f"toolu_{digest[20 + 8 * i : 28 + 8 * i]}{i}",
                "name": c.name,
                # Messages sends the arguments as an object; the mock's broken JSON stays text where it cannot be one
                "input": _args(c.arguments) if _args(c.arguments) is not None else c.arguments,
            }
            for i, c in enumerate(decision)
        ]
        stop = "tool_use"
    prompt_tokens, output_tokens = _usage_counts(body, decision)
    message = {
        "id": "msg_" + message_id.removeprefix("chatcmpl-"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": prompt_tokens, "output_tokens": output_tokens},
    }
    delay = SLOW_SECONDS if model == "mock-slow" else 0.0
    if body.get("stream"):
        return MockReply(200, chunks=list(_message_events(message, decision)), delay_s=delay, named=True)
    return MockReply(200, message, delay_s=delay)


def _message_events(message: dict[str, Any], decision: list[Call] | str) -> Iterator[dict[str, Any]]:
    """A message as the events of its stream: the input of a tool_use in pieces of its JSON text."""
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    yield {"type": "message_start", "message": start}
    for i, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}
            for piece in _pieces(block["text"], max(2, len(block["text"]) // 8)):
                yield {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": piece}}
        elif block["type"] != "tool_use":  # the MCP connector's blocks come whole
            yield {"type": "content_block_start", "index": i, "content_block": block}
        else:
            yield {"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}}
            assert not isinstance(decision, str)
            text = decision[i].arguments  # the JSON text the model wrote, streamed as it is
            for piece in _pieces(text, 3):
                yield {
                    "type": "content_block_delta",
                    "index": i,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                }
        yield {"type": "content_block_stop", "index": i}
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": {"output_tokens": usage["output_tokens"]},
    }
    yield {"type": "message_stop"}
