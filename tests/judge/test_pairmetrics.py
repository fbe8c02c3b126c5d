"""The leaderboard's bootstrap metrics of all resamples at once
(:func:`judge.calibration.pairmetrics.replicates_at_tau`) give, replicate by replicate, the
numbers :func:`judge.calibration.pairmetrics.metrics_at_tau` gives on the resampled rows (its
AUCs sort each resample: :func:`metrics.roc_auc`, :func:`metrics.pr_auc`), so the intervals
and paired differences the leaderboard prints do not depend on which path computed them."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from judge.calibration.pairmetrics import METRICS, metrics_at_tau, replicates_at_tau
from judge.pipeline.uncertainty import bootstrap_cis, paired_bootstrap
from metrics import bootstrap_indices

AM2ICO = Path(__file__).resolve().parents[2] / "examples" / "am2ico_word_pairs.tsv"


def _rows(scores: Any, labels: Any, tau: float) -> list[dict[str, Any]]:
    return [{"index": k, "score": float(s), "label": bool(y), "tau": tau}
            for k, (s, y) in enumerate(zip(scores, labels, strict=True))]


def _am2ico(tau: float) -> list[dict[str, Any]]:
    """AM2iCo's 500 labelled pairs scored by shared characters (lower-cased) over the longer
    string: most pairs (a Chinese word against an English one) tie at 0."""
    with AM2ICO.open(encoding="utf-8") as f:
        pairs = list(csv.DictReader(f, delimiter="\t"))
    scores = [len(set(p["pred"].lower()) & set(p["truth"].lower()))
              / max(len(p["pred"]), len(p["truth"])) for p in pairs]
    return _rows(scores, [p["label"] == "1" for p in pairs], tau)


def _synthetic(n: int, seed: int, tau: float) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    return _rows(np.round(np.clip(rng.normal(0.4 + 0.3 * y, 0.2), 0, 1), 1), y, tau)


DATA = {
    "am2ico": lambda: _am2ico(0.2),
    "am2ico-no-tau": lambda: _am2ico(math.inf),  # τ undefined: nothing predicted positive
    "ties-300": lambda: _synthetic(300, 1, 0.5),
    "five-pairs": lambda: _synthetic(5, 2, 0.45),  # one-class resamples: NaN AUCs
}


@pytest.mark.parametrize("name", DATA)
def test_replicates_equal_metrics_at_tau_of_each_resample(name: str) -> None:
    rows = DATA[name]()
    idx = bootstrap_indices(len(rows), 150, 11)
    got = replicates_at_tau(rows)(idx)
    assert list(got) == list(METRICS)
    nan = 0
    for b, i in enumerate(idx):
        want = metrics_at_tau([rows[k] for k in i])
        for m in METRICS:
            if math.isnan(want[m]):
                assert math.isnan(got[m][b]), (m, b)
                nan += 1
            else:
                assert abs(got[m][b] - want[m]) <= 1e-12, (m, b, got[m][b], want[m])
    assert (nan > 0) == (name in ("five-pairs", "am2ico-no-tau"))


def test_bootstrap_and_paired_intervals_equal_the_per_resample_path() -> None:
    a, b = _am2ico(0.2), _synthetic(500, 3, 0.5)
    fast = bootstrap_cis(metrics_at_tau, a, 300, 4, replicates=replicates_at_tau)
    slow = bootstrap_cis(metrics_at_tau, a, 300, 4)
    assert list(fast["ci95"]) == list(slow["ci95"]) == list(METRICS)
    for m in METRICS:
        assert fast["ci95"][m] == pytest.approx(slow["ci95"][m], abs=1e-12), m
    fast_p = paired_bootstrap(metrics_at_tau, a, b, 300, 4, replicates=replicates_at_tau)
    slow_p = paired_bootstrap(metrics_at_tau, a, b, 300, 4)
    for m in METRICS:
        assert fast_p[m]["ci95"] == pytest.approx(slow_p[m]["ci95"], abs=1e-12), m
        assert fast_p[m]["diff"] == slow_p[m]["diff"]
