"""The two translations the app performs between MCP and function calling.

Forward: an MCP tool (name, description, inputSchema) becomes an OpenAI tool (type function,
parameters). Reverse: a tool_call (arguments as a JSON string) becomes a call request
(name + parsed arguments), checked against the schema.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

_JSON_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "object": dict,
    "array": list,
    "null": type(None),
}


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """What `strict: true` requires: every property required, no additional properties."""
    out = copy.deepcopy(schema)
    if out.get("type") == "object":
        props = out.get("properties") or {}
        out["properties"] = {k: strict_schema(v) if isinstance(v, dict) else v for k, v in props.items()}
        out["required"] = list(props)
        out["additionalProperties"] = False
    return out


def to_openai_tool(tool: dict[str, Any], *, strict: bool = False) -> dict[str, Any]:
    """Forward translation of one MCP tool (as listed on the wire) to an OpenAI tool schema."""
    params = copy.deepcopy(tool.get("inputSchema") or {"type": "object", "properties": {}})
    params.pop("title", None)  # a pydantic artefact; providers ignore it, and it only adds tokens
    for prop in (params.get("properties") or {}).values():
        if isinstance(prop, dict):
            prop.pop("title", None)
    fn: dict[str, Any] = {"name": tool["name"], "description": tool.get("description") or "", "parameters": params}
    if strict:
        fn["parameters"] = strict_schema(params)
        fn["strict"] = True
    return {"type": "function", "function": fn}


def with_strict(tool: dict[str, Any]) -> dict[str, Any]:
    fn = dict(tool["function"])
    fn["parameters"] = strict_schema(fn.get("parameters") or {})
    fn["strict"] = True
    return {"type": "function", "function": fn}


class ArgumentError(ValueError):
    """The model's arguments cannot be used: not JSON, not an object, or not what the schema asks."""


@dataclass(frozen=True)
class CallRequest:
    name: str
    arguments: dict[str, Any]


def parse_arguments(
    name: str, arguments: str, schema: dict[str, Any] | None, *, check_schema: bool = False
) -> CallRequest:
    """Reverse translation: a tool_call's JSON string into a call request with parsed arguments."""
    try:
        args = json.loads(arguments or "{}")
    except json.JSONDecodeError as exc:
        where = "" if exc.msg.endswith(" at") else " at"  # "Unterminated string starting at" names its own place
        raise ArgumentError(f"arguments for {name} are not valid JSON ({exc.msg}{where} position {exc.pos})") from None
    if not isinstance(args, dict):
        raise ArgumentError(f"arguments for {name} must be a JSON object, got {type(args).__name__}")
    if check_schema and schema is not None:
        problems = schema_problems(args, schema)
        if problems:
            raise ArgumentError(f"arguments for {name} do not match its schema: " + "; ".join(problems))
    return CallRequest(name, args)


def schema_problems(args: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """The checks `strict` mode promises: required fields, known fields only, and basic types."""
    problems = []
    props = schema.get("properties") or {}
    for field in schema.get("required") or []:
        if field not in args:
            problems.append(f"missing required field {field!r}")
    if schema.get("additionalProperties") is False:
        problems += [f"unexpected field {k!r}" for k in args if k not in props]
    for key, value in args.items():
        expected = (props.get(key) or {}).get("type")
        types = expected if isinstance(expected, list) else [expected] if expected else []
        if types and not any(
            isinstance(value, _JSON_TYPES[t]) and not (t in ("integer", "number") and isinstance(value, bool))
            for t in types
            if t in _JSON_TYPES
        ):
            problems.append(f"field {key!r} should be {expected}, got {type(value).__name__}")
    return problems
