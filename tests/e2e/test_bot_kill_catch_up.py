"""A kill loses no post: the bot in its own process, SIGKILLed with its public posts in flight.

The fake holds the bot's posts to a game's thread at a chosen moment (right after an
action's callback was answered; during a Workshop Tonttu reveal; during a reminder's
post); the test SIGKILLs the process there, lets the fake process the held requests
anyway (the worst case for duplicates: the messages exist, no bot knows) or drop them
(the post is lost), and starts the bot again. Then, with nobody clicking, within 5 s:
the board shows the stored version and exactly one new prompt mentions whoever must act
(for Tonttu: the reveal and the next phase's status, and each player's next choices);
nothing is ever posted twice; a Workshop game played on to its end has the final scores
of an engine replay of its stored log, posted once.

The same with the bot stopped in-process and moves committed straight into storage:
``test_bot_catch_up.py``.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import get_game
from engine.core import Rng
from storage import LoadedGame, Storage, human_player
from storage import open as open_storage
from tables.publishing import Publisher

from .bot_helpers import open_table, turn_prompts
from .fake_discord import FakeDiscord, FakeMessage, FakeUser
from .fake_discord.model import RecordedRequest
from .tonttu_helpers import choice_select, choose_by_dm, open_tonttu, status_message

pytestmark = pytest.mark.serial  # several processes, signals or timing: run alone (see dev)


CLOCKED_BOT = Path(__file__).with_name("clocked_bot.py")
CATCH_UP = 5.0
"""The thread is current within this many seconds of the restart (a generous
bound for a wait, not a measurement)."""


class BotProcess:
    """``clocked_bot.py`` in its own process, started again after each kill; its clock
    is the real time plus an offset the test moves (reminders fall due at once)."""

    def __init__(self, fake: FakeDiscord, folder: Path) -> None:
        self.fake = fake
        self.url = f"sqlite:///{folder}/bot.db"
        self.offset_file = folder / "clock-offset"
        self.offset = 0.0
        self.offset_file.write_text("0")
        self.process: asyncio.subprocess.Process | None = None

    def jump(self, seconds: float) -> None:
        self.offset += seconds
        temporary = self.offset_file.with_suffix(".tmp")
        temporary.write_text(str(self.offset))
        os.replace(temporary, self.offset_file)  # the bot never reads half a number

    async def start(self) -> None:
        env = {
            "DATABASE_URL": self.url,
            "DISCORD_GUILD_ID": "",
            "TIMER_POLL_SECONDS": "0.2",
            "BOT_CLOCK_OFFSET_FILE": str(self.offset_file),
            "FLOOD_BURST": "0",  # the players are scripts, faster than any person
            "AI_WORKERS": "0",
        }
        self.process = await self.fake.start_bot_process(CLOCKED_BOT, env=env, timeout=60)

    async def kill(self) -> None:
        assert self.process is not None
        await self.fake.kill_bot_process(self.process)
        self.process = None

    async def stop(self) -> None:
        if self.process is not None:
            assert await self.fake.stop_bot_process(self.process) == 0
            self.process = None

    def log(self) -> str:
        assert self.process is not None
        return self.fake.process_logs[self.process.pid].read_text(errors="replace")


async def current(store: Storage, game_id: int, timeout: float = CATCH_UP) -> LoadedGame:  # noqa: ASYNC109
    """Wait until the game's marks say its thread shows its stored state."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        game = await store.load(game_id)
        if not Publisher.behind(game):
            return game
        assert loop.time() < end, f"game {game_id} still behind: {game.shown_versions}"
        await asyncio.sleep(0.05)


def board_of(fake: FakeDiscord, thread: Any) -> FakeMessage:
    (board,) = [
        m
        for m in fake.messages(thread)
        if m.embeds and "Move" in ((m.embeds[0].get("footer") or {}).get("text") or "")
    ]
    return board


def shows_move(board: FakeMessage, version: int) -> bool:
    return (board.embeds[0].get("footer") or {}).get("text", "").startswith(f"Move {version}")


def posted_twice(fake: FakeDiscord, channel: Any) -> list[str]:
    """Messages of ``channel`` that repeat another one: the same nonce, or the same
    content and embeds as the message just before (a game's log can repeat itself
    rounds apart; a post made again after a restart follows the first one)."""
    messages = fake.messages(channel)
    nonces = Counter(m.data.get("nonce") for m in messages if m.data.get("nonce"))
    found = [f"nonce {n} x{c}" for n, c in nonces.items() if c > 1]
    for first, second in itertools.pairwise(messages):
        if (first.content, first.embeds) == (second.content, second.embeds):
            found.append(f"{first.id} and {second.id}: {first.content!r}")
    return found


# --------------------------------------------------------------------------- Workshop


class Players:
    """The humans of one Workshop table, moving as the stored game says."""

    def __init__(self, fake: FakeDiscord, store: Storage, game_id: int, thread: Any) -> None:
        self.fake, self.store, self.game_id, self.thread = fake, store, game_id, thread
        self.users: dict[str, FakeUser] = {}
        self.panel: FakeMessage | None = None
        self.rng = Rng(11)

    async def decision(self) -> tuple[LoadedGame, FakeUser, str, bool] | None:
        """The stored game, who acts, the button (custom_id) they will click, and whether
        it passes the turn; ``None`` once the game is over."""
        game = await self.store.load(self.game_id)
        if game.status != "active":
            return None
        rules = get_game(game.kind)
        acting = rules.to_act(game.state)
        player = sorted(acting)[0]
        user = self.users[player]
        panel = self.panel
        prefix = f"act:{game.id}:{game.version}:"
        if panel is None or not any(prefix in b["custom_id"] for b in panel.buttons()):
            # any prompt's button opens the panel of the current decision
            opened = await self.fake.click(
                user, turn_prompts(self.fake, self.thread)[-1], "Take your turn"
            )
            panel = self.panel = opened.message
            assert panel is not None and opened.ephemeral
        buttons = [b["custom_id"] for b in panel.buttons() if b["custom_id"].startswith(prefix)]
        if not buttons:  # many choices: a select instead (the value is the index)
            (select,) = panel.selects()
            buttons = [f"{prefix}{o['value']}" for o in select["options"]]
        legal = rules.legal_actions(game.state, player)

        def passes(custom_id: str) -> bool:
            after, _ = rules.apply(game.state, player, legal[int(custom_id.rsplit(":", 1)[1])])
            return player not in rules.to_act(after)

        passing = [b for b in buttons if passes(b)]
        choice = self.rng.choice(passing or buttons)
        return game, user, choice, choice in passing

    async def make(self, user: FakeUser, custom_id: str) -> None:
        panel = self.panel
        assert panel is not None
        if any(b["custom_id"] == custom_id for b in panel.buttons()):
            result = await self.fake.click(user, panel, custom_id)
        else:
            (select,) = panel.selects()
            value = custom_id.rsplit(":", 1)[1]
            result = await self.fake.select(user, panel, select["custom_id"], [value])
        assert result.callback_type == 7, result.text  # answered: the panel's next choice
        self.panel = result.message


async def prompted(
    fake: FakeDiscord, store: Storage, thread: Any, game_id: int, user: FakeUser
) -> None:
    """Wait until this turn's prompt (mentioning ``user``) is in the thread and the
    thread is current (the deferred log and board too): the posts held next are the
    ones the coming decision causes."""

    async def done() -> bool:
        prompts = turn_prompts(fake, thread)
        return (
            bool(prompts)
            and f"<@{user.id}>" in prompts[-1].content.splitlines()[-1]
            and not Publisher.behind(await store.load(game_id))
        )

    loop = asyncio.get_running_loop()
    end = loop.time() + 15
    while not await done():
        assert loop.time() < end, "the turn's prompt was never posted"
        await asyncio.sleep(0.05)


def hold_everything(fake: FakeDiscord, thread: Any) -> None:
    fake.hold(channel=thread, webhooks=True)  # posts, followups and edits in the thread


def is_post(request: RecordedRequest, thread: Any) -> bool:
    """A new message in the thread: a post of the bot's or a followup of a click."""
    return request.method == "POST" and (
        request.path == f"/channels/{thread.id}/messages"
        or re.fullmatch(r"/webhooks/\d+/[^/]+", request.path) is not None
    )


def hold_the_board_edit(fake: FakeDiscord, thread: Any) -> None:
    """The prompt goes out; the board's edit after it is held."""

    def board_edit(request: RecordedRequest) -> bool:
        return request.method == "PATCH" and request.path.startswith(f"/channels/{thread.id}/")

    fake.hold(board_edit)


KILLS: list[tuple[int, Callable[[FakeDiscord, Any], None], bool]] = [
    (3, hold_everything, False),  # the prompt and the board edit held, then made anyway
    (20, hold_the_board_edit, False),  # the prompt made, the board edit held, then made
    (45, hold_everything, True),  # held, then lost: the restart must post them
]
"""(moves made before the kill, what the fake holds, whether the held requests are
dropped rather than processed); each kill at the first turn-passing decision after."""


async def test_three_kills_with_posts_in_flight_in_one_workshop_game(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = BotProcess(fake, tmp_path)
    await bot.start()
    users = [fake.add_user(name) for name in ("alice", "bob", "carol")]
    # with a turn limit: a prompt made again names its deadline counted from then
    await open_table(fake, users[0], users[1:], turn_limit_hours=24)
    (thread,) = fake.threads(fake.channel)
    store = await open_storage(bot.url)
    try:
        found = await store.find_open(fake.channel.id)
        assert found is not None
        players = Players(fake, store, found.id, thread)
        players.users = {human_player(u.id): u for u in users}
        kills = list(KILLS)
        moves = 0
        made_in_flight = 0
        while (decision := await players.decision()) is not None:
            game, user, choice, passes = decision
            if not kills or moves < kills[0][0] or not passes:
                await players.make(user, choice)
                moves += 1
                continue
            _, hold, drop = kills.pop(0)
            await prompted(fake, store, thread, game.id, user)  # what is due is out
            before = {m.id for m in turn_prompts(fake, thread)}
            hold(fake, thread)
            marker = len(fake.requests)
            await players.make(user, choice)  # answered; its publishing is held
            moves += 1
            await fake.wait_held(1)
            await bot.kill()  # SIGKILL with the post in flight
            assert await fake.release(drop=drop) >= 1
            made_in_flight += sum(  # posts the killed bot never heard were made
                1 for r in fake.requests[marker:] if is_post(r, thread) and r.status == 200
            )
            stored = await store.load(game.id)
            assert stored.version == game.version + 1  # the answered move was stored
            acting = [players.users[p] for p in sorted(get_game(stored.kind).to_act(stored.state))]
            await bot.start()

            def caught_up(stored: LoadedGame = stored, before: set[int] = before) -> bool:
                new = [m for m in turn_prompts(fake, thread) if m.id not in before]
                return shows_move(board_of(fake, thread), stored.version) and len(new) >= 1

            # no click: the board and the one prompt come by themselves
            await fake.wait_for(caught_up, timeout=CATCH_UP, what="the thread to catch up")
            await current(store, game.id)
            await fake.settle(quiet=0.3)
            new = [m for m in turn_prompts(fake, thread) if m.id not in before]
            assert len(new) == 1, (stored.shown_versions, [m.content for m in new])
            for player in acting:
                assert f"<@{player.id}>" in new[0].content.splitlines()[-1]
            assert new[0].id == fake.messages(thread)[-1].id
            assert not posted_twice(fake, thread)
            players.panel = None  # the old panel's interaction belonged to the killed bot
        assert not kills, f"the game ended before every kill ({moves} moves)"
        finished = await current(store, found.id, timeout=15)
        assert finished.status == "finished"
        report = await store.replay(found.id)
        assert report.ok, report
        outcome = get_game(finished.kind).outcome(finished.state)
        assert outcome is not None and finished.result == outcome.model_dump(mode="json")
        await fake.settle(quiet=0.3)
        finals = [m for m in fake.messages(thread) if "final scores" in m.text()]
        assert len(finals) == 1
        scores = outcome.model_dump(mode="json")["scores"]
        for user in users:
            assert f"{scores[human_player(user.id)]}" in finals[0].text()
        assert shows_move(board_of(fake, thread), finished.version)
        assert not posted_twice(fake, thread)
        assert made_in_flight  # and were found again (not posted twice: checked above)
        await bot.stop()
    finally:
        await store.close()
    fake.check_no_violations()


# --------------------------------------------------------------------------- Tonttu


@pytest.mark.parametrize("drop", [False, True], ids=["held-then-made", "held-then-lost"])
async def test_a_kill_during_a_tonttu_reveal_posts_it_and_the_next_phase_once(
    fake: FakeDiscord, tmp_path: Path, drop: bool
) -> None:
    bot = BotProcess(fake, tmp_path)
    await bot.start()
    users = [fake.add_user(name) for name in ("alice", "bob", "carol", "dave")]
    thread = await open_tonttu(fake, users[0], users[1:])
    store = await open_storage(bot.url)
    try:
        await fake.wait_for(lambda: status_pick(fake, thread), timeout=15, what="the pick phase")
        found = await store.find_open(fake.channel.id)
        assert found is not None and found.state.phase == "pick"
        game_id = found.id
        rules = get_game("tonttu")
        rng = Rng(4)
        for index, user in enumerate(users):
            game = await store.load(game_id)
            state, player = game.state, human_player(user.id)
            await fake.wait_for(
                lambda u=user: has_choices(fake, u, 1, "pick"), timeout=5, what="the pick DM"
            )
            if index == len(users) - 1:
                fake.hold(channel=thread, methods=("POST",))  # the phase message
            legal = rules.legal_actions(state, player)
            await choose_by_dm(fake, user, state, legal[rng.below(len(legal))])
        await fake.wait_held(1)
        await bot.kill()  # SIGKILL during the reveal
        assert await fake.release(drop=drop) >= 1
        stored = await store.load(game_id)
        assert stored.state.phase == "point" and stored.state.round == 1
        await bot.start()

        def revealed() -> bool:
            texts = [m.content for m in fake.messages(thread)]
            return any("Round 1 picks:" in t and "**Round 1 · point**" in t for t in texts)

        await fake.wait_for(revealed, timeout=CATCH_UP, what="the reveal and the point phase")
        await current(store, game_id)
        await fake.wait_for(
            lambda: all(has_choices(fake, u, 1, "point") for u in users),
            timeout=CATCH_UP,
            what="everyone's point choices",
        )
        await fake.settle(quiet=0.3)
        reveals = [m for m in fake.messages(thread) if "Round 1 picks:" in m.content]
        assert len(reveals) == 1, [m.content[:80] for m in reveals]
        assert status_message(fake, thread).id == reveals[0].id
        for user in users:  # the point phase's choices reached each player once
            assert count_choices(fake, user, 1, "point") == 1, user.name
        assert not posted_twice(fake, thread)
        # the game goes on from there: everyone points, the next reveal follows
        game = await store.load(game_id)
        for user in users:
            player = human_player(user.id)
            legal = rules.legal_actions(game.state, player)
            await choose_by_dm(fake, user, game.state, legal[rng.below(len(legal))])
        await fake.wait_for(
            lambda: any("Round 1 points:" in m.content for m in fake.messages(thread)),
            timeout=CATCH_UP,
            what="the next reveal",
        )
        await current(store, game_id)
        assert not posted_twice(fake, thread)
        await bot.stop()
    finally:
        await store.close()
    fake.check_no_violations()


def status_pick(fake: FakeDiscord, thread: Any) -> bool:
    try:
        return "**Round 1 · pick**" in status_message(fake, thread).content
    except AssertionError:
        return False


def count_choices(fake: FakeDiscord, user: FakeUser, round_: int, phase: str) -> int:
    """How many of the user's private messages (DMs, ephemeral panels) offer the choices
    of ``round_``'s ``phase``."""
    panels = [*fake.dm_messages(user), *fake.ephemeral_messages(user)]
    return sum(choice_select(m, round_, phase) is not None for m in panels)


def has_choices(fake: FakeDiscord, user: FakeUser, round_: int, phase: str) -> bool:
    return count_choices(fake, user, round_, phase) > 0


# --------------------------------------------------------------------------- a timer


@pytest.mark.parametrize("drop", [False, True], ids=["held-then-made", "held-then-lost"])
async def test_a_kill_during_a_reminders_post_leaves_exactly_one_reminder(
    fake: FakeDiscord, tmp_path: Path, drop: bool
) -> None:
    bot = BotProcess(fake, tmp_path)
    await bot.start()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob], reminder_hours=1)
    (thread,) = fake.threads(fake.channel)
    store = await open_storage(bot.url)
    try:
        found = await store.find_open(fake.channel.id)
        assert found is not None
        await current(store, found.id)
        fake.hold(channel=thread, methods=("POST",))
        bot.jump(1.1 * 3600)  # the reminder falls due
        await fake.wait_held(1)
        (held,) = fake.held
        assert "Reminder" in str(held.json), held.json
        await bot.kill()  # SIGKILL while the reminder is being posted
        assert await fake.release(drop=drop) == 1
        await bot.start()

        def reminders() -> list[FakeMessage]:
            return [m for m in fake.messages(thread) if m.content.startswith("Reminder")]

        await fake.wait_for(lambda: reminders(), timeout=CATCH_UP, what="the reminder")
        game = await current(store, found.id)
        await fake.settle(quiet=0.5)  # a few timer polls: nothing more falls due
        (reminder,) = reminders()
        acting = get_game(game.kind).to_act(game.state)
        assert any(
            f"<@{u.id}>" in reminder.content for u in (alice, bob) if human_player(u.id) in acting
        )
        assert turn_prompts(fake, thread)[-1].id == reminder.id  # it carries the turn button
        assert not posted_twice(fake, thread)
        await bot.stop()
    finally:
        await store.close()
    fake.check_no_violations()
