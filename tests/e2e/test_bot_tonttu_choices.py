"""Workshop Tonttu's secret choices on Discord: changing a pick, refusals that change
nothing, reminders and the phase limit, a restart in the middle of a pick phase, and
T-3.1's face-down or face-up choice in the point select."""

from __future__ import annotations

from pathlib import Path

from bot import WorkshopBot
from cogs.tonttu.text import decode
from engine.tonttu import GAME
from engine.tonttu.data import MATERIAL_NAMES, MATERIAL_TYPE
from engine.tonttu.models import Pick, PointGift, PointMaterial
from engine.tonttu.text import HINT

from .bot_helpers import Clock, ask_reminder_only, make_bot, timer_outcomes
from .fake_discord import FakeDiscord, FakeUser
from .tonttu_helpers import (
    FACE_DOWN_SHOWN,
    choice_select,
    choose_by_dm,
    choose_privately,
    dm_panel,
    open_tonttu,
    select_in,
    status_message,
)

SEED = 77


async def table(
    fake: FakeDiscord, bot: WorkshopBot, **options: object
) -> tuple[list[FakeUser], object, object]:
    users = [fake.add_user(name) for name in ("alice", "bob", "carol")]
    thread = await open_tonttu(fake, users[0], users[1:], **options)
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    return users, thread, game


async def stored(bot: WorkshopBot, fake: FakeDiscord) -> object:
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    return game


async def test_a_changed_pick_replaces_the_first_and_refused_picks_change_nothing(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    (alice, bob, carol), thread, game = await table(fake, bot)
    eve = fake.add_user("eve")  # not playing
    state = game.state  # type: ignore[attr-defined]
    a, b, c = (str(u.id) for u in (alice, bob, carol))

    # /me: your hand and your face-down card; /board: neither (T-6)
    mine = GAME.view(state, a)
    me = await fake.slash(alice, thread, "me")
    assert me.ephemeral and f"Your hand: {', '.join(mine.hand)}" in me.text
    assert f"[{mine.seats[0].face_down}]" in me.text
    board = await fake.slash(eve, thread, "board", text=True)
    assert "1 face down" in board.text and not FACE_DOWN_SHOWN.search(board.text)
    assert "Your hand" not in board.text

    # T-2.1: alice picks, then changes her pick before the reveal
    first, second = GAME.legal_actions(state, a)[:2]
    await choose_by_dm(fake, alice, state, first)
    # changed privately: her DM keeps its round-1 select (the next phase goes to the
    # panel she used last)
    changed = await choose_privately(fake, alice, thread, state, second)
    assert f"You picked {second.material}. You can change it" in changed.content
    state, _ = GAME.apply(GAME.apply(state, a, first)[0], a, second)
    assert (await stored(bot, fake)).state == state  # type: ignore[attr-defined]
    assert "Chosen: alice" in status_message(fake, thread).content
    version = (await stored(bot, fake)).version  # type: ignore[attr-defined]

    # a non-player: no panel, no pick
    refused = await fake.click(eve, status_message(fake, thread), "Choose privately")
    assert refused.ephemeral and "not playing in this game" in refused.content
    refused = await fake.slash(eve, thread, "play", choice="p:Wood")
    assert refused.ephemeral and "not playing in this game" in refused.content
    # a card not in hand (typed into /play)
    missing = next(m for m in MATERIAL_NAMES if m not in GAME.view(state, b).hand)
    refused = await fake.slash(bob, thread, "play", choice=f"p:{missing}")
    assert refused.ephemeral and f"You have no {missing} in your hand." in refused.content
    refused = await fake.slash(bob, thread, "play", choice="p:Diamonds")
    assert refused.ephemeral and "not one of the choices" in refused.content
    assert (await stored(bot, fake)).version == version  # type: ignore[attr-defined]

    # bob picks by /play (autocomplete offers his hand), carol by DM: the reveal
    offered = await fake.autocomplete(bob, thread, "play", focused="choice", choice="")
    assert {o["value"] for o in offered} == {
        f"p:{p.material}" for p in GAME.legal_actions(state, b)
    }
    bob_pick = GAME.legal_actions(state, b)[0]
    await fake.slash(bob, thread, "play", choice=f"p:{bob_pick.material}")
    state, _ = GAME.apply(state, b, bob_pick)
    carol_pick = GAME.legal_actions(state, c)[-1]
    done = await choose_by_dm(fake, carol, state, carol_pick)
    # carol's panel then shows the point phase (edited through her interaction)
    assert "Everyone has chosen" in done.content and "round 1 · point" in done.content
    assert choice_select(done.message, 1, "point") is not None  # type: ignore[arg-type]
    state, _ = GAME.apply(state, c, carol_pick)
    reveal = next(m for m in fake.messages(thread) if "Round 1 picks:" in m.content)
    assert f"alice {second.material}" in reveal.content  # the changed pick counted
    version = (await stored(bot, fake)).version  # type: ignore[attr-defined]

    # a pick after the reveal, from alice's old DM select: refused, the panel moves on
    old = next(m for m in fake.dm_messages(alice) if m.selects() and "round 1 · pick" in m.content)
    late = await select_in(
        fake, alice, old, GAME.new_game([a, b, c], SEED, GAME.parse_options({})), first
    )
    assert "have already been revealed" in late.content
    assert all(s["custom_id"].endswith(":1:point") for s in late.message.selects())  # type: ignore[union-attr]
    assert (await stored(bot, fake)).version == version  # type: ignore[attr-defined]
    assert (await stored(bot, fake)).state == state  # type: ignore[attr-defined]


async def test_reminders_and_the_phase_limit_reach_only_those_who_have_not_chosen(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = Clock()
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", clock=clock))
    (alice, bob, carol), thread, game = await table(
        fake, bot, reminder_hours=2, turn_limit_hours=24
    )
    state = game.state  # type: ignore[attr-defined]
    # when the phase limit ends: a timestamp each reader's Discord counts down
    limit = f"Not chosen <t:{int(clock.now.timestamp()) + 24 * 3600}:R>? The computer chooses"
    assert limit in status_message(fake, thread).content
    await choose_by_dm(fake, alice, state, GAME.legal_actions(state, str(alice.id))[0])
    timers = bot.get_cog("Timers")
    clock.advance(hours=2, minutes=1)
    assert await timers.run_due() == 1  # type: ignore[attr-defined]
    reminder = fake.last_message(thread)
    assert reminder.content.startswith("Reminder") and limit in reminder.content
    assert f"<@{bob.id}>" in reminder.content and f"<@{carol.id}>" in reminder.content
    assert f"<@{alice.id}>" not in reminder.content
    # the reminder's button opens the choice privately
    opened = await fake.click(carol, reminder, "Choose privately")
    assert opened.ephemeral and opened.message is not None and opened.message.selects()

    # every 2 hours again, to those who still have not chosen
    clock.advance(hours=2)
    assert await timers.run_due() == 1  # type: ignore[attr-defined]
    again = fake.last_message(thread)
    assert again.content.startswith("Reminder") and again.id != reminder.id
    assert f"<@{bob.id}>" in again.content and f"<@{carol.id}>" in again.content
    await choose_by_dm(fake, bob, state, GAME.legal_actions(state, str(bob.id))[0])
    clock.advance(hours=2)
    assert await timers.run_due() == 1  # type: ignore[attr-defined]
    third = fake.last_message(thread)
    assert third.content.startswith("Reminder") and f"<@{carol.id}>" in third.content
    assert f"<@{bob.id}>" not in third.content and f"<@{alice.id}>" not in third.content

    clock.advance(hours=18)  # the phase limit: the computer picks for carol
    await timers.run_due()  # type: ignore[attr-defined]
    texts = [m.content for m in fake.messages(thread)]
    assert any("carol did not move within 24 hours" in t for t in texts)
    assert any("Round 1 picks:" in t for t in texts)
    after = await stored(bot, fake)
    assert after.state.phase == "point"  # type: ignore[attr-defined]
    # the point phase went out by DM to everyone
    for user in (alice, bob, carol):
        assert dm_panel(fake, user, 1, "point") is not None


async def test_an_ended_phases_reminder_and_limit_do_nothing_before_the_next_phase(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Every pick is stored, but the next phase's message (which brings that phase's
    reminder and limit) is still to come: its process stopped in between, or is slow
    to post. The pick phase's timers fall due meanwhile: they neither remind anyone of
    the point phase nor choose for them."""
    url = f"sqlite:///{tmp_path}/bot.db"
    clock = Clock()
    bot = await fake.start_bot(make_bot(fake, url, clock=clock, seed=SEED))
    _, thread, game = await table(fake, bot, reminder_hours=2, turn_limit_hours=24)
    state = game.state  # type: ignore[attr-defined]
    for player in sorted(GAME.to_act(state)):
        await bot.store.submit(game.id, player, GAME.legal_actions(state, player)[0], None)  # type: ignore[attr-defined]
    version = (await stored(bot, fake)).version  # type: ignore[attr-defined]
    posts = len(fake.messages(thread))
    clock.advance(hours=25)
    timers = bot.get_cog("Timers")
    assert await timers.run_due() == 0  # type: ignore[attr-defined]
    assert len(fake.messages(thread)) == posts
    assert (await stored(bot, fake)).version == version  # type: ignore[attr-defined]
    assert timer_outcomes(url, game.id) == [  # type: ignore[attr-defined]
        ("remind", "cancelled"),
        ("turn_limit", "cancelled"),
    ]

    await bot.publisher.sync(game.id)  # type: ignore[attr-defined]  # the reveal, the point phase
    assert "Round 1 picks:" in status_message(fake, thread).content
    clock.advance(hours=2, minutes=1)  # the point phase's own reminder
    assert await timers.run_due() == 1  # type: ignore[attr-defined]
    assert "round 1's point is waiting" in fake.last_message(thread).content


async def test_a_reminder_asked_for_is_posted_while_its_phase_lasts(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """A reminder's timer recorded that it is due (the ask), and its process
    stopped before posting it; bob chose meanwhile. The next sync posts the reminder,
    to carol alone (it is still her phase). A reminder asked for in a phase that ended
    before its post (carol chose last, as a phase limit may for her) is never posted."""
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    (alice, bob, carol), thread, game = await table(fake, bot, reminder_hours=2)
    state = game.state  # type: ignore[attr-defined]
    await choose_by_dm(fake, alice, state, GAME.legal_actions(state, str(alice.id))[0])
    game = await stored(bot, fake)
    await ask_reminder_only(bot.store, game.id)  # type: ignore[attr-defined]
    action = GAME.legal_actions(state, str(bob.id))[0]
    await bot.store.submit(game.id, str(bob.id), action, game.version)  # type: ignore[attr-defined]

    await bot.publisher.sync(game.id)  # type: ignore[attr-defined]
    (reminder,) = [m for m in fake.messages(thread) if m.content.startswith("Reminder")]
    assert f"<@{carol.id}>" in reminder.content
    assert f"<@{alice.id}>" not in reminder.content and f"<@{bob.id}>" not in reminder.content

    game = await stored(bot, fake)
    await ask_reminder_only(bot.store, game.id)  # type: ignore[attr-defined]
    action = GAME.legal_actions(state, str(carol.id))[0]
    await bot.store.submit(game.id, str(carol.id), action, game.version)  # type: ignore[attr-defined]
    await bot.publisher.sync(game.id)  # type: ignore[attr-defined]
    assert "Round 1 picks:" in status_message(fake, thread).content
    assert [m for m in fake.messages(thread) if m.content.startswith("Reminder")] == [reminder]


async def test_a_restart_during_a_pick_phase_keeps_choices_and_old_dm_selects_work(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path}/bot.db"
    bot = await fake.start_bot(make_bot(fake, url, seed=SEED))
    (alice, bob, carol), thread, game = await table(fake, bot)
    state = game.state  # type: ignore[attr-defined]
    players = [str(u.id) for u in (alice, bob, carol)]
    alice_pick = GAME.legal_actions(state, players[0])[0]
    await choose_by_dm(fake, alice, state, alice_pick)
    state, _ = GAME.apply(state, players[0], alice_pick)
    await fake.stop_bot(bot)

    bot = await fake.start_bot(make_bot(fake, url, seed=SEED))
    for user, player in ((bob, players[1]), (carol, players[2])):
        action = GAME.legal_actions(state, player)[0]
        result = await choose_by_dm(fake, user, state, action)  # DMs sent before the restart
        assert result.callback_type == 7 and f"You picked {action.material}" in result.content
        state, _ = GAME.apply(state, player, action)
    reveal = next(m for m in fake.messages(thread) if "Round 1 picks:" in m.content)
    assert f"alice {alice_pick.material}" in reveal.content  # kept across the restart
    assert (await stored(bot, fake)).state == state  # type: ignore[attr-defined]


def seed_where_alice_pays_with_her_face_down_card(
    players: list[str],
) -> tuple[int, Pick, int]:
    """A seed, alice's round-1 pick and a gift she can pay in round 1 only with her
    face-down card (bob and carol point at materials 1 and 2): after that round her
    workbench has no face-down card, so T-3.1's choice matters for her in round 2."""
    a, b, c = players
    for seed in range(1, 500):
        start = GAME.new_game(players, seed, GAME.parse_options({}))
        for pick in GAME.legal_actions(start, a):
            state = start
            for player, action in ((a, pick), (b, None), (c, None)):
                state, _ = GAME.apply(state, player, action or GAME.legal_actions(state, player)[0])
            for gift in state.middle_gifts:
                assert gift is not None
                after = state
                for player, action in (
                    (a, PointGift(gift=gift)),
                    (b, PointMaterial(slot=0)),
                    (c, PointMaterial(slot=1)),
                ):
                    after, _ = GAME.apply(after, player, action)
                if after.won[0] and after.face_down[0] is None:
                    return seed, pick, gift
    raise AssertionError("no such seed")


async def test_t3_1_the_point_select_offers_face_down_and_face_up_when_it_matters(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """T-3.1: a player with no face-down card chooses, in the DM select, whether a
    material they alone point at goes face down (the default, the value ``m:N`` the
    selects have always carried) or face up (``mu:N``); a player with a face-down card
    gets one entry per material, saying it goes face up."""
    users = [fake.add_user(name) for name in ("alice", "bob", "carol")]
    players = [str(u.id) for u in users]
    seed, alice_pick, gift = seed_where_alice_pays_with_her_face_down_card(players)
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=seed))
    alice, bob, carol = users
    await open_tonttu(fake, alice, [bob, carol])
    a, b, c = players

    async def choose(user: FakeUser, action: object) -> None:
        state = (await stored(bot, fake)).state  # type: ignore[attr-defined]
        player = str(user.id)
        await choose_by_dm(fake, user, state, action or GAME.legal_actions(state, player)[0])

    # round 1: alice pays a gift with her face-down card
    for user, action in ((alice, alice_pick), (bob, None), (carol, None)):
        await choose(user, action)
    for user, action in (
        (alice, PointGift(gift=gift)),
        (bob, PointMaterial(slot=0)),
        (carol, PointMaterial(slot=1)),
    ):
        await choose(user, action)
    for user in users:  # round 2's picks
        await choose(user, None)
    state = (await stored(bot, fake)).state  # type: ignore[attr-defined]
    assert (state.round, state.phase, state.face_down[0]) == (2, "point", None)
    assert state.face_down[1] is not None

    def material_options(user: FakeUser) -> list[tuple[str, str]]:
        panel = dm_panel(fake, user, 2, "point")
        assert panel is not None
        select = choice_select(panel, 2, "point")
        assert select is not None
        return [(o["label"], o["value"]) for o in select["options"] if "material" in o["label"]]

    slots = [k for k, m in enumerate(state.middle_materials) if m is not None]
    assert material_options(alice) == [
        option
        for k in slots
        for option in (
            (f"Point at face-down material {k + 1}: keep it face down", f"m:{k}"),
            (f"Point at face-down material {k + 1}: take it face up", f"mu:{k}"),
        )
    ]
    assert material_options(bob) == [
        (
            f"Point at face-down material {k + 1}: it goes face up"
            " (you already have a face-down card)",
            f"m:{k}",
        )
        for k in slots
    ]
    assert decode(f"m:{slots[0]}") == PointMaterial(slot=slots[0], face_down=True)  # old values
    # a gift's option says what pointing at it would do for alice now
    panel = dm_panel(fake, alice, 2, "point")
    select = choice_select(panel, 2, "point")  # type: ignore[arg-type]
    gifts = [o for o in select["options"] if o["value"].startswith("g:")]  # type: ignore[index]
    assert gifts
    names = (await stored(bot, fake)).names  # type: ignore[attr-defined]
    for option in gifts:
        label = GAME.describe_action(state, a, decode(option["value"]), names)
        head, _, note = label.partition(HINT)
        assert note.startswith(("missing ", "you can pay"))
        assert (option["label"], option["description"]) == (head, note)

    # alice takes material 1 face up; bob and carol point at gifts
    card = state.middle_materials[slots[0]]
    up = PointMaterial(slot=slots[0], face_down=False)
    done = await choose_by_dm(fake, alice, state, up)
    assert f"You pointed at face-down material {slots[0] + 1}: take it face up." in done.content
    expected, _ = GAME.apply(state, a, up)
    for user, player in ((bob, b), (carol, c)):
        action = next(x for x in GAME.legal_actions(expected, player) if x.kind == "point_gift")
        await choose(user, action)
        expected, _ = GAME.apply(expected, player, action)
    assert (await stored(bot, fake)).state == expected  # type: ignore[attr-defined]
    assert card in expected.face_up[0] and expected.face_down[0] is None
    thread = fake.threads(fake.channel)[-1]
    reveal = next(m for m in fake.messages(thread) if "Round 2 points:" in m.content)
    name = MATERIAL_NAMES[MATERIAL_TYPE[card]]
    assert f"pointed at by alice: alice took it face up: {name}." in reveal.content
