"""BFCL's Java/JavaScript value conversion (metrics.fc_convert) and the checker's official
rules, on small inputs derived by hand from the official behaviour (gorilla de8307b4,
eval_checker/java_type_converter.py, js_type_converter.py, checker.py)."""

from __future__ import annotations

import pytest

from metrics.fc_check import check_call, check_item, names_match
from metrics.fc_convert import UnsupportedType, java_value, js_value


@pytest.mark.parametrize(("text", "declared", "element", "expected"), [
    ("42", "integer", None, 42),
    ("-7", "short", None, -7),
    ("4.0", "integer", None, "4.0"),      # not ^-?\d+$: kept as text
    ("3.5f", "float", None, 3.5),
    ("3.5", "float", None, "3.5"),        # a Java float needs its f suffix
    ("2e3F", "float", None, 2000.0),
    ("3.5", "double", None, 3.5),
    ("3.5d", "double", None, "3.5d"),
    ("9L", "long", None, 9),
    ("9", "long", None, "9"),             # a long needs its L suffix
    ("true", "boolean", None, True),
    ("True", "boolean", None, "True"),
    ("'a'", "char", None, "'a'"),         # the official ^'.$' pattern never matches
    ("x", "any", None, "x"),
    ("new int[]{1, 2}", "Array", "integer", [1, 2]),
    ("new long[]{1L, 2}", "Array", "long", [1, "2"]),
    ("new String[]{\"a\", \"b\"}", "Array", "String", ['"a"', '"b"']),  # Array keeps quotes
    ("new int[]{}", "Array", "integer", []),
    ("{1, 2}", "Array", "integer", "{1, 2}"),
    ('new ArrayList<>(Arrays.asList("a", "b"))', "ArrayList", "String", ["a", "b"]),
    ("new ArrayList<Integer>() {{ add(1); add(2); }}", "ArrayList", "integer", [1, 2]),
    ("new ArrayList<>()", "ArrayList", "String", []),
    ('new HashMap<String, Object>() {{ put("k", 1); put("s", "v"); }}', "HashMap", None,
     {"k": 1, "s": "v"}),
    ("new HashMap<>()", "HashMap", None, {}),
])
def test_java_values_convert_as_bfcl_does(text: str, declared: str, element: str | None,
                                          expected: object) -> None:
    got = java_value(text, declared, element)
    assert got == expected and type(got) is type(expected)


def test_java_types_bfcl_does_not_convert_raise() -> None:
    for declared in ("Set", "Hashtable", "Queue", "Stack", "Object"):
        with pytest.raises(UnsupportedType):
            java_value("x", declared)


@pytest.mark.parametrize(("text", "declared", "element", "expected"), [
    ("'abc'", "String", None, "abc"),
    ('"abc"', "String", None, "abc"),
    ("abc", "String", None, "abc"),
    ("12", "integer", None, 12),
    ("1.5", "float", None, 1.5),
    ("1e3", "float", None, "1e3"),       # only ^-?\d+(\.\d+)?$ is a float
    ("12n", "Bigint", None, 12),
    ("false", "Boolean", None, False),
    ("[1, 'b', true]", "array", None, [1, "b", True]),
    ("[1, 2]", "array", "integer", [1, 2]),
    ("['1', 2]", "array", "integer", ["'1'", 2]),   # quoted element: kept with its quotes
    ("['a', 'b']", "array", "String", ["a", "b"]),
    ("[[1, 2], [3]]", "array", None, [[1, 2], [3]]),
    ("new Array(1, 2)", "array", None, [1, 2]),
    ("{}", "dict", None, {}),
    ("{a: 1, 'b': 'x'}", "dict", None, {"a": 1, "b": "x"}),
    # the official pattern \{(.*?)\} stops at the first }: a nested object is cut there
    ("{k: [1, 2], n: {m: true}}", "dict", None, {"k": [1, 2], "n": "{m: true"}),
    ("x", "any", None, "x"),
])
def test_js_values_convert_as_bfcl_does(text: str, declared: str, element: str | None,
                                        expected: object) -> None:
    assert js_value(text, declared, element) == expected


JAVA_SCHEMA = {"name": "Geo.area", "parameters": {"properties": {
    "scale": {"type": "float"}, "ids": {"type": "Array", "items": {"type": "integer"}},
    "label": {"type": "String"}}, "required": ["scale"]}}


def test_java_calls_are_checked_after_conversion() -> None:
    gold = {"scale": [2.5], "ids": [[1, 2], ""], "label": ["", "main"]}
    ok = check_call({"Geo.area": {"scale": "2.5f", "ids": "new int[]{1, 2}"}}, gold,
                    JAVA_SCHEMA, language="java")
    assert ok.valid
    # "2.5" has no f suffix: it stays the string "2.5", not a float
    assert check_call({"Geo.area": {"scale": "2.5"}}, gold, JAVA_SCHEMA,
                      language="java").error_type == "type_mismatch"
    # Java values are source text: a JSON number is a type error
    assert check_call({"Geo.area": {"scale": 2.5}}, gold, JAVA_SCHEMA,
                      language="java").error_type == "type_mismatch"


SCHEMA = {"name": "cards.deal", "parameters": {"properties": {
    "deck": {"type": "array", "items": {"type": "string"}}, "n": {"type": "float"},
    "flag": {"type": "boolean"}}, "required": []}}


def test_an_empty_list_matches_the_omittable_value() -> None:
    # list_checker reads the acceptable "" as the list of its characters: []
    assert check_call({"cards.deal": {"deck": []}}, {"deck": [""]}, SCHEMA).valid
    assert not check_call({"cards.deal": {"deck": ["x"]}}, {"deck": [""]}, SCHEMA).valid


def test_python_ints_become_floats_but_bools_do_not() -> None:
    assert check_call({"cards.deal": {"n": 2}}, {"n": [2.0]}, SCHEMA).valid
    # type(True) is bool, not int: no conversion, and bool is not float
    assert check_call({"cards.deal": {"n": True}}, {"n": [1.0]},
                      SCHEMA).error_type == "type_mismatch"
    # a tuple is not an array: BFCL converts tuples only for tuple parameters
    assert check_call({"cards.deal": {"deck": ("a",)}}, {"deck": [["a"]]},
                      SCHEMA).error_type == "type_mismatch"


def test_name_rules() -> None:
    gold = {"flag": [True]}
    call = {"cards_deal": {"flag": True}}
    assert check_call(call, gold, SCHEMA).valid                      # either
    assert not check_call(call, gold, SCHEMA, names="exact").valid
    assert check_call(call, gold, SCHEMA, names="underscore").valid
    assert not check_call({"cards.deal": {"flag": True}}, gold, SCHEMA,
                          names="underscore").valid
    assert names_match("a.b.c", "a.b.c", "exact")


def test_official_order_of_checks_against_optimal_matching() -> None:
    # gold 0 accepts n=1 or n=2, gold 1 only n=1; predictions n=1, n=2 in that order.
    # BFCL: gold 0 takes the first valid prediction (n=1), gold 1 finds none left.
    gold = {"cards.deal": {"n": [1.0, 2.0]}, "cards.deal_1": {"n": [1.0]}}
    pred = [{"cards.deal": {"n": 1.0}}, {"cards.deal": {"n": 2.0}}]
    official = check_item(pred, gold, [SCHEMA], matching="official")
    optimal = check_item(pred, gold, [SCHEMA], matching="optimal")
    assert (official.correct, optimal.correct) == (False, True)
    assert [(g, p) for g, p, _ in optimal.pairs] == [(0, 1), (1, 0)]
    # in the other order both find it
    assert check_item(pred[::-1], gold, [SCHEMA], matching="official").correct
    with pytest.raises(ValueError, match="unknown matching"):
        check_item(pred, gold, [SCHEMA], matching="greedy")
