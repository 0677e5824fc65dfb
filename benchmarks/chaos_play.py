"""The players of the chaos soak (``benchmarks/chaos.py``): scripted people at many tables.

Each player task opens a game in a channel of its own (a new channel per game), plays it
by its behaviour, and opens the next, until the soak says stop:

* ``full``: plays to the end (Santa's Workshop with undo now and then; Workshop Tonttu
  tactical by DM or the thread's "Choose privately", speed by the race buttons);
* ``abandon``: a few moves, then ``/abandon`` and its button;
* ``silent``: a few moves, then nothing: the turn limits (the compressed clock) play for
  them, and the game goes on without this task.

Some players have their DMs closed. One more task is the fast clicker: a Workshop table
whose player clicks whatever is on the latest prompt and panel with no pause at all.
Every interaction is recorded by the fake Discord (``fake.interactions``); the checks
read them from there afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.core import Rng
from storage import Storage
from storage.errors import DatabaseUnavailable
from tests.e2e.bot_helpers import add_computer, turn_prompts
from tests.e2e.fake_discord import FakeDiscord, FakeMessage, FakeUser
from tests.e2e.fake_discord.model import HarnessError, ViolationError
from tests.e2e.test_scale_out import Table as ScaleTable
from tests.e2e.test_scale_out import human_move

log = logging.getLogger("chaos")

LEVELS = ("random", "greedy", "strong")
REMINDER_HOURS = 1
TURN_LIMIT_HOURS = 2
JUMP_SECONDS = (TURN_LIMIT_HOURS + 0.1) * 3600
"""Each clock jump makes every pending reminder and turn limit fall due."""
SPEED_SECONDS = 15
UNDO_PERCENT = 12


@dataclass
class Game:
    """One game a player task opened (``game_id`` 0: its lobby never started)."""

    kind: str
    mode: str
    behaviour: str
    channel: Any
    human: FakeUser
    shard: int
    levels: tuple[str, ...]
    dms_open: bool
    thread: Any = None
    game_id: int = 0
    moves: int = 0
    opened_at: float = 0.0
    ended: str = ""  # finished / abandoned / left (silent) / stopped (the soak ended)


@dataclass
class Players:
    """What every player task shares: the fake, a store to read games, the switches."""

    fake: FakeDiscord
    store: Storage
    guilds: list[Any]
    seed: int
    games_wanted: int
    stop_opening: Callable[[], bool]
    """True once no new game may be opened (time is up and enough were opened)."""
    burst: Callable[[], bool]
    """True while the players click without thinking (the SIGTERM's burst)."""
    games: list[Game] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    """Harness-side failures by kind (a click into a down process, a lobby that could not
    open during an outage, ...): figures, not verdicts."""
    draining: bool = False
    """After the faults: the ``full`` players finish their games, no one opens one."""
    full_until: float = float("inf")
    """Loop time after which no game is opened to be played to the end (the last ones
    must finish before the drain ends): later games are abandoned or left."""
    _names: int = 0

    def count(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1

    def new_game(self, rng: Rng) -> Game:
        self._names += 1
        guild = self.guilds[rng.below(len(self.guilds))]
        kind = ("workshop", "workshop", "tonttu")[rng.below(3)]
        mode = "tactical"
        if kind == "tonttu":
            mode = ("tactical", "speed")[rng.below(2)]
        roll = rng.below(100)
        behaviour = "full" if roll < 30 else "abandon" if roll < 80 else "silent"
        if behaviour == "full" and asyncio.get_running_loop().time() > self.full_until:
            behaviour = ("abandon", "silent")[rng.below(2)]
        computers = 1 if kind == "workshop" else 2
        levels = tuple(LEVELS[rng.below(len(LEVELS))] for _ in range(computers))
        dms_open = rng.below(5) != 0  # one player in five has closed DMs
        name = f"p{self._names}"
        human = self.fake.add_user(name, guild=guild, dms_open=dms_open)
        channel = self.fake.add_channel(f"table-{self._names}", guild=guild)
        game = Game(
            kind, mode, behaviour, channel, human, self.fake.shard_of(guild), levels, dms_open
        )
        self.games.append(game)
        return game

    async def open(self, game: Game) -> bool:
        """/newgame, the computers, Start; ``False`` if the table did not come up."""
        fake = self.fake
        options: dict[str, Any] = {
            "game": game.kind,
            "reminder_hours": REMINDER_HOURS,
            "turn_limit_hours": TURN_LIMIT_HOURS,
        }
        if game.kind == "tonttu":
            options.update(mode=game.mode, speed_seconds=SPEED_SECONDS)
        game.opened_at = asyncio.get_running_loop().time()
        lobby = (await fake.slash(game.human, game.channel, "newgame", **options)).message
        if lobby is None or not lobby.buttons():
            return False
        for level in game.levels:
            await add_computer(fake, game.human, lobby, level)
        await fake.click(game.human, lobby, "Start")
        await fake.wait_for(lambda: fake.threads(game.channel), timeout=20, what="the thread")
        (game.thread,) = fake.threads(game.channel)
        for _ in range(60):  # the database may be away (pg_ctl stop) just now
            try:
                found = await self.store.find_open(game.channel.id)
                break
            except DatabaseUnavailable:
                await asyncio.sleep(0.5)
        else:
            return False
        if found is None or found.status != "active":
            return False
        game.game_id = found.id
        return True

    async def run_player(self, index: int) -> None:
        rng = Rng(self.seed * 1000 + index)
        while not self.stop_opening() and not self.draining:
            game = self.new_game(rng)
            try:
                opened = await self.open(game)
            except (HarnessError, ViolationError, AssertionError, TimeoutError, OSError) as error:
                self.count(f"lobby not opened ({type(error).__name__})")
                opened = False
            if not opened:
                game.ended = "lobby lost"
                await asyncio.sleep(1)
                continue
            await self.play(game, rng)

    async def play(self, game: Game, rng: Rng) -> None:
        """Moves by ``game.behaviour`` until the game ends or the player leaves it."""
        loop = asyncio.get_running_loop()
        table = ScaleTable(game.kind, game.shard, game.human, game.channel, game.thread)
        table.game_id = game.game_id
        quota = 10**6 if game.behaviour == "full" else 1 + rng.below(8)
        while True:
            if (self.stop_opening() and game.behaviour != "full") or (
                self.draining and game.behaviour != "full"
            ):
                game.ended = "stopped"
                return
            try:
                loaded = await self.store.load(game.game_id)
            except Exception:  # the database is down (pg_ctl stop): wait for it
                await asyncio.sleep(0.5)
                continue
            if loaded.status != "active":
                game.ended = loaded.status
                return
            if game.moves >= quota:
                if game.behaviour == "silent":
                    game.ended = "left"
                    return
                if await self.abandon(game):
                    continue  # the next load sees it abandoned
            think = 0.0 if self.burst() else 0.2 + rng.below(800) / 1000
            await asyncio.sleep(think)
            try:
                if game.kind == "workshop":
                    moved = await workshop_move(self.fake, game, table, rng)
                else:
                    moved = await human_move(
                        self.fake, self.store, table, loaded, rng, dm_only=False
                    )
            except ViolationError as error:
                self.count(f"no answer in 3 s ({error.violations[0].kind})")
                table.panel = None
                continue
            except (HarnessError, AssertionError, TimeoutError, OSError, KeyError) as error:
                self.count(f"click failed ({type(error).__name__})")
                table.panel = None
                await asyncio.sleep(0.3)
                continue
            except Exception as error:  # a database error while the player read the game
                self.count(f"player read failed ({type(error).__name__})")
                await asyncio.sleep(0.5)
                continue
            if moved:
                game.moves += 1
            else:
                await asyncio.sleep(0.1)
            if loop.time() - game.opened_at > 3600:
                game.ended = "stopped"
                return

    async def abandon(self, game: Game) -> bool:
        """``/abandon`` in the thread and its confirming button."""
        try:
            asked = await self.fake.slash(game.human, game.thread, "abandon")
            message = asked.message
            if message is None:
                return False
            button = next(
                (b for b in message.buttons() if b["custom_id"].startswith("abandon:")), None
            )
            if button is None:
                return False
            await self.fake.click(game.human, message, button["custom_id"])
            return True
        except (HarnessError, ViolationError, AssertionError, TimeoutError, OSError) as error:
            self.count(f"abandon failed ({type(error).__name__})")
            await asyncio.sleep(0.5)
            return False

    async def fast_clicker(self, done: Callable[[], bool]) -> int:
        """One player who clicks whatever their latest prompt and panel offer, with no
        pause at all, game after game; returns how many clicks they made."""
        rng = Rng(self.seed * 7 + 1)
        clicks = 0
        while not done():
            game = self.new_game(rng)
            game.kind, game.mode, game.behaviour, game.levels = "workshop", "", "fast", ("random",)
            try:
                if not await self.open(game):
                    game.ended = "lobby lost"
                    continue
            except (HarnessError, ViolationError, AssertionError, TimeoutError, OSError):
                game.ended = "lobby lost"
                await asyncio.sleep(1)
                continue
            panel: FakeMessage | None = None
            while not done():
                with contextlib.suppress(Exception):
                    if (await self.store.load(game.game_id)).status != "active":
                        break
                try:
                    prompts = turn_prompts(self.fake, game.thread)
                    if panel is None or not panel.buttons():
                        if not prompts:
                            await asyncio.sleep(0)
                            continue
                        panel = (
                            await self.fake.click(game.human, prompts[-1], "Take your turn")
                        ).message
                        clicks += 1
                        continue
                    buttons = [b["custom_id"] for b in panel.buttons()]
                    result = await self.fake.click(
                        game.human, panel, buttons[rng.below(len(buttons))]
                    )
                    clicks += 1
                    panel = result.message
                except (ViolationError, HarnessError, AssertionError, TimeoutError, OSError):
                    panel = None
                    await asyncio.sleep(0)
            game.ended = game.ended or "stopped"
        return clicks


async def workshop_move(fake: FakeDiscord, game: Game, table: ScaleTable, rng: Rng) -> bool:
    """One Santa's Workshop choice (or, now and then, an undo) on the player's panel;
    ``False`` if it is not their turn on Discord yet."""
    panel = table.panel
    if panel is None or not acts(panel):
        prompts = turn_prompts(fake, game.thread)
        if not prompts or f"<@{game.human.id}>" not in prompts[-1].content.splitlines()[-1]:
            return False
        opened = await fake.click(game.human, prompts[-1], "Take your turn")
        panel = table.panel = opened.message
        if panel is None or not acts(panel):
            table.panel = None
            return False
    undo = [b["custom_id"] for b in panel.buttons() if b["custom_id"].startswith("undo:")]
    buttons = [b["custom_id"] for b in panel.buttons() if b["custom_id"].startswith("act:")]
    if undo and rng.below(100) < UNDO_PERCENT:
        result = await fake.click(game.human, panel, undo[0])
    elif buttons:
        result = await fake.click(game.human, panel, buttons[rng.below(len(buttons))])
    else:
        (select,) = panel.selects()
        values = [o["value"] for o in select["options"]]
        result = await fake.select(game.human, panel, select["custom_id"], [rng.choice(values)])
    table.panel = result.message
    return True


def acts(panel: FakeMessage) -> bool:
    """Whether a Workshop panel offers choices (buttons or a menu)."""
    return any(b["custom_id"].startswith("act:") for b in panel.buttons()) or any(
        s["custom_id"].startswith("acts:") for s in panel.selects()
    )
