"""A server's question to the user, asked on the terminal (`mcp-flow run` with a terminal and no --answer)."""

from __future__ import annotations

import sys
from typing import Any

import anyio

from flow.engine.host import Answer, Question, typed_value


class TerminalAnswerer:
    """Shows the server's message and asks each field of its form in turn; an empty line for a required field, or
    "d" / "c" at any prompt, declines or cancels the form."""

    async def __call__(self, question: Question) -> Answer:
        return await anyio.to_thread.run_sync(self._ask, question, abandon_on_cancel=True)

    def _ask(self, question: Question) -> Answer:
        print(f"\nThe MCP server asks: {question.message}", file=sys.stderr, flush=True)
        if question.mode == "url":
            print(f"  it wants you to open {question.url} (outside this program)", file=sys.stderr)
            said = input("  open it? [y/N] ").strip().lower()
            return Answer("accept" if said in ("y", "yes") else "decline", answered_by="prompt")
        properties: dict[str, Any] = question.schema.get("properties") or {}
        required = set(question.schema.get("required") or [])
        content: dict[str, Any] = {}
        for name, prop in properties.items():
            choices = prop.get("enum")
            hint = f" ({' / '.join(map(str, choices))})" if choices else ""
            while True:
                text = input(f"  {prop.get('description') or name}{hint} [d: decline, c: cancel]: ").strip()
                if text in ("d", "c"):
                    return Answer("decline" if text == "d" else "cancel", answered_by="prompt")
                if not text and name not in required:
                    break
                value = typed_value(prop, text)
                if value is not None:
                    content[name] = value
                    break
                print("  that is not a value this field takes", file=sys.stderr)
        return Answer("accept", content, answered_by="prompt")
