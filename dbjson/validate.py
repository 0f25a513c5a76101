"""Validation of schema documents and manifests against the JSON Schemas in ``jsonschema/``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jsonschema
from referencing import Registry, Resource

from .errors import DocumentError
from .resources import data_dir, json_schema

SCHEMA_FILES = ("schema.json", "manifest.json")


@dataclass(frozen=True)
class Problem:
    """One validation problem: a JSON pointer into the document and a message."""

    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.pointer or '/'}: {self.message}"


def _registry() -> Registry:
    resources = []
    for path in sorted(data_dir("jsonschema").glob("*.json")):
        doc = json_schema(path.name)
        resources.append((doc["$id"], Resource.from_contents(doc)))
    return Registry().with_resources(resources)


def _pointer(path: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def validate(document: Any, kind: str = "schema") -> list[Problem]:
    """Validate a parsed document; returns problems (empty when valid), each with a JSON pointer.

    ``kind`` is ``schema`` (a schema document) or ``manifest`` (an export manifest).
    """
    schema = json_schema(f"{kind}.json")
    validator = jsonschema.Draft202012Validator(schema, registry=_registry())
    problems = [
        Problem(_pointer(e.absolute_path), e.message)
        for e in sorted(validator.iter_errors(document), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    ]
    return problems


def check_document(document: Any, kind: str = "schema", *, file: str | None = None) -> None:
    """Raise :class:`DocumentError` listing every problem, if the document is not valid."""
    problems = validate(document, kind)
    if problems:
        head = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise DocumentError(
            f"document fails validation: {head.message}{more}", problems=problems, pointer=head.pointer or "/", file=file
        )
