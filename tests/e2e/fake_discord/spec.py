"""Validate request bodies against Discord's published OpenAPI description.

The spec lives beside the project (``<project>/../shared/discord-api-spec/openapi.json``);
it is loaded once per process (1.2 MB) and each operation's validator is built once.
When the file is absent, :func:`load_spec` returns ``None`` and the fake reports
``SPEC_MISSING_REASON`` so the conftest can warn clearly instead of silently passing.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jsonschema
import referencing
import referencing.jsonschema

# tests/e2e/fake_discord/spec.py -> project root is three levels above tests/.
PROJECT_ROOT = Path(__file__).resolve().parents[3]
_SPEC_RELATIVE = Path("shared") / "discord-api-spec" / "openapi.json"


def find_spec_path() -> Path:
    """``<project root>/../shared/discord-api-spec/openapi.json``.

    A git worktree may sit one level deeper than the main checkout, so the further
    ancestors are tried after the project root's parent (first hit wins).
    """
    for ancestor in PROJECT_ROOT.parents:
        candidate = ancestor / _SPEC_RELATIVE
        if candidate.is_file():
            return candidate
    return PROJECT_ROOT.parent / _SPEC_RELATIVE


SPEC_PATH = find_spec_path()


def spec_missing_reason(path: Path) -> str:
    return (
        f"Discord OpenAPI spec not found ({path.name} in ../shared/discord-api-spec/ beside "
        "the project): request bodies are NOT validated against the spec "
        "(Discord's limits and deadlines are still enforced)."
    )


SPEC_MISSING_REASON = spec_missing_reason(SPEC_PATH)
_SPEC_URI = "urn:discord-openapi"


@dataclass(frozen=True)
class Operation:
    method: str  # upper case
    template: str  # e.g. /channels/{channel_id}/messages
    regex: re.Pattern[str]
    literal_segments: int
    pointer: str  # JSON pointer to the operation object inside the spec


def _compile(template: str) -> re.Pattern[str]:
    parts = []
    for segment in template.strip("/").split("/"):
        if segment.startswith("{") and segment.endswith("}"):
            parts.append(f"(?P<{segment[1:-1]}>[^/]+)")
        else:
            parts.append(re.escape(segment))
    return re.compile("^/" + "/".join(parts) + "$")


def _escape_pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


class Spec:
    """The loaded OpenAPI document, an operation matcher and cached validators."""

    def __init__(self, document: dict[str, Any]) -> None:
        _adjust(document)
        self.document = document
        resource = referencing.Resource.from_contents(
            document, default_specification=referencing.jsonschema.DRAFT202012
        )
        self._registry: referencing.Registry[Any] = referencing.Registry().with_resource(
            _SPEC_URI, resource
        )
        self._operations: list[Operation] = []
        for template, item in document["paths"].items():
            for method in item:
                if method in {"get", "post", "put", "patch", "delete"}:
                    literal = sum(1 for s in template.split("/") if s and not s.startswith("{"))
                    pointer = f"/paths/{_escape_pointer(template)}/{method}"
                    self._operations.append(
                        Operation(method.upper(), template, _compile(template), literal, pointer)
                    )
        # Prefer templates with more literal segments: ".../messages/@original" beats
        # ".../messages/{message_id}".
        self._operations.sort(key=lambda op: -op.literal_segments)
        self._validators: dict[tuple[str, str], jsonschema.protocols.Validator | None] = {}
        self._branches: dict[tuple[str, str], dict[Any, list[Any]]] = {}
        self._results: dict[tuple[str, str], tuple[str, ...]] = {}  # body -> problems

    def match(self, method: str, path: str) -> Operation | None:
        for op in self._operations:
            if op.method == method and op.regex.match(path):
                return op
        return None

    def _validator(self, op: Operation, content_type: str) -> jsonschema.protocols.Validator | None:
        key = (op.pointer, content_type)
        if key not in self._validators:
            operation = self.document
            for token in op.pointer.strip("/").split("/"):
                operation = operation[token.replace("~1", "/").replace("~0", "~")]
            content = operation.get("requestBody", {}).get("content", {})
            if content_type not in content:
                self._validators[key] = None
            else:
                ref = (
                    f"{_SPEC_URI}#"
                    + quote(op.pointer, safe="/~@")
                    + f"/requestBody/content/{_escape_pointer(content_type)}/schema"
                )
                self._validators[key] = jsonschema.Draft202012Validator(
                    {"$ref": ref}, registry=self._registry
                )
                self._branches[key] = self._discriminated(content[content_type]["schema"])
        return self._validators[key]

    def _discriminated(self, schema: dict[str, Any]) -> dict[Any, list[Any]]:
        """For a union of ``$ref`` branches told apart by an integer ``type`` enum (the
        interaction callback), a validator per type value: validating only the branch the
        body names is several times faster and gives the same answer."""
        union = schema.get("anyOf") or schema.get("oneOf")
        if not union or not all("$ref" in branch for branch in union):
            return {}
        by_type: dict[Any, list[Any]] = {}
        for branch in union:
            target = self.document
            for token in branch["$ref"].removeprefix("#/").split("/"):
                target = target[token.replace("~1", "/").replace("~0", "~")]
            kind = (target.get("properties") or {}).get("type") or {}
            values = kind.get("enum") or ([kind["const"]] if "const" in kind else [])
            if not values:
                return {}
            validator = jsonschema.Draft202012Validator(
                {"$ref": _SPEC_URI + branch["$ref"]}, registry=self._registry
            )
            for value in values:
                by_type.setdefault(value, []).append(validator)
        return by_type

    def has_body(self, op: Operation) -> bool:
        return self._validator(op, "application/json") is not None

    def validate(self, op: Operation, body: Any) -> list[str]:
        """Return readable problems with ``body`` for this operation (empty: valid)."""
        validator = self._validator(op, "application/json")
        if validator is None:
            return [] if body is None else [f"{op.method} {op.template} takes no JSON body"]
        try:
            cache_key = (op.pointer, json.dumps(body, sort_keys=True))
        except (TypeError, ValueError):
            cache_key = None
        if cache_key is not None and cache_key in self._results:
            return list(self._results[cache_key])
        branches = self._branches.get((op.pointer, "application/json")) or {}
        kind = body.get("type") if isinstance(body, dict) else None
        if isinstance(kind, int) and not isinstance(kind, bool) and kind in branches:
            problems: list[str] = []
            for branch in branches[kind]:
                problems = _describe_all(list(branch.iter_errors(body)))
                if not problems:
                    break
        else:
            problems = _describe_all(list(validator.iter_errors(body)))
        if cache_key is not None:
            if len(self._results) > 10_000:
                self._results.clear()
            self._results[cache_key] = tuple(problems)
        return problems


def _adjust(document: dict[str, Any]) -> None:
    """The only changes made to the spec, each with its reason.

    - ``SnowflakeType`` is a digit string in the spec, but Discord accepts snowflakes as
      JSON integers too and discord.py sends integers (``recipient_id`` of
      ``POST /users/@me/channels``, ``message_reference.message_id``, ``allowed_mentions``
      ids, attachment ids...). An integer snowflake is accepted; anything else still fails.
    """
    schemas = document["components"]["schemas"]
    snowflake = schemas["SnowflakeType"]
    if "oneOf" not in snowflake:
        schemas["SnowflakeType"] = {"oneOf": [snowflake, {"type": "integer", "minimum": 0}]}


def _describe_all(errors: list[jsonschema.ValidationError]) -> list[str]:
    problems: list[str] = []
    for error in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path]):
        problems += _describe(error)
    return problems


def _describe(error: jsonschema.ValidationError) -> list[str]:
    """Readable problems; a failed anyOf/oneOf is explained by the branch the body meant."""
    if error.validator in ("anyOf", "oneOf") and error.context:
        branches: dict[Any, list[jsonschema.ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        # The branch the body meant: its discriminator (a "type" const/enum) matched.
        meant = [
            errs
            for errs in branches.values()
            if not any(
                e.validator in ("const", "enum") and list(e.relative_path)[-1:] == ["type"]
                for e in errs
            )
            and not any(e.validator == "type" and not e.relative_path for e in errs)
        ]
        if len(meant) == 1:
            return _describe_all(meant[0])
        best = jsonschema.exceptions.best_match(error.context)
        return _describe(best)
    where = "/".join(str(p) for p in error.absolute_path) or "<body>"
    detail = error.message if len(error.message) <= 300 else error.message[:300] + "..."
    return [f"{where}: {detail}"]


@functools.cache
def load_spec(path: Path = SPEC_PATH) -> Spec | None:
    """The spec, loaded once per process; ``None`` when the file is absent."""
    if not path.is_file():
        return None
    return Spec(json.loads(path.read_text(encoding="utf-8")))
