"""Player ratings from finished games: who sat where, how they placed, the new ratings.

Pure functions over plain values (no SQL, no clock, no randomness): storage
(:mod:`storage.ratings`) reads the finished games and the current ratings, calls
:func:`rate_game`, and writes what it returns; ``python -m storage ratings
--rebuild`` calls the same function over every finished game in the same order,
which is why a rebuild equals the incremental result to the last bit.

Options weighed for the rating system:

* **Elo / Glicko by hand.** Two-player systems: a four-player game would have to be
  split into pairwise "matches" (which over-counts it) and ties need care. Writing
  it ourselves also means owning its numerical corner cases.
* **TrueSkill (``trueskill``).** Multiplayer and ties, but patented by Microsoft
  for commercial use and little maintained.
* **OpenSkill's Plackett-Luce model (``openskill``, chosen).** A maintained,
  MIT-licensed library built for free-for-all games of any number of players with
  ties (a rank per seat; equal ranks are a tie). Each rating is a belief ``mu ±
  sigma`` about the player's skill; new players start at 25 ± 8.33 and sigma shrinks
  as games are played. Leaderboards sort by the conservative estimate ``mu − 3σ``
  (:func:`ordinal`), so one lucky win does not top the board.

Placement (:func:`placements`): the engine's winners share first place (its
tie-breaks, such as reindeer in Santa's Workshop, are already applied); every other
seat places after everyone with a higher score, and equal scores tie.

Identities (:func:`identity_of`): a human is rated as themself (their Discord user
id); a computer seat is rated as its *level* (``ai:strong``), so each level has one
visible strength. When one level holds several seats of a game, each seat is rated
from the level's rating before the game and the level's new rating is the mean of
those seats' results (the level is one player that happened to sit twice).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

AI_IDENTITY_PREFIX = "ai:"
DEFAULT_AI_LEVEL = "greedy"
"""A computer seat without a stored level plays at this one (``tables.service`` uses it)."""

MODEL = PlackettLuce()
"""OpenSkill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300."""
INITIAL_MU: float = MODEL.mu
INITIAL_SIGMA: float = MODEL.sigma


@dataclass(frozen=True)
class Rating:
    """A belief about a player's skill: ``mu`` (the estimate) ± ``sigma`` (its doubt)."""

    mu: float = INITIAL_MU
    sigma: float = INITIAL_SIGMA
    games: int = 0
    """Games that changed this rating."""

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)


def ordinal(mu: float, sigma: float) -> float:
    """The conservative estimate leaderboards sort by: the skill is very likely above it.

    >>> round(ordinal(25.0, 25 / 3), 6)
    0.0
    """
    return mu - 3 * sigma


@dataclass(frozen=True)
class SeatResult:
    """One seat of a finished game, as rated and as counted by ``/stats``."""

    position: int
    identity: str
    user_id: int | None
    score: int
    placement: int
    """1 for the winners; otherwise 1 + the number of seats that did better."""
    won: bool
    strategy: str | None
    """The seat's favourite choice in this game (see :func:`strategies`), if the game has one."""


def identity_of(user_id: int | None, level: str | None) -> str:
    """Who a seat's result counts for: the human's user id, or the computer's level.

    >>> identity_of(42, None), identity_of(None, "strong"), identity_of(None, None)
    ('42', 'ai:strong', 'ai:greedy')
    """
    if user_id is not None:
        return str(user_id)
    return f"{AI_IDENTITY_PREFIX}{level or DEFAULT_AI_LEVEL}"


def is_computer(identity: str) -> bool:
    return identity.startswith(AI_IDENTITY_PREFIX)


def placements(
    players: Sequence[str], scores: Mapping[str, int], winners: Iterable[str]
) -> list[int]:
    """Each player's place (1 = first); the winners share 1, equal scores share a place.

    >>> placements(["a", "b", "c", "d"], {"a": 9, "b": 12, "c": 9, "d": 12}, ["b"])
    [3, 1, 3, 2]
    """
    won = set(winners)
    key = {p: (p in won, scores.get(p, 0)) for p in players}
    return [1 + sum(1 for q in players if key[q] > key[p]) for p in players]


# --------------------------------------------------------------------------- strategies


def _workshop_stations(
    players: Sequence[str],
    outcome: Mapping[str, Any],
    actions: Sequence[tuple[str, Mapping[str, Any]]],
) -> dict[str, Counter[str]]:
    """Santa's Workshop: how often each player placed an Elf on each station."""
    uses: dict[str, Counter[str]] = {p: Counter() for p in players}
    for player, action in actions:
        if action.get("kind") == "place_elf" and player in uses:
            uses[player][str(action.get("station"))] += 1
    return uses


def _tonttu_categories(
    players: Sequence[str],
    outcome: Mapping[str, Any],
    actions: Sequence[tuple[str, Mapping[str, Any]]],
) -> dict[str, Counter[str]]:
    """Workshop Tonttu: how many gifts of each category each player completed."""
    detail = outcome.get("players") or {}
    return {
        p: Counter(str(gift.get("category")) for gift in (detail.get(p) or {}).get("gifts", []))
        for p in players
    }


Strategy = Callable[
    [Sequence[str], Mapping[str, Any], Sequence[tuple[str, Mapping[str, Any]]]],
    dict[str, Counter[str]],
]


@dataclass(frozen=True)
class StrategyKind:
    """What a game calls a player's favourite, and how to count it."""

    title: str
    """E.g. "Favourite station"."""
    count: Strategy
    labels: Mapping[str, str]
    """Stored key → what to show; a key missing here is shown as it is."""
    needs_log: bool


def _workshop_labels() -> Mapping[str, str]:
    from engine.workshop.rules import STATION_NAMES

    return STATION_NAMES


STRATEGY_KINDS: dict[str, Callable[[], StrategyKind]] = {
    "workshop": lambda: StrategyKind(
        "Favourite station", _workshop_stations, _workshop_labels(), True
    ),
    "tonttu": lambda: StrategyKind("Favourite gifts", _tonttu_categories, {}, False),
}
"""Games that expose a favourite strategy; another game simply has none."""


def strategy_kind(kind: str) -> StrategyKind | None:
    make = STRATEGY_KINDS.get(kind)
    return None if make is None else make()


def strategies(
    kind: str,
    players: Sequence[str],
    outcome: Mapping[str, Any],
    actions: Sequence[tuple[str, Mapping[str, Any]]] = (),
) -> dict[str, str | None]:
    """Each player's most-used choice in one game (ties: the first in sorted order),
    ``None`` when the game exposes no strategy or the player made no such choice."""
    strategy = strategy_kind(kind)
    if strategy is None:
        return dict.fromkeys(players)
    counts = strategy.count(players, outcome, actions)
    favourite: dict[str, str | None] = {}
    for player in players:
        uses = counts.get(player) or Counter()
        favourite[player] = min(uses, key=lambda key: (-uses[key], key)) if uses else None
    return favourite


def strategy_label(kind: str, key: str) -> str:
    strategy = strategy_kind(kind)
    return key if strategy is None else strategy.labels.get(key, key)


# --------------------------------------------------------------------------- rating


def seat_results(
    kind: str,
    seats: Sequence[tuple[int, str, int | None, str | None]],
    outcome: Mapping[str, Any],
    actions: Sequence[tuple[str, Mapping[str, Any]]] = (),
) -> list[SeatResult]:
    """The seats of a finished game (``(position, player, user_id, level)`` each, in seat
    order) with their score, place and favourite, from the engine's stored outcome."""
    players = [player for _position, player, _user, _level in seats]
    scores = {str(p): int(s) for p, s in (outcome.get("scores") or {}).items()}
    places = placements(players, scores, outcome.get("winners") or ())
    winners = set(outcome.get("winners") or ())
    favourite = strategies(kind, players, outcome, actions)
    return [
        SeatResult(
            position=position,
            identity=identity_of(user_id, level),
            user_id=user_id,
            score=scores.get(player, 0),
            placement=place,
            won=player in winners,
            strategy=favourite[player],
        )
        for (position, player, user_id, level), place in zip(seats, places, strict=True)
    ]


def rate_game(results: Sequence[SeatResult], before: Mapping[str, Rating]) -> dict[str, Rating]:
    """The new rating of every identity at the table, from their ratings ``before`` the
    game (an identity missing there starts at the default).

    >>> after = rate_game([SeatResult(0, "1", 1, 30, 1, True, None),
    ...                    SeatResult(1, "2", 2, 20, 2, False, None)], {})
    >>> after["1"].mu > INITIAL_MU > after["2"].mu, after["1"].games
    (True, 1)
    """
    if len({r.identity for r in results}) < 2:
        return {}  # nobody to be compared with: the game tells nothing about skill
    prior = {r.identity: before.get(r.identity, Rating()) for r in results}
    teams = [
        [MODEL.rating(mu=prior[r.identity].mu, sigma=prior[r.identity].sigma)] for r in results
    ]
    rated = MODEL.rate(teams, ranks=[float(r.placement) for r in results])
    seats_of: dict[str, list[tuple[float, float]]] = {}
    for result, (new,) in zip(results, rated, strict=True):
        seats_of.setdefault(result.identity, []).append((float(new.mu), float(new.sigma)))
    after = {}
    for identity, outcomes in seats_of.items():
        mu = sum(m for m, _s in outcomes) / len(outcomes)
        sigma = sum(s for _m, s in outcomes) / len(outcomes)
        after[identity] = Rating(mu, sigma, prior[identity].games + 1)
    return after
