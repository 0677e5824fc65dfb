"""The translator that engine text takes: gettext's two calls, and English without one.

Text for people is made from English message templates (``"{name} places an Elf"``)
through a translator passed in by whoever asks for the text, never through global
state, so two games in two languages can be described at once. Any
``gettext.NullTranslations`` (English: the templates themselves) or
``gettext.GNUTranslations`` (a compiled catalogue, see the ``i18n`` package) is one.
Templates use ``str.format`` fields, filled after translation.
"""

from __future__ import annotations

import gettext
from collections.abc import Sequence
from typing import Protocol


class Words(Protocol):
    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...


ENGLISH: Words = gettext.NullTranslations()
"""The templates as they are written."""


def N_(message: str) -> str:
    """Marks a template for extraction where it is defined (a table of labels); it is
    translated where it is used: ``words.gettext(LABELS[key])``."""
    return message


class Term(str):
    """A game word inside a sentence's fields (a material, a station): translated with
    the sentence, where a player's name is not. Its text is an ``N_`` template."""

    __slots__ = ()


def listed(items: Sequence[str], words: Words = ENGLISH) -> str:
    """Items in a sentence, as people write them: "A", "A and B", "A, B and C"
    ("A, B und C"): commas between all but the last two, which the language's
    "{a} and {b}" joins."""
    if len(items) <= 1:
        return items[0] if items else ""
    return words.gettext("{a} and {b}").format(a=", ".join(items[:-1]), b=items[-1])
