"""The samples added so each point has a trace (strict mode, the round limit, stdio, Streamable HTTP, 40 tools): each
note says what its own trace shows, computed from the committed file, and the wrong idea it corrects is absent."""

from __future__ import annotations

import re

import pytest

from flow.samples import SAMPLES
from flow.text.names import Lang
from flow.trace.files import load_trace
from flow.trace.model import Trace
from flow.trace.normalise import normalise
from helpers import ROOT, server_facts

SAMPLE_DIR = ROOT / "sample_traces"

NEW = ["strict-mode", "round-limit", "over-stdio", "over-http", "forty-tools-mcp"]
API_SAMPLES = [
    "responses-mcp",
    "responses-previous-id",
    "messages-mcp",
    "messages-stream",
    "responses-direct",
    "messages-direct",
    "responses-two-cities",
    "messages-two-cities",
    "responses-stream",
]  # added after these
HOSTED_SAMPLES = ["hosted-responses", "hosted-responses-approval", "hosted-messages", "hosted-tool-error"]
ASKS_SAMPLES = [
    "asks-elicitation",
    "asks-elicitation-modern",
    "asks-elicitation-declined",
    "asks-sampling",
    "asks-sampling-modern",
    "asks-sampling-tools",
    "asks-sampling-tools-modern",
    "asks-roots",
    "asks-roots-modern",
    "asks-elicitation-url",
    "asks-list-changed",
    "asks-list-changed-modern",
    "asks-structured",
    "asks-subscribed",
    "asks-subscribed-modern",
    "asks-ping",
    "asks-cancelled",
]


def trace(name: str) -> Trace:
    return load_trace(SAMPLE_DIR / f"{name}.json")


def note(name: str, lang: str) -> str:
    text = trace(name).meta.note
    assert text is not None
    return text[lang]


def requests(t: Trace) -> list[dict]:
    return [h.payload["body"] for h in t.hops if h.kind == "llm.request"]


def prompt_tokens(t: Trace) -> list[int]:
    return [int(h.usage.get("prompt_tokens") or 0) for h in t.hops if h.kind == "llm.response" and h.usage]


def listed(t: Trace) -> list[dict]:
    return next(
        h.payload["result"]["tools"]
        for h in t.hops
        if h.kind == "mcp.response" and "tools" in h.payload.get("result", {})
    )


def test_the_new_samples_come_after_the_old_ones_in_the_library():
    added = NEW + API_SAMPLES + HOSTED_SAMPLES + ASKS_SAMPLES
    assert [s.name for s in SAMPLES[-len(added) :]] == added


# strict mode


def test_strict_mode_note_says_what_the_rewrite_did_to_the_schema():
    t = trace("strict-mode")
    tools = {tool["function"]["name"]: tool["function"] for tool in requests(t)[0]["tools"]}
    served = {tool["name"]: tool["inputSchema"] for tool in listed(t)}
    assert all(fn["strict"] is True and fn["parameters"]["additionalProperties"] is False for fn in tools.values())
    assert all(fn["parameters"]["required"] == list(fn["parameters"]["properties"]) for fn in tools.values())
    # Only get_forecast's required list changed: days, optional on the server (default 3), is now required.
    changed = [n for n in tools if tools[n]["parameters"]["required"] != served[n].get("required", [])]
    assert changed == ["get_forecast"]
    assert (
        "days" not in served["get_forecast"]["required"]
        and served["get_forecast"]["properties"]["days"]["default"] == 3
    )
    assert "days" in tools["get_forecast"]["parameters"]["required"]
    # As in every MCP run, title keys go and outputSchema is not sent.
    assert "title" not in str(tools) and "outputSchema" not in str(requests(t)[0])
    for lang in ("zh", "en"):
        text = note("strict-mode", lang)
        assert "additionalProperties: false" in text and "required" in text and "get_forecast" in text
        assert "outputSchema" in text and "title" in text


def test_strict_mode_note_gives_the_prompt_tokens_of_both_traces():
    strict, plain = prompt_tokens(trace("strict-mode"))[0], prompt_tokens(trace("beijing-mcp"))[0]
    assert strict > plain
    for lang in ("zh", "en"):
        assert f"{plain}" in note("strict-mode", lang) and f"{strict}" in note("strict-mode", lang)


def test_strict_mode_note_does_not_say_the_schema_is_unchanged():
    assert "unchanged" not in note("strict-mode", "en") and "不变" not in note("strict-mode", "zh")


# the round limit


def test_round_limit_stops_after_max_rounds_with_tool_calls_unrun():
    t = trace("round-limit")
    rounds = t.meta.settings["max_rounds"]
    assert rounds == 3 and t.meta.model["name"] == "mock-loop"
    assert len(requests(t)) == rounds + 1  # the rounds, then one more request for an answer
    last_reply = [h for h in t.hops if h.kind == "llm.response"][-1]
    assert last_reply.payload["body"]["choices"][0]["message"]["tool_calls"]
    assert sum(h.kind == "mcp.request" and h.payload.get("method") == "tools/call" for h in t.hops) == rounds
    assert t.hops[-1].kind == "error" and t.meta.outcome == "error" and t.meta.answer is None
    assert f"after {rounds} tool rounds" in (t.meta.error or "")


def test_round_limit_note_tells_the_rounds_and_the_growing_prompt_tokens():
    t = trace("round-limit")
    tokens = prompt_tokens(t)
    assert tokens == sorted(tokens) and len(set(tokens)) == len(tokens)
    assert len(requests(t)[0]["tools"]) == 4
    for lang in ("zh", "en"):
        text = note("round-limit", lang)
        assert "mock-loop" in text and "max_rounds" in text and "3" in text
        assert f"{tokens[0]}" in text and f"{tokens[-1]}" in text
    assert "4th request" in note("round-limit", "en") and "第 4 次请求" in note("round-limit", "zh")


# stdio and Streamable HTTP


def _frames(t: Trace) -> list:
    return [normalise(h.payload) for h in t.hops if h.kind.startswith("mcp.")]


def test_over_stdio_runs_the_demo_server_as_a_child_and_carries_the_same_frames_as_memory():
    t = trace("over-stdio")
    assert t.meta.settings["transport"] == server_facts(t)["transport"] == "stdio"
    assert server_facts(t)["command"] == "python -m weather_demo"
    memory = trace("beijing-mcp")
    assert memory.meta.settings["transport"] == "memory"
    assert _frames(t) == _frames(memory)
    for lang in ("zh", "en"):
        assert "python -m weather_demo" in note("over-stdio", lang) and "beijing-mcp" in note("over-stdio", lang)


def test_over_http_is_stateless_on_loopback_with_no_phase_zero():
    t = trace("over-http")
    url = t.meta.settings["server_url"]
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/mcp", url) and server_facts(t)["transport"] == "http"
    assert server_facts(t)["auth"] == "none" and server_facts(t)["era"] == "modern"
    assert server_facts(t)["http_session_id"] is None  # no Mcp-Session-Id header came back
    methods = [h.payload.get("method") for h in t.hops if h.kind == "mcp.request"]
    assert "initialize" not in methods and methods[0] == "server/discover"
    for h in t.hops:
        if h.kind == "mcp.request":
            assert h.payload["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    assert all(h.step != 0 for h in t.hops)
    for lang in ("zh", "en"):
        text = note("over-http", lang)
        assert url in text and "Mcp-Session-Id" in text and "2026-07-28" in text and "POST" in text
    assert "阶段零" in note("over-http", "zh") and "phase zero" in note("over-http", "en")


# 40 tools


def test_forty_tools_sends_every_definition_in_every_request_and_calls_one():
    t = trace("forty-tools-mcp")
    assert len(listed(t)) == 40 and server_facts(t)["name"] == "ops-demo"
    assert [len(body["tools"]) for body in requests(t)] == [40, 40]
    called = [
        h.payload["params"]["name"]
        for h in t.hops
        if h.kind == "mcp.request" and h.payload.get("method") == "tools/call"
    ]
    assert called == ["get_weather"]
    many, four = prompt_tokens(t)[0], prompt_tokens(trace("beijing-mcp"))[0]
    assert len(requests(trace("beijing-mcp"))[0]["tools"]) == 4 and many > 4 * four
    for lang in ("zh", "en"):
        text = note("forty-tools-mcp", lang)
        assert f"{many}" in text and f"{four}" in text and "40" in text and "004" in text


def test_forty_tools_note_corrects_the_article_that_the_list_stays_out_of_model_requests():
    # Article 004: "清单不会塞进每一次模型请求里" — the note quotes it and says it is not so of the model request.
    assert "不会塞进每一次模型请求里" in note("forty-tools-mcp", "zh") and "并非如此" in note("forty-tools-mcp", "zh")
    assert "not so" in note("forty-tools-mcp", "en")
    assert "MCP sends only" not in note("forty-tools-mcp", "en")


def test_forty_tools_note_explains_why_initialize_comes_before_the_question():
    kinds = [h.kind for h in trace("forty-tools-mcp").hops]
    assert kinds.index("mcp.request") < kinds.index("user.message")
    assert "initialize" in note("forty-tools-mcp", "en") and "initialize" in note("forty-tools-mcp", "zh")


# the glossary


GLOSSARY_FORBIDDEN_ZH = ["分片", "提示词", "第 0 阶段", "重放", "上了线路", "新协议时代", "服务器在执行中说话", "chunk"]


@pytest.mark.parametrize("name", NEW + ASKS_SAMPLES)
def test_new_notes_and_titles_follow_the_glossary(name):
    meta = trace(name).meta
    assert meta.title is not None and meta.note is not None
    for text in (meta.title["zh"], meta.note["zh"]):
        assert not [w for w in GLOSSARY_FORBIDDEN_ZH if w in text]
        prose = re.sub(r"[a-z]+://[^\s（）]+|\w+\([^)]*\)|\"?\w+\"?: \w+", "", text)  # URIs, calls, key: value
        assert not re.search(r"[,:;()]", prose), prose  # Chinese prose takes full-width punctuation
    assert "(s)" not in meta.note["en"]


# the questions


def _why(name: str, lang: Lang) -> str:
    from flow.trace.questions import load_questions

    return " ".join(
        (q.why or {}).get(lang, "") for q in load_questions(SAMPLE_DIR / "questions" / f"{name}.questions.json")
    )


@pytest.mark.parametrize("name", NEW)
def test_each_new_sample_has_two_or_three_questions_of_its_own(name):
    from flow.trace.questions import bind_questions, load_questions

    questions = load_questions(SAMPLE_DIR / "questions" / f"{name}.questions.json")
    assert 2 <= len(questions) <= 3
    assert len(bind_questions(questions, trace(name))) == len(questions)  # each finds its hop


def test_the_figures_in_the_questions_are_the_traces_own():
    tokens = prompt_tokens(trace("round-limit"))
    many, four = prompt_tokens(trace("forty-tools-mcp")), prompt_tokens(trace("beijing-mcp"))
    langs: tuple[Lang, ...] = ("zh", "en")
    for lang in langs:
        assert all(f"{t}" in _why("round-limit", lang) for t in tokens)
        assert f"{many[0]}" in _why("forty-tools-mcp", lang) and f"{many[1]}" in _why("forty-tools-mcp", lang)
        assert f"{four[0]}" in _why("forty-tools-mcp", lang)
        assert trace("over-http").meta.settings["server_url"].rsplit("/", 1)[0] in _ask("over-http", lang)


def _ask(name: str, lang: Lang) -> str:
    from flow.trace.questions import load_questions

    return " ".join(q.ask[lang] for q in load_questions(SAMPLE_DIR / "questions" / f"{name}.questions.json"))


# a server that asks


def _mcp(t: Trace, method: str | None = None) -> list:
    return [h for h in t.hops if h.kind.startswith("mcp.") and (method is None or h.payload.get("method") == method)]


def _calls(t: Trace) -> list:
    return [h for h in _mcp(t, "tools/call") if h.source == "mcp_client"]


def test_in_2025_11_25_the_server_asks_over_the_session_mid_call_under_its_own_id():
    for name, method in [
        ("asks-elicitation", "elicitation/create"),
        ("asks-elicitation-declined", "elicitation/create"),
        ("asks-sampling", "sampling/createMessage"),
        ("asks-roots", "roots/list"),
    ]:
        t = trace(name)
        assert server_facts(t)["protocol_version"] == "2025-11-25"
        [call] = _calls(t)
        [ask] = [h for h in _mcp(t, method) if h.source == "mcp_server"]
        answer = next(h for h in t.hops if h.kind == "mcp.response" and h.source == "mcp_client")
        result = next(h for h in t.hops if h.kind == "mcp.response" and h.payload.get("id") == call.payload["id"])
        assert call.seq < ask.seq < answer.seq < result.seq  # asked and answered while tools/call was open
        assert answer.payload["id"] == ask.payload["id"] == 1  # the server's own numbering
        initialize = _mcp(t, "initialize")[0].payload["params"]["capabilities"]
        assert {"sampling", "elicitation", "roots"} <= set(initialize)


def test_in_2026_07_28_a_call_is_answered_input_required_and_retried_under_a_new_id_with_the_state():
    for name, method in [
        ("asks-elicitation-modern", "elicitation/create"),
        ("asks-sampling-modern", "sampling/createMessage"),
        ("asks-roots-modern", "roots/list"),
    ]:
        t = trace(name)
        assert server_facts(t)["protocol_version"] == "2026-07-28"
        assert not [h for h in _mcp(t) if h.kind == "mcp.request" and h.source == "mcp_server"]  # no request back
        first, retry = _calls(t)
        results = [h for h in t.hops if h.kind == "mcp.response" and h.source == "mcp_server" and (h.step or 0) >= 6]
        pending, done = (h.payload["result"] for h in results)
        assert [h.step for h in results] == [6, 7]  # the call is not finished until its last round is answered
        assert pending["resultType"] == "input_required" and done["resultType"] == "complete"
        [(key, request)] = pending["inputRequests"].items()
        assert request["method"] == method
        assert retry.payload["id"] != first.payload["id"]
        assert retry.payload["params"]["requestState"] == pending["requestState"]
        assert set(retry.payload["params"]["inputResponses"]) == {key}
        assert retry.payload["params"]["arguments"] == first.payload["params"]["arguments"]
        for h in _mcp(t):
            if h.kind == "mcp.request" and h.source == "mcp_client":
                assert "sampling" in h.payload["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]


def test_the_user_answers_the_form_and_the_model_never_sees_it():
    for name, action in [
        ("asks-elicitation", "accept"),
        ("asks-elicitation-modern", "accept"),
        ("asks-elicitation-declined", "decline"),
    ]:
        t = trace(name)
        asked, answered = (h for h in t.hops if h.kind == "user.input")
        assert (asked.source, asked.target, answered.source, answered.target) == ("app", "user", "user", "app")
        assert asked.payload["requested_schema"]["required"] == ["city"]
        assert answered.payload["action"] == action
        assert answered.payload.get("content") == ({"city": "上海"} if action == "accept" else None)
        for body in requests(t):
            assert "requestedSchema" not in str(body) and "Which city" not in str(body)
    assert "上海" in (trace("asks-elicitation").meta.answer or "")
    declined = trace("asks-elicitation-declined")
    assert "did not say where" in (declined.meta.answer or "") and "上海" not in str(requests(declined))


def test_sampling_goes_to_the_runs_own_model_for_the_server_with_the_servers_messages_only():
    for name in ("asks-sampling", "asks-sampling-modern"):
        t = trace(name)
        asked = [h for h in t.hops if h.kind == "llm.request" and h.payload.get("for_server")]
        [for_server] = asked
        assert (for_server.source, for_server.target) == ("mcp_client", "model")
        body = for_server.payload["body"]
        assert "tools" not in body and "tool_choice" not in body and body["max_tokens"] == 120
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        assert t.meta.question not in str(body)
        assert len(requests(t)) == 3
    english = trace("asks-sampling-modern")
    assert not re.search(r"[\u4e00-\u9fff]", english.meta.question) and "Answer in English" in str(requests(english))


def test_the_roots_samples_share_the_fixed_copy_of_the_notes_and_read_inside_it():
    from flow.samples import SAMPLE_NOTES_ROOT

    uri = SAMPLE_NOTES_ROOT.as_uri()
    for name in ("asks-roots", "asks-roots-modern"):
        t = trace(name)
        assert t.meta.settings["roots"] == [str(SAMPLE_NOTES_ROOT)]
        result = next(h for h in t.hops if h.kind == "tool.result").payload["result"]["structuredContent"]
        assert result["root"] == uri and result["file"] == "Beijing.md" and "北京" in result["note"]
        for lang in ("zh", "en"):
            assert str(SAMPLE_NOTES_ROOT) in note(name, lang)


def test_normalise_numbers_request_states_and_drops_where_the_demo_notes_sit():
    hop = {"bytes": 40, "payload": {"result": {"requestState": "v1.abcdef"}}}
    retry = {"bytes": 30, "payload": {"params": {"requestState": "v1.abcdef"}}}
    other = {"bytes": 30, "payload": {"params": {"requestState": "v1.zz"}}}
    same, wrong = normalise([hop, retry]), normalise([hop, other])
    assert same[0]["payload"]["result"]["requestState"] == same[1]["payload"]["params"]["requestState"]
    assert wrong[0]["payload"]["result"]["requestState"] != wrong[1]["payload"]["params"]["requestState"]
    assert same[0]["bytes"] == 40 - len("v1.abcdef")
    here, there = "file:///home/a/src/weather_demo/notes", "file:///tmp/mcp-flow-samples/weather_demo/notes"
    assert normalise(f'"root": "{here}"') == normalise(f'"root": "{there}"')
    assert normalise("file:///x/weather_demo/notes-old") != normalise("file:///y/weather_demo/notes-old")
