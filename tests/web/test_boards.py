"""The boards as HTML (``web/boards.py``), without a browser: every fixed position of the
picture tests in English and German, read back with the standard library's parser.

What is checked: the tags balance; a hostile display name comes out as text only; no
inline style or script (the page's Content-Security-Policy allows neither); nothing
secret reaches the public board (a secret pick, a face-down card, a hand, a player's
reindeer names), and a player's own view is refused; German boards speak German.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import pytest

import i18n
from engine.core import Rng
from engine.records import pick_random
from engine.tonttu import GAME as TONTTU
from engine.tonttu.data import MATERIAL_TYPE
from engine.tonttu.models import MATERIAL_POINT_UP
from engine.workshop import GAME as WORKSHOP
from tests.render.states import POSITIONS, advance, names, players
from web.boards import board_html, status_html

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
HOSTILE = ("<script>alert(1)</script>", '"><img src=x onerror=alert(1)>')


def kind_of(game: Any) -> str:
    return "workshop" if game is WORKSHOP else "tonttu"


def tonttu_point() -> tuple[Any, Any]:
    """A tactical point under way: some seats have pointed in secret."""
    state = TONTTU.new_game(players(4), 5, TONTTU.parse_options({}))
    return TONTTU, advance(
        TONTTU,
        state,
        5,
        moves=6,
        stop=lambda s, e: s.phase == "point" and any(c is not None for c in s.choices),
    )


def tonttu_speed() -> tuple[Any, Any]:
    state = TONTTU.new_game(players(5), 3, TONTTU.parse_options({"mode": "speed"}))
    return TONTTU, advance(TONTTU, state, 3, stop=lambda s, e: s.phase == "point")


def tonttu_over() -> tuple[Any, Any]:
    state = TONTTU.new_game(players(4), 9, TONTTU.parse_options({}))
    return TONTTU, advance(TONTTU, state, 9, stop=lambda s, e: False)


MORE: dict[str, Callable[[], tuple[Any, Any]]] = {
    "tonttu-4p-point": tonttu_point,
    "tonttu-5p-speed": tonttu_speed,
    "tonttu-4p-over": tonttu_over,
}
"""Phases the picture tests do not draw: a secret point, a speed race, the end."""
ALL = {**POSITIONS, **MORE}


@pytest.fixture(scope="module")
def positions() -> dict[str, tuple[Any, Any]]:
    return {key: make() for key, make in ALL.items()}


# --------------------------------------------------------------------------- reading HTML


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element | str] = field(default_factory=list)

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()

    def text(self, *, hidden: bool = True) -> str:
        """The text inside, with the visually hidden text (class ``vh``) or without."""
        if not hidden and "vh" in self.classes:
            return ""
        return "".join(
            child if isinstance(child, str) else child.text(hidden=hidden)
            for child in self.children
        )

    def walk(self) -> Iterator[Element]:
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.walk()

    def find(self, css_class: str) -> list[Element]:
        return [e for e in self.walk() if css_class in e.classes]


class Reader(HTMLParser):
    """Builds the element tree and fails on a closing tag that closes nothing open."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("root", {})
        self.open = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.open[-1].children.append(element)
        if tag not in VOID:
            self.open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.open[-1].children.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        assert len(self.open) > 1, f"</{tag}> closes nothing"
        top = self.open.pop()
        assert top.tag == tag, f"</{tag}> closes <{top.tag}>"

    def handle_data(self, data: str) -> None:
        self.open[-1].children.append(data)


def read(html: str) -> Element:
    reader = Reader()
    reader.feed(html)
    reader.close()
    assert len(reader.open) == 1, f"never closed: {[e.tag for e in reader.open[1:]]}"
    return reader.root


def boards(positions: dict[str, tuple[Any, Any]], lang: str) -> Iterator[tuple[str, str, str]]:
    """(position, board, status) of every position, in ``lang``."""
    for key, (game, state) in positions.items():
        view = game.view(state, None)
        table = names(len(state.players))
        words = i18n.words(lang)
        kind = kind_of(game)
        yield (
            key,
            str(board_html(kind, view, table, words)),
            str(status_html(kind, view, table, words)),
        )


def areas(html: str) -> list[Element]:
    return read(html).find("area")


# --------------------------------------------------------------------------- form


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_board_is_balanced_html_with_an_area_per_player(
    positions: dict[str, tuple[Any, Any]], lang: str
) -> None:
    for key, board, status in boards(positions, lang):
        _, state = positions[key]
        tree = read(board)
        read(status)
        shown = [a.find("area-name")[0].text() for a in tree.find("area")]
        assert shown == list(names(len(state.players)).values()), key
        assert [a.classes[1] for a in tree.find("area")] == [
            f"seat-{k}" for k in range(len(state.players))
        ]


def test_no_inline_style_or_script_anywhere(positions: dict[str, tuple[Any, Any]]) -> None:
    for lang in ("en", "de"):
        for key, board, status in boards(positions, lang):
            for html in (board, status):
                for element in read(html).walk():
                    assert element.tag not in ("script", "style"), key
                    bad = [a for a in element.attrs if a == "style" or a.startswith("on")]
                    assert not bad, (key, element.tag, bad)


@pytest.mark.parametrize("key", sorted(ALL))
def test_hostile_names_come_out_as_text_only(
    positions: dict[str, tuple[Any, Any]], key: str
) -> None:
    game, state = positions[key]
    view = game.view(state, None)
    table = dict(zip(state.players, HOSTILE * 3, strict=False))
    words = i18n.words("en")
    for html in (
        str(board_html(kind_of(game), view, table, words)),
        str(status_html(kind_of(game), view, table, words)),
    ):
        assert "<script" not in html and "<img" not in html and "onerror=alert(1)>" not in html
        tree = read(html)
        assert {e.tag for e in tree.walk()}.isdisjoint({"script", "img"})
        assert all(not a.startswith("on") for e in tree.walk() for a in e.attrs)
    board = board_html(kind_of(game), view, table, words)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in board
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in board
    names_shown = [a.find("area-name")[0].text() for a in areas(str(board))]
    assert names_shown[:2] == list(HOSTILE)  # the names themselves, read back as text


def test_an_unknown_kind_or_a_players_own_view_is_refused(
    positions: dict[str, tuple[Any, Any]],
) -> None:
    game, state = positions["workshop-2p-mid"]
    table = names(2)
    words = i18n.words("en")
    with pytest.raises(ValueError):
        board_html("tonttu", game.view(state, None), table, words)
    with pytest.raises(ValueError):
        board_html("workshop", game.view(state, "p1"), table, words)
    with pytest.raises(ValueError):
        status_html("workshop", game.view(state, "p1"), table, words)


# --------------------------------------------------------------------------- secrets


def test_a_secret_pick_a_face_down_card_and_hands_never_reach_the_board(
    positions: dict[str, tuple[Any, Any]],
) -> None:
    """T-6: the public board shows who has picked, never what; swapping each chosen
    seat's pick, face-down card and hand for other cards leaves it as it was."""
    _, state = positions["tonttu-6p-pick"]
    table, words = names(6), i18n.words("en")
    public = str(board_html("tonttu", TONTTU.view(state, None), table, words))
    chosen = [k for k, c in enumerate(state.choices) if c is not None]
    assert chosen and len(chosen) < len(state.players)  # mid-pick, so the test can fail
    by_type = {t: [c for c in state.deck if MATERIAL_TYPE[c] == t] for t in range(5)}

    choices, hands, downs = list(state.choices), list(state.hands), list(state.face_down)
    changed = 0
    for seat in range(len(state.players)):
        hand = state.hands[seat]
        others = [
            next(iter(by_type[t]), None)
            for t in range(5)
            if t not in {MATERIAL_TYPE[c] for c in hand}
        ]
        swap = [c for c in others if c is not None][: len(hand)]
        if len(swap) == len(hand):
            hands[seat] = tuple(swap)
            if choices[seat] is not None:
                choices[seat] = swap[0]
            changed += 1
        down = state.face_down[seat]
        if down is not None:
            downs[seat] = next(c for c in state.deck if MATERIAL_TYPE[c] != MATERIAL_TYPE[down])
    assert changed
    hidden = state.model_copy(
        update={"choices": tuple(choices), "hands": tuple(hands), "face_down": tuple(downs)}
    )
    assert hidden != state
    assert str(board_html("tonttu", TONTTU.view(hidden, None), table, words)) == public

    seen = TONTTU.view(state, None)
    seats = areas(public)
    for k in range(len(state.players)):
        text = seats[k].text().replace(" ", "")
        mine = TONTTU.view(state, state.players[k])
        if k in chosen:
            assert "picked" in text
            assert mine.my_choice and mine.my_choice.startswith("Pick ")
            assert mine.my_choice not in public
        else:
            assert "choosing" in text
        # the workbench shows the face-up cards only: a pick joins them at the reveal
        for material, count in Counter(seen.seats[k].face_up).items():
            assert f"{material}\u00d7{count}" in text
        assert f"{len(state.hands[k])}card" in text


def test_a_secret_point_never_reaches_the_board(positions: dict[str, tuple[Any, Any]]) -> None:
    _, state = positions["tonttu-4p-point"]
    table, words = names(4), i18n.words("en")
    public = str(board_html("tonttu", TONTTU.view(state, None), table, words))
    pointed = [k for k, c in enumerate(state.choices) if c is not None]
    assert pointed
    gifts = [g for g in state.middle_gifts if g is not None]
    other = tuple(
        (gifts[0] if c != gifts[0] else gifts[-1]) if c is not None else None for c in state.choices
    )
    moved = state.model_copy(update={"choices": other})
    assert moved != state
    assert str(board_html("tonttu", TONTTU.view(moved, None), table, words)) == public
    for k in pointed:
        assert "pointed" in areas(public)[k].text()
        label = TONTTU.view(state, state.players[k]).my_choice
        assert label and label not in public


def test_a_players_reindeer_names_never_reach_the_board(
    positions: dict[str, tuple[Any, Any]],
) -> None:
    """W-7.2: a player's own view names their reindeer; the public board counts them."""
    _, state = positions["workshop-5p-mid"]
    table, words = names(5), i18n.words("en")
    public = str(board_html("workshop", WORKSHOP.view(state, None), table, words))
    owners = [k for k, seat in enumerate(state.seats) if seat.reindeer]
    assert owners
    for k in owners:
        own = WORKSHOP.view(state, state.players[k]).players[k].reindeer
        assert own  # the owner's view has them, so the test can fail
        area = areas(public)[k].text()
        assert f"Reindeer {len(own)}" in area
        for name in own:
            assert name not in area
        stalls = WORKSHOP.view(state, None).stalls
        for name in set(own) - {s for s in stalls if s}:
            assert name not in public


# --------------------------------------------------------------------------- what it says


def test_the_workshop_board_says_what_the_picture_says(
    positions: dict[str, tuple[Any, Any]],
) -> None:
    _, state = positions["workshop-5p-mid"]
    view = WORKSHOP.view(state, None)
    table, words = names(5), i18n.words("en")
    tree = read(str(board_html("workshop", view, table, words)))
    text = tree.text(hidden=False)
    assert f"Day {view.day} of 6" in text and "Inspection" in text
    for label in ("Wood Shop", "Mail Room", "Reindeer Stables", "Donation Center"):
        assert label in text
    assert f"deck {view.deck_size} · sleigh {view.sleigh_size}" in text
    assert "How to read the board" in text
    acting = view.players.index(next(p for p in view.players if p.player == view.pending.player))
    for k, (player, area) in enumerate(zip(view.players, tree.find("area"), strict=True)):
        said = area.text()
        assert ("to act" in said) == (k == acting) and ("acting" in area.classes) == (k == acting)
        assert f"{player.score} pts" in said or f"{player.score} pt" in said
        assert f"Tree {player.ornaments}/6" in said
        for toy in player.unfinished:
            assert toy.name in said
            for m, need in toy.requires.items():
                if need:  # every chip says what it shows, for a screen reader
                    assert f"{m.title()}: {toy.placed[m]} of {need} placed" in said
    status = str(status_html("workshop", view, table, words))
    assert "Esperanza" in status and "to take donated tokens" in status


def test_tonttu_status_names_who_has_chosen_and_who_is_choosing(
    positions: dict[str, tuple[Any, Any]],
) -> None:
    _, state = positions["tonttu-6p-pick"]
    view = TONTTU.view(state, None)
    table = names(6)
    status = read(str(status_html("tonttu", view, table, i18n.words("en")))).text()
    assert "Pick: everyone chooses a hand card in secret" in status
    chosen, waiting = status.split("Chosen:")[1].split("Waiting for:")
    for seat in view.seats:
        assert table[seat.player] in (chosen if seat.chosen else waiting)


def test_the_end_says_game_over(positions: dict[str, tuple[Any, Any]]) -> None:
    for key in ("workshop-5p-end", "tonttu-4p-over"):
        game, state = positions[key]
        view = game.view(state, None)
        table = names(len(state.players))
        status = str(status_html(kind_of(game), view, table, i18n.words("en")))
        assert "Game over" in status
        board = read(str(board_html(kind_of(game), view, table, i18n.words("en"))))
        assert "Game over" in board.text()
        assert not board.find("acting") and not board.find("act")  # nobody is to act


def test_german_boards_speak_german(positions: dict[str, tuple[Any, Any]]) -> None:
    german = {key: (board, status) for key, board, status in boards(positions, "de")}
    board, status = german["workshop-5p-mid"]
    text = read(board).text()
    for word in ("Poststelle", "Rentierstall", "Weihnachtsbaum", "So liest du den Spielplan"):
        assert word in text
    for word in ("Mail Room", "Christmas Tree", "How to read", "Elves left"):
        assert word not in text
    assert "Am Zug:" in status and "gespendete Marker nehmen" in status
    board, status = german["tonttu-6p-pick"]
    text = read(board).text()
    for word in ("Die Mitte", "Verdeckte Materialien", "Werktisch", "Hände gehen nach links"):
        assert word in text
    for word in ("The middle", "Workbench", "hands pass"):
        assert word not in text
    assert "Auswahl: Alle wählen verdeckt eine Handkarte" in status and "Gewählt:" in status
    shown = read(board).text(hidden=False)
    assert "Holz" in shown and "Wood" not in shown


# --------------------------------------------------------------------------- a seat's board

UNDRAWN = {"stop", "timer", "gift"}
"""Targets with no place on the board: stop taking, the table's timer, and a gift already
resolved (``engine/choices.py``)."""
PLACES = {
    "workshop": {
        "station",
        "mail",
        "toy_deck",
        "stall",
        "supply",
        "toy",
        "donation",
        "ornament",
        "tree",
    },
    "tonttu": {"hand", "gift", "material"},
}
"""Every kind of drawn target id ``engine/choices.py`` lists, by game."""
PLAYED: dict[str, list[tuple[int, int, dict[str, str]]]] = {
    "workshop": [(2, 3, {}), (4, 8, {}), (5, 21, {})],
    "tonttu": [(3, 4, {}), (5, 6, {}), (4, 12, {"mode": "speed"})],
}
"""The simulated games: (players, seed, options)."""
EVERY = {"workshop": 6, "tonttu": 3}
"""A board is drawn every this many moves (and at the end)."""
SHARED_STATIONS = (
    *(f"station:{m}:{k}" for m in ("wood", "metal", "fabric", "assembly") for k in range(4)),
    *(f"station:stables:{k}" for k in range(3)),
    *(f"station:{s}:0" for s in ("mail3", "mail2", "tree1", "tree2")),
)
TARGET = re.compile(r'data-target="([^"]*)"')
MINE = re.compile(r'<section class="area ([^"]* mine">.*?)</section>', re.S)


def game_of(kind: str) -> Any:
    return WORKSHOP if kind == "workshop" else TONTTU


def moments(kind: str, n: int, seed: int, options: dict[str, str]) -> Iterator[tuple[Any, Any]]:
    """(state, events of the move that made it) every ``EVERY[kind]`` seeded random moves
    of one game, from the start to the end."""
    game = game_of(kind)
    state = game.new_game(players(n), seed, game.parse_options(options))
    rng = Rng(seed)
    events: Any = ()
    moves = 0
    yield state, events
    while game.outcome(state) is None:
        player, action = pick_random(game, state, rng)
        state, events = game.apply(state, player, action)
        moves += 1
        if moves % EVERY[kind] == 0 or game.outcome(state) is not None:
            yield state, events


def drawn_targets(html: str) -> Counter[str]:
    return Counter(TARGET.findall(html))


def seat_board(kind: str, state: Any, player: str | None, events: Any = ()) -> str:
    game = game_of(kind)
    return str(
        board_html(
            kind,
            game.view(state, player),
            names(len(state.players)),
            i18n.words("en"),
            viewer=player,
            events=events,
        )
    )


def places_always_drawn(kind: str, view: Any) -> set[str]:
    """The targets a board draws whether or not a choice points there now: the shared
    board's, and the viewer's own toys, tree spaces and hand cards."""
    if kind == "workshop":
        donors = next(s for s in view.stations if s.station == "donation").occupants
        places = {
            *SHARED_STATIONS,
            f"station:donation:{len(donors)}",
            *(f"mail:{k}" for k in range(len(view.mail_slots))),
            *(f"stall:{k}" for k in range(len(view.stalls))),
            *(f"supply:{m}" for m in view.supply),
            *(f"ornament:{c}" for c in view.ornaments_left),
            "toy_deck",
            "donation",
        }
        for player in view.players:
            if player.player == view.viewer:
                places |= {f"toy:{t.card}" for t in player.unfinished}
                places |= {f"tree:{s.space}" for s in player.tree}
        return places
    return {
        *(f"gift:{k}" for k in range(len(view.middle_gifts))),
        *(f"material:{k}" for k in range(len(view.middle_materials))),
        *(f"hand:{m}" for m in view.hand),
    }


@pytest.mark.parametrize("kind", ["workshop", "tonttu"])
def test_every_choice_points_at_one_place_on_the_seats_board(kind: str) -> None:
    """Over simulated games, every few moves: on the board of each seat to act (and of
    one that is not), each legal choice's target is one element's ``data-target``; every
    place is drawn, legal now or not, and once only; the spectator's board has the shared
    board's places but no seat's own; and every kind of target the engine lists is met."""
    game = game_of(kind)
    met: set[str] = set()
    boards = 0
    for n, seed, options in PLAYED[kind]:
        for state, events in moments(kind, n, seed, options):
            acting = [p for p in state.players if p in game.to_act(state)]
            idle = [p for p in state.players if p not in acting][:1]
            for player in [*acting, *idle, None]:
                view = game.view(state, player)
                drawn = drawn_targets(seat_board(kind, state, player, events))
                boards += 1
                assert set(drawn.values()) <= {1}, [t for t, c in drawn.items() if c > 1]
                assert places_always_drawn(kind, view) <= set(drawn)
                if player is None:
                    assert not [t for t in drawn if t.split(":")[0] in ("toy", "tree", "hand")]
                    continue
                for action in game.legal_actions(state, player):
                    target = game.describe_choice(state, player, action).target
                    if target not in UNDRAWN:
                        assert drawn[target] == 1, (seed, player, target)
                        met.add(target.split(":")[0])
    assert met == PLACES[kind]
    assert boards > 50


def swap_secrets(state: Any, seats: list[int], view: Any) -> Any:
    """``state`` with the secrets of ``seats`` changed: their hands (save those ``view``'s
    viewer held earlier in the deal and so knows), their face-down cards and their choices
    so far, each to cards of another type."""
    first = {t: MATERIAL_TYPE.index(t) for t in range(5)}
    hands, downs, choices = list(state.hands), list(state.face_down), list(state.choices)
    gifts = [g for g in state.middle_gifts if g is not None]
    for seat in seats:
        hand = state.hands[seat]
        if hand and view.seats[seat].known_hand is None:
            other = next(t for t in range(5) if any(MATERIAL_TYPE[c] != t for c in hand))
            hands[seat] = (first[other],) * len(hand)
        down = state.face_down[seat]
        if down is not None:
            downs[seat] = first[(MATERIAL_TYPE[down] + 1) % 5]
        choice = state.choices[seat]
        if choice is not None and state.phase == "pick":
            choices[seat] = hands[seat][0]
        elif choice is not None:
            choices[seat] = gifts[0] if choice != gifts[0] else MATERIAL_POINT_UP
    return state.model_copy(
        update={"hands": tuple(hands), "face_down": tuple(downs), "choices": tuple(choices)}
    )


def test_a_tonttu_seat_sees_its_own_secrets_and_no_other_seats() -> None:
    """T-6: every few moves of simulated games, a seat's board is the same when every
    other seat's unknown hand, face-down card and choice so far are swapped for other
    cards, and differs when its own are; it shows its own hand and the hands it held
    earlier in the deal (T-2.3)."""
    checked = known = 0
    for n, seed, options in PLAYED["tonttu"]:
        for moment, (state, _) in enumerate(moments("tonttu", n, seed, options)):
            if moment % 2 or state.phase == "over":
                continue
            for me, player in enumerate(state.players):
                view = TONTTU.view(state, player)
                html = seat_board("tonttu", state, player)
                others = [k for k in range(n) if k != me]
                hidden = swap_secrets(state, others, view)
                assert seat_board("tonttu", hidden, player) == html, (seed, player)
                mine = swap_secrets(state, [me], view)
                if mine != state:
                    assert seat_board("tonttu", mine, player) != html
                    checked += 1
                tree = read(html)
                own = tree.find("mine")
                assert len(own) == 1 and own[0].find("area-name")[0].text() == names(n)[player]
                hand = Counter(view.hand)
                shown = {
                    e.attrs["data-target"].removeprefix("hand:"): e.find("card-count")[0].text()
                    for e in own[0].walk()
                    if e.attrs.get("data-target", "").startswith("hand:")
                }
                assert shown == {m: f"\u00d7{c}" for m, c in hand.items()}
                if view.seats[me].face_down:
                    said = f"1 face down [{view.seats[me].face_down}]"
                    assert said in own[0].text()
                for k in others:
                    if view.seats[k].known_hand:
                        known += 1
                        area = tree.find("area")[k]
                        assert "Hands you held this deal" in area.text()
                        assert not [e for e in area.walk() if "data-target" in e.attrs]
    assert checked > 30 and known > 5


def test_a_workshop_seat_sees_its_own_reindeer_and_no_other_seats() -> None:
    """W-7.2: a seat's board names its own reindeer, never another seat's (save names it
    holds too, a reindeer having copies, and those in the stalls, which everyone sees),
    and marks its own area."""
    named = 0
    for n, seed, options in PLAYED["workshop"]:
        for moment, (state, _) in enumerate(moments("workshop", n, seed, options)):
            if moment % 3:
                continue  # every 18 moves is enough: reindeer come one at a time
            stalls = {s for s in WORKSHOP.view(state, None).stalls if s}
            owned = [
                WORKSHOP.view(state, other).players[k].reindeer or []
                for k, other in enumerate(state.players)
            ]
            for me, player in enumerate(state.players):
                html = seat_board("workshop", state, player)
                mine = MINE.findall(html)  # its own area (the parser is slow on 40 KB)
                assert len(mine) == 1 and f"seat-{me} " in mine[0][:20]
                held = set(owned[me])
                for k, own in enumerate(owned):
                    for name in own:
                        if k == me:
                            assert name in mine[0]
                            named += 1
                        elif name not in stalls | held:
                            assert name not in html
    assert named > 20


def test_a_tonttu_reveal_marks_the_cards_it_turned_up_for_everyone() -> None:
    """The board of the version a reveal made marks, on every seat's board and the
    spectator's, each picked card on its workbench, each material taken (face up, or the
    back of one kept face down), each gift won in its winner's list and each gift laid in
    the middle; the same board without the move's events marks
    nothing."""
    picks = wins = materials = 0
    for n, seed, options in PLAYED["tonttu"]:
        game = TONTTU
        state = game.new_game(players(n), seed, game.parse_options(options))
        rng = Rng(seed)
        while game.outcome(state) is None:
            player, action = pick_random(game, state, rng)
            state, events = game.apply(state, player, action)
            kinds = {e.kind for e in events}
            if not kinds & {"picks_revealed", "points_revealed", "speed_point"}:
                continue
            assert "revealed" not in seat_board("tonttu", state, None)
            for viewer in (None, state.players[0]):
                tree = read(seat_board("tonttu", state, viewer, events))
                benches = tree.find("area")
                for event in events:
                    if event.kind == "picks_revealed":
                        for who, material in event.picks.items():
                            cards = benches[state.players.index(who)].find("revealed")
                            assert material in [c.find("card-name")[0].text() for c in cards]
                            picks += 1
                    results = (
                        event.gifts
                        if event.kind == "points_revealed"
                        else [event.gift]
                        if event.kind == "speed_point"
                        else []
                    )
                    for result in results:
                        if result is not None and result.result == "won":
                            area = benches[state.players.index(result.winner)]
                            assert result.gift in [e.text() for e in area.find("revealed")]
                            wins += 1
                    taken = (
                        event.materials
                        if event.kind == "points_revealed"
                        else [event.material]
                        if event.kind == "speed_point"
                        else []
                    )
                    for result in taken:
                        if result is not None and result.result == "taken":
                            area = benches[state.players.index(result.taker)]
                            new = area.find("revealed")
                            if result.face_down:
                                assert [c for c in new if "back" in c.classes]
                            else:
                                shown = [c.find("card-name")[0].text() for c in new]
                                assert result.material in shown
                            materials += 1
                    if event.kind == "round_ended":
                        new = [g for g in tree.find("revealed") if "gift" in g.classes]
                        laid = [g.find("gift-name")[0].text() for g in new]
                        assert set(event.gifts_refilled) <= set(laid)
    assert picks > 20 and wins > 5 and materials > 5


def test_a_view_is_drawn_for_its_own_seat_only(positions: dict[str, tuple[Any, Any]]) -> None:
    for key in ("workshop-2p-mid", "tonttu-6p-pick"):
        game, state = positions[key]
        kind, table, words = kind_of(game), names(len(state.players)), i18n.words("en")
        mine = game.view(state, "p1")
        with pytest.raises(ValueError):
            board_html(kind, mine, table, words, viewer="p2")
        with pytest.raises(ValueError):
            board_html(kind, game.view(state, None), table, words, viewer="p1")
        assert "mine" in str(board_html(kind, mine, table, words, viewer="p1"))
        assert str(status_html(kind, mine, table, words, viewer="p1")) == str(
            status_html(kind, game.view(state, None), table, words)
        )
