"""The rule errors: a move the rules do not allow, as a sentence for the player (in
their language) that also names its input (the action, the player, the version, the
game) for the log."""

from __future__ import annotations

from typing import (
    Any,
    Self,
)

from engine.models import PlayerId
from engine.words import Term, Words

# --------------------------------------------------------------------------- errors


_UNNAMED: Any = object()
"""No action named (``None`` is an action a caller may hand over)."""
_INPUTS = ("action", "player", "version", "game_id")


class RuleError(ValueError):
    """A move the rules do not allow. ``str(error)`` is a sentence fit to show the player.

    Raised with a template and its fields (``IllegalAction("You have no {material}.",
    material="Wool")``), so the sentence can be shown in the player's language:
    :meth:`text`. ``str(error)`` is the English sentence.

    The error also names its input, for logs and developers (as python-chess's
    ``illegal san: 'Nf3' in <position>`` does): :attr:`action` and :attr:`player`, which
    the games' ``apply``, :func:`check_action` and :func:`check_can_act` fill in, and
    :attr:`version` and :attr:`game_id`, which storage fills in for a submitted action
    (:meth:`naming`). ``repr(error)`` and :attr:`detail` say them; the sentence does
    not (a player is told what is wrong, not shown the action's fields).

    >>> error = IllegalAction("It is not your turn.").naming(action=None, player="p2")
    >>> str(error)
    'It is not your turn.'
    >>> error.detail
    "action None by player 'p2': It is not your turn."
    >>> error.naming(version=7, game_id=12)
    IllegalAction('It is not your turn.', action=None, player='p2', version=7, game_id=12)
    """

    def __init__(self, template: str = "", /, **fields: Any) -> None:
        self.template = template
        self.fields = fields
        self.inputs: dict[str, Any] = {}
        """What the error refused, by name (``action``, ``player``, ``version``,
        ``game_id``), in that order; only what is known."""
        super().__init__(template.format(**fields) if fields else template)

    def naming(
        self,
        *,
        action: Any = _UNNAMED,
        player: PlayerId | None = None,
        version: int | None = None,
        game_id: int | None = None,
    ) -> Self:
        """Name the input this error refused; returns the error (``raise
        IllegalAction(...).naming(action=action)``). What is named already stays: the
        innermost caller names it first, as it was handed over."""
        inputs = self.inputs
        if action is not _UNNAMED:
            inputs.setdefault("action", action)
        if player is not None:
            inputs.setdefault("player", player)
        if version is not None:
            inputs.setdefault("version", version)
        if game_id is not None:
            inputs.setdefault("game_id", game_id)
        # in the order of a sentence: action, player, version, game
        self.inputs = {name: inputs[name] for name in _INPUTS if name in inputs}
        return self

    @property
    def action(self) -> Any:
        """The refused action as it was handed over (a model, a dict, JSON text,
        ``None`` …), or ``None`` if not named."""
        return self.inputs.get("action")

    @property
    def player(self) -> PlayerId | None:
        """Who tried to act, if named."""
        player: PlayerId | None = self.inputs.get("player")
        return player

    @property
    def version(self) -> int | None:
        """The game's version the action was judged at (storage names it)."""
        version: int | None = self.inputs.get("version")
        return version

    @property
    def game_id(self) -> int | None:
        """The stored game's id (storage names it)."""
        game_id: int | None = self.inputs.get("game_id")
        return game_id

    @property
    def detail(self) -> str:
        """The English sentence after the input it refused, for a log line: "action
        PlaceElf(...) by player 'p2' at version 7 of game #12: It is not your turn."."""
        inputs = self.inputs
        parts = []
        if "action" in inputs:
            parts.append(f"action {_short_repr(inputs['action'])}")
        if "player" in inputs:
            parts.append(f"{'by player' if parts else 'player'} {inputs['player']!r}")
        if "version" in inputs:
            parts.append(f"at version {inputs['version']}")
        if "game_id" in inputs:
            parts.append(f"{'of game' if parts else 'game'} #{inputs['game_id']}")
        return f"{' '.join(parts)}: {self}" if parts else str(self)

    def __repr__(self) -> str:
        named = "".join(f", {name}={_short_repr(value)}" for name, value in self.inputs.items())
        return f"{type(self).__name__}({str(self)!r}{named})"

    def text(self, words: Words) -> str:
        r"""The sentence in ``words``' language; fields that are :class:`Term`\ s (game
        words such as a material's name) are translated too, names and numbers not."""
        fields = {k: words.gettext(v) if isinstance(v, Term) else v for k, v in self.fields.items()}
        template = words.gettext(self.template) if self.template else ""
        return template.format(**fields) if fields else template


def _short_repr(value: Any, limit: int = 300) -> str:
    """``repr(value)``, cut to ``limit`` characters (junk handed over as an action may be long)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class NotInGame(RuleError):
    """The acting user holds no seat in this game."""


class NotYourTurn(RuleError):
    """The player holds a seat but is not one of those who must act now."""


class IllegalAction(RuleError):
    """The action is not one of the legal actions at this decision point."""


class GameOver(RuleError):
    """The game has ended; nothing more can be applied."""


class InvalidSetup(RuleError):
    """Wrong number of players, duplicate players, or bad options."""
