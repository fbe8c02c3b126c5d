"""The audit page's JSON (:mod:`judge.runs.pagejson`): orjson's text parses to exactly what the
:mod:`json` encoder's did, and what orjson refuses falls back to that encoder."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from judge.runs import pagedata
from judge.runs.audit import pair_key
from judge.runs.pagejson import compact, script_json, script_utf8, utf8

_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _floats() -> list[float]:
    rng = random.Random(7)
    return [rng.random() * 10.0 ** rng.randint(-30, 30) for _ in range(2000)] + [
        0.1, 1.0, -0.0, 1e16, 1e-5, 1e22, 5e-324, 1.7976931348623157e308, 2.0 ** 53 + 2]


def test_floats_parse_to_the_same_values() -> None:
    fl = _floats()
    back = json.loads(compact(fl))
    assert back == fl and [math.copysign(1, x) for x in back] == [math.copysign(1, x) for x in fl]


def test_strings_are_written_as_json_writes_them() -> None:
    # every code point outside the surrogates, as json.dumps(ensure_ascii=False) writes it
    text = "".join(chr(c) for c in range(0x11000) if not 0xD800 <= c < 0xE000)
    assert compact([None, text, "\x00\x1f\"\\\n\t\x7f\u2028é"]) == _json(
        [None, text, "\x00\x1f\"\\\n\t\x7f\u2028é"])
    assert pair_key(("i1", "Café\n", "x")) == '["i1","Café\\n","x"]'
    assert pair_key((None, "p", "t")) == '[null,"p","t"]'


def test_nan_and_infinity_are_null() -> None:
    assert compact({"a": math.nan, "b": [math.inf, -math.inf, 0.5]}) == (
        '{"a":null,"b":[null,null,0.5]}')


@pytest.mark.parametrize(("data", "text"), [
    ({1: "a", None: 2.5, 0.5: True}, '{"1":"a","null":2.5,"0.5":true}'),  # keys not str
    ([2 ** 70, -(2 ** 70)], f"[{2 ** 70},{-(2 ** 70)}]"),  # ints beyond 64 bits
    ({1: math.nan}, '{"1":null}'),  # fallback, and NaN in it
    ([True, 3], "[true,3]"),
])
def test_what_orjson_refuses_is_written_by_json(data: Any, text: str) -> None:
    assert compact(data) == text and script_json(data) == text


def test_lone_surrogates_stay_str_and_fail_only_when_encoded() -> None:
    out = utf8(["a\ud800"])
    assert out == '["a\ud800"]' and isinstance(out, str)
    gz = pagedata.Gzip()
    with pytest.raises(UnicodeEncodeError):
        gz.write(out)


def test_script_json_escapes_markup_in_both_forms() -> None:
    data = {"p": "</script><b>&amp;", "n": 1}
    expected = '{"p":"\\u003c/script\\u003e\\u003cb\\u003e\\u0026amp;","n":1}'
    assert script_json(data) == expected
    assert script_utf8(data) == expected.encode("utf-8")
    assert script_utf8({1: "<"}) == '{"1":"\\u003c"}'  # the fallback's str, escaped too
    assert json.loads(script_json(data)) == data
