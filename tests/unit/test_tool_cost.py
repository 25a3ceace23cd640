"""The tool-cost chart: prompt tokens per model request against the number of tools, computed from traces (the
samples, and runs made now with the mock at 4 to 40 tools), never written in by hand."""

from __future__ import annotations

import json

import pytest

from flow.samples import TOOL_COST_SIZES, tool_cost_traces
from flow.trace.files import load_trace
from flow.views.tool_cost import ToolCostPoint, tool_cost_chart, tool_cost_points
from helpers import ROOT

SAMPLE_DIR = ROOT / "sample_traces"


def sample(name: str):
    return load_trace(SAMPLE_DIR / f"{name}.json")


@pytest.fixture(scope="module")
def made_now() -> list[ToolCostPoint]:
    return tool_cost_points(tool_cost_traces())


def test_prompt_tokens_rise_with_the_tool_count_in_runs_made_now(made_now):
    for request in (1, 2):
        mcp = sorted((p.tools, p.prompt_tokens) for p in made_now if p.server == "ops-demo" and p.request == request)
        assert [n for n, _ in mcp] == list(TOOL_COST_SIZES)
        tokens = [t for _, t in mcp]
        assert tokens == sorted(tokens) and len(set(tokens)) == len(tokens), mcp
    # Each request of a run pays for every definition again: the backfill costs more than the first request.
    first = {p.tools: p.prompt_tokens for p in made_now if p.server == "ops-demo" and p.request == 1}
    backfill = {p.tools: p.prompt_tokens for p in made_now if p.server == "ops-demo" and p.request == 2}
    assert all(backfill[n] > first[n] for n in first)


def test_the_definitions_are_most_of_a_forty_tool_request_and_their_share_grows(made_now):
    shares = [
        p.tool_share for p in sorted(made_now, key=lambda p: p.tools) if p.server == "ops-demo" and p.request == 1
    ]
    assert shares == sorted(shares) and shares[-1] > 0.9


def test_the_runs_made_now_put_the_demos_four_tools_through_mcp_and_direct_mode_at_one_point(made_now):
    """The chart's function-calling point and the weather demo's MCP point are the same request: the model is sent
    the same function definitions either way (what MCP changes is where they come from)."""
    first = {(p.mode, p.server): p.prompt_tokens for p in made_now if p.request == 1 and p.tools == 4}
    assert first[("direct", "")] == first[("mcp", "weather-demo")]


def test_function_calling_and_mcp_send_the_model_the_same_first_request_at_four_tools():
    direct, mcp = tool_cost_points([sample("beijing-direct")]), tool_cost_points([sample("beijing-mcp")])
    assert [p.mode for p in direct] == ["direct", "direct"] and [p.mode for p in mcp] == ["mcp", "mcp"]
    assert direct[0].tools == mcp[0].tools == 4 and direct[0].prompt_tokens == mcp[0].prompt_tokens


def test_the_samples_give_the_forty_tool_figure_against_the_four_tool_one():
    points = tool_cost_points([sample("beijing-mcp"), sample("forty-tools-mcp")])
    first = {p.source: p for p in points if p.request == 1}
    assert first["forty-tools-mcp"].tools == 40 and first["beijing-mcp"].tools == 4
    assert first["forty-tools-mcp"].prompt_tokens > first["beijing-mcp"].prompt_tokens
    reported = sample("forty-tools-mcp").hops[9].usage
    assert reported is not None and first["forty-tools-mcp"].prompt_tokens == reported.get("prompt_tokens")


def test_a_response_without_usage_gives_no_point():
    trace = sample("quirky-provider")  # that provider reports no usage
    assert sum(h.kind == "llm.request" for h in trace.hops) and tool_cost_points([trace]) == []


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_chart_is_a_vega_lite_spec_with_its_data_inline_and_no_address(made_now, lang):
    spec = tool_cost_chart(made_now, lang=lang)
    assert len(spec["data"]["values"]) == len(made_now) and "url" not in spec["data"]
    assert "http" not in json.dumps(spec)  # nothing for the browser to fetch
    assert spec["encoding"]["x"]["field"] == "tools" and spec["encoding"]["y"]["field"] == "prompt_tokens"
    ways = {v["way"] for v in spec["data"]["values"]}
    if lang == "zh":
        assert spec["encoding"]["y"]["title"] == "输入词元数（prompt_tokens）"
        assert ways == {
            "MCP · ops-demo",
            "MCP · weather-demo",
            "函数调用（直接调用模式）",
        } and "提示" not in json.dumps(spec, ensure_ascii=False)
    else:
        assert ways == {"MCP · ops-demo", "MCP · weather-demo", "function calling (direct mode)"}
