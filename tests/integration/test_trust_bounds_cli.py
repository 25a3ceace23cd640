"""A reader bounded in its own process (the other bounds are tested in this process: tests/unit/test_trust_bounds.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers import ROOT


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_is_refused_at_once_not_read_forever(tmp_path):
    # In a subprocess with a timeout: a reader that regressed would read zeros until memory ran out.
    out = tmp_path / "out"
    script = f"""
from flow.cli import main
for command in (["validate"], ["show"], ["render", "--out", {str(out)!r}], ["import", "--out", {str(out)!r}]):
    print(command[0], main([command[0], "/dev/zero", *command[1:]]), flush=True)
"""
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.stdout.split() == [
        "/dev/zero:",
        "is",
        "a",
        "device,",
        "not",
        "a",
        "file;",
        "save",
        "what",
        "it",
        "holds",
        "to",
        "a",
        "file",
        "first",
        "validate",
        "1",
        "show",
        "2",
        "render",
        "2",
        "import",
        "2",
    ], proc.stdout + proc.stderr
    assert proc.stderr.count("error: /dev/zero: is a device, not a file") == 3 and "Traceback" not in proc.stderr
    assert not out.exists()
