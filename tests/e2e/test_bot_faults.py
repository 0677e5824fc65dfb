"""Faults the bot must survive, end to end on the fake Discord: whole games
with Discord answering 429 and 502 now and then, a 30 s REST outage mid-game, and
interaction tokens that expired while a panel was kept.

What every test checks at the end of a game: the stored log replays to the scores the
thread shows (no move lost or made twice), every move a player was told was taken is in
the log, no message was posted twice (no repeated nonce, no two thread posts alike) and
the thread is current (``Publisher.behind`` is false, the board's "Move N" footer is
the stored version)."""

from __future__ import annotations

import asyncio
import logging
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot import WorkshopBot
from cogs.tonttu.text import PANEL_FRESH, encode
from engine import get_game
from engine.core import TIMER, Rng
from engine.tonttu import GAME as TONTTU
from engine.workshop import GAME as WORKSHOP
from storage import LoadedGame, human_player
from tables.publishing import Publisher

from .bot_helpers import make_bot, open_table, rode_on, shown_scores, turn_prompts
from .fake_discord import FakeDiscord, FakeMessage, FakeUser, ViolationError
from .fake_discord.faults import FaultRule
from .test_bot_workshop_game import choose, panel_choices
from .tonttu_helpers import dm_panel, open_tonttu, select_in, status_message

SEED = 20261201
CATCH_UP = 8.0
"""How long a thread may take to catch up after an outage ends: the failed sync is
retried every 5 s at most, and the catch-up itself posts a few messages."""


def flaky_discord(fake: FakeDiscord) -> list[FaultRule]:
    """20 % of the rate-limited calls answered 429 (accepted when retried) and 5 % 502
    (the 502 rule sees only the 80 % the first one let through)."""
    return [
        fake.inject("rate_limit", rate=0.20, retry_after=0.05),
        fake.inject("server_error", rate=0.05 / 0.80, status=502),
    ]


async def game_of(bot: WorkshopBot, fake: FakeDiscord) -> LoadedGame:
    games = await bot.store.list_games(statuses=["active", "finished"])
    (game,) = [g for g in games if g.channel_id == fake.channel.id]
    return await bot.store.load(game.id)


async def until_current(bot: WorkshopBot, game_id: int, within: float = 15.0) -> LoadedGame:
    """Wait until the game's thread shows what storage holds (``Publisher.behind``)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + within
    while True:
        game = await bot.store.load(game_id)
        if not Publisher.behind(game):
            return game
        if loop.time() > end:
            raise AssertionError(f"thread still behind after {within} s: {game.shown_versions}")
        await asyncio.sleep(0.02)


async def check_thread(
    fake: FakeDiscord, bot: WorkshopBot, game_id: int, thread: Any, names: dict[str, str]
) -> dict[str, int]:
    """The end of a game: current, replayable, each message once; returns the scores."""
    game = await until_current(bot, game_id)
    assert game.status == "finished"
    assert (await bot.store.replay(game_id)).ok
    # the scores the engine gives the stored log, replayed here from its seed
    rules = get_game(game.kind)
    state = rules.new_game(
        [s.player for s in game.seats], game.seed, rules.parse_options(game.options)
    )
    for logged in await bot.store.log(game_id):
        state, _ = rules.apply(state, logged.player, rules.parse_action(logged.action))
    outcome = rules.outcome(state)
    assert outcome is not None
    final = next(m for m in fake.messages(thread) if "final scores" in m.text())
    shown = shown_scores(final)
    assert shown == {names[p]: score for p, score in outcome.scores.items()}
    board = next(m for m in fake.messages(thread) if m.embeds and "Move" in m.text())
    assert re.findall(r"Move (\d+)", board.text()) == [str(game.version)]
    check_posted_once(fake, thread)
    return shown


def check_posted_once(fake: FakeDiscord, thread: Any) -> None:
    """Nothing posted twice: no nonce returned again, no two posts with one nonce."""
    assert fake.nonce_repeats == []
    posts = [
        m for m in fake.messages(thread, include_deleted=True) if m.author_id == fake.bot_user.id
    ]
    nonces = Counter(m.data.get("nonce") for m in posts)
    assert all(n == 1 for nonce, n in nonces.items() if nonce is not None), nonces
    # (two turns may read alike: the nonce says which version a post is for, and a turn
    # prompt posted as a followup has none, but rides on the click that ended the turn)
    alike = Counter((m.history[0].get("content"), m.data.get("nonce"), rode_on(m)) for m in posts)
    assert max(alike.values()) == 1, alike.most_common(1)


def human_moves(logged: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(a.player, dict(a.action)) for a in logged if a.player != TIMER]


# ------------------------------------------------------------------ Santa's Workshop


async def play_workshop(
    fake: FakeDiscord,
    bot: WorkshopBot,
    by_player: dict[str, FakeUser],
    thread: Any,
    *,
    moves: int | None = None,
    rng: Rng,
    panels: dict[str, FakeMessage] | None = None,
) -> int:
    """Play (``moves`` decisions, or to the end) through panels; returns the game id.
    Each turn starts from the thread's latest prompt once the thread is current."""
    game = await game_of(bot, fake)
    panels = {} if panels is None else panels
    made = 0
    while game.status == "active" and (moves is None or made < moves):
        (player,) = WORKSHOP.to_act(game.state)
        user = by_player[player]
        panel = panels.get(player)
        if panel is None or not panel_choices(panel):
            await until_current(bot, game.id)
            prompt = turn_prompts(fake, thread)[-1]
            assert f"<@{user.id}>" in prompt.content, prompt.content
            opened = await fake.click(user, prompt, "Take your turn")
            assert opened.ephemeral and opened.message is not None
            panel = opened.message
        choices = panel_choices(panel)
        legal = WORKSHOP.legal_actions(game.state, player)
        assert len(choices) == len(legal), panel.text()
        panels[player] = await choose(fake, user, panel, choices[rng.below(len(legal))])
        made += 1
        before, game = game.version, await bot.store.load(game.id)
        assert game.version == before + 1  # answered, so stored: no move lost
    return game.id


async def test_a_workshop_game_survives_429s_and_502s(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    rules = flaky_discord(fake)
    users = [fake.add_user(name) for name in ("alice", "bob", "carol")]
    by_player = {str(u.id): u for u in users}
    await open_table(fake, users[0], users[1:])
    (thread,) = fake.threads(fake.channel)
    game_id = await play_workshop(fake, bot, by_player, thread, rng=Rng(99))
    names = {p: u.name for p, u in by_player.items()}
    await check_thread(fake, bot, game_id, thread, names)
    assert len(await bot.store.log(game_id)) > 100
    # the faults did happen, each refused call was tried again and then accepted
    assert rules[0].hits >= 10 and rules[1].hits >= 2, (rules[0].hits, rules[1].hits)
    assert fake.rest_stats().unanswered == 0


# ------------------------------------------------------------------ Workshop Tonttu


async def play_tonttu(
    fake: FakeDiscord, bot: WorkshopBot, by_player: dict[str, FakeUser], thread: Any, rng: Rng
) -> tuple[int, int]:
    """Play a Tonttu game to its end: secret choices in the panel each player was sent
    (a DM, or the last panel edited), race buttons in a speed race. Returns the game id
    and how many moves the bot told a player it took."""
    taken = 0
    fake.settle_after_interaction = False
    while True:
        game = await game_of(bot, fake)
        if game.status != "active":
            return game.id, taken
        state = game.state
        acting = [p for p in sorted(TONTTU.to_act(state), key=state.players.index)]
        if state.mode == "speed" and state.phase == "point":
            # the race's buttons, as the thread shows them for this round
            await fake.wait_for(
                lambda r=state.round: (
                    f"Round {r} " in status_message(fake, thread).content
                    and "first valid point" in status_message(fake, thread).content
                ),
                timeout=15,
                what="the race",
            )
            race = status_message(fake, thread)
            buttons = [b["custom_id"] for b in race.buttons() if b["custom_id"].startswith("ttr:")]
            player = acting[rng.below(len(acting))]
            result = await fake.click(by_player[player], race, buttons[rng.below(len(buttons))])
            if not result.content.startswith("Too late"):
                taken += 1
            continue
        for player in acting:
            user = by_player[player]
            await fake.wait_for(
                lambda u=user, s=state: dm_panel(fake, u, s.round, s.phase) is not None,
                timeout=15,
                what=f"{user.name}'s choices for round {state.round} {state.phase}",
            )
            panel = dm_panel(fake, user, state.round, state.phase)
            assert panel is not None
            legal = TONTTU.legal_actions(state, player)
            action = legal[rng.below(len(legal))]
            result = await select_in(fake, user, panel, state, action)
            assert result.callback_type == 7, result.content
            taken += 1
            state, _ = TONTTU.apply(state, player, action)


@pytest.mark.parametrize(("mode", "players"), [("tactical", 4), ("speed", 4)])
async def test_a_tonttu_game_survives_429s_and_502s(
    fake: FakeDiscord, tmp_path: Path, mode: str, players: int
) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    rules = flaky_discord(fake)
    users = [fake.add_user(name) for name in ("alice", "bob", "carol", "dave")[:players]]
    by_player = {str(u.id): u for u in users}
    thread = await open_tonttu(fake, users[0], users[1:], mode=mode)
    game_id, taken = await play_tonttu(fake, bot, by_player, thread, Rng(5))
    await fake.settle()
    names = {p: u.name for p, u in by_player.items()}
    await check_thread(fake, bot, game_id, thread, names)
    # every move a player was told was taken is in the log, once
    logged = await bot.store.log(game_id)
    assert len(human_moves(logged)) == taken and taken > 20
    assert rules[0].hits >= 5 and rules[1].hits >= 1, (rules[0].hits, rules[1].hits)
    assert fake.rest_stats().unanswered == 0


# ------------------------------------------------------------------ a REST outage


async def test_a_thirty_second_rest_outage_mid_game(
    fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    users = [fake.add_user(name) for name in ("alice", "bob", "carol")]
    by_player = {str(u.id): u for u in users}
    await open_table(fake, users[0], users[1:])
    (thread,) = fake.threads(fake.channel)
    rng = Rng(7)
    panels: dict[str, FakeMessage] = {}
    thread_free = fake.messages(thread)[0]  # a message without choices
    game_id = await play_workshop(fake, bot, by_player, thread, moves=6, rng=rng, panels=panels)
    game = await bot.store.load(game_id)
    # on until a player is in the middle of a turn, their panel open
    while not panel_choices(panels.get(next(iter(WORKSHOP.to_act(game.state))), thread_free)):
        await play_workshop(fake, bot, by_player, thread, moves=1, rng=rng, panels=panels)
        game = await bot.store.load(game_id)
    game = await until_current(bot, game_id)
    posts_before = len(fake.messages(thread))
    (player,) = WORKSHOP.to_act(game.state)
    user, panel = by_player[player], panels[player]

    # Discord's REST API goes away for 30 s; the gateway stays up, clicks still arrive.
    loop = asyncio.get_running_loop()
    caplog.clear()
    fake.rest_outage(True)
    start = loop.time()
    fake.settle_after_interaction = False
    choices = panel_choices(panel)
    legal = WORKSHOP.legal_actions(game.state, player)
    assert len(choices) == len(legal)
    with pytest.raises(ViolationError) as failed:  # the bot cannot answer
        await choose(fake, user, panel, choices[rng.below(len(legal))])
    assert {v.kind for v in failed.value.violations} == {"not_acknowledged"}
    after = await bot.store.load(game_id)
    assert after.version == game.version + 1  # the move is stored all the same
    # the panel could not be redrawn: a second click on it is stale, and changes nothing
    await asyncio.sleep(5)
    with pytest.raises(ViolationError):
        await choose(fake, user, panel, panel_choices(panel)[0])
    assert (await bot.store.load(game_id)).version == after.version
    clicked = 2
    await asyncio.sleep(max(0.0, start + 30 - loop.time()))
    assert fake.rest_stats(since=start).injected.get("outage", 0) > 2  # the retries
    fake.rest_outage(False)
    end = loop.time()
    assert clicked >= 1
    assert len(fake.messages(thread)) == posts_before  # nothing got through meanwhile

    # the thread catches up soon after: the failed sync is tried again every 5 s at most
    game = await until_current(bot, game_id, within=CATCH_UP)
    print(f"\ncaught up {loop.time() - end:.1f} s after the outage ended")
    board = next(m for m in fake.messages(thread) if m.embeds and "Move" in m.text())
    assert re.findall(r"Move (\d+)", board.text()) == [str(game.version)]
    (player,) = WORKSHOP.to_act(game.state)
    assert f"<@{by_player[player].id}>" in turn_prompts(fake, thread)[-1].content
    # no traceback storm: a failed answer is at most one logged error per click
    tracebacks = [r for r in caplog.records if r.exc_info and r.levelno >= logging.ERROR]
    assert len(tracebacks) <= clicked, [r.getMessage() for r in tracebacks]
    # late answers to the clicks made during the outage: not acknowledged, never twice
    leftover = {v.kind for v in fake.take_violations()}
    assert leftover <= {"not_acknowledged", "deadline"}, leftover

    # and the game plays on, nothing posted twice
    fake.settle_after_interaction = True
    panels.clear()  # the panels the outage left stale: players open new ones
    await play_workshop(fake, bot, by_player, thread, moves=6, rng=rng, panels=panels)
    game = await until_current(bot, game_id)
    check_posted_once(fake, thread)
    assert (await bot.store.replay(game_id)).ok
    assert bot.is_ready() and not bot.is_closed()


# ------------------------------------------------------------------ expired tokens


async def test_a_panel_older_than_fifteen_minutes_gets_a_dm_instead_of_an_edit(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    users = [fake.add_user(name) for name in ("alice", "bob", "carol")]
    by_player = {str(u.id): u for u in users}
    await open_tonttu(fake, users[0], users[1:], mode="tactical")
    game = await game_of(bot, fake)
    state = game.state
    alice = users[0]
    player = human_player(alice.id)
    # everyone but the last chooses in the DM they were sent; the bot keeps that panel
    acting = sorted(TONTTU.to_act(state), key=state.players.index)
    assert acting[-1] != player
    for p in acting[:-1]:
        user = by_player[p]
        panel = dm_panel(fake, user, state.round, state.phase)
        assert panel is not None
        await select_in(fake, user, panel, state, TONTTU.legal_actions(state, p)[0])
        state, _ = TONTTU.apply(state, p, TONTTU.legal_actions(state, p)[0])
    tonttu: Any = bot.get_cog("Tonttu")
    interaction, used_at, said = tonttu._panels[(game.id, player)]
    # alice's panel was used 16 minutes ago: Discord no longer accepts its token
    aged = 16 * 60.0
    assert aged > fake.token_lifetime > PANEL_FRESH
    tonttu._panels[(game.id, player)] = (interaction, used_at - aged, said)
    fake.interactions[int(interaction.id)].dispatched_at -= aged
    dms_of = {p: len(fake.dm_messages(u)) for p, u in by_player.items()}
    dms_before = dms_of[player]

    last = by_player[acting[-1]]
    panel = dm_panel(fake, last, state.round, state.phase)
    assert panel is not None
    await select_in(fake, last, panel, state, TONTTU.legal_actions(state, acting[-1])[0])
    state, _ = TONTTU.apply(state, acting[-1], TONTTU.legal_actions(state, acting[-1])[0])
    await fake.settle()
    # the next phase's choices reached alice by DM, and nothing used the old token
    assert len(fake.dm_messages(alice)) == dms_before + 1
    dm = fake.dm_messages(alice)[-1]
    found = dm_panel(fake, alice, state.round, state.phase)
    assert found is not None and found.id == dm.id
    assert [v.kind for v in fake.violations] == []
    expired = [r for r in fake.requests if interaction.token in r.path and r.at > used_at]
    assert all(r.status != 401 for r in expired)
    # the others' fresh panels were edited through their tokens (no DM for them)
    for p in acting[:-1]:
        if p != player:
            assert dm_panel(fake, by_player[p], state.round, state.phase) is not None
            assert len(fake.dm_messages(by_player[p])) == dms_of[p]
    # and alice chooses in the DM: a new interaction, which works
    choice = TONTTU.legal_actions(state, player)[0]
    result = await select_in(fake, alice, dm, state, choice)
    assert result.callback_type == 7 and encode(choice)
