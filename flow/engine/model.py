"""The model side: the real openai SDK, given an httpx2 transport that records every exchange.

The inner transport is either the offline mock model or a real network transport; the
orchestrator never asks which.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any, Literal, Protocol, assert_never
from urllib.parse import urlsplit

import anthropic
import httpx2
import openai

from flow.capture.http import MAX_RESPONSE_BYTES, ModelHttpTap
from flow.capture.recorder import Recorder
from flow.text.errors import FlowError, MalformedResponse
from flow.trace.redact import redact_url
from flow.wire import API
from flow.wire.base import ApiName, WireApi, WireProblem
from flow.wire.chat import CHAT, excerpt
from flow.wire.hosted import MCP_BETA

MOCK_BASE_URL = "http://mock.local/v1"  # where the stand-in models answer; never a real host
SCRIPTED_BASE_URL = "http://scripted.local/v1"
OPENAI_BASE_URL = "https://api.openai.com/v1"
ANTHROPIC_BASE_URL = "https://api.anthropic.com"  # the anthropic SDK adds /v1/messages itself
ANTHROPIC_DEFAULT_MODEL = "claude-haiku-4-5"

Backend = Literal["mock", "openai", "replay", "scripted"]


class ScriptStep(Protocol):
    """One decision of a scripted model, as a trace records it (the scripted backend's turns are these)."""

    def as_json(self) -> dict[str, Any]: ...


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
    script: tuple[ScriptStep, ...] = ()  # the scripted model's turns

    def __post_init__(self) -> None:
        if self.backend == "openai" and self.base_url:  # before anything is sent, and before any page shows it
            check_base_url(self.base_url)

    @classmethod
    def scripted(cls, script: tuple[ScriptStep, ...], **overrides: Any) -> ModelConfig:
        return cls(backend="scripted", model="scripted", script=script, **overrides)

    @classmethod
    def from_env(
        cls,
        *,
        backend: Backend | None = None,
        model: str | None = None,
        api: ApiName = "chat",
        environ: Any = None,
        **overrides: Any,
    ) -> ModelConfig:
        """OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL pick a real provider; otherwise the mock. For the
        Messages API, ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY / ANTHROPIC_MODEL do, and the key goes only to the base
        URL it is configured for (ANTHROPIC_BASE_URL, else Anthropic's own), never to another one given on the command
        line."""
        env = os.environ if environ is None else environ
        if API[api].sdk == "anthropic":
            return cls._anthropic_from_env(backend=backend, model=model, env=env, **overrides)
        base_url = overrides.pop("base_url", None) or env.get("OPENAI_BASE_URL")
        if backend is None:
            backend = "openai" if base_url or (model and not model.startswith("mock")) else "mock"
        if backend == "mock":
            return cls(backend="mock", model=model or "mock", **overrides)
        return cls(
            backend="openai",
            model=model or env.get("OPENAI_MODEL") or "gpt-4o-mini",
            base_url=base_url,
            api_key=overrides.pop("api_key", None) or env.get("OPENAI_API_KEY"),
            **overrides,
        )

    @classmethod
    def _anthropic_from_env(
        cls, *, backend: Backend | None, model: str | None, env: Any, **overrides: Any
    ) -> ModelConfig:
        given = overrides.pop("base_url", None)
        home = (env.get("ANTHROPIC_BASE_URL") or "").strip() or ANTHROPIC_BASE_URL
        if backend is None:
            backend = "openai" if given or (model and not model.startswith("mock")) else "mock"
        if backend == "mock":
            return cls(backend="mock", model=model or "mock", base_url=given, **overrides)
        base_url = (given or home).strip()
        key = overrides.pop("api_key", None)
        if key is None and base_url.rstrip("/") == home.rstrip("/"):
            key = env.get("ANTHROPIC_API_KEY") or None
        return cls(
            backend="openai",
            model=model or env.get("ANTHROPIC_MODEL") or ANTHROPIC_DEFAULT_MODEL,
            base_url=base_url,
            api_key=key,
            **overrides,
        )

    def describe(self, api: ApiName = "chat") -> dict[str, Any]:
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
            (self.base_url or (ANTHROPIC_BASE_URL if API[api].sdk == "anthropic" else OPENAI_BASE_URL))
            if self.backend == "openai"
            else (self.base_url or stand_in_url(MOCK_BASE_URL, api))
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


def stand_in_url(url: str, api: ApiName) -> str:
    """A stand-in model's base URL as the API's SDK takes it: the anthropic SDK adds `/v1/messages` itself."""
    return url.removesuffix("/").removesuffix("/v1") if API[api].sdk == "anthropic" else url


Sdk = openai.AsyncOpenAI | anthropic.AsyncAnthropic


def make_client(
    config: ModelConfig,
    recorder: Recorder,
    *,
    api: WireApi = CHAT,
    transport: httpx2.AsyncBaseTransport | None = None,
) -> Sdk:
    """The API's official SDK (openai for Chat Completions and Responses, anthropic for Messages), its HTTP
    recorded by the tap. A stand-in model (mock, scripted, replay) is the `transport` the caller gives; the engine
    never picks one, and without one it talks to the network."""
    scripted = config.backend == "scripted"
    if transport is None and config.backend != "openai":
        raise ValueError(f"the {config.backend} model needs its transport (flow.backends.model_transport)")
    inner = transport or httpx2.AsyncHTTPTransport()
    if config.backend == "openai":
        base_url = config.base_url or (ANTHROPIC_BASE_URL if api.sdk == "anthropic" else None)
    else:
        base_url = stand_in_url(SCRIPTED_BASE_URL if scripted else (config.base_url or MOCK_BASE_URL), api.name)
    http_client = httpx2.AsyncClient(
        transport=ModelHttpTap(
            inner,
            recorder,
            api=api,
            scripted=scripted,
            timeout_s=config.timeout_s,
            max_bytes=config.max_response_bytes,
        )
    )
    # The key is always given, so that neither SDK reads one from the environment for an endpoint it is not for.
    if api.sdk == "anthropic":
        return anthropic.AsyncAnthropic(
            api_key=config.api_key or "no-key",
            base_url=base_url,
            timeout=config.timeout_s,
            max_retries=config.max_retries,
            http_client=http_client,
        )
    return openai.AsyncOpenAI(
        api_key=config.api_key or "no-key",
        base_url=base_url,
        timeout=config.timeout_s,
        max_retries=config.max_retries,
        http_client=http_client,
    )


class ModelClient:
    """One model API spoken through its official SDK, every exchange recorded by the tap: the engine hands it a
    request body the API's wire format wrote (`flow.wire`) and gets back what the SDK parsed."""

    def __init__(
        self,
        config: ModelConfig,
        recorder: Recorder,
        *,
        api: WireApi = CHAT,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        self.config, self.api = config, api
        self._sdk = make_client(config, recorder, api=api, transport=transport)

    async def send(self, body: dict[str, Any]) -> Any:
        """The SDK's answer: a parsed response, or for `"stream": true` an async iterator of its events."""
        sdk = self._sdk
        match self.api.name:
            case "messages":
                assert isinstance(sdk, anthropic.AsyncAnthropic)
                if "mcp_servers" in body:  # hosted MCP: Anthropic's MCP connector is a beta of the Messages API
                    return await sdk.beta.messages.create(**body, betas=[MCP_BETA])
                return await sdk.messages.create(**body)
            case "responses":
                assert isinstance(sdk, openai.AsyncOpenAI)
                return await sdk.responses.create(**body)
            case "chat":
                assert isinstance(sdk, openai.AsyncOpenAI)
                return await sdk.chat.completions.create(**body)
            case _ as never:
                assert_never(never)

    async def __aenter__(self) -> ModelClient:
        await self._sdk.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._sdk.__aexit__(*exc)  # type: ignore[arg-type]


def not_json(text: str, *, stream: bool) -> MalformedResponse:
    """A body (or a streamed event) that was meant to be JSON and is not."""
    return MalformedResponse("event_not_json" if stream else "body_not_json", excerpt=excerpt(text))


def malformed(problem: WireProblem) -> MalformedResponse:
    """What the model API's reader found wrong, as the line a person reads."""
    return MalformedResponse(problem.code, **problem.params)  # type: ignore[arg-type]
