"""The teaching texts: every hop of every sample has its own, in the right language, filled from its own payload;
situations the samples do not reach are built here, hop by hop."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from flow.text.names import Lang
from flow.text.teaching import (
    FALLBACK,
    TEXTS,
    HopContext,
    Situation,
    hop_contexts,
    situation,
    teaching_text,
    teaching_texts,
)
from flow.trace.factory import new_hop
from flow.trace.files import load_trace
from flow.trace.model import Actor, Hop, Kind, Trace
from flow.trace.payloads import payload_problem
from helpers import ROOT

SAMPLES = sorted((ROOT / "sample_traces").glob("*.json"))


LANGS: tuple[Lang, ...] = ("zh", "en")


# English a Chinese text may keep: protocol and format names, JSON field names and values as the wire has them.
ALLOWED_IN_ZH = frozenset(
    """
    ping resources/subscribe resources/unsubscribe notifications/resources/updated sampling.tools toolUse stopReason
    MCP JSON JSON-RPC HTTP API Schema id _meta initialize InitializeResult CallToolResult notifications/initialized
    notifications/cancelled server/discover tools/list tools/call resources/list resources/read prompts/list
    prompts/get capabilities name description inputSchema parameters arguments messages role tool tool_call
    tool_calls tool_call_id finish_reason content contents delta delta.role delta.content index choices uri
    isError result type function chat.completions tool_choice prompt_tokens completion_tokens progressToken data
    DONE code error message divergence true false null adapted OpenAI title annotations icons outputSchema
    structuredContent nextCursor strict additionalProperties POST SSE clientInfo auto stop delta.tool_calls
    Chat Completions Responses Anthropic Messages instructions input output output_text output_schema status
    function_call function_call_output call_id previous_response_id store input_tokens max_tokens system user text
    input_schema tool_use tool_result tool_use_id stop_reason message_start message_delta message_stop
    content_block_start content_block_stop input_json_delta text_delta partial_json
    response.output_item.added response.output_item.done response.function_call_arguments.delta
    response.function_call_arguments.done response.output_text.delta response.completed response.created
    response.in_progress output_index item_id response
    URL mcp headers require_approval allowed_tools mcp_list_tools mcp_call mcp_approval_request mcp_approval_response
    approval_request_id approve mcp_servers tools mcp_toolset anthropic-beta authorization_token configs mcp_tool_use
    mcp_tool_result mcp_tool_listing is_error mcp-flow proxy-http
    sampling elicitation roots sampling/createMessage elicitation/create roots/list requestedSchema maxTokens
    systemPrompt stopReason model action accept decline cancel resultType input_required inputRequests
    inputResponses requestState listChanged io.modelcontextprotocol/clientCapabilities subscriptions/listen
    notifications/subscriptions/acknowledged notifications/tools/list_changed
    """.split()
    # what is left of a path or a key when the value filled into it is cut out: /v1/responses, tool_use_id
    + ["v", "responses", "_id"]
)


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*[A-Za-z0-9_]|[A-Za-z]")
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


def _load(path: Path) -> Trace:
    return load_trace(path)


def _items(found: Situation) -> list[str]:
    """The values a situation filled in from the payload, one by one."""
    out: list[str] = []
    for v in found.fills.values():
        out.extend([v] if isinstance(v, str) else v)
    return [v for v in out if v]


def _without_fills(text: str, found: Situation) -> str:
    derived = [x for v in found.derived.values() for x in ([v] if isinstance(v, str) else v)]
    for item in sorted([*_items(found), *derived], key=len, reverse=True):
        text = text.replace(item, " ")
    return text


def _scalars(value: Any) -> list[str]:
    """Every scalar in a JSON value as a text shows it: strings with whitespace folded, numbers and true/false as
    JSON writes them."""
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [str(k), *_scalars(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _scalars(v)]
    if isinstance(value, bool):
        return ["true" if value else "false"]
    if isinstance(value, str):
        return [value, re.sub(r"\s+", " ", value).strip(), value.replace("\n", " ")]
    return [str(value)] if value is not None else []


def _in_hop(item: str, hop: Hop) -> bool:
    """The filled value is the hop's own: a payload value (or the start of one, when clipped), or one of its ids."""
    prefix = item[:-1] if item.endswith("…") else item
    own = _scalars(hop.payload) + [str(hop.jsonrpc_id), str(hop.tool_call_id)]
    if prefix == "false" and isinstance(hop.payload, dict) and "isError" not in str(hop.payload):
        return True  # an absent isError is false: the protocol's default
    return any(prefix in s for s in own) if item.endswith("…") else any(prefix == s or prefix in s for s in own)


def _check_language(text: str, found: Situation, lang: Lang) -> None:
    rest = _without_fills(text, found)
    if lang == "zh":
        foreign = [w for w in _WORD.findall(rest) if w not in ALLOWED_IN_ZH]
        assert not foreign, (found.key, foreign, text)
        assert _CJK.search(rest), (found.key, text)
    else:
        assert not _CJK.search(rest), (found.key, text)


def _walk() -> list[tuple[str, Hop, HopContext]]:
    return [
        (p.name, h, c) for p in SAMPLES for t in [_load(p)] for h, c in zip(t.hops, hop_contexts(t.hops), strict=True)
    ]


WALK = _walk()


def test_every_hop_of_every_sample_has_its_own_text_in_both_languages_filled_from_its_payload():
    assert len(SAMPLES) >= 15 and len(WALK) > 300
    for name, hop, ctx in WALK:
        found = situation(hop, ctx)
        assert found.key != FALLBACK and found.key in TEXTS, (name, hop.seq, hop.kind)
        for item in _items(found):
            assert _in_hop(item, hop), (name, hop.seq, found.key, item)
        for lang in LANGS:
            text = teaching_text(hop, lang, context=ctx)
            assert text != TEXTS[FALLBACK][lang]
            assert not _PLACEHOLDER.search(text), text
            _check_language(text, found, lang)


def test_one_text_is_never_the_text_of_two_situations():
    """Texts for different situations differ, in every sample (two chunk types, 7a and 7b, handshake and discover)."""
    for lang in LANGS:
        keys_of: dict[str, set[str]] = defaultdict(set)
        for _, hop, ctx in WALK:
            keys_of[teaching_text(hop, lang, context=ctx)].add(situation(hop, ctx).key)
        shared = {text: keys for text, keys in keys_of.items() if len(keys) > 1}
        assert not shared, shared


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[。！？])|(?<=[.!?])\s+", text) if len(s.strip()) > 12]


def test_no_sentence_is_shared_between_two_situations_unless_one_is_a_variant_of_the_other():
    for lang in LANGS:
        seen: dict[str, str] = {}
        for key, text in TEXTS.items():
            for sentence in _sentences(text[lang]):
                other = seen.setdefault(sentence, key)
                # a Responses or Messages text is a variant of the Chat Completions one it names after its API
                a, b = (re.sub(r"^(responses|messages)\.", "", k) for k in (other, key))
                family = a.rsplit(".", 1)[0] == b.rsplit(".", 1)[0] or b.startswith(a + ".") or a == b
                assert other == key or family, (lang, other, key, sentence)


def test_every_text_is_two_or_three_sentences_in_each_language():
    for key, text in TEXTS.items():
        if key == FALLBACK:
            continue
        for lang in LANGS:
            count = len(re.findall(r"[。！？]" if lang == "zh" else r"[.!?](?=\s|$)", text[lang]))
            assert 2 <= count <= 3, (key, lang, count, text[lang])


def _hop_of(name: str, seq: int) -> tuple[Hop, HopContext]:
    trace = _load(ROOT / "sample_traces" / name)
    for hop, ctx in zip(trace.hops, hop_contexts(trace.hops), strict=True):
        if hop.seq == seq:
            return hop, ctx
    raise AssertionError(seq)


def test_after_a_jsonrpc_error_the_apps_result_is_not_called_a_call_tool_result_with_is_error():
    error, ctx7a = _hop_of("unknown-tool.json", 14)
    result, ctx7b = _hop_of("unknown-tool.json", 15)
    assert (error.kind, result.kind) == ("mcp.error", "tool.result")
    assert situation(error, ctx7a).key == "rpc.error" and situation(result, ctx7b).key == "result.app.rpc_error"
    for lang in LANGS:
        text_7a, text_7b = teaching_text(error, lang, context=ctx7a), teaching_text(result, lang, context=ctx7b)
        assert "-32602" in text_7a and "-32602" in text_7b and "call_4c3a39dd0" in text_7b
        assert not re.search(r"isError\W{0,3}(为 )?true", text_7b), text_7b
    failed, ctx = _hop_of("tool-error.json", 17)
    assert situation(failed, ctx).key == "result.app.failed" and "isError true" in teaching_text(failed, "en")


def test_the_texts_name_what_the_payload_holds():
    cases = [
        ("beijing-mcp.json", 3, ["2025-11-25", "mcp-flow-app", "1"]),
        ("beijing-mcp.json", 4, ["2025-11-25", "prompts", "resources", "tools"]),
        ("era-modern.json", 3, ["server/discover", "2026-07-28"]),
        ("beijing-mcp.json", 11, ["get_weather", "call_b7dd7ca30", '{"city": "北京"}', "tool_calls"]),
        ("streaming.json", 12, ["call_2621e2140", "get_weather"]),
        ("streaming.json", 13, ['{"cit']),
        ("streaming.json", 17, ["457", "31"]),
        ("streaming.json", 28, ["北京今天晴，气温 -"]),
        ("two-cities-parallel.json", 11, ["call_24caafaa0", "call_069e8cc71"]),
        ("two-cities-parallel.json", 15, ["id 4", "1"]),
        ("progress-notifications.json", 15, ["1", "3"]),
        ("resource-read.json", 11, ["weather://cities"]),
        ("prompt-fetched.json", 11, ["weather_report"]),
    ]
    for name, seq, expected in cases:
        hop, ctx = _hop_of(name, seq)
        for lang in LANGS:
            text = teaching_text(hop, lang, context=ctx)
            for part in expected:
                assert part in text, (name, seq, lang, part, text)


def test_parallel_calls_in_flight_need_the_neighbours_and_get_them_in_the_viewer():
    from flow.views.viewer import viewer_bundle

    hop, ctx = _hop_of("two-cities-parallel.json", 15)
    assert ctx.calls_waiting == 1 and situation(hop, ctx).key == "call.request.in_flight"
    assert situation(hop).key == "call.request.checked"  # alone, the hop knows neither the others nor its answer
    bundle = viewer_bundle(_load(ROOT / "sample_traces" / "two-cities-parallel.json"))
    shown = next(h for h in bundle["hops"] if h["seq"] == 15)["teach"]
    assert shown == {lang: teaching_text(hop, lang, context=ctx) for lang in LANGS}


# --- situations the samples do not reach ---------------------------------------------------------------------------


def _hop(kind: Kind, payload: Any, *, step: int | None, source: Actor = "app", target: Actor = "app", **kw: Any) -> Hop:
    return new_hop(
        seq=kw.pop("seq", 1),
        kind=kind,
        source=source,
        target=target,
        payload=payload,
        step=step,
        t_start_ms=0.0,
        t_end_ms=0.0,
        size=0,
        **kw,
    )


def _error_body(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "x"}}


ONE_HOP_CASES: list[tuple[str, Hop, list[str]]] = [
    (
        "model.401",
        _hop("llm.error", {"status": 401, "body": _error_body("Incorrect API key provided.")}, step=3, source="model"),
        ["401"],
    ),
    (
        "model.404",
        _hop("llm.error", {"status": 404, "body": _error_body("The model `x` does not exist")}, step=3, source="model"),
        ["404"],
    ),
    (
        "model.429",
        _hop("llm.error", {"status": 429, "body": _error_body("Rate limit reached.")}, step=8, source="model"),
        ["429"],
    ),
    (
        "model.5xx",
        _hop("llm.error", {"status": 503, "body": _error_body("Overloaded.")}, step=3, source="model"),
        ["503"],
    ),
    (
        "model.5xx.refused",
        _hop(
            "llm.error",
            {
                "status": 500,
                "body": _error_body("1 validation errors:\n  {'type': 'missing', 'msg': 'Field required'}"),
            },
            step=8,
            source="model",
        ),
        ["500", "validation errors"],
    ),
    ("model.status", _hop("llm.error", {"status": 418, "body": "teapot"}, step=3, source="model"), ["418"]),
    (
        "model.deadline",
        _hop("llm.error", {"error": "deadline", "limit_s": 0.3, "answered": False}, step=3, source="model"),
        ["0.3"],
    ),
    (
        "model.too_large",
        _hop("llm.error", {"error": "too large", "limit_bytes": 4096}, step=3, source="model"),
        ["4096"],
    ),
    (
        "model.malformed",
        _hop("llm.error", {"error": "malformed response", "reason": "no choices"}, step=4, source="model"),
        ["no choices"],
    ),
    (
        "model.unreachable",
        _hop("llm.error", {"error": "ConnectError", "message": "refused"}, step=3, source="model"),
        ["ConnectError"],
    ),
    (
        "arguments.schema",
        _hop(
            "error",
            {
                "tool_call": {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city_name": "北京"}'},
                },
                "error": "arguments for get_weather do not match its schema: missing required field 'city'",
                "sent_back_to_model": True,
            },
            step=5,
            tool_call_id="call_1",
        ),
        ["get_weather", "call_1", "city_name"],
    ),
    (
        "server.closed",
        _hop(
            "error",
            {"error": "connection closed", "sdk_error": {"code": -32000, "message": "Connection closed"}},
            step=7,
            source="mcp_server",
            target="mcp_client",
        ),
        ["-32000"],
    ),
    (
        "server.timeout",
        _hop(
            "error",
            {"error": "timeout", "sdk_error": {"code": -32001, "message": "timed out"}},
            step=7,
            source="mcp_server",
            target="mcp_client",
        ),
        ["-32001"],
    ),
    (
        "server.http",
        _hop(
            "error",
            {
                "http": {
                    "method": "POST",
                    "url": "http://x/mcp",
                    "jsonrpc": {"id": 3, "method": "tools/call"},
                    "status": 500,
                }
            },
            step=7,
            source="mcp_server",
            target="mcp_client",
        ),
        ["tools/call"],
    ),
    (
        "server.broke",
        _hop(
            "error",
            {"error": "not JSON-RPC", "reason": "a list", "line_start": "[1]"},
            step=2,
            source="mcp_server",
            target="mcp_client",
        ),
        ["not JSON-RPC"],
    ),
    ("failure.other", _hop("error", {"error": "the trace reached its limit of 100,000 hops"}, step=None), []),
    (
        "list_changed",
        _hop(
            "mcp.notification",
            {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
            step=None,
            source="mcp_server",
            target="mcp_client",
        ),
        ["notifications/tools/list_changed"],
    ),
    (
        "cancelled",
        _hop(
            "mcp.notification",
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}},
            step=7,
            source="mcp_client",
            target="mcp_server",
        ),
        ["3"],
    ),
    (
        "progress.open",
        _hop(
            "mcp.notification",
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 7, "progress": 40}},
            step=6,
            source="mcp_server",
            target="mcp_client",
        ),
        ["7", "40"],
    ),
    (
        "rpc.request",
        _hop(
            "mcp.request",
            {"jsonrpc": "2.0", "id": 9, "method": "logging/setLevel"},
            step=None,
            source="mcp_client",
            target="mcp_server",
        ),
        ["logging/setLevel", "9"],
    ),
    (
        "rpc.result",
        _hop(
            "mcp.response",
            {"jsonrpc": "2.0", "id": 9, "result": {}},
            step=None,
            source="mcp_server",
            target="mcp_client",
        ),
        ["9"],
    ),
    (
        "invoke.server",
        _hop(
            "tool.invoke",
            {"function": "get_weather", "kwargs": {"city": "北京"}},
            step=6,
            source="mcp_server",
            target="tool",
        ),
        ["get_weather"],
    ),
    (
        "invoke.server.unnamed",
        _hop("tool.invoke", {"function": " ", "kwargs": {"city": "北京"}}, step=6, source="mcp_server", target="tool"),
        [],
    ),
    (
        "result.server",
        _hop("tool.result", {"return": {"city": "北京"}, "isError": False}, step=7, source="tool", target="mcp_server"),
        [],
    ),
    (
        "result.server.failed",
        _hop(
            "tool.result",
            {"return": "ValueError: no such city", "isError": True},
            step=7,
            source="tool",
            target="mcp_server",
        ),
        ["_meta"],
    ),
    (
        "result.server.raised",
        _hop(
            "tool.result",
            {"raised": {"type": "ToolError", "message": "no such city"}, "isError": True, "reported_by": "mcp_server"},
            step=7,
            source="tool",
            target="mcp_server",
        ),
        ["ToolError", "no such city"],
    ),
    (
        "result.direct.failed",
        _hop("tool.result", {"return": "boom", "isError": True}, step=7, source="tool", tool_call_id="call_9"),
        ["call_9", "boom"],
    ),
    (
        "replay.divergence",
        _hop("replay.divergence", {"divergence": "the request differs", "request_number": 2}, step=None),
        ["2"],
    ),
    (
        "replay.divergence.tool",
        _hop("replay.divergence", {"divergence": "result differs", "tool_call_id": "call_2"}, step=None),
        ["call_2"],
    ),
    ("replay.divergence.plain", _hop("replay.divergence", {"divergence": "differs"}, step=None), []),
]


@pytest.mark.parametrize(("key", "hop", "expected"), ONE_HOP_CASES, ids=[c[0] for c in ONE_HOP_CASES])
def test_a_situation_no_sample_reaches(key: str, hop: Hop, expected: list[str]):
    found = situation(hop)
    assert found.key == key
    for item in _items(found):
        assert _in_hop(item, hop), (key, item)
    for lang in LANGS:
        text = teaching_text(hop, lang)
        assert not _PLACEHOLDER.search(text)
        _check_language(text, found, lang)
        for part in expected:
            assert part in text, (key, lang, part, text)


def test_the_server_side_hops_of_step_6_are_told_apart_from_direct_mode_by_their_source():
    server = _hop("tool.invoke", {"function": "get_weather", "kwargs": {}}, step=6, source="mcp_server", target="tool")
    direct = _hop("tool.invoke", {"function": "get_weather", "kwargs": {}}, step=6, source="app", target="tool")
    assert situation(server).key == "invoke.server" and situation(direct).key == "invoke.direct"
    back = _hop("tool.result", {"return": 1, "isError": False}, step=7, source="tool", target="mcp_server")
    home = _hop("tool.result", {"return": 1, "isError": False}, step=7, source="tool", target="app", tool_call_id="c")
    assert situation(back).key == "result.server" and situation(home).key == "result.direct.ok"
    assert teaching_text(server, "en") != teaching_text(direct, "en")


def _end(previous: Hop | None) -> str:
    end = _hop("error", {"error": "FlowAbort", "message": "stopped"}, step=10, target="user", seq=9)
    return situation(end, HopContext(previous=previous)).key


def test_why_a_run_ended_is_read_from_the_hop_before():
    model_failed = _hop("llm.error", {"status": 401}, step=3, source="model")
    server_failed = _hop("error", {"error": "timeout"}, step=7, source="mcp_server", target="mcp_client")
    still_calling = _hop(
        "llm.response",
        {
            "body": {
                "choices": [{"message": {"tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}]}}]
            }
        },
        step=4,
        source="model",
    )
    answered = _hop("app.answer", {"content": "x"}, step=10, target="user")
    assert [_end(h) for h in (model_failed, server_failed, still_calling, answered, None)] == [
        "end.model_failed",
        "end.server_failed",
        "end.round_limit",
        "end.failed",
        "end.failed",
    ]
    hops = [model_failed, _hop("error", {"error": "AuthenticationError"}, step=10, target="user", seq=2)]
    assert teaching_texts(hops, "en")[1] == TEXTS["end.model_failed"]["en"]


@pytest.mark.parametrize(
    "payload", [None, "cut short", 3, [], {}, {"body": []}, {"data": {"choices": [None]}}, {"result": {"tools": 5}}]
)
def test_an_odd_payload_gets_a_plainer_text_never_an_exception(payload: Any):
    from helpers import odd_payload_hops

    hops = [hop for _, hop in odd_payload_hops(payload)]
    # Built by hand, where a neighbour or the step decides the text: as the loader would take them (a payload of its
    # kind's type), or with no payload it can read.
    built = [_hop(kind, payload, step=step) for kind in ("mcp.response", "tool.result", "error") for step in (4, 10)]
    hops += [hop for hop in built if not isinstance(payload, dict) or payload_problem([hop]) is None]
    assert hops
    for lang in LANGS:
        for hop, text in zip(hops, teaching_texts(hops, lang), strict=True):
            assert text and not _PLACEHOLDER.search(text), (hop.kind, text)


FAILED_RUNS = [
    ({"model": "mock-error-401"}, ["model.401", "end.model_failed"]),
    ({"model": "mock-error-429"}, ["model.429", "end.model_failed"]),
    ({"model": "mock-error-500"}, ["model.5xx", "end.model_failed"]),
    ({"model": "mock-unknown-model"}, ["model.404", "end.model_failed"]),
    ({"model": "mock-bad-args", "strict": True}, ["arguments.schema"]),
    ({"question": "北京今天天气怎么样？穿什么合适？", "max_rounds": 1}, ["end.round_limit"]),
    ({"server_fault": "hang", "mcp_timeout_s": 0.5}, ["server.timeout", "end.server_failed"]),
    (
        {"stream": True, "era": "modern", "question": "北京和上海今天天气怎么样？"},
        ["assembled.calls", "call.request.in_flight"],
    ),
]


@pytest.mark.parametrize(("options", "keys"), FAILED_RUNS, ids=[",".join(k) for _, k in FAILED_RUNS])
def test_runs_the_samples_do_not_record_get_their_own_texts_too(options: dict[str, Any], keys: list[str]):
    from helpers import run_flow_sync

    options = dict(options)
    result = run_flow_sync(
        options.pop("question", "北京今天天气怎么样？"), model=options.pop("model", "mock"), **options
    )
    hops = result.trace.hops
    found = [situation(h, c) for h, c in zip(hops, hop_contexts(hops), strict=True)]
    assert set(keys) <= {f.key for f in found}, [f.key for f in found]
    for hop, f in zip(hops, found, strict=True):
        assert f.key != FALLBACK, hop.kind
        for item in _items(f):
            assert _in_hop(item, hop), (f.key, item)
    for lang in LANGS:
        for text, f in zip(teaching_texts(hops, lang), found, strict=True):
            _check_language(text, f, lang)
