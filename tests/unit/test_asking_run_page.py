"""The Run page on the demo server's tools that ask back, through Streamlit's own test harness: the run pauses at the
server's question, the page shows its message and a form built from its schema, and the answer given there (accept,
decline, or none before the timeout) goes back to the server and the run goes on."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from flow import ASKING_QUESTIONS
from helpers import ROOT

HERE_ZH, HERE_EN = ASKING_QUESTIONS["elicitation"]


def _asking(lang: str = "en", *, question: str = HERE_ZH, timeout_s: int = 60) -> AppTest:
    """The Run page with the tools that ask back on, the pace off, a question typed: not run yet."""
    at = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=60).run()
    at.radio(key="lang_choice").set_value(lang).run()
    at.session_state["app"].choices["pace"] = False
    at.switch_page("app_pages/run.py").run()
    at.toggle(key=f"asks_{lang}").set_value(True).run()
    at.number_input(key=f"elicit_timeout_{lang}").set_value(timeout_s).run()
    at.text_input(key="question").set_value(question).run()
    assert not at.exception, at.exception
    return at


def _paused(at: AppTest) -> AppTest:
    """Press Run; the page comes back when the run waits for the form (or is over)."""
    at.button(key="run").click().run()
    assert not at.exception, at.exception
    return at


def _finished(at: AppTest):
    state = at.session_state["app"]
    assert state.live is None, "the run is still under way"
    return state.loaded[state.last_run].trace


def _user_hops(trace):
    return [h for h in trace.hops if h.kind == "user.input"]


def test_the_run_pauses_at_the_question_and_an_accepted_city_finishes_it():
    at = _paused(_asking())
    state = at.session_state["app"]
    assert state.live is not None and state.live.answerer.asked is not None, "the run should wait for the user"
    # The server's message and its choices, as the form shows them; the Run button waits for the answer.
    assert any("Which city are you in?" in i.value for i in at.info), [i.value for i in at.info]
    [city] = [r for r in at.radio if r.key == "ask_1_city"]
    assert city.options[:2] == ["北京", "上海"] and city.value is None
    assert at.button(key="run").disabled
    assert any(h.kind == "user.input" and h.direction == "request" for h in state.live.hops)
    city.set_value("上海")
    at.button(key="ask_accept").click().run()
    assert not at.exception, at.exception
    trace = _finished(at)
    assert trace.meta.outcome == "ok", trace.meta.error
    asked, answered = _user_hops(trace)
    assert (asked.source, asked.target, answered.source, answered.target) == ("app", "user", "user", "app")
    assert answered.payload["action"] == "accept" and answered.payload["content"] == {"city": "上海"}
    assert answered.payload["answered_by"] == "form"
    # The server asked in the middle of tools/call (2025-11-25): the call's timeout outlasts the form's wait.
    assert trace.meta.settings["mcp_timeout_s"] > trace.meta.settings["elicit_timeout_s"] == 60
    assert "上海" in (trace.meta.answer or "") or "Shanghai" in (trace.meta.answer or ""), trace.meta.answer
    # The page says how the run went, and stepping it works as for any run.
    assert at.success and not at.button(key="run").disabled
    assert "ask_accept" not in [b.key for b in at.button]
    at.switch_page("app_pages/step.py").run()
    assert not at.exception, at.exception
    [viewer] = at.get("bidi_component")
    shown = json.loads(viewer.proto.json)
    bundle = (json.loads(shown) if isinstance(shown, str) else shown)["bundle"]
    assert len(bundle["hops"]) == len(trace.hops) and "Which city are you in?" in json.dumps(bundle)


def test_accept_without_a_city_asks_for_it_and_the_run_still_waits():
    at = _paused(_asking())
    at.button(key="ask_accept").click().run()
    assert not at.exception, at.exception
    assert any("Fill in first: 城市 · City" in e.value for e in at.error), [e.value for e in at.error]
    assert at.session_state["app"].live.answerer.asked is not None


def test_declining_makes_the_tool_say_the_user_did_not_say():
    at = _paused(_asking("zh", question=HERE_ZH))
    assert any("Which city are you in?" in i.value for i in at.info)
    at.button(key="ask_decline").click().run()
    assert not at.exception, at.exception
    trace = _finished(at)
    answered = _user_hops(trace)[-1]
    assert answered.payload["action"] == "decline" and "content" not in answered.payload
    [result] = [h for h in trace.hops if h.kind == "mcp.response" and "did not say" in str(h.payload)]
    assert "(decline)" in str(result.payload)


def test_a_question_nobody_answers_is_cancelled_at_the_timeout():
    at = _paused(_asking(timeout_s=1))
    assert at.session_state["app"].live.answerer.asked is not None
    time.sleep(1.5)  # the page's timer would look again each second; the harness looks once, here
    at.run()
    assert not at.exception, at.exception
    trace = _finished(at)
    answered = _user_hops(trace)[-1]
    assert answered.payload["action"] == "cancel" and answered.payload["timed_out"] == 1.0
    assert "answered_by" not in answered.payload
    assert any("did not say" in str(h.payload) and "(cancel)" in str(h.payload) for h in trace.hops)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_examples_are_the_questions_on_which_each_tool_asks(lang):
    at = _asking(lang)
    [pills] = at.get("button_group")
    shown = list(pills.proto.options) if hasattr(pills.proto, "options") else []
    texts = [o.content for o in shown]
    assert [q.split(" · ")[0] for q in texts] == [pair[0 if lang == "zh" else 1] for pair in ASKING_QUESTIONS.values()]
    # The roots are the demo's class notes, said on the page; no folder can be typed.
    said = "演示自带的课堂笔记" if lang == "zh" else "the class notes that come with the demo"
    assert any(said in c.value for c in at.caption)
    assert not [w for w in at.text_input if "root" in w.label.lower() or "文件夹" in w.label]


@pytest.mark.parametrize("transport", ["memory", "stdio"])
def test_in_the_2026_era_the_form_answers_an_input_required_round(transport):
    at = _asking()
    at.radio(key="era_en").set_value("modern").run()
    at.radio(key="transport_en").set_value(transport).run()
    _paused(at)
    [city] = [r for r in at.radio if r.key == "ask_1_city"]
    city.set_value("上海")
    at.button(key="ask_accept").click().run()
    assert not at.exception, at.exception
    trace = _finished(at)
    assert trace.meta.outcome == "ok", trace.meta.error
    assert _user_hops(trace)[-1].payload["content"] == {"city": "上海"}
    results = [h.payload for h in trace.hops if h.kind == "mcp.response"]
    assert any("input_required" in json.dumps(p) for p in results), "the first answer asks for input"
    assert "Shanghai" in json.dumps(results[-1]) or "上海" in json.dumps(results[-1], ensure_ascii=False)


@pytest.fixture()
def provider() -> Any:
    """The mock model over HTTP, as a provider the host pays for would answer."""
    import threading

    from flow.backends.mock_http import make_server

    server = make_server(0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _sampling(provider: str, *, approve_all: bool = False) -> AppTest:
    """The Run page asking the sampling question of a provider (the mock over HTTP), run and paused if it asks."""
    at = _asking(question=ASKING_QUESTIONS["sampling"][0])
    at.radio(key="backend_en").set_value("provider").run()
    [preset] = [s for s in at.selectbox if s.key and s.key.startswith("preset_")]
    preset.set_value(next(p for p in preset.options if "Ollama" in str(p))).run()
    [url] = [i for i in at.text_input if i.key and i.key.startswith("base_url_")]
    url.set_value(provider).run()
    [name] = [i for i in at.text_input if i.key and i.key.startswith("model_")]
    name.set_value("mock").run()
    if approve_all:
        at.toggle(key="approve_sampling_en").set_value(True).run()
    return _paused(at)


def test_a_sampling_request_waits_for_approval_and_the_edit_is_what_the_model_gets(provider):
    at = _sampling(provider)
    asked = at.session_state["app"].live.answerer.asked
    assert asked is not None and asked.question.mode == "sampling", "the run should wait for the approval"
    assert any("asks to use your model" in w.value for w in at.warning), [w.value for w in at.warning]
    at.number_input(key="sampling_1_max_tokens").set_value(40)  # sent with the form, when it is submitted
    at.button(key="sampling_approve").click().run()
    assert not at.exception, at.exception
    trace = _finished(at)
    answered = _user_hops(trace)[1]
    assert answered.payload["answered_by"] == "form" and answered.payload["content"] == {"maxTokens": 40}
    [sent] = [h for h in trace.hops if h.kind == "llm.request" and "for_server" in h.payload]
    assert sent.payload["body"]["max_tokens"] == 40
    assert trace.meta.settings["sampling_approval"] == "asked"


def test_denied_on_the_page_the_model_is_not_called(provider):
    at = _sampling(provider)
    at.button(key="sampling_deny").click().run()
    assert not at.exception, at.exception
    trace = _finished(at)
    assert not [h for h in trace.hops if h.kind == "llm.request" and "for_server" in h.payload]
    assert any(h.kind == "mcp.error" and h.payload["error"]["code"] == -1 for h in trace.hops)


def test_the_pages_switch_approves_the_run_and_the_trace_names_it(provider):
    at = _sampling(provider, approve_all=True)
    trace = _finished(at)
    assert not _user_hops(trace) and trace.meta.settings["approve_sampling"] is True
    assert trace.meta.settings["sampling_approval"] == "operator"
