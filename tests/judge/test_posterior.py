"""The stopping rule's posterior (judge/calibration/posterior.py): the unlabelled pairs' labels
drawn from each score stratum's Beta posterior, the regret of τ̂ on each completed population,
checked against values derived by hand."""

from __future__ import annotations

import numpy as np
import pytest

from judge.calibration.posterior import posterior_regrets
from judge.calibration.sweepboot import STOP_LEVEL

SCORES = np.array([0.2, 0.2, 0.5, 0.5, 0.8, 0.8])
STRATA = np.array([0, 0, 1, 1, 2, 2])


def test_every_label_known_gives_the_true_loss() -> None:
    # labels 0 0 | 1 0 | 1 1. τ = 0.65 (the 0.8s are matches): TP 2, FN 1 → F1 = 4/5; the
    # best cut 0.35: TP 3, FP 1 → F1 = 6/7; so using 0.65 loses 6/7 − 4/5 = 2/35 in every draw
    y = np.array([False, False, True, False, True, True])
    got = posterior_regrets(SCORES, STRATA, np.arange(6), y, 0.65, "f1", 50, 0)
    np.testing.assert_allclose(got, 2 / 35, atol=1e-12)
    # a pair scored exactly τ is no match (score > τ): τ = 0.5 is the rule of 0.65
    np.testing.assert_allclose(posterior_regrets(SCORES, STRATA, np.arange(6), y, 0.5, "f1",
                                                 5, 0), 2 / 35, atol=1e-12)
    # τ = 0.35 is the best cut: nothing lost; τ below every score (all matches): TP 3, FP 3
    # → F1 = 6/9, lost 6/7 − 2/3 = 4/21
    assert posterior_regrets(SCORES, STRATA, np.arange(6), y, 0.35, "f1", 5, 0).max() == 0
    np.testing.assert_allclose(
        posterior_regrets(SCORES, STRATA, np.arange(6), y, 0.05, "f1", 5, 0), 4 / 21)


def test_one_unknown_label_by_hand() -> None:
    # the second 0.5 pair unlabelled; its stratum's one label is positive, so its positive
    # rate is Beta(1 + ½, 0 + ½) (Jeffreys' prior), mean 3/4: the pair is positive with
    # probability 3/4. At τ = 0.65: if positive, F1 at 0.65 = 4/6 against 1 at 0.35 → lost
    # 1/3; if negative, 4/5 against 6/7 → lost 2/35. Mean 3/4·1/3 + 1/4·2/35 = 37/140.
    lab = np.array([0, 1, 2, 4, 5])
    y = np.array([False, False, True, True, True])
    got = posterior_regrets(SCORES, STRATA, lab, y, 0.65, "f1", 4000, 7)
    assert set(np.round(got, 12)) == {round(1 / 3, 12), round(2 / 35, 12)}
    # 4000 draws: the share of 1/3 within 4 SE (sqrt(3/16/4000) = 0.0068) of 3/4
    assert np.mean(np.isclose(got, 1 / 3)) == pytest.approx(0.75, abs=0.028)
    assert got.mean() == pytest.approx(37 / 140, abs=0.028 * (1 / 3 - 2 / 35))
    # the rule's 0.95 quantile (STOP_LEVEL) is 1/3: a quarter of the draws lose only 2/35,
    # not a twentieth
    assert np.quantile(got, STOP_LEVEL, method="higher") == pytest.approx(1 / 3)


def test_unscored_pairs_are_left_out_and_draws_are_seeded() -> None:
    y = np.array([False, False, True, False, True, True])
    s = np.append(SCORES, np.nan)
    strata = np.append(STRATA, -1)
    got = posterior_regrets(s, strata, np.arange(6), y, 0.65, "f1", 20, 3)
    np.testing.assert_allclose(got, 2 / 35, atol=1e-12)
    lab = np.array([0, 2, 4])
    a = posterior_regrets(SCORES, STRATA, lab, y[lab], 0.65, "f1", 200, 11)
    assert np.array_equal(a, posterior_regrets(SCORES, STRATA, lab, y[lab], 0.65, "f1", 200,
                                               11))
    assert not np.array_equal(a, posterior_regrets(SCORES, STRATA, lab, y[lab], 0.65, "f1",
                                                   200, 12))
    with pytest.raises(ValueError, match="no scored pair"):
        posterior_regrets(np.array([np.nan]), np.array([-1]), np.array([], dtype=np.intp),
                          np.array([], dtype=bool), 0.5, "f1", 5, 0)
