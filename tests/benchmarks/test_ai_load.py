"""The ai_load benchmark's interval for its p99 ratio, and its clicks timed as the bot
sent their answers."""

from pathlib import Path

import pytest

from benchmarks.ai_load import Click, ratio_interval, sent_latencies


def test_a_steady_ratio_has_a_narrow_interval() -> None:
    alone = [10.0] * 100
    beside = [20.0] * 100
    assert ratio_interval(alone, beside) == (2.0, 2.0)


def test_one_slow_click_makes_the_p99_ratio_swing() -> None:
    # 100 clicks: p99 is the second slowest; one 90 ms outlier among 10 ms clicks
    # shows or not depending on which clicks a rerun happens to get.
    alone = [10.0] * 100
    beside = [10.0] * 98 + [11.0, 90.0]
    low, high = ratio_interval(alone, beside)
    assert low <= 1.1
    assert high >= 8.9
    assert ratio_interval(alone, beside) == (low, high)  # seeded


def test_a_click_is_timed_to_the_last_chunk_the_bot_sent(tmp_path: Path) -> None:
    log = tmp_path / "sent.log"
    log.write_text("7 100.004\n8 200.010\n7 100.005\n")  # click 7's answer: two chunks
    clicks = [Click(0.009, 7, 100.0), Click(0.020, 8, 200.0), Click(3.1, None, 0.0)]
    assert sent_latencies(clicks, log) == pytest.approx([5.0, 10.0, 3100.0])
    with pytest.raises(KeyError):  # an answer the bot sent but did not log: no guess
        sent_latencies([Click(0.009, 9, 300.0)], log)
