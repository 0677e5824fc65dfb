"""Maintain the catalogues: ``./dev i18n update [LANG]`` (``python -m i18n`` in the venv).

Extracts every template from the code and merges them into each language's ``.po``
(or only ``LANG``'s; a new language's catalogue is started): new templates arrive
untranslated, removed ones are dropped. Then translate the empty ``msgstr`` entries;
``tests/i18n`` lists any that are left.
"""

from __future__ import annotations

import sys

from i18n import LANGUAGES
from i18n.catalogue import update

HELP = """\
usage: ./dev i18n update [LANG]

Updates the translation catalogues after a change of the code's text: collects every
text for people from the code and merges it into each language's catalogue
(i18n/locales/LANG/LC_MESSAGES/messages.po), or only into LANG's (a new language's
catalogue is started). New texts arrive untranslated and removed ones are dropped;
then translate the empty msgstr entries. .venv/bin/python -m pytest tests/i18n lists
any left untranslated.

examples:
  ./dev i18n update        every language's catalogue
  ./dev i18n update de     only the German one
"""
"""What ``./dev i18n --help`` prints (English: the catalogues are for translators)."""


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(HELP, end="")
        return 0
    if not argv or argv[0] != "update" or len(argv) > 2:
        print(HELP, end="", file=sys.stderr)
        return 2
    for lang in argv[1:] or LANGUAGES[1:]:
        catalog = update(lang)
        missing = sum(1 for message in catalog if message.id and not message.string)
        print(f"{lang}: {len(catalog)} templates, {missing} without a translation")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
