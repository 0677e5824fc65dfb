"""State, actions, events, views and outcome of Santa's Workshop (pydantic v2, frozen).

The state is compact: integer ids for cards (toy ``0..44``, reindeer ``0..17``,
ornament ``colour * 5 + reward``), tuples for every sequence, token counts as
``(wood, metal, fabric, assembly)``. Views expand it into names for display.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from engine.core import Model, Outcome, PlayerId, StateBase

Material = Literal["wood", "metal", "fabric", "assembly"]
ChoiceMaterial = Literal["wood", "metal", "fabric"]
Station = Literal[
    "wood", "metal", "fabric", "assembly", "donation", "mail3", "mail2", "stables", "tree1", "tree2"
]
STATIONS: tuple[Station, ...] = (
    "wood",
    "metal",
    "fabric",
    "assembly",
    "donation",
    "mail3",
    "mail2",
    "stables",
    "tree1",
    "tree2",
)
"""Station index order; the shops come first so a shop's index is its material's index."""

Reason = Literal[
    "toy", "cooperation", "donation", "ornament", "tree", "inspection", "unfinished", "reindeer"
]
REASONS: tuple[Reason, ...] = (
    "toy",
    "cooperation",
    "donation",
    "ornament",
    "tree",
    "inspection",
    "unfinished",
    "reindeer",
)
"""W-6.3 score reasons, in breakdown order."""

Toy = tuple[int, int, int, int, int]
"""An unfinished toy: ``(card, wood, metal, fabric, assembly placed)``."""
Tokens = tuple[int, int, int, int]


# --------------------------------------------------------------------------- state


class Seat(Model):
    """One player's mat. ``tree`` holds an ornament id per tree space, -1 if empty."""

    toys: tuple[Toy, ...] = ()
    completed: tuple[int, ...] = ()
    reindeer: tuple[int, ...] = ()
    tree: tuple[int, ...] = (-1, -1, -1, -1, -1, -1)
    score: int = 0
    breakdown: tuple[int, ...] = (0,) * len(REASONS)
    cheer: tuple[int, ...] = ()


class Phase:
    """Decision points (``WorkshopState.phase``)."""

    STATION = 0  # place an Elf
    MAIL = 1  # take a toy card (or stop)
    REINDEER = 2  # pick a face-up reindeer
    CHOOSE = 3  # pick the type of one Material of choice
    PLACE = 4  # put received tokens of one type on a toy, or donate them
    ORNAMENT = 5  # pick an ornament colour
    SPACE = 6  # pick the tree space to cover
    DONATION = 7  # take one donated token onto a toy (or stop)
    OVER = 8


PHASE_NAMES = (
    "station",
    "mail",
    "reindeer",
    "choose_material",
    "place_tokens",
    "ornament",
    "tree_space",
    "donation",
    "over",
)


class WorkshopState(StateBase):
    """The whole game. ``spaces[i]`` lists the seats of the Elves on station ``i`` in order.

    Tokens in ``batch`` were received but not yet placed or donated; they stay
    counted in ``supply`` until they are, so supply + toys + donation = 24 holds
    after every action (W-1.4). ``deck`` has its top card last; ``reindeer_deck``
    has its top card first (cards go to the bottom, the end). ``ornaments[c]`` holds
    the rewards still face down in colour ``c``; the draw within a colour is made
    with the RNG when the ornament is chosen (W-3.5).
    """

    day: int = 1
    first: int = 0
    turn: int = 0
    phase: int = Phase.STATION
    station: int = -1
    spaces: tuple[tuple[int, ...], ...] = ((),) * len(STATIONS)
    mail: tuple[int, ...] = ()
    deck: tuple[int, ...] = ()
    sleigh: tuple[int, ...] = ()
    reindeer_deck: tuple[int, ...] = ()
    stalls: tuple[int, ...] = ()
    ornaments: tuple[tuple[int, ...], ...] = ()
    supply: Tokens = (24, 24, 24, 24)
    donation: Tokens = (0, 0, 0, 0)
    seats: tuple[Seat, ...] = ()
    batch: Tokens = (0, 0, 0, 0)
    to_choose: int = 0
    mail_left: int = 0
    taken: int = 0
    ornament: int = -1


# --------------------------------------------------------------------------- actions


class PlaceElf(Model):
    """Place an Elf on a station; a shop's next free space is taken (W-3)."""

    kind: Literal["place_elf"] = "place_elf"
    station: Station


class TakeToy(Model):
    """Take one toy card from a Mail Room slot (0–5) or, with ``slot=None``, the deck top."""

    kind: Literal["take_toy"] = "take_toy"
    slot: int | None = None


class StopTaking(Model):
    """End a Mail Room or Donation Center visit early (after the first card or token)."""

    kind: Literal["stop_taking"] = "stop_taking"


class TakeReindeer(Model):
    kind: Literal["take_reindeer"] = "take_reindeer"
    stall: int


class ChooseMaterial(Model):
    """The type of the next Material of choice (W-3.4)."""

    kind: Literal["choose_material"] = "choose_material"
    material: ChoiceMaterial


class PlaceTokens(Model):
    """Put ``count`` received tokens of ``material`` on unfinished toy card ``toy`` (W-4.1)."""

    kind: Literal["place_tokens"] = "place_tokens"
    material: Material
    toy: int
    count: int


class DonateTokens(Model):
    """Donate all the received tokens of ``material`` still unplaced (+1 point each)."""

    kind: Literal["donate"] = "donate"
    material: Material
    count: int


class ChooseOrnament(Model):
    kind: Literal["choose_ornament"] = "choose_ornament"
    colour: str


class CoverSpace(Model):
    kind: Literal["cover_space"] = "cover_space"
    space: str


class TakeDonated(Model):
    """Take one token of ``material`` from the Donation Center onto toy card ``toy`` (W-3.2)."""

    kind: Literal["take_donated"] = "take_donated"
    material: Material
    toy: int


Action = Annotated[
    PlaceElf
    | TakeToy
    | StopTaking
    | TakeReindeer
    | ChooseMaterial
    | PlaceTokens
    | DonateTokens
    | ChooseOrnament
    | CoverSpace
    | TakeDonated,
    Field(discriminator="kind"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)


# --------------------------------------------------------------------------- events


class ElfPlaced(Model):
    kind: Literal["elf_placed"] = "elf_placed"
    player: PlayerId
    station: Station
    space: int


class Scored(Model):
    """A change of score (W-6.3); the final score is the sum of these."""

    kind: Literal["scored"] = "scored"
    player: PlayerId
    points: int
    reason: Reason
    detail: str = ""


class TokensReceived(Model):
    """Tokens a player must now place or donate; ``short`` is what the supply lacked (W-1.4)."""

    kind: Literal["tokens_received"] = "tokens_received"
    player: PlayerId
    material: Material
    count: int
    short: int = 0


class ChoiceLost(Model):
    """Materials of choice that could not be given: Wood, Metal and Fabric all ran out."""

    kind: Literal["choice_lost"] = "choice_lost"
    player: PlayerId
    count: int


class TokensPlaced(Model):
    kind: Literal["tokens_placed"] = "tokens_placed"
    player: PlayerId
    material: Material
    toy: str
    count: int
    from_donation: bool = False


class TokensDonated(Model):
    kind: Literal["tokens_donated"] = "tokens_donated"
    player: PlayerId
    material: Material
    count: int
    automatic: bool = False


class ToyTaken(Model):
    kind: Literal["toy_taken"] = "toy_taken"
    player: PlayerId
    toy: str
    slot: int | None


class DeckReshuffled(Model):
    kind: Literal["deck_reshuffled"] = "deck_reshuffled"
    cards: int


class ToyCompleted(Model):
    kind: Literal["toy_completed"] = "toy_completed"
    player: PlayerId
    toy: str


class ReindeerTaken(Model):
    """Public: who took a reindeer from which stall; the name is never in an event (W-7.2)."""

    kind: Literal["reindeer_taken"] = "reindeer_taken"
    player: PlayerId
    stall: int


class OrnamentRevealed(Model):
    kind: Literal["ornament_revealed"] = "ornament_revealed"
    player: PlayerId
    colour: str
    reward: str


class OrnamentPlaced(Model):
    kind: Literal["ornament_placed"] = "ornament_placed"
    player: PlayerId
    colour: str
    space: str


class DayEnded(Model):
    kind: Literal["day_ended"] = "day_ended"
    day: int
    stalls_revealed: int
    first_player: PlayerId | None


class Inspection(Model):
    kind: Literal["inspection"] = "inspection"
    number: int
    cheer: dict[PlayerId, int]


class GameEnded(Model):
    kind: Literal["game_ended"] = "game_ended"
    scores: dict[PlayerId, int]
    winners: list[PlayerId]


Event = Annotated[
    ElfPlaced
    | Scored
    | TokensReceived
    | ChoiceLost
    | TokensPlaced
    | TokensDonated
    | ToyTaken
    | DeckReshuffled
    | ToyCompleted
    | ReindeerTaken
    | OrnamentRevealed
    | OrnamentPlaced
    | DayEnded
    | Inspection
    | GameEnded,
    Field(discriminator="kind"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
EVENTS_ADAPTER: TypeAdapter[list[Event]] = TypeAdapter(list[Event])


# --------------------------------------------------------------------------- options / outcome


class WorkshopOptions(Model):
    """The Standard Game has no options; the model exists for the protocol."""


class PlayerOutcome(Model):
    breakdown: dict[str, int]
    reindeer: list[str]
    unfinished_tokens: int
    cheer: list[int]
    reindeer_points: int


class WorkshopOutcome(Outcome):
    players: dict[PlayerId, PlayerOutcome]


# --------------------------------------------------------------------------- views


class ToyView(Model):
    card: int
    name: str
    tier: str
    points: int
    requires: dict[str, int]
    placed: dict[str, int]


class OrnamentView(Model):
    colour: str
    reward: str


class TreeSpaceView(Model):
    space: str
    label: str
    ornament: OrnamentView | None


class StationView(Model):
    station: Station
    name: str
    capacity: int | None
    occupants: list[PlayerId]
    """Seat owners in space order (1st space first)."""


class PendingView(Model):
    """The decision the current player faces."""

    player: PlayerId | None
    decision: str
    station: Station | None = None
    tokens: dict[str, int] = Field(default_factory=dict)
    materials_to_choose: int = 0
    toys_left: int = 0
    taken: int = 0
    ornament: OrnamentView | None = None


class PlayerView(Model):
    player: PlayerId
    seat: int
    score: int
    elves_left: int
    unfinished: list[ToyView]
    completed: list[ToyView]
    tree: list[TreeSpaceView]
    ornaments: int
    reindeer_count: int
    reindeer: list[str] | None
    """Names only in the owner's own view (W-7.2)."""
    cheer: list[int]


class WorkshopView(Model):
    game: Literal["workshop"] = "workshop"
    viewer: PlayerId | None
    day: int
    date: str
    first_player: PlayerId
    current_player: PlayerId | None
    pending: PendingView
    stations: list[StationView]
    mail_slots: list[ToyView | None]
    deck_size: int
    sleigh_size: int
    reindeer_deck_size: int
    stalls: list[str | None]
    ornaments_left: dict[str, int]
    donation: dict[str, int]
    supply: dict[str, int]
    players: list[PlayerView]
    over: bool
