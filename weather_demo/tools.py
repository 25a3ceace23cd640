"""The demo tools as plain Python functions, shared by the MCP demo server and direct mode.

Everything is deterministic and offline: the weather is fake, built from a fixed table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# (Chinese name, English name) -> (condition zh, condition en, low °C, high °C, humidity %, wind)
_WEATHER: dict[tuple[str, str], tuple[str, str, int, int, int, str]] = {
    ("北京", "Beijing"): ("晴", "sunny", -3, 8, 25, "北风3级"),
    ("上海", "Shanghai"): ("多云", "cloudy", 7, 13, 68, "东风2级"),
    ("广州", "Guangzhou"): ("小雨", "light rain", 16, 22, 85, "南风2级"),
    ("深圳", "Shenzhen"): ("阴", "overcast", 17, 23, 80, "东南风2级"),
    ("杭州", "Hangzhou"): ("小雨", "light rain", 6, 11, 82, "东北风2级"),
    ("成都", "Chengdu"): ("阴", "overcast", 6, 12, 78, "微风"),
    ("西安", "Xi'an"): ("晴", "sunny", -1, 10, 30, "西北风2级"),
    ("南京", "Nanjing"): ("多云", "cloudy", 3, 11, 60, "东风2级"),
    ("武汉", "Wuhan"): ("晴", "sunny", 2, 12, 55, "北风2级"),
    ("香港", "Hong Kong"): ("多云", "cloudy", 18, 23, 70, "东风3级"),
    ("东京", "Tokyo"): ("晴", "sunny", 5, 14, 45, "北风2级"),
    ("伦敦", "London"): ("小雨", "light rain", 4, 9, 88, "西南风4级"),
    ("纽约", "New York"): ("雪", "snow", -5, 1, 75, "西北风5级"),
    ("巴黎", "Paris"): ("阴", "overcast", 3, 8, 83, "西风3级"),
}


_ALIASES = {"xian": "Xi'an", "nyc": "New York", "hongkong": "Hong Kong"}


_PRACTICES: dict[str, str] = {
    "tool description": "Say what the tool does, when to use it, and what each argument means, with an example value.",
    "error handling": "Return errors as tool results (isError) so the model can read them and try again.",
    "security": "Treat tool inputs as untrusted; never run a command built from model output without checking it.",
    "rain": "Take an umbrella and waterproof shoes; allow extra travel time.",
    "snow": "Wear boots with grip and warm layers; check transport delays before leaving.",
    "sunny": "Wear sunglasses and sunscreen; in winter, a warm coat still matters in the wind.",
    "cloudy": "A light jacket is enough; carry a foldable umbrella just in case.",
    "overcast": "Dress in layers; the temperature may feel lower than it is.",
}


CITY_NAMES: list[tuple[str, str]] = [key for key in _WEATHER]


def find_city(city: str) -> tuple[str, str] | None:
    wanted = city.strip().lower().replace(" ", "").replace("市", "")
    wanted = _ALIASES.get(wanted, wanted).lower().replace(" ", "")
    for zh, en in _WEATHER:
        if wanted in (zh, en.lower().replace(" ", "")):
            return zh, en
    return None


def get_weather(city: str) -> dict[str, Any]:
    """Today's weather for a city (fake, fixed data)."""
    found = find_city(city)
    if found is None:
        raise ValueError(f"No weather data for {city!r}. Known cities: " + ", ".join(en for _, en in _WEATHER))
    cond_zh, cond_en, low, high, humidity, wind = _WEATHER[found]
    return {
        "city": found[0],
        "city_en": found[1],
        "condition": cond_zh,
        "condition_en": cond_en,
        "temp_low_c": low,
        "temp_high_c": high,
        "humidity_pct": humidity,
        "wind": wind,
    }


def forecast_day(city: str, day: int) -> dict[str, Any]:
    """One day of a (fake) forecast: today's weather, a degree warmer or colder each day."""
    today = get_weather(city)
    shift = (-1, 1, 2, 0, -2, 1, 0)[day % 7]
    return {
        "day": day + 1,
        "condition": today["condition"],
        "condition_en": today["condition_en"],
        "temp_low_c": today["temp_low_c"] + shift,
        "temp_high_c": today["temp_high_c"] + shift,
    }


def get_forecast(city: str, days: int = 3) -> dict[str, Any]:
    """The next days' weather for a city (fake, fixed data); 1 to 7 days."""
    if not 1 <= days <= 7:
        raise ValueError(f"days must be between 1 and 7, not {days}")
    today = get_weather(city)
    return {"city": today["city"], "city_en": today["city_en"], "days": [forecast_day(city, d) for d in range(days)]}


def calc_work_hours(start: str, end: str) -> dict[str, Any]:
    """Hours between two clock times (HH:MM), minus a one-hour lunch break when the span covers noon."""

    def minutes(t: str) -> int:
        hh, _, mm = t.strip().partition(":")
        h, m = int(hh), int(mm or 0)
        if not (0 <= h < 24 and 0 <= m < 60):
            raise ValueError(f"not a clock time: {t!r}")
        return h * 60 + m

    span = minutes(end) - minutes(start)
    if span <= 0:
        raise ValueError(f"end {end!r} is not after start {start!r}")
    lunch = 60 if minutes(start) <= 12 * 60 and minutes(end) >= 13 * 60 else 0
    return {"start": start, "end": end, "lunch_break_min": lunch, "hours": round((span - lunch) / 60, 2)}


def best_practice(topic: str) -> str:
    """A short best practice for a topic (tool design, or what to do in some weather)."""
    key = topic.strip().lower()
    for name, text in _PRACTICES.items():
        if name in key or key in name:
            return text
    return f"No stored advice for {topic!r}. Topics: " + ", ".join(_PRACTICES)


FORECAST_DESCRIPTION = "Get the weather forecast for one city for the next days (1 to 7, default 3)."


DIRECT_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "get_weather": get_weather,
    "get_forecast": get_forecast,
    "calc_work_hours": calc_work_hours,
    "best_practice": best_practice,
}


# Direct mode: the schemas a developer writes by hand in OpenAI function-calling format.
DIRECT_TOOL_SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get today's weather for one city: condition, temperature range (°C), humidity and wind. "
            "Call once per city; for several cities, call it several times.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name in Chinese or English, e.g. 北京 or Beijing"}
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_forecast",
            "description": FORECAST_DESCRIPTION,
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name in Chinese or English, e.g. 北京 or Beijing"},
                    "days": {"type": "integer", "description": "How many days, 1 to 7", "default": 3},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "calc_work_hours",
            "description": "Compute the hours worked between a start and an end clock time, minus the lunch break.",
            "parameters": {
                "type": "object",
                "properties": {
                    "start": {"type": "string", "description": "Start time as HH:MM, e.g. 09:00"},
                    "end": {"type": "string", "description": "End time as HH:MM, e.g. 18:30"},
                },
                "required": ["start", "end"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "best_practice",
            "description": "Return one short best practice for a topic: tool design topics (tool description, "
            "error handling, security) or what to do in a kind of weather (rain, snow, sunny, cloudy, overcast).",
            "parameters": {
                "type": "object",
                "properties": {"topic": {"type": "string", "description": "The topic, e.g. 'rain' or 'security'"}},
                "required": ["topic"],
            },
        },
    },
]
