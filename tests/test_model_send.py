"""The model client sends the body `flow.wire` wrote through the openai SDK's own `post`, not through `create`, whose
conversion of typed parameters walks every input item through every type it might be (a replay of 20,000 approval
answers spent most of its time there; `bench/approvals.py` has the figures). What goes on the wire is the same, byte
for byte and header for header, as `create` sends; and no part of that conversion runs per item."""

from __future__ import annotations

import cProfile
import json
import pstats
from typing import Any

import anyio
import httpx2
import openai
import pytest

from flow.backends.mock import EventStream
from flow.capture.recorder import Recorder
from flow.engine.model import ModelClient, ModelConfig, make_client
from flow.wire import API

QUESTION = "北京今天天气怎么样？"
TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {}}}}


def _approvals(n: int) -> list[dict[str, Any]]:
    asked = [
        {"id": f"mcpr_{i}", "arguments": '{"city": "北京"}', "name": "get_weather", "server_label": "w"}
        | {"type": "mcp_approval_request"}
        for i in range(n)
    ]
    said = [{"type": "mcp_approval_response", "approval_request_id": f"mcpr_{i}", "approve": True} for i in range(n)]
    return [{"role": "user", "content": QUESTION}, *asked, *said]


BODIES: dict[str, dict[str, Any]] = {
    "chat": {"messages": [{"role": "user", "content": QUESTION}], "model": "m", "tools": [TOOL], "stream": False},
    "chat-stream": {"model": "m", "stream": True, "messages": [{"role": "user", "content": QUESTION}]}
    | {"stream_options": {"include_usage": True}, "parallel_tool_calls": False, "tool_choice": "auto"},
    "responses": {"input": _approvals(3), "model": "m", "instructions": "be brief", "tool_choice": "auto"}
    | {"tools": [{"type": "mcp", "server_label": "w", "server_url": "https://mcp.example/mcp"}]},
    "responses-stream": {"model": "m", "input": QUESTION, "stream": True, "previous_response_id": "resp_0"},
}


class _Seen:
    """A provider stand-in that keeps each request and answers nothing the SDK has to read far."""

    def __init__(self) -> None:
        self.requests: list[httpx2.Request] = []

    async def __call__(self, request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        self.requests.append(request)
        if json.loads(request.content).get("stream"):
            return httpx2.Response(200, stream=EventStream([]), headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json={"id": "x", "object": "response", "output": [], "choices": []})


def _api(name: str) -> str:
    return name.removesuffix("-stream")


def _config() -> ModelConfig:
    return ModelConfig(backend="openai", model="m", base_url="http://p.test/v1", api_key="k")


async def _by_create(body: dict[str, Any], api: str) -> httpx2.Request:
    seen = _Seen()
    sdk = make_client(_config(), Recorder(), api=API[api], transport=httpx2.MockTransport(seen))  # type: ignore[index]
    assert isinstance(sdk, openai.AsyncOpenAI)
    answer = await (sdk.responses.create(**body) if api == "responses" else sdk.chat.completions.create(**body))
    if body.get("stream"):
        async for _ in answer:
            pass
    return seen.requests[0]


async def _by_client(body: dict[str, Any], api: str) -> httpx2.Request:
    seen = _Seen()
    client = ModelClient(_config(), Recorder(), api=API[api], transport=httpx2.MockTransport(seen))  # type: ignore[index]
    answer = await client.send(body)
    if body.get("stream"):
        async for _ in answer:
            pass
    return seen.requests[0]


@pytest.mark.parametrize("name", sorted(BODIES))
def test_the_client_sends_what_create_sends_byte_for_byte(name: str) -> None:
    body, api = BODIES[name], _api(name)
    created = anyio.run(_by_create, body, api)
    sent = anyio.run(_by_client, body, api)
    assert sent.url == created.url and sent.content == created.content
    assert dict(sent.headers) == dict(created.headers)


def test_no_part_of_the_sdks_parameter_conversion_runs_per_input_item() -> None:
    body = {"model": "m", "input": _approvals(200)}
    profile = cProfile.Profile()
    profile.enable()
    anyio.run(_by_client, body, "responses")
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    converting = sum(calls for (path, _, _), (_, calls, *_) in stats.items() if path.endswith("_utils/_transform.py"))
    assert converting < 50, converting  # `create` makes thousands of these calls for 400 items
