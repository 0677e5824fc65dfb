"""Entry point: settings, logging, storage, cogs, command sync, run.

    python bot.py          (or ./dev run)
    python bot.py --check  (or ./dev check: the settings, the database, the token, each
                           server's permissions, the invite link; cogs/helpers/check.py)

Reads its settings (DISCORD_TOKEN, DATABASE_URL, DISCORD_GUILD_ID, …) from the
environment or .env, each with its range in one place (``cogs/helpers/config.py``;
``.env.example`` describes each); ``--check`` refuses the same values with the same
sentences, and also looks at the database (read only).

A person's mistake stops it with a sentence on stderr and status 1, never a traceback: a
malformed setting (:meth:`Settings.from_env`), a database it cannot use (opened before
connecting, :func:`serve`), a token Discord refuses, Discord out of reach, a
``DISCORD_GUILD_ID`` of a server the bot is not in (:class:`StartupError`).

Stopping
--------
SIGINT (Ctrl-C) or SIGTERM stops the bot gracefully (:func:`serve`,
``WorkshopBot.shutdown``): interactions that still arrive are answered "the bot is
restarting", the handlers and background work under way finish (at most
``SHUTDOWN_GRACE_SECONDS``), then the computer players, the Discord session and storage
close, and the process exits with status 0. A second signal skips the wait. Cogs start
background work with ``bot.background(coroutine, name)`` so that the stop waits for it
(``cogs/helpers/gates.py`` explains the gates: the work tracked, the flood guard, the REST budget).

Several processes, one bot
--------------------------
The bot is a discord.py ``AutoShardedBot``. Without ``SHARD_COUNT`` one process runs every
shard Discord recommends (one, for a bot in fewer than 2,500 servers). With
``SHARD_COUNT=N`` and ``SHARD_IDS=0-3`` (or ``4,5,6,7``) a process runs only those shards,
so N shards can be spread over several processes or machines sharing one database
(``DATABASE_URL=postgresql://…``). Discord sends a server's events to the shard that owns
it and every DM to shard 0, so any process may get an interaction for any game: the cogs
keep nothing another process would need (see ``docs/scaling.md``).

Slash commands are synced by one process only: the first to claim the hash of its
command tree in storage (``try_claim``) syncs; the others, running the same tree, skip.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import hashlib
import json
import logging
import os
import secrets
import signal
import socket
import sys
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import discord
import yarl
from discord.ext import commands
from dotenv import load_dotenv

import storage
from cogs import EXTENSIONS
from cogs.helpers.activity import entry_points, flood_refusal
from cogs.helpers.check import (
    ACTIVITY_BUNDLE,
    REFUSED_TOKEN,
    UNREACHABLE,
    activity_sentence,
    run_check,
    server_error_sentence,
    unreachable_sentence,
    web_sentence,
)
from cogs.helpers.config import Settings
from cogs.helpers.desk import Desk
from cogs.helpers.gates import Door, FloodGuard, RestBudget, Work, budgeted
from cogs.helpers.host import Host
from cogs.helpers.language import Languages
from cogs.helpers.logs import setup_logging
from cogs.helpers.permissions import invite_url, listed, missing
from cogs.helpers.thread import ThreadPublisher
from cogs.settings import CatalogueTranslator
from tables import drawing, workers
from tables.computers import Computers
from tables.core import Core
from tables.metrics import Metrics
from tables.service import Tables
from web.activity import ActivityOptions
from web.health import Health
from web.server import ProbeServer, WebServer

log = logging.getLogger("bot")

GC_YOUNG = 20_000
"""New objects between two young garbage collections (Python's default: 700)."""

T = TypeVar("T")

NO_TOKEN_HELP = f"""\
No DISCORD_TOKEN is set.

To run the bot on Discord (README: "Add the bot to your server"):
  1. Open https://discord.com/developers/applications and create an application.
     Its Application ID is under "General Information".
  2. Under "Bot", press "Reset Token" and copy the token. No privileged intent is
     needed: leave the three "Privileged Gateway Intents" off.
  3. Put it in a file named .env beside bot.py:   DISCORD_TOKEN=your-token
     (.env.example lists every setting.)
  4. Add the bot to your server: open this link with APPLICATION_ID replaced by the id
     from step 1 (it asks for exactly the permissions the bot needs):
     {invite_url("APPLICATION_ID")}
     (./dev check, once the token is in .env, prints the link with your id filled in,
     and then checks each server's permissions.)
  5. Run this command again.

To try the games offline, in this terminal, with no token:
  ./dev play workshop 3      Santa's Workshop, you against 2 random players
  ./dev play tonttu 4        Workshop Tonttu, you against 3 random players
"""


IDENTIFY_INTERVAL = 5.0
"""Discord accepts ``max_concurrency`` IDENTIFYs per 5 seconds (one per rate-limit bucket,
``shard_id % max_concurrency``)."""
SYNC_CLAIM_LEASE = 600.0
"""How long one process's claim to sync a command tree keeps the others from syncing it."""
START_STOP_WAIT = 5.0
"""Seconds the connection gets to wind down after a graceful stop closed it."""
READY_DB_WITHIN = 2.0
"""Seconds the database gets to answer ``/readyz``'s query."""


class StartupError(Exception):
    """A mistake in the settings that shows only once connected to Discord (e.g. a
    ``DISCORD_GUILD_ID`` of a server the bot is not in); ``str()`` is the sentence."""


def process_name() -> str:
    """Who holds a claim: this host and process (for the logs and for storage leases)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


class WorkshopBot(Host):
    """The bot: storage, the publisher (:meth:`open_storage`), the game service, the table
    core and the desk (``setup_hook``) are opened before the extensions are loaded."""

    settings: Settings

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        new_seed: Callable[[], int] | None = None,
        computers: Computers | None = None,
    ) -> None:
        # Only the guilds intent: interactions come without any, and the bot reads no
        # messages (with the default intents every post and edit of its own would come
        # back as a MESSAGE_CREATE/UPDATE event, parsed for nothing).
        shards: dict[str, Any] = {"shard_count": settings.shard_count}
        if settings.shard_ids is not None:
            shards["shard_ids"] = list(settings.shard_ids)
        self.metrics = Metrics(enabled=False)
        """Counted once something serves them (:meth:`start_web`)."""
        self.budget = RestBudget(settings.rest_budget_per_second)
        self.budget.on_wait = self.metrics.budget_waited
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents(guilds=True),
            http_trace=self.budget.trace(self._budgeted, self.metrics),
            **shards,
        )
        self.work = Work()
        self.stopping = asyncio.Event()
        """Set when the bot begins to stop: background work ends at its next pause."""
        self.languages = Languages(self._guild_locale)
        self.door = Door(
            self,
            self.work,
            FloodGuard(settings.flood_burst, settings.flood_per_second),
            self.languages.seen,
            self.metrics,
        )
        self.settings = settings
        self.clock = clock
        self.new_seed = new_seed
        self.computers = computers or Computers(settings.ai_workers)
        self.computers.metrics = self.metrics
        self.web: WebServer | None = None
        """The tables' pages, when ``WEB_PORT`` is set (:meth:`start_web`)."""
        self.probes: ProbeServer | None = None
        """``/healthz``, ``/readyz`` and ``/metrics`` alone, on ``METRICS_PORT``."""
        self.owner_name = process_name()
        self._identify_buckets: dict[int, float] = {}
        self._max_concurrency: int | None = None

    async def setup_hook(self) -> None:
        drawing.start()  # the picture worker process starts while we connect
        self.computers.start()  # and the computer players' workers
        await self.open_storage()
        self.languages.store = self.store
        # Games that finished while no process could rate them (or before ratings
        # existed: 10,000 take seconds) are rated in the background, a batch per
        # transaction; each game is rated once whichever process does it.
        self.work.spawn(self.rate_unrated_games(), "rate-finished-games")
        self.tables = Tables(
            self.store, clock=self.clock, computers=self.computers, metrics=self.metrics
        )
        if self.new_seed is not None:
            self.tables.new_seed = self.new_seed
        self.core = Core(
            self.store, self.tables, self.publisher, clock=self.clock, stopping=self.stopping
        )
        self.desk = Desk(
            self,
            self.core,
            self.publisher,
            self.languages,
            web_base_url=self.settings.web_base_url,
        )
        await self.start_web()
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        await self.tree.set_translator(CatalogueTranslator())
        await self.sync_commands()
        # What is loaded by now (modules, classes, functions, catalogues: most of the
        # objects the garbage collector tracks) lives as long as the process: moved out
        # of its generations, a full collection (a pause of every table's answers) walks
        # only what the games create. (Garbage first.)
        gc.collect()
        gc.freeze()
        # A young collection every GC_YOUNG new objects, not Python's 700: under load
        # each one caught the objects of the clicks in flight and moved them to the
        # older generations, whose collections then walked them again (5 s of the
        # bot_latency benchmark: about 45 young, 4 middle and 1 full collection, 200 ms
        # in all; with 20,000: one young collection, 30 ms). Cycles (discord.py's views,
        # interactions and their answers) wait a little longer: a few megabytes.
        gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])
        if self.application_id is not None:
            log.info(
                "add the bot to a server (with the permissions it needs) by opening %s",
                invite_url(self.application_id),
            )

    def _guild_locale(self, guild_id: int) -> object:
        guild = self.get_guild(guild_id)
        return guild.preferred_locale if guild is not None else None

    async def rate_unrated_games(self) -> None:
        try:
            rated = await self.store.rate_finished_games()
        except Exception:  # logged; the next finished game's pass takes them again
            log.exception("ratings: rating the finished games not rated yet failed")
            return
        if rated:
            log.info("ratings: rated %d finished games not rated before", rated)

    async def open_storage(self) -> None:
        """Open (and migrate) the database, unless :func:`serve` opened it already: it
        does so before connecting, so a database it cannot use stops the bot at once."""
        if not hasattr(self, "store"):
            self.store = await storage.open(self.settings.database_url)
            self.publisher = ThreadPublisher(
                self,
                self.store,
                owner=self.owner_name,
                spawn=self.work.spawn,
                stopping=self.stopping,
                lang_of=self.languages.of_guild,
                metrics=self.metrics,
            )

    async def start_web(self) -> None:
        """The tables' pages (``WEB_PORT``), told at once of the moves this process
        stores; another process's are found by their version. Health, readiness and the
        metrics are served with them, or alone on ``METRICS_PORT`` (on both if both)."""
        port, alone = self.settings.web_port, self.settings.metrics_port
        if port is None and alone is None:
            return
        self.metrics.enabled = True
        self.metrics.games = self.store.count_open_games
        self.metrics.shards = self.shard_states
        health = Health(self.metrics, self.readiness)  # one heartbeat for both
        if alone is not None:
            self.probes = ProbeServer(health, host=self.settings.web_host, port=alone)
            try:
                await self.probes.start()
            except OSError as error:
                self.probes = None
                raise StartupError(
                    f"The metrics cannot listen on {self.settings.web_host}:{alone} ({error}): "
                    "is another program using that port? Choose another METRICS_PORT, or "
                    "empty it."
                ) from None
        if port is None:
            return
        self.web = WebServer(
            self.store,
            self.core.pictures,
            host=self.settings.web_host,
            port=port,
            language_of=self.languages.of_guild,
            health=health,
            activity=self.activity_options(),
        )
        try:
            port = await self.web.start()
        except OSError as error:
            self.web = None
            raise StartupError(
                f"The web pages cannot listen on {self.settings.web_host}:{port} ({error}): "
                "is another program using that port? Choose another WEB_PORT, or empty it "
                "to run without web pages."
            ) from None
        self.publisher.watchers.append(self.web.live.poke)
        address = self.settings.web_address or f"http://{self.settings.web_host}:{port}"
        log.info("web pages: every game's page is %s/g/<its token>", address)
        if self.web.activity.on:
            log.info("the Discord Activity: %s/activity/", address)

    def activity_options(self) -> ActivityOptions | None:
        """The Discord Activity's, with both ``DISCORD_CLIENT_ID`` and
        ``DISCORD_CLIENT_SECRET`` (``docs/activity.md``; else off): its moves shown in
        the thread by ``Core.publish_move``, in work a graceful stop waits for."""
        client_id, secret = self.settings.client_id, self.settings.client_secret
        if not client_id or not secret:
            return None
        return ActivityOptions(
            client_id=client_id,
            client_secret=secret,
            tables=self.tables,
            publish=self.core.publish_move,
            spawn=self.background,
            flood=flood_refusal(self.door.flood),
            api=discord.http.Route.BASE,  # Discord's (a test's fake: patched)
            bot_token=self.settings.token,
        )

    def shard_states(self) -> dict[int, bool]:
        """Each shard of this process: connected to the gateway or not."""
        return {shard: not info.is_closed() for shard, info in self.shards.items()}

    async def readiness(self) -> str | None:
        """Why this process cannot serve its shards' players now (``None``: it can):
        ``/readyz``. Its shards are connected, and the database answers a cheap query."""
        if self.stopping.is_set():
            return "the bot is stopping"
        down = sorted(shard for shard, up in self.shard_states().items() if not up)
        if not self.is_ready() or not self.shards or down:
            shards = f" (shard {', '.join(map(str, down))})" if down else ""
            return f"not connected to Discord's gateway{shards}"
        try:
            await asyncio.wait_for(self.store.next_due_at(), READY_DB_WITHIN)
        except Exception as error:  # what the database said, in one line
            return f"the database does not answer: {error!r}"[:300]
        return None

    async def on_shard_disconnect(self, shard_id: int) -> None:
        self.metrics.disconnected(shard_id)

    async def sync_commands(self) -> bool:
        """Sync the slash commands unless another process already synced this very tree;
        returns whether this process synced."""
        guild = discord.Object(id=self.settings.guild_id) if self.settings.guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        translator = self.tree.translator
        tree = [
            await command.get_translated_payload(self.tree, translator)
            if translator is not None
            else command.to_dict(self.tree)
            for command in self.tree.get_commands(guild=guild)
        ]  # a changed translation is a changed tree: synced again
        digest = hashlib.sha256(json.dumps([guild and guild.id, tree], sort_keys=True).encode())
        name = f"sync-commands:{digest.hexdigest()[:32]}"
        if not await self.store.try_claim(
            name, self.owner_name, timedelta(seconds=SYNC_CLAIM_LEASE)
        ):
            log.info("commands: another process synced this command tree; skipping")
            return False
        try:
            app = self.application_id
            assert app is not None  # known once logged in
            kept = [] if guild else await entry_points(self.http.get_global_commands, app)
            if kept:  # a bulk overwrite must name it too, or Discord refuses it (50240)
                count = len(
                    await self.http.bulk_upsert_global_commands(app, payload=[*tree, *kept])
                )
            else:
                count = len(await self.tree.sync(guild=guild))
        except Exception as error:
            # give the claim back at once, so the next start syncs instead of skipping
            await self.store.try_claim(name, self.owner_name, timedelta(0))
            if guild is not None and isinstance(error, discord.Forbidden):
                raise StartupError(
                    f"DISCORD_GUILD_ID is {guild.id}, but Discord does not let the bot add "
                    f"its commands to that server ({error.text}): is the bot in it? Add it "
                    "with the invite link (./dev check prints it), or correct or empty "
                    "DISCORD_GUILD_ID."
                ) from None
            raise
        log.info("synced %d commands", count)
        return True

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Discord allows ``max_concurrency`` IDENTIFYs per 5 s, one per bucket
        (``shard_id % max_concurrency``); discord.py's default waits 5 s before every
        IDENTIFY but the first, so a process with many shards starts faster like this.
        (Processes do not coordinate: Discord answers a too-early IDENTIFY with an
        INVALID_SESSION, and discord.py then identifies again.)"""
        if self._max_concurrency is None:
            limits = await self.fetch_session_start_limits()
            self._max_concurrency = max(1, limits.max_concurrency)
        bucket = (shard_id or 0) % self._max_concurrency
        loop = asyncio.get_running_loop()
        last = self._identify_buckets.get(bucket)
        if last is not None:
            await asyncio.sleep(max(0.0, last + IDENTIFY_INTERVAL - loop.time()))
        self._identify_buckets[bucket] = loop.time()

    async def on_ready(self) -> None:
        shards = sorted(self.shards)
        log.info(
            "ready as %s in %d servers (shards %s of %s)",
            self.user,
            len(self.guilds),
            ",".join(map(str, shards)),
            self.shard_count,
        )
        for guild in self.guilds:
            lacking = missing(guild.me.guild_permissions) if guild.me is not None else []
            if lacking:
                log.warning(
                    "server %s (%s): my roles do not give me %s; games there fail until a "
                    "server admin gives them (python bot.py --check lists every server)",
                    guild.name,
                    guild.id,
                    listed(lacking),
                )

    # ------------------------------------------------------------ work and stopping

    def _budgeted(self, url: yarl.URL) -> bool:
        return budgeted(url, discord.http.Route.BASE, self.application_id)

    def background(self, work: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]:
        """Run ``work`` in a task that a graceful stop waits for (:meth:`drain`). It must
        end by itself once :attr:`stopping` is set: wait with :meth:`pause`."""
        return self.work.spawn(work, name)

    async def drain(self, timeout: float | None = None) -> int:  # noqa: ASYNC109
        """Wait for the interaction handlers and background work under way (at most
        ``timeout`` s, default ``SHUTDOWN_GRACE_SECONDS``); returns how many still run."""
        grace = self.settings.shutdown_grace_seconds if timeout is None else timeout
        return await self.work.drain(grace)

    async def until_ready(self) -> bool:
        """Wait for READY; ``False`` at once if the bot begins to stop first (background
        work started before READY then ends, so a stop never waits for READY)."""
        ready = asyncio.ensure_future(self.wait_until_ready())
        stopping = asyncio.ensure_future(self.stopping.wait())
        try:
            await asyncio.wait({ready, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
            ready.cancel()
        if ready.done() and not ready.cancelled():
            ready.result()  # what it raised (a client that never logged in)
        return not self.stopping.is_set()

    async def pause(self, seconds: float) -> bool:
        """Sleep ``seconds``, unless the bot begins to stop: returns ``False`` at once then."""
        if self.stopping.is_set():
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)
            return False
        return True

    async def shutdown(self) -> None:
        """Stop gracefully: refuse new interactions ("restarting"), let what is under way
        finish (at most ``SHUTDOWN_GRACE_SECONDS``), then :meth:`close`."""
        if self.stopping.is_set():
            return
        self.door.closed = True
        self.stopping.set()
        if hasattr(self, "publisher"):
            self.publisher.flush_deferred()  # e.g. a board edit waiting to coalesce moves
        grace = self.settings.shutdown_grace_seconds
        left = await self.work.drain(grace)
        if left:
            log.warning("stopping: %d tasks still running after %.0f s are cancelled", left, grace)
        else:
            log.info("stopping: the work under way is done; closing")
        await self.close()

    async def close(self) -> None:
        """Close now: what still runs is cancelled first, so nothing meets a closed
        session; then the computer players, the cogs, the Discord session, storage."""
        self.door.closed = True
        self.stopping.set()
        if hasattr(self, "publisher"):
            await self.publisher.close()
        await self.work.cancel()
        await self.computers.close()  # decisions waiting for a worker are dropped
        if self.web is not None:
            await self.web.stop()
        if self.probes is not None:
            await self.probes.stop()
        await super().close()
        if hasattr(self, "store"):
            await self.store.close()


async def serve(bot: WorkshopBot, token: str) -> None:
    """Run ``bot`` until Discord closes it or SIGINT/SIGTERM stops it gracefully (a second
    signal skips the wait for work under way)."""
    loop = asyncio.get_running_loop()
    stopped = asyncio.Event()
    stopping: list[asyncio.Task[None]] = []

    async def stop() -> None:
        try:
            await bot.shutdown()
        finally:
            stopped.set()

    def on_signal(signum: int) -> None:
        name = signal.Signals(signum).name
        if not stopping:
            log.info(
                "%s: stopping; finishing the work under way (at most %.0f s; %s again to "
                "stop at once)",
                name,
                bot.settings.shutdown_grace_seconds,
                name,
            )
            stopping.append(loop.create_task(stop(), name="shutdown"))
        else:
            log.info("%s again: stopping at once", name)
            bot.work.hurry()

    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # Windows
            loop.add_signal_handler(signum, on_signal, signum)
    async with bot:
        await bot.open_storage()  # before connecting: a database it cannot use stops it now
        running = loop.create_task(bot.start(token), name="discord")
        done = loop.create_task(stopped.wait(), name="stopped")
        await asyncio.wait({running, done}, return_when=asyncio.FIRST_COMPLETED)
        done.cancel()
        if not running.done():  # stopped by a signal: the connection winds down
            await asyncio.wait({running}, timeout=START_STOP_WAIT)
        if not running.done():
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
        if stopping:
            await stopping[0]
        error = None if running.cancelled() else running.exception()
        if error is not None:
            raise error


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="bot.py",
        description="Run the Discord bot (settings: .env or the environment; see .env.example).",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="check the settings, the token and each server's permissions with Discord, "
        "print the invite link, and exit (0: ready; 1: what is wrong, in sentences)",
    )
    args = parser.parse_args(argv)
    load_dotenv()
    settings = Settings.from_env(os.environ)
    if not settings.token:
        print(NO_TOKEN_HELP, file=sys.stderr)
        return 2
    if args.check:
        try:
            web = web_sentence(
                settings.web_port,
                settings.web_host,
                settings.web_address,
                settings.web_base_url is not None,
            )
            return asyncio.run(
                run_check(
                    settings.token,
                    settings.guild_id,
                    web=web,
                    database_url=settings.database_url,
                    activity=activity_sentence(
                        settings.client_id,
                        settings.client_secret is not None,
                        settings.web_port,
                        settings.web_base_url,
                        built=ACTIVITY_BUNDLE.is_file(),
                    ),
                    client_id=settings.client_id,
                )
            )
        except KeyboardInterrupt:
            print("Check interrupted.", file=sys.stderr)
            return 130
    setup_logging(  # LOG_FORMAT's lines on stderr, no secret in them (tables/logs.py)
        settings.log_format,
        token=settings.token,
        database_url=settings.database_url,
        env=os.environ,
    )
    # The bot has no voice: discord.py's warnings that voice's libraries (PyNaCl, davey)
    # are missing would read as problems. These switches are its own, read once.
    discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
    bot = WorkshopBot(settings)
    try:
        asyncio.run(serve(bot, settings.token))
    except KeyboardInterrupt:  # where signal handlers cannot be set (Windows)
        pass
    except discord.LoginFailure:
        print(REFUSED_TOKEN, file=sys.stderr)
        return 1
    except storage.StorageError as error:  # not a database, from a newer bot, unreachable
        print(f"{error}\nThe bot did not start.", file=sys.stderr)
        return 1
    except StartupError as error:
        print(f"{error}\nThe bot did not start.", file=sys.stderr)
        return 1
    except discord.DiscordServerError as error:
        print(server_error_sentence(error), file=sys.stderr)
        return 1
    except UNREACHABLE as error:
        print(unreachable_sentence(error), file=sys.stderr)
        return 1
    finally:
        workers.stop_all()  # end the worker processes now, even half-started ones
    return 0


if __name__ == "__main__":
    status = main()
    # Python's exit waits, unbounded, for threads and child processes: not for long here
    workers.exit_within(workers.EXIT_WAIT, status, "The bot's process", "the bot stopped")
    sys.exit(status)
