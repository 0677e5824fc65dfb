"""Guilds, channels, roles and users of the fake Discord: setting them up, and reading them.

:class:`GuildsMixin` is how a test sets up the world (``add_guild``, ``add_channel``,
``add_role``, ``add_user``, ``set_locale``, ``set_dms_open``), and changes the bot's
permissions in it (``deny_bot``/``allow_bot``, ``make_private``, ``withhold_from_bot``);
each change is dispatched as Discord would (GUILD_CREATE, CHANNEL_CREATE/UPDATE, ...).
Its routes are the bot's reads: ``/users/@me``, ``/users/@me/guilds``, ``/users/{id}``,
the application, and ``/guilds/{id}`` with its channels, roles and members.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .gateway import GatewayMixin
from .model import (
    GUILD_TEXT,
    FakeChannel,
    FakeGuild,
    FakeRole,
    FakeUser,
    HarnessError,
    RecordedRequest,
)
from .rest import ApiError
from .state import BOT_PERMISSIONS, EVERYONE_PERMISSIONS, P


class GuildsMixin(GatewayMixin):
    """Setting up guilds, channels, roles and users; the routes that read them."""

    def add_guild(self, name: str, *, owner: FakeUser, shard: int | None = None) -> FakeGuild:
        """A guild the bot is in (``shard``: one whose id lands on that shard)."""
        if shard is not None and not 0 <= shard < self.shard_count:
            raise HarnessError(f"shard {shard} is not in 0..{self.shard_count - 1}")
        gid = (
            self.snowflake() if shard is None else self.snowflake.on_shard(shard, self.shard_count)
        )
        guild = FakeGuild(gid, name, owner.id)
        guild.roles[gid] = FakeRole(gid, "@everyone", EVERYONE_PERMISSIONS)
        bot_role = FakeRole(self.snowflake(), "Workshop Bot", BOT_PERMISSIONS, position=1)
        guild.roles[bot_role.id] = bot_role
        self.bot_user.role_ids.append(bot_role.id)
        guild.member_ids += [self.bot_user.id, owner.id]
        self.users.setdefault(owner.id, owner)
        self.guilds[gid] = guild
        self._spawn_dispatch("GUILD_CREATE", self._guild_create_payload(guild))  # bot joins
        return guild

    def add_channel(self, name: str, *, guild: FakeGuild | None = None) -> FakeChannel:
        guild = guild or self.guild
        channel = FakeChannel(
            self.snowflake(), GUILD_TEXT, name, guild_id=guild.id, position=len(guild.channel_ids)
        )
        self.channels[channel.id] = channel
        guild.channel_ids.append(channel.id)
        self._channel_messages[channel.id] = []
        self._spawn_dispatch("CHANNEL_CREATE", self._channel_payload(channel))
        return channel

    def add_role(self, name: str, *, guild: FakeGuild | None = None, **perms: bool) -> FakeRole:
        """A role with the named discord.Permissions flags (e.g. manage_channels=True)."""
        guild = guild or self.guild
        role = FakeRole(self.snowflake(), name, P(**perms).value, position=len(guild.roles))
        guild.roles[role.id] = role
        created = {"guild_id": str(guild.id), "role": role.payload()}
        self._spawn_dispatch("GUILD_ROLE_CREATE", created)
        return role

    def set_locale(self, guild: FakeGuild, locale: str) -> None:
        """The server's language changes in its Discord settings (GUILD_UPDATE)."""
        guild.locale = locale
        self._spawn_dispatch("GUILD_UPDATE", self._guild_payload(guild))

    def add_user(
        self,
        name: str,
        *,
        guild: FakeGuild | None = None,
        roles: Iterable[FakeRole] = (),
        dms_open: bool = True,
        locale: str = "en-US",
    ) -> FakeUser:
        """A guild member (``guild=None``: the default guild); ``locale``: the language
        of their Discord client."""
        user = FakeUser(self.snowflake(), name, dms_open=dms_open, locale=locale)
        user.role_ids = [r.id for r in roles]
        self.users[user.id] = user
        (guild or self.guild).member_ids.append(user.id)
        return user

    def set_dms_open(self, user: FakeUser, is_open: bool) -> None:
        """Closed DMs: sending to the user fails with 403 / 50007, as on Discord."""
        user.dms_open = is_open

    def deny_bot(self, channel: FakeChannel, *permissions: str) -> None:
        """Deny the bot permissions in a channel (and its threads) by a member overwrite,
        e.g. ``deny_bot(ch, "create_public_threads")`` or ``"send_messages"``."""
        channel.bot_deny |= P(**dict.fromkeys(permissions, True)).value
        self._spawn_dispatch("CHANNEL_UPDATE", self._channel_payload(channel))

    def allow_bot(self, channel: FakeChannel, *permissions: str) -> None:
        channel.bot_deny &= ~P(**dict.fromkeys(permissions, True)).value
        self._spawn_dispatch("CHANNEL_UPDATE", self._channel_payload(channel))

    def make_private(self, channel: FakeChannel, *members: FakeUser) -> None:
        """Hide a text channel (and its threads) from everyone but ``members`` and the
        bot, as a private channel on Discord: an @everyone overwrite denying View
        Channel and member overwrites allowing it."""
        channel.private_to = {m.id for m in members} | {self.bot_user.id}
        self._spawn_dispatch("CHANNEL_UPDATE", self._channel_payload(channel))

    def withhold_from_bot(self, guild: FakeGuild, *permissions: str) -> None:
        """Take permissions away from the bot server-wide, as an admin would: from the
        guild's @everyone role and the bot's own role, e.g.
        ``withhold_from_bot(guild, "attach_files")``. (No GUILD_ROLE_UPDATE is
        dispatched: for what the bot reads by REST, such as ``GET /users/@me/guilds``,
        and for new interactions' ``app_permissions``.)"""
        taken = P(**dict.fromkeys(permissions, True)).value
        for role in guild.roles.values():
            if role.id == guild.id or role.id in self.bot_user.role_ids:
                role.permissions &= ~taken

    def _guild_routes(self) -> None:
        """The bot reads users, its application and guilds."""
        route = self._route

        @route("GET", "/users/@me")
        async def get_me(rec: RecordedRequest) -> Any:
            return {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "flags": 0}

        @route("GET", "/users/@me/guilds")
        async def my_guilds(rec: RecordedRequest) -> Any:
            # Discord: the bot's guilds by id, `after`/`before` a snowflake, at most
            # `limit` (1-200, default 200), each with the bot's server-wide permissions.
            after = int(rec.query.get("after") or 0)
            before = int(rec.query.get("before") or 0)
            limit = int(rec.query.get("limit") or 200)
            if not 1 <= limit <= 200:
                raise ApiError(400, 50035, "Invalid Form Body")
            guilds = sorted(
                (g for g in self.guilds.values() if self.bot_user.id in g.member_ids),
                key=lambda g: g.id,
            )
            chosen = [g for g in guilds if g.id > after and (not before or g.id < before)]
            chosen = chosen[-limit:] if before and not after else chosen[:limit]
            return [
                {
                    "id": str(g.id),
                    "name": g.name,
                    "icon": None,
                    "banner": None,
                    "owner": g.owner_id == self.bot_user.id,
                    "permissions": str(self._guild_permissions(self.bot_user, g)),
                    "features": [],
                }
                for g in chosen
            ]

        @route("GET", "/users/{user_id}")
        async def get_user(rec: RecordedRequest, user_id: str) -> Any:
            user = self.users.get(int(user_id))
            if user is None:
                raise ApiError(404, 10013, "Unknown User")
            return user.payload()

        @route("GET", "/oauth2/applications/@me")
        async def get_app_oauth(rec: RecordedRequest) -> Any:
            return self._application_payload()

        @route("GET", "/applications/@me")
        async def get_app(rec: RecordedRequest) -> Any:
            return self._application_payload()

        @route("GET", "/guilds/{guild_id}")
        async def get_guild(rec: RecordedRequest, guild_id: str) -> Any:
            return self._guild_payload(self._guild(guild_id))

        @route("GET", "/guilds/{guild_id}/channels")
        async def get_guild_channels(rec: RecordedRequest, guild_id: str) -> Any:
            guild = self._guild(guild_id)
            return [self._channel_payload(self.channels[c]) for c in guild.channel_ids]

        @route("GET", "/guilds/{guild_id}/roles")
        async def get_roles(rec: RecordedRequest, guild_id: str) -> Any:
            return [r.payload() for r in self._guild(guild_id).roles.values()]

        @route("GET", "/guilds/{guild_id}/members/{user_id}")
        async def get_member(rec: RecordedRequest, guild_id: str, user_id: str) -> Any:
            guild = self._guild(guild_id)
            if int(user_id) not in guild.member_ids:
                raise ApiError(404, 10007, "Unknown Member")
            return self._member_payload(self.users[int(user_id)], guild)
