"""What each of the flow's steps means in general, in both languages: the text a step page shows above its hops."""

from __future__ import annotations

from flow.text.apis import api_words
from flow.text.names import Lang
from flow.trace.steps import Step
from flow.wire.base import ApiName

# What happens in each step, in general.
STEP_TEXTS: dict[Step, dict[Lang, str]] = {
    Step.TOOLS_EXIST: {
        "en": "Before anyone asks anything, the tools exist: their names, descriptions and argument schemas. "
        "In MCP the server holds them (the demo server builds them from decorated Python functions); in direct "
        "mode the app's developer writes them by hand.",
        "zh": "在任何提问之前，工具已经存在：名字、描述和参数的 JSON Schema。在 MCP 中，它们由服务器持有（演示服务器根据加了装饰器的 "
        "Python 函数生成）；在直接调用模式下，由应用的开发者手写。",
    },
    Step.QUESTION: {
        "en": "The user types a question into the app. Nothing has gone to the model yet.",
        "zh": "用户在应用里输入问题。此时还没有任何东西发给模型。",
    },
    Step.LIST_TOOLS: {
        "en": "The app needs the tool list before it can ask the model. In protocol 2025-11-25 and earlier "
        "the MCP client first opens a session (initialize, then notifications/initialized); 2026-07-28 "
        "has no session, and the client may first ask server/discover what the server supports, or skip "
        "it. Then it asks for tools/list, page by page if the server pages it.",
        "zh": "应用在询问模型之前需要工具清单。在 2025-11-25 及更早的协议里，MCP 客户端先建立会话（initialize，再发 "
        "notifications/initialized）；2026-07-28 协议没有会话，客户端可以先用 server/discover 询问服务器支持什么，也可以省掉这一步。然后它请求 "
        "tools/list，服务器分页时就一页一页地取。",
    },
    Step.ASK_MODEL: {
        "en": "The app sends the conversation and the tool definitions to the model in one chat.completions "
        "request. The model only sees this JSON: each tool's name, description and parameter schema are "
        "all it knows about that tool.",
        "zh": "应用把对话和工具定义放进一次 chat.completions 请求发给模型。模型只能看到这段 JSON：每个工具的名字、描述和参数的 Schema 就是它对这个工具的全部了解。",
    },
    Step.DECISION: {
        "en": "The model does not run anything; it only states an intent: a function name and arguments as a JSON "
        'string, with finish_reason "tool_calls". Each call has an id the answer must quote.',
        "zh": '模型并不执行任何东西，它只表达意图：函数名和一个 JSON 字符串形式的参数，finish_reason 为 "tool_calls"。每个调用都有一个 id，之后的结果必须引用它。',
    },
    Step.REVERSE_TRANSLATION: {
        "en": "Reverse translation: the app parses the arguments string into a JSON object and hands the MCP client "
        "a call request (name + arguments). If the string is not valid JSON, nothing is called.",
        "zh": "反向翻译：应用把参数字符串解析成 JSON 对象，交给 MCP 客户端一个调用请求（名字 + 参数）。如果字符串不是合法 JSON，就不会调用任何工具。",
    },
    Step.CALL_TOOL: {
        "en": "The MCP client sends a JSON-RPC tools/call request. The server looks the tool up and checks "
        "the arguments; only a tool it has, given arguments that fit, runs its function, and otherwise "
        "the answer is an error and nothing runs.",
        "zh": "MCP 客户端发送 JSON-RPC 的 tools/call 请求。服务器先查找工具、校验参数；只有工具存在且参数符合时才运行它的函数，否则回答的是错误，什么也不运行。",
    },
    Step.TOOL_RESULT: {
        "en": "The result travels back as a CallToolResult: content blocks, isError and, for a tool with an "
        "outputSchema, structuredContent. A tool that fails still answers with a result (isError: "
        "true), so the model can read what went wrong; the app sends only the text content on, since a "
        "tool message carries text.",
        "zh": "结果以 CallToolResult 返回：内容块、isError，工具有 outputSchema 时还有 structuredContent。工具失败时仍然返回结果（isError: "
        "true），这样模型能读到出了什么错；应用只把其中的文字内容传下去，因为工具消息只能带文字。",
    },
    Step.BACKFILL: {
        "en": 'Backfill: the model has no memory between requests, so the app sends the whole conversation again, now with the assistant\'s tool_calls message and one role "tool" message per call, each quoting its tool_call_id. The loop goes on until a reply has no tool_calls.',
        "zh": '回填：模型在两次请求之间没有记忆，所以应用再次发送整段对话，这次加上助手的 tool_calls 消息，以及每个调用对应的 role "tool" 消息，各自引用 tool_call_id。循环一直进行，直到某次回复里没有 tool_calls。',
    },
    Step.MODEL_ANSWER: {
        "en": 'With the results in front of it, the model writes the answer: content text and finish_reason "stop".',
        "zh": '看到工具结果后，模型写出最终回答：content 文本，finish_reason 为 "stop"。',
    },
    Step.SHOW_ANSWER: {
        "en": "The app shows the answer to the user. Count the model calls in this trace: every round of tools "
        "costs one request to decide, and one more request writes the answer.",
        "zh": "应用把回答展示给用户。数一数这次运行的模型请求：每一轮工具调用都要一次请求来做决定，最后还要一次请求来写回答。",
    },
}


def step_texts(api: ApiName = "chat") -> dict[Step, dict[Lang, str]]:
    """What each step means in general, in the terms of the model API a trace was recorded with."""
    return {**STEP_TEXTS, **api_words(api).step_texts}
