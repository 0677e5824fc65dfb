"""A turn limit's stand-in move that meets the player's own move, stored a moment before
(found by the chaos soak, ``benchmarks/chaos.py``): ``play_for`` says the turn moved on
(``None``), as its contract says, instead of raising the stale board a click gets; the
timer then ends quietly instead of failing with a traceback before the computers' turns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import storage
from engine.workshop import GAME
from storage import LoadedGame, Storage, TimerClaim
from tables.computers import Computers, Decision, decide
from tables.service import Tables

LEASE = timedelta(minutes=5)


async def two_players(store: Storage) -> LoadedGame:
    """A Santa's Workshop game of two people, started."""
    lobby = await store.create_lobby(
        guild_id=1, channel_id=1, kind="workshop", options={}, host_id=1, host_name="a"
    )
    await store.join(lobby.id, 2, "b")
    return await store.start(lobby.id, seed=3)


async def a_turn_limit(store: Storage, game: LoadedGame, owner: str = "me") -> TimerClaim:
    """The game's turn limit, due and claimed by ``owner``: what a stand-in move stands on."""
    await store.schedule(game.id, "turn_limit", datetime.now(UTC))
    (timer,) = await store.claim_due_timers(owner, LEASE)
    return TimerClaim(timer.id, owner)


async def test_a_stand_in_move_that_lost_the_race_to_the_player_is_none(tmp_path: Path) -> None:
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db") as store:
        game = await two_players(store)
        (player,) = GAME.to_act(game.state)

        async def runner(d: Decision) -> Any:
            # the player's own click is stored while the computer decides for them
            mine = GAME.legal_actions(game.state, player)[0]
            await store.submit(game.id, player, mine, game.version)
            return decide(d.kind, d.state, d.player, "greedy", d.seed)

        tables = Tables(store, computers=Computers(runner=runner))
        claim = await a_turn_limit(store, game)
        assert await tables.play_for(game.id, player, game.version, claim) is None
        log = await store.log(game.id)
        assert len(log) == 1  # the player's move, not the stand-in's


@pytest.mark.parametrize("seed", [424242, 3])  # the computer seat moves first; the human
async def test_a_move_decided_for_a_game_ended_meanwhile_is_none(tmp_path: Path, seed: int) -> None:
    """Found by the chaos soak: a computer seat's decision (and a stand-in's) outlived its
    game, abandoned meanwhile; storing it raised ``WrongStatus`` with a traceback. The
    game is over: there is no move to make."""
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db") as store:
        lobby = await store.create_lobby(
            guild_id=1, channel_id=1, kind="workshop", options={}, host_id=1, host_name="a"
        )
        await store.add_ai(lobby.id, level="greedy")
        game = await store.start(lobby.id, seed=seed)
        (player,) = GAME.to_act(game.state)

        async def runner(d: Decision) -> Any:
            await store.abandon(game.id)  # while the computer decides
            return decide(d.kind, d.state, d.player, "greedy", d.seed)

        tables = Tables(store, computers=Computers(runner=runner))
        if player.startswith("ai:"):
            assert await tables.computer_step(game.id) is None
        else:  # a stand-in for the absent human
            claim = await a_turn_limit(store, game)
            assert await tables.play_for(game.id, player, game.version, claim) is None
        assert await store.log(game.id) == []


@pytest.mark.parametrize("lost", ["claimed by another process", "ended"])
async def test_a_stand_in_move_whose_limit_was_lost_while_it_decided_is_not_stored(
    tmp_path: Path, lost: str
) -> None:
    """Found by the chaos soak: a process checked its turn limit's claim, then decided
    (slow under load) while another process took the limit over (this one had stalled
    past its lease) or it ended; its move was stored all the same, a move no limit
    explained. The claim is checked with the move's commit now: no move (``None``)."""
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db") as store:
        game = await two_players(store)
        (player,) = GAME.to_act(game.state)
        claim = await a_turn_limit(store, game)

        async def runner(d: Decision) -> Any:
            if lost == "ended":
                assert await store.finish_timer(claim.timer_id, claim.owner)
            else:  # its lease ran out meanwhile, and another process claimed it
                await store.retry_timer(claim.timer_id, claim.owner, timedelta(0))
                assert await store.claim_due_timers("another", LEASE)
            return decide(d.kind, d.state, d.player, "greedy", d.seed)

        tables = Tables(store, computers=Computers(runner=runner))
        assert await tables.play_for(game.id, player, game.version, claim) is None
        assert await store.log(game.id) == []

        async def greedy(d: Decision) -> Any:
            return decide(d.kind, d.state, d.player, "greedy", d.seed)

        still = Tables(store, computers=Computers(runner=greedy))
        mine = claim if lost == "ended" else TimerClaim(claim.timer_id, "another")
        played = await still.play_for(game.id, player, game.version, mine)
        assert (played is None) == (lost == "ended")  # the new owner's move is stored
