"""The "after" pictures in ``docs/notes/47/``: the thread's board
picture of a mid-game table, scaled to 400 px wide as a phone's chat shows it.

    .venv/bin/python -m tests.render.notes_47_shots [FOLDER]    (default: docs/notes/47)

Santa's Workshop with five players after 130 moves (``workshop-5p-mid``) and Workshop
Tonttu with six during a secret pick (``tonttu-6p-pick``), the golden positions of
``tests.render.states``, in English and German (``-de``). The "before" pictures beside
them show the old drawing and are kept as they are. Look at the new pictures before
committing them (they are pictures for people, not goldens; ``tests/render/test_notes_47``
checks that they still match the drawing).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from PIL import Image

from tests.render.golden_images import draw

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "docs" / "notes" / "47"
WIDTH = 400
"""The width a phone's chat shows the picture at (about 390 px)."""
SHOTS = {"workshop": "workshop-5p-mid", "tonttu": "tonttu-6p-pick"}
"""Each game's picture: its golden position."""
LANGS = ("en", "de")


def name(game: str, lang: str) -> str:
    """The file's name: ``workshop-after-400.png``, ``workshop-after-400-de.png``."""
    return f"{game}-after-{WIDTH}{'' if lang == 'en' else '-' + lang}.png"


def after(game: str, lang: str) -> Image.Image:
    """The chat's board picture of ``game``'s position in ``lang``, scaled to 400 px."""
    key = SHOTS[game] + ("" if lang == "en" else f"-{lang}")
    picture = Image.open(io.BytesIO(draw(key))).convert("RGB")
    height = round(picture.height * WIDTH / picture.width)
    return picture.resize((WIDTH, height), Image.Resampling.LANCZOS)


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for game in SHOTS:
        for lang in LANGS:
            path = folder / name(game, lang)
            picture = after(game, lang)
            # 256 colours, as docs' pictures are kept: a third of the size, same look
            picture.quantize(256).save(path, optimize=True)
            print(f"wrote {path.name} ({picture.width}x{picture.height})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
