"""What each table has shown, and the rounds that bring it up to date: any front end.

A move is committed before anyone is told about it. What a table shows is therefore not
pushed by the handler that made the move but *pulled* from storage: a front end's
*presenter* (one per game kind, plus a generic one) compares what its surfaces show
with the stored game and shows what is missing, in *rounds* that this module runs. It
is the same for every front end; ``cogs/helpers/thread.py`` is Discord's (a game's
thread), and its module docstring tells how posts are made exactly once there.

The ledger. What a surface shows is recorded per game as *marks*, keyed by surface:
``board`` (the version the board shows, and its message; ``board_intent``: the first
board's, recorded before it is posted), ``log`` (the version the log
has been shown up to), ``log_intent`` (showing up to), ``prompt`` (the version the last
turn prompt was shown at), ``reminder_due`` / ``reminder_at`` / ``reminder``, ``final``,
and per Tonttu phase ``phase:<round>:<phase>``. Any front end asks "what changed since
version N" from them and the action log (:func:`tables.surfaces.changes`). A round
writes its marks with the timers its posts announced in one write after posting
(:meth:`Round.save` earlier when a post could not be made idempotent), then gives the
game's publishing claim back; a round that dies before that write recorded nothing,
so the next one does everything again, the timers included.

Between processes a claim per game (``try_claim(f"publish:{game}")``) lets one
publisher at a time work on a game; a process killed while holding it blocks that
game's surfaces for at most :data:`PUBLISH_LEASE`. When another round of the same game
is asked for while one runs, the claim is kept for it rather than given back and taken
again. Requests for a game that is being synced only ask for one more round when the
running one ends, so a burst of moves costs one round; what can wait is *deferred* to a
flushing round a few seconds later (:meth:`Round.defer`), and a failed round is tried
again with a growing delay.

Short. Every write waits in one queue (``storage/core.py``'s write lock) behind every
other table's moves, so what stands between a move and its post is kept to a few
single-statement writes: the claim (none when kept), the intent, and the reads of the
game and its log (the log read once per round); timers and marks come after the posts.

In one language. Public text is in the table's language (the server's, for Discord),
read once per round (:attr:`Round.words`), so a round's texts never mix two.

Options weighed: publishing from each handler's own events (nothing to catch up from,
and one post and edit per move); a queue of messages to post stored in the database
(exactly once too, but every text would be made twice and stored; here the texts are
made from the action log, which storage keeps anyway).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import i18n
from engine import get_game, undo
from engine.words import Words
from storage import Claim, GameInfo, LoadedGame, LoggedAction, NewTimer, Storage
from storage.errors import DatabaseUnavailable
from tables import logs
from tables.metrics import OFF, Metrics

log = logging.getLogger("bot.publishing")

PUBLISH_LEASE = timedelta(seconds=4)
"""How long a game's publishing claim lasts unless renewed: a process killed while
syncing a game holds up that game's surfaces (after a restart, say) for at most this."""
RENEW_EVERY = 1.0
"""A round that takes longer (the front end slow, a rate limit) renews its claim this
often."""
LEASE_MARGIN = 1.5
"""A claim kept for the next round is claimed again unless it has this long to run."""
LEASE_REUSE = PUBLISH_LEASE.total_seconds() - LEASE_MARGIN
RETRY_SECONDS = 0.01
RETRY_DELAYS = (1.0, 2.0, 3.0, 5.0)
"""After a failed sync: when to try again (the last one repeats, so a table catches up
within seconds of an outage's end; a front end may ask for longer:
:meth:`Publisher.failure_delay`)."""
CATCH_UP_RETRY = 3.0
"""Seconds between tries of a catch-up that found the database away (it must not be
lost: it is what brings the threads up to date after a restart or a reconnect)."""
CATCH_UP_CONCURRENCY = 8
"""Games caught up at once after a start (each waits for the front end's budgets)."""
START_GRACE = 30.0
"""Seconds a game just started is left to the handler that started it before a catch-up
syncs it (:meth:`Publisher.opening`); then it is synced like any other."""


class ClaimLost(Exception):
    """A round's game is no longer this process's to show: its claim's renewals failed
    (the database away, the process stalled) and another process may have shown newer
    versions since. The round writes nothing more to the front end (a board edited with
    an older version would go backwards); a later round shows what is still behind."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"game {game_id}: another process may be showing it now")
        self.game_id = game_id


class Round:
    """One round of one game's sync: the marks it records, the timers it schedules."""

    def __init__(self, store: Storage, game: LoadedGame, flush: bool, lang: str = "en") -> None:
        self.store = store
        self.game = game
        self.flush = flush
        """Show what could otherwise wait (a deferred sync, a catch-up)."""
        self.lang = lang
        """The language code of the table's public text: the pictures'."""
        self.words: Words = i18n.words(lang)
        """The words of everything this round shows: one language per table, read once
        per round, so a round's posts never mix two."""
        self.marks: dict[str, tuple[int | None, int]] = {}
        self.later: float | None = None
        """Seconds after which the game needs another (deferred) round, if any."""
        self.again = False
        """The game needs another round at once (e.g. a recovered intent was shown)."""
        self.timers: list[NewTimer] = []
        self.cancel: set[str] = set()
        """Timers to schedule (and kinds to cancel) with this round's marks, after its
        posts: a timer is never needed before the messages that announce it."""
        self.unsure = False
        """A post of this round is on its way, or went unanswered: the front end may
        show it, the marks do not. A round ending so keeps the game's claim (its lease
        runs out), so that the process taking it over looks for that post first."""
        self._log: tuple[int, list[LoggedAction]] | None = None
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
        await self.store.set_marks(self.game.id, {key: (message_id, version)})

    async def save(self) -> None:
        """Write the round's marks, with its timers, before going on; the round's end
        writes them again (the same values: no harm)."""
        cancel = sorted(self.cancel)
        await self.store.set_marks(self.game.id, self.marks, timers=self.timers, cancel=cancel)

    def schedule(self, *timers: NewTimer, cancel: Iterable[str] = ()) -> None:
        """Schedule ``timers`` (each replacing its kind's pending one) and cancel the
        pending timers of ``cancel`` with the round's marks. A round that dies before
        writing them wrote no marks either, so the next one does it all again."""
        self.timers = [t for t in self.timers if t.kind not in {n.kind for n in timers}]
        self.timers.extend(timers)
        self.cancel.update(cancel)

    def defer(self, seconds: float) -> None:
        self.later = seconds if self.later is None else min(self.later, seconds)

    async def actions(self, after: int) -> list[LoggedAction]:
        """The logged actions after version ``after`` (read once per round)."""
        if after >= self.game.version:
            return []
        if self._log is None or self._log[0] > after:
            self._log = (after, await self.store.log(self.game.id, after=after))
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
    """The events of ``actions`` up to version ``upto``, as the engine's models (parsed
    from the log's JSON in one step)."""
    rules = get_game(game.kind)
    return [
        e for a in actions if a.seq <= upto for e in undo.parse_events_json(rules, a.events_json)
    ]


Syncer = Callable[[Any], Awaitable[None]]
"""A presenter: brings one game's surfaces up to date in the round it is given."""


class Publisher:
    """Runs the rounds that keep every game's surfaces up to date; see the module doc.

    A front end subclasses it for its :class:`Round` (:meth:`new_round`), what its
    failures mean (:meth:`failure_delay`, :meth:`expected`) and what it forgets of a game
    that ended (:meth:`ended`), and registers its presenters in :attr:`syncers`."""

    def __init__(
        self,
        store: Storage,
        *,
        owner: str,
        spawn: Callable[[Coroutine[Any, Any, None], str], object],
        stopping: asyncio.Event,
        lang_of: Callable[[int | None], Awaitable[str]],
        metrics: Metrics = OFF,
    ) -> None:
        self.store = store
        self.metrics = metrics
        self.owner = owner
        """Who holds a game's publishing claim: this process."""
        self._spawn = spawn
        """Runs a round's task so that a graceful stop waits for it."""
        self.stopping = stopping
        self._lang_of = lang_of
        """The language of a server's (a table's) public text."""
        self.syncers: dict[str, Syncer] = {}
        """By game kind, plus ``""`` for the generic one (set by the front end)."""
        self.watchers: list[Callable[[int], None]] = []
        """Told a game's id when this process asks for its sync (a move was stored)
        and when a round of it has ended (its marks and timers are written): other
        front ends that show the game (the web page) look again at once."""
        self._closed = False
        self._running: set[int] = set()
        """Games whose rounds a task of this process is running."""
        self._next: dict[int, asyncio.Future[None]] = {}
        """By game: the outcome of its next round to start, for the callers waiting."""
        self._again: dict[int, bool] = {}
        """Games whose sync must run (once more); the value: whether to flush."""
        self._deferred: dict[int, asyncio.TimerHandle] = {}
        self._rounds: dict[int, Round] = {}
        """By game: the round running now (from the moment its game is loaded)."""
        self._failures: dict[int, int] = {}
        self._held: dict[int, float] = {}
        """Games whose publishing claim this process holds between two rounds, and when
        (loop time) it was last claimed or renewed."""
        self._gaps: set[int] = set()
        """Games whose claim was renewed after a gap long enough for it to run out (this
        process stalled): :meth:`confirm` reads what was shown meanwhile."""
        self._taken_over: set[int] = set()
        """Games whose claim this process took over from another process whose lease had
        run out (:meth:`taken_over`)."""
        self._known: dict[int, LoadedGame] = {}
        """By game: the newest game a caller handed over (:meth:`sync`'s ``known``)."""
        self._notes: dict[int, list[tuple[str, str]]] = {}
        """By game: one-off lines for its next round to show first (:meth:`note`)."""

    # ------------------------------------------------------------ what a front end says

    def new_round(self, game: LoadedGame, flush: bool, lang: str) -> Round:
        return Round(self.store, game, flush, lang)

    def failure_delay(self, error: Exception, delay: float) -> float:
        """How long to wait before trying a failed round again (``delay``: the usual)."""
        return delay

    def expected(self, error: Exception) -> bool:
        """A failure of the front end's that needs no traceback in the log (an outage)."""
        return False

    def away(self, error: Exception) -> bool:
        """Whether ``error`` says the database or the front end is away (or another
        process shows the game now): tried again later, logged in one line."""
        return isinstance(error, (DatabaseUnavailable, ClaimLost)) or self.expected(error)

    def note(self, game_id: int, key: str, text: str) -> None:
        """A one-off line (a turn limit's notice) for the game's next round of this
        process to show before anything else, the publishing claim held like for every
        other post: a post outside the rounds could go out beside another process's
        round in the same thread, over Discord's pace. ``key`` names it (a front end
        posts it once); a note not shown when the process stops is lost."""
        self._notes.setdefault(game_id, []).append((key, text))

    async def open_surface(self, round_: Round) -> None:
        """Open what the round's game is shown on if that is not done yet, and record it
        in ``round_.game`` (the front end's): the process that started the game may have
        died, or met the database away, before it recorded its thread."""

    async def show_notes(self, round_: Round, notes: list[tuple[str, str]]) -> None:
        """Show the game's notes (:meth:`note`), removing each from ``notes`` once shown
        (the front end's)."""
        notes.clear()

    def ended(self, game: LoadedGame) -> None:
        """The game is over: forget what only helped it show its next turns."""

    # ------------------------------------------------------------ asking for a sync

    async def sync(
        self, game_id: int, *, flush: bool = False, known: LoadedGame | None = None
    ) -> None:
        """Bring the game's surfaces up to date with storage as it is now; returns when a
        round that started after this call has ended (raising what it raised).

        ``known``: the game as the caller has it (after its move), so that the round
        reads only the marks again when nothing was stored since (``Storage.reload``):
        a click loads its game once."""
        await asyncio.shield(self._request(game_id, flush, known))

    def request(
        self, game_id: int, *, flush: bool = False, known: LoadedGame | None = None
    ) -> None:
        """:meth:`sync` without waiting (errors are logged and retried later)."""
        self._request(game_id, flush, known)

    def _request(
        self, game_id: int, flush: bool, known: LoadedGame | None = None
    ) -> asyncio.Future[None]:
        """The outcome of the game's next round to start (for ``sync``'s callers). The
        task running the rounds ends quietly: ``_failed`` logged the error already (a
        traceback per retry of an outage would be a storm). A graceful stop waits for
        the task."""
        self._tell(game_id)
        if known is not None:
            kept = self._known.get(game_id)
            if kept is None or known.version >= kept.version:
                self._known[game_id] = known
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
            self._spawn(self._run(game_id), f"publish-{game_id}")
        return future

    def _tell(self, game_id: int) -> None:
        for watcher in self.watchers:
            watcher(game_id)

    def _defer(self, game_id: int, seconds: float, *, retry: bool = False) -> None:
        """A flushing sync in ``seconds`` (an earlier one already planned stays).

        During a graceful stop what could wait is done now instead, so the stop's drain
        waits for it and the surfaces are current when the process ends; a retry after a
        failure is left to the next start's catch-up (the front end is failing: no
        hammering).
        """
        if self.stopping.is_set():
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
            if not self.stopping.is_set():  # the next start catches up instead
                self.request(game_id, flush=True)

        self._deferred[game_id] = loop.call_later(seconds, fire)

    async def _run(self, game_id: int) -> None:
        """The game's rounds, one after the other while more are asked for; each
        round's outcome goes to the callers that asked before it started, so a click's
        handler waits for one round, not for every round its table's moves keep asking
        for."""
        future: asyncio.Future[None] | None = None
        logs.tag(game=game_id)  # a task of its own: its lines are this game's
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
                self.metrics.round_ended(True)
                self._tell(game_id)
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
        """Try again later: the moves are stored, only the surfaces are behind."""
        count = self._failures.get(game_id, 0)
        self._failures[game_id] = count + 1
        self.metrics.round_ended(False)
        delay = self.failure_delay(error, RETRY_DELAYS[min(count, len(RETRY_DELAYS) - 1)])
        away = self.away(error)
        log.warning(
            "game %s: the thread could not be updated (%r); again in %ss",
            game_id,
            error,
            delay,
            exc_info=None if away else error,
        )
        if not self._closed:
            self._defer(game_id, delay, retry=True)

    async def _round(self, game_id: int, flush: bool) -> float | None:
        name = f"publish:{game_id}"
        await self._hold(game_id, name)
        renewing = asyncio.create_task(self._renew(game_id, name))
        sync: Round | None = None
        keep = False
        try:
            known = self._known.pop(game_id, None)  # read after the claim: marks are fresh
            game = await (self.store.load(game_id) if known is None else self.store.reload(known))
            logs.tag(guild=game.guild_id)
            lang = await self._lang_of(game.guild_id)
            sync = self._rounds[game_id] = self.new_round(game, flush, lang)
            await self.open_surface(sync)
            notes = self._notes.pop(game_id, [])
            try:
                await self.show_notes(sync, notes)
            finally:
                if notes:  # not shown: the next round's
                    self._notes[game_id] = notes + self._notes.get(game_id, [])
            syncer = self.syncers.get(game.kind) or self.syncers[""]
            await syncer(sync)
            if game.status != "active":  # no more prompts
                self.ended(game)
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
            unsure = sync is not None and sync.unsure
            await self.store.set_marks(
                game_id,
                marks,
                release=None if keep or unsure else (name, self.owner),
                timers=timers,
                cancel=cancel,
            )
        if sync.again:
            self._again.setdefault(game_id, True)
        shown = sync.marks.get("log")  # the moves the thread shows now: commit to thread
        before = game.shown_versions.get("log", -1)
        self.metrics.shown(game_id, before, None if shown is None else shown[1])
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
        claim = await self.store.claim(name, self.owner, PUBLISH_LEASE)
        while claim is Claim.REFUSED:
            await asyncio.sleep(RETRY_SECONDS)
            claim = await self.store.claim(name, self.owner, PUBLISH_LEASE)
        self._claimed(game_id, claim)
        self._held[game_id] = loop.time()
        self._gaps.discard(game_id)  # the round reads the game after this

    async def _renew(self, game_id: int, name: str) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(RENEW_EVERY)
            claimed = loop.time()
            try:
                renewed = await self.store.try_claim(name, self.owner, PUBLISH_LEASE)
            except DatabaseUnavailable:
                renewed = False
            if renewed:
                if claimed - self._held.get(game_id, claimed) >= LEASE_REUSE:
                    self._gaps.add(game_id)  # it may have run out meanwhile
                self._held[game_id] = claimed
            # else: lost, or cannot tell; :meth:`confirm` asks again before the next write

    async def confirm(self, game_id: int, version: int) -> None:
        """Before a round showing ``version`` writes to the front end (a post, a board's
        edit): raise :class:`ClaimLost` unless this process still holds the game's
        publishing claim and no other process showed a newer version meanwhile. Free
        while the claim was renewed without a gap (nobody else can have held it); else
        the claim is taken again (renewed if still ours) and the game's marks read."""
        loop = asyncio.get_running_loop()
        held = self._held.get(game_id)
        if held is not None and loop.time() - held < LEASE_REUSE and game_id not in self._gaps:
            return
        claimed = loop.time()
        claim = await self.store.claim(f"publish:{game_id}", self.owner, PUBLISH_LEASE)
        if claim is Claim.REFUSED:
            self._held.pop(game_id, None)
            raise ClaimLost(game_id)
        self._claimed(game_id, claim)
        self._held[game_id] = claimed
        info = await self.store.info(game_id)
        shown = info.shown_versions
        # a newer version was stored (and may have been shown by a round whose marks
        # were not written: the database went away after its edit) or was shown: this
        # round's copy is stale; a fresh round shows the newest
        if max(info.version, shown.get("board", -1), shown.get("log", -1)) > version:
            raise ClaimLost(game_id)
        self._gaps.discard(game_id)

    def _claimed(self, game_id: int, claim: Claim) -> None:
        if claim is Claim.TAKEN_OVER:
            self._taken_over.add(game_id)

    def taken_over(self, game_id: int) -> bool:
        """Whether this process took the game's claim over from another process whose
        lease had run out, since this was last asked. That process died, or lost the
        database, and may have shown things it never recorded: its posts, which a front
        end's budget (Discord's posts per channel) must count all the same."""
        taken = game_id in self._taken_over
        self._taken_over.discard(game_id)
        return taken

    def retrying(self, game_id: int) -> bool:
        """Whether the game's last round in this process failed: it may have shown
        things before it could record them (the database went away at its end)."""
        return game_id in self._failures

    # ------------------------------------------------------------ catching up

    async def catch_up(self) -> int:
        """Sync every game whose surfaces may be behind its stored state (after a start
        or a reconnect); returns how many were synced."""
        while True:
            try:
                games = await self.store.list_games(statuses=["active", "finished"])
                break
            except DatabaseUnavailable as error:  # a reconnect while the database is away
                log.warning("catching up: %r; again in %ss", error, CATCH_UP_RETRY)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stopping.wait(), CATCH_UP_RETRY)
                    return 0  # the bot is stopping: its next start catches up
        behind = [g for g in games if self.behind(g)]
        now = datetime.now(UTC)  # storage stamps started_at with the wall clock
        opening = [g for g in behind if self.opening(g, now)]
        for game in opening:  # its Start handler publishes it once its thread is open
            self._defer(game.id, START_GRACE)
        behind = [g for g in behind if g not in opening]
        self.metrics.caught_up(len(behind))
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
        """Whether the game's surfaces may not show its stored state: cheap, from the
        marks only (a finished game counts until its board showed the end; an active one
        until it prompted its first turn, which a computer may be playing now)."""
        if game.status not in ("active", "finished"):
            return False
        shown = game.shown_versions
        board = shown.get("board", -1)
        if game.status == "finished":
            return board < game.version or ("final" not in shown and "log" in shown)
        pending = (
            shown.get("log", board) < game.version
            or shown.get("log_intent", -1) > shown.get("log", board)
            or shown.get("prompt", board) < 0 <= board  # no turn prompted yet
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
        self._closed = True
        for handle in self._deferred.values():
            handle.cancel()
        self._deferred.clear()


def _retrieve(future: asyncio.Future[None]) -> None:
    """A sync nobody awaited: its error was logged by ``_failed``."""
    if not future.cancelled():
        future.exception()
