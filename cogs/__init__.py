"""Discord adapters: slash commands, buttons, selects and timers. No game rules here."""

EXTENSIONS = (
    "cogs.lobby",
    "cogs.table",
    "cogs.timers",
    "cogs.tonttu",
    "cogs.replays",
    "cogs.stats",
    "cogs.settings",
    "cogs.privacy",
)
