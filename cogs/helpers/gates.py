"""What stands between Discord and the cogs: the work the bot must finish before it
stops, the door interactions come in by, and the pace of the bot's REST calls.

Work (:class:`Work`)
--------------------
One place knows every task whose end matters: each interaction's handler tasks and the
background work the cogs start (``bot.background(coroutine, name)``). A graceful stop
(``bot.shutdown()``, on SIGINT or SIGTERM) closes the door, then waits for all of them
(``bot.drain(timeout)``), bounded by ``SHUTDOWN_GRACE_SECONDS``; only then are the
computer players, the Discord session and storage closed (and, as the process ends,
the worker processes: ``tables/workers.py``), so no handler meets a closed HTTP session
half-way through a post (the old ``RuntimeError: Session is closed``).
What is still running after the grace is cancelled, quietly: every move is stored
before it is shown, so a cancelled post loses no move.

Handler tasks are discord.py's own (a slash command's ``CommandTree-invoker``, a
component's dispatch task, ``on_interaction`` listeners). Options weighed: counting in
``guarded`` (misses autocomplete, listeners, anything not wrapped); naming conventions
(private to discord.py); a task factory set *only while* discord.py parses one
``INTERACTION_CREATE`` (chosen). The tasks that parse creates, synchronously, are
exactly that interaction's handlers; the factory is the previous one again as soon as
the parse returns, so nothing else is affected.

Background work must end by itself once ``bot.stopping`` is set (sleep with
``bot.pause(seconds)``, which returns ``False`` at once when the bot is stopping; wait
for READY with ``bot.until_ready()``, which does the same). So the stop waits for all of
it, even before READY: a move answered in the first seconds after a start is shown
before the process ends (the board edit its publishing had left for later included).

The door (:class:`Door`)
------------------------
It wraps discord.py's ``INTERACTION_CREATE`` parser. Two refusals, each answered with
one ephemeral interaction callback (exempt from the REST budget) and nothing else:
nothing is stored, nothing is published.

- While the bot stops: :data:`RESTARTING`.
- A user over their flood allowance (:class:`FloodGuard`): :data:`SLOW_DOWN`. Each user
  has a token bucket, ``FLOOD_BURST`` interactions at once, refilled at
  ``FLOOD_PER_SECOND``. The defaults (10, then 2 per second) are far above a person
  playing, even quickly: a chained Santa's Workshop turn is 3 to 6 clicks, each
  waiting for the panel it answers, and a Tonttu player makes one choice per phase.
  A script or a stuck key gets 2 interactions a second through, so one user cannot
  spend more than a few of the bot's REST calls per second, whatever they send.
  Autocomplete (every keystroke of ``/play``) has its own, larger bucket, and is
  answered with no choices beyond it.

The REST budget (:class:`RestBudget`)
-------------------------------------
Discord allows 50 rate-limited REST requests per second per bot token (interaction
callbacks and interaction webhooks are exempt). discord.py obeys each route's bucket
and a global 429 after the fact, but does not pace itself. The budget keeps this
process under ``REST_BUDGET_PER_SECOND`` (default 45) in every sliding second, as
Discord counts them (:class:`RestBudget` says how, whatever the latency). It hooks
discord.py's HTTP client through its public ``http_trace`` option (an aiohttp
``TraceConfig``): ``on_request_start`` is awaited before each request goes on the
wire, so every attempt is paced, discord.py's own retries of a 429 or a 5xx included
(a hook around ``HTTPClient.request`` would count one call per retried request).
Processes sharing one token share Discord's budget: give each ``45 / N``, rounded down
(a budget is a whole number of requests: its slots).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine, Iterator, Mapping
from types import SimpleNamespace
from typing import Any, TypeVar

import aiohttp
import discord
import yarl

import i18n
from cogs.helpers.logs import interaction_place
from engine.words import N_
from storage.errors import DatabaseUnavailable
from tables.logs import about
from tables.metrics import OFF, Metrics

log = logging.getLogger("bot.gates")

T = TypeVar("T")

RESTARTING = N_("The bot is restarting; try again in a few seconds.")
SLOW_DOWN = N_(
    "Slow down a little: that was more clicks than I take from one person at once. "
    "Wait a second, then try again."
)
"""The refusals (templates: each is answered in the user's language, the ``locale`` of
the raw interaction)."""
CANCEL_GRACE = 2.0
"""Seconds the tasks cancelled at close get to end (they are only cancelled)."""
AUTOCOMPLETE_FACTOR = 4
"""Autocomplete's bucket is this many times larger and faster than clicks'."""
PRUNE_ABOVE = 10_000
"""Buckets kept before full (idle) ones are forgotten."""
KINDS = {
    discord.InteractionType.application_command.value: "command",
    discord.InteractionType.component.value: "component",
    discord.InteractionType.autocomplete.value: "autocomplete",
    discord.InteractionType.modal_submit.value: "modal",
}
"""An interaction's kind, as the metrics label it."""


Fence = Callable[[], Coroutine[Any, Any, None]]

_FENCE: contextvars.ContextVar[Fence | None] = contextvars.ContextVar("fence", default=None)


@contextlib.contextmanager
def fenced(check: Fence) -> Iterator[None]:
    """The REST requests made in this block are sent only after ``check()`` returned,
    each attempt anew (:meth:`RestBudget.trace`): discord.py sends a request again after
    a 429 or a 5xx, seconds later, and by then the request may be one that must not go
    (a board's edit, once another process has shown a newer move). What ``check``
    raises ends the request unsent."""
    token = _FENCE.set(check)
    try:
        yield
    finally:
        _FENCE.reset(token)


def within(times: deque[float], now: float, window: float) -> deque[float]:
    """``times`` (oldest first) without those ``window`` seconds or more before ``now``."""
    while times and times[0] <= now - window:
        times.popleft()
    return times


# --------------------------------------------------------------------------- work


class Work:
    """Tasks the bot lets finish before it closes: interaction handlers and background work."""

    def __init__(self) -> None:
        self.handlers: set[asyncio.Future[Any]] = set()
        self.background: set[asyncio.Task[Any]] = set()
        self._hurry = asyncio.Event()

    def track_handler(self, task: asyncio.Future[Any]) -> None:
        self.handlers.add(task)
        task.add_done_callback(self.handlers.discard)

    def spawn(self, work: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]:
        """Run ``work`` in a task the bot waits for before it closes."""
        task = asyncio.get_running_loop().create_task(work, name=name)
        self.background.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self.background.discard(task)
        if task.cancelled() or (error := task.exception()) is None:
            return
        if isinstance(error, DatabaseUnavailable):  # its stored timer does it later
            log.warning("background work %s: %r", task.get_name(), error)
        else:
            log.error("background work %s failed", task.get_name(), exc_info=error)

    def running(self) -> set[asyncio.Future[Any]]:
        tasks: set[asyncio.Future[Any]] = self.handlers | self.background
        return {t for t in tasks if not t.done() and t is not asyncio.current_task()}

    def hurry(self) -> None:
        """End a :meth:`drain` under way now (a second Ctrl-C)."""
        self._hurry.set()

    async def drain(self, timeout: float) -> int:  # noqa: ASYNC109
        """Wait until every tracked task is done, tasks started meanwhile included, for
        at most ``timeout`` seconds; returns how many are still running."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        hurry = loop.create_task(self._hurry.wait(), name="drain-hurry")
        try:
            while (pending := self.running()) and not hurry.done():
                left = end - loop.time()
                if left <= 0:
                    break
                await asyncio.wait(
                    pending | {hurry}, timeout=left, return_when=asyncio.FIRST_COMPLETED
                )
        finally:
            hurry.cancel()
        return len(self.running())

    async def cancel(self) -> int:
        """Cancel every tracked task still running and let them end (briefly); returns
        how many were cancelled."""
        tasks = self.running()
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=CANCEL_GRACE)
        return len(tasks)


# --------------------------------------------------------------------------- flood guard


class TokenBucket:
    """``capacity`` tokens, refilled at ``per_second``; one taken per interaction."""

    __slots__ = ("capacity", "per_second", "tokens", "updated")

    def __init__(self, capacity: float, per_second: float, now: float) -> None:
        self.capacity = capacity
        self.per_second = per_second
        self.tokens = capacity
        self.updated = now

    def refill(self, now: float) -> float:
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.per_second)
        self.updated = now
        return self.tokens

    def take(self, now: float) -> bool:
        if self.refill(now) >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class FloodGuard:
    """Per user: whether one more interaction is let in now.

    >>> guard = FloodGuard(burst=2, per_second=1.0, clock=lambda: 0.0)
    >>> [guard.allow(7) for _ in range(3)]
    [True, True, False]
    """

    def __init__(
        self, burst: int, per_second: float, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.burst = burst
        self.per_second = per_second
        self.clock = clock
        self._buckets: dict[tuple[int, bool], TokenBucket] = {}
        self.refused = 0

    @property
    def enabled(self) -> bool:
        return self.burst > 0 and self.per_second > 0

    def allow(self, user_id: int, *, autocomplete: bool = False) -> bool:
        if not self.enabled:
            return True
        now = self.clock()
        key = (user_id, autocomplete)
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= PRUNE_ABOVE:
                self._prune(now)
            factor = AUTOCOMPLETE_FACTOR if autocomplete else 1
            bucket = self._buckets[key] = TokenBucket(
                self.burst * factor, self.per_second * factor, now
            )
        if bucket.take(now):
            return True
        self.refused += 1
        return False

    def _prune(self, now: float) -> None:
        """Forget the users whose bucket is full again: they start full anyway."""
        for key, bucket in list(self._buckets.items()):
            if bucket.refill(now) >= bucket.capacity:
                del self._buckets[key]


# --------------------------------------------------------------------------- the door


def user_id_of(data: Mapping[str, Any]) -> int:
    """Who sent an INTERACTION_CREATE (a member on a server, a user in a DM)."""
    user = (data.get("member") or {}).get("user") or data.get("user") or {}
    return int(user.get("id", 0))


class Door:
    """Wraps discord.py's ``INTERACTION_CREATE`` parser: refuses while the bot stops or
    a user floods, and tracks the handler tasks of what it lets in."""

    def __init__(
        self,
        client: discord.Client,
        work: Work,
        flood: FloodGuard,
        seen: Callable[[int, object], None] = lambda user, locale: None,
        metrics: Metrics = OFF,
    ) -> None:
        self.client = client
        self.work = work
        self.flood = flood
        self.metrics = metrics
        self.seen = seen
        """Told each user's locale as their interaction comes in (``Languages.seen``)."""
        self.closed = False
        self._refusing: set[int] = set()
        """Users being refused now (logged once per streak, not once per click)."""
        state: Any = client._connection  # its parser table is where interactions come in
        self._state = state
        self._parse: Callable[[Any], None] = state.parsers["INTERACTION_CREATE"]
        state.parsers["INTERACTION_CREATE"] = self.parse

    def parse(self, data: dict[str, Any]) -> None:
        with about(**interaction_place(data, self.client.shard_count)):  # its log lines'
            self._let_in(data)

    def _let_in(self, data: dict[str, Any]) -> None:
        kind = KINDS.get(data.get("type", 0), "other")
        handling = self.metrics.arrived(int(data.get("id") or 0), kind)  # its answer timed
        if self.closed:
            self.metrics.interaction(kind, "restarting")
            self._refuse(data, RESTARTING)
            return
        autocomplete = data.get("type") == discord.InteractionType.autocomplete.value
        user = user_id_of(data)
        if not self.flood.allow(user, autocomplete=autocomplete):
            if user not in self._refusing:
                self._refusing.add(user)
                log.info("user %s: too many interactions at once; told to slow down", user)
            self.metrics.interaction(kind, "flooded")
            self._refuse(data, SLOW_DOWN)
            return
        self._refusing.discard(user)
        self.seen(user, data.get("locale"))
        loop = asyncio.get_running_loop()
        previous = loop.get_task_factory()

        def tracked(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> Any:
            if previous is not None:
                task = previous(loop, coro, **kwargs)
            else:
                task = asyncio.Task(coro, loop=loop, **kwargs)
            self.work.track_handler(task)
            if handling is not None:
                handling.track(task)  # counted by its outcome once its handlers end
            return task

        loop.set_task_factory(tracked)
        entered = handling.enter() if handling is not None else None
        try:
            self._parse(data)
        finally:
            loop.set_task_factory(previous)
            if handling is not None and entered is not None:
                handling.leave(entered)

    def _refuse(self, data: dict[str, Any], template: str) -> None:
        sentence = i18n.words(i18n.language(data.get("locale"))).gettext(template)
        payload: Any = data
        interaction: discord.Interaction[Any] = discord.Interaction(data=payload, state=self._state)
        task = asyncio.get_running_loop().create_task(
            self._answer(interaction, sentence), name="door-refusal"
        )
        self.work.track_handler(task)

    @staticmethod
    async def _answer(interaction: discord.Interaction[Any], sentence: str) -> None:
        try:
            if interaction.type is discord.InteractionType.autocomplete:
                await interaction.response.autocomplete([])
            else:
                await interaction.response.send_message(sentence, ephemeral=True)
        except (discord.HTTPException, aiohttp.ClientError, RuntimeError) as error:
            log.info("could not answer interaction %s (%s): %s", interaction.id, sentence, error)


# --------------------------------------------------------------------------- REST budget


class RestBudget:
    """At most ``per_second`` budgeted requests *arriving at Discord* in any sliding
    second, however long each takes (``0``: no pacing).

    ``per_second`` slots; a request takes one before it is sent and gives it back one
    second after its answer began (or it failed). Why after the answer, not after the
    send: Discord counts a request when it arrives, somewhere between the two, and a
    burst sent at once may arrive bunched up later, beside the next ones (measured on
    the fake Discord: 65 in a second from a window of 45 sends). With the slot held
    until a second after the answer, of any ``per_second + 1`` requests the last one
    sent waited for the slot of one that arrived at least a second before it. Its cost:
    a steady flood runs at ``per_second / (1 + latency)`` (about 42 per second at
    45 with Discord's ~70 ms), bursts of up to ``per_second`` go at once. Waiters are
    served in order.

    Half of it is kept for what players wait for. An update that only keeps the thread
    tidy, and can as well go a few seconds later (a phase's "who has chosen" line, a
    board picture whose change a reveal has just told), asks :meth:`spare` first and
    waits (coalescing) while less than half the slots are free: at the bot's limit,
    such updates would otherwise fill the budget and a reveal or a turn prompt would
    queue behind them (measured: 20 busy Workshop Tonttu tables kept the budget full,
    and a reveal waited up to 0.7 s for a slot). A yes counts as a slot taken for a
    window, so that many tables asking at once (one reveal each) are not all told yes.
    """

    def __init__(
        self,
        per_second: int,
        *,
        window: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        later: Callable[[float, Callable[[], None]], object] | None = None,
    ) -> None:
        # Whole slots: a fraction is refused, not cut (``REST_BUDGET_PER_SECOND``'s range
        # refuses it before the bot starts, with a sentence).
        if not float(per_second).is_integer() or per_second < 0:
            raise ValueError(
                f"a budget is a whole number of requests of 0 or more, not {per_second}"
            )
        self.per_second = int(per_second)
        self.window = window
        self.clock = clock
        self._later = later
        self._slots = asyncio.Semaphore(max(1, self.per_second))
        self.free = self.per_second
        """Slots free now."""
        self._promised: deque[float] = deque()
        """When :meth:`spare` said yes within the last window."""
        self.sent = 0
        self.in_flight = 0
        self.waited = 0.0
        """Seconds requests spent waiting for the budget, in all."""
        self.on_wait: Callable[[float], None] | None = None
        """Told how long each request that had to wait waited (the metrics)."""

    async def acquire(self) -> None:
        """Take a slot (waiting for one if none is free)."""
        if self.per_second <= 0:
            return
        if self._slots.locked():
            started = self.clock()
            await self._slots.acquire()
            waited = self.clock() - started
            self.waited += waited
            if self.on_wait is not None:
                self.on_wait(waited)
        else:
            await self._slots.acquire()
        self.free -= 1
        self.sent += 1
        self.in_flight += 1

    def release(self) -> None:
        """The request was answered (or failed): its slot is free a ``window`` later."""
        if self.per_second <= 0:
            return
        self.in_flight -= 1
        later = self._later or asyncio.get_running_loop().call_later
        later(self.window, self._give_back)

    def _give_back(self) -> None:
        self.free += 1
        self._slots.release()

    def spare(self, *, overdue: bool = False) -> bool:
        """Whether an update that can wait should send its request now: more than half
        the slots are free (``overdue``, held back long enough already: any slot), not
        counting those promised by this method's yeses within the last window (a
        request told yes may take its slot a moment later, or may have taken it: counted
        twice then, which errs on the side of waiting). Always yes with no pacing."""
        if self.per_second <= 0:
            return True
        now = self.clock()
        promised = within(self._promised, now, self.window)
        keep = 0 if overdue else self.per_second // 2
        if self.free - len(promised) <= keep:
            return False
        promised.append(now)
        return True

    def trace(
        self, counted: Callable[[yarl.URL], bool], metrics: Metrics = OFF
    ) -> aiohttp.TraceConfig:
        """An aiohttp trace that paces every request for which ``counted(url)`` is true,
        checks the :func:`fenced` ones before each attempt, and counts every REST
        request's answer in ``metrics``."""

        async def on_request_start(
            session: aiohttp.ClientSession,
            context: SimpleNamespace,
            params: aiohttp.TraceRequestStartParams,
        ) -> None:
            if counted(params.url):
                await self.acquire()
                context.budgeted = True
            fence = _FENCE.get()
            if fence is not None:
                try:  # after the budget's wait: right before it goes out
                    await fence()
                except BaseException:
                    # no end event comes for a request never begun; one exempt from the
                    # budget (an interaction's followup) took no slot
                    if getattr(context, "budgeted", False):
                        context.budgeted = False
                        self.release()
                    raise

        async def on_request_done(
            session: aiohttp.ClientSession, context: SimpleNamespace, params: object
        ) -> None:
            if getattr(context, "budgeted", False):
                context.budgeted = False
                self.release()
            if metrics.enabled:
                answered(metrics, params)

        config = aiohttp.TraceConfig()
        config.on_request_start.append(on_request_start)
        config.on_request_end.append(on_request_done)
        config.on_request_exception.append(on_request_done)
        return config


def api_path(url: yarl.URL) -> str | None:
    """A REST request's path under Discord's API (``None``: not a REST call, e.g. the
    gateway's websocket or the CDN)."""
    text, base = str(url), discord.http.Route.BASE
    return text[len(base) :] if text.startswith(base) else None


def answered(metrics: Metrics, params: object) -> None:
    """Count a REST request's answer (``TraceRequestEndParams``) or failure (no answer:
    ``TraceRequestExceptionParams``) in ``metrics``."""
    if isinstance(params, aiohttp.TraceRequestEndParams):
        path = api_path(params.url)
        if path is not None:
            headers = params.response.headers
            scope = "global" if headers.get("X-RateLimit-Global") else None
            scope = scope or headers.get("X-RateLimit-Scope")
            metrics.rest_answered(params.method, path, params.response.status, scope)
    elif isinstance(params, aiohttp.TraceRequestExceptionParams):
        path = api_path(params.url)
        if path is not None:
            metrics.rest_answered(params.method, path, None)


def budgeted(url: yarl.URL, api_base: str, application_id: int | None) -> bool:
    """Whether a request counts against Discord's global budget: a REST call under
    ``api_base`` that is not an interaction callback nor an interaction webhook (the
    gateway's websocket, the CDN and those are exempt)."""
    text = str(url)
    if not text.startswith(api_base):
        return False
    path = text[len(api_base) :]
    if path.startswith("/interactions/"):
        return False
    return not (application_id and path.startswith(f"/webhooks/{application_id}/"))
