"""Three bot processes, one database, one (sharded) fake Discord: every interaction works
whichever process receives it, timers fire once, public messages never go backwards.

The bot has four shards, run by three processes (``SHARD_IDS`` 0-1, 2 and 3). There is a
server on every shard, and in each a Santa's Workshop game (a human and a computer) and a
Workshop Tonttu game (a human and two computers; speed mode on shard 2). Tonttu
choices are made by DM (always delivered to shard 0, so to the first process, whatever
the server) and with the thread's "Choose privately" button (delivered to the server's
shard); race buttons are clicked in the thread. All the processes' clocks read one offset
file, which the test moves forward: reminders, turn limits (the computer moves for the
absent human) and speed-race closes fall due in every game at once, and any process may
claim them. Mid-game the process running shard 3 is killed with SIGKILL; DMs and timers
of its server's games go on meanwhile (they do not need it), and it is started again.

Afterwards: every game finished, with final scores equal to an engine replay of its
stored log (``storage.replay``); every fired timer had its effect exactly once (one
reminder message per fired reminder, one announcement per fired turn limit, one TIMER
action per fired race close); every version of every board message, as the fake
recorded them, shows a move number not lower than the one before, and every status
message only ever gains chosen players until it closes; and no Discord rule was broken.
"""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from cogs.tonttu.text import phase_name
from engine import get_game
from engine.core import TIMER, Rng
from storage import LoadedGame, Storage, sqlite_path
from storage import open as open_storage
from tables.publishing import Publisher

from .bot_helpers import add_computer, turn_prompts
from .fake_discord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, ViolationError
from .tonttu_helpers import (
    choose_by_dm,
    choose_privately,
    dm_panel,
    select_in,
    status_message,
)

pytestmark = pytest.mark.serial  # several processes, signals or timing: run alone (see dev)


SHARD_COUNT = 4
PROCESSES = {"first": "0-1", "second": "2", "third": "3"}
"""SHARD_IDS of each bot process."""
KILLED = "third"
GAMES = {shard: ("workshop", "tonttu") for shard in range(SHARD_COUNT)}
"""The games in the server of each shard (Tonttu in speed mode on shard 2)."""
TURN_LIMIT_HOURS = 2
REMINDER_HOURS = 1
JUMP = (TURN_LIMIT_HOURS + 0.1) * 3600
"""Each clock jump makes every pending reminder and turn limit (and race) fall due."""
MOVE_NUMBER = re.compile(r"Move (\d+)")
CLOCKED_BOT = Path(__file__).with_name("clocked_bot.py")


@dataclass
class Table:
    kind: str
    guild_shard: int
    human: FakeUser
    channel: FakeChannel
    thread: Any = None
    game_id: int = 0
    human_moves: int = 0
    panel: FakeMessage | None = None
    waits: list[float] = field(default_factory=list)
    players: list[str] = field(default_factory=list)


class Cluster:
    """The bot processes and the shared clock."""

    def __init__(self, fake: FakeDiscord, database_url: str, folder: Path) -> None:
        self.fake = fake
        self.database_url = database_url
        self.offset_file = folder / "clock-offset"
        self.offset = 0.0
        self._write_offset()
        self.processes: dict[str, asyncio.subprocess.Process] = {}

    def _write_offset(self) -> None:
        temporary = self.offset_file.with_suffix(".tmp")
        temporary.write_text(str(self.offset))
        os.replace(temporary, self.offset_file)  # the bots never read half a number

    def jump(self, seconds: float) -> None:
        self.offset += seconds
        self._write_offset()

    def shards_of(self, name: str) -> list[int]:
        first, _, last = PROCESSES[name].partition("-")
        return list(range(int(first), int(last or first) + 1))

    async def start(self, name: str) -> None:
        env = {
            "DATABASE_URL": self.database_url,
            "SHARD_COUNT": str(SHARD_COUNT),
            "SHARD_IDS": PROCESSES[name],
            "TIMER_POLL_SECONDS": "0.2",
            "BOT_CLOCK_OFFSET_FILE": str(self.offset_file),
            "FLOOD_BURST": "0",  # the players are scripts, faster than any person
            # one token, several processes: each gets its share of Discord's 50/s
            "REST_BUDGET_PER_SECOND": str(45 // len(PROCESSES)),
        }
        self.processes[name] = await self.fake.start_bot_process(
            CLOCKED_BOT, env=env, shards=self.shards_of(name), timeout=60
        )

    def running_shards(self) -> set[int]:
        return {s for name in self.processes for s in self.shards_of(name)}


async def open_game(fake: FakeDiscord, table: Table) -> None:
    options: dict[str, Any] = {
        "game": table.kind,
        "reminder_hours": REMINDER_HOURS,
        "turn_limit_hours": TURN_LIMIT_HOURS,
    }
    if table.kind == "tonttu":
        options.update(mode="speed" if table.guild_shard == 2 else "tactical", speed_seconds=15)
    result = await fake.slash(table.human, table.channel, "newgame", **options)
    lobby = result.message
    assert lobby is not None
    for level in ("greedy", "random")[: 1 if table.kind == "workshop" else 2]:
        await add_computer(fake, table.human, lobby, level)
    await fake.click(table.human, lobby, "Start")
    await fake.wait_for(lambda: fake.threads(table.channel), timeout=15, what="the thread")
    (table.thread,) = fake.threads(table.channel)


async def quiet(fake: FakeDiscord, store: Storage, tables: list[Table], timeout: float) -> None:  # noqa: ASYNC109
    """Wait until every game waits for its human (or is over) and nothing moved or was
    sent for a while: no bot process is in the middle of anything."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    last: list[int] = []
    while True:
        games = [await store.load(t.game_id) for t in tables]
        versions = [g.version for g in games]
        idle = loop.time() - fake._last_activity
        shown = all(not Publisher.behind(g) for g in games)  # every thread caught up
        if versions == last and idle > 0.4 and shown and all(map(waits_for_human, games)):
            return
        if loop.time() > end:
            stuck = [
                (g.id, g.kind, g.version, sorted(get_game(g.kind).to_act(g.state)), g.state.phase)
                for g in games
                if not waits_for_human(g)
            ]
            raise AssertionError(f"the games did not come to rest: {stuck}\n{errors(fake)}")
        last = versions
        await asyncio.sleep(0.25)


def errors(fake: FakeDiscord) -> str:
    """The tracebacks in the bot processes' output."""
    found = []
    for path in fake.process_logs.values():
        text = path.read_text(errors="replace")
        found += [part[:1500] for part in text.split("Traceback")[1:]]
    return "\n".join(found[-5:])


def waits_for_human(game: LoadedGame) -> bool:
    if game.status != "active":
        return True
    acting = get_game(game.kind).to_act(game.state)
    humans = {s.player for s in game.seats if not s.is_ai}
    return bool(acting) and set(acting) <= humans


async def human_move(
    fake: FakeDiscord, store: Storage, table: Table, game: LoadedGame, rng: Rng, dm_only: bool
) -> bool:
    """One move of the table's human, the way a player makes it (``dm_only``: by DM);
    ``False`` if what the player needs is not on Discord yet."""
    rules = get_game(game.kind)
    state = game.state
    legal = rules.legal_actions(state, str(table.human.id))
    if table.kind == "workshop":
        panel = table.panel  # after a choice it shows the next one, while the turn lasts
        current = f"act:{game.id}:{game.version}:"
        if panel is None or not any(current in str(c.get("custom_id")) for c in components(panel)):
            prompts = turn_prompts(fake, table.thread)
            if not prompts:
                return False
            opened = await fake.click(table.human, prompts[-1], "Take your turn")
            panel = table.panel = opened.message
            assert panel is not None
        buttons = [b["custom_id"] for b in panel.buttons() if b["custom_id"].startswith("act:")]
        if buttons:
            result = await fake.click(table.human, panel, buttons[rng.below(len(buttons))])
        elif panel.selects():
            (select,) = panel.selects()
            values = [o["value"] for o in select["options"]]
            result = await fake.select(
                table.human, panel, select["custom_id"], [rng.choice(values)]
            )
        else:
            table.panel = None
            return False  # the panel was drawn before the turn came back: try again
        table.panel = result.message
    elif not status_posted(fake, table, state):
        return False  # the phase's status message is not posted yet
    elif state.phase == "point" and state.mode == "speed":
        race = status_message(fake, table.thread)
        buttons = [
            b["custom_id"]
            for b in race.buttons()
            if b["custom_id"].startswith(f"ttr:{game.id}:{state.round}:")
        ]
        if not buttons:
            return False
        await fake.click(table.human, race, buttons[rng.below(len(buttons))])
    elif legal:
        action = legal[rng.below(len(legal))]
        if dm_only:  # the game's shard is down: only a DM reaches a bot (shard 0)
            panel = dm_panel(fake, table.human, state.round, state.phase, dms_only=True)
            if panel is None:
                return False
            await select_in(fake, table.human, panel, state, action)
        elif rng.below(3):
            if dm_panel(fake, table.human, state.round, state.phase) is None:
                return False
            await choose_by_dm(fake, table.human, state, action)  # its last panel
        else:
            await choose_privately(fake, table.human, table.thread, state, action)
    table.human_moves += 1
    return True


def components(message: FakeMessage) -> list[dict[str, Any]]:
    return [*message.buttons(), *message.selects()]


def status_posted(fake: FakeDiscord, table: Table, state: Any) -> bool:
    """Whether the thread shows the status message of ``state``'s phase."""
    try:
        status = status_message(fake, table.thread)
    except AssertionError:
        return False
    # the phase's message: the reveal that started it, then its status
    return f"**Round {state.round} · {phase_name(state)}**" in status.content


async def play(
    fake: FakeDiscord,
    store: Storage,
    cluster: Cluster,
    table: Table,
    rng: Rng,
    moves: int,
    *,
    stop_at_race: bool = False,
) -> None:
    """Up to ``moves`` moves of the human, each once the game waits for them."""
    loop = asyncio.get_running_loop()
    made = 0
    give_up = loop.time() + 180
    while made < moves:
        assert loop.time() < give_up, f"{table.kind}: the human could not move for 3 minutes"
        game = await store.load(table.game_id)
        if game.status != "active":
            return
        state = game.state
        if stop_at_race and state.phase == "point" and state.mode == "speed":
            return
        down = table.guild_shard not in cluster.running_shards()
        by_dm = table.kind == "tonttu" and (state.phase == "pick" or state.mode == "tactical")
        if down and (
            not by_dm
            or dm_panel(fake, table.human, state.round, state.phase, dms_only=True) is None
        ):
            # nothing reaches a server whose shard is down, but DMs do (if the bot sent
            # this phase's choices by DM: a player who last chose on an ephemeral panel in
            # the thread finds them there, which waits for the shard, as on Discord)
            return
        if not waits_for_human(game) or not await human_move(
            fake, store, table, game, rng, dm_only=down
        ):
            await asyncio.sleep(0.05)
            continue
        made += 1
        started = loop.time()
        end = started + 3  # a refused move (a race card taken meanwhile) changes nothing
        while (await store.load(table.game_id)).version == game.version and loop.time() < end:  # noqa: ASYNC110
            await asyncio.sleep(0.05)
        table.waits.append(round(loop.time() - started, 2))


def board_regressions(fake: FakeDiscord, thread: Any) -> list[str]:
    """Boards whose move number ever went down from one version to the next."""
    found = []
    for message in fake.messages(thread):
        moves = [
            int(m[1])
            for version in message.history
            for embed in version.get("embeds") or []
            if (m := MOVE_NUMBER.search((embed.get("footer") or {}).get("text", "")))
        ]
        if moves != sorted(moves):
            found.append(f"board {message.id} showed moves {moves}")
    return found


def status_regressions(fake: FakeDiscord, thread: Any) -> list[str]:
    """Status messages that lost a chosen player, or came back to life after closing."""
    found = []
    for message in fake.messages(thread):
        contents = [version.get("content") or "" for version in message.history]
        if not any("Chosen: " in c for c in contents):
            continue
        chosen: list[set[str]] = []
        closed = False
        for content in contents:
            if content.startswith("This phase is over"):
                closed = True
                continue
            if closed:
                found.append(f"status {message.id} edited after it closed: {content[:80]}")
            line = content.split("Chosen: ", 1)[1].splitlines()[0] if "Chosen: " in content else ""
            names = set() if line in ("", "nobody yet") else set(line.split(", "))
            if chosen and not chosen[-1] <= names:
                found.append(f"status {message.id} went from {chosen[-1]} to {names}")
            chosen.append(names)
    return found


async def fired_timers(database_url: str) -> dict[tuple[int, str], int]:
    """(game id, kind) → how many timers fired (read straight from the database). A
    claimed timer that had nothing to do is recorded as cancelled: say an earlier
    phase's reminder, claimed after the race closed by the clock jump and before the
    new phase's message replaced it."""
    sql = (
        "SELECT game_id, kind, COUNT(*) FROM timers WHERE fired_at IS NOT NULL"
        " GROUP BY game_id, kind"
    )
    if database_url.startswith("sqlite:///"):
        with sqlite3.connect(sqlite_path(database_url)) as db:
            rows = db.execute(sql).fetchall()
    else:
        connection = await asyncpg.connect(database_url)
        try:
            rows = [tuple(row) for row in await connection.fetch(sql)]
        finally:
            await connection.close()
    return {(game_id, kind): count for game_id, kind, count in rows}


@pytest.mark.parametrize("backend", ["postgres"])
async def test_three_processes_share_the_games_of_every_shard(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if backend == "postgres":
        database_url = str(request.getfixturevalue("postgres_url"))
    else:
        database_url = f"sqlite:///{tmp_path}/bot.db"  # several processes on one file work too
    rng = Rng(2026)
    async with FakeDiscord(shard_count=SHARD_COUNT, max_concurrency=SHARD_COUNT) as fake:
        fake.settle_after_interaction = False  # the bots are in other processes
        store = await open_storage(database_url)
        cluster = Cluster(fake, database_url, tmp_path)
        try:
            await asyncio.gather(*(cluster.start(name) for name in PROCESSES))
            tables: list[Table] = []
            for shard in range(SHARD_COUNT):
                guild = fake.add_guild(f"Server {shard}", owner=fake.owner, shard=shard)
                assert fake.shard_of(guild) == shard
                for kind in GAMES[shard]:
                    human = fake.add_user(f"{kind}-{shard}", guild=guild)
                    channel = fake.add_channel(kind, guild=guild)
                    tables.append(Table(kind, shard, human, channel))
            await asyncio.sleep(0.5)  # the bots see the new servers (GUILD_CREATE)
            await asyncio.gather(*(open_game(fake, t) for t in tables))
            for table in tables:
                found = await store.find_open(table.channel.id)
                assert found is not None and found.status == "active"
                table.game_id = found.id

            async def everyone(moves: int, *, stop_at_race: bool = False) -> None:
                await asyncio.gather(
                    *(
                        play(fake, store, cluster, t, rng, moves, stop_at_race=stop_at_race)
                        for t in tables
                    )
                )

            async def jump() -> None:
                """Reminders, turn limits and pending races fall due in every game."""
                await quiet(fake, store, tables, timeout=30)
                cluster.jump(JUMP)
                await asyncio.sleep(0.5)
                await quiet(fake, store, tables, timeout=30)

            await everyone(6, stop_at_race=True)
            await jump()
            # mid-game: SIGKILL the process running shard 3 (its games go on by DM and timer)
            await quiet(fake, store, tables, timeout=30)
            await fake.kill_bot_process(cluster.processes.pop(KILLED))
            await everyone(4)
            await jump()
            await cluster.start(KILLED)
            await everyone(10_000)
            await quiet(fake, store, tables, timeout=30)

            # -- every game finished, and its scores are the engine's replay of its log
            for table in tables:
                game = await store.load(table.game_id)
                assert game.status == "finished", (table.kind, game.status)
                report = await store.replay(table.game_id)  # seed + log → the snapshot
                assert report.ok, report
                outcome = get_game(game.kind).outcome(game.state)
                assert outcome is not None and game.result == outcome.model_dump(mode="json")
                final = [m for m in fake.messages(table.thread) if "final scores" in m.text()]
                assert len(final) == 1, f"{len(final)} final-score posts in game {game.id}"
            # -- each fired timer had its effect once at most; a limit or close, exactly
            # once. A reminder's timer records that it is due and the sync posts it while
            # its phase lasts: a limit or close that falls due with it may end the phase
            # first (the publishing claim was busy), and then nothing is posted.
            fired = await fired_timers(database_url)
            for table in tables:
                texts = [m.content for m in fake.messages(table.thread)]
                reminders = sum(t.startswith("Reminder") for t in texts)
                limits = sum("did not move within" in t for t in texts)
                assert limits == fired.get((table.game_id, "turn_limit"), 0), table
                closes = sum(1 for a in await store.log(table.game_id) if a.player == TIMER)
                assert closes == fired.get((table.game_id, "speed_close"), 0), table
                asked = fired.get((table.game_id, "remind"), 0)
                assert asked - (limits + closes) <= reminders <= asked, table
            assert sum(n for (_, kind), n in fired.items() if kind == "remind") > 0
            assert sum(n for (_, kind), n in fired.items() if kind == "turn_limit") > 0
            assert sum(n for (_, kind), n in fired.items() if kind == "speed_close") > 0
            # -- no public message went backwards
            for table in tables:
                assert not board_regressions(fake, table.thread)
                assert not status_regressions(fake, table.thread)
            # -- the work really was spread: every shard got interactions
            dm_moves = [s for s, e, d in fake.dispatched if e == "INTERACTION_CREATE"]
            assert set(dm_moves) == set(range(SHARD_COUNT))
            leftover = fake.take_violations()
            if leftover:
                raise ViolationError(leftover)
        finally:
            await store.close()
