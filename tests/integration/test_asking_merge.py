"""Recording an app whose MCP server asks its host's model (sampling), through the proxies, and merging: the call the
host made for the server stays in the conversation it came in, drawn for the server, not taken for a new one."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from test_proxy_merge import KEY, upstream  # noqa: F401  (the fixture: the mock model over HTTP)

from flow.trace.files import load_trace
from helpers import flow_cli

PY = sys.executable


CASES = {  # the question, what the answer holds, how many calls the host's model made for the server
    "sampling": ("用一句话说说北京未来三天的天气", "北京未来3天", 1),
    "sampling_tools": ("明天适合带全班去北京郊游吗？", "适合出游", 2),  # the server's own tool offered to the model
}


@pytest.mark.parametrize("era", ["handshake", "modern"])
@pytest.mark.parametrize("feature", list(CASES))
def test_a_sampling_call_is_merged_into_the_conversation_it_came_in(
    tmp_path: Path,
    upstream: str,  # noqa: F811
    era: str,
    feature: str,
) -> None:
    question, said, calls = CASES[feature]
    app, merged = tmp_path / "app.json", tmp_path / "merged.json"
    server = shlex.join([PY, "-m", "flow", "proxy", "--", PY, "-m", "weather_demo", "--asks"])
    proc = flow_cli(
        "record", "--upstream", upstream, "--out", str(merged), "--",
        PY, "-m", "flow", "run", "--model", "mock", "--server", server, "--server-env", "MCP_FLOW_RECORD_DIR",
        "--host-capability", "sampling", "--approve-sampling", "--era", era, "-q", question, "--out", str(app),
        env={"OPENAI_API_KEY": KEY},
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    recorded, back = load_trace(app), load_trace(merged)
    assert back.meta.answer == recorded.meta.answer and said in (back.meta.answer or "")
    assert back.meta.imported is not None
    assert not any("conversations" in note for note in back.meta.imported.unmapped)  # one conversation, not two
    shape = [(h.kind, h.step, h.source, h.target) for h in back.hops if h.kind.startswith("llm.")]
    assert shape == [(h.kind, h.step, h.source, h.target) for h in recorded.hops if h.kind.startswith("llm.")]
    asked = [h for h in back.hops if h.kind == "llm.request" and "for_server" in h.payload]
    assert len(asked) == calls
    assert all((h.source, h.target, h.step) == ("mcp_client", "model", 6) and h.inferred for h in asked)
    assert back.meta.stats.get("tool_calls") == recorded.meta.stats.get("tool_calls") == 1
