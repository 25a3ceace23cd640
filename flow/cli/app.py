"""`mcp-flow app`: the web app (flow_ui, Streamlit's pages with the rooms' routes), as Streamlit's own
command line runs it, with the settings it needs wherever it is started from.

The app is found as an installed package (flow_ui/serve.py), never imported here: nothing under flow loads
Streamlit. Loopback unless `--lan`; `--lan` never with commands typed in the page.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from flow.cli.common import Subcommands, add_command
from flow.proxy.options import UsageError, check_port
from flow.servers.config import ALLOW_ENV, ALLOW_FLAG
from flow.trace.files import UPLOAD_LIMIT_MB

LAN_NOTE = (
    "serving the local network: anyone who can reach this machine can open the app, run the offline mock, the "
    "scripted model and the configured MCP servers, and a provider with a key they type; keys in this environment "
    "go only to the base URLs they were set up for"
)

# Streamlit's settings, given on its command line so that they hold from any working directory (a
# .streamlit/config.toml is read only from the one Streamlit starts in).
SETTINGS = {
    "server.headless": "true",
    "server.maxUploadSize": str(UPLOAD_LIMIT_MB),
    "browser.gatherUsageStats": "false",
    # Never a traceback to a user: pages show one-line errors of their own.
    "client.showErrorDetails": "none",
    "client.toolbarMode": "minimal",
    # A table's built-in CSV export writes cells as they are, formulas included; the Hops page offers its own.
    "client.disableDataExport": "true",
    "theme.base": "light",
    # A new browser session's first page waited behind two things Streamlit does after every run, each holding the
    # server's Python for 150–200 ms here (bench/browser.py measures the first paint): a full garbage collection (the
    # process holds the SDKs, pandas and graphviz), and the source watcher resolving the path of every imported
    # module. The app serves a class: it does not reload on edits, and Python's own collector still runs.
    "runner.postScriptGC": "false",
    "server.fileWatcherType": "none",
    # The pages write everything they show with a call; without "magic" a page's code is compiled without rewriting
    # its syntax tree (about 20 ms, paid again whenever the last session has left).
    "runner.magicEnabled": "false",
}


# Streamlit serves the app with uvicorn, whose proxy-headers middleware believes X-Forwarded-For from any loopback
# peer unless told otherwise (FORWARDED_ALLOW_IPS, "127.0.0.1,::1" by default) and puts the address it names in
# place of the peer's before the app sees either: an SSH tunnel or another proxy on this machine would then choose
# whose budgets a room's request spends. Trusting no one there leaves the choice to the rooms, which read the
# forwarding headers from the proxies the operator names (MCP_FLOW_TRUSTED_PROXIES) only.
SERVER_ENV = {"FORWARDED_ALLOW_IPS": ""}


class AppRefused(Exception):
    """The app was asked to start in a way it will not: the message says why in one line."""


def serve_script() -> Path:
    """flow_ui/serve.py where the app is installed (or in the clone this runs from)."""
    spec = importlib.util.find_spec("flow_ui")
    if spec is None or not spec.submodule_search_locations:
        raise AppRefused("the web app (the flow_ui package) is not installed beside flow")
    return Path(next(iter(spec.submodule_search_locations))) / "serve.py"


def app_command(
    *,
    port: int = 8501,
    lan: bool = False,
    allow_commands: bool = False,
    environ: Mapping[str, str] = os.environ,
) -> list[str]:
    """The command line that serves the app: loopback, or every interface with `lan`."""
    if lan and (allow_commands or environ.get(ALLOW_ENV) == "1"):
        how = ALLOW_FLAG if allow_commands else f"{ALLOW_ENV}=1"
        raise AppRefused(f"--lan with {how} would let anyone on the network run commands here")
    command = [sys.executable, "-m", "streamlit", "run", str(serve_script())]
    settings = {**SETTINGS, "server.port": str(port), "server.address": "0.0.0.0" if lan else "127.0.0.1"}
    for name, value in settings.items():
        command += [f"--{name}", value]
    if allow_commands:
        command += ["--", ALLOW_FLAG]
    return command


def missing_system_packages(find: Callable[[str], str | None] = shutil.which) -> list[str]:
    """One line for each system program the wheel cannot carry that is missing here, saying what to install."""
    lines = []
    if find("dot") is None:
        lines.append(
            "graphviz's `dot` is not installed: pictures (render, the HTML export) need it; install graphviz "
            "(Debian/Ubuntu: sudo apt install graphviz, macOS: brew install graphviz)"
        )
    fc_list = find("fc-list")
    if fc_list is not None:
        try:
            fonts = subprocess.run([fc_list, ":lang=zh"], capture_output=True, text=True, timeout=20).stdout
        except (OSError, subprocess.TimeoutExpired):
            fonts = "unknown"
        if not fonts.strip():
            lines.append(
                "no Chinese font is installed: Chinese text in pictures shows as boxes; install one "
                "(Debian/Ubuntu: sudo apt install fonts-wqy-zenhei)"
            )
    return lines


def server_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment the app's server runs in: this one, with uvicorn believing no forwarding header."""
    return {**environ, **SERVER_ENV}


def serve(command: Sequence[str], environ: Mapping[str, str] = os.environ) -> int:
    """Become the app (on POSIX, so that a signal sent to this process reaches Streamlit itself), or run it in the
    foreground until it stops; Ctrl-C stops it. It runs in `server_environment(environ)`."""
    sys.stdout.flush()
    sys.stderr.flush()
    env = server_environment(environ)
    if os.name == "posix":
        os.execve(command[0], list(command), env)
    try:
        return subprocess.run(list(command), check=False, env=env).returncode
    except KeyboardInterrupt:
        return 130


def add_parsers(sub: Subcommands) -> None:
    a = add_command(
        sub, "app", what="start the web app (the offline mock model by default), on this machine only", run=_app
    )
    a.add_argument("--port", type=int, default=8501, help="the port to serve on (default: 8501)")
    a.add_argument(
        "--lan",
        action="store_true",
        help="serve every network interface, for a classroom: anyone who can reach this machine can open the app",
    )
    a.add_argument(
        "--allow-server-commands",
        action="store_true",
        help="let the Run page start an MCP server from a command typed in the page (never with --lan)",
    )


def _app(args: argparse.Namespace) -> int:
    check_port(args.port)
    try:
        command = app_command(port=args.port, lan=args.lan, allow_commands=args.allow_server_commands)
    except AppRefused as exc:
        raise UsageError(str(exc)) from None
    for line in missing_system_packages():
        print(f"note: {line}", file=sys.stderr)
    if args.lan:
        print(f"note: {LAN_NOTE}", file=sys.stderr)
    where = "every interface" if args.lan else "this machine only"
    print(f"the app: http://127.0.0.1:{args.port} ({where}; Ctrl-C stops it)", file=sys.stderr)
    return serve(command)
