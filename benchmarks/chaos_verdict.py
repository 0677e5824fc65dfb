"""The checks after the chaos soak (``benchmarks/chaos.py``) and its verdict table.

Everything is read after the faults are over: the players' interactions and what they
were answered (the fake Discord's records), every message of every thread and DM (with
every version of it), the stored games, their logs and timers, the bot processes' logs.

* **Nothing lost**: every Santa's Workshop choice or undo the player was answered as
  accepted (the panel updated without "The board has changed") is the log entry right
  after the version the button was drawn at, by that player; every Tonttu player has at
  least as many log entries as (round, phase)s they were confirmed ("You picked ...",
  "You pointed at ..."); no player's log entry lacks a click of theirs for that game,
  beyond the moves the turn limits made for them.
* **Nothing done twice**: one final-scores post per finished game (none for the others);
  one turn-limit announcement per fired turn-limit timer, one race close per fired close,
  no more reminders than fired reminder timers; no two posts in a thread alike in words,
  embeds and buttons one after the other; no DM choice panel sent twice for one phase.
* **Nothing wrong**: every stored game replays through the engine to its snapshot; a
  finished game's result is the engine's outcome, and its posted final scores are those;
  the thread's board shows the stored version's move; no board's move number and no
  status's chosen players ever went back; no answer broke Discord's rules (other than
  answering late, counted apart).
* **Nothing stuck**: after the last fault, every game's thread caught up (the ledger's
  marks: ``Publisher.behind``) within 10 s; every game whose player played to the end
  finished.
* **Nothing leaked**: no traceback in any bot process's output; no request over
  Discord's limits.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import asyncpg

from cogs.timers import MAX_STAND_IN_MOVES
from engine import get_game
from engine.core import TIMER
from storage import GameInfo, Storage, sqlite_path
from tables.publishing import Publisher
from tests.e2e.bot_helpers import shown_scores
from tests.e2e.fake_discord import FakeDiscord
from tests.e2e.fake_discord.model import InteractionRecord, RecordedRequest, walk_components
from tests.e2e.test_scale_out import board_regressions, status_regressions

if TYPE_CHECKING:
    from benchmarks.chaos import Cluster, Run
    from benchmarks.chaos_play import Players

STALE = "The board has changed"
REFUSED = (STALE, "cannot be reached", "something went wrong", "try again")
"""Words of the sentences a refused click is answered with (a panel's update may carry
one: the database away, a bug's apology): not an acknowledgement."""
CONFIRMED = ("You picked ", "You pointed at ")
MOVE_NUMBER = re.compile(r"Move (\d+)")
LATE_KINDS = ("not_acknowledged", "deferred_never_completed", "deadline")
"""Discord's rules an answer broke by coming late (after 3 s; a deferral not followed up):
the player saw "This interaction failed". Counted apart, during faults and outside."""
CAUGHT_UP_SECONDS = 10.0
CLOCK_SLACK = 1.0
"""Seconds a bot process may read the shared clock's offset file late or early, and a
row's time may precede the commit it waited for (a cancel waiting on a stand-in's lock)."""


async def timer_rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    if url.startswith("sqlite:///"):
        with sqlite3.connect(sqlite_path(url)) as db:
            return [tuple(row) for row in db.execute(sql).fetchall()]
    connection = await asyncpg.connect(url)
    try:
        return [tuple(row) for row in await connection.fetch(sql)]
    finally:
        await connection.close()


async def stand_in_windows(url: str, cluster: Cluster) -> dict[int, list[tuple[float, float]]]:
    """game id → the storage-clock times (real time: the soak moves only the bots'
    clock) within which each claimed turn-limit timer's stand-in moves can have been
    stored: from when it fell due (its due time on the bots' clock, in real time) until
    it was recorded fired or cancelled (a timer that met Discord away after its first
    moves fires again, and then finds nothing to do). A stand-in move is stored only
    while its timer's claim stands (``Storage.submit(..., claim=...)``), so none later."""
    rows = await timer_rows(
        url,
        "SELECT game_id, due_at, coalesce(fired_at, cancelled_at) FROM timers"
        " WHERE kind = 'turn_limit' AND claimed_by IS NOT NULL"
        " AND coalesce(fired_at, cancelled_at) IS NOT NULL",
    )
    windows: dict[int, list[tuple[float, float]]] = {}
    for game_id, due, ended in rows:
        due_real = cluster.real_time(due) - CLOCK_SLACK
        windows.setdefault(game_id, []).append((due_real, ended + CLOCK_SLACK))
    return windows


async def notices_claimed(url: str) -> Counter[int]:
    """game id → turn-limit notices claimed (``cogs/timers.py``: one claim per timer,
    taken before its notice is posted, never given back)."""
    rows = await timer_rows(
        url,
        "SELECT t.game_id FROM claims AS c JOIN timers AS t"
        " ON c.name = 'limit-notice:' || CAST(t.id AS TEXT)",
    )
    return Counter(game_id for (game_id,) in rows)


def edits_of(fake: FakeDiscord, thread: Any, started: float) -> list[str]:
    """Every request that posted or edited a message of ``thread``: when, its answer, the
    move its embeds showed."""
    lines = []
    for r in fake.requests:
        if not r.path.startswith(f"/channels/{thread.id}/messages"):
            continue
        footers = [
            (e.get("footer") or {}).get("text", "")
            for e in (r.json or {}).get("embeds") or []
            if isinstance(r.json, dict)
        ]
        moves = [m[1] for f in footers if (m := MOVE_NUMBER.search(f))]
        if moves:
            lines.append(
                f"    {r.at - started:8.2f} s pid {r.pid} {r.method} {r.path} {r.status}"
                f" {r.fault or ''} answered={r.answered} move {moves}"
            )
    return lines


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] if ordered else 0.0


@dataclass
class Verdict:
    rows: list[tuple[str, str, bool, str]] = field(default_factory=list)
    """(group, check, passed, what was found)."""
    figures: list[tuple[str, str]] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    """What a failed check found, in full (written beside the bot logs)."""

    def add(self, group: str, name: str, problems: list[str], counted: str = "") -> None:
        found = counted if not problems else f"{len(problems)}: " + "; ".join(problems[:3])
        self.rows.append((group, name, not problems, found))

    @property
    def ok(self) -> bool:
        return all(passed for _, _, passed, _ in self.rows)

    def table(self, seconds: float) -> str:
        lines = ["", f"verdict ({seconds / 60:.1f} min in all)", ""]
        lines.append(f"{'':<18} {'check':<58} {'':<5} found")
        for group, name, passed, found in self.rows:
            lines.append(f"{group:<18} {name:<58} {'ok' if passed else 'FAIL':<5} {found}")
        lines += ["", "figures", ""]
        lines += [f"  {name:<52} {value}" for name, value in self.figures]
        lines += ["", "PASSED" if self.ok else "FAILED: see the rows marked FAIL"]
        return "\n".join(lines)


def around(
    requests: Iterable[RecordedRequest],
    hit: RecordedRequest,
    started: float,
    bot_id: int,
    sender: Callable[[int | None], str],
) -> list[str]:
    """The requests of the 6 s up to ``hit`` (a post over its channel's limit) that read
    or made messages in its channel, a line each: when, which process, what it read (a
    ``*`` marks a message not the bot's) or posted, and the message it made."""

    def made_in(request: RecordedRequest) -> bool:  # a followup there, an edit
        answer = request.response
        return isinstance(answer, dict) and f"/channels/{answer.get('channel_id')}/" in hit.path

    def seen(request: RecordedRequest) -> str:
        answer = request.response
        if request.method == "GET" and isinstance(answer, list):
            ids = [f"{m['id']}{'' if m['author']['id'] == str(bot_id) else '*'}" for m in answer]
            return f"{request.query} -> {' '.join(ids)}"
        made = f" -> {answer['id']}" if isinstance(answer, dict) and "id" in answer else ""
        return f"{str(request.json)[:80]}{made}"

    return [
        f"    {r.at - started:8.2f} s {sender(r.pid)} {r.method} {r.status} {r.fault} {seen(r)}"
        for r in requests
        if hit.at - 6 <= r.at <= hit.at and (r.path == hit.path or made_in(r))
    ]


def board_stored(board: int, loaded: int, now: int) -> bool:
    """Whether a board showing move ``board`` shows the stored game, which was at
    version ``loaded`` before its messages were read and at ``now`` after: the bots run
    on during the check (a computer's move, a race's close), so any version in between
    was the stored one while they were read. Above ``now``: a move shown and never
    stored; below ``loaded``: a board behind after the catch-up."""
    return loaded <= board <= now


def shown_at(info: GameInfo) -> dict[str, int]:
    """The versions a game's table surfaces show (not the per-phase marks of Tonttu)."""
    return {key: version for key, version in info.shown_versions.items() if ":" not in key}


def custom_id(record: InteractionRecord) -> str:
    return str((record.payload.get("data") or {}).get("custom_id") or "")


def answer_text(record: InteractionRecord) -> str | None:
    """What the player was answered (content and embeds' text); ``None``: no answer."""
    if record.callback is None:
        return None
    bodies = [record.callback.get("data") or {}]
    bodies += [body for _what, body in record.events if isinstance(body, dict)]
    texts = []
    for body in bodies:
        texts.append(str(body.get("content") or ""))
        for embed in body.get("embeds") or []:
            texts.append(str(embed.get("title") or "") + str(embed.get("description") or ""))
    return "\n".join(texts)


def accepted_workshop(record: InteractionRecord) -> bool:
    """A Workshop choice or undo the player was told was taken: the panel was updated
    (not an ephemeral sentence), without the stale board's note."""
    if record.callback is None or record.callback.get("type") not in (6, 7):
        return False
    text = answer_text(record) or ""
    if any(words in text for words in REFUSED):
        return False
    return record.callback.get("type") == 7 or bool(text)


async def check(
    fake: FakeDiscord, store: Storage, url: str, cluster: Cluster, players: Players, run: Run,
    started: float,
) -> Verdict:  # fmt: skip
    verdict = Verdict()
    loop = asyncio.get_running_loop()
    # -- nothing stuck (first: it is timed from the end of the faults)
    opened = [g for g in players.games if g.game_id]
    ids = [g.game_id for g in opened]
    began = loop.time()
    behind: list[int] = ids
    first: dict[int, GameInfo] = {}  # each game behind at the start, as it was then
    last: dict[int, float] = {}  # when each was last seen behind
    while behind and loop.time() - began < 60:
        infos = [await store.info(i) for i in behind]
        behind = [i.id for i in infos if Publisher.behind(i)]
        for info in infos:
            if info.id in behind:
                first.setdefault(info.id, info)
                last[info.id] = loop.time() - began
        if behind:
            await asyncio.sleep(0.25)
    caught_up = loop.time() - began
    for game_id in sorted(last, key=last.__getitem__)[-5:]:  # the last ones, in findings
        info = first[game_id]
        verdict.details.append(
            f"catch-up: game {game_id} ({info.kind}, {info.status}, version {info.version},"
            f" shown {shown_at(info)}) behind until {last[game_id]:.1f} s"
        )
    since_fault = loop.time() - run.last_fault_over
    verdict.add(
        "nothing stuck",
        f"every thread caught up within {CAUGHT_UP_SECONDS:.0f} s after the faults",
        [f"game {i} still behind after 60 s" for i in behind]
        + ([f"took {caught_up:.1f} s"] if caught_up > CAUGHT_UP_SECONDS else []),
        f"{caught_up:.1f} s ({since_fault:.0f} s after the last fault)",
    )
    games = {i: await store.load(i) for i in ids}
    unfinished = [
        f"game {g.game_id} ({g.kind}) {games[g.game_id].status}"
        for g in opened
        if g.behaviour == "full" and games[g.game_id].status != "finished"
    ]
    for g in opened:  # what each was waiting for, in findings.txt
        loaded = games[g.game_id]
        if g.behaviour != "full" or loaded.status == "finished":
            continue
        last = await store.log(g.game_id, after=max(0, loaded.version - 1))
        age = (time.time() - last[-1].created_at.timestamp()) if last else float("nan")
        state = loaded.state
        acting = sorted(get_game(loaded.kind).to_act(state)) if state is not None else []
        verdict.details.append(
            f"game {g.game_id} ({g.kind} {g.mode}) {loaded.status} at version {loaded.version}:"
            f" its last move {age:.0f} s before the check; waiting for {acting}"
            f" ({getattr(state, 'phase', '')}); the player made {g.moves} moves, {g.ended!r};"
            f" marks {dict(loaded.shown_versions)}"
        )
    full = sum(1 for g in opened if g.behaviour == "full")
    verdict.add(
        "nothing stuck", "every game whose player played to the end finished", unfinished,
        f"{full} of {full}",
    )  # fmt: skip

    # -- the interactions, by game
    by_game: dict[int, list[InteractionRecord]] = {}
    for record in fake.interactions.values():
        parts = custom_id(record).split(":")
        if len(parts) >= 2 and parts[1].isdigit():
            by_game.setdefault(int(parts[1]), []).append(record)
    windows = await stand_in_windows(url, cluster)
    notices = await notices_claimed(url)
    closes_claimed = Counter(
        game_id
        for (game_id,) in await timer_rows(
            url, "SELECT game_id FROM timers WHERE kind = 'speed_close' AND claimed_by IS NOT NULL"
        )
    )
    reminders_claimed = Counter(
        game_id
        for (game_id,) in await timer_rows(
            url, "SELECT game_id FROM timers WHERE kind = 'remind' AND claimed_by IS NOT NULL"
        )
    )
    lost: list[str] = []
    unsent: list[str] = []
    acknowledged = 0
    for game in opened:
        loaded = games[game.game_id]
        logged = await store.log(game.game_id)
        player = str(game.human.id)
        mine = [a for a in logged if a.player == player]
        # turn limits that were claimed and ended: fired, or found nothing to do (one that
        # played and then lost its lease to the clock's jump is ended by the next owner)
        stand_ins = len(windows.get(game.game_id, []))
        records = [r for r in by_game.get(game.game_id, []) if r.user.id == game.human.id]
        if loaded.kind == "workshop":
            by_seq = {a.seq: a for a in logged}
            sent_versions: set[int] = set()
            for record in records:
                parts = custom_id(record).split(":")
                if parts[0] not in ("act", "acts", "undo"):
                    continue
                version = int(parts[2])
                sent_versions.add(version)
                if not accepted_workshop(record):
                    continue
                acknowledged += 1
                entry = by_seq.get(version + 1)
                is_undo = parts[0] == "undo"
                if (
                    entry is None
                    or entry.player != player
                    or (entry.action.get("kind") == "undo") != is_undo
                ):
                    lost.append(f"game {game.game_id}: {custom_id(record)} acknowledged")
            extra = [
                a
                for a in mine
                if a.seq - 1 not in sent_versions
                and not any(
                    lo <= a.created_at.timestamp() <= hi for lo, hi in windows.get(game.game_id, [])
                )
            ]
            if extra:
                unsent.append(f"game {game.game_id}: moves {[a.seq for a in extra]} unsent")
                verdict.details.append(f"game {game.game_id} ({game.behaviour}): unsent moves")
                for a in extra:
                    near = [
                        f"{custom_id(r)}@{r.dispatched_at - started:.2f}"
                        for r in records
                        if str(a.seq - 2) in custom_id(r).split(":")[2:3]
                        or str(a.seq) in custom_id(r).split(":")[2:3]
                    ]
                    verdict.details.append(
                        f"    seq {a.seq} {a.action} at {a.created_at.timestamp():.2f};"
                        f" clicks at the versions around: {near[:6]}"
                    )
                verdict.details.append(f"    turn-limit windows: {windows.get(game.game_id)}")
        else:
            confirmed = {
                tuple(custom_id(r).split(":")[2:4])
                for r in records
                if any(c in (answer_text(r) or "") for c in CONFIRMED)
            }
            acknowledged += len(confirmed)
            if len(confirmed) > len(mine):
                lost.append(f"game {game.game_id}: {len(confirmed)} confirmed, {len(mine)} logged")
            sent = sum(1 for r in records if custom_id(r).startswith(("tt:", "ttr:")))
            if len(mine) > sent + stand_ins * MAX_STAND_IN_MOVES:
                unsent.append(
                    f"game {game.game_id}: {len(mine)} moves, {sent} sent, {stand_ins} limits"
                )
    verdict.add(
        "nothing lost", "every acknowledged action is in the stored log once", lost,
        f"{acknowledged} acknowledged, all stored",
    )  # fmt: skip
    verdict.add("nothing lost", "no stored action that no player sent (beyond turn limits)", unsent)

    # -- nothing done twice
    finals: list[str] = []
    timers: list[str] = []
    twice: list[str] = []
    for game in opened:
        loaded = games[game.game_id]
        messages = fake.messages(game.thread)
        posted = sum(1 for m in messages if "final scores" in m.text())
        wanted = 1 if loaded.status == "finished" else 0
        if posted != wanted:
            finals.append(f"game {game.game_id} ({loaded.status}): {posted} final-score posts")
        texts = [m.content for m in messages]
        limits = sum("did not move within" in t for t in texts)
        reminders = sum(t.startswith("Reminder") for t in texts)
        closes = sum(1 for a in await store.log(game.game_id) if a.player == TIMER)
        if limits > notices[game.game_id]:
            timers.append(
                f"game {game.game_id}: {limits} turn-limit notices, {notices[game.game_id]} claimed"
            )
        if closes > closes_claimed[game.game_id]:  # a close is a guarded move: once
            timers.append(f"game {game.game_id}: {closes} race closes")
        if reminders > reminders_claimed[game.game_id]:  # each claimed at most one
            timers.append(
                f"game {game.game_id}: {reminders} reminders posted,"
                f" {reminders_claimed[game.game_id]} reminder timers claimed"
            )
        # a surface of one version shown twice: a turn prompt (each names its turn's
        # deadline), a second board message, a second final-scores post (above)
        prompts = Counter(
            m.content
            for m in messages
            if "it's your turn" in m.content and not m.content.startswith("Reminder")
        )
        twice += [
            f"game {game.game_id}: prompt {p[:50]!r} × {n}" for p, n in prompts.items() if n > 1
        ]
        board_posts = [m for m in messages if any(MOVE_NUMBER.search(
            (e.get("footer") or {}).get("text", "")) for e in m.embeds)]  # fmt: skip
        if game.kind == "workshop" and len(board_posts) > 1:
            twice.append(f"game {game.game_id}: {len(board_posts)} board messages")
        if game.kind == "tonttu":
            # a phase's panel *sent* twice: a message's first version holds it. A later
            # version may (a stale pick's click shows the current panel where it was
            # made, a choice's confirmation the next phase's): an answer, not a send.
            panels: Counter[str] = Counter()
            for message in fake.dm_messages(game.human) if game.dms_open else []:
                for item in walk_components(message.history[0].get("components") or []):
                    panel = str(item.get("custom_id") or "")
                    if item.get("type") == 3 and panel.startswith(f"tt:{game.game_id}:"):
                        panels[panel] += 1
            twice += [f"DM {c} sent {n} times" for c, n in panels.items() if n > 1]
            if any(n > 1 for n in panels.values()):
                verdict.details.append(f"game {game.game_id}: DM panels sent twice")
                verdict.details += [
                    f"    {m.id} {m.content[:120]!r} {[s['custom_id'] for s in m.selects()]}"
                    for m in fake.dm_messages(game.human)
                ]
    verdict.add("nothing done twice", "one final-scores post per finished game", finals)
    verdict.add("nothing done twice", "each fired timer's post or close once", timers)
    verdict.add("nothing done twice", "no post or DM panel sent twice", twice)

    # -- nothing wrong
    replays: list[str] = []
    shown: list[str] = []
    for game in opened:
        loaded = games[game.game_id]
        report = await store.replay(game.game_id)
        if not report.ok:
            replays.append(f"game {game.game_id}: {report}")
        outcome = get_game(loaded.kind).outcome(loaded.state)
        if loaded.status == "finished":
            if outcome is None or loaded.result != outcome.model_dump(mode="json"):
                replays.append(f"game {game.game_id}: result is not the engine's outcome")
            final = [m for m in fake.messages(game.thread) if "final scores" in m.text()]
            if final and outcome is not None:
                names = loaded.names
                expected = {names[p]: s for p, s in outcome.scores.items()}
                if shown_scores(final[-1]) != expected:
                    shown.append(f"game {game.game_id}: final scores {shown_scores(final[-1])}")
        boards = [
            int(m[1])
            for message in fake.messages(game.thread)
            for embed in message.embeds
            if (m := MOVE_NUMBER.search((embed.get("footer") or {}).get("text", "")))
        ]
        last = boards[-1] if boards else None  # the board message as it is now
        if loaded.status in ("active", "finished") and last is not None and last != loaded.version:
            now = await store.info(game.game_id)  # the bots run on during the check
            if not board_stored(last, loaded.version, now.version):
                shown.append(f"game {game.game_id}: board shows move {last}, v{now.version}")
                verdict.details.append(
                    f"game {game.game_id}: board shows move {last}; stored v{loaded.version}"
                    f" when the check loaded it, v{now.version} after; its board's posts"
                    " and edits:"
                )
                verdict.details += edits_of(fake, game.thread, started)
        went_back = board_regressions(fake, game.thread) + status_regressions(fake, game.thread)
        shown += [f"game {game.game_id}: {problem[:90]}" for problem in went_back]
        if went_back:
            verdict.details.append(f"game {game.game_id} went back: {went_back}")
            verdict.details += edits_of(fake, game.thread, started)
    taken = fake.take_violations()
    violations = Counter(v.kind for v in taken)
    verdict.details += [f"violation: {v}" for v in taken if v.kind not in LATE_KINDS][:50]
    broken = [f"{kind} × {n}" for kind, n in violations.items() if kind not in LATE_KINDS]
    verdict.add(
        "nothing wrong", "every game replays to its snapshot and outcome", replays,
        f"{len(opened)} games replayed",
    )  # fmt: skip
    verdict.add("nothing wrong", "threads show the stored game; never went back", shown)
    verdict.add("nothing wrong", "no answer broke Discord's rules (late ones apart)", broken)

    # -- nothing leaked
    tracebacks = []
    refusals = []
    for pid, path in fake.process_logs.items():
        text = path.read_text(errors="replace")
        if pid in cluster.refused:  # the sentence bot.py prints, then "did not start"
            lines = text.strip().splitlines()
            refusals.append(lines[-2][-100:] if len(lines) > 1 else "")
        for part in text.split("Traceback (most recent call last)")[1:]:
            tracebacks.append(f"process {pid}: {part.strip().splitlines()[-1][:120]}")
    verdict.add("nothing leaked", "no traceback in the bot processes' logs", tracebacks)
    hits = [f"{r.over_limit}: {r.method} {r.path}" for r in fake.limit_hits()]

    def sender(pid: int | None) -> str:  # its log's name: bot-N
        return fake.process_logs[pid].stem if pid in fake.process_logs else f"pid {pid}"

    for hit in fake.limit_hits()[:10]:
        verdict.details.append(f"over the limit at {hit.at - started:.1f} s: {hit.path}")
        verdict.details += around(fake.requests, hit, started, fake.bot_user.id, sender)
    verdict.add("nothing leaked", "no request over Discord's limits", hits)

    # -- figures
    statuses = Counter(g.status for g in games.values())
    behaviours = Counter(g.behaviour for g in players.games)
    figures = verdict.figures
    figures.append(("games opened (lobbies that did not start)", f"{len(players.games)} "
                    f"({len(players.games) - len(opened)})"))  # fmt: skip
    figures.append(("games by status", ", ".join(f"{k} {n}" for k, n in sorted(statuses.items()))))
    figures.append(("players by behaviour", ", ".join(f"{k} {n}" for k, n in behaviours.items())))
    figures.append(("actions acknowledged", str(acknowledged)))
    figures.append(
        ("faults injected", ", ".join(f"{k} {n}" for k, n in sorted(run.faults.items())))
    )
    injected = fake.rest_stats().injected
    figures.append(("REST faults answered", ", ".join(f"{k} {n}" for k, n in injected.items())))
    figures.append(("clock jumps; fast clicker's clicks", f"{run.jumps}; {run.fast_clicks}"))
    figures.append(("the last jump's timers fired in", f"{run.timers_settled:.1f} s"))
    figures.append(("SIGTERM exit status", str(run.sigterm_status)))
    figures.append(("longest time a table stayed stale", f"{run.longest_stale:.1f} s"))
    during: list[float] = []
    outside: list[float] = []
    fast = {g.human.id for g in players.games if g.behaviour == "fast"}
    for record in fake.interactions.values():
        if record.answered_at is None or record.user.id in fast:
            continue  # the fast clicker's (mostly refused by the flood gate): apart
        ms = 1000 * (record.answered_at - record.dispatched_at)
        faulty = any(a <= record.dispatched_at <= b for a, b, _ in run.windows)
        (during if faulty else outside).append(ms)
    for name, values in (("during faults", during), ("outside faults", outside)):
        figures.append(
            (f"first response p50 / p99, {name}",
             f"{percentile(values, 50):.0f} / {percentile(values, 99):.0f} ms ({len(values)})")
        )  # fmt: skip
    late_during = late_outside = 0
    for violation in taken:
        found = re.search(r"/interactions/(\d+)/", violation.path)
        interaction = violation.interaction_id or (int(found[1]) if found else 0)
        late = fake.interactions.get(interaction)
        if violation.kind not in LATE_KINDS or late is None:
            continue
        if any(a <= late.dispatched_at <= b for a, b, _ in run.windows):
            late_during += 1
        else:
            late_outside += 1
    figures.append(("answers later than 3 s (\"This interaction failed\")",
                    f"{late_during} during faults, {late_outside} outside"))  # fmt: skip
    figures.append(("bot starts that exited at once (a service manager's retry)",
                    f"{len(refusals)}: " + "; ".join(sorted(set(refusals)))[:200]))  # fmt: skip
    figures.append(("harness-side failures", ", ".join(
        f"{k} {n}" for k, n in sorted(players.errors.items())) or "none"))  # fmt: skip
    return verdict
