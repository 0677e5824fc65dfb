"""Santa's Workshop's text in German: log lines for every event kind, menu
labels, plurals, refusals, the reader's own "du" sentences, and English unchanged."""

from __future__ import annotations

import re
from typing import Any

import pytest
from workshop_positions import PLAYERS, card, start, toy, with_seat

from engine.core import IllegalAction, Rng, derive_seed
from engine.records import pick_random
from engine.words import ENGLISH
from engine.workshop import GAME
from engine.workshop import text as T
from engine.workshop.models import (
    ChoiceLost,
    ChooseOrnament,
    DayEnded,
    DeckReshuffled,
    ElfPlaced,
    GameEnded,
    Inspection,
    OrnamentPlaced,
    OrnamentRevealed,
    PlaceElf,
    ReindeerTaken,
    Scored,
    StopTaking,
    TokensDonated,
    TokensPlaced,
    TokensReceived,
    ToyCompleted,
    ToyTaken,
)
from i18n import words

DE = words("de")
EN = words("en")
NAMES = {"ann": "Anna", "bob": "Ben", "cat": "Cat"}
YOU = {**NAMES, "ann": T.YOU}

EVENTS: list[tuple[Any, str, str]] = [
    (
        ElfPlaced(player="ann", station="wood", space=1),
        "Anna places an Elf at the Wood Shop (2nd space).",
        "Anna platziert einen Wichtel in der Holzwerkstatt (2. Feld).",
    ),
    (
        ElfPlaced(player="ann", station="stables", space=0),
        "Anna places an Elf at the Reindeer Stables (1st space).",
        "Anna platziert einen Wichtel im Rentierstall (1. Feld).",
    ),
    (
        ElfPlaced(player="ann", station="tree1", space=0),
        "Anna places an Elf at the Christmas Tree (1st station).",
        "Anna platziert einen Wichtel am Weihnachtsbaum (1. Station).",
    ),
    (
        Scored(player="ann", points=1, reason="cooperation", detail="Metal Shop"),
        "Anna scores 1 point (cooperation: Metal Shop).",
        "Anna erhält 1 Punkt (Kooperation: Metallwerkstatt).",
    ),
    (
        Scored(player="ann", points=8, reason="inspection", detail="Inspection 1, Cheer 3"),
        "Anna scores 8 points (Inspection 1, Cheer 3).",
        "Anna erhält 8 Punkte (Inspektion 1, Freude 3).",
    ),
    (
        Scored(player="ann", points=4, reason="toy", detail="Kite"),
        "Anna scores 4 points (toy: Kite).",
        "Anna erhält 4 Punkte (Spielzeug: Drachen).",
    ),
    (
        Scored(player="ann", points=4, reason="toy", detail="Toy Boat"),
        "Anna scores 4 points (Toy Boat).",
        "Anna erhält 4 Punkte (Spielzeugboot).",
    ),
    (
        Scored(player="ann", points=2, reason="donation"),
        "Anna scores 2 points (donation).",
        "Anna erhält 2 Punkte (Spende).",
    ),
    (
        Scored(player="ann", points=3, reason="ornament", detail="gold ornament: 3 points"),
        "Anna scores 3 points (gold ornament: 3 points).",
        "Anna erhält 3 Punkte (goldene Kugel: 3 Punkte).",
    ),
    (
        Scored(player="ann", points=3, reason="tree", detail="Star: 3 points"),
        "Anna scores 3 points (tree: Star: 3 points).",
        "Anna erhält 3 Punkte (Baum: Stern: 3 Punkte).",
    ),
    (
        Scored(player="ann", points=5, reason="unfinished", detail="5 tokens on unfinished toys"),
        "Anna scores 5 points (5 tokens on unfinished toys).",
        "Anna erhält 5 Punkte (5 Marker auf unfertigen Spielzeugen).",
    ),
    (
        Scored(player="ann", points=1, reason="reindeer", detail="1 reindeer"),
        "Anna scores 1 point (1 reindeer).",
        "Anna erhält 1 Punkt (1 Rentier).",
    ),
    (
        Scored(player="ann", points=3, reason="reindeer", detail="2 reindeer"),
        "Anna scores 3 points (2 reindeer).",
        "Anna erhält 3 Punkte (2 Rentiere).",
    ),
    (
        TokensReceived(player="ann", material="fabric", count=2),
        "Anna receives 2 Fabric.",
        "Anna bekommt 2 Stoff.",
    ),
    (
        TokensReceived(player="ann", material="wood", count=1, short=2),
        "Anna receives 1 Wood (2 fewer: the supply ran out).",
        "Anna bekommt 1 Holz (2 weniger, denn der Vorrat ist aufgebraucht).",
    ),
    (
        ChoiceLost(player="ann", count=1),
        "Anna gets 1 fewer Materials: Wood, Metal and Fabric are all gone.",
        "Anna bekommt 1 Material weniger: Holz, Metall und Stoff sind alle aufgebraucht.",
    ),
    (
        ChoiceLost(player="ann", count=2),
        "Anna gets 2 fewer Materials: Wood, Metal and Fabric are all gone.",
        "Anna bekommt 2 Materialien weniger: Holz, Metall und Stoff sind alle aufgebraucht.",
    ),
    (
        TokensPlaced(player="ann", material="assembly", toy="Sled", count=1),
        "Anna puts 1 Assembly on Sled.",
        "Anna legt 1 Montage auf Rodelschlitten.",
    ),
    (
        TokensPlaced(player="ann", material="metal", toy="Yo-Yo", count=1, from_donation=True),
        "Anna puts 1 Metal from the Donation Center on Yo-Yo.",
        "Anna legt 1 Metall aus der Spendenzentrale auf Jo-Jo.",
    ),
    (
        TokensDonated(player="ann", material="wood", count=3),
        "Anna donates 3 Wood.",
        "Anna spendet 3 Holz.",
    ),
    (
        TokensDonated(player="ann", material="wood", count=3, automatic=True),
        "Anna donates 3 Wood (no toy needs it).",
        "Anna spendet 3 Holz (keins der Spielzeuge braucht das).",
    ),
    (
        ToyTaken(player="ann", toy="Teddy Bear", slot=None),
        "Anna takes Teddy Bear from the deck.",
        "Anna nimmt Teddybär vom Stapel.",
    ),
    (
        ToyTaken(player="ann", toy="Teddy Bear", slot=2),
        "Anna takes Teddy Bear from Mail Room slot 3.",
        "Anna nimmt Teddybär aus Fach 3 der Poststelle.",
    ),
    (
        DeckReshuffled(cards=12),
        "The sleigh's 12 toys are shuffled into a new toy deck.",
        "Die 12 Spielzeuge aus dem Schlitten werden zu einem neuen Spielzeugstapel gemischt.",
    ),
    (
        ToyCompleted(player="ann", toy="Carousel"),
        "Anna completes Carousel!",
        "Anna stellt Karussell fertig!",
    ),
    (
        ReindeerTaken(player="ann", stall=0),
        "Anna takes a reindeer from the Stables.",
        "Anna nimmt ein Rentier aus dem Rentierstall.",
    ),
    (
        OrnamentRevealed(player="ann", colour="silver", reward="2 Materials of choice"),
        "Anna takes a silver ornament: 2 Materials of choice.",
        "Anna nimmt eine silberne Kugel: 2 Materialien nach Wahl.",
    ),
    (
        OrnamentPlaced(player="ann", colour="red", space="wood"),
        "Anna hangs the red ornament on '1 Wood'.",
        "Anna hängt die rote Kugel auf das Feld „1 Holz“.",
    ),
    (
        DayEnded(day=2, stalls_revealed=3, first_player="bob"),
        "Day 2 ends; 3 reindeer revealed in the Stables. Ben is first player.",
        "Tag 2 endet; 3 Rentiere im Rentierstall aufgedeckt. Ben ist Startspieler.",
    ),
    (
        DayEnded(day=6, stalls_revealed=1, first_player=None),
        "Day 6 ends; 1 reindeer revealed in the Stables.",
        "Tag 6 endet; 1 Rentier im Rentierstall aufgedeckt.",
    ),
    (
        Inspection(number=2, cheer={"ann": 4, "bob": 1}),
        "Santa's Inspection 2: Cheer Anna 4, Ben 1.",
        "Santas Inspektion 2: Freude Anna 4, Ben 1.",
    ),
    (
        GameEnded(scores={"ann": 50, "bob": 41}, winners=["ann"]),
        "The game is over. Winner: Anna.",
        "Das Spiel ist vorbei. Sieger: Anna.",
    ),
    (
        GameEnded(scores={"ann": 50, "bob": 50}, winners=["ann", "bob"]),
        "The game is over. Winners: Anna and Ben.",
        "Das Spiel ist vorbei. Sieger: Anna und Ben.",
    ),
]


@pytest.mark.parametrize(("event", "english", "german"), EVENTS)
def test_log_lines_in_german_and_english(event: Any, english: str, german: str) -> None:
    assert GAME.describe_event(event, NAMES, DE) == german
    assert GAME.describe_event(event, NAMES, EN) == english
    assert GAME.describe_event(event, NAMES) == english


def test_every_event_kind_has_a_german_line() -> None:
    from engine.workshop.models import Event

    kinds = {type(e) for e, _, _ in EVENTS}
    union = Event.__origin__  # type: ignore[attr-defined]
    assert kinds == set(union.__args__)


YOU_LINES = [
    (
        ElfPlaced(player="ann", station="wood", space=0),
        "You place an Elf at the Wood Shop (1st space).",
        "Du platzierst einen Wichtel in der Holzwerkstatt (1. Feld).",
    ),
    (
        Scored(player="ann", points=1, reason="cooperation", detail="Wood Shop"),
        "You score 1 point (cooperation: Wood Shop).",
        "Du erhältst 1 Punkt (Kooperation: Holzwerkstatt).",
    ),
    (
        TokensReceived(player="ann", material="metal", count=3),
        "You receive 3 Metal.",
        "Du bekommst 3 Metall.",
    ),
    (
        ChoiceLost(player="ann", count=2),
        "You get 2 fewer Materials: Wood, Metal and Fabric are all gone.",
        "Du bekommst 2 Materialien weniger: Holz, Metall und Stoff sind alle aufgebraucht.",
    ),
    (
        TokensPlaced(player="ann", material="metal", toy="Tin Soldier", count=2),
        "You put 2 Metal on Tin Soldier.",
        "Du legst 2 Metall auf Zinnsoldat.",
    ),
    (
        TokensDonated(player="ann", material="fabric", count=1),
        "You donate 1 Fabric.",
        "Du spendest 1 Stoff.",
    ),
    (
        ToyTaken(player="ann", toy="Kite", slot=0),
        "You take Kite from Mail Room slot 1.",
        "Du nimmst Drachen aus Fach 1 der Poststelle.",
    ),
    (ToyCompleted(player="ann", toy="Kite"), "You complete Kite!", "Du stellst Drachen fertig!"),
    (
        ReindeerTaken(player="ann", stall=1),
        "You take a reindeer from the Stables.",
        "Du nimmst ein Rentier aus dem Rentierstall.",
    ),
    (
        OrnamentRevealed(player="ann", colour="green", reward="1 Toy card"),
        "You take a green ornament: 1 Toy card.",
        "Du nimmst eine grüne Kugel: 1 Spielzeugkarte.",
    ),
    (
        OrnamentPlaced(player="ann", colour="blue", space="star"),
        "You hang the blue ornament on 'Star: 3 points'.",
        "Du hängst die blaue Kugel auf das Feld „Stern: 3 Punkte“.",
    ),
    (
        DayEnded(day=1, stalls_revealed=3, first_player="ann"),
        "Day 1 ends; 3 reindeer revealed in the Stables. You are first player.",
        "Tag 1 endet; 3 Rentiere im Rentierstall aufgedeckt. Du bist Startspieler.",
    ),
    (
        GameEnded(scores={"ann": 50, "bob": 41}, winners=["ann"]),
        "The game is over. Winner: You.",
        "Das Spiel ist vorbei. Sieger: Du.",
    ),
]


@pytest.mark.parametrize(("event", "english", "german"), YOU_LINES)
def test_the_readers_own_seat_says_du(event: Any, english: str, german: str) -> None:
    assert GAME.describe_event(event, YOU, DE) == german
    assert GAME.describe_event(event, YOU) == english


def test_plurals() -> None:
    assert [T.points(n, DE) for n in (1, 2)] == ["1 Punkt", "2 Punkte"]
    assert [T.points(n) for n in (1, 2)] == ["1 point", "2 points"]
    assert [T.elves(n, DE) for n in (0, 1, 2)] == ["keine Wichtel", "1 Wichtel", "2 Wichtel"]
    assert [T.elves(n) for n in (0, 1, 2)] == ["no Elves", "1 Elf", "2 Elves"]


def labels(state: Any, lang: Any) -> list[str]:
    player = state.players[state.first]
    return [
        GAME.describe_action(state, player, a, NAMES, lang)
        for a in GAME.legal_actions(state, player)
    ]


def test_german_menu_labels_at_the_start() -> None:
    state = start(players=3, first=0)
    german = labels(state, DE)
    assert german[:4] == [
        "Holzwerkstatt, 1. Feld: 2 Holz",
        "Metallwerkstatt, 1. Feld: 2 Metall",
        "Stoffwerkstatt, 1. Feld: 2 Stoff",
        "Montagehalle, 1. Feld: 2 Montage",
    ]
    assert "Poststelle (bis zu 3 Spielzeuge): 1 bis 3 Spielzeugkarten nehmen" in german
    assert "Rentierstall, 1. Feld: 1 Rentier + 1 Material nach Wahl" in german
    assert "Weihnachtsbaum (1. Station): 1 Kugel + ein Baumfeld" in german
    assert labels(state, ENGLISH)[0] == "Wood Shop, 1st space: 2 Wood"


def test_german_menu_labels_name_the_cooperation_and_plural_materials() -> None:
    state = start(players=3, first=0)
    state = state.model_copy(
        update={"spaces": ((1, 0), *state.spaces[1:7], (1,), *state.spaces[8:])}
    )
    german = labels(state, DE)
    assert (
        german[0]
        == "Holzwerkstatt, 3. Feld: 4 Holz (+1 Kooperation für Anna, +1 Kooperation für Ben)"
    )
    assert "Rentierstall, 2. Feld: 1 Rentier + 2 Materialien nach Wahl" in german
    you = GAME.describe_action(state, "ann", PlaceElf(station="wood"), YOU, DE)
    assert you == "Holzwerkstatt, 3. Feld: 4 Holz (+1 Kooperation für dich, +1 Kooperation für Ben)"
    assert GAME.describe_action(state, "ann", PlaceElf(station="wood"), YOU) == (
        "Wood Shop, 3rd space: 4 Wood (+1 cooperation to You, +1 cooperation to Ben)"
    )


def test_german_menu_labels_for_toys_tokens_and_ornaments() -> None:
    state = start(players=2, first=0)
    state = with_seat(state, 0, toys=(toy("Kite", 1, 0, 0, 1), toy("Toy Boat")))
    state = state.model_copy(update={"phase": 4, "batch": (0, 0, 1, 0), "station": 2})
    german = labels(state, DE)
    assert german == [
        "Lege 1 Stoff auf Drachen (braucht 1; damit fertiggestellt)",
        "Spende 1 Stoff (+1 Punkt)",
    ]
    ornaments = start(players=2, first=0).model_copy(update={"phase": 5, "station": 8})
    assert GAME.describe_action(ornaments, "ann", ChooseOrnament(colour="gold"), NAMES, DE) == (
        "Nimm eine goldene Kugel (5 übrig, Belohnung verdeckt)"
    )
    mail = start(players=2, first=0).model_copy(
        update={"phase": 1, "station": 5, "mail_left": 3, "taken": 1}
    )
    german = labels(mail, DE)
    assert german[-2:] == [
        "Nimm die oberste Karte vom Spielzeugstapel (unbesehen)",
        "Keine weiteren nehmen",
    ]
    assert re.fullmatch(r"Nimm .+ \([HMS0-9/ Mo]+, \d+ Punkte\) aus Fach 1", german[0]), german[0]


ENGLISH_WORDS = re.compile(
    r"\b(Elf|Elves|Shop|Stables|Hall|ornament|point|points|Take|takes|places|deck|Day|"
    r"Wood|Metal|Fabric|Assembly|receives|donates|puts|the)\b"
)


def test_german_lines_and_labels_along_random_games_have_no_english_words() -> None:
    """Every log line and menu label of whole random games, in German: no English game
    word left (toy names are translated too; reindeer names are proper names)."""
    checked = 0
    for index in range(3):
        seed = derive_seed(16, index)
        state = GAME.new_game(PLAYERS[: 2 + index], seed, GAME.parse_options({}))
        rng = Rng(seed)
        names = {p: p.capitalize() for p in state.players}
        while GAME.outcome(state) is None:
            player, action = pick_random(GAME, state, rng)
            for choice in GAME.legal_actions(state, player):
                label = GAME.describe_action(state, player, choice, names, DE)
                assert not ENGLISH_WORDS.search(label), label
            state, events = GAME.apply(state, player, action)
            for event in events:
                line = GAME.describe_event(event, names, DE)
                assert line and not ENGLISH_WORDS.search(line), line
                assert line != GAME.describe_event(event, names), line
                checked += 1
        board = GAME.render_text(GAME.view(state, None), names, DE)
        assert not ENGLISH_WORDS.search(board), board
    assert checked > 300


def test_german_rule_refusals() -> None:
    state = start(players=3, first=0)
    full = state.model_copy(update={"spaces": ((1, 2, 1, 2), *state.spaces[1:])})
    with pytest.raises(IllegalAction) as error:
        GAME.apply(full, "ann", PlaceElf(station="wood"))
    assert str(error.value) == "The Wood Shop is full today."
    assert error.value.text(DE) == "Holzwerkstatt: Heute ist kein Feld mehr frei."
    with pytest.raises(IllegalAction) as error:
        GAME.apply(state, "ann", StopTaking())
    assert str(error.value) == "That is not possible now: you must place an Elf."
    assert error.value.text(DE) == "Das geht gerade nicht: Du musst einen Wichtel platzieren."
    mail = state.model_copy(update={"phase": 1, "station": 5, "mail_left": 3})
    with pytest.raises(IllegalAction) as error:
        GAME.apply(mail, "ann", StopTaking())
    assert error.value.text(DE) == "Nimm mindestens eine Spielzeugkarte, bevor du aufhörst."
    five = with_seat(
        state, 0, toys=tuple(toy(n) for n in ("Kite", "Sled", "Yo-Yo", "Bean Bag", "Rag Doll"))
    )
    with pytest.raises(IllegalAction) as error:
        GAME.apply(five, "ann", PlaceElf(station="mail3"))
    assert str(error.value) == "You already hold 5 unfinished toys."
    assert error.value.text(DE) == "Du hast schon 5 unfertige Spielzeuge."


def test_german_setup_errors() -> None:
    from engine.core import InvalidSetup

    with pytest.raises(InvalidSetup) as error:
        GAME.new_game(["ann"], 1)
    assert str(error.value) == "Santa's Workshop needs 2 to 5 players, not 1."
    assert error.value.text(DE) == "Santas Werkstatt braucht 2 bis 5 Spieler, nicht 1."
    with pytest.raises(InvalidSetup) as error:
        GAME.parse_options({"mode": "speed"})
    assert error.value.text(DE) == "Santas Werkstatt hat keine Optionen (erhalten: mode)."


def test_card_ids_used_above_exist() -> None:
    assert card("Kite") >= 0 and card("Toy Boat") >= 0


def test_the_game_title_is_a_template() -> None:
    assert GAME.title == "Santa's Workshop"
    assert DE.gettext(GAME.title) == "Santas Werkstatt"
