"""What a classroom room is: its keys, the teacher's view, its record, its limits and its refusals.

A room holds one trace at a time (its viewer bundles, one per language; the teacher may put another in its
place, which starts a new round of the same room), the teacher's view (hop index, language, the questions and
captions toggles), the questions' tallies, who is connected, and the events followers receive, each with an id
that only grows. The teacher's key moves the room; a follower's token only answers, once per question; answers are
counts, never linked to who gave them, and only a follower whose screen follows the room (an event stream open with
its token) answers, so a script pays for each answer with an open stream; every stream but the teacher's is such a
screen, a few at most per token, so the room's places go only to those who joined. Everything is bounded: rooms, the viewer
data they hold together, followers per room (a full room lets a newcomer in for a token that no screen follows), the
teacher's events per second, the events kept for a follower who reconnects, and a room idle for two hours is gone.

The rules live in flow.rooms.rules, once, over the storage primitives of flow.rooms.storage (in this process) or
flow.rooms.redis_store (shared by several processes).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any, get_args

from flow.rooms.events import Lang
from flow.text.rooms import RoomErrorCode, room_line

LANGS: tuple[Lang, ...] = get_args(Lang)

# Codes are what a QR code and a link carry: 14 characters from 32 (70 bits), no look-alikes (0/o, 1/l).
_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
CODE_LENGTH = 14


@dataclass(frozen=True)
class Limits:
    """What one app process (or every process sharing one Redis) allows; each has its own message."""

    rooms: int = 100
    followers: int = 500
    teacher_events_per_s: float = 20.0
    teacher_burst: int = 40
    idle_s: float = 2 * 3600.0
    backlog: int = 256  # events kept for a follower who reconnects with Last-Event-ID
    bundle_bytes: int = 32 * 2**20
    all_bundle_bytes: int = 256 * 2**20  # every room's viewer data together: the memory, not only the count
    queue: int = 1024  # events waiting for one slow follower before it is dropped (it reconnects and catches up)
    # What the routes allow one process and one remote address (flow.rooms.web): every event stream is an open file.
    streams: int = 2000  # open at once in this process, and never more than half its open-file limit
    client_streams: int = 16  # open at once from one address (a student's tabs, a teacher's screen)
    # A room's follower streams carry a token the room gave at join, each token at most this many at once: its tab,
    # and the same tab back before the server noticed its old connection gone. So a room's places are filled only
    # by joining, at the join rate of each address.
    token_streams: int = 2
    client_join_burst: int = 10  # new followers one address adds at once,
    client_joins_per_s: float = 0.2  # then one every five seconds (a reload keeps its token and costs nothing)


_STATUS: dict[RoomErrorCode, int] = {
    "no_room": 404,
    "no_bundle_lang": 404,
    "not_teacher": 403,
    "not_a_follower": 403,
    "not_following": 403,
    "other_round": 409,
    "answered_once": 409,
    "revealed_already": 409,
    "too_many_rooms": 429,
    "too_much_data": 429,
    "room_full": 429,
    "too_fast": 429,
    "joining_too_fast": 429,
    "streams_from_address": 429,
    "streams_of_token": 429,
    "body_too_large": 413,
    "streams_in_all": 503,
    "redis_url": 503,
    "redis_refused": 503,
    "redis_silent": 503,
    "redis_error": 503,
    "busy": 503,
}  # any other refusal is a 400: the request itself is wrong


class RoomError(Exception):
    """A one-line refusal, named by a code and its parameters (worded by flow.text.rooms, in both languages), with
    the HTTP status the routes answer with."""

    def __init__(self, code: RoomErrorCode, /, **params: Any) -> None:
        self.code: RoomErrorCode = code
        self.status = _STATUS.get(code, 400)
        self.message = room_line(code, "en", **params)
        self.message_zh = room_line(code, "zh", **params)
        super().__init__(self.message)

    def to_json(self) -> dict[str, str]:
        return {"error": self.message, "error_zh": self.message_zh}


@dataclass(frozen=True)
class RoomKeys:
    """What the teacher's page keeps: the code anyone may know, the key that moves the room, the key that reads
    the tallies (the teacher's own viewer listens with it)."""

    code: str
    key: str
    watch: str


@dataclass(frozen=True)
class RoomView:
    """The teacher's view, as the teacher's viewer posts it and followers apply it."""

    index: int = 0
    lang: Lang = "zh"
    quiz: bool = False
    captions: bool = False
    closing: bool = False  # the closing view, the step after the last hop, is open

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "lang": self.lang,
            "quiz": self.quiz,
            "captions": self.captions,
            "closing": self.closing,
        }


def within(view: RoomView, hops: int) -> RoomView:
    """The view of a trace of `hops` hops: its index no further than the last."""
    return replace(view, index=min(view.index, hops - 1))


def view_from(data: Any, hops: int) -> RoomView:
    """A posted view, checked: an object with an index into the trace, a language, two switches, and whether the
    closing view is open."""
    if not isinstance(data, Mapping):
        raise RoomError("bad_view")
    index = data.get("index")
    if type(index) is not int or not 0 <= index < hops:
        raise RoomError("bad_index", hops=hops)
    lang = data.get("lang", "zh")
    if lang not in LANGS:
        raise RoomError("bad_lang")
    return RoomView(
        index=index,
        lang=lang,
        quiz=bool(data.get("quiz")),
        captions=bool(data.get("captions")),
        closing=bool(data.get("closing")),
    )


@dataclass(frozen=True)
class Bucket:
    """A token bucket's state: `tokens` left at time `at`; it fills at a rate up to a burst."""

    tokens: float
    at: float

    def take(self, now: float, rate: float, burst: int) -> Bucket | None:
        """The bucket after one token is taken at `now`, or None when it holds less than one."""
        tokens = min(burst, self.tokens + max(0.0, now - self.at) * rate)
        return None if tokens < 1 else Bucket(tokens - 1, now)

    def give_back(self, burst: int) -> Bucket:
        """What `take` took, for an act that turned out to cost nothing."""
        return Bucket(min(burst, self.tokens + 1), self.at)


@dataclass(frozen=True)
class Record:
    """A room's own state, kept as one JSON document: its keys, its trace (hops, the questions' number of choices
    by hop index, the bundles' digest and size), the teacher's view, the round, the teacher's token bucket, and
    when the room expires (the storage's clock, seconds)."""

    key: str
    watch: str
    hops: int
    choices: dict[int, int]
    view: RoomView
    digest: str
    size: int  # the bundles' UTF-8 bytes
    bucket: Bucket
    deadline: float
    round: int = 1

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str | bytes) -> Record:
        data = json.loads(text)
        return cls(
            **{
                **data,
                "choices": {int(i): int(n) for i, n in data["choices"].items()},
                "view": RoomView(**data["view"]),
                "bucket": Bucket(**data["bucket"]),
            }
        )


@dataclass(frozen=True)
class Snapshot:
    """What a follower needs on arrival: the view, the round (which trace the room shows), which questions were
    revealed (with their counts), the hops' count, whether the teacher's screen is connected, and the last event
    id (a stream resumes after it)."""

    view: RoomView
    hops: int
    revealed: dict[int, list[int]]
    followers: int
    last: int
    round: int = 1
    teacher: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "view": self.view.to_json(),
            "round": self.round,
            "hops": self.hops,
            "revealed": {str(k): v for k, v in sorted(self.revealed.items())},
            "followers": self.followers,
            "teacher": self.teacher,
            "last": self.last,
        }


@dataclass(frozen=True)
class Screen:
    """An open event stream: its id, the follower's token when the stream is that follower's screen, and whether
    it is the teacher's own viewer (which hears the tallies)."""

    id: str
    token: str | None = None
    teacher: bool = False

    @property
    def member(self) -> str:
        """The screen as one string (a token is URL-safe base64: it has no '|')."""
        return f"{self.id}|{'t' if self.teacher else 'f'}|{self.token or ''}"

    @classmethod
    def of(cls, member: str) -> Screen:
        id_, teacher, token = member.split("|", 2)
        return cls(id_, token or None, teacher == "t")


@dataclass(frozen=True)
class Presence:
    """The room's open streams as a storage holds them: how many, how many of them are the teacher's, and those
    whose lease ran out (their process is gone) among them."""

    listeners: int
    teachers: int
    expired: list[Screen] = field(default_factory=list)


@dataclass(frozen=True)
class Held:
    """Every other open room together: how many, and their viewer data's bytes."""

    rooms: int
    bytes: int


def bundles_digest(bundles: Mapping[str, str]) -> str:
    """What tells one trace's bundles from another's: putting the same bundles in the room again is no new round."""
    return hashlib.sha256("\0".join(bundles[lang] for lang in LANGS).encode()).hexdigest()


def same_secret(given: str, known: str) -> bool:
    """A key or token compared in constant time; as bytes, since compare_digest refuses non-ASCII text (a
    header may carry any Latin-1 character)."""
    return secrets.compare_digest(given.encode(), known.encode())


def new_code() -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(CODE_LENGTH))


def valid_code(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(c in _ALPHABET for c in code)


def check_bundles(bundles: Mapping[str, str], limit: int) -> tuple[int, int]:
    """The bundles a room serves, one per language, checked; returns the trace's number of hops and the bundles'
    size (UTF-8 bytes, what the rooms' memory limit counts)."""
    if set(bundles) != set(LANGS):
        raise RoomError("bundle_langs")
    size = sum(len(text.encode()) for text in bundles.values())
    if size > limit:
        raise RoomError("bundle_too_big", size=size, limit=limit)
    hops = {len(json.loads(text).get("hops", [])) for text in bundles.values()}
    if len(hops) != 1 or 0 in hops:
        raise RoomError("bundle_no_hops")
    return hops.pop(), size


def check_choices(choices: Mapping[int, int], hops: int) -> dict[int, int]:
    return {int(i): int(n) for i, n in choices.items() if 0 <= int(i) < hops and int(n) >= 2}
