"""Observing the MCP server of a hosted-MCP run: `flow run --mode hosted --server URL --record-server PORT` puts
a recording proxy on 127.0.0.1:PORT in front of the operator's server and tells the provider to use it, so the frames
the provider's MCP client sends cross a wire the run sees. They are recorded into the run as they cross (observed,
between the server and the provider's client), beside the provider's report of them, and paired with it.

A real provider reaches 127.0.0.1 only when it runs on this machine; one on the internet reaches the proxy through
whatever the operator puts in front of it (a tunnel, a reverse proxy), named with `--public-url`. The proxy is the
`flow proxy-http` relay: it passes the client's own Authorization through and adds no credential of its own.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.requests import Request

from flow.capture.mcp import FrameTap
from flow.capture.recorder import Recorder
from flow.proxy.http import TIMEOUT_S, McpRecording, Relay, Served, bind, recording_log, upstream_parts
from flow.proxy.log import ProxyLog
from flow.trace.model import is_object
from flow.trace.redact import redact_url, url_secrets
from flow.trace.steps import Step


def _frames(data: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages in a body or an event's data: one, or a batch; none when it is not JSON."""
    try:
        value = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return []
    values = value if isinstance(value, list) else [value]
    return [v for v in values if is_object(v)]


class LiveMcpRecording(McpRecording):
    """The proxy's recording, and each frame recorded into the run as it crosses: the client's frames as sent, the
    server's paired with the requests they answer."""

    def __init__(self, log: ProxyLog, recorder: Recorder) -> None:
        super().__init__(log)
        self.tap = FrameTap(recorder)

    def request(self, n: int, request: Request, sent: list[tuple[str, str]], body: bytes, size: int, t: float) -> None:
        super().request(n, request, sent, body, size, t)
        rec = self.tap.recorder
        for frame in _frames(body):
            kept = rec.step
            if frame.get("method") != "tools/call":  # set-up and listing: what the provider does before it calls
                rec.step = Step.LIST_TOOLS
            try:
                self.tap.sent(frame)
            finally:
                rec.step = kept

    def event(self, n: int, data: bytes, size: int, t: float) -> None:
        super().event(n, data, size, t)
        for frame in _frames(data):
            self.tap.received(frame)

    def body(self, n: int, data: bytes, size: int, t: float) -> None:
        json_answer = n in self._json
        super().body(n, data, size, t)
        if json_answer:
            for frame in _frames(data):
                self.tap.received(frame)


@contextlib.contextmanager
def observing(upstream: str, recorder: Recorder, *, port: int = 0) -> Iterator[str]:
    """A recording proxy in front of `upstream` on 127.0.0.1:`port` for as long as the block runs, its frames recorded
    into `recorder`; yields the proxy's URL."""
    base, query = upstream_parts(upstream)
    url = base + (f"?{query}" if query else "")
    sock = bind(port)
    local = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    with tempfile.TemporaryDirectory(prefix="flow-observe-") as folder:
        header = {"transport": "streamable-http", "upstream": redact_url(upstream), "listen": local}
        log = recording_log(sock, str(Path(folder) / "server.jsonl"), header, url_secrets(upstream))
        relay = Relay(lambda path: url, LiveMcpRecording(log, recorder), timeout_s=TIMEOUT_S)
        served = Served(relay, sock, local).start()
        try:
            yield local
        finally:
            served.stop()
