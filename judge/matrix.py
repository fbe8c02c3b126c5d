"""Building pred×truth similarity matrices over a whole dataset (DESIGN.md steps 1–4).

1. normalise every string (:func:`metrics.normalize`); normalised-equal pairs are exact:
   score 1.0, no judge call;
2. collect the remaining (pred, truth) pairs over all items and deduplicate them;
3. send the distinct pairs to the judge once (it consults the cache and calls its model for the
   misses — concurrently for remote judges);
4. fill each item's matrix; every verdict goes to the run's verdict log (the audit trail),
   only its score, outcome and judge id stay in memory.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from judge import aio
from judge.judges.base import Judge, JudgeContext, Pair
from judge.record.verdictlog import VerdictLog
from metrics import normalize


@dataclass
class SimilarityMatrix:
    """One item's similarity matrix.

    Attributes:
        pred, truth: the item's strings (n_pred and n_truth of them).
        scores: float64 array (n_pred, n_truth) in [0, 1]; 1.0 for exact pairs; NaN where no
            verdict with outcome ``ok`` exists.
        exact: bool array (n_pred, n_truth), True where the normalised strings are equal.
        lookup: ``(scope, (pred, truth)) → CellVerdict`` of the run's judged pairs (shared by
            every matrix of the run; the full verdicts are in the run's verdict log).
        scope: the item id under which an item-scoped judge judged this item's pairs, else
            None.
        overridden: ``(i, j) → CellVerdict`` of the cells a human override decided
            (:mod:`judge.tasks.overrides`; judge id ``human``), read before ``lookup``.
    """

    pred: tuple[str, ...]
    truth: tuple[str, ...]
    scores: NDArray[np.float64]
    exact: NDArray[np.bool_]
    lookup: Mapping[tuple[str | None, Pair], CellVerdict] = field(default_factory=dict,
                                                                  repr=False)
    scope: str | None = None
    overridden: dict[tuple[int, int], CellVerdict] = field(default_factory=dict, repr=False)

    def cell(self, i: int, j: int) -> CellVerdict | None:
        """The verdict of cell (i, j), 0-based; None for an exact cell or a pair without one."""
        if self.exact[i, j]:
            return None
        if (i, j) in self.overridden:
            return self.overridden[(i, j)]
        return self.lookup.get((self.scope, (self.pred[i], self.truth[j])))

    @property
    def verdicts(self) -> dict[tuple[int, int], CellVerdict]:
        """``(i, j) → CellVerdict`` for every judged cell (exact cells have none)."""
        out = {}
        for i in range(len(self.pred)):
            for j in range(len(self.truth)):
                v = self.cell(i, j)
                if v is not None:
                    out[(i, j)] = v
        return out


class CellVerdict(NamedTuple):
    """What matching keeps of a verdict (the rest is in the run's verdict log).

    Attributes:
        score: in [0, 1] when ``outcome`` is ``ok``, else None.
        outcome: ``ok``, ``parse_error``, ``transport_error`` or ``refused``.
        judge_id: the judge that decided it.
    """

    score: float | None
    outcome: str
    judge_id: str


CHUNK_PAIRS = 20_000
"""Distinct pairs handed to the judge at a time. Each chunk's verdicts go to the run's verdict
log (a file for ``simjudge eval``: :meth:`judge.record.verdictlog.VerdictLog.spool`) and only a
:class:`CellVerdict` per pair stays in memory, so a million-pair run does not hold a million
verdicts. A chunk is large enough that a remote judge's concurrency window stays full."""


LOG_BATCH = 1024
"""Verdict rows handed to the log at a time (one write each, few rows held)."""


@dataclass
class MatrixBuild:
    """Matrices for a dataset plus the accounting of how they were obtained.

    Attributes:
        matrices: one per item, in input order.
        log: the verdict rows (:class:`judge.record.verdictlog.VerdictLog`): per chunk, the
            panel members' own rows (drained from ``ctx.panel.member_verdicts``), then one per
            distinct judged pair with its ``item_id`` for item-scoped judges.
        pairs_total: cells over all items; pairs_exact: exact cells;
        pairs_distinct: distinct non-exact pairs sent to the judge (per item for item-scoped
            judges);
        pairs_without_verdict: distinct pairs left without a score (NaN): no verdict at all
            (e.g. a table without the pair, a panel without quorum) or a failed verdict
            (``parse_error``, ``transport_error``, ``refused``); they can never be matched;
        outcomes: count of verdict outcomes over distinct pairs;
        wall_s: seconds spent in the judge.
    """

    matrices: list[SimilarityMatrix]
    log: VerdictLog
    pairs_total: int
    pairs_exact: int
    pairs_distinct: int
    pairs_without_verdict: int
    outcomes: Counter[str]
    wall_s: float


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


@dataclass
class _Collect:
    """Judges chunks of pairs, logging each verdict and keeping its :class:`CellVerdict`."""

    judge: Judge
    ctx: JudgeContext
    log: VerdictLog
    lookup: dict[tuple[str | None, Pair], CellVerdict] = field(default_factory=dict)
    outcomes: Counter[str] = field(default_factory=Counter)
    judged: int = 0
    missing: int = 0

    async def pairs(self, scope: str | None, pairs: Sequence[Pair]) -> None:
        for k in range(0, len(pairs), CHUNK_PAIRS):
            chunk = pairs[k:k + CHUNK_PAIRS]
            got = await self.judge.judge_pairs(chunk, self.ctx)
            members = self.ctx.panel.member_verdicts  # a panel's own rows, logged first
            self.log.extend(members)
            members.clear()
            scoped = {"item_id": scope} if scope is not None else {}
            rows = []
            for pair, v in zip(chunk, got, strict=True):
                self.judged += 1
                if v is None or v.outcome != "ok":
                    self.missing += 1
                if v is None:
                    continue
                ok = v.outcome == "ok"
                self.lookup[(scope, pair)] = CellVerdict(v.score if ok else None, v.outcome,
                                                         v.judge_id)
                self.outcomes[v.outcome] += 1
                row = v.to_row()  # a new dict: the item id goes into it
                row.update(scoped)
                rows.append(row)
                if len(rows) >= LOG_BATCH:
                    self.log.extend(rows)
                    rows.clear()
            self.log.extend(rows)


async def build_matrices_async(items: Sequence[tuple[Sequence[str], Sequence[str]]],
                               judge: Judge, ctx: JudgeContext,
                               ids: Sequence[str] | None = None,
                               log: VerdictLog | None = None) -> MatrixBuild:
    """Build every item's :class:`SimilarityMatrix` with one judge pass over distinct pairs
    (in chunks of :data:`CHUNK_PAIRS`).

    Args:
        items: ``(pred strings, truth strings)`` per item.
        judge: any :class:`judge.judges.base.Judge`.
        ctx: cache, task context, counters and progress callback.
        ids: item ids (needed by item-scoped judges; default the item positions).
        log: where the verdict rows go (default: a new in-memory log; ``simjudge eval``
            passes a spool file).

    Raises:
        judge.errors.CacheMissError: a needed call in ``cache-only`` mode.
    """
    pairs, total, n_exact = distinct_pairs(items)
    item_ids = list(ids) if ids is not None else [str(k) for k in range(len(items))]
    scoped = bool(getattr(judge, "item_scoped", False))
    got = _Collect(judge, ctx, log if log is not None else VerdictLog.memory())
    t0 = time.perf_counter()
    if scoped:
        for item_id, item in zip(item_ids, items, strict=True):
            ctx.item_id = item_id
            try:
                await got.pairs(item_id, distinct_pairs([item])[0])
            finally:
                ctx.item_id = None
    else:
        await got.pairs(None, pairs)
    wall = time.perf_counter() - t0
    del pairs
    matrices = []
    for item_id, (pred, truth) in zip(item_ids, items, strict=True):
        scope = item_id if scoped else None
        n, m = len(pred), len(truth)
        scores = np.full((n, m), np.nan)
        exact = np.zeros((n, m), dtype=bool)
        norm_t = [normalize(t) for t in truth]
        for i, p in enumerate(pred):
            np_ = normalize(p)
            for j, t in enumerate(truth):
                if np_ == norm_t[j]:
                    exact[i, j] = True
                    scores[i, j] = 1.0
                    continue
                v = got.lookup.get((scope, (p, t)))
                if v is not None and v.score is not None:
                    scores[i, j] = v.score
        matrices.append(SimilarityMatrix(tuple(pred), tuple(truth), scores, exact, got.lookup,
                                         scope))
    return MatrixBuild(matrices, got.log, total, n_exact, got.judged, got.missing,
                       got.outcomes, wall)


def build_matrices(items: Sequence[tuple[Sequence[str], Sequence[str]]], judge: Judge,
                   ctx: JudgeContext) -> MatrixBuild:
    """Synchronous wrapper of :func:`build_matrices_async` (runs its own event loop)."""
    return aio.run(build_matrices_async(items, judge, ctx))
