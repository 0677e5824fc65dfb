"""The real bot, in its own process, under load through the fake Discord.

    python -m benchmarks.bot_latency [--only complete|workshop|tonttu]
        [--games 50] [--think 1.0] [--paced-seconds 15]
        [--burst-rounds 5] [--rates 5,10,15,20,30,40,60] [--step-seconds 6]
        [--complete workshop-3,workshop-5,tonttu-4,tonttu-6,tonttu-4-speed,tonttu-6-speed,
                    tonttu-6-closed]
        [--complete-actions 0] [--tonttu-games 20] [--tonttu-phases 4]
        [--metrics off|on|both] [--metrics-rounds 3]

One bot process (``bot.py`` through ``FakeDiscord.start_bot_process``, SQLite, pictures
drawn as in production), so the fake's own work (it runs here, with body validation
off) does not share the bot's event loop. Everything is played by simulated humans
clicking what a player would click; what the game state is (who acts, what is legal)
is read from the bot's database, so the players do not depend on how the thread is
worded. Five measurements, printed as they finish:

1. Complete games of each kind (``--complete``; Santa's Workshop 3 and 5 players,
   Workshop Tonttu 4 and 6 players, tactical and speed, and a tactical 6-player table
   where two players refuse DMs and choose privately), played at once, one table per
   kind, random legal choices. Per kind: player actions; rate-limited REST calls per
   action (everything but interaction callbacks and interaction webhooks, which share
   the bot token's 50 requests/s); exempt calls per action; the most rate-limited
   calls to one channel within any 5 s, and the most posts (new messages: the bot's
   posts and the public followups of clicks) to one channel within any 5 s (Discord
   allows about 5); 4xx answers from the game's start; requests over Discord's limits
   (the fake counts them and serves them). Targets: at most 1.0 rate-limited call per
   action, at most 5 posts per channel per 5 s, no 4xx but one refused DM per player
   who refuses them, nothing over the limits (nor in the other runs).
2. Paced: ``--games`` Santa's Workshop tables (two human seats each); each table's
   acting player decides after a think time drawn from 0.2 s to 2 × ``--think``.
   p50/p99 from INTERACTION_CREATE dispatch to the bot's first response (target p99
   < 100 ms), and the board lag: from an action's dispatch until the thread's board
   shows that move (or a later one).
3. Burst: all ``--games`` tables' acting players click in the same instant,
   ``--burst-rounds`` times. p99 first response (target < 500 ms).
4. Sustained throughput: player actions offered at a fixed rate (open loop: an action
   starts on schedule whether or not the bot has answered the last ones) on the same
   tables, each rate of ``--rates`` for ``--step-seconds``. A rate is kept up with when
   the first response's p99 is under 500 ms, the board lag's p99 is under 2 s and no
   offered action found every table still busy; a rate not kept up with is tried again
   (``--retries``), since a shared machine may be busy elsewhere for a moment. Prints
   each try, with the CPU of the bot, its drawing worker and this process, and the
   highest rate kept up with (target: at least 40 per second).
5. Workshop Tonttu's reveal: ``--tonttu-games`` tactical 6-player tables; every
   phase, all players choose by DM select; from the dispatch of a phase's last choice
   to the reveal posted in the thread, p50/p99, three ways, each from rest:
   - paced: each player after their own think time;
   - burst: at every table all players but one choose at once, and once the bot has
     sent nothing for a second (its REST budget is whole again: ``BUDGET_WINDOW``)
     every table's last choice goes in the same instant (one click per table at once,
     as in 3.; target p99 < 500 ms);
   - flat out: every player chooses as soon as their panel comes and every table goes
     on as soon as its reveal is in. A closed loop: it runs as fast as its bottleneck,
     the REST budget (a reveal is one budgeted post; 20 tables need a reveal each per
     cycle, about 45 per second can go), so the reveal waits whatever part of the
     cycle the rest leaves. Its latency is printed, not a target; a faster bot only
     makes the reveal wait longer in it.
   And the CPU the bot and its drawing worker spent per choice (the latencies swing
   with whatever else the machine runs; the CPU much less).

``--metrics on`` runs the bot with its metrics served (``METRICS_PORT``) and scraped
every second (``/metrics``, ``/healthz`` and ``/readyz``), ``off`` (the default) without
(it then counts nothing). ``--metrics both`` measures only what the metrics cost a click:
two bots, one with and one without, each against its own fake Discord with ``--games``
tables, and the paced run (2.) on one then the other, ``--metrics-rounds`` times, the
order swapped every round; it prints each run and the p50/p99 of all the runs of each.

How a request is classified (exempt or rate-limited) is :func:`is_rate_limited`: the
fake's own ``is_rate_limited`` when it has one, else this file's reading of the path.
How the board's move is read from what the bot sends is :func:`board_moves` (the
"Move N" in the board embed's footer), and a reveal is found by its headline
(:func:`wait_for_reveal`): the two places to adapt if the thread's wording changes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import socket
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

import storage
from engine import get_game
from engine.core import Rng
from tests.e2e.bot_helpers import turn_prompts
from tests.e2e.fake_discord import (
    FakeChannel,
    FakeDiscord,
    FakeMessage,
    FakeUser,
    HarnessError,
    RecordedRequest,
    ViolationError,
)
from tests.e2e.fake_discord.model import EPHEMERAL
from tests.e2e.tonttu_helpers import (
    choice_select,
    choose_privately,
    dm_panel,
    select_in,
    status_message,
)

ROOT = Path(__file__).resolve().parents[1]
KINDS: dict[str, tuple[str, int, dict[str, Any]]] = {  # name: (game, seats, /newgame options)
    "workshop-3": ("workshop", 3, {}),
    "workshop-5": ("workshop", 5, {}),
    "tonttu-4": ("tonttu", 4, {}),
    "tonttu-6": ("tonttu", 6, {}),
    "tonttu-4-speed": ("tonttu", 4, {"mode": "speed", "speed_seconds": 15}),
    "tonttu-6-speed": ("tonttu", 6, {"mode": "speed", "speed_seconds": 15}),
    "tonttu-6-closed": ("tonttu", 6, {}),
}
"""The kinds played to the end (measurement 1)."""
CLOSED_DMS = {"tonttu-6-closed": 2}
"""Kinds whose last seats refuse DMs (Discord's 50007): the bot may try each once."""
TABLES = {**KINDS, "workshop-2": ("workshop", 2, {})}
FIRST_RESPONSE_P99 = 0.5
"""Sustained: a rate is kept up with while the first response's p99 stays under this."""
BOARD_LAG_P99 = 2.0
"""... and the board shows a move within this of the move's click (p99)."""
DM_WAIT = 15.0
"""How long a Tonttu player waits for the phase's DM before choosing in the thread."""
PANEL_WAIT = 2.0
"""... and one who refuses DMs, for the panel they last chose on to show the phase."""
AT_REST = 2.0
"""Seconds the fake must see no request before a Tonttu run starts: the bot is at rest
(a thread's tidy-ups held back while the REST budget was busy go within this once it is
free)."""
BUDGET_WINDOW = 1.0
"""Discord's global budget (and the bot's ``RestBudget``) counts requests over this many
seconds: once the bot has sent nothing for this long, its whole budget is free again. A
Tonttu burst's last choices wait for it (a reveal is a budgeted post: a burst that came
sooner would find the slots of the phase before still taken, which is the flat-out
run's case)."""
WINDOW = 5.0
"""Discord's per-channel message budget is counted over this many seconds."""


# --------------------------------------------------------------------------- counting


def is_rate_limited(fake: FakeDiscord, method: str, path: str) -> bool:
    """Does this request count against the bot token's global 50 requests/s?

    Interaction callbacks (``/interactions/{id}/{token}/callback``) and interaction
    webhooks (``/webhooks/{application}/{token}...``) do not; everything else does.
    The fake's own classification is used when it has one."""
    own = getattr(fake, "is_rate_limited", None)
    if own is not None:
        return bool(own(method, path))
    if re.fullmatch(r"/interactions/\d+/[^/]+/callback", path):
        return False
    return not path.startswith("/webhooks/")


CHANNEL_PATH = re.compile(r"/channels/(\d+)(/.*)?")


def channel_of(request: RecordedRequest) -> int | None:
    match = CHANNEL_PATH.fullmatch(request.path)
    return int(match[1]) if match else None


def is_post(request: RecordedRequest) -> bool:
    """A new message in a channel (what the per-channel 5 per 5 s budget counts)."""
    return request.method == "POST" and bool(re.fullmatch(r"/channels/\d+/messages", request.path))


def followup_channel(fake: FakeDiscord, request: RecordedRequest) -> int | None:
    """The channel a public followup of an interaction (a new message everyone sees,
    e.g. a turn prompt) was posted in; ``None`` for anything else."""
    if request.method != "POST" or not re.fullmatch(r"/webhooks/\d+/[^/]+", request.path):
        return None
    if request.status >= 400 or int((request.json or {}).get("flags") or 0) & EPHEMERAL:
        return None
    record = fake.interactions.get(request.interaction_id or 0)
    return record.channel.id if record is not None else None


def most_in_window(times: list[float], window: float = WINDOW) -> int:
    """The most events of ``times`` within any ``window`` seconds."""
    ordered = sorted(times)
    best = start = 0
    for end, at in enumerate(ordered):
        while at - ordered[start] >= window:
            start += 1
        best = max(best, end - start + 1)
    return best


@dataclass
class Calls:
    """What a set of requests cost, against a number of player actions."""

    actions: int
    rate_limited: int = 0
    exempt: int = 0
    channel_max: int = 0
    posts_max: int = 0
    client_errors: int = 0
    over_limits: int = 0
    """Requests over Discord's limits (50/s per token, 5 posts/5 s per channel) as the
    fake counts them (it serves them here: its limits are not enforced)."""

    @classmethod
    def of(cls, fake: FakeDiscord, requests: Iterable[RecordedRequest], actions: int) -> Calls:
        calls = cls(actions)
        per_channel: dict[int, list[float]] = defaultdict(list)
        posts: dict[int, list[float]] = defaultdict(list)
        for request in requests:
            if 400 <= request.status < 500:
                calls.client_errors += 1
            if request.over_limit:
                calls.over_limits += 1
            if not is_rate_limited(fake, request.method, request.path):
                calls.exempt += 1
                channel = followup_channel(fake, request)
                if channel is not None:  # a post all the same, exempt from the budget
                    posts[channel].append(request.at)
                continue
            calls.rate_limited += 1
            channel = channel_of(request)
            if channel is not None:
                per_channel[channel].append(request.at)
                if is_post(request):
                    posts[channel].append(request.at)
        calls.channel_max = max((most_in_window(t) for t in per_channel.values()), default=0)
        calls.posts_max = max((most_in_window(t) for t in posts.values()), default=0)
        return calls

    def per_action(self, count: int) -> float:
        return count / self.actions if self.actions else 0.0


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def ms(values: list[float], p: float) -> str:
    return f"{percentile(values, p) * 1000:.0f}"


def fine(values: list[float], p: float) -> str:
    return f"{percentile(values, p) * 1000:.1f}"


# --------------------------------------------------------------------------- the board


FOOTER_MOVE = re.compile(r"^Move (\d+)")


def board_moves(request: RecordedRequest) -> int | None:
    """The move a board post or edit shows (its embed footer "Move N"), if it is one."""
    if request.method not in ("POST", "PATCH") or not isinstance(request.json, dict):
        return None
    if request.status >= 300:
        return None
    for embed in request.json.get("embeds") or ():
        text = ((embed or {}).get("footer") or {}).get("text") or ""
        match = FOOTER_MOVE.match(text)
        if match:
            return int(match[1])
    return None


def board_timelines(requests: Iterable[RecordedRequest]) -> dict[int, list[tuple[float, int]]]:
    """Per channel: (time, move) of every board the bot sent there, in order."""
    timelines: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for request in requests:
        move = board_moves(request)
        channel = channel_of(request)
        if move is not None and channel is not None:
            timelines[channel].append((request.at, move))
    return timelines


@dataclass
class Action:
    channel: int
    version: int
    """The move this action makes (the version it was clicked at, plus one)."""
    dispatched: float
    latency: float
    interaction: int | None = None
    """The click's interaction id (to find when the bot sent its answer)."""


def board_lags(actions: list[Action], requests: list[RecordedRequest], end: float) -> list[float]:
    """Per action: seconds from its dispatch until its thread's board shows its move or a
    later one (``end`` if it never did)."""
    timelines = board_timelines(requests)
    lags = []
    for action in actions:
        shown = next(
            (
                at
                for at, move in timelines.get(action.channel, ())
                if move >= action.version and at >= action.dispatched
            ),
            end,
        )
        lags.append(max(0.0, shown - action.dispatched))
    return lags


# --------------------------------------------------------------------------- players


@dataclass
class Table:
    kind: str
    channel: FakeChannel
    thread: Any
    seated: dict[str, FakeUser]
    panels: dict[str, FakeMessage] = field(default_factory=dict)
    actions: int = 0

    @property
    def users(self) -> set[int]:
        return {u.id for u in self.seated.values()}


class Players:
    """Simulated humans at the tables of one fake Discord and one bot database."""

    def __init__(self, fake: FakeDiscord, store: Any) -> None:
        self.fake, self.store = fake, store
        self.late = 0
        """Interactions the bot did not answer within Discord's 3 s."""
        self.stale = 0
        """Clicks on a panel that was no longer current (not actions)."""
        self.no_dm = 0
        """Tonttu choices made with "Choose privately" because no DM came in time."""
        self.violations: Counter[str] = Counter()
        """Other rule violations the fake reported to a player's interaction."""

    async def open_table(
        self, index: int, kind: str, *, prefix: str = "table", host_waits: bool = True
    ) -> Table:
        fake = self.fake
        game, count, options = TABLES[kind]
        channel = fake.add_channel(f"{prefix}-{index}")
        closed = count - CLOSED_DMS.get(kind, 0)
        users = [fake.add_user(f"{prefix}{index}p{n}", dms_open=n < closed) for n in range(count)]
        lobby = (await fake.slash(users[0], channel, "newgame", game=game, **options)).message
        assert lobby is not None
        for user in users[1:]:
            await fake.click(user, lobby, "Join")
        await fake.click(users[0], lobby, "Start")
        await fake.wait_for(lambda: fake.threads(channel), timeout=30, what="the thread")
        (thread,) = fake.threads(channel)
        table = Table(kind, channel, thread, {str(u.id): u for u in users})
        if host_waits:  # the table is open once the first board is up
            await fake.wait_for(
                lambda: any(m.embeds and "Move" in m.text() for m in fake.messages(thread)),
                timeout=30,
                what="the first board",
            )
        return table

    async def state(self, table: Table) -> Any:
        return await self.store.find_open(table.channel.id)

    async def interact(self, work: Awaitable[Any]) -> Any:
        """One interaction; ``None`` if the bot answered too late (counted)."""
        try:
            return await work
        except ViolationError as error:
            if "deadline" in error.kinds or "not_acknowledged" in error.kinds:
                self.late += 1
            self.violations.update(error.kinds)
            return None

    # ---------------------------------------------------------------- Santa's Workshop

    async def workshop_decide(self, table: Table, rng: Rng) -> Action | None:
        """One decision by whoever must act at ``table``; ``None`` if none was made."""
        fake = self.fake
        game = await self.state(table)
        if game is None or game.status != "active":
            return None
        acting = get_game("workshop").to_act(game.state)
        if len(acting) != 1:
            return None
        (player,) = acting
        user = table.seated[player]
        panel = table.panels.get(player)
        if panel is None or panel_version(panel) != game.version:
            prompts = turn_prompts(fake, table.thread)
            if not prompts:
                return None
            opened = await self.interact(fake.click(user, prompts[-1], "Take your turn"))
            if opened is None or opened.message is None:
                return None
            panel = opened.message
            if panel_version(panel) != game.version:
                return None  # the table moved on meanwhile
        buttons = act_buttons(panel)
        selects = [s for s in panel.selects() if s["custom_id"].startswith("acts:")]
        version = panel_version(panel)
        if buttons:
            work = fake.click(user, panel, buttons[rng.below(len(buttons))])
        elif selects:
            options = [o["value"] for o in selects[0]["options"]]
            work = fake.select(user, panel, selects[0]["custom_id"], [rng.choice(options)])
        else:
            return None
        result = await self.interact(work)
        table.panels.pop(player, None)
        if result is None or version is None:
            return None
        if result.message is not None:
            table.panels[player] = result.message
        if result.content.startswith("The board has changed"):
            self.stale += 1
            return None
        table.actions += 1
        record = result.record
        return Action(
            table.thread.id, version + 1, record.dispatched_at, result.latency or 0.0, record.id
        )

    # ---------------------------------------------------------------- Workshop Tonttu

    async def tonttu_phase(
        self,
        table: Table,
        rng: Rng,
        *,
        think: float = 0.0,
        latencies: list[float] | None = None,
        together: Callable[[], Awaitable[Any]] | None = None,
    ) -> tuple[Any, float] | None:
        """Every acting player of ``table`` chooses (by DM, or in the speed race) once;
        returns (the state before, the last choice's dispatch time), ``None`` at the end.
        ``together`` (not in a race): awaited once all players but the last have chosen
        and the last one's panel is in, before the last one chooses (a barrier: every
        table's last choice in the same instant)."""
        game = await self.state(table)
        if game is None or game.status != "active":
            return None
        state = game.state
        rules = get_game("tonttu")
        acting = sorted(rules.to_act(state), key=state.players.index)
        if state.mode == "speed" and state.phase == "point":
            last = await self._race(table, state, acting, rng, latencies)
        else:

            async def choose(player: str) -> float:
                if think:
                    await asyncio.sleep(0.2 + rng.below(int(think * 2000)) / 1000)
                return await self._choose_by_dm(table, state, player, rng, latencies)

            if together is None:
                last = max(await asyncio.gather(*(choose(p) for p in acting)), default=0.0)
            else:
                *others, final = acting
                await asyncio.gather(*(choose(p) for p in others))
                await self.panel_in(table.seated[final], state)
                await together()
                last = await choose(final)
        await self._next_phase(table, state)
        return state, last

    async def _choose_by_dm(
        self, table: Table, state: Any, player: str, rng: Rng, latencies: list[float] | None
    ) -> float:
        fake = self.fake
        user = table.seated[player]
        action = rng.choice(get_game("tonttu").legal_actions(state, player))
        panel = None
        if user.dms_open or fake.ephemeral_messages(user):  # a DM, or the panel last used
            with contextlib.suppress(HarnessError):  # (DMs closed: told so in the thread)
                await self.panel_in(user, state, DM_WAIT if user.dms_open else PANEL_WAIT)
                panel = dm_panel(fake, user, state.round, state.phase)
        if panel is None:  # as a player would, choose in the thread
            self.no_dm += int(user.dms_open)
            result = await self.interact(choose_privately(fake, user, table.thread, state, action))
        else:
            assert choice_select(panel, state.round, state.phase) is not None
            result = await self.interact(select_in(fake, user, panel, state, action))
        if result is None:
            return 0.0
        table.actions += 1
        if latencies is not None and result.latency is not None:
            latencies.append(result.latency)
        dispatched: float = result.record.dispatched_at
        return dispatched

    async def panel_in(self, user: FakeUser, state: Any, wait: float = DM_WAIT) -> None:
        """Until ``user`` has their panel for ``state``'s phase (``HarnessError`` after
        ``wait`` seconds)."""
        await self.fake.wait_for(
            lambda: dm_panel(self.fake, user, state.round, state.phase) is not None,
            timeout=wait,
            what=f"the DM of round {state.round} {state.phase}",
        )

    async def _race(
        self,
        table: Table,
        state: Any,
        acting: list[str],
        rng: Rng,
        latencies: list[float] | None,
    ) -> float:
        """The speed race: each acting player clicks an open card until their point counts."""
        fake = self.fake
        last = 0.0

        def race_buttons() -> list[str]:
            with contextlib.suppress(AssertionError):  # no status message yet
                race = status_message(fake, table.thread)
                return [
                    b["custom_id"]
                    for b in race.buttons()
                    if re.fullmatch(rf"ttr:\d+:{state.round}:.*", b["custom_id"])
                ]
            return []

        # the race's status message comes a moment after the stored phase began
        with contextlib.suppress(HarnessError):
            await fake.wait_for(lambda: bool(race_buttons()), timeout=10, what="the race")
        for player in acting:
            for _ in range(12):
                race = status_message(fake, table.thread)
                buttons = race_buttons()
                if not buttons:
                    break  # nothing left to point at: the race closes on its timer
                result = await self.interact(
                    fake.click(table.seated[player], race, buttons[rng.below(len(buttons))])
                )
                if result is None:
                    continue
                if latencies is not None and result.latency is not None:
                    latencies.append(result.latency)
                if not result.content.startswith("Too late"):
                    table.actions += 1
                    last = result.record.dispatched_at
                    break
        return last

    async def _next_phase(self, table: Table, state: Any, timeout: float = 40.0) -> None:  # noqa: ASYNC109
        """Wait until the stored game has left ``state``'s phase (a speed race may need its
        timer)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while loop.time() < end:
            game = await self.state(table)
            if game is None or (game.state.round, game.state.phase) != (state.round, state.phase):
                return
            await asyncio.sleep(0.05)
        raise HarnessError(f"round {state.round} {state.phase} did not end in {timeout:.0f} s")


def act_buttons(message: FakeMessage) -> list[str]:
    """The custom_ids of a private panel's choice buttons."""
    return [b["custom_id"] for b in message.buttons() if b["custom_id"].startswith("act:")]


def panel_version(panel: FakeMessage) -> int | None:
    """The game version a private panel's choices were drawn at (from their custom_id)."""
    for component in [*panel.buttons(), *panel.selects()]:
        match = re.fullmatch(r"acts?:\d+:(\d+)(:\d+)?", component.get("custom_id", ""))
        if match:
            return int(match[1])
    return None


async def quiet(fake: FakeDiscord, seconds: float = 1.0, timeout: float = 60.0) -> None:  # noqa: ASYNC109
    """Until the bot has sent nothing for ``seconds``."""
    loop = asyncio.get_running_loop()
    await fake.wait_for(
        lambda: not fake.requests or loop.time() - fake.requests[-1].at > seconds,
        timeout=timeout,
        what="the bot to go quiet",
    )


async def in_batches(count: int, size: int, make: Callable[[int], Awaitable[Table]]) -> list[Table]:
    tables: list[Table] = []
    for start in range(0, count, size):
        tables += await asyncio.gather(*(make(i) for i in range(start, min(count, start + size))))
    return tables


# --------------------------------------------------------------------------- 1. complete games


async def complete_games(
    fake: FakeDiscord, players: Players, kinds: list[str], max_actions: int
) -> None:
    rng = Rng(11)
    opened = len(fake.requests)
    tables = await asyncio.gather(
        *(players.open_table(i, kind, prefix=f"c{kind}") for i, kind in enumerate(kinds))
    )
    await quiet(fake, 0.5)
    marker = len(fake.requests)

    async def play(table: Table) -> None:
        try:
            await play_on(table)
        except HarnessError as error:  # a table the bot left stuck: say so, go on
            game = await players.state(table)
            where = f"move {game.version}" if game is not None else "the end"
            print(f"{table.kind}: stopped at {where}: {error}", flush=True)

    async def play_on(table: Table) -> None:
        kind = TABLES[table.kind][0]
        idle = 0
        while not max_actions or table.actions < max_actions:
            if kind == "workshop":
                game = await players.state(table)
                if game is None or game.status != "active":
                    return
                if await players.workshop_decide(table, rng) is None:
                    idle += 1
                    if idle > 600:  # 30 s without a move: say so, do not hang
                        print(f"{table.kind}: stuck at move {game.version}; stopped")
                        return
                    await asyncio.sleep(0.05)
                else:
                    idle = 0
            elif await players.tonttu_phase(table, rng) is None:
                return

    started = time.perf_counter()
    await asyncio.gather(*map(play, tables))
    await quiet(fake)
    seconds = time.perf_counter() - started
    requests = fake.requests[marker:]
    print(
        f"\n1. complete games, one table per kind at once ({seconds:.0f} s"
        + (f", first {max_actions} actions per table" if max_actions else "")
        + ")"
    )
    print(
        f"{'kind':<16} {'actions':>7} {'rate-ltd/act':>12} {'exempt/act':>10} "
        f"{'max/chan/5s':>11} {'posts/chan/5s':>13} {'4xx':>5} {'over':>5}"
    )
    totals = Calls(0)
    for table in tables:
        mine = [r for r in requests if belongs_to(fake, r, table)]
        calls = Calls.of(fake, mine, table.actions)
        calls.client_errors = sum(  # from the start: a refused first DM counts
            400 <= r.status < 500 and belongs_to(fake, r, table) for r in fake.requests[opened:]
        )
        totals.actions += calls.actions
        totals.rate_limited += calls.rate_limited
        totals.exempt += calls.exempt
        print(
            f"{table.kind:<16} {calls.actions:>7} {calls.per_action(calls.rate_limited):>12.2f} "
            f"{calls.per_action(calls.exempt):>10.2f} {calls.channel_max:>11} "
            f"{calls.posts_max:>13} {calls.client_errors:>5} {calls.over_limits:>5}"
        )
    print(
        f"{'all':<16} {totals.actions:>7} {totals.per_action(totals.rate_limited):>12.2f} "
        f"{totals.per_action(totals.exempt):>10.2f}   (targets: rate-limited <= 1.0 per action, "
        "posts <= 5 per channel per 5 s; 4xx from the game's start: none, or one per player "
        "who refuses DMs; over: requests over Discord's limits, none)"
    )


def belongs_to(fake: FakeDiscord, request: RecordedRequest, table: Table) -> bool:
    """Whether ``request`` was made for ``table``: its channels, its players' DMs, or an
    interaction of one of its players."""
    if request.interaction_id is not None:
        record = fake.interactions.get(request.interaction_id)
        return record is not None and record.user.id in table.users
    channel = channel_of(request)
    if channel is not None:
        dms = {dm.id for u in table.seated.values() if (dm := fake.dm_channel(u)) is not None}
        return channel in {table.channel.id, table.thread.id} | dms
    if request.path == "/users/@me/channels" and isinstance(request.json, dict):
        return int(request.json.get("recipient_id") or 0) in table.users
    return False


# --------------------------------------------------------------------------- 2-4. workshop load


@dataclass
class Run:
    actions: list[Action] = field(default_factory=list)
    missed: int = 0
    """Offered actions that found every table still busy with its last one."""


def report_run(name: str, fake: FakeDiscord, run: Run, requests: list[Any], seconds: float) -> None:
    latencies = [a.latency for a in run.actions]
    lags = board_lags(run.actions, requests, requests[-1].at if requests else 0.0)
    calls = Calls.of(fake, requests, len(run.actions))
    print(
        f"{name}: {len(run.actions)} player actions in {seconds:.1f} s "
        f"({len(run.actions) / seconds:.1f}/s)\n"
        f"  dispatch -> first response: p50 {ms(latencies, 50)} ms, p99 {ms(latencies, 99)} ms;"
        f" board lag p50 {ms(lags, 50)} ms, p99 {ms(lags, 99)} ms\n"
        f"  per action: {calls.per_action(calls.rate_limited):.2f} rate-limited, "
        f"{calls.per_action(calls.exempt):.2f} exempt REST calls; "
        f"max {calls.posts_max} posts per channel per 5 s; {calls.client_errors} 4xx; "
        f"{calls.over_limits} over Discord's limits"
    )


async def paced(players: Players, tables: list[Table], seconds: float, think: float) -> Run:
    run = Run()
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds

    async def play(table: Table, rng: Rng) -> None:
        while True:
            await asyncio.sleep(0.2 + rng.below(int(max(think, 0.1) * 2000)) / 1000)
            if loop.time() >= end:
                return
            action = await players.workshop_decide(table, rng)
            if action is not None:
                run.actions.append(action)

    await asyncio.gather(*(play(t, Rng(100 + i)) for i, t in enumerate(tables)))
    return run


async def burst(players: Players, tables: list[Table], rounds: int) -> Run:
    run = Run()
    rng = Rng(7)
    for _ in range(rounds):
        done = await asyncio.gather(*(players.workshop_decide(t, rng) for t in tables))
        run.actions += [a for a in done if a is not None]
        await quiet(players.fake, 0.3)
    return run


async def offered(players: Players, tables: list[Table], rate: float, seconds: float) -> Run:
    """Open loop: an action starts every 1/``rate`` s on a table that is not busy."""
    run = Run()
    loop = asyncio.get_running_loop()
    idle = list(tables)
    rng = Rng(int(rate * 1000))
    running: set[asyncio.Task[None]] = set()

    async def act(table: Table) -> None:
        try:
            action = await players.workshop_decide(table, rng)
            if action is not None:
                run.actions.append(action)
        finally:
            idle.append(table)

    start = loop.time()
    k = 0
    while (due := start + k / rate) < start + seconds:
        await asyncio.sleep(max(0.0, due - loop.time()))
        k += 1
        if not idle:
            run.missed += 1
            continue
        table = idle.pop(rng.below(len(idle)))
        task = asyncio.create_task(act(table))
        running.add(task)
        task.add_done_callback(running.discard)
    if running:
        await asyncio.gather(*running)
    return run


def cpu_seconds(pid: int) -> tuple[float, float]:
    """CPU seconds (user + system) of process ``pid`` and of its children (the drawing
    worker): Linux /proc; zeros elsewhere."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def of(member: int) -> float:
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / ticks
        return 0.0

    children: list[int] = []
    with contextlib.suppress(OSError, ValueError):
        children = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return of(pid), sum(of(child) for child in children)


async def sustained(
    fake: FakeDiscord,
    players: Players,
    tables: list[Table],
    rates: list[float],
    seconds: float,
    bot_pid: int,
    retries: int = 1,
) -> None:
    """Each rate in turn, until one is not kept up with ``1 + retries`` times running (the
    shared machine may be busy with something else for a moment)."""
    print(
        f"\n4. sustained: actions offered at a fixed rate for {seconds:.0f} s each, "
        f"on {len(tables)} tables"
    )
    print(
        f"{'offered/s':>9} {'done/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'lag p99 ms':>10} "
        f"{'missed':>6} {'late':>5} {'kept up':>8} {'bot CPU':>8} {'drawing CPU':>11} "
        f"{'fake CPU':>8} {'REST/s':>6}"
    )
    best = 0.0
    for rate in rates:
        kept = False
        for _ in range(1 + retries):
            kept = await sustained_step(fake, players, tables, rate, seconds, bot_pid)
            if kept:
                break
        if not kept:
            break
        best = rate
    print(
        f"highest rate kept up with: {best:.0f} player actions/s "
        f"(first response p99 < {FIRST_RESPONSE_P99 * 1000:.0f} ms, board lag p99 < "
        f"{BOARD_LAG_P99:.0f} s; target >= 40). CPU: share of one core over the step and "
        "its drain, of the bot's event loop, its child processes (the drawing worker) and this "
        "process (the fake Discord and the players); REST/s: rate-limited requests per second "
        "(the bot token's budget is 50, the bot paces itself to 45)"
    )


async def sustained_step(
    fake: FakeDiscord,
    players: Players,
    tables: list[Table],
    rate: float,
    seconds: float,
    bot_pid: int,
) -> bool:
    """One rate for ``seconds``; prints its row and returns whether it was kept up with."""
    marker, late = len(fake.requests), players.late
    cpu_before, began = cpu_seconds(bot_pid), time.perf_counter()
    fake_before = time.process_time()
    run = await offered(players, tables, rate, seconds)
    with contextlib.suppress(HarnessError):
        await quiet(fake, 0.5, timeout=BOARD_LAG_P99 + 5)
    wall = time.perf_counter() - began
    cpu = [(b - a) / wall * 100 for a, b in zip(cpu_before, cpu_seconds(bot_pid), strict=True)]
    cpu.append((time.process_time() - fake_before) / wall * 100)
    requests = fake.requests[marker:]
    end = requests[-1].at if requests else 0.0
    latencies = [a.latency for a in run.actions]
    lags = board_lags(run.actions, requests, end)
    budgeted = sum(1 for r in requests if is_rate_limited(fake, r.method, r.path))
    kept = bool(
        run.actions
        and percentile(latencies, 99) < FIRST_RESPONSE_P99
        and percentile(lags, 99) < BOARD_LAG_P99
        and run.missed == 0
        and players.late == late
    )
    print(
        f"{rate:>9.0f} {len(run.actions) / seconds:>7.1f} {ms(latencies, 50):>7} "
        f"{ms(latencies, 99):>7} {ms(lags, 99):>10} {run.missed:>6} "
        f"{players.late - late:>5} {'yes' if kept else 'no':>8} {cpu[0]:>7.0f}% "
        f"{cpu[1]:>10.0f}% {cpu[2]:>7.0f}% {budgeted / seconds:>6.1f}",
        flush=True,
    )
    with contextlib.suppress(HarnessError):
        await quiet(fake, 0.5, timeout=10)
    return kept


# --------------------------------------------------------------------------- 5. tonttu reveals


async def wait_for_reveal(fake: FakeDiscord, start: int, thread: int, state: Any) -> float:
    """When the reveal of ``state``'s phase was posted in the thread (its headline)."""
    headline = f"Round {state.round} {'picks' if state.phase == 'pick' else 'points'}:"

    def find() -> RecordedRequest | None:
        return next(
            (
                r
                for r in fake.requests[start:]
                if r.method == "POST"
                and r.path == f"/channels/{thread}/messages"
                and headline in str((r.json or {}).get("content"))
            ),
            None,
        )

    await fake.wait_for(lambda: find() is not None, timeout=30, what=headline)
    found = find()
    assert found is not None
    return found.at


async def reveal_phases(
    players: Players,
    table: Table,
    rng: Rng,
    phases: int,
    think: float,
    reveals: list[float],
    choices: list[float],
    together: asyncio.Barrier | None = None,
) -> None:
    """``phases`` phases at ``table``, each reveal's delay after its last choice;
    ``together``: every table's last choice of a phase in the same instant, once the
    bot's REST budget is whole again (``BUDGET_WINDOW``)."""
    fake = players.fake

    async def last_choices() -> None:
        assert together is not None
        if await together.wait() == 0:
            await quiet(fake, BUDGET_WINDOW)
        await together.wait()

    try:
        for _ in range(phases):
            mark = len(fake.requests)
            try:
                done = await players.tonttu_phase(
                    table,
                    rng,
                    think=think,
                    latencies=choices,
                    together=last_choices if together else None,
                )
            except (HarnessError, asyncio.BrokenBarrierError) as error:  # say so, go on
                print(f"{table.kind} {table.thread.name}: stopped: {error!r}", flush=True)
                return
            if done is None:
                return
            state, last = done
            reveals.append(await wait_for_reveal(fake, mark, table.thread.id, state) - last)
    finally:
        if together is not None:
            await together.abort()  # a table that stopped early holds no other one up


async def panels_in(players: Players, tables: list[Table]) -> None:
    """Until every acting player at every table has the phase's panel (the 20 tables'
    first DMs go out at the pace of the REST budget, several seconds)."""
    for table in tables:
        game = await players.state(table)
        if game is not None:
            for player in get_game("tonttu").to_act(game.state):
                await players.panel_in(table.seated[player], game.state)


TONTTU_RUNS = {
    "paced": "each player after their own think time",
    "flat out": "every player chooses as soon as their panel comes, every table goes on as "
    "soon as its reveal is in: a closed loop at the REST budget's limit (a reveal is one "
    "budgeted post), so its latency is the queue the budget leaves, not a target",
    "burst": "each phase, all players but one at every table choose at once; once the "
    "bot's REST budget is whole again, every table's last choice in the same instant",
}


async def tonttu_reveals(
    fake: FakeDiscord, players: Players, games: int, phases: int, think: float, bot_pid: int
) -> None:
    tables = await in_batches(
        games, 4, lambda i: players.open_table(i, "tonttu-6", prefix="reveal", host_waits=False)
    )
    await panels_in(players, tables)
    print(f"\n5. Workshop Tonttu: {games} tactical 6-player tables at once, {phases} phases each")
    for name, how in TONTTU_RUNS.items():
        await quiet(fake, AT_REST)
        reveals: list[float] = []
        choices: list[float] = []
        marker = len(fake.requests)
        started = time.perf_counter()
        cpu_before = cpu_seconds(bot_pid)

        pace = think if name == "paced" else 0.0
        together = asyncio.Barrier(len(tables)) if name == "burst" else None
        await asyncio.gather(
            *(
                reveal_phases(players, t, Rng(300 + i), phases, pace, reveals, choices, together)
                for i, t in enumerate(tables)
            )
        )
        await quiet(fake, 0.5)
        seconds = time.perf_counter() - started
        bot_cpu, worker_cpu = (b - a for a, b in zip(cpu_before, cpu_seconds(bot_pid), strict=True))
        per_choice = 1000 / max(1, len(choices))
        calls = Calls.of(fake, fake.requests[marker:], len(choices))
        print(
            f"tonttu {name} ({how}):\n"
            f"  {len(reveals)} reveals, {len(choices)} choices in {seconds:.1f} s; "
            f"last choice dispatched -> reveal posted: p50 {ms(reveals, 50)} ms, "
            f"p99 {ms(reveals, 99)} ms; choice answered p99 {ms(choices, 99)} ms\n"
            f"  per choice: {calls.per_action(calls.rate_limited):.2f} rate-limited, "
            f"{calls.per_action(calls.exempt):.2f} exempt REST calls; "
            f"max {calls.posts_max} posts per channel per 5 s; {calls.client_errors} 4xx; "
            f"{calls.over_limits} over Discord's limits\n"
            f"  CPU per choice (less sensitive to a busy machine than the latencies): bot "
            f"{bot_cpu * per_choice:.1f} ms, drawing worker {worker_cpu * per_choice:.1f} ms",
            flush=True,
        )


# --------------------------------------------------------------------------- metrics

SCRAPE_EVERY = 1.0
"""Seconds between two scrapes of a bot whose metrics are on (Prometheus: 15 to 60)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def bot_env(url: str, metrics: bool) -> dict[str, str]:
    """The bot's settings (FLOOD_BURST=0: the players are scripts, faster than any
    person); with ``metrics``, a free METRICS_PORT."""
    env = {"DATABASE_URL": url, "TIMER_POLL_SECONDS": "1", "FLOOD_BURST": "0"}
    if metrics:
        env["METRICS_PORT"] = str(free_port())
    return env


@contextlib.asynccontextmanager
async def scraping(env: dict[str, str]) -> Any:
    """While the body runs, scrape the bot's /metrics, /healthz and /readyz every
    :data:`SCRAPE_EVERY` seconds (nothing when its metrics are off); says how it went."""
    port = env.get("METRICS_PORT")
    if port is None:
        yield
        return
    answers: Counter[str] = Counter()

    async def scrape() -> None:
        async with aiohttp.ClientSession() as http:
            while True:
                for path in ("/metrics", "/healthz", "/readyz"):
                    try:
                        async with http.get(f"http://127.0.0.1:{port}{path}") as response:
                            await response.read()
                            answers[f"{path} {response.status}"] += 1
                    except aiohttp.ClientError as error:
                        answers[f"{path} {type(error).__name__}"] += 1
                await asyncio.sleep(SCRAPE_EVERY)

    task = asyncio.create_task(scrape())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        print(f"  scraped: {dict(sorted(answers.items()))}", flush=True)


async def metrics_side_by_side(args: argparse.Namespace) -> None:
    """The paced run (2.) on a bot with its metrics on and one with them off, in turn."""
    folder = Path(tempfile.mkdtemp())
    async with (
        FakeDiscord(validate_spec=False) as fake_on,
        FakeDiscord(validate_spec=False) as fake_off,
    ):
        sides: dict[str, tuple[FakeDiscord, dict[str, str], Any, Players]] = {}
        try:
            for name, fake in (("on", fake_on), ("off", fake_off)):
                fake.settle_after_interaction = False
                url = f"sqlite:///{folder}/{name}.db"
                env = bot_env(url, name == "on")
                process = await fake.start_bot_process(ROOT / "bot.py", env=env, timeout=90)
                players = Players(fake, await storage.open(url))
                sides[name] = (fake, env, process, players)
            tables = {}
            for name, (fake, _env, _process, players) in sides.items():
                tables[name] = await in_batches(
                    args.games, 5, lambda i, p=players: p.open_table(i, "workshop-2")
                )
                await quiet(fake, 0.5)
            print(
                f"metrics on and off, {args.games} Santa's Workshop tables each, paced "
                f"(think 0.2-{2 * args.think:.1f} s), {args.paced_seconds:.0f} s a run",
                flush=True,
            )
            latencies: dict[str, list[float]] = {"on": [], "off": []}
            cpu = {"on": 0.0, "off": 0.0}
            for round_ in range(args.metrics_rounds):
                for name in ("on", "off") if round_ % 2 == 0 else ("off", "on"):
                    fake, env, process, players = sides[name]
                    await quiet(fake, 0.5, timeout=30)
                    before = cpu_seconds(process.pid)[0]
                    async with scraping(env):
                        result = await paced(players, tables[name], args.paced_seconds, args.think)
                        await quiet(fake, 0.5, timeout=30)  # its rounds done, scrapes included
                    spent = cpu_seconds(process.pid)[0] - before
                    cpu[name] += spent
                    times = [a.latency for a in result.actions]
                    latencies[name] += times
                    print(
                        f"round {round_ + 1}, metrics {name}: {len(times)} actions, first "
                        f"response p50 {fine(times, 50)} ms, p99 {fine(times, 99)} ms; the "
                        f"bot's CPU {1000 * spent / max(len(times), 1):.2f} ms an action",
                        flush=True,
                    )
            on, off = latencies["on"], latencies["off"]
            print(
                f"all rounds: metrics on p50 {fine(on, 50)} ms, p99 {fine(on, 99)} ms "
                f"({len(on)} actions); off p50 {fine(off, 50)} ms, p99 {fine(off, 99)} ms "
                f"({len(off)} actions); p99 on / off "
                f"{percentile(on, 99) / max(percentile(off, 99), 1e-9):.3f}; the bot's CPU "
                f"an action on {1000 * cpu['on'] / max(len(on), 1):.2f} ms, off "
                f"{1000 * cpu['off'] / max(len(off), 1):.2f} ms"
            )
        finally:
            for fake, _env, process, players in sides.values():
                await players.store.close()
                await fake.stop_bot_process(process)
        for fake in (fake_on, fake_off):
            violations = fake.take_violations()
            if violations:
                print(f"violations recorded by the fake: {len(violations)}")


# --------------------------------------------------------------------------- main


async def run(args: argparse.Namespace) -> None:
    if args.metrics == "both":
        await metrics_side_by_side(args)
        return
    folder = Path(tempfile.mkdtemp())
    url = f"sqlite:///{folder}/bench.db"
    async with FakeDiscord(validate_spec=False) as fake:
        fake.settle_after_interaction = False
        began = time.perf_counter()
        env = bot_env(url, args.metrics == "on")
        process = await fake.start_bot_process(ROOT / "bot.py", env=env, timeout=90)
        store = await storage.open(url)
        players = Players(fake, store)
        scraper = contextlib.AsyncExitStack()
        await scraper.enter_async_context(scraping(env))
        try:
            load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
            print(
                f"bot process started in {time.perf_counter() - began:.1f} s; "
                f"{os.cpu_count()} cores, load average {load[0]:.1f} before the run",
                flush=True,
            )
            if args.complete:
                await complete_games(fake, players, args.complete, args.complete_actions)
            tables = await in_batches(args.games, 5, lambda i: players.open_table(i, "workshop-2"))
            await quiet(fake, 0.5)
            if tables:
                print(f"\n{args.games} Santa's Workshop tables (2 human seats) open", flush=True)
            for name in ("paced", "burst") if tables else ():
                marker = len(fake.requests)
                started = time.perf_counter()
                if name == "paced":
                    result = await paced(players, tables, args.paced_seconds, args.think)
                else:
                    result = await burst(players, tables, args.burst_rounds)
                with contextlib.suppress(HarnessError):
                    await quiet(fake, 0.5, timeout=10)
                label = (
                    f"2. paced (think 0.2-{2 * args.think:.1f} s)"
                    if name == "paced"
                    else f"3. burst ({args.games} clicks at once)"
                )
                report_run(
                    label, fake, result, fake.requests[marker:], time.perf_counter() - started
                )
            if args.rates and tables:
                await sustained(
                    fake,
                    players,
                    tables,
                    args.rates,
                    args.step_seconds,
                    process.pid,
                    args.retries,
                )
            if args.tonttu_games:
                await tonttu_reveals(
                    fake, players, args.tonttu_games, args.tonttu_phases, args.think, process.pid
                )
            print(
                f"\n{players.late} interactions answered after 3 s, {players.stale} stale "
                f"panel clicks; whole run {time.perf_counter() - began:.0f} s"
            )
            if players.no_dm:
                print(f"{players.no_dm} Tonttu choices made in the thread: no DM came in time")
            if players.violations:
                print(f"violations seen by players: {dict(players.violations)}")
        finally:
            await scraper.aclose()
            await store.close()
            await fake.stop_bot_process(process)
        violations = fake.take_violations()
        kinds = sorted({v.kind for v in violations})
        if violations:
            print(f"violations recorded by the fake: {len(violations)} ({', '.join(kinds)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="Santa's Workshop tables")
    parser.add_argument("--think", type=float, default=1.0, help="mean think time, seconds")
    parser.add_argument("--paced-seconds", type=float, default=15.0)
    parser.add_argument("--burst-rounds", type=int, default=5)
    parser.add_argument(
        "--rates",
        type=lambda text: [float(r) for r in text.split(",") if r],
        default=[5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 60.0],
        help="offered actions per second, in order (empty: skip)",
    )
    parser.add_argument("--step-seconds", type=float, default=6.0)
    parser.add_argument(
        "--retries", type=int, default=1, help="more tries of a rate not kept up with"
    )
    parser.add_argument(
        "--complete",
        type=lambda text: [k for k in text.split(",") if k],
        default=list(KINDS),
        help=f"kinds to play to the end, of {', '.join(KINDS)} (empty: skip)",
    )
    parser.add_argument(
        "--complete-actions", type=int, default=0, help="stop each after this many (0: the end)"
    )
    parser.add_argument("--tonttu-games", type=int, default=20, help="6-player tables")
    parser.add_argument("--tonttu-phases", type=int, default=4, help="per run")
    parser.add_argument(
        "--metrics",
        choices=("off", "on", "both"),
        default="off",
        help="the bot's metrics served and scraped each second (on), not (off), or only "
        "the paced run on a bot with them and one without, in turn (both)",
    )
    parser.add_argument("--metrics-rounds", type=int, default=3, help="with --metrics both")
    parser.add_argument(
        "--only",
        choices=("complete", "workshop", "tonttu"),
        help="one part: complete games (1), the Workshop tables (2-4) or Tonttu (5)",
    )
    args = parser.parse_args()
    if args.only and args.only != "complete":
        args.complete = []
    if args.only and args.only != "workshop":
        args.games = 0
    if args.only and args.only != "tonttu":
        args.tonttu_games = 0
    unknown = sorted(set(args.complete) - set(KINDS))
    if unknown:
        parser.error(f"unknown kinds {unknown}; known: {', '.join(KINDS)}")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
