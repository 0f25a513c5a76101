"""The C content checksum (``dbjson._cchecksum``) gives exactly the sums of the Python references
for both line hashes: XXH3-64 (``xxh3-64-sum``, the ``xxhash`` package) and BLAKE2b per RFC 7693
(``blake2b64-sum``, ``hashlib.blake2b``), through :class:`dbjson.format.checksum.Checksum` too."""

from __future__ import annotations

import hashlib
import os
import random

import pytest
import xxhash

from dbjson import speedups
from dbjson.format.checksum import (
    BLAKE2B_SUM,
    CHECKSUM_ALGORITHMS,
    DEFAULT_CHECKSUM,
    XXH3_SUM,
    Checksum,
    line_hash,
    sum_lines,
)

# the independent references (not dbjson's own Python paths)
REFERENCE = {
    XXH3_SUM: xxhash.xxh3_64_intdigest,
    BLAKE2B_SUM: lambda data: int.from_bytes(hashlib.blake2b(data).digest()[:8], "little"),
}


@pytest.fixture
def fast():  # type: ignore[no-untyped-def]
    mod = speedups.load("_cchecksum")
    if mod is None:
        if os.environ.get("CI") == "true":
            pytest.fail("dbjson._cchecksum is not built (hatch_build.py); CI must test the C path")
        pytest.skip("dbjson._cchecksum is not built")
    return mod


def _code(fast, algorithm: str) -> int:  # type: ignore[no-untyped-def]
    return {XXH3_SUM: fast.XXH3, BLAKE2B_SUM: fast.BLAKE2B64}[algorithm]


def _reference(block: bytes, algorithm: str) -> tuple[int, int]:
    lines = block.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return sum(map(REFERENCE[algorithm], lines)) % 2**64, len(lines)


def test_default_is_xxh3() -> None:
    assert DEFAULT_CHECKSUM == XXH3_SUM and set(CHECKSUM_ALGORITHMS) == set(REFERENCE)


@pytest.mark.parametrize("algorithm", CHECKSUM_ALGORITHMS)
def test_one_line_every_length_around_the_block_sizes(fast, algorithm: str) -> None:  # type: ignore[no-untyped-def]
    rnd = random.Random(7)
    code = _code(fast, algorithm)
    # BLAKE2b blocks are 128 bytes; XXH3 switches paths at 16, 128, 240 bytes and 1 KB stripes
    for n in [*range(0, 400), 1023, 1024, 1025, 65536, 1 << 20]:
        data = rnd.randbytes(n)
        assert fast.line_value(data, code) == REFERENCE[algorithm](data), n
        assert line_hash(data, algorithm) == REFERENCE[algorithm](data), n


@pytest.mark.parametrize("algorithm", CHECKSUM_ALGORITHMS)
@pytest.mark.parametrize("block", [b"", b"\n", b"a", b"a\n", b"a\n\nb\n", b"a\n\n", b"\n\n\n", b"x" * 129 + b"\ny" * 3])
def test_line_splitting_rule(fast, block: bytes, algorithm: str) -> None:  # type: ignore[no-untyped-def]
    assert fast.sum_block(block, _code(fast, algorithm)) == _reference(block, algorithm)


@pytest.mark.parametrize("algorithm", CHECKSUM_ALGORITHMS)
def test_random_blocks_and_lists(fast, algorithm: str) -> None:  # type: ignore[no-untyped-def]
    rnd = random.Random(11)
    code = _code(fast, algorithm)
    for _ in range(300):
        lines = [rnd.randbytes(rnd.randint(0, 300)).replace(b"\n", b"") for _ in range(rnd.randint(0, 30))]
        block = b"\n".join(lines) + rnd.choice([b"", b"\n"])
        assert fast.sum_block(block, code) == _reference(block, algorithm)
        assert fast.sum_lines(lines, code) == sum(map(REFERENCE[algorithm], lines)) % 2**64
    with pytest.raises(TypeError):
        fast.sum_lines([b"a", "not bytes"], code)


def test_unknown_algorithm_refused(fast) -> None:  # type: ignore[no-untyped-def]
    for call in (
        lambda: fast.sum_block(b"a\n", 7),
        lambda: fast.sum_lines([b"a"], 7),
        lambda: fast.line_value(b"a", 7),
    ):
        with pytest.raises(ValueError, match="unknown checksum algorithm"):
            call()


@pytest.mark.parametrize("algorithm", CHECKSUM_ALGORITHMS)
def test_checksum_class_same_with_and_without_c(fast, algorithm: str, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    block = b"".join(b'{"id":%d,"s":"\\u00e9 %d"}\n' % (i, i * 7) for i in range(5000))
    lines = block.split(b"\n")[:-1]
    with_c = Checksum(algorithm=algorithm)
    with_c.add_block(block)
    summed_c = sum_lines(lines, algorithm)
    monkeypatch.setenv("DBJSON_NO_SPEEDUPS", "1")
    without = Checksum(algorithm=algorithm)
    without.add_block(block)
    one_by_one = Checksum(algorithm=algorithm)
    for ln in lines:
        one_by_one.add(ln)
    assert (
        (with_c.value, with_c.rows)
        == (without.value, without.rows)
        == (one_by_one.value, one_by_one.rows)
        == _reference(block, algorithm)
    )
    assert summed_c == sum_lines(lines, algorithm) == with_c.value


def test_checksums_of_different_algorithms_do_not_mix() -> None:
    a, b = Checksum(1, 1, XXH3_SUM), Checksum(1, 1, BLAKE2B_SUM)
    with pytest.raises(ValueError, match="cannot combine"):
        a.merge(b)
    with pytest.raises(ValueError, match="cannot combine"):
        _ = a + b
    assert a != b
