"""The viewer's layout on the screens a class has, measured in headless Chromium (issue 26).

Over every sample, at 1280 × 720 and 1920 × 1080, in normal and presenter mode, in Chinese and English, in the HTML
export (every sample) and on the Step through page (a few: the app is slower to drive), every hop is stepped to in
one page load and measured: its explanation whole on screen, the JSON card's focus fields in the card without
scrolling, every lifeline on screen with no sideways scroll, the current arrow in view, and arrow labels at least
13 px (16 px in presenter mode); with questions on, every question's card whole in presenter mode at 1280 × 720. Then
a phone's layout, the clicker after a sidebar choice, presenter mode after a reload, the sidebar giving the diagram its
room, and the room's controls above the sidebar's fold.

The focus fields are the marked fields a hop's text is about: every marked value (`content: null`, `isError`, a
call's arguments) and the first pairing (a call's id and the `tool_call_id` answering it), with the first marked
field, which the card scrolls to. Later pairings and marked containers after the first (the other tools' schemas at
message 3) are in the card, a scroll away.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from flow.trace.files import load_trace
from flow.trace.questions import questions_for
from flow.views.focus import PAIR_PALETTE
from flow.views.html import to_html
from helpers import ARTIFACTS, ROOT, page_errors, watch_page_errors

SIZES = [(1280, 720), (1920, 1080)]
SAMPLES = sorted(p.stem for p in (ROOT / "sample_traces").glob("*.json"))
# The app host, on fewer samples: the longest texts, two tool calls answered at once, an error's hops.
APP_SAMPLES = ["tool-choice-named", "two-cities-parallel", "tool-error"]
LABEL_PX = {"normal": 13, "presenter": 16}
PHONE = (360, 740)

# Every hop of the loaded trace, in normal then presenter mode, in one call: go there and lay it out at once (settle:
# what the frame after a step does, the paint, the diagram following its box, the JSON card at its first marked
# field), then measure. Returns what is wrong, at most 12 lines a mode.
_EVERY_HOP = """async ({least, pair}) => {
  const v = window.__viewer;
  const root = v.root;
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  await frame(); await frame(); // the window's new size laid out
  const found = [];
  for (const mode of ['normal', 'presenter']) {
    if (root.dataset.mode !== mode) root.querySelector('.fv-presenter').click();
    if (root.dataset.mode !== mode) { found.push(`${mode}: the mode did not change`); continue; }
    found.push(...measure(least[mode]).map((p) => `${mode}: ${p}`));
  }
  return found;

  function measure(least) {
  const out = [];
  const svg = root.querySelector('.fv-svg svg');
  const lines = [...svg.querySelectorAll('g[id^="lifeline-"]')];
  if (lines.length < 4) out.push(`${lines.length} lifelines found`);
  const text = svg.querySelector('g.fv-label-node text');
  const px = parseFloat(text.getAttribute('font-size')) * text.getScreenCTM().a;
  if (px < least - 0.01) out.push(`arrow labels ${px.toFixed(1)} px, under ${least} px`);
  for (let i = 0; i < v.count && out.length < 12; i++) {
    const where = `hop ${i + 1}`;
    v.settle(i);
    const diagram = root.querySelector('.fv-diagram');
    const box = diagram.getBoundingClientRect();
    const left = Math.max(box.left, 0), right = Math.min(box.right, innerWidth);
    const top = Math.max(box.top, 0), bottom = Math.min(box.bottom, innerHeight);
    // The current arrow and its label, whole, in the diagram's box and the window.
    let t = Infinity, b = -Infinity, l = Infinity, r = -Infinity;
    for (const g of root.querySelectorAll('.fv-svg g.fv-current')) {
      const q = g.getBoundingClientRect();
      t = Math.min(t, q.top); b = Math.max(b, q.bottom); l = Math.min(l, q.left); r = Math.max(r, q.right);
    }
    if (!(t >= top - 0.5 && b <= bottom + 0.5 && l >= left - 0.5 && r <= right + 0.5)) {
      out.push(`${where}: current arrow at ${[l, t, r, b].map(Math.round)}, box ${[left, top, right, bottom].map(Math.round)}`);
    }
    // Every lifeline on screen: nothing scrolls sideways, and each line's x is inside the box and the window.
    if (diagram.scrollWidth > diagram.clientWidth + 1) out.push(`${where}: the diagram scrolls sideways`);
    for (const g of lines) {
      const q = g.getBoundingClientRect();
      const x = (q.left + q.right) / 2;
      if (x < left || x > right) out.push(`${where}: ${g.id} off screen at x ${Math.round(x)}`);
    }
    // The hop's explanation, whole: nothing scrolled away inside it, nothing below the window or under another part.
    const teach = root.querySelector('.fv-teach');
    const q = teach.getBoundingClientRect();
    if (teach.hidden || !q.height) out.push(`${where}: no explanation shown`);
    else if (teach.scrollHeight > teach.clientHeight + 1 || q.top < -0.5 || q.bottom > innerHeight + 0.5
             || q.bottom > root.querySelector('.fv-body').getBoundingClientRect().bottom + 0.5) {
      out.push(`${where}: explanation cut (${Math.round(q.top)}–${Math.round(q.bottom)} px of ${innerHeight})`);
    }
    // The focus fields: each one's first line inside the JSON card (and the window).
    const card = root.querySelector('.fv-json');
    const c = card.getBoundingClientRect();
    const last = Math.min(c.bottom, innerHeight);
    [...card.querySelectorAll('.fv-mark')].forEach((m, k) => {
      const colour = m.style.getPropertyValue('--fv-mark').trim();
      if (k > 0 && !(m.classList.contains('fv-leaf') && (!colour || colour === pair))) return;
      const line = m.tagName === 'DETAILS' ? m.querySelector('summary') : m;
      const f = line.getBoundingClientRect();
      const first = Math.min(f.height, parseFloat(getComputedStyle(line).lineHeight) || f.height);
      if (f.top < c.top - 0.5 || f.top + first > last + 0.5) {
        out.push(`${where}: ${JSON.stringify(line.textContent.slice(0, 40))} outside the JSON card (${Math.round(f.top)} px; card ${Math.round(c.top)}–${Math.round(last)})`);
      }
    });
  }
  return out;
  }
}"""


# Every question of the trace, its card asking: its last choice and its Reveal button inside the card and the side.
_EVERY_QUESTION = """async () => {
  const v = window.__viewer;
  const root = v.root;
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  await frame(); await frame(); // the window's new size laid out
  if (root.dataset.mode !== 'presenter') root.querySelector('.fv-presenter').click();
  const toggle = root.querySelector('.fv-questions-toggle');
  if (toggle.getAttribute('aria-pressed') !== 'true') toggle.click();
  const out = [];
  let asked = 0;
  for (let i = 0; i < v.count; i++) {
    v.settle(i);
    const card = root.querySelector('.fv-quiz-card');
    if (card.hidden || card.dataset.state !== 'asking') continue;
    asked += 1;
    const side = root.querySelector('.fv-side').getBoundingClientRect();
    const c = card.getBoundingClientRect();
    const lowest = Math.max(...[...card.querySelectorAll('.fv-choice, .fv-reveal')].map((e) => e.getBoundingClientRect().bottom));
    if (card.scrollHeight > card.clientHeight + 1 || lowest > Math.min(c.bottom, side.bottom, innerHeight) + 0.5) {
      out.push(`hop ${i + 1}: a choice or Reveal at ${Math.round(lowest)} px, the card ends at ${Math.round(c.bottom)}`);
    }
  }
  return {asked, out};
}"""


def _open(browser: Any, url: str, size: tuple[int, int], *, locale: str = "en-US") -> Page:
    # Reduced motion: the diagram scrolls at once, so a measure right after a step sees where the scroll ends.
    context = browser.new_context(
        locale=locale, viewport={"width": size[0], "height": size[1]}, reduced_motion="reduce"
    )
    page = context.new_page()
    page.set_default_timeout(60_000)
    watch_page_errors(page)
    page.goto(url)
    page.locator("[data-flow-viewer][data-current]").wait_for()
    return page


def _every_size_and_mode(page: Page, where: str) -> list[str]:
    problems = []
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        found = page.evaluate(_EVERY_HOP, {"least": LABEL_PX, "pair": PAIR_PALETTE[0]})
        problems += [f"{where} {size[0]}x{size[1]} {p}" for p in found]
    return problems


@pytest.fixture(scope="module")
def exports(tmp_path_factory) -> dict[tuple[str, str], Path]:
    """Every sample's HTML export, in Chinese and English, with its questions (off until turned on), as the Step page
    shows a sample."""
    folder = tmp_path_factory.mktemp("layout")
    out = {}
    for name in SAMPLES:
        trace = load_trace(ROOT / "sample_traces" / f"{name}.json")
        for lang in ("zh", "en"):
            path = folder / f"{name}-{lang}.html"
            path.write_text(to_html(trace, lang=lang, questions=questions_for(trace)), encoding="utf-8")
            out[name, lang] = path
    return out


def test_every_hop_of_every_sample_fits_the_html_export(browser, exports):
    """Every hop at both sizes in both modes; then, in the same page, every question asked in presenter mode at
    1280 × 720 (the tight case: the largest type in the smallest window) shows every choice and its Reveal button."""
    problems: list[str] = []
    asked = 0
    for (name, lang), path in exports.items():
        page = _open(browser, path.as_uri(), SIZES[0])
        problems += _every_size_and_mode(page, f"{name} {lang}")
        page.set_viewport_size({"width": SIZES[0][0], "height": SIZES[0][1]})
        seen = page.evaluate(_EVERY_QUESTION)
        asked += seen["asked"]
        problems += [f"{name} {lang} 1280x720 presenter, questions on: {p}" for p in seen["out"]]
        assert not page_errors(page), page_errors(page)
        page.context.close()
    assert asked >= len(exports), asked  # every sample asks
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:30])


def test_every_hop_fits_the_step_page(browser, app_url):
    problems: list[str] = []
    for name in APP_SAMPLES:
        for lang, locale in (("zh", "zh-CN"), ("en", "en-US")):
            page = _open(browser, f"{app_url}/?sample={name}&hop=1", SIZES[0], locale=locale)
            problems += _every_size_and_mode(page, f"app {name} {lang}")
            page.context.close()
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:30])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_phone_gets_the_hops_card_then_rows_it_can_read(browser, exports, lang):
    """At 360 × 740 no diagram is shrunk to fit: the hop's text and JSON come first, then the trace as rows (its
    lanes drawn small), every word at least 12 px; stepping moves the row marked."""
    page = _open(
        browser, exports["two-cities-parallel", lang].as_uri(), PHONE, locale="zh-CN" if lang == "zh" else "en-US"
    )
    root = page.locator("[data-flow-viewer]")
    expect(root).to_have_attribute("data-layout", "phone")
    expect(page.locator(".fv-diagram")).to_be_hidden()
    rows = page.locator(".fv-lane-row")
    expect(rows.first).to_be_visible()
    seen = page.evaluate(
        """() => {
      const px = (sel) => [...document.querySelectorAll(sel)].map((e) => parseFloat(getComputedStyle(e).fontSize));
      const top = (sel) => document.querySelector(sel).getBoundingClientRect().top;
      return {smallest: Math.min(...px('.fv-lane-row .fv-li-label'), ...px('.fv-lane-ends'), ...px('.fv-lane-num'),
                                 ...px('.fv-teach'), ...px('.fv-json'), ...px('.fv-where')),
              teach: top('.fv-teach'), json: top('.fv-json'), rows: top('.fv-lanes'),
              wide: document.documentElement.scrollWidth, lanes: document.querySelectorAll('.fv-lane-track i').length};
    }"""
    )
    assert seen["smallest"] >= 12, seen
    assert seen["teach"] < seen["json"] < seen["rows"], seen  # the hop's card first
    assert seen["wide"] <= PHONE[0], seen  # nothing wider than the phone
    assert seen["lanes"] == 6 * rows.count(), seen  # each row draws the six lanes of an MCP run
    page.locator(".fv-next").click()
    page.locator(".fv-next").click()
    page.locator("[data-flow-viewer][data-current='3']").wait_for()
    expect(page.locator(".fv-lane-row.fv-on")).to_have_count(1)
    expect(page.locator(".fv-lane-row.fv-on .fv-lane-num")).to_have_text(
        page.evaluate("() => window.__viewer.root.querySelector('.fv-num').textContent.split(' ').pop()")
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"layout-phone-{lang}-360x740.png"), full_page=True)
    assert not page_errors(page), page_errors(page)


def test_the_clicker_steps_after_a_sample_is_chosen_in_the_sidebar(browser, app_url):
    page = _open(browser, app_url, SIZES[0])
    page.locator(".st-key-step_sample_en").click()
    page.keyboard.type("Two rounds")  # the list shows a few of its samples at a time
    page.get_by_role("option", name="Two rounds of tools", exact=True).click()
    expect(page.locator(".fv-where")).to_contain_text("hop 1 of 28")
    # No click on the viewer: a clicker's PageDown and the arrow keys step it at once.
    page.keyboard.press("PageDown")
    page.keyboard.press("ArrowRight")
    page.locator("[data-flow-viewer][data-current='3']").wait_for()
    page.keyboard.press("ArrowLeft")
    page.locator("[data-flow-viewer][data-current='2']").wait_for()
    expect(page.locator(".fv-where")).to_contain_text("hop 2 of 28")  # the list kept its choice
    assert not page_errors(page), page_errors(page)


def test_presenter_mode_survives_a_reload(browser, app_url, exports):
    # The app keeps it in its URL, beside the hop.
    page = _open(browser, f"{app_url}/?sample=beijing-mcp&hop=5", SIZES[0])
    root = page.locator("[data-flow-viewer]")
    page.keyboard.press("p")
    expect(root).to_have_attribute("data-mode", "presenter")
    expect(page).to_have_url(re.compile(r"[?&]presenter=1"))
    page.reload()
    page.locator("[data-flow-viewer][data-current='5']").wait_for()
    expect(root).to_have_attribute("data-mode", "presenter")
    page.keyboard.press("Escape")
    expect(root).to_have_attribute("data-mode", "normal")
    expect(page).not_to_have_url(re.compile(r"presenter="))
    page.reload()
    page.locator("[data-flow-viewer][data-current='5']").wait_for()
    expect(root).to_have_attribute("data-mode", "normal")
    page.context.close()
    # The HTML export keeps it, and the hop, in the file's address.
    page = _open(browser, exports["beijing-mcp", "en"].as_uri(), SIZES[0])
    root = page.locator("[data-flow-viewer]")
    page.keyboard.press("p")
    page.evaluate("() => window.__viewer.goto(6)")
    expect(page).to_have_url(re.compile(r"#hop=7&presenter$"))
    page.reload()
    page.locator("[data-flow-viewer][data-current='7']").wait_for()
    expect(root).to_have_attribute("data-mode", "presenter")
    assert not page_errors(page), page_errors(page)


def test_collapsing_the_sidebar_gives_the_diagram_the_room(browser, app_url):
    page = _open(browser, app_url, SIZES[0])
    measure = """() => {
      const root = window.__viewer.root;  // in the component's shadow root
      const text = root.querySelector('.fv-svg g.fv-label-node text');
      return {width: root.querySelector('.fv-diagram').clientWidth,
              label: parseFloat(text.getAttribute('font-size')) * text.getScreenCTM().a};
    }"""
    page.locator(".fv-svg g.fv-label-node").first.wait_for()
    before = page.evaluate(measure)
    page.locator("[data-testid='stSidebar']").hover()
    page.locator("[data-testid='stSidebarCollapseButton'] button").click()
    expect(page.locator("[data-testid='stSidebar']")).to_have_attribute("data-collapsed", "true")
    page.wait_for_function(
        f"() => window.__viewer.root.querySelector('.fv-diagram').clientWidth > {before['width']} + 60"
    )
    after = page.evaluate(measure)
    assert after["label"] > before["label"] + 1, (before, after)  # larger, not only wider: no window resize needed
    assert page.viewport_size == {"width": SIZES[0][0], "height": SIZES[0][1]}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_room_controls_are_above_the_sidebars_fold_at_720p(browser, app_url, lang):
    page = _open(browser, app_url, SIZES[0], locale="zh-CN" if lang == "zh" else "en-US")
    sidebar = page.locator("[data-testid='stSidebar']")
    present = sidebar.get_by_role("button", name="投屏到房间" if lang == "zh" else "Present to a room")
    expect(present).to_be_visible()
    box = present.bounding_box()
    assert box is not None and box["y"] + box["height"] <= SIZES[0][1], box
    present.click()
    page.locator(".fv-qr").click()  # the join code fills the screen first
    close = sidebar.get_by_role("button", name="关闭房间" if lang == "zh" else "Close the room")
    expect(close).to_be_visible()
    box = close.bounding_box()
    assert box is not None and box["y"] + box["height"] <= SIZES[0][1], box
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"layout-room-sidebar-{lang}-1280x720.png"))
    close.click()
    expect(present).to_be_visible()
