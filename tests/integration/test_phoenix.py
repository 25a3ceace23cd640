"""The export seen by a real tracing backend: Arize Phoenix, started from its own venv (.venv-phoenix/, which
./dev.sh test installs from tests/phoenix/uv.lock), gets a sample's spans over OTLP/HTTP from `python -m flow
export --otlp-endpoint`, and its REST API gives back the same tree, names, GenAI and MCP attributes."""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanContext

from flow.cli import main
from flow.interop.otlp import to_spans
from flow.trace.files import load_trace
from flow.trace.pairing import exchanges, tool_calls
from helpers import ROOT

PHOENIX = ROOT / ".venv-phoenix" / "bin" / "phoenix"
SAMPLE = ROOT / "sample_traces" / "beijing-mcp.json"
START_TIMEOUT_S = 120  # importing Phoenix alone took 36-48 s on a busy 2-CPU machine; it then migrates its database
ARRIVAL_TIMEOUT_S = 30
PROJECT = "default"  # the spans carry no openinference.project.name


def _ids(span: ReadableSpan) -> SpanContext:
    """The span's trace and span ids, which every span the exporter builds has."""
    assert span.context is not None, span.name
    return span.context


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str, timeout: float = 5) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as response:  # a loopback URL built here
        return json.loads(response.read())


@dataclass
class Phoenix:
    url: str
    log: Path

    def tail(self, n: int = 30) -> str:
        return "\n".join(self.log.read_text(encoding="utf-8", errors="replace").splitlines()[-n:])


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    """`phoenix serve` on free loopback ports (HTTP and gRPC), with a SQLite database in a temporary working
    directory and its telemetry off; stopped after the module's tests."""
    if not PHOENIX.exists():
        pytest.fail(f"{PHOENIX.relative_to(ROOT)} is missing: run ./dev.sh test (it installs tests/phoenix/uv.lock)")
    work = tmp_path_factory.mktemp("phoenix")
    port, grpc_port = _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PHOENIX_", "OTEL_"))}
    env.update(
        PHOENIX_WORKING_DIR=str(work),
        PHOENIX_SQL_DATABASE_URL=f"sqlite:///{work / 'phoenix.db'}",
        PHOENIX_HOST="127.0.0.1",
        PHOENIX_PORT=str(port),
        PHOENIX_GRPC_PORT=str(grpc_port),
        PHOENIX_TELEMETRY_ENABLED="false",
        PHOENIX_LOG_MIGRATIONS="false",
    )
    log = work / "phoenix.log"
    server = Phoenix(f"http://127.0.0.1:{port}", log)
    with log.open("wb") as out:
        proc = subprocess.Popen([str(PHOENIX), "serve"], cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"phoenix serve exited with {proc.returncode} before it answered:\n{server.tail()}")
            try:
                with urllib.request.urlopen(f"{server.url}/healthz", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"phoenix serve did not answer /healthz within {START_TIMEOUT_S} s:\n{server.tail()}")
            time.sleep(0.25)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _phoenix_spans(phoenix: Phoenix, trace_id: str, want: int) -> list[dict[str, Any]]:
    """The trace's spans as Phoenix's REST API lists them, once `want` have arrived (or what there is after
    ARRIVAL_TIMEOUT_S)."""
    deadline = time.monotonic() + ARRIVAL_TIMEOUT_S
    while True:
        data = _get(f"{phoenix.url}/v1/projects/{PROJECT}/spans?limit=1000")["data"]
        spans = [s for s in data if s["context"]["trace_id"] == trace_id]
        if len(spans) >= want or time.monotonic() > deadline:
            return spans
        time.sleep(0.5)


def _iso(ns: int | None) -> dt.datetime:
    assert ns is not None
    return dt.datetime.fromtimestamp(ns // 1000 / 1e6, tz=dt.timezone.utc)


def test_phoenix_shows_the_exported_trace_whole(phoenix, capsys):
    trace = load_trace(SAMPLE)
    expected = to_spans(trace)
    endpoint = phoenix.url  # the base URL: the exporter adds /v1/traces, where Phoenix takes OTLP/HTTP
    assert main(["export", str(SAMPLE), "--otlp-endpoint", endpoint]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.splitlines() == [f"{len(expected)} spans sent to {endpoint}"]

    trace_id = format(_ids(expected[0]).trace_id, "032x")
    got = _phoenix_spans(phoenix, trace_id, len(expected))
    assert len(got) == len(expected) == 13, f"{len(got)} of {len(expected)} spans arrived:\n{phoenix.tail()}"

    # The same spans, by id (ids are derived from the trace), with the same names, times and status.
    want = {format(_ids(s).span_id, "016x"): s for s in expected}
    by_id = {s["context"]["span_id"]: s for s in got}
    assert set(by_id) == set(want)
    for span_id, span in want.items():
        seen = by_id[span_id]
        assert seen["name"] == span.name
        assert seen["parent_id"] == (format(span.parent.span_id, "016x") if span.parent else None)
        assert dt.datetime.fromisoformat(seen["start_time"]) == _iso(span.start_time)
        assert dt.datetime.fromisoformat(seen["end_time"]) == _iso(span.end_time)
        assert seen["status_code"] == span.status.status_code.name
        # every attribute the exporter wrote came back with its value (Phoenix adds its own llm.*, tool.*, ...)
        for key, value in (span.attributes or {}).items():
            assert key in seen["attributes"], f"{span.name}: {key} missing"
            assert seen["attributes"][key] == (list(value) if isinstance(value, tuple) else value), (span.name, key)

    # The tree: one root, the run; every other span's parent is in the trace; the same (name, parent name) pairs.
    names = {s["context"]["span_id"]: s["name"] for s in got}
    [root] = [s for s in got if s["parent_id"] is None]
    assert root["name"] == "invoke_agent mcp-flow-app"
    assert all(s["parent_id"] in names for s in got if s is not root)
    expected_names = {format(_ids(s).span_id, "016x"): s.name for s in expected}
    assert sorted((s["name"], names.get(s["parent_id"])) for s in got) == sorted(
        (s.name, expected_names[format(s.parent.span_id, "016x")] if s.parent else None) for s in expected
    )
    assert sorted((s["name"], names.get(s["parent_id"])) for s in got) == sorted(
        [
            ("invoke_agent mcp-flow-app", None),
            ("initialize", "invoke_agent mcp-flow-app"),
            ("initialize", "initialize"),
            ("notifications/initialized", "invoke_agent mcp-flow-app"),
            ("notifications/initialized", "notifications/initialized"),
            ("tools/list", "invoke_agent mcp-flow-app"),
            ("tools/list", "tools/list"),
            ("chat mock", "invoke_agent mcp-flow-app"),
            ("chat mock", "invoke_agent mcp-flow-app"),
            ("execute_tool get_weather", "invoke_agent mcp-flow-app"),
            ("tools/call get_weather", "execute_tool get_weather"),
            ("tools/call get_weather", "tools/call get_weather"),
            ("get_weather", "tools/call get_weather"),
        ]
    )

    # Named attributes checked against the recording itself, not only against what to_spans() built.
    attrs = [(s["name"], s["attributes"]) for s in got]
    model = trace.meta.model["name"]
    agent = root["attributes"]
    assert (agent["gen_ai.operation.name"], agent["gen_ai.agent.name"]) == ("invoke_agent", "mcp-flow-app")
    assert (agent["gen_ai.provider.name"], agent["gen_ai.request.model"]) == ("openai", model)
    chats = [a for name, a in attrs if name.startswith("chat ")]
    assert len(chats) == 2
    for chat in chats:
        assert chat["gen_ai.operation.name"] == "chat" and chat["gen_ai.provider.name"] == "openai"
        assert chat["gen_ai.request.model"] == chat["gen_ai.response.model"] == model
        assert chat["gen_ai.response.id"].startswith("chatcmpl-")
        assert chat["gen_ai.usage.input_tokens"] > 0 and chat["gen_ai.usage.output_tokens"] > 0
        assert json.loads(chat["gen_ai.input.messages"])[0]["role"] in ("system", "user")
        assert {"get_weather"} <= {t["name"] for t in json.loads(chat["gen_ai.tool.definitions"])}
    assert sorted(c["gen_ai.response.finish_reasons"][0] for c in chats) == ["stop", "tool_calls"]

    [call_id] = tool_calls(trace.hops)  # the one tool call the model asked for
    [tool] = [a for name, a in attrs if name == "execute_tool get_weather"]
    assert (tool["gen_ai.operation.name"], tool["gen_ai.tool.name"]) == ("execute_tool", "get_weather")
    assert tool["gen_ai.tool.call.id"] == call_id and tool["gen_ai.tool.type"] == "function"
    assert json.loads(tool["gen_ai.tool.call.arguments"]) == {"city": "北京"}
    assert json.loads(tool["gen_ai.tool.call.result"])["city_en"] == "Beijing"
    [function] = [a for name, a in attrs if name == "get_weather"]
    assert function["gen_ai.tool.call.id"] == call_id and function["code.function.name"] == "get_weather"

    # The MCP spans: each exchange's method, JSON-RPC id and protocol version, as the recording has them.
    sent = {str(ex.request.jsonrpc_id): ex for ex in exchanges(trace.hops) if ex.request.jsonrpc_id is not None}
    mcp = [(name, a) for name, a in attrs if "mcp.method.name" in a]
    assert len(mcp) == 8  # 4 exchanges, each a CLIENT span and the server's SERVER span
    protocol = (trace.meta.server or {})["protocol_version"]
    for name, a in mcp:
        assert name.split(" ")[0] == a["mcp.method.name"] and a["mcp.protocol.version"] == protocol
        if a["mcp.method.name"].startswith("notifications/"):
            assert "jsonrpc.request.id" not in a
        else:
            assert sent[a["jsonrpc.request.id"]].request.payload["method"] == a["mcp.method.name"]
    assert sorted(a["mcp.method.name"] for _, a in mcp) == sorted(
        2 * ["initialize", "notifications/initialized", "tools/list", "tools/call"]
    )
    calls = [a for _, a in mcp if a["mcp.method.name"] == "tools/call"]
    assert all(a["gen_ai.tool.name"] == "get_weather" for a in calls)
    [carried] = [rpc_id for rpc_id, ex in sent.items() if ex.tool_call_id == call_id]
    assert [a["jsonrpc.request.id"] for a in calls] == [carried, carried]
