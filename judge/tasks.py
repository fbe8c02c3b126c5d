"""Per-task metric computation over items: the bridge from items (and matrices) to ``metrics``.

Each ``score_*`` function returns ``(item_rows, metrics)``: one JSON-serialisable dict per item
for ``items.jsonl`` and the dataset metrics for ``summary.json``. Each row also carries what was
compared (the audit report shows it): ``pred``/``truth`` (judgment booleans, generation text and
references, multi-label labels, selection strings with their score matrix), ``ranked`` (the run's
documents in trec_eval order) and ``qrels`` (document → grade) for ranking, and the record's
``query`` when it has one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from judge.items import Item
from judge.matrix import SimilarityMatrix
from judge.numbers import finite_or_none
from metrics import (
    aggregate_fuzzy,
    binary_scores,
    err_at_k,
    fuzzy_match,
    multilabel_scores,
    ndcg_at_k,
    token_scores,
)
from metrics import average_precision as ap

Rows = list[dict[str, Any]]


def _query(item: Item) -> dict[str, str]:
    """``{"query": …}`` when the record has a ``query`` field (shown in the audit report)."""
    return {"query": item.query} if item.query else {}


def score_selection(items: Sequence[Item], matrices: Sequence[SimilarityMatrix], tau: float,
                    zero_division: float = 0.0) -> tuple[Rows, dict[str, Any]]:
    """Fuzzy matching per item (seed 001) and macro/micro aggregation."""
    rows: Rows = []
    results = []
    for item, m in zip(items, matrices, strict=True):
        r = fuzzy_match(list(m.pred), list(m.truth), m.scores, tau=tau,
                        zero_division=zero_division)
        results.append(r)
        d = r.to_dict()
        for match in d["matches"]:
            v = m.verdicts.get((match["pred_index"], match["truth_index"]))
            match["judge_id"] = v.judge_id if v is not None else None
        d["unmatched_pred"] = [m.pred[i] for i in r.unmatched_pred()]
        d["unmatched_truth"] = [m.truth[j] for j in r.unmatched_truth()]
        d["cells_without_verdict"] = int(np.isnan(m.scores).sum())
        # the item's strings and similarity matrix (null = no verdict), so the run can be
        # re-scored at another τ from this file alone, with no judge call
        d["pred"], d["truth"] = list(m.pred), list(m.truth)
        d["scores"] = [[finite_or_none(x) for x in row] for row in m.scores]
        rows.append({"id": item.id, "source": item.source, **d})
    agg = aggregate_fuzzy(results, zero_division=zero_division)
    return rows, {"tau": tau, **agg.to_dict()}


def rescore_selection_rows(rows: Sequence[dict[str, Any]], tau: float,
                           zero_division: float = 0.0) -> dict[str, Any]:
    """Aggregate fuzzy metrics of a stored selection run (``items.jsonl`` rows) at another τ.

    Uses each row's ``pred``, ``truth`` and ``scores`` (null = no verdict): no judge call.

    Raises:
        KeyError: a row without those fields (a run written before they were stored).
    """
    from judge.rundir import stored_matrix

    results = [fuzzy_match(r["pred"], r["truth"], stored_matrix(r), tau=tau,
                           zero_division=zero_division) for r in rows]
    return aggregate_fuzzy(results, zero_division=zero_division).to_dict()


def score_judgment(items: Sequence[Item],
                   zero_division: float = 0.0) -> tuple[Rows, dict[str, Any]]:
    """Binary judgment scores (seed 001 §4.2.1)."""
    y_true = [bool(i.truth) for i in items]
    y_pred = [bool(i.pred) for i in items]
    rows = [{"id": i.id, "source": i.source, **_query(i), "pred": p, "truth": t,
             "correct": p == t} for i, p, t in zip(items, y_pred, y_true, strict=True)]
    return rows, binary_scores(y_true, y_pred, zero_division=zero_division).to_dict()


def score_generation(items: Sequence[Item],
                     tokenizer: str = "jieba") -> tuple[Rows, dict[str, Any]]:
    """Token precision/recall/F1 per item, max over references (seed 002); means over items."""
    rows: Rows = []
    for i in items:
        s = token_scores(i.pred, list(i.truth), tokenizer=tokenizer)
        rows.append({"id": i.id, "source": i.source, **_query(i), "pred": i.pred,
                     "truth": list(i.truth), **s.to_dict()})
    metrics = {k: float(np.mean([r[k] for r in rows])) for k in ("precision", "recall", "f1")}
    return rows, {"tokenizer": tokenizer, **metrics}


def score_multilabel(items: Sequence[Item],
                     zero_division: float = 0.0) -> tuple[Rows, dict[str, Any]]:
    """C-P/C-R/C-F1, O-P/O-R/O-F1 and per-sample scores (seed 004) over the union of labels."""
    classes = sorted({lab for i in items for lab in [*i.pred, *i.truth]})
    index = {c: k for k, c in enumerate(classes)}
    t = np.zeros((len(items), len(classes)), dtype=bool)
    p = np.zeros_like(t)
    for n, i in enumerate(items):
        t[n, [index[c] for c in i.truth]] = True
        p[n, [index[c] for c in i.pred]] = True
    s = multilabel_scores(t, p, zero_division=zero_division)
    rows = [{"id": i.id, "source": i.source, **_query(i), "pred": sorted(set(i.pred)),
             "truth": sorted(set(i.truth))} for i in items]
    d = s.to_dict()
    d["classes"] = classes
    return rows, d


def score_ranking(items: Sequence[Item], k: int = 10) -> tuple[Rows, dict[str, Any]]:
    """AP, AP@k, NDCG, NDCG@k and ERR@k per query (trec_eval conventions); means over queries.

    ERR's maximum grade is the largest grade in the judgments (at least 1).
    """
    max_grade = max([1, *[g for i in items for g in i.truth.values()]])
    rows: Rows = []
    for i in items:
        rows.append({"id": i.id, "source": i.source, "retrieved": len(i.pred),
                     "relevant": sum(1 for g in i.truth.values() if g >= 1),
                     "ap": ap(i.pred, i.truth), f"ap@{k}": ap(i.pred, i.truth, k=k),
                     "ndcg": ndcg_at_k(i.pred, i.truth),
                     f"ndcg@{k}": ndcg_at_k(i.pred, i.truth, k),
                     f"err@{k}": err_at_k(i.pred, i.truth, max_grade, k),
                     "ranked": list(i.pred), "qrels": dict(i.truth)})
    keys = ("ap", f"ap@{k}", "ndcg", f"ndcg@{k}", f"err@{k}")
    metrics: dict[str, Any] = {"queries": len(items), "err_max_grade": max_grade}
    names = {"ap": "map", f"ap@{k}": f"map@{k}"}
    for key in keys:
        metrics[names.get(key, key)] = float(np.mean([r[key] for r in rows]))
    return rows, metrics
