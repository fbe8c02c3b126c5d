"""Coverage of the item-only and the items × τ metric intervals, by simulation with a planted truth.

``eval --tau-from calibration.json`` reports a metric at a τ̂ chosen on a small labelled set.
Its item-only bootstrap interval treats τ̂ as fixed; :func:`judge.pipeline.uncertainty.joint_tau_cis`
also resamples τ from the calibration's bootstrap τ̂ values. This script checks, by simulation,
how often each nominal 95 % interval covers the true value.

Planted population (one judge, one dataset):

* a judged pair is a true match with probability 0.4; its score is N(0.62, 0.16) for a match
  and N(0.38, 0.16) otherwise, clipped to [0, 1];
* an evaluation item has 1–3 predictions and 1–3 gold strings; its similarity matrix holds such
  scores, one true match per prediction on the diagonal at most;
* τ* = the F1-best cut of the match decision on the population (10⁶ labelled pairs, the same
  rule as ``simjudge calibrate --objective f1``), and the **true value** is the population's
  micro F1 of ``--task selection`` at τ* (selection metrics of 20,000 items;
  :func:`metrics.fuzzy_match` and the selection task's ``metrics_from_rows``).

Each replicate draws ``--n-cal`` labelled pairs, picks τ̂ and its bootstrap τ̂ values exactly as
``simjudge calibrate`` does (F1-best cut, resamples with one class skipped), draws ``--n-items``
items, and builds both intervals (``--boot`` resamples each) around the micro F1 at τ̂. Printed:
coverage of the true value and mean width, per setting, with a Wilson 95 % interval of the
coverage (:func:`judge.probes.stats.wilson_ci`).

Run: ``python benchmarks/tau_ci_coverage.py [--reps 300] [--boot 200] [--seed 0]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judge.pipeline.uncertainty import bootstrap_cis, joint_tau_cis  # noqa: E402
from judge.probes.stats import wilson_ci  # noqa: E402
from judge.tasks.registry import get_task  # noqa: E402
from metrics import best_index, bootstrap_indices, fuzzy_match, sweep_arrays  # noqa: E402

P_MATCH, MU1, MU0, SD = 0.4, 0.62, 0.38, 0.16
TASK = get_task("selection")


def pairs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """n labelled pairs: (scores in [0, 1], labels)."""
    y = rng.random(n) < P_MATCH
    s = np.clip(rng.normal(np.where(y, MU1, MU0), SD), 0.0, 1.0)
    return s, y


def items(rng: np.random.Generator, n: int) -> list[tuple[list[str], list[str], np.ndarray]]:
    """n selection items: (pred, truth, similarity matrix)."""
    out = []
    for _ in range(n):
        k, m = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        y = np.zeros((k, m), dtype=bool)
        for i in range(min(k, m)):
            y[i, i] = rng.random() < P_MATCH
        s = np.clip(rng.normal(np.where(y, MU1, MU0), SD), 0.0, 1.0)
        out.append(([f"p{i}" for i in range(k)], [f"t{j}" for j in range(m)], s))
    return out


def rows_at(its: list[tuple[list[str], list[str], np.ndarray]], tau: float) -> list[dict]:
    """Item rows of the selection task matched at τ."""
    return [fuzzy_match(p, t, s, tau=tau).to_dict() for p, t, s in its]


def best_tau(s: np.ndarray, y: np.ndarray) -> float:
    """The F1-best cut, as ``simjudge calibrate`` picks it."""
    sw = sweep_arrays(s, y)
    return float(sw["tau"][best_index(sw["f1"])])


def tau_boot(s: np.ndarray, y: np.ndarray, n_boot: int, seed: int) -> list[float]:
    """Bootstrap τ̂ values as ``simjudge calibrate`` records them (one-class resamples skipped)."""
    out = []
    for idx in bootstrap_indices(len(s), n_boot, seed):
        sb, yb = s[idx], y[idx]
        if yb.all() or not yb.any() or np.unique(sb).size < 2:
            continue
        out.append(best_tau(sb, yb))
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--boot", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--settings", default="40x100,200x100,40x400",
                    help="comma-separated N_CALxN_ITEMS")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    s_pop, y_pop = pairs(rng, 1_000_000)
    tau_star = best_tau(s_pop, y_pop)
    pop = items(rng, 20_000)
    truth = TASK.metrics_from_rows(rows_at(pop, tau_star))["micro_f1"]
    print(f"planted: τ* = {tau_star:.4f}, true micro F1 at τ* = {truth:.4f} "
          f"(20,000 items); {args.reps} replicates, {args.boot} resamples per interval")
    print(f"{'n_cal':>6}{'n_items':>8}   {'τ̂ sd':>6}   {'item-only cover [95% CI]':<28}"
          f"{'width':>7}   {'items×τ cover [95% CI]':<28}{'width':>7}{'s':>7}")
    for setting in args.settings.split(","):
        n_cal, n_items = (int(x) for x in setting.split("x"))
        hits: dict[str, int] = {"item": 0, "joint": 0}
        widths: dict[str, list[float]] = {"item": [], "joint": []}
        taus: list[float] = []
        t0 = time.perf_counter()
        done = 0
        for r in range(args.reps):
            s, y = pairs(rng, n_cal)
            if y.all() or not y.any():
                continue
            tau_hat = best_tau(s, y)
            samples = tau_boot(s, y, args.boot, args.seed + r)
            its = items(rng, n_items)
            cache: dict[float, Any] = {}

            def at(t: float, its: Any = its, cache: dict[float, Any] = cache) -> Any:
                if t not in cache:
                    cache[t] = rows_at(its, t)
                return cache[t]

            item_ci = bootstrap_cis(TASK.metrics_from_rows, at(tau_hat), args.boot,
                                    args.seed + r)["ci95"]["micro_f1"]
            joint_ci = joint_tau_cis(at, TASK.metrics_from_rows, n_items, samples, args.boot,
                                     args.seed + r)["ci95"]["micro_f1"]
            for name, (lo, hi) in (("item", item_ci), ("joint", joint_ci)):
                hits[name] += int(lo <= truth <= hi)
                widths[name].append(hi - lo)
            taus.append(tau_hat)
            done += 1
        secs = time.perf_counter() - t0
        cells = []
        for name in ("item", "joint"):
            lo, hi = wilson_ci(hits[name], done)
            cells.append(f"{hits[name] / done:.3f} [{lo:.3f}, {hi:.3f}]")
            cells.append(f"{np.mean(widths[name]):.4f}")
        print(f"{n_cal:>6}{n_items:>8}   {np.std(taus):>6.3f}   {cells[0]:<28}{cells[1]:>7}   "
              f"{cells[2]:<28}{cells[3]:>7}{secs:>7.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
