"""The boards as HTML (``web/boards.py``), without a browser: every fixed position of the
picture tests in English and German, read back with the standard library's parser.

What is checked: the tags balance; a hostile display name comes out as text only; no
inline style or script (the page's Content-Security-Policy allows neither); nothing
secret reaches the public board (a secret pick, a face-down card, a hand, a player's
reindeer names), and a player's own view is refused; German boards speak German.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import pytest

import i18n
from engine.tonttu import GAME as TONTTU
from engine.tonttu.data import MATERIAL_TYPE
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
    assert "Auswahl: Alle wählen geheim eine Handkarte" in status and "Gewählt:" in status
    shown = read(board).text(hidden=False)
    assert "Holz" in shown and "Wood" not in shown
