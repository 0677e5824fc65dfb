"""The chaos verdict (``benchmarks/chaos_verdict.py``): its account of a post over a
channel's limit (what each process read and posted there just before), and what a
board may show while the bots run on during the check."""

from __future__ import annotations

from benchmarks.chaos_verdict import around, board_stored
from tests.e2e.fake_discord.model import RecordedRequest

BOT, PLAYER = 10, 20
THREAD = "/channels/5/messages"


def request(method: str, path: str, at: float, pid: int, response: object) -> RecordedRequest:
    body = {"content": "x"}
    return RecordedRequest(method, path, {}, body, [], at=at, pid=pid, response=response)


def message(mid: int, author: int, channel: int = 5) -> dict[str, object]:
    return {"id": str(mid), "channel_id": str(channel), "author": {"id": str(author)}}


def test_the_requests_around_a_post_over_the_limit_say_who_read_and_made_what() -> None:
    requests = [
        request("POST", THREAD, 1.0, 7, message(101, BOT)),  # too early: left out
        request("GET", THREAD, 8.0, 8, [message(103, BOT), message(102, PLAYER)]),
        request("POST", "/webhooks/1/t", 8.5, 7, message(104, BOT)),  # a followup there
        request("POST", "/webhooks/1/t", 8.6, 7, message(105, BOT, channel=6)),  # elsewhere
        request("PATCH", "/channels/6/messages/9", 8.7, 7, message(9, BOT, channel=6)),
    ]
    hit = request("POST", THREAD, 9.0, 8, message(106, BOT))
    lines = around([*requests, hit], hit, 0.0, BOT, lambda pid: f"bot-{pid}")
    assert [line.split()[:4] for line in lines] == [
        ["8.00", "s", "bot-8", "GET"],
        ["8.50", "s", "bot-7", "POST"],
        ["9.00", "s", "bot-8", "POST"],
    ]
    assert lines[0].endswith("-> 103 102*")  # the player's message marked
    assert lines[1].endswith("-> 104") and lines[2].endswith("-> 106")


def test_a_board_shows_the_stored_game_if_its_move_was_stored_while_the_check_read_it() -> None:
    """Found by a short run: a Workshop Tonttu game moved on (a computer's pick, a race's
    close) between the check's load (v35) and its read of the thread (the board at 36)."""
    assert board_stored(36, 35, 36)  # moved on while the thread was read
    assert board_stored(35, 35, 37)  # moved on after; its board not edited yet
    assert not board_stored(36, 35, 35)  # shown, never stored
    assert not board_stored(34, 35, 35)  # behind what was stored before the read
