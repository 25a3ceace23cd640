"""A run against an HTTP provider served in its own process writes no secret (the redaction itself is tested in this
process: tests/unit/test_secrets.py)."""

from __future__ import annotations

import json

from flow.trace.redact import REDACTED
from helpers import flow_cli

FAKE_KEY = "sk-FAKE-key-for-leak-test-3141592653"
FAKE_TOKEN = "tok-FAKE-bearer-2718281828"
FAKE_SECRET = "FAKE-secret-value-1618033988"


def _every_byte(tmp_path, proc) -> bytes:
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    return written + proc.stdout.encode() + proc.stderr.encode()


def test_a_run_against_an_http_provider_writes_no_secret(tmp_path, mock_server):
    env = {"OPENAI_API_KEY": FAKE_KEY, "GITHUB_TOKEN": FAKE_TOKEN, "MY_APP_SECRET": FAKE_SECRET}
    out = tmp_path / "trace.json"
    # The question itself carries the key, as a careless user might paste it.
    proc = flow_cli(
        "run",
        "--transport",
        "memory",
        "--base-url",
        mock_server,
        "--model",
        "mock",
        "--stream",
        "--question",
        f"北京今天天气怎么样？ my key is {FAKE_KEY}",
        "--out",
        str(out),
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    replayed = tmp_path / "replayed.json"
    flow_cli("replay", str(out), "--out", str(replayed), env=env)
    data = _every_byte(tmp_path, proc)
    for secret in (FAKE_KEY, FAKE_TOKEN, FAKE_SECRET):
        assert secret.encode() not in data
    trace = json.loads(out.read_text(encoding="utf-8"))
    request = next(h for h in trace["hops"] if h["kind"] == "llm.request")
    assert request["payload"]["headers"]["authorization"] == REDACTED
    assert REDACTED in trace["meta"]["question"]
    assert trace["meta"]["model"]["key_status"] == "set"
