"""Every name the interface shows for an actor, a phase, a step or a figure, in Chinese and English."""

from __future__ import annotations

from typing import Literal

from flow.trace.model import Actor
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
    "wire_messages": {"en": "wire messages (MCP frames + model HTTP)", "zh": "线路消息（MCP 帧 + 模型 HTTP）"},
    "model_calls": {"en": "model calls", "zh": "模型调用次数"},
    "tool_calls": {"en": "tool calls", "zh": "工具调用次数"},
    "bytes": {"en": "bytes sent to the model", "zh": "发给模型的字节数"},
    "tool_bytes": {"en": "… of which tool definitions", "zh": "……其中工具定义"},
    "share": {"en": "tool definitions' share of the bytes", "zh": "工具定义所占比例"},
    "prompt_tokens": {"en": "prompt tokens (reported)", "zh": "提示词 token（模型报告）"},
    "tool_tokens": {"en": "tool definition tokens (estimated)", "zh": "工具定义 token（估算）"},
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


PHASE_NAMES: dict[Phase, dict[Lang, str]] = {
    "prepare": {"en": "prepare", "zh": "准备"},
    "request": {"en": "request", "zh": "请求"},
    "decision": {"en": "decision", "zh": "决策"},
    "execute": {"en": "execute", "zh": "执行"},
    "backfill": {"en": "backfill", "zh": "回填"},
    "answer": {"en": "answer", "zh": "回答"},
}
