"""The benchmark script runs on tiny sizes and prints every figure (its numbers are not judged here).

The browser section (`python -m bench --browser --quick`) is left out: it starts the app and Chromium and
takes minutes on a shared machine; tests/browser/test_viewer_browser.py checks the same behaviour as pass/fail."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import ROOT


def test_bench_quick_prints_every_figure(tmp_path):
    out = tmp_path / "results.json"
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--no-browser", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = proc.stdout
    assert text.startswith("machine: ") and " CPUs · Python " in text
    for figure in [
        "recorded_over_unrecorded",
        "recorded_over_bare",
        "warm_over_memory",
        "cold_over_warm",
        "load_validate",
        "dot_frame",
        "hop_table",
        "mermaid",
        "html",
        "growth of µs/hop",
        "large_trace_step_ms",
        "startup_s",
        "peak_over_file",
        "pairing_growth",
        "merge_growth",
        "import_growth",
        "approvals_refused_requests",
        "approvals_answering_over_refused",
        "approvals_cap_over_one",
    ]:
        assert figure in text, figure
    # The recording overhead is printed with the machine's load beside it (a shared machine's other work moves it).
    overhead = next(line for line in text.splitlines() if line.strip().startswith("recorded_over_unrecorded "))
    assert "(load " in overhead and " · load " in text.splitlines()[0]
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["recording"]["recorded_ms"] > 0 and len(results["scaling"]) == 2
    assert results["recording"]["recording_load"] >= 0
    assert all(v > 0 for v in results["memory"].values())
    assert "browser" not in results and "[browser]" not in text
