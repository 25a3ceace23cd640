"""An app that speaks OpenAI Responses or Anthropic Messages, recorded through the model proxy over a real socket
(`python -m flow record`) and merged with its MCP server's frames: the merged trace is the one the app records
itself, read by the same API's reader (the same wire, steps, rounds and call ids, the same stream labels and
assembled turn), and its closing words and one-line outcome speak that API's terms."""

from __future__ import annotations

import shlex
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from flow.backends.mock_http import make_server
from flow.trace.files import load_trace
from flow.trace.normalise import normalise
from flow.views.closing import sections
from flow.views.outcome import run_outcome
from helpers import flow_cli

PY = sys.executable


@pytest.fixture
def upstream() -> Iterator[str]:
    """The mock model over HTTP: /v1/chat/completions, /v1/responses and /v1/messages."""
    server = make_server(0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _record(tmp_path: Path, upstream: str, api: str, *options: str) -> tuple:
    """The app (`flow run --api API`) under `record`, its MCP server behind the stdio proxy: the app's own trace and
    the merged one. `record` points OPENAI_BASE_URL at the proxy; the anthropic SDK is given the proxy's address."""
    app, merged, port = tmp_path / "app.json", tmp_path / "merged.json", _free_port()
    server = shlex.join([PY, "-m", "flow", "proxy", "--", PY, "-m", "weather_demo"])
    to_proxy = ["--base-url", f"http://127.0.0.1:{port}"] if api == "messages" else []
    proc = flow_cli(
        "record", "--upstream", upstream, "--port", str(port), "--out", str(merged), "--",
        PY, "-m", "flow", "run", "--api", api, "--model", "mock", *to_proxy, "--server", server,
        "--server-env", "MCP_FLOW_RECORD_DIR", *options, "--out", str(app),
        env={"OPENAI_API_KEY": "sk-test-unused"},
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return load_trace(app), load_trace(merged)


def _shape(trace) -> list[tuple]:
    return [(h.step, h.kind, h.source, h.target, h.round, h.tool_call_id, h.jsonrpc_id) for h in trace.hops]


def _wire(trace) -> list[tuple]:
    out = []
    for h in trace.hops:
        if h.kind.startswith("mcp.") or h.kind == "llm.chunk":
            out.append((h.kind, normalise(h.payload)))
        elif h.kind in ("llm.request", "llm.response"):
            out.append((h.kind, normalise(h.payload["body"])))
    return out


@pytest.mark.parametrize(
    ("api", "options", "path"),
    [
        ("responses", [], "/responses"),
        ("responses", ["--stream"], "/responses"),
        ("responses", ["--previous-response-id"], "/responses"),
        ("messages", [], "/messages"),
        ("messages", ["--stream"], "/messages"),
    ],
    ids=["responses", "responses-stream", "responses-previous-id", "messages", "messages-stream"],
)
def test_an_app_of_each_api_recorded_by_the_proxy_merges_into_its_own_trace(tmp_path, upstream, api, options, path):
    app, merged = _record(tmp_path, upstream, api, *options)
    assert _shape(merged) == _shape(app)
    assert _wire(merged) == _wire(app)
    requests = [h for h in merged.hops if h.kind == "llm.request"]
    assert len(requests) == 2 and all(h.payload["url"].endswith(path) for h in requests)
    assert merged.meta.question == app.meta.question and merged.meta.answer == app.meta.answer
    assert merged.meta.outcome == "ok" and merged.meta.stats["tool_calls"] == app.meta.stats["tool_calls"] == 1
    # one stream reader for the engine, its tap and merge: the same labels and the same assembled turn
    for kind in ("llm.chunk", "llm.assembled"):
        said = [(h.summary.removesuffix(" (inferred)"), h.payload.get("data", h.payload)) for h in merged.hops if h.kind == kind]  # fmt: skip
        assert said == [(h.summary, h.payload.get("data", h.payload)) for h in app.hops if h.kind == kind]
    assert bool(options == ["--stream"]) == any(h.kind == "llm.assembled" for h in merged.hops)
    # the forward translation names where this API wants the schema; the reverse keeps the call as the API wrote it
    forward = next(h for h in merged.hops if h.kind == "translate.forward")
    assert forward.summary.startswith("inputSchema → " + ("input_schema" if api == "messages" else "parameters"))
    reverse = next(h for h in merged.hops if h.kind == "translate.reverse")
    assert reverse.payload["api_call"]["type"] == ("tool_use" if api == "messages" else "function_call")
    # what the merged trace says of itself is in this API's terms
    assert run_outcome(merged).text["en"] == run_outcome(app).text["en"]
    closing = " ".join(i.text for s in sections(merged, "en")[1] for i in s.items)
    assert ("tool_use_id" if api == "messages" else "call_id") in closing and "tool_call_id" not in closing
