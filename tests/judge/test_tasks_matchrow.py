"""row_fields: a 1×1 matrix matched directly gives match_row's row (fuzzy_match's numbers),
key for key and byte for byte; input fuzzy_match refuses is refused with its error."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.matrix import CellVerdict, SimilarityMatrix
from judge.record.atomic import dumps, dumps_each
from judge.record.itemrows import SelectionRow
from judge.tasks.matchrow import match_row, row_fields
from metrics import aggregate_fuzzy, normalize

NAN = float("nan")


def one(p: str, t: str, s: float, verdict: CellVerdict | None = None,
        human: CellVerdict | None = None) -> SimilarityMatrix:
    """A 1×1 matrix as judge.matrix builds it (exact when the normalised strings are equal)."""
    lookup = {} if verdict is None else {(None, (p, t)): verdict}
    m = SimilarityMatrix((p,), (t,), np.array([[s]]),
                         np.array([[normalize(p) == normalize(t)]]), lookup)
    if human is not None:
        m.overridden[(0, 0)] = human
    return m


def same_row(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert list(a) == list(b)
    assert json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)
    assert a == b


@settings(max_examples=300, deadline=None)
@given(p=st.sampled_from(["Employee", "职位信息", "enable X", ""]),
       same=st.booleans(),
       s=st.one_of(st.sampled_from([NAN, 0.0, 0.7, math.nextafter(0.7, 1.0), 1.0]),
                   st.floats(0.0, 1.0)),
       tau=st.one_of(st.sampled_from([0.0, 0.7, 1.0]), st.floats(0.0, 1.0)),
       zd=st.sampled_from([0.0, 1.0, NAN]),
       judged=st.sampled_from(["none", "verdict", "human"]),
       query=st.booleans())
def test_a_1x1_matrix_gives_match_rows_row(p: str, same: bool, s: float, tau: float,
                                           zd: float, judged: str, query: bool) -> None:
    t = f" {p.upper()} " if same else "Job Information"
    v = CellVerdict(s, "ok", "judge-a") if judged != "none" else None
    m = one(p, t, s, v, CellVerdict(s, "ok", "human") if judged == "human" else None)
    head = {"id": "7", "source": "f.jsonl:8", **({"query": "q"} if query else {})}
    fast = row_fields(m, tau, zd, head)
    same_row(fast, match_row(m, tau, zd, head)[1])
    assert list(fast)[:len(head)] == list(head)
    same_row(row_fields(m, tau, zd), match_row(m, tau, zd)[1])


def test_the_three_outcomes_by_hand() -> None:
    exact = row_fields(one("Employee", "employee ", 1.0), 0.7)
    assert (exact["n_exact"], exact["tp_fuzzy"], exact["f1"]) == (1, 1.0, 1.0)
    assert exact["matches"] == [{"pred_index": 0, "truth_index": 0, "pred": "Employee",
                                 "truth": "employee ", "score": 1.0, "exact": True,
                                 "judge_id": None}]
    fuzzy = row_fields(one("职位信息", "Job Information", 0.9,
                           CellVerdict(0.9, "ok", "local")), 0.7)
    assert (fuzzy["n_exact"], fuzzy["tp_fuzzy"], fuzzy["precision"]) == (0, 0.9, 0.9)
    assert fuzzy["matches"][0]["judge_id"] == "local"
    assert fuzzy["unmatched_pred"] == fuzzy["unmatched_truth"] == []
    none = row_fields(one("Payroll", "Job Information", NAN), 0.7)
    assert (none["tp_fuzzy"], none["f1"], none["cells_without_verdict"]) == (0.0, 0.0, 1)
    assert none["scores"] == [[None]]
    assert (none["unmatched_pred"], none["unmatched_truth"]) == (["Payroll"],
                                                                 ["Job Information"])


@pytest.mark.parametrize(("m", "tau", "zd", "message"), [
    (one("a", "b", 1.5), 0.7, 0.0, r"sim\[0, 0\]: score 1.5 is outside \[0, 1\]"),
    (one("a", "b", -0.25), 0.7, 0.0, r"sim\[0, 0\]: score -0.25 is outside \[0, 1\]"),
    (one("a", "b", 0.5), 1.5, 0.0, r"tau: expected a threshold in \[0, 1\], got 1.5"),
    (one("a", "b", 0.5), 0.7, 0.5, r"zero_division: expected 0.0, 1.0 or nan, got 0.5"),
    (SimilarityMatrix((1,), ("b",), np.array([[0.5]]), np.array([[False]])),  # type: ignore[arg-type]
     0.7, 0.0, r"pred\[0\]: expected str, got int 1"),
])
def test_refused_input_is_refused_as_fuzzy_match_does(m: SimilarityMatrix, tau: float,
                                                      zd: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        match_row(m, tau, zd)
    with pytest.raises(ValueError, match=message):
        row_fields(m, tau, zd)


def test_the_rows_aggregate_as_the_results_do() -> None:
    ms = [one("a", "A", 1.0), one("x", "y", 0.8, CellVerdict(0.8, "ok", "j")),
          one("x", "z", 0.3), one("u", "v", NAN)]
    results = [match_row(m, 0.7)[0] for m in ms]
    rows = [SelectionRow.model_validate({"id": str(k), **row_fields(m, 0.7)})
            for k, m in enumerate(ms)]
    assert aggregate_fuzzy(rows) == aggregate_fuzzy(results)
    assert aggregate_fuzzy(rows).micro_precision == pytest.approx(1.8 / 4)


def test_dumps_each_is_dumps_of_each() -> None:
    objs: list[Any] = [
        {"id": "1", "s": "职位\u2028信息\n\"q\"", "x": [1, 2.5, NAN, float("inf"), None, True]},
        {"nested": {"a": [{"b": 0.1 + 0.2}]}, "arr": np.array([[0.25, 1.0]])},
        SelectionRow(id="r", n_pred=1, n_truth=1, n_exact=0, tp_fuzzy=0.0, precision=0.0,
                     recall=0.0, f1=0.0),
        "plain", 3, [],
    ]
    assert list(dumps_each(objs)) == [dumps(o) for o in objs]
    assert list(dumps_each([])) == []
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        list(dumps_each([{"a": 1}, loop]))
