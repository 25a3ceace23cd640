"""Step through a trace: the diagram with the current hop highlighted, its JSON, and what it means."""

import time

import streamlit as st

import flow
from flow.labels import PHASE_NAMES
from ui.i18n import t
from ui.state import add_upload, all_traces, state
from ui.text import plain
from ui.view import PRESENTER_CSS, remembered, diagram, downloads, hop_panel, hop_json, picker

app = state()
lang = app.lang
SLIDER = "step_slider"
# Read the toggles first: the page is laid out for presenter mode (or not) before the toggle is drawn.
presenter = bool(st.session_state.get("presenter", False))
autoplay = bool(st.session_state.get("autoplay", False))


def go(index: int) -> None:
    item = all_traces(app)[app.step_key]
    app.index = max(0, min(index, len(item.trace.hops) - 1))
    st.session_state[SLIDER] = app.index + 1


def step_by(delta: int) -> None:
    """Relative, read when clicked: two quick clicks move two hops even if the page has not redrawn."""
    go(app.index + delta)


def choose(key: str) -> None:
    if key != app.step_key:
        app.step_key = key
        go(0)


def on_slider() -> None:
    go(int(st.session_state[SLIDER]) - 1)


def on_phase() -> None:
    phase = st.session_state.get("phase_jump")
    if phase:
        go(flow.Cursor(all_traces(app)[app.step_key].trace).goto_phase(phase).seq - 1)
    st.session_state["phase_jump"] = None


# Where the trace comes from, and the slower controls, live in the sidebar; the page keeps the lesson.
with st.sidebar:
    st.divider()
    source = remembered(st.radio, t("source", lang), ["sample", "upload", "run"], key="step_source",
                        format_func=lambda s: t(f"source_{s}", lang))
    if source == "sample":
        samples = [k for k in all_traces(app) if k.startswith("sample:")]
        current = app.step_key if app.step_key in samples else samples[0]
        choose(picker(app, t("source_sample", lang), current, key="step_sample"))
    elif source == "upload":
        uploaded = st.file_uploader(t("upload", lang), type=["json", "jsonl"], key="step_upload")
        if uploaded is not None:
            try:
                item = add_upload(app, uploaded.name, uploaded.getvalue())
                app.upload_error = None
                choose(item.key)
            except flow.TraceError as exc:
                app.upload_error = str(exc)
        if app.upload_error:
            st.error(f"{t('upload_failed', lang)}：{plain(app.upload_error)}" if lang == "zh" else plain(app.upload_error),
                     icon=":material/error:")
    elif app.last_run is None:
        st.info(t("no_run_yet", lang))
    else:
        choose(app.last_run)
    app.seconds_per_step = st.select_slider(t("speed", lang), [0.5, 1.0, 1.5, 2.0, 3.0, 5.0],
                                            value=app.seconds_per_step, key="speed")

item = all_traces(app).get(app.step_key) or all_traces(app)["sample:beijing-mcp"]
app.step_key = item.key
trace = item.trace
if not trace.hops:  # a file may hold none (a listing that failed at once): nothing to step through
    st.info(t("no_hops", lang))
    st.stop()
n = len(trace.hops)
app.index = max(0, min(app.index, n - 1))
if st.session_state.get(SLIDER) != app.index + 1:
    st.session_state[SLIDER] = app.index + 1
hop = trace.hops[app.index]

if presenter:
    st.html(PRESENTER_CSS)
else:
    meta = trace.meta
    st.markdown(f"### {plain((meta.title or {}).get(lang) or meta.question)}")
    if meta.note:
        st.caption(plain(meta.note.get(lang, "")))

controls = st.columns([1, 1, 2, 1.3], vertical_alignment="center")
controls[0].button("◀ " + t("prev", lang), on_click=step_by, args=(-1,), shortcut="Left", width="stretch",
                   disabled=app.index == 0, key="prev")
controls[1].button(t("next", lang) + " ▶", on_click=step_by, args=(1,), shortcut="Right", type="primary",
                   width="stretch", disabled=app.index == n - 1, key="next")
with controls[2]:
    st.toggle(t("autoplay", lang), key="autoplay")
with controls[3]:
    st.toggle(t("presenter", lang), key="presenter")
if not presenter and n > 1:
    slider_col, phase_col = st.columns([1, 1], vertical_alignment="center")
    slider_col.slider(t("position", lang), 1, n, key=SLIDER, on_change=on_slider, label_visibility="collapsed")
    phases = [p for p in flow.trace.PHASES if any(h.phase == p for h in trace.hops)]
    phase_col.pills(t("jump_phase", lang), phases, key="phase_jump", on_change=on_phase,
                    format_func=lambda p: PHASE_NAMES[p][lang], label_visibility="collapsed")

if presenter:
    # The back of the room reads the sentence first, then a wide picture: both span the page.
    hop_panel(item, hop, lang, compact=True)
    diagram(item, hop.seq, lang, window=8, lead=1)
    with st.expander(t("hop_json", lang)):
        hop_json(hop, lang, height=300)
else:
    picture, panel = st.columns([5, 2], gap="medium")
    with picture:
        diagram(item, hop.seq, lang, window=14)
    with panel:
        hop_panel(item, hop, lang)
        hop_json(hop, lang, height=340)
if not presenter:
    downloads(item, lang)

if autoplay:
    armed = time.monotonic()

    @st.fragment(run_every=app.seconds_per_step)
    def _tick() -> None:
        # The first call comes with the page itself; only the timed calls after it advance.
        if time.monotonic() - armed < app.seconds_per_step * 0.8:
            return
        if app.index >= n - 1:
            st.session_state["autoplay"] = False
        else:
            go(app.index + 1)
        st.rerun()

    _tick()
