"""Workshop Tonttu's state, actions, events, views and outcome (pydantic, JSON round-trippable).

Secrecy (T-6): the *state* holds everything, including secrets (hands, deck
order, face-down cards, pending picks and points); it is never shown to a
player. *Events* are public log lines and carry no secret at all: a face-down
material someone takes is named only when it lands face up, discarded hand cards
are only counted. *Views* are what one seat (or a spectator) may see.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from engine.core import Model, Outcome, PlayerId, StateBase

MaterialName = Literal["Wood", "Wool", "Metal", "Paint", "Gold"]
Mode = Literal["tactical", "speed"]
Phase = Literal["pick", "point", "over"]
Rotation = Literal["left", "right"]
EndReason = Literal["gift_stack_empty", "no_gift_for_10_rounds"]

MATERIAL_POINT = 100
"""A pending point is stored as an int: a gift card id (0..35), ``MATERIAL_POINT + slot``
(a face-down middle material, to be kept face down if the workbench has no face-down
card: T-3.1's default) or ``MATERIAL_POINT_UP + slot`` (the same, but face up)."""
MATERIAL_POINT_UP = 200
"""T-3.1: a point at a face-down middle material whose pointer wants it face up."""


class TonttuOptions(Model):
    mode: Mode = "tactical"


class TonttuState(StateBase):
    """The whole table. Cards are ints (see ``engine.tonttu.data``); seats index the tuples.

    ``choices[seat]`` is the seat's pending secret choice in the current phase:
    a material card id from its hand during ``pick``, a point code during
    ``point`` (see :data:`MATERIAL_POINT`), ``None`` if it has not chosen yet.
    In speed mode a point resolves at once, so there it only records *that* the
    seat has pointed. Decks are ordered with the top card first.
    """

    game: Literal["tonttu"] = "tonttu"
    mode: Mode
    phase: Phase
    round: int
    deal_round: int
    rotation: Rotation
    gift_stack: tuple[int, ...]
    middle_gifts: tuple[int | None, ...]
    middle_materials: tuple[int | None, ...]
    deck: tuple[int, ...]
    discard: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    face_up: tuple[tuple[int, ...], ...]
    face_down: tuple[int | None, ...]
    won: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    choices: tuple[int | None, ...]
    gift_won_this_round: bool = False
    rounds_without_gift: int = 0
    short_deal: bool = False
    end_reason: EndReason | None = None


# --------------------------------------------------------------------------- actions


class Pick(Model):
    """T-2.1: put one hand card of this type on your workbench at the reveal."""

    kind: Literal["pick"] = "pick"
    material: MaterialName


class PointGift(Model):
    """T-2.2 / T-4: point at a gift in the middle (by gift card id)."""

    kind: Literal["point_gift"] = "point_gift"
    gift: int


class PointMaterial(Model):
    """T-2.2 / T-4: point at the face-down material in middle slot ``slot`` (0-based).

    T-3.1: taken by a lone pointer with no face-down workbench card, the card goes face
    down if ``face_down`` (the default), else face up; with a face-down card already
    there it goes face up either way (T-3.4). Records from before the choice existed
    have no ``face_down`` and load with the default, which is what happened then.
    """

    kind: Literal["point_material"] = "point_material"
    slot: int
    face_down: bool = True


class ClosePointPhase(Model):
    """T-4: the table's timer ends a speed point phase (actor ``engine.core.TIMER``)."""

    kind: Literal["close_point_phase"] = "close_point_phase"


Action = Annotated[Pick | PointGift | PointMaterial | ClosePointPhase, Field(discriminator="kind")]


# --------------------------------------------------------------------------- events


class GiftResult(Model):
    """How one gift in the middle resolved (T-3.2, or one speed point, T-4)."""

    gift: str
    category: str
    slot: int
    pointers: list[PlayerId]
    contenders: list[PlayerId]
    offers: dict[PlayerId, int] = Field(default_factory=dict)
    result: Literal["won", "tie", "nobody_can_pay", "wasted"]
    winner: PlayerId | None = None
    paid: list[str] = Field(default_factory=list)
    face_down_paid: str | None = None
    """T-3.3: a paid face-down card is shown (it is also in ``paid``)."""


class MaterialResult(Model):
    """How one face-down middle material resolved (T-3.1). Never names a card kept face down."""

    slot: int
    pointers: list[PlayerId]
    result: Literal["taken", "contested"]
    taker: PlayerId | None = None
    face_down: bool = False
    material: str | None = None
    """Only set when the card lands face up on the taker's workbench (then it is public)."""


class Chose(Model):
    """Someone made (or replaced) their secret choice; says only who."""

    kind: Literal["chose"] = "chose"
    player: PlayerId
    phase: Literal["pick", "point"]
    replaced: bool = False


class PicksRevealed(Model):
    kind: Literal["picks_revealed"] = "picks_revealed"
    round: int
    picks: dict[PlayerId, str]
    skipped: list[PlayerId] = Field(default_factory=list)
    """T-2.5: seats with an empty hand."""


class PointsRevealed(Model):
    kind: Literal["points_revealed"] = "points_revealed"
    round: int
    gifts: list[GiftResult]
    materials: list[MaterialResult]


class SpeedPoint(Model):
    """T-4: one point in a speed round, resolved at once."""

    kind: Literal["speed_point"] = "speed_point"
    round: int
    player: PlayerId
    gift: GiftResult | None = None
    material: MaterialResult | None = None


class PointPhaseClosed(Model):
    kind: Literal["point_phase_closed"] = "point_phase_closed"
    round: int
    missed: list[PlayerId]


class RoundEnded(Model):
    """T-2.3 / T-2.4: refill, then pass hands or discard and redeal."""

    kind: Literal["round_ended"] = "round_ended"
    round: int
    gift_won: bool
    gifts_refilled: list[str]
    materials_refilled: int
    reshuffled: int = 0
    """How many times the discard pile became the new material deck (T-2.4)."""
    passed: Rotation | None = None
    discarded: int = 0
    rotation: Rotation | None = None
    """The rotation card after a flip (set only when it flipped)."""
    dealt: dict[PlayerId, int] = Field(default_factory=dict)


class GameEnded(Model):
    kind: Literal["game_ended"] = "game_ended"
    reason: EndReason
    scores: dict[PlayerId, int]
    winners: list[PlayerId]


Event = Annotated[
    Chose | PicksRevealed | PointsRevealed | SpeedPoint | PointPhaseClosed | RoundEnded | GameEnded,
    Field(discriminator="kind"),
]


# --------------------------------------------------------------------------- views


class GiftCard(Model):
    id: int
    name: str
    category: str
    needs: list[str]


class SeatView(Model):
    player: PlayerId
    hand_size: int
    face_up: list[str]
    has_face_down: bool
    face_down: str | None = None
    """The face-down card's type, only in its owner's view (T-6)."""
    known_hand: list[str] | None = None
    """This seat's hand, in the view of another seat that held those very cards earlier
    in this deal (T-2.3: whole hands pass on; every card picked from them since was
    revealed face up, T-2.1); ``None`` when the viewer cannot know it."""
    gifts: list[GiftCard]
    """Gifts won, in completion order."""
    score: int
    chosen: bool
    """Has picked / pointed in the current phase (public, T-6)."""
    to_act: bool


class TonttuView(Model):
    """What ``viewer`` may see (``None`` = spectator). Complete enough to draw the board."""

    game: Literal["tonttu"] = "tonttu"
    viewer: PlayerId | None
    mode: Mode
    phase: Phase
    round: int
    deal_round: int
    rotation: Rotation
    gifts_in_stack: int
    deck_size: int
    discard_size: int
    middle_gifts: list[GiftCard | None]
    middle_materials: list[bool]
    """Per slot: a face-down material (its back) lies there."""
    seats: list[SeatView]
    hand: list[str]
    """The viewer's own hand (empty for spectators)."""
    my_choice: str | None = None
    """The viewer's own pending pick or point, as a menu label."""
    rounds_without_gift: int
    end_reason: EndReason | None = None
    winners: list[PlayerId] = Field(default_factory=list)


# --------------------------------------------------------------------------- outcome


class WonGift(Model):
    name: str
    category: str


class PlayerResult(Model):
    gifts: list[WonGift]
    gift_points: int
    set_points: int


class TonttuOutcome(Outcome):
    players: dict[PlayerId, PlayerResult]
    reason: EndReason
