"""The model side: the real openai SDK, given an httpx2 transport that records every exchange.

The inner transport is either the offline mock model or a real network transport; the
orchestrator never asks which.
"""

from __future__ import annotations

import json
import math
import os
import zlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import httpx2
import openai
import pydantic
import pydantic_core

from flow.mcp_side import Explained, amount_text
from flow.mock_model import MOCK_BASE_URL, MockModelTransport
from flow.recorder import Recorder, json_bytes
from flow.scripted import SCRIPTED_BASE_URL, ScriptedModelTransport, Turn
from flow.redact import redact_headers, redact_url
from flow.trace import Hop

Backend = Literal["mock", "openai", "replay", "scripted"]
MAX_RESPONSE_BYTES = 16 << 20  # one model response, or one whole stream, decoded: far above any real answer
RETRY_HEADER = "x-stainless-retry-count"  # the openai SDK numbers the attempts of one call: 0, 1, ...


class ModelLimitError(Explained):
    """A model call crossed its total deadline or its size cap; the tap recorded where, as an llm.error hop.

    Not an httpx error on purpose: the openai SDK hands it on as it is, without retrying it."""


class MalformedResponse(Explained):
    """The model endpoint answered, but not with a chat completion the app can read."""


@dataclass(frozen=True, kw_only=True)
class ModelConfig:
    """Which model to talk to. The key is used for the call and never recorded."""

    backend: Backend = "mock"
    model: str = "mock"
    base_url: str | None = None
    api_key: str | None = None
    timeout_s: float = 60.0  # the whole of one model call: connecting, waiting, every byte, any retries
    max_retries: int = 0  # every retry would be a real exchange on the wire; off unless asked for
    max_response_bytes: int = MAX_RESPONSE_BYTES  # decoded bytes of one response (or stream) before it is cut off
    script: tuple[Turn, ...] = ()  # the scripted model's turns

    @classmethod
    def scripted(cls, script: tuple[Turn, ...], **overrides: Any) -> ModelConfig:
        return cls(backend="scripted", model="scripted", script=script, **overrides)

    @classmethod
    def from_env(cls, *, backend: Backend | None = None, model: str | None = None, **overrides: Any) -> ModelConfig:
        """OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL pick a real provider; otherwise the mock."""
        base_url = overrides.pop("base_url", None) or os.environ.get("OPENAI_BASE_URL")
        if backend is None:
            backend = "openai" if base_url or (model and not model.startswith("mock")) else "mock"
        if backend == "mock":
            return cls(backend="mock", model=model or "mock", **overrides)
        return cls(
            backend="openai",
            model=model or os.environ.get("OPENAI_MODEL") or "gpt-4o-mini",
            base_url=base_url,
            api_key=overrides.pop("api_key", None) or os.environ.get("OPENAI_API_KEY"),
            **overrides,
        )

    def describe(self) -> dict[str, Any]:
        if self.backend == "scripted":
            return {"backend": "scripted", "name": "scripted", "base_url": SCRIPTED_BASE_URL, "key_status": "none needed",
                    "timeout_s": self.timeout_s, "max_retries": self.max_retries,
                    "script": [turn.as_json() for turn in self.script]}
        base_url = (self.base_url or "https://api.openai.com/v1") if self.backend == "openai" else (self.base_url or MOCK_BASE_URL)
        return {
            "backend": self.backend,
            "name": self.model,
            "base_url": redact_url(base_url),  # a password or `?api-key=` in it stays out of the trace
            "key_status": ("set" if self.api_key else "missing") if self.backend == "openai" else "none needed",
            "timeout_s": self.timeout_s,
            "max_retries": self.max_retries,
        }


def make_client(
    config: ModelConfig, recorder: Recorder, *, transport: httpx2.AsyncBaseTransport | None = None
) -> openai.AsyncOpenAI:
    scripted = config.backend == "scripted"
    if transport is not None:
        inner = transport
    elif scripted:
        inner = ScriptedModelTransport(config.script)
    else:
        inner = MockModelTransport() if config.backend == "mock" else httpx2.AsyncHTTPTransport()
    base_url = config.base_url if config.backend == "openai" else (config.base_url or MOCK_BASE_URL)
    return openai.AsyncOpenAI(
        api_key=config.api_key or "no-key",
        base_url=SCRIPTED_BASE_URL if scripted else base_url,
        timeout=config.timeout_s,
        max_retries=config.max_retries,
        http_client=httpx2.AsyncClient(transport=HttpTap(
            inner, recorder, scripted=scripted and transport is None, timeout_s=config.timeout_s,
            max_bytes=config.max_response_bytes,
        )),
    )


def _json_or_text(data: bytes) -> Any:
    try:
        return pydantic_core.from_json(data)  # the same values as json.loads, in a third of the time
    except ValueError:
        pass
    text = data.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _decoder(encoding: str) -> Any:
    encoding = encoding.strip().lower()
    if encoding == "gzip":
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj()
    return None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _first_choice(body: Any) -> dict[str, Any]:
    """The first choice of a completion or a chunk, or {} when it has none a reader can use: the tap records
    whatever came, so everything it reads of a body is read this way."""
    choices = body.get("choices") if isinstance(body, dict) else None
    return _dict(choices[0]) if isinstance(choices, list) and choices else {}


def _response_step(body: Any) -> int:
    """A response that asks for tools is the decision (step 4); one that answers is step 9."""
    choice = _first_choice(body)
    message = _dict(choice.get("message")) or _dict(choice.get("delta"))
    if message.get("tool_calls") or choice.get("finish_reason") == "tool_calls":
        return 4
    return 9


def response_summary(body: Any) -> str:
    choice = _first_choice(body)
    if not choice:
        return "response"
    calls = _dict(choice.get("message")).get("tool_calls")
    if isinstance(calls, list) and calls:
        return "tool_calls: " + ", ".join(_call_text(c) for c in calls)
    return f"finish_reason: {choice.get('finish_reason')}"


def _call_text(call: Any) -> str:
    fn = _dict(_dict(call).get("function"))
    raw = fn.get("arguments")
    text = raw if isinstance(raw, str) else "" if raw is None else json.dumps(raw, ensure_ascii=False, default=str)
    try:
        args = json.loads(text or "{}")
        shown = ", ".join(f"{k}={v}" for k, v in args.items()) if isinstance(args, dict) else str(args)
    except json.JSONDecodeError:
        shown = text[:40] + " (not JSON)"
    return f"{fn.get('name')}({shown})"


class _Meter:
    """Counts one response's bytes as they arrive, and decodes gzip/deflate a piece at a time so that a small
    compressed body never expands past the cap: at most one byte more than the cap is ever produced."""

    def __init__(self, encoding: str, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.wire = 0  # bytes as they crossed the wire
        self.decoded = 0
        self.data_seen = False  # a stream of only keep-alive comments has no "data:" line
        self._dec = _decoder(encoding)

    @property
    def plain(self) -> bool:
        """Whether the bytes on the wire are the body (no encoding, or one that turned out not to decode)."""
        return self._dec is None

    @property
    def over(self) -> bool:
        return self.decoded > self.max_bytes or self.wire > self.max_bytes

    def feed(self, raw: bytes) -> bytes:
        self.wire += len(raw)
        out = raw
        if self._dec is not None:
            try:
                out = self._dec.decompress(raw, self.max_bytes - self.decoded + 1)
            except zlib.error:
                self._dec = None  # not what the header said: counted as it came
        self.decoded += len(out)
        return out

    def finish(self) -> bytes:
        if self._dec is None or self.over:
            return b""
        try:
            out: bytes = self._dec.flush()
        except zlib.error:
            return b""
        self.decoded += len(out)
        return out


@dataclass
class _Exchange:
    """One attempt of a model call as its limits see it: its deadline, and what has arrived so far."""

    request_hop: Hop | None
    step: int | None
    deadline: float
    meter: _Meter | None = None  # set when the response's headers arrive
    stream: bool = False


class HttpTap(httpx2.AsyncBaseTransport):
    """Records the request and response bodies the SDK sent and received, headers minus secrets, and holds each
    model call to its limits: one deadline for the whole call (connecting, waiting, every byte, any retry) and a
    cap on the decoded response. Crossing either is an llm.error hop where it happened and a `ModelLimitError`."""

    def __init__(
        self, inner: httpx2.AsyncBaseTransport, recorder: Recorder, *, scripted: bool = False,
        timeout_s: float = math.inf, max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self._inner, self._rec = inner, recorder
        self._scripted = scripted  # the answers come from the user's script: every model hop says so
        self.timeout_s, self.max_bytes = timeout_s, max_bytes
        self._deadline = math.inf

    def _mark(self, hop: Hop) -> Hop:
        if self._scripted:
            hop.scripted = True  # type: ignore[attr-defined]  # an extra field, present only where true
            hop.summary = f"scripted · {hop.summary}"
        return hop

    def _call_deadline(self, request: httpx2.Request) -> float:
        """A call's deadline starts with its first attempt; the SDK's retries of it (numbered in a header) share it."""
        if request.headers.get(RETRY_HEADER, "0") == "0" or self._deadline == math.inf:
            self._deadline = anyio.current_time() + self.timeout_s
        return self._deadline

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        deadline = self._call_deadline(request)
        rec = self._rec
        step = rec.step if rec.step in (3, 8) else None
        exchange = _Exchange(await self._record_request(request, step) if rec.enabled else None, step, deadline)
        if anyio.current_time() < deadline:  # a retry that comes after its call's time is up is not sent
            with anyio.CancelScope(deadline=deadline):
                return await self._exchange(request, exchange)
        raise self.deadline_crossed(exchange, step)

    async def _record_request(self, request: httpx2.Request, step: int | None) -> Hop:
        rec = self._rec
        raw = await request.aread()
        body = _json_or_text(raw)
        request_headers = redact_headers(request.headers.multi_items())
        url = redact_url(str(request.url))  # no user-info or query values: `?api-key=` is a key
        n_msgs = len(body.get("messages") or []) if isinstance(body, dict) else 0
        n_tools = len(body.get("tools") or []) if isinstance(body, dict) else 0
        return self._mark(rec.record(
            kind="llm.request",
            source="app",
            target="model",
            payload={
                "method": request.method,
                "url": url,
                "headers": request_headers,
                "body": body,
            },
            step=step,
            direction="request",
            size=len(raw),
            # Everything in the payload, as text: the body as sent, the URL, the headers.
            wire_text=raw + url.encode() + json_bytes(request_headers),
            summary=f"{request.method} {request.url.path}: {n_msgs} messages, {n_tools} tools"
            + (" (stream)" if isinstance(body, dict) and body.get("stream") else ""),
        ))

    async def _exchange(self, request: httpx2.Request, exchange: _Exchange) -> httpx2.Response:
        rec, request_hop, step = self._rec, exchange.request_hop, exchange.step
        try:
            response = await self._inner.handle_async_request(request)
        except httpx2.TransportError as exc:
            if request_hop is not None:
                self._mark(rec.record(
                    kind="llm.error",
                    source="model",
                    target="app",
                    payload={"error": type(exc).__name__, "message": str(exc) or type(exc).__name__},
                    step=step,
                    direction="error",
                    t_start_ms=request_hop.t_start_ms,
                    summary=f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__,
                ))
            raise
        meter = exchange.meter = _Meter(response.headers.get("content-encoding", ""), self.max_bytes)
        headers = redact_headers(response.headers.multi_items()) if request_hop is not None else {}
        if "text/event-stream" in response.headers.get("content-type", "") and response.status_code < 400:
            exchange.stream = True
            tapped = _StreamTap(response, self, exchange, headers)
            return httpx2.Response(
                response.status_code, headers=response.headers, stream=tapped, extensions=response.extensions
            )
        built_from_bytes = response.is_stream_consumed  # a transport that built its response from bytes read it
        if built_from_bytes:
            raw_body = decoded = response.content
            meter.wire = meter.decoded = len(raw_body)
        else:
            raw_body, decoded = await self._read_body(response, meter)
        if meter.over:
            raise self.size_crossed(exchange, step)
        if request_hop is not None:
            resp_body = _json_or_text(decoded)
            ok = response.status_code < 400
            usage = resp_body.get("usage") if ok and isinstance(resp_body, dict) else None
            self._mark(rec.record(
                kind="llm.response" if ok else "llm.error",
                source="model",
                target="app",
                payload={"status": response.status_code, "headers": headers, "body": resp_body},
                step=_response_step(resp_body) if ok else step,
                direction="response" if ok else "error",
                t_start_ms=request_hop.t_start_ms,
                size=len(raw_body),
                wire_text=decoded + json_bytes(headers),
                usage=usage if isinstance(usage, dict) else None,
                summary=response_summary(resp_body) if ok else f"HTTP {response.status_code}",
            ))
        if built_from_bytes:
            return response  # handed on as the transport built it, just as when nothing is recorded
        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=httpx2.ByteStream(raw_body),
            extensions=response.extensions,
        )

    @staticmethod
    async def _read_body(response: httpx2.Response, meter: _Meter) -> tuple[bytes, bytes]:
        """The body as it came and decoded, read no further than the cap (the SDK decodes it again, as it would)."""
        raw_parts: list[bytes] = []
        decoded_parts: list[bytes] = []
        try:
            async for chunk in response.aiter_raw():
                raw_parts.append(chunk)
                decoded_parts.append(meter.feed(chunk))
                if meter.over:
                    break
            else:
                decoded_parts.append(meter.finish())
        finally:
            await response.aclose()
        raw_body = b"".join(raw_parts)
        return raw_body, raw_body if meter.plain else b"".join(decoded_parts)

    def _limit_hop(self, exchange: _Exchange, step: int | None, payload: dict[str, Any], summary: str) -> None:
        if exchange.request_hop is None:
            return
        self._mark(self._rec.record(
            kind="llm.error", source="model", target="app", payload=payload, step=step, direction="error",
            t_start_ms=exchange.request_hop.t_start_ms, summary=summary,
        ))

    def deadline_crossed(self, exchange: _Exchange, step: int | None) -> ModelLimitError:
        """The call's time ran out: the hop says so where it happened, the error is the user's line."""
        t = f"{self.timeout_s:g}"
        meter = exchange.meter
        received = meter.wire if meter is not None else 0
        self._limit_hop(exchange, step, {"error": "deadline", "limit_s": self.timeout_s, "received_bytes": received,
                                         "answered": meter is not None},
                        f"no complete answer within {t} s (the limit for a whole model call)")
        if meter is None:
            return ModelLimitError(f"the model endpoint did not answer within {t} s", f"模型接口在 {t} 秒内没有回答")
        if exchange.stream and not meter.data_seen:
            got, got_zh = f"{amount_text(received)} of keep-alive comments and no data had arrived", \
                f"只收到 {amount_text(received)} 的保活注释，没有数据"
        else:
            got, got_zh = f"{amount_text(received)} had arrived", f"已收到 {amount_text(received)}"
        return ModelLimitError(
            f"the model endpoint did not finish its answer within {t} s, the time allowed for a whole model call ({got})",
            f"模型接口没有在 {t} 秒内答完（这是一次模型调用的总时限；{got_zh}）",
        )

    def size_crossed(self, exchange: _Exchange, step: int | None) -> ModelLimitError:
        """The answer grew past the cap: reading stopped there, and nothing of it goes into the hop."""
        assert exchange.meter is not None
        meter, limit = exchange.meter, amount_text(self.max_bytes)
        self._limit_hop(exchange, step, {"error": "too large", "limit_bytes": self.max_bytes, "wire_bytes": meter.wire,
                                         "decoded_bytes": meter.decoded, "stream": exchange.stream},
                        f"answer over {limit}: reading stopped")
        packed = meter.decoded > meter.wire  # a small compressed body that expands: a "zip bomb"
        return ModelLimitError(
            f"the model endpoint's answer is larger than {limit}, the limit for one model response: reading stopped there"
            + (f" (it came compressed, {amount_text(meter.wire)} on the wire)" if packed else ""),
            f"模型接口的回答超过了 {limit}（单次模型回答的上限），已停止读取"
            + (f"（以压缩形式传来，线上只有 {amount_text(meter.wire)}）" if packed else ""),
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


class _StreamTap(httpx2.AsyncByteStream):
    """Passes a server-sent event stream through, recording each event as a chunk hop as it arrives, and holds it
    to its call's deadline and size cap: a byte counter per chunk, and the wait for each chunk under the deadline,
    so a stall is caught when the time is up, not at the next byte."""

    def __init__(self, response: httpx2.Response, tap: HttpTap, exchange: _Exchange, headers: dict[str, str]) -> None:
        self._response, self._tap, self._exchange, self._headers = response, tap, exchange, headers
        self._rec = tap._rec
        self._hops: list[Hop] = []
        self._step = 9

    async def __aiter__(self) -> AsyncIterator[bytes]:
        meter, deadline = self._exchange.meter, self._exchange.deadline
        assert meter is not None
        recording = self._exchange.request_hop is not None
        buffer = bytearray()
        chunks = self._response.aiter_raw()
        try:
            while True:
                with anyio.CancelScope(deadline=deadline) as waited:
                    try:
                        raw = await chunks.__anext__()
                    except StopAsyncIteration:
                        break
                if waited.cancelled_caught:
                    raise self._tap.deadline_crossed(self._exchange, self._step)
                out = meter.feed(raw)
                if meter.over:
                    raise self._tap.size_crossed(self._exchange, self._step)
                if not meter.data_seen and b"data:" in out:
                    meter.data_seen = True
                if recording:
                    # Record before handing the bytes on: the SDK may stop reading at [DONE].
                    self._split(buffer, out)
                yield raw
        finally:
            if recording and buffer.strip():
                self._record(bytes(buffer))
            await chunks.aclose()
            await self._response.aclose()

    def _split(self, buffer: bytearray, out: bytes) -> None:
        """Add what arrived and record each complete event ("\r\n" line ends read as "\n")."""
        if buffer.endswith(b"\r") and out.startswith(b"\n"):
            del buffer[-1]
        start = max(0, len(buffer) - 1)  # only the new bytes (and the one before) can complete an event
        buffer += out.replace(b"\r\n", b"\n") if b"\r" in out else out
        while (end := buffer.find(b"\n\n", start)) >= 0:
            self._record(bytes(buffer[:end]))
            del buffer[: end + 2]
            start = 0

    def _record(self, event: bytes) -> None:
        data_lines = [line[5:].strip() for line in event.split(b"\n") if line.startswith(b"data:")]
        if not data_lines:
            return
        data = _json_or_text(b"\n".join(data_lines))
        usage = data.get("usage") if isinstance(data, dict) else None
        payload: dict[str, Any] = {"data": data}
        if not self._hops:
            payload = {"status": self._response.status_code, "headers": self._headers, **payload}
        # A stream is the answer (step 9) until a tool_calls delta shows it is the decision (step 4).
        if self._step == 9 and isinstance(data, dict) and _response_step(data) == 4:
            self._step = 4
            for hop in self._hops:
                self._rec.restep(hop, 4)
        request_hop = self._exchange.request_hop
        assert request_hop is not None
        self._hops.append(
            self._tap._mark(self._rec.record(
                kind="llm.chunk",
                source="model",
                target="app",
                payload=payload,
                step=self._step,
                direction="response",
                t_start_ms=request_hop.t_start_ms,
                size=len(event) + 2,
                usage=usage if isinstance(usage, dict) else None,
                summary=_chunk_summary(data, len(self._hops) + 1),
            ))
        )

    async def aclose(self) -> None:
        await self._response.aclose()


def _chunk_summary(data: Any, n: int) -> str:
    if not isinstance(data, dict):
        return f"chunk {n}: {str(data)[:30]}"
    choice = _first_choice(data)
    if not choice:
        return f"chunk {n}: usage" if data.get("usage") else f"chunk {n}"
    delta = _dict(choice.get("delta"))
    if choice.get("finish_reason"):
        return f"chunk {n}: finish_reason: {choice['finish_reason']}"
    calls = delta.get("tool_calls")
    if isinstance(calls, list) and calls:
        fn = _dict(_dict(calls[0]).get("function"))
        if fn.get("name"):
            return f"chunk {n}: tool_call {fn['name']} starts"
        return f"chunk {n}: arguments += {fn.get('arguments', '')!r}"
    if delta.get("content"):
        return f"chunk {n}: content += {delta['content']!r}"
    return f"chunk {n}: role {delta.get('role', '')}".strip()


def _get(obj: Any, name: str) -> Any:
    """A field of an SDK object or of a plain dict, None when absent: the SDK builds responses without checking
    them, so any field may be missing or of another type."""
    if isinstance(obj, dict):
        return obj.get(name)
    if isinstance(obj, pydantic.BaseModel):
        return getattr(obj, name, None)
    return None


def _excerpt(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return repr(text[:60] + ("…" if len(text) > 60 else ""))


def _malformed(en: str, zh: str) -> MalformedResponse:
    return MalformedResponse(f"the model endpoint's answer cannot be read: {en}", f"模型接口的回答无法读取：{zh}")


def not_json(text: str, *, stream: bool) -> MalformedResponse:
    """A body (or a streamed event) that was meant to be JSON and is not."""
    if stream:
        return _malformed(f"a streamed event is not JSON: {_excerpt(text)}", f"流式事件不是 JSON：{_excerpt(text)}")
    return _malformed(f"the body is not JSON: {_excerpt(text)}", f"正文不是 JSON：{_excerpt(text)}")


def _tool_calls(value: Any, where: str) -> list[dict[str, Any]]:
    """Tool calls as the app sends them back, each with an id, a function name and its arguments as a string."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise _malformed(f"{where} is not a list", f"{where} 不是列表")
    calls = []
    for i, call in enumerate(value):
        fn = _get(call, "function")
        name, call_id, arguments = _get(fn, "name"), _get(call, "id"), _get(fn, "arguments")
        if not isinstance(name, str) or not name:
            raise _malformed(f"{where}[{i}] has no function name", f"{where}[{i}] 没有函数名")
        if not isinstance(call_id, str) or not call_id:
            raise _malformed(f"{where}[{i}] ({name}) has no id", f"{where}[{i}]（{name}）没有 id")
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments, ensure_ascii=False)  # an object where a JSON string belongs: some providers
        elif arguments is None:
            arguments = ""
        elif not isinstance(arguments, str):
            raise _malformed(f"{where}[{i}] ({name}) has arguments that are not a string",
                             f"{where}[{i}]（{name}）的 arguments 不是字符串")
        dumped = (call.model_dump(mode="json", exclude_none=True, warnings=False) if isinstance(call, pydantic.BaseModel)
                  else dict(call))
        dumped.setdefault("type", "function")
        dumped["id"] = call_id
        dumped["function"] = {**_dict(dumped.get("function")), "name": name, "arguments": arguments}
        calls.append(dumped)
    return calls


def read_completion(completion: Any) -> dict[str, Any]:
    """The assistant message of a chat completion, as the app sends it back; `MalformedResponse` says what is wrong."""
    if isinstance(completion, str):  # the SDK hands over a body that is not JSON as text
        raise not_json(completion, stream=False)
    if not isinstance(completion, (pydantic.BaseModel, dict)):
        raise _malformed(f"the body is JSON but not an object: {_excerpt(completion)}",
                         f"正文是 JSON 但不是对象：{_excerpt(completion)}")
    choices = _get(completion, "choices")
    if not isinstance(choices, list) or not choices:
        raise _malformed(f"it has no choices (choices: {_excerpt(choices)})", f"没有 choices（choices: {_excerpt(choices)}）")
    message = _get(choices[0], "message")
    if not isinstance(message, (pydantic.BaseModel, dict)):
        raise _malformed("choices[0] has no message", "choices[0] 没有 message")
    content = _get(message, "content")
    if content is not None and not isinstance(content, str):
        raise _malformed("choices[0].message.content is not text", "choices[0].message.content 不是文本")
    calls = _tool_calls(_get(message, "tool_calls"), "choices[0].message.tool_calls")
    if content is None and not calls and _get(message, "refusal") is None:
        finish = _get(choices[0], "finish_reason")
        raise _malformed(f"choices[0].message has no content and no tool_calls (finish_reason: {finish})",
                         f"choices[0].message 既没有 content 也没有 tool_calls（finish_reason: {finish}）")
    out: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        out["tool_calls"] = calls
    return out


class StreamAssembler:
    """Builds the assistant message from a stream's chunks as the SDK hands them over, reading each defensively;
    a stream that never says it finished is reported as truncated, never taken for an (empty) answer."""

    def __init__(self) -> None:
        self.chunks = 0
        self.content: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish: str | None = None

    def add(self, chunk: Any) -> None:
        self.chunks += 1
        choices = _get(chunk, "choices")
        if choices is None:
            return
        if not isinstance(choices, list):
            raise _malformed(f"streamed chunk {self.chunks} has choices that are not a list",
                             f"第 {self.chunks} 个流式数据块的 choices 不是列表")
        for choice in choices:
            finish = _get(choice, "finish_reason")
            if finish is not None:
                self.finish = str(finish)
            delta = _get(choice, "delta")
            content = _get(delta, "content")
            if isinstance(content, str):
                self.content.append(content)
            elif content is not None:
                raise _malformed(f"streamed chunk {self.chunks} has delta.content that is not text",
                                 f"第 {self.chunks} 个流式数据块的 delta.content 不是文本")
            calls = _get(delta, "tool_calls")
            if calls is None:
                continue
            if not isinstance(calls, list):
                raise _malformed(f"streamed chunk {self.chunks} has delta.tool_calls that is not a list",
                                 f"第 {self.chunks} 个流式数据块的 delta.tool_calls 不是列表")
            for tc in calls:
                self._add_call(tc)

    def _add_call(self, tc: Any) -> None:
        index = _get(tc, "index")
        if not isinstance(index, int):  # no index: a delta with an id starts a call, one without continues the last
            index = len(self.calls) if _get(tc, "id") or not self.calls else max(self.calls)
        slot = self.calls.setdefault(index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
        call_id = _get(tc, "id")
        if isinstance(call_id, str) and call_id:
            slot["id"] = call_id
        fn = _get(tc, "function")
        name, arguments = _get(fn, "name"), _get(fn, "arguments")
        if isinstance(name, str):
            slot["function"]["name"] += name
        if isinstance(arguments, str):
            slot["function"]["arguments"] += arguments
        elif isinstance(arguments, dict):
            slot["function"]["arguments"] += json.dumps(arguments, ensure_ascii=False)

    def message(self) -> tuple[dict[str, Any], str]:
        """The assembled message and its finish_reason."""
        if self.finish is None:
            if not self.chunks:
                raise MalformedResponse(
                    "the model's stream ended without any data (only keep-alive comments, or nothing at all)",
                    "模型的流式回答没有任何数据就结束了（只有保活注释，或者什么都没有）")
            text = "".join(self.content)
            so_far = f"; {len(text)} characters of answer so far" if text else ""
            raise MalformedResponse(
                f"the model's stream ended before it finished: no finish_reason after {self.chunks} chunks "
                f"(a truncated stream{so_far})",
                f"模型的流式回答没有结束就断了：收到 {self.chunks} 个数据块后仍没有 finish_reason（流被截断）")
        calls = _tool_calls([self.calls[i] for i in sorted(self.calls)], "the streamed tool_calls")
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.content) or None}
        if calls:
            message["tool_calls"] = calls
        return message, self.finish
