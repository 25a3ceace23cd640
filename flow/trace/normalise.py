"""A trace with what changes from run to run (times, ids, headers) taken out, for comparing runs."""

from __future__ import annotations

import re
from typing import Any

_ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?")


_VOLATILE_KEYS = {
    "t_start_ms",
    "t_end_ms",
    "started_at",
    "elapsed_ms",
    "headers",
    "created",
    "server_stderr",
    "server_clock",
}


def normalise(value: Any) -> Any:
    """Drop what changes from run to run (times, headers) so two runs of the same flow compare equal."""
    if isinstance(value, dict):
        return {k: normalise(v) for k, v in value.items() if k not in _VOLATILE_KEYS}
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, str):
        return _ISO_TIME.sub("<time>", value)
    return value
