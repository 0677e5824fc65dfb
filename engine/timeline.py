"""How a finished game went: every player's score after each day or round, and the
final breakdown by reason, from the game's seed and its list of decisions.

The chart posted with the final scores (``render/chart.py``) is drawn from a
:class:`Timeline`. Nothing here reads storage: the caller passes the decisions in the
order they were applied, ``(player, action)`` pairs with each action as the log keeps
it (its JSON dict) or as the engine's model. A log with entries that are not decisions
(say, a taken-back move) is turned into the decisions that stand before it comes here.

Options weighed: reading the scores out of the logged events (Workshop's ``scored``
events carry every change of score, W-6.3, but Tonttu's events do not, and the events
of a game stored before a rule change could be stale); keeping a score history in the
state (every computer rollout would pay for it). Chosen: replay the decisions from the
seed, as the audit does (the seed plus the decisions replays a game exactly), and read
each player's score whenever a day or round has ended. A replay of a whole game costs
a few milliseconds, so it runs beside the drawing, off the bot's event loop.

Through the :class:`engine.core.Game` protocol plus one small per-game hook
(:class:`Stages`: what one stage is called, how many have ended, the scores, the
breakdown). A game added later registers its own with :func:`register_stages`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from engine.core import AnyGame, Model, Outcome, PlayerId
from engine.records import Record
from engine.words import N_

Decision = tuple[PlayerId, Any]
"""``(player, action)``: the action as its JSON dict (the log's form) or the model."""


@dataclass(frozen=True)
class Stages:
    """The per-game hook: where a game's days or rounds end, and what a score is made of.

    ``ended(state)`` is the number of stages (days, rounds) over in ``state``, the last
    one included once the game is over; ``scores(state)`` each seat's score, in seat
    order; ``breakdown(outcome)`` each player's final points by reason (label → points,
    in the order to show them; the labels add up to the final score). ``unit`` is an
    English word marked with ``N_``: the chart translates it where it draws it.
    """

    unit: str
    ended: Callable[[Any], int]
    scores: Callable[[Any], Sequence[int]]
    breakdown: Callable[[Any], dict[PlayerId, dict[str, int]]]


class Timeline(Model):
    """Every player's score at the start and after each stage, and the final breakdown.

    ``stages[k]`` is the number of stages ended at point ``k`` (0: the start);
    ``scores[player][k]`` that player's score then. The last point is the end of the
    game: its scores are the outcome's.
    """

    game: str
    unit: str
    players: tuple[PlayerId, ...]
    stages: tuple[int, ...]
    scores: dict[PlayerId, tuple[int, ...]]
    breakdown: dict[PlayerId, dict[str, int]]
    winners: tuple[PlayerId, ...]

    @property
    def final(self) -> dict[PlayerId, int]:
        return {player: series[-1] for player, series in self.scores.items()}


# --------------------------------------------------------------------------- the hooks


def _workshop_ended(state: Any) -> int:
    # W-2.1: 6 days; the day number moves on at the end of each day but the last, when
    # the game is over instead (W-6).
    from engine.workshop.models import Phase

    return int(state.day) if state.phase == Phase.OVER else int(state.day) - 1


def _workshop_scores(state: Any) -> tuple[int, ...]:
    return tuple(seat.score for seat in state.seats)


def _workshop_breakdown(outcome: Any) -> dict[PlayerId, dict[str, int]]:
    # W-6.3: the final score is the sum of the score events, by reason
    return {player: dict(result.breakdown) for player, result in outcome.players.items()}


def _tonttu_ended(state: Any) -> int:
    # T-2.3: the round number moves on at the end of each round but the last (T-5)
    return int(state.round) if state.phase == "over" else int(state.round) - 1


def _tonttu_scores(state: Any) -> tuple[int, ...]:
    return tuple(state.scores)


def _tonttu_breakdown(outcome: Any) -> dict[PlayerId, dict[str, int]]:
    # T-5.1 (the k-th gift is worth k) and T-5.2 (+3 per complete set)
    return {
        player: {"gifts": result.gift_points, "sets": result.set_points}
        for player, result in outcome.players.items()
    }


_STAGES: dict[str, Stages] = {
    "workshop": Stages(N_("Day"), _workshop_ended, _workshop_scores, _workshop_breakdown),
    "tonttu": Stages(N_("Round"), _tonttu_ended, _tonttu_scores, _tonttu_breakdown),
}


def register_stages(game: str, stages: Stages) -> None:
    """Let :func:`score_timeline` follow the game named ``game`` (a game added later)."""
    _STAGES[game] = stages


def stages_of(game: str) -> Stages:
    try:
        return _STAGES[game]
    except KeyError:
        known = ", ".join(sorted(_STAGES))
        raise KeyError(f"No score timeline for the game {game!r}; known: {known}.") from None


# --------------------------------------------------------------------------- the replay


def score_timeline(
    game: AnyGame,
    players: Sequence[PlayerId],
    seed: int,
    options: Mapping[str, Any] | None,
    decisions: Iterable[Decision],
) -> Timeline:
    """Replay ``decisions`` from the seed; the scores at the start and after each stage.

    The game must be over after the last decision (a ``ValueError`` otherwise): the
    timeline ends with the final scores and their breakdown. A decision the rules
    refuse raises the game's ``RuleError``, as a replay does.
    """
    hook = stages_of(game.name)
    state = game.new_game(list(players), seed, game.parse_options(options))
    stages = [0]
    series = [tuple(hook.scores(state))]
    done = 0
    for player, action in decisions:
        parsed = action if isinstance(action, BaseModel) else game.parse_action(action)
        state, _events = game.apply(state, player, parsed)
        ended = hook.ended(state)
        if ended != done:
            done = ended
            stages.append(ended)
            series.append(tuple(hook.scores(state)))
    outcome: Outcome | None = game.outcome(state)
    if outcome is None:
        raise ValueError(
            f"{game.title}: the game is not over after {len(stages) - 1} "
            f"{hook.unit.lower()}s; a timeline is drawn for a finished game."
        )
    seats = tuple(state.players)
    return Timeline(
        game=game.name,
        unit=hook.unit,
        players=seats,
        stages=tuple(stages),
        scores={p: tuple(point[i] for point in series) for i, p in enumerate(seats)},
        breakdown=hook.breakdown(outcome),
        winners=tuple(outcome.winners),
    )


def record_timeline(game: AnyGame, record: Record) -> Timeline:
    """The timeline of a game record (``engine.records``), e.g. an exported game.

    A running game's partial record (no seed) raises ``ValueError`` as an unfinished
    game does."""
    if record.seed is None:
        raise ValueError("a running game's record has no seed to replay")
    return score_timeline(
        game,
        record.players,
        record.seed,
        record.options,
        ((step.player, step.action) for step in record.actions),
    )
