"""What a room's screens hear: one dataclass per kind of event, and their JSON, written here and nowhere else.

An event's fields, in their order, are the JSON object a browser's EventSource hands to the viewer's room
(flow/views/viewer_assets/room.mjs, its stream's `on` table); `Event` gives one an id that only grows within its
room. A field left at None is left out (`Closed` says `expired` only when the room expired). Adding a kind: its dataclass here, in
`Body`, and the rule that says it (flow.rooms.rules); room.mjs shows it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any, ClassVar, Literal, get_args

Lang = Literal["zh", "en"]
EventKind = Literal["view", "tally", "joined", "reveal", "teacher", "closed", "ping"]


@dataclass(frozen=True)
class View:
    """The teacher moved, switched language or a toggle, or put another trace in the room (its `round` grows)."""

    kind: ClassVar[EventKind] = "view"
    teacher_only: ClassVar[bool] = False
    round: int
    index: int
    lang: Lang
    quiz: bool
    captions: bool
    closing: bool


@dataclass(frozen=True)
class Tally:
    """A question's counts changed: for the teacher's screen only, the class sees them at the reveal."""

    kind: ClassVar[EventKind] = "tally"
    teacher_only: ClassVar[bool] = True
    index: int
    counts: list[int]


@dataclass(frozen=True)
class Joined:
    """How many screens follow now and how many followers ever joined: for the teacher's screen only."""

    kind: ClassVar[EventKind] = "joined"
    teacher_only: ClassVar[bool] = True
    followers: int
    joined: int


@dataclass(frozen=True)
class Reveal:
    """The teacher revealed a question: its counts, for everyone."""

    kind: ClassVar[EventKind] = "reveal"
    teacher_only: ClassVar[bool] = False
    index: int
    counts: list[int]


@dataclass(frozen=True)
class Teacher:
    """The teacher's screen connected, or its last one went (a reload, a closed laptop)."""

    kind: ClassVar[EventKind] = "teacher"
    teacher_only: ClassVar[bool] = False
    here: bool


@dataclass(frozen=True)
class Closed:
    """The room closed, or expired after its idle time: every stream ends with it."""

    kind: ClassVar[EventKind] = "closed"
    teacher_only: ClassVar[bool] = False
    expired: Literal[True] | None = None


@dataclass(frozen=True)
class Ping:
    """A heartbeat on a quiet stream, so that nothing between closes it as idle; never stored, written as a
    comment."""

    kind: ClassVar[EventKind] = "ping"
    teacher_only: ClassVar[bool] = False


Body = View | Tally | Joined | Reveal | Teacher | Closed | Ping
KINDS: dict[str, type[Body]] = {cls.kind: cls for cls in get_args(Body)}


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


@dataclass(frozen=True)
class Event:
    """One thing a room's screens hear, with its id in the room (0 for one that is not the room's to number: a
    heartbeat, the news that the room expired)."""

    id: int
    body: Body

    @property
    def kind(self) -> EventKind:
        return self.body.kind

    @property
    def data(self) -> dict[str, Any]:
        """The JSON object a screen reads."""
        return {f.name: v for f in fields(self.body) if (v := getattr(self.body, f.name)) is not None}

    @cached_property
    def data_json(self) -> str:
        """What an event stream carries as the event's data (made once: every screen of the room hears it)."""
        return _compact(self.data)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, **self.data}

    def stored(self) -> str:
        """The event as a store keeps and passes it between processes."""
        return _compact({"id": self.id, "kind": self.kind, "data": self.data})


PING = Event(0, Ping())


def stored_event(text: str | bytes) -> Event | None:
    """An event as `Event.stored` wrote it, or None for anything else."""
    try:
        raw = json.loads(text)
        cls, data, id_ = KINDS[raw["kind"]], raw["data"], raw["id"]
        if type(id_) is not int or not isinstance(data, dict):
            return None
        return Event(id_, cls(**data))
    except (ValueError, KeyError, TypeError):
        return None
