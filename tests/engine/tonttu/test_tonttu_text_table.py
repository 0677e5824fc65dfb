"""The Tonttu text table keeps its columns apart: the widest workbench sets the
workbench column, in English and in a language with longer words."""

from __future__ import annotations

from test_tonttu_rules import build

import i18n
from engine.tonttu import GAME

NAMES = {"ann": "Ann", "bob": "Bob", "cid": "Cid"}


def test_a_long_workbench_never_runs_into_the_gifts() -> None:
    state = build(
        face_up=[["Wood", "Wool", "Metal", "Paint", "Gold"], ["Wood"], []],
        face_down=["Gold", "Wool", None],
        won=[["Bell", "Scarf"], [], ["Clogs"]],
    )
    for lang in ("en", "de"):
        words = i18n.words(lang)
        text = GAME.render_text(GAME.view(state, "ann"), NAMES, words)
        lines = text.splitlines()
        header = next(
            i for i, line in enumerate(lines) if line.lstrip().startswith(("Seat", "Platz"))
        )
        gifts_at = lines[header].rindex(words.gettext("Gifts"))
        for row in lines[header + 2 : header + 5]:
            # every gifts cell starts in the gifts column, after two spaces of room
            assert row[gifts_at - 2 : gifts_at] == "  ", (lang, row)
            assert row[gifts_at] != " ", (lang, row)
