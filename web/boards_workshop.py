"""Santa's Workshop's board as HTML (``web/boards.py``'s :func:`~web.boards.board_html`):
the engine's view for one reader turned into plain values, with the game words in the
reader's language (the pictures' own tables: ``render/workshop.py``), which
``web/templates/workshop_board.html`` lays out; and the decision pending, as the
picture's header says it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from markupsafe import Markup

from engine.core import PlayerId
from engine.words import Words
from engine.workshop.models import PlayerView, StationView, ToyView, WorkshopView
from render.workshop import DECISIONS, MATERIAL_NAMES, colour_name, letter
from web.boards_seats import Seat, seats_of
from web.templating import render

SPACE_MARKS = {"star": "★3", "points2": "+2"}
"""A tree space's mark as the pictures print it (the token spaces show their letter)."""
SHOP_SPACES = ("+2", "+3", "+4", "+5")
STABLE_SPACES = ("+1", "+2", "+3")
INSPECTION_DAYS = (3, 6)
"""W-5: Santa inspects after Day 3 and after Day 6."""


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


def workshop_board(view: WorkshopView, names: Mapping[PlayerId, str], words: Words) -> Markup:
    seats = seats_of([p.player for p in view.players], names)
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


def workshop_doing(view: WorkshopView, words: Words) -> str:
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
