"""Recordings made by other tools, turned into traces this app can step through: the front door, which tells the
format by content and hands the text to its importer.

Three formats come in: a JSON-RPC message log in JSON Lines (`jsonrpc_log`, which also reads the MCP proxies'
recordings), OTLP/JSON that follows the GenAI and MCP semantic conventions (`otlp_import`), and the model proxy's
recording (`merge`, which merges it with an MCP proxy's into one trace). Hops get the kinds and steps the engine would give them; what has no place
in a trace is listed in `meta.imported.unmapped`. Every problem with the input is a one-line `TraceError` naming
the line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, get_args

from flow.interop.common import NothingRecorded
from flow.interop.jsonrpc_log import import_jsonrpc_log
from flow.interop.merge import MODEL_TRANSPORT, merge_recordings
from flow.interop.otlp_import import import_otlp_json
from flow.trace.files import MAX_HOPS, MAX_TRACE_BYTES, TraceError, read_limited, read_trace_bytes, too_big
from flow.trace.model import ImportFormat, Trace, as_dict

__all__ = [
    "FORMATS",
    "NothingRecorded",
    "detect_format",
    "import_bytes",
    "import_file",
    "import_jsonrpc_log",
    "import_otlp_json",
    "merge_files",
    "merge_recordings",
]

FORMATS: tuple[str, ...] = ("auto", *get_args(ImportFormat))


def _text(data: bytes, name: str) -> str:
    if len(data) > MAX_TRACE_BYTES:
        raise too_big(name, len(data), MAX_TRACE_BYTES, "file to import")
    if not data.strip():
        raise TraceError(f"{name}: the file is empty")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TraceError(f"{name}: not a text file (binary data, or not UTF-8)") from None


def detect_format(text: str) -> ImportFormat | Literal["trace"]:
    """By content: OTLP/JSON, a JSON-RPC log, or else a trace of this app (whose loader explains any problem)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    if '"resourceSpans"' in first[:4096] or '"resourceSpans"' in text[:4096]:
        return "otlp-json"
    if '"format_version"' in text[:4096]:
        return "trace"
    try:
        entry = json.loads(first)
    except json.JSONDecodeError:
        return "trace"  # not one JSON value a line: a (broken) trace file, told as such
    if isinstance(entry, list) and entry:  # a JSON-RPC batch
        entry = entry[0]
    keys = ("direction", "message", "jsonrpc", "method", "result", "mcp_flow_proxy")
    if isinstance(entry, dict) and as_dict(entry.get("mcp_flow_proxy")).get("transport") == MODEL_TRANSPORT:
        return "proxy-jsonl"
    if isinstance(entry, dict) and any(k in entry for k in keys):
        return "jsonrpc-jsonl"
    return "trace"


def import_bytes(data: bytes, *, name: str, fmt: str = "auto") -> Trace:
    """A recording in one of `FORMATS` (or, with "auto", a trace of this app too) as a trace."""
    text = _text(data, name)
    try:
        chosen = detect_format(text) if fmt == "auto" else fmt
        if chosen == "trace":
            return read_trace_bytes(data, name=name)
        if chosen == "otlp-json":
            return import_otlp_json(text, name=name)
        if chosen in ("jsonrpc-jsonl", "proxy-jsonl"):
            # Every message becomes a hop: count the lines before parsing any, so a huge log is refused at once.
            messages = sum(1 for line in text.splitlines() if line.strip())
            if messages > MAX_HOPS:
                raise TraceError(f"{name}: {messages:,} messages is over the limit of {MAX_HOPS:,} hops for a trace")
            if chosen == "proxy-jsonl":
                return merge_recordings([(name, text)], name=name)
            return import_jsonrpc_log(text, name=name)
    except RecursionError:
        raise TraceError(f"{name}: nested too deeply to import") from None
    raise TraceError(f"unknown import format {fmt!r} (expected one of {', '.join(FORMATS)})")


def merge_files(
    paths: Sequence[str | Path],
    *,
    name: str = "merged",
    conversation: int | None = None,
    app_exit_code: int | None = None,
) -> Trace:
    """The proxies' recordings of one run, each read as a trace file is, merged into one trace (`merge`); of several
    conversations in the model recording, the one numbered `conversation`, by default the last; `app_exit_code`,
    when `record` ran the app, says how it ended."""
    texts = [(str(p), _text(read_limited(p, what="file"), str(p))) for p in paths]
    total = sum(sum(1 for line in text.splitlines() if line.strip()) for _, text in texts)
    if total > MAX_HOPS:
        raise TraceError(f"{name}: {total:,} recorded lines is over the limit of {MAX_HOPS:,} hops for a trace")
    try:
        return merge_recordings(texts, name=name, conversation=conversation, app_exit_code=app_exit_code)
    except RecursionError:
        raise TraceError(f"{name}: nested too deeply to import") from None


def import_file(path: str | Path, *, fmt: str = "auto") -> Trace:
    """A recording from a file, read as a trace file is: a regular file within the size limit (`read_limited`)."""
    return import_bytes(read_limited(path, what="file"), name=str(path), fmt=fmt)
