"""``/stats`` and ``/leaderboard``: a player's record and the server's best players.

Both answer privately (ephemeral) and count only games from channels the asking
member can see (:func:`cogs.helpers.visibility.visible_channel_ids`): what one member is
shown must not reveal a private channel's games to another. A rating is one number
per player per server, from all of the server's games; ``docs/ratings.md`` says what
it means and how the leaderboard respects visibility. Storage does the counting
(:mod:`storage.ratings`); this cog only reads the options and formats, in the asking
member's language (``cogs.helpers.language.private``).
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

import engine.ai
from cogs.helpers.common import GAME_CHOICES, game_title, guarded, reply
from cogs.helpers.host import Host
from cogs.helpers.language import private
from cogs.helpers.render import LEVEL_NAMES
from cogs.helpers.visibility import visible_channel_ids
from engine.ratings import Rating, identity_of, strategy_kind, strategy_label
from engine.words import ENGLISH, N_, Words
from storage.models import FORGOTTEN_PREFIX, BoardEntry, KindStats
from storage.ratings import LEADERBOARD_MIN_GAMES

LEADERBOARD_SIZE = 10
KINDS = tuple(choice.value for choice in GAME_CHOICES)
LEVEL_CHOICES = [
    app_commands.Choice(name=LEVEL_NAMES.get(level, level), value=level)
    for level in engine.ai.LEVELS
]
STRATEGY_TITLES = (N_("Favourite station"), N_("Favourite gifts"))
"""``engine.ratings``' strategy titles, for the catalogue (translated where shown)."""


def shown_rating(rating: Rating | None, words: Words = ENGLISH) -> str:
    """``27.3 ± 4.1`` (the estimate and its uncertainty), or "not rated yet"."""
    if rating is None:
        return words.gettext("not rated yet")
    return f"{rating.mu:.1f} ± {rating.sigma:.1f}"


def level_name(level: str, words: Words = ENGLISH) -> str:
    return words.gettext(LEVEL_NAMES[level]) if level in LEVEL_NAMES else level


def computer_name(level: str, words: Words = ENGLISH) -> str:
    return words.gettext("Computer ({level})").format(level=level_name(level, words))


def identity_name(identity: str, words: Words = ENGLISH) -> str:
    """How a rated identity is shown: a mention (rendered as the member's name, and an
    embed never pings), "Computer (level)" or "Forgotten player 3"."""
    if identity.startswith("ai:"):
        return computer_name(identity[3:], words)
    if identity.startswith(FORGOTTEN_PREFIX):  # storage.forget: no one to mention
        return words.gettext("Forgotten player {n}").format(n=identity[len(FORGOTTEN_PREFIX) :])
    return f"<@{identity}>"


def stats_field(stats: KindStats, words: Words = ENGLISH) -> str:
    gettext = words.gettext
    lines = [
        gettext("Games {games} · wins {wins} ({rate})").format(
            games=stats.games, wins=stats.wins, rate=f"{stats.win_rate:.0%}"
        ),
        gettext("Average score {average} · best {best}").format(
            average=f"{stats.average_score:.1f}", best=stats.best_score
        ),
        gettext("Rating {rating} (all servers: {everywhere})").format(
            rating=shown_rating(stats.rating, words),
            everywhere=shown_rating(stats.global_rating, words),
        ),
    ]
    strategy = strategy_kind(stats.kind)
    if strategy is not None and stats.favourite is not None:
        lines.append(
            f"{gettext(strategy.title)}: {gettext(strategy_label(stats.kind, stats.favourite))}"
        )
    return "\n".join(lines)


def board_lines(entries: list[BoardEntry], words: Words = ENGLISH) -> str:
    return "\n".join(
        f"{place}. {identity_name(entry.identity, words)} · "
        f"{shown_rating(entry.rating, words)} · "
        + words.ngettext("{n} game", "{n} games", entry.games).format(n=entry.games)
        + ", "
        + words.ngettext("{n} win", "{n} wins", entry.wins).format(n=entry.wins)
        for place, entry in enumerate(entries, start=1)
    )


def kind_of(game: str | None, words: Words = ENGLISH) -> tuple[str | None, str | None]:
    """``(kind, None)`` for a known game or no game; ``(None, sentence)`` otherwise."""
    if game is None or game in KINDS:
        return game, None
    known = ", ".join(f"{words.gettext(choice.name)} (`{choice.value}`)" for choice in GAME_CHOICES)
    sentence = words.gettext("There is no game called {game}; choose one of {known}.")
    return None, sentence.format(game=repr(game), known=known)


class Stats(commands.Cog):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(
        name="stats", description=N_("A player's games, wins, scores and rating.")
    )
    @app_commands.describe(
        user=N_("Whose record (default: yours)"),
        game=N_("Only this game"),
        computer=N_("A computer level's record instead of a member's"),
    )
    @app_commands.choices(game=GAME_CHOICES, computer=LEVEL_CHOICES)
    async def stats(
        self,
        interaction: discord.Interaction,
        user: discord.User | None = None,
        game: app_commands.Choice[str] | None = None,
        computer: app_commands.Choice[str] | None = None,
    ) -> None:
        async def work() -> None:
            await self._stats(
                interaction,
                user,
                None if game is None else game.value,
                None if computer is None else computer.value,
            )

        await guarded(interaction, work)

    async def _stats(
        self,
        interaction: discord.Interaction,
        user: discord.User | discord.Member | None,
        game: str | None,
        computer: str | None,
    ) -> None:
        words = private(interaction)
        gettext = words.gettext
        if interaction.guild is None:
            await reply(
                interaction, gettext("Use this on a server: statistics are kept per server.")
            )
            return
        kind, problem = kind_of(game, words)
        if problem is not None:
            await reply(interaction, problem)
            return
        if computer is not None and user is not None:
            await reply(interaction, gettext("Choose a member or a computer level, not both."))
            return
        if computer is not None and computer not in engine.ai.LEVELS:
            levels = ", ".join(engine.ai.LEVELS)
            await reply(
                interaction,
                gettext("There is no computer level {level}; try {levels}.").format(
                    level=repr(computer), levels=levels
                ),
            )
            return
        if computer is not None:
            identity, name = identity_of(None, computer), computer_name(computer, words)
        else:
            who = user or interaction.user
            if who.bot:
                await reply(
                    interaction,
                    gettext(
                        "{name} is a bot and plays no games; to see a computer player's "
                        "record, use the `computer` option."
                    ).format(name=who.display_name),
                )
                return
            identity, name = identity_of(who.id, None), who.display_name
        records = await self.bot.store.player_stats(
            interaction.guild.id, identity, visible_channel_ids(interaction), kind
        )
        if not records:
            await reply(
                interaction, no_games(words, identity == str(interaction.user.id), name, kind)
            )
            return
        embed = discord.Embed(
            title=gettext("Statistics of {name}").format(name=name),
            colour=discord.Colour.dark_green(),
        )
        for record in records:
            embed.add_field(
                name=game_title(record.kind, words),
                value=stats_field(record, words),
                inline=False,
            )
        embed.set_footer(
            text=gettext(
                "Counts: games in channels you can see. Rating: the estimate ± its"
                " uncertainty, from every game on this server."
            )
        )
        await reply(interaction, embed=embed)

    @app_commands.command(
        name="leaderboard", description=N_("The server's best players by rating.")
    )
    @app_commands.describe(game=N_("Only this game (default: both)"))
    @app_commands.choices(game=GAME_CHOICES)
    async def leaderboard(
        self, interaction: discord.Interaction, game: app_commands.Choice[str] | None = None
    ) -> None:
        async def work() -> None:
            await self._leaderboard(interaction, None if game is None else game.value)

        await guarded(interaction, work)

    async def _leaderboard(self, interaction: discord.Interaction, game: str | None) -> None:
        words = private(interaction)
        gettext = words.gettext
        if interaction.guild is None:
            await reply(
                interaction, gettext("Use this on a server: each server has its own leaderboard.")
            )
            return
        kind, problem = kind_of(game, words)
        if problem is not None:
            await reply(interaction, problem)
            return
        channels = visible_channel_ids(interaction)
        embed = discord.Embed(
            title=gettext("Leaderboard")
            if kind is None
            else gettext("Leaderboard: {game}").format(game=game_title(kind, words)),
            colour=discord.Colour.gold(),
        )
        for each in (kind,) if kind is not None else KINDS:
            entries = await self.bot.store.leaderboard(
                interaction.guild.id, each, channels, limit=LEADERBOARD_SIZE
            )
            if entries:
                embed.add_field(
                    name=game_title(each, words),
                    value=board_lines(entries, words),
                    inline=False,
                )
        if not embed.fields:
            n = LEADERBOARD_MIN_GAMES
            if kind:
                text = words.ngettext(
                    "No one has played {n} finished game of {game} in channels you can see "
                    "on this server yet.",
                    "No one has played {n} finished games of {game} in channels you can see "
                    "on this server yet.",
                    n,
                ).format(n=n, game=game_title(kind, words))
            else:
                text = words.ngettext(
                    "No one has played {n} finished game in channels you can see on this "
                    "server yet.",
                    "No one has played {n} finished games in channels you can see on this "
                    "server yet.",
                    n,
                ).format(n=n)
            await reply(interaction, text)
            return
        embed.set_footer(
            text=words.ngettext(
                "Ranked by rating − 3 × uncertainty. Listed: players with at least {n} game "
                "in channels you can see (games and wins count those).",
                "Ranked by rating − 3 × uncertainty. Listed: players with at least {n} games "
                "in channels you can see (games and wins count those).",
                LEADERBOARD_MIN_GAMES,
            ).format(n=LEADERBOARD_MIN_GAMES)
        )
        await reply(interaction, embed=embed)


def no_games(words: Words, mine: bool, name: str, kind: str | None) -> str:
    """/stats for someone without a finished game (``mine``: the asker themselves)."""
    gettext = words.gettext
    if mine:
        if kind:
            return gettext(
                "You have no finished games of {game} on this server in channels you can see."
            ).format(game=game_title(kind, words))
        return gettext("You have no finished games on this server in channels you can see.")
    if kind:
        return gettext(
            "{name} has no finished games of {game} on this server in channels you can see."
        ).format(name=name, game=game_title(kind, words))
    return gettext("{name} has no finished games on this server in channels you can see.").format(
        name=name
    )


async def setup(bot: Host) -> None:
    await bot.add_cog(Stats(bot))
