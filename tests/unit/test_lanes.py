"""The test suite's lanes (tests/conftest.py): every test module is in a lane's folder, and each test carries its
lane's marker and time limit."""

from __future__ import annotations

import pytest

from helpers import ROOT


def test_every_test_module_is_in_a_lane():
    stray = sorted(path.name for path in (ROOT / "tests").glob("test_*.py"))
    assert stray == [], f"move these into tests/unit, tests/integration or tests/browser: {stray}"


def test_a_test_is_marked_with_its_lane_and_given_its_time_limit(request: pytest.FixtureRequest):
    assert [mark.name for mark in request.node.iter_markers() if mark.name in ("unit", "integration", "browser")] == [
        "unit"
    ]
    limit = request.node.get_closest_marker("timeout")
    assert limit is not None and limit.args == (120,)
