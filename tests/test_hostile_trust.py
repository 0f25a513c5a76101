"""Inputs that try to reach outside themselves (issue 16, items 5 and 7-11); docs/security.md.

* state files read back (``migrate --resume``'s plan, the import journal) are data only: a planted
  pickle never runs, a tampered or garbled file is a clear error naming it;
* every manifest field is validated before anything loads;
* paths stay inside the export directory, symlinks too;
* a type spelling is a type, a definition creates exactly the object its entry names;
* a line's memory is bounded (a decompression bomb, one endless line).

Counts per category go to tests/.reliability/hostile.json (via test_hostile.record), which
docs/security.md quotes.
"""

from __future__ import annotations

import datetime as dt
import decimal
import pickle
import shutil
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
from chinook import load_chinook
from test_hostile import assert_clean_failure, cli, record
from test_migrate import _interrupt_on_fourth_unit

from dbjson.errors import Cancelled, DataError, DocumentError
from dbjson.format.savedstate import decode_values, encode_values
from dbjson.migrate import migrate

# ---------------------------------------------------------------------------------------------
# Item 7: state files are data, never code
# ---------------------------------------------------------------------------------------------


def test_no_module_reads_code_or_pickles_from_a_file() -> None:
    """Nothing on disk becomes code: no ``marshal``, no ``pickle.load`` of a file, no ``exec``/``eval``
    of read text anywhere in the package (``pickle.loads`` stays for in-memory hand-offs to worker
    processes, whose bytes this process made itself)."""
    import ast

    root = Path(__file__).resolve().parent.parent / "dbjson"
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) else [])
                if any(n and n.split(".")[0] in ("marshal", "shelve", "dill", "cloudpickle") for n in names):
                    found.append(f"{path.relative_to(root)}:{node.lineno} imports {names}")
            elif isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                owner = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else ""
                if name in ("exec", "eval") and not owner or (owner == "pickle" and name == "load"):
                    found.append(f"{path.relative_to(root)}:{node.lineno} calls {owner + '.' if owner else ''}{name}")
    assert not found, found


class _Plant:
    """A pickle that, when loaded, creates the file ``marker`` (what a planted state file could do)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def test_saved_key_values_round_trip_their_types() -> None:
    values = (
        1,
        -(2**70),
        "ä'\"\\",
        b"\x00\xff",
        decimal.Decimal("-12.3400"),
        0.1,
        True,
        dt.datetime(2024, 2, 29, 23, 59, 59, 999999, tzinfo=dt.UTC),
        dt.datetime(2024, 1, 1),
        dt.date(1, 1, 1),
        dt.time(12, 0, 1, 5),
        dt.timedelta(hours=-838, seconds=1),
        uuid.UUID(int=7),
        None,
    )
    back = decode_values(orjson.loads(orjson.dumps(encode_values(values))), file="f", pointer="/x")
    assert back == values and [type(v) for v in back] == [type(v) for v in values]
    for bad in ([["int", "1e9"]], [["pickle", "x"]], [["bytes", "@@"]], [["date", "2024-13-01"]], [1], "x"):
        with pytest.raises(DocumentError) as e:
            decode_values(bad, file="plan.json", pointer="/units/0/lower")
        assert e.value.file == "plan.json" and (e.value.pointer or "").startswith("/units/0/lower")


def test_migrate_resume_never_unpickles_and_refuses_a_tampered_plan(fresh_db: Any, tmp_path: Path) -> None:
    src, dst = fresh_db("sqlite"), fresh_db("sqlite")
    load_chinook(src)
    state = tmp_path / "state"
    with pytest.raises(Cancelled):
        migrate(src.url, dst.url, threads=1, state_dir=state, importer_hook=_interrupt_on_fourth_unit)
    plan = state / "migrate-plan.json"
    assert plan.is_file() and not list(state.glob("*.pickle"))
    good = plan.read_bytes()
    doc = orjson.loads(good)
    assert doc["format"] == "dbjson-migrate-plan"

    # A planted pickle, under the old name and under the new one, never runs.
    marker = tmp_path / "pwned"
    (state / "migrate-plan.pickle").write_bytes(pickle.dumps(_Plant(marker)))
    plan.write_bytes(pickle.dumps(_Plant(marker)))
    r = cli("migrate", src.url, dst.url, "--state-dir", str(state), "--resume", "-q")
    assert_clean_failure(r, 4)
    assert str(plan) in r.stderr and "not valid JSON" in r.stderr, r.stderr
    assert not marker.exists()
    cases = 1

    # Tampered plans: each a DocumentError naming the file (and where).
    def tampered(edit: Any) -> dict[str, Any]:
        d = orjson.loads(good)
        edit(d)
        return d  # type: ignore[no-any-return]

    edits = {
        "rows-as-text": lambda d: d["units"][0].update(rows_estimate="10"),
        "unknown-tag": lambda d: d["units"][0].update(lower=[["pickle", "gASV"]], key_columns=["x"]),
        "extra-key": lambda d: d.update(code="__import__('os')"),
        "unit-dropped": lambda d: d["units"].pop(),
        "unit-twice": lambda d: d["units"].append(d["units"][0]),
        "index-out-of-range": lambda d: d["units"][0].update(index=5),
        "unknown-table": lambda d: d["units"][0].update(table="elsewhere"),
        "not-an-object": lambda d: d.clear(),
    }
    for name, edit in edits.items():
        plan.write_bytes(orjson.dumps(tampered(edit) if name != "not-an-object" else [1, 2]))
        with pytest.raises(DocumentError) as e:
            migrate(src.url, dst.url, threads=1, state_dir=state, resume=True)
        assert e.value.file == str(plan), (name, e.value)
        cases += 1
    plan.write_bytes(good[: len(good) // 2])  # garbled (cut) file
    with pytest.raises(DocumentError, match="not valid JSON"):
        migrate(src.url, dst.url, threads=1, state_dir=state, resume=True)
    cases += 1

    # A tampered journal record is a clear error too (not an internal one).
    journal = next(state.glob(".dbjson-import-*.journal"))
    kept = journal.read_bytes()
    journal.write_bytes(kept + b'{"op":"done","step":"data:x","rows":"10"}\n{"op":"done","step":"y"}\n')
    plan.write_bytes(good)
    with pytest.raises(DataError, match="corrupt import journal line: 'rows' is not a count"):
        migrate(src.url, dst.url, threads=1, state_dir=state, resume=True)
    cases += 1
    journal.write_bytes(kept)

    # The genuine plan still resumes.
    report = migrate(src.url, dst.url, threads=1, state_dir=state, resume=True)
    assert report.load.verify is not None and report.load.verify.ok
    assert not marker.exists()
    record("planted or tampered state files (migrate plan, journal)", cases, cases, 0)
    shutil.rmtree(state)


# ---------------------------------------------------------------------------------------------
# Item 11: every manifest field is validated before anything loads
# ---------------------------------------------------------------------------------------------

MANIFEST_EDITS: list[tuple[str, Any, str]] = [
    ("table-rows-as-text", lambda m_: m_["tables"][0].update(rows="10"), "/tables/0/rows"),
    ("file-rows-as-text", lambda m_: m_["tables"][0]["files"][0].update(rows="10"), "/tables/0/files/0/rows"),
    ("file-rows-negative", lambda m_: m_["tables"][0]["files"][0].update(rows=-1), "/tables/0/files/0/rows"),
    ("file-rows-float", lambda m_: m_["tables"][0]["files"][0].update(rows=1.5), "/tables/0/files/0/rows"),
    ("bytes-as-text", lambda m_: m_["tables"][0]["files"][0].update(bytes="12"), "/tables/0/files/0/bytes"),
    ("checksum-a-number", lambda m_: m_["tables"][0].update(checksum=12), "/tables/0/checksum"),
    ("file-checksum-list", lambda m_: m_["tables"][0]["files"][0].update(checksum=[1]), "/tables/0/files/0/checksum"),
    ("xxh128-not-hex", lambda m_: m_["tables"][0]["files"][0].update(xxh128="zz"), "/tables/0/files/0/xxh128"),
    ("columns-a-string", lambda m_: m_["tables"][0].update(columns="id,name"), "/tables/0/columns"),
    ("columns-twice", lambda m_: m_["tables"][0]["columns"].append("id"), "/tables/0/columns"),
    ("name-a-number", lambda m_: m_["tables"][0].update(name=7), "/tables/0/name"),
    ("compression-unknown", lambda m_: m_.update(compression="lzma"), "/compression"),
    ("format-version-number", lambda m_: m_.update(format_version=1.2), "/format_version"),
    ("unknown-field", lambda m_: m_["tables"][0].update(sql="DROP TABLE x"), "/tables/0/sql"),
    ("snapshot-a-string", lambda m_: m_.update(snapshot="x"), "/snapshot"),
    (
        "file-listed-twice",
        lambda m_: m_["tables"][0]["files"].append(dict(m_["tables"][0]["files"][0])),
        "/tables/0/files/1/path",
    ),
    ("table-listed-twice", lambda m_: m_["tables"].append(m_["tables"][0]), "/tables/1/name"),
    ("rows-not-the-files-sum", lambda m_: m_["tables"][0].update(rows=m_["tables"][0]["rows"] + 1), "/tables/0/rows"),
    (
        "key-range-columns-text",
        lambda m_: m_["tables"][0]["files"][0].update(key_range={"columns": "id"}),
        "/tables/0/files/0/key_range/columns",
    ),
]


def test_every_manifest_field_is_validated_before_loading(fresh_db: Any, tmp_path: Path) -> None:
    from test_import import ITEMS, ITEMS_DDL, database, item_rows, make_export, target_with

    from dbjson.importer import import_database

    target = target_with(fresh_db, "sqlite", ITEMS_DDL)
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(9)})
    good = (export / "manifest.json").read_bytes()
    for case, edit, pointer in MANIFEST_EDITS:
        doc = orjson.loads(good)
        edit(doc)
        (export / "manifest.json").write_bytes(orjson.dumps(doc))
        with pytest.raises(DocumentError) as e:
            import_database(export, target.url, data_only=True, threads=1)
        assert e.value.file == str(export / "manifest.json"), (case, e.value)
        assert e.value.pointer == pointer, (case, str(e.value))
        assert target.query("SELECT COUNT(*) FROM items") == [(0,)], case  # nothing loaded
    # Through the CLI: exit 4 (a document error), the file and the field named, no traceback.
    doc = orjson.loads(good)
    doc["tables"][0]["rows"] = "10"
    (export / "manifest.json").write_bytes(orjson.dumps(doc))
    r = cli("import", str(export), target.url, "--data-only", "-q")
    assert_clean_failure(r, 4)
    assert "manifest.json" in r.stderr and "/tables/0/rows" in r.stderr, r.stderr
    assert target.query("SELECT COUNT(*) FROM items") == [(0,)]
    # A hand-made manifest (no checksums, sizes, format fields) still loads.
    (export / "manifest.json").write_bytes(
        orjson.dumps({"tables": {"shop.items": {"files": ["data/shop.items.jsonl"]}}})
    )
    report = import_database(export, target.url, data_only=True, threads=1, verify=False)
    assert report.rows == 10
    record("wrongly typed or inconsistent manifest fields", len(MANIFEST_EDITS) + 1, len(MANIFEST_EDITS) + 1, 0)


# ---------------------------------------------------------------------------------------------
# Item 10: symbolic links never lead out of the export directory
# ---------------------------------------------------------------------------------------------


def _link_data_file(export: Path, outside: Path) -> None:
    f = export / "data" / "shop.items.jsonl"
    shutil.copyfile(f, outside / "stolen.jsonl")
    f.unlink()
    f.symlink_to(outside / "stolen.jsonl")


def _link_data_dir(export: Path, outside: Path) -> None:
    shutil.copytree(export / "data", outside / "data")
    shutil.rmtree(export / "data")
    (export / "data").symlink_to(outside / "data", target_is_directory=True)


def _link_doc(name: str) -> Any:
    def mutate(export: Path, outside: Path) -> None:
        shutil.copyfile(export / name, outside / name)
        (export / name).unlink()
        (export / name).symlink_to(outside / name)

    return mutate


SYMLINKS_IN = {
    "data-file": _link_data_file,
    "data-directory": _link_data_dir,
    "manifest": _link_doc("manifest.json"),
    "schema-document": _link_doc("schema.json"),
}


def test_import_refuses_symlinks_out_of_the_export(fresh_db: Any, tmp_path: Path) -> None:
    from test_import import ITEMS, ITEMS_DDL, database, item_rows, make_export, target_with

    from dbjson.importer import import_database

    target = target_with(fresh_db, "sqlite", ITEMS_DDL)
    for i, (case, mutate) in enumerate(SYMLINKS_IN.items()):
        outside = tmp_path / f"outside{i}"
        outside.mkdir()
        export = make_export(tmp_path / f"out{i}", database(ITEMS), {"items": item_rows(9)})
        mutate(export, outside)
        with pytest.raises(DocumentError, match="resolves outside the export directory") as e:
            import_database(export, target.url, data_only=True, threads=1)
        assert e.value.file, case
        assert target.query("SELECT COUNT(*) FROM items") == [(0,)], case
    r = cli("import", str(tmp_path / "out0"), target.url, "--data-only", "-q")
    assert_clean_failure(r, 4)
    assert "symbolic link" in r.stderr and "manifest.json" in r.stderr, r.stderr
    record("symbolic links out of the export directory (read)", len(SYMLINKS_IN) + 1, len(SYMLINKS_IN) + 1, 0)


def test_files_dbjson_writes_never_follow_a_planted_link(fresh_db: Any, tmp_path: Path) -> None:
    from test_import import ITEMS, ITEMS_DDL, _lines, database, item_rows, make_export, target_with

    from dbjson.connect import Target, parse_url
    from dbjson.errors import UsageError
    from dbjson.export import export_database
    from dbjson.format.journal import journal_path
    from dbjson.importer import import_database
    from dbjson.importer.session import target_identity

    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    target = target_with(fresh_db, "sqlite", ITEMS_DDL)
    cases = 0
    # The import journal.
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(9)})
    journal = journal_path(export, target_identity(Target(parse_url(target.url))))
    journal.symlink_to(victim)
    import_database(export, target.url, data_only=True, threads=1)  # the link is replaced, not followed
    assert victim.read_bytes() == b"precious\n" and not journal.is_symlink()
    target.execute("DELETE FROM items;")
    cases += 1
    # The rejects directory.
    lines = _lines(item_rows(5))
    lines[2] = b"{broken"
    export = make_export(tmp_path / "out2", database(ITEMS), {}, raw_lines={"items": lines})
    (tmp_path / "elsewhere").mkdir()
    (export / "rejects").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    with pytest.raises(UsageError, match="symbolic link"):
        import_database(export, target.url, data_only=True, threads=1, max_errors=5)
    assert not list((tmp_path / "elsewhere").iterdir())
    cases += 1
    # An export's data directory and its .partial files.
    src = fresh_db("sqlite")
    src.execute("CREATE TABLE t (id integer PRIMARY KEY, v text); INSERT INTO t VALUES (1, 'a');")
    out = tmp_path / "exp"
    out.mkdir()
    (out / "data").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    with pytest.raises(UsageError, match="symbolic link"):
        export_database(src.url, out)
    (out / "data").unlink()
    (out / "data").mkdir()
    (out / "data" / "main.t.jsonl.partial").symlink_to(victim)
    (out / "manifest.json.partial").symlink_to(victim)
    with pytest.raises(UsageError, match="symbolic link"):
        export_database(src.url, out)
    cases += 2
    # The migrate plan (state directory).
    state = tmp_path / "state"
    state.mkdir()
    (state / "migrate-plan.json.partial").symlink_to(victim)
    with pytest.raises(UsageError, match="symbolic link"):
        migrate(src.url, fresh_db("sqlite").url, threads=1, state_dir=state)
    cases += 1
    assert victim.read_bytes() == b"precious\n"
    record("planted symbolic links where dbjson writes", cases, cases, 0)


# ---------------------------------------------------------------------------------------------
# Item 9: a type spelling is a type
# ---------------------------------------------------------------------------------------------

INT = {"postgresql": "integer", "mysql": "int", "mariadb": "int", "sqlite": "INTEGER"}
GOOD_TYPES = {
    "postgresql": [
        "timestamp(3) with time zone",
        "character varying(40)[]",
        "numeric(10,2)",
        "double precision",
        '"char"',
        "interval day to second(3)",
        "bit varying(8)",
        "time without time zone",
        "int4[][]",
        "integer ARRAY[3]",
    ],
    "mysql": [
        "int unsigned zerofill",
        "decimal(10,2) unsigned",
        "enum('a,b','c''d','e\\\\''f')",
        "set('x','y')",
        "varchar(10) character set latin1 collate latin1_bin",
        "bigint(20) unsigned",
        "char(36) binary",
    ],
    "sqlite": ["VARCHAR(40)", "UNSIGNED BIG INT", "DOUBLE PRECISION", "NATIVE CHARACTER(70)", "DECIMAL(10,5)", ""],
}
GOOD_TYPES["mariadb"] = GOOD_TYPES["mysql"]
CLAUSES = [
    "{i} REFERENCES victim(id) ON DELETE CASCADE",
    "{i} CHECK (false)",
    "{i} GENERATED ALWAYS AS (1) STORED",
    "{i} AS (1)",
    "{i} DEFAULT 5",
    "{i} NOT NULL",
    "{i} PRIMARY KEY",
    "{i} UNIQUE",
    "{i} CONSTRAINT c CHECK (1 = 0)",
    "{i}, pwned int",
    "{i} /* x */",
    "{i} -- x",
    "{i}); DROP TABLE canary; CREATE TABLE x (i int",
    '{i} COLLATE "C"',
    "{i} COMMENT 'x'",
    "geometry('x\\', 1) REFERENCES victim(id) --')",
]


@pytest.mark.parametrize("engine", ["postgresql", "mysql", "mariadb", "sqlite"])
def test_type_grammar(engine: str) -> None:
    from dbjson.ddl.typespell import type_problem

    for spelling in [INT[engine], *GOOD_TYPES[engine]]:
        assert type_problem(spelling, engine) is None, spelling
    refused = 0
    for clause in CLAUSES:
        spelling = clause.format(i=INT[engine])
        if engine == "mysql" and "COLLATE" in clause:
            continue  # MySQL's column type takes COLLATE (a name, not a double-quoted identifier)
        assert type_problem(spelling, engine) is not None, spelling
        refused += 1
    record(f"type spellings carrying clauses ({engine}, parser)", refused, refused, 0)


def _type_doc(engine: str, raw: str) -> dict[str, Any]:
    from hostile.documents import base_document

    doc = base_document(engine)
    doc["schemas"][0]["tables"][0]["columns"][1]["native"]["raw"] = raw
    return doc


@pytest.mark.parametrize("engine", ["postgresql", "mysql", "mariadb", "sqlite"])
def test_type_spelling_with_a_clause_is_refused(engine: str, fresh_db: Any, tmp_path: Path) -> None:
    """``native.raw`` = ``int REFERENCES victim(id) ON DELETE CASCADE`` must not put a foreign key
    on a table outside the document: schema-load exits 5 naming file, table, column."""
    target = fresh_db(engine)
    target.execute("CREATE TABLE victim (id int PRIMARY KEY);\nINSERT INTO victim VALUES (1);\n")
    cases = 0
    for clause in CLAUSES[:4]:
        doc = tmp_path / "doc.json"
        doc.write_bytes(orjson.dumps(_type_doc(engine, clause.format(i=INT[engine]))))
        r = cli("schema-load", str(doc), "--to", target.url)
        assert_clean_failure(r, 5)
        err = r.stderr
        assert "/schemas/0/tables/0/columns/1/native/raw" in err and "table t" in err and "column name" in err, err
        assert str(doc) in err, err
        cases += 1
    # Nothing was created, the victim has no new dependant.
    if engine == "postgresql":
        assert target.query("SELECT count(*) FROM pg_constraint WHERE confrelid = 'victim'::regclass") == [(0,)]
        assert target.query("SELECT count(*) FROM pg_class WHERE relname = 't'") == [(0,)]
    elif engine == "sqlite":
        assert target.query("SELECT count(*) FROM sqlite_master WHERE name = 't'") == [(0,)]
    else:
        assert target.query(
            f"SELECT count(*) FROM information_schema.referential_constraints WHERE constraint_schema = '{target.name}'"
        ) == [(0,)]
    # A real type spelling still loads.
    doc.write_bytes(orjson.dumps(_type_doc(engine, GOOD_TYPES[engine][0])))
    r = cli("schema-load", str(doc), "--to", target.url)
    assert r.returncode == 0, r.stderr
    record(f"type spellings carrying clauses ({engine}, schema-load)", cases, cases, 0)


# ---------------------------------------------------------------------------------------------
# Item 8: a definition creates exactly the object its entry names; --untrusted runs no code
# ---------------------------------------------------------------------------------------------

DEFINITIONS: list[tuple[str, str, str, dict[str, Any], bool]] = [
    # (sql, what, engine, entry, refused)
    (
        "CREATE OR REPLACE FUNCTION public.f(a integer) RETURNS integer LANGUAGE sql AS $f$ SELECT 1 $f$",
        "routine",
        "postgresql",
        {"name": "f", "schema": "public"},
        False,
    ),
    (
        "CREATE OR REPLACE FUNCTION public.victim_fn() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$",
        "routine",
        "postgresql",
        {"name": "f", "schema": "public"},
        True,
    ),
    (
        "CREATE FUNCTION other.f() RETURNS int AS $$ SELECT 1 $$",
        "routine",
        "postgresql",
        {"name": "f", "schema": "public"},
        True,
    ),
    (
        'CREATE FUNCTION "F"() RETURNS int AS $$ SELECT 1 $$',
        "routine",
        "postgresql",
        {"name": "F", "schema": "public"},
        False,
    ),
    (
        'CREATE FUNCTION "F"() RETURNS int AS $$ SELECT 1 $$',
        "routine",
        "postgresql",
        {"name": "f", "schema": "public"},
        True,
    ),
    (
        "CREATE TRIGGER g BEFORE INSERT OR UPDATE OF a, b ON public.items FOR EACH ROW EXECUTE FUNCTION f()",
        "trigger",
        "postgresql",
        {"name": "g", "schema": "public", "table": "items"},
        False,
    ),
    (
        "CREATE TRIGGER g BEFORE INSERT ON public.victim FOR EACH ROW EXECUTE FUNCTION f()",
        "trigger",
        "postgresql",
        {"name": "g", "schema": "public", "table": "items"},
        True,
    ),
    (
        "CREATE TRIGGER other BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION f()",
        "trigger",
        "postgresql",
        {"name": "g", "schema": "public", "table": "items"},
        True,
    ),
    (
        "CREATE DEFINER=`root`@`%` TRIGGER `g` BEFORE INSERT ON `items` FOR EACH ROW SET NEW.a = 1",
        "trigger",
        "mysql",
        {"name": "g", "schema": "shop", "table": "items"},
        False,
    ),
    (
        "CREATE DEFINER=`root`@`%` TRIGGER `g` BEFORE INSERT ON `victim` FOR EACH ROW SET NEW.a = 1",
        "trigger",
        "mysql",
        {"name": "g", "schema": "shop", "table": "items"},
        True,
    ),
    (
        "CREATE /* ON items */ TRIGGER g -- ON items\n BEFORE INSERT ON victim FOR EACH ROW SET NEW.a=1",
        "trigger",
        "mariadb",
        {"name": "g", "schema": "shop", "table": "items"},
        True,
    ),
    (
        "CREATE DEFINER=`root`@`localhost` PROCEDURE `p`(IN x INT)\nBEGIN\n SELECT 1;\nEND",
        "routine",
        "mysql",
        {"name": "p", "schema": "shop"},
        False,
    ),
    ("CREATE PROCEDURE `other`.`p`() SELECT 1", "routine", "mysql", {"name": "p", "schema": "shop"}, True),
    (
        "CREATE EVENT `e` ON SCHEDULE EVERY 1 DAY DO SELECT 1",
        "event",
        "mariadb",
        {"name": "e", "schema": "shop"},
        False,
    ),
    ("CREATE EVENT `x` ON SCHEDULE EVERY 1 DAY DO SELECT 1", "event", "mariadb", {"name": "e", "schema": "shop"}, True),
    (
        'CREATE TRIGGER IF NOT EXISTS "g" AFTER UPDATE OF a ON "items" BEGIN SELECT 1; END',
        "trigger",
        "sqlite",
        {"name": "g", "schema": "main", "table": "items"},
        False,
    ),
    (
        "CREATE TRIGGER g AFTER DELETE ON victim BEGIN DELETE FROM items; END",
        "trigger",
        "sqlite",
        {"name": "g", "schema": "main", "table": "items"},
        True,
    ),
    ("DROP TABLE canary", "routine", "mysql", {"name": "r", "schema": "shop"}, True),
]


def test_definition_names_exactly_its_object() -> None:
    from dbjson.ddl.definitions import definition_problem

    for sql, what, engine, entry, refused in DEFINITIONS:
        problem = definition_problem(sql, what, engine, **entry)
        assert (problem is not None) == refused, (sql, problem)
    n = sum(1 for d in DEFINITIONS if d[4])
    record("definitions reaching outside their entry (parser)", n, n, 0)


def _pg_doc(**extra: list[dict[str, Any]]) -> dict[str, Any]:
    from hostile.documents import base_document

    doc = base_document("postgresql")
    doc["schemas"][0].update(extra)
    return doc


def test_definition_cannot_replace_or_attach_to_objects_outside_the_document(fresh_db: Any, tmp_path: Path) -> None:
    target = fresh_db("postgresql")
    target.execute(
        "CREATE TABLE victim (id int PRIMARY KEY);\n"
        "CREATE FUNCTION victim_fn() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n"
        "CREATE FUNCTION trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;\n"
    )
    replace_fn = {
        "name": "f",
        "kind": "function",
        "definition": "CREATE OR REPLACE FUNCTION public.victim_fn() RETURNS int LANGUAGE sql AS $$ SELECT 2 $$",
    }
    foreign_trigger = {
        "name": "g",
        "table": "t",
        "timing": "BEFORE",
        "events": ["INSERT"],
        "definition": "CREATE TRIGGER g BEFORE INSERT ON public.victim FOR EACH ROW EXECUTE FUNCTION trg()",
    }
    for case, doc in (("routine", _pg_doc(routines=[replace_fn])), ("trigger", _pg_doc(triggers=[foreign_trigger]))):
        (tmp_path / "doc.json").write_bytes(orjson.dumps(doc))
        r = cli("schema-load", str(tmp_path / "doc.json"), "--to", target.url)
        assert_clean_failure(r, 5)
        assert f"{case} definition refused" in r.stderr and "/definition" in r.stderr, r.stderr
    assert target.query("SELECT victim_fn()") == [(1,)]
    assert target.query("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'victim'::regclass") == [(0,)]
    assert target.query("SELECT count(*) FROM pg_class WHERE relname = 't'") == [(0,)]
    record("definitions reaching outside their entry (schema-load, postgresql)", 2, 2, 0)


def test_untrusted_document_runs_none_of_its_code(fresh_db: Any, tmp_path: Path) -> None:
    """--untrusted: routines, triggers not created, a view calling a server function skipped, a
    materialized view created WITH NO DATA, an unsafe default dropped: all in the loss report."""
    target = fresh_db("postgresql")
    routine = {
        "name": "f",
        "kind": "function",
        "definition": "CREATE FUNCTION public.f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
    }
    trigger = {
        "name": "g",
        "table": "t",
        "timing": "BEFORE",
        "events": ["INSERT"],
        "definition": "CREATE TRIGGER g BEFORE INSERT ON public.t FOR EACH ROW EXECUTE FUNCTION public.f()",
    }
    views = [
        {"name": "reads_a_file", "definition": "SELECT pg_read_file('/etc/hostname') AS x", "dialect": "postgresql"},
        {"name": "writes_a_file", "definition": "SELECT lo_export(1, '/tmp/x') AS x", "dialect": "postgresql"},
        {"name": "plain", "definition": "SELECT id, lower(name) AS n FROM t", "dialect": "postgresql"},
        {
            "name": "mat",
            "definition": "SELECT count(*) AS n FROM t",
            "dialect": "postgresql",
            "materialized": True,
        },
    ]
    doc = _pg_doc(routines=[routine], triggers=[trigger], views=views)
    doc["schemas"][0]["tables"][0]["columns"][1]["default"] = {
        "kind": "expression",
        "value": "pg_read_file('/etc/hostname')",
        "dialect": "postgresql",
    }
    (tmp_path / "doc.json").write_bytes(orjson.dumps(doc))
    r = cli(
        "schema-load",
        str(tmp_path / "doc.json"),
        "--to",
        target.url,
        "--untrusted",
        "--report",
        str(tmp_path / "r.json"),
    )
    assert r.returncode == 0, r.stderr
    rules = {i["path"]: i["rule"] for i in orjson.loads((tmp_path / "r.json").read_bytes())["items"]}
    assert rules.get("/schemas/0/routines/0") == "untrusted-code", rules
    assert rules.get("/schemas/0/triggers/0") == "untrusted-code", rules
    assert rules.get("/schemas/0/views/0") == rules.get("/schemas/0/views/1") == "untrusted-view", rules
    assert rules.get("/schemas/0/views/3/materialized") == "untrusted-matview", rules
    assert rules.get("/schemas/0/tables/0/columns/1/default") == "untrusted-expression", rules
    assert target.query("SELECT count(*) FROM pg_proc WHERE proname = 'f'") == [(0,)]
    assert target.query("SELECT count(*) FROM pg_trigger WHERE tgname = 'g'") == [(0,)]
    assert target.query("SELECT viewname FROM pg_views WHERE schemaname = 'public'") == [("plain",)]
    assert target.query("SELECT ispopulated FROM pg_matviews WHERE matviewname = 'mat'") == [(False,)]
    assert target.query(
        "SELECT column_default FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 't' AND column_name = 'name'"
    ) == [(None,)]
    # Without --untrusted the same document creates its code (the trust model: docs/security.md).
    r = cli("schema-load", str(tmp_path / "doc.json"), "--to", fresh_db("postgresql").url)
    assert r.returncode == 0, r.stderr
    record("untrusted mode: code in a document not run (postgresql)", 6, 6, 0)


# ---------------------------------------------------------------------------------------------
# Item 5: the memory of one line is bounded
# ---------------------------------------------------------------------------------------------

_MEASURED = """
import atexit, resource, runpy, sys
def _peak():
    # VmHWM: this process's own peak (ru_maxrss keeps the forking parent's across exec on Linux);
    # worker processes forked from it: RUSAGE_CHILDREN.
    own = next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM:"))
    peak = max(own, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    sys.stderr.write(f"\\npeak-rss-kb={peak}\\n")
atexit.register(_peak)
sys.argv = ["dbjson", *sys.argv[1:]]
runpy.run_module("dbjson", run_name="__main__")
"""


def _measured_cli(*args: str, env: dict[str, str]) -> tuple[Any, int]:
    """The CLI in a subprocess, and its peak resident memory in MB."""
    import os
    import re
    import subprocess
    import sys

    full = {k: v for k, v in os.environ.items() if k != "DBJSON_DEBUG"} | env
    r = subprocess.run([sys.executable, "-c", _MEASURED, *args], capture_output=True, text=True, env=full, timeout=600)
    found = re.search(r"peak-rss-kb=(\d+)", r.stderr)
    assert found, r.stderr[-2000:]
    r.stderr = r.stderr[: found.start()]
    return r, int(found.group(1)) // 1024


def _bomb(path: Path, line_bytes: int, compression: str) -> None:
    """A data file whose first line is ``line_bytes`` of 'a' (no newline): tiny compressed."""
    import gzip

    import zstandard

    block = b"a" * (1 << 20)
    with open(path, "wb") as raw:
        if compression == "zstd":
            with zstandard.ZstdCompressor(level=1).stream_writer(raw, closefd=False) as out:
                for _ in range(line_bytes >> 20):
                    out.write(block)
                out.write(b"\n")
        else:
            with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1) as gz:
                for _ in range(line_bytes >> 20):
                    gz.write(block)
                gz.write(b"\n")


@pytest.mark.parametrize("compression", ["zstd", "gzip", "none"])
def test_a_line_bomb_is_stopped_at_the_line_limit(fresh_db: Any, tmp_path: Path, compression: str) -> None:
    """A 512 MiB line in a zstd file of ~20 KB (256 MiB gzip, 128 MiB plain) with the limit at 32 MiB:
    a clean error naming the file and the line; peak memory far below the line's size."""
    from test_import import ITEMS, ITEMS_DDL, database, item_rows, make_export, target_with

    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(3)})
    suffix = {"zstd": ".zst", "gzip": ".gz", "none": ""}[compression]
    rel = "data/shop.items.jsonl" + suffix
    size = {"zstd": 512 << 20, "gzip": 256 << 20, "none": 128 << 20}[compression]
    if compression == "none":
        with open(export / rel, "wb") as fh:
            for _ in range(size >> 20):
                fh.write(b"a" * (1 << 20))
    else:
        (export / "data" / "shop.items.jsonl").unlink()
        _bomb(export / rel, size, compression)
    man = orjson.loads((export / "manifest.json").read_bytes())
    man["compression"] = compression
    f = man["tables"][0]["files"][0]
    f.update(path=rel, bytes=(export / rel).stat().st_size)
    (export / "manifest.json").write_bytes(orjson.dumps(man))
    target = target_with(fresh_db, "sqlite", ITEMS_DDL)
    r, peak_mb = _measured_cli(
        "import",
        str(export),
        target.url,
        "--data-only",
        "-q",
        "--threads",
        "1",
        env={"DBJSON_MAX_LINE_BYTES": str(32 << 20)},
    )
    assert_clean_failure(r, 6)
    assert rel in r.stderr and ":1" in r.stderr and "line longer than" in r.stderr, r.stderr
    assert peak_mb < 300, peak_mb  # 32 MiB of line, not the whole line
    assert target.query("SELECT COUNT(*) FROM items") == [(0,)]
    record("decompression bombs and endless lines", 1, 1, 0, part=compression)


def test_iter_lines_reads_no_further_than_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from dbjson.format.datafiles import iter_lines

    monkeypatch.setenv("DBJSON_MAX_LINE_BYTES", "2048")
    ok = b"x" * 2048 + b"\n"
    assert [n for n, _ in iter_lines(io.BytesIO(ok + ok), "f")] == [1, 2]
    with pytest.raises(DataError, match="line longer than 2048 bytes") as e:
        list(iter_lines(io.BytesIO(ok + b"y" * 5000 + b"\n"), "data/f.jsonl"))
    assert (e.value.file, e.value.line) == ("data/f.jsonl", 2)


# Every other field of a document that reaches SQL as text: quoted, parsed, or refused (item 9's audit).
def _mysql_fields() -> list[tuple[str, Any]]:
    def col(key: str) -> Any:
        return lambda d: d["schemas"][0]["tables"][0]["columns"][1].update({key: "utf8mb4 REFERENCES victim(id)"})

    def topt(key: str) -> Any:
        return lambda d: (
            d["schemas"][0]["tables"][0]
            .setdefault("options", {})
            .setdefault("mysql", {})
            .update({key: "InnoDB, ADD COLUMN pwned int"})
        )

    def view(key: str) -> Any:
        return lambda d: (
            d["schemas"][0]
            .setdefault("views", [])
            .append(
                {
                    "name": "v",
                    "definition": "SELECT 1 AS x",
                    "dialect": "mysql",
                    "options": {"mysql": {key: "MERGE */ x"}},
                }
            )
        )

    return [
        ("column charset", col("charset")),
        ("column collation", col("collation")),
        ("table engine", topt("engine")),
        ("table row_format", topt("row_format")),
        ("table charset", topt("charset")),
        ("table collation", topt("collation")),
        ("view algorithm", view("algorithm")),
        ("view security", view("security")),
        (
            "fulltext parser",
            lambda d: (
                d["schemas"][0]["tables"][0]
                .setdefault("indexes", [])
                .append(
                    {
                        "name": "ft",
                        "kind": "fulltext",
                        "parts": [{"column": "name"}],
                        "options": {"mysql": {"parser": "ngram) x"}},
                    }
                )
            ),
        ),
        (
            "event schedule",
            lambda d: (
                d["schemas"][0]
                .setdefault("events", [])
                .append({"name": "e", "schedule": "EVERY 1 DAY; DROP TABLE canary", "body": "SELECT 1"})
            ),
        ),
    ]


def _pg_fields() -> list[tuple[str, Any]]:
    return [
        (
            "table storage parameters",
            lambda d: (
                d["schemas"][0]["tables"][0]
                .setdefault("options", {})
                .update({"postgresql": {"with": ["fillfactor=70) INHERITS (victim"]}})
            ),
        ),
        (
            "index storage parameters",
            lambda d: (
                d["schemas"][0]["tables"][0]
                .setdefault("indexes", [])
                .append(
                    {
                        "name": "ix",
                        "parts": [{"column": "name"}],
                        "options": {"postgresql": {"with": ["fillfactor=70), (x"]}},
                    }
                )
            ),
        ),
        (
            "exclusion constraint",
            lambda d: (
                d["schemas"][0]["tables"][0]
                .setdefault("options", {})
                .update(
                    {"postgresql": {"exclusions": [{"name": "x", "definition": "CHECK (true); DROP TABLE canary"}]}}
                )
            ),
        ),
        (
            "collation definition",
            lambda d: (
                d["schemas"][0]
                .setdefault("options", {})
                .update(
                    {
                        "postgresql": {
                            "collations": [{"name": "c", "definition": "CREATE COLLATION public.other (locale = 'C')"}]
                        }
                    }
                )
            ),
        ),
        (
            "range type definition",
            lambda d: (
                d["schemas"][0]
                .setdefault("options", {})
                .update({"postgresql": {"range_types": [{"name": "r", "definition": "DROP TABLE canary"}]}})
            ),
        ),
    ]


@pytest.mark.parametrize("engine", ["mysql", "postgresql"])
def test_every_field_reaching_sql_is_quoted_parsed_or_refused(engine: str) -> None:
    from hostile.documents import base_document

    from dbjson import model as m
    from dbjson.errors import TranslationError
    from dbjson.schemaload import to_ddl

    fields = _mysql_fields() if engine == "mysql" else _pg_fields()
    for what, mutate in fields:
        doc = base_document(engine)
        mutate(doc)
        db = m.Database.from_json(orjson.dumps(doc))
        with pytest.raises(TranslationError) as e:
            plan = to_ddl(db, engine)
            pytest.fail(f"{what}: not refused:\n" + plan.script())
        assert e.value.pointer and e.value.pointer.startswith("/schemas/0"), (what, str(e.value))
    record(f"document fields reaching SQL as text ({engine}, translation)", len(fields), len(fields), 0)


def test_nothing_read_from_disk_is_unpickled_or_executed() -> None:
    """No module of dbjson calls eval/exec, marshal, shelve or yaml; pickle only where a plan goes to
    the process's own worker processes through a pipe (never a file)."""
    import ast

    root = Path(__file__).resolve().parents[1] / "dbjson"
    allowed_pickle = {"verify.py", "importer/encoders.py", "importer/reader.py"}
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                owner = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else ""
                if name in ("eval", "exec") and owner in ("", "builtins"):
                    found.append(f"{rel}: {name}()")
                if owner in ("marshal", "shelve", "yaml") or (owner == "pickle" and rel not in allowed_pickle):
                    found.append(f"{rel}: {owner}.{name}()")
                if owner == "pickle" and name in ("load", "Unpickler"):
                    found.append(f"{rel}: pickle.{name}() reads a file")
    assert not found, found
