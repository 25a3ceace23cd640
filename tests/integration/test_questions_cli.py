"""The questions file through the command line, in its own process (the questions themselves are tested in this
process: tests/unit/test_questions.py)."""

from __future__ import annotations

import json
import shutil

import pytest
from test_questions import good  # the unit lane's helper (tests/unit is on the path: pyproject.toml)

from helpers import ROOT, flow_cli

SAMPLE_DIR = ROOT / "sample_traces"


def test_render_html_picks_up_the_questions_file_beside_the_trace(tmp_path):
    shutil.copy(SAMPLE_DIR / "beijing-mcp.json", tmp_path / "lesson.json")
    (tmp_path / "lesson.questions.json").write_text(json.dumps(good(ask="Beside the trace")), encoding="utf-8")
    out = tmp_path / "lesson.html"
    proc = flow_cli("render", str(tmp_path / "lesson.json"), "--format", "html", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Beside the trace" in out.read_text(encoding="utf-8")
    (tmp_path / "lesson.questions.json").write_text("{", encoding="utf-8")
    proc = flow_cli("render", str(tmp_path / "lesson.json"), "--format", "html", "-o", str(out))
    assert proc.returncode != 0 and "lesson.questions.json: not JSON" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("command", [["lesson", "--lang", "en"], ["render", "--format", "html"]])
def test_a_lone_surrogate_in_a_questions_file_is_one_line_not_a_traceback(tmp_path, command):
    shutil.copy(SAMPLE_DIR / "beijing-mcp.json", tmp_path / "lesson.json")
    (tmp_path / "lesson.questions.json").write_text(json.dumps(good(ask="half \ud800 a pair")), encoding="utf-8")
    out = tmp_path / "out"
    proc = flow_cli(command[0], str(tmp_path / "lesson.json"), *command[1:], "-o", str(out))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'lesson.questions.json'}: questions[0].ask: text with a lone surrogate (\\ud800), "
        "not a character"
    ]
    assert not out.exists()
