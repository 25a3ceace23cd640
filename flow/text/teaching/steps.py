"""What each of the flow's steps means in general, in both languages: the text a step page shows above its hops."""

from __future__ import annotations

from flow.text.names import Lang
from flow.trace.steps import Step

# What happens in each step, in general.
STEP_TEXTS: dict[Step, dict[Lang, str]] = {
    Step.TOOLS_EXIST: {
        "en": "Before anyone asks anything, the tools exist: their names, descriptions and argument schemas. "
        "In MCP they are built by the server from decorated Python functions.",
        "zh": "在任何提问之前，工具已经存在：名字、描述和参数的 JSON Schema。在 MCP 中，它们由服务器根据加了装饰器的 Python 函数生成。",
    },
    Step.QUESTION: {
        "en": "The user types a question into the app. Nothing has gone to the model yet.",
        "zh": "用户在应用里输入问题。此时还没有任何东西发给模型。",
    },
    Step.LIST_TOOLS: {
        "en": "The app needs the tool list before it can ask the model. The MCP client opens a session "
        "(initialize, or server/discover in the 2026 protocol) and asks the server for tools/list.",
        "zh": "应用在询问模型之前需要工具清单。MCP 客户端先建立会话（initialize，或 2026 协议中的 server/discover），再向服务器请求 tools/list。",
    },
    Step.ASK_MODEL: {
        "en": "The app sends the conversation and the tool definitions to the model in one chat.completions request. "
        "The model only sees this JSON: the tool descriptions are all it knows about the tools.",
        "zh": "应用把对话和工具定义放进一次 chat.completions 请求发给模型。模型只能看到这段 JSON：工具描述就是它对工具的全部了解。",
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
        "en": "The MCP client sends a JSON-RPC tools/call request; the server validates the arguments and runs the "
        "real Python function.",
        "zh": "MCP 客户端发送 JSON-RPC 的 tools/call 请求；服务器校验参数并运行真正的 Python 函数。",
    },
    Step.TOOL_RESULT: {
        "en": "The result travels back as a CallToolResult: content blocks plus isError. A tool that fails still "
        "answers with a result (isError: true), so the model can read what went wrong.",
        "zh": "结果以 CallToolResult 返回：内容块加上 isError。工具失败时仍然返回结果（isError: true），这样模型能读到出了什么错。",
    },
    Step.BACKFILL: {
        "en": "Backfill: the app sends the whole conversation again, now with the assistant's tool_calls message and "
        'one role "tool" message per call, each quoting its tool_call_id. The model has no memory between requests.',
        "zh": '回填：应用再次发送整段对话，这次加上助手的 tool_calls 消息，以及每个调用对应的 role "tool" 消息，各自引用 tool_call_id。模型在两次请求之间没有记忆。',
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
