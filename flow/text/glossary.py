"""One glossary for every text the app shows, in Chinese and English: the word each concept goes by, and the variants
it must not go by. A class that reads 分片 on one hop and 分块 on the next thinks they are two things.

`problems(text, lang)` names each word or mark in `text` that breaks the glossary or the house rules of either
language (an English word in Chinese prose, a half-width mark after a Chinese character, "result(s)"); the tests run
it over everything the lessons, the viewer and the pages say.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from flow.text.names import Lang


@dataclass(frozen=True)
class Term:
    """A concept: its word in each language, and the variants (regular expressions) that must not stand for it."""

    concept: str
    zh: str
    en: str
    not_zh: tuple[str, ...] = ()
    not_en: tuple[str, ...] = ()


GLOSSARY: tuple[Term, ...] = (
    Term("one event of a streamed response", "分块", "chunk", (r"分片", r"(?<![分容])块(?!钱)", r"chunk")),
    Term("an MCP prompt (prompts/list, prompts/get)", "提示模板", "prompt", (r"提示词",)),
    Term("prompt_tokens: what the request's input counted", "输入词元数", "prompt tokens", (r"提示词元",)),
    Term("a token of the model's input or output", "词元", "token", ()),
    Term(
        "running the tools in the app's own process, no MCP",
        "直接调用模式",
        "direct mode",
        (r"直接模式", r"直连模式", r"直接函数调用"),
        (r"direct function calling",),
    ),
    Term("the articles' phase zero, before any message", "阶段零", "phase zero", (r"第\s*0\s*阶段",)),
    Term("playing a saved trace again", "回放", "replay", (r"重放",)),
    Term(
        "the API feature: the model asks the app to call a function",
        "函数调用",
        "function calling",
        (r"function calling",),
    ),
    Term("an MCP session (the handshake era only)", "会话", "session", ()),
    Term("the 2026-07-28 protocol", "2026-07-28 协议", "the 2026-07-28 protocol", (r"(?<!最)新协议",)),
    # 主机 is a machine; a host name (主机名) is one too, and stays.
    Term("the app that holds the MCP client and answers a server (the host)", "宿主", "host", (r"主机(?!名)",)),
    # 模式 is a mode (直接调用模式, URL 模式); a JSON Schema keeps its name.
    Term(
        "a JSON Schema (inputSchema, outputSchema, requestedSchema)",
        "Schema",
        "schema",
        (r"(?:这份|同一份|改写了|改写后的|参数|输入|输出|JSON\s?)模式", r"模式变长"),
    ),
    Term("the key a provider's API is called with", "API 密钥", "API key", (r"API\s*Key", r"API\s*键", r"接口密钥")),
)


# Phrases that read as translated, not written.
AWKWARD_ZH = (r"上了线路", r"说话")

# Leave code alone: a fenced block, `inline code`, a {placeholder}, a URL, and the wire's own names
# (tools/call, tool_calls, isError, weather://cities, get_weather ...), and a command line of the program's own
# (mcp-flow app --lan).
_CODE = re.compile(
    r"```.*?```|`[^`]*`|“[^”]*”|\{[^{}]*\}|[A-Za-z_]\w*\((?:[^()]*=[^()]*)?\)|https?://\S+|\w+://\S*|[A-Za-z_][\w.-]*(?:/[\w.-]+)+|"
    r"\b[a-z]+(?:[_.][A-Za-z0-9]+)+\b|\b[a-z]+[A-Z]\w*\b|\bmcp-flow(?: -{0,2}[a-z][\w-]*)*",
    re.S,
)
_CJK = r"[\u4e00-\u9fff]"
_HALF_WIDTH_AFTER_CJK = re.compile(_CJK + r"\s?[,:;!?()]|[()]" + _CJK)
_PLURAL_BUG = re.compile(r"\w\(s\)")
# English prose inside Chinese: two English words in a row (a name like "MCP" or "JSON-RPC" alone is not prose).
_ENGLISH_RUN = re.compile(r"\b[a-z]{3,} +[a-z]{3,}\b")


def _prose(text: str) -> str:
    return _CODE.sub(" ", text)


def problems(text: str, lang: Lang) -> list[str]:
    """What in `text` breaks the glossary or the language's house rules, one short line each (none: it is clean)."""
    if lang == "en":  # "{n} result(s)" is a template's plural, filled by the count (`teaching._plurals`)
        text = re.sub(r"\{\w+\} \w+\(s\)", " ", text)
    prose = _prose(text)
    found: list[str] = []
    for term in GLOSSARY:
        for variant in term.not_zh if lang == "zh" else term.not_en:
            for m in re.finditer(variant, prose, re.I):
                found.append(f"{m[0]!r} for {term.concept}: say {getattr(term, lang)!r}")
    if lang == "zh":
        found += [f"{m[0]!r} reads as translated" for p in AWKWARD_ZH for m in re.finditer(p, prose)]
        found += [f"half-width mark in Chinese: {m[0]!r}" for m in _HALF_WIDTH_AFTER_CJK.finditer(prose)]
        found += [f"English prose in Chinese: {m[0]!r}" for m in _ENGLISH_RUN.finditer(prose)]
    else:
        found += [f"plural left open: {m[0]!r}" for m in _PLURAL_BUG.finditer(prose)]
    return found
