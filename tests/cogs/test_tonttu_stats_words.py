"""The sentences of the Workshop Tonttu cog, /stats and /history in German and English:
a few exact sentences, plurals for 1 and 2, English unchanged."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import i18n
from cogs.replays import not_finished, players_only
from cogs.stats import board_lines, kind_of, no_games, shown_rating, stats_field
from cogs.tonttu.text import confirmation, phase_name
from engine.choices import ChoiceFacts, Note
from engine.ratings import Rating
from engine.tonttu.data import GIFT_NAMES, GIFT_NEEDS
from engine.tonttu.game import GAME, PhaseClosed, still_open
from engine.tonttu.models import Pick, PointGift, PointMaterial
from engine.tonttu.text import NOTES
from engine.words import ENGLISH
from storage.models import BoardEntry, KindStats

DE = i18n.words("de")


def test_a_choice_is_confirmed_in_the_readers_language() -> None:
    pick = Pick.model_validate({"material": "Wool"})
    assert confirmation("Pick Wool", pick) == "You picked Wool."
    assert confirmation("Pick Wool", pick, DE) == f"Du hast {DE.gettext('Wool')} gewählt."
    gift = PointGift(gift=0)
    needs = ", ".join(GIFT_NEEDS[0])
    label = f"Point at {GIFT_NAMES[0]} (needs {needs}) · you can pay it"
    assert confirmation(label, gift) == f"You pointed at {GIFT_NAMES[0]} (needs {needs})."
    assert confirmation(label, gift, DE).startswith("Du hast auf ")
    assert confirmation(label, gift, DE).endswith(
        " gezeigt (braucht " + ", ".join(DE.gettext(m) for m in GIFT_NEEDS[0]) + ")."
    )


@pytest.mark.parametrize(
    ("note", "english", "german"),
    [
        (
            None,
            "You pointed at face-down material 3.",
            "Du hast auf verdecktes Material 3 gezeigt.",
        ),
        (
            "keep_face_down",
            "You pointed at face-down material 3: keep it face down.",
            "Du hast auf verdecktes Material 3 gezeigt: Es bleibt verdeckt.",
        ),
        (
            "take_face_up",
            "You pointed at face-down material 3: take it face up.",
            "Du hast auf verdecktes Material 3 gezeigt: Du nimmst es offen.",
        ),
        (
            "goes_face_up",
            "You pointed at face-down material 3: it goes face up (you already have a "
            "face-down card).",
            "Du hast auf verdecktes Material 3 gezeigt: Es kommt offen dazu (du hast schon "
            "eine verdeckte Karte).",
        ),
    ],
)
def test_a_point_at_a_material_is_confirmed_with_what_it_does(
    note: Note | None, english: str, german: str
) -> None:
    action = PointMaterial(slot=2, face_down=note != "take_face_up")
    facts = ChoiceFacts(kind=action.kind, target="material:2", gives={"material": 1}, note=note)
    assert confirmation(facts, action) == english
    assert confirmation(facts, action, DE) == german
    # as the engine's label says it: the English is byte for byte the label's
    label = "Point at face-down material 3" + (f": {NOTES[note]}" if note else "")
    assert english == "You pointed at " + label.removeprefix("Point at ") + "."
    # callers that still pass the engine's English label get the same
    assert confirmation(label, action) == english
    assert confirmation(label, action, DE) == german


def test_a_confirmation_reads_the_note_of_the_engines_facts() -> None:
    """What the cog confirms comes from ``describe_choice``, never from a label's text."""
    state = GAME.new_game(["a", "b", "c"], 5, {"mode": "tactical"})
    for player in state.players:
        state, _ = GAME.apply(state, player, GAME.legal_actions(state, player)[0])
    assert state.phase == "point" and state.face_down[0] is not None
    slot = next(k for k, card in enumerate(state.middle_materials) if card is not None)
    keep = PointMaterial(slot=slot)
    told = confirmation(GAME.describe_choice(state, "a", keep), keep)
    assert told == f"You pointed at face-down material {slot + 1}: it goes face up (you " + (
        "already have a face-down card)."
    )
    after, _ = GAME.apply(state, "a", keep)  # not the last point: the position still says
    assert confirmation(GAME.describe_choice(after, "a", keep), keep) == told


def test_a_choice_made_too_late_is_told_in_the_readers_language() -> None:
    state = SimpleNamespace(phase="point", round=4, mode="tactical")
    with pytest.raises(PhaseClosed) as closed:
        still_open(3, "pick")(state)
    assert str(closed.value) == (
        "The picks of round 3 have already been revealed; that choice was not counted."
    )
    assert closed.value.text(ENGLISH) == str(closed.value)
    assert closed.value.text(DE) == (
        "Die Auswahl der Runde 3 ist schon aufgedeckt; diese Wahl zählt nicht mehr."
    )
    assert phase_name(state, DE) == "Zeigen"
    assert phase_name(SimpleNamespace(phase="point", mode="speed"), DE) == "Tempo-Rennen"
    assert phase_name(SimpleNamespace(phase="pick", mode="speed")) == "pick"


def test_stats_lines_in_german_with_their_plurals() -> None:
    rating = Rating(mu=27.25, sigma=4.08)
    one = BoardEntry(identity="ai:strong", rating=rating, games=1, wins=1)
    two = BoardEntry(identity="42", rating=rating, games=2, wins=2)
    assert board_lines([one, two]) == (
        "1. Computer (hard) · 27.2 ± 4.1 · 1 game, 1 win\n2. <@42> · 27.2 ± 4.1 · 2 games, 2 wins"
    )
    assert board_lines([one, two], DE) == (
        "1. Computer (schwer) · 27.2 ± 4.1 · 1 Spiel, 1 Sieg\n"
        "2. <@42> · 27.2 ± 4.1 · 2 Spiele, 2 Siege"
    )
    assert shown_rating(None, DE) == "noch offen"
    stats = KindStats(
        kind="tonttu",
        games=4,
        wins=1,
        average_score=12.5,
        best_score=20,
        favourite=None,
        rating=None,
        global_rating=rating,
    )
    assert stats_field(stats, DE) == (
        "Spiele 4 · Siege 1 (25%)\n"
        "Durchschnitt 12.5 · Bestwert 20\n"
        "Wertungszahl noch offen (alle Server: 27.2 ± 4.1)"
    )
    assert stats_field(stats).startswith("Games 4 · wins 1 (25%)\nAverage score 12.5 · best 20")
    assert no_games(DE, True, "anna", "tonttu") == (
        "Du hast auf diesem Server keine beendeten Spiele von Werkstatt-Tonttu in Kanälen, die "
        "du sehen kannst."
    )
    assert no_games(ENGLISH, False, "anna", None) == (
        "anna has no finished games on this server in channels you can see."
    )
    assert kind_of("chess", DE)[1] == (
        "Es gibt kein Spiel namens 'chess'; möglich sind Santas Werkstatt (`workshop`), "
        "Werkstatt-Tonttu (`tonttu`)."
    )


def test_replay_sentences_in_german() -> None:
    info = SimpleNamespace(id=7, status="active")
    assert not_finished(info) == (  # type: ignore[arg-type]
        "Game #7 is still running: its replay opens when it has finished. /board in its "
        "thread shows the table now."
    )
    assert not_finished(info, DE).startswith("Spiel #7 läuft noch:")  # type: ignore[arg-type]
    assert players_only(SimpleNamespace(id=7, status="abandoned"), DE) == (  # type: ignore[arg-type]
        "Spiel #7 wurde vor dem Ende abgebrochen: Nur seine Spieler können es exportieren."
    )
