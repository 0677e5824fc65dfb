"""The templates in the code and the catalogues that translate them, through Babel."""

from __future__ import annotations

from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from i18n import DOMAIN, po_path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [
    ("engine/**.py", "python"),
    ("tables/**.py", "python"),
    ("web/**.py", "python"),
    ("web/templates/**.html", "jinja2"),
    ("cogs/**.py", "python"),
    ("render/**.py", "python"),
    ("i18n/cli.py", "python"),
    ("storage/__main__.py", "python"),
    ("bot.py", "python"),
]
"""Where text for people is made (relative to the project's root)."""
KEYWORDS: dict[str, tuple[int, ...] | None] = {
    "gettext": None,
    "ngettext": (1, 2),
    "N_": None,
    "NP_": (1, 2),
    **dict.fromkeys(
        ("RuleError", "NotInGame", "NotYourTurn", "IllegalAction", "GameOver", "InvalidSetup")
    ),
}
"""What marks a template: ``words.gettext("…")``, ``words.ngettext("…", "…", n)``,
``N_("…")``/``NP_("…", "…")`` where a template is defined apart from its use, and the
first argument of the engine's rule errors (``engine.core.RuleError.text``)."""


def templates() -> Catalog:
    """Every template in the code, with the files that use it."""
    catalog = Catalog(domain=DOMAIN, project="workshop-bot", fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
        ROOT, SOURCES, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",), strip_comment_tags=True
    ):
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def read(lang: str) -> Catalog:
    with po_path(lang).open("rb") as po:
        return read_po(po, locale=lang, domain=DOMAIN)


def write(catalog: Catalog, lang: str) -> None:
    path = po_path(lang)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as po:
        # sorted by template, without line numbers: two people adding templates rarely
        # touch the same lines, and moving code does not rewrite the file
        write_po(po, catalog, width=0, sort_output=True, include_lineno=False, ignore_obsolete=True)


def update(lang: str) -> Catalog:
    """Merge the code's templates into ``lang``'s catalogue (new ones untranslated,
    removed ones dropped, nothing guessed) and save it."""
    if po_path(lang).exists():
        catalog = read(lang)
    else:
        catalog = Catalog(locale=lang, domain=DOMAIN, project="workshop-bot", fuzzy=False)
    catalog.update(templates(), no_fuzzy_matching=True, update_creation_date=False)
    write(catalog, lang)
    return catalog
