"""The app's first page, through Streamlit's own test harness."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent


def test_run_page_runs_the_flow_and_shows_the_hops():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    at.button[0].click().run()
    assert not at.exception
    assert "北京今天晴" in at.success[0].value
    table = at.dataframe[0].value
    assert len(table) == 18 and "tools/call get_weather(city=北京)" in set(table["summary"])
    at.radio[0].set_value("direct").run()
    at.button[0].click().run()
    assert len(at.dataframe[0].value) == 11
