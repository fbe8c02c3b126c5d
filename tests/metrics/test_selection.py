"""fuzzy_match: seed 001 examples, edge cases, bad input and properties (hypothesis)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from metrics import aggregate_fuzzy, fuzzy_match, normalize

NAN = float("nan")


def test_normalize() -> None:
    assert normalize("Screen  Security") == "screensecurity"
    assert normalize("ＳＣＲＥＥＮ\u3000SECURITY\n") == "screensecurity"  # NFKC + U+3000
    assert normalize("EMPLOYEE SECURITY") == normalize("Employee security")
    with pytest.raises(TypeError):
        normalize(3)  # type: ignore[arg-type]


def test_ifpug_row_by_hand() -> None:
    # ilf_runs.jsonl, deepseek cot doc 2: two semantic matches at 0.85, one unmatched pred.
    # TP = 1.7; P = 1.7/3; R = 1.7/2; F1 = 2PR/(P+R) = 0.68.
    pred = ["职位信息", "职位描述信息", "职位挂起文件"]
    truth = ["Suspended job", "Suspended job description"]
    sim = [[0.85, 0.2], [0.3, 0.85], [0.6, 0.5]]
    r = fuzzy_match(pred, truth, sim)
    assert r.n_exact == 0
    assert r.tp_fuzzy == pytest.approx(1.7)
    assert r.precision == pytest.approx(1.7 / 3)
    assert r.recall == pytest.approx(0.85)
    assert r.f1 == pytest.approx(0.68)
    assert r.semantic_matches == [("职位信息", "Suspended job", 0.85),
                                  ("职位描述信息", "Suspended job description", 0.85)]
    assert r.unmatched_pred() == [2] and r.unmatched_truth() == []


def test_exact_first_then_maximum_weight() -> None:
    # "Employee security" matches exactly (1.0). Greedy on the rest would take 0.9 (B-x) and
    # leave A with nothing; the optimum takes A-x 0.8 and B-y 0.75 = 1.55 > 0.9.
    pred = ["EMPLOYEE SECURITY", "A", "B"]
    truth = ["Employee security", "x", "y"]
    sim = [[0.1, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.9, 0.75]]
    r = fuzzy_match(pred, truth, sim)
    assert r.n_exact == 1
    assert r.tp_fuzzy == pytest.approx(1 + 0.8 + 0.75)
    assert {(m.pred_index, m.truth_index, m.exact) for m in r.matches} == {
        (0, 0, True), (1, 1, False), (2, 2, False)}


def test_tau_is_strict_and_nan_never_matches() -> None:
    r = fuzzy_match(["a", "b"], ["x", "y"], [[0.7, NAN], [NAN, 0.7000001]], tau=0.7)
    assert r.tp_fuzzy == pytest.approx(0.7000001)
    assert [(m.pred_index, m.truth_index) for m in r.matches] == [(1, 1)]


def test_duplicate_exact_matches_are_one_to_one() -> None:
    # two identical predictions, one gold: one exact match, the duplicate is a false positive
    r = fuzzy_match(["Job", "job"], ["JOB"], None)
    assert r.n_exact == 1 and r.tp_fuzzy == 1.0
    assert r.precision == 0.5 and r.recall == 1.0


@pytest.mark.parametrize(
    ("pred", "truth", "zd", "expected"),
    [
        ([], [], 0.0, (1.0, 1.0, 1.0)),  # nothing to find, nothing claimed
        (["a"], [], 0.0, (0.0, 0.0, 0.0)),  # P = 0/1, R = zero_division
        ([], ["a"], 0.0, (0.0, 0.0, 0.0)),
        ([], ["a"], 1.0, (1.0, 0.0, 0.0)),  # P = zero_division = 1, R = 0/1 → F1 = 0
    ],
)
def test_empty_sides(pred: list[str], truth: list[str], zd: float,
                     expected: tuple[float, float, float]) -> None:
    r = fuzzy_match(pred, truth, np.zeros((len(pred), len(truth))), zero_division=zd)
    assert (r.precision, r.recall, r.f1) == expected


@pytest.mark.parametrize(
    ("sim", "message"),
    [
        ([[0.5, 0.5]], r"sim: expected shape \(2, 2\)"),
        ([[0.5, 1.2], [0.1, 0.1]], r"sim\[0, 1\]: score 1.2 is outside \[0, 1\]"),
        ([[0.5, 0.1], [-0.1, 0.1]], r"sim\[1, 0\]"),
    ],
)
def test_bad_sim(sim: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fuzzy_match(["a", "b"], ["x", "y"], sim)


def test_bad_strings_and_tau() -> None:
    with pytest.raises(ValueError, match=r"pred\[1\]"):
        fuzzy_match(["a", 3], ["x"], [[0.1], [0.1]])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="tau"):
        fuzzy_match(["a"], ["x"], [[0.1]], tau=1.5)
    with pytest.raises(ValueError, match="single str"):
        fuzzy_match("abc", ["x"], [[0.1]])


def test_aggregate_macro_and_micro_by_hand() -> None:
    r1 = fuzzy_match(["a"], ["a", "b"], None)  # TP 1, P 1, R 0.5, F1 2/3
    r2 = fuzzy_match(["c", "d"], ["x"], [[0.9], [0.1]])  # TP 0.9, P 0.45, R 0.9, F1 0.6
    agg = aggregate_fuzzy([r1, r2])
    assert agg.macro_precision == pytest.approx((1 + 0.45) / 2)
    assert agg.macro_recall == pytest.approx((0.5 + 0.9) / 2)
    assert agg.macro_f1 == pytest.approx((2 / 3 + 0.6) / 2)
    # micro: TP 1.9 over 3 predictions and 3 gold items
    assert agg.micro_precision == pytest.approx(1.9 / 3)
    assert agg.micro_recall == pytest.approx(1.9 / 3)
    assert agg.micro_f1 == pytest.approx(1.9 / 3)
    assert (agg.n_exact, agg.n_pred, agg.n_truth, agg.n_items) == (1, 3, 3, 2)
    with pytest.raises(ValueError, match="empty"):
        aggregate_fuzzy([])


# ---------------------------------------------------------------- properties (hypothesis)

def _greedy_tp(sim: np.ndarray, tau: float) -> float:
    """Greedy reference: repeatedly take the largest remaining entry > tau."""
    s = np.where(np.isnan(sim), -1.0, sim).copy()
    total = 0.0
    while s.size and s.max() > tau:
        i, j = np.unravel_index(int(np.argmax(s)), s.shape)
        total += s[i, j]
        s[i, :] = -1.0
        s[:, j] = -1.0
    return total


def _brute_force_tp(sim: np.ndarray, tau: float) -> float:
    """Exhaustive maximum over all one-to-one partial matchings (small matrices only)."""
    n, m = sim.shape
    best = 0.0

    def rec(i: int, used: frozenset[int], acc: float) -> None:
        nonlocal best
        if i == n:
            best = max(best, acc)
            return
        rec(i + 1, used, acc)
        for j in range(m):
            if j not in used and not math.isnan(sim[i, j]) and sim[i, j] > tau:
                rec(i + 1, used | {j}, acc + sim[i, j])

    rec(0, frozenset(), 0.0)
    return best


scores = st.one_of(st.floats(0, 1), st.just(NAN), st.sampled_from([0.7, 0.0, 1.0]))


@st.composite
def matrices(draw: st.DrawFn, max_side: int = 6) -> np.ndarray:
    n = draw(st.integers(0, max_side))
    m = draw(st.integers(0, max_side))
    return draw(arrays(np.float64, (n, m), elements=scores))


def _names(prefix: str, k: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(k)]


@settings(max_examples=300, deadline=None)
@given(matrices(), st.sampled_from([0.0, 0.5, 0.7, 0.9]))
def test_properties(sim: np.ndarray, tau: float) -> None:
    n, m = sim.shape
    pred, truth = _names("p", n), _names("t", m)  # no exact matches
    r = fuzzy_match(pred, truth, sim, tau=tau)
    for v in (r.precision, r.recall, r.f1):
        assert 0.0 <= v <= 1.0
    assert r.tp_fuzzy <= min(n, m) + 1e-12
    assert all(m_.score > tau for m_ in r.matches)  # an entry equal to τ is never a match
    assert r.tp_fuzzy >= _greedy_tp(sim, tau) - 1e-9  # never below greedy
    assert r.tp_fuzzy == pytest.approx(_brute_force_tp(sim, tau), abs=1e-9)  # optimal


@settings(max_examples=200, deadline=None)
@given(matrices(), st.randoms(use_true_random=False))
def test_permutation_invariance(sim: np.ndarray, rnd) -> None:  # type: ignore[no-untyped-def]
    n, m = sim.shape
    pred, truth = _names("p", n), _names("t", m)
    # make a few exact matches too: pred i equals truth i (different case) for the first ones
    k = min(n, m, 2)
    for i in range(k):
        pred[i] = truth[i].upper()
    base = fuzzy_match(pred, truth, sim)
    rows, cols = list(range(n)), list(range(m))
    rnd.shuffle(rows)
    rnd.shuffle(cols)
    perm = fuzzy_match([pred[i] for i in rows], [truth[j] for j in cols],
                       sim[np.ix_(rows, cols)] if sim.size else sim.reshape(n, m))
    assert perm.tp_fuzzy == pytest.approx(base.tp_fuzzy, abs=1e-12)
    assert (perm.precision, perm.recall) == pytest.approx((base.precision, base.recall))
    assert perm.f1 == pytest.approx(base.f1)
    assert perm.n_exact == base.n_exact


@settings(max_examples=300, deadline=None)
@given(scores, st.sampled_from([0.0, 0.5, 0.7, 0.9, 1.0]), st.booleans())
def test_one_pair_left_takes_the_short_path_to_the_same_matching(score: float, tau: float,
                                                                 with_exact: bool) -> None:
    """A 1×1 item, or one pair left after an exact match, skips the matching solver: its
    matches are those of max_weight_matching on that one cell (NaN and a score equal to τ
    never match)."""
    from metrics.selection import max_weight_matching

    pred, truth = (["same", "a"], ["SAME ", "b"]) if with_exact else (["a"], ["b"])
    sim = np.full((len(pred), len(truth)), 0.2)
    sim[-1, -1] = score
    r = fuzzy_match(pred, truth, sim, tau=tau)
    solver = max_weight_matching(np.array([[score]]), tau)
    assert [(m.pred_index, m.truth_index) for m in r.matches if not m.exact] == (
        [(len(pred) - 1, len(truth) - 1)] if solver else [])
    assert r.tp_fuzzy == pytest.approx(with_exact + (score if solver else 0.0))
