"""The Run page names each of the mock model's behaviours in the page's language, with the id the command line's
`--model` takes beside it; under the list, what the chosen one does, and a fold explains every behaviour, in headless
Chromium at 1280×720 and 1920×1080. Screenshots of the open list and of the fold go to test-artifacts/."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from flow.backends.mock import MODEL_NAMES
from helpers import ARTIFACTS

CASES = [("zh", 1280, 720), ("en", 1280, 720), ("zh", 1920, 1080), ("en", 1920, 1080)]

# Two of the names as a class reads them, written out so that a change of wording is a decision.
SEEN = {
    "zh": ("一切正常 · mock", "参数不是 JSON · mock-bad-json"),
    "en": ("Well-behaved · mock", "Arguments not JSON · mock-bad-json"),
}


def _page(browser: Any, url: str, lang: str, width: int, height: int) -> Page:
    context = browser.new_context(
        locale="en-US" if lang == "en" else "zh-CN", viewport={"width": width, "height": height}
    )
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url)
    page.locator(".st-key-run button").wait_for()  # the page has run once
    return page


def _option(page: Page, lang: str, typed: str, label: str) -> None:
    """Type into the behaviour list; the option `label` is offered."""
    page.locator(f".st-key-mock_model_{lang} [data-testid='stSelectbox']").click()
    page.keyboard.type(typed)  # the list shows the options whose label holds what is typed
    expect(page.get_by_role("option", name=label, exact=True)).to_be_visible(timeout=5_000)
    page.keyboard.press("Escape")


@pytest.mark.parametrize(("lang", "width", "height"), CASES, ids=[f"{c[0]}-{c[1]}x{c[2]}" for c in CASES])
def test_every_mock_behaviour_is_named_in_the_pages_language_and_explained(browser, app_url, lang, width, height):
    page = _page(browser, f"{app_url}/run", lang, width, height)
    for label in SEEN[lang]:
        _option(page, lang, label.split(" · ")[1], label)

    from flow import mock_model_does, mock_model_label

    for model in MODEL_NAMES:
        _option(page, lang, model, mock_model_label(model, lang))

    box = page.locator(f".st-key-mock_model_{lang}")
    box.locator("[data-testid='stSelectbox']").click()
    expect(page.get_by_role("option").first).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"run-mock-list-{lang}-{width}x{height}.png"))
    page.get_by_role("option", name=mock_model_label("mock-loop", lang), exact=True).click()
    expect(page.locator(f".st-key-mock_model_{lang} input")).to_have_value(mock_model_label("mock-loop", lang))
    # under the list, what the chosen behaviour does
    expect(page.get_by_text(mock_model_does("mock-loop", lang), exact=True)).to_be_visible()

    fold = page.locator(f".st-key-mock_all_{lang}")
    fold.locator("summary").click()
    items = fold.locator("li")
    expect(items).to_have_count(len(MODEL_NAMES))  # every behaviour, explained: none left out
    for item, model in zip(items.all(), MODEL_NAMES, strict=True):
        expect(item).to_contain_text(model)
        expect(item).to_contain_text(mock_model_label(model, lang).split(" · ")[0])
    items.first.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"run-mock-all-{lang}-{width}x{height}.png"))
    page.context.close()
