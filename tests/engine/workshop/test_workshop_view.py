"""W-7 hidden information: what a view and the public log may show."""

from __future__ import annotations

from workshop_positions import PLAYERS, reindeer_card, start, with_seat

from engine.core import Rng, derive_seed
from engine.records import pick_random
from engine.workshop import GAME
from engine.workshop.data import COMPONENTS as C
from engine.workshop.models import WorkshopState, WorkshopView

NAMES = {p: p.capitalize() for p in PLAYERS}


def disguise(state: WorkshopState, viewer: str | None, rng: Rng) -> WorkshopState:
    """The same position with every secret from ``viewer`` changed (W-7.2, W-7.3):
    the toy deck order, the face-down ornament rewards, other players' reindeer."""
    pool = list(state.reindeer_deck)
    seats = list(state.seats)
    for player, seat in zip(state.players, state.seats, strict=True):
        if player != viewer:
            pool += seat.reindeer
    pool = list(rng.shuffled(pool))
    for i, (player, seat) in enumerate(zip(state.players, state.seats, strict=True)):
        if player != viewer:
            seats[i] = seat.model_copy(update={"reindeer": tuple(pool[: len(seat.reindeer)])})
            del pool[: len(seat.reindeer)]
    ornaments = tuple(tuple(rng.shuffled(range(5))[: len(o)]) for o in state.ornaments)
    return state.model_copy(
        update={
            "deck": rng.shuffled(state.deck),
            "reindeer_deck": tuple(pool),
            "seats": tuple(seats),
            "ornaments": ornaments,
        }
    )


def test_views_do_not_depend_on_secrets() -> None:
    """A view for X is identical whatever X must not know: deck order, face-down
    ornament rewards, other players' reindeer names. Checked along random games."""
    checked = 0
    for index in range(6):
        seed = derive_seed(99, index)
        state = GAME.new_game(PLAYERS[:4], seed, GAME.parse_options({}))
        rng = Rng(seed)
        step = 0
        while GAME.outcome(state) is None:
            player, action = pick_random(GAME, state, rng)
            state, _ = GAME.apply(state, player, action)
            step += 1
            if step % 7:
                continue
            for viewer in (*state.players, None):
                other = disguise(state, viewer, rng)
                assert GAME.view(other, viewer) == GAME.view(state, viewer)
                checked += 1
    assert checked > 100


def test_own_reindeer_names_only_in_own_view() -> None:
    state = start(players=3)
    velvet = reindeer_card("Velvet")
    deck = tuple(c for c in state.reindeer_deck if c // 2 != velvet // 2)
    stalls = tuple(c for c in range(18) if c // 2 != velvet // 2 and c not in deck)[:3]
    state = state.model_copy(update={"reindeer_deck": deck, "stalls": stalls})
    state = with_seat(state, 1, reindeer=(velvet, velvet + 1))
    for viewer in ("ann", "cat", None):
        view = GAME.view(state, viewer)
        assert "Velvet" not in view.model_dump_json()
        assert view.players[1].reindeer is None and view.players[1].reindeer_count == 2
        assert "Velvet" not in GAME.render_text(view, NAMES)
    own = GAME.view(state, "bob")
    assert own.players[1].reindeer == ["Velvet", "Velvet"]
    assert "Velvet" in GAME.render_text(own, NAMES)


def test_view_never_holds_the_deck_order_or_face_down_rewards() -> None:
    state = start(players=2)
    view = GAME.view(state, "ann")
    text = view.model_dump_json()
    for card in state.deck:
        assert C.toy_names[card] not in text
    assert view.deck_size == len(state.deck)
    assert view.ornaments_left == dict.fromkeys(C.colours, 5)
    assert all(o.ornament is None for p in view.players for o in p.tree)
    visible = {C.toy_names[c] for c in state.mail}
    assert visible <= {t.name for t in view.mail_slots if t}


def test_public_log_never_names_a_reindeer() -> None:
    seen_reindeer_events = 0
    for index in range(20):
        seed = derive_seed(7, index)
        state = GAME.new_game(PLAYERS[:3], seed, GAME.parse_options({}))
        rng = Rng(seed)
        while GAME.outcome(state) is None:
            player, action = pick_random(GAME, state, rng)
            state, events = GAME.apply(state, player, action)
            for event in events:
                text = GAME.describe_event(event, NAMES) + event.model_dump_json()
                assert not any(name in text for name in C.reindeer_names), text
                seen_reindeer_events += event.kind == "reindeer_taken"
    assert seen_reindeer_events > 20


def test_view_model_is_complete_for_the_bot() -> None:
    state = start(players=3, first=1)
    view = GAME.view(state, "bob")
    assert (view.day, view.date, view.first_player, view.current_player) == (
        1,
        "December 19",
        "bob",
        "bob",
    )
    assert view.pending.player == "bob" and view.pending.decision == "station"
    assert [s.station for s in view.stations][:4] == ["wood", "metal", "fabric", "assembly"]
    assert [s.capacity for s in view.stations] == [4, 4, 4, 4, None, 1, 1, 3, 1, 1]
    assert len(view.mail_slots) == 6 and all(view.mail_slots)
    assert view.supply == dict.fromkeys(("wood", "metal", "fabric", "assembly"), 24)
    assert [p.elves_left for p in view.players] == [3, 3, 3]
    assert all(len(p.unfinished) == 2 and len(p.tree) == 6 for p in view.players)
    text = GAME.render_text(view, NAMES)
    assert "December 19" in text and "Bob" in text and "Wood Shop" in text
    assert GAME.view(state, None).viewer is None


def test_a_view_built_without_validation_is_the_validated_view() -> None:
    """``build_view`` skips pydantic's validation (it is on the bot's every answer):
    every value it makes must already be of its field's type, so validating the view's
    dump gives an equal view, with lists where the model says list (not tuples)."""
    checked = 0
    for index in range(8):
        seed = derive_seed(7, index)
        state = GAME.new_game(PLAYERS[: 2 + index % 4], seed, GAME.parse_options({}))
        rng = Rng(seed)
        while True:
            for viewer in (*state.players, None):
                view = GAME.view(state, viewer)
                again = WorkshopView.model_validate(view.model_dump())
                assert again == view
                assert again.model_dump_json() == view.model_dump_json()
                checked += 1
            if GAME.outcome(state) is not None:
                break
            player, action = pick_random(GAME, state, rng)
            state, _ = GAME.apply(state, player, action)
    assert checked > 1000
