"""The fake Discord carries every behaviour the bot needs, end to end with real discord.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import discord
import pytest

from .demo_bot import GAMES, PNG_BYTES, DemoBot
from .fake_discord import FakeDiscord, HarnessError


@pytest.fixture
async def bot(fake: FakeDiscord) -> AsyncIterator[DemoBot]:
    yield await fake.start_bot(DemoBot())


async def test_bot_logs_in_identifies_and_syncs_commands(fake: FakeDiscord, bot: DemoBot) -> None:
    assert bot.user is not None and bot.user.id == fake.bot_user.id
    assert bot.get_guild(fake.guild.id) is not None
    assert bot.get_channel(fake.channel.id) is not None
    assert fake.gateway_log[:3] == ["HELLO", "IDENTIFY", "READY"]
    names = {c["name"] for c in fake.global_commands}
    assert {"newgame", "game", "secret", "slow", "thread", "dm", "ask"} <= names
    # Every answer is JSON with exactly this Content-Type (discord.py compares it whole).
    assert all(r.status < 400 for r in fake.requests)


async def test_json_answers_carry_exact_content_type(fake: FakeDiscord) -> None:
    headers = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession() as session:
        async with session.get(fake.api_base + "/users/@me", headers=headers) as response:
            assert response.headers["Content-Type"] == "application/json"
            assert (await response.json())["id"] == str(fake.bot_user.id)
        async with session.get(fake.api_base + "/users/@me") as response:
            assert response.status == 401


async def test_slash_command_with_options_posts_a_public_message(
    fake: FakeDiscord, bot: DemoBot
) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, fake.channel, "newgame", game="tonttu", players=4)
    assert result.callback_type == 4
    assert result.content == "Lobby 1: Workshop Tonttu for 4"
    assert not result.ephemeral
    assert fake.messages(fake.channel) == [result.message]
    lobby = fake.last_message(fake.channel)
    assert lobby.button_labels() == ["Join", "Refresh"]
    assert [s["custom_id"] for s in lobby.selects()] == ["demo:colour"]


async def test_slash_helper_refuses_what_a_user_cannot_send(
    fake: FakeDiscord, bot: DemoBot
) -> None:
    alice = fake.add_user("alice")
    with pytest.raises(HarnessError, match="missing required"):
        await fake.slash(alice, fake.channel, "newgame")
    with pytest.raises(HarnessError, match="no option"):
        await fake.slash(alice, fake.channel, "newgame", game="workshop", colour="red")
    with pytest.raises(HarnessError, match="maximum"):
        await fake.slash(alice, fake.channel, "newgame", game="workshop", players=5)
    with pytest.raises(HarnessError, match="not a synced command"):
        await fake.slash(alice, fake.channel, "nosuchcommand")


async def test_autocomplete_returns_the_bots_choices(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    choices = await fake.autocomplete(alice, fake.channel, "newgame", focused="game", game="tont")
    assert choices == [{"name": "Workshop Tonttu", "value": "tonttu"}]
    everything = await fake.autocomplete(alice, fake.channel, "newgame", focused="game", game="")
    assert [c["value"] for c in everything] == list(GAMES)


async def test_subcommand_with_boolean_and_member_options(fake: FakeDiscord, bot: DemoBot) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    started = await fake.slash(alice, fake.channel, "game start", fast=True)
    assert started.content == "Started (fast=True)"
    kicked = await fake.slash(alice, fake.channel, "game kick", user=bob, channel=fake.channel)
    assert kicked.content == "Kicked bob from general" and kicked.ephemeral


async def test_dynamic_button_edits_the_message(fake: FakeDiscord, bot: DemoBot) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    lobby = (await fake.slash(alice, fake.channel, "newgame", game="workshop")).message
    assert lobby is not None
    result = await fake.click(bob, lobby, "Join")
    assert result.callback_type == 7
    assert lobby.content == "Lobby 1: Santa's Workshop for 3\nbob joined"
    await fake.click(alice, lobby, "demo:join:1")  # by custom_id works as well
    assert lobby.content.endswith("bob joined\nalice joined")
    assert len(lobby.history) == 3
    with pytest.raises(HarnessError, match="buttons match"):
        await fake.click(alice, lobby, "Leave")


async def test_deferred_update_then_edit_original(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    lobby = (await fake.slash(alice, fake.channel, "newgame", game="workshop")).message
    assert lobby is not None
    result = await fake.click(alice, lobby, "Refresh")
    assert result.callback_type == 6
    assert [what for what, _ in result.events] == ["callback", "edit_original"]
    assert lobby.content.endswith("(refreshed)")


async def test_select_answers_ephemerally(fake: FakeDiscord, bot: DemoBot) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    lobby = (await fake.slash(alice, fake.channel, "newgame", game="workshop")).message
    assert lobby is not None
    result = await fake.select(bob, lobby, "demo:colour", ["green"])
    assert result.content == "You chose green" and result.ephemeral
    assert [m.content for m in fake.ephemeral_messages(bob)] == ["You chose green"]
    assert fake.ephemeral_messages(alice) == []
    assert "You chose green" not in "\n".join(fake.public_texts())
    with pytest.raises(HarnessError, match="not options"):
        await fake.select(bob, lobby, "demo:colour", ["purple"])


async def test_ephemeral_reply_is_seen_only_by_its_user(fake: FakeDiscord, bot: DemoBot) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    result = await fake.slash(alice, fake.channel, "secret")
    assert result.ephemeral and result.message is not None
    assert result.message.visible_to == alice.id
    assert fake.messages(fake.channel) == []
    assert any("Only you" in t for t in fake.texts_seen_by(alice))
    assert not any("Only you" in t for t in fake.texts_seen_by(bob))


@pytest.mark.parametrize("ephemeral", [False, True])
async def test_deferred_response_then_followups(
    fake: FakeDiscord, bot: DemoBot, ephemeral: bool
) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, fake.channel, "slow", ephemeral=ephemeral)
    assert result.callback_type == 5
    # The first followup fills the "thinking" message and keeps its ephemerality.
    assert result.message is not None and not result.message.loading
    assert result.message.content == "Done after thinking"
    assert result.message.ephemeral is ephemeral
    assert [m.content for m in result.followups] == ["A second followup"]
    assert [m.content for m in result.messages] == ["Done after thinking", "A second followup"]


async def test_thread_from_a_message_and_interactions_inside_it(
    fake: FakeDiscord, bot: DemoBot
) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, fake.channel, "thread")
    [thread] = fake.threads(fake.channel)
    assert result.content == f"Thread <#{thread.id}> created" and result.ephemeral
    board = fake.last_message(fake.channel)
    assert board.content == "The board" and thread.id == board.id  # Discord reuses the id
    [welcome] = fake.messages(thread)
    assert welcome.content == "Welcome to the game thread"
    clicked = await fake.click(alice, welcome, "Join")
    assert welcome.content.endswith("alice joined") and clicked.callback_type == 7
    inside = await fake.slash(alice, thread, "game start")
    assert inside.message is not None and inside.message.channel_id == thread.id


async def test_private_thread_without_a_message(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, fake.channel, "private")
    [thread] = fake.threads(fake.channel)
    assert thread.type == 12 and alice.id in thread.member_ids
    assert result.content == f"Private thread {thread.id}"


async def test_dm_and_a_button_clicked_in_the_dm(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, fake.channel, "dm")
    assert result.content == "Check your DMs"
    [dm] = fake.dm_messages(alice)
    assert dm.content == "Your secret reindeer: Dasher"
    assert not any("Dasher" in t for t in fake.public_texts())
    clicked = await fake.click(alice, dm, "Reveal")
    assert clicked.content == "Clicked in a DM"
    assert clicked.message is not None and clicked.message.channel_id == dm.channel_id


async def test_slash_command_in_a_dm(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    channel = fake.open_dm(alice)
    result = await fake.slash(alice, channel, "newgame", game="workshop")
    assert result.content == "/newgame works in servers."


async def test_closed_dms_give_50007_and_the_bot_falls_back(
    fake: FakeDiscord, bot: DemoBot
) -> None:
    bob = fake.add_user("bob", dms_open=False)
    result = await fake.slash(bob, fake.channel, "dm")
    assert result.content == "Your DMs are closed (Discord error 50007)." and result.ephemeral
    assert fake.dm_messages(bob) == []
    [failed] = fake.failed_requests()
    assert failed.status == 403
    assert failed.response == {"message": "Cannot send messages to this user", "code": 50007}
    fake.set_dms_open(bob, True)
    await fake.slash(bob, fake.channel, "dm")
    assert [m.content for m in fake.dm_messages(bob)] == ["Your secret reindeer: Dasher"]


async def test_denied_thread_creation_gives_50013(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    fake.deny_bot(fake.channel, "create_public_threads")
    await fake.settle()
    channel = bot.get_channel(fake.channel.id)
    assert isinstance(channel, discord.TextChannel)
    assert not channel.permissions_for(channel.guild.me).create_public_threads
    result = await fake.slash(alice, fake.channel, "thread")
    assert "Discord error 50013" in result.content
    assert fake.threads() == []
    assert [r.response["code"] for r in fake.failed_requests()] == [50013]


async def test_denied_send_messages_gives_50013(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    fake.deny_bot(fake.channel, "send_messages")
    result = await fake.slash(alice, fake.channel, "thread")
    assert "Discord error 50013" in result.content
    # Interaction responses are not channel messages: they still work.
    assert (await fake.slash(alice, fake.channel, "newgame", game="workshop")).callback_type == 4


async def test_modal_opens_and_submits(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    opened = await fake.slash(alice, fake.channel, "ask")
    assert opened.callback_type == 9 and opened.modal is not None
    assert opened.modal["title"] == "A question"
    submitted = await fake.submit_modal(alice, opened, {"demo:answer": "forty-two"})
    assert submitted.content == "Thanks for 'forty-two'" and submitted.ephemeral


async def test_multipart_attachment_is_parsed(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, fake.channel, "board")
    assert result.message is not None
    [attachment] = result.message.attachments
    assert attachment["filename"] == "board.png"
    assert fake.files[int(attachment["id"])] == PNG_BYTES
    callback = next(r for r in fake.requests if r.path.endswith("/callback"))
    assert [f.field for f in callback.files] == ["files[0]"]
    assert callback.json["data"]["embeds"][0]["title"] == "Board"


async def test_every_request_is_recorded(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    await fake.slash(alice, fake.channel, "newgame", game="workshop")
    callbacks = [r for r in fake.requests if r.template and r.template.endswith("/callback")]
    assert len(callbacks) == 1
    assert callbacks[0].json["data"]["content"].startswith("Lobby 1")
    assert callbacks[0].method == "POST" and callbacks[0].status == 200


async def test_restart_keeps_persistent_components_working(fake: FakeDiscord) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    first = await fake.start_bot(DemoBot())
    lobby = (await fake.slash(alice, fake.channel, "newgame", game="workshop")).message
    assert lobby is not None
    await fake.stop_bot(first)
    assert first.is_closed()
    await fake.start_bot(DemoBot())
    assert fake.gateway_log.count("IDENTIFY") == 2
    await fake.click(bob, lobby, "Join")
    assert lobby.content.endswith("bob joined")
    assert (await fake.select(bob, lobby, "demo:colour", ["red"])).content == "You chose red"


async def test_gateway_reconnect_resumes(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    await fake.reconnect_gateway(resume=True)
    await fake.wait_for(lambda: "RESUMED" in fake.gateway_log, what="RESUMED")
    assert fake.gateway_log.count("IDENTIFY") == 1
    assert (await fake.slash(alice, fake.channel, "secret")).ephemeral


async def test_events_sent_while_disconnected_are_replayed_on_resume(
    fake: FakeDiscord, bot: DemoBot
) -> None:
    alice = fake.add_user("alice")
    await fake.drop_gateway()
    # Dispatched while the bot is away: buffered, then replayed by RESUME.
    result = await fake.slash(alice, fake.channel, "game start")
    assert result.content == "Started (fast=False)"
    assert "RESUMED" in fake.gateway_log and fake.gateway_log.count("IDENTIFY") == 1


async def test_followups_edited_fetched_and_deleted(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, fake.channel, "edits")
    assert result.content == "first, edited"
    assert [m.content for m in fake.messages(fake.channel)] == ["first, edited", "second, edited"]
    third = result.followups[1]
    assert third.deleted and third.ephemeral
    assert [m.content for m in fake.ephemeral_messages(alice)] == ["original says 'first, edited'"]
    templates = [r.template for r in fake.requests if r.interaction_id == result.interaction_id]
    assert templates.count("/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}") == 2
    assert "/webhooks/{webhook_id}/{webhook_token}/messages/@original" in templates


async def test_channel_messages_edited_fetched_deleted(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, fake.channel, "channelops")
    assert result.content == "fetched 'kept and edited'"
    [kept] = fake.messages(fake.channel)
    assert kept.content == "kept and edited" and kept.data["pinned"]
    [dropped] = [m for m in fake.messages(fake.channel, include_deleted=True) if m.deleted]
    assert dropped.content == "drop me"
    assert "drop me" in "\n".join(fake.public_texts())  # it was public for a while
    mine = fake.visible_messages(alice, fake.channel)
    assert [m.content for m in mine] == ["kept and edited", "fetched 'kept and edited'"]


async def test_lookups_of_guild_channel_member_user(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    guild = await bot.fetch_guild(fake.guild.id)
    assert guild.name == fake.guild.name
    channel = await bot.fetch_channel(fake.channel.id)
    assert isinstance(channel, discord.TextChannel) and channel.name == "general"
    member = await guild.fetch_member(alice.id)
    assert member.name == "alice"
    assert (await bot.fetch_user(alice.id)).name == "alice"
    assert [c.name for c in await guild.fetch_channels()] == ["general"]


async def test_default_member_permissions_hide_a_command(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    moderator = fake.add_user("mod", roles=[fake.add_role("Mods", manage_channels=True)])
    with pytest.raises(HarnessError, match="does not see /abandon"):
        await fake.slash(alice, fake.channel, "abandon")
    assert (await fake.slash(moderator, fake.channel, "abandon")).content == "Abandoned"
    assert (await fake.slash(fake.owner, fake.channel, "abandon")).content == "Abandoned"


async def test_guild_synced_commands(fake: FakeDiscord) -> None:
    await fake.start_bot(DemoBot(sync_guild=fake.guild.id))
    assert fake.global_commands == []
    assert {c["name"] for c in fake.guild_commands[fake.guild.id]} >= {"newgame", "secret"}
    alice = fake.add_user("alice")
    assert (await fake.slash(alice, fake.channel, "secret")).content == "Only you can see this"
    with pytest.raises(HarnessError, match="not a synced command"):
        await fake.slash(alice, fake.open_dm(alice), "secret")  # guild commands: not in DMs


async def test_gateway_speaks_zlib_stream_and_acks_heartbeats(
    fake: FakeDiscord, bot: DemoBot
) -> None:
    assert fake.gateway_queries[0] == {"v": "10", "encoding": "json", "compress": "zlib-stream"}
    await fake.wait_for(lambda: fake.heartbeats >= 1, what="a heartbeat")
    await fake.wait_for(lambda: bot.latency != float("inf"), what="a heartbeat ACK")


async def test_missing_spec_is_reported_not_silently_passed(tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match="NOT validated"):
        server = FakeDiscord(spec_path=tmp_path / "openapi.json")
    assert server.spec is None and server.spec_skip_reason is not None


@pytest.mark.parametrize("settle", [True, False])
async def test_concurrent_interactions_in_several_channels(
    fake: FakeDiscord, bot: DemoBot, settle: bool
) -> None:
    fake.settle_after_interaction = settle
    channels = [fake.channel] + [fake.add_channel(f"table-{i}") for i in range(4)]
    users = [fake.add_user(f"player{i}") for i in range(10)]
    await fake.settle()
    results = await asyncio.gather(
        *(
            fake.slash(user, channels[i % len(channels)], "game start", fast=i % 2 == 0)
            for i, user in enumerate(users)
        )
    )
    for i, result in enumerate(results):
        assert result.content == f"Started (fast={i % 2 == 0})"
        assert result.message is not None
        assert result.message.channel_id == channels[i % len(channels)].id
        assert result.latency is not None and result.latency >= 0
    assert sum(len(fake.messages(c)) for c in channels) == len(users)


async def test_history_typing_roles_and_thread_archiving(fake: FakeDiscord, bot: DemoBot) -> None:
    channel = bot.get_channel(fake.channel.id)
    assert isinstance(channel, discord.TextChannel)
    async with channel.typing():
        first = await channel.send("one")
    await channel.send("two")
    history = [m.content async for m in channel.history(limit=10)]
    assert history == ["two", "one"]  # newest first, as Discord answers
    assert [m.content async for m in channel.history(limit=10, after=first)] == ["two"]
    thread = await first.create_thread(name="t")
    assert [t.id for t in await channel.guild.active_threads()] == [thread.id]
    await thread.edit(archived=True, locked=True)
    [fake_thread] = fake.threads(fake.channel)
    assert fake_thread.archived and fake_thread.locked
    assert await channel.guild.active_threads() == []
    with pytest.raises(discord.Forbidden):
        await thread.send("into a locked thread")
    assert {r.name for r in await channel.guild.fetch_roles()} >= {"@everyone", "Workshop Bot"}
    with pytest.raises(discord.HTTPException) as again:
        await first.create_thread(name="t2")
    assert again.value.code == 160004


@pytest.mark.slow
async def test_restart_with_bot_processes(fake: FakeDiscord) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    script = Path(__file__).with_name("demo_bot.py")
    first = await fake.start_bot_process(script)
    lobby = (await fake.slash(alice, fake.channel, "newgame", game="workshop")).message
    assert lobby is not None
    assert await fake.stop_bot_process(first) == 0  # Ctrl-C shuts down cleanly
    second = await fake.start_bot_process(script)
    await fake.click(bob, lobby, "Join")
    assert lobby.content.endswith("bob joined")
    assert fake.gateway_log.count("IDENTIFY") == 2
    # each request names the process that sent it (run_bot.py's User-Agent)
    # each request names the process that sent it (run_bot.py's X-Fake-Pid)
    callbacks = [r.pid for r in fake.requests if r.path.endswith("/callback")]
    assert callbacks == [first.pid, second.pid]
    assert {r.pid for r in fake.requests} == {first.pid, second.pid}


async def test_settle_waits_for_a_handler_that_is_silent_for_a_while(
    fake: FakeDiscord, bot: DemoBot
) -> None:
    fake.settle_after_interaction = False
    result = await fake.slash(fake.add_user("alice"), fake.channel, "ponder")
    assert result.content == "Thinking it over"
    await fake.settle()  # the handler is quiet for longer than settle's quiet spell
    assert [m.content for m in fake.messages(fake.channel)] == ["Pondered"]
