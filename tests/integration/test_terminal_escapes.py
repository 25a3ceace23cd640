"""What a peer chose to say reaches the terminal with its control characters shown as escapes, never raw: a model's
answer, a provider's or server's error, a server's listing and a tool's output. The peers here are a scripted model
and a real stdio MCP server that sends escape codes (tests/data/escapes_server.py)."""

from __future__ import annotations

import shlex
import sys

import pytest

from flow.cli import main
from flow.cli.common import error, peer_text
from helpers import ROOT

ESCAPES_SERVER = shlex.join([sys.executable, str(ROOT / "tests" / "data" / "escapes_server.py")])
RAW = ("\x1b", "\x9b", "\x07")


def _printed(capsys: pytest.CaptureFixture[str]) -> str:
    out, err = capsys.readouterr()
    return out + err


def test_peer_text_shows_each_control_character_as_its_escape_and_keeps_lines():
    assert peer_text("a\x1b[2Jb\x9b31m\x07\nc\td") == "a\\x1b[2Jb\\x9b31m\\x07\nc\td"


def test_an_error_line_holding_escape_codes_is_one_line_of_visible_escapes(capsys):
    error("the provider says \x1b[2J\x1b[31mgo away\nnow\x07")
    _, err = capsys.readouterr()
    assert err == "error: the provider says \\x1b[2J\\x1b[31mgo away now\\x07\n"


def test_a_models_answer_with_escape_codes_is_printed_escaped(tmp_path, capsys):
    script = '[{answer: "\\e[2J\\e[31m晴\\x9b0m\\a"}]'
    code = main(
        ["run", "--mode", "direct", "--transport", "memory", "--script", script, "-o", str(tmp_path / "t.json")]
    )
    printed = _printed(capsys)
    assert code == 0, printed
    assert not any(c in printed for c in RAW), printed
    assert "\\x1b[2J\\x1b[31m晴\\x9b0m\\x07" in printed


def test_a_servers_listing_and_tool_output_with_escape_codes_are_printed_escaped(tmp_path, capsys):
    assert main(["tools", "--server", ESCAPES_SERVER]) == 0
    listed = _printed(capsys)
    assert "esc\\x1b[2Jserver" in listed and "Shout\\x1b]0;owned\\x07 back\\x9b31m" in listed
    code = main(
        ["call", "shout", "--args", '{"message": "hi"}', "--server", ESCAPES_SERVER, "-o", str(tmp_path / "c.json")]
    )
    called = _printed(capsys)
    assert code == 0, called
    assert "\\x1b[2J\\x1b[31mHI\\x9b0m\\x07" in called
    assert not any(c in listed + called for c in RAW)


def test_a_servers_question_on_the_terminal_shows_its_escape_codes(capsys, monkeypatch):
    """The server's message, its URL and a field's description, asked on the terminal: escaped, never raw."""
    from flow.cli.asking import TerminalAnswerer
    from flow.engine.host import Question

    monkeypatch.setattr("builtins.input", lambda prompt: print(prompt, file=sys.stderr) or "d")
    ask = TerminalAnswerer()
    ask._ask(Question("\x1b[2Jyour name?", "url", {}, url="https://x.example/\x9b31m"))
    form = {"type": "object", "properties": {"name": {"type": "string", "description": "who\x07"}}}
    ask._ask(Question("fill \x1b[31min", "form", form))
    printed = _printed(capsys)
    assert not any(raw in printed for raw in RAW), printed
    assert "\\x1b[2Jyour name?" in printed and "who\\x07" in printed and "\\x9b31m" in printed
