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

This module holds :class:`FakeDiscord` itself: starting and stopping the server, pointing
discord.py at it, and running bots in this process or in their own. The rest is one
mixin per area, each module building on the ones before it:

* ``state.py``: the state, the settings, waiting (``settle``), permissions and payloads;
* ``rest.py``: every REST request's way through the fake (faults, limits, holds, routing);
* ``faults.py``: the fault and limit switches (``inject``, ``rest_outage``, ``rest_stats``);
* ``gateway.py``: the websocket (zlib-stream), IDENTIFY/RESUME, shards and dispatching;
* ``guilds.py``: setting up guilds, channels, roles and users; reading them by REST;
* ``messages.py``: channel messages, edits, attachments, DMs, and reading what users see;
* ``threads.py``: channels and threads as the bot changes them;
* ``commands.py``: synced application commands, and a slash command's data;
* ``interactions.py``: users acting (slash, click, select, modal), the bot's callbacks and
  followups, the 3 s deadline;
* ``oauth.py``: OAuth2 for an Activity's server (``fake.oauth``: a code for a user, the
  token exchange, ``GET /users/@me`` with a bearer token).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

import discord
import yarl
from aiohttp import web

from .faults import FaultsMixin
from .gateway import GATEWAY_PATH
from .guilds import GuildsMixin
from .interactions import InteractionsMixin
from .model import HarnessError
from .oauth import FakeOAuth
from .rest import API_PREFIX, JSON, SPEC_EXCEPTIONS, ApiError, json_response
from .spec import PROJECT_ROOT
from .state import (
    ALL_PERMISSIONS,
    BOT_PERMISSIONS,
    EVERYONE_PERMISSIONS,
    HANDLER_TASKS,
    VIEW_CHANNEL,
    bot_handlers,
)
from .threads import ThreadsMixin

__all__ = [  # the names that were defined here before the split, still importable here
    "ALL_PERMISSIONS",
    "API_PREFIX",
    "BOT_PERMISSIONS",
    "EVERYONE_PERMISSIONS",
    "GATEWAY_PATH",
    "HANDLER_TASKS",
    "JSON",
    "SPEC_EXCEPTIONS",
    "VIEW_CHANNEL",
    "ApiError",
    "FakeDiscord",
    "bot_handlers",
    "json_response",
]

ClientT = TypeVar("ClientT", bound=discord.Client)


def _kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGKILL a bot process started in its own session, and everything in its group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()


class FakeDiscord(InteractionsMixin, ThreadsMixin, GuildsMixin, FaultsMixin):
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
        super().__init__(
            token=token,
            validate_spec=validate_spec,
            spec_path=spec_path,
            shard_count=shard_count,
            max_concurrency=max_concurrency,
            fault_seed=fault_seed,
        )
        self.guild = self.add_guild("Test Server", owner=self.owner)
        self.channel = self.add_channel("general")
        self.oauth = FakeOAuth(self)
        """The application's OAuth2 (the Activity's sign-in)."""
        self._register_routes()

    def _register_routes(self) -> None:
        """Each area's routes (a request is served by the first route that matches)."""
        self._gateway_routes()
        self._guild_routes()
        self._command_routes()
        self._interaction_routes()
        self._thread_routes()
        self._message_routes()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("GET", GATEWAY_PATH, self._gateway_handler)
        # GET /gateway/bot gives the URL without the slash (AutoShardedClient connects there)
        app.router.add_route("GET", GATEWAY_PATH.rstrip("/"), self._gateway_handler)
        self.oauth.routes(app, self._rest_handler)  # ahead of the REST catch-all
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
        settle: bool = True,
    ) -> asyncio.subprocess.Process:
        """Start ``python script args`` in a new process against this fake (see run_bot.py)
        and wait until it has identified and gone quiet. The token is in DISCORD_TOKEN;
        output goes to ``fake.process_logs[pid]``.

        ``shards``: the shard ids the process runs; it counts as connected once each of
        them got a new READY (``None``: once any shard did). ``settle=False``: return once
        connected, without waiting for every bot to go quiet (a load that never stops)."""
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
        if settle:
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
