"""What a run is asked to do: the options, checked once, and what it gives back."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal, TypedDict, Unpack

from flow.servers.spec import TOKEN_ENV, Era, ServerSpec, TransportName
from flow.text.names import Lang
from flow.trace.files import TraceError
from flow.trace.model import Mode, Trace
from flow.trace.redact import redact_url, redacted_command
from flow.wire import API
from flow.wire.base import ApiName

HostCapability = Literal["sampling", "elicitation", "roots"]


HOST_CAPABILITIES: tuple[HostCapability, ...] = ("sampling", "elicitation", "roots")


Backfill = Literal["text", "structured"]


SYSTEM_PROMPT = "You are a helpful assistant. Use the tools when they help answer the question."


class HostChoices(TypedDict, total=False):
    """What the host answers an MCP server that asks, as `RunOptions.build` takes it (see `RunOptions`' fields)."""

    asks: bool
    host_capabilities: Iterable[HostCapability] | None
    answers: Mapping[str, str] | Iterable[tuple[str, str]]
    elicit_action: Literal["accept", "decline", "cancel"]
    elicit_timeout_s: float
    approve_sampling: bool
    roots: Iterable[str]
    listen: bool | None
    subscribe: Iterable[str]
    ping: bool
    backfill: Backfill
    check_output: bool | None


def _host(chosen: HostChoices, *, asks: bool) -> dict[str, Any]:
    """The host's fields from what was chosen: on the demo server that asks, the host declares every capability and
    checks structured results unless told otherwise; it opens a listen stream for list changes (2026-07-28) only
    when asked, as the SDK's client does; backfilling structured content checks it first."""
    capabilities = chosen.get("host_capabilities")
    declared = set(capabilities if capabilities is not None else HOST_CAPABILITIES if asks else ())
    listen, check, backfill = chosen.get("listen"), chosen.get("check_output"), chosen.get("backfill", "text")
    return {
        "asks": asks,
        "host_capabilities": tuple(c for c in HOST_CAPABILITIES if c in declared),
        "answers": tuple(dict(chosen.get("answers", ())).items()),
        "elicit_action": chosen.get("elicit_action", "accept"),
        "elicit_timeout_s": float(chosen.get("elicit_timeout_s", 120.0)),
        "approve_sampling": chosen.get("approve_sampling", False),
        "roots": tuple(chosen.get("roots", ())),
        "listen": bool(listen),
        "subscribe": tuple(chosen.get("subscribe", ())),
        "ping": chosen.get("ping", False),
        "backfill": backfill,
        "check_output": (asks if check is None else check) or backfill == "structured",
    }


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """How to run the flow. `tool_choice` applies to the first model request only (later ones use
    "auto"), so that "required" cannot loop forever; the Agents SDK resets it the same way."""

    mode: Mode = "mcp"
    api: ApiName = "chat"  # the model API: Chat Completions, Responses or Anthropic Messages
    # Responses: a follow-up names the previous response (`previous_response_id`) and sends only what is new,
    # instead of the whole input again
    previous_response: bool = False
    tool_choice: str = "auto"  # auto | none | required | the name of one function
    parallel: bool = True
    strict: bool = False
    stream: bool = False
    # Send what every compatible server accepts (`content: ""`, not null, in the backfilled assistant message), and
    # mark each change in the request's hop; off, the conversation goes back exactly as the model wrote it.
    adapt: bool = True
    max_rounds: int = 5
    era: Era = "handshake"
    transport: TransportName = "stdio"
    server_fault: Literal["none", "die", "hang"] = "none"
    mcp_timeout_s: float = 10.0
    server_command: tuple[str, ...] = ()  # any stdio MCP server's command line instead of the demo server
    server_env: tuple[tuple[str, str], ...] = ()  # extra environment for that command
    server_env_public: tuple[str, ...] = ()  # names in server_env whose values a trace may show
    server_url: str = ""  # a Streamable HTTP MCP server instead (transport is then "http")
    bearer_token_env: str = TOKEN_ENV  # the variable its bearer token is read from; the token is never an option
    resources: tuple[str, ...] = ()  # MCP resources to read and give the model as context
    prompt: str | None = None  # an MCP prompt to fetch; its messages replace the typed question
    prompt_args: tuple[tuple[str, str], ...] = ()
    # Hosted MCP: whether the provider must ask the app before each call (`require_approval`), and the app's answer
    require_approval: Literal["never", "always"] = "never"
    approve: bool = True
    asks: bool = False  # the demo server with its tools that ask back (elicitation, sampling, roots)
    # What the host says it can do when a server asks (its capabilities); a server may ask only for these.
    host_capabilities: tuple[HostCapability, ...] = ()
    answers: tuple[tuple[str, str], ...] = ()  # the user's answers to a server's form, field by field
    elicit_action: Literal["accept", "decline", "cancel"] = "accept"
    elicit_timeout_s: float = 120.0  # how long a question to the user waits for an answer before it is cancelled
    # A server's sampling request spends the operator's model: a person approves each one (a prompt, the Run page's
    # form), unless this says the operator approved them all for the run (`--approve-sampling`, the page's switch).
    approve_sampling: bool = False
    roots: tuple[str, ...] = ()  # folders the host shares with the server as its roots (never read from a trace)
    # 2026-07-28: open a subscriptions/listen stream for tool-list changes (in 2025-11-25 the client always re-lists
    # when the server's notification comes, which needs no request of its own)
    listen: bool = False
    subscribe: tuple[str, ...] = ()  # resource URIs to subscribe to before asking the model
    ping: bool = False  # send one ping after connecting (2025-11-25; removed in 2026-07-28)
    # What the role "tool" message carries back to the model: a result's text content, or its structuredContent
    backfill: Backfill = "text"
    check_output: bool = False  # check a result's structuredContent against the tool's outputSchema, and record it

    @classmethod
    def build(
        cls,
        *,
        server: ServerSpec,
        mode: Mode = "mcp",
        api: ApiName = "chat",
        previous_response: bool = False,
        tool_choice: str = "auto",
        parallel: bool = True,
        strict: bool = False,
        stream: bool = False,
        adapt: bool = True,
        max_rounds: int = 5,
        era: Era = "handshake",
        transport: TransportName = "stdio",
        server_fault: Literal["none", "die", "hang"] = "none",
        mcp_timeout_s: float = 10.0,
        resources: Iterable[str] = (),
        prompt: str | None = None,
        prompt_args: Mapping[str, str] | Iterable[tuple[str, str]] = (),
        require_approval: Literal["never", "always"] = "never",
        approve: bool = True,
        **asking: Unpack[HostChoices],
    ) -> RunOptions:
        """The options a person chose, on the command line or the Run page, for reaching `server`: the transport
        and the fault are the demo server's (another server runs over its own transport, and never faults on
        request), and a fault needs MCP mode; what the host answers a server that asks is `asking` (`_host`)."""
        demo = server.is_demo
        return cls(
            mode=mode,
            api=api,
            previous_response=previous_response and API[api].keeps_responses,
            tool_choice=tool_choice,
            parallel=parallel,
            strict=strict,
            stream=stream,
            adapt=adapt,
            max_rounds=int(max_rounds),
            era=era,
            transport=transport if demo else "stdio",
            server_fault=server_fault if mode == "mcp" and demo else "none",
            mcp_timeout_s=float(mcp_timeout_s),
            resources=tuple(resources),
            prompt=prompt or None,
            prompt_args=tuple(dict(prompt_args).items()),
            require_approval=require_approval,
            approve=approve,
            **_host(asking, asks=asking.get("asks", False) and demo and mode == "mcp"),
        ).with_server(server)

    def server_spec(self) -> ServerSpec:
        return ServerSpec(
            transport="http" if self.server_url else self.transport,
            fault=self.server_fault,
            asks=self.asks,
            command=self.server_command,
            env=self.server_env,
            env_public=self.server_env_public,
            url=self.server_url,
            bearer_token_env=self.bearer_token_env,
        )

    def with_server(self, spec: ServerSpec) -> RunOptions:
        """These options, reaching the server `spec` names (the demo server when it names none)."""
        return replace(
            self,
            server_command=spec.command,
            server_env=spec.env,
            server_env_public=spec.env_public,
            server_url=spec.url,
            bearer_token_env=spec.bearer_token_env,
            transport=spec.transport if not spec.is_demo else self.transport,
        )

    def settings(self) -> dict[str, Any]:
        """The options as a trace records them: environment values only where marked public, the command line and
        URLs without their secrets (`redacted_command`, `redact_url`), how to reach another server only when there is
        one, and the model API only when it is not Chat Completions (such traces stay as they were)."""
        settings = asdict(self)
        settings["server_command"] = redacted_command(self.server_command)[0]
        settings["server_env"] = self.server_spec().recorded_env()
        settings["server_url"] = redact_url(self.server_url)
        for name in (
            "api",
            "previous_response",
            "server_env",
            "server_env_public",
            "server_url",
            "bearer_token_env",
            "require_approval",
            "approve",
            "asks",
            "host_capabilities",
            "answers",
            "elicit_action",
            "elicit_timeout_s",
            "approve_sampling",
            "roots",
            "listen",
            "subscribe",
            "ping",
            "backfill",
            "check_output",
        ):
            if getattr(self, name) == self.__dataclass_fields__[name].default:
                del settings[name]
        return settings

    @classmethod
    def from_settings(cls, settings: Any, *, where: str = "meta.settings") -> RunOptions:
        """The shape of a recorded run, read from a trace's settings for a re-run: every value type-checked and
        bounded, or a one-line `TraceError` naming it. How to reach a server (`server_command`, `server_env`,
        `server_url`, `bearer_token_env`) is never taken from a file: a trace is data, not instructions."""
        if not isinstance(settings, dict):
            raise TraceError(f"{where}: expected an object, got {type(settings).__name__}")
        values: dict[str, Any] = {"adapt": False}  # a trace recorded before `adapt` existed sent what it received
        for name, (check, wanted) in _SETTINGS.items():
            if name in settings:
                value = check(settings[name])
                if value is _BAD:
                    raise TraceError(f"{where}.{name}: {_shown(settings[name])} is not {wanted}")
                values[name] = value
        return cls(**values)


_BAD: Any = object()


_MAX_TEXT = 2000  # longest tool choice, resource URI, prompt name or argument a re-run accepts


_MAX_ITEMS = 50  # most resources or prompt arguments a re-run accepts


def _shown(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, float) else repr(value)  # escapes ESC, surrogates
    return text if len(text) <= 60 else text[:57] + "..."


def _choice(*allowed: str) -> Callable[[Any], Any]:
    return lambda v: v if isinstance(v, str) and v in allowed else _BAD


def _text(v: Any) -> Any:
    return v if isinstance(v, str) and 0 < len(v) <= _MAX_TEXT else _BAD


def _flag(v: Any) -> Any:
    return v if isinstance(v, bool) else _BAD


def _rounds(v: Any) -> Any:
    return v if isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_REPLAY_ROUNDS else _BAD


def _seconds(v: Any) -> Any:
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v <= MAX_REPLAY_TIMEOUT_S
    return float(v) if ok else _BAD  # NaN fails both comparisons


def _texts(v: Any) -> Any:
    ok = isinstance(v, (list, tuple)) and len(v) <= _MAX_ITEMS and all(_text(x) is not _BAD for x in v)
    return tuple(v) if ok else _BAD


def _pairs(v: Any) -> Any:
    ok = (
        isinstance(v, (list, tuple))
        and len(v) <= _MAX_ITEMS
        and all(  # tuples: settings not yet saved
            isinstance(p, (list, tuple))
            and len(p) == 2
            and _text(p[0]) is not _BAD
            and isinstance(p[1], str)
            and len(p[1]) <= _MAX_TEXT
            for p in v
        )
    )
    return tuple((k, x) for k, x in v) if ok else _BAD


def _capabilities(v: Any) -> Any:
    ok = isinstance(v, (list, tuple)) and all(isinstance(x, str) and x in HOST_CAPABILITIES for x in v)
    return tuple(dict.fromkeys(v)) if ok else _BAD


MAX_REPLAY_ROUNDS = 50  # a re-run asks the model at most this many tool rounds, whatever a file says


MAX_CALLS_PER_TURN = 64  # tool calls the app runs for one model turn; a turn asking more is refused whole


MAX_REPORTED_ITEMS = 256  # MCP items of a provider's report the app reads from one answer (hosted MCP)


# Calls a hosted run's provider may ask the app to approve, over all its answers: each request and its answer go back
# in every later request, whose whole input the openai SDK reads through its types (about 1 ms an item)
MAX_APPROVALS = 64


MAX_REPLAY_TIMEOUT_S = 300.0  # nor waits longer than this for an MCP answer


# What a re-run takes from a trace's settings: each name's check (the value, or _BAD) and what it must be.
_SETTINGS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "mode": (_choice("mcp", "direct", "hosted"), '"mcp", "direct" or "hosted"'),
    "asks": (_flag, "true or false"),
    "host_capabilities": (_capabilities, "a list of sampling, elicitation and roots"),
    "answers": (_pairs, f"a list of at most {_MAX_ITEMS} [field, value] pairs"),
    "elicit_action": (_choice("accept", "decline", "cancel"), '"accept", "decline" or "cancel"'),
    "api": (_choice(*API), " or ".join(", ".join(f'"{name}"' for name in API).rsplit(", ", 1))),
    "previous_response": (_flag, "true or false"),
    "tool_choice": (_text, f"a non-empty string of at most {_MAX_TEXT} characters"),
    "parallel": (_flag, "true or false"),
    "strict": (_flag, "true or false"),
    "stream": (_flag, "true or false"),
    "adapt": (_flag, "true or false"),
    "max_rounds": (_rounds, f"a whole number from 1 to {MAX_REPLAY_ROUNDS}"),
    "era": (_choice("handshake", "modern"), '"handshake" or "modern"'),
    "transport": (_choice("stdio", "memory", "http"), '"stdio", "memory" or "http"'),
    "server_fault": (_choice("none", "die", "hang"), '"none", "die" or "hang"'),
    "mcp_timeout_s": (_seconds, f"a number of seconds above 0 and at most {MAX_REPLAY_TIMEOUT_S:g}"),
    "resources": (_texts, f"a list of at most {_MAX_ITEMS} non-empty strings"),
    "prompt": (
        lambda v: None if v is None else _text(v),
        f"null or a non-empty string of at most {_MAX_TEXT} characters",
    ),
    "prompt_args": (_pairs, f"a list of at most {_MAX_ITEMS} [name, value] string pairs"),
    "require_approval": (_choice("never", "always"), '"never" or "always"'),
    "approve": (_flag, "true or false"),
    "listen": (_flag, "true or false"),
    "subscribe": (_texts, f"a list of at most {_MAX_ITEMS} non-empty strings"),
    "ping": (_flag, "true or false"),
    "backfill": (_choice("text", "structured"), '"text" or "structured"'),
    "check_output": (_flag, "true or false"),
}


@dataclass
class RunResult:
    trace: Trace
    answer: str | None
    error: str | None

    @property
    def ok(self) -> bool:
        return self.error is None

    def error_in(self, lang: Lang) -> str | None:
        """The failure line in the interface's language."""
        return (self.trace.meta.error_zh or self.error) if lang == "zh" else self.error
