"""Every name the interface shows for an actor, a phase, a step or a figure, in Chinese and English."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

from flow.trace.model import Actor, Kind, Mode
from flow.trace.steps import Phase, Step

STEP_NAMES: dict[Step, dict[Lang, str]] = {
    Step.TOOLS_EXIST: {"en": "tools exist", "zh": "工具已定义"},
    Step.QUESTION: {"en": "question", "zh": "提问"},
    Step.LIST_TOOLS: {"en": "list tools", "zh": "获取工具清单"},
    Step.ASK_MODEL: {"en": "ask the model", "zh": "询问模型"},
    Step.DECISION: {"en": "model decides", "zh": "模型决策"},
    Step.REVERSE_TRANSLATION: {"en": "reverse translation", "zh": "反向翻译"},
    Step.CALL_TOOL: {"en": "call the tool", "zh": "调用工具"},
    Step.TOOL_RESULT: {"en": "tool result", "zh": "工具结果"},
    Step.BACKFILL: {"en": "send results back", "zh": "回填结果"},
    Step.MODEL_ANSWER: {"en": "final answer", "zh": "最终回答"},
    Step.SHOW_ANSWER: {"en": "answer shown", "zh": "展示回答"},
}


FIGURE_NAMES: dict[str, dict[Lang, str]] = {
    "hops": {"en": "hops", "zh": "跳数"},
    "mcp_frames": {"en": "MCP wire frames", "zh": "MCP 线路帧"},
    "wire_messages": {"en": "wire messages (MCP frames + model HTTP)", "zh": "线路消息（MCP 帧 + 模型 HTTP 消息）"},
    "model_calls": {"en": "model calls", "zh": "模型调用次数"},
    "tool_calls": {"en": "tool calls", "zh": "工具调用次数"},
    "bytes": {"en": "bytes sent to the model", "zh": "发给模型的字节数"},
    "tool_bytes": {"en": "… of which tool definitions", "zh": "……其中工具定义"},
    "share": {"en": "tool definitions' share of the bytes", "zh": "工具定义所占比例"},
    "prompt_tokens": {"en": "prompt tokens (reported)", "zh": "输入词元数（prompt_tokens，模型报告）"},
    "tool_tokens": {"en": "tool definition tokens (estimated)", "zh": "工具定义的词元数（估算）"},
    "elapsed": {"en": "elapsed ms", "zh": "总耗时（毫秒）"},
    "phase_ms": {"en": "ms in {phase}", "zh": "{phase}阶段耗时（毫秒）"},
}


Lang = Literal["zh", "en"]


ACTOR_NAMES: dict[Actor, dict[Lang, str]] = {
    "user": {"en": "User", "zh": "用户"},
    "app": {"en": "App", "zh": "应用"},
    "mcp_client": {"en": "MCP Client", "zh": "MCP 客户端"},
    "mcp_server": {"en": "MCP Server", "zh": "MCP 服务器"},
    "tool": {"en": "Tool", "zh": "工具函数"},
    "model": {"en": "Model API", "zh": "模型 API"},
}


PROVIDER_CLIENT: dict[Lang, str] = {"en": "Provider's MCP client", "zh": "服务商的 MCP 客户端"}


"""Hosted MCP's MCP client: the model provider's, not the app's."""


AT_PROVIDER: dict[Lang, str] = {"en": "at the provider", "zh": "模型服务商一侧"}


"""Hosted MCP: the lifelines that run at the model provider (its API and its MCP client), grouped under this name."""


def actor_names(mode: Mode) -> Mapping[Actor, dict[Lang, str]]:
    """Each actor's name in a trace of this mode: in hosted MCP the MCP client is the provider's."""
    if mode == "hosted":
        return {**ACTOR_NAMES, "mcp_client": PROVIDER_CLIENT}
    return ACTOR_NAMES


PHASE_NAMES: dict[Phase, dict[Lang, str]] = {
    "prepare": {"en": "prepare", "zh": "准备"},
    "request": {"en": "request", "zh": "请求"},
    "decision": {"en": "decision", "zh": "决策"},
    "execute": {"en": "execute", "zh": "执行"},
    "backfill": {"en": "backfill", "zh": "回填"},
    "answer": {"en": "answer", "zh": "回答"},
}


KIND_NAMES: dict[Kind, dict[Lang, str]] = {
    "prepare.tools": {"en": "tool list built", "zh": "工具清单生成"},
    "user.message": {"en": "the question", "zh": "用户提问"},
    "tool.list": {"en": "local tool schemas", "zh": "本地工具 Schema"},
    "client.result": {"en": "what the MCP client hands the app", "zh": "MCP 客户端交给应用的结果"},
    "mcp.request": {"en": "MCP request", "zh": "MCP 请求"},
    "mcp.response": {"en": "MCP response", "zh": "MCP 响应"},
    "mcp.error": {"en": "MCP error", "zh": "MCP 错误"},
    "mcp.notification": {"en": "MCP notification", "zh": "MCP 通知"},
    "mcp.reported": {"en": "MCP, as the provider reports it", "zh": "MCP（模型服务商的报告）"},
    "user.input": {"en": "the server asks the user", "zh": "服务器向用户提问"},
    "translate.forward": {"en": "forward translation", "zh": "正向翻译"},
    "llm.request": {"en": "model request", "zh": "模型请求"},
    "llm.response": {"en": "model response", "zh": "模型响应"},
    "llm.chunk": {"en": "stream chunk", "zh": "流式分块"},
    "llm.assembled": {"en": "message assembled from the stream", "zh": "由流拼装的消息"},
    "llm.error": {"en": "model error", "zh": "模型出错"},
    "translate.reverse": {"en": "reverse translation", "zh": "反向翻译"},
    "tool.invoke": {"en": "local function called", "zh": "调用本地函数"},
    "tool.result": {"en": "tool result", "zh": "工具结果"},
    "app.answer": {"en": "answer shown", "zh": "展示回答"},
    "error": {"en": "failure", "zh": "故障"},
    "replay.divergence": {"en": "replay departed", "zh": "回放偏离"},
}


"""Each hop kind in plain words, where a page names a kind for a person (a table, a filter, a comparison)."""


LABEL_TEXT: dict[str, dict[Lang, str]] = {
    "tools": {"en": "tools:", "zh": "工具："},
    "n_tools": {"en": "{n} tool(s):", "zh": "{n} 个工具："},
    "n_functions": {"en": "{n} local functions:", "zh": "{n} 个本地函数："},
    "scripted": {"en": "scripted · ", "zh": "脚本 · "},
    "inferred": {"en": "(inferred)", "zh": "（推断）"},
    "session": {"en": "(MCP session {n})", "zh": "（MCP 会话 {n}）"},
    "reported": {"en": "(reported by the provider)", "zh": "（服务商报告）"},
    "reported_mismatch": {"en": "≠ observed: {what}", "zh": "与观测不符：{what}"},
    "request": {"en": "{m} message(s) + {t} tool(s)", "zh": "{m} 条消息 + {t} 个工具"},
    "request_items": {"en": "input: {m} item(s) + {t} tool(s)", "zh": "input：{m} 项 + {t} 个工具"},
    "request_head": {"en": "{m} message(s) +", "zh": "{m} 条消息 +"},
    "request_items_head": {"en": "input: {m} item(s) +", "zh": "input：{m} 项 +"},
    "one_server": {"en": "1 MCP server:", "zh": "1 个 MCP 服务器："},
    "n_servers": {"en": "{n} MCP servers:", "zh": "{n} 个 MCP 服务器："},
    "approval": {"en": "(approval: {value})", "zh": "（审批：{value}）"},
    "approves": {"en": "approves {name}", "zh": "批准 {name}"},
    "denies": {"en": "denies {name}", "zh": "拒绝 {name}"},
    "asks_approval": {"en": "asks approval:", "zh": "请求批准："},
    "call_failed": {"en": "(error)", "zh": "（出错）"},
    "stream_flag": {"en": " (stream)", "zh": "（流式）"},
    "assembled_calls": {"en": "assembled tool_calls:", "zh": "拼装出 tool_calls："},
    "assembled": {"en": "assembled {what}", "zh": "拼装完成 {what}"},
    "assembled_of": {"en": "assembled {what}:", "zh": "拼装出 {what}："},
    "call": {"en": "call", "zh": "调用"},
    "result_flag": {"en": "result (isError: {flag})", "zh": "结果（isError: {flag}）"},
    "result_of": {"en": "result: {method}", "zh": "{method} 的结果"},
    "result": {"en": "result", "zh": "结果"},
    "result_text": {"en": "result: {text}", "zh": "结果：{text}"},
    "content_translation": {"en": "MCP content → chat messages ×{n}", "zh": "MCP 内容 → 对话消息 ×{n}"},
    "function_returned": {"en": "the function returned", "zh": "函数返回"},
    "function_raised": {"en": "the function raised {type}", "zh": "函数抛出 {type}"},
    "response": {"en": "response", "zh": "回答"},
    "protocol_error": {"en": "protocol error {code}: {message}", "zh": "协议错误 {code}：{message}"},
    "rpc_error": {"en": "error {code}: {message}", "zh": "错误 {code}：{message}"},
    "log": {"en": "log {level}: {data}", "zh": "日志 {level}：{data}"},
    "progress": {"en": "progress {done} of {what}", "zh": "进度 {done} · {what}"},
    "progress_said": {"en": "progress {done} of {what}: {message}", "zh": "进度 {done} · {what}：{message}"},
    "chunk": {"en": "chunk {n}: {what}", "zh": "第 {n} 个分块：{what}"},
    "chunk_plain": {"en": "chunk {n}", "zh": "第 {n} 个分块"},
    "event": {"en": "event {n}: {what}", "zh": "第 {n} 个事件：{what}"},
    "event_plain": {"en": "event {n}", "zh": "第 {n} 个事件"},
    "event_call": {"en": "{what} {name} starts", "zh": "{what} {name} 开始"},
    "not_json": {"en": "(not JSON)", "zh": "（不是 JSON）"},
    "more": {"en": "+{n} more", "zh": "另 {n} 个"},
    "stream_rows": {"en": "stream: {n} chunks", "zh": "流式：{n} 个分块"},
    "progress_rows": {"en": "progress ×{n}: {what}", "zh": "进度 ×{n}：{what}"},
    "resource": {"en": "resource {uri}: {text}", "zh": "资源 {uri}：{text}"},
    "prompt": {"en": "prompt {name}: {n} message(s)", "zh": "提示模板 {name}：{n} 条消息"},
    "listed": {"en": "{n} {what}", "zh": "{n} 个 {what}"},
    "bad_arguments": {"en": "bad arguments: {why}", "zh": "参数无效：{why}"},
    "failure": {"en": "{what}", "zh": "故障：{what}"},
    "model_error": {"en": "{what}", "zh": "模型出错：{what}"},
    "http_status": {"en": "HTTP {status}", "zh": "HTTP {status} 错误"},
    "http_failed": {"en": "HTTP {status} for {what}", "zh": "故障：HTTP {status}（{what}）"},
    "no_answer": {"en": "no answer to {method} within {s} s", "zh": "{s} 秒内没有回答 {method}"},
    "slow_answer": {
        "en": "the answer to {method} still arriving after {s} s",
        "zh": "{s} 秒后 {method} 的回答仍未传完",
    },
    "deadline": {"en": "no complete answer within {s} s", "zh": "{s} 秒内没有完整的回答"},
    "too_large": {"en": "answer over {limit}: reading stopped", "zh": "回答超过 {limit}，已停止读取"},
    "divergence": {"en": "{what}", "zh": "回放偏离：{what}"},
    "unreadable": {"en": "unreadable frame", "zh": "无法读取的帧"},
    "user_asked": {"en": "the server asks: {what}", "zh": "服务器问：{what}"},
    "user_asked_url": {"en": "the server asks you to open {url}", "zh": "服务器请你打开 {url}"},
    "user_asked_sampling": {"en": "may the server use your model? {what}", "zh": "服务器想用你的模型，批准吗？{what}"},
    "user_accept": {"en": "accept: {values}", "zh": "接受：{values}"},
    "user_accept_plain": {"en": "accept", "zh": "接受"},
    "user_decline": {"en": "decline", "zh": "拒绝"},
    "user_cancel": {"en": "cancel", "zh": "取消"},
    "user_timed_out": {"en": "no answer within {s} s: cancel", "zh": "{s} 秒内没有回答：取消"},
    "roots_given": {"en": "{n} root(s): {uris}", "zh": "{n} 个根目录：{uris}"},
    "sampled": {"en": "the model's text: {text}", "zh": "模型写出：{text}"},
    "offered_tools": {"en": "tools: {names}", "zh": "工具：{names}"},
    "sampled_use": {"en": "the model's tool_use: {calls}", "zh": "模型要用工具：{calls}"},
    "input_required": {"en": "input required:", "zh": "需要补充输入："},
    "state_only": {"en": "input required: call again with the state", "zh": "需要补充输入：带着状态再调用"},
    "again_with": {"en": "again, with {n} answer(s)", "zh": "重新调用，带 {n} 个回答"},
    "round_of": {"en": "round {round} of call {call}", "zh": "第 {call} 次调用 · 第 {round} 轮"},
    "round_unpaired": {"en": "a retry that pairs with no call", "zh": "重试，无法配对"},
    "for_server": {"en": "for the MCP server:", "zh": "替 MCP 服务器："},
}


"""The words an arrow's label is made of (flow.views.labels fills them from the hop's payload)."""


MESSAGE_NAMES: dict[str, dict[Lang, str]] = {
    "number": {"en": "message {n}", "zh": "消息 {n}"},
    "zero": {"en": "phase zero", "zh": "阶段零"},
}


"""The source articles number the lesson's messages 1-10 (the app's steps 1-10); step 0 comes before any message."""


COMPARE_TEXT: dict[str, dict[Lang, str]] = {
    "direct": {"en": "direct mode", "zh": "直接调用模式"},
    "mcp": {"en": "MCP", "zh": "MCP"},
    "side": {"en": "{side}", "zh": "{side}"},
    "setup": {"en": "session set-up of {n} frames ({detail})", "zh": "会话建立 {n} 帧（{detail}）"},
    "discovery": {"en": "discovery of {n} frames ({detail})", "zh": "工具发现 {n} 帧（{detail}）"},
    "versus": {"en": "; {base}: {n}", "zh": "；{base}：{n} 帧"},
    "translations": {
        "en": "{n} translation hops ({base}: {n_base}{detail})",
        "zh": "翻译 {n} 跳（{base} {n_base} 跳{detail}）",
    },
    "more": {"en": "; added: {kinds}", "zh": "，多出{kinds}"},
    "frames": {
        "en": "{n} MCP wire frames in all ({base}: {n_base})",
        "zh": "MCP 线路帧共 {n} 个（{base} {n_base} 个）",
    },
    "adds": {"en": "Compared with {base}, {other} adds {adds}", "zh": "与{base}相比，{other} 多了：{adds}"},
    "has": {"en": "Compared with {base}, {other} has {adds}", "zh": "与 {base} 相比，{other} 不同在：{adds}"},
    "adds_nothing": {
        "en": "The two runs have the same set-up, discovery, translations and wire frames",
        "zh": "两次运行的会话建立、工具发现、翻译和线路帧都一样",
    },
    "same": {"en": "; what stays the same: {same}", "zh": "；不变的是：{same}"},
    "differs": {"en": "; what differs: {differs}", "zh": "；不同的是：{differs}"},
    "end": {"en": ".", "zh": "。"},
    "same_calls": {"en": "the model is called {n} time(s) in both", "zh": "模型同样被调用 {n} 次"},
    "other_calls": {
        "en": "the model calls ({base}: {n_base}, {other}: {n})",
        "zh": "模型调用次数（{base} {n_base} 次，{other} {n} 次）",
    },
    "same_decisions": {"en": "it asks for the same tool call {calls}", "zh": "模型给出同样的工具调用：{calls}"},
    "no_calls": {"en": "neither run calls a tool", "zh": "两次都没有调用工具"},
    "none": {"en": "none", "zh": "无"},
    "other_decisions": {
        "en": "the tool calls the model asks for ({base}: {a}; {other}: {b})",
        "zh": "模型给出的工具调用（{base}：{a}；{other}：{b}）",
    },
    "same_answer": {"en": "the same answer", "zh": "最终回答相同"},
    "other_answer": {"en": "the answer", "zh": "最终回答"},
}


"""The comparison's one sentence, in pieces (flow.views.compare.point fills them from the two traces)."""


_PLURAL = re.compile(r"\{(\w+)\} (\w+)\(s\)")


def plurals(template: str, values: Mapping[str, object]) -> str:
    """English "{n} message(s)" as "{n} message" or "{n} messages", by the count `values` will fill in; every text
    that formats a count writes it so, and goes through here."""
    return _PLURAL.sub(lambda m: f"{{{m[1]}}} {m[2]}" + ("" if str(values.get(m[1])) == "1" else "s"), template)
