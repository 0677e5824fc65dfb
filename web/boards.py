"""A table's board as HTML, for both games, drawn from the engine's view of one reader.

The page shows what the board picture shows (``render/workshop.py``, ``render/tonttu.py``)
as text a person can read, select and hear. What comes in is the engine's view for one
reader, with every secret that reader may not see already stripped (W-7, T-6): the
spectator's view (``GAME.view(state, None)``, the live page and the replay, which anyone
may open), or, for the Discord Activity, a seat's own view (``GAME.view(state, player)``
with ``viewer=player``): its own Tonttu hand and face-down card, the hands it held
earlier in the deal, its own reindeer names. A player's view is refused unless the
caller names that player as the viewer, so no page shows a seat's secrets by mistake.

Every element that stands for a place a choice can point at carries
``data-target="<target id>"`` (the ids of ``engine/choices.py``), legal now or not: the
shared board's on every board, a seat's own toys, tree spaces and hand cards on that
seat's board only. A front end makes the legal ones clickable (class ``clickable``,
``web/static/board.css``). The cards a Tonttu reveal turned up at this version (given
by the move's events) carry the class ``revealed``, which the style sheet animates.

The boards turn the view into plain values with the game words already in the
reader's language (translated through the pictures' own tables, so the same English
word has the same translation), and the templates (``web/templates/*_board.html``)
lay them out with their labels. Nothing here writes HTML: the templates do, autoescaped,
so a player's display name is always text. Seats look as on the pictures: each has the
colour, the shape and the number of ``render/canvas.py``'s tokens (``seat-0`` … ``seat-5``
in ``web/static/board.css``).

This module holds the entries (:func:`board_html`, :func:`status_html`,
:func:`decision_text`, :func:`plain_text`); each game's board is a module of its own
(``web/boards_workshop.py``, ``web/boards_tonttu.py``), and the seats they share are
``web/boards_seats.py``'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html.parser import HTMLParser
from typing import Any

from markupsafe import Markup

from engine.core import PlayerId
from engine.tonttu.models import TonttuView
from engine.words import Words
from engine.workshop.models import WorkshopView
from web.boards_seats import seats_of
from web.boards_tonttu import Revealed, revealed_by, tonttu_board, tonttu_phase
from web.boards_workshop import workshop_board, workshop_doing
from web.templating import render


def _viewer_only(view: Any, viewer: PlayerId | None) -> None:
    """A player's own view only for that player: it holds their secrets."""
    if getattr(view, "viewer", None) != viewer:
        raise ValueError(
            "A web board shows the spectator's view (view(state, None)), or a player's own"
            " view (view(state, player)) with viewer=player."
        )


def _line(template: str, words: Words, **context: Any) -> Markup:
    """A template that makes one line, without the blank lines around it."""
    return Markup(str(render(template, words, **context)).strip())


# --------------------------------------------------------------------------- the two entries


def board_html(
    kind: str,
    view: Any,
    names: Mapping[PlayerId, str],
    words: Words,
    *,
    viewer: PlayerId | None = None,
    events: Sequence[Any] = (),
) -> Markup:
    """The board of a ``"workshop"`` or ``"tonttu"`` table as HTML, from the view of
    ``viewer``: ``GAME.view(state, viewer)``, the spectator's (``None``) unless a seat
    is named; labels in the language of ``words``. ``events``: the events of the move
    that made this version (``engine.undo.parse_events_json`` of its log entry), so the
    cards a Tonttu reveal turned up carry the class ``revealed``; none, nothing does.

    Raises ``ValueError`` for a view that is not ``viewer``'s (a player's view holds
    their secrets) and for an unknown kind."""
    _viewer_only(view, viewer)
    if kind == "workshop" and isinstance(view, WorkshopView):
        return workshop_board(view, names, words)
    if kind == "tonttu" and isinstance(view, TonttuView):
        return tonttu_board(view, names, words, revealed_by(events))
    raise ValueError(f"No board for the game {kind!r} and a {type(view).__name__}.")


def status_html(
    kind: str,
    view: Any,
    names: Mapping[PlayerId, str],
    words: Words,
    *,
    viewer: PlayerId | None = None,
) -> Markup:
    """One line: who must act and what they decide ("To act: Esperanza to take donated
    tokens"; Workshop Tonttu: the phase, who has chosen and who is still choosing), as
    the picture's header says it; "Game over" once the game has ended. ``viewer``: as
    for :func:`board_html` (the line says nothing secret either way)."""
    _viewer_only(view, viewer)
    if kind == "workshop" and isinstance(view, WorkshopView):
        seats = seats_of([p.player for p in view.players], names)
        acting = None if view.over or view.pending.player is None else view.pending.player
        return _line(
            "board_status.html",
            words,
            kind=kind,
            over=view.over,
            actor=None if acting is None else seats.get(acting),
            doing="" if acting is None else workshop_doing(view, words),
        )
    if kind == "tonttu" and isinstance(view, TonttuView):
        seats = seats_of([s.player for s in view.seats], names)
        over = view.phase == "over"
        return _line(
            "board_status.html",
            words,
            kind=kind,
            over=over,
            phase=tonttu_phase(view, words),
            chosen=tuple(seats[s.player] for s in view.seats if s.chosen and not over),
            waiting=tuple(
                seats[s.player] for s in view.seats if s.to_act and not s.chosen and not over
            ),
        )
    raise ValueError(f"No status for the game {kind!r} and a {type(view).__name__}.")


def decision_text(kind: str, view: Any, words: Words) -> str:
    """What the table decides now, in words: the Workshop's pending decision (with the
    tokens or the ornament in hand), Tonttu's phase sentence; as :func:`status_html`
    says it, without who."""
    if kind == "workshop" and isinstance(view, WorkshopView):
        return workshop_doing(view, words)
    if kind == "tonttu" and isinstance(view, TonttuView):
        return tonttu_phase(view, words)
    raise ValueError(f"No decision for the game {kind!r} and a {type(view).__name__}.")


class _Text(HTMLParser):
    """The text a reader meets in some markup: what ``aria-hidden`` hides (the seats'
    shapes and numbers) left out, runs of white space made one."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0  # depth inside an aria-hidden element

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.hidden or ("aria-hidden", "true") in attrs:
            self.hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if self.hidden:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def plain_text(markup: Markup) -> str:
    """``markup`` (from these templates: every element closed) as a screen reader says it."""
    reader = _Text()
    reader.feed(str(markup))
    reader.close()
    return " ".join("".join(reader.parts).split())


__all__ = [
    "Revealed",
    "board_html",
    "decision_text",
    "plain_text",
    "revealed_by",
    "status_html",
]
