"""The wording of the lesson script (`python -m flow lesson`): what crosses in each of the articles' ten messages,
and the script's own labels. The messages' phases, routes and restaurant captions are the route's
(`flow.text.route`), the same the viewer shows. The app's step number is the articles' message number; step 0 is
their phase zero."""

from __future__ import annotations

from dataclasses import dataclass

from flow.text.apis import WORDS
from flow.text.names import Lang
from flow.trace.steps import Step
from flow.wire.base import ApiName


@dataclass(frozen=True)
class ArticleMessage:
    """What crosses in one of the articles' numbered messages (0: phase zero, before any message); its phase,
    route and restaurant caption are the route's (`flow.trace.route`, `flow.text.route`)."""

    crosses: dict[Lang, str]
    # Where direct mode (no MCP client or server) differs: the way it goes, and what crosses. A row of a direct
    # trace names nothing MCP has (no decorators, tools/list, tools/call or CallToolResult): none of it is there.
    direct_route: dict[Lang, str] | None = None
    direct_crosses: dict[Lang, str] | None = None


# Every row is true of every trace of its mode: what happened at a message in this trace is the hops column's
# (a tools/call the server refuses runs nothing; a run may stop before a result comes back).
ARTICLE_MESSAGES: dict[Step, ArticleMessage] = {
    Step.TOOLS_EXIST: ArticleMessage(
        {"zh": "由装饰器生成的工具清单", "en": "the tool list built from decorators"},
        {"zh": "应用内部（手写的定义）", "en": "inside the app (hand-written schemas)"},
        {
            "zh": "手写的函数定义，本来就是函数调用的格式",
            "en": "function schemas written by hand, already in the function-calling format",
        },
    ),
    Step.QUESTION: ArticleMessage({"zh": "用户的问题", "en": "the user's question"}),
    Step.LIST_TOOLS: ArticleMessage(
        {"zh": "询问有哪些工具（tools/list）", "en": "which tools there are (tools/list)"},
        {"zh": "应用内部（本地的工具定义）", "en": "inside the app (its own schemas)"},
        {"zh": "应用读取自己的函数定义", "en": "the app reads its own function schemas"},
    ),
    Step.ASK_MODEL: ArticleMessage(
        {"zh": "对话加上翻译成函数格式的工具", "en": "the conversation and the tools, translated to functions"},
        {"zh": "应用 → 模型 API", "en": "App → Model API"},
        {"zh": "对话加上应用的函数定义（tools）", "en": "the conversation and the app's function schemas (tools)"},
    ),
    Step.DECISION: ArticleMessage(
        {"zh": "tool_calls：函数名和参数字符串", "en": "tool_calls: a function name and an arguments string"}
    ),
    Step.REVERSE_TRANSLATION: ArticleMessage(
        {"zh": "解析好的调用请求", "en": "the parsed call request"}, {"zh": "应用内部", "en": "inside the app"}
    ),
    Step.CALL_TOOL: ArticleMessage(
        {"zh": "tools/call：请服务器运行这个函数", "en": "tools/call: the server is asked to run the function"},
        {"zh": "应用 → 函数", "en": "app → the function"},
        {
            "zh": "应用调用同名的本地函数（如果有）",
            "en": "the app calls its local function of that name, if it has one",
        },
    ),
    Step.TOOL_RESULT: ArticleMessage(
        {
            "zh": "结果：CallToolResult，或 JSON-RPC 错误",
            "en": "the result: a CallToolResult, or a JSON-RPC error",
        },
        {"zh": "函数 → 应用", "en": "function → app"},
        {"zh": "函数的返回值，或一个错误", "en": "the function's return value, or an error"},
    ),
    Step.BACKFILL: ArticleMessage(
        {"zh": "整段对话加上 role 为 tool 的结果", "en": 'the whole conversation plus the role "tool" results'}
    ),
    Step.MODEL_ANSWER: ArticleMessage({"zh": "最终回答的文字", "en": "the answer's text"}),
    Step.SHOW_ANSWER: ArticleMessage({"zh": "展示给用户的回答", "en": "the answer shown to the user"}),
}


# What crosses at a message where an API other than Chat Completions carries it differently.
API_CROSSES: dict[ApiName, dict[Step, dict[Lang, str]]] = {api: words.crosses for api, words in WORDS.items()}


@dataclass(frozen=True)
class HostedMessage:
    """One of the articles' messages in hosted MCP, where the provider is the MCP client: the way it really goes
    and what crosses; `by_api` where the API's own items say it."""

    route: dict[Lang, str]
    crosses: dict[Lang, str]
    by_api: dict[ApiName, dict[Lang, str]] | None = None


def _by_api(step: Step) -> dict[ApiName, dict[Lang, str]]:
    """What crosses at `step` in hosted MCP, in each API's own words where it has them."""
    return {api: words.hosted_crosses[step] for api, words in WORDS.items() if step in words.hosted_crosses}


_INSIDE: dict[Lang, str] = {"zh": "服务商内部（应用看不到）", "en": "inside the provider (out of the app's sight)"}
_CLIENT_TO_SERVER: dict[Lang, str] = {
    "zh": "服务商的 MCP 客户端 → MCP 服务器",
    "en": "the provider's MCP client → MCP server",
}


# Hosted MCP: the app names a server and the provider does messages 2 and 4-8 itself. Every row is true of every
# hosted trace; what a trace shows of the provider's part (frames a recorder saw at the server, the provider's
# report) is the hops column's.
HOSTED_MESSAGES: dict[Step, HostedMessage] = {
    Step.TOOLS_EXIST: HostedMessage(
        {"zh": "MCP 服务器", "en": "MCP Server"},
        {"zh": "由装饰器生成的工具清单", "en": "the tool list built from decorators"},
    ),
    Step.QUESTION: HostedMessage(
        {"zh": "用户 → 应用", "en": "User → App"}, {"zh": "用户的问题", "en": "the user's question"}
    ),
    Step.LIST_TOOLS: HostedMessage(
        _CLIENT_TO_SERVER,
        {
            "zh": "tools/list：服务商的客户端询问有哪些工具，应用不参与",
            "en": "tools/list, asked by the provider's client; the app takes no part",
        },
    ),
    Step.ASK_MODEL: HostedMessage(
        {"zh": "应用 → 模型 API", "en": "App → Model API"},
        {
            "zh": "对话加上写明 MCP 服务器的条目，没有函数定义",
            "en": "the conversation and an entry naming the MCP server, no functions",
        },
        _by_api(Step.ASK_MODEL),
    ),
    Step.DECISION: HostedMessage(
        {
            "zh": "服务商内部（应用看不到；要批准时：模型 API → 应用）",
            "en": "inside the provider (out of the app's sight; an approval request: Model API → App)",
        },
        {
            "zh": "服务商的模型选定一个工具调用；要应用批准时，响应里带回 mcp_approval_request",
            "en": "the provider's model chooses a call; where the app must approve it, an mcp_approval_request comes "
            "back",
        },
    ),
    Step.REVERSE_TRANSLATION: HostedMessage(
        _INSIDE,
        {"zh": "服务商把模型的调用变成 tools/call", "en": "the provider turns its model's call into a tools/call"},
    ),
    Step.CALL_TOOL: HostedMessage(
        {"zh": "服务商的 MCP 客户端 → MCP 服务器 → 工具", "en": "the provider's MCP client → MCP server → tool"},
        {
            "zh": "tools/call：服务商的客户端请服务器运行这个函数",
            "en": "tools/call: the provider's client asks the server to run it",
        },
    ),
    Step.TOOL_RESULT: HostedMessage(
        {"zh": "工具 → MCP 服务器 → 服务商的 MCP 客户端", "en": "tool → MCP server → the provider's MCP client"},
        {
            "zh": "结果：CallToolResult，交给服务商，不交给应用",
            "en": "the result: a CallToolResult, to the provider, not the app",
        },
    ),
    Step.BACKFILL: HostedMessage(
        {
            "zh": "服务商内部（应用看不到；批准的答复：应用 → 模型 API）",
            "en": "inside the provider (out of the app's sight; an approval answer: App → Model API)",
        },
        {
            "zh": "结果在服务商内部交回它的模型；要批准时，应用在这里发出 mcp_approval_response",
            "en": "the result goes back to the provider's model inside the provider; where approval was asked, the "
            "app's mcp_approval_response goes here",
        },
    ),
    Step.MODEL_ANSWER: HostedMessage(
        {"zh": "模型 API → 应用", "en": "Model API → App"},
        {"zh": "回答的文字，加上服务商的报告", "en": "the answer's text, with the provider's report"},
        _by_api(Step.MODEL_ANSWER),
    ),
    Step.SHOW_ANSWER: HostedMessage(
        {"zh": "应用 → 用户", "en": "App → User"}, {"zh": "展示给用户的回答", "en": "the answer shown to the user"}
    ),
}


assert set(HOSTED_MESSAGES) == set(Step)


LESSON_TEXT: dict[str, dict[Lang, str]] = {
    "subtitle": {
        "zh": "教案：一个问题走过的每一跳（{mode}模式，共 {hops} 跳）",
        "en": "Lesson script: every hop of one question ({mode} mode, {hops} hops)",
    },
    "mode.mcp": {"zh": "MCP ", "en": "MCP"},
    "mode.direct": {"zh": "直接调用", "en": "direct"},
    "mode.hosted": {"zh": "托管 MCP ", "en": "hosted MCP"},
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
    "missing.stopped": {
        "zh": "无：运行在第 {seq} 跳（第 {n} 条消息）停止",
        "en": "none: the run stopped at hop {seq} (message {n})",
    },
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
