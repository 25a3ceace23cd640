"""The sample library: traces the engine produces itself, each with a title and a teaching note.

`python -m flow samples --out sample_traces/` regenerates them all; a test regenerates them into
a temporary folder and compares after `normalise`, so the committed files never drift.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio

from flow.backends.scripted import load_script
from flow.capture.recorder import Recorder
from flow.engine.model import ModelConfig
from flow.engine.options import HOST_CAPABILITIES, RunOptions
from flow.runs import run, run_flow
from flow.servers.builtin import demo_roots, many_tools_server
from flow.servers.connect import open_session
from flow.servers.spec import PROJECT_ROOT, ServerSpec
from flow.trace.files import save_trace
from flow.trace.model import Hop, Trace
from flow.trace.questions import sample_questions_path
from flow.trace.steps import Step

BEIJING = "北京今天天气怎么样？"

# The demo server with its tools that ask back, and a host that says it can answer all three kinds of question.
ASKS: dict[str, Any] = {"asks": True, "host_capabilities": HOST_CAPABILITIES, "check_output": True}


@dataclass(frozen=True)
class Sample:
    name: str
    title_zh: str
    title_en: str
    note_zh: str
    note_en: str
    question: str = BEIJING
    model: str = "mock"
    options: dict[str, Any] = field(default_factory=dict)
    script: str | None = None  # a scripted model's turns, instead of the mock
    many_tools: int = 0  # run on the many-tools demo server with this many tools, in process, instead of the demo
    shares_notes: bool = False  # the host shares the demo's class notes as its root, from SAMPLE_NOTES_ROOT


SAMPLES: list[Sample] = [
    Sample(
        "beijing-direct",
        "北京天气 · 直接调用模式",
        "Beijing weather · direct mode",
        "应用手写 OpenAI 格式的工具定义，模型返回 tool_calls 后，应用在本进程内直接调用 Python 函数，没有 MCP 客户端和服务器。"
        "与 beijing-mcp 对照：模型看到的请求几乎一样，差别在工具从哪里来、如何被执行。",
        "The app holds hand-written tool schemas in OpenAI format; when the model returns tool_calls, the app calls the "
        "Python function in its own process. No MCP client or server. Compare with beijing-mcp: the model sees almost "
        "the same request; what differs is where the tools come from and how they run.",
        options={"mode": "direct"},
    ),
    Sample(
        "beijing-mcp",
        "北京天气 · MCP",
        "Beijing weather · MCP",
        "同一个问题走 MCP：客户端先握手（initialize），再用 tools/list 取得工具，应用把 inputSchema 翻译成 OpenAI 的 parameters（正向翻译），"
        "模型决定调用 get_weather，应用把 JSON 字符串参数解析后交给 MCP 客户端（反向翻译），服务器执行函数并返回 CallToolResult。",
        "The same question through MCP: the client shakes hands (initialize), lists tools with tools/list, the app "
        "translates inputSchema into OpenAI parameters (forward), the model decides to call get_weather, the app parses "
        "the JSON-string arguments for the MCP client (reverse), and the server runs the function and returns a "
        "CallToolResult.",
    ),
    Sample(
        "two-cities-parallel",
        "两个城市 · 并行工具调用",
        "Two cities · parallel tool calls",
        "一次模型响应里有两个 tool_calls（北京、上海），应用同时执行，并用各自的 tool_call_id 把两个结果回填给模型。",
        "One model response carries two tool_calls (Beijing and Shanghai); the app runs them concurrently and sends both "
        "results back, each with its own tool_call_id.",
        question="北京和上海今天天气怎么样？",
    ),
    Sample(
        "tool-error",
        "工具执行失败",
        "A tool that fails",
        "天气工具没有火星的数据而抛出异常。MCP 服务器不把它当成协议错误，而是返回 isError: true 的结果，模型读到错误文字后据此回答。",
        "The weather tool has no data for Mars and raises. The MCP server does not treat this as a protocol error: it "
        "returns a result with isError: true, and the model reads the error text and answers from it.",
        question="火星今天天气怎么样？",
    ),
    Sample(
        "unknown-tool",
        "调用不存在的工具",
        "Calling a tool that does not exist",
        "模型编造了一个工具名 get_current_weather。服务器用 JSON-RPC 错误 -32602 回答（协议错误，不是工具结果），"
        "应用把错误作为 tool 消息交回模型，模型改用正确的名字重试。",
        "The model invents a tool name, get_current_weather. The server answers with JSON-RPC error -32602 (a protocol "
        "error, not a tool result); the app hands the error back as the tool message and the model retries with the "
        "right name.",
        model="mock-wrong-tool",
    ),
    Sample(
        "bad-json-arguments",
        "参数不是合法 JSON",
        "Arguments that are not valid JSON",
        "tool_calls 里的 arguments 是一个 JSON 字符串，模型可能写坏它。应用解析失败，不调用工具，而是把错误说明作为 tool 消息回填，模型下一轮给出正确参数。",
        "The arguments in tool_calls are a JSON string, and a model can get it wrong. Parsing fails, the app calls "
        "nothing, sends the error back as the tool message, and the model sends valid arguments in the next round.",
        model="mock-bad-json",
    ),
    Sample(
        "streaming",
        "流式输出 · 参数分块到达",
        "Streaming · arguments in pieces",
        "stream=true 时模型的回答被拆成很多分块：tool_call 的名字先到，arguments 被切成几段陆续到达，应用把它们拼接成完整的 tool_calls。",
        "With stream=true the response arrives as many chunks: the tool call's name first, then the arguments in "
        "several pieces, which the app assembles into complete tool_calls.",
        options={"stream": True},
    ),
    Sample(
        "tool-choice-none",
        "tool_choice = none",
        "tool_choice = none",
        "工具仍然随请求发送，但 tool_choice 为 none 时模型不得调用任何工具，只能直接回答。",
        "The tools are still sent, but with tool_choice none the model may not call any and must answer directly.",
        options={"tool_choice": "none"},
    ),
    Sample(
        "tool-choice-required",
        "tool_choice = required",
        "tool_choice = required",
        "required 强制模型至少调用一个工具，即使问题不需要。应用只在第一轮发送 required，之后改回 auto，否则会无限循环。",
        "required forces the model to call at least one tool, even for a question that needs none. The app sends it on "
        "the first request only and auto afterwards; otherwise the loop would never end.",
        question="你好，请介绍一下你自己。",
        options={"tool_choice": "required"},
    ),
    Sample(
        "tool-choice-named",
        "tool_choice = 指定函数",
        "tool_choice = a named function",
        'tool_choice 为 {"type": "function", "function": {"name": "calc_work_hours"}}，指名了 calc_work_hours，'
        "模型只能调用这个函数，并从问题里取出开始和结束时间。",
        'tool_choice is {"type": "function", "function": {"name": "calc_work_hours"}}: it names calc_work_hours, so the '
        "model must call that function; it takes the start and end times from the question.",
        question="我今天 9:00 上班，18:30 下班，工作了多久？",
        options={"tool_choice": "calc_work_hours"},
    ),
    Sample(
        "two-rounds",
        "两轮工具调用",
        "Two rounds of tools",
        "第二次调用依赖第一次的结果：先查天气，读到“晴”之后再调用 best_practice(topic=sunny) 取建议，共三次模型请求。",
        "The second call depends on the first result: weather first, then, having read 'sunny', best_practice("
        "topic=sunny) for advice: three model requests in all.",
        question="北京今天天气怎么样？给我一个出行建议",
    ),
    Sample(
        "era-handshake",
        "握手时代 · initialize",
        "The handshake era · initialize",
        "2025-11-25 及更早的协议：会话以 initialize 请求、InitializeResult 和 notifications/initialized 通知开始，之后才能 tools/list。",
        "Protocol 2025-11-25 and earlier: a session starts with the initialize request, the InitializeResult and the "
        "notifications/initialized notification, and only then tools/list.",
        options={"era": "handshake"},
    ),
    Sample(
        "era-modern",
        "无状态时代 · server/discover",
        "The stateless era · server/discover",
        "2026-07-28 协议没有 initialize：客户端用 server/discover 询问服务器支持的版本和能力，每个请求的 _meta 里都带上协议版本和客户端信息。",
        "Protocol 2026-07-28 has no initialize: the client asks server/discover for the versions and capabilities, and "
        "every request carries the protocol version and client info in its _meta.",
        options={"era": "modern"},
    ),
    Sample(
        "resource-read",
        "读取 MCP 资源",
        "Reading an MCP resource",
        "应用在提问前用 resources/list 和 resources/read 读取 weather://cities，把内容作为上下文放进系统消息。资源由应用决定读取，工具由模型决定调用。",
        "Before asking, the app lists resources and reads weather://cities, and puts its text into the system message "
        "as context. The app decides to read resources; the model decides to call tools.",
        options={"resources": ("weather://cities",)},
    ),
    Sample(
        "prompt-fetched",
        "获取 MCP 提示模板",
        "Fetching an MCP prompt",
        "用户选了服务器提供的提示模板 weather_report(city=北京)，应用用 prompts/get 取回消息，代替手打的问题发给模型。",
        "The user picks the server's prompt weather_report(city=北京); the app fetches its messages with prompts/get and "
        "sends them to the model instead of a typed question.",
        options={"prompt": "weather_report", "prompt_args": (("city", "北京"),)},
    ),
    Sample(
        "progress-notifications",
        "进度通知 · 工具一边运行一边汇报",
        "Progress notifications · the tool reports as it runs",
        "客户端在 tools/call 的 _meta 里带上 progressToken，get_forecast 每算完一天就发一条带同一个 progressToken 的 "
        "notifications/progress，客户端靠这个 token 把进度归到这次调用下。它还发了一条日志 notifications/message："
        "日志和进度通知一样没有 id，但也没有 token，没有任何字段把它和某个请求连起来。这些通知都不是结果。",
        "The client puts a progressToken in the _meta of tools/call; get_forecast sends notifications/progress with the "
        "same progressToken after each day, and the token ties the progress to that call. It also sends a log message "
        "(notifications/message): like the progress it has no id, but it has no token either, so nothing in it ties it "
        "to a request. None of these notifications is the result.",
        question="上海未来三天天气预报",
    ),
    Sample(
        "quirky-provider",
        "服务商的差异 · 照原样记录",
        "Provider quirks · recorded as they came",
        "有的服务商和 OpenAI 不完全一样：tool_calls 旁边的 content 是空字符串而不是 null，id 不以 call_ 开头，参数里有换行，"
        "finish_reason 是 stop，没有 usage。应用照原样记录，并且只看 tool_calls 本身来决定下一步。",
        'Some providers differ from OpenAI: content is "" rather than null beside tool_calls, ids do not start with '
        "call_, arguments contain newlines, finish_reason is stop, and there is no usage. The app records it as it came "
        "and goes by the tool_calls themselves.",
        question="北京和上海今天天气怎么样？",
        model="mock-quirky",
    ),
    Sample(
        "scripted-model",
        "脚本模型 · 由你替模型做决定",
        "Scripted model · you make the model's decisions",
        "没有模型也没有 Key 时，可以写一个小脚本说明模型每一步做什么（调用哪个工具、什么参数，或直接回答）。"
        "请求和响应仍经过真实的 openai SDK 和 MCP 会话，模型一侧的每一跳都标为 scripted。",
        "With no model and no key, a small script says what the model does at each turn (which tool, which arguments, "
        "or answer directly). Requests and responses still go through the real openai SDK and MCP session; every hop on "
        "the model's side is marked scripted.",
        question="杭州明天适合出门吗？",
        script="- call: get_forecast\n  arguments: {city: 杭州, days: 2}\n- answer: 杭州明天小雨，出门记得带伞。\n",
    ),
    Sample(
        "strict-mode",
        "严格模式 · strict: true",
        "Strict mode · strict: true",
        "打开 strict 后，应用在正向翻译时改写每个工具的 parameters：加上 additionalProperties: false，把所有属性都列进 required，"
        '并给每个函数加上 "strict": true。在这份追踪里，只有 get_forecast 的 required 变了：days 在服务器上可以省略（默认 3），'
        "现在成了必填。和每次 MCP 运行一样，title 键被去掉，outputSchema 不发送。模型的参数回来后，应用先按这份 Schema 检查"
        "（必填字段、未知字段、基本类型），再交给 MCP 客户端。与 beijing-mcp 对照：Schema 变长，第一次请求的输入词元数（prompt_tokens）"
        "从 457 升到 506。",
        "With strict on, the forward translation rewrites each tool's parameters: it adds additionalProperties: false, "
        'lists every property in required, and sets "strict": true on each function. In this trace only get_forecast\'s '
        "required changes: days, optional on the server (default 3), becomes required. As in every MCP run, the title "
        "keys are removed and outputSchema is not sent. When the model's arguments come back, the app checks them "
        "against this schema (required fields, unknown fields, basic types) before the MCP client gets them. Against "
        "beijing-mcp, the longer schemas raise the first request's prompt_tokens from 457 to 506.",
        options={"strict": True},
    ),
    Sample(
        "round-limit",
        "轮数上限 · max_rounds",
        "The round limit · max_rounds",
        "这个模拟模型（mock-loop）从不回答：每次回复都再要一次 get_weather(city=北京)。max_rounds 是 3：应用执行了 3 轮工具调用，"
        "再发第 4 次请求，让模型根据结果回答；模型仍然返回 tool_calls，应用不再执行，运行以一行错误结束，没有答案。"
        "每一轮都把 4 个工具定义和越来越长的对话重新发送一次，输入词元数（prompt_tokens）从 457 涨到 807。",
        "This mock model (mock-loop) never answers: every reply asks for get_weather(city=北京) again. max_rounds is 3: "
        "the app runs 3 rounds of tool calls, then sends a 4th request for the model to answer from the results; the "
        "model still returns tool_calls, the app runs nothing more, and the run ends with an error line instead of an "
        "answer. Each round sends the 4 tool definitions again with the longer conversation: prompt_tokens grow from "
        "457 to 807.",
        model="mock-loop",
        options={"max_rounds": 3},
    ),
    Sample(
        "over-stdio",
        "stdio 传输 · 服务器是子进程",
        "stdio · the server as a child process",
        "应用把演示服务器作为子进程启动（python -m weather_demo），通过它的标准输入和标准输出交换 JSON-RPC 消息："
        "每条消息占一行，以换行分隔；服务器的标准错误只用来写日志。消息本身和内存传输的 beijing-mcp 完全相同："
        "传输只决定消息怎样送达，不改变消息。会话结束时，客户端关闭子进程的标准输入，让它退出。",
        "The app starts the demo server as a child process (python -m weather_demo) and exchanges JSON-RPC messages "
        "over its stdin and stdout: one message per line, separated by newlines; the server's stderr is for logs only. "
        "The messages are exactly those of beijing-mcp, which runs in memory: a transport decides how messages travel, "
        "not what they say. When the session ends, the client closes the child's stdin so that it exits.",
        options={"transport": "stdio"},
    ),
    Sample(
        "over-http",
        "HTTP 传输 · 本机回环地址",
        "Streamable HTTP · on loopback",
        "演示服务器在自己的进程里监听 http://127.0.0.1:47823/mcp（规范里叫 Streamable HTTP 的传输，本机回环地址，没有设访问令牌）。"
        "客户端发出的每条 JSON-RPC 消息都是对这一个地址的 HTTP POST；服务器的回答放在这次 POST 的响应里，"
        "可以是一段 JSON，也可以是一个 SSE 流。协议是 2026-07-28：没有 initialize，也没有 Mcp-Session-Id 头，"
        "每个请求在 _meta 里自带协议版本。应用只知道一个网址，不知道服务器的代码，所以这份追踪没有阶段零。",
        "The demo server listens in its own process on http://127.0.0.1:47823/mcp (Streamable HTTP, loopback, no "
        "bearer token). Every JSON-RPC message the client sends is an HTTP POST to that one address; the server's "
        "answer comes in that POST's response, as JSON or as an SSE stream. The protocol is 2026-07-28: no "
        "initialize and no Mcp-Session-Id header; each request carries the protocol version in its _meta. The app "
        "knows only a URL, not the server's code, so this trace has no phase zero.",
        options={"transport": "http", "era": "modern"},
    ),
    Sample(
        "forty-tools-mcp",
        "40 个工具 · 工具定义的代价",
        "40 tools · what tool definitions cost",
        "同一个问题，换一个有 40 个工具的服务器（ops-demo：get_weather 加上告警、巡检、日志、工单、库存等运维工具，文章 004 的例子）。"
        "模型只调用了 get_weather，可应用的每次请求都带上全部 40 个定义：第一次请求的输入词元数（prompt_tokens）是 3070"
        "（模拟模型按请求文字估算），4 个工具的 beijing-mcp 是 457。文章 004 说工具清单“不会塞进每一次模型请求里”，"
        "对模型请求并非如此：宿主暴露多少工具，就发送多少定义；MCP 改变的是由谁维护这些定义。"
        "应用在提问之前就连上了服务器，所以 initialize 排在问题前面。",
        "The same question through a server with 40 tools (ops-demo: get_weather beside operations tools for alerts, "
        "inspections, logs, tickets, inventory and more, article 004's example). The model calls only get_weather, yet every "
        "request carries all 40 definitions: the first request's prompt_tokens is 3070 (the mock model's estimate from "
        "the request text), against 457 for beijing-mcp's 4 tools. Article 004 says the tool list is not put into "
        "every model request; for the model request that is not so: the host sends every definition it exposes, and "
        "what MCP changes is who maintains them. The app connects to the server before the question, so initialize "
        "comes before it.",
        many_tools=40,
    ),
    Sample(
        "responses-mcp",
        "北京天气 · MCP · Responses API",
        "Beijing weather · MCP · Responses API",
        "同一个问题走 MCP，模型接口换成 OpenAI 的 Responses（POST /v1/responses）。系统提示放在 instructions，对话是 input 里的项；"
        "工具定义是扁平的（type、name、parameters 在同一层，不嵌套在 function 里）。模型的决定是 output 里的一个 function_call 项，"
        "参数仍是 JSON 字符串，配对靠 call_id；应用回填一个 function_call_output 项，并把模型的 function_call 项连同整个 input "
        "再发一遍。响应对象还会把请求的设置（tools、instructions 等）原样带回来，所以这里的响应体比 Chat Completions 的大得多。"
        "MCP 这一侧和 beijing-mcp 完全一样。",
        "The same question through MCP, with the model reached over OpenAI's Responses API (POST /v1/responses). The "
        "system prompt goes in instructions and the conversation as input items; the tools are flat (type, name and "
        "parameters side by side, not nested under function). The model's decision is a function_call output item, "
        "its arguments still a JSON string, paired by call_id; the app backfills a function_call_output item and "
        "sends the whole input again, the model's function_call item included. The response object echoes the "
        "request's settings (tools, instructions and more), so its bodies are much larger than Chat Completions'. "
        "The MCP side is exactly beijing-mcp's.",
        options={"api": "responses"},
    ),
    Sample(
        "responses-previous-id",
        "Responses · 用 previous_response_id 回填",
        "Responses · backfill with previous_response_id",
        "和 responses-mcp 一样的运行，只是回填时不再重发整个 input：请求只带新的 function_call_output 项，"
        "再用 previous_response_id 指向第一次的响应，由服务器接上它保存的对话。省下的只是对话部分："
        "应用在回填请求里照样带着全部 4 个工具定义。与 responses-mcp 对照第 8 条消息的字节数。",
        "The same run as responses-mcp, except that the backfill does not send the whole input again: the request "
        "carries only the new function_call_output item and names the first response in previous_response_id, and "
        "the server picks up the conversation it kept. Only the conversation is saved: the app still sends all 4 "
        "tool definitions in the backfill. Compare message 8's bytes with responses-mcp.",
        options={"api": "responses", "previous_response": True},
    ),
    Sample(
        "messages-mcp",
        "北京天气 · MCP · Anthropic Messages API",
        "Beijing weather · MCP · Anthropic Messages API",
        "同一个问题走 MCP，模型接口换成 Anthropic 的 Messages（POST /v1/messages）。系统提示是顶层的 system 字段，max_tokens 必须给；"
        "工具是 name、description 和 input_schema（正向翻译是 inputSchema → input_schema）。模型的决定是一个 tool_use 内容块，"
        'stop_reason 为 "tool_use"，它的 input 已经是 JSON 对象，不是字符串。回填没有 role 为 tool 的消息：应用把助手的内容块原样放回，'
        "再加一条 user 消息，里面的 tool_result 内容块引用 tool_use_id。",
        "The same question through MCP, with the model reached over Anthropic's Messages API (POST /v1/messages). The "
        "system prompt is the top-level system field and max_tokens is required; a tool is name, description and "
        "input_schema (the forward translation is inputSchema → input_schema). The model's decision is a tool_use "
        'content block with stop_reason "tool_use", its input already a JSON object, not a string. The backfill has '
        'no role "tool" message: the app sends the assistant\'s blocks back as they came, then a user message whose '
        "tool_result block quotes the tool_use_id.",
        options={"api": "messages"},
    ),
    Sample(
        "messages-stream",
        "Anthropic Messages · 流式输出",
        "Anthropic Messages · streaming",
        "messages-mcp 的流式版本。Messages 的流是一串有类型的事件：message_start，然后每个内容块一组 content_block_start、"
        "content_block_delta、content_block_stop，最后 message_delta（带 stop_reason）和 message_stop。tool_use 的 input 以 "
        "input_json_delta 的 partial_json 一段段到达，应用拼起来再解析成对象；回答的文字以 text_delta 到达。",
        "The streamed version of messages-mcp. A Messages stream is typed events: message_start, then for each "
        "content block content_block_start, content_block_delta and content_block_stop, and last message_delta "
        "(with the stop_reason) and message_stop. The tool_use's input arrives in pieces, as the partial_json of "
        "input_json_delta events, which the app joins and then parses into an object; the answer's text arrives as "
        "text_delta events.",
        options={"api": "messages", "stream": True},
    ),
    Sample(
        "responses-direct",
        "北京天气 · 直接调用模式 · Responses API",
        "Beijing weather · direct mode · Responses API",
        "beijing-direct 的 Responses 版本：没有 MCP，应用把手写的工具定义按 Responses 的扁平形式发出（type、name、parameters "
        "在同一层）。模型的 function_call 项带着 JSON 字符串参数和 call_id，应用在本进程内调用函数，再用一个 "
        "function_call_output 项把结果交回。与 responses-mcp 对照：模型一侧的请求几乎一样。",
        "beijing-direct over the Responses API: no MCP; the app sends its hand-written tools in Responses' flat form "
        "(type, name and parameters side by side). The model's function_call item carries a JSON string of arguments "
        "and a call_id; the app calls the function in its own process and hands the result back in a "
        "function_call_output item. Compare with responses-mcp: the model's side is almost the same.",
        options={"mode": "direct", "api": "responses"},
    ),
    Sample(
        "messages-direct",
        "北京天气 · 直接调用模式 · Anthropic Messages",
        "Beijing weather · direct mode · Anthropic Messages",
        "beijing-direct 的 Messages 版本：没有 MCP，工具定义的参数 Schema 放在 input_schema 里。模型的 tool_use 内容块里 input "
        "已经是对象，应用不必解析 JSON 字符串就能调用函数；结果作为 user 消息里的 tool_result 内容块交回，靠 tool_use_id 配对。",
        "beijing-direct over Anthropic Messages: no MCP; each tool's argument schema goes in input_schema. The model's "
        "tool_use block carries its input already as an object, so the app calls the function without parsing a JSON "
        "string; the result goes back as a tool_result block in a user message, paired by tool_use_id.",
        options={"mode": "direct", "api": "messages"},
    ),
    Sample(
        "responses-two-cities",
        "两座城市 · 并行调用 · Responses API",
        "Two cities · parallel calls · Responses API",
        "两座城市的问题走 Responses：模型在一次回复的 output 里给出两个 function_call 项（各有自己的 call_id），"
        "应用各调用一次 MCP 工具，回填两个 function_call_output 项。",
        "The two-city question over the Responses API: the model's one reply holds two function_call items in its "
        "output (each with its own call_id); the app calls the MCP tool once for each and backfills two "
        "function_call_output items.",
        question="北京和上海今天天气怎么样？",
        options={"api": "responses"},
    ),
    Sample(
        "messages-two-cities",
        "两座城市 · 并行调用 · Anthropic Messages",
        "Two cities · parallel calls · Anthropic Messages",
        "两座城市的问题走 Messages：模型一次回复里有两个 tool_use 内容块，应用各调用一次 MCP 工具，然后在同一条 user 消息里"
        "放两个 tool_result 内容块交回。",
        "The two-city question over Anthropic Messages: the model's one reply holds two tool_use blocks; the app calls "
        "the MCP tool once for each and sends both tool_result blocks back in one user message.",
        question="北京和上海今天天气怎么样？",
        options={"api": "messages"},
    ),
    Sample(
        "responses-stream",
        "Responses API · 流式输出",
        "Responses API · streaming",
        "responses-mcp 的流式版本。Responses 的流是一串有类型的事件：response.created、response.in_progress，然后每个输出项"
        "一组 response.output_item.added、参数的 response.function_call_arguments.delta 和 .done、response.output_item.done"
        "（回答的文字则是 response.output_text.delta），最后 response.completed 带着完整的响应和用量。",
        "The streamed version of responses-mcp. A Responses stream is typed events: response.created and "
        "response.in_progress, then for each output item response.output_item.added, the arguments' "
        "response.function_call_arguments.delta and .done (the answer's text: response.output_text.delta), "
        "response.output_item.done, and last response.completed with the whole response and its usage.",
        options={"api": "responses", "stream": True},
    ),
    Sample(
        "hosted-responses",
        "托管 MCP · Responses API",
        "Hosted MCP · Responses API",
        "应用只发出一个请求，里面是一个 type 为 mcp 的工具（server_label、server_url、require_approval）。列出工具、"
        "调用 get_weather、把结果交回模型，都由模型服务商的 MCP 客户端完成；应用读到的是响应里的 mcp_list_tools 和 "
        "mcp_call 项：服务商的报告，不是线路上的帧。离线模拟服务商真的通过 Streamable HTTP 连上了演示服务器，所以这里"
        "两样都有：观测到的帧，和服务商报告的内容。",
        "The app sends one request holding one tool of type mcp (server_label, server_url, require_approval). Listing "
        "the tools, calling get_weather and handing the result back to the model are all done by the provider's MCP "
        "client; what the app reads is the response's mcp_list_tools and mcp_call items: the provider's report, not "
        "frames on a wire. The offline mock provider really connects to the demo server over Streamable HTTP, so "
        "both are here: the frames observed, and what the provider reports.",
        options={"mode": "hosted", "api": "responses"},
    ),
    Sample(
        "hosted-responses-approval",
        "托管 MCP · 需要批准",
        "Hosted MCP · approval required",
        "require_approval 为 always：服务商列出工具、模型决定调用后，服务商先停下来，在响应里放一个 mcp_approval_request。"
        "应用在下一个请求里用 mcp_approval_response（approve: true）回答，服务商这才真正调用工具。批准是应用对每次调用的"
        "最后决定权。",
        "require_approval is always: after the provider lists the tools and the model decides on a call, the provider "
        "stops and puts an mcp_approval_request in its response. The app answers in its next request with an "
        "mcp_approval_response (approve: true), and only then does the provider call the tool. Approval is the app's "
        "last word on each call.",
        options={"mode": "hosted", "api": "responses", "require_approval": "always"},
    ),
    Sample(
        "hosted-messages",
        "托管 MCP · Anthropic Messages",
        "Hosted MCP · Anthropic Messages",
        "Anthropic 的 MCP 连接器（测试版功能 mcp-client-2025-11-20）：请求里用 mcp_servers 给出服务器的 URL 和令牌，"
        "tools 里放一个 mcp_toolset。回答里的 mcp_tool_use 和 mcp_tool_result 内容块报告了服务商的调用；"
        "服务商没有报告它列出工具的那一步，所以 tools/list 只能在观测到的帧里看到。",
        "Anthropic's MCP connector (beta mcp-client-2025-11-20): the request names the server's URL and token in "
        "mcp_servers and puts an mcp_toolset in tools. The answer's mcp_tool_use and mcp_tool_result blocks report the "
        "provider's call; the provider does not report its listing of the tools, so tools/list is seen only in the "
        "observed frames.",
        options={"mode": "hosted", "api": "messages"},
    ),
    Sample(
        "hosted-tool-error",
        "托管 MCP · 工具出错",
        "Hosted MCP · a tool error",
        "问火星的天气：工具在服务器上失败（isError: true）。服务商把失败写进 mcp_call 的 error 字段"
        "（type 为 mcp_tool_execution_error），模型在服务商那里读到它，照样回答。应用只能事后从报告里得知。",
        "Asking about Mars: the tool fails on the server (isError: true). The provider writes the failure into the "
        "mcp_call's error field (type mcp_tool_execution_error); the model reads it at the provider and answers "
        "anyway. The app learns of it afterwards, from the report alone.",
        question="火星今天天气怎么样？",
        options={"mode": "hosted", "api": "responses"},
    ),
    Sample(
        "asks-elicitation",
        "服务器问用户 · elicitation · 2025-11-25",
        "The server asks the user · elicitation · 2025-11-25",
        "“我这里”是哪里，只有用户知道。模型调用不带参数的 weather_here，服务器在这次 tools/call 还没回答时，"
        "从自己这一端发出 elicitation/create 请求：一句说明，加上一份表单（requestedSchema，city 只能从列出的城市里选）。"
        "这个请求的 id 是服务器自己编的 1，和客户端的请求编号互不相干。宿主把表单交给用户，用户选了上海（accept），"
        "客户端用同一个 id 把 action 和 content 发回服务器，服务器这才查天气，回答最初的 tools/call。"
        "模型看不到表单，也不知道问过用户。宿主能这样回答，是因为它在 initialize 里声明了 elicitation 能力。",
        "Where 'here' is only the user knows. The model calls weather_here, which takes no arguments, and before "
        "that tools/call is answered the server sends a request of its own the other way: elicitation/create, a "
        "message and a form (requestedSchema: city, one of the cities listed). Its id, 1, is the server's own, "
        "unrelated to the client's numbering. The host puts the form to the user, who picks 上海 (accept); the client "
        "sends the action and the content back under that same id, and only then does the server look up the "
        "weather and answer the original tools/call. The model never sees the form, nor that the user was asked. "
        "The host may answer because it declared the elicitation capability in initialize.",
        question="我这里今天天气怎么样？",
        options={**ASKS, "answers": (("city", "上海"),)},
    ),
    Sample(
        "asks-elicitation-modern",
        "服务器问用户 · elicitation · 2026-07-28",
        "The server asks the user · elicitation · 2026-07-28",
        "同一个问题走 2026-07-28 协议。这个时代没有会话，服务器不能在调用中途反过来发请求：它直接回答 tools/call，"
        "结果是 resultType 为 input_required 的结果，inputRequests 里按键名放着要问的 elicitation/create，另附一个 requestState。"
        "客户端问过用户（上海），再发一次 tools/call：同样的工具和参数，一个新的 JSON-RPC id，inputResponses 按同一个键名放着回答，"
        "requestState 原样带回。把两次调用连成一次操作的是 requestState，不是 id。requestState 由服务器加密封存，"
        "每次运行都不一样，客户端只管带回，不去读它。宿主的能力不在握手里声明，而是随每个请求放在 _meta 里。",
        "The same question in the 2026-07-28 protocol. This era has no session, so a server cannot send a request "
        "back in the middle of a call: it answers tools/call at once with a result whose resultType is "
        "input_required, holding the elicitation/create it needs in inputRequests, under a key, and a requestState. "
        "The client asks the user (上海) and sends tools/call again: the same tool and arguments, a new JSON-RPC id, "
        "the answer in inputResponses under the same key, and the requestState echoed. What ties the two calls into "
        "one operation is the requestState, not the id. The server seals the requestState, so it differs on every "
        "run; the client echoes it without reading it. The host's capabilities are not declared in a handshake but "
        "sent in the _meta of every request.",
        question="我这里今天天气怎么样？",
        options={**ASKS, "answers": (("city", "上海"),), "era": "modern"},
    ),
    Sample(
        "asks-elicitation-declined",
        "服务器问用户 · 用户拒绝",
        "The server asks the user · declined",
        "和 asks-elicitation 一样的提问，只是用户拒绝回答（decline）。客户端发回的结果只有 action，没有 content。"
        "服务器不能假装知道城市：weather_here 返回一句说明，说用户没有告诉它在哪里，所以没有查天气；这不是错误（isError 为 false），"
        "模型照这句话回答。拒绝（decline）是明确说不，取消（cancel）是没作答就关掉，服务器两种都得接住。",
        "The same question as asks-elicitation, but the user declines to answer (decline). The client's result "
        "carries the action alone, no content. The server cannot pretend to know the city: weather_here returns a "
        "sentence saying the user did not say where they are, so no weather was looked up; this is not an error "
        "(isError is false), and the model answers from it. Decline is an explicit no; cancel is closing the "
        "question without an answer. A server must handle both.",
        question="我这里今天天气怎么样？",
        options={**ASKS, "elicit_action": "decline"},
    ),
    Sample(
        "asks-sampling",
        "服务器借用宿主的模型 · sampling · 2025-11-25",
        "The server borrows the host's model · sampling · 2025-11-25",
        "forecast_in_words 自己没有模型，它要把三天的预报说成一句话，于是在 tools/call 中途发出 sampling/createMessage："
        "要发给模型的消息、systemPrompt 和 maxTokens（120）。宿主用它自己的模型接口替服务器发出这次请求，"
        "所以模型那条线上多了一问一答，由 MCP 客户端发出，标明是替服务器问的；这次请求只带服务器给的消息，"
        "没有用户的问题，也没有工具。模型的一句话作为 CreateMessageResult 回到服务器，成为工具结果。"
        "服务器用的是宿主的模型和额度，却从来拿不到宿主的 API 密钥。整个运行共有 3 次模型请求，2 次是应用的，1 次是服务器的。",
        "forecast_in_words has no model of its own; to put three days of forecast into one sentence it sends "
        "sampling/createMessage in the middle of tools/call: the messages for the model, a systemPrompt and "
        "maxTokens (120). The host sends that request through its own model API on the server's behalf, so the "
        "model's lane gets one more exchange, sent by the MCP client and marked as asked for the server; it carries "
        "only the server's messages, not the user's question and no tools. The model's sentence goes back to the "
        "server as a CreateMessageResult and becomes the tool's result. The server uses the host's model and its "
        "quota, yet never gets the host's API key. The run makes 3 model requests: 2 for the app, 1 for the server.",
        question="用一句话说说北京未来三天的天气",
        options={**ASKS},
    ),
    Sample(
        "asks-sampling-modern",
        "服务器借用宿主的模型 · sampling · 2026-07-28",
        "The server borrows the host's model · sampling · 2026-07-28",
        "英文提问，走 2026-07-28 协议。forecast_in_words 的第一次 tools/call 得到 input_required 结果，"
        "inputRequests 里是一个 sampling/createMessage；宿主用自己的模型替服务器写好这句话，再用新的 id 重发 tools/call，"
        "inputResponses 里是模型的回答，requestState 原样带回。在这个协议里 sampling 已被标为弃用，但已安装的 SDK 仍然支持，"
        "也仍要宿主声明 sampling 能力。",
        "An English question in the 2026-07-28 protocol. forecast_in_words' first tools/call gets an "
        "input_required result whose inputRequests hold a sampling/createMessage; the host has its own model write "
        "the sentence for the server and sends tools/call again under a new id, with the model's answer in "
        "inputResponses and the requestState echoed. This protocol marks sampling as deprecated; the installed SDK "
        "still supports it, and still only for a host that declares the sampling capability.",
        question="In one sentence, what will the weather in Beijing be like over the next three days?",
        options={**ASKS, "era": "modern"},
    ),
    Sample(
        "asks-sampling-tools",
        "服务器借用宿主的模型，还带上自己的工具 · 带工具的 sampling · 2025-11-25",
        "The server borrows the host's model with its own tool · sampling with tools · 2025-11-25",
        "plan_outing 要判断北京的天气适不适合全班出游。它请宿主的模型来判断，并在 sampling/createMessage 里附上自己的工具 "
        "get_forecast；只有客户端在 initialize 里声明了 sampling.tools，服务器才能这样做。宿主把这个工具放进自己模型接口的 tools，"
        "模型要求调用 get_forecast，但宿主并不运行它：客户端把 tool_use 作为回答交回服务器，服务器自己查了预报，"
        "再发第二个 sampling/createMessage，带上模型的 tool_use 和自己的 tool_result，模型这才用一句话作答。"
        "应用这边的模型只看到 plan_outing 的结果；整个运行有 4 次模型请求，其中 2 次是替服务器发的。",
        "plan_outing must judge whether Beijing's weather suits a class outing. It asks the host's model to judge, and "
        "puts its own tool get_forecast into sampling/createMessage; a server may do so only because the client "
        "declared sampling.tools in initialize. The host puts that tool into its own model API's tools; the model "
        "asks for get_forecast, but the host does not run it: the client hands the tool_use back to the server as "
        "its answer, the server looks up the forecast itself and sends a second sampling/createMessage with the "
        "model's tool_use and its own tool_result, and only then does the model answer in a sentence. The app's "
        "model sees only plan_outing's result; the run makes 4 model requests, 2 of them for the server.",
        question="明天适合带全班去北京郊游吗？",
        options={**ASKS},
    ),
    Sample(
        "asks-sampling-tools-modern",
        "服务器借用宿主的模型，还带上自己的工具 · 带工具的 sampling · 2026-07-28",
        "The server borrows the host's model with its own tool · sampling with tools · 2026-07-28",
        "英文提问，走 2026-07-28 协议。plan_outing 的一次调用分成三轮：第一轮得到 input_required，里面是带着 get_forecast "
        "工具的 sampling/createMessage；宿主的模型要求调用 get_forecast，第二轮把这个 tool_use 放在 inputResponses 里重发；"
        "服务器自己运行工具后又回了一个 input_required，这次的 sampling 请求带着 tool_result；第三轮带回模型的回答，"
        "服务器才给出结果。三轮用了三个不同的 id，由 requestState 连成一次调用。带工具的 sampling（ToolUseContent、"
        "ToolResultContent）在这个协议里已被标为弃用，已安装的 SDK 仍然支持。",
        "An English question in the 2026-07-28 protocol. One call of plan_outing takes three rounds: the first gets "
        "input_required holding a sampling/createMessage with the get_forecast tool; the host's model asks for "
        "get_forecast, and round 2 sends that tool_use back in inputResponses; the server runs its tool itself and "
        "answers input_required again, now with a sampling request carrying the tool_result; round 3 brings the "
        "model's answer, and only then does the server give its result. The rounds have three different ids, "
        "linked into one call by requestState. This protocol marks sampling with tools (ToolUseContent, "
        "ToolResultContent) as deprecated; the installed SDK still supports it.",
        question="Is the weather in Shanghai good for a class outing?",
        options={**ASKS, "era": "modern"},
    ),
    Sample(
        "asks-roots",
        "服务器问能读哪些文件夹 · roots · 2025-11-25",
        "The server asks which folders it may read · roots · 2025-11-25",
        "class_notes 只读客户端愿意共享的文件夹里的笔记。它在 tools/call 中途发出 roots/list，"
        "客户端回答一个根：一个 file 地址和它的名字。服务器在这个根里找到 Beijing.md，把内容和它来自哪个根一起返回。"
        "根只是服务器的承诺：MCP 不强制，能不能读根外面的文件，取决于服务器自己的代码。"
        "生成样例时，宿主共享的是演示包笔记的一份副本，放在 /tmp/mcp-flow-samples/weather_demo/notes，"
        "这样每台机器生成的样例都一样；你自己加 --asks 运行时，默认共享的是本机的 weather_demo/notes。",
        "class_notes reads notes only inside the folders the client is willing to share. In the middle of tools/call "
        "it sends roots/list, and the client answers with one root: a file URI and a name. The server finds "
        "Beijing.md inside that root and returns its text with the root it came from. A root is only the server's "
        "promise: MCP does not enforce it, and whether anything outside is read is up to the server's own code. For "
        "the sample the host shares a copy of the demo's notes at /tmp/mcp-flow-samples/weather_demo/notes, so that "
        "every machine makes the same sample; your own run with --asks shares the package's weather_demo/notes "
        "where it is installed.",
        question="北京有什么课堂笔记？",
        options={**ASKS},
        shares_notes=True,
    ),
    Sample(
        "asks-roots-modern",
        "服务器问能读哪些文件夹 · roots · 2026-07-28",
        "The server asks which folders it may read · roots · 2026-07-28",
        "同一个问题走 2026-07-28 协议：第一次 tools/call 得到 input_required 结果，inputRequests 里只有一个没有参数的 roots/list；"
        "客户端不必问任何人，直接用新的 id 重发 tools/call，inputResponses 里是根的清单，requestState 原样带回。"
        "roots 在这个协议里也被标为弃用。根目录和 asks-roots 一样，是 /tmp/mcp-flow-samples/weather_demo/notes 里的副本。",
        "The same question in the 2026-07-28 protocol: the first tools/call gets an input_required result whose "
        "inputRequests hold one roots/list with no params; the client asks nobody and sends tools/call again under a "
        "new id, with the list of roots in inputResponses and the requestState echoed. This protocol marks roots as "
        "deprecated too. The root is the same copy as in asks-roots, at /tmp/mcp-flow-samples/weather_demo/notes.",
        question="北京有什么课堂笔记？",
        options={**ASKS, "era": "modern"},
        shares_notes=True,
    ),
    Sample(
        "asks-elicitation-url",
        "服务器请用户去一个网页 · URL 模式的 elicitation · 2025-11-25",
        "The server sends the user to a page · URL-mode elicitation · 2025-11-25",
        "打开降雨雷达要用户在天气服务自己的页面上登录。radar_sign_in 在 tools/call 中途发出 elicitation/create，mode 是 url："
        "只有一句说明和一个地址，没有表单。宿主把地址给用户看，用户同意前往（accept），回答里没有任何内容："
        "在那个页面上输入的东西（比如密码）从不经过 MCP 客户端，也不经过模型。这个演示的地址在保留域名 .example 下，"
        "背后没有页面。这个 SDK 只把 URL 模式作为服务器沿会话发回的请求发出，所以这里用 2025-11-25；2026-07-28 协议也允许 URL 模式，"
        "放在 input_required 结果里，但 SDK 的解析器只会生成表单模式。",
        "Turning on the rain radar needs the user to sign in on the weather service's own page. In the middle of "
        "tools/call radar_sign_in sends elicitation/create with mode url: a sentence and an address, no form. The "
        "host shows the address; the user agrees to go (accept), and the answer carries no content: what is typed on "
        "that page (a password, say) never passes through the MCP client or the model. The demo's address is under "
        "the reserved .example domain, with no page behind it. This SDK sends URL mode only as a request back over "
        "the session, hence 2025-11-25 here; the 2026-07-28 protocol allows URL mode too, inside an input_required "
        "result, but the SDK's resolvers build form mode only.",
        question="帮我打开降雨雷达",
        options={**ASKS, "answers": (("open", "yes"),)},
    ),
    Sample(
        "asks-list-changed",
        "工具清单变了 · list_changed · 2025-11-25",
        "The tool list changes · list_changed · 2025-11-25",
        "模型先调用 unlock_alerts：服务器在这次调用里新增了一个工具 weather_alerts，并在会话上发出 "
        "notifications/tools/list_changed。通知本身不带清单，所以客户端在下一次请求模型之前重新发 tools/list，"
        "应用把新清单重新翻译成函数定义；第二次模型请求里就多了 weather_alerts，模型这才能调用它。"
        "第一次请求时这个工具还不存在，模型不可能提前知道它。",
        "The model first calls unlock_alerts: during that call the server adds a tool, weather_alerts, and sends "
        "notifications/tools/list_changed over the session. The notification carries no list, so before asking the "
        "model again the client sends tools/list once more and the app translates the new list into function "
        "definitions; the second model request offers weather_alerts, and only then can the model call it. At the "
        "first request the tool did not exist, so the model could not have known of it.",
        question="上海有天气预警吗？",
        options={**ASKS},
    ),
    Sample(
        "asks-list-changed-modern",
        "工具清单变了 · subscriptions/listen · 2026-07-28",
        "The tool list changes · subscriptions/listen · 2026-07-28",
        "2026-07-28 没有会话，服务器不能随时给客户端发通知；客户端要先发 subscriptions/listen，"
        "打开一条说明自己关心哪些变化的长连接请求。unlock_alerts 新增工具后，清单变化的通知就从这条连接回来，"
        "客户端照样重新 tools/list，下一次模型请求多了 weather_alerts。运行结束时客户端取消这条 listen 请求。",
        "2026-07-28 has no session, so the server cannot notify the client whenever it likes: the client first "
        "sends subscriptions/listen, a long-lived request that says which changes it wants to hear of. When "
        "unlock_alerts adds its tool, the list-changed notification comes back on that request; the client lists the "
        "tools again, and the next model request offers weather_alerts. When the run ends the client cancels the "
        "listen request.",
        question="上海有天气预警吗？",
        options={**ASKS, "era": "modern", "listen": True},
    ),
    Sample(
        "asks-structured",
        "结构化结果 · outputSchema 与 structuredContent",
        "Structured results · outputSchema and structuredContent",
        "weather_card 在 tools/list 里带着 outputSchema，说明它的结果是什么形状；tools/call 的结果里除了给人读的 content，"
        "还有按这个 Schema 写的 structuredContent。宿主用 outputSchema 检查 structuredContent（结果记在工具结果这一跳的 "
        "structured 里），这次回填给模型的是 structuredContent 的 JSON，而不是文本 content：这是宿主自己的选择，"
        "默认仍回填文本。",
        "weather_card comes in tools/list with an outputSchema saying what shape its result has; the tools/call "
        "result carries, beside the content meant for reading, a structuredContent written to that schema. The host "
        "checks structuredContent against outputSchema (the check is kept in the tool result hop's structured field), "
        "and this time backfills the structuredContent JSON to the model instead of the text content: that is the "
        "host's choice; by default it backfills the text.",
        question="给我一张北京的天气卡片",
        options={**ASKS, "check_output": True, "backfill": "structured"},
    ),
    Sample(
        "asks-subscribed",
        "订阅资源 · resources/subscribe · 2025-11-25",
        "Subscribing to a resource · resources/subscribe · 2025-11-25",
        "服务器在 InitializeResult 里声明 resources.subscribe 为 true，表示它的资源可以订阅。客户端在请求模型之前发出 "
        "resources/subscribe，只带资源的 uri，也就是 weather://alerts（今天的天气预警），服务器回一个空结果，表示记下了。"
        "模型调用 unlock_alerts，服务器打开预警，在会话上先后发出 notifications/tools/list_changed 和 "
        "notifications/resources/updated。更新通知只说哪个资源变了，不带新内容；客户端想看新内容，要自己再发 "
        "resources/read，这次运行没有去读。没有订阅这个资源的客户端收不到这条更新通知。",
        "The server declares resources.subscribe true in its InitializeResult: its resources may be subscribed to. "
        "Before asking the model, the client sends resources/subscribe with nothing but the resource's uri, "
        "weather://alerts (today's weather alerts), and the server answers with an empty result: noted. The model "
        "calls unlock_alerts; the server turns the alerts on and sends two notifications over the session, "
        "notifications/tools/list_changed and then notifications/resources/updated. The update says which resource "
        "changed, not what it now holds: a client that wants the new content sends resources/read itself, which this "
        "run does not. A client that did not subscribe to the resource is not told.",
        question="上海有天气预警吗？",
        options={**ASKS, "subscribe": ("weather://alerts",)},
    ),
    Sample(
        "asks-subscribed-modern",
        "订阅资源 · subscriptions/listen · 2026-07-28",
        "Subscribing to a resource · subscriptions/listen · 2026-07-28",
        "2026-07-28 没有 resources/subscribe。客户端发出 subscriptions/listen，在 resourceSubscriptions 里列出要关注的资源 "
        "weather://alerts，同时用 toolsListChanged 要工具清单变化的通知。服务器先在这条请求上回一条 "
        "notifications/subscriptions/acknowledged，说明它答应发哪些。unlock_alerts 运行时，清单变化和资源更新这两条通知都从 "
        "listen 请求回来，_meta 里的 subscriptionId 就是 listen 请求的 id。资源更新的通知排在 tools/call 的结果之后才到："
        "它走的是 listen 请求，不是这次调用的回答。运行结束时客户端取消 listen 请求。",
        "2026-07-28 has no resources/subscribe. The client sends subscriptions/listen, naming the resource it wants to "
        "hear of, weather://alerts, in resourceSubscriptions, and asking with toolsListChanged to hear of changes to "
        "the tool list too. The server first sends notifications/subscriptions/acknowledged on that request, saying "
        "what it agrees to send. While unlock_alerts runs, both the list change and the resource update come back on "
        "the listen request, the subscriptionId in their _meta being the listen request's id. The update arrives after "
        "the tools/call result: it travels on the listen request, not in the call's answer. When the run ends the "
        "client cancels the listen request.",
        question="上海有天气预警吗？",
        options={**ASKS, "era": "modern", "listen": True, "subscribe": ("weather://alerts",)},
    ),
    Sample(
        "asks-ping",
        "ping · 对方还在吗 · 2025-11-25",
        "Ping · is the other side still there · 2025-11-25",
        "和 beijing-mcp 是同一个问题，只多了一问一答：握手结束后，客户端发出 ping，这个请求除了 id 和 method 什么也没有，"
        "服务器用同一个 id 回一个空结果 {}。ping 只用来确认对方还在、还能回答，不带任何数据，双方都可以发。"
        "客户端可以隔一段时间 ping 一次，迟迟等不到回答，就可以认为连接已经失效。2026-07-28 删掉了 ping："
        "在那个协议里要求发 ping，运行会用一行话拒绝，什么也不发。",
        "The same question as beijing-mcp with one more exchange: after the handshake the client sends ping, a request "
        "with nothing but an id and a method, and the server answers under the same id with an empty result, {}. A "
        "ping only checks that the other side is still there and answering; it carries no data, and either side may "
        "send one. A client may ping now and then and, if no answer comes in reasonable time, take the connection as "
        "stale. 2026-07-28 removed ping: asked to send one in that protocol, the run refuses in one line and sends "
        "nothing.",
        options={"ping": True},
    ),
    Sample(
        "asks-cancelled",
        "取消一次调用 · notifications/cancelled · 2025-11-25",
        "Cancelling a call · notifications/cancelled · 2025-11-25",
        "slow_report 要做大约 30 秒，边做边用 notifications/progress 报告进度，而这次运行的 MCP 超时只有 1 秒"
        "（--mcp-timeout 1）。1 秒到了还没有结果，客户端不再等，发出 notifications/cancelled：一条没有 id 的通知，"
        "requestId 指明撤回的是 id 为 3 的 tools/call，reason 写明超时。服务器的 SDK 收到后默认中止这个工具，"
        "也不再回答这个请求。接下来那条错误不是服务器发来的，线路上没有这条消息：它是客户端的 SDK 自己给出的超时错误"
        "（-32001）。没有工具结果可以交回模型，运行就此结束，没有回答。在 2026-07-28 的 Streamable HTTP 上没有这条通知："
        "客户端直接关闭这次调用的 POST 请求，关闭本身就是取消的信号。模型的决定由脚本给出，因为离线模拟模型不会调用 "
        "slow_report。",
        "slow_report takes about 30 seconds and reports its progress with notifications/progress as it goes, but this "
        "run's MCP timeout is only 1 second (--mcp-timeout 1). When the second is up with no result, the client stops "
        "waiting and sends notifications/cancelled: a notification with no id, whose requestId names the tools/call it "
        "withdraws (id 3) and whose reason says it timed out. On receiving it the server's SDK stops the tool by "
        "default and never answers that request. The error after it is not the server's: no such message crossed the "
        "wire; it is the timeout error the client's SDK made up (-32001). With no tool result to send back to the "
        "model the run ends there, without an answer. On 2026-07-28 over Streamable HTTP there is no such "
        "notification: the client closes the call's POST request, and the closing is the signal. A script makes the "
        "model's decision, since the offline mock never calls slow_report.",
        question="给我一份北京的详细天气报告",
        options={"asks": True, "mcp_timeout_s": 1.0},
        script='{"call": "slow_report", "arguments": {"city": "北京"}}',
    ),
]


def generate(sample: Sample) -> Trace:
    """Run a sample as its entry says: in memory unless its options name a transport ("http": the demo server in
    its own process on a loopback port), on the many-tools server when it names a tool count."""
    options = RunOptions(**{"transport": "memory", **sample.options})
    if sample.shares_notes:
        options = replace(options, roots=(str(sample_notes_root()),))
    model = ModelConfig.scripted(load_script(sample.script)) if sample.script else ModelConfig(model=sample.model)
    if sample.many_tools:
        trace = run_many_tools(sample.question, sample.many_tools, options=options, model=model)
    elif options.transport == "http":
        with demo_server_over_http() as url:
            trace = run(sample.question, options=RunOptions(**{**sample.options, "server_url": url}), model=model).trace
    else:
        trace = run(sample.question, options=options, model=model).trace
    trace.meta.title = {"zh": sample.title_zh, "en": sample.title_en}
    trace.meta.note = {"zh": sample.note_zh, "en": sample.note_en}
    trace.meta.sample = sample.name
    return trace


# Where a sample's host shares the demo's class notes from. A root is an absolute file:// URI, and the package's own
# folder (the default root of a run with --asks) sits wherever the project was cloned or installed: a sample made
# there would name that folder, and its bytes, sizes and token counts would change from one machine to the next.
# The notes are copied here instead, a path the same on every machine, and the sample says so.
SAMPLE_NOTES_ROOT = Path("/tmp/mcp-flow-samples/weather_demo/notes")


def sample_notes_root() -> Path:
    """SAMPLE_NOTES_ROOT holding a fresh copy of the demo's class notes, each file replaced whole (another
    regeneration may be reading it). Every folder on the way is made by this user for this user alone; one that is
    a link, another user's or writable by others raises RuntimeError rather than be written into."""
    [notes] = [Path(folder) for folder in demo_roots()]
    top = SAMPLE_NOTES_ROOT.parents[1]
    for folder in (top, SAMPLE_NOTES_ROOT.parent, SAMPLE_NOTES_ROOT):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
        found = folder.lstat()
        if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid() or found.st_mode & 0o022:
            raise RuntimeError(f"{folder} is not a folder of this user's alone: remove it and generate again")
    for note in sorted(notes.glob("*.md")):
        partial = SAMPLE_NOTES_ROOT / f".{note.name}.{os.getpid()}.{threading.get_ident()}"
        shutil.copyfile(note, partial)
        os.replace(partial, SAMPLE_NOTES_ROOT / note.name)
    return SAMPLE_NOTES_ROOT


def run_many_tools(question: str, n: int, *, options: RunOptions, model: ModelConfig) -> Trace:
    """One run on the many-tools demo server with `n` tools, served in this process; its set-up frames are the
    run's own, recorded before the question because the session is opened first."""

    async def go() -> Trace:
        rec = Recorder()
        spec = ServerSpec(transport="memory", server=many_tools_server(n))
        async with open_session(spec, era=options.era, recorder=rec, timeout_s=options.mcp_timeout_s) as session:
            result = await run_flow(question, options=options, model=model, recorder=rec, session=session)
        if result.trace.meta.server is not None:
            result.trace.meta.server.pop("reused_session", None)  # opened for this run alone
        return result.trace

    return anyio.run(go)


TOOL_COST_SIZES = (4, 10, 20, 30, 40)


def tool_cost_traces(sizes: tuple[int, ...] = TOOL_COST_SIZES, *, question: str = BEIJING) -> list[Trace]:
    """Runs for the tool-cost chart, made now with the mock model: the question through the many-tools server at
    each size (MCP), and through the demo server and in direct mode with its four functions (function calling)."""
    model, options = ModelConfig(model="mock"), RunOptions(transport="memory")
    traces = [run_many_tools(question, n, options=options, model=model) for n in sizes]
    # the demo's four tools both ways: the model is sent the same function definitions through MCP and in direct mode
    traces.append(run(question, options=options, model=model).trace)
    traces.append(run(question, options=RunOptions(transport="memory", mode="direct"), model=model).trace)
    return traces


HTTP_SAMPLE_PORT = 47823  # fixed, so the URL in the trace is the same each time it is regenerated


@dataclass
class DemoServerProcess:
    """`python -m flow demo-server --http` as a child process: its URL, and what it has said on stderr."""

    proc: subprocess.Popen[str]
    url: str = ""
    lines: list[str] = field(default_factory=list)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def spawn_demo_server(*args: str, env: dict[str, str] | None = None, wait_s: float = 30.0) -> DemoServerProcess:
    """The demo server over Streamable HTTP in its own process (`args` are demo-server's, after --http), returned once
    it has said all it says on starting; one that exits first or says nothing for `wait_s` is stopped and raises
    RuntimeError with its last words."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "flow", "demo-server", "--http", *args],
        cwd=PROJECT_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    server = DemoServerProcess(proc)
    said: queue.Queue[str | None] = queue.Queue()

    def drain() -> None:  # keeps the pipe empty for as long as the server lives
        assert proc.stderr is not None
        for line in proc.stderr:
            server.lines.append(line.rstrip("\n"))
            said.put(line)
        said.put(None)

    threading.Thread(target=drain, daemon=True).start()
    deadline = time.monotonic() + wait_s
    while True:
        try:
            line = said.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            line = None
        if line is None:
            server.stop()
            raise RuntimeError(f"the demo server did not start: {' | '.join(server.lines[-3:])}")
        if found := re.search(r"listening on (http://\S+)", line):
            server.url = found.group(1)
        if server.url and line.startswith("connect with:"):  # its last word on starting
            return server


def _spawn_when_free(port: int, deadline: float) -> DemoServerProcess:
    """The demo server over Streamable HTTP on `port`, tried again every 0.5 s while another regeneration holds it."""
    while True:
        try:
            return spawn_demo_server("--port", str(port), "--no-auth", wait_s=max(0.1, deadline - time.monotonic()))
        except RuntimeError as exc:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{exc} (port {port})") from None
            time.sleep(0.5)  # the port is taken: another regeneration is using it


@contextlib.contextmanager
def demo_server_over_http(*, port: int = HTTP_SAMPLE_PORT, wait_s: float = 30.0) -> Iterator[str]:
    """The demo server over Streamable HTTP on 127.0.0.1:`port`, without a bearer token (loopback only); yields its
    URL. A port still held by another regeneration is waited for."""
    server = _spawn_when_free(port, time.monotonic() + wait_s)
    try:
        yield server.url
    finally:
        server.stop()


def write_samples(out: Path, *, names: list[str] | None = None) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for sample in SAMPLES:
        if names and sample.name not in names:
            continue
        written.append(save_trace(generate(sample), out / f"{sample.name}.json"))
        questions = sample_questions_path(sample.name)
        if questions is not None:  # beside the trace, where `lesson`, `render` and the app look for them
            copy = out / "questions" / questions.name
            if not copy.exists() or not copy.samefile(questions):
                copy.parent.mkdir(exist_ok=True)
                shutil.copyfile(questions, copy)
                written.append(copy)
    return written


def synthetic_trace(n_hops: int, *, base: Trace | None = None) -> Trace:
    """A valid trace of any length, made by repeating the tool rounds of a real one (for scale tests)."""
    if base is None:
        base = generate(SAMPLES[2])  # two cities: set-up, then a round with parallel calls
    head = [h for h in base.hops if h.step is not None and h.step <= Step.ASK_MODEL]
    loop = [h for h in base.hops if h not in head]
    hops: list[Hop] = []
    n = 0
    while len(hops) < n_hops:
        source = head if not hops else loop
        for h in source:
            if len(hops) >= n_hops:
                break
            hops.append(h.model_copy(update={"seq": len(hops) + 1, "round": h.round + (n if source is loop else 0)}))
        n += 1
    return Trace(meta=base.meta.model_copy(update={"question": f"synthetic trace of {n_hops} hops"}), hops=hops)
