"""T-1.2 / T-1.3: the card data file, and that its validation rejects broken data."""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

import pytest

from engine.tonttu import data
from engine.tonttu.data import DataError


def raw() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(data.DATA_FILE.read_text(encoding="utf-8"))
    return copy.deepcopy(loaded)


def test_t1_2_material_copies_total_60() -> None:
    counts = Counter(data.MATERIAL_NAMES[t] for t in data.MATERIAL_TYPE)
    assert counts == {"Wood": 16, "Wool": 14, "Metal": 12, "Paint": 10, "Gold": 8}
    assert data.N_MATERIALS == 60


def test_t1_3_gift_file_meets_every_rule() -> None:
    gifts = raw()["gifts"]
    assert len(gifts) == 36
    for category, home in {"Toys": "Wood", "Clothing": "Wool", "Decorations": "Metal"}.items():
        mine = [g for g in gifts if g["category"] == category]
        assert len(mine) == 12
        assert Counter(len(g["needs"]) for g in mine) == {2: 4, 3: 5, 4: 3}
        assert sum(home in g["needs"] for g in mine) >= 8
        assert sum("Gold" in g["needs"] for g in mine) == 2
        assert all(g["needs"].count("Gold") <= 1 for g in mine)


def test_precomputed_requirements_match_the_file() -> None:
    for gift, spec in enumerate(raw()["gifts"]):
        counts = data.GIFT_NEED_COUNTS[gift]
        assert sum(counts) == len(spec["needs"])
        for name, count in Counter(spec["needs"]).items():
            assert counts[data.MATERIAL_IDS[name]] == count


def _break_size(d: dict[str, Any]) -> None:
    d["gifts"][0]["needs"] = ["Wood", "Wood", "Wool"]  # a 2-card toy becomes a 3-card toy


def _break_home(d: dict[str, Any]) -> None:
    for g in d["gifts"]:
        if g["category"] == "Toys":
            g["needs"] = ["Wool" if m == "Wood" else m for m in g["needs"]]


def _break_gold_count(d: dict[str, Any]) -> None:
    d["gifts"][0]["needs"] = ["Wood", "Gold"]


def _break_gold_twice(d: dict[str, Any]) -> None:
    gold = next(g for g in d["gifts"] if "Gold" in g["needs"] and g["category"] == "Toys")
    gold["needs"] = [m if m != "Paint" else "Gold" for m in gold["needs"]]


def _break_copies(d: dict[str, Any]) -> None:
    d["materials"]["Gold"] = 9


def _break_count(d: dict[str, Any]) -> None:
    d["gifts"].pop()


def _break_unknown(d: dict[str, Any]) -> None:
    d["gifts"][0]["needs"] = ["Wood", "Glitter"]


@pytest.mark.parametrize(
    ("breaker", "rule"),
    [
        (_break_size, "4/5/3"),
        (_break_home, "Wood appears"),
        (_break_gold_count, "Gold must appear"),
        (_break_gold_twice, "more than once"),
        (_break_copies, "T-1.2"),
        (_break_count, "36 gifts"),
        (_break_unknown, "unknown materials"),
    ],
)
def test_validation_rejects_broken_data(breaker: Any, rule: str) -> None:
    broken = raw()
    breaker(broken)
    with pytest.raises(DataError, match=rule):
        data.load(broken)


def test_the_unbroken_file_loads() -> None:
    assert data.load(raw()).gifts[0].name == data.GIFT_NAMES[0]
