"""Looking back at games: ``/history``, ``/replay`` and ``/export``.

Who may look at what:

* A game belongs to the text channel its lobby was opened in, and a member may look
  at it when they can view that channel (``cogs.helpers.visibility``). ``/history`` asks
  storage for the finished games of those channels only (filtered in SQL);
  ``/replay``, ``/export`` and every button and menu here check the same for the one
  game they name. A game the member may not see and a game that does not exist get
  the same sentence, so an id does not tell whether a private game exists.
* ``/replay`` steps through finished games only: a running game's earlier boards
  are public, but its replay would be an easy way to study it mid-game from outside
  the thread, and the final board would be the current one anyway.
* ``/export`` gives anyone the complete record of a finished game; of a running
  (or abandoned) game it gives its players the partial record, built from what a
  spectator sees (``storage.export`` says why that cannot leak a secret).

Everything is answered ephemerally, in the viewer's own language (the
replay's picture too; the exported JSON is data and stays as it is): each viewer steps
through a replay on their own.
The replay's buttons carry the game id and the move they lead to
(``rp:<game>:<move>:<f|p|n|l>``), so they work after a restart; each click checks
the game again and clamps the move to the game's length. A ``custom_id`` that is not
on the message (forged, or of an older bot) is answered by ``cogs.table``'s listener.
"""

from __future__ import annotations

import asyncio
import io
from collections import OrderedDict
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import i18n
import render
from cogs.helpers.common import chosen_value, components, guarded, register_components, reply
from cogs.helpers.host import Host, bot_of
from cogs.helpers.language import private
from cogs.helpers.render import COLOUR, OPTION_LABEL, cut, title_of
from cogs.helpers.visibility import visible_channel_ids
from engine import get_game
from engine.records import Record
from engine.words import ENGLISH, N_, Words
from storage import GameInfo, GameNotFound, LoggedAction, human_player
from storage.export import dump, finished_record, running_record
from tables import drawing
from tables.replays import Replayed

HISTORY_LIMIT = 10
RECENT_GAMES = 16
STEP_LABELS = {"f": N_("⏮ First"), "p": N_("◀ Back"), "n": N_("Next ▶"), "l": N_("Last ⏭")}
REPLAY_FILE = "replay.png"
NOT_VISIBLE = N_(
    "There is no game #{id} on this server that you can see. /history lists the "
    "finished games of the channels you can see."
)


# --------------------------------------------------------------------------- components


class StepButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"rp:(?P<gid>[0-9]{1,18}):(?P<move>[0-9]{1,6}):(?P<tag>[fpnl])",
):
    """One of the replay's ⏮ ◀ ▶ ⏭ buttons: shows move ``move`` of game ``gid``."""

    def __init__(
        self,
        game_id: int,
        move: int,
        tag: str,
        *,
        disabled: bool = False,
        words: Words = ENGLISH,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=words.gettext(STEP_LABELS[tag]),
                style=discord.ButtonStyle.secondary,
                custom_id=f"rp:{game_id}:{move}:{tag}",
                disabled=disabled,
            )
        )
        self.game_id, self.move = game_id, move

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> StepButton:
        return cls(int(match["gid"]), int(match["move"]), match["tag"])

    async def callback(self, interaction: discord.Interaction) -> None:
        replays = replays_of(interaction)
        await guarded(
            interaction,
            lambda: replays.step(interaction, self.game_id, self.move),
            game_id=self.game_id,
        )


class OpenFinal(discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"history:open"):
    """/history's menu: opens the final board of the game picked (its replay, at the end)."""

    def __init__(
        self, options: list[discord.SelectOption] | None = None, words: Words = ENGLISH
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id="history:open",
                placeholder=words.gettext("Open a final board…"),
                options=options or [discord.SelectOption(label="?", value="0")],
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> OpenFinal:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        replays = replays_of(interaction)
        raw = chosen_value(interaction)
        game_id = int(raw) if raw.isdigit() and len(raw) <= 18 else 0
        await guarded(
            interaction, lambda: replays.open_replay(interaction, game_id, None), game_id=game_id
        )


def replays_of(interaction: discord.Interaction) -> Replays:
    cog = bot_of(interaction).get_cog("Replays")
    assert isinstance(cog, Replays)
    return cog


# --------------------------------------------------------------------------- messages


def step_buttons(game_id: int, move: int, moves: int, words: Words = ENGLISH) -> discord.ui.View:
    view = components()
    at_start, at_end = move <= 0, move >= moves
    view.add_item(StepButton(game_id, 0, "f", disabled=at_start, words=words))
    view.add_item(StepButton(game_id, max(move - 1, 0), "p", disabled=at_start, words=words))
    view.add_item(StepButton(game_id, min(move + 1, moves), "n", disabled=at_end, words=words))
    view.add_item(StepButton(game_id, moves, "l", disabled=at_end, words=words))
    return view


def move_lines(info: GameInfo, entry: LoggedAction | None, words: Words = ENGLISH) -> str:
    """What happened at this move, as the thread's log said it."""
    if entry is None:
        return words.gettext("The table before the first move.")
    rules = get_game(info.kind)
    lines = [rules.describe_event(rules.parse_event(e), info.names, words) for e in entry.events]
    return "\n".join(line for line in lines if line) or "—"


async def replay_message(
    info: GameInfo, replayed: Replayed, move: int, note: str = "", lang: str = "en"
) -> dict[str, Any]:
    """The board after ``move`` decisions of a finished game, with the step buttons, in
    the viewer's language ``lang`` (a language code of :mod:`i18n`)."""
    words = i18n.words(lang)
    moves = replayed.moves
    rules = get_game(info.kind)
    state = await asyncio.to_thread(replayed.state_at, move)  # off the event loop
    png = await drawing.draw(render.render_board, rules.view(state, None), info.names, lang)
    log = replayed.log
    entry = log[move - 1] if 0 < move <= len(log) else None
    embed = discord.Embed(
        title=cut(words.gettext("{title} · replay").format(title=title_of(info, words)), 256),
        description=cut(note + move_lines(info, entry, words), 4096),
        colour=COLOUR.get(info.kind),
    )
    embed.set_image(url=f"attachment://{REPLAY_FILE}")
    where = words.gettext("Move {move} of {moves}").format(move=move, moves=moves)
    embed.set_footer(text=where)
    picture = discord.File(io.BytesIO(png), REPLAY_FILE, description=where)
    return {"embed": embed, "file": picture, "view": step_buttons(info.id, move, moves, words)}


def export_file(info: GameInfo, record: Record) -> discord.File:
    state = "final" if record.finished else f"move-{record.moves}"
    return discord.File(io.BytesIO(dump(record)), f"{info.kind}-game-{info.id}-{state}.json")


# --------------------------------------------------------------------------- cog


class Replays(commands.Cog):
    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self._recent: OrderedDict[int, Replayed] = OrderedDict()
        """Finished games replayed lately, by id (least recently used first)."""

    async def replayed(self, info: GameInfo) -> Replayed:
        """The finished game's record and log, read once and kept for the next clicks."""
        found = self._recent.pop(info.id, None)
        if found is None:
            log = await self.bot.store.log(info.id)
            found = Replayed.of(info, log)
        self._recent[info.id] = found
        while len(self._recent) > RECENT_GAMES:
            self._recent.popitem(last=False)
        return found

    async def visible_game(self, interaction: discord.Interaction, game_id: int) -> GameInfo | None:
        """The game if it is on this server, in a channel the member can see; otherwise
        the member is told (the same sentence whether it exists or not) and ``None``."""
        gettext = private(interaction).gettext
        if interaction.guild is None:
            await reply(interaction, gettext("Use this on a server."))
            return None
        info = None
        if 0 < game_id < 2**63:
            try:
                info = await self.bot.store.info(game_id)
            except GameNotFound:
                info = None
        if (
            info is None
            or info.guild_id != interaction.guild.id
            or info.channel_id not in visible_channel_ids(interaction)
        ):
            await reply(interaction, gettext(NOT_VISIBLE).format(id=game_id))
            return None
        return info

    async def finished_game(
        self, interaction: discord.Interaction, game_id: int
    ) -> GameInfo | None:
        """:meth:`visible_game` if it is finished; otherwise the member is told."""
        info = await self.visible_game(interaction, game_id)
        if info is not None and info.status != "finished":
            await reply(interaction, not_finished(info, private(interaction)))
            return None
        return info

    async def open_replay(
        self, interaction: discord.Interaction, game_id: int, move: int | None
    ) -> None:
        """/replay and /history's menu: a new ephemeral message at ``move`` (None: the end)."""
        info = await self.finished_game(interaction, game_id)
        if info is None:
            return
        await interaction.response.defer(ephemeral=True, thinking=True)  # replay and drawing
        replayed = await self.replayed(info)
        moves = replayed.moves
        lang = i18n.language(interaction.locale)
        note = ""
        if move is None:
            move = moves
        elif not 0 <= move <= moves:
            note = (
                i18n.words(lang)
                .gettext("Game #{id} has moves 0 to {moves}; here is move {move}.")
                .format(id=info.id, moves=moves, move=clamp(move, moves))
            )
            note += "\n"
            move = clamp(move, moves)
        await reply(interaction, **await replay_message(info, replayed, move, note, lang))

    async def step(self, interaction: discord.Interaction, game_id: int, move: int) -> None:
        """A step button: the replay's message now shows ``move``."""
        info = await self.finished_game(interaction, game_id)
        if info is None:
            return
        replayed = await self.replayed(info)
        moves = replayed.moves
        lang = i18n.language(interaction.locale)
        message = await replay_message(info, replayed, clamp(move, moves), lang=lang)
        picture = message.pop("file")
        await interaction.response.edit_message(attachments=[picture], **message)

    @app_commands.command(
        name="replay",
        description=N_("Step through a finished game, move by move (only you see it)."),
    )
    @app_commands.describe(
        game=N_("The game's number (/history lists them)"),
        move=N_("The move to start at (0: before the first move; default: the end)"),
    )
    async def replay(
        self, interaction: discord.Interaction, game: int, move: int | None = None
    ) -> None:
        await guarded(interaction, lambda: self.open_replay(interaction, game, move), game_id=game)

    @replay.autocomplete("game")
    async def replay_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        return await self.game_choices(interaction, current)

    async def game_choices(
        self, interaction: discord.Interaction, current: Any
    ) -> list[app_commands.Choice[int]]:
        """The finished games of the channels the member can see, newest first, whose
        line contains what was typed (a number, a game's name or a winner's)."""
        if interaction.guild is None:
            return []
        games = await self.bot.store.history(
            interaction.guild.id, limit=25, channel_ids=visible_channel_ids(interaction)
        )
        typed = str(current or "").strip().lower()
        gettext = private(interaction).gettext
        choices = []
        for info in games:
            line = gettext("#{id} · {title} · winner: {winners}").format(
                id=info.id, title=gettext(get_game(info.kind).title), winners=winners_of(info)
            )
            if typed in line.lower():
                choices.append(app_commands.Choice(name=cut(line, 100), value=info.id))
        return choices

    @app_commands.command(
        name="export", description=N_("A game's record as a JSON file (./dev replay FILE).")
    )
    @app_commands.describe(game=N_("The game's number (/history lists finished ones)"))
    async def export(self, interaction: discord.Interaction, game: int) -> None:
        async def work() -> None:
            info = await self.visible_game(interaction, game)
            if info is None:
                return
            words = private(interaction)
            gettext = words.gettext
            if info.status == "lobby" or info.seed is None:
                text = gettext("Game #{id} never started: it has no record.").format(id=info.id)
                await reply(interaction, text)
                return
            player = human_player(interaction.user.id)
            if info.status != "finished" and info.seat_of(player) is None:
                await reply(interaction, players_only(info, words))
                return
            title = title_of(info, words)
            if info.status == "finished":
                record = finished_record(info, await self.bot.store.log(info.id))
                text = gettext(
                    "The record of {title}: `./dev replay FILE` plays it "
                    "again from its seed and checks the final scores."
                ).format(title=title)
            else:
                loaded = await self.bot.store.load(info.id)  # then its log up to that state
                log = await self.bot.store.log(info.id)
                record = running_record(loaded, [a for a in log if a.seq <= loaded.version])
                text = (
                    gettext(
                        "The record of {title} so far (move {move}): only "
                        "what a spectator can see, without the seed or anyone's secret "
                        "choices. Export it again once the game has finished to replay it."
                    )
                    if info.status == "active"
                    else gettext(
                        "The record of {title}, ended at move {move} "
                        "before it finished: only what a spectator could see, without the "
                        "seed or anyone's secret choices, so it cannot be replayed."
                    )
                ).format(title=title, move=record.moves)
            await reply(interaction, text, file=export_file(info, record))

        await guarded(interaction, work, game_id=game)

    @export.autocomplete("game")
    async def export_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        return await self.game_choices(interaction, current)

    @app_commands.command(
        name="history",
        description=N_("Finished games of the channels you can see on this server."),
    )
    async def history(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            words = private(interaction)
            gettext = words.gettext
            if interaction.guild is None:
                await reply(interaction, gettext("Use this on a server."))
                return
            games = await self.bot.store.history(
                interaction.guild.id,
                limit=HISTORY_LIMIT,
                channel_ids=visible_channel_ids(interaction),
            )
            if not games:
                await reply(
                    interaction, gettext("No finished games yet in the channels you can see here.")
                )
                return
            lines, options = [], []
            for info in games:
                when = info.finished_at.strftime("%Y-%m-%d") if info.finished_at else "?"
                line = gettext("{when} · {title} · winner: {winners}").format(
                    when=when, title=title_of(info, words), winners=winners_of(info)
                )
                lines.append(line)
                options.append(
                    discord.SelectOption(label=cut(line, OPTION_LABEL), value=str(info.id))
                )
            view = components()
            view.add_item(OpenFinal(options, words))
            lines.append(gettext("Pick a game below to see its final board and step through it."))
            await reply(interaction, "\n".join(lines), view=view)

        await guarded(interaction, work)


def winners_of(info: GameInfo) -> str:
    result = info.result or {}
    names = info.names
    return ", ".join(names.get(w, w) for w in result.get("winners", [])) or "—"


def clamp(move: int, moves: int) -> int:
    return min(max(move, 0), moves)


def players_only(info: GameInfo, words: Words = ENGLISH) -> str:
    gettext = words.gettext
    if info.status == "active":
        return gettext(
            "Game #{id} is still running: only its players can export it now "
            "(anyone can once it has finished)."
        ).format(id=info.id)
    return gettext(
        "Game #{id} was ended before it finished: only its players can export it."
    ).format(id=info.id)


def not_finished(info: GameInfo, words: Words = ENGLISH) -> str:
    gettext = words.gettext
    if info.status == "active":
        return gettext(
            "Game #{id} is still running: its replay opens when it has finished. "
            "/board in its thread shows the table now."
        ).format(id=info.id)
    if info.status == "lobby":
        return gettext("Game #{id} has not started yet, so it has no replay.").format(id=info.id)
    return gettext("Game #{id} was ended before it finished, so it has no replay.").format(
        id=info.id
    )


async def setup(bot: Host) -> None:
    await bot.add_cog(Replays(bot))
    bot.add_dynamic_items(StepButton, OpenFinal)
    register_components(StepButton, OpenFinal)
