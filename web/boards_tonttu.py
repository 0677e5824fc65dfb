"""Workshop Tonttu's board as HTML (``web/boards.py``'s :func:`~web.boards.board_html`):
the engine's view for one reader turned into plain values, with the game words in the
reader's language (the pictures' own tables: ``render/tonttu.py``), which
``web/templates/tonttu_board.html`` lays out; the cards a move's events turned up
(:func:`revealed_by`), and the phase banner's sentence."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from engine.core import PlayerId
from engine.tonttu.models import GiftCard, SeatView, TonttuView
from engine.tonttu.text import END_REASONS
from engine.words import Words
from render.tonttu import (
    MATERIAL_ORDER,
    MODE_NAMES,
    PHASE_TEXT,
    category_name,
    choice_label,
    material_name,
)
from web.boards_seats import Seat, seats_of
from web.templating import render

CATEGORIES = ("Toys", "Clothing", "Decorations")


@dataclass(frozen=True)
class Card:
    """Material cards of one type (``count`` of them), or one face-down card (``down``:
    its type shown to its owner only, else ``material`` is ``"down"``). ``target``: where
    a choice points at it (``hand:<Material>``, the viewer's own hand); ``revealed``: the
    move that made this version turned it up."""

    material: str
    name: str
    count: int = 1
    down: bool = False
    target: str | None = None
    revealed: bool = False


@dataclass(frozen=True)
class Gift:
    name: str
    category: str
    category_name: str
    needs: tuple[Card, ...]
    revealed: bool = False


@dataclass(frozen=True)
class Won:
    """A seat's gifts of one category, in the order they were won: (name, revealed now)."""

    category: str
    category_name: str
    gifts: tuple[tuple[str, bool], ...]


@dataclass(frozen=True)
class Bench:
    """A seat's area: hand size, workbench, gifts won, score and whether it has chosen
    (never what: T-6). The viewer's own also holds its hand and its choice so far; another
    seat's, the hand the viewer held earlier in this deal (T-2.3), if any."""

    seat: Seat
    hand_size: int
    cards: tuple[Card, ...]
    score: int
    chosen: bool
    waiting: bool
    won: tuple[Won, ...]
    mine: bool = False
    hand: tuple[Card, ...] = ()
    known: tuple[Card, ...] | None = None
    choice: str = ""


@dataclass(frozen=True)
class Revealed:
    """What the move that made a version turned up, from its events: the material types
    that went face up on each seat's workbench (T-2.1 picks, T-3.1 materials taken face
    up), the seats that took a face-down material (T-3.1), the gifts each seat won (T-3.2,
    T-4) and the gifts laid in the middle (T-2.3), by name."""

    face_up: Mapping[PlayerId, frozenset[str]]
    face_down: frozenset[PlayerId]
    won: Mapping[PlayerId, frozenset[str]]
    middle: frozenset[str]


def revealed_by(events: Iterable[Any]) -> Revealed:
    """The cards a move's events turned up (Workshop Tonttu's events; others are ignored)."""
    face_up: dict[PlayerId, set[str]] = {}
    face_down: set[PlayerId] = set()
    won: dict[PlayerId, set[str]] = {}
    middle: set[str] = set()

    def gift(result: Any) -> None:
        if result is not None and result.result == "won" and result.winner is not None:
            won.setdefault(result.winner, set()).add(result.gift)

    def material(result: Any) -> None:
        if result is None or result.result != "taken" or result.taker is None:
            return
        if result.face_down:
            face_down.add(result.taker)
        elif result.material:
            face_up.setdefault(result.taker, set()).add(result.material)

    for event in events:
        kind = getattr(event, "kind", None)
        if kind == "picks_revealed":
            for player, picked in event.picks.items():
                face_up.setdefault(player, set()).add(picked)
        elif kind == "points_revealed":
            for result in event.gifts:
                gift(result)
            for result in event.materials:
                material(result)
        elif kind == "speed_point":
            gift(event.gift)
            material(event.material)
        elif kind == "round_ended":
            middle.update(event.gifts_refilled)
    return Revealed(
        face_up={p: frozenset(m) for p, m in face_up.items()},
        face_down=frozenset(face_down),
        won={p: frozenset(g) for p, g in won.items()},
        middle=frozenset(middle),
    )


def _card(
    material: str,
    words: Words,
    count: int = 1,
    *,
    down: bool = False,
    target: str | None = None,
    revealed: bool = False,
) -> Card:
    return Card(
        material=material,
        name=material_name(material, words),
        count=count,
        down=down,
        target=target,
        revealed=revealed,
    )


def _gift(gift: GiftCard, words: Words, *, revealed: bool = False) -> Gift:
    return Gift(
        name=words.gettext(gift.name),
        category=gift.category,
        category_name=category_name(gift.category, words),
        needs=tuple(_card(m, words) for m in gift.needs),
        revealed=revealed,
    )


def _grouped(
    materials: Iterable[str], words: Words, *, hand: bool = False, up: frozenset[str] = frozenset()
) -> list[Card]:
    """Cards by type, in the pictures' order, ×count; ``hand``: each a ``hand:`` target."""
    counts = Counter(materials)
    order = [m for m in MATERIAL_ORDER if counts.get(m)]
    order += [m for m in counts if m not in MATERIAL_ORDER]
    return [
        _card(
            m,
            words,
            counts[m],
            target=f"hand:{m}" if hand else None,
            revealed=m in up,
        )
        for m in order
    ]


def _bench(view: TonttuView, seat: SeatView, who: Seat, words: Words, revealed: Revealed) -> Bench:
    mine = view.viewer is not None and seat.player == view.viewer
    cards = _grouped(seat.face_up, words, up=revealed.face_up.get(seat.player, frozenset()))
    if seat.has_face_down:  # its type is its owner's secret (T-6): a back, named to its owner
        down = seat.face_down if mine and seat.face_down else None
        cards.append(
            Card(
                material=down or "down",
                name=material_name(down, words) if down else words.gettext("down"),
                down=True,
                revealed=seat.player in revealed.face_down,
            )
        )
    won: dict[str, list[tuple[str, bool]]] = {category: [] for category in CATEGORIES}
    taken = revealed.won.get(seat.player, frozenset())
    for gift in seat.gifts:
        won.setdefault(gift.category, []).append((words.gettext(gift.name), gift.name in taken))
    playing = view.phase != "over"
    choice = ""
    if mine and playing:
        choice = choice_label(view, words) if view.my_choice else words.gettext("no choice yet")
    return Bench(
        seat=who,
        hand_size=seat.hand_size,
        cards=tuple(cards),
        score=seat.score,
        chosen=playing and seat.chosen,
        waiting=playing and seat.to_act and not seat.chosen,
        won=tuple(
            Won(category, category_name(category, words), tuple(gifts))
            for category, gifts in won.items()
        ),
        mine=mine,
        hand=tuple(_grouped(view.hand, words, hand=True)) if mine else (),
        known=None if mine or seat.known_hand is None else tuple(_grouped(seat.known_hand, words)),
        choice=choice,
    )


def tonttu_phase(view: TonttuView, words: Words) -> str:
    """The phase banner's sentence (the picture's red bar)."""
    if view.phase == "over":
        reason = view.end_reason or ""
        return words.gettext("Game over: {reason}.").format(
            reason=words.gettext(END_REASONS[reason]) if reason in END_REASONS else reason
        )
    if view.mode == "speed" and view.phase == "point":
        return words.gettext("Point race: the first valid point at a card wins it")
    return words.gettext(PHASE_TEXT[view.phase]) if view.phase in PHASE_TEXT else view.phase


def tonttu_board(
    view: TonttuView, names: Mapping[PlayerId, str], words: Words, revealed: Revealed
) -> Markup:
    seats = seats_of([s.player for s in view.seats], names)
    mode = MODE_NAMES.get(view.mode)
    return render(
        "tonttu_board.html",
        words,
        view=view,
        mode=words.gettext(mode) if mode else view.mode,
        phase=tonttu_phase(view, words),
        gifts=tuple(
            None if g is None else _gift(g, words, revealed=g.name in revealed.middle)
            for g in view.middle_gifts
        ),
        benches=tuple(_bench(view, s, seats[s.player], words, revealed) for s in view.seats),
        rule=_lines(
            words.gettext("Point at one to take it;\ntwo or more pointers: nobody gets it.")
        ),
        legend=_lines(
            words.gettext(
                "Workbench: face-up cards by type, ×count,\n"
                "and the face-down card as a back.\n"
                "A gift needs the cards on its card.\n"
                "Your k-th gift scores k points;\n"
                "each Toys + Clothing + Decorations set\n"
                "scores 3 more."
            )
        ),
    )


def _lines(text: str) -> str:
    """A picture's text, broken into lines to fit there, as one paragraph."""
    return " ".join(line.strip() for line in text.splitlines())
