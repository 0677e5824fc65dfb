"""Maintain the catalogues: ``python -m i18n update [LANG]``.

Extracts every template from the code and merges them into each language's ``.po``
(or only ``LANG``'s; a new language's catalogue is started): new templates arrive
untranslated, removed ones are dropped. Then translate the empty ``msgstr`` entries;
``tests/i18n`` lists any that are left.
"""

from __future__ import annotations

import sys

from i18n import LANGUAGES
from i18n.catalogue import update


def main(argv: list[str]) -> int:
    if not argv or argv[0] != "update" or len(argv) > 2:
        print(__doc__)
        return 2
    for lang in argv[1:] or LANGUAGES[1:]:
        catalog = update(lang)
        missing = sum(1 for message in catalog if message.id and not message.string)
        print(f"{lang}: {len(catalog)} templates, {missing} without a translation")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
