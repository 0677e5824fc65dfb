"""engine.ratings: placements, identities, favourite strategies and the rating update."""

from __future__ import annotations

import random

from engine import get_game
from engine.ratings import (
    DEFAULT_AI_LEVEL as RATED_DEFAULT_LEVEL,
)
from engine.ratings import (
    INITIAL_MU,
    INITIAL_SIGMA,
    Rating,
    SeatResult,
    identity_of,
    is_computer,
    placements,
    rate_game,
    seat_results,
    strategies,
    strategy_label,
)
from tables.service import DEFAULT_AI_LEVEL


def seat(position: int, identity: str, placement: int, score: int = 0) -> SeatResult:
    return SeatResult(position, identity, None, score, placement, placement == 1, None)


def test_a_winners_rating_rises_and_a_losers_falls() -> None:
    after = rate_game([seat(0, "a", 1), seat(1, "b", 2), seat(2, "c", 3)], {})
    assert after["a"].mu > INITIAL_MU > after["c"].mu
    assert after["a"].mu > after["b"].mu > after["c"].mu
    assert all(rating.sigma < INITIAL_SIGMA for rating in after.values())  # more certain
    assert all(rating.games == 1 for rating in after.values())


def test_beating_a_stronger_player_gains_more() -> None:
    strong, even = Rating(35.0, 3.0, 20), Rating(25.0, 3.0, 20)
    upset = rate_game([seat(0, "a", 1), seat(1, "b", 2)], {"a": even, "b": strong})
    expected = rate_game([seat(0, "a", 1), seat(1, "b", 2)], {"a": even, "b": even})
    assert upset["a"].mu - even.mu > expected["a"].mu - even.mu > 0
    assert upset["a"].games == 21


def test_a_tie_moves_equal_players_equally() -> None:
    after = rate_game([seat(0, "a", 1), seat(1, "b", 1), seat(2, "c", 3)], {})
    assert after["a"] == after["b"]
    assert after["a"].mu > after["c"].mu
    # A two-player tie between equals changes the estimates by nothing at all.
    drawn = rate_game([seat(0, "a", 1), seat(1, "b", 1)], {})
    assert abs(drawn["a"].mu - INITIAL_MU) < 1e-9 and drawn["a"] == drawn["b"]


def test_placements_put_the_winners_first_and_tie_equal_scores() -> None:
    # b and d have the same score, but the engine's tie-break made b the only winner.
    assert placements(["a", "b", "c", "d"], {"a": 9, "b": 12, "c": 9, "d": 12}, ["b"]) == [
        3,
        1,
        3,
        2,
    ]
    assert placements(["a", "b"], {"a": 5, "b": 5}, ["a", "b"]) == [1, 1]


def test_computers_are_rated_by_level_and_humans_by_id() -> None:
    assert identity_of(7, None) == "7" and not is_computer("7")
    assert identity_of(None, "strong") == "ai:strong" and is_computer("ai:strong")
    # A seat without a level plays at the bot's default level, and is rated as it.
    assert identity_of(None, None) == f"ai:{DEFAULT_AI_LEVEL}"
    assert RATED_DEFAULT_LEVEL == DEFAULT_AI_LEVEL


def test_one_level_in_two_seats_is_one_player_with_the_mean_result() -> None:
    results = [seat(0, "ai:greedy", 1), seat(1, "7", 2), seat(2, "ai:greedy", 3)]
    after = rate_game(results, {})
    assert set(after) == {"ai:greedy", "7"}
    first = rate_game([seat(0, "x", 1), seat(1, "7", 2), seat(2, "y", 3)], {})
    assert abs(after["ai:greedy"].mu - (first["x"].mu + first["y"].mu) / 2) < 1e-9
    assert after["ai:greedy"].games == 1
    # Alone at the table (or only against itself) nothing is learnt.
    assert rate_game([seat(0, "ai:greedy", 1), seat(1, "ai:greedy", 2)], {}) == {}
    assert rate_game([], {}) == {}


def test_the_rating_is_a_pure_function_of_its_inputs() -> None:
    rng = random.Random(3)
    ratings: dict[str, Rating] = {}
    for _game in range(30):
        people = rng.sample("abcdef", rng.randint(2, 4))
        places = [rng.randint(1, len(people)) for _ in people]
        results = [
            seat(i, p, place) for i, (p, place) in enumerate(zip(people, places, strict=True))
        ]
        again = rate_game(results, dict(ratings))
        assert rate_game(results, dict(ratings)) == again
        ratings.update(again)
    assert sum(rating.games for rating in ratings.values()) > 60


def test_seat_results_and_favourites_of_a_real_workshop_game() -> None:
    rules = get_game("workshop")
    rng = random.Random(5)
    state = rules.new_game(["1", "ai:1"], 5, rules.parse_options(None))
    actions = []
    while (outcome := rules.outcome(state)) is None:
        player = sorted(rules.to_act(state))[0]
        action = rng.choice(list(rules.legal_actions(state, player)))
        actions.append((player, action.model_dump(mode="json")))
        state, _events = rules.apply(state, player, action)
    stored = outcome.model_dump(mode="json")
    results = seat_results(
        "workshop", [(0, "1", 1, None), (1, "ai:1", None, "strong")], stored, actions
    )
    assert [r.identity for r in results] == ["1", "ai:strong"]
    assert [r.score for r in results] == [outcome.scores["1"], outcome.scores["ai:1"]]
    assert [r.won for r in results] == [p in outcome.winners for p in ("1", "ai:1")]
    for result, player in zip(results, ("1", "ai:1"), strict=True):
        stations = [a["station"] for p, a in actions if p == player and a["kind"] == "place_elf"]
        most = max(stations.count(s) for s in stations)
        assert result.strategy is not None and stations.count(result.strategy) == most
    assert strategy_label("workshop", "wood") == "Wood Shop"


def test_tonttu_favourites_come_from_the_outcome_and_other_games_have_none() -> None:
    outcome = {
        "scores": {"1": 9, "2": 4},
        "winners": ["1"],
        "players": {
            "1": {"gifts": [{"name": "Doll", "category": "Toys"}] * 2},
            "2": {"gifts": []},
        },
    }
    assert strategies("tonttu", ["1", "2"], outcome) == {"1": "Toys", "2": None}
    assert strategies("race", ["1", "2"], outcome) == {"1": None, "2": None}
