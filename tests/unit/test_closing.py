"""The closing view after a trace's last hop: every figure computed from the trace (a trace with other tools shows
another share), article 000's three questions answered from the hops, the roles, article 004's sum and its
correction, and a run that stopped told as stopped. Present in the lesson script, the viewer's data and the HTML
export, in Chinese and English."""

from __future__ import annotations

import json

import pytest

from flow.text.names import Lang
from flow.trace.factory import compact_json
from flow.trace.files import load_trace
from flow.trace.model import Trace
from flow.views.closing import closing_bundle, closing_facts, sections
from flow.views.html import to_html
from flow.views.lesson import lesson_markdown
from flow.views.viewer import part_trace, viewer_bundle
from helpers import ROOT, run_flow_sync

LANGS: list[Lang] = ["zh", "en"]


def sample(name: str) -> Trace:
    return load_trace(ROOT / "sample_traces" / f"{name}.json")


def text_of(trace: Trace, lang: Lang) -> str:
    notice, parts = sections(trace, lang)
    lines = [notice or ""]
    for s in parts:
        lines += [s.heading] + [f"{i.label or ''} {i.text}" for i in s.items]
    return "\n".join(lines)


def answer(trace: Trace, lang: Lang, k: int) -> str:
    """The closing view's answer to article 000's question k (0: function calling, 1: MCP, 2: who ran the tool)."""
    return sections(trace, lang)[1][0].items[k].text


def requests_of(trace: Trace) -> list[dict]:
    return [h.payload["body"] for h in trace.hops if h.kind == "llm.request"]


def share_by_hand(trace: Trace) -> tuple[int, int]:
    bodies = requests_of(trace)
    return sum(len(compact_json(b["tools"]).encode()) for b in bodies), sum(
        len(compact_json(b).encode()) for b in bodies
    )


def with_fewer_tools(trace: Trace, keep: int) -> Trace:
    """The same run, as if the host had exposed only its first `keep` tools (each request's body and size)."""
    hops = []
    for hop in trace.hops:
        if hop.kind == "llm.request":
            body = json.loads(json.dumps(hop.payload["body"]))
            body["tools"] = body["tools"][:keep]
            hop = hop.model_copy(
                update={"payload": {**hop.payload, "body": body}, "bytes": len(compact_json(body).encode())}
            )
        hops.append(hop)
    return trace.model_copy(update={"hops": hops})


# --- the figures are the trace's -----------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_the_tool_definitions_share_is_computed_from_the_request_payloads(lang):
    trace = sample("beijing-mcp")
    tools, total = share_by_hand(trace)
    facts = closing_facts(trace)
    assert (facts.tool_bytes, facts.bytes) == (tools, total)
    assert f"{tools / total:.0%}" == "78%"  # the figure the issue names for this sample
    text = text_of(trace, lang)
    shown = f"{tools:,}"
    assert shown in text and f"{total:,}" in text and "78%" in text
    assert [s.bar for s in sections(trace, lang)[1] if s.key == "cost"] == [pytest.approx(tools / total)]
    # prompt_tokens where the model reported usage, beside the estimate
    reported = [h.usage.get("prompt_tokens") for h in trace.hops if h.kind == "llm.response" and h.usage]

    assert all(f"{n:,}" in text for n in reported)


@pytest.mark.parametrize("lang", LANGS)
def test_a_trace_whose_host_exposes_fewer_tools_shows_the_share_move(lang):
    trace = sample("beijing-mcp")
    fewer = with_fewer_tools(trace, 1)
    before, after = closing_facts(trace).share, closing_facts(fewer).share
    tools, total = share_by_hand(fewer)
    assert after == pytest.approx(tools / total) and after < before - 0.2
    text = text_of(fewer, lang)
    assert f"{after:.0%}" in text and f"{tools:,}" in text
    total_line = next(line for line in text.split("\n") if "In all" in line or "合计" in line)
    assert f"{after:.0%}" in total_line and f"{before:.0%}" not in total_line
    # the 40-tool sum is this trace's too: one definition's tokens times 40
    each = closing_facts(fewer).requests[0].tool_tokens
    assert f"{each * 40:,}" in text


@pytest.mark.parametrize("lang", LANGS)
def test_every_request_carries_every_definition_in_both_modes(lang):
    for name in ("beijing-mcp", "beijing-direct"):
        trace = sample(name)
        counts = {len(b["tools"]) for b in requests_of(trace)}
        assert counts == {4}, name
        assert (
            "2 个请求每个都重新带上全部定义" if lang == "zh" else "Each of the 2 requests carries all of them again"
        ) in text_of(trace, lang)


# --- the corrections -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_article_004_is_corrected_mcp_does_not_shrink_what_the_model_is_sent(lang):
    text = text_of(sample("beijing-mcp"), lang)
    if lang == "zh":
        assert "MCP 改变的是谁来维护这些定义，不是模型收到多少" in text and "这不对" in text
        assert "从结构上解决了" in text.split("这不对")[0]  # the article's claim is named only to be refused
    else:
        assert "What MCP changes is who maintains the definitions, not what the model is sent" in text
        assert "It does not:" in text
    assert "40 × 300 = 12,000" in text  # article 004's sum, at its own "a few hundred" tokens


@pytest.mark.parametrize("lang", LANGS)
def test_article_000_is_corrected_the_host_translates_not_mcp(lang):
    mcp = answer(sample("beijing-mcp"), lang, 1)
    seqs = {h.kind: h.seq for h in sample("beijing-mcp").hops if h.kind.startswith("translate.")}
    if lang == "zh":
        assert "两次翻译是宿主应用做的，不是 MCP" in mcp and "说错了" in mcp
    else:
        assert "The two translations are the host app's work, not MCP's" in mcp and "has it wrong" in mcp
    assert str(seqs["translate.forward"]) in mcp and str(seqs["translate.reverse"]) in mcp


@pytest.mark.parametrize("lang", LANGS)
def test_direct_mode_has_no_mcp_and_its_json_loads_is_no_reverse_translation(lang):
    trace = sample("beijing-direct")
    mcp = answer(trace, lang, 1)
    assert ("把 arguments 字符串解析成 JSON" if lang == "zh" else "json.loads") in mcp
    assert ("不是反向翻译" if lang == "zh" else "is no reverse translation") in mcp
    roles = [i.label for i in sections(trace, lang)[1][1].items]
    assert roles == (["宿主应用", "模型 API"] if lang == "zh" else ["Host app", "Model API"])
    assert ("没有 MCP 客户端，也没有 MCP 服务器" if lang == "zh" else "no MCP client and no MCP server") in text_of(
        trace, lang
    )


@pytest.mark.parametrize("lang", LANGS)
def test_server_discover_is_not_called_a_session_set_up(lang):
    mcp = answer(sample("era-modern"), lang, 1)
    assert "server/discover" in mcp
    assert ("不建立会话" if lang == "zh" else "sets up no session") in mcp
    assert ("建立会话，每个会话一次" if lang == "zh" else "set up the session") not in mcp
    handshake = answer(sample("era-handshake"), lang, 1)
    assert ("建立会话" if lang == "zh" else "set up the session") in handshake


# --- the three questions, from the hops ----------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_the_three_questions_are_answered_from_this_trace(lang):
    trace = sample("beijing-mcp")
    decision = next(h for h in trace.hops if h.kind == "llm.response" and h.step == 4)
    invoke = next(h for h in trace.hops if h.kind == "tool.invoke")
    fc, tool = answer(trace, lang, 0), answer(trace, lang, 2)
    assert str(decision.seq) in fc and "get_weather(city=北京)" in fc and '"tool_calls"' in fc
    assert (
        str(invoke.seq) in tool and ("MCP 服务器的进程" if lang == "zh" else "inside the MCP server's process") in tool
    )
    # the quirky provider's finish_reason is told as it came, not as the rule would have it
    assert '"stop"' in answer(sample("quirky-provider"), lang, 0)
    assert "tool_calls" not in answer(sample("tool-choice-none"), lang, 0).split("：")[0]


@pytest.mark.parametrize("lang", LANGS)
def test_a_tool_that_never_ran_is_not_said_to_have_run(lang):
    unknown = answer(sample("unknown-tool"), lang, 2)
    assert "-32602" in unknown and ("什么也没有运行" if lang == "zh" else "nothing ran") in unknown
    refused = answer(sample("bad-json-arguments"), lang, 2)
    assert ("应用在发出调用之前就拒绝了" if lang == "zh" else "the app refused its arguments") in refused
    raised = answer(sample("tool-error"), lang, 2)
    assert "ToolError" in raised
    direct_wrong = answer(run_flow_sync(model="mock-wrong-tool", mode="direct").trace, lang, 2)
    assert ("应用里没有这个名字的函数" if lang == "zh" else "the app has no function by that name") in direct_wrong
    assert "get_current_weather(city=北京)：应用自己的" not in direct_wrong
    assert "get_current_weather(city=北京): the app's own" not in direct_wrong


@pytest.mark.parametrize("lang", LANGS)
def test_the_roles_say_what_each_one_saw_computed_from_the_frames(lang):
    trace = sample("beijing-mcp")
    ids = {h.tool_call_id for h in trace.hops if h.tool_call_id}
    frames = [json.dumps(h.payload, ensure_ascii=False) for h in trace.hops if h.kind.startswith("mcp.")]
    assert ids and not any(i in f for i in ids for f in frames)  # the fact the text states, checked here
    roles = {i.label: i.text for i in sections(trace, lang)[1][1].items}
    client = roles["MCP 客户端" if lang == "zh" else "MCP client"]
    assert f"{len(frames)}" in client and ("MCP 从来看不到它" if lang == "zh" else "MCP never sees one") in client
    model = roles["模型 API" if lang == "zh" else "Model API"]
    assert ("JSON-RPC 帧一个也到不了它那里" if lang == "zh" else "Not one JSON-RPC frame reaches it") in model
    host = roles["宿主应用" if lang == "zh" else "Host app"]
    rpc = next(h.jsonrpc_id for h in trace.hops if h.kind == "mcp.request" and h.payload.get("method") == "tools/call")
    assert f"{next(iter(ids))} ↔ id {rpc}" in host


def test_a_tool_call_id_inside_a_frame_takes_the_claim_away():
    trace = sample("beijing-mcp")
    call_id = next(h.tool_call_id for h in trace.hops if h.tool_call_id)
    hops = [
        h.model_copy(update={"payload": {**h.payload, "params": {**h.payload["params"], "_meta": {"id": call_id}}}})
        if h.kind == "mcp.request" and h.payload.get("method") == "tools/call"
        else h
        for h in trace.hops
    ]
    changed = trace.model_copy(update={"hops": hops})
    assert "MCP never sees one" not in text_of(changed, "en") and "MCP never sees one" in text_of(trace, "en")


# --- a run that stopped -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stopped() -> Trace:
    result = run_flow_sync(transport="memory", server_fault="die")
    assert not result.ok
    return result.trace


@pytest.mark.parametrize("lang", LANGS)
def test_a_run_that_stopped_says_so_and_invents_no_answer_or_run(stopped, lang):
    notice, _ = sections(stopped, lang)
    failure = next(h for h in stopped.hops if h.kind == "error")
    assert notice is not None and str(failure.seq) in notice
    assert ("中止" if lang == "zh" else "stopped") in notice
    tool = answer(stopped, lang, 2)
    assert ("没有记录到它的结果" if lang == "zh" else "no result of it is recorded") in tool
    assert ("在 MCP 服务器的进程里运行" if lang == "zh" else "run inside the MCP server's process") not in tool
    assert sections(sample("beijing-mcp"), lang)[0] is None


# --- in every host -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_the_closing_view_ends_the_lesson_script(lang):
    trace = sample("beijing-mcp")
    script = lesson_markdown(trace, lang=lang)
    title = "这次运行说明了什么" if lang == "zh" else "What this run shows"
    assert f"## {title}" in script
    tail = script.split(f"## {title}")[1]
    tools, _ = share_by_hand(trace)
    assert f"{tools:,}" in tail and "78%" in tail
    assert ("函数调用在哪一步？" if lang == "zh" else "Where is function calling?") in tail
    assert "\n### " not in tail  # the script's ### are its hops, one each
    assert all(f"\n**{s.heading}**\n" in tail for s in sections(trace, lang)[1])


@pytest.mark.parametrize("lang", LANGS)
def test_the_closing_view_is_in_the_viewers_data_and_the_html_export(lang: Lang):
    trace = sample("beijing-direct")
    bundle = viewer_bundle(trace, lang=lang)
    assert bundle["closing"] == closing_bundle(trace)
    mine = closing_bundle(trace)[lang]
    assert mine["title"] == ("这次运行说明了什么" if lang == "zh" else "What this run shows")
    assert [s["key"] for s in mine["sections"]] == ["questions", "roles", "cost", "choose"]
    page = to_html(trace, lang=lang)
    assert mine["sections"][2]["items"][0]["text"] in page
    # a part of a long trace gets none: it would speak of the part as if it were the run
    assert viewer_bundle(part_trace(trace, range(0, 5)), lang=lang)["closing"] is None


@pytest.mark.parametrize("lang", LANGS)
def test_a_server_that_does_not_report_its_run_is_not_said_to_have_reported_it(lang):
    trace = sample("beijing-mcp")
    silent = trace.model_copy(
        update={"hops": [h for h in trace.hops if h.source != "mcp_server" or h.target != "tool"]}
    )
    tool = answer(silent, lang, 2)
    assert (
        "服务器没有报告函数本身的运行" if lang == "zh" else "the server did not report the function's own run"
    ) in tool
    assert ("服务器报告它运行了" if lang == "zh" else "the server reports that it ran") not in tool


@pytest.mark.parametrize("lang", LANGS)
def test_a_call_the_model_asked_for_but_the_round_limit_stopped_is_not_said_to_have_run(lang):
    trace = run_flow_sync(question="北京今天天气怎么样？给我一个出行建议", max_rounds=1).trace
    asked = {c["function"]["name"] for h in trace.hops if h.kind == "llm.response" for c in _calls_of(h)}
    sent = {h.payload["tool_call"]["function"]["name"] for h in trace.hops if h.kind == "translate.reverse"}
    [never] = asked - sent
    tool = answer(trace, lang, 2)
    assert never in tool and ("什么也没有运行" if lang == "zh" else "nothing ran") in tool.split(never)[1]


@pytest.mark.parametrize("lang", LANGS)
def test_arguments_the_server_refused_are_an_error_result_not_a_run(lang):
    trace = run_flow_sync(model="mock-bad-args").trace
    tool = answer(trace, lang, 2)
    assert "get_weather(city_name=北京)" in tool
    first = tool.split("get_weather(city=北京)")[0]
    assert "isError" in first and ("在 MCP 服务器的进程里运行" if lang == "zh" else "run inside") not in first


def _calls_of(hop) -> list[dict]:
    choices = hop.payload["body"].get("choices") or [{}]
    return choices[0].get("message", {}).get("tool_calls") or []


def test_the_forward_translation_named_is_the_tool_definitions_not_a_prompts_content():
    trace = sample("prompt-fetched")
    content = next(h.seq for h in trace.hops if h.kind == "translate.forward" and "what" in h.payload)
    tools = next(h.seq for h in trace.hops if h.kind == "translate.forward" and "what" not in h.payload)
    mcp = answer(trace, "en", 1)
    assert f"forward translation (hop {tools}, inputSchema → parameters)" in mcp and f"hops {content}" not in mcp
