"""The thread of every game, brought up to date with what storage holds.

A move is committed before anyone is told about it. What a game's thread shows is
therefore not pushed by the handler that made the move but *pulled* from storage:
:meth:`Publisher.sync` compares what the game's thread shows (recorded per game as
*marks*: the version its board shows, the version its log has been posted up to, the
version its last prompt was posted at, …) with the stored game, and posts or edits
what is missing. The same call serves every case:

- after a move, a timer or a computer's decision (the handler asks for a sync);
- at start-up and after a gateway reconnect (:meth:`Publisher.catch_up`): a move
  committed just before the process stopped is shown, and the player to act is
  mentioned, without anyone clicking;
- after a failed post (Discord down, a permission missing): the sync is tried again
  later, with a growing delay.

Exactly once. Posts carry a *nonce* derived from the game, what is posted and the
version (Discord's ``enforce_nonce``: a second post with the same nonce within a few
minutes returns the first message instead of a new one). Turn prompts and log lines go
out instead as followups of the last click in the thread while it is fresh
(:meth:`Publisher.followup`): Discord does not count interaction webhooks against the
bot's 50 requests per second, so a turn change costs one budgeted request (the board's
edit) instead of two. A followup has no nonce, so the round records it at once
(``Sync.save``), and a round that takes over a recorded intent first looks for the
followups posted after the newest message it knows (``Sync._posted_by_the_dead``).
Before posting log lines the publisher records its *intent* (the version the lines go
up to), so a publisher that dies mid-post is followed by one that posts exactly the
same messages with the same nonces; after posting, one write records what was posted
(the marks) with the timers the posts announced (``Sync.schedule``: a phase's or a
turn's reminder and turn limit, a race's close), and then the game's publishing claim
is given back. A round that dies before that write has recorded nothing, so the next
one does everything again, the timers included. Between processes a claim per game
(``try_claim(f"publish:{game}")``) lets one publisher at a time work on a game; a
process killed while holding it blocks that game's thread for at most
:data:`PUBLISH_LEASE`. When another round of the same game is asked for while one runs,
the claim is kept for it rather than given back and taken again.

Short. Every write waits in one queue (``storage/core.py``'s write lock) behind every
other table's moves, so what stands between a move and its post is kept to a few
single-statement writes: the claim (none when kept), the intent, and the reads of the
game and its log (the log read once per round); timers and marks come after the posts.

Frugal (Discord allows ~5 posts per channel per 5 s and 50 requests per second per
bot). Requests for a game that is being synced only ask for one more round when the
running one ends, so a burst of moves costs one round. The presenters decide what is
worth a request now and what can wait: the generic one (``cogs/table.py``) posts the
log with the next turn prompt, edits the board when the turn changes or the board is
two decisions behind, and leaves the rest to a *deferred* sync a few seconds later.
Each process also keeps every channel under :data:`POSTS_PER_WINDOW` posts per
:data:`POST_WINDOW` seconds by waiting (which coalesces more moves into the wait); in a
channel it has not posted in since it started and did not create, it first reads the
last few messages, since Discord counts the posts another process (or its own earlier
run) made there just before.

In one language. Public text (log, prompts, reminders, final scores, the board's
picture) is in the server's language (``Languages.of_guild``), read once per round
(:attr:`Sync.words`): a round's texts are made from the log as it posts them, so
nothing coalesced is kept in another language; the board pictures the table keeps are
keyed by language too.

Options weighed: publishing from each handler's own events (the way this bot worked
before: nothing to catch up from, and one post and edit per move); a queue of
messages to post stored in the database (exactly once too, but every text would be
made twice and stored; here the texts are made from the action log, which storage
keeps anyway).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import discord

import i18n
from cogs.common import DISCORD_DOWN
from cogs.gates import within
from engine import get_game, undo
from engine.words import Words
from storage import GameInfo, LoadedGame, LoggedAction, NewTimer

if TYPE_CHECKING:
    from bot import WorkshopBot

log = logging.getLogger("bot.publishing")

PUBLISH_LEASE = timedelta(seconds=4)
"""How long a game's publishing claim lasts unless renewed: a process killed while
syncing a game holds up that game's thread (after a restart, say) for at most this."""
RENEW_EVERY = 1.0
"""A round that takes longer (Discord slow, a rate limit) renews its claim this often."""
LEASE_MARGIN = 1.5
"""A claim kept for the next round is claimed again unless it has this long to run."""
LEASE_REUSE = PUBLISH_LEASE.total_seconds() - LEASE_MARGIN
RETRY_SECONDS = 0.01
POST_WINDOW = 5.5
"""Discord counts 5 per 5 s; the half second covers the time a post takes to arrive."""
POSTS_PER_WINDOW = 5
"""Discord's per-channel message limit: 5 new messages per 5 seconds."""
DISCORD_WINDOW = 5.0
RETRY_DELAYS = (1.0, 2.0, 3.0, 5.0)
"""After a failed sync: when to try again (the last one repeats, so a thread catches up
within seconds of an outage's end; a missing permission waits a minute instead)."""
CATCH_UP_CONCURRENCY = 8
"""Games caught up at once after a start (each waits for Discord's budgets anyway)."""
START_GRACE = 30.0
"""Seconds a game just started is left to the handler that started it before a catch-up
syncs it (:meth:`Publisher.opening`); then it is synced like any other."""
ANSWER_FRESH = 10 * 60.0
"""Seconds after a player's click during which the game's log lines and turn prompts may
go out as its followups (Discord keeps an interaction's token for 15 minutes)."""
FOLLOWUPS_PER_MINUTE = 25
"""Followups this process posts in one channel per minute at most; beyond, it posts
itself. Discord is reported to hold webhook messages, interaction followups included,
to about 30 a minute per channel (measured by users, not documented): a 429 there would
hold a prompt back, while a post of the bot's only spends its budget."""
FOLLOWUPS_KEPT = 256
"""Messages posted as followups, remembered by nonce: a round that failed after one and
runs again finds it instead of posting it twice (the nonce's job for a post)."""


TIMESTAMP = re.compile(r"<t:-?\d+(?::[tTdDfFR])?>")
"""Discord's timestamp markup (``discord.utils.format_dt``)."""


def nonce(*parts: object) -> str:
    """A message nonce for Discord's ``enforce_nonce`` (at most 25 characters)."""
    text = ":".join(map(str, parts)).encode()
    return hashlib.blake2b(text, digest_size=12).hexdigest()


class Sync:
    """One round of one game's sync: what it posts, and the marks recording it."""

    def __init__(
        self, publisher: Publisher, game: LoadedGame, flush: bool, lang: str = "en"
    ) -> None:
        self.publisher = publisher
        self.game = game
        self.flush = flush
        """Post what could otherwise wait (a deferred sync, a catch-up)."""
        self.lang = lang
        """The language code of the server's public text (``Languages.of_guild``): the
        pictures'."""
        self.words: Words = i18n.words(lang)
        """The words of everything this round posts: one language per server, read once
        per round, so a round's posts never mix two."""
        self.marks: dict[str, tuple[int | None, int]] = {}
        self.later: float | None = None
        """Seconds after which the game needs another (deferred) round, if any."""
        self.again = False
        """The game needs another round at once (e.g. a recovered intent was posted)."""
        self.timers: list[NewTimer] = []
        self.cancel: set[str] = set()
        """Timers to schedule (and kinds to cancel) with this round's marks, after its
        posts: a timer is never needed before the messages that announce it."""
        self._log: tuple[int, list[LoggedAction]] | None = None
        self.recovering = False
        """The round posts what an earlier one recorded its intent to post and may have
        posted (set by the presenter): :meth:`post` looks for its followups first."""
        self.unguarded = False
        """A followup went out this round: no nonce guards it against being posted again
        by a publisher that takes over, so its marks are written at once (:meth:`save`)."""
        self.asked_again = asyncio.Event()
        """Set when another round of the game is asked for while this one runs (a newer
        move came in): a tidy-up this round has not begun may be left to that round."""

    @property
    def shown(self) -> Mapping[str, int]:
        return self.game.shown_versions

    def mark(self, key: str, version: int, message_id: int | None = None) -> None:
        self.marks[key] = (message_id, version)

    def game_with_marks(self) -> LoadedGame:
        """The game as if this round's marks were stored already."""
        game = self.game
        messages = {**game.messages, **{k: m for k, (m, _) in self.marks.items() if m}}
        shown = {**game.shown_versions, **{k: v for k, (_, v) in self.marks.items()}}
        return replace(game, messages=messages, shown_versions=shown)

    async def mark_now(self, key: str, version: int, message_id: int | None = None) -> None:
        """Record a mark before going on (an intent: what the next posts will cover)."""
        await self.publisher.bot.store.set_marks(self.game.id, {key: (message_id, version)})

    async def save(self) -> None:
        """Write the round's marks, with its timers, before going on; the round's end
        writes them again (the same values: no harm)."""
        cancel = sorted(self.cancel)
        await self.publisher.bot.store.set_marks(
            self.game.id, self.marks, timers=self.timers, cancel=cancel
        )

    def schedule(self, *timers: NewTimer, cancel: Iterable[str] = ()) -> None:
        """Schedule ``timers`` (each replacing its kind's pending one) and cancel the
        pending timers of ``cancel`` with the round's marks. A round that dies before
        writing them wrote no marks either, so the next one does it all again."""
        self.timers = [t for t in self.timers if t.kind not in {n.kind for n in timers}]
        self.timers.extend(timers)
        self.cancel.update(cancel)

    def defer(self, seconds: float) -> None:
        self.later = seconds if self.later is None else min(self.later, seconds)

    @property
    def channel(self) -> discord.PartialMessageable:
        return self.publisher.channel(self.game)

    async def post(self, what: Any, *, answer: bool = False, **kwargs: Any) -> discord.Message:
        """Post in the game's thread, once: ``what`` names the message for its nonce.

        ``answer``: a message the bot never edits afterwards (log lines, a turn prompt)
        goes out as a followup of the last player's click in the thread while that is
        fresh (:meth:`Publisher.answered`): Discord does not count interaction webhooks
        against the bot's 50 requests per second."""
        channel_id = self.game.thread_id or self.game.channel_id
        if answer and self.recovering:
            found = await self._posted_by_the_dead(kwargs.get("content"))
            if found is not None:
                return found
        slot = await self.publisher.post_slot(channel_id)
        key = nonce(self.game.id, *what)
        try:
            if answer:
                message = await self.publisher.followup(self.game.id, channel_id, key, kwargs)
                if message is not None:
                    self.unguarded = True
                    return message
            return await self.channel.send(nonce=key, **kwargs)
        finally:
            self.publisher.posted(channel_id, slot)

    async def _posted_by_the_dead(self, content: str | None) -> discord.Message | None:
        """The bot's message with ``content`` posted after the game's newest recorded
        one: a followup a publisher that died (or failed) made before recording it. A
        text repeated from an older turn lies before that recorded message."""
        if not content or not self.game.messages:
            return None
        after = discord.Object(id=max(self.game.messages.values()))
        me = self.publisher.bot.user
        text = TIMESTAMP.sub("<t>", content)  # a turn limit's time is counted from now
        async for message in self.channel.history(limit=10, after=after):
            mine = me is not None and message.author.id == me.id
            if mine and TIMESTAMP.sub("<t>", message.content) == text:
                return message
        return None

    async def actions(self, after: int) -> list[LoggedAction]:
        """The logged actions after version ``after`` (read once per round)."""
        if after >= self.game.version:
            return []
        if self._log is None or self._log[0] > after:
            self._log = (after, await self.publisher.bot.store.log(self.game.id, after=after))
        return [a for a in self._log[1] if after < a.seq <= self.game.version]


def reminder_asked(ask: int, version: int) -> dict[str, tuple[int | None, int]]:
    """The marks of a reminder asked for: ``ask`` is the asking timer's id (so each
    reminder is one of its own, even while nobody moves), ``version`` the game's then."""
    return {"reminder_due": (None, ask), "reminder_at": (None, version)}


def pending_reminder(shown: Mapping[str, int]) -> tuple[int, int] | None:
    """The reminder asked for (:func:`reminder_asked`) that no sync has handled yet (the
    ``reminder`` mark: the ask handled last), as (ask, version), or None. The presenters
    post it or, if its turn moved on, drop it."""
    ask = shown.get("reminder_due", -1)
    if ask <= shown.get("reminder", -1):
        return None
    return ask, shown.get("reminder_at", -1)


def logged_events(game: GameInfo, actions: list[LoggedAction], upto: int) -> list[Any]:
    """The events of ``actions`` up to version ``upto``, as the engine's models."""
    rules = get_game(game.kind)
    return [undo.parse_event(rules, e) for a in actions if a.seq <= upto for e in a.events]


Syncer = Callable[[Sync], Awaitable[None]]


class Publisher:
    """Keeps every game's thread up to date; see the module doc."""

    def __init__(self, bot: WorkshopBot) -> None:
        self.bot = bot
        self.syncers: dict[str, Syncer] = {}
        """By game kind, plus ``""`` for the generic one (set by the cogs)."""
        self._running: set[int] = set()
        """Games whose rounds a task of this process is running."""
        self._next: dict[int, asyncio.Future[None]] = {}
        """By game: the outcome of its next round to start, for the callers waiting."""
        self._again: dict[int, bool] = {}
        """Games whose sync must run (once more); the value: whether to flush."""
        self._deferred: dict[int, asyncio.TimerHandle] = {}
        self._rounds: dict[int, Sync] = {}
        """By game: the round running now (from the moment its game is loaded)."""
        self._failures: dict[int, int] = {}
        self._held: dict[int, float] = {}
        """Games whose publishing claim this process holds between two rounds, and when
        (loop time) it was last claimed or renewed."""
        self._posts: dict[int, deque[float]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._answered: dict[int, tuple[discord.Interaction, float]] = {}
        """By game: the last player click in it that was answered, and when (loop
        time)."""
        self._followups: OrderedDict[str, discord.Message] = OrderedDict()
        self._followed: dict[int, deque[float]] = {}
        """By channel: when (loop time) this process posted its recent followups."""

    @property
    def owner(self) -> str:
        return self.bot.owner_name

    def channel(self, game: GameInfo) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(game.thread_id or game.channel_id)

    # ------------------------------------------------------------ asking for a sync

    async def sync(self, game_id: int, *, flush: bool = False) -> None:
        """Bring the game's thread up to date with storage as it is now; returns when a
        round that started after this call has ended (raising what it raised)."""
        await asyncio.shield(self._request(game_id, flush))

    def request(self, game_id: int, *, flush: bool = False) -> None:
        """:meth:`sync` without waiting (errors are logged and retried later)."""
        self._request(game_id, flush)

    def _request(self, game_id: int, flush: bool) -> asyncio.Future[None]:
        """The outcome of the game's next round to start (for ``sync``'s callers). The
        task running the rounds ends quietly: ``_failed`` logged the error already (a
        traceback per retry of an outage would be a storm). A graceful stop waits for
        the task."""
        self._again[game_id] = self._again.get(game_id, False) or flush
        running = self._rounds.get(game_id)
        if running is not None:
            running.asked_again.set()
        future = self._next.get(game_id)
        if future is None:
            future = self._next[game_id] = asyncio.get_running_loop().create_future()
            future.add_done_callback(_retrieve)
        if game_id not in self._running:
            self._running.add(game_id)
            self.bot.background(self._run(game_id), f"publish-{game_id}")
        return future

    def _defer(self, game_id: int, seconds: float, *, retry: bool = False) -> None:
        """A flushing sync in ``seconds`` (an earlier one already planned stays).

        During a graceful stop what could wait is done now instead, so the stop's drain
        waits for it and the thread is current when the process ends; a retry after a
        failure is left to the next start's catch-up (Discord is failing: no hammering).
        """
        if self.bot.stopping.is_set():
            if not retry:
                self.request(game_id, flush=True)
            return
        loop = asyncio.get_running_loop()
        handle = self._deferred.get(game_id)
        if handle is not None:
            if handle.when() <= loop.time() + seconds:
                return
            handle.cancel()

        def fire() -> None:
            self._deferred.pop(game_id, None)
            if not self.bot.stopping.is_set():  # the next start catches up instead
                self.request(game_id, flush=True)

        self._deferred[game_id] = loop.call_later(seconds, fire)

    async def _run(self, game_id: int) -> None:
        """The game's rounds, one after the other while more are asked for; each
        round's outcome goes to the callers that asked before it started, so a click's
        handler waits for one round, not for every round its table's moves keep asking
        for."""
        future: asyncio.Future[None] | None = None
        try:
            while game_id in self._again:
                flush = self._again.pop(game_id)
                future = self._next.pop(game_id, None)
                try:
                    later = await self._round(game_id, flush)
                except Exception as error:
                    self._again.pop(game_id, None)
                    self._failed(game_id, error)
                    for waiting in (future, self._next.pop(game_id, None)):
                        if waiting is not None:
                            waiting.set_exception(error)
                    return
                self._failures.pop(game_id, None)
                if later is not None:
                    self._defer(game_id, later)
                if future is not None:
                    future.set_result(None)
        finally:
            self._running.discard(game_id)
            for waiting in (future, self._next.pop(game_id, None)):
                if waiting is not None and not waiting.done():
                    waiting.cancel()  # the task was cancelled (the bot stopped)

    def _failed(self, game_id: int, error: Exception) -> None:
        """Try again later: the moves are stored, only the thread is behind."""
        count = self._failures.get(game_id, 0)
        self._failures[game_id] = count + 1
        delay = RETRY_DELAYS[min(count, len(RETRY_DELAYS) - 1)]
        if isinstance(error, discord.Forbidden):
            delay = max(delay, 60.0)  # a missing permission is not given back in seconds
        log.warning(
            "game %s: the thread could not be updated (%r); again in %ss",
            game_id,
            error,
            delay,
            exc_info=None if isinstance(error, (*DISCORD_DOWN, discord.HTTPException)) else error,
        )
        if not self.bot.is_closed():
            self._defer(game_id, delay, retry=True)

    async def _round(self, game_id: int, flush: bool) -> float | None:
        name = f"publish:{game_id}"
        await self._hold(game_id, name)
        renewing = asyncio.create_task(self._renew(game_id, name))
        sync: Sync | None = None
        keep = False
        try:
            game = await self.bot.store.load(game_id)
            lang = await self.bot.languages.of_guild(game.guild_id)
            sync = self._rounds[game_id] = Sync(self, game, flush, lang)
            syncer = self.syncers.get(game.kind) or self.syncers[""]
            await syncer(sync)
            if game.status != "active":  # no more prompts
                self._answered.pop(game_id, None)
                self._followed.pop(game.thread_id or game.channel_id, None)
            # Another round is asked for already: it goes on with the claim held.
            keep = game_id in self._again or sync.again
        finally:
            renewing.cancel()
            self._rounds.pop(game_id, None)
            marks = sync.marks if sync is not None else {}
            timers = sync.timers if sync is not None else []
            cancel = sorted(sync.cancel) if sync is not None else []
            if not keep:
                self._held.pop(game_id, None)
            await self.bot.store.set_marks(
                game_id,
                marks,
                release=None if keep else (name, self.owner),
                timers=timers,
                cancel=cancel,
            )
        if sync.again:
            self._again.setdefault(game_id, True)
        return sync.later

    async def _hold(self, game_id: int, name: str) -> None:
        """Wait for a game's publishing claim; a holder that died loses it after
        ``PUBLISH_LEASE``. Kept from the round before, it is not asked for again while
        its lease has more than :data:`LEASE_MARGIN` to run."""
        loop = asyncio.get_running_loop()
        held = self._held.pop(game_id, None)
        if held is not None and loop.time() - held < LEASE_REUSE:
            self._held[game_id] = held
            return
        # Another process holds it: nothing here could signal us, so poll.
        while not await self.bot.store.try_claim(name, self.owner, PUBLISH_LEASE):  # noqa: ASYNC110
            await asyncio.sleep(RETRY_SECONDS)
        self._held[game_id] = loop.time()

    async def _renew(self, game_id: int, name: str) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(RENEW_EVERY)
            claimed = loop.time()
            if await self.bot.store.try_claim(name, self.owner, PUBLISH_LEASE):
                self._held[game_id] = claimed

    def answered(self, game_id: int, interaction: discord.Interaction) -> None:
        """A player's click in the game was answered: the game's next turn prompts may
        ride on it (:meth:`Sync.post`). Only a click (a component): a public followup of
        a slash command would show as a reply to its private answer."""
        if interaction.type == discord.InteractionType.component and interaction.response.is_done():
            self._answered[game_id] = (interaction, asyncio.get_running_loop().time())

    async def followup(
        self, game_id: int, channel_id: int, key: str, kwargs: dict[str, Any]
    ) -> discord.Message | None:
        """Post ``kwargs`` as a followup of the game's last fresh interaction in
        ``channel_id``; ``None``: there is none (or its token is gone), post normally.
        Posted once per ``key``, like a post's nonce, within this process; at most
        :data:`FOLLOWUPS_PER_MINUTE` in a channel."""
        if key in self._followups:
            return self._followups[key]
        interaction, at = self._answered.get(game_id, (None, 0.0))
        if interaction is None or interaction.channel_id != channel_id:
            return None
        now = asyncio.get_running_loop().time()
        if now - at > ANSWER_FRESH:
            del self._answered[game_id]
            return None
        recent = within(self._followed.setdefault(channel_id, deque()), now, 60.0)
        if len(recent) >= FOLLOWUPS_PER_MINUTE:
            return None
        try:
            message = await interaction.followup.send(wait=True, **kwargs)
        except discord.HTTPException as error:
            if error.status not in (401, 403, 404):  # a token gone or refused: nothing posted
                raise
            del self._answered[game_id]
            return None
        recent.append(now)
        self._followups[key] = message
        if len(self._followups) > FOLLOWUPS_KEPT:
            self._followups.popitem(last=False)
        return message

    async def post_slot(self, channel_id: int) -> float:
        """Wait until this process may post in the channel without passing Discord's
        per-channel limit (the wait coalesces later moves into the next round); returns
        the time the post is counted at, for :meth:`posted`."""
        loop = asyncio.get_running_loop()
        recent = self._posts.get(channel_id)
        if recent is None:
            recent = self._posts.setdefault(channel_id, await self._recent_posts(channel_id))
        while True:
            now = loop.time()
            if len(within(recent, now, POST_WINDOW)) < POSTS_PER_WINDOW:
                recent.append(now)
                return now
            await asyncio.sleep(recent[0] + POST_WINDOW - now)

    def new_channel(self, channel_id: int) -> None:
        """This process just created the channel (a game's thread): it has no posts
        that :meth:`post_slot` would have to ask Discord about."""
        self._posts.setdefault(channel_id, deque())

    async def _recent_posts(self, channel_id: int) -> deque[float]:
        """When (loop time) the bot posted in the channel within the window, as Discord
        has it: for a channel this process has not posted in since it started (after a
        restart, or a game taken over from another process), whose recent posts count
        towards Discord's limit all the same. One request; if it fails, none assumed."""
        loop = asyncio.get_running_loop()
        now, wall = loop.time(), discord.utils.utcnow()
        me = self.bot.user
        times = []
        try:
            channel = self.bot.get_partial_messageable(channel_id)
            async for message in channel.history(limit=POSTS_PER_WINDOW):
                age = (wall - message.created_at).total_seconds()
                if me is not None and message.author.id == me.id and age < POST_WINDOW:
                    times.append(now - max(age, 0.0))
        except discord.HTTPException as error:
            log.info("channel %s: cannot read its recent posts (%s)", channel_id, error)
        return deque(sorted(times))

    def posted(self, channel_id: int, slot: float) -> None:
        """A post counted at ``slot`` was answered. One that took longer than the
        window's margin was probably sent again (discord.py retries a 429 or a 5xx, and
        Discord counts the attempt that arrives): it counts from now instead."""
        now = asyncio.get_running_loop().time()
        recent = self._posts.get(channel_id)
        if now - slot <= POST_WINDOW - DISCORD_WINDOW or recent is None or slot not in recent:
            return
        recent.remove(slot)
        recent.append(now)
        self._posts[channel_id] = deque(sorted(recent))

    # ------------------------------------------------------------ catching up

    async def catch_up(self) -> int:
        """Sync every game whose thread may be behind its stored state (after a start or
        a gateway reconnect); returns how many were synced."""
        behind = [
            g
            for g in await self.bot.store.list_games(statuses=["active", "finished"])
            if self.behind(g)
        ]
        now = discord.utils.utcnow()  # storage stamps started_at with the wall clock
        opening = [g for g in behind if self.opening(g, now)]
        for game in opening:  # its Start handler publishes it once its thread is open
            self._defer(game.id, START_GRACE)
        behind = [g for g in behind if g not in opening]
        if not behind:
            return 0
        log.info("catching up %d games", len(behind))
        limit = asyncio.Semaphore(CATCH_UP_CONCURRENCY)

        async def one(game: GameInfo) -> None:
            async with limit:
                with contextlib.suppress(Exception):  # logged and retried by _failed
                    await self.sync(game.id, flush=True)

        await asyncio.gather(*(one(g) for g in behind))
        return len(behind)

    @staticmethod
    def opening(game: GameInfo, now: datetime) -> bool:
        """Whether the game started within :data:`START_GRACE` and shows nothing yet:
        the process that started it is opening its thread. Synced now, before the
        thread is recorded, its table would be posted in the channel and the thread
        left empty (a catch-up at start-up or reconnect, or another process's)."""
        return (
            game.status == "active"
            and game.thread_id is None
            and not game.shown_versions
            and game.started_at is not None
            and 0 <= (now - game.started_at).total_seconds() < START_GRACE
        )

    @staticmethod
    def behind(game: GameInfo) -> bool:
        """Whether the game's thread may not show its stored state: cheap, from the
        marks only (a finished game counts until its board showed the end)."""
        if game.status not in ("active", "finished"):
            return False
        shown = game.shown_versions
        board = shown.get("board", -1)
        if game.status == "finished":
            return board < game.version or ("final" not in shown and "log" in shown)
        pending = (
            shown.get("log", board) < game.version
            or shown.get("log_intent", -1) > shown.get("log", board)
            or pending_reminder(shown) is not None
        )
        return board < game.version or pending

    def flush_deferred(self) -> None:
        """A graceful stop begins: the deferred syncs run now, flushing (the ones waiting
        to retry a failure excepted: the next start catches those games up)."""
        for game_id, handle in list(self._deferred.items()):
            handle.cancel()
            if game_id not in self._failures:
                self.request(game_id, flush=True)
        self._deferred.clear()

    async def close(self) -> None:
        for handle in self._deferred.values():
            handle.cancel()
        self._deferred.clear()


def _retrieve(future: asyncio.Future[None]) -> None:
    """A sync nobody awaited: its error was logged by ``_failed``."""
    if not future.cancelled():
        future.exception()
