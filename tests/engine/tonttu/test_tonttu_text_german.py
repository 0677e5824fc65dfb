"""Workshop Tonttu in German: the menu labels, every kind of log line, the
board, the final breakdown and the rule refusals, in the German review's words; the
English text is the templates themselves (``test_tonttu_text.py`` guards it)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from test_tonttu_rules import build, point_gift, run, speed

from engine.core import IllegalAction, RuleError
from engine.tonttu import GAME
from engine.tonttu.models import (
    Chose,
    ClosePointPhase,
    GameEnded,
    GiftResult,
    MaterialResult,
    Pick,
    PicksRevealed,
    PointMaterial,
    PointPhaseClosed,
    PointsRevealed,
    RoundEnded,
    SpeedPoint,
)
from engine.tonttu.text import GOES_FACE_UP, HINT, KEEP_FACE_DOWN, TAKE_FACE_UP, point_code
from i18n import words

DE = words("de")
NAMES = {"ann": "Ann", "bob": "Bob", "cid": "Cid"}
TERMINAL = {"you": "You", "bot1": "Bot 1", "bot2": "Bot 2"}
"""The terminal game's names: its player's is "You", which the text shows as "Du" and
speaks to in the second person."""


def german(event: Any, names: dict[str, str] = NAMES) -> str:
    return GAME.describe_event(event, names, DE)


def english(event: Any, names: dict[str, str] = NAMES) -> str:
    return GAME.describe_event(event, names)


# --------------------------------------------------------------------------- menu labels


def test_the_menu_labels_are_german() -> None:
    state = build(
        face_up=[["Wood"], [], []],
        face_down=[None, "Paint", None],
        middle_gifts=["Rocking Horse", "Bell", "Clogs", "Yo-Yo"],
    )
    label = GAME.describe_action(state, "ann", point_gift("Rocking Horse"), NAMES, DE)
    assert label == (
        "Auf Schaukelpferd (braucht Holz, Holz, Farbe) zeigen"
        + HINT
        + "fehlt: Holz, Farbe; du kannst nicht bezahlen, es bringt dir nichts"
    )
    assert GAME.describe_action(state, "ann", PointMaterial(slot=0), NAMES, DE) == (
        "Auf verdecktes Material 1 zeigen: verdeckt behalten"
    )
    assert GAME.describe_action(state, "bob", PointMaterial(slot=1), NAMES, DE) == (
        "Auf verdecktes Material 2 zeigen: Es kommt offen dazu (du hast schon eine verdeckte Karte)"
    )
    up = PointMaterial(slot=2, face_down=False)
    assert GAME.describe_action(state, "ann", up, NAMES, DE) == (
        "Auf verdecktes Material 3 zeigen: offen nehmen"
    )
    pick = build(phase="pick")
    assert GAME.describe_action(pick, "ann", Pick(material="Wool"), NAMES, DE) == "Wolle wählen"
    assert GAME.describe_action(speed(), "ann", ClosePointPhase(), NAMES, DE) == (
        "Zeigephase beenden (die Zeit ist um)"
    )


def test_a_german_gift_label_compares_the_offers() -> None:
    state = build(
        face_up=[["Wood", "Wood", "Paint"], ["Wood", "Wood"], []],
        face_down=[None, "Metal", None],
        middle_gifts=["Rocking Horse", "Bell", "Clogs", "Yo-Yo"],
    )
    label = GAME.describe_action(state, "ann", point_gift("Rocking Horse"), NAMES, DE)
    hint = label.split(HINT)[1]
    assert hint.startswith("du kannst bezahlen; zeigen auch andere darauf: dein Gebot ")
    assert "Bob" in hint and "falls die verdeckte Karte passt" in hint


def test_every_german_label_differs_from_the_english_one_and_the_view_stays_english() -> None:
    """The computer players read their pending point back from the (English) view."""
    state = build(middle_gifts=["Rocking Horse", "Bell", "Clogs", "Yo-Yo"])
    for action in GAME.legal_actions(state, "ann"):
        assert GAME.describe_action(state, "ann", action, NAMES, DE) != GAME.describe_action(
            state, "ann", action, NAMES
        )
    after, _ = GAME.apply(state, "ann", point_gift("Bell"))
    mine = GAME.view(after, "ann").my_choice
    assert mine is not None and point_code(mine) == point_gift("Bell").gift


def test_the_english_notes_end_the_english_material_labels() -> None:
    """The bot tells a material point's note from the English label's end (its panel
    confirms the choice in the reader's language)."""
    state = build(face_down=[None, "Paint", None])
    keep = GAME.describe_action(state, "ann", PointMaterial(slot=0))
    goes = GAME.describe_action(state, "bob", PointMaterial(slot=0))
    take = GAME.describe_action(state, "ann", PointMaterial(slot=0, face_down=False))
    assert keep.endswith(": " + KEEP_FACE_DOWN) and goes.endswith(": " + GOES_FACE_UP)
    assert take.endswith(": " + TAKE_FACE_UP)


# --------------------------------------------------------------------------- log lines


def test_secret_choices_in_german_and_in_the_second_person() -> None:
    assert german(Chose(player="bob", phase="pick")) == "Bob hat verdeckt eine Karte gewählt."
    assert german(Chose(player="bob", phase="point")) == "Bob hat verdeckt auf eine Karte gezeigt."
    assert german(Chose(player="bob", phase="pick", replaced=True)) == (
        "Bob hat verdeckt eine andere Karte gewählt."
    )
    assert (
        german(Chose(player="you", phase="pick"), TERMINAL)
        == "Du hast verdeckt eine Karte gewählt."
    )
    assert german(Chose(player="you", phase="point", replaced=True), TERMINAL) == (
        "Du hast verdeckt auf eine andere Karte gezeigt."
    )
    assert english(Chose(player="bob", phase="pick", replaced=True)) == (
        "Bob changed their pick in secret."
    )


def test_picks_revealed_in_german() -> None:
    event = PicksRevealed(round=2, picks={"ann": "Wool", "bob": "Gold"}, skipped=["cid"])
    assert german(event) == (
        "Auswahl der Runde 2: Ann Wolle, Bob Gold. Ausgesetzt (leere Hand): Cid."
    )


def test_a_reveal_in_german_names_cards_and_who_gets_them() -> None:
    state = build(
        face_up=[["Metal", "Metal"], [], []],
        face_down=[None, "Paint", None],
        middle_gifts=["Bell", "Scarf", "Mittens", "Clogs"],
        middle_materials=["Wool", "Metal", "Paint"],
    )
    _, events = run(
        state,
        [
            ("ann", point_gift("Bell")),
            ("bob", PointMaterial(slot=0)),
            ("cid", PointMaterial(slot=1, face_down=False)),
        ],
    )
    reveal = next(e for e in events if e.kind == "points_revealed")
    # (the first reveal's last line explains the rule: engine.tonttu.text.FIRST_REVEAL)
    assert german(reveal).splitlines()[:4] == [
        "Zeigen der Runde 1:",
        "    Glocke (Dekoration), gezeigt von Ann: Ann bekommt es und zahlt Metall ×2.",
        "    Verdecktes Material 1, gezeigt von Bob: Bob hat es offen genommen: Wolle.",
        "    Verdecktes Material 2, gezeigt von Cid: Cid hat es offen genommen: Metall.",
    ]


def test_every_result_of_a_reveal_in_german() -> None:
    gifts = [
        GiftResult(
            gift="Scarf",
            category="Clothing",
            slot=0,
            pointers=["ann", "bob"],
            contenders=["ann", "bob"],
            offers={"ann": 3, "bob": 2},
            result="won",
            winner="ann",
            paid=["Wool", "Wool", "Paint"],
            face_down_paid="Paint",
        ),
        GiftResult(
            gift="Bell",
            category="Decorations",
            slot=1,
            pointers=["you", "bob"],
            contenders=["you", "bob"],
            offers={"you": 2, "bob": 2},
            result="tie",
        ),
        GiftResult(
            gift="Clogs",
            category="Clothing",
            slot=2,
            pointers=["cid"],
            contenders=[],
            result="wasted",
        ),
        GiftResult(
            gift="Yo-Yo",
            category="Toys",
            slot=3,
            pointers=["cid", "bob"],
            contenders=[],
            result="nobody_can_pay",
        ),
    ]
    materials = [
        MaterialResult(slot=0, pointers=["ann", "cid"], result="contested"),
        MaterialResult(slot=2, pointers=["you"], result="taken", taker="you", face_down=True),
    ]
    event = PointsRevealed(round=3, gifts=gifts, materials=materials)
    lines = german(event, {**NAMES, "you": "You"}).splitlines()
    assert lines == [
        "Zeigen der Runde 3:",
        "    Schal (Kleidung), gezeigt von Ann, Bob: Gebote Ann 3, Bob 2; "
        "Ann bekommt es und zahlt Wolle ×2, Farbe (Farbe war verdeckt).",
        "    Glocke (Dekoration), gezeigt von dir, Bob: Gleichstand bei den Geboten (Du 2, Bob 2), "
        "niemand bekommt es.",
        "    Holzschuhe (Kleidung), gezeigt von Cid: kann nicht bezahlen, das Zeigen verfällt.",
        "    Jo-Jo (Spielzeug), gezeigt von Cid, Bob: niemand kann bezahlen, nichts passiert.",
        "    Verdecktes Material 1, gezeigt von Ann, Cid: umkämpft, nichts passiert.",
        "    Verdecktes Material 3, gezeigt von dir: Du hast es genommen und behältst es verdeckt.",
    ]
    assert german(PointsRevealed(round=4, gifts=[], materials=[])) == (
        "Zeigen der Runde 4: Niemand hat gezeigt."
    )


def test_a_speed_point_and_the_closed_phase_in_german_with_plurals() -> None:
    won = GiftResult(
        gift="Bell",
        category="Decorations",
        slot=0,
        pointers=["you"],
        contenders=["you"],
        result="won",
        winner="you",
        paid=["Metal", "Metal"],
    )
    assert german(SpeedPoint(round=2, player="you", gift=won), TERMINAL) == (
        "Tempo-Zeigen: Glocke (Dekoration), gezeigt von dir: Du bekommst es und zahlst Metall ×2."
    )
    assert english(SpeedPoint(round=2, player="you", gift=won), {"you": "You"}) == (
        "Speed point: Bell (Decorations), pointed at by You: You get it, paying Metal ×2."
    )
    one = PointPhaseClosed(round=5, missed=["cid"])
    two = PointPhaseClosed(round=5, missed=["bob", "cid"])
    none = PointPhaseClosed(round=5, missed=[])
    assert german(one) == (
        "Die Zeit ist um: Die Zeigephase der Runde 5 ist beendet. Nicht gezeigt hat: Cid."
    )
    assert german(two).endswith("Nicht gezeigt haben: Bob, Cid.")
    assert german(none) == "Die Zeit ist um: Die Zeigephase der Runde 5 ist beendet."
    assert english(two) == (
        "Time is up: the point phase of round 5 is closed. Bob, Cid did not point."
    )


def test_the_end_of_a_round_in_german_with_plurals() -> None:
    event = RoundEnded(
        round=4,
        gift_won=False,
        gifts_refilled=["Bell"],
        materials_refilled=1,
        discarded=1,
        rotation="right",
        dealt={"ann": 5, "bob": 5, "cid": 5},
        reshuffled=1,
    )
    assert german(event).splitlines() == [
        "Ende der Runde 4: neue Geschenke Glocke; 1 neues verdecktes Material.",
        "    Der Ablagestapel wurde zu einem neuen Materialstapel gemischt.",
        "    Neues Austeilen: 1 Karte abgelegt, die Rotationskarte zeigt jetzt nach rechts, "
        "je 5 Karten ausgeteilt.",
    ]
    passed = RoundEnded(
        round=2, gift_won=True, gifts_refilled=[], materials_refilled=2, passed="left"
    )
    assert german(passed) == (
        "Ende der Runde 2: 2 neue verdeckte Materialien; Handkarten nach links weitergegeben."
    )
    short = RoundEnded(
        round=8,
        gift_won=True,
        gifts_refilled=[],
        materials_refilled=0,
        discarded=2,
        rotation="left",
        dealt={"ann": 2, "bob": 1},
    )
    assert german(short).splitlines()[1] == (
        "    Neues Austeilen: 2 Karten abgelegt, die Rotationskarte zeigt jetzt nach links, "
        "ausgeteilt: Ann 2, Bob 1 (die Karten sind ausgegangen)."
    )
    assert german(RoundEnded(round=9, gift_won=True, gifts_refilled=[], materials_refilled=0)) == (
        "Ende der Runde 9."
    )


def test_game_over_in_german() -> None:
    event = GameEnded(reason="no_gift_for_10_rounds", scores={"ann": 1}, winners=["ann"])
    assert german(event) == "Spielende: 10 Runden hintereinander hat niemand ein Geschenk gewonnen."


# --------------------------------------------------------------------------- the board


def test_the_german_board() -> None:
    state = build(
        phase="pick",
        face_up=[["Wood", "Metal", "Wood"], [], []],
        face_down=["Gold", "Wool", None],
        middle_gifts=["Rocking Horse", "Bell", "Clogs", "Candle Arch"],
        won=[[], ["Yo-Yo"], []],
    )
    state, _ = GAME.apply(state, "ann", Pick(material="Wool"))
    text = GAME.render_text(GAME.view(state, "ann"), NAMES, DE)
    lines = text.splitlines()
    assert lines[0] == (
        "Werkstatt-Tonttu (Taktik) · Runde 1 · Handrunde 1/4 · Auswahlphase · Rotation: links"
    )
    assert lines[1].startswith("Geschenke im Stapel: ") and "Materialstapel: " in lines[1]
    assert lines[2] == "Geschenke in der Mitte:"
    assert lines[3] == "  1. Schaukelpferd    Spielzeug    braucht Holz, Holz, Farbe"
    assert lines[6] == "  4. Schwibbogen      Dekoration   braucht Metall, Holz, Holz, Farbe"
    assert "Platz" in text and "Werktisch" in text and "Geschenke" in text
    assert "Holz ×2, Metall, 1 verdeckt [Gold]" in text
    assert "Jo-Jo (S)" in text  # a won gift with its category's German initial
    assert "Deine Hand: Wolle, Farbe, Metall, Wolle, Farbe" in text
    assert "Deine bisherige Wahl: Wolle wählen (du kannst sie noch ändern)" in text
    for english_word in ("Wood", "Rocking Horse", "Workbench", "round", "needs", "face down"):
        assert english_word not in text


def test_the_german_final_breakdown_counts_points_gifts_and_sets() -> None:
    state = build(
        face_up=[["Metal", "Metal"], [], []],
        middle_gifts=["Bell", "Mittens", "Spinning Top", "Clogs"],
        won=[["Sweater", "Yo-Yo"], [], ["Rocking Horse"]],
        stack=[],
    )
    state, _ = run(
        state,
        [
            ("ann", point_gift("Bell")),
            ("bob", PointMaterial(slot=0)),
            ("cid", PointMaterial(slot=1)),
        ],
    )
    text = GAME.render_text(GAME.view(state, "ann"), NAMES, DE)
    assert "Spielende: der Geschenkstapel ist aufgebraucht" in text
    assert "Endwertung (das k-te Geschenk zählt k; +3 je Set aus Spielzeug, Kleidung, " in text
    assert "Ann    9 Punkte = 6 für 3 Geschenke (1+2+3) + 3 für 1 Set" in text
    assert "Bob    0 Punkte = 0 für 0 Geschenke (0) + 0 für 0 Sets" in text
    assert "Cid    1 Punkt = 1 für 1 Geschenk (1) + 0 für 0 Sets" in text
    english = GAME.render_text(GAME.view(state, "ann"), NAMES)
    assert "Cid    1 point = 1 for 1 gift (1) + 0 for 0 sets" in english


# --------------------------------------------------------------------------- rule refusals


def refusal(state: Any, player: str, action: Any) -> RuleError:
    with pytest.raises(RuleError) as caught:
        GAME.apply(state, player, action)
    return caught.value


def test_rule_refusals_in_german_name_the_material_in_german() -> None:
    pick = build(phase="pick", hands=[["Wood", "Metal"], ["Wool"], ["Wool"]], deal_round=4)
    error = refusal(pick, "ann", Pick(material="Wool"))
    assert isinstance(error, IllegalAction)
    assert str(error) == "You have no Wool in your hand."
    assert error.text(DE) == "Wolle hast du nicht auf der Hand."
    error = refusal(build(), "ann", PointMaterial(slot=7))
    assert error.text(DE) == (
        "Auf Platz 8 liegt kein verdecktes Material; zeige auf eine Karte, die dort liegt."
    )
    assert refusal(build(), "zed", PointMaterial(slot=0)).text(DE) == (
        "Du spielst in diesem Spiel nicht mit."
    )
    assert refusal(build(), "ann", Pick(material="Wood")).text(DE) == (
        "Gerade ist die Zeigephase: Zeige auf ein Geschenk oder ein verdecktes Material."
    )


def test_the_material_names_of_the_pick_refusal_are_the_card_datas() -> None:
    from engine.tonttu.data import MATERIAL_NAMES

    error = refusal(build(phase="pick"), "ann", Pick.model_construct(material="Silk"))
    assert str(error) == f"Name the material to pick: one of {', '.join(MATERIAL_NAMES)}."
    assert (
        error.text(DE) == "Nenne das Material, das du wählst: Holz, Wolle, Metall, Farbe oder Gold."
    )


def test_setup_errors_in_german() -> None:
    from engine.core import InvalidSetup

    with pytest.raises(InvalidSetup) as caught:
        GAME.new_game(["ann", "bob"], 1, GAME.parse_options({}))
    assert str(caught.value) == "Workshop Tonttu needs 3 to 6 players, not 2."
    assert caught.value.text(DE) == "Werkstatt-Tonttu braucht 3 bis 6 Spieler, nicht 2."
    with pytest.raises(InvalidSetup) as caught:
        GAME.parse_options({"mode": "slow"})
    assert str(caught.value) == (
        "Workshop Tonttu's options are {'mode': 'tactical' | 'speed'}; got {'mode': 'slow'}."
    )
    assert caught.value.text(DE).startswith("Die Optionen von Werkstatt-Tonttu sind {'mode'")


# --------------------------------------------------------------------------- whole games


ENGLISH_WORDS = re.compile(
    r"\b(Round|round|pointed|picks?|gets?|took|face|nobody|needs|Wood|Wool|Metal|Paint|"
    r"Toys|Clothing|Decorations|Workbench|Seat|Score|Gifts?|gift|hand|deal|dealt|cards?|"
    r"points?|sets?|missing|offers?|pay|Time|Game|over|End|new|Point|Pick|Close)\b"
)
"""English words that no German text of Workshop Tonttu may keep (a missed template)."""


@pytest.mark.parametrize("mode", ["tactical", "speed"])
def test_a_whole_german_game_has_no_english_left(mode: str) -> None:
    from engine.core import TIMER, Rng
    from engine.records import pick_random

    players = ["ann", "bob", "cid", "dan"]
    state = GAME.new_game(players, 11, GAME.parse_options({"mode": mode}))
    rng = Rng(11)
    texts: list[str] = []
    while GAME.outcome(state) is None:
        for player in [*sorted(GAME.to_act(state)), TIMER]:
            for action in GAME.legal_actions(state, player):
                texts.append(GAME.describe_action(state, player, action, NAMES, DE))
        texts.append(GAME.render_text(GAME.view(state, "ann"), NAMES, DE))
        player, action = pick_random(GAME, state, rng)
        state, events = GAME.apply(state, player, action)
        texts += [german(event) for event in events]
    texts.append(GAME.render_text(GAME.view(state, None), NAMES, DE))
    kinds = {line.split(":")[0] for line in texts}
    assert len(texts) > 100 and len(kinds) > 10
    leftovers = {m.group(0) for text in texts for m in ENGLISH_WORDS.finditer(text)}
    assert not leftovers, leftovers
