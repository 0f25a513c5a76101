"""The by-meaning form of a line that verify compares across engines: the C speedup
(``_cchecksum.semantic_line``) gives exactly the bytes of its Python twin
(:func:`dbjson.format.jsontext.semantic_line_py`), equal lines for equal meanings, different ones
for different values, and refuses what the twin refuses."""

from __future__ import annotations

import json
import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbjson import speedups
from dbjson.errors import DataError
from dbjson.format.jsontext import canonical_number, semantic_line_function, semantic_line_py

J, D = (b"doc", b"other"), (b"amount",)


@pytest.fixture(scope="module")
def fast():  # type: ignore[no-untyped-def]
    mod = speedups.load("_cchecksum")
    if mod is None:
        if os.environ.get("CI") == "true":
            pytest.fail("dbjson._cchecksum is not built (hatch_build.py); CI must test the C path")
        pytest.skip("dbjson._cchecksum is not built")
    return mod


CASES = [
    b'{"id":1,"doc":{"b": 1, "a": [1.50, 2E2, -0.0, 0e5, 1e-3, 12345678901234567890.000]},"amount":"2.9900"}',
    b'{"doc":{"k":"\\u00e9\\/\\"\\\\\\n\\t\\b\\f\\r\\u0001\\u001f\\ud83d\\ude00","k":"last"},"id":2}',
    b'{"doc":null,"amount":null,"id":3}',
    b'{"doc":{"$json":null},"amount":"0.000","id":4}',
    b'{"doc":[],"other":{},"amount":"-0","id":5}',
    b'{"doc":"a string document","amount":"NaN","id":6}',
    b'{"doc":[NaN,Infinity,-Infinity,true,false,null],"amount":"Infinity","id":7}',
    b'{"doc":{"z":{"y":{"x":[{"b":2,"a":1}]}}},"id":8}',
    b'{"doc":1e2000,"other":-25E-1001,"amount":"1e999","id":9}',
    b'{"id":10,"name":"keeps \\u00e9 as written","doc":{"\\u00e9":1,"e":2,"f":3}}',
    b'{ "id" : 11 , "doc" : [ 1 , 2 ] }',
    b"{}",
]


@pytest.mark.parametrize("line", CASES)
def test_c_gives_the_twins_bytes(fast, line: bytes) -> None:  # type: ignore[no-untyped-def]
    assert fast.semantic_line(line, J, D) == semantic_line_py(line, J, D)


def test_examples() -> None:
    out = semantic_line_py(CASES[0], J, D)
    assert out == b'{"amount":"2.99","doc":{"a":[1.5,200,0,0,0.001,12345678901234567890],"b":1},"id":1}'
    big = b'{"amount":"1' + b"0" * 999 + b'","doc":1e2000,"id":9,"other":-25e-1001}'
    assert semantic_line_py(CASES[8], J, D) == big


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (b'{"doc":{"a":1,"b":[1.5]}}', b'{"doc": {"b": [1.50], "a": 1.0}}'),
        (b'{"doc":"\\u00e9"}', '{"doc":"é"}'.encode()),
        (b'{"amount":"2.990000000000000000000000000000"}', b'{"amount":"2.99"}'),
        (b'{"doc":123456789012345678901234567890.5}', b'{"doc":1234567890123456789012345678905e-1}'),
    ],
)
def test_same_meaning_same_line(a: bytes, b: bytes) -> None:
    f = semantic_line_function(("doc",), ("amount",))
    assert f(a) == f(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (b'{"doc":1.5}', b'{"doc":1.50000000000000000001}'),  # equal as doubles, not by value
        (b'{"doc":"1"}', b'{"doc":1}'),
        (b'{"doc":[1,2]}', b'{"doc":[2,1]}'),
        (b'{"doc":{"a":null}}', b'{"doc":{}}'),
        (b'{"id":"1.50"}', b'{"id":"1.5"}'),  # a column named in neither list stays exact
    ],
)
def test_different_values_differ(a: bytes, b: bytes) -> None:
    f = semantic_line_function(("doc",), ("amount",))
    assert f(a) != f(b)


@pytest.mark.parametrize(
    "line",
    [b'{"doc":[1,}', b'{"doc":"\\ud83d"}', b'{"doc":01}', b'["not an object"]', b'{"doc":1} x', b'{"doc":1,}'],
)
def test_malformed_refused_by_both(fast, line: bytes) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        fast.semantic_line(line, J, D)
    with pytest.raises((ValueError, TypeError, DataError)):  # orjson's encode error is a TypeError
        semantic_line_py(line, J, D)


def test_deep_nesting_falls_back_to_the_twin() -> None:
    deep = b'{"doc":' + b"[" * 300 + b"1" + b"]" * 300 + b"}"
    assert semantic_line_function(("doc",), ())(deep) == semantic_line_py(deep, (b"doc",), ())


@pytest.mark.parametrize(
    ("text", "out"),
    [("0", "0"), ("-0.000", "0"), ("1E2", "100"), ("1.2300", "1.23"), ("25e-3", "0.025"), ("-7e-1", "-0.7")],
)
def test_canonical_number(text: str, out: str) -> None:
    assert canonical_number(text.encode()) == out.encode()


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(doc=_json, seed=st.integers(0, 2**16))
def test_random_documents(fast, doc: object, seed: int) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    spaced = json.dumps(doc, ensure_ascii=rng.random() < 0.5, indent=rng.choice((None, 1))).encode()
    line = b'{"id":1,"doc":' + spaced + b',"amount":"' + str(rng.randrange(10**6) / 100).encode() + b'"}'
    compact = (
        b'{"doc":'
        + json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
        + b',"id":1,"amount":"'
        + line.rsplit(b'"', 2)[1]
        + b'"}'
    )
    assert fast.semantic_line(line, J, D) == semantic_line_py(line, J, D) == semantic_line_py(compact, J, D)


@pytest.mark.parametrize("algorithm", ["xxh3-64-sum", "blake2b64-sum"])
def test_block_and_batch_sums_are_the_sums_of_the_lines_forms(fast, algorithm: str) -> None:  # type: ignore[no-untyped-def]
    from dbjson.format.checksum import Checksum, SemanticLines

    lines = [ln for ln in CASES if ln != b"{}"] + [b'{"doc":[1,}']  # the last one: C refuses, the twin raises
    good = lines[:-1]
    forms = SemanticLines(("doc", "other"), ("amount",))
    want = Checksum(algorithm=algorithm)
    want.add_lines([semantic_line_py(ln, J, D) for ln in good])
    by_block, by_batch = Checksum(algorithm=algorithm), Checksum(algorithm=algorithm)
    forms.add_block(by_block, b"\n".join(good) + b"\n")
    forms.add_lines(by_batch, good)
    assert (by_block.value, by_block.rows) == (by_batch.value, by_batch.rows) == (want.value, want.rows)
    with pytest.raises((ValueError, DataError)):
        forms.add_lines(Checksum(algorithm=algorithm), lines)


@settings(max_examples=300, deadline=None)
@given(doc=_json, seed=st.integers(0, 2**16))
def test_random_documents_as_text(fast, doc: object, seed: int) -> None:  # type: ignore[no-untyped-def]
    """A json column written as the JSON string of its text (format 1.3, ``json_texts``): C and
    the twin agree, and the form is that of the same document written nested (with the escape
    of the JSON document null and of a single "$json" key)."""
    from dbjson.format.jsontext import wrap_json_text

    rng = random.Random(seed)
    text = json.dumps(doc, ensure_ascii=rng.random() < 0.5, indent=rng.choice((None, 1, "\t")))
    if rng.random() < 0.3:
        text = json.dumps({"$json": doc}) if rng.random() < 0.5 else " \n" + text + "\r\n "
    line = b'{"id":1,"doc":' + json.dumps(text).encode() + b"}"
    nested = b'{"id":1,"doc":' + wrap_json_text(json.dumps(json.loads(text), separators=(",", ":")).encode()) + b"}"
    t = (b"doc",)
    want = semantic_line_py(nested, J, D)
    assert fast.semantic_line(line, J, D, t) == semantic_line_py(line, J, D, t) == want


def test_json_texts_batch_sums(fast) -> None:  # type: ignore[no-untyped-def]
    from dbjson.format.checksum import Checksum, SemanticLines

    lines = [b'{"doc":"{\\"b\\": 1, \\"a\\": [1.50]}"}', b'{"doc":"null"}', b'{"doc":null}', b'{"doc":" {} "}']
    forms = SemanticLines(("doc",), (), ("doc",))
    want, by_block, by_batch = Checksum(), Checksum(), Checksum()
    want.add_lines([semantic_line_py(ln, (b"doc",), (), (b"doc",)) for ln in lines])
    forms.add_block(by_block, b"\n".join(lines) + b"\n")
    forms.add_lines(by_batch, lines)
    assert (by_block.value, by_block.rows) == (by_batch.value, by_batch.rows) == (want.value, want.rows)
    with pytest.raises((ValueError, DataError)):  # a json text that is not JSON
        forms.add_lines(Checksum(), [b'{"doc":"{\\"a\\":}"}'])


def test_threads_rewriting_at_once_give_the_same_sums(fast) -> None:  # type: ignore[no-untyped-def]
    """The scratch buffers of objects being rewritten are per thread (the C code runs without the
    interpreter lock, verify sums both sides at once): four threads over blocks of nested
    documents give the sums of one thread, and each line the twin's bytes."""
    import threading

    rng = random.Random(7)

    def doc(depth: int) -> object:
        if depth > 4 or rng.random() < 0.3:
            return rng.choice([1.50, "x\\u00e9", None, True, [1, "a"], "é\n"])
        return {f"k{rng.randrange(9)}": doc(depth + 1) for _ in range(rng.randrange(1, 5))}

    lines = [
        json.dumps({"id": i, "doc": doc(0), "other": [doc(1)], "amount": "1.50", "t": 'a"b'}).encode()
        for i in range(400)
    ]
    block = b"\n".join(lines) + b"\n"
    want = fast.semantic_sum_block(block, J, D)
    got: list[object] = []

    def run() -> None:
        for _ in range(20):
            got.append(fast.semantic_sum_block(block, J, D))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [want] * 80
    assert all(fast.semantic_line(ln, J, D) == semantic_line_py(ln, J, D) for ln in lines)


NESTED = [  # objects inside documents: the C code keeps their written orders too, per shape
    b'{"b":1,"a":[1.50]}',
    b'{"a":1,"b":2}',
    b'{"b":1,"a":2,"a":3}',
    b'{"ab":1}',
    b'{"a":1,"b":{"b":1,"a":2}}',
    b'{"b":{"a":{"b":1,"a":2}},"a":{"a":1}}',
    b'{"\\u0061":1,"b":2}',
    b'{"a":1,"bb":2}',
    b'{"aa":1,"b":2}',
]


def test_lines_of_a_block_with_changing_keys(fast) -> None:  # type: ignore[no-untyped-def]
    """The C code keeps the written order of a line's members from the line before when the keys
    are the same (the usual table), and of objects inside documents per shape: every change of keys — another order, a repeated key, a key
    one byte longer or shorter, keys that join to the same bytes, an escaped key, fewer or more
    members — must give the twin's bytes, line after line, as well as in one block."""
    from dbjson.format.checksum import Checksum, SemanticLines

    rng = random.Random(11)
    shapes = [
        [b'"id"', b'"doc"', b'"amount"', b'"name"'],
        [b'"doc"', b'"id"', b'"amount"', b'"name"'],  # another order
        [b'"id"', b'"doc"', b'"amount"', b'"name"', b'"id"'],  # a repeated key: its last value
        [b'"id"', b'"doc"', b'"amount"', b'"names"'],  # a longer key
        [b'"i"', b'"ddoc"', b'"amount"', b'"name"'],  # the same joined bytes, other lengths
        [b'"id"', b'"d\\u006fc"', b'"amount"', b'"name"'],  # an escaped key ("doc")
        [b'"id"', b'"doc"'],
        [b'"\\u00e9"', b'"e"', b'"id"', b'"doc"', b'"amount"', b'"name"', b'"z"', b'"a"'],
        [],
    ]
    lines = []
    for _ in range(400):
        keys = shapes[rng.randrange(len(shapes))] if rng.random() < 0.4 else shapes[0]
        values = [rng.choice([b"1", b'"x"', b"null", b'"2.500"', b"-0", *NESTED]) for _k in keys]
        lines.append(b"{" + b",".join(k + b":" + v for k, v in zip(keys, values)) + b"}")
    for ln in lines:
        assert fast.semantic_line(ln, J, D) == semantic_line_py(ln, J, D), ln
    want, by_block = Checksum(), Checksum()
    want.add_lines([semantic_line_py(ln, J, D) for ln in lines])
    SemanticLines(("doc", "other"), ("amount",)).add_block(by_block, b"\n".join(lines) + b"\n")
    assert (by_block.value, by_block.rows) == (want.value, want.rows)


ESCAPES = ["\\/", "\\u00e9", "\\u00E9", "\\u005c", "\\n", "\\t", "\\u0000", "\\ud834\\udd1e", '\\"', "\\\\", "é", "ж"]


def test_strings_with_an_escape_at_every_offset(fast) -> None:  # type: ignore[no-untyped-def]
    """Strings are decoded 8 bytes at a time up to their first escape: an escape (or a non-ASCII
    character) at every offset of keys and values up to 24 bytes long, in a JSON document and
    in a document stored as a string, gives the twin's bytes."""
    for n in range(0, 25):
        for esc in ESCAPES:
            for at in range(0, n + 1):
                text = "a" * at + esc + "b" * (n - at)
                doc = f'{{"{text}":"{text}","k":["{text}",{n}]}}'
                line = f'{{"doc":{doc},"other":"{doc.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}","id":{n}}}'
                data = line.encode()
                assert fast.semantic_line(data, J, D) == semantic_line_py(data, J, D), data
