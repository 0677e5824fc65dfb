"""A whole game of Workshop Tonttu played only through DM selects, the "Choose
privately" fallback and buttons, checked against the engine playing the same choices,
with a secrecy scan before every reveal (T-2, T-3, T-5, T-6 end to end)."""

from __future__ import annotations

from pathlib import Path

from engine.core import Rng
from engine.tonttu import GAME

from .bot_helpers import make_bot, shown_scores
from .fake_discord import FakeDiscord, FakeMessage
from .tonttu_helpers import (
    SecrecyScan,
    choose_by_dm,
    choose_privately,
    confirmation_of,
    open_tonttu,
    status_message,
)

SEED = 20261224


def chosen_line(status: FakeMessage) -> str:
    return status.content.split("Chosen: ")[1].splitlines()[0]


async def test_a_four_player_tactical_game_by_dm_and_ephemeral_fallback(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    names = ("alice", "bob", "carol", "dave")
    users = [fake.add_user(name, dms_open=name != "dave") for name in names]  # dave: DMs closed
    by_player = {str(user.id): user for user in users}
    thread = await open_tonttu(fake, users[0], users[1:])
    assert "I could not send a DM to dave" in status_message(fake, thread).content

    state = GAME.new_game(list(by_player), SEED, GAME.parse_options({"mode": "tactical"}))
    rng = Rng(5)
    scan = SecrecyScan(fake, by_player)
    changes = reveals = choices = 0
    # Helpers return at the bot's answer; the test waits for what it checks (faster).
    fake.settle_after_interaction = False
    while GAME.outcome(state) is None:
        scan.mark()
        phase_round = (state.round, state.phase)
        status = status_message(fake, thread)
        assert "Chosen: nobody yet" in status.content
        # each player's private view (hand, pending choice) is a secret too
        secrets: dict[str, set[str]] = {
            p: {f"Your hand: {', '.join(GAME.view(state, p).hand)}\n"} for p in by_player
        }
        acting = sorted(GAME.to_act(state), key=state.players.index)
        for n, player in enumerate(acting):
            user = by_player[player]
            legal = GAME.legal_actions(state, player)
            action = legal[rng.below(len(legal))]
            last = n == len(acting) - 1
            if last:
                await fake.settle()
                scan.check(secrets, state.round)  # nothing revealed before the last choice
            if not last and len(legal) > 1 and rng.below(4) == 0:
                # T-2.1 / T-2.2: a first choice, replaced before the reveal
                other = next(a for a in legal if a != action)
                if user.dms_open:
                    await choose_by_dm(fake, user, state, other)
                else:
                    await choose_privately(fake, user, thread, state, other)
                secrets.setdefault(player, set()).add(confirmation_of(state, player, other))
                state, _ = GAME.apply(state, player, other)
                changes += 1
            via_dm = user.dms_open and rng.below(5) != 0
            if via_dm:
                result = await choose_by_dm(fake, user, state, action)
            else:
                result = await choose_privately(fake, user, thread, state, action)
            confirmation = confirmation_of(state, player, action)
            assert result.callback_type == 7 and confirmation in result.content, result.content
            secrets.setdefault(player, set()).add(confirmation)
            state, _events = GAME.apply(state, player, action)
            choices += 1
            if not last:
                # the thread says who has chosen, never what
                await fake.wait_for(
                    lambda name=user.name: name in chosen_line(status_message(fake, thread)),
                    what=f"{user.name} in the status",
                )
                assert "You can change it until everyone has chosen." in result.content
        await fake.settle()  # the reveal and the next phase
        reveals += 1
        round_, phase = phase_round
        kind = "picks" if phase == "pick" else "points"
        assert any(f"Round {round_} {kind}:" in m.content for m in fake.messages(thread))
    scan.check_face_down()

    outcome = GAME.outcome(state)
    assert outcome is not None and reveals > 10 and changes > 0 and scan.checks == reveals
    final = next(m for m in fake.messages(thread) if "final scores" in m.text())
    shown = shown_scores(final)
    assert shown == {by_player[p].name: score for p, score in outcome.scores.items()}
    fields = {f["name"].split(":")[0]: f["value"] for f in final.embeds[0]["fields"]}
    for player, result in outcome.players.items():  # gifts in completion order, set bonus
        gifts = ", ".join(f"{g.name} ({g.category})" for g in result.gifts) or "none"
        field = fields[by_player[player].name]
        assert f"gifts: {gifts}" in field
        assert f"gift points {result.gift_points}" in field
        assert f"set bonus {result.set_points}" in field
    winners = ", ".join(f"**{by_player[p].name}**" for p in outcome.winners)
    assert winners in final.text()
    # the chart of how the game went, in the same message
    assert [a["filename"] for a in final.attachments] == ["board.png", "chart.png"]
    assert final.embeds[1]["title"] == "How the game went: score after each round"
    # dave played every phase through the ephemeral fallback: no DM ever reached him
    assert fake.dm_messages(users[3]) == []
    assert any(r.response and r.response.get("code") == 50007 for r in fake.failed_requests())
