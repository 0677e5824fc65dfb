"""Every name in ``components.json`` is listed for translation: a name the
file gains without a line in ``engine/workshop/names.py`` would reach players in
English only, so this fails until it is listed (and then the catalogue test until it
is translated)."""

from __future__ import annotations

import json
from typing import Any

from engine.workshop import names
from engine.workshop.data import DATA_FILE, MATERIALS
from engine.workshop.models import STATIONS
from i18n import words


def component_file() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    return data


def test_every_toy_name_is_listed() -> None:
    toys = [t["name"] for t in component_file()["toys"]]
    assert sorted(toys) == sorted(names.TOY_NAMES)


def test_every_colour_has_its_name_and_phrases() -> None:
    colours = component_file()["ornaments"]["colours"]
    for table in (names.COLOURS, names.A_ORNAMENT, names.THE_ORNAMENT, names.ORNAMENT):
        assert sorted(table) == sorted(colours)
    for colour in colours:
        assert names.A_ORNAMENT[colour] == f"a {colour} ornament"
        assert names.THE_ORNAMENT[colour] == f"the {colour} ornament"
        assert names.ORNAMENT[colour] == f"{colour} ornament"


def test_every_reward_and_tree_space_label_is_listed() -> None:
    data = component_file()
    assert sorted(r["label"] for r in data["ornaments"]["rewards"]) == sorted(names.REWARD_LABELS)
    assert sorted(s["label"] for s in data["tree_spaces"]) == sorted(names.TREE_SPACE_LABELS)


def test_materials_stations_and_spaces() -> None:
    assert list(component_file()["materials"]) == list(names.MATERIAL_NAMES) == list(MATERIALS)
    assert list(names.STATION_NAMES) == list(names.AT_STATION) == list(STATIONS)
    for station, name in names.STATION_NAMES.items():
        assert names.AT_STATION[station] == f"at the {name}"


def test_every_listed_name_has_a_german_translation_and_reindeer_keep_theirs() -> None:
    german = words("de")
    listed = [
        *names.TOY_NAMES,
        *names.COLOURS.values(),
        *names.A_ORNAMENT.values(),
        *names.REWARD_LABELS,
        *names.TREE_SPACE_LABELS,
        *names.MATERIAL_NAMES.values(),
        *names.STATION_NAMES.values(),
        *names.AT_STATION.values(),
    ]
    same = {"gold"}  # the colour is the same word in German
    untranslated = [n for n in listed if german.gettext(n) == n and n not in same]
    assert not untranslated
    assert german.gettext("Kite") == "Drachen"
    for reindeer in component_file()["reindeer"]["names"]:
        assert german.gettext(reindeer) == reindeer


def test_an_unknown_colour_is_said_in_english() -> None:
    assert names.ornament("purple", names.A_ORNAMENT, words("de")) == "a purple ornament"
    assert names.ornament("red", names.A_ORNAMENT, words("de")) == "eine rote Kugel"
