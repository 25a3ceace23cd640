"""Predict, then reveal: questions a teacher asks before chosen hops, kept in a small file beside a trace.

A trace `DIR/NAME.json` has its questions in `DIR/NAME.questions.json` (or `DIR/questions/NAME.questions.json`,
where the samples keep theirs, so a folder of traces holds only traces). The file is data: text, choices and
anchors; nothing in it names a file, a URL or a program. A question is anchored by what survives regenerating a
trace: the hop's step, its kind and which of the hops with that step and kind it is (1 for the first); never its
`seq`. Every problem is one line (`QuestionsError`, a `TraceError`).

    {"version": 1, "questions": [{
        "at": {"step": 4, "kind": "llm.response", "occurrence": 1},
        "ask": {"zh": "模型会用文字回答，还是返回 tool_calls？", "en": "Will the model answer in text or with tool_calls?"},
        "choices": [{"zh": "文字", "en": "text"}, {"zh": "tool_calls", "en": "tool_calls"}],
        "answer": 2,
        "why": {"zh": "……", "en": "..."}}]}

`answer` counts the choices from 1. A text is a string (both languages) or {"zh": ..., "en": ...} (one may be
left out: the other stands in).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from flow.trace.files import TraceError, escape_controls, json_value_problem, load_trace, read_limited
from flow.trace.model import KINDS, Trace, is_array, is_object
from flow.trace.shipped import SAMPLE_DIR

Lang = Literal["zh", "en"]  # as flow.text.names.Lang, which this layer cannot import
LANGS: tuple[Lang, ...] = ("zh", "en")

MAX_QUESTIONS_BYTES = 64 * 1024
MAX_QUESTIONS = 100
MAX_CHOICES = 5
CHOICE_KEYS = "abcde"  # the keys that pick the choices, in order (the viewer gets them in its bundle)
assert len(CHOICE_KEYS) == MAX_CHOICES
MAX_TEXT_CHARS = 400
MAX_OCCURRENCE = 10_000
QUESTIONS_VERSION = 1
SUFFIX = ".questions.json"

# Where the committed samples keep their questions.
SAMPLE_QUESTIONS = SAMPLE_DIR / "questions"

Text = dict[Lang, str]


class Words(TypedDict):
    """A text in both languages, as JSON carries it to the viewer."""

    zh: str
    en: str


class QuestionJson(TypedDict):
    """A question as the viewer receives it (`answer` still counts from 1)."""

    ask: Words
    choices: list[Words]
    answer: int
    why: Words | None


def words(text: Mapping[Lang, str]) -> Words:
    return {"zh": text["zh"], "en": text["en"]}


class QuestionsError(TraceError):
    """A questions file that cannot be used; the message is one line for the user."""


@dataclass(frozen=True, slots=True)
class Anchor:
    step: int | None
    kind: str
    occurrence: int = 1

    def describe(self) -> str:
        return f"step {self.step}, kind {self.kind}, occurrence {self.occurrence}"


@dataclass(frozen=True, slots=True)
class Question:
    at: Anchor
    ask: Text
    choices: tuple[Text, ...]
    answer: int  # 1-based
    why: Text | None = None

    def to_json(self) -> QuestionJson:
        """As the viewer receives it (`answer` still counts from 1)."""
        return {
            "ask": words(self.ask),
            "choices": [words(c) for c in self.choices],
            "answer": self.answer,
            "why": words(self.why) if self.why else None,
        }


def _text(value: Any, where: str) -> Text:
    if isinstance(value, str):
        value = {"zh": value, "en": value}
    if not is_object(value):
        raise QuestionsError(f'{where}: a text is a string or {{"zh": ..., "en": ...}}, not {type(value).__name__}')
    extra = sorted(set(value) - set(LANGS))
    if extra:
        raise QuestionsError(f"{where}: unknown language {extra[0]!r} (zh or en)")
    out: dict[Lang, str] = {}
    for lang in LANGS:
        text = value.get(lang)
        if text is None:
            continue
        if not isinstance(text, str):
            raise QuestionsError(f"{where}.{lang}: a text is a string, not {type(text).__name__}")
        text = text.strip()
        if len(text) > MAX_TEXT_CHARS:
            raise QuestionsError(f"{where}.{lang}: {len(text)} characters is over the limit of {MAX_TEXT_CHARS}")
        if text:
            out[lang] = text
    if not out:
        raise QuestionsError(f"{where}: empty; give the text in zh, en or both")
    return {"zh": out.get("zh") or out["en"], "en": out.get("en") or out["zh"]}


def _keys(value: Any, where: str, required: set[str], optional: set[str]) -> dict[str, Any]:
    if not is_object(value):
        raise QuestionsError(f"{where}: expected an object, not {type(value).__name__}")
    unknown = sorted(set(value) - required - optional)
    if unknown:
        raise QuestionsError(f"{where}: unknown field {unknown[0]!r}")
    missing = sorted(required - set(value))
    if missing:
        raise QuestionsError(f"{where}: missing field {missing[0]!r}")
    return value


def _int(value: Any, where: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise QuestionsError(f"{where}: expected a whole number from {low} to {high}, not {_shown(value)}")
    return value


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _anchor(value: Any, where: str) -> Anchor:
    data = _keys(value, where, {"kind"}, {"step", "occurrence"})
    step = data.get("step")
    if step is not None:
        step = _int(step, f"{where}.step", 0, 10)
    kind = data["kind"]
    if kind not in KINDS:
        raise QuestionsError(f"{where}.kind: {_shown(kind)} is not a hop kind")
    occurrence = _int(data.get("occurrence", 1), f"{where}.occurrence", 1, MAX_OCCURRENCE)
    return Anchor(step, kind, occurrence)


def parse_questions(data: Any, *, name: str = "questions") -> list[Question]:
    """Questions from decoded JSON; a problem is one `QuestionsError` line naming where it is."""
    # JSON's \ud800 escape decodes to half a character, which no page, terminal or file can write.
    bad = json_value_problem(data)
    if bad:
        raise QuestionsError(f"{name}: {bad}")
    top = _keys(data, name, {"questions"}, {"version"})
    version = top.get("version", QUESTIONS_VERSION)
    if version != QUESTIONS_VERSION:
        raise QuestionsError(f"{name}: version {_shown(version)} is not one this app reads ({QUESTIONS_VERSION})")
    items = top["questions"]
    if not is_array(items):
        raise QuestionsError(f"{name}: questions: expected a list, not {type(items).__name__}")
    if len(items) > MAX_QUESTIONS:
        raise QuestionsError(f"{name}: {len(items)} questions is over the limit of {MAX_QUESTIONS}")
    out: list[Question] = []
    seen: set[Anchor] = set()
    for n, item in enumerate(items, 1):
        where = f"{name}: question {n}"
        q = _keys(item, where, {"at", "ask", "choices", "answer"}, {"why"})
        at = _anchor(q["at"], f"{where}: at")
        if at in seen:
            raise QuestionsError(f"{where}: a second question at the same hop ({at.describe()})")
        seen.add(at)
        choices = q["choices"]
        if not is_array(choices) or not 2 <= len(choices) <= MAX_CHOICES:
            count = f"{len(choices)} choices" if is_array(choices) else type(choices).__name__
            raise QuestionsError(f"{where}: choices: expected a list of 2 to {MAX_CHOICES}, not {count}")
        texts = tuple(_text(c, f"{where}: choice {k}") for k, c in enumerate(choices, 1))
        answer = _int(q["answer"], f"{where}: answer", 1, len(texts))
        why = _text(q["why"], f"{where}: why") if q.get("why") is not None else None
        out.append(Question(at, _text(q["ask"], f"{where}: ask"), texts, answer, why))
    return out


def _refuse_constant(word: str) -> Any:
    raise ValueError(f"{word} is not JSON")


def read_questions_bytes(data: bytes, *, name: str = "questions") -> list[Question]:
    """Questions from a file's bytes or an upload (at most `MAX_QUESTIONS_BYTES`)."""
    if len(data) > MAX_QUESTIONS_BYTES:
        raise QuestionsError(
            f"{name}: {len(data):,} bytes is over the {MAX_QUESTIONS_BYTES // 1024} KiB limit for a questions file"
        )
    try:
        decoded = json.loads(data.decode("utf-8-sig"), parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise QuestionsError(f"{name}: not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:
        raise QuestionsError(f"{name}: not JSON ({escape_controls(str(exc))[:120]})") from None
    return parse_questions(decoded, name=name)


def load_questions(path: str | Path) -> list[Question]:
    try:
        data = read_limited(path, limit=MAX_QUESTIONS_BYTES, what="questions file")
    except QuestionsError:
        raise
    except TraceError as exc:
        raise QuestionsError(str(exc)) from None
    return read_questions_bytes(data, name=str(path))


def bind_questions(questions: list[Question], trace: Trace, *, name: str = "questions") -> dict[int, Question]:
    """Each question by the `seq` of the hop it is asked before; an anchor no hop of this trace matches is an error."""
    seen: dict[tuple[int | None, str], int] = {}
    hop_at: dict[Anchor, int] = {}
    for hop in trace.hops:
        key = (hop.step, hop.kind)
        seen[key] = seen.get(key, 0) + 1
        hop_at[Anchor(hop.step, hop.kind, seen[key])] = hop.seq
    out: dict[int, Question] = {}
    for n, q in enumerate(questions, 1):
        seq = hop_at.get(q.at)
        if seq is None:
            raise QuestionsError(f"{name}: question {n}: no hop of this trace is at {q.at.describe()}")
        out[seq] = q
    return out


def questions_path(trace_path: str | Path) -> Path | None:
    """The questions file of a trace file, if there is one: beside it, or in a `questions` folder beside it."""
    path = Path(trace_path)
    stem = path.name[: -len(".json")] if path.name.endswith(".json") else path.stem
    for candidate in (path.with_name(stem + SUFFIX), path.parent / "questions" / (stem + SUFFIX)):
        if candidate.is_file():
            return candidate
    return None


def sample_questions_path(sample: str) -> Path | None:
    """The committed questions of a sample, by its name."""
    if not sample or "/" in sample or "\\" in sample or sample.startswith("."):
        return None
    path = SAMPLE_QUESTIONS / (sample + SUFFIX)
    return path if path.is_file() else None


def questions_for(source: str | Path | Trace) -> dict[int, Question]:
    """A trace's questions, by the `seq` of the hop each is asked before; {} when it has none.

    `source` is a trace file (its questions file is found beside it, see `questions_path`) or a loaded trace
    (a sample's committed questions, by `meta.sample`). A bad questions file raises `QuestionsError`."""
    if isinstance(source, Trace):
        trace = source
        found = sample_questions_path(trace.meta.sample or "")
    else:
        found = questions_path(source)
        if found is None:
            return {}
        trace = load_trace(source)
    if found is None:
        return {}
    return bind_questions(load_questions(found), trace, name=str(found))
