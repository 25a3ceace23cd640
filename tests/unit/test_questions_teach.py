"""The samples' questions make a class predict: no hop before a question states its answer, each sample asks about its
own point, one answer is right, and the words are the glossary's. Also the samples' notes and the mock's answers
that the questions lean on, computed from the committed sample traces."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable

import pytest

from flow.samples import SAMPLES
from flow.text.teaching import teaching_texts
from flow.trace.files import load_trace
from flow.trace.model import Trace
from flow.trace.questions import Anchor, Lang, Question, load_questions, questions_for, sample_questions_path
from helpers import ROOT

SAMPLE_DIR = ROOT / "sample_traces"
LANGS: tuple[Lang, ...] = ("zh", "en")

# A question may be asked in at most this many samples: the rest ask about their own point.
MAX_FILES_PER_QUESTION = 2


def _trace(name: str) -> Trace:
    return load_trace(SAMPLE_DIR / f"{name}.json")


def _texts(q: Question) -> list[str]:
    return (
        [q.ask[lang] for lang in LANGS]
        + [c[lang] for c in q.choices for lang in LANGS]
        + ([q.why[lang] for lang in LANGS] if q.why else [])
    )


def _question_at(name: str, at: Anchor) -> tuple[Trace, int, Question]:
    """The trace, the index of the hop a question is asked before, and the question."""
    return _question(name, lambda q: q.at == at)


def _question_asking(name: str, phrase: str) -> tuple[Trace, int, Question]:
    """The question whose English ask has `phrase`, wherever its file anchors it."""
    return _question(name, lambda q: phrase in q.ask["en"])


def _question(name: str, which: Callable[[Question], bool]) -> tuple[Trace, int, Question]:
    trace = _trace(name)
    asked = questions_for(trace)
    [(seq, q)] = [(seq, q) for seq, q in asked.items() if which(q)]
    [index] = [i for i, hop in enumerate(trace.hops) if hop.seq == seq]
    return trace, index, q


# (sample, a phrase of the question's ask, the answer's key fact as the teaching texts word it in en and zh, and
# whether a hop from the asked one on says it today). Wherever the question is anchored, no hop before it may say
# the fact: moving it back after the hop that tells would fail here.
SPOILERS = [
    ("tool-error", "no weather for Mars", r"isError (is )?true", r"isError 为 true", True),
    ("tool-choice-required", "really a greeting", r"isError (is )?true", r"isError 为 true", True),
    ("unknown-tool", "not on the server's tool list", r"-32602|JSON-RPC error", r"-32602|JSON-RPC 错误", True),
    (
        "prompt-fetched",
        "Who chose that prompt",
        r"chose the prompt|chosen by the user",
        r"选用模板的是|由用户或应用",
        True,
    ),
    ("prompt-fetched", "What role will they have", r"roles? user", r"role\s*(依次)?为 user", True),
    ("beijing-mcp", "carry the model's tool_call_id", r"MCP never sees", r"MCP 看不到", True),
    (
        "era-handshake",
        "What will the client send next",
        r"notifications/initialized",
        r"notifications/initialized",
        True,
    ),
    ("progress-notifications", "which request one belongs to", r"progressToken", r"progressToken", True),
    ("streaming", "Where will the usage", r"usage", r"用量", True),
    (
        "tool-choice-named",
        "backfill request carry",
        r"tool_choice (is )?auto|back to auto",
        r"改回 auto|为 auto",
        False,
    ),
    (
        "tool-choice-required",
        "in the backfill request",
        r"tool_choice (is )?auto|back to auto",
        r"改回 auto|为 auto",
        False,
    ),
    ("two-rounds", "how many chat.completions requests", r"three|3 (model )?(requests|calls)", r"三次|3 次", False),
]


@pytest.mark.parametrize(("sample", "phrase", "en", "zh", "said_after"), SPOILERS, ids=[s[1] for s in SPOILERS])
def test_no_hop_before_a_question_states_its_answer(sample, phrase, en, zh, said_after):
    trace, index, _ = _question_asking(sample, phrase)
    patterns: tuple[tuple[Lang, str], ...] = (("en", en), ("zh", zh))
    for lang, pattern in patterns:
        texts = teaching_texts(trace.hops, lang)

        before = [(hop.seq, text) for hop, text in zip(trace.hops[:index], texts[:index], strict=True)]
        spoilers = [(seq, text) for seq, text in before if re.search(pattern, text)]
        assert not spoilers, f"{sample}: hop {spoilers[0][0]} tells the answer before the question: {spoilers[0][1]}"
        if said_after:  # the fact is one the lesson does state: on the hop asked about, or later
            assert any(re.search(pattern, text) for text in texts[index:]), (sample, lang, pattern)


def test_the_moved_questions_are_asked_before_the_hop_that_told_their_answer():
    """tool-error and tool-choice-required: asked before the server's own tool.result (hop 15), and no hop before
    it speaks of isError; unknown-tool: before its tools/call, not at the error after it."""
    for sample in ("tool-error", "tool-choice-required"):
        trace, index, _ = _question_at(sample, Anchor(7, "tool.result"))
        told = teaching_texts(trace.hops, "en")
        assert trace.hops[index].kind == "tool.result" and not any("isError" in t for t in told[:index])
        assert not any(q.at == Anchor(7, "mcp.response") for q in questions_for(trace).values())
    trace, index, q = _question_at("unknown-tool", Anchor(6, "mcp.request"))
    assert trace.hops[index + 1].kind == "mcp.error" and q.choices[q.answer - 1]["en"].startswith("a JSON-RPC error")
    # prompt-fetched no longer asks what prompts/get returns right after the hop that says the server fills it in
    asked = [q.ask["en"] for q in questions_for(_trace("prompt-fetched")).values()]
    assert not any("What will prompts/get return" in a for a in asked)
    # message 4's text says the call's id "is what the result must quote": no backfill asks which id it carries
    for shipped in SAMPLES:
        for q in questions_for(_trace(shipped.name)).values():
            assert "Which tool_call_id will the role" not in q.ask["en"], shipped.name


def test_no_question_recurs_in_more_than_a_few_samples():
    files: dict[str, set[str]] = defaultdict(set)
    for sample in SAMPLES:
        path = sample_questions_path(sample.name)
        assert path is not None
        for q in load_questions(path):
            for lang in LANGS:
                files[q.ask[lang]].add(sample.name)
    common = {ask: sorted(names) for ask, names in files.items() if len(names) > MAX_FILES_PER_QUESTION}
    assert not common, f"asked in more than {MAX_FILES_PER_QUESTION} samples: {common}"


# Each sample with a point of its own asks about it (a word of its point in one of its questions).
OWN_POINT = {
    "quirky-provider": "finish_reason is stop",
    "tool-choice-named": '{"type": "function", "function": {"name": "calc_work_hours"}}',
    "tool-choice-required": "required",
    "tool-choice-none": "none",
    "streaming": "chunk",
    "era-handshake": "InitializeResult",
    "era-modern": "server/discover",
    "progress-notifications": "Progress notifications",
    "two-rounds": "advice",
    "scripted-model": "script",
}


@pytest.mark.parametrize("sample", sorted(OWN_POINT))
def test_a_sample_with_its_own_point_asks_about_it(sample):
    asks = [q.ask["en"] for q in questions_for(_trace(sample)).values()]
    assert any(OWN_POINT[sample] in ask for ask in asks), asks


def test_the_named_function_question_gives_tool_choice_as_it_is_on_the_wire():
    trace = _trace("tool-choice-named")
    [request] = [h for h in trace.hops if h.kind == "llm.request" and h.step == 3]
    wire = request.payload["body"]["tool_choice"]
    assert wire == {"type": "function", "function": {"name": "calc_work_hours"}}
    first = next(iter(questions_for(trace).values()))
    assert '{"type": "function", "function": {"name": "calc_work_hours"}}' in first.ask["en"]
    assert '{"type": "function", "function": {"name": "calc_work_hours"}}' in first.ask["zh"]


@pytest.mark.parametrize("sample", ["tool-choice-named", "tool-choice-required"])
def test_the_backfill_question_answers_auto_as_the_trace_sends(sample):
    trace, index, q = _question_at(sample, Anchor(8, "llm.request"))
    assert trace.hops[index].payload["body"]["tool_choice"] == "auto"
    assert q.choices[q.answer - 1]["en"] == "auto"


def test_era_modern_asks_what_discover_tells_not_which_request_is_first():
    """Item 10: a client may skip server/discover, so 'what is the first request?' had two answers; and the
    stateless era has no session to name."""
    asked = questions_for(_trace("era-modern")).values()
    for q in asked:
        assert "first request" not in q.ask["en"] and "第一个请求" not in q.ask["zh"]
        assert "session" not in q.ask["en"] and "会话" not in q.ask["zh"]
    [discover] = [q for q in asked if q.at == Anchor(2, "mcp.request")]
    assert "server/discover" in discover.ask["en"] and discover.why is not None
    assert "skip discover" in discover.why["en"] and "也可以不发 discover" in discover.why["zh"]
    assert discover.choices[discover.answer - 1]["en"].startswith("which protocol versions")


def test_one_right_answer_and_no_two_choices_alike():
    for sample in SAMPLES:
        for q in questions_for(_trace(sample.name)).values():
            for lang in LANGS:
                assert len({c[lang] for c in q.choices}) == len(q.choices), (sample.name, q.ask[lang])
            assert 1 <= q.answer <= len(q.choices) and q.why is not None


@pytest.mark.parametrize("sample", [s.name for s in SAMPLES if s.options.get("mode") == "direct"])
def test_a_direct_mode_question_never_speaks_of_json_rpc(sample):
    """beijing-direct has no MCP: no choice about a JSON-RPC id, nor any JSON-RPC at all."""
    trace = _trace(sample)
    assert not any(h.kind.startswith("mcp.") for h in trace.hops)
    for q in questions_for(trace).values():
        for text in _texts(q):
            assert "JSON-RPC" not in text, text


# The glossary's forbidden variants, and English where Chinese has a word, in the questions' Chinese.
FORBIDDEN_ZH = [
    "function calling",
    "chunk",
    "分片",
    "提示词",
    "直接模式",
    "第 0 阶段",
    "重放",
    "上了线路",
    "新协议时代",
]


def test_the_questions_chinese_uses_the_glossary():
    for sample in SAMPLES:
        for q in questions_for(_trace(sample.name)).values():
            zh = [q.ask["zh"], *(c["zh"] for c in q.choices), q.why["zh"] if q.why else ""]
            for text in zh:
                for word in FORBIDDEN_ZH:
                    assert word not in text, (sample.name, word, text)


# ---- the samples' notes and titles, and the mock's answers ----


def test_the_progress_note_ties_only_progress_to_its_request():
    """Item 9: only notifications/progress carries progressToken; the log line (notifications/message) carries
    nothing that ties it to a request."""
    trace = _trace("progress-notifications")
    methods = {h.payload.get("method"): h for h in trace.hops if h.kind == "mcp.notification"}
    log = methods["notifications/message"].payload["params"]
    assert "progressToken" not in log and "_meta" not in log
    assert "progressToken" in methods["notifications/progress"].payload["params"]
    note, title = trace.meta.note or {}, trace.meta.title or {}
    assert "the token ties them to their request" not in note["en"]
    assert "靠 token 归到它们所属的请求下" not in note["zh"]
    assert "nothing in it ties it to a request" in note["en"] and "没有任何字段把它和某个请求连起来" in note["zh"]
    assert "服务器在执行中说话" not in title["zh"] and "speaks while it works" not in title["en"]


def test_the_samples_titles_and_notes_use_the_glossary():
    for sample in SAMPLES:
        for text in (sample.title_zh, sample.note_zh):
            for word in FORBIDDEN_ZH + ["服务器在执行中说话"]:
                assert word not in text, (sample.name, word)


def _answer(trace: Trace) -> str:
    [hop] = [h for h in trace.hops if h.kind == "app.answer"]
    return hop.payload["content"]


def test_the_tool_choice_none_answer_claims_nothing_it_cannot_know():
    """No tool ran and a model is never told tool_choice's value: the answer holds neither data nor the parameter."""
    trace = _trace("tool-choice-none")
    assert not any(h.kind in ("mcp.request", "tool.invoke") and h.step == 6 for h in trace.hops)
    answer = _answer(trace)
    assert "tool_choice" not in answer and "none" not in answer
    assert not re.search(r"\d+\s*°C|晴|多云", answer)  # no weather at all
    assert "查不到实时数据" in answer


@pytest.mark.parametrize("sample", ["tool-error", "tool-choice-required", "two-rounds", "prompt-fetched"])
def test_a_question_asked_in_chinese_is_answered_in_chinese(sample):
    answer = _answer(_trace(sample))
    assert re.search(r"[\u4e00-\u9fff]", answer)
    assert not re.search(r"[A-Za-z]+[,.;:']? [A-Za-z]+", answer), answer  # no English sentence (a tool's name may stay)
    assert "Error executing tool" not in answer and "Wear sunglasses" not in answer


def test_every_advice_the_demo_server_gives_has_the_mocks_chinese():
    """The mock answers a Chinese question in Chinese; a new or reworded advice text would be quoted in English."""
    from flow.backends.mock import _ADVICE_ZH
    from weather_demo.tools import _PRACTICES, best_practice

    assert {best_practice(topic) for topic in _PRACTICES} == set(_ADVICE_ZH)
    for zh in _ADVICE_ZH.values():  # Chinese prose; a field name (isError) stays as code
        assert re.search(r"[\u4e00-\u9fff]", zh) and not re.search(r"[A-Za-z]{3,}", zh.replace("isError", "")), zh
