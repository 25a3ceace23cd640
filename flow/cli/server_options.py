"""The options that name an MCP server to connect to (`--server` and its environment or token), shared by `run`,
`tools`, `call` and `replay`, and what they parse into: a `ServerSpec`."""

from __future__ import annotations

import argparse
import os
import shlex

from flow.cli.common import read_small_file
from flow.proxy.options import UsageError
from flow.servers.spec import TOKEN_ENV, ServerSpec


def add_server_access_options(parser: argparse.ArgumentParser) -> None:
    """The environment a --server command gets, and the token a --server URL is sent."""
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="extra environment for a --server command; NAME alone copies NAME's value from this "
        "environment (NAME=VALUE shows the value to other users in `ps`); the value is redacted in "
        "the trace; repeatable",
    )
    parser.add_argument(
        "--server-env-file",
        action="append",
        default=[],
        metavar="FILE",
        help="more --server-env, as NAME=VALUE lines (# comments); values redacted in the trace",
    )
    parser.add_argument(
        "--server-env-public",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="like --server-env, but the value is no secret and the trace shows it; repeatable",
    )
    parser.add_argument(
        "--bearer-token-env",
        default=TOKEN_ENV,
        metavar="NAME",
        help=f"for a --server URL: the environment variable holding its bearer token "
        f"(default: {TOKEN_ENV}; unset: no token is sent)",
    )


def add_probe_options(parser: argparse.ArgumentParser) -> None:
    """What `tools` and `call` need to reach a server."""
    parser.add_argument(
        "--server",
        metavar="COMMAND|URL",
        help="a stdio MCP server's command line, or a Streamable HTTP URL (default: the demo server)",
    )
    add_server_access_options(parser)
    parser.add_argument("--era", choices=["handshake", "modern"], default="handshake")
    parser.add_argument("--timeout", type=float, default=10.0)


def env_pair(text: str, option: str, *, from_environment: bool) -> tuple[str, str]:
    """NAME=VALUE, or (when allowed) NAME alone, whose value is copied from this process's environment."""
    name, eq, value = text.partition("=")
    if not name or "\0" in text or (not eq and not from_environment):
        raise UsageError(f"{option} wants NAME=VALUE" + (" or NAME" if from_environment else "") + f", got {text!r}")
    if not eq:
        if name not in os.environ:
            raise UsageError(f"{option} {name}: {name} is not set in this environment")
        value = os.environ[name]
    return name, value


def _env_file(path: str) -> list[tuple[str, str]]:
    """A --server-env-file: NAME=VALUE lines (`export ` and quotes around the value allowed), # comments."""
    pairs = []
    for n, line in enumerate(read_small_file(path, "--server-env-file").splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            name, value = env_pair(
                line.removeprefix("export "), f"--server-env-file {path}:{n}:", from_environment=False
            )
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            pairs.append((name, value))
    return pairs


def _server_env(args: argparse.Namespace) -> tuple[list[tuple[str, str]], list[str]]:
    """The environment for a --server command, and the names whose values the trace may show."""
    env = [env_pair(pair, "--server-env", from_environment=True) for pair in args.server_env]
    for path in args.server_env_file:
        env += _env_file(path)
    public = [env_pair(pair, "--server-env-public", from_environment=False) for pair in args.server_env_public]
    secret_names = {name for name, _ in env}
    return env + public, [name for name, _ in public if name not in secret_names]


def server_spec(args: argparse.Namespace) -> ServerSpec:
    """--server as a URL (Streamable HTTP) or a command line (stdio), with its environment or token source."""
    env, public = _server_env(args)
    server = (args.server or "").strip()
    if server.startswith(("http://", "https://")):
        if env:
            raise UsageError("--server-env is for a server started from a command; an HTTP server runs on its own")
        return ServerSpec(transport="http", url=server, bearer_token_env=args.bearer_token_env)
    if server.split(":", 1)[0].lower() in ("ws", "wss", "sse", "tcp"):
        raise UsageError(f"--server {server!r}: only http:// and https:// URLs (Streamable HTTP) are supported")
    if args.server is not None and not server:
        raise UsageError(
            "--server is empty: give a command line or an http(s):// URL, or leave it out for the demo server"
        )
    try:
        command = tuple(shlex.split(server)) if server else ()
    except ValueError as exc:  # shlex: "No closing quotation", "No escaped character"
        raise UsageError(f"--server {server!r}: {exc}") from None
    if env and not command:
        raise UsageError("--server-env needs --server COMMAND (the demo server gets its own environment)")
    return ServerSpec(command=command, env=tuple(env), env_public=tuple(public), bearer_token_env=args.bearer_token_env)
