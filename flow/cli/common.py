"""What every command group shares: how a subcommand is declared, how a failure is reported, and where a command's
output and its own lines go ("-" is standard output)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeAlias

from flow.proxy.options import Parser, UsageError
from flow.trace.writes import unwritable

if TYPE_CHECKING:
    from flow.trace.model import Trace

Subcommands: TypeAlias = "argparse._SubParsersAction[Parser]"

Handler: TypeAlias = Callable[[argparse.Namespace], int]
"""What a subcommand runs: its parsed arguments in, the exit code out."""

MAX_EXCHANGE_S = 86400.0  # the longest any --timeout may give one exchange: a model's, an MCP server's

STDOUT = "-"  # an output named "-" is standard output, as in other Unix tools

_SMALL_FILE = 1 << 16  # an env or token file is a few lines; anything bigger is a mistake


def add_command(sub: Subcommands, name: str, *, what: str, run: Handler) -> Parser:
    """A subcommand that runs `run`, saying what it does both in the list of commands and on its own --help."""
    parser = sub.add_parser(name, help=what, description=what)
    parser.set_defaults(run=run)
    return parser


def error(line: object) -> None:
    """The one way the command line reports a failure: `error: ...` on one line of standard error, whatever a
    provider or a server said in it shown as `peer_text` shows it."""
    print(peer_text(f"error: {' '.join(str(line).splitlines())}"), file=sys.stderr, flush=True)


def peer_text(text: str) -> str:
    """Text a peer chose (a model's answer, a provider's error, a server's listing, prompt or tool output), fit for
    the terminal: every control character shown as its escape (`\\x1b`, `\\x9b`), so none commands the terminal;
    line breaks and tabs stay. Every line the command line prints with such text in it goes through this."""
    from flow.views.table import terminal_safe

    return terminal_safe(text)


def say(text: str, file: TextIO) -> None:
    """Print a line that holds a peer's text (`peer_text`)."""
    print(peer_text(text), file=file, flush=True)


def lines_to(out: str | Path | None) -> TextIO:
    """Where a command prints its own lines: standard output, unless its result goes there (a file named - is
    written as ./-)."""
    return sys.stderr if out is not None and str(out) == STDOUT else sys.stdout


def where(out: str | Path) -> str:
    """The name of what a command wrote, for its summary line."""
    return "standard output" if str(out) == STDOUT else str(out)


def write(out: str | Path, data: str | bytes) -> None:
    """`data` into the file `out` (its folder made if need be), or onto standard output for "-": the same bytes."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if str(out) != STDOUT:
        try:  # written in place, not through a temporary file: `-o /dev/null` and a named pipe work too
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            Path(out).write_bytes(raw)
        except OSError as exc:
            raise unwritable(out, exc) from None
        return
    sys.stdout.flush()  # what the command printed before comes first
    sys.stdout.buffer.write(raw)
    sys.stdout.buffer.flush()


def save(trace: Trace, out: str | Path) -> None:
    """A trace into the file `out` (atomically, see `save_trace`), or onto standard output for "-"."""
    from flow.trace.files import save_trace, trace_text

    if str(out) == STDOUT:
        write(out, trace_text(trace))
    else:
        save_trace(trace, out)


def read_small_file(path: str, option: str) -> str:
    """A short text file named on the command line, read as trace files are (`read_limited`: never a FIFO or
    a device, bounded), or one line saying why not."""
    from flow.trace.files import TraceError, read_limited

    try:
        data = read_limited(path, limit=_SMALL_FILE, what="file for " + option)
    except TraceError as exc:
        raise UsageError(f"{option} {exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{option} {path}: not UTF-8 text") from None
