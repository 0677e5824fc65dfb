"""A command line in its reader's language: argparse's own words ("usage:", "options",
its mistakes) translated, and the language the environment names, as gettext reads
it. ``python -m engine`` (``./dev play …``) and ``python -m storage`` (``./dev storage
…``) share these."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from engine.words import ENGLISH, N_, Words

ARGPARSE_WORDS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"),
    N_("the following arguments are required: %s"),
    N_("expected one argument"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("ignored explicit argument %r"),
)
"""argparse's own words that a person can meet (Python's templates, which argparse
looks up through its module's ``_``), listed so that the catalogue holds them:
:func:`argparse_speaking` hands argparse the reader's translator, so that a German
``--help`` says "Aufruf:" rather than "usage:" beside the German text."""


@contextmanager
def argparse_speaking(words: Words) -> Iterator[None]:
    """argparse's own words (:data:`ARGPARSE_WORDS`) in ``words``' language meanwhile:
    build and use the parser inside it."""
    module = vars(argparse)
    saved = module["_"], module["ngettext"]
    module["_"], module["ngettext"] = words.gettext, words.ngettext
    try:
        yield
    finally:
        module["_"], module["ngettext"] = saved


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Descriptions as written (line breaks kept) and "(default: …)" after each option
    that has a default worth stating, in ``words``' language."""

    def __init__(self, prog: str, words: Words = ENGLISH) -> None:
        super().__init__(prog)
        self.words = words

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False) or action.default is argparse.SUPPRESS:
            return action.help
        if self.words is ENGLISH or not action.help or "%(default)" in action.help:
            return super()._get_help_string(action)
        # argparse fills in %(default)s when it prints the help
        default = self.words.gettext("(default: {value})").format(value="%(default)s")
        return f"{action.help} {default}"


def default_language(
    environ: Mapping[str, str] | None = None, langs: Sequence[str] = ("en", "de")
) -> str:
    """The language of a command line's words, from the environment as gettext reads
    it: the locale is the first of ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set;
    ``C`` or ``POSIX`` there means English whatever else is set; otherwise the first
    language of the colon-separated ``LANGUAGE`` list among ``langs`` (``fr:de``:
    German), then the locale's (``de_DE.UTF-8``: German); English for anything else.

    >>> default_language({"LANG": "de_DE.UTF-8", "LC_ALL": "C"})
    'en'
    >>> default_language({"LANG": "en_GB.UTF-8", "LANGUAGE": "fr:de"})
    'de'
    """
    env = os.environ if environ is None else environ
    locale = next((env[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(name)), "")
    if locale.split(".")[0].split("@")[0] in ("C", "POSIX"):
        return "en"
    for candidate in [*env.get("LANGUAGE", "").split(":"), locale]:
        code = candidate.split(".")[0].split("@")[0].split("_")[0].split("-")[0].lower()
        if code in langs:
            return code
    return "en"
