"""/history, /replay and /export on the fake Discord,
for both games: who may see which game, stepping through a replay (also after a
restart), the exported record replayed by ``python -m engine replay``, and the
partial record of a running game, which holds nothing a spectator could not see."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import render
from bot import WorkshopBot
from engine import get_game
from engine.core import Rng
from engine.records import Record
from engine.tonttu.data import MATERIAL_NAMES
from storage import LoadedGame
from storage.export import finished_record, state_at
from tests.engine.test_records import run_replay

from .bot_helpers import make_bot
from .fake_discord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from .fake_discord.model import InteractionResult
from .tonttu_helpers import choose_by_dm, open_tonttu

OPTIONS = {"workshop": {}, "tonttu": {"mode": "tactical"}}


async def stored_game(
    bot: WorkshopBot,
    fake: FakeDiscord,
    channel: FakeChannel,
    users: list[FakeUser],
    kind: str,
    seed: int,
    *,
    moves: int | None = None,
) -> LoadedGame:
    """A game of ``users`` in ``channel``, played with random legal moves straight through
    storage (as the bot would have stored it): to its end, or ``moves`` decisions."""
    store = bot.store
    game = await store.create_lobby(
        guild_id=fake.guild.id,
        channel_id=channel.id,
        kind=kind,
        options=OPTIONS[kind],
        host_id=users[0].id,
        host_name=users[0].name,
    )
    for user in users[1:]:
        await store.join(game.id, user.id, user.name)
    game = await store.start(game.id, seed)
    rules = get_game(kind)
    rng = Rng(seed)
    while game.status == "active" and (moves is None or game.version < moves):
        acting = [p for p in game.players if p in rules.to_act(game.state)]
        player = acting[rng.below(len(acting))]
        action = rng.choice(rules.legal_actions(game.state, player))
        await store.submit(game.id, player, action, game.version)
        game = await store.load(game.id)
    return game


def footer(message: FakeMessage) -> str:
    return str(message.embeds[0]["footer"]["text"])


def attached(fake: FakeDiscord, message: FakeMessage | None) -> bytes:
    assert message is not None
    (attachment,) = message.attachments
    return fake.files[int(attachment["id"])]


def option_values(message: FakeMessage) -> list[str]:
    return [option["value"] for s in message.selects() for option in s["options"]]


@pytest.mark.parametrize("kind", ["workshop", "tonttu"])
async def test_finished_games_are_listed_replayed_and_exported_for_those_who_see_them(
    fake: FakeDiscord, tmp_path: Path, kind: str
) -> None:
    url = f"sqlite:///{tmp_path}/bot.db"
    bot = await fake.start_bot(make_bot(fake, url))
    alice, bob, carol, dave = (fake.add_user(n) for n in ("alice", "bob", "carol", "dave"))
    hideout = fake.add_channel("hideout")
    fake.make_private(hideout, alice, bob, carol)
    await fake.settle()
    public = await stored_game(bot, fake, fake.channel, [alice, bob, carol], kind, seed=11)
    hidden = await stored_game(bot, fake, hideout, [alice, bob, carol], kind, seed=12)
    assert public.status == hidden.status == "finished"

    # /history: dave (a spectator) sees the public game only, alice both
    listed = await fake.slash(dave, fake.channel, "history")
    assert listed.ephemeral and listed.message is not None
    assert option_values(listed.message) == [str(public.id)]
    assert f"game #{hidden.id}" not in listed.text and f"game #{public.id}" in listed.text
    winners = ", ".join(public.names[w] for w in (public.result or {})["winners"])
    assert f"winner: {winners}" in listed.text
    assert set(option_values((await fake.slash(alice, hideout, "history")).message)) == {  # type: ignore[arg-type]
        str(public.id),
        str(hidden.id),
    }

    # typing a game's number offers the games dave may see
    offered = await fake.autocomplete(dave, fake.channel, "replay", focused="game", game="")
    assert [c["value"] for c in offered] == [public.id]
    assert offered[0]["name"].startswith(f"#{public.id} · ") and winners in offered[0]["name"]
    offered = await fake.autocomplete(alice, hideout, "export", focused="game", game=hidden.id)
    assert [c["value"] for c in offered] == [hidden.id]

    # the menu opens the final board, with the step buttons
    opened = await fake.select(dave, listed.message, "history:open", [str(public.id)])
    replay = opened.message
    assert opened.ephemeral and replay is not None
    moves = public.version
    assert footer(replay) == f"Move {moves} of {moves}"
    assert attached(fake, replay).startswith(b"\x89PNG")
    disabled = {b["label"] for b in replay.buttons() if b.get("disabled")}
    assert disabled == {"Next ▶", "Last ⏭"}
    last_png = attached(fake, replay)

    # stepping: back, first, next; each click redraws the picture
    stepped = await fake.click(dave, replay, "◀ Back")
    assert stepped.callback_type == 7 and footer(replay) == f"Move {moves - 1} of {moves}"
    assert attached(fake, replay) != last_png
    await fake.click(dave, replay, "⏮ First")
    assert footer(replay) == f"Move 0 of {moves}"
    assert {b["label"] for b in replay.buttons() if b.get("disabled")} == {"⏮ First", "◀ Back"}
    assert "before the first move" in replay.text()
    await fake.click(dave, replay, "Next ▶")
    assert footer(replay) == f"Move 1 of {moves}"
    # the picture is the public board after that many decisions of the stored game
    record = finished_record(public, await bot.store.log(public.id))
    rules = get_game(kind)
    for move in (1, moves - 1):
        if move == moves - 1:
            await fake.click(dave, replay, "Last ⏭")
            await fake.click(dave, replay, "◀ Back")
        view = rules.view(state_at(record, move), None)
        assert attached(fake, replay) == render.render_board(view, public.names)

    # the buttons survive a restart
    await fake.stop_bot(bot)
    bot = await fake.start_bot(make_bot(fake, url))
    await fake.click(dave, replay, "⏮ First")
    await fake.click(dave, replay, "Next ▶")
    await fake.click(dave, replay, "Next ▶")
    assert footer(replay) == f"Move 2 of {moves}"
    await fake.click(dave, replay, "Last ⏭")
    assert footer(replay) == f"Move {moves} of {moves}"

    # /replay at a move, and a move out of range is clamped with a sentence
    at = await fake.slash(dave, fake.channel, "replay", game=public.id, move=5)
    assert at.message is not None and footer(at.message) == f"Move 5 of {moves}"
    beyond = await fake.slash(dave, fake.channel, "replay", game=public.id, move=moves + 50)
    assert beyond.message is not None and footer(beyond.message) == f"Move {moves} of {moves}"
    assert f"has moves 0 to {moves}" in beyond.text

    # a game in a channel dave cannot see, and one that does not exist: the same sentence
    for game_id in (hidden.id, 987654):
        for command in ("replay", "export"):
            refused = await fake.slash(dave, fake.channel, command, game=game_id)
            assert refused.ephemeral and not refused.message.attachments  # type: ignore[union-attr]
            assert f"no game #{game_id} on this server that you can see" in refused.text
    # forged: a step button for the hidden game, a menu value of the hidden game
    forged = await fake.forge_click(dave, replay, f"rp:{hidden.id}:0:f")
    assert forged.ephemeral and "don't recognise that button" in forged.text
    forged = await fake.forge_select(dave, listed.message, "history:open", [str(hidden.id)])
    assert forged.ephemeral and "that you can see" in forged.text
    assert not forged.message or not forged.message.attachments
    forged = await fake.forge_select(dave, listed.message, "history:open", ["x' OR 1=1"])
    assert forged.ephemeral and "that you can see" in forged.text

    # /export of a finished game: anyone who sees it; python -m engine replay reproduces it
    exported = await fake.slash(dave, fake.channel, "export", game=public.id)
    assert exported.ephemeral
    data = attached(fake, exported.message)
    record = Record.model_validate_json(data)
    assert record.seed == 11 and record.finished and record.game == kind
    assert record.names == {str(u.id): u.name for u in (alice, bob, carol)}
    assert len(record.actions) == moves and record.outcome == public.result
    path = tmp_path / "exported.json"
    path.write_bytes(data)
    done = run_replay(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Replay matches the record." in done.stdout
    assert json.loads(done.stdout.split("Replay matches")[0]) == public.result


@pytest.mark.parametrize("kind", ["workshop", "tonttu"])
async def test_a_running_game_is_exported_to_its_players_only_and_never_replayed(
    fake: FakeDiscord, tmp_path: Path, kind: str
) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db"))
    alice, bob, carol, dave = (fake.add_user(n) for n in ("alice", "bob", "carol", "dave"))
    seed = 987_654_321_123
    game = await stored_game(bot, fake, fake.channel, [alice, bob, carol], kind, seed, moves=40)
    assert game.status == "active"

    listed = await fake.slash(dave, fake.channel, "history")  # a running game is not listed
    assert listed.text == "No finished games yet in the channels you can see here."
    refused = await fake.slash(dave, fake.channel, "export", game=game.id)
    assert "only its players can export it" in refused.text
    assert refused.message is None or not refused.message.attachments
    for user in (alice, dave):
        no_replay = await fake.slash(user, fake.channel, "replay", game=game.id)
        assert "still running" in no_replay.text
        assert no_replay.message is None or not no_replay.message.attachments

    exported = await fake.slash(bob, fake.channel, "export", game=game.id)
    data = attached(fake, exported.message)
    assert_nothing_secret(data, game, seed)
    record = Record.model_validate_json(data)
    assert not record.finished and record.moves == game.version == 40
    assert [entry.move for entry in record.public_log or []] == list(range(1, 41))
    path = tmp_path / "running.json"
    path.write_bytes(data)
    done = run_replay(path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "still running" in done.stderr and "cannot be replayed" in done.stderr

    # ended before it finished: still only what a spectator saw, still players only
    await bot.store.abandon(game.id)
    refused = await fake.slash(dave, fake.channel, "export", game=game.id)
    assert "was ended before it finished: only its players" in refused.text
    no_replay = await fake.slash(dave, fake.channel, "replay", game=game.id)
    assert "was ended before it finished, so it has no replay" in no_replay.text
    exported = await fake.slash(carol, fake.channel, "export", game=game.id)
    assert "ended at move 40" in exported.text
    assert_nothing_secret(attached(fake, exported.message), game, seed)


def assert_nothing_secret(data: bytes, game: LoadedGame, seed: int) -> None:
    """The partial record holds no seed, no decision and no player's private view."""
    text = data.decode()
    assert str(seed) not in text and '"seed"' not in text
    record = json.loads(text)
    assert "actions" not in record and "rng" not in text
    rules = get_game(game.kind)
    assert record["board"] == rules.view(game.state, None).model_dump(mode="json")
    if game.kind == "tonttu":
        assert record["board"]["hand"] == [] and record["board"]["my_choice"] is None
        assert all(seat["face_down"] is None for seat in record["board"]["seats"])
        assert '"kind": "pick"' not in text and '"kind": "point_' not in text
    else:  # W-7.2: the names of held reindeer are private (the stalls are public)
        seats = record["board"]["players"]
        assert all(seat["reindeer"] is None for seat in seats)
        if game.version >= 40:  # by then someone holds one (else this checks nothing)
            assert any(seat["reindeer_count"] for seat in seats)


async def test_the_tonttu_picks_of_the_current_phase_are_not_in_a_players_export(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """A pick made by DM through the bot: the thread says only who has chosen, and so
    does the export the same player asks for before the reveal."""
    seed = 424_242_424
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=seed))
    users = [fake.add_user(name) for name in ("alice", "bob", "carol")]
    thread = await open_tonttu(fake, users[0], users[1:])
    game = await bot.store.find_open(thread.id)
    assert game is not None
    rules = get_game("tonttu")
    state: Any = game.state
    picks = {}
    for user in users[:2]:  # two of three pick: the phase is not revealed yet
        player = str(user.id)
        hand = rules.view(state, player).hand
        action = next(a for a in rules.legal_actions(state, player) if a.material == hand[0])
        result: InteractionResult = await choose_by_dm(fake, user, state, action)
        assert "You picked" in result.content
        state, _events = rules.apply(state, player, action)
        picks[player] = action.material
    game = await bot.store.load(game.id)
    assert game.state.choices == state.choices  # stored, not revealed

    exported = await fake.slash(users[0], thread, "export", game=game.id)
    data = attached(fake, exported.message)
    assert_nothing_secret(data, game, seed)
    record = Record.model_validate_json(data)
    log = record.public_log or []
    assert [e["kind"] for entry in log for e in entry.events] == ["chose", "chose"]
    board = record.board or {}
    assert all(seat["face_down"] is None for seat in board["seats"])
    assert [seat["chosen"] for seat in board["seats"]] == [True, True, False]
    # besides the public board (whose gifts name the materials they need), the file
    # names no material at all: the picks are nowhere in it
    rest = json.dumps({k: v for k, v in json.loads(data).items() if k != "board"})
    named = [m for m in MATERIAL_NAMES if m in rest]
    assert not named and set(picks.values()) <= set(MATERIAL_NAMES), (named, rest[:500])
