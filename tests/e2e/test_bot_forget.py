"""/forget-me on the fake Discord: refused while the player sits in a lobby; a private
confirmation whose "Keep my data" changes nothing and whose "Forget me" forgets the
clicker (their id and name leave every row, the other player's stay, the games replay);
a second time there is nothing left to forget."""

from __future__ import annotations

import io
import random
import sqlite3
from pathlib import Path

from cogs.stats import identity_name
from engine import get_game
from storage.__main__ import check

from .bot_helpers import make_bot
from .fake_discord import FakeDiscord


def rows_holding(path: Path, *needles: str) -> list[str]:
    """Every row of every table with one of ``needles`` in a column, as text."""
    found = []
    with sqlite3.connect(path) as db:
        tables = [
            row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        for table in tables:
            for row in db.execute(f"SELECT * FROM {table}"):
                if any(needle in str(value) for value in row for needle in needles):
                    found.append(f"{table}: {row}")
    return found


async def test_forget_me_asks_first_then_forgets_the_clicker(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    path = tmp_path / "bot.db"
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{path}"))
    alice, zelda = fake.add_user("alice"), fake.add_user("zeldaquux")
    # A finished game of both, stored (and rated) as a game played here is.
    store, rules = bot.store, get_game("workshop")
    game = await store.create_lobby(
        guild_id=fake.guild.id,
        channel_id=fake.add_channel("old-games").id,
        kind="workshop",
        options=None,
        host_id=zelda.id,
        host_name=zelda.name,
    )
    await store.join(game.id, alice.id, alice.name)
    game = await store.start(game.id, 3)
    rng = random.Random(3)
    while game.status == "active":
        player = sorted(rules.to_act(game.state))[0]
        await store.submit(
            game.id, player, rng.choice(rules.legal_actions(game.state, player)), game.version
        )
        game = await store.load(game.id)
    # In a lobby: refused, with the game named.
    lobby = (await fake.slash(alice, fake.channel, "newgame", game="workshop")).message
    assert lobby is not None
    await fake.click(zelda, lobby, "Join")
    refused = await fake.slash(zelda, fake.channel, "forget-me")
    assert refused.ephemeral and "You still play in game #2" in refused.text
    assert not refused.message.buttons()  # type: ignore[union-attr]
    await fake.click(alice, lobby, "Cancel")

    asked = await fake.slash(zelda, fake.channel, "forget-me")
    assert asked.ephemeral and "This cannot be undone" in asked.text
    buttons = {b["label"]: b["style"] for b in asked.message.buttons()}  # type: ignore[union-attr]
    assert buttons == {"Forget me": 4, "Keep my data": 2}  # danger, secondary
    kept = await fake.click(zelda, asked.message, "Keep my data")  # type: ignore[arg-type]
    assert kept.callback_type == 7 and kept.message is not None
    assert kept.message.text() == "Nothing was changed." and not kept.message.buttons()
    assert rows_holding(path, str(zelda.id), zelda.name)

    asked = await fake.slash(zelda, fake.channel, "forget-me")
    done = await fake.click(zelda, asked.message, "Forget me")  # type: ignore[arg-type]
    assert done.message is not None and not done.message.buttons()
    said = done.message.text()
    assert said.startswith("Done: you are forgotten in 2 games (seats: 2, log entries: ")
    assert rows_holding(path, str(zelda.id), zelda.name) == []
    seats = (await store.load(game.id)).seats
    assert [(s.display_name, s.user_id) for s in seats] == [
        (f"Player 1 of game {game.id}", None),
        (alice.name, alice.id),
    ]
    assert (await store.replay(game.id)).ok
    again = await fake.slash(zelda, fake.channel, "forget-me")
    await fake.click(zelda, again.message, "Forget me")  # type: ignore[arg-type]
    assert "nothing to forget" in again.message.text()  # type: ignore[union-attr]
    await fake.stop_bot(bot)
    out = io.StringIO()
    assert await check(f"sqlite:///{path}", out) == 0, out.getvalue()


def test_a_forgotten_player_on_the_leaderboard_is_no_mention() -> None:
    assert identity_name("forgotten:3") == "Forgotten player 3"
    assert identity_name("42") == "<@42>"
