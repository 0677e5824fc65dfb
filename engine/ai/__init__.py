"""Computer players for both games: ``choose(game, state, player, level, seed)``.

Levels (:data:`LEVELS`; a player knows them by the names of :data:`LEVEL_NAMES`,
easy, normal and hard, on Discord and in the terminal alike, and :func:`level_id`
reads either):

``random``  (easy) a uniformly random legal action (the baseline).
``greedy``  (normal) a fast one-step heuristic per game (``engine.ai.workshop``,
            ``engine.ai.tonttu``).
``strong``  (hard) flat Monte-Carlo search with determinization: each iteration samples
            the hidden information from the view, tries every candidate action on
            that same sample (common random numbers) and plays on with the greedy
            policy (with a little randomness) for the other seats and the game's
            own policy for the deciding seat (``GameAI.own``; Tonttu's planner,
            else the greedy), then scores the result for the deciding seat. The
            budget is a number of simulated actions, not a time, so a decision
            is deterministic given its seed. Sequential halving
            (``Budget.halving``) spends the budget in rounds and drops the worse
            half of the candidates after each, so the promising ones get most
            samples. Rollouts stop after
            ``Budget.horizon`` actions and the position is valued by the score
            plus fitted future points (``engine.ai.tonttu.potential``,
            ``engine.ai.workshop.potential``): many short, less noisy samples
            instead of a few full games.

Fair play (docs/rules.md W-7, T-6): :func:`choose` builds ``game.view(state,
player)`` and hands only that view to :func:`decide`; no level ever receives the
state. Whatever a level needs beyond the view it gets from the game's
determinizer (``determinize(view, rng)``), which samples the hidden parts
consistently with the view: ``view(sample, player) == view(state, player)``.
So two states that differ only in what ``player`` cannot see give the same
decision for the same seed.

Memory: a seat also remembers what it saw earlier in the game, which the view of the
present may not show (in Tonttu, the others' revealed points say something about their
face-down cards). :func:`choose` takes the game's ``record`` so far for that; the
game's ``recall`` reads from it only what a spectator saw, and the ``strong`` level's
determinizer uses it. Without a record a seat plays as if it remembered nothing.

Simultaneous Tonttu phases: a computer seat chooses like a human, one pick or
point from its own view, without seeing the others' pending choices; in speed
mode it points once (the engine offers nothing after that).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from engine.core import AnyGame, NotYourTurn, PlayerId, Rng, derive_seed
from engine.records import Record

LEVELS: tuple[str, ...] = ("random", "greedy", "strong")
"""The levels' ids, as records, the database and the ratings keep them."""
LEVEL_NAMES: dict[str, str] = {"random": "easy", "greedy": "normal", "strong": "hard"}
"""What a player calls each level (the lobby's menu, the terminal's ``--opponents``), by id."""


def level_id(name: str) -> str:
    """The id of a level a person named: its name (``"hard"``) or its id (``"strong"``),
    in any case; raises ``ValueError`` for anything else.

    >>> level_id("Hard"), level_id("greedy")
    ('strong', 'greedy')
    """
    text = name.strip().lower()
    if text in LEVELS:
        return text
    for level, level_name in LEVEL_NAMES.items():
        if text == level_name:
            return level
    raise ValueError(f"Unknown level {name!r}; the levels are {', '.join(LEVEL_NAMES.values())}.")


@dataclass(frozen=True)
class Budget:
    """How much the ``strong`` level searches: simulated actions per decision."""

    actions: int
    """Total actions applied in all rollouts of one decision."""
    candidates: int
    """At most this many actions (best by the greedy heuristic) are searched."""
    epsilon: float = 0.1
    """Chance that a rollout step plays a random legal action instead of the greedy one."""
    min_samples: int = 4
    """Determinizations tried even when the action budget is spent."""
    horizon: int = 0
    """Cut a rollout after this many actions and evaluate the position (0 = play to the end)."""
    halving: bool = False
    """Sequential halving: the budget is split into rounds, and after each round the worse
    half of the candidates still in the race is dropped (more samples for the best)."""


DEFAULT_BUDGETS: dict[str, Budget] = {
    # Tonttu: calibrated so the p95 decision CPU time stays under 300 ms on a busy
    # shared 2-core machine: 4 800 actions with the planner as the deciding seat's
    # rollout policy (benchmarks/ai_strength.py prints the figures; docs/rules-notes.md).
    # Santa's Workshop: rollouts cut after 40 actions (about a day) and valued by
    # engine.ai.workshop.potential, with sequential halving; same time limit.
    "workshop": Budget(actions=2000, candidates=5, min_samples=2, horizon=40, halving=True),
    "tonttu": Budget(actions=4800, candidates=9, epsilon=0.0, horizon=24, halving=True),
}


@dataclass(frozen=True)
class GameAI:
    """What a level needs to know about one game, all from views or sampled states."""

    determinize: Callable[..., Any]
    """``determinize(view, rng)``: a full state consistent with a seat's view (hidden
    parts sampled); with ``recall``, also ``determinize(view, rng, memory)``."""
    greedy: Callable[[Any, PlayerId, Sequence[Any], Rng], Any]
    """The greedy choice for ``player`` in a (sampled) state."""
    ranked: Callable[[Any, PlayerId, Sequence[Any]], list[Any]]
    """Legal actions ordered best first (the search's candidates)."""
    evaluate: Callable[[Any, PlayerId], float]
    """A finished or cut-off (sampled) state's value for ``player``, about 0..1."""
    prepare: Callable[[AnyGame, Any, PlayerId, Rng], Any] | None = None
    """Optional: adjust a sample before the search (e.g. others re-choose greedily)."""
    finished: Callable[[Any], bool] | None = None
    """Optional: a cheap "is the game over" (``game.outcome(state) is not None`` without
    building the outcome), asked after every rollout step."""
    advance: Callable[[Any, PlayerId, Any], Any] | None = None
    """Optional: ``game.apply(state, player, action)[0]`` without building the events,
    which a search never reads (the same state, cheaper)."""
    recall: Callable[[AnyGame, Record, PlayerId], Any] | None = None
    """Optional: ``recall(game, record, player)``, what ``player`` remembers of the game
    so far (``record``: its seed and decisions) from public facts only, for the
    determinizer's ``memory``."""
    own: Callable[[Any, PlayerId, Sequence[Any], Rng], Any] | None = None
    """Optional: the deciding seat's own moves in rollouts, where the other seats play
    ``greedy`` (default: ``greedy`` for the deciding seat too)."""


def _load(name: str) -> GameAI:
    if name == "workshop":
        from engine.ai import workshop

        return workshop.AI
    if name == "tonttu":
        from engine.ai import tonttu

        return tonttu.AI
    raise KeyError(f"No computer player for the game {name!r}.")


_AIS: dict[str, GameAI] = {}


def game_ai(name: str) -> GameAI:
    ai = _AIS.get(name)
    if ai is None:
        ai = _AIS[name] = _load(name)
    return ai


def remembers(game: AnyGame, level: str) -> bool:
    """Whether ``level`` uses the game so far (:func:`choose`'s ``record``): the
    ``strong`` level of a game with a ``recall``. Callers build a record only then."""
    return level == "strong" and game_ai(game.name).recall is not None


def choose(
    game: AnyGame,
    state: Any,
    player: PlayerId,
    level: str,
    seed: int,
    budget: Budget | None = None,
    record: Record | None = None,
) -> Any:
    """The computer's action for ``player`` at ``level``, deterministic given ``seed``
    (and ``record``).

    Only ``game.view(state, player)`` is passed on: the levels never see ``state``.
    ``record``, the game so far whose last state is ``state``, lets the ``strong``
    level remember what it saw (the game's ``recall``; public facts only).
    Raises :class:`NotYourTurn` when ``player`` has no legal action.

    >>> from engine import get_game
    >>> game = get_game("tonttu")
    >>> state = game.new_game(["ann", "bob", "cid"], 1, game.parse_options({}))
    >>> action = choose(game, state, "ann", "greedy", seed=7)
    >>> action in game.legal_actions(state, "ann")
    True
    >>> action == choose(game, state, "ann", "greedy", seed=7)
    True
    """
    memory = None
    if record is not None and remembers(game, level):
        recall = game_ai(game.name).recall
        assert recall is not None
        memory = recall(game, record, player)
    return decide(game, game.view(state, player), player, level, seed, budget, memory)


def decide(
    game: AnyGame,
    view: Any,
    player: PlayerId,
    level: str,
    seed: int,
    budget: Budget | None = None,
    memory: Any = None,
) -> Any:
    """The decision from a view alone, and the seat's ``memory`` (see :func:`choose`)."""
    if level not in LEVELS:
        raise ValueError(f"Unknown level {level!r}; the levels are {', '.join(LEVELS)}.")
    ai = game_ai(game.name)
    if memory:
        ai = replace(ai, determinize=partial(ai.determinize, memory=memory))
    rng = Rng(derive_seed(seed, "ai", level))
    sample = ai.determinize(view, rng.fork())
    legal = list(game.legal_actions(sample, player))
    if not legal:
        raise NotYourTurn("The computer player has nothing to choose now.").naming(player=player)
    if len(legal) == 1:
        return legal[0]
    if level == "random":
        return legal[rng.below(len(legal))]
    if level == "greedy":
        return ai.greedy(sample, player, legal, rng)
    return _search(game, ai, view, player, legal, sample, rng, budget or DEFAULT_BUDGETS[game.name])


def _search(
    game: AnyGame,
    ai: GameAI,
    view: Any,
    player: PlayerId,
    legal: list[Any],
    first_sample: Any,
    rng: Rng,
    budget: Budget,
) -> Any:
    """Flat Monte Carlo over the greedy's best candidates, one determinization per iteration.

    Every candidate still in the race is tried on the same sample with the same
    rollout randomness (common random numbers), so their totals stay comparable.
    With ``budget.halving`` the budget is spent in rounds, and after each round only
    the better half of the candidates (by total value so far) stays in the race.
    """
    candidates = ai.ranked(first_sample, player, legal)[: budget.candidates]
    if len(candidates) == 1:
        return candidates[0]
    totals = [0.0] * len(candidates)
    live = list(range(len(candidates)))
    rounds = max(1, (len(candidates) - 1).bit_length()) if budget.halving else 1
    spent = 0
    samples = 0
    sample = first_sample
    for round_index in range(rounds):
        goal = budget.actions * (round_index + 1) // rounds
        round_samples = 0
        while (round_index == 0 and samples < budget.min_samples) or spent < goal:
            if samples:
                sample = ai.determinize(view, rng.fork())
            if ai.prepare is not None:
                sample = ai.prepare(game, sample, player, rng.fork())
            rollout_seed = rng.next64()
            for k in live:
                state = _advance(game, ai, sample, player, candidates[k])
                # the same rollout randomness for every candidate (common random numbers)
                state, steps = playout(
                    game,
                    ai,
                    state,
                    Rng(rollout_seed),
                    budget.epsilon,
                    budget.horizon or 5000,
                    me=player,
                )
                spent += steps + 1
                totals[k] += ai.evaluate(state, player)
            samples += 1
            round_samples += 1
            if round_samples >= 400 // rounds:  # plenty; stop early in short end games
                break
        if round_index < rounds - 1:
            live.sort(key=lambda k: (-totals[k], k))
            live = sorted(live[: (len(live) + 1) // 2])
            if len(live) == 1:
                break
    best = max(live, key=lambda k: (totals[k], -k))
    return candidates[best]


def playout(
    game: AnyGame,
    ai: GameAI,
    state: Any,
    rng: Rng,
    epsilon: float,
    max_steps: int = 5000,
    me: PlayerId | None = None,
) -> tuple[Any, int]:
    """Play to the end with the greedy policy (a random action with chance ``epsilon``);
    ``me``, the deciding seat, plays ``ai.own`` where the game has one."""
    steps = 0
    finished = ai.finished or (lambda s: game.outcome(s) is not None)
    while steps < max_steps and not finished(state):
        state = rollout_step(game, ai, state, rng, epsilon, me)
        steps += 1
    return state, steps


def rollout_step(
    game: AnyGame, ai: GameAI, state: Any, rng: Rng, epsilon: float, me: PlayerId | None = None
) -> Any:
    """One move of the rollout policy (:func:`playout`'s): a seat that must act (drawn
    when several may), then its only action, a random one with chance ``epsilon``, or
    the greedy one (``ai.own`` for ``me``)."""
    acting = game.to_act(state)
    if len(acting) == 1:
        (player,) = acting
    else:
        seats = [p for p in state.players if p in acting]
        player = seats[rng.below(len(seats))]
    legal = game.legal_actions(state, player)
    if len(legal) == 1:
        action = legal[0]
    elif rng.below(1000) < epsilon * 1000:
        action = legal[rng.below(len(legal))]
    elif player == me and ai.own is not None:
        action = ai.own(state, player, legal, rng)
    else:
        action = ai.greedy(state, player, legal, rng)
    return _advance(game, ai, state, player, action)


def _advance(game: AnyGame, ai: GameAI, state: Any, player: PlayerId, action: Any) -> Any:
    """The state after ``action`` (its events are not needed)."""
    if ai.advance is not None:
        return ai.advance(state, player, action)
    return game.apply(state, player, action)[0]


__all__ = [
    "DEFAULT_BUDGETS",
    "LEVELS",
    "LEVEL_NAMES",
    "Budget",
    "GameAI",
    "choose",
    "decide",
    "game_ai",
    "level_id",
    "playout",
    "rollout_step",
]
