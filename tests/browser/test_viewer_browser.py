"""The trace viewer in headless Chromium, in both hosts: the HTML export (a file) and the app's Step through page.

Every press moves one hop, the current arrow and its label are always fully in view, and presenter
mode is big enough for a projector. Screenshots go to test-artifacts/ for a person to look at."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from bench.browser import CURRENT_IN_VIEW
from flow.trace.files import load_trace, parse_trace
from flow.views.html import to_html
from flow.views.viewer import script_json
from helpers import ARTIFACTS, ROOT, must_search, page_errors, watch_page_errors

SIZES = [(1280, 720), (1920, 1080)]
HTML_SAMPLES = ["beijing-mcp", "two-cities-parallel", "tool-error"]

# Displayed sizes in CSS px: SVG text is scaled with the drawing, so its size is font-size times the scale on screen.
_SIZES = """() => {
  const root = window.__viewer.root;
  const px = (el) => parseFloat(getComputedStyle(el).fontSize);
  const svg = root.querySelector('.fv-svg svg');
  const label = root.querySelector('.fv-svg g.fv-label-node text');
  return {
    header: px(root.querySelector('.fv-where')),
    teach: px(root.querySelector('.fv-teach')),
    json: px(root.querySelector('.fv-json')),
    label: parseFloat(label.getAttribute('font-size')) * svg.getScreenCTM().a,
    band: px(root.querySelector('.fv-svg g.small text')) * svg.getScreenCTM().a,
  };
}"""


def _wait_for(page: Page, position: int) -> None:
    page.locator(f"[data-flow-viewer][data-current='{position}']").wait_for()


def _goto(page: Page, index: int) -> None:
    page.evaluate("i => window.__viewer.goto(i)", index)
    _wait_for(page, index + 1)


def _every_hop_in_view(page: Page, n: int, where: str) -> list[str]:
    out = []
    for i in range(n):
        _goto(page, i)
        seen = page.evaluate(CURRENT_IN_VIEW)
        if not seen["ok"]:
            out.append(f"{where} hop {i + 1}: {seen}")
    return out


def _presenter(page: Page, on: bool) -> None:
    root = page.locator("[data-flow-viewer]")
    if (root.get_attribute("data-mode") == "presenter") != on:
        page.locator(".fv-presenter").click()
    expect(root).to_have_attribute("data-mode", "presenter" if on else "normal")


def _shot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    return path


def _presses(page: Page, count: int) -> None:
    """`count` presses of → 50 ms apart must move exactly `count` hops."""
    start = page.evaluate("() => window.__viewer.index")
    for _ in range(count):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(50)
    _wait_for(page, start + count + 1)
    assert page.evaluate("() => window.__viewer.index") == start + count


@pytest.fixture(scope="module")
def html_files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("html")
    out = {}
    for name in HTML_SAMPLES:
        path = folder / f"{name}.html"
        path.write_text(to_html(load_trace(ROOT / "sample_traces" / f"{name}.json"), lang="en"), encoding="utf-8")
        out[name] = path
    return out


def _open(browser, url: str, size: tuple[int, int], *, locale: str = "en-US") -> Page:
    # Reduced motion scrolls at once, so a check right after a step sees where the scroll ends.
    context = browser.new_context(
        locale=locale, viewport={"width": size[0], "height": size[1]}, reduced_motion="reduce"
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    watch_page_errors(page)
    page.goto(url)
    page.locator("[data-flow-viewer][data-current]").wait_for()
    return page


def test_the_html_export_keeps_every_current_arrow_in_view(browser, html_files):
    problems: list[str] = []
    for name, path in html_files.items():
        n = len(load_trace(ROOT / "sample_traces" / f"{name}.json").hops)
        for size in SIZES:
            page = _open(browser, path.as_uri(), size)
            for presenter in (False, True):
                _presenter(page, presenter)
                problems += _every_hop_in_view(page, n, f"{name} {size} {'presenter' if presenter else 'normal'}")
            assert not page_errors(page), page_errors(page)
            page.context.close()
    assert not problems, "\n".join(problems[:10])


def test_the_html_export_steps_once_per_press_and_works_from_a_file(browser, html_files):
    page = _open(browser, html_files["beijing-mcp"].as_uri(), (1280, 720))
    expect(page.locator(".fv-where")).to_contain_text("hop 1 of 20")
    _presses(page, 19)
    expect(page.locator(".fv-where")).to_contain_text("Step 10")
    expect(page.locator(".fv-next")).to_be_disabled()
    page.keyboard.press("Home")
    _wait_for(page, 1)
    page.keyboard.type("12")
    page.keyboard.press("Enter")
    _wait_for(page, 12)
    page.keyboard.press("End")
    _wait_for(page, 20)
    page.keyboard.press("PageUp")
    _wait_for(page, 19)
    page.keyboard.press("PageDown")
    _wait_for(page, 20)
    assert not page_errors(page), page_errors(page)


# Presenter mode's least sizes (px): a projector shows 720 rows as large as 1080, so at 720 the same size on the wall
# is two thirds of the pixels; the arrow labels never under 16 px (issue 26).
BACK_ROW = {
    (1280, 720): {"header": 26, "teach": 20, "json": 16, "label": 16, "band": 16},
    (1920, 1080): {"header": 32, "teach": 24, "json": 18, "label": 18, "band": 18},
}


def test_presenter_mode_is_readable_from_the_back_row(browser, html_files):
    for size in SIZES:
        page = _open(browser, html_files["beijing-mcp"].as_uri(), size)
        _presenter(page, True)
        _goto(page, 8)
        sizes = page.evaluate(_SIZES)
        assert all(sizes[k] >= least - 0.01 for k, least in BACK_ROW[size].items()), (size, sizes)
        # Nothing but the diagram, the sentence and the JSON card (and the buttons that step).
        for hidden in (".fv-list", ".fv-slider", ".fv-phases", ".fv-label"):
            expect(page.locator(hidden)).to_be_hidden()
        page.context.close()


def test_autoplay_keeps_its_pace(browser, html_files):
    page = _open(browser, html_files["beijing-mcp"].as_uri(), (1280, 720))
    page.locator(".fv-speed").select_option("0.5")
    times = page.evaluate("""() => new Promise((done) => {
      const root = window.__viewer.root; const seen = [];
      const watch = new MutationObserver(() => {
        seen.push(performance.now());
        if (seen.length === 7) { watch.disconnect(); done(seen); }
      });
      watch.observe(root, {attributes: true, attributeFilter: ['data-current']});
      root.querySelector('.fv-play').click();
    })""")
    # Six periods of 0.5 s, timed from the first move to the last: within 10 %.
    assert abs((times[-1] - times[0]) / 6 - 500) <= 50, times
    expect(page.locator(".fv-where")).to_contain_text("hop 8 of 20")


def test_the_inspector_opens_at_the_hops_focus(browser, tmp_path):
    """A hop's `focus` (JSON paths, from flow.focus) opens and marks those fields; the rest stays one click away."""
    page_text = to_html(load_trace(ROOT / "sample_traces" / "beijing-mcp.json"), lang="en")
    found = must_search(r'(<script type="application/json" id="flow-bundle">)(.*?)(</script>)', page_text, re.S)
    bundle = json.loads(found.group(2))
    request = next(i for i, h in enumerate(bundle["hops"]) if h["kind"] == "llm.request")
    bundle["hops"][request]["focus"] = [["body", "tools"], {"path": "body.messages[1].content", "color": "#f472b6"}]
    bundle["hops"][request - 1].pop("focus", None)
    path = tmp_path / "focus.html"
    path.write_text(page_text[: found.start(2)] + script_json(bundle) + page_text[found.end(2) :], encoding="utf-8")
    page = _open(browser, path.as_uri(), (1280, 720))
    _goto(page, request)
    marks = page.locator(".fv-json .fv-mark")
    expect(marks).to_have_count(2)
    tools = marks.filter(has_text='"tools"')
    expect(tools).to_contain_text('"get_weather"')  # opened, not just named
    expect(marks.filter(has_text="北京今天天气怎么样")).to_have_count(1)
    expect(marks.first).to_be_in_viewport()
    # Without a focus, three levels are open and nothing is marked.
    _goto(page, request - 1)
    expect(page.locator(".fv-json .fv-mark")).to_have_count(0)


def test_the_inspector_shows_each_steps_focus_from_flow_focus(browser, html_files):
    """The export carries flow.focus: at step 4 the null content and the raw arguments string are marked."""
    page = _open(browser, html_files["beijing-mcp"].as_uri(), (1280, 720))
    hops = json.loads(
        must_search(
            r'id="flow-bundle">(.*?)</script>', html_files["beijing-mcp"].read_text(encoding="utf-8"), re.S
        ).group(1)
    )["hops"]
    decision = next(i for i, h in enumerate(hops) if h["kind"] == "llm.response" and h["number"].startswith("4"))
    _goto(page, decision)
    marks = page.locator(".fv-json .fv-mark")
    expect(marks.filter(has_text='"content"')).to_contain_text("null")
    expect(marks.filter(has_text='"arguments"').first).to_contain_text('\\"city\\"')


def test_later_hops_are_faded_but_legible(browser, html_files):
    page = _open(browser, html_files["beijing-mcp"].as_uri(), (1280, 720))
    _goto(page, 3)
    color = page.evaluate(
        """() => getComputedStyle(window.__viewer.root.querySelector('.fv-svg g.fv-later text')).fill"""
    )
    rgb = [int(c) for c in color[color.index("(") + 1 : color.index(")")].split(",")[:3]]

    def luminance(channels: list[int]) -> float:
        lin = [c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    # Against white and against the palest phase band the labels sit near.
    for background in ([255, 255, 255], [0xE8, 0xF1, 0xFB]):
        assert (luminance(background) + 0.05) / (luminance(rgb) + 0.05) >= 3.0, (color, background)


def test_the_step_page_steps_in_the_browser_and_keeps_the_current_arrow_in_view(browser, app_url):
    page = _open(browser, app_url, (1280, 720))
    expect(page.locator(".fv-where")).to_contain_text("hop 1 of 20")
    assert not page.locator("[data-testid='stGraphVizChart']").count()
    _presses(page, 19)
    expect(page.locator(".fv-where")).to_contain_text("hop 20 of 20")
    expect(page).to_have_url(f"{app_url}/?hop=20&sample=beijing-mcp")
    problems: list[str] = []
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        for presenter in (False, True):
            _presenter(page, presenter)
            problems += _every_hop_in_view(page, 20, f"app {size} {'presenter' if presenter else 'normal'}")
    assert not problems, "\n".join(problems[:10])
    assert not page_errors(page), page_errors(page)


def test_the_step_page_moves_twenty_hops_for_twenty_presses(browser, app_url):
    page = _open(browser, app_url, (1280, 720))
    # Two rounds of tools has 28 hops, so 20 presses from the first never reach the end.
    page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").click()
    page.keyboard.type("Two rounds")  # the list shows a few of its samples at a time
    page.get_by_role("option", name="Two rounds of tools", exact=True).click()
    expect(page.locator(".fv-where")).to_contain_text("hop 1 of 28")
    _wait_for(page, 1)
    page.locator(".fv-title").click()  # the keys go to the page again, not to the sample list
    _presses(page, 20)
    expect(page.locator(".fv-where")).to_contain_text("hop 21 of 28")
    expect(page).to_have_url(f"{app_url}/?hop=21&sample=two-rounds")
    # The language switch redraws the page and keeps the place.
    page.locator(".st-key-lang_choice").get_by_text("中文").click()
    expect(page.locator(".fv-where")).to_contain_text("第 21/28 跳")
    expect(page.locator(".fv-svg svg text", has_text="MCP 服务器").first).to_be_visible()
    # A link opens where it says (a new session starts with the default sample).
    page.goto(f"{app_url}/?hop=7")
    _wait_for(page, 7)
    expect(page.locator(".fv-where")).to_contain_text("hop 7 of 20")
    assert not page_errors(page), page_errors(page)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_screenshots_of_both_hosts(browser, app_url, html_files, lang):
    """For a person to look at: both sizes, normal and presenter, mid-trace."""
    locale = "zh-CN" if lang == "zh" else "en-US"
    for size in SIZES:
        page = _open(browser, f"{app_url}/?hop=16", size, locale=locale)
        for presenter in (False, True):
            _presenter(page, presenter)
            _goto(page, 15)
            assert page.evaluate(CURRENT_IN_VIEW)["ok"]
            mode = "presenter" if presenter else "normal"
            assert _shot(page, f"viewer-app-{lang}-{mode}-{size[0]}x{size[1]}.png").stat().st_size > 10_000
        page.context.close()
    page = _open(browser, html_files["two-cities-parallel"].as_uri(), (1280, 720), locale=locale)
    if lang == "zh":
        page.locator(".fv-lang").click()
    _goto(page, 14)
    _shot(page, f"viewer-html-{lang}-normal-1280x720.png")
    page.context.close()


def test_a_payload_holding_nan_or_infinity_still_opens_in_the_viewer(browser, tmp_path):
    """Python's JSON reads NaN and Infinity into a payload; the browser's JSON.parse has no word for them, so the
    viewer's data carries them as strings and the page still steps."""
    data = json.loads((ROOT / "sample_traces" / "beijing-mcp.json").read_text(encoding="utf-8"))
    data["hops"][3]["payload"]["result"] = {"content": float("nan"), "ratio": float("inf")}  # as the server sent it
    trace = parse_trace(data)
    path = tmp_path / "nan.html"
    path.write_text(to_html(trace, lang="en"), encoding="utf-8")
    text = must_search(r'id="flow-bundle">(.*?)</script>', path.read_text(encoding="utf-8"), re.S).group(1)

    def refuse(word: str) -> None:
        raise AssertionError(f"{word} is not JSON")

    json.loads(text, parse_constant=refuse)  # strict JSON, as JSON.parse reads it
    page = _open(browser, path.as_uri(), (1280, 720))
    _goto(page, 3)
    expect(page.locator(".fv-json")).to_contain_text('"content": "NaN"')


# ---- the route at a glance and predict-then-reveal (issue 15) ----

LESSON_SAMPLES = ["beijing-mcp", "beijing-direct", "unknown-tool", "tool-choice-none"]

# Where the route's lit cell is, what the root says, and whether the diagram still has the room it needs.
_ROUTE = """() => {
  const root = window.__viewer.root;
  const lit = [...root.querySelectorAll('.fv-rcell.fv-here')].map((c) => c.dataset.message);
  const diagram = root.querySelector('.fv-diagram').getBoundingClientRect();
  const strip = root.querySelector('.fv-routebox').getBoundingClientRect();
  const px = (sel) => parseFloat(getComputedStyle(root.querySelector(sel)).fontSize);
  return {lit, message: root.dataset.message, diagramTop: diagram.top, diagramHeight: diagram.height,
          stripBottom: strip.bottom, stripRight: strip.right, width: innerWidth, height: innerHeight,
          cellName: px('.fv-rname'), cellNumber: px('.fv-rnum'), detail: px('.fv-rdetail'),
          kept: root.querySelector('.fv-rcell[data-message="1"]').__kept === true};
}"""


@pytest.fixture(scope="module")
def lesson_files(tmp_path_factory) -> dict[tuple[str, str], Path]:
    """The HTML export of a few samples in both languages, with their questions."""
    from flow.trace.questions import questions_for

    folder = tmp_path_factory.mktemp("lesson")
    out = {}
    for name in LESSON_SAMPLES:
        trace = load_trace(ROOT / "sample_traces" / f"{name}.json")
        if name == "beijing-mcp":  # as a server that does not report running the tool records it
            raw = json.loads(trace.to_json())
            raw["hops"] = [
                h
                for h in raw["hops"]
                if not (h["kind"].startswith("tool.") and "mcp_server" in (h["source"], h["target"]))
            ]
            for seq, hop in enumerate(raw["hops"], 1):
                hop["seq"] = seq
            trace = parse_trace(raw)
        for lang in ("zh", "en"):
            path = folder / f"{name}-{lang}.html"
            path.write_text(to_html(trace, lang=lang, questions=questions_for(trace)), encoding="utf-8")
            out[name, lang] = path
    return out


def _hops(path: Path) -> list[dict]:
    found = re.search(r'id="flow-bundle">(.*?)</script>', path.read_text(encoding="utf-8"), re.S)
    assert found is not None
    return json.loads(found.group(1))["hops"]


def test_the_route_lights_the_current_message_while_stepping(browser, lesson_files):
    path = lesson_files["beijing-mcp", "en"]
    hops = _hops(path)
    page = _open(browser, path.as_uri(), (1280, 720))
    page.evaluate("() => { window.__viewer.root.querySelector('.fv-rcell[data-message=\"1\"]').__kept = true; }")
    for i, hop in enumerate(hops):
        page.keyboard.press("ArrowRight") if i else None
        _wait_for(page, i + 1)
        seen = page.evaluate(_ROUTE)
        assert seen["lit"] == [str(hop["message"])] and seen["message"] == str(hop["message"]), (i, seen)
        assert seen["kept"], "stepping rebuilt the route: it must be a DOM update"
    # The app's six phases and the articles' four (and phase zero) are both shown, the current ones marked.
    expect(page.locator(".fv-rarticle.fv-on")).to_have_text("Phase 4 · backfill and answer")
    expect(page.locator(".fv-rapp.fv-on")).to_have_text("answer")
    expect(page.locator(".fv-rarticle")).to_have_count(5)
    expect(page.locator(".fv-rapp")).to_have_count(6)
    # A click on a message goes to its first hop; message 6 says why it is only partly here.
    page.locator('.fv-rcell[data-message="8"]').click()
    first8 = next(i for i, h in enumerate(hops) if h["message"] == 8)
    _wait_for(page, first8 + 1)
    six = page.locator('.fv-rcell[data-message="6"]')
    expect(six).to_have_attribute("data-state", "partial")
    expect(six).to_contain_text("not reported")
    six.click()
    _wait_for(page, next(i for i, h in enumerate(hops) if h["message"] == 6) + 1)
    expect(page.locator(".fv-rdetail")).to_contain_text("This server did not report its execution")
    expect(page.locator(".fv-rdetail")).to_contain_text("Articles: MCP Client → Tool")
    # The restaurant captions, behind their toggle.
    expect(page.locator(".fv-rcaption")).to_be_hidden()
    page.locator(".fv-captions-toggle").click()
    expect(page.locator(".fv-rcaption")).to_contain_text("The kitchen cooks what the slip says.")
    assert not page_errors(page), page_errors(page)


def test_the_route_dims_what_a_trace_does_not_have_and_says_why(browser, lesson_files):
    page = _open(browser, lesson_files["beijing-direct", "zh"].as_uri(), (1280, 720))
    states = page.evaluate(
        "() => [...document.querySelectorAll('.fv-rcell')].map((c) => [c.dataset.message, c.dataset.state])"
    )
    assert {m for m, s in states if s == "in_process"} == {"2", "5", "6", "7"}, states
    expect(page.locator('.fv-rcell[data-message="5"]')).to_contain_text("进程内")
    page.context.close()
    hops = _hops(lesson_files["tool-choice-none", "en"])
    page = _open(browser, lesson_files["tool-choice-none", "en"].as_uri(), (1280, 720))
    for n in range(4, 9):
        expect(page.locator(f'.fv-rcell[data-message="{n}"]')).to_have_attribute("data-state", "missing")
    page.locator('.fv-rcell[data-message="6"]').click()  # no hop to go to: the line below says why instead
    expect(page.locator(".fv-rdetail")).to_contain_text("answered without asking for a tool")
    assert page.evaluate("() => window.__viewer.index") == 0 and len(hops) == 12
    assert not page_errors(page), page_errors(page)


def test_the_route_fits_at_720p_and_in_presenter_mode(browser, lesson_files):
    for size in SIZES:
        for lang in ("zh", "en"):
            page = _open(browser, lesson_files["unknown-tool", lang].as_uri(), size, locale="zh-CN")
            for presenter in (False, True):
                _presenter(page, presenter)
                _goto(page, 13)
                seen = page.evaluate(_ROUTE)
                where = (size, lang, presenter, seen)
                assert seen["stripRight"] <= seen["width"] + 0.5, where
                assert seen["diagramTop"] >= seen["stripBottom"] - 0.5, where
                assert seen["diagramHeight"] >= 0.5 * seen["height"] - 40, where  # the diagram keeps its room
                assert seen["cellNumber"] >= (18 if presenter else 15) and seen["cellName"] >= (16 if presenter else 12)
                assert page.evaluate(CURRENT_IN_VIEW)["ok"], where
            assert not page_errors(page), page_errors(page)
            page.context.close()


def test_a_question_shows_before_its_hop_and_the_reveal_marks_the_right_choice(browser, lesson_files):
    path = lesson_files["unknown-tool", "en"]
    hops = _hops(path)
    # asked before the tools/call of a tool the server does not have (the answer, -32602, comes on the next hop)
    asked = next(i for i, h in enumerate(hops) if "question" in h and h["kind"] == "mcp.request")
    question = hops[asked]["question"]
    page = _open(browser, path.as_uri(), (1280, 720))
    # Off by default: the hop shows at once.
    _goto(page, asked)
    expect(page.locator(".fv-quiz-card")).to_be_hidden()
    expect(page.locator(".fv-label")).to_contain_text("mcp.request")
    _goto(page, asked - 1)
    toggle = page.locator(".fv-questions-toggle")
    expect(toggle).to_have_text(f"Questions ({sum('question' in h for h in hops)})")
    toggle.click()
    expect(page.locator("[data-flow-viewer]")).to_have_class(re.compile(r"\bfv-quiz\b"))
    page.locator(".fv-title").click()
    page.keyboard.press("ArrowRight")
    page.locator(f"[data-flow-viewer][data-current='{asked + 1}'][data-asking='1']").wait_for()
    card = page.locator(".fv-quiz-card")
    expect(card).to_have_attribute("data-state", "asking")
    expect(card).to_contain_text(question["ask"]["en"])
    expect(card.locator(".fv-choice")).to_have_count(len(question["choices"]))
    # Before the reveal nothing tells: no label, no JSON, the arrow's words veiled, the list's line too.
    expect(page.locator(".fv-label")).to_have_text("")
    expect(page.locator(".fv-json")).not_to_contain_text("tools/call")
    expect(page.locator(".fv-teach")).to_be_hidden()
    fill = page.evaluate("() => getComputedStyle(document.querySelector('.fv-svg g.fv-ask text')).fill")
    assert fill in ("transparent", "rgba(0, 0, 0, 0)"), fill
    expect(page.locator(".fv-list li.fv-on .fv-li-label")).to_be_hidden()
    wrong = next(k for k in range(len(question["choices"])) if k + 1 != question["answer"])
    page.keyboard.press("abcde"[wrong])
    expect(card.locator(f'.fv-choice[data-choice="{wrong + 1}"]')).to_have_class(re.compile("fv-picked"))
    page.keyboard.press("ArrowRight")  # reveals; does not move
    page.locator(f"[data-flow-viewer][data-current='{asked + 1}'][data-asking='']").wait_for()
    assert page.evaluate("() => window.__viewer.index") == asked
    expect(card).to_have_attribute("data-state", "revealed")
    right = card.locator(".fv-choice.fv-right")
    expect(right).to_have_count(1)
    expect(right).to_have_attribute("data-choice", str(question["answer"]))
    expect(right).to_contain_text(question["choices"][question["answer"] - 1]["en"])
    expect(card.locator(".fv-choice.fv-wrong")).to_have_attribute("data-choice", str(wrong + 1))
    expect(card).to_contain_text(question["why"]["en"])
    expect(page.locator(".fv-json")).to_contain_text("tools/call")
    expect(page.locator(".fv-teach")).to_be_visible()
    page.keyboard.press("ArrowRight")
    _wait_for(page, asked + 2)
    expect(card).to_be_hidden()  # no question at the next hop
    # Back again: it stays revealed; the Reveal button works as the key does on the next question.
    page.keyboard.press("ArrowLeft")
    _wait_for(page, asked + 1)
    expect(card).to_have_attribute("data-state", "revealed")
    nxt = next(i for i, h in enumerate(hops) if "question" in h and i > asked)
    _goto(page, nxt)
    expect(card).to_have_attribute("data-state", "asking")
    card.locator(".fv-reveal").click()
    expect(card).to_have_attribute("data-state", "revealed")
    # The Next button reveals a waiting question before it moves on.
    _goto(page, asked - 1)
    page.locator(".fv-next").click()
    _wait_for(page, asked + 1)
    expect(card).to_have_attribute("data-state", "revealed")  # revealed once, it stays so
    assert not page_errors(page), page_errors(page)
    # On a fresh page (every question of this one is revealed by now), the Next button reveals the first question.
    fresh = _open(browser, path.as_uri(), (1280, 720))
    fresh.locator(".fv-questions-toggle").click()
    first = next(i for i, h in enumerate(hops) if "question" in h)
    _goto(fresh, first - 1)
    fresh.locator(".fv-next").click()
    fresh.locator(f"[data-flow-viewer][data-current='{first + 1}'][data-asking='1']").wait_for()
    fresh.locator(".fv-next").click()
    fresh.locator(f"[data-flow-viewer][data-current='{first + 1}'][data-asking='']").wait_for()
    fresh.locator(".fv-next").click()
    _wait_for(fresh, first + 2)
    assert not page_errors(fresh), page_errors(fresh)


def test_autoplay_stops_at_a_question(browser, lesson_files):
    path = lesson_files["beijing-mcp", "en"]
    hops = _hops(path)
    first = next(i for i, h in enumerate(hops) if "question" in h)
    page = _open(browser, path.as_uri(), (1280, 720))
    page.locator(".fv-questions-toggle").click()
    page.locator(".fv-speed").select_option("0.5")
    page.locator(".fv-play").click()
    page.locator(f"[data-flow-viewer][data-current='{first + 1}'][data-asking='1']").wait_for()
    page.wait_for_timeout(1200)
    assert page.evaluate("() => window.__viewer.index") == first
    expect(page.locator(".fv-play")).not_to_contain_text("Pause")


def test_the_step_page_has_the_route_and_its_questions_toggle(browser, app_url):
    page = _open(browser, app_url, (1280, 720))
    expect(page.locator(".fv-rcell")).to_have_count(11)
    expect(page.locator(".fv-rcell.fv-here")).to_have_attribute("data-message", "0")
    seen = page.evaluate(_ROUTE)
    # The route strip leaves the diagram its room: with the hop's text under it (whole, see test_layout_browser.py)
    # still about eight arrows.
    assert seen["diagramHeight"] >= 260, seen
    page.locator("[data-testid='stSidebar'] .st-key-step_quiz_en").get_by_text("Questions").click()
    expect(page.locator("[data-flow-viewer]")).to_have_class(re.compile(r"\bfv-quiz\b"))
    page.locator(".fv-title").click()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.locator("[data-flow-viewer][data-current='3']").wait_for()
    page.keyboard.press("ArrowRight")
    # The beijing-mcp sample asks before hop 4, the answer to initialize.
    page.locator("[data-flow-viewer][data-current='4'][data-asking='1']").wait_for()
    expect(page.locator(".fv-quiz-card")).to_contain_text("initialize")
    page.keyboard.press("Enter")
    page.locator("[data-flow-viewer][data-current='4'][data-asking='']").wait_for()
    expect(page.locator(".fv-choice.fv-right")).to_have_attribute("data-choice", "1")
    assert not page_errors(page), page_errors(page)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_screenshots_of_the_route_and_the_questions(browser, lesson_files, lang):
    """For a person to look at: the key hops of several samples, both sizes, normal and presenter."""
    locale = "zh-CN" if lang == "zh" else "en-US"
    key_hops = {"beijing-mcp": 12, "beijing-direct": 6, "unknown-tool": 13, "tool-choice-none": 10}
    for name, index in key_hops.items():
        path = lesson_files[name, lang]
        has_question = "question" in _hops(path)[index]
        for size in SIZES:
            page = _open(browser, path.as_uri(), size, locale=locale)
            page.locator(".fv-captions-toggle").click()
            if has_question:
                page.locator(".fv-questions-toggle").click()
            for presenter in (False, True):
                _presenter(page, presenter)
                _goto(page, index)
                mode = "presenter" if presenter else "normal"
                stem = f"route-{name}-{lang}-{mode}-{size[0]}x{size[1]}"
                assert _shot(page, f"{stem}.png").stat().st_size > 10_000
                if has_question and not presenter:
                    page.locator(".fv-choice").first.click()
                    page.locator(".fv-reveal").click()
                    page.locator("[data-flow-viewer][data-asking='']").wait_for()
                    _shot(page, f"{stem}-revealed.png")
            assert not page_errors(page), page_errors(page)
            page.context.close()


def test_a_mode_change_keeps_the_questions_and_captions_the_viewer_turned_on(browser, app_url):
    """The viewer's own buttons turn the questions and the captions on; P in and Esc out of presenter mode (each a
    rerun of the Step page, whose sidebar toggles are still off) keep both on."""
    page = _open(browser, app_url, (1280, 720))
    root = page.locator("[data-flow-viewer]")
    questions, captions = page.locator(".fv-questions-toggle"), page.locator(".fv-captions-toggle")
    questions.click()
    captions.click()
    for key, mode in (("p", "presenter"), ("Escape", "normal"), ("p", "presenter")):
        root.focus()  # the keys go to the viewer, not to the button pressed last
        page.keyboard.press(key)
        expect(root).to_have_attribute("data-mode", mode)
        page.wait_for_timeout(1500)  # the page's rerun after the mode change reaches the viewer
        expect(questions).to_have_attribute("aria-pressed", "true")
        expect(captions).to_have_attribute("aria-pressed", "true")
    assert not page_errors(page), page_errors(page)


# Text in the JSON card under the line a highlight draws (its outline's band above and below the marked field).
_UNDER_MARKS = """() => {
  const json = window.__viewer.root.querySelector('.fv-json');
  const hidden = [];
  for (const mark of json.querySelectorAll('.fv-mark')) {
    const style = getComputedStyle(mark);
    const width = parseFloat(style.outlineWidth), reach = parseFloat(style.outlineOffset) + width;
    const box = mark.getBoundingClientRect();
    const bands = [[box.top - reach, box.top - reach + width], [box.bottom + reach - width, box.bottom + reach]];
    const walker = document.createTreeWalker(json, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const t of range.getClientRects()) {
        if (bands.some(([a, b]) => t.top < b && t.bottom > a) && t.right > box.left - reach && t.left < box.right + reach)
          hidden.push(node.textContent.slice(0, 30));
      }
    }
  }
  return hidden;
}"""


@pytest.mark.parametrize("size", SIZES)
def test_a_highlight_hides_no_text_of_the_lines_around_it(browser, html_files, size):
    """At tools/call (Beijing, hop 13) two fields are marked one under the other: neither highlight's line crosses
    the text of a line (`get_weather` keeps its underscore)."""
    page = _open(browser, html_files["beijing-mcp"].as_uri(), size)
    for presenter in (False, True):
        _presenter(page, presenter)
        _goto(page, 12)
        assert page.locator(".fv-json .fv-mark").count() >= 2
        assert page.evaluate(_UNDER_MARKS) == [], (size, presenter)


def test_the_card_sets_the_recorders_fields_apart_from_what_crossed(browser, html_files):
    """Between the MCP server and its function (Beijing, hop 14) the card opens on the payload; the tool_call_id
    the recorder pairs the hop by stands below it, under a note saying it crossed no boundary."""
    page = _open(browser, html_files["beijing-mcp"].as_uri(), (1280, 720))
    _goto(page, 13)
    json = page.locator(".fv-json")
    expect(json.locator(".fv-key").first).to_have_text('"payload"')
    box = json.locator(".fv-recorder-box")
    expect(box.locator(".fv-recorder-note")).to_contain_text("crossed no boundary")
    expect(box.locator(".fv-key", has_text="tool_call_id")).to_be_visible()
    assert json.locator(".fv-key", has_text="tool_call_id").count() == 1  # only there


@pytest.mark.parametrize(("lang", "size"), [("zh", (1280, 720)), ("en", (1920, 1080))])
def test_an_article_wrong_cell_opens_its_whole_note_naming_the_article(browser, lesson_files, lang, size):
    """Message 7's "article wrong" cell opens the correction whole (not cut with an ellipsis), naming the article;
    Esc closes it, and its button goes to the message. The "Articles" row names article 000."""
    path = lesson_files["beijing-mcp", lang]
    hops = _hops(path)
    page = _open(browser, path.as_uri(), size, locale="zh-CN" if lang == "zh" else "en-US")
    for presenter in (False, True):
        _presenter(page, presenter)
        page.locator('.fv-rcell[data-message="7"]').click()
        note = page.locator(".fv-rnote-pop")
        expect(note).to_be_visible()
        expect(note).to_contain_text("CallToolResult")
        expect(note.locator(".fv-rnote-source")).to_contain_text("000")
        whole = page.evaluate(
            "() => { const n = document.querySelector('.fv-rnote-pop'); const r = n.getBoundingClientRect();"
            " return n.scrollHeight <= n.clientHeight + 1 && r.bottom <= innerHeight && r.top >= 0; }"
        )
        assert whole, (lang, size, presenter)
        assert page.evaluate("() => window.__viewer.index") == 0  # opening the note is not a step
        page.keyboard.press("Escape")
        expect(note).to_be_hidden()
        expect(page.locator("[data-flow-viewer]")).to_have_attribute(
            "data-mode", "presenter" if presenter else "normal"
        )
    page.locator('.fv-rcell[data-message="7"]').click()
    page.locator(".fv-rnote-pop button").first.click()
    _wait_for(page, next(i for i, h in enumerate(hops) if h["message"] == 7) + 1)
    expect(page.locator(".fv-rnote-pop")).to_be_hidden()
    assert "000" in (page.locator(".fv-rrowlabel").first.get_attribute("title") or "")
    assert not page_errors(page), page_errors(page)


_QUIZ_SIZES = """() => {
  const px = (sel) => { const el = document.querySelector(sel); return el ? parseFloat(getComputedStyle(el).fontSize) : 0; };
  return { ask: px('.fv-quiz-card .fv-quiz-ask'), right: px('.fv-quiz-card .fv-choice.fv-right'),
           why: px('.fv-quiz-card .fv-quiz-why'), head: px('.fv-quiz-card .fv-quiz-head') };
}"""


@pytest.mark.parametrize("size", SIZES)
def test_a_revealed_answer_is_readable_from_the_back_row(browser, lesson_files, size):
    """In presenter mode the question revealed, its right answer and the reason are at least the teaching text's
    size on a projector (20 px at 1280 × 720, 24 at 1920 × 1080): the class reads them exactly then."""
    path = lesson_files["beijing-mcp", "zh"]
    asked = next(i for i, hop in enumerate(_hops(path)) if "question" in hop)
    page = _open(browser, path.as_uri(), size, locale="zh-CN")
    page.locator(".fv-questions-toggle").click()
    _presenter(page, True)
    _goto(page, asked)
    page.locator(".fv-choice").first.click()
    page.locator(".fv-reveal").click()
    page.locator("[data-flow-viewer][data-asking='']").wait_for()
    sizes = page.evaluate(_QUIZ_SIZES)
    least = {"ask": BACK_ROW[size]["teach"], "right": BACK_ROW[size]["teach"], "why": BACK_ROW[size]["teach"]}
    assert all(sizes[k] >= v - 0.01 for k, v in least.items()) and sizes["head"] >= 16, (size, sizes)
    assert page.evaluate(CURRENT_IN_VIEW)["ok"]


# Every lifeline's name on screen in the diagram's box: its own head box, or the copy kept at the top.
_NAMES_IN_VIEW = """() => {
  const root = window.__viewer.root;
  const box = root.querySelector('.fv-diagram').getBoundingClientRect();
  const seen = (g) => { const r = g.getBoundingClientRect(); return r.height > 0 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5; };
  const kept = root.querySelector('.fv-heads.fv-on') ? [...root.querySelectorAll('.fv-heads g.fv-kept-head')] : [];
  const own = [...root.querySelectorAll('.fv-svg g.node[id^="head-"]')];
  return own.length > 0 && own.every((g, i) => seen(g) || (kept[i] && seen(kept[i])));
}"""


@pytest.mark.parametrize("size", SIZES)
def test_the_lifelines_names_stay_in_view_while_the_diagram_scrolls(browser, html_files, size):
    """On every hop of the main sample, normal and presenter: each lifeline's name is on screen (once the drawing's
    own scroll away, a copy stays at the top of the box), and the current arrow is below it (CURRENT_IN_VIEW)."""
    page = _open(browser, html_files["beijing-mcp"].as_uri(), size)
    lost: list[str] = []
    for presenter in (False, True):
        _presenter(page, presenter)
        for i in range(20):
            _goto(page, i)
            page.wait_for_timeout(30)
            if not page.evaluate(_NAMES_IN_VIEW):
                lost.append(f"{'presenter' if presenter else 'normal'} hop {i + 1}")
            if not page.evaluate(CURRENT_IN_VIEW)["ok"]:
                lost.append(f"{'presenter' if presenter else 'normal'} hop {i + 1}: current arrow hidden")
    assert not lost, lost
