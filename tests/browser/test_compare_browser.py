"""Compare in a real browser on a projector: the sentence first, then both diagrams side by side at one scale, each
message level, their arrow labels at least 12 px, at every common laptop and projector width (1280 to 1920, sidebar
open), in both languages; on a phone, one above the other, each at its own heights (no empty bands for the other
run's messages). Presenter mode on Compare and on the Hops page, as Step through has it: P turns it on, Esc leaves
it, the sidebar and Streamlit's chrome hidden, texts 20 px and more, diagram labels 16 px and more, and a clicker
pages through what is below the screen. Screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from helpers import ARTIFACTS

# The drawing's units are its labels' size (20): a picture's labels are 20 px times its width over its drawing's.
# An SVG image's natural width is its width in pt as CSS px (4/3 of the drawing's units).
_LABELS = """() => [...document.querySelectorAll('[data-testid="compare-diagrams"] img')]
  .map((i) => 20 * i.getBoundingClientRect().width / (i.naturalWidth * 0.75))"""
_LOADED = """(id) => { const shown = [...document.querySelectorAll(`[data-testid="${id}"] img`)];
  return shown.length === 2 && shown.every((i) => i.complete && i.naturalWidth > 0); }"""
_SAID = {"zh-CN": "模型收到的请求几乎一样", "en-US": "The model receives practically the same requests"}


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


def _compare(browser, app_url, locale, size, query=""):
    context = browser.new_context(locale=locale, viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{app_url}/compare{query}")
    expect(page.get_by_text(_SAID[locale])).to_be_visible(timeout=60_000)
    page.wait_for_function(_LOADED, arg="compare-diagrams")
    return page


def _side_by_side(page, size):
    """The two pictures' boxes, checked left and right of each other, tops level, at one scale."""
    a, b = _settled_boxes(page, page.locator('[data-testid="compare-diagrams"] img'))
    assert abs(a["y"] - b["y"]) < 2 and b["x"] >= a["x"] + a["width"], (a, b)  # side by side, tops level
    assert b["x"] + b["width"] <= size[0]  # both whole across the screen
    # one scale: the direct run has one lifeline fewer, so its picture is narrower, never taller per message
    assert a["width"] < b["width"] and abs(a["height"] - b["height"]) / b["height"] < 0.02
    return a, b


@pytest.mark.parametrize(
    ("locale", "size"),
    [
        ("zh-CN", (1280, 720)),
        ("en-US", (1280, 720)),
        ("zh-CN", (1366, 768)),
        ("en-US", (1440, 900)),
        ("zh-CN", (1600, 900)),
        ("zh-CN", (1920, 1080)),
        ("en-US", (1920, 1080)),
    ],
)
def test_the_point_first_then_both_diagrams_side_by_side_and_readable(browser, app_url, locale, size):
    page = _compare(browser, app_url, locale, size)
    a, _ = _side_by_side(page, size)
    labels = page.evaluate(_LABELS)
    assert min(labels) >= 12, labels
    assert a["y"] + 250 < size[1]  # the pictures begin high on the first screen: a good part shows
    box = page.get_by_text(_SAID[locale]).bounding_box()
    assert box is not None and box["y"] + box["height"] <= a["y"]  # the sentence first, then the pictures
    expect(page.get_by_test_id("compare-diagrams-stacked")).to_be_hidden()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"compare-browser-{locale}-{size[0]}x{size[1]}.png"))
    page.context.close()


_PICKED = """([side, title]) => {
  const shown = document.querySelectorAll('[data-testid="compare-diagrams"] .cmp-title');
  return shown.length === 2 && shown[side].textContent.includes(title); }"""


def _pick(page, side: str, title: str) -> None:
    page.get_by_role("combobox", name=side).click()
    page.keyboard.type(title)
    page.keyboard.press("Enter")
    page.wait_for_function(_PICKED, arg=["AB".index(side), title])


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_two_mcp_runs_also_stand_side_by_side_at_1280(browser, app_url, locale):
    """Two MCP runs through two model APIs: six lifelines on each side."""
    size = (1280, 720)
    page = _compare(browser, app_url, locale, size)
    _pick(page, "A", "北京天气 · MCP · Responses" if locale == "zh-CN" else "Beijing weather · MCP · Responses")
    page.wait_for_function(_LOADED, arg="compare-diagrams")
    expect(page.get_by_test_id("compare-diagrams")).to_be_visible()
    a, b = _settled_boxes(page, page.locator('[data-testid="compare-diagrams"] img'))
    assert abs(a["y"] - b["y"]) < 2 and b["x"] >= a["x"] + a["width"], (a, b)
    assert min(page.evaluate(_LABELS)) >= 12
    page.context.close()


def test_app_side_and_hosted_mcp_stand_side_by_side_at_1280(browser, app_url):
    """Hosted MCP's pictures are the widest (the provider's own MCP client among the lifelines): beside the app-side
    MCP run, in English (the wider labels), still side by side at 1280 px. (Two hosted runs need 1366 px.)"""
    size = (1280, 720)
    page = _compare(browser, app_url, "en-US", size)
    _pick(page, "A", "Hosted MCP · Responses API")  # B: the app-side MCP run, as the page opens
    page.wait_for_function(_LOADED, arg="compare-diagrams")
    expect(page.get_by_test_id("compare-diagrams")).to_be_visible()
    a, b = _settled_boxes(page, page.locator('[data-testid="compare-diagrams"] img'))
    assert abs(a["y"] - b["y"]) < 2 and b["x"] >= a["x"] + a["width"], (a, b)
    assert min(page.evaluate(_LABELS)) >= 12
    page.context.close()


def test_on_a_phone_one_above_the_other_each_at_its_own_heights(browser, app_url):
    """Alignment only makes sense side by side: stacked, the direct run's diagram keeps no room for the MCP run's
    handshake (2a to 2f), so it is shorter than the MCP run's, not as tall with empty bands."""
    page = _compare(browser, app_url, "zh-CN", (390, 844))
    expect(page.get_by_test_id("compare-diagrams")).to_be_hidden()
    page.wait_for_function(_LOADED, arg="compare-diagrams-stacked")
    pictures = page.locator('[data-testid="compare-diagrams-stacked"] img')
    a, b = _settled_boxes(page, pictures)
    assert b["y"] > a["y"] + a["height"]  # one above the other
    heights = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="compare-diagrams-stacked"] img')]
        .map((i) => i.naturalHeight / i.naturalWidth * i.getBoundingClientRect().width)"""
    )
    scale = [box["width"] / w for box, w in zip((a, b), page.evaluate(_NATURAL_WIDTHS), strict=True)]
    assert abs(scale[0] - scale[1]) < 0.01  # still one scale
    assert heights[0] < 0.85 * heights[1], heights  # no empty bands: the direct run's own height
    page.context.close()


_NATURAL_WIDTHS = """() => [...document.querySelectorAll('[data-testid="compare-diagrams-stacked"] img')]
  .map((i) => i.naturalWidth) """

# What presenter mode hides, and the smallest text it shows: every visible text node's font size, by element.
_CHROME = """() => ['stSidebar', 'stHeader'].map((id) => {
  const el = document.querySelector(`[data-testid="${id}"]`);
  return !!el && el.getBoundingClientRect().width > 0 && getComputedStyle(el).display !== 'none'; })"""
_SMALLEST_TEXT = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  let least = Infinity, where = '';
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !el.getClientRects().length || el.closest('[data-baseweb="select"]')) continue;
    if (el.closest('[data-testid="stTooltipHoverTarget"], [data-testid="stIconMaterial"], .stTooltipIcon')) continue;
    const px = parseFloat(getComputedStyle(el).fontSize);
    if (px < least) { least = px; where = node.textContent.trim().slice(0, 40); }
  }
  return [least, where];
}"""
_LEAVE = {"zh-CN": "退出演示（Esc）", "en-US": "Leave presenter (Esc)"}
_SCROLLED = "() => document.querySelector('[data-testid=\"stMain\"]').scrollTop"


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_compare_has_presenter_mode_like_step_through(browser, app_url, locale):
    size = (1280, 720)
    page = _compare(browser, app_url, locale, size)
    assert page.evaluate(_CHROME) == [True, True]
    page.locator("html[data-page-keys='normal']").wait_for(state="attached")  # the keys are heard
    page.locator("body").press("p")
    page.wait_for_function("() => location.search.includes('presenter=1')")
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stSidebar\"]')?.offsetWidth")
    assert page.evaluate(_CHROME) == [False, False]
    page.wait_for_function(_LOADED, arg="compare-diagrams")
    a, _ = _side_by_side(page, size)
    assert a["x"] < 40  # the whole width: no sidebar beside it
    assert min(page.evaluate(_LABELS)) >= 16
    least, where = page.evaluate(_SMALLEST_TEXT)
    assert least >= 20, where
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"compare-presenter-{locale}-1280x720.png"))
    page.locator("html[data-page-keys='presenter']").wait_for(state="attached")
    page.keyboard.press("PageDown")  # a clicker reaches what is below the screen
    page.wait_for_function(f"() => ({_SCROLLED})() > 300")
    page.reload()  # a reload stays in presenter mode, as Step through's does
    page.wait_for_function(_LOADED, arg="compare-diagrams")
    expect(page.get_by_role("button", name=_LEAVE[locale])).to_be_visible()
    page.locator("html[data-page-keys='presenter']").wait_for(state="attached")
    assert page.evaluate(_CHROME) == [False, False]
    page.locator("body").press("Escape")
    page.wait_for_function("() => !location.search.includes('presenter')")
    page.wait_for_function("() => document.querySelector('[data-testid=\"stSidebar\"]')?.offsetWidth > 0")
    page.context.close()


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_the_hops_page_has_presenter_mode(browser, app_url, locale):
    context = browser.new_context(locale=locale, viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{app_url}/hops")
    button = page.get_by_role("button", name="演示模式（P）" if locale == "zh-CN" else "Presenter (P)")
    expect(button).to_be_visible(timeout=60_000)
    button.click()
    page.wait_for_function("() => location.search.includes('presenter=1')")
    expect(page.get_by_test_id("stTable")).to_be_visible()
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stSidebar\"]')?.offsetWidth")
    assert page.evaluate(_CHROME) == [False, False]
    least, where = page.evaluate(_SMALLEST_TEXT)
    assert least >= 20, where
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"hops-presenter-{locale}-1280x720.png"))
    page.locator("html[data-page-keys='presenter']").wait_for(state="attached")
    page.locator("body").press("p")  # P again leaves it, as in Step through
    page.wait_for_function("() => !location.search.includes('presenter')")
    expect(page.get_by_test_id("stDataFrame")).to_be_visible()
    context.close()
