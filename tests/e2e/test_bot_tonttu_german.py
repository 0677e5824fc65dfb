"""Workshop Tonttu in German on the fake Discord: whole games, tactical and
speed, in a German server (the thread, the DMs, the private panels and the answers in
German, no translated English sentence in any post), a German player in an English
server (German DMs and panels, an English thread), and /stats, /leaderboard and
/history answered in the asking member's language."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po

import i18n
from cogs.tonttu.text import confirmation
from engine.core import Rng
from engine.tonttu import GAME

from .bot_helpers import BoardPictures, make_bot
from .fake_discord import FakeDiscord, FakeMessage, FakeUser
from .fake_discord.model import InteractionResult
from .tonttu_helpers import choice_select, choose_by_dm, select_in

SEED = 20261224
DE = i18n.words("de")
PRIVATELY = "ttp:"
"""The custom id of the thread's "Choose privately" button (its label is translated)."""


def translated(lang: str = "de") -> list[Any]:
    """The catalogue's messages that have a translation (every plural form)."""
    with i18n.po_path(lang).open("rb") as po:
        catalogue = read_po(po, locale=lang)
    found = []
    for message in catalogue:
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.id and all(strings) and not message.fuzzy:
            found.append(message)
    return found


def engine_lines_translated() -> bool:
    """Whether the Workshop Tonttu engine's log lines are in the German catalogue: until
    then the reveals are English."""
    return any(
        path.startswith("engine/tonttu/text.py")
        for message in translated()
        for path, _ in message.locations
    )


def english_pieces(sources: tuple[str, ...] | None = None) -> set[str]:
    """The English wording of every template the catalogue translates (the text between
    its fields, at least two words), where the translation does not say the same: none
    may appear in what a German reader is shown. Only translated templates count, so the
    check grows with the catalogue. ``sources``: only templates of these files; the
    /rules text is left out (it is never posted)."""
    pieces: set[str] = set()
    for message in translated():
        paths = [path for path, _ in message.locations]
        if all(path.startswith("cogs/helpers/rules_text.py") for path in paths):
            continue
        if sources is not None and not any(path.startswith(sources) for path in paths):
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        german = "\n".join(strings)
        for template in ids:
            for piece in re.split(r"\{[^{}]*\}|\*\*|`|\n", template):
                piece = piece.strip(" .,:;!?()·•—")
                if len(piece) >= 12 and " " in piece and piece not in german:
                    pieces.add(piece)
    return pieces


def english_in(texts: list[str], pieces: set[str]) -> list[tuple[str, str]]:
    return [(piece, text[:200]) for text in texts for piece in pieces if piece in text]


def english_leaks(fake: FakeDiscord, thread: Any, users: list[FakeUser]) -> list[Any]:
    """Translated templates shown in English to the German readers: in every post and
    private message once the engine's Tonttu lines are translated too; until then in
    this cog's own text (the statuses and their buttons, the private panels' words),
    where no untranslated engine line can hold a piece of a translated template."""
    if engine_lines_translated():
        pieces = english_pieces()
        private = [t for u in users for t in fake.texts_seen_by(u)]
        return english_in(fake.public_texts() + private, pieces)
    pieces = english_pieces(("cogs/tonttu/",))
    statuses = [
        m
        for m in fake.messages(thread)
        if any(b["custom_id"].startswith(("ttp:", "ttr:")) for b in m.buttons())
    ]
    own = [m.content.rsplit("\n\n", 1)[-1] for m in statuses]  # below the reveal
    own += [b["label"] for m in statuses for b in m.buttons()]
    own += [m.content for u in users for m in (*fake.dm_messages(u), *fake.ephemeral_messages(u))]
    return english_in(own, pieces)


def thread_of(fake: FakeDiscord) -> Any:
    return fake.threads(fake.channel)[-1]


async def open_game(
    fake: FakeDiscord, host: FakeUser, others: list[FakeUser], **options: Any
) -> Any:
    """/newgame game:tonttu; everyone joins, the host starts (buttons by custom id: their
    labels are in the server's language)."""
    result = await fake.slash(host, fake.channel, "newgame", game="tonttu", **options)
    lobby = result.message
    assert lobby is not None

    def button(verb: str) -> str:
        return str(next(b["custom_id"] for b in lobby.buttons() if b["custom_id"].endswith(verb)))

    for user in others:
        await fake.click(user, lobby, button(":join"))
    await fake.click(host, lobby, button(":start"))
    return thread_of(fake)


def status_of(fake: FakeDiscord, thread: Any) -> FakeMessage:
    """The current phase's status message (it carries the phase's buttons)."""
    found = [
        m
        for m in fake.messages(thread)
        if any(b["custom_id"].startswith(("ttp:", "ttr:")) for b in m.buttons())
        and not m.content.startswith(("Reminder", "Erinnerung"))
    ]
    assert found, "no status message with buttons in the thread"
    return found[-1]


async def choose_privately(
    fake: FakeDiscord, user: FakeUser, thread: Any, state: Any, action: Any
) -> tuple[FakeMessage, str, InteractionResult]:
    """The thread's "choose privately" button, then the ephemeral panel's select; the
    panel, and what it said before the choice."""
    status = status_of(fake, thread)
    button = next(b for b in status.buttons() if b["custom_id"].startswith(PRIVATELY))
    opened = await fake.click(user, status, button["custom_id"])
    assert opened.ephemeral and opened.message is not None, opened.text
    said = opened.message.content
    return opened.message, said, await select_in(fake, user, opened.message, state, action)


def german_confirmation(state: Any, player: str, action: Any) -> str:
    """What the chooser is told, in German (as ``tonttu_helpers.confirmation_of``)."""
    after, _ = GAME.apply(state, player, action)
    label = GAME.describe_action(after, player, action)
    return confirmation(label, action, DE)


async def test_a_tactical_game_in_a_german_server(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.guild.locale = "de"
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    pictures = BoardPictures(monkeypatch, bot)
    names = ("anna", "ben", "clara", "dirk")
    users = [fake.add_user(n, locale="de", dms_open=n != "dirk") for n in names]
    by_player = {str(user.id): user for user in users}
    thread = await open_game(fake, users[0], users[1:])
    status = status_of(fake, thread)
    assert "**Runde 1 · Auswahl** (Handrunde 1 von 4, Hände gehen nach links)" in status.content
    assert "Wählt verdeckt eine Karte aus eurer Hand" in status.content
    assert "Ich konnte dirk keine DM schicken: Bitte drückt **Privat wählen**" in status.content
    assert [b["label"] for b in status.buttons()] == ["Privat wählen"]

    state = GAME.new_game(list(by_player), SEED, GAME.parse_options({"mode": "tactical"}))
    rng = Rng(7)
    fake.settle_after_interaction = False
    phases = 0
    while GAME.outcome(state) is None:
        status = status_of(fake, thread)
        assert f"**Runde {state.round} · " in status.content
        assert "Gewählt: noch niemand" in status.content
        acting = sorted(GAME.to_act(state), key=state.players.index)
        for n, player in enumerate(acting):
            user = by_player[player]
            legal = GAME.legal_actions(state, player)
            action = legal[rng.below(len(legal))]
            confirmed = german_confirmation(state, player, action)
            if user.dms_open:
                panel = [
                    m for m in fake.dm_messages(user) if choice_select(m, state.round, state.phase)
                ]
                if panel:  # the phase's DM (else the panel chosen on last is edited)
                    ask = (
                        "Wähle eine Karte aus deiner Hand"
                        if state.phase == "pick"
                        else "Zeige auf eine Karte in der Tischmitte"
                    )
                    assert ask in panel[-1].content, panel[-1].content
                    assert f"Runde {state.round}" in panel[-1].content
                result = await choose_by_dm(fake, user, state, action)
            else:
                _panel, said, result = await choose_privately(fake, user, thread, state, action)
                assert f"**Werkstatt-Tonttu · Spiel #1** · Runde {state.round}" in said
            assert result.callback_type == 7 and confirmed in result.content, result.content
            if action.kind == "pick":
                assert f"Du hast {DE.gettext(action.material)} gewählt." in result.content
            if n < len(acting) - 1:
                assert "Du kannst das ändern, bis alle gewählt haben." in result.content
            else:
                assert "Alle haben gewählt: Aufgedeckt wird im Thread." in result.content
            state, _events = GAME.apply(state, player, action)
        await fake.settle()
        phases += 1
    assert phases > 10

    outcome = GAME.outcome(state)
    assert outcome is not None
    final = next(
        m for m in fake.messages(thread) if "chart.png" in [a["filename"] for a in m.attachments]
    )
    shown = {
        name: int(points)
        for name, points in re.findall(r"(\w+): (\d+) ", final.text())
        if name in names
    }
    assert shown == {by_player[p].name: score for p, score in outcome.scores.items()}
    # Nothing a German reader was shown has a translated template in English: the thread
    # (status, reveals, final scores) and each player's DMs and private panels.
    assert english_leaks(fake, thread, users) == []
    assert "Chosen:" not in "\n".join(fake.public_texts())
    assert len(pictures.languages) > 10 and set(pictures.languages) == {"de"}  # the board's

    # /stats, /leaderboard and /history in the asker's language
    anna = users[0]
    stats = await fake.slash(anna, fake.channel, "stats")
    assert stats.ephemeral and "Statistik von anna" in stats.text
    assert "Spiele 1 · Siege " in stats.text and "Wertungszahl " in stats.text
    assert "Gezählt: Spiele in Kanälen, die du sehen kannst." in stats.text
    board = await fake.slash(anna, fake.channel, "leaderboard")
    assert "Noch niemand hat 3 beendete Spiele in Kanälen gespielt" in board.text
    history = await fake.slash(anna, fake.channel, "history")
    assert history.ephemeral and "Werkstatt-Tonttu · Spiel #1 · Sieger: " in history.text
    assert "Wähle unten ein Spiel, um seinen Endstand zu sehen" in history.text
    english = fake.add_user("eve")  # the same server, an English client: English answers
    none = await fake.slash(english, fake.channel, "stats")
    assert "You have no finished games on this server in channels you can see." in none.text
    assert "Pick a game below" in (await fake.slash(english, fake.channel, "history")).text


async def test_a_speed_game_in_a_german_server(fake: FakeDiscord, tmp_path: Path) -> None:
    fake.guild.locale = "de"
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=3))
    users = [fake.add_user(n, locale="de") for n in ("anna", "ben", "clara")]
    by_player = {str(user.id): user for user in users}
    thread = await open_game(fake, users[0], users[1:], mode="speed", speed_seconds=15)
    races = won = late = 0
    while (game := await bot.store.find_open(fake.channel.id)) is not None:
        state = game.state
        if state.phase == "pick":
            for player in sorted(GAME.to_act(state), key=state.players.index):
                action = GAME.legal_actions(state, player)[0]
                result = await choose_by_dm(fake, by_player[player], state, action)
                assert f"Du hast {DE.gettext(action.material)} gewählt." in result.content
            continue
        race = status_of(fake, thread)
        assert f"**Runde {state.round} · Tempo-Rennen**" in race.content
        assert "Klicke auf eine Karte, um auf sie zu zeigen" in race.content
        for dm in fake.dm_messages(users[0])[-1:]:
            if choice_select(dm, state.round, "pick") is None and "Tempo-Rennen" in dm.content:
                assert "Es ist ein Rennen" in dm.content
        races += 1
        # everyone clicks the race's first card: one gets it, the others are too late
        for user in users:
            race = status_of(fake, thread)
            buttons = [b["custom_id"] for b in race.buttons() if b["custom_id"].startswith("ttr:")]
            if not buttons or f"ttr:{game.id}:{state.round}:" not in buttons[0]:
                break
            result = await fake.click(user, race, buttons[0])
            assert result.ephemeral, result.text
            if result.content.startswith("Du hast gezeigt."):
                won += 1
            elif result.content.startswith("Zu spät:"):
                late += 1
            else:  # a point at a gift one cannot pay: the engine's line, in German
                assert not result.content.startswith(("You pointed", "Too late")), result.content
            current = await bot.store.find_open(fake.channel.id)
            if current is None or current.state.round != state.round:
                break
    assert races > 0 and won > 0
    assert english_leaks(fake, thread, users) == []


async def test_a_german_player_in_an_english_server(fake: FakeDiscord, tmp_path: Path) -> None:
    await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    greta = fake.add_user("greta", locale="de", dms_open=False)
    jonas = fake.add_user("jonas", locale="de")
    users = [alice, bob, greta, jonas]
    by_player = {str(user.id): user for user in users}
    thread = await open_game(fake, alice, [bob, greta, jonas])
    status = status_of(fake, thread)
    assert "**Round 1 · pick** (hand round 1 of 4, hands pass left)" in status.content
    assert "I could not send a DM to greta" in status.content
    state = GAME.new_game(list(by_player), SEED, GAME.parse_options({"mode": "tactical"}))
    for _ in range(2):  # the pick and the point of round 1
        for player in sorted(GAME.to_act(state), key=state.players.index):
            user = by_player[player]
            action = GAME.legal_actions(state, player)[0]
            if user is greta:  # no DMs: the thread's button, then her own panel
                panel, said, result = await choose_privately(fake, user, thread, state, action)
                assert "**Werkstatt-Tonttu · Spiel #1** · Runde" in said
                assert panel.selects()[0]["placeholder"].startswith("Wähle")
            else:
                result = await choose_by_dm(fake, user, state, action)
            if user in (greta, jonas):
                assert german_confirmation(state, player, action) in result.content
            else:
                assert result.content.startswith(("You picked", "You pointed at"))
            state, _events = GAME.apply(state, player, action)
        await fake.settle()
    # every version of their private messages: the pick's and the point's panels
    seen_by_jonas = "\n".join(fake.texts_seen_by(jonas))
    assert "Wähle eine Karte aus deiner Hand" in seen_by_jonas
    assert "Zeige auf eine Karte in der Tischmitte" in seen_by_jonas
    seen_by_alice = "\n".join(fake.texts_seen_by(alice))
    assert "Pick one card from your hand" in seen_by_alice
    assert "Point at one middle card" in seen_by_alice
    assert "Wähle eine Karte" not in seen_by_alice and "Zeige auf" not in seen_by_alice
    # the thread stays English: no German sentence of the catalogue in it
    public = "\n".join(fake.public_texts())
    assert "Chosen: " in public and "Gewählt" not in public and "Privat wählen" not in public
