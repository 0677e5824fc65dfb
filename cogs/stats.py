"""``/stats`` and ``/leaderboard``: a player's record and the server's best players.

Both answer privately (ephemeral) and count only games from channels the asking
member can see (:func:`cogs.visibility.visible_channel_ids`): what one member is
shown must not reveal a private channel's games to another. A rating is one number
per player per server, from all of the server's games; ``docs/ratings.md`` says what
it means and how the leaderboard respects visibility. Storage does the counting
(:mod:`storage.ratings`); this cog only reads the options and formats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

import engine.ai
from cogs.common import guarded, reply
from cogs.lobby import GAME_CHOICES
from cogs.visibility import visible_channel_ids
from engine import get_game
from engine.ratings import Rating, identity_of, strategy_kind, strategy_label
from storage.models import BoardEntry, KindStats
from storage.ratings import LEADERBOARD_MIN_GAMES

if TYPE_CHECKING:
    from bot import WorkshopBot

LEADERBOARD_SIZE = 10
KINDS = tuple(choice.value for choice in GAME_CHOICES)
LEVEL_CHOICES = [app_commands.Choice(name=level, value=level) for level in engine.ai.LEVELS]


def title_of_kind(kind: str) -> str:
    try:
        return str(get_game(kind).title)
    except (KeyError, ImportError):
        return kind


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def shown_rating(rating: Rating | None) -> str:
    """``27.3 ± 4.1`` (the estimate and its uncertainty), or "not rated yet"."""
    if rating is None:
        return "not rated yet"
    return f"{rating.mu:.1f} ± {rating.sigma:.1f}"


def identity_name(identity: str) -> str:
    """How a rated identity is shown: a mention (rendered as the member's name, and an
    embed never pings) or "Computer (level)"."""
    if identity.startswith("ai:"):
        return f"Computer ({identity[3:]})"
    return f"<@{identity}>"


def stats_field(stats: KindStats) -> str:
    lines = [
        f"Games {stats.games} · wins {stats.wins} ({stats.win_rate:.0%})",
        f"Average score {stats.average_score:.1f} · best {stats.best_score}",
        f"Rating {shown_rating(stats.rating)} (all servers: {shown_rating(stats.global_rating)})",
    ]
    strategy = strategy_kind(stats.kind)
    if strategy is not None and stats.favourite is not None:
        lines.append(f"{strategy.title}: {strategy_label(stats.kind, stats.favourite)}")
    return "\n".join(lines)


def board_lines(entries: list[BoardEntry]) -> str:
    return "\n".join(
        f"{place}. {identity_name(entry.identity)} · {shown_rating(entry.rating)}"
        f" · {plural(entry.games, 'game')}, {plural(entry.wins, 'win')}"
        for place, entry in enumerate(entries, start=1)
    )


def kind_of(game: str | None) -> tuple[str | None, str | None]:
    """``(kind, None)`` for a known game or no game; ``(None, sentence)`` otherwise."""
    if game is None or game in KINDS:
        return game, None
    known = ", ".join(f"{choice.name} (`{choice.value}`)" for choice in GAME_CHOICES)
    return None, f"There is no game called {game!r}; choose one of {known}."


class Stats(commands.Cog):
    def __init__(self, bot: WorkshopBot) -> None:
        self.bot = bot

    @app_commands.command(name="stats", description="A player's games, wins, scores and rating.")
    @app_commands.describe(
        user="Whose record (default: yours)",
        game="Only this game",
        computer="A computer level's record instead of a member's",
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
        if interaction.guild is None:
            await reply(interaction, "Use this on a server: statistics are kept per server.")
            return
        kind, problem = kind_of(game)
        if problem is not None:
            await reply(interaction, problem)
            return
        if computer is not None and user is not None:
            await reply(interaction, "Choose a member or a computer level, not both.")
            return
        if computer is not None and computer not in engine.ai.LEVELS:
            levels = ", ".join(engine.ai.LEVELS)
            await reply(interaction, f"There is no computer level {computer!r}; try {levels}.")
            return
        if computer is not None:
            identity, name = identity_of(None, computer), f"Computer ({computer})"
        else:
            who = user or interaction.user
            if who.bot:
                await reply(
                    interaction,
                    f"{who.display_name} is a bot and plays no games; to see a computer"
                    " player's record, use the `computer` option.",
                )
                return
            identity, name = identity_of(who.id, None), who.display_name
        records = await self.bot.store.player_stats(
            interaction.guild.id, identity, visible_channel_ids(interaction), kind
        )
        if not records:
            where = f" of {title_of_kind(kind)}" if kind else ""
            subject = "You have" if identity == str(interaction.user.id) else f"{name} has"
            await reply(
                interaction,
                f"{subject} no finished games{where} on this server in channels you can see.",
            )
            return
        embed = discord.Embed(title=f"Statistics of {name}", colour=discord.Colour.dark_green())
        for record in records:
            embed.add_field(
                name=title_of_kind(record.kind), value=stats_field(record), inline=False
            )
        embed.set_footer(
            text="Counts: games in channels you can see. Rating: the estimate ± its"
            " uncertainty, from every game on this server."
        )
        await reply(interaction, embed=embed)

    @app_commands.command(name="leaderboard", description="The server's best players by rating.")
    @app_commands.describe(game="Only this game (default: both)")
    @app_commands.choices(game=GAME_CHOICES)
    async def leaderboard(
        self, interaction: discord.Interaction, game: app_commands.Choice[str] | None = None
    ) -> None:
        async def work() -> None:
            await self._leaderboard(interaction, None if game is None else game.value)

        await guarded(interaction, work)

    async def _leaderboard(self, interaction: discord.Interaction, game: str | None) -> None:
        if interaction.guild is None:
            await reply(interaction, "Use this on a server: each server has its own leaderboard.")
            return
        kind, problem = kind_of(game)
        if problem is not None:
            await reply(interaction, problem)
            return
        channels = visible_channel_ids(interaction)
        embed = discord.Embed(
            title="Leaderboard" if kind is None else f"Leaderboard: {title_of_kind(kind)}",
            colour=discord.Colour.gold(),
        )
        for each in (kind,) if kind is not None else KINDS:
            entries = await self.bot.store.leaderboard(
                interaction.guild.id, each, channels, limit=LEADERBOARD_SIZE
            )
            if entries:
                embed.add_field(
                    name=title_of_kind(each),
                    value=board_lines(entries),
                    inline=False,
                )
        if not embed.fields:
            where = f" of {title_of_kind(kind)}" if kind else ""
            await reply(
                interaction,
                f"No one has played {LEADERBOARD_MIN_GAMES} finished games{where} in channels"
                " you can see on this server yet.",
            )
            return
        embed.set_footer(
            text=f"Ranked by rating − 3 × uncertainty. Listed: players with at least"
            f" {LEADERBOARD_MIN_GAMES} games in channels you can see (games and wins count"
            " those)."
        )
        await reply(interaction, embed=embed)


async def setup(bot: WorkshopBot) -> None:
    await bot.add_cog(Stats(bot))
