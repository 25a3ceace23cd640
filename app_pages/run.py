"""Run one question live, watch each hop arrive, then open it in the step-through view."""

import os
import queue

import streamlit as st

import flow
from flow.labels import ACTOR_NAMES, short_label
from flow.providers import EXAMPLE_QUESTIONS, MOCK_MODELS, PRESETS
from ui.i18n import t
from ui.state import add_run, state, warm_session
from ui.view import remembered, remembered_value

app = state()
lang = app.lang
st.title(t("run_title", lang))


def use_example() -> None:
    example = st.session_state.get("example")
    if example:
        st.session_state["question"] = example
    st.session_state["example"] = None


st.session_state.setdefault("question", EXAMPLE_QUESTIONS[0])
st.pills(t("examples", lang), EXAMPLE_QUESTIONS, key="example", on_change=use_example)
ask, go = st.columns([6, 1], vertical_alignment="bottom")
question = ask.text_input(t("question", lang), key="question")
run_slot = go.empty()  # the Run button sits beside the question, drawn once its options are known
progress = st.container()  # and the hops, as they happen, right under it

left, right = st.columns(2, gap="large")
with left:
    mode = remembered(st.radio, t("mode", lang), ["mcp", "direct"], horizontal=True, key="mode",
                      format_func=lambda m: t(f"mode_{m}", lang))
    backend = remembered(st.radio, t("model", lang), ["mock", "provider"], horizontal=True, key="backend",
                         format_func=lambda b: t(f"backend_{b}", lang))
    key_value = ""
    preset = None
    if backend == "mock":
        model_name = remembered(st.selectbox, t("mock_behaviour", lang), MOCK_MODELS, key="mock_model",
                                help=t("mock_help", lang))
        base_url = None
    else:
        preset = remembered(st.selectbox, t("preset", lang), PRESETS, key="preset", format_func=lambda p: p.name)
        base_url = st.text_input(t("base_url", lang), value=preset.base_url, key=f"base_url_{preset.name}")
        model_name = st.text_input(t("model_name", lang), value=preset.model, key=f"model_{preset.name}")
        env_names = [preset.key_env, "OPENAI_API_KEY"]
        env_key = next((os.environ[e] for e in env_names if os.environ.get(e)), "")
        # No session key: the typed key lives only in this widget, never in the app's state or a trace.
        key_value = st.text_input(t("api_key", lang), type="password",
                                  placeholder=t("key_from_env", lang, env=preset.key_env)) or env_key
with right:
    with st.expander(t("options", lang), expanded=True):
        choice = remembered(st.selectbox, t("tool_choice", lang), ["auto", "none", "required", "named"],
                            key="tool_choice")
        if choice == "named":
            choice = remembered(st.selectbox, t("named_function", lang),
                                ["get_weather", "calc_work_hours", "best_practice"], key="named")
        parallel = remembered_value(st.checkbox, t("parallel", lang), key="parallel", default=True)
        strict = remembered_value(st.checkbox, t("strict", lang), key="strict", default=False)
        stream = remembered_value(st.checkbox, t("stream", lang), key="stream", default=False)
        era = remembered(st.radio, t("era", lang), ["handshake", "modern"], horizontal=True, key="era",
                         format_func=lambda e: t(f"era_{e}", lang), disabled=mode == "direct")
        transport = remembered(st.radio, t("transport", lang), ["memory", "stdio"], horizontal=True, key="transport",
                               disabled=mode == "direct", help=t("transport_help", lang))
        max_rounds = remembered_value(st.number_input, t("max_rounds", lang), key="max_rounds", default=5,
                                      min_value=1, max_value=10)
        fault = remembered(st.radio, t("server_fault", lang), ["none", "die", "hang"], horizontal=True,
                           key="server_fault", format_func=lambda f: t(f"fault_{f}", lang), disabled=mode == "direct")
        keep_warm = remembered_value(st.checkbox, t("keep_warm", lang), key="keep_warm", default=False,
                                     help=t("keep_warm_help", lang),
                                     disabled=mode == "direct" or transport != "stdio" or fault != "none")

missing_key = backend == "provider" and preset is not None and preset.needs_key and not key_value
if missing_key:
    st.warning(t("no_key", lang, env=preset.key_env if preset else "OPENAI_API_KEY"))

if run_slot.button(t("run_button", lang), type="primary", disabled=missing_key or not question.strip(), key="run",
                   width="stretch"):
    options = flow.RunOptions(mode=mode, tool_choice=choice, parallel=parallel, strict=strict, stream=stream,
                              max_rounds=int(max_rounds), era=era, transport=transport,
                              server_fault=fault if mode == "mcp" else "none", mcp_timeout_s=5.0)
    model = (flow.ModelConfig(model=model_name) if backend == "mock" else
             flow.ModelConfig(backend="openai", model=model_name, base_url=base_url, api_key=key_value or None))
    with progress.status(t("running", lang), expanded=True) as status:
        def show(hop: flow.Hop) -> None:
            step = "·" if hop.step is None else hop.step
            status.write(f"`{hop.seq:>3}` **{step}** {ACTOR_NAMES[hop.source][lang]} → {ACTOR_NAMES[hop.target][lang]}"
                         f" · {short_label(hop, 70)}")

        if keep_warm and mode == "mcp" and transport == "stdio" and fault == "none":
            # The warm session runs on its own thread; its hops come back through a queue to this one.
            arrived: queue.Queue[flow.Hop] = queue.Queue()
            pending = warm_session(app, era).submit(question, options=options, model=model, on_hop=arrived.put)
            while not pending.done() or not arrived.empty():
                try:
                    show(arrived.get(timeout=0.05))
                except queue.Empty:
                    pass
            result = pending.result()
        else:
            result = flow.run(question, options=options, model=model, on_hop=show)
        status.update(label=t("run_done" if result.ok else "run_failed", lang), state="complete" if result.ok else "error",
                      expanded=not result.ok)
    item = add_run(app, result.trace)
    app.run_error = None if result.ok else {"en": result.error_in("en") or "", "zh": result.error_in("zh") or ""}
    if result.ok:
        app.step_key, app.index = item.key, 0
        app.choices["step_source"] = "run"
        for code in ("zh", "en"):  # the step page's source radio starts again, from "run"
            st.session_state.pop(f"step_source_{code}", None)
        st.switch_page("app_pages/step.py")

if app.run_error and app.last_run:
    progress.error(app.run_error[lang], icon=":material/error:")
    if progress.button(t("open_step", lang), key="open_failed"):
        app.step_key, app.index = app.last_run, 0
        app.choices["step_source"] = "run"
        for code in ("zh", "en"):  # the step page's source radio starts again, from "run"
            st.session_state.pop(f"step_source_{code}", None)
        st.switch_page("app_pages/step.py")
