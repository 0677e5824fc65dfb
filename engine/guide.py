"""How to play, on one screen: a legend for the current game and phase.

    legend(game_kind: str, view: WorkshopView | TonttuView | None, words: Words = ENGLISH) -> str

``game_kind`` is the game's name (``"workshop"`` or ``"tonttu"``, ``Game.name``);
``view`` is what the reader sees now (``GAME.view(state, player)``, a spectator's view
with ``None`` as player, or ``None`` for the legend without a position); ``words`` the
reader's translator. The answer is plain text of short lines (at most about 72
characters in English, no markup), in three parts: what is happening now (the phase or
the pending decision, and what it means for the reader), how to read the symbols the
boards use (the terminal's text board, Discord's panels, the pictures), and how the game
is scored. Every front end shows the same words: the terminal's ``help``/``?``, the
Discord panel's and the Tonttu DM's **How to play** button.

    first_time(game_kind: str, view: WorkshopView | TonttuView | None, words: Words) -> str

``first_time`` is the one sentence a player needs when they meet a decision for the
first time (their first reindeer, the day that ends with an Inspection, the last day,
Tonttu's first pick and first point), "" otherwise; the front ends put it above the
player's choices. It is known from the view alone (the reader's reindeer count, the
day and their Elves left, the round), so it is the same on every front end and in a
replay. The log's first Inspection and Tonttu's first reveal and end of round explain
themselves in their own lines (``engine.workshop.text``, ``engine.tonttu.text``).

Pure: it reads the view only (never a secret the reader may not see) and each line is
one template of its own, translated by ``words``.
"""

from __future__ import annotations

from typing import Any

from engine.words import ENGLISH, N_, Words

TITLE = {
    "workshop": N_("How to play Santa's Workshop"),
    "tonttu": N_("How to play Workshop Tonttu"),
}

# ------------------------------------------------------------------ Santa's Workshop

WORKSHOP_NOW: dict[str, str] = {
    "station": N_(
        "Now: place an Elf on a free station space. Each choice says what it\n"
        "gives now (less than printed when the supply has run out)."
    ),
    "mail": N_(
        "Now: take toy cards one at a time, from a slot or the deck (unseen).\n"
        "You may hold at most 5 unfinished toys."
    ),
    "reindeer": N_(
        "Now: take a reindeer. At the end, different names score more:\n"
        "1, 3, 6, 9, 12, 16… points for 1, 2, 3, 4, 5, 6… names; a second copy\n"
        "of a name adds only 2. Only you see the names of your reindeer."
    ),
    "choose_material": N_("Now: name the Material of choice you receive: Wood, Metal or Fabric."),
    "place_tokens": N_(
        "Now: put each token you received on an unfinished toy that needs it,\n"
        "or donate it for 1 point each (it goes to the Donation Center)."
    ),
    "ornament": N_(
        "Now: choose an ornament by its colour; its reward is hidden until\n"
        "you take it. Then you cover a space of your tree and get its reward."
    ),
    "tree_space": N_(
        "Now: cover a space of your tree with the ornament; you get the\n"
        "space's reward (the star 3 points, 2 points, or 1 token)."
    ),
    "donation": N_(
        "Now: take donated tokens your toys still need, one at a time, onto\n"
        "the toy; taking scores nothing."
    ),
}

WORKSHOP_LINES = (
    N_(
        "The game: 6 days (December 19 to 24). Each day every player places\n"
        "3 Elves, one at a time, the first player (*) first."
    ),
    N_(
        "Stations: the Shops and the Assembly Hall give 2, 3, 4, 5 tokens by\n"
        "space, and each Elf already there scores its owner 1 (cooperation).\n"
        "Mail Room: toy cards. Stables: a reindeer + Materials of choice.\n"
        "Christmas Tree: an ornament. Donation Center: donated tokens."
    ),
    N_(
        "Tokens: W Wood, M Metal, F Fabric, A Assembly. A toy's W1/2 means\n"
        "1 Wood placed of 2 needed. A token you receive goes on a toy at once\n"
        "or is donated (+1 point). The supply has 24 of each."
    ),
    N_(
        "A toy scores its points when its last token is placed; it then waits\n"
        "beside your mat (completed) until the next Inspection."
    ),
    N_(
        "Tree (tree 2/6: 2 ornaments of 6): an ornament gives its hidden reward,\n"
        "then covers a tree space of your choice for that space's reward: the\n"
        "star 3 points, 2 points, or 1 Wood, Metal, Fabric or Assembly."
    ),
    N_(
        "Inspections after Day 3 and Day 6: Cheer = your completed toys +\n"
        "the ornaments on your tree. Highest Cheer scores 8, the next 4,\n"
        "then 2, then 1. Then the completed toys go to Santa's sleigh."
    ),
    N_(
        "End: +1 point per token on unfinished toys; reindeer score by\n"
        "different names (1, 3, 6, 9, 12, 16, 20, 25, 31), +2 per extra copy.\n"
        "Most points wins; a tie goes to more reindeer points."
    ),
)

# ------------------------------------------------------------------ Workshop Tonttu

TONTTU_NOW: dict[str, str] = {
    "pick": N_(
        "Now: pick one card of your hand, in secret. All picks are shown at\n"
        "once and go face up onto their owners' workbenches. After the\n"
        "points, hands pass on the way the rotation card shows."
    ),
    "point": N_(
        "Now: point at one card in the middle, in secret: a gift or a\n"
        "face-down material. All points are shown at once. You may change\n"
        "your pick or point until the last player has chosen."
    ),
    "speed": N_(
        "Now: a race. Point once; the first valid point at a card wins it at\n"
        "once. A point at a gift you cannot pay is wasted."
    ),
    "over": N_("The game is over: the final scores show how each score adds up."),
}

TONTTU_LINES = (
    N_(
        "Gifts: a gift needs the material cards named on it, paid from your\n"
        "workbench (your face-up cards and your one face-down card)."
    ),
    N_(
        "Pointing at a gift: only those who can pay it contend. One contender\n"
        "pays exactly what it needs. Several: each offers all its workbench\n"
        "cards of types on the gift; the single highest offer wins and pays\n"
        "them all; a tie means nobody gets it and nobody pays."
    ),
    N_(
        "Pointing at a face-down material: alone, you take it, face down\n"
        "unless you choose face up or already have a face-down card; two or\n"
        "more pointers: nothing happens."
    ),
    N_(
        "Symbols: [1:#] a face-down material in middle slot 1, [2: ] an empty\n"
        "slot. Chosen: yes = has picked or pointed this phase, ... = still\n"
        "to choose. Hand round 1/4: a deal lasts 4 rounds, then the last card\n"
        "is discarded, the rotation card flips and 5 new cards are dealt."
    ),
    N_(
        "Rounds without a gift: after 10 rounds in a row with no gift won,\n"
        "the game ends. It also ends when the gift stack is used up."
    ),
    N_(
        "Scoring: your 1st gift scores 1, the 2nd 2, the 3rd 3 (n gifts:\n"
        "1 + 2 + … + n); +3 for each set of one Toys, one Clothing and one\n"
        "Decorations gift. A tie goes to more gifts."
    ),
)

CATEGORIES = (N_("Toys"), N_("Clothing"), N_("Decorations"))
"""Tonttu's gift categories (``engine.tonttu.names``), whose initials the text board
shows after a won gift."""


def legend(game_kind: str, view: Any = None, words: Words = ENGLISH) -> str:
    """The one-screen legend of ``game_kind`` for the reader of ``view`` (see the
    module's docstring): what is happening now, the symbols, the scoring."""
    if game_kind not in TITLE:
        raise ValueError(f"no legend for the game {game_kind!r}")
    lines = [words.gettext(TITLE[game_kind])]
    now = _workshop_now(view, words) if game_kind == "workshop" else _tonttu_now(view, words)
    if now:
        lines += ["", now]
    if game_kind == "workshop":
        for text in WORKSHOP_LINES:
            lines += ["", words.gettext(text)]
    else:
        for k, text in enumerate(TONTTU_LINES):
            lines += ["", words.gettext(text)]
            if k == 3:  # after the other symbols: the won gifts' initials
                lines.append(_initials(words))
    return "\n".join(lines)


FIRST_REINDEER = N_(
    "Your first reindeer: at the end, different names score 1, 3, 6, 9, 12… points; "
    "a second copy of a name adds only 2."
)
INSPECTION_DAY = N_(
    "Santa inspects after this day: the most Cheer (completed toys + ornaments on "
    "your tree) scores 8, the next 4, then 2 and 1."
)
LAST_DAY = N_(
    "The last day: after it, Santa's second Inspection, +1 point per token on your "
    "unfinished toys, and the points of your reindeer."
)
FIRST_PICK = N_(
    "Your first pick: the cards on your workbench pay for gifts; after the round, the "
    "rest of your hand passes to a neighbour."
)
FIRST_POINT = N_(
    "Your first point: a gift is yours only if your workbench can pay it and nobody "
    "who can pay it too offers more; all points are shown together."
)
FIRST_RACE = N_(
    "Your first race: the first valid point at a card wins it at once; a gift you "
    "cannot pay wastes your point."
)


def first_time(game_kind: str, view: Any, words: Words = ENGLISH) -> str:
    """The sentence for a decision the reader of ``view`` meets for the first time (see
    the module's docstring), or ""."""
    if view is None or view.viewer is None:
        return ""
    if game_kind == "workshop":
        pending = view.pending
        me = next((p for p in view.players if p.player == view.viewer), None)
        if view.over or me is None or pending.player != view.viewer:
            return ""
        if pending.decision == "reindeer" and me.reindeer_count == 0:
            return words.gettext(FIRST_REINDEER)
        if pending.decision == "station" and me.elves_left == 3 and view.day in (3, 6):
            return words.gettext(INSPECTION_DAY if view.day == 3 else LAST_DAY)
        return ""
    if game_kind == "tonttu" and view.round == 1:
        me = next((p for p in view.seats if p.player == view.viewer), None)
        if me is None or not me.to_act:
            return ""
        if view.phase == "pick":
            return words.gettext(FIRST_PICK)
        if view.phase == "point":
            return words.gettext(FIRST_RACE if view.mode == "speed" else FIRST_POINT)
    return ""


def _workshop_now(view: Any, words: Words) -> str:
    if view is None:
        return ""
    if getattr(view, "over", False):
        return words.gettext("The game is over: the final scores show each reason.")
    pending = view.pending
    template = WORKSHOP_NOW.get(pending.decision)
    if template is None:
        return ""
    text = words.gettext(template)
    if view.viewer is None or pending.player != view.viewer:
        # someone else decides: what they are doing, in the same words
        return words.gettext("Another player is deciding; this is what they do:") + "\n" + text
    return text


def _tonttu_now(view: Any, words: Words) -> str:
    if view is None:
        return ""
    phase = view.phase
    if phase == "point" and view.mode == "speed":
        phase = "speed"
    template = TONTTU_NOW.get(phase)
    if template is None:
        return ""
    text = words.gettext(template)
    if view.viewer is None and phase != "over":  # a spectator: what the players do
        return words.gettext("The players are choosing; this is what they do:") + "\n" + text
    return text


def _initials(words: Words) -> str:
    """The won gifts' category initials as the text board shows them: (T) Toys…"""
    shown = ", ".join(f"({words.gettext(c)[:1]}) {words.gettext(c)}" for c in CATEGORIES)
    return words.gettext("After a won gift: its category, {categories}.").format(categories=shown)


__all__ = ["first_time", "legend"]
