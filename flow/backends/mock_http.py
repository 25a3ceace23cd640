"""The mock model served over HTTP, so any client of Chat Completions, Responses or Anthropic Messages can talk to it
(`/v1/chat/completions`, `/v1/responses`, `/v1/messages`)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio

from flow.backends.mock import MODEL_NAMES, ROUTES, answer, sse_events
from flow.backends.mock_apis import new_store
from flow.backends.mock_hosted import is_hosted, respond_hosted
from flow.capture.recorder import NullRecorder
from flow.engine.hosted import McpGrant


class _Handler(BaseHTTPRequestHandler):
    server_version = "flow-mock-model/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the trace is the log
        pass

    def _send_json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(
                200, {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "flow"} for m in MODEL_NAMES]}
            )
        else:
            self._send_json(404, {"error": {"message": f"No route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        key = getattr(self.server, "api_key", None)
        sent = self.headers.get("x-api-key") or (self.headers.get("authorization") or "").removeprefix("Bearer ")
        if key and sent != key:  # a bearer token (both SDKs), or Anthropic's x-api-key header
            if self.path.split("?")[0].rstrip("/").endswith("/messages"):
                refused = {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}
                self._send_json(401, refused)
                return
            self._send_json(
                401,
                {
                    "error": {
                        "message": "Incorrect API key provided.",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
            )
            return
        if not self.path.split("?")[0].rstrip("/").endswith(ROUTES):
            self._send_json(404, {"error": {"message": f"No route {self.path}", "type": "not_found"}})
            return
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            self._send_json(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
            return
        path = self.path.split("?")[0]
        grant: McpGrant | None = self.server.grant  # type: ignore[attr-defined]
        if grant is not None and isinstance(body, dict) and is_hosted(body) and path.rstrip("/").endswith(ROUTES[1:]):
            reply = anyio.run(respond_hosted, path, body, self.server.responses, grant)  # type: ignore[attr-defined]
        else:
            reply = answer(path, body, self.server.responses)  # type: ignore[attr-defined]
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if reply.chunks is None:
            self._send_json(reply.status, reply.body or {})
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        for event in sse_events(reply.chunks, named=reply.named):
            self.wfile.write(event)
            self.wfile.flush()
        self.close_connection = True


def make_server(
    port: int, host: str = "127.0.0.1", api_key: str | None = None, allow_mcp: Sequence[str] = ()
) -> ThreadingHTTPServer:
    """`api_key`: when set, requests must carry it as a bearer token, or get 401 as from a real provider.
    `allow_mcp`: the MCP servers the mock may reach as a hosted-MCP provider's client (its frames are not recorded:
    as with a real provider, only a recording at the server sees them)."""
    server = ThreadingHTTPServer((host, port), _Handler)
    server.grant = (  # type: ignore[attr-defined]
        McpGrant(frozenset(allow_mcp), NullRecorder(), "handshake", 30.0) if allow_mcp else None
    )
    server.daemon_threads = True
    server.api_key = api_key  # type: ignore[attr-defined]
    server.responses = new_store()  # type: ignore[attr-defined]  # what its Responses endpoint answered
    return server


def serve(port: int, host: str = "127.0.0.1", api_key: str | None = None, allow_mcp: Sequence[str] = ()) -> None:
    server = make_server(port, host, api_key, allow_mcp)
    print(
        f"mock model listening on http://{host}:{server.server_address[1]}/v1 (models: {', '.join(MODEL_NAMES)})"
        + (" · API key required" if api_key else ""),
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
