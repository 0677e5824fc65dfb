"""A table's board as HTML, for both games, drawn from the engine's view of one reader.

The page shows what the board picture shows (``render/workshop.py``, ``render/tonttu.py``)
as text a person can read, select and hear. What comes in is the engine's view for one
reader, with every secret that reader may not see already stripped (W-7, T-6): the
spectator's view (``GAME.view(state, None)``, the live page and the replay, which anyone
may open), or, for the Discord Activity, a seat's own view (``GAME.view(state, player)``
with ``viewer=player``): its own Tonttu hand and face-down card, the hands it held
earlier in the deal, its own reindeer names. A player's view is refused unless the
caller names that player as the viewer, so no page shows a seat's secrets by mistake.

Every element that stands for a place a choice can point at carries
``data-target="<target id>"`` (the ids of ``engine/choices.py``), legal now or not: the
shared board's on every board, a seat's own toys, tree spaces and hand cards on that
seat's board only. A front end makes the legal ones clickable (class ``clickable``,
``web/static/board.css``). The cards a Tonttu reveal turned up at this version (given
by the move's events) carry the class ``revealed``, which the style sheet animates.

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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any, Literal

from markupsafe import Markup

from engine.core import PlayerId
from engine.tonttu.models import GiftCard, SeatView, TonttuView
from engine.tonttu.text import END_REASONS
from engine.words import Words
from engine.workshop.models import PlayerView, StationView, ToyView, WorkshopView
from render.canvas import PLAYER_COLOURS, PLAYER_SHAPES, shape_points
from render.tonttu import (
    MATERIAL_ORDER,
    MODE_NAMES,
    PHASE_TEXT,
    category_name,
    choice_label,
    material_name,
)
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


def _viewer_only(view: Any, viewer: PlayerId | None) -> None:
    """A player's own view only for that player: it holds their secrets."""
    if getattr(view, "viewer", None) != viewer:
        raise ValueError(
            "A web board shows the spectator's view (view(state, None)), or a player's own"
            " view (view(state, player)) with viewer=player."
        )


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
    target: str | None = None
    """``toy:<card>`` on the viewer's own mat (where its tokens go), else ``None``."""


@dataclass(frozen=True)
class Space:
    """An Elf space: its label ("+2", "Elf"), the seat of the Elf on it, if any, and its
    target id (``station:<station>:<space>``)."""

    label: str
    occupant: Seat | None
    target: str


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
    target: str | None = None
    """``tree:<space>`` on the viewer's own tree, else ``None``."""


@dataclass(frozen=True)
class Area:
    """A player's area: everything public about their mat (W-7.1); the viewer's own
    also names its reindeer (W-7.2)."""

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
    mine: bool = False
    reindeer_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Supply:
    """A count of tokens of one Material (the Donation Center, the supply)."""

    material: str
    letter: str
    name: str
    count: int


def _toy(toy: ToyView, words: Words, *, progress: bool, mine: bool = False) -> Toy:
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
    return Toy(
        name=words.gettext(toy.name),
        points=toy.points,
        needs=needs,
        target=f"toy:{toy.card}" if mine else None,
    )


def _spaces(
    labels: tuple[str, ...], station: StationView, seats: dict[PlayerId, Seat]
) -> tuple[Space, ...]:
    """Elf spaces in order; the k-th Elf on a station stands on its k-th space."""
    return tuple(
        Space(
            label,
            seats[station.occupants[k]] if k < len(station.occupants) else None,
            f"station:{station.station}:{k}",
        )
        for k, label in enumerate(labels)
    )


def _tree(player: PlayerView, words: Words, *, mine: bool) -> tuple[TreeSpace, ...]:
    spaces = []
    for space in player.tree:
        mark = SPACE_MARKS.get(space.space) or letter(space.space, words)
        label = words.gettext(space.label)
        target = f"tree:{space.space}" if mine else None
        if space.ornament is None:
            spaces.append(TreeSpace(mark=mark, label=label, target=target))
        else:
            colour = space.ornament.colour
            spaces.append(
                TreeSpace(
                    mark=mark,
                    label=label,
                    colour=colour,
                    colour_name=colour_name(colour, words),
                    reward=words.gettext(space.ornament.reward),
                    target=target,
                )
            )
    return tuple(spaces)


def _area(view: WorkshopView, player: PlayerView, seat: Seat, words: Words) -> Area:
    mine = view.viewer is not None and player.player == view.viewer
    return Area(
        seat=seat,
        score=player.score,
        first=player.player == view.first_player and not view.over,
        acting=player.player == view.pending.player and not view.over,
        elves_left=player.elves_left,
        reindeer=player.reindeer_count,
        cheer=tuple(player.cheer),
        unfinished=tuple(_toy(t, words, progress=True, mine=mine) for t in player.unfinished),
        completed=tuple(words.gettext(t.name) for t in player.completed),
        tree=_tree(player, words, mine=mine),
        ornaments=player.ornaments,
        mine=mine,
        reindeer_names=tuple(sorted(player.reindeer or ())) if mine else (),
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
        # W-3.2: the Donation Center has room for every Elf; the next takes this space
        donor_space=f"station:donation:{len(station['donation'].occupants)}",
        donation=_supply(view.donation, words),
        supply=_supply(view.supply, words),
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


def _tonttu_board(
    view: TonttuView, names: Mapping[PlayerId, str], words: Words, revealed: Revealed
) -> Markup:
    seats = _seats([s.player for s in view.seats], names)
    mode = MODE_NAMES.get(view.mode)
    return render(
        "tonttu_board.html",
        words,
        view=view,
        mode=words.gettext(mode) if mode else view.mode,
        phase=_tonttu_phase(view, words),
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


def _line(template: str, words: Words, **context: Any) -> Markup:
    """A template that makes one line, without the blank lines around it."""
    return Markup(str(render(template, words, **context)).strip())


def _lines(text: str) -> str:
    """A picture's text, broken into lines to fit there, as one paragraph."""
    return " ".join(line.strip() for line in text.splitlines())


# --------------------------------------------------------------------------- the two entries


def board_html(
    kind: str,
    view: Any,
    names: Mapping[PlayerId, str],
    words: Words,
    *,
    viewer: PlayerId | None = None,
    events: Sequence[Any] = (),
) -> Markup:
    """The board of a ``"workshop"`` or ``"tonttu"`` table as HTML, from the view of
    ``viewer``: ``GAME.view(state, viewer)``, the spectator's (``None``) unless a seat
    is named; labels in the language of ``words``. ``events``: the events of the move
    that made this version (``engine.undo.parse_events_json`` of its log entry), so the
    cards a Tonttu reveal turned up carry the class ``revealed``; none, nothing does.

    Raises ``ValueError`` for a view that is not ``viewer``'s (a player's view holds
    their secrets) and for an unknown kind."""
    _viewer_only(view, viewer)
    if kind == "workshop" and isinstance(view, WorkshopView):
        return _workshop_board(view, names, words)
    if kind == "tonttu" and isinstance(view, TonttuView):
        return _tonttu_board(view, names, words, revealed_by(events))
    raise ValueError(f"No board for the game {kind!r} and a {type(view).__name__}.")


def status_html(
    kind: str,
    view: Any,
    names: Mapping[PlayerId, str],
    words: Words,
    *,
    viewer: PlayerId | None = None,
) -> Markup:
    """One line: who must act and what they decide ("To act: Esperanza to take donated
    tokens"; Workshop Tonttu: the phase, who has chosen and who is still choosing), as
    the picture's header says it; "Game over" once the game has ended. ``viewer``: as
    for :func:`board_html` (the line says nothing secret either way)."""
    _viewer_only(view, viewer)
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


def decision_text(kind: str, view: Any, words: Words) -> str:
    """What the table decides now, in words: the Workshop's pending decision (with the
    tokens or the ornament in hand), Tonttu's phase sentence; as :func:`status_html`
    says it, without who."""
    if kind == "workshop" and isinstance(view, WorkshopView):
        return _workshop_doing(view, words)
    if kind == "tonttu" and isinstance(view, TonttuView):
        return _tonttu_phase(view, words)
    raise ValueError(f"No decision for the game {kind!r} and a {type(view).__name__}.")


class _Text(HTMLParser):
    """The text a reader meets in some markup: what ``aria-hidden`` hides (the seats'
    shapes and numbers) left out, runs of white space made one."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0  # depth inside an aria-hidden element

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.hidden or ("aria-hidden", "true") in attrs:
            self.hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if self.hidden:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def plain_text(markup: Markup) -> str:
    """``markup`` (from these templates: every element closed) as a screen reader says it."""
    reader = _Text()
    reader.feed(str(markup))
    reader.close()
    return " ".join("".join(reader.parts).split())


__all__ = [
    "Revealed",
    "board_html",
    "decision_text",
    "plain_text",
    "revealed_by",
    "status_html",
]
