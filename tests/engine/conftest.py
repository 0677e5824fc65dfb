"""The engine's tests read English unless a test asks for German: the terminal game's
language defaults to the one ``LANG`` names, so a German machine would
otherwise change what the English tests read."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def english_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "C.UTF-8")
