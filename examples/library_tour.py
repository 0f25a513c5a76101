"""dbjson from Python, end to end: reflect, validate, to_ddl, export_database, import_database, verify.

    python examples/library_tour.py                       # SQLite → SQLite, in ./library-tour/
    python examples/library_tour.py mysql://root@127.0.0.1:3306/shop postgresql://postgres@127.0.0.1/shop_copy

With no SOURCE, the sample shop database is generated as SQLite first (examples/sample_db.py). The
TARGET database is created if it does not exist; its tables must not exist yet (or pass
--replace). Each step is the library call behind one CLI command (docs/library.md); progress comes
through ``on_event`` callbacks, errors as ``dbjson.DbjsonError`` with a ``hint``.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import dbjson
from dbjson import events
from dbjson.schemaload import create_database

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sample_db  # noqa: E402  (examples/sample_db.py, next to this file)


def tour(source: str, target: str, workdir: Path, *, replace: bool = False) -> int:
    """Run every step; return the number of rows verified in the target."""
    # schema-dump: the live database as the schema model (frozen dataclasses ↔ the JSON document).
    db = dbjson.reflect(source)
    print(f"1. reflect: {db.source.engine} {db.source.server_version}, database {db.source.database!r}")
    for schema, table in db.tables():
        cols = ", ".join(f"{c.name}:{c.type.kind}" for c in table.columns)
        print(f"   {schema.name}.{table.name} ({cols})")

    # validate: the document against the JSON Schema (a list of problems; empty = valid).
    document = db.to_json()
    (workdir / "shop.schema.json").write_text(document, encoding="utf-8")
    import orjson

    problems = dbjson.validate(orjson.loads(document), "schema")
    print(f"2. validate: {len(problems)} problem(s)")
    assert not problems, problems

    # schema-load --dialect: DDL for every engine, and the report of what each one approximates.
    for dialect in ("postgresql", "mysql", "mariadb", "sqlite"):
        plan = dbjson.to_ddl(db, dialect)
        counts = plan.report.to_dict()["counts"]
        print(
            f"3. to_ddl {dialect:<10}: {len(plan.pre_data)} pre-data + {len(plan.post_data)} post-data "
            f"statements; {counts['loss']} loss(es), {counts['approximation']} approximation(s)"
        )

    # export: every table as JSON lines under one snapshot; progress through a thread-safe callback.
    tracker = events.StatusTracker()
    finished: list[tuple[str, int]] = []
    lock = threading.Lock()

    def on_export(event: events.Event) -> None:
        tracker.handle(event)
        if isinstance(event, events.TableFinished):
            with lock:  # called from worker threads
                finished.append((event.table, event.rows))

    export_dir = workdir / "export"
    exported = dbjson.export_database(source, export_dir, threads=2, on_event=on_export)
    print(
        f"4. export_database: {exported.rows} rows, snapshot {exported.manifest.snapshot.mode}; {tracker.status_line()}"
    )
    for table, rows in sorted(finished):
        print(f"   {table}: {rows} rows")

    # import: create the target database, then DDL, rows in parallel, keys and indexes, verification.
    create_database(target)
    kinds: Counter[str] = Counter()

    def on_import(event: events.Event) -> None:
        if isinstance(event, events.UnitProgress):
            return  # a running total sent a few times a second: how many depends on the machine's speed
        with lock:
            kinds[type(event).__name__] += 1
        if isinstance(event, events.PhaseStarted) and event.message:
            print(f"   phase: {event.message}")

    imported = dbjson.import_database(
        export_dir, target, threads=2, if_exists="replace" if replace else "fail", on_event=on_import
    )
    print(
        f"5. import_database: {imported.rows} rows into {len(imported.tables)} tables; events {dict(sorted(kinds.items()))}"
    )

    # verify: counts and content checksums, recomputed from the target's rows.
    checked: list[Any] = []
    check = dbjson.verify(export_dir, target, on_event=checked.append)
    for t in check.tables:
        print(f"   {'ok' if t.ok else 'MISMATCH':8} {t.table}: {t.rows} rows, checksum {t.checksum}")
    print(f"6. verify: {'ok' if check.ok else check.problems}")
    if not check.ok:
        raise SystemExit(7)

    # Errors: one hierarchy, with a hint for the common mistakes.
    try:
        dbjson.reflect("postgresql+psycopg2://user@localhost/shop")
    except dbjson.DbjsonError as err:
        print(f"7. errors: {type(err).__name__} (exit code {err.exit_code}): {err}\n   hint: {err.hint}")
    return sum(t.rows for t in check.tables)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("source", nargs="?", help="source URL (default: a new SQLite sample in WORKDIR)")
    ap.add_argument("target", nargs="?", help="target URL (default: sqlite:///WORKDIR/copy.db)")
    ap.add_argument("--workdir", default="library-tour", help="where the export goes (default: ./library-tour)")
    ap.add_argument("--replace", action="store_true", help="replace tables that exist in the target")
    args = ap.parse_args(argv)
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    for stale in ("export", "copy.db"):
        path = workdir / stale
        if path.is_dir():
            import shutil

            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    source = args.source
    if source is None:
        (workdir / "shop.db").unlink(missing_ok=True)
        source = f"sqlite:///{workdir / 'shop.db'}"
        counts = sample_db.create(source, n_customers=300)
        print(f"0. sample database {source}: {counts}")
    target = args.target or f"sqlite:///{workdir / 'copy.db'}"
    try:
        rows = tour(source, target, workdir, replace=args.replace)
    except dbjson.DbjsonError as err:
        print(f"error: {err}" + (f"\nhint: {err.hint}" if err.hint else ""), file=sys.stderr)
        return err.exit_code
    print(f"library tour: done, {rows} rows verified in {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
