"""The network sides are untrusted: a model endpoint or an MCP server that floods, trickles, stalls or answers in a
shape the app cannot read ends the run with one line and an error hop where it happened, in bounded time and memory.

The model endpoints here are real HTTP servers on a loopback socket, one behaviour per model name (the mock
model's pattern), reached by the real openai SDK through the app's tap.
"""

from __future__ import annotations

import json
import shlex
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest

from flow import ModelConfig, RunOptions, run
from flow.backends.scripted import load_script
from flow.capture.http import MAX_RESPONSE_BYTES
from flow.capture.recorder import Recorder
from flow.engine.loop import inspect_server
from flow.servers.connect import connect
from flow.servers.spec import ServerSpec
from helpers import flow_cli

QUESTION = "北京今天天气怎么样？"
SIDES_SERVER = Path(__file__).parents[1] / "data" / "hostile_sides_server.py"
BOMB_BYTES = 64 << 20  # what the gzip bomb expands to: four times the cap


def _gzip_bomb() -> bytes:
    """A chat completion whose one string is BOMB_BYTES long, gzip-compressed to well under a megabyte."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [packer.compress(b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "')]
    block = b"A" * (1 << 20)
    parts += [packer.compress(block) for _ in range(BOMB_BYTES >> 20)]
    parts += [packer.compress(b'"}, "finish_reason": "stop"}]}'), packer.flush()]
    return b"".join(parts)


def _completion(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-hostile",
        "object": "chat.completion",
        "created": 0,
        "model": "hostile",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    data = {
        "id": "chatcmpl-hostile",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "hostile",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(data)}\n\n".encode()


# Whole JSON bodies (status 200) that are not chat completions the app can read.
MALFORMED = {
    "no-choices": {"id": "x", "object": "chat.completion", "choices": []},
    "no-message": {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop"}]},
    "choices-not-a-list": {"id": "x", "choices": 5},
    "empty-message": {"id": "x", "choices": [{"index": 0, "message": {"role": "assistant"}, "finish_reason": "stop"}]},
    "call-without-function": _completion(
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function"}]}
    ),
    "call-without-name": _completion(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"arguments": "{}"}}],
        }
    ),
    "call-not-an-object": _completion({"role": "assistant", "content": None, "tool_calls": ["get_weather"]}),
    "body-a-list": [1, 2, 3],
}


LONG_MESSAGE = "the provider is overloaded " + "x" * 2_000_000


def _responses_events(how: str) -> list[dict[str, Any]]:
    """Responses events (`ResponseStreamEvent`): an `error` event, a `response.failed`, or two `response.completed`."""
    response: dict[str, Any] = {
        "id": "resp_hostile",
        "object": "response",
        "created_at": 0,
        "model": "hostile",
        "status": "in_progress",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    created = {"type": "response.created", "response": response}
    if how == "error":
        return _numbered(created, {"type": "error", "code": "overloaded", "message": LONG_MESSAGE, "param": None})
    if how == "failed":
        failed = {**response, "status": "failed", "error": {"code": "server_error", "message": LONG_MESSAGE}}
        return _numbered(created, {"type": "response.failed", "response": failed})
    done = []
    for n, text in enumerate(("晴。", "雨。")):
        said = {"type": "output_text", "text": text, "annotations": []}
        message = {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed", "content": [said]}
        done.append(
            {"type": "response.completed", "response": {**response, "status": "completed", "output": [message]}}
        )
    return _numbered(created, *done)


def _numbered(*events: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**event, "sequence_number": n} for n, event in enumerate(events)]


class _Hostile(BaseHTTPRequestHandler):
    """Answers POST /v1/chat/completions the way the request's model name says."""

    protocol_version = "HTTP/1.1"
    bomb = b""
    connections = 0

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _head(self, content_type: str, length: int | None = None, **headers: str) -> None:
        self.send_response(200)
        self.send_header("content-type", content_type)
        if length is not None:
            self.send_header("content-length", str(length))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.flush()

    def _json(self, body: Any, content_type: str = "application/json") -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self._head(content_type, len(data))
        self.wfile.write(data)

    def do_POST(self) -> None:
        type(self).connections += 1
        request = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        behaviour = request.get("model", "")
        self.close_connection = True
        try:
            self._answer(behaviour)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up, as it should

    def _answer(self, behaviour: str) -> None:
        if behaviour in MALFORMED:
            self._json(MALFORMED[behaviour])
        elif behaviour == "gzip-bomb":
            self._head("application/json", len(self.bomb), content_encoding="gzip")
            self.wfile.write(self.bomb)
        elif behaviour == "not-json":
            self._json(b"<html><body>502 Bad Gateway</body></html>")
        elif behaviour == "text-body":
            self._json(b"upstream said: try again later", content_type="text/plain")
        elif behaviour == "trickle":  # a good answer, one byte a second
            data = json.dumps(_completion({"role": "assistant", "content": "sunny"})).encode()
            self._head("application/json", len(data))
            for i in range(len(data)):
                self.wfile.write(data[i : i + 1])
                self.wfile.flush()
                time.sleep(1)
        elif behaviour == "stall":  # headers, then nothing at all
            self._head("application/json", 100)
            time.sleep(60)
        elif behaviour in ("keep-alive", "keep-alive-then-close"):
            self._head("text/event-stream")
            for _ in range(10 if behaviour == "keep-alive-then-close" else 600):
                self.wfile.write(b": ping\n\n")
                self.wfile.flush()
                time.sleep(0.1)
        elif behaviour == "stream-no-data":  # llama-cpp-python asked to stream under tool_choice auto: 200, nothing
            self._head("text/event-stream", x_server="llama-cpp-python")
        elif behaviour == "truncated":  # a stream that stops mid-answer: no finish_reason, no [DONE]
            self._head("text/event-stream")
            self.wfile.write(_chunk({"role": "assistant", "content": ""}))
            for piece in ("Beijing is ", "sunny and "):
                self.wfile.write(_chunk({"content": piece}))
        elif behaviour == "stream-error":  # a provider's error event inside a stream that began well
            self._head("text/event-stream")
            self.wfile.write(
                _chunk({"role": "assistant", "content": ""})
                + b'data: {"error": {"message": "the model is overloaded", "type": "server_error"}}\n\n'
            )
        elif behaviour.startswith("responses-"):  # a Responses stream that ends in an error, or completes twice
            self._head("text/event-stream")
            for event in _responses_events(behaviour.removeprefix("responses-")):
                self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
        elif behaviour == "stream-not-json":
            self._head("text/event-stream")
            self.wfile.write(_chunk({"role": "assistant", "content": ""}) + b"data: {oops, not json\n\n")
        elif behaviour == "stream-flood":  # one endless event: data with no blank line after it
            self._head("text/event-stream")
            self.wfile.write(b'data: {"choices": [{"delta": {"content": "')
            block = b"x" * (1 << 16)
            for _ in range(1 << 12):
                self.wfile.write(block)
        elif behaviour == "retry-after":
            data = json.dumps({"error": {"message": "slow down", "type": "rate_limit_error"}}).encode()
            self.send_response(429)
            self.send_header("content-type", "application/json")
            self.send_header("retry-after", "30")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            self._json({"error": {"message": f"no behaviour {behaviour}"}})


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    _Hostile.bomb = _gzip_bomb()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _run(endpoint: str, behaviour: str, *, timeout_s: float = 10.0, stream: bool = False, **model: Any):
    return run(
        QUESTION,
        options=RunOptions(mode="direct", stream=stream),
        model=ModelConfig(
            backend="openai", model=behaviour, base_url=endpoint, api_key="sk-test", timeout_s=timeout_s, **model
        ),
    )


def _one_line(proc) -> str:
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


def _model_error(trace: dict[str, Any]) -> dict[str, Any]:
    """The llm.error hop where the model side failed (there is one), followed by the user's line."""
    errors = [h for h in trace["hops"] if h["kind"] == "llm.error"]
    assert len(errors) == 1, [(h["kind"], h["summary"]) for h in trace["hops"]]
    last = trace["hops"][-1]
    assert last["kind"] == "error" and last["step"] == 10 and trace["meta"]["outcome"] == "error"
    return errors[0]


def _waited_ms(err: dict[str, Any]) -> float:
    """How long the call ran before its error hop: from the request's start to the error."""
    return err["t_end_ms"] - err["t_start_ms"]


def _cli_run(endpoint: str, behaviour: str, out: Path, *extra: str):
    return flow_cli(
        "run",
        "--mode",
        "direct",
        "--question",
        QUESTION,
        "--base-url",
        endpoint,
        "--model",
        behaviour,
        "--out",
        str(out),
        *extra,
        timeout=60,
    )


# ---------------------------------------------------------------- the model side: limits


def test_a_gzip_bomb_is_cut_off_at_the_cap_and_none_of_it_is_kept(tmp_path, endpoint):
    assert len(_Hostile.bomb) < 1 << 20 < MAX_RESPONSE_BYTES < BOMB_BYTES  # small on the wire, huge decoded
    out = tmp_path / "bomb.json"
    line = _one_line(_cli_run(endpoint, "gzip-bomb", out))
    assert line.startswith(
        "error: the model endpoint's answer is larger than 16 MB, the limit for one model response: "
        "reading stopped there (it came compressed, "
    )
    err = _model_error(json.loads(out.read_text(encoding="utf-8")))
    assert err["payload"]["error"] == "too large" and err["payload"]["decoded_bytes"] <= MAX_RESPONSE_BYTES + 1
    assert err["payload"]["wire_bytes"] < 1 << 20
    assert out.stat().st_size < 100_000  # no part of the answer went into the trace


def test_a_small_cap_stops_a_plain_answer_too(endpoint):
    result = _run(endpoint, "no-choices", max_response_bytes=10)
    assert (
        result.error == "the model endpoint's answer is larger than 10 bytes, the limit for one model response: "
        "reading stopped there"
    )
    assert result.trace.meta.error_zh is not None and result.trace.meta.error_zh.startswith(
        "模型接口的回答超过了 10 bytes"
    )


def test_a_stream_that_floods_one_event_is_cut_off_at_the_cap(endpoint):
    result = _run(endpoint, "stream-flood", stream=True, max_response_bytes=1 << 20)
    assert result.error is not None and result.error.startswith("the model endpoint's answer is larger than 1 MB")
    err = _model_error(json.loads(result.trace.model_dump_json()))
    assert err["payload"]["stream"] is True and err["payload"]["wire_bytes"] <= (1 << 20) + (1 << 16)


def test_a_one_byte_a_second_answer_fails_at_the_deadline_not_at_the_last_byte(tmp_path, endpoint):
    out = tmp_path / "trickle.json"
    started = time.monotonic()
    line = _one_line(_cli_run(endpoint, "trickle", out, "--model-timeout", "2"))
    assert time.monotonic() - started < 30  # starting Python included; the answer alone would take 200 s
    assert line.startswith(
        "error: the model endpoint did not finish its answer within 2 s, the time allowed for a whole model call ("
    )
    err = _model_error(json.loads(out.read_text(encoding="utf-8")))
    assert err["payload"]["error"] == "deadline" and err["payload"]["limit_s"] == 2
    assert 1900 < _waited_ms(err) < 3000  # a per-read timeout never fires: a byte comes every second
    assert 0 < err["payload"]["received_bytes"] < 10


def test_a_stall_after_the_headers_fails_at_the_deadline(endpoint):
    result = _run(endpoint, "stall", timeout_s=1)
    assert 900 < _waited_ms(_model_error(json.loads(result.trace.model_dump_json()))) < 2000
    assert result.error == (
        "the model endpoint did not finish its answer within 1 s, the time allowed for a whole "
        "model call (0 bytes had arrived)"
    )


def test_a_stream_of_keep_alive_comments_fails_at_the_deadline_and_is_not_an_answer(tmp_path, endpoint):
    out = tmp_path / "ping.json"
    started = time.monotonic()
    line = _one_line(_cli_run(endpoint, "keep-alive", out, "--stream", "--model-timeout", "2"))
    assert time.monotonic() - started < 30  # starting Python included; the pings alone would go on for 60 s
    assert line.startswith(
        "error: the model endpoint did not finish its answer within 2 s, the time allowed for a whole model call ("
    ) and line.endswith("of keep-alive comments and no data had arrived)")
    trace = json.loads(out.read_text(encoding="utf-8"))
    err = _model_error(trace)
    assert err["payload"]["error"] == "deadline" and 1900 < _waited_ms(err) < 3000 and trace["meta"]["answer"] is None


def test_a_stream_of_keep_alive_comments_that_ends_is_no_answer(endpoint):
    result = _run(endpoint, "keep-alive-then-close", stream=True)
    assert result.error == (
        "the model's stream ended without any data (only keep-alive comments, or nothing at all); some servers "
        "(llama-cpp-python) answer a streamed request that offers tools this way: try without streaming "
        "(leave out --stream)"
    )
    assert result.answer is None
    assert _model_error(json.loads(result.trace.model_dump_json()))["payload"]["error"] == "malformed response"


@pytest.mark.parametrize("behaviour", ["stream-no-data", "keep-alive-then-close"])
def test_a_stream_with_no_data_keeps_the_status_headers_and_time_the_server_sent(endpoint, behaviour):
    result = _run(endpoint, behaviour, stream=True)
    assert result.error == (
        "the model's stream ended without any data (only keep-alive comments, or nothing at all); some servers "
        "(llama-cpp-python) answer a streamed request that offers tools this way: try without streaming "
        "(leave out --stream)"
    )
    err = _model_error(json.loads(result.trace.model_dump_json()))
    request = next(h for h in result.trace.hops if h.kind == "llm.request")
    assert err["payload"]["status"] == 200 and err["payload"]["headers"]["content-type"] == "text/event-stream"
    assert err["t_start_ms"] == request.t_start_ms and err["step"] == request.step
    if behaviour == "stream-no-data":
        assert err["payload"]["headers"]["x-server"] == "llama-cpp-python"
        assert err["payload"]["body"] == "" and err["payload"]["received_bytes"] == 0
    else:  # ten pings, a tenth of a second apart: what came is kept, and how long it took
        assert err["payload"]["body"] == ": ping\n\n" * 10 and err["bytes"] == 80
        assert _waited_ms(err) > 0


def test_the_deadline_is_total_even_when_the_sdk_would_wait_to_retry(endpoint):
    # 429 with retry-after: 30 and three retries allowed: the SDK would sleep 30 s before each retry.
    started = time.monotonic()
    result = _run(endpoint, "retry-after", timeout_s=1, max_retries=3)
    assert time.monotonic() - started < 5
    assert result.error == "the model call did not finish within 1 s (the SDK was still waiting to retry)"
    kinds = [(h.kind, h.payload.get("error") if isinstance(h.payload, dict) else None) for h in result.trace.hops]
    assert ("llm.error", "deadline") in kinds and _Hostile.connections > 0


# ---------------------------------------------------------------- the model side: answers the app cannot read


@pytest.mark.parametrize(
    ("behaviour", "says"),
    [
        ("no-choices", "it has no choices (choices: '[]')"),
        ("choices-not-a-list", "it has no choices (choices: '5')"),
        ("no-message", "choices[0] has no message"),
        ("empty-message", "choices[0].message has no content and no tool_calls (finish_reason: stop)"),
        ("call-without-function", "choices[0].message.tool_calls[0] has no function name"),
        ("call-without-name", "choices[0].message.tool_calls[0] has no function name"),
        ("call-not-an-object", "choices[0].message.tool_calls[0] has no function name"),
        ("body-a-list", "the body is JSON but not an object: '[1, 2, 3]'"),
        ("not-json", "the body is not JSON: '<html><body>502 Bad Gateway</body></html>'"),
        ("text-body", "the body is not JSON: 'upstream said: try again later'"),
    ],
)
def test_an_answer_that_is_not_a_chat_completion_is_one_line_and_a_hop(endpoint, behaviour, says):
    result = _run(endpoint, behaviour)
    assert result.error == f"the model endpoint's answer cannot be read: {says}"
    assert result.trace.meta.error_zh is not None and result.trace.meta.error_zh.startswith("模型接口的回答无法读取：")
    err = _model_error(json.loads(result.trace.model_dump_json()))
    assert err["payload"] == {"error": "malformed response", "reason": result.error} and err["step"] == 3


def test_a_truncated_stream_is_reported_as_truncated(tmp_path, endpoint):
    out = tmp_path / "truncated.json"
    line = _one_line(_cli_run(endpoint, "truncated", out, "--stream"))
    assert line == (
        "error: the model's stream ended before it finished: no finish_reason after 3 chunks "
        "(a truncated stream; 21 characters of answer so far)"
    )
    trace = json.loads(out.read_text(encoding="utf-8"))
    err = _model_error(trace)
    assert err["payload"]["error"] == "malformed response"
    assert [h["kind"] for h in trace["hops"]].count("llm.chunk") == 3  # what did arrive is kept
    assert trace["meta"]["answer"] is None and "llm.assembled" not in [h["kind"] for h in trace["hops"]]


def test_a_streamed_event_that_is_not_json_is_one_line(endpoint):
    result = _run(endpoint, "stream-not-json", stream=True)
    assert result.error == "the model endpoint's answer cannot be read: a streamed event is not JSON: '{oops, not json'"


def test_an_error_event_inside_a_stream_is_one_line(endpoint):
    result = _run(endpoint, "stream-error", stream=True)
    assert result.error == "the model endpoint reported an error in its answer: the model is overloaded"
    assert result.trace.meta.error_zh == "模型接口在回答中报告了错误：the model is overloaded"


@pytest.mark.parametrize("how", ["error", "failed"])
def test_a_responses_stream_that_fails_is_one_clipped_line(tmp_path, endpoint, how):
    """An `error` or `response.failed` event ends the run with one line, the provider's message clipped as every
    provider error line is, and nothing else on stderr (the SDK's stream read to its end and closed, no generator
    left for the interpreter to close); the trace keeps the stream to its `[DONE]`, and the failure as a hop."""
    out = tmp_path / f"{how}.json"
    line = _one_line(_cli_run(endpoint, f"responses-{how}", out, "--api", "responses", "--stream"))
    assert line.startswith("error: the model endpoint reported an error in its answer: the provider is overloaded x")
    assert len(line) < 300, len(line)
    trace = json.loads(out.read_text(encoding="utf-8"))
    err = _model_error(trace)
    assert err["payload"]["error"] == "malformed response" and len(err["summary"]) < 300
    chunks = [h["summary"] for h in trace["hops"] if h["kind"] == "llm.chunk"]
    assert chunks[-1].endswith("[DONE]"), chunks
    assert trace["meta"]["error"] == line.removeprefix("error: ")


def test_a_responses_stream_that_completes_twice_is_one_line(tmp_path, endpoint):
    """Two `response.completed` events: the app does not pick one of the two answers; it says so in one line."""
    out = tmp_path / "twice.json"
    line = _one_line(_cli_run(endpoint, "responses-twice", out, "--api", "responses", "--stream"))
    assert line == (
        "error: the model endpoint's answer cannot be read: the stream said twice that it had finished "
        "(events 2 and 3); neither of its answers is taken"
    )
    trace = json.loads(out.read_text(encoding="utf-8"))
    assert _model_error(trace)["payload"]["error"] == "malformed response"
    assert [h["summary"] for h in trace["hops"] if h["kind"] == "llm.chunk"][-1].endswith("[DONE]")
    assert trace["meta"]["answer"] is None


# ---------------------------------------------------------------- the MCP side


def _stdio(behaviour: str, on: str = "tools/call") -> ServerSpec:
    return ServerSpec(command=(sys.executable, str(SIDES_SERVER), "--behaviour", behaviour, "--on", on))


def _server_error(trace: dict[str, Any]) -> dict[str, Any]:
    errors = [h for h in trace["hops"] if h["kind"] == "error" and h["source"] == "mcp_server"]
    assert len(errors) == 1, [h["summary"] for h in trace["hops"]]
    return errors[0]


def test_a_huge_message_on_stdio_ends_the_call_with_one_line_and_is_not_kept(tmp_path):
    out = tmp_path / "call.json"
    server = shlex.join(_stdio("huge=34000000").command)
    proc = flow_cli(
        "call", "echo", "--args", '{"message": "hi"}', "--server", server, "--timeout", "30", "--out", str(out)
    )
    assert _one_line(proc) == (
        "error: the MCP server sent a message of 32.4 MB during tools/call, over the 32 MB limit "
        "for one message: the session was ended"
    )
    err = _server_error(json.loads(out.read_text(encoding="utf-8")))
    assert err["step"] == 7 and err["payload"]["bytes"] > 34_000_000 and err["payload"]["limit_bytes"] == 32 << 20
    # The answer to request 3: `call` lists the tools (request 2) before it calls.
    assert err["payload"]["line_start"].startswith('{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text"')
    assert out.stat().st_size < 50_000  # the message itself is not in the trace


def test_the_message_cap_is_kept_by_the_frame_tap_whatever_its_size():
    async def call() -> tuple[str, list[str]]:
        rec = Recorder()
        with pytest.raises(Exception) as caught:
            async with connect(
                _stdio("huge=5000"), era="handshake", recorder=rec, timeout_s=10, max_frame_bytes=4096
            ) as (client, _tap, _err):
                await client.call_tool("echo", {"message": "hi"})
        return str(caught.value), [h.kind for h in rec.hops]

    line, kinds = anyio.run(call)
    assert line == (
        "the MCP server sent a message of 5089 bytes during tools/call, over the 4096 bytes limit for "
        "one message: the session was ended"
    )
    assert kinds[-1] == "error" and "mcp.response" not in kinds[-2:]


def test_a_server_that_trickles_its_answer_is_held_to_the_request_timeout():
    # The SDK's clock for a request runs from sending it to its answer: bytes arriving do not reset it.
    started = time.monotonic()
    result, _ = anyio.run(lambda: inspect_server(_stdio("trickle", on="tools/list"), timeout_s=1))
    assert time.monotonic() - started < 8  # the answer alone would take 10 s
    assert result.error == "the MCP server did not answer tools/list within 1 s"
    assert _server_error(json.loads(result.trace.model_dump_json()))["payload"]["error"] == "timeout"


class _HugeMcp(BaseHTTPRequestHandler):
    """A Streamable HTTP MCP server (no session id) whose answer to tools/list is one huge message."""

    protocol_version = "HTTP/1.1"
    size = 34_000_000
    sse = False

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        self.close_connection = True
        if "id" not in request:
            self.send_response(202)
            self.send_header("connection", "close")  # said, so the client never reuses a connection closed here
            self.send_header("content-length", "0")
            self.end_headers()
            return
        if request["method"] == "initialize":
            result: Any = {
                "protocolVersion": request["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "huge-http", "version": "0.0.1"},
            }
        else:
            result = {"tools": [{"name": "x" * self.size, "inputSchema": {"type": "object"}}]}
        data = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode()
        if self.sse and request["method"] != "initialize":
            data = b"event: message\ndata: " + data + b"\n\n"
        self.send_response(200)
        self.send_header("connection", "close")
        self.send_header(
            "content-type",
            "text/event-stream" if self.sse and request["method"] != "initialize" else "application/json",
        )
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading at the cap


class _SlowMcp(_HugeMcp):
    """A Streamable HTTP MCP server whose answer to tools/call takes 3 s: its first bytes at once (`begins`), or
    nothing until it is all sent."""

    begins = True

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        if request.get("method") == "tools/call":
            return self._send({"content": [{"type": "text", "text": "x" * 2_000_000}], "isError": False}, request)
        if request.get("method") == "tools/list":
            return self._send({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}, request)
        if "id" not in request:
            self.send_response(202)
            self.send_header("connection", "close")
            self.send_header("content-length", "0")
            self.end_headers()
            return None
        info = {"name": "slow-http", "version": "0.0.1"}
        version = request["params"]["protocolVersion"]
        return self._send({"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}, request)

    def _send(self, result: Any, request: dict[str, Any]) -> None:
        data = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode()
        self.close_connection = True
        self.send_response(200)
        self.send_header("connection", "close")
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        slow = request.get("method") == "tools/call"
        try:
            if slow and self.begins:
                self.wfile.write(data[:65536])
                self.wfile.flush()
            if slow:
                time.sleep(3)
            self.wfile.write(data[65536:] if slow and self.begins else data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up at its timeout


@pytest.mark.parametrize("begins", [True, False], ids=["answer-arriving", "silent"])
def test_an_answer_still_arriving_over_streamable_http_at_the_timeout_is_told_apart_from_silence(begins):
    handler = type("Handler", (_SlowMcp,), {"begins": begins})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        spec = ServerSpec(transport="http", url=f"http://127.0.0.1:{server.server_address[1]}/mcp")
        script = load_script('[{"call": "echo", "arguments": {"message": "hi"}}]')
        result = run(
            "echo hi", options=RunOptions.build(server=spec, mcp_timeout_s=1), model=ModelConfig.scripted(script)
        )
    finally:
        server.shutdown()
        server.server_close()
    if begins:
        assert result.error is not None and result.error.startswith(
            "the MCP server began answering tools/call echo, but its answer was still"
        )
        err = _server_error(json.loads(result.trace.model_dump_json()))
        assert err["payload"]["answering"] is True and err["payload"]["unread_bytes"] >= 65536
    else:
        assert result.error == "the MCP server did not answer tools/call echo within 1 s"


@pytest.mark.parametrize("sse", [False, True], ids=["json-body", "event-stream"])
def test_a_huge_message_over_streamable_http_is_cut_off_at_the_cap(sse):
    handler = type("Handler", (_HugeMcp,), {"sse": sse})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/mcp"
        result, _ = anyio.run(lambda: inspect_server(ServerSpec(transport="http", url=url), timeout_s=10))
    finally:
        server.shutdown()
        server.server_close()
    assert result.error == (
        "the MCP server sent a message of more than 32 MB during tools/list, over the 32 MB limit "
        "for one message: the session was ended"
    )
    assert result.trace.meta.error_zh is not None and result.trace.meta.error_zh.startswith(
        "MCP 服务器在 tools/list 期间发来一条至少 32 MB 的消息，超过单条消息 32 MB 的上限"
    )
    err = _server_error(json.loads(result.trace.model_dump_json()))
    assert err["payload"]["at_least"] is True and err["payload"]["line_start"].startswith('{"jsonrpc": "2.0"')
    assert len(result.trace.model_dump_json()) < 50_000
