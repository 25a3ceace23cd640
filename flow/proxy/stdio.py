"""`python -m flow proxy --out FILE -- COMMAND ARGS...`: an MCP server over stdio with a recorder in the pipe.

What a client's configuration names instead of the server's command. The proxy starts the server, copies bytes both
ways as they come (unchanged, each read written at once), lets its stderr through, and records every line with its
time and direction (`flow.proxy.log`). When the client leaves (stdin ends, or stdout is closed), the server's stdin
is closed; a server still running after the grace period is terminated, then killed, with what it started (it
runs in a session of its own, and every signal goes to its process group). The server's exit code is the proxy's.
The server's environment is the proxy's own and is never recorded; its values are scrubbed from what is
(`flow.trace.redact.redacted_environment`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time
from types import FrameType

from flow.proxy.log import MAX_FRAME_BYTES, MAX_LOG_BYTES, LineSplitter, ProxyLog, now
from flow.proxy.options import Parser, UsageError, check_seconds
from flow.trace.redact import INHERITED_ENV, redacted_command, redacted_environment

CHUNK = 1 << 16

GRACE_S = 2.0  # what the MCP SDK gives a server between closing its stdin and terminating it

_DRAIN_S = 0.5  # after the server exits, how long to wait for what it (or a child holding its stdout) still writes


DESCRIPTION = "stand in for an MCP server over stdio: start it, relay every byte unchanged, record each frame (JSONL)"

RECORD_DIR_ENV = "MCP_FLOW_RECORD_DIR"  # set by `python -m flow record` for its app: where a proxy with no --out writes


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--out",
        "-o",
        help=f"the JSON Lines recording to write, one frame a line (default under `record`: ${RECORD_DIR_ENV}/mcp-PID.jsonl)",
    )
    p.add_argument(
        "--grace", type=float, default=GRACE_S, help="seconds the server gets to exit once the client has left"
    )
    p.add_argument(
        "--env-public",
        action="append",
        default=[],
        metavar="NAME",
        help="a variable of the server's environment that holds no secret, so the recording may show its value "
        "(every other value the client gave the server is scrubbed from it); repeatable",
    )
    p.add_argument("--max-frame-bytes", type=int, default=MAX_FRAME_BYTES, help=argparse.SUPPRESS)
    p.add_argument("--max-log-bytes", type=int, default=MAX_LOG_BYTES, help=argparse.SUPPRESS)
    p.add_argument(
        "server_command",
        nargs=argparse.REMAINDER,
        metavar="COMMAND",
        help="-- then the server's command line, run as written",
    )


def command_of(args: argparse.Namespace) -> list[str]:
    command = list(args.server_command)
    if command[:1] == ["--"]:
        command = command[1:]
    return command


def exit_code(returncode: int) -> int:
    """A child's status as a shell reports it: a signal N is 128 + N."""
    return returncode if returncode >= 0 else 128 - returncode


def _write_all(fd: int, data: bytes) -> None:
    """All of `data`, also to a pipe a client left non-blocking (it waits for room instead of failing)."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            select.select([], [fd], [])


def _read(fd: int) -> bytes:
    """What is there to read (b"" at the end), also from a pipe a client left non-blocking."""
    while True:
        try:
            return os.read(fd, CHUNK)
        except BlockingIOError:
            select.select([fd], [], [])


class StdioProxy:
    """One server process between the client's stdin/stdout and the recording."""

    def __init__(
        self,
        command: list[str],
        log: ProxyLog,
        *,
        grace_s: float = GRACE_S,
        stdin_fd: int = 0,
        stdout_fd: int = 1,
    ) -> None:
        self.command, self.log, self.grace_s = command, log, grace_s
        self.stdin_fd, self.stdout_fd = stdin_fd, stdout_fd
        self.ended_by: str | None = None  # who left first: "client" or "server"
        self._reaping = threading.Event()
        self.proc: subprocess.Popen[bytes] | None = None

    def run(self) -> int:
        # In a session of its own, so that a signal to the server reaches what it started too (`_signal`); the
        # proxy passes on what it is sent (`forward`).
        self.proc = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, start_new_session=True
        )
        up = threading.Thread(target=self._client_to_server, name="proxy-up", daemon=True)
        up.start()
        self._server_to_client()
        returncode = self.proc.wait()
        self._signal(signal.SIGKILL)  # what the server started and left running ends with the proxy
        return exit_code(returncode)

    def _signal(self, signum: int) -> None:
        """`signum` to the server and every process of its group (those it started and did not move)."""
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):  # none of them is left
            os.killpg(self.proc.pid, signum)

    def _client_to_server(self) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        lines = LineSplitter(self.log, "client_to_server")
        child = self.proc.stdin.fileno()
        while True:
            try:
                chunk = _read(self.stdin_fd)
            except OSError:
                chunk = b""
            t = now()
            if not chunk:
                lines.flush(t)
                self.ended_by = self.ended_by or "client"
                break
            # Recorded before it is passed on, so the log's order is the order of cause and effect: an answer is
            # in the log before the client can react to it.
            lines.feed(chunk, t)
            try:
                _write_all(child, chunk)
            except OSError:  # the server is gone: what the client sent is recorded, as it was sent
                lines.flush(t)
                self.ended_by = self.ended_by or "server"
                break
        self.leave()

    def leave(self) -> None:
        """The client has gone: close the server's stdin, then reap it after the grace period."""
        assert self.proc is not None
        if self._reaping.is_set():
            return
        self._reaping.set()
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        except OSError:
            pass
        threading.Thread(target=self._reap, name="proxy-reaper", daemon=True).start()

    def _reap(self) -> None:
        assert self.proc is not None
        for stop in (signal.SIGTERM, signal.SIGKILL):
            try:
                self.proc.wait(timeout=self.grace_s)
                return
            except subprocess.TimeoutExpired:
                self._signal(stop)
        self.proc.wait()

    def _server_to_client(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        lines = LineSplitter(self.log, "server_to_client")
        fd = self.proc.stdout.fileno()
        exited_at: float | None = None
        relaying = True
        while True:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if not ready:
                # A child the server left holding its stdout would keep this open for ever: stop soon after it exits.
                if self.proc.poll() is not None:
                    exited_at = exited_at or time.monotonic()
                    if time.monotonic() - exited_at > _DRAIN_S:
                        break
                continue
            try:
                chunk = _read(fd)
            except OSError:
                chunk = b""
            t = now()
            if not chunk:
                break
            lines.feed(chunk, t)
            if relaying:
                try:
                    _write_all(self.stdout_fd, chunk)
                except OSError:  # the client closed its end: it has left
                    relaying = False
                    self.ended_by = self.ended_by or "client"
                    self.leave()
        lines.flush(now())
        self.ended_by = self.ended_by or "server"
        if not self._reaping.is_set():
            # The server closed its stdout: it is ending; reap it if it lingers.
            self._reaping.set()
            threading.Thread(target=self._reap, name="proxy-reaper", daemon=True).start()

    def forward(self, signum: int, frame: FrameType | None) -> None:
        """A signal to the proxy goes to the server, which then gets the grace period to end."""
        if self.proc is not None and self.proc.poll() is None:
            self._signal(signum)
            self.leave()


def run_proxy(args: argparse.Namespace) -> int:
    """The `proxy` command: relay, record, and exit with the server's code."""
    command = command_of(args)
    if not command:
        raise UsageError("give the server's command after --, e.g. proxy --out x.jsonl -- python -m weather_demo")
    check_seconds(args.grace, "--grace", at_most=300)
    if args.max_frame_bytes < 1 or args.max_log_bytes < 1 << 16:
        raise UsageError("--max-frame-bytes must be at least 1 and --max-log-bytes at least 65536")
    out = args.out
    if out is None:
        folder = os.environ.get(RECORD_DIR_ENV)
        if not folder:
            raise UsageError(
                f"say where the recording goes: --out FILE (under python -m flow record, ${RECORD_DIR_ENV} says it, "
                f"if the app passes it on to its servers: e.g. --server-env {RECORD_DIR_ENV})"
            )
        out = os.path.join(folder, f"mcp-{os.getpid()}.jsonl")
    shown, hidden = redacted_command(command)
    # This environment is the server's: what its client was configured to give it is a secret, as the app holds
    # every --server-env value to be, whatever its name; only what every client and shell passes on is not.
    _, configured = redacted_environment(os.environ.items(), public=[*INHERITED_ENV, *args.env_public])
    log = ProxyLog(
        out,
        {"transport": "stdio", "command": shown, "pid": os.getpid()},
        secrets=[*hidden, *configured],
        max_frame_bytes=args.max_frame_bytes,
        max_bytes=args.max_log_bytes,
    )
    if log.renamed:  # a client restarted the server, or started two: each run keeps its own recording
        print(f"note: {log.renamed}", file=sys.stderr, flush=True)
    proxy = StdioProxy(command, log, grace_s=args.grace)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, proxy.forward)
    code: int | None = None
    try:
        code = proxy.run()
    except OSError as exc:
        log.close({"error": f"the server did not start: {exc.strerror or exc}"})
        raise OSError(f"cannot start {command[0]!r}: {exc.strerror or exc}") from None
    log.close({"exit_code": code, "ended_by": proxy.ended_by})
    return code


def main(argv: list[str]) -> int:
    """`python -m flow proxy ...`, started without the rest of the command line's imports: a client waits for it."""
    p = Parser(prog="mcp-flow proxy", description=DESCRIPTION)
    add_arguments(p)
    try:
        return run_proxy(p.parse_args(argv))
    except (ValueError, OSError) as exc:
        print(f"error: {' '.join(str(exc).splitlines())}", file=sys.stderr, flush=True)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
