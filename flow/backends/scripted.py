"""The scripted model: the user states each decision the model makes, so any MCP server can be
shown in class with no key and no network.

A script is a list of turns, in JSON or YAML; each turn is what the model answers to one request:

    - call: get_current_time            # one tool call
      arguments: {timezone: Asia/Shanghai}
    - calls:                            # several calls in one response (parallel)
        - {call: get_weather, arguments: {city: 北京}}
        - {call: get_weather, arguments: {city: 上海}}
    - answer: 北京和上海今天都是晴天。    # the final answer; leave it out to answer from the tool results

Turns are served through the real openai SDK by an httpx2 transport, as the mock model is, and the
hops they produce are marked as scripted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import yaml

from flow.backends.mock import Call, Conversation, EventStream, MockReply, answer_from_results, reply, words_alone
from flow.trace.files import json_value_problem
from flow.trace.json_text import read_json_text
from flow.wire.base import ApiName

SCRIPTED_APIS: tuple[ApiName, ...] = ("chat",)


"""The model APIs a script answers (it writes Chat Completions turns)."""


class ScriptError(ValueError):
    """A script that cannot be read; the message names the turn and what is wrong."""


@dataclass(frozen=True)
class Turn:
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    answer: str | None = None  # with no calls: None means "answer from the tool results"

    def as_json(self) -> dict[str, Any]:
        if self.calls:
            return {"calls": [{"call": name, "arguments": args} for name, args in self.calls]}
        return {"answer": self.answer}


def _call(item: Any, where: str) -> tuple[str, dict[str, Any]]:
    if not isinstance(item, dict) or not isinstance(item.get("call"), str) or not item["call"]:
        raise ScriptError(f"{where}: a call needs `call: <tool name>`")
    args = item.get("arguments", {})
    if isinstance(args, str):
        ok, args = read_json_text(args or "{}")
        if not ok:
            raise ScriptError(f"{where}: arguments are not JSON ({args})")
    if not isinstance(args, dict):
        raise ScriptError(f"{where}: arguments must be an object of name: value")
    return item["call"], args


def parse_script(data: Any) -> tuple[Turn, ...]:
    """Turns from parsed JSON/YAML: a list of turns, or one turn on its own."""
    problem = json_value_problem(data)  # a lone surrogate from an escape: no request or trace could carry it
    if problem:
        raise ScriptError(f"the script: {problem}")
    items = data if isinstance(data, list) else [data]
    if not items:
        raise ScriptError("the script has no turns")
    turns = []
    for i, item in enumerate(items, 1):
        where = f"turn {i}"
        if not isinstance(item, dict):
            raise ScriptError(f"{where}: expected `call:`, `calls:` or `answer:`, got {type(item).__name__}")
        unknown = set(item) - {"call", "arguments", "calls", "answer"}
        if unknown:
            raise ScriptError(f"{where}: unknown key {sorted(unknown)[0]!r} (use call, arguments, calls or answer)")
        if "calls" in item:
            if not isinstance(item["calls"], list) or not item["calls"]:
                raise ScriptError(f"{where}: `calls` must be a non-empty list")
            turns.append(Turn(calls=tuple(_call(c, f"{where}, call {j}") for j, c in enumerate(item["calls"], 1))))
        elif "call" in item:
            turns.append(Turn(calls=(_call(item, where),)))
        elif "answer" in item:
            answer = item["answer"]
            turns.append(Turn(answer=None if answer is None else str(answer)))
        else:
            raise ScriptError(f"{where}: expected `call:`, `calls:` or `answer:`")
    return tuple(turns)


def load_script(source: str) -> tuple[Turn, ...]:
    """A script from a file (.json, .yaml, .yml) or from the text itself."""
    path = Path(source)
    is_file = len(source) < 4096 and "\n" not in source and path.is_file()
    text = path.read_text(encoding="utf-8") if is_file else source
    try:
        data = yaml.safe_load(text)  # YAML is a superset of JSON: one parser reads both
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None)
        raise ScriptError(
            f"{source if is_file else 'the script'} is not JSON or YAML{where}" + (f": {problem}" if problem else "")
        ) from None
    if not is_file and (data is None or isinstance(data, str)):
        raise ScriptError(f"{source!r} is neither a script file nor a script")
    if data is None:
        raise ScriptError(f"{source} is empty")
    return parse_script(data)


def decide(script: tuple[Turn, ...], body: dict[str, Any]) -> list[Call] | str:
    """The turn for this request: the n-th request gets the n-th turn, counted by the assistant
    messages already in the conversation. Past the end of the script the model answers; a request that offers no
    tool (the host's model writing for a server's sampling) is answered in words, as the mock answers it."""
    conv = Conversation.read(body)
    n = sum(1 for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "assistant")
    turn = script[n] if n < len(script) else Turn()
    if turn.calls and not conv.tools:  # a model calls only what it is offered: the host asking for a server, say
        return words_alone(conv)
    if turn.calls:
        return [Call(name, json.dumps(args, ensure_ascii=False)) for name, args in turn.calls]
    return turn.answer if turn.answer is not None else answer_from_results(conv, tools_allowed=True)


class ScriptedModelTransport(httpx2.AsyncBaseTransport):
    """Answers chat.completions requests with the script's turns, in the OpenAI wire format."""

    def __init__(self, script: tuple[Turn, ...]) -> None:
        self.script = script

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(await request.aread())
        answer: MockReply = reply({**body, "model": "scripted"}, decide(self.script, body))
        if answer.chunks is not None:
            return httpx2.Response(
                200, headers={"content-type": "text/event-stream"}, stream=EventStream(answer.chunks)
            )
        return httpx2.Response(answer.status, json=answer.body)
