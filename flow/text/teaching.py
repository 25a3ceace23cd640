"""The teaching text for each hop: two or three sentences on what happens and why, in both languages."""

from __future__ import annotations

from flow.text.names import Lang
from flow.trace.model import Hop
from flow.trace.steps import Step, explain_key

_T = dict[str, dict[Lang, str]]


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


# What one hop of a step says, by its `explain` key ("step{n}.{kind}", `flow.trace.steps.explain_key`); and what a
# kind says wherever it is, by the kind alone.
HOP_TEXTS: _T = {
    "step0.prepare.tools": {
        "en": "Before anyone asks anything, the tools exist: names, descriptions and argument schemas. "
        "Here they come from decorated functions (MCP) or are written by hand in OpenAI's format (direct mode).",
        "zh": "在任何提问之前，工具已经存在：名字、描述和参数 Schema。MCP 模式下由装饰器从函数生成；直接调用模式下由开发者按 OpenAI 格式手写。",
    },
    "step2.tool.list": {
        "en": "In direct mode there is no server to ask: the app already holds its tool schemas, written by hand.",
        "zh": "直接调用模式没有服务器可问：应用手里已经有手写的工具定义。",
    },
    "step2.mcp.notification": {
        "en": "A notification has no id and expects no answer. notifications/initialized tells the server the "
        "handshake is done and normal requests may follow.",
        "zh": "通知没有 id，也不需要回复。notifications/initialized 告诉服务器握手完成，可以开始正常请求了。",
    },
    "step3.translate.forward": {
        "en": "Forward translation: each MCP tool's inputSchema becomes the parameters of an OpenAI function. "
        "The schema itself hardly changes; it is the wrapper that differs.",
        "zh": "正向翻译：每个 MCP 工具的 inputSchema 变成 OpenAI 函数的 parameters。Schema 本身几乎不变，变的是外层的包装格式。",
    },
    "step4.llm.chunk": {
        "en": "When streaming, the decision arrives in pieces: first the tool call's id and name, then the arguments "
        "string a few characters at a time. The app must join them before it can parse anything.",
        "zh": "流式输出时，决策分片到达：先是工具调用的 id 和名字，然后参数字符串一小段一小段地来。应用必须先拼接完整才能解析。",
    },
    "step4.llm.assembled": {
        "en": "The app has joined the streamed pieces into complete tool_calls: the same message a non-streaming "
        "response would have carried.",
        "zh": "应用把流式分片拼成了完整的 tool_calls，与非流式响应携带的消息完全相同。",
    },
    "step5.error": {
        "en": "The arguments could not be used (not JSON, or not what the schema asks). The app does not call the tool; "
        "it sends the error back to the model as the tool's result, so the model can correct itself.",
        "zh": "参数无法使用（不是 JSON，或不符合 Schema）。应用不调用工具，而是把错误作为工具结果发回模型，让模型自己改正。",
    },
    "step6.tool.invoke": {
        "en": "In direct mode the app calls the Python function itself, in its own process: no protocol, no server.",
        "zh": "直接调用模式下，应用在自己的进程里直接调用 Python 函数：没有协议，也没有服务器。",
    },
    "step7.mcp.error": {
        "en": "A JSON-RPC error is a protocol error, not a tool result: here the tool does not exist. The app turns it "
        "into a tool message so the model can try again.",
        "zh": "JSON-RPC 错误是协议错误，不是工具结果：这里是工具不存在。应用把它转成工具消息，让模型重试。",
    },
    "step7.error": {
        "en": "No answer came back: the server died or did not answer in time. The client gives up on its own, "
        "and the app ends the run with a clear message.",
        "zh": "没有收到回复：服务器进程退出了，或没有按时回答。客户端自行放弃，应用以一条清楚的消息结束本次运行。",
    },
    "step10.error": {
        "en": "The run could not finish. The app tells the user in one line instead of an answer; the trace keeps "
        "every hop up to the failure.",
        "zh": "本次运行无法完成。应用用一行文字代替回答告诉用户；trace 保留了失败之前的每一跳。",
    },
    "mcp.request": {
        "en": "A JSON-RPC request: it has an id, and the answer will carry the same id.",
        "zh": "一个 JSON-RPC 请求：带有 id，回复会带上同样的 id。",
    },
    "mcp.response": {
        "en": "A JSON-RPC response, matched to its request by id.",
        "zh": "一个 JSON-RPC 响应，靠 id 与请求对应。",
    },
    "mcp.notification": {
        "en": "A JSON-RPC notification: no id, no answer expected.",
        "zh": "一个 JSON-RPC 通知：没有 id，不需要回复。",
    },
    "llm.error": {
        "en": "The model endpoint answered with an error (or not at all). The status and body are recorded as they came.",
        "zh": "模型接口返回了错误（或没有回答）。状态码和内容按原样记录。",
    },
    "replay.divergence": {
        "en": "The re-run departed from the recording here: what the app sent, or what a tool returned, is not what "
        "was recorded.",
        "zh": "重放在这里偏离了录制：应用发送的内容或工具返回的结果与录制时不同。",
    },
    "error": {
        "en": "Something went wrong here; it is recorded where it happened.",
        "zh": "这里出了问题；它被记录在发生的位置。",
    },
}


def teaching_text(hop: Hop, lang: Lang = "zh") -> str:
    """The hop's own text (by its `explain` key; worked out for a file that has none), else its step's, else its
    kind's."""
    text = HOP_TEXTS.get(hop.explain or explain_key(hop.step, hop.kind))
    text = text or (STEP_TEXTS.get(hop.step) if hop.step is not None else None) or HOP_TEXTS.get(hop.kind)
    if text is not None:
        return text[lang]
    return {"en": "A message crossing between two parts of the system.", "zh": "系统两个部分之间传递的一条消息。"}[lang]
