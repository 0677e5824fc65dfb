"""The table core: everything that happens at a table, whatever shows it.

Discord (``cogs/``) and any other front end stand on this package: it opens, starts and
plays tables, moves the computer seats (in worker processes), draws pictures off the
event loop, and decides what each table must show. It imports engine, storage, render
and i18n, and never ``discord``.
"""
