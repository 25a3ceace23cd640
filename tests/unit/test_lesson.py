"""`python -m flow lesson`: the lesson script a teacher prints or pastes into slides, called in this process."""

from __future__ import annotations

import json
import os
import re

import pytest

from flow.cli import main
from flow.text.teaching import teaching_texts
from flow.trace.factory import new_hop
from flow.trace.files import load_trace, save_trace
from flow.trace.model import Trace
from flow.views.lesson import LessonQuestion, focus_excerpt, lesson_markdown, prose
from helpers import ROOT, Ran

SAMPLES = ROOT / "sample_traces"


@pytest.fixture
def cli(capsys, monkeypatch):
    for name in [k for k in os.environ if k.startswith("OPENAI_")]:
        monkeypatch.delenv(name)

    def call(*args: str) -> Ran:
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return Ran(code, out, err)

    return call


def _overview_rows(markdown: str) -> list[list[str]]:
    section = markdown.split("\n## ")[1]
    rows = [line for line in section.splitlines() if line.startswith("| ")][1:]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_lesson_has_the_title_the_ten_messages_and_every_hop_with_the_viewers_text(cli, lang):
    path = SAMPLES / "beijing-mcp.json"
    trace = load_trace(path)
    ran = cli("lesson", str(path), "--lang", lang)
    assert ran.returncode == 0, ran.stderr
    text = ran.stdout
    assert text.startswith(f"# {prose((trace.meta.title or {})[lang])}\n")
    rows = _overview_rows(text)
    assert [row[1] for row in rows] == [str(n) for n in range(11)]  # phase zero, then messages 1 to 10
    assert rows[0][0] == ("阶段零" if lang == "zh" else "phase zero")
    last = str(load_trace(SAMPLES / "beijing-mcp.json").hops[-1].seq)
    assert rows[2][-1] == "3, 4, 5, 6, 7, 8" and rows[10][-1] == last  # which hops are which message
    headings = re.findall(r"^### (.*)$", text, flags=re.M)
    assert len(headings) == len(trace.hops)
    for hop, heading, teach in zip(trace.hops, headings, teaching_texts(trace.hops, lang), strict=True):
        assert heading.startswith(f"第 {hop.seq} 跳" if lang == "zh" else f"Hop {hop.seq} ")
        assert (f"第 {hop.step} 条消息" if lang == "zh" else f"message {hop.step}") in heading or hop.step == 0
        assert prose(teach) in text
    assert "MCP 客户端 → MCP 服务器" in text if lang == "zh" else "MCP Client → MCP Server" in text


def test_each_hop_shows_the_focus_of_its_payload_as_json(cli):
    trace = load_trace(SAMPLES / "beijing-mcp.json")
    decision = next(h for h in trace.hops if h.seq == 11)
    excerpt = focus_excerpt(decision)
    assert excerpt["tool_calls[0].function.arguments"] == '{"city": "北京"}' and excerpt["content"] is None
    text = cli("lesson", str(SAMPLES / "beijing-mcp.json"), "--lang", "en").stdout
    hop_11 = text.split("### Hop 11 ")[1].split("### Hop 12 ")[0]
    block = re.search(r"```json\n(.*?)\n```", hop_11, flags=re.S)
    assert block is not None and json.loads(block.group(1)) == json.loads(json.dumps(excerpt))


def test_the_overview_says_why_a_message_has_no_hop(tmp_path):
    answered_at_once = lesson_markdown(load_trace(SAMPLES / "tool-choice-none.json"), lang="en")
    rows = _overview_rows(answered_at_once)
    assert all(rows[n][-1] == "none: the model answered at once, no tool round" for n in range(4, 9))
    assert rows[9][-1] != "" and not rows[9][-1].startswith("none")

    beijing = load_trace(SAMPLES / "beijing-mcp.json")
    hops = beijing.hops[:10]
    failed = new_hop(
        seq=11,
        kind="llm.error",
        source="model",
        target="app",
        payload={"status": 401},
        step=3,
        t_start_ms=0,
        t_end_ms=0,
        size=0,
    )
    end = new_hop(
        seq=12,
        kind="error",
        source="app",
        target="user",
        payload={"error": "AuthenticationError"},
        step=10,
        t_start_ms=0,
        t_end_ms=0,
        size=0,
    )
    stopped = Trace(meta=beijing.meta.model_copy(update={"outcome": "error"}), hops=[*hops, failed, end])
    rows = _overview_rows(lesson_markdown(stopped, lang="zh"))
    # Where it stopped is the failed model call (hop 11, message 3), not the error shown to the user after it.
    assert all(rows[n][-1] == "无：运行在第 11 跳（第 3 条消息）停止" for n in range(4, 10))
    assert rows[10][-1] == "12 · 没有回答：运行出错停止了，应用把错误展示给用户，代替回答。"

    direct = _overview_rows(lesson_markdown(load_trace(SAMPLES / "beijing-direct.json"), lang="en"))
    assert direct[6][3] == "app → the function" and "not recorded" not in direct[6][-1]


def test_message_6_names_the_servers_own_hop_when_there_is_one_and_says_why_not_when_there_is_none():
    trace = load_trace(SAMPLES / "beijing-mcp.json")  # the demo server reports its own run of the function
    call = next(h.seq for h in trace.hops if h.kind == "mcp.request" and h.step == 6)
    inside = next(h.seq for h in trace.hops if h.kind == "tool.invoke" and h.source == "mcp_server")
    text = lesson_markdown(trace, lang="en")
    assert _overview_rows(text)[6][-1] == f"{call}, {inside}"
    assert "the real function get_weather" in text.split(f"### Hop {inside} ")[1]
    silent = trace.model_copy(
        update={"hops": [h for h in trace.hops if h.source != "mcp_server" or h.target != "tool"]}
    )
    without = _overview_rows(lesson_markdown(silent, lang="en"))[6][-1]
    assert without.startswith(f"{call} (") and "not recorded" in without


def test_a_question_is_asked_and_answered_before_its_hops_text():
    trace = load_trace(SAMPLES / "beijing-mcp.json")
    question = LessonQuestion("Will the model answer with text or with tool_calls?", ("text", "tool_calls"), 1)
    text = lesson_markdown(trace, lang="en", questions={11: question})
    hop_11 = text.split("### Hop 11 ")[1].split("### Hop 12 ")[0]
    asked, answer, teach, payload = (
        hop_11.index(s) for s in ("**Question:**", "**Answer:** B. tool", "Message 4:", "Payload focus:")
    )
    assert asked < answer < teach < payload  # the text says tool_calls: printed before the answer it would spoil
    assert text.count("**Question:**") == 1 and "**Question:**" not in lesson_markdown(trace, lang="en")


def test_what_the_file_says_never_becomes_markup(tmp_path):
    trace = load_trace(SAMPLES / "beijing-mcp.json")
    hostile = "<img src=x onerror=alert(1)> | **bold** [link](http://x) `code`"
    answer = trace.hops[-1].model_copy(update={"payload": {"content": "```\n# not a heading\n````"}})
    odd = trace.model_copy(
        update={
            "meta": trace.meta.model_copy(update={"question": hostile, "title": None}),
            "hops": [*trace.hops[:-1], answer],
        }
    )
    text = lesson_markdown(odd, lang="en")
    assert not re.search(r"(?<!\\)<", text) and "\\<img" in text and "\\*\\*bold\\*\\*" in text and "\\[link\\]" in text
    last = text.split(f"### Hop {answer.seq} ")[1]
    fence = re.search(r"^(`{3,})json$", last, flags=re.M)
    assert fence is not None and len(fence.group(1)) == 5  # longer than the four backticks inside
    assert "\n# not a heading" not in text


def test_the_lesson_goes_to_a_file_with_o_and_a_bad_file_is_one_line_and_exit_2(cli, tmp_path):
    out = tmp_path / "lesson.md"
    ran = cli("lesson", str(SAMPLES / "streaming.json"), "--lang", "zh", "-o", str(out))
    assert ran.returncode == 0 and ran.stdout.strip() == str(out)
    written = out.read_text(encoding="utf-8")
    assert written.startswith("# ") and "第 13 跳" in written
    assert cli("lesson", str(SAMPLES / "streaming.json"), "--lang", "zh", "-o", "-").stdout == written
    with_metaphor = cli("lesson", str(SAMPLES / "streaming.json"), "--lang", "zh", "--restaurant").stdout
    assert "餐厅比喻" in with_metaphor and "顾客开口点菜" in with_metaphor and "餐厅比喻" not in written

    bad = tmp_path / "bad.json"
    bad.write_text('{"format_version": 1, "meta": {"mode": "mcp"}}', encoding="utf-8")
    for path in (bad, tmp_path / "missing.json"):
        ran = cli("lesson", str(path), "--lang", "en")
        assert ran.returncode == 2 and ran.stdout == ""
        assert ran.stderr.startswith("error: ") and ran.stderr.count("\n") == 1, ran.stderr

    trace = load_trace(SAMPLES / "two-rounds.json")
    save_trace(trace, tmp_path / "copy.json")
    assert cli("lesson", str(tmp_path / "copy.json"), "--lang", "en").returncode == 0


# The samples whose hop texts state the answer to the question asked before them (issue 24's spoilers).
@pytest.mark.parametrize("name", ["unknown-tool", "tool-error", "tool-choice-required", "prompt-fetched"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_cli_asks_the_samples_own_questions_in_the_lessons_language(cli, lang, name):
    from flow.trace.questions import questions_for

    path = SAMPLES / f"{name}.json"
    asked = questions_for(path)
    hops = load_trace(path).hops
    texts = {h.seq: t for h, t in zip(hops, teaching_texts(hops, lang), strict=True)}
    assert asked  # the sample comes with questions
    ran = cli("lesson", str(path), "--lang", lang)
    assert ran.returncode == 0, ran.stderr
    for seq, question in asked.items():
        heading = f"### 第 {seq} 跳 " if lang == "zh" else f"### Hop {seq} "
        hop = ran.stdout.split(heading)[1].split("\n### ")[0]
        right = question.choices[question.answer - 1][lang]
        answer_line = next(line for line in hop.splitlines() if line.startswith("**") and right in line)
        assert hop.index(question.ask[lang]) < hop.index(answer_line)
        assert hop.index(answer_line) < hop.index(prose(texts[seq]))  # the hop's text only after the answer
    assert ran.stdout.count(asked[next(iter(asked))].ask[lang]) == 1


RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def test_the_lesson_writes_terminal_controls_and_bidi_marks_from_the_file_as_escapes(cli, tmp_path):
    trace = load_trace(SAMPLES / "beijing-mcp.json")
    odd = "\x1b]8;;http://x\x07link\x1b]8;;\x07 \x1b[2J\x00 evil\u202eexe.txt \u2066x\u2069"
    answer = trace.hops[-1].model_copy(update={"payload": {"content": odd}})
    hostile = trace.model_copy(
        update={
            "meta": trace.meta.model_copy(update={"question": odd, "title": None}),
            "hops": [*trace.hops[:-1], answer],
        }
    )
    save_trace(hostile, tmp_path / "odd.json")
    question = {"at": {"step": 1, "kind": "user.message"}, "ask": odd, "choices": [odd, "b"], "answer": 1, "why": odd}
    (tmp_path / "odd.questions.json").write_text(json.dumps({"questions": [question]}), encoding="utf-8")
    ran = cli("lesson", str(tmp_path / "odd.json"), "--lang", "en")
    assert ran.returncode == 0, ran.stderr
    assert not RAW_CONTROLS.search(ran.stdout)
    assert "evil\\u202eexe.txt" in ran.stdout and "\\x1b" in ran.stdout
    assert ran.stdout.count("**Question:**") == 1


# What only MCP mode has: none of it is in a direct-mode trace, so no row of its table may name it.
MCP_WORDS = re.compile(r"MCP|decorator|装饰器|tools/list|tools/call|CallToolResult|JSON-RPC|translation|翻译")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_row_of_the_direct_mode_table_speaks_of_mcp(cli, lang):
    trace = load_trace(SAMPLES / "beijing-direct.json")
    assert trace.meta.mode == "direct" and not any("mcp" in h.source + h.target for h in trace.hops)
    rows = _overview_rows(cli("lesson", str(SAMPLES / "beijing-direct.json"), "--lang", lang).stdout)
    assert len(rows) == 11
    for row in rows:
        assert not MCP_WORDS.search(" | ".join(row)), row
    # What the trace does hold: hand-written schemas, the app sending message 3 itself, the function's return.
    assert rows[3][3] == ("应用 → 模型 API" if lang == "zh" else "App → Model API")
    assert ("手写" if lang == "zh" else "written by hand") in rows[0][4]
    assert ("返回值" if lang == "zh" else "return value") in rows[7][4]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_mcp_mode_table_still_names_what_mcp_does(cli, lang):
    rows = _overview_rows(cli("lesson", str(SAMPLES / "beijing-mcp.json"), "--lang", lang).stdout)
    assert ("装饰器" if lang == "zh" else "decorators") in rows[0][4]
    assert "tools/list" in rows[2][4] and "tools/call" in rows[6][4] and "CallToolResult" in rows[7][4]
    assert ("正向翻译" if lang == "zh" else "forward translation") in rows[3][2]
    assert ("反向翻译" if lang == "zh" else "reverse translation") in rows[6][2]


def test_message_6_of_the_mcp_table_is_true_where_the_server_runs_nothing():
    """unknown-tool: the server answers the first tools/call with -32602 and runs nothing."""
    trace = load_trace(SAMPLES / "unknown-tool.json")
    refused = next(h for h in trace.hops if h.kind == "mcp.error")
    assert refused.payload["error"]["code"] == -32602
    for lang in ("zh", "en"):
        row = _overview_rows(lesson_markdown(trace, lang=lang))[6]
        assert "really runs" not in row[4] and "真正运行" not in row[4]
        assert "tools/call" in row[4] and ("asked to run" in row[4] or "请服务器运行" in row[4])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_mcp_table_draws_message_3_from_the_host_and_says_the_article_is_wrong(lang):
    rows = _overview_rows(lesson_markdown(load_trace(SAMPLES / "beijing-mcp.json"), lang=lang))
    way, hops = rows[3][3], rows[3][-1]
    app_model = "应用 → 模型 API" if lang == "zh" else "App → Model API"
    assert way.startswith(app_model) and ("MCP 客户端 → 模型 API" if lang == "zh" else "MCP Client → Model API") in way
    assert ("这是错的" if lang == "zh" else "that is wrong") in hops
    assert ("CallToolResult 没有这个字段" if lang == "zh" else "a CallToolResult has no such field") in rows[7][-1]


def test_a_dead_servers_lesson_says_where_the_run_stopped():
    from helpers import run_flow_sync

    result = run_flow_sync(server_fault="die")
    assert not result.ok
    trace = result.trace
    closed = next(h for h in trace.hops if h.kind == "error" and h.step == 7)
    rows = _overview_rows(lesson_markdown(trace, lang="en"))
    assert "no answer came back" in rows[6][-1] and "not recorded" not in rows[6][-1]
    assert "connection to the MCP server closed" in rows[7][-1]
    assert rows[8][-1] == rows[9][-1] == f"none: the run stopped at hop {closed.seq} (message 7)"
