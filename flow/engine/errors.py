"""Any failure of a run, as one line a person can act on, in both languages."""

from __future__ import annotations

from typing import Any

import anyio
import openai
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

from flow.engine.model import ModelConfig
from flow.engine.options import RunOptions
from flow.servers.connect import ServerStartError, leaf_exception
from flow.text.errors import Explained
from flow.text.names import Lang


class FlowAbort(Explained):
    """Ends a run early; the message is the one line the user sees (`zh` the same in Chinese)."""


# Request options the app sends only when asked, and how a user turns each off (CLI; app).
_OPTIONS = {
    "parallel_tool_calls": ("leave out --no-parallel; in the app, allow parallel calls",
                            "命令行去掉 --no-parallel；应用中允许并行调用"),
    "strict": ("leave out --strict; in the app, turn off strict schemas", "命令行去掉 --strict；应用中关闭严格模式"),
    "stream_options": ("leave out --stream; in the app, turn off streaming", "命令行去掉 --stream；应用中关闭流式"),
    "tool_choice": ("--tool-choice auto", "tool_choice 选 auto"),
}


def _rejected_option(status: int, err: dict[str, Any], detail: str) -> str | None:
    """The request option a 400/422 names, when it is one the app could leave out."""
    if status not in (400, 422):
        return None
    named = str(err.get("param") or "")
    for option in _OPTIONS:
        if option == named.rsplit(".", 1)[-1] or option in detail or option.replace("_", " ") in detail:
            return option
    return None


def explain_both(exc: BaseException, options: RunOptions, model: ModelConfig) -> dict[Lang, str]:
    """One line a user can act on, for anything that stopped a run, in English and in Chinese."""
    exc = leaf_exception(exc)
    if isinstance(exc, Explained):  # a FlowAbort, or a server that broke, refused or went quiet
        return {"en": str(exc), "zh": exc.zh}
    if isinstance(exc, ServerStartError):
        return {"en": f"the MCP server did not start: {exc}", "zh": f"MCP 服务器没有启动成功：{exc}"}
    if isinstance(exc, openai.APIStatusError):
        detail = ""
        body = exc.body if isinstance(exc.body, dict) else {}
        err = body.get("error", body) if isinstance(body, dict) else {}
        if isinstance(err, dict):
            detail = str(err.get("message") or "") or exc.message
        hint_en, hint_zh = {
            401: ("check the API key", "请检查 API Key"),
            403: ("check the key's permissions", "请检查这个 Key 的权限"),
            404: ("check the model name and base URL", "请检查模型名称和 Base URL"),
            429: ("rate limited: wait and retry, or lower the request rate", "触发限流：稍后重试，或降低请求频率"),
        }.get(exc.status_code, ("", ""))
        option = _rejected_option(exc.status_code, err if isinstance(err, dict) else {}, detail)
        if option:
            how_en, how_zh = _OPTIONS[option]
            hint_en = f"this provider does not accept the request option `{option}`: drop it ({how_en}) and run again"
            hint_zh = f"这个服务商不接受请求参数 `{option}`：请去掉它（{how_zh}）后重试"
        return {
            "en": f"the model endpoint answered HTTP {exc.status_code}: {detail}" + (f" ({hint_en})" if hint_en else ""),
            "zh": f"模型接口返回 HTTP {exc.status_code}：{detail}" + (f"（{hint_zh}）" if hint_zh else ""),
        }
    if isinstance(exc, openai.APITimeoutError):
        return {"en": f"the model endpoint did not answer within {model.timeout_s:g} s",
                "zh": f"模型接口在 {model.timeout_s:g} 秒内没有回答"}
    if isinstance(exc, openai.APIConnectionError):
        url, cause = model.describe()["base_url"], exc.__cause__ or exc
        return {"en": f"cannot reach the model endpoint at {url}: {cause}", "zh": f"无法连接模型接口 {url}：{cause}"}
    if isinstance(exc, openai.APIError):  # an error event inside a stream that began well
        return {"en": f"the model endpoint reported an error in its answer: {exc.message}",
                "zh": f"模型接口在回答中报告了错误：{exc.message}"}
    if isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT or isinstance(exc, TimeoutError):
        return {"en": f"the MCP server did not answer within {options.mcp_timeout_s:g} s ({exc})",
                "zh": f"MCP 服务器在 {options.mcp_timeout_s:g} 秒内没有回答（{exc}）"}
    if isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED or isinstance(
        exc, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, ConnectionError)
    ):
        return {"en": "the MCP server closed the connection (its process may have ended)",
                "zh": "MCP 服务器关闭了连接（进程可能已退出）"}
    if isinstance(exc, MCPError):
        return {"en": f"the MCP server answered with error {exc.code}: {exc.message}",
                "zh": f"MCP 服务器返回错误 {exc.code}：{exc.message}"}
    if isinstance(exc, OSError):
        return {"en": f"cannot start the MCP server: {exc}", "zh": f"无法启动 MCP 服务器：{exc}"}
    return {"en": f"{type(exc).__name__}: {exc}", "zh": f"{type(exc).__name__}：{exc}"}
