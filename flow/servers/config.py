"""The MCP servers this program may start: only those configured by whoever started it.

A stdio server is a command run on this machine with the user's rights, so the app offers a
fixed list: the demo server, the third-party examples that are installed, and the servers in the
JSON file named by `$MCP_FLOW_SERVERS` (Claude Desktop's shape:
`{"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}}}}`, or for Streamable
HTTP `{"url": "http...", "bearer_token_env": "NAME"}`: a token is read from the environment, never
written in the file). Typing a new
command in the app is allowed only when the app was started with `--allow-server-commands`
(`mcp-flow app --allow-server-commands`) or `MCP_FLOW_ALLOW_COMMANDS=1`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from flow.servers.spec import PROJECT_ROOT, TOKEN_ENV, ServerSpec

CONFIG_ENV = "MCP_FLOW_SERVERS"


ALLOW_ENV = "MCP_FLOW_ALLOW_COMMANDS"


ALLOW_FLAG = "--allow-server-commands"


DEMO = "weather-demo"


# Installed beside this interpreter as one of the project's dependencies (pyproject.toml), and by ./dev.sh setup
# from third_party/package-lock.json.
TIME_SERVER = Path(sys.executable).parent / "mcp-server-time"


EVERYTHING_SERVER = PROJECT_ROOT / "third_party" / "node_modules" / ".bin" / "mcp-server-everything"


class ServerConfigError(Exception):
    """The servers file cannot be used; the message is one line naming the file and the entry."""


@dataclass(frozen=True, kw_only=True)
class ConfiguredServer:
    name: str
    spec: ServerSpec
    source: Literal["built-in", "config"]
    description: str = ""


def built_in_servers() -> dict[str, ConfiguredServer]:
    """The demo server, and the third-party examples that are installed here."""
    servers = {
        DEMO: ConfiguredServer(
            name=DEMO, spec=ServerSpec(), source="built-in", description="the demo weather server (this project's)"
        )
    }
    if TIME_SERVER.exists():
        servers["mcp-server-time"] = ConfiguredServer(
            name="mcp-server-time",
            spec=ServerSpec(command=(str(TIME_SERVER),)),
            source="built-in",
            description="current time and time zone conversion (PyPI mcp-server-time, Python)",
        )
    if EVERYTHING_SERVER.exists():
        servers["server-everything"] = ConfiguredServer(
            name="server-everything",
            spec=ServerSpec(command=(str(EVERYTHING_SERVER), "stdio")),
            source="built-in",
            description="every MCP feature, with progress and log notifications "
            "(npm @modelcontextprotocol/server-everything, TypeScript)",
        )
    return servers


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def load_servers_file(path: str | Path) -> dict[str, ConfiguredServer]:
    """Read a servers file; raises `ServerConfigError` with one line for anything it cannot use."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ServerConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ServerConfigError(f"{path}: not JSON ({exc})") from None
    entries = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise ServerConfigError(f'{path}: expected {{"mcpServers": {{"name": {{"command": ..., "args": [...]}}}}}}')
    servers = {}
    for name, entry in entries.items():
        where = f"{path}: mcpServers.{name}"
        if not isinstance(entry, dict):
            raise ServerConfigError(f"{where}: must be an object")
        description = str(entry.get("description") or "")
        if "url" in entry:
            url, token_env = entry["url"], entry.get("bearer_token_env", TOKEN_ENV)
            if not isinstance(url, str) or not url.startswith(("http://", "https://")):
                raise ServerConfigError(f"{where}: `url` must be an http:// or https:// URL (Streamable HTTP)")
            if not isinstance(token_env, str):
                raise ServerConfigError(f"{where}: `bearer_token_env` must name an environment variable")
            spec = ServerSpec(transport="http", url=url, bearer_token_env=token_env)
            servers[name] = ConfiguredServer(name=name, spec=spec, source="config", description=description)
            continue
        command, args, env = entry.get("command"), entry.get("args", []), entry.get("env", {})
        if not isinstance(command, str) or not command.strip():
            raise ServerConfigError(f"{where}: needs a `command` (a non-empty string), or a `url`")
        if not _strings(args):
            raise ServerConfigError(f"{where}: `args` must be a list of strings")
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise ServerConfigError(f"{where}: `env` must map names to strings")
        servers[name] = ConfiguredServer(
            name=name,
            spec=ServerSpec(command=(command, *args), env=tuple(env.items())),
            source="config",
            description=description,
        )
    return servers


def configured_servers(environ: Mapping[str, str] = os.environ) -> dict[str, ConfiguredServer]:
    """Every server the app may start; a configured name may replace a built-in one."""
    servers = built_in_servers()
    if environ.get(CONFIG_ENV):
        servers.update(load_servers_file(environ[CONFIG_ENV]))
    return servers


def allow_typed_commands(argv: Sequence[str] = sys.argv, environ: Mapping[str, str] = os.environ) -> bool:
    """True only when whoever started the app asked for it: the flag, or the variable set to 1."""
    return ALLOW_FLAG in argv[1:] or environ.get(ALLOW_ENV) == "1"
