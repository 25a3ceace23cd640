"""The model side: the real openai SDK, given an httpx2 transport that records every exchange.

The inner transport is either the offline mock model or a real network transport; the
orchestrator never asks which.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

import httpx2
import openai
import pydantic

from flow.capture.http import MAX_RESPONSE_BYTES, ModelHttpTap
from flow.capture.recorder import Recorder
from flow.text.errors import FlowError, MalformedResponse
from flow.trace.redact import redact_url
from flow.trace.stream import StreamAssembly
from flow.trace.summaries import _dict

if TYPE_CHECKING:
    from flow.backends.scripted import Turn  # a type only: the engine never builds a stand-in model

MOCK_BASE_URL = "http://mock.local/v1"  # where the stand-in models answer; never a real host
SCRIPTED_BASE_URL = "http://scripted.local/v1"

Backend = Literal["mock", "openai", "replay", "scripted"]


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

    def __post_init__(self) -> None:
        if self.backend == "openai" and self.base_url:  # before anything is sent, and before any page shows it
            check_base_url(self.base_url)

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
            return {
                "backend": "scripted",
                "name": "scripted",
                "base_url": SCRIPTED_BASE_URL,
                "key_status": "none needed",
                "timeout_s": self.timeout_s,
                "max_retries": self.max_retries,
                "script": [turn.as_json() for turn in self.script],
            }
        base_url = (
            (self.base_url or "https://api.openai.com/v1")
            if self.backend == "openai"
            else (self.base_url or MOCK_BASE_URL)
        )
        return {
            "backend": self.backend,
            "name": self.model,
            "base_url": redact_url(base_url),  # a password or `?api-key=` in it stays out of the trace
            "key_status": ("set" if self.api_key else "missing") if self.backend == "openai" else "none needed",
            "timeout_s": self.timeout_s,
            "max_retries": self.max_retries,
        }


_USERINFO = re.compile(r"^([^:/?#]*://)[^/?#]*@")


def _shown_url(url: str) -> str:
    """A base URL that may not parse, for a line: without user-info, query or fragment, escaped, clipped."""
    shown = _USERINFO.sub(r"\1[redacted]@", re.split(r"[?#]", url, maxsplit=1)[0])
    text = json.dumps(shown, ensure_ascii=False)
    return text if len(text) <= 100 else text[:96] + '..."'


def check_base_url(url: str) -> str:
    """A base URL the openai SDK can be given, stripped; or `FlowError("model_bad_url")`, one line naming why
    (`https://[evil]/v1`: urllib refuses a bracketed host that is not an IPv6 address)."""
    url = url.strip()
    problem = None
    if any(c.isspace() or not c.isprintable() or c == "\\" for c in url):
        problem = "characters"
    else:
        try:
            parts = urlsplit(url)
            if parts.scheme.lower() not in ("http", "https"):
                problem = "scheme"
            elif not parts.hostname:
                problem = "host"
            else:
                _ = parts.port  # reading it checks it: a port out of range or not a number raises
        except ValueError as exc:
            problem = "port" if "port" in str(exc).lower() else "bracket" if "[" in url else "host"
    if problem is not None:
        raise FlowError("model_bad_url", url=_shown_url(url), problem=problem)
    return url


def make_client(
    config: ModelConfig, recorder: Recorder, *, transport: httpx2.AsyncBaseTransport | None = None
) -> openai.AsyncOpenAI:
    """The openai SDK, its HTTP recorded by the tap. A stand-in model (mock, scripted, replay) is the `transport`
    the caller gives; the engine never picks one, and without one it talks to the network."""
    scripted = config.backend == "scripted"
    if transport is None and config.backend != "openai":
        raise ValueError(f"the {config.backend} model needs its transport (flow.backends.model_transport)")
    inner = transport or httpx2.AsyncHTTPTransport()
    base_url = config.base_url if config.backend == "openai" else (config.base_url or MOCK_BASE_URL)
    return openai.AsyncOpenAI(
        api_key=config.api_key or "no-key",
        base_url=SCRIPTED_BASE_URL if scripted else base_url,
        timeout=config.timeout_s,
        max_retries=config.max_retries,
        http_client=httpx2.AsyncClient(
            transport=ModelHttpTap(
                inner,
                recorder,
                scripted=scripted,
                timeout_s=config.timeout_s,
                max_bytes=config.max_response_bytes,
            )
        ),
    )


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


def not_json(text: str, *, stream: bool) -> MalformedResponse:
    """A body (or a streamed event) that was meant to be JSON and is not."""
    return MalformedResponse("event_not_json" if stream else "body_not_json", excerpt=_excerpt(text))


def _tool_calls(value: Any, where: str) -> list[dict[str, Any]]:
    """Tool calls as the app sends them back, each with an id, a function name and its arguments as a string."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise MalformedResponse("not_a_list", where=where)
    calls = []
    for i, call in enumerate(value):
        fn = _get(call, "function")
        name, call_id, arguments = _get(fn, "name"), _get(call, "id"), _get(fn, "arguments")
        if not isinstance(name, str) or not name:
            raise MalformedResponse("call_without_name", where=where, i=i)
        if not isinstance(call_id, str) or not call_id:
            raise MalformedResponse("call_without_id", where=where, i=i, name=name)
        if isinstance(arguments, dict):
            arguments = json.dumps(
                arguments, ensure_ascii=False
            )  # an object where a JSON string belongs: some providers
        elif arguments is None:
            arguments = ""
        elif not isinstance(arguments, str):
            raise MalformedResponse("arguments_not_text", where=where, i=i, name=name)
        dumped = (
            call.model_dump(mode="json", exclude_none=True, warnings=False)
            if isinstance(call, pydantic.BaseModel)
            else dict(call)
        )
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
        raise MalformedResponse("body_not_object", excerpt=_excerpt(completion))
    choices = _get(completion, "choices")
    if not isinstance(choices, list) or not choices:
        raise MalformedResponse("no_choices", excerpt=_excerpt(choices))
    message = _get(choices[0], "message")
    if not isinstance(message, (pydantic.BaseModel, dict)):
        raise MalformedResponse("no_message")
    content = _get(message, "content")
    if content is not None and not isinstance(content, str):
        raise MalformedResponse("content_not_text")
    calls = _tool_calls(_get(message, "tool_calls"), "choices[0].message.tool_calls")
    if content is None and not calls and _get(message, "refusal") is None:
        raise MalformedResponse("no_content", finish=str(_get(choices[0], "finish_reason")))
    out: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        out["tool_calls"] = calls
    return out


class StreamAssembler:
    """Builds the assistant message from a stream's chunks as the SDK hands them over, reading each defensively;
    a stream that never says it finished is reported as truncated, never taken for an (empty) answer. How deltas
    add up is `flow.trace.stream`'s rule, the one the tap and merge label the recorded events by."""

    def __init__(self) -> None:
        self.chunks = 0
        self.stream = StreamAssembly()
        self.finish: str | None = None

    def add(self, chunk: Any) -> None:
        self.chunks += 1
        choices = _get(chunk, "choices")
        if choices is None:
            return
        if not isinstance(choices, list):
            raise MalformedResponse("chunk_choices_not_list", chunk=self.chunks)
        for choice in choices:
            finish = _get(choice, "finish_reason")
            if finish is not None:
                self.finish = str(finish)
            delta = _get(choice, "delta")
            content = _get(delta, "content")
            if isinstance(content, str):
                self.stream.add_content(content)
            elif content is not None:
                raise MalformedResponse("chunk_content_not_text", chunk=self.chunks)
            calls = _get(delta, "tool_calls")
            if calls is None:
                continue
            if not isinstance(calls, list):
                raise MalformedResponse("chunk_calls_not_list", chunk=self.chunks)
            for tc in calls:
                fn = _get(tc, "function")
                arguments = _get(fn, "arguments")
                if isinstance(arguments, dict):
                    arguments = json.dumps(arguments, ensure_ascii=False)
                arguments = arguments if isinstance(arguments, str) else None
                self.stream.add_call(_get(tc, "index"), _get(tc, "id"), _get(fn, "name"), arguments, said=False)

    def message(self) -> tuple[dict[str, Any], str]:
        """The assembled message and its finish_reason."""
        if self.finish is None:
            if not self.chunks:
                raise MalformedResponse("stream_empty")
            content = self.stream.message()["content"] or ""
            raise MalformedResponse("stream_truncated", chunks=self.chunks, chars=len(content))
        message = self.stream.message()
        calls = _tool_calls(message.pop("tool_calls", None) or [], "the streamed tool_calls")
        if calls:
            message["tool_calls"] = calls
        return message, self.finish
