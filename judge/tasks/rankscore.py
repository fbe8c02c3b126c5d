"""The ranking task's per-query scoring (:func:`score_queries`) and the trec_eval measures' columns
of its rows (:func:`measure_columns`): what :class:`judge.tasks.ranking.RankingTask` computes,
apart from how it reads its files.

trec_eval's definitions are computed by pytrec_eval (:func:`metrics.treceval.trec_measures`):
AP and AP@k (``map``, ``map_cut``), NDCG and NDCG@k with gain = grade (``ndcg``, ``ndcg_cut``)
and every measure ``--measure`` names. simjudge's own code (:mod:`metrics.ranking`) computes
what trec_eval lacks: ERR@k (Chapelle et al. 2009) and NDCG with an exponential gain or a gain
table at a cut-off.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np

from judge.errors import InputError
from judge.items import Item
from judge.record.itemrows import RANK_CUTOFF, RankingRow
from judge.tasks.rankoptions import RankingOptions
from metrics.ranking import err_at_k, ndcg_at_k
from metrics.treceval import Measure, aggregate, parse_measures, trec_measures

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from metrics.ranking import Gain

K = RANK_CUTOFF
_SEED = parse_measures(["map", f"map_cut.{K}", "ndcg", f"ndcg_cut.{K}"])
"""trec_eval's measures behind the rows' ``ap``, ``ap@k``, ``ndcg`` and ``ndcg@k``."""


def err_grade(items: Sequence[Item], opts: RankingOptions) -> int:
    """ERR's maximum grade: ``--err-max-grade``, or the largest grade of the qrels (at least 1).

    Raises:
        InputError: a judged grade above ``--err-max-grade`` (query and document named).
    """
    if not opts.err_max_grade:
        return max(chain([1], *(i.truth.values() for i in items)))
    for i in items:
        for doc, g in i.truth.items():
            if g > opts.err_max_grade:
                raise InputError(f"query {i.id!r}, document {doc!r}: grade {g} is above "
                                 f"--err-max-grade {opts.err_max_grade}",
                                 field="err-max-grade")
    return opts.err_max_grade


def score_queries(items: Sequence[Item], opts: RankingOptions, measures: Sequence[Measure],
                  gain: Gain) -> tuple[list[RankingRow], int]:
    """One row per query, and ERR's maximum grade.

    Args:
        items: one per query: ``pred`` = document ids best first, ``truth`` = doc → grade,
            ``extra["scores"]`` (optional) = doc → score giving that order;
            ``extra["typed"]`` True (:func:`judge.tasks.ranking.load_ranking`'s items): id and
            source are ``str``, pred ``list[str]`` and truth ``dict[str, int]``, as its readers
            make them, so the rows are built without validating them again (pydantic's
            ``model_construct``: validating would only copy those values, and the row's other
            fields are floats and counts made here). Other items' rows are validated (a tuple
            of ids becomes a list, a bad value raises pydantic's ``ValidationError``).
        opts: the run's ranking options (``relevance_level``, ``err_max_grade``).
        measures: the trec_eval measures asked for (their values in the rows' ``measures``).
        gain: NDCG's gain (:data:`metrics.ranking.Gain`); linear = trec_eval's.

    Raises:
        InputError: see :func:`err_grade`.
    """
    max_grade = err_grade(items, opts)
    level = opts.relevance_level
    asked = [n for m in measures for n in m.names()]
    trec = trec_measures({i.id: i.extra.get("scores", i.pred) for i in items},
                         {i.id: i.truth for i in items},
                         [*_SEED, *measures], relevance_level=level)
    linear = gain == "linear"
    rows: list[RankingRow] = []
    for i in items:
        t = trec[i.id]
        values = {
            "id": i.id, "source": i.source, "retrieved": len(i.pred),
            "relevant": len([g for g in i.truth.values() if g >= level]),
            "ap": t["map"], f"ap@{K}": t[f"map_cut_{K}"],
            "ndcg": t["ndcg"] if linear else ndcg_at_k(i.pred, i.truth, None, gain),
            f"ndcg@{K}": t[f"ndcg_cut_{K}"] if linear else ndcg_at_k(i.pred, i.truth, K, gain),
            f"err@{K}": err_at_k(i.pred, i.truth, max_grade, K),
            "measures": {n: t[n] for n in asked} if asked else None,
            "ranked": i.pred, "qrels": i.truth}
        # validating would only copy a typed item's values (see the docstring)
        rows.append(RankingRow.model_construct(**values) if i.extra.get("typed") is True
                    else RankingRow.model_validate(values))
    return rows, max_grade


def measure_columns(rows: Sequence[RankingRow],
                    ) -> Callable[[NDArray[np.intp] | None], dict[str, float]]:
    """``idx -> {name: trec_eval's 'all' of the rows idx}`` for each measure in the rows'
    ``measures`` (None = every row), the values read once
    (:func:`metrics.treceval.aggregate`: sum, geometric or arithmetic mean)."""
    names = list(rows[0].measures or {}) if rows else []
    cols = {n: np.array([(r.measures or {})[n] for r in rows], dtype=float) for n in names}

    def at(idx: NDArray[np.intp] | None) -> dict[str, float]:
        return {n: aggregate(n, c if idx is None else c[idx]) for n, c in cols.items()}
    return at
