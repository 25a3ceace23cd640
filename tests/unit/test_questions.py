"""Predict, then reveal: the questions file format (bounded, validated, one-line errors), its anchors, the samples'
questions in both languages, and the HTML export carrying them."""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest

import flow
from flow.samples import SAMPLES
from flow.trace.files import load_trace, parse_trace
from flow.trace.questions import (
    MAX_CHOICES,
    MAX_QUESTIONS,
    MAX_QUESTIONS_BYTES,
    MAX_TEXT_CHARS,
    QuestionsError,
    bind_questions,
    load_questions,
    parse_questions,
    questions_for,
    questions_path,
    read_questions_bytes,
    sample_questions_path,
)
from flow.views.html import to_html
from helpers import ROOT, must_search

CJK = re.compile(r"[\u4e00-\u9fff]")
SAMPLE_DIR = ROOT / "sample_traces"


def good(**change) -> dict:
    question = {
        "at": {"step": 4, "kind": "llm.response"},
        "ask": {"zh": "模型会怎么回？", "en": "How will the model reply?"},
        "choices": [{"zh": "文字", "en": "text"}, "tool_calls"],
        "answer": 2,
    }
    question.update(change)
    return {"version": 1, "questions": [question]}


def test_a_good_file_reads_with_defaults_filled_in():
    [q] = parse_questions(good())
    assert q.at.step == 4 and q.at.kind == "llm.response" and q.at.occurrence == 1
    assert q.choices[1] == {"zh": "tool_calls", "en": "tool_calls"}  # a plain string serves both languages
    assert q.answer == 2 and q.why is None
    [one] = parse_questions(good(ask={"en": "Only English"}))
    assert one.ask == {"zh": "Only English", "en": "Only English"}  # the other language stands in


BAD = [
    (b"not json", "not JSON"),
    (b'{"questions": [NaN]}', "not JSON"),
    (b"\xff\xfe", "not UTF-8"),
    (b"[]", "expected an object"),
    (json.dumps({"questions": "x"}).encode(), "expected a list"),
    (json.dumps({}).encode(), "missing field 'questions'"),
    (json.dumps({"questions": [], "url": "http://example.com"}).encode(), "unknown field 'url'"),
    (json.dumps(good(path="/etc/passwd")).encode(), "unknown field 'path'"),
    (json.dumps({"version": 2, "questions": []}).encode(), "version 2"),
    (json.dumps({"questions": [good()["questions"][0]] * (MAX_QUESTIONS + 1)}).encode(), "over the limit"),
    (json.dumps(good(choices=["one"])).encode(), "choices: expected a list of 2"),
    (json.dumps(good(choices=["c"] * (MAX_CHOICES + 1))).encode(), "choices: expected a list of 2"),
    (json.dumps(good(answer=0)).encode(), "answer: expected a whole number from 1 to 2"),
    (json.dumps(good(answer=3)).encode(), "answer: expected a whole number from 1 to 2"),
    (json.dumps(good(answer=True)).encode(), "answer: expected a whole number"),
    (json.dumps(good(answer="2")).encode(), "answer: expected a whole number"),
    (json.dumps(good(at={"step": 11, "kind": "llm.response"})).encode(), "at.step"),
    (json.dumps(good(at={"step": 4, "kind": "llm.nonsense"})).encode(), "is not a hop kind"),
    (json.dumps(good(at={"step": 4, "kind": "llm.response", "occurrence": 0})).encode(), "at.occurrence"),
    (json.dumps(good(at={"step": 4, "kind": "llm.response", "seq": 11})).encode(), "unknown field 'seq'"),
    (json.dumps(good(ask="x" * (MAX_TEXT_CHARS + 1))).encode(), "over the limit of"),
    (json.dumps(good(ask={"zh": " ", "en": ""})).encode(), "empty"),
    (json.dumps(good(ask={"fr": "Quoi ?"})).encode(), "unknown language 'fr'"),
    (json.dumps(good(ask=["a list"])).encode(), "a text is a string"),
    (json.dumps({"questions": good()["questions"] * 2}).encode(), "a second question at the same hop"),
    (b" " * (MAX_QUESTIONS_BYTES + 1), "KiB limit"),
    (json.dumps(good(ask={"en": "half \ud800 a pair"})).encode(), "questions[0].ask.en: text with a lone surrogate"),
    (json.dumps({"questions": [], "\udfff": 1}).encode(), "a key with a lone surrogate"),
]


@pytest.mark.parametrize(("data", "expected"), BAD, ids=[e for _, e in BAD])
def test_a_bad_questions_file_is_one_line_saying_what_is_wrong(data, expected):
    with pytest.raises(QuestionsError) as caught:
        read_questions_bytes(data, name="mine.questions.json")
    message = str(caught.value)
    assert expected in message and "\n" not in message and message.startswith("mine.questions.json")
    assert isinstance(caught.value, flow.TraceError)  # the pages' one except catches it


def test_a_question_anchored_where_no_hop_is_says_which_one():
    trace = load_trace(SAMPLE_DIR / "tool-choice-none.json")  # no step 4 at all
    with pytest.raises(QuestionsError, match=r"question 1: no hop of this trace is at step 4, kind llm.response"):
        bind_questions(parse_questions(good()), trace)


def test_anchors_survive_renumbering_and_count_occurrences():
    """Step + kind + occurrence, never seq: the same questions land on the same hops after the seqs move."""
    raw = json.loads((SAMPLE_DIR / "two-rounds.json").read_text(encoding="utf-8"))
    second = parse_questions(good(at={"step": 4, "kind": "llm.response", "occurrence": 2}))
    trace = parse_trace(raw)
    [(seq, _)] = bind_questions(second, trace).items()
    decisions = [h.seq for h in trace.hops if h.step == 4 and h.kind == "llm.response"]
    assert seq == decisions[1]
    # A regenerated trace with one more frame early on (a second notification): every later seq moves by one.
    extra = json.loads(json.dumps(next(h for h in raw["hops"] if h["kind"] == "mcp.notification")))
    raw["hops"].insert(extra["seq"], extra)
    for n, hop in enumerate(raw["hops"], 1):
        hop["seq"] = n
    [(moved, _)] = bind_questions(second, parse_trace(raw)).items()
    assert moved == seq + 1


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
def test_every_sample_comes_with_questions_in_both_languages(sample):
    path = sample_questions_path(sample.name)
    assert path is not None, f"no questions for {sample.name}"
    trace = load_trace(SAMPLE_DIR / f"{sample.name}.json")
    found = questions_for(trace)
    assert found and found == questions_for(SAMPLE_DIR / f"{sample.name}.json")  # by the trace or by its path
    seqs = {h.seq for h in trace.hops}
    for seq, q in found.items():
        assert seq in seqs
        for text in (q.ask, *q.choices, *([q.why] if q.why else [])):
            assert set(text) == {"zh", "en"}
            assert not CJK.search(text["en"]), text
        assert CJK.search(q.ask["zh"]) and q.ask["zh"] != q.ask["en"]
        assert len({c["en"] for c in q.choices}) == len(q.choices)  # no two choices alike
        assert q.why is not None


def test_the_file_beside_a_trace_is_found_and_the_questions_folder_too(tmp_path):
    shutil.copy(SAMPLE_DIR / "beijing-mcp.json", tmp_path / "mine.json")
    assert questions_path(tmp_path / "mine.json") is None and questions_for(tmp_path / "mine.json") == {}
    (tmp_path / "questions").mkdir()
    (tmp_path / "questions" / "mine.questions.json").write_text(json.dumps(good()), encoding="utf-8")
    assert questions_path(tmp_path / "mine.json") == tmp_path / "questions" / "mine.questions.json"
    beside = good(ask="Beside")
    (tmp_path / "mine.questions.json").write_text(json.dumps(beside), encoding="utf-8")
    found = questions_for(tmp_path / "mine.json")  # beside it wins
    assert [q.ask["en"] for q in found.values()] == ["Beside"]


def test_reading_a_questions_file_follows_the_trust_model(tmp_path):
    folder = tmp_path / "x.questions.json"
    folder.mkdir()
    with pytest.raises(QuestionsError, match="is a folder"):
        load_questions(folder)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.questions.json"
        os.mkfifo(fifo)
        with pytest.raises(QuestionsError, match="is a pipe"):
            load_questions(fifo)  # refused before it is read: never waits for a writer
    big = tmp_path / "big.questions.json"
    big.write_bytes(b" " * (MAX_QUESTIONS_BYTES + 1))
    with pytest.raises(QuestionsError, match="KiB limit"):
        load_questions(big)
    # A sample name is a name, never a path.
    assert sample_questions_path("../beijing-mcp") is None and sample_questions_path("/etc/passwd") is None


def test_the_html_export_carries_the_questions(tmp_path):
    trace = load_trace(SAMPLE_DIR / "unknown-tool.json")
    found = questions_for(trace)
    page = to_html(trace, lang="en", questions=found)
    bundle = json.loads(must_search(r'id="flow-bundle">(.*?)</script>', page, re.S).group(1))
    asked = {h["seq"]: h["question"] for h in bundle["hops"] if "question" in h}
    assert set(asked) == set(found)
    for seq, q in found.items():
        assert asked[seq]["ask"] == q.ask and asked[seq]["answer"] == q.answer
    plain = json.loads(must_search(r'id="flow-bundle">(.*?)</script>', to_html(trace, lang="en"), re.S).group(1))
    assert not any("question" in h for h in plain["hops"])


# ---- the Step page (AppTest): the lesson toggles and a questions file uploaded with a trace ----


def _app(lang: str = "en"):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=60).run()
    at.radio(key="lang_choice").set_value(lang).run()
    assert not at.exception
    return at


def _viewer(at) -> dict:
    [element] = at.get("bidi_component")
    data = json.loads(element.proto.json)
    return json.loads(data) if isinstance(data, str) else data


def test_the_step_page_s_toggles_reach_the_viewer_and_survive_a_language_switch():
    at = _app()
    data = _viewer(at)
    assert data["options"] == {"questions": False, "captions": False, "room": None, "presenter": False}
    expected = questions_for(load_trace(SAMPLE_DIR / "beijing-mcp.json"))
    asked = {h["seq"]: h["question"]["ask"]["en"] for h in data["bundle"]["hops"] if "question" in h}
    assert asked == {seq: q.ask["en"] for seq, q in expected.items()}  # the sample's file, loaded by itself
    assert f"This trace has {len(expected)} questions" in [c.value for c in at.sidebar.caption]
    bundle = data["bundle"]
    at.toggle(key="step_quiz_en").set_value(True).run()
    at.toggle(key="step_captions_en").set_value(True).run()
    assert not at.exception
    data = _viewer(at)
    assert data["options"] == {"questions": True, "captions": True, "room": None, "presenter": False}
    assert data["bundle"] == bundle  # a toggle redraws nothing: the same bundle
    at.radio(key="lang_choice").set_value("zh").run()
    assert at.toggle(key="step_quiz_zh").value is True and at.toggle(key="step_captions_zh").value is True
    assert _viewer(at)["options"] == {"questions": True, "captions": True, "room": None, "presenter": False}
    at.toggle(key="step_quiz_zh").set_value(False).run()
    assert _viewer(at)["options"] == {"questions": False, "captions": True, "room": None, "presenter": False}
    # A page whose URL says presenter mode (a reload in it) opens the viewer in it.
    at.query_params["presenter"] = "1"
    at.run()
    assert _viewer(at)["options"]["presenter"] is True


def test_a_questions_file_uploaded_with_a_trace_is_used_and_a_bad_one_is_one_line():
    at = _app()
    at.radio(key="step_source_en").set_value("upload").run()
    trace_bytes = (SAMPLE_DIR / "tool-choice-none.json").read_bytes()
    at.file_uploader(key="step_upload").set_value(("mine.json", trace_bytes, "application/json")).run()
    # A sample's own file keeps the sample's questions, as its HTML does; a questions file uploaded with it replaces them.
    assert not at.error and any("question" in h for h in _viewer(at)["bundle"]["hops"])
    mine = good(at={"step": 9, "kind": "llm.response"}, ask="Text or tool_calls?")
    at.file_uploader(key="step_questions_upload").set_value(
        ("mine.questions.json", json.dumps(mine).encode(), "application/json")
    ).run()
    assert not at.exception and not at.error
    [hop] = [h for h in _viewer(at)["bundle"]["hops"] if "question" in h]
    assert hop["question"]["ask"]["en"] == "Text or tool_calls?" and hop["kind"] == "llm.response"
    at.file_uploader(key="step_questions_upload").set_value(
        ("bad.questions.json", json.dumps(good()).encode(), "application/json")
    ).run()
    [error] = at.error
    assert "bad.questions.json: question 1: no hop of this trace is at step 4" in error.value
    assert "\n" not in error.value
    half = json.dumps(good(at={"step": 9, "kind": "llm.response"}, ask="half \ud800 a pair")).encode()
    at.file_uploader(key="step_questions_upload").set_value(("half.questions.json", half, "application/json")).run()
    assert not at.exception
    [error] = at.error
    assert "half.questions.json: questions\\[0\\].ask: text with a lone surrogate" in error.value
    assert _viewer(at)["bundle"]["hops"]  # the viewer still paints
