"""Random playouts with invariants after every action, secrecy before a reveal, and the CLI.

1600 seeded games (200 per player count 3–6, in both modes) run with cheap
invariant checks after every action. The heavier checks — JSON round-trip of the
state, and replay (the JSON round-tripped previous state plus the JSON-parsed
action must give the same state, which avoids a quadratic replay from the seed)
— run after every action of one game in ``DEEP_EVERY`` (currently every game),
and a full replay of the JSON record from the seed runs at the end of every game.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.__main__ import main
from engine.core import TIMER, Rng
from engine.records import Record, RecordedAction, replay
from engine.tonttu import GAME
from engine.tonttu.data import DATA_FILE, MATERIAL_TYPE
from engine.tonttu.models import MATERIAL_POINT, MATERIAL_POINT_UP, TonttuState
from engine.tonttu.rules import advance

GAMES = 200
DEEP_EVERY = 1

_FILE = json.loads(DATA_FILE.read_text(encoding="utf-8"))
_CATEGORY = [g["category"] for g in _FILE["gifts"]]
_CATEGORIES = list(_FILE["categories"])


def t5_score(won: tuple[int, ...]) -> int:
    """T-5 recomputed independently from the data file."""
    counts = Counter(_CATEGORY[g] for g in won)
    return sum(range(1, len(won) + 1)) + 3 * min(counts[c] for c in _CATEGORIES)


def check_invariants(state: TonttuState) -> None:
    n = len(state.players)
    # every material card in exactly one place; 60 in all
    places: list[int] = [*state.deck, *state.discard]
    places += [c for c in state.middle_materials if c is not None]
    places += [c for c in state.face_down if c is not None]
    for hand in state.hands:
        places += hand
    for bench in state.face_up:
        places += bench
    assert len(places) == 60 and set(places) == set(range(60)), "material conservation"
    # gifts: stack + middle + won = 5 × players, each once (T-1.4)
    gifts = [*state.gift_stack, *(g for g in state.middle_gifts if g is not None)]
    for won in state.won:
        gifts += won
    assert len(gifts) == 5 * n and len(set(gifts)) == 5 * n, "gift conservation"
    # T-3.4: one face-down slot per workbench holding at most one card
    assert len(state.face_down) == n
    assert all(c is None or isinstance(c, int) for c in state.face_down)
    assert len(state.middle_gifts) == n + 1 and len(state.middle_materials) == n
    # hand sizes follow the 5-4-3-2-1 cycle (shorter only after a short deal, T-2.4)
    expected = (6 if state.phase == "pick" else 5) - state.deal_round
    sizes = [len(h) for h in state.hands]
    if state.short_deal:
        assert all(s <= expected for s in sizes), (sizes, expected)
    else:
        assert all(s == expected for s in sizes), (sizes, expected)
    # scores are the T-5 score of the gifts won
    assert list(state.scores) == [t5_score(w) for w in state.won]
    # pending choices are legal ones
    for seat, code in enumerate(state.choices):
        if code is None:
            continue
        if state.phase == "pick":
            assert code in state.hands[seat]
        elif state.phase == "point" and state.mode == "tactical":
            if code >= MATERIAL_POINT:  # T-3.1: face down (the default) or face up
                slot = code - (MATERIAL_POINT_UP if code >= MATERIAL_POINT_UP else MATERIAL_POINT)
                assert state.middle_materials[slot] is not None
            else:
                assert code in state.middle_gifts


def choose_move(state: TonttuState, rng: Rng) -> tuple[str, Any]:
    """Random, but also exercises replaced choices (tactical) and the timer (speed)."""
    roll = rng.below(100)
    if state.phase == "point" and state.mode == "speed" and roll < 3:
        player = TIMER
    else:
        acting = GAME.to_act(state)
        chosen = [p for p, c in zip(state.players, state.choices, strict=True) if c is not None]
        if state.mode == "tactical" and chosen and roll < 15:
            player = chosen[rng.below(len(chosen))]  # change one's mind (T-2.1, T-2.2)
        else:
            seats = [p for p in state.players if p in acting]
            player = seats[rng.below(len(seats))]
    legal = GAME.legal_actions(state, player)
    assert legal, f"{player} must have a legal action"
    return player, legal[rng.below(len(legal))]


def play(n: int, mode: str, seed: int, *, deep: bool, stats: Counter[str]) -> None:
    players = [f"p{i}" for i in range(n)]
    options = GAME.parse_options({"mode": mode})
    state = GAME.new_game(players, seed, options)
    check_invariants(state)
    rng = Rng(seed ^ 0x7077)
    actions: list[RecordedAction] = []
    while GAME.outcome(state) is None:
        player, action = choose_move(state, rng)
        before = state
        state, events = GAME.apply(state, player, action)
        check_invariants(state)
        # the computer players' search applies moves without their events: same state
        assert advance(before, player, action) == state
        if before.phase == "pick" and state.phase == "point":  # T-2.1: each pick leaves a hand
            assert [len(h) for h in state.hands] == [max(len(h) - 1, 0) for h in before.hands]
        action_json = action.model_dump(mode="json")
        actions.append(RecordedAction(player=player, action=action_json))
        for event in events:
            stats[event.kind] += 1
            for result in [*getattr(event, "gifts", []), getattr(event, "gift", None)]:
                if result is not None:
                    stats["gift_" + result.result + ("_contested" if result.offers else "")] += 1
        if state.short_deal:
            stats["short_deal"] += 1
        if deep:
            assert GAME.parse_state(state.model_dump_json()) == state
            shadow = GAME.parse_state(before.model_dump_json())
            shadow, _ = GAME.apply(shadow, player, GAME.parse_action(json.dumps(action_json)))
            assert shadow == state
            for event in events:
                assert GAME.describe_event(event, {})
                assert type(event).model_validate_json(event.model_dump_json()) == event
    stats["end_" + str(state.end_reason)] += 1
    outcome = GAME.outcome(state)
    assert outcome is not None
    record = Record(
        game="tonttu",
        seed=seed,
        players=players,
        options=options.model_dump(mode="json"),
        actions=actions,
        outcome=outcome.model_dump(mode="json"),
    )
    assert replay(GAME, Record.model_validate_json(record.model_dump_json())) == state
    assert outcome.scores == dict(zip(players, map(t5_score, state.won), strict=True))
    best = max((s, len(w)) for s, w in zip(state.scores, state.won, strict=True))
    assert outcome.winners == [
        p for p, s, w in zip(players, state.scores, state.won, strict=True) if (s, len(w)) == best
    ]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["tactical", "speed"])
@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_random_playouts_keep_every_invariant(n: int, mode: str) -> None:
    stats: Counter[str] = Counter()
    for index in range(GAMES):
        play(n, mode, 1000 * n + index, deep=index % DEEP_EVERY == 0, stats=stats)
    assert stats["end_gift_stack_empty"] > 0 and stats["gift_won"] > 0
    if mode == "tactical":
        assert stats["gift_tie_contested"] > 0 and stats["gift_won_contested"] > 0
    else:
        assert stats["gift_wasted"] > 0 and stats["point_phase_closed"] > 0


# --------------------------------------------------------------------------- T-6 before reveal


def _other_choice(state: TonttuState, seat: int) -> int:
    """A different legal pending choice for ``seat`` in the current phase."""
    current = state.choices[seat]
    if state.phase == "pick":  # a card of another type: same-type cards are alike
        kind = MATERIAL_TYPE[current] if current is not None else -1
        return next(c for c in state.hands[seat] if MATERIAL_TYPE[c] != kind)
    return next(g for g in state.middle_gifts if g is not None and g != current)


@pytest.mark.parametrize("mode", ["tactical", "speed"])
def test_before_a_reveal_only_the_chooser_sees_their_choice(mode: str) -> None:
    """T-6: changing a pending pick or point changes no view but the chooser's."""
    state = GAME.new_game(["a", "b", "c", "d"], 3, GAME.parse_options({"mode": mode}))
    rng = Rng(5)
    checked = 0
    while GAME.outcome(state) is None:
        secret = state.phase == "pick" or state.mode == "tactical"
        for seat, code in enumerate(state.choices):
            if code is None or not secret:
                continue
            if state.phase == "pick" and len({MATERIAL_TYPE[c] for c in state.hands[seat]}) < 2:
                continue
            chooser = state.players[seat]
            choices = list(state.choices)
            choices[seat] = _other_choice(state, seat)
            altered = state.model_copy(update={"choices": tuple(choices)})
            for viewer in [None, *state.players]:
                here = GAME.view(state, viewer).model_dump_json()
                there = GAME.view(altered, viewer).model_dump_json()
                if viewer == chooser:
                    assert here != there  # the owner does see their own choice
                else:
                    assert here == there, f"{viewer} can see {chooser}'s choice"
            checked += 1
        player, action = choose_move(state, rng)
        state, _ = GAME.apply(state, player, action)
    assert checked >= 40


# --------------------------------------------------------------------------- CLI


@pytest.mark.parametrize("mode", ["tactical", "speed"])
def test_cli_simulate_then_replay_a_record(mode: str, tmp_path: Path) -> None:
    out = io.StringIO()
    argv = ["simulate", "--game", "tonttu", "--players", "5", "--games", "3", "--mode", mode]
    assert main([*argv, "--records", str(tmp_path)], out=out) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(lines) == 4 and lines[-1]["totals"]["games"] == 3
    files = sorted(tmp_path.glob("tonttu-*.json"))
    assert len(files) == 3
    record = json.loads(files[0].read_text())
    assert record["game"] == "tonttu" and record["options"] == {"mode": mode}
    assert set(record["outcome"]) >= {"scores", "winners", "players"}
    replayed = io.StringIO()
    assert main(["replay", str(files[0])], out=replayed) == 0
    assert "Replay matches the record." in replayed.getvalue()
    # a tampered record is caught
    record["outcome"]["scores"] = {p: -1 for p in record["players"]}
    files[0].write_text(json.dumps(record))
    assert main(["replay", str(files[0])], out=io.StringIO()) == 1


def test_cli_simulate_lines_and_bench() -> None:
    out = io.StringIO()
    assert main(["simulate", "--game", "tonttu", "--players", "3", "--games", "2"], out=out) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(lines) == 3 and lines[-1]["totals"]["games"] == 2
    bench = io.StringIO()
    argv = ["bench", "--game", "tonttu", "--players", "4", "--games", "3", "--mode", "speed"]
    assert main(argv, out=bench) == 0
    figures = json.loads(bench.getvalue())
    assert figures["game"] == "tonttu" and figures["options"] == {"mode": "speed"}
    assert figures["games"] == 3 and figures["actions_per_game"] > 0


def test_cli_play_lets_a_human_pick_and_point() -> None:
    out = io.StringIO()
    answers = io.StringIO("1\n" * 400)
    assert main(["play", "--game", "tonttu", "--players", "3", "--seed", "4"], out, answers) == 0
    text = out.getvalue()
    assert "Pick " in text and "Point at " in text and "Winner: " in text
