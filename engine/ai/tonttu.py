"""Computer players for Workshop Tonttu: determinizer, greedy heuristic and planner.

``determinize(view, rng)`` builds a full :class:`TonttuState` from one seat's
view. Copied from the view: phase, round, rotation, middle gifts, every face-up
workbench, gifts won, scores, hand sizes, who has chosen, the viewer's own hand,
face-down card and pending choice, and the hands it held earlier in this deal
(``SeatView.known_hand``). Sampled (T-6 secrets): the material cards seen nowhere
are dealt at random into the other hands, the other face-down
workbench cards, the face-down middle materials, the deck and the discard pile
(the view gives every size); the gift stack is drawn from the gifts seen
nowhere; the other seats' pending choices are drawn uniformly from their legal
choices; the RNG is fresh. Given the seat's memory (:func:`recall`), the type of each
other face-down workbench card is drawn by what that seat's revealed points say of it.

``greedy_action(state, seat, legal, rng)`` reads only what ``seat`` may see:
its hand and face-down card, all face-up cards, the middle gifts, and the
public counts. It values gifts the seat can pay (the k-th gift is worth k,
T-5.1, plus set progress, T-5.2) and contest odds (T-3.2 offers of the other
seats that could pay, from their face-up cards).

``plan_action``, the planner, is the greedy with a few changes that win more against
greedy seats (:func:`plan_scores`); it reads no more than the greedy does. The
``strong`` level orders its candidates by it and plays it for its own seat in its
rollouts.

One file, about 800 lines, on purpose: the determinizer, the greedy, the planner, the
evaluation and the memory of one game's computer player share the private scoring
helpers and per-position caches of the greedy (``_seat_facts``, ``_offer``,
``_bench``…), which the planner and the memory call with the greedy's own arguments;
apart, each file would import the others' private names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from engine.ai import GameAI
from engine.core import AnyGame, Rng
from engine.records import Record, replay_steps
from engine.tonttu.data import (
    GIFT_CATEGORY_ID,
    GIFT_NEED_COUNTS,
    GIFT_TYPE_MASK,
    MATERIAL_COPIES,
    MATERIAL_IDS,
    MATERIAL_TYPE,
    N_GIFTS,
    N_MATERIALS,
    N_TYPES,
)
from engine.tonttu.game import GAME, GIFT_CARDS, winners
from engine.tonttu.models import (
    MATERIAL_POINT,
    PointGift,
    PointsRevealed,
    TonttuState,
    TonttuView,
)
from engine.tonttu.rules import advance
from engine.tonttu.text import point_code

GIFT_ID_BY_NAME = {card.name: card.id for card in GIFT_CARDS}
CARDS_OF_TYPE: tuple[tuple[int, ...], ...] = tuple(
    tuple(c for c in range(N_MATERIALS) if MATERIAL_TYPE[c] == t) for t in range(N_TYPES)
)


# --------------------------------------------------------------------------- determinizer


DownEvidence = Mapping[str, Sequence[float]]
"""Per other seat (player id): how likely its revealed points were had its face-down
workbench card been of each material type (indexed like ``MATERIAL_TYPE``)."""


def determinize(view: TonttuView, rng: Rng, memory: DownEvidence | None = None) -> TonttuState:
    """A full state consistent with ``view`` (``GAME.view(result, viewer) == view``).

    With ``memory`` (:func:`recall`), each other seat's face-down card is drawn first,
    its type in proportion to the unseen cards of that type times the evidence."""
    players = tuple(sv.player for sv in view.seats)
    n = len(players)
    me = players.index(view.viewer) if view.viewer in players else -1

    free: list[list[int]] = [list(ids) for ids in CARDS_OF_TYPE]

    def take(name: str) -> int:
        return free[MATERIAL_IDS[name]].pop()

    face_up = tuple(tuple(take(name) for name in sv.face_up) for sv in view.seats)
    own_hand = tuple(take(name) for name in view.hand) if me >= 0 else ()
    known_hands = {
        i: tuple(take(name) for name in sv.known_hand)
        for i, sv in enumerate(view.seats)
        if sv.known_hand is not None
    }
    own_down: int | None = None
    own_down_name = view.seats[me].face_down if me >= 0 else None
    if own_down_name is not None:
        own_down = take(own_down_name)
    pool = [c for ids in free for c in ids]
    rng.shuffle(pool)
    drawn_down = _draw_down(view, me, pool, memory, rng) if memory else {}

    def deal(count: int) -> tuple[int, ...]:
        cards = tuple(pool[-count:]) if count else ()
        del pool[len(pool) - count :]
        return cards

    hands = tuple(
        own_hand if i == me else known_hands[i] if i in known_hands else deal(sv.hand_size)
        for i, sv in enumerate(view.seats)
    )
    face_down = tuple(
        own_down
        if i == me
        else drawn_down[i]
        if i in drawn_down
        else (deal(1)[0] if sv.has_face_down else None)
        for i, sv in enumerate(view.seats)
    )
    middle_materials = tuple(deal(1)[0] if lies else None for lies in view.middle_materials)
    deck = deal(view.deck_size)
    discard = deal(view.discard_size)

    middle_gifts = tuple(None if g is None else g.id for g in view.middle_gifts)
    won = tuple(tuple(g.id for g in sv.gifts) for sv in view.seats)
    seen = {g for g in middle_gifts if g is not None} | {g for w in won for g in w}
    unseen = [g for g in range(N_GIFTS) if g not in seen]
    gift_stack = rng.shuffled(unseen)[: view.gifts_in_stack]

    choices: list[int | None] = [None] * n
    if view.phase != "over":
        for i, sv in enumerate(view.seats):
            if not sv.chosen:
                continue
            if i == me and view.my_choice is not None:
                choices[i] = _parse_choice(view, hands[i], view.my_choice)
            elif view.phase == "pick":
                choices[i] = hands[i][rng.below(len(hands[i]))]
            else:
                options = [g for g in middle_gifts if g is not None]
                options += [MATERIAL_POINT + k for k, c in enumerate(middle_materials) if c]
                choices[i] = options[rng.below(len(options))] if options else MATERIAL_POINT

    # a gift slot is empty during play only after a speed point won it this round (T-4)
    gift_won = view.phase == "point" and view.mode == "speed" and None in middle_gifts
    return TonttuState(
        players=players,
        seed=0,
        rng=rng.next64(),
        mode=view.mode,
        phase=view.phase,
        round=view.round,
        deal_round=view.deal_round,
        rotation=view.rotation,
        gift_stack=gift_stack,
        middle_gifts=middle_gifts,
        middle_materials=middle_materials,
        deck=deck,
        discard=discard,
        hands=hands,
        face_up=face_up,
        face_down=face_down,
        won=won,
        scores=tuple(sv.score for sv in view.seats),
        choices=tuple(choices),
        game="tonttu",
        gift_won_this_round=gift_won,
        rounds_without_gift=view.rounds_without_gift,
        short_deal=False,
        end_reason=view.end_reason,
    )


def _draw_down(
    view: TonttuView, me: int, pool: list[int], memory: DownEvidence, rng: Rng
) -> dict[int, int]:
    """The other seats' face-down cards that ``memory`` says something about, taken from
    the (shuffled) ``pool``: a type drawn in proportion to its cards left times the
    evidence, then the last card of that type in the pool."""
    drawn: dict[int, int] = {}
    counts = [0] * N_TYPES
    for c in pool:
        counts[MATERIAL_TYPE[c]] += 1
    for i, sv in enumerate(view.seats):
        like = memory.get(sv.player)
        if i == me or like is None or not sv.has_face_down:
            continue
        weights = [counts[t] * like[t] for t in range(N_TYPES)]
        total = sum(weights)
        if total <= 0:
            continue
        x = rng.next64() / 2**64 * total
        t = max(k for k in range(N_TYPES) if weights[k] > 0)  # if rounding runs past the end
        for k, weight in enumerate(weights):
            if x < weight:
                t = k
                break
            x -= weight
        last = max(k for k, c in enumerate(pool) if MATERIAL_TYPE[c] == t)
        drawn[i] = pool.pop(last)
        counts[t] -= 1
    return drawn


def _parse_choice(view: TonttuView, hand: tuple[int, ...], label: str) -> int:
    """The viewer's own pending choice, from its menu label in the view."""
    if view.phase == "pick":
        wanted = MATERIAL_IDS[label.removeprefix("Pick ")]
        return next(c for c in hand if MATERIAL_TYPE[c] == wanted)
    return point_code(label)


# --------------------------------------------------------------------------- greedy

MATERIAL_POINT_VALUE = 0.9
"""Taking a face-down middle card: one more card towards a gift (T-3.1)."""
FACE_UP_COST = 0.1
"""T-3.1: asking for a material face up when it could stay face down. It pays the same,
but face down the others cannot tell whether it completes a gift (their contest odds,
:meth:`_Others.threat`, only guess at a face-down card), so face down is kept."""
RARITY = tuple(16 / MATERIAL_COPIES[name] for name in MATERIAL_COPIES)
"""Scarcer types (Gold) are worth a little more to hold."""


def _bench(state: TonttuState, seat: int, *, with_down: bool = True) -> list[int]:
    have = [0, 0, 0, 0, 0]
    for card in state.face_up[seat]:
        have[MATERIAL_TYPE[card]] += 1
    down = state.face_down[seat]
    if with_down and down is not None:
        have[MATERIAL_TYPE[down]] += 1
    return have


GIFT_NEEDS_SPARSE: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((t, c) for t, c in enumerate(GIFT_NEED_COUNTS[g]) if c) for g in range(N_GIFTS)
)
GIFT_TYPES: tuple[tuple[int, ...], ...] = tuple(
    tuple(t for t in range(N_TYPES) if GIFT_TYPE_MASK[g] >> t & 1) for g in range(N_GIFTS)
)


def _missing(have: Sequence[int], gift: int) -> int:
    missing = 0
    for t, c in GIFT_NEEDS_SPARSE[gift]:
        if have[t] < c:
            missing += c - have[t]
    return missing


_MISSING_ALL: dict[tuple[int, ...], tuple[int, ...]] = {}


def _missing_all(have: tuple[int, ...]) -> tuple[int, ...]:
    """``_missing(have, g)`` for every gift ``g`` (memoized: the greedy asks it often)."""
    got = _MISSING_ALL.get(have)
    if got is None:
        if len(_MISSING_ALL) > 200_000:
            _MISSING_ALL.clear()
        got = _MISSING_ALL[have] = tuple(_missing(have, g) for g in range(N_GIFTS))
    return got


_OFFER_ALL: dict[tuple[int, ...], tuple[int, ...]] = {}


def _offer_all(have: tuple[int, ...]) -> tuple[int, ...]:
    """``_offer(have, g)`` for every gift ``g`` (memoized)."""
    got = _OFFER_ALL.get(have)
    if got is None:
        if len(_OFFER_ALL) > 200_000:
            _OFFER_ALL.clear()
        got = _OFFER_ALL[have] = tuple(sum(have[t] for t in GIFT_TYPES[g]) for g in range(N_GIFTS))
    return got


def _category_counts(won: Sequence[int]) -> list[int]:
    counts = [0, 0, 0]
    for g in won:
        counts[GIFT_CATEGORY_ID[g]] += 1
    return counts


_GIFT_VALUES: dict[tuple[int, int, int, int, int], float] = {}


def gift_value(won: Sequence[int], gift: int, counts: list[int] | None = None) -> float:
    """Points this gift adds for a seat with ``won`` gifts (T-5.1, T-5.2)."""
    if counts is None:
        counts = _category_counts(won)
    key = (len(won), counts[0], counts[1], counts[2], gift)
    value = _GIFT_VALUES.get(key)
    if value is None:
        value = _GIFT_VALUES[key] = _gift_value(len(won), counts, gift)
    return value


def _gift_value(n_won: int, counts: list[int], gift: int) -> float:
    low = min(counts)
    cat = GIFT_CATEGORY_ID[gift]
    value = float(n_won + 1)
    if counts[cat] == low:
        others = [counts[k] for k in range(3) if k != cat]
        if min(others) > low:
            value += 3.0  # completes a set (T-5.2)
        value += 0.7  # keeps the sets balanced: a later gift completes a set
    return value


def _offer(have: Sequence[int], gift: int) -> int:
    """T-3.2: the workbench cards whose type is on the gift."""
    return sum(have[t] for t in GIFT_TYPES[gift])


_SeatFacts = tuple[tuple[int, ...], tuple[int, ...], bool, int]
_last_facts: tuple[Any, Any, Any, tuple[_SeatFacts, ...]] = (None, None, None, ())
"""A one-entry cache of :func:`_seat_facts`: (face-up benches, face-down cards, middle
gifts, facts). A state's tuples stay shared with its successors until a card moves, so
every seat pointing in one phase reuses the same facts; replaced in one assignment."""


def _seat_facts(state: TonttuState) -> tuple[_SeatFacts, ...]:
    """Per seat, from public information: (missing cards per gift without the face-down
    card, T-3.2 offers per gift, has a face-down card, middle gifts it may pay)."""
    global _last_facts
    face_up, face_down, middle = state.face_up, state.face_down, state.middle_gifts
    cached = _last_facts
    if cached[0] is face_up and cached[1] is face_down and cached[2] is middle:
        return cached[3]
    gifts = [g for g in middle if g is not None]
    facts = []
    for j in range(len(state.players)):
        have = tuple(_bench(state, j, with_down=False))
        missing = _missing_all(have)
        has_down = face_down[j] is not None
        slack = 1 if has_down else 0
        affordable = sum(1 for g in gifts if missing[g] <= slack)
        facts.append((missing, _offer_all(have), has_down, affordable))
    result = tuple(facts)
    _last_facts = (face_up, face_down, middle, result)
    return result


class _Others:
    """Public facts about the other seats, computed once per decision."""

    __slots__ = ("seats",)

    def __init__(self, state: TonttuState, seat: int) -> None:
        entries = _seat_facts(state)
        self.seats = [entry for j, entry in enumerate(entries) if j != seat]

    def threat(
        self, gift: int, my_offer: int, n_gifts: int, hidden: float = 0.3, weaker: float = 0.1
    ) -> float:
        """Chance that another seat takes or blocks ``gift`` (T-3.2), from public information.

        ``hidden``: the chance that a seat one card short pays with its face-down card;
        ``weaker``: how much a seat whose offer is lower than ours still counts."""
        lose = 0.0
        spread = 0.5 + 0.5 * min(1.0, 2 / n_gifts)
        for missing, offers, has_down, affordable in self.seats:
            miss = missing[gift]
            if miss == 0:
                p_can = 1.0
            elif miss == 1 and has_down:
                p_can = hidden
            else:
                continue
            # a seat that can pay several gifts splits its attention
            p_point = p_can / max(1, affordable) * spread
            their = offers[gift] + (0.5 if has_down else 0.0)
            lose += p_point if their >= my_offer else p_point * weaker
        return min(1.0, lose)


DISCOUNT = tuple(0.45**k for k in range(12))
"""A gift's value shrinks by this factor per card still missing (picks)."""


_HOLDING: dict[tuple[int, ...], float] = {}


def _reach(gifts: Sequence[int], values: Sequence[float], have: tuple[int, ...]) -> float:
    """How close a workbench is to paying the middle gifts: their values, discounted per
    missing card, the best weighted most."""
    missing = _missing_all(have)
    ranked = sorted(
        (v * DISCOUNT[missing[g]] for g, v in zip(gifts, values, strict=True)),
        reverse=True,
    )
    return sum(v * w for v, w in zip(ranked, (1.0, 0.4, 0.2), strict=False))


def _bench_potential(gifts: Sequence[int], values: Sequence[float], have: tuple[int, ...]) -> float:
    """The greedy's value of a workbench for picks: its reach, plus a little per card held."""
    score = _reach(gifts, values, have)
    holding = _HOLDING.get(have)
    if holding is None:
        holding = _HOLDING[have] = 0.05 * sum(have[t] * RARITY[t] for t in range(N_TYPES))
    return score + holding


_PICK_SCORES: dict[tuple[Any, ...], list[float]] = {}


def action_scores(state: TonttuState, seat: int, legal: Sequence[Any]) -> list[float]:
    """The greedy's score of each legal action (the caller must not change the list)."""
    have = _bench(state, seat)
    if state.phase != "pick":
        return _point_scores(state, seat, legal, have)
    won = state.won[seat]
    counts = _category_counts(won)
    # a pick's score depends on nothing else, and rollouts meet these positions often
    key = (*have, *counts, len(won), state.middle_gifts, *(a.material for a in legal))
    got = _PICK_SCORES.get(key)
    if got is not None:
        return got
    gifts = [g for g in state.middle_gifts if g is not None]
    values = [gift_value(won, g, counts) for g in gifts]
    out: list[float] = []
    for a in legal:
        t = MATERIAL_IDS[a.material]
        have[t] += 1
        out.append(_bench_potential(gifts, values, tuple(have)))
        have[t] -= 1
    if len(_PICK_SCORES) > 200_000:
        _PICK_SCORES.clear()
    _PICK_SCORES[key] = out
    return out


def _point_scores(
    state: TonttuState,
    seat: int,
    legal: Sequence[Any],
    have: list[int],
    *,
    keep: float = 0.0,
    hidden: float = 0.3,
    weaker: float = 0.1,
    material: float = MATERIAL_POINT_VALUE,
) -> list[float]:
    """The score of each point (the greedy's by default; the planner's with ``keep``,
    :meth:`_Others.threat`'s ``hidden`` and ``weaker``, and its ``material`` value)."""
    won = state.won[seat]
    counts = _category_counts(won)
    gifts = [g for g in state.middle_gifts if g is not None]
    speed = state.mode == "speed"
    others = None if speed else _Others(state, seat)
    material_slots = sum(1 for c in state.middle_materials if c is not None)
    have_key = tuple(have)
    missing = _missing_all(have_key)
    offers = _offer_all(have_key)
    out: list[float] = []
    for a in legal:
        if isinstance(a, PointGift):
            g = a.gift
            if missing[g]:
                out.append(-1.0)
                continue
            value = gift_value(won, g, counts)
            if keep:
                # what the workbench keeps for the other gifts once it has paid exactly
                kept = list(have)
                for t, c in GIFT_NEEDS_SPARSE[g]:
                    kept[t] -= c
                rest = [x for x in gifts if x != g]
                after, after_counts = (*won, g), counts.copy()
                after_counts[GIFT_CATEGORY_ID[g]] += 1
                rest_values = [gift_value(after, x, after_counts) for x in rest]
                value += keep * _reach(rest, rest_values, tuple(kept))
            if others is None:
                out.append(value + 5.0)
                continue
            threat = others.threat(g, offers[g], len(gifts), hidden, weaker)
            out.append(value * (1 - threat) + 0.5)
        else:
            value = material
            if not speed:
                # others who can pay nothing point at materials too (T-3.1: contested = nothing)
                value *= 1 - 1 / (material_slots + 1)
            out.append(value if a.face_down else value - FACE_UP_COST)
    return out


def greedy_action(state: TonttuState, seat: int, legal: Sequence[Any], rng: Rng) -> Any:
    """The best-scoring legal action; ties broken at random (deterministic given ``rng``)."""
    return _best(action_scores, state, seat, legal, rng)


# --------------------------------------------------------------------------- planner

PLAN_MATERIAL_VALUE = 0.5
"""The planner's value of taking a face-down middle material (the greedy's is 0.9)."""
KEEP_WEIGHT = 0.3
"""Weight of what the workbench keeps for the other middle gifts after paying one."""
DENY_WEIGHT = 0.3
"""Weight of the next seat's best pick from the hand a pick passes on (T-2.3)."""


def plan_scores(state: TonttuState, seat: int, legal: Sequence[Any]) -> list[float]:
    """The strong level's own heuristic: its candidates' order and its own moves in rollouts.

    The greedy's (:func:`action_scores`) changed where each change won more games as
    one seat against three greedy seats (``docs/rules-notes.md``, seventh pass):
    - a pick also counts against itself what the hand it passes on offers the next
      seat (T-2.3): that seat's best pick from it for its face-up workbench;
    - a point at a gift also values what the workbench keeps for the other middle
      gifts once it has paid exactly (T-3.2): a cheap gift leaves more for the next;
    - a rival counts as a threat to a gift only if it can pay from its face-up cards
      and offers at least as much (T-3.2: a lower offer loses the contest);
    - holding cards is worth nothing in itself, and a face-down middle material less.
    Like the greedy it reads only what ``seat`` may see (its own hand, public benches).
    """
    have = _bench(state, seat)
    if state.phase != "pick":
        return _point_scores(
            state,
            seat,
            legal,
            have,
            keep=KEEP_WEIGHT,
            hidden=0.0,
            weaker=0.0,
            material=PLAN_MATERIAL_VALUE,
        )
    gifts = [g for g in state.middle_gifts if g is not None]
    won = state.won[seat]
    counts = _category_counts(won)
    values = [gift_value(won, g, counts) for g in gifts]
    hand = [0] * N_TYPES
    for c in state.hands[seat]:
        hand[MATERIAL_TYPE[c]] += 1
    passes_on = len(state.hands[seat]) > 2  # a last card is discarded, not passed (T-2.3)
    if passes_on:
        # the next seat's reach with each type this hand holds, whichever card is picked
        nxt = (seat + (1 if state.rotation == "left" else -1)) % len(state.players)
        their = _bench(state, nxt, with_down=False)
        their_values = [gift_value(state.won[nxt], g) for g in gifts]
        reach_with = [0.0] * N_TYPES
        for u in range(N_TYPES):
            if hand[u]:
                their[u] += 1
                reach_with[u] = _reach(gifts, their_values, tuple(their))
                their[u] -= 1
    out: list[float] = []
    for a in legal:
        t = MATERIAL_IDS[a.material]
        have[t] += 1
        value = _reach(gifts, values, tuple(have))
        have[t] -= 1
        if passes_on:
            hand[t] -= 1
            value -= DENY_WEIGHT * max(reach_with[u] for u in range(N_TYPES) if hand[u])
            hand[t] += 1
        out.append(value)
    return out


def plan_action(state: TonttuState, seat: int, legal: Sequence[Any], rng: Rng) -> Any:
    """The planner's best-scoring legal action; ties broken at random (given ``rng``)."""
    return _best(plan_scores, state, seat, legal, rng)


def _best(
    score: Callable[[TonttuState, int, Sequence[Any]], list[float]],
    state: TonttuState,
    seat: int,
    legal: Sequence[Any],
    rng: Rng,
) -> Any:
    """The legal action ``score`` rates best; ties broken at random (given ``rng``)."""
    if len(legal) == 1:
        return legal[0]
    scores = score(state, seat, legal)
    best = max(scores)
    top = [a for a, v in zip(legal, scores, strict=True) if v >= best - 1e-9]
    return top[0] if len(top) == 1 else top[rng.below(len(top))]


def ranked_actions(state: TonttuState, seat: int, legal: Sequence[Any]) -> list[Any]:
    """Search candidates, best first by the planner (:func:`plan_scores`).

    In a point phase, pointing at a gift the seat cannot pay does nothing (T-3.2: it
    does not contend, T-4: the point is wasted), so such points are dropped while a
    face-down material can be pointed at; and the face-down middle materials look
    alike (hidden, T-6), so one of them stands for all.
    """
    scores = plan_scores(state, seat, legal)
    order = sorted(range(len(legal)), key=lambda i: -scores[i])
    ranked = [legal[i] for i in order]
    if state.phase != "point":
        return ranked
    have = _bench(state, seat)
    payable = [a for a in ranked if isinstance(a, PointGift) and not _missing(have, a.gift)]
    material = [a for a in ranked if not isinstance(a, PointGift)][:1]
    return (payable + material) or ranked


def _greedy(state: TonttuState, player: str, legal: Sequence[Any], rng: Rng) -> Any:
    return greedy_action(state, state.players.index(player), legal, rng)


def _plan(state: TonttuState, player: str, legal: Sequence[Any], rng: Rng) -> Any:
    return plan_action(state, state.players.index(player), legal, rng)


def _ranked(state: TonttuState, player: str, legal: Sequence[Any]) -> list[Any]:
    return ranked_actions(state, state.players.index(player), legal)


MARGIN_WEIGHT = 0.3
"""Weight of the score margin next to a win (1) in the value of a simulated game."""

FUTURE_WEIGHTS = (-0.04, 0.758, 0.126, 0.059, 0.031, -0.15, 0.198, 0.23, 0.743, -0.409)
"""Points a seat still scores after a cut-off simulation, as a linear function of
(1, s, s·w, b, b·(w+1), p, p·(w+1), n, h, w): s gifts left in the stack, w gifts won,
b workbench cards, p middle gifts it can pay now, n middle gifts it lacks one card
for, h set categories ahead of its weakest (T-5.2). Least squares over 108 000
positions of 1 000 four-seat tactical games between greedy seats (R² 0.48)."""


def future_features(state: TonttuState, seat: int) -> tuple[float, ...]:
    """The inputs of :data:`FUTURE_WEIGHTS` (``engine.ai.tonttu_fit`` fits them)."""
    s = len(state.gift_stack)
    won = state.won[seat]
    w = len(won)
    b = len(state.face_up[seat]) + (state.face_down[seat] is not None)
    missing = _missing_all(tuple(_bench(state, seat)))
    gifts = [g for g in state.middle_gifts if g is not None]
    p = sum(1 for g in gifts if missing[g] == 0)
    n = sum(1 for g in gifts if missing[g] == 1)
    counts = _category_counts(won)
    h = sum(1 for c in counts if c > min(counts))
    return (1.0, s, s * w, b, b * (w + 1), p, p * (w + 1), n, h, w)


def potential(state: TonttuState, seat: int) -> float:
    """Points a seat may expect at the end: its score plus the fitted future points."""
    s = len(state.gift_stack)
    won = state.won[seat]
    w = len(won)
    b = len(state.face_up[seat]) + (state.face_down[seat] is not None)
    missing = _missing_all(tuple(_bench(state, seat)))
    p = n = 0
    for g in state.middle_gifts:
        if g is not None:
            if missing[g] == 0:
                p += 1
            elif missing[g] == 1:
                n += 1
    counts = _category_counts(won)
    low = min(counts)
    h = sum(1 for c in counts if c > low)
    c0, cs, csw, cb, cbw, cp, cpw, cn, ch, cw = FUTURE_WEIGHTS
    future = (
        c0 + cs * s + csw * s * w + cb * b + cbw * b * (w + 1) + cp * p + cpw * p * (w + 1)
    ) + (cn * n + ch * h + cw * w)
    return state.scores[seat] + max(0.0, future)


def evaluate(state: TonttuState, player: str) -> float:
    """A finished game: a win counts 1 (a shared win is split), plus the score margin.
    A cut-off simulation (``Budget.horizon``): the margin of :func:`potential` (score
    plus expected future points) and who leads by it."""
    seat = state.players.index(player)
    n = len(state.players)
    if state.phase == "over":
        top = winners(state)
        win = 1 / len(top) if player in top else 0.0
        values = [float(v) for v in state.scores]
    else:
        values = [potential(state, i) for i in range(n)]
        best = max(values)
        leaders = [i for i in range(n) if values[i] == best]
        win = 1 / len(leaders) if seat in leaders else 0.0
    best_other = max(v for i, v in enumerate(values) if i != seat)
    margin = max(-20.0, min(20.0, values[seat] - best_other))
    return win + MARGIN_WEIGHT * margin


def prepare(game: AnyGame, state: TonttuState, player: str, rng: Rng) -> TonttuState:
    """Before a search: the others' sampled pending choices are replaced by greedy ones.

    A tactical choice may be replaced until the last seat chooses (T-2.1, T-2.2),
    and the deciding seat has not chosen yet, so no replacement triggers the reveal.
    """
    if state.mode == "speed" and state.phase == "point":
        return state
    me = state.players.index(player)
    for seat, p in enumerate(state.players):
        if seat == me or state.choices[seat] is None or state.choices[me] is not None:
            continue
        legal = game.legal_actions(state, p)
        if legal:
            state = advance(state, p, greedy_action(state, seat, legal, rng))
    return state


# --------------------------------------------------------------------------- memory

UNLIKELY = 0.05
"""The evidence of a revealed point the greedy would not have made with a face-down
card of some type: not 0, since a seat may play otherwise (a human, another level)."""

TYPE_CARD = tuple(ids[0] for ids in CARDS_OF_TYPE)
"""A card of each material type (the greedy reads only a card's type)."""


def _point_key(action: Any) -> tuple[str, int]:
    """What a revealed point shows: the gift, or the middle material's slot (whether the
    pointer wished it face up or down stays secret when it is contested, T-3.1)."""
    if isinstance(action, PointGift):
        return ("gift", action.gift)
    return ("material", action.slot)


def point_evidence(before: TonttuView, revealed: PointsRevealed) -> dict[str, tuple[float, ...]]:
    """What a tactical reveal says of each seat's face-down workbench card, from public
    facts only: ``before`` is a view of the table while the seats chose (a spectator's
    will do) and ``revealed`` the reveal's event.

    A greedy seat's point depends on public facts and its own face-down card alone
    (:func:`action_scores`), so for each type the evidence is the share of the greedy's
    best points, with a card of that type face down, that match the revealed point
    (at least :data:`UNLIKELY`)."""
    pointed: dict[str, tuple[str, int]] = {}
    for gift in revealed.gifts:
        for player in gift.pointers:
            pointed[player] = ("gift", GIFT_ID_BY_NAME[gift.gift])
    for material in revealed.materials:
        for player in material.pointers:
            pointed[player] = ("material", material.slot)
    table = determinize(before, Rng(0))
    table = table.model_copy(update={"choices": (None,) * len(table.players)})
    out: dict[str, tuple[float, ...]] = {}
    for seat, sv in enumerate(before.seats):
        point = pointed.get(sv.player)
        if point is None or not sv.has_face_down:
            continue
        legal = GAME.legal_actions(table, sv.player)
        likes = []
        for card in TYPE_CARD:
            down = list(table.face_down)
            down[seat] = card
            scores = action_scores(table.model_copy(update={"face_down": tuple(down)}), seat, legal)
            best = max(scores)
            top = [_point_key(a) for a, v in zip(legal, scores, strict=True) if v >= best - 1e-9]
            likes.append(max(UNLIKELY, top.count(point) / len(top)))
        out[sv.player] = tuple(likes)
    return out


def recall(game: AnyGame, record: Record, player: str) -> dict[str, tuple[float, ...]]:
    """What ``player`` remembers of the game so far that its view does not show: the
    evidence of the others' revealed tactical points about the face-down workbench
    cards they hold now (:func:`point_evidence`), multiplied over the reveals since
    each card was laid.

    ``record`` holds the game's seed and decisions so far (secrets included); only
    what a spectator saw is read from it: the board before each reveal and the
    reveal. So every seat remembers the same (its own card left out)."""
    memory: dict[str, tuple[float, ...]] = {}
    for before, revealed in point_reveals(game, record):
        table = game.view(before, None)
        for sv in table.seats:
            if not sv.has_face_down:
                memory.pop(sv.player, None)  # a card laid later starts afresh
        for seat, likes in point_evidence(table, revealed).items():
            old = memory.get(seat, (1.0,) * N_TYPES)
            both = [a * b for a, b in zip(old, likes, strict=True)]
            top = max(both)
            memory[seat] = tuple(v / top for v in both)  # only the ratios count
    memory.pop(player, None)
    return memory


def point_reveals(game: AnyGame, record: Record) -> Iterator[tuple[TonttuState, PointsRevealed]]:
    """Each tactical reveal of points in ``record``, with the state the points were
    chosen in (secrets included: a reader takes only public facts from it)."""
    steps = replay_steps(game, record)
    before, _ = next(steps)
    if before.mode != "tactical":
        return
    for state, events in steps:
        for event in events:
            if isinstance(event, PointsRevealed):
                yield before, event
        before = state


def _finished(state: TonttuState) -> bool:
    return state.phase == "over"


AI = GameAI(
    determinize=determinize,
    greedy=_greedy,
    own=_plan,
    ranked=_ranked,
    evaluate=evaluate,
    prepare=prepare,
    finished=_finished,
    advance=advance,
    recall=recall,
)


__all__ = [
    "AI",
    "action_scores",
    "determinize",
    "gift_value",
    "greedy_action",
    "plan_action",
    "plan_scores",
    "point_evidence",
    "point_reveals",
    "ranked_actions",
    "recall",
]
