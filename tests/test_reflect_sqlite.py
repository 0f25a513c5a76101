"""SQLite reflection: the torture schema, Chinook, determinism, the fixpoint and validation."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from chinook import CHINOOK_TABLES, load_chinook
from conftest import FreshDatabase

from dbjson import model as m
from dbjson.engines.sqlite.sqltext import parse_default, parse_trigger
from dbjson.engines.sqlite.typemap import standard_type
from dbjson.errors import ConnectionFailed
from dbjson.reflect import reflect
from dbjson.validate import validate

TORTURE = Path(__file__).parent / "torture" / "sqlite.sql"
Fresh = Callable[[str], FreshDatabase]


@pytest.fixture
def torture(fresh_db: Fresh) -> m.Database:
    db = fresh_db("sqlite")
    db.execute(TORTURE.read_text(encoding="utf-8"))
    return reflect(db.url)


@pytest.fixture
def chinook(fresh_db: Fresh) -> m.Database:
    db = fresh_db("sqlite")
    load_chinook(db)
    return reflect(db.url)


def _table(db: m.Database, name: str) -> m.Table:
    return db.schema("main").table(name)


# -- type and default mapping ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("declared", "expected"),
    [
        ("INTEGER", m.Type(kind="integer", bits=64)),
        ("int", m.Type(kind="integer", bits=64)),
        ("BIGINT", m.Type(kind="integer", bits=64)),
        ("UNSIGNED BIG INT", m.Type(kind="integer", bits=64, unsigned=True)),
        ("TINYINT", m.Type(kind="integer", bits=8)),
        ("SMALLINT UNSIGNED", m.Type(kind="integer", bits=16, unsigned=True)),
        ("MEDIUMINT", m.Type(kind="integer", bits=24)),
        ("VARCHAR(255)", m.Type(kind="varchar", length=255)),
        ("NVARCHAR(160)", m.Type(kind="varchar", length=160)),
        ("character varying ( 20 )", m.Type(kind="varchar", length=20)),
        ("VARCHAR", m.Type(kind="varchar")),
        ("NCHAR(55)", m.Type(kind="char", length=55)),
        ("CHAR", m.Type(kind="text")),
        ("TEXT", m.Type(kind="text")),
        ("CLOB", m.Type(kind="text")),
        ("REAL", m.Type(kind="float", bits=64)),
        ("DOUBLE PRECISION", m.Type(kind="float", bits=64)),
        ("FLOAT(10)", m.Type(kind="float", bits=32)),
        ("NUMERIC(10,2)", m.Type(kind="decimal", precision=10, scale=2)),
        ("DECIMAL(5)", m.Type(kind="decimal", precision=5, scale=0)),
        ("NUMERIC", m.Type(kind="decimal")),
        ("BLOB", m.Type(kind="blob")),
        ("VARBINARY(16)", m.Type(kind="varbinary", length=16)),
        ("DATE", m.Type(kind="date")),
        ("DATETIME", m.Type(kind="timestamp")),
        ("TIMESTAMP(3)", m.Type(kind="timestamp", fsp=3)),
        ("TIME", m.Type(kind="time")),
        ("BOOLEAN", m.Type(kind="boolean")),
        ("JSON", m.Type(kind="json")),
        ("UUID", m.Type(kind="uuid")),
        ("", m.Type(kind="opaque")),
        ("MONEY", m.Type(kind="opaque", base=m.Type(kind="decimal"))),
        ("STRANGE INTEGRAL", m.Type(kind="integer", bits=64)),
        ("LONG VARCHARISH", m.Type(kind="text")),
        ("FLOATY", m.Type(kind="float", bits=64)),
        ("FLOATING POINT", m.Type(kind="integer", bits=64)),  # "INT" wins: SQLite's own rule
    ],
)
def test_standard_type(declared: str, expected: m.Type) -> None:
    assert standard_type(declared) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, None),
        ("NULL", None),
        ("0", m.Default(kind="literal", value="0")),
        ("-1.5e3", m.Default(kind="literal", value="-1.5e3")),
        ("+7", m.Default(kind="literal", value="7")),
        ("'it''s'", m.Default(kind="literal", value="it's")),
        ("TRUE", m.Default(kind="literal", value="1")),
        ("CURRENT_TIMESTAMP", m.Default(kind="function", value="current_timestamp")),
        ("current_date", m.Default(kind="function", value="current_date")),
        ("CURRENT_TIME", m.Default(kind="function", value="current_time")),
        ("(datetime('now'))", m.Default(kind="expression", value="datetime('now')", dialect="sqlite")),
        ("X'00FF'", m.Default(kind="expression", value="X'00FF'", dialect="sqlite")),
        ("(1 + 2)", m.Default(kind="expression", value="1 + 2", dialect="sqlite")),
    ],
)
def test_parse_default(text: str | None, expected: m.Default | None) -> None:
    assert parse_default(text) == expected


def test_parse_trigger_defaults_to_before() -> None:
    t = parse_trigger('CREATE TRIGGER IF NOT EXISTS "t1" INSERT ON x BEGIN SELECT 1; END')
    assert (t.timing, t.event, t.when, t.body) == ("BEFORE", "INSERT", None, "SELECT 1;")


# -- the torture schema -------------------------------------------------------------------------------------


def test_torture_tables_and_options(torture: m.Database) -> None:
    s = torture.schema("main")
    assert [t.name for t in s.tables] == ["author", "book", "book_tag", "strict_counter", "tag"]
    assert _table(torture, "tag").options == {"sqlite": {"without_rowid": True}}
    assert _table(torture, "strict_counter").options == {"sqlite": {"strict": True}}
    assert s.options == {"sqlite": {"user_version": 7}}
    assert torture.source.engine == "sqlite" and torture.source.host is None
    assert torture.source.server_version == sqlite3.sqlite_version


def test_torture_columns(torture: m.Database) -> None:
    author = _table(torture, "author")
    assert author.column("id").identity == m.Identity(kind="rowid")
    assert author.column("name").collation == "NOCASE"
    assert author.column("name").native == m.NativeType(engine="sqlite", raw="VARCHAR(100)")
    assert author.column("created").default == m.Default(kind="function", value="current_timestamp")
    assert author.column("active").default == m.Default(kind="literal", value="1")
    book = _table(torture, "book")
    assert [c.ordinal for c in book.columns] == list(range(1, 18))
    assert book.column("book_id").identity == m.Identity(kind="autoincrement", next_value=3)
    assert book.column("title").default == m.Default(kind="literal", value="Untitled 'draft'")
    assert book.column("anything").type == m.Type(kind="opaque")
    assert book.column("anything").native.raw == ""
    assert book.column("title_lower").generated == m.Generated(
        expression="lower(title)", stored=False, dialect="sqlite"
    )
    assert book.column("price_cents").generated == m.Generated(
        expression="CAST(price * 100 AS INTEGER)", dialect="sqlite"
    )
    assert book.column("updated").default == m.Default(kind="expression", value="datetime('now')", dialect="sqlite")
    # INTEGER PRIMARY KEY DESC is not a rowid alias; WITHOUT ROWID tables have no rowid.
    assert _table(torture, "strict_counter").column("id").identity is None
    assert _table(torture, "tag").column("weight").default == m.Default(kind="literal", value="-1")


def test_torture_constraints(torture: m.Database) -> None:
    author = _table(torture, "author")
    assert author.uniques == (m.UniqueConstraint(name="author_email_key", columns=("email",)),)
    assert author.checks == (m.Check(name="author_name_nonempty", expression="length(name) > 0", dialect="sqlite"),)
    book = _table(torture, "book")
    assert book.primary_key == m.PrimaryKey(columns=("book_id",))
    assert [u.name for u in book.uniques] == ["book_author_id_title_key", "book_isbn_key"]
    assert book.checks == (
        m.Check(name="book_check", expression="pages IS NULL OR pages > 0", dialect="sqlite"),
        m.Check(name="book_price_check", expression="price >= 0", dialect="sqlite", column="price"),
    )
    assert book.foreign_keys == (
        m.ForeignKey(
            name="book_author_fk", columns=("author_id",), ref_table="author", ref_columns=("id",), on_delete="CASCADE"
        ),
    )
    bt = _table(torture, "book_tag")
    assert bt.foreign_keys == (
        m.ForeignKey(
            name="book_tag_book_id_fkey",
            columns=("book_id",),
            ref_table="book",
            ref_columns=("book_id",),
            on_update="CASCADE",
        ),
        m.ForeignKey(
            name="book_tag_tag_name_tag_lang_fkey",
            columns=("tag_name", "tag_lang"),
            ref_table="tag",
            ref_columns=("name", "lang"),
            deferrable=True,
            initially_deferred=True,
        ),
    )
    assert _table(torture, "tag").primary_key == m.PrimaryKey(columns=("name", "lang"))


def test_torture_indexes(torture: m.Database) -> None:
    (expr,) = _table(torture, "author").indexes
    assert expr == m.Index(
        name="author_email_lower",
        parts=(m.IndexPart(expression="lower(email)"),),
        unique=True,
        where="email IS NOT NULL",
        dialect="sqlite",
    )
    partial, title = _table(torture, "book").indexes
    assert partial == m.Index(
        name="book price idx", parts=(m.IndexPart(column="price"),), where="price > 10", dialect="sqlite"
    )
    assert title.parts == (m.IndexPart(column="title", descending=True, collation="NOCASE"), m.IndexPart(column="isbn"))
    assert title.dialect is None and not title.unique


def test_torture_views_and_triggers(torture: m.Database) -> None:
    s = torture.schema("main")
    stats, cheap = s.views
    assert cheap == m.View(
        name="cheap_books", definition="SELECT book_id, title FROM book WHERE price < 10", dialect="sqlite"
    )
    assert stats.columns == ("author", "books") and stats.definition.startswith("SELECT a.name, count(b.book_id)")
    guard, touch, instead = s.triggers
    assert (guard.timing, guard.events, guard.table, guard.when) == ("BEFORE", ("DELETE",), "author", None)
    assert guard.body.startswith("SELECT RAISE(ABORT") and guard.definition and guard.definition.endswith("END")
    assert (touch.timing, touch.events, touch.when) == ("AFTER", ("UPDATE",), "NEW.price IS NOT OLD.price")
    assert touch.options == {"sqlite": {"update_of": ["title", "price"]}}
    assert touch.body == "UPDATE book SET updated = datetime('now') WHERE book_id = NEW.book_id;"
    assert (instead.timing, instead.table) == ("INSTEAD OF", "cheap_books")


def test_torture_validates_and_is_a_fixpoint(torture: m.Database) -> None:
    assert validate(torture.to_dict()) == []
    text = torture.to_json()
    again = m.Database.from_json(text)
    assert again == torture
    assert again.to_json() == text


def test_reflection_is_deterministic(fresh_db: Fresh) -> None:
    db = fresh_db("sqlite")
    db.execute(TORTURE.read_text(encoding="utf-8"))
    first, second = reflect(db.url), reflect(db.url)
    stamp = m.replace(first.source, dumped_at="2026-01-01T00:00:00Z")
    assert m.replace(first, source=stamp).to_json() == m.replace(second, source=stamp).to_json()


def test_tables_and_exclude_filter(fresh_db: Fresh) -> None:
    db = fresh_db("sqlite")
    db.execute(TORTURE.read_text(encoding="utf-8"))
    only = reflect(db.url, tables=["book*"]).schema("main")
    assert [t.name for t in only.tables] == ["book", "book_tag"]
    assert [t.name for t in only.triggers] == ["book_touch"]
    rest = reflect(db.url, exclude=["book*", "main.tag"]).schema("main")
    assert [t.name for t in rest.tables] == ["author", "strict_counter"]


def test_virtual_table_keeps_its_definition_and_hides_shadow_tables(fresh_db: Fresh) -> None:
    db = fresh_db("sqlite")
    try:
        db.execute("CREATE VIRTUAL TABLE notes USING fts5(title, body, tokenize='porter');")
    except sqlite3.OperationalError:
        pytest.skip("this SQLite has no FTS5")
    (notes,) = reflect(db.url).schema("main").tables
    assert notes.options == {"sqlite": {"virtual": "fts5(title, body, tokenize='porter')"}}
    assert [c.name for c in notes.columns] == ["title", "body"]


def test_autoincrement_without_rows_has_no_next_value(fresh_db: Fresh) -> None:
    db = fresh_db("sqlite")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT);")
    (t,) = reflect(db.url).schema("main").tables
    assert t.column("id").identity == m.Identity(kind="autoincrement")


def test_missing_file_is_not_created(tmp_path: Path) -> None:
    path = tmp_path / "nope.db"
    with pytest.raises(ConnectionFailed, match="no such SQLite database file"):
        reflect(f"sqlite:///{path}")
    assert not path.exists()


# -- Chinook ------------------------------------------------------------------------------------------------


def test_chinook(chinook: m.Database) -> None:
    s = chinook.schema("main")
    assert {t.name for t in s.tables} == CHINOOK_TABLES
    assert chinook.source.database.startswith("dbjson_t_")  # the file name without ".db"
    album = s.table("Album")
    assert album.primary_key == m.PrimaryKey(name="PK_Album", columns=("AlbumId",))
    assert album.column("Title").type == m.Type(kind="varchar", length=160)
    assert album.column("Title").native.raw == "NVARCHAR(160)"
    assert album.column("AlbumId").identity == m.Identity(kind="rowid")
    assert album.foreign_keys == (
        m.ForeignKey(name="Album_ArtistId_fkey", columns=("ArtistId",), ref_table="Artist", ref_columns=("ArtistId",)),
    )
    track = s.table("Track")
    assert track.column("UnitPrice").type == m.Type(kind="decimal", precision=10, scale=2)
    assert sorted(f.ref_table for f in track.foreign_keys) == ["Album", "Genre", "MediaType"]
    assert [i.name for i in track.indexes] == ["IFK_TrackAlbumId", "IFK_TrackGenreId", "IFK_TrackMediaTypeId"]
    assert s.table("Invoice").column("InvoiceDate").type == m.Type(kind="timestamp")
    pt = s.table("PlaylistTrack")
    assert pt.primary_key == m.PrimaryKey(name="PK_PlaylistTrack", columns=("PlaylistId", "TrackId"))
    assert all(c.identity is None for c in pt.columns)
    assert sum(len(t.foreign_keys) for t in s.tables) == 11
    employee = s.table("Employee")
    assert [f.ref_table for f in employee.foreign_keys] == ["Employee"]


def test_chinook_validates_and_is_a_fixpoint(chinook: m.Database) -> None:
    assert validate(chinook.to_dict()) == []
    text = chinook.to_json()
    assert m.Database.from_json(text).to_json() == text


def test_constraint_names_bind_to_the_next_constraint_only() -> None:
    from dbjson.engines.sqlite.sqltext import parse_create_table, parse_index

    parsed = parse_create_table(
        "CREATE TABLE t (a INT CONSTRAINT nn NOT NULL CHECK (a > 0) DEFAULT (CAST(1 AS TEXT)) "
        "CONSTRAINT c2 CHECK (a < 9) /* (, */ , -- a comment, with a comma\n b TEXT AS (upper(a)))"
    )
    assert parse_index("CREATE INDEX i ON t ((lower(a)) DESC, (b), c) WHERE (c > 0)") == (
        [m.IndexPart(expression="lower(a)", descending=True), m.IndexPart(column="b"), m.IndexPart(column="c")],
        "(c > 0)",
    )
    assert parsed.checks == [(None, "a > 0", "a"), ("c2", "a < 9", "a")]
    assert parsed.columns["b"].generated == "upper(a)"


def test_odd_names_and_table_level_key(fresh_db: Fresh) -> None:
    db = fresh_db("sqlite")
    db.execute(
        'CREATE TABLE "we""ird tab" ("the id" INTEGER, [x y] TEXT, PRIMARY KEY ("the id" DESC)) STRICT;'
        'CREATE TABLE child (k INTEGER PRIMARY KEY, p INTEGER REFERENCES "WE""IRD TAB", q TEXT, '
        "UNIQUE (q COLLATE NOCASE, p)) WITHOUT ROWID, STRICT;"
        'CREATE INDEX "i""x" ON "we""ird tab" ("x y" COLLATE RTRIM ASC);'
    )
    s = reflect(db.url).schema("main")
    child, weird = s.tables
    assert weird.name == 'we"ird tab'
    # A table-level PRIMARY KEY (... DESC) still aliases the rowid (only the column form does not).
    assert weird.column("the id").identity == m.Identity(kind="rowid")
    assert weird.options == {"sqlite": {"strict": True}}
    assert weird.indexes == (m.Index(name='i"x', parts=(m.IndexPart(column="x y", collation="RTRIM"),)),)
    assert child.options == {"sqlite": {"strict": True, "without_rowid": True}}
    assert child.foreign_keys[0].ref_table == 'we"ird tab' and child.foreign_keys[0].ref_columns == ("the id",)
    assert child.uniques == (m.UniqueConstraint(name="child_q_p_key", columns=("q", "p")),)
    assert child.primary_key == m.PrimaryKey(columns=("k",))
    assert child.column("k").identity is None  # WITHOUT ROWID: no rowid to alias
