"""The MCP proxy over Streamable HTTP (`python -m flow proxy-http`): the app reaches the demo server (its own
process, behind a bearer token) through it; the token and the session id go through and are never recorded, and
the recording imports as the frames the app recorded itself."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from flow.cli import main
from flow.interop.importers import import_file
from flow.proxy.http import mcp_http_proxy
from flow.trace.files import load_trace
from flow.trace.normalise import normalise
from helpers import TOKEN, DemoServer, start_demo_server, stop_demo_server, unmapped


@pytest.fixture(scope="module")
def demo() -> Iterator[DemoServer]:
    server = start_demo_server(env={"MCP_BEARER_TOKEN": TOKEN})
    yield server
    stop_demo_server(server)


def _frames(hops) -> list[tuple]:
    return [
        (h.kind, h.source, h.target, h.step, h.jsonrpc_id, json.dumps(normalise(h.payload), sort_keys=True))
        for h in hops
        if h.kind.startswith("mcp.")
    ]


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_the_app_through_the_http_proxy(tmp_path, demo, monkeypatch, capsys, era):
    monkeypatch.setenv("MCP_BEARER_TOKEN", TOKEN)
    log, out = tmp_path / "http.jsonl", tmp_path / "run.json"
    served = mcp_http_proxy(demo.url, str(log)).start()
    try:
        code = main(["run", "--server", served.url, "--era", era, "--out", str(out)])
    finally:
        served.stop()
    assert code == 0, capsys.readouterr().err
    app, recorded = load_trace(out), import_file(log)
    mine, theirs = _frames(app.hops), _frames(recorded.hops)
    # Over HTTP each request has its own exchange, so each side's frames are compared in their own order.
    assert [f for f in theirs if f[1] == "mcp_client"] == [f for f in mine if f[1] == "mcp_client"]
    assert [f for f in theirs if f[1] == "mcp_server"] == [f for f in mine if f[1] == "mcp_server"]
    assert len(theirs) >= 6 and recorded.meta.server and recorded.meta.server["transport"] == "streamable-http"
    written = log.read_bytes()
    assert TOKEN.encode() not in written and b"mcp-session-id" not in written.lower()
    session = (app.meta.server or {}).get("session_id")
    if session:
        assert session.encode() not in written
    assert b"authorization" not in written.lower()


def test_a_wrong_token_is_relayed_and_noted(tmp_path, demo, monkeypatch, capsys):
    monkeypatch.setenv("MCP_BEARER_TOKEN", "wrong-token-0a1b2c3d")
    log = tmp_path / "refused.jsonl"
    served = mcp_http_proxy(demo.url, str(log)).start()
    try:
        code = main(["tools", "--server", served.url, "--out", str(tmp_path / "t.json")])
    finally:
        served.stop()
    assert code == 1
    assert "refused the bearer token (HTTP 401)" in capsys.readouterr().err  # as the app says it without a proxy
    written = log.read_text(encoding="utf-8")
    assert "wrong-token-0a1b2c3d" not in written
    recorded = import_file(log)
    assert any("HTTP 401 from the server" in note for note in unmapped(recorded))
