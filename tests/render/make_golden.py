"""Redraw the golden pictures on purpose, after a deliberate change to the drawing.

    python -m tests.render.make_golden            # every position
    python -m tests.render.make_golden workshop-5p-mid tonttu-6p-pick-private
    python -m tests.render.make_golden workshop-5p-mid-de     # a German one (-de)
    python -m tests.render.make_golden de                     # every German one

Look at the new pictures before committing them: the tests compare against these.
"""

from __future__ import annotations

import sys

from tests.render.golden_images import GERMAN, draw, keys, save


def main(argv: list[str]) -> int:
    wanted = [k for arg in argv for k in ([f"{g}-de" for g in GERMAN] if arg == "de" else [arg])]
    wanted = wanted or keys()
    unknown = sorted(set(wanted) - set(keys()))
    if unknown:
        print(f"unknown positions: {', '.join(unknown)}; known: {', '.join(keys())}")
        return 2
    for key in wanted:
        path = save(key, draw(key))
        print(f"wrote {path} ({path.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
