"""What a legal choice does, as data: the structured companion of its menu label.

``Game.describe_action`` gives a choice's label (words, in the reader's language);
``Game.describe_choice(state, player, action)`` gives its :class:`ChoiceFacts`: what
kind of action it is, where it sits on the board (:attr:`ChoiceFacts.target`), what it
costs and gives *now* (an empty supply gives less than the board prints), which card
and which seats it concerns. A front end that draws the board (a web page, a Discord
Activity) makes each legal choice clickable at its target from these facts alone; no
front end parses a label. The labels are made from the same facts, so the two cannot
disagree.

Target ids
----------
A target is ``area`` or ``area:place`` or ``area:place:space``, lower-case ASCII
except for game ids that are spelt otherwise (Tonttu's material names). Indices are
0-based, as in the actions and the state. Several choices may share a target (a
Workshop toy takes 1, 2 or 3 tokens; a Tonttu face-down material is kept face down or
taken face up): a front end offers them together where the target is drawn.

Santa's Workshop:

``station:<station>:<space>``   an Elf on a station (``wood``, ``metal``, ``fabric``,
                                ``assembly``, ``donation``, ``mail3``, ``mail2``,
                                ``stables``, ``tree1``, ``tree2``), on the space it
                                takes (the number of Elves already there)
``mail:<slot>``                 a toy card in a Mail Room slot (0–5)
``toy_deck``                    the top card of the toy deck (unseen)
``stall:<stall>``               a reindeer in a Stables stall (0–2)
``supply:<material>``           a Material of choice from the supply
``toy:<card>``                  an unfinished toy on the player's mat (toy card id):
                                tokens put on it, or a donated token taken onto it
``donation``                    the Donation Center (donating received tokens)
``ornament:<colour>``           an ornament of that colour
``tree:<space>``                a space of the player's tree (tree space id)
``stop``                        no place: stop taking (Mail Room, Donation Center)

Workshop Tonttu:

``hand:<Material>``             a card of that type in the player's hand (``hand:Wool``)
``gift:<slot>``                 a gift in the middle, by its middle slot
``material:<slot>``             a face-down material in the middle, by its slot
``timer``                       no place: the table's timer closes a speed point phase

Resources
---------
:attr:`~ChoiceFacts.gives`, :attr:`~ChoiceFacts.costs` and :attr:`~ChoiceFacts.short`
map a resource to a count. A game's materials are spelt as its actions spell them
(Workshop ``wood``, ``metal``, ``fabric``, ``assembly``; Tonttu ``Wood``, ``Wool``,
``Metal``, ``Paint``, ``Gold``); the other resources are ``elf``, ``toy`` (toy cards),
``reindeer``, ``choice`` (Materials of choice), ``ornament``, ``gift`` and ``material``
(a Tonttu face-down card, unseen). Points are not a resource: :attr:`ChoiceFacts.scores`
says who scores them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from engine.models import Model, PlayerId

Note = Literal["keep_face_down", "take_face_up", "goes_face_up"]
"""Where a Tonttu face-down material lands if its pointer takes it (T-3.1, T-3.4):
kept face down, taken face up by choice, or face up because the workbench already has
a face-down card."""


class Rival(Model):
    """Another seat that could pay a Tonttu gift too, and its offer (T-3.2), as far as
    the chooser can tell from public cards: from ``low`` to ``high`` (a face-down card
    may or may not show a type on the gift); ``if_face_down_fits``: that seat can pay
    only if its face-down card is the one it lacks."""

    player: PlayerId
    low: int
    high: int
    if_face_down_fits: bool = False


class ChoiceFacts(Model):
    """One legal choice of one player, in one position: what it is and does, as data.

    Empty mappings and ``None`` mean "nothing" / "not known here" (a label asked for a
    position that no longer describes the choice, e.g. a confirmation after the reveal,
    says only what the action is).
    """

    kind: str
    """The action's ``kind`` (``place_elf``, ``take_toy``, ``pick``, ``point_gift``, …)."""
    target: str
    """Where the choice sits on the board (see the module's target ids)."""
    gives: dict[str, int] = Field(default_factory=dict)
    """What the player gets now: for a visit (a Mail Room, the Donation Center), the
    most it can give; an empty supply gives less than printed (see :attr:`short`).
    Only counts above zero: a resource the choice cannot give at all is in
    :attr:`short` alone; a choice with ``short`` but no ``gives`` gives nothing of
    what the board promises (its label says so)."""
    short: dict[str, int] = Field(default_factory=dict)
    """What the board prints for this choice but it cannot give now (the supply ran
    out, no room for more toys, no card left): printed = ``gives`` + ``short``."""
    costs: dict[str, int] = Field(default_factory=dict)
    """What the player spends: an Elf, received tokens, the cards a gift needs (what a
    lone or speed-mode winner pays, T-3.2, T-4; a contested winner pays its whole offer)."""
    scores: dict[PlayerId, int] = Field(default_factory=dict)
    """Points scored at once, by seat, in seat order (a Workshop shop's cooperation goes
    to the seats whose Elves are there already; a donation or a completed toy to the
    player)."""
    donated: dict[str, int] = Field(default_factory=dict)
    """Santa's Workshop: the tokens of :attr:`gives` that no unfinished toy of the
    player needs, so they are donated at once for a point each (W-4.1; the points are
    in :attr:`scores`)."""
    final: int | None = None
    """Santa's Workshop, a reindeer: the points it adds to the player's reindeer score
    at the end of the game (W-6.1: more for a name they do not hold yet), counted with
    the reindeer they hold now; ``None`` where the choice scores nothing later."""
    card: int | None = None
    """The card the choice concerns, by the game's card id: a Workshop toy (taken from
    a slot, or the toy tokens go on) or reindeer, a Tonttu gift; ``None`` if none or
    unseen."""
    note: Note | None = None
    """Tonttu, a point at a face-down material: where the card lands if taken."""
    can_pay: bool | None = None
    """Tonttu, a point at a gift: whether the player's workbench covers it."""
    missing: dict[str, int] = Field(default_factory=dict)
    """Tonttu, a gift the player cannot pay: the cards it lacks, by material."""
    offer: int | None = None
    """Tonttu tactical mode, a gift the player can pay: its offer if contested (T-3.2)."""
    rivals: tuple[Rival, ...] = ()
    """Tonttu tactical mode, a gift the player can pay: the other seats that could pay
    it too, in seat order."""


__all__ = ["ChoiceFacts", "Note", "Rival"]
