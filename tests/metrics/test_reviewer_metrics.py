"""Gwet's AC1 by hand (including κ's paradox) and against irrCAC; MCC against scikit-learn."""

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


# (TP, FP, FN, TN) → Gwet's AC1 from irrCAC 0.4.4 (`irrCAC.table.CAC(table, digits=10).gwet()`
# on the 2×2 table [[TP, FP], [FN, TN]]), run on 2026-12-02. irrCAC cannot be a test
# dependency: it pins scipy==1.12.0, pandas<3 and coverage<7 against constraints.txt; where it
# is installed, the test below compares with it live.
IRRCAC_AC1 = {(90, 5, 5, 0): 0.8895027624, (40, 9, 6, 45): 0.7007481297, (3, 0, 0, 4): 1.0,
              (10, 20, 5, 65): 0.6161228407, (1, 2, 3, 4): 0.0825688073,
              (50, 0, 10, 0): 0.8032786885}


def test_ac1_equals_irrcac() -> None:
    for counts, ac1 in IRRCAC_AC1.items():
        assert gwet_ac1_from_counts(*counts) == pytest.approx(ac1, abs=1e-10)


def test_ac1_equals_irrcac_live() -> None:
    pd = pytest.importorskip("pandas")
    table = pytest.importorskip("irrCAC.table")
    rng = np.random.default_rng(7)
    for tp, fp, fn, tn in [tuple(int(x) for x in rng.integers(0, 60, 4)) for _ in range(20)]:
        frame = pd.DataFrame([[tp, fp], [fn, tn]], index=["1", "0"], columns=["1", "0"])
        want = table.CAC(frame, digits=12).gwet()["est"]["coefficient_value"]
        assert gwet_ac1_from_counts(tp, fp, fn, tn) == pytest.approx(want, abs=1e-11)
