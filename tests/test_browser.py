"""The app in a real browser: Debian's Chromium, headless, driven by Playwright, against `streamlit run`."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def app_url():
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.address", "127.0.0.1",
         "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("the app did not start") from None
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _page(browser, url: str, *, locale: str, width: int = 1600, height: int = 1000) -> Page:
    context = browser.new_context(locale=locale, viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(url)
    page.locator(".st-key-next button").wait_for()
    page.locator("[data-testid='stGraphVizChart'] svg").first.wait_for()
    return page


def _header(page: Page):
    return page.locator("h4").first


def _shot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=True)
    return path


def test_stepping_to_the_final_step_shows_the_answer_in_the_diagram_and_the_json(browser, app_url):
    page = _page(browser, app_url, locale="en-US")
    expect(_header(page)).to_contain_text("hop 1 of 18")
    next_button = page.locator(".st-key-next button")
    for i in range(2, 19):
        next_button.click()
        expect(_header(page)).to_contain_text(f"hop {i} of 18")
    expect(_header(page)).to_contain_text("Step 10")
    expect(next_button).to_be_disabled()
    svg_text = page.locator("[data-testid='stGraphVizChart'] svg text").all_text_contents()
    for name in ["User", "App", "MCP Client", "MCP Server", "Model API"]:
        assert name in svg_text
    assert "10" in svg_text  # the step number on the highlighted arrow
    heads = {name: page.locator("[data-testid='stGraphVizChart'] svg text", has_text=name).first.bounding_box()
             for name in ["User", "Model API"]}
    assert heads["Model API"]["x"] - heads["User"]["x"] > 400  # lifelines spread across the page, not piled up
    current = page.locator("[data-testid='stGraphVizChart'] g.edge.current")
    expect(current).to_have_count(1)
    assert current.get_attribute("id") == "hop-18"
    json_panel = page.locator("[data-testid='stJson']").first
    expect(json_panel).to_contain_text("北京今天晴")
    assert _shot(page, "step-final-en.png").stat().st_size > 10_000


def test_arrow_keys_move_between_hops(browser, app_url):
    page = _page(browser, app_url, locale="en-US")
    page.locator("h4").first.click()  # focus the page, not a widget
    page.keyboard.press("ArrowRight")
    expect(_header(page)).to_contain_text("hop 2 of 18")
    page.keyboard.press("ArrowRight")
    expect(_header(page)).to_contain_text("hop 3 of 18")
    page.keyboard.press("ArrowLeft")
    expect(_header(page)).to_contain_text("hop 2 of 18")


def test_chinese_interface_and_a_broken_upload(browser, app_url, tmp_path):
    page = _page(browser, app_url, locale="zh-CN")
    expect(_header(page)).to_contain_text("步骤 0")
    assert "MCP 服务器" in page.locator("[data-testid='stGraphVizChart'] svg text").all_text_contents()
    page.get_by_text("上传文件", exact=True).click()
    bad = tmp_path / "broken.json"
    bad.write_text('{"format_version": 1, "meta": ', encoding="utf-8")
    page.locator("input[type='file']").set_input_files(str(bad))
    expect(page.locator("[data-testid='stAlertContentError']")).to_contain_text("not valid JSON")
    expect(_header(page)).to_contain_text("第 1/18 跳")  # the trace shown before is still there
    assert "Traceback" not in page.content()


def test_presenter_mode_at_projector_size(browser, app_url):
    page = _page(browser, app_url, locale="zh-CN", width=1280, height=720)
    page.locator(".st-key-presenter label").click()
    expect(page.locator(".st-key-step_slider")).to_have_count(0)
    for i in range(2, 12):
        page.locator(".st-key-next button").click()
        expect(_header(page)).to_contain_text(f"第 {i}/18 跳")
    _shot(page, "presenter-zh-1280x720.png")


def test_switching_language_keeps_what_was_chosen_on_the_run_page(browser, app_url):
    context = browser.new_context(locale="en-US", viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{app_url}/run")
    page.locator(".st-key-mode_en").get_by_text("Direct function calling").click()
    page.locator(".st-key-lang_choice").get_by_text("中文").click()
    expect(page.locator(".st-key-mode_zh")).to_contain_text("直接函数调用")
    expect(page.locator(".st-key-mode_zh input[type='radio']").nth(1)).to_be_checked()
    page.locator(".st-key-run button").click()
    expect(_header(page)).to_contain_text("第 1/11 跳")  # a direct-mode run has 11 hops; MCP has 18
