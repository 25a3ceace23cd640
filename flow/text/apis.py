"""Each model API's own words, in one record per API (`ApiWords`): its names for what a recorded hop shows (a
model's calls, why it stopped, the app's answer to a call, the id that pairs them, where a tool holds its JSON
Schema), and its own sentences for the views, the lesson script and the step texts, in Chinese and English. A new
model API writes its words here, and `api_words` makes the type checker ask for them. Which API a hop speaks is
`flow.wire.recorded`'s to tell."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, assert_never, get_args

from flow.text.names import Lang
from flow.trace.steps import Step
from flow.wire.base import ApiName


@dataclass(frozen=True)
class ApiWords:
    """One model API's words. The names are the API's own fields and values, in both languages alike; the texts
    are where the API differs from the others, each field saying which view reads it."""

    name: str  # the API's name: "Chat Completions"
    calls: str  # the field holding a model's calls
    call: str  # one call
    finish: str  # why the model stopped
    result: str  # the app's answer to a call
    pair_id: str  # the id that pairs a call and its answer
    schema: str  # where a tool definition holds its JSON Schema
    tokens: str  # the input's token count
    conversation: str  # the field a request carries the conversation in
    sent: Literal["request", "request_items"]  # how a request's arrow counts what it sends: messages, or items
    streamed: Literal["chunk", "event"]  # what a stream's arrow calls one part of it
    texts: str  # the prefix of its own teaching texts' keys: "responses." ("" for Chat Completions, the first)
    count_fill: str  # the teaching texts' placeholder for what a request sends: "messages", "items"
    finish_fill: str  # the teaching texts' placeholder for why the model stopped: "finish", "status", "stop"
    function_calling: dict[Lang, str]  # what it calls function calling (the four ways)
    refused_result: dict[Lang, str]  # how the app carries a refused call's error back (the run's outcome)
    carries: dict[Lang, str]  # what its requests carry (the closing view)
    carries_hosted: dict[Lang, str]  # what its requests carry in hosted MCP (the closing view)
    tool_shape: dict[Lang, str]  # the shape of its tool definitions (Compare's sentence)
    backfill: dict[Lang, str]  # how it backfills the results (Compare's sentence)
    # What crosses at the articles' messages where it differs from Chat Completions (the lesson script), and
    # where it differs from the hosted rows; and the step texts it has of its own (the Step page).
    crosses: dict[Step, dict[Lang, str]]
    hosted_crosses: dict[Step, dict[Lang, str]]
    step_texts: dict[Step, dict[Lang, str]]

    def names(self) -> dict[str, str]:
        """Its names by the keys the views read and the sentences' `{w_…}` placeholders fill."""
        return {
            "calls": self.calls,
            "call": self.call,
            "finish": self.finish,
            "result": self.result,
            "id": self.pair_id,
            "schema": self.schema,
            "tokens": self.tokens,
            "api": self.name,
            "conversation": self.conversation,
        }


_CHAT = ApiWords(
    name="Chat Completions",
    calls="tool_calls",
    call="tool_call",
    finish="finish_reason",
    result="role: tool",
    pair_id="tool_call_id",
    schema="parameters",
    tokens="prompt_tokens",
    conversation="messages",
    sent="request",
    streamed="chunk",
    texts="",
    count_fill="messages",
    finish_fill="finish",
    function_calling={"zh": "函数调用", "en": "function calling"},
    refused_result={"zh": " tool 消息", "en": "the tool message"},
    carries={
        "zh": "对话消息（messages）和函数调用格式的工具定义（嵌套在 function 里）",
        "en": "the messages and the tools in function-calling format (nested under function)",
    },
    carries_hosted={
        "zh": "对话消息和一个写明 MCP 服务器的条目，没有函数定义",
        "en": "the messages and an entry naming the MCP server, no function tools",
    },
    tool_shape={
        "zh": "嵌套在 function 里，Schema 在 parameters",
        "en": "nested under function, the schema in parameters",
    },
    backfill={
        "zh": "每个调用一条 role 为 tool 的消息，引用 tool_call_id",
        "en": 'sends a role "tool" message per call, quoting its tool_call_id',
    },
    crosses={},
    hosted_crosses={},
    step_texts={},
)


_RESPONSES = ApiWords(
    name="Responses",
    calls="function_call",
    call="function_call",
    finish="status",
    result="function_call_output",
    pair_id="call_id",
    schema="parameters",
    tokens="input_tokens",
    conversation="input",
    sent="request_items",
    streamed="event",
    texts="responses.",
    count_fill="items",
    finish_fill="status",
    function_calling={"zh": "函数调用", "en": "function calling"},
    refused_result={"zh": " function_call_output 项", "en": "a function_call_output item"},
    carries={
        "zh": "输入项（input）和扁平的函数工具定义（type、name、parameters 在同一层）",
        "en": "the input items and the function tools, flat (type, name and parameters side by side)",
    },
    carries_hosted={
        "zh": "输入项（input）和一个 type 为 mcp 的工具（server_label、server_url），没有函数定义；服务商自己的 MCP 客户端去"
        "列出并调用服务器的工具",
        "en": "the input items and one tool of type mcp (server_label, server_url), no function tools; the "
        "provider's own MCP client lists the server's tools and calls them",
    },
    tool_shape={
        "zh": "扁平的，type、name、parameters 在同一层",
        "en": "flat, type, name and parameters side by side",
    },
    backfill={
        "zh": "每个调用一个 function_call_output 项，引用 call_id",
        "en": "sends a function_call_output item per call, quoting its call_id",
    },
    crosses={
        Step.ASK_MODEL: {
            "zh": "instructions、input 项，加上翻译成扁平函数定义的工具",
            "en": "instructions, the input items and the tools, translated to flat function definitions",
        },
        Step.DECISION: {
            "zh": "function_call 项：函数名、参数字符串和 call_id",
            "en": "function_call items: a function name, an arguments string and a call_id",
        },
        Step.BACKFILL: {
            "zh": "function_call_output 项（连同整个 input，或附上 previous_response_id）",
            "en": "function_call_output items (with the whole input again, or beside previous_response_id)",
        },
    },
    hosted_crosses={
        Step.ASK_MODEL: {
            "zh": "instructions、input 项，加上一个 type 为 mcp 的工具（server_label、server_url），没有函数定义",
            "en": "instructions, the input items and one tool of type mcp (server_label, server_url), no functions",
        },
        Step.MODEL_ANSWER: {
            "zh": "回答的文字，加上报告服务商做了什么的 mcp_list_tools 和 mcp_call 项",
            "en": "the answer's text, with mcp_list_tools and mcp_call items reporting what the provider did",
        },
    },
    step_texts={
        Step.ASK_MODEL: {
            "en": "The app sends the conversation and the tool definitions to the model in one Responses request "
            "(POST /responses): the system prompt as instructions, the conversation as input items, each tool flat "
            '({"type": "function", "name", "description", "parameters"}, not nested under function). The model only '
            "sees this JSON: each tool's name, description and parameter schema are all it knows about that tool.",
            "zh": "应用把对话和工具定义放进一次 Responses 请求（POST /responses）发给模型：系统提示放在 instructions，对话是 input "
            '里的项，每个工具是扁平的（{"type": "function", "name", "description", "parameters"}，不嵌套在 function 里）。'
            "模型只能看到这段 JSON：每个工具的名字、描述和参数的 Schema 就是它对这个工具的全部了解。",
        },
        Step.DECISION: {
            "en": "The model does not run anything; it only states an intent: a function_call output item with the "
            "function's name, its arguments as a JSON string, and a call_id the result must quote. No finish reason "
            'says so: the response\'s status is "completed", and the function_call item is the request.',
            "zh": "模型并不执行任何东西，它只表达意图：output 里的一个 function_call 项，带函数名、JSON 字符串形式的参数，以及之后的结果"
            '必须引用的 call_id。没有哪个结束原因说明这一点：响应的 status 是 "completed"，function_call 项本身就是请求。',
        },
        Step.BACKFILL: {
            "en": "Backfill: the app answers each call with a function_call_output input item quoting its call_id. "
            "It either sends the whole input again, the model's function_call items included, or only the new "
            "items beside previous_response_id, and the server adds what it kept of that response. The loop goes "
            "on until a response has no function_call.",
            "zh": "回填：应用为每个调用发一个 function_call_output 输入项，引用它的 call_id。要么把整个 input 连同模型的 function_call "
            "项重新发一遍，要么只发新项并附上 previous_response_id，由服务器补上它保存的那次响应。循环一直进行，直到某次响应里没有 "
            "function_call。",
        },
        Step.MODEL_ANSWER: {
            "en": "With the results in front of it, the model writes the answer: a message output item of "
            'output_text, and status "completed".',
            "zh": '看到工具结果后，模型写出最终回答：output 里的一个 message 项（output_text），status 为 "completed"。',
        },
    },
)


_MESSAGES = ApiWords(
    name="Anthropic Messages",
    calls="tool_use",
    call="tool_use",
    finish="stop_reason",
    result="tool_result",
    pair_id="tool_use_id",
    schema="input_schema",
    tokens="input_tokens",
    conversation="messages",
    sent="request",
    streamed="event",
    texts="messages.",
    count_fill="messages",
    finish_fill="stop",
    function_calling={"zh": "工具调用", "en": "tool use"},
    refused_result={"zh": " tool_result 内容块", "en": "a tool_result block"},
    carries={
        "zh": "顶层的 system、对话消息（messages）和带 input_schema 的工具定义",
        "en": "the top-level system, the messages and the tools with their input_schema",
    },
    carries_hosted={
        "zh": "对话消息（messages）、mcp_servers 和一个 mcp_toolset 工具，没有函数定义；服务商自己的 MCP 客户端去列出并调用"
        "服务器的工具",
        "en": "the messages, mcp_servers and one mcp_toolset tool, no function tools; the provider's own MCP client "
        "lists the server's tools and calls them",
    },
    tool_shape={
        "zh": "name、description 和 input_schema，没有 type",
        "en": "name, description and input_schema, no type",
    },
    backfill={
        "zh": "发一条 user 消息，里面每个调用一个 tool_result 内容块，引用 tool_use_id",
        "en": "sends one user message of tool_result blocks, each quoting a tool_use_id",
    },
    crosses={
        Step.ASK_MODEL: {
            "zh": "顶层 system、messages，加上带 input_schema 的工具",
            "en": "the top-level system, the messages and the tools with their input_schema",
        },
        Step.DECISION: {
            "zh": "tool_use 内容块：工具名、input 对象和 id",
            "en": "tool_use blocks: a tool name, an input object and an id",
        },
        Step.REVERSE_TRANSLATION: {"zh": "取出 input 对象作为调用请求", "en": "the input object, as the call request"},
        Step.BACKFILL: {
            "zh": "整段对话加上一条 user 消息，里面是 tool_result 内容块",
            "en": "the whole conversation plus a user message of tool_result blocks",
        },
    },
    hosted_crosses={
        Step.ASK_MODEL: {
            "zh": "顶层 system、messages、mcp_servers，加上一个 mcp_toolset 工具，没有函数定义",
            "en": "the top-level system, the messages, mcp_servers and one mcp_toolset tool, no functions",
        },
        Step.MODEL_ANSWER: {
            "zh": "回答的文字，加上报告服务商做了什么的 mcp_tool_use 和 mcp_tool_result 内容块",
            "en": "the answer's text, with mcp_tool_use and mcp_tool_result blocks reporting what the provider did",
        },
    },
    step_texts={
        Step.ASK_MODEL: {
            "en": "The app sends the conversation and the tool definitions to the model in one Messages request "
            "(POST /v1/messages): the system prompt in the top-level system field, max_tokens (required), the "
            "messages, and each tool as name, description and input_schema. The model only sees this JSON: each "
            "tool's name, description and input schema are all it knows about that tool.",
            "zh": "应用把对话和工具定义放进一次 Messages 请求（POST /v1/messages）发给模型：系统提示放在顶层的 system 字段，max_tokens "
            "必须给，然后是 messages，每个工具是 name、description 和 input_schema。模型只能看到这段 JSON：每个工具的名字、描述和"
            "输入的 Schema 就是它对这个工具的全部了解。",
        },
        Step.DECISION: {
            "en": "The model does not run anything; it only states an intent: a tool_use content block with the "
            "tool's name, its input as a JSON object (not a string), and an id the result must quote; stop_reason "
            '"tool_use".',
            "zh": "模型并不执行任何东西，它只表达意图：一个 tool_use 内容块，带工具名、JSON 对象形式的 input（不是字符串），以及之后的结果"
            '必须引用的 id；stop_reason 为 "tool_use"。',
        },
        Step.REVERSE_TRANSLATION: {
            "en": "Reverse translation: the tool_use's input is already an object; the app hands it to the MCP "
            "client as a call request (name + arguments). An input that is not a JSON object calls nothing.",
            "zh": "反向翻译：tool_use 的 input 已经是对象，应用把它作为调用请求（名字 + 参数）交给 MCP 客户端。input 不是 JSON 对象时，"
            "不会调用任何工具。",
        },
        Step.BACKFILL: {
            "en": "Backfill: the API keeps nothing between requests, so the app sends the whole conversation again: "
            "the assistant's content blocks as they came, then one user message whose tool_result blocks each quote "
            "a tool_use_id (with is_error when the tool failed). The loop goes on until a reply has no tool_use.",
            "zh": "回填：这个 API 在两次请求之间什么也不记，所以应用再次发送整段对话：助手的内容块原样放回，再加一条 user 消息，里面的每个 "
            "tool_result 内容块各自引用一个 tool_use_id（工具失败时带 is_error）。循环一直进行，直到某次回复里没有 tool_use。",
        },
        Step.MODEL_ANSWER: {
            "en": "With the results in front of it, the model writes the answer: a text content block, stop_reason "
            '"end_turn".',
            "zh": '看到工具结果后，模型写出最终回答：一个 text 内容块，stop_reason 为 "end_turn"。',
        },
    },
)


def api_words(api: ApiName) -> ApiWords:
    """The words of `api`; a model API with none is a type error here."""
    match api:
        case "chat":
            return _CHAT
        case "responses":
            return _RESPONSES
        case "messages":
            return _MESSAGES
        case _:
            assert_never(api)


WORDS: dict[ApiName, ApiWords] = {api: api_words(api) for api in get_args(ApiName)}


API_WORDS: dict[ApiName, dict[str, str]] = {api: words.names() for api, words in WORDS.items()}
"""Each API's names by key (`ApiWords.names`)."""
