"""Secrets and privileges on real servers.

A user with a password (created here, granted two fresh databases, dropped after) runs schema-dump,
export, import and verify through the CLI, with the password in the URL, in DBJSON_PASSWORD and
typed at the --password-prompt; every artefact of the run (stdout, stderr, --json reports, the
schema document, the manifest, data files, the import journal, rejects, any other file written) is
searched for the password, also on error paths (wrong password, unreachable host, missing
database). The export runs with SELECT only (no lock privilege: the weaker snapshot mode, with a
warning); TLS options of the URL reach the drivers.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import faultlib as fl
import pytest
from conftest import FreshDatabase, _mysql_connect, _pg_connect
from sqlalchemy.engine import make_url

# Characters that need URL quoting, so masking must work on the quoted and the plain spelling.
PUNCT = "#%&@:/"


class Account:
    """A password-protected user owning a source database (filled) and an empty target database."""

    def __init__(self, engine: str, src: FreshDatabase, tgt: FreshDatabase, *, lock_privilege: bool) -> None:
        self.engine = engine
        self.user = "dbjson_u_" + secrets.token_hex(4)
        self.password = "Pw" + secrets.token_hex(8) + PUNCT
        self.src, self.tgt = src, tgt
        admin = src.admin
        if engine == "postgresql":
            with _pg_connect(admin) as c:
                c.execute(f"CREATE ROLE {self.user} LOGIN PASSWORD '{self.password}'")
                c.execute(f'GRANT CONNECT ON DATABASE "{src.name}" TO {self.user}')
                c.execute(f'ALTER DATABASE "{tgt.name}" OWNER TO {self.user}')
            with _pg_connect(admin, src.name) as c:  # read-only on the source: SELECT, nothing else
                c.execute(f"GRANT USAGE ON SCHEMA public TO {self.user}")
                c.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {self.user}")
            with _pg_connect(admin, tgt.name) as c:
                c.execute(f"GRANT ALL ON SCHEMA public TO {self.user}")
        else:
            c = _mysql_connect(admin)
            with c.cursor() as cur:
                for host in ("%", "localhost", "127.0.0.1"):
                    cur.execute(f"CREATE USER '{self.user}'@'{host}' IDENTIFIED BY {c.escape(self.password)}")
                    cur.execute(f"GRANT SELECT, SHOW VIEW, TRIGGER, EVENT ON `{src.name}`.* TO '{self.user}'@'{host}'")
                    cur.execute(f"GRANT ALL ON `{tgt.name}`.* TO '{self.user}'@'{host}'")
                    if lock_privilege:
                        cur.execute(f"GRANT RELOAD ON *.* TO '{self.user}'@'{host}'")
            c.close()

    def url(self, db: FreshDatabase, *, password: bool = True) -> str:
        u = make_url(db.url).set(username=self.user, password=self.password if password else None)
        return u.render_as_string(hide_password=False)

    def drop(self) -> None:
        if self.engine == "postgresql":
            for db in (self.src, self.tgt):
                db.drop()
            with _pg_connect(self.src.admin) as c:
                c.execute(f"DROP ROLE IF EXISTS {self.user}")
        else:
            c = _mysql_connect(self.src.admin)
            with c.cursor() as cur:
                for host in ("%", "localhost", "127.0.0.1"):
                    cur.execute(f"DROP USER IF EXISTS '{self.user}'@'{host}'")
            c.close()


@pytest.fixture
def account(fresh_db: Any, request: pytest.FixtureRequest) -> Iterator[Account]:
    engine, lock = request.param
    src, tgt = fresh_db(engine), fresh_db(engine)
    fl.fill_source(src, {"customers": 50, "orders": 120, "events": 40})
    acc = Account(engine, src, tgt, lock_privilege=lock)
    try:
        yield acc
    finally:
        acc.drop()


def _spellings(password: str) -> set[str]:
    return {password, quote(password, safe=""), quote(password), password[: -len(PUNCT)]}


def _leaks(password: str, texts: dict[str, str | bytes]) -> list[str]:
    found = []
    for name, text in texts.items():
        data = text.encode() if isinstance(text, str) else text
        for s in _spellings(password):
            if s.encode() in data:
                found.append(f"{name} contains {s!r}")
    return found


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _run(
    texts: dict[str, str | bytes], name: str, *args: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    res = subprocess.run(
        [sys.executable, "-m", "dbjson", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**fl.os.environ, **(env or {})},
        cwd=fl.ROOT,
        input=stdin,
    )
    texts[f"{name} stdout"] = res.stdout
    texts[f"{name} stderr"] = res.stderr
    return res


ENGINE_PARAMS = [("postgresql", False), ("mysql", False), ("mariadb", False)]


@pytest.mark.parametrize("account", ENGINE_PARAMS, indirect=True, ids=lambda p: p[0])
def test_no_artefact_of_a_run_contains_the_password(account: Account, tmp_path: Path) -> None:
    acc, texts = account, {}
    pw = acc.password
    src, tgt = acc.url(acc.src), acc.url(acc.tgt)
    out = tmp_path / "out"
    # 1. Password in the URL, progress on (not --quiet), --json reports.
    r = _run(texts, "schema-dump", "schema-dump", src, "-o", str(tmp_path / "schema.json"))
    assert r.returncode == 0, r.stderr
    r = _run(texts, "export", "export", src, "-o", str(out), "--json", "--threads", "2")
    assert r.returncode == 0, r.stderr
    # SELECT only: no FLUSH TABLES WITH READ LOCK / BACKUP STAGE on MySQL/MariaDB -> the weaker mode, said so.
    if acc.engine != "postgresql":
        assert "snapshot" in (r.stdout + r.stderr).lower(), r.stderr
    r = _run(texts, "import", "import", str(out), tgt, "--json", "--max-errors", "5")
    assert r.returncode == 0, r.stderr
    r = _run(texts, "verify", "verify", str(out), tgt, "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    # 2. Password from DBJSON_PASSWORD, and typed at --password-prompt (stdin when there is no terminal).
    env = {"DBJSON_PASSWORD": pw}
    r = _run(texts, "verify env", "verify", str(out), acc.url(acc.tgt, password=False), "--json", env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    r = _run(
        texts,
        "verify prompt",
        "--password-prompt",
        "verify",
        str(out),
        acc.url(acc.tgt, password=False),
        stdin=pw + "\n",
    )
    assert r.returncode == 0, r.stdout + r.stderr
    # 3. Error paths: wrong password (PostgreSQL here trusts 127.0.0.1, so it may succeed), a missing
    # database, a closed port.
    wrong = make_url(tgt).set(password=pw[::-1] + "x").render_as_string(hide_password=False)
    _run(texts, "wrong password", "verify", str(out), wrong)
    if acc.engine != "postgresql":
        assert texts["wrong password stderr"] and "Traceback" not in texts["wrong password stderr"]
    missing = make_url(tgt).set(database="dbjson_nope_" + secrets.token_hex(3)).render_as_string(hide_password=False)
    r = _run(texts, "missing database", "import", str(out), missing)
    assert r.returncode == 3 and "***" in r.stderr, r.stderr
    closed = make_url(tgt).set(host="127.0.0.1", port=1).render_as_string(hide_password=False)
    r = _run(texts, "closed port", "schema-dump", closed)
    assert r.returncode == 3 and "Traceback" not in r.stderr, r.stderr
    texts.update(_files(tmp_path))
    assert any(name.startswith("out/.dbjson-import") or name.startswith("out/data") for name in texts)
    leaks = _leaks(pw, texts)
    fl.record_secrets(acc.engine, len(texts), len(leaks))
    assert leaks == []


@pytest.mark.parametrize("account", [("mysql", True), ("mariadb", True)], indirect=True, ids=lambda p: p[0])
def test_export_with_the_lock_privilege_takes_one_snapshot(account: Account, tmp_path: Path) -> None:
    """With RELOAD (FLUSH TABLES WITH READ LOCK; MariaDB's BACKUP STAGE needs RELOAD too) the export's
    workers share one snapshot: no warning, and the manifest says consistent."""
    import orjson

    r = _run({}, "export", "export", account.url(account.src), "-o", str(tmp_path / "out"), "--threads", "2")
    assert r.returncode == 0, r.stderr
    snap = orjson.loads((tmp_path / "out" / "manifest.json").read_bytes())["snapshot"]
    assert snap["consistent"] is True, (snap, r.stderr)


@pytest.mark.parametrize("engine", ["postgresql", "mysql", "mariadb"])
def test_tls_options_of_the_url_reach_the_driver(engine: str, fresh_db: Any, tmp_path: Path) -> None:
    """An option the driver must act on (a CA file that does not exist; sslmode=require against a
    server without TLS) makes the connection fail cleanly, on the reading path and the loading path."""
    db = fresh_db(engine)
    db.execute("CREATE TABLE t (id int PRIMARY KEY)")
    base = make_url(db.url)
    if engine == "postgresql":
        bad = base.set(query={"sslmode": "require"}).render_as_string(hide_password=False)
        expect = "ssl"
    else:
        bad = base.set(query={"ssl_ca": str(tmp_path / "no-such-ca.pem")}).render_as_string(hide_password=False)
        expect = "no-such-ca.pem"
    texts: dict[str, str | bytes] = {}
    r = _run(texts, "schema-dump", "schema-dump", bad, "-o", str(tmp_path / "s.json"))
    assert r.returncode == 3, r.stderr
    assert expect in r.stderr.lower() and "Traceback" not in r.stderr, r.stderr
    out = tmp_path / "out"
    assert _run(texts, "export", "export", db.url, "-o", str(out)).returncode == 0
    target = fresh_db(engine)
    bad_target = make_url(bad).set(database=target.name).render_as_string(hide_password=False)
    r = _run(texts, "import", "import", str(out), bad_target)
    assert r.returncode == 3, f"the loader ignored the URL's TLS option: {r.returncode} {r.stderr}"
    assert "Traceback" not in r.stderr
