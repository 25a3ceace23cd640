"""The offline mock model's behaviours in Chinese and English: each one's name and what it does, in one table that
the Run page's list and its help, the command line's `--model` help and the docs' table are all written from. The
behaviours themselves are `flow.backends.mock` (its `MODEL_NAMES`, in this table's order: a test checks it)."""

from __future__ import annotations

from dataclasses import dataclass

from flow.text.names import Lang


@dataclass(frozen=True)
class Behaviour:
    """What a class calls a mock model name, and what the model does under it: what it asks for, in which round,
    and what it breaks."""

    name: dict[Lang, str]
    does: dict[Lang, str]


MOCK_BEHAVIOURS: dict[str, Behaviour] = {
    "mock": Behaviour(
        {"zh": "一切正常", "en": "Well-behaved"},
        {
            "zh": "按问题调用它需要的工具，读到结果后据此回答",
            "en": "calls the tools the question needs and answers from their results",
        },
    ),
    "mock-bad-json": Behaviour(
        {"zh": "参数不是 JSON", "en": "Arguments not JSON"},
        {
            "zh": "第一轮工具调用里，第一个调用的参数丢了结尾的 `}`，不是合法 JSON；应用把错误发回去，模型下一轮发出完整的参数",
            "en": "in its first round of tool calls, the first call's arguments lose their closing `}` and are not "
            "valid JSON; the app sends the error back and the model sends them whole in the next round",
        },
    ),
    "mock-bad-args": Behaviour(
        {"zh": "缺少必填参数", "en": "Required argument missing"},
        {
            "zh": "第一轮里，第一个调用的参数名都被改了（`city` 写成 `city_name`），必填的那个因此缺失：勾选 strict "
            "时应用在发出前就拒绝，否则由工具那一侧报错；模型读到报错后，下一轮改对",
            "en": "in its first round, the first call's argument names are changed (`city` becomes `city_name`), so "
            "the required one is missing: with strict schemas the app refuses it before sending, else the tool's side "
            "fails; the model reads the error and gets it right in the next round",
        },
    ),
    "mock-wrong-tool": Behaviour(
        {"zh": "调用不存在的工具", "en": "A tool that does not exist"},
        {
            "zh": "第一轮里，第一个调用用了一个没人提供的工具名（天气工具写成 `get_current_weather`，别的工具名后面加 "
            "`_v2`）；报错传回来（MCP 模式下是服务器的 JSON-RPC 错误），模型读到后改用正确的工具",
            "en": "in its first round, the first call names a tool nobody offered (`get_current_weather` for the "
            "weather tool, any other name with `_v2` added); the error comes back (in MCP mode, the server's JSON-RPC "
            "error) and the model calls the right one",
        },
    ),
    "mock-quirky": Behaviour(
        {"zh": "服务商的怪癖", "en": "Providers' quirks"},
        {
            "zh": '像部分 Chat Completions 服务商那样回答：`tool_calls` 旁边带着 `content: ""`、不以 `call_` 开头的短 '
            'id、参数跨多行、`finish_reason: "stop"`、不报告用量、一个分块里装下整个工具调用；通过另外两种接口提问时和 '
            "`mock` 一样",
            "en": 'answers as some Chat Completions providers do: `content: ""` beside `tool_calls`, short ids '
            'without `call_`, arguments over several lines, `finish_reason: "stop"`, no usage, a whole tool call in '
            "one streamed chunk; asked through the other two APIs it answers as `mock` does",
        },
    ),
    "mock-no-strict": Behaviour(
        {"zh": "不接受 strict", "en": "Refuses strict"},
        {
            "zh": "请求里有工具标着 `strict: true` 就返回 HTTP 400，像不认识这个字段的服务商那样；运行的报错会说该去掉哪个选项"
            "（取消勾选 strict）",
            "en": "answers HTTP 400 to a request with a tool marked `strict: true`, as a provider that does not know "
            "the field does; the run's error says which option to drop (untick strict schemas)",
        },
    ),
    "mock-no-parallel": Behaviour(
        {"zh": "不接受 parallel_tool_calls", "en": "Refuses parallel_tool_calls"},
        {
            "zh": "请求里带着 `parallel_tool_calls`（不允许并行工具调用时才会发送；Messages 里是 "
            "`disable_parallel_tool_use`）就返回 HTTP 400；运行的报错会说该去掉哪个选项",
            "en": "answers HTTP 400 to a request that sets `parallel_tool_calls` (sent when parallel tool calls are "
            "off; in Messages, `disable_parallel_tool_use`); the run's error says which option to drop",
        },
    ),
    "mock-error-401": Behaviour(
        {"zh": "HTTP 401：API 密钥无效", "en": "HTTP 401: invalid API key"},
        {
            "zh": "每个请求都返回 HTTP 401 `invalid_api_key`，所以运行在第一次询问模型时就结束，一个工具也没有调用",
            "en": "answers every request with HTTP 401 `invalid_api_key`, so the run ends at its first request to "
            "the model, with no tool called",
        },
    ),
    "mock-error-429": Behaviour(
        {"zh": "HTTP 429：请求太频繁", "en": "HTTP 429: rate limited"},
        {
            "zh": "每个请求都返回 HTTP 429 `rate_limit_exceeded`，所以运行在第一次询问模型时就结束，一个工具也没有调用",
            "en": "answers every request with HTTP 429 `rate_limit_exceeded`, so the run ends at its first request to "
            "the model, with no tool called",
        },
    ),
    "mock-error-500": Behaviour(
        {"zh": "HTTP 500：服务商出错", "en": "HTTP 500: provider error"},
        {
            "zh": "每个请求都返回 HTTP 500 `server_error`，所以运行在第一次询问模型时就结束，一个工具也没有调用",
            "en": "answers every request with HTTP 500 `server_error`, so the run ends at its first request to "
            "the model, with no tool called",
        },
    ),
    "mock-slow": Behaviour(
        {"zh": "回答很慢", "en": "Slow"},
        {
            "zh": "和 `mock` 一样回答，但每次都等 5 秒；等待时间更短的客户端会先超时放弃",
            "en": "answers as `mock` does, but 5 s late every time; a client that waits less gives up with a timeout",
        },
    ),
    "mock-llamacpp": Behaviour(
        {"zh": "像 llama.cpp 服务器", "en": "Like a llama.cpp server"},
        {
            "zh": "像实测中的 llama.cpp 服务器那样回答：回填里助手消息的 `content: null`（不勾选回填兼容形式时才会发送）"
            '被拒绝，返回 HTTP 500 和校验器的报错；`tool_choice: "required"` 以 HTTP 500 失败且没有消息；流式输出时每个'
            "分块都重复完整的函数名和 id，旁边还带一个旧式的 `function_call`；只在 Chat Completions 里这样",
            "en": "answers as a llama.cpp server was seen to: an assistant message with `content: null` in the "
            "backfill (sent when the backfill form is not adapted) is refused with HTTP 500 and its validator's "
            'errors; `tool_choice: "required"` fails with HTTP 500 and no message; streamed, every chunk repeats the '
            "whole name and id beside a legacy `function_call`; only in Chat Completions",
        },
    ),
    "mock-empty": Behaviour(
        {"zh": "空回答", "en": "Empty answer"},
        {
            "zh": '像 `mock` 一样调用工具，最后却给出空内容和 `finish_reason: "stop"`',
            "en": 'calls the tools as `mock` does, then answers with empty content and `finish_reason: "stop"`',
        },
    ),
    "mock-loop": Behaviour(
        {"zh": "停不下来", "en": "Never stops calling"},
        {
            "zh": "永远不作答；每次回复都再次要求问题需要的那些工具调用，不管已经调用过几次，运行直到撞上最多工具轮数才结束",
            "en": "never answers; every reply asks for the question's tool calls again, however often they ran, so the "
            "run ends at its round limit",
        },
    ),
}


HELP_LEAD: dict[Lang, str] = {
    "zh": "模型名决定模拟模型的行为（命令行用 `--model` 加这个名字）：",
    "en": "The model name picks the mock model's behaviour (the command line takes it as `--model`):",
}


def mock_model_label(model: str, lang: Lang) -> str:
    """A behaviour as a list shows it: its name in `lang`, then the id the command line takes."""
    return f"{MOCK_BEHAVIOURS[model].name[lang]} · {model}"


def mock_model_does(model: str, lang: Lang) -> str:
    """What the mock model does under this name, as a sentence in `lang`."""
    does = MOCK_BEHAVIOURS[model].does[lang]
    return f"{does}。" if lang == "zh" else f"{does[:1].upper()}{does[1:]}."


def mock_models_help(lang: Lang) -> str:
    """Every behaviour, one Markdown line each: its name, its id and what it does."""
    colon = "：" if lang == "zh" else ": "
    lines = [f"- **{b.name[lang]}** `{model}`{colon}{b.does[lang]}" for model, b in MOCK_BEHAVIOURS.items()]
    return "\n".join([HELP_LEAD[lang], "", *lines])


def mock_models_table(lang: Lang) -> str:
    """The behaviours as a Markdown table, for the docs."""
    head = "| 模型名 | 名称 | 行为 |\n|---|---|---|" if lang == "zh" else "| model | name | behaviour |\n|---|---|---|"
    rows = [f"| `{model}` | {b.name[lang]} | {b.does[lang]} |" for model, b in MOCK_BEHAVIOURS.items()]
    return "\n".join([head, *rows])
