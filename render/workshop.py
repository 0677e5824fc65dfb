"""Santa's Workshop as a picture, drawn from a :class:`WorkshopView` only.

The view is already stripped for its viewer (W-7), so nothing secret can reach a
picture: the public board is drawn from ``view(state, None)``; a player's private
picture from their own view, which adds their reindeer names (W-7.2).

Regions that a decision seldom changes (each player's area, the shops, the calendar,
toy cards, Elf spaces, tree rows) are drawn through :meth:`Canvas.reuse`, keyed by
what they show (the ``*_key`` functions below) and what lies under them.

One file, about 800 lines, on purpose: it is one picture, and its regions are placed
relative to each other (the calendar beside the shops, each player's area under the
board, the legend in the space left); a region in another file would still need the
whole layout to know where it goes.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from functools import partial

from engine.core import PlayerId
from engine.words import ENGLISH, N_, Words
from engine.workshop.models import (
    PlayerView,
    StationView,
    ToyView,
    TreeSpaceView,
    WorkshopView,
)
from render.canvas import (
    CARD,
    GOLD,
    GREEN,
    HIGHLIGHT,
    INK,
    LINE,
    MUTED,
    PAPER,
    PLAYER_COLOURS,
    RED,
    RGB,
    WHITE,
    Canvas,
    ink_on,
    mix,
    player_name,
)

WIDTH = 1200
MARGIN = 20
GAP = 12

MATERIAL_COLOURS: dict[str, RGB] = {
    "wood": (150, 98, 44),
    "metal": (112, 124, 138),
    "fabric": (176, 48, 112),
    "assembly": (236, 190, 40),
}
LETTERS = {
    # TRANSLATORS: the letter of the Material Wood on the pictures' chips (one or two letters)
    "wood": N_("W"),
    # TRANSLATORS: the letter of the Material Metal on the pictures' chips (one or two letters)
    "metal": N_("M"),
    # TRANSLATORS: the letter of the Material Fabric on the pictures' chips (one or two letters)
    "fabric": N_("F"),
    # TRANSLATORS: the letter of the Material Assembly on the pictures' chips (one or two letters)
    "assembly": N_("A"),
}
"""A Material's letter on chips and tree spaces (translated where drawn)."""
MATERIAL_NAMES = {
    "wood": N_("Wood"),
    "metal": N_("Metal"),
    "fabric": N_("Fabric"),
    "assembly": N_("Assembly"),
}
COLOUR_NAMES = {
    "red": N_("red"),
    "gold": N_("gold"),
    "silver": N_("silver"),
    "blue": N_("blue"),
    "green": N_("green"),
}
"""An ornament colour's name (the engine's colours are English words)."""
ORNAMENT_COLOURS: dict[str, RGB] = {
    "red": (200, 40, 40),
    "gold": (232, 180, 30),
    "silver": (190, 196, 204),
    "blue": (40, 90, 200),
    "green": (40, 150, 70),
}
SPACE_LABELS = {"star": "★3", "points2": "+2", **LETTERS}
DECISIONS = {
    "station": N_("to place an Elf"),
    "mail": N_("to take toy cards"),
    "reindeer": N_("to choose a reindeer"),
    "choose_material": N_("to choose a Material"),
    "place_tokens": N_("to place or donate tokens"),
    "ornament": N_("to choose an ornament"),
    "tree_space": N_("to choose a tree space"),
    "donation": N_("to take donated tokens"),
}
"""What the player to act decides, after their name in the header."""
PLAYER_PANEL_HEIGHT = 372


def render_board(
    view: WorkshopView, names: Mapping[PlayerId, str], words: Words = ENGLISH
) -> bytes:
    """The whole table (PNG bytes): shared board and every player's area."""
    return draw_board(view, names, words).png()


def render_private(
    view: WorkshopView, names: Mapping[PlayerId, str], words: Words = ENGLISH
) -> bytes:
    """The viewer's own area with their secrets (reindeer names), as PNG bytes."""
    return draw_private(view, names, words).png()


def colour_name(colour: str, words: Words) -> str:
    """An ornament colour's name ("red"; German "rot")."""
    return words.gettext(COLOUR_NAMES[colour]) if colour in COLOUR_NAMES else colour


def letter(material: str, words: Words) -> str:
    """A Material's letter on chips ("W"; German "H")."""
    return words.gettext(LETTERS[material])


# --------------------------------------------------------------------------- tile keys


def toy_key(toy: ToyView | None) -> Hashable:
    """Everything a toy shows: name, points, needs and what is placed."""
    if toy is None:
        return None
    return (toy.name, toy.points, tuple(toy.requires.items()), tuple(toy.placed.items()))


def tree_key(tree: list[TreeSpaceView]) -> Hashable:
    return tuple(
        (s.space, s.label, s.ornament.colour if s.ornament is not None else None) for s in tree
    )


# --------------------------------------------------------------------------- whole board


def draw_board(view: WorkshopView, names: Mapping[PlayerId, str], words: Words = ENGLISH) -> Canvas:
    """The public table; every label through ``words`` (regions drawn in one language are
    kept apart from the same regions in another: ``words`` is part of their tile keys)."""
    rows = (len(view.players) + 1) // 2
    height = 790 + rows * (PLAYER_PANEL_HEIGHT + GAP) + MARGIN
    c = Canvas(WIDTH, height)
    seat_of = {p.player: p.seat for p in view.players}
    y = _header(c, view, names, seat_of, words)
    y = _calendar(c, view, y + 12, words)
    y = _shops(c, view, y + GAP, seat_of, words)
    y = _middle(c, view, y + GAP, seat_of, words)
    col = (WIDTH - 2 * MARGIN - GAP) // 2
    for i, player in enumerate(view.players):
        x = MARGIN + (i % 2) * (col + GAP)
        top = y + GAP + (i // 2) * (PLAYER_PANEL_HEIGHT + GAP)
        _player_panel(c, view, player, names, x, top, col, words=words)
    if len(view.players) % 2:
        legend_y = y + GAP + (rows - 1) * (PLAYER_PANEL_HEIGHT + GAP)
        _legend(c, MARGIN + col + GAP, legend_y, col, words)
    return c


def _legend(c: Canvas, x: float, y: float, w: float, words: Words) -> None:
    """How to read the board, in the free place beside an odd player's area."""
    c.reuse(
        ("legend", w, words),
        (x, y, x + w, y + PLAYER_PANEL_HEIGHT),
        lambda: _draw_legend(c, x, y, w, words),
    )


def _draw_legend(c: Canvas, x: float, y: float, w: float, words: Words) -> None:
    c.box((x, y, x + w, y + PLAYER_PANEL_HEIGHT), fill=PAPER, outline=LINE, radius=14)
    c.text(x + 16, y + 14, words.gettext("How to read the board"), 22, bold=True)
    row = y + 60
    colour = MATERIAL_COLOURS["wood"]
    chip = c.chip(x + 16, row - 13, letter("wood", words), colour, height=26)
    shift = max(0, chip - c.text_width("W", 20, True) - 14)  # a longer letter than "W"
    c.pips(x + 56 + shift, row, 1, 2, colour)
    c.text(
        x + 110 + shift,
        row,
        words.gettext("1 Wood placed, 1 still needed"),
        20,
        anchor="lm",
        max_width=int(w - 126 - shift),
    )
    # TRANSLATORS: five lines, each at most about 45 characters; the letters as on the chips
    lines = words.gettext(
        "W Wood · M Metal · F Fabric · A Assembly\n"
        "+2 … +5: what a shop space gives\n"
        "Tree spaces: ★3 and +2 points, or 1 token\n"
        "Cheer: your count at each Inspection\n"
        "Toy points in green; frame = to act"
    ).splitlines()
    for k, line in enumerate(lines):
        c.text(x + 16, row + 26 + k * 34, line, 20, fill=MUTED, max_width=int(w - 32))


def _name(names: Mapping[PlayerId, str], player: PlayerId | None, words: Words) -> str:
    if player is None:
        return words.gettext("nobody")
    return player_name(names, player)


def _date(day: int, words: Words) -> str:
    """W-2.1: Day d is December 18 + d ("December 19"; German "19. Dezember")."""
    return words.gettext("December {date}").format(date=18 + day)


def _header(
    c: Canvas,
    view: WorkshopView,
    names: Mapping[PlayerId, str],
    seat_of: dict[PlayerId, int],
    words: Words,
) -> int:
    c.draw.rectangle((0, 0, WIDTH, 64), fill=RED)
    c.text(MARGIN, 32, words.gettext("Santa's Workshop"), 30, bold=True, fill=WHITE, anchor="lm")
    if view.over:
        right = words.gettext("Game over")
    else:
        right = words.gettext("Day {day} of 6 · {date}").format(
            day=view.day, date=_date(view.day, words)
        )
    c.text(WIDTH - MARGIN, 32, right, 26, bold=True, fill=WHITE, anchor="rm")
    c.draw.rectangle((0, 64, WIDTH, 112), fill=GREEN)
    if view.over:
        ranked = sorted(view.players, key=lambda p: -p.score)
        best = ranked[0].score
        leaders = ", ".join(_name(names, p.player, words) for p in ranked if p.score == best)
        c.text(
            MARGIN,
            88,
            words.gettext("Final scores · top score {best}: {leaders}").format(
                best=best, leaders=leaders
            ),
            22,
            bold=True,
            fill=WHITE,
            anchor="lm",
            max_width=WIDTH - 2 * MARGIN,
        )
        return 112
    pending = view.pending
    x = MARGIN
    if pending.player is not None:
        to_act = words.gettext("To act:")
        c.text(x, 88, to_act, 22, fill=WHITE, anchor="lm")
        x += c.text_width(to_act, 22) + 24
        c.token(x, 88, seat_of[pending.player], r=16)
        x += 26
        x += c.text(
            x,
            88,
            _name(names, pending.player, words),
            22,
            bold=True,
            fill=WHITE,
            anchor="lm",
            max_width=300,
        )
        doing = words.gettext(DECISIONS.get(pending.decision, pending.decision))
        if pending.ornament is not None:
            doing = words.gettext("{decision} · {colour} ornament: {reward}").format(
                decision=doing,
                colour=colour_name(pending.ornament.colour, words),
                reward=words.gettext(pending.ornament.reward),
            )
        elif pending.tokens:
            tokens = " ".join(
                words.gettext("{n} {material}").format(
                    n=n, material=words.gettext(MATERIAL_NAMES[m])
                )
                for m, n in pending.tokens.items()
            )
            doing = words.gettext("{decision} · in hand: {tokens}").format(
                decision=doing, tokens=tokens
            )
        c.text(
            x + 10,
            88,
            doing,
            22,
            fill=WHITE,
            anchor="lm",
            max_width=WIDTH - MARGIN - x - 10,
        )
    return 112


def _calendar(c: Canvas, view: WorkshopView, y: int, words: Words) -> int:
    box = (MARGIN, y, WIDTH - MARGIN, y + 64)
    c.reuse(
        ("calendar", view.day, view.over, words), box, lambda: _draw_calendar(c, view, y, words)
    )
    return y + 64


def _draw_calendar(c: Canvas, view: WorkshopView, y: int, words: Words) -> None:
    width = (WIDTH - 2 * MARGIN - 5 * 8) / 6
    for d in range(1, 7):
        x = MARGIN + (d - 1) * (width + 8)
        current = d == view.day and not view.over
        past = d < view.day or view.over
        fill = RED if current else (mix(PAPER, LINE, 0.5) if past else CARD)
        ink = WHITE if current else (MUTED if past else INK)
        c.box((x, y, x + width, y + 64), fill=fill, outline=RED if current else LINE, radius=10)
        day = words.gettext("Day {day} · Dec {date}").format(day=d, date=18 + d)
        c.text(x + 12, y + 18, day, 20, bold=True, fill=ink, anchor="lm", max_width=int(width - 16))
        if d in (3, 6):  # W-5: Santa's Inspection after Day 3 and Day 6
            c.star(x + 22, y + 46, 11, GOLD, mix(GOLD, INK, 0.5))
            inspection = words.gettext("Inspection")
            c.text(x + 38, y + 46, inspection, 20, fill=ink, anchor="lm", max_width=int(width - 80))
        if current:
            _santa_hat(c, x + width - 22, y + 46)


def _santa_hat(c: Canvas, x: float, y: float) -> None:
    """Santa's marker on the calendar."""
    c.draw.polygon([(x - 13, y + 7), (x + 13, y + 7), (x + 5, y - 13)], fill=WHITE)
    c.draw.polygon([(x - 10, y + 6), (x + 10, y + 6), (x + 4, y - 10)], fill=(220, 40, 40))
    c.draw.ellipse((x + 1, y - 17, x + 9, y - 9), fill=WHITE)
    c.draw.rounded_rectangle((x - 14, y + 4, x + 14, y + 12), radius=4, fill=WHITE)


def _station(view: WorkshopView, key: str) -> StationView:
    return next(s for s in view.stations if s.station == key)


def _title(c: Canvas, x: float, y: float, text: str, colour: RGB = INK) -> None:
    c.text(x, y, text, 22, bold=True, fill=colour)


def _elf(words: Words) -> str:
    # TRANSLATORS: an empty Elf space's label, in a box 44 pixels wide (three letters)
    return words.gettext("Elf")


def _spaces(
    c: Canvas,
    x: float,
    y: float,
    labels: list[str],
    occupants: list[PlayerId],
    seat_of: dict[PlayerId, int],
    size: int = 52,
) -> float:
    """Elf spaces in order (on a box of ``CARD``); an occupied one shows the Elf's owner
    token."""
    for k, label in enumerate(labels):
        bx = x + k * (size + 10)
        seat = seat_of[occupants[k]] if k < len(occupants) else None
        c.reuse(
            ("space", label, seat, size),
            (bx, y, bx + size, y + size),
            partial(_space, c, bx, y, label, seat, size),
        )
    return x + len(labels) * (size + 10)


def _space(c: Canvas, x: float, y: float, label: str, seat: int | None, size: int) -> None:
    taken = seat is not None
    c.box(
        (x, y, x + size, y + size),
        fill=CARD if taken else PAPER,
        outline=INK if taken else LINE,
        radius=8,
    )
    if seat is not None:
        c.token(x + size / 2, y + size / 2, seat, r=18)
    else:
        c.text(x + size / 2, y + size / 2, label, 20, fill=MUTED, anchor="mm")


def _shops(
    c: Canvas, view: WorkshopView, y: int, seat_of: dict[PlayerId, int], words: Words
) -> int:
    shops = [_station(view, key) for key in ("wood", "metal", "fabric", "assembly")]
    key = ("shops", words, *((s.name, *(seat_of[p] for p in s.occupants)) for s in shops))
    box = (MARGIN, y, WIDTH - MARGIN, y + 122)
    c.reuse(key, box, lambda: _draw_shops(c, view, y, seat_of, words))
    return y + 122


def _draw_shops(
    c: Canvas, view: WorkshopView, y: int, seat_of: dict[PlayerId, int], words: Words
) -> None:
    width = (WIDTH - 2 * MARGIN - 3 * GAP) / 4
    for i, key in enumerate(("wood", "metal", "fabric", "assembly")):
        x = MARGIN + i * (width + GAP)
        station = _station(view, key)
        c.box((x, y, x + width, y + 122))
        colour = MATERIAL_COLOURS[key]
        chip = c.chip(x + 12, y + 10, letter(key, words), colour)
        left = 56 + max(0, chip - c.text_width(LETTERS[key], 20, True) - 14)  # a longer letter
        name = words.gettext(station.name)
        c.text(x + left, y + 24, name, 22, bold=True, anchor="lm", max_width=int(width - left - 8))
        _spaces(c, x + 12, y + 56, ["+2", "+3", "+4", "+5"], station.occupants, seat_of)


def _requirement(
    c: Canvas, x: float, y: float, toy: ToyView, progress: bool, words: Words
) -> float:
    """Material letter chips with one dot per token: solid when placed, hollow when needed."""
    for m, need in toy.requires.items():
        if not need:
            continue
        colour = MATERIAL_COLOURS[m]
        x += c.chip(x, y - 13, letter(m, words), colour, height=26) + 4
        have = toy.placed.get(m, 0) if progress else need
        x += c.pips(x, y, have, need, colour) + 12
    return x


def _toy_card(
    c: Canvas, toy: ToyView | None, x: float, y: float, w: float, h: float, words: Words
) -> None:
    """A toy card on a box of ``CARD``."""
    box = (x, y, x + w, y + h)
    c.reuse(
        ("toy card", toy_key(toy), w, h, words),
        box,
        lambda: _draw_toy_card(c, toy, x, y, w, h, words),
    )


def _draw_toy_card(
    c: Canvas, toy: ToyView | None, x: float, y: float, w: float, h: float, words: Words
) -> None:
    if toy is None:
        c.box((x, y, x + w, y + h), fill=PAPER, outline=LINE)
        c.text(x + w / 2, y + h / 2, words.gettext("empty"), 20, fill=MUTED, anchor="mm")
        return
    c.box((x, y, x + w, y + h))
    badge = _points_badge(c, x + w - 12, y + 19, toy.points, words)
    english = c.text_width("11 pts", 20, True) + 14  # the widest English badge
    name_width = int(w - 90 - max(0, badge - english))
    c.text(x + 12, y + 8, words.gettext(toy.name), 20, bold=True, max_width=name_width)
    _requirement(c, x + 12, y + h - 22, toy, progress=False, words=words)


def _points_badge(c: Canvas, right: float, cy: float, points: int, words: Words) -> int:
    """A toy's points in a green badge ending at ``right``; returns its width."""
    # TRANSLATORS: a toy card's points, short ("pts" also for 1 point)
    label = words.gettext("{points} pts").format(points=points)
    width = c.text_width(label, 20, True) + 14
    c.draw.rounded_rectangle((right - width, cy - 13, right, cy + 13), radius=8, fill=GREEN)
    c.text(right - width / 2, cy, label, 20, bold=True, fill=WHITE, anchor="mm")
    return width


def _middle(
    c: Canvas, view: WorkshopView, y: int, seat_of: dict[PlayerId, int], words: Words
) -> int:
    """Mail Room on the left; Stables, Donation Center and Christmas Tree on the right."""
    height = 420
    left_w = 700
    x = MARGIN
    c.box((x, y, x + left_w, y + height))
    mail = tuple(tuple(seat_of[p] for p in _station(view, k).occupants) for k in ("mail3", "mail2"))
    c.reuse(
        ("mail room", mail, view.deck_size, view.sleigh_size, words),
        (x, y, x + left_w, y + 70),
        lambda: _mail_room_head(c, view, x, y, left_w, seat_of, words),
    )
    card_w = (left_w - 28 - 10) / 2
    for k, toy in enumerate(view.mail_slots[:6]):
        cx = x + 14 + (k % 2) * (card_w + 10)
        cy = y + 76 + (k // 2) * 104
        _toy_card(c, toy, cx, cy, card_w, 94, words)

    # right column, on the page
    rx = x + left_w + GAP
    rw = WIDTH - MARGIN - rx
    stables = tuple(seat_of[p] for p in _station(view, "stables").occupants)
    c.reuse(
        ("stables", stables, view.reindeer_deck_size, tuple(view.stalls[:3]), words),
        (rx, y, rx + rw, y + 148),
        lambda: _stables(c, view, rx, y, rw, seat_of, words),
    )
    dy = y + 148 + 10
    donation = tuple(seat_of[p] for p in _station(view, "donation").occupants[:8])
    c.reuse(
        ("donation", tuple(view.donation.items()), donation, tuple(view.supply.items()), words),
        (rx, dy, rx + rw, dy + 112),
        lambda: _donation(c, view, rx, dy, rw, seat_of, words),
    )
    ty = dy + 112 + 10
    trees = tuple(
        tuple(seat_of[p] for p in _station(view, k).occupants) for k in ("tree1", "tree2")
    )
    c.reuse(
        ("tree", trees, tuple(view.ornaments_left.items()), words),
        (rx, ty, rx + rw, y + height),
        lambda: _christmas_tree(c, view, rx, ty, rw, y + height, seat_of, words),
    )
    return y + height


def _mail_room_head(
    c: Canvas,
    view: WorkshopView,
    x: float,
    y: float,
    w: float,
    seat_of: dict[PlayerId, int],
    words: Words,
) -> None:
    """The Mail Room's title, Elf spaces and deck sizes, on its box (``CARD``)."""
    _title(c, x + 14, y + 12, words.gettext("Mail Room"))
    sx: float = x + 150
    # TRANSLATORS: beside the Mail Room's two Elf spaces; short (about 6 characters)
    take = (("mail3", words.gettext("take ≤3")), ("mail2", words.gettext("take ≤2")))
    for key, label in take:
        station = _station(view, key)
        c.text(sx, y + 38, label, 20, fill=MUTED, anchor="lm")
        sx += c.text_width(label) + 8
        sx = _spaces(c, sx, y + 12, [_elf(words)], station.occupants, seat_of) + 14
    c.text(
        x + w - 14,
        y + 38,
        words.gettext("deck {deck} · sleigh {sleigh}").format(
            deck=view.deck_size, sleigh=view.sleigh_size
        ),
        20,
        fill=MUTED,
        anchor="rm",
        max_width=int(x + w - 14 - sx - 10),  # clear of the Elf spaces
    )


def _stables(
    c: Canvas,
    view: WorkshopView,
    rx: float,
    y: float,
    rw: float,
    seat_of: dict[PlayerId, int],
    words: Words,
) -> None:
    c.box((rx, y, rx + rw, y + 148))
    _title(c, rx + 14, y + 12, words.gettext("Reindeer Stables"))
    deck = words.gettext("deck {deck}").format(deck=view.reindeer_deck_size)
    c.text(rx + rw - 14, y + 24, deck, 20, fill=MUTED, anchor="rm")
    stables = _station(view, "stables")
    _spaces(c, rx + 14, y + 46, ["+1", "+2", "+3"], stables.occupants, seat_of, size=44)
    empty = words.gettext("(empty)")
    for k, name in enumerate(view.stalls[:3]):
        c.text(
            rx + 190,
            y + 52 + k * 30,
            f"{k + 1}. {name or empty}",
            20,
            fill=INK if name else MUTED,
            max_width=int(rw - 200),
        )


def _donation(
    c: Canvas,
    view: WorkshopView,
    rx: float,
    dy: float,
    rw: float,
    seat_of: dict[PlayerId, int],
    words: Words,
) -> None:
    donation = _station(view, "donation")
    c.box((rx, dy, rx + rw, dy + 112))
    _title(c, rx + 14, dy + 10, words.gettext("Donation Center"))
    tx = rx + 14
    for m, n in view.donation.items():
        tx += c.chip(tx, dy + 44, f"{letter(m, words)} {n}", MATERIAL_COLOURS[m]) + 8
    for k, player in enumerate(donation.occupants[:8]):
        c.token(rx + 26 + k * 40, dy + 92, seat_of[player], r=14)
    if not donation.occupants:
        c.text(rx + 14, dy + 92, words.gettext("no Elves"), 20, fill=MUTED, anchor="lm")
    supply = " ".join(f"{letter(m, words)}{n}" for m, n in view.supply.items())
    label = words.gettext("supply {supply}").format(supply=supply)
    c.text(rx + rw - 14, dy + 92, label, 20, fill=MUTED, anchor="rm")


def _christmas_tree(
    c: Canvas,
    view: WorkshopView,
    rx: float,
    ty: float,
    rw: float,
    bottom: float,
    seat_of: dict[PlayerId, int],
    words: Words,
) -> None:
    c.box((rx, ty, rx + rw, bottom))
    _title(c, rx + 14, ty + 10, words.gettext("Christmas Tree"))
    sx = rx + rw - 14 - 2 * 54
    for key in ("tree1", "tree2"):
        occupants = _station(view, key).occupants
        sx = _spaces(c, sx, ty + 8, [_elf(words)], occupants, seat_of, size=44)
    c.text(rx + 14, ty + 40, words.gettext("ornaments left"), 20, fill=MUTED)
    for k, (colour, left) in enumerate(view.ornaments_left.items()):
        fill = ORNAMENT_COLOURS.get(colour, LINE)
        ox = rx + 14 + (k % 3) * 140
        oy = ty + 70 + (k // 3) * 32
        c.draw.ellipse((ox, oy, ox + 24, oy + 24), fill=fill, outline=mix(fill, INK, 0.5), width=2)
        label = words.gettext("{colour} {left}").format(
            colour=colour_name(colour, words), left=left
        )
        c.text(ox + 30, oy + 12, label, 20, anchor="lm", max_width=106)


# --------------------------------------------------------------------------- player area


def _player_panel(
    c: Canvas,
    view: WorkshopView,
    player: PlayerView,
    names: Mapping[PlayerId, str],
    x: float,
    y: float,
    w: float,
    h: float = PLAYER_PANEL_HEIGHT,
    *,
    words: Words,
) -> None:
    """A player's area, on the page (``PAPER``)."""
    acting = not view.over and view.pending.player == player.player
    first = player.player == view.first_player and not view.over
    key = (
        "player",
        words,
        _name(names, player.player, words),
        player.seat,
        player.score,
        player.elves_left,
        player.reindeer_count,
        tuple(player.cheer),
        tuple(toy_key(t) for t in player.unfinished[:5]),
        tuple(t.name for t in player.completed),
        tree_key(player.tree),
        player.ornaments,
        acting,
        first,
        w,
        h,
    )
    c.reuse(
        key,
        (x, y, x + w, y + h),
        lambda: _draw_player_panel(
            c, player, names, x, y, w, h, acting=acting, first=first, words=words
        ),
    )


def _draw_player_panel(
    c: Canvas,
    player: PlayerView,
    names: Mapping[PlayerId, str],
    x: float,
    y: float,
    w: float,
    h: float,
    *,
    acting: bool,
    first: bool,
    words: Words,
) -> None:
    colour = PLAYER_COLOURS[player.seat % len(PLAYER_COLOURS)]
    ground = mix(CARD, HIGHLIGHT, 0.6) if acting else CARD
    c.box(
        (x, y, x + w, y + h),
        fill=ground,
        outline=colour,
        width=6 if acting else 3,
        radius=14,
    )
    c.draw.rounded_rectangle((x, y, x + w, y + 52), radius=14, fill=mix(colour, WHITE, 0.55))
    c.draw.rectangle((x + 3, y + 40, x + w - 3, y + 52), fill=mix(colour, WHITE, 0.55))
    c.token(x + 30, y + 26, player.seat, r=18)
    badges = []
    if first:
        badges.append((words.gettext("1st player"), INK))
    if acting:
        badges.append((words.gettext("to act"), RED))
    score = words.ngettext("{n} pt", "{n} pts", player.score).format(n=player.score)
    score_w = c.text_width(score, 26, True)
    badge_w = sum(c.text_width(b, 20, True) + 22 for b, _ in badges)
    c.text(
        x + 58,
        y + 26,
        _name(names, player.player, words),
        24,
        bold=True,
        anchor="lm",
        max_width=int(w - 58 - score_w - badge_w - 30),
    )
    bx = x + w - 16 - score_w - 12
    for label, fill in reversed(badges):
        bw = c.text_width(label, 20, True) + 14
        bx -= bw
        c.chip(bx, y + 12, label, fill)
        bx -= 8
    c.text(x + w - 16, y + 26, score, 26, bold=True, anchor="rm")

    # counts line
    info = [
        words.gettext("Elves left {n}").format(n=player.elves_left),
        words.gettext("Reindeer {n}").format(n=player.reindeer_count),
    ]
    if player.cheer:
        cheer = ", ".join(str(n) for n in player.cheer)
        info.append(words.gettext("Cheer {counts}").format(counts=cheer))
    c.text(x + 16, y + 64, " · ".join(info), 20, fill=MUTED, max_width=int(w - 32))

    # unfinished toys
    ty = y + 96
    if not player.unfinished:
        c.text(x + 16, ty + 4, words.gettext("No toys in progress"), 20, fill=MUTED)
    for k, toy in enumerate(player.unfinished[:5]):
        row = ty + k * 34
        c.reuse(
            ("toy row", toy_key(toy), ground, w, words),
            (x + 8, row, x + w - 8, row + 33),  # text may overhang its anchor a little
            partial(_toy_row, c, toy, x, row, w, words),
        )

    # completed toys awaiting inspection
    cy = ty + 5 * 34 + 4
    done = ", ".join(words.gettext(t.name) for t in player.completed)
    c.text(
        x + 16,
        cy,
        "✓ " + (done or words.gettext("no completed toys awaiting inspection")),
        20,
        fill=GREEN if done else MUTED,
        max_width=int(w - 32),
    )

    tree_y = y + h - 64
    c.reuse(
        ("tree row", tree_key(player.tree), player.ornaments, ground, w, words),
        (x + 8, tree_y, x + w - 8, tree_y + 52),
        lambda: _tree_row(c, player, x, tree_y, w, words),
    )


def _toy_row(c: Canvas, toy: ToyView, x: float, row: float, w: float, words: Words) -> None:
    """An unfinished toy in a player's area: name, needs with progress, points (the needs
    move left, and the name gets less room, where longer letters would reach the points)."""
    points = f"{toy.points}"
    needs = _requirement_width(c, toy, words)
    start = min(x + 214, x + w - 16 - c.text_width(points, 20, True) - 8 - needs)
    c.text(x + 16, row + 4, words.gettext(toy.name), 20, max_width=int(min(190, start - x - 24)))
    _requirement(c, start, row + 17, toy, progress=True, words=words)
    c.text(x + w - 16, row + 17, points, 20, bold=True, fill=GREEN, anchor="rm")


def _requirement_width(c: Canvas, toy: ToyView, words: Words) -> float:
    """How wide :func:`_requirement` draws ``toy``'s needs (without the last gap)."""
    width = 0.0
    for m, need in toy.requires.items():
        if need:
            width += c.text_width(letter(m, words), 20, True) + 14 + 4 + need * 18 - 4 + 12
    return width - 12 if width else 0.0


def _tree_row(
    c: Canvas, player: PlayerView, x: float, tree_y: float, w: float, words: Words
) -> None:
    """A player's tree: ornaments placed and the six spaces."""
    tree = words.gettext("Tree {n}/6").format(n=player.ornaments)
    c.text(x + 16, tree_y + 26, tree, 20, bold=True, anchor="lm", max_width=120)
    sx = x + 140
    slot = (w - 140 - 16 - 5 * 6) / 6
    for k, space in enumerate(player.tree):
        bx = sx + k * (slot + 6)
        c.box((bx, tree_y, bx + slot, tree_y + 52), fill=PAPER, outline=LINE, radius=8)
        label = words.gettext(SPACE_LABELS.get(space.space, space.label))
        if space.ornament is not None:
            fill = ORNAMENT_COLOURS.get(space.ornament.colour, LINE)
            c.draw.ellipse(
                (bx + slot / 2 - 20, tree_y + 6, bx + slot / 2 + 20, tree_y + 46),
                fill=fill,
                outline=mix(fill, INK, 0.5),
                width=2,
            )
            c.text(bx + slot / 2, tree_y + 26, label, 20, bold=True, fill=ink_on(fill), anchor="mm")
        else:
            c.text(bx + slot / 2, tree_y + 26, label, 20, fill=MUTED, anchor="mm")


# --------------------------------------------------------------------------- private


def draw_private(
    view: WorkshopView, names: Mapping[PlayerId, str], words: Words = ENGLISH
) -> Canvas:
    """The viewer's own area: their mat as on the board, plus their reindeer names."""
    me = next((p for p in view.players if p.player == view.viewer), None)
    if me is None:
        raise ValueError("A private picture needs a player's own view, not a spectator's.")
    width = 620
    reindeer = me.reindeer or []
    lines = max(1, (len(reindeer) + 1) // 2)
    height = 64 + MARGIN + PLAYER_PANEL_HEIGHT + GAP + 56 + lines * 30 + MARGIN
    c = Canvas(width, height)
    c.draw.rectangle((0, 0, width, 64), fill=RED)
    title = words.gettext("Your area (private)")
    c.text(MARGIN, 32, title, 26, bold=True, fill=WHITE, anchor="lm")
    day = words.gettext("Day {day} of 6").format(day=view.day)
    c.text(width - MARGIN, 32, day, 22, fill=WHITE, anchor="rm")
    _player_panel(c, view, me, names, MARGIN, 64 + MARGIN, width - 2 * MARGIN, words=words)
    y = 64 + MARGIN + PLAYER_PANEL_HEIGHT + GAP
    c.box((MARGIN, y, width - MARGIN, height - MARGIN))
    mine = words.gettext("Your reindeer ({n})").format(n=len(reindeer))
    c.text(MARGIN + 14, y + 12, mine, 22, bold=True)
    if not reindeer:
        c.text(MARGIN + 14, y + 46, words.gettext("none yet"), 20, fill=MUTED)
    for k, name in enumerate(sorted(reindeer)):
        c.text(MARGIN + 14 + (k % 2) * 280, y + 46 + (k // 2) * 30, f"• {name}", 20)
    return c
