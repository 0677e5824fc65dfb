"""Every choice on a panel says all it gives, as Discord shows it: Discord cuts a
button's label at 80 characters (an option's label and description at 100), so the
panel's words spell such a choice out in full (the short supply, the points, the
cooperation, a rival's better offer). Random positions of both games, at every table
size, in English and German."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import discord
import pytest

import i18n
from cogs.helpers.render import BUTTON_LABEL, MAX_CONTENT, OPTION_LABEL
from cogs.table.cog import panel as workshop_panel
from cogs.tonttu.components import panel as tonttu_panel
from engine.core import Rng
from engine.records import pick_random
from engine.tonttu import GAME as TONTTU
from engine.tonttu.text import describe_parts
from engine.words import Words
from engine.workshop import GAME as WORKSHOP
from storage import LoadedGame
from storage.models import Seat
from tables.service import choices_for
from tests.cogs.test_pictures import loaded
from tests.render.states import names, players

SIZES = {"workshop": (2, 3, 4, 5), "tonttu": (3, 4, 5, 6)}


def as_shown(item: discord.ui.Item[Any]) -> list[str]:
    """A panel component's texts as Discord shows them (cut at its limits)."""
    if isinstance(item, discord.ui.DynamicItem):
        item = item.item
    if isinstance(item, discord.ui.Button):
        return [(item.label or "")[:BUTTON_LABEL]]
    if isinstance(item, discord.ui.Select):
        return [
            text[:OPTION_LABEL]
            for option in item.options
            for text in (option.label, option.description or "")
        ]
    return []


def in_words(game: LoadedGame, player: str, words: Words) -> list[str]:
    """What each of ``player``'s choices says, whole (the panel's first 25)."""
    if game.kind == "workshop":
        return [c.label for c in choices_for(game, player, words)[:25]]
    whole = []
    for action in TONTTU.legal_actions(game.state, player)[:25]:
        label, hint = describe_parts(action, game.state, player, game.names, words)
        whole += [label, hint] if hint else [label]
    return whole


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("kind", ["workshop", "tonttu"])
def test_every_choice_reads_whole_on_the_panel(kind: str, lang: str) -> None:
    words = i18n.words(lang)
    rules = WORKSHOP if kind == "workshop" else TONTTU
    panel = workshop_panel if kind == "workshop" else tonttu_panel
    base = loaded("workshop-2p-mid" if kind == "workshop" else "tonttu-3p-pick")
    spelled_out = 0
    for n in SIZES[kind]:
        table = names(n)
        seats = tuple(Seat(p, table[p], 100 + k) for k, p in enumerate(players(n)))
        state = rules.new_game(players(n), n, rules.parse_options({}))
        rng = Rng(n * 31)
        for step in range(300):
            if rules.outcome(state) is not None:
                break
            if step % 5 == 0:
                game = replace(base, seats=seats, state=state)
                for player in sorted(rules.to_act(state)):
                    made = panel(game, player, words=words)
                    shown = [t for item in made["view"].children for t in as_shown(item)]
                    content = made["content"]
                    assert len(content) <= MAX_CONTENT
                    for whole in in_words(game, player, words):
                        on_component = any(whole in text for text in shown)
                        assert on_component or whole in content, (whole, lang, n)
                        spelled_out += not on_component
            player, action = pick_random(rules, state, rng)
            state, _ = rules.apply(state, player, action)
    if lang == "de":
        assert spelled_out  # German labels run long: some are spelled out
