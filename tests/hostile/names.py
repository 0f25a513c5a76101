"""Source schemas whose table, column, index, constraint and view names are hostile.

``source_sql(engine)`` returns a script that creates them (quoted the engine's way) and inserts rows
whose values are hostile too; ``TABLES`` etc. list the names the round trip must keep exactly.
"""

from __future__ import annotations

EMOJI = "\U0001F600"  # 4 bytes in UTF-8; MySQL/MariaDB identifiers cannot hold it (BMP only)

QUOTES = "it's \"odd\" `x`"
SEMI = "semi;colon -- DROP TABLE canary"
SLASH = "../../etc/passwd"
BACKSLASH = "back\\slash\\"
SPACE = "with space"
RESERVED = "select"
UNI = "Ünïcødé_表"
MAX = {"mysql": 64, "mariadb": 64, "postgresql": 63, "sqlite": 120}


def emoji(engine: str) -> str:
    """A name with a 4-byte character where the engine allows it."""
    return f"smile{EMOJI}" if engine in ("postgresql", "sqlite") else "smile_bmp_\u263a"


def long_name(engine: str) -> str:
    """A table name of the engine's maximum identifier length (in characters, ASCII)."""
    return ("L" * MAX[engine])


def case_pair(engine: str) -> tuple[str, ...]:
    """Two tables differing only in case where the engine keeps them apart (not SQLite)."""
    return ("Mixed", "mixed") if engine != "sqlite" else ("Mixed",)


def quote(engine: str, name: str) -> str:
    if engine in ("mysql", "mariadb"):
        return "`" + name.replace("`", "``") + "`"
    return '"' + name.replace('"', '""') + '"'


def lit(engine: str, value: str) -> str:
    text = value.replace("'", "''")
    if engine in ("mysql", "mariadb"):
        text = text.replace("\\", "\\\\")
    return "'" + text + "'"


def table_names(engine: str) -> list[str]:
    """Every table the source script creates (besides ``canary``)."""
    return [QUOTES, SEMI, SLASH, BACKSLASH, SPACE, RESERVED, UNI, emoji(engine), long_name(engine), *case_pair(engine)]


def column_names(engine: str) -> list[str]:
    """The columns of every hostile table (id first)."""
    return ["id", QUOTES, SEMI, SLASH, BACKSLASH, SPACE, "order", UNI, emoji(engine), "C" * min(MAX[engine], 64)]


ROW_VALUES = ["'; DROP TABLE canary; --", "\\N", "line\nbreak\ttab\\", "\"dq\" `bt`", f"{EMOJI} emoji", "x" * 10]


def source_sql(engine: str) -> str:
    """The script creating the hostile tables, indexes, constraints, a view, a canary and rows."""
    q = lambda n: quote(engine, n)  # noqa: E731
    text = "varchar(100)" if engine != "postgresql" else "text"
    out = [f"CREATE TABLE {q('canary')} (id int PRIMARY KEY)", f"INSERT INTO {q('canary')} VALUES (1)"]
    cols = column_names(engine)
    for i, t in enumerate(table_names(engine)):
        defs = [f"{q('id')} int NOT NULL"] + [f"{q(c)} {text}" for c in cols[1:]]
        pk, ck, uq, ix = (f"pk {i}'", f"ck{i} ;x", f'uq{i} "u"', f"ix{i} `;` ..")
        defs.append(f"CONSTRAINT {q(pk)} PRIMARY KEY ({q('id')})")
        defs.append(f"CONSTRAINT {q(ck)} CHECK ({q('id')} >= 0)")
        defs.append(f"CONSTRAINT {q(uq)} UNIQUE ({q(SEMI)})")
        out.append(f"CREATE TABLE {q(t)} ({', '.join(defs)})")
        out.append(f"CREATE INDEX {q(ix)} ON {q(t)} ({q(QUOTES)}, {q(SPACE)})")
        for r in range(1, 4):
            vals = [str(r)] + [lit(engine, ROW_VALUES[(r + k) % len(ROW_VALUES)]) if k % 3 else "NULL"
                               for k in range(1, len(cols))]
            vals[2] = lit(engine, f"{ROW_VALUES[r]}#{r}")  # the unique column
            out.append(f"INSERT INTO {q(t)} VALUES ({', '.join(vals)})")
    # a foreign key with a hostile name between two hostile tables
    out.append(f"CREATE TABLE {q('child ' + QUOTES)} ({q('id')} int PRIMARY KEY, {q('parent;id')} int, "
               f"CONSTRAINT {q('fk ' + SEMI)} FOREIGN KEY ({q('parent;id')}) REFERENCES {q(QUOTES)} ({q('id')}))")
    out.append(f"INSERT INTO {q('child ' + QUOTES)} VALUES (1, 1), (2, NULL)")
    out.append(f"CREATE VIEW {q('view ' + SEMI)} AS SELECT {q('id')}, {q(QUOTES)} FROM {q(QUOTES)} WHERE {q('id')} > 1")
    return ";\n".join(out) + ";\n"
