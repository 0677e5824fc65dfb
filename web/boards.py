"""A table's board as HTML, for both games, drawn from the engine's public view only.

The page shows what the board picture shows (``render/workshop.py``, ``render/tonttu.py``)
as text a person can read, select and hear: the spectator's view
(``GAME.view(state, None)``), with every secret already stripped (W-7, T-6), is all
that comes in, and a player's own view is refused, so no hand, pick or reindeer name can
reach a page that anyone may open.

This module turns the view into plain values with the game words already in the
reader's language (translated through the pictures' own tables, so the same English
word has the same translation), and the templates (``web/templates/*_board.html``)
lay them out with their labels. Nothing here writes HTML: the templates do, autoescaped,
so a player's display name is always text. Seats look as on the pictures: each has the
colour, the shape and the number of ``render/canvas.py``'s tokens (``seat-0`` … ``seat-5``
in ``web/static/board.css``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from markupsafe import Markup

from engine.core import PlayerId
from engine.tonttu.models import GiftCard, SeatView, TonttuView
from engine.tonttu.text import END_REASONS
from engine.words import Words
from engine.workshop.models import PlayerView, StationView, ToyView, WorkshopView
from render.canvas import PLAYER_COLOURS, PLAYER_SHAPES, shape_points
from render.tonttu import MATERIAL_ORDER, MODE_NAMES, PHASE_TEXT, category_name, material_name
from render.workshop import DECISIONS, MATERIAL_NAMES, colour_name, letter
from web.templating import render

TOKEN_RADIUS = 17
"""A token's size inside its SVG box (``viewBox`` -22 … 22), as ``render/canvas.py``
draws it at 17 px."""
SPACE_MARKS = {"star": "★3", "points2": "+2"}
"""A tree space's mark as the pictures print it (the token spaces show their letter)."""
SHOP_SPACES = ("+2", "+3", "+4", "+5")
STABLE_SPACES = ("+1", "+2", "+3")
INSPECTION_DAYS = (3, 6)
"""W-5: Santa inspects after Day 3 and after Day 6."""
CATEGORIES = ("Toys", "Clothing", "Decorations")


# --------------------------------------------------------------------------- seats


@dataclass(frozen=True)
class Seat:
    """Who a token stands for: the seat (0-based, as on the pictures), the display name,
    and the token's shape (``points`` of its polygon; ``None`` for the circle)."""

    seat: int
    name: str
    shape: str
    points: str | None

    @property
    def number(self) -> int:
        return self.seat + 1

    @property
    def colour(self) -> int:
        """The seat's colour class (``seat-0`` …), wrapping after six seats."""
        return self.seat % len(PLAYER_COLOURS)


def _polygon(seat: int) -> tuple[str, str | None]:
    shape = PLAYER_SHAPES[seat % len(PLAYER_SHAPES)]
    points = shape_points(shape, 0, 0, TOKEN_RADIUS)
    if points is None:
        return shape, None
    return shape, " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def _seat(seat: int, player: PlayerId, names: Mapping[PlayerId, str]) -> Seat:
    shape, points = _polygon(seat)
    return Seat(seat=seat, name=names.get(player) or player, shape=shape, points=points)


def _seats(players: list[PlayerId], names: Mapping[PlayerId, str]) -> dict[PlayerId, Seat]:
    return {player: _seat(k, player, names) for k, player in enumerate(players)}


def _spectators_only(view: Any) -> None:
    if getattr(view, "viewer", None) is not None:
        raise ValueError("A web board shows the spectator's view (view(state, None)) only.")


# --------------------------------------------------------------------------- Santa's Workshop


@dataclass(frozen=True)
class Need:
    """One Material of a toy: ``placed`` of ``needed`` tokens on it."""

    material: str
    letter: str
    name: str
    placed: int
    needed: int


@dataclass(frozen=True)
class Toy:
    name: str
    points: int
    needs: tuple[Need, ...]


@dataclass(frozen=True)
class Space:
    """An Elf space: its label ("+2", "Elf") and the seat of the Elf on it, if any."""

    label: str
    occupant: Seat | None


@dataclass(frozen=True)
class Shop:
    material: str
    letter: str
    name: str
    spaces: tuple[Space, ...]


@dataclass(frozen=True)
class Day:
    number: int
    date: int
    when: Literal["past", "now", "future"]
    inspection: bool


@dataclass(frozen=True)
class TreeSpace:
    """A space of a player's tree: its mark ("★3", "W"), its name ("Star: 3 points")
    and the ornament on it (colour id and name, reward), if any."""

    mark: str
    label: str
    colour: str | None = None
    colour_name: str = ""
    reward: str = ""


@dataclass(frozen=True)
class Area:
    """A player's area: everything public about their mat (W-7.1)."""

    seat: Seat
    score: int
    first: bool
    acting: bool
    elves_left: int
    reindeer: int
    cheer: tuple[int, ...]
    unfinished: tuple[Toy, ...]
    completed: tuple[str, ...]
    tree: tuple[TreeSpace, ...]
    ornaments: int


@dataclass(frozen=True)
class Supply:
    """A count of tokens of one Material (the Donation Center, the supply)."""

    material: str
    letter: str
    name: str
    count: int


def _toy(toy: ToyView, words: Words, *, progress: bool) -> Toy:
    needs = tuple(
        Need(
            material=m,
            letter=letter(m, words),
            name=words.gettext(MATERIAL_NAMES[m]),
            placed=toy.placed.get(m, 0) if progress else need,
            needed=need,
        )
        for m, need in toy.requires.items()
        if need
    )
    return Toy(name=words.gettext(toy.name), points=toy.points, needs=needs)


def _spaces(
    labels: tuple[str, ...], station: StationView, seats: dict[PlayerId, Seat]
) -> tuple[Space, ...]:
    """Elf spaces in order; the k-th Elf on a station stands on its k-th space."""
    return tuple(
        Space(label, seats[station.occupants[k]] if k < len(station.occupants) else None)
        for k, label in enumerate(labels)
    )


def _tree(player: PlayerView, words: Words) -> tuple[TreeSpace, ...]:
    spaces = []
    for space in player.tree:
        mark = SPACE_MARKS.get(space.space) or letter(space.space, words)
        label = words.gettext(space.label)
        if space.ornament is None:
            spaces.append(TreeSpace(mark=mark, label=label))
        else:
            colour = space.ornament.colour
            spaces.append(
                TreeSpace(
                    mark=mark,
                    label=label,
                    colour=colour,
                    colour_name=colour_name(colour, words),
                    reward=words.gettext(space.ornament.reward),
                )
            )
    return tuple(spaces)


def _area(view: WorkshopView, player: PlayerView, seat: Seat, words: Words) -> Area:
    return Area(
        seat=seat,
        score=player.score,
        first=player.player == view.first_player and not view.over,
        acting=player.player == view.pending.player and not view.over,
        elves_left=player.elves_left,
        reindeer=player.reindeer_count,
        cheer=tuple(player.cheer),
        unfinished=tuple(_toy(t, words, progress=True) for t in player.unfinished),
        completed=tuple(words.gettext(t.name) for t in player.completed),
        tree=_tree(player, words),
        ornaments=player.ornaments,
    )


def _supply(counts: Mapping[str, int], words: Words) -> tuple[Supply, ...]:
    return tuple(
        Supply(m, letter(m, words), words.gettext(MATERIAL_NAMES[m]), n)
        for m, n in counts.items()
        if m in MATERIAL_NAMES
    )


def _workshop_board(view: WorkshopView, names: Mapping[PlayerId, str], words: Words) -> Markup:
    seats = _seats([p.player for p in view.players], names)
    station = {s.station: s for s in view.stations}
    shops = tuple(
        Shop(
            m,
            letter(m, words),
            words.gettext(station[m].name),
            _spaces(SHOP_SPACES, station[m], seats),
        )
        for m in ("wood", "metal", "fabric", "assembly")
    )
    days = tuple(
        Day(
            number=d,
            date=18 + d,  # W-2.1: Day d is December 18 + d
            when="past" if d < view.day or view.over else "now" if d == view.day else "future",
            inspection=d in INSPECTION_DAYS,
        )
        for d in range(1, 7)
    )
    elf = words.gettext("Elf")
    return render(
        "workshop_board.html",
        words,
        view=view,
        days=days,
        shops=shops,
        mail=(
            (words.gettext("take ≤3"), _spaces((elf,), station["mail3"], seats)),
            (words.gettext("take ≤2"), _spaces((elf,), station["mail2"], seats)),
        ),
        mail_slots=tuple(
            None if t is None else _toy(t, words, progress=False) for t in view.mail_slots
        ),
        stables=_spaces(STABLE_SPACES, station["stables"], seats),
        stalls=tuple(view.stalls),
        donors=tuple(seats[p] for p in station["donation"].occupants),
        donation=_supply(view.donation, words),
        supply=" ".join(f"{s.letter}{s.count}" for s in _supply(view.supply, words)),
        trees=_spaces((elf,), station["tree1"], seats) + _spaces((elf,), station["tree2"], seats),
        ornaments_left=tuple(
            (colour, colour_name(colour, words), left)
            for colour, left in view.ornaments_left.items()
        ),
        areas=tuple(_area(view, p, seats[p.player], words) for p in view.players),
        legend=words.gettext(
            "W Wood · M Metal · F Fabric · A Assembly\n"
            "+2 … +5: what a shop space gives\n"
            "Tree spaces: ★3 and +2 points, or 1 token\n"
            "Cheer: your count at each Inspection\n"
            "Toy points in green; frame = to act"
        ).splitlines(),
        example=Need("wood", letter("wood", words), words.gettext(MATERIAL_NAMES["wood"]), 1, 2),
    )


def _workshop_doing(view: WorkshopView, words: Words) -> str:
    """What the player to act decides, with the tokens or the ornament in their hand,
    as the picture's header says it."""
    pending = view.pending
    doing = words.gettext(DECISIONS.get(pending.decision, pending.decision))
    if pending.ornament is not None:
        return words.gettext("{decision} · {colour} ornament: {reward}").format(
            decision=doing,
            colour=colour_name(pending.ornament.colour, words),
            reward=words.gettext(pending.ornament.reward),
        )
    if pending.tokens:
        tokens = " ".join(
            words.gettext("{n} {material}").format(n=n, material=words.gettext(MATERIAL_NAMES[m]))
            for m, n in pending.tokens.items()
        )
        return words.gettext("{decision} · in hand: {tokens}").format(decision=doing, tokens=tokens)
    return doing


# --------------------------------------------------------------------------- Workshop Tonttu


@dataclass(frozen=True)
class Card:
    """Material cards of one type (``count`` of them), or one face-down card (``down``)."""

    material: str
    name: str
    count: int = 1
    down: bool = False


@dataclass(frozen=True)
class Gift:
    name: str
    category: str
    category_name: str
    needs: tuple[Card, ...]


@dataclass(frozen=True)
class Won:
    """A seat's gifts of one category, in the order they were won."""

    category: str
    category_name: str
    gifts: tuple[str, ...]


@dataclass(frozen=True)
class Bench:
    """A seat's area: hand size, workbench, gifts won, score and whether it has chosen
    (never what: T-6)."""

    seat: Seat
    hand_size: int
    cards: tuple[Card, ...]
    score: int
    chosen: bool
    waiting: bool
    won: tuple[Won, ...]


def _card(material: str, words: Words, count: int = 1, *, down: bool = False) -> Card:
    return Card(material=material, name=material_name(material, words), count=count, down=down)


def _gift(gift: GiftCard, words: Words) -> Gift:
    return Gift(
        name=words.gettext(gift.name),
        category=gift.category,
        category_name=category_name(gift.category, words),
        needs=tuple(_card(m, words) for m in gift.needs),
    )


def _bench(view: TonttuView, seat: SeatView, who: Seat, words: Words) -> Bench:
    counts = Counter(seat.face_up)
    cards = [_card(m, words, counts[m]) for m in MATERIAL_ORDER if counts.get(m)]
    cards += [_card(m, words, n) for m, n in counts.items() if m not in MATERIAL_ORDER]
    if seat.has_face_down:  # its type is its owner's secret (T-6): a back
        cards.append(Card(material="down", name=words.gettext("down"), down=True))
    won: dict[str, list[str]] = {category: [] for category in CATEGORIES}
    for gift in seat.gifts:
        won.setdefault(gift.category, []).append(words.gettext(gift.name))
    playing = view.phase != "over"
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
    )


def _tonttu_phase(view: TonttuView, words: Words) -> str:
    """The phase banner's sentence (the picture's red bar)."""
    if view.phase == "over":
        reason = view.end_reason or ""
        return words.gettext("Game over: {reason}.").format(
            reason=words.gettext(END_REASONS[reason]) if reason in END_REASONS else reason
        )
    if view.mode == "speed" and view.phase == "point":
        return words.gettext("Point race: the first valid point at a card wins it")
    return words.gettext(PHASE_TEXT[view.phase]) if view.phase in PHASE_TEXT else view.phase


def _tonttu_board(view: TonttuView, names: Mapping[PlayerId, str], words: Words) -> Markup:
    seats = _seats([s.player for s in view.seats], names)
    mode = MODE_NAMES.get(view.mode)
    return render(
        "tonttu_board.html",
        words,
        view=view,
        mode=words.gettext(mode) if mode else view.mode,
        phase=_tonttu_phase(view, words),
        gifts=tuple(None if g is None else _gift(g, words) for g in view.middle_gifts),
        benches=tuple(_bench(view, s, seats[s.player], words) for s in view.seats),
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


def _line(template: str, words: Words, **context: Any) -> Markup:
    """A template that makes one line, without the blank lines around it."""
    return Markup(str(render(template, words, **context)).strip())


def _lines(text: str) -> str:
    """A picture's text, broken into lines to fit there, as one paragraph."""
    return " ".join(line.strip() for line in text.splitlines())


# --------------------------------------------------------------------------- the two entries


def board_html(kind: str, view: Any, names: Mapping[PlayerId, str], words: Words) -> Markup:
    """The board of a ``"workshop"`` or ``"tonttu"`` table as HTML, from the spectator's
    view (``GAME.view(state, None)``); labels in the language of ``words``.

    Raises ``ValueError`` for a player's own view (it holds their secrets) and for an
    unknown kind."""
    _spectators_only(view)
    if kind == "workshop" and isinstance(view, WorkshopView):
        return _workshop_board(view, names, words)
    if kind == "tonttu" and isinstance(view, TonttuView):
        return _tonttu_board(view, names, words)
    raise ValueError(f"No board for the game {kind!r} and a {type(view).__name__}.")


def status_html(kind: str, view: Any, names: Mapping[PlayerId, str], words: Words) -> Markup:
    """One line: who must act and what they decide ("To act: Esperanza to take donated
    tokens"; Workshop Tonttu: the phase, who has chosen and who is still choosing), as
    the picture's header says it; "Game over" once the game has ended."""
    _spectators_only(view)
    if kind == "workshop" and isinstance(view, WorkshopView):
        seats = _seats([p.player for p in view.players], names)
        acting = None if view.over or view.pending.player is None else view.pending.player
        return _line(
            "board_status.html",
            words,
            kind=kind,
            over=view.over,
            actor=None if acting is None else seats.get(acting),
            doing="" if acting is None else _workshop_doing(view, words),
        )
    if kind == "tonttu" and isinstance(view, TonttuView):
        seats = _seats([s.player for s in view.seats], names)
        over = view.phase == "over"
        return _line(
            "board_status.html",
            words,
            kind=kind,
            over=over,
            phase=_tonttu_phase(view, words),
            chosen=tuple(seats[s.player] for s in view.seats if s.chosen and not over),
            waiting=tuple(
                seats[s.player] for s in view.seats if s.to_act and not s.chosen and not over
            ),
        )
    raise ValueError(f"No status for the game {kind!r} and a {type(view).__name__}.")


__all__ = ["board_html", "status_html"]
