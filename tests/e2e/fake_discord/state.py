"""The state of one fake Discord, its settings, and how Discord shows that state.

:class:`FakeState` is the base of every area's mixin (see ``server.py``, which combines
them into ``FakeDiscord``). It holds:

* the settings a test may change (the 3 s deadline, token lifetime, limit enforcement, ...);
* all the state, in one ``__init__``: users, guilds, channels, messages, interactions,
  gateway sessions, recorded requests, violations, faults and holds;
* waiting (``settle``, ``wait_for``) and violations (``take_violations``, ...);
* permissions as Discord computes them, and the JSON payloads Discord sends of users,
  members, channels, guilds and the application.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord

from . import faults as flt
from .model import (
    DM,
    GUILD_TEXT,
    FakeChannel,
    FakeGuild,
    FakeUser,
    HarnessError,
    InteractionRecord,
    RecordedRequest,
    SnowflakeFactory,
    Violation,
    ViolationError,
)
from .spec import SPEC_PATH, Spec, load_spec, spec_missing_reason

if TYPE_CHECKING:
    from aiohttp import web

    from .gateway import _GatewayConnection, _GatewaySession
    from .rest import Handler, _Held

P = discord.Permissions
ALL_PERMISSIONS = P.all().value
VIEW_CHANNEL = P(view_channel=True).value
EVERYONE_PERMISSIONS = P(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    create_public_threads=True,
    read_message_history=True,
    embed_links=True,
    attach_files=True,
    add_reactions=True,
    use_application_commands=True,
    use_external_emojis=True,
).value
BOT_PERMISSIONS = (
    EVERYONE_PERMISSIONS
    | P(
        create_private_threads=True,
        manage_threads=True,
        manage_messages=True,
        pin_messages=True,
        mention_everyone=True,
    ).value
)


HANDLER_TASKS = (
    "discord.py: ",  # Client.dispatch: on_* event listeners
    "discord-ui-view-dispatch-",  # a persistent or message view's item callback
    "discord-ui-dynamic-item-",  # a DynamicItem's callback
    "CommandTree-invoker",  # a slash command or autocomplete
)
"""Names discord.py gives the tasks that run the bot's handlers."""


def bot_handlers() -> set[asyncio.Task[Any]]:
    """The bot's handler tasks still running (what it does in answer to an event)."""
    return {
        task
        for task in asyncio.all_tasks()
        if task.get_name().startswith(HANDLER_TASKS) and not task.done()
    }


class FakeState:
    """The state of one fake Discord (see ``FakeDiscord`` in ``server.py`` for its use)."""

    deadline = 3.0  # seconds to the initial callback
    grace = 0.5  # how long past the deadline a helper waits for a late callback
    followup_timeout = 10.0  # how long a helper waits for a deferred response to be filled
    deferred_update_wait = 1.0  # how long a helper waits for an edit after a type-6 defer
    token_lifetime = 15 * 60.0  # interaction tokens accept followups this long
    heartbeat_interval_ms = 41250
    # Discord's rate limits (5 posts / 5 s per channel, 50 requests / s per token) are
    # always checked and requests over them recorded (limit_hits(), rest_stats()); with
    # enforce_limits they are also refused with a real 429, as Discord does. Off by
    # default: several bot tests still flood (see README.md); FAKE_DISCORD_ENFORCE_LIMITS=1
    # in the environment turns it on for a whole run.
    enforce_limits = os.environ.get("FAKE_DISCORD_ENFORCE_LIMITS", "") not in ("", "0")
    # Also send X-RateLimit-* headers with accepted channel posts, as Discord does, so
    # discord.py throttles its own posts (off: a flood shows as 429s, not as delays).
    bucket_headers = False

    guild: FakeGuild  # the default guild ("Test Server"), made by FakeDiscord.__init__
    channel: FakeChannel  # its #general

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        validate_spec: bool = True,
        spec_path: Path | None = None,
        shard_count: int = 1,
        max_concurrency: int = 1,
        fault_seed: int = 0,
    ) -> None:
        if shard_count < 1 or max_concurrency < 1:
            raise ValueError("shard_count and max_concurrency must be at least 1")
        self.token = token
        self.shard_count = shard_count
        self.max_concurrency = max_concurrency  # GET /gateway/bot's session_start_limit
        self.snowflake = SnowflakeFactory()
        path = spec_path or SPEC_PATH
        self.spec: Spec | None = load_spec(path) if validate_spec else None
        self.spec_skip_reason: str | None = None
        if validate_spec and self.spec is None:
            # No silent pass: say loudly that bodies are not checked against the spec.
            self.spec_skip_reason = spec_missing_reason(path)
            warnings.warn(self.spec_skip_reason, stacklevel=3)  # FakeDiscord(...)'s caller
        # False: helpers return once the interaction is answered, without waiting for the
        # whole fake to go quiet (for load tests with many interactions at once).
        self.settle_after_interaction = True

        self.requests: list[RecordedRequest] = []
        self.request_hooks: list[Callable[[RecordedRequest], Awaitable[None]]] = []
        """Awaited before each REST request is served (its body read): a test holds some
        of the bot's requests in flight with one (e.g. until an event is set)."""
        self.violations: list[Violation] = []
        self._reported: set[int] = set()  # indexes of violations raised to a test
        self.gateway_log: list[str] = []  # HELLO, IDENTIFY, READY, RESUME, RESUMED, ...
        self.gateway_queries: list[dict[str, str]] = []  # query of each connection (v, compress)
        self.heartbeats = 0

        self.bot_user = FakeUser(self.snowflake(), "Workshop Bot", bot=True)
        self.application_id = self.bot_user.id
        self.owner = FakeUser(self.snowflake(), "owner")
        self.users: dict[int, FakeUser] = {self.bot_user.id: self.bot_user}
        self.users[self.owner.id] = self.owner
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self._message_data: dict[int, dict[str, Any]] = {}
        self._message_history: dict[int, list[dict[str, Any]]] = {}
        self._channel_messages: dict[int, list[int]] = {}
        self._ephemeral_owner: dict[int, int] = {}
        self._deleted_messages: set[int] = set()
        self._dm_channels: dict[int, int] = {}  # user id -> DM channel id
        self.files: dict[int, bytes] = {}  # attachment id -> bytes
        self.interactions: dict[int, InteractionRecord] = {}
        self._by_token: dict[str, InteractionRecord] = {}

        self._sessions: dict[str, _GatewaySession] = {}  # resumable sessions, every shard
        self._shard_sessions: dict[int, _GatewaySession] = {}  # the current one per shard
        self._gateway_down = False  # gateway_outage(): every connection refused
        self.readies: dict[int, int] = {}  # shard id -> READYs sent on it
        self.dispatched: list[tuple[int, str, dict[str, Any]]] = []  # (shard, event, data)
        self._pending_dispatches: set[asyncio.Task[None]] = set()

        # Faults and limits (see faults.py and inject(), rest_outage(), hold()).
        self.faults: list[flt.FaultRule] = []
        self.fault_rng = random.Random(fault_seed)
        self._limiter = flt.Limiter()
        self._outage: bool = False
        self._outage_status: int | None = 503
        self._hold_predicate: Callable[[RecordedRequest], bool] | None = None
        self._held: list[_Held] = []
        self._stopping = asyncio.Event()  # wakes timeouts and holds when the fake stops
        self._nonces: dict[tuple[int, int, str], tuple[int, float]] = {}
        self.nonce_repeats: list[int] = []  # message ids returned again for a nonce

        self._connections: set[_GatewayConnection] = set()
        self._identified = asyncio.Event()
        self._inflight = 0
        self._last_activity = 0.0
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []
        self._patches: list[tuple[Any, str, Any]] = []
        self._bots: list[Any] = []
        self._processes: list[asyncio.subprocess.Process] = []
        self.process_logs: dict[int, Path] = {}  # pid -> output of a bot process
        self._logs_opened = 0  # names them: processes started at once must not share one
        self._log_dir: Path | None = None

    # ------------------------------------------------------------------ clock and waiting

    def clock(self) -> float:
        """Now, on the clock of ``RecordedRequest.at`` (for ``rest_stats(since=...)``)."""
        return asyncio.get_running_loop().time()

    async def settle(self, quiet: float = 0.05, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Wait until the bot has finished handling what it was sent (its event and
        interaction handler tasks are done), no REST request is in flight, and none
        came for ``quiet`` seconds.

        Waiting for the handlers, not only for a quiet spell, matters on a busy
        machine: a handler that draws a picture or searches a move in a thread can be
        silent for longer than ``quiet`` between two requests."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while loop.time() < end:
            if self._pending_dispatches:
                await asyncio.wait(
                    set(self._pending_dispatches), timeout=max(0.0, end - loop.time())
                )
            await asyncio.sleep(0)  # let the bot see what was just dispatched
            idle = loop.time() - self._last_activity
            if self._inflight == 0 and idle >= quiet and not self._pending_dispatches:
                handlers = bot_handlers()  # looked for only when the wire is quiet: cheaper
                if not handlers:
                    return
                await asyncio.wait(handlers, timeout=max(0.0, end - loop.time()))
                continue
            await asyncio.sleep(max(0.005, quiet - idle) if self._inflight == 0 else 0.005)
        raise HarnessError(f"the bot was still busy (handling or sending) after {timeout} s")

    async def wait_for(
        self,
        predicate: Callable[[], object],
        timeout: float = 5.0,  # noqa: ASYNC109 - a harness setting, not a cancel scope
        what: str = "condition",
    ) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not predicate():
            if loop.time() > end:
                raise HarnessError(f"timed out after {timeout} s waiting for {what}")
            await asyncio.sleep(0.01)

    # ------------------------------------------------------------------ requests and violations

    def failed_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.status >= 400]

    def take_violations(self) -> list[Violation]:
        """Unreported violations, now marked reported (so they no longer fail the test)."""
        found = [v for i, v in enumerate(self.violations) if i not in self._reported]
        self._reported.update(range(len(self.violations)))
        return found

    def check_no_violations(self) -> None:
        found = self.take_violations()
        if found:
            raise ViolationError(found)

    def _violate(self, violation: Violation) -> None:
        self.violations.append(violation)

    # ------------------------------------------------------------------ permissions and payloads

    def _channel_id(self, channel: FakeChannel | int) -> int:
        return channel if isinstance(channel, int) else channel.id

    def _guild_permissions(self, user: FakeUser, guild: FakeGuild) -> int:
        """A member's server-wide permissions: its roles' (no channel overwrites)."""
        if user.id == guild.owner_id:
            return ALL_PERMISSIONS
        perms = guild.roles[guild.id].permissions
        for rid in user.role_ids:
            if rid in guild.roles:
                perms |= guild.roles[rid].permissions
        if perms & P(administrator=True).value:
            return ALL_PERMISSIONS
        return perms

    def _permissions_in(self, user: FakeUser, channel: FakeChannel) -> int:
        if channel.guild_id is None:
            return P(
                view_channel=True, send_messages=True, embed_links=True, attach_files=True,
                read_message_history=True, add_reactions=True, use_application_commands=True,
            ).value  # fmt: skip
        guild = self.guilds[channel.guild_id]
        perms = self._guild_permissions(user, guild)
        if perms == ALL_PERMISSIONS:
            return perms
        base = (
            self.channels[channel.parent_id] if channel.is_thread and channel.parent_id else channel
        )
        if user.id == self.bot_user.id:
            perms &= ~base.bot_deny
        if base.private_to is not None and user.id not in base.private_to:
            perms &= ~VIEW_CHANNEL
        return perms

    def bot_can(self, channel: FakeChannel, **perms: bool) -> bool:
        needed = P(**perms).value
        return self._permissions_in(self.bot_user, channel) & needed == needed

    def _channel_payload(self, channel: FakeChannel) -> dict[str, Any]:
        if channel.is_dm:
            assert channel.recipient is not None
            return {
                "id": str(channel.id),
                "type": DM,
                "last_message_id": None,
                "recipients": [channel.recipient.payload()],
                "flags": 0,
            }
        data: dict[str, Any] = {
            "id": str(channel.id),
            "type": channel.type,
            "guild_id": str(channel.guild_id),
            "name": channel.name,
            "position": channel.position,
            "permission_overwrites": [],
            "nsfw": False,
            "rate_limit_per_user": 0,
            "last_message_id": None,
            "flags": 0,
            "parent_id": None if channel.parent_id is None else str(channel.parent_id),
        }
        if channel.type == GUILD_TEXT:
            data["topic"] = None
            overwrites: list[dict[str, Any]] = []
            if channel.private_to is not None:
                everyone = str(channel.guild_id)
                overwrites.append(
                    {"id": everyone, "type": 0, "allow": "0", "deny": str(VIEW_CHANNEL)}
                )
                overwrites += [
                    {"id": str(member), "type": 1, "allow": str(VIEW_CHANNEL), "deny": "0"}
                    for member in sorted(channel.private_to - {self.bot_user.id})
                ]
            if channel.bot_deny or channel.private_to is not None:
                overwrites.append(
                    {
                        "id": str(self.bot_user.id),
                        "type": 1,
                        "allow": "0" if channel.private_to is None else str(VIEW_CHANNEL),
                        "deny": str(channel.bot_deny),
                    }
                )
            data["permission_overwrites"] = overwrites
        if channel.is_thread:
            del data["permission_overwrites"], data["position"]
            data.update(
                owner_id=str(channel.owner_id),
                message_count=len(self._channel_messages.get(channel.id, [])),
                member_count=len(channel.member_ids),
                total_message_sent=len(self._channel_messages.get(channel.id, [])),
                thread_metadata={
                    "archived": channel.archived,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": channel.created_at,
                    "locked": channel.locked,
                    "create_timestamp": channel.created_at,
                },
            )
        return data

    def _member_payload(
        self, user: FakeUser, guild: FakeGuild, channel: FakeChannel | None = None
    ) -> dict[str, Any]:
        data: dict[str, Any] = {
            "user": user.payload(),
            "roles": [str(r) for r in user.role_ids if r in guild.roles],
            "joined_at": guild.joined_at,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "nick": None,
            "avatar": None,
            "premium_since": None,
            "communication_disabled_until": None,
        }
        if channel is not None:
            data["permissions"] = str(self._permissions_in(user, channel))
        return data

    def _guild_payload(self, guild: FakeGuild) -> dict[str, Any]:
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(guild.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in guild.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": guild.locale,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "max_members": 500000,
        }

    def _guild_create_payload(self, guild: FakeGuild) -> dict[str, Any]:
        data = self._guild_payload(guild)
        channels = [self.channels[c] for c in guild.channel_ids]
        data.update(
            joined_at=guild.joined_at,
            large=False,
            unavailable=False,
            member_count=len(guild.member_ids),
            voice_states=[],
            members=[self._member_payload(self.users[m], guild) for m in guild.member_ids],
            channels=[self._channel_payload(c) for c in channels if not c.is_thread],
            threads=[self._channel_payload(c) for c in channels if c.is_thread and not c.archived],
            presences=[],
            stage_instances=[],
            guild_scheduled_events=[],
            soundboard_sounds=[],
        )
        return data

    def _application_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.application_id),
            "name": self.bot_user.name,
            "icon": None,
            "description": "",
            "summary": "",
            "type": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "flags": 0,
            "owner": self.owner.payload(),
            "team": None,
            "bot": self.bot_user.payload(),
            "rpc_origins": [],
            "interactions_endpoint_url": None,
            "redirect_uris": [],
            "tags": [],
        }
