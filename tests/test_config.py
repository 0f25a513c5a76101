"""The configuration file: dbjson.toml here or --config FILE; URLs with passwords from the
environment; per-command options, cast rules and filters; the command line wins; strict keys."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dbjson.cli import app
from dbjson.cli.common import config_params
from dbjson.config import read_config
from dbjson.connect import parse_url


def _db(path: Path) -> None:
    with sqlite3.connect(path) as c:
        c.executescript(
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, flag INTEGER); INSERT INTO orders VALUES (1, 1), (2, 0);"
            "CREATE TABLE tmp_x (a INTEGER);"
        )


def test_dbjson_toml_in_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _db(tmp_path / "src.db")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dbjson.toml").write_text(
        '[export]\nurl = "sqlite:///src.db"\noutput = "out"\nexclude = ["tmp_*"]\n\n'
        '[dbjson]\nlog-file = "run.log"\n\n'
        '[import]\ndirectory = "out"\nurl = "sqlite:///dst.db"\ncast = ["column orders.flag to boolean"]\n'
        "no_verify = false\n"
    )
    res = CliRunner().invoke(app, ["export", "-q"])
    assert res.exit_code == 0, res.output
    manifest = (tmp_path / "out" / "manifest.json").read_text()
    assert "TableFinished table=main.orders rows=2" in (tmp_path / "run.log").read_text()  # [dbjson]
    assert "orders" in manifest and "tmp_x" not in manifest
    res = CliRunner().invoke(app, ["import", "--json"])
    assert res.exit_code == 0, res.output
    assert '"orders.flag: INTEGER cast to boolean' in res.output or "cast to boolean" in res.output
    # the command line wins over the file (a list option as a whole)
    res = CliRunner().invoke(app, ["export", "-q", "-o", "out2", "--exclude", "orders"])
    assert res.exit_code == 0, res.output
    manifest = (tmp_path / "out2" / "manifest.json").read_text()
    assert "tmp_x" in manifest and '"orders"' not in manifest


def test_unknown_keys_and_sections_are_errors_naming_file_and_key(tmp_path: Path) -> None:
    cfg = tmp_path / "my.toml"
    for text, words in (
        ('[export]\nurll = "sqlite:///x.db"\n', "[export] urll: unknown key"),
        ('[exprot]\nurl = "x"\n', "unknown section [exprot]"),
        ("[export]\nthreads = 'four'\n", "[export] threads: must be an integer"),
        ("[export]\nexclude = 3\n", "[export] exclude: must be a list of strings"),
        ("[export\n", "not a valid TOML file"),
    ):
        cfg.write_text(text)
        res = CliRunner().invoke(app, ["--config", str(cfg), "export"])
        assert res.exit_code == 2, res.output
        assert "my.toml" in res.output and words in res.output, res.output
    res = CliRunner().invoke(app, ["--config", str(tmp_path / "nope.toml"), "export"])
    assert res.exit_code == 2 and "no such configuration file" in res.output


def test_passwords_come_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "dbjson.toml"
    cfg.write_text(
        '[migrate]\nsource = "postgresql://app:${DBJSON_T_PW}@db.example/shop"\ntarget = "${DBJSON_T_URL}"\n'
    )
    monkeypatch.setenv("DBJSON_T_PW", "p@ss/w:rd")
    monkeypatch.setenv("DBJSON_T_URL", "sqlite:///t.db")
    import typer.main

    from dbjson.cli.common import app as group

    settings = read_config(cfg, config_params(typer.main.get_command(group)))["migrate"]
    assert parse_url(settings["source"]).password == "p@ss/w:rd"  # encoded inside the URL
    assert settings["target"] == "sqlite:///t.db"  # a whole URL: as it is
    monkeypatch.delenv("DBJSON_T_PW")
    res = CliRunner().invoke(app, ["--config", str(cfg), "migrate"])
    assert res.exit_code == 2 and "DBJSON_T_PW is not set" in res.output
