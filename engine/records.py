"""Game records (the public export format), random playouts and replay.

A record is ``{"game", "seed", "players", "options", "actions": [{"player",
"action"}], "outcome"}``; replaying its actions from the seed must give the same
outcome. These helpers work for every game through the :class:`Game` protocol.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from engine.core import Game, PlayerId, Rng


class RecordedAction(BaseModel):
    player: PlayerId
    action: dict[str, Any]


class Record(BaseModel):
    game: str
    seed: int
    players: list[PlayerId]
    options: dict[str, Any]
    actions: list[RecordedAction]
    outcome: dict[str, Any] | None = None


def dump_outcome(game: Game, state: Any) -> dict[str, Any] | None:
    result = game.outcome(state)
    return None if result is None else result.model_dump(mode="json")


def pick_random(game: Game, state: Any, rng: Rng) -> tuple[PlayerId, Any]:
    """A uniformly random (player, legal action) pair, deterministic given ``rng``.

    With several players to act (a simultaneous step), the actor is drawn first,
    in seat order so the draw does not depend on set ordering.
    """
    acting = game.to_act(state)
    seats = [p for p in state.players if p in acting] or sorted(acting)
    player = seats[rng.below(len(seats))] if len(seats) > 1 else seats[0]
    return player, rng.choice(game.legal_actions(state, player))


def random_playout(
    game: Game,
    players: Sequence[PlayerId],
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    max_actions: int = 100_000,
    keep_actions: bool = True,
) -> tuple[Any, Record]:
    """Play one game with uniformly random legal actions; returns the final state and its record."""
    parsed = game.parse_options(options)
    state = game.new_game(players, seed, parsed)
    rng = Rng(seed ^ 0x5EED)
    actions: list[RecordedAction] = []
    for _ in range(max_actions):
        if game.outcome(state) is not None:
            break
        player, action = pick_random(game, state, rng)
        state, _events = game.apply(state, player, action)
        if keep_actions:
            actions.append(RecordedAction(player=player, action=action.model_dump(mode="json")))
    else:
        raise RuntimeError(f"{game.name} seed {seed}: no end after {max_actions} actions.")
    record = Record(
        game=game.name,
        seed=seed,
        players=list(players),
        options=parsed.model_dump(mode="json"),
        actions=actions,
        outcome=dump_outcome(game, state),
    )
    return state, record


def replay(game: Game, record: Record) -> Any:
    """Re-apply a record's actions from its seed; returns the final state.

    Raises the game's ``RuleError`` if an action is not legal where it stands.
    """
    state = game.new_game(record.players, record.seed, game.parse_options(record.options))
    for step in record.actions:
        state, _events = game.apply(state, step.player, game.parse_action(step.action))
    return state
