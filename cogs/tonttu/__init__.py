"""Workshop Tonttu in its thread: secret picks and points by DM (or an ephemeral
fallback), the public "who has chosen" line, the reveal, and the speed race.

The generic turn prompt and panel of ``cogs/table/`` suit one player deciding at a
time. Tonttu's phases are simultaneous and secret (T-2.1, T-2.2, T-6), so this cog
registers itself as the Tonttu *presenter* of the Table cog:

- each phase start posts a status message in the thread (who must choose, with a
  "Choose privately" button) and DMs every human who must choose a select menu of
  their choices (their private board above it). A DM refused with 50007 falls back to
  the button, which opens the same menu as an ephemeral message;
- a choice is judged stale by its round and phase, never by the game's version: any
  number of other players may choose meanwhile (``Tables.submit_checked``);
- the status message then says who has chosen (never what); the last choice posts the
  reveal (the engine's public events) and starts the next phase;
- speed mode (T-4): the point phase is a race of public buttons, one per middle card,
  closed by a stored timer (``speed_close``) through the engine's TIMER action.

The thread is kept up to date by ``tables/publishing.py`` from what storage holds (this
cog's :meth:`Tonttu.sync_thread`): a reveal whose post was lost when the bot stopped is
posted after the restart, and a phase's DMs and status message go out once. Who refused
DMs is stored for the rest of the game, so the bot stops trying (each refusal is a 4xx
that Discord counts against the bot); the player is told once, in the thread, and can
ask for DMs again from their private panel.

No rules here: choices, their labels and the log lines all come from the engine.

Languages: the thread's text (status, reveal, race, reminders) is in the
server's language (``bot.languages.public``); a player's panel, DM and answers in
their own (``cogs.helpers.language.private``, or ``bot.languages.of_user`` for a DM sent
without an interaction).
"""

from cogs.tonttu.cog import Tonttu, setup

__all__ = ["Tonttu", "setup"]
