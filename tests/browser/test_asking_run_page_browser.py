"""The Run page with a server that asks, in Chromium: a form nobody answers goes away at the timeout (the page's other
behaviour is tested through AppTest in this process: tests/unit/test_asking_run_page.py)."""

from __future__ import annotations

from playwright.sync_api import expect

from flow import ASKING_QUESTIONS

HERE_ZH, HERE_EN = ASKING_QUESTIONS["elicitation"]


def test_in_the_browser_a_form_nobody_answers_goes_away_at_the_timeout_and_the_run_ends(browser, app_url):
    """The page looks again each second while the form waits (a fragment's timer, which AppTest does not
    run): once the run gives the question up, the form goes and the run's outcome comes, with no click."""
    context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{app_url}/run")
    page.locator(".st-key-run button").wait_for()
    page.locator(".st-key-asks_en label").first.click()
    page.get_by_text("Questions that make the server ask back").wait_for()
    page.locator("[data-testid='stButtonGroup'] button").filter(has_text=HERE_EN).click()
    timeout = page.locator(".st-key-elicit_timeout_en input")
    timeout.fill("3")
    timeout.press("Enter")
    page.locator(".st-key-pace_en label").first.click()  # the pace off: the form comes at once
    expect(page.get_by_role("textbox", name="Question")).to_have_value(HERE_EN)
    page.locator(".st-key-run button").click()
    box = page.locator(".st-key-ask_box")
    expect(box).to_contain_text("Which city are you in?")
    expect(box).to_contain_text("If nobody answers within")
    expect(page.locator(".st-key-run button")).to_be_disabled()
    expect(page.locator(".st-key-run_outcome")).to_be_visible(timeout=20_000)
    expect(box).to_have_count(0)
    expect(page.locator(".st-key-run_outcome")).to_contain_text("weather_here")
    page.locator("[data-testid='stExpander'] summary").filter(has_text="Done:").click()
    expect(page.locator(".st-key-run_live")).to_contain_text("User → App · no answer within 3 s: cancel")
    context.close()
