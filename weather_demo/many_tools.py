"""A demo MCP server with many tools: get_weather beside the tools of an operations assistant (alerts, inspections,
logs, tickets, inventory), the kind of tool set article 004 watched grow from five to forty.

It is here to show what tool definitions cost: every definition the host exposes goes into every model request.
`build_many_tools_server(n)` serves the first `n` of the 40 tools (get_weather always among them); only
get_weather answers with data, the others with a fixed line, since no question in the samples calls them.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server

from weather_demo import tools as demo_tools

SERVER_NAME = "ops-demo"


MAX_TOOLS = 40


# (name, description, [(parameter, JSON type, description, allowed values or None, required)])
_Param = tuple[str, str, str, list[str] | None, bool]
_OPS: list[tuple[str, str, list[_Param]]] = [
    (
        "query_alert",
        "Query alerts, filtered by level and a keyword in the alert text.",
        [
            ("level", "string", "Alert level", ["info", "warning", "critical"], False),
            ("keyword", "string", "A word the alert text must contain, e.g. CPU", None, False),
        ],
    ),
    ("get_alert", "Get one alert by its id, with its full history.", [("alert_id", "string", "Alert id", None, True)]),
    ("ack_alert", "Acknowledge an alert so it stops paging.", [("alert_id", "string", "Alert id", None, True)]),
    (
        "silence_alert",
        "Silence alerts matching a rule for a number of minutes.",
        [
            ("rule", "string", "Alert rule name", None, True),
            ("minutes", "integer", "How long, 1 to 1440", None, True),
        ],
    ),
    ("list_alert_rules", "List the alert rules of a service.", [("service", "string", "Service name", None, True)]),
    (
        "alert_stats",
        "Count alerts per level over a time window.",
        [("hours", "integer", "Window in hours, 1 to 168", None, False)],
    ),
    ("start_inspection", "Start a self-service inspection of a host.", [("host", "string", "Host name", None, True)]),
    (
        "inspection_status",
        "Get the status of a running inspection.",
        [("inspection_id", "string", "Inspection id", None, True)],
    ),
    (
        "inspection_report",
        "Get the findings of a finished inspection.",
        [("inspection_id", "string", "Inspection id", None, True)],
    ),
    ("list_inspections", "List the inspections run on a host.", [("host", "string", "Host name", None, True)]),
    (
        "schedule_inspection",
        "Schedule a recurring inspection of a host.",
        [
            ("host", "string", "Host name", None, True),
            ("cron", "string", "Cron expression, e.g. 0 3 * * *", None, True),
        ],
    ),
    (
        "search_logs",
        "Search a service's logs for a query string.",
        [
            ("service", "string", "Service name", None, True),
            ("query", "string", "Text to look for", None, True),
            ("limit", "integer", "Most lines to return, 1 to 500", None, False),
        ],
    ),
    (
        "tail_logs",
        "Return the last lines of a service's log.",
        [("service", "string", "Service name", None, True), ("lines", "integer", "How many lines", None, False)],
    ),
    (
        "log_error_rate",
        "Errors per minute in a service's logs over the last hour.",
        [("service", "string", "Service name", None, True)],
    ),
    (
        "export_logs",
        "Export a service's logs for a time range to a file for download.",
        [
            ("service", "string", "Service name", None, True),
            ("start", "string", "Start time, ISO 8601", None, True),
            ("end", "string", "End time, ISO 8601", None, True),
        ],
    ),
    (
        "create_ticket",
        "Create a ticket in the service desk.",
        [
            ("title", "string", "One-line summary", None, True),
            ("priority", "string", "Priority", ["low", "medium", "high", "urgent"], False),
            ("assignee", "string", "Who should take it", None, False),
        ],
    ),
    ("get_ticket", "Get one ticket by its id.", [("ticket_id", "string", "Ticket id", None, True)]),
    (
        "update_ticket",
        "Change a ticket's status.",
        [
            ("ticket_id", "string", "Ticket id", None, True),
            ("status", "string", "New status", ["open", "in_progress", "resolved", "closed"], True),
        ],
    ),
    (
        "comment_ticket",
        "Add a comment to a ticket.",
        [("ticket_id", "string", "Ticket id", None, True), ("text", "string", "The comment", None, True)],
    ),
    (
        "search_tickets",
        "Search tickets by a keyword and a status.",
        [
            ("keyword", "string", "Text to look for", None, True),
            ("status", "string", "Status", ["open", "in_progress", "resolved", "closed"], False),
        ],
    ),
    (
        "assign_ticket",
        "Assign a ticket to a person.",
        [("ticket_id", "string", "Ticket id", None, True), ("assignee", "string", "User name", None, True)],
    ),
    ("query_stock", "Stock level of one material.", [("sku", "string", "Material number (SKU)", None, True)]),
    (
        "reserve_stock",
        "Reserve a quantity of a material for an order.",
        [
            ("sku", "string", "Material number (SKU)", None, True),
            ("quantity", "integer", "How many units", None, True),
        ],
    ),
    ("list_warehouses", "List the warehouses and their regions.", []),
    (
        "stock_movements",
        "Movements in and out of stock for a material over a number of days.",
        [("sku", "string", "Material number (SKU)", None, True), ("days", "integer", "How many days", None, False)],
    ),
    (
        "reorder_material",
        "Place a reorder for a material with its usual supplier.",
        [
            ("sku", "string", "Material number (SKU)", None, True),
            ("quantity", "integer", "How many units", None, True),
        ],
    ),
    ("get_host", "Details of one host: OS, CPU, memory, owner.", [("host", "string", "Host name", None, True)]),
    ("list_hosts", "List hosts in an environment.", [("env", "string", "Environment", ["dev", "test", "prod"], True)]),
    (
        "host_metrics",
        "CPU, memory and disk use of a host over the last hour.",
        [("host", "string", "Host name", None, True)],
    ),
    (
        "restart_service",
        "Restart a service on a host (needs approval in prod).",
        [("host", "string", "Host name", None, True), ("service", "string", "Service name", None, True)],
    ),
    ("service_status", "Whether a service is up, and since when.", [("service", "string", "Service name", None, True)]),
    (
        "list_deployments",
        "Recent deployments of a service.",
        [("service", "string", "Service name", None, True), ("limit", "integer", "How many", None, False)],
    ),
    (
        "rollback_deployment",
        "Roll a service back to its previous deployment.",
        [("service", "string", "Service name", None, True)],
    ),
    (
        "query_oncall",
        "Who is on call for a team at a given time.",
        [("team", "string", "Team name", None, True), ("at", "string", "Time, ISO 8601; now if left out", None, False)],
    ),
    (
        "page_oncall",
        "Page the on-call engineer of a team.",
        [("team", "string", "Team name", None, True), ("message", "string", "What to tell them", None, True)],
    ),
    ("list_runbooks", "List the runbooks for a service.", [("service", "string", "Service name", None, True)]),
    ("get_runbook", "Get the steps of one runbook.", [("runbook_id", "string", "Runbook id", None, True)]),
    (
        "check_certificate",
        "Days until a domain's TLS certificate expires.",
        [("domain", "string", "Domain name", None, True)],
    ),
    (
        "dns_lookup",
        "Resolve a host name to its addresses.",
        [
            ("name", "string", "Host name", None, True),
            ("type", "string", "Record type", ["A", "AAAA", "CNAME", "MX"], False),
        ],
    ),
]


def _schema(params: list[_Param]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for name, kind, description, allowed, _ in params:
        props[name] = {"type": kind, "description": description, **({"enum": allowed} if allowed else {})}
    schema: dict[str, Any] = {"type": "object", "properties": props}
    required = [name for name, *_, needed in params if needed]
    if required:
        schema["required"] = required
    return schema


_WEATHER = types.Tool(
    name="get_weather",
    description="Get today's weather for one city: condition, temperature range (°C), humidity and wind.",
    input_schema={
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name in Chinese or English, e.g. 北京 or Beijing"}
        },
        "required": ["city"],
    },
)


TOOLS: list[types.Tool] = [
    _WEATHER,
    *(
        types.Tool(name=name, description=description, input_schema=_schema(params))
        for name, description, params in _OPS
    ),
]
assert len(TOOLS) == MAX_TOOLS


def build_many_tools_server(n: int = MAX_TOOLS) -> Server[Any]:
    """The server with the first `n` tools (1 to 40): get_weather, then the operations tools in order."""
    if not 1 <= n <= MAX_TOOLS:
        raise ValueError(f"a many-tools server has 1 to {MAX_TOOLS} tools, not {n}")
    listed = TOOLS[:n]
    names = {t.name for t in listed}

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = params.arguments or {}
        if params.name not in names:
            return _text(f"Unknown tool: {params.name}", error=True)
        if params.name != "get_weather":
            return _text(f"{params.name}: this demo server has no operations data behind it")
        try:
            weather = demo_tools.get_weather(str(args.get("city", "")))
        except ValueError as exc:
            return _text(str(exc), error=True)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(weather, ensure_ascii=False))],
            structured_content=weather,
            is_error=False,
        )

    return Server(SERVER_NAME, version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


def _text(text: str, *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)
