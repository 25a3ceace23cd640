"""A trace with what changes from run to run (times, ids, headers) taken out, for comparing runs."""

from __future__ import annotations

import re
from typing import Any

from flow.trace.model import is_array, is_object

_ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?")


_LOOPBACK_PORT = re.compile(r"(https?://(?:127\.0\.0\.1|localhost|\[::1\]):)\d+")


"""A server a run started on loopback for itself listens on whichever port was free."""


_VOLATILE_KEYS = {
    "t_start_ms",
    "t_end_ms",
    "started_at",
    "elapsed_ms",
    "headers",
    "created",
    "created_at",  # Responses' name for it
    "server_stderr",
    "server_clock",
}


def normalise(value: Any, *, times: bool = True) -> Any:
    """Drop what changes from run to run (the recorder's times, headers) so two runs of the same flow compare equal.

    `times` also replaces every date-time in the payloads with `<time>`: right for the demo server, whose
    `dev://now` resource is the one value it makes vary, wrong for another server, whose answer that changed is
    news a replay must report (a time tool's answer is all date-times)."""
    if is_object(value):
        return {k: normalise(v, times=times) for k, v in value.items() if k not in _VOLATILE_KEYS}
    if is_array(value):
        return [normalise(v, times=times) for v in value]
    if isinstance(value, str):
        value = _LOOPBACK_PORT.sub(r"\1<port>", value)
        return _ISO_TIME.sub("<time>", value) if times else value
    return value
