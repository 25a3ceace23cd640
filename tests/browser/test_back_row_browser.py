"""Presenter mode from the back row, in headless Chromium at a school projector's 1280 × 720: every text on screen is
at least 20 px and every label (the diagram's words, a tag, a button; the JSON card's code) at least 16 px, in both hosts (the HTML export
and the app's Step through page), over every hop of the main sample with its questions asked and revealed and the
restaurant captions on, and over each page of the closing view."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from bench.browser import CURRENT_IN_VIEW
from flow import Lang
from flow.trace.files import load_trace
from flow.trace.questions import questions_for
from flow.views.html import to_html
from helpers import ROOT, page_errors, watch_page_errors

TEXT_PX = 20
LABEL_PX = 16
# At a label's least: a word of the drawing, a tag, a control; and the JSON card, code (at 20 px a hop's marked
# fields no longer fit the card at 720: test_layout_browser.py). The rest (sentences, choices) is text.
_LABELS = (
    "svg, .fv-pill, .fv-rcell, button:not(.fv-choice), .fv-quiz-head, .fv-quiz-keys, .fv-closing-pager,"
    " .fv-closing-bar, .fv-json"
)

# Every text node the viewer shows on screen (inside the viewport and its scroll boxes, not hidden, not transparent)
# whose displayed size is under its least: [{what, px, text}]. SVG text is scaled with its drawing.
_TOO_SMALL = """([labels, textPx, labelPx]) => {
  const root = window.__viewer.root;
  const cut = (el, r) => {
    for (let a = el.parentElement; a && a !== root.parentNode; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
      const b = a.getBoundingClientRect();
      if (r.bottom <= b.top + 1 || r.top >= b.bottom - 1 || r.right <= b.left + 1 || r.left >= b.right - 1) return true;
    }
    return false;
  };
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.data.trim() || !el || el.closest('style, script')) continue;
    const svg = el.closest('svg');
    let r = el.getBoundingClientRect();
    if (!svg) { const range = document.createRange(); range.selectNodeContents(n); r = range.getBoundingClientRect(); }
    if (r.width < 1 || r.height < 1 || r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) continue;
    const cs = getComputedStyle(el);
    const paint = svg ? cs.fill : cs.color;
    if (cs.visibility !== 'visible' || paint === 'transparent' || paint === 'none' || paint === 'rgba(0, 0, 0, 0)') continue;
    if (cut(el, r)) continue;
    let px = parseFloat(cs.fontSize);
    if (svg) { const m = el.getScreenCTM(); px *= Math.hypot(m.a, m.b); }
    const least = el.closest(labels) ? labelPx : textPx;
    if (px < least - 0.01) out.push({what: `${el.tagName.toLowerCase()}.${el.getAttribute('class') || ''}`, px, text: n.data.trim().slice(0, 40)});
  }
  return out;
}"""


def _open(browser, url: str, locale: str) -> Page:
    context = browser.new_context(locale=locale, viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
    page = context.new_page()
    page.set_default_timeout(30_000)
    watch_page_errors(page)
    page.goto(url)
    page.locator("[data-flow-viewer][data-current]").wait_for()
    return page


def _small(page: Page, where: str) -> list[str]:
    found = page.evaluate(_TOO_SMALL, [_LABELS, TEXT_PX, LABEL_PX])
    return [f"{where}: {f['px']:.1f} px {f['what']} {f['text']!r}" for f in found]


def _every_hop(page: Page) -> list[str]:
    """Every hop in presenter mode with questions and captions on; a question asked, then revealed; then each page of
    the closing view."""
    root = page.locator("[data-flow-viewer]")
    page.locator(".fv-questions-toggle").click()
    page.locator(".fv-captions-toggle").click()
    page.locator(".fv-presenter").click()
    expect(root).to_have_attribute("data-mode", "presenter")
    problems: list[str] = []
    count = page.evaluate("() => window.__viewer.count")
    for i in range(count):
        page.evaluate("i => window.__viewer.goto(i)", i)
        page.locator(f"[data-flow-viewer][data-current='{i + 1}']").wait_for()
        page.wait_for_timeout(30)
        problems += _small(page, f"hop {i + 1}")
        if page.locator(".fv-reveal").is_visible():
            page.locator(".fv-choice").first.click()
            page.locator(".fv-reveal").click()
            expect(page.locator(".fv-quiz-card")).to_have_attribute("data-state", "revealed")
            problems += _small(page, f"hop {i + 1} revealed")
        assert page.evaluate(CURRENT_IN_VIEW)["ok"], f"hop {i + 1}"
    page.keyboard.press("ArrowRight")
    expect(root).to_have_attribute("data-closing", "1")
    for part in range(8):  # a paged closing view turns its pages, then stays
        page.wait_for_timeout(50)
        problems += _small(page, f"closing part {part + 1}")
        page.keyboard.press("ArrowRight")
    return problems


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_text_in_the_exported_viewers_presenter_mode_is_readable_at_720p(browser, tmp_path: Path, lang: Lang):
    trace = load_trace(ROOT / "sample_traces" / "beijing-mcp.json")
    path = tmp_path / f"beijing-mcp-{lang}.html"
    path.write_text(to_html(trace, lang=lang, questions=questions_for(trace)), encoding="utf-8")
    page = _open(browser, path.as_uri(), "zh-CN" if lang == "zh" else "en-US")
    problems = _every_hop(page)
    assert not problems, "\n".join(sorted(set(problems))[:30])
    assert not page_errors(page), page_errors(page)


def test_every_text_on_the_step_pages_presenter_mode_is_readable_at_720p(browser, app_url):
    page = _open(browser, app_url, "en-US")
    problems = _every_hop(page)
    assert not problems, "\n".join(sorted(set(problems))[:30])
    assert not page_errors(page), page_errors(page)
