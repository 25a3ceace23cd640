"""Message 6 from the demo server in its own process over Streamable HTTP, and in every sample (the report's other
rules are tested in this process: tests/unit/test_step6_server_report.py)."""

from __future__ import annotations

from test_step6_server_report import check_reported, reported_pairs  # the unit lane's helpers (pyproject.toml)

from flow import RunOptions, run
from flow.engine.model import ModelConfig
from flow.trace.files import load_trace
from helpers import ROOT, TOKEN


def test_over_streamable_http_the_server_process_reports_it_too(demo, monkeypatch):
    monkeypatch.setenv("DEMO_AUTH", TOKEN)
    result = run(
        "北京今天天气怎么样？",
        options=RunOptions(server_url=demo.url, bearer_token_env="DEMO_AUTH"),
        model=ModelConfig(model="mock"),
    )
    assert result.ok, result.error
    check_reported(result.trace, calls=1)


def test_every_mcp_sample_of_the_demo_server_has_message_6():
    for path in sorted((ROOT / "sample_traces").glob("*.json")):
        trace = load_trace(path)
        calls = [h for h in trace.hops if h.kind == "mcp.request" and h.payload["method"] == "tools/call"]
        answered = [h for h in trace.hops if h.kind == "mcp.response" and "structuredContent" in h.payload["result"]]
        raised = [h for h in trace.hops if h.kind == "mcp.response" and h.payload["result"].get("isError")]
        # Another server (ops-demo) reports nothing, and neither do the demo's tools that ask back (weather_demo.asking):
        # their message 6 is the server asking the client, shown by the frames themselves.
        server = trace.meta.server or {}
        demo = server.get("name") == "weather-demo" and not server.get("asks")
        if trace.meta.mode == "mcp" and calls and demo:
            assert len(reported_pairs(trace)) == len(answered) + len(raised) >= 1, path.name
