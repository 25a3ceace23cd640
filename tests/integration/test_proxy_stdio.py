"""The stdio proxy (`python -m flow proxy --out FILE -- COMMAND`): between a real client and a real server it changes
no byte, records every frame, and leaves nothing running; its recording imports as the trace the app records itself.

The app here is this project's own command line; the servers are the demo server, the third-party ones and
tests/data/hostile_server.py, all over real stdio, offline.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from flow.cli import main
from flow.interop.importers import import_file
from flow.servers.config import EVERYTHING_SERVER, TIME_SERVER
from flow.trace.files import load_trace
from flow.trace.normalise import normalise
from flow.trace.redact import REDACTED, redacted_command
from helpers import ROOT, flow_cli, unmapped

HOSTILE = Path(__file__).parents[1] / "data" / "hostile_server.py"
PY = sys.executable
DEMO = [PY, "-m", "weather_demo"]
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def proxied(log: Path, server: list[str], *extra: str) -> list[str]:
    return [PY, "-m", "flow", "proxy", "--out", str(log), *extra, "--", *server]


def start(log: Path, server: list[str], *extra: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        proxied(log, server, *extra),
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def entries(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def frames(log: Path) -> list[tuple[str, dict]]:
    return [(e["direction"], e["message"]) for e in entries(log) if "message" in e]


def send(proc: subprocess.Popen[bytes], frame: dict | bytes) -> None:
    assert proc.stdin is not None
    proc.stdin.write(frame if isinstance(frame, bytes) else json.dumps(frame).encode() + b"\n")
    proc.stdin.flush()


def read_line(proc: subprocess.Popen[bytes], timeout: float = 15) -> bytes:
    got: list[bytes] = []
    stdout = proc.stdout
    assert stdout is not None
    reader = threading.Thread(target=lambda: got.append(stdout.readline()), daemon=True)

    reader.start()
    reader.join(timeout)
    assert got, "no line from the proxy in time"
    return got[0]


def _alive(tag: str) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry.name}/cmdline").read_bytes().split(b"\0")
            state = Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tag.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.fixture
def hostile():
    """A hostile server's command line; afterwards, fails if any process of it is still alive."""
    tags: list[str] = []

    def command(behaviour: str, *, on: str = "tools/call") -> list[str]:
        tags.append(f"hostile-{uuid.uuid4().hex}")
        return [PY, str(HOSTILE), "--behaviour", behaviour, "--on", on, "--tag", tags[-1]]

    yield command
    time.sleep(0.2)
    left = [pid for tag in tags for pid in _alive(tag)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], "processes of the hostile server were left running"


def _wire(hops) -> list[tuple]:
    """What crossed between the MCP client and server, and the steps it was given, without times."""
    return [
        (h.kind, h.source, h.target, h.step, h.jsonrpc_id, normalise(h.payload))
        for h in hops
        if h.kind.startswith("mcp.")
        or (h.kind in ("tool.invoke", "tool.result") and "mcp_server" in (h.source, h.target))
    ]


def _by_side(wire: list[tuple]) -> tuple[list[tuple], list[tuple]]:
    """The frames the client sent, and those the server sent (with its reports), each side's in its order."""
    return [w for w in wire if w[1] == "mcp_client"], [w for w in wire if w[1] != "mcp_client"]


@pytest.mark.parametrize(
    ("era", "question"),
    [
        ("handshake", "北京今天天气怎么样？"),
        ("modern", "北京今天天气怎么样？"),
        ("handshake", "北京和上海今天天气怎么样？"),
    ],
    ids=["handshake", "modern", "parallel-calls"],
)
def test_the_app_through_the_proxy_records_what_the_app_records_itself(tmp_path, era, question):
    log, out = tmp_path / "mcp.jsonl", tmp_path / "run.json"
    server = shlex.join(proxied(log, DEMO))
    proc = flow_cli("run", "--server", server, "--era", era, "-q", question, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    app, recorded = _wire(load_trace(out).hops), _wire(import_file(log).hops)
    if "上海" in question:
        # Two calls in flight: the app records a frame as its SDK hands it over or reads it, the proxy as it crosses
        # the pipe, so an answer and the next call may pass each other. Each side's frames keep their order.
        assert _by_side(recorded) == _by_side(app)
    else:
        assert recorded == app  # the same frames, in the same order, with the same steps
    assert len(recorded) >= 8
    end = entries(log)[-1]["mcp_flow_proxy_end"]
    assert end["exit_code"] == 0 and end["ended_by"] == "client" and end["not_jsonrpc"] == 0
    meta = import_file(log).meta
    assert meta.server and meta.server["name"] == "weather-demo" and meta.server["era"] == era


def test_bytes_pass_unchanged_and_at_once(tmp_path):
    # `cat` as the server: whatever the client writes comes back, so what arrives must be what was sent.
    log = tmp_path / "cat.jsonl"
    proc = start(log, ["cat"])
    odd = [
        b'{"jsonrpc":"2.0",  "id":1, "method":"ping"}\r\n',
        '{"jsonrpc":"2.0","id":"é","result":{"text":"北京 \\u2028"}}\n'.encode(),
        b"not json at all\n",
        b"\n",
    ]
    for line in odd:
        send(proc, line)
        assert read_line(proc) == line
    times = []
    for i in range(20):
        started = time.perf_counter()
        send(proc, {"jsonrpc": "2.0", "id": i + 10, "method": "ping"})
        read_line(proc)
        times.append(time.perf_counter() - started)
    assert sorted(times)[10] < 0.02, f"median round trip {sorted(times)[10] * 1000:.1f} ms"
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    recorded = entries(log)
    assert recorded[0]["mcp_flow_proxy"]["command"] == ["cat"]
    assert [e["direction"] for e in recorded[1:3]] == ["client_to_server", "server_to_client"]
    assert recorded[1]["message"] == {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert recorded[1]["bytes"] == len(odd[0]) - 2  # the line, without its \r\n
    assert [e["not_jsonrpc"]["line_start"] for e in recorded if "not_jsonrpc" in e] == ["not json at all"] * 2
    assert recorded[-1]["mcp_flow_proxy_end"]["frames"] == 44


def test_pipes_a_client_left_non_blocking_are_relayed_all_the_same(tmp_path):
    # Some clients (Node's) hand their children non-blocking pipes: a full pipe must make the proxy wait, not quit.
    import fcntl

    log = tmp_path / "nonblocking.jsonl"
    read_end, write_end = os.pipe()
    out_read, out_write = os.pipe()
    for fd in (read_end, out_write):
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
    proc = subprocess.Popen(proxied(log, ["cat"]), cwd=ROOT, stdin=read_end, stdout=out_write)
    os.close(read_end)
    os.close(out_write)
    line = json.dumps({"jsonrpc": "2.0", "method": "x", "params": {"pad": "p" * 5000}}).encode() + b"\n"
    writer = threading.Thread(target=lambda: [os.write(write_end, line) for _ in range(200)] and os.close(write_end))
    time.sleep(1.0)  # the proxy started, finds nothing to read, waits
    writer.start()
    got = bytearray()
    time.sleep(0.5)  # the pipe back fills up while nobody reads it
    while chunk := os.read(out_read, 1 << 16):
        got += chunk
    os.close(out_read)
    writer.join(10)
    assert proc.wait(timeout=10) == 0
    assert bytes(got) == line * 200
    assert entries(log)[-1]["mcp_flow_proxy_end"]["frames"] == 400


def test_a_server_that_exits_mid_call_passes_its_exit_code_through(tmp_path, hostile):
    log = tmp_path / "exit.jsonl"
    proc = start(log, hostile("exit-mid-call"))
    send(proc, INIT)
    assert json.loads(read_line(proc))["id"] == 1
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {}}})
    assert read_line(proc) == b""  # the server's stdout ended, and so does the proxy's
    assert proc.wait(timeout=10) == 3
    assert proc.stderr is not None
    assert b"hostile: giving up in the middle of a request" in proc.stderr.read()  # stderr passes through
    end = entries(log)[-1]["mcp_flow_proxy_end"]
    assert end["exit_code"] == 3 and end["ended_by"] == "server"
    trace = import_file(log)
    assert [h.kind for h in trace.hops] == ["mcp.request", "mcp.response", "mcp.request"]
    assert "the server exited with code 3" in unmapped(trace)
    assert "line 4: tools/call got no response in the log" in unmapped(trace)


def test_garbage_and_a_flood_from_the_server_are_relayed_and_recorded_within_bounds(tmp_path, hostile):
    # The app ends its session at the first line that is not JSON-RPC, as it would without the proxy; the proxy
    # records that line, bounded, and the server is reaped.
    log, out = tmp_path / "flood.jsonl", tmp_path / "run.json"
    server = shlex.join(proxied(log, hostile("flood-stdout", on="tools/list"), "--grace", "0.5"))
    proc = flow_cli("tools", "--server", server, "--timeout", "5", "--out", str(out), timeout=60)
    assert proc.returncode != 0
    assert "not JSON-RPC" in proc.stderr and "Traceback" not in proc.stderr
    flood = [e for e in entries(log) if "not_jsonrpc" in e]
    assert flood and flood[0]["direction"] == "server_to_client"
    assert flood[0]["not_jsonrpc"]["line_chars"] == 105_000 and len(flood[0]["not_jsonrpc"]["line_start"]) == 201
    assert log.stat().st_size < 40 << 20
    trace = import_file(log)
    assert trace.hops[-1].kind == "error" and trace.hops[-1].source == "mcp_server" and trace.hops[-1].step == 2


def test_a_recording_is_capped_and_says_what_it_left_out(tmp_path, hostile):
    log = tmp_path / "cap.jsonl"
    proc = start(log, hostile("flood-stdout", on="tools/list"), "--max-log-bytes", "200000", "--grace", "0.5")
    send(proc, INIT)
    read_line(proc)
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert proc.stdout is not None
    for _ in range(200):  # 20 MB of garbage read by the client
        proc.stdout.read(100_000)
    proc.stdout.close()  # the client leaves
    assert proc.wait(timeout=15) == 128 + signal.SIGTERM  # the server ignored its closed stdin and was terminated
    assert log.stat().st_size <= 200_000
    end = entries(log)[-1]["mcp_flow_proxy_end"]
    assert end["dropped"] > 0 and "limit of 0.190735 MiB" in end["stopped"]
    assert end["ended_by"] == "client"


def test_one_huge_line_is_noted_not_held(tmp_path, hostile):
    log = tmp_path / "long.jsonl"
    proc = start(log, hostile("long-line", on="tools/list"), "--grace", "0.5")
    send(proc, INIT)
    read_line(proc)
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    got, started = 0, time.monotonic()
    assert isinstance(proc.stdout, io.BufferedReader)  # a binary pipe: read1 takes what has arrived
    while got < 64 << 20:
        got += len(proc.stdout.read1(1 << 20))
    assert time.monotonic() - started < 15  # relayed at pipe speed: recording holds 1 MiB of it and counts the rest
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=15) == 128 + signal.SIGTERM
    big = [e["too_large"] for e in entries(log) if "too_large" in e]
    assert big == [{"bytes": 64 << 20, "limit_bytes": 1 << 20, "line_start": "x" * 200 + "…"}]
    trace = import_file(log)
    assert trace.hops[-1].kind == "error" and trace.hops[-1].payload["bytes"] == 64 << 20


def test_a_hostile_client_sends_garbage_and_leaves_early(tmp_path):
    log = tmp_path / "client.jsonl"
    proc = start(log, DEMO)
    send(proc, b"\x00\xffbinary nonsense\n")
    send(proc, INIT)
    assert json.loads(read_line(proc))["id"] == 1
    send(proc, b'{"jsonrpc":"2.0","id":2,"method":"tools/li')  # half a frame, then gone
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    recorded = entries(log)
    problems = [(e["direction"], e["not_jsonrpc"]["reason"]) for e in recorded if "not_jsonrpc" in e]
    assert problems == [
        ("client_to_server", "not UTF-8 text"),
        ("client_to_server", "not JSON (Unterminated string starting at)"),
    ]
    trace = import_file(log)
    assert [h.kind for h in trace.hops] == ["error", "mcp.request", "mcp.response", "error"]
    assert trace.hops[0].source == "mcp_client"


def test_a_client_that_stops_reading_is_taken_as_gone(tmp_path, hostile):
    log = tmp_path / "gone.jsonl"
    proc = start(log, hostile("never-answer", on="tools/call"), "--grace", "0.5")
    assert proc.stdout is not None
    proc.stdout.close()
    send(proc, INIT)  # its answer finds no reader: the proxy closes the server's stdin and reaps it
    assert proc.wait(timeout=10) == 0
    assert entries(log)[-1]["mcp_flow_proxy_end"]["ended_by"] == "client"


def test_a_proxy_whose_python_has_no_flow_says_how_to_find_it(tmp_path):
    """The app gives its servers a clean environment, so a `-m flow proxy` run by a Python that does not have the
    project installed, started outside the repository, has no `flow` to run: one line says how to give it one. (The
    project's own venv has it installed, editable: `-S` stands here for any other Python, such as the system's.)"""
    log = tmp_path / "mcp.jsonl"
    elsewhere = [PY, "-S", *proxied(log, DEMO)[1:]]  # no site-packages: nothing installed is found
    app = [PY, "-m", "flow", "tools", "--server", shlex.join(elsewhere), "--timeout", "20"]
    proc = subprocess.run(app, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert "No module named flow; the server's Python looks for flow in the folder it starts in" in proc.stderr
    assert "--server-env PYTHONPATH=" in proc.stderr
    # the venv's Python, where the set-up installed the project, runs the same proxy from this folder
    installed = [PY, "-m", "flow", "tools", "--server", shlex.join(proxied(log, DEMO)), "--timeout", "20"]
    fixed = subprocess.run(installed, cwd=tmp_path, env=_without_pythonpath(), capture_output=True)
    assert fixed.returncode == 0, fixed.stderr
    assert frames(log)


def _without_pythonpath() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def test_proxies_started_with_one_out_never_overwrite_each_other(tmp_path):
    # A client that restarts its servers, or starts two at once, gets a recording of each, and is told where.
    log = tmp_path / "weather.jsonl"
    procs = [start(log, ["cat"]) for _ in range(3)]
    for i, proc in enumerate(procs):
        send(proc, {"jsonrpc": "2.0", "id": i, "method": "ping"})
        assert json.loads(read_line(proc))["id"] == i
    said = []
    for proc in procs:
        assert proc.stdin is not None and proc.stderr is not None
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0
        said.append(proc.stderr.read().decode())
    names = ["weather.jsonl", "weather-2.jsonl", "weather-3.jsonl"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)
    assert sorted(next(m["id"] for _, m in frames(tmp_path / name)) for name in names) == [0, 1, 2]
    assert sorted(said) == ["", f"note: {log} is there already: recording to {tmp_path / names[1]}\n",
                            f"note: {log} is there already: recording to {tmp_path / names[2]}\n"]  # fmt: skip


@pytest.mark.parametrize(
    ("behaviour", "how", "code"),
    [
        ("spawn-child", "client leaves", 0),  # the server exits, its child lingers
        ("spawn-child,never-answer", "client leaves", 128 + signal.SIGTERM),  # both linger: terminated
        ("spawn-child,never-answer", "SIGTERM", 128 + signal.SIGTERM),  # passed on to the server and its child
        ("spawn-child,exit-mid-call", "client leaves", 3),
    ],
)
def test_what_the_server_started_ends_with_it(tmp_path, hostile, behaviour, how, code):
    # Outside the app nothing else reaps a server's children: the proxy signals the server's whole process group.
    server = hostile(behaviour, on="initialize")
    tag = server[-1]
    proc = start(tmp_path / "children.jsonl", server, "--grace", "0.5")
    send(proc, INIT)
    if behaviour == "spawn-child":
        assert json.loads(read_line(proc))["id"] == 1
    time.sleep(0.3)
    if "exit" not in behaviour:  # the proxy (its command line names the server), the server and its child
        assert len(_alive(tag)) == 3
    assert proc.stdin is not None
    if how == "SIGTERM":
        proc.send_signal(signal.SIGTERM)
    else:
        proc.stdin.close()
    assert proc.wait(timeout=15) == code  # the server's own exit code, as before
    time.sleep(0.2)
    assert _alive(tag) == []


def test_a_signal_to_the_proxy_reaches_the_server(tmp_path):
    log = tmp_path / "signal.jsonl"
    proc = start(log, DEMO)
    send(proc, INIT)
    assert json.loads(read_line(proc))["id"] == 1
    proc.send_signal(signal.SIGTERM)  # as a client that ends its servers does
    assert proc.wait(timeout=10) == 128 + signal.SIGTERM
    assert entries(log)[-1]["mcp_flow_proxy_end"]["exit_code"] == 128 + signal.SIGTERM


@pytest.mark.parametrize(
    ("server", "tool", "arguments"),
    [
        ([str(TIME_SERVER), "--local-timezone", "UTC"], "get_current_time", {"timezone": "Asia/Shanghai"}),
        ([str(EVERYTHING_SERVER), "stdio"], "echo", {"message": "你好"}),
    ],
    ids=["mcp-server-time", "server-everything"],
)
def test_third_party_servers_through_the_proxy(tmp_path, server, tool, arguments):
    log, out = tmp_path / "third.jsonl", tmp_path / "call.json"
    proc = flow_cli(
        "call", tool, "--args", json.dumps(arguments), "--server", shlex.join(proxied(log, server)), "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    # The same frames. The app knows it is in step 6 when its SDK lists the tools again (server-everything says its
    # list changed), and it records what it has read, where the pipe may carry an answer before that tools/list:
    # so the frames are compared without their steps, and in any order.
    recorded, app = _wire(import_file(log).hops), _wire(load_trace(out).hops)
    assert sorted(json.dumps(w[:3] + w[4:], sort_keys=True) for w in recorded) == sorted(
        json.dumps(w[:3] + w[4:], sort_keys=True) for w in app
    )
    assert len(recorded) >= 6


def test_secrets_on_the_command_line_and_in_the_environment_are_never_written(tmp_path):
    key, token, env_key = "sk-test-CMDLINE-0123456789", "tok-Secret-98765", "sk-test-ENVIRONMENT-abcdef"
    password = "pw-QWERTYUIOPASDF"  # under a name that says nothing of a secret: a client put it there for the server
    echo = (
        "import json, os, sys; sys.stdin.readline(); "
        "print(json.dumps({'jsonrpc': '2.0', 'id': 1, 'result': {'env': os.environ['MY_SERVICE_API_KEY'], "
        "'password': os.environ['MY_PASSWORD'], 'path': os.environ['PATH'], 'level': os.environ['LOG_LEVEL'], "
        "'argv': sys.argv}}), flush=True)"
    )
    log = tmp_path / "secret.jsonl"
    # What a client gives a server it starts: its default variables and those it was configured with.
    env = {"PATH": os.environ["PATH"], "MY_SERVICE_API_KEY": env_key, "MY_PASSWORD": password, "LOG_LEVEL": "debug-1"}
    proc = start(log, [PY, "-c", echo, "--api-key", key, f"token={token}"], "--env-public", "LOG_LEVEL", env=env)
    send(proc, INIT)
    answer = json.loads(read_line(proc))
    assert answer["result"]["env"] == env_key and key in answer["result"]["argv"]  # the client gets them as sent
    assert answer["result"]["password"] == password
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    written = log.read_bytes()
    for secret in (key, token, env_key, password):
        assert secret.encode() not in written
    recorded = next(message for _, message in frames(log) if "result" in message)["result"]
    assert recorded["password"] == REDACTED and recorded["path"] == os.environ["PATH"]  # what every client passes
    assert recorded["level"] == "debug-1"  # named no secret with --env-public
    assert entries(log)[0]["mcp_flow_proxy"]["command"][-3:] == ["--api-key", "[redacted]", "token=[redacted]"]


def test_the_app_and_the_proxy_hide_the_same_secrets_of_a_server(tmp_path):
    # The app's own trace and the proxy's recording of one session: the command line and the environment the server
    # was given are hidden by one rule in both, and neither holds a value the server echoes.
    token, password = "tok-in-the-ARGV-13579", "pw-QWERTYUIOPASDF"
    server = [PY, "-c", "import sys; from weather_demo.server import main; main([])", f"--token={token}"]
    log, out = tmp_path / "mcp.jsonl", tmp_path / "tools.json"
    proc = flow_cli(
        "tools",
        "--server",
        shlex.join(proxied(log, server)),
        "--server-env",
        f"MY_PASSWORD={password}",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    for path in (log, out):
        written = path.read_text(encoding="utf-8")
        assert token not in written and password not in written, path
    shown = redacted_command(server)[0]
    assert shown[-1] == f"--token={REDACTED}"
    assert entries(log)[0]["mcp_flow_proxy"]["command"] == shown
    meta = load_trace(out).meta
    assert meta.server and meta.server["command"] == shlex.join(redacted_command(proxied(log, server))[0])
    assert meta.server["command"].endswith(shlex.join(shown)) and meta.settings["server_command"][-1] == shown[-1]


def test_the_command_line_is_redacted():
    shown, hidden = redacted_command(
        ["srv", "--token", "abc", "--password=pw", "API_KEY=k1", "https://u:p@h/x?key=v", "sk-live-1", "--port", "8"]
    )
    assert shown == [
        "srv",
        "--token",
        "[redacted]",
        "--password=[redacted]",
        "API_KEY=[redacted]",
        "https://h/x?key=[redacted]",
        "[redacted]",
        "--port",
        "8",
    ]
    assert {"abc", "pw", "k1", "v", "sk-live-1"} <= set(hidden)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--out", "x.jsonl"], "give the server's command after --"),
        (["--out", "x.jsonl", "--", "no-such-server-xyz"], "cannot start 'no-such-server-xyz'"),
        (["--out", "x.jsonl", "--grace", "0", "--", "cat"], "--grace 0: give seconds above 0"),
        (["--out", "x.jsonl", "--grace", "nan", "--", "cat"], "--grace nan: give seconds above 0 and at most 300"),
        (["--out", "x.jsonl", "--bogus", "--", "cat"], "unrecognized arguments: --bogus"),
        (["--grace", "soon"], "mcp-flow proxy: argument --grace: invalid float value: 'soon'"),
        (["--out", "/proc/x.jsonl", "--", "cat"], "/proc/x.jsonl: cannot be written: its folder does not exist"),
        (["--out", ".", "--", "cat"], ".: is a folder: name a file to write"),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, monkeypatch, args, said):
    monkeypatch.chdir(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([PY, "-m", "flow", "proxy", *args], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and said in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    again = tmp_path / "again"  # not beside the recording the first one made
    again.mkdir()
    monkeypatch.chdir(again)
    assert main(["proxy", *args]) == 2  # the same through the whole command line's parser
    err = capsys.readouterr().err
    assert err.startswith("error: ") and said in err and err.count("\n") == 1


def test_odd_values_in_a_proxy_recording_import_or_are_refused_in_one_line():
    from flow.interop.importers import import_bytes
    from flow.trace.files import TraceError

    lines = [
        {"mcp_flow_proxy": {"version": 1, "transport": "stdio", "command": ["srv"]}, "timestamp": 10.0},
        {"direction": "client_to_server", "timestamp": 10.1, "message": INIT},
        {"direction": "server_to_client", "timestamp": 10.2, "not_jsonrpc": {"reason": "r", "line_start": "x", "line_chars": 1}},
        {"direction": "server_to_client", "timestamp": 10.3, "too_large": {"bytes": 5, "limit_bytes": 1, "line_start": "y"}},
        {"mcp_flow_proxy_end": {"exit_code": 0, "dropped": 2, "stopped": "s"}, "timestamp": 10.4},
    ]  # fmt: skip
    odd_values = [None, 1, -2, True, "t", [], {}, [1], {"a": 1}, 2**70, 1.5]
    tried = 0
    for i, line in enumerate(lines):
        for key, value in line.items():
            places = [(key, None)] + ([(key, k) for k in value] if isinstance(value, dict) else [])
            for outer, inner in places:
                for odd in odd_values:
                    changed = json.loads(json.dumps(line))
                    if inner is None:
                        changed[outer] = odd
                    else:
                        changed[outer][inner] = odd
                    text = "\n".join(json.dumps(x) for x in [*lines[:i], changed, *lines[i + 1 :]])
                    tried += 1
                    try:
                        import_bytes(text.encode(), name="odd.jsonl")
                    except TraceError as exc:
                        assert "\n" not in str(exc)
    assert tried > 200
