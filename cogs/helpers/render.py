"""Discord formatting of what the engine and storage return: embeds and text.

Public things (board, log, final scores) are built from ``view(state, None)``
and public events only; a player's private panel from ``view(state, player)``.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import discord

import i18n
from cogs.helpers.common import game_title
from engine import get_game
from engine.core import PlayerId
from engine.words import ENGLISH, N_, Words, listed
from storage import GameInfo, LoadedGame
from tables.pictures import render_private_png
from tables.service import computer_level, engine_of, view_of
from tables.texts import breakdown

# Discord's limits on what the bot sends
MAX_DESCRIPTION = 4096
MAX_CONTENT = 2000
BUTTON_LABEL = 80
OPTION_LABEL = 100
LEVEL_NAMES = {"random": N_("easy"), "greedy": N_("normal"), "strong": N_("hard")}
"""How players call the levels of ``engine.ai`` (translated where used)."""
COLOUR = {"workshop": discord.Colour.dark_red(), "tonttu": discord.Colour.dark_green()}
GOLD = discord.Colour.gold()
"""The final scores' colour."""


def level_name(level: str, words: Words = ENGLISH) -> str:
    """A computer level as players call it (``LEVEL_NAMES``), in ``words``' language."""
    return words.gettext(LEVEL_NAMES[level])


def title_of(info: GameInfo, words: Words = ENGLISH) -> str:
    return words.gettext("{title} · game #{id}").format(
        title=game_title(info.kind, words), id=info.id
    )


def cut(text: str, limit: int) -> str:
    """``text`` shortened to ``limit`` characters (Discord's label limits), with "…"."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def code_block(text: str, limit: int = MAX_DESCRIPTION) -> str:
    """Text in a code block, cut (with a note) to fit ``limit`` characters."""
    room = limit - 8
    if len(text) > room:
        text = text[: room - 2] + "\n…"
    return f"```\n{text}\n```"


def mention(info: GameInfo, player: PlayerId) -> str:
    seat = info.seat_of(player)
    if seat is None:
        return player
    return f"<@{seat.user_id}>" if seat.user_id is not None else f"**{seat.display_name}**"


def board_embed(
    game: LoadedGame, viewer: PlayerId | None = None, words: Words = ENGLISH
) -> discord.Embed:
    """The table as the viewer may see it (``None``: everyone)."""
    rules = engine_of(game)
    text = rules.render_text(view_of(game, viewer), game.names, words)
    embed = discord.Embed(
        title=title_of(game, words), description=code_block(text), colour=COLOUR.get(game.kind)
    )
    footer = words.gettext("Move {n} · your private view") if viewer else words.gettext("Move {n}")
    embed.set_footer(text=footer.format(n=game.version))
    return embed


BOARD_FILE = "board.png"
PRIVATE_FILE = "me.png"
SUMMARY_LINES = 2
"""The board's picture carries the first lines of the text board as its caption and
alt text; the whole text stays available with ``/board text:true``."""


def board_summary(game: LoadedGame, words: Words = ENGLISH) -> str:
    """The first lines of the public text board: what day or round it is, who acts."""
    rules = engine_of(game)
    text = rules.render_text(view_of(game, None), game.names, words)
    lines = [line.strip("= ") for line in text.splitlines()[:SUMMARY_LINES]]
    return "\n".join(line for line in lines if not line.endswith(":"))  # not a heading


def board_picture(
    game: LoadedGame, png: bytes, words: Words = ENGLISH
) -> tuple[discord.Embed, discord.File]:
    """The thread's board: a short summary, the picture, and the move number; ``words``:
    the table's language, the picture's (``tables.pictures``)."""
    summary = board_summary(game, words)
    embed = discord.Embed(
        title=title_of(game, words), description=summary, colour=COLOUR.get(game.kind)
    )
    embed.set_image(url=f"attachment://{BOARD_FILE}")
    footer = words.gettext("Move {version} · /board text:true shows the board as text")
    embed.set_footer(text=footer.format(version=game.version))
    return embed, discord.File(io.BytesIO(png), BOARD_FILE, description=summary[:1024])


async def private_picture(
    game: LoadedGame, player: PlayerId, lang: str = "en"
) -> tuple[discord.Embed, discord.File]:
    """The private text view with the player's own picture under it (ephemeral only);
    ``lang``: the player's own language."""
    png = await render_private_png(game, player, lang)
    words = i18n.words(lang)
    embed = board_embed(game, viewer=player, words=words)
    embed.set_image(url=f"attachment://{PRIVATE_FILE}")
    alt = words.gettext("Your own area")
    return embed, discord.File(io.BytesIO(png), PRIVATE_FILE, description=alt)


CHART_FILE = "chart.png"
CHART_TITLES = {
    "workshop": N_("How the game went: score after each day"),
    "tonttu": N_("How the game went: score after each round"),
}
CHART_ALT = {
    "workshop": N_("Score after each day, and the final score by reason: {final}"),
    "tonttu": N_("Score after each round, and the final score by reason: {final}"),
}
"""The chart's title and alt text by game (German word order and case differ by unit)."""


def chart_picture(
    game: GameInfo, png: bytes, words: Words = ENGLISH
) -> tuple[discord.Embed, discord.File]:
    """An embed showing the chart, for the final-scores message, and its file (with the
    final scores as its alt text); ``words``: the chart's language."""
    scores: dict[str, int] = (game.result or {}).get("scores", {})
    final = ", ".join(f"{game.names.get(p, p)} {points}" for p, points in scores.items())
    if game.kind in CHART_TITLES:
        title = words.gettext(CHART_TITLES[game.kind])
        alt = words.gettext(CHART_ALT[game.kind]).format(final=final)
    else:  # a game added later: its own unit is not known here
        title = words.gettext("How the game went: score after each turn")
        alt = words.gettext("Score after each turn, and the final score by reason: {final}").format(
            final=final
        )
    embed = discord.Embed(title=title, colour=GOLD)
    embed.set_image(url=f"attachment://{CHART_FILE}")
    return embed, discord.File(io.BytesIO(png), CHART_FILE, description=cut(alt, 1024))


OPTION_WORDS = {
    "mode": N_("mode"),
    "tactical": N_("tactical"),
    "speed": N_("speed"),
}
"""The lobby's option names and values (translated where used; others shown as stored)."""
LOBBY_STATUS = {
    "lobby": N_("Press Join to take a seat. The host starts the game."),
    "active": N_("The game has started."),
    "finished": N_("This game has finished."),
    "abandoned": N_("This game was cancelled."),
}


def _option_word(value: object, words: Words) -> str:
    text = str(value)
    return words.gettext(OPTION_WORDS[text]) if text in OPTION_WORDS else text


def lobby_embed(info: GameInfo, words: Words = ENGLISH) -> discord.Embed:
    """The lobby message (public: the server's language)."""
    rules = get_game(info.kind)
    seats = "\n".join(
        words.gettext("{n}. {name} (computer, {level})").format(
            n=n, name=seat.display_name, level=level_name(computer_level(info, seat.player), words)
        )
        if seat.is_ai
        else f"{n}. {seat.display_name}"
        for n, seat in enumerate(info.seats, 1)
    )
    options = ", ".join(
        f"{_option_word(k, words)}: {_option_word(v, words)}" for k, v in info.options.items()
    )
    description = words.gettext("Host: <@{host}>\n{low}–{high} players.").format(
        host=info.host_id, low=rules.min_players, high=rules.max_players
    )
    if options:
        description += "\n" + words.gettext("Options: {options}").format(options=options)
    embed = discord.Embed(
        title=words.gettext("{title}: lobby (game #{id})").format(
            title=game_title(info.kind, words), id=info.id
        ),
        description=description,
        colour=COLOUR.get(info.kind),
    )
    embed.add_field(
        name=words.gettext("Seats ({taken}/{most})").format(
            taken=len(info.seats), most=rules.max_players
        ),
        value=seats or "—",
    )
    embed.set_footer(text=words.gettext(LOBBY_STATUS[info.status]))
    return embed


def in_full(texts: Sequence[str]) -> str:
    """Lines spelling out choices that Discord would show cut (a button's label over 80
    characters, an option's over 100): a panel adds them to its words, so every choice
    says all it gives, short supply and rivals included."""
    return "".join(f"\n• {text}" for text in texts)


def chunk_lines(lines: Sequence[str], limit: int = MAX_CONTENT) -> list[str]:
    """Join lines into messages of at most ``limit`` characters."""
    chunks: list[str] = []
    current = ""
    for line in lines:
        line = cut(line, limit)
        if current and len(current) + 1 + len(line) > limit:
            chunks.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        chunks.append(current)
    return chunks


def final_embed(info: GameInfo, words: Words = ENGLISH) -> discord.Embed:
    """Final scores with the breakdown by reason and the winners (W-6.2, T-5.3)."""
    result = info.result or {}
    scores: dict[str, int] = result.get("scores", {})
    winners: list[str] = result.get("winners", [])
    names = info.names
    who = listed([f"**{names.get(w, w)}**" for w in winners], words)
    embed = discord.Embed(
        title=words.gettext("{title}: final scores").format(title=title_of(info, words)),
        description=words.ngettext("Winner: {names}", "Winners: {names}", len(winners) or 1).format(
            names=who
        ),
        colour=GOLD,
    )
    ranked = sorted(scores, key=lambda p: -scores[p])
    for player in ranked[:25]:
        detail = result.get("players", {}).get(player, {})
        points = scores[player]
        embed.add_field(
            name=words.ngettext("{name}: {n} point", "{name}: {n} points", points).format(
                name=names.get(player, player), n=points
            ),
            value=breakdown(detail, words)[:1024] or "—",
            inline=False,
        )
    return embed
