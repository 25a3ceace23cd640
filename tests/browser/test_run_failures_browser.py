"""Every failure the Run page offers, pressed in headless Chromium while a room is open with two followers: each run
ends in its own one-line outcome, and afterwards the app still answers its health check and the room still follows
the teacher. (Before, the demo server's "die on tools/call" over the in-memory transport ended the app's process.)
"""

from __future__ import annotations

import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from flow import mock_model_label
from flow.backends.mock import MODEL_NAMES
from flow_ui.i18n import t

FOLLOW_MS = 10_000  # generous for a loaded CI machine

# (what to choose on the Run page, what the run must end in). A fault is the demo server's; a model a mock's behaviour.
SERVER_FAULTS = [("die", "memory"), ("die", "stdio"), ("hang", "memory"), ("hang", "stdio")]
# mock-slow only answers late (5 s, inside the app's own model timeout): slow, not a failure.
MOCK_FAILURES = [m for m in MODEL_NAMES if m not in ("mock", "mock-slow")]


def _page(browser: Any, url: str, *, width: int = 1280, height: int = 720) -> Page:
    context = browser.new_context(locale="en-US", viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url)
    return page


def _healthy(app_url: str) -> bool:
    with urllib.request.urlopen(f"{app_url}/_stcore/health", timeout=10) as answer:
        return answer.status == 200 and answer.read() == b"ok"


def _at(page: Page, position: int) -> None:
    expect(page.locator("[data-flow-viewer]")).to_have_attribute("data-current", str(position), timeout=FOLLOW_MS)


def _choose(page: Page, key: str, label: str) -> None:
    page.locator(f".st-key-{key}_en").get_by_text(label, exact=True).click()


def _select(page: Page, key: str, option: str) -> None:
    page.locator(f".st-key-{key}_en [data-testid='stSelectbox']").click()
    page.keyboard.type(option)  # the list shows the names that match what is typed
    page.get_by_role("option", name=option, exact=True).click()
    expect(page.locator(f".st-key-{key}_en input")).to_have_value(option)


def _run(page: Page) -> str:
    """Press Run (the hops unpaced); what the page says happened when the run ended: one line, whatever the run did."""
    pace = page.locator(".st-key-pace_en input[type='checkbox']")
    pace.wait_for()
    if pace.is_checked():
        page.locator(".st-key-pace_en label").click()
        expect(pace).not_to_be_checked()
    page.locator(".st-key-run button").click()
    said = page.locator(".st-key-run_outcome [data-testid='stAlert'] [data-testid='stMarkdownContainer']")
    said.wait_for(timeout=60_000)
    return said.inner_text()


@pytest.fixture(scope="module")
def room(browser, app_url):
    """A teacher presenting the Step page to a room, and two followers on its link."""
    teacher = _page(browser, app_url)
    teacher.locator("[data-flow-viewer][data-current]").wait_for()
    teacher.get_by_role("button", name="Present to a room").click()
    overlay = teacher.locator(".fv-qr")
    link = overlay.locator(".fv-qr-link").inner_text()
    overlay.click()
    follow_url = app_url + link[link.index("/room/") :]
    followers = [_page(browser, follow_url), _page(browser, follow_url, width=360, height=740)]
    for page in followers:
        page.locator("[data-flow-viewer][data-current]").wait_for()
    expect(teacher.locator(".fv-room")).to_contain_text("2 following")
    return teacher, followers


def _room_follows(teacher: Page, followers: list[Page]) -> None:
    """The teacher moves to another hop than the one shown; both followers move there too."""
    shown = int(teacher.locator("[data-flow-viewer]").get_attribute("data-current") or 1)
    position = shown % 15 + 1
    teacher.evaluate("i => window.__viewer.goto(i)", position - 1)
    _at(teacher, position)
    for page in followers:
        _at(page, position)
    expect(teacher.locator(".fv-room")).to_contain_text("2 following")


@pytest.mark.parametrize(("fault", "transport"), SERVER_FAULTS, ids=[f"{f}-{tr}" for f, tr in SERVER_FAULTS])
def test_a_server_fault_on_the_run_page_ends_only_the_run(browser, app_url, room, fault, transport):
    teacher, followers = room
    page = _page(browser, f"{app_url}/run")
    _choose(page, "transport", t(f"transport_{transport}", "en"))
    _choose(page, "server_fault", t(f"fault_{fault}", "en"))
    said = _run(page)
    expected = {"die": "stopped during tools/call" if transport == "memory" else "closed the connection"}
    assert expected.get(fault, "did not answer tools/call") in said
    assert len(said.strip().splitlines()) == 1  # one line, no traceback
    assert _healthy(app_url)
    _room_follows(teacher, followers)
    page.context.close()


@pytest.mark.parametrize("model", MOCK_FAILURES)
def test_a_failing_mock_model_on_the_run_page_ends_only_the_run(browser, app_url, room, model):
    teacher, followers = room
    page = _page(browser, f"{app_url}/run")
    _select(page, "mock_model", mock_model_label(model, "en"))  # its name, then the id
    if model == "mock-no-strict":  # it refuses only a request that carries `strict`
        page.locator(".st-key-strict_en").get_by_text(t("strict", "en")).click()
    said = _run(page)
    assert "Traceback" not in said and len(said.strip().splitlines()) == 1
    assert page.get_by_text("Connection error").count() == 0
    assert _healthy(app_url)
    _room_follows(teacher, followers)
    page.context.close()
