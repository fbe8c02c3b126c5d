"""BFCL-rule call checking: types, values, optional parameters, and optimal parallel matching."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import check_call, check_item, standardize_string
from metrics.fc_check import EXHAUSTIVE_UP_TO, find_schema, max_weight_assignment

AREA = {"name": "calc.area", "parameters": {"type": "dict", "properties": {
    "interval": {"type": "array", "items": {"type": "float"}},
    "base": {"type": "float"}, "unit": {"type": "string"}, "n": {"type": "integer"}},
    "required": ["base"]}}


def test_standardize_string() -> None:
    assert standardize_string("San Diego, CA") == standardize_string("san diego ca")
    assert standardize_string("April 1, 2024") == standardize_string("April 1 2024")
    assert standardize_string("it's") == 'it"s'


def test_types_values_and_optional() -> None:
    gold = {"base": [10.0], "unit": ["units", ""], "n": ["", 3]}
    # int for a float parameter is converted; dots may come back as underscores; an optional
    # parameter may be omitted
    assert check_call({"calc_area": {"base": 10}}, gold, AREA).valid
    assert check_call({"calc.area": {"base": 10.0, "unit": "UNITS"}}, gold, AREA).valid
    r = check_call({"calc.area": {"base": 10.0, "unit": "meters"}}, gold, AREA)
    assert (r.valid, r.error_type) == (False, "value_mismatch")
    assert check_call({"calc.area": {"unit": "units"}}, gold, AREA).error_type == "missing_required"
    assert check_call({"calc.area": {"base": 10, "colour": "red"}}, gold,
                      AREA).error_type == "unexpected_param"
    assert check_call({"area": {"base": 10}}, gold, AREA).error_type == "wrong_name"
    assert check_call({"calc.area": {"base": "ten"}}, gold, AREA).error_type == "type_mismatch"
    # a non-optional gold parameter that was not given
    r = check_call({"calc.area": {"base": 10}}, {"base": [10.0], "n": [3]}, AREA)
    assert r.error_type == "missing_optional"


def test_nested_array_types_as_bfcl() -> None:
    gold_float = {"base": [1.0], "interval": [[1.0, 3.0]]}
    # an int inside an array declared as float is a type error (BFCL simple_13)…
    r = check_call({"calc.area": {"base": 1.0, "interval": [1, 3]}}, gold_float, AREA)
    assert r.error_type == "type_mismatch"
    assert check_call({"calc.area": {"base": 1.0, "interval": [1.0, 3.0]}}, gold_float,
                      AREA).valid
    # …unless the gold itself uses ints (the "variable" case)
    assert check_call({"calc.area": {"base": 1.0, "interval": [1, 3]}},
                      {"base": [1.0], "interval": [[1, 3]]}, AREA).valid


def test_schema_lookup_with_suffixes() -> None:
    schemas = [{"name": "circle.area"}, {"name": "circle.calculate_circumference"}]
    assert find_schema(schemas, "circle.calculate_circumference_1")["name"] == (
        "circle.calculate_circumference")
    assert find_schema(schemas, "square.area") is None


PLAY = {"name": "play", "parameters": {"properties": {"x": {"type": "integer"}},
                                       "required": ["x"]}}


def _greedy(pred: list, gold: dict, schemas: list) -> bool:
    """BFCL's matcher: gold entries in order, each takes the first valid unused prediction."""
    used: set[int] = set()
    for name, params in gold.items():
        schema = find_schema(schemas, name)
        for k, p in enumerate(pred):
            if k not in used and check_call(p, params, schema).valid:
                used.add(k)
                break
        else:
            return False
    return True


def test_optimal_matching_succeeds_where_greedy_fails() -> None:
    # gold play_1 accepts x = 1 or 2, gold play_2 only x = 1. Greedy gives the model's x = 1
    # to play_1 and has only x = 2 left for play_2; the assignment play_1 ↔ x=2, play_2 ↔ x=1
    # satisfies both.
    gold = {"play_1": {"x": [1, 2]}, "play_2": {"x": [1]}}
    pred = [{"play": {"x": 1}}, {"play": {"x": 2}}]
    assert _greedy(pred, gold, [PLAY]) is False
    r = check_item(pred, gold, [PLAY])
    assert r.correct and sorted((g, p) for g, p, _ in r.pairs) == [(0, 1), (1, 0)]


def test_item_counts_and_order_free() -> None:
    gold = {"play_1": {"x": [1]}, "play_2": {"x": [2]}}
    assert check_item([{"play": {"x": 2}}, {"play": {"x": 1}}], gold, [PLAY]).correct
    assert check_item([{"play": {"x": 1}}], gold, [PLAY]).error_type == "wrong_count"
    assert check_item([{"play": {"x": 1}}, {"play": {"x": 1}}], gold,
                      [PLAY]).error_type == "value_mismatch"
    assert check_item([{"play": {"x": 1}}, {"play": {"x": 2}}], {"play": {"x": [1]}}, [PLAY],
                      single=True).error_type == "wrong_count"


def test_semantic_string_equivalence_hook() -> None:
    sw = {"name": "switch", "parameters": {"properties": {"action": {"type": "string"}},
                                           "required": ["action"]}}
    gold = {"action": ["打开"]}
    assert not check_call({"switch": {"action": "开启"}}, gold, sw).valid
    same = {("开启", "打开")}
    r = check_call({"switch": {"action": "开启"}}, gold, sw,
                   string_equivalent=lambda a, b: (a, b) in same)
    assert r.valid


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=EXHAUSTIVE_UP_TO).flatmap(
    lambda n: st.lists(st.lists(st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 1.0, 2.0, 2.5, 3.0]),
                                min_size=n, max_size=n), min_size=n, max_size=n)))
def test_small_assignments_are_as_heavy_as_scipys(weight: list[list[float]]) -> None:
    """The exhaustive solver of small matrices reaches the total weight of scipy's
    linear_sum_assignment (the reference), with a permutation (each row and column once)."""
    from scipy.optimize import linear_sum_assignment

    rows, cols = max_weight_assignment(weight)
    assert sorted(rows) == sorted(cols) == list(range(len(weight)))
    r, c = linear_sum_assignment(np.array(weight), maximize=True)
    ours = sum(weight[i][j] for i, j in zip(rows, cols, strict=True))
    assert ours == pytest.approx(float(np.array(weight)[r, c].sum()), abs=1e-9)


def test_large_assignments_use_scipy() -> None:
    """Above EXHAUSTIVE_UP_TO the solver is scipy's: on a 7 × 7 matrix whose best assignment
    is the anti-diagonal (weight 7, every other assignment at most 6 by hand)."""
    n = EXHAUSTIVE_UP_TO + 1
    weight = [[1.0 if r + c == n - 1 else 0.0 for c in range(n)] for r in range(n)]
    assert max_weight_assignment(weight) == (list(range(n)), list(range(n - 1, -1, -1)))
