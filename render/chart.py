"""The picture of how a game went, posted with the final scores: every player's score
after each day or round (left) and the final score by reason (right).

Drawn from an :class:`engine.timeline.Timeline` with matplotlib's Agg backend. Options
weighed: drawing it with ``render/canvas.py`` like the boards (no new dependency, but
axes, tick spacing for 6 days or 40 rounds, a legend, a stacked bar and label placement
would all be ours to write and test); matplotlib (chosen): made for exactly this, and
deterministic enough for golden pictures (its wheels carry their own FreeType, and the
text here uses only the fonts shipped in ``render/fonts``, registered under a family
name of their own, so no system font is ever chosen).

The players keep the identity the boards give them (``render/canvas.py``): their
colour from the Okabe–Ito palette, their marker shape (circle, square, triangle,
diamond, hexagon, star, by seat) and their name in the legend, so colour is never the
only cue (no seat number before the name: beside bars ranked by score, "3. Chiara" read
as a rank). Text is at least 20 px high at the picture's size (15 pt at 100 dpi), as
on the boards.

Only the pyplot-free object API is used (a :class:`~matplotlib.figure.Figure` with its
own Agg canvas) and no global ``rcParams`` is changed, so pictures can be drawn from
several threads (the bot's fallback when its drawing process is gone). Display names
are drawn as plain text: a ``$`` in a name is escaped, not read as mathtext. Titles,
axis and legend labels are drawn in the language of the ``words`` passed in.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.ticker import MaxNLocator

from engine import get_game
from engine.core import PlayerId
from engine.timeline import Decision, Timeline, score_timeline
from engine.words import ENGLISH, N_, Words
from render.canvas import (
    FONT_DIR,
    GOLD,
    GREEN,
    INK,
    LINE,
    MUTED,
    PAPER,
    PLAYER_COLOURS,
    PLAYER_SHAPES,
    RED,
    RGB,
    WHITE,
    ink_on,
    mix,
    player_name,
    text_width,
)

WIDTH, HEIGHT, DPI = 1200, 620, 100
"""Pixels and dots per inch: the board pictures' width."""
TEXT_PT = 15.0
"""15 pt at 100 dpi is 20.8 px: the boards' smallest text (``canvas.MIN_TEXT_PX``)."""
TITLE_PT = 18.0
NAME_PX = 140
"""Longer display names are cut (with "…") to this many pixels, so that the bars' labels
fit beside them and three fit side by side in the legend."""

MARKERS = {
    "circle": "o",
    "square": "s",
    "triangle": "^",
    "diamond": "D",
    "hexagon": "h",
    "star": "*",
}
"""matplotlib's marker for each player shape of ``render/canvas.py``."""

REASONS: dict[str, tuple[str, RGB]] = {
    # Santa's Workshop (W-6.3)
    "toy": (N_("toys"), RED),
    "cooperation": (N_("cooperation"), GOLD),
    "donation": (N_("donations"), GREEN),
    "ornament": (N_("ornaments"), (121, 84, 166)),
    "tree": (N_("tree spaces"), (122, 168, 92)),
    "inspection": (N_("inspections"), (64, 104, 160)),
    "unfinished": (N_("unfinished toys"), (156, 148, 138)),
    "reindeer": (N_("reindeer"), (139, 90, 52)),
    # Workshop Tonttu (T-5.1, T-5.2)
    "gifts": (N_("gifts"), GREEN),
    "sets": (N_("set bonus"), GOLD),
}
"""Label (translated where drawn) and colour of each reason of the breakdown (an unknown
one is drawn grey, its key as its label)."""
SCORE_TITLES = {"Day": N_("Score after each day"), "Round": N_("Score after each round")}
"""The left chart's title by the timeline's unit (its word order and case differ in
German: "nach jedem Tag", "nach jeder Runde")."""


def _rgb(colour: RGB) -> tuple[float, float, float]:
    return (colour[0] / 255, colour[1] / 255, colour[2] / 255)


FAMILY = "Workshop DejaVu Sans"
"""The shipped fonts' family name for matplotlib: unique, so that a DejaVu Sans installed
on the machine (or matplotlib's own copy) is never picked instead."""


def _register_fonts() -> None:
    """Add ``render/fonts`` to matplotlib's font list under :data:`FAMILY` (once)."""
    known = {(entry.fname, entry.name) for entry in font_manager.fontManager.ttflist}
    for file, weight in (("DejaVuSans.ttf", 400), ("DejaVuSans-Bold.ttf", 700)):
        path = str(FONT_DIR / file)
        if (path, FAMILY) not in known:
            entry = font_manager.FontEntry(
                fname=path, name=FAMILY, weight=weight, stretch="normal", size="scalable"
            )
            font_manager.fontManager.ttflist.append(entry)


_register_fonts()


@lru_cache(maxsize=16)
def _font(size: float, bold: bool = False) -> FontProperties:
    return FontProperties(family=FAMILY, weight="bold" if bold else "normal", size=size)


def short(label: str, limit: int = NAME_PX) -> str:
    """``label`` cut to ``limit`` pixels at the chart's text size (measured with the same
    font by Pillow, as the boards measure theirs)."""
    size = round(TEXT_PT * DPI / 72)
    if text_width(label, size) <= limit:
        return label
    while label and text_width(label + "…", size) > limit:
        label = label[:-1]
    return label.rstrip() + "…"


def plain(text: str) -> str:
    """``text`` drawn as it is: matplotlib reads ``$…$`` as mathtext unless escaped."""
    return text.replace("$", r"\$")


def seat_colour(seat: int) -> RGB:
    return PLAYER_COLOURS[seat % len(PLAYER_COLOURS)]


def seat_marker(seat: int) -> str:
    return MARKERS[PLAYER_SHAPES[seat % len(PLAYER_SHAPES)]]


def render_chart(
    timeline: Timeline, names: Mapping[PlayerId, str], words: Words = ENGLISH
) -> bytes:
    """The chart as PNG bytes (``WIDTH`` × ``HEIGHT``), its labels in ``words``' language."""
    figure = draw_chart(timeline, names, words)
    out = io.BytesIO()
    # no "Software" text in the file: the bytes depend on the picture only
    figure.savefig(out, format="png", dpi=DPI, facecolor=_rgb(PAPER), metadata={"Software": None})
    return out.getvalue()


def render_game_chart(
    game: str,
    players: Sequence[PlayerId],
    seed: int,
    options: Mapping[str, Any],
    decisions: Sequence[Decision],
    names: Mapping[PlayerId, str],
    words: Words = ENGLISH,
) -> bytes:
    """The chart of a finished game from its seed and decisions (PNG): the replay
    (``engine.timeline``) and the drawing in one call, for the drawing process."""
    timeline = score_timeline(get_game(game), players, seed, options, decisions)
    return render_chart(timeline, names, words)


def score_title(unit: str, words: Words = ENGLISH) -> str:
    """ "Score after each day" (or round, or a later game's unit)."""
    if unit in SCORE_TITLES:
        return words.gettext(SCORE_TITLES[unit])
    return words.gettext("Score after each {unit}").format(unit=words.gettext(unit).lower())


def draw_chart(timeline: Timeline, names: Mapping[PlayerId, str], words: Words = ENGLISH) -> Figure:
    figure = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI, facecolor=_rgb(PAPER))
    FigureCanvasAgg(figure)
    # a player's label is their name only: their seat shows as their colour and marker,
    # as on the board ("3. Chiara" read as a rank beside the ranked bars)
    labels = {p: plain(short(player_name(names, p))) for p in timeline.players}
    # (left, bottom, width, height) in figure fractions: the room between the two is for
    # the bars' name labels, the room below for the two legends
    _draw_scores(figure.add_axes((0.07, 0.3, 0.44, 0.6)), timeline, labels, words)
    _draw_breakdown(figure, figure.add_axes((0.665, 0.3, 0.315, 0.6)), timeline, labels, words)
    return figure


def _style(axes: Any, title: str) -> None:
    axes.set_facecolor(_rgb(WHITE))
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        axes.spines[side].set_color(_rgb(LINE))
    axes.tick_params(colors=_rgb(INK), labelsize=TEXT_PT, labelfontfamily=FAMILY)
    axes.set_title(title, loc="left", color=_rgb(INK), fontproperties=_font(TITLE_PT, True))


def _draw_scores(
    axes: Any, timeline: Timeline, labels: Mapping[PlayerId, str], words: Words
) -> None:
    """Score at the start and after each day or round, one line per player."""
    _style(axes, score_title(timeline.unit, words))
    xs = list(timeline.stages)
    many = len(xs) > 12
    for seat, player in enumerate(timeline.players):
        colour = seat_colour(seat)
        axes.plot(
            xs,
            timeline.scores[player],
            color=_rgb(colour),
            linewidth=3,
            marker=seat_marker(seat),
            markersize=9 if many else 13,
            markeredgecolor=_rgb(mix(colour, INK, 0.55)),
            markeredgewidth=1.5,
            label=labels[player],
            zorder=3 + seat,
            clip_on=False,
        )
    axes.set_xlim(0, max(xs[-1], 1))
    highest = max(max(series) for series in timeline.scores.values())
    axes.set_ylim(0, max(highest, 4) * 1.05)  # a few whole points even if nobody scored
    axes.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=True))
    axes.yaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
    axes.grid(axis="y", color=_rgb(mix(LINE, WHITE, 0.5)), linewidth=1)
    axes.set_axisbelow(True)
    axes.set_xlabel(words.gettext(timeline.unit), color=_rgb(MUTED), fontproperties=_font(TEXT_PT))
    handles, texts = axes.get_legend_handles_labels()
    axes.figure.legend(
        handles,
        texts,
        loc="lower left",
        bbox_to_anchor=(0.07, 0.0),
        ncols=min(3, len(handles)),
        frameon=False,
        prop=_font(TEXT_PT),
        handlelength=2.2,
        columnspacing=1.2,
        labelcolor=_rgb(INK),
    )


def _draw_breakdown(
    figure: Figure, axes: Any, timeline: Timeline, labels: Mapping[PlayerId, str], words: Words
) -> None:
    """One bar per player (the winner on top), split by the reasons of the final score."""
    _style(axes, words.gettext("Final score by reason"))
    final = timeline.final
    seats = {p: i for i, p in enumerate(timeline.players)}
    ranked = sorted(timeline.players, key=lambda p: (-final[p], seats[p]))
    reasons: list[str] = []
    for player in ranked:
        reasons.extend(r for r in timeline.breakdown[player] if r not in reasons)
    widest = max([4, *final.values()])
    order = list(reversed(ranked))  # bottom row first
    rows = range(len(order))
    lefts = [0] * len(order)
    handles: dict[str, Any] = {}
    for reason in reasons:
        widths = [max(0, timeline.breakdown[p].get(reason, 0)) for p in order]
        if not any(widths):
            continue
        template, colour = REASONS.get(reason, (reason, MUTED))
        label = words.gettext(template) if reason in REASONS else reason
        handles[label] = axes.barh(rows, widths, left=lefts, height=0.7, color=_rgb(colour))
        for row, points in enumerate(widths):
            if points / widest >= 0.07:  # the number inside, where it fits
                axes.text(
                    lefts[row] + points / 2,
                    row,
                    str(points),
                    ha="center",
                    va="center",
                    color=_rgb(ink_on(colour)),
                    fontproperties=_font(TEXT_PT),
                )
        lefts = [left + width for left, width in zip(lefts, widths, strict=True)]
    for row, player in enumerate(order):
        axes.text(
            lefts[row] + widest * 0.02,
            row,
            str(final[player]),
            ha="left",
            va="center",
            color=_rgb(INK),
            fontproperties=_font(TEXT_PT, True),
        )
    axes.set_yticks(list(rows), [labels[p] for p in order])
    for tick, player in zip(axes.get_yticklabels(), order, strict=True):
        tick.set_color(_rgb(mix(seat_colour(seats[player]), INK, 0.45)))
    axes.set_xlim(0, widest * 1.15)
    axes.set_ylim(-0.6, len(order) - 0.4)  # the same rows whether or not bars are drawn
    axes.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
    shown = list(handles)
    legend = figure.legend(
        list(handles.values()),
        shown,
        loc="lower left",
        bbox_to_anchor=(LEGEND_X, 0.0),
        ncols=2 if len(shown) > 2 else len(shown) or 1,
        frameon=False,
        prop=_font(TEXT_PT),
        handlelength=1.2,
        columnspacing=1.0,
        labelcolor=_rgb(INK),
    )
    _keep_inside(figure, legend)


LEGEND_X = 0.635
"""Where the reasons' legend starts (a figure fraction), below the bars."""


def _keep_inside(figure: Figure, legend: Any) -> None:
    """Move the reasons' legend left as far as a longer label (German) would reach past
    the picture's right edge; where it fits, it stays where it is."""
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    over = legend.get_window_extent(renderer).x1 - (WIDTH - 4)
    if over > 0:
        legend.set_bbox_to_anchor((LEGEND_X - over / WIDTH, 0.0))
