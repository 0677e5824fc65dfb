"""Work claimed across processes: timer leases, shown message versions, named claims.

Two ``Storage`` objects on one database stand for two bot processes; the SQL decides
who wins, never which process asks first.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

import storage
from storage import Claim, GameNotFound, NewTimer, SqliteStorage, TimerClaim, TimerLost
from tests.storage import race_game
from tests.storage.conftest import FakeClock, started, to_act

LEASE = timedelta(minutes=5)


async def test_a_due_timer_is_claimed_by_one_owner_and_finished_once(
    store: SqliteStorage, clock: FakeClock
) -> None:
    game = await started(store, 10)
    late = await store.schedule(game.id, "remind", clock.now + timedelta(hours=1), {"seat": 2})
    early = await store.schedule(game.id, "speed", clock.now + timedelta(seconds=5))
    assert await store.claim_due_timers("a", LEASE) == []  # nothing due yet
    clock.advance(hours=2)
    claimed = await store.claim_due_timers("a", LEASE)
    assert [t.id for t in claimed] == [early.id, late.id]  # oldest first
    assert claimed[1].payload == {"seat": 2} and claimed[1].kind == "remind"
    assert await store.claim_due_timers("b", LEASE) == []  # held by a
    assert not await store.finish_timer(early.id, "b")  # b holds no claim
    assert await store.finish_timer(early.id, "a")
    assert not await store.finish_timer(early.id, "a")  # finished once
    assert [t.id for t in await store.due_timers()] == [late.id]
    clock.advance(minutes=6)  # a's lease on the late one ran out (a died)
    (again,) = await store.claim_due_timers("b", LEASE)
    assert again.id == late.id
    assert not await store.finish_timer(late.id, "a")  # a lost it to b
    assert await store.finish_timer(late.id, "b")
    clock.advance(hours=1)
    assert await store.claim_due_timers("a", LEASE) == []
    assert await store.next_due_at() is None


async def test_a_write_for_a_timer_s_work_is_stored_only_while_its_claim_stands(
    db_url: str, clock: FakeClock
) -> None:
    """A turn limit's stand-in move stands on its timer's claim, checked in the move's
    own transaction: a lease that ran out while nobody wanted the timer still stands;
    another owner's claim, or the timer's end, does not, and nothing is written (found
    by the chaos soak: a process that had checked its claim before deciding stored a
    move after another process had taken the timer over, or after it had ended)."""
    async with await storage.open(db_url, clock=clock) as store:
        game = await started(store, 10)
        timer = await store.schedule(game.id, "turn_limit", clock.now + timedelta(hours=1))
        clock.advance(hours=2)
        (claimed,) = await store.claim_due_timers("a", LEASE)

        async def move(owner: str) -> int:
            """Submit the next move for ``owner``'s claim; the game's version after it."""
            current = await store.load(game.id)
            player = to_act(current)
            action = race_game.GAME.legal_actions(current.state, player)[0]
            claim = TimerClaim(claimed.id, owner)
            await store.submit(game.id, player, action, current.version, claim=claim)
            return (await store.load(game.id)).version

        assert await move("a") == 1
        with pytest.raises(TimerLost):
            await move("b")  # b holds no claim
        clock.advance(minutes=6)  # a's lease ran out: nobody else wanted it yet
        assert await move("a") == 2
        assert await store.claim_due_timers("b", LEASE)  # b takes it over
        with pytest.raises(TimerLost):
            await move("a")
        assert (await store.load(game.id)).version == 2  # nothing written
        assert await move("b") == 3
        assert await store.finish_timer(claimed.id, "b")
        with pytest.raises(TimerLost):
            await move("b")  # fired
        assert [a.seq for a in await store.log(game.id)] == [1, 2, 3]
        assert timer.id == claimed.id


async def test_claims_respect_the_limit_and_skip_cancelled_timers(
    store: SqliteStorage, clock: FakeClock
) -> None:
    game = await started(store, 10)
    timers = [await store.schedule(game.id, "remind", clock.now) for _ in range(5)]
    assert await store.cancel_timer(timers[0].id)
    first = await store.claim_due_timers("a", LEASE, limit=2)
    assert [t.id for t in first] == [t.id for t in timers[1:3]]
    # the game's other timers wait until a has fired these (one game, one at a time)
    assert await store.claim_due_timers("b", LEASE, now=clock.now) == []
    assert await store.finish_timer(timers[1].id, "a")
    assert await store.claim_due_timers("b", LEASE, now=clock.now) == []
    assert await store.finish_timer(timers[2].id, "a")
    rest = await store.claim_due_timers("b", LEASE, now=clock.now)
    assert [t.id for t in rest] == [t.id for t in timers[3:]]
    assert await store.cancel_timers(game.id) == 2  # a claimed timer can still be cancelled
    assert not await store.finish_timer(timers[3].id, "b")


async def test_a_games_timers_fire_one_at_a_time_across_owners(
    store: SqliteStorage, clock: FakeClock
) -> None:
    """A reminder and the turn limit that fell due together: while one process fires the
    reminder, another does not play the turn limit (which would make it moot)."""
    game = await started(store, 10)
    other = await started(store, 11)
    remind = await store.schedule(game.id, "remind", clock.now)
    limit = await store.schedule(game.id, "turn_limit", clock.now + timedelta(seconds=1))
    elsewhere = await store.schedule(other.id, "remind", clock.now + timedelta(seconds=2))
    clock.advance(seconds=5)
    (first,) = await store.claim_due_timers("a", LEASE, limit=1)
    assert first.id == remind.id
    (second,) = await store.claim_due_timers("b", LEASE, limit=1)
    assert second.id == elsewhere.id  # not the turn limit of a's game
    assert await store.claim_due_timers("b", LEASE, limit=1) == []
    assert await store.finish_timer(remind.id, "a")
    (third,) = await store.claim_due_timers("b", LEASE, limit=1)
    assert third.id == limit.id
    clock.advance(minutes=6)  # b died holding it: the claim runs out, a fires it
    (again,) = await store.claim_due_timers("a", LEASE, limit=1)
    assert again.id == limit.id


async def test_a_timer_being_fired_is_not_cancelled_by_the_timer_it_schedules(
    store: SqliteStorage, clock: FakeClock
) -> None:
    game = await started(store, 10)
    firing = await store.schedule(game.id, "remind", clock.now)
    (claimed,) = await store.claim_due_timers("a", LEASE)
    # its effect (a prompt) schedules the next reminder in place of pending ones
    later = await store.schedule(game.id, "remind", clock.now + timedelta(hours=1), replace=True)
    assert await store.finish_timer(claimed.id, "a")  # recorded as fired, not cancelled
    assert [t.id for t in await store.pending_timers(game.id)] == [later.id]
    # a pending timer nobody is firing is replaced as before
    replacing = await store.schedule(
        game.id, "remind", clock.now + timedelta(hours=2), replace=True
    )
    assert [t.id for t in await store.pending_timers(game.id)] == [replacing.id]
    assert firing.id == claimed.id


async def test_a_claimed_timer_with_nothing_to_do_is_finished_as_cancelled(
    store: SqliteStorage, clock: FakeClock
) -> None:
    game = await started(store, 10)
    timer = await store.schedule(game.id, "remind", clock.now)
    (claimed,) = await store.claim_due_timers("a", LEASE)
    assert not await store.finish_timer(claimed.id, "b", fired=False)  # b holds no claim
    assert await store.finish_timer(claimed.id, "a", fired=False)
    assert not await store.finish_timer(claimed.id, "a")  # finished once
    assert not await store.mark_fired(timer.id)  # cancelled, not fired
    assert await store.pending_timers(game.id) == []
    clock.advance(minutes=6)  # its lease ran out: still nobody fires it
    assert await store.claim_due_timers("b", LEASE) == []


async def test_owners_on_two_connections_racing_claim_each_timer_once(
    db_url: str, clock: FakeClock
) -> None:
    first = await storage.open(db_url, clock=clock)
    second = await storage.open(db_url, clock=clock)
    try:
        games = [await started(first, channel) for channel in range(10, 14)]
        scheduled = {
            (await first.schedule(game.id, "remind", clock.now)).id for game in games for _ in "ab"
        }
        claims = await asyncio.gather(
            *(
                store.claim_due_timers(f"owner{n}", LEASE, limit=1)
                for n, store in enumerate((first, second) * 8)
            )
        )
        got = [timer.id for claim in claims for timer in claim]
        assert len(got) == len(set(got)) >= len(games)  # each at most once, every game
        # (one timer per game at a time; claims at the same instant on PostgreSQL may
        # still take two of one game's: the statements' snapshots cannot see each other)
        owners = {t.id: f"owner{n}" for n, claim in enumerate(claims) for t in claim}
        for timer_id, owner in owners.items():
            assert await first.finish_timer(timer_id, owner)
        again = await asyncio.gather(
            *(
                store.claim_due_timers(f"owner{n}", LEASE, limit=1)
                for n, store in enumerate((first, second) * 8)
            )
        )
        got += [timer.id for claim in again for timer in claim]
        assert sorted(got) == sorted(scheduled)  # each exactly once
    finally:
        await first.close()
        await second.close()


async def test_a_message_never_goes_back_to_an_older_version(store: SqliteStorage) -> None:
    game = await started(store, 10)
    assert await store.shown_version(game.id, "board") is None
    assert await store.claim_message_version(game.id, "board", 3)  # before the message exists
    await store.set_message(game.id, "board", 555)
    assert not await store.claim_message_version(game.id, "board", 2)  # older: do not edit
    assert not await store.claim_message_version(game.id, "board", 3)  # shown already
    assert await store.claim_message_version(game.id, "board", 5)
    assert await store.claim_message_version(game.id, "phase", 1)  # another key
    assert await store.shown_version(game.id, "board") == 5
    loaded = await store.load(game.id)
    assert loaded.messages == {"board": 555}
    assert loaded.shown_versions == {"board": 5, "phase": 1}
    await store.set_message(game.id, "board", 556)  # reposted: its version stays
    await store.set_message(game.id, "board", None)  # forgotten: so does the version
    assert (await store.info(game.id)).messages == {}
    assert not await store.claim_message_version(game.id, "board", 4)
    with pytest.raises(GameNotFound):
        await store.claim_message_version(999, "board", 1)


async def test_racing_publishers_leave_the_newest_version(db_url: str, clock: FakeClock) -> None:
    first = await storage.open(db_url, clock=clock)
    second = await storage.open(db_url, clock=clock)
    try:
        game = await started(first, 10)
        versions = list(range(1, 21))
        won = await asyncio.gather(
            *(
                (first, second)[v % 2].claim_message_version(game.id, "board", v)
                for v in reversed(versions)
            )
        )
        assert won[0]  # the newest always wins
        assert await first.shown_version(game.id, "board") == 20
        assert sum(won) >= 1
    finally:
        await first.close()
        await second.close()


async def test_a_named_claim_has_one_owner_until_its_lease_ends(
    store: SqliteStorage, clock: FakeClock
) -> None:
    assert await store.try_claim("sync:abc", "a", LEASE)
    assert not await store.try_claim("sync:abc", "b", LEASE)
    assert await store.try_claim("sync:def", "b", LEASE)  # another name
    assert await store.try_claim("sync:abc", "a", LEASE)  # the owner renews it
    clock.advance(minutes=4)
    assert not await store.try_claim("sync:abc", "b", LEASE)  # renewed: still a's
    clock.advance(minutes=2)
    assert await store.try_claim("sync:abc", "b", LEASE)  # a's lease ran out
    assert not await store.try_claim("sync:abc", "a", LEASE)


async def test_a_claim_taken_over_from_an_owner_whose_lease_ran_out_says_so(
    store: SqliteStorage, clock: FakeClock
) -> None:
    """A claim taken over where the owner before never gave it back (it died, or lost
    the database) says so: what it did under the claim may be unrecorded (its posts in
    a game's thread, which Discord still counts: ``cogs/helpers/thread.py``)."""
    assert await store.claim("publish:1", "a", LEASE) is Claim.HELD  # free
    assert await store.claim("publish:1", "b", LEASE) is Claim.REFUSED
    assert await store.claim("publish:1", "a", LEASE) is Claim.HELD  # renewed
    clock.advance(minutes=6)
    assert await store.claim("publish:1", "b", LEASE) is Claim.TAKEN_OVER  # a's ran out
    assert await store.claim("publish:1", "b", LEASE) is Claim.HELD  # b's own, renewed
    clock.advance(minutes=6)
    assert await store.claim("publish:1", "b", LEASE) is Claim.HELD  # b's own ran out
    game = await started(store, 10)
    await store.set_marks(game.id, {}, release=("publish:1", "b"))  # given back
    assert await store.claim("publish:1", "a", LEASE) is Claim.HELD


async def test_racing_claimants_on_two_connections_get_one_winner(
    db_url: str, clock: FakeClock
) -> None:
    first = await storage.open(db_url, clock=clock)
    second = await storage.open(db_url, clock=clock)
    try:
        won = await asyncio.gather(
            *(
                store.try_claim("sync:tree", f"owner{n}", LEASE)
                for n, store in enumerate((first, second) * 5)
            )
        )
        assert won.count(True) == 1
    finally:
        await first.close()
        await second.close()


async def test_publication_marks_only_grow_and_release_the_publisher(
    store: SqliteStorage,
) -> None:
    """What a thread shows is recorded per key (``tables/publishing.py``): a lower version
    than the stored one is ignored, a missing message id keeps the stored one, and the
    publisher's claim is given back in the same write."""
    game = await started(store, 10)
    assert await store.try_claim(f"publish:{game.id}", "a", LEASE)
    await store.set_marks(game.id, {"log": (501, 3), "log_intent": (None, 4)})
    await store.set_marks(
        game.id,
        {"log": (None, 2), "log_intent": (None, 9), "prompt": (None, 3)},
        release=(f"publish:{game.id}", "a"),
    )
    info = await store.info(game.id)
    assert info.shown_versions == {"log": 3, "log_intent": 9, "prompt": 3}
    assert info.messages == {"log": 501}  # marks without a message are not messages
    assert await store.try_claim(f"publish:{game.id}", "b", LEASE)  # released
    await store.set_marks(game.id, {}, release=(f"publish:{game.id}", "a"))  # not a's
    assert not await store.try_claim(f"publish:{game.id}", "a", LEASE)
    with pytest.raises(GameNotFound):
        await store.set_marks(123456, {"log": (None, 1)})


async def test_marks_and_timers_are_written_together(
    store: SqliteStorage, clock: FakeClock
) -> None:
    """The publisher's write after posting a phase (``tables/publishing.py``): its marks,
    the phase's timers (each replacing its kind, except one being fired) and the kinds
    it cancels, in one transaction; a game that ended meanwhile gets no timers."""
    game = await started(store, 10)
    old_remind = await store.schedule(game.id, "remind", clock.now + timedelta(hours=1))
    race = await store.schedule(game.id, "speed_close", clock.now + timedelta(seconds=5))
    firing = await store.schedule(game.id, "turn_limit", clock.now)
    (claimed,) = await store.claim_due_timers("a", LEASE)
    assert claimed.id == firing.id
    remind_at, limit_at = clock.now + timedelta(hours=12), clock.now + timedelta(hours=24)
    await store.set_marks(
        game.id,
        {"phase:1:pick": (700, 3), "log": (700, 3)},
        timers=[
            NewTimer("remind", remind_at, {"version": 3}),
            NewTimer("turn_limit", limit_at, {"version": 3}),
        ],
        cancel=["speed_close"],
    )
    info = await store.info(game.id)
    assert info.shown_versions == {"phase:1:pick": 3, "log": 3}
    assert info.messages == {"phase:1:pick": 700, "log": 700}
    pending = await store.pending_timers(game.id)
    assert [(t.kind, t.due_at, t.payload) for t in pending] == [
        ("turn_limit", firing.due_at, {}),  # being fired: spared, finished as fired
        ("remind", remind_at, {"version": 3}),
        ("turn_limit", limit_at, {"version": 3}),
    ]
    assert old_remind.id not in {t.id for t in pending} and race.id not in {t.id for t in pending}
    assert await store.finish_timer(firing.id, "a")

    # a race closed by its own timer: the phase that follows cancels the close, and the
    # close being fired is spared (it is finished as fired)
    closing = await store.schedule(game.id, "speed_close", clock.now)
    (claimed,) = await store.claim_due_timers("a", LEASE)
    assert claimed.id == closing.id
    await store.set_marks(game.id, {"log": (None, 4)}, cancel=["speed_close"])
    assert await store.finish_timer(closing.id, "a")

    await store.abandon(game.id)
    await store.set_marks(game.id, {"log": (None, 5)}, timers=[NewTimer("remind", remind_at, {})])
    assert (await store.info(game.id)).shown_versions["log"] == 5
    assert await store.pending_timers(game.id) == []
    with pytest.raises(GameNotFound):
        await store.set_marks(
            123456, {"log": (None, 1)}, timers=[NewTimer("remind", remind_at, {})]
        )


async def test_the_log_after_a_version_holds_the_later_actions_only(
    store: SqliteStorage,
) -> None:
    game = await started(store, 10)
    for _ in range(3):
        game = await store.load(game.id)
        player = to_act(game)
        action = race_game.GAME.legal_actions(game.state, player)[0]
        await store.submit(game.id, player, action, game.version)
    assert [a.seq for a in await store.log(game.id, after=1)] == [2, 3]
    assert await store.log(game.id, after=3) == []
    assert [a.seq for a in await store.log(game.id)] == [1, 2, 3]
