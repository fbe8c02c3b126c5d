"""Error φ equals scikit-learn's Matthews correlation on the error indicators; Kish's n_eff
by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import matthews_corrcoef

from metrics import effective_judges, error_phi, mean_error_phi


def test_error_phi_equals_sklearn_matthews_on_random_indicators() -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        k, n = int(rng.integers(2, 6)), int(rng.integers(3, 40))
        e = rng.random((k, n)) < rng.uniform(0.1, 0.9)
        phi = error_phi(e)
        for i in range(k):
            for j in range(k):
                const = e[i].all() or (~e[i]).all() or e[j].all() or (~e[j]).all()
                if const:
                    assert math.isnan(phi[i, j])
                else:
                    assert phi[i, j] == pytest.approx(matthews_corrcoef(e[i], e[j]), abs=1e-12)


def test_mean_phi_and_n_eff_by_hand() -> None:
    # a and c err on the same pairs (φ 1); b is uncorrelated with both (φ 0); mean (1+0+0)/3
    e = [[1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 0, 0]]
    phi = error_phi(e)
    assert mean_error_phi(phi) == pytest.approx(1 / 3)
    # n_eff = 3 / (1 + 2 · 1/3) = 3 / (5/3) = 1.8
    assert effective_judges(3, mean_error_phi(phi)) == pytest.approx(1.8)
    # a judge that never errs: its φ undefined, left out of the mean (only φ(a, b) = 0 remains)
    phi = error_phi([[1, 1, 0, 0], [1, 0, 1, 0], [0, 0, 0, 0]])
    assert math.isnan(phi[0, 2]) and mean_error_phi(phi) == 0.0
    assert math.isnan(mean_error_phi(error_phi([[0, 0], [1, 1]])))
    # the published illustration: 9 judges with error correlation 0.5 are worth 1.8
    assert effective_judges(9, 0.5) == pytest.approx(1.8)
    assert effective_judges(2, -1.0) == math.inf and effective_judges(4, -0.2) == pytest.approx(
        4 / 0.4)
    assert math.isnan(effective_judges(3, math.nan))
    with pytest.raises(ValueError, match="at least 1 judge"):
        effective_judges(0, 0.1)
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        effective_judges(3, 1.5)
    with pytest.raises(ValueError, match="0/1 entries"):
        error_phi([[0, 2]])
    with pytest.raises(ValueError, match="shape"):
        error_phi([0, 1])
