"""The first hour: --version tells whether the C speedups are active, a missing build is warned
about once; scripts/quickstart with an absolute DBJSON_VENV; scripts/mysql-server's mirror choice."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dbjson

ROOT = Path(__file__).resolve().parent.parent
MODULES = ("_cchecksum", "_cimport", "_cmyexport", "_cpgcopy", "_cpgexport")


def _dbjson(*args: str, missing: bool = False, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``dbjson ARGS`` in a fresh interpreter; ``missing``: as if no C module had been built."""
    hide = "".join(f"sys.modules['dbjson.{m}'] = None; " for m in MODULES) if missing else ""
    code = f"import sys; {hide}sys.argv = ['dbjson', *sys.argv[1:]]; from dbjson.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}
    )


def test_version_says_whether_the_speedups_are_active(tmp_path: Path) -> None:
    proc = _dbjson("--version")
    assert proc.returncode == 0
    assert proc.stdout.splitlines() == [f"dbjson {dbjson.__version__}", "C speedups: active (5 modules)"]
    proc = _dbjson("--version", env={"DBJSON_NO_SPEEDUPS": "1"})
    assert "built but disabled" in proc.stdout
    proc = _dbjson("--version", missing=True)
    assert "C speedups: NOT built" in proc.stdout and "pip install --force-reinstall" in proc.stdout

    # the first command without them warns once (a marker under XDG_STATE_HOME), not again
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    first = _dbjson("validate", str(tmp_path / "none.json"), missing=True, env=env)
    again = _dbjson("validate", str(tmp_path / "none.json"), missing=True, env=env)
    assert "warning: C speedups: NOT built" in first.stderr and "apt install gcc python3-dev" in first.stderr
    assert "C speedups" not in again.stderr
    built = _dbjson("validate", str(tmp_path / "none.json"), env={"XDG_STATE_HOME": str(tmp_path / "s2")})
    assert "C speedups" not in built.stderr


def test_quickstart_with_an_absolute_venv(tmp_path: Path) -> None:
    venv = Path(sys.executable).parent.parent  # the tests' own, given as an absolute path
    proc = subprocess.run(
        [str(ROOT / "scripts" / "quickstart")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "DBJSON_VENV": str(venv), "QUICKSTART_DIR": str(tmp_path / "qs"), "NO_COLOR": "1"},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tmp_path / "qs" / "copy.db").is_file() and "quickstart: done" in proc.stdout


def _mirror(apt: Path, **env: str) -> str:
    proc = subprocess.run(
        [str(ROOT / "scripts" / "mysql-server"), "mirror"],
        capture_output=True,
        text=True,
        env={**os.environ, "DBJSON_APT_DIR": str(apt), **env},
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_mysql_server_takes_the_mirror_from_the_apt_sources(tmp_path: Path) -> None:
    """Only the choice (``mysql-server mirror``): the running server and its root are not touched."""
    apt = tmp_path / "apt"
    (apt / "sources.list.d").mkdir(parents=True)
    assert _mirror(apt) == "http://deb.debian.org/debian"  # no sources: the default
    (apt / "sources.list").write_text(
        "# a comment\n"
        "deb http://mirror.corp.example/debian-security bookworm-security main\n"
        "deb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] http://mirror.corp.example/debian/ bookworm main\n"
    )
    assert _mirror(apt) == "http://mirror.corp.example/debian"
    (apt / "sources.list").unlink()
    (apt / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://off.example/debian\nSuites: trixie\nEnabled: no\n\n"
        "Types: deb\nURIs: https://sec.example/debian-security\nSuites: trixie-security\n\n"
        "Types: deb-src deb\nURIs: https://apt.corp.example/debian\nSuites: trixie trixie-updates\nComponents: main\n"
    )
    assert _mirror(apt) == "https://apt.corp.example/debian"
    (apt / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://archive.ubuntu.com/ubuntu\nSuites: noble\n"
    )
    assert _mirror(apt) == "http://deb.debian.org/debian"  # not a Debian archive
    assert _mirror(apt, DBJSON_DEBIAN_MIRROR="http://given.example/debian/") == "http://given.example/debian"
