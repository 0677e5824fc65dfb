"""Every name in Workshop Tonttu's card data is listed as a template, so the
German catalogue translates it; a name added to ``cards.json`` alone fails here."""

from __future__ import annotations

import json

import pytest

from engine.tonttu import names
from engine.tonttu.data import DATA_FILE
from i18n import words


def test_every_name_in_the_card_data_is_a_template() -> None:
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    assert list(data["materials"]) == list(names.MATERIALS)
    assert list(data["categories"]) == list(names.CATEGORIES)
    assert sorted(g["name"] for g in data["gifts"]) == sorted(names.GIFTS)
    assert {m for g in data["gifts"] for m in g["needs"]} <= set(names.MATERIALS)


@pytest.mark.parametrize(
    ("english", "german"),
    [
        ("Wood", "Holz"),
        ("Wool", "Wolle"),
        ("Metal", "Metall"),
        ("Paint", "Farbe"),
        ("Toys", "Spielzeug"),
        ("Clothing", "Kleidung"),
        ("Decorations", "Dekoration"),
        ("Rocking Horse", "Schaukelpferd"),
    ],
)
def test_the_german_names_follow_the_glossary(english: str, german: str) -> None:
    assert words("de").gettext(english) == german


def test_every_gift_has_its_own_german_name() -> None:
    german = [words("de").gettext(name) for name in names.GIFTS]
    assert len(set(german)) == len(german)
    assert all(de != en for de, en in zip(german, names.GIFTS, strict=True))
