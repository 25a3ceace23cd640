"""`mcp-flow proxy | proxy-model | proxy-http | merge | record`: tracing an app this project does not run. The
proxies stand in for its MCP server and its model API and record what crosses; `merge` turns their recordings into
one trace; `record` runs the app behind the model proxy and merges what was recorded."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from flow.cli.common import MAX_EXCHANGE_S, STDOUT, Subcommands, add_command, error, lines_to, save, where
from flow.proxy import stdio as stdio_proxy
from flow.proxy.options import UsageError, check_port, check_seconds
from flow.trace.files import TraceError
from flow.trace.redact import redact_url
from flow.trace.writes import unwritable
from flow.views.table import summary_line, terminal_safe

if TYPE_CHECKING:
    from flow.proxy.http import Served
    from flow.trace.model import Trace


def add_parsers(sub: Subcommands) -> None:
    stdio_proxy.add_arguments(add_command(sub, "proxy", what=stdio_proxy.DESCRIPTION, run=_proxy))
    _add_proxy_model(sub)
    _add_proxy_http(sub)
    _add_merge(sub)
    _add_record(sub)


def _add_proxy_model(sub: Subcommands) -> None:
    pm = add_command(
        sub,
        "proxy-model",
        what="stand in for a model API (Chat Completions, Responses or Anthropic Messages) on 127.0.0.1: forward every "
        "request, stream answers through, record the bodies (JSONL; never a key)",
        run=_proxy_model,
    )
    pm.add_argument(
        "--upstream",
        required=True,
        metavar="URL",
        help="the real API's base URL, e.g. https://api.openai.com/v1 or https://api.anthropic.com/v1",
    )
    _add_http_proxy_options(pm, 8766)


def _add_proxy_http(sub: Subcommands) -> None:
    ph = add_command(
        sub,
        "proxy-http",
        what="stand in for an MCP server over Streamable HTTP on 127.0.0.1: forward POST/GET/DELETE, record the "
        "frames (JSONL; no header, so no token or session id)",
        run=_proxy_http,
    )
    ph.add_argument(
        "--upstream", required=True, metavar="URL", help="the MCP server's URL, e.g. http://127.0.0.1:8000/mcp"
    )
    _add_http_proxy_options(ph, 8767)


def _add_http_proxy_options(parser: argparse.ArgumentParser, port: int) -> None:
    parser.add_argument(
        "--port", type=int, default=port, help=f"port on 127.0.0.1; 0 picks a free one (default: {port})"
    )
    parser.add_argument("--out", "-o", required=True, help="the JSON Lines recording to write")
    parser.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        help="seconds one exchange may take, from its request's first byte to its answer's last",
    )


def _add_merge(sub: Subcommands) -> None:
    mg = add_command(
        sub,
        "merge",
        what="merge what the proxies recorded of one run (an MCP recording, a model recording) into one trace",
        run=_merge,
    )
    mg.add_argument(
        "files", nargs="+", metavar="RECORDING", help="JSONL files written by proxy, proxy-http, proxy-model"
    )
    mg.add_argument("--out", "-o", required=True, help="trace file to write, - for standard output")
    mg.add_argument(
        "--conversation",
        type=int,
        metavar="N",
        help="of several conversations in the model recording (a long-running proxy-model), the Nth (default: the "
        "last; merge says how many it found)",
    )


def _add_record(sub: Subcommands) -> None:
    rc = add_command(
        sub,
        "record",
        what="run an app with the model proxy in front of its provider (OPENAI_BASE_URL set for it), "
        "then merge what was recorded into one trace",
        run=_record,
    )
    rc.add_argument("--out", "-o", required=True, help="trace file to write, - for standard output")
    rc.add_argument(
        "--upstream",
        metavar="URL",
        help="the real API's base URL (default: $OPENAI_BASE_URL, else https://api.openai.com/v1)",
    )
    rc.add_argument("--port", type=int, default=0, help="the model proxy's port on 127.0.0.1 (default: a free one)")
    rc.add_argument(
        "--keep",
        metavar="DIR",
        help="keep the recordings in this folder (default: a temporary one, removed after the merge)",
    )
    rc.add_argument("--timeout", type=float, default=600.0, help="seconds one model exchange may take")
    rc.add_argument("app_command", nargs=argparse.REMAINDER, metavar="COMMAND", help="-- then the app's command line")


def _proxy(args: argparse.Namespace) -> int:
    try:
        return stdio_proxy.run_proxy(args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _proxy_model(args: argparse.Namespace) -> int:
    from flow.proxy.http import model_proxy

    return _serve_http_proxy(args, model_proxy, "model API")


def _proxy_http(args: argparse.Namespace) -> int:
    from flow.proxy.http import mcp_http_proxy

    return _serve_http_proxy(args, mcp_http_proxy, "MCP server")


def _serve_http_proxy(args: argparse.Namespace, make: Callable[..., Served], what: str) -> int:
    """Serve one HTTP proxy until it is stopped; the exit code says by which signal (128 + N), 0 for none."""
    check_port(args.port)
    check_seconds(args.timeout, "--timeout", at_most=MAX_EXCHANGE_S)
    try:
        served = make(args.upstream, args.out, port=args.port, timeout_s=args.timeout)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    log = served.relay.recording.log

    def listening() -> None:
        if log.renamed:
            print(f"note: {log.renamed}", file=sys.stderr)
        print(
            f"{what} proxy listening on {served.url} → {redact_url(args.upstream)}, recording to {log.path}",
            file=sys.stderr,
            flush=True,
        )

    stopped_by = served.run(ready=listening)
    return 128 + stopped_by if stopped_by else 0


def _same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them is not there (yet): not the same file
        return False


def _merge(args: argparse.Namespace) -> int:
    from flow.interop.importers import merge_files

    for recording in args.files:
        if str(args.out) != STDOUT and _same_file(args.out, recording):
            raise UsageError(f"--out {args.out} is one of the recordings to merge: name another file for the trace")
    trace = merge_files(args.files, name=str(args.out), conversation=args.conversation)
    save(trace, args.out)
    _merged(trace, args.out)
    return 0


def _merged(trace: Trace, out: str | Path) -> None:
    """What `merge` and `record` say of the trace they wrote: its notes (what is inferred, what was left out, which
    conversation it is), then its summary."""
    say = lines_to(out)
    for line in trace.meta.imported.unmapped if trace.meta.imported else []:
        print(terminal_safe(f"note: {line}"), file=say)
    print(f"{summary_line(trace)} → {where(out)}", file=say)


def _record(args: argparse.Namespace) -> int:
    import shutil
    import tempfile

    command = args.app_command[1:] if args.app_command[:1] == ["--"] else args.app_command
    if not command:
        raise UsageError("give the app's command after --, e.g. record --out run.json -- python my_app.py")
    check_port(args.port)
    check_seconds(args.timeout, "--timeout", at_most=MAX_EXCHANGE_S)
    if str(args.out) != STDOUT and Path(args.out).is_dir():  # said before the app runs, not after
        raise unwritable(args.out, IsADirectoryError())
    upstream = args.upstream or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
    if args.keep:
        folder = Path(args.keep)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"--keep {folder}: cannot be made a folder ({exc.strerror or exc})") from None
    else:
        folder = Path(tempfile.mkdtemp(prefix="mcp-flow-record-"))
    kept = False
    try:
        code, kept = _record_into(args, command, upstream, folder)
        return code
    finally:
        if not args.keep and not kept:  # on every way out: a refused start, Ctrl-C; a failed merge keeps them
            shutil.rmtree(folder, ignore_errors=True)


def _record_into(args: argparse.Namespace, command: list[str], upstream: str, folder: Path) -> tuple[int, bool]:
    """`record`: the model proxy, the app, the merge of what was recorded in `folder`; the app's exit code, and
    whether the recordings must be kept (the merge refused them: they are all there is of the run)."""
    from flow.proxy.http import model_proxy
    from flow.proxy.stdio import exit_code

    before = set(folder.iterdir())  # a kept folder may hold an earlier run's recordings: never merged into this one
    try:
        served = model_proxy(upstream, str(folder / "model.jsonl"), port=args.port, timeout_s=args.timeout).start()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    model_log = served.relay.recording.log.path
    print(f"recording: OPENAI_BASE_URL={served.url} → {redact_url(upstream)}", file=sys.stderr, flush=True)
    try:
        code = exit_code(_run_app(command, served.url, folder))
    finally:
        served.stop()
    found = [p for p in folder.glob("mcp-*.jsonl") if p not in before]
    mcp_logs = sorted(found, key=lambda p: p.stat().st_mtime)
    if len(mcp_logs) > 1:
        print(f"note: {len(mcp_logs)} MCP recordings; the trace merges the first, {mcp_logs[0]}", file=sys.stderr)
    recordings = [model_log, *mcp_logs[:1]]
    return code, _merge_recorded(recordings, args.out, app_exit_code=code, folder=folder)


def _run_app(command: list[str], base_url: str, folder: Path) -> int:
    """Run the app to its end with OPENAI_BASE_URL at the model proxy; its return code. Its MCP servers are
    recorded when its configuration starts them through `python -m flow proxy` with no --out: each then writes
    into `folder`."""
    import subprocess

    from flow.proxy.stdio import RECORD_DIR_ENV

    env = {**os.environ, "OPENAI_BASE_URL": base_url, RECORD_DIR_ENV: str(folder)}
    try:
        app = subprocess.Popen(command, env=env)
    except OSError as exc:
        raise UsageError(f"cannot start {command[0]!r}: {exc.strerror or exc}") from None
    try:
        return app.wait()
    except KeyboardInterrupt:  # the app got the Ctrl-C too: let it end, then merge what it did
        try:
            return app.wait(timeout=10)
        except subprocess.TimeoutExpired:
            app.kill()
            return app.wait()


def _merge_recorded(recordings: list[Path], out: str, *, app_exit_code: int, folder: Path) -> bool:
    """Merge what `record` recorded into the trace `out`; whether the recordings must be kept (the merge refused
    them). Either way the app's own exit code stands: what it did is not for the recording to overrule."""
    from flow.interop.importers import NothingRecorded, merge_files
    from flow.proxy.stdio import RECORD_DIR_ENV

    try:
        trace = merge_files(recordings, name=str(out), app_exit_code=app_exit_code)
    except NothingRecorded:
        print(
            "note: nothing was recorded, so no trace was written: the app sent no model request to "
            f"$OPENAI_BASE_URL, and no MCP frame crossed a `python -m flow proxy` (one with no --out records only "
            f"if it gets ${RECORD_DIR_ENV}: an app that gives its servers a clean environment must pass it on, "
            f"e.g. --server-env {RECORD_DIR_ENV})",
            file=sys.stderr,
        )
        return False
    except TraceError as exc:  # what was recorded stays for a later `merge`
        error(exc)
        recorded = " ".join(shlex.quote(str(p)) for p in recordings)
        print(
            f"note: no trace was written; the recordings are kept in {folder} (python -m flow merge {recorded} "
            f"--out {shlex.quote(str(out))})",
            file=sys.stderr,
        )
        return True
    save(trace, out)
    _merged(trace, out)
    return False
