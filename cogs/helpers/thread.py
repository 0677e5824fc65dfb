"""A game's thread on Discord, brought up to date with what storage holds.

The rounds, the ledger of what a table has shown and the catch-up after a start or a
reconnect are the table core's (``tables/publishing.py``); this module is how a round
shows things in a Discord thread: :class:`Sync` posts, :class:`ThreadPublisher` keeps
Discord's budgets. The presenters (the generic one in ``cogs/table/``, Tonttu's in
``cogs/tonttu/``) decide what to post from the core's description of what changed.

Exactly once. Posts carry a *nonce* derived from the game, what is posted and the
version (Discord's ``enforce_nonce``: a second post with the same nonce within a few
minutes returns the first message instead of a new one). Turn prompts and log lines go
out instead as followups of the last click in the thread while it is fresh
(:meth:`ThreadPublisher.followup`): Discord does not count interaction webhooks against
the bot's 50 requests per second, so a turn change costs one budgeted request (the
board's edit) instead of two. A followup has no nonce, so the round records it at once
(``Sync.save``). Before posting log lines the presenter records its *intent* (the
version the lines go up to), so a publisher that dies mid-post is followed by one that
posts exactly the same messages. A round that may repeat posts made but never recorded
(after a failed round, a claim taken over, a recorded intent) first looks for them
after the newest message it knows (``Sync.post``): a followup sent again would show
twice, and a post, though its nonce makes Discord answer with the first message, would
count against the channel's limit where no process reading the thread can see it.

Frugal (Discord allows ~5 posts per channel per 5 s and 50 requests per second per
bot). The presenters decide what is worth a request now and what can wait: the generic
one posts the log with the next turn prompt, edits the board when the turn changes or
the board is two decisions behind, and leaves the rest to a deferred sync a few seconds
later. Each process also keeps every channel under :data:`POSTS_PER_WINDOW` posts per
:data:`POST_WINDOW` seconds by waiting (which coalesces more moves into the wait); in a
channel it has not posted in since it started and did not create, or where the game's
marks record a post within the window that it did not make (:data:`POSTED`: any process
may show any game), it first reads the last few messages, since Discord counts the
posts another process (or its own earlier run) made there just before.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import dataclasses
import hashlib
import logging
import re
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import discord

from cogs.helpers.common import DISCORD_DOWN, NO_MENTIONS
from cogs.helpers.gates import fenced, within
from cogs.helpers.render import BOARD_FILE, cut, title_of
from storage import GameInfo, LoadedGame, Storage
from tables.metrics import OFF, Metrics
from tables.publishing import Publisher, Round

log = logging.getLogger("bot.publishing")

POST_WINDOW = 5.5
"""Discord counts 5 per 5 s; the half second covers the time a post takes to arrive."""
POSTS_PER_WINDOW = 5
"""Discord's per-channel message limit: 5 new messages per 5 seconds."""
DISCORD_WINDOW = 5.0
COUNTED_IDS = 32
"""Recent posts remembered by id per channel (far more than a window holds)."""
FORBIDDEN_RETRY = 60.0
"""After a post Discord refused for a missing permission: it is not given back in
seconds."""
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


THREAD_EXISTS = 160004
"""Discord's code for a message that has a thread already."""
SHOWN = ("active", "finished")
"""The statuses whose games are shown in their threads."""
POSTED = "posted"
"""The mark recording the newest message a game's publishing posted in its thread (and
the version then): how a process taking the game over learns that another one posted
there within Discord's window (:meth:`ThreadPublisher.post_slot`)."""

TIMESTAMP = re.compile(r"<t:-?\d+(?::[tTdDfFR])?>")
"""Discord's timestamp markup (``discord.utils.format_dt``)."""


def nonce(*parts: object) -> str:
    """A message nonce for Discord's ``enforce_nonce`` (at most 25 characters)."""
    text = ":".join(map(str, parts)).encode()
    return hashlib.blake2b(text, digest_size=12).hexdigest()


class Sync(Round):
    """One round of one game's thread: what it posts, and the marks recording it."""

    def __init__(
        self, publisher: ThreadPublisher, game: LoadedGame, flush: bool, lang: str = "en"
    ) -> None:
        super().__init__(publisher.store, game, flush, lang)
        self.publisher = publisher
        self.recovering = False
        """The round posts what an earlier one recorded its intent to post and may have
        posted (set by the presenter): :meth:`post` looks for it first."""
        self.unguarded = False
        """A followup went out this round: no nonce guards it against being posted again
        by a publisher that takes over, so its marks are written at once (:meth:`save`)."""
        self._unrecorded: list[discord.Message] | None = None
        """The bot's messages after the game's newest recorded one, read once per round
        (:meth:`_unrecorded_posts`)."""
        self._recount = False
        """The claim was taken over: the next post counts the channel's posts again."""
        self._mine: set[int] = set()
        """The messages this round posted."""

    @property
    def channel(self) -> discord.PartialMessageable:
        return self.publisher.channel(self.game)

    async def post(self, what: Any, *, answer: bool = False, **kwargs: Any) -> discord.Message:
        """Post in the game's thread, once: ``what`` names the message for its nonce.

        ``answer``: a message the bot never edits afterwards (log lines, a turn prompt)
        goes out as a followup of the last player's click in the thread while that is
        fresh (:meth:`Publisher.answered`): Discord does not count interaction webhooks
        against the bot's 50 requests per second.

        A round that may repeat posts an earlier one made without recording them (the
        game's last round here failed, its claim was taken over from another process,
        or the presenter says it is ``recovering`` an intent) finds them in the thread
        instead: sent again, a followup would show twice, and a post, though Discord
        answers its nonce with the first message, would count against the channel's
        limit where no process reading the thread can see it."""
        channel_id = self.game.thread_id or self.game.channel_id
        if self.publisher.taken_over(self.game.id):
            self._recount = True
        if self._recount or self.recovering or self.publisher.retrying(self.game.id):
            found = await self._posted_before(lambda message: same_post(message, kwargs))
            if found is not None:
                return found
        recount, self._recount = self._recount, False
        slot = await self.publisher.post_slot(
            channel_id, self.game.messages.get(POSTED), recount=recount
        )
        key = nonce(self.game.id, *what)
        try:
            with self.publisher.fence(self.game.id, self.game.version):  # still ours to show
                self.unsure = True  # until Discord answers
                if answer:
                    message = await self.publisher.followup(self.game.id, channel_id, key, kwargs)
                    if message is not None:
                        self.unsure = False
                        self._mine.add(message.id)
                        self.unguarded = True
                        return message
                message = await self.channel.send(nonce=key, **kwargs)
            self.unsure = False
            self._mine.add(message.id)
            self.publisher.sent(channel_id, message.id)
            self.mark(POSTED, self.game.version, message.id)
            return message
        finally:
            self.publisher.posted(channel_id, slot)

    async def board_of_the_dead(self) -> discord.Message | None:
        """The board message a publisher that died made before recording it."""
        return await self._posted_before(shows_board)

    async def _posted_before(
        self, matches: Callable[[discord.Message], bool]
    ) -> discord.Message | None:
        """The first of :meth:`_unrecorded_posts` that ``matches`` (once per round)."""
        posts = await self._unrecorded_posts()
        found = next((message for message in posts if matches(message)), None)
        if found is not None:
            posts.remove(found)
        return found

    async def _unrecorded_posts(self) -> list[discord.Message]:
        """The bot's messages after the game's newest recorded one that this round did
        not post: what a publisher that died (or failed) posted before recording it.
        One read per round; a text repeated from an older turn lies before that
        recorded message."""
        if self._unrecorded is None:
            # (not POSTED: a turn limit's notice may have come after the dead one's posts)
            recorded = [m for key, m in self.game.messages.items() if key != POSTED]
            me = self.publisher.client.user
            found: list[discord.Message] = []
            if recorded and me is not None:
                after = discord.Object(id=max(recorded))
                async for message in self.channel.history(limit=10, after=after):
                    if message.author.id == me.id and message.id not in self._mine:
                        found.append(message)
            self._unrecorded = found
        return self._unrecorded


def same_post(message: discord.Message, kwargs: dict[str, Any]) -> bool:
    """Whether ``message`` is the post ``kwargs`` would make: the same text (a turn
    limit's time is counted from now) and the same embeds' titles, descriptions and
    footers (a board's footer names its move)."""
    embeds = kwargs.get("embeds") or ([kwargs["embed"]] if kwargs.get("embed") else [])
    content = kwargs.get("content") or ""
    if not content and not embeds:
        return False
    return TIMESTAMP.sub("<t>", message.content) == TIMESTAMP.sub("<t>", content) and [
        (e.title, e.description, e.footer.text) for e in message.embeds
    ] == [(e.title, e.description, e.footer.text) for e in embeds]


def shows_board(message: discord.Message) -> bool:
    """Whether ``message`` is a board message (its picture is the board's file)."""
    pictures = [a.filename for a in message.attachments]
    pictures += [(e.image.url or "").split("?")[0].rsplit("/", 1)[-1] for e in message.embeds]
    return BOARD_FILE in pictures


class ThreadPublisher(Publisher):
    """The table core's publisher, showing games in their Discord threads."""

    def __init__(
        self,
        client: discord.Client,
        store: Storage,
        *,
        owner: str,
        spawn: Callable[[Coroutine[Any, Any, None], str], object],
        stopping: asyncio.Event,
        lang_of: Callable[[int | None], Awaitable[str]],
        metrics: Metrics = OFF,
    ) -> None:
        super().__init__(
            store, owner=owner, spawn=spawn, stopping=stopping, lang_of=lang_of, metrics=metrics
        )
        self.client = client
        self._posts: dict[int, deque[float]] = {}
        self._newest: dict[int, int] = {}
        """By channel: the newest post there this process made or read."""
        self._counted: dict[int, deque[int]] = {}
        """By channel: the recent posts counted in ``_posts`` (this process's, and those
        read from Discord), so that a post read twice counts once."""
        self._answered: dict[int, tuple[discord.Interaction, float]] = {}
        """By game: the last player click in it that was answered, and when (loop
        time)."""
        self._followups: OrderedDict[str, discord.Message] = OrderedDict()
        self._followed: dict[int, deque[float]] = {}
        """By channel: when (loop time) this process posted its recent followups."""

    def new_round(self, game: LoadedGame, flush: bool, lang: str) -> Sync:
        return Sync(self, game, flush, lang)

    async def open_thread(self, game: GameInfo, lobby: int, name: str) -> int:
        """The id of the game's thread, opened from its lobby message ``lobby`` (a thread
        opened from a message has the message's id): one opened already, by a process that
        died or met the database away before recording it, is the game's. Raises what
        Discord raised otherwise (``discord.Forbidden``: the bot may not open threads here;
        a 5xx: Discord is away). Through the REST route itself: discord.py's
        ``Message.create_thread`` wants the guild cached, which only the process running
        the guild's shard has."""
        try:
            opened = await self.client.http.start_thread_with_message(
                game.channel_id, lobby, name=name, auto_archive_duration=10080
            )
            thread_id = int(opened["id"])
        except discord.HTTPException as error:
            if error.code != THREAD_EXISTS:
                raise
            thread_id = lobby
            log.info("game %s: its thread was opened already; it is the game's", game.id)
        self.new_channel(thread_id)
        return thread_id

    async def open_surface(self, round_: Round) -> None:
        """A started game whose thread was not recorded (its Start handler's process died,
        or the database was away, once Discord had opened it or before): the thread of
        its lobby message is opened or taken over and recorded before the round posts, so
        the table is never shown in the channel beside an empty thread. Without the
        permission, or with its lobby message gone, the game is played in the channel, as
        its start would have."""
        game = round_.game
        lobby = game.messages.get("lobby")
        if game.thread_id is not None or lobby is None or game.status not in SHOWN:
            return
        name = cut(title_of(game, round_.words), 100)
        try:
            thread_id = await self.open_thread(game, lobby, name)
        except discord.HTTPException as error:
            if isinstance(error, discord.DiscordServerError):
                raise  # Discord is away: the round is tried again
            log.warning(
                "game %s: cannot open its thread (%s); shown in the channel", game.id, error
            )
            thread_id = game.channel_id
        await self.store.set_thread(game.id, thread_id)
        round_.game = dataclasses.replace(game, thread_id=thread_id)

    async def show_notes(self, round_: Round, notes: list[tuple[str, str]]) -> None:
        assert isinstance(round_, Sync)
        while notes:
            key, text = notes[0]
            await round_.post(("note", key), content=text, allowed_mentions=NO_MENTIONS)
            notes.pop(0)

    def failure_delay(self, error: Exception, delay: float) -> float:
        if isinstance(error, discord.Forbidden):
            return max(delay, FORBIDDEN_RETRY)
        return delay

    def expected(self, error: Exception) -> bool:
        return isinstance(error, (*DISCORD_DOWN, discord.HTTPException))

    def ended(self, game: LoadedGame) -> None:
        self._answered.pop(game.id, None)
        self._followed.pop(game.thread_id or game.channel_id, None)

    def channel(self, game: GameInfo) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(game.thread_id or game.channel_id)

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

    async def post_slot(
        self, channel_id: int, elsewhere: int | None = None, *, recount: bool = False
    ) -> float:
        """Wait until this process may post in the channel without passing Discord's
        per-channel limit (the wait coalesces later moves into the next round); returns
        the time the post is counted at, for :meth:`posted`. ``elsewhere``: the newest
        post in the channel the game's marks record (:data:`POSTED`); one this process
        did not make, within the window, was another process's, and Discord counts it:
        the channel's recent posts are read again. ``recount``: read them again anyway
        (another process may have posted there without recording it: the game's claim
        was taken over from it, :meth:`Publisher.taken_over`)."""
        loop = asyncio.get_running_loop()
        recent = self._posts.get(channel_id)
        if recent is None or recount or self._posted_elsewhere(channel_id, elsewhere):
            recent = self._posts.setdefault(channel_id, deque())
            await self._count_recent_posts(channel_id, recent)
        while True:
            now = loop.time()
            if len(within(recent, now, POST_WINDOW)) < POSTS_PER_WINDOW:
                recent.append(now)
                return now
            await asyncio.sleep(recent[0] + POST_WINDOW - now)

    def fence(self, game_id: int, version: int) -> contextlib.AbstractContextManager[None]:
        """Requests made in this block (a post, an edit showing ``version``) go out, each
        attempt, only while this process still holds the game's publishing claim and no
        other showed a newer version (:meth:`confirm`, :func:`fenced`)."""
        return fenced(lambda: self.confirm(game_id, version))

    def _posted_elsewhere(self, channel_id: int, newest: int | None) -> bool:
        if newest is None or newest <= self._newest.get(channel_id, 0):
            return False
        age = (discord.utils.utcnow() - discord.utils.snowflake_time(newest)).total_seconds()
        return age < POST_WINDOW

    def sent(self, channel_id: int, message_id: int) -> None:
        """This process posted ``message_id`` in the channel (its slot is counted)."""
        self._newest[channel_id] = max(message_id, self._newest.get(channel_id, 0))
        self._counted.setdefault(channel_id, deque(maxlen=COUNTED_IDS)).append(message_id)

    def new_channel(self, channel_id: int) -> None:
        """This process just created the channel (a game's thread): it has no posts
        that :meth:`post_slot` would have to ask Discord about."""
        self._posts.setdefault(channel_id, deque())

    async def _count_recent_posts(self, channel_id: int, recent: deque[float]) -> None:
        """Count in ``recent`` (in place: other posts may be waiting on it) the bot's posts
        in the channel within the window that it does not count yet, as Discord has
        them: those another process (or this one's earlier run, before a restart) made
        there count towards Discord's limit all the same. One request; if it fails, none
        assumed."""
        loop = asyncio.get_running_loop()
        now, wall = loop.time(), discord.utils.utcnow()
        me = self.client.user
        counted = self._counted.setdefault(channel_id, deque(maxlen=COUNTED_IDS))
        try:
            channel = self.client.get_partial_messageable(channel_id)
            async for message in channel.history(limit=POSTS_PER_WINDOW):
                self._newest[channel_id] = max(message.id, self._newest.get(channel_id, 0))
                age = (wall - message.created_at).total_seconds()
                mine = me is not None and message.author.id == me.id
                if mine and age < POST_WINDOW and message.id not in counted:
                    counted.append(message.id)
                    bisect.insort(recent, now - max(age, 0.0))
        except discord.HTTPException as error:
            log.info("channel %s: cannot read its recent posts (%s)", channel_id, error)

    def posted(self, channel_id: int, slot: float) -> None:
        """A post counted at ``slot`` was answered. One that took longer than the
        window's margin was probably sent again (discord.py retries a 429 or a 5xx, and
        Discord counts the attempt that arrives): it counts from now instead."""
        now = asyncio.get_running_loop().time()
        recent = self._posts.get(channel_id)
        if now - slot <= POST_WINDOW - DISCORD_WINDOW or recent is None or slot not in recent:
            return
        recent.remove(slot)  # in place: other posts may be waiting on it
        bisect.insort(recent, now)
