"""Every line a failure is told in, in English and Chinese: the engine, the servers and the taps raise a code
with its parameters (`FlowError`), and only this table words it, so the command line and the app say the same."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Self, get_args

from flow.text.names import Lang
from flow.text.provider import provider_line
from flow.trace.summaries import amount_text

# The failures that are the MCP server's own doing (after one, what the server wrote to stderr is worth showing).
ServerFailureCode = Literal[
    "server_no_command",
    "server_said",
    "server_cannot_start",
    "server_silent",
    "server_slow_answer",
    "server_closed",
    "server_closed_http",
    "server_stopped",
    "message_too_large",
    "not_jsonrpc",
    "ping_flood",
    "tool_call_error",
    "tool_answered_task",
    "tool_result_unreadable",
    "mcp_timeout",
    "mcp_closed",
    "mcp_error",
]

ErrorCode = Literal[
    # the MCP server
    ServerFailureCode,
    "stderr_flood",
    "python_no_module",
    # an MCP server over HTTP
    "http_token_refused",
    "http_token_needed",
    "http_no_endpoint",
    "http_status",
    "http_unreachable",
    "http_broke",
    # the model endpoint
    "model_http",
    "model_timeout",
    "model_unfinished",
    "model_deadline",
    "model_too_large",
    "model_unreachable",
    "model_stream_error",
    "model_bad_url",
    # an answer the app cannot read
    "event_not_json",
    "body_not_json",
    "body_not_object",
    "not_a_list",
    "call_without_name",
    "call_without_id",
    "arguments_not_text",
    "no_choices",
    "no_output",
    "no_content_blocks",
    "input_not_object",
    "no_message",
    "content_not_text",
    "no_content",
    "no_text_no_calls",
    "chunk_choices_not_list",
    "chunk_content_not_text",
    "chunk_calls_not_list",
    "stream_empty",
    "streamed_tools_unsupported",
    "stream_truncated",
    "stream_ended_twice",
    # the run itself
    "mcp_only",
    "hosted_api",
    "hosted_resources",
    "hosted_unreachable",
    "hosted_function_call",
    "max_rounds",
    "too_many_calls",
    "too_many_reported",
    "too_many_approvals",
    "tool_choice_unoffered",
    "input_rounds",
    "ping_modern",
    "unexpected",
]

SERVER_FAILURES: frozenset[ErrorCode] = frozenset(get_args(ServerFailureCode))

Template = str | Callable[..., str]  # a str.format template, or a function of the parameters where words depend on them

ProviderNote = Literal[
    "strict_beta_only", "tool_choice_ignored", "needs_tool_parser", "null_content_refused", "tool_choice_required_fails"
]

# What a preset's server is known to do with an option the app sends only when asked: said before a run starts.
PROVIDER_NOTES: dict[ProviderNote, dict[Lang, str]] = {
    "strict_beta_only": {
        "en": "DeepSeek takes strict tool schemas only at its beta base URL (https://api.deepseek.com/beta)",
        "zh": "DeepSeek 只在测试版地址（https://api.deepseek.com/beta）接受严格模式的工具定义",
    },
    "tool_choice_ignored": {
        "en": "Ollama's OpenAI-compatible endpoint does not take tool_choice: the model decides as with auto",
        "zh": "Ollama 的 OpenAI 兼容接口不支持 tool_choice：模型会像 auto 一样自行决定",
    },
    "needs_tool_parser": {
        "en": "vLLM honours tool_choice only when the server was started with --enable-auto-tool-choice and "
        "--tool-call-parser (required needs vLLM 0.8.3 or later)",
        "zh": "vLLM 只有在服务端以 --enable-auto-tool-choice 和 --tool-call-parser 启动时才处理 tool_choice"
        "（required 需要 vLLM 0.8.3 或更新版本）",
    },
    "null_content_refused": {
        "en": 'a llama.cpp-family server was seen to refuse content null in the backfill (HTTP 500); the app sends "" '
        "unless --no-adapt is given",
        "zh": '曾观察到 llama.cpp 一类的服务器拒绝回填消息中 content 为 null 的写法（HTTP 500）；除非指定 --no-adapt，应用会发送 ""',
    },
    "tool_choice_required_fails": {
        "en": 'a llama.cpp-family server was seen to fail tool_choice "required" with HTTP 500 and no message',
        "zh": '曾观察到 llama.cpp 一类的服务器对 tool_choice "required" 返回 HTTP 500 且没有任何说明',
    },
}

# What the app and the CLI say where the answer would be, when the model answered with no text at all.
EMPTY_ANSWER: dict[Lang, str] = {"en": "(the model returned an empty answer)", "zh": "（模型返回了空回答）"}
# A run with no terminal to ask on denied a server's sampling request (a paid model is never spent unasked).
SAMPLING_DENIED: dict[Lang, str] = {
    "en": "a server's sampling request was denied: there was no terminal to ask you on; --approve-sampling "
    "approves every request of the run",
    "zh": "服务器的 sampling 请求被拒绝了：没有终端可以征求你的同意；加上 --approve-sampling 会批准这次运行的每个请求",
}

# Request options the app sends only when asked, and how a user turns each off (CLI; app).
OPTION_HINTS: dict[str, tuple[str, str]] = {
    "parallel_tool_calls": (
        "leave out --no-parallel; in the app, allow parallel calls",
        "命令行去掉 --no-parallel；应用中允许并行调用",
    ),
    "disable_parallel_tool_use": (  # the Messages API's way of asking for one call at a time, inside tool_choice
        "leave out --no-parallel; in the app, allow parallel calls",
        "命令行去掉 --no-parallel；应用中允许并行调用",
    ),
    "strict": ("leave out --strict; in the app, turn off strict schemas", "命令行去掉 --strict；应用中关闭严格模式"),
    "stream_options": ("leave out --stream; in the app, turn off streaming", "命令行去掉 --stream；应用中关闭流式"),
    "tool_choice": ("--tool-choice auto", "tool_choice 选 auto"),
}

_STATUS_HINTS: dict[int, tuple[str, str]] = {
    401: ("check the API key", "请检查 API 密钥"),
    403: ("check the key's permissions", "请检查这个 Key 的权限"),
    404: ("check the model name and base URL", "请检查模型名称和 Base URL"),
    429: ("rate limited: wait and retry, or lower the request rate", "触发限流：稍后重试，或降低请求频率"),
}


def _model_http_en(
    status: int,
    detail: str,
    option: str | None = None,
    more_lines: int = 0,
    suspects: tuple[str, ...] = (),
    refused: bool = False,
) -> str:
    hint = _STATUS_HINTS.get(status, ("", ""))[0]
    if refused:  # a 5xx whose body is a validator's: the request must change, waiting does not help
        hint = "the server refused the request itself: sent again unchanged, it fails the same way"
    if option:
        hint = (
            f"this provider does not accept the request option `{option}`: drop it ({OPTION_HINTS[option][0]}) "
            "and run again"
        )
    if not detail:
        line = f"the model endpoint answered HTTP {status} and gave no reason"
        if suspects:
            named = ", ".join(f"`{s}`" for s in suspects)
            ways = "; ".join(OPTION_HINTS[s][0] for s in suspects)
            return f"{line}; the likely cause is an option this request carried: {named} (to leave it out: {ways})"
        return line + (f" ({hint})" if hint else "")
    more = f" [{more_lines} more lines of the provider's message in the trace]" if more_lines else ""
    return f"the model endpoint answered HTTP {status}: {detail}{more}" + (f" ({hint})" if hint else "")


def _model_http_zh(
    status: int,
    detail: str,
    option: str | None = None,
    more_lines: int = 0,
    suspects: tuple[str, ...] = (),
    refused: bool = False,
) -> str:
    hint = _STATUS_HINTS.get(status, ("", ""))[1]
    if refused:  # a 5xx whose body is a validator's: the request must change, waiting does not help
        hint = "服务器拒绝的是这个请求本身：原样重发只会以同样的方式失败"
    if option:
        hint = f"这个服务商不接受请求参数 `{option}`：请去掉它（{OPTION_HINTS[option][1]}）后重试"
    if not detail:
        line = f"模型接口返回 HTTP {status}，没有给出原因"
        if suspects:
            named = "、".join(f"`{s}`" for s in suspects)
            ways = "；".join(OPTION_HINTS[s][1] for s in suspects)
            return f"{line}；很可能是这次请求带的参数 {named} 所致（去掉的方法：{ways}）"
        return line + (f"（{hint}）" if hint else "")
    more = f"［服务商的原文还有 {more_lines} 行，见 trace］" if more_lines else ""
    return f"模型接口返回 HTTP {status}：{detail}{more}" + (f"（{hint}）" if hint else "")


def _stream_error_en(message: str) -> str:
    detail, more_lines = provider_line(message)  # clipped as an HTTP error's is; the whole of it is in the trace
    more = f" [{more_lines} more lines of the provider's message in the trace]" if more_lines else ""
    return f"the model endpoint reported an error in its answer: {detail}{more}"


def _stream_error_zh(message: str) -> str:
    detail, more_lines = provider_line(message)
    more = f"［服务商的原文还有 {more_lines} 行，见 trace］" if more_lines else ""
    return f"模型接口在回答中报告了错误：{detail}{more}"


def _too_large_en(size_bytes: int, limit_bytes: int, at_least: bool, during: str) -> str:
    amount = amount_text(limit_bytes if at_least else size_bytes)  # cut off while arriving: how far it got varies
    return (
        f"the MCP server sent a message of {'more than ' if at_least else ''}{amount}"
        f"{' during ' + during if during else ''}, over the {amount_text(limit_bytes)} limit for one message: "
        "the session was ended"
    )


def _too_large_zh(size_bytes: int, limit_bytes: int, at_least: bool, during: str) -> str:
    amount = amount_text(limit_bytes if at_least else size_bytes)
    return (
        f"MCP 服务器{'在 ' + during + ' 期间' if during else ''}发来一条"
        f"{'至少 ' if at_least else ' '}{amount} 的消息，超过单条消息 {amount_text(limit_bytes)} 的上限，"
        "会话已结束"
    )


def _unfinished_en(timeout_s: float, received_bytes: int, keepalive_only: bool) -> str:
    got = (
        f"{amount_text(received_bytes)} of keep-alive comments and no data had arrived"
        if keepalive_only
        else f"{amount_text(received_bytes)} had arrived"
    )
    return (
        f"the model endpoint did not finish its answer within {timeout_s:g} s, the time allowed for a whole model "
        f"call ({got})"
    )


def _unfinished_zh(timeout_s: float, received_bytes: int, keepalive_only: bool) -> str:
    amount = amount_text(received_bytes)
    got = f"只收到 {amount} 的保活注释，没有数据" if keepalive_only else f"已收到 {amount}"
    return f"模型接口没有在 {timeout_s:g} 秒内答完（这是一次模型调用的总时限；{got}）"


def _model_too_large_en(limit_bytes: int, wire_bytes: int, packed: bool) -> str:
    return (
        f"the model endpoint's answer is larger than {amount_text(limit_bytes)}, the limit for one model response: "
        "reading stopped there" + (f" (it came compressed, {amount_text(wire_bytes)} on the wire)" if packed else "")
    )


def _model_too_large_zh(limit_bytes: int, wire_bytes: int, packed: bool) -> str:
    return f"模型接口的回答超过了 {amount_text(limit_bytes)}（单次模型回答的上限），已停止读取" + (
        f"（以压缩形式传来，线上只有 {amount_text(wire_bytes)}）" if packed else ""
    )


# Why a base URL cannot be used, by the problem `flow.engine.model.check_base_url` found.
_URL_PROBLEMS: dict[str, tuple[str, str]] = {
    "scheme": ("only http:// and https:// URLs are supported", "只支持 http:// 和 https:// 地址"),
    "host": ("it names no host", "其中没有主机名"),
    "bracket": (
        "its host is in brackets but is not an IPv6 address",
        "其主机名写在方括号中，却不是 IPv6 地址",
    ),
    "port": ("its port is not a number from 0 to 65535", "其端口不是 0 到 65535 之间的数字"),
    "characters": (
        "it holds spaces, control characters or backslashes",
        "其中含有空格、控制字符或反斜杠",
    ),
}


# Where a run is about to send its model requests, said in one line before the first one goes.
SENDING_TO: dict[Lang, dict[str, str]] = {
    "en": {
        "openai": "sending the model requests to {base_url} (model {name}, {key})",
        "key": "with an API key",
        "no_key": "with no API key",
        "offline": "the offline {backend} model answers (model {name}): no request leaves this machine",
    },
    "zh": {
        "openai": "模型请求将发往 {base_url}（模型 {name}，{key}）",
        "key": "带 API 密钥",
        "no_key": "不带 API 密钥",
        "offline": "由离线的 {backend} 模型回答（模型 {name}）：没有请求会离开这台机器",
    },
}


def sending_line(described: dict[str, Any], lang: Lang) -> str:
    """Where a run's model requests go, from `ModelConfig.describe()`: a provider's endpoint, or nowhere."""
    words = SENDING_TO[lang]
    backend, name = described.get("backend"), described.get("name")
    if backend != "openai":
        return words["offline"].format(backend=backend, name=name)
    key = words["key"] if described.get("key_status") == "set" else words["no_key"]
    return words["openai"].format(base_url=described.get("base_url"), name=name, key=key)


def _unreadable(en: str, zh: str) -> tuple[Template, Template]:
    return "the model endpoint's answer cannot be read: " + en, "模型接口的回答无法读取：" + zh


_LINES: dict[ErrorCode, tuple[Template, Template]] = {
    "server_no_command": (
        "the MCP server did not start: no such command: {command} (not a file, and not found on PATH)",
        "MCP 服务器没有启动成功：找不到命令 {command}（它不是文件，PATH 中也没有）",
    ),
    "server_said": (
        "the MCP server did not start: {said}",  # its last line of stderr
        "MCP 服务器没有启动成功：{said}",
    ),
    "server_cannot_start": ("cannot start the MCP server: {detail}", "无法启动 MCP 服务器：{detail}"),
    "server_silent": (
        "the MCP server did not answer {method} within {timeout_s:g} s",
        "MCP 服务器在 {timeout_s:g} 秒内没有回答 {method}",
    ),
    "server_slow_answer": (
        "the MCP server began answering {method}, but its answer was still arriving after {timeout_s:g} s (a large "
        "answer is slow to arrive: allow more time, run's --mcp-timeout or call's --timeout, or have the "
        "tool return less)",
        "MCP 服务器已开始回答 {method}，但 {timeout_s:g} 秒后回答仍未传完（很大的回答传输很慢："
        "请放宽时限，即 run 的 --mcp-timeout 或 call 的 --timeout，或让工具返回更少的内容）",
    ),
    "server_closed": (
        lambda method, said="": (
            f"the MCP server closed the connection during {method} (its process ended)" + (f": {said}" if said else "")
        ),
        lambda method, said="": f"MCP 服务器在 {method} 期间关闭了连接（进程已退出）" + (f"：{said}" if said else ""),
    ),
    "server_stopped": (
        "the in-process MCP server stopped during {method}: {said}",
        "进程内的 MCP 服务器在 {method} 期间停止了：{said}",
    ),
    "server_closed_http": (
        "the MCP server closed the connection during {method} (the HTTP response ended without an answer)",
        "MCP 服务器在 {method} 期间关闭了连接（HTTP 响应没有带回答就结束了）",
    ),
    "message_too_large": (_too_large_en, _too_large_zh),
    "not_jsonrpc": (
        lambda shown, reason, during: (
            f"the MCP server sent a line that is not JSON-RPC"
            f"{' during ' + during if during else ''}: {shown!r} ({reason})"
        ),
        lambda shown, reason, during: (
            f"MCP 服务器发来一行不是 JSON-RPC 的内容"
            f"{'（' + during + ' 期间）' if during else ''}：{shown!r}（{reason}）"
        ),
    ),
    "ping_flood": (
        lambda count, during: (
            f"the MCP server sent {count:,} ping requests in a row{' during ' + during if during else ''} and "
            "nothing else: a server pinging in a loop; the app stopped answering and ended the session"
        ),
        lambda count, during: (
            f"MCP 服务器{'在 ' + during + ' 期间' if during else ''}连续发来 {count:,} 个 ping 请求，此外什么也没发："
            "服务器在循环地发 ping；应用不再回答，结束了会话"
        ),
    ),
    # said after another line: a server that flooded its stderr
    "stderr_flood": (
        lambda written_bytes, kept_bytes: (
            f" (it wrote {written_bytes / (1 << 20):.1f} MB to stderr; "
            f"the trace keeps the last {kept_bytes // 1024} KB)"
        ),
        lambda written_bytes, kept_bytes: (
            f"（它向 stderr 写了 {written_bytes / (1 << 20):.1f} MB；trace 只保留最后 {kept_bytes // 1024} KB）"
        ),
    ),
    # said after a server's last words when its Python could not find a module (`python -m flow proxy` run elsewhere)
    "python_no_module": (
        "; the server's Python looks for {module} in the folder it starts in and on PYTHONPATH: run from the folder "
        "that holds it, or give that folder to the server, e.g. --server-env PYTHONPATH=/path/to/that/folder",
        "；服务器的 Python 在启动目录和 PYTHONPATH 中查找 {module}：请在包含它的目录中运行，"
        "或把该目录交给服务器，例如 --server-env PYTHONPATH=/path/to/that/folder",
    ),
    "tool_call_error": (
        "the MCP server answered tools/call {name} with error {code}: {message}",
        "MCP 服务器对 tools/call {name} 返回错误 {code}：{message}",
    ),
    "tool_answered_task": (
        "the MCP server answered tools/call with a task ({task}, {status}) instead of its result: the app asked for "
        "no task and does not poll one (tasks/get)",
        "MCP 服务器对 tools/call 的回答是一个任务（{task}，{status}），而不是结果：应用没有请求任务，也不会轮询它（tasks/get）",
    ),
    "tool_result_unreadable": (
        "the MCP server's answer to tools/call is not a CallToolResult ({detail})",
        "MCP 服务器对 tools/call 的回答不是 CallToolResult（{detail}）",
    ),
    "mcp_timeout": (
        "the MCP server did not answer within {timeout_s:g} s ({detail})",
        "MCP 服务器在 {timeout_s:g} 秒内没有回答（{detail}）",
    ),
    "mcp_closed": (
        "the MCP server closed the connection (its process may have ended)",
        "MCP 服务器关闭了连接（进程可能已退出）",
    ),
    "mcp_error": ("the MCP server answered with error {code}: {message}", "MCP 服务器返回错误 {code}：{message}"),
    "http_token_refused": (
        "the MCP server refused the bearer token (HTTP 401)",
        "MCP 服务器拒绝了这个 bearer token（HTTP 401）",
    ),
    "http_token_needed": (
        "the MCP server requires a bearer token (HTTP 401): set {env}",
        "MCP 服务器需要 bearer token（HTTP 401）：请设置 {env}",
    ),
    "http_no_endpoint": ("no MCP endpoint at {url} (HTTP 404)", "{url} 没有 MCP 端点（HTTP 404）"),
    "http_status": (
        lambda status, detail: f"the MCP server answered HTTP {status}" + (f": {detail}" if detail else ""),
        lambda status, detail: f"MCP 服务器返回 HTTP {status}" + (f"：{detail}" if detail else ""),
    ),
    "http_unreachable": ("cannot reach the MCP server at {url} ({cause})", "无法连接 MCP 服务器 {url}（{cause}）"),
    "http_broke": (
        lambda during, cause: (
            f"the MCP server's HTTP connection broke{' during ' + during if during else ''} ({cause})"
        ),
        lambda during, cause: f"MCP 服务器的 HTTP 连接中断{'（' + during + ' 期间）' if during else ''}（{cause}）",
    ),
    "model_http": (_model_http_en, _model_http_zh),
    "model_timeout": (
        "the model endpoint did not answer within {timeout_s:g} s",
        "模型接口在 {timeout_s:g} 秒内没有回答",
    ),
    "model_unfinished": (_unfinished_en, _unfinished_zh),
    "model_deadline": (
        "the model call did not finish within {timeout_s:g} s (the SDK was still waiting to retry)",
        "模型调用没有在 {timeout_s:g} 秒内完成（SDK 还在等待重试）",
    ),
    "model_too_large": (_model_too_large_en, _model_too_large_zh),
    "model_unreachable": ("cannot reach the model endpoint at {url}: {cause}", "无法连接模型接口 {url}：{cause}"),
    "model_stream_error": (_stream_error_en, _stream_error_zh),
    "model_bad_url": (
        lambda url, problem: f"the model endpoint's base URL {url} cannot be used: {_URL_PROBLEMS[problem][0]}",
        lambda url, problem: f"模型接口的 Base URL {url} 无法使用：{_URL_PROBLEMS[problem][1]}",
    ),
    "event_not_json": _unreadable("a streamed event is not JSON: {excerpt}", "流式事件不是 JSON：{excerpt}"),
    "body_not_json": _unreadable("the body is not JSON: {excerpt}", "正文不是 JSON：{excerpt}"),
    "body_not_object": _unreadable(
        "the body is JSON but not an object: {excerpt}", "正文是 JSON 但不是对象：{excerpt}"
    ),
    "not_a_list": _unreadable("{where} is not a list", "{where} 不是列表"),
    "call_without_name": _unreadable("{where}[{i}] has no function name", "{where}[{i}] 没有函数名"),
    "call_without_id": _unreadable("{where}[{i}] ({name}) has no id", "{where}[{i}]（{name}）没有 id"),
    "arguments_not_text": _unreadable(
        "{where}[{i}] ({name}) has arguments that are not a string", "{where}[{i}]（{name}）的 arguments 不是字符串"
    ),
    "no_choices": _unreadable("it has no choices (choices: {excerpt})", "没有 choices（choices: {excerpt}）"),
    "no_output": _unreadable("it has no output list (output: {excerpt})", "没有 output 列表（output: {excerpt}）"),
    "no_content_blocks": _unreadable(
        "it has no content list (content: {excerpt})", "没有 content 列表（content: {excerpt}）"
    ),
    "input_not_object": _unreadable(
        "{where} ({name}) has an input that is not an object", "{where}（{name}）的 input 不是对象"
    ),
    "no_message": _unreadable("choices[0] has no message", "choices[0] 没有 message"),
    "no_text_no_calls": _unreadable(
        "it has no text and no tool call ({field}: {finish})", "既没有文本也没有工具调用（{field}: {finish}）"
    ),
    "content_not_text": _unreadable("choices[0].message.content is not text", "choices[0].message.content 不是文本"),
    "no_content": _unreadable(
        "choices[0].message has no content and no tool_calls (finish_reason: {finish})",
        "choices[0].message 既没有 content 也没有 tool_calls（finish_reason: {finish}）",
    ),
    "chunk_choices_not_list": _unreadable(
        "streamed chunk {chunk} has choices that are not a list", "第 {chunk} 个流式分块的 choices 不是列表"
    ),
    "chunk_content_not_text": _unreadable(
        "streamed chunk {chunk} has delta.content that is not text", "第 {chunk} 个流式分块的 delta.content 不是文本"
    ),
    "chunk_calls_not_list": _unreadable(
        "streamed chunk {chunk} has delta.tool_calls that is not a list",
        "第 {chunk} 个流式分块的 delta.tool_calls 不是列表",
    ),
    "stream_empty": (
        "the model's stream ended without any data (only keep-alive comments, or nothing at all)",
        "模型的流式回答没有任何数据就结束了（只有保活注释，或者什么都没有）",
    ),
    # said after stream_empty when the request offered tools: what llama-cpp-python does ("Automatic streaming tool
    # choice is not supported", in its own log only)
    "streamed_tools_unsupported": (
        "; some servers (llama-cpp-python) answer a streamed request that offers tools this way: try without "
        "streaming (leave out --stream)",
        "；有些服务器（llama-cpp-python）对带工具的流式请求就是这样回答的：请关闭流式后重试（去掉 --stream）",
    ),
    "stream_ended_twice": _unreadable(
        "the stream said twice that it had finished (events {first} and {second}); neither of its answers is taken",
        "流式回答两次声称已经结束（第 {first} 和第 {second} 个事件）；两个回答都没有采用",
    ),
    "stream_truncated": (
        lambda chunks, chars: (
            f"the model's stream ended before it finished: no finish_reason after "
            f"{chunks} chunks (a truncated stream" + (f"; {chars} characters of answer so far)" if chars else ")")
        ),
        lambda chunks, chars: f"模型的流式回答没有结束就断了：收到 {chunks} 个分块后仍没有 finish_reason（流被截断）",
    ),
    "mcp_only": (
        "resources and prompts are MCP features; use --mode mcp to read or fetch them",
        "资源和提示模板是 MCP 的功能；请使用 MCP 模式读取或获取它们",
    ),
    "hosted_api": (
        "hosted MCP is a feature of the Responses API and of Anthropic Messages: use --api responses or --api messages",
        "托管 MCP 是 Responses API 和 Anthropic Messages 的功能：请选择 --api responses 或 --api messages",
    ),
    "hosted_resources": (
        "with hosted MCP the provider is the MCP client and uses only tools: resources, prompts and a local server "
        "command need --mode mcp",
        "托管 MCP 由模型服务商充当 MCP 客户端，而且只使用工具：资源、提示模板和本地服务器命令需要 MCP 模式",
    ),
    "hosted_unreachable": (
        "hosted MCP with a real provider needs --server URL: the provider must reach the server, and the demo "
        "server listens on this machine's loopback only",
        "使用真实服务商的托管 MCP 需要 --server URL：服务商必须能访问到服务器，而演示服务器只监听本机回环地址",
    ),
    "hosted_function_call": (
        lambda calls: (
            f"the model called {calls} as a function of the app's, which the app does not run: with hosted MCP the "
            "app offers no function, and only the provider's MCP client calls tools"
        ),
        lambda calls: (
            f"模型把 {calls} 当作应用的函数来调用，但应用不会运行它：托管 MCP 中应用不提供函数，只有服务商的 MCP 客户端调用工具"
        ),
    ),
    "max_rounds": (
        lambda rounds: (
            f"stopped: the model still asked for tools after {rounds} tool round"
            f"{'s' if rounds > 1 else ''} (raise --max-rounds, or check the tools' answers)"
        ),
        "已停止：经过 {rounds} 轮工具调用后，模型仍在请求工具（可提高最多轮数，或检查工具的返回）",
    ),
    "too_many_calls": (
        "stopped: the model asked for {count} tool calls in one turn, more than the {limit} the app runs at once; "
        "none was run",
        "已停止：模型在一个回合里请求了 {count} 次工具调用，超过应用一次最多执行的 {limit} 次；一次也没有执行",
    ),
    "too_many_reported": (
        "stopped: the provider reported {count} MCP exchanges in one answer, more than the {limit} the app reads; "
        "the answer is kept as it came, unread",
        "已停止：服务商在一个回答里报告了 {count} 次 MCP 往来，超过应用最多读取的 {limit} 次；回答原样保留，没有逐项读取",
    ),
    "too_many_approvals": (
        "stopped: the provider asked the app to approve {count} MCP calls in this run, more than the {limit} it "
        "answers; the last answer's requests were left unanswered",
        "已停止：服务商在这次运行里请求应用批准 {count} 次 MCP 调用，超过应用最多答复的 {limit} 次；最后一个回答里的请求都没有答复",
    ),
    "tool_choice_unoffered": (
        lambda name, tools: (
            f"stopped before asking the model: --tool-choice names {name}, but the request would offer "
            + (f"only {tools}" if tools else "no tools at all (the server listed none)")
            + "; providers refuse such a request (HTTP 400), so it was not sent"
        ),
        lambda name, tools: (
            f"在询问模型之前停止：--tool-choice 指定了 {name}，但请求里"
            + (f"只提供了 {tools}" if tools else "一个工具也没有（服务器没有列出任何工具）")
            + "；服务商会拒绝这样的请求（HTTP 400），所以没有发送"
        ),
    ),
    "input_rounds": (
        "stopped: the server still asked for input after {rounds} rounds of {tool} (2026-07-28 input-required "
        "results); the host gives up rather than answer forever",
        "已停止：调用 {tool} 时，服务器经过 {rounds} 轮仍在要求补充输入（2026-07-28 的 input-required 结果）；宿主不再无休止地回答",
    ),
    "ping_modern": (
        "ping is a 2025-11-25 request, removed in 2026-07-28: use --era handshake to send one",
        "ping 是 2025-11-25 的请求，2026-07-28 已将其移除：请使用 --era handshake 发送 ping",
    ),
    "unexpected": ("{kind}: {detail}", "{kind}：{detail}"),  # an exception nothing above names
}


def error_line(code: ErrorCode, lang: Lang, /, **params: Any) -> str:
    """The one line `code` is told in, in `lang`."""
    template = _LINES[code][0 if lang == "en" else 1]
    return template.format(**params) if isinstance(template, str) else template(**params)


Note = tuple[ErrorCode, dict[str, Any]]  # a code and its parameters, said after the line


class FlowError(Exception):
    """A failure named by a code and its parameters. `str()` is the English line; `line(lang)` either language.
    Both are worded when it is raised, so parameters that do not fit the code fail there, not when shown."""

    def __init__(self, code: ErrorCode, /, *, notes: tuple[Note, ...] = (), **params: Any) -> None:
        self.code: ErrorCode = code
        self.params, self.notes = params, notes
        self.lines: dict[Lang, str] = {
            lang: error_line(code, lang, **params) + "".join(error_line(c, lang, **p) for c, p in notes)
            for lang in ("en", "zh")
        }
        super().__init__(self.lines["en"])

    def line(self, lang: Lang) -> str:
        return self.lines[lang]

    def with_notes(self, *notes: Note) -> Self:
        """The same failure, with more said after it, as a new exception to raise from another place."""
        return type(self)(self.code, notes=(*self.notes, *notes), **self.params)

    def __reduce__(self) -> tuple[Any, ...]:  # Exception pickles its args, the English line; rebuild from the code
        return _rebuilt, (type(self), self.code, self.notes, self.params)


def _rebuilt(cls: type[FlowError], code: ErrorCode, notes: tuple[Note, ...], params: dict[str, Any]) -> FlowError:
    return cls(code, notes=notes, **params)


class ServerHttpError(FlowError):
    """An MCP server over HTTP refused or dropped the connection."""


class ServerFault(FlowError):
    """The server broke the protocol, went silent or exited mid-request: the line says what it did."""


class ModelLimitError(FlowError):
    """A model call crossed its total deadline or its size cap; the tap recorded where, as an llm.error hop.

    Not an httpx error on purpose: the openai SDK hands it on as it is, without retrying it."""


class MalformedResponse(FlowError):
    """The model endpoint answered, but not with a chat completion the app can read."""

    recorded = False  # whether its llm.error hop is already in the trace (the tap, which saw the wire, wrote it)
