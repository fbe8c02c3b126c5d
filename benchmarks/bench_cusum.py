"""The drift canary's CUSUM on simulated checks: false alarms, step shifts and slow ramps, and
the per-check score-shift test it races (no server: the statistical core called directly).

    python benchmarks/bench_cusum.py [--seeds 2000] [--seed 0]

Each simulated calibration holds 100 pairs, scored 0.9 or 0.1 (agreeing with a random human
label on 85 %) plus uniform noise ± 0.05, as benchmarks/bench_drift.py's fake judge; a check
re-judges the same 100 pairs with fresh noise, plus the drift δ_t of check t, clipped to
[0, 1]. A check's own test is its score-shift test (Wilcoxon signed rank, Pratt's zeros,
``scipy.stats.wilcoxon``, at α/4 = 0.0125 as :func:`judge.calibration.drift.compare` runs it;
the check's other three tests rarely see a uniform shift and are left out here). CUSUMs:

* **shipped**: :func:`judge.calibration.cusum.innovations` (self-starting) and
  :func:`judge.calibration.cusum.cusum` with the shipped k and h, called per history;
* **self-starting, k = 0.25**: the same innovations, h set so 5 % of unchanged judges signal
  within 10 checks (a chart tuned to half-SD shifts);
* **from stored, ρ = 1/2**: Page's CUSUM of each check's own standardized shift
  ``(X_t − X_0) / (se_t √2)`` — equicorrelated with ρ = 1/2 under the null, since every check
  shares the stored mean's noise and stored and fresh draws are exchangeable — with k = 0.5
  and h set for ρ = 1/2 by simulation so that 5 % of unchanged judges signal within 10 checks.

The calibrated thresholds come from separate null seeds (``--seed`` + 1) from those measured.
Printed: false alarms within 10 and 50 checks; step shifts; ramps δ_t = r·(t − s) after s
stable checks: per rate, how often the CUSUM signals first, at the same check, after the
check's own test, or neither, within 10 checks of the ramp (a signal during the stable
checks is a false alarm, counted apart).

Measured on 2026-12-02 (2000 seeds, 32 s; the numbers are quoted in
judge/calibration/cusum.py and docs/explanation/probes.md).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judge.calibration.cusum import CUSUM_H, CUSUM_K, cusum, innovations  # noqa: E402

PAIRS, NOISE, CUT = 100, 0.05, 0.05 / 4
Arr = NDArray[np.float64]


def checks(seeds: int, n: int, seed: int, rate: float = 0.0, step: float = 0.0,
           stable: int = 0) -> tuple[Arr, Arr, Arr, Arr]:
    """``seeds`` histories of ``n`` checks, drift ``rate·(t − stable) + step`` after the
    first ``stable`` checks: (X_0, X_t, se_t, the score-shift test's p), shapes (S,), (S, n)."""
    from scipy.stats import wilcoxon

    rng = np.random.default_rng(seed)
    y = rng.random((seeds, 1, PAIRS)) < 0.5
    mu = np.where(rng.random((seeds, 1, PAIRS)) < 0.85, np.where(y, .9, .1), np.where(y, .1, .9))
    stored = mu[:, 0] + rng.uniform(-NOISE, NOISE, (seeds, PAIRS))
    t = np.arange(1, n + 1)[None, :, None]
    delta = (rate * (t - stable) + step) * (t > stable)
    fresh = np.clip(mu + rng.uniform(-NOISE, NOISE, (seeds, n, PAIRS)) + delta, 0, 1)
    d = fresh - stored[:, None, :]
    p = wilcoxon(d, zero_method="pratt", axis=-1).pvalue
    return stored.mean(-1), fresh.mean(-1), d.std(-1, ddof=1) / np.sqrt(2 * PAIRS), p


def page(u: Arr, k: float) -> Arr:
    """max(C⁺_t, C⁻_t) of Page's two-sided CUSUM of each row of ``u`` (shape (S, n))."""
    hi, lo, out = np.zeros(len(u)), np.zeros(len(u)), np.empty_like(u)
    for t in range(u.shape[1]):
        hi, lo = np.maximum(0, hi + u[:, t] - k), np.maximum(0, lo - u[:, t] - k)
        out[:, t] = np.maximum(hi, lo)
    return out


def selfstart(x0: Arr, x: Arr, se: Arr) -> Arr:
    """The shipped innovations of every history."""
    return np.array([innovations(float(a), list(b), list(c)) for a, b, c in zip(x0, x, se,
                                                                            strict=True)])


def first(hit: NDArray[np.bool_]) -> NDArray[np.int_]:
    """The 1-based first check where each row is True (a large number when never)."""
    return np.where(hit.any(1), hit.argmax(1) + 1, 10 ** 6)


def signals(x0: Arr, x: Arr, se: Arr, h: dict[str, float]) -> dict[str, NDArray[np.int_]]:
    """Each CUSUM's first signal of every history."""
    u = selfstart(x0, x, se)
    return {"shipped": first(np.array([[max(s) > CUSUM_H for s in cusum(r)[0]] for r in u])),
            "self-starting, k = 0.25": first(page(u, 0.25) > h["self-starting, k = 0.25"]),
            "from stored, ρ = 1/2": first(page((x - x0[:, None]) / (se * np.sqrt(2)), 0.5)
                                          > h["from stored, ρ = 1/2"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    t0, s = time.perf_counter(), args.seeds
    x0, x, se, _ = checks(s, 10, args.seed + 1)  # thresholds: separate null seeds
    u = selfstart(x0, x, se)
    h = {"self-starting, k = 0.25": float(np.quantile(page(u, 0.25).max(1), 0.95)),
         "from stored, ρ = 1/2": float(np.quantile(
             page((x - x0[:, None]) / (se * np.sqrt(2)), 0.5).max(1), 0.95))}
    print(f"{s} simulated judges a setting, {PAIRS} pairs, noise ± {NOISE}; shipped CUSUM "
          f"k = {CUSUM_K:g}, h = {CUSUM_H:g}; calibrated h: "
          + ", ".join(f"{k} {v:.2f}" for k, v in h.items()))
    x0, x, se, p = checks(s, 50, args.seed)
    test = first(p < CUT)
    print("\nunchanged judge, share signalling within 10 / 50 checks:")
    print(f"  check's own score-shift test  {np.mean(test <= 10):6.1%} / "
          f"{np.mean(test <= 50):6.1%}")
    for name, f in signals(x0, x, se, h).items():
        print(f"  CUSUM {name:<24}{np.mean(f <= 10):6.1%} / {np.mean(f <= 50):6.1%}")
    sd = float(np.mean(se[:, 0]))  # the SE of one check's mean
    print(f"\n(the SE of one check's mean is {sd:.4f}; of a check's shift from the stored "
          f"mean {sd * np.sqrt(2):.4f})")
    print("\nstep shift at check s + 1: share found within 10 checks of it, @ median check:")
    for step in (0.005, 0.01, 0.02):
        for stable in (0, 5):
            x0, x, se, p = checks(s, stable + 10, args.seed + 7, step=step, stable=stable)
            row = {"own test": first(p[:, stable:] < CUT) + stable, **signals(x0, x, se, h)}
            found = {k: v[(v > stable) & (v <= stable + 10)] - stable for k, v in row.items()}
            print(f"  +{step:<6} s = {stable}: " + "; ".join(
                f"{k} {len(v) / s:.0%}" + (f" @{np.median(v):g}" if len(v) else "")
                for k, v in found.items()))
    print("\nramp +r a check after s stable checks, within its first 10 checks — CUSUM first"
          " / same check / own test first / neither (false alarm during the s stable):")
    for rate in (0.0005, 0.001, 0.002, 0.003, 0.005, 0.01):
        reach = 2.5 * sd * np.sqrt(2) / rate
        print(f"  r = {rate} (a check's mean z reaches 2.5 at ramp check {reach:.1f})")
        for stable in (0, 5):
            x0, x, se, p = checks(s, stable + 10, args.seed + 11, rate=rate, stable=stable)
            test = first(p[:, stable:] < CUT) + stable  # its own false alarms before: apart
            for name, c in signals(x0, x, se, h).items():
                early = np.mean(c <= stable)
                a = np.where(c > stable, c, 10 ** 6)
                b = np.where(test <= stable + 10, test, 10 ** 6)
                print(f"    s = {stable} {name:<24} {np.mean(a < b):4.0%} / "
                      f"{np.mean((a == b) & (a < 10 ** 6)):4.0%} / {np.mean(b < a):4.0%} / "
                      f"{np.mean((a == b) & (a == 10 ** 6)):4.0%}"
                      + (f" ({early:.1%})" if stable else ""))
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
