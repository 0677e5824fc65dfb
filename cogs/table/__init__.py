"""The game in its thread: board, log, turn prompts, the private turn panel, and the
commands players use during a game (/play, /undo, /me, /board, /abandon, /rules).
(/history, /replay and /export: ``cogs/replays.py``.)"""

from cogs.table.cog import Table, setup

__all__ = ["Table", "setup"]
