"""One error hierarchy for the whole library.

Every error dbjson raises is a :class:`DbjsonError`. Each subclass has an ``exit_code`` that the CLI
uses (documented in docs/cli.md), and the location fields that apply (file, line, table, column,
JSON pointer). Messages never contain passwords: URLs are masked before they reach an error.
"""

from __future__ import annotations

from typing import Any


class DbjsonError(Exception):
    """Base class of every error dbjson raises."""

    exit_code = 1
    hint: str | None = None

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        table: str | None = None,
        column: str | None = None,
        value: Any = None,
        pointer: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.table = table
        self.column = column
        self.value = value
        self.pointer = pointer
        if hint is not None:
            self.hint = hint

    def location(self) -> str:
        parts = []
        if self.file:
            parts.append(f"{self.file}:{self.line}" if self.line else self.file)
        if self.table:
            parts.append(f"table {self.table}")
        if self.column:
            parts.append(f"column {self.column}")
        if self.pointer:
            parts.append(f"at {self.pointer}")
        return ", ".join(parts)

    def __str__(self) -> str:
        loc = self.location()
        text = f"{loc}: {self.message}" if loc else self.message
        if self.value is not None:
            shown = repr(self.value)
            if len(shown) > 80:
                shown = shown[:77] + "..."
            text += f" (value {shown})"
        return text


class UsageError(DbjsonError):
    """Bad arguments: an unknown dialect, a malformed option value, a bad URL."""

    exit_code = 2


class ConnectionFailed(DbjsonError):
    """The server cannot be reached, refused the credentials, or the database does not exist."""

    exit_code = 3


class DocumentError(DbjsonError):
    """A schema document or manifest is malformed or fails validation."""

    exit_code = 4

    def __init__(self, message: str, *, problems: list[Any] | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.problems = problems or []


class TranslationError(DbjsonError):
    """A schema cannot be translated for the target (or ``--strict`` and something would be lost)."""

    exit_code = 5


class DataError(DbjsonError):
    """Bad row data: a malformed line, a value that does not fit, a truncated or missing file."""

    exit_code = 6


class VerifyError(DbjsonError):
    """Row counts or checksums in the target differ from the manifest."""

    exit_code = 7


class ApplyError(DbjsonError):
    """A statement failed on the target; names the statement and the object."""

    exit_code = 8

    def __init__(self, message: str, *, statement: str | None = None, obj: str | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.statement = statement
        self.obj = obj


class Cancelled(DbjsonError):
    """The operation was interrupted (Ctrl-C, SIGTERM)."""

    exit_code = 130


class UnsupportedError(DbjsonError):
    """The engine or server version does not support what was asked."""

    exit_code = 9
