"""The docs' screenshots, taken from the real app in headless Chromium, so the pictures in docs/ show what the app
does today: the Step through page on the Beijing MCP sample at the tools/call hop, Compare, and a room as a
student's phone shows it after joining, in Chinese and English.

Each run writes them to test-artifacts/docs-screens/; with UPDATE_SCREENS=1 it writes them to docs/assets/screens/
as well (then look at them before committing). The docs' copies must be screenshots of the same screens."""

from __future__ import annotations

import os
import re
import shutil
import struct
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

import flow
from helpers import ARTIFACTS, ROOT

SCREENS = ROOT / "docs" / "assets" / "screens"
OUT = ARTIFACTS / "docs-screens"
LOCALES = {"zh": "zh-CN", "en": "en-US"}
DESKTOP = (1280, 720)
PHONE = (390, 844)
SAMPLE = flow.load_trace(ROOT / "sample_traces" / "beijing-mcp.json")
# Message 6 of the ten: the MCP client asks the server to run the tool the model chose.
CALL = next(
    i for i, hop in enumerate(SAMPLE.hops) if hop.kind == "mcp.request" and hop.payload.get("method") == "tools/call"
)


def _size(png: Path) -> tuple[int, int]:
    width, height = struct.unpack(">II", png.read_bytes()[16:24])
    return width, height


def _keep(page: Page, name: str) -> Path:
    """The screenshot in test-artifacts/, and in docs/ when asked to update them."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / name
    page.screenshot(path=str(path))
    if os.environ.get("UPDATE_SCREENS") == "1":
        SCREENS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, SCREENS / name)
    return path


def _open(browser: Any, url: str, lang: str, size: tuple[int, int], phone: bool = False) -> Page:
    context = browser.new_context(
        locale=LOCALES[lang],
        viewport={"width": size[0], "height": size[1]},
        is_mobile=phone,
        has_touch=phone,
        reduced_motion="reduce",
    )
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url)
    return page


def _at(page: Page, index: int) -> None:
    page.evaluate("i => window.__viewer.goto(i)", index)
    expect(page.locator("[data-flow-viewer]")).to_have_attribute("data-current", str(index + 1))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_docs_screenshots_are_taken_from_the_app(browser, app_url, lang):
    taken: list[Path] = []

    step = _open(browser, app_url, lang, DESKTOP)
    step.locator("[data-flow-viewer][data-current]").wait_for()
    _at(step, CALL)
    expect(step.locator(".fv-where")).to_contain_text(re.compile(rf"(?<!\d){CALL + 1}\D+{len(SAMPLE.hops)}(?!\d)"))
    taken.append(_keep(step, f"step-{lang}.png"))

    # A room for the class: the teacher presents, a student's phone joins on the room's link.
    step.locator(".fv-presenter").wait_for()
    step.wait_for_url(re.compile(rf"[?&]hop={CALL + 1}\b"))  # the page has heard where the viewer is
    step.get_by_role("button", name="Present to a room" if lang == "en" else "投屏到房间").click()
    link = step.locator(".fv-qr .fv-qr-link").inner_text()
    step.locator(".fv-qr").click()
    phone = _open(browser, app_url + link[link.index("/room/") :], lang, PHONE, phone=True)
    expect(phone.locator(".fv-room-banner")).to_have_attribute("data-state", "following")
    expect(phone.locator("[data-flow-viewer]")).to_have_attribute("data-current", str(CALL + 1))
    taken.append(_keep(phone, f"room-{lang}.png"))

    compare = _open(browser, f"{app_url}/compare", lang, DESKTOP)
    pictures = compare.locator('[data-testid="compare-diagrams"] img')
    expect(pictures).to_have_count(2)
    compare.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"compare-diagrams\"] img')]"
        ".every(i => i.complete && i.naturalWidth > 0)"
    )
    taken.append(_keep(compare, f"compare-{lang}.png"))

    for path in taken:
        docs_copy = SCREENS / path.name
        assert docs_copy.is_file(), f"docs/ lacks {path.name}: run with UPDATE_SCREENS=1 and look at it"
        assert _size(docs_copy) == _size(path)  # the same screen, at the same size
    for context in {p.context for p in (step, phone, compare)}:
        context.close()
