"""The Discord Activity's server side: the third front end over the table core.

Discord opens the Activity (``/activity/``, the page and its script: ``web/activity/``)
in an iframe and proxies its requests here: its URL mapping sends the Activity's root
to ``<WEB_BASE_URL>/activity``, so every address the page uses is relative.

| under ``/activity`` | what |
|---|---|
| ``GET /`` | the page (or a page saying the Activity is off) |
| ``GET /static/<file>`` | the pages' files, as ``/static/<file>`` |
| ``POST /api/token`` | ``{"code"}``: Discord's OAuth2 code → the user and a session |
| ``GET /api/table?instance=<id>`` | the table as this user sees it (or ``?game=<token>``) |
| ``POST /api/move`` | ``{"game", "version", "index"}`` (Tonttu: ``round``, ``phase``, ``action``) |
| ``POST /api/undo`` | ``{"game", "version"}`` |
| ``GET /api/events?game=<token>`` | Server-Sent Events: the game changed (``event: table``) |

Sign-in, as Discord documents it: the page's SDK asks Discord to ``authorize`` (scope
``identify``) and posts the code here; the server exchanges it with Discord and answers
the access token and a **session** of the bot's own, which every API call but the
exchange carries (``Authorization: Bearer <session>``). What is asked of Discord (the
code exchange, the user, the Activity instance's channel and users) and the sessions
are ``web/discord_sign_in.py``'s.

A move is the very call a button makes, with the same checks and sentences: Santa's
Workshop's ``Tables.choose`` at the version the page showed (a stale one is refused
with the button's sentence and the fresh table), Workshop Tonttu's
``Tables.submit_checked`` judged by the round and phase the page showed (``still_open``),
the bot's flood guard for the user (shared with their clicks in Discord); then the
thread shows it as after a button and the computer seats move (``Core.publish_move``,
in the background: the page is answered first).

A seated player sees their own view (their hand, their workbench, never another's) and
their choices, each with the board target it sits on (``engine/choices.py``); a
spectator sees the public board and no choice. The Activity does not follow a server's
``/settings pages`` switch: it shows a table only to a Discord user signed in through
the bot's application, in the channel where the game is.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeGuard

from aiohttp import web
from pydantic import ValidationError

import i18n
from engine import undo as undo_events
from engine.core import IllegalAction
from engine.errors import NotInGame, RuleError
from engine.guide import first_time
from engine.tonttu.race_words import too_late
from engine.tonttu.rules import PhaseClosed, is_race, still_open
from engine.words import N_, Words
from storage import GameInfo, GameNotFound, LoadedGame, Storage, human_player
from tables import drawing
from tables.service import (
    BadChoice,
    Played,
    StaleBoard,
    Tables,
    choices_for,
    engine_of,
    suggested_index,
)
from web.activity_words import (
    AWAY,
    MALFORMED,
    NO_GAME,
    NO_SESSION,
    NOT_STARTED,
    NOT_THERE,
    OFF,
    REFUSED,
    TOO_MANY,
    choice_label,
    over,
    viewer_html,
    watching,
)
from web.boards import decision_text
from web.discord_sign_in import (
    DISCORD_API,
    SESSION_SECONDS,
    Away,
    Discord,
    NotAccepted,
    Session,
    Sessions,
)
from web.live import Live
from web.page import REVEALS_BACK
from web.templating import render

log = logging.getLogger(__name__)

PREFIX = "/activity"
FRAME_ANCESTORS = (
    "https://discord.com https://*.discord.com https://discordapp.com "
    "https://*.discordapp.com https://*.discordsays.com"
)
"""Who may frame the Activity: Discord's own clients (the web app, ptb and canary, the
desktop app) and its Activity proxy; nobody else (every other page: ``'none'``)."""
TONTTU_PHASES = ("pick", "point")
INSTANCE = re.compile(r"[A-Za-z0-9_-]{1,100}")
PHASE_CHANGES = frozenset(
    {"picks_revealed", "points_revealed", "point_phase_closed", "round_ended", "game_ended"}
)
"""Tonttu events after which the next phase (or the end) is shown (as the buttons')."""


# --------------------------------------------------------------------------- settings


Spawn = Callable[[Coroutine[Any, Any, None], str], object]


@dataclass(frozen=True)
class ActivityOptions:
    """What the Activity needs: the application's OAuth2 client (``DISCORD_CLIENT_ID``,
    ``DISCORD_CLIENT_SECRET``), the game service, and from the bot what follows a move
    (``publish``: ``Core.publish_move``; ``spawn``: a task a graceful stop waits for)
    and the flood guard (``flood(user id)``: ``None`` to let the move in, else the
    sentence to refuse it with)."""

    client_id: int
    client_secret: str = field(repr=False)
    tables: Tables | None = None
    publish: Callable[[Played], Awaitable[None]] | None = None
    spawn: Spawn | None = None
    flood: Callable[[int], str | None] | None = None
    api: str = DISCORD_API
    """Discord's API (a test's fake)."""
    bot_token: str | None = field(default=None, repr=False)
    """To ask Discord which channel an Activity instance runs in, and who is in it."""
    require_instance: bool = True
    """Find a table only by the Activity instance the page runs in (``?instance=``),
    whose channel and users Discord tells, never by a channel id the page names
    (``?channel=``): else anyone signed in could watch the game of a channel they
    cannot see. Off only in tests of the table's answers."""
    clock: Callable[[], float] = time.time
    session_seconds: int = SESSION_SECONDS


class Told(Exception):
    """A move refused with a sentence already in the user's language (a late point of
    the speed race, as its button answers), with the fresh table."""

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence


class Refused(Exception):
    """An API call answered with a sentence (in the user's language) and a status."""

    def __init__(self, status: int, template: str, table: dict[str, Any] | None = None) -> None:
        super().__init__(template)
        self.status = status
        self.template = template
        self.table = table


# --------------------------------------------------------------------------- the Activity


class Server(Protocol):
    """What the Activity uses of the web server (``web/server.py``'s ``WebServer``)."""

    store: Storage
    files: dict[str, bytes]
    version: str
    live: Live

    def language(self, request: web.Request, default: str | None) -> str: ...

    async def static(self, request: web.Request) -> web.Response: ...

    async def stream_changes(self, request: web.Request, info: GameInfo) -> web.StreamResponse: ...


class Activity:
    """The Activity's routes on the web server (``server``: its storage, files, live
    streams and allowance)."""

    def __init__(self, server: Server, options: ActivityOptions | None) -> None:
        self.server = server
        self.options = options
        self.sessions = (
            Sessions(options.client_secret, clock=options.clock, lifetime=options.session_seconds)
            if options is not None
            else None
        )
        self.discord = Discord()
        """What is asked of Discord: the sign-in, the Activity instances."""
        self._tasks: set[asyncio.Task[None]] = set()
        """What follows a move, without a bot to spawn it (tests)."""

    @property
    def on(self) -> bool:
        return self.options is not None

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get(f"{PREFIX}", self.page),  # Discord's proxy may ask without the slash
            web.get(f"{PREFIX}/", self.page),
            web.get(f"{PREFIX}/static/{{name}}", self.server.static),
            web.post(f"{PREFIX}/api/token", self.token),
            web.get(f"{PREFIX}/api/table", self.table),
            web.post(f"{PREFIX}/api/move", self.move),
            web.post(f"{PREFIX}/api/undo", self.undo),
            web.get(f"{PREFIX}/api/events", self.events),
        ]

    async def close(self) -> None:
        await self.discord.close()

    # ------------------------------------------------------------ the page

    async def page(self, request: web.Request) -> web.Response:
        lang = self.server.language(request, None)
        words = i18n.words(lang)
        context: dict[str, Any] = {"lang": lang, "root": "", "assets": self.server.version}
        if self.options is not None and "activity.js" in self.server.files:
            client_id = str(self.options.client_id)
            html = render("activity.html", words, client_id=client_id, **context)
            return web.Response(text=html, content_type="text/html")
        reason = (
            words.gettext(
                "Its operator sets DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET (the bot's "
                "guide: docs/activity.md)."
            )
            if self.options is None
            else words.gettext(
                "Its page was not built when the bot was set up (that needs Node.js); its "
                "operator finds how in docs/activity.md."
            )
        )
        html = render("activity_off.html", words, reason=reason, **context)
        return web.Response(text=html, content_type="text/html")

    # ------------------------------------------------------------ answers

    def _json(self, data: dict[str, Any], status: int = 200) -> web.Response:
        return web.json_response(data, status=status, dumps=_dumps)

    def _refusal(self, refused: Refused, words: Words) -> web.Response:
        body: dict[str, Any] = {"error": words.gettext(refused.template)}
        if refused.table is not None:
            body["table"] = refused.table
        return self._json(body, refused.status)

    def user_key(self, request: web.Request) -> str | None:
        """Whose request this is, for the allowance (``user:<id>``), or ``None`` without
        a valid session or stream ticket: every request through Discord's proxy comes
        from a few of Discord's addresses, which hide the players' (so an address's
        allowance would be every player's at once)."""
        if self.sessions is None:
            return None
        ticket = request.query.get("ticket")
        if ticket is not None:
            session = self.sessions.read(ticket, "events")
        else:
            scheme, _, token = request.headers.get("Authorization", "").partition(" ")
            session = self.sessions.read(token.strip()) if scheme.lower() == "bearer" else None
        return None if session is None else f"user:{session.user_id}"

    async def too_many(self, request: web.Request) -> web.Response:
        """Over the allowance: 429, with a sentence the page shows."""
        response = self._json({"error": i18n.words(None).gettext(TOO_MANY)}, 429)
        response.headers["Retry-After"] = "2"
        return response

    def _session(self, request: web.Request) -> Session:
        if self.sessions is None:
            raise Refused(503, OFF)
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        session = self.sessions.read(token.strip()) if scheme.lower() == "bearer" else None
        if session is None:
            raise Refused(401, NO_SESSION)
        return session

    async def _body(self, request: web.Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            raise Refused(400, MALFORMED) from None
        if not isinstance(body, dict):
            raise Refused(400, MALFORMED)
        return body

    # ------------------------------------------------------------ signing in

    async def token(self, request: web.Request) -> web.Response:
        words = i18n.words(None)
        try:
            options, sessions = self.options, self.sessions
            if options is None or sessions is None:
                raise Refused(503, OFF)
            code = (await self._body(request)).get("code")
            if not isinstance(code, str) or not 0 < len(code) <= 200:
                raise Refused(400, MALFORMED)
            try:
                access, user = await self.discord.exchange(options, code)
            except NotAccepted:
                raise Refused(401, REFUSED) from None
            except Away:
                raise Refused(502, AWAY) from None
        except Refused as refused:
            return self._refusal(refused, words)
        lang = i18n.language(user.get("locale"))
        name = str(user.get("global_name") or user.get("username") or "")[:100]
        user_id = int(user["id"])
        return self._json(
            {
                "access_token": access,
                "session": sessions.issue(user_id, name, lang),
                "expires_in": sessions.lifetime,
                "user": {"id": str(user_id), "name": name},
                "lang": lang,
            }
        )

    # ------------------------------------------------------------ the table

    async def table(self, request: web.Request) -> web.Response:
        words = i18n.words(None)
        try:
            session = self._session(request)
            words = i18n.words(session.lang)
            token = request.query.get("game", "")
            asked = request.query.get("since")
            if asked is not None and not (asked.isdigit() and len(asked) < 10):
                raise Refused(400, MALFORMED)
            since = None if asked is None else int(asked)
            channel = request.query.get("channel", "")
            instance = request.query.get("instance")
            if token:
                game = await self._game_of_token(token)
            else:
                if instance is not None:
                    channel = str(await self._channel_of(instance, session))
                elif self.options is not None and self.options.require_instance:
                    raise Refused(400, MALFORMED)
                if not channel.isdigit() or len(channel) > 20:
                    raise Refused(400, MALFORMED)
                found = await self.server.store.find_open(int(channel))
                if found is None:
                    raise Refused(404, NO_GAME)
                game = found
            return self._json(await self.table_json(game, session, since))
        except Refused as refused:
            return self._refusal(refused, words)

    async def _channel_of(self, instance: str, session: Session) -> int:
        """The channel of the Activity's running instance ``instance`` (the SDK's
        ``instanceId``), asked of Discord with the bot's token and kept a few seconds,
        if the session's user is in it: a player sees the game of the channel they
        started or joined the Activity in, and no other channel's."""
        options = self.options
        if options is None or options.bot_token is None:
            raise Refused(503, OFF)
        if not INSTANCE.fullmatch(instance):
            raise Refused(400, MALFORMED)
        try:
            channel, users = await self.discord.instance(options, instance, session.user_id)
        except Away:
            raise Refused(502, AWAY) from None
        if channel is None or session.user_id not in users:
            raise Refused(403, NOT_THERE)
        return channel

    async def _game_of_token(self, token: str) -> LoadedGame:
        info = await self.server.store.game_of_token(token) if len(token) <= 64 else None
        if info is None:
            raise Refused(404, NO_GAME)
        try:
            return await self.server.store.load(info.id)
        except GameNotFound:
            raise Refused(404, NO_GAME) from None

    async def table_json(
        self, game: LoadedGame, session: Session, since: int | None = None
    ) -> dict[str, Any]:
        """The table as ``session``'s user sees it (see the module doc); ``since``: the
        version their page shows, whose later moves' turned-up cards are marked (a
        computer's pick right after a reveal must not hide it)."""
        lang = session.lang
        words = i18n.words(lang)
        player = human_player(session.user_id)
        seat = player if game.seat_of(player) is not None else None
        token = await self.server.store.web_token(game.id)
        assert self.sessions is not None  # a session was read
        ticket = self.sessions.issue(session.user_id, "", lang, "events")
        out: dict[str, Any] = {
            "game": token,
            "events": f"api/events?game={token}&ticket={ticket}",
            "kind": game.kind,
            "version": game.version,
            "status": game.status,
            "seat": seat,
            "choices": [],
            "suggested": None,
            "undo": False,
            "lang": lang,
            "html": "",
            "prompt": "",
        }
        if game.state is None:  # a lobby
            out["prompt"] = words.gettext(NOT_STARTED)
            return out
        rules = engine_of(game)
        state = game.state
        if game.kind == "tonttu":
            out.update(round=state.round, phase=state.phase, race=is_race(state))
        else:
            out["round"] = getattr(state, "round", None)
        recent = await self.server.store.log(game.id, after=max(0, game.version - REVEALS_BACK))
        out["html"] = await drawing.POOL.run(viewer_html, game, seat, lang, recent, since)
        public = rules.view(state, None)
        if game.status != "active":
            out["prompt"] = over(game, words)
            return out
        if seat is None:
            out["prompt"] = watching(game, public, words)
            return out
        choices = choices_for(game, seat, words)
        for choice in choices:
            facts = rules.describe_choice(state, seat, choice.action)
            shown: dict[str, Any] = {
                "index": choice.index,
                "label": choice.label,
                "target": facts.target,
                "kind": facts.kind,
            }
            if game.kind == "tonttu":  # the choice itself, as the Tonttu buttons carry it
                shown["action"] = choice.action.model_dump(mode="json")
            out["choices"].append(shown)
        out["suggested"] = suggested_index(game, seat, choices)
        out["undo"] = await self._tables.can_undo(game, seat)
        if choices:
            own = rules.view(state, seat)
            prompt = words.gettext("Your move: {decision}").format(
                decision=decision_text(game.kind, own, words)
            )
            met = first_time(game.kind, own, words)  # as the panel says it
            out["prompt"] = f"{prompt}. {met}" if met else prompt
        else:
            out["prompt"] = watching(game, public, words)
        return out

    @property
    def _tables(self) -> Tables:
        if self.options is None or self.options.tables is None:
            raise Refused(503, OFF)
        return self.options.tables

    # ------------------------------------------------------------ moves

    async def move(self, request: web.Request) -> web.Response:
        return await self._act(request, undo=False)

    async def undo(self, request: web.Request) -> web.Response:
        return await self._act(request, undo=True)

    async def _act(self, request: web.Request, *, undo: bool) -> web.Response:
        words = i18n.words(None)
        try:
            session = self._session(request)
            words = i18n.words(session.lang)
            tables = self._tables
            body = await self._body(request)
            token, version = body.get("game"), body.get("version")
            if not isinstance(token, str) or not _whole(version):
                raise Refused(400, MALFORMED)
            game = await self._game_of_token(token)
            self._flood(session)
            try:
                if undo:
                    played, note = await self._undo(tables, game, session, version, words)
                else:
                    played, note = await self._move(tables, game, session, version, body, words)
            except StaleBoard as stale:
                table = await self.table_json(stale.game, session, version)
                raise Refused(409, stale.template, table) from None
            except Told as told:
                now = await self.server.store.load(game.id)
                table = await self.table_json(now, session, version)
                return self._json({"error": told.sentence, "table": table}, 409)
            except RuleError as error:
                now = await self.server.store.load(game.id)
                table = await self.table_json(now, session, version)
                status = 403 if isinstance(error, NotInGame) else 409
                return self._json({"error": error.text(words), "table": table}, status)
        except Refused as refused:
            return self._refusal(refused, words)
        self._publish(played)
        table = await self.table_json(played.game, session, version)
        return self._json({"note": note, "table": table})

    def _flood(self, session: Session) -> None:
        flood = self.options.flood if self.options is not None else None
        refusal = flood(session.user_id) if flood is not None else None
        if refusal is not None:
            raise Refused(429, refusal)

    async def _move(
        self,
        tables: Tables,
        game: LoadedGame,
        session: Session,
        version: int,
        body: dict[str, Any],
        words: Words,
    ) -> tuple[Played, str]:
        index = body.get("index")
        if game.kind != "tonttu":
            if not _whole(index):
                raise Refused(400, MALFORMED)
            said = choice_label(game, session.user_id, index, words)
            played = await tables.choose(game.id, session.user_id, version, index)
            return played, said
        return await self._tonttu(tables, game, session, version, body, words)

    async def _tonttu(
        self,
        tables: Tables,
        game: LoadedGame,
        session: Session,
        version: int,
        body: dict[str, Any],
        words: Words,
    ) -> tuple[Played, str]:
        """A Tonttu choice, judged as its buttons' are: by the round and phase the page
        showed (``still_open``), not by the version (the others choose meanwhile)."""
        round_, phase, index = body.get("round"), body.get("phase"), body.get("index")
        if not _whole(round_) or phase not in TONTTU_PHASES:
            raise Refused(400, MALFORMED)
        player = human_player(session.user_id)
        if game.seat_of(player) is None:
            raise NotInGame("You are not playing in this game.")
        rules = engine_of(game)
        if "action" in body:  # the choice itself, as the page was given it
            try:
                action = rules.parse_action(body["action"])
            except (ValidationError, ValueError, TypeError):
                raise Refused(400, MALFORMED) from None
        else:
            if not _whole(index):
                raise Refused(400, MALFORMED)
            if version != game.version and is_race(game.state):
                raise StaleBoard(game)  # the race's cards move: a number no longer says which
            legal = rules.legal_actions(game.state, player) if game.status == "active" else []
            if not 0 <= index < len(legal):
                raise BadChoice(N_("That choice is not on the list; open the panel again."))
            action = legal[index]
        race = is_race(game.state)
        label = rules.describe_action(game.state, player, action, game.names, words)
        try:
            played = await tables.submit_checked(game.id, player, action, still_open(round_, phase))
        except PhaseClosed:
            if not race:
                raise
            text = words.gettext("The race of round {round} is over.").format(round=round_)
            raise Told(text) from None
        except IllegalAction:
            if not race:
                raise
            # another player's point was first: told as a race button tells it
            entries = await self.server.store.log(game.id)
            raise Told(too_late(entries, game.names, round_, action, words)) from None
        if race:
            event = next((e for e in played.events if e.kind == "speed_point"), None)
            what = rules.describe_event(event, played.game.names, words) if event else label
            return played, words.gettext("You pointed. {what}").format(what=what)
        if any(e.kind in PHASE_CHANGES for e in played.events):
            text = words.gettext("{done} Everyone has chosen: the reveal is in the thread.")
        else:
            text = words.gettext("{done} You can change it until everyone has chosen.")
        return played, text.format(done=label)

    async def _undo(
        self, tables: Tables, game: LoadedGame, session: Session, version: int, words: Words
    ) -> tuple[Played, str]:
        played = await tables.undo(game.id, session.user_id, version)
        rules = engine_of(played.game)
        you = {**played.game.names, human_player(session.user_id): undo_events.YOU}
        took = " ".join(undo_events.describe_event(rules, e, you, words) for e in played.events)
        return played, took

    def _publish(self, played: Played) -> None:
        """The thread shows the move as after a button, then the computers move: in a
        task of its own (a graceful stop waits for it), after the page is answered."""
        options = self.options
        if options is None or options.publish is None:
            self.server.live.poke(played.game.id)
            return
        publish = options.publish

        async def work() -> None:
            try:
                await publish(played)
            except Exception as error:  # the move is stored: a later round shows it
                log.warning(
                    "game %s: the Activity's move is not shown yet (%r)", played.game.id, error
                )

        name = f"activity-move-{played.game.id}"
        if options.spawn is not None:
            options.spawn(work(), name)
        else:
            task = asyncio.get_running_loop().create_task(work(), name=name)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------ following the game

    async def events(self, request: web.Request) -> web.StreamResponse:
        """``event: table`` each time the game changes (its version and status: the
        page then asks for its own view of the table), ``event: gone`` if it is no more.
        A game token is all it takes, as ``/g/<token>/events``; nothing secret is sent."""
        token = request.query.get("game", "")
        info: GameInfo | None = None
        if 16 <= len(token) <= 64:
            info = await self.server.store.game_of_token(token)
        if info is None:
            return self._json({"error": i18n.words(None).gettext(NO_GAME)}, 404)
        return await self.server.stream_changes(request, info)


def _whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 31


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
