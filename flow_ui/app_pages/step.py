"""Step through a trace: flow's client-side viewer (the route at a glance, the diagram, what happens and why, the
hop's JSON), then downloads.

Stepping happens in the browser; the viewer reports where it is (component state `hop`), which this
page keeps in the app state and in the URL (`?hop=N`), so a reload, a link or another page knows; presenter mode
(component state `presenter`) is kept in the URL too (`?presenter=1`).
The sidebar's lesson toggles turn on the trace's questions (a sample's own, or a file uploaded with an
uploaded trace) and the restaurant captions; the viewer has the same two buttons for presenter mode.
"Present to a room" opens a classroom room for the trace: students' screens follow this viewer, whichever trace it
shows; a reload takes the room back (the viewer hands over the code and key its tab kept).
"""

import streamlit as st

import flow
from flow_ui import rooms
from flow_ui.i18n import t
from flow_ui.presenter import presenter_on, presenter_to_url
from flow_ui.state import UPLOAD_LIMIT_MB, add_upload, all_traces, state
from flow_ui.text import plain
from flow_ui.trace_viewer import (
    add_questions,
    bundle_text,
    part_at,
    part_item,
    parts,
    questions,
    reclaimed_room,
    reported_hop,
    reported_presenter,
    trace_viewer,
)
from flow_ui.view import downloads, picker, remembered

app = state()
lang: flow.Lang = app.lang


def go(index: int) -> None:
    item = all_traces(app)[app.step_key]
    app.index = max(0, min(index, len(item.trace.hops) - 1))


def choose(key: str) -> None:
    if key != app.step_key:
        app.step_key = key
        go(0)


def url_sample() -> str | None:
    """The sample the URL names (`?sample=NAME`), as its key; None when absent or not one of the samples."""
    raw = st.query_params.get("sample")
    key = f"sample:{raw}"
    return key if raw and key in all_traces(app) else None


def url_index() -> int | None:
    """The hop the URL names (`?hop=N`, 1-based), as an index; None when absent or not a number."""
    raw = st.query_params.get("hop")
    if raw is None or not raw.strip().isdigit():
        return None
    return int(raw) - 1


def on_hop() -> None:
    """The viewer moved (within the part it holds): remember where, for the other pages and the URL."""
    item = all_traces(app)[app.step_key]
    part = part_at(item, app.index)
    hop = reported_hop(part_item(item, part))
    if hop is not None:
        go(part.start + hop - 1)
        st.query_params["hop"] = str(app.index + 1)


def on_presenter() -> None:
    """Presenter mode turned on or off in the viewer: kept in the URL (`?presenter=1`), so a reload stays in it."""
    keep_presenter()


def keep_presenter() -> bool:
    """The URL's presenter mode in line with what the viewer last said, written on every run of the viewer's
    fragment (a write a concurrent rerun lost is made again by the next); True when on. A new session (a reload)
    has heard nothing yet and keeps what its URL says."""
    said = reported_presenter()
    if isinstance(said, bool):
        presenter_to_url(said)
    return presenter_on()


def on_part() -> None:
    """Another part chosen: the viewer opens at its first hop."""
    chosen = st.session_state.get(f"step_part_{lang}")
    found = parts(all_traces(app)[app.step_key])
    if isinstance(chosen, int) and 0 <= chosen < len(found):
        go(found[chosen].start)
        st.query_params["hop"] = str(app.index + 1)


# A link or a reload opens the sample and the hop its URL names; choosing another trace below starts it at its first
# hop. (Only a sample can be named: an upload or a run lives in this session alone.)
if (named_sample := url_sample()) is not None and app.step_key != named_sample:
    app.step_key = named_sample
    app.choices["step_source"] = "sample"
if (named := url_index()) is not None:
    app.index = max(0, named)

# The classroom room's controls come first in the page's part of the sidebar (filled in below, once the trace is
# known): at 1280 × 720 "Present to a room" and "Close the room" stay above the sidebar's fold.
room_box = st.sidebar.container()

# Where the trace comes from lives in the sidebar; the page keeps the lesson.
uploaded = None
with st.sidebar:
    st.divider()
    source = remembered(
        st.radio,
        t("source", lang),
        ["sample", "upload", "run"],
        key="step_source",
        format_func=lambda s: t(f"source_{s}", lang),
    )
    if source == "sample":
        samples = [k for k in all_traces(app) if k.startswith("sample:")]
        current = app.step_key if app.step_key in samples else samples[0]
        choose(picker(app, t("source_sample", lang), current, key="step_sample"))
    elif source == "upload":
        uploaded = st.file_uploader(
            t("upload", lang), type=["json", "jsonl"], key="step_upload", max_upload_size=UPLOAD_LIMIT_MB
        )
        if uploaded is not None:
            try:
                item = add_upload(app, uploaded.name, uploaded.getvalue())
                app.upload_error = None
                choose(item.key)
            except flow.TraceError as exc:
                app.upload_error = str(exc)
    elif app.last_run is not None:
        choose(app.last_run)

# Nothing of the chosen source to show (a file that could not be read, none chosen yet, no run yet): the page says
# so where the viewer would be, and shows no other trace as if it were that one.
if source == "upload" and app.upload_error and uploaded is not None:
    st.error(
        plain(f"{t('upload_failed', lang)}：{app.upload_error}" if lang == "zh" else app.upload_error),
        icon=":material/error:",
    )
    st.caption(t("upload_nothing_shown", lang))
    st.stop()
if source == "upload" and not app.step_key.startswith("upload:"):
    st.info(t("upload_choose", lang), icon=":material/upload_file:")
    st.stop()
if source == "run" and app.last_run is None:
    st.info(t("no_run_yet", lang))
    st.stop()

# The viewer fills the window below it; narrow margins give the diagram room at 1280 × 720.
st.html("<style>.block-container { padding-left: 1rem; padding-right: 1rem; }</style>")

item = all_traces(app).get(app.step_key) or all_traces(app)["sample:beijing-mcp"]
app.step_key = item.key
if not item.trace.hops:  # a file may hold none (a listing that failed at once): nothing to step through
    st.info(t("no_hops", lang))
    st.stop()
app.index = max(0, min(app.index, len(item.trace.hops) - 1))

# A trace longer than one diagram, or holding more data than a browser takes in one message, is viewed a part at a
# time; the page says so in one line.
found_parts = parts(item)
part = part_at(item, app.index)
if len(found_parts) > 1:
    with st.sidebar:
        st.divider()
        most = max(len(p) for p in found_parts)
        st.caption(t("parts_note", lang, hops=len(item.trace.hops), parts=len(found_parts), most=most))
        st.session_state[f"step_part_{lang}"] = found_parts.index(part)
        st.selectbox(
            t("part", lang),
            range(len(found_parts)),
            key=f"step_part_{lang}",
            on_change=on_part,
            format_func=lambda k: t("part_hops", lang, first=found_parts[k].start + 1, last=found_parts[k].stop),
        )
view = part_item(item, part)

# The lesson: questions (predict, then reveal) and the restaurant captions, for a teacher to turn on.
with st.sidebar:
    st.divider()
    if source == "upload" and item.key.startswith("upload:"):
        given = st.file_uploader(t("questions_upload", lang), type=["json"], key="step_questions_upload")
        if given is not None:
            try:
                add_questions(app, item, given.name, given.getvalue())
                app.questions_error = None
            except flow.QuestionsError as exc:
                app.questions_error = str(exc)
        if app.questions_error:
            st.error(
                plain(f"{t('questions_failed', lang)}：{app.questions_error}" if lang == "zh" else app.questions_error),
                icon=":material/error:",
            )
    try:
        found = questions(app, item)
    except flow.QuestionsError as exc:
        found = {}
        st.error(plain(exc), icon=":material/error:")
    # Keyed by language, the value from the app state: a language switch keeps what the teacher chose. The state
    # is seeded, never passed as `value` too: a room taken back sets these keys, and a widget given both logs a
    # warning with its stack.
    st.session_state.setdefault(f"step_quiz_{lang}", app.quiz)
    st.session_state.setdefault(f"step_captions_{lang}", app.captions)
    app.quiz = st.toggle(t("questions_toggle", lang), key=f"step_quiz_{lang}", help=t("questions_help", lang))
    st.caption(t("questions_count", lang).format(n=len(found)) if found else t("questions_none", lang))
    app.captions = st.toggle(t("captions_toggle", lang), key=f"step_captions_{lang}")


# A classroom room: students' screens follow this viewer (flow_ui/rooms.py, flow's room routes in flow_ui/serve.py).
def bundles() -> dict[str, str]:
    return {code: bundle_text(view, code, found) for code in ("zh", "en")}


def refused(exc: flow.RoomError) -> None:
    app.room_error = exc.message_zh if lang == "zh" else exc.message


def present() -> None:
    try:
        rooms.present(app, view, bundles(), found)
        app.room_error = None
    except flow.RoomError as exc:
        refused(exc)


def reclaim() -> None:
    """The viewer of a page that reloaded hands over the room its tab presented: take it back if it is still open,
    with the lesson toggles the class last saw."""
    try:
        taken = rooms.reclaim(app, reclaimed_room(), view, bundles(), found)
    except flow.RoomError as exc:
        refused(exc)
        return
    if taken is not None:  # the toggles are widgets: their own state, set before they are drawn again
        st.session_state[f"step_quiz_{lang}"] = taken.quiz
        st.session_state[f"step_captions_{lang}"] = taken.captions


with room_box:
    st.divider()
    st.markdown(f"**{t('room_head', lang)}**")
    room = rooms.live(app)
    if room is not None and room.trace_key != view.key:
        try:  # the page shows another trace: the room follows it, same link, a new round
            room = rooms.follow_page(app, room, view, bundles(), found)
            st.caption(t("room_follows", lang))
        except flow.RoomError as exc:
            refused(exc)
    if not flow.rooms_served():
        st.caption(t("room_not_served", lang))
    elif room is None:
        st.button(
            t("room_present", lang),
            key="step_room_present",
            help=t("room_present_help", lang),
            icon=":material/cast_for_education:",
            on_click=present,
        )
    if app.room_error:
        st.error(
            plain(f"{t('room_failed', lang)}：{app.room_error}" if lang == "zh" else app.room_error),
            icon=":material/error:",
        )
    if room is not None:
        st.button(
            t("room_close", lang),
            key="step_room_close",
            icon=":material/cancel_presentation:",
            on_click=rooms.close,
            args=(app,),
        )
        st.caption(t("room_link", lang).format(link=room.link))
        if not room.lan:
            st.caption(t("room_loopback", lang))


@st.fragment
def stepper(start: int) -> None:
    # The viewer's reports rerun only this fragment: a step never redraws the page.
    if rooms.live(app) != room:
        st.rerun(scope="app")  # a room taken back after a reload: the sidebar shows it too
    trace_viewer(
        view,
        lang,
        start=start - part.start,
        on_hop=on_hop,
        on_room=reclaim,
        found=found,
        quiz=app.quiz,
        captions=app.captions,
        room=rooms.viewer_room(room, view),
        presenter=keep_presenter(),
        on_presenter=on_presenter,
    )


stepper(app.index)
st.query_params["hop"] = str(app.index + 1)
if item.key.startswith("sample:"):
    st.query_params["sample"] = item.key.removeprefix("sample:")
else:
    st.query_params.pop("sample", None)
downloads(item, lang, questions=found)
