"""Every page through Streamlit's own test harness: loads, steps, runs, compares, filters, rejects bad files."""

from __future__ import annotations

import json
import shlex
import sys

import pytest
from streamlit.testing.v1 import AppTest

import flow
from helpers import ROOT

PAGES = ["app_pages/run.py", "app_pages/step.py", "app_pages/compare.py", "app_pages/hops.py"]


def app(lang: str = "en", *, pace: bool = False) -> AppTest:
    """The app on its first page; the Run page's pace (a hop every 0.25 s) off unless asked for, to keep runs quick."""
    at = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=60).run()
    at.radio(key="lang_choice").set_value(lang).run()
    assert not at.exception
    at.session_state["app"].choices["pace"] = pace
    return at


def last_trace(at: AppTest):
    """The trace of the app's last run."""
    state = at.session_state["app"]
    return state.loaded[state.last_run].trace


def viewer(at: AppTest) -> dict:
    """What the Step through page handed its viewer: {"bundle": ..., "start": index}."""
    [element] = at.get("bidi_component")
    data = json.loads(element.proto.json)
    return json.loads(data) if isinstance(data, str) else data  # sent as JSON text


def header(at: AppTest) -> str:
    """Where the viewer opens, as its header says it: "Step 2a · hop 3 of 20"."""
    data = viewer(at)
    hops = data["bundle"]["hops"]
    return f"Step {hops[data['start']]['number']} · hop {data['start'] + 1} of {len(hops)}"


def report_hop(at: AppTest, hop: int) -> AppTest:
    """Run the page as the browser does after the viewer's `setStateValue("hop", N)`.

    AppTest has no handle on a custom component's state, so the test sends the component's JSON
    state beside the other widgets' values, as the browser's widget manager would."""
    states = at._tree.get_widget_states()
    widget = states.widgets.add()
    widget.id = at.get("bidi_component")[0].proto.id
    widget.json_value = json.dumps({"hop": {"trace": viewer(at)["bundle"]["trace"], "hop": hop}})
    return at._run(states)


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_loads_in_both_languages(page, lang):
    at = app(lang)
    at.switch_page(page).run()
    assert not at.exception, at.exception
    assert not at.error
    text = " ".join(
        v if isinstance(v := getattr(e, "value", ""), str) and v else str(getattr(e, "label", v)) for e in at.main
    )
    assert any("\u4e00" <= c <= "\u9fff" for c in text) if lang == "zh" else "Step" in text or "Run" in text or text


def test_a_sample_steps_forward_and_back():
    at = app()
    assert "hop 1 of 20" in header(at) and at.query_params["hop"] == "1"
    bundle = viewer(at)["bundle"]
    assert bundle["svg"].startswith("<svg") and len(bundle["rows"]) == 20
    assert "does not run anything" in next(h for h in bundle["hops"] if h["number"] == "4")["teach"]["en"]
    # The browser steps; the page hears where it went, keeps it, and puts it in the URL.
    report_hop(at, 3)
    assert not at.exception and "hop 3 of 20" in header(at) and "Step 2a" in header(at)
    assert at.session_state["app"].index == 2 and at.query_params["hop"] == "3"
    report_hop(at, 2)
    assert "hop 2 of 20" in header(at) and at.query_params["hop"] == "2"
    report_hop(at, 99)  # never past the end, whatever arrives
    assert "Step 10" in header(at) and "hop 20 of 20" in header(at)


def test_a_link_opens_at_the_hop_it_names():
    at = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=60)
    at.query_params["hop"] = "7"
    at.run()
    assert not at.exception and "hop 7 of 20" in header(at)
    at.query_params["hop"] = "not a number"
    at.run()
    assert not at.exception and at.query_params["hop"] == "7"


def test_a_link_or_a_reload_opens_the_sample_it_names():
    at = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=60)
    at.query_params["sample"] = "two-rounds"
    at.query_params["hop"] = "5"
    at.run()
    assert not at.exception and "hop 5 of 28" in header(at)
    lang = at.session_state["app"].lang
    at.selectbox(key=f"step_sample_{lang}").set_value("sample:beijing-direct").run()
    assert "hop 1 of 11" in header(at) and at.query_params["sample"] == "beijing-direct"
    # A name that is no sample (or a path) opens what the page would open anyway.
    for name in ("../../etc/passwd", "nothing-like-this", ""):
        other = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=60)
        other.query_params["sample"] = name
        other.run()
        assert not other.exception and "hop 1 of 20" in header(other)


def test_choosing_another_sample_starts_at_its_first_hop():
    at = app()
    report_hop(at, 5)
    beijing = viewer(at)["bundle"]["trace"]
    at.selectbox(key="step_sample_en").set_value("sample:two-rounds").run()
    assert "hop 1 of 28" in header(at) and at.query_params["hop"] == "1"
    # A late report about the trace shown before moves nothing.
    states = at._tree.get_widget_states()
    widget = states.widgets.add()
    widget.id = at.get("bidi_component")[0].proto.id
    widget.json_value = json.dumps({"hop": {"trace": beijing, "hop": 9}})
    at._run(states)
    assert "hop 1 of 28" in header(at)


@pytest.mark.parametrize("mode", ["direct", "mcp"])
def test_the_run_page_completes_a_mock_run_and_opens_it(mode):
    at = app()
    at.switch_page("app_pages/run.py").run()
    at.radio(key="mode_en").set_value(mode).run()
    at.button(key="run").click().run()
    assert not at.exception, at.exception
    state = at.session_state["app"]
    run = state.loaded[state.last_run]
    assert run.trace.meta.mode == mode and run.trace.meta.outcome == "ok"
    assert state.step_key == state.last_run
    # The page stays, says what happened, and offers the hop it points at (the model's decision, message 4).
    said = at.success[0].value
    assert said.startswith("The model called get_weather(city=北京) (hop ") and "; the model answered (hop " in said
    decision = next(h for h in run.trace.hops if h.kind == "llm.response")
    assert at.button(key="open_outcome").label == f"Open Step through at hop {decision.seq}"
    # The step page now shows the run.
    at.switch_page("app_pages/step.py").run()
    assert f"hop 1 of {len(run.trace.hops)}" in header(at)


def test_a_run_that_recovered_says_so_and_opens_where_it_went_wrong():
    at = app()
    at.switch_page("app_pages/run.py").run()
    at.selectbox(key="mock_model_en").set_value("mock-bad-json").run()
    at.button(key="run").click().run()
    assert not at.exception, at.exception
    said = at.warning[0].value
    assert said.startswith("The model sent arguments for get_weather that are not valid JSON (hop 11)")
    assert "the model tried again with get_weather(city=北京)" in said and "\n" not in said
    hops = len(last_trace(at).hops)
    at.button(key="open_outcome").click().run()
    assert not at.exception, at.exception
    assert header(at) == f"Step 4 · hop 11 of {hops}"  # the model's reply with the broken arguments
    # Back on the Run page the line is still there, with the run's hops to look back at, in the other language too.
    at.switch_page("app_pages/run.py").run()
    at.radio(key="lang_choice").set_value("zh").run()
    assert at.warning[0].value.startswith("模型给 get_weather 的参数不是合法的 JSON（第 11 跳）")
    assert f"这次运行的 {hops} 跳" in [e.label for e in at.expander]
    at.button(key="open_start").click().run()
    assert header(at).startswith("Step 0") and f"hop 1 of {hops}" in header(at)


def test_the_run_page_says_it_paces_the_hops_and_lets_the_teacher_turn_it_off():
    at = app(pace=True)
    at.switch_page("app_pages/run.py").run()
    pace = at.toggle(key="pace_en")
    assert pace.value is True and pace.label == "Show the hops one by one (0.25 s each)"
    assert "the trace keeps the real times" in pace.help
    pace.set_value(False).run()
    assert at.session_state["app"].choices["pace"] is False


def test_a_failing_run_shows_one_line_and_keeps_earlier_results():
    at = app()
    at.switch_page("app_pages/run.py").run()
    at.button(key="run").click().run()
    first = at.session_state["app"].last_run
    at.switch_page("app_pages/run.py").run()
    at.selectbox(key="mock_model_en").set_value("mock-error-401").run()
    at.button(key="run").click().run()
    assert not at.exception
    assert "HTTP 401" in at.error[0].value and "\n" not in at.error[0].value
    state = at.session_state["app"]
    assert first in state.loaded and state.loaded[first].trace.meta.outcome == "ok"


def test_compare_shows_both_traces_and_the_figures():
    at = app()
    at.switch_page("app_pages/compare.py").run()
    assert not at.exception
    figures = at.table[0].value  # the figures noise cannot move (tests/unit/test_compare.py checks the page further)
    calls = figures[figures["figure"] == "model calls"].iloc[0]  # English headers: app() chose en
    assert (calls["A"], calls["B"]) == ("2", "2")
    frames = figures[figures["figure"] == "wire messages (MCP frames + model HTTP)"].iloc[0]
    assert int(frames["A"]) < int(frames["B"])
    by_step = at.table[1].value
    assert len(by_step) == 11 and "MCP request ×2" in by_step.iloc[2]["only in B"]
    assert sum("compare-diagrams" in e.proto.body for e in at.get("html")) == 1


def test_compare_runs_both_modes_live():
    at = app()
    at.switch_page("app_pages/compare.py").run()
    at.text_input(key="compare_question").set_value("北京和上海今天天气怎么样？")
    at.button[0].click().run()
    assert not at.exception
    state = at.session_state["app"]
    a, b = state.loaded[state.compare_a].trace, state.loaded[state.compare_b].trace
    assert (a.meta.mode, b.meta.mode) == ("direct", "mcp") and a.meta.question == "北京和上海今天天气怎么样？"


def test_compare_says_what_it_compares_and_names_each_sides_api():
    """Two MCP runs through two APIs ("Run two" with two APIs, or picked): the heading and the diagrams' titles say
    which API each side speaks, not "Direct mode vs MCP"."""
    at = app()
    at.switch_page("app_pages/compare.py").run()
    assert at.subheader[0].value == "Direct mode vs MCP"
    state = at.session_state["app"]
    state.compare_a, state.compare_b = "sample:beijing-mcp", "sample:responses-mcp"
    at.session_state["compare_a_en"], at.session_state["compare_b_en"] = state.compare_a, state.compare_b
    at.run()
    assert not at.exception
    assert at.subheader[0].value == "Chat Completions vs Responses (MCP)"
    [diagrams] = [e.proto.body for e in at.get("html") if "compare-diagrams" in e.proto.body]
    assert "A · Chat Completions · " in diagrams and "B · Responses · " in diagrams


def test_the_hop_table_filters_and_searches():
    at = app()
    at.switch_page("app_pages/hops.py").run()
    assert len(at.dataframe[0].value) == 20
    at.multiselect(key="f_kind").set_value(["mcp.request"]).run()
    assert set(at.dataframe[0].value["kind"]) == {"mcp.request"}
    at.multiselect(key="f_kind").set_value([]).run()
    at.text_input(key="f_search").set_value("notifications/initialized").run()
    assert list(at.dataframe[0].value["kind"]) == ["mcp.notification"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{ not json", "not valid JSON"),
        (b"", "the file is empty"),
        (b"[]", "a trace is a JSON object"),
        (json.dumps({"format_version": 99}).encode(), "newer version"),
    ],
)
def test_a_broken_upload_shows_the_error_and_keeps_the_app_working(content, message):
    at = app()
    at.radio(key="step_source_en").set_value("upload").run()
    at.file_uploader(key="step_upload").set_value(("broken.json", content, "application/json")).run()
    assert not at.exception
    assert message in at.error[0].value
    assert not at.get("bidi_component")  # no other trace shown as if it were this file
    assert any("nothing is shown here" in c.value for c in at.caption)
    at.file_uploader(key="step_upload").set_value(None).run()  # the file taken away: the page asks for one
    assert not at.error and "Choose a trace file" in at.info[0].value and not at.get("bidi_component")


def test_a_samples_json_downloaded_and_uploaded_again_keeps_its_questions():
    at = app()
    at.radio(key="step_source_en").set_value("upload").run()
    data = flow.trace_text(flow.load_trace(ROOT / "sample_traces" / "beijing-mcp.json")).encode()  # the download
    at.file_uploader(key="step_upload").set_value(("mine.json", data, "application/json")).run()
    bundle = viewer(at)["bundle"]
    assert sum("question" in hop for hop in bundle["hops"]) == 4


def test_a_good_upload_is_stepped_through():
    at = app()
    at.radio(key="step_source_en").set_value("upload").run()
    data = (ROOT / "sample_traces" / "two-cities-parallel.json").read_bytes()
    at.file_uploader(key="step_upload").set_value(("mine.json", data, "application/json")).run()
    assert not at.error and "hop 1 of 26" in header(at)


def test_the_step_page_offers_the_trace_as_opentelemetry_spans():
    at = app()
    [otlp] = [b for b in at.download_button if b.key == "download_otlp"]
    assert otlp.proto.label == "Download OpenTelemetry spans (OTLP JSON)"


def test_an_uploaded_jsonrpc_log_is_imported_and_stepped_through():
    at = app()
    at.radio(key="step_source_en").set_value("upload").run()
    frames = [
        h["payload"]
        for h in json.loads((ROOT / "sample_traces" / "beijing-mcp.json").read_text())["hops"]
        if h["kind"].startswith("mcp.")
    ]
    data = "\n".join(json.dumps(f) for f in frames).encode()
    at.file_uploader(key="step_upload").set_value(("session.jsonl", data, "application/jsonl")).run()
    # the frames, and the two hops the server's report in its tools/call answer makes
    assert not at.error and f"hop 1 of {len(frames) + 2}" in header(at)


def test_a_step_redraws_nothing_but_the_viewer():
    at = app()
    assert not at.get("graphviz_chart") and not at.main.button and not at.main.slider
    bundle = viewer(at)["bundle"]
    report_hop(at, 6)
    assert viewer(at)["bundle"] == bundle  # the same bundle: the browser already has it


def test_selecting_a_hop_then_filtering_never_shows_a_stale_row():
    at = app()
    at.switch_page("app_pages/hops.py").run()
    at.text_input(key="f_search").set_value("initialize").run()
    assert not at.exception and len(at.dataframe[0].value) == 3


def test_switching_language_keeps_the_run_choices():
    at = app()
    at.switch_page("app_pages/run.py").run()
    at.radio(key="mode_en").set_value("direct").run()
    at.radio(key="lang_choice").set_value("zh").run()
    assert at.radio(key="mode_zh").value == "direct"
    at.button(key="run").click().run()
    assert last_trace(at).meta.mode == "direct"


def test_switching_language_keeps_the_place():
    at = app()
    report_hop(at, 5)
    at.radio(key="lang_choice").set_value("zh").run()
    data = viewer(at)
    assert data["start"] == 4 and data["bundle"]["lang"] == "zh" and "MCP 服务器" in data["bundle"]["svg"]
    at.radio(key="lang_choice").set_value("en").run()
    report_hop(at, 6)
    assert "hop 6 of 20" in header(at)


def test_chinese_tables_have_chinese_headers():
    at = app("zh")
    at.switch_page("app_pages/compare.py").run()
    assert list(at.table[0].value.columns) == ["指标", "A", "B"]
    at.switch_page("app_pages/hops.py").run()
    assert list(at.dataframe[0].value.columns)[:3] == ["序号", "步骤", "阶段"]


def test_a_dead_mcp_server_is_one_line_on_the_run_page():
    at = app()
    at.switch_page("app_pages/run.py").run()
    at.radio(key="transport_en").set_value("stdio").run()
    at.radio(key="server_fault_en").set_value("die").run()
    at.button(key="run").click().run()
    assert not at.exception
    assert "closed the connection during tools/call get_weather" in at.error[0].value


def test_the_run_page_can_keep_the_stdio_server_warm():
    at = app()
    at.switch_page("app_pages/run.py").run()
    at.radio(key="transport_en").set_value("stdio").run()
    at.checkbox(key="keep_warm_en").check().run()
    for _ in range(2):
        at.switch_page("app_pages/run.py").run()
        at.button(key="run").click().run()
        assert not at.exception
    state = at.session_state["app"]
    runs = [item.trace for key, item in state.loaded.items() if key.startswith("run:")]
    assert len(runs) == 2 and all(r.meta.outcome == "ok" and r.meta.server["reused_session"] for r in runs)
    state.warm["handshake"].close()


def test_a_failing_run_speaks_chinese_in_the_chinese_interface():
    at = app("zh")
    at.switch_page("app_pages/run.py").run()
    at.selectbox(key="mock_model_zh").set_value("mock-error-429").run()
    at.button(key="run").click().run()
    assert at.error[0].value.startswith("运行中止（第 11 跳）：模型接口返回 HTTP 429") and "限流" in at.error[0].value


@pytest.mark.parametrize("mode", ["mcp", "direct"])
def test_a_scripted_run_calls_the_tool_the_user_chose(mode):
    at = app()
    at.switch_page("app_pages/run.py").run()
    at.radio(key="mode_en").set_value(mode).run()
    at.radio(key="backend_en").set_value("scripted").run()
    at.selectbox(key="scripted_decision_en").set_value("get_forecast").run()
    prefilled = at.text_area(key="scripted_args_get_forecast").value
    assert prefilled is not None and json.loads(prefilled) == {"city": "", "days": 3}

    at.text_area(key="scripted_args_get_forecast").set_value('{"city": "杭州", "days": 2}').run()
    at.button(key="run").click().run()
    assert not at.exception, at.exception
    trace = last_trace(at)
    assert trace.meta.model["backend"] == "scripted" and trace.meta.outcome == "ok"
    call = next(h for h in trace.hops if h.kind == "translate.reverse")
    assert call.payload["call_request"] == {"name": "get_forecast", "arguments": {"city": "杭州", "days": 2}}
    assert "杭州未来 2 天" in trace.meta.answer


def test_scripted_arguments_that_are_not_json_block_the_run_with_one_line():
    at = app("zh")
    at.switch_page("app_pages/run.py").run()
    at.radio(key="backend_zh").set_value("scripted").run()
    at.selectbox(key="scripted_decision_zh").set_value("get_weather").run()
    at.text_area(key="scripted_args_get_weather").set_value('{"city": ').run()
    assert not at.exception
    assert "参数不是 JSON 对象" in at.error[0].value and at.button(key="run").disabled


def test_the_run_page_reads_a_resource_and_fetches_a_prompt():
    at = app()
    at.switch_page("app_pages/run.py").run()
    at.multiselect(key="resources_en").set_value(["weather://cities"]).run()
    at.selectbox(key="prompt_en").set_value("weather_report").run()
    at.text_input(key="prompt_weather_report_city").set_value("上海").run()
    at.button(key="run").click().run()
    assert not at.exception, at.exception
    trace = last_trace(at)
    methods = [h.payload.get("method") for h in trace.hops if h.kind == "mcp.request"]
    assert {"resources/list", "resources/read", "prompts/list", "prompts/get"} <= set(methods)
    get = next(h for h in trace.hops if h.kind == "mcp.request" and h.payload.get("method") == "prompts/get")
    assert get.payload["params"]["arguments"] == {"city": "上海"}
    assert "上海" in trace.meta.answer


def test_the_run_page_offers_only_configured_servers_and_runs_one(tmp_path, monkeypatch):
    config = tmp_path / "servers.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "demo-over-stdio": {
                        "command": sys.executable,
                        "args": ["-m", "weather_demo"],
                        "env": {"PYTHONPATH": str(ROOT)},
                    }
                }
            }
        ),
        encoding="utf-8",
    )
    monkeypatch.setenv("MCP_FLOW_SERVERS", str(config))
    monkeypatch.delenv("MCP_FLOW_ALLOW_COMMANDS", raising=False)
    at = app()
    at.switch_page("app_pages/run.py").run()
    server = at.selectbox(key="server_en")
    assert server.options[:3] == ["weather-demo", "mcp-server-time", "server-everything"]
    assert server.options[-1] == "demo-over-stdio" and "Type a command…" not in server.options
    assert not [w for w in at.text_input if w.key == "server_command"]  # no way to type one
    server.set_value("demo-over-stdio").run()
    assert at.radio(key="transport_en").disabled and at.radio(key="server_fault_en").disabled
    at.button(key="run").click().run()
    assert not at.exception, at.exception
    meta = last_trace(at).meta
    assert meta.outcome == "ok" and meta.server["command"].endswith("-m weather_demo")


def test_a_typed_server_command_needs_the_flag_and_fails_as_one_line(monkeypatch):
    monkeypatch.setenv("MCP_FLOW_ALLOW_COMMANDS", "1")
    monkeypatch.delenv("MCP_FLOW_SERVERS", raising=False)
    at = app()
    at.switch_page("app_pages/run.py").run()
    at.selectbox(key="server_en").set_value("(typed)").run()
    assert at.button(key="run").disabled  # nothing typed yet
    failing = shlex.join([sys.executable, "-c", "import sys; sys.stderr.write('no config file\\n'); sys.exit(2)"])
    at.text_input(key="server_command").set_value(failing).run()
    at.button(key="run").click().run()
    assert not at.exception
    said = at.error[0].value
    assert said.startswith("The run stopped (hop ") and said.endswith(
        "): the MCP server did not start: no config file."
    )


def test_a_broken_servers_file_is_one_line_and_the_built_in_servers_stay(tmp_path, monkeypatch):
    config = tmp_path / "servers.json"
    config.write_text('{"mcpServers": {"x": {"args": []}}}', encoding="utf-8")
    monkeypatch.setenv("MCP_FLOW_SERVERS", str(config))
    at = app()
    at.switch_page("app_pages/run.py").run()
    assert not at.exception
    assert at.error[0].value == (
        f"The servers file cannot be used: {config}: mcpServers.x: needs a `command` (a non-empty string), or a `url`"
    )
    assert at.selectbox(key="server_en").options[0] == "weather-demo"


def test_a_scripted_run_against_a_third_party_server_from_the_app(monkeypatch):
    monkeypatch.delenv("MCP_FLOW_SERVERS", raising=False)
    at = app()
    at.switch_page("app_pages/run.py").run()
    at.selectbox(key="server_en").set_value("mcp-server-time").run()
    at.radio(key="backend_en").set_value("scripted").run()
    at.selectbox(key="scripted_decision_en").set_value("get_current_time").run()  # its tools, listed from it
    at.text_area(key="scripted_args_get_current_time").set_value('{"timezone": "Asia/Shanghai"}').run()
    at.radio(key="era_en").set_value("modern").run()
    at.button(key="run").click().run()
    assert not at.exception, at.exception
    trace = last_trace(at)
    assert trace.meta.outcome == "ok", trace.meta.error
    assert trace.meta.server["name"] == "mcp-time" and trace.meta.server["era"] == "modern"
    result = next(h for h in trace.hops if h.kind == "tool.result")
    assert json.loads(result.payload["tool_message_content"])["timezone"] == "Asia/Shanghai"


def test_a_trace_longer_than_the_viewer_holds_is_stepped_a_part_at_a_time():
    from flow.samples import synthetic_trace
    from flow.trace.files import trace_text
    from flow.views.viewer import PART_HOPS

    hops = 2 * PART_HOPS + 500
    at = app()
    at.radio(key="step_source_en").set_value("upload").run()
    upload = trace_text(synthetic_trace(hops)).encode()
    at.file_uploader(key="step_upload").set_value(("long.json", upload, "application/json")).run()
    assert not at.exception and not at.error
    assert (
        f"This trace has {hops:,} hops, more than the viewer holds at once: it shows them in 3 parts of at most "
        f"{PART_HOPS:,} hops." in [c.value for c in at.sidebar.caption]
    )
    bundle = viewer(at)["bundle"]
    assert len(bundle["hops"]) == PART_HOPS and bundle["svg"]  # one part, its diagram drawn whole
    part = at.selectbox(key="step_part_en")
    assert part.options == ["hops 1–1,000", "hops 1,001–2,000", "hops 2,001–2,500"]
    part.set_value(2).run()
    assert not at.exception
    data = viewer(at)
    assert [h["seq"] for h in data["bundle"]["hops"]][:1] == [2 * PART_HOPS + 1] and data["start"] == 0
    report_hop(at, 5)
    assert at.session_state["app"].index == 2 * PART_HOPS + 4 and at.query_params["hop"] == str(2 * PART_HOPS + 5)
    assert at.selectbox(key="step_part_en").value == 2


def test_the_run_page_runs_the_question_through_the_model_api_chosen():
    at = app()
    at.switch_page("app_pages/run.py").run()
    assert not [w for w in at.checkbox if w.key == "previous_response_en"]  # a Responses option only
    at.radio(key="api_en").set_value("responses").run()
    at.checkbox(key="previous_response_en").check().run()
    at.button(key="run").click().run()
    assert not at.exception, at.exception
    trace = last_trace(at)
    assert trace.meta.settings["api"] == "responses" and trace.meta.settings["previous_response"] is True
    backfill = next(h for h in trace.hops if h.kind == "llm.request" and h.step == 8)
    assert backfill.payload["url"].endswith("/v1/responses") and "previous_response_id" in backfill.payload["body"]
    at.switch_page("app_pages/run.py").run()  # a run opens the Step page
    at.radio(key="api_en").set_value("messages").run()
    at.button(key="run").click().run()
    assert last_trace(at).meta.settings["api"] == "messages"
