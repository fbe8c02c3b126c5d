"""Threshold sweep: candidates, counts against binary_scores/κ, tie rule."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from metrics import best_threshold, binary_scores, candidate_thresholds, threshold_sweep


def test_candidates_are_midpoints() -> None:
    assert candidate_thresholds([0.2, 0.8, 0.2, 0.5]).tolist() == pytest.approx([0.35, 0.65])
    with pytest.raises(ValueError, match="fewer than two distinct"):
        candidate_thresholds([0.3, 0.3])


def test_sweep_by_hand() -> None:
    scores = [0.1, 0.4, 0.6, 0.9]
    labels = [0, 1, 0, 1]
    pts = threshold_sweep(scores, labels)
    assert [p.tau for p in pts] == pytest.approx([0.25, 0.5, 0.75])
    # tau 0.5 → predicted positive: 0.6, 0.9 → TP 1 (0.9) FP 1 (0.6) FN 1 (0.4) TN 1
    p = pts[1]
    assert (p.tp, p.fp, p.fn, p.tn) == (1, 1, 1, 1)
    assert p.youden == pytest.approx(0.5 - 0.5)
    # F1 at 0.25: TP2 FP1 → 4/5; at 0.75: TP1 FP0 FN1 → 2/3
    assert [q.f1 for q in pts] == pytest.approx([0.8, 0.5, 2 / 3])
    assert best_threshold(scores, labels).tau == pytest.approx(0.25)


def test_ties_go_to_larger_tau() -> None:
    # accuracy 0.75 at tau 0.25 and at tau 0.75 → choose 0.75
    scores = [0.1, 0.4, 0.6, 0.9]
    labels = [0, 1, 0, 1]
    assert [p.accuracy for p in threshold_sweep(scores, labels)] == [0.75, 0.5, 0.75]
    assert best_threshold(scores, labels, objective="accuracy").tau == pytest.approx(0.75)
    with pytest.raises(ValueError, match="objective"):
        best_threshold(scores, labels, objective="auc")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.1, 0.3, 0.5, 0.7, 0.71, 0.9]), st.booleans()),
                min_size=2, max_size=30))
def test_sweep_matches_binary_scores(xs: list[tuple[float, bool]]) -> None:
    scores = [s for s, _ in xs]
    labels = [y for _, y in xs]
    if len(set(scores)) < 2:
        return
    for p in threshold_sweep(scores, labels):
        pred = [s > p.tau for s in scores]
        ref = binary_scores(labels, pred)
        assert (p.tp, p.fp, p.fn, p.tn) == (ref.tp, ref.fp, ref.fn, ref.tn)
        assert (p.precision, p.recall, p.f1, p.accuracy) == pytest.approx(
            (ref.precision, ref.recall, ref.f1, ref.accuracy))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            k = cohen_kappa_score(labels, pred)
        assert (np.isnan(p.kappa) and np.isnan(k)) or p.kappa == pytest.approx(k)


def test_weighted_sweep_equals_the_sweep_of_repeated_pairs() -> None:
    # integer weights w: the sweep of the data with pair i repeated w[i] times (an independent
    # path: np.repeat + the unweighted sweep), counts and every ratio
    from metrics import sweep_arrays

    s = np.array([0.9, 0.8, 0.75, 0.6, 0.4, 0.35, 0.2, 0.1])
    y = np.array([1, 1, 0, 1, 0, 1, 0, 0], dtype=bool)
    w = np.array([3, 1, 2, 5, 1, 4, 2, 6])
    got = sweep_arrays(s, y, weights=w)
    ref = sweep_arrays(np.repeat(s, w), np.repeat(y, w))
    assert set(got) == set(ref)
    for key in ref:
        np.testing.assert_allclose(got[key], ref[key], err_msg=key)
    # by hand at τ = 0.5 (scores 0.9, 0.8, 0.75, 0.6 above): tp = 3 + 1 + 5, fp = 2,
    # fn = 4 (the 0.35 positive), tn = 1 + 2 + 6
    k = int(np.flatnonzero(np.isclose(got["tau"], 0.5))[0])
    assert (got["tp"][k], got["fp"][k], got["fn"][k], got["tn"][k]) == (9.0, 2.0, 4.0, 9.0)


@pytest.mark.parametrize("weights", [[1, 1, -1], [1, float("nan"), 1], [0, 0, 0], [1, 1]])
def test_bad_weights_raise(weights: list[float]) -> None:
    from metrics import sweep_arrays

    with pytest.raises(ValueError, match="weights"):
        sweep_arrays([0.1, 0.5, 0.9], [0, 1, 1], weights=weights)
