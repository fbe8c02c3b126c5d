"""The judge leaderboard: every judge on every labelled set, one row per judge (``simjudge
leaderboard``).

No statistic is new here; each column comes from code that already computes it:

* ROC-AUC, PR-AUC, τ (chosen by the objective, default F1) with its bootstrap 95 % CI, κ and
  F1 at τ: :func:`judge.calibration.calibrate.calibrate_judge`;
* "can this judge replace a reviewer?" at its τ: Gwet's AC1 (stable when one label dominates;
  Gwet 2008), MCC (Matthews 1975), TPR and TNR — with bootstrap 95 % CIs, and Wilson 95 %
  intervals for TPR and TNR (``tpr_wilson95``, ``tnr_wilson95``): :func:`judge.calibration.
  pairmetrics.metrics_at_tau`;
* 5-fold CV κ: the same function with objective ``kappa`` (τ chosen by κ on the other folds);
* 95 % CIs of ROC-AUC, PR-AUC, κ and F1 at the judge's τ (τ held fixed, pairs resampled) and
  the paired CI of each judge's difference from the first judge:
  :func:`judge.pipeline.uncertainty.bootstrap_cis` and :func:`judge.pipeline.uncertainty.
  paired_bootstrap` over one row per scored pair with the metric functions of :mod:`metrics`;
  the paired comparison uses the pairs **both** judges scored (a failed pair has no score);
* swap and repeat flip rates at the judge's τ: :func:`judge.probes.swap.swap_probe`,
  :func:`judge.probes.repeat.repeat_probe` (Wilson 95 % intervals);
* the alternative annotator test (Calderon, Reichart & Dror, ACL 2025) when the annotations
  name their reviewers: winning rate ω and advantage probability ρ of each judge's verdicts at
  its τ, or "not enough annotators" (:mod:`judge.calibration.alttest`);
* ``--select-panel``: the majority-vote panel of >= 3 scored judges with the most κ per USD
  within a budget (:mod:`judge.calibration.panelselect`);
* a panel's worth in independent judges (``panel``: its members' error φ at its τ, Kish's
  n_eff, each member's κ beside the panel's): :func:`judge.calibration.panelstats.
  panel_independence`;
* parse-error rate = ``parse_error`` verdicts / verdicts of the pairs sent to the judge;
  tokens, USD and wall seconds of the scoring calls per 1,000 labelled pairs (calls made by
  this run: answers served from the cache cost nothing, so a cached rerun shows 0).

Reference rows: ``lexical`` (added unless listed) and, when at least :data:`MIN_HUMAN_PAIRS`
pairs carry several annotations, ``humans`` — a leave-one-annotator-out human ceiling: on each
pair with ≥ 2 annotations the "score" is the first annotator's label and the truth is the
remaining annotators' consensus under the label set's own rule (majority, tie negative; or mean
≥ ``positive_threshold``); pairs with one annotation are left out. Its κ and F1 are those of the
first annotator's label binarised by that same rule (``label = 1``, ``label ≥ 4``: a threshold
on the label scale, never a τ chosen on the labels — a τ fitted to 0–5 grades is no similarity
score), so it has no τ, no τ interval and no CV κ. The humans row is compared with its own
truth, so it has no paired CI against the first judge.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from judge import aio
from judge.cache import JudgeCache
from judge.calibration.alttest import EPSILON, alt_test_note, judge_alt_test, reviewer_labels
from judge.calibration.calibrate import calibrate_judge
from judge.calibration.humans import MIN_HUMAN_PAIRS, human_row, multiply_annotated
from judge.calibration.labels import LabelSet
from judge.calibration.pairmetrics import (
    AT_TAU,
    METRICS,
    metrics_at_tau,
    pair_rows,
    replicates_at_tau,
    wilson_rates,
)
from judge.calibration.panelselect import leaderboard_selection
from judge.calibration.panelstats import panel_independence
from judge.calibration.scoring import JudgeScores, ProgressFactory, score_labelled_pairs
from judge.errors import InputError
from judge.judges.base import Judge, JudgeContext
from judge.numbers import finite_or_none
from judge.pipeline.uncertainty import bootstrap_cis, paired_bootstrap
from metrics import normalize

LEXICAL = "lexical"
REVIEWER_METRICS = ("ac1", "mcc", "tpr", "tnr")
"""Columns for "can this judge replace a reviewer?" (issue 38): Gwet's AC1 (Gwet 2008), MCC
(Matthews 1975), TPR and TNR (with Wilson 1927 intervals) at the judge's τ."""
DESCRIBE_KEYS = ("id", "backend", "method", "model", "base_url", "scorer", "score_mode",
                 "members", "repeats", "of")
"""The parts of a judge's description a leaderboard row keeps (its identity, not its
calibration data)."""


def _at(tau: float | None) -> float:
    """τ, or +inf when it is undefined (then only the AUCs are kept: they need no τ)."""
    return math.inf if tau is None else tau


def _stats(js: JudgeScores, labels: LabelSet, objective: str, n_boot: int, folds: int,
           seed: int) -> dict[str, Any]:
    """The calibration columns of one row (no judge call)."""
    try:
        rep, _ = calibrate_judge(js, labels, objective, n_boot, folds, seed)
        cv = rep.get("cross_validation") if objective == "kappa" else calibrate_judge(
            js, labels, "kappa", 0, folds, seed)[0].get("cross_validation")
    except ValueError as exc:
        raise InputError(str(exc), labels.path) from None
    tau = rep.get("tau")
    at = rep.get("at_tau") or {}
    tau_ci = (rep.get("bootstrap") or {}).get("tau_ci95") or [None, None]
    lo, hi = (finite_or_none(x) for x in tau_ci)
    rows = pair_rows(js.scores, labels, _at(tau))
    boot = bootstrap_cis(metrics_at_tau, rows, n_boot, seed, replicates=replicates_at_tau)
    ci = {m: v for m, v in boot["ci95"].items() if tau is not None or m not in AT_TAU}
    point = metrics_at_tau(rows) if rows and tau is not None else {}
    judged = sum(js.outcomes.values())
    n = len(labels.pairs)
    row: dict[str, Any] = {
        "judge": js.judge_id, "pairs": n,
        "describe": {k: v for k, v in js.describe.items() if k in DESCRIBE_KEYS},
        "pairs_scored": rep["pairs_scored"], "outcomes": js.outcomes,
        "roc_auc": rep.get("roc_auc"), "pr_auc": rep.get("pr_auc"),
        "kappa": at.get("kappa"), "f1": at.get("f1"), "tau": tau, "tau_ci95": [lo, hi],
        "tau_ci95_width": None if lo is None or hi is None else hi - lo,
        "cv_kappa": (cv or {}).get("mean"), "cv_kappa_sd": (cv or {}).get("sd"),
        "parse_error_rate": js.outcomes.get("parse_error", 0) / judged if judged else None,
        "judge_calls": js.judge_calls, "cache_hits": js.cache_hits,
        "tokens_per_1k": (js.tokens_in + js.tokens_out) / n * 1000,
        "usd_per_1k": js.cost_usd / n * 1000,
        "note": rep.get("note"),
    }
    for m in METRICS:
        row[f"{m}_ci95"] = [finite_or_none(x) for x in ci.get(m, [None, None])]
    for m in REVIEWER_METRICS:
        row[m] = finite_or_none(point.get(m, math.nan))
    row.update(wilson_rates(rows) if point else {})
    return row


def _probes(judge: Judge, js: JudgeScores, labels: LabelSet, cache: JudgeCache, tau: float,
            swap: float, repeats: int, n_boot: int, seed: int,
            progress_factory: ProgressFactory | None) -> dict[str, Any]:
    """Swap and repeat flip rates of one judge at its τ (judge calls through ``cache``)."""
    from judge.probes.repeat import Repeats, repeat_probe, repeated
    from judge.probes.swap import swap_probe

    out: dict[str, Any] = {"swap": None, "repeat": None}
    if swap > 0:
        rows = [{"pred": p.pred, "truth": p.truth, "score": float(s), "outcome": "ok",
                 "item_id": None, "member_of": None}
                for s, p in zip(js.scores, labels.pairs, strict=True)
                if not np.isnan(s) and normalize(p.pred) != normalize(p.truth)]
        ctx = JudgeContext(cache=cache)
        _, summary = aio.run(swap_probe(judge, rows, ctx, swap, tau, seed, n_boot))
        out["swap"] = {**summary, "judge_calls": ctx.stats.judge_calls,
                       "cost_usd": ctx.stats.cost_usd}
    if repeats >= 2:
        try:
            rep = repeated(judge, repeats, "mean", 1, tau)
        except InputError as exc:
            out["repeat"] = {"note": exc.message}
            return out
        assert isinstance(rep, Repeats)
        rjs = score_labelled_pairs(labels, rep, cache, progress_factory)
        _, summary = repeat_probe(rjs.member_verdicts, rep, tau, n_boot, seed)
        out["repeat"] = {**summary, "judge_calls": rjs.judge_calls, "cost_usd": rjs.cost_usd}
    return out


def _table(labels: LabelSet, judges: Sequence[Judge], references: set[str], cache: JudgeCache,
           objective: str, n_boot: int, folds: int, seed: int, swap: float, repeats: int,
           progress_factory: ProgressFactory | None,
           min_human_pairs: int = MIN_HUMAN_PAIRS,
           alt_test_epsilon: float = EPSILON,
           select_budget: float | None = None) -> dict[str, Any]:
    """One label set's table: a row per judge, the reference rows, the paired CIs."""
    rows: list[dict[str, Any]] = []
    scores: list[np.ndarray] = []
    for judge in judges:
        t0 = time.perf_counter()
        js = score_labelled_pairs(labels, judge, cache, progress_factory)
        seconds = time.perf_counter() - t0
        row = {**_stats(js, labels, objective, n_boot, folds, seed),
               "seconds_per_1k": seconds / len(labels.pairs) * 1000,
               "reference": judge.id in references}
        if row["tau"] is not None:
            row.update(_probes(judge, js, labels, cache, row["tau"], swap, repeats, n_boot,
                               seed, progress_factory))
            if js.member_verdicts and js.describe.get("members"):  # a panel (not --repeats)
                row["panel"] = panel_independence(
                    js.member_verdicts, labels, {r["judge"]: r["tau"] for r in rows},
                    row["tau"], row["kappa"])
        rows.append(row)
        scores.append(js.scores)
    first = rows[0]
    for row, s in zip(rows[1:], scores[1:], strict=True):
        both = ~np.isnan(scores[0]) & ~np.isnan(s)
        a = [r for r in pair_rows(scores[0], labels, _at(first["tau"])) if both[r["index"]]]
        b = [r for r in pair_rows(s, labels, _at(row["tau"])) if both[r["index"]]]
        if not a:
            continue
        paired = paired_bootstrap(metrics_at_tau, a, b, n_boot, seed, replicates=replicates_at_tau)
        diff = {m: d for m, d in paired.items()
                if m not in AT_TAU or None not in (first["tau"], row["tau"])}
        row["vs_first"] = {"judge": first["judge"], "pairs": len(a), **{
            m: {k: ([finite_or_none(x) for x in v] if k == "ci95" else finite_or_none(v))
                for k, v in d.items()} for m, d in diff.items()}}
    chosen = None if select_budget is None else leaderboard_selection(
        labels, judges, rows, scores, select_budget, n_boot, seed)
    reviewers, why = reviewer_labels(labels)
    tested = [] if why else [judge_alt_test(s, r["tau"], reviewers, alt_test_epsilon)
                             for r, s in zip(rows, scores, strict=True)]
    for row, got in zip(rows, tested, strict=False):
        row["alt_test"] = got
    multi = multiply_annotated(labels)
    notes = []
    if multi == 0:
        notes.append("no humans row: one annotation per pair (a human ceiling needs ≥ 2)")
    elif multi < min_human_pairs:
        notes.append(f"no humans row: only {multi} pair(s) carry ≥ 2 annotations; a human "
                     f"ceiling needs ≥ {min_human_pairs} (--min-human-pairs): on fewer its 95 % "
                     "interval is as wide as the differences it would be read against")
    else:
        humans = human_row(labels, n_boot, seed)
        if humans is not None:
            rows.append(humans)
    notes.append(alt_test_note(tested, why, alt_test_epsilon))
    return {"labels": {"path": labels.path, "sha256": labels.sha256,
                       "pairs": len(labels.pairs), "positives": labels.positives,
                       "graded": labels.graded, "positive_threshold": labels.positive_threshold,
                       "max_annotators": labels.max_annotators,
                       "multiply_annotated_pairs": multi,
                       "inter_annotator_alpha": finite_or_none(labels.alpha)
                       if labels.alpha is not None else None,
                       "describe": labels.describe()},
            "rows": rows, "notes": notes, **({"select_panel": chosen} if chosen else {})}


def leaderboard(label_sets: Sequence[LabelSet], judges: Sequence[Judge], cache: JudgeCache,
                objective: str = "f1", n_boot: int = 1000, folds: int = 5, seed: int = 0,
                swap: float = 0.1, repeats: int = 1,
                progress_factory: ProgressFactory | None = None,
                min_human_pairs: int = MIN_HUMAN_PAIRS,
                alt_test_epsilon: float = EPSILON,
                select_budget: float | None = None) -> dict[str, Any]:
    """Score every label set with every judge (plus ``lexical`` and ``humans``) and tabulate.

    Args:
        label_sets: one or more label sets (:func:`judge.calibration.labels.load_labels`).
        judges: the judges; the first is the baseline of the paired CIs; ``lexical`` is
            appended when no judge has that id.
        cache: the judge cache (every call, probes included, goes through it).
        objective: what τ maximises (``f1``, ``kappa``, ``accuracy``, ``youden``).
        n_boot: bootstrap resamples (0 = no CIs); folds: k of the CV κ; seed: their seed.
        swap: share in [0, 1] of the scored non-exact pairs re-judged swapped (0 = no probe).
        repeats: samples per pair for the repeat probe (1 = none; deterministic judges get a
            note instead).
        progress_factory: progress bars, as :func:`score_labelled_pairs`.
        min_human_pairs: fewest pairs with ≥ 2 annotations for a ``humans`` row, >= 1
            (:data:`MIN_HUMAN_PAIRS`; below it the table says why there is none).
        alt_test_epsilon: ε of the alternative annotator test, in [0, 1]
            (:data:`judge.calibration.alttest.EPSILON`).
        select_budget: USD per 1,000 pairs for ``--select-panel`` (None: no selection; each
            table then has ``select_panel``: :func:`judge.calibration.panelselect.
            select_panel`).

    Returns:
        ``{"settings": {...}, "tables": [{"labels": {...}, "rows": [...], "notes": [...]}]}``,
        one table per label set in order; each row as described in the module docstring
        (``None`` where a column is undefined).

    Raises:
        InputError: ``swap`` outside [0, 1], ``repeats`` < 1, ``min_human_pairs`` < 1,
            ``alt_test_epsilon`` outside [0, 1], no judge, no label set.
        judge.errors.CacheMissError: a needed call in ``cache-only`` mode.
    """
    from judge.judges.registry import parse_judge_spec

    if not label_sets or not judges:
        raise InputError("the leaderboard needs at least one label set and one judge")
    if not 0.0 <= swap <= 1.0:
        raise InputError(f"--swap must be a share in [0, 1], got {swap}", field="swap")
    if repeats < 1:
        raise InputError(f"--repeats must be >= 1, got {repeats}", field="repeats")
    if not 0.0 <= alt_test_epsilon <= 1.0:
        raise InputError(f"--alt-test-epsilon must be in [0, 1], got {alt_test_epsilon}",
                         field="alt-test-epsilon")
    if min_human_pairs < 1:
        raise InputError(f"--min-human-pairs must be >= 1, got {min_human_pairs}",
                         field="min-human-pairs")
    judges = list(judges)
    references = set()
    if all(j.id != LEXICAL for j in judges):
        judges.append(parse_judge_spec(LEXICAL))
        references.add(LEXICAL)
    tables = [_table(ls, judges, references, cache, objective, n_boot, folds, seed, swap, repeats,
                     progress_factory, min_human_pairs, alt_test_epsilon, select_budget)
              for ls in label_sets]
    return {"settings": {"objective": objective, "bootstrap": n_boot, "folds": folds,
                         "seed": seed, "swap": swap, "repeats": repeats,
                         "min_human_pairs": min_human_pairs,
                         "alt_test_epsilon": alt_test_epsilon,
                         "select_panel_budget": select_budget,
                         "baseline": judges[0].id,
                         "rule": "a pair is 'same' when score > tau (tau chosen by the "
                                 "objective; candidates are midpoints of distinct scores)"},
            "tables": tables}
