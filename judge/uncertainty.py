"""Bootstrap confidence intervals of dataset metrics, resampling items.

* :func:`bootstrap_cis`: 95 % percentile interval of each metric of one run;
* :func:`paired_bootstrap`: for two runs over the same items, the difference B − A of each
  metric with a 95 % percentile interval, both runs resampled with the **same** item indices in
  every replicate (a paired bootstrap: item difficulty cancels out).

Metrics are recomputed from ``items.jsonl`` rows, so intervals match the run's own numbers:
macro = mean of per-item values, micro = from summed counts (selection), binary scores
(judgment), means (function calls, generation, ranking), C-*/O-* (multi-label).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from metrics import (
    binary_scores,
    bootstrap_indices,
    fuzzy_prf,
    multilabel_scores,
    percentile_ci,
)

Rows = Sequence[dict[str, Any]]


def _selection(rows: Rows) -> dict[str, float]:
    tp = sum(r["tp_fuzzy"] for r in rows)
    n_p = sum(r["n_pred"] for r in rows)
    n_t = sum(r["n_truth"] for r in rows)
    mp, mr, mf = fuzzy_prf(tp, n_p, n_t)
    return {"macro_precision": float(np.mean([r["precision"] for r in rows])),
            "macro_recall": float(np.mean([r["recall"] for r in rows])),
            "macro_f1": float(np.mean([r["f1"] for r in rows])),
            "micro_precision": mp, "micro_recall": mr, "micro_f1": mf}


def _judgment(rows: Rows) -> dict[str, float]:
    s = binary_scores([r["truth"] for r in rows], [r["pred"] for r in rows])
    return {"accuracy": s.accuracy, "precision": s.precision, "recall": s.recall, "f1": s.f1}


def _means(keys: Sequence[str], rename: dict[str, str] | None = None,
           ) -> Callable[[Rows], dict[str, float]]:
    def f(rows: Rows) -> dict[str, float]:
        return {(rename or {}).get(k, k): float(np.mean([r[k] for r in rows])) for k in keys}
    return f


def _multilabel(rows: Rows) -> dict[str, float]:
    classes = sorted({c for r in rows for c in [*r["pred"], *r["truth"]]})
    index = {c: i for i, c in enumerate(classes)}
    t = np.zeros((len(rows), len(classes)), dtype=bool)
    p = np.zeros_like(t)
    for n, r in enumerate(rows):
        t[n, [index[c] for c in r["truth"]]] = True
        p[n, [index[c] for c in r["pred"]]] = True
    s = multilabel_scores(t, p)
    return {"cp": s.cp, "cr": s.cr, "cf1": s.cf1, "op": s.op, "or": s.or_, "of1": s.of1,
            "sample_f1": s.sample_f1}


def metric_function(task: str, rows: Rows) -> Callable[[Rows], dict[str, float]]:
    """The function recomputing ``task``'s dataset metrics from a list of item rows."""
    if task == "selection":
        return _selection
    if task == "judgment":
        return _judgment
    if task == "function-call":
        means = _means(("fn_acc_name", "fn_acc_all", "rouge-1", "rouge-2", "rouge-l", "bleu-4"))
        return lambda rs: {"accuracy": float(np.mean([bool(r.get("correct")) for r in rs])),
                           **means(rs)}
    if task == "generation":
        return _means(("precision", "recall", "f1"))
    if task == "multilabel":
        return _multilabel
    if task == "ranking":
        ks = [k for k in rows[0] if k.startswith(("ap", "ndcg", "err"))]
        return _means(ks, {k: k.replace("ap", "map", 1) for k in ks if k.startswith("ap")})
    raise ValueError(f"unknown task {task!r}")


def bootstrap_cis(task: str, rows: Rows, n_boot: int = 1000, seed: int = 0,
                  ) -> dict[str, Any]:
    """95 % percentile bootstrap intervals of each dataset metric (resampling items).

    Returns:
        ``{"resamples": n, "seed": s, "ci95": {metric: [low, high]}}``; empty intervals when
        ``n_boot`` is 0 or there is a single item.
    """
    if n_boot <= 0 or len(rows) < 2:
        return {"resamples": 0, "seed": seed, "ci95": {}}
    f = metric_function(task, rows)
    reps: dict[str, list[float]] = {}
    for idx in bootstrap_indices(len(rows), n_boot, seed):
        for k, v in f([rows[i] for i in idx]).items():
            reps.setdefault(k, []).append(v)
    return {"resamples": n_boot, "seed": seed,
            "ci95": {k: list(percentile_ci(v)) for k, v in reps.items()}}


def paired_bootstrap(task: str, rows_a: Rows, rows_b: Rows, n_boot: int = 1000,
                     seed: int = 0) -> dict[str, dict[str, Any]]:
    """B − A for each metric with a paired 95 % bootstrap interval.

    Args:
        rows_a, rows_b: item rows of the two runs, **aligned** (same items in the same order).

    Returns:
        metric → ``{"a", "b", "diff", "ci95": [low, high]}``.

    Raises:
        ValueError: the two runs have different numbers of rows.
    """
    if len(rows_a) != len(rows_b):
        raise ValueError("paired bootstrap needs the same items in both runs")
    f = metric_function(task, rows_a)
    base_a, base_b = f(rows_a), f(rows_b)
    diffs: dict[str, list[float]] = {k: [] for k in base_a}
    if n_boot > 0 and len(rows_a) >= 2:
        for idx in bootstrap_indices(len(rows_a), n_boot, seed):
            ma = f([rows_a[i] for i in idx])
            mb = f([rows_b[i] for i in idx])
            for k in diffs:
                diffs[k].append(mb[k] - ma[k])
    return {k: {"a": base_a[k], "b": base_b[k], "diff": base_b[k] - base_a[k],
                "ci95": list(percentile_ci(diffs[k])) if diffs[k] else [None, None]}
            for k in base_a}
