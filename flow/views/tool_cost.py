"""What tool definitions cost: prompt tokens per model request against the number of tools the request carries,
function calling (direct mode) beside MCP, read from traces, and a Vega-Lite spec of it (`st.vega_lite_chart` draws
it offline: the spec names no URL and carries its data inline)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Literal

from flow.text.apis import API_WORDS
from flow.text.names import Lang
from flow.trace.model import Trace
from flow.wire.base import ApiName
from flow.wire.reading import ModelExchange, model_exchanges
from flow.wire.recorded import api_of_trace

Mode = Literal["direct", "mcp"]


@dataclass(frozen=True)
class RequestCost:
    """One request to the model: its body's bytes, the bytes and count of its function tools, the prompt_tokens its
    reply reported (None when it reported none), and the definitions' tokens estimated with the app's stand-in
    tokenizer; the hosted MCP servers it named instead (the provider lists their tools and puts the definitions into
    its own prompt: they are in its prompt_tokens, not in these bytes), and whether the host sent it for an MCP
    server (sampling)."""

    seq: int
    bytes: int
    tool_bytes: int
    tools: int
    prompt_tokens: int | None
    tool_tokens: int
    servers: tuple[str, ...] = ()
    server_bytes: int = 0
    for_server: bool = False


def request_costs(trace: Trace) -> list[RequestCost]:
    """What each model request of `trace` weighed, and how much of it was tool definitions (the closing view, Compare's
    figures and the tool-cost chart all measure with this)."""
    return costs_of(model_exchanges(trace.hops))


def costs_of(exchanges: Iterable[ModelExchange]) -> list[RequestCost]:
    """What each of these model exchanges' requests weighed (`request_costs`, from a reading already made)."""
    return [
        RequestCost(
            seq=ex.request.seq,
            bytes=ex.bytes,
            tool_bytes=ex.offer.function_bytes,
            tools=len(ex.offer.functions),
            prompt_tokens=ex.prompt_tokens,
            tool_tokens=ex.offer.function_tokens,
            servers=ex.offer.servers,
            server_bytes=ex.offer.server_bytes,
            for_server=ex.for_server,
        )
        for ex in exchanges
    ]


@dataclass(frozen=True)
class ToolCostPoint:
    """One model request: how many tool definitions it carried, and what they and the request weighed."""

    source: str  # the sample's name, or the question
    mode: Mode
    server: str  # the MCP server that listed the tools; "" in direct mode (the app's own functions)
    request: int  # 1 for the first request of its run, 2 for the next (a backfill), ...
    tools: int
    prompt_tokens: int  # as the model reported it in the response's usage
    tool_bytes: int  # the `tools` array of the request body, as compact JSON
    request_bytes: int  # the whole request body, as compact JSON
    api: ApiName = "chat"  # the model API: its tool definitions are shaped, and so weigh, differently

    @property
    def tool_share(self) -> float:
        """The part of the request's bytes that is tool definitions."""
        return self.tool_bytes / self.request_bytes if self.request_bytes else 0.0


def tool_cost_points(traces: Iterable[Trace]) -> list[ToolCostPoint]:
    """Every model request of these traces whose response reported usage, in trace order (a request answered with
    no usage, as some providers do, has no figure to show and is left out)."""
    points: list[ToolCostPoint] = []
    for trace in traces:
        mode: Mode = "direct" if trace.meta.mode == "direct" else "mcp"
        named = (trace.meta.server or {}).get("name") if mode == "mcp" else None
        server = named if isinstance(named, str) else ""
        source = trace.meta.sample or trace.meta.question
        api = api_of_trace(trace).name
        # the app's own requests: not the host's for a server (sampling), nor those naming a hosted server (the
        # provider's definitions are in its prompt, not in the app's bytes)
        own = [c for c in request_costs(trace) if not c.for_server and not c.servers]
        for n, cost in enumerate(own, 1):
            if cost.prompt_tokens is None:
                continue
            points.append(
                ToolCostPoint(
                    source=source,
                    mode=mode,
                    server=server,
                    request=n,
                    tools=cost.tools,
                    prompt_tokens=cost.prompt_tokens,
                    tool_bytes=cost.tool_bytes,
                    request_bytes=cost.bytes,
                    api=api,
                )
            )
    return points


_WORDS: dict[str, dict[Lang, str]] = {
    "title": {
        "zh": "工具定义的代价：每次模型请求的输入词元数",
        "en": "What tool definitions cost: prompt tokens per model request",
    },
    "tools": {"zh": "请求里的工具定义数", "en": "tool definitions in the request"},
    "tokens": {"zh": "输入词元数（{fields}）", "en": "{fields}"},
    "mode": {"zh": "方式", "en": "way"},
    "request": {"zh": "第几次请求", "en": "request"},
    "direct": {"zh": "函数调用（直接调用模式）", "en": "function calling (direct mode)"},
    "mcp": {"zh": "MCP · {server}", "en": "MCP · {server}"},
    "share": {"zh": "工具定义占请求字节", "en": "tool definitions' share of the bytes"},
    "source": {"zh": "来源", "en": "from"},
}


def _request_label(n: int, lang: Lang) -> str:
    if lang == "zh":
        return "第 1 次请求" if n == 1 else f"第 {n} 次请求（回填）"
    return "1st request" if n == 1 else f"request {n} (backfill)"


def tool_cost_chart(points: Iterable[ToolCostPoint], *, lang: Lang = "en") -> dict[str, Any]:
    """A Vega-Lite spec: prompt tokens (y) against the number of tools (x), one line per way of giving the model
    its tools (and per MCP server: the same four tools through MCP and in direct mode are one point) and per request
    of a run; its data is `points`, inline."""
    w = {key: words[lang] for key, words in _WORDS.items()}
    points = list(points)
    present = {p.api for p in points} or {"chat"}
    fields = dict.fromkeys(words["tokens"] for api, words in API_WORDS.items() if api in present)
    w["tokens"] = w["tokens"].format(fields=" / ".join(fields))
    values = [
        {
            **asdict(p),
            # the API is named where the chart holds more than one (their definitions weigh differently)
            "way": w[p.mode].format(server=p.server) + (f" · {API_WORDS[p.api]['api']}" if len(present) > 1 else ""),
            "request_label": _request_label(p.request, lang),
            "share": round(p.tool_share, 3),
        }
        for p in points
    ]
    encoding: dict[str, Any] = {
        "x": {
            "field": "tools",
            "type": "quantitative",
            "title": w["tools"],
            "axis": {"values": sorted({v["tools"] for v in values})},  # the sizes measured, not every integer
        },
        "y": {"field": "prompt_tokens", "type": "quantitative", "title": w["tokens"]},
        "color": {"field": "way", "type": "nominal", "title": w["mode"], "legend": {"labelLimit": 320}},
        "strokeDash": {"field": "request_label", "type": "nominal", "title": w["request"]},
        "shape": {"field": "request_label", "type": "nominal", "title": w["request"]},
        "tooltip": [
            {"field": "way", "type": "nominal", "title": w["mode"]},
            {"field": "request_label", "type": "nominal", "title": w["request"]},
            {"field": "tools", "type": "quantitative", "title": w["tools"]},
            {"field": "prompt_tokens", "type": "quantitative", "title": w["tokens"]},
            {"field": "share", "type": "quantitative", "format": ".0%", "title": w["share"]},
            {"field": "source", "type": "nominal", "title": w["source"]},
        ],
    }
    return {
        "title": w["title"],
        "data": {"values": values},
        "mark": {"type": "line", "point": True},
        "encoding": encoding,
    }
