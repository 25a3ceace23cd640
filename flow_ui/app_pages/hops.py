"""Every hop of a trace in a table: filter by actor, kind and phase, search the payloads, open one."""

import json

import streamlit as st

from flow import KIND_NAMES, PHASE_NAMES, Lang, actor_names, focus_view, hop_dataframe
from flow_ui.i18n import column_names, t
from flow_ui.state import all_traces, state
from flow_ui.text import table_csv
from flow_ui.view import picker

app = state()
lang: Lang = app.lang
st.title(t("hops_title", lang))

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
st.caption(t("shown", lang, k=len(shown), n=len(frame)) + " · " + t("select_hint", lang))
# The table's key follows the filters: a selection names a row position, which a new filter would change.
filters = json.dumps([app.hops_key, actors, kinds, phases, needle], ensure_ascii=False)
table = shown.assign(tokens=shown["tokens"].astype("string").fillna("")).rename(columns=column_names(lang))
event = st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    on_select="rerun",
    selection_mode="single-row",
    key=f"hops_table_{hash(filters)}",
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
rows = [r for r in (event.selection.rows if event and event.selection else []) if r < len(shown)]
if rows:
    seq = int(shown.iloc[rows[0]]["seq"])
    hop = trace.hops[seq - 1]
    st.markdown(f"#### #{hop.seq} · `{hop.kind}` · {names[hop.source][lang]} → {names[hop.target][lang]}")
    st.json(focus_view(hop), expanded=3)
