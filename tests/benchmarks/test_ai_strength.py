"""The ai_strength benchmark plays the same games in several processes as in one
(``--jobs``)."""

from benchmarks.ai_strength import run_line
from engine.ai import Budget

TINY = Budget(actions=150, candidates=3, epsilon=0.0, horizon=8, halving=True)


def test_jobs_split_the_games_and_add_up_to_the_same_figures() -> None:
    line = ("tonttu", "strong", "greedy", 5, 7, "tactical")
    alone = run_line(*line, start=2, budget=TINY)
    split = run_line(*line, start=2, budget=TINY, jobs=2)
    assert (split["jobs"], alone["jobs"]) == (2, 1)
    same = ("games", "first_game", "wins", "win_rate", "mean_margin")
    assert {k: split[k] for k in same} == {k: alone[k] for k in same}
    assert split["strong_decisions"] == alone["strong_decisions"] > 0
    assert split["greedy_decisions"] == alone["greedy_decisions"] > 0
    # games that part: a game lost or counted twice would show in the wins
    assert 0 < float(alone["wins"]) < 5
