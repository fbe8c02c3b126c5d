"""Krippendorff's α against the krippendorff package; bootstrap and stratified folds."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from metrics import bootstrap_indices, krippendorff_alpha, percentile_ci, stratified_folds


def test_alpha_by_hand_nominal() -> None:
    # 2 raters, 4 units: agree on 3 (1,1), (0,0), (1,1); disagree on one (1,0).
    # values: 1,1,0,0,1,1,1,0 → n = 8, n_1 = 5, n_0 = 3
    # D_o = (1/8)·Σ_u S_u/(m_u−1) = (1/8)·2 = 0.25  (only the disagreeing unit: 2 ordered pairs)
    # D_e = (8² − 5² − 3²)/(8·7) = 30/56;  α = 1 − 0.25·56/30 = 1 − 14/30
    data = [[1, 0, 1, 1], [1, 0, 1, 0]]
    assert krippendorff_alpha(data, "nominal") == pytest.approx(1 - 14 / 30)


reliability = st.integers(2, 4).flatmap(lambda r: st.integers(2, 12).flatmap(
    lambda u: arrays(np.float64, (r, u), elements=st.one_of(
        st.sampled_from([0.0, 1.0, 2.0, 3.0]), st.just(np.nan)))))


@settings(max_examples=200, deadline=None)
@given(reliability, st.sampled_from(["nominal", "interval"]))
def test_alpha_agrees_with_krippendorff_package(data: np.ndarray, level: str) -> None:
    ours = krippendorff_alpha(data, level)
    pairable = sum(int((~np.isnan(col)).sum() >= 2) for col in data.T)
    values = np.concatenate([c[~np.isnan(c)] for c in data.T if (~np.isnan(c)).sum() >= 2]) \
        if pairable else np.array([])
    if pairable == 0 or np.unique(values).size < 2:
        assert np.isnan(ours)  # undefined: nothing pairable or no variation
        return
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert ours == pytest.approx(ref, abs=1e-9)


def test_alpha_interval_continuous_scores() -> None:
    rng = np.random.default_rng(0)
    truth = rng.random(50)
    data = np.vstack([truth + rng.normal(0, 0.05, 50), truth + rng.normal(0, 0.05, 50)])
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    assert krippendorff_alpha(data) == pytest.approx(ref, abs=1e-9)
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha(data, "ratio")


def test_bootstrap_and_percentiles() -> None:
    idx = bootstrap_indices(5, 3, seed=1)
    assert idx.shape == (3, 5) and idx.min() >= 0 and idx.max() <= 4
    assert (bootstrap_indices(5, 3, seed=1) == idx).all()  # reproducible
    lo, hi = percentile_ci(np.arange(101), 0.9)  # 5th and 95th percentiles of 0..100
    assert (lo, hi) == pytest.approx((5.0, 95.0))
    assert np.isnan(percentile_ci([np.nan])[0])


def test_stratified_folds_partition_and_balance() -> None:
    y = [1] * 10 + [0] * 20
    folds = stratified_folds(y, 5, seed=3)
    assert sorted(np.concatenate(folds).tolist()) == list(range(30))
    assert [int(np.isin(f, range(10)).sum()) for f in folds] == [2, 2, 2, 2, 2]
    with pytest.raises(ValueError, match="folds"):
        stratified_folds([1, 0, 0], 2)
