"""Verify's value rules on the export's side, without a server: the zero/infinite-date pre-test
(``_cchecksum.date_values`` and its regular-expression twin) finds every value a rule changes, and
the expected checksum of a table under rules alone (taken from the manifest's sum, only the changed
lines hashed) is the checksum of the export's lines through the rules."""

from __future__ import annotations

import io
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
import test_csemantic

from dbjson import speedups
from dbjson.format.checksum import Checksum, SemanticLines
from dbjson.format.linefilter import zero_date_search as _zero_date_search
from dbjson.preflight import is_infinite_date, is_zero_date
from dbjson.verify import _add_file_blocks, _files_checksum, _rules_functions  # noqa: PLC2701

rules_functions: Any = _rules_functions
fast = test_csemantic.fast  # the _cchecksum fixture (fails under CI when the module is not built)


VALUES = [
    "0000-00-00", "0000-01-01T00:00:00", "2024-00-10", "2024-01-00", "2024-01-00T10:00:00.5",
    "infinity", "-infinity", "2024-02-29", "2024-02-29T12:00:00.500Z", "2000-10-01", "2000-01-10",
    "1900-10-20T00:00:00", "SKU-00858964", "x-00-", "12345-00-1", "-00", "infinityx", "0000", "",
    'quote"d-00-', "back\\slash-00", "a\u00e9b-00-c", "\u0000-00-",
]  # fmt: skip


def _line(rng: random.Random, names: list[str]) -> bytes:
    obj = {n: rng.choice([*VALUES, None, 7]) for n in names}
    if rng.random() < 0.3:  # a document holding the same names (only false alarms there)
        obj["doc"] = {"d": rng.choice(VALUES), "at": [rng.choice(VALUES)]}
    text = orjson.dumps(obj)
    if rng.random() < 0.2:  # spaces around the colon (hand-edited files): the search allows them
        text = text.replace(b'":', b'" : ', 1)
    return text


def test_c_and_twin_find_the_same_dates(fast) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(5)
    names = ["d", "at", "note", "\u00e9t\u00e9"]
    lines = [_line(rng, names) for _ in range(3000)]
    for keys in (["d"], ["at"], ["d", "at"], ["\u00e9t\u00e9"], ["missing"]):
        searches = [_zero_date_search(n) for n in keys]
        encoded = tuple(orjson.dumps(n) for n in keys)
        for ln in lines:
            assert fast.date_values(ln, encoded) == any(s(ln) for s in searches), (keys, ln)
        block = b"\n".join(lines[:500]) + b"\n"
        assert fast.date_values(block, encoded) == any(s(block) for s in searches)


@pytest.mark.parametrize("c_path", [True, False])
def test_every_changed_value_is_found(fast, c_path: bool, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Every value is_zero_date or is_infinite_date sees makes the pre-test true (else a line the
    rule changes would be hashed as it is), on the C path and on the twin's."""
    if not c_path:
        monkeypatch.setattr(speedups, "load", lambda _name: None)
    touched, transform = rules_functions({"d": "zero-null", "t": "infinity-null"})
    rng = random.Random(9)
    for _ in range(2000):
        y = rng.choice(["0000", "2024", "1999"])
        m = rng.choice(["00", "01", "12"])
        d = rng.choice(["00", "01", "31"])
        value = rng.choice([f"{y}-{m}-{d}", f"{y}-{m}-{d}T10:00:00", f"{y}-{m}-{d}T00:00:00.123Z"])
        line = orjson.dumps({"id": 1, "d": value, "t": rng.choice(["infinity", "-infinity", "2024-01-01"])})
        obj = orjson.loads(line)
        changed = is_zero_date(obj["d"]) or is_infinite_date(obj["t"])
        assert touched(line) or not changed, line
        assert (transform(line) != line) == changed, line


def _tp(tmp_path: Path, lines: list[bytes], raw: bytes | None = None) -> Any:
    path = tmp_path / "t.jsonl"
    path.write_bytes(raw if raw is not None else b"".join(ln + b"\n" for ln in lines))
    manifest = Checksum()
    manifest.add_lines(lines)
    return SimpleNamespace(
        checksum=manifest.hexdigest(),
        checksum_kind="lines",
        checksum_algorithm=manifest.algorithm,
        files=[SimpleNamespace(path=str(path), rel="t.jsonl", bytes=path.stat().st_size)],
        value_rules={"d": "zero-null"},
        json_text=frozenset(),
    )


def test_rules_sum_from_the_manifest_is_the_lines_sum(tmp_path: Path) -> None:
    """The expected sum of a table under rules alone: the manifest's sum with only the changed
    lines hashed again equals the sum of every line through the rules (over many blocks)."""
    from dbjson.verify import _Expected  # noqa: PLC2701

    rng = random.Random(3)
    lines = [
        orjson.dumps({"id": i, "d": rng.choice(VALUES[:12]), "pad": "x" * rng.randrange(500)}) for i in range(9000)
    ]
    tp = _tp(tmp_path, lines)
    expected = _Expected(tp.value_rules, None)
    want = Checksum()
    want.add_lines([expected(ln) for ln in lines])
    assert any(expected(ln) != ln for ln in lines)
    assert _files_checksum(tp, expected) == want.hexdigest()


def test_blocks_give_the_lines_iter_lines_gives(tmp_path: Path) -> None:
    """The export's side read in blocks: empty lines and carriage returns (dropped by iter_lines)
    give the sums of the line-by-line reading; a file without its last newline is an error."""
    from dbjson.errors import DataError
    from dbjson.format.jsontext import semantic_line_py

    lines = [b'{"id":1,"doc":{"b":1,"a":2}}', b'{"id":2,"doc":[1.50]}', b'{"id":3,"doc":null}']
    forms = SemanticLines(("doc",), ())
    want = Checksum()
    want.add_lines([semantic_line_py(ln, (b"doc",), ()) for ln in lines])
    for raw in (
        b"\n".join(lines) + b"\n",
        b"\n" + b"\n\n".join(lines) + b"\n\n",
        b"\r\n".join(lines) + b"\r\n",
    ):
        got = Checksum()
        _add_file_blocks(io.BytesIO(raw), "t.jsonl", forms, got)
        assert (got.value, got.rows) == (want.value, want.rows), raw
    with pytest.raises(DataError, match="truncated"):
        _add_file_blocks(io.BytesIO(b"\n".join(lines)), "t.jsonl", forms, Checksum())


def test_a_zero_date_spelled_with_escapes_is_found() -> None:
    """A hand-written file may spell a character of the name or of the value as a \\u escape: the
    pre-test does not clear such a line (else the rule's change would be hashed as no change)."""
    touched, transform = rules_functions({"d": "zero-null"})
    for line in (
        b'{"id":1,"d":"\\u0030000-00-00"}',
        b'{"id":1,"\\u0064":"0000-00-00"}',
        b'{"id":1,"d":"2024-\\u00300-10"}',
    ):
        assert orjson.loads(line)["d"] in ("0000-00-00", "2024-00-10")
        assert touched(line), line
        assert transform(line) != line, line
