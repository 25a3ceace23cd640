"""A classroom room in headless Chromium: a teacher on the Step page (the app as `./dev.sh app` serves it, flow_ui/serve.py)
and two followers, a laptop and a phone (390 × 844), on the link the room gives.

The followers follow the teacher's steps and language; one looks ahead on its own, up to the question the teacher
has not reached and not past it, and comes back; while a question waits at the teacher's hop a follower may look
back, never ahead; neither moves the teacher; both answer a question once, the teacher's screen (the projector) says how many answered and shows the
counts only at the reveal (or live, when the teacher turns that on), and each follower sees the right choice and its
own. The phone gets the phone's layout. Screenshots go to test-artifacts/ for a person to look at.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

import flow
from helpers import ARTIFACTS, ROOT

SAMPLE = flow.load_trace(ROOT / "sample_traces" / "beijing-mcp.json")
QUESTIONS = flow.questions_for(SAMPLE)
ASKED = min(i for i, hop in enumerate(SAMPLE.hops) if hop.seq in QUESTIONS)  # the first hop that asks
RIGHT = QUESTIONS[SAMPLE.hops[ASKED].seq].answer  # from 1
FOLLOW_MS = 3000  # generous for a loaded CI machine; the benchmark measures the real lag (python -m bench --room)


def _page(browser: Any, url: str, *, locale: str, width: int, height: int, phone: bool = False) -> Page:
    context = browser.new_context(
        locale=locale, viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(url)
    page.locator("[data-flow-viewer][data-current]").wait_for()
    return page


def _shot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    return path


def _at(page: Page, position: int, timeout: int = FOLLOW_MS) -> None:
    expect(page.locator("[data-flow-viewer]")).to_have_attribute("data-current", str(position), timeout=timeout)


def _teacher_goto(page: Page, index: int) -> None:
    page.evaluate("i => window.__viewer.goto(i)", index)
    _at(page, index + 1)


def test_a_room_follows_the_teacher_and_answers_a_question(browser, app_url):
    teacher = _page(browser, app_url, locale="en-US", width=1280, height=720)
    teacher.get_by_text("Questions: predict, then reveal").click()
    expect(teacher.locator(".fv-questions-toggle")).to_have_attribute("aria-pressed", "true")
    teacher.get_by_role("button", name="Present to a room").click()
    overlay = teacher.locator(".fv-qr")
    expect(overlay.locator("svg")).to_be_visible()
    link = overlay.locator(".fv-qr-link").inner_text()
    assert link.startswith("http://") and "/room/" in link
    assert teacher.locator(".fv-qr-code svg path").count() >= 1  # drawn here, no image from anywhere
    _shot(teacher, "room-teacher-qr-en-1280x720.png")
    overlay.click()
    expect(overlay).to_have_count(0)
    # The link names the address students use; the test's browser reaches this app on its own port.
    follow_url = app_url + link[link.index("/room/") :]
    laptop = _page(browser, follow_url, locale="zh-CN", width=1280, height=720)
    phone = _page(browser, follow_url, locale="en-US", width=390, height=844, phone=True)
    expect(teacher.locator(".fv-room")).to_contain_text("2 following")
    # The phone has the phone's layout: the hop's card, then the trace as rows it can read, no shrunken diagram.
    expect(phone.locator("[data-flow-viewer]")).to_have_attribute("data-layout", "phone")
    expect(phone.locator(".fv-diagram")).to_be_hidden()
    smallest = phone.evaluate(
        "() => Math.min(...[...document.querySelectorAll('.fv-lane-row .fv-li-label, .fv-lane-ends, .fv-teach')]"
        ".map((e) => parseFloat(getComputedStyle(e).fontSize)))"
    )
    assert smallest >= 12, smallest

    # The teacher steps to the hop before the first question; both follow.
    assert ASKED >= 2
    for _ in range(ASKED - 1):
        teacher.locator(".fv-next").click()
    _at(teacher, ASKED)
    for page in (laptop, phone):
        _at(page, ASKED)
        expect(page.locator(".fv-room-banner")).to_have_attribute("data-state", "following")
    # The followers' screens follow the teacher's language (English), not their own browser's, the page's too.
    expect(laptop.locator(".fv-next")).to_contain_text("Next")
    expect(laptop.locator("html")).to_have_attribute("lang", "en")

    # One looks ahead on its own, up to the question the teacher has not reached, not past it (the hops after it
    # answer it): the teacher does not move, the follower stays where it went.
    laptop.locator(".fv-next").click()
    _at(laptop, ASKED + 1)
    expect(laptop.locator(".fv-next")).to_be_disabled()
    laptop.keyboard.press("ArrowRight")
    laptop.evaluate(f"() => window.__viewer.goto({ASKED + 3})")
    expect(laptop.locator(".fv-room-banner")).to_have_attribute("data-state", "own")
    _teacher_goto(teacher, ASKED - 2)
    _at(phone, ASKED - 1)
    laptop.wait_for_timeout(500)
    _at(laptop, ASKED + 1, timeout=100)
    _at(teacher, ASKED - 1, timeout=100)  # the follower's presses never reached the teacher
    _shot(laptop, "room-follower-own-en-1280x720.png")
    laptop.locator(".fv-room-back").click()
    _at(laptop, ASKED - 1)
    expect(laptop.locator(".fv-room-banner")).to_have_attribute("data-state", "following")

    # A question: each follower answers once, the teacher sees the tally, then reveals.
    _teacher_goto(teacher, ASKED)
    for page in (laptop, phone):
        _at(page, ASKED + 1)
        expect(page.locator("[data-flow-viewer]")).to_have_attribute("data-asking", "1")
        expect(page.locator(".fv-reveal")).to_have_count(0)  # only the teacher reveals
    # While it waits, the phone may look back, never ahead: not by Next, a key, nor a later hop's row.
    expect(phone.locator(".fv-next")).to_be_disabled()
    phone.locator(".fv-room-banner").click()  # the keys to the phone's viewer
    phone.keyboard.press("ArrowRight")
    phone.keyboard.press("End")
    phone.locator(".fv-lane-row").nth(ASKED + 2).click()
    phone.wait_for_timeout(300)
    _at(phone, ASKED + 1, timeout=100)
    phone.locator(".fv-prev").click()
    _at(phone, ASKED)
    expect(phone.locator(".fv-room-banner")).to_have_attribute("data-state", "own")
    phone.locator(".fv-room-back").click()
    _at(phone, ASKED + 1)
    wrong = 1 if RIGHT != 1 else 2
    laptop.locator(f".fv-choice[data-choice='{RIGHT}']").click()
    phone.locator(f".fv-choice[data-choice='{wrong}']").scroll_into_view_if_needed()
    phone.locator(f".fv-choice[data-choice='{wrong}']").click()
    phone.locator(f".fv-choice[data-choice='{RIGHT}']").click()  # a second answer from the same screen: ignored
    expect(laptop.locator(".fv-quiz-wait")).to_contain_text("Answer sent")
    # The projector says how many answered, not what they chose: counts on the wall would steer the rest.
    expect(teacher.locator(".fv-quiz-answered")).to_have_attribute("data-answered", "2")
    expect(teacher.locator(".fv-quiz-answered")).to_contain_text("2 answered")
    expect(teacher.locator(".fv-votes")).to_have_count(0)
    _shot(teacher, "room-teacher-answered-en-1280x720.png")
    # Live votes, when the teacher wants them: every choice's count, before the reveal.
    teacher.locator(".fv-room-live").click()
    expect(teacher.locator(".fv-room-live")).to_have_attribute("aria-pressed", "true")
    votes = teacher.locator(".fv-votes")
    expect(teacher.locator(f".fv-choice[data-choice='{RIGHT}'] .fv-votes")).to_have_attribute("data-votes", "1")
    expect(teacher.locator(f".fv-choice[data-choice='{wrong}'] .fv-votes")).to_have_attribute("data-votes", "1")
    assert sum(int(votes.nth(k).get_attribute("data-votes") or 0) for k in range(votes.count())) == 2
    _shot(teacher, "room-teacher-tally-en-1280x720.png")
    teacher.locator(".fv-room-live").click()
    expect(teacher.locator(".fv-votes")).to_have_count(0)
    _shot(phone, "room-phone-question-en-390x844.png")
    teacher.locator(".fv-reveal").click()
    # At the reveal the counts are for everyone, the teacher's screen too.
    expect(teacher.locator(f".fv-choice[data-choice='{RIGHT}'] .fv-votes")).to_have_attribute("data-votes", "1")
    for page, mine in ((laptop, RIGHT), (phone, wrong)):
        card = page.locator(".fv-quiz-card")
        expect(card).to_have_attribute("data-state", "revealed", timeout=FOLLOW_MS)
        expect(page.locator(f".fv-choice[data-choice='{RIGHT}']")).to_have_class(_has("fv-right"))
        expect(page.locator(f".fv-choice[data-choice='{mine}']")).to_have_class(_has("fv-picked"))
    expect(phone.locator(f".fv-choice[data-choice='{wrong}']")).to_have_class(_has("fv-wrong"))
    _shot(laptop, "room-follower-revealed-en-1280x720.png")
    _shot(phone, "room-phone-revealed-en-390x844.png")
    # Revealed: the phone may look ahead again, up to the next question.
    expect(phone.locator(".fv-next")).to_be_enabled()
    phone.locator(".fv-next").click()
    _at(phone, ASKED + 2)
    phone.locator(".fv-room-back").click()
    _at(phone, ASKED + 1)

    # The teacher opens the closing view after the last hop: the class sees it too, and leaves it with the teacher.
    last = len(SAMPLE.hops) - 1
    _teacher_goto(teacher, last)
    teacher.locator(".fv-closing-open").click()
    for page in (teacher, laptop, phone):
        expect(page.locator("[data-flow-viewer]")).to_have_attribute("data-closing", "1", timeout=FOLLOW_MS)
    expect(laptop.locator(".fv-room-banner")).to_have_attribute("data-state", "following")
    _shot(phone, "room-phone-closing-en-390x844.png")
    teacher.evaluate("() => window.__viewer.prev()")
    for page in (laptop, phone):
        expect(page.locator("[data-flow-viewer]")).not_to_have_attribute("data-closing", "1", timeout=FOLLOW_MS)
        _at(page, last + 1)
    _teacher_goto(teacher, ASKED)

    # The teacher switches to Chinese: the followers' screens do too.
    teacher.locator(".st-key-lang_choice").get_by_text("中文").click()
    for page in (laptop, phone):
        expect(page.locator(".fv-next")).to_contain_text("下一步", timeout=10_000)
        expect(page.locator("html")).to_have_attribute("lang", "zh")  # the page says so (screen readers, fonts)
        _at(page, ASKED + 1)
    _shot(laptop, "room-follower-zh-1280x720.png")
    _shot(phone, "room-phone-zh-390x844.png")
    teacher.set_viewport_size({"width": 1920, "height": 1080})
    _shot(teacher, "room-teacher-zh-1920x1080.png")

    # Closing the room ends it for everyone.
    teacher.get_by_role("button", name="关闭房间").click()
    expect(laptop.locator(".fv-room")).to_contain_text("房间已关闭", timeout=10_000)
    for page in (teacher, laptop, phone):
        page.context.close()


def _has(cls: str) -> Any:
    import re

    return re.compile(rf"(^|\s){cls}(\s|$)")


def test_the_room_stays_with_the_teacher_through_a_click_a_new_trace_a_reload_and_the_close(browser, app_url):
    """What a lesson does to a room besides stepping: the teacher clicks the sidebar and goes on with the keys,
    shows another sample, reloads the page by mistake, and closes the room. The class keeps its one link."""
    teacher = _page(browser, app_url, locale="en-US", width=1280, height=720)
    teacher.get_by_role("button", name="Present to a room").click()
    overlay = teacher.locator(".fv-qr")
    expect(overlay.locator(".fv-qr-warn")).to_contain_text("this computer only")  # a loopback link says so
    teacher.keyboard.press("Escape")  # a key closes the code first, and does not step
    expect(overlay).to_have_count(0)
    _at(teacher, 1, timeout=100)
    link = teacher.locator("[data-testid='stSidebar']").get_by_text("Students open:").inner_text()
    code = link[link.index("/room/") + 6 :].split()[0].strip()
    student = _page(browser, f"{app_url}/room/{code.upper()}", locale="en-US", width=1280, height=720)
    expect(teacher.locator(".fv-room")).to_contain_text("1 following")

    # A mouse click in the sidebar (a lesson toggle) leaves the keys to the viewer: → steps, for the class too.
    teacher.get_by_text("Restaurant captions").click()
    expect(student.locator("[data-flow-viewer]")).to_have_class(_has("fv-with-captions"), timeout=FOLLOW_MS)
    teacher.keyboard.press("ArrowRight")
    teacher.keyboard.press("PageDown")
    _at(teacher, 3)
    _at(student, 3)
    teacher.locator(".st-key-lang_choice").get_by_text("English").click()  # a radio would take an arrow itself
    teacher.keyboard.press("ArrowLeft")
    _at(teacher, 2)
    _at(student, 2)
    expect(teacher.locator(".fv-next")).to_contain_text("Next")  # the language stayed

    # Another sample on the teacher's page: the room shows it, at the same link, and the class follows.
    teacher.locator(".st-key-step_sample_en").click()
    teacher.keyboard.type("direct mode")  # the list shows a few of its samples at a time
    teacher.get_by_role("option", name="Beijing weather · direct mode", exact=True).click()
    expect(student.locator(".fv-title")).to_contain_text("direct mode", timeout=10_000)
    expect(student.locator(".fv-where")).to_contain_text("of 11")
    expect(student.locator(".fv-room-banner")).to_have_attribute("data-state", "following")
    _shot(student, "room-follower-new-trace-en-1280x720.png")

    # The teacher reloads: the class is told the teacher is away, then follows again; the page has its room back.
    teacher.reload()
    teacher.locator("[data-flow-viewer][data-current]").wait_for()
    expect(teacher.locator(".fv-room")).to_contain_text("1 following", timeout=10_000)
    expect(teacher.get_by_role("button", name="Close the room")).to_be_visible()
    expect(teacher.locator(".fv-qr")).to_have_count(0)  # the code does not fill the screen again
    before = int(teacher.locator("[data-flow-viewer]").get_attribute("data-current") or 0)
    teacher.locator(".fv-next").click()
    _at(teacher, before + 1)
    _at(student, before + 1)
    expect(student.locator(".fv-room-banner")).to_have_attribute("data-state", "following")

    # Closed: the class is told so, once, and may go on alone.
    teacher.get_by_role("button", name="Close the room").click()
    expect(student.locator(".fv-room-banner")).to_have_attribute("data-state", "closed", timeout=10_000)
    expect(student.locator(".fv-room-banner")).to_contain_text("closed the room")
    expect(teacher.get_by_role("button", name="Present to a room")).to_be_visible()
    expect(teacher.get_by_role("button", name="Close the room")).to_have_count(0)
    _shot(student, "room-follower-closed-en-1280x720.png")
    for page in (teacher, student):
        page.context.close()
