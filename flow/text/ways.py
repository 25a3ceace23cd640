"""The words of the four ways to give a model a tool, side by side (`flow.views.ways`), in Chinese and English:
each way's name, the rows of its table, where each of the articles' messages happens in it, and what the
comparison teaches. Figures are filled in from the traces; what is fixed here is a fact of the way itself.

Article 004 (§3.3, §5.3) frames where a server runs and why a reachable server needs an access token; the
sentences are the project's own.
"""

from __future__ import annotations

from typing import Literal

from flow.text.apis import WORDS
from flow.text.names import Lang
from flow.wire.base import ApiName

Way = Literal["functions", "app_mcp", "hosted"]

WAY_NAMES: dict[Way, dict[Lang, str]] = {
    "functions": {"zh": "{api} {functions}", "en": "{api} {functions}"},
    "app_mcp": {"zh": "应用侧 MCP（{api}）", "en": "app-side MCP ({api})"},
    "hosted": {"zh": "托管 MCP（{api}）", "en": "hosted MCP ({api})"},
}

# What each API calls function calling: Anthropic Messages calls it "tool use".
FUNCTION_CALLING: dict[ApiName, dict[Lang, str]] = {api: words.function_calling for api, words in WORDS.items()}

ROW_NAMES: dict[str, dict[Lang, str]] = {
    "definitions": {"zh": "谁持有工具定义", "en": "who holds the tool definitions"},
    "sent_tools": {"zh": "应用请求里的 tools", "en": "tools in the app's request"},
    "loop": {"zh": "谁运行工具循环", "en": "who runs the tool loop"},
    "requests": {"zh": "应用向模型发出的请求数", "en": "requests the app makes to the model"},
    "bytes_sent": {"zh": "发给模型的字节数", "en": "bytes sent to the model"},
    "bytes_received": {"zh": "从模型收到的字节数", "en": "bytes received from the model"},
    "prompt_tokens": {"zh": "输入词元数（模型报告）", "en": "prompt tokens (reported)"},
    "app_frames": {"zh": "应用的 MCP 客户端收发的帧", "en": "MCP frames the app's client sent and received"},
    "provider_mcp": {"zh": "服务商那边的 MCP", "en": "MCP at the provider"},
    "server": {"zh": "MCP 服务器必须运行在哪里", "en": "where the MCP server must run"},
    "sees": {"zh": "应用能看到、能记录什么", "en": "what the app can see and log"},
}

CELLS: dict[str, dict[Lang, str]] = {
    "definitions.functions": {"zh": "应用（手写的函数定义）", "en": "the app (hand-written function schemas)"},
    "definitions.app_mcp": {
        "zh": "MCP 服务器；应用用 {listing} 取得，再翻译成函数定义",
        "en": "the MCP server; the app gets them with {listing} and translates them into function schemas",
    },
    "definitions.hosted": {
        "zh": "MCP 服务器；应用只写出服务器的名字和地址，工具清单由服务商去取",
        "en": "the MCP server; the app names only the server and its URL, and the provider fetches the tool list",
    },
    "sent_tools": {"zh": "{n} 个 {types}", "en": "{n} × {types}"},
    "no_tools": {"zh": "没有", "en": "none"},
    "loop.app": {
        "zh": "应用（回填请求 {backfills} 次）",
        "en": "the app (backfill requests: {backfills})",
    },
    "loop.provider": {
        "zh": "服务商：应用没有发回填请求，结果在服务商那里交回模型",
        "en": "the provider: the app sends no backfill; the result goes back to the model at the provider",
    },
    "loop.approved": {
        "zh": "服务商；应用只在第 {n} 次请求里回答了 {approvals} 个批准请求，结果在服务商那里交回模型",
        "en": "the provider; the app only answers the approval requests ({approvals}), in request {n}; the result "
        "goes back to the model at the provider",
    },
    "no_tokens": {"zh": "未报告", "en": "not reported"},
    "provider_none": {"zh": "—", "en": "—"},
    "provider_mcp": {
        "zh": "服务商报告的交换 {reported} 次；记录器另外看到的帧 {observed} 个",
        "en": "exchanges the provider reports: {reported}; frames the recorder also saw: {observed}",
    },
    "server.functions": {
        "zh": "没有 MCP 服务器：函数在应用自己的进程里运行",
        "en": "no MCP server: the functions run in the app's own process",
    },
    "server.memory": {
        "zh": "在应用旁边：这次就在应用的进程里（内存传输）",
        "en": "beside the app: in this run, inside the app's process (memory transport)",
    },
    "server.stdio": {
        "zh": "在应用旁边：应用启动的子进程（stdio）",
        "en": "beside the app: a subprocess the app starts (stdio)",
    },
    "server.http": {
        "zh": "应用能连到的 HTTP 服务（Streamable HTTP）",
        "en": "an HTTP service the app can reach (Streamable HTTP)",
    },
    "server.hosted": {
        "zh": "服务商能连到的 HTTP 服务（Streamable HTTP）：真实服务商要么连一个公开、带认证的地址，要么经过服务商自己的隧道"
        "（Responses 的 mcp 工具可以用 tunnel_id 代替 server_url）；这次是 {url}",
        "en": "an HTTP service the provider can reach (Streamable HTTP): a real provider needs a public, "
        "authenticated URL, or its own tunnel to the server (a Responses mcp tool may name a tunnel_id instead of "
        "a server_url); in this run {url}",
    },
    "sees.functions": {
        "zh": "全部：每个请求和响应，以及函数在自己进程里的调用和结果",
        "en": "everything: every request and response, and the function's call and result in its own process",
    },
    "sees.app_mcp": {
        "zh": "全部，再加上每一个 JSON-RPC 帧（{frames} 帧）",
        "en": "everything, plus every JSON-RPC frame ({frames})",
    },
    "sees.hosted": {
        "zh": "服务商的报告：响应里的 {items}；看不到那些帧本身、它们的时间和请求头",
        "en": "the provider's report: {items} in its response; not the frames themselves, their timing or headers",
    },
}

# Where a message happens in one way.
Place = Literal["app", "in_process", "mcp", "server", "provider", "missing"]

PLACE_NAMES: dict[Place, dict[Lang, str]] = {
    "app": {"zh": "应用", "en": "app"},
    "in_process": {"zh": "进程内", "en": "in process"},
    "mcp": {"zh": "MCP 线路", "en": "MCP wire"},
    "server": {"zh": "服务器内", "en": "in the server"},
    "provider": {"zh": "在服务商", "en": "at the provider"},
    "missing": {"zh": "没有", "en": "none"},
}

PLACE_TEXT: dict[Place, dict[Lang, str]] = {
    "app": {
        "zh": "这条消息经过应用：应用发出或收到它。",
        "en": "This message crosses the app's boundary: the app sends or receives it.",
    },
    "in_process": {
        "zh": "没有 MCP 客户端和服务器：这条消息是应用进程里的一次函数调用。",
        "en": "No MCP client or server: this message is a function call inside the app's process.",
    },
    "mcp": {
        "zh": "应用的 MCP 客户端和服务器之间的 JSON-RPC 帧：应用全都看得到。",
        "en": "JSON-RPC frames between the app's MCP client and the server: the app sees every one.",
    },
    "server": {
        "zh": "这条消息发生在 MCP 服务器里面：它用装饰过的函数建好自己的工具清单。",
        "en": "This message happens inside the MCP server: it builds its tool list from its decorated functions.",
    },
    "provider": {
        "zh": "这条消息发生在模型服务商那里：它的 MCP 客户端和工具循环替应用做了，应用没有发出也没有收到它。",
        "en": "This message happens at the model provider: its MCP client and tool loop do it for the app, which "
        "neither sends nor receives it.",
    },
    "missing": {"zh": "这份记录里没有这条消息。", "en": "This recording has no hop of this message."},
}

# The sentences of what the four side by side teach, each said only when its traces are there.
POINT_TEXT: dict[str, dict[Lang, str]] = {
    "requests": {
        "zh": "同一个问题，{base}向模型发了 {n_base} 次请求，{hosted}只发了 {n_hosted} 次：工具循环在服务商那里，"
        "包含在应用的一次请求之内。",
        "en": "For the same question {base} made {n_base} request(s) to the model and {hosted} {n_hosted}: the tool "
        "loop ran at the provider, inside one request of the app's.",
    },
    "frames": {
        "zh": "{app_mcp}里应用的 MCP 客户端收发了 {frames} 帧；{hosted}里是 0 帧：和服务器通信的是服务商的客户端。",
        "en": "In {app_mcp} the app's MCP client sent and received {frames} frame(s); in {hosted}, 0: the provider's "
        "client is the one that talks to the server.",
    },
    "observed": {
        "zh": "这份托管记录里能看到服务商客户端的 {observed} 帧，是因为记录器看得到它（离线模拟的服务商，或者放在服务器前的代理）；"
        "真实服务商只给应用留下它的报告（{reported} 次交换）。",
        "en": "This hosted trace holds {observed} frame(s) of the provider's client because the recorder could see "
        "them (the offline mock provider, or a proxy in front of the server); a real provider leaves the app only "
        "its report ({reported} exchange(s)).",
    },
    "report_only": {
        "zh": "这份托管记录里没有任何帧，只有服务商的报告（{reported} 次交换）：时间、重试和请求头都不可知。",
        "en": "This hosted trace holds no frame, only the provider's report ({reported} exchange(s)): timing, retries "
        "and headers are unknown.",
    },
    "bytes": {
        "zh": "发给模型的字节数：{figures}。",
        "en": "Bytes sent to the model: {figures}.",
    },
    "security": {
        "zh": "托管 MCP 的代价：服务器必须让服务商连得到，要么地址公开在网络上，至少要校验访问令牌，要么经过服务商的隧道"
        "（Responses 的 tunnel_id）；"
        "请求里 headers 带的凭据服务商看得到；需要批准（require_approval）时，批不批准是应用的最后一句话。",
        "en": "What hosted MCP costs: the server must be reachable from the provider, either at a URL as good as "
        "public, which needs at least an access token, or through the provider's tunnel (Responses' tunnel_id); "
        "the credential in the request's headers is seen by the "
        "provider; where approval is required (require_approval), approving or not is the app's last word.",
    },
}

LESSON_WORDS: dict[str, dict[Lang, str]] = {
    "title": {"zh": "给模型工具的四种方式", "en": "Four ways to give a model a tool"},
    "intro": {
        "zh": "同一个问题（{question}），四份记录并排：{names}。下面的数字都是从这些记录里算出来的。",
        "en": "One question ({question}), four recordings side by side: {names}. Every figure below is computed "
        "from them.",
    },
    "table": {"zh": "对照表", "en": "The table"},
    "route": {"zh": "十条消息在各种方式里发生在哪里", "en": "Where each of the ten messages happens in each way"},
    "route_note": {
        "zh": "“在服务商”：这条消息发生在模型服务商那里，应用既没有发出也没有收到它。",
        "en": "“at the provider”: the message happens at the model provider; the app neither sends nor receives it.",
    },
    "point": {"zh": "这张表说明了什么", "en": "What it shows"},
    "col.row": {"zh": "", "en": ""},
    "col.message": {"zh": "消息", "en": "message"},
}
