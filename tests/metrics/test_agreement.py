"""κ, ROC-AUC, PR-AUC, Spearman and Pearson against scikit-learn and scipy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import average_precision_score, cohen_kappa_score, roc_auc_score

from metrics import cohen_kappa, kappa_from_counts, pearson, pr_auc, roc_auc, spearman


def test_kappa_by_hand() -> None:
    # TP 20, FP 5, FN 10, TN 15 (N 50): po = 0.7, pe = (25·30 + 25·20)/2500 = 0.5, κ = 0.4
    assert kappa_from_counts(20, 5, 10, 15) == pytest.approx(0.4)
    assert np.isnan(kappa_from_counts(3, 0, 0, 0))


labels = st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("abc")), min_size=1,
                  max_size=30)


@settings(max_examples=200, deadline=None)
@given(labels)
def test_kappa_agrees_with_sklearn(pairs: list[tuple[str, str]]) -> None:
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = cohen_kappa_score(a, b)
    got = cohen_kappa(a, b)
    if np.isnan(expected):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(expected, abs=1e-12)


binary_scored = st.lists(st.tuples(st.booleans(), st.sampled_from([0.0, 0.1, 0.5, 0.7, 0.9, 1.0])
                                   | st.floats(0, 1)), min_size=2, max_size=40).filter(
    lambda xs: 0 < sum(y for y, _ in xs) < len(xs))


@settings(max_examples=300, deadline=None)
@given(binary_scored)
def test_auc_and_ap_agree_with_sklearn(xs: list[tuple[bool, float]]) -> None:
    y = [a for a, _ in xs]
    s = [b for _, b in xs]
    assert roc_auc(y, s) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert pr_auc(y, s) == pytest.approx(average_precision_score(y, s), abs=1e-12)


weighted_scored = st.lists(st.tuples(st.booleans(), st.sampled_from([0.0, 0.5, 0.7, 1.0])
                                     | st.floats(0, 1),
                                     st.sampled_from([0.0, 0.5, 1.0, 3.0]) | st.floats(0, 50)),
                           min_size=2, max_size=40).filter(
    lambda xs: sum(w for y, _, w in xs if y) > 0 and sum(w for y, _, w in xs if not y) > 0)


@settings(max_examples=300, deadline=None)
@given(weighted_scored)
@example([(False, 0.0, 0.0), (False, 0.0, 5e-324), (True, 0.0, 0.5)])  # a subnormal total
def test_weighted_auc_and_ap_agree_with_sklearn(xs: list[tuple[bool, float, float]]) -> None:
    # inverse-probability weights of a stratified sample (calibrate --pool): ties and zero
    # weights included; sklearn's sample_weight is the reference
    y, s, w = ([x[k] for x in xs] for k in range(3))
    assert roc_auc(y, s, w) == pytest.approx(roc_auc_score(y, s, sample_weight=w), abs=1e-9)
    assert pr_auc(y, s, w) == pytest.approx(
        average_precision_score(y, s, sample_weight=w), abs=1e-9)


def test_bad_weights_are_errors() -> None:
    with pytest.raises(ValueError, match="sample_weight: one class has a total weight of 0"):
        roc_auc([0, 1, 1], [0.1, 0.5, 0.9], sample_weight=[0, 1, 1])
    with pytest.raises(ValueError, match="sample_weight: expected finite values >= 0"):
        pr_auc([0, 1], [0.1, 0.9], sample_weight=[1, -1])
    with pytest.raises(ValueError, match="same length"):
        roc_auc([0, 1], [0.1, 0.9], sample_weight=[1, 1, 1])


def test_one_class_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"only one class.*undefined"):
        roc_auc([1, 1, 1], [0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match="only one class"):
        pr_auc([0, 0], [0.2, 0.3])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=3, max_size=30))
def test_correlations_agree_with_scipy(xs: list[tuple[float, float]]) -> None:
    a = [x for x, _ in xs]
    b = [y for _, y in xs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rho = stats.spearmanr(a, b).statistic
        r = stats.pearsonr(a, b).statistic if len(set(a)) > 1 and len(set(b)) > 1 else np.nan
    for got, exp in ((spearman(a, b), rho), (pearson(a, b), r)):
        if np.isnan(exp):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(exp, abs=1e-9)


def test_correlation_by_hand_and_errors() -> None:
    assert pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert np.isnan(pearson([1, 1, 1], [1, 2, 3]))
    with pytest.raises(ValueError, match="same length"):
        spearman([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match=r"x\[1\]: expected a number"):
        pearson([1, "a", 2], [1, 2, 3])
