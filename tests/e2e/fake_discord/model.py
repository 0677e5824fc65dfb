"""The fake Discord's state: users, guilds, channels, messages, interactions, violations."""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .state import FakeState

DISCORD_EPOCH_MS = 1420070400000
EPHEMERAL = 1 << 6
LOADING = 1 << 7

# Channel types (https://discord.com/developers/docs/resources/channel#channel-object-channel-types)
GUILD_TEXT, DM, PUBLIC_THREAD, PRIVATE_THREAD = 0, 1, 11, 12


class SnowflakeFactory:
    """Increasing snowflakes whose timestamp part is the current time (discord.py reads it)."""

    def __init__(self) -> None:
        self._counter = itertools.count()

    def __call__(self) -> int:
        millis = int(time.time() * 1000) - DISCORD_EPOCH_MS
        return (millis << 22) | (next(self._counter) & 0x3FFFFF)

    def on_shard(self, shard_id: int, shard_count: int) -> int:
        """A snowflake whose guild would land on ``shard_id``: ``(id >> 22) % shard_count``
        is its timestamp in milliseconds modulo the count, so step back a few ms."""
        millis = int(time.time() * 1000) - DISCORD_EPOCH_MS
        millis -= (millis - shard_id) % shard_count
        return (millis << 22) | (next(self._counter) & 0x3FFFFF)


def iso_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


@dataclass(frozen=True)
class Violation:
    """A rule of Discord that the bot broke; any unreported one fails the test."""

    kind: str  # deadline, double_ack, limit, spec, unsupported_route, not_acknowledged, ...
    message: str
    code: int | None = None  # Discord's JSON error code when Discord would answer with one
    method: str = ""
    path: str = ""
    interaction_id: int | None = None

    def __str__(self) -> str:
        where = f" [{self.method} {self.path}]" if self.method else ""
        code = f" (code {self.code})" if self.code is not None else ""
        return f"{self.kind}{code}: {self.message}{where}"


class ViolationError(AssertionError):
    """Raised by the user helpers (and at teardown) when the bot broke Discord's rules."""

    def __init__(self, violations: list[Violation], result: InteractionResult | None = None):
        self.violations = violations
        self.result = result
        lines = "\n  ".join(str(v) for v in violations)
        super().__init__(f"the bot broke Discord's rules:\n  {lines}")

    @property
    def codes(self) -> set[int | None]:
        return {v.code for v in self.violations}

    @property
    def kinds(self) -> set[str]:
        return {v.kind for v in self.violations}


class HarnessError(RuntimeError):
    """A test asked for something a real user could not do (no such button, ...)."""


@dataclass(eq=False)
class FakeUser:
    id: int
    name: str
    bot: bool = False
    dms_open: bool = True
    role_ids: list[int] = field(default_factory=list)
    locale: str = "en-US"
    """The language of the user's Discord client (an interaction's ``locale``)."""

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.name,
            "discriminator": "0",
            "avatar": None,
            "public_flags": 0,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass(eq=False)
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeChannel:
    id: int
    type: int
    name: str | None = None
    guild_id: int | None = None
    parent_id: int | None = None
    owner_id: int | None = None
    recipient: FakeUser | None = None  # DM channels
    position: int = 0
    bot_deny: int = 0  # permissions denied to the bot by an overwrite (guild text channels)
    private_to: set[int] | None = None  # member ids who may view it (None: everyone)
    archived: bool = False
    locked: bool = False
    created_at: str = field(default_factory=iso_now)
    member_ids: set[int] = field(default_factory=set)  # thread members

    @property
    def is_thread(self) -> bool:
        return self.type in (PUBLIC_THREAD, PRIVATE_THREAD)

    @property
    def is_dm(self) -> bool:
        return self.type == DM

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    channel_ids: list[int] = field(default_factory=list)
    member_ids: list[int] = field(default_factory=list)
    joined_at: str = field(default_factory=iso_now)
    locale: str = "en-US"
    """The server's language (``preferred_locale``; an interaction's ``guild_locale``)."""


@dataclass
class FakeFile:
    field: str
    filename: str
    content_type: str
    data: bytes


@dataclass
class RecordedRequest:
    method: str
    path: str  # without the /api/v10 prefix
    query: dict[str, str]
    json: Any  # the JSON body, or payload_json of a multipart body
    files: list[FakeFile]
    template: str | None = None  # the spec's path template, when known
    status: int = 0
    response: Any = None
    at: float = 0.0  # fake.clock(): the event loop's time
    interaction_id: int | None = None  # for callbacks and webhook (followup) requests
    pid: int | None = None  # the sending process (run_bot.py's X-Fake-Pid), else None
    # Faults and limits (see faults.py): why the fake refused or withheld the request
    # (None: served normally), whether it changed the fake's state, whether an answer
    # reached the connection (a timeout, a dropped connection or a held request: not).
    fault: str | None = None
    over_limit: str | None = None  # "channel_limit" / "global_limit", enforced or not
    processed: bool = False
    answered: bool = False


class FakeMessage:
    """A message as users see it now (a live view on the fake's state)."""

    def __init__(self, fake: FakeState, message_id: int) -> None:
        self._fake = fake
        self.id = message_id

    @property
    def data(self) -> dict[str, Any]:
        return self._fake._message_data[self.id]

    @property
    def history(self) -> list[dict[str, Any]]:
        """Every version the message had, oldest first (the last one is current)."""
        return self._fake._message_history[self.id]

    @property
    def channel_id(self) -> int:
        return int(self.data["channel_id"])

    @property
    def content(self) -> str:
        return str(self.data.get("content") or "")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return list(self.data.get("embeds") or [])

    @property
    def components(self) -> list[dict[str, Any]]:
        return list(self.data.get("components") or [])

    @property
    def attachments(self) -> list[dict[str, Any]]:
        return list(self.data.get("attachments") or [])

    @property
    def flags(self) -> int:
        return int(self.data.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred response still showing "Bot is thinking..."."""
        return bool(self.flags & LOADING)

    @property
    def deleted(self) -> bool:
        return self.id in self._fake._deleted_messages

    @property
    def author_id(self) -> int:
        return int(self.data["author"]["id"])

    @property
    def visible_to(self) -> int | None:
        """The only user who sees an ephemeral message; None for everyone."""
        return self._fake._ephemeral_owner.get(self.id)

    def text(self) -> str:
        return message_text(self.data)

    def walk_components(self) -> Iterator[dict[str, Any]]:
        yield from walk_components(self.components)

    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.walk_components() if c.get("type") == 2]

    def selects(self) -> list[dict[str, Any]]:
        return [c for c in self.walk_components() if c.get("type") in (3, 5, 6, 7, 8)]

    def button_labels(self) -> list[str]:
        return [str(b.get("label") or "") for b in self.buttons()]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FakeMessage) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        preview = self.content[:40] or (self.embeds[0].get("title") if self.embeds else "")
        return f"<FakeMessage id={self.id} channel={self.channel_id} {preview!r}>"


def walk_components(items: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for item in items:
        yield item
        yield from walk_components(item.get("components") or [])
        for key in ("accessory", "component"):
            if isinstance(item.get(key), dict):
                yield from walk_components([item[key]])


def message_text(data: dict[str, Any]) -> str:
    """All text a user can read in a message: content, embeds, component labels, options."""
    parts: list[str] = [str(data.get("content") or "")]
    for embed in data.get("embeds") or []:
        parts += [str(embed.get(k) or "") for k in ("title", "description")]
        parts.append(str((embed.get("footer") or {}).get("text") or ""))
        parts.append(str((embed.get("author") or {}).get("name") or ""))
        for f in embed.get("fields") or []:
            parts += [str(f.get("name") or ""), str(f.get("value") or "")]
    for c in walk_components(data.get("components") or []):
        parts += [str(c.get(k) or "") for k in ("label", "placeholder", "content")]
        for option in c.get("options") or []:
            parts += [str(option.get("label") or ""), str(option.get("description") or "")]
    for a in data.get("attachments") or []:
        parts += [str(a.get("filename") or ""), str(a.get("description") or "")]
    return "\n".join(p for p in parts if p)


@dataclass(eq=False)
class InteractionRecord:
    """One interaction the fake dispatched, and everything the bot did with it."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    payload: dict[str, Any]
    message_id: int | None = None  # the component's message (component / modal interactions)
    dispatched_at: float = 0.0
    callback: dict[str, Any] | None = None  # the accepted callback body
    answered_at: float | None = None  # loop time the accepted callback arrived
    original_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    events: list[tuple[str, Any]] = field(default_factory=list)  # (what, body) in order
    callback_seen: asyncio.Event = field(default_factory=asyncio.Event)
    completed: asyncio.Event = field(default_factory=asyncio.Event)  # deferred -> filled


class InteractionResult:
    """What the user saw in answer to one interaction."""

    def __init__(self, fake: FakeState, record: InteractionRecord) -> None:
        self._fake = fake
        self.record = record
        self.violations: list[Violation] = []

    @property
    def interaction_id(self) -> int:
        return self.record.id

    @property
    def latency(self) -> float | None:
        """Seconds from dispatch to the accepted initial response (for benchmarks)."""
        if self.record.answered_at is None:
            return None
        return self.record.answered_at - self.record.dispatched_at

    @property
    def callback_type(self) -> int | None:
        return None if self.record.callback is None else int(self.record.callback["type"])

    @property
    def callback_data(self) -> dict[str, Any]:
        return dict((self.record.callback or {}).get("data") or {})

    @property
    def message(self) -> FakeMessage | None:
        """The response message (types 4/5) or the component's message (types 6/7)."""
        mid = self.record.original_message_id
        return None if mid is None else FakeMessage(self._fake, mid)

    @property
    def followups(self) -> list[FakeMessage]:
        return [FakeMessage(self._fake, mid) for mid in self.record.followup_ids]

    @property
    def messages(self) -> list[FakeMessage]:
        """The response message then every followup."""
        first = [self.message] if self.callback_type in (4, 5) and self.message else []
        return first + self.followups

    @property
    def ephemeral(self) -> bool:
        return self.message is not None and self.message.ephemeral

    @property
    def content(self) -> str:
        return self.message.content if self.message else ""

    @property
    def text(self) -> str:
        """All text of the response and followups."""
        return "\n".join(m.text() for m in self.messages)

    @property
    def choices(self) -> list[dict[str, Any]]:
        return list(self.callback_data.get("choices") or []) if self.callback_type == 8 else []

    @property
    def modal(self) -> dict[str, Any] | None:
        return self.callback_data if self.callback_type == 9 else None

    @property
    def events(self) -> list[tuple[str, Any]]:
        return list(self.record.events)

    def __repr__(self) -> str:
        return (
            f"<InteractionResult id={self.interaction_id} callback={self.callback_type} "
            f"content={self.content[:40]!r} followups={len(self.record.followup_ids)}>"
        )
