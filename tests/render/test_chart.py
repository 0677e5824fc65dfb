"""The chart of how a game went (render/chart.py) beyond its golden pictures: player
identity as on the boards, names drawn as typed, and matplotlib kept out of the bot's
own process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from matplotlib.lines import Line2D
from matplotlib.text import Text

from render.canvas import PLAYER_COLOURS, PLAYER_SHAPES
from render.chart import MARKERS, NAME_PX, draw_chart, plain, short, text_width
from tests.render.states import CHARTS, names

ROOT = Path(__file__).resolve().parents[2]


def test_each_player_has_their_board_colour_and_shape() -> None:
    table = names(6)
    figure = draw_chart(CHARTS["chart-tonttu-6p"](), table)
    lines = [line for line in figure.axes[0].get_lines() if line.get_label() in table.values()]
    assert len(lines) == 6
    for seat, line in enumerate(lines):
        assert line.get_label() == table[f"p{seat + 1}"]  # the name, no number read as a rank
        r, g, b = (round(v * 255) for v in line.get_color())
        assert (r, g, b) == PLAYER_COLOURS[seat]
        assert line.get_marker() == MARKERS[PLAYER_SHAPES[seat]]
    assert len({line.get_marker() for line in lines}) == 6  # never colour alone
    legend = figure.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == [line.get_label() for line in lines]
    assert all(isinstance(h, Line2D) for h in legend.legend_handles)


def test_names_are_drawn_as_typed_and_cut_to_fit() -> None:
    timeline = CHARTS["chart-workshop-2p"]()
    table = {"p1": "$x$", "p2": "Santa 🎅 " + "W" * 40}
    figure = draw_chart(timeline, table)
    figure.canvas.draw()
    texts = [t.get_text() for t in figure.findobj(Text)]
    assert plain("$x$") == r"\$x\$" and plain("$x$") in texts  # not mathtext
    long = next(t for t in texts if t.startswith("Santa W"))  # emoji dropped
    assert long.endswith("…") and text_width(long, 21) <= NAME_PX
    assert short("Aino") == "Aino"
    assert not any(t[:1].isdigit() and t[1:3] == ". " for t in texts)  # no "1. Aino"


def test_importing_the_bot_does_not_import_matplotlib() -> None:
    """matplotlib takes about a second to import: only the drawing process pays it, at
    its first chart, never the bot's event loop."""
    code = "import sys, bot, cogs.table, render; print('matplotlib' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_a_game_nobody_scored_in_still_has_whole_point_axes() -> None:
    """T-2.5: a Tonttu game may end after 10 rounds without a gift, every score 0."""
    from engine.timeline import Timeline

    seats = ("p1", "p2", "p3")
    timeline = Timeline(
        game="tonttu",
        unit="Round",
        players=seats,
        stages=tuple(range(11)),
        scores={p: (0,) * 11 for p in seats},
        breakdown={p: {"gifts": 0, "sets": 0} for p in seats},
        winners=seats,
    )
    figure = draw_chart(timeline, names(3))
    scores, bars = figure.axes
    low, high = scores.get_ylim()
    assert [t for t in scores.get_yticks() if low <= t <= high] == [0, 1, 2, 3, 4]
    assert bars.get_ylim() == (-0.6, 2.6)  # three rows, though no bar is drawn
    assert [t.get_text() for t in bars.get_yticklabels()] == ["Chiara", "Bertil", "Aino"]
