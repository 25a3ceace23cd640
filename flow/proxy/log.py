"""What a proxy writes: one JSON line per frame, with its direction and time, in the JSON-RPC log shape the importer
reads (`flow.interop.jsonrpc_log`). Bounded per frame, in lines and in bytes, and written by its own thread, so the
relay never waits on the disk: what does not fit is counted, said in the last line, and relayed all the same."""

from __future__ import annotations

import datetime as dt
import json
import queue
import threading
import time
from pathlib import Path
from typing import Any, Literal, TextIO

from flow.trace.redact import redact, redact_text, secret_values
from flow.trace.writes import unwritable

LOG_VERSION = 1

MAX_FRAME_BYTES = 1 << 20  # a recorded frame, as a trace keeps a hop's payload (`flow.capture.recorder`)

MAX_LOG_BYTES = 40 << 20  # under the 50 MB a trace file (and an imported log) may be

MAX_LOG_LINES = 15_000  # under the 20,000 hops of a trace, with room for the hops an import adds

MAX_QUEUED_BYTES = 32 << 20  # frames waiting for the writer; past this the relay goes on and the frame is dropped

EXCERPT_CHARS = 200  # what a line that is not JSON-RPC, or too long to record, keeps of its start

_END_ROOM = 4096  # kept free for the last line, which says what was left out

Sender = Literal["client_to_server", "server_to_client"]


MAX_SAME_NAME = 1000  # recordings of one name (x.jsonl, x-2.jsonl, ...) before a proxy refuses to start


def create_recording(path: Path) -> tuple[Path, TextIO]:
    """A new file for a recording: `path`, or when a file of that name is there, the next free name (x-2.jsonl,
    x-3.jsonl, ...). A client that restarts its servers, or starts two at once, gets a recording of each: none is
    ever overwritten, and each name is created exclusively, so two proxies starting together never share one."""
    if path.is_dir():
        raise unwritable(path, IsADirectoryError())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise unwritable(path, exc) from None
    for n in range(1, MAX_SAME_NAME + 1):
        candidate = path if n == 1 else path.with_name(f"{path.stem}-{n}{path.suffix}")
        try:
            return candidate, candidate.open("x", encoding="utf-8")
        except FileExistsError:
            continue
        except OSError as exc:
            raise unwritable(candidate, exc) from None
    raise FileExistsError(f"{path}: {MAX_SAME_NAME:,} recordings of this name are there already: name another")


def excerpt(data: bytes) -> str:
    """The start of a line or body too long or too broken to record as JSON, a secret field's value scrubbed from it
    (`"api_key": "…"`) as from JSON; a value cut short at its end is scrubbed to there."""
    text = redact_text(data[: EXCERPT_CHARS * 4].decode("utf-8", errors="replace"))
    return text[:EXCERPT_CHARS] + ("…" if len(text) > EXCERPT_CHARS or len(data) > EXCERPT_CHARS * 4 else "")


def is_frame(value: Any) -> bool:
    """A JSON-RPC message, or a batch of them, as the importer takes one."""
    items = value if isinstance(value, list) and value else [value]
    return all(isinstance(m, dict) and any(k in m for k in ("method", "result", "error")) for m in items)


class ProxyLog:
    """A JSON Lines recording that a relay feeds from its threads; a writer thread encodes and writes it."""

    def __init__(
        self,
        path: str | Path,
        header: dict[str, Any],
        *,
        secrets: list[str] | None = None,
        max_bytes: int = MAX_LOG_BYTES,
        max_lines: int = MAX_LOG_LINES,
        max_frame_bytes: int = MAX_FRAME_BYTES,
    ) -> None:
        self.asked = Path(path)
        self.path, self._file = create_recording(self.asked)
        self.max_bytes, self.max_lines, self.max_frame_bytes = max_bytes, max_lines, max_frame_bytes
        # This process's secret-named variables, and what the command line hid: never written, wherever they appear.
        self._secrets = secret_values(secrets or ())
        self._queue: queue.SimpleQueue[tuple[Any, ...] | None] = queue.SimpleQueue()
        self._queued = 0
        self._lock = threading.Lock()
        self.counts = {"frames": 0, "not_jsonrpc": 0, "too_large": 0, "dropped": 0}
        self._written = 0
        self._lines = 0
        self._full: str | None = None  # why recording stopped
        started = dt.datetime.now(dt.timezone.utc).isoformat()
        self._write({"mcp_flow_proxy": {"version": LOG_VERSION, "started_at": started, **header}, "timestamp": now()})
        self._thread = threading.Thread(target=self._run, name="proxy-log", daemon=True)
        self._thread.start()

    @property
    def renamed(self) -> str | None:
        """What to say when the recording went to the next free name, not the one asked for (`create_recording`)."""
        return None if self.path == self.asked else f"{self.asked} is there already: recording to {self.path}"

    def frame(self, direction: Sender, data: bytes, size: int, t: float, *, session: int | None = None) -> None:
        """One line that crossed (at most `max_frame_bytes + 1` of it, `size` its whole length), and the number of the
        MCP session it belongs to when a transport tells sessions apart; never blocks."""
        with self._lock:
            if self._queued + len(data) > MAX_QUEUED_BYTES:
                self.counts["dropped"] += 1
                return
            self._queued += len(data)
        self._queue.put(("frame", direction, data, size, t, session))

    def add_secrets(self, values: list[str]) -> None:
        """More values never to write (a key a client sent): from now on, scrubbed from every line."""
        fresh = [v for v in values if v not in self._secrets]
        if fresh:
            self._secrets = secret_values([*self._secrets, *fresh])  # a new list: the writer reads the old one whole

    def entry(self, entry: dict[str, Any]) -> None:
        """A line the caller built (a model exchange's request, response or event)."""
        self._queue.put(("entry", entry))

    def note(self, text: str, t: float) -> None:
        """A line that says what happened beside the frames (a client that left mid-request, an answer cut)."""
        self.entry({"note": text, "timestamp": t})

    def close(self, end: dict[str, Any]) -> None:
        """Write what is queued, then the last line (`end`, with what was left out), and close the file."""
        self._queue.put(None)
        self._thread.join(timeout=30)
        with self._lock:
            counts = dict(self.counts)
        final: dict[str, Any] = {**end, **counts}
        if self._full:
            final["stopped"] = self._full
        self._write({"mcp_flow_proxy_end": final, "timestamp": now()}, last=True)
        self._file.close()

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            try:
                if item[0] == "frame":
                    _, direction, data, size, t, session = item
                    with self._lock:
                        self._queued -= len(data)
                    entry = self._frame_entry(direction, data, size, t)
                    self._write({**entry, "session": session} if session is not None else entry)
                else:
                    self._write(item[1])
            except Exception as exc:  # a disk that fills up must not stop the relay: recording stops instead
                self._full = self._full or f"the recording failed: {type(exc).__name__}: {exc}"

    def _frame_entry(self, direction: Sender, data: bytes, size: int, t: float) -> dict[str, Any]:
        base: dict[str, Any] = {"direction": direction, "timestamp": t}
        if size > self.max_frame_bytes:
            self.counts["too_large"] += 1
            return {
                **base,
                "too_large": {"bytes": size, "limit_bytes": self.max_frame_bytes, "line_start": excerpt(data)},
            }
        try:
            message = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError:
            reason = "not UTF-8 text"
        except (ValueError, RecursionError) as exc:
            reason = f"not JSON ({exc.msg})" if isinstance(exc, json.JSONDecodeError) else "not JSON"
        else:
            if is_frame(message):
                self.counts["frames"] += 1
                return {**base, "bytes": size, "message": message}
            reason = "valid JSON, but not a JSON-RPC message"
        self.counts["not_jsonrpc"] += 1
        return {**base, "not_jsonrpc": {"reason": reason, "line_start": excerpt(data), "line_chars": size}}

    def _write(self, entry: dict[str, Any], *, last: bool = False) -> None:
        if self._full and not last:
            self._count_dropped()
            return
        line = json.dumps(redact(entry, self._secrets), ensure_ascii=False, separators=(",", ":"))
        line = line.translate(_LINE_BREAKS) + "\n"
        size = len(line.encode("utf-8"))
        room = self.max_bytes - (0 if last else _END_ROOM)
        if not last and (self._written + size > room or self._lines + 2 > self.max_lines):
            self._full = (
                f"the recording reached its limit of {self.max_lines:,} lines"
                if self._lines + 2 > self.max_lines
                else f"the recording reached its limit of {self.max_bytes / 2**20:g} MiB"
            ) + "; later frames were relayed but not recorded"
            self._count_dropped()
            return
        self._file.write(line)
        self._file.flush()
        self._written += size
        self._lines += 1

    def _count_dropped(self) -> None:
        with self._lock:
            self.counts["dropped"] += 1


# Characters that JSON leaves raw in a string but Python's `str.splitlines` (which the importer reads by) ends a line
# at: written as escapes, so one record is one line for every reader.
_LINE_BREAKS = {c: f"\\u{c:04x}" for c in (0x85, 0x2028, 0x2029)}


def now() -> float:
    return round(time.time(), 6)


class LineSplitter:
    """One direction's bytes cut into lines for the log, keeping at most the frame cap (plus one byte) of any line:
    a flood or a line with no end costs a bounded buffer."""

    def __init__(self, log: ProxyLog, direction: Sender) -> None:
        self._log = log
        self._direction: Sender = direction
        self._cap = log.max_frame_bytes + 1
        self._buf = bytearray()
        self._size = 0

    def feed(self, chunk: bytes, t: float) -> None:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._add(chunk[start:end])
            self._end(t)
            start = end + 1
        self._add(chunk[start:])

    def flush(self, t: float) -> None:
        """A last line with no newline, when its stream ends."""
        if self._size:
            self._end(t)

    def _add(self, piece: bytes) -> None:
        self._size += len(piece)
        room = self._cap - len(self._buf)
        if room > 0:
            self._buf += piece[:room]

    def _end(self, t: float) -> None:
        data, size = bytes(self._buf), self._size
        self._buf.clear()
        self._size = 0
        if data.endswith(b"\r") and size <= self._cap:
            data, size = data[:-1], size - 1
        if data.strip():  # a blank line says nothing
            self._log.frame(self._direction, data, size, t)
