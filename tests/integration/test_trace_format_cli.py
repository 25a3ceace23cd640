"""`mcp-flow validate` in its own process (the trace format itself is tested in this process:
tests/unit/test_trace_format.py)."""

from __future__ import annotations

import json
import os

from test_trace_format import _mutate  # the unit lane's helper (tests/unit is on the path: pyproject.toml)

from helpers import ROOT, flow_cli

SAMPLES = sorted((ROOT / "sample_traces").glob("*.json"))


def test_validate_prints_ok_or_the_first_problem_with_its_path(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_bytes(_mutate(["hops", 11, "tool_call_id"], None))
    junk = tmp_path / "junk.json"
    junk.write_bytes(os.urandom(64))
    proc = flow_cli("validate", str(SAMPLES[0]), str(broken), str(junk))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    n_hops = len(json.loads(SAMPLES[0].read_text(encoding="utf-8"))["hops"])
    assert lines[0] == f"{SAMPLES[0]}: OK ({n_hops} hops, format 1)"
    assert lines[1] == f"{broken}: hops[11].tool_call_id: missing"
    assert lines[2].startswith(f"{junk}: ") and "Traceback" not in proc.stdout + proc.stderr
