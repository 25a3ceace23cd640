"""Hosted MCP: the model provider is the MCP client, and says in its response what it did.

The app names a server in its request and sends no MCP itself. OpenAI Responses takes a tool
`{"type": "mcp", "server_label", "server_url", "require_approval", "allowed_tools", "headers"}` and answers with output
items: `mcp_list_tools` (the tools it listed), `mcp_call` (name, arguments as a JSON string, `output` or `error`) and,
when approval is required, `mcp_approval_request`, which the app answers with an `mcp_approval_response` input item.
Anthropic Messages (the MCP connector, beta `mcp-client-2025-11-20`) takes `mcp_servers` beside the request and an
`mcp_toolset` tool naming each, and answers with `mcp_tool_use` and `mcp_tool_result` content blocks.

What the response holds is the provider's *report* of the MCP traffic: this module reads it into neutral exchanges,
and makes them the `mcp.reported` hops that stand for them, paired with the frames a recorder saw of the same
exchange where there are any, and saying where the two disagree. JSON in, hops out; no SDK.
"""

from __future__ import annotations

import bisect
import heapq
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from flow.trace import hops
from flow.trace.hops import Draft
from flow.trace.json_text import read_json_text
from flow.trace.model import Hop, as_dict, as_list, is_array, is_object
from flow.trace.pairing import NAME_SEPARATORS, same_tool
from flow.trace.payloads import McpError, McpReportedPayload, McpRequest, McpResponse, is_a
from flow.trace.summaries import call_text
from flow.wire.base import ApiName

MCP_BETA = "mcp-client-2025-11-20"


"""The Anthropic beta the MCP connector's request fields (`mcp_servers`, an `mcp_toolset` tool) belong to."""


Approval = Literal["never", "always"]


@dataclass(frozen=True, slots=True)
class HostedServer:
    """An MCP server the app asks the provider to use: its label, its URL, which calls the app must approve, and
    the bearer token the provider sends it (a credential the provider sees; never recorded)."""

    label: str
    url: str
    require_approval: Approval = "never"
    allowed_tools: tuple[str, ...] = ()
    token: str | None = None


def request_fields(api: ApiName, server: HostedServer) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The tool definitions that name the server, and what else the request body needs beside them."""
    if api == "responses":
        tool: dict[str, Any] = {
            "type": "mcp",
            "server_label": server.label,
            "server_url": server.url,
            "require_approval": server.require_approval,
        }
        if server.allowed_tools:
            tool["allowed_tools"] = list(server.allowed_tools)
        if server.token:
            tool["headers"] = {"Authorization": f"Bearer {server.token}"}
        return [tool], {}
    if api == "messages":
        definition: dict[str, Any] = {"type": "url", "url": server.url, "name": server.label}
        if server.token:
            definition["authorization_token"] = server.token
        toolset: dict[str, Any] = {"type": "mcp_toolset", "mcp_server_name": server.label}
        if server.allowed_tools:
            toolset["default_config"] = {"enabled": False}
            toolset["configs"] = {name: {"enabled": True} for name in server.allowed_tools}
        return [toolset], {"mcp_servers": [definition]}
    raise ValueError(f"hosted MCP is not part of the {api} API")


def hosted_servers(body: Any) -> list[dict[str, Any]]:
    """The servers a request asks the provider to reach: Responses' `mcp` tools, Messages' `mcp_servers`, each as
    `{"label", "url", "require_approval", "headers"}` (what a provider, or the mock, needs to act as the client);
    `approval_asked` where the request itself states the approval rule (Messages' connector has none: never)."""
    body = as_dict(body)
    found: list[dict[str, Any]] = []
    for tool in as_list(body.get("tools")):
        tool = as_dict(tool)
        if tool.get("type") == "mcp" and isinstance(tool.get("server_url"), str):
            found.append(
                {
                    "label": str(tool.get("server_label") or ""),
                    "url": tool["server_url"],
                    "require_approval": tool.get("require_approval", "always"),
                    "approval_asked": True,  # the request states its rule (Responses)
                    "allowed_tools": tool.get("allowed_tools"),
                    "headers": as_dict(tool.get("headers")),
                }
            )
    for server in as_list(body.get("mcp_servers")):
        server = as_dict(server)
        if isinstance(server.get("url"), str):
            token = server.get("authorization_token")
            headers = {"Authorization": f"Bearer {token}"} if isinstance(token, str) and token else {}
            found.append(
                {
                    "label": str(server.get("name") or ""),
                    "url": server["url"],
                    "require_approval": "never",
                    "headers": headers,
                }
            )
    return found


# --- what the response reports -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """The provider asks the app whether its MCP client may make this call (Responses `mcp_approval_request`)."""

    id: str
    server: str
    name: str
    arguments: str


def approval_items(raw: Any) -> list[dict[str, Any]]:
    """The `mcp_approval_request` items of a model turn's output, as they came (Responses); none elsewhere."""
    return [as_dict(i) for i in as_list(as_dict(raw).get("output")) if as_dict(i).get("type") == "mcp_approval_request"]


def approval_requests(raw: Any) -> tuple[ApprovalRequest, ...]:
    """The approval requests in a model turn's output, those the app can answer (they carry an id)."""
    return tuple(
        ApprovalRequest(
            item["id"],
            str(item.get("server_label") or ""),
            str(item.get("name") or ""),
            str(item.get("arguments") or ""),
        )
        for item in approval_items(raw)
        if isinstance(item.get("id"), str)
    )


def approval_response(request: ApprovalRequest, *, approve: bool) -> dict[str, Any]:
    """The input item that answers an approval request: the app's last word on the call."""
    return {"type": "mcp_approval_response", "approval_request_id": request.id, "approve": approve}


@dataclass(frozen=True, slots=True)
class Exchange:
    """One MCP exchange as the provider reports it: the request side and, where reported, the answer."""

    method: Literal["tools/list", "tools/call"]
    server: str
    request: dict[str, Any]  # the item or block that tells of the request
    answer: dict[str, Any] | None  # the one that tells of the answer (Responses: the same item)
    id: str = ""  # the item's id (`mcp_call`) or the block's (`mcp_tool_use`)
    name: str = ""
    arguments: Any = None
    tools: tuple[str, ...] = ()
    output: str | None = None
    is_error: bool = False


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = [str(as_dict(p).get("text") or "") for p in as_list(content) if as_dict(p).get("type") == "text"]
    return "\n".join(parts) if parts else json.dumps(content, ensure_ascii=False)


def arguments_value(arguments: Any) -> Any:
    """A call's arguments as a value: a JSON string parsed (an empty one is no arguments), anything else, or a string
    that is not JSON, as it came."""
    if not isinstance(arguments, str):
        return arguments
    ok, value = read_json_text(arguments or "{}")
    return value if ok else arguments


def _responses_exchanges(output: list[Any]) -> list[Exchange]:
    found: list[Exchange] = []
    for item in output:
        item = as_dict(item)
        kind, server = item.get("type"), str(item.get("server_label") or "")
        if kind == "mcp_list_tools":
            names = tuple(str(as_dict(t).get("name")) for t in as_list(item.get("tools")))
            error = item.get("error")
            found.append(
                Exchange(
                    "tools/list",
                    server,
                    item,
                    item,
                    str(item.get("id") or ""),
                    tools=names,
                    output=str(error) if error else None,
                    is_error=bool(error),
                )
            )
        elif kind == "mcp_call":
            error = item.get("error")
            said = item.get("output")
            text = str(said) if said is not None else _error_text(error)
            found.append(
                Exchange(
                    "tools/call",
                    server,
                    item,
                    item,
                    str(item.get("id") or ""),
                    str(item.get("name") or ""),
                    arguments_value(item.get("arguments")),
                    output=text,
                    is_error=error is not None,
                )
            )
    return found


def _error_text(error: Any) -> str | None:
    """An `mcp_call`'s error as text: its message, or a tool's own error content."""
    if error is None:
        return None
    if not is_object(error):
        return str(error)
    if "message" in error:
        return str(error["message"])
    return _text_of(error.get("content"))


def _messages_exchanges(content: list[Any]) -> list[Exchange]:
    results = {
        as_dict(b).get("tool_use_id"): as_dict(b) for b in content if as_dict(b).get("type") == "mcp_tool_result"
    }
    found: list[Exchange] = []
    for block in content:
        block = as_dict(block)
        if (
            block.get("type") == "mcp_tool_listing"
        ):  # the tools the provider's client fetched (`BetaMCPToolListingBlock`)
            names = tuple(str(as_dict(t).get("name")) for t in as_list(block.get("tools")))
            server = str(block.get("mcp_server_name") or "")
            found.append(Exchange("tools/list", server, block, block, tools=names))
            continue
        if block.get("type") != "mcp_tool_use":
            continue
        answer = results.get(block.get("id"))
        found.append(
            Exchange(
                "tools/call",
                str(block.get("server_name") or ""),
                block,
                answer,
                str(block.get("id") or ""),
                str(block.get("name") or ""),
                block.get("input"),
                output=_text_of(answer.get("content")) if answer is not None else None,
                is_error=bool(answer.get("is_error")) if answer is not None else False,
            )
        )
    return found


def exchanges(body: Any) -> list[Exchange]:
    """The MCP exchanges a response body (or an assembled turn) reports, in the order it reports them."""
    body = as_dict(body)
    output, content = body.get("output"), body.get("content")
    if is_array(output):
        return _responses_exchanges(output)
    if is_array(content):
        return _messages_exchanges(content)
    return []


READ_REPORTS = frozenset(
    {"mcp_list_tools", "mcp_call", "mcp_approval_request", "mcp_tool_listing", "mcp_tool_use", "mcp_tool_result"}
    | {"function_call", "tool_use"}
)


"""The item and block types that tell of a tool or an MCP exchange which this module (or the API's reader) reads."""


OTHER_TOOLS = frozenset(
    {
        # the providers' own tools, typed by the SDKs: no MCP exchange, and no call the app runs
        "tool_search_call",
        "tool_search_output",
        "additional_tools",
        "custom_tool_call",
        "custom_tool_call_output",
        "mcp_approval_response",
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "advisor_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
    }
)


"""The types the installed SDKs give a provider's own tools (web search, code execution…): told as they are
elsewhere, never as an MCP report left unread."""


def unread_reports(body: Any) -> tuple[str, ...]:
    """The types of the items (Responses' `output`) or blocks (Messages' `content`) of a reply that tell of tools or
    MCP in a form no reader here reads, in order, once each: a gateway's own report (LiteLLM's `mcp_tools_fetched`,
    `tool_execution_results`), so that a view says so rather than count no call."""
    body = as_dict(body)
    parts = body.get("output") if is_array(body.get("output")) else body.get("content")
    found: dict[str, None] = {}
    for part in as_list(parts):
        kind = as_dict(part).get("type")
        if not isinstance(kind, str) or kind in READ_REPORTS or kind in OTHER_TOOLS:
            continue
        if "mcp" in kind.lower() or "tool" in kind.lower():
            found[kind] = None
    return tuple(found)


# --- as hops, paired with what a recorder saw ---------------------------------------------------------------------


class _Frames:
    """The frames a recorder saw since a request (`after`), indexed once, so that pairing each reported exchange in
    turn costs what it finds, not a pass over every frame: requests not yet paired by method, a tools/call's also by
    the id it carries and its tool's name, and answers by JSON-RPC id. Each queue is kept latest first, so that its
    earliest frame not yet paired is at its end."""

    def __init__(self, hop_list: Sequence[Hop], after: int) -> None:
        start = len(hop_list)
        while start and hop_list[start - 1].seq > after:  # a recording's hops are in the order of their seq
            start -= 1
        self.taken: set[int] = set()
        self.lists: list[Hop] = []  # tools/list requests
        self.by_id: dict[str, list[Hop]] = {}  # tools/call requests by the id the mock's client tags them with
        self.by_name: dict[str, list[Hop]] = {}  # tools/call requests by their tool's name
        self.answers: dict[int | str | None, list[Hop]] = {}
        for h in reversed(hop_list[start:]):
            if is_a(h, McpResponse, McpError):
                self.answers.setdefault(h.jsonrpc_id, []).append(h)
            elif is_a(h, McpRequest):
                frame = as_dict(h.payload)
                if frame.get("method") == "tools/list":
                    self.lists.append(h)
                elif frame.get("method") == "tools/call":
                    name = as_dict(frame.get("params")).get("name")
                    if isinstance(name, str):
                        self.by_name.setdefault(name, []).append(h)
                    if h.tool_call_id:
                        self.by_id.setdefault(h.tool_call_id, []).append(h)
        # the names seen, each read backwards and sorted: the names that end in a text are a run of them
        self.backwards = sorted(n[::-1] for n in self.by_name)
        self.lengths = {len(n) for n in self.by_name}
        self.labelled: dict[str, list[tuple[int, str]]] = {}  # a reported name's frames under another name, a heap

    def first(self, queue: list[Hop] | None) -> Hop | None:
        """The earliest frame of a queue not yet paired (those paired before it are dropped)."""
        while queue and queue[-1].seq in self.taken:
            queue.pop()
        return queue[-1] if queue else None

    def request(self, ex: Exchange) -> Hop | None:
        """The request a recorder saw of this exchange: a tools/call of the same id, else the first of the same tool
        name, else the first whose name is that name after a server's label or the other way round (`first_named`)."""
        if ex.method == "tools/list":
            return self.first(self.lists)
        return (
            (self.first(self.by_id.get(ex.id)) if ex.id else None)
            or self.first(self.by_name.get(ex.name))
            or self.first_labelled(ex.name)
        )

    def first_labelled(self, name: str) -> Hop | None:
        """The earliest frame not yet paired among those whose tool's name names `name` (`same_tool`) another way:
        kept as a heap of each such name's earliest frame, put right when it is found paired."""
        heap = self.labelled.get(name)
        if heap is None:
            heap = [(q[-1].seq, n) for n in self.other_names(name) if (q := self.by_name[n])]
            heapq.heapify(heap)
            self.labelled[name] = heap
        while heap:
            seq, n = heap[0]
            head = self.first(self.by_name[n])
            if head is None:
                heapq.heappop(heap)
            elif head.seq != seq:
                heapq.heapreplace(heap, (head.seq, n))
            else:
                return head
        return None

    def other_names(self, name: str) -> list[str]:
        """The names seen that name the tool `name` with a server's label before it, or that it names so."""
        found: list[str] = []
        for sep in NAME_SEPARATORS:
            ending = (sep + name)[::-1]
            i = bisect.bisect_left(self.backwards, ending)
            while name and i < len(self.backwards) and self.backwards[i].startswith(ending):
                found += [self.backwards[i][::-1]] if len(self.backwards[i]) > len(ending) else []
                i += 1
            at = name.find(sep, 1)
            while at != -1:
                rest = len(name) - at - len(sep)
                if rest in self.lengths and rest and name[-rest:] in self.by_name:
                    found.append(name[-rest:])
                at = name.find(sep, at + 1)
        return found

    def answer(self, sent: Hop) -> Hop | None:
        """The first answer after the request with its JSON-RPC id."""
        answers = self.answers.get(sent.jsonrpc_id, [])  # latest first
        i = bisect.bisect_left(answers, -sent.seq, key=lambda h: -h.seq)  # the first not after it
        return answers[i - 1] if i else None

    def pair(self, ex: Exchange) -> tuple[Hop, Hop | None] | None:
        """The frames a recorder saw of this exchange, now paired: its request and the frame that answered it."""
        sent = self.request(ex)
        if sent is None:
            return None
        self.taken.add(sent.seq)
        return sent, self.answer(sent)


def _mismatch(ex: Exchange, sent: Hop, answer: Hop | None) -> list[str]:
    """Where the report and the frames disagree: the arguments, the tools listed, the result's text or its isError."""
    out: list[str] = []
    params = as_dict(as_dict(sent.payload).get("params"))
    if ex.method == "tools/call" and params.get("arguments", {}) != (ex.arguments or {}):
        out.append("arguments")
    result = as_dict(as_dict(answer.payload).get("result")) if answer is not None else {}
    if answer is None or not result:
        return out
    if ex.method == "tools/list":
        seen = tuple(str(as_dict(t).get("name")) for t in as_list(result.get("tools")))
        if ex.tools and (len(seen) != len(ex.tools) or not all(map(same_tool, seen, ex.tools))):
            out.append("tools")
        return out
    if ex.output is not None and _text_of(result.get("content")) != ex.output:
        out.append("output")
    if bool(result.get("isError")) != ex.is_error:
        out.append("isError")
    return out


def reported_drafts(
    api: ApiName, body: Any, *, response_seq: int, seen: Sequence[Hop] = (), since_seq: int = 0
) -> list[Draft[McpReportedPayload]]:
    """The `mcp.reported` hops a response stands for (two per exchange: its request and its answer), each paired with
    the frames in `seen` (in the order of their seq, as a recording holds them; those after `since_seq`) that a
    recorder saw of the same exchange, if any."""
    drafts: list[Draft[McpReportedPayload]] = []
    frames = _Frames(seen, since_seq)
    for ex in exchanges(body):
        base: McpReportedPayload = {
            "reported_by": api,
            "method": ex.method,
            "server": ex.server,
            "item": ex.request,
            "response_seq": response_seq,
        }
        if ex.method == "tools/call":
            base["name"], base["arguments"] = ex.name, ex.arguments
        pair = frames.pair(ex)
        answer_pair: Hop | None = None
        if pair is not None:
            base["observed"] = pair[0].seq
            answer_pair = pair[1]
            if wrong := _mismatch(ex, *pair):
                base["mismatch"] = wrong
        what = "tools/list" if ex.method == "tools/list" else "tools/call " + call_text(ex.name, ex.arguments)
        drafts.append(hops.provider_reported(base, answer=False, summary=f"{what} (reported by the provider)"))
        if ex.answer is None:
            continue
        answered: McpReportedPayload = {**base, "item": ex.answer, "is_error": ex.is_error}
        if answer_pair is not None:
            answered["observed"] = answer_pair.seq
        elif "observed" in answered:
            del answered["observed"]
        if ex.method == "tools/list":
            answered["tools"] = list(ex.tools)
        if ex.output is not None:
            answered["output"] = ex.output
        said = f"{len(ex.tools)} tools" if ex.method == "tools/list" else (ex.output or "")[:60]
        drafts.append(hops.provider_reported(answered, answer=True, summary=f"{said} (reported by the provider)"))
    return drafts
