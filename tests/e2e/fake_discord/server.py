"""A fake Discord: REST API v10 and a zlib-stream JSON gateway on 127.0.0.1.

The real discord.py client connects to it (see ``client.py`` for the two patched class
attributes). The fake keeps the state a user would see (channels, threads, DMs, messages
with their components, ephemeral messages per user), records every request, and records
a :class:`Violation` whenever the bot breaks one of Discord's rules. The user helpers
(``slash``, ``autocomplete``, ``click``, ``select``, ``submit_modal``) dispatch an
interaction over the gateway and return what the user saw, raising
:class:`ViolationError` if the bot broke a rule while answering.

Discord itself can be made to misbehave (``faults.py``): injected 429/5xx answers,
timeouts and dropped connections per route (``inject``), a REST outage
(``rest_outage``), requests held in flight (``hold``/``release``); Discord's rate limits
are checked on every request (``enforce_limits`` answers them with a 429) and counted
(``rest_stats``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import secrets
import shutil
import signal
import sys
import tempfile
import time
import traceback
import warnings
import zlib
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import discord
import yarl
from aiohttp import BodyPartReader, WSMsgType, web

from . import faults as flt
from . import limits
from .model import (
    DM,
    EPHEMERAL,
    GUILD_TEXT,
    LOADING,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    FakeChannel,
    FakeFile,
    FakeGuild,
    FakeMessage,
    FakeRole,
    FakeUser,
    HarnessError,
    InteractionRecord,
    InteractionResult,
    RecordedRequest,
    SnowflakeFactory,
    Violation,
    ViolationError,
    iso_now,
    message_text,
    walk_components,
)
from .spec import PROJECT_ROOT, SPEC_PATH, Spec, load_spec, spec_missing_reason

API_PREFIX = "/api/v10"
GATEWAY_PATH = "/gateway-ws/"
JSON = "application/json"  # exactly: discord.py's json_or_text compares the whole header

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

# Gateway intents the fake honours when dispatching (discord.Intents flag values).
_INTENT_FOR_EVENT = {
    "MESSAGE_CREATE": (
        discord.Intents(guild_messages=True).value,
        discord.Intents(dm_messages=True).value,
    ),
    "MESSAGE_UPDATE": (
        discord.Intents(guild_messages=True).value,
        discord.Intents(dm_messages=True).value,
    ),
    "MESSAGE_DELETE": (
        discord.Intents(guild_messages=True).value,
        discord.Intents(dm_messages=True).value,
    ),
}
_GUILDS_INTENT = discord.Intents(guilds=True).value

# Narrow, documented exceptions to spec validation: (method, template, error substring).
# Every entry must say why discord.py legitimately sends what the spec rejects.
SPEC_EXCEPTIONS: list[tuple[str, str, str, str]] = []

Handler = Callable[..., Awaitable[Any]]
ClientT = TypeVar("ClientT", bound=discord.Client)


class ApiError(Exception):
    def __init__(
        self, status: int, code: int, message: str, errors: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.errors = status, code, message, errors

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


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


def _kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGKILL a bot process started in its own session, and everything in its group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()


def json_response(
    data: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    if data is None and status == 204:
        return web.Response(status=204, headers=headers)
    return web.Response(
        status=status,
        body=json.dumps(data).encode(),
        headers={"Content-Type": JSON, **(headers or {})},
    )


class _Held:
    """A request held by ``FakeDiscord.hold``: its answer, once released, or ``None``
    to drop it."""

    __slots__ = ("future", "record", "request")

    def __init__(self, request: web.Request, record: RecordedRequest) -> None:
        self.request = request
        self.record = record
        self.future: asyncio.Future[tuple[int, Any] | None] = (
            asyncio.get_running_loop().create_future()
        )


class _GatewayConnection:
    def __init__(self, ws: web.WebSocketResponse, compress: str | None) -> None:
        self.ws = ws
        self._zlib = zlib.compressobj() if compress == "zlib-stream" else None
        self._lock = asyncio.Lock()

    async def send(self, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload)
        async with self._lock:
            if self._zlib is None:
                await self.ws.send_str(raw)
            else:
                data = self._zlib.compress(raw.encode()) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
                await self.ws.send_bytes(data)


class _GatewaySession:
    def __init__(self, session_id: str, intents: int, shard_id: int = 0) -> None:
        self.id = session_id
        self.intents = intents
        self.shard_id = shard_id
        self.seq = 0
        self.buffer: list[dict[str, Any]] = []
        self.conn: _GatewayConnection | None = None


def _compile(template: str) -> re.Pattern[str]:
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
    return re.compile(f"^{pattern}$")


class FakeDiscord:
    """One fake Discord with one bot application, one guild and a #general channel.

    Use ``async with FakeDiscord() as fake:`` (or the ``fake`` pytest fixture): that
    starts the server and points discord.py at it.

    Sharding, as on Discord: ``shard_count`` is what ``GET /gateway/bot`` recommends and
    what every IDENTIFY must carry (``[shard_id, shard_count]``, or nothing with one
    shard). Each gateway session is bound to its shard; a guild's events go only to shard
    ``(guild_id >> 22) % shard_count`` and everything without a guild (DM interactions,
    DM messages) to shard 0. Any number of bot processes may connect at once, each with
    its own shards; a new IDENTIFY for a shard replaces that shard's session only.
    ``add_guild(..., shard=k)`` makes a guild that lands on shard ``k``.
    """

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
            warnings.warn(self.spec_skip_reason, stacklevel=2)
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
        self.readies: dict[int, int] = {}  # shard id -> READYs sent on it
        self.dispatched: list[tuple[int, str, dict[str, Any]]] = []  # (shard, event, data)
        self._pending_dispatches: set[asyncio.Task[None]] = set()
        self.guild = self.add_guild("Test Server", owner=self.owner)
        self.channel = self.add_channel("general")

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
        self._register_routes()
        self._patches: list[tuple[Any, str, Any]] = []
        self._bots: list[Any] = []
        self._processes: list[asyncio.subprocess.Process] = []
        self.process_logs: dict[int, Path] = {}  # pid -> output of a bot process
        self._logs_opened = 0  # names them: processes started at once must not share one
        self._log_dir: Path | None = None

    # ------------------------------------------------------------------ lifecycle

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}{GATEWAY_PATH}"

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("GET", GATEWAY_PATH, self._gateway_handler)
        # GET /gateway/bot gives the URL without the slash (AutoShardedClient connects there)
        app.router.add_route("GET", GATEWAY_PATH.rstrip("/"), self._gateway_handler)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._rest_handler)
        app.router.add_route("GET", "/attachments/{id}/{filename}", self._attachment_handler)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        self._last_activity = asyncio.get_running_loop().time()

    def patch_discord(self) -> None:
        """Point discord.py at this fake (the only two attributes the harness changes)."""
        self._patch(discord.http.Route, "BASE", self.api_base)
        self._patch(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(self.gateway_url))

    def _patch(self, owner: Any, name: str, value: Any) -> None:
        self._patches.append((owner, name, owner.__dict__[name]))
        setattr(owner, name, value)

    def unpatch_discord(self) -> None:
        while self._patches:
            owner, name, value = self._patches.pop()
            setattr(owner, name, value)

    async def stop(self) -> None:
        self._stopping.set()  # timeouts end; held requests are dropped
        for held in self._held:
            if not held.future.done():
                held.future.set_result(None)
        self._held.clear()
        for bot in list(self._bots):
            await self.stop_bot(bot)
        for process in list(self._processes):
            with contextlib.suppress(HarnessError):
                await self.stop_bot_process(process)
        for conn in list(self._connections):
            with contextlib.suppress(Exception):
                await conn.ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._log_dir is not None and not os.environ.get("KEEP_FAKE_LOGS"):
            shutil.rmtree(self._log_dir, ignore_errors=True)
            self._log_dir = None
        self.unpatch_discord()

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        self.patch_discord()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start_bot(self, bot: ClientT, *, timeout: float = 10.0) -> ClientT:  # noqa: ASYNC109
        """Start ``bot`` against this fake and wait until it is ready (see client.py)."""
        from .client import start_bot

        return await start_bot(self, bot, timeout=timeout)

    async def stop_bot(self, bot: discord.Client) -> None:
        from .client import stop_bot

        await stop_bot(bot)
        if bot in self._bots:
            self._bots.remove(bot)

    async def start_bot_process(
        self,
        script: str | Path,
        *args: str,
        env: dict[str, str] | None = None,
        timeout: float = 30.0,  # noqa: ASYNC109 - a harness setting, not a cancel scope
        shards: Iterable[int] | None = None,
    ) -> asyncio.subprocess.Process:
        """Start ``python script args`` in a new process against this fake (see run_bot.py)
        and wait until it has identified and gone quiet. The token is in DISCORD_TOKEN;
        output goes to ``fake.process_logs[pid]``.

        ``shards``: the shard ids the process runs; it counts as connected once each of
        them got a new READY (``None``: once any shard did)."""
        readies = self.gateway_log.count("READY")
        shard_readies = {s: self.readies.get(s, 0) for s in shards} if shards is not None else None

        def connected() -> bool:
            if shard_readies is None:
                return self.gateway_log.count("READY") > readies and self._session is not None
            return all(self.readies.get(s, 0) > n for s, n in shard_readies.items())

        full_env = self._script_env(env)
        if self._log_dir is None:
            self._log_dir = Path(tempfile.mkdtemp(prefix="fake-discord-"))
        self._logs_opened += 1
        log = (self._log_dir / f"bot-{self._logs_opened}.log").open("wb")
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.e2e.fake_discord.run_bot",
            str(script),
            *args,
            cwd=PROJECT_ROOT,
            env=full_env,
            stdout=log,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,  # its own process group: a kill takes its workers too
        )
        self.process_logs[process.pid] = Path(log.name)  # removed when the fake stops
        self._processes.append(process)
        log.close()
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not connected():
            if process.returncode is not None or loop.time() > end:
                output = self.process_logs[process.pid].read_text(errors="replace")[-3000:]
                await self.stop_bot_process(process)
                raise HarnessError(f"the bot process did not connect:\n{output}")
            await asyncio.sleep(0.02)
        await self.settle(quiet=0.2)
        return process

    def _script_env(self, env: dict[str, str] | None) -> dict[str, str]:
        """A bot script's environment: ours, ``env``, and this fake's addresses (and
        token, unless ``env`` brings its own)."""
        full_env = {**os.environ, **(env or {})}
        full_env.update(
            FAKE_DISCORD_API=self.api_base,
            FAKE_DISCORD_GATEWAY=self.gateway_url,
            DISCORD_TOKEN=(env or {}).get("DISCORD_TOKEN", self.token),
            PYTHONPATH=os.pathsep.join(
                p for p in (str(PROJECT_ROOT), full_env.get("PYTHONPATH", "")) if p
            ),
        )
        return full_env

    async def run_script(
        self,
        script: str | Path,
        *args: str,
        env: dict[str, str] | None = None,
        timeout: float = 30.0,  # noqa: ASYNC109 - a harness setting, not a cancel scope
    ) -> tuple[int, str, str]:
        """Run ``script`` to its end in a new Python process pointed at this fake (as
        :meth:`start_bot_process` does, ``DISCORD_TOKEN`` set), e.g. ``bot.py --check``;
        returns (exit status, stdout, stderr). The fake keeps serving meanwhile."""
        full_env = self._script_env(env)
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.e2e.fake_discord.run_bot",
            str(script),
            *args,
            cwd=PROJECT_ROOT,
            env=full_env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        try:
            out, err = await asyncio.wait_for(process.communicate(), timeout)
        except TimeoutError:
            _kill_group(process)
            await process.wait()
            what = " ".join((str(script), *args))
            raise HarnessError(f"{what} did not end within {timeout} s") from None
        assert process.returncode is not None
        return process.returncode, out.decode(errors="replace"), err.decode(errors="replace")

    async def kill_bot_process(self, process: asyncio.subprocess.Process) -> int:
        """SIGKILL the bot process and its process group (its worker processes, which
        would otherwise be orphaned and keep running); no clean shutdown: its gateway
        connections just break, so their sessions stay resumable. Returns its exit code."""
        if process in self._processes:
            self._processes.remove(process)
        _kill_group(process)
        return await process.wait()

    async def stop_bot_process(
        self,
        process: asyncio.subprocess.Process,
        timeout: float = 10.0,  # noqa: ASYNC109 - a harness setting, not a cancel scope
    ) -> int:
        """Ctrl-C (SIGINT) the bot process and wait for it; returns its exit code."""
        if process in self._processes:
            self._processes.remove(process)
        if process.returncode is None:
            process.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(process.wait(), timeout)
            except TimeoutError:
                _kill_group(process)
                await process.wait()
                raise HarnessError(
                    f"the bot process did not stop within {timeout} s of Ctrl-C"
                ) from None
        return int(process.returncode or 0)

    # ------------------------------------------------------------------ world setup

    def shard_of(self, guild: FakeGuild | int | None) -> int:
        """The shard that receives ``guild``'s events (``None``, a DM: shard 0)."""
        if guild is None:
            return 0
        guild_id = guild if isinstance(guild, int) else guild.id
        return (guild_id >> 22) % self.shard_count

    def add_guild(self, name: str, *, owner: FakeUser, shard: int | None = None) -> FakeGuild:
        """A guild the bot is in (``shard``: one whose id lands on that shard)."""
        if shard is not None and not 0 <= shard < self.shard_count:
            raise HarnessError(f"shard {shard} is not in 0..{self.shard_count - 1}")
        gid = (
            self.snowflake() if shard is None else self.snowflake.on_shard(shard, self.shard_count)
        )
        guild = FakeGuild(gid, name, owner.id)
        guild.roles[gid] = FakeRole(gid, "@everyone", EVERYONE_PERMISSIONS)
        bot_role = FakeRole(self.snowflake(), "Workshop Bot", BOT_PERMISSIONS, position=1)
        guild.roles[bot_role.id] = bot_role
        self.bot_user.role_ids.append(bot_role.id)
        guild.member_ids += [self.bot_user.id, owner.id]
        self.users.setdefault(owner.id, owner)
        self.guilds[gid] = guild
        self._spawn_dispatch("GUILD_CREATE", self._guild_create_payload(guild))  # bot joins
        return guild

    def add_channel(self, name: str, *, guild: FakeGuild | None = None) -> FakeChannel:
        guild = guild or self.guild
        channel = FakeChannel(
            self.snowflake(), GUILD_TEXT, name, guild_id=guild.id, position=len(guild.channel_ids)
        )
        self.channels[channel.id] = channel
        guild.channel_ids.append(channel.id)
        self._channel_messages[channel.id] = []
        self._spawn_dispatch("CHANNEL_CREATE", self._channel_payload(channel))
        return channel

    def add_role(self, name: str, *, guild: FakeGuild | None = None, **perms: bool) -> FakeRole:
        """A role with the named discord.Permissions flags (e.g. manage_channels=True)."""
        guild = guild or self.guild
        role = FakeRole(self.snowflake(), name, P(**perms).value, position=len(guild.roles))
        guild.roles[role.id] = role
        created = {"guild_id": str(guild.id), "role": role.payload()}
        self._spawn_dispatch("GUILD_ROLE_CREATE", created)
        return role

    def set_locale(self, guild: FakeGuild, locale: str) -> None:
        """The server's language changes in its Discord settings (GUILD_UPDATE)."""
        guild.locale = locale
        self._spawn_dispatch("GUILD_UPDATE", self._guild_payload(guild))

    def add_user(
        self,
        name: str,
        *,
        guild: FakeGuild | None = None,
        roles: Iterable[FakeRole] = (),
        dms_open: bool = True,
        locale: str = "en-US",
    ) -> FakeUser:
        """A guild member (``guild=None``: the default guild); ``locale``: the language
        of their Discord client."""
        user = FakeUser(self.snowflake(), name, dms_open=dms_open, locale=locale)
        user.role_ids = [r.id for r in roles]
        self.users[user.id] = user
        (guild or self.guild).member_ids.append(user.id)
        return user

    def set_dms_open(self, user: FakeUser, is_open: bool) -> None:
        """Closed DMs: sending to the user fails with 403 / 50007, as on Discord."""
        user.dms_open = is_open

    def deny_bot(self, channel: FakeChannel, *permissions: str) -> None:
        """Deny the bot permissions in a channel (and its threads) by a member overwrite,
        e.g. ``deny_bot(ch, "create_public_threads")`` or ``"send_messages"``."""
        channel.bot_deny |= P(**dict.fromkeys(permissions, True)).value
        self._spawn_dispatch("CHANNEL_UPDATE", self._channel_payload(channel))

    def allow_bot(self, channel: FakeChannel, *permissions: str) -> None:
        channel.bot_deny &= ~P(**dict.fromkeys(permissions, True)).value
        self._spawn_dispatch("CHANNEL_UPDATE", self._channel_payload(channel))

    def make_private(self, channel: FakeChannel, *members: FakeUser) -> None:
        """Hide a text channel (and its threads) from everyone but ``members`` and the
        bot, as a private channel on Discord: an @everyone overwrite denying View
        Channel and member overwrites allowing it."""
        channel.private_to = {m.id for m in members} | {self.bot_user.id}
        self._spawn_dispatch("CHANNEL_UPDATE", self._channel_payload(channel))

    def withhold_from_bot(self, guild: FakeGuild, *permissions: str) -> None:
        """Take permissions away from the bot server-wide, as an admin would: from the
        guild's @everyone role and the bot's own role, e.g.
        ``withhold_from_bot(guild, "attach_files")``. (No GUILD_ROLE_UPDATE is
        dispatched: for what the bot reads by REST, such as ``GET /users/@me/guilds``,
        and for new interactions' ``app_permissions``.)"""
        taken = P(**dict.fromkeys(permissions, True)).value
        for role in guild.roles.values():
            if role.id == guild.id or role.id in self.bot_user.role_ids:
                role.permissions &= ~taken

    # ------------------------------------------------------------------ reading state

    def _channel_id(self, channel: FakeChannel | int) -> int:
        return channel if isinstance(channel, int) else channel.id

    def message(self, message_id: int) -> FakeMessage:
        if message_id not in self._message_data:
            raise HarnessError(f"no message {message_id}")
        return FakeMessage(self, message_id)

    def messages(
        self, channel: FakeChannel | int, *, include_deleted: bool = False
    ) -> list[FakeMessage]:
        """Public messages in a channel, thread or DM, oldest first, as everyone sees them."""
        cid = self._channel_id(channel)
        return [
            FakeMessage(self, mid)
            for mid in self._channel_messages.get(cid, [])
            if mid not in self._ephemeral_owner
            and (include_deleted or mid not in self._deleted_messages)
        ]

    def last_message(self, channel: FakeChannel | int) -> FakeMessage:
        found = self.messages(channel)
        if not found:
            raise HarnessError(f"no message in channel {self._channel_id(channel)}")
        return found[-1]

    def ephemeral_messages(
        self, user: FakeUser, channel: FakeChannel | int | None = None
    ) -> list[FakeMessage]:
        """Ephemeral messages only ``user`` sees, oldest first (optionally in one channel)."""
        return [
            FakeMessage(self, mid)
            for mid, owner in self._ephemeral_owner.items()
            if owner == user.id
            and mid not in self._deleted_messages
            and (
                channel is None
                or int(self._message_data[mid]["channel_id"]) == self._channel_id(channel)
            )
        ]

    def visible_messages(self, user: FakeUser, channel: FakeChannel | int) -> list[FakeMessage]:
        """What ``user`` sees in a channel: public messages and their own ephemerals."""
        cid = self._channel_id(channel)
        return [
            FakeMessage(self, mid)
            for mid in self._channel_messages.get(cid, [])
            if mid not in self._deleted_messages
            and self._ephemeral_owner.get(mid, user.id) == user.id
        ]

    def dm_channel(self, user: FakeUser) -> FakeChannel | None:
        cid = self._dm_channels.get(user.id)
        return None if cid is None else self.channels[cid]

    def open_dm(self, user: FakeUser) -> FakeChannel:
        """The DM channel between ``user`` and the bot (created as a user opening it would)."""
        if user.id not in self._dm_channels:
            channel = FakeChannel(self.snowflake(), DM, recipient=user)
            self.channels[channel.id] = channel
            self._channel_messages[channel.id] = []
            self._dm_channels[user.id] = channel.id
        return self.channels[self._dm_channels[user.id]]

    def dm_messages(self, user: FakeUser) -> list[FakeMessage]:
        channel = self.dm_channel(user)
        return [] if channel is None else self.messages(channel)

    def threads(self, channel: FakeChannel | int | None = None) -> list[FakeChannel]:
        parent = None if channel is None else self._channel_id(channel)
        return [
            c
            for c in self.channels.values()
            if c.is_thread and (parent is None or c.parent_id == parent)
        ]

    def public_texts(self) -> list[str]:
        """The text of every version of every non-ephemeral guild message (incl. deleted
        and since-edited ones): what any member of the server may have read."""
        texts = []
        for mid, versions in self._message_history.items():
            if mid in self._ephemeral_owner:
                continue
            channel = self.channels.get(int(self._message_data[mid]["channel_id"]))
            if channel is None or channel.is_dm:
                continue
            texts += [message_text(v) for v in versions]
        return texts

    def texts_seen_by(self, user: FakeUser) -> list[str]:
        """Every version of every message ``user`` could read: public, their ephemerals
        and their DMs."""
        texts = list(self.public_texts())
        dm = self._dm_channels.get(user.id)
        for mid, versions in self._message_history.items():
            owner = self._ephemeral_owner.get(mid)
            in_dm = int(self._message_data[mid]["channel_id"]) == dm
            if owner == user.id or (owner is None and in_dm):
                texts += [message_text(v) for v in versions]
        return texts

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

    # ------------------------------------------------------------------ faults and limits

    def clock(self) -> float:
        """Now, on the clock of ``RecordedRequest.at`` (for ``rest_stats(since=...)``)."""
        return asyncio.get_running_loop().time()

    def inject(
        self,
        kind: str,
        *,
        rate: float = 1.0,
        method: str | None = None,
        route: str | None = None,
        predicate: Callable[[RecordedRequest], bool] | None = None,
        calls: str = "rate_limited",
        status: int = 502,
        retry_after: float = 0.05,
        is_global: bool = False,
        delay: float = flt.DEFAULT_TIMEOUT_HOLD,
        processed: bool = False,
        times: int | None = None,
        retry_passes: bool = True,
    ) -> flt.FaultRule:
        """Inject a fault into a share (``rate``, drawn from ``fault_rng``, seeded by
        ``FakeDiscord(fault_seed=...)``) of the REST calls that match: ``method``,
        ``route`` (a path template such as ``"/channels/{channel_id}/messages"``, any
        placeholder names), ``predicate(record)`` and ``calls`` (``"rate_limited"``, the
        default: not interaction callbacks or webhooks; ``"exempt"``; ``"all"``).
        ``times``: at most that many faults. The first matching rule that fires wins.
        ``retry_passes``: a request repeating (same method, path and body) one that this
        rule refused passes it once, so discord.py's retry is accepted ("20 % answered
        429, then accepted on retry"); ``False``: every attempt draws anew.

        ``kind``:
        - ``"rate_limit"``: a 429 with Discord's headers and body (``retry_after`` s,
          ``is_global``); not processed.
        - ``"server_error"``: a ``status`` (500/502/503/...) answer; not processed.
        - ``"timeout"``: no answer for ``delay`` s (default 330 s, past the 300 s that
          discord.py's HTTP session waits), then the connection is closed.
        - ``"disconnect"``: the connection is closed at once, without an answer.
        Timeouts and disconnects are processed first when ``processed=True`` (Discord
        did it, the answer was lost), else not at all."""
        rule = flt.FaultRule(
            kind,
            rate=rate,
            method=method,
            route=route,
            predicate=predicate,
            calls=calls,
            status=status,
            retry_after=retry_after,
            is_global=is_global,
            delay=delay,
            processed=processed,
            times=times,
            retry_passes=retry_passes,
        )
        self.faults.append(rule)
        return rule

    def clear_faults(self) -> None:
        """Remove every injected fault rule (the outage switch and holds stay)."""
        self.faults.clear()

    def rest_outage(self, on: bool = True, *, status: int | None = 503) -> None:
        """While on, every REST call (interaction callbacks and webhooks included) fails
        and is not processed: answered with ``status`` (503: discord.py's HTTP client
        raises DiscordServerError at once, its webhook client retries 5 times), or, with
        ``status=None``, the connection is closed without an answer. The gateway stays up."""
        self._outage = on
        self._outage_status = status

    def limit_hits(self, since: float | None = None) -> list[RecordedRequest]:
        """Requests over Discord's limits (``over_limit``): refused with a 429 when
        ``enforce_limits`` is on, served but recorded when it is off."""
        return [r for r in self.requests if r.over_limit and (since is None or r.at >= since)]

    def check_within_limits(self, since: float | None = None) -> None:
        """Raise AssertionError if the bot hit Discord's per-channel or global limit."""
        hits = self.limit_hits(since)
        if hits:
            lines = "\n  ".join(f"{r.over_limit}: {r.method} {r.path}" for r in hits[:20])
            raise AssertionError(f"{len(hits)} request(s) over Discord's limits:\n  {lines}")

    def rest_stats(self, since: float | None = None, until: float | None = None) -> flt.RestStats:
        """Counts over the REST requests recorded between ``since`` and ``until`` (loop
        time, see ``clock()``): rate-limited vs exempt, per route, posts and edits per
        channel in any 5 s, 4xx answers by status and Discord error code, 429s from
        the limits, injected faults (see ``faults.RestStats``)."""
        return flt.rest_stats(
            self.requests, since=since, until=until, application_id=self.application_id
        )

    def hold(
        self,
        predicate: Callable[[RecordedRequest], bool] | None = None,
        *,
        channel: FakeChannel | int | None = None,
        methods: Iterable[str] = ("POST", "PATCH"),
        webhooks: bool = False,
    ) -> None:
        """From now on, accept matching requests but neither process nor answer them
        until ``release()``. Without ``predicate``: new messages and message edits
        (``methods`` of ``/channels/{id}/messages[/{id}]``), in ``channel`` if given;
        with ``webhooks=True`` also interaction followups and their edits
        (``/webhooks/{application_id}/{token}...``) of interactions in that channel.
        A predicate sees the ``RecordedRequest`` with its body (``json``).
        Held requests do not count as in flight for ``settle()`` (an in-process bot's
        handler waiting on one still does)."""
        if predicate is None:
            wanted = {m.upper() for m in methods}
            cid = None if channel is None else self._channel_id(channel)

            def predicate(record: RecordedRequest) -> bool:
                if record.method not in wanted:
                    return False
                if webhooks and record.path.startswith("/webhooks/"):
                    inter = self.interactions.get(record.interaction_id or 0)
                    return inter is not None and (cid is None or inter.channel.id == cid)
                found = flt.post_channel("POST", record.path)
                if found is None:
                    found = flt.edit_channel("PATCH", record.path)
                return found is not None and (cid is None or found == cid)

        self._hold_predicate = predicate

    @property
    def held(self) -> list[RecordedRequest]:
        """The requests being held now, in arrival order."""
        return [h.record for h in self._held]

    async def wait_held(self, n: int = 1, timeout: float = 5.0) -> None:  # noqa: ASYNC109
        """Wait until at least ``n`` requests are being held."""
        await self.wait_for(lambda: len(self._held) >= n, timeout, f"{n} held request(s)")

    async def release(self, *, drop: bool = False, keep_holding: bool = False) -> int:
        """Process the held requests in arrival order and answer them (or, ``drop=True``,
        close their connections unprocessed); returns how many. Processing does not
        need the client: a message is created or edited even if the bot was killed.
        Holding stops unless ``keep_holding``."""
        if not keep_holding:
            self._hold_predicate = None
        held, self._held = self._held, []
        for h in held:
            if drop:
                h.record.fault = flt.HOLD_DROPPED
                outcome = None
            else:
                h.record.fault = None
                outcome = await self._process(h.request, h.record)
                h.record.status, h.record.response = outcome
            if not h.future.done():
                h.future.set_result(outcome)
        if held:
            self._last_activity = asyncio.get_running_loop().time()
        return len(held)

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

    # ------------------------------------------------------------------ payloads

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

    def _new_message(
        self,
        channel: FakeChannel,
        body: dict[str, Any],
        *,
        author: FakeUser | None = None,
        files: list[FakeFile] | None = None,
        interaction: InteractionRecord | None = None,
        ephemeral_for: FakeUser | None = None,
        message_id: int | None = None,
    ) -> dict[str, Any]:
        mid = message_id or self.snowflake()
        author = author or self.bot_user
        data: dict[str, Any] = {
            "id": str(mid),
            "channel_id": str(channel.id),
            "author": author.payload(),
            "content": "",
            "timestamp": iso_now(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "components": [],
            "pinned": False,
            "type": 0,
            "flags": 0,
        }
        if channel.guild_id is not None:
            data["guild_id"] = str(channel.guild_id)
        if interaction is not None:
            data["webhook_id"] = str(self.application_id)
            data["application_id"] = str(self.application_id)
            data["interaction_metadata"] = {
                "id": str(interaction.id),
                "type": interaction.type,
                "user": interaction.user.payload(),
                "authorizing_integration_owners": interaction.payload.get(
                    "authorizing_integration_owners", {}
                ),
            }
            if interaction.type == 2:
                data["type"] = 20  # CHAT_INPUT_COMMAND
        self._apply_body(data, body, files or [])
        self._message_data[mid] = data
        self._message_history[mid] = [json.loads(json.dumps(data))]
        self._channel_messages.setdefault(channel.id, []).append(mid)
        if ephemeral_for is not None:
            self._ephemeral_owner[mid] = ephemeral_for.id
        return data

    def _apply_body(
        self, data: dict[str, Any], body: dict[str, Any], files: list[FakeFile]
    ) -> None:
        for key in ("content", "embeds", "components", "poll", "tts"):
            if key in body:
                value = body[key]
                data[key] = value if value is not None else ([] if key != "content" else "")
        for embed in data["embeds"]:
            embed.setdefault("type", "rich")
        if "flags" in body and body["flags"] is not None:
            # Only some flags can be set by a bot; keep ephemeral/loading as they are.
            keep = int(data.get("flags") or 0) & (EPHEMERAL | LOADING)
            data["flags"] = keep | (int(body["flags"]) & ~(EPHEMERAL | LOADING))
        if body.get("message_reference"):
            data["message_reference"] = body["message_reference"]
            data["type"] = 19
        if "attachments" in body or files:
            data["attachments"] = self._attachments(data, body.get("attachments"), files)

    def _attachments(
        self, data: dict[str, Any], wanted: list[dict[str, Any]] | None, files: list[FakeFile]
    ) -> list[dict[str, Any]]:
        existing = {a["id"]: a for a in data.get("attachments") or []}
        by_index = {}
        for f in files:
            m = re.fullmatch(r"files\[(\d+)\]", f.field)
            if m:
                by_index[m.group(1)] = f
        result = []
        items = wanted if wanted is not None else [{"id": i} for i in by_index]
        for item in items:
            key = str(item.get("id"))
            if key in existing:
                result.append(existing[key])
            elif key in by_index:
                f = by_index[key]
                aid = self.snowflake()
                self.files[aid] = f.data
                result.append(
                    {
                        "id": str(aid),
                        "filename": item.get("filename") or f.filename,
                        "description": item.get("description"),
                        "content_type": f.content_type,
                        "size": len(f.data),
                        "url": f"http://127.0.0.1:{self.port}/attachments/{aid}/{f.filename}",
                        "proxy_url": f"http://127.0.0.1:{self.port}/attachments/{aid}/{f.filename}",
                    }
                )
        return result

    def _edit_message(
        self, mid: int, body: dict[str, Any], files: list[FakeFile]
    ) -> dict[str, Any]:
        data = self._message_data[mid]
        self._apply_body(data, body, files)
        data["edited_timestamp"] = iso_now()
        self._message_history[mid].append(json.loads(json.dumps(data)))
        return data

    # ------------------------------------------------------------------ gateway

    @property
    def _session(self) -> _GatewaySession | None:
        """Shard 0's session (the only one without sharding)."""
        return self._shard_sessions.get(0)

    def _shard_for_event(self, event: str, data: dict[str, Any]) -> int:
        """Discord's routing: a guild's events to its shard, the rest to shard 0."""
        guild_id = data.get("id") if event.startswith("GUILD_") else data.get("guild_id")
        return self.shard_of(int(guild_id)) if guild_id else 0

    def _spawn_dispatch(self, event: str, data: dict[str, Any]) -> None:
        if not self._shard_sessions:
            return
        with contextlib.suppress(RuntimeError):  # no running loop: nothing connected yet
            task = asyncio.get_running_loop().create_task(self.dispatch(event, data))
            self._pending_dispatches.add(task)
            task.add_done_callback(self._pending_dispatches.discard)

    async def dispatch(
        self, event: str, data: dict[str, Any], *, session: _GatewaySession | None = None
    ) -> None:
        """Send a DISPATCH to the bot on the shard it belongs to (buffered for RESUME while
        that shard is disconnected; dropped if the shard never identified)."""
        if session is None:
            shard = self._shard_for_event(event, data)
            session = self._shard_sessions.get(shard)
            if session is None:
                return
        self.dispatched.append((session.shard_id, event, data))
        wanted = _INTENT_FOR_EVENT.get(event)
        if wanted is not None:
            bit = wanted[0] if data.get("guild_id") else wanted[1]
            if not session.intents & bit:
                return
        elif (
            event.startswith(("GUILD_", "CHANNEL_", "THREAD_"))
            and not session.intents & _GUILDS_INTENT
        ):
            return
        session.seq += 1
        payload = {"op": 0, "t": event, "s": session.seq, "d": data}
        session.buffer.append(payload)
        if session.conn is not None:
            # On a broken connection it stays in the buffer; a RESUME replays it.
            with contextlib.suppress(ConnectionResetError, RuntimeError):
                await session.conn.send(payload)
            # settle() waits a quiet period after this too, so the bot has handled it.
            self._last_activity = asyncio.get_running_loop().time()

    async def reconnect_gateway(self, *, resume: bool = True, shard: int = 0) -> None:
        """Ask the bot to reconnect (op 7 RECONNECT; it then RESUMEs), or drop the
        connection abruptly with close code 4000 (``resume=False`` closes with 4009,
        session timed out, so the bot identifies anew)."""
        session = self._shard_sessions.get(shard)
        if session is None or session.conn is None:
            raise HarnessError("the bot is not connected to the gateway")
        conn = session.conn
        if resume:
            await conn.send({"op": 7, "d": None})
        else:
            self._sessions.pop(session.id, None)
            await conn.ws.close(code=4009, message=b"Session timed out")

    async def drop_gateway(self, shard: int = 0) -> None:
        """Close the bot's connection with code 4000 (unknown error): it resumes."""
        session = self._shard_sessions.get(shard)
        if session is None or session.conn is None:
            raise HarnessError("the bot is not connected to the gateway")
        conn, session.conn = session.conn, None
        await conn.ws.close(code=4000, message=b"Unknown error")

    async def wait_connected(self, timeout: float = 10.0, shard: int = 0) -> None:  # noqa: ASYNC109
        def connected() -> bool:
            session = self._shard_sessions.get(shard)
            return session is not None and session.conn is not None

        await self.wait_for(connected, timeout, f"the bot's gateway connection (shard {shard})")

    async def _gateway_handler(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        compress = request.query.get("compress")
        if request.query.get("encoding", "json") != "json" or compress not in (None, "zlib-stream"):
            self._violate(Violation("gateway", f"unsupported gateway query {dict(request.query)}"))
            await ws.close(code=4002)
            return ws
        conn = _GatewayConnection(ws, compress)
        self._connections.add(conn)
        self.gateway_queries.append(dict(request.query))
        session: _GatewaySession | None = None
        try:
            self.gateway_log.append("HELLO")
            await conn.send({"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                payload = json.loads(msg.data)
                op, d = payload.get("op"), payload.get("d")
                if op == 1:
                    self.heartbeats += 1
                    await conn.send({"op": 11})
                elif op == 2:
                    session = await self._identify(conn, d)
                    if session is None:
                        break
                elif op == 6:
                    session = await self._resume(conn, d)
        finally:
            self._connections.discard(conn)
            if session is not None and session.conn is conn:
                session.conn = None
                if ws.close_code == 1000:  # a clean close ends the session, as on Discord
                    self._sessions.pop(session.id, None)
                    if self._shard_sessions.get(session.shard_id) is session:
                        del self._shard_sessions[session.shard_id]
        return ws

    async def _identify(
        self, conn: _GatewayConnection, d: dict[str, Any]
    ) -> _GatewaySession | None:
        self.gateway_log.append("IDENTIFY")
        if d.get("token") != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return None
        shard_id, shard_count = d.get("shard") or (0, 1)
        if shard_count != self.shard_count or not 0 <= shard_id < shard_count:
            # Discord: 4010 Invalid shard / 4011 Sharding required
            self._violate(
                Violation(
                    "gateway",
                    f"IDENTIFY with shard [{shard_id}, {shard_count}], but the bot has "
                    f"{self.shard_count} shard(s) (GET /gateway/bot)",
                )
            )
            await conn.ws.close(code=4010, message=b"Invalid shard.")
            return None
        session = _GatewaySession(secrets.token_hex(16), int(d.get("intents") or 0), shard_id)
        # A new IDENTIFY for a shard replaces that shard's earlier session (and only it).
        old = self._shard_sessions.get(shard_id)
        if old is not None:
            self._sessions.pop(old.id, None)
        self._sessions[session.id] = session
        self._shard_sessions[shard_id] = session
        session.conn = conn
        guilds = [g for g in self.guilds if self.shard_of(g) == shard_id]
        ready: dict[str, Any] = {
            "v": 10,
            "user": {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "flags": 0},
            "guilds": [{"id": str(g), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "user_settings": {},
            "geo_ordered_rtc_regions": [],
            "_trace": ["fake-discord"],
        }
        if d.get("shard"):
            ready["shard"] = d["shard"]
        await self.dispatch("READY", ready, session=session)
        self.gateway_log.append("READY")
        self.readies[shard_id] = self.readies.get(shard_id, 0) + 1
        for guild_id in guilds:
            payload = self._guild_create_payload(self.guilds[guild_id])
            await self.dispatch("GUILD_CREATE", payload, session=session)
        self._identified.set()
        return session

    async def _resume(self, conn: _GatewayConnection, d: dict[str, Any]) -> _GatewaySession | None:
        self.gateway_log.append("RESUME")
        session = self._sessions.get(d.get("session_id", ""))
        if session is None or d.get("token") != self.token:
            await conn.send({"op": 9, "d": False})
            self.gateway_log.append("INVALID_SESSION")
            return None
        session.conn = conn
        last = int(d.get("seq") or 0)
        for payload in [p for p in session.buffer if p["s"] > last]:
            await conn.send(payload)
        await self.dispatch("RESUMED", {"_trace": ["fake-discord"]}, session=session)
        self.gateway_log.append("RESUMED")
        return session

    # ------------------------------------------------------------------ REST plumbing

    def _route(self, method: str, template: str) -> Callable[[Handler], Handler]:
        def register(func: Handler) -> Handler:
            self._routes.append((method, _compile(template), func))
            return func

        return register

    async def _read_body(self, request: web.Request) -> tuple[Any, list[FakeFile]]:
        if not request.can_read_body:
            return None, []
        ctype = request.content_type
        if ctype == "multipart/form-data":
            body: Any = None
            files: list[FakeFile] = []
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, BodyPartReader):
                    continue  # nested multipart: discord.py never sends one
                if part.name == "payload_json":
                    body = json.loads(await part.text())  # type: ignore[union-attr]
                else:
                    data = await part.read()  # type: ignore[union-attr]
                    files.append(
                        FakeFile(
                            part.name or "",
                            getattr(part, "filename", None) or "",
                            part.headers.get("Content-Type", "application/octet-stream"),
                            bytes(data),
                        )
                    )
            return body, files
        raw = await request.read()
        if not raw:
            return None, []
        if ctype != JSON:
            raise ApiError(400, 50035, f"unsupported Content-Type {ctype!r}")
        return json.loads(raw), []

    async def _rest_handler(self, request: web.Request) -> web.StreamResponse:
        loop = asyncio.get_running_loop()
        self._inflight += 1
        path = request.path[len(API_PREFIX) :]
        method = request.method
        record = RecordedRequest(method, path, dict(request.query), None, [], at=self.clock())
        self.requests.append(record)
        record.interaction_id = self._interaction_for_path(path)
        try:
            try:
                record.json, record.files = await self._read_body(request)
                for hook in list(self.request_hooks):
                    await hook(record)
            except ApiError as error:
                return self._answer(record, error.status, error.body())
            except Exception as error:  # a body the fake cannot read
                return self._answer(record, *self._fake_error(record, error))
            refused = await self._faults_and_limits(request, record)
            if refused is not None:
                return refused
            if self._hold_predicate is not None and self._hold_predicate(record):
                return await self._hold_request(request, record)
            status, data = await self._process(request, record)
            return self._answer(record, status, data)
        finally:
            self._inflight -= 1
            self._last_activity = loop.time()

    async def _process(self, request: web.Request, record: RecordedRequest) -> tuple[int, Any]:
        """Serve the request (route, checks, state change): (status, JSON answer)."""
        try:
            return await self._serve(request, record)
        except ApiError as error:
            return error.status, error.body()
        except Exception as error:  # a bug in the fake
            return self._fake_error(record, error)

    def _fake_error(self, record: RecordedRequest, error: Exception) -> tuple[int, Any]:
        # Never a 5xx: discord.py would retry it for seconds. Fail the test instead.
        self._violate(
            Violation(
                "fake_error",
                f"the fake could not handle this request: {error!r}\n" + traceback.format_exc(),
                None,
                record.method,
                record.path,
                record.interaction_id,
            )
        )
        return 400, {"message": "Invalid Form Body", "code": 50035}

    def _answer(
        self,
        record: RecordedRequest,
        status: int,
        data: Any,
        headers: dict[str, str] | None = None,
    ) -> web.Response:
        record.status, record.response, record.answered = status, data, True
        if (
            headers is None
            and self.bucket_headers
            and status < 400
            and (channel := flt.post_channel(record.method, record.path)) is not None
        ):
            now = self.clock()
            remaining, reset_after = self._limiter.posts_remaining(channel, now)
            headers = {
                "X-RateLimit-Limit": str(flt.CHANNEL_POSTS),
                "X-RateLimit-Remaining": str(remaining),
                "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
                "X-RateLimit-Reset-After": f"{reset_after:.3f}",
                "X-RateLimit-Bucket": flt.bucket_hash(record.method, record.path),
            }
        return json_response(data, status, headers)

    def _drop(self, request: web.Request, record: RecordedRequest) -> web.Response:
        """Close the connection without an answer (the client sees it disconnected)."""
        record.answered = False
        if request.transport is not None:
            request.transport.abort()
        return web.Response(status=503)  # never reaches the client

    async def _wait_or_stop(self, delay: float) -> None:
        """Sleep ``delay`` s (not counted as in flight), or less if the fake stops."""
        self._inflight -= 1
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), delay)
        finally:
            self._inflight += 1

    async def _faults_and_limits(
        self, request: web.Request, record: RecordedRequest
    ) -> web.StreamResponse | None:
        """The outage switch, injected faults and Discord's rate limits, in that order:
        the answer if one of them refuses the request, else ``None`` (serve it)."""
        if self._outage:
            record.fault = flt.OUTAGE
            if self._outage_status is None:
                return self._drop(request, record)
            body = {"message": "Service Unavailable", "code": 0}
            return self._answer(record, self._outage_status, body)
        rate_limited = flt.is_rate_limited(record.method, record.path, self.application_id)
        for rule in self.faults:
            if not rule.matches(record, rate_limited) or rule.is_retry(record):
                continue
            if rule.rate < 1.0 and self.fault_rng.random() >= rule.rate:
                continue
            rule.refused(record)
            record.fault = rule.kind
            if rule.kind == flt.RATE_LIMIT:
                body, headers = flt.rate_limit_answer(
                    record.method, record.path, rule.retry_after, is_global=rule.is_global
                )
                return self._answer(record, 429, body, headers)
            if rule.kind == flt.SERVER_ERROR:
                body = {"message": f"{rule.status}: Server Error", "code": 0}
                return self._answer(record, rule.status, body)
            if rule.processed:  # Discord did it; the answer is lost
                record.status, record.response = await self._process(request, record)
            if rule.kind == flt.TIMEOUT:
                await self._wait_or_stop(rule.delay)
            return self._drop(request, record)
        now = self.clock()
        hit = self._limiter.check(
            record.method, record.path, now, rate_limited, self.enforce_limits
        )
        if hit is not None:
            kind, retry_after = hit
            record.over_limit = kind
            if self.enforce_limits:
                record.fault = kind
                is_global = kind == flt.GLOBAL_LIMIT_HIT
                body, headers = flt.rate_limit_answer(
                    record.method,
                    record.path,
                    retry_after,
                    is_global=is_global,
                    limit=flt.GLOBAL_LIMIT if is_global else flt.CHANNEL_POSTS,
                )
                return self._answer(record, 429, body, headers)
        return None

    async def _hold_request(self, request: web.Request, record: RecordedRequest) -> web.Response:
        held = _Held(request, record)
        record.fault = flt.HELD
        self._held.append(held)
        self._inflight -= 1  # held: not "in flight" for settle()
        try:
            outcome = await held.future
        finally:
            self._inflight += 1
        if outcome is None:
            return self._drop(request, record)
        return self._answer(record, *outcome)

    async def _serve(self, request: web.Request, record: RecordedRequest) -> tuple[int, Any]:
        method, path = record.method, record.path
        found = [
            (func, m)
            for route_method, pattern, func in self._routes
            if route_method == method and (m := pattern.match(path))
        ]
        if not found:
            self._violate(
                Violation(
                    "unsupported_route",
                    "the fake does not implement this route",
                    None,
                    method,
                    path,
                )
            )
            raise ApiError(404, 0, "404: Not Found")
        func, m = found[0]
        webhook_route = path.startswith(("/webhooks/", "/interactions/"))
        if not webhook_route and request.headers.get("Authorization") != f"Bot {self.token}":
            raise ApiError(401, 0, "401: Unauthorized")
        # Discord's limits first: their violations read better than the spec's.
        self._check_limits(record, _limit_problems(method, path, record.json))
        if self.spec is not None:
            op = self.spec.match(method, path)
            if op is not None:
                record.template = op.template
                problems = [
                    p
                    for p in self.spec.validate(op, record.json)
                    if not _spec_exception(method, op.template, p)
                ]
                if problems and (record.json is not None or self.spec.has_body(op)):
                    self._violate(
                        Violation(
                            "spec",
                            "request body does not match the Discord OpenAPI spec: "
                            + "; ".join(problems),
                            50035,
                            method,
                            path,
                            self._interaction_for_path(path),
                        )
                    )
                    raise ApiError(400, 50035, "Invalid Form Body", {"_spec": problems})
        record.processed = True
        result = await func(record, **m.groupdict())
        if isinstance(result, tuple):
            return result
        return (204, None) if result is None else (200, result)

    def _interaction_for_path(self, path: str) -> int | None:
        parts = path.split("/")
        if len(parts) > 3 and parts[1] in ("webhooks", "interactions"):
            rec = self._by_token.get(parts[3])
            return None if rec is None else rec.id
        return None

    def _check_limits(self, record: RecordedRequest, problems: list[limits.Problem]) -> None:
        if problems:
            self._violate(
                Violation(
                    "limit",
                    "; ".join(str(p) for p in problems),
                    50035,
                    record.method,
                    record.path,
                    self._interaction_for_path(record.path),
                )
            )
            raise ApiError(400, 50035, "Invalid Form Body", limits.form_errors(problems))

    async def _attachment_handler(self, request: web.Request) -> web.StreamResponse:
        data = self.files.get(int(request.match_info["id"]))
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data, content_type="application/octet-stream")

    def _get_channel(self, channel_id: str) -> FakeChannel:
        channel = self.channels.get(int(channel_id))
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return channel

    def _get_message(self, channel: FakeChannel, message_id: str) -> dict[str, Any]:
        mid = int(message_id)
        data = self._message_data.get(mid)
        if (
            data is None
            or mid in self._deleted_messages
            or int(data["channel_id"]) != channel.id
            or mid in self._ephemeral_owner
        ):
            raise ApiError(404, 10008, "Unknown Message")
        return data

    def _need(self, channel: FakeChannel, **perms: bool) -> None:
        if not self.bot_can(channel, **perms):
            raise ApiError(403, 50013, "Missing Permissions")

    # ------------------------------------------------------------------ REST routes

    def _register_routes(self) -> None:
        route = self._route

        @route("GET", "/gateway")
        async def get_gateway(rec: RecordedRequest) -> Any:
            return {"url": self.gateway_url.rstrip("/")}

        @route("GET", "/gateway/bot")
        async def get_gateway_bot(rec: RecordedRequest) -> Any:
            return {
                "url": self.gateway_url.rstrip("/"),
                "shards": self.shard_count,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": self.max_concurrency,
                },
            }

        @route("GET", "/users/@me")
        async def get_me(rec: RecordedRequest) -> Any:
            return {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "flags": 0}

        @route("GET", "/users/@me/guilds")
        async def my_guilds(rec: RecordedRequest) -> Any:
            # Discord: the bot's guilds by id, `after`/`before` a snowflake, at most
            # `limit` (1-200, default 200), each with the bot's server-wide permissions.
            after = int(rec.query.get("after") or 0)
            before = int(rec.query.get("before") or 0)
            limit = int(rec.query.get("limit") or 200)
            if not 1 <= limit <= 200:
                raise ApiError(400, 50035, "Invalid Form Body")
            guilds = sorted(
                (g for g in self.guilds.values() if self.bot_user.id in g.member_ids),
                key=lambda g: g.id,
            )
            chosen = [g for g in guilds if g.id > after and (not before or g.id < before)]
            chosen = chosen[-limit:] if before and not after else chosen[:limit]
            return [
                {
                    "id": str(g.id),
                    "name": g.name,
                    "icon": None,
                    "banner": None,
                    "owner": g.owner_id == self.bot_user.id,
                    "permissions": str(self._guild_permissions(self.bot_user, g)),
                    "features": [],
                }
                for g in chosen
            ]

        @route("GET", "/users/{user_id}")
        async def get_user(rec: RecordedRequest, user_id: str) -> Any:
            user = self.users.get(int(user_id))
            if user is None:
                raise ApiError(404, 10013, "Unknown User")
            return user.payload()

        @route("GET", "/oauth2/applications/@me")
        async def get_app_oauth(rec: RecordedRequest) -> Any:
            return self._application_payload()

        @route("GET", "/applications/@me")
        async def get_app(rec: RecordedRequest) -> Any:
            return self._application_payload()

        def commands_for(application_id: str, guild_id: str | None) -> list[dict[str, Any]]:
            if int(application_id) != self.application_id:
                raise ApiError(403, 50001, "Missing Access")
            if guild_id is None:
                return self.global_commands
            if int(guild_id) not in self.guilds:
                raise ApiError(403, 50001, "Missing Access")
            return self.guild_commands.setdefault(int(guild_id), [])

        def overwrite(rec: RecordedRequest, application_id: str, guild_id: str | None) -> Any:
            commands_for(application_id, guild_id)
            body = rec.json or []
            if len(body) > 100:
                self._check_limits(rec, [limits.Problem("", "more than 100 commands")])
            self._check_limits(rec, limits.check_commands(body))
            stored = []
            for command in body:
                data = {
                    "id": str(self.snowflake()),
                    "application_id": str(self.application_id),
                    "version": str(self.snowflake()),
                    "type": 1,
                    "description": "",
                    "default_member_permissions": None,
                    "nsfw": False,
                    **command,
                }
                if guild_id is not None:
                    data["guild_id"] = guild_id
                stored.append(data)
            if guild_id is None:
                self.global_commands = stored
            else:
                self.guild_commands[int(guild_id)] = stored
            return stored

        @route("PUT", "/applications/{application_id}/commands")
        async def put_global(rec: RecordedRequest, application_id: str) -> Any:
            return overwrite(rec, application_id, None)

        @route("GET", "/applications/{application_id}/commands")
        async def get_global(rec: RecordedRequest, application_id: str) -> Any:
            return commands_for(application_id, None)

        @route("PUT", "/applications/{application_id}/guilds/{guild_id}/commands")
        async def put_guild(rec: RecordedRequest, application_id: str, guild_id: str) -> Any:
            return overwrite(rec, application_id, guild_id)

        @route("GET", "/applications/{application_id}/guilds/{guild_id}/commands")
        async def get_guild_cmds(rec: RecordedRequest, application_id: str, guild_id: str) -> Any:
            return commands_for(application_id, guild_id)

        @route("POST", "/interactions/{interaction_id}/{token}/callback")
        async def callback(rec: RecordedRequest, interaction_id: str, token: str) -> Any:
            return self._callback(rec, interaction_id, token)

        @route("POST", "/webhooks/{application_id}/{token}")
        async def followup(rec: RecordedRequest, application_id: str, token: str) -> Any:
            return self._followup(rec, application_id, token)

        @route("GET", "/webhooks/{application_id}/{token}/messages/{message_id}")
        async def get_webhook_message(
            rec: RecordedRequest, application_id: str, token: str, message_id: str
        ) -> Any:
            _inter, mid = self._webhook_message(rec, application_id, token, message_id)
            return self._message_data[mid]

        @route("PATCH", "/webhooks/{application_id}/{token}/messages/{message_id}")
        async def edit_webhook_message(
            rec: RecordedRequest, application_id: str, token: str, message_id: str
        ) -> Any:
            inter, mid = self._webhook_message(rec, application_id, token, message_id)
            body = rec.json or {}
            data = self._message_data[mid]
            was_loading = bool(int(data.get("flags") or 0) & LOADING)
            if was_loading:
                data["flags"] = int(data["flags"]) & ~LOADING
            self._edit_message(mid, body, rec.files)
            inter.events.append(
                ("edit_original" if mid == inter.original_message_id else "edit_followup", body)
            )
            if was_loading or mid == inter.original_message_id:
                inter.completed.set()
            if mid not in self._ephemeral_owner:
                self._spawn_dispatch("MESSAGE_UPDATE", self._message_data[mid])
            return self._message_data[mid]

        @route("DELETE", "/webhooks/{application_id}/{token}/messages/{message_id}")
        async def delete_webhook_message(
            rec: RecordedRequest, application_id: str, token: str, message_id: str
        ) -> Any:
            inter, mid = self._webhook_message(rec, application_id, token, message_id)
            self._deleted_messages.add(mid)
            inter.events.append(("delete", mid))
            inter.completed.set()
            return None

        @route("GET", "/channels/{channel_id}")
        async def get_channel(rec: RecordedRequest, channel_id: str) -> Any:
            return self._channel_payload(self._get_channel(channel_id))

        @route("PATCH", "/channels/{channel_id}")
        async def edit_channel(rec: RecordedRequest, channel_id: str) -> Any:
            channel = self._get_channel(channel_id)
            body = rec.json or {}
            if channel.is_thread:
                if "archived" in body:
                    channel.archived = bool(body["archived"])
                if "locked" in body:
                    channel.locked = bool(body["locked"])
            if body.get("name"):
                channel.name = body["name"]
            data = self._channel_payload(channel)
            self._spawn_dispatch("THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE", data)
            return data

        @route("GET", "/channels/{channel_id}/messages")
        async def list_messages(rec: RecordedRequest, channel_id: str) -> Any:
            channel = self._get_channel(channel_id)
            self._need(channel, view_channel=True, read_message_history=True)
            limit = int(rec.query.get("limit", 50))
            found = [m.data for m in self.messages(channel)]
            if "before" in rec.query:
                found = [m for m in found if int(m["id"]) < int(rec.query["before"])]
            if "after" in rec.query:
                found = [m for m in found if int(m["id"]) > int(rec.query["after"])]
                return list(reversed(found[:limit]))
            return list(reversed(found[-limit:]))

        @route("POST", "/channels/{channel_id}/messages")
        async def create_message(rec: RecordedRequest, channel_id: str) -> Any:
            channel = self._get_channel(channel_id)
            body = rec.json or {}
            if channel.is_dm:
                assert channel.recipient is not None
                if not channel.recipient.dms_open:
                    raise ApiError(403, 50007, "Cannot send messages to this user")
            else:
                if channel.is_thread:
                    self._need(channel, view_channel=True, send_messages_in_threads=True)
                    if channel.locked:
                        raise ApiError(403, 50083, "Thread is archived")
                    channel.archived = False
                else:
                    self._need(channel, view_channel=True, send_messages=True)
                if body.get("embeds"):
                    self._need(channel, embed_links=True)
                if rec.files:
                    self._need(channel, attach_files=True)
            if (
                not any(
                    body.get(k) for k in ("content", "embeds", "components", "sticker_ids", "poll")
                )
                and not rec.files
            ):
                self._check_limits(rec, [limits.Problem("", "Cannot send an empty message")])
            nonce = body.get("nonce")
            key = (channel.id, self.bot_user.id, str(nonce))
            now = self.clock()
            if nonce is not None and body.get("enforce_nonce"):
                seen = self._nonces.get(key)
                if (
                    seen is not None
                    and now - seen[1] <= flt.NONCE_WINDOW
                    and seen[0] not in self._deleted_messages
                ):
                    self.nonce_repeats.append(seen[0])
                    return self._message_data[seen[0]]  # the same message, not a new one
            data = self._new_message(channel, body, files=rec.files)
            if nonce is not None:
                data["nonce"] = nonce
                self._nonces[key] = (int(data["id"]), now)
            self._spawn_dispatch("MESSAGE_CREATE", data)
            return data

        @route("GET", "/channels/{channel_id}/messages/{message_id}")
        async def get_message(rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
            channel = self._get_channel(channel_id)
            self._need(channel, view_channel=True, read_message_history=True)
            return self._get_message(channel, message_id)

        @route("PATCH", "/channels/{channel_id}/messages/{message_id}")
        async def edit_message(rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
            channel = self._get_channel(channel_id)
            data = self._get_message(channel, message_id)
            if int(data["author"]["id"]) != self.bot_user.id:
                raise ApiError(403, 50005, "Cannot edit a message authored by another user")
            if channel.is_thread and channel.locked:
                raise ApiError(403, 50083, "Thread is archived")
            body = rec.json or {}
            new = self._edit_message(int(message_id), body, rec.files)
            self._spawn_dispatch("MESSAGE_UPDATE", new)
            return new

        @route("DELETE", "/channels/{channel_id}/messages/{message_id}")
        async def delete_message(rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
            channel = self._get_channel(channel_id)
            data = self._get_message(channel, message_id)
            if int(data["author"]["id"]) != self.bot_user.id:
                self._need(channel, manage_messages=True)
            self._deleted_messages.add(int(message_id))
            event = {"id": message_id, "channel_id": channel_id}
            if channel.guild_id:
                event["guild_id"] = str(channel.guild_id)
            self._spawn_dispatch("MESSAGE_DELETE", event)
            return None

        @route("PUT", "/channels/{channel_id}/messages/pins/{message_id}")
        async def pin(rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
            channel = self._get_channel(channel_id)
            data = self._get_message(channel, message_id)
            if not channel.is_dm:
                self._need(channel, pin_messages=True)
            data["pinned"] = True
            return None

        @route("DELETE", "/channels/{channel_id}/messages/pins/{message_id}")
        async def unpin(rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
            channel = self._get_channel(channel_id)
            data = self._get_message(channel, message_id)
            if not channel.is_dm:
                self._need(channel, pin_messages=True)
            data["pinned"] = False
            return None

        @route("POST", "/channels/{channel_id}/typing")
        async def typing(rec: RecordedRequest, channel_id: str) -> Any:
            self._get_channel(channel_id)
            return None

        @route("POST", "/channels/{channel_id}/messages/{message_id}/threads")
        async def thread_from_message(
            rec: RecordedRequest, channel_id: str, message_id: str
        ) -> Any:
            channel = self._get_channel(channel_id)
            data = self._get_message(channel, message_id)
            if channel.type != GUILD_TEXT:
                raise ApiError(400, 50024, "Cannot execute action on this channel type")
            self._need(channel, view_channel=True, create_public_threads=True)
            if "thread" in data:
                raise ApiError(400, 160004, "A thread has already been created for this message")
            thread = self._create_thread(channel, rec.json or {}, PUBLIC_THREAD, int(message_id))
            data["thread"] = self._channel_payload(thread)
            return data["thread"]

        @route("POST", "/channels/{channel_id}/threads")
        async def thread_without_message(rec: RecordedRequest, channel_id: str) -> Any:
            channel = self._get_channel(channel_id)
            if channel.type != GUILD_TEXT:
                raise ApiError(400, 50024, "Cannot execute action on this channel type")
            body = rec.json or {}
            kind = int(body.get("type") or PRIVATE_THREAD)
            if kind == PRIVATE_THREAD:
                self._need(channel, view_channel=True, create_private_threads=True)
            else:
                self._need(channel, view_channel=True, create_public_threads=True)
            return self._channel_payload(self._create_thread(channel, body, kind, None))

        @route("PUT", "/channels/{channel_id}/thread-members/{user_id}")
        async def join_thread(rec: RecordedRequest, channel_id: str, user_id: str) -> Any:
            channel = self._get_channel(channel_id)
            if not channel.is_thread:
                raise ApiError(400, 50024, "Cannot execute action on this channel type")
            uid = self.bot_user.id if user_id == "@me" else int(user_id)
            if uid not in self.users:
                raise ApiError(404, 10013, "Unknown User")
            channel.member_ids.add(uid)
            return None

        @route("DELETE", "/channels/{channel_id}/thread-members/{user_id}")
        async def leave_thread(rec: RecordedRequest, channel_id: str, user_id: str) -> Any:
            channel = self._get_channel(channel_id)
            channel.member_ids.discard(self.bot_user.id if user_id == "@me" else int(user_id))
            return None

        @route("POST", "/users/@me/channels")
        async def open_dm(rec: RecordedRequest) -> Any:
            body = rec.json or {}
            user = self.users.get(int(body.get("recipient_id") or 0))
            if user is None or user.bot:
                raise ApiError(400, 50033, "Invalid Recipient(s)")
            return self._channel_payload(self.open_dm(user))

        @route("GET", "/guilds/{guild_id}")
        async def get_guild(rec: RecordedRequest, guild_id: str) -> Any:
            return self._guild_payload(self._guild(guild_id))

        @route("GET", "/guilds/{guild_id}/channels")
        async def get_guild_channels(rec: RecordedRequest, guild_id: str) -> Any:
            guild = self._guild(guild_id)
            return [self._channel_payload(self.channels[c]) for c in guild.channel_ids]

        @route("GET", "/guilds/{guild_id}/roles")
        async def get_roles(rec: RecordedRequest, guild_id: str) -> Any:
            return [r.payload() for r in self._guild(guild_id).roles.values()]

        @route("GET", "/guilds/{guild_id}/members/{user_id}")
        async def get_member(rec: RecordedRequest, guild_id: str, user_id: str) -> Any:
            guild = self._guild(guild_id)
            if int(user_id) not in guild.member_ids:
                raise ApiError(404, 10007, "Unknown Member")
            return self._member_payload(self.users[int(user_id)], guild)

        @route("GET", "/guilds/{guild_id}/threads/active")
        async def active_threads(rec: RecordedRequest, guild_id: str) -> Any:
            guild = self._guild(guild_id)
            threads = [
                self._channel_payload(c)
                for c in self.channels.values()
                if c.is_thread and c.guild_id == guild.id and not c.archived
            ]
            return {"threads": threads, "members": []}

    def _guild(self, guild_id: str) -> FakeGuild:
        guild = self.guilds.get(int(guild_id))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    def _create_thread(
        self, parent: FakeChannel, body: dict[str, Any], kind: int, message_id: int | None
    ) -> FakeChannel:
        thread = FakeChannel(
            message_id or self.snowflake(),
            kind,
            str(body.get("name") or "thread"),
            guild_id=parent.guild_id,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
        )
        thread.member_ids.add(self.bot_user.id)
        self.channels[thread.id] = thread
        assert parent.guild_id is not None
        self.guilds[parent.guild_id].channel_ids.append(thread.id)
        self._channel_messages[thread.id] = []
        self._spawn_dispatch(
            "THREAD_CREATE", {**self._channel_payload(thread), "newly_created": True}
        )
        return thread

    # ------------------------------------------------------------------ interaction responses

    def _callback(self, rec: RecordedRequest, interaction_id: str, token: str) -> Any:
        loop = asyncio.get_running_loop()
        inter = self.interactions.get(int(interaction_id))
        if inter is None or inter.token != token:
            self._violate(
                Violation(
                    "unknown_interaction",
                    "callback for an interaction the fake never sent",
                    10062,
                    rec.method,
                    rec.path,
                )
            )
            raise ApiError(404, 10062, "Unknown interaction")
        inter.callback_seen.set()
        # Once acknowledged, the interaction stays known: a second ack is 40060 even late.
        if inter.callback is not None:
            self._violate(
                Violation(
                    "double_ack",
                    "a second initial response to one interaction",
                    40060,
                    rec.method,
                    rec.path,
                    inter.id,
                )
            )
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        late = loop.time() - inter.dispatched_at
        if late > self.deadline:
            self._violate(
                Violation(
                    "deadline",
                    f"initial response {late:.2f} s after dispatch; "
                    f"Discord allows {self.deadline:.0f} s",
                    10062,
                    rec.method,
                    rec.path,
                    inter.id,
                )
            )
            raise ApiError(404, 10062, "Unknown interaction")
        body = rec.json or {}
        kind = int(body.get("type") or 0)
        data = body.get("data") or {}
        allowed = {
            2: {4, 5, 9},  # application command
            3: {4, 5, 6, 7, 9},  # component
            4: {8},  # autocomplete
            5: {4, 5, 6, 7},  # modal submit (6/7 only when opened from a component)
        }[inter.type]
        if inter.type == 5 and inter.message_id is None:
            allowed = {4, 5}
        if kind not in allowed:
            self._violate(
                Violation(
                    "callback_type",
                    f"callback type {kind} is not valid for interaction type {inter.type}",
                    50035,
                    rec.method,
                    rec.path,
                    inter.id,
                )
            )
            raise ApiError(
                400,
                50035,
                "Invalid Form Body",
                {
                    "type": {
                        "_errors": [
                            {
                                "code": "INTERACTION_RESPONSE_TYPE_INVALID",
                                "message": "Invalid interaction response type",
                            }
                        ]
                    }
                },
            )

        inter.callback = body
        inter.answered_at = loop.time()
        inter.events.append(("callback", body))
        message: dict[str, Any] | None = None
        flags = int(data.get("flags") or 0)
        if kind in (4, 5):
            ephemeral = bool(flags & EPHEMERAL)
            message = self._new_message(
                inter.channel,
                data if kind == 4 else {},
                files=rec.files,
                interaction=inter,
                ephemeral_for=inter.user if ephemeral else None,
            )
            message["flags"] = (
                int(message.get("flags") or 0)
                | (EPHEMERAL if ephemeral else 0)
                | (LOADING if kind == 5 else 0)
            )
            self._message_history[int(message["id"])][-1]["flags"] = message["flags"]
            inter.original_message_id = int(message["id"])
            if kind == 4:
                inter.completed.set()
            if not ephemeral:
                self._spawn_dispatch("MESSAGE_CREATE", message)
        elif kind in (6, 7):
            assert inter.message_id is not None
            inter.original_message_id = inter.message_id
            if kind == 7:
                message = self._edit_message(inter.message_id, data, rec.files)
                if inter.message_id not in self._ephemeral_owner:
                    self._spawn_dispatch("MESSAGE_UPDATE", message)
                inter.completed.set()
        else:
            inter.completed.set()

        if rec.query.get("with_response") not in ("1", "true", "True"):
            return None
        response: dict[str, Any] = {
            "interaction": {"id": str(inter.id), "type": inter.type},
            "resource": {"type": kind},
        }
        if message is not None:
            response["interaction"].update(
                response_message_id=message["id"],
                response_message_loading=kind == 5,
                response_message_ephemeral=bool(int(message.get("flags") or 0) & EPHEMERAL),
            )
            response["resource"]["message"] = message
        return response

    def _interaction_by_token(
        self, rec: RecordedRequest, application_id: str, token: str
    ) -> InteractionRecord:
        inter = self._by_token.get(token)
        if inter is None or int(application_id) != self.application_id:
            self._violate(
                Violation(
                    "unknown_webhook",
                    "webhook request with an unknown token",
                    10015,
                    rec.method,
                    rec.path,
                )
            )
            raise ApiError(404, 10015, "Unknown Webhook")
        if asyncio.get_running_loop().time() - inter.dispatched_at > self.token_lifetime:
            self._violate(
                Violation(
                    "token_expired",
                    "interaction token used after 15 minutes",
                    50027,
                    rec.method,
                    rec.path,
                    inter.id,
                )
            )
            raise ApiError(401, 50027, "Invalid Webhook Token")
        if inter.callback is None:
            self._violate(
                Violation(
                    "followup_before_ack",
                    "webhook request before the interaction was acknowledged",
                    10015,
                    rec.method,
                    rec.path,
                    inter.id,
                )
            )
            raise ApiError(404, 10015, "Unknown Webhook")
        return inter

    def _webhook_message(
        self, rec: RecordedRequest, application_id: str, token: str, message_id: str
    ) -> tuple[InteractionRecord, int]:
        inter = self._interaction_by_token(rec, application_id, token)
        if message_id == "@original":
            if inter.original_message_id is None:
                raise ApiError(404, 10008, "Unknown Message")
            return inter, inter.original_message_id
        mid = int(message_id)
        if mid not in inter.followup_ids and mid != inter.original_message_id:
            raise ApiError(404, 10008, "Unknown Message")
        if mid in self._deleted_messages:
            raise ApiError(404, 10008, "Unknown Message")
        return inter, mid

    def _followup(self, rec: RecordedRequest, application_id: str, token: str) -> Any:
        inter = self._interaction_by_token(rec, application_id, token)
        body = rec.json or {}
        original = inter.original_message_id
        if (
            original is not None
            and self._message_data[original].get("flags", 0) & LOADING
            and original not in self._deleted_messages
        ):
            # After a deferred (type 5) response the first followup fills the
            # "thinking" message; it keeps the defer's ephemerality.
            data = self._message_data[original]
            data["flags"] = int(data["flags"]) & ~LOADING
            data = self._edit_message(original, body, rec.files)
            data["edited_timestamp"] = None
            inter.events.append(("followup", body))
            inter.completed.set()
            if original not in self._ephemeral_owner:
                self._spawn_dispatch("MESSAGE_UPDATE", data)
        else:
            ephemeral = bool(int(body.get("flags") or 0) & EPHEMERAL)
            data = self._new_message(
                inter.channel,
                body,
                files=rec.files,
                interaction=inter,
                ephemeral_for=inter.user if ephemeral else None,
            )
            data["flags"] = int(data.get("flags") or 0) | (EPHEMERAL if ephemeral else 0)
            self._message_history[int(data["id"])][-1]["flags"] = data["flags"]
            inter.followup_ids.append(int(data["id"]))
            inter.events.append(("followup", body))
            inter.completed.set()
            if not ephemeral:
                self._spawn_dispatch("MESSAGE_CREATE", data)
        if rec.query.get("wait") in ("true", "1", "True"):
            return data
        return None

    # ------------------------------------------------------------------ acting as users

    def _interaction_base(
        self, kind: int, user: FakeUser, channel: FakeChannel, data: dict[str, Any]
    ) -> InteractionRecord:
        iid = self.snowflake()
        token = "itok-" + secrets.token_urlsafe(24)
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": kind,
            "data": data,
            "token": token,
            "version": 1,
            "channel": self._channel_payload(channel),
            "channel_id": str(channel.id),
            "locale": user.locale,
            "app_permissions": str(self._permissions_in(self.bot_user, channel)),
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if channel.guild_id is not None:
            guild = self.guilds[channel.guild_id]
            if user.id not in guild.member_ids:
                raise HarnessError(f"{user.name} is not a member of {guild.name}")
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": guild.locale, "features": []},
                guild_locale=guild.locale,
                member=self._member_payload(user, guild, channel),
                authorizing_integration_owners={"0": str(guild.id)},
                context=0,
            )
        else:
            payload.update(
                user=user.payload(), authorizing_integration_owners={"1": str(user.id)}, context=1
            )
        record = InteractionRecord(iid, token, kind, user, channel, payload)
        return record

    async def _run(
        self, record: InteractionRecord, *, expect_response: bool = True
    ) -> InteractionResult:
        shard = self._shard_for_event("INTERACTION_CREATE", record.payload)
        if shard not in self._shard_sessions:  # never identified; a disconnected bot gets
            await self.wait_connected(shard=shard)  # it on RESUME
        loop = asyncio.get_running_loop()
        first_violation = len(self.violations)
        self.interactions[record.id] = record
        self._by_token[record.token] = record
        record.dispatched_at = loop.time()
        await self.dispatch("INTERACTION_CREATE", record.payload)
        result = InteractionResult(self, record)
        # Wait for an accepted initial response; a rejected attempt (bad body, wrong
        # type) may be followed by a valid one, so keep waiting until the deadline.
        end = record.dispatched_at + self.deadline + self.grace
        while record.callback is None and loop.time() < end:
            record.callback_seen.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(record.callback_seen.wait(), end - loop.time())
            if record.callback is None and loop.time() - record.dispatched_at > self.deadline:
                break  # a late attempt was already rejected with 10062
        if record.callback is None and expect_response:
            self._violate(
                Violation(
                    "not_acknowledged",
                    f"no initial response within {self.deadline:.0f} s: the user sees "
                    "'This interaction failed'",
                    10062,
                    interaction_id=record.id,
                )
            )
        elif record.callback is not None and record.callback.get("type") == 6:
            # A deferred update needs no followup, but usually gets an edit soon.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(record.completed.wait(), self.deferred_update_wait)
        elif record.callback is not None and not record.completed.is_set():
            try:
                await asyncio.wait_for(record.completed.wait(), self.followup_timeout)
            except TimeoutError:
                self._violate(
                    Violation(
                        "deferred_never_completed",
                        f"deferred response not followed up within {self.followup_timeout} s",
                        interaction_id=record.id,
                    )
                )
        if self.settle_after_interaction:
            await self.settle()
        new = [
            (i, v)
            for i, v in enumerate(self.violations[first_violation:], start=first_violation)
            if i not in self._reported and v.interaction_id in (None, record.id)
        ]
        new += [
            (i, v)
            for i, v in enumerate(self.violations)
            if i not in self._reported and v.interaction_id == record.id and i < first_violation
        ]
        if new:
            self._reported.update(i for i, _ in new)
            result.violations = [v for _, v in new]
            raise ViolationError(result.violations, result)
        return result

    def _find_command(
        self, channel: FakeChannel, name: str, user: FakeUser
    ) -> tuple[dict[str, Any], bool]:
        candidates: list[tuple[dict[str, Any], bool]] = []
        if channel.guild_id is not None:
            candidates += [(c, True) for c in self.guild_commands.get(channel.guild_id, [])]
        candidates += [(c, False) for c in self.global_commands]
        for command, is_guild in candidates:
            if command["name"] == name and int(command.get("type") or 1) == 1:
                if channel.is_dm:
                    contexts = command.get("contexts")
                    if (contexts is not None and 1 not in contexts) or command.get(
                        "dm_permission"
                    ) is False:
                        raise HarnessError(f"/{name} is not available in DMs")
                needed = command.get("default_member_permissions")
                if needed is not None and channel.guild_id is not None:
                    has = self._permissions_in(user, channel)
                    if has & int(needed) != int(needed):
                        raise HarnessError(f"{user.name} does not see /{name} (permissions)")
                return command, is_guild
        raise HarnessError(f"/{name} is not a synced command here (the bot must sync it first)")

    def _command_data(
        self,
        user: FakeUser,
        channel: FakeChannel,
        name: str,
        options: dict[str, Any],
        focused: str | None,
    ) -> dict[str, Any]:
        words = name.split()
        command, is_guild = self._find_command(channel, words[0], user)
        resolved: dict[str, dict[str, Any]] = {}
        definition = command
        top: list[dict[str, Any]] = []
        holder = top
        for word in words[1:]:
            sub = next(
                (
                    o
                    for o in definition.get("options") or []
                    if o["name"] == word and o["type"] in (1, 2)
                ),
                None,
            )
            if sub is None:
                raise HarnessError(f"/{name}: no subcommand {word!r}")
            inner: list[dict[str, Any]] = []
            holder.append({"name": word, "type": sub["type"], "options": inner})
            holder, definition = inner, sub
        defined = {o["name"]: o for o in definition.get("options") or [] if o["type"] not in (1, 2)}
        if any(o["type"] in (1, 2) for o in definition.get("options") or []):
            raise HarnessError(f"/{name} needs a subcommand")
        for key, value in options.items():
            if key not in defined:
                raise HarnessError(f"/{name} has no option {key!r} (it has {sorted(defined)})")
            option = defined[key]
            holder.append(self._option_value(option, value, resolved, channel, focused == key))
        if focused is not None and focused not in options:
            raise HarnessError(f"the focused option {focused!r} needs a (partial) value")
        if focused is None:
            missing = [n for n, o in defined.items() if o.get("required") and n not in options]
            if missing:
                raise HarnessError(f"/{name} is missing required options {missing}")
        data: dict[str, Any] = {"id": command["id"], "name": words[0], "type": 1}
        if top:
            data["options"] = top
        if is_guild:
            data["guild_id"] = command["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return data

    def _option_value(
        self,
        option: dict[str, Any],
        value: Any,
        resolved: dict[str, dict[str, Any]],
        channel: FakeChannel,
        focused: bool,
    ) -> dict[str, Any]:
        kind = option["type"]
        out: dict[str, Any] = {"name": option["name"], "type": kind}
        if focused:
            if not option.get("autocomplete"):
                raise HarnessError(f"option {option['name']!r} has no autocomplete")
            out.update(value=str(value), focused=True)
            return out
        if kind == 6:  # user
            if not isinstance(value, FakeUser):
                raise HarnessError(f"option {option['name']!r} takes a FakeUser")
            resolved.setdefault("users", {})[str(value.id)] = value.payload()
            if channel.guild_id is not None:
                member = self._member_payload(value, self.guilds[channel.guild_id], channel)
                member.pop("user")
                resolved.setdefault("members", {})[str(value.id)] = member
            out["value"] = str(value.id)
        elif kind == 7:  # channel
            if not isinstance(value, FakeChannel):
                raise HarnessError(f"option {option['name']!r} takes a FakeChannel")
            ch = self._channel_payload(value)
            resolved.setdefault("channels", {})[str(value.id)] = {
                **ch,
                "permissions": str(self._permissions_in(self.bot_user, value)),
            }
            out["value"] = str(value.id)
        elif kind == 8:  # role
            if not isinstance(value, FakeRole):
                raise HarnessError(f"option {option['name']!r} takes a FakeRole")
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            out["value"] = str(value.id)
        else:
            types: dict[int, type | tuple[type, ...]] = {3: str, 4: int, 5: bool, 10: (int, float)}
            expected = types[kind]
            if not isinstance(value, expected) or (kind == 4 and isinstance(value, bool)):
                raise HarnessError(f"option {option['name']!r} takes {expected}, not {value!r}")
            choices = option.get("choices")
            if choices and value not in [c["value"] for c in choices]:
                raise HarnessError(
                    f"{value!r} is not one of the choices of {option['name']!r}: {choices}"
                )
            if kind in (4, 10):
                if "min_value" in option and value < option["min_value"]:
                    raise HarnessError(f"{value} is below the minimum of {option['name']!r}")
                if "max_value" in option and value > option["max_value"]:
                    raise HarnessError(f"{value} is above the maximum of {option['name']!r}")
            out["value"] = value
        return out

    async def slash(
        self, user: FakeUser, channel: FakeChannel, name: str, /, **options: Any
    ) -> InteractionResult:
        """Run ``/name`` (``"game start"`` for a subcommand) as ``user`` in ``channel``.

        The first three are positional-only, so options may be named user/channel/name."""
        data = self._command_data(user, channel, name, options, None)
        return await self._run(self._interaction_base(2, user, channel, data))

    async def autocomplete(
        self, user: FakeUser, channel: FakeChannel, name: str, /, focused: str, **options: Any
    ) -> list[dict[str, Any]]:
        """Type into option ``focused`` of ``/name``; returns the offered choices."""
        data = self._command_data(user, channel, name, options, focused)
        result = await self._run(self._interaction_base(4, user, channel, data))
        if result.callback_type != 8:
            raise HarnessError(f"autocomplete answered with callback type {result.callback_type}")
        return result.choices

    def _message_for(self, user: FakeUser, message: FakeMessage | int) -> FakeMessage:
        msg = message if isinstance(message, FakeMessage) else self.message(message)
        if msg.deleted:
            raise HarnessError(f"{msg!r} was deleted")
        owner = msg.visible_to
        if owner is not None and owner != user.id:
            raise HarnessError(f"{user.name} cannot see the ephemeral message {msg.id}")
        channel = self.channels[msg.channel_id]
        if channel.is_dm and channel.recipient is not user:
            raise HarnessError(f"{user.name} cannot see a DM of {channel.recipient}")
        return msg

    def _component_payload(
        self, user: FakeUser, msg: FakeMessage, data: dict[str, Any]
    ) -> InteractionRecord:
        channel = self.channels[msg.channel_id]
        record = self._interaction_base(3, user, channel, data)
        record.payload["message"] = json.loads(json.dumps(msg.data))
        record.message_id = msg.id
        return record

    async def click(
        self, user: FakeUser, message: FakeMessage | int, button: str
    ) -> InteractionResult:
        """Click the button whose custom_id or label is ``button``."""
        msg = self._message_for(user, message)
        found = [b for b in msg.buttons() if b.get("custom_id") == button] or [
            b for b in msg.buttons() if b.get("label") == button
        ]
        if len(found) != 1:
            raise HarnessError(
                f"{len(found)} buttons match {button!r}; the message has {msg.button_labels()}"
            )
        target = found[0]
        if target.get("disabled"):
            raise HarnessError(f"button {button!r} is disabled")
        if target.get("style") in (5, 6) or not target.get("custom_id"):
            raise HarnessError(
                f"button {button!r} is a link/premium button, nothing is sent to the bot"
            )
        data = {"custom_id": target["custom_id"], "component_type": 2}
        return await self._run(self._component_payload(user, msg, data))

    async def forge_click(
        self, user: FakeUser, message: FakeMessage | int, custom_id: str
    ) -> InteractionResult:
        """A button interaction carrying any ``custom_id`` on a message the user can see,
        as a tampered client could send; the bot must refuse it with a sentence."""
        msg = self._message_for(user, message)
        data = {"custom_id": custom_id, "component_type": 2}
        return await self._run(self._component_payload(user, msg, data))

    async def select(
        self, user: FakeUser, message: FakeMessage | int, select: str, values: list[str]
    ) -> InteractionResult:
        """Choose ``values`` in the select whose custom_id (or placeholder) is ``select``."""
        return await self._select(user, message, select, values, forged=False)

    async def forge_select(
        self, user: FakeUser, message: FakeMessage | int, select: str, values: list[str]
    ) -> InteractionResult:
        """Send ``values`` that are not among the select's options, as a tampered client
        could; the bot must refuse them with a sentence."""
        return await self._select(user, message, select, values, forged=True)

    async def _select(
        self,
        user: FakeUser,
        message: FakeMessage | int,
        select: str,
        values: list[str],
        *,
        forged: bool,
    ) -> InteractionResult:
        msg = self._message_for(user, message)
        found = [s for s in msg.selects() if s.get("custom_id") == select] or [
            s for s in msg.selects() if s.get("placeholder") == select
        ]
        if len(found) != 1:
            raise HarnessError(f"{len(found)} selects match {select!r}")
        target = found[0]
        if target.get("disabled"):
            raise HarnessError(f"select {select!r} is disabled")
        low, high = target.get("min_values", 1), target.get("max_values", 1)
        if not low <= len(values) <= high:
            raise HarnessError(f"select {select!r} takes {low} to {high} values, not {len(values)}")
        data: dict[str, Any] = {
            "custom_id": target["custom_id"],
            "component_type": target["type"],
            "values": list(values),
        }
        if target["type"] == 3 and not forged:
            offered = [o["value"] for o in target.get("options") or []]
            bad = [v for v in values if v not in offered]
            if bad:
                raise HarnessError(f"{bad} are not options of {select!r} ({offered})")
        return await self._run(self._component_payload(user, msg, data))

    async def submit_modal(
        self, user: FakeUser, opened_by: InteractionResult, values: dict[str, str]
    ) -> InteractionResult:
        """Fill in and submit the modal that ``opened_by`` answered with (callback type 9)."""
        modal = opened_by.modal
        if modal is None:
            raise HarnessError("that interaction did not open a modal")
        if opened_by.record.user is not user:
            raise HarnessError("only the user who opened a modal can submit it")
        rows: list[dict[str, Any]] = []
        inputs = [c for c in walk_components(modal.get("components") or []) if c.get("type") == 4]
        known = {c["custom_id"] for c in inputs}
        unknown = set(values) - known
        if unknown:
            raise HarnessError(
                f"the modal has no inputs {sorted(unknown)} (it has {sorted(known)})"
            )
        for c in inputs:
            if c.get("required", True) and not values.get(c["custom_id"], c.get("value")):
                raise HarnessError(f"input {c['custom_id']!r} is required")
        for row in modal.get("components") or []:
            if row.get("type") == 1:
                children = [
                    {
                        "type": 4,
                        "custom_id": c["custom_id"],
                        "value": values.get(c["custom_id"], c.get("value") or ""),
                    }
                    for c in row.get("components") or []
                    if c.get("type") == 4
                ]
                rows.append({"type": 1, "components": children})
            elif row.get("type") == 18 and (row.get("component") or {}).get("type") == 4:
                c = row["component"]
                rows.append(
                    {
                        "type": 18,
                        "component": {
                            "type": 4,
                            "custom_id": c["custom_id"],
                            "value": values.get(c["custom_id"], c.get("value") or ""),
                        },
                    }
                )
        data = {"custom_id": modal["custom_id"], "components": rows}
        parent = opened_by.record
        record = self._interaction_base(5, user, parent.channel, data)
        if parent.message_id is not None:
            record.payload["message"] = json.loads(
                json.dumps(self._message_data[parent.message_id])
            )
            record.message_id = parent.message_id
        return await self._run(record)


_MESSAGE_BODY = re.compile(
    r"^/(channels/\d+/messages(/\d+)?|webhooks/\d+/[^/]+(/messages/[^/]+)?)$"
)
_CALLBACK = re.compile(r"^/interactions/\d+/[^/]+/callback$")


def _limit_problems(method: str, path: str, body: Any) -> list[limits.Problem]:
    """Discord's limits for the message, modal or choices in a request body."""
    if not isinstance(body, dict) or method not in ("POST", "PATCH"):
        return []
    if _MESSAGE_BODY.match(path):
        return limits.check_message(body)
    if _CALLBACK.match(path):
        kind, data = body.get("type"), body.get("data") or {}
        if not isinstance(data, dict):
            return []
        if kind in (4, 7):
            return limits.check_message(data, "data/")
        if kind == 8:
            return limits.check_autocomplete(data)
        if kind == 9:
            return limits.check_modal(data)
    return []


def _spec_exception(method: str, template: str, problem: str) -> bool:
    return any(
        m == method and t == template and fragment in problem
        for m, t, fragment, _ in SPEC_EXCEPTIONS
    )
