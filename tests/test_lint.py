"""The tree is ruff-clean (lint and format) under the configuration of pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["dbjson", "tests", "bench", "examples", "tools", "hatch_build.py", "mkdocs_hooks.py"]


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *PATHS], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_ruff_lint_is_clean() -> None:
    proc = _ruff("check", "--no-cache")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_is_clean() -> None:
    proc = _ruff("format", "--check", "--no-cache")
    assert proc.returncode == 0, "run `ruff format` on:\n" + proc.stdout + proc.stderr
