"""The chaos verdict's account of a post over a channel's limit
(``benchmarks/chaos_verdict.py``): what each process read and posted there just before."""

from __future__ import annotations

from benchmarks.chaos_verdict import around
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
