"""The route strip in headless Chromium for what issue 24 corrected: a failed run says where it stopped and how,
and message 3 / message 7 say where article 000 is wrong (the HTML export; the same viewer as the Step page)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from flow.trace.files import load_trace
from flow.views.html import to_html
from helpers import ROOT, page_errors, watch_page_errors


def _open(browser, path: Path) -> Page:
    page = browser.new_context(viewport={"width": 1280, "height": 720}, reduced_motion="reduce").new_page()
    page.set_default_timeout(30_000)
    watch_page_errors(page)
    page.goto(path.as_uri())
    page.locator("[data-flow-viewer][data-current]").wait_for()
    return page


def _goto(page: Page, index: int) -> None:
    page.evaluate("i => window.__viewer.goto(i)", index)
    page.locator(f"[data-flow-viewer][data-current='{index + 1}']").wait_for()


@pytest.fixture(scope="module")
def hung_page_file(tmp_path_factory) -> Path:
    """A run whose MCP server never answers tools/call, made by the CLI (the browser's event loop is running here)."""
    folder = tmp_path_factory.mktemp("route")
    trace = folder / "hang.json"
    command = [sys.executable, "-m", "flow", "run", "--server-fault", "hang", "--mcp-timeout", "0.5"]
    ran = subprocess.run([*command, "--transport", "memory", "--out", str(trace)], capture_output=True, cwd=ROOT)
    assert ran.returncode == 1 and trace.exists(), ran.stderr
    path = folder / "hang-en.html"
    path.write_text(to_html(load_trace(trace), lang="en"), encoding="utf-8")
    return path


def test_after_a_hang_the_strip_says_the_run_stopped_at_message_7(browser, hung_page_file):
    page = _open(browser, hung_page_file)
    cell = lambda n: page.locator(f'.fv-rcell[data-message="{n}"]')  # noqa: E731
    expect(cell(6)).to_contain_text("no answer")
    expect(cell(6)).not_to_contain_text("not reported")
    expect(cell(7)).to_contain_text("timed out")
    for n in (8, 9):
        expect(cell(n)).to_have_attribute("data-state", "missing")
        expect(cell(n)).to_contain_text("run stopped")
        expect(cell(n)).not_to_contain_text("not recorded")
    expect(cell(10)).to_contain_text("error shown")
    cell(7).click()
    expect(page.locator(".fv-rdetail")).to_contain_text("The run stopped at this message")
    # The timeout is the MCP client's own event: the strip does not say it came from the server.
    expect(page.locator(".fv-rhere")).to_contain_text("This run: MCP Client")
    expect(page.locator(".fv-rhere")).not_to_contain_text("MCP Server")
    cell(8).click()  # no hop: the line below says why
    expect(page.locator(".fv-rdetail")).to_contain_text("The run stopped with an error at an earlier message")
    assert not page_errors(page), page_errors(page)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_message_3_and_7_say_where_article_000_is_wrong(browser, tmp_path, lang):
    path = tmp_path / f"beijing-mcp-{lang}.html"
    path.write_text(to_html(load_trace(ROOT / "sample_traces" / "beijing-mcp.json"), lang=lang), encoding="utf-8")
    page = _open(browser, path)
    three = page.locator('.fv-rcell[data-message="3"]')
    expect(three).to_have_attribute("data-state", "corrected")
    expect(three).to_contain_text("文章有误" if lang == "zh" else "article wrong")
    three.click()  # opens the whole note, naming the article; its button goes to the message
    note = page.locator(".fv-rnote-pop")
    expect(note).to_contain_text("这是错的" if lang == "zh" else "that is wrong")
    expect(note).to_contain_text("文章 000" if lang == "zh" else "Article 000")
    note.locator("button").first.click()
    detail = page.locator(".fv-rdetail")
    expect(detail).to_contain_text("这是错的" if lang == "zh" else "that is wrong")
    expect(detail).to_contain_text("应用 → 模型 API" if lang == "zh" else "App → Model API")
    page.locator('.fv-rcell[data-message="7"]').click()
    expect(note).to_contain_text(
        "CallToolResult 没有这个字段" if lang == "zh" else "a CallToolResult has no such field"
    )
    assert not page_errors(page), page_errors(page)
