"""What an operator measures: the bot's Prometheus metrics, and the event loop's heartbeat.

One :class:`Metrics` per bot, with a registry of its own (not ``prometheus_client``'s
global one), so that the tests can run several bots in one process; the web server
reads it at ``/metrics`` (``web/health.py``). The code that is measured calls one method
of it per event (a counter's increment, a histogram's observation: about a microsecond),
with label values from small fixed sets only: never a user, a game or a channel. A bot
whose metrics nobody can read (neither ``WEB_PORT`` nor ``METRICS_PORT``) counts
nothing: every method returns at once while :attr:`Metrics.enabled` is off.

Discord-free: the Discord side (``cogs/helpers/gates.py``) hands over an interaction's
id and kind as it comes in, and each REST request's method, path and status as it is
answered; storage is measured around the table core's calls of it.

The metrics are read at ``/metrics``, beside ``/healthz`` (the heartbeat,
:class:`Heartbeat`) and ``/readyz``: ``web/health.py``.
"""

from __future__ import annotations

import asyncio
import contextvars
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

disable_created_metrics()  # type: ignore[no-untyped-call]  # no ``*_created`` series

PREFIX = "workshop_"
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0)
"""Seconds: a click's answer (Discord gives it 3 s), a submit, a wait for the budget."""
LAG_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 60.0)
"""Seconds from a move's commit to the thread showing it (deferrals last seconds)."""
CPU_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Seconds of a computer's decision: greedy about a millisecond, strong hundreds."""
LOOP_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)

OUTCOMES = ("ok", "refused", "unreachable", "failed")
"""How a handled interaction ended, from the best to the worst (the worst one counts):
answered; an expected error's sentence (not your turn, a stale board…); Discord could
not be reached to answer; a bug (the apology with an error id). The door's refusals,
``restarting`` and ``flooded``, are counted as they are answered."""
ROUTES_KEPT = 64
"""Distinct REST routes labelled; any further one is ``other`` (a bound on the series)."""
PENDING_KEPT = 10_000
"""Interactions waiting for their first answer, and games with moves not shown yet,
remembered at most (the oldest are forgotten: an interaction never answered, a game
another process shows)."""
MOVES_KEPT = 16
"""Moves per game waiting to be shown, remembered at most."""
GAMES_EVERY = 15.0
"""Seconds a count of the open games is kept before a scrape asks storage again."""

SEGMENT = re.compile(r"@?[a-z][a-z0-9_-]{0,31}")
"""A path segment kept as it is in a route's label (``channels``, ``@original``);
digits become ``{id}``, anything else (a token) ``{token}``."""

_handling: contextvars.ContextVar[Handling | None] = contextvars.ContextVar(
    "workshop_interaction", default=None
)


def route_of(method: str, path: str) -> str:
    """A REST request's route as a label: no id, no token.

    >>> route_of("POST", "/interactions/123/aW50ZXJhY3Rpb246OjEyMzQ1Njc4OTA6OmFiYw/callback")
    'POST /interactions/{id}/{token}/callback'
    >>> route_of("PATCH", "/channels/42/messages/7?with_components=true")
    'PATCH /channels/{id}/messages/{id}'
    """
    parts = []
    for part in path.partition("?")[0].strip("/").split("/"):
        if part.isdigit():
            parts.append("{id}")
        elif SEGMENT.fullmatch(part):
            parts.append(part)
        else:
            parts.append("{token}")
    return f"{method} /{'/'.join(parts)}"


def mark(outcome: str) -> None:
    """The interaction being handled here (in this task) ended with ``outcome`` (one of
    :data:`OUTCOMES`): called where a handler turns an error into its sentence."""
    handling = _handling.get()
    if handling is not None and OUTCOMES.index(outcome) > OUTCOMES.index(handling.outcome):
        handling.outcome = outcome


class Handling:
    """One interaction while its handler tasks run: counted once, when the last ends,
    with the worst outcome a handler marked (:func:`mark`)."""

    __slots__ = ("kind", "metrics", "outcome", "running")

    def __init__(self, metrics: Metrics, kind: str) -> None:
        self.metrics = metrics
        self.kind = kind
        self.outcome = "ok"
        self.running = 0

    def enter(self) -> contextvars.Token[Handling | None]:
        """The handler tasks created from now on (until :meth:`leave`) are this
        interaction's: they see it in their context."""
        return _handling.set(self)

    def track(self, task: asyncio.Future[Any]) -> None:
        self.running += 1
        task.add_done_callback(self._done)

    def leave(self, token: contextvars.Token[Handling | None]) -> None:
        _handling.reset(token)
        if not self.running:  # no handler at all: it ends here
            self.metrics.interaction(self.kind, self.outcome)

    def _done(self, task: asyncio.Future[Any]) -> None:
        self.running -= 1
        if not self.running:
            self.metrics.interaction(self.kind, self.outcome)


class Heartbeat:
    """Whether the event loop answers: a task that wakes every :attr:`every` seconds
    notes the time (and how late it woke: the loop's lag). A handler of ``/healthz``
    runs on the same loop, so answering at all proves little; a beat older than
    :attr:`stale` says the loop was too busy (or blocked) to run a due timer for that
    long, or that the heartbeat itself died."""

    def __init__(
        self,
        *,
        every: float = 0.25,
        stale: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        lag: Callable[[float], None] = lambda seconds: None,
    ) -> None:
        self.every, self.stale, self.clock = every, stale, clock
        self.lag = lag
        self.last: float | None = None
        """When the loop last ran the heartbeat (``None``: it has not started)."""

    def beat(self, slept_since: float | None = None) -> None:
        """A beat now; ``slept_since``: when the heartbeat began to sleep (its lateness,
        beyond :attr:`every`, is the loop's lag)."""
        now = self.clock()
        if slept_since is not None:
            self.lag(max(0.0, now - slept_since - self.every))
        self.last = now

    def age(self) -> float | None:
        """Seconds since the last beat (``None``: none yet)."""
        return None if self.last is None else self.clock() - self.last

    def alive(self) -> bool:
        age = self.age()
        return age is not None and age <= self.stale

    async def run(self) -> None:
        self.beat()
        while True:
            since = self.clock()
            await asyncio.sleep(self.every)
            self.beat(since)


class _Scraped(Collector):
    """Gauges read when scraped: the open games (counted by storage, kept a few
    seconds: :meth:`Metrics.refresh`) and each shard's connection."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterable[GaugeMetricFamily]:
        games = GaugeMetricFamily(
            f"{PREFIX}games_open",
            "Games in a lobby or running, by kind and status (all processes: read from "
            "storage, at most a few seconds old).",
            labels=["kind", "status"],
        )
        for (kind, status), count in sorted(self.metrics.games_open.items()):
            games.add_metric([kind, status], count)
        yield games
        shards = GaugeMetricFamily(
            f"{PREFIX}gateway_shard_up",
            "1 while this process's shard is connected to Discord's gateway, else 0.",
            labels=["shard"],
        )
        states = self.metrics.shards() if self.metrics.shards is not None else {}
        for shard, up in sorted(states.items()):
            shards.add_metric([str(shard)], 1.0 if up else 0.0)
        yield shards


class Metrics:
    """The bot's metrics (see the module doc); ``enabled``: whether to count at all."""

    def __init__(self, *, enabled: bool = True, clock: Callable[[], float] = time.monotonic):
        self.enabled = enabled
        self.clock = clock
        self.registry = registry = CollectorRegistry()
        self.interactions = Counter(
            f"{PREFIX}interactions",
            "Interactions by kind (command, component, autocomplete, modal) and outcome "
            "(ok, refused, unreachable, failed; restarting and flooded at the door).",
            ["kind", "outcome"],
            registry=registry,
        )
        self.first_response = Histogram(
            f"{PREFIX}interaction_first_response_seconds",
            "From an interaction's arrival to Discord's answer to its first response.",
            ["kind"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.commit_to_thread = Histogram(
            f"{PREFIX}commit_to_thread_seconds",
            "From a move's commit to the end of the publishing round that showed it in "
            "its thread (moves this process stored and showed).",
            buckets=LAG_BUCKETS,
            registry=registry,
        )
        self.rounds = Counter(
            f"{PREFIX}publish_rounds",
            "Publishing rounds (a game's thread brought up to date) by outcome (ok, "
            "failed: tried again later).",
            ["outcome"],
            registry=registry,
        )
        self.catch_up_rounds = Counter(
            f"{PREFIX}catch_up_rounds",
            "Catch-ups (at a start and after each gateway reconnect).",
            registry=registry,
        )
        self.catch_up_games = Counter(
            f"{PREFIX}catch_up_games",
            "Games found behind by a catch-up and synced.",
            registry=registry,
        )
        self.rest = Counter(
            f"{PREFIX}rest_requests",
            "REST requests to Discord (every attempt, retries included) by route and "
            "status (error: no answer).",
            ["route", "status"],
            registry=registry,
        )
        self.rate_limited = Counter(
            f"{PREFIX}rest_rate_limited",
            "REST answers 429 by scope (user, global, shared).",
            ["scope"],
            registry=registry,
        )
        self.budget_wait = Histogram(
            f"{PREFIX}rest_budget_wait_seconds",
            "Time a REST request waited for this process's REST budget (only those that waited).",
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.submit = Histogram(
            f"{PREFIX}db_submit_seconds",
            "A move's submit to storage (its transaction, conflicts included).",
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.conflicts = Counter(
            f"{PREFIX}db_conflicts",
            "Submits refused because the game moved on meanwhile (a stale version).",
            registry=registry,
        )
        self.decision_cpu = Histogram(
            f"{PREFIX}computer_decision_cpu_seconds",
            "CPU seconds of one computer player's decision, by game kind and level.",
            ["kind", "level"],
            buckets=CPU_BUCKETS,
            registry=registry,
        )
        self.decision_wait = Histogram(
            f"{PREFIX}computer_decision_seconds",
            "From asking for a computer's decision to having it (its turn in the "
            "queue included), by game kind.",
            ["kind"],
            buckets=CPU_BUCKETS,
            registry=registry,
        )
        self.disconnects = Counter(
            f"{PREFIX}gateway_disconnects",
            "Times a shard of this process lost its gateway connection.",
            ["shard"],
            registry=registry,
        )
        self.loop_lag = Histogram(
            f"{PREFIX}event_loop_lag_seconds",
            "How late the event loop ran a timer that was due (the heartbeat's).",
            buckets=LOOP_BUCKETS,
            registry=registry,
        )
        ProcessCollector(registry=registry)
        GCCollector(registry=registry)
        PlatformCollector(registry=registry)
        registry.register(_Scraped(self))
        self.games: Callable[[], Awaitable[Mapping[tuple[str, str], int]]] | None = None
        """Counts the open games by (kind, status) in storage (set by the bot)."""
        self.games_open: Mapping[tuple[str, str], int] = {}
        self.games_every = GAMES_EVERY
        self._games_at: float | None = None
        self.shards: Callable[[], Mapping[int, bool]] | None = None
        """Each shard of this process: connected or not (set by the bot)."""
        self._arrivals: dict[int, tuple[float, str]] = {}
        self._moves: dict[int, list[tuple[int, float]]] = {}
        self._routes: set[str] = set()

    # ------------------------------------------------------------ interactions

    def arrived(self, interaction_id: int, kind: str) -> Handling | None:
        """An interaction came in: its first response is timed from now. Returns what
        counts it when its handlers end (``None`` when not counting)."""
        if not self.enabled:
            return None
        arrivals = self._arrivals
        if len(arrivals) >= PENDING_KEPT:
            del arrivals[next(iter(arrivals))]
        arrivals[interaction_id] = (self.clock(), kind)
        return Handling(self, kind)

    def interaction(self, kind: str, outcome: str) -> None:
        if self.enabled:
            self.interactions.labels(kind, outcome).inc()

    # ------------------------------------------------------------ REST

    def rest_answered(
        self, method: str, path: str, status: int | None, scope: str | None = None
    ) -> None:
        """A REST request (``path`` under the API's base) was answered with ``status``
        (``None``: no answer); ``scope``: a 429's (``X-RateLimit-Scope``)."""
        if not self.enabled:
            return
        route = route_of(method, path)
        if route.startswith("POST /interactions/") and route.endswith("/callback"):
            first = self._arrivals.pop(int(path.strip("/").split("/")[1]), None)
            if first is not None and status is not None:
                self.first_response.labels(first[1]).observe(self.clock() - first[0])
        if route not in self._routes:
            if len(self._routes) >= ROUTES_KEPT:
                route = "other"
            else:
                self._routes.add(route)
        self.rest.labels(route, "error" if status is None else str(status)).inc()
        if status == 429:
            self.rate_limited.labels(scope if scope in ("user", "global", "shared") else "").inc()

    def budget_waited(self, seconds: float) -> None:
        if self.enabled:
            self.budget_wait.observe(seconds)

    # ------------------------------------------------------------ storage and publishing

    def submitted(self, game_id: int, version: int | None, seconds: float) -> None:
        """A submit took ``seconds``; ``version``: the game's after it (``None``: it
        was refused as a conflict). A committed move waits to be shown (:meth:`shown`)."""
        if not self.enabled:
            return
        self.submit.observe(seconds)
        if version is None:
            self.conflicts.inc()
            return
        moves = self._moves.get(game_id)
        if moves is None:
            if len(self._moves) >= PENDING_KEPT:
                del self._moves[next(iter(self._moves))]
            moves = self._moves[game_id] = []
        elif len(moves) >= MOVES_KEPT:
            del moves[0]
        moves.append((version, self.clock()))

    def shown(self, game_id: int, before: int, upto: int | None) -> None:
        """A round of the game ended: its thread showed the log up to ``before`` when the
        round began and up to ``upto`` now (``None``: the round showed no log). A move
        shown before the round began was shown elsewhere (another process): not timed."""
        moves = self._moves.get(game_id) if self.enabled else None
        if not moves or upto is None:
            return
        now = self.clock()
        waiting = []
        for version, committed in moves:
            if before < version <= upto:
                self.commit_to_thread.observe(now - committed)
            elif version > upto:
                waiting.append((version, committed))
        if waiting:
            self._moves[game_id] = waiting
        else:
            del self._moves[game_id]

    def round_ended(self, ok: bool) -> None:
        if self.enabled:
            self.rounds.labels("ok" if ok else "failed").inc()

    def caught_up(self, games: int) -> None:
        if self.enabled:
            self.catch_up_rounds.inc()
            self.catch_up_games.inc(games)

    # ------------------------------------------------------------ computers, gateway

    def decided(self, kind: str, level: str, cpu: float) -> None:
        """A computer's decision was computed, in ``cpu`` seconds of CPU."""
        if self.enabled:
            self.decision_cpu.labels(kind, level).observe(cpu)

    def decision_waited(self, kind: str, seconds: float) -> None:
        if self.enabled:
            self.decision_wait.labels(kind).observe(seconds)

    def disconnected(self, shard: int) -> None:
        if self.enabled:
            self.disconnects.labels(str(shard)).inc()

    def heartbeat(self) -> Heartbeat:
        """A heartbeat whose lateness is :attr:`loop_lag`."""
        return Heartbeat(lag=lambda seconds: self.loop_lag.observe(seconds))

    # ------------------------------------------------------------ scraping

    async def refresh(self) -> None:
        """Count the open games again if the count is older than :attr:`games_every`
        (before a scrape: the collectors themselves cannot wait for storage)."""
        now = self.clock()
        if self.games is None or (
            self._games_at is not None and now - self._games_at < self.games_every
        ):
            return
        self._games_at = now  # one scrape asks; those meanwhile show the last count
        self.games_open = dict(await self.games())

    def exposition(self) -> bytes:
        """Every metric in Prometheus' text format."""
        return generate_latest(self.registry)


OFF = Metrics(enabled=False)
"""What a part of the table core counts with when it is given no bot's metrics: nothing."""
