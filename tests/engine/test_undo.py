"""The undo rule over random games of both kinds (``engine.undo``).

Properties:
- undoing to any allowed point and replaying the same decisions gives an identical
  state (and the same events);
- no undo is ever offered across a step that used the RNG or revealed hidden
  information: each step inside an offered window leaves the RNG as it was, and
  gives every viewer the same view when the secrets (W-7.3: deck orders, the
  rewards of face-down ornaments; the RNG) are resampled before it;
- Workshop Tonttu never offers an undo (T-2.1, T-2.2: choices are changed by
  choosing again; a reveal is never crossed).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import i18n
from engine import get_game
from engine.core import Rng
from engine.records import pick_random
from engine.undo import History, TookBack, Undo, describe_event, effective_actions, replay

WORKSHOP = get_game("workshop")
TONTTU = get_game("tonttu")


def resampled_secrets(state: Any, rng: Rng) -> Any:
    """The Workshop state with its secrets (W-7.3) redrawn: what no viewer can tell apart."""
    return state.model_copy(
        update={
            "deck": rng.shuffled(state.deck),
            "reindeer_deck": rng.shuffled(state.reindeer_deck),
            "ornaments": tuple(rng.shuffled(left) for left in state.ornaments),
            "rng": rng.next64(),
        }
    )


def viewers(state: Any) -> list[str | None]:
    return [*state.players, None]


def check_reveals_nothing(step: Any, rng: Rng) -> None:
    """A step inside an offered window: same RNG; and applied to a state whose secrets
    were redrawn, every viewer sees the same as after the real step."""
    assert step.before.rng == step.after.rng
    other = resampled_secrets(step.before, rng)
    for viewer in viewers(step.before):
        assert WORKSHOP.view(other, viewer) == WORKSHOP.view(step.before, viewer)
    other_after, _ = WORKSHOP.apply(other, step.player, step.action)
    for viewer in viewers(step.before):
        assert WORKSHOP.view(other_after, viewer) == WORKSHOP.view(step.after, viewer)


def check_undo_and_replay(history: History, player: str) -> None:
    """Take back 1..window decisions on a copy, then replay them: identical state."""
    window = history.window(player)
    for depth in range(1, window + 1):
        steps = history.steps[-depth:]
        copy = History(history.game, history.steps[0].before, history.steps[0].seq - 1)
        for step in history.steps:
            copy.apply(step.seq, step.player, step.action)
        assert copy.state.model_dump() == history.state.model_dump()
        seq = copy.version
        for _ in range(depth):
            seq += 1
            copy.apply(seq, player, Undo(seq=copy.steps[-1].seq))
        assert copy.state.model_dump() == steps[0].before.model_dump()
        for step in steps:
            seq += 1
            events = copy.apply(seq, step.player, step.action)
            assert list(events) == list(step.events)
        assert copy.state.model_dump_json() == history.state.model_dump_json()


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    players=st.integers(min_value=2, max_value=5),
    probe=st.integers(min_value=3, max_value=9),
)
def test_workshop_undo_replays_exactly_and_reveals_nothing(
    seed: int, players: int, probe: int
) -> None:
    seats = [f"p{i}" for i in range(players)]
    history = History(WORKSHOP, WORKSHOP.new_game(seats, seed, WORKSHOP.parse_options(None)))
    rng = Rng(seed ^ 0xABC)
    offered = 0
    checked: set[int] = set()
    while WORKSHOP.outcome(history.state) is None:
        player, action = pick_random(WORKSHOP, history.state, rng)
        history.apply(history.version + 1, player, action)
        for seat in seats:
            window = history.window(seat)
            if window == 0:
                continue
            offered += 1
            assert seat == player  # (a): only the one who just acted
            for step in history.steps[-window:]:
                assert step.player == seat
                if step.seq not in checked:
                    checked.add(step.seq)
                    check_reveals_nothing(step, rng)
            if history.version % probe == 0:
                check_undo_and_replay(history, seat)
    assert offered > 0  # every game has shop placements that wait for tokens


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    players=st.integers(min_value=3, max_value=6),
    speed=st.booleans(),
)
def test_tonttu_never_offers_an_undo(seed: int, players: int, speed: bool) -> None:
    seats = [f"p{i}" for i in range(players)]
    options = TONTTU.parse_options({"mode": "speed"} if speed else None)
    history = History(TONTTU, TONTTU.new_game(seats, seed, options))
    rng = Rng(seed)
    while TONTTU.outcome(history.state) is None:
        player, action = pick_random(TONTTU, history.state, rng)
        history.apply(history.version + 1, player, action)
        assert all(history.window(seat) == 0 for seat in seats)
        if TONTTU.outcome(history.state) is None:
            assert history.refusal(player) == TONTTU.undo_never  # type: ignore[attr-defined]
        assert len(history.steps) <= 1  # every step closes the window: nothing is kept


class WithoutHook:
    """A game as ``inner`` but without the undo hook: only the generic rule judges."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.title = inner.title

    def __getattr__(self, name: str) -> Any:
        if name in ("undo_block", "undo_never"):
            raise AttributeError(name)
        return getattr(self.inner, name)


def test_effective_actions_leave_out_undos_and_what_they_took_back() -> None:
    seats = ["a", "b"]
    state = WORKSHOP.new_game(seats, 3, WORKSHOP.parse_options(None))
    rng = Rng(9)
    history = History(WORKSHOP, state)
    log: list[SimpleNamespace] = []

    def add(player: str, action: Any) -> None:
        history.apply(history.version + 1, player, action)
        log.append(
            SimpleNamespace(
                seq=history.version, player=player, action=action.model_dump(mode="json")
            )
        )

    undos = 0
    while len(log) < 150:
        player, action = pick_random(WORKSHOP, history.state, rng)
        add(player, action)
        if history.window(player) and rng.below(2):
            add(player, Undo(seq=history.steps[-1].seq))
            undos += 1
    assert undos > 0
    standing = effective_actions(log)
    assert all(entry.action["kind"] != "undo" for entry in standing)
    assert len(standing) == len(log) - 2 * undos
    # replaying only the standing decisions gives the same state as the log with undos
    plain = WORKSHOP.new_game(seats, 3, WORKSHOP.parse_options(None))
    for entry in standing:
        plain, _ = WORKSHOP.apply(plain, entry.player, WORKSHOP.parse_action(entry.action))
    assert plain.model_dump() == history.state.model_dump()
    assert replay(WORKSHOP, state, log).state.model_dump() == history.state.model_dump()


def test_effective_actions_refuse_a_damaged_log() -> None:
    log = [
        SimpleNamespace(seq=1, player="a", action={"kind": "x"}),
        SimpleNamespace(seq=2, player="b", action={"kind": "undo", "seq": 1}),
    ]
    with pytest.raises(ValueError, match="not the latest standing decision of b"):
        effective_actions(log)


def test_a_game_without_the_hook_has_no_undo() -> None:
    game: Any = WithoutHook(WORKSHOP)
    game.title = "Plain"
    state = WORKSHOP.new_game(["a", "b"], 1, WORKSHOP.parse_options(None))
    history = History(game, state)
    player = next(iter(WORKSHOP.to_act(state)))
    history.apply(1, player, WORKSHOP.legal_actions(state, player)[0])
    assert history.window(player) == 0
    assert history.refusal(player) == "Plain has no undo."


class _Lines:
    """A game whose log lines are "<name> did <n>", for the undo's own line."""

    def describe_event(self, event: Any, names: Any, words: Any = None) -> str:
        return f"{names.get(event['player'], event['player'])} did {event['n']}."

    def parse_event(self, data: Any) -> Any:
        return data


def test_an_undos_log_line_in_english_and_german() -> None:
    """The line "Aino took back: …" is a template; "You" (a player's own panel) too."""
    game: Any = _Lines()
    took = TookBack(player="a", seq=3, events=[{"player": "a", "n": 1}])
    nothing = TookBack(player="a", seq=3, events=[])
    de = i18n.words("de")
    assert describe_event(game, took, {"a": "Aino"}) == "Aino took back: did 1."
    assert describe_event(game, took, {"a": "Aino"}, de) == "Aino nimmt zurück: did 1."
    assert describe_event(game, took, {"a": "You"}) == "You took back: did 1."
    assert describe_event(game, took, {"a": "You"}, de) == "Du nimmst zurück: did 1."
    assert describe_event(game, nothing, {"a": "Aino"}) == "Aino took back: their last decision."
    assert describe_event(game, nothing, {"a": "Aino"}, de) == (
        "Aino nimmt die letzte Entscheidung zurück."
    )
    assert describe_event(game, nothing, {"a": "You"}, de) == (
        "Du nimmst deine letzte Entscheidung zurück."
    )
