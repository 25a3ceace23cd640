"""Hosted MCP: the model provider is the MCP client. The offline mock provider really is one (the mcp SDK over
Streamable HTTP against the demo server the run serves on loopback), so these runs cross real sockets; what the app
reads is the provider's report, recorded as mcp.reported hops and paired with the frames the mock's client sent."""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import anyio
import pytest

from flow.backends.mock import MockModelTransport
from flow.capture.recorder import Recorder
from flow.engine.hosted import McpGrant
from flow.engine.model import ModelConfig
from flow.engine.options import RunOptions
from flow.runs import run
from flow.trace.model import Hop, Trace
from flow.wire.hosted import HostedServer, reported_drafts, request_fields
from helpers import run_flow_sync


def hosted(api: str, question: str = "北京今天天气怎么样？", **options: Any) -> Trace:
    result = run_flow_sync(question, mode="hosted", api=api, **options)
    return result.trace


def kinds(trace: Trace, kind: str) -> list[Hop]:
    return [h for h in trace.hops if h.kind == kind]


def frames(trace: Trace, method: str) -> list[Hop]:
    return [h for h in kinds(trace, "mcp.request") if h.payload.get("method") == method]


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_the_app_sends_one_request_and_the_providers_client_makes_the_mcp_calls(api):
    trace = hosted(api)
    assert trace.meta.mode == "hosted" and trace.meta.outcome == "ok"
    assert "晴" in (trace.meta.answer or "")
    assert len(kinds(trace, "llm.request")) == 1  # the tool loop ran at the provider
    # The frames were sent by the provider's MCP client, after the app's request and before the response.
    request, response = kinds(trace, "llm.request")[0], kinds(trace, "llm.response")[0]
    calls = frames(trace, "tools/call")
    assert len(calls) == 1 and request.seq < calls[0].seq < response.seq
    assert calls[0].source == "mcp_client" and calls[0].payload["params"]["arguments"] == {"city": "北京"}
    assert trace.meta.server is not None and trace.meta.server["client"] == "provider"
    # The app sent no MCP of its own: every frame falls inside the model call.
    assert all(
        request.seq < h.seq < response.seq for h in trace.hops if h.kind.startswith("mcp.") and h.kind != "mcp.reported"
    )


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_each_reported_exchange_is_paired_with_the_frame_that_was_observed(api):
    trace = hosted(api)
    reported = kinds(trace, "mcp.reported")
    response = kinds(trace, "llm.response")[0]
    by_seq = {h.seq: h for h in trace.hops}
    assert reported and all(h.seq > response.seq and h.payload["response_seq"] == response.seq for h in reported)
    call, result = [h for h in reported if h.payload["method"] == "tools/call"]
    assert (call.direction, result.direction) == ("request", "response")
    assert by_seq[call.payload["observed"]].payload["method"] == "tools/call"
    assert by_seq[result.payload["observed"]].kind == "mcp.response"
    assert "mismatch" not in call.payload and "mismatch" not in result.payload
    assert result.payload["output"] == by_seq[result.payload["observed"]].payload["result"]["content"][0]["text"]
    listing = [h for h in reported if h.payload["method"] == "tools/list"]
    # Responses reports its listing (mcp_list_tools); Anthropic's connector does not, so only the frame shows it.
    assert bool(listing) == (api == "responses")
    assert frames(trace, "tools/list")


def test_with_approval_the_provider_asks_first_and_calls_only_after_the_apps_yes():
    trace = hosted("responses", require_approval="always")
    first, second = kinds(trace, "llm.request")
    asked = kinds(trace, "llm.response")[0].payload["body"]["output"]
    request_item = next(i for i in asked if i["type"] == "mcp_approval_request")
    answer = [i for i in second.payload["body"]["input"] if i.get("type") == "mcp_approval_response"]
    assert answer == [{"type": "mcp_approval_response", "approval_request_id": request_item["id"], "approve": True}]
    call = frames(trace, "tools/call")[0]
    assert first.seq < second.seq < call.seq  # no call before the app said yes
    final = kinds(trace, "llm.response")[1].payload["body"]["output"]
    assert next(i for i in final if i["type"] == "mcp_call")["approval_request_id"] == request_item["id"]


def test_a_denied_call_is_never_made_and_the_answer_says_so():
    trace = hosted("responses", require_approval="always", approve=False)
    assert not frames(trace, "tools/call")
    assert "批准" in (trace.meta.answer or "")
    assert not [h for h in kinds(trace, "mcp.reported") if h.payload["method"] == "tools/call"]


def test_a_tool_error_is_reported_as_the_apis_error_item():
    trace = hosted("responses", "火星今天天气怎么样？")
    result = next(
        h for h in kinds(trace, "mcp.reported") if h.payload["method"] == "tools/call" and h.direction != "request"
    )
    assert result.direction == "error" and result.payload["is_error"] is True
    item = result.payload["item"]
    assert item["type"] == "mcp_call" and item["output"] is None and item["error"]["type"] == "mcp_tool_execution_error"
    observed = next(h for h in trace.hops if h.seq == result.payload["observed"])
    assert observed.payload["result"]["isError"] is True


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_the_servers_credential_goes_to_the_provider_and_never_into_the_trace(api):
    trace = hosted(api)
    body = kinds(trace, "llm.request")[0].payload["body"]
    text = trace.to_json()
    if api == "responses":
        assert body["tools"][0]["headers"] == {"Authorization": "[redacted]"}
    else:
        assert body["mcp_servers"][0]["authorization_token"] == "[redacted]"
    assert trace.meta.server is not None and trace.meta.server["auth"] == "bearer"
    assert "Bearer " not in text.replace('"Bearer [redacted]"', "")


def test_the_mock_provider_contacts_no_url_but_the_configured_one():
    """A request naming a server the run did not configure gets the API's error, and that server sees no connection."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    accepted: list[Any] = []

    def watch() -> None:
        for _ in range(15):
            try:
                accepted.append(listener.accept())
            except OSError:
                pass

    watcher = threading.Thread(target=watch)
    watcher.start()
    stranger = HostedServer("weather", f"http://127.0.0.1:{port}/mcp", token="t")
    tools, extra = request_fields("responses", stranger)
    body = {"model": "mock", "input": "北京今天天气怎么样？", "tools": tools, **extra}

    async def ask(grant: McpGrant | None) -> Any:
        import httpx2

        transport = MockModelTransport()
        transport.grant_mcp(grant)
        async with httpx2.AsyncClient(transport=transport) as client:
            return await client.post("http://mock.local/v1/responses", json=body)

    granted_elsewhere = McpGrant(frozenset({"http://127.0.0.1:1/mcp"}), Recorder(), "handshake", 5.0)
    answers = [anyio.run(ask, None), anyio.run(ask, granted_elsewhere)]
    watcher.join()
    listener.close()
    assert accepted == []
    for answer in answers:
        assert answer.status_code == 424 and "did not contact" in answer.json()["error"]["message"]


def test_the_mock_server_alone_reaches_no_mcp_server(mock_server):
    import httpx2

    tools, extra = request_fields("messages", HostedServer("weather", "http://127.0.0.1:9/mcp"))
    body = {
        "model": "mock",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": tools,
        **extra,
    }
    answer = httpx2.post(mock_server.rstrip("/") + "/messages", json=body)
    assert answer.status_code == 400 and "did not contact" in answer.json()["error"]["message"]


def test_a_real_provider_without_a_server_url_is_told_the_demo_server_is_out_of_its_reach():
    model = ModelConfig(backend="openai", model="gpt-x", base_url="http://127.0.0.1:9/v1", api_key="k")
    result = run("北京今天天气怎么样？", options=RunOptions(mode="hosted", api="responses"), model=model)
    assert not result.ok and "--server URL" in (result.error or "")
    assert "--server URL" in result.trace.hops[-1].summary or result.trace.hops[-1].kind == "error"


def test_a_real_provider_is_sent_the_operators_server_url_and_token(mock_server, monkeypatch):
    """The same code path as for the mock, through the network: the provider (here the mock-server, which reaches no
    MCP server of its own) is handed the URL and the token the operator configured."""
    monkeypatch.setenv("MCP_BEARER_TOKEN", "operator-token-123")
    model = ModelConfig(backend="openai", model="mock", base_url=mock_server, api_key="k")
    options = RunOptions(mode="hosted", api="responses", server_url="https://mcp.example.test/mcp")
    result = run("北京今天天气怎么样？", options=options, model=model)
    body = kinds(result.trace, "llm.request")[0].payload["body"]
    assert body["tools"][0]["server_url"] == "https://mcp.example.test/mcp"
    assert "operator-token-123" not in result.trace.to_json()
    assert not result.ok and "did not contact" in (result.error or "")


@pytest.mark.parametrize("api", ["chat"])
def test_chat_completions_has_no_hosted_mcp(api):
    result = run_flow_sync(mode="hosted", api=api)
    assert not result.ok and "Responses" in (result.error or "")


def test_a_report_that_disagrees_with_the_observed_frame_says_where():
    frame = Hop(
        seq=5,
        step=None,
        phase=None,
        source="mcp_client",
        target="mcp_server",
        kind="mcp.request",
        jsonrpc_id=3,
        payload={
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "get_weather", "arguments": {"city": "上海"}},
        },
    )
    answer = Hop(
        seq=6,
        step=None,
        phase=None,
        source="mcp_server",
        target="mcp_client",
        kind="mcp.response",
        jsonrpc_id=3,
        payload={
            "jsonrpc": "2.0",
            "id": 3,
            "result": {"content": [{"type": "text", "text": "rain"}], "isError": False},
        },
    )
    item = {
        "type": "mcp_call",
        "id": "mcp_1",
        "server_label": "weather",
        "name": "get_weather",
        "arguments": json.dumps({"city": "北京"}),
        "output": "sunny",
        "error": None,
    }
    drafts = reported_drafts("responses", {"output": [item]}, response_seq=7, seen=[frame, answer])
    assert [d.payload.get("observed") for d in drafts] == [5, 6]
    assert drafts[0].payload.get("mismatch") == ["arguments", "output"]


def test_the_connectors_token_is_a_secret_by_its_name_wherever_it_is_recorded():
    from flow.trace.redact import redact

    body = {"mcp_servers": [{"type": "url", "url": "https://x.test/mcp", "authorization_token": "tok-SECRET-123456"}]}
    assert redact(body, [])["mcp_servers"][0]["authorization_token"] == "[redacted]"


def test_a_streamed_mcp_tool_use_block_gets_its_input_from_the_pieces():
    from flow.wire.messages import MessagesStream

    stream = MessagesStream()
    block = {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "get_weather", "server_name": "weather", "input": {}}
    for event in (
        {"type": "message_start", "message": {"content": []}},
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"city": '}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '"北京"}'}},
        {"type": "content_block_stop", "index": 0},
    ):
        stream.add(event)
    assert stream.content()[0]["input"] == {"city": "北京"}


def test_the_run_can_record_the_operators_server_so_a_real_providers_calls_are_observed(tmp_path):
    """A provider over the network (the mock-server, allowed to reach one MCP URL and recording nothing itself)
    reaches the demo server through the run's recording proxy (`--record-server`): the frames its client sent are
    observed, paired with its report, and the server's token stays out of the trace."""
    import subprocess
    import sys

    from helpers import ROOT, TOKEN, flow_cli, start_demo_server

    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    demo = start_demo_server("--token", TOKEN)
    mock = subprocess.Popen(
        [sys.executable, "-m", "flow", "mock-server", "--port", "0", "--allow-mcp", f"http://127.0.0.1:{port}/mcp"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert mock.stdout is not None
        base_url = mock.stdout.readline().split("listening on ", 1)[1].split()[0]
        out = tmp_path / "observed.json"
        done = flow_cli(
            *("run", "--mode", "hosted", "--api", "responses", "--model", "mock", "--base-url", base_url),
            *("--server", demo.url, "--record-server", str(port), "-o", str(out)),
            env={"MCP_BEARER_TOKEN": TOKEN, "OPENAI_API_KEY": "k"},
        )
    finally:
        mock.terminate()
        mock.wait(timeout=10)
        demo.stop()
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert TOKEN not in text
    trace = Trace.model_validate_json(text)
    call = frames(trace, "tools/call")[0]
    reported = next(h for h in kinds(trace, "mcp.reported") if h.payload["method"] == "tools/call")
    assert reported.payload["observed"] == call.seq and "mismatch" not in reported.payload
    assert trace.meta.server is not None and trace.meta.server["url"] == demo.url
    assert trace.meta.server["recorded_through"] == f"http://127.0.0.1:{port}/mcp"


def test_a_hosted_trace_that_names_another_server_replays_without_contacting_it():
    """A trace is data: the server a recorded hosted request names (here a listener on this machine) is never
    reached by a replay, which serves the provider's reports back and sends only its own placeholder."""
    from flow.backends.replay import replay
    from flow.trace.files import load_trace
    from helpers import ROOT

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(0.2)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
    trace = load_trace(ROOT / "sample_traces" / "hosted-responses.json")
    for hop in trace.hops:
        if hop.kind == "llm.request":
            hop.payload["body"]["tools"][0]["server_url"] = url
    assert trace.meta.server is not None
    trace.meta.server["url"] = url
    trace.meta.settings["server_url"] = url
    result = replay(trace, source="evil")
    accepted: list[Any] = []
    try:
        accepted.append(listener.accept())
    except OSError:
        pass
    listener.close()
    assert accepted == []
    sent = [h.payload["body"]["tools"][0]["server_url"] for h in result.trace.hops if h.kind == "llm.request"]
    assert sent == ["http://127.0.0.1:0/mcp"] and result.answer == trace.meta.answer
