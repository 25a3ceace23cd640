"""The teaching texts of the model hops of a Responses or an Anthropic Messages run, in both languages.

The same ten messages cross, in other shapes: these texts say what each API puts on the wire where the articles
(written for Chat Completions) say tool_calls, finish_reason and role "tool". A key is the Chat Completions
situation's key with the API's name in front (`responses.decide.one`); `flow.text.teaching.situations` picks it for a
hop recorded through that API. Facts are the installed SDKs' types (`openai.types.responses`, `anthropic.types`).
"""

from __future__ import annotations

from flow.text.names import Lang

Texts = dict[str, dict[Lang, str]]


_R_TOOL_EN = (
    'each MCP tool ({tools}) becomes a Responses function tool, and a flat one: type "function", name, description '
    "and parameters (the inputSchema under a new name) side by side, where Chat Completions nests them under "
    "function"
)
_R_TOOL_ZH = (
    "每个 MCP 工具（{tools}）都变成 Responses 接口的一个 function 工具，而且是扁平的：type 为 function，name、description 和 "
    "parameters（就是改了名的 inputSchema）并列在同一层，不像 Chat Completions 那样包在 function 里"
)
_R_FIELDS_EN = (
    "a function tool has name, description, parameters and strict, and optional fields this app does not send, "
    "output_schema among them"
)
_R_FIELDS_ZH = (
    "function 工具有 name、description、parameters、strict，还有本应用不发送的可选字段，output_schema 就是其中之一"
)
_M_TOOL_EN = (
    "each MCP tool ({tools}) becomes a Messages tool: name, description and input_schema, which is the inputSchema "
    'under a new name; there is no type "function" and no wrapper around them'
)
_M_TOOL_ZH = (
    "每个 MCP 工具（{tools}）都变成 Messages 接口的一个工具：name、description 和 input_schema，input_schema 就是改了名的 inputSchema；"
    "没有 type: function，外面也不再包一层"
)
_M_FIELDS_EN = "a Messages tool has no such field"
_M_FIELDS_ZH = "Messages 接口的工具没有对应的字段"


def _forward(api: str, tool_en: str, tool_zh: str, fields_en: str, fields_zh: str) -> Texts:
    head_en, head_zh = f"Forward translation, inside the app: {tool_en}.", f"正向翻译，在应用内部完成：{tool_zh}。"
    return {
        f"{api}.translate.forward": {
            "en": f"{head_en} The schema does not cross unchanged: the app removes {{removed}} ({{count}} key(s) in all, "
            f"which only add tokens) and leaves out {{left_out}} ({fields_en}).",
            "zh": f"{head_zh}Schema 并非原样传过去：应用从中删掉了 {{removed}}（一共 {{count}} 个键，它们只会多占词元），还去掉了 "
            f"{{left_out}}（{fields_zh}）。",
        },
        f"{api}.translate.forward.schema": {
            "en": f"{head_en} The schema does not cross unchanged: the app removes {{removed}} ({{count}} key(s) in all), "
            "which only add tokens.",
            "zh": f"{head_zh}Schema 并非原样传过去：应用从中删掉了 {{removed}}（一共 {{count}} 个键），它们只会多占词元。",
        },
        f"{api}.translate.forward.fields": {
            "en": f"{head_en} The schemas cross unchanged, but the app leaves out {{left_out}} ({fields_en}).",
            "zh": f"{head_zh}Schema 原样传过去，但应用去掉了 {{left_out}}（{fields_zh}）。",
        },
        f"{api}.translate.forward.same": {
            "en": f"{head_en} Here the schemas cross unchanged and the tools hold nothing more: only the envelope "
            "differs.",
            "zh": f"{head_zh}这里 Schema 原样传过去，工具也没有别的字段：变的只是外壳。",
        },
        f"{api}.translate.forward.strict": {
            "en": f"{head_en} With strict on, each carries strict true, and the app rewrites its schema so that every "
            "property is required and additionalProperties is false. It also leaves out {removed}: compare the two "
            "sides of this hop key by key.",
            "zh": f"{head_zh}开启 strict 后，每个工具都带 strict: true，应用还改写了它的 Schema：每个属性都变成必填，"
            "additionalProperties 为 false。它另外去掉了 {removed}：把这一跳的两边逐个键对比一下。",
        },
    }


_RESPONSES: Texts = {
    **_forward("responses", _R_TOOL_EN, _R_TOOL_ZH, _R_FIELDS_EN, _R_FIELDS_ZH),
    "responses.prepare.direct": {
        "en": "Direct mode: the developer wrote these schemas by hand, in Chat Completions' function-calling form "
        '(type "function", parameters nested under function): {tools}. No server builds or lists them; before '
        "sending, the app lays each one out flat, the way the Responses API takes a function tool.",
        "zh": "直接调用模式：开发者按 Chat Completions 函数调用的格式（type 为 function，parameters 包在 function 里）手写了这些工具定义：{tools}。"
        "没有服务器来生成或列出它们；发送之前，应用把每个定义摊平成 Responses 接口要的 function 工具。",
    },
    "responses.direct.tools": {
        "en": "Direct mode has no server to ask: the app already holds its hand-written schemas ({tools}), here laid "
        'out flat as Responses function tools (type "function", name, parameters, strict on one level). Nothing '
        "crosses a process boundary.",
        "zh": "直接调用模式没有服务器可问：应用手里已经有手写的工具定义（{tools}），这里已摊平成 Responses 接口的 function 工具"
        "（type、name、parameters、strict 在同一层）。这一步没有跨越任何进程。",
    },
    "responses.ask.first": {
        "en": "Message 3: the first request to the Responses API (POST /v1/responses). The system prompt goes in "
        "instructions, the conversation in input, {items} item(s) here, beside {tools} tool(s) and tool_choice "
        "{choice}. The model sees only this JSON, and {share} % of its bytes are the tool definitions.",
        "zh": "第 3 条消息：第一次请求 Responses 接口（POST /v1/responses）。系统提示放在 instructions 里，对话放在 input 里，这里有 {items} 项，"
        "另有 {tools} 个工具定义，tool_choice 为 {choice}。模型只看得到这段 JSON，其中 {share}% 的字节是工具定义。",
    },
    "responses.ask.first.named": {
        "en": "Message 3: the first request to the Responses API, with {items} item(s) of input and {tools} tool(s), "
        'and a tool_choice that names one function: {{"type": "function", "name": "{name}"}}, flat like the tools, '
        "where Chat Completions nests the name under function. The model sees only this JSON, and {share} % of its "
        "bytes are the tool definitions.",
        "zh": "第 3 条消息：第一次请求 Responses 接口，input 有 {items} 项，另有 {tools} 个工具定义，tool_choice 指定了一个函数："
        '{{"type": "function", "name": "{name}"}}，和工具一样是扁平的，而 Chat Completions 要把名字包在 function 里。'
        "模型只看得到这段 JSON，其中 {share}% 的字节是工具定义。",
    },
    "responses.ask.backfill": {
        "en": "Message 8, the backfill: without previous_response_id the server uses nothing it kept (store, on by "
        "default, keeps each response, but only a previous_response_id brings one back), so the whole input goes again "
        "({items} items): the model's function_call items as they came, then one "
        'function_call_output item per call, quoting its call_id ({ids}). There is no role "tool": the result is '
        "an item of its own. The loop ends when a response has no function_call item.",
        "zh": "第 8 条消息，回填：没有 previous_response_id，服务器就不会用上它保存的任何东西（store 默认开启，每次响应都会保存，但只有 previous_response_id 才能把它接上），所以整个 input 再发一次（{items} 项）："
        "先是模型的 function_call 项，原样发回，再是每个调用一个 function_call_output 项，引用它的 call_id（{ids}）。"
        "这里没有 role 为 tool 的消息：结果自成一项。等到某次响应里没有 function_call 项，循环才结束。",
    },
    "responses.ask.backfill.previous": {
        "en": "Message 8, the backfill, sent with previous_response_id {previous}: the server still holds that "
        "response and the input before it, so the app sends only what is new, {items} item(s): one "
        "function_call_output per call, quoting its call_id ({ids}). The function_call items are not sent again; "
        "the instructions are, since they never carry over from a previous response, and so are the tools.",
        "zh": "第 8 条消息，回填，带着 previous_response_id {previous}：服务器还保存着那次响应和它之前的 input，"
        "所以应用只发新的内容，{items} 项：每个调用一个 function_call_output，引用它的 call_id（{ids}）。function_call 项不再重发；"
        "instructions 还是要发，因为它从不沿用上一次响应的，工具定义也照样发。",
    },
    "responses.ask.backfill.auto": {
        "en": "Message 8, the backfill: the input goes again ({items} items), the model's function_call items and "
        'one function_call_output per call_id ({ids}). tool_choice is back to "auto" (it was {before}): while '
        "forced, the model must call a tool every time, so only now can a response without a function_call end "
        "the loop.",
        "zh": "第 8 条消息，回填：input 再发一次（{items} 项），包括模型的 function_call 项和每个 call_id 一个 function_call_output"
        '（{ids}）。tool_choice 改回了 "auto"（之前是 {before}）：被强制时模型每次都得调用工具，所以只有现在，一次不带 function_call '
        "的响应才能结束循环。",
    },
    "responses.ask.other": {
        "en": "A request to the Responses API with {items} item(s) of input. Without previous_response_id every request "
        "carries the whole conversation; with it, the server keeps what came before.",
        "zh": "一次 Responses 接口请求，input 有 {items} 项。不带 previous_response_id 时，每次请求都带着整段对话；带上它，之前的内容由服务器保存。",
    },
    "responses.decide.one": {
        "en": "Message 4: the model does not answer, and it does not run anything: the response's output holds a "
        "function_call item asking for {name}, its arguments still a JSON string, {arguments}. Its call_id, {id}, "
        "is what the result must quote (the item's own id is another thing). There is no finish_reason: status "
        "is {status}, and the app goes by the function_call items.",
        "zh": "第 4 条消息：模型没有直接回答，也不执行任何东西：响应的 output 里有一个 function_call 项，请求调用 {name}，"
        "参数仍然是 JSON 字符串 {arguments}。结果必须引用它的 call_id {id}（这一项自己的 id 是另一回事）。这里没有 finish_reason："
        "status 为 {status}，应用看的是有没有 function_call 项。",
    },
    "responses.decide.parallel": {
        "en": "Parallel calls: the output holds {count} function_call items ({names}), each with its own call_id "
        "({ids}). The app may run them side by side; their results are told apart by call_id, not by order.",
        "zh": "并行调用：output 里有 {count} 个 function_call 项（{names}），各有自己的 call_id（{ids}）。"
        "应用可以同时执行它们，结果靠 call_id 区分，而不是靠顺序。",
    },
    "responses.answer.after_tools": {
        "en": "Message 9: with the tool results in front of it, the model writes the answer, “{content}”, as a "
        "message item of output_text, status {status} and no function_call, so the loop ends. This call read "
        "{input_tokens} input tokens: the {tools} tool definitions, {share} % of the request's bytes, were sent "
        "again too.",
        "zh": "第 9 条消息：看到工具结果后，模型写出回答“{content}”，放在一个 message 项的 output_text 里，status 为 {status}，没有 "
        "function_call，循环到此结束。这次调用的输入词元数（input_tokens）为 {input_tokens}：{tools} 个工具定义也又发了一遍，占请求字节的 {share}%。",
    },
    "responses.answer.after_tools.no_usage": {
        "en": "Message 9: with the tool results in front of it, the model writes the answer, “{content}”, as a "
        "message item of output_text, status {status}. No function_call this time: the loop ends here.",
        "zh": "第 9 条消息：看到工具结果后，模型写出回答“{content}”，放在一个 message 项的 output_text 里，status 为 {status}。"
        "这一次没有 function_call，循环到此结束。",
    },
    "responses.answer.at_once": {
        "en": "The model answers at once, without asking for any tool: a message item, “{content}” (status "
        "{status}). It was offered tools but decided, or was told by tool_choice, not to use them.",
        "zh": "模型直接回答，没有请求任何工具：一个 message 项，“{content}”（status 为 {status}）。它拿到了工具，"
        "但自己决定不用，或者 tool_choice 不让它用。",
    },
    "responses.response.other": {
        "en": "The Responses API's answer, recorded as it came. Its output is a list of items: function_call items "
        "are calls the app must run, message items hold the text, and other items (reasoning, a hosted tool's "
        "report) go back as they came.",
        "zh": "Responses 接口的响应，按原样记录。它的 output 是一串项：function_call 项是应用要执行的调用，message 项带着文字，"
        "其他项（reasoning、托管工具的报告）原样发回。",
    },
    "responses.event.call_start": {
        "en": "A function_call item begins in the stream (response.output_item.added): its call_id {id} and the name "
        "{name}, with arguments still empty. The events after it name the item by its output_index.",
        "zh": "流里开始了一个 function_call 项（response.output_item.added）：带着 call_id {id} 和函数名 {name}，参数还是空的。"
        "之后的事件靠 output_index 指向这一项。",
    },
    "responses.event.item": {
        "en": "A new {item} item begins in the stream (response.output_item.added). The events after it fill it in, "
        "naming it by its output_index.",
        "zh": "流里开始了一个新的 {item} 项（response.output_item.added）。之后的事件靠 output_index 指向它，把它填满。",
    },
    "responses.event.arguments": {
        "en": "A piece of a function_call's arguments (response.function_call_arguments.delta): “{fragment}”. It is "
        "not valid JSON on its own; the string is whole only when response.function_call_arguments.done arrives.",
        "zh": "function_call 参数的一个片段（response.function_call_arguments.delta）：“{fragment}”。单看它不是合法 JSON，"
        "要等到 response.function_call_arguments.done 事件，字符串才完整。",
    },
    "responses.event.arguments_done": {
        "en": "response.function_call_arguments.done brings the whole arguments string, {arguments}. It is still JSON "
        "text, which the app parses at step 5.",
        "zh": "response.function_call_arguments.done 带来完整的参数字符串 {arguments}。它仍然是 JSON 文本，应用在第 5 步才解析它。",
    },
    "responses.event.text": {
        "en": "A piece of the answer's text (response.output_text.delta): “{fragment}”. The app appends it to what "
        "it has.",
        "zh": "回答文字的一个片段（response.output_text.delta）：“{fragment}”。应用把它接在已收到的文字后面。",
    },
    "responses.event.completed": {
        "en": "response.completed: the whole response again, status {status}, with its usage ({input_tokens} input "
        "and {output_tokens} output tokens). The events before it built the same output piece by piece.",
        "zh": "response.completed：整个响应再完整地来一次，status 为 {status}，带着用量（输入词元 {input_tokens}，输出词元 "
        "{output_tokens}）。之前的事件已经一点一点拼出了同样的 output。",
    },
    "responses.event.other": {
        "en": "One event of a streamed Responses answer, of type {type}. A Responses stream is typed events, each "
        "naming what it adds to which output item, which the app joins into one response.",
        "zh": "Responses 流式响应中的一个事件，类型为 {type}。Responses 的流由带类型的事件组成，每个事件说明它给哪一项添了什么，应用把它们拼成一次响应。",
    },
    "responses.assembled.calls": {
        "en": "The app has joined the events into the response's output: function_call items {names}, call_ids {ids}, "
        "status {status}. It is the same output a response without streaming carries in one piece.",
        "zh": "应用把事件拼成了响应的 output：function_call 项为 {names}，call_id 为 {ids}，status 为 {status}。这和非流式响应一次带来的 output 完全一样。",
    },
    "responses.assembled.content": {
        "en": "The app has joined the output_text deltas into the answer, “{content}” (status {status}). Streaming "
        "changed how the answer arrived, not what it says.",
        "zh": "应用把各个 output_text 片段拼成了回答“{content}”（status 为 {status}）。流式只改变了回答到达的方式，没有改变它的内容。",
    },
    "responses.reverse.mcp": {
        "en": "Message 5, reverse translation: the function_call item's arguments are a JSON string, {arguments}, "
        "as in Chat Completions; the app parses it into an object and hands the MCP client a call request for "
        "{name}. The call_id {id} stays with the app; MCP never sees it.",
        "zh": "第 5 条消息，反向翻译：function_call 项的 arguments 是 JSON 字符串 {arguments}，和 Chat Completions 一样；"
        "应用把它解析成对象，交给 MCP 客户端一个调用 {name} 的请求。call_id {id} 留在应用这边，MCP 看不到它。",
    },
    "responses.reverse.direct": {
        "en": "Message 5 in direct mode, with no translation: there is no MCP call to turn the function_call into, so "
        "the app itself parses the item's arguments string {arguments} and will call {name} in its own process. The "
        "call_id {id} is kept to label the result.",
        "zh": "直接调用模式下的第 5 条消息，没有翻译：这里没有要转换成的 MCP 调用，应用自己解析 function_call 项的参数字符串 "
        "{arguments}，再在自己的进程里调用 {name}。call_id {id} 被保留下来，用来标记结果。",
    },
    "responses.result.app.ok": {
        "en": "Message 7 reaches the app: the MCP client hands over the CallToolResult (isError {is_error}), which "
        "carries no call_id, since MCP never sees one. The app puts its text content in the output of a "
        "function_call_output item quoting the call's call_id.",
        "zh": "第 7 条消息到达应用：MCP 客户端交出 CallToolResult（isError 为 {is_error}），它不带 call_id，因为 MCP 从来看不到这个 id。"
        "应用把其中的文字内容放进 function_call_output 项的 output，并引用调用的 call_id。",
    },
    "responses.result.app.structured": {
        "en": "Message 7 reaches the app: the MCP client hands over the CallToolResult (isError {is_error}), which "
        "carries no call_id. The app sends the text content as the function_call_output's output and leaves "
        "structuredContent out; here the text already holds the same value.",
        "zh": "第 7 条消息到达应用：MCP 客户端交出 CallToolResult（isError 为 {is_error}），它不带 call_id。应用把文字内容作为 "
        "function_call_output 的 output 发出，不发 structuredContent；这里的文字已经包含同一个值。",
    },
    "responses.result.app.structured_dropped": {
        "en": "Message 7 reaches the app: the MCP client hands over the CallToolResult (isError {is_error}), which "
        "carries no call_id. The app sends the text content as the function_call_output's output and leaves "
        "structuredContent out: the model reads what the text says and nothing more.",
        "zh": "第 7 条消息到达应用：MCP 客户端交出 CallToolResult（isError 为 {is_error}），它不带 call_id。应用把文字内容作为 "
        "function_call_output 的 output 发出，不发 structuredContent：模型读到的只有这段文字。",
    },
    "responses.result.app.failed": {
        "en": "The failed result reaches the app, isError {is_error}. A function_call_output has no error field, so "
        "the app sends the error text as its output, and only those words tell the model the call failed.",
        "zh": "失败的结果交到了应用手里（isError 为 {is_error}）。function_call_output 没有表示出错的字段，所以应用把错误文字作为它的 output 发出，"
        "只有这段文字能告诉模型调用失败了。",
    },
    "responses.result.app.rpc_error": {
        "en": "No CallToolResult came back: the client reports JSON-RPC error {code} to the app, and the app pairs it "
        "with call_id {id} itself. It writes the function_call_output from the error, so the model can correct "
        "its call.",
        "zh": "没有收到 CallToolResult：客户端把 JSON-RPC 错误 {code} 报告给应用，由应用自己把它对应到 call_id {id}。"
        "应用根据错误写出 function_call_output，让模型修正调用。",
    },
    "responses.result.direct.ok": {
        "en": "The function returned, and the value is already in the app's hands: no CallToolResult, no content "
        "blocks. The app turns it into text for the output of the function_call_output item quoting {id}.",
        "zh": "函数返回了，值直接就在应用手里：没有 CallToolResult，也没有内容块。应用把它转成文字，放进引用 {id} 的 function_call_output 项的 output。",
    },
    "responses.result.direct.failed": {
        "en": "Calling the function raised an exception, which the app catches and sends as the output of the "
        "function_call_output for {id} (“{error}”). That item has no error field: only these words tell the "
        "model the call failed.",
        "zh": "调用函数时抛出了异常；应用捕获了它，把它作为 {id} 的 function_call_output 的 output 发出（“{error}”）。"
        "这一项没有表示出错的字段：只有这段文字能告诉模型调用失败了。",
    },
    "responses.result.direct.unknown": {
        "en": "No function ran, as the app has none by the name the model wrote; it sends its own error as the "
        "output of the function_call_output for {id} (“{error}”). That item has no error field: only these words "
        "tell the model the call failed.",
        "zh": "没有任何函数运行，因为应用里没有模型写的那个名字；应用把自己的错误作为 {id} 的 function_call_output 的 output 发出（“{error}”）。"
        "这一项没有表示出错的字段：只有这段文字能告诉模型调用失败了。",
    },
}


_MESSAGES: Texts = {
    **_forward("messages", _M_TOOL_EN, _M_TOOL_ZH, _M_FIELDS_EN, _M_FIELDS_ZH),
    "messages.prepare.direct": {
        "en": "Direct mode: the developer wrote these schemas by hand, in Chat Completions' function-calling form "
        '(type "function", parameters): {tools}. No server builds or lists them; before sending, the app rewrites '
        "each as a Messages tool, its parameters renamed input_schema.",
        "zh": "直接调用模式：开发者按 Chat Completions 函数调用的格式（type 为 function，带 parameters）手写了这些工具定义：{tools}。"
        "没有服务器来生成或列出它们；发送之前，应用把每个定义改写成 Messages 接口的工具，parameters 改名为 input_schema。",
    },
    "messages.direct.tools": {
        "en": "Direct mode has no server to ask: the app already holds its hand-written schemas ({tools}), here as "
        "Messages tools (name, description, input_schema). Nothing crosses a process boundary.",
        "zh": "直接调用模式没有服务器可问：应用手里已经有手写的工具定义（{tools}），这里已是 Messages 接口的工具"
        "（name、description、input_schema）。这一步没有跨越任何进程。",
    },
    "messages.ask.first": {
        "en": "Message 3: the first request to Anthropic's Messages API (POST /v1/messages), with {messages} "
        "message(s), {tools} tool(s) and tool_choice {choice}. The app sends the system prompt in the top-level system "
        "field, where the API reference puts it, not as the first message as in Chat Completions; max_tokens "
        "({max_tokens}) is required. The model sees only this JSON, and {share} % "
        "of its bytes are the tool definitions.",
        "zh": "第 3 条消息：第一次请求 Anthropic 的 Messages 接口（POST /v1/messages），带 {messages} 条消息、{tools} 个工具定义，"
        "tool_choice 为 {choice}。应用把系统提示放在顶层的 system 字段，API 参考文档就把系统提示写在这里，而不像 Chat Completions 那样作为第一条消息；max_tokens（{max_tokens}）必须给出。"
        "模型只看得到这段 JSON，其中 {share}% 的字节是工具定义。",
    },
    "messages.ask.first.named": {
        "en": "Message 3: the first request to the Messages API, with {messages} message(s) and {tools} tool(s), and "
        'a tool_choice that names one tool: {{"type": "tool", "name": "{name}"}}. The app sends the system prompt in the '
        "top-level system field, and max_tokens ({max_tokens}) is required. {share} % of the bytes are the tool "
        "definitions.",
        "zh": "第 3 条消息：第一次请求 Messages 接口，带 {messages} 条消息、{tools} 个工具定义，tool_choice 指定了一个工具："
        '{{"type": "tool", "name": "{name}"}}。应用把系统提示放在顶层的 system 字段，max_tokens（{max_tokens}）必须给出。'
        "其中 {share}% 的字节是工具定义。",
    },
    "messages.ask.backfill": {
        "en": "Message 8, the backfill: the model keeps no memory, so the app sends the whole conversation again "
        "({messages} messages). The assistant message goes back with its tool_use blocks as they came; then, as "
        'Messages has no role "tool", one user message whose tool_result blocks quote each call\'s tool_use_id '
        '({ids}). The loop ends when stop_reason is no longer "tool_use".',
        "zh": "第 8 条消息，回填：模型不记得上一次请求，所以应用把整段对话再发一次（{messages} 条消息）。助手消息连同它的 tool_use "
        "内容块原样发回；Messages 接口没有 role 为 tool 的消息，所以接下来是一条 user 消息，里面的 tool_result 内容块各自引用调用的 "
        'tool_use_id（{ids}）。等到 stop_reason 不再是 "tool_use"，循环才结束。',
    },
    "messages.ask.backfill.auto": {
        "en": "Message 8, the backfill: the whole conversation again ({messages} messages), the assistant's tool_use "
        "blocks and one user message of tool_result blocks quoting each tool_use_id ({ids}). tool_choice is back "
        "to auto (it was {before}): while forced, the model must call a tool, so only now can stop_reason be "
        'something other than "tool_use".',
        "zh": "第 8 条消息，回填：整段对话再发一次（{messages} 条消息），包括助手的 tool_use 内容块，以及一条由 tool_result 内容块组成、"
        "各自引用 tool_use_id 的 user 消息（{ids}）。tool_choice 改回了 auto（之前是 {before}）：被强制时模型必须调用工具，"
        '所以只有现在，stop_reason 才可能不是 "tool_use"。',
    },
    "messages.ask.other": {
        "en": "A request to the Messages API with {messages} message(s). Every request carries the whole "
        "conversation: the model keeps no state of its own.",
        "zh": "一次 Messages 接口请求，带 {messages} 条消息。每次请求都带着整段对话，模型自己不保存任何状态。",
    },
    "messages.decide.one": {
        "en": 'Message 4: the model does not answer, and it does not run anything: stop_reason is "{stop}", and its '
        "content holds a tool_use block asking for {name}. Its input, {input}, is already a JSON object, not a "
        "string to parse. The block's id, {id}, is what the tool_result must quote as tool_use_id.",
        "zh": "第 4 条消息：模型没有直接回答，也不执行任何东西：stop_reason 为 {stop}，content 里有一个 tool_use 内容块，请求调用 {name}。"
        "它的 input {input} 已经是 JSON 对象，而不是要解析的字符串。tool_result 必须把这个内容块的 id {id} 作为 tool_use_id 引用。",
    },
    "messages.decide.parallel": {
        "en": "Parallel calls: the content holds {count} tool_use blocks ({names}), each with its own id ({ids}) and "
        "its input as an object. The app may run them side by side; all their tool_result blocks go back in one "
        "user message, told apart by tool_use_id.",
        "zh": "并行调用：content 里有 {count} 个 tool_use 内容块（{names}），各有自己的 id（{ids}），input 都是对象。"
        "应用可以同时执行它们；它们的 tool_result 内容块放在同一条 user 消息里发回，靠 tool_use_id 区分。",
    },
    "messages.answer.after_tools": {
        "en": "Message 9: with the tool results in front of it, the model writes the answer, “{content}”, as a text "
        'block, with stop_reason "{stop}" and no tool_use, so the loop ends. This call read {input_tokens} input '
        "tokens: the {tools} tool definitions, {share} % of the request's bytes, were sent again too.",
        "zh": "第 9 条消息：看到工具结果后，模型在一个 text 内容块里写出回答“{content}”，stop_reason 为 {stop}，没有 tool_use，"
        "循环到此结束。这次调用的输入词元数（input_tokens）为 {input_tokens}：{tools} 个工具定义也又发了一遍，占请求字节的 {share}%。",
    },
    "messages.answer.after_tools.no_usage": {
        "en": "Message 9: with the tool results in front of it, the model writes the answer, “{content}”, as a text "
        'block, with stop_reason "{stop}". No tool_use this time: the loop ends here.',
        "zh": "第 9 条消息：看到工具结果后，模型在一个 text 内容块里写出回答“{content}”，stop_reason 为 {stop}。"
        "这一次没有 tool_use，循环到此结束。",
    },
    "messages.answer.at_once": {
        "en": "The model answers at once, without asking for any tool: a text block, “{content}” (stop_reason "
        '"{stop}"). It was offered tools but decided, or was told by tool_choice, not to use them.',
        "zh": "模型直接回答，没有请求任何工具：一个 text 内容块，“{content}”（stop_reason 为 {stop}）。它拿到了工具，"
        "但自己决定不用，或者 tool_choice 不让它用。",
    },
    "messages.response.other": {
        "en": "The Messages API's answer, recorded as it came. Its content is a list of blocks: tool_use blocks are "
        "calls the app must run, text blocks hold the answer, and stop_reason says why the model stopped.",
        "zh": "Messages 接口的响应，按原样记录。它的 content 是一串内容块：tool_use 内容块是应用要执行的调用，text 内容块带着回答，"
        "stop_reason 说明模型为什么停下。",
    },
    "messages.event.start": {
        "en": "message_start opens the stream: the message with its id, an empty content and the input tokens "
        "counted so far. The blocks come next, one by one.",
        "zh": "message_start 打开了这个流：带着消息的 id、空的 content，以及目前算出的输入词元数。接下来内容块一个一个到来。",
    },
    "messages.event.call_start": {
        "en": "A tool_use block begins (content_block_start): its id {id} and the name {name}, with input still an "
        "empty object. Its input arrives next as pieces of JSON text.",
        "zh": "一个 tool_use 内容块开始了（content_block_start）：带着 id {id} 和名字 {name}，input 还是空对象。它的 input 接下来以 "
        "JSON 文本片段的形式到来。",
    },
    "messages.event.block": {
        "en": "A {block} block begins (content_block_start). The deltas after it, named by its index, fill it in.",
        "zh": "一个 {block} 内容块开始了（content_block_start）。之后按 index 指向它的增量会把它填满。",
    },
    "messages.event.input": {
        "en": "A piece of the tool_use's input (input_json_delta): partial_json “{fragment}”. Streamed, the input "
        "does come as JSON text: the pieces are joined and parsed into the object once the block stops.",
        "zh": "tool_use 的 input 的一个片段（input_json_delta）：partial_json 为“{fragment}”。流式时 input 确实以 JSON 文本到来："
        "内容块结束后，这些片段拼起来再解析成对象。",
    },
    "messages.event.text": {
        "en": "A piece of the answer's text (text_delta): “{fragment}”. The app appends it to the text block.",
        "zh": "回答文字的一个片段（text_delta）：“{fragment}”。应用把它接在 text 内容块已有的文字后面。",
    },
    "messages.event.block_stop": {
        "en": "content_block_stop: the block at this index is complete. For a tool_use block, its input pieces can now "
        "be parsed as one object.",
        "zh": "content_block_stop：这个 index 上的内容块完整了。如果是 tool_use 内容块，它的 input 片段现在可以作为一个对象解析了。",
    },
    "messages.event.stop_reason": {
        "en": 'message_delta: stop_reason "{stop}", with the output tokens counted. The blocks have all arrived; '
        "only message_stop is left.",
        "zh": "message_delta：stop_reason 为 {stop}，并带着输出词元数。内容块都已到齐，只剩 message_stop。",
    },
    "messages.event.stop": {
        "en": "message_stop closes the stream. It carries nothing more: the message is complete.",
        "zh": "message_stop 结束了这个流。它不再带任何内容：消息已经完整。",
    },
    "messages.event.other": {
        "en": "One event of a streamed Messages answer, of type {type}. The stream is typed events: message_start, "
        "then each block's start, deltas and stop, then message_delta and message_stop.",
        "zh": "Messages 流式响应中的一个事件，类型为 {type}。这个流由带类型的事件组成：message_start，然后是每个内容块的开始、增量和结束，"
        "最后是 message_delta 和 message_stop。",
    },
    "messages.assembled.calls": {
        "en": "The app has joined the events into the message's content: tool_use blocks {names}, ids {ids}, "
        'stop_reason "{stop}", each input parsed from its pieces into an object. It is the same content a '
        "response without streaming carries in one piece.",
        "zh": "应用把事件拼成了消息的 content：tool_use 内容块为 {names}，id 为 {ids}，stop_reason 为 {stop}，"
        "每个 input 都已由片段解析成对象。这和非流式响应一次带来的 content 完全一样。",
    },
    "messages.assembled.content": {
        "en": 'The app has joined the text deltas into the answer, “{content}” (stop_reason "{stop}"). Streaming '
        "changed how the answer arrived, not what it says.",
        "zh": "应用把各个文字片段拼成了回答“{content}”（stop_reason 为 {stop}）。流式只改变了回答到达的方式，没有改变它的内容。",
    },
    "messages.reverse.mcp": {
        "en": "Message 5, reverse translation: the tool_use block's input, {input}, is already a JSON object, so "
        "there is no string to parse here, unlike Chat Completions and Responses. The app checks it and hands the "
        "MCP client a call request for {name}. The tool_use_id {id} stays with the app; MCP never sees it.",
        "zh": "第 5 条消息，反向翻译：tool_use 内容块的 input {input} 已经是 JSON 对象，所以这里没有字符串要解析，和 Chat Completions、"
        "Responses 不同。应用检查后交给 MCP 客户端一个调用 {name} 的请求。tool_use_id {id} 留在应用这边，MCP 看不到它。",
    },
    "messages.reverse.direct": {
        "en": "Message 5 in direct mode, with no translation: the tool_use block's input, {input}, is already an "
        "object, so nothing is parsed, and there is no MCP call to turn it into; the app will call {name} in its own "
        "process. The id {id} is kept for the tool_result.",
        "zh": "直接调用模式下的第 5 条消息，没有翻译：tool_use 内容块的 input {input} 已经是对象，不用解析，也没有要转换成的 "
        "MCP 调用；应用将在自己的进程里调用 {name}。id {id} 被保留下来，给 tool_result 引用。",
    },
    "messages.result.app.ok": {
        "en": "Message 7 reaches the app: the MCP client hands over the CallToolResult (isError {is_error}), which "
        "carries no tool_use_id, since MCP never sees one. The app puts its text content in a tool_result block "
        "quoting the call's tool_use_id.",
        "zh": "第 7 条消息到达应用：MCP 客户端交出 CallToolResult（isError 为 {is_error}），它不带 tool_use_id，因为 MCP 从来看不到这个 id。"
        "应用把其中的文字内容放进一个 tool_result 内容块，引用调用的 tool_use_id。",
    },
    "messages.result.app.structured": {
        "en": "Message 7 reaches the app: the MCP client hands over the CallToolResult (isError {is_error}), which "
        "carries no tool_use_id. The app sends the text content in a tool_result block and leaves "
        "structuredContent out; here the text already holds the same value.",
        "zh": "第 7 条消息到达应用：MCP 客户端交出 CallToolResult（isError 为 {is_error}），它不带 tool_use_id。应用把文字内容放进 "
        "tool_result 内容块发出，不发 structuredContent；这里的文字已经包含同一个值。",
    },
    "messages.result.app.structured_dropped": {
        "en": "Message 7 reaches the app: the MCP client hands over the CallToolResult (isError {is_error}), which "
        "carries no tool_use_id. The app sends the text content in a tool_result block and leaves "
        "structuredContent out: the model reads what the text says and nothing more.",
        "zh": "第 7 条消息到达应用：MCP 客户端交出 CallToolResult（isError 为 {is_error}），它不带 tool_use_id。应用把文字内容放进 "
        "tool_result 内容块发出，不发 structuredContent：模型读到的只有这段文字。",
    },
    "messages.result.app.failed": {
        "en": "The failed result reaches the app, isError {is_error}. Messages has a flag for this: the app sends "
        "the error text in a tool_result block marked is_error true, so the model is told in a field, not only "
        "in words, that the call failed.",
        "zh": "失败的结果交到了应用手里（isError 为 {is_error}）。Messages 接口有对应的标记：应用把错误文字放进 tool_result 内容块，"
        "并标上 is_error: true，模型不光从文字、也从字段知道调用失败了。",
    },
    "messages.result.app.rpc_error": {
        "en": "No CallToolResult came back: the client reports JSON-RPC error {code} to the app, and the app pairs it "
        "with tool_use_id {id} itself. It writes the tool_result from the error, marked is_error true, so the "
        "model can correct its call.",
        "zh": "没有收到 CallToolResult：客户端把 JSON-RPC 错误 {code} 报告给应用，由应用自己把它对应到 tool_use_id {id}。"
        "应用根据错误写出 tool_result，标上 is_error: true，让模型修正调用。",
    },
    "messages.result.direct.ok": {
        "en": "The function returned, and the value is already in the app's hands: no CallToolResult, no content "
        "blocks from a server. The app turns it into text for the tool_result block quoting {id}.",
        "zh": "函数返回了，值直接就在应用手里：没有 CallToolResult，也没有服务器给的内容块。应用把它转成文字，放进引用 {id} 的 tool_result 内容块。",
    },
    "messages.result.direct.failed": {
        "en": "Calling the function raised an exception, which the app catches and sends in the tool_result for {id} "
        "(“{error}”), marked is_error true. The model reads in a field, and in these words, that the call "
        "failed.",
        "zh": "调用函数时抛出了异常；应用捕获了它，放进 {id} 的 tool_result 发出（“{error}”），并标上 is_error: true。"
        "模型从字段和这段文字都能知道调用失败了。",
    },
    "messages.result.direct.unknown": {
        "en": "No function ran, as the app has none by the name the model wrote; it sends its own error in the "
        "tool_result for {id} (“{error}”). The block is marked is_error true, so the model is told in a field too.",
        "zh": "没有任何函数运行，因为应用里没有模型写的那个名字；应用把自己的错误放进 {id} 的 tool_result 发出（“{error}”）。"
        "这个内容块标着 is_error: true，模型从字段上也能知道。",
    },
}


API_TEXTS: Texts = {**_RESPONSES, **_MESSAGES}


"""The texts of a Responses or Messages run's hops, by key (merged into `flow.text.teaching.texts.TEXTS`)."""
