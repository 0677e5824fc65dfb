"""Games outlive the bot process: restarts, reminders, turn limits, two tables at once."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from engine import get_game
from engine.core import Rng

from .bot_helpers import Clock, make_bot, open_panel, open_table, timer_outcomes, turn_prompts
from .fake_discord import FakeDiscord, FakeMessage


def act_buttons(message: FakeMessage) -> list[str]:
    return [b["custom_id"] for b in message.buttons() if b["custom_id"].startswith("act:")]


async def test_buttons_sent_before_a_restart_work_after_it_and_missed_reminders_fire(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path}/bot.db"
    clock = Clock()
    bot = await fake.start_bot(make_bot(fake, url, clock=clock, seed=3))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    prompt = turn_prompts(fake, thread)[-1]
    acting = alice if str(alice.id) in prompt.content else bob
    panel = (await open_panel(fake, acting, thread)).message
    assert panel is not None
    await fake.stop_bot(bot)

    clock.advance(hours=13)  # the 12-hour reminder falls due while the bot is down
    bot = await fake.start_bot(make_bot(fake, url, clock=clock, seed=3))
    await fake.wait_for(
        lambda: "Reminder" in fake.last_message(thread).content, timeout=5, what="the reminder"
    )
    reminder = fake.last_message(thread)
    assert f"<@{acting.id}>" in reminder.content

    # the ephemeral panel sent before the restart still works
    result = await fake.click(acting, panel, act_buttons(panel)[0])
    assert result.callback_type == 7 and "board has changed" not in result.message.content  # type: ignore[union-attr]
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None and game.version == 1
    # and so does the turn prompt sent before the restart
    again = await fake.click(acting, prompt, "Take your turn")
    assert again.ephemeral and act_buttons(again.message)  # type: ignore[arg-type]
    await fake.stop_bot(bot)


async def test_a_reminder_comes_once_per_interval_while_the_turn_lasts(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path}/bot.db"
    clock = Clock()
    bot = await fake.start_bot(make_bot(fake, url, clock=clock))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob], reminder_hours=2)
    (thread,) = fake.threads(fake.channel)
    timers = bot.get_cog("Timers")

    def reminders() -> list[FakeMessage]:
        return [m for m in fake.messages(thread) if m.content.startswith("Reminder")]

    clock.advance(hours=1)
    assert await timers.run_due() == 0  # type: ignore[union-attr]
    clock.advance(hours=1, minutes=1)
    assert await timers.run_due() == 1  # type: ignore[union-attr]
    assert await timers.run_due() == 0  # type: ignore[union-attr]
    assert len(reminders()) == 1
    # nobody moved: the next one 2 hours after it, and so on (each carries the turn button)
    for count in (2, 3):
        clock.advance(hours=1)
        assert await timers.run_due() == 0  # type: ignore[union-attr]
        clock.advance(hours=1)
        assert await timers.run_due() == 1  # type: ignore[union-attr]
        assert len(reminders()) == count
        assert turn_prompts(fake, thread)[-1].id == reminders()[-1].id
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    assert timer_outcomes(url, game.id) == [("remind", "fired")] * 3 + [("remind", "pending")]


async def test_a_turn_limit_hands_the_turn_to_a_computer_move(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = Clock()
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", clock=clock))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    start = clock.now
    await open_table(fake, alice, [bob], turn_limit_hours=24)
    (thread,) = fake.threads(fake.channel)
    first = turn_prompts(fake, thread)[-1]
    other = bob if str(alice.id) in first.content else alice
    # the prompt says when the limit ends, as a timestamp each reader's Discord counts down
    deadline = f"<t:{int((start + timedelta(hours=24)).timestamp())}:R>"
    assert f"Not played {deadline}? The computer moves." in first.content
    timers = bot.get_cog("Timers")
    clock.advance(hours=13)  # the 12-hour reminder: the limit still runs from the turn's start
    await timers.run_due()  # type: ignore[union-attr]
    reminder = turn_prompts(fake, thread)[-1]
    assert reminder.content.startswith("Reminder") and deadline in reminder.content
    clock.advance(hours=12)
    await timers.run_due()  # type: ignore[union-attr]
    texts = [m.content for m in fake.messages(thread)]
    assert any("the computer moves for them" in t for t in texts)
    assert f"<@{other.id}>: it's your turn" in turn_prompts(fake, thread)[-1].content
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None and game.version >= 2


async def test_an_ended_turns_reminder_and_limit_do_nothing_before_the_next_prompt(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """A turn passed (its move is stored) but the thread has not shown it yet: the next
    turn's prompt, which brings that turn's reminder and limit, is still to come (its
    process stopped in between, or is slow to post). The ended turn's timers fall due
    meanwhile: they neither remind the next player nor play for them."""
    url = f"sqlite:///{tmp_path}/bot.db"
    clock = Clock()
    bot = await fake.start_bot(make_bot(fake, url, clock=clock, seed=3))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob], turn_limit_hours=24)
    (thread,) = fake.threads(fake.channel)
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    rules = get_game(game.kind)
    first = rules.to_act(game.state)
    while rules.to_act(game.state) == first:  # the whole turn, stored and not shown
        (player,) = first
        action = rules.legal_actions(game.state, player)[0]
        await bot.store.submit(game.id, player, action, game.version)
        game = await bot.store.load(game.id)
    (other,) = rules.to_act(game.state)
    posts = len(fake.messages(thread))
    clock.advance(hours=25)  # the first turn's reminder and limit are due
    timers = bot.get_cog("Timers")
    assert await timers.run_due() == 0  # type: ignore[union-attr]
    assert len(fake.messages(thread)) == posts  # no reminder, no "did not move"
    assert (await bot.store.load(game.id)).version == game.version  # nobody moved for them
    assert timer_outcomes(url, game.id) == [("remind", "cancelled"), ("turn_limit", "cancelled")]

    await bot.publisher.sync(game.id)  # the thread catches up: the next turn's prompt
    assert f"<@{other}>: it's your turn" in turn_prompts(fake, thread)[-1].content
    assert [kind for kind, outcome in timer_outcomes(url, game.id) if outcome == "pending"] == [
        "remind",
        "turn_limit",
    ]
    clock.advance(hours=13)  # and those are the next turn's: its reminder reminds
    assert await timers.run_due() == 1  # type: ignore[union-attr]
    assert fake.last_message(thread).content.startswith(f"Reminder: <@{other}>, it's your turn")


async def test_two_games_in_two_channels_interleaved(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=5))
    second_channel = fake.add_channel("workshop-2")
    alice, bob, carol, dave = (fake.add_user(n) for n in ("alice", "bob", "carol", "dave"))
    await open_table(fake, alice, [bob])
    result = await fake.slash(carol, second_channel, "newgame", game="workshop")
    assert result.message is not None
    await fake.click(dave, result.message, "Join")
    await fake.click(carol, result.message, "Start")
    threads = [fake.threads(fake.channel)[0], fake.threads(second_channel)[0]]
    tables = [{str(alice.id): alice, str(bob.id): bob}, {str(carol.id): carol, str(dave.id): dave}]
    rng = Rng(4)
    for _ in range(12):  # alternate between the tables, one decision each
        for thread, seated in zip(threads, tables, strict=True):
            prompt = turn_prompts(fake, thread)[-1]
            (player,) = [p for p in seated if f"<@{p}>" in prompt.content.splitlines()[-1]]
            panel = (await open_panel(fake, seated[player], thread)).message
            assert panel is not None
            choices = act_buttons(panel)
            while choices:  # the whole turn
                panel = (
                    await fake.click(seated[player], panel, choices[rng.below(len(choices))])
                ).message
                assert panel is not None
                choices = act_buttons(panel)
    games = [
        await bot.store.find_open(fake.channel.id),
        await bot.store.find_open(second_channel.id),
    ]
    assert all(g is not None and g.version >= 12 for g in games)
    assert games[0].id != games[1].id  # type: ignore[union-attr]
    assert {s.player for s in games[1].seats} == set(tables[1])  # type: ignore[union-attr]


async def test_a_new_bot_process_continues_the_game_and_ctrl_c_stops_it_cleanly(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    env = {"DATABASE_URL": f"sqlite:///{tmp_path}/bot.db", "DISCORD_GUILD_ID": ""}
    first = await fake.start_bot_process("bot.py", env=env)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    prompt = turn_prompts(fake, thread)[-1]
    acting = alice if str(alice.id) in prompt.content else bob
    panel = (await open_panel(fake, acting, thread)).message
    assert panel is not None
    assert await fake.stop_bot_process(first) == 0  # Ctrl-C: a clean exit

    second = await fake.start_bot_process("bot.py", env=env)
    result = await fake.click(acting, panel, act_buttons(panel)[0])  # sent by the first process
    assert result.callback_type == 7
    assert act_buttons(result.message) or "Waiting" in result.message.content  # type: ignore[union-attr]
    board = next(m for m in fake.messages(thread) if m.embeds and "Move" in m.text())
    # the board is redrawn after the answer, then edited in place by the new process
    await fake.wait_for(lambda: "Move 1" in board.text(), timeout=10, what="the board edit")
    assert await fake.stop_bot_process(second) == 0
