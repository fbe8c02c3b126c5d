"""The alternative annotator test (Calderon, Reichart & Dror, ACL 2025) on a worked example
derived by hand, checked against the reference code's logic, and its edge cases."""

from __future__ import annotations

import math

import pytest
from scipy.stats import t as student_t

from metrics.alttest import alt_test, by_rejections


def _example() -> tuple[dict[int, int], dict[str, dict[int, int]]]:
    """30 items labelled 0/1 by annotators A, B, C and a judge J, as (A, B, C, J):
    15 × (1, 1, 1, 1) all agree; 3 × (1, 1, 1, 0) the judge alone is wrong;
    9 × (0, 1, 1, 1) A alone is wrong; 3 × (1, 0, 1, 1) B alone is wrong."""
    rows = [(1, 1, 1, 1)] * 15 + [(1, 1, 1, 0)] * 3 + [(0, 1, 1, 1)] * 9 + [(1, 0, 1, 1)] * 3
    humans = {name: {i: r[k] for i, r in enumerate(rows)} for k, name in enumerate("ABC")}
    return {i: r[3] for i, r in enumerate(rows)}, humans


def _t(mean: float, sum_sq: float, n: int, epsilon: float) -> float:
    """One-sided p of the one-sample t-test of H0 mean ≥ ε, from the sample's mean and Σd²."""
    sd = math.sqrt((sum_sq - n * mean ** 2) / (n - 1))
    return float(student_t.cdf((mean - epsilon) / (sd / math.sqrt(n)), n - 1))


def test_worked_example_by_hand() -> None:
    # Alignment = accuracy against the two remaining annotators. Leaving A out:
    #  all-agree items: S(J) = S(A) = 1 → W_J = W_A = 1, d = W_A − W_J = 0;
    #  judge-wrong (×3): S(A) = 1, S(J) = 0 → d = +1, W_J = 0;
    #  A-wrong (×9): S(A) = 0, S(J) = 1 → d = −1;
    #  B-wrong (×3): remaining B = 0, C = 1: S(A) = S(J) = 0.5 → d = 0.
    # So d_A: 9 × −1, 3 × +1 → mean −0.2, Σd² = 12; likewise d_B: 3 × −1, 3 × +1 → mean 0,
    # Σd² = 6; d_C: 3 × +1 → mean 0.1, Σd² = 3. W_J = 0 only on the 3 judge-wrong items:
    # ρ_j = 27/30 = 0.9 for each annotator, ρ = 0.9.
    # ε = 0.1: t_A = (−0.2 − 0.1)/(√(10.8/29)/√30) = −2.6925 → p 0.0058; t_B = −1.2042 → p
    # 0.119; t_C = 0 → p 0.5. BY, m = 3, c(3) = 11/6, q = 0.05: thresholds 0.00909 k;
    # 0.0058 ≤ 0.00909 but 0.119 > 0.01818: only A falls → ω = 1/3, failed.
    # ε = 0.2: p_A 0.0006, p_B 0.0113, p_C 0.0415 against 0.00909, 0.01818, 0.02727: A and B
    # fall → ω = 2/3, passed.
    # The reference code (github.com/nitaytech/AltTest, alt_test_example.ipynb, alt_test with
    # 'accuracy') gives (0.333…, 0.9) at ε = 0.1 and (0.666…, 0.9) at ε = 0.2 on these data.
    judge, humans = _example()
    low = alt_test(judge, humans, epsilon=0.1)
    assert [t.mean_difference for t in low.tests] == pytest.approx([-0.2, 0.0, 0.1])
    assert [t.p_value for t in low.tests] == pytest.approx(
        [_t(-0.2, 12, 30, 0.1), _t(0.0, 6, 30, 0.1), 0.5], rel=1e-9)
    assert low.tests[0].p_value == pytest.approx(0.0058, abs=5e-5)
    assert [t.wins for t in low.tests] == [True, False, False]
    assert (low.winning_rate, low.passed) == (pytest.approx(1 / 3), False)
    assert low.advantage_probability == pytest.approx(0.9)
    high = alt_test(judge, humans, epsilon=0.2)
    assert [t.p_value for t in high.tests] == pytest.approx(
        [_t(-0.2, 12, 30, 0.2), _t(0.0, 6, 30, 0.2), _t(0.1, 3, 30, 0.2)], rel=1e-9)
    assert [t.wins for t in high.tests] == [True, True, False]
    assert (high.winning_rate, high.passed, high.reason) == (pytest.approx(2 / 3), True, None)


def test_by_against_statsmodels() -> None:
    from statsmodels.stats.multitest import multipletests

    p = [0.0006, 0.0113, 0.0415, 0.2, 0.003, 0.5, 0.011]
    for q in (0.05, 0.1, 0.2):
        assert by_rejections(p, q) == list(multipletests(p, alpha=q, method="fdr_by")[0])
    assert by_rejections([], 0.05) == []
    with pytest.raises(ValueError, match="p_values"):
        by_rejections([math.nan], 0.05)


def test_not_enough_annotators_and_items() -> None:
    judge, humans = _example()
    # C labels only 29 items: skipped, and two annotators remain, fewer than the paper's 3
    humans["C"] = {i: v for i, v in humans["C"].items() if i != 0}
    # A and B still share item 0 with each other: it is kept
    got = alt_test(judge, humans, epsilon=0.1)
    assert got.skipped == {"C": 29}
    assert got.winning_rate is None and got.advantage_probability is None and got.passed is None
    assert got.reason is not None and got.reason.startswith("not enough annotators: 2 ")
    # with a minimum of 2 the same data are tested (the reference code's behaviour)
    two = alt_test(judge, humans, epsilon=0.1, min_annotators=2)
    assert two.reason is None and [t.annotator for t in two.tests] == ["A", "B"]


def test_items_with_one_annotator_or_no_judge_label_are_dropped() -> None:
    judge, humans = _example()
    humans["D"] = {100 + i: 1 for i in range(40)}  # items nobody else labelled
    del judge[0]  # the judge did not score item 0
    got = alt_test(judge, humans, epsilon=0.1, min_items=29)
    assert got.items == 29 and got.skipped == {"D": 0}
    assert [t.items for t in got.tests] == [29, 29, 29]


def test_constant_difference_has_no_p_value() -> None:
    # the judge equals every annotator everywhere: d ≡ 0, zero variance → no t-test, no win
    humans = {n: {i: i % 2 for i in range(30)} for n in "ABC"}
    got = alt_test({i: i % 2 for i in range(30)}, humans, epsilon=0.1)
    assert [t.p_value for t in got.tests] == [None] * 3
    assert (got.winning_rate, got.advantage_probability) == (0.0, 1.0)


def test_neg_rmse_alignment() -> None:
    # one item, three raters 1, 2, 4 and a judge 2. Leaving out the rater of 1: others 2, 4:
    # S(h) = −√((1 + 9)/2) = −2.236, S(J) = −√((0 + 4)/2) = −1.414 → the judge wins the item
    humans = {"a": {0: 1.0, 1: 1.0}, "b": {0: 2.0, 1: 2.0}, "c": {0: 4.0, 1: 4.0}}
    got = alt_test({0: 2.0, 1: 2.0}, humans, epsilon=0.1, alignment="neg_rmse", min_items=2)
    # leaving b out: others 1, 4; the judge says 2 like b: a tie → W_J = W_b = 1;
    # leaving c out: others 1, 2: S(c) = −√((9 + 4)/2) = −2.55 < S(J) = −√(1/2)
    assert [t.advantage for t in got.tests] == [1.0, 1.0, 1.0]
    assert [t.mean_difference for t in got.tests] == [-1.0, 0.0, -1.0]


@pytest.mark.parametrize("kwargs, match", [
    ({"epsilon": -0.1}, "epsilon"), ({"epsilon": 0.1, "q": 1.0}, "q"),
    ({"epsilon": 0.1, "alignment": "f1"}, "alignment"),
    ({"epsilon": 0.1, "min_items": 1}, "must each be >= 2"),
])
def test_bad_settings(kwargs: dict[str, object], match: str) -> None:
    judge, humans = _example()
    with pytest.raises(ValueError, match=match):
        alt_test(judge, humans, **kwargs)  # type: ignore[arg-type]


def test_nan_label_is_refused() -> None:
    with pytest.raises(ValueError, match="NaN"):
        alt_test({0: math.nan}, {"a": {0: 1.0}}, epsilon=0.1)
