"""The chart of how the game went, end to end on the fake Discord: a finished
game of each kind posts it with the final scores, in the same message (no extra post),
and it is the chart of that game; if it cannot be drawn the final scores still post.

To keep these tests short the games are opened through Discord, then played straight
into storage (random legal moves), as if the thread had kept up until the last move;
the last move is then published as any move is. The full games played through the
buttons (``test_bot_workshop_game.py``, ``test_bot_tonttu_game.py``) check the chart
too."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

import tables.drawing
from bot import WorkshopBot
from engine import get_game
from engine.core import Rng
from engine.timeline import score_timeline
from render.chart import HEIGHT, WIDTH, render_chart
from tests.render.golden_images import difference

from .bot_helpers import make_bot, open_table
from .fake_discord import FakeDiscord, FakeMessage, FakeUser
from .tonttu_helpers import open_tonttu

SEED = 1412


async def play_to_the_end(bot: WorkshopBot, fake: FakeDiscord, seed: int) -> tuple[Any, list]:
    """Random legal moves straight into storage; the last one is published as usual.
    Returns the finished game and its decisions."""
    (info,) = await bot.store.list_games(statuses=["active"])
    game = await bot.store.load(info.id)
    rules = get_game(game.kind)
    state, rng = game.state, Rng(seed)
    decisions: list[tuple[str, Any]] = []
    while True:
        acting = sorted(rules.to_act(state), key=state.players.index)
        player = acting[rng.below(len(acting))]
        legal = rules.legal_actions(state, player)
        action = legal[rng.below(len(legal))]
        after, _ = rules.apply(state, player, action)
        if rules.outcome(after) is not None:
            break
        submitted = await bot.store.submit(game.id, player, action, len(decisions))
        decisions.append((player, action.model_dump(mode="json")))
        state = submitted.state
    # the thread showed everything up to here (its log, board and prompts)
    version = len(decisions)
    marks = {key: (None, version) for key in ("log", "board", "prompt")}
    await bot.store.set_marks(game.id, marks)
    await bot.store.submit(game.id, player, action, version)
    decisions.append((player, action.model_dump(mode="json")))
    await bot.publisher.sync(game.id, flush=True)
    return await bot.store.load(game.id), decisions


def final_message(fake: FakeDiscord, thread: Any) -> FakeMessage:
    (final,) = [m for m in fake.messages(thread) if "final scores" in m.text()]
    return final


def attachment(fake: FakeDiscord, message: FakeMessage, filename: str) -> bytes:
    (found,) = [a for a in message.attachments if a["filename"] == filename]
    return fake.files[int(found["id"])]


async def check_chart_posted(
    fake: FakeDiscord, thread: Any, game: Any, decisions: list, users: list[FakeUser]
) -> None:
    assert game.status == "finished"
    final = final_message(fake, thread)
    # the final scores, as before
    for user in users:
        assert f"{user.name}: {game.result['scores'][str(user.id)]} points" in final.text()
    # the board and the chart, each shown by its embed, in the one final message
    assert sorted(a["filename"] for a in final.attachments) == ["board.png", "chart.png"]
    assert final.embeds[0]["image"]["url"] == "attachment://board.png"
    assert final.embeds[1]["image"]["url"] == "attachment://chart.png"
    unit = "day" if game.kind == "workshop" else "round"
    assert final.embeds[1]["title"] == f"How the game went: score after each {unit}"
    (chart_file,) = [a for a in final.attachments if a["filename"] == "chart.png"]
    assert "final score by reason" in chart_file["description"]
    posted = attachment(fake, final, "chart.png")
    assert posted.startswith(b"\x89PNG")
    # it is this game's chart: the same picture as drawn here from the same decisions
    rules = get_game(game.kind)
    timeline = score_timeline(rules, game.players, game.seed, game.options, decisions)
    assert timeline.final == game.result["scores"]
    expected = render_chart(timeline, game.names)
    size, _, differing = difference(posted, expected)
    assert size == (WIDTH, HEIGHT) and differing == 0
    # no message of its own: exactly one message carries a chart
    charts = [
        m for m in fake.messages(thread) if any(a["filename"] == "chart.png" for a in m.attachments)
    ]
    assert charts == [final]


async def test_a_finished_workshop_game_posts_its_chart_with_the_final_scores(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    users = [fake.add_user(name) for name in ("alice", "bob", "carol")]
    await open_table(fake, users[0], users[1:])
    (thread,) = fake.threads(fake.channel)
    game, decisions = await play_to_the_end(bot, fake, 3)
    await fake.wait_for(lambda: any("final scores" in m.text() for m in fake.messages(thread)))
    await check_chart_posted(fake, thread, game, decisions, users)


async def test_a_finished_tonttu_game_posts_its_chart_with_the_final_scores(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    users = [fake.add_user(name) for name in ("alice", "bob", "carol", "dave")]
    thread = await open_tonttu(fake, users[0], users[1:])
    await fake.settle()
    game, decisions = await play_to_the_end(bot, fake, 4)
    await fake.wait_for(lambda: any("final scores" in m.text() for m in fake.messages(thread)))
    await check_chart_posted(fake, thread, game, decisions, users)


async def test_the_final_scores_post_without_the_chart_if_it_cannot_be_drawn(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    async def broken(*args: Any) -> bytes:
        raise RuntimeError("the drawing went wrong")

    monkeypatch.setattr(tables.drawing, "draw_chart", broken)
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    users = [fake.add_user(name) for name in ("alice", "bob")]
    await open_table(fake, users[0], users[1:])
    (thread,) = fake.threads(fake.channel)
    with caplog.at_level(logging.ERROR, logger="bot.table"):
        game, _ = await play_to_the_end(bot, fake, 5)
    await fake.wait_for(lambda: any("final scores" in m.text() for m in fake.messages(thread)))
    final = final_message(fake, thread)
    for user in users:
        assert f"{user.name}: {game.result['scores'][str(user.id)]} points" in final.text()
    assert [a["filename"] for a in final.attachments] == ["board.png"]
    assert len(final.embeds) == 1
    assert any(
        "chart of the game could not be drawn" in r.getMessage() and r.exc_info
        for r in caplog.records
    )
