"""The documentation matches the code: the generated CLI reference, the library examples, the site."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from dbjson import errors
from dbjson.cli import app

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
if str(ROOT) not in sys.path:  # tools/ is a top-level folder of the repository, not part of the package
    sys.path.insert(0, str(ROOT))

from tools.docgen import clidoc


def test_cli_reference_is_up_to_date() -> None:
    current = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert current == clidoc.render(), "docs/cli.md is stale: run python -m tools.docgen.clidoc"


def test_cli_reference_covers_every_command_and_option() -> None:
    text = clidoc.render()
    root = typer.main.get_command(app)
    commands = {"": root, **{f" {name}": cmd for name, cmd in root.commands.items()}}  # type: ignore[attr-defined]
    assert len(commands) >= 7
    for suffix, cmd in commands.items():
        heading = f"## `dbjson{suffix}`"
        assert heading in text
        section = text.split(heading, 1)[1].split("\n## ", 1)[0]
        for param in cmd.params:
            if param.opts[0].startswith("-"):
                for opt in param.opts:
                    assert f"`{opt}`" in section, f"dbjson{suffix}: {opt} missing"
            else:
                assert f"`{param.name.upper()}`" in section, f"dbjson{suffix}: argument {param.name} missing"
        if suffix and "Example" in (cmd.help or ""):
            assert "**Examples**" in section


def test_cli_reference_has_no_terminal_codes() -> None:
    text = clidoc.render()
    assert "\x1b" not in text
    assert not re.search(r"[╭╰│─]", text)


def test_exit_codes_listed_from_errors_module() -> None:
    text = clidoc.render()
    table = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.DbjsonError)]
    assert len(classes) >= 10
    for cls in classes:
        assert re.search(rf"^\| {cls.exit_code} \| `{cls.__name__}`", table, re.M), cls.__name__
    assert re.search(r"^\| 0 \| success", table, re.M)


def test_check_mode_detects_a_stale_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "cli.md"
    stale.write_text("# old\n", encoding="utf-8")
    monkeypatch.setattr(clidoc, "default_path", lambda: stale)
    assert clidoc.main(["--check"]) == 1
    assert clidoc.main([]) == 0
    assert clidoc.main(["--check"]) == 0


def fenced_blocks(path: Path, language: str) -> list[str]:
    """The fenced code blocks of a Markdown file with this info string ('' for none), in order."""
    blocks: list[str] = []
    current: list[str] | None = None
    lang = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            if current is None:
                current, lang = [], line[3:].strip()
            else:
                if lang == language:
                    blocks.append("\n".join(current) + "\n")
                current = None
        elif current is not None:
            current.append(line)
    assert current is None, f"{path.name}: unclosed code block"
    return blocks


def python_blocks(path: Path) -> list[str]:
    """The ```python fenced blocks of a Markdown file, in order."""
    return fenced_blocks(path, "python")


def test_library_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Python block of docs/library.md, in order, in one namespace, in an empty directory."""
    blocks = python_blocks(DOCS / "library.md")
    assert len(blocks) >= 10
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "library_md"}
    for number, block in enumerate(blocks, 1):
        try:
            exec(compile(block, f"docs/library.md block {number}", "exec"), namespace)
        except Exception as e:  # name the failing block
            raise AssertionError(f"docs/library.md block {number} failed: {type(e).__name__}: {e}\n{block}") from e


def test_library_covers_every_command() -> None:
    text = (DOCS / "library.md").read_text(encoding="utf-8")
    for name in ("reflect", "validate", "to_ddl", "apply_ddl", "export_database", "import_database", "verify"):
        assert f"dbjson.{name}(" in text, name


def test_mkdocs_nav_lists_every_page() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.name for p in DOCS.glob("*.md"))
    listed = sorted(re.findall(r":\s+(\S+\.md)\s*$", nav, re.M))
    assert listed == pages


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    """The site builds with no warning: no broken link, no missing anchor, no page outside the nav."""
    site = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert (site / "index.html").exists() and (site / "library" / "index.html").exists()
    assert not (site / "dev").exists(), "docs/dev/ is internal"


def test_library_signatures_match_the_code() -> None:
    """Each signature block of docs/library.md names exactly the function's parameters."""
    import inspect

    import dbjson
    from dbjson.export import export_table
    from dbjson.importer import import_table_stream
    from dbjson.schemaload import load_schema
    from dbjson.validate import check_document

    functions = {
        f.__name__: f
        for f in (
            dbjson.reflect,
            dbjson.validate,
            check_document,
            dbjson.to_ddl,
            dbjson.apply_ddl,
            load_schema,
            dbjson.export_database,
            export_table,
            dbjson.import_database,
            import_table_stream,
            dbjson.verify,
            dbjson.migrate,
        )
    }
    blocks = "\n".join(fenced_blocks(DOCS / "library.md", ""))
    documented = {name: args for name, args in re.findall(r"(?:dbjson\.)?(\w+)\((.*?)\)\s*->", blocks, re.S)}
    assert set(documented) == set(functions)
    for name, args in documented.items():
        params = [a.split("=")[0].strip() for a in args.split(",") if a.strip() not in ("", "*")]
        assert params == list(inspect.signature(functions[name]).parameters), name
