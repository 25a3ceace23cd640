"""A JSON-RPC message log (the MCP Inspector's and MCP sniffers' shape: one message a line, in JSON Lines, with its
direction and time) as a trace of MCP frames between the MCP client and server, paired as the live tap pairs them."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flow.interop.common import SERVER_METHODS, Hops, NothingRecorded, finish, json_line, method_step, quoted
from flow.trace import hops
from flow.trace.files import TraceError
from flow.trace.model import MAX_COUNT, Actor, ImportInfo, Trace, TraceMeta, as_dict
from flow.trace.pairing import Pairing, Request
from flow.trace.payloads import ErrorPayload
from flow.trace.reports import RefusedReport, placed, read_report, refused_note
from flow.trace.rounds import reply_step
from flow.trace.summaries import amount_text, frame_kind, frame_summary, progress_summary

# How a log names the way a message went, seen from the client (the Inspector is a client).
_DIRECTIONS = {
    "outgoing": "client",
    "send": "client",
    "sent": "client",
    "client_to_server": "client",
    "request": "client",
    "incoming": "server",
    "recv": "server",
    "received": "server",
    "server_to_client": "server",
    "response": "server",
}


def _timestamp(value: Any, where: str) -> float | None:
    """Seconds since the epoch, from an ISO 8601 time or an epoch number (s, ms, µs or ns by size)."""
    if value is None:
        return None
    seconds: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        seconds = float(value)
        for scale in (1e18, 1e15, 1e12):
            if abs(value) >= scale / 1e1:
                seconds = value / (scale / 1e9)
                break
    elif isinstance(value, str):
        try:
            moment = dt.datetime.fromisoformat(value.strip())
            seconds = (moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)).timestamp()
        except (ValueError, OverflowError):
            pass
    if seconds is None:
        raise TraceError(f"{where}: timestamp {quoted(value)} is neither an ISO 8601 time nor an epoch number")
    if not _EPOCH_RANGE[0] <= seconds <= _EPOCH_RANGE[1]:
        raise TraceError(f"{where}: timestamp {quoted(value)} is not between the years 1970 and 9999")
    return seconds


_EPOCH_RANGE = (0.0, 253402300799.0)  # 1970-01-01 to 9999-12-31, what a datetime can show


def _rpc_key(value: Any, what: str, where: str) -> Any:
    """A JSON-RPC id or method as the log holds it, refused when it is not one (an object, an array, a fraction)."""
    if value is None or isinstance(value, str) or (what == "id" and type(value) is int):
        return value
    raise TraceError(
        f"{where}: a JSON-RPC {what} is a string{' or an integer' if what == 'id' else ''}, not {quoted(value)}"
    )


@dataclass
class _Line:
    lineno: int
    sender: str | None  # "client" or "server"; None when the log does not say
    time_s: float | None
    frame: dict[str, Any]
    problem: dict[str, Any] | None = None  # a line a proxy relayed but could not record as a frame: what it noted
    session: int | None = None  # the MCP session it crossed in, as a proxy-http numbers them


@dataclass
class _Proxied:
    """What `python -m flow proxy` says about its recording beside the frames: its first and last lines."""

    header: dict[str, Any]
    end: dict[str, Any]
    notes: list[str] = field(default_factory=list)  # what the transport said (an HTTP error status, a cut stream)


# A proxy's note in place of a frame (`flow.proxy.log`): a line that is not JSON-RPC, or one too long to record.
_PROBLEMS = ("not_jsonrpc", "too_large")


def _log_lines(text: str, name: str, proxied: _Proxied) -> list[_Line]:
    lines: list[_Line] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        where = f"{name} line {lineno}"
        entry = json_line(raw, where)
        if isinstance(entry, dict) and _proxy_line(entry, lineno, where, proxied, lines):
            continue
        message, sender, time_s = _message(entry, where)
        session = _session(entry)
        for frame in message if isinstance(message, list) else [message]:  # a JSON-RPC batch is several frames
            if not isinstance(frame, dict) or not any(k in frame for k in ("method", "result", "error")):
                raise TraceError(f"{where}: not a JSON-RPC message (no method, result or error)")
            _rpc_key(frame.get("id"), "id", where)
            _rpc_key(frame.get("method"), "method", where)
            lines.append(_Line(lineno, sender, time_s, frame, session=session))
    if not lines:
        raise NothingRecorded(name)
    return lines


def _session(entry: Any) -> int | None:
    """The session number a proxy-http wrote on a frame's line (`flow.proxy.http.McpRecording`), if a sound one."""
    value = entry.get("session") if isinstance(entry, dict) else None
    return value if type(value) is int and 0 < value <= MAX_COUNT else None


def _proxy_line(entry: dict[str, Any], lineno: int, where: str, proxied: _Proxied, lines: list[_Line]) -> bool:
    """Whether the entry is what a proxy says beside the frames: its first or last line, a note, or a line it relayed
    but could not record (kept in `lines`, for its hop)."""
    if isinstance(entry.get("mcp_flow_proxy"), dict):
        proxied.header = entry["mcp_flow_proxy"]
    elif isinstance(entry.get("mcp_flow_proxy_end"), dict):
        proxied.end = entry["mcp_flow_proxy_end"]
    elif isinstance(entry.get("note"), str) and "message" not in entry:
        proxied.notes.append(f"line {lineno}: {entry['note'][:200]}")
    elif (noted := next((key for key in _PROBLEMS if isinstance(entry.get(key), dict)), None)) is not None:
        sender = _DIRECTIONS.get(str(entry.get("direction")).lower())
        time_s = _timestamp(entry.get("timestamp"), where)
        lines.append(_Line(lineno, sender, time_s, {}, {"noted": noted, **entry[noted]}, _session(entry)))
    else:
        return False
    return True


def _message(entry: Any, where: str) -> tuple[Any, str | None, float | None]:
    """A line's message (a frame or a batch), who sent it and when, as far as the line says."""
    if isinstance(entry, list) or (
        isinstance(entry, dict)
        and "message" not in entry
        and any(k in entry for k in ("jsonrpc", "method", "result", "error"))
    ):
        return entry, None, None  # a bare frame, or a bare batch
    if not isinstance(entry, dict):
        raise TraceError(f"{where}: expected a JSON object, got {type(entry).__name__}")
    message = entry.get("message", entry.get("frame"))
    if isinstance(message, str):  # some loggers keep the frame as the text that crossed the wire
        message = json_line(message, f"{where}: message")
    direction = entry.get("direction")
    sender = None
    if direction is not None:
        sender = _DIRECTIONS.get(str(direction).strip().lower().replace("-", "_").replace(" ", "_"))
        if sender is None:
            raise TraceError(
                f"{where}: unknown direction {quoted(direction)} (expected outgoing or incoming, "
                "client_to_server or server_to_client, send or recv)"
            )
    return message, sender, _timestamp(entry.get("timestamp", entry.get("time", entry.get("ts"))), where)


def _reported(out: Hops, asked: Request, result: Any, t_ms: float) -> str | None:
    """A server's report of running the tool, in its answer to a tools/call: the two hops the MCP tap records from
    it, by the same rules (`flow.trace.reports`); or the answer's line saying why it was refused."""
    try:
        report = read_report(result, tool=asked.params.get("name"))
    except RefusedReport as exc:
        return refused_note(frame_summary({"result": result}, "tools/call"), str(exc))
    if report is None:
        return None
    began, ended = placed(asked.t_ms, t_ms, report)
    invoked, returned = hops.run_reported(report, jsonrpc_id=asked.id, call_id=None)
    out.add(invoked, t_start_ms=began, t_end_ms=began, rnd=asked.round)
    out.add(returned, t_start_ms=began, t_end_ms=ended, rnd=asked.round)
    return None


def _count(value: Any) -> int:
    return value if type(value) is int and 0 <= value <= MAX_COUNT else 0


def _noted(out: Hops, line: _Line, pairing: Pairing, t_ms: float) -> None:
    """A line the proxy relayed but could not record as a frame: an error hop from its sender, where it came (a
    server's line in the step of the request it was handling), as the live tap records a line that is not JSON-RPC."""
    problem = line.problem or {}
    from_client = line.sender == "client"
    start = str(problem.get("line_start") or "")
    step = None
    if not from_client and (handling := pairing.latest("client")) is not None:
        step = handling.answer_step
    payload: ErrorPayload
    if problem.get("noted") == "too_large":
        size = _count(problem.get("bytes"))
        payload = {
            "error": "message too large to record",
            "bytes": size,
            "limit_bytes": _count(problem.get("limit_bytes")),
            "line_start": start,
        }
        summary = f"a message of {amount_text(size)}, relayed but too long to record: {quoted(start, 40)}"
    else:
        payload = {
            "error": "not JSON-RPC",
            "reason": str(problem.get("reason") or ""),
            "line_start": start,
            "line_chars": _count(problem.get("line_chars")),
        }
        summary = f"a line that is not JSON-RPC ({payload['reason']}): {quoted(start, 40)}"
    relayed = hops.line_unrecorded(payload, summary, from_client=from_client, step=step)
    out.add(relayed, t_start_ms=t_ms, t_end_ms=t_ms)


def _proxy_notes(proxied: _Proxied, server: dict[str, Any], settings: dict[str, Any]) -> list[str]:
    """What the proxy's first and last lines say: how the server was reached, and what was left out."""
    header, end = proxied.header, proxied.end
    transport = header.get("transport")
    server["transport"] = transport if transport in ("stdio", "streamable-http") else server["transport"]
    command = header.get("command")
    if isinstance(command, list) and all(isinstance(a, str) for a in command):
        settings["server_command"] = " ".join(command)[:2000]
    if isinstance(header.get("upstream"), str):
        settings["server_url"] = header["upstream"][:2000]
    notes = list(proxied.notes)
    if not end:
        notes.append("the recording has no last line: its proxy is still running, or was killed before it could end it")
    if _count(end.get("dropped")):
        stopped = str(end.get("stopped") or "the writer fell behind")
        notes.append(f"{_count(end['dropped'])} lines were relayed but not recorded ({stopped})")
    if isinstance(end.get("exit_code"), int):
        notes.append(f"the server exited with code {end['exit_code']}")
    return notes


def _sides(sender: str) -> tuple[Actor, Actor]:
    return ("mcp_client", "mcp_server") if sender == "client" else ("mcp_server", "mcp_client")


class _LogImport:
    """A log's lines read in order: the hops so far, the requests still open (by the side that sent them, "client"
    or "server", and their id), the tool round, what the log says of its server, and what it leaves out."""

    def __init__(self, name: str, *, sessions: int = 0) -> None:
        self.out = Hops(name)
        self.pairing = Pairing()
        # Each session its own requests and ids (every inspector session's initialize is id 0): paired apart, and
        # each frame says its session when there are several
        self.pairings: dict[int | None, Pairing] = {None: self.pairing}
        self.sessions = sessions
        self.tool_round = 0
        self.server: dict[str, Any] = {
            "name": "mcp-server",
            "transport": None,
            "protocol_version": None,
            "era": "handshake",
        }
        self.unmapped: list[str] = []

    def read(self, line: _Line, t_ms: float) -> None:
        self.pairing = self.pairings.setdefault(line.session, Pairing())
        if self.sessions > 1:
            self.out.session = line.session
        if line.problem is not None:
            _noted(self.out, line, self.pairing, t_ms)
        elif line.frame.get("method") is not None:
            self.said(line, line.sender or self.sender_of(line.frame), t_ms)
        else:
            self.answered(line, line.sender or self.sender_of(line.frame), t_ms)

    def sender_of(self, frame: dict[str, Any]) -> str:
        """Who sent a frame the log does not say: a method by the spec's sides; an answer goes back to whoever
        asked, and the server answers unless only it asked."""
        method = frame.get("method")
        if method is not None:
            return "server" if method in SERVER_METHODS else "client"
        rid = frame.get("id")
        asked_by_server = self.pairing.is_open("server", rid) and not self.pairing.is_open("client", rid)
        return "client" if asked_by_server else "server"

    def said(self, line: _Line, sender: str, t_ms: float) -> None:
        """A request or a notification, in the step and round of what it belongs to."""
        frame, method = line.frame, str(line.frame["method"])
        step = method_step(method)
        if method == "tools/call" and not any(r.method == "tools/call" for r in self.pairing.unanswered):
            self.tool_round += 1  # calls sent while others are still open belong to the same round
        rnd = self.tool_round if method == "tools/call" else 0
        params = as_dict(frame.get("params"))
        summary, progress_of = frame_summary(frame, None), None
        is_request = frame.get("id") is not None  # "id": null is discouraged and answered by no one
        if sender == "server" and not is_request and (reported := self.pairing.progress(params.get("progressToken"))):
            # tied to its request by token
            progress_of, step, rnd = reported.id, reported.step, reported.round
            summary = progress_summary(params, reported.what)
        elif sender == "server":
            # a log line, or a request back to the client (sampling, elicitation, roots), said while the server
            # handles the latest request
            handling = self.pairing.latest("client")
            step, rnd = (method_step(handling.method), handling.round) if handling else (step, rnd)
        if is_request:
            self.pairing.request(sender, frame["id"], method, params, step=step, t_ms=t_ms, seq=line.lineno, rnd=rnd)
        if method == "server/discover":
            self.server["era"] = "modern"
        # The 2026 protocol states its version on every request instead of agreeing on it once.
        stated = as_dict(params.get("_meta")).get("io.modelcontextprotocol/protocolVersion")
        self.server["protocol_version"] = self.server["protocol_version"] or stated
        source, target = _sides(sender)
        said = hops.frame(frame, source=source, target=target, step=step, summary=summary, progress_of=progress_of)
        self.out.add(said, t_start_ms=t_ms, t_end_ms=t_ms, rnd=rnd)

    def answered(self, line: _Line, sender: str, t_ms: float) -> None:
        """A response or an error, in the step of the request it answers, from when that request was sent."""
        frame = line.frame
        asked = self.pairing.reply("client" if sender == "server" else "server", frame.get("id"))
        if asked is None:  # the log may start after the request was sent
            self.unmapped.append(
                f"line {line.lineno}: an answer to id {quoted(frame.get('id'))}, whose request is not in the log"
            )
        method = asked.method if asked is not None else None
        result = frame.get("result")
        if method in ("initialize", "server/discover") and isinstance(result, dict):
            self.introduced(result)
        summary = frame_summary(frame, method)
        if asked is not None and method == "tools/call" and frame_kind(frame) == "mcp.response" and sender == "server":
            summary = _reported(self.out, asked, result, t_ms) or summary
        source, target = _sides(sender)
        step = None
        if asked is not None:  # the client's answer to the server's request is in the step it was asked in
            step = reply_step(asked.step, frame) if sender == "server" else asked.step
        answer = hops.frame(frame, source=source, target=target, step=step, summary=summary)
        t_start, rnd = (asked.t_ms, asked.round) if asked is not None else (t_ms, 0)
        self.out.add(answer, t_start_ms=t_start, t_end_ms=t_ms, rnd=rnd)

    def introduced(self, result: dict[str, Any]) -> None:
        """What the server says of itself when a session opens (initialize) or it is asked (server/discover)."""
        server = self.server
        info = as_dict(
            result.get("serverInfo") or as_dict(result.get("_meta")).get("io.modelcontextprotocol/serverInfo")
        )
        server.update(
            name=str(info.get("name") or server["name"]),
            server_info=info or None,
            protocol_version=result.get("protocolVersion") or server["protocol_version"],
        )


def import_jsonrpc_log(text: str, *, name: str) -> Trace:
    """A JSON-RPC message log, one message a line, as MCP frames between the MCP client and server.

    A line without a direction is placed by its method: requests and notifications the MCP spec has the
    server send go server to client, every other one client to server; a response goes back to whoever
    sent the request with its id (server to client when no such request is in the log)."""
    proxied = _Proxied({}, {})
    lines = _log_lines(text, name, proxied)
    times = [line.time_s for line in lines if line.time_s is not None]
    t0 = times[0] if times else 0.0
    sessions = {line.session for line in lines if line.session is not None}
    job = _LogImport(name, sessions=len(sessions))
    t_ms = 0.0
    for line in lines:
        t_ms = (line.time_s - t0) * 1000 if line.time_s is not None else t_ms
        job.read(line, t_ms)
    unmapped = job.unmapped
    for req in (r for pairing in job.pairings.values() for r in pairing.unanswered):
        unmapped.append(f"line {req.seq}: {req.method} got no response in the log")
    if len(sessions) > 1:
        unmapped.append(f"{len(sessions)} MCP sessions crossed the proxy: each frame says which (session 1, 2, ...)")
    if not times:
        unmapped.append("no timestamps: every hop is placed at 0 ms")
    unmapped.append("a JSON-RPC log holds only MCP frames: no question, model calls or answer")
    settings: dict[str, Any] = {}
    if proxied.header:
        unmapped += _proxy_notes(proxied, job.server, settings)
    started = dt.datetime.fromtimestamp(t0, dt.timezone.utc).isoformat() if times else ""
    meta = TraceMeta(
        mode="mcp",
        question=f"({'recorded by python -m flow proxy' if proxied.header else 'imported JSON-RPC log'} "
        f"{Path(name).name})",
        server=job.server,
        settings=settings,
        started_at=started,
        imported=ImportInfo(format="jsonrpc-jsonl", file=name, unmapped=unmapped),
    )
    return finish(meta, job.out.hops, name)
