"""Span-level (NER) metrics: strict and fuzzy precision/recall/F1 per entity type.

A span is ``(start, end, type, text)``: character offsets with ``end`` exclusive. Definitions:

* **strict** — a predicted span is correct when a gold span of the same item has the same type
  and the same offsets, each gold span counted at most once. This is the exact-match span F1
  of the CoNLL-2003 shared task (Tjong Kim Sang & De Meulder 2003, its ``conlleval`` script)
  and of ``seqeval`` in strict mode (``mode="strict"``, IOB2); simjudge follows these two.
  ``nervaluate``'s ``strict`` schema differs when predictions overlap: its loop lets an earlier
  overlapping prediction of another type use up a gold span, so its strict counts can be
  lower on overlapping predictions (issue 37 found 8 of 177 documents apart on one LLM's NER
  predictions).
  P = N_exact / |pred|, R = N_exact / |gold|, F1 = 2PR / (P + R).
* **fuzzy** — within one item and one entity type, exact spans are paired first (score 1.0);
  the remaining predicted and gold spans of that type are paired one-to-one by a maximum-weight
  matching over the judge's scores on their texts, keeping only scores **strictly greater**
  than τ (NaN = no verdict, never matched) — :func:`metrics.selection.max_weight_matching`.
  TP_fuzzy = N_exact + Σ matched scores; P = TP_fuzzy / |pred|, R = TP_fuzzy / |gold| (the
  fuzzy TP of an LLM-based IFPUG function-point study's selection metric, as in
  :mod:`metrics.selection`). A span is never matched across types.
* **dataset** — ``micro``: from the counts summed over items and types; ``macro``: the
  unweighted mean over entity types (those occurring in any prediction or gold) of the
  per-type P, R and F1 computed from that type's summed counts (``seqeval``'s
  ``classification_report`` "macro avg"); ``strict_weighted``: the per-type strict scores
  weighted by each type's gold count (its "weighted avg"). Both sides empty → 1.0 (nothing to
  find, nothing wrong; no entity type at all → macro 1.0 too); one side empty →
  ``zero_division`` for the undefined ratio, 0.0 for the defined one
  (:func:`metrics.selection.fuzzy_prf`). nervaluate's four schemes: :mod:`metrics.nerschemes`.

At τ = 1 no judge score can be strictly greater than τ, so fuzzy = strict.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from metrics._validation import check_zero_division
from metrics.selection import Match, _check_sim, fuzzy_prf, max_weight_matching


@dataclass(frozen=True)
class Span:
    """One entity mention.

    Attributes:
        start, end: character offsets, 0 <= start < end (end exclusive).
        type: the entity type (non-empty), e.g. ``"PER"``.
        text: the mention's text (non-empty); the judge scores texts.
    """

    start: int
    end: int
    type: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        """``{"start", "end", "type", "text"}``."""
        return {"start": self.start, "end": self.end, "type": self.type, "text": self.text}


def as_span(value: Any, name: str = "span", empty_type: bool = False) -> Span:
    """Check one span given as a :class:`Span` or a mapping ``{start, end, type, text}``.

    Args:
        value: the span.
        name: how messages name it.
        empty_type: accept ``type == ""`` (the caller deals with such a span: ``--task spans``
            reports its item as invalid rather than refusing the file).

    Raises:
        ValueError: not a mapping, a missing key, ``start``/``end`` not an integer (booleans
            refused), ``start < 0`` or ``start >= end``, ``type``/``text`` not a non-empty
            string (``type`` may be ``""`` with ``empty_type``); the message starts with
            ``name`` and names the key.

    Examples:
        >>> as_span({"start": 0, "end": 5, "type": "PER", "text": "Alice"})
        Span(start=0, end=5, type='PER', text='Alice')
        >>> as_span({"start": 3, "end": 3, "type": "PER", "text": "x"}, "pred[0]")
        Traceback (most recent call last):
        ValueError: pred[0]: 'end' must be greater than 'start' (3), got 3
    """
    if isinstance(value, Span):
        value = value.to_dict()
    if not isinstance(value, Mapping):
        raise ValueError(f"{name}: expected an object {{start, end, type, text}}, "
                         f"got {type(value).__name__}")
    for key in ("start", "end", "type", "text"):
        if key not in value:
            raise ValueError(f"{name}: missing key {key!r}")
    for key in ("start", "end"):
        v = value[key]
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise ValueError(f"{name}: {key!r} must be an integer offset, got {v!r}")
    start, end = int(value["start"]), int(value["end"])
    if start < 0:
        raise ValueError(f"{name}: 'start' must be >= 0, got {start}")
    if end <= start:
        raise ValueError(f"{name}: 'end' must be greater than 'start' ({start}), got {end}")
    for key in ("type", "text"):
        v = value[key]
        if not isinstance(v, str) or not (v or (key == "type" and empty_type)):
            shown = "an empty string" if v == "" else repr(v)
            raise ValueError(f"{name}: {key!r} must be a non-empty string, got {shown}")
    return Span(start, end, value["type"], value["text"])


def as_spans(values: Sequence[Any], name: str) -> tuple[Span, ...]:
    """:func:`as_span` on every element (names ``name[i]``).

    Raises:
        ValueError: not a list/tuple, or a bad span (index named).
    """
    if not isinstance(values, (list, tuple)):
        raise ValueError(f"{name}: expected a list of spans, got {type(values).__name__}")
    return tuple(as_span(v, f"{name}[{i}]") for i, v in enumerate(values))


def exact_span_pairs(pred: Sequence[Span], truth: Sequence[Span]) -> list[tuple[int, int]]:
    """One-to-one exact matches: same type and same offsets.

    Each prediction, in order, takes the first unused gold span with the same
    ``(type, start, end)``; the count is Σ_key min(#pred, #gold) and does not depend on order.

    Returns:
        ``[(pred_index, truth_index), ...]`` sorted by ``pred_index``.

    Examples:
        Same offsets but another type is not a match; a duplicate prediction finds no second
        gold span.

        >>> p = [Span(0, 5, "PER", "Alice"), Span(0, 5, "ORG", "Alice"),
        ...      Span(0, 5, "PER", "Alice")]
        >>> exact_span_pairs(p, [Span(0, 5, "PER", "Alice")])
        [(0, 0)]
    """
    pool: dict[tuple[str, int, int], deque[int]] = defaultdict(deque)
    for j, t in enumerate(truth):
        pool[(t.type, t.start, t.end)].append(j)
    pairs = []
    for i, p in enumerate(pred):
        q = pool.get((p.type, p.start, p.end))
        if q:
            pairs.append((i, q.popleft()))
    return pairs


@dataclass(frozen=True)
class TypeMatch:
    """The matching of one entity type in one item.

    Attributes:
        type: the entity type.
        n_pred, n_truth: spans of that type predicted and in gold.
        n_exact: exact (same offsets) matches.
        tp_fuzzy: N_exact + Σ fuzzy matched scores, in [0, min(n_pred, n_truth)].
        matches: exact ones first (``exact=True``, score 1.0), then fuzzy ones, each sorted
            by ``pred_index``; indices into the type's own predicted / gold spans.
    """

    type: str
    n_pred: int
    n_truth: int
    n_exact: int
    tp_fuzzy: float
    matches: tuple[Match, ...]


def match_type(pred: Sequence[Span], truth: Sequence[Span], sim: Any = None,
               tau: float = 0.7) -> TypeMatch:
    """Match the spans of one entity type: exact offsets first, then by judge score > τ.

    Args:
        pred, truth: spans of a single type (lengths m and n; may be empty).
        sim: array-like (m, n) of scores in [0, 1] on the spans' texts, NaN = no verdict;
            None = no verdicts (exact matches only). Cells of exact-matched rows and columns
            are ignored.
        tau: τ in [0, 1]; a fuzzy pair matches only when its score is strictly greater.

    Raises:
        ValueError: spans of several types, ``sim`` of the wrong shape or outside [0, 1], τ
            outside [0, 1].

    Examples:
        "New York" is exact; "Paris" ↔ "Paris, France" scores 0.8 > 0.5; "Lyon" stays
        unmatched (0.3). TP_fuzzy = 1 + 0.8.

        >>> p = [Span(0, 8, "LOC", "New York"), Span(20, 25, "LOC", "Paris"),
        ...      Span(30, 34, "LOC", "Lyon")]
        >>> t = [Span(0, 8, "LOC", "New York"), Span(20, 33, "LOC", "Paris, France")]
        >>> m = match_type(p, t, [[1.0, 0.1], [0.2, 0.8], [0.1, 0.3]], tau=0.5)
        >>> m.n_exact, m.tp_fuzzy, [(x.pred_index, x.truth_index, x.exact) for x in m.matches]
        (1, 1.8, [(0, 0, True), (1, 1, False)])
    """
    if len({s.type for s in (*pred, *truth)}) > 1:
        raise ValueError("match_type: spans of several types; match each type separately")
    if not 0.0 <= float(tau) <= 1.0:
        raise ValueError(f"tau: expected a threshold in [0, 1], got {tau!r}")
    s = _check_sim(sim, len(pred), len(truth))
    exact = exact_span_pairs(pred, truth)
    matches = [Match(i, j, 1.0, True) for i, j in exact]
    used_p, used_t = {i for i, _ in exact}, {j for _, j in exact}
    rest_p = np.array([i for i in range(len(pred)) if i not in used_p], dtype=np.intp)
    rest_t = np.array([j for j in range(len(truth)) if j not in used_t], dtype=np.intp)
    fuzzy: list[Match] = []
    if rest_p.size and rest_t.size:
        sub = s[np.ix_(rest_p, rest_t)]
        fuzzy = [Match(int(rest_p[r]), int(rest_t[c]), float(sub[r, c]), False)
                 for r, c in max_weight_matching(sub, float(tau))]
    typ = (pred[0] if pred else truth[0]).type if (pred or truth) else ""
    return TypeMatch(typ, len(pred), len(truth), len(exact),
                     float(len(exact)) + math.fsum(m.score for m in fuzzy),
                     tuple(matches + fuzzy))


def by_type(pred: Sequence[Span], truth: Sequence[Span],
            ) -> dict[str, tuple[list[int], list[int]]]:
    """Indices of each type's predicted and gold spans, types sorted, spans in input order.

    Examples:
        >>> by_type([Span(0, 1, "B", "x"), Span(2, 3, "A", "y")], [Span(0, 1, "B", "x")])
        {'A': ([1], []), 'B': ([0], [0])}
    """
    out: dict[str, tuple[list[int], list[int]]] = {}
    for side, spans in ((0, pred), (1, truth)):
        for k, sp in enumerate(spans):
            out.setdefault(sp.type, ([], []))[side].append(k)
    return dict(sorted(out.items()))


def span_match(pred: Sequence[Any], truth: Sequence[Any],
               sims: Mapping[str, Any] | None = None, tau: float = 0.7) -> dict[str, TypeMatch]:
    """Match one item's spans type by type (:func:`match_type`).

    Args:
        pred, truth: the item's spans (:class:`Span` or ``{start, end, type, text}``).
        sims: per entity type, the (m_type, n_type) score matrix between that type's predicted
            and gold spans in input order (see :func:`by_type`); a missing type = no verdicts.
        tau: τ in [0, 1].

    Returns:
        ``{type: TypeMatch}`` for every type in pred or gold, sorted by type.

    Raises:
        ValueError: a bad span (argument and index named), a bad matrix or τ.

    Examples:
        >>> r = span_match([{"start": 0, "end": 3, "type": "PER", "text": "Ann"}],
        ...                [{"start": 0, "end": 3, "type": "PER", "text": "Ann"},
        ...                 {"start": 9, "end": 12, "type": "LOC", "text": "Rome"}])
        >>> {t: (m.n_pred, m.n_truth, m.tp_fuzzy) for t, m in r.items()}
        {'LOC': (0, 1, 0.0), 'PER': (1, 1, 1.0)}
    """
    p, t = as_spans(pred, "pred"), as_spans(truth, "truth")
    out = {}
    for typ, (ip, it) in by_type(p, t).items():
        out[typ] = match_type([p[i] for i in ip], [t[j] for j in it],
                              (sims or {}).get(typ), tau)
    return out


@dataclass(frozen=True)
class Counts:
    """Summed counts of one entity type (or of everything).

    Attributes:
        n_pred, n_truth, n_exact: span counts (ints >= 0); tp_fuzzy: in [n_exact, min(...)].
    """

    n_pred: int = 0
    n_truth: int = 0
    n_exact: int = 0
    tp_fuzzy: float = 0.0

    def __add__(self, other: Counts) -> Counts:
        """Element-wise sum."""
        return Counts(self.n_pred + other.n_pred, self.n_truth + other.n_truth,
                      self.n_exact + other.n_exact, self.tp_fuzzy + other.tp_fuzzy)


def type_scores(c: Counts, zero_division: float = 0.0) -> dict[str, float]:
    """Fuzzy and strict P/R/F1 of one set of counts (:func:`metrics.selection.fuzzy_prf`).

    Returns:
        ``{precision, recall, f1, strict_precision, strict_recall, strict_f1}``.

    Examples:
        >>> s = type_scores(Counts(n_pred=2, n_truth=4, n_exact=1, tp_fuzzy=1.8))
        >>> s["precision"], s["recall"], s["strict_precision"], s["strict_recall"]
        (0.9, 0.45, 0.5, 0.25)
    """
    p, r, f = fuzzy_prf(c.tp_fuzzy, c.n_pred, c.n_truth, zero_division)
    sp, sr, sf = fuzzy_prf(float(c.n_exact), c.n_pred, c.n_truth, zero_division)
    return {"precision": p, "recall": r, "f1": f,
            "strict_precision": sp, "strict_recall": sr, "strict_f1": sf}


def span_scores(per_type: Mapping[str, Counts], zero_division: float = 0.0,
                ) -> dict[str, Any]:
    """Dataset scores from per-type counts summed over items.

    Args:
        per_type: ``{type: Counts}`` (the types occurring in any prediction or gold).
        zero_division: value of an undefined ratio (0.0, 1.0 or NaN).

    Returns:
        ``micro_precision/recall/f1`` and ``macro_precision/recall/f1`` (fuzzy),
        ``strict_precision/recall/f1`` (micro), ``strict_macro_precision/recall/f1`` and
        ``strict_weighted_precision/recall/f1`` (the per-type strict scores weighted by their
        gold counts: seqeval's ``classification_report`` "weighted avg"; with no gold span,
        recall ``zero_division``, precision and F1 too when nothing is predicted, else 0), the
        totals ``n_pred``, ``n_truth``, ``n_exact``, ``tp_fuzzy``, ``n_types``, and
        ``per_type``: ``{type: counts and type_scores}``.

    Examples:
        PER: 2 predicted, 2 gold, 1 exact + one fuzzy pair at 0.8 (TP 1.8); LOC: 1 predicted,
        2 gold, nothing matched. Micro P = 1.8/3 = 0.6, R = 1.8/4 = 0.45, F1 = 3.6/7. Per-type
        F1: PER 0.9, LOC 0 → macro F1 0.45. Strict: P = 1/3, R = 1/4.

        >>> s = span_scores({"PER": Counts(2, 2, 1, 1.8), "LOC": Counts(1, 2, 0, 0.0)})
        >>> round(s["micro_precision"], 6), s["micro_recall"], round(s["micro_f1"], 6)
        (0.6, 0.45, 0.514286)
        >>> s["macro_f1"], round(s["strict_precision"], 6), s["strict_recall"]
        (0.45, 0.333333, 0.25)
    """
    z = check_zero_division(zero_division)
    total = sum(per_type.values(), Counts())
    table = {t: {**asdict(c), **type_scores(c, z)} for t, c in sorted(per_type.items())}
    micro = type_scores(total, z)
    out: dict[str, Any] = {
        "micro_precision": micro["precision"], "micro_recall": micro["recall"],
        "micro_f1": micro["f1"]}
    for prefix, src in (("macro_", ""), ("strict_macro_", "strict_")):
        for k in ("precision", "recall", "f1"):
            vals = [row[src + k] for row in table.values()]
            out[prefix + k] = float(np.mean(vals)) if vals else 1.0
    support = sum(c.n_truth for c in per_type.values())
    for k in ("precision", "recall", "f1"):
        if support:
            out["strict_weighted_" + k] = math.fsum(
                row["strict_" + k] * row["n_truth"] for row in table.values()) / support
        else:  # seqeval: recall z; precision and F1 z only when nothing was predicted either
            out["strict_weighted_" + k] = z if k == "recall" or total.n_pred == 0 else 0.0
    out.update({"strict_precision": micro["strict_precision"],
                "strict_recall": micro["strict_recall"], "strict_f1": micro["strict_f1"],
                **asdict(total), "n_types": len(table), "per_type": table})
    return out


def counts_of(matches: Mapping[str, TypeMatch]) -> dict[str, Counts]:
    """``{type: Counts}`` of one item's :func:`span_match` result."""
    return {t: Counts(m.n_pred, m.n_truth, m.n_exact, m.tp_fuzzy) for t, m in matches.items()}


def sum_counts(items: Sequence[Mapping[str, Counts]]) -> dict[str, Counts]:
    """Per-type counts summed over items.

    Examples:
        >>> sum_counts([{"A": Counts(1, 1, 1, 1.0)}, {"A": Counts(0, 1), "B": Counts(1, 0)}])
        {'A': Counts(n_pred=1, n_truth=2, n_exact=1, tp_fuzzy=1.0), 'B': Counts(n_pred=1, n_truth=0, n_exact=0, tp_fuzzy=0.0)}
    """  # noqa: E501
    out: dict[str, Counts] = {}
    for item in items:
        for t, c in item.items():
            out[t] = out.get(t, Counts()) + c
    return dict(sorted(out.items()))
