"""JSON text inside a trace is read by one bounded parse (issue 43): text nested too deeply or too long is "not
readable", and every view of a trace holding it gives its normal output, never a RecursionError."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from flow.cli import main
from flow.trace.files import load_trace
from flow.trace.json_text import MAX_JSON_TEXT_CHARS, read_json_text
from flow.trace.model import MAX_DEPTH
from flow.views.lesson import lesson_markdown
from flow.views.table import hop_rows
from flow.views.viewer import viewer_bundle
from helpers import ROOT

SAMPLES = ROOT / "sample_traces"
DEEP = "[" * 100_000 + "]" * 100_000
JUST_UNDER = "[" * MAX_DEPTH + "]" * MAX_DEPTH


def test_normal_json_reads_as_json_loads_reads_it():
    for text in ('{"city": "北京", "days": [1, 2.5, null, true]}', '"[[[ not brackets"', "[]", "3", "NaN"):
        ok, value = read_json_text(text)
        assert ok and json.dumps(value) == json.dumps(json.loads(text))
    deep_in_a_string = json.dumps({"text": "[" * 10_000})
    assert read_json_text(deep_in_a_string) == (True, {"text": "[" * 10_000})


def test_json_nested_past_the_depth_limit_is_not_readable():
    assert read_json_text(JUST_UNDER)[0] is True
    over = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    assert read_json_text(over) == (False, f"nested more than {MAX_DEPTH} levels deep")
    assert read_json_text(DEEP) == (False, f"nested more than {MAX_DEPTH} levels deep")
    assert read_json_text('{"a": ' * 100_000)[0] is False


def test_json_text_over_the_size_limit_is_not_readable():
    ok, why = read_json_text(" " * (MAX_JSON_TEXT_CHARS + 1) + "1")
    assert not ok and "over the limit" in why


def test_text_that_is_not_json_says_why():
    assert read_json_text('{"city": "北京"') == (False, "Expecting ',' delimiter at position 13")
    assert read_json_text('{"a": "x') == (False, "Unterminated string starting at position 6")
    assert read_json_text("1" * 5000)[0] is False  # a number too long to convert


def _with_text(sample: str, old: str, new: str) -> dict[str, Any]:
    """A sample's file data with every string equal to `old` (after removing spaces) replaced by `new`."""

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return new if isinstance(value, str) and value.replace(" ", "").replace("\n", "") == old else value

    return walk(json.loads((SAMPLES / sample).read_text(encoding="utf-8")))


def _deep_result_trace(tmp_path: Path, text: str) -> Path:
    """beijing-mcp with the tool result's text (in the MCP response, the tool.result and the next model request)
    replaced by `text`."""
    data = json.loads((SAMPLES / "beijing-mcp.json").read_text(encoding="utf-8"))
    result = next(
        h["payload"]["result"]["content"][0]["text"]
        for h in data["hops"]
        if h["kind"] == "mcp.response" and "content" in (h["payload"].get("result") or {})
    )
    changed = _with_text("beijing-mcp.json", result.replace(" ", "").replace("\n", ""), text)
    assert json.dumps(changed).count(json.dumps(text)) >= 3
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(changed, ensure_ascii=False), encoding="utf-8")
    return path


def _deep_arguments_trace(tmp_path: Path, text: str) -> Path:
    changed = _with_text("responses-mcp.json", '{"city":"北京"}', '{"city": ' + text + "}")
    path = tmp_path / "deep-arguments.json"
    path.write_text(json.dumps(changed, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture(params=["result", "arguments"])
def deep_trace(request, tmp_path) -> Path:
    make = _deep_result_trace if request.param == "result" else _deep_arguments_trace
    return make(tmp_path, DEEP)


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_lesson_of_a_trace_with_deep_json_text_is_written(deep_trace, capsys, lang):
    code, out, err = _cli(capsys, "lesson", str(deep_trace), "--lang", lang)
    assert code == 0 and out.startswith("# ") and err == ""
    assert "RecursionError" not in out


def test_the_html_page_of_a_trace_with_deep_json_text_is_written(deep_trace, capsys, tmp_path):
    out = tmp_path / "deep.html"
    code, printed, err = _cli(capsys, "render", str(deep_trace), "-f", "html", "-o", str(out))
    assert code == 0 and printed.strip() == str(out) and err == ""
    assert "RecursionError" not in out.read_text(encoding="utf-8")


def test_the_viewer_bundle_and_the_table_of_a_trace_with_deep_json_text(deep_trace):
    trace = load_trace(deep_trace)
    for lang in ("zh", "en"):
        bundle = viewer_bundle(trace, lang=lang)  # what the Step page shows
        assert len(bundle["hops"]) == len(trace.hops)
        assert "RecursionError" not in json.dumps(bundle, ensure_ascii=False)
        assert lesson_markdown(trace, lang=lang).startswith("# ")
    assert len(hop_rows(trace)) == len(trace.hops)


def test_text_just_under_the_depth_limit_is_read_as_json(tmp_path, capsys):
    path = _deep_result_trace(tmp_path, JUST_UNDER)
    code, out, _ = _cli(capsys, "lesson", str(path), "--lang", "en")
    assert code == 0 and out.startswith("# ")
    assert viewer_bundle(load_trace(path), lang="en")["hops"]


def test_call_args_nested_too_deeply_is_one_line(capsys):
    code, out, err = _cli(capsys, "call", "get_weather", "--args", '{"city": ' + "[" * 20_000 + "]" * 20_000 + "}")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"error: --args is not valid JSON (nested more than {MAX_DEPTH} levels deep)")
