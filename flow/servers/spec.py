"""What names an MCP server: how to reach it (memory, stdio, Streamable HTTP), with which protocol era."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from flow.trace.redact import redact_url, redacted_command, redacted_environment, url_secrets

if TYPE_CHECKING:
    from mcp import StdioServerParameters

Era = Literal["handshake", "modern"]


TransportName = Literal["memory", "stdio", "http"]


TOKEN_ENV = "MCP_BEARER_TOKEN"  # where an HTTP server's bearer token is read from unless told otherwise


PROJECT_ROOT = Path(__file__).resolve().parents[2]


SERVER_TOKEN_ENV = "MCP_FLOW_SERVER_TOKEN"  # marks a stdio server's processes, so leftovers can be found and reaped


@dataclass(frozen=True, kw_only=True)
class ServerSpec:
    """Which server to reach and how: the demo server (in memory or over stdio), any stdio command
    (with extra environment), a Streamable HTTP endpoint with an optional bearer token, or an
    MCP server object served in this process (`server`, over memory).

    The token is read when connecting, from `bearer_token` or else the `bearer_token_env`
    variable, and is never described or recorded. Environment values are secrets unless their
    names are in `env_public`."""

    transport: TransportName = "stdio"
    fault: Literal["none", "die", "hang"] = "none"
    asks: bool = False  # the demo server with its tools that ask the client back (weather_demo.asking)
    command: tuple[str, ...] = ()  # another server's command line; empty means the demo server
    env: tuple[tuple[str, str], ...] = ()  # extra environment for a stdio command, over the SDK's default one
    env_public: tuple[str, ...] = ()  # names in `env` whose values may be written into a trace
    url: str = ""  # a Streamable HTTP endpoint instead of a command
    bearer_token_env: str = TOKEN_ENV
    bearer_token: str | None = field(default=None, repr=False, compare=False)
    server: Any = field(default=None, repr=False, compare=False)  # an mcp Server/MCPServer run in this process

    @property
    def is_demo(self) -> bool:
        return not self.command and not self.url and self.server is None

    @property
    def is_http(self) -> bool:
        return bool(self.url)

    def token(self) -> str | None:
        return self.bearer_token or (os.environ.get(self.bearer_token_env) if self.bearer_token_env else None) or None

    def recorded_env(self) -> list[list[str]]:
        """The environment as a trace holds it: every value redacted unless its name was marked public."""
        return redacted_environment(self.env, public=self.env_public)[0]

    def secret_values(self) -> list[str]:
        """What a recorder must scrub if the server echoes it: the bearer token, what the URL and the command line
        hide, and every environment value not marked public."""
        return [
            self.token() or "",
            *url_secrets(self.url),
            *redacted_environment(self.env, public=self.env_public)[1],
            *redacted_command(self.command)[1],
        ]

    def describe(self) -> dict[str, Any]:
        if self.is_http:
            url = redact_url(self.url)
            host = urlsplit(url).netloc.rpartition("@")[2]
            described: dict[str, Any] = {
                "name": host or url,
                "transport": "http",
                "url": url,
                "command": None,
                "fault": "none",
                "auth": "bearer" if self.token() else "none",
            }
            if self.token() and not self.bearer_token:
                described["bearer_token_env"] = self.bearer_token_env  # where it came from; never its value
            return described
        if self.server is not None:
            return {
                "name": str(getattr(self.server, "name", "") or "in-process"),
                "transport": "memory",
                "command": None,
                "fault": "none",
                "in_process": True,
            }
        if not self.is_demo:
            described = {
                "name": Path(self.command[0]).name,
                "transport": "stdio",
                "command": shlex.join(redacted_command(self.command)[0]),
                "fault": "none",
            }
            if self.env:
                described["env"] = [k for k, _ in self.env]  # names only: values are often keys
            return described
        command = None
        if self.transport == "stdio":
            command = " ".join(["python", "-m", "weather_demo", *self._fault_args()])
        described = {"name": "weather-demo", "transport": self.transport, "command": command, "fault": self.fault}
        if self.asks:
            described["asks"] = True
        return described

    def _fault_args(self) -> list[str]:
        return (["--fault", self.fault] if self.fault != "none" else []) + (["--asks"] if self.asks else [])

    def stdio_parameters(self) -> StdioServerParameters:
        from mcp import StdioServerParameters  # here, so that what names a server (the CLI's help) loads no SDK

        if not self.is_demo:
            # Run exactly as configured by whoever started this program: no shell, the environment the SDK
            # passes plus what was asked for.
            return StdioServerParameters(
                command=self.command[0], args=list(self.command[1:]), env=dict(self.env) or None
            )
        return StdioServerParameters(
            command=sys.executable,
            args=["-m", "weather_demo", *self._fault_args()],
            env={"PYTHONPATH": str(PROJECT_ROOT)},
            cwd=str(PROJECT_ROOT),
        )


def pids_marked(token: str) -> list[int]:
    """Processes whose environment carries this token: a stdio server and whatever it started."""
    marker = f"{SERVER_TOKEN_ENV}={token}".encode()
    found = []
    with contextlib.suppress(FileNotFoundError):  # no /proc: nothing to scan (not Linux)
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as f:
                    if marker in f.read().split(b"\0"):
                        found.append(int(entry.name))
            except OSError:  # gone already, or not ours to read
                continue
    return found


def reap_leftovers(token: str) -> list[int]:
    """Kill what a stdio server left running after its session closed.

    The SDK closes the server's stdin and kills its process group only if the server itself does not
    exit; a child the server started and did not stop outlives it. Those carry the token we put in
    the server's environment. Returns the pids it killed."""
    killed: list[int] = []
    for _ in range(5):  # again, until none is left: one may have been forking while we looked
        marked = [pid for pid in pids_marked(token) if pid not in killed]
        if not marked:
            break
        for pid in marked:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
        time.sleep(0.02)
    return killed
