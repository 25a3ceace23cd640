"""Each wrong or misleading sentence an expert reader found in the teaching texts (issue 24), one test a case: the
wrong words are gone from the hop they were shown on, and the true fact, computed from that hop's own trace, is
there. A text chosen from the wrong situation fails here."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any, get_args

import pytest

from flow.text.names import Lang
from flow.text.teaching import STEP_TEXTS, TEXTS, HopContext, hop_contexts, situation, teaching_text
from flow.trace.factory import new_hop
from flow.trace.files import load_trace
from flow.trace.model import Actor, Hop, Kind, Trace
from flow.trace.steps import Step
from helpers import ROOT, run_flow_sync

LANGS: tuple[Lang, ...] = ("zh", "en")
SAMPLES = sorted((ROOT / "sample_traces").glob("*.json"))


@cache
def _trace(name: str) -> Trace:
    return load_trace(ROOT / "sample_traces" / f"{name}.json")


def _told(hops: list[Hop]) -> list[tuple[Hop, HopContext, str, dict[Lang, str]]]:
    """Each hop with its context, its situation's key and its text in both languages."""
    return [
        (hop, ctx, situation(hop, ctx).key, {lang: teaching_text(hop, lang, context=ctx) for lang in LANGS})
        for hop, ctx in zip(hops, hop_contexts(hops), strict=True)
    ]


def _of(name: str, kind: str, n: int = 0) -> tuple[Hop, str, dict[Lang, str]]:
    """The n-th hop of a kind in a sample, with its key and texts."""
    found = [(hop, key, texts) for hop, _, key, texts in _told(_trace(name).hops) if hop.kind == kind]
    return found[n]


def _all_told() -> list[tuple[str, Hop, str, dict[Lang, str]]]:
    return [(p.stem, hop, key, texts) for p in SAMPLES for hop, _, key, texts in _told(load_trace(p).hops)]


ALL = _all_told()


def _body(hop: Hop) -> dict[str, Any]:
    assert isinstance(hop.payload, dict)
    body = hop.payload.get("body")
    assert isinstance(body, dict)
    return body


def _titles(schema: Any) -> int:
    if not isinstance(schema, dict):
        return 0
    # a schema's title is a string; a property *named* title (ops-demo's create_ticket) is a schema, and stays
    return isinstance(schema.get("title"), str) + sum(_titles(v) for v in schema.values() if isinstance(v, dict))


# --- 1. forward translation ----------------------------------------------------------------------------------------


def test_forward_translation_says_what_the_app_removes_not_that_the_schema_is_unchanged():
    for name, hop, key, texts in ALL:
        if hop.kind != "translate.forward" or "content" in hop.payload:
            continue
        assert "schema itself is unchanged" not in texts["en"].lower() and "Schema 本身不变" not in texts["zh"]
        mcp = hop.payload["mcp"]
        titles = sum(_titles(t["inputSchema"]) for t in mcp)
        outputs = sum("outputSchema" in t for t in mcp)
        if not titles and not outputs:  # the ops-demo server's hand-written schemas: nothing to remove
            assert key == "translate.forward.same", name
            assert "title" not in texts["en"] and "outputSchema" not in texts["en"], texts["en"]
            continue
        assert titles and outputs, name  # the demo server's tools: pydantic titles, and an outputSchema each
        strict = any(t.get("function", t).get("strict") for t in hop.payload["openai"])  # the strict-mode sample
        base = re.sub(r"^(responses|messages)\.", "", key)  # a Responses or Messages run's own text
        assert base == ("translate.forward.strict" if strict else "translate.forward"), name
        for lang in LANGS:
            assert "title" in texts[lang] and "outputSchema" in texts[lang], texts[lang]
        if not strict:  # the strict text names what it leaves out, and says the rewrite
            assert f"{titles} keys in all" in texts["en"] and f"一共 {titles} 个键" in texts["zh"]


def test_forward_translation_with_strict_says_the_schema_is_rewritten():
    hops = run_flow_sync(strict=True).trace.hops
    hop, _, key, texts = next(t for t in _told(hops) if t[0].kind == "translate.forward")
    assert all(t["function"]["strict"] is True for t in hop.payload["openai"])
    assert all(t["function"]["parameters"]["additionalProperties"] is False for t in hop.payload["openai"])
    assert key == "translate.forward.strict"
    for lang in LANGS:
        assert "additionalProperties" in texts[lang] and "outputSchema" in texts[lang]
    assert "rewrites its schema" in texts["en"] and "改写" in texts["zh"]


# --- 2. what a tool list holds -------------------------------------------------------------------------------------


def test_the_tool_list_names_the_fields_its_payload_holds_outputschema_too():
    for kind in ("prepare.tools", "mcp.response"):
        found = [(h, k, t) for _, h, k, t in ALL if h.kind == kind and k in ("prepare.mcp", "tools_list.result")]
        assert found, kind
        with_output = 0
        for hop, _, texts in found:
            tools = hop.payload["tools"] if kind == "prepare.tools" else hop.payload["result"]["tools"]
            fields = {k for t in tools for k in t}
            with_output += "outputSchema" in fields  # the demo server's lists; ops-demo's have none
            for lang in LANGS:
                assert all(f in texts[lang] for f in fields), (fields, texts[lang])
            assert "only name, description and inputSchema" not in texts["en"].replace("has ", "only ")
            assert "只有 name、description 和" not in texts["zh"]
        assert with_output >= len(found) - 1, kind  # every list but the 40-tool server's names an outputSchema
    hop, _key, texts = _of("beijing-mcp", "prepare.tools")
    assert "title, annotations, icons and _meta" in texts["en"]
    assert "they are all the model will ever learn" not in texts["en"]


def test_tools_list_is_paginated_and_a_page_with_next_cursor_says_so():
    _, _, request = _of("beijing-mcp", "mcp.request", 1)
    assert "nextCursor" in request["en"] and "every tool it has" not in request["en"]
    page = new_hop(
        seq=1,
        kind="mcp.response",
        source="mcp_server",
        target="mcp_client",
        payload={
            "jsonrpc": "2.0",
            "id": 2,
            "result": {"tools": [{"name": "a", "inputSchema": {}}], "nextCursor": "p2"},
        },
        step=2,
        t_start_ms=0.0,
        t_end_ms=0.0,
        size=0,
    )
    assert situation(page).key == "tools_list.result.page"
    for lang in LANGS:
        assert "p2" in teaching_text(page, lang)
    second = page.model_copy(
        update={"seq": 2, "payload": {"jsonrpc": "2.0", "id": 3, "result": {"tools": [{"name": "b"}]}}}
    )
    call = page.model_copy(
        update={
            "seq": 3,
            "kind": "mcp.request",
            "payload": {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "a"}},
        }
    )
    contexts = hop_contexts([page, second, call])
    assert contexts[2].listed == ("a", "b")  # both pages: a tool on the first page is not "unlisted"
    assert situation(call, contexts[2]).key != "call.request.unlisted"
    _, key, whole = _of("beijing-mcp", "mcp.response", 1)
    assert key == "tools_list.result" and "no nextCursor" in whole["en"]


# --- 4. server/discover opens no session ---------------------------------------------------------------------------


def test_discover_is_not_a_session_and_the_client_may_skip_it():
    hop, key, texts = _of("era-modern", "mcp.request", 0)
    assert hop.payload["method"] == "server/discover" and key == "discover.request"
    assert "no session" in texts["en"] and "may skip" in texts["en"] and "clientInfo is optional" in texts["en"]
    assert "没有会话" in texts["zh"] and "省略" in texts["zh"] and "可选" in texts["zh"]
    assert "modern era" not in texts["en"] and "新协议时代" not in texts["zh"]
    result, key, told = _of("era-modern", "mcp.response", 0)
    assert "supportedVersions" in result.payload["result"] and key == "discover.result"
    assert "The client chooses a version from that list" in told["en"] and "客户端从中选一个版本" in told["zh"]
    step = STEP_TEXTS[Step.LIST_TOOLS]
    assert "opens a session (initialize, or server/discover" not in step["en"]
    assert "2026-07-28 has no session" in step["en"] and "2026-07-28 协议没有会话" in step["zh"]


# --- 5. a tools/call the server answers with an error: nothing is said to run --------------------------------------


def test_the_unknown_tools_call_is_not_told_that_the_server_runs_the_function():
    hops = _trace("unknown-tool").hops
    told = _told(hops)
    _call, ctx, key, texts = next(
        t for t in told if t[0].kind == "mcp.request" and t[0].payload["method"] == "tools/call"
    )
    assert ctx.answer is not None and ctx.answer.kind == "mcp.error"
    assert key == "call.request.unlisted"
    assert "runs the function" not in texts["en"] and "runs its function" not in texts["en"]
    assert "运行函数" not in texts["zh"] and "运行它的函数" not in texts["zh"]
    assert "not among the tools the server listed" in texts["en"] and "get_weather" in texts["en"]
    # no spoiler: the question at the next hop asks what the server answers
    assert "-32602" not in texts["en"] and "JSON-RPC error" not in texts["en"]
    step = STEP_TEXTS[Step.CALL_TOOL]
    assert "validates the arguments and runs" not in step["en"] and "nothing runs" in step["en"]
    assert "什么也不运行" in step["zh"]


def test_arguments_the_server_refuses_are_not_told_as_a_tool_that_ran_and_failed():
    hops = run_flow_sync(model="mock-bad-args").trace.hops
    told = _told(hops)
    call = next(t for t in told if t[0].kind == "mcp.request" and t[0].payload["method"] == "tools/call")
    answer = next(t for t in told if t[0].kind == "mcp.response" and t[0].payload.get("id") == call[0].payload["id"])
    assert call[2] == "call.request.checked" and "runs its function" not in call[3]["en"]
    assert "Before any function runs" in call[3]["en"] and "运行它的函数" not in call[3]["zh"]
    assert answer[0].payload["result"]["isError"] is True
    assert answer[2] == "result.wire.invalid"
    assert "ran and failed" not in answer[3]["en"] and "运行失败" not in answer[3]["zh"]
    assert "No function ran" in answer[3]["en"] and "没有任何函数运行" in answer[3]["zh"]


def test_a_function_that_raised_is_still_told_as_one_that_ran():
    hop, key, texts = _of("tool-error", "mcp.response", 2)
    assert hop.payload["result"]["_meta"]["dev.mcp-flow/tool-execution"]["outcome"] == "raised"
    assert key == "result.wire.raised" and "ran and raised" in texts["en"]


@pytest.mark.parametrize("name", ["tool-error", "tool-choice-required"])
def test_the_servers_report_of_a_raise_does_not_tell_the_answer_the_next_hops_question_asks_for(name: str):
    hop, key, texts = _of(name, "tool.result", 0)
    assert hop.source == "tool" and hop.payload["raised"]["type"] == "ToolError" and key == "result.server.raised"
    for lang in LANGS:
        assert "ToolError" in texts[lang]
        assert "isError" not in texts[lang] and "CallToolResult" not in texts[lang], texts[lang]


# --- 6. what the server reports is told as its report --------------------------------------------------------------


def test_a_hop_rebuilt_from_the_results_meta_is_the_servers_report_not_the_function_starting_now():
    told = _told(_trace("progress-notifications").hops)
    kinds = [t[0].kind for t in told]
    invoke = kinds.index("tool.invoke")
    assert "mcp.notification" in kinds[:invoke]  # the function's own progress came first
    hop, _, key, texts = told[invoke]
    assert hop.payload["reported_by"] == "mcp_server" and key == "invoke.server"
    assert "runs now" not in texts["en"] and "此刻开始运行" not in texts["zh"]
    assert "Reported" in texts["en"] and "报告" in texts["zh"]
    assert "result's _meta" not in texts["en"]  # the question two hops on asks whether a result or an error comes
    for _, hop, key, texts in ALL:
        if (
            hop.kind in ("tool.invoke", "tool.result")
            and hop.source in ("mcp_server", "tool")
            and "reported_by" in (hop.payload)
        ):
            assert "report" in texts["en"].lower() and "报告" in texts["zh"], key


# --- 7. a CallToolResult has no tool_call_id -----------------------------------------------------------------------


def test_the_call_tool_result_is_not_said_to_carry_the_tool_call_id():
    seen = 0
    for name, hop, key, texts in ALL:
        if hop.kind == "tool.result" and hop.source == "mcp_client":
            seen += 1
            assert not re.search(r"CallToolResult \(isError \w+\) for tool_call_id", texts["en"]), (name, texts["en"])
            assert "交出 tool_call_id 为" not in texts["zh"]
            assert "tool_call_id" not in json.dumps(hop.payload.get("result", {}))
            if "result" in hop.payload:
                ids = "(tool_call_id|call_id|tool_use_id)"  # each model API's name for the call's id
                assert re.search(f"carries no {ids}", texts["en"]) and re.search(f"不带 {ids}", texts["zh"]), key
                # the question after this hop asks which tool_call_id the backfill carries: the hop does not say
                assert hop.tool_call_id and hop.tool_call_id not in texts["en"], key
            else:
                assert "the app pairs it with tool_call_id" in texts["en"] and "MCP never sees one" in texts["en"]
    assert seen > 15


# --- 8. a user message can carry a file ----------------------------------------------------------------------------


def test_a_user_message_is_not_said_to_be_unable_to_carry_a_file():
    from openai.types.chat.chat_completion_content_part_param import ChatCompletionContentPartParam, File
    from openai.types.chat.chat_completion_user_message_param import ChatCompletionUserMessageParam

    assert File in get_args(ChatCompletionContentPartParam) and "file" in str(File.__annotations__["type"])
    assert "ChatCompletionContentPartParam" in str(ChatCompletionUserMessageParam.__annotations__["content"])
    hop = new_hop(
        seq=1,
        kind="translate.forward",
        source="app",
        target="app",
        payload={"what": "resource", "mcp": [], "openai": [], "content": ["text", "described"]},
        step=2,
        t_start_ms=0.0,
        t_end_ms=0.0,
        size=0,
    )
    assert situation(hop).key == "translate.content.mixed"
    en, zh = teaching_text(hop, "en"), teaching_text(hop, "zh")
    assert "nothing carries a file" not in en and "文件则哪条消息都带不了" not in zh
    assert "file parts" in en and "文件" in zh


# --- 11. the app knows of a tool call before the finishing chunk ---------------------------------------------------


def test_the_finishing_chunk_is_not_where_the_app_first_learns_of_a_tool_call():
    told = _told(_trace("streaming").hops)
    chunks = [t for t in told if t[0].kind == "llm.chunk"]
    first_call = next(i for i, t in enumerate(chunks) if "tool_calls" in json.dumps(t[0].payload.get("data")))
    finish = next(i for i, t in enumerate(chunks) if t[2] == "chunk.finish")
    assert first_call < finish
    texts = chunks[finish][3]
    assert "Only here does the app learn" not in texts["en"] and "直到这里才知道" not in texts["zh"]
    assert "first delta.tool_calls" in texts["en"] and '"stop" beside tool_calls' in texts["en"]
    # the quirky provider: finish_reason "stop" beside tool_calls, and the app still calls the tools
    quirky = _trace("quirky-provider").hops
    answer = next(h for h in quirky if h.kind == "llm.response")
    choice = _body(answer)["choices"][0]
    assert choice["finish_reason"] == "stop" and choice["message"]["tool_calls"]
    assert any(h.kind == "translate.reverse" for h in quirky)
    _, key, texts = _of("quirky-provider", "llm.response")
    assert (
        key == "decide.parallel.finish" and 'not "tool_calls"' in texts["en"] and "not by finish_reason" in texts["en"]
    )
    assert "而不是 finish_reason" in texts["zh"]


def test_the_finishing_chunk_of_an_answer_does_not_speak_of_a_tool_call():
    told = _told(_trace("streaming").hops)
    finishes = [t for t in told if t[2].startswith("chunk.finish")]
    assert [t[0].step for t in finishes] == [4, 9] and [t[2] for t in finishes] == [
        "chunk.finish",
        "chunk.finish.answer",
    ]
    answer = finishes[1][3]
    assert "know a tool was called" not in answer["en"] and "No delta in this stream brought tool_calls" in answer["en"]
    assert "没有哪个 delta 带来 tool_calls" in answer["zh"]


def test_the_first_chunk_with_only_a_role_is_this_recording_not_a_rule():
    for _, _hop, key, texts in ALL:
        if key == "chunk.role":
            assert (
                "here the first chunk" in texts["en"]
                and "not a rule" in texts["en"]
                and "这里的第一个分块" in texts["zh"]
            )


# --- misleading ----------------------------------------------------------------------------------------------------


def test_a_named_tool_choice_is_shown_as_the_object_the_wire_carries():
    hop, key, texts = _of("tool-choice-named", "llm.request", 0)
    choice = _body(hop)["tool_choice"]
    assert isinstance(choice, dict) and key == "ask.first.named"
    wire = json.dumps(choice)
    for lang in LANGS:
        assert wire in texts[lang], texts[lang]
    assert f"tool_choice {choice['function']['name']}." not in texts["en"]


@pytest.mark.parametrize("name", ["tool-choice-named", "tool-choice-required"])
def test_after_a_forced_first_round_the_backfill_says_tool_choice_is_back_to_auto(name: str):
    first, _, _ = _of(name, "llm.request", 0)
    hop, key, texts = _of(name, "llm.request", 1)
    assert _body(first)["tool_choice"] != "auto" and _body(hop)["tool_choice"] == "auto"
    assert key.startswith("ask.backfill.auto")
    assert 'back to "auto"' in texts["en"] and json.dumps(_body(first)["tool_choice"]) in texts["en"]
    assert '改回了 "auto"' in texts["zh"] and "循环" in texts["zh"]


def _share(body: dict[str, Any]) -> int:
    def size(v: Any) -> int:
        return len(json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode())

    return round(100 * size(body["tools"]) / size(body))


def test_prompt_tokens_are_not_put_down_to_the_conversation_alone_the_tool_definitions_are_most_of_them():
    told = _told(_trace("beijing-mcp").hops)
    answer = next(t for t in told if t[2] == "answer.after_tools")
    request = answer[1].asked
    assert request is not None
    share = _share(_body(request))
    assert share > 50
    assert f"{share} % of the request's bytes" in answer[3]["en"] and f"占请求字节的 {share}%" in answer[3]["zh"]
    assert "tool definitions" in answer[3]["en"]
    first = next(t for t in told if t[2] == "ask.first")
    assert f"{_share(_body(first[0]))} % of its bytes are the tool definitions" in first[3]["en"]


def test_the_model_is_not_said_to_know_a_tool_by_its_description_alone():
    step = STEP_TEXTS[Step.ASK_MODEL]
    assert "descriptions are all it knows" not in step["en"]
    assert "name, description and parameter schema" in step["en"] and "名字、描述和参数的 Schema" in step["zh"]


def test_structured_content_is_named_and_said_to_stay_out_of_the_tool_message():
    told = _told(_trace("beijing-mcp").hops)
    wire = next(t for t in told if t[0].kind == "mcp.response" and "content" in t[0].payload["result"])
    assert "structuredContent" in wire[0].payload["result"] and wire[2] == "result.wire.structured"
    assert "structuredContent" in wire[3]["en"] and "structuredContent" in wire[3]["zh"]
    app = next(t for t in told if t[0].kind == "tool.result" and t[0].source == "mcp_client")
    assert "leaves structuredContent out" in app[3]["en"] and "不发 structuredContent" in app[3]["zh"]
    backfill = next(t for t in told if t[0].kind == "llm.request" and t[0].step == 8)
    tool_messages = [m for m in _body(backfill[0])["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == [app[0].payload["tool_message_content"]]
    assert json.loads(tool_messages[0]["content"]) == app[0].payload["result"]["structuredContent"]
    step = STEP_TEXTS[Step.TOOL_RESULT]
    assert "structuredContent" in step["en"] and "content blocks plus isError" not in step["en"]


def test_direct_mode_is_not_told_of_an_is_error_function_calling_lacks():
    for _, _hop, key, texts in ALL:
        if key.startswith("result.direct"):
            assert "(isError" not in texts["en"] and "isError 为" not in texts["zh"], texts["en"]


def test_direct_mode_asked_for_a_function_it_does_not_have_says_nothing_ran():
    hops = run_flow_sync(model="mock-wrong-tool", mode="direct").trace.hops
    told = _told(hops)
    invoke = next(t for t in told if t[0].kind == "tool.invoke")
    result = next(t for t in told if t[0].kind == "tool.result")
    assert invoke[0].payload["function"] == "get_current_weather"
    assert invoke[2] == "invoke.direct.unknown" and result[2] == "result.direct.unknown"
    assert "ordinary function call" not in invoke[3]["en"] and "Nothing is called" in invoke[3]["en"]
    assert "The function raised" not in result[3]["en"] and "No function ran" in result[3]["en"]
    assert "抛出了异常" not in result[3]["zh"] and "没有任何函数运行" in result[3]["zh"]
    assert "no error field" in result[3]["en"] and "没有 MCP 的 isError" in result[3]["zh"]


def test_streamable_http_and_resources_are_told_as_they_are():
    http = TEXTS["server.http"]
    assert "each JSON-RPC frame rides in an HTTP request" not in http["en"]
    assert "POST's response" in http["en"] and "SSE" in http["en"]
    _, _, resources = _of("resource-read", "mcp.request", 2)
    assert "the model cannot call them" not in resources["en"] and "this app" in resources["en"]
    assert "模型无法调用它们" not in resources["zh"] and "本应用" in resources["zh"]


# --- message 8: the rule first, the adaptation second --------------------------------------------------------------


def test_the_backfill_teaches_the_rule_first_and_says_when_the_loop_ends():
    backfills = [(name, hop, key, texts) for name, hop, key, texts in ALL if key.startswith("ask.backfill")]
    assert len({name for name, *_ in backfills}) >= 16
    for name, _hop, key, texts in backfills:
        en, zh = texts["en"], texts["zh"]
        rule = en.index("keeps no memory")
        assert rule < en.index('tool_calls and then one role "tool" message per tool_call_id'), name
        assert "loop ends when a reply has no tool_calls" in en or "a reply without tool_calls end the loop" in en
        assert ("没有 tool_calls" in zh or "不带 tool_calls" in zh) and "循环" in zh
        if "adapted" in key:
            assert rule < en.index("null") and zh.index("不记得上一次请求") < zh.index("null"), name
    step = STEP_TEXTS[Step.BACKFILL]
    assert "until a reply has no tool_calls" in step["en"]


# --- failed runs told truly ----------------------------------------------------------------------------------------


def test_the_empty_answer_gets_its_own_texts_not_the_fallback():
    hops = run_flow_sync(model="mock-empty").trace.hops
    told = _told(hops)
    last, response = told[-1], next(t for t in reversed(told) if t[0].kind == "llm.response")
    assert last[0].kind == "app.answer" and last[0].payload["content"] == ""
    assert last[2] == "answer.shown.empty" and "empty" in last[3]["en"] and "空的" in last[3]["zh"]
    assert response[2] == "answer.empty" and "no tool_calls" in response[3]["en"]
    assert all(t[3]["en"] != TEXTS["fallback"]["en"] for t in told)


def test_no_sample_text_uses_a_word_the_glossary_forbids():
    for name, _, key, texts in ALL:
        for word in ("分片", "重放", "新协议时代", "上了线路", "提示词", "第 0 阶段"):
            assert word not in texts["zh"], (name, key, word)
        assert "(s)" not in texts["en"], (name, key)


@pytest.mark.parametrize(
    ("error", "key"), [("timeout", "server.timeout.setup"), ("connection closed", "server.closed.setup")]
)
def test_a_server_that_never_answers_its_set_up_is_not_said_to_have_withheld_a_tools_result(error: str, key: str):
    """`python -m flow run --server-fault hang --mcp-timeout 0.5` over stdio: the server is not up in time, and
    initialize goes unanswered; no tool was ever called."""
    failed = new_hop(
        seq=4,
        kind="error",
        source="mcp_server",
        target="mcp_client",
        payload={"error": error, "method": "initialize", "timeout_s": 0.5, "server_stderr": ""},
        step=2,
        t_start_ms=0.0,
        t_end_ms=0.0,
        size=0,
    )
    end = new_hop(
        seq=5,
        kind="error",
        source="app",
        target="user",
        payload={"error": "ServerFault", "message": "the MCP server did not answer initialize within 0.5 s"},
        step=10,
        t_start_ms=0.0,
        t_end_ms=0.0,
        size=0,
    )
    told = _told([failed, end])
    assert [t[2] for t in told] == [key, "end.server_failed.setup"]
    for _, _, _, texts in told:
        assert "initialize" in texts["en"] and "initialize" in texts["zh"]
        assert "tool's result" not in texts["en"] and "工具的结果" not in texts["zh"]
        assert texts["en"] != TEXTS["fallback"]["en"]


def test_a_requests_answer_is_found_by_its_id_from_the_side_it_was_sent_to():
    def frame(seq: int, kind: Kind, source: Actor, target: Actor, payload: dict[str, Any]) -> Hop:
        return new_hop(
            seq=seq,
            kind=kind,
            source=source,
            target=target,
            payload=payload,
            step=6,
            t_start_ms=0.0,
            t_end_ms=0.0,
            size=0,
        )

    call = frame(1, "mcp.request", "mcp_client", "mcp_server", {"jsonrpc": "2.0", "id": 1, "method": "tools/call"})
    sampling = frame(2, "mcp.request", "mcp_server", "mcp_client", {"jsonrpc": "2.0", "id": 1, "method": "x"})
    client_answer = frame(3, "mcp.response", "mcp_client", "mcp_server", {"jsonrpc": "2.0", "id": 1, "result": {}})
    server_error = frame(
        4, "mcp.error", "mcp_server", "mcp_client", {"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "m"}}
    )
    contexts = hop_contexts([call, sampling, client_answer, server_error])
    assert contexts[0].answer is server_error and contexts[1].answer is client_answer
