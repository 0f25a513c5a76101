"""The import checks a data file by its bytes when the manifest gives their XXH3-128 (exports
always do; SHA-256 in exports of format 1.0-1.1): one hash of the file instead of one per line, with the same guarantee — a file that
differs from the export is refused before its unit commits. And the pre-flight's NUL scan skips
files whose bytes cannot spell U+0000."""

from __future__ import annotations

import hashlib
import pickle
import zlib
from pathlib import Path
from typing import Any

import orjson
import pytest
import xxhash
from hypothesis import given, settings
from hypothesis import strategies as st
from test_import import ITEMS, ITEMS_DDL, database, item_rows, make_export, target_with

from dbjson.errors import DataError
from dbjson.format.journal import Journal, journal_path
from dbjson.importer import encoders, import_database
from dbjson.importer.encoders import encode_file_range
from dbjson.importer.session import connect_target, target_identity
from dbjson.preflight import _may_hold_nul
from dbjson.verify import verify

HASHES = {
    "xxh128": lambda data: xxhash.xxh3_128_hexdigest(data),
    "sha256": lambda data: hashlib.sha256(data).hexdigest(),
}


def _with_file_hash(export: Path, wrong: bool = False, kind: str = "xxh128") -> Path:
    """Add each file's hash to the manifest: ``xxh128`` as ``dbjson export`` writes it (format 1.2),
    or ``sha256`` as exports of format 1.0-1.1 did."""
    mpath = export / "manifest.json"
    doc = orjson.loads(mpath.read_bytes())
    for t in doc["tables"]:
        for f in t["files"]:
            digest = HASHES[kind]((export / f["path"]).read_bytes())
            f[kind] = ("0" * len(digest) if digest != "0" * len(digest) else "1" * len(digest)) if wrong else digest
    mpath.write_bytes(orjson.dumps(doc))
    return export


@pytest.mark.parametrize("kind", list(HASHES))
@pytest.mark.parametrize("threads", [1, 2])
def test_bytes_checked_by_file_hash(
    fresh_db: Any, tmp_path: Path, threads: int, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(encoders, "PROCESS_MIN_BYTES", 0)  # worker processes even for a small export
    export = _with_file_hash(
        make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(300)}, chunks=2), kind=kind
    )
    seen: list[Any] = []
    original = encoders.sum_lines
    monkeypatch.setattr(encoders, "sum_lines", lambda lines, algorithm=None: seen.append(len(lines)) or 0)
    target = target_with(fresh_db, "postgresql", ITEMS_DDL)
    report = import_database(export, target.url, data_only=True, threads=threads, verify=False)
    assert report.rows == 301
    assert seen == []  # no line was hashed: the bytes were
    monkeypatch.setattr(encoders, "sum_lines", original)
    assert verify(export, target.url).ok  # what was loaded is what the manifest sums
    doc = orjson.loads((export / "manifest.json").read_bytes())
    state = Journal(journal_path(export, target_identity(connect_target(target.url)[0]))).read()
    for f in doc["tables"][0]["files"]:  # the journal records the manifest's content checksum
        assert state.done["data:" + f["path"]]["checksum"] == f["checksum"]


@pytest.mark.parametrize("kind", list(HASHES))
@pytest.mark.parametrize("threads", [1, 2])
def test_file_hash_mismatch_refuses_the_unit(
    fresh_db: Any, tmp_path: Path, threads: int, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(encoders, "PROCESS_MIN_BYTES", 0)
    export = _with_file_hash(
        make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(50)}), wrong=True, kind=kind
    )
    target = target_with(fresh_db, "postgresql", ITEMS_DDL)
    with pytest.raises(DataError, match=f"checksum: the file's {kind}") as ei:
        import_database(export, target.url, data_only=True, threads=threads)
    assert ei.value.file == "data/shop.items.jsonl"
    assert target.query("SELECT COUNT(*) FROM items")[0][0] == 0


@pytest.mark.parametrize("kind", list(HASHES))
def test_tampered_file_with_file_hash(fresh_db: Any, tmp_path: Path, kind: str) -> None:
    export = _with_file_hash(make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(10)}), kind=kind)
    f = export / "data/shop.items.jsonl"
    f.write_bytes(f.read_bytes().replace(b'"name 3"', b'"name X"'))
    target = target_with(fresh_db, "postgresql", ITEMS_DDL)
    with pytest.raises(DataError, match="checksum"):
        import_database(export, target.url, data_only=True, threads=1)
    assert target.query("SELECT COUNT(*) FROM items")[0][0] == 0


def test_worker_refuses_bytes_that_changed(tmp_path: Path) -> None:
    """A worker re-reads its block by byte range: bytes other than those checked are refused."""
    from test_import_encode import VERSIONS, _line, _plan

    data = b"".join(_line(i, "x") + b"\n" for i in range(5))
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    args = ("postgresql", VERSIONS["postgresql"], pickle.dumps(_plan()), "null", "f.jsonl", 1, str(path), 0, len(data))
    ok = encode_file_range(*args, zlib.crc32(data))
    assert ok[0] == "ok" and ok[2] == 5 and ok[3] == 0  # no line hashes
    hashed = encode_file_range(*args)
    assert hashed[1] == ok[1] and hashed[3] != 0  # same bytes for the server; the lines hashed
    changed = encode_file_range(*args, zlib.crc32(data) ^ 1)
    assert changed[0] == "error" and "changed" in changed[1] and changed[4]["file"] == "f.jsonl"


def test_may_hold_nul(tmp_path: Path) -> None:
    f = tmp_path / "a.jsonl"
    f.write_bytes(b'{"a":"x\\u0001"}\n')
    assert not _may_hold_nul(f)
    f.write_bytes(b'{"a":"x\\u0000"}\n')
    assert _may_hold_nul(f)
    big = b"x" * ((8 << 20) - 3)  # the escape straddles the 8 MB read boundary
    f.write_bytes(big + b"\\u0000\n")
    assert _may_hold_nul(f)
    f.write_bytes(big + b"\\u0001\n")
    assert not _may_hold_nul(f)
    g = tmp_path / "a.jsonl.gz"
    import gzip

    g.write_bytes(gzip.compress(b'{"a":"\\u0000"}\n'))
    assert _may_hold_nul(g)


def test_preflight_nul_finding_still_found(fresh_db: Any, tmp_path: Path) -> None:
    """A NUL after many clean lines is still found (the file holds the escape, so it is parsed)."""
    rows = item_rows(40)
    rows[30] = (rows[30][0], "nul\x00here", *rows[30][2:])
    export = _with_file_hash(make_export(tmp_path / "out", database(ITEMS), {"items": rows}))
    target = target_with(fresh_db, "postgresql", ITEMS_DDL)
    with pytest.raises(DataError, match="NUL") as ei:
        import_database(export, target.url, data_only=True, threads=1)
    assert "name" in str(ei.value)


@pytest.mark.parametrize("engine", ["postgresql", "mariadb"])
def test_format_1_1_export_imports_and_verifies(fresh_db: Any, tmp_path: Path, engine: str) -> None:
    """An export written before data format 1.2 (BLAKE2b line hashes, SHA-256 file hashes) is
    imported and verified by its own algorithm; a changed row is still found."""
    from dbjson.format.checksum import BLAKE2B_SUM

    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(40)}, chunks=2, algorithm=BLAKE2B_SUM)
    doc = orjson.loads((export / "manifest.json").read_bytes())
    doc["format_version"] = "1.1"
    (export / "manifest.json").write_bytes(orjson.dumps(doc))
    export = _with_file_hash(export, kind="sha256")
    target = target_with(fresh_db, engine, ITEMS_DDL)
    report = import_database(export, target.url, data_only=True, threads=2)
    assert report.rows == 41 and report.verify is not None and report.verify.ok  # item_rows(40) and one more
    assert verify(export, target.url).ok
    target.execute("UPDATE items SET name = 'changed' WHERE id = 7")
    assert not verify(export, target.url).ok


def test_unknown_checksum_algorithm_is_refused(fresh_db: Any, tmp_path: Path) -> None:
    from dbjson.errors import DocumentError

    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(5)})
    doc = orjson.loads((export / "manifest.json").read_bytes())
    doc["checksum_algorithm"] = "sha3-64-sum"
    (export / "manifest.json").write_bytes(orjson.dumps(doc))
    target = target_with(fresh_db, "postgresql", ITEMS_DDL)
    with pytest.raises(DocumentError, match="unknown checksum algorithm 'sha3-64-sum'"):
        import_database(export, target.url, data_only=True, threads=1)
    assert target.query("SELECT COUNT(*) FROM items")[0][0] == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\x00", b"\n")), max_size=12))
def test_whole_lines_of_chunks_give_the_file_back(chunks: list[bytes]) -> None:
    """The readers' split of each chunk into whole lines (one copy at most): the blocks end with a
    newline, the rest holds none, and together they are the file, in order."""
    from dbjson.format.datafiles import whole_lines

    rest, blocks = b"", []
    for chunk in [*(c for c in chunks if c), b""]:
        block, rest = whole_lines(rest, chunk)
        assert b"\n" not in rest and (not block or block.endswith(b"\n") or not chunk)
        blocks.append(bytes(block))
    assert b"".join(blocks) + rest == b"".join(chunks) and rest == b""
