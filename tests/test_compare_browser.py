"""Compare in a real browser at a projector's 1280 × 720: the sentence and both diagrams are on the first screen,
drawn at one scale with each message level, in both languages. Screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from helpers import ARTIFACTS


@pytest.mark.parametrize(
    ("locale", "said"),
    [("zh-CN", "模型收到的请求几乎一样"), ("en-US", "The model receives practically the same requests")],
)
def test_the_point_and_both_diagrams_fit_the_first_screen(browser, app_url, locale, said):
    context = browser.new_context(locale=locale, viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{app_url}/compare")
    sentence = page.get_by_text(said)
    expect(sentence).to_be_visible(timeout=60_000)
    pictures = page.locator('[data-testid="compare-diagrams"] img')
    expect(pictures).to_have_count(2, timeout=60_000)
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"compare-diagrams\"] img')]"
        ".every(i => i.complete && i.naturalWidth > 0)"
    )
    a, b = (pictures.nth(i).bounding_box() for i in range(2))
    assert a is not None and b is not None
    assert abs(a["y"] - b["y"]) < 2 and b["x"] > a["x"] + a["width"]  # side by side, tops level
    assert a["y"] + 250 < 720 and b["y"] + 250 < 720  # both begin high on the first screen: a good part shows
    box = sentence.bounding_box()
    assert box is not None and box["y"] + box["height"] <= a["y"]  # the sentence first, then the pictures
    # one scale: the direct run has one lifeline fewer, so its picture is narrower, never taller per message
    assert a["width"] < b["width"] and abs(a["height"] - b["height"]) / b["height"] < 0.05
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"compare-browser-{locale}-1280x720.png"))
    context.close()
