"""One writer for every trace file: the app's JSON download is the text `mcp-flow run --out` saves, so what either
gives out loads again, whatever a provider sent (a stray `null` among a completed response's items, an answer
longer than one value of a trace may be). The provider here is a stand-in behind the real openai SDK."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2

from flow import ModelConfig, RunOptions, RunResult, read_trace_bytes, trace_text
from flow.backends.mock import EventStream
from flow.runs import run_flow
from flow.trace.files import MAX_STRING_CHARS
from flow_ui.view import trace_file

QUESTION = "北京今天天气怎么样？"
RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "m",
    "status": "in_progress",
    "output": [],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
}


def _run(answer: Any, **options: Any) -> RunResult:
    async def handler(request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        return answer()

    model = ModelConfig(backend="openai", model="m", base_url="http://gateway.test/v1", api_key="k")

    async def main() -> RunResult:
        return await run_flow(
            QUESTION,
            options=RunOptions(mode="direct", transport="memory", **options),
            model=model,
            model_transport=httpx2.MockTransport(handler),
        )

    return anyio.run(main)


def _message(text: str) -> dict[str, Any]:
    said = {"type": "output_text", "text": text, "annotations": []}
    return {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [said]}


def test_a_responses_stream_whose_completed_output_lists_a_null_item_is_written_and_loads_again():
    def answer() -> httpx2.Response:
        done = {**RESPONSE, "status": "completed", "output": [_message("晴。"), None]}
        events = [
            {"type": "response.created", "response": RESPONSE, "sequence_number": 0},
            {"type": "response.completed", "response": done, "sequence_number": 1},
        ]
        return httpx2.Response(
            200, stream=EventStream(events, named=True), headers={"content-type": "text/event-stream"}
        )

    result = _run(answer, api="responses", stream=True)
    assert result.error is None and result.trace.meta.answer == "晴。"
    loaded = read_trace_bytes(trace_file(result.trace).encode(), name="download.json")
    [assembled] = [h for h in loaded.hops if h.kind == "llm.assembled"]
    assert assembled.payload["message"]["output"][1] is None  # kept as the provider listed it
    assert trace_file(result.trace) == trace_text(result.trace)


def test_the_apps_download_clips_a_long_answer_as_the_cli_save_does():
    long = "晴" + "x" * (2 * MAX_STRING_CHARS)

    def answer() -> httpx2.Response:
        message = {"role": "assistant", "content": long}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        body = {"id": "c1", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice]}
        return httpx2.Response(200, json=body)

    result = _run(answer)
    assert result.trace.meta.answer == long
    text = trace_file(result.trace)
    assert text == trace_text(result.trace)
    answer_kept = read_trace_bytes(text.encode(), name="download.json").meta.answer
    assert answer_kept is not None and answer_kept.startswith("晴x") and len(answer_kept) <= MAX_STRING_CHARS
