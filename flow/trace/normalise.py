"""A trace with what changes from run to run (times, ids, headers) taken out, for comparing runs."""

from __future__ import annotations

import re
from typing import Any

from flow.trace.model import is_array, is_object

_ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?")


_LOOPBACK_PORT = re.compile(r"(https?://(?:127\.0\.0\.1|localhost|\[::1\]):)\d+")


"""A server a run started on loopback for itself listens on whichever port was free."""


_DEMO_NOTES = re.compile(r"file://[^\s\"'\\<>]*/weather_demo/notes(?![\w.-])")


"""The demo's class notes, a run's default root with --asks: a file:// URI naming wherever the package sits (a
clone, an install, the samples' fixed copy), the same notes."""


_LISTEN_ID = re.compile(r"listen-\d+")


"""The id the SDK's client gives a subscriptions/listen request, counted across the process: numbered again per
trace, by first appearance, like the request states."""


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
    news a replay must report (a time tool's answer is all date-times).

    A 2026-07-28 `requestState` is sealed by the server with a fresh nonce each run, and its length varies with
    it: each distinct value becomes `<request state N>`, numbered in order of first appearance, so a retry that
    echoes the state of the result before it still compares equal and one that echoes another does not; a hop's
    `bytes` is counted without the states its payload carries."""
    return _normalise(value, times, {})


def _normalise(value: Any, times: bool, states: dict[str, str]) -> Any:
    if is_object(value):
        out = {
            k: _state(v, states) if k == "requestState" and isinstance(v, str) else _normalise(v, times, states)
            for k, v in value.items()
            if k not in _VOLATILE_KEYS
        }
        size = out.get("bytes")
        if "payload" in value and isinstance(size, int) and not isinstance(size, bool):
            out["bytes"] = size - sum(len(state) for state in _states_in(value["payload"]))
        return out
    if is_array(value):
        return [_normalise(v, times, states) for v in value]
    if isinstance(value, str):
        if _LISTEN_ID.fullmatch(value):
            listens = sum(1 for k in states if k.startswith("\0listen"))
            return states.setdefault("\0listen" + value, f"<listen {listens + 1}>")
        value = _DEMO_NOTES.sub("file://<weather_demo>/notes", _LOOPBACK_PORT.sub(r"\1<port>", value))
        return _ISO_TIME.sub("<time>", value) if times else value
    return value


def _state(value: str, states: dict[str, str]) -> str:
    seen = sum(1 for k in states if not k.startswith("\0"))
    return states.setdefault(value, f"<request state {seen + 1}>")


def _states_in(value: Any) -> list[str]:
    """Every `requestState` string inside `value`."""
    if is_object(value):
        return [
            found
            for k, v in value.items()
            for found in ([v] if k == "requestState" and isinstance(v, str) else _states_in(v))
        ]
    if is_array(value):
        return [found for v in value for found in _states_in(v)]
    return []
