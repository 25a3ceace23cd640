"""Compare two runs side by side: by default direct function calling and MCP on the same question, or one MCP run
through two model APIs.

One screen makes the point: the pickers, the sentence (the model's requests practically the same, the tool
definitions' share of them, what MCP adds per session and per question, what it buys and when to choose it), then
the two diagrams side by side, each message level with the same message of the other. Below: the figures that do not
depend on noise, and the messages one by one. No times: one run's milliseconds are noise.

Presenter mode (the button, or P; Esc leaves it: flow_ui.presenter) shows the projector what the class reads: the
heading, the sentence and the two diagrams side by side, nothing of the page's chrome."""

from typing import Any

import pandas as pd
import streamlit as st

import flow
from flow import (
    EXAMPLE_QUESTIONS,
    PHASE_NAMES,
    Lang,
    figures,
    per_step,
    point,
    route_strips_html,
    summary_rows,
    ways_point,
    ways_table,
)
from flow_ui.i18n import column_names, t
from flow_ui.presenter import presenter_mode, presenter_on
from flow_ui.state import add_run, all_traces, state
from flow_ui.text import plain, plain_cell
from flow_ui.view import aligned_diagrams, aligned_grid, picker, remembered

# The two runs "Run two" makes: the two modes through Chat Completions, or the same MCP run through two model APIs.
PAIRS: dict[str, tuple[flow.RunOptions, flow.RunOptions]] = {
    "modes": (flow.RunOptions(mode="direct", transport="memory"), flow.RunOptions(mode="mcp", transport="memory")),
    "chat_responses": (
        flow.RunOptions(api="chat", transport="memory"),
        flow.RunOptions(api="responses", transport="memory"),
    ),
    "chat_messages": (
        flow.RunOptions(api="chat", transport="memory"),
        flow.RunOptions(api="messages", transport="memory"),
    ),
    "responses_messages": (
        flow.RunOptions(api="responses", transport="memory"),
        flow.RunOptions(api="messages", transport="memory"),
    ),
}

# Four diagrams side by side show the shape of each way (the table says the figures): two to a row at 1280 × 720.
WAYS_READABLE_PX = 11

PRESENTED = ("sample:beijing-direct", "sample:beijing-mcp")  # when a chosen run is gone (another session's)

app = state()
lang: Lang = app.lang
# Narrow margins: at 1280 × 720 beside the sidebar, two six-lifeline diagrams side by side keep 12-px labels.
st.html("<style>.block-container { padding-left: 0.5rem; padding-right: 0.5rem; }</style>")
with st.sidebar:  # beside the navigation: the two-run view keeps its first screen
    view = remembered(
        st.radio,
        t("compare_view", lang),
        ["pair", "ways"],
        key="compare_view",
        default="pair",
        format_func=lambda v: t(f"view_{v}", lang),
        horizontal=True,
    )


def four_ways() -> None:
    """The ways to give a model a tool side by side: four pickers (the four samples by default), what they teach,
    the table, the route strips, the four diagrams at one scale."""
    st.subheader(t("ways_heading", lang))
    items = all_traces(app)
    load_col, presenter_col = st.columns([5, 2], vertical_alignment="bottom")
    if load_col.button(t("ways_load", lang), icon=":material/view_module:"):
        app.ways = [f"sample:{name}" for name in flow.FOUR_WAYS]
        for i, key in enumerate(app.ways):
            st.session_state[f"ways_{i}_{lang}"] = key
    presenter_mode("compare", lang, button_in=presenter_col)
    for i, col in enumerate(st.columns(4)):
        with col:
            app.ways[i] = picker(app, t("ways_pick", lang, n=i + 1), app.ways[i], key=f"ways_{i}")
    chosen = [items[key] for key in app.ways]
    traces = [item.trace for item in chosen]
    st.info(plain(ways_point(traces, lang=lang)), icon=":material/lightbulb:")
    st.markdown(f"**{t('ways_route', lang)}**")
    st.html(route_strips_html(traces, lang=lang))
    st.markdown(f"**{t('ways_table', lang)}**")
    st.table(pd.DataFrame(ways_table(traces, lang=lang)).map(plain_cell), hide_index=True)
    st.markdown(f"**{t('ways_diagrams', lang)}**")
    aligned_grid([(str(i + 1), item) for i, item in enumerate(chosen)], lang, readable_px=WAYS_READABLE_PX)


if view == "ways":
    four_ways()
    st.stop()

heading = st.empty()  # what the two runs are, once the pickers say which (flow.pair_names)


def pickers() -> None:
    """The two pickers, "Run two" beside them (the two runs it makes become A and B), and presenter mode's button."""
    pick_a, pick_b, run_col, presenter_col = st.columns([5, 5, 2, 2.6], vertical_alignment="bottom")
    presenter_mode("compare", lang, button_in=presenter_col)
    with run_col.popover(t("run_both", lang), width="stretch"), st.form("run_both"):
        run_both()
    with pick_a:
        app.compare_a = picker(app, t("trace_a", lang), app.compare_a, key="compare_a")
    with pick_b:
        app.compare_b = picker(app, t("trace_b", lang), app.compare_b, key="compare_b")


def run_both() -> None:
    """The question and the pair "Run two" runs; the two runs become A and B."""
    question = st.text_input(t("question", lang), value=EXAMPLE_QUESTIONS[0], key="compare_question")
    pair = st.radio(
        t("compare_pair", lang), list(PAIRS), key="compare_pair", format_func=lambda p: t(f"pair_{p}", lang)
    )
    if st.form_submit_button(t("run_both_go", lang), type="primary"):
        with st.spinner(t("running", lang)):
            for side, options in zip(("compare_a", "compare_b"), PAIRS[pair], strict=True):
                result = flow.run(question, options=options)
                item = add_run(app, result.trace)
                setattr(app, side, item.key)
                st.session_state[f"{side}_{lang}"] = item.key  # the picker below shows the new run
                if not result.ok:
                    st.error(f"{options.mode} · {options.api}: {plain(result.error_in(lang))}", icon=":material/error:")


presenting = presenter_on()
if presenting:  # the projector shows what the pickers chose, not the pickers
    presenter_mode("compare", lang)
else:
    pickers()
items = all_traces(app)
a, b = items.get(app.compare_a, items[PRESENTED[0]]), items.get(app.compare_b, items[PRESENTED[1]])
title, name_a, name_b = flow.pair_names(a.trace, b.trace, lang=lang)
heading.subheader(title)

st.info(plain(point(a.trace, b.trace, lang=lang)), icon=":material/lightbulb:")
aligned_diagrams(a, b, lang, names=(name_a, name_b))
if presenting:
    st.stop()

st.subheader(t("figures", lang))
fig_col, chart_col = st.columns([3, 2])
with fig_col:
    figures_table = pd.DataFrame(summary_rows(a.trace, b.trace, lang=lang)).astype({"A": str, "B": str})
    st.table(figures_table.rename(columns=column_names(lang)), hide_index=True)
with chart_col:
    st.caption(t("chart_bytes", lang))
    fa, fb = figures(a.trace), figures(b.trace)
    sizes = pd.DataFrame(
        {
            "tool definitions": [fa.tool_definition_bytes, fb.tool_definition_bytes],
            "rest of the request": [
                fa.bytes_to_model - fa.tool_definition_bytes,
                fb.bytes_to_model - fb.tool_definition_bytes,
            ],
        },
        index=["A", "B"],
    )
    st.bar_chart(sizes.rename(columns=column_names(lang)), height=220, horizontal=True)
    st.caption(t("no_times", lang))

st.subheader(t("tool_cost_heading", lang))


@st.cache_data(show_spinner=False)
def _tool_cost() -> list[Any]:
    """Prompt tokens per model request at 4 to 40 tools, from mock runs made once per process (about a second)."""
    return flow.tool_cost_points(flow.tool_cost_traces())


with st.spinner(t("running", lang)):
    cost = _tool_cost()
first = {(p.server, p.tools): p.prompt_tokens for p in cost if p.request == 1}
most = max(p.tools for p in cost)
st.vega_lite_chart(flow.tool_cost_chart(cost, lang=lang), width="stretch", height=260)
st.caption(
    t(
        "tool_cost_caption",
        lang,
        direct=first[("", 4)],
        mcp=first[("weather-demo", 4)],
        most=most,
        most_tokens=first[("ops-demo", most)],
        fewest_tokens=first[("ops-demo", 4)],
    )
)

st.subheader(t("by_step", lang))
steps_table = pd.DataFrame(per_step(a.trace, b.trace, lang=lang)).drop(columns=["step"])
steps_table["phase"] = [PHASE_NAMES[p][lang] for p in steps_table["phase"]]
st.table(steps_table.rename(columns=column_names(lang)), hide_index=True)
