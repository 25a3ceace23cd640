"""The command line: `mcp-flow COMMAND` (from a clone, `python -m flow COMMAND` is the same).

One module per group of commands, each adding its own subcommands with the function each runs (`add_parsers`); here
the arguments are parsed, the command is run, and whatever it refuses is reported as one line. The engine, the
backends and the samples (and with them the model SDK) are imported by the commands that use them, so that --help
and the proxies start without them.
"""

from __future__ import annotations

import argparse
import logging
import sys

from flow.cli import app, interop, proxies, runs, servers, traces
from flow.cli.common import Handler, error
from flow.proxy.options import Parser, UsageError
from flow.trace.files import json_value_problem

__all__ = ["main", "parser", "subcommands"]

GROUPS = (app, runs, traces, interop, servers, proxies)  # in the order `mcp-flow --help` lists their commands


def parser() -> Parser:
    """The whole command line: every group's subcommands under `mcp-flow`."""
    p = Parser(prog="mcp-flow", description="See how a language model uses tools, hop by hop.")
    sub = p.add_subparsers(dest="command", required=True)
    for group in GROUPS:
        group.add_parsers(sub)
    return p


def subcommands(p: Parser) -> dict[str, Parser]:
    """Each subcommand's own parser, by name, in the order --help lists them."""
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _failures() -> tuple[type[Exception], ...]:
    """What a command may refuse with, reported as one line with exit code 2: bad input, a file that cannot be read
    or written, a secret about to be saved, a picture too big to draw, a script that does not parse. Imported only
    once something was raised: the scripted model's module loads the model SDK."""
    from flow.backends.scripted import ScriptError
    from flow.trace.files import TraceError
    from flow.trace.redact import SecretLeakError
    from flow.views.diagram import RenderError

    return (UsageError, TraceError, SecretLeakError, RenderError, ScriptError, OSError)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        # Bytes that are not UTF-8 reach Python as lone surrogates, which no trace, terminal or page can hold.
        for i, arg in enumerate(argv, 1):
            if json_value_problem(arg):
                shown = arg.encode("utf-8", "backslashreplace").decode()[:80]
                raise UsageError(f"argument {i} is not UTF-8 text: {shown}")
        args = parser().parse_args(argv)
        # The MCP SDK logs what it retries or gives up on; the outcome reaches the user as one line and a hop.
        sdk_log = logging.getLogger("mcp")
        if not any(isinstance(h, logging.NullHandler) for h in sdk_log.handlers):
            sdk_log.addHandler(logging.NullHandler())
        run: Handler = args.run
        return run(args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if not isinstance(exc, _failures()):
            raise
        error(exc)
        return 2
