"""The trace: format version, metadata and hops, with one adapter to save and load it.

A hop is one message that crossed one boundary. Its kind is drawn from a fixed set so
renderers can branch over kinds exhaustively.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import stat
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pydantic_core
from pydantic import ValidationError

from flow.trace.model import FORMAT_VERSION, LONE_SURROGATE, MAX_DEPTH, Trace, is_array, is_object, is_sequence
from flow.trace.payloads import McpResponse, error_path, payload_problem, payload_schemas, typed
from flow.trace.writes import write_atomically

FORMAT_POLICY = """\
format_version is an integer. Adding an optional field with a default keeps the version; any
change that an older reader would misread (a renamed, removed or re-typed field, a new meaning)
raises it, and MIGRATIONS gains a function that turns the previous version into the new one.
Newer code loads every version it ever wrote; a file from a newer version is refused with a
message saying so. Unknown extra fields are kept and ignored."""


MAX_TRACE_BYTES = 50 * 1024 * 1024
# The app's upload limit, in Streamlit's megabytes: its browser counts one as 1,000,000 bytes (1 MiB on Windows), its
# server as 1 MiB. Rounded up from the one limit, so the widget lets through every file the CLI loads, and this
# reader refuses a bigger one in the CLI's own line.
UPLOAD_LIMIT_MB = -(-MAX_TRACE_BYTES // 1_000_000)


"""Files above this are refused before they are read: a 1,000-hop run is about 1 MB. The app's upload takes the same
files: its widget is set just above this in its own units (`flow_ui.state.UPLOAD_LIMIT_MB`), and this reader refuses."""


MAX_HOPS = 20_000


"""Traces with more hops are refused: a 1,000-hop run is about 1.3 MB, so the limit holds every run of ten
model rounds of a hundred tool calls with room to spare, while every view of a trace at the limit (the table, each
diagram format, the HTML page) still finishes in seconds and a few hundred MB. A 600,000-hop file under the byte
limit took `render` to 3.5 GB; the recorder stops at this limit, so every run it writes loads."""


MAX_STRING_CHARS = 1 << 20


"""Longer text anywhere in a trace (a value or a key) is refused: the recorder clips payloads to this, and a
viewer that must show one value whole (a hop's JSON, a table cell) stays quick. A megabyte of text is far more
than a person reads in one hop; a 49 MiB string made `show` hang."""


# version -> function turning a trace of that version into the next version's shape
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


# Hops of these kinds always carry the correlation id that ties them to their partner.
_NEEDS_TOOL_CALL_ID = {"translate.reverse", "tool.invoke"}


_NEEDS_JSONRPC_ID = {"mcp.request", "mcp.response"}


# C0 and C1 controls (ESC starts a terminal command, BEL rings, CSI is ESC's one-byte form), DEL, Unicode line
# breaks, the bidirectional marks and overrides that make text read in another order than it is stored, and the
# two noncharacters XML (so graphviz's labels) refuses.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffe\uffff]")


def escape_controls(text: str, *, keep: str = "") -> str:
    """Text from a file with every control character shown as its escape (`\\x1b`, `\\u202e`), except those
    in `keep`: what a terminal, a diagram or an error line shows is then exactly the characters it holds."""

    def escaped(m: re.Match[str]) -> str:
        c = m[0]
        if c in keep or c in "\n\r\t":
            return c if c in keep else repr(c)[1:-1]
        return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"

    return _CONTROL.sub(escaped, text)


class TraceError(Exception):
    """A trace file that cannot be used; the message is one line for the user."""

    def __init__(self, message: str) -> None:
        # Paths and values come from the file: a key holding a line break must not break the line, nor an
        # escape sequence command the terminal that shows it.
        super().__init__(escape_controls(message))


def trace_text(trace: Trace) -> str:
    """The file text `save_trace` writes: redacted (see `Trace.to_json`), within the bounds `load_trace` holds it to."""
    return _loadable(trace.to_json(), hops=len(trace.hops))


def save_trace(trace: Trace, path: str | Path) -> Path:
    """Write `trace_text` atomically (`write_atomically`)."""
    return write_atomically(path, trace_text(trace).encode("utf-8"))


def _loadable(text: str, *, hops: int) -> str:
    """The file text within the loader's bounds. The recorder clips payloads as it goes; what it never saw (a
    model's long answer in `meta`) is clipped here, and text over the byte limit is written without indentation.
    Small text is taken as it is: it cannot hold a string longer than itself."""
    if hops > MAX_HOPS:
        raise TraceError(f"the trace has {hops:,} hops, over the limit of {MAX_HOPS:,}: not written")
    if len(text) <= MAX_STRING_CHARS:
        return text
    data: Any = None
    if _MAYBE_LONG_STRING.search(text):  # only then is the text parsed again, to find and clip the string
        data = json.loads(text)
        if _long_string(data, MAX_STRING_CHARS) is not None:
            data, _ = clip_strings(data, MAX_STRING_CHARS)
            text = json.dumps(data, ensure_ascii=False, indent=1)
    if len(text.encode()) > MAX_TRACE_BYTES:
        data = json.loads(text) if data is None else data
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        size = len(text.encode())
        if size > MAX_TRACE_BYTES:
            raise TraceError(
                f"the trace would be {size / 2**20:.1f} MiB, over the {MAX_TRACE_BYTES // 2**20} MiB "
                "limit for a trace file: not written"
            )
    return text


# A JSON string of more than MAX_STRING_CHARS characters, or text that only looks like one: each piece matched
# (a character, or an escape's first two) stands for at most one character of the string, so no match means none.
_MAYBE_LONG_STRING = re.compile(r'"(?:[^"\\]|\\.){' + str(MAX_STRING_CHARS + 1) + ",}")


def load_trace(path: str | Path) -> Trace:
    """Read and check a trace file; every problem is a one-line `TraceError` naming the path."""
    return read_trace_bytes(read_limited(path), name=str(path))


def read_limited(path: str | Path, *, limit: int = MAX_TRACE_BYTES, what: str = "trace file") -> bytes:
    """The bytes of a regular file of at most `limit` bytes, read in bounded time and memory.

    A pipe, a device or a socket is refused before it is read (`validate /dev/zero` or a FIFO would read
    forever, or wait for a writer); it is opened non-blocking and checked again on the open file, so a path
    swapped in between changes nothing. At most `limit` + 1 bytes are read: a file growing under us is still refused."""
    path = Path(path)
    try:
        _regular(path, os.stat(path), what)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise TraceError(f"{path}: no such file") from None
    except (IsADirectoryError, NotADirectoryError):
        raise TraceError(f"{path}: is a folder, not a {what}") from None
    except PermissionError:
        raise TraceError(f"{path}: not readable (permission denied)") from None
    except OSError as exc:
        raise TraceError(f"{path}: cannot be opened ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb", buffering=0) as f:
        size = _regular(path, os.fstat(f.fileno()), what).st_size
        if size > limit:
            raise too_big(path, size, limit, what)
        parts: list[bytes] = []
        got, ask = 0, size + 1  # the whole file in one read; then on, should it have grown, to the limit
        try:
            while got <= limit:
                chunk = f.read(min(ask, limit + 1 - got))
                if not chunk:
                    break
                parts.append(chunk)
                got, ask = got + len(chunk), 1 << 20
        except OSError as exc:
            raise TraceError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    data = parts[0] if len(parts) == 1 else b"".join(parts)
    if len(data) > limit:
        raise too_big(path, len(data), limit, what)
    return data


def _regular(path: Path, info: os.stat_result, what: str) -> os.stat_result:
    if stat.S_ISDIR(info.st_mode):
        raise TraceError(f"{path}: is a folder, not a {what}")
    if not stat.S_ISREG(info.st_mode):
        kind = "a pipe" if stat.S_ISFIFO(info.st_mode) else "a socket" if stat.S_ISSOCK(info.st_mode) else "a device"
        raise TraceError(f"{path}: is {kind}, not a file; save what it holds to a file first")
    return info


def too_big(name: str | Path, size: int, limit: int, what: str = "trace file") -> TraceError:
    if limit < 2**20:  # a small file's limit (an env or token file) reads in KiB or bytes
        shown = f"{limit // 1024} KiB" if limit >= 1024 else f"{limit} bytes"
        return TraceError(f"{name}: {size:,} bytes is over the {shown} limit for a {what}")
    return TraceError(f"{name}: {size / 2**20:.1f} MiB is over the {limit // 2**20} MiB limit for a {what}")


def read_trace_bytes(data: bytes, *, name: str = "trace") -> Trace:
    """Parse a trace from bytes (a file or an upload); every problem is a one-line `TraceError`."""
    if len(data) > MAX_TRACE_BYTES:
        raise too_big(name, len(data), MAX_TRACE_BYTES)
    if not data.strip():
        raise TraceError(f"{name}: the file is empty")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TraceError(f"{name}: not a text file (binary data, or not UTF-8)") from None
    try:
        with _no_gc():
            parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        where = (
            "ends too early (truncated?)" if exc.pos >= len(text.rstrip()) else f"line {exc.lineno} column {exc.colno}"
        )
        raise TraceError(f"{name}: not valid JSON: {exc.msg}, {where}") from None
    except RecursionError:
        raise TraceError(f"{name}: nested too deeply to be a trace") from None
    return parse_trace(parsed, name=name, size=len(data))


def parse_trace(data: Any, *, name: str = "trace", size: int | None = None) -> Trace:
    """Validate a decoded JSON value as a trace: its bounds, shape, version, then the rules between hops.
    `size`, the length of the JSON text when known, lets a small file skip the walk for long strings."""
    bound = bounds_problem(data, size=size)
    if bound:
        raise TraceError(f"{name}: {bound}")
    with _no_gc():
        problems, trace = _check(data)
    if problems or trace is None:
        raise TraceError(f"{name}: {problems[0] if problems else 'not a trace'}")
    return trace


@contextlib.contextmanager
def _no_gc() -> Generator[None, None, None]:
    """Parsing allocates many small objects and nothing cyclic: the collector's passes only make a
    10,000-hop file grow quadratically slower."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def bounds_problem(data: Any, *, size: int | None = None) -> str | None:
    """What makes decoded trace data too large to work with (`MAX_HOPS`, `MAX_STRING_CHARS`), or None.
    Text no longer than the limit cannot hold a longer string, so a small file (`size`) is not walked."""
    hops = data.get("hops") if is_object(data) else None
    if is_array(hops) and len(hops) > MAX_HOPS:
        return f"hops: {len(hops):,} hops is over the limit of {MAX_HOPS:,} for a trace"
    if size is not None and size <= MAX_STRING_CHARS:
        return None
    where = _long_string(data, MAX_STRING_CHARS)
    if where is None:
        return None
    loc, length = where
    return f"{_path(loc)}: {length:,} characters of text is over the limit of {MAX_STRING_CHARS:,} for one value"


def _long_string(data: Any, limit: int) -> tuple[tuple[Any, ...], int] | None:
    """The place and length of the first string (or key) longer than `limit`. One quick pass without paths
    (a 20,000-hop trace takes a fifth of a second); only a find walks again to name the place."""
    stack = [data]
    pop, extend = stack.pop, stack.extend
    found = False
    while stack and not found:
        value = pop()
        kind = value.__class__  # type(value) for JSON data; a checker keeps it Any, as the value is
        if kind is str:
            found = len(value) > limit
        elif kind is dict:
            found = any(len(k) > limit for k in value)
            extend(value.values())
        elif kind is list:
            extend(value)
    if not found:
        return None
    paths: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while paths:
        value, loc = paths.pop()
        if isinstance(value, str) and len(value) > limit:
            return loc, len(value)
        items = value.items() if is_object(value) else enumerate(value) if is_array(value) else ()
        for key, inner in reversed(list(items)):
            if isinstance(key, str) and len(key) > limit:
                return (*loc, "(a key)"), len(key)
            paths.append((inner, (*loc, key)))
    return None


def clip_text(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, ending with a note of how long it was."""
    if len(text) <= limit:
        return text
    note = f"… [clipped: {len(text):,} characters in all]"
    return text[: max(0, limit - len(note))] + note


def clip_strings(value: Any, limit: int) -> tuple[Any, int]:
    """`value` with every string and key longer than `limit` clipped (`clip_text`), and how many were; parts
    with nothing to clip are the same objects. Raises RecursionError on data nested too deeply to walk."""
    if isinstance(value, str):
        return (value, 0) if len(value) <= limit else (clip_text(value, limit), 1)
    if is_object(value):
        out: dict[str, Any] = {}
        count = 0
        for key, inner in value.items():
            new, n = clip_strings(inner, limit)
            if type(key) is str and len(key) > limit:  # a key built in code may be of another type
                key, n = clip_text(key, limit), n + 1
            out[key], count = new, count + n
        return (out, count) if count else (value, 0)
    if is_sequence(value):
        parts = [clip_strings(inner, limit) for inner in value]
        count = sum(n for _, n in parts)
        return ([new for new, _ in parts], count) if count else (value, 0)
    return value, 0


def _migrate(data: dict[str, Any]) -> dict[str, Any]:
    version = data.get("format_version", FORMAT_VERSION)
    while version in MIGRATIONS:
        data = MIGRATIONS[version](data)
        version += 1
    return data


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _pydantic_problem(exc: ValidationError, data: Any) -> str:
    err = exc.errors()[0]
    where = _path(error_path(data, err["loc"], missing=err["type"] == "missing"))
    if err["type"] == "missing":
        return f"{where}: missing"
    if err["type"] == "literal_error":
        field = str(err["loc"][-1]) if err["loc"] else ""
        what = "actor" if field in ("source", "target") else field
        return f"{where}: unknown {what} {_clipped(err['input'])}"
    if err["type"] == "enum" and err["loc"][-1:] == ("step",):
        return f"{where}: {_clipped(err['input'])} is not a step of the flow (0-10)"
    return f"{where}: {err['msg']}"


_JSON_TYPES: dict[type[object], str] = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true/false",
    type(None): "null",
}


def _json_type(value: object) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _clipped(value: Any, width: int = 60) -> str:
    """A value from the file, quoted for a message: never a whole megabyte on one line."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def trace_problems(data: Any) -> list[str]:
    """Every problem found, each as `json.path: what is wrong`; empty means a usable trace."""
    return _check(data)[0]


def _check(data: Any) -> tuple[list[str], Trace | None]:
    if not is_object(data):
        return [f"(top level): a trace is a JSON object, got {_json_type(data)}"], None
    version = data.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        return ["format_version: missing" if version is None else "format_version: not an integer"], None
    if version > FORMAT_VERSION:
        return [
            f"format_version: {version} was written by a newer version of this tool (this one reads up to "
            f"{FORMAT_VERSION}); update to open it"
        ], None
    if version < 1:
        return [f"format_version: {version} is not a version this tool ever wrote"], None
    bad = json_value_problem(data)
    if bad:
        return [bad], None
    data = _migrate(data)
    try:
        trace = Trace.model_validate(data)
    except ValidationError as exc:
        return [_pydantic_problem(exc, data)], None
    except RecursionError:
        return ["(top level): nested too deeply to be a trace"], None
    problems: list[str] = []
    for i, hop in enumerate(trace.hops):
        if hop.seq != i + 1:
            problems.append(f"hops[{i}].seq: out of order (expected {i + 1}, got {hop.seq})")
        # A server's report of running a tool may come from a call no model asked for: its tools/call's id ties it.
        reported = hop.source == "mcp_server" and hop.jsonrpc_id is not None
        if hop.kind in _NEEDS_TOOL_CALL_ID and not hop.tool_call_id and not reported:
            problems.append(f"hops[{i}].tool_call_id: missing")
        # An answer whose own frame says "id": null (a server that could not read the request's id) has none to carry.
        said_null = isinstance(frame := typed(hop), McpResponse) and frame.payload.get("id", 0) is None
        if hop.kind in _NEEDS_JSONRPC_ID and hop.jsonrpc_id is None and not said_null:
            problems.append(f"hops[{i}].jsonrpc_id: missing")
        if hop.t_end_ms < hop.t_start_ms:
            problems.append(f"hops[{i}].t_end_ms: before t_start_ms")
    payload = payload_problem(trace.hops)
    if payload is not None:
        i, loc, what = payload
        problems.append(f"{_path(('hops', i, 'payload', *loc))}: {what} (a payload of {trace.hops[i].kind})")
    return problems, trace


def json_value_problem(data: Any) -> str | None:
    """`json.path: what is wrong` for the first value no reader can take, or None: text with a lone surrogate
    (half of a UTF-16 pair: it cannot be written as UTF-8, so no page or terminal can show it) or nesting over
    `MAX_DEPTH`. Clean data passes pydantic-core's encoder, which refuses both, in one fast pass; only a refusal
    walks the data to name the place."""
    try:
        pydantic_core.to_json(data, inf_nan_mode="constants")
        return None
    except (pydantic_core.PydanticSerializationError, ValueError, RecursionError):
        pass
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        value, loc = stack.pop()
        if isinstance(value, str):
            if lone := LONE_SURROGATE.search(value):
                return f"{_path(loc)}: text with a lone surrogate (\\u{ord(lone[0]):04x}), not a character"
            continue
        if not (is_object(value) or is_array(value)):
            continue
        if len(loc) >= MAX_DEPTH:
            return f"{_path(loc[:4])}…: nested more than {MAX_DEPTH} levels deep"
        items = value.items() if is_object(value) else enumerate(value)
        for key, inner in reversed(list(items)):
            if isinstance(key, str) and LONE_SURROGATE.search(key):
                return f"{_path(loc)}: a key with a lone surrogate, not a character"
            stack.append((inner, (*loc, key)))
    return "(top level): not JSON data"


def json_schema() -> dict[str, Any]:
    """The format as JSON Schema: the trace's models, and each kind's payload type (for a payload not clipped)."""
    schema = Trace.model_json_schema()
    refs, defs = payload_schemas()
    schema["$defs"].update(defs)
    schema["$defs"]["Hop"]["allOf"] = [
        {
            "if": {"properties": {"kind": {"const": kind}}, "required": ["kind"], "not": {"required": ["clipped"]}},
            "then": {"properties": {"payload": ref}},
        }
        for kind, ref in refs.items()
    ]
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "MCP Flow trace"
    schema["description"] = FORMAT_POLICY
    return schema
