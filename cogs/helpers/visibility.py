"""Which games a member may look back at: those of the channels they can see.

``/history``, ``/stats``, ``/leaderboard`` and ``/replay`` list finished games of a
server. A game belongs to the text channel its lobby was opened in (``channel_id``; its
thread is a public thread of that channel), so a member may see it when they may view
that channel. A game whose channel the bot no longer knows (deleted, or not in its
cache) counts as not visible: an unknown channel might have been private.
"""

from __future__ import annotations

import discord


def visible_channel_ids(interaction: discord.Interaction) -> frozenset[int]:
    """The ids of the server's channels the asking member can view (empty outside a server).

    Computed from the gateway cache (channels and their permission overwrites, the
    member's roles from the interaction), with no request to Discord.
    """
    guild, member = interaction.guild, interaction.user
    if guild is None or not isinstance(member, discord.Member):
        return frozenset()
    return frozenset(
        channel.id
        for channel in guild.channels
        if not isinstance(channel, discord.CategoryChannel)
        and channel.permissions_for(member).view_channel
    )
