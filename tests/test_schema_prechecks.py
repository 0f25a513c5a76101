"""schema-load checks the plan against the target's rules before the first statement (issue 15).

Valid schema documents that a target refuses or silently changes, one class each, against the real
servers: identifiers (length, characters), default expressions, column and key limits, foreign-key
requirements. Each is either a clear error before any statement (nothing created) or a translation
named in the report, never a half schema; and a statement that still fails on MySQL/MariaDB (one no
check can foresee) leaves no object of the run behind.
"""

from __future__ import annotations

from typing import Any

import pytest

from dbjson import model as m
from dbjson.errors import ApplyError, TranslationError
from dbjson.reflect import reflect
from dbjson.schemaload import load_schema

MYSQLS = ["mysql", "mariadb"]


def _relations(db: Any) -> set[str]:
    if db.engine == "sqlite":
        return {r[0] for r in db.query("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    schema = "public" if db.engine == "postgresql" else db.name
    return {r[0] for r in db.query(f"SELECT table_name FROM information_schema.tables WHERE table_schema = '{schema}'")}


def _columns(db: Any, table: str) -> dict[str, Any]:
    """column name → its default, as the target's catalog holds it."""
    schema = "public" if db.engine == "postgresql" else db.name
    return dict(
        db.query(
            "SELECT column_name, column_default FROM information_schema.columns "
            f"WHERE table_schema = '{schema}' AND table_name = '{table}'"
        )
    )


def _rules(result: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in result.plan.report.items:
        out.setdefault(item.rule, []).append(item.path)
    return out


# -- identifiers -------------------------------------------------------------------------------------

ODD_NAMES = """
CREATE TABLE "t " (id int PRIMARY KEY, "c " int, "d😀" int);
CREATE TABLE "t😀" (id int PRIMARY KEY, t_id int REFERENCES "t " (id));
CREATE INDEX "ix😀" ON "t " ("c ");
"""


@pytest.mark.parametrize("target", MYSQLS)
def test_names_with_trailing_spaces_or_non_bmp_characters_are_renamed_and_reported(fresh_db: Any, target: str) -> None:
    """MySQL refuses a name ending with a space ("Incorrect table name") and stores a character outside
    the BMP as '?' (silently: two such tables would even collide); MariaDB refuses both. Before: the
    load failed (MariaDB, trailing space on both) or created `t?` (MySQL). Now: renamed, reported,
    and the foreign key and index use the new names."""
    src = fresh_db("postgresql")
    src.execute(ODD_NAMES)
    dst = fresh_db(target)
    result = load_schema(reflect(src.url), dst.url)
    rules = _rules(result)
    assert sorted(rules["identifier-characters"]) == [
        "/schemas/0/tables/0/columns/1/name",
        "/schemas/0/tables/0/columns/2/name",
        "/schemas/0/tables/0/indexes/0/name",
        "/schemas/0/tables/0/name",
        "/schemas/0/tables/1/foreign_keys/0/name",  # PostgreSQL named it after its table: t😀_t_id_fkey
        "/schemas/0/tables/1/name",
    ], rules
    rels = _relations(dst)
    assert len(rels) == 2 and not any(r.endswith(" ") or "?" in r or "😀" in r for r in rels), rels
    renamed = {i.lost for i in result.plan.report.items if i.rule == "identifier-characters"}
    child = next(r for r in rels if r.startswith("t__"))
    assert any(repr(child) in text for text in renamed), (child, renamed)
    fks = dst.query(
        "SELECT table_name, referenced_table_name FROM information_schema.referential_constraints "
        f"WHERE constraint_schema = '{dst.name}'"
    )
    assert fks == [(child, next(r for r in rels if r != child))], fks


def test_sqlite_keeps_the_names_mysql_renames(fresh_db: Any) -> None:
    src = fresh_db("postgresql")
    src.execute(ODD_NAMES)
    dst = fresh_db("sqlite")
    result = load_schema(reflect(src.url), dst.url)
    assert "identifier-characters" not in _rules(result)
    assert {"t ", "t😀"} <= _relations(dst)


@pytest.mark.parametrize("target", ["mysql", "mariadb", "postgresql", "sqlite"])
def test_a_name_with_a_nul_character_is_refused_before_the_first_statement(fresh_db: Any, target: str) -> None:
    """A hostile document's column name with U+0000 passed validation; every driver cut the statement
    there (PostgreSQL: "unterminated quoted identifier", MySQL: a syntax error), after the tables
    before it were created. Now a clear error with its pointer, nothing created."""
    src = fresh_db("sqlite")
    src.execute("CREATE TABLE a (id INTEGER PRIMARY KEY);\nCREATE TABLE t (id INTEGER PRIMARY KEY, c INT);")
    doc = m.to_dict(reflect(src.url))
    doc["schemas"][0]["tables"][1]["columns"][1]["name"] = "c\x00`) DROP"
    dst = fresh_db(target)
    with pytest.raises(TranslationError) as e:
        load_schema(m.Database.from_dict(doc), dst.url)
    assert e.value.pointer == "/schemas/0/tables/1/columns/1/name" and "NUL" in str(e.value), str(e.value)
    assert _relations(dst) == set()


LONG_VIEW = "v_" + "x" * 70


@pytest.mark.parametrize("target", ["postgresql", "mysql", "mariadb"])
def test_a_long_view_name_is_created_under_the_name_the_report_gives(fresh_db: Any, target: str) -> None:
    """The report said the view was renamed, but its CREATE VIEW used the original name: PostgreSQL
    truncated it silently to another name than the reported one, MySQL/MariaDB refused it (the view
    was skipped)."""
    src = fresh_db("sqlite")
    src.execute(f"CREATE TABLE t (id INTEGER PRIMARY KEY); CREATE VIEW {LONG_VIEW} AS SELECT id FROM t;")
    dst = fresh_db(target)
    result = load_schema(reflect(src.url), dst.url)
    renamed = [i for i in result.plan.report.items if i.path == "/schemas/0/views/0/name"]
    assert len(renamed) == 1 and renamed[0].rule == "identifier-shortened"
    new_name = renamed[0].lost.rsplit(" renamed to ", 1)[1].strip("'")
    assert _relations(dst) == {"t", new_name}
    assert "trial-execution" not in _rules(result)


@pytest.mark.parametrize("target", MYSQLS)
def test_an_object_name_too_long_to_be_renamed_is_refused_before_the_first_statement(
    fresh_db: Any, target: str
) -> None:
    """A trigger (or routine, event, sequence) is created under its own name: code may call it. A
    hostile document's 70-character trigger name: a clear error naming it and its pointer, and not a
    table created (before: the tables were created, then the trigger failed and they were undone)."""
    src = fresh_db(target)
    src.execute(
        "CREATE TABLE a (id int PRIMARY KEY);\nCREATE TABLE b (id int PRIMARY KEY);\n"
        "CREATE TRIGGER trg BEFORE INSERT ON b FOR EACH ROW SET NEW.id = NEW.id;"
    )
    doc = reflect(src.url)
    long = "trg_" + "y" * 66
    trg = doc.schemas[0].triggers[0]
    trg = m.replace(trg, name=long, definition=(trg.definition or "").replace("`trg`", f"`{long}`"))
    doc = m.replace(doc, schemas=(m.replace(doc.schemas[0], triggers=(trg,)),))
    dst = fresh_db(target)
    with pytest.raises(TranslationError) as e:
        load_schema(doc, dst.url)
    assert e.value.pointer == "/schemas/0/triggers/0/name" and long in str(e.value), str(e.value)
    assert e.value.exit_code == 5
    assert _relations(dst) == set()


# -- default expressions -------------------------------------------------------------------------------


@pytest.mark.parametrize("target", MYSQLS)
def test_literal_defaults_the_column_cannot_hold_are_dropped_and_reported(fresh_db: Any, target: str) -> None:
    """PostgreSQL checks a default only when an insert uses it: `varchar(3) DEFAULT 'abcdef'` and
    `smallint DEFAULT 70000` exist there. MySQL/MariaDB refuse them at CREATE TABLE (error 1067):
    before, the load stopped there (undone); now the defaults are dropped and reported."""
    src = fresh_db("postgresql")
    src.execute(
        "CREATE TABLE a_first (id int PRIMARY KEY);\n"
        "CREATE TABLE d (id int PRIMARY KEY, a varchar(3) DEFAULT 'abcdef', b smallint DEFAULT 70000,"
        " c numeric(4,1) DEFAULT 1234.5, e date DEFAULT '2024-02-28', f varchar(5) DEFAULT 'ok');"
    )
    dst = fresh_db(target)
    result = load_schema(reflect(src.url), dst.url)
    assert sorted(_rules(result)["default-unfit"]) == [
        "/schemas/0/tables/1/columns/1/default",
        "/schemas/0/tables/1/columns/2/default",
        "/schemas/0/tables/1/columns/3/default",
    ]
    defaults = _columns(dst, "d")
    assert defaults["a"] in (None, "NULL") and defaults["b"] in (None, "NULL") and defaults["c"] in (None, "NULL")
    assert "2024-02-28" in str(defaults["e"]) and "ok" in str(defaults["f"])


def test_a_mysql_default_calling_a_function_mariadb_lacks_is_dropped_and_reported(fresh_db: Any) -> None:
    """MySQL → MariaDB copies defaults verbatim; MariaDB has no uuid_to_bin (error 1901 at CREATE
    TABLE, the load stopped). Now the default is dropped and reported; the others stay."""
    src = fresh_db("mysql")
    src.execute(
        "CREATE TABLE a_first (id int PRIMARY KEY);\n"
        "CREATE TABLE d (id int PRIMARY KEY, k binary(16) DEFAULT (uuid_to_bin(uuid())),"
        " s varchar(36) DEFAULT (uuid()), note varchar(40) DEFAULT ('uuid_to_bin(x)'));"
    )
    dst = fresh_db("mariadb")
    result = load_schema(reflect(src.url), dst.url)
    assert _rules(result)["function-missing"] == ["/schemas/0/tables/1/columns/1/default"]
    defaults = _columns(dst, "d")
    assert defaults["k"] in (None, "NULL") and "uuid()" in str(defaults["s"]).lower()
    assert "uuid_to_bin(x)" in str(defaults["note"])


# -- column and key limits -------------------------------------------------------------------------------


@pytest.mark.parametrize("target", MYSQLS)
def test_more_columns_than_innodb_allows_is_refused_before_the_first_statement(fresh_db: Any, target: str) -> None:
    """PostgreSQL allows 1600 columns, InnoDB 1017. Before: the tables before it were created, then
    the wide one failed ("Too many columns"). Now: refused with its pointer, nothing created."""
    src = fresh_db("postgresql")
    cols = ", ".join(f"c{i} int" for i in range(1100))
    src.execute(f"CREATE TABLE a_first (id int PRIMARY KEY); CREATE TABLE wide (id int PRIMARY KEY, {cols});")
    dst = fresh_db(target)
    with pytest.raises(TranslationError) as e:
        load_schema(reflect(src.url), dst.url)
    assert e.value.table == "wide" and e.value.pointer == "/schemas/0/tables/1/columns", str(e.value)
    assert "1101 columns" in str(e.value) and "1017" in str(e.value)
    assert _relations(dst) == set()


def test_migrate_refuses_a_table_innodb_cannot_hold_before_creating_anything(fresh_db: Any, tmp_path: Any) -> None:
    """The import and migrate plan with the same checks: the error comes before the pre-data DDL."""
    from dbjson.migrate import migrate

    src = fresh_db("postgresql")
    cols = ", ".join(f"c{i} int" for i in range(1100))
    src.execute(
        f"CREATE TABLE a_first (id int PRIMARY KEY);\nINSERT INTO a_first VALUES (1);\n"
        f"CREATE TABLE wide (id int PRIMARY KEY, {cols});"
    )
    dst = fresh_db("mysql")
    with pytest.raises(TranslationError) as e:
        migrate(src.url, dst.url, threads=1, state_dir=tmp_path / "state")
    assert e.value.table == "wide" and e.value.exit_code == 5, str(e.value)
    assert _relations(dst) == set()


@pytest.mark.parametrize(("source", "target", "parts"), [("postgresql", "mysql", 20), ("sqlite", "mariadb", 40)])
def test_a_key_of_more_columns_than_the_target_allows_is_refused_before_the_first_statement(
    fresh_db: Any, source: str, target: str, parts: int
) -> None:
    """PostgreSQL indexes take 32 columns, SQLite's any number; MySQL keys 16, MariaDB's 32 ("Too
    many key parts specified")."""
    src = fresh_db(source)
    cols = ", ".join(f"c{i} int" for i in range(parts))
    src.execute(
        f"CREATE TABLE t (id int PRIMARY KEY, {cols});\n"
        f"CREATE INDEX t_all ON t ({', '.join(f'c{i}' for i in range(parts))});"
    )
    dst = fresh_db(target)
    with pytest.raises(TranslationError) as e:
        load_schema(reflect(src.url), dst.url)
    assert e.value.pointer == "/schemas/0/tables/0/indexes/0" and "'t_all'" in str(e.value), str(e.value)
    assert _relations(dst) == set()


@pytest.mark.parametrize("target", MYSQLS)
def test_more_keys_than_innodb_allows_is_refused_before_the_first_statement(fresh_db: Any, target: str) -> None:
    """InnoDB takes 64 keys per table, the primary key and the index it adds for a foreign key
    included ("Too many keys specified; max 64 keys allowed"). 64 load; 65 are refused."""

    def source(indexes: int) -> Any:
        src = fresh_db("postgresql")
        cols = ", ".join(f"c{i} int" for i in range(indexes))
        src.execute(
            f"CREATE TABLE p (id int PRIMARY KEY);\n"
            f"CREATE TABLE t (id int PRIMARY KEY, {cols}, r int REFERENCES p (id));\n"
            + "".join(f"CREATE INDEX t_{i} ON t (c{i});\n" for i in range(indexes))
        )
        return reflect(src.url)

    fits = fresh_db(target)
    load_schema(source(62), fits.url)  # 1 + 62 + the foreign key's index = 64
    assert _relations(fits) == {"p", "t"}
    dst = fresh_db(target)
    with pytest.raises(TranslationError) as e:
        load_schema(source(63), dst.url)
    assert e.value.table == "t" and "65 keys" in str(e.value) and "64" in str(e.value), str(e.value)
    assert _relations(dst) == set()


def test_more_columns_than_postgresql_allows_is_refused_before_the_first_statement(fresh_db: Any) -> None:
    src = fresh_db("sqlite")
    cols = ", ".join(f"c{i} INTEGER" for i in range(1700))
    src.execute(f"CREATE TABLE wide (id INTEGER PRIMARY KEY, {cols});")
    dst = fresh_db("postgresql")
    with pytest.raises(TranslationError) as e:
        load_schema(reflect(src.url), dst.url)
    assert e.value.table == "wide" and "1600" in str(e.value)
    assert _relations(dst) == set()


@pytest.mark.parametrize("target", MYSQLS)
def test_a_numeric_scale_above_its_precision_gets_a_decimal_mysql_takes(fresh_db: Any, target: str) -> None:
    """PostgreSQL 15 takes numeric(5,10) (values below 10^-5); MySQL/MariaDB refused the CREATE TABLE
    ("M must be >= D"). Now DECIMAL(10,10), which holds the same values, reported."""
    src = fresh_db("postgresql")
    src.execute("CREATE TABLE a_first (id int PRIMARY KEY);\nCREATE TABLE n (id int PRIMARY KEY, c numeric(5,10));")
    src.execute("INSERT INTO n VALUES (1, 0.0000012345)")
    dst = fresh_db(target)
    result = load_schema(reflect(src.url), dst.url)
    assert _rules(result)["numeric-scale-over-precision"] == ["/schemas/0/tables/1/columns/1/type"]
    dst.execute("INSERT INTO n VALUES (1, 0.0000012345);")
    assert str(dst.query("SELECT c FROM n")[0][0]) == "0.0000012345"


def test_a_numeric_precision_above_1000_becomes_unconstrained_numeric_on_postgresql(fresh_db: Any) -> None:
    """SQLite takes DECIMAL(2000, 0); PostgreSQL refused it ("NUMERIC precision 2000 must be between
    1 and 1000", the whole load rolled back). Now unconstrained numeric, reported."""
    src = fresh_db("sqlite")
    src.execute("CREATE TABLE n (id INTEGER PRIMARY KEY, a DECIMAL(2000, 0));")
    dst = fresh_db("postgresql")
    result = load_schema(reflect(src.url), dst.url)
    assert _rules(result)["numeric-over-1000"] == ["/schemas/0/tables/0/columns/1/type"]
    assert dst.query("SELECT data_type, numeric_precision FROM information_schema.columns WHERE column_name = 'a'") == [
        ("numeric", None)
    ]


def test_an_enum_label_longer_than_postgresql_takes_becomes_text_with_a_check(fresh_db: Any) -> None:
    """MySQL/MariaDB ENUM labels take 255 characters, a PostgreSQL enum type's 63 bytes: the whole
    load was refused ("invalid enum label"). Now text + CHECK (IN labels), reported."""
    src = fresh_db("mariadb")
    long = "l" * 80
    src.execute(f"CREATE TABLE e (id int PRIMARY KEY, s enum('short', '{long}') DEFAULT 'short');")
    dst = fresh_db("postgresql")
    result = load_schema(reflect(src.url), dst.url)
    assert _rules(result)["enum-label-long"] == ["/schemas/0/tables/0/columns/1/type"]
    dst.execute(f"INSERT INTO e VALUES (1, '{long}')")
    with pytest.raises(Exception, match="check constraint"):
        dst.execute("INSERT INTO e VALUES (2, 'other')")


# -- foreign-key requirements ------------------------------------------------------------------------------


@pytest.mark.parametrize("target", MYSQLS)
def test_a_foreign_key_to_columns_no_key_begins_with_is_dropped_and_reported(fresh_db: Any, target: str) -> None:
    """SQLite takes a foreign key to any column; InnoDB needs a key of the referenced table that begins
    with the referenced columns (MySQL error 1822, MariaDB errno 150, after the tables were made)."""
    src = fresh_db("sqlite")
    src.execute(
        "CREATE TABLE p (id INTEGER PRIMARY KEY, code INT, a INT, b INT, UNIQUE (a, b));\n"
        "CREATE TABLE c (id INTEGER PRIMARY KEY, code INT REFERENCES p (code), x INT, y INT,"
        " FOREIGN KEY (y, x) REFERENCES p (b, a));"
    )
    dst = fresh_db(target)
    result = load_schema(reflect(src.url), dst.url)
    dropped = [i for i in result.plan.report.items if i.rule == "fk-no-key"]
    assert len(dropped) == 1 and "p(code)" in dropped[0].lost, dropped
    assert _relations(dst) == {"p", "c"}
    # the other one, to (b, a) of the unique key (a, b), is created with its pairs in the key's order
    kept = dst.query(
        "SELECT column_name, referenced_column_name FROM information_schema.key_column_usage "
        f"WHERE table_schema = '{dst.name}' AND referenced_table_name = 'p' ORDER BY ordinal_position"
    )
    assert kept == [("x", "a"), ("y", "b")], kept


def test_a_foreign_key_between_types_postgresql_cannot_compare_is_dropped_and_reported(fresh_db: Any) -> None:
    """SQLite takes an INTEGER column referencing a TEXT key; PostgreSQL refused the foreign key
    ("cannot be implemented") and the whole schema was rolled back."""
    src = fresh_db("sqlite")
    src.execute(
        "CREATE TABLE p (id INTEGER PRIMARY KEY, code TEXT UNIQUE);\n"
        "CREATE TABLE c (id INTEGER PRIMARY KEY, code INTEGER REFERENCES p (code), pid INTEGER REFERENCES p (id));"
    )
    dst = fresh_db("postgresql")
    result = load_schema(reflect(src.url), dst.url)
    dropped = [i for i in result.plan.report.items if i.rule == "fk-type-mismatch"]
    assert len(dropped) == 1 and "column code (integer)" in dropped[0].lost, dropped
    assert _relations(dst) == {"p", "c"}
    assert dst.query("SELECT count(*) FROM information_schema.referential_constraints") == [(1,)]


@pytest.mark.parametrize("target", MYSQLS)
def test_set_null_on_a_not_null_column_becomes_no_action_and_is_reported(fresh_db: Any, target: str) -> None:
    """PostgreSQL accepts ON DELETE SET NULL on a NOT NULL column (the delete then fails); MySQL
    refuses the foreign key (error 1830), MariaDB too (errno 150)."""
    src = fresh_db("postgresql")
    src.execute(
        "CREATE TABLE p (id int PRIMARY KEY);\n"
        "CREATE TABLE c (id int PRIMARY KEY, pid int NOT NULL REFERENCES p (id) ON DELETE SET NULL);"
    )
    dst = fresh_db(target)
    result = load_schema(reflect(src.url), dst.url)
    assert _rules(result)["fk-set-null-not-null"] == ["/schemas/0/tables/0/foreign_keys/0/on_delete"]
    rule = dst.query(
        f"SELECT delete_rule FROM information_schema.referential_constraints WHERE constraint_schema = '{dst.name}'"
    )
    assert rule in ([("NO ACTION",)], [("RESTRICT",)]), rule
    dst.execute("INSERT INTO p VALUES (1);\nINSERT INTO c VALUES (1, 1);")
    with pytest.raises(Exception, match="foreign key constraint fails"):
        dst.execute("DELETE FROM p")


def test_a_mariadb_storage_engine_mysql_lacks_gets_innodb_and_is_reported(fresh_db: Any) -> None:
    """MariaDB's Aria is not in MySQL: "Unknown storage engine 'Aria'" stopped the load half way."""
    src = fresh_db("mariadb")
    src.execute("CREATE TABLE a (id int PRIMARY KEY);\nCREATE TABLE b (id int PRIMARY KEY) ENGINE=Aria;")
    dst = fresh_db("mysql")
    result = load_schema(reflect(src.url), dst.url)
    assert _rules(result)["storage-engine-default"] == ["/schemas/0/tables/1/options/mysql/engine"]
    assert dst.query(f"SELECT engine FROM information_schema.tables WHERE table_schema = '{dst.name}'") == [
        ("InnoDB",),
        ("InnoDB",),
    ]


@pytest.mark.parametrize("target", MYSQLS)
def test_a_foreign_key_of_a_myisam_table_is_dropped_and_reported_not_discarded_silently(
    fresh_db: Any, target: str
) -> None:
    """MyISAM parses a FOREIGN KEY clause and discards it without a warning (and a foreign key to a
    MyISAM table fails). A document with one: before, the load "succeeded" without the key and
    without a word; now the report says so."""
    src = fresh_db(target)
    src.execute("CREATE TABLE a (id int PRIMARY KEY);\nCREATE TABLE m (id int PRIMARY KEY, a_id int) ENGINE=MyISAM;")
    doc = reflect(src.url)
    tables = tuple(
        m.replace(t, foreign_keys=(m.ForeignKey(name="m_a", columns=("a_id",), ref_table="a", ref_columns=("id",)),))
        if t.name == "m"
        else t
        for t in doc.schemas[0].tables
    )
    doc = m.replace(doc, schemas=(m.replace(doc.schemas[0], tables=tables),))
    dst = fresh_db(target)
    result = load_schema(doc, dst.url)
    assert _rules(result)["fk-engine"] == ["/schemas/0/tables/1/foreign_keys/0"]
    assert _relations(dst) == {"a", "m"}


# -- a failure no check foresees ---------------------------------------------------------------------------


@pytest.mark.parametrize("target", MYSQLS)
def test_a_statement_failing_half_way_leaves_no_object_of_the_run(fresh_db: Any, target: str) -> None:
    """A foreign key whose name another table of the target database already uses (constraint names
    are per database on MySQL/MariaDB): the tables and indexes exist when it fails. Every object of the
    run is dropped again; what was there before stays."""
    src = fresh_db("postgresql")
    src.execute(
        "CREATE TABLE p (id int PRIMARY KEY, note varchar(20));\n"
        "CREATE INDEX p_note ON p (note);\n"
        "CREATE TABLE c (id int PRIMARY KEY, pid int, CONSTRAINT taken FOREIGN KEY (pid) REFERENCES p (id));\n"
        "CREATE VIEW v AS SELECT id FROM p;"
    )
    dst = fresh_db(target)
    dst.execute(
        "CREATE TABLE mine (id int PRIMARY KEY);\n"
        "CREATE TABLE mine2 (id int PRIMARY KEY, m int, CONSTRAINT taken FOREIGN KEY (m) REFERENCES mine (id));"
    )
    with pytest.raises(ApplyError) as e:
        load_schema(reflect(src.url), dst.url)
    assert "undone" in str(e.value) and "stay" not in str(e.value), str(e.value)
    assert _relations(dst) == {"mine", "mine2"}
