"""W-8: the component file is loaded and validated (counts, names, requirements)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from engine.workshop.data import COMPONENTS, DATA_FILE, ComponentError, parse_components

RAW: dict[str, Any] = json.loads(DATA_FILE.read_text(encoding="utf-8"))


def test_w8_counts_and_tiers() -> None:
    c = COMPONENTS
    assert c.toy_count == 45 and len(set(c.toy_names)) == 45
    for tier, tokens, points, count in (
        ("small", 3, 4, 15),
        ("medium", 5, 7, 15),
        ("large", 7, 11, 15),
    ):
        cards = [i for i in range(45) if c.toy_tiers[i] == tier]
        assert len(cards) == count
        assert all(sum(c.toy_req[i]) == tokens and c.toy_points[i] == points for i in cards)
    assert c.reindeer_count == 18 and len(c.reindeer_names) == 9
    assert len(c.colours) * len(c.rewards) == 25
    assert [s.id for s in c.tree_spaces] == [
        "star",
        "points2",
        "wood",
        "metal",
        "fabric",
        "assembly",
    ]


def test_w8_sample_requirements() -> None:
    c = COMPONENTS
    req = {name: c.toy_req[i] for i, name in enumerate(c.toy_names)}
    assert req["Toy Boat"] == (2, 0, 0, 1)
    assert req["Jack-in-the-Box"] == (0, 1, 1, 1)
    assert req["Scooter"] == (1, 2, 1, 1)
    assert req["Pirate Ship"] == (3, 1, 1, 2)
    assert req["Carousel"] == (1, 2, 2, 2)


def _drop_toy(d: dict[str, Any]) -> None:
    d["toys"].pop()


def _duplicate_name(d: dict[str, Any]) -> None:
    d["toys"][1]["name"] = d["toys"][0]["name"]


def _bad_sum(d: dict[str, Any]) -> None:
    d["toys"][0]["requires"]["wood"] = 3


def _no_assembly(d: dict[str, Any]) -> None:
    d["toys"][0]["requires"] = {"wood": 3, "metal": 0, "fabric": 0, "assembly": 0}


def _unknown_tier(d: dict[str, Any]) -> None:
    d["toys"][0]["tier"] = "huge"


def _reindeer(d: dict[str, Any]) -> None:
    d["reindeer"]["names"].pop()


def _colour(d: dict[str, Any]) -> None:
    d["ornaments"]["colours"].append("pink")


def _tree(d: dict[str, Any]) -> None:
    d["tree_spaces"].pop()


def _typo_field(d: dict[str, Any]) -> None:
    d["toys"][0]["requries"] = d["toys"][0].pop("requires")


@pytest.mark.parametrize(
    "spoil",
    [
        _drop_toy,
        _duplicate_name,
        _bad_sum,
        _no_assembly,
        _unknown_tier,
        _reindeer,
        _colour,
        _tree,
        _typo_field,
    ],
)
def test_w8_a_wrong_file_is_refused(spoil: Callable[[dict[str, Any]], None]) -> None:
    data = copy.deepcopy(RAW)
    spoil(data)
    with pytest.raises(ComponentError, match="Component file"):
        parse_components(data)


def test_w8_the_shipped_file_parses() -> None:
    assert parse_components(copy.deepcopy(RAW)).toy_names == COMPONENTS.toy_names
