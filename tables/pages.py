"""The addresses of a table's pages on the web, for any front end that links to them.

A game's page is ``<base>/g/<token>`` (the live board) and its replay
``<base>/g/<token>/replay``, where ``base`` is the pages' public address
(``WEB_BASE_URL``, no trailing slash) and the token is the game's page token
(``Storage.web_token``: unguessable, made on the first ask, kept for ever). A server
that turned its pages off (``/settings``) gets no links: :func:`page_links` says so
with ``None``, as it does when the bot has no public address.

>>> page_url("https://games.example.org", "abc")
'https://games.example.org/g/abc'
>>> replay_url("https://games.example.org", "abc", step=12)
'https://games.example.org/g/abc/replay?step=12'
"""

from __future__ import annotations

from dataclasses import dataclass

from storage import GameInfo, Storage


@dataclass(frozen=True)
class PageLinks:
    """Where a game's pages are read."""

    live: str
    """The live board (the final one, once the game has ended)."""
    replay: str
    """The game move by move, from its start."""


def page_url(base: str, token: str) -> str:
    """The live page of the game whose page token is ``token``."""
    return f"{base}/g/{token}"


def replay_url(base: str, token: str, step: int | None = None) -> str:
    """The game's replay; at its ``step``-th move when given."""
    url = f"{page_url(base, token)}/replay"
    return url if step is None else f"{url}?step={step}"


async def page_links(store: Storage, info: GameInfo, base_url: str | None) -> PageLinks | None:
    """The links to ``info``'s pages; ``None`` without a public address (``base_url``)
    or when the game's server turned its pages off. The first ask makes the game's
    token (one write); storage's errors propagate (say ``GameNotFound``)."""
    if base_url is None or not await store.guild_web_links(info.guild_id):
        return None
    token = await store.web_token(info.id)
    return PageLinks(live=page_url(base_url, token), replay=replay_url(base_url, token))
