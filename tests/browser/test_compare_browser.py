"""Compare in a real browser on a projector: the sentence first, then both diagrams at one scale with each message
level, their arrow labels at least 13 px: side by side where the page is wide enough (1920 × 1080), one above the
other where it is not (1280 × 720), in both languages. Screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from helpers import ARTIFACTS

# The drawing's units are its labels' size (20): a picture's labels are 20 px times its width over its drawing's.
# An SVG image's natural width is its width in pt as CSS px (4/3 of the drawing's units).
_LABELS = """() => [...document.querySelectorAll('[data-testid="compare-diagrams"] img')]
  .map((i) => 20 * i.getBoundingClientRect().width / (i.naturalWidth * 0.75))"""


def _settled_boxes(page, pictures):
    """The two pictures' boxes once the page has stopped moving them: a Streamlit rerun can still be placing the
    second while the first has its size (a busy machine shows it)."""
    boxes = None
    for _ in range(25):
        now = [pictures.nth(i).bounding_box() for i in range(2)]
        if now == boxes:
            break
        boxes = now
        page.wait_for_timeout(200)
    assert boxes is not None and boxes[0] is not None and boxes[1] is not None
    return boxes[0], boxes[1]


@pytest.mark.parametrize(
    ("locale", "said"),
    [("zh-CN", "模型收到的请求几乎一样"), ("en-US", "The model receives practically the same requests")],
)
@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_point_first_then_both_diagrams_readable_on_a_projector(browser, app_url, locale, said, size):
    context = browser.new_context(locale=locale, viewport={"width": size[0], "height": size[1]})
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
    a, b = _settled_boxes(page, pictures)
    labels = page.evaluate(_LABELS)
    assert min(labels) >= 13, labels
    if size[0] >= 1920:
        assert abs(a["y"] - b["y"]) < 2 and b["x"] > a["x"] + a["width"]  # side by side, tops level
        assert b["y"] + 250 < size[1]
    else:
        assert b["y"] > a["y"] + a["height"]  # one above the other: side by side would draw them too small
    assert a["y"] + 250 < size[1]  # the first begins high on the first screen: a good part shows
    box = sentence.bounding_box()
    assert box is not None and box["y"] + box["height"] <= a["y"]  # the sentence first, then the pictures
    # one scale: the direct run has one lifeline fewer, so its picture is narrower, never taller per message
    assert a["width"] < b["width"] and abs(a["height"] - b["height"]) / b["height"] < 0.05
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"compare-browser-{locale}-{size[0]}x{size[1]}.png"))
    context.close()
