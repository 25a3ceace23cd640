"""A streamed Chat Completions answer, delta by delta: the assistant message its deltas build, and the line that says
what each event did. One rule for the engine (which assembles what the SDK hands it), the HTTP tap and merge (which
label the events they recorded), so the three read one stream the same way.

The rule: a tool-call delta with an integer `index` belongs to that call; one without starts a call when it has an id
and continues the last one when it has none. A name sent again whole is the same name (some servers repeat it, and
the id, in every delta): only a piece that is not the whole name so far continues it. Text is kept as pieces and
joined once, and no value grows past what one value of a trace may hold (`MAX_STRING_CHARS`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flow.trace.files import MAX_STRING_CHARS
from flow.trace.model import as_dict

LABEL_CHARS = 60  # of a piece of text, what a chunk's line quotes


class _Text:
    """Text that arrives in pieces: kept as a list, joined once, and cut at `limit` characters."""

    __slots__ = ("_joined", "_pieces", "chars", "cut", "limit")

    def __init__(self, limit: int) -> None:
        self._pieces: list[str] = []
        self._joined: str | None = ""
        self.chars = 0
        self.cut = 0  # characters that came after the limit
        self.limit = limit

    def add(self, piece: str) -> None:
        room = self.limit - self.chars
        if len(piece) > room:
            self.cut += len(piece) - max(room, 0)
            piece = piece[: max(room, 0)]
        if piece:
            self._pieces.append(piece)
            self.chars += len(piece)
            self._joined = None

    def is_whole(self, piece: str) -> bool:
        """Whether `piece` is all the text so far (compared only when the lengths agree)."""
        return len(piece) == self.chars and piece == self.text()

    def text(self) -> str:
        if self._joined is None:
            self._joined = "".join(self._pieces)
            self._pieces = [self._joined] if self._joined else []
        return self._joined


@dataclass
class _Call:
    name: _Text
    arguments: _Text
    id: str = ""


@dataclass
class StreamAssembly:
    """The deltas of one choice, added in order; `message()` is the assistant message they build."""

    limit: int = MAX_STRING_CHARS
    finish_reason: str | None = None
    calls: dict[int, _Call] = field(default_factory=dict)
    _content: _Text | None = None  # None until a delta carries content, "" when it was streamed empty

    def add_content(self, piece: str) -> None:
        if self._content is None:
            self._content = _Text(self.limit)
        self._content.add(piece)

    def add_call(self, index: Any, call_id: Any, name: Any, arguments: str | None, *, said: bool = True) -> str:
        """One tool-call delta (its parts read by the caller, any of them missing); what it did, as a label's
        words: `tool_call NAME starts`, `tool_call name += 'PIECE'`, or `arguments += 'PIECE'` ("" unless `said`:
        a label tells only the first of an event's deltas)."""
        if type(index) is not int:
            index = len(self.calls) if (isinstance(call_id, str) and call_id) or not self.calls else max(self.calls)
        new = index not in self.calls
        slot = self.calls.setdefault(index, _Call(_Text(self.limit), _Text(self.limit)))
        if isinstance(call_id, str) and call_id:
            slot.id = call_id
        if isinstance(arguments, str):
            slot.arguments.add(arguments)
        renamed = isinstance(name, str) and name and not slot.name.is_whole(name)
        if renamed:
            slot.name.add(name)
        if not said:
            return ""
        more = f", arguments += {_quoted(arguments)}" if arguments else ""
        if renamed:
            if new or slot.name.chars == len(name):
                return f"tool_call {_clip(name)} starts{more}"
            return f"tool_call name += {_quoted(name)}{more}"
        repeated = " (its name and id sent again)" if isinstance(name, str) and name else ""
        return f"arguments += {_quoted(arguments or '')}{repeated}"

    def message(self) -> dict[str, Any]:
        """The assistant message: content as streamed (null when no delta carried any), the calls by index."""
        content = self._content.text() if self._content is not None else None
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if self.calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name.text(), "arguments": c.arguments.text()},
                }
                for _, c in sorted(self.calls.items())
            ]
        return message

    def cut(self) -> str | None:
        """What the limit left out of the message, in a line; None when nothing was."""
        parts = [("content", self._content)] if self._content is not None else []
        for i, c in sorted(self.calls.items()):
            parts += [(f"tool_calls[{i}].function.name", c.name), (f"tool_calls[{i}].function.arguments", c.arguments)]
        cut = [f"{where}: {text.cut:,} characters past the first {text.limit:,}" for where, text in parts if text.cut]
        return "; ".join(cut) or None


def chunk_label(data: Any, n: int, stream: StreamAssembly) -> str:
    """One streamed event (its JSON `data`) in a line, its first choice's deltas added to `stream` as it goes."""
    if not isinstance(data, dict):
        return f"chunk {n}: {str(data)[:30]}"
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        return f"chunk {n}: usage" if data.get("usage") else f"chunk {n}"
    choice = as_dict(choices[0])
    delta = as_dict(choice.get("delta"))
    content, calls = delta.get("content"), delta.get("tool_calls")
    if isinstance(content, str):
        stream.add_content(content)
    said: list[str] = []
    if isinstance(calls, list):
        for i, part in enumerate(calls):
            part = as_dict(part)
            fn = as_dict(part.get("function"))
            arguments = fn.get("arguments")
            arguments = arguments if isinstance(arguments, str) else None
            said.append(stream.add_call(part.get("index"), part.get("id"), fn.get("name"), arguments, said=i == 0))
    elif calls is not None:
        said.append(f"tool_calls is not a list ({type(calls).__name__})")
    finish = choice.get("finish_reason")
    if finish is not None:
        stream.finish_reason = str(finish)
        return f"chunk {n}: finish_reason: {finish}"
    if said:
        return f"chunk {n}: {said[0]}" + (f" (and {len(said) - 1} more tool_call deltas)" if len(said) > 1 else "")
    if isinstance(content, str) and (content or not delta.get("role")):
        return f"chunk {n}: content += {_quoted(content)}"
    return f"chunk {n}: role {delta.get('role', '')}".strip()


def _clip(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def _quoted(text: str | None) -> str:
    shown = repr(text)
    return shown if len(shown) <= LABEL_CHARS + 2 else shown[: LABEL_CHARS + 1] + "…"
