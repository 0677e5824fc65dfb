"""Workshop Tonttu as a picture, drawn from a :class:`TonttuView` only.

The view is stripped for its viewer (T-6): the public table comes from
``view(state, None)`` and shows hand sizes, card backs and who has chosen; a
player's private picture comes from their own view and adds their hand, their
face-down card and their pending choice.

Regions that a choice seldom changes (each workbench, gift cards, card backs, the
legend) are drawn through :meth:`Canvas.reuse`, keyed by what they show and what
lies under them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping

from engine.core import PlayerId
from engine.tonttu.models import GiftCard, SeatView, TonttuView
from engine.words import ENGLISH, N_, Words
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
SEAT_HEIGHT = 300

MATERIAL_COLOURS: dict[str, RGB] = {
    "Wood": (150, 98, 44),
    "Wool": (236, 226, 206),
    "Metal": (112, 124, 138),
    "Paint": (196, 58, 58),
    "Gold": (232, 180, 30),
}
MATERIAL_ORDER = ("Wood", "Wool", "Metal", "Paint", "Gold")
CATEGORY_COLOURS: dict[str, RGB] = {
    "Toys": (44, 84, 160),
    "Clothing": (128, 64, 136),
    "Decorations": (26, 112, 74),
}
MATERIAL_NAMES = {
    "Wood": N_("Wood"),
    "Wool": N_("Wool"),
    "Metal": N_("Metal"),
    "Paint": N_("Paint"),
    "Gold": N_("Gold"),
}
"""The material cards' names (the engine's are English words; translated where drawn)."""
CATEGORY_NAMES = {
    "Toys": N_("Toys"),
    "Clothing": N_("Clothing"),
    "Decorations": N_("Decorations"),
}
MODE_NAMES = {"tactical": N_("tactical"), "speed": N_("speed")}
BACK: RGB = (30, 84, 58)
PHASE_TEXT = {
    "pick": N_("Pick: everyone chooses a hand card in secret"),
    "point": N_("Point: everyone points at a card in the middle in secret"),
}


def render_board(view: TonttuView, names: Mapping[PlayerId, str], words: Words = ENGLISH) -> bytes:
    """The whole table (PNG bytes): the middle and every workbench."""
    return draw_board(view, names, words).png()


def render_private(
    view: TonttuView, names: Mapping[PlayerId, str], words: Words = ENGLISH
) -> bytes:
    """The viewer's own workbench, hand and pending choice (PNG bytes)."""
    return draw_private(view, names, words).png()


def _term(table: Mapping[str, str], key: str, words: Words) -> str:
    """A game word from one of the tables above, translated (an unknown one as it is)."""
    return words.gettext(table[key]) if key in table else key


def material_name(material: str, words: Words) -> str:
    return _term(MATERIAL_NAMES, material, words)


def category_name(category: str, words: Words) -> str:
    return _term(CATEGORY_NAMES, category, words)


# --------------------------------------------------------------------------- tile keys


def gift_key(gift: GiftCard | None) -> Hashable:
    if gift is None:
        return None
    return (gift.id, gift.name, gift.category, tuple(gift.needs))


def seat_key(seat: SeatView) -> Hashable:
    """Everything a seat shows (its face-down type only in its owner's view)."""
    return (
        seat.hand_size,
        tuple(seat.face_up),
        seat.has_face_down,
        seat.face_down,
        tuple(gift_key(g) for g in seat.gifts),
        seat.score,
        seat.chosen,
    )


# --------------------------------------------------------------------------- whole table


def draw_board(view: TonttuView, names: Mapping[PlayerId, str], words: Words = ENGLISH) -> Canvas:
    """The public table; every label through ``words`` (part of the tile keys, so regions
    drawn in one language are never pasted into a picture in another)."""
    rows = (len(view.seats) + 1) // 2
    height = 556 + rows * (SEAT_HEIGHT + GAP) + MARGIN
    c = Canvas(WIDTH, height)
    y = _header(c, view, names, words)
    y = _middle(c, view, y + GAP, words)
    col = (WIDTH - 2 * MARGIN - GAP) // 2
    for i, seat in enumerate(view.seats):
        x = MARGIN + (i % 2) * (col + GAP)
        top = y + GAP + (i // 2) * (SEAT_HEIGHT + GAP)
        _seat_panel(c, view, seat, i, names, x, top, col, words=words)
    if len(view.seats) % 2:
        _legend(c, MARGIN + col + GAP, y + GAP + (rows - 1) * (SEAT_HEIGHT + GAP), col, words)
    return c


def _legend(c: Canvas, x: float, y: float, w: float, words: Words) -> None:
    """How to read and score the table, in the free place beside an odd seat."""
    c.reuse(
        ("legend", w, words),
        (x, y, x + w, y + SEAT_HEIGHT),
        lambda: _draw_legend(c, x, y, w, words),
    )


def _draw_legend(c: Canvas, x: float, y: float, w: float, words: Words) -> None:
    c.box((x, y, x + w, y + SEAT_HEIGHT), fill=PAPER, outline=LINE, radius=14)
    c.text(x + 16, y + 14, words.gettext("How to read the table"), 22, bold=True)
    # TRANSLATORS: six lines at most, each at most about 45 characters
    lines = words.gettext(
        "Workbench: face-up cards by type, ×count,\n"
        "and the face-down card as a back.\n"
        "A gift needs the cards on its card.\n"
        "Your k-th gift scores k points;\n"
        "each Toys + Clothing + Decorations set\n"
        "scores 3 more."
    ).splitlines()[:6]
    for k, line in enumerate(lines):
        c.text(x + 16, y + 60 + k * 34, line, 20, fill=MUTED, max_width=int(w - 32))


def _header(c: Canvas, view: TonttuView, names: Mapping[PlayerId, str], words: Words) -> int:
    c.draw.rectangle((0, 0, WIDTH, 64), fill=GREEN)
    c.text(MARGIN, 32, words.gettext("Workshop Tonttu"), 30, bold=True, fill=WHITE, anchor="lm")
    right = words.gettext("Round {round} · hand {hand} of 4 · {mode}").format(
        round=view.round, hand=view.deal_round, mode=_term(MODE_NAMES, view.mode, words)
    )
    c.text(WIDTH - MARGIN, 32, right, 24, bold=True, fill=WHITE, anchor="rm")
    c.draw.rectangle((0, 64, WIDTH, 112), fill=RED)
    if view.phase == "over":
        winners = ", ".join(player_name(names, p) for p in view.winners)
        status = words.ngettext(
            "Game over · winner: {winners}",
            "Game over · winners: {winners}",
            2 if len(view.winners) > 1 else 1,
        ).format(winners=winners)
    elif view.mode == "speed" and view.phase == "point":
        status = words.gettext("Point race: the first valid point at a card wins it")
    else:
        status = words.gettext(PHASE_TEXT[view.phase]) if view.phase in PHASE_TEXT else view.phase
    label = _rotation(c, WIDTH - MARGIN, 88, view.rotation, words)
    room = min(780, WIDTH - 2 * MARGIN - label - 20)
    c.text(MARGIN, 88, status, 22, bold=True, fill=WHITE, anchor="lm", max_width=room)
    return 112


def _rotation(c: Canvas, right: float, cy: float, rotation: str, words: Words) -> int:
    """The rotation card: which way hands are passed (T-2.3); returns its width."""
    if rotation == "left":
        label = words.gettext("hands pass left")
    elif rotation == "right":
        label = words.gettext("hands pass right")
    else:
        label = f"hands pass {rotation}"
    width = c.text_width(label, 20, True) + 56
    x = right - width
    c.draw.rounded_rectangle((x, cy - 17, right, cy + 17), radius=8, fill=WHITE)
    ax = x + 22
    if rotation == "left":
        c.draw.polygon([(ax - 12, cy), (ax + 2, cy - 10), (ax + 2, cy + 10)], fill=RED)
        c.draw.rectangle((ax + 2, cy - 4, ax + 14, cy + 4), fill=RED)
    else:
        c.draw.polygon([(ax + 14, cy), (ax, cy - 10), (ax, cy + 10)], fill=RED)
        c.draw.rectangle((ax - 12, cy - 4, ax, cy + 4), fill=RED)
    c.text(x + 44, cy, label, 20, bold=True, fill=RED, anchor="lm")
    return width


def _card_back(c: Canvas, x: float, y: float, w: float, h: float, label: str = "") -> None:
    """A card's back, on whatever plain fill lies under its corner (the middle's box or
    a workbench's area): that colour is part of its tile's key."""
    c.reuse(
        ("back", label, w, h, c.image.getpixel((int(x), int(y)))),
        (x, y, x + w, y + h),
        lambda: _draw_card_back(c, x, y, w, h, label),
    )


def _draw_card_back(c: Canvas, x: float, y: float, w: float, h: float, label: str) -> None:
    c.box((x, y, x + w, y + h), fill=BACK, outline=mix(BACK, INK, 0.5), radius=8)
    c.box((x + 5, y + 5, x + w - 5, y + h - 5), fill=None, outline=GOLD, radius=6, width=2)
    c.star(x + w / 2, y + h / 2 - (8 if label else 0), min(w, h) / 5, GOLD)
    if label:
        c.text(x + w / 2, y + h - 18, label, 20, bold=True, fill=WHITE, anchor="mm")


def _gift_card(
    c: Canvas, gift: GiftCard | None, x: float, y: float, w: float, h: float, words: Words
) -> None:
    """A gift in the middle, on a box of ``CARD``."""
    box = (x, y, x + w, y + h)
    c.reuse(
        ("gift", gift_key(gift), w, h, words),
        box,
        lambda: _draw_gift_card(c, gift, x, y, w, h, words),
    )


def _draw_gift_card(
    c: Canvas, gift: GiftCard | None, x: float, y: float, w: float, h: float, words: Words
) -> None:
    if gift is None:
        c.box((x, y, x + w, y + h), fill=PAPER, outline=LINE)
        c.text(x + w / 2, y + h / 2, words.gettext("empty"), 20, fill=MUTED, anchor="mm")
        return
    colour = CATEGORY_COLOURS.get(gift.category, MUTED)
    c.box((x, y, x + w, y + h), outline=colour, width=3)
    c.draw.rounded_rectangle((x, y, x + w, y + 32), radius=10, fill=colour)
    c.draw.rectangle((x + 3, y + 22, x + w - 3, y + 32), fill=colour)
    c.text(
        x + w / 2,
        y + 16,
        category_name(gift.category, words),
        20,
        bold=True,
        fill=WHITE,
        anchor="mm",
        max_width=int(w - 8),
    )
    lines = _wrap(c, words.gettext(gift.name), int(w - 16))
    for k, line in enumerate(lines[:2]):
        c.text(x + 8, y + 38 + k * 24, line, 20, bold=True, max_width=int(w - 16))
    for k, need in enumerate(gift.needs):
        colour = MATERIAL_COLOURS.get(need, LINE)
        top = y + 94 + k * 31
        c.draw.rounded_rectangle(
            (x + 8, top, x + w - 8, top + 27), radius=7, fill=colour, outline=mix(colour, INK, 0.35)
        )
        c.text(
            x + w / 2,
            top + 14,
            material_name(need, words),
            20,
            bold=True,
            fill=ink_on(colour),
            anchor="mm",
            max_width=int(w - 20),
        )


def _wrap(c: Canvas, text: str, width: int) -> list[str]:
    words, lines, line = text.split(), [], ""
    for word in words:
        trial = f"{line} {word}".strip()
        if line and c.text_width(trial, 20, True) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    if line:
        lines.append(line)
    if len(lines) > 2:
        lines = [lines[0], " ".join(lines[1:])]
    return lines


def _middle(c: Canvas, view: TonttuView, y: int, words: Words) -> int:
    """The gifts and face-down materials in the middle, on the page (``PAPER``)."""
    height = 420
    key = (
        "middle",
        tuple(gift_key(g) for g in view.middle_gifts),
        tuple(view.middle_materials),
        view.gifts_in_stack,
        view.deck_size,
        view.discard_size,
        view.rounds_without_gift,
        words,
    )
    c.reuse(key, (MARGIN, y, WIDTH - MARGIN, y + height), lambda: _draw_middle(c, view, y, words))
    return y + height


def _draw_middle(c: Canvas, view: TonttuView, y: int, words: Words) -> None:
    height = 420
    c.box((MARGIN, y, WIDTH - MARGIN, y + height))
    c.text(MARGIN + 14, y + 12, words.gettext("The middle"), 22, bold=True)
    facts = [
        words.gettext("gifts in stack {n}").format(n=view.gifts_in_stack),
        words.gettext("material deck {n}").format(n=view.deck_size),
        words.gettext("discard {n}").format(n=view.discard_size),
    ]
    if view.rounds_without_gift:
        n = view.rounds_without_gift
        facts.append(
            words.ngettext("{n} round without a gift", "{n} rounds without a gift", n).format(n=n)
        )
    c.text(WIDTH - MARGIN - 14, y + 24, " · ".join(facts), 20, fill=MUTED, anchor="rm")
    n = max(1, len(view.middle_gifts))
    inner = WIDTH - 2 * MARGIN - 28
    w = min(190.0, (inner - (n - 1) * 10) / n)
    x0 = MARGIN + 14 + (inner - (n * w + (n - 1) * 10)) / 2
    for k, gift in enumerate(view.middle_gifts):
        _gift_card(c, gift, x0 + k * (w + 10), y + 48, w, 226, words)
    by = y + 48 + 226 + 14
    c.text(MARGIN + 14, by + 4, words.gettext("Face-down materials"), 20, bold=True)
    m = len(view.middle_materials)
    bw = 96.0
    bx0 = MARGIN + 14
    for k, present in enumerate(view.middle_materials):
        bx = bx0 + k * (bw + 12)
        if present:
            _card_back(c, bx, by + 34, bw, 84, str(k + 1))
        else:
            c.box((bx, by + 34, bx + bw, by + 118), fill=PAPER, outline=LINE, radius=8)
            c.text(bx + bw / 2, by + 76, words.gettext("empty"), 20, fill=MUTED, anchor="mm")
    legend_x = bx0 + m * (bw + 12) + 20
    # T-3.1: a face-down material goes to a lone pointer; two or more get nothing
    # TRANSLATORS: two lines beside the face-down materials, about 40 characters each
    rule = words.gettext("Point at one to take it;\ntwo or more pointers: nobody gets it.")
    room = int(WIDTH - MARGIN - 14 - legend_x)
    for k, line in enumerate(rule.splitlines()[:2]):
        c.text(legend_x, by + 60 + k * 28, line, 20, fill=MUTED, max_width=room)


# --------------------------------------------------------------------------- seats


def _material_card(
    c: Canvas,
    x: float,
    y: float,
    material: str,
    count: int,
    words: Words,
    *,
    face_down: bool = False,
) -> None:
    colour = MATERIAL_COLOURS.get(material, LINE)
    c.box(
        (x, y, x + 84, y + 88),
        fill=colour,
        outline=mix(colour, INK, 0.45),
        radius=8,
        width=3 if face_down else 2,
    )
    ink = ink_on(colour)
    name = material_name(material, words)
    c.text(x + 42, y + 30, name, 20, bold=True, fill=ink, anchor="mm", max_width=80)
    c.text(
        x + 42,
        y + 62,
        _down(words) if face_down else f"×{count}",
        20 if face_down else 22,
        bold=not face_down,
        fill=ink,
        anchor="mm",
        max_width=80,
    )


def _down(words: Words) -> str:
    # TRANSLATORS: on a face-down card, 80 pixels wide (about 7 letters)
    return words.gettext("down")


def _workbench(c: Canvas, seat: SeatView, x: float, y: float, words: Words) -> float:
    """Face-up cards grouped by type, then the face-down card (a back unless it is ours)."""
    counts = Counter(seat.face_up)
    for material in MATERIAL_ORDER:
        if counts.get(material):
            _material_card(c, x, y, material, counts[material], words)
            x += 92
    if seat.has_face_down:
        if seat.face_down is not None:
            _material_card(c, x, y, seat.face_down, 1, words, face_down=True)
        else:
            _card_back(c, x, y, 84, 88, _down(words))
        x += 92
    if not counts and not seat.has_face_down:
        c.text(x, y + 44, words.gettext("empty workbench"), 20, fill=MUTED, anchor="lm")
    return x


def _seat_panel(
    c: Canvas,
    view: TonttuView,
    seat: SeatView,
    index: int,
    names: Mapping[PlayerId, str],
    x: float,
    y: float,
    w: float,
    h: float = SEAT_HEIGHT,
    *,
    words: Words,
) -> None:
    """A seat's area, on the page (``PAPER``)."""
    waiting = seat.to_act and view.phase != "over"
    name = player_name(names, seat.player)
    key = ("seat", seat_key(seat), index, name, view.phase, waiting, w, h, words)
    c.reuse(
        key,
        (x, y, x + w, y + h),
        lambda: _draw_seat_panel(
            c, view, seat, index, name, x, y, w, h, waiting=waiting, words=words
        ),
    )


def _draw_seat_panel(
    c: Canvas,
    view: TonttuView,
    seat: SeatView,
    index: int,
    name: str,
    x: float,
    y: float,
    w: float,
    h: float,
    *,
    waiting: bool,
    words: Words,
) -> None:
    colour = PLAYER_COLOURS[index % len(PLAYER_COLOURS)]
    c.box(
        (x, y, x + w, y + h),
        fill=mix(CARD, HIGHLIGHT, 0.6) if waiting else CARD,
        outline=colour,
        width=6 if waiting else 3,
        radius=14,
    )
    c.draw.rounded_rectangle((x, y, x + w, y + 52), radius=14, fill=mix(colour, WHITE, 0.55))
    c.draw.rectangle((x + 3, y + 40, x + w - 3, y + 52), fill=mix(colour, WHITE, 0.55))
    c.token(x + 30, y + 26, index, r=18)
    badge = ""
    badge_fill = INK
    if view.phase != "over":
        if seat.chosen:
            done = words.gettext("picked") if view.phase == "pick" else words.gettext("pointed")
            badge, badge_fill = f"✓ {done}", GREEN
        elif waiting:
            badge, badge_fill = words.gettext("choosing…"), RED
    score = words.ngettext("{n} pt", "{n} pts", seat.score).format(n=seat.score)
    score_w = c.text_width(score, 26, True)
    badge_w = c.text_width(badge, 20, True) + 22 if badge else 0
    c.text(
        x + 58,
        y + 26,
        name,
        24,
        bold=True,
        anchor="lm",
        max_width=int(w - 58 - score_w - badge_w - 30),
    )
    if badge:
        c.chip(x + w - 16 - score_w - 12 - badge_w + 8, y + 12, badge, badge_fill)
    c.text(x + w - 16, y + 26, score, 26, bold=True, anchor="rm")

    # hand size as card backs
    c.text(x + 16, y + 76, words.gettext("Hand"), 20, bold=True, anchor="lm", max_width=60)
    for k in range(seat.hand_size):
        bx = x + 80 + k * 18
        c.box((bx, y + 62, bx + 22, y + 92), fill=BACK, outline=GOLD, radius=4, width=2)
    c.text(
        x + 80 + max(seat.hand_size, 1) * 18 + 16,
        y + 76,
        words.ngettext("{n} card", "{n} cards", seat.hand_size).format(n=seat.hand_size),
        20,
        fill=MUTED,
        anchor="lm",
    )
    _workbench(c, seat, x + 16, y + 104, words)

    # gifts won by category (T-5: sets of one of each score 3 more)
    by_category: dict[str, list[str]] = {cat: [] for cat in CATEGORY_COLOURS}
    for gift in seat.gifts:
        by_category.setdefault(gift.category, []).append(words.gettext(gift.name))
    for k, (category, gifts) in enumerate(by_category.items()):
        row = y + 206 + k * 28
        colour = CATEGORY_COLOURS.get(category, MUTED)
        label = f"{category_name(category, words)} {len(gifts)}"
        chip_w = c.chip(x + 16, row, label, colour, height=26)
        c.text(
            x + 16 + chip_w + 10,
            row + 13,
            ", ".join(gifts) or "-",
            20,
            fill=INK if gifts else MUTED,
            anchor="lm",
            max_width=int(w - chip_w - 44),
        )


# --------------------------------------------------------------------------- private


def draw_private(view: TonttuView, names: Mapping[PlayerId, str], words: Words = ENGLISH) -> Canvas:
    """The viewer's own seat with their face-down card shown, their hand and their choice."""
    index = next((k for k, s in enumerate(view.seats) if s.player == view.viewer), None)
    if index is None:
        raise ValueError("A private picture needs a player's own view, not a spectator's.")
    width = 620
    height = 64 + MARGIN + SEAT_HEIGHT + GAP + 190 + MARGIN
    c = Canvas(width, height)
    c.draw.rectangle((0, 0, width, 64), fill=GREEN)
    title = words.gettext("Your table (private)")
    c.text(MARGIN, 32, title, 26, bold=True, fill=WHITE, anchor="lm")
    round_ = words.gettext("Round {round}").format(round=view.round)
    c.text(width - MARGIN, 32, round_, 22, fill=WHITE, anchor="rm")
    seat = view.seats[index]
    _seat_panel(c, view, seat, index, names, MARGIN, 64 + MARGIN, width - 2 * MARGIN, words=words)
    y = 64 + MARGIN + SEAT_HEIGHT + GAP
    c.box((MARGIN, y, width - MARGIN, height - MARGIN))
    hand = words.gettext("Your hand ({n})").format(n=len(view.hand))
    c.text(MARGIN + 14, y + 12, hand, 22, bold=True)
    if not view.hand:
        c.text(MARGIN + 14, y + 80, words.gettext("empty"), 20, fill=MUTED)
    for k, material in enumerate(sorted(view.hand, key=MATERIAL_ORDER.index)):
        colour = MATERIAL_COLOURS.get(material, LINE)
        cx = MARGIN + 14 + k * 92
        c.box((cx, y + 46, cx + 84, y + 130), fill=colour, outline=mix(colour, INK, 0.45), radius=8)
        name = material_name(material, words)
        ink = ink_on(colour)
        c.text(cx + 42, y + 88, name, 20, bold=True, fill=ink, anchor="mm", max_width=80)
    if view.my_choice:
        choice = choice_label(view, words)
    elif view.phase != "over":
        choice = words.gettext("no choice yet")
    else:
        choice = words.gettext("game over")
    c.text(
        MARGIN + 14,
        y + 150,
        words.gettext("Your choice: {choice}").format(choice=choice),
        20,
        bold=True,
        max_width=width - 2 * MARGIN - 28,
    )
    return c


def choice_label(view: TonttuView, words: Words) -> str:
    """The viewer's pending choice (``view.my_choice``: the English label of its menu
    entry, which the computer players read back) in ``words``' language: the action it
    stands for, described again without the hint."""
    label = view.my_choice or ""
    if words is ENGLISH:
        return label
    from engine.tonttu.text import action_of, describe_action, point_code

    if label.startswith("Pick "):
        material = label.removeprefix("Pick ")
        return words.gettext("Pick {material}").format(material=material_name(material, words))
    try:
        action = action_of(point_code(label))
    except (KeyError, ValueError):
        return label
    return describe_action(action, words=words)
