"""What a server asks, asked on the terminal (`mcp-flow run` with a terminal): its question to the user
(elicitation), unless --answer, --decline or --cancel gave the answers, and each of its sampling requests, which
spend the operator's model and so are shown and approved, edited or denied before anything is sent."""

from __future__ import annotations

import sys
from typing import Any

import anyio

from flow.cli.common import peer_text
from flow.engine.host import MAX_SAMPLING_TOKENS, Answer, Answerer, Question, SamplingRequest, form_fields, typed_value


class TerminalAnswerer:
    """Shows the server's message and asks each field of its form in turn; an empty line for a required field, or
    "d" / "c" at any prompt, declines or cancels the form. `forms` answers the forms instead, when given."""

    def __init__(self, forms: Answerer | None = None) -> None:
        self._forms = forms

    async def __call__(self, question: Question) -> Answer:
        if question.mode != "sampling" and self._forms is not None:
            return await self._forms(question)
        return await anyio.to_thread.run_sync(self._ask, question, abandon_on_cancel=True)

    def _ask(self, question: Question) -> Answer:
        if question.sampling is not None:
            return _approve(question.sampling)
        print(f"\nThe MCP server asks: {peer_text(question.message)}", file=sys.stderr, flush=True)
        if question.mode == "url":
            print(f"  it wants you to open {peer_text(question.url or '')} (outside this program)", file=sys.stderr)
            said = input("  open it? [y/N] ").strip().lower()
            return Answer("accept" if said in ("y", "yes") else "decline", answered_by="prompt")
        found = form_fields(question.schema)
        if isinstance(found, str):
            print(f"  this form cannot be filled in: {peer_text(found)}", file=sys.stderr)
            return Answer("decline", answered_by="prompt")
        content: dict[str, Any] = {}
        for name, prop, required in found:
            choices = prop.get("enum")
            hint = f" ({' / '.join(map(str, choices))})" if isinstance(choices, list) and choices else ""
            asked = peer_text(f"{prop.get('description') or name}{hint}")
            while True:
                text = input(f"  {asked} [d: decline, c: cancel]: ").strip()
                if text in ("d", "c"):
                    return Answer("decline" if text == "d" else "cancel", answered_by="prompt")
                if not text and not required:
                    break
                value = typed_value(prop, text)
                if value is not None:
                    content[name] = value
                    break
                print("  that is not a value this field takes", file=sys.stderr)
        return Answer("accept", content, answered_by="prompt")


def _approve(request: SamplingRequest) -> Answer:
    """A server's sampling request shown whole, then sent as it is, edited (each text message, maxTokens) or
    denied; nothing goes to the model before the answer."""
    say = sys.stderr
    print(
        "\nThe MCP server asks to use your model (sampling/createMessage); nothing is sent before you say so.", file=say
    )
    if request.system_prompt:
        print(f"  system: {peer_text(request.system_prompt)}", file=say)
    for number, message in enumerate(request.messages, 1):
        print(f"  [{number} {message.role}] {peer_text(message.text)}", file=say)
    if request.tools:
        print(f"  tools offered to the model: {peer_text(', '.join(request.tools))}", file=say)
    print(f"  maxTokens: {request.max_tokens}", file=say, flush=True)
    said = input("  send it? [y: approve, e: edit, N: deny] ").strip().lower()
    if said in ("y", "yes"):
        return Answer("accept", answered_by="prompt")
    if said not in ("e", "edit"):
        return Answer("decline", answered_by="prompt")
    texts = [
        (input(f"  new text of message {n} (empty keeps it): ") or m.text) if m.editable else m.text
        for n, m in enumerate(request.messages, 1)
    ]
    tokens = input(f"  maxTokens (1–{MAX_SAMPLING_TOKENS}, empty keeps {request.max_tokens}): ").strip()
    content: dict[str, Any] = {"texts": texts}
    if tokens.isdigit():
        content["max_tokens"] = int(tokens)
    return Answer("accept", content, answered_by="prompt")
