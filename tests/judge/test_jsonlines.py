"""``loads_line`` decodes a run's JSON lines exactly as ``json.loads`` does (orjson's fast path
and its fallbacks: judge/record/jsonlines.py)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.record.jsonlines import loads_line


def same(a: Any, b: Any) -> bool:
    """Equal, with the same types throughout (1 is not 1.0), NaN equal to NaN, -0.0 not 0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    return bool(a == b)


@pytest.mark.parametrize("line", [
    b'{"a":1,"a":2}',  # the last of a key given twice
    b'{"x":1e309}', b'{"x":-1e309}', b'{"x":NaN}', b'{"x":-Infinity}',  # orjson refuses
    b'{"x":123456789012345678901234567890}',  # orjson would read a float
    b'{"x":-9223372036854775809}', b'{"x":18446744073709551615}',
    b'{"x":"\\ud800"}',  # a lone surrogate escape
    b'\xef\xbb\xbf{"x":1}',  # a byte-order mark
    b'{"x":-0}', b'{"x":-0.0}', b'{"x":1E5}', b'{"x":"\\u2028\xe2\x80\xa8"}', b' {"x":1}\r',
    b'{"cache_key":"1234567890123456789012a+b","score":0.25}',  # a digest's digit run
])
def test_loads_line_is_json_loads_on_the_lines_orjson_reads_otherwise(line: bytes) -> None:
    assert same(loads_line(line), json.loads(line))


@pytest.mark.parametrize("line", [b"", b"{", b'{"x":1', b"\xff\xfe{}", b'{"x":01}'])
def test_loads_line_raises_what_json_loads_raises(line: bytes) -> None:
    with pytest.raises(ValueError) as want:
        json.loads(line)
    with pytest.raises(type(want.value)):
        loads_line(line)


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(), lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=12)


@settings(max_examples=200, deadline=None, derandomize=True)  # derandomized: never flaky
@given(st.dictionaries(st.text(max_size=8), _values, max_size=6))
def test_loads_line_is_json_loads_on_what_json_dumps_writes(row: dict[str, object]) -> None:
    line = json.dumps(row, ensure_ascii=False).encode("utf-8", "surrogatepass")
    assert same(loads_line(line), json.loads(line))


def test_a_verdict_row_with_long_float_digits_takes_the_orjson_path() -> None:
    # a latency of 0.0006123456789012345 s has 19 digits after the point: still a float, so
    # the line is orjson's; the 10k-pair benchmark's rows are all of this kind
    from judge.record.jsonlines import BIG_INTEGER

    line = (b'{"pred": "a", "score": 0.0016356283468219424, "latency_s": 0.0006123456789012345, '
            b'"cache_key": "0123456789012345678901234567890abc+9876543210987654321", '
            b'"tokens_in": 1234567890123456789}')
    assert BIG_INTEGER.search(line) is not None  # the token count: 19 digits
    assert BIG_INTEGER.search(line.replace(b"1234567890123456789}", b"12}")) is None
    assert same(loads_line(line), json.loads(line))
