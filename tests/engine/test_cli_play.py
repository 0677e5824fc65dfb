"""The terminal game of ``python -m engine play``, both games: the "is thinking" notice
of a slow computer player, and Ctrl-C (issue 13)."""

from __future__ import annotations

import io
import threading
from typing import Any

import pytest

import engine.__main__ as cli
from engine.__main__ import main, thinking


class NotifyingOut(io.StringIO):
    """Output that tells a waiting thread when the thinking notice was written."""

    def __init__(self) -> None:
        super().__init__()
        self.noticed = threading.Event()

    def write(self, text: str) -> int:
        if "is thinking" in text:
            self.noticed.set()
        return super().write(text)


def test_a_decision_slower_than_the_threshold_shows_that_the_computer_is_thinking(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cli, "THINKING_NOTICE_SECONDS", 0.0)
    out = NotifyingOut()

    def slow() -> str:
        # a decision that lasts until the notice is out: no clock in the test
        assert out.noticed.wait(30)
        return "decided"

    assert thinking(out, "Bot 2", slow) == "decided"
    assert out.getvalue() == "  Bot 2 is thinking…\n"


def test_a_quick_decision_says_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "THINKING_NOTICE_SECONDS", 3600.0)
    out = io.StringIO()
    assert thinking(out, "Bot 2", lambda: 7) == 7
    assert out.getvalue() == ""


@pytest.mark.parametrize("game", ["workshop", "tonttu"])
def test_computer_opponents_that_think_long_say_so(
    monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    monkeypatch.setattr(cli, "THINKING_NOTICE_SECONDS", 0.0)
    out = NotifyingOut()
    real_choose = cli.choose

    def slow_choose(*args: Any, **kwargs: Any) -> Any:
        assert out.noticed.wait(30)
        out.noticed.clear()
        return real_choose(*args, **kwargs)

    monkeypatch.setattr(cli, "choose", slow_choose)
    argv = ["play", "--game", game, "--players", "3", "--seed", "3", "--opponents", "random"]
    assert main(argv, out, io.StringIO("1\n" * 3 + "q\n")) == 0
    assert "  Bot 1 is thinking…\n" in out.getvalue() or "  Bot 2 is thinking…\n" in out.getvalue()


class InterruptedInput(io.StringIO):
    def readline(self, size: int | None = -1) -> str:
        raise KeyboardInterrupt


@pytest.mark.parametrize("game", ["workshop", "tonttu"])
def test_ctrl_c_says_bye_and_exits_130(game: str) -> None:
    out = io.StringIO()
    argv = ["play", "--game", game, "--players", "3", "--seed", "1"]
    assert main(argv, out, InterruptedInput()) == 130
    assert out.getvalue().endswith("\nBye.\n")
