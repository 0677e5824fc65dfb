"""The table's embeds and texts in English and in German."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import i18n
from cogs.helpers.render import final_embed, lobby_embed, title_of
from storage import GameInfo
from storage.models import Seat

DE = i18n.words("de")
NOW = datetime(2026, 12, 1, tzinfo=UTC)


def info(**changes: Any) -> GameInfo:
    fields: dict[str, Any] = {
        "id": 7,
        "guild_id": 1,
        "channel_id": 2,
        "thread_id": None,
        "host_id": 3,
        "kind": "workshop",
        "options": {},
        "seed": 1,
        "status": "lobby",
        "version": 0,
        "seats": (Seat("3", "Aino", 3), Seat("ai:1", "AI 1", None, "strong")),
        "messages": {},
        "shown_versions": {},
        "settings": {},
        "result": None,
        "created_at": NOW,
        "updated_at": NOW,
        "started_at": None,
        "finished_at": None,
    }
    return GameInfo(**{**fields, **changes})


def text(embed: Any) -> str:
    data = embed.to_dict()
    parts = [data.get("title", ""), data.get("description", "")]
    parts += [f"{f['name']} = {f['value']}" for f in data.get("fields", [])]
    parts.append(data.get("footer", {}).get("text", ""))
    return "\n".join(parts)


def test_the_title_in_both_languages() -> None:
    assert title_of(info()) == "Santa's Workshop · game #7"
    assert title_of(info(), DE) == "Santas Werkstatt · Spiel #7"
    assert title_of(info(kind="tonttu"), DE) == "Werkstatt-Tonttu · Spiel #7"


def test_the_lobby_in_english_is_unchanged() -> None:
    shown = text(lobby_embed(info(kind="tonttu", options={"mode": "speed"})))
    assert shown.splitlines()[0] == "Workshop Tonttu: lobby (game #7)"
    assert "Host: <@3>\n" in shown and "Options: mode: speed" in shown
    assert "Seats (2/" in shown and "1. Aino\n2. AI 1 (computer, hard)" in shown
    assert shown.endswith("Press Join to take a seat. The host starts the game.")


def test_the_lobby_in_german() -> None:
    shown = text(lobby_embed(info(kind="tonttu", options={"mode": "speed"}), DE))
    assert shown.splitlines()[0] == "Werkstatt-Tonttu: Lobby (Spiel #7)"
    assert "Gastgeber: <@3>\n" in shown and "Optionen: Modus: Tempo" in shown
    assert "Plätze (2/" in shown and "1. Aino\n2. AI 1 (Computer, schwer)" in shown
    assert shown.endswith(
        "Klicke auf „Beitreten“, um Platz zu nehmen. Der Gastgeber startet das Spiel."
    )
    assert text(lobby_embed(info(status="abandoned"), DE)).endswith("Dieses Spiel wurde abgesagt.")


def finished(scores: dict[str, int], winners: list[str]) -> GameInfo:
    players = {p: {"breakdown": {"toy": points, "reindeer": 0}} for p, points in scores.items()}
    result = {"scores": scores, "winners": winners, "players": players}
    return info(status="finished", result=result, seats=(Seat("a", "Aino", 1), Seat("b", "Bo", 2)))


def test_final_scores_with_plurals_in_both_languages() -> None:
    game = finished({"a": 1, "b": 2}, ["b"])
    english, german = text(final_embed(game)), text(final_embed(game, DE))
    assert english.startswith("Santa's Workshop · game #7: final scores\nWinner: **Bo**")
    assert "Bo: 2 points = toys 2" in english and "Aino: 1 point = toys 1" in english
    assert german.startswith("Santas Werkstatt · Spiel #7: Endwertung\nSieger: **Bo**")
    assert "Bo: 2 Punkte = Spielzeuge 2" in german and "Aino: 1 Punkt = Spielzeuge 1" in german
    tie = finished({"a": 2, "b": 2}, ["a", "b"])
    assert "Winners: **Aino** and **Bo**" in text(final_embed(tie))
    assert "Sieger: **Aino** und **Bo**" in text(final_embed(tie, DE))


def test_a_view_is_built_once_per_state_and_viewer_and_never_for_another_state() -> None:
    """``view_of`` lets the panel, its suggestion, the board's summary and its picture
    share one view; a game whose state object is another (a different version's, or
    read afresh) gets its own view, never the one kept for the older object."""
    from engine import get_game
    from storage.core import loaded
    from tables.service import view_of

    rules = get_game("workshop")
    seats = (Seat("3", "Aino", 3), Seat("4", "Bo", 4))
    state = rules.new_game(["3", "4"], 5, rules.parse_options({}))
    game = loaded(info(status="active", seats=seats, version=1), state)
    first = view_of(game, "3")
    assert view_of(game, "3") is first
    assert first == rules.view(state, "3")
    assert view_of(game, None) == rules.view(state, None) != first  # other viewer
    (player,) = rules.to_act(state)
    after, _ = rules.apply(state, player, rules.legal_actions(state, player)[0])
    # the same id and version with another state object (never kept): its own view
    other = loaded(info(status="active", seats=seats, version=1), after)
    assert view_of(other, "3") == rules.view(after, "3") != first
