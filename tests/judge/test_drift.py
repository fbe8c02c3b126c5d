"""The drift canary: ``calibrate --check CAL LABELS --rejudge N`` (judge/calibration/canary.py)
and its statistics (judge/calibration/drift.py).

The statistics are checked against scikit-learn (ROC-AUC, Cohen's κ) and hand computations
(the subset's allocation, Wilcoxon's exact p, the McNemar and binomial tails, the CUSUM). The
error rates are measured on simulated score vectors here (few seeds) and end to end against
the fake server in benchmarks/bench_drift.py (100 seeds). The end-to-end test changes the
loopback fake's behaviour under the same model name (tests/fake_openai.py ``drift_shift``).
"""

from __future__ import annotations

import json
import math
import random
import string
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score, roc_auc_score

from judge.calibration.cusum import cusum, innovations
from judge.calibration.drift import compare, delong_p, flip_test, pinned_subset
from tests.clirun import CliResult
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig, fake_score


# ---------------------------------------------------------------------------- the subset
def test_pinned_subset_allocates_by_hand() -> None:
    # strata (label, stored > τ): (neg, ≤) 4 pairs, (neg, >) 1, (pos, ≤) 2, (pos, >) 3.
    # n = 5 of 10: quotas 2, 0.5, 1, 1.5 → floors 2, 0, 1, 1 (4); one left, remainders tie at
    # 0.5 between (neg, >) (size 1) and (pos, >) (size 3): the larger stratum gets it.
    positive = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1], dtype=bool)
    stored = np.array([.1, .2, .3, .4, .9, .1, .2, .8, .9, .95])
    eligible = np.ones(10, dtype=bool)
    got = pinned_subset(positive, stored, eligible, 0.5, 5, seed=3)
    strata = [(bool(positive[i]), bool(stored[i] > 0.5)) for i in got]
    assert sorted(strata) == sorted([(False, False)] * 2 + [(True, False)] + [(True, True)] * 2)
    assert list(got) == sorted(got)
    assert np.array_equal(got, pinned_subset(positive, stored, eligible, 0.5, 5, seed=3))
    eligible[[0, 1]] = False  # never drawn; n over the eligible pairs: all of them
    assert list(pinned_subset(positive, stored, eligible, 0.5, 50, seed=3)) == list(range(2, 10))


# ------------------------------------------------------------------------- the statistics
def _vectors(seed: int, m: int = 100, agree: float = 0.85, noise: float = 0.05,
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.random.Generator]:
    """Human labels, true scores (0.9 / 0.1, agreeing with the labels on ``agree`` of the
    pairs) and stored scores with uniform noise ± ``noise``."""
    rng = np.random.default_rng(seed)
    y = rng.random(m) < 0.5
    mu = np.where(rng.random(m) < agree, np.where(y, 0.9, 0.1), np.where(y, 0.1, 0.9))
    return y, mu, mu + rng.uniform(-noise, noise, m), rng


def test_compare_matches_references() -> None:
    y, mu, stored, rng = _vectors(7, m=60)
    fresh = np.clip(mu + rng.uniform(-0.05, 0.05, 60), 0, 1)
    fresh[:4] = 1 - fresh[:4]  # four verdicts flip
    stored[5], fresh[6] = np.nan, np.nan  # no verdict: left out of everything
    d = compare(stored, fresh, y, 0.5, n_boot=500, seed=1)
    ok = np.isfinite(stored) & np.isfinite(fresh)
    s, f, yy = stored[ok], fresh[ok], y[ok]
    assert d.pairs == 58
    assert d.auc["stored"] == pytest.approx(roc_auc_score(yy, s))
    assert d.auc["fresh"] == pytest.approx(roc_auc_score(yy, f))
    assert d.kappa["stored"] == pytest.approx(cohen_kappa_score(yy, s > 0.5))
    assert d.kappa["fresh"] == pytest.approx(cohen_kappa_score(yy, f > 0.5))
    assert d.shift_mean == pytest.approx(float(np.mean(f - s)))
    flipped = (s > 0.5) != (f > 0.5)
    assert d.flips == int(flipped.sum()) == 4
    assert d.to_positive + d.to_negative == 4
    wrong = int(((s > 0.5) == yy).sum() - ((f > 0.5) == yy).sum())
    assert d.to_wrong - d.to_right == wrong
    # exact McNemar: two-sided binomial tail of the smaller count among b + c at 1/2
    b, c = d.to_wrong, d.to_right
    tail = sum(math.comb(b + c, j) for j in range(min(b, c) + 1)) / 2 ** (b + c)
    assert d.kappa_p == pytest.approx(min(1.0, 2 * tail))
    assert d.auc["ci"][0] <= d.auc["delta"] <= d.auc["ci"][1]


def test_wilcoxon_exact_by_hand() -> None:
    # five positive differences, no ties: the exact two-sided p is 2 / 2^5 = 0.0625
    stored = np.array([.1, .2, .3, .4, .5])
    fresh = stored + np.array([.01, .02, .03, .04, .05])
    d = compare(stored, fresh, np.array([0, 0, 1, 1, 1], dtype=bool), 0.9, n_boot=100)
    assert d.shift_p == pytest.approx(0.0625)
    assert d.shift_mean == pytest.approx(0.03) and d.moved == []
    same = compare(stored, stored.copy(), np.array([0, 0, 1, 1, 1], dtype=bool), 0.9,
                   n_boot=100)
    assert (same.shift_p, same.shift_mean, same.flips, same.flip_p) == (1.0, 0.0, 0, 1.0)


def test_flip_test_equals_the_binomial_tail_when_all_pairs_are_alike() -> None:
    # equal null probabilities: the statistic is a multiple of the count, so p is the
    # binomial tail P(X >= 3), X ~ Bin(100, 0.01): 1 - sum_{j<3} C(100, j) .01^j .99^(100-j)
    flipped = np.zeros(100, dtype=bool)
    flipped[:3] = True
    tail = 1 - sum(math.comb(100, j) * 0.01 ** j * 0.99 ** (100 - j) for j in range(3))
    assert tail == pytest.approx(0.0794, abs=1e-4)
    assert flip_test(np.full(100, 0.01), flipped) == pytest.approx(tail, abs=0.006)
    assert flip_test(np.full(100, 0.01), np.zeros(100, dtype=bool)) == 1.0


def test_delong_by_hand() -> None:
    # y = 1 1 0 0. a: positives 0.9, 0.4 beat the negatives 0.5, 0.1 → components V10 = [1,
    # .5], V01 = [.5, 1], AUC .75; b: V10 = V01 = [1, 1], AUC 1. Sample variances: .125 for
    # each of a's, 0 for b's, covariances 0 → Var(Δ) = .125 / 2 + .125 / 2 = .125;
    # z = .25 / √.125 = .7071, p = 2 Φ(−.7071) = .4795
    y = np.array([1, 1, 0, 0], dtype=bool)
    p = delong_p(y, np.array([.9, .4, .5, .1]), np.array([.9, .8, .5, .1]))
    assert p == pytest.approx(0.4795, abs=1e-4)
    assert delong_p(y, np.array([.9, .4, .5, .1]), np.array([.9, .4, .5, .1])) == 1.0


def test_cusum_and_innovations_by_hand() -> None:
    # k = 0.5, h = 4: C+ = 0, 1, 3, 6 → signal at the third check (3 < 4 < 6: the fourth);
    # C- stays 0
    path, first = cusum([0.5, 1.5, 2.5, 3.5])
    assert path == [(0.0, 0.0), (1.0, 0.0), (3.0, 0.0), (6.0, 0.0)] and first == 3
    path, first = cusum([-2.0, 1.0, -3.0], k=0.5, h=3.0)
    assert path == [(0.0, 1.5), (0.5, 0.0), (0.0, 2.5)] and first is None
    # stored mean .5; checks .6 then .5, se .1 each: u1 = .1 / (.1 √2) = .7071;
    # u2 = (.5 − (.5 + .6) / 2) / (.1 √1.5) = −.05 / .12247 = −.4082
    assert innovations(0.5, [0.6, 0.5], [0.1, 0.1]) == pytest.approx([0.7071, -0.4082],
                                                                      abs=1e-4)
    assert innovations(0.5, [0.5, 0.6], [0.0, 0.0]) == [0.0, 8.0]  # no noise: moved → cap
    # unequal SEs (a check that compared fewer pairs): the stored mean's variance is pooled,
    # v0 = (.1² + .05²) / 2 = .00625 at t = 2; Var = .05² + (.00625 + .1²) / 2² = .0065625,
    # u2 = −.05 / .081009 = −.6172 (u1: v0 = .01, Var = .01 + .01, .1 / .14142 = .7071)
    assert innovations(0.5, [0.6, 0.5], [0.1, 0.05]) == pytest.approx([0.7071, -0.6172],
                                                                       abs=1e-4)


def test_innovations_of_a_ramp_are_half_its_slope_by_hand() -> None:
    # X_t = .5 + .01 t, se .01 each: the earlier mean is .5 + .01 (t − 1) / 2, the gap
    # .01 (t + 1) / 2, the SD .01 √(1 + 1/t): u = (t + 1) / (2 √(1 + 1/t)) = √(t (t + 1)) / 2
    # → .7071, 1.2247, 1.7321, 2.2361; C+ with k = .5: .2071, .9318, 2.1639, 3.9000 (no
    # signal at h = 4), then u5 = √30 / 2 = 2.7386 → C+ 6.1386: the fifth check signals
    u = innovations(0.5, [0.5 + 0.01 * t for t in range(1, 6)], [0.01] * 5)
    assert u == pytest.approx([math.sqrt(t * (t + 1)) / 2 for t in range(1, 6)])
    path, first = cusum(u)
    assert [hi for hi, _ in path] == pytest.approx([.2071, .9318, 2.1639, 3.9000, 6.1386],
                                                   abs=1e-4)
    assert first == 4


def test_error_rates_on_simulated_scores() -> None:
    """The statistical core on simulated checks of 100 pairs (10 seeds each; the 100-seed
    end-to-end rates: benchmarks/bench_drift.py): an unchanged judge passes, a +0.1 shift
    and 10 flipped verdicts fail."""
    unchanged = shifted = flipped = 0
    for seed in range(10):
        y, mu, stored, rng = _vectors(seed)
        noise = rng.uniform(-0.05, 0.05, 100)
        unchanged += not compare(stored, mu + noise, y, 0.5, n_boot=500, seed=seed).moved
        shifted += "score shift" in compare(stored, np.clip(mu + noise + 0.1, 0, 1), y, 0.5,
                                            n_boot=500, seed=seed).moved
        flip = rng.choice(100, 10, replace=False)
        fresh = mu + noise
        fresh[flip] = 1 - fresh[flip]
        flipped += bool(compare(stored, fresh, y, 0.5, n_boot=500, seed=seed).moved)
    # each test at alpha/4 = 0.0125: an unchanged judge fails about 1 check in 30 (seed 2
    # here: Wilcoxon p 0.011)
    assert unchanged >= 9 and shifted == 10 and flipped >= 9, (unchanged, shifted, flipped)


def test_cusum_catches_a_slow_drift_before_the_single_checks() -> None:
    """Ten checks of the same pairs, the k-th with every score 0.001·k higher (seed fixed,
    so the order is exact): the CUSUM over the history signals at a check where no single
    check's tests had yet found the drift significant."""
    y, mu, stored, rng = _vectors(3)  # single checks: none significant; CUSUM: 7th
    means: list[float] = []
    ses: list[float] = []
    first_test = first_cusum = None
    for k in range(1, 11):
        fresh = np.clip(mu + rng.uniform(-0.05, 0.05, 100) + 0.001 * k, 0, 1)
        d = compare(stored, fresh, y, 0.5, n_boot=500, seed=k)
        assert d.fresh_mean is not None and d.stored_mean is not None
        means.append(d.fresh_mean)
        ses.append(d.mean_se)
        if first_test is None and d.moved:
            first_test = k
        if first_cusum is None and cusum(innovations(d.stored_mean, means, ses))[1] is not None:
            first_cusum = k
    assert first_cusum is not None
    assert first_test is None or first_cusum < first_test, (first_cusum, first_test)


# ------------------------------------------------------------------------- end to end
KEY = {"OPENAI_API_KEY": "sk-test-drift"}


def _labels(path: Path, pairs: int = 60, seed: int = 0) -> Path:
    """Distinct pairs of 7 random letters, half sharing their first letter (the fake scores
    those 0.9, others 0.1), labelled like the fake's verdict on 85 % of them."""
    rng = random.Random(seed)
    rows: dict[tuple[str, str], int] = {}
    while len(rows) < pairs:
        a = "".join(rng.choices(string.ascii_lowercase, k=7))
        b = (a[0] if rng.random() < 0.5 else rng.choice(string.ascii_lowercase)) + "".join(
            rng.choices(string.ascii_lowercase, k=6))
        same = fake_score(a, b) > 0.5
        rows[(a, b)] = int(same if rng.random() < 0.85 else not same)
    path.write_text("".join(json.dumps({"pred": a, "truth": b, "label": y}) + "\n"
                            for (a, b), y in rows.items()), encoding="utf-8")
    return path


@pytest.fixture
def calibrated(tmp_path: Path, cli: Callable[..., CliResult],
               ) -> Iterator[tuple[FakeOpenAIServer, Path, Path, list[str]]]:
    """A fake judge (no noise: each pair's score is exact) calibrated on 60 labelled pairs."""
    labels = _labels(tmp_path / "labels.jsonl")
    with FakeOpenAIServer(FakeServerConfig()) as srv:
        common = ["--judge", "openai:fake", "--base-url", srv.base_url, "--cache-dir",
                  str(tmp_path / "cache")]
        res = cli("calibrate", labels, *common, "--out", tmp_path / "cal", "--bootstrap", "0",
                  "--folds", "2", env=KEY)
        assert res.returncode == 0, res.output
        yield srv, tmp_path / "cal" / "calibration.json", labels, common


def test_rejudge_end_to_end(calibrated: Any, cli: Callable[..., CliResult]) -> None:
    srv, cal, labels, common = calibrated
    stored = json.loads(cal.read_text(encoding="utf-8"))["judges"]["openai:fake"]
    assert stored["pair_scores"]["values"] == [
        fake_score(json.loads(r)["pred"], json.loads(r)["truth"])
        for r in labels.read_text(encoding="utf-8").splitlines()]
    calls = len(srv.log)
    res = cli("calibrate", "--check", cal, labels, "--rejudge", "40", *common, "--dry-run",
              env=KEY)
    assert res.returncode == 0, res.output
    assert len(srv.log) == calls  # priced, not called
    assert "40 distinct pairs to judge" in " ".join(res.stdout.split())
    # unchanged: the 40 pairs are judged again (the cache is bypassed), nothing moved
    res = cli("calibrate", "--check", cal, labels, "--rejudge", "40", *common, env=KEY)
    assert res.returncode == 0, res.output
    assert len(srv.log) == calls + 40
    line = res.stdout.splitlines()[0]
    assert line.startswith("openai:fake: OK: 40 pairs re-judged, 40 compared; score shift "
                           "+0.000 (Wilcoxon p 1)"), line
    # the same model name, every score 0.1 higher: exit 1, one line naming what moved
    srv.config.drift_shift = 0.1
    res = cli("calibrate", "--check", cal, labels, "--rejudge", "40", *common, "--json",
              env=KEY)
    assert res.returncode == 1, res.output
    (check,) = json.loads(res.stdout)
    assert check["problems"][0] == "score shift"
    assert check["drift"]["shift_mean"] == pytest.approx(0.1)
    assert check["line"].startswith("openai:fake: drift (score shift")
    history = cal.with_name("calibration.drift.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(r) for r in history.splitlines()]
    assert [r["problems"] for r in rows] == [[], check["problems"]]
    assert rows[0]["subset"] == rows[1]["subset"] and rows[1]["cusum"]["checks"] == 2
    # a dead endpoint: failed calls are outcomes, never scores of 0
    srv.config.drift_shift, srv.config.status_all = 0.0, 500
    res = cli("calibrate", "--check", cal, labels, "--rejudge", "40", *common,
              "--max-retries", "0", env=KEY)
    assert res.returncode == 1, res.output
    assert res.stdout.startswith("openai:fake: failed (failed calls): 40 pairs re-judged, 0 "
                                 "compared; failed calls: 40 ")
    assert "no CUSUM: no pair compared" in res.stdout


def test_rejudge_refuses_bad_input(calibrated: Any, cli: Callable[..., CliResult],
                                   tmp_path: Path) -> None:
    srv, cal, labels, common = calibrated
    calls = len(srv.log)
    cases = {
        ("calibrate", labels, "--rejudge", "5", *common): "--rejudge go with --check",
        ("calibrate", "--check", cal, "--rejudge", "5", *common): "--rejudge needs LABELS",
        ("calibrate", "--check", cal, labels, "--rejudge", "0", *common): ">= 1, got 0",
        ("calibrate", "--check", cal, labels, "--rejudge", "5", "--alpha", "1.5", *common):
            "field 'alpha'",
        ("calibrate", "--check", cal, "--alpha", "0.1", *common): "--alpha go with --check",
    }
    cases[("calibrate", "--check", cal, labels, "--rejudge", "5", "--history",
           tmp_path / "none" / "h.jsonl", *common)] = "field 'history': its folder does not"
    for args, message in cases.items():
        res = cli(*args, env=KEY)
        assert res.returncode == 2 and message in res.stderr, (args, res.output)
        assert len(res.stderr.strip().splitlines()) == 1
    # a calibration made before per-pair scores were kept
    data = json.loads(cal.read_text(encoding="utf-8"))
    del data["judges"]["openai:fake"]["pair_scores"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data), encoding="utf-8")
    res = cli("calibrate", "--check", old, labels, "--rejudge", "5", *common, env=KEY)
    assert res.returncode == 2 and "keeps no per-pair scores" in res.stderr, res.output
    # other labels than those the calibration scored
    other = _labels(tmp_path / "other.jsonl", seed=1)
    res = cli("calibrate", "--check", cal, other, "--rejudge", "5", *common, env=KEY)
    assert res.returncode == 2 and "are not the 60 pairs" in res.stderr, res.output
    assert len(srv.log) == calls  # no judge call on bad input
