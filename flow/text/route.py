"""The words of the articles' route, in Chinese and English: the ten messages and phase zero, the articles' four
phases, why a message is missing from a trace, and the restaurant captions for a first lesson.

The facts follow the source articles (the ten messages of one question, the restaurant metaphor: customer,
ordering system, the waiter's brain, the kitchen); the sentences are the project's own.
"""

from __future__ import annotations

from flow.text.names import ACTOR_NAMES, Lang
from flow.trace.model import Actor, Hop, as_dict
from flow.trace.payloads import McpRequest, McpResponse, UserInput, is_a
from flow.trace.route import Reason
from flow.trace.steps import ArticlePhase, Step

MESSAGE_NAMES: dict[Step, dict[Lang, str]] = {
    Step.TOOLS_EXIST: {"zh": "工具清单", "en": "tool list"},
    Step.QUESTION: {"zh": "用户提问", "en": "question"},
    Step.LIST_TOOLS: {"zh": "有哪些工具", "en": "which tools"},
    Step.ASK_MODEL: {"zh": "带工具问模型", "en": "ask with tools"},
    Step.DECISION: {"zh": "模型决策", "en": "model decides"},
    Step.REVERSE_TRANSLATION: {"zh": "请求执行", "en": "call request"},
    Step.CALL_TOOL: {"zh": "调用函数", "en": "call the function"},  # asked for: a server may refuse, or never answer
    Step.TOOL_RESULT: {"zh": "结果返回", "en": "result back"},
    Step.BACKFILL: {"zh": "回填结果", "en": "results back in"},
    Step.MODEL_ANSWER: {"zh": "最终回答", "en": "final answer"},
    Step.SHOW_ANSWER: {"zh": "展示回答", "en": "answer shown"},
}

# Who hands what to whom as the articles tell it (the app may draw it otherwise: see `route_text`).
_ARTICLE_ROUTE: dict[Step, tuple[Actor, ...]] = {
    Step.TOOLS_EXIST: ("mcp_server",),
    Step.QUESTION: ("user", "app"),
    Step.LIST_TOOLS: ("app", "mcp_client"),
    Step.ASK_MODEL: ("mcp_client", "model"),
    Step.DECISION: ("model", "app"),
    Step.REVERSE_TRANSLATION: ("app", "mcp_client"),
    Step.CALL_TOOL: ("mcp_client", "tool"),
    Step.TOOL_RESULT: ("tool", "mcp_client", "app"),
    Step.BACKFILL: ("app", "model"),
    Step.MODEL_ANSWER: ("model", "app"),
    Step.SHOW_ANSWER: ("app", "user"),
}

# The same, short enough for a one-column band of the overview.
ARTICLE_PHASE_SHORT: dict[ArticlePhase, dict[Lang, str]] = {
    0: {"zh": "阶段零 · 准备", "en": "0 · prepare"},
    1: {"zh": "阶段一 · 发出请求", "en": "Phase 1 · request"},
    2: {"zh": "阶段二 · 决策", "en": "2 · decision"},
    3: {"zh": "阶段三 · 执行", "en": "Phase 3 · execute"},
    4: {"zh": "阶段四 · 回填并回答", "en": "Phase 4 · backfill and answer"},
}

ARTICLE_PHASE_NAMES: dict[ArticlePhase, dict[Lang, str]] = {
    0: {"zh": "阶段零 · 准备", "en": "Phase 0 · prepare"},
    1: {"zh": "阶段一 · 发出请求（正向翻译）", "en": "Phase 1 · request (forward translation)"},
    2: {"zh": "阶段二 · 模型决策", "en": "Phase 2 · the model decides"},
    3: {"zh": "阶段三 · 执行（反向翻译）", "en": "Phase 3 · execute (reverse translation)"},
    4: {"zh": "阶段四 · 回填并回答", "en": "Phase 4 · backfill and answer"},
}

# Direct mode translates nothing: its schemas are written in the function-calling format, and the app finds its
# own function by name (the articles' translations are MCP's, between its tool list and that format).
DIRECT_PHASE_NAMES: dict[ArticlePhase, dict[Lang, str]] = {
    **ARTICLE_PHASE_NAMES,
    1: {"zh": "阶段一 · 发出请求", "en": "Phase 1 · request"},
    3: {"zh": "阶段三 · 执行", "en": "Phase 3 · execute"},
}

# The source articles the lesson follows (docs/teachers.*.md lists them), each named where the app cites it.
ARTICLES: dict[str, dict[Lang, str]] = {
    "000": {
        "zh": "文章 000：把用户问“北京今天天气怎么样？”拆成十条消息、四个阶段来讲的那篇（无标题；OpenAI 模型，"
        "get_weather 由 MCP 提供，还有餐厅的比喻）。本课的消息编号和阶段都沿用它。",
        "en": "Article 000: the one that takes the question “北京今天天气怎么样？” (Beijing weather) apart into ten "
        "messages in four phases (untitled; an OpenAI model, get_weather served over MCP, and the restaurant "
        "metaphor). The lesson numbers its messages and phases as it does.",
    },
    "001": {
        "zh": "文章 001：标题问函数调用会不会被 MCP 取代，讲清两者的关系和函数调用的使用细节（tool_choice、并行调用、流式输出等）。",
        "en": "Article 001 (in Chinese; its title translated): “Will MCP replace function calling? How the two relate, "
        "and the details of using them”: function calling in depth, and how MCP relates to it.",
    },
    "002": {
        "zh": "文章 002：详解 MCP 协议、它和函数调用的区别，并给出一个对接 OpenAI 兼容服务商（硅基流动、Qwen2.5）的实例。",
        "en": "Article 002 (in Chinese; its title translated): “MCP explained: how it differs from function calls, and using it in practice”: a worked "
        "example against an OpenAI-compatible provider (SiliconFlow, Qwen2.5).",
    },
    "004": {
        "zh": "文章 004：讲 MCP 与函数调用、大模型工具接入的标准化，包括 MCP 的生命周期、工具、资源和提示模板、两种传输、错误与超时、"
        "安全，以及工具定义的开销。",
        "en": "Article 004 (in Chinese; its title translated): “MCP vs function calling: how tool access for large models is being standardised”: MCP's "
        "lifecycle, its three primitives, transports, errors, timeouts and security, and what tool definitions cost.",
    },
}

# The messages an article tells wrongly, and which article: the cell opens the whole correction (REASON_TEXT).
CORRECTS: dict[Reason, str] = {"host_sends": "000", "host_pairs": "000"}

# A word for the message's cell, and the sentence that says why.
REASON_SHORT: dict[Reason, dict[Lang, str]] = {
    "direct_in_process": {"zh": "进程内", "en": "in process"},
    "server_silent": {"zh": "服务器未报告", "en": "not reported"},
    "no_tool_call": {"zh": "未调用工具", "en": "no tool call"},
    "unanswered": {"zh": "没有回答", "en": "no answer"},
    "timed_out": {"zh": "超时", "en": "timed out"},
    "connection_closed": {"zh": "连接断开", "en": "disconnected"},
    "failed_here": {"zh": "在此出错", "en": "failed here"},
    "stopped": {"zh": "运行已中止", "en": "run stopped"},
    "error_shown": {"zh": "显示错误", "en": "error shown"},
    "host_sends": {"zh": "文章有误", "en": "article wrong"},
    "host_pairs": {"zh": "文章有误", "en": "article wrong"},
    "not_recorded": {"zh": "未记录", "en": "not recorded"},
    "at_provider": {"zh": "在服务商", "en": "at provider"},
}

REASON_TEXT: dict[Reason, dict[Lang, str]] = {
    "direct_in_process": {
        "zh": "直接调用模式没有 MCP 客户端和服务器：这条消息缩成了应用进程内的一跳。",
        "en": "Direct mode has no MCP client or server: this message shrinks to a hop inside the app's own process.",
    },
    "server_silent": {
        "zh": "这个服务器没有报告它执行了工具：能看到 tools/call 请求，看不到函数在服务器里运行的那一跳。",
        "en": "This server did not report its execution: the tools/call request is here, the function running "
        "inside the server is not.",
    },
    "no_tool_call": {
        "zh": "模型没有要求调用工具，直接给出了回答，所以这条消息没有发生。",
        "en": "The model answered without asking for a tool, so this message never happened.",
    },
    "unanswered": {
        "zh": "tools/call 请求发出了，却没有等到回答：函数有没有运行，服务器没有说。运行在第 7 条消息处停止。",
        "en": "The tools/call request went out and no answer came back: whether the function ran, the server never "
        "said. The run stopped at message 7.",
    },
    "timed_out": {
        "zh": "运行在这条消息处停止：时限内没有收到完整的回答，等待的一方放弃了（超时）。这一跳是等待方自己记下的，"
        "对方并没有发来它。",
        "en": "The run stopped at this message: no complete answer came within the time limit, and the side that "
        "was waiting gave up (a timeout). That side recorded this hop itself; the other side never sent it.",
    },
    "connection_closed": {
        "zh": "运行在这条消息处停止：还没有任何回答，与 MCP 服务器的连接就关闭了，没有结果返回。",
        "en": "The run stopped at this message: the connection to the MCP server closed before any answer came, so "
        "no result came back.",
    },
    "failed_here": {
        "zh": "运行在这条消息处因错误停止（这条消息的最后一跳写明了原因），之后只把错误告诉了用户。",
        "en": "The run stopped at this message with an error (its last hop says which); after it, the user was only "
        "told the error.",
    },
    "stopped": {
        "zh": "运行在更早的一条消息处（这次运行到达的最后一条）出错停止了，这条消息没有发出。",
        "en": "The run stopped with an error at an earlier message (the last one this run reached), so this "
        "message was never sent.",
    },
    "error_shown": {
        "zh": "没有回答：运行出错停止了，应用把错误展示给用户，代替回答。",
        "en": "No answer: the run stopped with an error, and the app shows the user the error instead.",
    },
    "host_sends": {
        "zh": "文章 000 把这条消息画成 MCP 客户端 → 模型 API，这是错的：MCP 没有规定任何函数调用的格式。"
        "是宿主应用把 MCP 的工具清单翻译成函数定义，再由它自己把请求发给模型 API。",
        "en": "Article 000 draws this message as MCP Client → Model API, and that is wrong: MCP defines no "
        "function-calling format. The host app translates the MCP tool list into function schemas and sends the "
        "request to the model API itself.",
    },
    "host_pairs": {
        "zh": "文章 000 里 MCP 返回的结果带着 tool_call_id，这是错的：CallToolResult 没有这个字段，MCP 从不经手 "
        "tool_call_id。MCP 客户端按 JSON-RPC 的 id 收到回答；是宿主应用记着这次 tools/call 是为哪个工具调用发的，"
        "再把这个调用的 id 写进给模型的结果里（Chat Completions 是 role 为 tool 的消息的 tool_call_id，Responses 是 "
        "function_call_output 的 call_id，Anthropic Messages 是 tool_result 的 tool_use_id）。",
        "en": "Article 000 gives the MCP result a tool_call_id, and that is wrong: a CallToolResult has no such "
        "field, and MCP never sees a tool_call_id. The MCP client gets its answer by the JSON-RPC id; the host app "
        "remembers which tool call it sent that tools/call for, and writes that call's id into the result it "
        'sends the model itself (Chat Completions: the role "tool" message\'s tool_call_id; Responses: the '
        "function_call_output's call_id; Anthropic Messages: the tool_result's tool_use_id).",
    },
    "not_recorded": {
        "zh": "这份记录里没有属于这条消息的跳。",
        "en": "This recording holds no hop of this message.",
    },
    "at_provider": {
        "zh": "托管 MCP：这条消息发生在模型服务商那里（它的 MCP 客户端和它的模型之间，或它的客户端和服务器之间），"
        "不经过应用。这里能看到的帧是记录器在服务器那一端看到的，或是服务商事后的报告。",
        "en": "Hosted MCP: this message happens at the model provider (between its MCP client and its model, or its "
        "client and the server) and never crosses the app. What this trace shows of it is what a recorder saw at the "
        "server, or the provider's report afterwards.",
    },
}

# The restaurant: the customer (user), the ordering system (app + MCP), the waiter's brain (the model),
# the kitchen (the real function).
CAPTIONS: dict[Step, dict[Lang, str]] = {
    Step.TOOLS_EXIST: {
        "zh": "开门之前，后厨先把会做的菜写成一张菜单。",
        "en": "Before opening, the kitchen writes down the dishes it can make.",
    },
    Step.QUESTION: {"zh": "顾客开口点菜。", "en": "The customer orders."},
    Step.LIST_TOOLS: {
        "zh": "点餐系统翻出今天的菜单。",
        "en": "The ordering system pulls out today's menu.",
    },
    Step.ASK_MODEL: {
        "zh": "点餐系统把菜单改写成服务员大脑读得懂的样子，连同顾客的话一起递过去。",
        "en": "The ordering system rewrites the menu the way the waiter's brain reads it, and passes it on with "
        "the customer's words.",
    },
    Step.DECISION: {
        "zh": "服务员的大脑拿主意：开一张单子，自己不下厨。",
        "en": "The waiter's brain decides: it writes an order slip and cooks nothing itself.",
    },
    Step.REVERSE_TRANSLATION: {
        "zh": "单子交回点餐系统，由它转给后厨。",
        "en": "The slip goes back to the ordering system, which passes it to the kitchen.",
    },
    Step.CALL_TOOL: {"zh": "后厨照着单子做菜。", "en": "The kitchen cooks what the slip says."},
    Step.TOOL_RESULT: {"zh": "菜做好了，送回前台。", "en": "The dish is ready and comes back to the front."},
    Step.BACKFILL: {
        "zh": "菜不直接端给顾客：服务员先向大脑汇报单子和做好的菜。",
        "en": "The dish does not go straight to the customer: the waiter first reports the slip and the dish to "
        "the brain.",
    },
    Step.MODEL_ANSWER: {
        "zh": "大脑想好要对顾客说的话。",
        "en": "The brain works out what to tell the customer.",
    },
    Step.SHOW_ANSWER: {"zh": "服务员把这句话带给顾客。", "en": "The waiter tells the customer."},
}


# Where the articles draw an MCP message's way wrongly, the way it really goes (see REASON_TEXT["host_sends"]).
_TRUE_ROUTE: dict[Step, tuple[Actor, ...]] = {Step.ASK_MODEL: ("app", "model")}

_ARTICLE_SAYS: dict[Lang, str] = {"zh": "{route}（文章画成 {article}）", "en": "{route} (the article: {article})"}


def article_route(step: Step, lang: Lang) -> str:
    """The message's way as the articles tell it: "App → MCP Client"."""
    return " → ".join(ACTOR_NAMES[a][lang] for a in _ARTICLE_ROUTE[step])


def route_cell(step: Step, lang: Lang) -> str:
    """The message's way in MCP mode as a table shows it: the articles', or where they draw it wrongly, the real
    way with theirs beside it."""
    if step not in _TRUE_ROUTE:
        return article_route(step, lang)
    way = " → ".join(ACTOR_NAMES[a][lang] for a in _TRUE_ROUTE[step])
    return _ARTICLE_SAYS[lang].format(route=way, article=article_route(step, lang))


assert set(MESSAGE_NAMES) == set(_ARTICLE_ROUTE) == set(CAPTIONS) == set(Step)


# The articles' ten messages have no place for a server that asks: what it asks happens inside message 6, while the
# tools/call waits for its answer (2025-11-25), or between the rounds of that call (2026-07-28).
ASIDE_TEXT: dict[str, dict[Lang, str]] = {
    "server_asks": {
        "zh": "第 6 条消息之内：服务器反过来发问（文章的十条消息里没有这一步），tools/call 还在等它的结果。",
        "en": "Inside message 6: the server asks back (a step the articles' ten messages do not have), while the "
        "tools/call waits for its result.",
    },
    "input_round": {
        "zh": "第 6、7 条消息之间：服务器要先拿到输入，同一次调用要再走一轮（文章的十条消息里没有这一步）。",
        "en": "Between messages 6 and 7: the server needs input first, so the same call takes another round (a step "
        "the articles' ten messages do not have).",
    },
}


def aside_of(hop: Hop) -> dict[Lang, str] | None:
    """Where a hop of a server that asks fits among the articles' ten messages; None for any other hop."""
    payload = as_dict(hop.payload)
    params, result = as_dict(payload.get("params")), as_dict(payload.get("result"))
    if result.get("resultType") == "input_required" or "inputResponses" in params or "requestState" in params:
        return ASIDE_TEXT["input_round"]
    asks = is_a(hop, McpRequest) and hop.source == "mcp_server"
    answers = is_a(hop, McpResponse) and (hop.source, hop.target) == ("mcp_client", "mcp_server")
    if asks or answers or "for_server" in payload or is_a(hop, UserInput):
        return ASIDE_TEXT["server_asks"]
    return None
