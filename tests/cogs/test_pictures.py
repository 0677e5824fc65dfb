"""The text around a picture (cogs/helpers/render.py): the board's footer, the private
picture's alt text and the chart's title and alt text, in the table's language
(English unchanged)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import i18n
from cogs.helpers.render import board_picture, chart_picture, private_picture
from storage import LoadedGame
from storage.models import Seat
from tables import drawing
from tests.render.states import POSITIONS, names

GERMAN = i18n.words("de")


def loaded(key: str, **changes: Any) -> LoadedGame:
    game, state = POSITIONS[key]()
    table = names(len(state.players))
    now = datetime(2026, 12, 1, tzinfo=UTC)
    fields: dict[str, Any] = {
        "id": 7,
        "guild_id": 1,
        "channel_id": 2,
        "thread_id": 3,
        "host_id": 4,
        "kind": game.name,
        "options": {},
        "seed": 7,
        "status": "active",
        "version": 12,
        "seats": tuple(Seat(p, table[p], 100 + k) for k, p in enumerate(state.players)),
        "messages": {},
        "shown_versions": {},
        "settings": {},
        "result": None,
        "created_at": now,
        "updated_at": now,
        "started_at": now,
        "finished_at": None,
        "state": state,
    }
    fields.update(changes)
    return LoadedGame(**fields)


def test_the_board_footer_in_german_and_in_english() -> None:
    game = loaded("workshop-2p-mid")
    embed, _ = board_picture(game, b"png")
    assert embed.footer.text == "Move 12 · /board text:true shows the board as text"
    embed, _ = board_picture(game, b"png", GERMAN)
    assert embed.footer.text == "Zug 12 · /board text:true zeigt den Spielplan als Text"


def test_the_chart_title_and_alt_text_by_game_and_language() -> None:
    result = {"scores": {"p1": 30, "p2": 25}}
    workshop = loaded("workshop-2p-end", status="finished", result=result)
    embed, file = chart_picture(workshop, b"png")
    assert embed.title == "How the game went: score after each day"
    assert file.description == (
        "Score after each day, and the final score by reason: Aino 30, Bertil 25"
    )
    embed, file = chart_picture(workshop, b"png", GERMAN)
    assert embed.title == "So lief das Spiel: Punktestand nach jedem Tag"
    assert file.description == (
        "Punktestand nach jedem Tag und Endwertung nach Herkunft: Aino 30, Bertil 25"
    )
    tonttu = loaded("tonttu-3p-pick", status="finished", result=result)
    embed, _ = chart_picture(tonttu, b"png", GERMAN)
    assert embed.title == "So lief das Spiel: Punktestand nach jeder Runde"  # "jeder Runde"
    embed, _ = chart_picture(tonttu, b"png")
    assert embed.title == "How the game went: score after each round"


async def test_the_private_picture_is_drawn_and_described_in_the_players_language(
    monkeypatch: Any,
) -> None:
    asked: list[str] = []

    async def draw(renderer: Any, view: Any, table: Any, lang: str = "en") -> bytes:
        asked.append(lang)
        return b"png"

    monkeypatch.setattr(drawing, "draw", draw)
    game = loaded("workshop-2p-mid")
    _, file = await private_picture(game, "p1", "de")
    assert asked == ["de"] and file.description == "Dein eigener Bereich"
    _, file = await private_picture(game, "p1")
    assert asked == ["de", "en"] and file.description == "Your own area"
