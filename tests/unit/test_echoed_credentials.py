"""A credential a request hands on (a hosted MCP server's bearer token in `tools[].headers.Authorization` or
`mcp_servers[].authorization_token`, an Authorization / x-api-key / cookie header) is a secret for the whole
recording: wherever a provider echoes it (the response's `tools`, an error, a stream event, a report), no writer
keeps it — the model proxy's recording, `merge`, `import` of OTLP, the trace file (issue 43)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx2
import pytest

from flow.capture.http import ModelHttpTap
from flow.capture.recorder import Recorder
from flow.interop.importers import import_bytes, merge_files
from flow.interop.otlp import to_otlp_json
from flow.proxy.http import model_proxy
from flow.trace import hops
from flow.trace.files import trace_text
from flow.trace.model import Trace, TraceMeta
from flow.trace.redact import REDACTED, credentials, redact_recording
from flow.trace.steps import Step

TOKEN = "hosted-mcp-TOKEN-0123456789abcdef"
URL = "https://mcp.example.com/mcp"
QUESTION = "北京今天天气怎么样？"
MCP_TOOL = {"type": "mcp", "server_label": "weather", "server_url": URL, "require_approval": "never"}
RESPONSES_BODY = {
    "model": "gpt-5",
    "input": [{"role": "user", "content": QUESTION}],
    "tools": [{**MCP_TOOL, "headers": {"Authorization": f"Bearer {TOKEN}"}}],
}
MESSAGES_BODY = {
    "model": "claude",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": QUESTION}],
    "mcp_servers": [{"type": "url", "url": URL, "name": "weather", "authorization_token": TOKEN}],
    "tools": [{"type": "mcp_toolset", "mcp_server_name": "weather"}],
}


def _echoing_response(request: dict[str, Any]) -> dict[str, Any]:
    """A Responses answer that repeats the request's tools, and the token where no field's name says what it is."""
    listed = {
        "id": "mcpl_1",
        "type": "mcp_list_tools",
        "server_label": "weather",
        "tools": [],
        "error": f"the server refused Bearer {TOKEN}",
    }
    said = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": f"晴。(token {TOKEN})", "annotations": []}],
    }
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1767000000,
        "model": "gpt-5",
        "status": "completed",
        "output": [listed, said],
        "tools": request.get("tools") or [],
        "metadata": {"echo": TOKEN},
    }


def _stand_in(request: httpx2.Request) -> httpx2.Response:
    """A provider that echoes what the hosted request handed it: in a JSON answer, a stream, an error."""
    body = json.loads(request.content)
    if request.url.path.endswith("/messages"):
        error = {"type": "error", "error": {"type": "invalid_request_error", "message": f"bad token {TOKEN}"}}
        return httpx2.Response(400, json=error)
    answer = _echoing_response(body)
    if not body.get("stream"):
        return httpx2.Response(200, json=answer)
    events = [
        {"type": "response.created", "response": {**answer, "status": "in_progress", "output": []}},
        {"type": "response.completed", "response": answer},
    ]
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=text.encode())


def test_the_rule_finds_the_credentials_a_request_hands_on():
    found = credentials(RESPONSES_BODY) + credentials(MESSAGES_BODY)
    assert TOKEN in found and f"Bearer {TOKEN}" in found
    sent = {"headers": {"x-api-key": "sk-header-key-000000", "Cookie": "session=abcdef123"}, "body": {}}
    assert set(credentials(sent)) >= {"sk-header-key-000000", "session=abcdef123"}
    echoed = redact_recording({"request": RESPONSES_BODY, "response": {"text": f"echo {TOKEN}"}})
    assert TOKEN not in json.dumps(echoed) and echoed["response"]["text"] == f"echo {REDACTED}"
    assert credentials({"headers": {"Authorization": REDACTED}}) == []  # nothing left to learn from a placeholder


def test_the_model_proxy_keeps_no_echoed_token_and_neither_does_its_merge(tmp_path):
    out = tmp_path / "model.jsonl"
    served = model_proxy("https://provider.example/v1", str(out), transport=httpx2.MockTransport(_stand_in)).start()
    try:
        for stream in (False, True):
            answer = httpx2.post(f"{served.url}/responses", json={**RESPONSES_BODY, "stream": stream})
            assert TOKEN in answer.text  # relayed as the provider sent it
        assert TOKEN in httpx2.post(f"{served.url}/messages", json=MESSAGES_BODY).text
    finally:
        served.stop()
    recorded = out.read_text(encoding="utf-8")
    assert recorded.count(REDACTED) > 6 and TOKEN not in recorded
    merged = merge_files([out], name="merged")
    assert TOKEN not in json.dumps(merged.file_data()) and TOKEN not in trace_text(merged)


def _model_recording(*exchanges: tuple[dict[str, Any], dict[str, Any]]) -> str:
    """A model recording that holds the token as it went and as it came back (written by another tool, or by hand)."""
    header = {"mcp_flow_proxy": {"version": 1, "transport": "model-http", "upstream": "https://p.example/v1"}}
    entries: list[dict[str, Any]] = [{**header, "timestamp": 100.0}]
    for n, (body, answer) in enumerate(exchanges, 1):
        t = 100.0 + n
        entries += [
            {"exchange": n, "event": "request", "timestamp": t, "method": "POST", "path": "/v1/responses", "body": body},
            {"exchange": n, "event": "response", "timestamp": t + 0.1, "status": 200, "stream": False, "headers": {}},
            {"exchange": n, "event": "body", "timestamp": t + 0.2, "bytes": 1, "body": answer},
            {"exchange": n, "event": "end", "timestamp": t + 0.3},
        ]  # fmt: skip
    return "\n".join(json.dumps(e, ensure_ascii=False) for e in entries)


def _written(trace: Trace) -> str:
    """Every way an imported trace is written or shown: its data in memory, its file, its OTLP export."""
    return json.dumps(trace.file_data(), ensure_ascii=False) + trace_text(trace) + to_otlp_json(trace)


def test_merge_of_a_recording_holding_the_token_writes_it_nowhere():
    recording = _model_recording((RESPONSES_BODY, _echoing_response(RESPONSES_BODY)))
    assert recording.count(TOKEN) == 5
    trace = import_bytes(recording.encode(), name="model.jsonl")
    assert trace.meta.mode == "hosted" and TOKEN not in _written(trace)


def _otlp_holding_the_token() -> str:
    """An OTLP file whose model span hands the token on in its tool definitions and gets it back in its output and
    in the provider's report."""
    plain = {**RESPONSES_BODY, "tools": [MCP_TOOL]}  # exported without the token, which is put in after
    recording = _model_recording((plain, _echoing_response(plain))).replace(TOKEN, "TOKEN-PLACE")
    text = to_otlp_json(import_bytes(recording.encode(), name="model.jsonl"))
    data = json.loads(text.replace("TOKEN-PLACE", TOKEN))
    spans = [s for rs in data["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    chat = next(s for s in spans if s["name"].startswith("chat"))
    definitions = [{"type": "mcp", "server_label": "weather", "headers": {"Authorization": f"Bearer {TOKEN}"}}]
    chat["attributes"].append({"key": "gen_ai.tool.definitions", "value": {"stringValue": json.dumps(definitions)}})
    return json.dumps(data)


def test_import_of_an_otlp_file_holding_the_token_writes_it_nowhere():
    otlp = _otlp_holding_the_token()
    assert otlp.count(TOKEN) >= 3
    trace = import_bytes(otlp.encode(), name="spans.json")
    assert TOKEN not in _written(trace)


@pytest.mark.parametrize("body", [RESPONSES_BODY, MESSAGES_BODY], ids=["responses", "messages"])
def test_a_run_recorder_scrubs_an_echo_of_a_token_its_request_handed_on(body):
    rec = Recorder()
    rec.add(hops.model_request({"body": body}, step=Step.ASK_MODEL, path="/v1/responses", carries="a question"))
    rec.add(
        hops.model_response(
            {"status": 200, "body": _echoing_response(body)}, step=Step.MODEL_ANSWER, summary=f"晴 {TOKEN}"
        )
    )
    meta = TraceMeta(mode="hosted", question=QUESTION, started_at="2026-01-01T00:00:00+00:00")
    kept = Trace(meta=meta, hops=rec.hops)
    assert TOKEN not in json.dumps(kept.file_data()) and rec.scrub(f"error: {TOKEN}") == f"error: {REDACTED}"


def test_the_model_tap_scrubs_an_echo_of_a_header_it_did_not_know():
    key = "sk-typed-in-a-header-0123456789"

    async def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(401, json={"error": {"message": f"Incorrect API key provided: {key}"}})

    async def main() -> Recorder:
        rec = Recorder()
        async with httpx2.AsyncClient(transport=ModelHttpTap(httpx2.MockTransport(answer), rec)) as client:
            await client.post(f"{URL}/v1/chat/completions", json={"messages": []}, headers={"x-api-key": key})
        return rec

    rec = anyio.run(main)
    assert key not in json.dumps([h.payload for h in rec.hops]) and len(rec.hops) == 2
