"""`mcp-flow mock-server | demo-server`: the servers this project brings, to point another client at: the offline
mock model (an OpenAI-compatible API) and the demo MCP server (stdio, or Streamable HTTP with a bearer token)."""

from __future__ import annotations

import argparse
import os
import sys
from urllib.parse import urlsplit, urlunsplit

from flow.cli.common import Subcommands, add_command, read_small_file
from flow.proxy.options import UsageError
from flow.servers.spec import TOKEN_ENV


def add_parsers(sub: Subcommands) -> None:
    _add_mock_server(sub)
    _add_demo_server(sub)


def _add_mock_server(sub: Subcommands) -> None:
    m = add_command(
        sub,
        "mock-server",
        what="serve the offline mock model over HTTP (Chat Completions, Responses and Anthropic Messages)",
        run=_mock_server,
    )
    m.add_argument("--port", type=int, default=8765)
    m.add_argument("--host", default="127.0.0.1")
    m.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="require the key held in this environment variable, so a wrong key gets 401 as from a real provider",
    )
    m.add_argument(
        "--allow-mcp",
        action="append",
        default=[],
        metavar="URL",
        help="hosted MCP: an MCP server URL the mock provider may reach as the MCP client (repeatable); a request "
        "naming any other is refused, and none is reached without this",
    )


def _add_demo_server(sub: Subcommands) -> None:
    ds = add_command(
        sub,
        "demo-server",
        what="run the demo MCP server: over stdio, or over Streamable HTTP with --http",
        run=_demo_server,
    )
    ds.add_argument(
        "--http", action="store_true", help="serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio"
    )
    ds.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)")
    ds.add_argument("--port", type=int, default=8000, help="port to bind; 0 picks a free one (default: 8000)")
    ds.add_argument(
        "--token",
        help=f"the bearer token clients must send (visible to other users in `ps`: prefer "
        f"--token-file or ${TOKEN_ENV}; default: ${TOKEN_ENV}, else a new one printed once)",
    )
    ds.add_argument("--token-file", metavar="FILE", help="read the bearer token from the first line of this file")
    ds.add_argument("--no-auth", action="store_true", help="accept requests without a bearer token")
    ds.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name or address clients may use in the Host header, beside this machine's own "
        "names and addresses and localhost; repeatable; '*' turns the DNS-rebinding check off",
    )
    ds.add_argument(
        "--fault",
        choices=["none", "die", "hang"],
        default="none",
        help="make every tools/call kill the server or never answer",
    )
    ds.add_argument(
        "--asks",
        action="store_true",
        help="add the tools that ask the client back (elicitation, sampling, roots, a tool list that changes)",
    )


def _mock_server(args: argparse.Namespace) -> int:
    from flow.backends.mock_http import serve

    serve(args.port, args.host, os.environ.get(args.api_key_env) if args.api_key_env else None, args.allow_mcp)
    return 0


def _demo_server(args: argparse.Namespace) -> int:
    from weather_demo.server import allowed_hosts, serve_http
    from weather_demo.server import main as serve_stdio

    if not args.http:
        if (
            args.token
            or args.token_file
            or args.no_auth
            or args.allow_host
            or args.port != 8000
            or args.host != "127.0.0.1"
        ):
            raise UsageError("--token, --token-file, --no-auth, --allow-host, --host and --port are for --http")
        serve_stdio(["--fault", args.fault, *(["--asks"] if args.asks else [])])
        return 0
    token, generated = _demo_token(args)
    hosts = allowed_hosts(args.host, args.allow_host)
    _warn_who_can_reach(args, hosts)

    def listening(url: str) -> None:
        _say_how_to_connect(args, url, token, generated=generated)

    serve_http(
        host=args.host,
        port=args.port,
        token=token,
        fault=args.fault,
        on_listening=listening,
        allowed=hosts,
        asks=args.asks,
    )
    return 0


def _demo_token(args: argparse.Namespace) -> tuple[str | None, bool]:
    """The bearer token the HTTP demo server requires (None with --no-auth), and whether it was made up here."""
    from weather_demo.server import new_token

    if args.token and args.token_file:
        raise UsageError("--token and --token-file: give one")
    if args.no_auth and (args.token or args.token_file):
        raise UsageError("--no-auth and a token contradict each other")
    if args.no_auth:
        return None, False
    token = args.token
    if args.token_file:
        lines = read_small_file(args.token_file, "--token-file").splitlines()
        token = next((line.strip() for line in lines if line.strip()), "")
        if not token:
            raise UsageError(f"--token-file {args.token_file}: the file is empty")
    token = token or os.environ.get(TOKEN_ENV) or None
    return (new_token(), True) if token is None else (token, False)


def _warn_who_can_reach(args: argparse.Namespace, hosts: list[str] | None) -> None:
    """Warnings for a server that answers anyone, or any host name; where it does not, the names it answers to."""
    from weather_demo.server import LOCAL_HOSTS

    if args.no_auth and args.host not in LOCAL_HOSTS:
        print(
            f"warning: anyone who can reach {args.host}:{args.port} can call these tools (--no-auth)", file=sys.stderr
        )
    if hosts is None:
        print(
            "warning: DNS-rebinding protection is OFF (--allow-host '*'): any web page a visitor opens can send "
            "requests to this server under any host name",
            file=sys.stderr,
        )
    elif args.host not in LOCAL_HOSTS:
        print(
            f"Host/Origin checked: clients must reach it as {', '.join(hosts)} (add names with --allow-host)",
            file=sys.stderr,
        )


def _say_how_to_connect(args: argparse.Namespace, url: str, token: str | None, *, generated: bool) -> None:
    """Where the server listens and the command line that connects to it; a token made up here is shown once, in
    this line, so that a class can connect, and is never written anywhere else."""
    from weather_demo.server import ANY_ADDRESS

    how = "bearer token required" if token else "no auth"
    print(f"weather-demo MCP server listening on {url} ({how})", file=sys.stderr, flush=True)
    if args.host in ANY_ADDRESS:  # no client reaches "0.0.0.0": name it as this machine does, an allowed host
        parts = urlsplit(url)
        url = urlunsplit(parts._replace(netloc=f"127.0.0.1:{parts.port}"))
    if generated:
        line = f"bearer token (shown only now): {token}\nconnect with:  {TOKEN_ENV}={token} "
    elif token:
        line = f"connect with:  {TOKEN_ENV}=<the token> "
    else:
        line = "connect with:  "
    print(f"{line}python -m flow tools --server {url}", file=sys.stderr, flush=True)
