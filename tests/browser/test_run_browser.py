"""The Run page in headless Chromium: a run of the in-process demo is shown a hop at a time (the pace the page says),
then one line says what happened, and its button opens Step through at the hop where it went wrong. Screenshots of
the run under way and of its outcome go to test-artifacts/."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from flow import mock_model_label
from flow_ui.i18n import t
from flow_ui.live import PACE_S
from helpers import ARTIFACTS

CASES = [("en", 1280, 720), ("zh", 1920, 1080)]


def _page(browser: Any, url: str, lang: str, width: int, height: int) -> Page:
    context = browser.new_context(
        locale="en-US" if lang == "en" else "zh-CN", viewport={"width": width, "height": height}
    )
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url)
    return page


def _shoot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))


@pytest.mark.parametrize(("lang", "width", "height"), CASES, ids=[f"{c[0]}-{c[1]}x{c[2]}" for c in CASES])
def test_a_paced_run_shows_its_hops_one_by_one_then_what_happened(browser, app_url, lang, width, height):
    page = _page(browser, f"{app_url}/run", lang, width, height)
    page.locator(".st-key-run button").wait_for()  # the page has run once (its first run lists the demo's tools)
    pace = page.locator(f".st-key-pace_{lang} input[type='checkbox']")
    expect(pace).to_be_checked()  # on unless the teacher turns it off, and the page says what it does
    expect(page.locator(f".st-key-pace_{lang}")).to_contain_text(t("pace", lang, s=PACE_S))
    page.locator(f".st-key-mock_model_{lang} [data-testid='stSelectbox']").click()
    page.keyboard.type("mock-bad-json")  # the id finds the behaviour, listed under its name
    page.get_by_role("option", name=mock_model_label("mock-bad-json", lang), exact=True).click()
    page.locator(".st-key-run button").click()

    live = page.locator(".st-key-run_live [data-testid='stMarkdownContainer']")
    outcome = page.locator(".st-key-run_outcome [data-testid='stAlert'] [data-testid='stMarkdownContainer']")
    counts: list[int] = []
    began = time.monotonic()
    while not outcome.count() and time.monotonic() - began < 60:
        counts.append(live.count())
        if len(counts) == 12:
            _shoot(page, f"run-paced-{lang}-{width}x{height}.png")
        time.sleep(0.1)
    outcome.wait_for()
    shown = [c for i, c in enumerate(counts) if c and (i == 0 or c != counts[i - 1])]
    hops = live.count()
    assert hops == 23  # the bad-arguments run: every hop listed ...
    assert len(shown) >= 10 and shown == sorted(shown)  # ... having appeared a few at a time, never all at once
    assert time.monotonic() - began >= (hops - 1) * PACE_S * 0.9
    # The failure is coloured in the list, and only it: the app's refusal of the arguments (hop 12).
    expect(page.locator(".st-key-run_live .stMarkdownColoredText")).to_have_count(1)
    expect(live.nth(11).locator(".stMarkdownColoredText")).to_contain_text("not valid JSON")

    said = outcome.inner_text()
    if lang == "en":
        assert said.startswith("The model sent arguments for get_weather that are not valid JSON (hop 11)")
    else:
        assert said.startswith("模型给 get_weather 的参数不是合法的 JSON（第 11 跳）")
    assert "\n" not in said.strip()
    _shoot(page, f"run-outcome-{lang}-{width}x{height}.png")
    jump = page.locator(".st-key-open_outcome button")
    expect(jump).to_have_text(t("outcome_open", lang, n=11))
    expect(jump).to_be_in_viewport()  # the line and its button are in view when the run ends
    jump.click()
    expect(page.locator("[data-flow-viewer]")).to_have_attribute("data-current", "11")
    page.context.close()
