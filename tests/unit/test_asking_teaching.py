"""The teaching texts of a server that asks, on traces made by really running the demo's asking tools (elicitation,
sampling, roots) in both protocol eras and with questions in both languages: every hop of the exchange gets its own
text (never the fallback) in zh and en, filled from its own payload, in the right language; and each says what is
true of its era."""

from __future__ import annotations

from functools import cache

import pytest
from test_teaching import _CJK, _PLACEHOLDER, _WORD, ALLOWED_IN_ZH, _check_language, _in_hop, _items, _without_fills

from flow.engine.options import RunOptions
from flow.runs import run
from flow.servers.spec import Era, ServerSpec
from flow.text.names import Lang
from flow.text.teaching import FALLBACK, TEXTS, hop_contexts, situation, teaching_text
from flow.trace.model import Hop, Trace, as_dict

QUESTIONS = {
    "elicit": ("我这里今天天气怎么样？", "What's the weather where I am?"),
    "sample": ("用一句话说说北京未来三天的天气", "Tell me Beijing's forecast in one sentence"),
    "roots": ("北京有什么课堂笔记？", "What notes does the class have on Beijing?"),
    "outing": ("明天适合带全班去北京郊游吗？", "Is the weather in Shanghai good for a class outing?"),
}
ERAS: tuple[Era, ...] = ("handshake", "modern")
CASES = [(tool, era, q) for tool, qs in QUESTIONS.items() for era in ERAS for q in qs]

# The wire names the asking texts keep in Chinese, beside those the other texts keep (tests/unit/test_teaching.py).
ASKING_WIRE = frozenset(
    """
    sampling elicitation roots sampling/createMessage elicitation/create roots/list maxTokens requestedSchema
    action accept decline cancel stopReason model resultType input_required inputRequests inputResponses
    requestState io.modelcontextprotocol/clientCapabilities max_output_tokens sampling.tools tool_use tool_result toolUse
    """.split()
)


@cache
def asked(question: str, era: Era) -> Trace:
    """A run of the demo server's asking tools over memory, the user answering 上海."""
    options = RunOptions.build(server=ServerSpec(), asks=True, transport="memory", era=era, answers={"city": "上海"})
    result = run(question, options=options)
    assert result.ok, result.error
    return result.trace


def asking_hops(trace: Trace) -> list[Hop]:
    """The hops a server that asks adds: its requests and the client's answers, input-required results and retried
    calls, the host's model calls for it, the user's form."""
    out = []
    for hop in trace.hops:
        payload = as_dict(hop.payload)
        params, result = as_dict(payload.get("params")), as_dict(payload.get("result"))
        if (
            (
                hop.kind in ("mcp.request", "mcp.response")
                and hop.source == "mcp_client"
                and hop.target == "mcp_server"
                and ("inputResponses" in params or hop.kind == "mcp.response")
            )
            or (hop.kind == "mcp.request" and hop.source == "mcp_server")
            or result.get("resultType") == "input_required"
            or "for_server" in payload
            or hop.kind == "user.input"
        ):
            out.append(hop)
    return out


EXPECTED = {
    ("elicit", "handshake"): {"asks.elicit", "user.asked", "user.answered.accept", "answers.elicit.accept"},
    ("elicit", "modern"): {"input_required", "user.asked", "user.answered.accept", "call.retry"},
    ("sample", "handshake"): {"asks.sampling", "ask.for_server", "answer.for_server", "answers.sampling"},
    ("sample", "modern"): {"input_required", "ask.for_server", "answer.for_server", "call.retry"},
    ("roots", "handshake"): {"asks.roots", "answers.roots"},
    ("roots", "modern"): {"input_required", "call.retry"},
    ("outing", "handshake"): {
        "asks.sampling.tools",
        "ask.for_server.tools",
        "answer.for_server.calls",
        "answers.sampling.tool_use",
        "answer.for_server",
        "answers.sampling",
    },
    ("outing", "modern"): {
        "input_required",
        "ask.for_server.tools",
        "answer.for_server.calls",
        "answer.for_server",
        "call.retry",
    },
}


@pytest.mark.parametrize(("tool", "era", "question"), CASES)
def test_every_hop_of_a_server_that_asks_has_its_own_text_in_both_languages(tool, era, question):
    trace = asked(question, era)
    contexts = dict(zip((h.seq for h in trace.hops), hop_contexts(trace.hops), strict=True))
    hops = asking_hops(trace)
    keys = set()
    for hop in hops:
        found = situation(hop, contexts[hop.seq])
        keys.add(found.key)
        assert found.key != FALLBACK and found.key in TEXTS, (hop.seq, hop.kind, found.key)
        for item in _items(found):
            assert _in_hop(item, hop), (hop.seq, found.key, item)
        for lang in ("zh", "en"):
            text = teaching_text(hop, lang, context=contexts[hop.seq])
            assert not _PLACEHOLDER.search(text), text
            if lang == "zh":  # the rule of tests/unit/test_teaching.py, with the asking texts' wire names
                rest = _without_fills(text, found)
                assert not [w for w in _WORD.findall(rest) if w not in ALLOWED_IN_ZH | ASKING_WIRE], text
                assert _CJK.search(rest), text
            else:
                _check_language(text, found, "en")
    assert EXPECTED[(tool, era)] <= keys, keys
    # the host's capabilities are read in its first request, in the era's own place
    first = situation(trace.hops[2], contexts[trace.hops[2].seq]).key
    assert first == ("initialize.request.host" if era == "handshake" else "discover.request.host")


def _text(trace: Trace, key: str, lang: Lang) -> str:
    contexts = hop_contexts(trace.hops)
    for hop, ctx in zip(trace.hops, contexts, strict=True):
        if situation(hop, ctx).key == key:
            return teaching_text(hop, lang, context=ctx)
    raise AssertionError(key)


def test_the_retry_is_called_round_two_with_a_new_id_linked_by_state():
    trace = asked("我这里今天天气怎么样？", "modern")
    calls = [h for h in trace.hops if h.kind == "mcp.request" and h.payload.get("method") == "tools/call"]
    first, retry = calls[0].payload["id"], calls[1].payload["id"]
    assert first != retry
    en = _text(trace, "call.retry", "en")
    assert "Round 2" in en and f"new JSON-RPC id {retry}" in en and f"id {first}" in en and "requestState" in en
    zh = _text(trace, "call.retry", "zh")
    assert "第 2 轮" in zh and f"id {retry}" in zh


def test_a_retry_whose_state_no_result_gave_is_said_to_be_unpaired():
    trace = asked("我这里今天天气怎么样？", "modern")
    hops = [h for h in trace.hops if not (h.kind == "mcp.response" and "input_required" in str(h.payload))]
    retry = next(h for h in hops if "inputResponses" in str(h.payload) and h.kind == "mcp.request")
    ctx = dict(zip((h.seq for h in hops), hop_contexts(hops), strict=True))[retry.seq]
    assert situation(retry, ctx).key == "call.retry.unpaired"
    assert "unpaired" in teaching_text(retry, "en", context=ctx)
    assert situation(retry).key == "call.retry.plain"  # alone, the frame claims no round


def test_the_texts_say_what_the_era_does():
    sampling = asked("用一句话说说北京未来三天的天气", "handshake")
    assert "120" in _text(sampling, "asks.sampling", "en") and "never holds an API key" in _text(
        sampling, "asks.sampling", "en"
    )
    roots = asked("北京有什么课堂笔记？", "handshake")
    assert "does not enforce" in _text(roots, "answers.roots", "en")
    assert "MCP 并不强制" in _text(roots, "answers.roots", "zh")
    modern = asked("北京有什么课堂笔记？", "modern")
    text = _text(modern, "input_required", "en")
    assert "roots/list" in text and "no session" in text and "not finished" in text
