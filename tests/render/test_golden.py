"""Golden pictures: each fixed position (tests/render/states.py) drawn now must match the
stored PNG within a small pixel tolerance. Redraw on purpose with
``python -m tests.render.make_golden`` (and look at the pictures before committing)."""

from __future__ import annotations

import pytest

from render import render_board
from render.chart import render_chart
from tests.render.golden_images import GOLDEN, MAX_DIFFERING_PIXELS, difference, draw, keys
from tests.render.states import CHARTS, POSITIONS, names

MAX_PNG_BYTES = 400 * 1024


@pytest.mark.parametrize("key", keys())
def test_picture_matches_its_golden_image(key: str) -> None:
    png = draw(key)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(png) < MAX_PNG_BYTES  # the posted PNG stays under 400 KB
    stored = GOLDEN / f"{key}.png"
    assert stored.exists(), f"no golden image for {key}: run python -m tests.render.make_golden"
    size, golden_size, differing = difference(png, stored.read_bytes())
    assert size == golden_size, f"{key}: drawn {size}, golden {golden_size}"
    hint = ""
    if key.endswith("-de"):  # German labels follow the catalogue: a changed entry moves them
        hint = "; after a deliberate change of the German catalogue: make_golden de, then look"
    assert differing <= MAX_DIFFERING_PIXELS, f"{key}: {differing} pixels differ from golden{hint}"


def test_the_tolerance_still_catches_a_score_one_point_higher() -> None:
    game, state = POSITIONS["workshop-5p-mid"]()
    view = game.view(state, None)
    first = view.players[0]
    higher = view.model_copy(
        update={"players": [first.model_copy(update={"score": first.score + 1}), *view.players[1:]]}
    )
    png = render_board(view, names(5))
    assert difference(png, png)[2] == 0
    assert difference(png, render_board(higher, names(5)))[2] > MAX_DIFFERING_PIXELS


def test_the_tolerance_still_catches_a_chart_one_point_higher() -> None:
    """A chart whose winner has one point more (their last point and the total beside
    their bar) is not within the golden tolerance."""
    timeline = CHARTS["chart-workshop-5p"]()
    winner = timeline.winners[0]
    series = timeline.scores[winner]
    parts = dict(timeline.breakdown[winner])
    parts["toy"] += 1
    higher = timeline.model_copy(
        update={
            "scores": {**timeline.scores, winner: (*series[:-1], series[-1] + 1)},
            "breakdown": {**timeline.breakdown, winner: parts},
        }
    )
    png = render_chart(timeline, names(5))
    assert difference(png, render_chart(timeline, names(5)))[2] == 0  # drawn the same twice
    assert difference(png, render_chart(higher, names(5)))[2] > MAX_DIFFERING_PIXELS


def test_a_chart_is_drawn_with_the_shipped_fonts_only() -> None:
    """Every text of the chart uses render/fonts (never a system font), at the boards'
    smallest size or larger (20 px at the posted size)."""
    from matplotlib.font_manager import findfont
    from matplotlib.text import Text

    from render.canvas import FONT_DIR, MIN_TEXT_PX
    from render.chart import DPI, draw_chart

    figure = draw_chart(CHARTS["chart-tonttu-6p"](), names(6))
    figure.canvas.draw()
    texts = [t for t in figure.findobj(Text) if t.get_visible() and t.get_text()]
    assert len(texts) > 20
    for text in texts:
        path = findfont(text.get_fontproperties(), fallback_to_default=False)
        assert path.startswith(str(FONT_DIR)), (text.get_text(), path)
        assert text.get_fontsize() * DPI / 72 >= MIN_TEXT_PX, text.get_text()
