"""The bot keeps within Discord's limits whatever its users send: the REST budget paces
its rate-limited calls (and keeps half of itself for what players wait for), and the
flood guard stops one user from spending them."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
import yarl

import storage
from bot import Settings, WorkshopBot
from cogs.helpers import thread as publishing
from cogs.helpers.gates import SLOW_DOWN, budgeted
from engine import get_game

from .bot_helpers import BoardPictures, Clock, open_panel, open_table, rode_on, turn_prompts
from .fake_discord import FakeDiscord, FakeMessage, FakeUser, is_rate_limited
from .tonttu_helpers import choose_by_dm, open_tonttu, status_message

FLOOD = 40
"""Clicks the flooding script sends at once."""
NORMAL_MOVES = 6
"""Decisions the table next door makes meanwhile. Its two players click at most 9 times
each: a lobby click or two, then a turn button per turn and a click per decision (a turn
takes one decision at least, so one player has at most one turn more than the other:
at most 7). That is within the burst of 10 with no refill at all, so the test does not
depend on how fast the machine clicks through."""
FLOOD_BURST = 10
"""The default burst (``Settings.flood_burst``), which the flood test turns on."""


def act_buttons(message: FakeMessage | None) -> list[str]:
    if message is None:
        return []
    return [b["custom_id"] for b in message.buttons() if b["custom_id"].startswith("act:")]


def bot_with(fake: FakeDiscord, tmp_path: Path, **settings: float) -> WorkshopBot:
    """The bot with ``settings``; the flood guard is off unless a test turns it on (its
    users are scripts, faster than any person)."""
    url = f"sqlite:///{tmp_path}/bot.db"
    settings = {"flood_burst": 0, **settings}
    return WorkshopBot(
        Settings(token=fake.token, database_url=url, timer_poll_seconds=3600, **settings),  # type: ignore[arg-type]
        clock=Clock(),
    )


def most_in_a_window(times: list[float], window: float) -> int:
    times = sorted(times)
    return max(
        (sum(1 for t in times[i:] if t < start + window) for i, start in enumerate(times)),
        default=0,
    )


async def test_a_flood_of_posts_is_paced_to_the_rest_budget(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await fake.start_bot(bot_with(fake, tmp_path, rest_budget_per_second=10))
    first = len(fake.requests)
    channel = bot.get_partial_messageable(fake.channel.id)
    alice = fake.add_user("alice")
    flood = asyncio.gather(*(channel.send(f"post {n}") for n in range(40)))
    answer = await fake.slash(alice, fake.channel, "rules")  # an exempt callback meanwhile
    await flood
    await fake.settle()
    assert answer.callback_type == 4 and answer.ephemeral
    posts = [
        r.at
        for r in fake.requests[first:]
        if r.method == "POST" and r.path == f"/channels/{fake.channel.id}/messages"
    ]
    assert len(posts) == 40
    # Never more than 10 in any second as they arrive, which is what Discord counts.
    assert most_in_a_window(posts, 1.0) <= 10
    assert bot.budget.waited > 0
    # The budget counted exactly the calls Discord would count: not the callback.
    counted = [
        r
        for r in fake.requests
        if budgeted(yarl.URL(fake.api_base + r.path), fake.api_base, bot.application_id)
    ]
    assert len(counted) == bot.budget.sent
    assert any(r.path.startswith("/interactions/") for r in fake.requests[first:])
    await fake.stop_bot(bot)


async def test_a_flooding_user_is_told_to_slow_down_and_the_table_next_door_plays_on(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await fake.start_bot(bot_with(fake, tmp_path, flood_burst=FLOOD_BURST))
    bot.door.flood.clock = lambda: 0.0  # no refill: the test is the same on any machine
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob])
    flooded = fake.threads(fake.channel)[0]
    prompt = turn_prompts(fake, flooded)[-1]
    flooder = alice if str(alice.id) in prompt.content else bob
    panel = (await open_panel(fake, flooder, flooded)).message
    assert panel is not None
    target = act_buttons(panel)[0]

    next_door = fake.add_channel("next-door")
    carol, dave = fake.add_user("carol"), fake.add_user("dave")
    lobby = (await fake.slash(carol, next_door, "newgame", game="workshop")).message
    assert lobby is not None
    await fake.click(dave, lobby, "Join")
    await fake.click(carol, lobby, "Start")
    thread = fake.threads(next_door)[0]
    seated = {str(carol.id): carol, str(dave.id): dave}
    store = bot.store
    flooded_game = await store.find_open(fake.channel.id)
    normal_game = await store.find_open(next_door.id)
    assert flooded_game is not None and normal_game is not None
    first = len(fake.requests)

    async def play_next_door() -> list[str]:
        answers = []
        moves = 0
        while moves < NORMAL_MOVES:
            prompt = turn_prompts(fake, thread)[-1]
            (player,) = [p for p in seated if f"<@{p}>" in prompt.content.splitlines()[-1]]
            result = await fake.click(seated[player], prompt, "Take your turn")
            answers.append(result.text)
            if result.text == SLOW_DOWN:  # refused: the assertion below says so
                break
            panel = result.message
            while act_buttons(panel) and moves < NORMAL_MOVES:
                result = await fake.click(seated[player], panel, act_buttons(panel)[0])  # type: ignore[arg-type]
                answers.append(result.text)
                panel, moves = result.message, moves + 1
            await fake.settle()  # the next prompt is posted
        return answers

    fake.settle_after_interaction = False
    flood = asyncio.gather(*(fake.forge_click(flooder, panel, target) for _ in range(FLOOD)))
    normal_answers, flood_results = await asyncio.gather(play_next_door(), flood)
    await fake.settle()

    slowed = [r for r in flood_results if r.text == SLOW_DOWN]
    assert len(slowed) >= FLOOD - FLOOD_BURST
    for result in slowed:  # an ephemeral sentence, and nothing else for that click
        assert result.callback_type == 4 and result.ephemeral and not result.followups
    flooded_after = await store.load(flooded_game.id)
    assert flooded_after.version - flooded_game.version <= FLOOD - len(slowed)
    # The flood's public posts stay few: one move at most got through (the rest were
    # stale clicks, answered privately), so at most one move's posts.
    flooded_posts = [
        r
        for r in fake.requests[first:]
        if r.method in ("POST", "PATCH") and r.path.startswith(f"/channels/{flooded.id}/")
    ]
    assert len(flooded_posts) <= 3 * (flooded_after.version - flooded_game.version)
    # The table next door: every click answered, every move stored and on its board.
    assert not any(SLOW_DOWN in text for text in normal_answers)
    normal_after = await store.load(normal_game.id)
    assert normal_after.version == normal_game.version + NORMAL_MOVES
    board = next(m for m in fake.messages(thread) if m.embeds and "Move" in m.text())
    # a board one decision behind is brought up to date a few seconds later
    await fake.wait_for(
        lambda: f"Move {normal_after.version}" in board.text(), timeout=10, what="the board"
    )
    await fake.stop_bot(bot)


async def test_with_the_budget_half_taken_tidy_ups_wait_a_little_and_reveals_do_not(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workshop Tonttu's "who has chosen" line and board picture give way to the reveal
    while most of the REST budget is taken, for at most ``TIDY_LATE`` seconds."""
    bot = await fake.start_bot(bot_with(fake, tmp_path, rest_budget_per_second=10))
    # the extension's own module, as this bot loaded it (a fresh one per bot)
    monkeypatch.setattr(sys.modules["cogs.tonttu.thread"], "TIDY_LATE", 2.0)
    alice, bob, carol = (fake.add_user(name) for name in ("alice", "bob", "carol"))
    thread = await open_tonttu(fake, alice, [bob, carol])
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    rules, state = get_game("tonttu"), game.state
    await fake.wait_for(lambda: bot.budget.free == 10, what="the budget free again")
    for _ in range(7):  # 3 slots of 10 left: none to spare for tidy-ups
        await bot.budget.acquire()

    await choose_by_dm(fake, alice, state, rules.legal_actions(state, str(alice.id))[0])
    await asyncio.sleep(1.0)  # an edit at once, or one STATUS_GAP later, would be here
    assert "Chosen: nobody yet" in status_message(fake, thread).content
    # held back long enough: it takes a free slot after all
    await fake.wait_for(
        lambda: "Chosen: alice" in status_message(fake, thread).content, timeout=6, what="status"
    )

    board = next(m for m in fake.messages(thread) if m.embeds and "Move" in m.text())
    before = board.text()
    for user in (bob, carol):
        await choose_by_dm(fake, user, state, rules.legal_actions(state, str(user.id))[0])
    await fake.wait_for(  # the reveal waits for no tidy-up
        lambda: any("Round 1 picks:" in m.content for m in fake.messages(thread)),
        timeout=3.0,
        what="the reveal",
    )
    assert board.text() == before  # the board picture waits...
    version = (await bot.store.load(game.id)).version
    await fake.wait_for(
        lambda: f"Move {version}" in board.text(), timeout=6, what="the board, a little later"
    )
    for _ in range(7):
        bot.budget.release()


async def test_a_reveal_does_not_wait_for_the_board_picture_of_the_choices_before_it(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workshop Tonttu: a choice's board edit comes ``BOARD_DELAY`` later, its picture
    drawn then. The phase's last choice, coming while that picture is still drawn (the
    drawing worker busy with other tables), is revealed at once: the older round leaves
    the board to the reveal's, which draws it anew. Seen in ``bot_latency``: 20 tables'
    reveals waited up to 0.5 s behind 20 such pictures."""
    bot = await fake.start_bot(bot_with(fake, tmp_path))
    alice, bob, carol = (fake.add_user(name) for name in ("alice", "bob", "carol"))
    thread = await open_tonttu(fake, alice, [bob, carol])
    fake.settle_after_interaction = False  # the bot is not idle while a picture waits
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    rules, state = get_game("tonttu"), game.state
    pictures = BoardPictures(monkeypatch, bot)
    pictures.gate.clear()

    await choose_by_dm(fake, alice, state, rules.legal_actions(state, str(alice.id))[0])
    await fake.wait_for(lambda: pictures.languages, timeout=5, what="the board picture asked")
    for user in (bob, carol):
        await choose_by_dm(fake, user, state, rules.legal_actions(state, str(user.id))[0])
    await fake.wait_for(
        lambda: any("Round 1 picks:" in m.content for m in fake.messages(thread)),
        timeout=3.0,
        what="the reveal, with the first picture still drawn",
    )
    pictures.gate.set()
    version = (await bot.store.load(game.id)).version
    board = next(m for m in fake.messages(thread) if m.embeds and "Move" in m.text())
    await fake.wait_for(lambda: f"Move {version}" in board.text(), timeout=6, what="the board")


async def test_posts_made_just_before_a_restart_still_count_after_it(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Discord counts a channel's posts whichever process made them: a bot restarted
    while its thread's window is full asks Discord for its recent posts there before
    catching the thread up, instead of posting a sixth message within 5 s."""
    bot = await fake.start_bot(bot_with(fake, tmp_path))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob])  # the board and the first prompt: two posts
    (thread,) = fake.threads(fake.channel)
    channel = bot.get_partial_messageable(thread.id)
    for n in range(3):  # three more, as a busy table makes: the window is full
        await channel.send(f"post {n}")
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    await fake.stop_bot(bot)
    rules = get_game(game.kind)
    (first,) = rules.to_act(game.state)
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db") as store:
        while rules.to_act(game.state) == {first}:  # a turn played while it was down
            action = rules.legal_actions(game.state, first)[0]
            await store.submit(game.id, first, action, game.version)
            game = await store.load(game.id)
    prompts = len(turn_prompts(fake, thread))
    since = fake.requests[-1].at

    await fake.start_bot(bot_with(fake, tmp_path))  # catches the thread up
    await fake.wait_for(lambda: len(turn_prompts(fake, thread)) > prompts, 15, "the prompt")
    fake.check_within_limits(since)
    reads = [r for r in fake.requests if r.method == "GET" and r.at >= since]
    assert [r.path for r in reads if r.path.startswith("/channels/")] == [
        f"/channels/{thread.id}/messages"
    ]  # one read, for the channel the restarted process had not posted in


async def play_a_turn(fake: FakeDiscord, thread: Any, seated: dict[str, FakeUser]) -> Any:
    """The player the latest prompt mentions plays their whole turn (first choices);
    returns the result of the click that ended it."""
    prompt = turn_prompts(fake, thread)[-1]
    (player,) = [p for p in seated if f"<@{p}>" in prompt.content.splitlines()[-1]]
    result = await fake.click(seated[player], prompt, "Take your turn")
    while act_buttons(result.message):
        result = await fake.click(seated[player], result.message, act_buttons(result.message)[0])
    await fake.settle()
    return result


async def test_a_turn_prompt_rides_on_the_click_that_ended_the_turn(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """The next turn's prompt (with the log lines before it) is a followup of
    the click that passed the turn, an interaction webhook, which Discord does not count
    against the bot's 50 requests per second. The thread reads the same."""
    bot = await fake.start_bot(bot_with(fake, tmp_path))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    seated = {str(alice.id): alice, str(bob.id): bob}
    first = len(fake.requests)
    for _ in range(3):
        before = turn_prompts(fake, thread)[-1]
        ended = await play_a_turn(fake, thread, seated)
        prompt = turn_prompts(fake, thread)[-1]
        assert prompt.id != before.id
        assert prompt.content.splitlines()[-1] != before.content.splitlines()[-1]  # the other
        assert rode_on(prompt) == str(ended.interaction_id)
    posts = [
        r
        for r in fake.requests[first:]
        if r.method == "POST" and r.path == f"/channels/{thread.id}/messages"
    ]
    assert posts == []  # every new message in the thread was a followup
    budgeted = [
        r for r in fake.requests[first:] if is_rate_limited(r.method, r.path, fake.application_id)
    ]
    assert budgeted and all(r.method == "PATCH" for r in budgeted)  # the board's edits
    await fake.stop_bot(bot)
    fake.check_no_violations()


async def test_a_turn_prompt_is_posted_when_the_last_click_is_no_longer_fresh(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A click's token lasts 15 minutes: past ``ANSWER_FRESH`` the prompt is the bot's
    own post again (with its nonce), never a request on an old token."""
    monkeypatch.setattr(publishing, "ANSWER_FRESH", 0.0)
    bot = await fake.start_bot(bot_with(fake, tmp_path))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    first = len(fake.requests)
    await play_a_turn(fake, thread, {str(alice.id): alice, str(bob.id): bob})
    prompt = turn_prompts(fake, thread)[-1]
    assert "interaction_metadata" not in prompt.data and prompt.data.get("nonce")
    assert not [r for r in fake.requests[first:] if r.method == "POST" and "/webhooks/" in r.path]
    await fake.stop_bot(bot)
    fake.check_no_violations()


async def test_a_channel_s_followups_per_minute_are_capped_and_the_rest_are_posts(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord is reported to hold webhook messages to about 30 a minute per channel:
    past ``FOLLOWUPS_PER_MINUTE`` in a channel, the prompt is the bot's own post."""
    monkeypatch.setattr(publishing, "FOLLOWUPS_PER_MINUTE", 1)
    bot = await fake.start_bot(bot_with(fake, tmp_path))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    seated = {str(alice.id): alice, str(bob.id): bob}
    prompts = []
    for _ in range(2):
        await play_a_turn(fake, thread, seated)
        prompts.append(turn_prompts(fake, thread)[-1])
    assert "interaction_metadata" in prompts[0].data  # the minute's one followup
    assert "interaction_metadata" not in prompts[1].data and prompts[1].data.get("nonce")
    await fake.stop_bot(bot)
    fake.check_no_violations()
