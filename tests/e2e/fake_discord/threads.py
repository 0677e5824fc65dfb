"""Channels and threads of the fake Discord, as the bot changes them.

:class:`ThreadsMixin` serves ``GET``/``PATCH /channels/{id}`` (rename; archive and lock
a thread), threads from a message (the thread has the message's id) and without one
(private by default), thread members, and the guild's active threads; each change is
dispatched (THREAD_CREATE / THREAD_UPDATE / CHANNEL_UPDATE). ``threads()`` lists them.
"""

from __future__ import annotations

from typing import Any

from .gateway import GatewayMixin
from .model import GUILD_TEXT, PRIVATE_THREAD, PUBLIC_THREAD, FakeChannel, RecordedRequest
from .rest import ApiError


class ThreadsMixin(GatewayMixin):
    """Channel and thread routes; ``threads()``."""

    def threads(self, channel: FakeChannel | int | None = None) -> list[FakeChannel]:
        parent = None if channel is None else self._channel_id(channel)
        return [
            c
            for c in self.channels.values()
            if c.is_thread and (parent is None or c.parent_id == parent)
        ]

    def _create_thread(
        self, parent: FakeChannel, body: dict[str, Any], kind: int, message_id: int | None
    ) -> FakeChannel:
        thread = FakeChannel(
            message_id or self.snowflake(),
            kind,
            str(body.get("name") or "thread"),
            guild_id=parent.guild_id,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
        )
        thread.member_ids.add(self.bot_user.id)
        self.channels[thread.id] = thread
        assert parent.guild_id is not None
        self.guilds[parent.guild_id].channel_ids.append(thread.id)
        self._channel_messages[thread.id] = []
        self._spawn_dispatch(
            "THREAD_CREATE", {**self._channel_payload(thread), "newly_created": True}
        )
        return thread

    def _thread_routes(self) -> None:
        """Channels, threads and thread members."""
        route = self._route

        @route("GET", "/channels/{channel_id}")
        async def get_channel(rec: RecordedRequest, channel_id: str) -> Any:
            return self._channel_payload(self._get_channel(channel_id))

        @route("PATCH", "/channels/{channel_id}")
        async def edit_channel(rec: RecordedRequest, channel_id: str) -> Any:
            channel = self._get_channel(channel_id)
            body = rec.json or {}
            if channel.is_thread:
                if "archived" in body:
                    channel.archived = bool(body["archived"])
                if "locked" in body:
                    channel.locked = bool(body["locked"])
            if body.get("name"):
                channel.name = body["name"]
            data = self._channel_payload(channel)
            self._spawn_dispatch("THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE", data)
            return data

        @route("POST", "/channels/{channel_id}/messages/{message_id}/threads")
        async def thread_from_message(
            rec: RecordedRequest, channel_id: str, message_id: str
        ) -> Any:
            channel = self._get_channel(channel_id)
            data = self._get_message(channel, message_id)
            if channel.type != GUILD_TEXT:
                raise ApiError(400, 50024, "Cannot execute action on this channel type")
            self._need(channel, view_channel=True, create_public_threads=True)
            if "thread" in data:
                raise ApiError(400, 160004, "A thread has already been created for this message")
            thread = self._create_thread(channel, rec.json or {}, PUBLIC_THREAD, int(message_id))
            data["thread"] = self._channel_payload(thread)
            return data["thread"]

        @route("POST", "/channels/{channel_id}/threads")
        async def thread_without_message(rec: RecordedRequest, channel_id: str) -> Any:
            channel = self._get_channel(channel_id)
            if channel.type != GUILD_TEXT:
                raise ApiError(400, 50024, "Cannot execute action on this channel type")
            body = rec.json or {}
            kind = int(body.get("type") or PRIVATE_THREAD)
            if kind == PRIVATE_THREAD:
                self._need(channel, view_channel=True, create_private_threads=True)
            else:
                self._need(channel, view_channel=True, create_public_threads=True)
            return self._channel_payload(self._create_thread(channel, body, kind, None))

        @route("PUT", "/channels/{channel_id}/thread-members/{user_id}")
        async def join_thread(rec: RecordedRequest, channel_id: str, user_id: str) -> Any:
            channel = self._get_channel(channel_id)
            if not channel.is_thread:
                raise ApiError(400, 50024, "Cannot execute action on this channel type")
            uid = self.bot_user.id if user_id == "@me" else int(user_id)
            if uid not in self.users:
                raise ApiError(404, 10013, "Unknown User")
            channel.member_ids.add(uid)
            return None

        @route("DELETE", "/channels/{channel_id}/thread-members/{user_id}")
        async def leave_thread(rec: RecordedRequest, channel_id: str, user_id: str) -> Any:
            channel = self._get_channel(channel_id)
            channel.member_ids.discard(self.bot_user.id if user_id == "@me" else int(user_id))
            return None

        @route("GET", "/guilds/{guild_id}/threads/active")
        async def active_threads(rec: RecordedRequest, guild_id: str) -> Any:
            guild = self._guild(guild_id)
            threads = [
                self._channel_payload(c)
                for c in self.channels.values()
                if c.is_thread and c.guild_id == guild.id and not c.archived
            ]
            return {"threads": threads, "members": []}
