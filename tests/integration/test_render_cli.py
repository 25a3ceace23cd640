"""`mcp-flow render` in its own process: each format written, and a bad file said in one line (the rest of the
rendering is tested in this process: tests/unit/test_render.py)."""

from __future__ import annotations

import pytest

from helpers import ROOT, flow_cli


@pytest.mark.parametrize(
    ("fmt", "magic"),
    [
        ("svg", b"<"),
        ("png", b"\x89PNG"),
        ("dot", b"digraph"),
        ("mermaid", b"sequenceDiagram"),
        ("html", b"<!DOCTYPE html>"),
    ],
)
def test_render_command_writes_each_format(tmp_path, fmt, magic):
    out = tmp_path / f"out.{fmt}"
    proc = flow_cli(
        "render", str(ROOT / "sample_traces" / "beijing-mcp.json"), "--format", fmt, "--out", str(out), "--step", "6"
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes().lstrip().startswith(magic)


def test_render_of_a_bad_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    proc = flow_cli("render", str(bad), "--format", "dot")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "format_version: missing" in proc.stderr
