"""The pre-flight's byte pre-test of lines (``dbjson.format.linefilter``), without a server.

* Sound: every line holding a value that a check reports is kept by the test, whatever spelling
  the line uses (``\\uXXXX`` escapes for any character, spaces around the colon, ``\\/``), on the
  C path and on the regular-expression twin's.
* Useful: canonical lines without such values are cleared (a block of them is not even split), so
  the pre-flight parses only the lines it must (counted here).
* ``file_blocks`` / ``block_lines`` give the lines, numbers and errors of ``iter_lines``.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from dbjson import preflight, speedups
from dbjson.errors import DataError
from dbjson.format import datafiles
from dbjson.format.datafiles import block_lines, file_blocks, iter_lines
from dbjson.format.decoders import is_zero_date_text
from dbjson.format.linefilter import LineFilter
from dbjson.preflight import has_nul, is_infinite_date, is_zero_date, line_filter

DATES = [
    "0000-00-00", "0000-01-01T00:00:00", "2024-00-10", "2024-01-00", "2024-01-00T10:00:00.5Z",
    "infinity", "-infinity", "2024-02-29", "2024-02-29T12:00:00.500Z", "2000-10-01", "1900-10-20T00:00:00",
    "SKU-00858964", "x-00-", "abcd-00-01", "a\u00e9bc-00-01", "12345-00-1", "-00", "infinityx", "",
]  # fmt: skip
TEXTS = [
    "plain",
    "tab\there",
    "line\nbreak",
    'quo"te',
    "back\\slash",
    "caf\u00e9 \U0001f600",
    "nul\x00in",
    "\x00",
    "/a/b",
]


def _escape_some(text: bytes, rng: random.Random) -> bytes:
    """``text`` (a JSON line) with some characters of its strings spelled as ``\\uXXXX``, some
    slashes as ``\\/`` and some colons spaced: the same JSON, another spelling."""
    obj = orjson.loads(text)
    out: list[str] = []
    s = orjson.dumps(obj).decode()
    in_string = False
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "\\":  # an escape orjson wrote: kept whole
            n = 6 if s[i + 1] == "u" else 2
            out.append(s[i : i + n])
            i += n
            continue
        if ch == '"':
            in_string = not in_string
        elif in_string and rng.random() < 0.15:
            out.append("\\/" if ch == "/" else f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else ch)
            i += 1
            continue
        elif not in_string and ch == ":" and rng.random() < 0.3:
            ch = " : "
        out.append(ch)
        i += 1
    spelled = "".join(out).encode()
    assert orjson.loads(spelled) == obj
    return spelled


def _line(rng: random.Random) -> tuple[bytes, dict[str, Any]]:
    obj: dict[str, Any] = {
        "id": rng.randrange(10**6),
        "d": rng.choice([*DATES, None]),
        "t": rng.choice([*TEXTS, None]),
        "a/b": rng.choice([*DATES, None]),
        "doc": rng.choice([None, {"d": rng.choice(DATES), "t": [rng.choice(TEXTS)]}]),
        "bin": rng.choice([None, "QUJD", "QUJDREVGR0g=" * rng.randrange(1, 4)]),
    }
    text = orjson.dumps(obj)
    if rng.random() < 0.5:
        text = _escape_some(text, rng)
    return text, obj


RULES: list[tuple[list[tuple[str, tuple[Any, ...]]], Callable[[dict[str, Any]], bool]]] = [
    ([("d", ("zero_date",))], lambda o: is_zero_date(o["d"])),
    ([("d", ("infinite_date",))], lambda o: is_infinite_date(o["d"])),
    ([("t", ("nul",))], lambda o: has_nul(o["t"])),
    ([("doc", ("nul",))], lambda o: has_nul(o["doc"])),
    ([("t", ("chars_over", 6))], lambda o: isinstance(o["t"], str) and len(o["t"]) > 6),
    ([("t", ("bytes_over", 8))], lambda o: isinstance(o["t"], str) and len(o["t"].encode()) > 8),
    ([("bin", ("binary_over", 5))], lambda o: isinstance(o["bin"], str) and len(o["bin"]) * 3 // 4 > 5),
    (
        [("d", ("zero_date",)), ("d", ("infinite_date",)), ("t", ("nul",))],
        lambda o: is_zero_date(o["d"]) or is_infinite_date(o["d"]) or has_nul(o["t"]),
    ),
]


@pytest.mark.parametrize("c_path", [True, False])
@pytest.mark.parametrize("case", range(len(RULES)))
def test_every_line_a_check_reports_is_kept(case: int, c_path: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not c_path:
        monkeypatch.setattr(speedups, "load", lambda _name: None)
    rules, reports = RULES[case]
    sieve = line_filter(rules)
    assert sieve is not None
    rng = random.Random(case)
    lines = [_line(rng) for _ in range(3000)]
    hits = 0
    for text, obj in lines:
        if reports(obj):
            hits += 1
            assert sieve.may(text), text
            block = b"\n".join(t for t, _ in rng.sample(lines, 20)) + b"\n" + text + b"\n"
            assert sieve.block_may(block), text
    assert hits > 10  # the generator makes such values


def test_a_name_with_another_spelling_or_a_rule_without_a_test_parses_every_line() -> None:
    """``/`` may be written ``\\/`` (not found by a search for orjson's spelling), and integer ranges
    or significant digits have no byte test: every line is parsed for them."""
    assert line_filter([("a/b", ("zero_date",))]) is None
    assert line_filter([("n", ("int_outside", 0, 10))]) is None
    assert line_filter([("n", ("digits_over", 15))]) is None
    assert line_filter([("d", ("zero_date",)), ("n", ("elapsed_time",))]) is None


def test_canonical_lines_without_such_values_are_cleared() -> None:
    rng = random.Random(1)
    clean = [
        orjson.dumps(
            {
                "id": i,
                "d": rng.choice(["2024-02-29", "1999-12-31T23:59:59.5Z", None]),
                "sku": f"SKU-00{i:06d}",  # "-00" that is not a date
                "t": rng.choice(["plain", "tab\there", "caf\u00e9", 'quo"te']),
                "doc": orjson.dumps({"d": "2024-00-00x", "note": "SKU-00-00"}).decode(),  # a document as text
            }
        )
        for i in range(2000)
    ]
    block = b"\n".join(clean) + b"\n"
    sieve = LineFilter(dates=["d"], nul=True, longer_than=400)
    assert not sieve.block_may(block)
    assert not any(sieve.may(ln) for ln in clean)
    assert LineFilter(dates=["d"]).block_may(block.replace(b'"d":"2024-02-29"', b'"d":"2024-02-00"', 1))
    assert LineFilter(nul=True).block_may(block.replace(b'"plain"', b'"pl\\u0000ain"', 1))
    assert LineFilter(longer_than=10).block_may(block)


def test_zero_dates_are_digits() -> None:
    """A zero date is MySQL's: year 0000, or month or day 00 after digits. Other text is not one
    (it loads as it is, and a date column refuses it)."""
    for v in ("0000-00-00", "0000-01-01 10:00:00", "2024-00-10", "2024-01-00", "2024-01-00T10:00:00Z", "0000-x"):
        assert is_zero_date_text(v), v
    for v in ("2024-01-01", "abcd-00-01", "SKU-00858964", "\u0661\u0662\u0663\u0664-00-01", "2024-1x-00", "-00", ""):
        assert not is_zero_date_text(v), v


def _iter_lines_of(raw: bytes) -> list[tuple[int, bytes]] | str:
    try:
        return list(iter_lines(io.BytesIO(raw), "f.jsonl"))
    except DataError as e:
        return f"{e.line}: {str(e).split(':')[0]}"


def _blocks_of(raw: bytes) -> list[tuple[int, bytes]] | str:
    try:
        return [x for before, block in file_blocks(io.BytesIO(raw), "f.jsonl") for x in block_lines(before, block)]
    except DataError as e:
        return f"{e.line}: {str(e).split(':')[0]}"


def test_blocks_give_the_lines_numbers_and_errors_of_iter_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(datafiles, "BLOCK_READ_BYTES", 64)
    monkeypatch.setenv("DBJSON_MAX_LINE_BYTES", "1024")
    rng = random.Random(2)
    for _ in range(300):
        parts = []
        for _ in range(rng.randrange(0, 30)):
            kind = rng.random()
            if kind < 0.1:
                parts.append(b"")
            elif kind < 0.13:
                parts.append(b"x" * rng.choice([1023, 1024, 1025, 3000]))
            else:
                parts.append(orjson.dumps({"i": rng.randrange(99), "s": "y" * rng.randrange(200)}))
        sep = rng.choice([b"\n", b"\r\n"])
        raw = sep.join(parts) + (sep if rng.random() < 0.9 else b"")
        assert _blocks_of(raw) == _iter_lines_of(raw), raw[:200]


def test_the_preflight_parses_only_the_lines_the_test_keeps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table checked for zero dates and NUL: of 20,000 lines only the two with such values are
    parsed (and both are found, with their line numbers)."""
    from types import SimpleNamespace

    from dbjson.engines import get_engine
    from dbjson.format.datafiles import DataFile

    lines = [orjson.dumps({"id": i, "d": "2024-05-06T07:08:09", "t": f"text {i}"}) for i in range(20000)]
    lines[7000] = orjson.dumps({"id": 7000, "d": "0000-00-00T00:00:00", "t": "x"})
    lines[15000] = orjson.dumps({"id": 15000, "d": "2024-05-06T07:08:09", "t": "a\x00b"})
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    parsed = []
    real = orjson.loads
    monkeypatch.setattr(
        preflight,
        "orjson",
        SimpleNamespace(loads=lambda b: parsed.append(b) or real(b), JSONDecodeError=orjson.JSONDecodeError),
    )
    monkeypatch.setattr(preflight, "_collision_keys", lambda *_a: [])
    monkeypatch.setattr(preflight, "_not_null_columns", lambda *_a: set())

    def rules(_engine: Any, c: Any, *_a: Any) -> list[tuple[str, Any, tuple[Any, ...]]]:
        if c.name == "d":
            return [("warning", lambda v: "zero" if is_zero_date(v) else None, ("zero_date",))]
        if c.name == "t":
            return [("error", lambda v: "nul" if has_nul(v) else None, ("nul",))]
        return []

    monkeypatch.setattr(preflight, "column_rules", rules)
    cols = [
        SimpleNamespace(name=n, type=SimpleNamespace(kind=k))
        for n, k in (("id", "integer"), ("d", "timestamp"), ("t", "text"))
    ]
    tp = SimpleNamespace(
        skipped=False,
        display="t",
        columns=cols,
        target_types=[c.type for c in cols],
        target_names=[c.name for c in cols],
        json_text=frozenset(),
        files=[DataFile(path=path, rel="data/t.jsonl", rows=None)],
    )
    findings = preflight.preflight(get_engine("postgresql"), None, [tp])  # type: ignore[arg-type]
    assert [(f.column, f.line) for f in findings] == [("d", 7001), ("t", 15001)]
    assert len(parsed) == 2
