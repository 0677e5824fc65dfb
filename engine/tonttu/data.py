"""Workshop Tonttu's cards, loaded from ``cards.json`` and checked against T-1.2 / T-1.3.

Cards are plain ints in the state: material cards ``0..59`` and gift cards
``0..35``. Everything the rules need about a card (its type, its requirement as
counts per material type) is precomputed here once, so the hot path only indexes
tuples.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

DATA_FILE = Path(__file__).with_name("cards.json")

MATERIAL_COPIES: dict[str, int] = {"Wood": 16, "Wool": 14, "Metal": 12, "Paint": 10, "Gold": 8}
"""T-1.2: the required copies of each material type, in the order of type ids."""

HOME_MATERIAL: dict[str, str] = {"Toys": "Wood", "Clothing": "Wool", "Decorations": "Metal"}
"""T-1.3: the three categories and the material each must use often."""

GIFTS_PER_SIZE: dict[int, int] = {2: 4, 3: 5, 4: 3}
"""T-1.3: in each category, how many gifts need 2, 3 and 4 cards."""


class DataError(ValueError):
    """The card data file breaks T-1.2 or T-1.3."""


class GiftSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    category: str
    needs: tuple[str, ...]


class CardData(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    materials: dict[str, int]
    categories: dict[str, str]
    gifts: tuple[GiftSpec, ...]


def validate(data: CardData) -> None:
    """Raise :class:`DataError` naming the first broken rule (T-1.2, T-1.3)."""
    if list(data.materials.items()) != list(MATERIAL_COPIES.items()):
        raise DataError(
            f"T-1.2: materials must be exactly {MATERIAL_COPIES}, got {data.materials}."
        )
    if data.categories != HOME_MATERIAL:
        raise DataError(f"T-1.3: categories must be {HOME_MATERIAL}, got {data.categories}.")
    if len(data.gifts) != 36:
        raise DataError(f"T-1.3: there must be 36 gifts, got {len(data.gifts)}.")
    names = [g.name for g in data.gifts]
    if len(set(names)) != len(names):
        raise DataError("Gift names must be unique.")
    for category, home in HOME_MATERIAL.items():
        gifts = [g for g in data.gifts if g.category == category]
        if len(gifts) != 12:
            raise DataError(f"T-1.3: {category} must have 12 gifts, got {len(gifts)}.")
        sizes = Counter(len(g.needs) for g in gifts)
        if dict(sizes) != GIFTS_PER_SIZE:
            raise DataError(
                f"T-1.3: {category} must have 4/5/3 gifts needing 2/3/4 cards, got {dict(sizes)}."
            )
        with_home = sum(1 for g in gifts if home in g.needs)
        if with_home < 8:
            raise DataError(f"T-1.3: {home} appears in only {with_home} {category} gifts (min 8).")
        with_gold = [g for g in gifts if "Gold" in g.needs]
        if len(with_gold) != 2:
            raise DataError(f"T-1.3: Gold must appear in exactly 2 {category} gifts.")
        if any(g.needs.count("Gold") > 1 for g in with_gold):
            raise DataError(f"T-1.3: a {category} gift needs Gold more than once.")
    for gift in data.gifts:
        if gift.category not in HOME_MATERIAL:
            raise DataError(f"Gift {gift.name} has an unknown category {gift.category!r}.")
        unknown = [m for m in gift.needs if m not in MATERIAL_COPIES]
        if unknown:
            raise DataError(f"Gift {gift.name} needs unknown materials {unknown}.")


def load(raw: Mapping[str, Any] | None = None) -> CardData:
    """The validated card data (from ``cards.json`` unless ``raw`` is given)."""
    source = raw if raw is not None else json.loads(DATA_FILE.read_text(encoding="utf-8"))
    data = CardData.model_validate(source)
    validate(data)
    return data


CARDS = load()

MATERIAL_NAMES: tuple[str, ...] = tuple(CARDS.materials)
"""Type id → name: 0 Wood, 1 Wool, 2 Metal, 3 Paint, 4 Gold."""
MATERIAL_IDS: dict[str, int] = {name: i for i, name in enumerate(MATERIAL_NAMES)}
N_TYPES = len(MATERIAL_NAMES)

MATERIAL_TYPE: tuple[int, ...] = tuple(
    type_id for type_id, name in enumerate(MATERIAL_NAMES) for _ in range(CARDS.materials[name])
)
"""Material card id → type id. Card ids of one type are consecutive."""
N_MATERIALS = len(MATERIAL_TYPE)  # 60

GIFT_NAMES: tuple[str, ...] = tuple(g.name for g in CARDS.gifts)
GIFT_CATEGORY: tuple[str, ...] = tuple(g.category for g in CARDS.gifts)
CATEGORIES: tuple[str, ...] = tuple(CARDS.categories)
GIFT_CATEGORY_ID: tuple[int, ...] = tuple(CATEGORIES.index(g.category) for g in CARDS.gifts)
GIFT_NEEDS: tuple[tuple[str, ...], ...] = tuple(g.needs for g in CARDS.gifts)
GIFT_NEED_COUNTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(g.needs.count(name) for name in MATERIAL_NAMES) for g in CARDS.gifts
)
"""Gift id → required cards per material type id."""
GIFT_TYPE_MASK: tuple[int, ...] = tuple(
    sum(1 << MATERIAL_IDS[name] for name in set(g.needs)) for g in CARDS.gifts
)
"""Gift id → bit mask of the material types it shows (for offers, T-3.2)."""
N_GIFTS = len(GIFT_NAMES)  # 36
