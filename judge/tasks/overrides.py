"""Human overrides (``simjudge eval/rescore --overrides FILE``): reviewers' labels that take
precedence over the judge's verdict for the pairs they cover.

A pair is keyed by ``(item id, pred, truth)`` — the raw strings, as the audit page exports
them; a label without an item id covers that pair in every item. The pair's score becomes
the human score: the mean of its reviewers' labels, each scaled to [0, 1] (0/1 labels as they
are; a graded ``labels.db`` label ``g`` on a scale ``0..top`` as ``g / top``), so a pair
matches when that mean is strictly greater than τ — one reviewer's 1 always does (τ < 1), a
1-and-0 split (0.5) does not at τ 0.7. The judge still judges every pair: its own verdict
stays in ``verdicts.jsonl`` beside the human row (``source: "human"``, ``judge_score``,
``judge_outcome``). Exact (normalised-equal) pairs are matched at 1.0 before any score is
read (seed 001), so a label on one changes nothing and is only counted (``exact``).

:class:`HumanOverrides` is plain data: the label files are read by
:func:`judge.calibration.overrides.read_overrides`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from judge.errors import InputError
from metrics import normalize

PairKey = tuple[str | None, str, str]
"""``(item id or None, pred, truth)``."""
HUMAN = "human"
"""The ``judge_id``, ``scorer`` stem and ``source`` of an overridden pair's verdict row."""


@dataclass(frozen=True)
class HumanLabel:
    """One pair's human override.

    Attributes:
        score: the mean of the reviewers' scaled labels, in [0, 1].
        reviewers: who labelled it, in order; labels: their labels as given (grades unscaled).
        where: ``FILE:LINE`` (a ``labels.db``: ``FILE:eventN``) of its first label.
    """

    score: float
    reviewers: tuple[str, ...]
    labels: tuple[float, ...]
    where: str


@dataclass
class HumanOverrides:
    """The human labels of some label files, by pair (see the module docstring).

    Attributes:
        pairs: ``(item id or None, pred, truth) → HumanLabel``.
        files: the label files, as given.
    """

    pairs: dict[PairKey, HumanLabel]
    files: list[str] = field(default_factory=list)

    def get(self, item_id: str | None, pred: str, truth: str) -> HumanLabel | None:
        """The label of the pair in item ``item_id`` (an item-scoped label first), or None."""
        return self.pairs.get((item_id, pred, truth)) or self.pairs.get((None, pred, truth))

    def check(self, groups: Iterable[tuple[str, Sequence[str], Sequence[str]]]) -> None:
        """Refuse labels naming no pair of the run, before any judge call.

        Args:
            groups: the run's ``(item id, pred strings, truth strings)`` matrices.

        Raises:
            InputError: the first label (file order) whose pair no matrix has: its file and
                line, and the field naming what the run lacks (``id``, ``pred``, ``truth``).
        """
        cells: set[PairKey] = set()
        for gid, preds, truths in groups:
            cells.update((gid, p, t) for p in preds for t in truths)
        loose = {(p, t) for _, p, t in cells}
        for (iid, p, t), label in self.pairs.items():
            if (iid, p, t) in cells or (iid is None and (p, t) in loose):
                continue
            path, _, line = label.where.rpartition(":")
            at: dict[str, Any] = {"path": path or label.where,
                                  "line": int(line) if line.isdigit() else None}
            item = f" of item {iid!r}" if iid is not None else ""
            if iid is not None and not any(c[0] == iid for c in cells):
                raise InputError(f"no item {iid!r} in this run: the override names no pair "
                                 "of it", field="id", **at)
            if not any(c[1] == p and (iid is None or c[0] == iid) for c in cells):
                raise InputError(f"{p!r} is no prediction{item} in this run: the override "
                                 "names no pair of it", field="pred", **at)
            raise InputError(f"({p!r}, {t!r}) is no pair{item} in this run: the override "
                             "names no pair of it", field="truth", **at)


def human_row(label: HumanLabel, item_id: str, pred: str, truth: str,
              judge: tuple[float | None, str] | None) -> dict[str, Any]:
    """The ``verdicts.jsonl`` row of an overridden pair: outcome ``ok`` with the human score,
    ``judge_id``/``source`` ``human``, the reviewers and their labels, and the judge's own
    ``(score, outcome)`` (``judge``; None: the judge gave no verdict)."""
    who = ", ".join(f"{r} {x:g}" for r, x in zip(label.reviewers, label.labels, strict=True))
    return {"pred": pred, "truth": truth, "score": label.score, "outcome": "ok",
            "judge_id": HUMAN, "scorer": f"{HUMAN}@v1",
            "rationale": f"human override ({who}) → {label.score:.2f}", "raw": label.where,
            "item_id": item_id, "source": HUMAN, "reviewers": list(label.reviewers),
            "labels": list(label.labels),
            "judge_score": judge[0] if judge is not None else None,
            "judge_outcome": judge[1] if judge is not None else None}


def is_exact(pred: str, truth: str) -> bool:
    """Whether a pair is exact (normalised-equal): matched at 1.0, never overridden."""
    return normalize(pred) == normalize(truth)


def summary(overrides: HumanOverrides, applied: int, exact: int, flipped: int,
            tau: float) -> dict[str, Any]:
    """``summary.json``'s ``overrides``: ``files``, ``labelled_pairs`` (labels read),
    ``overridden_pairs`` (matrix cells whose score became the human one), ``exact`` (cells on
    exact pairs, unchanged), ``human_ne_judge`` (overridden cells whose judge score is on the
    other side of τ, or that the judge left without a score) and ``tau``."""
    return {"files": list(overrides.files), "labelled_pairs": len(overrides.pairs),
            "overridden_pairs": applied, "exact": exact, "human_ne_judge": flipped,
            "tau": tau}


@dataclass
class Applied:
    """What :func:`apply` did over a run's matrices (the counts of :func:`summary`)."""

    overridden: int = 0
    exact: int = 0
    flipped: int = 0


def apply(scores: Any, pred: Sequence[str], truth: Sequence[str], item_id: str,
          overrides: HumanOverrides, tau: float, counts: Applied,
          ) -> list[tuple[int, int, HumanLabel, float | None]]:
    """Put the human scores into one matrix, in place.

    Args:
        scores: the ``len(pred)``×``len(truth)`` float array (NaN = no score), modified.
        item_id: the item the matrix belongs to.
        counts: updated with the overridden, exact and human ≠ judge cells.

    Returns:
        ``(i, j, label, judge score before)`` of every overridden cell.
    """
    out = []
    for i, p in enumerate(pred):
        for j, t in enumerate(truth):
            label = overrides.get(item_id, p, t)
            if label is None:
                continue
            if is_exact(p, t):
                counts.exact += 1
                continue
            before = float(scores[i][j])
            before_or_none = None if before != before else before
            scores[i][j] = label.score
            counts.overridden += 1
            counts.flipped += before_or_none is None or (before > tau) != (label.score > tau)
            out.append((i, j, label, before_or_none))
    return out
