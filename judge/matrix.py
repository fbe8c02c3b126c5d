"""Building pred×truth similarity matrices over a whole dataset (DESIGN.md steps 1–4).

1. normalise every string (:func:`metrics.normalize`); normalised-equal pairs are exact:
   score 1.0, no judge call;
2. collect the remaining (pred, truth) pairs over all items and deduplicate them;
3. send the distinct pairs to the judge once (it consults the cache and calls its model for the
   misses — concurrently for remote judges);
4. fill each item's matrix, keeping every verdict for the audit trail.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from judge import aio
from judge.judges.base import Judge, JudgeContext, Pair
from judge.verdict import Verdict
from metrics import normalize


@dataclass
class SimilarityMatrix:
    """One item's similarity matrix.

    Attributes:
        pred, truth: the item's strings (n_pred and n_truth of them).
        scores: float64 array (n_pred, n_truth) in [0, 1]; 1.0 for exact pairs; NaN where no
            verdict with outcome ``ok`` exists.
        exact: bool array (n_pred, n_truth), True where the normalised strings are equal.
        verdicts: ``(i, j) → Verdict`` for every judged cell (exact cells have none).
    """

    pred: tuple[str, ...]
    truth: tuple[str, ...]
    scores: NDArray[np.float64]
    exact: NDArray[np.bool_]
    verdicts: dict[tuple[int, int], Verdict] = field(default_factory=dict)


@dataclass
class MatrixBuild:
    """Matrices for a dataset plus the accounting of how they were obtained.

    Attributes:
        matrices: one per item, in input order.
        verdicts: one per distinct judged pair (the audit trail), in first-seen order.
        pairs_total: cells over all items; pairs_exact: exact cells;
        pairs_distinct: distinct non-exact pairs sent to the judge (per item for item-scoped
            judges);
        pairs_without_verdict: distinct pairs left without a score (NaN): no verdict at all
            (e.g. a table without the pair, a panel without quorum) or a failed verdict
            (``parse_error``, ``transport_error``, ``refused``); they can never be matched;
        outcomes: count of verdict outcomes over distinct pairs;
        wall_s: seconds spent in the judge.
        verdict_items: for item-scoped judges, the item id of each verdict (else None).
    """

    matrices: list[SimilarityMatrix]
    verdicts: list[Verdict]
    pairs_total: int
    pairs_exact: int
    pairs_distinct: int
    pairs_without_verdict: int
    outcomes: Counter[str]
    wall_s: float
    verdict_items: list[str | None] = field(default_factory=list)


def distinct_pairs(items: Sequence[tuple[Sequence[str], Sequence[str]]],
                   ) -> tuple[list[Pair], int, int]:
    """The distinct non-exact (pred, truth) pairs of a dataset, in first-seen order.

    Returns:
        ``(pairs, pairs_total, pairs_exact)``.
    """
    seen: dict[Pair, None] = {}
    total = exact = 0
    for pred, truth in items:
        norm_t = [normalize(t) for t in truth]
        for p in pred:
            np_ = normalize(p)
            for t, nt in zip(truth, norm_t, strict=True):
                total += 1
                if np_ == nt:
                    exact += 1
                else:
                    seen.setdefault((p, t), None)
    return list(seen), total, exact


async def _scoped_verdicts(items: Sequence[tuple[Sequence[str], Sequence[str]]],
                           ids: Sequence[str], judge: Judge, ctx: JudgeContext,
                           ) -> tuple[list[tuple[str | None, Pair]], list[Verdict | None]]:
    keys: list[tuple[str | None, Pair]] = []
    verdicts: list[Verdict | None] = []
    for item_id, item in zip(ids, items, strict=True):
        pairs = distinct_pairs([item])[0]
        ctx.item_id = item_id
        try:
            got = await judge.judge_pairs(pairs, ctx) if pairs else []
        finally:
            ctx.item_id = None
        keys.extend((item_id, p) for p in pairs)
        verdicts.extend(got)
    return keys, verdicts


async def build_matrices_async(items: Sequence[tuple[Sequence[str], Sequence[str]]],
                               judge: Judge, ctx: JudgeContext,
                               ids: Sequence[str] | None = None) -> MatrixBuild:
    """Build every item's :class:`SimilarityMatrix` with one judge pass over distinct pairs.

    Args:
        items: ``(pred strings, truth strings)`` per item.
        judge: any :class:`judge.judges.base.Judge`.
        ctx: cache, task context, counters and progress callback.
        ids: item ids (needed by item-scoped judges; default the item positions).

    Raises:
        judge.errors.CacheMissError: a needed call in ``cache-only`` mode.
    """
    pairs, total, n_exact = distinct_pairs(items)
    item_ids = list(ids) if ids is not None else [str(k) for k in range(len(items))]
    scoped = bool(getattr(judge, "item_scoped", False))
    t0 = time.perf_counter()
    if scoped:
        keys, verdicts = await _scoped_verdicts(items, item_ids, judge, ctx)
    else:
        keys = [(None, p) for p in pairs]
        verdicts = await judge.judge_pairs(pairs, ctx) if pairs else []
    wall = time.perf_counter() - t0
    by_pair: dict[tuple[str | None, Pair], Verdict] = {}
    outcomes: Counter[str] = Counter()
    missing = 0
    for key, v in zip(keys, verdicts, strict=True):
        if v is None or v.outcome != "ok":
            missing += 1
        if v is not None:
            by_pair[key] = v
            outcomes[v.outcome] += 1
    matrices = []
    for item_id, (pred, truth) in zip(item_ids, items, strict=True):
        scope = item_id if scoped else None
        n, m = len(pred), len(truth)
        scores = np.full((n, m), np.nan)
        exact = np.zeros((n, m), dtype=bool)
        cells: dict[tuple[int, int], Verdict] = {}
        norm_t = [normalize(t) for t in truth]
        for i, p in enumerate(pred):
            np_ = normalize(p)
            for j, t in enumerate(truth):
                if np_ == norm_t[j]:
                    exact[i, j] = True
                    scores[i, j] = 1.0
                    continue
                v = by_pair.get((scope, (p, t)))
                if v is not None:
                    cells[(i, j)] = v
                    if v.outcome == "ok":
                        scores[i, j] = v.score
        matrices.append(SimilarityMatrix(tuple(pred), tuple(truth), scores, exact, cells))
    kept = [v for v in verdicts if v is not None]
    kept_items = [k[0] for k, v in zip(keys, verdicts, strict=True) if v is not None]
    return MatrixBuild(matrices, kept, total, n_exact, len(keys), missing, outcomes, wall,
                       kept_items)


def build_matrices(items: Sequence[tuple[Sequence[str], Sequence[str]]], judge: Judge,
                   ctx: JudgeContext) -> MatrixBuild:
    """Synchronous wrapper of :func:`build_matrices_async` (runs its own event loop)."""
    return aio.run(build_matrices_async(items, judge, ctx))
