"""Santa's Workshop on Discord in German: private text in the user's own
language, public text (lobby, log, prompts, final scores, the board picture) in the
server's, against the fake Discord."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot import Settings, WorkshopBot
from cogs.helpers.gates import SLOW_DOWN
from engine.core import Rng
from engine.workshop import GAME

from .bot_helpers import Clock, make_bot, open_panel, open_table
from .fake_discord import FakeDiscord, FakeMessage, FakeUser
from .test_bot_workshop_game import play_to_the_end

SEED = 20261201

ENGLISH_PUBLIC = (
    "it's your turn",
    "Take your turn",
    "Reminder:",
    "final scores",
    "Winner: **",
    "Winners: **",
    ": lobby (game #",
    "Press Join",
    "Seats (",
    "(computer, ",
    "Host: <@",
    "The game has started.",
    # the engine's log lines and the board message's caption (merged from the other parts)
    " places an Elf ",
    " takes ",
    " scores ",
    "Move ",
    "shows the board as text",
    "How the game went",
    "Wood Shop",
)
"""English of the table's public templates, the engine's log lines and the board
message's caption: none may show on a German server."""


@pytest.fixture
def pictures(monkeypatch: pytest.MonkeyPatch, german_server: WorkshopBot) -> list[str]:
    """The language of every board picture and chart the table asks for."""
    langs: list[str] = []
    drawn = german_server.core.pictures  # this bot's (a test may run several)
    board, chart = drawn.draw_board, drawn.draw_chart

    async def board_png(game: Any, lang: str = "en") -> bytes:
        langs.append(lang)
        png: bytes = await board(game, lang)
        return png

    async def chart_png(game: Any, actions: Any, lang: str = "en") -> bytes:
        langs.append(f"chart:{lang}")
        png: bytes = await chart(game, actions, lang)
        return png

    monkeypatch.setattr(drawn, "draw_board", board_png)
    monkeypatch.setattr(drawn, "draw_chart", chart_png)
    return langs


@pytest.fixture
async def german_server(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[WorkshopBot]:
    fake.guild.locale = "de"
    yield await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))


def turn_prompts(fake: FakeDiscord, thread: Any) -> list[FakeMessage]:
    return [
        m
        for m in fake.messages(thread)
        if any(b["custom_id"].startswith("turn:") for b in m.buttons())
    ]


async def open_german_table(
    fake: FakeDiscord, bot: WorkshopBot, host: FakeUser, others: list[FakeUser]
) -> tuple[FakeMessage, Any]:
    """/newgame, joins and start by the buttons' custom ids (their labels are German)."""
    result = await fake.slash(host, fake.channel, "newgame", game="workshop")
    lobby = result.message
    assert lobby is not None and not result.ephemeral
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    for user in others:
        await fake.click(user, lobby, f"lobby:{game.id}:join")
    await fake.click(host, lobby, f"lobby:{game.id}:start")
    (thread,) = fake.threads(fake.channel)
    await fake.wait_for(
        lambda: bool(turn_prompts(fake, thread)), timeout=15, what="the first turn prompt"
    )
    return lobby, thread


async def open_german_panel(fake: FakeDiscord, user: FakeUser, thread: Any) -> FakeMessage:
    prompt = turn_prompts(fake, thread)[-1]
    (button,) = [b for b in prompt.buttons() if b["custom_id"].startswith("turn:")]
    opened = await fake.click(user, prompt, button["custom_id"])
    assert opened.ephemeral and opened.message is not None
    return opened.message


async def test_a_german_user_in_an_english_server_reads_german_privately(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """The panel and an error sentence follow the user's own Discord
    language; the thread stays in the server's (English)."""
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    anna, bob = fake.add_user("anna", locale="de"), fake.add_user("bob")
    await open_table(fake, bob, [anna])  # an English lobby: English labels
    (thread,) = fake.threads(fake.channel)
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None

    opened = await open_panel(fake, anna, thread)
    assert opened.ephemeral and opened.message is not None
    panel = opened.message.text()
    assert "Santas Werkstatt · Spiel #" in panel
    assert "Dein Zug in" in panel or "Wir warten auf" in panel, panel
    assert "Zug " in panel and "Move " not in panel  # the footer: "Zug 0"
    assert "Your move" not in panel and "Waiting for" not in panel

    # an error sentence (storage's): a second /newgame in the channel
    busy = await fake.slash(anna, fake.channel, "newgame", game="tonttu")
    assert busy.ephemeral
    assert busy.content.startswith("In diesem Kanal gibt es schon ein Spiel „Santas Werkstatt“")
    assert "läuft" in busy.content
    # a rule error's (engine.undo's refusal, a template)
    undo = await fake.slash(anna, thread, "undo")
    assert undo.ephemeral
    assert undo.content == "Es wurde noch nichts gespielt, also gibt es nichts zurückzunehmen."
    # and the table's own: /me from a member without a seat, in each one's language
    carol = fake.add_user("carol", locale="de-DE")
    me = await fake.slash(carol, thread, "me")
    assert me.ephemeral and me.content == "Du spielst in diesem Spiel nicht mit."
    english = await fake.slash(fake.add_user("dave"), thread, "me")
    assert english.content == "You are not playing in this game."

    # the thread: English only
    public = "\n".join(m.text() for m in fake.messages(thread))
    assert "it's your turn" in public and "Take your turn" in public
    for german in ("Du bist am Zug", "Zug machen", "Spiel #", "Santas Werkstatt"):
        assert german not in public


async def test_a_german_server_gets_a_german_lobby_prompt_and_board_picture(
    fake: FakeDiscord, german_server: WorkshopBot, pictures: list[str]
) -> None:
    """The server's locale is German: the lobby, the turn prompt and the
    board's picture are German, while an English user's own panel stays English."""
    alice, bob = fake.add_user("alice"), fake.add_user("bob", locale="de")
    lobby, thread = await open_german_table(fake, german_server, alice, [bob])
    assert "Santas Werkstatt: Lobby (Spiel #" in lobby.text()
    assert "Das Spiel hat begonnen." in lobby.text()
    assert "Gastgeber: <@" in lobby.text() and "2–5 Spieler." in lobby.text()
    assert (await fake.slash(alice, fake.channel, "newgame", game="workshop")).ephemeral
    assert str(fake.threads(fake.channel)[0].name).startswith("Santas Werkstatt · Spiel #")

    prompt = turn_prompts(fake, thread)[-1]
    assert prompt.button_labels() == ["Zug machen"]
    assert re.search(r"<@\d+>: Du bist am Zug\.", prompt.content), prompt.content
    assert pictures and set(pictures) == {"de"}

    panel = await open_german_panel(fake, alice, thread)  # alice's client is English
    assert "Santa's Workshop · game #" in panel.text()


async def test_the_lobby_follows_a_server_switched_to_german(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """A server's Discord language changed (GUILD_UPDATE): the next public
    text is German."""
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    lobby = (await fake.slash(alice, fake.channel, "newgame", game="workshop")).message
    assert lobby is not None and lobby.button_labels() == ["Join", "Leave", "Start", "Cancel"]
    fake.set_locale(fake.guild, "de")
    await fake.wait_for(
        lambda: str(bot.get_guild(fake.guild.id).preferred_locale) == "de",  # type: ignore[union-attr]
        timeout=5,
        what="the server's new locale",
    )
    await fake.click(bob, lobby, "Join")
    assert lobby.button_labels() == ["Beitreten", "Verlassen", "Starten", "Abbrechen"]
    assert "2. bob" in lobby.text() and "Plätze (2/5)" in lobby.text()


async def test_a_whole_game_in_german_to_the_final_scores(
    fake: FakeDiscord, german_server: WorkshopBot, pictures: list[str]
) -> None:
    """A whole Santa's Workshop game on a German server, through the fake
    Discord: German prompts, German final scores with German plurals, pictures asked for
    in German, and none of this area's English in the thread."""
    users = [fake.add_user(name) for name in ("anna", "ben")]
    by_player = {str(user.id): user for user in users}
    _, thread = await open_german_table(fake, german_server, users[0], users[1:])

    state, _moves = await play_to_the_end(fake, thread, by_player, SEED, Rng(16), open_german_panel)

    outcome = GAME.outcome(state)
    assert outcome is not None
    await fake.wait_for(
        lambda: any("Endwertung" in m.text() for m in fake.messages(thread)),
        timeout=15,
        what="the final scores",
    )
    final = next(m for m in fake.messages(thread) if "Endwertung" in m.text())
    assert final.text().startswith("Santas Werkstatt · Spiel #")
    shown = {
        name: int(points)
        for name, points, unit in re.findall(r"(\w+): (\d+) (Punkte?)\b", final.text())
        if unit == ("Punkt" if points == "1" else "Punkte")
    }
    assert shown == {by_player[p].name: score for p, score in outcome.scores.items()}
    winners = ", ".join(f"**{by_player[p].name}**" for p in outcome.winners)
    assert f"Sieger: {winners}" in final.text()

    prompts = [m.content for m in turn_prompts(fake, thread)]
    assert len(prompts) > 10 and all("Du bist am Zug." in text for text in prompts)
    assert set(pictures) == {"de", "chart:de"}
    public = "\n".join(fake.public_texts())
    leaked = [english for english in ENGLISH_PUBLIC if english in public]
    assert not leaked, leaked
    assert not re.search(r"\b(anna|ben): \d+ points?\b", public)  # final scores' English


async def test_the_door_refuses_a_flood_in_the_users_own_language(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """The door's "slow down" (answered before any cog) follows the raw
    interaction's locale."""
    settings = Settings(
        token=fake.token,
        database_url=f"sqlite:///{tmp_path}/bot.db",
        timer_poll_seconds=3600,
        flood_burst=1,
        flood_per_second=0.01,
    )
    await fake.start_bot(WorkshopBot(settings, clock=Clock()))
    anna, bob = fake.add_user("anna", locale="de"), fake.add_user("bob")
    for user in (anna, bob):
        await fake.slash(user, fake.channel, "board")
    refused_de = await fake.slash(anna, fake.channel, "board")
    refused_en = await fake.slash(bob, fake.channel, "board")
    assert refused_de.content.startswith("Etwas langsamer bitte:")
    assert refused_en.content == SLOW_DOWN
