"""The model side: the real openai SDK, given an httpx2 transport that records every exchange.

The inner transport is either the offline mock model or a real network transport; the
orchestrator never asks which.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Literal

import httpx2
import openai
import pydantic_core

from flow.mock_model import MOCK_BASE_URL, MockModelTransport
from flow.recorder import Recorder, json_bytes
from flow.scripted import SCRIPTED_BASE_URL, ScriptedModelTransport, Turn
from flow.redact import redact_headers, redact_url
from flow.trace import Hop

Backend = Literal["mock", "openai", "replay", "scripted"]


@dataclass(frozen=True, kw_only=True)
class ModelConfig:
    """Which model to talk to. The key is used for the call and never recorded."""

    backend: Backend = "mock"
    model: str = "mock"
    base_url: str | None = None
    api_key: str | None = None
    timeout_s: float = 60.0
    max_retries: int = 0  # every retry would be a real exchange on the wire; off unless asked for
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
        http_client=httpx2.AsyncClient(transport=HttpTap(inner, recorder, scripted=scripted and transport is None)),
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


def _response_step(body: Any) -> int:
    """A response that asks for tools is the decision (step 4); one that answers is step 9."""
    choices = body.get("choices") if isinstance(body, dict) else None
    if choices and isinstance(choices[0], dict):
        message = choices[0].get("message") or choices[0].get("delta") or {}
        if message.get("tool_calls") or choices[0].get("finish_reason") == "tool_calls":
            return 4
    return 9


def response_summary(body: Any) -> str:
    if not isinstance(body, dict) or not body.get("choices"):
        return "response"
    choice = body["choices"][0]
    calls = (choice.get("message") or {}).get("tool_calls") or []
    if calls:
        return "tool_calls: " + ", ".join(_call_text(c) for c in calls)
    return f"finish_reason: {choice.get('finish_reason')}"


def _call_text(call: dict[str, Any]) -> str:
    fn = call.get("function") or {}
    try:
        args = json.loads(fn.get("arguments") or "{}")
        shown = ", ".join(f"{k}={v}" for k, v in args.items()) if isinstance(args, dict) else str(args)
    except json.JSONDecodeError:
        shown = (fn.get("arguments") or "")[:40] + " (not JSON)"
    return f"{fn.get('name')}({shown})"


class HttpTap(httpx2.AsyncBaseTransport):
    """Records the request and response bodies the SDK sent and received, headers minus secrets."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, recorder: Recorder, *, scripted: bool = False) -> None:
        self._inner, self._rec = inner, recorder
        self._scripted = scripted  # the answers come from the user's script: every model hop says so

    def _mark(self, hop: Hop) -> Hop:
        if self._scripted:
            hop.scripted = True  # type: ignore[attr-defined]  # an extra field, present only where true
            hop.summary = f"scripted · {hop.summary}"
        return hop

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        rec = self._rec
        if not rec.enabled:
            return await self._inner.handle_async_request(request)
        raw = await request.aread()
        body = _json_or_text(raw)
        request_headers = redact_headers(request.headers.multi_items())
        url = redact_url(str(request.url))  # no user-info or query values: `?api-key=` is a key
        step = rec.step if rec.step in (3, 8) else None
        n_msgs = len(body.get("messages") or []) if isinstance(body, dict) else 0
        n_tools = len(body.get("tools") or []) if isinstance(body, dict) else 0
        request_hop = self._mark(rec.record(
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
        try:
            response = await self._inner.handle_async_request(request)
        except httpx2.TransportError as exc:
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
        headers = redact_headers(response.headers.multi_items())
        if "text/event-stream" in response.headers.get("content-type", "") and response.status_code < 400:
            tapped = _StreamTap(response, rec, request_hop, headers, self._mark)
            return httpx2.Response(
                response.status_code, headers=response.headers, stream=tapped, extensions=response.extensions
            )
        built_from_bytes = response.is_stream_consumed  # a transport that built its response from bytes read it
        if built_from_bytes:
            raw_body, dec = response.content, None
        else:
            raw_body = b"".join([chunk async for chunk in response.aiter_raw()])
            dec = _decoder(response.headers.get("content-encoding", ""))
            await response.aclose()
        decoded = raw_body
        if dec is not None:
            try:
                decoded = dec.decompress(raw_body) + dec.flush()
            except zlib.error:
                decoded = raw_body
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

    async def aclose(self) -> None:
        await self._inner.aclose()


class _StreamTap(httpx2.AsyncByteStream):
    """Passes a server-sent event stream through, recording each event as a chunk hop as it arrives."""

    def __init__(
        self, response: httpx2.Response, rec: Recorder, request_hop: Hop, headers: dict[str, str], mark: Callable[[Hop], Hop]
    ) -> None:
        self._response, self._rec, self._request_hop, self._headers, self._mark = response, rec, request_hop, headers, mark
        self._decoder = _decoder(response.headers.get("content-encoding", ""))
        self._hops: list[Hop] = []
        self._step = 9

    async def __aiter__(self) -> AsyncIterator[bytes]:
        buffer = b""
        try:
            async for raw in self._response.aiter_raw():
                # Record before handing the bytes on: the SDK may stop reading at [DONE].
                buffer += self._decoder.decompress(raw) if self._decoder else raw
                buffer = buffer.replace(b"\r\n", b"\n")
                while b"\n\n" in buffer:
                    event, buffer = buffer.split(b"\n\n", 1)
                    self._record(event)
                yield raw
        finally:
            if buffer.strip():
                self._record(buffer)
            await self._response.aclose()

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
        self._hops.append(
            self._mark(self._rec.record(
                kind="llm.chunk",
                source="model",
                target="app",
                payload=payload,
                step=self._step,
                direction="response",
                t_start_ms=self._request_hop.t_start_ms,
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
    if not data.get("choices"):
        return f"chunk {n}: usage" if data.get("usage") else f"chunk {n}"
    choice = data["choices"][0]
    delta = choice.get("delta") or {}
    if choice.get("finish_reason"):
        return f"chunk {n}: finish_reason: {choice['finish_reason']}"
    if delta.get("tool_calls"):
        tc = delta["tool_calls"][0]
        fn = tc.get("function") or {}
        if fn.get("name"):
            return f"chunk {n}: tool_call {fn['name']} starts"
        return f"chunk {n}: arguments += {fn.get('arguments', '')!r}"
    if delta.get("content"):
        return f"chunk {n}: content += {delta['content']!r}"
    return f"chunk {n}: role {delta.get('role', '')}".strip()
