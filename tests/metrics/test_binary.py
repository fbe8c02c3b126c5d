"""binary_scores against scikit-learn, fixed and generated (hypothesis)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, precision_recall_fscore_support

from metrics import binary_scores


def test_fixed_example_by_hand() -> None:
    # y_true = T T T F F F, y_pred = T T F T F F → TP=2 FN=1 FP=1 TN=2
    s = binary_scores([1, 1, 1, 0, 0, 0], [True, True, False, True, False, False])
    assert (s.tp, s.fn, s.fp, s.tn) == (2, 1, 1, 2)
    assert s.accuracy == pytest.approx(4 / 6)
    assert s.precision == pytest.approx(2 / 3)
    assert s.recall == pytest.approx(2 / 3)
    assert s.f1 == pytest.approx(2 * 2 / (2 * 2 + 1 + 1))


def _sklearn(y_true: list[bool], y_pred: list[bool], zd: float) -> tuple[float, ...]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p, r, f, _ = precision_recall_fscore_support(
            y_true, y_pred, average="binary", pos_label=True, labels=[False, True],
            zero_division=zd)
    return accuracy_score(y_true, y_pred), p, r, f


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=40),
       st.sampled_from([0.0, 1.0]))
def test_agrees_with_sklearn(pairs: list[tuple[bool, bool]], zd: float) -> None:
    y_true = [a for a, _ in pairs]
    y_pred = [b for _, b in pairs]
    s = binary_scores(y_true, y_pred, zero_division=zd)
    acc, p, r, f = _sklearn(y_true, y_pred, zd)
    assert s.accuracy == pytest.approx(acc, abs=1e-12)
    assert s.precision == pytest.approx(p, abs=1e-12)
    assert s.recall == pytest.approx(r, abs=1e-12)
    assert s.f1 == pytest.approx(f, abs=1e-12)


def test_zero_division_nan() -> None:
    s = binary_scores([False, False], [False, False], zero_division=float("nan"))
    assert np.isnan(s.precision) and np.isnan(s.recall) and np.isnan(s.f1)
    assert s.accuracy == 1.0


@pytest.mark.parametrize(
    ("y_true", "y_pred", "message"),
    [
        ([1, 0, 1], [1, 0], "same length"),
        ([1, 0, 2], [1, 0, 1], r"y_true\[2\]"),
        ([1, 0, 1], [True, "yes", False], r"y_pred\[1\]"),
        ([1, 0, None], [1, 0, 1], r"y_true\[2\]"),
    ],
)
def test_bad_input_names_argument_and_index(y_true: list, y_pred: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        binary_scores(y_true, y_pred)


def test_bad_zero_division() -> None:
    with pytest.raises(ValueError, match="zero_division"):
        binary_scores([1], [1], zero_division=0.5)


@pytest.mark.parametrize(("y", "yhat"), [
    ([1, 1, 0, 0, 1], [1, 0, 0, 1, 1]),  # by hand: TP 2 (0, 4), FP 1 (3), FN 1 (1), TN 1 (2)
    ([1, 1, 1], [1, 1, 1]),              # one class: TP 3, the rest 0
    ([0, 0, 1, 0], [1, 1, 0, 0]),        # TP 0, FP 2, FN 1, TN 1
])
def test_confusion_has_one_order_and_matches_sklearn_by_name(y: list[int],
                                                            yhat: list[int]) -> None:
    from sklearn.metrics import confusion_matrix

    from metrics import Confusion, confusion_counts, scores_from_counts

    tn, fp, fn, tp = confusion_matrix(y, yhat, labels=[0, 1]).ravel()  # sklearn's order
    c = confusion_counts(y, yhat)
    assert isinstance(c, Confusion)
    assert (c.tp, c.fp, c.fn, c.tn) == (tp, fp, fn, tn)
    assert c == Confusion.at([float(v) for v in yhat], [bool(v) for v in y], 0.5)
    s = scores_from_counts(*c)  # the same order in and out
    assert s.confusion == c
    assert {k: v for k, v in s.to_dict().items() if k in ("tp", "fp", "fn", "tn")} == c._asdict()
    if y == [1, 1, 0, 0, 1]:
        assert c == Confusion(tp=2, fp=1, fn=1, tn=1)
