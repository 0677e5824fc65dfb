"""The board of a finished Santa's Workshop game names its winner(s) (W-6.2) and no longer
speaks of the inspection, in both languages; the board and every player's panel."""

from __future__ import annotations

import pytest

import i18n
from engine.workshop import GAME as WORKSHOP
from render import workshop
from tests.render.layout import recording
from tests.render.states import POSITIONS, names


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("key", ["workshop-2p-end", "workshop-5p-end"])
def test_the_final_board_names_the_winner(
    key: str, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game, state = POSITIONS[key]()
    words = i18n.words(lang)
    table = names(len(state.players))
    outcome = WORKSHOP.outcome(state)
    assert outcome is not None
    view = game.view(state, None)
    with recording(monkeypatch) as layouts:
        workshop.draw_board(view, table, words)
        for player in state.players:
            workshop.draw_private(game.view(state, player), table, words)
    board = layouts[0].texts
    winners = ", ".join(table[p] for p in outcome.winners)
    said = words.ngettext(
        "Game over · winner: {winners}",
        "Game over · winners: {winners}",
        2 if len(outcome.winners) > 1 else 1,
    ).format(winners=winners)
    best = max(p.score for p in view.players)
    if sum(p.score == best for p in view.players) == 1:
        assert said in board
        assert board.count(words.gettext("winner")) == 1  # the winner's row says so
    waiting = words.gettext("no completed toys awaiting inspection")
    for layout in layouts:
        assert not any(waiting in text for text in layout.texts)
        assert not any("top score" in text or "Höchststand" in text for text in layout.texts)


def test_a_tie_on_points_says_the_reindeer_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    """Players tied on points are split by reindeer points (W-6.2), which the public view
    does not show: the board names the tied players and says what decides."""
    game, state = POSITIONS["workshop-2p-end"]()
    view = game.view(state, None)
    best = max(p.score for p in view.players)
    tied = view.model_copy(
        update={"players": [p.model_copy(update={"score": best}) for p in view.players]}
    )
    with recording(monkeypatch) as layouts:
        workshop.draw_board(tied, names(2))
    status = " ".join(layouts[0].texts)
    assert f"tied on {best} points: Aino, Bertil" in status
    assert "winner" not in status
