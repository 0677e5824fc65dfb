"""Application commands in the fake Discord: syncing them, and a user's command data.

:class:`CommandsMixin` stores the commands the bot syncs (``PUT``/``GET`` global and
guild commands, checked against Discord's limits) and builds the ``data`` of a slash
command or autocomplete interaction the way a Discord client would: the command a user
can see (``default_member_permissions``, DM availability), subcommands, and options
checked against the synced definition (required, choices, min/max, types), with their
``resolved`` users, members, channels and roles.
"""

from __future__ import annotations

from typing import Any

from . import limits
from .model import FakeChannel, FakeRole, FakeUser, HarnessError, RecordedRequest
from .rest import ApiError, RestMixin

ENTRY_POINT = 4
"""PRIMARY_ENTRY_POINT: the command that launches an Activity."""


class CommandsMixin(RestMixin):
    """Synced application commands; the data of a command interaction."""

    def enable_activities(self) -> dict[str, Any]:
        """What the Developer Portal's "Enable Activities" does: the default Entry Point
        command ("Launch", handled by Discord: ``handler`` 2, DISCORD_LAUNCH_ACTIVITY),
        which a bulk overwrite of the global commands must then keep."""
        command = {
            "id": str(self.snowflake()),
            "application_id": str(self.application_id),
            "version": str(self.snowflake()),
            "type": ENTRY_POINT,
            "name": "launch",
            "description": "",
            "handler": 2,
            "contexts": [0, 1, 2],
            "integration_types": [0, 1],
            "default_member_permissions": None,
            "nsfw": False,
        }
        self.global_commands = [*self.global_commands, command]
        return command

    def _command_routes(self) -> None:
        """GET and PUT global and guild application commands."""
        route = self._route

        def commands_for(application_id: str, guild_id: str | None) -> list[dict[str, Any]]:
            if int(application_id) != self.application_id:
                raise ApiError(403, 50001, "Missing Access")
            if guild_id is None:
                return self.global_commands
            if int(guild_id) not in self.guilds:
                raise ApiError(403, 50001, "Missing Access")
            return self.guild_commands.setdefault(int(guild_id), [])

        def overwrite(rec: RecordedRequest, application_id: str, guild_id: str | None) -> Any:
            commands_for(application_id, guild_id)
            body = rec.json or []
            entry = [c for c in self.global_commands if c.get("type") == ENTRY_POINT]
            if guild_id is None and entry and not any(c.get("type") == ENTRY_POINT for c in body):
                raise ApiError(  # as Discord answers it (the Activity's launcher stays)
                    400,
                    50240,
                    "You cannot remove this app's Entry Point command in a bulk update "
                    "operation. Please include the Entry Point command in your update "
                    "request or delete it separately.",
                )
            if len(body) > 100:
                self._check_limits(rec, [limits.Problem("", "more than 100 commands")])
            self._check_limits(rec, limits.check_commands(body))
            stored = []
            for command in body:
                data = {
                    "id": str(self.snowflake()),
                    "application_id": str(self.application_id),
                    "version": str(self.snowflake()),
                    "type": 1,
                    "description": "",
                    "default_member_permissions": None,
                    "nsfw": False,
                    **command,
                }
                if guild_id is not None:
                    data["guild_id"] = guild_id
                stored.append(data)
            if guild_id is None:
                self.global_commands = stored
            else:
                self.guild_commands[int(guild_id)] = stored
            return stored

        @route("PUT", "/applications/{application_id}/commands")
        async def put_global(rec: RecordedRequest, application_id: str) -> Any:
            return overwrite(rec, application_id, None)

        @route("GET", "/applications/{application_id}/commands")
        async def get_global(rec: RecordedRequest, application_id: str) -> Any:
            return commands_for(application_id, None)

        @route("PUT", "/applications/{application_id}/guilds/{guild_id}/commands")
        async def put_guild(rec: RecordedRequest, application_id: str, guild_id: str) -> Any:
            return overwrite(rec, application_id, guild_id)

        @route("GET", "/applications/{application_id}/guilds/{guild_id}/commands")
        async def get_guild_cmds(rec: RecordedRequest, application_id: str, guild_id: str) -> Any:
            return commands_for(application_id, guild_id)

    def _find_command(
        self, channel: FakeChannel, name: str, user: FakeUser
    ) -> tuple[dict[str, Any], bool]:
        candidates: list[tuple[dict[str, Any], bool]] = []
        if channel.guild_id is not None:
            candidates += [(c, True) for c in self.guild_commands.get(channel.guild_id, [])]
        candidates += [(c, False) for c in self.global_commands]
        for command, is_guild in candidates:
            if command["name"] == name and int(command.get("type") or 1) == 1:
                if channel.is_dm:
                    contexts = command.get("contexts")
                    if (contexts is not None and 1 not in contexts) or command.get(
                        "dm_permission"
                    ) is False:
                        raise HarnessError(f"/{name} is not available in DMs")
                needed = command.get("default_member_permissions")
                if needed is not None and channel.guild_id is not None:
                    has = self._permissions_in(user, channel)
                    if has & int(needed) != int(needed):
                        raise HarnessError(f"{user.name} does not see /{name} (permissions)")
                return command, is_guild
        raise HarnessError(f"/{name} is not a synced command here (the bot must sync it first)")

    def _command_data(
        self,
        user: FakeUser,
        channel: FakeChannel,
        name: str,
        options: dict[str, Any],
        focused: str | None,
    ) -> dict[str, Any]:
        words = name.split()
        command, is_guild = self._find_command(channel, words[0], user)
        resolved: dict[str, dict[str, Any]] = {}
        definition = command
        top: list[dict[str, Any]] = []
        holder = top
        for word in words[1:]:
            sub = next(
                (
                    o
                    for o in definition.get("options") or []
                    if o["name"] == word and o["type"] in (1, 2)
                ),
                None,
            )
            if sub is None:
                raise HarnessError(f"/{name}: no subcommand {word!r}")
            inner: list[dict[str, Any]] = []
            holder.append({"name": word, "type": sub["type"], "options": inner})
            holder, definition = inner, sub
        defined = {o["name"]: o for o in definition.get("options") or [] if o["type"] not in (1, 2)}
        if any(o["type"] in (1, 2) for o in definition.get("options") or []):
            raise HarnessError(f"/{name} needs a subcommand")
        for key, value in options.items():
            if key not in defined:
                raise HarnessError(f"/{name} has no option {key!r} (it has {sorted(defined)})")
            option = defined[key]
            holder.append(self._option_value(option, value, resolved, channel, focused == key))
        if focused is not None and focused not in options:
            raise HarnessError(f"the focused option {focused!r} needs a (partial) value")
        if focused is None:
            missing = [n for n, o in defined.items() if o.get("required") and n not in options]
            if missing:
                raise HarnessError(f"/{name} is missing required options {missing}")
        data: dict[str, Any] = {"id": command["id"], "name": words[0], "type": 1}
        if top:
            data["options"] = top
        if is_guild:
            data["guild_id"] = command["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return data

    def _option_value(
        self,
        option: dict[str, Any],
        value: Any,
        resolved: dict[str, dict[str, Any]],
        channel: FakeChannel,
        focused: bool,
    ) -> dict[str, Any]:
        kind = option["type"]
        out: dict[str, Any] = {"name": option["name"], "type": kind}
        if focused:
            if not option.get("autocomplete"):
                raise HarnessError(f"option {option['name']!r} has no autocomplete")
            out.update(value=str(value), focused=True)
            return out
        if kind == 6:  # user
            if not isinstance(value, FakeUser):
                raise HarnessError(f"option {option['name']!r} takes a FakeUser")
            resolved.setdefault("users", {})[str(value.id)] = value.payload()
            if channel.guild_id is not None:
                member = self._member_payload(value, self.guilds[channel.guild_id], channel)
                member.pop("user")
                resolved.setdefault("members", {})[str(value.id)] = member
            out["value"] = str(value.id)
        elif kind == 7:  # channel
            if not isinstance(value, FakeChannel):
                raise HarnessError(f"option {option['name']!r} takes a FakeChannel")
            ch = self._channel_payload(value)
            resolved.setdefault("channels", {})[str(value.id)] = {
                **ch,
                "permissions": str(self._permissions_in(self.bot_user, value)),
            }
            out["value"] = str(value.id)
        elif kind == 8:  # role
            if not isinstance(value, FakeRole):
                raise HarnessError(f"option {option['name']!r} takes a FakeRole")
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            out["value"] = str(value.id)
        else:
            types: dict[int, type | tuple[type, ...]] = {3: str, 4: int, 5: bool, 10: (int, float)}
            expected = types[kind]
            if not isinstance(value, expected) or (kind == 4 and isinstance(value, bool)):
                raise HarnessError(f"option {option['name']!r} takes {expected}, not {value!r}")
            choices = option.get("choices")
            if choices and value not in [c["value"] for c in choices]:
                raise HarnessError(
                    f"{value!r} is not one of the choices of {option['name']!r}: {choices}"
                )
            if kind in (4, 10):
                if "min_value" in option and value < option["min_value"]:
                    raise HarnessError(f"{value} is below the minimum of {option['name']!r}")
                if "max_value" in option and value > option["max_value"]:
                    raise HarnessError(f"{value} is above the maximum of {option['name']!r}")
            out["value"] = value
        return out
