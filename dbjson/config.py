"""The configuration file (``dbjson.toml`` in the working directory, or ``--config FILE``).

One TOML table per command (and ``[dbjson]`` for dbjson's own ``progress``, ``log-file``,
``verbose``), holding that command's options under their long names (``tables``,
``max-errors`` or ``max_errors``, ``cast``...) and its arguments (``url``, ``directory``,
``source``, ``target``...)::

    [export]
    url = "mysql://app:${MYSQL_PASSWORD}@db.internal/shop"
    output = "shop-export"
    exclude = ["tmp_*"]

    [import]
    url = "postgresql://app@pg.internal/shop"
    cast = ["type tinyint(1) to boolean"]

``${NAME}`` is replaced by the environment variable NAME (an unset one is an error naming the
file, the key and the variable; ``$${`` is a literal ``${``). After a URL's ``://`` the
substitute is percent-encoded, so a password with ``@`` or ``/`` stays a password. Options given on
the command line replace the file's (a repeatable option's list as a whole). Every key is checked
against the command's options: an unknown table or key is an error naming the file and the key.
Nothing in the file is executed; values are strings, numbers, booleans or lists of strings.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .errors import UsageError

DEFAULT_NAME = "dbjson.toml"
_VAR = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class Param:
    """What the file may set for one parameter of a command: its value's shape."""

    name: str  # the parameter's Python name (max_errors)
    kind: str  # "flag" (bool), "list" (repeatable: list of strings), "int", "value" (string or number)


def find_config(explicit: str | os.PathLike[str] | None, cwd: Path | None = None) -> Path | None:
    """``explicit`` (which must exist), else ``dbjson.toml`` in ``cwd`` if there is one."""
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise UsageError(f"no such configuration file: {path}", file=str(path))
        return path
    path = (cwd or Path.cwd()) / DEFAULT_NAME
    return path if path.is_file() else None


def read_config(path: str | os.PathLike[str], commands: Mapping[str, Mapping[str, Param]]) -> dict[str, dict[str, Any]]:
    """The file's settings as ``{command: {parameter name: value}}``, checked against ``commands``
    (each command's parameters by the names the file may use) and with ``${VAR}`` substituted."""
    import tomllib  # lazy: only with a configuration file (start-up time)

    p = Path(path)
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise UsageError(f"cannot read the configuration file: {e.strerror}", file=str(p)) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise UsageError(f"not a valid TOML file: {e}", file=str(p)) from None
    out: dict[str, dict[str, Any]] = {}
    for command, table in raw.items():
        if command not in commands:
            raise UsageError(
                f"unknown section [{command}]",
                file=str(p),
                hint="sections are command names: " + ", ".join(sorted(commands)),
            )
        if not isinstance(table, dict):
            raise UsageError(f"{command} must be a table ([{command}])", file=str(p))
        params = commands[command]
        settings: dict[str, Any] = {}
        for key, value in table.items():
            param = params.get(key) or params.get(key.replace("_", "-"))
            where = f"{p}: [{command}] {key}"
            if param is None:
                raise UsageError(
                    f"{where}: unknown key",
                    hint=f"{command} takes: " + ", ".join(sorted(k for k in params if "_" not in k)),
                )
            settings[param.name] = _checked(value, param, key, where)
        out[command] = settings
    return out


def _checked(value: Any, param: Param, key: str, where: str) -> Any:
    if param.kind == "flag":
        if not isinstance(value, bool):
            raise UsageError(f"{where}: must be true or false")
        return value
    if param.kind == "list":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UsageError(f"{where}: must be a list of strings")
        return [_substitute(v, key, where) for v in value]
    if param.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise UsageError(f"{where}: must be an integer")
        return value
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise UsageError(f"{where}: must be a string or a number")
    return _substitute(value, key, where) if isinstance(value, str) else value


def _substitute(text: str, key: str, where: str) -> str:
    def one(mo: re.Match[str]) -> str:
        if mo.group(0) == "$${":
            return "${"
        name = mo.group(1)
        value = os.environ.get(name)
        if value is None:
            raise UsageError(f"{where}: environment variable {name} is not set", hint=f"export {name}=... first")
        inside_url = "://" in text[: mo.start()]  # a part of a URL (a password): encoded; a whole URL: as it is
        return quote(value, safe="") if inside_url else value

    return _VAR.sub(one, text)


__all__ = ["DEFAULT_NAME", "Param", "find_config", "read_config"]
