"""Run one question and show its hops (a first page; the full UI comes later)."""

import streamlit as st

import flow

st.title("Run a question · 运行一个问题")
question = st.text_input("Question · 问题", value="北京今天天气怎么样？")
mode = st.radio("Mode · 模式", ["mcp", "direct"], horizontal=True,
                format_func=lambda m: {"mcp": "MCP", "direct": "Direct function calling · 直接函数调用"}[m])

if st.button("Run · 运行", type="primary"):
    # Slow work only behind the button; the in-memory server keeps a page run fast.
    result = flow.run(question, options=flow.RunOptions(mode=mode, transport="memory"))
    st.session_state["last_run"] = result

result = st.session_state.get("last_run")
if result is not None:
    if result.ok:
        st.success(result.answer)
    else:
        st.error(result.error)
    st.caption(flow.summary_line(result.trace))
    st.dataframe(flow.hop_rows(result.trace), hide_index=True, width="stretch")
    st.download_button("Download trace · 下载", result.trace.to_json(), file_name=f"trace-{result.trace.meta.mode}.json",
                       mime="application/json")
