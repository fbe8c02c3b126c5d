"""Ranking metrics: AP, MAP (and @k), NDCG@k, ERR@k, and TREC qrels/run readers.

Source: trec_eval (NIST), the field's reference implementation, whose conventions are followed
so results agree with it (tests compare with pytrec_eval); Järvelin & Kekäläinen (2002) for
NDCG; Chapelle et al. (2009) for ERR:

* a document is relevant when its grade >= ``relevance_level`` (default 1); unjudged = 0;
* AP divides by the **number of relevant documents in the judgments**, R (trec_eval ``map``).
  Some tutorials (e.g. a Chinese multi-label metrics note this project started from) divide
  by the list length instead (0.26 for relevant ranks 1, 2, 5 of 10); that is non-standard —
  with R = 3, AP = (1/1 + 2/2 + 3/5)/3 = 0.8667;
* AP@k (trec_eval ``map_cut_k``) keeps the denominator R and sums over the top k only;
* NDCG: DCG = Σ_i gain(g_i) / log2(i + 1) over ranks i = 1..k; IDCG from the judged grades in
  descending order; linear gain g (trec_eval ``ndcg``/``ndcg_cut``, scikit-learn
  ``ndcg_score``) by default, exponential gain 2^g − 1 as an option; grades < 0 (TREC's −1
  "junk") give gain 0, as in trec_eval;
* ERR@k (Chapelle, Metzler, Zhang, Grinspan 2009): R(g) = (2^g − 1) / 2^g_max,
  ERR = Σ_r (1/r) R(g_r) Π_{i<r} (1 − R(g_i)), with an explicit maximum grade g_max;
* a TREC run is ordered as trec_eval orders it: by score descending, ties by document id
  descending; the file's rank column is ignored (the readers: :mod:`metrics.trec`).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence
from functools import partial

from metrics.trec import TrecFormatError as TrecFormatError
from metrics.trec import read_qrels as read_qrels
from metrics.trec import read_run as read_run

Relevance = Mapping[str, float]
"""Document id → graded relevance judgment (e.g. 0/1, or −1..4)."""

Run = Mapping[str, Sequence[str]]
"""Query id → ranked document ids (best first)."""

Qrels = Mapping[str, Relevance]
"""Query id → judgments."""


def _check_ranking(ranking: Sequence[str], name: str = "ranking") -> list[str]:
    if isinstance(ranking, str):
        raise ValueError(f"{name}: expected a list of document ids, got a single str")
    seen: dict[str, int] = {}
    out = list(ranking)
    for i, doc in enumerate(out):
        if doc in seen:
            raise ValueError(f"{name}[{i}]: duplicate document id {doc!r} (first at {seen[doc]})")
        seen[doc] = i
    return out


def _check_k(k: int | None) -> None:
    if k is not None and (not isinstance(k, int) or k < 1):
        raise ValueError(f"k: expected a positive integer or None, got {k!r}")


def average_precision(ranking: Sequence[str], relevance: Relevance, k: int | None = None,
                      relevance_level: float = 1) -> float:
    """Average precision of one ranked list (trec_eval ``map``; ``map_cut_k`` with ``k``).

    Args:
        ranking: document ids, best first (no duplicates).
        relevance: judgments, doc id → grade; documents absent are non-relevant.
        k: only the top ``k`` ranks contribute (denominator unchanged); None = whole list.
        relevance_level: minimum grade counted as relevant (trec_eval's default 1).

    Returns:
        AP in [0, 1] = (1/R) Σ_{relevant retrieved at rank r ≤ k} precision@r, R = number of
        relevant documents in ``relevance``; 0.0 when R = 0.
        Dividing by the list length instead of R (as some tutorials do) is non-standard.

    Raises:
        ValueError: a duplicate id (index named) or a bad ``k``.

    Examples:
        Relevant documents at ranks 1, 2 and 5 of 10, R = 3:
        AP = (1/1 + 2/2 + 3/5) / 3 = 0.8667; AP@2 = (1/1 + 2/2) / 3.

        >>> ranking = [f"d{i}" for i in range(1, 11)]
        >>> rel = {"d1": 1, "d2": 1, "d5": 1, "d7": 0}
        >>> round(average_precision(ranking, rel), 4)
        0.8667
        >>> round(average_precision(ranking, rel, k=2), 4)
        0.6667
    """
    docs = _check_ranking(ranking)
    _check_k(k)
    n_rel = sum(1 for g in relevance.values() if g >= relevance_level)
    if n_rel == 0:
        return 0.0
    hits = 0
    total = 0.0
    for rank, doc in enumerate(docs[:k] if k else docs, start=1):
        if relevance.get(doc, 0) >= relevance_level:
            hits += 1
            total += hits / rank
    return total / n_rel


Gain = str | Mapping[int, float]
"""NDCG's gain of a grade: ``"linear"`` (the grade), ``"exponential"`` (2^grade − 1) or a
table grade → gain (grades it leaves out keep the linear gain), as trec_eval's
``ndcg.1=3,2=9`` parameters give one."""


def grade_gain(grade: float, gain: Gain) -> float:
    """The gain of one grade: linear or exponential for grades > 0 (grades <= 0: 0), or the
    table's value (a grade it leaves out: linear, 0 below 1).

    Raises:
        ValueError: an unknown gain name.

    Examples:
        >>> grade_gain(3, "exponential"), grade_gain(2, {2: 9.0}), grade_gain(-1, "linear")
        (7.0, 9.0, 0.0)
    """
    if isinstance(gain, Mapping):
        return float(gain[int(grade)]) if grade in gain else max(0.0, float(grade))
    if gain not in ("linear", "exponential"):
        raise ValueError(f"gain: expected 'linear', 'exponential' or a table grade -> gain, "
                         f"got {gain!r}")
    if grade <= 0:
        return 0.0
    return float(grade) if gain == "linear" else 2.0 ** grade - 1.0


def parse_gain(text: str) -> Gain:
    """A gain as the command line gives it: ``linear``, ``exponential`` or a table
    ``GRADE=GAIN,...`` (grades integers >= 0, each once; gains finite numbers).

    Raises:
        ValueError: anything else (the bad entry named).

    Examples:
        >>> parse_gain("1=1,2=3,3=7")
        {1: 1.0, 2: 3.0, 3: 7.0}
    """
    if text in ("linear", "exponential"):
        return text
    table: dict[int, float] = {}
    for entry in text.split(","):
        grade, sep, value = entry.partition("=")
        ok = sep == "=" and grade.strip().isdigit()
        try:
            g, v = int(grade), float(value)
        except ValueError:
            ok, g, v = False, -1, math.nan
        if not ok or not math.isfinite(v) or g in table:
            raise ValueError(f"gain: {entry!r} is not GRADE=GAIN (a grade >= 0 once, a finite "
                             "gain); expected linear, exponential or e.g. 1=1,2=3,3=7")
        table[g] = v
    return table


def dcg_at_k(grades: Sequence[float], k: int | None = None, gain: Gain = "linear") -> float:
    """DCG = Σ_{i=1..k} gain(grade_i) / log2(i + 1) for grades listed in rank order.

    Grades <= 0 contribute nothing unless a gain table gives them a gain (trec_eval ignores
    negative "junk" grades in NDCG).

    Examples:
        >>> round(dcg_at_k([3, 2, 0, 1]), 4)  # 3/1 + 2/log2(3) + 0 + 1/log2(5)
        4.6925
        >>> dcg_at_k([3, 2, 0, 1], k=1, gain="exponential")  # 2^3 − 1
        7.0
    """
    _check_k(k)
    return math.fsum(x / math.log2(i + 2)
                     for i, g in enumerate(grades[:k] if k else grades)
                     if (x := grade_gain(g, gain)) != 0)


def ndcg_at_k(ranking: Sequence[str], relevance: Relevance, k: int | None = None,
              gain: Gain = "linear") -> float:
    """Normalised DCG of one ranked list (trec_eval ``ndcg_cut_k``; ``ndcg`` when k is None).

    Args:
        ranking: document ids, best first.
        relevance: doc id → grade. Negative grades (TREC "junk", −1) count as 0, as in
            trec_eval.
        k: cut-off rank, or None for the whole list.
        gain: ``"linear"`` (gain = grade; trec_eval and scikit-learn), ``"exponential"``
            (2^grade − 1; Burges et al. 2005) or a table grade → gain (:data:`Gain`; with
            ``k`` None equal to trec_eval's ``ndcg.1=3,2=9``).

    Returns:
        NDCG = DCG@k / IDCG@k in [0, 1] for non-negative gains; 0.0 when IDCG = 0 (no positive
        gain); IDCG from the judged documents' positive gains, largest first.

    Raises:
        ValueError: duplicate ids, bad ``k`` or unknown ``gain``.

    Examples:
        DCG = 0 + 2/log2(3) + 1/log2(4) = 1.7619; IDCG (grades 2, 1) = 2 + 1/log2(3) = 2.6309.

        >>> round(ndcg_at_k(["a", "b", "c"], {"a": 0, "b": 2, "c": 1}), 4)
        0.6697
        >>> ndcg_at_k(["a", "b", "c"], {"a": 0, "b": 2, "c": 1}, k=1)  # DCG@1 = 0
        0.0
    """
    docs = _check_ranking(ranking)
    _check_k(k)
    grade_gain(1, gain)
    ideal = sorted((x for g in relevance.values() if (x := grade_gain(g, gain)) > 0),
                   reverse=True)
    idcg = math.fsum(x / math.log2(i + 2) for i, x in enumerate(ideal[:k] if k else ideal))
    if idcg <= 0:
        return 0.0
    return math.fsum(x / math.log2(i + 2) for i, d in enumerate(docs[:k] if k else docs)
                     if d in relevance and (x := grade_gain(relevance[d], gain)) != 0) / idcg


def err_at_k(ranking: Sequence[str], relevance: Relevance, max_grade: float,
             k: int | None = None) -> float:
    """Expected Reciprocal Rank (Chapelle et al., CIKM 2009), cut at rank k.

    Args:
        ranking: document ids, best first.
        relevance: doc id → grade in [0, ``max_grade``]; negative grades count as 0.
        max_grade: the scale's maximum grade g_max (> 0), e.g. 4 for a 0..4 scale. Explicit
            because the stopping probability R(g) = (2^g − 1)/2^g_max depends on the scale,
            not on the grades that happen to occur.
        k: cut-off rank, or None for the whole list.

    Returns:
        ERR in [0, 1).

    Raises:
        ValueError: a grade above ``max_grade`` (doc id named), ``max_grade <= 0``, a
            duplicate among the first ``k`` ranks (the ones ERR@k reads) or a bad ``k``.

    Examples:
        On a 0..2 scale R(2) = 3/4 and R(1) = 1/4: ERR = 3/4 + (1/2)·(1 − 3/4)·(1/4) = 0.78125.

        >>> err_at_k(["a", "b"], {"a": 2, "b": 1}, max_grade=2)
        0.78125
        >>> err_at_k(["a", "b"], {"a": 2, "b": 1}, max_grade=2, k=1)
        0.75
    """
    _check_k(k)
    docs = _check_ranking(ranking[:k] if k else ranking)  # only the ranks it reads
    if max_grade <= 0:
        raise ValueError(f"max_grade: must be > 0, got {max_grade}")
    if any(map(partial(operator.lt, max_grade), relevance.values())):  # g > max_grade
        doc, g = next((d, g) for d, g in relevance.items() if g > max_grade)
        raise ValueError(f"relevance[{doc!r}]: grade {g} exceeds max_grade {max_grade}")
    denom = 2.0 ** max_grade
    err = 0.0
    p_continue = 1.0
    for rank, doc in enumerate(docs, start=1):
        g = max(0.0, float(relevance.get(doc, 0)))
        r = (2.0 ** g - 1.0) / denom
        err += p_continue * r / rank
        p_continue *= 1.0 - r
    return err


def _per_query(run: Run, qrels: Qrels) -> list[str]:
    qids = [q for q in run if q in qrels]
    if not qids:
        raise ValueError("run: no query id of the run has judgments in qrels")
    return qids


def mean_average_precision(run: Run, qrels: Qrels, k: int | None = None,
                           relevance_level: float = 1) -> float:
    """MAP (MAP@k with ``k``): mean of :func:`average_precision` over queries.

    Averaged over the run's queries that have judgments (trec_eval's default without ``-c``).

    Args:
        run: query id → ranked doc ids.
        qrels: query id → (doc id → grade).
        k, relevance_level: as in :func:`average_precision`.

    Raises:
        ValueError: no query in common, duplicate ids.

    Examples:
        q1: relevant at ranks 1, 3 (AP = (1 + 2/3)/2); q2: relevant at rank 2 (AP = 1/2);
        q3 has no judgments and is skipped. MAP = (0.8333 + 0.5)/2.

        >>> run = {"q1": ["a", "b", "c"], "q2": ["x", "y"], "q3": ["z"]}
        >>> qrels = {"q1": {"a": 1, "c": 1}, "q2": {"y": 1}}
        >>> round(mean_average_precision(run, qrels), 4)
        0.6667
    """
    qids = _per_query(run, qrels)
    return math.fsum(average_precision(run[q], qrels[q], k, relevance_level)
                     for q in qids) / len(qids)


def mean_ndcg(run: Run, qrels: Qrels, k: int | None = None, gain: str = "linear") -> float:
    """Mean :func:`ndcg_at_k` over the run's judged queries (trec_eval ``ndcg``/``ndcg_cut``).

    Examples:
        NDCG is 1 for q1 and 1/log2(3) for q2 (relevant at rank 2): mean (1 + 0.6309)/2.

        >>> run, qrels = {"q1": ["a", "b"], "q2": ["c", "d"]}, {"q1": {"a": 1}, "q2": {"d": 1}}
        >>> round(mean_ndcg(run, qrels), 4)
        0.8155
    """
    qids = _per_query(run, qrels)
    return math.fsum(ndcg_at_k(run[q], qrels[q], k, gain) for q in qids) / len(qids)


def mean_err(run: Run, qrels: Qrels, max_grade: float, k: int | None = None) -> float:
    """Mean :func:`err_at_k` over the run's judged queries.

    Examples:
        On a 0..1 scale ERR is R(1) = 1/2 for q1 and 0 for q2: mean 0.25.

        >>> mean_err({"q1": ["a"], "q2": ["b"]}, {"q1": {"a": 1}, "q2": {"b": 0}}, max_grade=1)
        0.25
    """
    qids = _per_query(run, qrels)
    return math.fsum(err_at_k(run[q], qrels[q], max_grade, k) for q in qids) / len(qids)
