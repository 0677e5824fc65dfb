"""The table in the browser: a live, phone-first page per game and its replay, served
by the bot's process (aiohttp) over the table core, never through Discord.

A front end like ``cogs/``: it reads the table core (``tables/``) and storage, draws
the engine's public view as HTML (Jinja2, autoescaped) and never imports ``discord``.
"""
