"""Options of ``--task ranking`` (:attr:`judge.tasks.ranking.RankingTask.Options`); standard
library only, read by the command line without importing the task (:mod:`judge.tasks.options`).
trec_eval's letters are their short flags: ``-m``, ``-l``, ``-c``, ``-M``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from judge.tasks.options import Interval


@dataclass(frozen=True)
class RankingOptions:
    """Options of ``--task ranking``.

    Attributes:
        max_rank: documents kept per query of the run, after trec_eval's ordering (score
            descending, ties by doc id descending): trec_eval's ``-M``; 0 = all of them,
            trec_eval's default (>= 0).
        measure: trec_eval measures computed besides the default ones, by trec_eval's names
            (``P.5,10``, ``ndcg_cut.10``, ``recip_rank``, ``all_trec``…:
            :func:`metrics.treceval.parse_measure`); trec_eval's ``-m``.
        relevance_level: the lowest grade that counts as relevant (trec_eval's ``-l``, 1..1000).
        all_queries: average over every query of the qrels, a query the run lacks scored as an
            empty ranking (0 for the ranking measures): trec_eval's ``-c``.
        gain: NDCG's gain (``ndcg``, ``ndcg@10``): ``linear`` (the grade, trec_eval's),
            ``exponential`` (2^grade − 1) or a table ``GRADE=GAIN,...``
            (:func:`metrics.ranking.parse_gain`).
        err_max_grade: ERR's maximum grade g_max (1..1000); 0 = the largest grade the qrels
            give.
    """

    max_rank: Annotated[int, Interval(ge=0)] = field(default=0, metadata={
        "short": "-M",
        "help": "ranking: keep the first N documents of each query's run (trec_eval -M); "
                "0 = all, as trec_eval."})
    measure: tuple[str, ...] = field(default=(), metadata={
        "short": "-m", "repeat": True,
        "help": "ranking: a trec_eval measure to compute too, by its trec_eval name (P.5,10, "
                "ndcg_cut.10, recip_rank, map, bpref, Rprec, success.1,5, infAP, official, "
                "all_trec…); repeat the flag for more (trec_eval -m)."})
    relevance_level: Annotated[int, Interval(ge=1, le=1000)] = field(default=1, metadata={
        "short": "-l",
        "help": "ranking: the lowest grade counted as relevant (trec_eval -l; default 1)."})
    all_queries: bool = field(default=False, metadata={
        "short": "-c",
        "help": "ranking: average over every query of the qrels; a query the run lacks scores "
                "as an empty ranking, 0 (trec_eval -c). Default: the run's judged queries."})
    gain: str = field(default="linear", metadata={
        "help": "ranking: NDCG's gain of a grade: linear (the grade, as trec_eval), "
                "exponential (2^grade - 1) or a table GRADE=GAIN,... such as 1=1,2=3,3=7."})
    err_max_grade: Annotated[int, Interval(ge=0, le=1000)] = field(default=0, metadata={
        "help": "ranking: ERR's maximum grade g_max; 0 = the largest grade in the qrels."})
