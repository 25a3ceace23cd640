"""The model proxy (`python -m flow proxy-model`): the real openai SDK talks to it as to a provider, here the mock
model served over HTTP; answers come back as the provider sent them (a stream event by event, as they come), the
recording holds every body and no key."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator

import httpx2
import openai
import pytest

from flow.backends.mock_http import make_server
from flow.cli import main
from flow.interop.importers import NothingRecorded, import_file
from flow.proxy.http import mcp_http_proxy, model_proxy
from helpers import ROOT

KEY = "sk-test-proxy-KEY-0123456789abcdef"
ENV_KEY = "sk-test-proxy-ENV-fedcba9876543210"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for one city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]
QUESTION = [{"role": "user", "content": "北京今天天气怎么样？"}]


@pytest.fixture
def upstream() -> Iterator[str]:
    """The mock model over HTTP in this process, requiring KEY as a provider would."""
    server = make_server(0, api_key=KEY)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def entries(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _same(a: dict, b: dict) -> bool:
    drop = {"id", "created"}
    return {k: v for k, v in a.items() if k not in drop} == {k: v for k, v in b.items() if k not in drop}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_the_openai_sdk_through_the_proxy_gets_what_the_provider_sends(tmp_path, upstream, monkeypatch, stream):
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", ENV_KEY)  # in the proxy's environment: never written either
    out = tmp_path / "model.jsonl"
    served = model_proxy(upstream, str(out)).start()
    try:
        direct = openai.OpenAI(base_url=upstream, api_key=KEY)
        proxied = openai.OpenAI(base_url=served.url, api_key=KEY)
        ask = {"model": "mock", "messages": QUESTION, "tools": TOOLS}
        if stream:
            got = [c.model_dump() for c in proxied.chat.completions.create(**ask, stream=True)]
            want = [c.model_dump() for c in direct.chat.completions.create(**ask, stream=True)]
            assert len(got) == len(want) > 3 and all(_same(g, w) for g, w in zip(got, want, strict=True))
        else:
            got_one = proxied.chat.completions.create(**ask).model_dump()
            assert _same(got_one, direct.chat.completions.create(**ask).model_dump())
            assert got_one["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "get_weather"
        with pytest.raises(openai.AuthenticationError):  # a wrong key reaches the provider, which refuses it
            openai.OpenAI(base_url=served.url, api_key="sk-wrong-key-000000").chat.completions.create(**ask)
    finally:
        served.stop()
    written = out.read_bytes()
    assert KEY.encode() not in written and ENV_KEY.encode() not in written and b"sk-wrong-key-000000" not in written
    assert b"authorization" not in written.lower()
    log = entries(out)
    assert log[0]["mcp_flow_proxy"]["transport"] == "model-http" and log[-1]["mcp_flow_proxy_end"]["exchanges"] == 2
    first = [e for e in log if e.get("exchange") == 1]
    assert [e["event"] for e in first][:2] == ["request", "response"] and first[-1]["event"] == "end"
    assert first[0]["body"]["messages"] == QUESTION and first[0]["path"] == "/v1/chat/completions"
    if stream:
        chunks = [e for e in first if e["event"] == "chunk"]
        assert first[1]["stream"] is True and chunks[-1]["data"] == "[DONE]"
        assert chunks[1]["data"]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] == "get_weather"
    else:
        body = next(e for e in first if e["event"] == "body")["body"]
        assert body["choices"][0]["finish_reason"] == "tool_calls"
    assert [e["status"] for e in log if e.get("exchange") == 2 and e["event"] == "response"] == [401]


class _SlowEvents(httpx2.AsyncByteStream):
    """An event stream whose events come `gap_s` apart, then, with `stall`, nothing more."""

    def __init__(self, gap_s: float, stall: bool = False) -> None:
        self.gap_s, self.stall = gap_s, stall

    async def __aiter__(self) -> AsyncIterator[bytes]:
        import anyio

        for i in range(3):
            yield f'data: {{"n": {i}}}\n\n'.encode()
            await anyio.sleep(self.gap_s)
        if self.stall:
            await anyio.sleep(3600)
        yield b"data: [DONE]\n\n"


def _slow_upstream(gap_s: float, stall: bool = False) -> httpx2.MockTransport:
    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=_SlowEvents(gap_s, stall))

    return httpx2.MockTransport(answer)


def test_a_stream_is_passed_on_event_by_event_as_it_comes(tmp_path):
    out = tmp_path / "slow.jsonl"
    served = model_proxy("https://provider.example/v1", str(out), transport=_slow_upstream(0.4)).start()
    try:
        started, seen = time.monotonic(), []
        with httpx2.stream("POST", f"{served.url}/chat/completions", json={"stream": True}) as response:
            for chunk in response.iter_bytes():
                seen.append((time.monotonic() - started, chunk))
    finally:
        served.stop()
    assert seen[0][0] < 0.3 and seen[-1][0] > 1.1  # the first event long before the stream's end
    assert b"".join(c for _, c in seen) == b'data: {"n": 0}\n\ndata: {"n": 1}\n\ndata: {"n": 2}\n\ndata: [DONE]\n\n'
    chunks = [e for e in entries(out) if e.get("event") == "chunk"]
    assert [c["data"] for c in chunks] == [{"n": 0}, {"n": 1}, {"n": 2}, "[DONE]"]
    assert chunks[2]["timestamp"] - chunks[0]["timestamp"] > 0.7


def test_a_stalled_stream_is_cut_at_the_deadline_as_a_broken_connection(tmp_path, capfd):
    out = tmp_path / "stall.jsonl"
    served = model_proxy(
        "https://provider.example/v1", str(out), transport=_slow_upstream(0.05, stall=True), timeout_s=1
    ).start()
    got: list[bytes] = []
    try:
        started = time.monotonic()
        with httpx2.stream("POST", f"{served.url}/chat/completions", json={}, timeout=20) as response:
            # Not a complete answer that happens to lack [DONE]: the client's HTTP library raises, as it does when
            # a real connection is cut, so an SDK cannot hand on the part as if it were the whole.
            with pytest.raises(httpx2.RemoteProtocolError):
                for chunk in response.iter_bytes():
                    got.append(chunk)
        assert 0.9 < time.monotonic() - started < 5, out.read_text()
        assert b"".join(got).count(b"data:") == 3 and b"[DONE]" not in b"".join(got)
    finally:
        served.stop()
    end = [e for e in entries(out) if e.get("event") == "end"]
    assert end and "did not end within 1 s" in end[0]["error"]
    said = capfd.readouterr().err
    assert "Traceback" not in said and "answer cut: the answer did not end within 1 s" in said


def test_the_openai_sdk_raises_when_the_deadline_cuts_its_stream(tmp_path):
    class Stalls(httpx2.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            import anyio

            yield b'data: {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {"content": "part"}}]}\n\n'
            await anyio.sleep(3600)

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=Stalls())

    upstream = httpx2.MockTransport(answer)
    served = model_proxy("https://p.example/v1", str(tmp_path / "cut.jsonl"), transport=upstream, timeout_s=1).start()
    got = []
    try:
        client = openai.OpenAI(base_url=served.url, api_key=KEY, max_retries=0)
        with pytest.raises(openai.APIConnectionError):  # not the part, returned as if it were the answer
            for chunk in client.chat.completions.create(model="m", messages=QUESTION, stream=True):
                got.append(chunk.choices[0].delta.content)
    finally:
        served.stop()
    assert got == ["part"]


@pytest.mark.parametrize("make", [model_proxy, mcp_http_proxy], ids=["proxy-model", "proxy-http"])
def test_a_client_that_leaves_mid_request_is_a_note_not_a_traceback(tmp_path, capfd, make):
    import socket

    out = tmp_path / "left.jsonl"
    asked: list[httpx2.Request] = []
    upstream = httpx2.MockTransport(lambda request: asked.append(request) or httpx2.Response(200, json={}))
    served = make("https://upstream.example/v1", str(out), transport=upstream).start()
    try:
        with socket.create_connection(("127.0.0.1", served.port)) as client:
            path = "/v1/chat/completions" if make is model_proxy else "/mcp"
            client.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nx".encode())
            time.sleep(0.3)
        time.sleep(0.3)
    finally:
        served.stop()
    assert asked == []  # half a request is not forwarded
    notes = [e["note"] for e in entries(out) if "note" in e]
    assert notes == [f"POST {path}: the client left before its request was complete (1 byte of it came): not forwarded"]
    assert "Traceback" not in capfd.readouterr().err
    with pytest.raises(NothingRecorded):  # no exchange crossed: the recording reads as an empty one does
        import_file(out)


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_a_signal_ends_the_recording_with_its_last_line(tmp_path, signum, code):
    out = tmp_path / "m.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "flow",
            "proxy-model",
            "--upstream",
            "http://127.0.0.1:9/v1",
            "--port",
            "0",
            "-o",
            str(out),
        ],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    assert "listening on" in proc.stderr.readline()
    proc.send_signal(signum)
    assert proc.wait(timeout=15) == code
    assert "Traceback" not in proc.stderr.read()
    end = entries(out)[-1]["mcp_flow_proxy_end"]
    assert end["stopped_by"] == signal.Signals(signum).name and end["exchanges"] == 0


def test_an_upstream_that_cannot_be_reached_is_a_502_and_a_line(tmp_path):
    out = tmp_path / "down.jsonl"

    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused")

    served = model_proxy("https://provider.example/v1", str(out), transport=httpx2.MockTransport(refuse)).start()
    try:
        response = httpx2.post(f"{served.url}/chat/completions", json={"model": "x"})
        missing = httpx2.get(f"http://127.0.0.1:{served.port}/other")
    finally:
        served.stop()
    assert response.status_code == 502 and "could not reach the upstream" in response.json()["error"]["message"]
    assert missing.status_code == 404
    assert "ConnectError: connection refused" in [e for e in entries(out) if e.get("event") == "end"][0]["error"]


def test_a_huge_body_is_recorded_by_its_size_only(tmp_path):
    out = tmp_path / "big.jsonl"
    big = b'{"choices": [{"message": {"content": "' + b"x" * (3 << 20) + b'"}}]}'

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "application/json"}, content=big)

    served = model_proxy("https://provider.example/v1", str(out), transport=httpx2.MockTransport(answer)).start()
    try:
        assert httpx2.post(f"{served.url}/chat/completions", json={}).content == big
    finally:
        served.stop()
    body = next(e for e in entries(out) if e.get("event") == "body")
    assert body["bytes"] == len(big) and body["body_too_large"]["bytes"] == len(big)
    assert out.stat().st_size < 20_000


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["proxy-model", "--upstream", "ftp://x", "--out", "m.jsonl"], "give an http:// or https:// URL"),
        (["proxy-model", "--upstream", "http://x/v1", "--out", "m.jsonl", "--port", "70000"], "--port 70000"),
        (["proxy-http", "--upstream", "nonsense", "--out", "m.jsonl"], "give an http:// or https:// URL"),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, monkeypatch, args, said):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and said in err and err.count("\n") == 1


def test_the_mcp_http_proxy_refuses_a_port_in_use(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    served = mcp_http_proxy("http://127.0.0.1:9/mcp", str(tmp_path / "a.jsonl")).start()
    try:
        args = ["proxy-http", "--upstream", "http://127.0.0.1:9/mcp", "--port", str(served.port), "-o", "b.jsonl"]
        assert main(args) == 2
    finally:
        served.stop()
    err = capsys.readouterr().err
    assert (
        err
        == f"error: port {served.port} on 127.0.0.1 is in use: give another with --port, or --port 0 for a free one\n"
    )
    assert not (tmp_path / "b.jsonl").exists()
