"""Computer players for Santa's Workshop: determinizer and greedy heuristic.

``determinize(view, rng)`` builds a full :class:`WorkshopState` from one seat's
view: everything the view shows is copied, and what it hides (W-7.2, W-7.3) is
sampled: the toy deck and sleigh (the toys seen nowhere, split by the sizes the
view gives), the reindeer deck and the other seats' reindeer (the cards seen
nowhere, by the counts the view gives), and the RNG (which decides future
ornament draws and sleigh reshuffles). The ornament pools per colour are public
in effect: every colour holds one of each reward and the revealed ones are on
the trees, so the view determines what is left.

``greedy_action(state, legal, rng)`` scores the current seat's legal actions
with a fast heuristic that reads only what that seat may see (its own
reindeer names, public toys, tokens, trees, stations, stalls). It is used as
the ``greedy`` level and as the rollout policy of the ``strong`` level.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.ai import GameAI
from engine.core import Rng
from engine.workshop.data import COMPONENTS as C
from engine.workshop.data import MATERIALS
from engine.workshop.models import (
    PHASE_NAMES,
    REASONS,
    STATIONS,
    DonateTokens,
    Phase,
    PlaceTokens,
    Seat,
    StopTaking,
    TakeToy,
    WorkshopState,
    WorkshopView,
)
from engine.workshop.rules import (
    DAYS,
    DONATION,
    ELVES,
    INSPECTION_DAYS,
    INSPECTION_POINTS,
    MAIL2,
    MAIL3,
    MAX_UNFINISHED,
    STABLES,
    TREE1,
    TREE2,
    elves_left,
    outcome_of,
    reindeer_points,
)

REQ = C.toy_req
TOY_POINTS = C.toy_points
N_REWARDS = len(C.rewards)
REWARD_INDEX = {r.label: i for i, r in enumerate(C.rewards)}
COLOUR_INDEX = {c: i for i, c in enumerate(C.colours)}
REINDEER_NAME_INDEX = {n: i for i, n in enumerate(C.reindeer_names)}
STATION_INDEX = {s: i for i, s in enumerate(STATIONS)}
MATERIAL_INDEX = {m: i for i, m in enumerate(MATERIALS)}
SPACE_INDEX = {s: i for i, s in enumerate(C.tree_space_ids)}
COPIES = C.spec.reindeer.copies


# --------------------------------------------------------------------------- determinizer


def _ornament_id(colour: str, reward_label: str) -> int:
    return COLOUR_INDEX[colour] * N_REWARDS + REWARD_INDEX[reward_label]


def determinize(view: WorkshopView, rng: Rng) -> WorkshopState:
    """A full state consistent with ``view`` (``build_view(result, viewer) == view``)."""
    players = tuple(p.player for p in view.players)
    seat_of = {p: i for i, p in enumerate(players)}
    n = len(players)

    # toys: everything not in a mail slot or on a mat is in the deck or the sleigh
    seen_toys: set[int] = {t.card for t in view.mail_slots if t is not None}
    for pv in view.players:
        seen_toys.update(t.card for t in pv.unfinished)
        seen_toys.update(t.card for t in pv.completed)
    hidden_toys = [c for c in range(C.toy_count) if c not in seen_toys]
    rng.shuffle(hidden_toys)
    deck = tuple(hidden_toys[: view.deck_size])
    sleigh = tuple(hidden_toys[view.deck_size : view.deck_size + view.sleigh_size])

    # reindeer: copies of a name are interchangeable, so known names take the lowest ids
    free_ids: dict[int, list[int]] = {
        k: [k * COPIES + j for j in range(COPIES)] for k in range(len(C.reindeer_names))
    }

    def take_id(name: str) -> int:
        return free_ids[REINDEER_NAME_INDEX[name]].pop(0)

    stalls = tuple(-1 if name is None else take_id(name) for name in view.stalls)
    own_reindeer: dict[int, tuple[int, ...]] = {}
    for i, pv in enumerate(view.players):
        if pv.reindeer is not None:
            own_reindeer[i] = tuple(take_id(name) for name in pv.reindeer)
    pool = [c for ids in free_ids.values() for c in ids]
    rng.shuffle(pool)
    reindeer: list[tuple[int, ...]] = []
    for i, pv in enumerate(view.players):
        if i in own_reindeer:
            reindeer.append(own_reindeer[i])
        else:
            reindeer.append(tuple(pool[: pv.reindeer_count]))
            del pool[: pv.reindeer_count]
    reindeer_deck = tuple(pool[: view.reindeer_deck_size])

    # ornaments: each colour holds one of each reward; the revealed ones are on trees
    revealed: list[set[int]] = [set() for _ in C.colours]
    trees: list[tuple[int, ...]] = []
    for pv in view.players:
        tree = []
        for space in pv.tree:
            if space.ornament is None:
                tree.append(-1)
            else:
                orn = _ornament_id(space.ornament.colour, space.ornament.reward)
                revealed[orn // N_REWARDS].add(orn % N_REWARDS)
                tree.append(orn)
        trees.append(tuple(tree))
    pending = view.pending
    in_hand = -1
    if pending.ornament is not None:
        in_hand = _ornament_id(pending.ornament.colour, pending.ornament.reward)
        revealed[in_hand // N_REWARDS].add(in_hand % N_REWARDS)
    ornaments = tuple(
        tuple(r for r in range(N_REWARDS) if r not in revealed[c]) for c in range(len(C.colours))
    )

    seats = []
    for i, pv in enumerate(view.players):
        toys = tuple((t.card, *(t.placed[m] for m in MATERIALS)) for t in pv.unfinished)
        breakdown = [0] * len(REASONS)
        breakdown[0] = pv.score  # the split by reason is not in the view; only totals matter
        seats.append(
            Seat(
                toys=toys,  # type: ignore[arg-type]
                completed=tuple(t.card for t in pv.completed),
                reindeer=reindeer[i],
                tree=trees[i],
                score=pv.score,
                breakdown=tuple(breakdown),
                cheer=tuple(pv.cheer),
            )
        )
    over = view.over
    turn = sum(3 - pv.elves_left for pv in view.players) if not over else 3 * n
    if not over and pending.decision != "station":
        turn -= 1  # the view counts the Elf whose decisions are pending as placed
    batch = tuple(pending.tokens.get(m, 0) for m in MATERIALS)
    return WorkshopState(
        game="workshop",
        players=players,
        seed=0,
        rng=rng.next64(),
        day=view.day,
        first=seat_of[view.first_player],
        turn=turn,
        phase=PHASE_NAMES.index(pending.decision),
        station=-1 if pending.station is None else STATION_INDEX[pending.station],
        spaces=tuple(tuple(seat_of[p] for p in st.occupants) for st in view.stations),
        mail=tuple(-1 if t is None else t.card for t in view.mail_slots),
        deck=deck,
        sleigh=sleigh,
        reindeer_deck=reindeer_deck,
        stalls=stalls,
        ornaments=ornaments,
        supply=tuple(view.supply[m] for m in MATERIALS),  # type: ignore[arg-type]
        donation=tuple(view.donation[m] for m in MATERIALS),  # type: ignore[arg-type]
        seats=tuple(seats),
        batch=batch,  # type: ignore[arg-type]
        to_choose=pending.materials_to_choose,
        mail_left=pending.toys_left,
        taken=pending.taken,
        ornament=in_hand,
    )


# --------------------------------------------------------------------------- greedy

TOKEN_VALUE = 1.6
"""A useful token placed on a toy: +1 at the end if unfinished (W-6.1), more if it completes."""
DONATE_VALUE = 1.0  # W-4.1: +1 point each
COMPLETION_BONUS = 2.5
"""Extra value when tokens complete a toy: its Cheer at the next Inspection (W-5.1)."""
ORNAMENT_VALUE = 3.2
"""An ornament: the mean reward (about 2 points) plus Cheer at both Inspections."""


_NEEDS: dict[Any, tuple[int, ...]] = {}


def _needs(seat: Seat) -> list[int]:
    """Tokens of each type my unfinished toys still need."""
    toys = seat.toys
    need_t = _NEEDS.get(toys)
    if need_t is None:
        if len(_NEEDS) > 100_000:
            _NEEDS.clear()
        need_t = _NEEDS[toys] = tuple(_count_needs(toys))
    return list(need_t)


def _count_needs(toys: Any) -> list[int]:
    need = [0, 0, 0, 0]
    for toy in toys:
        req = REQ[toy[0]]
        for t in range(4):
            need[t] += req[t] - toy[1 + t]
    return need


def _remaining(toy: tuple[int, ...]) -> int:
    req = REQ[toy[0]]
    return sum(req[t] - toy[1 + t] for t in range(4))


_TOKENS_VALUES: dict[Any, float] = {}


def _tokens_value(seat: Seat, t: int, count: int, day: int) -> float:
    """The value of receiving ``count`` tokens of type ``t`` (placed greedily, rest donated)."""
    if count <= 0:
        return 0.0
    key = (seat.toys, t, count)  # the value does not depend on the day
    value = _TOKENS_VALUES.get(key)
    if value is None:
        if len(_TOKENS_VALUES) > 200_000:
            _TOKENS_VALUES.clear()
        value = _TOKENS_VALUES[key] = _place_value(seat.toys, t, count)
    return value


def _place_value(toys: Any, t: int, count: int) -> float:
    needs = sorted(
        ((REQ[toy[0]][t] - toy[1 + t], _remaining(toy), toy[0]) for toy in toys),
        key=lambda x: x[1],
    )
    value = 0.0
    left = count
    for need, remaining, card in needs:
        if need <= 0 or left <= 0:
            continue
        put = min(need, left)
        left -= put
        value += put * TOKEN_VALUE
        if put == remaining:  # completes the toy
            value += TOY_POINTS[card] - remaining + COMPLETION_BONUS
        else:
            # progress towards completion is worth more for nearly finished toys
            value += put * 0.6 * TOY_POINTS[card] / max(1, remaining)
    return value + left * DONATE_VALUE


def _choice_value(seat: Seat, count: int, day: int) -> float:
    """Materials of choice: each goes where it is needed most."""
    need = _needs(seat)
    best = 0.0
    value = 0.0
    for _ in range(count):
        best_t, best = 0, -1.0
        for t in range(3):
            v = _tokens_value(seat, t, 1, day) if need[t] > 0 else DONATE_VALUE
            if v > best:
                best_t, best = t, v
        value += best
        need[best_t] = max(0, need[best_t] - 1)
    return value


def _reindeer_gain(cards: Sequence[int], card: int) -> int:
    return reindeer_points((*cards, card)) - reindeer_points(cards)


def _best_stall(s: WorkshopState, seat: Seat) -> tuple[int, int]:
    best, stall = -1, -1
    for k, card in enumerate(s.stalls):
        if card >= 0:
            gain = _reindeer_gain(seat.reindeer, card)
            if gain > best:
                best, stall = gain, k
    return best, stall


def _toy_card_value(seat: Seat, card: int, day: int) -> float:
    """How good a new toy card is: points per token, adjusted by time left."""
    req = REQ[card]
    tokens = sum(req)
    days_left = 6 - day + 1
    base = TOY_POINTS[card] / tokens * 1.5 + 1.0
    if days_left <= 1:
        base -= tokens * 0.35
    elif days_left <= 2:
        base -= tokens * 0.15
    # fits what my toys already use (shared shop visits)
    need = _needs(seat)
    overlap = sum(1 for t in range(3) if req[t] and need[t])
    return base + 0.2 * overlap


def _mail_value(s: WorkshopState, seat: Seat, limit: int) -> float:
    room = MAX_UNFINISHED - len(seat.toys)
    take = min(limit, room)
    if take <= 0:
        return -5.0
    cards = sorted((_toy_card_value(seat, c, s.day) for c in s.mail if c >= 0), reverse=True)
    # fewer toys → more valuable; many toys already waiting → less
    crowd = 1.0 if len(seat.toys) <= 1 else 0.6 if len(seat.toys) <= 3 else 0.25
    return sum(cards[:take]) * crowd


def _ornament_value(s: WorkshopState, seat: Seat) -> float:
    free = [k for k, o in enumerate(seat.tree) if o < 0]
    space = 0.0
    for k in free:
        sp = C.tree_spaces[k]
        v = float(sp.points) if sp.points else _tokens_value(seat, C.tree_space_material[k], 1, 0)
        space = max(space, v)
    inspections_left = (1 if s.day <= 3 else 0) + 1
    return ORNAMENT_VALUE + space + 0.8 * (inspections_left - 1)


def station_value(s: WorkshopState, seat_index: int, station: int) -> float:
    seat = s.seats[seat_index]
    occupants = s.spaces[station]
    if station < 4:
        space = len(occupants)
        coop = occupants.count(seat_index)
        return _tokens_value(seat, station, space + 2, s.day) + coop
    if station == DONATION:
        need = _needs(seat)
        fits = sum(min(need[t], s.donation[t]) for t in range(4))
        return fits * TOKEN_VALUE + 1.0
    if station in (MAIL3, MAIL2):
        return _mail_value(s, seat, 3 if station == MAIL3 else 2)
    if station == STABLES:
        gain, _stall = _best_stall(s, seat)
        return gain + _choice_value(seat, len(occupants) + 1, s.day)
    if station in (TREE1, TREE2):
        return _ornament_value(s, seat)
    return 0.0


def _place_score(seat: Seat, action: PlaceTokens) -> float:
    toy = next(t for t in seat.toys if t[0] == action.toy)
    remaining = _remaining(toy)
    completes = action.count == remaining
    return action.count * 2 + (20 if completes else 0) - remaining * 0.5 + TOY_POINTS[toy[0]] * 0.05


def action_scores(s: WorkshopState, legal: Sequence[Any]) -> list[float]:
    """A heuristic score per legal action of the current seat (higher is better)."""
    seat_index = (s.first + s.turn) % len(s.players)
    seat = s.seats[seat_index]
    phase = s.phase
    out: list[float] = []
    if phase == Phase.STATION:
        for a in legal:
            out.append(station_value(s, seat_index, STATION_INDEX[a.station]))
        return out
    if phase == Phase.MAIL:
        for a in legal:
            if isinstance(a, StopTaking):
                out.append(0.0 if s.day < 6 else 2.0)
            elif isinstance(a, TakeToy):
                if a.slot is None:
                    out.append(1.5)
                else:
                    out.append(_toy_card_value(seat, s.mail[a.slot], s.day))
            else:
                out.append(0.0)
        return out
    if phase == Phase.REINDEER:
        return [float(_reindeer_gain(seat.reindeer, s.stalls[a.stall])) for a in legal]
    if phase == Phase.CHOOSE:
        need = _needs(seat)
        batch = s.batch
        return [
            float(need[MATERIAL_INDEX[a.material]] - batch[MATERIAL_INDEX[a.material]])
            for a in legal
        ]
    if phase == Phase.PLACE:
        for a in legal:
            if isinstance(a, DonateTokens):
                out.append(0.5)
            else:
                out.append(_place_score(seat, a))
        return out
    if phase == Phase.ORNAMENT:
        for a in legal:
            c = COLOUR_INDEX[a.colour]
            left = s.ornaments[c]
            # expected value of the rewards still face down in this colour (public in effect)
            values = [_reward_value(seat, r, s.day) for r in left]
            out.append(sum(values) / len(values))
        return out
    if phase == Phase.SPACE:
        for a in legal:
            k = SPACE_INDEX[a.space]
            sp = C.tree_spaces[k]
            if sp.points:
                out.append(float(sp.points))
            else:
                out.append(_tokens_value(seat, C.tree_space_material[k], 1, s.day) * 0.9)
        return out
    if phase == Phase.DONATION:
        for a in legal:
            if isinstance(a, StopTaking):
                out.append(-1.0)
            else:
                toy = next(t for t in seat.toys if t[0] == a.toy)
                out.append(10.0 - _remaining(toy))
        return out
    return [0.0] * len(legal)


def _reward_value(seat: Seat, reward: int, day: int) -> float:
    spec = C.rewards[reward]
    value = float(spec.points)
    if spec.choice:
        value += _choice_value(seat, spec.choice, day)
    if spec.assembly:
        value += _tokens_value(seat, 3, spec.assembly, day)
    if spec.toys:
        value += 1.5 if len(seat.toys) < MAX_UNFINISHED and day < 6 else 0.0
    return value


def greedy_action(s: WorkshopState, legal: Sequence[Any], rng: Rng) -> Any:
    """The best-scoring legal action; ties broken at random (deterministic given ``rng``)."""
    if len(legal) == 1:
        return legal[0]
    scores = action_scores(s, legal)
    best = max(scores)
    top = [a for a, v in zip(legal, scores, strict=True) if v >= best - 1e-9]
    return top[0] if len(top) == 1 else top[rng.below(len(top))]


def ranked_actions(s: WorkshopState, legal: Sequence[Any]) -> list[Any]:
    """Legal actions, best heuristic score first (stable for equal scores)."""
    scores = action_scores(s, legal)
    order = sorted(range(len(legal)), key=lambda i: -scores[i])
    return [legal[i] for i in order]


def _greedy(state: WorkshopState, player: str, legal: Sequence[Any], rng: Rng) -> Any:
    return greedy_action(state, legal, rng)


def _ranked(state: WorkshopState, player: str, legal: Sequence[Any]) -> list[Any]:
    return ranked_actions(state, legal)


# --------------------------------------------------------------------------- cut-off value

FUTURE_WEIGHTS: tuple[float, ...] = (
    -0.314,
    77.916,
    8.448,
    -0.265,
    -0.118,
    -0.145,
    0.266,
    0.187,
    0.754,
    0.94,
    0.659,
    0.843,
    -0.785,
    0.512,
    -0.026,
    0.271,
    0.052,
)
"""Points a seat still scores after a cut-off simulation, as a linear function of
:func:`future_features`. Least squares over 141 692 seat positions of 400 four-seat
games of the rollout policy (``python -m engine.ai.workshop_fit --games 400``, R² 0.954)."""


def _elves_ahead(state: WorkshopState, seat: int) -> int:
    """Elves this seat still places in the game (today's and the later days')."""
    if state.phase == Phase.OVER:
        return 0
    return (DAYS - state.day) * ELVES + elves_left(state, seat)


def _inspection_points(cheer: Sequence[int], seat: int) -> int:
    """W-5.2: the points ``seat`` would score at an Inspection with these Cheer values."""
    rank = sorted(set(cheer), reverse=True).index(cheer[seat])
    return INSPECTION_POINTS[rank] if rank < len(INSPECTION_POINTS) else 0


def future_features(state: WorkshopState, seat: int) -> tuple[float, ...]:
    """The inputs of :data:`FUTURE_WEIGHTS` for one seat (``engine.ai.workshop_fit`` fits them).

    (1, e, e², tokens on unfinished toys, tokens still needed and · e, points of
    unfinished toys and · e, their points weighted by progress, reindeer points,
    reindeer cards · e, the Inspection points if it were now, the same · the share
    of the period left before the next Inspection, ornaments when two Inspections
    are left, free tree spaces · e, unfinished toys · e, points of the toys at most
    two tokens from completion), where
    e is the share of the game's Elves this seat still places (1 at the start).
    """
    if state.phase == Phase.OVER:
        return (1.0,) + (0.0,) * 16
    me = state.seats[seat]
    e = _elves_ahead(state, seat) / (DAYS * ELVES)
    placed = needed = 0
    points = progress = near = 0.0
    for toy in me.toys:
        req = REQ[toy[0]]
        done = toy[1] + toy[2] + toy[3] + toy[4]
        total = req[0] + req[1] + req[2] + req[3]
        placed += done
        needed += total - done
        points += TOY_POINTS[toy[0]]
        progress += TOY_POINTS[toy[0]] * done / total
        if total - done <= 2:
            near += TOY_POINTS[toy[0]]
    ornaments = sum(1 for o in me.tree if o >= 0)
    cheer = [len(x.completed) + sum(1 for o in x.tree if o >= 0) for x in state.seats]
    inspection = _inspection_points(cheer, seat)
    # the share of the 3-day period still ahead before the next Inspection
    period = ((3 - (state.day - 1) % 3 - 1) * ELVES + elves_left(state, seat)) / (3 * ELVES)
    two_left = 1.0 if state.day <= INSPECTION_DAYS[0] else 0.0
    return (
        1.0,
        e,
        e * e,
        float(placed),
        float(needed),
        needed * e,
        points,
        points * e,
        progress,
        float(reindeer_points(me.reindeer)),
        len(me.reindeer) * e,
        float(inspection),
        inspection * period,
        ornaments * two_left,
        (6 - ornaments) * e,
        len(me.toys) * e,
        near,
    )


def potential(state: WorkshopState, seat: int) -> float:
    """Points a seat may expect at the end: its score plus the fitted future points."""
    features = future_features(state, seat)
    future = sum(w * x for w, x in zip(FUTURE_WEIGHTS, features, strict=True))
    return state.seats[seat].score + max(0.0, future)


MARGIN_WEIGHT = 0.01
"""Weight of the score margin (clamped to ±20) next to a win (1) in a simulation's value."""


def evaluate(state: WorkshopState, player: str) -> float:
    """A finished game: a win counts 1 (shared: split), plus a small term for the score
    margin. A cut-off simulation (``Budget.horizon``): the same with :func:`potential`
    (score plus expected future points) in place of the score."""
    seat = state.players.index(player)
    if state.phase == Phase.OVER:
        values = [float(s.score) for s in state.seats]
        result = outcome_of(state)
        win = 1 / len(result.winners) if player in result.winners else 0.0
    else:
        values = [potential(state, i) for i in range(len(state.players))]
        best = max(values)
        leaders = [i for i, v in enumerate(values) if v == best]
        win = 1 / len(leaders) if seat in leaders else 0.0
    best_other = max(v for i, v in enumerate(values) if i != seat)
    margin = max(-20.0, min(20.0, values[seat] - best_other))
    return win + MARGIN_WEIGHT * margin


def _finished(state: WorkshopState) -> bool:
    return state.phase == Phase.OVER


AI = GameAI(
    determinize=determinize,
    greedy=_greedy,
    ranked=_ranked,
    evaluate=evaluate,
    finished=_finished,
)
