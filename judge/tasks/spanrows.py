"""The rows of ``--task spans`` (:class:`~judge.record.itemrows.SpansRow`): the (item, entity
type) groups of spans, each type's part built from its matched matrix, and the per-type counts
and scores read back from stored rows (the summary, ``metrics_from_rows``, the bootstrap).

Definitions: :mod:`metrics.spans` (exact = same offsets; fuzzy TP = N_exact + matched scores;
strict P/R/F1 as CoNLL-2003 / ``seqeval`` strict mode) and :mod:`metrics.nerschemes`
(nervaluate's four schemes, counted per item in the order the spans were given).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from judge.errors import InputError
from judge.numbers import finite_or_none
from judge.record.itemrows import SpansRow, SpanTypeRow
from metrics.nerschemes import SCHEMES, SchemeCounts, nervaluate_scores
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


def nerv_dict(counts: Mapping[str, SchemeCounts] | None) -> dict[str, dict[str, int]] | None:
    """nervaluate counts as a row stores them, ``{scheme: {correct, …, spurious}}``."""
    return None if counts is None else {k: asdict(c) for k, c in counts.items()}


def nerv_counts(stored: Mapping[str, Mapping[str, int]] | None,
                ) -> dict[str, SchemeCounts] | None:
    """A row's stored nervaluate counts as :class:`~metrics.nerschemes.SchemeCounts`."""
    return None if stored is None else {k: SchemeCounts(**c) for k, c in stored.items()}


def type_row(g: Group, full: NDArray[np.float64], tau: float, zero_division: float,
              judge_ids: Mapping[tuple[int, int], str | None],
              nerv: Mapping[str, SchemeCounts] | None = None) -> SpanTypeRow:
    """One type's part of an item row: spans, scores, matches, counts and scores, and the
    type's nervaluate counts ``nerv`` (None: not computed, as in older runs)."""
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
        **type_scores(c, zero_division),
        **({"nervaluate": nerv_dict(nerv)} if nerv is not None else {})})


def counts_of(t: SpanTypeRow) -> Counts:
    """A type part's counts."""
    return Counts(t.n_pred, t.n_truth, t.n_exact, t.tp_fuzzy)


def item_row(meta: Mapping[str, Any], types: list[SpanTypeRow], zero_division: float,
              nerv: Mapping[str, SchemeCounts] | None = None) -> SpansRow:
    """An item row: ``meta`` (id, source, query, invalid), item-level fuzzy and strict scores
    over all types, the item's nervaluate counts ``nerv`` and the ``types`` parts."""
    c = sum((counts_of(t) for t in types), Counts())
    return SpansRow.model_validate({
        **meta, "n_pred": c.n_pred, "n_truth": c.n_truth, "n_exact": c.n_exact,
        "tp_fuzzy": c.tp_fuzzy, **type_scores(c, zero_division),
        **({"nervaluate": nerv_dict(nerv)} if nerv is not None else {}), "types": types})


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


def summed_nerv(per_row: Sequence[Mapping[str, SchemeCounts] | None],
                ) -> dict[str, SchemeCounts] | None:
    """nervaluate counts summed over rows (nervaluate's merge); None when a row lacks them."""
    if any(c is None for c in per_row):
        return None
    return {k: sum((c[k] for c in per_row if c is not None), SchemeCounts()) for k in SCHEMES}


def span_metrics(per_row: Sequence[Mapping[str, Counts]],
                 nerv: Sequence[Mapping[str, SchemeCounts] | None] = ()) -> dict[str, float]:
    """The numeric dataset scores of rows' per-type counts (undefined ratios 0.0) and of their
    nervaluate counts ``nerv`` (one per row; none when a row lacks them)."""
    s = span_scores(sum_counts(per_row))
    total = summed_nerv(nerv) if nerv else None
    return {**{k: float(v) for k, v in s.items()
               if k not in COUNT_KEYS and isinstance(v, (int, float))},
            **(nervaluate_scores(total) if total is not None else {})}


def _nerv_per_type(rows: Sequence[SpansRow]) -> dict[str, dict[str, Any]]:
    """nervaluate's ``entities`` table: per type and scheme, the summed counts and scores."""
    per: dict[str, dict[str, SchemeCounts]] = {}
    for r in rows:
        for t in types_of(r):
            for k, c in (nerv_counts(t.nervaluate) or {}).items():
                per.setdefault(t.type, {})[k] = per.get(t.type, {}).get(k, SchemeCounts()) + c
    return {t: {k: {**asdict(c), **c.scores(k)} for k, c in v.items()}
            for t, v in sorted(per.items())}


def dataset_summary(rows: Sequence[SpansRow], tau: float, zero_division: float) -> dict[str, Any]:
    """The dataset scores of ``summary.json`` (:func:`metrics.spans.span_scores`) with τ,
    ``per_type_f1``, nervaluate's schemes (flat ``nervaluate_<scheme>_<p|r|f1>``, the summed
    counts ``nervaluate`` and the per-type table ``nervaluate_per_type``) and the items left
    invalid (``invalid_items``: ``[{id, reason}]``)."""
    s = span_scores(summed_counts(rows), zero_division)
    total = summed_nerv([nerv_counts(r.nervaluate) for r in rows])
    nerv = {} if total is None else {
        **nervaluate_scores(total), "nervaluate": nerv_dict(total),
        "nervaluate_per_type": _nerv_per_type(rows)}
    return {"tau": tau, **s, "per_type_f1": {t: v["f1"] for t, v in s["per_type"].items()},
            **nerv, "invalid_items": [{"id": r.id, "reason": r.invalid} for r in rows
                                      if r.invalid is not None]}


def spans_of(typ: str, texts: list[str], offsets: list[list[int]]) -> list[Span]:
    """The spans a type part stores (texts and ``[start, end)`` offsets) as :class:`Span`."""
    return [Span(o[0], o[1], typ, text) for o, text in zip(offsets, texts, strict=True)]
