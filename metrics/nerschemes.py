"""nervaluate's four NER evaluation schemes, counted as nervaluate counts them.

nervaluate (David S. Batista's package, after the SemEval-2013 task 9.1 measures of Segura-Bedmar
et al. 2013) sorts each predicted entity of a document into ``correct``, ``incorrect``,
``partial`` or ``spurious`` and each gold entity left over into ``missed``, under four schemes:

* ``strict`` — correct: same offsets and same type; incorrect: overlaps a gold entity otherwise;
* ``exact`` — correct: same offsets, whatever the type; incorrect: overlaps otherwise;
* ``partial`` — correct: same offsets, whatever the type; partial: overlaps otherwise;
* ``ent_type`` — correct: same type and overlapping (the gold entity of that type with the
  closest boundaries); incorrect: overlaps only entities of other types.

The loop is nervaluate's (``nervaluate.strategies``, version 1.2): predictions in the order
given, each against the gold entities in the order given that no earlier prediction has used;
the first overlapping gold entity is remembered and used up when no correct match follows. So
an earlier overlapping prediction of another type can use up a gold span that a later
prediction matches exactly — then ``strict`` counts that later prediction spurious and the gold
span incorrect, where CoNLL-2003's ``conlleval`` and ``seqeval`` (simjudge's ``strict_*``,
:mod:`metrics.spans`) count it correct. Scores: POS = correct + incorrect + partial + missed,
ACT = correct + incorrect + partial + spurious; ``strict`` and ``exact``: P = correct / ACT,
R = correct / POS; ``partial`` and ``ent_type``: P = (correct + ½ partial) / ACT, R = (correct +
½ partial) / POS; F1 = 2PR / (P + R); 0 where a denominator is 0 (nervaluate's rule).

Offsets: simjudge's spans are ``[start, end)``; nervaluate's entities end on their last
character, so a span is handed to it as ``(start, end - 1)``: spans that only touch do not
overlap, and two spans overlap when they share at least 1 % of the gold span's characters
(nervaluate's default ``min_overlap_percentage``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import astuple, dataclass
from typing import Any

from metrics.spans import Span

SCHEMES = ("strict", "exact", "partial", "ent_type")
"""nervaluate's scheme names, in its order."""


@dataclass(frozen=True)
class SchemeCounts:
    """nervaluate's counts of one scheme (all ints >= 0)."""

    correct: int = 0
    incorrect: int = 0
    partial: int = 0
    missed: int = 0
    spurious: int = 0

    def __add__(self, other: SchemeCounts) -> SchemeCounts:
        """Element-wise sum (nervaluate's merge of documents)."""
        return SchemeCounts(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))

    def scores(self, scheme: str) -> dict[str, float]:
        """``{precision, recall, f1}`` of these counts under ``scheme`` (see the module
        docstring; ``partial`` and ``ent_type`` credit a partial match ½).

        Raises:
            ValueError: an unknown scheme.

        Examples:
            >>> SchemeCounts(correct=2, partial=1, spurious=1, missed=1).scores("partial")
            {'precision': 0.625, 'recall': 0.625, 'f1': 0.625}
        """
        if scheme not in SCHEMES:
            raise ValueError(f"scheme: expected one of {', '.join(SCHEMES)}, got {scheme!r}")
        hit = self.correct + (0.5 * self.partial if scheme in ("partial", "ent_type") else 0)
        act = self.correct + self.incorrect + self.partial + self.spurious
        pos = self.correct + self.incorrect + self.partial + self.missed
        p = hit / act if act > 0 else 0.0
        r = hit / pos if pos > 0 else 0.0
        return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r > 0 else 0.0}


def _overlap(p: Span, t: Span) -> bool:
    """nervaluate's overlap test at its default 1 %: the characters ``p`` shares with ``t``
    are at least 1 % of ``t``'s (so any shared character of a gold span up to 100 long)."""
    shared = min(p.end, t.end) - max(p.start, t.start)
    return shared > 0 and shared / (t.end - t.start) * 100.0 >= 1.0


def scheme_counts(pred: Sequence[Span], truth: Sequence[Span], scheme: str) -> SchemeCounts:
    """One document's counts under one of nervaluate's schemes, in nervaluate's loop order.

    Args:
        pred, truth: the document's spans in the order given (the order changes the counts
            when predictions overlap).
        scheme: ``strict``, ``exact``, ``partial`` or ``ent_type``.

    Raises:
        ValueError: an unknown scheme.

    Source: ``nervaluate.strategies`` (1.2.1), ``StrictEvaluation``, ``ExactEvaluation``,
    ``PartialEvaluation``, ``EntityTypeEvaluation``.

    Examples:
        An earlier ORG prediction overlapping the gold PER span uses it up, so the exact PER
        prediction after it finds no gold span left:

        >>> gold = [Span(0, 5, "PER", "Alice")]
        >>> pred = [Span(0, 3, "ORG", "Ali"), Span(0, 5, "PER", "Alice")]
        >>> scheme_counts(pred, gold, "strict")
        SchemeCounts(correct=0, incorrect=1, partial=0, missed=0, spurious=1)
    """
    if scheme not in SCHEMES:
        raise ValueError(f"scheme: expected one of {', '.join(SCHEMES)}, got {scheme!r}")
    correct = incorrect = partial = spurious = 0
    used: set[int] = set()
    for p in pred:
        match: int | None = None
        first: int | None = None  # the first overlapping gold span left (incorrect/partial)
        best: int | None = None  # ent_type: the closest boundaries so far
        for j, t in enumerate(truth):
            if j in used:
                continue
            same = p.start == t.start and p.end == t.end
            if scheme in ("strict", "exact") and same and (scheme == "exact"
                                                           or p.type == t.type):
                match = j
                break
            if not _overlap(p, t):
                continue
            if scheme == "partial" and same:
                match = j
                break
            if scheme == "ent_type" and p.type == t.type:
                d = abs(p.start - t.start) + abs(p.end - t.end)
                if best is None or d < best:
                    match, best = j, d
            elif first is None:
                first = j
        if match is not None:
            correct += 1
            used.add(match)
        elif first is not None:
            used.add(first)
            if scheme == "partial":
                partial += 1
            else:
                incorrect += 1
        else:
            spurious += 1
    return SchemeCounts(correct, incorrect, partial, len(truth) - len(used), spurious)


def nervaluate_counts(pred: Sequence[Span], truth: Sequence[Span],
                      ) -> dict[str, SchemeCounts]:
    """One document's counts under each of nervaluate's schemes, all types together
    (nervaluate's ``overall``): ``{scheme: SchemeCounts}`` in :data:`SCHEMES` order."""
    return {s: scheme_counts(pred, truth, s) for s in SCHEMES}


def nervaluate_type_counts(pred: Sequence[Span], truth: Sequence[Span],
                           ) -> dict[str, dict[str, SchemeCounts]]:
    """One document's counts per entity type (nervaluate's ``entities``: each type's spans
    alone, in the order given), types sorted: ``{type: {scheme: SchemeCounts}}``."""
    types = sorted({s.type for s in (*pred, *truth)})
    return {t: nervaluate_counts([s for s in pred if s.type == t],
                                 [s for s in truth if s.type == t]) for t in types}


def nervaluate_scores(counts: Mapping[str, SchemeCounts]) -> dict[str, Any]:
    """Flat scores of summed counts: ``nervaluate_<scheme>_<precision|recall|f1>`` for each
    scheme present in ``counts``.

    Examples:
        >>> nervaluate_scores({"strict": SchemeCounts(correct=1, spurious=1)})
        {'nervaluate_strict_precision': 0.5, 'nervaluate_strict_recall': 1.0, 'nervaluate_strict_f1': 0.6666666666666666}
    """  # noqa: E501
    return {f"nervaluate_{s}_{k}": v for s, c in counts.items() for k, v in c.scores(s).items()}
