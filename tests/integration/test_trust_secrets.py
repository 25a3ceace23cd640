"""Secrets stay out of traces and out of `ps`: URL user-info and query values are redacted wherever a URL is
recorded, every --server-env value is redacted unless marked public, and values can come from the environment
or a file. The demo HTTP server keeps its Host/Origin checks when it listens on every interface."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import shlex
import sys

import pytest

from flow import ModelConfig, RunOptions, run
from flow.servers.spec import ServerSpec
from flow.trace.redact import REDACTED, redact_url, url_secrets
from helpers import ROOT, TOKEN, flow_cli, server_facts, start_demo_server, stop_demo_server
from weather_demo.server import allowed_hosts


@pytest.mark.parametrize(
    ("url", "recorded"),
    [
        ("https://someone:pa55word-xyz@llm.example/v1", "https://llm.example/v1"),
        (
            "https://res.example/openai?api-version=2024-06-01&api-key=sk-query-123456",
            f"https://res.example/openai?api-version={REDACTED}&api-key={REDACTED}",
        ),
        ("http://127.0.0.1:8000/mcp?access_token=tok-abcdef123", f"http://127.0.0.1:8000/mcp?access_token={REDACTED}"),
        (
            "http://[::1]:8000/mcp?sk-bare-key-1234#access_token=frag-5678",
            f"http://[::1]:8000/mcp?{REDACTED}#access_token={REDACTED}",
        ),
        ("https://api.openai.com/v1", "https://api.openai.com/v1"),
        ("http://[::1", REDACTED),
    ],
)
def test_redact_url_drops_user_info_and_every_query_value(url, recorded):
    assert redact_url(url) == recorded
    for secret in url_secrets(url) if recorded != REDACTED else ():
        assert secret not in recorded


def test_a_password_or_key_in_the_model_url_stays_out_of_meta_model():
    described = ModelConfig(
        backend="openai", base_url="https://u:pa55word-xyz@llm.example/v1?api-key=sk-q-123456", api_key="sk-x"
    ).describe()
    assert described["base_url"] == f"https://llm.example/v1?api-key={REDACTED}"


def test_an_access_token_in_an_mcp_url_stays_out_of_the_trace(demo):
    url = demo.url + "?access_token=tok-in-the-query-123"
    result = run(
        "北京今天天气怎么样？",
        options=RunOptions(server_url=url, bearer_token_env="NO_SUCH_VARIABLE"),
        model=ModelConfig(model="mock"),
    )
    text = result.trace.to_json()
    assert "tok-in-the-query-123" not in text
    assert result.trace.meta.settings["server_url"] == f"{demo.url}?access_token={REDACTED}"
    assert server_facts(result.trace)["url"] == f"{demo.url}?access_token={REDACTED}"
    assert any(h.payload.get("http", {}).get("url") for h in result.trace.hops if isinstance(h.payload, dict))
    spec = ServerSpec(url=url)
    assert "tok-in-the-query-123" in spec.secret_values()  # scrubbed wherever a server echoes it


def test_every_server_env_value_is_redacted_unless_marked_public(tmp_path):
    # The server checks it got each value by its hash, so the command line (which a trace shows) holds no value.
    checks = " and ".join(
        f"h(os.environ.get({k!r}, '')) == {hashlib.sha256(v.encode()).hexdigest()!r}"
        for k, v in [
            ("DB_PASSWORD", "hunter2-db-pass"),
            ("GITHUB_PAT", "ghp_fromenvironment42"),
            ("AUTH", "basic-auth-value"),
            ("DSN", "postgres://u:p@h/db-dsn"),
            ("LOG_LEVEL", "debug"),
        ]
    )
    needs_env = shlex.join(
        [
            sys.executable,
            "-c",
            "import hashlib, os, sys; from weather_demo.server import main; "
            "h = lambda v: hashlib.sha256(v.encode()).hexdigest(); "
            f"sys.exit('environment missing') if not ({checks}) else main([])",
        ]
    )
    env_file = tmp_path / "server.env"
    env_file.write_text(
        "# the database\nAUTH=basic-auth-value\nexport DSN='postgres://u:p@h/db-dsn'\n\n", encoding="utf-8"
    )
    out = tmp_path / "env.json"
    proc = flow_cli(
        "tools",
        "--server",
        needs_env,
        "--server-env",
        "DB_PASSWORD=hunter2-db-pass",
        "--server-env",
        "GITHUB_PAT",
        "--server-env-file",
        str(env_file),
        "--server-env-public",
        "LOG_LEVEL=debug",
        "--out",
        str(out),
        env={"GITHUB_PAT": "ghp_fromenvironment42"},
    )
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    for secret in ("hunter2-db-pass", "ghp_fromenvironment42", "basic-auth-value", "db-dsn"):
        assert secret not in text
    settings = json.loads(text)["meta"]["settings"]
    assert settings["server_env"] == [
        ["DB_PASSWORD", REDACTED],
        ["GITHUB_PAT", REDACTED],
        ["AUTH", REDACTED],
        ["DSN", REDACTED],
        ["LOG_LEVEL", "debug"],
    ]


def test_a_bad_server_env_file_is_one_line(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big.env"
    big.write_text("A=" + "x" * 70_000, encoding="utf-8")
    for path, words in [
        ("/dev/zero", "is a device, not a file"),
        (str(fifo), "is a pipe, not a file"),
        ("/no/such/file", "no such file"),
        (str(big), "70,002 bytes is over the 64 KiB limit"),
    ]:
        proc = flow_cli("tools", "--server", "true", "--server-env-file", path, timeout=30)
        assert proc.returncode == 2 and proc.stderr.startswith(f"error: --server-env-file {path}: {words}")
        assert len(proc.stderr.splitlines()) == 1


def _post(port: int, host: str, origin: str | None = None, token: str | None = None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Host": host, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if origin:
        headers["Origin"] = origin
    if token:
        headers["Authorization"] = f"Bearer {token}"
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    try:
        conn.request("POST", "/mcp", body=json.dumps(body), headers=headers)
        return conn.getresponse().status
    finally:
        conn.close()


def test_the_demo_server_on_every_interface_keeps_its_host_and_origin_checks(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n", encoding="utf-8")
    server = start_demo_server("--host", "0.0.0.0", "--token-file", str(token_file), "--allow-host", "class.example")
    try:
        port = int(server.url.rsplit(":", 1)[1].split("/")[0])
        assert any(
            line.startswith("Host/Origin checked: clients must reach it as 127.0.0.1, localhost")
            for line in server.lines
        )
        assert _post(port, "evil.example", token=TOKEN) == 421  # a rebinding page's name is refused
        assert _post(port, f"127.0.0.1:{port}", origin="http://evil.example", token=TOKEN) == 403
        assert _post(port, f"127.0.0.1:{port}", token=TOKEN) == 200  # the token came from the file
        assert _post(port, f"class.example:{port}", origin=f"http://class.example:{port}", token=TOKEN) == 200
        assert _post(port, f"127.0.0.1:{port}") == 401
        assert TOKEN not in " ".join(server.lines)
        # The command it suggests names an address a client can reach and the Host check allows, not 0.0.0.0.
        [connect] = [line for line in server.lines if line.startswith("connect with:")]
        assert connect.endswith(f"--server http://127.0.0.1:{port}/mcp"), connect
    finally:
        stop_demo_server(server)


def test_turning_the_host_check_off_is_said_loudly():
    server = start_demo_server("--host", "0.0.0.0", "--no-auth", "--allow-host", "*")
    try:
        port = int(server.url.rsplit(":", 1)[1].split("/")[0])
        assert any("DNS-rebinding protection is OFF" in line for line in server.lines)
        assert _post(port, "evil.example") == 200
    finally:
        stop_demo_server(server)


def test_the_host_list_for_every_interface_names_this_machine_and_localhost():
    hosts = allowed_hosts("0.0.0.0", ["Class.Example"])
    assert hosts is not None and hosts[:3] == ["127.0.0.1", "localhost", "[::1]"]
    assert "class.example" in hosts and len(hosts) > 4

    assert allowed_hosts("127.0.0.1") == ["127.0.0.1", "localhost", "[::1]"]
    assert allowed_hosts("0.0.0.0", ["*"]) is None


def test_demo_server_token_options_are_checked_in_one_line(tmp_path):
    empty = tmp_path / "empty"
    empty.write_text("\n", encoding="utf-8")
    for args, words in [
        (["--http", "--token-file", str(empty)], "the file is empty"),
        (["--http", "--token", "a", "--token-file", str(empty)], "give one"),
        (["--token-file", str(empty)], "are for --http"),
    ]:
        proc = flow_cli("demo-server", *args, timeout=30)
        assert proc.returncode == 2 and words in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr


ENV_ECHO = ROOT / "tests" / "data" / "env_echo_server.py"


@pytest.mark.parametrize("how", ["call", "run", "run-stream"])
def test_a_server_env_value_echoed_back_by_the_server_is_in_no_byte_written_or_printed(tmp_path, how):
    """The server hands the secret it was given back as its tool result: the trace (payloads, summaries, the
    answer), the OTLP export and what the command prints keep `[redacted]` in its place."""
    secret = "hunter2secret-value"
    out, otlp = tmp_path / "trace.json", tmp_path / "otlp.json"
    server = shlex.join([sys.executable, str(ENV_ECHO)])
    if how == "call":
        args = ["call", "getenv", "--args", '{"name": "MY_DB_PASSWORD"}']
    else:
        args = [
            "run",
            "--script",
            '{"call": "getenv", "arguments": {"name": "MY_DB_PASSWORD"}}',
            *(["--stream"] if how == "run-stream" else []),
        ]
    proc = flow_cli(
        *args, "--server", server, "--server-env", "MY_DB_PASSWORD", "--out", str(out), env={"MY_DB_PASSWORD": secret}
    )
    assert proc.returncode == 0, proc.stderr
    assert REDACTED in proc.stdout and secret not in proc.stdout + proc.stderr
    text = out.read_text(encoding="utf-8")
    assert REDACTED in text and secret not in text
    assert all(secret not in h["summary"] for h in json.loads(text)["hops"])
    assert flow_cli("export", str(out), "--otlp-json", str(otlp)).returncode == 0
    assert secret not in otlp.read_text(encoding="utf-8")
    shown = flow_cli("show", str(out))
    assert shown.returncode == 0 and secret not in shown.stdout
