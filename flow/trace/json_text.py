"""JSON text held inside a trace (a call's arguments, a tool result's text, a streamed input) read as a value, within
bounds: the one parse every reader of such text uses, so that text nested too deeply or too long is "not readable",
said in a few words, never a `RecursionError` far from where it was read."""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from flow.trace.files import MAX_TRACE_BYTES
from flow.trace.model import MAX_DEPTH

MAX_JSON_TEXT_CHARS = MAX_TRACE_BYTES


"""Text longer than a whole trace file may be is not parsed: nothing a recording holds is longer (a loaded trace's
strings are far shorter), while a recording being imported may still hold a long body as one string."""


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def read_json_text(text: str) -> tuple[bool, Any]:
    """`text` parsed as JSON: (True, the value), or (False, why it is not readable: not JSON, longer than
    `MAX_JSON_TEXT_CHARS`, or nested more than `MAX_DEPTH` levels deep). Never raises; a value that comes back
    nests no deeper than `MAX_DEPTH`, so any reader may walk it."""
    if len(text) > MAX_JSON_TEXT_CHARS:
        return False, f"{len(text):,} characters, over the limit of {MAX_JSON_TEXT_CHARS:,}"
    if _nesting(text) > MAX_DEPTH:
        return False, f"nested more than {MAX_DEPTH} levels deep"
    try:
        return True, json.loads(text)
    except json.JSONDecodeError as exc:
        where = "" if exc.msg.endswith(" at") else " at"  # "Unterminated string starting at" names its own place
        return False, f"{exc.msg}{where} position {exc.pos}"
    except (ValueError, RecursionError) as exc:  # a number too long to convert; a caller already deep in the stack
        return False, str(exc)


def _nesting(text: str) -> int:
    """How deep the arrays and objects of JSON text nest, counted without parsing (brackets inside strings left
    out). Text that cannot nest past the limit is not scanned."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return 0
    steps = (1 if b in "[{" else -1 for b in _BRACKET.findall(_STRING.sub("", text)))
    return max(accumulate(steps), default=0)
