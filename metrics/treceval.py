"""trec_eval's measures, computed by pytrec_eval (``pytrec-eval-terrier``: trec_eval's own C
code), from ranked lists and qrels.

:func:`parse_measures` reads trec_eval's measure names (``-m``): ``map``, ``P.5,10`` (or
``P_5``), ``ndcg_cut.10``, ``recip_rank``, ``bpref``, ``Rprec``, ``success.1,5``, ``infAP``,
``iprec_at_recall.0.1``, ``Rprec_mult.0.5`` …, a parameterised name without parameters
meaning trec_eval's defaults (``P`` = ``P.5,10,15,20,30,100,200,500,1000``), and the
nicknames ``official``, ``set`` and ``all_trec``. It is strict where pytrec_eval is not
(pytrec_eval 0.5 reads ``P.5, 10`` as ``P.5``, ``P.1e3`` as ``P.1`` and aborts the process on
``P.0``). ``runid`` and ``relstring`` are text, not numbers, and are left out; the measures of
other qrels formats (``prefs``, ``qrels_jg``) are not available.

:func:`trec_measures` scores ranked lists (best first, as :func:`metrics.trec.read_run` orders
a run), per query; :func:`aggregate` makes trec_eval's ``all`` line from per-query values
(sum for ``num_*``, geometric mean for ``gm_*``, mean otherwise; pytrec_eval's
``compute_aggregated_measure``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
"""trec_eval's default cut-offs of ``P``, ``recall``, ``map_cut``, ``ndcg_cut``,
``relative_P``."""
_DEFAULTS: dict[str, tuple[float, ...]] = {
    **{m: CUTOFFS for m in ("P", "recall", "map_cut", "ndcg_cut", "relative_P")},
    "success": (1, 5, 10),
    "iprec_at_recall": tuple(i / 10 for i in range(11)),
    "Rprec_mult": tuple(i / 5 for i in range(1, 11)),
}
"""Parameterised measures and trec_eval's default parameters."""
_PLAIN = ("map", "gm_map", "Rprec", "bpref", "gm_bpref", "recip_rank", "infAP", "num_q",
          "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "set_P", "set_recall",
          "set_F", "set_map", "set_relative_P", "utility", "11pt_avg", "ndcg", "ndcg_rel",
          "Rndcg", "G", "binG")
"""Measures taken without parameters (trec_eval's defaults: utility 1,-1,0,0; set_F β 1;
``ndcg`` with gain = grade — a gain table is :func:`metrics.ranking.ndcg_at_k`'s)."""
NICKNAMES = ("official", "set", "all_trec")
"""trec_eval's names for sets of measures (pytrec_eval's ``supported_nicknames``)."""
_TEXT = ("runid", "relstring")
MAX_CUTOFF = 2**31 - 1
_NAME = re.compile(r"([A-Za-z0-9_]+?)(?:[._]([0-9.,]+))?")


@dataclass(frozen=True)
class Measure:
    """One trec_eval measure with its parameters.

    Attributes:
        base: trec_eval's name (``P``, ``map``…).
        params: cut-offs (ints) or levels/multipliers (floats); () for a plain measure.
    """

    base: str
    params: tuple[float, ...] = ()

    def names(self) -> list[str]:
        """The names trec_eval prints for it: ``P_5``, ``iprec_at_recall_0.10``,
        ``Rprec_mult_0.20`` (two decimals), ``map``."""
        if not self.params:
            return [self.base]
        if self.base in ("iprec_at_recall", "Rprec_mult"):
            return [f"{self.base}_{p:.2f}" for p in self.params]
        return [f"{self.base}_{int(p)}" for p in self.params]

    def spec(self) -> str:
        """The measure as pytrec_eval takes it: ``P.5,10``, ``iprec_at_recall.0,0.1``."""
        if not self.params:
            return self.base
        return f"{self.base}." + ",".join(f"{p:g}" if isinstance(p, float) else str(p)
                                          for p in self.params)


def _params(base: str, text: str, spec: str) -> tuple[float, ...]:
    out: list[float] = []
    for part in text.split(","):
        if base in ("iprec_at_recall", "Rprec_mult"):
            if not re.fullmatch(r"[0-9]+(?:\.[0-9]{1,2})?|\.[0-9]{1,2}", part):
                raise ValueError(f"measure {spec!r}: {part!r} is not a number with at most "
                                 "2 decimals (trec_eval prints them so)")
            value = float(part)
            if base == "iprec_at_recall" and value > 1:
                raise ValueError(f"measure {spec!r}: recall level {part} is above 1")
            if base == "Rprec_mult" and value <= 0:
                raise ValueError(f"measure {spec!r}: multiplier {part} must be > 0")
            out.append(value)
        else:
            if not re.fullmatch(r"[0-9]+", part) or not 1 <= int(part) <= MAX_CUTOFF:
                raise ValueError(f"measure {spec!r}: cut-off {part!r} is not an integer in "
                                 f"1..{MAX_CUTOFF}")
            out.append(int(part))
    return tuple(sorted(set(out)))


def parse_measure(spec: str) -> list[Measure]:
    """One trec_eval measure name (see the module docstring) → its measures.

    Args:
        spec: ``map``, ``P.5,10``, ``P_5``, ``ndcg_cut.10``, ``Rprec_mult.0.5``, ``official``…

    Returns:
        The measures, parameters explicit (a nickname gives several).

    Raises:
        ValueError: an unknown name, a parameter a measure does not take, a cut-off that is
            not an integer in 1..2^31−1, a level that is not a number in [0, 1] with at most
            2 decimals.

    Examples:
        >>> [m.names() for m in parse_measure("P.5,10")]
        [['P_5', 'P_10']]
        >>> parse_measure("success")[0].names()
        ['success_1', 'success_5', 'success_10']
    """
    text = spec.strip()
    if text in NICKNAMES:
        import pytrec_eval

        return [m for name in sorted(pytrec_eval.supported_nicknames[text])
                if name not in _TEXT for m in parse_measure(name)]
    if text in _PLAIN or text in _DEFAULTS:
        return [Measure(text, _DEFAULTS.get(text, ()))]
    found = _NAME.fullmatch(text)
    base = found.group(1) if found else ""
    if found is None or base not in _DEFAULTS:
        if base in _PLAIN or text in _TEXT:
            why = "takes no parameter here" if base in _PLAIN else "is text, not a number"
            raise ValueError(f"measure {spec!r}: {base or text} {why}")
        known = ", ".join([*_PLAIN, *_DEFAULTS, *NICKNAMES])
        hint = " (parameters are written without spaces: P.5,10)" if " " in text else ""
        raise ValueError(f"unknown trec_eval measure {spec!r}{hint}; known: {known}")
    return [Measure(base, _params(base, found.group(2), spec))]


def parse_measures(specs: Iterable[str]) -> list[Measure]:
    """Several measure names (:func:`parse_measure`), merged by base name (``P.5`` and
    ``P.10`` → ``P.5,10``), in the order first named.

    Raises:
        ValueError: as :func:`parse_measure`.
    """
    merged: dict[str, set[float]] = {}
    for spec in specs:
        for m in parse_measure(spec):
            merged.setdefault(m.base, set()).update(m.params)
    return [Measure(base, tuple(sorted(params))) for base, params in merged.items()]


def trec_measures(run: Mapping[str, Sequence[str] | Mapping[str, float]],
                  qrels: Mapping[str, Mapping[str, int]],
                  measures: Sequence[Measure], relevance_level: int = 1,
                  ) -> dict[str, dict[str, float]]:
    """Per-query values of ``measures``, computed by pytrec_eval.

    Args:
        run: query id → document ids, best first, or → (doc id → score) as the run file
            gives them (trec_eval orders them: score descending, ties by doc id descending;
            pytrec_eval's input, no copy made). Empty: an empty ranking, as trec_eval ``-c``
            scores a query of the qrels the run lacks.
        qrels: query id → (doc id → integer grade).
        measures: from :func:`parse_measures`.
        relevance_level: a document is relevant when its grade >= this (trec_eval ``-l``).

    Returns:
        query id → (trec_eval's printed name → value), for the run's queries that have
        judgments. ``gm_map`` and ``gm_bpref`` per query are log(max(value, 1e-5)), as trec_eval
        accumulates them (:func:`aggregate` makes their geometric mean).

    Examples:
        Relevant documents at ranks 1 and 3 of 3, one more relevant unretrieved (R = 3):
        AP = (1/1 + 2/3)/3, P@2 = 1/2.

        >>> out = trec_measures({"q": ["a", "b", "c"]}, {"q": {"a": 1, "c": 1, "d": 1}},
        ...                     parse_measures(["map", "P.2"]))
        >>> round(out["q"]["map"], 4), out["q"]["P_2"]
        (0.5556, 0.5)
    """
    import pytrec_eval

    judged = {q: dict(j) for q, j in qrels.items() if j}
    # distinct decreasing scores 0, -1, -2…: pytrec_eval keeps the order given
    ranks = [-float(i) for i in range(max(map(len, run.values()), default=0))]
    scores = {q: docs if isinstance(docs, Mapping) else dict(zip(docs, ranks, strict=False))
              for q, docs in run.items() if q in judged}
    if not scores or not measures:
        return {q: {} for q in scores}
    wanted = [n for m in measures for n in m.names()]
    ranked = {q: docs for q, docs in scores.items() if docs}
    done: dict[str, dict[str, float]] = {}
    if ranked:  # pytrec_eval 0.5 crashes (SIGSEGV) on an empty ranking: never given one
        evaluator = pytrec_eval.RelevanceEvaluator(judged, [m.spec() for m in measures],
                                                   relevance_level=int(relevance_level))
        done = {q: {n: float(values[n]) for n in wanted}
                for q, values in evaluator.evaluate(ranked).items()}
    return {q: done[q] if q in ranked else empty_ranking(wanted, judged[q], relevance_level)
            for q in scores}


GM_FLOOR = 1e-5
"""trec_eval's ``MIN_GEO_MEAN``: ``gm_map`` and ``gm_bpref`` take the log of a query's value
floored at it."""


def empty_ranking(names: Sequence[str], judgments: Mapping[str, int],
                  relevance_level: int = 1) -> dict[str, float]:
    """trec_eval's values of an empty ranking (``-c``: a query of the qrels the run lacks):
    0 for every measure but ``num_rel`` (the query's relevant documents), ``num_q`` (1) and
    ``gm_map``/``gm_bpref`` (log of :data:`GM_FLOOR`, as :func:`trec_measures` gives them per
    query). Computed here because pytrec_eval 0.5 crashes the process (a segmentation fault)
    on an empty ranking measured with ``bpref`` among other measures, and otherwise reads
    ``num_rel`` as 0 or 77 from one call to the next.

    Source: trec_eval's ``test/out.test.aqc`` (``-m all_trec -q -c`` on ``results.trunc``,
    which lacks query 302): every per-query value of 302 is 0 but ``num_rel`` 77, and the
    ``all`` line's ``gm_map`` 0.0045 is exp of the mean of log(max(map, 1e-5)) over 3 queries.

    Args:
        names: trec_eval's printed names (:meth:`Measure.names`).
        judgments: the query's qrels (doc id → integer grade).
        relevance_level: a document is relevant when its grade >= this.
    """
    special = {"num_q": 1.0, "gm_map": math.log(GM_FLOOR), "gm_bpref": math.log(GM_FLOOR),
               "num_rel": float(sum(1 for g in judgments.values() if g >= relevance_level))}
    return {n: special.get(n, 0.0) for n in names}


def aggregate(name: str, values: Sequence[float] | np.ndarray) -> float:
    """trec_eval's ``all`` value of a measure from its per-query values: the sum for
    ``num_*``, exp(mean) for ``gm_*`` (their per-query values are logs), the mean otherwise
    (pytrec_eval's ``compute_aggregated_measure``, numpy's summation).

    Raises:
        ValueError: no values.

    Examples:
        >>> aggregate("num_rel", [3, 4]), aggregate("P_5", [0.2, 0.6])
        (7.0, 0.4)
    """
    if len(values) == 0:
        raise ValueError(f"{name}: no per-query values to aggregate")
    if name.startswith("num_"):
        return float(np.sum(values))
    if name.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))

