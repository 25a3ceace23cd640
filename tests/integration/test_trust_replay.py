"""A trace is data, never instructions: `replay` runs no program, reads no variable and contacts no URL that a
file names. It re-runs the tools on the demo server, on a server named on the command line, or (for a recording
of another server) serves the recorded results back and says so."""

from __future__ import annotations

import json
import re
import shlex
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flow import ModelConfig, RunOptions, run
from flow.backends.replay import REPLAY_BASE_URL, replay
from flow.engine.options import MAX_REPLAY_ROUNDS
from flow.trace.files import TraceError, load_trace
from helpers import ROOT, flow_cli, replay_report, server_facts

SAMPLE = ROOT / "sample_traces" / "beijing-mcp.json"
DEMO_COMMAND = [sys.executable, "-m", "weather_demo"]
OPENAI_KEY = "sk-operator-key-never-leaves-0123456789"


def _tampered(tmp_path: Path, name: str = "tampered", **meta: Any) -> Path:
    """The Beijing sample with some of its `meta` replaced (`settings` merged), written as a new file."""
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    for key, value in meta.items():
        if key == "settings":
            data["meta"]["settings"].update(value)
        else:
            data["meta"][key] = value
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


class CountingServer:
    """A local TCP listener that only counts who connects: anything a replay sends it is a leak."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.received = b""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            with conn:
                conn.settimeout(1)
                try:
                    self.received += conn.recv(65536)
                except OSError:
                    pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


@pytest.fixture
def counting_server() -> Iterator[CountingServer]:
    server = CountingServer()
    try:
        yield server
    finally:
        server.close()


def test_replay_never_runs_the_command_a_trace_names(tmp_path):
    marker = tmp_path / "MARKER"
    command = ["sh", "-c", f"touch {shlex.quote(str(marker))}; exec {shlex.join(DEMO_COMMAND)}"]
    trace = _tampered(
        tmp_path,
        settings={"server_command": command, "server_env": [["PYTHONPATH", str(ROOT)]], "transport": "stdio"},
        server={"name": "weather-demo", "transport": "stdio", "command": shlex.join(command)},
    )
    out = tmp_path / "out.json"
    proc = flow_cli("replay", str(trace), "--out", str(out))
    assert not marker.exists(), "replay ran the command the trace named"
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith(
        "note: the recording came from a stdio command whose server calls itself weather-demo, not the demo server"
    )
    assert "replaying the model side only" in proc.stderr and len(proc.stderr.splitlines()) == 1
    replayed = load_trace(out)
    assert replay_report(replayed)["tools"] == "recorded" and replay_report(replayed)["diverged"] is False
    assert not replayed.meta.settings.get("server_command") and server_facts(replayed)["replayed_from"]
    assert (
        flow_cli("validate", str(trace))
        .stdout.rstrip()
        .endswith("it names a server command and server environment, which replay never runs or contacts")
    )


def test_replay_never_reads_the_variable_nor_contacts_the_urls_a_trace_names(tmp_path, counting_server):
    url = f"http://127.0.0.1:{counting_server.port}"
    trace = _tampered(
        tmp_path,
        settings={"server_url": f"{url}/mcp", "bearer_token_env": "OPENAI_API_KEY", "transport": "http"},
        server={"name": f"127.0.0.1:{counting_server.port}", "transport": "http", "url": f"{url}/mcp"},
        model={"backend": "openai", "name": "mock", "base_url": f"{url}/v1", "timeout_s": 1e9},
    )
    out = tmp_path / "out.json"
    proc = flow_cli(
        "replay", str(trace), "--out", str(out), env={"OPENAI_API_KEY": OPENAI_KEY, "OPENAI_BASE_URL": f"{url}/env"}
    )
    assert proc.returncode == 0, proc.stderr
    assert counting_server.connections == 0 and counting_server.received == b""
    text = out.read_text(encoding="utf-8")
    assert OPENAI_KEY not in text
    replayed = load_trace(out)
    assert replayed.meta.model["base_url"] == REPLAY_BASE_URL and replay_report(replayed)["tools"] == "recorded"
    assert all(h.payload["url"].startswith(REPLAY_BASE_URL) for h in replayed.hops if h.kind == "llm.request")


def test_replay_with_server_runs_the_recorded_calls_on_the_server_named_on_the_command_line(tmp_path):
    out = tmp_path / "out.json"
    proc = flow_cli(
        "replay",
        str(SAMPLE),
        "--out",
        str(out),
        "--server",
        shlex.join(DEMO_COMMAND),
        "--server-env-public",
        "DEMO_NOTE=shown",
    )
    assert proc.returncode == 0, proc.stderr
    assert "replay matched the recording: 2 model exchanges served, tool results identical" in proc.stdout
    replayed = load_trace(out)
    assert replay_report(replayed)["tools"] == "server"
    assert server_facts(replayed)["transport"] == "stdio" and "weather_demo" in server_facts(replayed)["command"]
    assert replayed.meta.settings["server_env"] == [["DEMO_NOTE", "shown"]]
    shown = flow_cli("show", str(out))
    assert "replay · tools re-run on a server named on the command line · matched the recording" in shown.stdout


def test_replay_runs_the_demo_server_in_process_or_over_stdio_when_asked(tmp_path):
    for transport in ("memory", "stdio"):
        result = replay(load_trace(SAMPLE), transport=transport)
        assert result.ok and replay_report(result.trace)["tools"] == "demo"
        assert server_facts(result.trace)["transport"] == transport and not replay_report(result.trace)["diverged"]


@pytest.mark.parametrize(
    ("era", "extra"),
    [
        ("handshake", {}),
        ("modern", {}),
        ("handshake", {"resources": ("weather://cities",)}),
        ("handshake", {"prompt": "weather_report", "prompt_args": (("city", "上海"),)}),
    ],
    ids=["plain", "modern-era", "resource", "prompt"],
)
def test_a_recording_of_another_server_replays_the_model_side_only_and_is_marked(tmp_path, era, extra):
    recorded = run(
        "北京和上海今天天气怎么样？",
        options=RunOptions(server_command=tuple(DEMO_COMMAND), era=era, **extra),
        model=ModelConfig(),
    ).trace
    assert recorded.meta.outcome == "ok", recorded.meta.error
    source = tmp_path / "other.json"
    source.write_text(recorded.to_json(), encoding="utf-8")
    result = replay(load_trace(source))
    info = replay_report(result.trace)
    assert info["tools"] == "recorded" and info["diverged"] is False, info["divergences"]
    assert result.answer == recorded.meta.answer
    assert server_facts(result.trace)["in_process"] is True and "reused_session" not in server_facts(result.trace)
    called = [h for h in result.trace.hops if h.kind == "tool.result"]
    assert [h.payload for h in called] == [h.payload for h in recorded.hops if h.kind == "tool.result"]
    out = tmp_path / "replayed.json"
    out.write_text(result.trace.to_json(), encoding="utf-8")
    assert "model side only: tool results served from the recording" in flow_cli("show", str(out)).stdout


def test_a_recorded_result_for_other_arguments_is_not_served_and_the_replay_says_it_diverged(tmp_path):
    recorded = run(
        "北京今天天气怎么样？", options=RunOptions(server_command=tuple(DEMO_COMMAND)), model=ModelConfig()
    ).trace
    for hop in recorded.hops:  # the model now asks for another city than the server answered for
        if hop.kind == "translate.reverse":
            hop.payload["call_request"]["arguments"] = {"city": "上海"}
    result = replay(recorded)
    assert replay_report(result.trace)["diverged"] is True
    assert any("tool result for" in d for d in replay_report(result.trace)["divergences"])


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        (
            {"max_rounds": 10**9},
            f"meta.settings.max_rounds: 1000000000 is not a whole number from 1 to {MAX_REPLAY_ROUNDS}",
        ),
        ({"mcp_timeout_s": 1e9}, "meta.settings.mcp_timeout_s: 1000000000.0 is not a number of seconds above 0"),
        ({"mcp_timeout_s": -1}, "meta.settings.mcp_timeout_s: -1 is not a number of seconds above 0"),
        ({"max_rounds": "5"}, 'meta.settings.max_rounds: "5" is not a whole number'),
        ({"parallel": "yes"}, 'meta.settings.parallel: "yes" is not true or false'),
        ({"resources": ["x"] * 51}, "meta.settings.resources: "),
        ({"prompt_args": [["city"]]}, "meta.settings.prompt_args: "),
        ({"server_fault": "\u001b]0;pwned\u0007"}, r'meta.settings.server_fault: "\u001b]0;pwned\u0007" is not'),
    ],
)
def test_replay_refuses_settings_it_cannot_bound_in_one_line(tmp_path, settings, words):
    out = tmp_path / "out.json"
    proc = flow_cli("replay", str(_tampered(tmp_path, settings=settings)), "--out", str(out))
    assert proc.returncode == 2 and proc.stderr.startswith(f"error: {words}"), proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and "\x1b" not in proc.stderr and not out.exists()


def test_the_checked_settings_never_carry_a_way_to_reach_a_server():
    options = RunOptions.from_settings(
        {
            "server_command": ["sh"],
            "server_env": [["A", "b"]],
            "server_url": "http://x",
            "bearer_token_env": "OPENAI_API_KEY",
            "max_rounds": 3,
            "unknown": 1,
        }
    )
    assert options.server_spec().is_demo and options.server_env == () and options.bearer_token_env != "OPENAI_API_KEY"
    assert options.max_rounds == 3
    with pytest.raises(TraceError, match=r"meta\.settings: expected an object"):
        RunOptions.from_settings([])  # type: ignore[arg-type]


def test_replay_option_mistakes_are_one_line(tmp_path):
    other = _tampered(tmp_path, "other", settings={"server_command": ["sh"]})
    for args, words in [
        ([str(SAMPLE), "--server", shlex.join(DEMO_COMMAND), "--transport", "memory"], "--transport is for the demo"),
        ([str(SAMPLE), "--server-env", "A=1"], "--server-env needs --server COMMAND"),
        ([str(SAMPLE.with_name("beijing-direct.json")), "--server", "true"], "--server does not apply"),
        ([str(other), "--transport", "stdio"], "--transport does not apply"),
        (
            [
                str(_tampered(tmp_path, "dies", settings={"server_fault": "die", "transport": "memory"})),
                "--transport",
                "memory",
            ],
            "replay it with --transport stdio",
        ),
    ]:
        proc = flow_cli("replay", *args, "--out", str(tmp_path / "x.json"))
        assert proc.returncode == 2 and words in proc.stderr and proc.stderr.count("error: ") == 1, proc.stderr


def test_a_third_party_time_tool_whose_answer_changed_is_reported_not_taken_for_a_match(tmp_path):
    """Only the demo server's own date-times are set aside when a replay compares: another server's changed answer
    is news (issue 16: a time tool's new answer "matched the recording", and the replayed answer stated the old time)."""
    time_server = f"{shlex.quote(str(Path(sys.executable).parent / 'mcp-server-time'))} --local-timezone UTC"
    recorded = tmp_path / "time.json"
    script = '{"call": "get_current_time", "arguments": {"timezone": "Asia/Shanghai"}}'
    ran = flow_cli("run", "--server", time_server, "--script", script, "-q", "上海现在几点？", "-o", str(recorded))
    assert ran.returncode == 0, ran.stderr
    data = json.loads(recorded.read_text(encoding="utf-8"))
    for hop in data["hops"]:  # the recording says the clock read another time
        if hop["kind"] == "tool.result":
            text = json.dumps(hop["payload"], ensure_ascii=False)
            hop["payload"] = json.loads(re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", "2020-01-01T08:00:00", text))
    recorded.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "replayed.json"
    proc = flow_cli("replay", str(recorded), "--server", time_server, "--out", str(out))
    assert proc.returncode == 1, proc.stderr  # a replay that diverged
    assert "replay diverged from the recording: tool result for" in proc.stderr
    assert "2020-01-01T08:00:00" in proc.stderr  # the recorded value, as it was
    assert replay_report(load_trace(out))["diverged"] is True


# --- what a recording names never chooses what is called, and its text reads as stored -------------


@pytest.mark.parametrize(
    ("name", "raised"),
    [
        ("ReadTimeout", "ReadTimeout"),
        ("RemoteProtocolError", "RemoteProtocolError"),
        ("AsyncClient", "ConnectError"),  # a name in httpx that is no failure: never constructed
        ("__class__", "ConnectError"),
        ("MockTransport", "ConnectError"),
    ],
)
def test_a_recorded_transport_error_name_only_picks_among_httpx_failures(name, raised):
    import anyio
    import httpx2

    from flow.backends.replay import Exchange, ReplayModelTransport
    from flow.capture.recorder import Recorder

    transport = ReplayModelTransport([Exchange(request={}, transport_error=name)], Recorder())
    request = httpx2.Request("POST", REPLAY_BASE_URL + "/chat/completions", json={})
    with pytest.raises(httpx2.TransportError) as caught:
        anyio.run(transport.handle_async_request, request)
    assert type(caught.value).__name__ == raised


def test_a_divergence_line_shows_control_and_bidi_characters_as_escapes():
    from flow.backends.replay import first_difference

    line = first_difference({"city\u202e": "Beijing\u2066\x1b[2J\x07"}, {"city\u202e": "Paris"})
    assert line is not None and line.isprintable()
    assert line.startswith("city\\u202e: recorded ") and "Beijing\\u2066" in line
    line = first_difference({"a": 1, "b\u202e\x00": 2}, {"a": 1})
    assert line == "b\\u202e\\x00: only in the recording"
