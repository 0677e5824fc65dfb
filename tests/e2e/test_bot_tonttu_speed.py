"""T-4 on Discord: the speed race. Four players click the same middle card (a face-down
material, or a gift someone can pay) at the same instant, 20 times over: one wins each
time, in storage commit order, the others are told who won (or that their point at an
unaffordable gift was wasted); the stored phase timer closes the race through the
engine's TIMER action."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot import WorkshopBot
from engine.core import TIMER
from engine.tonttu import GAME
from engine.tonttu.data import N_MATERIALS
from engine.tonttu.game import still_open
from engine.tonttu.models import ClosePointPhase
from storage import Timer

from .bot_helpers import Clock, make_bot
from .fake_discord import FakeDiscord
from .fake_discord.model import InteractionResult
from .tonttu_helpers import choose_by_dm, open_tonttu, status_message

RACES = 20


def materials_in_play(state: Any) -> int:
    """Every material card is somewhere exactly once: none is paid twice or lost."""
    cards = [*state.deck, *state.discard, *(c for c in state.middle_materials if c is not None)]
    for seat in range(len(state.players)):
        cards += [*state.hands[seat], *state.face_up[seat]]
        if state.face_down[seat] is not None:
            cards.append(state.face_down[seat])
    assert len(cards) == len(set(cards)), "a material card is in two places"
    return len(cards)


def payable_gift(state: Any) -> Any:
    """A middle gift at least one player's workbench can pay (T-3.2), if any."""
    for gift in GAME.view(state, None).middle_gifts:
        if gift is None:
            continue
        for player in state.players:
            seat = GAME.view(state, player).seats[state.players.index(player)]
            bench = Counter([*seat.face_up, *([seat.face_down] if seat.face_down else [])])
            if Counter(gift.needs) <= bench:
                return gift
    return None


async def at_once(fake: FakeDiscord, clicks: list[Any]) -> list[InteractionResult]:
    """Dispatch several interactions in the same instant, then let the bot finish."""
    fake.settle_after_interaction = False
    try:
        results = await asyncio.gather(*clicks)
    finally:
        fake.settle_after_interaction = True
    await fake.settle()
    return list(results)


async def test_the_speed_race_has_one_winner_per_card_twenty_times_over(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = Clock()
    bot: WorkshopBot = await fake.start_bot(
        make_bot(fake, f"sqlite:///{tmp_path}/bot.db", clock=clock, seed=8)
    )
    timers: Any = bot.get_cog("Timers")
    users = [fake.add_user(name) for name in ("alice", "bob", "carol", "dave")]
    by_player = {str(u.id): u for u in users}
    names = {str(u.id): u.name for u in users}
    races = closed_by_timer = games = gift_races = 0
    thread: Any = None
    while races < RACES:
        game = await bot.store.find_open(fake.channel.id)
        if game is None:  # the game ended: the next one (T-2.5 ends gift-less games)
            thread = await open_tonttu(fake, users[0], users[1:], mode="speed", speed_seconds=15)
            games += 1
            continue
        state = game.state
        if state.phase == "pick":  # everyone picks at once, by DM
            acting = sorted(GAME.to_act(state), key=state.players.index)
            await at_once(
                fake,
                [
                    choose_by_dm(fake, by_player[p], state, GAME.legal_actions(state, p)[0])
                    for p in acting
                ],
            )
            continue
        assert state.phase == "point" and state.mode == "speed"
        race = status_message(fake, thread)
        assert "the first valid point wins it" in race.content
        # when it closes: a timestamp each reader's Discord counts down (the clock has not
        # moved since the race began), kept through every edit of the status
        closes = f"the race closes <t:{int(clock.now.timestamp()) + 15}:R>."
        assert closes in race.content
        buttons = [b["custom_id"] for b in race.buttons() if re.search(r":m:\d+$", b["custom_id"])]
        gift = payable_gift(state) if races % 2 else None
        if gift is not None:  # a gift someone can pay: the first payer to commit gets it
            target = next(
                b["custom_id"] for b in race.buttons() if b["custom_id"].endswith(f":g:{gift.id}")
            )
            results = await at_once(fake, [fake.click(u, race, target) for u in users])
            after = (await bot.store.find_open(fake.channel.id)).state  # type: ignore[union-attr]
            (winner,) = [
                p for p, won in zip(after.players, after.won, strict=True) if gift.id in won
            ]
            got = [r for r in results if f"{names[winner]} gets it" in r.content]
            wasted = [r for r in results if "the point is wasted" in r.content]
            late = [r for r in results if r.content.startswith("Too late:")]
            assert len(got) == 1 and len(got) + len(wasted) + len(late) == 4
            for result in late:
                assert f"{names[winner]} already won {gift.name}" in result.content
            assert gift.id not in after.middle_gifts
            assert sum(gift.id in won for won in after.won) == 1  # won once, paid once
            assert materials_in_play(after) == N_MATERIALS
            races += 1
            gift_races += 1
            buttons = [target]
        elif buttons:
            target = buttons[0]
            slot = int(target.rsplit(":", 1)[1])
            results = await at_once(fake, [fake.click(u, race, target) for u in users])
            won = [r for r in results if r.content.startswith("You pointed.")]
            lost = [r for r in results if r.content.startswith("Too late:")]
            assert len(won) == 1 and len(lost) == 3, [r.content for r in results]
            after = (await bot.store.find_open(fake.channel.id)).state  # type: ignore[union-attr]
            (winner,) = [p for p, c in zip(after.players, after.choices, strict=True) if c]
            assert after.middle_materials[slot] is None  # taken once, by the winner
            taker = names[winner]
            assert f"material {slot + 1}, pointed at by {taker}: {taker} took it" in won[0].content
            for result in lost:
                assert f"{names[winner]} already took face-down material {slot + 1}" in (
                    result.content
                )
            # the thread shows the claim and the card's button is gone
            edited = status_message(fake, thread)
            assert target not in [b["custom_id"] for b in edited.buttons()]
            assert closes in edited.content
            assert materials_in_play(after) == N_MATERIALS
            races += 1
        if buttons and (after.round, after.phase) != (state.round, "point"):
            continue  # everyone has pointed already (wasted points count, T-4)
        if races % 3 == 0 or not buttons:
            clock.advance(seconds=16)  # the stored timer closes the race (T-4)
            assert await timers.run_due() >= 1
            closed_by_timer += 1
            assert "Time is up" in "\n".join(m.content for m in fake.messages(thread)[-4:])
        else:  # everyone else points once, at a card still open
            for player in sorted(GAME.to_act(after), key=after.players.index):
                race = status_message(fake, thread)
                result = await fake.click(by_player[player], race, race.buttons()[-1]["custom_id"])
                assert result.content.startswith("You pointed.")
        final = await bot.store.load(game.id)
        assert final.state.phase != "point" or final.state.round != state.round
        if final.state.phase != "over":
            assert materials_in_play(final.state) == N_MATERIALS
    assert closed_by_timer >= 1 and games >= 1 and gift_races >= 1


async def test_a_race_close_that_finds_the_race_closed_since_does_nothing(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Found by the chaos soak: a race's timer read the game in its race, then the race
    closed (another process's timer, a restart's) before its own close was stored; the
    close met a closed phase and logged a traceback. It has nothing to do."""
    bot: WorkshopBot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=8))
    users = [fake.add_user(name) for name in ("alice", "bob", "carol")]
    by_player = {str(u.id): u for u in users}
    await open_tonttu(fake, users[0], users[1:], mode="speed", speed_seconds=15)
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    state = game.state
    await at_once(
        fake,
        [
            choose_by_dm(fake, by_player[p], state, GAME.legal_actions(state, p)[0])
            for p in state.players
        ],
    )
    racing = await bot.store.load(game.id)
    assert racing.state.phase == "point"
    closed = await bot.tables.submit_checked(
        game.id, TIMER, ClosePointPhase(), still_open(racing.state.round, "point")
    )
    now = datetime.now(UTC)
    timer = Timer(1, game.id, "speed_close", now, {"round": racing.state.round}, now)
    cog: Any = bot.get_cog("Tonttu")
    assert await cog.fire(racing, timer) is False  # the copy it read was still racing
    assert (await bot.store.load(game.id)).version == closed.game.version


async def test_a_race_close_that_finds_the_game_over_since_does_nothing(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Found by the chaos soak (full run): a race's timer read the game in its race, then
    the game ended (its last race closed by another process) before its own close was
    stored; the close met the game over and logged a traceback. It has nothing to do."""
    bot: WorkshopBot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=8))
    users = [fake.add_user(name) for name in ("alice", "bob", "carol")]
    await open_tonttu(fake, users[0], users[1:], mode="speed", speed_seconds=15)
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    state = game.state
    for p in state.players:  # everyone picks; the race opens
        await bot.store.submit(game.id, p, GAME.legal_actions(state, p)[0], None)
        state = (await bot.store.load(game.id)).state
    racing = await bot.store.load(game.id)
    assert racing.state.phase == "point"
    while state.phase != "over":  # meanwhile, the game is played to its end
        owing = sorted(GAME.to_act(state))
        player = owing[0] if owing else TIMER
        await bot.store.submit(game.id, player, GAME.legal_actions(state, player)[0], None)
        state = (await bot.store.load(game.id)).state
    finished = await bot.store.load(game.id)
    now = datetime.now(UTC)
    timer = Timer(1, game.id, "speed_close", now, {"round": racing.state.round}, now)
    cog: Any = bot.get_cog("Tonttu")
    assert await cog.fire(racing, timer) is False  # the copy it read was still racing
    assert (await bot.store.load(game.id)).version == finished.version
