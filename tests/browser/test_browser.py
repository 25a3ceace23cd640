"""The app in a real browser: Debian's Chromium, headless, driven by Playwright, against `streamlit run`.

The server and the browser come from conftest (`app_url`, `browser`); the trace viewer itself is
checked hop by hop in test_viewer_browser.py."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from helpers import ARTIFACTS


def _page(browser, url: str, *, locale: str, width: int = 1600, height: int = 1000) -> Page:
    context = browser.new_context(locale=locale, viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(url)
    page.locator("[data-flow-viewer][data-current]").wait_for()
    return page


def _header(page: Page):
    return page.locator(".fv-where")


def _shot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=True)
    return path


def test_stepping_to_the_final_step_shows_the_answer_in_the_diagram_and_the_json(browser, app_url):
    page = _page(browser, app_url, locale="en-US")
    expect(_header(page)).to_contain_text("hop 1 of 20")
    next_button = page.locator(".fv-next")
    for i in range(2, 21):
        next_button.click()
        expect(_header(page)).to_contain_text(f"hop {i} of 20")
    expect(_header(page)).to_contain_text("Step 10")
    expect(next_button).to_be_disabled()
    svg_text = page.locator(".fv-svg svg text").all_text_contents()
    for name in ["User", "App", "MCP Client", "MCP Server", "Model API"]:
        assert name in svg_text
    assert "10" in svg_text  # the step number on the highlighted arrow
    heads = {
        name: page.locator(".fv-svg svg text", has_text=name).first.bounding_box() for name in ["User", "Model API"]
    }
    user, model = heads["User"], heads["Model API"]
    assert user is not None and model is not None  # both names are drawn
    assert model["x"] - user["x"] > 400  # lifelines spread across the page, not piled up

    current = page.locator(".fv-svg g.edge.fv-current")
    expect(current).to_have_count(1)
    assert current.get_attribute("id") == "hop-20"
    expect(page.locator(".fv-json")).to_contain_text("北京今天晴")
    expect(page).to_have_url(f"{app_url}/?hop=20&sample=beijing-mcp")  # the page heard where the viewer went
    assert _shot(page, "step-final-en.png").stat().st_size > 10_000


def test_arrow_keys_move_between_hops(browser, app_url):
    page = _page(browser, app_url, locale="en-US")
    page.keyboard.press("ArrowRight")
    expect(_header(page)).to_contain_text("hop 2 of 20")
    page.keyboard.press("ArrowRight")
    expect(_header(page)).to_contain_text("hop 3 of 20")
    page.keyboard.press("ArrowLeft")
    expect(_header(page)).to_contain_text("hop 2 of 20")


def test_chinese_interface_and_a_broken_upload(browser, app_url, tmp_path):
    page = _page(browser, app_url, locale="zh-CN")
    expect(_header(page)).to_contain_text("步骤 0")
    assert "MCP 服务器" in page.locator(".fv-svg svg text").all_text_contents()
    page.get_by_text("上传文件", exact=True).click()
    bad = tmp_path / "broken.json"
    bad.write_text('{"format_version": 1, "meta": ', encoding="utf-8")
    page.locator("input[type='file']").set_input_files(str(bad))
    error = page.locator("[data-testid='stMain'] [data-testid='stAlertContentError']")
    expect(error).to_contain_text("not valid JSON")  # where the viewer was, not at the foot of the sidebar
    expect(error).to_be_in_viewport()
    expect(page.locator("[data-flow-viewer]")).to_have_count(0)  # the sample shown before is not passed off as it
    assert "Traceback" not in page.content()


def test_presenter_mode_at_projector_size(browser, app_url):
    page = _page(browser, app_url, locale="zh-CN", width=1280, height=720)
    page.locator(".fv-presenter").click()
    expect(page.locator("[data-flow-viewer]")).to_have_attribute("data-mode", "presenter")
    expect(page.locator(".fv-slider")).to_be_hidden()
    for i in range(2, 12):
        page.locator(".fv-next").click()
        expect(_header(page)).to_contain_text(f"第 {i}/20 跳")
    _shot(page, "presenter-zh-1280x720.png")


def test_switching_language_keeps_what_was_chosen_on_the_run_page(browser, app_url):
    context = browser.new_context(locale="en-US", viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{app_url}/run")
    page.locator(".st-key-mode_en").get_by_text("Direct mode (function calling, no MCP)").click()
    page.locator(".st-key-lang_choice").get_by_text("中文").click()
    expect(page.locator(".st-key-mode_zh")).to_contain_text("直接调用模式")
    expect(page.locator(".st-key-mode_zh input[type='radio']").nth(1)).to_be_checked()
    page.locator(".st-key-run button").click()
    page.locator(".st-key-open_start button").click()  # the run ended on the Run page; Step through from hop 1
    expect(_header(page)).to_contain_text("第 1/11 跳")  # a direct-mode run has 11 hops; MCP has 20
