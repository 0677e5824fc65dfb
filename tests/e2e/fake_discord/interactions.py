"""Interactions in the fake Discord: users acting, and the bot's answers to them.

:class:`InteractionsMixin` acts as users (``slash``, ``autocomplete``, ``click``,
``select``, ``submit_modal``, and the tampered ``forge_click``/``forge_select``):
it dispatches INTERACTION_CREATE, waits for the initial callback within Discord's 3 s
``deadline`` (and for a deferred response to be filled), and returns what the user saw,
raising ``ViolationError`` for the rules the bot broke meanwhile. It serves the
bot's side: the callback (types allowed per interaction, a second ack, a late one),
followups and ``@original`` edits through the interaction webhook (an unknown or
expired token, a followup before the ack).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from typing import Any

from .commands import CommandsMixin
from .messages import MessagesMixin
from .model import (
    EPHEMERAL,
    LOADING,
    FakeChannel,
    FakeMessage,
    FakeUser,
    HarnessError,
    InteractionRecord,
    InteractionResult,
    RecordedRequest,
    Violation,
    ViolationError,
    walk_components,
)
from .rest import ApiError


class InteractionsMixin(MessagesMixin, CommandsMixin):
    """Dispatching interactions as users; the bot's callbacks and followups."""

    # ------------------------------------------------------------------ interaction responses

    def _callback(self, rec: RecordedRequest, interaction_id: str, token: str) -> Any:
        loop = asyncio.get_running_loop()
        inter = self.interactions.get(int(interaction_id))
        if inter is None or inter.token != token:
            self._violate(
                Violation(
                    "unknown_interaction",
                    "callback for an interaction the fake never sent",
                    10062,
                    rec.method,
                    rec.path,
                )
            )
            raise ApiError(404, 10062, "Unknown interaction")
        inter.callback_seen.set()
        # Once acknowledged, the interaction stays known: a second ack is 40060 even late.
        if inter.callback is not None:
            self._violate(
                Violation(
                    "double_ack",
                    "a second initial response to one interaction",
                    40060,
                    rec.method,
                    rec.path,
                    inter.id,
                )
            )
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        late = loop.time() - inter.dispatched_at
        if late > self.deadline:
            self._violate(
                Violation(
                    "deadline",
                    f"initial response {late:.2f} s after dispatch; "
                    f"Discord allows {self.deadline:.0f} s",
                    10062,
                    rec.method,
                    rec.path,
                    inter.id,
                )
            )
            raise ApiError(404, 10062, "Unknown interaction")
        body = rec.json or {}
        kind = int(body.get("type") or 0)
        data = body.get("data") or {}
        allowed = {
            2: {4, 5, 9},  # application command
            3: {4, 5, 6, 7, 9},  # component
            4: {8},  # autocomplete
            5: {4, 5, 6, 7},  # modal submit (6/7 only when opened from a component)
        }[inter.type]
        if inter.type == 5 and inter.message_id is None:
            allowed = {4, 5}
        if kind not in allowed:
            self._violate(
                Violation(
                    "callback_type",
                    f"callback type {kind} is not valid for interaction type {inter.type}",
                    50035,
                    rec.method,
                    rec.path,
                    inter.id,
                )
            )
            raise ApiError(
                400,
                50035,
                "Invalid Form Body",
                {
                    "type": {
                        "_errors": [
                            {
                                "code": "INTERACTION_RESPONSE_TYPE_INVALID",
                                "message": "Invalid interaction response type",
                            }
                        ]
                    }
                },
            )

        inter.callback = body
        inter.answered_at = loop.time()
        inter.events.append(("callback", body))
        message: dict[str, Any] | None = None
        flags = int(data.get("flags") or 0)
        if kind in (4, 5):
            ephemeral = bool(flags & EPHEMERAL)
            message = self._new_message(
                inter.channel,
                data if kind == 4 else {},
                files=rec.files,
                interaction=inter,
                ephemeral_for=inter.user if ephemeral else None,
            )
            message["flags"] = (
                int(message.get("flags") or 0)
                | (EPHEMERAL if ephemeral else 0)
                | (LOADING if kind == 5 else 0)
            )
            self._message_history[int(message["id"])][-1]["flags"] = message["flags"]
            inter.original_message_id = int(message["id"])
            if kind == 4:
                inter.completed.set()
            if not ephemeral:
                self._spawn_dispatch("MESSAGE_CREATE", message)
        elif kind in (6, 7):
            assert inter.message_id is not None
            inter.original_message_id = inter.message_id
            if kind == 7:
                message = self._edit_message(inter.message_id, data, rec.files)
                if inter.message_id not in self._ephemeral_owner:
                    self._spawn_dispatch("MESSAGE_UPDATE", message)
                inter.completed.set()
        else:
            inter.completed.set()

        if rec.query.get("with_response") not in ("1", "true", "True"):
            return None
        response: dict[str, Any] = {
            "interaction": {"id": str(inter.id), "type": inter.type},
            "resource": {"type": kind},
        }
        if message is not None:
            response["interaction"].update(
                response_message_id=message["id"],
                response_message_loading=kind == 5,
                response_message_ephemeral=bool(int(message.get("flags") or 0) & EPHEMERAL),
            )
            response["resource"]["message"] = message
        return response

    def _interaction_by_token(
        self, rec: RecordedRequest, application_id: str, token: str
    ) -> InteractionRecord:
        inter = self._by_token.get(token)
        if inter is None or int(application_id) != self.application_id:
            self._violate(
                Violation(
                    "unknown_webhook",
                    "webhook request with an unknown token",
                    10015,
                    rec.method,
                    rec.path,
                )
            )
            raise ApiError(404, 10015, "Unknown Webhook")
        if asyncio.get_running_loop().time() - inter.dispatched_at > self.token_lifetime:
            self._violate(
                Violation(
                    "token_expired",
                    "interaction token used after 15 minutes",
                    50027,
                    rec.method,
                    rec.path,
                    inter.id,
                )
            )
            raise ApiError(401, 50027, "Invalid Webhook Token")
        if inter.callback is None:
            self._violate(
                Violation(
                    "followup_before_ack",
                    "webhook request before the interaction was acknowledged",
                    10015,
                    rec.method,
                    rec.path,
                    inter.id,
                )
            )
            raise ApiError(404, 10015, "Unknown Webhook")
        return inter

    def _webhook_message(
        self, rec: RecordedRequest, application_id: str, token: str, message_id: str
    ) -> tuple[InteractionRecord, int]:
        inter = self._interaction_by_token(rec, application_id, token)
        if message_id == "@original":
            if inter.original_message_id is None:
                raise ApiError(404, 10008, "Unknown Message")
            return inter, inter.original_message_id
        mid = int(message_id)
        if mid not in inter.followup_ids and mid != inter.original_message_id:
            raise ApiError(404, 10008, "Unknown Message")
        if mid in self._deleted_messages:
            raise ApiError(404, 10008, "Unknown Message")
        return inter, mid

    def _followup(self, rec: RecordedRequest, application_id: str, token: str) -> Any:
        inter = self._interaction_by_token(rec, application_id, token)
        body = rec.json or {}
        original = inter.original_message_id
        if (
            original is not None
            and self._message_data[original].get("flags", 0) & LOADING
            and original not in self._deleted_messages
        ):
            # After a deferred (type 5) response the first followup fills the
            # "thinking" message; it keeps the defer's ephemerality.
            data = self._message_data[original]
            data["flags"] = int(data["flags"]) & ~LOADING
            data = self._edit_message(original, body, rec.files)
            data["edited_timestamp"] = None
            inter.events.append(("followup", body))
            inter.completed.set()
            if original not in self._ephemeral_owner:
                self._spawn_dispatch("MESSAGE_UPDATE", data)
        else:
            ephemeral = bool(int(body.get("flags") or 0) & EPHEMERAL)
            data = self._new_message(
                inter.channel,
                body,
                files=rec.files,
                interaction=inter,
                ephemeral_for=inter.user if ephemeral else None,
            )
            data["flags"] = int(data.get("flags") or 0) | (EPHEMERAL if ephemeral else 0)
            self._message_history[int(data["id"])][-1]["flags"] = data["flags"]
            inter.followup_ids.append(int(data["id"]))
            inter.events.append(("followup", body))
            inter.completed.set()
            if not ephemeral:
                self._spawn_dispatch("MESSAGE_CREATE", data)
        if rec.query.get("wait") in ("true", "1", "True"):
            return data
        return None

    def _interaction_routes(self) -> None:
        """The interaction callback and webhook (followups, edits)."""
        route = self._route

        @route("POST", "/interactions/{interaction_id}/{token}/callback")
        async def callback(rec: RecordedRequest, interaction_id: str, token: str) -> Any:
            return self._callback(rec, interaction_id, token)

        @route("POST", "/webhooks/{application_id}/{token}")
        async def followup(rec: RecordedRequest, application_id: str, token: str) -> Any:
            return self._followup(rec, application_id, token)

        @route("GET", "/webhooks/{application_id}/{token}/messages/{message_id}")
        async def get_webhook_message(
            rec: RecordedRequest, application_id: str, token: str, message_id: str
        ) -> Any:
            _inter, mid = self._webhook_message(rec, application_id, token, message_id)
            return self._message_data[mid]

        @route("PATCH", "/webhooks/{application_id}/{token}/messages/{message_id}")
        async def edit_webhook_message(
            rec: RecordedRequest, application_id: str, token: str, message_id: str
        ) -> Any:
            inter, mid = self._webhook_message(rec, application_id, token, message_id)
            body = rec.json or {}
            data = self._message_data[mid]
            was_loading = bool(int(data.get("flags") or 0) & LOADING)
            if was_loading:
                data["flags"] = int(data["flags"]) & ~LOADING
            self._edit_message(mid, body, rec.files)
            inter.events.append(
                ("edit_original" if mid == inter.original_message_id else "edit_followup", body)
            )
            if was_loading or mid == inter.original_message_id:
                inter.completed.set()
            if mid not in self._ephemeral_owner:
                self._spawn_dispatch("MESSAGE_UPDATE", self._message_data[mid])
            return self._message_data[mid]

        @route("DELETE", "/webhooks/{application_id}/{token}/messages/{message_id}")
        async def delete_webhook_message(
            rec: RecordedRequest, application_id: str, token: str, message_id: str
        ) -> Any:
            inter, mid = self._webhook_message(rec, application_id, token, message_id)
            self._deleted_messages.add(mid)
            inter.events.append(("delete", mid))
            inter.completed.set()
            return None

    # ------------------------------------------------------------------ acting as users

    def _interaction_base(
        self, kind: int, user: FakeUser, channel: FakeChannel, data: dict[str, Any]
    ) -> InteractionRecord:
        iid = self.snowflake()
        token = "itok-" + secrets.token_urlsafe(24)
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": kind,
            "data": data,
            "token": token,
            "version": 1,
            "channel": self._channel_payload(channel),
            "channel_id": str(channel.id),
            "locale": user.locale,
            "app_permissions": str(self._permissions_in(self.bot_user, channel)),
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if channel.guild_id is not None:
            guild = self.guilds[channel.guild_id]
            if user.id not in guild.member_ids:
                raise HarnessError(f"{user.name} is not a member of {guild.name}")
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": guild.locale, "features": []},
                guild_locale=guild.locale,
                member=self._member_payload(user, guild, channel),
                authorizing_integration_owners={"0": str(guild.id)},
                context=0,
            )
        else:
            payload.update(
                user=user.payload(), authorizing_integration_owners={"1": str(user.id)}, context=1
            )
        record = InteractionRecord(iid, token, kind, user, channel, payload)
        return record

    async def _run(
        self, record: InteractionRecord, *, expect_response: bool = True
    ) -> InteractionResult:
        shard = self._shard_for_event("INTERACTION_CREATE", record.payload)
        if shard not in self._shard_sessions:  # never identified; a disconnected bot gets
            await self.wait_connected(shard=shard)  # it on RESUME
        loop = asyncio.get_running_loop()
        first_violation = len(self.violations)
        self.interactions[record.id] = record
        self._by_token[record.token] = record
        record.dispatched_at = loop.time()
        await self.dispatch("INTERACTION_CREATE", record.payload)
        result = InteractionResult(self, record)
        # Wait for an accepted initial response; a rejected attempt (bad body, wrong
        # type) may be followed by a valid one, so keep waiting until the deadline.
        end = record.dispatched_at + self.deadline + self.grace
        while record.callback is None and loop.time() < end:
            record.callback_seen.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(record.callback_seen.wait(), end - loop.time())
            if record.callback is None and loop.time() - record.dispatched_at > self.deadline:
                break  # a late attempt was already rejected with 10062
        if record.callback is None and expect_response:
            self._violate(
                Violation(
                    "not_acknowledged",
                    f"no initial response within {self.deadline:.0f} s: the user sees "
                    "'This interaction failed'",
                    10062,
                    interaction_id=record.id,
                )
            )
        elif record.callback is not None and record.callback.get("type") == 6:
            # A deferred update needs no followup, but usually gets an edit soon.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(record.completed.wait(), self.deferred_update_wait)
        elif record.callback is not None and not record.completed.is_set():
            try:
                await asyncio.wait_for(record.completed.wait(), self.followup_timeout)
            except TimeoutError:
                self._violate(
                    Violation(
                        "deferred_never_completed",
                        f"deferred response not followed up within {self.followup_timeout} s",
                        interaction_id=record.id,
                    )
                )
        if self.settle_after_interaction:
            await self.settle()
        new = [
            (i, v)
            for i, v in enumerate(self.violations[first_violation:], start=first_violation)
            if i not in self._reported and v.interaction_id in (None, record.id)
        ]
        new += [
            (i, v)
            for i, v in enumerate(self.violations)
            if i not in self._reported and v.interaction_id == record.id and i < first_violation
        ]
        if new:
            self._reported.update(i for i, _ in new)
            result.violations = [v for _, v in new]
            raise ViolationError(result.violations, result)
        return result

    async def slash(
        self, user: FakeUser, channel: FakeChannel, name: str, /, **options: Any
    ) -> InteractionResult:
        """Run ``/name`` (``"game start"`` for a subcommand) as ``user`` in ``channel``.

        The first three are positional-only, so options may be named user/channel/name."""
        data = self._command_data(user, channel, name, options, None)
        return await self._run(self._interaction_base(2, user, channel, data))

    async def autocomplete(
        self, user: FakeUser, channel: FakeChannel, name: str, /, focused: str, **options: Any
    ) -> list[dict[str, Any]]:
        """Type into option ``focused`` of ``/name``; returns the offered choices."""
        data = self._command_data(user, channel, name, options, focused)
        result = await self._run(self._interaction_base(4, user, channel, data))
        if result.callback_type != 8:
            raise HarnessError(f"autocomplete answered with callback type {result.callback_type}")
        return result.choices

    def _message_for(self, user: FakeUser, message: FakeMessage | int) -> FakeMessage:
        msg = message if isinstance(message, FakeMessage) else self.message(message)
        if msg.deleted:
            raise HarnessError(f"{msg!r} was deleted")
        owner = msg.visible_to
        if owner is not None and owner != user.id:
            raise HarnessError(f"{user.name} cannot see the ephemeral message {msg.id}")
        channel = self.channels[msg.channel_id]
        if channel.is_dm and channel.recipient is not user:
            raise HarnessError(f"{user.name} cannot see a DM of {channel.recipient}")
        return msg

    def _component_payload(
        self, user: FakeUser, msg: FakeMessage, data: dict[str, Any]
    ) -> InteractionRecord:
        channel = self.channels[msg.channel_id]
        record = self._interaction_base(3, user, channel, data)
        record.payload["message"] = json.loads(json.dumps(msg.data))
        record.message_id = msg.id
        return record

    async def click(
        self, user: FakeUser, message: FakeMessage | int, button: str
    ) -> InteractionResult:
        """Click the button whose custom_id or label is ``button``."""
        msg = self._message_for(user, message)
        found = [b for b in msg.buttons() if b.get("custom_id") == button] or [
            b for b in msg.buttons() if b.get("label") == button
        ]
        if len(found) != 1:
            raise HarnessError(
                f"{len(found)} buttons match {button!r}; the message has {msg.button_labels()}"
            )
        target = found[0]
        if target.get("disabled"):
            raise HarnessError(f"button {button!r} is disabled")
        if target.get("style") in (5, 6) or not target.get("custom_id"):
            raise HarnessError(
                f"button {button!r} is a link/premium button, nothing is sent to the bot"
            )
        data = {"custom_id": target["custom_id"], "component_type": 2}
        return await self._run(self._component_payload(user, msg, data))

    async def forge_click(
        self, user: FakeUser, message: FakeMessage | int, custom_id: str
    ) -> InteractionResult:
        """A button interaction carrying any ``custom_id`` on a message the user can see,
        as a tampered client could send; the bot must refuse it with a sentence."""
        msg = self._message_for(user, message)
        data = {"custom_id": custom_id, "component_type": 2}
        return await self._run(self._component_payload(user, msg, data))

    async def select(
        self, user: FakeUser, message: FakeMessage | int, select: str, values: list[str]
    ) -> InteractionResult:
        """Choose ``values`` in the select whose custom_id (or placeholder) is ``select``."""
        return await self._select(user, message, select, values, forged=False)

    async def forge_select(
        self, user: FakeUser, message: FakeMessage | int, select: str, values: list[str]
    ) -> InteractionResult:
        """Send ``values`` that are not among the select's options, as a tampered client
        could; the bot must refuse them with a sentence."""
        return await self._select(user, message, select, values, forged=True)

    async def _select(
        self,
        user: FakeUser,
        message: FakeMessage | int,
        select: str,
        values: list[str],
        *,
        forged: bool,
    ) -> InteractionResult:
        msg = self._message_for(user, message)
        found = [s for s in msg.selects() if s.get("custom_id") == select] or [
            s for s in msg.selects() if s.get("placeholder") == select
        ]
        if len(found) != 1:
            raise HarnessError(f"{len(found)} selects match {select!r}")
        target = found[0]
        if target.get("disabled"):
            raise HarnessError(f"select {select!r} is disabled")
        low, high = target.get("min_values", 1), target.get("max_values", 1)
        if not low <= len(values) <= high:
            raise HarnessError(f"select {select!r} takes {low} to {high} values, not {len(values)}")
        data: dict[str, Any] = {
            "custom_id": target["custom_id"],
            "component_type": target["type"],
            "values": list(values),
        }
        if target["type"] == 3 and not forged:
            offered = [o["value"] for o in target.get("options") or []]
            bad = [v for v in values if v not in offered]
            if bad:
                raise HarnessError(f"{bad} are not options of {select!r} ({offered})")
        return await self._run(self._component_payload(user, msg, data))

    async def submit_modal(
        self, user: FakeUser, opened_by: InteractionResult, values: dict[str, str]
    ) -> InteractionResult:
        """Fill in and submit the modal that ``opened_by`` answered with (callback type 9)."""
        modal = opened_by.modal
        if modal is None:
            raise HarnessError("that interaction did not open a modal")
        if opened_by.record.user is not user:
            raise HarnessError("only the user who opened a modal can submit it")
        rows: list[dict[str, Any]] = []
        inputs = [c for c in walk_components(modal.get("components") or []) if c.get("type") == 4]
        known = {c["custom_id"] for c in inputs}
        unknown = set(values) - known
        if unknown:
            raise HarnessError(
                f"the modal has no inputs {sorted(unknown)} (it has {sorted(known)})"
            )
        for c in inputs:
            if c.get("required", True) and not values.get(c["custom_id"], c.get("value")):
                raise HarnessError(f"input {c['custom_id']!r} is required")
        for row in modal.get("components") or []:
            if row.get("type") == 1:
                children = [
                    {
                        "type": 4,
                        "custom_id": c["custom_id"],
                        "value": values.get(c["custom_id"], c.get("value") or ""),
                    }
                    for c in row.get("components") or []
                    if c.get("type") == 4
                ]
                rows.append({"type": 1, "components": children})
            elif row.get("type") == 18 and (row.get("component") or {}).get("type") == 4:
                c = row["component"]
                rows.append(
                    {
                        "type": 18,
                        "component": {
                            "type": 4,
                            "custom_id": c["custom_id"],
                            "value": values.get(c["custom_id"], c.get("value") or ""),
                        },
                    }
                )
        data = {"custom_id": modal["custom_id"], "components": rows}
        parent = opened_by.record
        record = self._interaction_base(5, user, parent.channel, data)
        if parent.message_id is not None:
            record.payload["message"] = json.loads(
                json.dumps(self._message_data[parent.message_id])
            )
            record.message_id = parent.message_id
        return await self._run(record)
