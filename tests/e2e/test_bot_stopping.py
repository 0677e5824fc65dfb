"""Stopping the bot process with Ctrl-C or SIGTERM in the middle of a burst of moves.

The bot runs in its own process. Three tables play at once; the fake holds the bot's
public posts (log, prompts, board edits) in flight, so that when the signal comes the
moves just answered are still being published. Then: a click arriving while the bot
stops is answered "restarting" (and changes nothing), the posts under way are let
through and finish, the process exits with status 0, nothing in its log is a
traceback, and every move a player was answered is stored and on its table's board.
Started again, the bot finds every table current or brings it up to date by itself.
"""

from __future__ import annotations

import asyncio
import re
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from cogs.helpers.gates import RESTARTING
from engine import get_game
from storage import Storage
from storage import open as open_storage
from tables.publishing import Publisher
from tables.workers import EXIT_WAIT

from .bot_helpers import turn_prompts
from .fake_discord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from .fake_discord.model import RecordedRequest

pytestmark = pytest.mark.serial  # several processes, signals or timing: run alone (see dev)


TABLES = 3
CLICKS = 4
"""Decisions each table's acting player tries to make in the burst."""
MESSAGES = re.compile(r"^/channels/\d+/messages(/\d+)?$")


def act_buttons(message: FakeMessage | None) -> list[str]:
    if message is None:
        return []
    return [b["custom_id"] for b in message.buttons() if b["custom_id"].startswith("act:")]


async def open_tables(fake: FakeDiscord) -> list[tuple[FakeChannel, dict[str, FakeUser]]]:
    tables = []
    for number in range(TABLES):
        channel = fake.add_channel(f"table-{number}")
        host, guest = fake.add_user(f"host{number}"), fake.add_user(f"guest{number}")
        lobby = (await fake.slash(host, channel, "newgame", game="workshop")).message
        assert lobby is not None
        await fake.click(guest, lobby, "Join")
        await fake.click(host, lobby, "Start")
        await fake.wait_for(
            lambda c=channel: fake.threads(c) and turn_prompts(fake, fake.threads(c)[0]),
            timeout=15,
            what="the table's first prompt",
        )
        tables.append((fake.threads(channel)[0], {str(host.id): host, str(guest.id): guest}))
    return tables


def acting_player(fake: FakeDiscord, thread: FakeChannel, seated: dict[str, FakeUser]) -> FakeUser:
    prompt = turn_prompts(fake, thread)[-1]
    (player,) = [p for p in seated if f"<@{p}>" in prompt.content.splitlines()[-1]]
    return seated[player]


@pytest.mark.parametrize(
    ("signum", "grace", "posts_go_through"),
    [(signal.SIGINT, 20, True), (signal.SIGTERM, 20, True), (signal.SIGTERM, 1, False)],
    ids=["ctrl-c", "sigterm", "sigterm-grace-runs-out"],
)
async def test_a_stop_during_a_burst_of_moves_finishes_them_and_exits_cleanly(
    fake: FakeDiscord,
    tmp_path: Path,
    signum: signal.Signals,
    grace: int,
    posts_go_through: bool,
    closing: Callable[[Storage], Storage],
) -> None:
    """``sigterm-grace-runs-out``: the posts stay held; after the grace the bot cancels
    them, quietly, and exits all the same (the moves are stored; showing them is left
    to the next start)."""
    url = f"sqlite:///{tmp_path}/bot.db"
    env = {"DATABASE_URL": url, "DISCORD_GUILD_ID": "", "SHUTDOWN_GRACE_SECONDS": str(grace)}
    process = await fake.start_bot_process("bot.py", env=env)
    log_file = fake.process_logs[process.pid]
    tables = await open_tables(fake)
    store = closing(await open_storage(url))
    games = [await store.find_open(thread.parent_id or 0) for thread, _ in tables]
    before = {g.id: g.version for g in games if g is not None}
    assert len(before) == TABLES

    release = asyncio.Event()

    async def hold_public_posts(request: RecordedRequest) -> None:
        if request.method in ("POST", "PATCH") and MESSAGES.match(request.path):
            await release.wait()

    fake.request_hooks.append(hold_public_posts)
    fake.settle_after_interaction = False
    answered = [0] * TABLES
    refused = [0] * TABLES
    panels: list[FakeMessage] = []
    for thread, seated in tables:
        panel = (
            await fake.click(
                acting_player(fake, thread, seated),
                turn_prompts(fake, thread)[-1],
                "Take your turn",
            )
        ).message
        assert panel is not None
        panels.append(panel)

    async def burst(index: int) -> None:
        thread, seated = tables[index]
        player, panel = acting_player(fake, thread, seated), panels[index]
        for _ in range(CLICKS):
            choices = act_buttons(panel)
            if not choices:
                return  # the turn passed
            result = await fake.click(player, panel, choices[0])
            if RESTARTING in result.text:
                refused[index] += 1
                return
            assert result.callback_type == 7, result.text
            answered[index] += 1
            panel = result.message  # type: ignore[assignment]

    bursts = [asyncio.create_task(burst(i)) for i in range(TABLES)]
    await fake.wait_for(lambda: sum(answered) >= TABLES, timeout=20, what="moves answered")
    if not posts_go_through:
        await asyncio.gather(*bursts)  # no click may arrive after the short grace
    process.send_signal(signum)  # the moves just answered are being published, held
    await fake.wait_for(
        lambda: "stopping; finishing the work under way" in log_file.read_text(),
        timeout=10,
        what="the bot to begin stopping",
    )
    if posts_go_through:
        # A click that arrives now is refused with the sentence, and changes nothing.
        thread, seated = tables[0]
        late = await fake.click(
            acting_player(fake, thread, seated), turn_prompts(fake, thread)[-1], "Take your turn"
        )
        assert late.ephemeral and late.text == RESTARTING
        rules = await fake.slash(acting_player(fake, thread, seated), thread, "rules")
        assert rules.ephemeral and rules.text == RESTARTING  # a command too
        await asyncio.gather(*bursts)
        release.set()  # the posts under way go through; the bot closes after them
    else:
        await fake.wait_for(
            lambda: "still running after 1 s are cancelled" in log_file.read_text(),
            timeout=15,
            what="the grace to run out",
        )
    assert await asyncio.wait_for(process.wait(), 30) == 0
    release.set()

    output = log_file.read_text()
    assert "Traceback" not in output, output[-3000:]
    assert "Session is closed" not in output
    for index, game in enumerate(games):
        assert game is not None
        stored = await store.load(game.id)
        assert stored.version == before[game.id] + answered[index]  # every answered move
        if posts_go_through:
            board = next(
                m for m in fake.messages(tables[index][0]) if m.embeds and "Move" in m.text()
            )
            # and its publishing finished (the bot's log tells why not)
            assert f"Move {stored.version}" in board.text(), f"{board.text()}\n{output[-6000:]}"

    # Started again, the bot brings every table up to date by itself: with
    # the grace run out, the posts cancelled at the stop are made now.
    process = await fake.start_bot_process("bot.py", env=env)
    loop = asyncio.get_running_loop()
    end = loop.time() + 5  # a generous bound for the wait, not a measurement
    while behind := [
        g.id for g in [await store.load(g.id) for g in games if g] if Publisher.behind(g)
    ]:
        assert loop.time() < end, f"tables still behind after the restart: {behind}"
        await asyncio.sleep(0.05)
    for index, game in enumerate(games):
        assert game is not None
        stored = await store.load(game.id)
        board = next(m for m in fake.messages(tables[index][0]) if m.embeds and "Move" in m.text())
        assert f"Move {stored.version}" in board.text()
        prompt = turn_prompts(fake, tables[index][0])[-1]
        acting = get_game(stored.kind).to_act(stored.state)
        assert all(f"<@{p}>" in prompt.content for p in acting), prompt.content
    assert await fake.stop_bot_process(process) == 0


STUCK = """
import sys
import threading

if any(arg.endswith("bot.py") for arg in sys.orig_argv):  # the bot's process, not its workers
    threading.Thread(target=threading.Event().wait, name="never-ends").start()
"""


async def test_a_process_kept_alive_after_the_bot_stopped_ends_within_a_few_seconds(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Python's exit waits, without a limit, for every thread that is not a daemon and
    every child process (e.g. a killed worker that a busy machine gives no CPU to end):
    the bot's process leaves ``EXIT_WAIT`` seconds after the bot has stopped, with its
    status, and names what it waited for. The thread here comes from a ``sitecustomize``
    module, which Python imports at start-up."""
    (tmp_path / "sitecustomize.py").write_text(STUCK)
    env = {
        "DATABASE_URL": f"sqlite:///{tmp_path}/bot.db",
        "DISCORD_GUILD_ID": "",
        "PYTHONPATH": str(tmp_path),
    }
    process = await fake.start_bot_process("bot.py", env=env)
    assert await fake.stop_bot_process(process, timeout=EXIT_WAIT + 10) == 0
    output = fake.process_logs[process.pid].read_text()
    assert "after the bot stopped (threads left running: never-ends). Ending it." in output
