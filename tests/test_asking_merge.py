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


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_a_sampling_call_is_merged_into_the_conversation_it_came_in(tmp_path: Path, upstream: str, era: str) -> None:  # noqa: F811
    app, merged = tmp_path / "app.json", tmp_path / "merged.json"
    server = shlex.join([PY, "-m", "flow", "proxy", "--", PY, "-m", "weather_demo", "--asks"])
    proc = flow_cli(
        "record", "--upstream", upstream, "--out", str(merged), "--",
        PY, "-m", "flow", "run", "--model", "mock", "--server", server, "--server-env", "MCP_FLOW_RECORD_DIR",
        "--host-capability", "sampling", "--era", era, "-q", "用一句话说说北京未来三天的天气", "--out", str(app),
        env={"OPENAI_API_KEY": KEY},
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    recorded, back = load_trace(app), load_trace(merged)
    assert back.meta.answer == recorded.meta.answer and "北京未来3天" in (back.meta.answer or "")
    assert back.meta.imported is not None
    assert not any("conversations" in note for note in back.meta.imported.unmapped)  # one conversation, not two
    shape = [(h.kind, h.step, h.source, h.target) for h in back.hops if h.kind.startswith("llm.")]
    assert shape == [(h.kind, h.step, h.source, h.target) for h in recorded.hops if h.kind.startswith("llm.")]
    [asked] = [h for h in back.hops if h.kind == "llm.request" and "for_server" in h.payload]
    assert (asked.source, asked.target, asked.step) == ("mcp_client", "model", 6) and asked.inferred
    assert back.meta.stats.get("tool_calls") == recorded.meta.stats.get("tool_calls") == 1
