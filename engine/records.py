"""Game records (the public export format), random playouts and replay.

A record is ``{"game", "seed", "players", "options", "actions": [{"player",
"action"}], "outcome"}``; replaying its actions from the seed must give the same
outcome. ``docs/records.md`` documents the format, with the optional fields an
export from the bot adds (``names``, ``title``, ``game_id``, ``moves``) and the
*partial* record of a game still running (``finished: false``): no seed, no
decisions, only what a spectator could see (``public_log``, ``board``). These
helpers work for every game through the :class:`Game` protocol.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from engine.core import A, E, Game, PlayerId, Rng, S, V

RECORD_FORMAT = 1
"""The version of the record format (``docs/records.md``); absent means 1."""


class RecordedAction(BaseModel):
    player: PlayerId
    action: dict[str, Any]


class PublicEntry(BaseModel):
    """One entry of a running game's public log: what the thread showed for one move."""

    move: int
    """The game's version after this entry (the log's ``seq``)."""
    events: list[dict[str, Any]]
    """The engine's public events of that move (they carry no secret, by design)."""
    text: list[str] = Field(default_factory=list)
    """The same events as the sentences the thread showed."""


class Record(BaseModel):
    game: str
    seed: int | None = None
    """Absent only in the partial record of a running game (``finished`` false)."""
    players: list[PlayerId]
    options: dict[str, Any]
    actions: list[RecordedAction] = Field(default_factory=list)
    outcome: dict[str, Any] | None = None
    # Optional fields, added by an export from the bot (docs/records.md).
    format: int = RECORD_FORMAT
    finished: bool = True
    """False: the partial record of a game still running; it cannot be replayed."""
    title: str | None = None
    game_id: int | None = None
    names: dict[PlayerId, str] = Field(default_factory=dict)
    """Display names by player id (a Discord user id, or ``ai:N`` for a computer seat)."""
    moves: int | None = None
    """How many entries the game's log held when it was exported."""
    public_log: list[PublicEntry] | None = None
    """Only in a running game's record: each move's public events."""
    board: dict[str, Any] | None = None
    """Only in a running game's record: the spectator's view of the board now."""

    @property
    def replayable(self) -> bool:
        return self.finished and self.seed is not None


class PartialRecord(ValueError):
    """A running game's record: it holds no seed and no decisions, so it cannot be replayed."""

    def __init__(self, record: Record) -> None:
        at = f" (at move {record.moves})" if record.moves is not None else ""
        super().__init__(
            f"This is the record of a game still running when it was exported{at}: it "
            "holds only what a spectator could see, without the seed or the decisions, "
            "so it cannot be replayed. Export the game again once it has finished."
        )


def dump_outcome(game: Game[S, A, V, E], state: S) -> dict[str, Any] | None:
    result = game.outcome(state)
    return None if result is None else result.model_dump(mode="json")


def pick_random(game: Game[S, A, V, E], state: S, rng: Rng) -> tuple[PlayerId, A]:
    """A uniformly random (player, legal action) pair, deterministic given ``rng``.

    With several players to act (a simultaneous step), the actor is drawn first,
    in seat order so the draw does not depend on set ordering.
    """
    acting = game.to_act(state)
    seats = [p for p in state.players if p in acting] or sorted(acting)
    player = seats[rng.below(len(seats))] if len(seats) > 1 else seats[0]
    return player, rng.choice(game.legal_actions(state, player))


def random_playout(
    game: Game[S, A, V, E],
    players: Sequence[PlayerId],
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    max_actions: int = 100_000,
    keep_actions: bool = True,
) -> tuple[S, Record]:
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


def replay(game: Game[S, A, V, E], record: Record, upto: int | None = None) -> S:
    """Re-apply a record's actions from its seed (the first ``upto`` of them, or all);
    returns the state reached.

    Raises :class:`PartialRecord` for a running game's record, and the game's
    ``RuleError`` if an action is not legal where it stands.
    """
    state: S | None = None
    for reached, _events in replay_steps(game, record, upto):
        state = reached
    assert state is not None  # replay_steps yields the start first
    return state


def replay_steps(
    game: Game[S, A, V, E], record: Record, upto: int | None = None
) -> Iterator[tuple[S, Sequence[E]]]:
    """:func:`replay` step by step: the state at the start, then after each action the
    state it made and its events (the first yields no events)."""
    if not record.replayable or record.seed is None:
        raise PartialRecord(record)
    state = game.new_game(record.players, record.seed, game.parse_options(record.options))
    yield state, ()
    steps = record.actions if upto is None else record.actions[: max(upto, 0)]
    for step in steps:
        state, events = game.apply(state, step.player, game.parse_action(step.action))
        yield state, events
