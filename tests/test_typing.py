"""dbjson/ (and the doc generators in tools/) type-check clean under the strict mypy configuration of pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_strict_is_clean() -> None:
    # --no-namespace-packages: the repository's data folder jsonschema/ (no __init__.py) would
    # otherwise be taken for the jsonschema library when mypy runs from the checkout.
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-namespace-packages", "dbjson", "tools"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success: no issues found" in proc.stdout
