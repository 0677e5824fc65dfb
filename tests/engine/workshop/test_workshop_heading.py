"""The Workshop board's heading says what the player to act may do, as the menu offers
it: no "(or stop)" before the first toy card or donated token (W-3.2, W-3.3), and one
Material of choice in the singular."""

from __future__ import annotations

from workshop_positions import start, toy, with_seat

from engine.words import listed
from engine.workshop import GAME
from engine.workshop.models import StopTaking, WorkshopState


def heading(state: WorkshopState) -> str:
    return GAME.render_text(GAME.view(state, "ann"), {"ann": "Ann", "bob": "Bob"}).split("\n")[1]


def test_stop_is_mentioned_only_when_the_menu_offers_it() -> None:
    mail = start(players=2, first=0).model_copy(update={"phase": 1, "station": 5, "mail_left": 3})
    assert StopTaking() not in GAME.legal_actions(mail, "ann")
    assert "to take a toy card;" in heading(mail)
    taken = mail.model_copy(update={"taken": 1, "mail_left": 2})
    assert StopTaking() in GAME.legal_actions(taken, "ann")
    assert "to take a toy card (or stop);" in heading(taken)

    donation = with_seat(start(players=2, first=0), 0, toys=(toy("Kite"),)).model_copy(
        update={"phase": 7, "station": 4, "donation": (1, 0, 1, 0)}
    )
    assert StopTaking() not in GAME.legal_actions(donation, "ann")
    assert "to take a donated token;" in heading(donation)
    assert "(or stop)" in heading(donation.model_copy(update={"taken": 1}))


def test_one_material_of_choice_is_singular() -> None:
    state = start(players=2, first=0).model_copy(update={"phase": 3, "to_choose": 1})
    text = GAME.render_text(GAME.view(state, "ann"), {"ann": "Ann", "bob": "Bob"})
    assert "1 Material of choice to name" in text
    more = GAME.render_text(GAME.view(state.model_copy(update={"to_choose": 2}), "ann"), {})
    assert "2 Materials of choice to name" in more


def test_lists_read_as_people_write_them() -> None:
    assert [listed(x) for x in ([], ["A"], ["A", "B"], ["A", "B", "C"])] == [
        "",
        "A",
        "A and B",
        "A, B and C",
    ]
