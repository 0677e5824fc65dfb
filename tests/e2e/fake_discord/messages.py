"""Messages of the fake Discord: channel messages, edits, deletions, pins, attachments, DMs.

:class:`MessagesMixin` keeps every message with its versions (``_new_message``,
``_edit_message``: content, embeds, components, flags, attachments from multipart
bodies), answers the channel message routes as Discord does (permissions, closed DMs,
locked threads, empty messages, ``enforce_nonce``) and dispatches MESSAGE_CREATE /
UPDATE / DELETE. Tests read what users see: ``messages``, ``last_message``,
``ephemeral_messages``, ``visible_messages``, ``dm_messages``, ``public_texts``,
``texts_seen_by``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from . import faults as flt
from . import limits
from .gateway import GatewayMixin
from .model import (
    DM,
    EPHEMERAL,
    LOADING,
    FakeChannel,
    FakeFile,
    FakeMessage,
    FakeUser,
    HarnessError,
    InteractionRecord,
    RecordedRequest,
    iso_now,
    message_text,
)
from .rest import ApiError


class MessagesMixin(GatewayMixin):
    """Storing, serving and reading messages (public, ephemeral, in DMs)."""

    # ------------------------------------------------------------------ reading state

    def message(self, message_id: int) -> FakeMessage:
        if message_id not in self._message_data:
            raise HarnessError(f"no message {message_id}")
        return FakeMessage(self, message_id)

    def messages(
        self, channel: FakeChannel | int, *, include_deleted: bool = False
    ) -> list[FakeMessage]:
        """Public messages in a channel, thread or DM, oldest first, as everyone sees them."""
        cid = self._channel_id(channel)
        return [
            FakeMessage(self, mid)
            for mid in self._channel_messages.get(cid, [])
            if mid not in self._ephemeral_owner
            and (include_deleted or mid not in self._deleted_messages)
        ]

    def last_message(self, channel: FakeChannel | int) -> FakeMessage:
        found = self.messages(channel)
        if not found:
            raise HarnessError(f"no message in channel {self._channel_id(channel)}")
        return found[-1]

    def ephemeral_messages(
        self, user: FakeUser, channel: FakeChannel | int | None = None
    ) -> list[FakeMessage]:
        """Ephemeral messages only ``user`` sees, oldest first (optionally in one channel)."""
        return [
            FakeMessage(self, mid)
            for mid, owner in self._ephemeral_owner.items()
            if owner == user.id
            and mid not in self._deleted_messages
            and (
                channel is None
                or int(self._message_data[mid]["channel_id"]) == self._channel_id(channel)
            )
        ]

    def visible_messages(self, user: FakeUser, channel: FakeChannel | int) -> list[FakeMessage]:
        """What ``user`` sees in a channel: public messages and their own ephemerals."""
        cid = self._channel_id(channel)
        return [
            FakeMessage(self, mid)
            for mid in self._channel_messages.get(cid, [])
            if mid not in self._deleted_messages
            and self._ephemeral_owner.get(mid, user.id) == user.id
        ]

    def dm_channel(self, user: FakeUser) -> FakeChannel | None:
        cid = self._dm_channels.get(user.id)
        return None if cid is None else self.channels[cid]

    def open_dm(self, user: FakeUser) -> FakeChannel:
        """The DM channel between ``user`` and the bot (created as a user opening it would)."""
        if user.id not in self._dm_channels:
            channel = FakeChannel(self.snowflake(), DM, recipient=user)
            self.channels[channel.id] = channel
            self._channel_messages[channel.id] = []
            self._dm_channels[user.id] = channel.id
        return self.channels[self._dm_channels[user.id]]

    def dm_messages(self, user: FakeUser) -> list[FakeMessage]:
        channel = self.dm_channel(user)
        return [] if channel is None else self.messages(channel)

    def public_texts(self) -> list[str]:
        """The text of every version of every non-ephemeral guild message (incl. deleted
        and since-edited ones): what any member of the server may have read."""
        texts = []
        for mid, versions in self._message_history.items():
            if mid in self._ephemeral_owner:
                continue
            channel = self.channels.get(int(self._message_data[mid]["channel_id"]))
            if channel is None or channel.is_dm:
                continue
            texts += [message_text(v) for v in versions]
        return texts

    def texts_seen_by(self, user: FakeUser) -> list[str]:
        """Every version of every message ``user`` could read: public, their ephemerals
        and their DMs."""
        texts = list(self.public_texts())
        dm = self._dm_channels.get(user.id)
        for mid, versions in self._message_history.items():
            owner = self._ephemeral_owner.get(mid)
            in_dm = int(self._message_data[mid]["channel_id"]) == dm
            if owner == user.id or (owner is None and in_dm):
                texts += [message_text(v) for v in versions]
        return texts

    # ------------------------------------------------------------------ storing

    def _new_message(
        self,
        channel: FakeChannel,
        body: dict[str, Any],
        *,
        author: FakeUser | None = None,
        files: list[FakeFile] | None = None,
        interaction: InteractionRecord | None = None,
        ephemeral_for: FakeUser | None = None,
        message_id: int | None = None,
    ) -> dict[str, Any]:
        mid = message_id or self.snowflake()
        author = author or self.bot_user
        data: dict[str, Any] = {
            "id": str(mid),
            "channel_id": str(channel.id),
            "author": author.payload(),
            "content": "",
            "timestamp": iso_now(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "components": [],
            "pinned": False,
            "type": 0,
            "flags": 0,
        }
        if channel.guild_id is not None:
            data["guild_id"] = str(channel.guild_id)
        if interaction is not None:
            data["webhook_id"] = str(self.application_id)
            data["application_id"] = str(self.application_id)
            data["interaction_metadata"] = {
                "id": str(interaction.id),
                "type": interaction.type,
                "user": interaction.user.payload(),
                "authorizing_integration_owners": interaction.payload.get(
                    "authorizing_integration_owners", {}
                ),
            }
            if interaction.type == 2:
                data["type"] = 20  # CHAT_INPUT_COMMAND
        self._apply_body(data, body, files or [])
        self._message_data[mid] = data
        self._message_history[mid] = [json.loads(json.dumps(data))]
        self._channel_messages.setdefault(channel.id, []).append(mid)
        if ephemeral_for is not None:
            self._ephemeral_owner[mid] = ephemeral_for.id
        return data

    def _apply_body(
        self, data: dict[str, Any], body: dict[str, Any], files: list[FakeFile]
    ) -> None:
        for key in ("content", "embeds", "components", "poll", "tts"):
            if key in body:
                value = body[key]
                data[key] = value if value is not None else ([] if key != "content" else "")
        for embed in data["embeds"]:
            embed.setdefault("type", "rich")
        if "flags" in body and body["flags"] is not None:
            # Only some flags can be set by a bot; keep ephemeral/loading as they are.
            keep = int(data.get("flags") or 0) & (EPHEMERAL | LOADING)
            data["flags"] = keep | (int(body["flags"]) & ~(EPHEMERAL | LOADING))
        if body.get("message_reference"):
            data["message_reference"] = body["message_reference"]
            data["type"] = 19
        if "attachments" in body or files:
            data["attachments"] = self._attachments(data, body.get("attachments"), files)

    def _attachments(
        self, data: dict[str, Any], wanted: list[dict[str, Any]] | None, files: list[FakeFile]
    ) -> list[dict[str, Any]]:
        existing = {a["id"]: a for a in data.get("attachments") or []}
        by_index = {}
        for f in files:
            m = re.fullmatch(r"files\[(\d+)\]", f.field)
            if m:
                by_index[m.group(1)] = f
        result = []
        items = wanted if wanted is not None else [{"id": i} for i in by_index]
        for item in items:
            key = str(item.get("id"))
            if key in existing:
                result.append(existing[key])
            elif key in by_index:
                f = by_index[key]
                aid = self.snowflake()
                self.files[aid] = f.data
                result.append(
                    {
                        "id": str(aid),
                        "filename": item.get("filename") or f.filename,
                        "description": item.get("description"),
                        "content_type": f.content_type,
                        "size": len(f.data),
                        "url": f"http://127.0.0.1:{self.port}/attachments/{aid}/{f.filename}",
                        "proxy_url": f"http://127.0.0.1:{self.port}/attachments/{aid}/{f.filename}",
                    }
                )
        return result

    def _edit_message(
        self, mid: int, body: dict[str, Any], files: list[FakeFile]
    ) -> dict[str, Any]:
        data = self._message_data[mid]
        self._apply_body(data, body, files)
        data["edited_timestamp"] = iso_now()
        self._message_history[mid].append(json.loads(json.dumps(data)))
        return data

    # ------------------------------------------------------------------ routes

    def _message_routes(self) -> None:
        """Channel messages, pins, typing, and opening a DM."""
        route = self._route

        @route("GET", "/channels/{channel_id}/messages")
        async def list_messages(rec: RecordedRequest, channel_id: str) -> Any:
            channel = self._get_channel(channel_id)
            self._need(channel, view_channel=True, read_message_history=True)
            limit = int(rec.query.get("limit", 50))
            found = [m.data for m in self.messages(channel)]
            if "before" in rec.query:
                found = [m for m in found if int(m["id"]) < int(rec.query["before"])]
            if "after" in rec.query:
                found = [m for m in found if int(m["id"]) > int(rec.query["after"])]
                return list(reversed(found[:limit]))
            return list(reversed(found[-limit:]))

        @route("POST", "/channels/{channel_id}/messages")
        async def create_message(rec: RecordedRequest, channel_id: str) -> Any:
            channel = self._get_channel(channel_id)
            body = rec.json or {}
            if channel.is_dm:
                assert channel.recipient is not None
                if not channel.recipient.dms_open:
                    raise ApiError(403, 50007, "Cannot send messages to this user")
            else:
                if channel.is_thread:
                    self._need(channel, view_channel=True, send_messages_in_threads=True)
                    if channel.locked:
                        raise ApiError(403, 50083, "Thread is archived")
                    channel.archived = False
                else:
                    self._need(channel, view_channel=True, send_messages=True)
                if body.get("embeds"):
                    self._need(channel, embed_links=True)
                if rec.files:
                    self._need(channel, attach_files=True)
            if (
                not any(
                    body.get(k) for k in ("content", "embeds", "components", "sticker_ids", "poll")
                )
                and not rec.files
            ):
                self._check_limits(rec, [limits.Problem("", "Cannot send an empty message")])
            nonce = body.get("nonce")
            key = (channel.id, self.bot_user.id, str(nonce))
            now = self.clock()
            if nonce is not None and body.get("enforce_nonce"):
                seen = self._nonces.get(key)
                if (
                    seen is not None
                    and now - seen[1] <= flt.NONCE_WINDOW
                    and seen[0] not in self._deleted_messages
                ):
                    self.nonce_repeats.append(seen[0])
                    return self._message_data[seen[0]]  # the same message, not a new one
            data = self._new_message(channel, body, files=rec.files)
            if nonce is not None:
                data["nonce"] = nonce
                self._nonces[key] = (int(data["id"]), now)
            self._spawn_dispatch("MESSAGE_CREATE", data)
            return data

        @route("GET", "/channels/{channel_id}/messages/{message_id}")
        async def get_message(rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
            channel = self._get_channel(channel_id)
            self._need(channel, view_channel=True, read_message_history=True)
            return self._get_message(channel, message_id)

        @route("PATCH", "/channels/{channel_id}/messages/{message_id}")
        async def edit_message(rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
            channel = self._get_channel(channel_id)
            data = self._get_message(channel, message_id)
            if int(data["author"]["id"]) != self.bot_user.id:
                raise ApiError(403, 50005, "Cannot edit a message authored by another user")
            if channel.is_thread and channel.locked:
                raise ApiError(403, 50083, "Thread is archived")
            body = rec.json or {}
            new = self._edit_message(int(message_id), body, rec.files)
            self._spawn_dispatch("MESSAGE_UPDATE", new)
            return new

        @route("DELETE", "/channels/{channel_id}/messages/{message_id}")
        async def delete_message(rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
            channel = self._get_channel(channel_id)
            data = self._get_message(channel, message_id)
            if int(data["author"]["id"]) != self.bot_user.id:
                self._need(channel, manage_messages=True)
            self._deleted_messages.add(int(message_id))
            event = {"id": message_id, "channel_id": channel_id}
            if channel.guild_id:
                event["guild_id"] = str(channel.guild_id)
            self._spawn_dispatch("MESSAGE_DELETE", event)
            return None

        @route("PUT", "/channels/{channel_id}/messages/pins/{message_id}")
        async def pin(rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
            channel = self._get_channel(channel_id)
            data = self._get_message(channel, message_id)
            if not channel.is_dm:
                self._need(channel, pin_messages=True)
            data["pinned"] = True
            return None

        @route("DELETE", "/channels/{channel_id}/messages/pins/{message_id}")
        async def unpin(rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
            channel = self._get_channel(channel_id)
            data = self._get_message(channel, message_id)
            if not channel.is_dm:
                self._need(channel, pin_messages=True)
            data["pinned"] = False
            return None

        @route("POST", "/channels/{channel_id}/typing")
        async def typing(rec: RecordedRequest, channel_id: str) -> Any:
            self._get_channel(channel_id)
            return None

        @route("POST", "/users/@me/channels")
        async def open_dm(rec: RecordedRequest) -> Any:
            body = rec.json or {}
            user = self.users.get(int(body.get("recipient_id") or 0))
            if user is None or user.bot:
                raise ApiError(400, 50033, "Invalid Recipient(s)")
            return self._channel_payload(self.open_dm(user))
