"""Gwet's AC1 by hand (including κ's paradox) and MCC against scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import matthews_corrcoef

from metrics import gwet_ac1_from_counts, kappa_from_counts, mcc_from_counts


def test_ac1_stays_high_where_kappa_collapses() -> None:
    # 90 agreed positives, 5 + 5 disagreements, no agreed negative: p_o = 0.9.
    # κ: p_e = (95·95 + 5·5)/100² = 0.905 → (0.9 − 0.905)/0.095 = −0.0526 (the paradox);
    # AC1: π = (95 + 95)/200 = 0.95, p_e = 2·0.95·0.05 = 0.095 → 0.805/0.905 = 0.88950
    assert kappa_from_counts(90, 5, 5, 0) == pytest.approx(-0.005 / 0.095)
    assert gwet_ac1_from_counts(90, 5, 5, 0) == pytest.approx(0.805 / 0.905)
    # perfect agreement: 1; no data: undefined
    assert gwet_ac1_from_counts(3, 0, 0, 4) == 1.0
    assert math.isnan(gwet_ac1_from_counts(0, 0, 0, 0))


def test_mcc_equals_sklearn_on_random_tables() -> None:
    rng = np.random.default_rng(3)
    for _ in range(100):
        y = rng.random(40) < 0.4
        p = rng.random(40) < 0.5
        tp, fp = int((y & p).sum()), int((~y & p).sum())
        fn, tn = int((y & ~p).sum()), int((~y & ~p).sum())
        got = mcc_from_counts(tp, fp, fn, tn)
        if (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn) == 0:
            assert math.isnan(got)  # sklearn returns 0.0 there; we say undefined
        else:
            assert got == pytest.approx(matthews_corrcoef(y, p), abs=1e-12)
