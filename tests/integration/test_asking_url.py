"""URL-mode elicitation: the server sends the user to a page (with this SDK 2025-11-25 only, a request back over the
session); the answer says only whether the user went, and nothing typed there passes through the client."""

from __future__ import annotations

import pytest

from flow.engine.options import RunOptions
from flow.runs import run
from flow.servers.spec import Era, ServerSpec
from weather_demo.asking import RADAR_URL


def _radar(era: Era, **chosen: object) -> list:
    options = RunOptions.build(server=ServerSpec(), asks=True, transport="memory", era=era, **chosen)  # type: ignore[arg-type]
    result = run("帮我打开降雨雷达", options=options)
    assert result.ok, result.error
    return result.trace.hops


@pytest.mark.parametrize(("said", "action"), [("yes", "accept"), ("no", "decline")])
def test_the_user_is_shown_the_address_and_the_answer_carries_no_content(said: str, action: str) -> None:
    hops = _radar("handshake", answers={"open": said})
    [asks] = [h for h in hops if h.kind == "mcp.request" and h.source == "mcp_server"]
    assert asks.payload["method"] == "elicitation/create" and asks.payload["params"]["mode"] == "url"
    assert asks.payload["params"]["url"] == RADAR_URL
    shown, answered = [h for h in hops if h.kind == "user.input"]
    assert (shown.payload["mode"], shown.payload["url"]) == ("url", RADAR_URL)
    assert answered.payload["action"] == action and "content" not in answered.payload
    [back] = [h for h in hops if h.kind == "mcp.response" and h.source == "mcp_client"]
    assert back.payload["result"] == {"action": action}


def test_no_answer_given_is_a_cancel_not_a_visit() -> None:
    hops = _radar("handshake")
    answered = [h for h in hops if h.kind == "user.input"][-1]
    assert answered.payload["action"] == "cancel"


def test_in_2026_07_28_there_is_no_request_back_so_the_tool_says_it_cannot() -> None:
    hops = _radar("modern", answers={"open": "yes"})
    assert not [h for h in hops if h.kind == "user.input"]
    result = next(h for h in hops if h.kind == "tool.result")
    assert "cannot send the user there" in str(result.payload)


def test_the_demo_server_with_its_asking_tools_over_streamable_http_from_the_command_line(tmp_path) -> None:
    """`mcp-flow demo-server --http --asks`, reached as any server over HTTP by a run whose host declares elicitation:
    the form crosses the network both ways and the answer is the user's."""
    import re
    import subprocess
    import sys

    from flow.trace.files import load_trace
    from helpers import ROOT, flow_cli

    served = subprocess.Popen(
        [sys.executable, "-m", "flow", "demo-server", "--http", "--asks", "--no-auth", "--port", "0"],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert served.stderr is not None
        url = ""
        for line in served.stderr:
            found = re.search(r"http://127\.0\.0\.1:\d+/mcp", line)
            if found:
                url = found.group(0)
                break
        assert url, "the server said no URL"
        out = tmp_path / "trace.json"
        proc = flow_cli(
            "run", "--server", url, "--host-capability", "elicitation", "--answer", "city=上海",
            "-q", "我这里今天天气怎么样？", "--out", str(out), timeout=60,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert "上海" in proc.stdout
        hops = load_trace(out).hops
        [asks] = [h for h in hops if h.kind == "mcp.request" and h.source == "mcp_server"]
        assert asks.payload["method"] == "elicitation/create"
        assert [h.payload.get("action") for h in hops if h.kind == "user.input" and h.direction == "response"] == [
            "accept"
        ]
    finally:
        served.terminate()
        served.wait(timeout=10)
