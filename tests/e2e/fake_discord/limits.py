"""Discord's documented limits on what a bot sends, checked independently of the spec.

Each check returns a list of ``Problem`` (path, message); the server turns them into a
400 ``50035 Invalid Form Body`` answer and a recorded violation. The spec is looser in
places (message ``content`` allows 4000 characters there, the bot limit is 2000), so
these checks are the authority on limits. :func:`check_request` picks the checks for a
request's route (messages, interaction callbacks).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000
ACTION_ROWS_MAX = 5
BUTTONS_PER_ROW_MAX = 5
SELECT_OPTIONS_MAX = 25
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
SELECT_OPTION_TEXT_MAX = 100  # label, value, description
SELECT_PLACEHOLDER_MAX = 150
COMPONENTS_V2_TOTAL_MAX = 40
IS_COMPONENTS_V2 = 1 << 15
MODAL_TITLE_MAX = 45
MODAL_COMPONENTS_MAX = 5
TEXT_INPUT_LABEL_MAX = 45
TEXT_INPUT_PLACEHOLDER_MAX = 100
TEXT_INPUT_VALUE_MAX = 4000
AUTOCOMPLETE_CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
CHOICE_STRING_VALUE_MAX = 100

COMMAND_NAME_MAX = 32
COMMAND_DESCRIPTION_MAX = 100
LOCALES = frozenset(
    {
        *("id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt"),
        *("hu", "nl", "no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el"),
        *("bg", "ru", "uk", "hi", "th", "zh-CN", "ja", "zh-TW", "ko"),
    }
)
"""Discord's locales (the keys a ``*_localizations`` map may have)."""

BUTTON, STRING_SELECT, TEXT_INPUT = 2, 3, 4
SELECTS = {3, 5, 6, 7, 8}
ACTION_ROW = 1
LINK_STYLE, PREMIUM_STYLE = 5, 6


@dataclass(frozen=True)
class Problem:
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def _too_long(path: str, value: Any, limit: int, what: str) -> list[Problem]:
    if isinstance(value, str) and len(value) > limit:
        return [Problem(path, f"{what} is {len(value)} characters, the limit is {limit}")]
    return []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def check_message(body: dict[str, Any], path: str = "") -> list[Problem]:
    """Limits of a message create/edit body (channel message, callback data, webhook)."""
    problems: list[Problem] = []
    problems += _too_long(f"{path}content", body.get("content"), CONTENT_MAX, "content")
    problems += check_embeds(body.get("embeds") or [], f"{path}embeds")
    flags = body.get("flags") or 0
    problems += check_components(
        body.get("components") or [], f"{path}components", v2=bool(flags & IS_COMPONENTS_V2)
    )
    return problems


def check_embeds(embeds: list[Any], path: str) -> list[Problem]:
    problems: list[Problem] = []
    if len(embeds) > EMBEDS_MAX:
        problems.append(Problem(path, f"{len(embeds)} embeds, the limit is {EMBEDS_MAX}"))
    total = 0
    for i, embed in enumerate(embeds):
        if not isinstance(embed, dict):
            continue
        at = f"{path}/{i}"
        title = _text(embed.get("title"))
        description = _text(embed.get("description"))
        footer = _text(_get(embed.get("footer"), "text"))
        author = _text(_get(embed.get("author"), "name"))
        problems += _too_long(f"{at}/title", title, EMBED_TITLE_MAX, "embed title")
        problems += _too_long(
            f"{at}/description", description, EMBED_DESCRIPTION_MAX, "embed description"
        )
        problems += _too_long(f"{at}/footer/text", footer, EMBED_FOOTER_MAX, "embed footer")
        problems += _too_long(f"{at}/author/name", author, EMBED_AUTHOR_MAX, "embed author")
        total += len(title) + len(description) + len(footer) + len(author)
        fields = embed.get("fields") or []
        if len(fields) > EMBED_FIELDS_MAX:
            problems.append(
                Problem(f"{at}/fields", f"{len(fields)} fields, the limit is {EMBED_FIELDS_MAX}")
            )
        for j, field in enumerate(fields):
            if not isinstance(field, dict):
                continue  # the spec check reports it
            name, value = _text(field.get("name")), _text(field.get("value"))
            problems += _too_long(
                f"{at}/fields/{j}/name", name, EMBED_FIELD_NAME_MAX, "embed field name"
            )
            problems += _too_long(
                f"{at}/fields/{j}/value", value, EMBED_FIELD_VALUE_MAX, "embed field value"
            )
            total += len(name) + len(value)
    if total > EMBED_TOTAL_MAX:
        problems.append(
            Problem(path, f"embeds hold {total} characters in total, the limit is 6000")
        )
    return problems


def check_components(rows: list[Any], path: str, *, v2: bool = False) -> list[Problem]:
    problems: list[Problem] = []
    custom_ids: list[str] = []
    if v2:
        count = _count_components(rows)
        if count > COMPONENTS_V2_TOTAL_MAX:
            problems.append(Problem(path, f"{count} components, the limit is 40"))
    elif len(rows) > ACTION_ROWS_MAX:
        problems.append(Problem(path, f"{len(rows)} action rows, the limit is {ACTION_ROWS_MAX}"))
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            continue
        at = f"{path}/{i}"
        if row.get("type") != ACTION_ROW:
            if not v2:
                problems.append(Problem(at, "top-level components must be action rows"))
            continue
        children = [c for c in row.get("components") or [] if isinstance(c, dict)]
        buttons = [c for c in children if c.get("type") == BUTTON]
        selects = [c for c in children if c.get("type") in SELECTS]
        if not row.get("components"):
            problems.append(Problem(at, "an action row must hold at least one component"))
        if len(buttons) > BUTTONS_PER_ROW_MAX:
            problems.append(
                Problem(at, f"{len(buttons)} buttons in a row, the limit is {BUTTONS_PER_ROW_MAX}")
            )
        if selects and len(children) > 1:
            problems.append(Problem(at, "a select menu must be alone in its action row"))
        for j, child in enumerate(children):
            if isinstance(child, dict):
                problems += _check_component(child, f"{at}/components/{j}", custom_ids)
    seen: set[str] = set()
    for custom_id in custom_ids:
        if custom_id in seen:
            problems.append(Problem(path, f"custom_id {custom_id!r} is used twice"))
        seen.add(custom_id)
    return problems


def _count_components(items: list[Any]) -> int:
    count = 0
    for item in items:
        if isinstance(item, dict):
            count += 1 + _count_components(item.get("components") or [])
            if isinstance(item.get("accessory"), dict):
                count += 1
    return count


def _check_component(component: dict[str, Any], at: str, custom_ids: list[str]) -> list[Problem]:
    problems: list[Problem] = []
    kind = component.get("type")
    custom_id = component.get("custom_id")
    if custom_id is not None:
        custom_ids.append(custom_id)
        problems += _too_long(f"{at}/custom_id", custom_id, CUSTOM_ID_MAX, "custom_id")
    if kind == BUTTON:
        style = component.get("style")
        problems += _too_long(f"{at}/label", component.get("label"), BUTTON_LABEL_MAX, "label")
        if style == LINK_STYLE:
            if not component.get("url") or custom_id is not None:
                problems.append(Problem(at, "a link button needs a url and no custom_id"))
        elif style != PREMIUM_STYLE and not custom_id:
            problems.append(Problem(at, "a button needs a custom_id"))
        if not component.get("label") and not component.get("emoji") and style != PREMIUM_STYLE:
            problems.append(Problem(at, "a button needs a label or an emoji"))
    elif kind in SELECTS:
        problems += _too_long(
            f"{at}/placeholder",
            component.get("placeholder"),
            SELECT_PLACEHOLDER_MAX,
            "placeholder",
        )
        if not custom_id:
            problems.append(Problem(at, "a select menu needs a custom_id"))
        options = component.get("options") or []
        min_values = component.get("min_values", 1)
        max_values = component.get("max_values", 1)
        if kind == STRING_SELECT:
            if not 1 <= len(options) <= SELECT_OPTIONS_MAX:
                problems.append(
                    Problem(
                        f"{at}/options",
                        f"{len(options)} options, a select needs 1 to {SELECT_OPTIONS_MAX}",
                    )
                )
            values = [o.get("value") for o in options if isinstance(o, dict)]
            if len(set(values)) != len(values):
                problems.append(Problem(f"{at}/options", "option values must be unique"))
            if max_values > len(options):
                problems.append(Problem(at, "max_values is larger than the number of options"))
            for k, option in enumerate(o for o in options if isinstance(o, dict)):
                for key in ("label", "value", "description"):
                    problems += _too_long(
                        f"{at}/options/{k}/{key}",
                        option.get(key),
                        SELECT_OPTION_TEXT_MAX,
                        f"option {key}",
                    )
        if not (0 <= min_values <= 25 and 1 <= max_values <= 25 and min_values <= max_values):
            problems.append(Problem(at, f"bad min_values/max_values {min_values}/{max_values}"))
    return problems


def check_modal(data: dict[str, Any]) -> list[Problem]:
    problems = _too_long("data/title", data.get("title"), MODAL_TITLE_MAX, "modal title")
    problems += _too_long("data/custom_id", data.get("custom_id"), CUSTOM_ID_MAX, "custom_id")
    rows = data.get("components") or []
    if not 1 <= len(rows) <= MODAL_COMPONENTS_MAX:
        problems.append(
            Problem("data/components", f"a modal holds 1 to 5 components, not {len(rows)}")
        )
    for i, row in enumerate(r for r in rows if isinstance(r, dict)):
        children = row.get("components") or ([row["component"]] if "component" in row else [])
        children = [c for c in children if isinstance(c, dict)]
        label = row.get("label")
        problems += _too_long(f"data/components/{i}/label", label, TEXT_INPUT_LABEL_MAX, "label")
        for j, child in enumerate(children):
            at = f"data/components/{i}/components/{j}"
            problems += _too_long(
                f"{at}/custom_id", child.get("custom_id"), CUSTOM_ID_MAX, "custom_id"
            )
            if child.get("type") == TEXT_INPUT:
                problems += _too_long(
                    f"{at}/label", child.get("label"), TEXT_INPUT_LABEL_MAX, "label"
                )
                problems += _too_long(
                    f"{at}/placeholder",
                    child.get("placeholder"),
                    TEXT_INPUT_PLACEHOLDER_MAX,
                    "placeholder",
                )
                problems += _too_long(
                    f"{at}/value", child.get("value"), TEXT_INPUT_VALUE_MAX, "value"
                )
    return problems


def check_autocomplete(data: dict[str, Any]) -> list[Problem]:
    choices = data.get("choices") or []
    problems: list[Problem] = []
    if len(choices) > AUTOCOMPLETE_CHOICES_MAX:
        problems.append(Problem("data/choices", f"{len(choices)} choices, the limit is 25"))
    for i, choice in enumerate(c for c in choices if isinstance(c, dict)):
        name = _text(choice.get("name"))
        if not 1 <= len(name) <= CHOICE_NAME_MAX:
            problems.append(Problem(f"data/choices/{i}/name", "a choice name has 1-100 characters"))
        problems += _too_long(
            f"data/choices/{i}/value", choice.get("value"), CHOICE_STRING_VALUE_MAX, "value"
        )
    return problems


def _command_name(name: Any, at: str) -> list[Problem]:
    """Discord's rule for slash command and option names: 1-32 letters, digits, ``-_'``,
    lowercase where a letter has a lowercase form."""
    text = _text(name)
    if not 1 <= len(text) <= COMMAND_NAME_MAX or any(
        not (c.isalnum() or c in "-_'") or c != c.lower() for c in text
    ):
        return [Problem(at, f"Invalid command name {text!r}")]
    return []


def _localized(part: dict[str, Any], key: str, at: str, check: Any) -> list[Problem]:
    """``part[key]`` and each of its ``key_localizations``, checked by ``check``."""
    problems = check(part.get(key), f"{at}{key}") if key in part else []
    localized = part.get(f"{key}_localizations") or {}
    for locale, value in localized.items():
        where = f"{at}{key}_localizations.{locale}"
        if locale not in LOCALES:
            problems.append(Problem(where, f"Invalid locale {locale!r}"))
        problems += check(value, where)
    return problems


def check_commands(commands: list[Any]) -> list[Problem]:
    """Names, descriptions and choices of a bulk command overwrite, localized ones too."""

    def description(value: Any, at: str) -> list[Problem]:
        return _too_long(at, value, COMMAND_DESCRIPTION_MAX, "description")

    def choice_name(value: Any, at: str) -> list[Problem]:
        return _too_long(at, value, CHOICE_NAME_MAX, "choice name")

    def walk(part: dict[str, Any], at: str, slash: bool) -> list[Problem]:
        problems = _localized(part, "name", at, _command_name) if slash else []
        problems += _localized(part, "description", at, description)
        for i, option in enumerate(part.get("options") or []):
            problems += walk(option, f"{at}options.{i}.", True)
        for i, choice in enumerate(part.get("choices") or []):
            problems += _localized(choice, "name", f"{at}choices.{i}.", choice_name)
        return problems

    problems: list[Problem] = []
    for i, command in enumerate(commands):
        if isinstance(command, dict):
            problems += walk(command, f"{i}.", int(command.get("type") or 1) == 1)
    return problems


def form_errors(problems: list[Problem]) -> dict[str, Any]:
    """Discord's nested ``errors`` object for a 50035 answer."""
    errors: dict[str, Any] = {}
    for problem in problems:
        node = errors
        for part in [p for p in problem.path.split("/") if p]:
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append(
            {"code": "BASE_TYPE_INVALID", "message": problem.message}
        )
    return errors


_MESSAGE_BODY = re.compile(
    r"^/(channels/\d+/messages(/\d+)?|webhooks/\d+/[^/]+(/messages/[^/]+)?)$"
)
_CALLBACK = re.compile(r"^/interactions/\d+/[^/]+/callback$")


def check_request(method: str, path: str, body: Any) -> list[Problem]:
    """Discord's limits for the message, modal or choices in a request body."""
    if not isinstance(body, dict) or method not in ("POST", "PATCH"):
        return []
    if _MESSAGE_BODY.match(path):
        return check_message(body)
    if _CALLBACK.match(path):
        kind, data = body.get("type"), body.get("data") or {}
        if not isinstance(data, dict):
            return []
        if kind in (4, 7):
            return check_message(data, "data/")
        if kind == 8:
            return check_autocomplete(data)
        if kind == 9:
            return check_modal(data)
    return []
