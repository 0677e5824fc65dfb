"""Santa's Workshop as a picture, drawn from a :class:`WorkshopView` only.

The view is already stripped for its viewer (W-7), so nothing secret can reach a
picture: the public board is drawn from ``view(state, None)``; a player's private
picture from their own view, which adds their reindeer names (W-7.2).

The public board is made for a phone's chat (800 px wide, at most 1.3 times as tall:
``render/canvas.py``'s chat rules): the shared board, then one row per player with
what a spectator needs at a glance. A player's whole area (each toy's progress, their
tree, their reindeer) is their panel picture (:func:`draw_private`).

Regions that a decision seldom changes (the shops, toy cards, Elf spaces, the
Stables, Donation Center and Tree, each player's row and area, tree rows) are drawn
through :meth:`Canvas.reuse`, keyed by what they show (the ``*_key`` functions below)
and what lies under them.

One file on purpose: it is one picture (and the panel picture), and its regions are
placed relative to each other; a region in another file would still need the whole
layout to know where it goes.
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
    CHAT_MAX_ASPECT,
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
    text_width,
    wrap,
)

WIDTH = 800
"""The chat picture's width: Discord shows it about 400 px wide on a phone, so its
20 px text shows at 10 px (``render/canvas.py``: the chat's rules)."""
MARGIN = 16
GAP = 8
SPACE = 36
"""An Elf space's side."""
SHOP_HEIGHT = 86
TOY_CARD_HEIGHT = 64
MAIL_HEIGHT = 52 + 3 * TOY_CARD_HEIGHT + 2 * 8 + 10
ROW_HEIGHT = 176
"""The Stables, the Donation Center and the Christmas Tree, side by side."""
PLAYER_ROW_HEIGHT = 60
ROW_GAP = 6

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
    """The public table as the chat shows it: the shared board and one row per player
    (score, progress, what their toys still need, who is to act). Each player's whole
    area is in their own panel picture (:func:`draw_private`), the complete board on the
    web page. Every label through ``words`` (regions drawn in one language are kept
    apart from the same regions in another: ``words`` is part of their tile keys)."""
    seat_of = {p.player: p.seat for p in view.players}
    status = _status_lines(view, names, words)
    rows = len(view.players)
    top = 48 + _band_height(len(status))
    height = (
        top
        + GAP
        + SHOP_HEIGHT
        + GAP
        + MAIL_HEIGHT
        + GAP
        + ROW_HEIGHT
        + GAP
        + rows * PLAYER_ROW_HEIGHT
        + (rows - 1) * ROW_GAP
        + 12
    )
    legend = _legend_lines(words)
    with_legend = height + len(legend) * 26 + 6 <= WIDTH * CHAT_MAX_ASPECT
    if with_legend:
        height += len(legend) * 26 + 6
    c = Canvas(WIDTH, height)
    y = _header(c, view, names, seat_of, status, words)
    y = _shops(c, view, y + GAP, seat_of, words)
    y = _mail_room(c, view, y + GAP, seat_of, words)
    y = _side_row(c, view, y + GAP, seat_of, words)
    y += GAP
    for player in view.players:
        _player_row(c, view, player, names, MARGIN, y, WIDTH - 2 * MARGIN, words)
        y += PLAYER_ROW_HEIGHT + ROW_GAP
    if with_legend:
        for k, line in enumerate(legend):
            c.text(MARGIN, y + k * 26, line, 20, fill=MUTED, max_width=WIDTH - 2 * MARGIN)
    return c


def _legend_lines(words: Words) -> list[str]:
    """How to read a player's row, under the rows when the picture has room for it."""
    # TRANSLATORS: one line under the players' rows of the board picture (at most about
    # 70 characters); the chips are the Materials' letters with a count ("W2")
    text = words.gettext("✓ finished toys · chips: the Materials a player's toys still need")
    return wrap(text, WIDTH - 2 * MARGIN)


def _name(names: Mapping[PlayerId, str], player: PlayerId | None, words: Words) -> str:
    if player is None:
        return words.gettext("nobody")
    return player_name(names, player)


def _badges(*, first: bool, acting: bool, won: bool, words: Words) -> list[tuple[str, RGB]]:
    """A player's heading badges: first player, to act, winner."""
    badges = []
    if first:
        badges.append((words.gettext("1st player"), INK))
    if acting:
        badges.append((words.gettext("to act"), RED))
    if won:
        badges.append((words.gettext("winner"), GREEN))
    return badges


def _heading(
    c: Canvas,
    x: float,
    cy: float,
    w: float,
    name: str,
    badges: list[tuple[str, RGB]],
    points: int,
    words: Words,
    *,
    left: int,
    pad: int,
    size: int,
    chip_top: float,
    chip_height: int,
) -> None:
    """A player's heading line, on the chat picture's row and the panel picture alike:
    the name (cut to what the badges and score leave), the badges, the score at the
    right in a size 2 px larger than the name."""
    score = words.ngettext("{n} pt", "{n} pts", points).format(n=points)
    score_w = c.text_width(score, size + 2, True)
    badge_w = sum(c.text_width(b, 20, True) + 22 for b, _ in badges)
    c.text(
        x + left,
        cy,
        name,
        size,
        bold=True,
        anchor="lm",
        max_width=int(w - left - score_w - badge_w - 30),
    )
    bx = x + w - pad - score_w - 12
    for label, fill in reversed(badges):
        bx -= c.text_width(label, 20, True) + 14
        c.chip(bx, chip_top, label, fill, height=chip_height)
        bx -= 8
    c.text(x + w - pad, cy, score, size + 2, bold=True, anchor="rm")


def _date(day: int, words: Words) -> str:
    """W-2.1: Day d is December 18 + d ("December 19"; German "19. Dezember")."""
    return words.gettext("December {date}").format(date=18 + day)


def _band_height(lines: int) -> int:
    return 16 + 28 * max(1, lines)


def _winners(view: WorkshopView) -> tuple[list[PlayerView], bool]:
    """The winners of a finished game (W-6.2) as far as the public view tells, and
    whether that is decided: the most points win; players tied on them are split by
    their reindeer points, which only the final scores show."""
    best = max(p.score for p in view.players)
    top = [p for p in view.players if p.score == best]
    named = getattr(view, "winners", None)  # a view that names them decides
    if named:
        return [p for p in view.players if p.player in named], True
    return top, len(top) == 1


def _status_lines(view: WorkshopView, names: Mapping[PlayerId, str], words: Words) -> list[str]:
    """The status band's text (after the token and name of the player to act), in lines."""
    if view.over:
        winners, decided = _winners(view)
        listed = ", ".join(_name(names, p.player, words) for p in winners)
        points = winners[0].score
        if decided:
            text = words.ngettext(
                "Game over · winner: {winners}",
                "Game over · winners: {winners}",
                2 if len(winners) > 1 else 1,
            ).format(winners=listed)
        else:
            text = words.gettext(
                "Game over · tied on {points} points: {players}; the reindeer points decide"
            ).format(points=points, players=listed)
        return wrap(text, WIDTH - 2 * MARGIN, 22, True)
    pending = view.pending
    if pending.player is None:
        return [""]
    doing = words.gettext(DECISIONS.get(pending.decision, pending.decision))
    if pending.ornament is not None:
        doing = words.gettext("{decision} · {colour} ornament: {reward}").format(
            decision=doing,
            colour=colour_name(pending.ornament.colour, words),
            reward=words.gettext(pending.ornament.reward),
        )
    elif pending.tokens:
        tokens = " ".join(
            words.gettext("{n} {material}").format(n=n, material=words.gettext(MATERIAL_NAMES[m]))
            for m, n in pending.tokens.items()
        )
        doing = words.gettext("{decision} · in hand: {tokens}").format(
            decision=doing, tokens=tokens
        )
    lead = _status_lead(pending.player, names, words)
    first = wrap(doing, WIDTH - 2 * MARGIN - lead, 22)
    if len(first) <= 1:
        return first
    # the first line beside the name; the rest under it
    line, rest = first[0], first[1:]
    return [line, *wrap(" ".join(rest), WIDTH - 2 * MARGIN, 22)]


def _status_lead(player: PlayerId, names: Mapping[PlayerId, str], words: Words) -> int:
    """How far the decision starts after "To act:", the token and the name."""
    to_act = text_width(words.gettext("To act:"), 22)
    name = min(300, text_width(_name(names, player, words), 22, True))
    return to_act + 24 + 26 + name + 10


def _header(
    c: Canvas,
    view: WorkshopView,
    names: Mapping[PlayerId, str],
    seat_of: dict[PlayerId, int],
    status: list[str],
    words: Words,
) -> int:
    c.draw.rectangle((0, 0, WIDTH, 48), fill=RED)
    title = words.gettext("Santa's Workshop")
    c.text(MARGIN, 24, title, 26, bold=True, fill=WHITE, anchor="lm")
    if view.over:
        right = words.gettext("Game over")
    else:
        right = words.gettext("Day {day} of 6 · {date}").format(
            day=view.day, date=_date(view.day, words)
        )
    room = WIDTH - 2 * MARGIN - text_width(title, 26, True) - 20
    end = (
        WIDTH
        - MARGIN
        - c.text(WIDTH - MARGIN, 24, right, 20, bold=True, fill=WHITE, anchor="rm", max_width=room)
    )
    if view.day in (3, 6) and not view.over:  # W-5: Santa's Inspection after Day 3 and Day 6
        inspection = words.gettext("Inspection")
        width = text_width(inspection, 20) + 38
        if end - 10 - width > MARGIN + text_width(title, 26, True) + 10:
            x = end - 10 - width
            c.draw.rounded_rectangle((x, 10, x + width, 38), radius=9, fill=GOLD)
            c.star(x + 15, 24, 9, WHITE, mix(GOLD, INK, 0.5))
            c.text(x + 28, 24, inspection, 20, fill=INK, anchor="lm")
    band = _band_height(len(status))
    c.draw.rectangle((0, 48, WIDTH, 48 + band), fill=GREEN)
    cy = 48 + 8 + 14
    if view.over:
        for k, line in enumerate(status):
            c.text(MARGIN, cy + k * 28, line, 22, bold=True, fill=WHITE, anchor="lm")
        return 48 + band
    pending = view.pending
    if pending.player is None:
        return 48 + band
    x = MARGIN
    to_act = words.gettext("To act:")
    c.text(x, cy, to_act, 22, fill=WHITE, anchor="lm")
    x += c.text_width(to_act, 22) + 24
    c.token(x, cy, seat_of[pending.player], r=15)
    x += 26
    x += c.text(
        x,
        cy,
        _name(names, pending.player, words),
        22,
        bold=True,
        fill=WHITE,
        anchor="lm",
        max_width=300,
    )
    for k, line in enumerate(status):
        lx = x + 10 if k == 0 else MARGIN
        c.text(lx, cy + k * 28, line, 22, fill=WHITE, anchor="lm", max_width=WIDTH - MARGIN - lx)
    return 48 + band


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
    size: int = SPACE,
) -> float:
    """Elf spaces in order (on a box of ``CARD``); an occupied one shows the Elf's owner
    token."""
    for k, label in enumerate(labels):
        bx = x + k * (size + 6)
        seat = seat_of[occupants[k]] if k < len(occupants) else None
        c.reuse(
            ("space", label, seat, size),
            (bx, y, bx + size, y + size),
            partial(_space, c, bx, y, label, seat, size),
        )
    return x + len(labels) * (size + 6) - 6


def _space(c: Canvas, x: float, y: float, label: str, seat: int | None, size: int) -> None:
    taken = seat is not None
    c.box(
        (x, y, x + size, y + size),
        fill=CARD if taken else PAPER,
        outline=INK if taken else LINE,
        radius=7,
    )
    if seat is not None:
        c.token(x + size / 2, y + size / 2, seat, r=round(size * 0.38))
    else:
        c.text(x + size / 2, y + size / 2, label, 20, fill=MUTED, anchor="mm")


def _shops(
    c: Canvas, view: WorkshopView, y: int, seat_of: dict[PlayerId, int], words: Words
) -> int:
    shops = [_station(view, key) for key in ("wood", "metal", "fabric", "assembly")]
    key = ("shops", words, *((s.name, *(seat_of[p] for p in s.occupants)) for s in shops))
    box = (MARGIN, y, WIDTH - MARGIN, y + SHOP_HEIGHT)
    c.reuse(key, box, lambda: _draw_shops(c, view, y, seat_of, words))
    return y + SHOP_HEIGHT


def _draw_shops(
    c: Canvas, view: WorkshopView, y: int, seat_of: dict[PlayerId, int], words: Words
) -> None:
    """The four Material shops: the Material's chip and name (what the shop gives), and
    its four spaces (+2 … +5: how many it gives)."""
    width = (WIDTH - 2 * MARGIN - 3 * GAP) / 4
    for i, key in enumerate(("wood", "metal", "fabric", "assembly")):
        x = MARGIN + i * (width + GAP)
        station = _station(view, key)
        c.box((x, y, x + width, y + SHOP_HEIGHT))
        colour = MATERIAL_COLOURS[key]
        chip = c.chip(x + 10, y + 8, letter(key, words), colour)
        name = words.gettext(MATERIAL_NAMES[key])
        c.text(
            x + 18 + chip,
            y + 22,
            name,
            20,
            bold=True,
            anchor="lm",
            max_width=int(width - chip - 26),
        )
        _spaces(c, x + 10, y + 42, ["+2", "+3", "+4", "+5"], station.occupants, seat_of)


def _need_chips(c: Canvas, x: float, cy: float, needs: Mapping[str, int], words: Words) -> float:
    """One chip per Material needed ("W2"); returns where the last one ends."""
    for m, n in needs.items():
        if n:
            x += c.chip(x, cy - 13, f"{letter(m, words)}{n}", MATERIAL_COLOURS[m], height=26) + 4
    return x - 4


def _need_chips_width(needs: Mapping[str, int], words: Words) -> float:
    width = sum(
        text_width(f"{letter(m, words)}{n}", 20, True) + 14 + 4 for m, n in needs.items() if n
    )
    return max(0.0, width - 4)


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


def _mail_room(
    c: Canvas, view: WorkshopView, y: int, seat_of: dict[PlayerId, int], words: Words
) -> int:
    """The Mail Room: its Elf spaces, the deck and sleigh, and the toy cards on offer."""
    x, w = MARGIN, WIDTH - 2 * MARGIN
    c.box((x, y, x + w, y + MAIL_HEIGHT))
    mail = tuple(tuple(seat_of[p] for p in _station(view, k).occupants) for k in ("mail3", "mail2"))
    c.reuse(
        ("mail room", mail, view.deck_size, view.sleigh_size, words),
        (x, y, x + w, y + 52),
        lambda: _mail_room_head(c, view, x, y, w, seat_of, words),
    )
    card_w = (w - 24 - 10) / 2
    for k, toy in enumerate(view.mail_slots[:6]):
        cx = x + 12 + (k % 2) * (card_w + 10)
        cy = y + 52 + (k // 2) * (TOY_CARD_HEIGHT + 8)
        _toy_card(c, toy, cx, cy, card_w, TOY_CARD_HEIGHT, words)
    return y + MAIL_HEIGHT


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
    _title(c, x + 12, y + 12, words.gettext("Mail Room"))
    sx: float = x + 24 + text_width(words.gettext("Mail Room"), 22, True)
    # TRANSLATORS: beside the Mail Room's two Elf spaces; short (about 6 characters)
    take = (("mail3", words.gettext("take ≤3")), ("mail2", words.gettext("take ≤2")))
    for key, label in take:
        station = _station(view, key)
        c.text(sx, y + 8 + SPACE / 2, label, 20, fill=MUTED, anchor="lm")
        sx += c.text_width(label) + 8
        sx = _spaces(c, sx, y + 8, [_elf(words)], station.occupants, seat_of) + 16
    c.text(
        x + w - 12,
        y + 8 + SPACE / 2,
        words.gettext("deck {deck} · sleigh {sleigh}").format(
            deck=view.deck_size, sleigh=view.sleigh_size
        ),
        20,
        fill=MUTED,
        anchor="rm",
        max_width=int(x + w - 12 - sx - 6),  # clear of the Elf spaces
    )


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
    """Its name, what it needs ("W2 M1") and its points."""
    if toy is None:
        c.box((x, y, x + w, y + h), fill=PAPER, outline=LINE)
        c.text(x + w / 2, y + h / 2, words.gettext("empty"), 20, fill=MUTED, anchor="mm")
        return
    c.box((x, y, x + w, y + h), radius=8)
    c.text(x + 10, y + 5, words.gettext(toy.name), 20, bold=True, max_width=int(w - 20))
    _need_chips(c, x + 10, y + h - 19, toy.requires, words)
    _points_badge(c, x + w - 8, y + h - 19, toy.points, words)


def _points_badge(c: Canvas, right: float, cy: float, points: int, words: Words) -> int:
    """A toy's points in a green badge ending at ``right``; returns its width."""
    # TRANSLATORS: a toy card's points, short ("pts" also for 1 point)
    label = words.gettext("{points} pts").format(points=points)
    width = c.text_width(label, 20, True) + 14
    c.symbol(26)
    c.draw.rounded_rectangle((right - width, cy - 13, right, cy + 13), radius=8, fill=GREEN)
    c.text(right - width / 2, cy, label, 20, bold=True, fill=WHITE, anchor="mm")
    return width


def _side_row(
    c: Canvas, view: WorkshopView, y: int, seat_of: dict[PlayerId, int], words: Words
) -> int:
    """Reindeer Stables, Donation Center and Christmas Tree side by side."""
    w = (WIDTH - 2 * MARGIN - 2 * GAP) / 3
    xs = [MARGIN + k * (w + GAP) for k in range(3)]
    bottom = y + ROW_HEIGHT
    stables = tuple(seat_of[p] for p in _station(view, "stables").occupants)
    c.reuse(
        ("stables", stables, view.reindeer_deck_size, tuple(view.stalls[:3]), words),
        (xs[0], y, xs[0] + w, bottom),
        lambda: _stables(c, view, xs[0], y, w, seat_of, words),
    )
    donation = tuple(seat_of[p] for p in _station(view, "donation").occupants[:8])
    c.reuse(
        ("donation", tuple(view.donation.items()), donation, tuple(view.supply.items()), words),
        (xs[1], y, xs[1] + w, bottom),
        lambda: _donation(c, view, xs[1], y, w, seat_of, words),
    )
    trees = tuple(
        tuple(seat_of[p] for p in _station(view, k).occupants) for k in ("tree1", "tree2")
    )
    c.reuse(
        ("tree", trees, tuple(view.ornaments_left.items()), words),
        (xs[2], y, xs[2] + w, bottom),
        lambda: _christmas_tree(c, view, xs[2], y, w, seat_of, words),
    )
    return bottom


def _stables(
    c: Canvas,
    view: WorkshopView,
    x: float,
    y: float,
    w: float,
    seat_of: dict[PlayerId, int],
    words: Words,
) -> None:
    c.box((x, y, x + w, y + ROW_HEIGHT))
    _title(c, x + 12, y + 10, words.gettext("Reindeer Stables"))
    stables = _station(view, "stables")
    end = _spaces(c, x + 12, y + 42, ["+1", "+2", "+3"], stables.occupants, seat_of)
    deck = words.gettext("deck {deck}").format(deck=view.reindeer_deck_size)
    c.text(
        x + w - 12,
        y + 42 + SPACE / 2,
        deck,
        20,
        fill=MUTED,
        anchor="rm",
        max_width=int(x + w - 12 - end - 8),
    )
    empty = words.gettext("(empty)")
    stalls = " · ".join(name or empty for name in view.stalls[:3])
    for k, line in enumerate(wrap(stalls, w - 24)[:2]):
        c.text(x + 12, y + 88 + k * 26, line, 20, max_width=int(w - 24))


def _donation(
    c: Canvas,
    view: WorkshopView,
    x: float,
    y: float,
    w: float,
    seat_of: dict[PlayerId, int],
    words: Words,
) -> None:
    donation = _station(view, "donation")
    c.box((x, y, x + w, y + ROW_HEIGHT))
    _title(c, x + 12, y + 10, words.gettext("Donation Center"))
    tx, ty = x + 12, y + 40
    for m, n in view.donation.items():
        label = f"{letter(m, words)}{n}"
        chip_w = text_width(label, 20, True) + 14
        if tx + chip_w > x + w - 12:
            tx, ty = x + 12, ty + 32
        tx += c.chip(tx, ty, label, MATERIAL_COLOURS[m], height=26) + 5
    row = ty + 26 + 6 + 12
    for k, player in enumerate(donation.occupants[:7]):
        c.token(x + 24 + k * 30, row, seat_of[player], r=12)
    if not donation.occupants:
        c.text(x + 12, row, words.gettext("no Elves"), 20, fill=MUTED, anchor="lm")
    supply = " ".join(f"{letter(m, words)}{n}" for m, n in view.supply.items())
    lines = wrap(words.gettext("supply {supply}").format(supply=supply), w - 24)
    for k, line in enumerate(lines):
        cy = y + ROW_HEIGHT - 16 - 22 * (len(lines) - 1 - k)
        c.text(x + 12, cy, line, 20, fill=MUTED, anchor="lm", max_width=int(w - 24))


def _christmas_tree(
    c: Canvas,
    view: WorkshopView,
    x: float,
    y: float,
    w: float,
    seat_of: dict[PlayerId, int],
    words: Words,
) -> None:
    c.box((x, y, x + w, y + ROW_HEIGHT))
    _title(c, x + 12, y + 10, words.gettext("Christmas Tree"))
    sx: float = x + 12
    for key in ("tree1", "tree2"):
        occupants = _station(view, key).occupants
        sx = _spaces(c, sx, y + 42, [_elf(words)], occupants, seat_of) + 6
    c.text(
        sx + 6,
        y + 42 + SPACE / 2,
        words.gettext("ornaments left"),
        20,
        fill=MUTED,
        anchor="lm",
        max_width=int(x + w - 12 - sx - 6),
    )
    for k, (colour, left) in enumerate(view.ornaments_left.items()):
        fill = ORNAMENT_COLOURS.get(colour, LINE)
        ox = x + 12 + (k % 2) * ((w - 24) / 2)
        oy = y + 86 + (k // 2) * 24
        c.symbol(20)
        c.draw.ellipse((ox, oy, ox + 20, oy + 20), fill=fill, outline=mix(fill, INK, 0.5), width=2)
        label = words.gettext("{colour} {left}").format(
            colour=colour_name(colour, words), left=left
        )
        c.text(ox + 26, oy + 10, label, 20, anchor="lm", max_width=int((w - 24) / 2 - 30))


def _player_row(
    c: Canvas,
    view: WorkshopView,
    player: PlayerView,
    names: Mapping[PlayerId, str],
    x: float,
    y: float,
    w: float,
    words: Words,
) -> None:
    """A player at a glance: name, score, to act or first, Elves, reindeer, tree, their
    finished toys and what their unfinished toys still need."""
    acting = not view.over and view.pending.player == player.player
    first = player.player == view.first_player and not view.over
    won = view.over and player in _winners(view)[0] and _winners(view)[1]
    needs: dict[str, int] = {}
    for toy in player.unfinished:
        for m, n in toy.requires.items():
            needs[m] = needs.get(m, 0) + n - toy.placed.get(m, 0)
    key = (
        "player row",
        words,
        _name(names, player.player, words),
        player.seat,
        player.score,
        player.elves_left,
        player.reindeer_count,
        player.ornaments,
        len(player.unfinished),
        len(player.completed),
        tuple(needs.items()),
        acting,
        first,
        won,
        w,
    )
    c.reuse(
        key,
        (x, y, x + w, y + PLAYER_ROW_HEIGHT),
        lambda: _draw_player_row(
            c, player, names, needs, x, y, w, acting=acting, first=first, won=won, words=words
        ),
    )


def _draw_player_row(
    c: Canvas,
    player: PlayerView,
    names: Mapping[PlayerId, str],
    needs: Mapping[str, int],
    x: float,
    y: float,
    w: float,
    *,
    acting: bool,
    first: bool,
    won: bool,
    words: Words,
) -> None:
    colour = PLAYER_COLOURS[player.seat % len(PLAYER_COLOURS)]
    ground = mix(CARD, HIGHLIGHT, 0.6) if acting or won else CARD
    h = PLAYER_ROW_HEIGHT
    c.box((x, y, x + w, y + h), fill=ground, outline=colour, width=5 if acting else 3, radius=12)
    c.draw.rounded_rectangle((x, y, x + 6, y + h), radius=3, fill=colour)
    c.token(x + 30, y + 19, player.seat, r=14)
    badges = _badges(first=first, acting=acting, won=won, words=words)
    _heading(
        c,
        x,
        y + 19,
        w,
        _name(names, player.player, words),
        badges,
        player.score,
        words,
        left=52,
        pad=14,
        size=22,
        chip_top=y + 6,
        chip_height=26,
    )

    cy = y + 46
    info = " · ".join(
        [
            words.gettext("Elves left {n}").format(n=player.elves_left),
            words.gettext("Reindeer {n}").format(n=player.reindeer_count),
            words.gettext("Tree {n}/6").format(n=player.ornaments),
        ]
    )
    right = x + w - 14
    if player.unfinished:
        chips = _need_chips_width(needs, words)
        _need_chips(c, right - chips, cy, needs, words)
        right -= chips + 10
    else:
        none = words.gettext("No toys in progress")
        right -= c.text(right, cy, none, 20, fill=MUTED, anchor="rm") + 10
    if player.completed:
        done = f"✓{len(player.completed)}"
        right -= c.text(right, cy, done, 20, bold=True, fill=GREEN, anchor="rm") + 12
    c.text(x + 20, cy, info, 20, fill=MUTED, anchor="lm", max_width=int(right - x - 20))


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
        view.over,
        w,
        h,
    )
    c.reuse(
        key,
        (x, y, x + w, y + h),
        lambda: _draw_player_panel(
            c, player, names, x, y, w, h, acting=acting, first=first, over=view.over, words=words
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
    over: bool,
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
    badges = _badges(first=first, acting=acting, won=False, words=words)
    _heading(
        c,
        x,
        y + 26,
        w,
        _name(names, player.player, words),
        badges,
        player.score,
        words,
        left=58,
        pad=16,
        size=24,
        chip_top=y + 12,
        chip_height=28,
    )

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

    # completed toys awaiting inspection (none waits once the game is over)
    cy = ty + 5 * 34 + 4
    done = ", ".join(words.gettext(t.name) for t in player.completed)
    if done or not over:
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
            width += c.text_width(letter(m, words), 20, True) + 14 + 4 + need * 20 - 4 + 12
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
