"""Workshop Tonttu as a picture, drawn from a :class:`TonttuView` only.

The view is stripped for its viewer (T-6): the public table comes from
``view(state, None)`` and shows hand sizes, card backs and who has chosen; a
player's private picture comes from their own view and adds their hand, their
face-down card and their pending choice.

The public table is made for a phone's chat (800 px wide, at most 1.3 times as tall:
``render/canvas.py``'s chat rules): the middle, then one row per seat (score, whether
it still chooses, its workbench, its gifts by category). A seat's whole area (its
gifts by name, its hand) is its panel picture (:func:`draw_private`).

Regions that a choice seldom changes (the middle, gift cards, card backs, each seat's
row and its workbench, the legend) are drawn through :meth:`Canvas.reuse`, keyed by
what they show and what lies under them.

One file on purpose, as ``render/workshop.py``: the table and the panel picture share
their cards, chips and measures, and each region is placed by the sizes of the others
(a seat's row is as tall as its workbench wraps, the middle as its gifts); a region in
another file would still need the whole layout to know where it goes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping

from engine.core import PlayerId
from engine.tonttu.models import GiftCard, SeatView, TonttuView
from engine.words import ENGLISH, N_, Words
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
SEAT_HEIGHT = 300
"""A seat's whole area in its owner's panel picture."""

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
    """The public table as the chat shows it: the middle (gifts and face-down materials)
    and every seat at a glance (score, whether they still choose, their workbench and
    gifts won by category). A seat's whole area (its hand and the gifts by name) is in
    its own panel picture (:func:`draw_private`), the complete table on the web page.
    Every label through ``words`` (part of the tile keys, so regions drawn in one
    language are never pasted into a picture in another)."""
    status = _status_lines(view, names, words)
    band = 16 + 28 * len(status)
    facts = _facts_lines(view, words)
    gifts = _gift_layout(view, words)
    middle = _middle_height(view, facts, gifts, words)
    rows = (len(view.seats) + 1) // 2
    col = (WIDTH - 2 * MARGIN - GAP) / 2
    hands = _same_hands(view) is None
    seat_h = max(_seat_height(seat, col, words, hands) for seat in view.seats)
    legend = _legend_lines(col, words) if len(view.seats) % 2 else []
    base = 48 + band + GAP + middle + GAP + rows * seat_h + (rows - 1) * GAP + MARGIN
    legend_h = 44 + 24 * len(legend)
    if legend and legend_h > seat_h:
        if base + rows * (legend_h - seat_h) <= WIDTH * CHAT_MAX_ASPECT:
            seat_h = legend_h
        else:
            legend = []  # no room: the legend is on the web page and in the panels
    height = 48 + band + GAP + middle + GAP + rows * seat_h + (rows - 1) * GAP + MARGIN
    c = Canvas(WIDTH, height)
    y = _header(c, view, status, words)
    y = _middle(c, view, y + GAP, middle, facts, gifts, words)
    for i, seat in enumerate(view.seats):
        x = MARGIN + (i % 2) * (col + GAP)
        top = y + GAP + (i // 2) * (seat_h + GAP)
        _seat_row(c, view, seat, i, names, x, top, col, seat_h, words)
    if legend:
        top = y + GAP + (rows - 1) * (seat_h + GAP)
        _legend(c, MARGIN + col + GAP, top, col, seat_h, legend, words)
    return c


def _legend_lines(w: float, words: Words) -> list[str]:
    # TRANSLATORS: six lines at most, each at most about 45 characters
    text = words.gettext(
        "Workbench: face-up cards by type, ×count,\n"
        "and the face-down card as a back.\n"
        "A gift needs the cards on its card.\n"
        "Your k-th gift scores k points;\n"
        "each Toys + Clothing + Decorations set\n"
        "scores 3 more."
    )
    return wrap(" ".join(text.split()), w - 28)


def _legend(
    c: Canvas, x: float, y: float, w: float, h: float, lines: list[str], words: Words
) -> None:
    """How to read and score the table, in the free place beside an odd seat."""
    c.reuse(
        ("legend", w, h, words),
        (x, y, x + w, y + h),
        lambda: _draw_legend(c, x, y, w, h, lines, words),
    )


def _draw_legend(
    c: Canvas, x: float, y: float, w: float, h: float, lines: list[str], words: Words
) -> None:
    c.box((x, y, x + w, y + h), fill=PAPER, outline=LINE, radius=12)
    c.text(x + 14, y + 10, words.gettext("How to read the table"), 20, bold=True)
    for k, line in enumerate(lines):
        c.text(x + 14, y + 40 + k * 24, line, 20, fill=MUTED, max_width=int(w - 28))


def _status_lines(view: TonttuView, names: Mapping[PlayerId, str], words: Words) -> list[str]:
    """The status band's text in lines (the first beside the rotation card)."""
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
    room = WIDTH - 2 * MARGIN
    if _passing(view):
        room -= _rotation_width(view.rotation, words) + 16
    lines = wrap(status, room, 20)
    if len(lines) > 1:
        lines = [lines[0], *wrap(" ".join(lines[1:]), WIDTH - 2 * MARGIN, 20)]
    return lines or [""]


def _header(c: Canvas, view: TonttuView, status: list[str], words: Words) -> int:
    c.draw.rectangle((0, 0, WIDTH, 48), fill=GREEN)
    title = words.gettext("Workshop Tonttu")
    c.text(MARGIN, 24, title, 26, bold=True, fill=WHITE, anchor="lm")
    right = words.gettext("Round {round} · hand {hand} of 4 · {mode}").format(
        round=view.round, hand=view.deal_round, mode=_term(MODE_NAMES, view.mode, words)
    )
    room = WIDTH - 2 * MARGIN - text_width(title, 26, True) - 20
    c.text(WIDTH - MARGIN, 24, right, 22, bold=True, fill=WHITE, anchor="rm", max_width=room)
    band = 16 + 28 * len(status)
    c.draw.rectangle((0, 48, WIDTH, 48 + band), fill=RED)
    cy = 48 + 8 + 14
    if _passing(view):
        _rotation(c, WIDTH - MARGIN, cy, view.rotation, words)
    for k, line in enumerate(status):
        c.text(MARGIN, cy + k * 28, line, 20, fill=WHITE, anchor="lm")
    return 48 + band


def _passing(view: TonttuView) -> bool:
    """Whether hands are passed in this phase (T-2.3: during the picks), so the rotation
    card is shown."""
    return view.phase == "pick"


def _rotation_label(rotation: str, words: Words) -> str:
    if rotation == "left":
        return words.gettext("hands pass left")
    if rotation == "right":
        return words.gettext("hands pass right")
    return f"hands pass {rotation}"


def _rotation_width(rotation: str, words: Words) -> int:
    return text_width(_rotation_label(rotation, words), 20, True) + 56


def _rotation(c: Canvas, right: float, cy: float, rotation: str, words: Words) -> int:
    """The rotation card: which way hands are passed (T-2.3); returns its width."""
    label = _rotation_label(rotation, words)
    width = _rotation_width(rotation, words)
    x = right - width
    c.symbol(28)
    c.draw.rounded_rectangle((x, cy - 14, right, cy + 14), radius=8, fill=WHITE)
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
    c.symbol(min(w, h))
    c.box((x, y, x + w, y + h), fill=BACK, outline=mix(BACK, INK, 0.5), radius=6)
    inset = 4 if min(w, h) < 40 else 5
    c.box((x + inset, y + inset, x + w - inset, y + h - inset), fill=None, outline=GOLD, radius=5)
    if label:
        c.text(x + w / 2, y + h / 2, label, 20, bold=True, fill=WHITE, anchor="mm")
    else:
        c.star(x + w / 2, y + h / 2, max(9, min(w, h) / 5), GOLD)


GIFT_COLUMNS = 4
NAME_LINE = 24
CHIP_ROW = 30


def _gift_width(view: TonttuView) -> float:
    inner = WIDTH - 2 * MARGIN - 24
    columns = min(GIFT_COLUMNS, max(1, len(view.middle_gifts)))
    return min(200.0, (inner - (columns - 1) * 8) / columns)


def _need_rows(gift: GiftCard, width: float, words: Words) -> list[list[str]]:
    """A gift's needs as chips in rows that fit ``width``."""
    rows: list[list[str]] = [[]]
    used = 0.0
    for need in gift.needs:
        chip = _need_chip_width(need, words)
        if rows[-1] and used + 4 + chip > width:
            rows.append([])
            used = 0.0
        used += chip + (4 if rows[-1] else 0)
        rows[-1].append(need)
    return rows


def _need_chip_width(need: str, words: Words) -> int:
    return text_width(material_name(need, words), 20) + 12


def _gift_layout(view: TonttuView, words: Words) -> tuple[int, int]:
    """(name lines, chip rows) the tallest gift card of the middle needs."""
    w = _gift_width(view)
    names, chips = 1, 1
    for gift in view.middle_gifts:
        if gift is None:
            continue
        names = max(names, len(wrap(words.gettext(gift.name), w - 12, 20, True)))
        chips = max(chips, len(_need_rows(gift, w - 16, words)))
    return min(names, 3), chips


def _gift_height(gifts: tuple[int, int]) -> int:
    names, chips = gifts
    return 28 + 6 + names * NAME_LINE + 6 + chips * CHIP_ROW + 4


def _facts_lines(view: TonttuView, words: Words) -> list[str]:
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
    hand = _same_hands(view)
    if hand and view.phase != "over":
        facts.append(
            words.ngettext("{n} card in each hand", "{n} cards in each hand", hand).format(n=hand)
        )
    room = WIDTH - 2 * MARGIN - 24 - text_width(words.gettext("The middle"), 22, True) - 20
    lines: list[str] = []
    for fact in facts:
        trial = f"{lines[-1]} · {fact}" if lines else fact
        if lines and text_width(trial) <= room:
            lines[-1] = trial
        else:
            lines.append(fact)
    return lines


def _middle_height(view: TonttuView, facts: list[str], gifts: tuple[int, int], words: Words) -> int:
    rows = (len(view.middle_gifts) + GIFT_COLUMNS - 1) // GIFT_COLUMNS
    head = 12 + max(26, 26 * len(facts)) + 8
    return head + rows * (_gift_height(gifts) + 8) + _materials_height(view, words) + 10


def _materials_text(view: TonttuView, words: Words) -> list[str]:
    """The face-down materials' rule (T-3.1), in the room beside their backs."""
    # T-3.1: a face-down material goes to a lone pointer; two or more get nothing
    # TRANSLATORS: two lines beside the face-down materials, about 40 characters each
    rule = words.gettext("Point at one to take it;\ntwo or more pointers: nobody gets it.")
    text = f"{words.gettext('Face-down materials')}: {' '.join(rule.split())}"
    return wrap(text, _materials_room(view))


def _materials_room(view: TonttuView) -> float:
    m = len(view.middle_materials)
    return WIDTH - 2 * MARGIN - 24 - m * (BACK_W + 8) - 8


BACK_W = 44


def _materials_height(view: TonttuView, words: Words) -> int:
    return max(52, 24 * len(_materials_text(view, words)))


def _middle(
    c: Canvas,
    view: TonttuView,
    y: int,
    height: int,
    facts: list[str],
    gifts: tuple[int, int],
    words: Words,
) -> int:
    """The gifts and face-down materials in the middle, on the page (``PAPER``)."""
    key = (
        "middle",
        tuple(gift_key(g) for g in view.middle_gifts),
        tuple(view.middle_materials),
        len(facts),
        gifts,
        height,
        words,
    )
    c.reuse(
        key,
        (MARGIN, y, WIDTH - MARGIN, y + height),
        lambda: _draw_middle(c, view, y, height, facts, gifts, words),
    )
    # the counts change with every card played: drawn over the kept tile, not in its key
    for k, line in enumerate(facts):
        c.text(WIDTH - MARGIN - 12, y + 24 + k * 26, line, 20, fill=MUTED, anchor="rm")
    return y + height


def _draw_middle(
    c: Canvas,
    view: TonttuView,
    y: int,
    height: int,
    facts: list[str],
    gifts: tuple[int, int],
    words: Words,
) -> None:
    c.box((MARGIN, y, WIDTH - MARGIN, y + height))
    c.text(MARGIN + 12, y + 10, words.gettext("The middle"), 22, bold=True)
    w = _gift_width(view)
    gh = _gift_height(gifts)
    top = y + 12 + max(26, 26 * len(facts)) + 8
    columns = min(GIFT_COLUMNS, max(1, len(view.middle_gifts)))
    inner = WIDTH - 2 * MARGIN - 24
    for k, gift in enumerate(view.middle_gifts):
        row, col = divmod(k, columns)
        in_row = min(columns, len(view.middle_gifts) - row * columns)
        x0 = MARGIN + 12 + (inner - (in_row * w + (in_row - 1) * 8)) / 2
        _gift_card(c, gift, x0 + col * (w + 8), top + row * (gh + 8), w, gh, words)
    rows = (len(view.middle_gifts) + columns - 1) // columns
    by = top + rows * (gh + 8)
    bx = MARGIN + 12
    for k, present in enumerate(view.middle_materials):
        x = bx + k * (BACK_W + 8)
        if present:
            _card_back(c, x, by, BACK_W, 52, str(k + 1))
        else:
            c.box((x, by, x + BACK_W, by + 52), fill=PAPER, outline=LINE, radius=6)
    tx = bx + len(view.middle_materials) * (BACK_W + 8) + 8
    lines = _materials_text(view, words)
    ty = by + 26 - 12 * len(lines) + 12
    for k, line in enumerate(lines):
        c.text(tx, ty + k * 24, line, 20, fill=MUTED, anchor="lm")


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
    """Its category, its whole name (wrapped, or in the condensed font) and its needs."""
    if gift is None:
        c.box((x, y, x + w, y + h), fill=PAPER, outline=LINE)
        c.text(x + w / 2, y + h / 2, words.gettext("empty"), 20, fill=MUTED, anchor="mm")
        return
    colour = CATEGORY_COLOURS.get(gift.category, MUTED)
    c.box((x, y, x + w, y + h), outline=colour, width=3, radius=8)
    c.draw.rounded_rectangle((x, y, x + w, y + 28), radius=8, fill=colour)
    c.draw.rectangle((x + 3, y + 20, x + w - 3, y + 28), fill=colour)
    c.text(
        x + w / 2,
        y + 14,
        category_name(gift.category, words),
        20,
        bold=True,
        fill=WHITE,
        anchor="mm",
        max_width=int(w - 8),
    )
    lines = wrap(words.gettext(gift.name), w - 12, 20, True)
    for k, line in enumerate(lines[:3]):
        c.text(x + 6, y + 33 + k * NAME_LINE, line, 20, bold=True, max_width=int(w - 12))
    names = max(1, min(3, len(lines)))
    rows = _need_rows(gift, w - 16, words)
    chips_top = y + h - 4 - len(rows) * CHIP_ROW
    del names
    for r, row in enumerate(rows):
        cx = x + 8
        cy = chips_top + r * CHIP_ROW
        for need in row:
            cw = _need_chip_width(need, words)
            fill = MATERIAL_COLOURS.get(need, LINE)
            c.symbol(26)
            c.draw.rounded_rectangle(
                (cx, cy, cx + cw, cy + 26), radius=7, fill=fill, outline=mix(fill, INK, 0.35)
            )
            c.text(
                cx + cw / 2,
                cy + 13,
                material_name(need, words),
                20,
                fill=ink_on(fill),
                anchor="mm",
            )
            cx += cw + 4


# --------------------------------------------------------------------------- seat rows


def _bench_items(
    seat: SeatView, words: Words, condensed: bool = False
) -> list[tuple[str, str | None, int]]:
    """A workbench's chips: (label, material or None for the face-down back, width);
    a single card without its "×1"."""
    counts = Counter(seat.face_up)
    items: list[tuple[str, str | None, int]] = []
    for material in MATERIAL_ORDER:
        n = counts.get(material, 0)
        if n:
            name = material_name(material, words)
            label = f"{name} ×{n}" if n > 1 else name
            items.append((label, material, text_width(label, 20, False, condensed) + 12))
    if seat.has_face_down:
        items.append(("", None, 24))
    return items


def _condensed(widths: list[int], room: float) -> bool:
    """Whether a row of chips this wide needs the condensed font to fit in ``room``."""
    return sum(widths) + 6 * (len(widths) - 1) > room


def _flow_rows(widths: list[int], room: float, first_room: float) -> list[list[int]]:
    """Indexes of items laid out left to right in rows (the first row ``first_room``
    wide, the others ``room``)."""
    rows: list[list[int]] = [[]]
    used = 0.0
    for k, width in enumerate(widths):
        limit = first_room if len(rows) == 1 else room
        if rows[-1] and used + 6 + width > limit:
            rows.append([])
            used = 0.0
        used += width + (6 if rows[-1] else 0)
        rows[-1].append(k)
    return rows


def _hand_label(seat: SeatView, words: Words) -> str:
    return words.ngettext("{n} card", "{n} cards", seat.hand_size).format(n=seat.hand_size)


def _same_hands(view: TonttuView) -> int | None:
    """The hand size when every seat holds as many cards (said once, in the middle's
    facts, rather than in every seat's row)."""
    sizes = {seat.hand_size for seat in view.seats}
    return sizes.pop() if len(sizes) == 1 else None


Lines = tuple[list[list[int]], bool, list[list[int]], bool]


def _seat_lines(seat: SeatView, w: float, words: Words, hand_shown: bool) -> Lines:
    """How a seat's row lays out its workbench and its gifts: (workbench rows, in the
    condensed font, gift rows, in the condensed font); rows as indexes into the items
    of :func:`_bench_items` and :func:`_gift_items`."""
    hand = text_width(_hand_label(seat, words)) + 14 if hand_shown else 0
    bench = [width for _, _, width in _bench_items(seat, words)]
    narrow_bench = _condensed(bench, w - 24 - hand)
    if narrow_bench:
        bench = [width for _, _, width in _bench_items(seat, words, True)]
    bench_rows = _flow_rows(bench, w - 24, w - 24 - hand) if bench else [[]]
    gifts = [width for _, _, width in _gift_items(seat, words)]
    narrow_gifts = _condensed(gifts, w - 24)
    if narrow_gifts:
        gifts = [width for _, _, width in _gift_items(seat, words, True)]
    gift_rows = _flow_rows(gifts, w - 24, w - 24)
    return bench_rows, narrow_bench, gift_rows, narrow_gifts


def _gift_items(
    seat: SeatView, words: Words, condensed: bool = False
) -> list[tuple[str, str, int]]:
    """A seat's gifts won, one chip per category (T-5: a set of one of each scores 3
    more): (label, category, width)."""
    count = Counter(g.category for g in seat.gifts)
    items = []
    for category in CATEGORY_COLOURS:
        label = f"{category_name(category, words)} {count.get(category, 0)}"
        items.append((label, category, text_width(label, 20, False, condensed) + 10))
    return items


def _seat_height(seat: SeatView, w: float, words: Words, hand_shown: bool) -> int:
    bench_rows, _, gift_rows, _ = _seat_lines(seat, w, words, hand_shown)
    return 40 + 6 + (len(bench_rows) + len(gift_rows)) * 30 + 4


def _seat_row(
    c: Canvas,
    view: TonttuView,
    seat: SeatView,
    index: int,
    names: Mapping[PlayerId, str],
    x: float,
    y: float,
    w: float,
    h: float,
    words: Words,
) -> None:
    """A seat at a glance, on the page (``PAPER``)."""
    waiting = seat.to_act and view.phase != "over"
    won = view.phase == "over" and seat.player in view.winners
    name = player_name(names, seat.player)
    hands = _same_hands(view) is None
    badge = (view.phase if seat.chosen else None) if view.phase != "over" else None
    key = (
        "seat row",
        tuple(sorted(seat.face_up)),
        seat.has_face_down,
        tuple(sorted(Counter(g.category for g in seat.gifts).items())),
        seat.score,
        seat.hand_size if hands else None,
        badge,
        index,
        name,
        waiting,
        won,
        w,
        h,
        words,
    )
    c.reuse(
        key,
        (x, y, x + w, y + h),
        lambda: _draw_seat_row(
            c, view, seat, index, name, x, y, w, h, waiting=waiting, won=won, words=words
        ),
    )


def _draw_seat_row(
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
    won: bool,
    words: Words,
) -> None:
    colour = PLAYER_COLOURS[index % len(PLAYER_COLOURS)]
    c.box(
        (x, y, x + w, y + h),
        fill=mix(CARD, HIGHLIGHT, 0.6) if won else CARD,
        outline=colour,
        width=5 if waiting else 3,
        radius=12,
    )
    c.draw.rounded_rectangle((x, y, x + 6, y + h), radius=3, fill=colour)
    c.token(x + 30, y + 22, index, r=14)
    badge = ""
    badge_fill = INK
    if view.phase != "over":
        if seat.chosen:
            done = words.gettext("picked") if view.phase == "pick" else words.gettext("pointed")
            badge, badge_fill = f"✓ {done}", GREEN
        elif waiting:
            badge, badge_fill = words.gettext("choosing…"), RED
    elif won:
        badge, badge_fill = words.gettext("winner"), GREEN
    score = words.ngettext("{n} pt", "{n} pts", seat.score).format(n=seat.score)
    score_w = c.text_width(score, 24, True)
    badge_w = c.text_width(badge, 20) + 22 if badge else 0
    c.text(
        x + 50,
        y + 22,
        name,
        22,
        bold=True,
        anchor="lm",
        max_width=int(w - 50 - score_w - badge_w - 18),
    )
    if badge:
        c.chip(x + w - 14 - score_w - badge_w, y + 9, badge, badge_fill, height=26, bold=False)
    c.text(x + w - 14, y + 22, score, 24, bold=True, anchor="rm")

    hand_shown = _same_hands(view) is None
    ground = mix(CARD, HIGHLIGHT, 0.6) if won else CARD
    body_key = (
        "seat body",
        tuple(sorted(seat.face_up)),
        seat.has_face_down,
        tuple(sorted(Counter(g.category for g in seat.gifts).items())),
        seat.hand_size if hand_shown else None,
        ground,
        w,
        h,
        words,
    )
    c.reuse(
        body_key,
        (x + 8, y + 40, x + w - 8, y + h - 6),
        lambda: _draw_seat_body(c, seat, x, y, w, hand_shown, words),
    )


def _draw_seat_body(
    c: Canvas, seat: SeatView, x: float, y: float, w: float, hand_shown: bool, words: Words
) -> None:
    """A seat row's workbench and gifts, under its name line."""
    bench_rows, narrow_bench, gift_rows, narrow_gifts = _seat_lines(seat, w, words, hand_shown)
    cy = y + 40 + 6 + 13
    lx = x + 14
    if hand_shown:
        hand = _hand_label(seat, words)
        lx += c.text(x + 14, cy, hand, 20, fill=MUTED, anchor="lm") + 14
    items = _bench_items(seat, words, narrow_bench)
    if not items:
        c.text(lx, cy, words.gettext("empty workbench"), 20, fill=MUTED, anchor="lm")
    for r, row in enumerate(bench_rows):
        bx = lx if r == 0 else x + 14
        for k in row:
            label, material, width = items[k]
            top = cy + r * 30 - 13
            if material is None:  # the face-down card: a back (T-6)
                _card_back(c, bx, top - 2, width, 30)  # T-6: its type is secret
            else:
                fill = MATERIAL_COLOURS.get(material, LINE)
                c.symbol(26)
                c.draw.rounded_rectangle(
                    (bx, top, bx + width, top + 26),
                    radius=7,
                    fill=fill,
                    outline=mix(fill, INK, 0.35),
                )
                c.text(
                    bx + width / 2,
                    top + 13,
                    label,
                    20,
                    fill=ink_on(fill),
                    anchor="mm",
                    max_width=width - 11,  # condensed when the row needs it
                )
            bx += width + 6
    gy = cy + len(bench_rows) * 30
    gifts = _gift_items(seat, words, narrow_gifts)
    for r, row in enumerate(gift_rows):
        gx = x + 14
        for k in row:
            label, category, width = gifts[k]
            c.chip(
                gx,
                gy + r * 30 - 13,
                label,
                CATEGORY_COLOURS[category],
                height=26,
                bold=False,
                condensed=narrow_gifts,
                pad=5,
            )
            gx += width + 6


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
    if view.my_choice:
        choice = choice_label(view, words)
    elif view.phase != "over":
        choice = words.gettext("no choice yet")
    else:
        choice = words.gettext("game over")
    # the choice in as many lines as it needs (a point's label says what it would win)
    said = wrap(
        words.gettext("Your choice: {choice}").format(choice=choice),
        width - 2 * MARGIN - 28,
        20,
        True,
    )
    height = 64 + MARGIN + SEAT_HEIGHT + GAP + 164 + 26 * len(said) + MARGIN
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
    for k, line in enumerate(said):
        c.text(
            MARGIN + 14, y + 150 + 26 * k, line, 20, bold=True, max_width=width - 2 * MARGIN - 28
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
