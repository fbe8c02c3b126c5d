"""The rows of ``--task spans`` (:class:`~judge.record.itemrows.SpansRow`): the (item, entity
type) groups of spans, each type's part built from its matched matrix, and the per-type counts
and scores read back from stored rows (the summary, ``metrics_from_rows``, the bootstrap).

Definitions: :mod:`metrics.spans` (exact = same offsets; fuzzy TP = N_exact + matched scores;
strict P/R/F1 as CoNLL-2003 / ``seqeval`` strict mode).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from judge.errors import InputError
from judge.numbers import finite_or_none
from judge.record.itemrows import SpansRow, SpanTypeRow
from metrics.spans import (
    Counts,
    Span,
    exact_span_pairs,
    match_type,
    span_scores,
    sum_counts,
    type_scores,
)

COUNT_KEYS = ("n_pred", "n_truth", "n_exact", "tp_fuzzy", "n_types")
"""The count entries of :func:`metrics.spans.span_scores` (not metrics of the bootstrap)."""


@dataclass(frozen=True)
class Group:
    """One (item, entity type): its spans and which of them are left after exact matching."""

    item: int
    type: str
    pred: list[Span]
    truth: list[Span]
    exact: list[tuple[int, int]]
    rest_p: list[int]
    rest_t: list[int]


def group(item: int, typ: str, pred: list[Span], truth: list[Span]) -> Group:
    """The group of item ``item``'s spans of type ``typ``, exact pairs (same offsets) found."""
    exact = exact_span_pairs(pred, truth)
    used_p, used_t = {i for i, _ in exact}, {j for _, j in exact}
    return Group(item, typ, pred, truth, exact,
                  [i for i in range(len(pred)) if i not in used_p],
                  [j for j in range(len(truth)) if j not in used_t])


def full_matrix(g: Group, residual: NDArray[np.float64] | None) -> NDArray[np.float64]:
    """The type's whole matrix: exact cells 1.0, the judged block of the spans left after
    exact matching (``residual``, len(rest_p) × len(rest_t); None = no verdicts), NaN
    elsewhere (never judged)."""
    full = np.full((len(g.pred), len(g.truth)), np.nan)
    if residual is not None and g.rest_p and g.rest_t:
        full[np.ix_(g.rest_p, g.rest_t)] = residual
    for i, j in g.exact:
        full[i, j] = 1.0
    return full


def type_row(g: Group, full: NDArray[np.float64], tau: float, zero_division: float,
              judge_ids: Mapping[tuple[int, int], str | None]) -> SpanTypeRow:
    """One type's part of an item row: spans, scores, matches, counts and scores."""
    m = match_type(g.pred, g.truth, full, tau)
    c = Counts(m.n_pred, m.n_truth, m.n_exact, m.tp_fuzzy)
    used_p = {x.pred_index for x in m.matches}
    used_t = {x.truth_index for x in m.matches}
    return SpanTypeRow.model_validate({
        "type": g.type, "pred": [s.text for s in g.pred], "truth": [s.text for s in g.truth],
        "pred_offsets": [[s.start, s.end] for s in g.pred],
        "truth_offsets": [[s.start, s.end] for s in g.truth],
        "scores": [[finite_or_none(x) for x in r] for r in full],
        "matches": [{"pred_index": x.pred_index, "truth_index": x.truth_index,
                     "pred": g.pred[x.pred_index].text, "truth": g.truth[x.truth_index].text,
                     "score": x.score, "exact": x.exact,
                     "kind": "exact" if x.exact else "fuzzy",
                     "judge_id": None if x.exact else judge_ids.get(
                         (x.pred_index, x.truth_index))} for x in m.matches],
        "unmatched_pred": [i for i in range(len(g.pred)) if i not in used_p],
        "unmatched_truth": [j for j in range(len(g.truth)) if j not in used_t],
        "n_pred": c.n_pred, "n_truth": c.n_truth, "n_exact": c.n_exact, "tp_fuzzy": c.tp_fuzzy,
        **type_scores(c, zero_division)})


def counts_of(t: SpanTypeRow) -> Counts:
    """A type part's counts."""
    return Counts(t.n_pred, t.n_truth, t.n_exact, t.tp_fuzzy)


def item_row(meta: Mapping[str, Any], types: list[SpanTypeRow], zero_division: float,
              ) -> SpansRow:
    """An item row: ``meta`` (id, source, query), item-level fuzzy and strict scores over all
    types, and the ``types`` parts."""
    c = sum((counts_of(t) for t in types), Counts())
    return SpansRow.model_validate({
        **meta, "n_pred": c.n_pred, "n_truth": c.n_truth, "n_exact": c.n_exact,
        "tp_fuzzy": c.tp_fuzzy, **type_scores(c, zero_division), "types": types})


def types_of(row: SpansRow) -> list[SpanTypeRow]:
    """The row's per-type parts (InputError for a row without them)."""
    if row.types is None:
        raise InputError(f"item {row.id!r} stores no entity types", field="types")
    return row.types


def row_counts(row: SpansRow) -> dict[str, Counts]:
    """A row's counts by entity type (InputError for a row without types)."""
    return {t.type: counts_of(t) for t in types_of(row)}


def summed_counts(rows: Sequence[SpansRow]) -> dict[str, Counts]:
    """The rows' counts by entity type, summed (types sorted)."""
    return sum_counts([row_counts(r) for r in rows])


def span_metrics(per_row: Sequence[Mapping[str, Counts]]) -> dict[str, float]:
    """The numeric dataset scores of rows' per-type counts (undefined ratios 0.0)."""
    s = span_scores(sum_counts(per_row))
    return {k: float(v) for k, v in s.items()
            if k not in COUNT_KEYS and isinstance(v, (int, float))}


def dataset_summary(rows: Sequence[SpansRow], tau: float, zero_division: float) -> dict[str, Any]:
    """The dataset scores of ``summary.json`` (:func:`metrics.spans.span_scores`) with τ and
    ``per_type_f1``."""
    s = span_scores(summed_counts(rows), zero_division)
    return {"tau": tau, **s, "per_type_f1": {t: v["f1"] for t, v in s["per_type"].items()}}


def spans_of(typ: str, texts: list[str], offsets: list[list[int]]) -> list[Span]:
    """The spans a type part stores (texts and ``[start, end)`` offsets) as :class:`Span`."""
    return [Span(o[0], o[1], typ, text) for o, text in zip(offsets, texts, strict=True)]
