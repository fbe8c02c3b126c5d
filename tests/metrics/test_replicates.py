"""ROC-AUC and average precision of bootstrap replicates from counted draws
(:mod:`metrics.replicates`) against scikit-learn's ``roc_auc_score`` and
``average_precision_score`` with ``sample_weight``, and against the sorted computation of
:func:`metrics.roc_auc` / :func:`metrics.pr_auc` on the resampled pairs themselves."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from metrics import auc_replicates, bootstrap_indices, counts_per_resample, pr_auc, roc_auc


def _data(n: int, decimals: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """n labelled scores; rounding to ``decimals`` makes ties (1 decimal: at most 11 values)."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    s = np.round(np.clip(rng.normal(0.4 + 0.3 * y, 0.2), 0, 1), decimals)
    return y, s


@pytest.mark.parametrize(("n", "decimals", "seed"), [(6, 1, 0), (40, 1, 1), (300, 2, 2),
                                                     (1000, 6, 3)])
def test_replicates_equal_sklearn_with_multiplicities_as_weights(n: int, decimals: int,
                                                                 seed: int) -> None:
    y, s = _data(n, decimals, seed)
    idx = bootstrap_indices(n, 40, seed)
    roc, ap = auc_replicates(y, s, idx)
    undefined = 0
    for b, i in enumerate(idx):
        w = np.bincount(i, minlength=n)
        if not (w[y].sum() and w[~y].sum()):  # one class drawn: both undefined
            assert math.isnan(roc[b]) and math.isnan(ap[b])
            undefined += 1
            continue
        assert roc[b] == pytest.approx(roc_auc_score(y, s, sample_weight=w), abs=1e-12)
        assert ap[b] == pytest.approx(average_precision_score(y, s, sample_weight=w), abs=1e-12)
    # 6 pairs, 30 % positive: some replicates draw one class only (checked above)
    assert (undefined > 0) == (n == 6)


@pytest.mark.parametrize(("n", "decimals", "seed"), [(8, 1, 4), (120, 1, 5), (500, 3, 6)])
def test_replicates_equal_the_sorted_metrics_of_the_resampled_pairs(n: int, decimals: int,
                                                                    seed: int) -> None:
    y, s = _data(n, decimals, seed)
    idx = bootstrap_indices(n, 150, seed)
    roc, ap = auc_replicates(y, s, idx)
    for b, i in enumerate(idx):
        if y[i].all() or not y[i].any():
            assert math.isnan(roc[b]) and math.isnan(ap[b])
            continue
        assert abs(roc[b] - roc_auc(y[i], s[i])) <= 1e-12
        assert abs(ap[b] - pr_auc(y[i], s[i])) <= 1e-12


def test_many_resamples_in_several_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    # a pass holds at most _CELLS replicates × score groups: 11 groups, passes of 2 resamples
    y, s = _data(300, 1, 10)
    idx = bootstrap_indices(300, 25, 10)
    whole = auc_replicates(y, s, idx)
    monkeypatch.setattr("metrics.replicates._CELLS", 25)
    parts = auc_replicates(y, s, idx)
    assert len(np.unique(s)) <= 11
    for w, p in zip(whole, parts, strict=True):
        assert np.array_equal(w, p, equal_nan=True)


def test_counts_per_resample_count_each_draw() -> None:
    idx = bootstrap_indices(7, 50, 9)
    codes = np.array([0, 2, 1, 1, 0, 2, 2])
    counts = counts_per_resample(idx, codes, 3)
    assert counts.shape == (50, 3)
    for row, i in zip(counts, idx, strict=True):
        assert row.tolist() == np.bincount(codes[i], minlength=3).tolist()


@pytest.mark.parametrize(("indices", "codes", "n_codes", "name"), [
    ([[0, 3]], [0, 1, 1], 2, "indices"), ([[-1, 0]], [0, 1, 1], 2, "indices"),
    ([0, 1], [0, 1, 1], 2, "indices"), ([[0.0, 1.0]], [0, 1, 1], 2, "indices"),
    ([[0, 1]], [0, 2, 1], 2, "codes"), ([[0, 1]], [[0, 1]], 2, "codes"),
    ([[0, 1]], [0.0, 1.0], 2, "codes")])
def test_counts_per_resample_reject_bad_input(indices: list, codes: list, n_codes: int,
                                              name: str) -> None:
    with pytest.raises(ValueError, match=name):
        counts_per_resample(indices, codes, n_codes)


def test_auc_replicates_reject_indices_past_the_pairs() -> None:
    with pytest.raises(ValueError, match=r"indices: .*\[0, 2\]"):
        auc_replicates([0, 1, 1], [0.1, 0.2, 0.3], [[0, 3, 1]])
