"""The bootstrap of τ̂ (:func:`judge.calibration.taubootstrap.bootstrap_taus`), computed for
all resamples from counted draws, gives resample by resample what :func:`metrics.sweep_arrays`
and :func:`metrics.best_index` give on the resampled pairs themselves (the reference loop
below), for every objective, with ties, one-class resamples and one-score resamples skipped."""

from __future__ import annotations

import numpy as np
import pytest

from judge.calibration.taubootstrap import bootstrap_taus
from metrics import OBJECTIVES, best_index, bootstrap_indices, sweep_arrays


def _reference(s: np.ndarray, y: np.ndarray, objective: str, n_boot: int,
               seed: int) -> tuple[list[float], list[float], int]:
    taus, objs, skipped = [], [], 0
    for idx in bootstrap_indices(len(s), n_boot, seed):
        sb, yb = s[idx], y[idx]
        if yb.all() or not yb.any() or np.unique(sb).size < 2:
            skipped += 1
            continue
        sw = sweep_arrays(sb, yb)
        try:
            j = best_index(sw[objective])
        except ValueError:
            skipped += 1
            continue
        taus.append(float(sw["tau"][j]))
        objs.append(float(sw[objective][j]))
    return taus, objs, skipped


def _data(n: int, decimals: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.35
    return np.round(np.clip(rng.normal(0.4 + 0.3 * y, 0.2), 0, 1), decimals), y


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize(("n", "decimals", "seed"), [(5, 1, 0), (60, 1, 1), (400, 3, 2)])
def test_bootstrap_taus_equal_the_sweep_of_each_resample(objective: str, n: int, decimals: int,
                                                         seed: int) -> None:
    s, y = _data(n, decimals, seed)
    got = bootstrap_taus(s, y, objective, 120, seed)
    want = _reference(s, y, objective, 120, seed)
    assert got[2] == want[2]
    assert (got[2] > 0) == (n == 5)  # 5 pairs: some resamples draw one class or one score
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_many_resamples_in_several_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    s, y = _data(200, 2, 3)
    whole = bootstrap_taus(s, y, "kappa", 50, 3)
    monkeypatch.setattr("judge.calibration.taubootstrap.CELLS", 100)  # 1 resample a pass
    assert bootstrap_taus(s, y, "kappa", 50, 3) == whole


def test_one_distinct_score_has_no_tau() -> None:
    assert bootstrap_taus(np.full(4, 0.5), np.array([0, 1, 0, 1], dtype=bool), "f1", 7,
                          0) == ([], [], 7)
