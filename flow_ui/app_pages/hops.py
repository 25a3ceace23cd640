"""Every hop of a trace in a table: filter by actor, kind and phase, search the payloads, open one.

Presenter mode (the button, or P; Esc leaves it: flow_ui.presenter) shows the projector the trace's name, the hops
the filters keep as a plain table in large type, and the hop selected before, with its JSON."""

import json
from typing import Any

import streamlit as st

from flow import KIND_NAMES, PHASE_NAMES, Lang, actor_names, focus_view, hop_dataframe
from flow_ui.i18n import column_names, t
from flow_ui.presenter import presenter_mode
from flow_ui.state import all_traces, state
from flow_ui.text import table_csv
from flow_ui.view import picker, shown_title

app = state()
lang: Lang = app.lang
title_col, button_col = st.columns([4, 1], vertical_alignment="center")
title_col.title(t("hops_title", lang))
presenting = presenter_mode("hops", lang, button_in=button_col)

if presenting:  # the projector names the trace the picker chose, without the picker
    traces = all_traces(app)
    app.hops_key = app.hops_key if app.hops_key in traces else next(iter(traces))
    st.markdown(f"**{shown_title(traces[app.hops_key], lang)}**")
else:
    app.hops_key = picker(app, t("trace", lang), app.hops_key, key="hops_trace")
trace = all_traces(app)[app.hops_key].trace
if not trace.hops:
    st.info(t("no_hops", lang))
    st.stop()
frame = hop_dataframe(trace, lang=lang)
names = actor_names(trace.meta.mode)  # in hosted MCP, the MCP client is the provider's

# The filters choose codes (an actor, a kind, a phase), shown in the interface language: a choice survives a switch.
c1, c2, c3, c4 = st.columns([2, 2, 2, 3])
choose = t("choose", lang)
actors = c1.multiselect(
    t("filter_actor", lang),
    list(dict.fromkeys(a for h in trace.hops for a in (h.source, h.target))),
    format_func=lambda a: names[a][lang],
    key="f_actor",
    placeholder=choose,
)
kinds = c2.multiselect(
    t("filter_kind", lang),
    sorted({h.kind for h in trace.hops}),
    format_func=lambda k: k if lang == "en" else KIND_NAMES[k][lang],
    key="f_kind",
    placeholder=choose,
)
phases = c3.multiselect(
    t("filter_phase", lang),
    list(dict.fromkeys(h.phase for h in trace.hops if h.phase)),
    format_func=lambda p: PHASE_NAMES[p][lang],
    key="f_phase",
    placeholder=choose,
)
needle = c4.text_input(t("search", lang), key="f_search").strip().lower()


def open_hop(shown: Any, selected: list[int]) -> None:
    """The selected row's hop: who sent it to whom, and its JSON."""
    rows = [r for r in selected if r < len(shown)]
    if rows:
        seq = int(shown.iloc[rows[0]]["seq"])
        hop = trace.hops[seq - 1]
        st.markdown(f"#### #{hop.seq} · `{hop.kind}` · {names[hop.source][lang]} → {names[hop.target][lang]}")
        st.json(focus_view(hop), expanded=3)


keep = frame.index == frame.index
if actors:
    keep &= [h.source in actors or h.target in actors for h in trace.hops]
if kinds:
    keep &= [h.kind in kinds for h in trace.hops]
if phases:
    keep &= [h.phase in phases for h in trace.hops]
if needle:
    texts = [json.dumps(h.payload, ensure_ascii=False).lower() + h.summary.lower() for h in trace.hops]
    keep &= [needle in text for text in texts]
shown = frame[keep]
# The table's key follows the filters: a selection names a row position, which a new filter would change.
filters = json.dumps([app.hops_key, actors, kinds, phases, needle], ensure_ascii=False)
table_key = f"hops_table_{hash(filters)}"
table = shown.assign(tokens=shown["tokens"].astype("string").fillna("")).rename(columns=column_names(lang))
if presenting:
    # A plain table, in the type the back row reads (a data grid draws its own small type); the hop selected
    # before presenting stays open below it.
    st.caption(t("shown", lang, k=len(shown), n=len(frame)))
    st.table(table.drop(columns=[column_names(lang).get(c, c) for c in ("ms", "bytes")]), hide_index=True)
    chosen = st.session_state.get(table_key)
    open_hop(shown, chosen.selection.rows if chosen and chosen.selection else [])
    st.stop()
st.caption(t("shown", lang, k=len(shown), n=len(frame)) + " · " + t("select_hint", lang))
event = st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    on_select="rerun",
    selection_mode="single-row",
    key=table_key,
    height=min(700, 38 + 35 * len(table)),
)
# Our own CSV (the table's built-in export is off in .streamlit/config.toml): no cell opens as a formula.
st.download_button(
    t("download_table", lang),
    lambda: table_csv(table),
    file_name=f"hops-{app.hops_key.replace(':', '-')}.csv",
    mime="text/csv",
    on_click="ignore",
    key="hops_csv",
    icon=":material/download:",
)
open_hop(shown, event.selection.rows if event and event.selection else [])
