"""The C content checksum (``dbjson._cchecksum``, BLAKE2b per RFC 7693) gives exactly the sums of
the Python reference (``hashlib.blake2b`` per line, :class:`dbjson.codec.Checksum`)."""

from __future__ import annotations

import hashlib
import os
import random

import pytest

from dbjson import speedups
from dbjson.codec import Checksum, line_hash


@pytest.fixture
def fast():  # type: ignore[no-untyped-def]
    mod = speedups.load("_cchecksum")
    if mod is None:
        if os.environ.get("CI") == "true":
            pytest.fail("dbjson._cchecksum is not built (hatch_build.py); CI must test the C path")
        pytest.skip("dbjson._cchecksum is not built")
    return mod


def _reference(block: bytes) -> tuple[int, int]:
    lines = block.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return sum(map(line_hash, lines)) % 2**64, len(lines)


def test_one_line_every_length_around_the_block_size(fast) -> None:  # type: ignore[no-untyped-def]
    rnd = random.Random(7)
    for n in [*range(0, 400), 1023, 1024, 1025, 65536, 1 << 20]:
        data = rnd.randbytes(n)
        assert fast.line_value(data) == int.from_bytes(hashlib.blake2b(data).digest()[:8], "little"), n


@pytest.mark.parametrize("block", [b"", b"\n", b"a", b"a\n", b"a\n\nb\n", b"a\n\n", b"\n\n\n", b"x" * 129 + b"\ny" * 3])
def test_line_splitting_rule(fast, block: bytes) -> None:  # type: ignore[no-untyped-def]
    assert fast.sum_block(block) == _reference(block)


def test_random_blocks_and_lists(fast) -> None:  # type: ignore[no-untyped-def]
    rnd = random.Random(11)
    for _ in range(300):
        lines = [rnd.randbytes(rnd.randint(0, 300)).replace(b"\n", b"") for _ in range(rnd.randint(0, 30))]
        block = b"\n".join(lines) + rnd.choice([b"", b"\n"])
        assert fast.sum_block(block) == _reference(block)
        assert fast.sum_lines(lines) == sum(map(line_hash, lines)) % 2**64
    with pytest.raises(TypeError):
        fast.sum_lines([b"a", "not bytes"])


def test_checksum_class_same_with_and_without_c(fast, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    block = b"".join(b'{"id":%d,"s":"\\u00e9 %d"}\n' % (i, i * 7) for i in range(5000))
    with_c = Checksum()
    with_c.add_block(block)
    monkeypatch.setenv("DBJSON_NO_SPEEDUPS", "1")
    without = Checksum()
    without.add_block(block)
    assert (with_c.value, with_c.rows) == (without.value, without.rows) == _reference(block)
