"""The package's layers import only downward: core → format → ddl kit → engines → commands → api → cli.

Every import in dbjson/ counts, function-level ones included (a lazy import is still a dependency).
A module may import from its own layer or any layer below it; an import from a higher layer fails
this test with the file, line and both layers named. See docs/dev/architecture.md.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "dbjson"

# Lowest first. A module is matched by the longest prefix listed; a package entry covers its submodules.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "core",
        (
            "dbjson.__about__",
            "dbjson.errors",
            "dbjson.model",
            "dbjson.url",
            "dbjson.connect",
            "dbjson.drivers",
            "dbjson.resources",
            "dbjson.validate",
            "dbjson.speedups",
            "dbjson._speedups_table",
            "dbjson.events",
            "dbjson.filters",
            "dbjson.ratelimit",
            "dbjson.casts",
            "dbjson.config",
        ),
    ),
    ("format", ("dbjson.format",)),
    ("ddl kit", ("dbjson.ddl",)),
    ("engines", ("dbjson.engines",)),
    (
        "commands",
        (
            "dbjson.reflect",
            "dbjson.schemaload",
            "dbjson.export",
            "dbjson.importer",
            "dbjson.verify",
            "dbjson.preflight",
            "dbjson.migrate",
            "dbjson.schemadiff",
            "dbjson.cluster",
            "dbjson.analytics",
        ),
    ),
    ("api", ("dbjson",)),  # dbjson/__init__.py: the library's public names, imported lazily
    ("cli", ("dbjson.cli", "dbjson.__main__")),
]
RANK = {name: i for i, (name, _) in enumerate(LAYERS)}


def layer_of(module: str) -> str:
    best, best_len = None, -1
    for name, prefixes in LAYERS:
        for p in prefixes:
            hit = module == p or (module.startswith(p + ".") and p != "dbjson")
            if hit and len(p) > best_len:
                best, best_len = name, len(p)
    if best is None:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS in tests/test_layers.py")
    return best


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports(path: Path, source: str | None = None) -> list[tuple[int, str]]:
    """(line, absolute module) of every dbjson import in the file (or in ``source``, read as if it
    were that file), at any depth."""
    tree = ast.parse(path.read_text() if source is None else source, str(path))
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "dbjson"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != "dbjson":
                continue
            # `from . import x` / `from .pkg import sub`: the target is the submodule when there is one
            for a in node.names:
                sub = f"{mod}.{a.name}"
                is_module = (ROOT / Path(*sub.split("."))).with_suffix(".py").exists() or (
                    ROOT / Path(*sub.split(".")) / "__init__.py"
                ).exists()
                out.append((node.lineno, sub if is_module else mod))
    return out


def test_every_module_has_a_layer() -> None:
    for path in sorted(PACKAGE.rglob("*.py")):
        layer_of(module_name(path))


def test_layers_import_only_downward() -> None:
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        here = module_name(path)
        mine = layer_of(here)
        for line, target in imports(path):
            theirs = layer_of(target)
            if RANK[theirs] > RANK[mine]:
                rel = path.relative_to(ROOT)
                bad.append(f"{rel}:{line}: {here} ({mine}) imports {target} ({theirs})")
    assert not bad, "imports from a higher layer:\n" + "\n".join(bad)


def test_engine_families_do_not_import_each_other() -> None:
    """An engine package uses the contract and engines/shared, never another engine's package."""
    families = [p.name for p in (PACKAGE / "engines").iterdir() if (p / "__init__.py").exists() and p.name != "shared"]
    bad = []
    for fam in families:
        for path in sorted((PACKAGE / "engines" / fam).rglob("*.py")):
            for line, target in imports(path):
                for other in families:
                    if other != fam and target.startswith(f"dbjson.engines.{other}"):
                        bad.append(f"{path.relative_to(ROOT)}:{line}: imports {target}")
    assert not bad, "\n".join(bad)


def test_shared_engine_code_knows_no_engine() -> None:
    """engines/interface.py, engines/base.py and engines/shared/ import no engine package."""
    paths = [
        PACKAGE / "engines" / "interface.py",
        PACKAGE / "engines" / "base.py",
        *(PACKAGE / "engines" / "shared").rglob("*.py"),
    ]
    bad = [
        f"{p.relative_to(ROOT)}:{line}: imports {t}"
        for p in paths
        if p.exists()
        for line, t in imports(p)
        if t.startswith("dbjson.engines.") and t.split(".")[2] not in ("interface", "base", "shared")
    ]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("dbjson.errors", "core"),
        ("dbjson.format.codec", "format"),
        ("dbjson.ddl.plan", "ddl kit"),
        ("dbjson.engines.mysql.load", "engines"),
        ("dbjson.importer.run", "commands"),
        ("dbjson", "api"),
        ("dbjson.cli.common", "cli"),
    ],
)
def test_layer_of(module: str, expected: str) -> None:
    assert layer_of(module) == expected


def test_an_upward_import_is_caught() -> None:
    """The scanner sees a function-level upward import (the test cannot pass vacuously)."""
    probe = PACKAGE / "format" / "probe.py"  # read as if it were there; nothing is written
    found = imports(probe, "def f() -> None:\n    from ..importer import import_database\n")
    assert found == [(2, "dbjson.importer")]
    assert RANK[layer_of(found[0][1])] > RANK[layer_of(module_name(probe))]
