"""No API key, token, cookie or secret-named environment value is ever written."""

from __future__ import annotations

import json

import pytest

from flow.trace import hops
from flow.trace.payloads import ChatRequest
from flow.trace.redact import REDACTED, SecretLeakError, assert_no_secrets, redact, redact_headers
from flow.trace.steps import Step

FAKE_KEY = "sk-FAKE-key-for-leak-test-3141592653"
FAKE_TOKEN = "tok-FAKE-bearer-2718281828"
FAKE_SECRET = "FAKE-secret-value-1618033988"


def test_headers_and_fields_named_like_secrets_are_redacted():
    headers = redact_headers([("Authorization", "Bearer x"), ("Cookie", "a=b"), ("X-Api-Key", "k"), ("Accept", "*/*")])
    assert headers == {"Authorization": REDACTED, "Cookie": REDACTED, "X-Api-Key": REDACTED, "Accept": "*/*"}
    value = {"api_key": "abc", "nested": [{"access_token": "t", "progressToken": "p1"}], "usage": {"total_tokens": 3}}
    assert redact(value, []) == {
        "api_key": REDACTED,
        "nested": [{"access_token": REDACTED, "progressToken": "p1"}],
        "usage": {"total_tokens": 3},
    }


def test_a_header_named_like_a_credential_is_redacted_whatever_its_name():
    headers = [
        ("X-Custom-Pass", "hunter2-hunter2"),
        ("X-Goog-Api-Key", "k"),
        ("Mcp-Session-Id", "s"),
        ("X-Auth-Signature", "sig"),
        ("WWW-Authenticate", 'Bearer resource_metadata="https://s.example/.well-known/oauth-protected-resource"'),
        ("x-ratelimit-remaining-tokens", "9000"),
        ("Content-Type", "application/json"),
    ]
    assert redact_headers(headers) == {
        "X-Custom-Pass": REDACTED,
        "X-Goog-Api-Key": REDACTED,
        "Mcp-Session-Id": REDACTED,
        "X-Auth-Signature": REDACTED,
        "WWW-Authenticate": headers[4][1],  # a challenge says what is asked for, and is no credential
        "x-ratelimit-remaining-tokens": "9000",  # a count of tokens
        "Content-Type": "application/json",
    }


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("api_key=form-secret-1&x=1", "api_key=[redacted]&x=1"),
        ("x=1&access_token=tok-2", "x=1&access_token=[redacted]"),
        ('{"api_key": "v-3", "n": 1}', '{"api_key": "[redacted]", "n": 1}'),
        ('{"Password":"a\\"b","x":"y"}', '{"Password":"[redacted]","x":"y"}'),
        ('{"client_secret": "cut-sho', '{"client_secret": "[redacted]"'),  # an excerpt that ends inside the value
        ("my_api_key=kept&monkey=kept", "my_api_key=kept&monkey=kept"),
        ("北京 天气", "北京 天气"),
    ],
)
def test_text_that_is_not_json_has_its_secret_fields_redacted(text, shown):
    from flow.trace.redact import redact_text

    assert redact_text(text) == shown


def test_saving_refuses_text_that_still_holds_a_secret(monkeypatch):
    monkeypatch.setenv("SOME_API_KEY", FAKE_KEY)
    with pytest.raises(SecretLeakError):
        assert_no_secrets(f"... {FAKE_KEY} ...")
    assert_no_secrets("nothing secret here")


def test_save_trace_redacts_what_the_recorder_could_not_know(tmp_path, monkeypatch):
    from flow.trace.files import load_trace, save_trace

    trace = load_trace("sample_traces/beijing-mcp.json")
    monkeypatch.setenv("LATE_TOKEN", FAKE_TOKEN)  # appeared after the recording
    trace.hops[0].payload = {"note": f"token {FAKE_TOKEN}"}
    save_trace(trace, tmp_path / "t.json")
    assert FAKE_TOKEN not in (tmp_path / "t.json").read_text(encoding="utf-8")


def test_a_secret_in_any_header_is_redacted_when_recorded(monkeypatch):
    import anyio
    import httpx2

    from flow.capture.http import ModelHttpTap
    from flow.capture.recorder import Recorder

    monkeypatch.setenv("CUSTOM_GATEWAY_TOKEN", FAKE_TOKEN)

    async def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json={"ok": True}, headers={"x-echo": FAKE_TOKEN})

    async def main() -> Recorder:
        rec = Recorder()
        async with httpx2.AsyncClient(transport=ModelHttpTap(httpx2.MockTransport(answer), rec)) as client:
            await client.post(
                "http://model.local/v1/chat/completions", json={"messages": []}, headers={"x-gateway": FAKE_TOKEN}
            )
        return rec

    rec = anyio.run(main)
    text = json.dumps([h.payload for h in rec.hops])
    assert FAKE_TOKEN not in text and REDACTED in text


@pytest.mark.parametrize(
    "name",
    [
        "api_key",
        "API-KEY",
        "Authorization",
        "password",
        "client_secret",
        "refresh_token",
        "idToken",
        "Cookie",
        "api_\u212aey",
        "pa\u017fsword",
        "authorızation",
    ],
)
def test_a_field_named_like_a_secret_is_redacted_when_recorded(name):
    from flow.capture.recorder import Recorder

    rec = Recorder()
    payload = {"jsonrpc": "2.0", "id": 1, "params": {"城市": "北京", name: FAKE_SECRET, "other": "kept"}}
    hop = rec.add(hops.frame(payload, source="mcp_client", target="mcp_server", step=Step.CALL_TOOL))
    assert hop.payload["params"] == {"城市": "北京", name: REDACTED, "other": "kept"}
    assert hop.bytes == len(json.dumps(hop.payload, ensure_ascii=False, separators=(",", ":")).encode())


def test_a_secret_value_in_wire_bytes_is_redacted_when_recorded(monkeypatch):
    from flow.capture.recorder import Recorder

    monkeypatch.setenv("SOME_API_KEY", FAKE_KEY)
    rec = Recorder()
    body: ChatRequest = {"messages": [{"role": "user", "content": f"北京 {FAKE_KEY}"}]}
    wire = json.dumps(body, ensure_ascii=False).encode()

    sent = hops.model_request({"body": body}, step=Step.ASK_MODEL, path="/v1/chat/completions", carries="1 message")
    hop = rec.add(sent, wire_text=wire, size=len(wire))
    assert FAKE_KEY not in json.dumps(hop.payload) and REDACTED in hop.payload["body"]["messages"][0]["content"]
    assert hop.bytes == len(wire)


def test_the_check_before_the_walk_says_no_only_when_the_walk_changes_nothing():
    from flow.trace.redact import needs_redaction

    secrets = [FAKE_KEY.encode()]
    for value in [
        {"a": "b"},
        {"tokens": "3", "progressToken": "p", "key": "v", "api_key": REDACTED},
        {"api_key": 3},
        {"说明": "北京 api_key 天气"},
        [1, 2.5, None, True],
    ]:
        assert not needs_redaction(json.dumps(value, ensure_ascii=False).encode(), secrets)
        assert redact(value, [FAKE_KEY]) == value
    for value in [
        {"API_KEY": "x"},
        {"n": [{"Access-Token": "t"}]},
        {"c": f"... {FAKE_KEY} ..."},
        {"\u212aey": 1, "ap\u0130_key": "v"},
        {"Password": "p"},
    ]:
        assert needs_redaction(json.dumps(value, ensure_ascii=False).encode(), secrets)
        assert redact(value, [FAKE_KEY]) != value
