"""The model-side tap: an httpx2 transport, given to the real openai SDK, that records every exchange.

The inner transport is either a stand-in model or a real network transport; the tap never asks which.
"""

from __future__ import annotations

import contextlib
import json
import math
import zlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2
import pydantic_core

from flow.capture.recorder import SERVER_ASK, Recorder
from flow.text.errors import MalformedResponse, ModelLimitError
from flow.trace import hops
from flow.trace.factory import json_bytes
from flow.trace.model import Hop
from flow.trace.payloads import LlmChunkPayload, LlmErrorPayload, LlmRequestPayload, LlmResponsePayload
from flow.trace.redact import header_secrets, redact_headers, redact_url
from flow.trace.stats import RETRY_HEADER
from flow.trace.steps import STEPS, Step
from flow.trace.summaries import amount_text
from flow.wire.base import WireApi
from flow.wire.chat import CHAT

MAX_RESPONSE_BYTES = 16 << 20  # one model response, or one whole stream, decoded: far above any real answer


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
    step: Step | None
    deadline: float
    meter: _Meter | None = None  # set when the response's headers arrive
    stream: bool = False
    offered_tools: bool = False  # the request carried tools


def _answered(status: int, headers: dict[str, str], body: Any) -> LlmResponsePayload:
    """A whole response as its hop keeps it; one made for an MCP server (sampling) says which request it answers."""
    answered: LlmResponsePayload = {"status": status, "headers": headers, "body": body}
    ask = SERVER_ASK.get()
    if ask is not None:
        answered["for_server"] = ask
    return answered


class ModelHttpTap(httpx2.AsyncBaseTransport):
    """Records the request and response bodies the SDK sent and received, headers minus secrets, and holds each
    model call to its limits: one deadline for the whole call (connecting, waiting, every byte, any retry) and a
    cap on the decoded response. Crossing either is an llm.error hop where it happened and a `ModelLimitError`."""

    def __init__(
        self,
        inner: httpx2.AsyncBaseTransport,
        recorder: Recorder,
        *,
        api: WireApi = CHAT,
        scripted: bool = False,
        timeout_s: float = math.inf,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self._inner, self._rec, self.api = inner, recorder, api
        self._scripted = scripted  # the answers come from the user's script: every model hop says so
        self.timeout_s, self.max_bytes = timeout_s, max_bytes
        self._deadline = math.inf

    def _mark(self, hop: Hop) -> Hop:
        if self._scripted:
            hop.scripted = True
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
        step = rec.step if rec.step is not None and STEPS[rec.step].asks_model else None
        exchange = _Exchange(await self._record_request(request, step) if rec.enabled else None, step, deadline)
        with contextlib.suppress(httpx2.RequestNotRead):  # the SDK's JSON body is bytes, read when it was built
            exchange.offered_tools = b'"tools"' in request.content
        if anyio.current_time() < deadline:  # a retry that comes after its call's time is up is not sent
            with anyio.CancelScope(deadline=deadline):
                return await self._exchange(request, exchange)
        raise self.deadline_crossed(exchange, step)

    async def _record_request(self, request: httpx2.Request, step: Step | None) -> Hop:
        rec = self._rec
        raw = await request.aread()
        body = _json_or_text(raw)
        rec.add_secret(*header_secrets(request.headers.multi_items()))  # wherever the provider echoes it
        request_headers = redact_headers(request.headers.multi_items())
        url = redact_url(str(request.url))  # no user-info or query values: `?api-key=` is a key
        payload: LlmRequestPayload = {"method": request.method, "url": url, "headers": request_headers, "body": body}
        if rec.adaptations:
            payload["adapted"] = rec.adaptations
        ask = SERVER_ASK.get()
        if ask is not None:
            payload["for_server"] = ask
        sent = hops.model_request(payload, step=step, path=request.url.path, carries=self.api.request_summary(body))
        # Everything in the payload, as text: the body as sent, the URL, the headers.
        wire = raw + url.encode() + json_bytes(request_headers)
        return self._mark(rec.add(sent, size=len(raw), wire_text=wire))

    async def _exchange(self, request: httpx2.Request, exchange: _Exchange) -> httpx2.Response:
        rec, request_hop, step = self._rec, exchange.request_hop, exchange.step
        try:
            response = await self._inner.handle_async_request(request)
        except httpx2.TransportError as exc:
            if request_hop is not None:
                self._mark(
                    rec.add(
                        hops.model_failed(
                            {"error": type(exc).__name__, "message": str(exc) or type(exc).__name__},
                            step=step,
                            summary=f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__,
                        ),
                        t_start_ms=request_hop.t_start_ms,
                    )
                )
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
            status = response.status_code
            got: hops.Draft[Any] = (
                hops.model_response(
                    _answered(status, headers, resp_body),
                    step=self.api.response_step(resp_body),
                    summary=self.api.response_summary(resp_body),
                )
                if status < 400
                else hops.model_failed(
                    {"status": status, "headers": headers, "body": resp_body}, step=step, summary=f"HTTP {status}"
                )
            )
            wire = decoded + json_bytes(headers)
            self._mark(rec.add(got, t_start_ms=request_hop.t_start_ms, size=len(raw_body), wire_text=wire))
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

    def _limit_hop(self, exchange: _Exchange, step: Step | None, payload: LlmErrorPayload, summary: str) -> None:
        if exchange.request_hop is None:
            return
        failed = hops.model_failed(payload, step=step, summary=summary)
        self._mark(self._rec.add(failed, t_start_ms=exchange.request_hop.t_start_ms))

    def deadline_crossed(self, exchange: _Exchange, step: Step | None) -> ModelLimitError:
        """The call's time ran out: the hop says so where it happened, the error is the user's line."""
        t = f"{self.timeout_s:g}"
        meter = exchange.meter
        received = meter.wire if meter is not None else 0
        self._limit_hop(
            exchange,
            step,
            {"error": "deadline", "limit_s": self.timeout_s, "received_bytes": received, "answered": meter is not None},
            f"no complete answer within {t} s (the limit for a whole model call)",
        )
        if meter is None:
            return ModelLimitError("model_timeout", timeout_s=self.timeout_s)
        return ModelLimitError(
            "model_unfinished",
            timeout_s=self.timeout_s,
            received_bytes=received,
            keepalive_only=exchange.stream and not meter.data_seen,
        )

    def size_crossed(self, exchange: _Exchange, step: Step | None) -> ModelLimitError:
        """The answer grew past the cap: reading stopped there, and nothing of it goes into the hop."""
        assert exchange.meter is not None
        meter, limit = exchange.meter, amount_text(self.max_bytes)
        self._limit_hop(
            exchange,
            step,
            {
                "error": "too large",
                "limit_bytes": self.max_bytes,
                "wire_bytes": meter.wire,
                "decoded_bytes": meter.decoded,
                "stream": exchange.stream,
            },
            f"answer over {limit}: reading stopped",
        )
        packed = meter.decoded > meter.wire  # a small compressed body that expands: a "zip bomb"
        return ModelLimitError("model_too_large", limit_bytes=self.max_bytes, wire_bytes=meter.wire, packed=packed)

    def stream_without_data(
        self, exchange: _Exchange, headers: dict[str, str], status: int, seen: bytes
    ) -> MalformedResponse:
        """A stream that ended with no event of data (llama-cpp-python's, asked to stream under tool_choice auto):
        its hop keeps what the server did send, its status, headers, bytes and time, and the error says it is
        recorded so that the engine does not record it again."""
        request_hop, meter = exchange.request_hop, exchange.meter
        error = MalformedResponse(
            "stream_empty", notes=(("streamed_tools_unsupported", {}),) if exchange.offered_tools else ()
        )
        error.recorded = True
        if request_hop is not None and meter is not None:
            text = seen.decode("utf-8", errors="replace")
            failed = hops.model_failed(
                {
                    "status": status,
                    "headers": headers,
                    "body": text,
                    "error": "malformed response",
                    "reason": str(error),
                    "stream": True,
                    "received_bytes": meter.wire,
                },
                step=exchange.step,
                summary=f"HTTP {status}: a stream of {amount_text(meter.wire)} with no data",
            )
            wire = seen + json_bytes(headers)
            self._mark(self._rec.add(failed, t_start_ms=request_hop.t_start_ms, size=meter.wire, wire_text=wire))
        return error

    async def aclose(self) -> None:
        await self._inner.aclose()


SEEN_BYTES = 2048  # what a hop keeps of a stream that carried no data: its comments, the start of whatever came


class _StreamTap(httpx2.AsyncByteStream):
    """Passes a server-sent event stream through, recording each event as a chunk hop as it arrives, and holds it
    to its call's deadline and size cap: a byte counter per chunk, and the wait for each chunk under the deadline,
    so a stall is caught when the time is up, not at the next byte."""

    def __init__(
        self, response: httpx2.Response, tap: ModelHttpTap, exchange: _Exchange, headers: dict[str, str]
    ) -> None:
        self._response, self._tap, self._exchange, self._headers = response, tap, exchange, headers
        self._rec = tap._rec
        self._hops: list[Hop] = []
        self._stream = tap.api.stream()  # what the events so far built: how the next one is labelled
        self._step = Step.MODEL_ANSWER
        self._seen = bytearray()  # the first bytes, kept while no data has come

    async def __aiter__(self) -> AsyncIterator[bytes]:
        meter, deadline = self._exchange.meter, self._exchange.deadline
        assert meter is not None
        recording = self._exchange.request_hop is not None
        buffer = bytearray()
        chunks = self._response.aiter_raw()
        try:
            while True:
                raw = None  # stays None only when the deadline cut the wait short
                with anyio.CancelScope(deadline=deadline):
                    try:
                        raw = await chunks.__anext__()
                    except StopAsyncIteration:
                        break
                if raw is None:
                    raise self._tap.deadline_crossed(self._exchange, self._step)
                out = meter.feed(raw)
                if meter.over:
                    raise self._tap.size_crossed(self._exchange, self._step)
                if not meter.data_seen and b"data:" in out:
                    meter.data_seen = True
                if not meter.data_seen and len(self._seen) < SEEN_BYTES:
                    self._seen += out[: SEEN_BYTES - len(self._seen)]
                if recording:
                    # Record before handing the bytes on: the SDK may stop reading at [DONE].
                    self._split(buffer, out)
                yield raw
            if not meter.data_seen:
                status = self._response.status_code
                raise self._tap.stream_without_data(self._exchange, self._headers, status, bytes(self._seen))
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
        payload: LlmChunkPayload = {"data": data}
        if not self._hops:
            payload = {"status": self._response.status_code, "headers": self._headers, **payload}
        summary = self._stream.add(data)
        # A stream is the answer (step 9) until an event shows the model decided to call a tool (step 4).
        if self._step == Step.MODEL_ANSWER and self._stream.decided:
            self._step = Step.DECISION
            for hop in self._hops:
                self._rec.restep(hop, Step.DECISION)
        request_hop = self._exchange.request_hop
        assert request_hop is not None
        self._hops.append(
            self._tap._mark(
                self._rec.add(
                    hops.model_chunk(payload, step=self._step, summary=summary),
                    t_start_ms=request_hop.t_start_ms,
                    size=len(event) + 2,
                )
            )
        )

    async def aclose(self) -> None:
        await self._response.aclose()
