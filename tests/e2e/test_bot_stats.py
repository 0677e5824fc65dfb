"""/stats and /leaderboard on the fake Discord: both games, counting only the games of
channels the asking member can see, computer levels, a member with no games, and
options that do not fit (a sentence each, never a traceback).

Finished games are set up through the bot's own storage (lobby, seats, then random
legal moves to the end), which rates them exactly as a game played on Discord is
rated: the rating runs in storage when the finishing move commits."""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from bot import WorkshopBot
from engine import get_game
from storage import LoadedGame
from storage.ratings import RATING_TABLES

from .bot_helpers import make_bot
from .fake_discord import FakeChannel, FakeDiscord, FakeUser


@pytest.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[WorkshopBot]:
    yield await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db"))


async def finish(
    bot: WorkshopBot,
    fake: FakeDiscord,
    channel: FakeChannel,
    kind: str,
    users: Sequence[FakeUser],
    computers: Sequence[str] = (),
    seed: int = 1,
) -> LoadedGame:
    """A game of ``kind`` in ``channel`` played to its end with random legal moves."""
    store, rules = bot.store, get_game(kind)
    game = await store.create_lobby(
        guild_id=fake.guild.id,
        channel_id=channel.id,
        kind=kind,
        options=None,
        host_id=users[0].id,
        host_name=users[0].name,
    )
    for user in users[1:]:
        await store.join(game.id, user.id, user.name)
    for level in computers:
        await store.add_ai(game.id, level=level)
    game = await store.start(game.id, seed)
    rng = random.Random(seed)
    while game.status == "active":
        player = sorted(rules.to_act(game.state))[0]
        action = rng.choice(list(rules.legal_actions(game.state, player)))
        await store.submit(game.id, player, action, game.version)
        game = await store.load(game.id)
    assert game.status == "finished"
    return game


def rows_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"\d+\. ", line)]


async def test_workshop_stats_and_leaderboard_hide_a_private_channels_games(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    hideout = fake.add_channel("hideout")
    fake.make_private(hideout, alice, carol)
    await fake.settle()
    public = [
        await finish(bot, fake, fake.channel, "workshop", [alice, bob], seed=s) for s in (1, 2, 3)
    ]
    for seed in (4, 5, 6):
        await finish(bot, fake, hideout, "workshop", [alice, carol], seed=seed)

    # Carol sees both channels: everyone is listed, Alice with all six games.
    seen_by_carol = await fake.slash(carol, fake.channel, "leaderboard", game="workshop")
    assert seen_by_carol.ephemeral
    board = rows_of(seen_by_carol.text)
    assert len(board) == 3
    assert any(f"<@{alice.id}>" in row and "6 games" in row for row in board)
    # Bob cannot see the hideout: Carol's games there do not count, so she is not listed,
    # and Alice is shown with the three games Bob can see.
    seen_by_bob = await fake.slash(bob, fake.channel, "leaderboard", game="workshop")
    board = rows_of(seen_by_bob.text)
    assert len(board) == 2 and all(f"<@{carol.id}>" not in row for row in board)
    assert any(f"<@{alice.id}>" in row and "3 games" in row for row in board)
    assert "at least 3 games" in seen_by_bob.text

    # /stats: Bob sees Alice's three public games; Alice sees all six of her own.
    stats = await fake.slash(bob, fake.channel, "stats", user=alice, game="workshop")
    assert stats.ephemeral
    wins = sum(str(alice.id) in game.result["winners"] for game in public if game.result)
    scores = [game.result["scores"][str(alice.id)] for game in public if game.result]
    text = stats.text
    assert f"Games 3 · wins {wins} ({wins / 3:.0%})" in text
    assert f"best {max(scores)}" in text and f"Average score {sum(scores) / 3:.1f}" in text
    assert re.search(r"Rating \d+\.\d ± \d+\.\d", text)
    assert "Favourite station: " in text
    assert "Games 6 " in (await fake.slash(alice, fake.channel, "stats")).text
    # Carol's games are all in the hideout: for Bob she has none.
    nothing = await fake.slash(bob, fake.channel, "stats", user=carol)
    assert "carol has no finished games on this server in channels you can see" in nothing.text


async def test_tonttu_stats_and_leaderboard_rate_computer_levels(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    dana = fake.add_user("dana")
    for seed in (1, 2, 3):
        await finish(bot, fake, fake.channel, "tonttu", [dana], ["random", "strong"], seed=seed)
    answer = await fake.slash(dana, fake.channel, "leaderboard", game="tonttu")
    board = rows_of(answer.text)
    assert len(board) == 3
    assert any("Computer (hard)" in row for row in board)
    assert any("Computer (easy)" in row for row in board)
    assert "Workshop Tonttu" in answer.text
    own = await fake.slash(dana, fake.channel, "stats", game="tonttu")
    assert "Games 3 " in own.text and "Workshop Tonttu" in own.text
    assert re.search(r"Favourite gifts: (Toys|Clothing|Decorations)", own.text)
    level = await fake.slash(dana, fake.channel, "stats", computer="strong")
    assert "Computer (hard)" in level.text and "Games 3 " in level.text
    # The leaderboard without a game shows each game played; no Santa's Workshop yet.
    both = await fake.slash(dana, fake.channel, "leaderboard")
    assert "Workshop Tonttu" in both.text and "Santa's Workshop" not in both.text


async def test_a_member_with_no_games_and_options_that_do_not_fit(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    erin, frank = fake.add_user("erin"), fake.add_user("frank")
    alone = await fake.slash(erin, fake.channel, "stats")
    assert alone.ephemeral and "You have no finished games" in alone.text
    empty = await fake.slash(erin, fake.channel, "leaderboard", game="tonttu")
    assert "No one has played 3 finished games of Workshop Tonttu" in empty.text
    both = await fake.slash(erin, fake.channel, "stats", user=frank, computer="greedy")
    assert "Choose a member or a computer level, not both." in both.text
    robot = await fake.slash(erin, fake.channel, "stats", user=fake.bot_user)
    assert "is a bot and plays no games" in robot.text
    for answer in (alone, empty, both, robot):
        assert "Traceback" not in answer.text and "went wrong" not in answer.text


async def test_stats_in_a_direct_message_asks_for_a_server(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    gina = fake.add_user("gina")
    answer = await fake.slash(gina, fake.open_dm(gina), "stats")
    assert "Use this on a server" in answer.text
    board = await fake.slash(gina, fake.open_dm(gina), "leaderboard")
    assert "Use this on a server" in board.text


async def test_games_not_rated_yet_are_rated_when_the_bot_starts(
    fake: FakeDiscord, bot: WorkshopBot, tmp_path: Path
) -> None:
    """As after the upgrade that brought ratings (or a process that died between a game's
    last move and its rating): finished games without ratings are rated at start."""
    hana, ivan = fake.add_user("hana"), fake.add_user("ivan")
    for seed in (1, 2, 3):
        await finish(bot, fake, fake.channel, "workshop", [hana, ivan], seed=seed)
    await fake.stop_bot(bot)
    with sqlite3.connect(tmp_path / "bot.db") as db:
        for table in RATING_TABLES:
            db.execute(f"DELETE FROM {table}")
        db.execute("UPDATE games SET rating_seq = NULL")
    await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db"))

    def unrated() -> int:
        with sqlite3.connect(tmp_path / "bot.db") as db:
            (count,) = db.execute("SELECT count(*) FROM games WHERE rating_seq IS NULL").fetchone()
            return int(count)

    await fake.wait_for(lambda: unrated() == 0, timeout=10, what="the games rated")
    board = rows_of((await fake.slash(hana, fake.channel, "leaderboard", game="workshop")).text)
    assert len(board) == 2 and all("3 games" in row for row in board)
