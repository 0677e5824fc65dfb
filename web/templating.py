"""The pages' HTML: one Jinja2 environment, autoescaped, so every value a template
prints (a player's display name above all) is escaped unless it is already markup.

A template speaks the reader's language through ``gettext``/``ngettext`` (the
catalogue's extraction reads them from ``web/templates``, as from the code).
"""

from __future__ import annotations

from typing import Any

import jinja2
from markupsafe import Markup

from engine.words import Words

ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("web", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def render(template: str, words: Words, **context: Any) -> Markup:
    """``template`` (a file of ``web/templates``) in the language of ``words``."""
    page = ENV.get_template(template)
    return Markup(page.render(gettext=words.gettext, ngettext=words.ngettext, **context))
