"""Multi-label C-P/C-R/C-F1, O-P/O-R/O-F1, per-sample and F-β against scikit-learn."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics import fbeta_score, precision_recall_fscore_support

from metrics import f_beta, multilabel_scores


def test_by_hand() -> None:
    y_true = [[1, 0, 1], [0, 1, 0]]
    y_pred = [[1, 1, 0], [0, 1, 0]]
    s = multilabel_scores(y_true, y_pred)
    # class 0: P 1/1 R 1/1; class 1: P 1/2 R 1/1; class 2: never predicted → P 0, R 0/1
    assert s.cp == pytest.approx((1 + 0.5 + 0) / 3)
    assert s.cr == pytest.approx((1 + 1 + 0) / 3)
    assert s.cf1 == pytest.approx(2 * s.cp * s.cr / (s.cp + s.cr))
    # overall: 2 correct of 3 predicted, of 3 gold
    assert (s.op, s.or_, s.of1) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    # samples: s0 P 1/2 R 1/2; s1 P 1 R 1
    assert s.sample_precision == pytest.approx(0.75)
    assert s.to_dict()["or"] == s.or_


def _sk(t: np.ndarray, p: np.ndarray, avg: str, zd: float) -> tuple[float, float, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pr, rc, f, _ = precision_recall_fscore_support(t, p, average=avg, zero_division=zd)
    return float(pr), float(rc), float(f)


# at least 2 classes: scikit-learn treats a single column as a binary task
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 8).flatmap(lambda n: st.integers(2, 5).flatmap(
    lambda c: st.tuples(arrays(np.int8, (n, c), elements=st.integers(0, 1)),
                        arrays(np.int8, (n, c), elements=st.integers(0, 1))))),
       st.sampled_from([0.0, 1.0]), st.sampled_from([0.5, 1.0, 2.0]))
def test_agrees_with_sklearn(pair: tuple[np.ndarray, np.ndarray], zd: float,
                             beta: float) -> None:
    t, p = pair
    s = multilabel_scores(t, p, beta=beta, zero_division=zd)
    mp, mr, _ = _sk(t, p, "macro", zd)
    assert (s.cp, s.cr) == pytest.approx((mp, mr), abs=1e-12)
    assert (s.op, s.or_, s.of1) == pytest.approx(_sk(t, p, "micro", zd), abs=1e-12)
    assert (s.sample_precision, s.sample_recall, s.sample_f1) == pytest.approx(
        _sk(t, p, "samples", zd), abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert s.of_beta == pytest.approx(
            fbeta_score(t, p, beta=beta, average="micro", zero_division=zd), abs=1e-12)
        assert s.sample_f_beta == pytest.approx(
            fbeta_score(t, p, beta=beta, average="samples", zero_division=zd), abs=1e-12)


def test_f_beta_formula() -> None:
    # (1 + 4)·0.5·1 / (4·0.5 + 1) = 2.5 / 3
    assert f_beta(0.5, 1.0, beta=2.0) == pytest.approx(2.5 / 3)
    assert f_beta(0.5, 1.0) == pytest.approx(2 / 3)
    assert f_beta(0.0, 0.0) == 0.0
    with pytest.raises(ValueError, match="beta"):
        f_beta(0.5, 0.5, beta=0)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match=r"y_pred\[1, 2\]: expected 0 or 1, got 2"):
        multilabel_scores([[1, 0, 1], [0, 1, 0]], [[1, 0, 1], [0, 1, 2]])
    with pytest.raises(ValueError, match="same shape"):
        multilabel_scores([[1, 0]], [[1, 0, 1]])
    with pytest.raises(ValueError, match="2-D"):
        multilabel_scores([1, 0], [1, 0])
