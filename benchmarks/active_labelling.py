"""Active labelling for τ, simulated: how many labels until using τ̂ costs at most 0.01 F1, and
does the stopping rule (``calibrate --pool --suggest --target-loss``, ``simjudge review``) stop
in time?

Simulation on real human labels with the ``local`` judge (its scores computed once per set): all
labels of a set are hidden; a seeded random start of ``--start`` pairs is "labelled"; then labels
are revealed ``--batch`` at a time (1 = the review loop, one pair after each label) by one of two
strategies:

* **stratified** — :func:`judge.calibration.allocation.suggest`: ``--strata`` score strata,
  each first given its minimum of labels, then the strata whose pairs can move the decision's
  loss (:func:`~judge.calibration.allocation.loss_shares`), random within strata; τ̂ from the
  ``N_h/n_h``-weighted sweep;
* **random** — uniform random pairs, τ̂ of the plain sweep (plain ``calibrate``).

After each label (every 10 past ``--budget``, to the whole set, for both alike): the **true
loss** of τ̂, ``objective(all labels, their best τ) − objective(all labels, τ̂)``, and for the
stratified design, up to ``--budget``, the rule's view
(:func:`~judge.calibration.stratified.decision_loss`): the loss's posterior mean and 0.95
bound, τ̂'s 95 % interval and whether the strata hold their minimums. Printed per set and
strategy, over ``--seeds``:

* (a) labels needed: per seed, the labels after which the true loss stays <= ``--target``
  (mean and median over seeds; the stratified/random ratio; the goal is <= 1/3), and the mean
  true loss at 50/100/200 labels — random's is what the rule's stop is compared with;
* (b) the rule (stratified): the labels and the true loss when it first says stop (the mean,
  and the worst seed), and the share of seeds whose true loss is then within ``--target``
  (goal >= 90 %);
* (c) coverage: the share of seeds whose reported τ interval covers τ̂ of all labels when the
  rule stops.

``--rules`` also prints where other stopping statistics would first stop on the same curves
(e.g. ``mean``, the bootstrap's mean regret, the rule until 2026-11).

Then the time :func:`~judge.calibration.stratified.decision_loss` and ``suggest`` take for
``--timing-labels`` labels of a 100,000-pair population with 200 resamples (the review app
recomputes both after every label). A PNG of the mean loss curves goes to ``--plot``.

Sets: AM2iCo en–zh word pairs (``examples/am2ico_word_pairs.tsv``, CC-BY 4.0, 500 pairs) and,
when ``../shared/data`` is present, Multi-SimLex en–zh graded pairs (English word 1 vs Mandarin
word 2, positive when the mean of the two languages' ratings is >= 4 of 6; 1,888 pairs),
COS960 zh word pairs (positive when the mean rating is >= 3 of 4; 960 pairs; MIT) and PAWS-X zh
dev sentence pairs (paraphrase or not; 2,000 pairs; its adversarial word swaps make a weak
judge's case).

Run: ``python benchmarks/active_labelling.py [--seeds 20] [--plot docs/img/active_labelling.png]``
(about 40 minutes on 2 busy cores with ``--budget 500``; ``--batch 20`` is ``calibrate
--suggest 20``'s rounds, about 25).
Measured figures: docs/performance.md, "Active labelling".
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judge.calibration import allocation, stratified  # noqa: E402
from judge.calibration.allocation import suggest  # noqa: E402
from judge.calibration.stratified import (  # noqa: E402
    Design,
    LossEstimate,
    decision_loss,
    score_strata,
)
from judge.judges.embedding.local import LocalJudge  # noqa: E402
from metrics import best_index, normalize, rates_from_counts, sweep_arrays  # noqa: E402

COARSE = 10
"""Grid step past ``--budget``: the true loss is followed to the whole set every this many
labels (for both strategies, so a late excursion above the target counts alike)."""


def load_sets(data: Path) -> dict[str, tuple[list[tuple[str, str]], NDArray[np.bool_]]]:
    """Set name → (pairs, binary labels)."""
    out = {}
    with open(REPO / "examples" / "am2ico_word_pairs.tsv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    out["AM2iCo en-zh"] = ([(r["pred"], r["truth"]) for r in rows],
                           np.array([r["label"] == "1" for r in rows]))
    msl = data / "multisimlex_en_zh" / "derived_en_zh_pairs.tsv"
    if msl.exists():
        with open(msl, encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t"))
        out["Multi-SimLex en-zh"] = (
            [(r["en_word1"], r["zh_word2"]) for r in rows],
            np.array([(float(r["en_score"]) + float(r["zh_score"])) / 2 >= 4 for r in rows]))
    cos = data / "cos960_zh" / "COS960_all.txt"
    if cos.exists():
        parts = [line.split() for line in cos.read_text(encoding="utf-8").splitlines()
                 if line.strip()]
        out["COS960 zh"] = ([(p[0], p[1]) for p in parts],
                            np.array([float(p[2]) >= 3.0 for p in parts]))
    paws = data / "pawsx_zh" / "dev_2k.tsv"
    if paws.exists():
        with open(paws, encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
        out["PAWS-X zh"] = ([(r["sentence1"], r["sentence2"]) for r in rows],
                            np.array([r["label"] == "1" for r in rows]))
    return out


def local_scores(pairs: list[tuple[str, str]]) -> NDArray[np.float64]:
    """The ``local`` judge's scores (1.0 for pairs equal after normalisation, as calibrate)."""
    j = LocalJudge()
    cos = j.raw_cosines(pairs)
    return np.array([1.0 if normalize(a) == normalize(b) else j.score(float(c), a, b)[0]
                     for (a, b), c in zip(pairs, cos, strict=True)])


class TrueLoss:
    """The objective of the rule ``score > τ`` on *all* labels of a set, against its best."""

    def __init__(self, scores: NDArray[np.float64], labels: NDArray[np.bool_],
                 objective: str) -> None:
        sw = sweep_arrays(scores, labels)
        i = best_index(sw[objective])
        self.tau, self.best = float(sw["tau"][i]), float(sw[objective][i])
        self.sorted, self.sorted_pos = np.sort(scores), np.sort(scores[labels])
        self.n, self.n_pos, self.objective = len(scores), int(labels.sum()), objective

    def __call__(self, tau: float | None) -> float:
        """Objective lost by using ``tau`` (inf when there is no τ yet)."""
        if tau is None:
            return float("inf")
        above = self.n - np.searchsorted(self.sorted, tau, side="right")
        tp = self.n_pos - np.searchsorted(self.sorted_pos, tau, side="right")
        fp = above - tp
        value = rates_from_counts(tp, fp, self.n_pos - tp, self.n - self.n_pos - fp)
        return self.best - float(value[self.objective])


@dataclass
class Curve:
    """One seed of one strategy, per grid point (label count)."""

    n: list[int]
    true_loss: list[float]
    rule: list[LossEstimate | None]  # None past the budget, or while τ is undefined
    order: list[int] = field(default_factory=list)  # population indices, in labelling order


def plain_tau(scores: NDArray[np.float64], labels: NDArray[np.bool_],
              objective: str) -> float | None:
    """τ̂ of the unweighted sweep (plain ``calibrate``); None with one class or one score."""
    if labels.all() or not labels.any() or np.unique(scores).size < 2:
        return None
    sw = sweep_arrays(scores, labels)
    return float(sw["tau"][best_index(sw[objective])])


def simulate(s: NDArray[np.float64], y: NDArray[np.bool_], strata: NDArray[np.intp],
             strategy: str, seed: int, args: argparse.Namespace, truth: TrueLoss) -> Curve:
    """One seed of one strategy (see the module docstring)."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(s))  # random: the order labels are revealed in
    labelled = [int(i) for i in order[:args.start]]
    one = np.zeros(len(s), dtype=np.intp)  # random's design: a single stratum
    curve = Curve([], [], [])
    while True:
        lab = np.array(labelled)
        n = len(labelled)
        design = Design(strata if strategy == "stratified" else one, lab, y[lab])
        est = None
        if n <= args.budget and strategy == "stratified":
            try:
                est = decision_loss(s, design, args.objective, args.boot, seed * 100003 + n)
            except ValueError:  # one class so far
                est = None
        if strategy == "stratified":
            tau = est.tau if est is not None else None
            if n > args.budget:
                try:
                    tau = stratified.stratified_tau(s, design, args.objective, 0).tau
                except ValueError:
                    tau = None
        else:
            tau = plain_tau(s[lab], y[lab], args.objective)
        curve.n.append(n)
        curve.true_loss.append(truth(tau))
        curve.rule.append(est)
        if n >= len(s):
            curve.order = labelled
            return curve
        k = min(args.batch if n < args.budget else COARSE, len(s) - n)
        if strategy == "stratified":
            labelled += suggest(design, k, seed * 100003 + n, s, objective=args.objective,
                                n_boot=args.boot, estimate=est, target_loss=args.target)
        else:
            labelled += [int(i) for i in order[n:n + k]]


def labels_needed(c: Curve, target: float) -> int | None:
    """Labels after which the true loss stays <= target (None: never, up to the whole set)."""
    after = None
    for n, loss in zip(reversed(c.n), reversed(c.true_loss), strict=True):
        if loss > target:
            break
        after = n
    return after


def first_stop(c: Curve, target: float) -> int | None:
    """Grid index of the first point where the rule says stop (None: not within budget)."""
    return next((k for k, e in enumerate(c.rule) if e is not None and e.stop(target)), None)


def bound(e: LossEstimate, stat: str) -> float:
    """A stopping statistic of one estimate: ``rule`` (the posterior 0.95 quantile, the rule),
    ``post`` (the posterior mean), ``mean`` (the bootstrap mean regret: the rule before
    2026-11) or ``qNN`` (the NN-th percentile of the bootstrap's regrets, a resample without
    τ*_b counting as +inf)."""
    if stat == "rule":
        return e.upper
    if stat == "post":
        return e.loss
    if stat == "mean":
        return e.bootstrap_loss
    r = np.r_[np.asarray(e.regrets, dtype=float), np.full(e.skipped, np.inf)]
    return float(np.quantile(r, int(stat[1:]) / 100.0, method="higher")) if r.size else np.inf


def rule_stop(c: Curve, target: float, stat: str, hold: int) -> int | None:
    """Grid index of the first point where ``stat <= target`` (minimums met) has held for
    ``hold`` consecutive checks (None: not within budget)."""
    run = 0
    for k, e in enumerate(c.rule):
        ok = e is not None and e.minimums_met and bound(e, stat) <= target
        run = run + 1 if ok else 0
        if run >= hold:
            return k
    return None


def rules_report(curves: list[Curve], target: float, rules: list[str]) -> None:
    """Print, per rule ``STAT[xHOLD]``, where its first stop falls over the seeds."""
    for rule in rules:
        stat, _, hold = rule.partition("x")
        stops = [(c, rule_stop(c, target, stat, int(hold or 1))) for c in curves]
        got = [(c.n[k], c.true_loss[k]) for c, k in stops if k is not None]
        within = np.mean([loss <= target for _, loss in got]) if got else float("nan")
        labels = np.mean([n for n, _ in got]) if got else float("nan")
        worst = max((loss for _, loss in got), default=float("nan"))
        print(f"    rule {rule:<8} stops {len(got):>2}/{len(curves)} at {labels:6.1f} labels; "
              f"true loss <= {target:g} in {100 * within:5.1f} % (worst {worst:.4f})")


def report(name: str, curves: dict[str, list[Curve]], truth: TrueLoss,
           target: float) -> dict[str, dict[str, float]]:
    """Print the set's rows; returns strategy → its figures."""
    out: dict[str, dict[str, float]] = {}
    for strategy, cs in curves.items():
        need = [labels_needed(c, target) for c in cs]
        got = [x for x in need if x is not None]
        # mean true loss at a label count, over the seeds that have a τ by then
        at = {n: float(np.mean([x for c in cs if np.isfinite(x := c.true_loss[c.n.index(n)])]
                               or [np.nan])) for n in (50, 100, 200) if all(n in c.n for c in cs)}
        stops = [(c, first_stop(c, target)) for c in cs]
        stopped = [(c, k) for c, k in stops if k is not None]
        losses_at_stop = [c.true_loss[k] for c, k in stopped]
        covers = []
        for c, k in stopped:
            e = c.rule[k]
            assert e is not None
            covers.append(e.low <= truth.tau <= e.high)
        nan = float("nan")
        fig = {"mean": float(np.mean(got)) if got else nan,
               "median": float(np.median(got)) if got else nan,
               "reached": len(got), "seeds": len(cs),
               "stopped": len(stopped),
               "stop_labels": float(np.mean([c.n[k] for c, k in stopped])) if stopped else nan,
               "stop_loss": float(np.mean(losses_at_stop)) if stopped else nan,
               "worst": max(losses_at_stop, default=nan),
               "within": float(np.mean([x <= target for x in losses_at_stop])) if stopped
               else nan,
               "coverage": float(np.mean(covers)) if covers else nan,
               **{f"loss@{n}": v for n, v in at.items()}}
        out[strategy] = fig
        losses = " · ".join(f"{fig[f'loss@{n}']:.4f}" for n in (50, 100, 200)
                            if f"loss@{n}" in fig)
        rule = (f"{fig['stopped']:>2}/{fig['seeds']} at {fig['stop_labels']:5.0f} labels, "
                f"true loss {fig['stop_loss']:.4f} (worst {fig['worst']:.4f}) | "
                f"{100 * fig['within']:5.1f} % | {100 * fig['coverage']:5.1f} %"
                if strategy == "stratified" else "— (the rule is the stratified design's)")
        print(f"  {strategy:<10} | {fig['mean']:6.0f} {fig['median']:6.0f} "
              f"({fig['reached']}/{fig['seeds']}) | {losses} | {rule}")
    if "stratified" in out and "random" in out:
        ratio = out["stratified"]["mean"] / out["random"]["mean"]
        print(f"  labels to a loss <= {target}: stratified/random = {ratio:.2f} "
              f"(goal <= 0.33)")
    return out


def timing(n_labels: int, repeats: int = 20) -> tuple[float, float]:
    """Median ms of decision_loss and of suggest (k = 1, given the estimate) for ``n_labels``
    labels of a 100,000-pair population in 16 strata, 200 resamples."""
    rng = np.random.default_rng(0)
    s = rng.uniform(size=100_000)
    y = rng.uniform(size=s.size) < s
    lab = rng.choice(s.size, size=n_labels, replace=False)
    design = Design(score_strata(s, 16), lab, y[lab])
    loss_ms, next_ms = [], []
    for r in range(repeats + 1):
        t0 = time.perf_counter()
        est = decision_loss(s, design, "f1", 200, r)
        t1 = time.perf_counter()
        suggest(design, 1, r, s, estimate=est)
        t2 = time.perf_counter()
        if r:  # the first is warm-up
            loss_ms.append(1000 * (t1 - t0))
            next_ms.append(1000 * (t2 - t1))
    return float(np.median(loss_ms)), float(np.median(next_ms))


def plot(path: Path, every: dict[str, dict[str, list[Curve]]], target: float,
         upto: int) -> None:
    """Mean true loss (and the stratified rule's mean estimate) against labels up to ``upto``,
    per set."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(every), figsize=(4.5 * len(every), 3.8), squeeze=False)
    for ax, (name, curves) in zip(axes[0], every.items(), strict=True):
        for strategy, cs in curves.items():
            xs = cs[0].n
            keep = [k for k, n in enumerate(xs) if n <= upto]
            true = np.array([[c.true_loss[k] for k in keep] for c in cs])
            ax.plot([xs[k] for k in keep], np.nanmean(np.where(np.isfinite(true), true, np.nan),
                                                      axis=0), lw=2,
                    ls="-" if strategy == "stratified" else "--",
                    label=f"{strategy}: true loss (mean)")
            if strategy == "stratified":
                for what, style in (("loss", ":"), ("upper", "-.")):
                    est = np.array([[np.nan if (e := c.rule[k]) is None else getattr(e, what)
                                     for k in keep] for c in cs])
                    ax.plot([xs[k] for k in keep], np.nanmean(est, axis=0), lw=1, ls=style,
                            label="stratified: " + ("posterior mean" if what == "loss" else
                                                    "the rule's 0.95 bound") + " (mean)")
        ax.axhline(target, color="grey", lw=0.8)
        ax.set_ylim(0, 0.08)
        ax.set_title(name)
        ax.set_xlabel("labels")
        ax.set_ylabel("F1 lost by using the estimated τ")
        if ax is axes[0][0]:
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--start", type=int, default=20)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--budget", type=int, default=400)
    ap.add_argument("--boot", type=int, default=200)
    ap.add_argument("--target", type=float, default=0.01)
    ap.add_argument("--objective", default="f1")
    ap.add_argument("--strata", type=int, default=16)
    ap.add_argument("--min-per-stratum", type=int, default=None)
    ap.add_argument("--stop-minimum", type=int, default=None)
    ap.add_argument("--strategies", default="stratified,random")
    ap.add_argument("--sets", default="", help="Only the sets whose name contains one of these "
                    "comma-separated words (default: every set).")
    ap.add_argument("--timing-labels", type=int, default=300)
    ap.add_argument("--plot", type=Path, default=None)
    ap.add_argument("--rules", default="", help="Also print where these stopping rules "
                    "(STAT[xHOLD], STAT = rule, post, mean or qNN: see bound()) first stop, "
                    "e.g. rule,mean,q90,meanx5.")
    args = ap.parse_args(argv)
    if args.min_per_stratum is not None:
        stratified.MIN_PER_STRATUM = allocation.MIN_PER_STRATUM = args.min_per_stratum
    if args.stop_minimum is not None:
        stratified.STOP_MINIMUM = allocation.STOP_MINIMUM = args.stop_minimum
    every: dict[str, dict[str, list[Curve]]] = {}
    for name, (pairs, y) in load_sets(args.data).items():
        if args.sets and not any(w and w.lower() in name.lower() for w in args.sets.split(",")):
            continue
        s = local_scores(pairs)  # once per set: the simulation never calls the judge again
        strata = score_strata(s, args.strata)
        truth = TrueLoss(s, y, args.objective)
        print(f"\n{name}: {len(pairs)} pairs, {int(y.sum())} positive; {args.objective} "
              f"{truth.best:.3f} at τ = {truth.tau:.3f} on all labels; start {args.start}, "
              f"{args.batch} label(s) at a time, rule followed to {args.budget} labels, "
              f"{args.seeds} seeds, {int(strata.max()) + 1} strata, minimum "
              f"{stratified.MIN_PER_STRATUM} (to stop: {stratified.STOP_MINIMUM}), "
              f"{args.boot} resamples")
        print(f"  strategy   | labels to loss <= {args.target}: mean median (seeds) | mean "
              "true loss at 50 · 100 · 200 | rule stops: seeds, labels, true loss (worst) | "
              f"true loss <= {args.target:g} at the stop | τ CI covers at stop")
        every[name] = {}
        for strategy in args.strategies.split(","):
            t0 = time.perf_counter()
            every[name][strategy] = [simulate(s, y, strata, strategy, seed, args, truth)
                                     for seed in range(args.seeds)]
            print(f"    [{strategy}: {time.perf_counter() - t0:.0f} s]", file=sys.stderr)
        report(name, every[name], truth, args.target)
        if args.rules and "stratified" in every[name]:
            rules_report(every[name]["stratified"], args.target, args.rules.split(","))
    loss_ms, next_ms = timing(args.timing_labels)
    print(f"\ndecision_loss: {loss_ms:.1f} ms, suggest (1 pair, given the estimate): "
          f"{next_ms:.1f} ms — {args.timing_labels} labels of a 100,000-pair population, "
          "16 strata, 200 resamples (median of 20)")
    if args.plot is not None:
        plot(args.plot, every, args.target, args.budget)
        print(f"plot written to {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
