"""The Run page in hosted-MCP mode, through Streamlit's own test harness: who the MCP client is, said under the mode;
Chat Completions refused with the reason; approval on and the app's answer sent; a real provider without a server it
can reach stopped with the run's one line."""

from __future__ import annotations

from test_app import app, last_trace

from flow.text.errors import error_line


def _hosted(lang: str = "en", api: str = "responses"):
    at = app(lang)
    at.switch_page("app_pages/run.py").run()
    at.radio(key=f"mode_{lang}").set_value("hosted").run()
    at.radio(key=f"api_{lang}").set_value(api).run()
    assert not at.exception, at.exception
    return at


def test_the_mode_says_who_the_mcp_client_is_in_each_language():
    for lang, said in (("en", "The MCP client is at the model provider"), ("zh", "MCP 客户端在模型服务商那里")):
        at = _hosted(lang)
        assert any(c.value.startswith(said) for c in at.caption), [c.value for c in at.caption]
        at.radio(key=f"mode_{lang}").set_value("mcp").run()
        assert not any(c.value.startswith(said) for c in at.caption)


def test_hosted_with_chat_completions_says_why_and_runs_nothing():
    at = _hosted(api="chat")
    assert any("Chat Completions has no field" in w.value for w in at.warning), [w.value for w in at.warning]
    assert at.button(key="run").disabled
    at.radio(key="api_en").set_value("responses").run()
    assert not at.button(key="run").disabled and not any("Chat Completions has no" in w.value for w in at.warning)


def test_approval_required_and_denied_reaches_the_provider_and_no_tool_is_called():
    at = _hosted()
    assert at.radio(key="approval_answer_en").disabled  # no answer to give until approval is required
    at.toggle(key="require_approval_en").set_value(True).run()
    at.radio(key="approval_answer_en").set_value("deny").run()
    at.button(key="run").click().run()
    assert not at.exception, at.exception
    trace = last_trace(at)
    assert trace.meta.mode == "hosted" and trace.meta.outcome == "ok", trace.meta.error
    first, second = (h.payload["body"] for h in trace.hops if h.kind == "llm.request")
    assert first["tools"][0]["type"] == "mcp" and first["tools"][0]["require_approval"] == "always"
    [answer] = [i for i in second["input"] if i.get("type") == "mcp_approval_response"]
    assert answer["approve"] is False
    methods = [h.payload.get("method") for h in trace.hops if h.kind == "mcp.request"]
    assert "tools/list" in methods and "tools/call" not in methods


def test_messages_offers_no_approval_and_runs_through_the_connector():
    at = _hosted(api="messages")
    assert not [w for w in at.toggle if w.key == "require_approval_en"]
    assert any("no approval field" in c.value for c in at.caption)
    at.button(key="run").click().run()
    assert not at.exception, at.exception
    trace = last_trace(at)
    [body] = [h.payload["body"] for h in trace.hops if h.kind == "llm.request"]
    assert body["tools"] == [{"type": "mcp_toolset", "mcp_server_name": body["mcp_servers"][0]["name"]}]
    assert any(h.kind == "mcp.reported" for h in trace.hops)


def test_a_real_provider_with_the_loopback_demo_server_gets_the_runs_one_line():
    at = _hosted()
    at.radio(key="backend_en").set_value("provider").run()
    [url] = [w for w in at.text_input if w.label == "Base URL"]
    url.set_value("http://127.0.0.1:9/v1").run()  # nothing listens there, and nothing is sent: the run stops first
    [typed] = [w for w in at.text_input if w.label.startswith("API key")]
    typed.set_value("sk-test").run()
    at.button(key="run").click().run()
    assert not at.exception, at.exception
    trace = last_trace(at)
    assert trace.meta.outcome != "ok" and not any(h.kind == "llm.request" for h in trace.hops)
    shown = [e.value for e in at.error]
    assert any(error_line("hosted_unreachable", "en") in s for s in shown), shown
