"""Compare two runs side by side: by default direct function calling and MCP on the same question."""

import pandas as pd
import streamlit as st

import flow
from flow import EXAMPLE_QUESTIONS, PHASE_NAMES, PHASES, figures, per_phase_ms, per_step, summary_rows
from ui.i18n import column_names, t
from ui.state import add_run, all_traces, state, trace_title
from ui.text import plain
from ui.view import diagram, picker

app = state()
lang = app.lang
st.title(t("compare_title", lang))

with st.form("run_both"):
    question = st.text_input(t("question", lang), value=EXAMPLE_QUESTIONS[0], key="compare_question")
    if st.form_submit_button(t("run_both", lang), type="primary"):
        with st.spinner(t("running", lang)):
            for mode in ("direct", "mcp"):
                result = flow.run(question, options=flow.RunOptions(mode=mode, transport="memory"))
                item = add_run(app, result.trace)
                side = "compare_a" if mode == "direct" else "compare_b"
                setattr(app, side, item.key)
                st.session_state[side] = item.key  # the picker below shows the new run
                if not result.ok:
                    st.error(f"{mode}: {plain(result.error_in(lang))}", icon=":material/error:")

pick_a, pick_b = st.columns(2)
with pick_a:
    app.compare_a = picker(app, t("trace_a", lang), app.compare_a, key="compare_a")
with pick_b:
    app.compare_b = picker(app, t("trace_b", lang), app.compare_b, key="compare_b")
items = all_traces(app)
a, b = items[app.compare_a], items[app.compare_b]

st.subheader(t("figures", lang))
fig_col, chart_col = st.columns([3, 2])
with fig_col:
    figures_table = pd.DataFrame(summary_rows(a.trace, b.trace, lang=lang)).astype({"A": str, "B": str})
    st.dataframe(
        figures_table.rename(columns=column_names(lang)),
        hide_index=True,
        width="stretch",
        height=38 + 35 * len(figures_table),
    )
with chart_col:
    st.caption(t("chart_phase", lang))
    names = [PHASE_NAMES[p][lang] for p in PHASES]
    phases = pd.DataFrame({"A": per_phase_ms(a.trace).values(), "B": per_phase_ms(b.trace).values()}, index=names)
    st.bar_chart(phases, stack=False, height=220, sort=False)
    st.caption(t("chart_bytes", lang))
    fa, fb = figures(a.trace), figures(b.trace)
    sizes = pd.DataFrame(
        {
            "tool definitions": [fa.tool_definition_bytes, fb.tool_definition_bytes],
            "rest of the prompt": [
                fa.bytes_to_model - fa.tool_definition_bytes,
                fb.bytes_to_model - fb.tool_definition_bytes,
            ],
        },
        index=["A", "B"],
    )
    sizes = sizes.rename(columns=column_names(lang))
    st.bar_chart(sizes, height=200, horizontal=True)

st.subheader(t("by_step", lang))
steps_table = pd.DataFrame(per_step(a.trace, b.trace, lang=lang))
steps_table["phase"] = [PHASE_NAMES[p][lang] for p in steps_table["phase"]]
st.dataframe(
    steps_table.rename(columns=column_names(lang)), hide_index=True, width="stretch", height=38 + 35 * len(steps_table)
)

col_a, col_b = st.columns(2)
for col, item, name in ((col_a, a, "A"), (col_b, b, "B")):
    with col:
        st.markdown(f"**{name} · {plain(trace_title(item, lang))}**")
        diagram(item, None, lang, window=None)
