"""Languages: the gettext catalogues and how a Discord locale picks one.

One gettext domain (``messages``) for the whole project, in
``i18n/locales/<lang>/LC_MESSAGES/messages.po``. English is the source language: the
templates in the code are the English text, so English needs no catalogue. A
catalogue is compiled by Babel when it is first needed (``read_po`` then
``write_mo``, in memory), so a changed ``.po`` can never meet a stale ``.mo``.

Adding a language is adding a catalogue: ``python -m i18n update fr`` starts one,
then translate it; the bot speaks every language that has a catalogue.
``python -m i18n update`` re-extracts the templates after a code change;
``tests/i18n`` fails while a template lacks a translation.
See ``docs/i18n.md``.
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from pathlib import Path

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from engine.words import ENGLISH, Words

DOMAIN = "messages"
LOCALES = Path(__file__).parent / "locales"
SOURCE = "en"
LANGUAGES = (SOURCE, *sorted(path.name for path in LOCALES.iterdir() if path.is_dir()))
"""Every language the bot speaks: English (the templates) and each catalogue's; the
first is the fallback."""


def name_of(lang: str, reader: str | None = None) -> str:
    """A language's name in the reader's language (CLDR, through Babel): ``name_of("en",
    "de")`` is "Englisch"; without a reader, in the language itself ("Deutsch")."""
    return str(Locale.parse(lang).get_display_name(reader or lang)).capitalize()


def po_path(lang: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def words(lang: str | None) -> Words:
    """The translator for a language code; English for ``None`` and for any language
    without a catalogue."""
    code = language(lang)
    if code == SOURCE:
        return ENGLISH
    with po_path(code).open("rb") as po:
        catalog = read_po(po, locale=code, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)  # fuzzy entries are left out: they fall back to English
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def language(locale: object) -> str:
    """The language the bot uses for a Discord locale (``"de"``, ``"en-US"``, a
    ``discord.Locale``) or a language code; English for anything it does not speak."""
    code = str(getattr(locale, "value", locale) or "").split("-")[0].split("_")[0].lower()
    return code if code in LANGUAGES else SOURCE
