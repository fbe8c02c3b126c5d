"""Options of ``--task ranking`` (:attr:`judge.tasks.ranking.RankingTask.Options`); standard
library only, read by the command line without importing the task (:mod:`judge.tasks.options`).
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
    """

    max_rank: Annotated[int, Interval(ge=0)] = field(default=0, metadata={
        "help": "ranking: keep the first N documents of each query's run (trec_eval -M); "
                "0 = all, as trec_eval."})
