"""Validation of schema documents and manifests against the JSON Schemas in ``jsonschema/``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import DocumentError
from .resources import data_dir, json_schema

if TYPE_CHECKING:  # imported when validating (about 30 ms of every command's start-up otherwise)
    from referencing import Registry

    import jsonschema

SCHEMA_FILES = ("schema.json", "manifest.json")


@dataclass(frozen=True)
class Problem:
    """One validation problem: a JSON pointer into the document and a message."""

    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.pointer or '/'}: {self.message}"


def _registry() -> Registry:
    from referencing import Registry, Resource

    resources = []
    for path in sorted(data_dir("jsonschema").glob("*.json")):
        doc = json_schema(path.name)
        resources.append((doc["$id"], Resource.from_contents(doc)))
    return Registry().with_resources(resources)


def _pointer(path: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def validate(document: Any, kind: str = "schema", *, partial: bool = False) -> list[Problem]:
    """Validate a parsed document; returns problems (empty when valid), each with a JSON pointer.

    ``kind`` is ``schema`` (a schema document), ``manifest`` (an export manifest) or the name of
    another file of ``jsonschema/`` (a state file). ``partial``: a field may be missing (the
    ``required`` keyword is not checked), but every field present must be valid — how loading reads
    a hand-made manifest.
    """
    import jsonschema

    schema = json_schema(f"{kind}.json")
    cls: Any = jsonschema.Draft202012Validator
    if partial:
        cls = jsonschema.validators.extend(cls, {"required": lambda *_: None})
    validator = cls(schema, registry=_registry())
    errors = list(validator.iter_errors(document))
    # A value of the wrong type also fails its enum/pattern/...: report the type error alone.
    mistyped = {tuple(e.absolute_path) for e in errors if e.validator == "type"}
    problems: set[Problem] = set()
    for e in errors:
        path = tuple(e.absolute_path)
        if path in mistyped and e.validator != "type":
            continue
        problems.update(_problems(e))
    return sorted(problems, key=_order)


def _order(p: Problem) -> tuple[list[tuple[int, int, str]], str]:
    """Document order: array indexes compare as numbers."""
    steps = [(0, int(s), "") if s.isdigit() else (1, 0, s) for s in p.pointer.split("/")]
    return steps, p.message


def _problems(error: jsonschema.ValidationError) -> list[Problem]:
    """The problems of one error; an unknown key is reported at its own pointer."""
    base = _pointer(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in allowed)
        if extra:
            return [Problem(_pointer([*error.absolute_path, k]), f"unknown key {k!r}") for k in extra]
    return [Problem(base, error.message)]


def check_document(document: Any, kind: str = "schema", *, file: str | None = None, partial: bool = False) -> None:
    """Raise :class:`DocumentError` listing every problem, if the document is not valid (``partial``:
    see :func:`validate`)."""
    problems = validate(document, kind, partial=partial)
    if problems:
        head = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise DocumentError(
            f"document fails validation: {head.message}{more}",
            problems=problems,
            pointer=head.pointer or "/",
            file=file,
        )
