"""What the stdio proxy's own entry point shares with the command line (`flow.cli`): a client waits for the proxy, so
it starts without the command line's imports, and what both need lives here. A usage error is one line, never the
usage block, and the proxies' numbers are checked by one rule each."""

from __future__ import annotations

import argparse
from typing import NoReturn


class UsageError(ValueError):
    """Bad command-line input: one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are raised as one line (`UsageError`) for the one handler to print,
    where argparse would print the whole usage block; its subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def check_seconds(value: float, option: str, *, at_most: float) -> float:
    """A number of seconds above 0 and at most `at_most`: never NaN, which passes every range check written the
    other way round (`x <= 0 or x > limit`), nor infinity."""
    if not 0 < value <= at_most:
        raise UsageError(f"{option} {value:g}: give seconds above 0 and at most {at_most:g}")
    return value


def check_port(port: int) -> int:
    """A TCP port on 127.0.0.1, 0 for a free one."""
    if not 0 <= port <= 65535:
        raise UsageError(f"--port {port}: give a port from 0 to 65535")
    return port
