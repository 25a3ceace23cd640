"""The demo MCP server: the demo tools, a resource and a prompt, on the real MCPServer.

Run over stdio with `python -m weather_demo`, or over Streamable HTTP with
`python -m flow demo-server --http` (bearer token required unless `--no-auth`);
`--fault die|hang` makes every tools/call kill the process or never answer, so a class can
watch a server fail.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import functools
import hmac
import os
import secrets
import socket
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

import anyio
import mcp_types
from mcp.server import NotificationOptions
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import INVALID_PARAMS
from pydantic import AnyHttpUrl, Field

from weather_demo import tools as demo_tools
from weather_demo.asking import add_asking_tools, add_session_tools
from weather_demo.report import ReportToolExecution, reported

SERVER_NAME = "weather-demo"


Fault = Literal["none", "die", "hang"]


class _UnknownToolIsProtocolError:
    """Answer a call to a tool that does not exist with a JSON-RPC error, as the MCP spec asks.

    MCPServer on its own reports it as a tool result with isError; the spec (tools, "Error
    Handling") lists unknown tools under protocol errors, and showing both kinds is the point.
    """

    def __init__(self, server: MCPServer) -> None:
        self._server = server

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if ctx.method == "tools/call":
            name = (ctx.params or {}).get("name")
            known = {t.name for t in await self._server.list_tools()}
            if name not in known:
                raise MCPError(INVALID_PARAMS, f"Unknown tool: {name}")
        return await call_next(ctx)


class _PromptArgumentsChecked:
    """A prompts/get naming an unknown prompt, or leaving out a required argument, is invalid params (-32602), as
    the spec's prompts page asks; MCPServer on its own answers it with error code 0."""

    def __init__(self, server: MCPServer) -> None:
        self._server = server

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if ctx.method == "prompts/get":
            params = ctx.params or {}
            prompt = next((p for p in await self._server.list_prompts() if p.name == params.get("name")), None)
            if prompt is None:
                raise MCPError(INVALID_PARAMS, f"Unknown prompt: {params.get('name')}")
            given = params.get("arguments") or {}
            missing = [a.name for a in prompt.arguments or [] if a.required and a.name not in given]
            if missing:
                raise MCPError(INVALID_PARAMS, f"Missing required arguments for prompt {prompt.name}: {missing}")
        return await call_next(ctx)


# RFC 5424's levels, least severe first, as logging/setLevel names them.
_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


class ServerCrashed(BaseException):
    """The demo's simulated crash on tools/call.

    A BaseException, so the SDK's handlers (which turn an Exception into an error answer) let it through: whoever
    hosts the server decides what dying means. A server process exits at once (`exit_on_crash`); an in-process
    server's run ends, and its host closes the connection as a dead process's pipes would close."""

    CODE = 3  # the exit code of a server process that crashed this way


class _Fault:
    def __init__(self, fault: Fault, *, exit_on_crash: bool) -> None:
        self._fault = fault
        self._exit_on_crash = exit_on_crash

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if ctx.method == "tools/call":
            if self._fault == "die":
                if self._exit_on_crash:
                    os._exit(ServerCrashed.CODE)  # a crash, not a clean shutdown: nothing is flushed or answered
                raise ServerCrashed(f"{SERVER_NAME} crashed on tools/call (--fault die)")
            if self._fault == "hang":
                await anyio.sleep_forever()
        return await call_next(ctx)


class StaticBearerToken:
    """The SDK's `TokenVerifier` for one shared secret: a bearer token is valid when it equals it."""

    def __init__(self, token: str) -> None:
        self._token = token

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(), self._token.encode()):
            return AccessToken(token=token, client_id="bearer", scopes=[])
        return None


def build_server(
    *, fault: Fault = "none", bearer_token: str | None = None, exit_on_crash: bool = False, asks: bool = False
) -> MCPServer:
    """`bearer_token` (HTTP only) makes the SDK's bearer middleware refuse requests without it (401). `asks` adds
    the tools that ask the client back and those that change the session (`weather_demo.asking`).

    `exit_on_crash` is for a server that is a process of its own: `fault="die"` then ends the process; otherwise
    it raises `ServerCrashed` out of the server's run and nothing exits."""
    server = _new_server(bearer_token)
    logs = _answer_set_level(server)
    if fault != "none":
        server.middleware.append(_Fault(fault, exit_on_crash=exit_on_crash))
    _add_tools(server, logs)
    if asks:
        add_asking_tools(server)
    _add_resources_and_prompts(server)
    if asks:
        add_session_tools(server)
    return server


def _new_server(bearer_token: str | None) -> MCPServer:
    """The MCPServer with our middleware, behind the SDK's bearer check when there is a token."""
    auth: dict[str, Any] = {}
    if bearer_token:
        # The SDK's resource-server hooks; with no OAuth server behind them the issuer is only a required name.
        auth = {
            "token_verifier": StaticBearerToken(bearer_token),
            "auth": AuthSettings(issuer_url=AnyHttpUrl("http://127.0.0.1"), resource_server_url=None),
        }
    server = MCPServer(
        SERVER_NAME,
        version="1.0.0",
        instructions="Demo tools for a class on tool use: fake weather, work hours, best practices.",
        log_level="WARNING",
        **auth,
    )
    server.middleware.append(ReportToolExecution())  # outermost of ours: it sees the result every other step made
    server.middleware.append(_UnknownToolIsProtocolError(server))
    server.middleware.append(_PromptArgumentsChecked(server))
    return server


def _answer_set_level(server: MCPServer) -> Callable[[str], bool]:
    """Register logging/setLevel; the function returned says whether a message of a severity is sent.

    The server sends log messages, so it declares the logging capability, which the SDK does for a server that
    answers logging/setLevel. The level is the server's (the SDK hands a handler no object that lasts as long as
    one connection): a stdio or HTTP server serves one client, and the in-process one is never asked."""
    level = {"min": "debug"}

    async def set_level(ctx: Any, params: mcp_types.SetLevelRequestParams) -> mcp_types.EmptyResult:
        level["min"] = params.level
        return mcp_types.EmptyResult()

    # MCPServer has no decorator for it; its low-level server's public add_request_handler registers it.
    lowlevel = server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    lowlevel.add_request_handler("logging/setLevel", mcp_types.SetLevelRequestParams, set_level)

    def logs(severity: str) -> bool:
        return _LEVELS.index(severity) >= _LEVELS.index(level["min"])

    return logs


def _add_tools(server: MCPServer, logs: Callable[[str], bool]) -> None:
    """The demo tools; `logs` says whether the server sends a log message of a severity."""

    @server.tool(
        description="Get today's weather for one city: condition, temperature range (°C), humidity and wind. "
        "Call once per city; for several cities, call it several times."
    )
    @reported
    async def get_weather(
        city: Annotated[str, Field(description="City name in Chinese or English, e.g. 北京 or Beijing")],
    ) -> dict[str, Any]:
        # async, though it never waits: the SDK runs a plain def in a worker thread, and threads would let
        # parallel calls answer in a different order from run to run (the samples must regenerate alike)
        try:
            return demo_tools.get_weather(city)
        except ValueError as exc:
            raise ToolError(str(exc)) from None  # ToolError's text reaches the model; other errors are hidden

    @server.tool(description=demo_tools.FORECAST_DESCRIPTION)
    @reported
    async def get_forecast(
        city: Annotated[str, Field(description="City name in Chinese or English, e.g. 北京 or Beijing")],
        ctx: Context,
        days: Annotated[int, Field(description="How many days, 1 to 7")] = 3,
    ) -> dict[str, Any]:
        # A slower tool that says how far it has got: progress notifications, tied to the call by
        # the client's progress token, and a log message.
        try:
            forecast = demo_tools.get_forecast(city, days)
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)  # logging is deprecated from 2026-07-28 on
            if logs("info"):
                await ctx.log("info", f"forecast for {forecast['city_en']}: {days} days")
        for day in range(days):
            await ctx.report_progress(day + 1, days, f"day {day + 1} of {days}")
        return forecast

    @server.tool(description="Compute the hours worked between a start and an end clock time, minus the lunch break.")
    @reported
    def calc_work_hours(
        start: Annotated[str, Field(description="Start time as HH:MM, e.g. 09:00")],
        end: Annotated[str, Field(description="End time as HH:MM, e.g. 18:30")],
    ) -> dict[str, Any]:
        try:
            return demo_tools.calc_work_hours(start, end)
        except ValueError as exc:
            raise ToolError(str(exc)) from None

    @server.tool(
        description="Return one short best practice for a topic: tool design topics (tool description, "
        "error handling, security) or what to do in a kind of weather (rain, snow, sunny, cloudy, overcast)."
    )
    @reported
    def best_practice(topic: Annotated[str, Field(description="The topic, e.g. 'rain' or 'security'")]) -> str:
        return demo_tools.best_practice(topic)


def _add_resources_and_prompts(server: MCPServer) -> None:
    """A resource that changes (the clock), one that does not (the cities) and a prompt."""

    @server.resource("dev://now", name="now", description="The server's current date and time", mime_type="text/plain")
    def now() -> str:
        return dt.datetime.now().astimezone().isoformat(timespec="seconds")

    @server.resource(
        "weather://cities", name="cities", description="The cities get_weather knows", mime_type="text/plain"
    )
    def cities() -> str:
        return "\n".join(f"{zh} ({en})" for zh, en in demo_tools.CITY_NAMES)

    @server.prompt(description="Ask for a short weather report for a city, with advice")
    def weather_report(city: str) -> str:
        return f"Look up today's weather in {city} and write a two-sentence report with one piece of advice."


def notification_options(*, asks: bool) -> NotificationOptions:
    """The changes the server says in its handshake it will announce: the server that asks adds a tool mid-session
    (`unlock_alerts`) and sends notifications/tools/list_changed, so it declares tools.listChanged first.

    MCPServer takes no such options: its stdio run and the in-memory transport pass them to the low-level server's
    `run`. Over Streamable HTTP they cannot be given: the SDK's session manager serves each session with the
    low-level server's default options (`serve_loop` calls `create_initialization_options()` with none), so there
    the server declares listChanged false and still sends the notification."""
    return NotificationOptions(tools_changed=asks)


async def serve_stdio(server: MCPServer, *, asks: bool) -> None:
    """`MCPServer.run_stdio_async`, with the server's notification options (`notification_options`)."""
    # MCPServer has no public way to its low-level server, whose `run` takes the options (the SDK's own
    # `InMemoryTransport` reads this attribute too).
    lowlevel = server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(
            read_stream, write_stream, lowlevel.create_initialization_options(notification_options(asks=asks))
        )


def shared_server(fault: Fault = "none", asks: bool = False) -> MCPServer:
    """The server for an in-memory connection: one per process, as building one costs more than a whole run; but the
    server that asks changes while a client is connected (`unlock_alerts` adds a tool), so each connection gets its
    own, as each stdio connection gets its own process."""
    return build_server(fault=fault, asks=True) if asks else _one_server(fault)


@functools.cache
def _one_server(fault: Fault) -> MCPServer:
    return build_server(fault=fault)


LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


ANY_ADDRESS = ("0.0.0.0", "::", "")


def _own_names(host: str) -> list[str]:
    """The names and addresses by which clients reach this machine when it listens on every interface."""
    names = [socket.gethostname(), socket.getfqdn()]
    family = socket.AF_INET6 if host == "::" else socket.AF_INET
    with contextlib.suppress(OSError):
        names += [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None, family)]
    with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as probe:
        # Connecting a UDP socket sends nothing; it only makes the kernel pick the outgoing address.
        probe.connect(("2001:db8::1" if family == socket.AF_INET6 else "192.0.2.1", 9))
        names.append(probe.getsockname()[0])
    return names


def allowed_hosts(host: str, extra: Sequence[str] = ()) -> list[str] | None:
    """The host names a request's Host (and Origin) header may carry: localhost, the address bound (or, bound to
    every interface, this machine's own names and addresses) and `extra`; None when `extra` holds "*" (no check).

    The MCP SDK checks Host/Origin against DNS rebinding only when bound to a loopback name; bound to 0.0.0.0
    it checks nothing unless told what to allow, so this list is always given to it."""
    if "*" in extra:
        return None
    names = ["127.0.0.1", "localhost", "::1"]
    names += _own_names(host) if host in ANY_ADDRESS else [host]
    names += list(extra)
    shown = [f"[{n}]" if ":" in n and not n.startswith("[") else n for n in (n.strip().lower() for n in names) if n]
    return list(dict.fromkeys(shown))


def transport_security(hosts: list[str] | None) -> TransportSecuritySettings:
    """The SDK's DNS-rebinding check for these host names, on any port; off only for None."""
    if hosts is None:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[h for name in hosts for h in (name, f"{name}:*")],
        allowed_origins=[
            o for name in hosts for scheme in ("http", "https") for o in (f"{scheme}://{name}", f"{scheme}://{name}:*")
        ],
    )


def serve_http(
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    token: str | None,
    fault: Fault = "none",
    path: str = "/mcp",
    on_listening: Callable[[str], None] | None = None,
    allowed: list[str] | None | Literal["default"] = "default",
    asks: bool = False,
) -> None:
    """Serve the demo server over Streamable HTTP until interrupted.

    The socket is listening before `on_listening` gets the URL (by default printed to stderr), so a
    caller that waits for that line can connect at once; port 0 picks a free port. `allowed` is the
    Host/Origin names accepted (default: `allowed_hosts(host)`; None turns the check off). `asks` adds the tools
    that ask the client back."""
    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    bound = sock.getsockname()[1]
    shown_host = f"[{host}]" if ":" in host else host
    url = f"http://{shown_host}:{bound}{path}"
    security = transport_security(allowed_hosts(host) if allowed == "default" else allowed)
    # Over HTTP the SDK declares tools.listChanged false whatever the server sends (`notification_options`).
    app = build_server(fault=fault, bearer_token=token, exit_on_crash=True, asks=asks).streamable_http_app(
        streamable_http_path=path, host=host, transport_security=security
    )
    if on_listening is None:
        print(f"weather-demo MCP server listening on {url}", file=sys.stderr, flush=True)
    else:
        on_listening(url)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=2)
    uvicorn.Server(config).run(sockets=[sock])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m weather_demo", description=__doc__)
    parser.add_argument("--fault", choices=["none", "die", "hang"], default="none")
    parser.add_argument("--asks", action="store_true", help="add the tools that ask the client back")
    args = parser.parse_args(argv)
    anyio.run(
        functools.partial(
            serve_stdio, build_server(fault=args.fault, exit_on_crash=True, asks=args.asks), asks=args.asks
        )
    )


def new_token() -> str:
    return secrets.token_urlsafe(24)


if __name__ == "__main__":
    main()
