"""metrics.ppi: the prediction-powered mean against ppi-python (the reference implementation of
PPI/PPI++), against hand computations of the survey-sampling forms (simple random sample with
the finite-population correction, stratified, unequal probabilities, ratios), and its coverage
on simulated studies."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import t as student_t

from metrics.ppi import classical_mean, ppi_mean, ppi_ratio


def _study(seed: int, N: int = 400, n: int = 40) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A population of N items: a judge's score f in [0, 1] and a human 0/1 value that agrees
    with the judge above 0.5 most of the time but not always (a biased, noisy judge); the
    index of n items drawn without replacement."""
    rng = np.random.default_rng(seed)
    f = rng.random(N)
    y = (f + 0.35 * rng.standard_normal(N) > 0.6).astype(float)
    return f, y, rng.choice(N, n, replace=False)


@pytest.mark.parametrize("lam", [None, 1.0, 0.0, 0.37])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_distribution_target_equals_ppi_python(lam: float | None, seed: int) -> None:
    """target="distribution" is ppi_py.ppi_mean_ci / ppi_mean_pointestimate: the labelled items
    and the unlabelled rest as two samples, PPI++'s tuned λ (clip=True) or a fixed one."""
    ppi_py = pytest.importorskip("ppi_py")
    f, y, idx = _study(seed)
    rest = np.setdiff1d(np.arange(f.size), idx)
    lo, hi = ppi_py.ppi_mean_ci(y[idx], f[idx], f[rest], alpha=0.05, lam=lam)
    point = ppi_py.ppi_mean_pointestimate(y[idx], f[idx], f[rest], lam=lam)
    ours = ppi_mean(y[idx], f[idx], f, lam="tune" if lam is None else lam,
                    target="distribution")
    assert ours.value == pytest.approx(float(np.ravel(point)[0]), abs=1e-12)
    assert ours.ci == pytest.approx((float(np.ravel(lo)[0]), float(np.ravel(hi)[0])), abs=1e-12)


def test_simple_random_sample_by_hand() -> None:
    # population of 8 with judge mean 0.5; 4 labelled; λ = 1: e = y − f = (0, 0, 0, −1),
    # ē = −0.25, θ = 0.5 − 0.25 = 0.25; s²(e) = 0.75/3 = 0.25;
    # var = (1 − 4/8)·0.25/4 = 0.03125; t(3) half-width = t·√var
    est = ppi_mean([1, 0, 1, 0], [1, 0, 1, 1], [1, 0, 1, 1, 0, 0, 1, 0], lam=1.0)
    half = student_t.ppf(0.975, 3) * math.sqrt(0.03125)
    assert est.value == pytest.approx(0.25)
    assert est.se == pytest.approx(math.sqrt(0.03125))
    assert est.ci == pytest.approx((0.25 - half, 0.25 + half))
    assert est.df == 3 and est.lam == (1.0,)


def test_tuned_lambda_is_the_regression_slope_clipped() -> None:
    f, y, idx = _study(3, n=60)
    est = ppi_mean(y[idx], f[idx], f)
    slope = np.polyfit(f[idx], y[idx], 1)[0]
    assert est.lam[0] == pytest.approx(min(1.0, max(0.0, slope)))
    # the regression estimator: ȳ + λ(F̄ − f̄)
    want = y[idx].mean() + est.lam[0] * (f.mean() - f[idx].mean())
    assert est.value == pytest.approx(want)
    # a judge that predicts the opposite: λ clipped to 0 (the human-only mean)
    anti = ppi_mean(y[idx], 1 - y[idx], 1 - y)
    assert anti.lam == (0.0,) and anti.value == pytest.approx(y[idx].mean())


def test_every_item_labelled_leaves_no_uncertainty() -> None:
    f, y, _ = _study(4, N=30, n=10)
    est = ppi_mean(y, f, f)
    assert est.value == pytest.approx(y.mean()) and est.se == 0.0


def test_stratified_by_hand() -> None:
    # two strata of the population: A (N=6, judge mean 0.5) and B (N=4, judge mean 0.25);
    # λ fixed at 1; labelled: A → y (1, 0, 1), f (1, 0, 0); B → y (0, 1), f (0, 0)
    pop = ["A"] * 6 + ["B"] * 4
    f_pop = [1, 0, 0, 1, 1, 0, 0, 0, 1, 0]
    est = ppi_mean([1, 0, 1, 0, 1], [1, 0, 0, 0, 0], f_pop, strata=["A", "A", "A", "B", "B"],
                   population_strata=pop, lam=1.0)
    # A: e = (0, 0, 1), ē = 1/3, θ_A = 0.5 + 1/3; s² = (2·(1/3)² + (2/3)²)/2 = 1/3
    #    var_A = (1 − 3/6)·(1/3)/3 = 1/18
    # B: e = (0, 1), ē = 0.5, θ_B = 0.25 + 0.5; s² = 0.5; var_B = (1 − 2/4)·0.5/2 = 1/8
    theta = 0.6 * (0.5 + 1 / 3) + 0.4 * 0.75
    var = 0.36 / 18 + 0.16 / 8
    assert est.value == pytest.approx(theta) and est.se == pytest.approx(math.sqrt(var))
    # Satterthwaite: the strata's shares 0.02 (2 dof) and 0.02 (1 dof):
    # 0.04² / (0.02²/2 + 0.02²/1) = 2.67 → 2 degrees of freedom
    assert est.df == 2 and est.lam == (1.0, 1.0)


def test_unequal_probabilities_by_hand() -> None:
    # Hájek form: weights 1/π; λ = 0 (human-only): θ = Σ w y / Σ w
    y, pi = np.array([1.0, 0.0, 1.0]), np.array([0.5, 0.25, 0.1])
    w = 1 / pi
    est = ppi_mean(y, np.zeros(3), np.zeros(20), pi=pi, lam=0.0)
    theta = float(np.sum(w * y) / np.sum(w))
    share = w / w.sum()
    var = 3 / 2 * float(np.sum(share ** 2 * (1 - pi) * (y - theta) ** 2))
    assert est.value == pytest.approx(theta) and est.se == pytest.approx(math.sqrt(var))
    # equal probabilities n/N are the simple random sample
    srs = ppi_mean(y, [1, 0, 0], np.tile([1.0, 0.0, 0.0], 4))
    same = ppi_mean(y, [1, 0, 0], np.tile([1.0, 0.0, 0.0], 4), pi=[0.25] * 3)
    assert (srs.value, srs.se) == pytest.approx((same.value, same.se))


def test_ratio_by_the_delta_method() -> None:
    # human-only (λ = 0), simple random sample of 4 from 6: R = ΣA/ΣB = 3/4 and the variance
    # of the linearised values z = (a − R·b)/b̄ with the finite-population correction
    a, b = np.array([1.0, 0.0, 1.0, 1.0]), np.array([1.0, 1.0, 1.0, 1.0])
    r = ppi_ratio((a, a, np.ones(6)), (b, b, np.ones(6)), lam=0.0)
    z = (a - 0.75 * b) / 1.0
    var = (1 - 4 / 6) * z.var(ddof=1) / 4
    assert r.value == pytest.approx(0.75) and r.se == pytest.approx(math.sqrt(var))


def test_classical_mean_is_lambda_zero() -> None:
    f, y, idx = _study(5)
    c = classical_mean(y[idx], f.size)
    assert c.value == pytest.approx(y[idx].mean())
    assert c.se == pytest.approx(math.sqrt((1 - idx.size / f.size) * y[idx].var(ddof=1)
                                           / idx.size))


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"y": [1], "f_labelled": [1], "f_population": [1, 0]}, "at least 2 labelled"),
    ({"y": [1, 0], "f_labelled": [1], "f_population": [1, 0]}, "differ in length"),
    ({"y": [1, 0], "f_labelled": [1, 0], "f_population": [1, 0], "pi": [0.5, 1.5]},
     "pi: expected one inclusion probability in"),
    ({"y": [1, 0], "f_labelled": [1, 0], "f_population": [1, 0], "pi": [0.0, 1.0]},
     "(0, 1]"),
    ({"y": [1, float("nan")], "f_labelled": [1, 0], "f_population": [1, 0]}, "y[1]"),
    ({"y": [1, 0, 1], "f_labelled": [1, 0, 1], "f_population": [1, 0, 1, 1],
      "strata": ["a", "a", "b"], "population_strata": ["a", "a", "b", "b"]},
     "stratum 'b' has 1 labelled item"),
    ({"y": [1, 0], "f_labelled": [1, 0], "f_population": [1, 0, 1],
      "strata": ["a", "a"], "population_strata": ["a", "a", "c"]},
     "stratum 'c' has no labelled item"),
])
def test_bad_input(kwargs: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError, match=f".*{message.replace('(', '.').replace(')', '.')}"
                       .replace("[", r"\[").replace("]", r"\]")):
        ppi_mean(**kwargs)


@pytest.mark.parametrize("n", [20, 50])
def test_coverage_on_simulated_studies(n: int) -> None:
    """Over 1,000 simple random samples of a biased judge's population the 95 % PPI++ interval
    holds the true (all-items) human mean at least 93 % of the time; the judge-only value is
    off by its bias and never covers it. (benchmarks/ppi_coverage.py does this on real
    judge scores and human labels.)"""
    f, y, _ = _study(6, N=600, n=n)
    truth = y.mean()
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(1000):
        idx = rng.choice(f.size, n, replace=False)
        lo, hi = ppi_mean(y[idx], f[idx], f).ci
        hits += lo <= truth <= hi
    assert hits / 1000 >= 0.93, hits
    assert abs(f.mean() - truth) > 0.05  # the judge alone is biased here


def test_small_strata_share_one_lambda_that_minimises_the_variance() -> None:
    """With fewer than TUNE_PER_STRATUM labels in a stratum, one λ serves every stratum: the
    one whose fixed-λ standard error is smallest (checked on a grid of λ)."""
    rng = np.random.default_rng(11)
    pop = ["a"] * 60 + ["b"] * 40
    f = rng.random(100)
    y = np.clip(f + 0.3 * rng.standard_normal(100), 0, 1)
    idx = list(rng.choice(60, 5, replace=False)) + list(60 + rng.choice(40, 6, replace=False))
    strata = [pop[k] for k in idx]
    est = ppi_mean(y[idx], f[idx], f, strata=strata, population_strata=pop)
    assert est.lam[0] == est.lam[1] and 0 < est.lam[0] < 1
    ses = {lam: ppi_mean(y[idx], f[idx], f, strata=strata, population_strata=pop,
                         lam=lam).se for lam in np.linspace(0, 1, 201)}
    best = min(ses, key=ses.get)  # type: ignore[arg-type]
    assert abs(best - est.lam[0]) <= 0.005 + 1e-9
    # every stratum with 10 labels or more: each its own λ
    idx = list(rng.choice(60, 12, replace=False)) + list(60 + rng.choice(40, 10,
                                                                        replace=False))
    own = ppi_mean(y[idx], f[idx], f, strata=[pop[k] for k in idx], population_strata=pop)
    assert own.lam[0] != own.lam[1]
