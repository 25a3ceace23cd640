"""The model proxy (`python -m flow proxy-model`): the real openai SDK talks to it as to a provider, here the mock
model served over HTTP; answers come back as the provider sent them (a stream event by event, as they come), the
recording holds every body and no key."""

from __future__ import annotations

import json
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx2
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

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
QUESTION: list[ChatCompletionMessageParam] = [{"role": "user", "content": "北京今天天气怎么样？"}]


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
        ask: dict[str, Any] = {"model": "mock", "messages": QUESTION, "tools": TOOLS}
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
    log = entries(out)
    assert log[0]["mcp_flow_proxy"]["transport"] == "model-http" and log[-1]["mcp_flow_proxy_end"]["exchanges"] == 2
    first = [e for e in log if e.get("exchange") == 1]
    assert first[0]["headers"]["authorization"] == "[redacted]"  # as the app's own trace shows it
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
        (["proxy-model", "--upstream", "http://me:pw-0123456@x/v1", "-o", "m.jsonl"], "holds a user name or password"),
        (["proxy-http", "--upstream", "http://me:pw-0123456@x/mcp", "-o", "m.jsonl"], "holds a user name or password"),
        (["proxy-model", "--upstream", "ftp://me:pw-0123456@x/v1", "-o", "m.jsonl"], "give an http:// or https://"),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, monkeypatch, args, said):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and said in err and err.count("\n") == 1
    assert "pw-0123456" not in err and not (tmp_path / "m.jsonl").exists()


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


class RawUpstream:
    """An HTTP server on loopback written on a bare socket, so that its answer can be anything, a reset mid-body
    too: each request's line and headers are kept in `seen`; `answer(request_line)` gives the bytes sent back, one
    connection per request. With `reset`, the connection is then reset (RST), not closed."""

    def __init__(self, answer: Callable[[str], bytes], *, reset: bool = False) -> None:
        self.answer, self.reset = answer, reset
        self.seen: list[tuple[str, dict[str, str]]] = []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.1)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                data = b""
                while b"\r\n\r\n" not in data and (chunk := conn.recv(65536)):
                    data += chunk
                head, _, rest = data.partition(b"\r\n\r\n")
                line, *fields = head.decode("latin-1").split("\r\n")
                headers = {k.strip().lower(): v.strip() for k, _, v in (f.partition(":") for f in fields)}
                while len(rest) < int(headers.get("content-length", "0")) and (chunk := conn.recv(65536)):
                    rest += chunk
                self.seen.append((line, headers))
                conn.sendall(self.answer(line))
                if self.reset:
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


@pytest.fixture
def raw_upstream() -> Iterator[Callable[..., RawUpstream]]:
    started: list[RawUpstream] = []

    def start(answer: Callable[[str], bytes], *, reset: bool = False) -> RawUpstream:
        started.append(RawUpstream(answer, reset=reset))
        return started[-1]

    yield start
    for upstream in started:
        upstream.close()


def _answer(body: bytes, *headers: str, length: int | None = None) -> bytes:
    head = ["HTTP/1.1 200 OK", "Content-Type: application/json", *headers, f"Content-Length: {length or len(body)}"]
    return ("\r\n".join([*head, "Connection: close", "", ""])).encode() + body


PROXIES = pytest.mark.parametrize(
    ("make", "path"),
    [(model_proxy, "/v1/chat/completions"), (mcp_http_proxy, "/mcp")],
    ids=["proxy-model", "proxy-http"],
)


@PROXIES
def test_proxy_keeps_no_cookies_between_clients(tmp_path, raw_upstream, make, path):
    cookie = "session=alice-session-0123456789; Path=/"
    upstream = raw_upstream(lambda line: _answer(b"{}", f"Set-Cookie: {cookie}"))
    out = tmp_path / "cookies.jsonl"
    served = make(f"{upstream.url}/v1" if make is model_proxy else f"{upstream.url}/mcp", str(out)).start()
    url = f"http://127.0.0.1:{served.port}{path}"
    try:
        alice = httpx2.post(url, content=b"{}", headers={"content-type": "application/json"})
        bob = httpx2.post(url, content=b"{}", headers={"content-type": "application/json", "x-client": "bob"})
    finally:
        served.stop()
    assert alice.headers["set-cookie"] == cookie  # passed back to the client it was meant for
    (_, for_alice), (_, for_bob) = upstream.seen
    assert "cookie" not in for_alice and "cookie" not in for_bob  # Alice's session never sent on Bob's behalf
    # Bob's request goes as he sent it: no header of the proxy's own, only what reaches the same upstream anyway.
    sent = {k.lower() for k in bob.request.headers} - {"connection"}
    assert set(for_bob) == sent and for_bob["accept-encoding"] == "identity" and for_bob["x-client"] == "bob"
    if make is model_proxy:  # and the recording shows it as it went
        assert [e["headers"] for e in entries(out) if e.get("event") == "request"][1] == for_bob
    assert b"alice-session-0123456789" not in out.read_bytes()


@PROXIES
def test_an_upstream_reset_mid_body_is_a_broken_connection_not_a_complete_answer(
    tmp_path, raw_upstream, capfd, make, path
):
    upstream = raw_upstream(lambda line: _answer(b'{"part', length=1000), reset=True)
    out = tmp_path / "reset.jsonl"
    served = make(f"{upstream.url}/v1" if make is model_proxy else f"{upstream.url}/mcp", str(out)).start()
    got: list[bytes] = []
    try:
        with httpx2.stream("POST", f"http://127.0.0.1:{served.port}{path}", content=b"{}", timeout=10) as response:
            assert response.status_code == 200
            with pytest.raises(httpx2.RemoteProtocolError):  # as the client's own connection would have broken
                for chunk in response.iter_bytes():
                    got.append(chunk)
    finally:
        served.stop()
    assert b"".join(got) == b'{"part'
    said = [e.get("error") or e.get("note") or "" for e in entries(out)]
    assert any("the upstream's answer broke off" in line for line in said)
    assert "Traceback" not in capfd.readouterr().err


def _raw_request(port: int, head: str, body: bytes) -> socket.socket:
    """A request on a socket of its own, its head and the first part of its body sent; the rest never comes."""
    client = socket.create_connection(("127.0.0.1", port))
    client.settimeout(10)
    client.sendall(head.encode() + b"\r\n\r\n" + body)
    return client


def _read_all(client: socket.socket) -> bytes:
    data = b""
    while chunk := client.recv(65536):
        data += chunk
    return data


@PROXIES
def test_a_request_body_that_comes_too_slowly_is_refused_at_the_deadline(tmp_path, make, path):
    asked: list[httpx2.Request] = []
    upstream = httpx2.MockTransport(lambda request: asked.append(request) or httpx2.Response(200, json={}))
    out = tmp_path / "slow.jsonl"
    served = make("https://upstream.example/v1", str(out), transport=upstream, timeout_s=0.5).start()
    try:
        with _raw_request(served.port, f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 100", b"x") as client:
            answer = _read_all(client)  # the proxy answers and closes: the client need not send the rest
    finally:
        served.stop()
    assert answer.startswith(b"HTTP/1.1 408 ") and b"did not come within 0.5 s" in answer
    assert asked == []
    notes = [e["note"] for e in entries(out) if "note" in e]
    assert notes == [f"POST {path}: the request body did not come within 0.5 s (1 byte of it came): not forwarded"]


@PROXIES
def test_request_bodies_held_at_once_are_bounded_in_all(tmp_path, make, path):
    asked: list[httpx2.Request] = []
    upstream = httpx2.MockTransport(lambda request: asked.append(request) or httpx2.Response(200, json={}))
    out = tmp_path / "held.jsonl"
    served = make("https://upstream.example/v1", str(out), transport=upstream)
    relay = served.relay
    relay.max_request_bytes, relay.max_held_bytes = 1500, 1000
    served.start()
    url = f"http://127.0.0.1:{served.port}{path}"
    try:
        with _raw_request(served.port, f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 1400", b"a" * 800):
            for _ in range(500):  # until the proxy holds the first body's 800 bytes
                if relay.held_bytes == 800:
                    break
                time.sleep(0.01)
            assert relay.held_bytes == 800
            crowded = httpx2.post(url, content=b"b" * 500)
            too_big = httpx2.post(url, content=b"c" * 1600)  # refused by its Content-Length, before it is read
        for _ in range(500):  # the first client left: what it held is free again
            if relay.held_bytes == 0:
                break
            time.sleep(0.01)
        after = httpx2.post(url, content=b"d" * 500)
    finally:
        served.stop()
    assert crowded.status_code == 503 and crowded.headers["retry-after"] == "1"
    assert (
        "as many request bodies at once as it may (1000 bytes in all): not forwarded, try again"
        in crowded.json()["error"]["message"]
    )
    assert too_big.status_code == 413 and "over 1500 bytes" in too_big.json()["error"]["message"]
    assert after.status_code == 200 and [r.content for r in asked] == [b"d" * 500] and relay.held_bytes == 0
    notes = [e["note"] for e in entries(out) if "note" in e]
    assert len(notes) == 3 and "not forwarded" in notes[0]


def test_the_upstream_query_goes_after_the_path_and_stays_out_of_the_recording(tmp_path, raw_upstream):
    upstream = raw_upstream(lambda line: _answer(json.dumps({"echo": line}).encode()))
    out = tmp_path / "query.jsonl"
    served = model_proxy(f"{upstream.url}/v1?api-key=UPSTREAM-QUERY-123456", str(out)).start()
    try:
        answer = httpx2.post(f"{served.url}/chat/completions?user=CLIENT-QUERY-654321", json={"model": "m"})
    finally:
        served.stop()
    line = "POST /v1/chat/completions?api-key=UPSTREAM-QUERY-123456&user=CLIENT-QUERY-654321 HTTP/1.1"
    assert upstream.seen[0][0] == line and answer.json() == {"echo": line}
    assert "authorization" not in upstream.seen[0][1]  # the client sent none, and the proxy adds none
    written = out.read_bytes()
    assert b"UPSTREAM-QUERY-123456" not in written and b"CLIENT-QUERY-654321" not in written  # though echoed


@PROXIES
def test_a_recording_redacts_what_the_apps_trace_redacts(tmp_path, raw_upstream, make, path):
    echo = b'{"note": "not JSON-RPC", "api_key": "echoed-key-0123"}'
    upstream = raw_upstream(lambda line: _answer(echo, "X-Custom-Pass: upstream-pass-4567"))
    out = tmp_path / "redacted.jsonl"
    served = make(f"{upstream.url}/v1" if make is model_proxy else f"{upstream.url}/mcp", str(out)).start()
    url = f"http://127.0.0.1:{served.port}{path}"
    try:
        httpx2.post(url, content=b"api_key=form-key-0123&x=1", headers={"X-Custom-Pass": "client-pass-7654"})
    finally:
        served.stop()
    written = out.read_text(encoding="utf-8")
    for secret in ("form-key-0123", "echoed-key-0123", "client-pass-7654", "upstream-pass-4567"):
        assert secret not in written
    if make is model_proxy:
        request, response = (e for e in entries(out) if e.get("event") in ("request", "response"))
        assert request["headers"]["x-custom-pass"] == response["headers"]["x-custom-pass"] == "[redacted]"
        assert request["body"] == "api_key=[redacted]&x=1"
    else:
        assert "api_key=[redacted]&x=1" in written


@PROXIES
def test_a_big_request_body_goes_on_whole_and_is_recorded_by_its_size(tmp_path, make, path):
    asked: list[bytes] = []
    upstream = httpx2.MockTransport(lambda request: asked.append(request.read()) or httpx2.Response(200, json={}))
    out = tmp_path / "big-request.jsonl"
    served = make("https://upstream.example/v1", str(out), transport=upstream).start()
    big = b'{"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"text": "' + b"x" * (3 << 20) + b'"}}'
    try:
        answer = httpx2.post(f"http://127.0.0.1:{served.port}{path}", content=big)
    finally:
        served.stop()
    assert answer.status_code == 200 and asked == [big] and served.relay.held_bytes == 0
    written = entries(out)
    if make is model_proxy:
        request = next(e for e in written if e.get("event") == "request")
        assert request["bytes"] == len(big) and request["body_too_large"]["bytes"] == len(big)
        assert request["headers"]["content-length"] == str(len(big))
    else:
        assert [e["too_large"]["bytes"] for e in written if "too_large" in e] == [len(big)]
    assert out.stat().st_size < 20_000
