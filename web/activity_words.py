"""What the Discord Activity says and draws for one user (``web/activity.py`` answers
the requests): its sentences, the board as their seat sees it, the prompt of a page
with nothing to choose, the label of a choice as the panel shows it."""

from __future__ import annotations

from typing import Any

import i18n
from engine.words import N_, Words, listed
from storage import LoadedGame, LoggedAction, human_player
from tables.service import choices_for, engine_of
from web.boards import board_html, decision_text, plain_text, status_html
from web.page import unseen_events

NO_SESSION = N_("Your sign-in to the Activity has ended; close the Activity and open it again.")
NO_GAME = N_("There is no game in this channel. Start one with /newgame, then open the Activity.")
OFF = N_("The Activity is not set up on this bot.")
REFUSED = N_("Discord did not accept the sign-in; close the Activity and open it again.")
AWAY = N_("Discord cannot be reached just now; try again in a moment.")
MALFORMED = N_("That request is not one the Activity sends; reload it.")
NOT_STARTED = N_("The game has not started yet.")
NOT_THERE = N_(
    "This Activity is not running in a channel you are in; start it from the game's channel."
)
TOO_MANY = N_("Too many requests at once: wait a second, then try again.")
"""The API's sentences (in the user's language, English before the sign-in)."""


def viewer_html(
    game: LoadedGame, viewer: str | None, lang: str, log: list[LoggedAction], shown: int | None
) -> str:
    """The board as ``viewer`` (a seat, or ``None``: a spectator) sees it, in ``lang``,
    the cards turned up since the version ``shown`` (the page's) marked (``log``: the
    latest entries, ``web.page.unseen_events``); pure CPU, run in the drawing process
    like the live pages'."""
    words = i18n.words(lang)
    rules = engine_of(game)
    events = unseen_events(game.kind, log, game.version, shown)
    view = rules.view(game.state, viewer)
    return str(board_html(game.kind, view, game.names, words, viewer=viewer, events=events))


def watching(game: LoadedGame, public: Any, words: Words) -> str:
    """The prompt of a page whose player has nothing to choose: who acts and what they
    decide, as the board's status line says it."""
    if game.kind == "workshop":
        return plain_text(status_html(game.kind, public, game.names, words))
    waiting = sorted(engine_of(game).to_act(game.state), key=game.players.index)
    names = listed([game.names.get(p, p) for p in waiting], words)
    wait = words.gettext("Waiting for {names}.").format(names=names)
    return f"{decision_text(game.kind, public, words)} · {wait}"


def over(game: LoadedGame, words: Words) -> str:
    """The prompt at the end: the game is over, and who won."""
    winners = list((game.result or {}).get("winners", []))
    if not winners:
        return words.gettext("This game is over.")
    names = listed([game.names.get(w, w) for w in winners], words)
    won = words.ngettext("Winner: {names}", "Winners: {names}", len(winners))
    return f"{words.gettext('This game is over.')} {won.format(names=names)}"


def choice_label(game: LoadedGame, user_id: int, index: int, words: Words) -> str:
    """The label of choice ``index`` of the user, as the panel would show it (``""``
    if there is none: the choice is refused anyway)."""
    player = human_player(user_id)
    if game.status != "active" or game.seat_of(player) is None:
        return ""
    choices = choices_for(game, player, words)
    return choices[index].label if 0 <= index < len(choices) else ""
