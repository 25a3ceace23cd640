"""The wording of the lesson script (`python -m flow lesson`): the ten messages and their phases as the source
articles number them, what crosses in each, a caption from the articles' restaurant metaphor, and the script's
own labels. The app's step number is the articles' message number; step 0 is their phase zero."""

from __future__ import annotations

from dataclasses import dataclass

from flow.text.names import Lang
from flow.trace.steps import Step


@dataclass(frozen=True)
class ArticleMessage:
    """One of the articles' numbered messages (0: phase zero, before any message)."""

    phase: int  # the articles' phase: 0 (prepare) to 4 (backfill and answer)
    route: dict[Lang, str]
    crosses: dict[Lang, str]
    restaurant: dict[Lang, str]
    direct_route: dict[Lang, str] | None = None  # where direct mode (no MCP client or server) differs


ARTICLE_PHASES: dict[int, dict[Lang, str]] = {
    0: {"zh": "阶段零：准备", "en": "Phase zero: prepare"},
    1: {"zh": "阶段一：发出请求（正向翻译）", "en": "Phase one: the request (forward translation)"},
    2: {"zh": "阶段二：模型决策", "en": "Phase two: the model decides"},
    3: {"zh": "阶段三：执行工具（反向翻译）", "en": "Phase three: the tool runs (reverse translation)"},
    4: {"zh": "阶段四：回填结果，生成回答", "en": "Phase four: backfill and the answer"},
}


ARTICLE_MESSAGES: dict[Step, ArticleMessage] = {
    Step.TOOLS_EXIST: ArticleMessage(
        0,
        {"zh": "MCP 服务器内部", "en": "inside the MCP server"},
        {"zh": "由装饰器生成的工具清单", "en": "the tool list built from decorators"},
        {"zh": "开门之前，后厨写好了菜单", "en": "before opening, the kitchen writes its menu"},
        {"zh": "应用内部（手写的定义）", "en": "inside the app (hand-written schemas)"},
    ),
    Step.QUESTION: ArticleMessage(
        1,
        {"zh": "用户 → 应用", "en": "user → app"},
        {"zh": "用户的问题", "en": "the user's question"},
        {"zh": "顾客点了一道菜", "en": "the customer orders a dish"},
    ),
    Step.LIST_TOOLS: ArticleMessage(
        1,
        {"zh": "应用 → MCP 客户端 → MCP 服务器", "en": "app → MCP client → MCP server"},
        {"zh": "询问有哪些工具（tools/list）", "en": "which tools there are (tools/list)"},
        {"zh": "点餐系统取来菜单", "en": "the ordering system fetches the menu"},
        {"zh": "应用内部（本地的工具定义）", "en": "inside the app (its own schemas)"},
    ),
    Step.ASK_MODEL: ArticleMessage(
        1,
        {"zh": "应用 → 模型 API", "en": "app → model API"},
        {"zh": "对话加上翻译成函数格式的工具", "en": "the conversation and the tools, translated to functions"},
        {"zh": "菜单被翻译成服务员大脑看得懂的样子", "en": "the menu is put in a form the waiter's brain reads"},
    ),
    Step.DECISION: ArticleMessage(
        2,
        {"zh": "模型 API → 应用", "en": "model API → app"},
        {"zh": "tool_calls：函数名和参数字符串", "en": "tool_calls: a function name and an arguments string"},
        {"zh": "服务员的大脑决定下单", "en": "the waiter's brain decides what to order"},
    ),
    Step.REVERSE_TRANSLATION: ArticleMessage(
        3,
        {"zh": "应用 → MCP 客户端", "en": "app → MCP client"},
        {"zh": "解析好的调用请求", "en": "the parsed call request"},
        {"zh": "单子写好，交给后厨", "en": "the order slip goes to the kitchen"},
        {"zh": "应用内部", "en": "inside the app"},
    ),
    Step.CALL_TOOL: ArticleMessage(
        3,
        {"zh": "MCP 客户端 → 真正的函数", "en": "MCP client → the real function"},
        {"zh": "tools/call，函数真正运行", "en": "tools/call, and the function really runs"},
        {"zh": "后厨开始做菜", "en": "the kitchen cooks"},
        {"zh": "应用 → 函数", "en": "app → the function"},
    ),
    Step.TOOL_RESULT: ArticleMessage(
        3,
        {"zh": "函数 → MCP 客户端 → 应用", "en": "function → MCP client → app"},
        {"zh": "工具结果（CallToolResult）", "en": "the tool's result (CallToolResult)"},
        {"zh": "菜做好了", "en": "the dish is ready"},
        {"zh": "函数 → 应用", "en": "function → app"},
    ),
    Step.BACKFILL: ArticleMessage(
        4,
        {"zh": "应用 → 模型 API", "en": "app → model API"},
        {"zh": "整段对话加上 role 为 tool 的结果", "en": 'the whole conversation plus the role "tool" results'},
        {"zh": "先向大脑汇报：菜好了", "en": "first, the brain hears that the dish is ready"},
    ),
    Step.MODEL_ANSWER: ArticleMessage(
        4,
        {"zh": "模型 API → 应用", "en": "model API → app"},
        {"zh": "最终回答的文字", "en": "the answer's text"},
        {"zh": "大脑想好怎么对顾客说", "en": "the brain words it for the customer"},
    ),
    Step.SHOW_ANSWER: ArticleMessage(
        4,
        {"zh": "应用 → 用户", "en": "app → user"},
        {"zh": "展示给用户的回答", "en": "the answer shown to the user"},
        {"zh": "菜端到顾客面前", "en": "the dish reaches the customer"},
    ),
}


LESSON_TEXT: dict[str, dict[Lang, str]] = {
    "subtitle": {
        "zh": "教案：一个问题走过的每一跳（{mode}模式，共 {hops} 跳）",
        "en": "Lesson script: every hop of one question ({mode} mode, {hops} hops)",
    },
    "mode.mcp": {"zh": "MCP ", "en": "MCP"},
    "mode.direct": {"zh": "直接调用", "en": "direct"},
    "overview": {"zh": "十条消息一览", "en": "The ten messages at a glance"},
    "overview_note": {
        "zh": "消息编号沿用原文：应用的步骤号就是原文的消息号，步骤 0 即原文的阶段零。",
        "en": "Messages are numbered as the articles number them: the app's step number is the message number, and "
        "step 0 is the articles' phase zero.",
    },
    "col.message": {"zh": "消息", "en": "Message"},
    "col.step": {"zh": "步骤", "en": "Step"},
    "col.phase": {"zh": "阶段", "en": "Phase"},
    "col.route": {"zh": "从 → 到", "en": "From → to"},
    "col.crosses": {"zh": "传递的内容", "en": "What crosses"},
    "col.hops": {"zh": "本次的跳", "en": "Hops in this trace"},
    "col.restaurant": {"zh": "餐厅比喻", "en": "In the restaurant"},
    "phase_zero": {"zh": "阶段零", "en": "phase zero"},
    "message_n": {"zh": "第 {n} 条", "en": "{n}"},
    "missing.stopped": {"zh": "无：运行在第 {seq} 跳停止", "en": "none: the run stopped at hop {seq}"},
    "missing.no_round": {
        "zh": "无：模型直接回答，没有工具轮次",
        "en": "none: the model answered at once, no tool round",
    },
    "missing.direct": {"zh": "无：直接调用模式没有这一步", "en": "none: direct mode has no such message"},
    "missing.none": {"zh": "无：这次记录里没有", "en": "none in this trace"},
    "missing.server_side": {
        "zh": "函数在服务器内部的运行没有被记录：这个服务器不报告它，tools/call 代表了这一步",
        "en": "the function's run inside the server is not recorded: this server does not report it, and the "
        "tools/call stands for it",
    },
    "hops": {"zh": "逐跳讲解", "en": "Hop by hop"},
    "hop_title": {"zh": "第 {seq} 跳 · {message} · {route}", "en": "Hop {seq} · {message} · {route}"},
    "message_of": {"zh": "步骤 {step} = 第 {step} 条消息", "en": "step {step} = message {step}"},
    "phase_zero_of": {"zh": "步骤 0 = 阶段零", "en": "step 0 = phase zero"},
    "wire_only": {"zh": "线路帧，不属于十条消息", "en": "a wire frame outside the ten messages"},
    "focus": {"zh": "载荷重点：", "en": "Payload focus:"},
    "question": {"zh": "提问", "en": "Question"},
    "answer": {"zh": "答案", "en": "Answer"},
}
