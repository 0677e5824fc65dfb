"""The "after" pictures in ``docs/notes/47/`` are the chat's board picture as the code
draws it now (``tests.render.notes_47_shots`` redraws them), English and German."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from tests.render.golden_images import MAX_DIFFERING_PIXELS, difference
from tests.render.notes_47_shots import FOLDER, LANGS, SHOTS, WIDTH, after, name


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", SHOTS)
def test_the_notes_after_pictures_show_the_current_drawing(game: str, lang: str) -> None:
    kept = (FOLDER / name(game, lang)).read_bytes()
    drawn = io.BytesIO()
    after(game, lang).quantize(256).save(drawn, format="PNG")
    size, drawn_size, differing = difference(kept, drawn.getvalue())
    assert size == drawn_size, f"{name(game, lang)} is {size}, the drawing {drawn_size}"
    assert differing <= MAX_DIFFERING_PIXELS, (
        f"{name(game, lang)} differs from the drawing in {differing} pixels:"
        " redraw it with .venv/bin/python -m tests.render.notes_47_shots"
    )


@pytest.mark.parametrize("game", SHOTS)
def test_the_notes_keep_the_old_pictures_beside_the_new_at_400_px(game: str) -> None:
    for lang in LANGS:
        before = FOLDER / name(game, lang).replace("-after-", "-before-")
        assert Image.open(before).width == WIDTH
        assert Image.open(FOLDER / name(game, lang)).width == WIDTH
