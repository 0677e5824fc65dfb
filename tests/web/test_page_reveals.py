"""The cards a Workshop Tonttu reveal turned up stay marked for a reader who has not seen
them (``web.page.unseen_events``): a computer's pick right after a reveal made the
board of the next version, and the page and the Activity, which marked only the last
move's events, showed no reveal at all."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.core import Rng
from engine.tonttu.game import GAME as TONTTU
from storage import LoggedAction
from web.page import REVEALS_BACK, unseen_events


def played_past_a_reveal() -> tuple[object, list[LoggedAction], int]:
    """A three-seat game played by random picks to its first reveal and one move after
    it: (the state, the log, the reveal's version)."""
    players = ["p1", "p2", "p3"]
    state = TONTTU.new_game(players, 7, TONTTU.parse_options({}))
    rng = Rng(7)
    log: list[LoggedAction] = []
    revealed = 0
    while not revealed or len(log) == revealed:
        (player, *_) = sorted(TONTTU.to_act(state))
        legal = TONTTU.legal_actions(state, player)
        action = legal[rng.below(len(legal))]
        state, events = TONTTU.apply(state, player, action)
        events_json = "[" + ",".join(e.model_dump_json() for e in events) + "]"
        log.append(
            LoggedAction(len(log) + 1, player, action.model_dump(), events_json, datetime.now(UTC))
        )
        if any(e.kind == "picks_revealed" for e in events):
            revealed = len(log)
    return state, log, revealed


def test_a_reveal_followed_by_a_move_is_marked_for_a_reader_who_missed_it() -> None:
    _, log, revealed = played_past_a_reveal()
    version = len(log)
    assert version == revealed + 1  # a pick or point came right after the reveal
    kinds = {e.kind for e in unseen_events("tonttu", log, version, revealed - 1)}
    assert "picks_revealed" in kinds  # shown before the reveal: it is marked
    kinds = {e.kind for e in unseen_events("tonttu", log, version, revealed)}
    assert "picks_revealed" not in kinds  # shown the reveal already
    assert "picks_revealed" not in {e.kind for e in unseen_events("tonttu", log, version, None)}
    assert unseen_events("tonttu", log, version, version) == []  # the same version again
    old = {e.kind for e in unseen_events("tonttu", log, version + REVEALS_BACK, revealed - 1)}
    assert "picks_revealed" not in old  # too long ago to animate
