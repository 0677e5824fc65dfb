"""Santa's Workshop components (W-8), loaded from ``components.json`` and validated.

The file is the single source of names, requirements, points and rewards. Loading
checks it against W-8 (counts, unique names, tier sizes and points, one of each
ornament reward per colour, six tree spaces) and raises :class:`ComponentError`
with a sentence naming the problem. The rules then use small precomputed tuples
indexed by integer ids, so the hot path never touches dicts of names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MATERIALS: tuple[str, ...] = ("wood", "metal", "fabric", "assembly")
"""Token types in their fixed index order (W-1.4); ``assembly`` is index 3."""

WOOD, METAL, FABRIC, ASSEMBLY = range(4)
CHOICE_MATERIALS = (WOOD, METAL, FABRIC)
"""The types a "Material of choice" may be (W-3.4): never Assembly."""

TOKENS_PER_TYPE = 24
"""W-1.4: the supply holds 24 of each type."""

EXPECTED_TOYS = 45
EXPECTED_REINDEER = 18
EXPECTED_ORNAMENTS = 25
EXPECTED_TREE_SPACES = 6
DATA_FILE = Path(__file__).with_name("components.json")


class ComponentError(ValueError):
    """The component file does not match W-8."""


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TierSpec(_Strict):
    tokens: int = Field(gt=0)
    points: int = Field(gt=0)


class ToySpec(_Strict):
    name: str = Field(min_length=1)
    tier: str
    requires: dict[str, int]


class ReindeerSpec(_Strict):
    copies: int = Field(gt=0)
    names: list[str]


class RewardSpec(_Strict):
    id: str
    label: str
    points: int = 0
    choice: int = 0
    assembly: int = 0
    toys: int = 0


class OrnamentSpec(_Strict):
    colours: list[str]
    rewards: list[RewardSpec]


class TreeSpaceSpec(_Strict):
    id: str
    label: str
    points: int = 0
    material: str | None = None


class ComponentFile(_Strict):
    comment: str = Field(default="", alias="_comment")
    materials: list[str]
    tiers: dict[str, TierSpec]
    toys: list[ToySpec]
    reindeer: ReindeerSpec
    ornaments: OrnamentSpec
    tree_spaces: list[TreeSpaceSpec]


class Components:
    """Validated components with integer-indexed lookup tables."""

    def __init__(self, spec: ComponentFile) -> None:
        _validate(spec)
        self.spec = spec
        self.toy_names: tuple[str, ...] = tuple(t.name for t in spec.toys)
        self.toy_tiers: tuple[str, ...] = tuple(t.tier for t in spec.toys)
        self.toy_req: tuple[tuple[int, int, int, int], ...] = tuple(
            (t.requires["wood"], t.requires["metal"], t.requires["fabric"], t.requires["assembly"])
            for t in spec.toys
        )
        self.toy_points: tuple[int, ...] = tuple(spec.tiers[t.tier].points for t in spec.toys)
        # reindeer card id -> name index; copies of a name are adjacent ids
        names = spec.reindeer.names
        self.reindeer_names: tuple[str, ...] = tuple(names)
        self.reindeer_card_name: tuple[int, ...] = tuple(
            i for i in range(len(names)) for _ in range(spec.reindeer.copies)
        )
        self.colours: tuple[str, ...] = tuple(spec.ornaments.colours)
        self.rewards: tuple[RewardSpec, ...] = tuple(spec.ornaments.rewards)
        self.tree_spaces: tuple[TreeSpaceSpec, ...] = tuple(spec.tree_spaces)
        self.tree_space_ids: tuple[str, ...] = tuple(s.id for s in spec.tree_spaces)
        self.tree_space_material: tuple[int, ...] = tuple(
            -1 if s.material is None else MATERIALS.index(s.material) for s in spec.tree_spaces
        )

    @property
    def toy_count(self) -> int:
        return len(self.toy_names)

    @property
    def reindeer_count(self) -> int:
        return len(self.reindeer_card_name)

    def ornament_colour(self, ornament: int) -> str:
        return self.colours[ornament // len(self.rewards)]

    def ornament_reward(self, ornament: int) -> RewardSpec:
        return self.rewards[ornament % len(self.rewards)]


def _validate(spec: ComponentFile) -> None:
    def fail(message: str) -> None:
        raise ComponentError(f"Component file: {message}")

    if list(spec.materials) != list(MATERIALS):
        fail(f"materials must be {list(MATERIALS)}, found {spec.materials}.")
    if len(spec.toys) != EXPECTED_TOYS:
        fail(f"W-8 has {EXPECTED_TOYS} toys, found {len(spec.toys)}.")
    names = [t.name for t in spec.toys]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        fail(f"toy names must be unique; repeated: {', '.join(duplicates)}.")
    for toy in spec.toys:
        tier = spec.tiers.get(toy.tier)
        if tier is None:
            fail(f"toy {toy.name!r} has unknown tier {toy.tier!r}.")
            return
        if sorted(toy.requires) != sorted(MATERIALS):
            fail(f"toy {toy.name!r} must give a requirement for each of {list(MATERIALS)}.")
        if any(v < 0 for v in toy.requires.values()):
            fail(f"toy {toy.name!r} has a negative requirement.")
        if sum(toy.requires.values()) != tier.tokens:
            fail(f"toy {toy.name!r} needs {tier.tokens} tokens as a {toy.tier} toy.")
        if toy.requires["assembly"] < 1:
            fail(f"toy {toy.name!r} needs at least one Assembly.")
    reindeer = spec.reindeer
    if len(set(reindeer.names)) != len(reindeer.names):
        fail("reindeer names must be unique.")
    if len(reindeer.names) * reindeer.copies != EXPECTED_REINDEER:
        fail(f"W-8 has {EXPECTED_REINDEER} reindeer cards.")
    colours, rewards = spec.ornaments.colours, spec.ornaments.rewards
    if len(set(colours)) != len(colours) or len({r.id for r in rewards}) != len(rewards):
        fail("ornament colours and reward ids must be unique.")
    if len(colours) * len(rewards) != EXPECTED_ORNAMENTS:
        fail(f"W-8 has {EXPECTED_ORNAMENTS} ornaments (each colour one of each reward).")
    for reward in rewards:
        parts = (reward.points, reward.choice, reward.assembly, reward.toys)
        if min(parts) < 0 or sum(parts) == 0:
            fail(f"ornament reward {reward.id!r} must give something and nothing negative.")
        if reward.toys and (reward.choice or reward.assembly):
            fail(f"ornament reward {reward.id!r} cannot give both toys and tokens.")
    spaces = spec.tree_spaces
    if len(spaces) != EXPECTED_TREE_SPACES or len({s.id for s in spaces}) != len(spaces):
        fail(f"a tree has {EXPECTED_TREE_SPACES} spaces with unique ids.")
    for space in spaces:
        if (space.points > 0) == (space.material is not None):
            fail(f"tree space {space.id!r} must give either points or one material.")
        if space.material is not None and space.material not in MATERIALS:
            fail(f"tree space {space.id!r} gives unknown material {space.material!r}.")


def parse_components(raw: Mapping[str, Any]) -> Components:
    """Validated components from the parsed JSON; raises :class:`ComponentError`."""
    try:
        spec = ComponentFile.model_validate(raw)
    except ValidationError as error:
        raise ComponentError(f"Component file: {error}") from error
    return Components(spec)


def load_components(path: Path = DATA_FILE) -> Components:
    return parse_components(json.loads(path.read_text(encoding="utf-8")))


COMPONENTS = load_components()
