"""Every text the app shows keeps one glossary (`flow.text.glossary`): a stream chunk is 分块 everywhere, an MCP prompt
提示模板, direct mode 直接调用模式, ... and Chinese prose has no English left in it and no half-width marks.

The corpus is what a class reads: every sample's lesson script in both languages (each hop's teaching text, the
route, the questions and their explanations), the samples' titles and notes, the Compare sentence, and every zh/en
text table in `flow.text`, `flow.views` and the pages' strings (`flow_ui.i18n`).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

import pytest

import flow.text
import flow.views
from flow.samples import SAMPLES
from flow.text.glossary import GLOSSARY, _prose, problems
from flow.text.names import Lang
from flow.trace.files import load_trace
from flow.trace.questions import questions_for
from flow.views.compare import point
from flow.views.lesson import LessonQuestion, lesson_markdown

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DIR = ROOT / "sample_traces"
LANGS: tuple[Lang, ...] = ("zh", "en")


def _bilingual(value: Any, seen: set[int]) -> Iterator[dict[str, str]]:
    """Every {"zh": ..., "en": ...} text inside `value` (dicts, lists, tuples, dataclasses)."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, dict):
        if {"zh", "en"} <= value.keys() and all(isinstance(value[k], str) for k in ("zh", "en")):
            yield value
            return
        for item in value.values():
            yield from _bilingual(item, seen)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _bilingual(item, seen)
    elif is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            yield from _bilingual(getattr(value, f.name), seen)


def _tables() -> Iterator[tuple[str, Lang, str]]:
    seen: set[int] = set()
    modules = ["flow_ui.i18n"]
    for package in (flow.text, flow.views):
        modules += [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    for name in modules:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if attr.isupper() or (attr.startswith("_") and attr[1:].isupper()):
                for text in _bilingual(value, seen):
                    for lang in LANGS:
                        yield f"{name}.{attr}", lang, text[lang]


def _lessons() -> Iterator[tuple[str, Lang, str]]:
    for sample in SAMPLES:
        path = SAMPLE_DIR / f"{sample.name}.json"
        trace = load_trace(path)
        for lang in LANGS:
            questions = {
                seq: LessonQuestion(
                    q.ask[lang], tuple(c[lang] for c in q.choices), q.answer - 1, q.why[lang] if q.why else None
                )
                for seq, q in questions_for(path).items()
            }
            yield f"lesson {sample.name}", lang, lesson_markdown(trace, lang=lang, restaurant=True, questions=questions)
        yield f"sample {sample.name}", "zh", sample.title_zh + "\n" + sample.note_zh
        yield f"sample {sample.name}", "en", sample.title_en + "\n" + sample.note_en
    direct, mcp = (load_trace(SAMPLE_DIR / f"beijing-{m}.json") for m in ("direct", "mcp"))
    for lang in LANGS:
        yield "compare", lang, point(direct, mcp, lang=lang)


def corpus() -> list[tuple[str, Lang, str]]:
    return [*_tables(), *_lessons()]


def test_the_corpus_is_what_a_class_reads() -> None:
    """The walk finds the teaching texts, the step texts, the pages' strings and all the lesson scripts: were it to
    find nothing, the glossary test would pass over an empty corpus."""
    where = {
        source.split(".")[-1] if source.startswith(("flow", "ui")) else source.split()[0] for source, _, _ in corpus()
    }
    assert {"TEXTS", "STEP_TEXTS", "TEXT", "ARTICLE_MESSAGES", "lesson", "sample", "compare"} <= where
    assert sum(1 for source, _, _ in corpus() if source.startswith("lesson")) == 2 * len(SAMPLES)


def test_problems_catches_each_rule() -> None:
    """Each rule fires on a text that breaks it, and not on the clean wording."""
    assert problems("参数被切成几个分片", "zh") and not problems("参数被切成几个分块", "zh")
    assert problems("用户选了一个提示词模板", "zh") and not problems("用户选了一个提示模板", "zh")
    assert problems("提问: 北京", "zh") and not problems("提问：北京", "zh")
    assert problems("这叫 function calling。", "zh") and not problems("这叫函数调用（tool_calls）。", "zh")
    assert problems('1 role "tool" result(s)', "en") and not problems("2 results", "en")
    assert problems("服务器借用主机的模型", "zh") and not problems("服务器借用宿主的模型，见主机名", "zh")
    assert problems("应用先按这份模式检查", "zh") and not problems("应用先按这份 Schema 检查，直接调用模式", "zh")
    assert problems("新协议里没有握手", "zh") and not problems("2026-07-28 协议里没有握手，最新协议版本", "zh")
    assert problems("请检查 API Key", "zh") and not problems("请检查 API 密钥", "zh")
    assert problems("和服务器说话的是服务商的客户端", "zh")
    assert not problems("服务器返回 `isError: true`，见 tools/call 和 weather://cities。", "zh")


@pytest.mark.parametrize("term", GLOSSARY, ids=lambda t: t.concept)
def test_a_terms_own_word_is_not_one_of_its_forbidden_variants(term: Any) -> None:
    assert not problems(term.zh, "zh"), term
    assert not problems(term.en, "en"), term


def test_every_text_keeps_the_glossary() -> None:
    found = [f"{source} [{lang}]: {p}" for source, lang, text in corpus() for p in problems(text, lang)]
    assert not found, "\n".join(sorted(set(found)))


def test_the_chinese_docs_keep_the_glossarys_words() -> None:
    """The docs' Chinese pages say 宿主, Schema, 2026-07-28 协议 and API 密钥 as the app does (their prose only: code,
    commands and names stay as they are)."""
    words = [t for t in GLOSSARY if t.zh in ("宿主", "Schema", "2026-07-28 协议", "API 密钥")]
    found = [
        f"{page.relative_to(ROOT)}: {m[0]!r} for {term.concept}"
        for page in sorted((ROOT / "docs").rglob("*.zh.md"))
        for term in words
        for variant in term.not_zh
        for m in re.finditer(variant, _prose(page.read_text(encoding="utf-8")), re.I)
    ]
    assert not found, "\n".join(found)
