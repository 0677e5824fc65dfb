"""Do thinking computers slow the table next door? A humans-only table's clicks, alone and
beside tables whose strong computer players keep thinking; the bot in its own process.

    python -m benchmarks.ai_load [--clicks 60] [--beside 3,8] [--think 0.2] [--no-old]

The bot (bot.py) runs in its own process against the fake Discord, which runs here. One
Santa's Workshop table of two humans clicks through its turns (a think time of 0.1 s to
2 × --think between clicks); the figure is the time from a click's dispatch to the bot's
first response (the panel update), p50 and p99. Measured alone, then beside 3 and beside
8 four-player tables (one human host who answers at once, three "strong" computers), so
the computers are nearly always thinking; each figure comes from fresh humans tables
(a new one every 100 clicks, or sooner when a game ends; a computers table whose
game ends starts another).

Two runs, each with a fresh bot process and database:
- workers: computer decisions in worker processes (the default: AI_WORKERS unset);
- old: AI_WORKERS=0, decisions in threads of the bot's process, as before the worker processes
  (skipped with --no-old).
Target: beside 8, p99 at most 1.5 x the p99 alone. A p99 of 100 clicks is
their second slowest, so the ratio swings from run to run: printed with it is a 95 %
bootstrap interval (the clicks of each figure resampled, :func:`ratio_interval`), which
more ``--clicks`` narrow.
Also printed: the moves the computer tables made during each measurement, to show they
kept thinking (the humans table's own moves excluded).

Each figure is printed twice: first as the fake saw it (dispatch to its acceptance of
the answer), then as the bot sent it ("sent": dispatch to the last byte of the answer
leaving the bot's process, ``FAKE_DISCORD_SENT_LOG`` in ``tests/e2e/fake_discord/
run_bot.py``; both stamps are the system's monotonic clock). The fake runs in this
process and serves every table: beside 8 its own event loop is busy with the other
tables' requests and gets to an answer late, a delay that on Discord is not on the
bot's machine. The "sent" figure leaves that out and keeps everything of the bot's own:
the gateway event waiting to be read by a busy bot, the handler, the answer's request.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.bot_latency import act_buttons, percentile
from engine.core import Rng
from tables.computers import default_workers
from tests.e2e.bot_helpers import add_computer, turn_prompts
from tests.e2e.fake_discord import FakeDiscord, FakeMessage, FakeUser, ViolationError

GAME_CLICKS = 100
"""Clicks measured on one humans table (a two-player game lasts about 115 decisions; one
that ends sooner is followed by a fresh table)."""
STOP_WAIT = 30.0
"""Seconds the computer tables' hosts get to stop clicking at the end (one click's wait)."""
POLL = 0.05
"""Seconds between two looks at the fake's messages (a player noticing their turn)."""


class GameOver(Exception):
    """The table's game ended (its final scores are in the thread)."""


def finished(fake: FakeDiscord, thread: Any) -> bool:
    return any(
        (embed.get("title") or "").endswith(": final scores")
        for message in fake.messages(thread)
        for embed in message.embeds
    )


async def poll(check: Any, what: str, timeout: float = 120.0) -> None:  # noqa: ASYNC109
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(POLL)


class Turns:
    """A table's turn prompts, read as a player would: who is asked, and when anew."""

    def __init__(self, fake: FakeDiscord, thread: Any, seated: dict[str, FakeUser]) -> None:
        self.fake, self.thread, self.seated = fake, thread, seated
        self.seen = 0
        self.panel: FakeMessage | None = None
        self.user: FakeUser | None = None
        self.missed = 0
        """Clicks whose answer broke Discord's rules (a late answer: "interaction failed")."""

    async def open_next_panel(self, again: bool = False) -> None:
        """Wait for the next turn prompt (``again``: take the latest); its player opens
        their panel. Raises :class:`GameOver` once the game has ended."""
        if not again:
            await poll(
                lambda: (
                    len(turn_prompts(self.fake, self.thread)) > self.seen
                    or finished(self.fake, self.thread)
                ),
                "a turn prompt",
            )
        if finished(self.fake, self.thread):
            raise GameOver
        prompts = turn_prompts(self.fake, self.thread)
        self.seen = len(prompts)
        mentioned = prompts[-1].content.splitlines()[-1]
        (player,) = [p for p in self.seated if f"<@{p}>" in mentioned]
        self.user = self.seated[player]
        self.panel = (await self.fake.click(self.user, prompts[-1], "Take your turn")).message

    async def click(self, rng: Rng) -> Click:
        """One decision of whoever must act, and how long its first response took."""
        while self.panel is None or not act_buttons(self.panel):
            await self.open_next_panel(again=self.panel is None and self.seen > 0)
        assert self.user is not None and self.panel is not None
        choices = act_buttons(self.panel)
        started = time.perf_counter()
        try:
            result = await self.fake.click(self.user, self.panel, choices[rng.below(len(choices))])
        except ViolationError as error:  # e.g. Discord's 3 s deadline missed
            self.missed += 1
            late = error.result
            if late is None or late.latency is None:  # refused: as long as the user waited
                self.panel = None  # open a fresh panel for the next click
                return Click(time.perf_counter() - started, None, 0.0)
            result = late
        assert result.latency is not None
        self.panel = result.message
        return Click(result.latency, result.interaction_id, result.record.dispatched_at)


@dataclass(frozen=True)
class Click:
    """One measured click: ``latency`` from its dispatch to the fake's acceptance of the
    first response (seconds); ``interaction`` (``None`` if refused) and ``dispatched``
    (the fake's ``loop.time()``) to find when the bot sent that response."""

    latency: float
    interaction: int | None
    dispatched: float


def sent_latencies(clicks: list[Click], log: Path) -> list[float]:
    """Each click's time from dispatch until the bot had sent its first response (the
    last chunk's ``time.monotonic()`` in ``FAKE_DISCORD_SENT_LOG``), in ms; a refused
    click counts as its whole wait."""
    sent: dict[int, float] = {}
    for line in log.read_text().splitlines():
        interaction, at = line.split()
        sent[int(interaction)] = float(at)
    return [
        c.latency * 1000 if c.interaction is None else (sent[c.interaction] - c.dispatched) * 1000
        for c in clicks
    ]


async def humans_table(fake: FakeDiscord, name: str) -> Turns:
    channel = fake.add_channel(name)
    host, guest = fake.add_user(f"{name}-host"), fake.add_user(f"{name}-guest")
    lobby = (await fake.slash(host, channel, "newgame", game="workshop")).message
    assert lobby is not None
    await fake.click(guest, lobby, "Join")
    await fake.click(host, lobby, "Start")
    await poll(lambda: fake.threads(channel), "the humans' thread")
    (thread,) = fake.threads(channel)
    return Turns(fake, thread, {str(host.id): host, str(guest.id): guest})


class ComputerTable:
    """A host and three strong computers; the host answers at once, so the computers
    are nearly always thinking. When a game ends, the next one starts (in a new
    channel), so the computers keep thinking however long the measurement."""

    def __init__(self, fake: FakeDiscord, n: int) -> None:
        self.fake, self.n = fake, n
        self.games = 0
        self.turns: Turns | None = None
        self.earlier_moves = 0
        """Moves of the table's finished games."""
        self.task: asyncio.Task[None] | None = None
        self.stopping = False
        """Set at the end: the host stops clicking even if a cancellation was lost
        (Python 3.11's ``asyncio.wait_for``, which the fake's clicks use, can swallow one
        that comes as its wait ends: a table then played on, the benchmark waited for it
        forever, and its computers kept the next runs' machine busy)."""

    @classmethod
    async def open(cls, fake: FakeDiscord, n: int) -> ComputerTable:
        table = cls(fake, n)
        await table.new_game()
        table.task = asyncio.create_task(table.keep_playing(Rng(n)))
        return table

    async def new_game(self) -> None:
        fake, name = self.fake, f"computers-{self.n}-{self.games}"
        self.games += 1
        channel = fake.add_channel(name)
        host = fake.add_user(f"{name}-host")
        lobby = (await fake.slash(host, channel, "newgame", game="workshop")).message
        assert lobby is not None
        for _ in range(3):
            await add_computer(fake, host, lobby, "strong")
        await fake.click(host, lobby, "Start")
        await poll(lambda: fake.threads(channel), "a computers' thread")
        (thread,) = fake.threads(channel)
        self.turns = Turns(fake, thread, {str(host.id): host})

    async def keep_playing(self, rng: Rng) -> None:
        while not self.stopping:
            assert self.turns is not None
            try:
                await self.turns.click(rng)
            except GameOver:
                self.earlier_moves += self.board_move()
                await self.new_game()

    def moves(self) -> int:
        """Moves made at this table so far, in all its games."""
        return self.earlier_moves + self.board_move()

    def board_move(self) -> int:
        """The move number on the current game's board (edited after every move)."""
        if self.turns is None:
            return 0
        for message in self.fake.messages(self.turns.thread):
            found = re.search(r"Move (\d+)", message.text()) if message.embeds else None
            if found:
                return int(found.group(1))
        return 0


async def measure(turns: Turns, clicks: int, think: float, rng: Rng) -> list[Click]:
    """Up to ``clicks`` clicks (fewer if the game ends first)."""
    clicked: list[Click] = []
    for _ in range(clicks):
        await asyncio.sleep(0.1 + rng.below(max(1, int((2 * think - 0.1) * 1000))) / 1000)
        try:
            clicked.append(await turns.click(rng))
        except GameOver:
            break
    return clicked


def ratio_interval(
    alone: list[float], beside: list[float], p: float = 99, rounds: int = 2000
) -> tuple[float, float]:
    """A 95 % bootstrap interval of ``percentile(beside, p) / percentile(alone, p)``:
    both samples resampled with replacement ``rounds`` times (seeded: the same samples
    give the same interval)."""
    rng = random.Random(1)
    ratios = sorted(
        percentile(rng.choices(beside, k=len(beside)), p)
        / percentile(rng.choices(alone, k=len(alone)), p)
        for _ in range(rounds)
    )
    return ratios[int(0.025 * rounds)], ratios[int(0.975 * rounds) - 1]


async def run(
    workers: str, clicks: int, beside: list[int], think: float
) -> tuple[list[list[float]], list[list[float]]]:
    """One bot process; returns the first responses in ms, alone and beside each count:
    as the fake accepted them, and as the bot sent them."""
    folder = Path(tempfile.mkdtemp())
    env = {"DATABASE_URL": f"sqlite:///{folder}/ai-load.db", "DISCORD_GUILD_ID": ""}
    log = folder / "sent.log"
    log.touch()
    env["FAKE_DISCORD_SENT_LOG"] = str(log)
    env["FLOOD_BURST"] = "0"  # the load's players are scripts, faster than any person
    if workers:
        env["AI_WORKERS"] = workers
    async with FakeDiscord(validate_spec=False) as fake:
        process = await fake.start_bot_process("bot.py", env=env)
        fake.settle_after_interaction = False  # the bot is busy on purpose
        rng = Rng(11)
        computers: list[ComputerTable] = []
        cells, sent_cells = [], []
        for phase, count in enumerate([0, *beside]):
            while len(computers) < count:
                computers.append(await ComputerTable.open(fake, len(computers)))
            if count:
                await asyncio.sleep(2.0)  # the new tables' computers are thinking
            measured: list[Click] = []
            moved, missed, seconds = 0, 0, 0.0
            while len(measured) < clicks:  # a fresh game every GAME_CLICKS or when one ends
                humans = await humans_table(fake, f"humans-{phase}-{len(measured)}")
                await humans.open_next_panel()
                before = sum(table.moves() for table in computers)
                started = time.perf_counter()
                some = min(GAME_CLICKS, clicks - len(measured))
                measured += await measure(humans, some, think, rng)
                seconds += time.perf_counter() - started
                moved += sum(table.moves() for table in computers) - before
                missed += humans.missed
            label = "alone" if not count else f"beside {count}"
            ms = [click.latency * 1000 for click in measured]
            sent = sent_latencies(measured, log)
            cells.append(ms)
            sent_cells.append(sent)
            print(
                f"  {label:>9}: p50 {percentile(ms, 50):6.1f} ms, p99 {percentile(ms, 99):7.1f} ms"
                f" (sent by the bot: {percentile(sent, 50):.1f} / {percentile(sent, 99):.1f} ms)"
                f" over {len(ms)} clicks in {seconds:.1f} s ({missed} past Discord's 3 s);"
                f" computer tables made {moved} moves",
                flush=True,
            )
        for table in computers:
            assert table.task is not None
            table.stopping = True
            table.task.cancel()
        await asyncio.wait([t.task for t in computers if t.task], timeout=STOP_WAIT)
        # Ctrl-C lets the work under way finish for up to SHUTDOWN_GRACE_SECONDS (10 s):
        # here the computers' chains of moves, which keep the one worker busy that long
        await fake.stop_bot_process(process, timeout=30)
        broken = fake.take_violations()  # the old way misses Discord's 3 s deadline
        kinds = sorted({v.kind for v in broken})
        print(f"  Discord rules broken during the run: {len(broken)} {', '.join(kinds)}")
    return cells, sent_cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=60, help="measured clicks per figure")
    parser.add_argument("--beside", default="3,8", help="numbers of computer tables")
    parser.add_argument("--think", type=float, default=0.2, help="mean think time, seconds")
    parser.add_argument("--no-old", action="store_true", help="skip the in-thread run")
    args = parser.parse_args()
    if args.clicks < 1:
        parser.error("--clicks: at least 1")
    beside = [int(n) for n in args.beside.split(",") if n.strip()]
    runs = [("workers", "")] + ([] if args.no_old else [("old (threads)", "0")])
    print(
        f"ai_load: {os.cpu_count()} cores, {default_workers()} computer worker(s) by default;"
        f" {args.clicks} clicks per figure, first response to a click, ms"
    )
    rows = []
    for name, workers in runs:
        print(f"{name}: AI_WORKERS={workers or '(unset)'}", flush=True)
        accepted, sent = asyncio.run(run(workers, args.clicks, beside, args.think))
        rows += [(name, accepted), (f"{name}, sent", sent)]
    heads = ["alone", *(f"beside {n}" for n in beside)]
    print("\nhumans-only table, first response p50 / p99 (ms):")
    print(
        f"  {'':<20}" + "".join(f"{h:>19}" for h in heads) + "   p99 last / alone (95 % interval)"
    )
    for name, cells in rows:
        shown = "".join(
            f"{f'{percentile(ms, 50):.1f} / {percentile(ms, 99):.1f}':>19}" for ms in cells
        )
        ratio = percentile(cells[-1], 99) / percentile(cells[0], 99)
        low, high = ratio_interval(cells[0], cells[-1])
        print(f"  {name:<20}{shown}   {ratio:.2f}x ({low:.2f}-{high:.2f}x)")
    print("  target: beside 8, p99 at most 1.5x the p99 alone")
    print(
        '  (first line of a run: dispatch to the fake\'s acceptance of the answer; ", sent":'
        " until the bot had sent it, without the time the fake's own loop, busy with every"
        " table's requests, took to get to it)"
    )


if __name__ == "__main__":
    main()
