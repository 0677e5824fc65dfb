"""The permissions the bot needs on a server, in one place, and the invite link asking for them.

What the cogs really do on Discord, and what each needs (interaction answers,
ephemeral replies and followups need nothing: Discord lets an app answer wherever its
command was used):

- read the channel a game is in: **View Channel**, **Read Message History**;
- open the game's thread from the lobby message (``Message.create_thread``):
  **Create Public Threads**; post, edit its own posts and show "typing" there:
  **Send Messages in Threads** (editing one's own messages needs nothing more);
- without a thread (Create Public Threads missing) the game is played in the channel
  itself: **Send Messages** there; a game that ended early is announced the same way;
- the board is an embed with a picture: **Embed Links** and **Attach Files**.

Nothing else: the bot does not pin, delete others' messages, manage or archive threads
(Discord archives an idle thread by itself, and a post un-archives it), add reactions,
or mention @everyone (mentions of the players in a turn prompt need no permission).
Its only gateway intent is ``guilds`` (``bot.py``): not privileged, so nothing has to be
switched on in the Developer Portal.

``NEEDED`` is asked for in the invite link (:func:`invite_url`), checked per server by
``python bot.py --check``, and checked by ``/newgame`` in its channel before a lobby
opens (:func:`missing_for_a_game`).
"""

from __future__ import annotations

import discord

from engine.words import ENGLISH, N_, Words

NEEDED = discord.Permissions(
    view_channel=True,
    send_messages=True,
    create_public_threads=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
)
"""Every permission the bot uses, and no other (the module docstring says what for)."""

SCOPES = ("bot", "applications.commands")
"""The invite's scopes: the bot user, and its slash commands."""

LABELS = {
    "view_channel": N_("View Channel"),
    "send_messages": N_("Send Messages"),
    "embed_links": N_("Embed Links"),
    "attach_files": N_("Attach Files"),
    "read_message_history": N_("Read Message History"),
    "create_public_threads": N_("Create Public Threads"),
    "send_messages_in_threads": N_("Send Messages in Threads"),
}
"""Each needed permission as Discord's settings name it, in Discord's order (its bit);
for players translated as Discord's German settings name them (:func:`listed`)."""

_ALWAYS = discord.Permissions(
    view_channel=True, embed_links=True, attach_files=True, read_message_history=True
)


def invite_url(application_id: int | str) -> str:
    """The link that adds the bot to a server with exactly the permissions it needs.

    >>> invite_url(123)
    'https://discord.com/oauth2/authorize?client_id=123&scope=bot+applications.commands&permissions=309237763072'
    """
    # discord.utils.oauth_url wants an int; a placeholder (no id known yet) is spliced in.
    url = discord.utils.oauth_url(0, permissions=NEEDED, scopes=SCOPES)
    return url.replace("client_id=0", f"client_id={application_id}", 1)


def missing(have: discord.Permissions, needed: discord.Permissions = NEEDED) -> list[str]:
    """The names of the permissions in ``needed`` that ``have`` lacks, in Discord's order.

    >>> missing(discord.Permissions(view_channel=True, send_messages=True))[:2]
    ['Embed Links', 'Attach Files']
    >>> missing(discord.Permissions(administrator=True))
    []
    """
    if have.administrator:
        return []
    return [
        label for name, label in LABELS.items() if getattr(needed, name) and not getattr(have, name)
    ]


def missing_for_a_game(have: discord.Permissions) -> list[str]:
    """What the bot lacks, with ``have`` in a channel, to run a game there.

    With Create Public Threads the game gets a thread, where it needs Send Messages in
    Threads; without it the game is played in the channel itself (``cogs/table/``),
    where it needs Send Messages. The rest is needed either way.

    >>> missing_for_a_game(discord.Permissions(view_channel=True, send_messages=True))
    ['Embed Links', 'Attach Files', 'Read Message History']
    """
    needed = discord.Permissions(_ALWAYS.value)
    if have.create_public_threads:
        needed.send_messages_in_threads = True
    else:
        needed.send_messages = True
    return missing(have, needed)


def listed(names: list[str], words: Words = ENGLISH) -> str:
    """``['A', 'B', 'C']`` → ``'A, B and C'``, each name translated by ``words`` (the
    operator's output, ``--check``, stays English).

    >>> listed(["Embed Links"]), listed(["Embed Links", "Attach Files"])
    ('Embed Links', 'Embed Links and Attach Files')
    """
    names = [words.gettext(name) for name in names]
    if len(names) <= 1:
        return "".join(names)
    return words.gettext("{names} and {last}").format(names=", ".join(names[:-1]), last=names[-1])


def may_manage(interaction: discord.Interaction, host_id: int) -> bool:
    """Whether the user of ``interaction`` may manage a game: its host (``host_id``), or a
    member who may manage the channel."""
    if interaction.user.id == host_id:
        return True
    perms = getattr(interaction, "permissions", None)
    return bool(perms and perms.manage_channels)
