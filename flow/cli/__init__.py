"""The command line: `python -m flow run|show|replay|...`."""

from flow.cli.commands import main

__all__ = ["main"]
