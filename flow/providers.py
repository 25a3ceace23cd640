"""Presets for OpenAI-compatible providers, which key a run may send where, and example questions to offer."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from flow.backends.mock import MODEL_NAMES as MOCK_MODELS
from flow.engine.options import RunOptions
from flow.servers.spec import ServerSpec
from flow.text.errors import ProviderNote
from flow.wire import API
from flow.wire.base import ApiName


@dataclass(frozen=True)
class Preset:
    name: str
    base_url: str
    model: str
    key_env: str  # where the operator keeps this provider's key; it is sent only to `base_url`
    needs_key: bool = True
    # What its server is known to do with the options the app sends only when asked (flow.text.errors words them).
    known: tuple[ProviderNote, ...] = ()
    api: ApiName = "chat"  # the model API the preset's endpoint is spoken to in


PRESETS: list[Preset] = [
    Preset("OpenAI", "https://api.openai.com/v1", "gpt-4o-mini", "OPENAI_API_KEY"),
    Preset("SiliconFlow", "https://api.siliconflow.cn/v1", "Qwen/Qwen2.5-7B-Instruct", "SILICONFLOW_API_KEY"),
    Preset(
        "DeepSeek", "https://api.deepseek.com/v1", "deepseek-v4-flash", "DEEPSEEK_API_KEY", known=("strict_beta_only",)
    ),
    Preset(
        "Ollama (local)",
        "http://localhost:11434/v1",
        "qwen2.5:7b",
        "OLLAMA_API_KEY",
        needs_key=False,
        known=("tool_choice_ignored",),
    ),
    Preset(
        "vLLM (local)",
        "http://localhost:8000/v1",
        "Qwen/Qwen2.5-7B-Instruct",
        "VLLM_API_KEY",
        needs_key=False,
        known=("needs_tool_parser",),
    ),
    Preset(
        "llama.cpp server (local)",
        "http://localhost:8080/v1",
        "local-model",
        "LLAMACPP_API_KEY",
        needs_key=False,
        known=("null_content_refused", "tool_choice_required_fails"),
    ),
    Preset("OpenAI Responses", "https://api.openai.com/v1", "gpt-4o-mini", "OPENAI_API_KEY", api="responses"),
    # The anthropic SDK's base URL, without /v1 (it adds /v1/messages itself).
    Preset("Anthropic", "https://api.anthropic.com", "claude-haiku-4-5", "ANTHROPIC_API_KEY", api="messages"),
]


# When each known behaviour bears on a run: the options it concerns were chosen.
_APPLIES = {
    "strict_beta_only": lambda options, url: options.strict and not url.rstrip("/").endswith("/beta"),
    "tool_choice_ignored": lambda options, url: options.tool_choice != "auto",
    "needs_tool_parser": lambda options, url: options.tool_choice not in ("auto", "none"),
    "null_content_refused": lambda options, url: not options.adapt,
    "tool_choice_required_fails": lambda options, url: options.tool_choice == "required",
}


def preset_for(base_url: str) -> Preset | None:
    """The preset whose endpoint `base_url` is (scheme, host, port and path), if any."""
    return next((p for p in PRESETS if same_endpoint(base_url, p.base_url)), None)


def notes_before_sending(base_url: str, options: RunOptions) -> list[ProviderNote]:
    """What the app knows the endpoint will do with the options chosen, to say before the run starts."""
    preset = preset_for(base_url) if base_url else None
    return [note for note in preset.known if _APPLIES[note](options, base_url)] if preset else []


OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"  # where the openai SDK sends OPENAI_API_KEY by default


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _endpoint(url: str) -> tuple[object, ...] | None:
    """The parts of a base URL that decide where a request goes; None for anything unusual
    (not http(s), no host, a bad port, spaces, control or non-ASCII characters, backslashes)."""
    if not url or any(not "!" <= c <= "~" or c == "\\" for c in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:  # a bracketed host that is not an IPv6 address, https://[evil]/v1
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    try:
        port = parts.port or _DEFAULT_PORTS[scheme]
    except ValueError:
        return None
    return (
        scheme,
        parts.username,
        parts.password,
        parts.hostname,
        port,
        parts.path.rstrip("/"),
        parts.query,
        parts.fragment,
    )


def same_endpoint(url: str, home: str) -> bool:
    """True only when `url` names exactly the endpoint `home` does: scheme, user-info, host, port and
    path (a trailing slash and the default port aside). Anything else counts as another endpoint."""
    mine = _endpoint(url)
    return mine is not None and mine == _endpoint(home.strip())


@dataclass(frozen=True)
class KeyChoice:
    """The key a run sends to a base URL, and where it came from."""

    key: str | None  # None: the run sends no key of anyone's
    env: str | None = None  # the environment variable it came from, when it did
    withheld: str | None = None  # a variable holding a key that is not sent to this URL


def key_homes(preset: Preset, environ: Mapping[str, str] = os.environ) -> list[tuple[str, str]]:
    """Each environment variable that may hold the operator's key, with the one base URL it is for:
    the preset's own variable for the preset's URL, and OPENAI_API_KEY for OPENAI_BASE_URL (unset: the
    openai SDK's default), as the SDK and `python -m flow run` pair them."""
    homes = [(preset.key_env, preset.base_url)] if preset.key_env != "OPENAI_API_KEY" else []
    if API[preset.api].sdk == "anthropic":  # the anthropic SDK is never given the OpenAI key
        return homes
    return [*homes, ("OPENAI_API_KEY", environ.get("OPENAI_BASE_URL", "").strip() or OPENAI_DEFAULT_BASE_URL)]


def key_env_for(preset: Preset, base_url: str, environ: Mapping[str, str] = os.environ) -> str | None:
    """The environment variable whose key would be sent to `base_url`, set or not; None for a URL no key is for."""
    return next((env for env, home in key_homes(preset, environ) if same_endpoint(base_url, home)), None)


def key_for(preset: Preset, base_url: str, typed_key: str, environ: Mapping[str, str] = os.environ) -> KeyChoice:
    """Which key a run from the app sends to `base_url`: a typed key goes where its typist says; a key
    from the operator's environment only to the base URL configured for it, never to a typed one."""
    if typed_key.strip():
        return KeyChoice(typed_key.strip())
    withheld = None
    for env, home in key_homes(preset, environ):
        value = environ.get(env, "").strip()
        if not value:
            continue
        if same_endpoint(base_url, home):
            return KeyChoice(value, env=env)
        withheld = withheld or env
    return KeyChoice(None, withheld=withheld)


@dataclass(frozen=True)
class ServerChoice:
    """The server a hosted run names to a provider, and where a credential left out came from."""

    spec: ServerSpec
    withheld: str | None = None  # the environment variable holding a token that is not sent to this base URL


def server_for(
    spec: ServerSpec, preset: Preset, base_url: str, environ: Mapping[str, str] = os.environ
) -> ServerChoice:
    """The server a hosted run from the app names to the provider at `base_url`, which reaches it with the server's
    credential: that credential, like the operator's key, goes only to a base URL configured for a key
    (`key_homes`), never to one typed on the page; else the server is named without it."""
    if not spec.is_http or spec.token() is None or key_env_for(preset, base_url, environ) is not None:
        return ServerChoice(spec)
    return ServerChoice(replace(spec, bearer_token=None, bearer_token_env=""), withheld=spec.bearer_token_env)


EXAMPLE_QUESTIONS: list[str] = [
    "北京今天天气怎么样？",
    "北京和上海今天天气怎么样？",
    "北京今天天气怎么样？给我一个出行建议",
    "我今天 9:00 上班，18:30 下班，工作了多久？",
    "火星今天天气怎么样？",
    "What's the weather like in London today?",
    "Compare the weather in Tokyo and Paris today.",
    "你好，请介绍一下你自己。",
]

# Questions on which the mock model calls each of the demo server's tools that ask back (`--asks`), by what the
# server asks for: the user's city (elicitation), the host's model (sampling, and sampling with the server's own
# forecast tool), the client's folders (roots).
ASKING_QUESTIONS: dict[str, tuple[str, str]] = {
    "elicitation": ("我这里今天天气怎么样？", "What's the weather like where I am today?"),
    "sampling": (
        "用一句话说说北京未来三天的天气",
        "Tell me Beijing's weather for the next three days in one sentence.",
    ),
    "roots": ("北京有什么课堂笔记？", "What class notes are there for Beijing?"),
    "sampling_tools": ("明天适合带全班去北京郊游吗？", "Is the weather in Shanghai good for a class outing?"),
}


__all__ = [
    "ASKING_QUESTIONS",
    "EXAMPLE_QUESTIONS",
    "MOCK_MODELS",
    "OPENAI_DEFAULT_BASE_URL",
    "PRESETS",
    "KeyChoice",
    "Preset",
    "key_for",
    "key_env_for",
    "key_homes",
    "notes_before_sending",
    "preset_for",
    "same_endpoint",
]
