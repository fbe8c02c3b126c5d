"""τ calibration: score human-labelled pairs with judges, choose τ, quantify its uncertainty.

For each judge (DESIGN.md "Calibration"):

* scores for every labelled pair (normalised-equal pairs score 1.0 without a judge call, as in
  ``eval``; pairs the judge gave no ``ok`` verdict are left out and counted);
* ROC-AUC, PR-AUC (average precision), Spearman and Pearson against the raw labels;
* the sweep over candidate τs (midpoints between consecutive distinct scores; a pair is
  predicted "same" when its score is strictly greater than τ) with precision, recall, F1, κ,
  accuracy, TPR, FPR; the chosen τ maximises the objective, ties to the larger τ;
* a bootstrap 95 % percentile interval of τ and of the objective (resampling pairs; resamples
  with one class are skipped and counted);
* a stratified k-fold cross-validated estimate of the objective when τ is chosen on the other
  folds (mean and SD over folds, and pooled over all held-out predictions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from judge.cache import JudgeCache
from judge.calibration.adequacy import failure_note, label_shortfall, tie_note
from judge.calibration.labels import LabelSet
from judge.calibration.pairscores import labels_record
from judge.calibration.scoring import JudgeScores, ProgressFactory, score_labelled_pairs
from judge.judges.base import Judge
from judge.numbers import finite_or_none

if TYPE_CHECKING:
    from judge.calibration.stratified import LossEstimate
    from judge.calibration.suggest import ActiveOptions, Population, SharedStrata
from metrics import (
    Confusion,
    best_index,
    kappa_from_counts,
    pearson,
    percentile_ci,
    pr_auc,
    roc_auc,
    scores_from_counts,
    spearman,
    stratified_folds,
    sweep_arrays,
)


def objective_from_counts(counts: Confusion, objective: str) -> float:
    """The objective (``f1``, ``kappa``, ``accuracy`` or ``youden``) of a confusion matrix
    (:class:`metrics.Confusion`)."""
    tp, fp, fn, tn = counts
    if objective == "kappa":
        return kappa_from_counts(tp, fp, fn, tn)
    if objective == "youden":
        tpr = tp / (tp + fn) if tp + fn else 0.0
        fpr = fp / (fp + tn) if fp + tn else 0.0
        return tpr - fpr
    s = scores_from_counts(*counts)
    return float(getattr(s, objective))


def calibrate_judge(js: JudgeScores, labels: LabelSet, objective: str = "f1",
                    n_boot: int = 1000, folds: int = 5, seed: int = 0,
                    population: Population | None = None,
                    ) -> tuple[dict[str, Any], dict[str, NDArray[Any]] | None]:
    """Calibration statistics of one judge.

    Args:
        js: the judge's scores for ``labels``.
        labels: the labelled pairs.
        objective: ``f1``, ``kappa``, ``accuracy`` or ``youden``.
        n_boot: bootstrap resamples (0 = none).
        folds: k for the cross-validated estimate (reduced to the smaller class size if
            needed; < 2 = none).
        seed: random seed for the bootstrap and the folds.
        population: with an unlabelled pool (``--pool``), the judge's scores of the labelled
            and pool pairs (:class:`judge.calibration.suggest.Population`): the sweep then
            weights each labelled pair by its score stratum (``N_h / n_h``) and the bootstrap
            resamples within strata (:mod:`judge.calibration.stratified`), so τ is the
            population's; the counts at τ, ROC-AUC and PR-AUC are then weighted alike (the
            population's, not the boundary-heavy sample's); Spearman and Pearson stay the
            labelled sample's.

    Returns:
        ``(report, sweep)``: the JSON-ready report and the full sweep arrays (for
        ``curve.csv`` and plots). When every scored pair has the same score no threshold
        separates anything: the report says so (``tau`` None, ROC-AUC 0.5) and ``sweep`` is
        None. When failures (outcomes other than ``ok``) left it scored pairs of one class
        only, none, or exact ones only (:mod:`judge.calibration.adequacy`), ROC-AUC, PR-AUC,
        the correlations and ``tau`` are None and ``note`` says why.
    """
    valid = ~np.isnan(js.scores)
    s = js.scores[valid]
    y = np.array([p.positive for p in labels.pairs], dtype=bool)[valid]
    raw = np.array([p.value for p in labels.pairs], dtype=np.float64)[valid]
    base: dict[str, Any] = {
        "judge": js.describe,
        "pairs_scored": int(valid.sum()), "pairs_without_verdict": int((~valid).sum()),
        "pairs_exact": js.exact, "judge_calls": js.judge_calls, "cache_hits": js.cache_hits,
        "outcomes": js.outcomes, "first_error": js.first_error,
        "stopped_early": js.stopped_early, "objective": objective}
    dead = failure_note(js.outcomes, int(valid.sum()))  # only exact pairs scored
    if dead is not None or y.all() or not y.any():
        # failures left it pairs of one class (or none; the labels hold both) or exact ones only
        return {**base, "roc_auc": None, "pr_auc": None, "spearman": None, "pearson": None,
                "tau": None, "note": dead or f"the {int(valid.sum())} pairs it scored are of "
                "one class or none: ROC-AUC and τ are undefined (see its failed pairs)"}, None
    weights = None
    if population is not None:  # its sample: the labelled pairs this judge scored
        if not np.array_equal(population.design.labelled, np.flatnonzero(valid)):
            raise ValueError("the stratified design does not match the judge's scored pairs")
        weights = population.design.weights()
    base.update({
        # with a pool, the population's AUCs: each labelled pair weighted by its stratum
        "roc_auc": roc_auc(y, s, weights), "pr_auc": pr_auc(y, s, weights),
        "spearman": finite_or_none(spearman(s, raw)), "pearson": finite_or_none(pearson(s, raw)),
    })
    if np.unique(s).size < 2:
        return {**base, "tau": None, "note": tie_note(float(s[0]), js.outcomes, (~valid).sum())
                }, None
    sweep = sweep_arrays(s, y, weights=weights)
    i = best_index(sweep[objective])
    tau = float(sweep["tau"][i])

    report: dict[str, Any] = {
        **base, "tau": tau,
        "at_tau": {k: (_count(v[i]) if k in ("tp", "fp", "fn", "tn")
                       else finite_or_none(float(v[i]))) for k, v in sweep.items() if k != "tau"},
    }
    if n_boot > 0 and population is not None:
        from judge.calibration.stratified import stratified_tau

        est = stratified_tau(population.scores, population.design, objective, n_boot, seed)
        report["bootstrap"] = {"resamples": n_boot, "skipped": est.skipped, "seed": seed,
                               "stratified": True, "tau_ci95": [est.low, est.high],
                               "objective_ci95": percentile_ci(est.objectives),
                               "tau_samples": [round(t, 6) for t in est.taus]}
    elif n_boot > 0:
        from judge.calibration.taubootstrap import bootstrap_taus

        taus, objs, skipped = bootstrap_taus(s, y, objective, n_boot, seed)
        report["bootstrap"] = {"resamples": n_boot, "skipped": skipped, "seed": seed,
                               "tau_ci95": percentile_ci(taus),
                               "objective_ci95": percentile_ci(objs),
                               "tau_samples": [round(t, 6) for t in taus]}
    k = min(folds, int(y.sum()), int((~y).sum()))
    if k >= 2:
        per_fold, pooled = [], np.zeros(4, dtype=int)
        fold_taus = []
        for test in stratified_folds(y, k, seed):
            train = np.setdiff1d(np.arange(len(s)), test)
            ytr, str_ = y[train], s[train]
            if ytr.all() or not ytr.any() or np.unique(str_).size < 2:
                continue
            sw = sweep_arrays(str_, ytr)
            t = float(sw["tau"][best_index(sw[objective])])
            fold_taus.append(t)
            c = Confusion.at(s[test], y[test], t)
            pooled += np.array(c)
            per_fold.append(objective_from_counts(c, objective))
        report["cross_validation"] = {
            "folds": k, "seed": seed, "taus": fold_taus,
            "objective_per_fold": [finite_or_none(x) for x in per_fold],
            "mean": finite_or_none(float(np.nanmean(per_fold))) if per_fold else None,
            "sd": finite_or_none(float(np.nanstd(per_fold, ddof=1))) if len(per_fold) > 1 else None,
            "pooled": finite_or_none(objective_from_counts(
                Confusion(*(int(x) for x in pooled)), objective)),
        }
    return report, sweep


def _shared_strata(labels: LabelSet, scored: list[tuple[Judge, JudgeScores]], cache: JudgeCache,
                   active: ActiveOptions | None, progress_factory: ProgressFactory | None,
                   context: str = "") -> tuple[SharedStrata | None, dict[str, JudgeScores]]:
    """Each judge's pool scores and their shared design (:class:`judge.calibration.suggest.
    SharedStrata`; None without a pool, or scored labels of one class)."""
    if active is None:
        return None, {}
    from judge.calibration.scoring import score_pairs
    from judge.calibration.suggest import SharedStrata

    pools = {j.id: score_pairs(active.pool.pairs, j, cache, progress_factory, f"{j.id}: pool",
                               context) for j, _ in scored}
    positive = np.array([p.positive for p in labels.pairs], dtype=bool)
    seen = np.isfinite(np.array([js.scores for _, js in scored])).any(axis=0)
    if positive[seen].all() or not positive[seen].any():
        return None, pools
    shared = SharedStrata.build([js.scores for _, js in scored], positive,
                                [pools[j.id].scores for j, _ in scored], active.strata)
    return shared, pools


def _count(v: Any) -> int | float:
    """A confusion count (at_tau, curve.csv): an int, or a weighted (stratified) count to 3
    places."""
    f = float(v)
    return int(f) if np.issubdtype(np.asarray(v).dtype, np.integer) else round(f, 3)


CURVE_COLUMNS = ("judge", "tau", "precision", "recall", "f1", "kappa", "accuracy", "tpr", "fpr",
                 "youden", "tp", "fp", "fn", "tn")


def run_calibration(labels: LabelSet, judges: Sequence[Judge], cache: JudgeCache,
                    out: Any, objective: str = "f1", n_boot: int = 1000, folds: int = 5,
                    seed: int = 0, run_dir: Any = None, overwrite: bool = False,
                    progress_factory: ProgressFactory | None = None,
                    active: ActiveOptions | None = None, context: str = "") -> dict[str, Any]:
    """Calibrate each judge on ``labels`` and write the output directory atomically.

    Writes ``calibration.json``, ``curve.csv``, ``threshold.png``, ``roc.png``, ``pr.png``,
    ``plots.json`` (the data behind the plots) and, with ``run_dir``, ``run_tau.png`` (the
    run's fuzzy macro P/R/F1 across τ from its stored scores: no judge call).

    Raises:
        judge.errors.InputError: ``out`` not empty; a judge whose scored pairs are of one
            class or all equal; a run directory without stored scores.
        judge.errors.CacheMissError: a needed call in ``cache-only`` mode.

    ``progress_factory``: a progress bar per judge (see :func:`score_labelled_pairs`).

    ``context``: the task context given to prompt judges (as ``eval --context``).

    Each judge's report records its ``identity`` (:func:`judge.judges.identity.judge_identity`,
    checked by ``eval --tau-from`` and ``calibrate --check``), its ``labels_source``
    ``{"path", "sha256", "count"}`` (the labels file or database, its sha256, the pairs) and
    its ``pair_scores`` (:mod:`judge.calibration.pairscores`, for ``--check --rejudge``).

    ``active`` (``--pool``): each judge also scores the pool, τ and its CI become the
    population's (stratified estimate, a ``stratified`` section per judge with the objective
    expected to be lost by using τ̂), and with ``active.suggest`` ``suggestions.jsonl`` and
    the ``suggestions/`` run are written unless every judge's loss is already within
    ``active.target_loss`` with every stratum at its minimum of labels
    (:mod:`judge.calibration.suggest`).
    """
    import csv
    from pathlib import Path

    from judge.calibration.plots import plot_pr, plot_roc, plot_thresholds
    from judge.errors import InputError
    from judge.judges.identity import judge_identity
    from judge.record.atomic import atomic_dir, dumps
    from judge.record.outdir import prepare_out_dir
    from judge.record.store import load_run

    out = Path(out)
    prepare_out_dir(out, overwrite)  # before any judge call
    identities = {judge.id: judge_identity(judge, context) for judge in judges}
    reports: dict[str, Any] = {}
    sweeps: dict[str, dict[str, NDArray[Any]]] = {}
    scored = [(judge, score_labelled_pairs(labels, judge, cache, progress_factory, context))
              for judge in judges]
    shared, pools = _shared_strata(labels, scored, cache, active, progress_factory, context)
    losses: dict[str, tuple[Population, LossEstimate]] = {}  # --pool: each judge's loss of τ̂
    for judge, js in scored:
        population = (shared.population(js.scores, pools[judge.id].scores)
                      if shared is not None else None)
        try:
            reports[judge.id], sweep = calibrate_judge(js, labels, objective, n_boot, folds,
                                                       seed, population)
        except ValueError as exc:
            raise InputError(str(exc), labels.path) from None
        reports[judge.id]["identity"] = identities[judge.id]
        reports[judge.id].update(labels_record(js.scores, labels))  # source, per-pair scores
        if sweep is not None:
            sweeps[judge.id] = sweep
        if population is not None and active is not None and reports[judge.id]["tau"] is not None:
            losses[judge.id] = (population, population.loss(objective, n_boot, seed))
            reports[judge.id]["stratified"] = population.report(
                losses[judge.id][1], active.pool, pools[judge.id], active.target_loss)
    suggestions: list[dict[str, Any]] = []
    stop = None
    if active is not None and active.suggest:
        from judge.calibration.suggest import pick_suggestions

        suggestions, stop = pick_suggestions(active, shared, losses, reports, seed)
    result: dict[str, Any] = {
        "labels": {"path": labels.path, "sha256": labels.sha256, "pairs": len(labels.pairs),
                   "positives": labels.positives, "graded": labels.graded,
                   "positive_threshold": labels.positive_threshold,
                   "rows": labels.rows, "min_annotators": labels.min_annotators,
                   "max_annotators": labels.max_annotators,
                   "inter_annotator_alpha": finite_or_none(labels.alpha) if labels.alpha is not None
                   else None, "minimum": label_shortfall(len(labels.pairs), labels.positives)},
        "objective": objective, "rule": "a pair is predicted 'same' when score > tau; "
        "candidates are midpoints between consecutive distinct scores; ties go to the larger tau",
        "judges": reports,
    }
    curve = None
    if run_dir is not None:  # before anything is written
        stored = load_run(run_dir)
        taus = [round(float(t), 4) for t in np.linspace(0.0, 0.99, 100)]
        from judge.calibration.runcurve import run_curve_report, run_tau_curve

        curve = run_tau_curve(stored, taus)
    chosen = {j: r["tau"] for j, r in reports.items() if r["tau"] is not None}
    with atomic_dir(out, overwrite) as tmp:
        with open(tmp / "curve.csv", "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(CURVE_COLUMNS)
            for jid, sw in sweeps.items():
                for i in range(len(sw["tau"])):
                    w.writerow([jid, *(repr(float(sw[c][i])) if c not in ("tp", "fp", "fn", "tn")
                                       else _count(sw[c][i]) for c in CURVE_COLUMNS[1:])])
        plots = {
            "threshold.png": plot_thresholds(sweeps, chosen, objective, tmp / "threshold.png"),
            "roc.png": plot_roc(sweeps, chosen, {j: r["roc_auc"] for j, r in reports.items()},
                                tmp / "roc.png"),
            "pr.png": plot_pr(sweeps, chosen, {j: r["pr_auc"] for j, r in reports.items()},
                              tmp / "pr.png"),
        }
        if curve is not None:
            plots["run_tau.png"], result["run"] = run_curve_report(
                stored, taus, curve, chosen, tmp / "run_tau.png")
        if suggestions:
            from judge.calibration.suggest import write_suggestions

            write_suggestions(tmp, out, suggestions, list(judges), cache, list(chosen.values()),
                              active.renderers if active is not None else None)
        if active is not None and active.suggest:
            result["suggestions"] = {"requested": active.suggest, "written": len(suggestions),
                                     "stop": stop, "order": "random", "order_seed": seed,
                                     "file": "suggestions.jsonl" if suggestions else None,
                                     "audit": "suggestions" if suggestions else None}
        (tmp / "plots.json").write_text(dumps(plots) + "\n", encoding="utf-8")
        (tmp / "calibration.json").write_text(dumps(result, indent=2) + "\n", encoding="utf-8")
    return result
