"""The offline mock model: a deterministic OpenAI-compatible Chat Completions endpoint (and, in
`flow.backends.mock_apis`, the same model behind OpenAI Responses and Anthropic Messages).

It reads a request the way a model would: from the tool schemas and the conversation it
decides which tools to call and with what arguments, or answers. It is reached by the real
openai SDK through `MockModelTransport` (an httpx2 transport) or over HTTP with
`python -m flow mock-server`.

The model name picks a behaviour, the way a provider's model names pick a model: `MODEL_NAMES`, each one named
and explained in `flow.text.mock.MOCK_BEHAVIOURS` (the Run page, `run --model`'s help and the docs show that table).
Any other name is answered with 404 model_not_found, as a provider does.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2

from flow.engine.hosted import McpGrant
from flow.servers.builtin import CITY_NAMES
from flow.trace.json_text import read_json_text
from flow.trace.stats import estimate_tokens

SLOW_SECONDS = 5.0


_CJK = re.compile(r"[\u4e00-\u9fff]")


# Places the mock recognises in a question; Mars is here so a class can watch a tool fail.
_PLACES: list[tuple[str, str]] = [*CITY_NAMES, ("火星", "Mars")]


_TIME = re.compile(r"(\d{1,2})\s*(?:[:：](\d{2})|点(半)?)")


_TOPICS = {
    "tool description": ("tool description", "工具描述", "描述"),
    "error handling": ("error handling", "错误处理", "报错"),
    "security": ("security", "安全"),
}


_FORECAST_WORDS = ("预报", "未来", "这周", "forecast", "next days", "this week")


_DAYS = re.compile(r"([1-7]|[一二两三四五六七])\s*(?:天|日|days?)", re.IGNORECASE)


_ADVICE_WORDS = ("建议", "穿", "带伞", "advice", "should i", "wear", "recommend")


_HERE_WORDS = ("我这里", "我这儿", "我所在", "我在的地方", "where i am", "here")


_IN_WORDS = ("一句话", "in one sentence", "in a sentence")


_NOTES_WORDS = ("笔记", "notes")


_ALERT_WORDS = ("预警", "alert")


_CARD_WORDS = ("卡片", "card")


_RADAR_WORDS = ("雷达", "radar")


_FORECAST_DATA = "Forecast data: "  # how weather_demo's forecast_in_words asks the host's model (sampling)


_OUTING = "Class outing: "  # how weather_demo's plan_outing asks the host's model (sampling with its forecast tool)


_OUTING_WORDS = ("出游", "郊游", "春游", "秋游", "outing")


_ENABLERS = ("unlock_alerts",)  # the demo tools whose result only says another tool is now there


_WET = ("rain", "snow", "storm", "shower", "thunder")


MODEL_NAMES = [
    "mock",
    "mock-bad-json",
    "mock-bad-args",
    "mock-wrong-tool",
    "mock-quirky",
    "mock-no-strict",
    "mock-no-parallel",
    "mock-error-401",
    "mock-error-429",
    "mock-error-500",
    "mock-slow",
    "mock-llamacpp",
    "mock-empty",
    "mock-loop",
]


# Request options some providers refuse, and how to tell a request carries them.
_REJECTS = {
    "mock-no-strict": (
        "strict",
        lambda body: any("strict" in (t.get("function") or {}) for t in body.get("tools") or []),
    ),
    "mock-no-parallel": ("parallel_tool_calls", lambda body: "parallel_tool_calls" in body),
}


_ERRORS = {
    "401": ("invalid_api_key", "Incorrect API key provided.", "authentication_error"),
    "429": ("rate_limit_exceeded", "Rate limit reached for requests. Please try again later.", "rate_limit_error"),
    "500": ("server_error", "The server had an error while processing your request.", "server_error"),
}


def is_chinese(text: str) -> bool:
    return bool(_CJK.search(text))


@dataclass
class Call:
    name: str
    arguments: str  # the JSON string a model emits


@dataclass
class _Attempt:
    name: str
    args: dict[str, Any] | None  # None: the arguments could not be parsed
    result: str | None = None
    ok: bool = False


@dataclass
class Conversation:
    question: str
    tools: dict[str, dict[str, Any]]  # name -> function schema
    attempts: list[_Attempt] = field(default_factory=list)
    rounds: int = 0  # assistant messages with tool_calls so far

    @classmethod
    def read(cls, body: dict[str, Any]) -> Conversation:
        messages = body.get("messages") or []
        question = ""
        for m in messages:
            if m.get("role") == "user":
                question = _text(m.get("content"))
        tools = {}
        for t in body.get("tools") or []:
            fn = t.get("function") or {}
            if fn.get("name"):
                tools[fn["name"]] = fn
        conv = cls(question=question, tools=tools)
        by_id: dict[str, _Attempt] = {}
        for m in messages:
            if m.get("role") == "assistant" and m.get("tool_calls"):
                conv.rounds += 1
                for tc in m["tool_calls"]:
                    fn = tc.get("function") or {}
                    ok, args = read_json_text(fn.get("arguments") or "{}")
                    attempt = _Attempt(fn.get("name", ""), args if ok and isinstance(args, dict) else None)
                    conv.attempts.append(attempt)
                    by_id[tc.get("id", "")] = attempt
            elif m.get("role") == "tool" and m.get("tool_call_id") in by_id:
                attempt = by_id[m["tool_call_id"]]
                attempt.result = _text(m.get("content"))
                attempt.ok = not attempt.result.lstrip().lower().startswith("error")
        return conv

    def tried(self, name: str, args: dict[str, Any]) -> bool:
        return any(a.name == name and a.args == args for a in self.attempts)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _first_string_param(fn: dict[str, Any]) -> str | None:
    params = fn.get("parameters") or {}
    props = params.get("properties") or {}
    for name in params.get("required") or list(props):
        if (props.get(name) or {}).get("type", "string") == "string":
            return name
    return None


def _intents(conv: Conversation) -> list[tuple[str, dict[str, Any]]]:
    """Every call this question asks for, given the tools offered and the results so far."""
    q, ql = conv.question, conv.question.lower()
    out: list[tuple[str, dict[str, Any]]] = []
    weather_tool = next((n for n in conv.tools if "weather" in n.lower()), None)
    if weather_tool:
        param = _first_string_param(conv.tools[weather_tool]) or "city"
        found = []
        for zh, en in _PLACES:
            pos = [p for p in (q.find(zh), ql.find(en.lower())) if p >= 0]
            if pos:
                found.append((min(pos), zh if is_chinese(q) else en))
        forecast = "get_forecast" in conv.tools and any(w in ql for w in _FORECAST_WORDS)
        days = _days(q)
        asked = _asking_tool(conv, ql)
        if asked in ("unlock_alerts", "radar_sign_in"):  # no city: the server adds the tool, or asks the user
            return [(asked, {})]
        out += [
            (asked, {"city": name})
            if asked
            else ("get_forecast", {"city": name, "days": days})
            if forecast
            else (weather_tool, {param: name})
            for _, name in sorted(found)
        ]
        if not found and "weather_here" in conv.tools and any(w in ql for w in _HERE_WORDS):
            out.append(("weather_here", {}))

    if "calc_work_hours" in conv.tools:
        times = [f"{int(h):02d}:{'30' if half else (m or '00')}" for h, m, half in _TIME.findall(q)]
        if len(times) >= 2:
            out.append(("calc_work_hours", {"start": times[0], "end": times[1]}))
    if "best_practice" in conv.tools:
        for topic, words in _TOPICS.items():
            if any(w in ql for w in words):
                out.append(("best_practice", {"topic": topic}))
        if weather_tool and any(w in ql for w in _ADVICE_WORDS):
            # The second round: which advice depends on what the weather tool said.
            for a in conv.attempts:
                if a.name == weather_tool and a.ok and a.result:
                    condition = _condition(a.result)
                    if condition:
                        out.append(("best_practice", {"topic": condition}))
    return out


def _asking_tool(conv: Conversation, ql: str) -> str | None:
    """The demo's tool that asks back, when the question wants what only it gives: a forecast in one sentence
    (sampling), the class's notes (roots)."""
    if "forecast_in_words" in conv.tools and any(w in ql for w in _IN_WORDS):
        return "forecast_in_words"
    if "plan_outing" in conv.tools and any(w in ql for w in _OUTING_WORDS):
        return "plan_outing"
    if "class_notes" in conv.tools and any(w in ql for w in _NOTES_WORDS):
        return "class_notes"
    if any(w in ql for w in _ALERT_WORDS):
        return (
            "weather_alerts"
            if "weather_alerts" in conv.tools
            else "unlock_alerts"
            if "unlock_alerts" in conv.tools
            else None
        )
    if "weather_card" in conv.tools and any(w in ql for w in _CARD_WORDS):
        return "weather_card"
    if "radar_sign_in" in conv.tools and any(w in ql for w in _RADAR_WORDS):
        return "radar_sign_in"
    return None


def _phrased(question: str) -> str | None:
    """A forecast the demo server asked the host's model to put in one sentence (sampling), so put."""
    if not question.startswith(_FORECAST_DATA):
        return None
    data_text, _, rest = question[len(_FORECAST_DATA) :].partition("\n")
    try:
        data = _json(data_text)
        days = [(d["condition"], d["condition_en"], d["temp_low_c"], d["temp_high_c"]) for d in data["days"]]
        city, city_en = data["city"], data["city_en"]
    except (KeyError, TypeError):  # not a forecast
        return None
    low, high = min(d[2] for d in days), max(d[3] for d in days)
    if "Chinese" in rest:
        return f"{city}未来{len(days)}天以{days[0][0]}为主，气温{low}到{high}°C。"
    return f"The next {len(days)} days in {city_en} look mostly {days[0][1]}, between {low} and {high} °C."


def _outing(conv: Conversation, choice: Any) -> list[Call] | str | None:
    """A server's question whether a city suits a class outing, with its forecast tool offered (sampling with
    tools): look at the forecast first, then say yes or no from what it says."""
    if not conv.question.startswith(_OUTING) or "get_forecast" not in conv.tools:
        return None
    zh = "Chinese" in conv.question
    done = [a for a in conv.attempts if a.name == "get_forecast" and a.result is not None]
    if not done:
        if choice == "none":
            return "我没有看到天气预报，说不好。" if zh else "I have not seen the forecast, so I cannot say."
        place = next((zh_ if zh else en for zh_, en in _PLACES if zh_ in conv.question or en in conv.question), "")
        return [Call("get_forecast", json.dumps({"city": place, "days": _days(conv.question)}, ensure_ascii=False))]
    try:
        data = _json(done[-1].result or "")
        days = [(d["condition"], d["condition_en"], d["temp_low_c"], d["temp_high_c"]) for d in data["days"]]
        city, city_en = data["city"], data["city_en"]
    except (KeyError, TypeError):  # not a forecast
        return "预报没有读出来，说不好。" if zh else "I could not read the forecast, so I cannot say."
    wet = any(w in d[1].lower() for d in days for w in _WET)
    low, high = min(d[2] for d in days), max(d[3] for d in days)
    if zh:
        said = "、".join(d[0] for d in days)
        return f"{city}接下来 {len(days)} 天{said}，{low}~{high}°C，{'最好改天或准备雨具' if wet else '适合出游'}。"
    said = ", then ".join(d[1] for d in days)
    verdict = "better pick another day or take rain gear" if wet else "a good time for an outing"
    return f"{city_en} over the next {len(days)} days: {said}, {low} to {high} °C; {verdict}."


def _days(question: str) -> int:
    """How many days a forecast question asks for: "3 days", "三天", "next 5 days"; 3 when it does not say."""
    match = _DAYS.search(question)
    if not match:
        return 3
    n = match.group(1)
    return max(1, min(7, int(n) if n.isdigit() else "一二三四五六七".index(n.replace("两", "二")) + 1))


def _json(text: str) -> Any:
    """`text` read as JSON; None, which no forecast or weather is, when it is not readable."""
    ok, value = read_json_text(text)
    return value if ok else None


def _condition(result: str) -> str | None:
    data = _json(result)
    cond = data.get("condition_en") if isinstance(data, dict) else None
    return cond.split()[-1] if isinstance(cond, str) else None  # "light rain" -> "rain"


def _decide(conv: Conversation, body: dict[str, Any], behaviour: str) -> list[Call] | str:
    """Tool calls to make now, or the final answer text."""
    choice = body.get("tool_choice", "auto")
    phrased = _phrased(conv.question) if not conv.tools else _outing(conv, choice)
    if phrased is not None:
        return phrased
    if not conv.tools or choice == "none":
        return answer_from_results(conv, tools_allowed=bool(conv.tools) and choice != "none")
    intents = _intents(conv)
    pending = intents if behaviour == "mock-loop" else [(n, a) for n, a in intents if not conv.tried(n, a)]
    if isinstance(choice, dict):
        wanted = (choice.get("function") or {}).get("name")
        pending = [(n, a) for n, a in pending if n == wanted] or ([(wanted, _guess(conv, wanted))] if wanted else [])
    elif choice == "required" and not pending:
        first = next(iter(conv.tools))
        pending = [(first, _guess(conv, first))]
    if not pending:
        return answer_from_results(conv, tools_allowed=True)
    if body.get("parallel_tool_calls") is False:
        pending = pending[:1]
    calls = [Call(n, json.dumps(a, ensure_ascii=False)) for n, a in pending]
    if conv.rounds == 0:  # the misbehaviours happen once; the model recovers after reading the error
        if behaviour == "mock-bad-json":
            calls[0].arguments = calls[0].arguments[:-1]  # the closing brace is lost
        elif behaviour == "mock-bad-args":
            args = dict(pending[0][1])
            calls[0].arguments = json.dumps({f"{k}_name": v for k, v in args.items()}, ensure_ascii=False)
        elif behaviour == "mock-wrong-tool":
            calls[0].name = "get_current_weather" if "weather" in calls[0].name else calls[0].name + "_v2"
    return calls


def _guess(conv: Conversation, name: str) -> dict[str, Any]:
    param = _first_string_param(conv.tools.get(name, {}))
    return {param: conv.question} if param else {}


def words_alone(conv: Conversation) -> str:
    """What the mock writes to a request that offers it no tool (the host's model writing for a server): the
    forecast put in a sentence when that is what it was given, else an answer from what it holds."""
    return _phrased(conv.question) or answer_from_results(conv, tools_allowed=False)


def answer_from_results(conv: Conversation, *, tools_allowed: bool) -> str:
    zh = is_chinese(conv.question)
    parts = [_describe(a, zh) for i, a in enumerate(conv.attempts) if a.result is not None and not _superseded(i, conv)]
    if parts:
        return "\n".join(parts)
    if not tools_allowed and conv.tools:
        # A model is never told tool_choice's value, and with no tool run it holds no data: it says only that.
        return (
            "我这次查不到实时数据，没法告诉你今天的具体情况；请看看当地的天气预报。"
            if zh
            else "I cannot look anything up this time, so I cannot tell you today's details; please check a local "
            "forecast."
        )
    return (
        f"（离线模拟模型）没有适合这个问题的工具，我直接回答：你问的是“{conv.question}”。"
        if zh
        else f"(offline mock model) No tool fits this question, so I answer directly: you asked “{conv.question}”."
    )


def _superseded(i: int, conv: Conversation) -> bool:
    """A failed call that a later call retried successfully is not worth mentioning in the answer, nor a call that
    only turned on the tool a later call used (unlock_alerts, then weather_alerts)."""
    a = conv.attempts[i]
    if a.ok:
        return a.name in _ENABLERS and any(b.ok for b in conv.attempts[i + 1 :])
    values = sorted(map(str, (a.args or {}).values()))
    return any(
        b.ok and (a.args is None or sorted(map(str, (b.args or {}).values())) == values) for b in conv.attempts[i + 1 :]
    )


# The demo server's advice is English; asked in Chinese, a model answers in Chinese (the mock knows these texts).
_ADVICE_ZH = {
    "Say what the tool does, when to use it, and what each argument means, with an example value.": (
        "写清工具做什么、什么时候用、每个参数是什么意思，并给一个示例值。"
    ),
    "Return errors as tool results (isError) so the model can read them and try again.": (
        "把错误作为工具结果返回（isError），让模型读到后可以重试。"
    ),
    "Treat tool inputs as untrusted; never run a command built from model output without checking it.": (
        "不要轻信工具的输入；由模型输出拼成的命令，未经检查绝不执行。"
    ),
    "Take an umbrella and waterproof shoes; allow extra travel time.": "带上雨伞，穿防水的鞋，路上多留些时间。",
    "Wear boots with grip and warm layers; check transport delays before leaving.": (
        "穿防滑的靴子，多穿几层保暖；出门前查一下交通是否延误。"
    ),
    "Wear sunglasses and sunscreen; in winter, a warm coat still matters in the wind.": (
        "戴上墨镜、涂好防晒；冬天风大，还是要穿件暖和的外套。"
    ),
    "A light jacket is enough; carry a foldable umbrella just in case.": "穿件薄外套就够了，以防万一带把折叠伞。",
    "Dress in layers; the temperature may feel lower than it is.": "分层穿衣；体感温度可能比实际低。",
}


DENIED = "Error: the app denied this call"


"""What a hosted-MCP provider tells its model when the app answered an approval request with no."""


def _maybe(template: str, value: Any) -> str | None:
    return template.format(value) if value is not None else None


def _alert(a: _Attempt, data: dict[str, Any], zh: bool) -> str:
    """A weather_alerts result, in the user's language."""
    if zh:
        said = "没有天气预警" if data["level"] == "none" else f"有{'黄色' if data['level'] == 'yellow' else ''}天气预警"
        return f"{data['city']}今天{said}（服务器的原话：{data['text']}）。"
    said = "no weather alert" if data["level"] == "none" else f"a {data['level']} weather alert"
    city = (a.args or {}).get("city") or data["city"]  # the name the question used (the alert's is Chinese)
    return f"{city} has {said} today ({data['text']})."


def _describe(a: _Attempt, zh: bool) -> str:
    result = a.result or ""
    if result == DENIED:
        return (
            "这次调用没有得到应用的批准，所以我没有查询，无法给出结果。"
            if zh
            else "The app did not approve the call, so I looked nothing up."
        )
    if not a.ok:
        if zh:  # in the user's language, as a model answers: the tool's own (English) error text stays in the trace
            asked = "，".join(f"{k}={v}" for k, v in (a.args or {}).items())
            return f"抱歉，调用 {a.name}{f'（{asked}）' if asked else ''}没有成功：工具返回了错误，我没能查到结果。"
        return f"Calling {a.name} failed: {result}"
    ok, data = read_json_text(result)
    data = data if ok else result
    if isinstance(data, dict) and {"city", "city_en", "condition", "condition_en", "temp_low_c"} <= data.keys():
        if zh:  # humidity and wind where the tool gave them (a weather card has neither)
            extra = "".join(f"，{s}" for s in (_maybe("湿度 {}%", data.get("humidity_pct")), data.get("wind")) if s)
            return (
                f"{data['city']}今天{data['condition']}，气温 {data['temp_low_c']}~{data.get('temp_high_c')}°C{extra}。"
            )
        humidity = _maybe(", humidity {}%", data.get("humidity_pct")) or ""
        return (
            f"{data['city_en']} today: {data['condition_en']}, {data['temp_low_c']} to {data.get('temp_high_c')} °C"
            f"{humidity}."
        )
    if isinstance(data, dict) and {"city", "level", "text"} <= data.keys() and len(data) == 3:  # weather_alerts
        return _alert(a, data, zh)
    if isinstance(data, dict) and isinstance(data.get("days"), list):
        days = data["days"]
        if zh:
            return (
                f"{data['city']}未来 {len(days)} 天："
                + "；".join(f"第{d['day']}天{d['condition']} {d['temp_low_c']}~{d['temp_high_c']}°C" for d in days)
                + "。"
            )
        return (
            f"{data['city_en']}, next {len(days)} days: "
            + "; ".join(f"day {d['day']} {d['condition_en']} {d['temp_low_c']} to {d['temp_high_c']} °C" for d in days)
            + "."
        )
    if isinstance(data, dict) and "hours" in data:
        if zh:
            return f"从 {data['start']} 到 {data['end']} 共工作 {data['hours']} 小时（已扣除午休 {data['lunch_break_min']} 分钟）。"
        return f"From {data['start']} to {data['end']} you worked {data['hours']} hours ({data['lunch_break_min']} min lunch deducted)."
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    if zh and text in _ADVICE_ZH:
        return f"建议：{_ADVICE_ZH[text]}"
    return (
        f"建议：{text}"
        if zh and a.name == "best_practice"
        else (f"{a.name}: {text}" if not zh else f"{a.name} 返回：{text}")
    )


def _ids(body: dict[str, Any]) -> tuple[str, str]:
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    return f"chatcmpl-mock{digest[:20]}", digest


@dataclass(frozen=True)
class MockReply:
    status: int
    body: dict[str, Any] | None = None  # a whole JSON response
    chunks: list[dict[str, Any]] | None = None  # or the events of a stream
    delay_s: float = 0.0
    named: bool = False  # each event's line names its type (`event: message_start`), as Responses and Messages do


def complete(body: dict[str, Any]) -> MockReply:
    """Answer one chat.completions request body."""
    model = str(body.get("model") or "mock")
    if model.startswith("mock-error-"):
        code = model.rsplit("-", 1)[-1]
        err_code, message, err_type = _ERRORS.get(code, _ERRORS["500"])
        return MockReply(
            int(code) if code in _ERRORS else 500, {"error": {"message": message, "type": err_type, "code": err_code}}
        )
    if model not in MODEL_NAMES:
        return MockReply(
            404,
            {
                "error": {
                    "message": f"The model `{model}` does not exist or you do not have access to it.",
                    "type": "invalid_request_error",
                    "code": "model_not_found",
                }
            },
        )
    option, carries = _REJECTS.get(model, (None, None))
    if carries is not None and carries(body):
        return MockReply(
            400,
            {
                "error": {
                    "message": f"Unrecognized request argument supplied: {option}",
                    "type": "invalid_request_error",
                    "param": option,
                    "code": None,
                }
            },
        )
    if not isinstance(body.get("messages"), list) or not body["messages"]:
        return MockReply(
            400, {"error": {"message": "'messages' must be a non-empty array", "type": "invalid_request_error"}}
        )
    if model == "mock-llamacpp" and (refused := _llamacpp_refusal(body)) is not None:
        return refused
    conv = Conversation.read(body)
    decision = _decide(conv, body, model)
    if model == "mock-empty" and isinstance(decision, str):
        decision = ""
    return reply(
        body,
        decision,
        quirky=model == "mock-quirky",
        repeat_deltas=model == "mock-llamacpp",
        delay_s=SLOW_SECONDS if model == "mock-slow" else 0.0,
    )


def _llamacpp_refusal(body: dict[str, Any]) -> MockReply | None:
    """What a llama.cpp-family server refused: a message no branch of its message union accepts (content null in
    the assistant's backfill), with llama-cpp-python's HTTP 500 body (FastAPI's validation errors, one Python repr
    per branch of the union, as the message); and `tool_choice: "required"` (with no message at all)."""
    errors = [e for i, m in enumerate(body["messages"]) for e in _message_union_errors(i, m)]
    if errors:
        text = f"{len(errors)} validation errors:\n" + "".join(f"  {e}\n" for e in errors)
        return MockReply(
            500, {"error": {"message": text, "type": "internal_server_error", "param": None, "code": None}}
        )
    if body.get("tool_choice") == "required":
        return MockReply(500, {"error": {"code": 500, "message": "", "type": "server_error"}})
    return None


# llama-cpp-python's `ChatCompletionRequestMessage` union, in its order: each branch's role, and the fields it
# requires beside it ("content" marks the one branch whose content must be a string when present).
_MESSAGE_BRANCHES: list[tuple[str, str, tuple[str, ...]]] = [
    ("ChatCompletionRequestSystemMessage", "system", ()),
    ("ChatCompletionRequestUserMessage", "user", ()),
    ("ChatCompletionRequestAssistantMessage", "assistant", ("content",)),
    ("ChatCompletionRequestToolMessage", "tool", ("tool_call_id",)),
    ("ChatCompletionRequestFunctionMessage", "function", ("name",)),
]


def _message_union_errors(i: int, message: Any) -> list[dict[str, Any]]:
    """pydantic's errors for messages[i] against every branch of the union, as FastAPI lists them; none when one
    branch accepts it."""
    if not isinstance(message, dict):
        return []
    found: list[dict[str, Any]] = []
    for branch, role, fields in _MESSAGE_BRANCHES:
        loc = ("body", "messages", i, branch)
        errors: list[dict[str, Any]] = []
        if message.get("role") != role:
            errors.append(
                {
                    "type": "literal_error",
                    "loc": (*loc, "role"),
                    "msg": f"Input should be '{role}'",
                    "input": message.get("role"),
                    "ctx": {"expected": f"'{role}'"},
                }
            )
        for name in fields:
            if name == "content":
                if "content" in message and not isinstance(message["content"], str):
                    errors.append(
                        {
                            "type": "string_type",
                            "loc": (*loc, "content"),
                            "msg": "Input should be a valid string",
                            "input": message["content"],
                        }
                    )
            elif name not in message:
                errors.append({"type": "missing", "loc": (*loc, name), "msg": "Field required", "input": message})
        if not errors:
            return []
        found += errors
    return found


def reply(
    body: dict[str, Any],
    decision: list[Call] | str,
    *,
    quirky: bool = False,
    repeat_deltas: bool = False,
    delay_s: float = 0.0,
) -> MockReply:
    """The decision (tool calls, or the answer text) as a chat completion, or as the events of a stream."""
    model = str(body.get("model") or "mock")
    completion_id, digest = _ids(body)
    created = int(time.time())
    if isinstance(decision, str):
        message: dict[str, Any] = {"role": "assistant", "content": decision}
        finish = "stop"
        out_text = decision
    else:
        tool_calls = [
            {
                "id": digest[20 + 9 * i : 29 + 9 * i] if quirky else f"call_{digest[20 + 8 * i : 28 + 8 * i]}{i}",
                "type": "function",
                "function": {"name": c.name, "arguments": _pretty(c.arguments) if quirky else c.arguments},
            }
            for i, c in enumerate(decision)
        ]
        message = {"role": "assistant", "content": "" if quirky else None, "tool_calls": tool_calls}
        finish = "stop" if quirky else "tool_calls"
        out_text = json.dumps(tool_calls, ensure_ascii=False)
    prompt = json.dumps([body.get("messages"), body.get("tools")], ensure_ascii=False)
    usage = {"prompt_tokens": estimate_tokens(prompt), "completion_tokens": estimate_tokens(out_text)}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    if body.get("stream"):
        chunks = list(_chunks(completion_id, created, model, message, finish, whole_calls=quirky, repeat=repeat_deltas))
        if (body.get("stream_options") or {}).get("include_usage") and not quirky:
            chunks.append(_chunk(completion_id, created, model, None, None, usage=usage))
        return MockReply(200, chunks=chunks, delay_s=delay_s)
    completion = {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
    }
    if not quirky:
        completion["usage"] = usage
    return MockReply(200, completion, delay_s=delay_s)


def _pretty(arguments: str) -> str:
    """Arguments laid out over several lines, as some models write them."""
    ok, value = read_json_text(arguments)
    return json.dumps(value, ensure_ascii=False, indent=2) if ok else arguments


def _chunk(
    cid: str, created: int, model: str, delta: dict[str, Any] | None, finish: str | None, **extra: Any
) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": choices,
        **extra,
    }


def _pieces(text: str, n: int) -> list[str]:
    size = max(1, math.ceil(len(text) / n))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _chunks(
    cid: str,
    created: int,
    model: str,
    message: dict[str, Any],
    finish: str,
    *,
    whole_calls: bool = False,
    repeat: bool = False,
) -> Iterator[dict[str, Any]]:
    yield _chunk(cid, created, model, {"role": "assistant", "content": "" if message.get("tool_calls") else None}, None)
    if message.get("content"):
        for piece in _pieces(message["content"], max(2, len(message["content"]) // 8)):
            yield _chunk(cid, created, model, {"content": piece}, None)
    for i, tc in enumerate(message.get("tool_calls") or []):
        if whole_calls:
            yield _chunk(cid, created, model, {"tool_calls": [{"index": i, **tc}]}, None)
            continue
        head = {
            "index": i,
            "id": tc["id"],
            "type": "function",
            "function": {"name": tc["function"]["name"], "arguments": ""},
        }
        if repeat:  # every delta carries the whole name and id again, and a legacy function_call beside
            for piece in _pieces(tc["function"]["arguments"], 3):
                fn = {"name": tc["function"]["name"], "arguments": piece}
                call = {"index": i, "id": tc["id"], "type": "function", "function": fn}
                yield _chunk(cid, created, model, {"tool_calls": [call], "function_call": dict(fn)}, None)
            continue
        yield _chunk(cid, created, model, {"tool_calls": [head]}, None)
        for piece in _pieces(tc["function"]["arguments"], 3):
            yield _chunk(cid, created, model, {"tool_calls": [{"index": i, "function": {"arguments": piece}}]}, None)
    yield _chunk(cid, created, model, {}, finish)


def sse_events(chunks: list[dict[str, Any]], *, named: bool = False) -> Iterator[bytes]:
    """Server-sent events: Chat Completions' `data:` lines ending in `[DONE]`; or, `named`, each event's type on an
    `event:` line before its data and no `[DONE]` (Responses, Messages: the anthropic SDK reads only named events)."""
    for c in chunks:
        name = f"event: {c.get('type')}\n" if named else ""
        yield f"{name}data: {json.dumps(c, ensure_ascii=False)}\n\n".encode()
    if not named:
        yield b"data: [DONE]\n\n"


class EventStream(httpx2.AsyncByteStream):
    def __init__(self, chunks: list[dict[str, Any]], *, named: bool = False) -> None:
        self._chunks, self._named = chunks, named

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for event in sse_events(self._chunks, named=self._named):
            await anyio.sleep(0)  # let the reader see each event as it comes, as over a socket
            yield event


ROUTES = ("/chat/completions", "/responses", "/messages")


def answer(path: str, body: Any, store: Any) -> MockReply:
    """Answer one request body sent to `path` (under /v1), in the API the path names; `store` keeps what the
    Responses endpoint answered (`flow.backends.mock_apis.new_store`)."""
    from flow.backends.mock_apis import respond_messages, respond_responses
    from flow.backends.mock_hosted import is_hosted, not_granted

    path = path.rstrip("/")
    body = body if isinstance(body, dict) else {}
    if is_hosted(body) and path.endswith(("/responses", "/messages")):
        return not_granted(path, body)  # served alone, the mock was configured with no MCP server to reach
    if path.endswith("/responses"):
        return respond_responses(body, store)
    if path.endswith("/messages"):
        return respond_messages(body)
    if path.endswith("/chat/completions"):
        return complete(body)
    return MockReply(404, {"error": {"message": f"No route {path}", "type": "not_found"}})


class MockModelTransport(httpx2.AsyncBaseTransport):
    """The mock model behind the httpx2 transport interface the openai and anthropic SDKs are given."""

    def __init__(self) -> None:
        from flow.backends.mock_apis import new_store

        self._store = new_store()
        self._grant: McpGrant | None = None

    def grant_mcp(self, grant: McpGrant | None) -> None:
        """The MCP servers this mock may reach as a provider's MCP client (hosted MCP), for one run; None: none."""
        self._grant = grant

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        raw = await request.aread()
        if not request.url.path.rstrip("/").endswith(ROUTES):
            return httpx2.Response(
                404, json={"error": {"message": f"No route {request.url.path}", "type": "not_found"}}
            )
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            return httpx2.Response(
                400, json={"error": {"message": "body is not JSON", "type": "invalid_request_error"}}
            )
        from flow.backends.mock_hosted import is_hosted, respond_hosted

        if isinstance(body, dict) and is_hosted(body) and request.url.path.rstrip("/").endswith(ROUTES[1:]):
            reply = await respond_hosted(request.url.path, body, self._store, self._grant)
        else:
            reply = answer(request.url.path, body, self._store)
        if reply.delay_s:
            read_timeout = (request.extensions.get("timeout") or {}).get("read")
            if read_timeout is not None and read_timeout < reply.delay_s:
                await anyio.sleep(read_timeout)
                raise httpx2.ReadTimeout("mock model did not answer in time", request=request)
            await anyio.sleep(reply.delay_s)
        if reply.chunks is not None:
            events = EventStream(reply.chunks, named=reply.named)
            return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=events)
        return httpx2.Response(reply.status, json=reply.body)
