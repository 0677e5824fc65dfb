"""The score timeline of a finished game (engine/timeline.py), for both games.

Each point of the series is checked against a count made another way, from the events
the same decisions produce: Workshop's ``scored`` events (W-6.3: the final score is the
sum of a player's score events) up to the end of each day (W-2.1, W-2.3); Tonttu's gifts
won up to the end of each round (T-2.3), scored by T-5.1 and T-5.2. The last point must
equal the engine's final scores."""

from __future__ import annotations

from typing import Any

import pytest

from engine import get_game
from engine.core import Rng
from engine.records import Record, RecordedAction, random_playout, replay
from engine.timeline import (
    Stages,
    Timeline,
    record_timeline,
    register_stages,
    score_timeline,
    stages_of,
)

GAMES = [
    ("workshop", 2, 11),
    ("workshop", 3, 12),
    ("workshop", 5, 13),
    ("tonttu", 3, 21),
    ("tonttu", 6, 22),
]
SPEED = {"mode": "speed"}


def players(n: int) -> list[str]:
    return [f"p{i}" for i in range(n)]


def events_of(record: Record) -> list[Any]:
    """Every event the record's decisions produce, in order."""
    game = get_game(record.game)
    state = game.new_game(record.players, record.seed, game.parse_options(record.options))
    events: list[Any] = []
    for step in record.actions:
        state, new = game.apply(state, step.player, game.parse_action(step.action))
        events.extend(new)
    return events


def workshop_scores_by_day(record: Record) -> list[dict[str, int]]:
    """Sums of ``scored`` events (W-6.3) at the start and at the end of each day. A day
    ends (W-2.3) with ``day_ended`` and what follows it before the next day's first Elf:
    an Inspection after Days 3 and 6 (W-5), W-6.1's final scoring after Day 6."""
    totals = dict.fromkeys(record.players, 0)
    points = [dict(totals)]
    ending = False
    for event in events_of(record):
        if event.kind == "elf_placed" and ending:
            points.append(dict(totals))
            ending = False
        if event.kind == "scored":
            totals[event.player] += event.points
        elif event.kind == "day_ended":
            ending = True
    assert ending  # the game ended with Day 6
    points.append(dict(totals))
    return points


def tonttu_scores_by_round(record: Record) -> list[dict[str, int]]:
    """Gifts won (from the reveals) scored by T-5.1 (the k-th gift is worth k) and T-5.2
    (+3 per set of one Toys, one Clothing, one Decorations), at each ``round_ended``."""
    won: dict[str, list[str]] = {p: [] for p in record.players}

    def score(categories: list[str]) -> int:
        n = len(categories)
        sets = min(categories.count(c) for c in ("Toys", "Clothing", "Decorations"))
        return n * (n + 1) // 2 + 3 * sets

    points = [dict.fromkeys(record.players, 0)]
    for event in events_of(record):
        results = []
        if event.kind == "points_revealed":
            results = event.gifts
        elif event.kind == "speed_point" and event.gift is not None:
            results = [event.gift]
        for result in results:
            if result.result == "won":
                won[result.winner].append(result.category)
        if event.kind == "round_ended":
            points.append({p: score(c) for p, c in won.items()})
    return points


@pytest.mark.parametrize(("kind", "n", "seed"), GAMES)
def test_each_point_is_the_score_after_that_day_or_round(kind: str, n: int, seed: int) -> None:
    game = get_game(kind)
    final_state, record = random_playout(game, players(n), seed)
    timeline = record_timeline(game, record)
    expected = (
        workshop_scores_by_day(record) if kind == "workshop" else tonttu_scores_by_round(record)
    )
    drawn = [{p: timeline.scores[p][k] for p in timeline.players} for k in range(len(expected))]
    assert drawn == expected
    assert timeline.stages == tuple(range(len(expected)))
    outcome = game.outcome(final_state)
    assert outcome is not None
    assert timeline.final == outcome.scores  # the series ends with the final scores
    assert list(timeline.winners) == outcome.winners
    assert timeline.players == tuple(players(n))


def test_a_running_games_partial_record_has_no_timeline() -> None:
    game = get_game("workshop")
    _, record = random_playout(game, players(3), 5)
    with pytest.raises(ValueError, match="no seed"):
        record_timeline(game, record.model_copy(update={"seed": None}))


def test_a_workshop_game_has_a_point_for_the_start_and_each_of_its_six_days() -> None:
    """W-2.1: 6 days."""
    game = get_game("workshop")
    _, record = random_playout(game, players(4), 5)
    timeline = record_timeline(game, record)
    assert timeline.unit == "Day" and timeline.stages == (0, 1, 2, 3, 4, 5, 6)
    assert all(series[0] == 0 for series in timeline.scores.values())


def test_a_tonttu_game_has_a_point_for_each_round_it_played() -> None:
    """T-2.3: the round number moves on at each round's end but the last."""
    game = get_game("tonttu")
    final_state, record = random_playout(game, players(4), 8, SPEED)
    timeline = record_timeline(game, record)
    assert timeline.unit == "Round"
    assert timeline.stages == tuple(range(final_state.round + 1))
    assert timeline.final == game.outcome(final_state).scores


@pytest.mark.parametrize(("kind", "n", "seed"), GAMES)
def test_the_breakdown_adds_up_to_each_final_score(kind: str, n: int, seed: int) -> None:
    """W-6.3 (the final score is the sum of the score events, by reason); T-5.1 + T-5.2."""
    game = get_game(kind)
    final_state, record = random_playout(game, players(n), seed)
    timeline = record_timeline(game, record)
    outcome = game.outcome(final_state)
    assert outcome is not None
    assert {p: sum(parts.values()) for p, parts in timeline.breakdown.items()} == outcome.scores
    if kind == "workshop":
        assert list(timeline.breakdown["p0"]) == [
            "toy",
            "cooperation",
            "donation",
            "ornament",
            "tree",
            "inspection",
            "unfinished",
            "reindeer",
        ]
    else:
        assert list(timeline.breakdown["p0"]) == ["gifts", "sets"]


@pytest.mark.parametrize("kind", ["workshop", "tonttu"])
def test_scores_never_go_down(kind: str) -> None:
    """Every change of score is a gain (W-6.3's reasons; T-5's gifts only accumulate)."""
    game = get_game(kind)
    for seed in range(4):
        _, record = random_playout(game, players(3), 100 + seed)
        for series in record_timeline(game, record).scores.values():
            assert list(series) == sorted(series)


def test_decisions_may_be_models_or_the_logs_json() -> None:
    game = get_game("tonttu")
    _, record = random_playout(game, players(3), 31)
    as_json = record_timeline(game, record)
    as_models = score_timeline(
        game,
        record.players,
        record.seed,
        record.options,
        [(step.player, game.parse_action(step.action)) for step in record.actions],
    )
    assert as_models == as_json
    assert Timeline.model_validate_json(as_json.model_dump_json()) == as_json


def test_a_game_that_is_not_over_has_no_timeline() -> None:
    game = get_game("workshop")
    _, record = random_playout(game, players(2), 3)
    cut = record.model_copy(update={"actions": record.actions[:40]})
    with pytest.raises(ValueError, match="not over"):
        record_timeline(game, cut)


def test_a_decision_the_rules_refuse_is_a_rule_error() -> None:
    game = get_game("workshop")
    _, record = random_playout(game, players(2), 3)
    step = record.actions[0]
    wrong = RecordedAction(player="nobody", action=step.action)
    bad = record.model_copy(update={"actions": [wrong, *record.actions]})
    with pytest.raises(ValueError, match="not playing"):  # a RuleError is a ValueError
        record_timeline(game, bad)


def test_a_game_added_later_registers_its_stages() -> None:
    with pytest.raises(KeyError, match="known: tonttu, workshop"):
        stages_of("chess")
    workshop = stages_of("workshop")
    register_stages("workshop-copy", workshop)
    try:
        assert stages_of("workshop-copy") is workshop
    finally:
        from engine import timeline

        del timeline._STAGES["workshop-copy"]


def test_the_replay_is_the_audits_replay() -> None:
    """The timeline's last point is read from the state that ``engine.records.replay``
    reaches from the same record (the same seed plus decisions)."""
    game = get_game("workshop")
    _, record = random_playout(game, players(3), Rng(9).below(1 << 30))
    state = replay(game, record)
    assert record_timeline(game, record).final == {
        p: seat.score for p, seat in zip(state.players, state.seats, strict=True)
    }


def test_stages_is_a_small_frozen_record() -> None:
    hook = stages_of("tonttu")
    assert isinstance(hook, Stages) and hook.unit == "Round"
    with pytest.raises(AttributeError):
        hook.unit = "Turn"  # type: ignore[misc]


def test_a_speed_game_with_timer_closes_has_its_timeline() -> None:
    """T-4: the table's timer closes a speed point phase; its ``close_point_phase`` is a
    decision of the log like any other (actor ``TIMER``), and the round it ends counts."""
    from engine.core import TIMER
    from engine.records import pick_random

    game = get_game("tonttu")
    seats = players(4)
    state = game.new_game(seats, 41, game.parse_options(SPEED))
    rng = Rng(41)
    decisions: list[tuple[str, Any]] = []
    closes = 0
    while game.outcome(state) is None:
        timer = game.legal_actions(state, TIMER)
        pointed = any(choice is not None for choice in state.choices)
        if timer and pointed and rng.below(3) == 0:
            player, action = TIMER, timer[0]
            closes += 1
        else:
            player, action = pick_random(game, state, rng)
        state, _ = game.apply(state, player, action)
        decisions.append((player, action.model_dump(mode="json")))
    timeline = score_timeline(game, seats, 41, SPEED, decisions)
    assert closes > 0
    assert timeline.final == game.outcome(state).scores
    assert timeline.stages == tuple(range(state.round + 1))


def test_the_timeline_is_pure_engine() -> None:
    """engine/timeline.py loads neither Discord, storage nor the drawing library."""
    import subprocess
    import sys

    code = (
        "import sys, engine.timeline\n"
        "bad = {'discord', 'aiosqlite', 'asyncpg', 'matplotlib', 'storage', 'render', 'cogs'}\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in bad)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
