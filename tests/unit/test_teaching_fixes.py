"""The errors a fresh read of every teaching claim found (issue 42), one test a case: each renders the hop, the
question or the table a class reads, from the committed sample or a run of the real demo server, and checks that
the wrong claim is gone and the true one, taken from the installed SDKs or the trace itself, is there."""

from __future__ import annotations

from functools import cache

import pytest
from anthropic.types.message_create_params import MessageCreateParamsBase
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSIONS
from openai.types.responses.function_tool_param import FunctionToolParam

from flow import RunOptions, run
from flow.backends.scripted import load_script
from flow.engine.model import ModelConfig
from flow.servers.spec import ServerSpec, TransportName
from flow.text.names import Lang, plurals
from flow.text.teaching import hop_contexts, teaching_text
from flow.text.ways import CELLS, POINT_TEXT
from flow.trace.files import load_trace
from flow.trace.model import Hop, Trace
from flow.trace.questions import Question, questions_for
from helpers import ROOT

SAMPLE_DIR = ROOT / "sample_traces"


@cache
def _trace(name: str) -> Trace:
    return load_trace(SAMPLE_DIR / f"{name}.json")


def _texts(name: str, lang: Lang) -> dict[int, str]:
    """Every hop's teaching text in a sample, by seq."""
    hops = _trace(name).hops
    return {h.seq: teaching_text(h, lang, context=c) for h, c in zip(hops, hop_contexts(hops), strict=True)}


def _hop(name: str, kind: str, n: int = 0, **payload: object) -> Hop:
    """The n-th hop of a kind in a sample (whose payload has these values)."""
    found = [
        h
        for h in _trace(name).hops
        if h.kind == kind and all((h.payload or {}).get(k) == v for k, v in payload.items())
    ]
    return found[n]


def _said(name: str, hop: Hop) -> dict[Lang, str]:
    return {lang: _texts(name, lang)[hop.seq] for lang in ("zh", "en")}


def _questions(name: str) -> dict[int, Question]:
    return questions_for(SAMPLE_DIR / f"{name}.json")


def _question(name: str, starts: str) -> tuple[int, Question]:
    [(seq, q)] = [(seq, q) for seq, q in _questions(name).items() if q.ask["en"].startswith(starts)]
    return seq, q


def _before(name: str, seq: int) -> Hop:
    hops = _trace(name).hops
    return hops[[h.seq for h in hops].index(seq) - 1]


# 1. initialize carries the newest version the SDK reaches through a handshake, not the newest it speaks.
def test_initialize_offers_the_newest_version_with_a_handshake_not_the_newest_the_sdk_speaks() -> None:
    assert LATEST_PROTOCOL_VERSION in MODERN_PROTOCOL_VERSIONS  # the same SDK speaks 2026-07-28, which has no handshake
    hop = _hop("era-handshake", "mcp.request", method="initialize")
    offered = hop.payload["params"]["protocolVersion"]
    assert offered == HANDSHAKE_PROTOCOL_VERSIONS[-1] != LATEST_PROTOCOL_VERSION
    said = _said("era-handshake", hop)
    assert "newest protocol version it speaks" not in said["en"] and "支持的最新协议版本" not in said["zh"]
    assert f"newest protocol version it can reach through a handshake, {offered}" in said["en"]
    assert f"通过握手能用的最新协议版本 {offered}" in said["zh"]


# 2. The host's capabilities bound what a server may ask, except ping.
def test_the_hosts_capabilities_bound_the_servers_requests_except_ping() -> None:
    hop = _hop("asks-elicitation", "mcp.request", method="initialize")
    said = _said("asks-elicitation", hop)
    assert "Apart from ping, which needs no capability, a server may send back only the requests" in said["en"]
    assert "除了不需要任何能力的 ping" in said["zh"]


# 3. Responses' store keeps a response by default; without previous_response_id it is only not used.
def test_a_backfill_without_previous_response_id_does_not_say_the_server_keeps_nothing() -> None:
    hop = _hop("responses-mcp", "llm.request", 1)
    assert "previous_response_id" not in hop.payload["body"] and "store" not in hop.payload["body"]
    said = _said("responses-mcp", hop)
    assert "keeps nothing" not in said["en"] and "不替应用保存任何东西" not in said["zh"]
    assert "store, on by default, keeps each response" in said["en"] and "store 默认开启" in said["zh"]
    _, q = _question("responses-two-cities", "Both results are back")
    assert q.why is not None and "keeps no conversation" not in q.why["en"] and "store" in q.why["en"]


# 4. The Responses function tool has more fields than the four the app sends.
def test_the_responses_function_tool_fields_are_not_said_to_be_all() -> None:
    more = set(FunctionToolParam.__annotations__) - {"type", "name", "description", "parameters", "strict"}
    assert "output_schema" in more and len(more) > 1
    found = [
        said
        for name in ("responses-mcp", "responses-two-cities", "responses-stream")
        for hop in _trace(name).hops
        if hop.kind == "translate.forward" and "output_schema" in (said := _said(name, hop))["en"]
    ]
    assert found, "no Responses forward translation names the fields it leaves out"
    for said in found:
        assert "function 工具只有" not in said["zh"] and "output_schema 就是其中之一" in said["zh"]
        assert "optional fields this app does not send, output_schema among them" in said["en"]


# 5. Messages' system prompt: where the API reference documents it, no claim it is a recommendation.
def test_the_messages_system_field_is_where_the_reference_documents_the_system_prompt() -> None:
    assert "system" in MessageCreateParamsBase.__annotations__
    hop = _hop("messages-mcp", "llm.request")
    assert "system" in hop.payload["body"]
    said = _said("messages-mcp", hop)
    assert "推荐的位置" not in said["zh"] and "API 参考文档就把系统提示写在这里" in said["zh"]
    assert "where the API reference puts it" in said["en"]


# 6. Hosted MCP: the app does not fetch the list, but it reads the provider's report of it.
def test_hosted_hop_one_says_the_app_sees_the_list_in_the_report() -> None:
    hop = _trace("hosted-responses").hops[0]
    assert hop.kind == "prepare.tools"
    assert any(
        item.get("type") == "mcp_list_tools"
        for h in _trace("hosted-responses").hops
        if h.kind == "llm.response"
        for item in (h.payload.get("body") or {}).get("output", [])
    )
    said = _said("hosted-responses", hop)
    assert "never reads this list" not in said["en"] and "从不读取这份清单" not in said["zh"]
    assert "from what the provider's response reports (an mcp_list_tools item" in said["en"]
    assert "mcp_list_tools 项" in said["zh"]


# 7. The 2026-07-28 protocol allows URL-mode elicitation; this SDK's calls do not build it there.
def test_the_url_elicitation_question_says_2026_07_28_allows_url_mode() -> None:
    from mcp_types._v2026_07_28 import ElicitRequestParams, ElicitRequestURLParams, InputRequest

    assert "ElicitRequest" in str(InputRequest) and ElicitRequestURLParams in ElicitRequestParams.__args__
    _, q = _question("asks-elicitation-url", "Could the same tool ask this way in 2026-07-28?")
    keyed = q.choices[q.answer - 1]
    assert keyed["en"].startswith("the protocol allows it, inside an input_required result")
    assert "协议允许" in keyed["zh"]
    assert not any("not allow" in c["en"] for c in q.choices)
    note = _trace("asks-elicitation-url").meta.note
    assert note is not None and "exists in 2025-11-25 only" not in note["en"]
    assert "the 2026-07-28 protocol allows URL mode too" in note["en"]


# 8. hosted-messages hop 7: a question the hops before it answer.
def test_the_hosted_messages_listing_question_is_answerable_before_the_response() -> None:
    seq, q = _question("hosted-messages", "The provider's client is about to send tools/list")
    assert "Will the answer report" not in q.ask["en"]
    assert "HTTP connection" in q.ask["en"]
    assert q.choices[q.answer - 1]["en"].startswith("no: the frame goes between the provider and the server")
    app_request = _hop("hosted-messages", "llm.request")
    assert app_request.seq < seq and "mcp_servers" in app_request.payload["body"]


# 9. asks-structured: every tool has an outputSchema; weather_card's names typed fields. Asked before tools/list's result.
def test_the_structured_question_asks_what_sets_weather_cards_output_schema_apart() -> None:
    seq, q = _question("asks-structured", "All twelve tools in tools/list have an outputSchema")
    listed = next(h for h in _trace("asks-structured").hops if h.seq == seq)
    assert listed.kind == "mcp.response" and "tools" in listed.payload["result"]
    tools = listed.payload["result"]["tools"]
    assert len(tools) == 12 and all("outputSchema" in t for t in tools)
    [card] = [t["outputSchema"] for t in tools if t["name"] == "weather_card"]
    assert {"city", "condition", "temp_low_c"} <= set(card["properties"])
    assert q.choices[q.answer - 1]["en"].startswith("it names typed fields")
    assert q.choices[1]["en"] == "it is the only tool with an outputSchema" and q.answer != 2


# 10. asks-list-changed: the re-list question at the re-list; the server declares listChanged before it notifies.
def test_the_relist_question_is_asked_at_the_relist_after_the_notification() -> None:
    seq, _ = _question("asks-list-changed", "After the notification, what does the client do")
    hops = _trace("asks-list-changed").hops
    notice = next(h for h in hops if (h.payload or {}).get("method") == "notifications/tools/list_changed")
    at = next(h for h in hops if h.seq == seq)
    assert at.kind == "mcp.request" and at.payload["method"] == "tools/list" and at.seq > notice.seq


def test_the_sample_server_declares_tools_list_changed_before_it_notifies() -> None:
    hop = _hop("asks-list-changed", "mcp.response", 0)
    assert hop.payload["result"]["capabilities"]["tools"]["listChanged"] is True


@pytest.mark.parametrize("transport", ["memory", "stdio"])
def test_the_demo_server_that_asks_declares_tools_list_changed(transport: TransportName) -> None:
    options = RunOptions.build(server=ServerSpec(), asks=True, era="handshake", transport=transport)
    script = '[{"call": "unlock_alerts"}, {"answer": "好"}]'
    result = run("上海有天气预警吗？", options=options, model=ModelConfig.scripted(load_script(script)))
    assert result.ok, result.error
    hops = result.trace.hops
    [opened] = [h for h in hops if h.kind == "mcp.response" and "capabilities" in (h.payload.get("result") or {})]
    assert opened.payload["result"]["capabilities"]["tools"] == {"listChanged": True}
    assert any((h.payload or {}).get("method") == "notifications/tools/list_changed" for h in hops)


def test_the_demo_server_without_asking_tools_declares_no_list_changes() -> None:
    options = RunOptions.build(server=ServerSpec(), era="handshake", transport="memory")
    result = run("北京今天天气怎么样？", options=options)
    [opened] = [h for h in result.trace.hops if h.kind == "mcp.response" and "capabilities" in h.payload["result"]]
    assert opened.payload["result"]["capabilities"]["tools"] == {"listChanged": False}


# 11. asks-list-changed-modern: the count of the tools listed again, from the sample.
def test_the_modern_relist_count_is_the_samples() -> None:
    listed = [h for h in _trace("asks-list-changed-modern").hops if h.kind == "client.result" and "tools" in h.payload]
    count = len(listed[-1].payload["tools"])
    assert count == 13
    whys = [
        q.why
        for q in _questions("asks-list-changed-modern").values()
        if q.why and "lists the tools again" in q.why["en"]
    ]
    assert whys and all(f"gets {count};" in w["en"] and f"得到 {count} 个工具" in w["zh"] for w in whys)


# 12. A scripted model's final answer was written by the script.
def test_a_scripted_final_answer_is_the_scripts() -> None:
    hop = [h for h in _trace("scripted-model").hops if h.kind == "llm.response"][-1]
    assert hop.scripted
    said = _said("scripted-model", hop)
    assert "the model writes the answer" not in said["en"] and "模型写出回答" not in said["zh"]
    assert "was written in the script before the run" in said["en"] and "写在脚本里" in said["zh"]


# 13. Direct mode has no reverse translation: the app reads the arguments itself.
@pytest.mark.parametrize("name", ["beijing-direct", "responses-direct", "messages-direct"])
def test_direct_mode_message_five_is_no_reverse_translation(name: str) -> None:
    said = _said(name, _hop(name, "translate.reverse"))
    assert "Reverse translation" not in said["en"] and "反向翻译" not in said["zh"]
    assert "Message 5 in direct mode, with no translation" in said["en"] and "没有翻译" in said["zh"]


# 14. Hosted MCP needs a server the provider reaches: a public URL or the provider's own tunnel.
def test_hosted_mcp_may_reach_the_server_through_the_providers_tunnel() -> None:
    from openai.types.responses.tool_param import Mcp

    assert "tunnel_id" in Mcp.__annotations__
    for texts in (CELLS["server.hosted"], POINT_TEXT["security"]):
        assert "tunnel_id" in texts["en"] and "tunnel_id" in texts["zh"]
    assert "a real provider needs a public, authenticated URL;" not in CELLS["server.hosted"]["en"]


# 15. A question is not answered by the hop just before it.
@pytest.mark.parametrize(
    ("name", "starts", "spoiler"),
    [
        ("responses-previous-id", "The backfill will name previous_response_id", "4 tools"),
        ("asks-elicitation-modern", "The server now answers the retry", "requestState"),
        ("asks-roots-modern", "The retry carried the client's roots", "Beijing.md"),
    ],
)
def test_a_question_is_not_spoiled_by_the_hop_before(name: str, starts: str, spoiler: str) -> None:
    seq, _ = _question(name, starts)
    before = _before(name, seq)
    assert spoiler not in (before.summary or "")
    if name == "responses-previous-id":  # asked before the backfill that shows the tools, not after it
        backfill = next(h for h in _trace(name).hops if h.kind == "llm.request" and h.seq > seq)
        assert before.kind != "llm.request" and len(backfill.payload["body"]["tools"]) == 4
    assert all(not q2.ask["en"].startswith("The retry's id is 4") for q2 in _questions(name).values())
    assert all(not q2.ask["en"].startswith("Look again at the backfill") for q2 in _questions(name).values())


# 18. URL-mode elicitation has its own texts: its answer has no content and no form to check.
def test_url_mode_answers_are_not_told_with_the_form_texts() -> None:
    name = "asks-elicitation-url"
    user = [h for h in _trace(name).hops if h.kind == "user.input"][-1]
    client = next(h for h in _trace(name).hops if h.kind == "mcp.response" and h.source == "mcp_client")
    assert "content" not in user.payload and client.payload["result"] == {"action": "accept"}
    for hop in (user, client):
        said = _said(name, hop)
        assert "accept, with {}" not in said["en"] and "content {}" not in said["en"]
        assert "against the form" not in said["en"] and "表单" not in said["zh"]
        assert "no content" in said["en"] and "content" in said["zh"]
    form = [h for h in _trace("asks-elicitation").hops if h.kind == "user.input"][-1]
    assert "checks them against the form" in _said("asks-elicitation", form)["en"]


# 19. The backfill's tool_choice sentence reads the app's own last request; none forbids, it does not force.
def test_the_backfill_tool_choice_is_the_apps_own_not_the_hosts_request_for_the_server() -> None:
    name = "asks-sampling-tools"
    requests = [h for h in _trace(name).hops if h.kind == "llm.request"]
    for_server = [h for h in requests if h.source != "app"]
    assert for_server and for_server[-1].payload["body"].get("tool_choice") == "none"
    backfill = [h for h in requests if h.source == "app"][-1]
    said = _said(name, backfill)
    assert 'was "none"' not in said["en"] and "forced" not in said["en"] and "强制" not in said["zh"]
    required = [h for h in _trace("tool-choice-required").hops if h.kind == "llm.request"][-1]
    assert 'tool_choice is back to "auto" (it was "required")' in _said("tool-choice-required", required)["en"]


# 16. An English count agrees with its noun ("1 request", not "1 requests").
def test_the_ways_sentences_agree_with_their_counts() -> None:
    values = {"base": "function calling", "hosted": "hosted MCP", "n_base": 1, "n_hosted": 1}
    said = plurals(POINT_TEXT["requests"]["en"], values).format(**values)
    assert "made 1 request to the model" in said
    values = {"observed": 1, "reported": 1}
    said = plurals(POINT_TEXT["observed"]["en"], values).format(**values)
    assert "holds 1 frame of" in said and "(1 exchange)" in said
    assert "2 frames" in plurals("{n} frame(s)", {"n": 2}).format(n=2)
