"""Every template in the code has a German translation that keeps its fields, and the
catalogue holds nothing the code no longer uses."""

from __future__ import annotations

from collections import Counter
from string import Formatter

import pytest
from babel.messages.catalog import Catalog, Message

from i18n import LANGUAGES, words
from i18n.catalogue import read, templates

TRANSLATED = LANGUAGES[1:]


@pytest.fixture(scope="module")
def code() -> Catalog:
    return templates()


def _ids(catalog: Catalog) -> set[str | tuple[str, ...]]:
    return {message.id for message in catalog if message.id}


def _fields(template: str) -> Counter[tuple[str, str]]:
    return Counter(
        (name, spec or "") for _, name, spec, _ in Formatter().parse(template) if name is not None
    )


def _forms(message: Message) -> list[tuple[str, str]]:
    """(English, translation) per form; a plural's first form pairs with the singular."""
    if isinstance(message.id, tuple | list):
        singular, plural = message.id
        strings = list(message.string) if isinstance(message.string, tuple | list) else []
        return [(singular if i == 0 else plural, s) for i, s in enumerate(strings)]
    return [(message.id, str(message.string or ""))]


def test_the_code_has_templates(code: Catalog) -> None:
    assert len(_ids(code)) > 0


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_template_has_a_translation(code: Catalog, lang: str) -> None:
    catalogue = read(lang)
    missing = []
    for message in code:
        if not message.id:
            continue
        found = catalogue.get(message.id)
        if found is None or found.fuzzy or not all(s for _, s in _forms(found)):
            missing.append(message.id)
    assert not missing, f"{len(missing)} template(s) without a {lang} translation: {missing[:20]}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_keep_every_field(lang: str) -> None:
    wrong = []
    for message in read(lang):
        for english, translated in _forms(message):
            if translated and _fields(english) != _fields(translated):
                wrong.append((english, translated))
    assert not wrong, f"fields dropped or added: {wrong[:10]}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_catalogue_holds_only_templates_the_code_uses(code: Catalog, lang: str) -> None:
    unused = _ids(read(lang)) - _ids(code)
    assert not unused, f"{lang} entries no code uses (run python -m i18n update): {unused}"


def test_a_catalogue_compiles_and_english_is_the_templates() -> None:
    german = words("de")
    english = words("en")
    assert english.gettext("No such template here.") == "No such template here."
    assert german.gettext("No such template here.") == "No such template here."  # falls back
    assert words("fr") is english and words(None) is english
