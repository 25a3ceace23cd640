"""The closing view in headless Chromium: one more step after the last hop of the HTML export, in Chinese and English,
reached with → or its button, left with ←, its figures the trace's."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from flow.text.names import Lang
from flow.trace.files import load_trace
from flow.views.closing import closing_bundle
from flow.views.html import to_html
from helpers import ROOT, page_errors, watch_page_errors


def _open(browser, path: Path, size: tuple[int, int]) -> Page:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, reduced_motion="reduce")
    page = context.new_page()
    page.set_default_timeout(30_000)
    watch_page_errors(page)
    page.goto(path.as_uri())
    page.locator("[data-flow-viewer][data-current]").wait_for()
    return page


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_closing_view_is_the_step_after_the_last_hop(browser, tmp_path, lang: Lang):
    trace = load_trace(ROOT / "sample_traces" / "beijing-mcp.json")
    path = tmp_path / f"closing-{lang}.html"
    path.write_text(to_html(trace, lang=lang), encoding="utf-8")
    closing = closing_bundle(trace)[lang]
    n = len(trace.hops)
    page = _open(browser, path, (1920, 1080))  # where it fits whole (at 1280 × 720 it is paged: below)
    root = page.locator("[data-flow-viewer]")
    panel = page.locator(".fv-closing")
    expect(panel).to_be_hidden()
    page.keyboard.press("End")
    root.and_(page.locator(f"[data-current='{n}']")).wait_for()
    button = page.locator(".fv-closing-open")
    expect(button).to_be_visible()
    expect(button).to_contain_text(closing["title"])
    page.keyboard.press("ArrowRight")
    expect(root).to_have_attribute("data-closing", "1")
    expect(panel).to_be_visible()
    expect(page.locator(".fv-diagram")).to_be_hidden()
    expect(page.locator(".fv-where")).to_contain_text(closing["title"])
    expect(panel.locator("h3")).to_have_text([s["heading"] for s in closing["sections"]])
    cost = next(s for s in closing["sections"] if s["key"] == "cost")
    assert cost["bar"] is not None  # the cost section has its bar
    expect(panel.locator(".fv-closing-bar b")).to_have_text(f"{round(cost['bar'] * 100)}%")
    expect(panel).to_contain_text(cost["items"][0]["text"])
    assert page.evaluate("() => window.__viewer.closing") is True
    expect(panel.locator(".fv-closing-pager")).to_be_hidden()  # not paged
    page.keyboard.press("ArrowRight")  # nothing after the closing view
    assert page.evaluate("() => window.__viewer.index") == n - 1
    page.keyboard.press("ArrowLeft")
    expect(root).not_to_have_attribute("data-closing", "1")
    expect(panel).to_be_hidden()
    expect(page.locator(".fv-diagram")).to_be_visible()
    expect(page.locator(".fv-where")).to_contain_text(f"{n}/{n}" if lang == "zh" else f"hop {n} of {n}")
    button.click()
    expect(root).to_have_attribute("data-closing", "1")
    page.keyboard.press("Home")  # any jump leaves it
    expect(panel).to_be_hidden()
    assert not page_errors(page), page_errors(page)
    page.context.close()


def test_the_language_button_redraws_the_closing_view(browser, tmp_path):
    trace = load_trace(ROOT / "sample_traces" / "beijing-direct.json")
    path = tmp_path / "closing-lang.html"
    path.write_text(to_html(trace, lang="zh"), encoding="utf-8")
    closing = closing_bundle(trace)
    page = _open(browser, path, (1920, 1080))
    page.keyboard.press("End")
    page.locator(f"[data-flow-viewer][data-current='{len(trace.hops)}']").wait_for()
    page.keyboard.press("ArrowRight")
    expect(page.locator(".fv-where")).to_contain_text(closing["zh"]["title"])
    page.locator(".fv-lang").click()
    expect(page.locator(".fv-where")).to_contain_text(closing["en"]["title"])
    expect(page.locator(".fv-closing")).to_contain_text("json.loads")
    assert not page_errors(page), page_errors(page)
    page.context.close()


def test_a_samples_note_waits_for_the_closing_view_while_it_has_questions(browser, tmp_path):
    """tool-error's note says the server answers isError: true, which its questions ask a class to predict: with the
    questions on, the title bar shows the title only and the note opens the closing view; without them, the title
    bar has it as before."""
    from flow.trace.questions import questions_for

    source = ROOT / "sample_traces" / "tool-error.json"
    trace = load_trace(source)
    assert trace.meta.note is not None and trace.meta.title is not None  # a sample has both
    note = trace.meta.note["en"]

    assert "isError" in note
    with_questions = tmp_path / "asked.html"
    with_questions.write_text(to_html(trace, lang="en", questions=questions_for(source)), encoding="utf-8")
    page = _open(browser, with_questions, (1280, 720))
    title = page.locator(".fv-title")
    expect(title).to_contain_text(trace.meta.title["en"])
    expect(title).not_to_contain_text("isError")  # neither the note nor the title tells what the server answers
    page.keyboard.press("End")
    page.locator(f"[data-flow-viewer][data-current='{len(trace.hops)}']").wait_for()
    page.locator(".fv-closing-open").click()
    expect(page.locator(".fv-closing-note")).to_have_text(note)
    bare = tmp_path / "bare.html"
    bare.write_text(to_html(trace, lang="en"), encoding="utf-8")
    page = _open(browser, bare, (1280, 720))
    expect(page.locator(".fv-title")).to_contain_text("isError")
    assert not page_errors(page)


# The closing view's parts on screen now: each whole inside the view's box, and which they are.
_PAGE = """() => {
  const view = document.querySelector('.fv-closing');
  const box = view.getBoundingClientRect();
  const shown = [...view.querySelectorAll('.fv-closing-note, .fv-closing-notice, .fv-closing-section')]
    .filter((b) => b.getClientRects().length);
  const items = [...view.querySelectorAll('.fv-closing-section li')].filter((li) => li.getClientRects().length);
  return { parts: shown.map((b) => b.className), items: items.length, whole: shown.every((b) => {
    const r = b.getBoundingClientRect(); return r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5; }),
    pager: view.querySelector('.fv-closing-pager').textContent };
}"""


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("presenter", [False, True])
def test_at_720p_a_clicker_pages_through_the_closing_view(browser, tmp_path, lang: Lang, presenter):
    """At 1280 × 720 the closing view does not fit: PageDown (a clicker) shows its parts a page at a time, each part
    whole on screen, every part once; PageUp pages back, and once more returns to the last hop."""
    trace = load_trace(ROOT / "sample_traces" / "beijing-mcp.json")
    path = tmp_path / f"paged-{lang}.html"
    path.write_text(to_html(trace, lang=lang), encoding="utf-8")
    sections = closing_bundle(trace)[lang]["sections"]
    page = _open(browser, path, (1280, 720))
    root = page.locator("[data-flow-viewer]")
    if presenter:
        page.keyboard.press("p")
        expect(root).to_have_attribute("data-mode", "presenter")
    page.keyboard.press("End")
    page.keyboard.press("PageDown")
    expect(root).to_have_attribute("data-closing", "1")
    seen: list[str] = []
    items = pages = 0
    while True:
        now = page.evaluate(_PAGE)
        assert now["whole"] and now["parts"], now
        seen += [c for c in now["parts"] if not seen or c != seen[-1]]  # a section may go on over the page
        items += now["items"]
        pages += 1
        if not page.locator(".fv-next").is_enabled():
            break
        page.keyboard.press("PageDown")
        expect(page.locator(".fv-closing-pager")).not_to_have_text(now["pager"])
    assert pages > 1
    assert [c for c in seen if "section" in c] == [f"fv-closing-section fv-closing-{s['key']}" for s in sections]
    assert items == sum(len(s["items"]) for s in sections)  # every item once
    for _ in range(pages - 1):
        page.keyboard.press("PageUp")
    expect(root).to_have_attribute("data-closing", "1")
    page.keyboard.press("PageUp")
    expect(root).not_to_have_attribute("data-closing", "1")
    assert not page_errors(page), page_errors(page)
    page.context.close()
