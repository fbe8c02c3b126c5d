"""Ranking speed: simjudge's ranking measures against pytrec_eval's, CPU time (issue 37's target:
within 1.2× of pytrec_eval on 1,000 queries × 1,000 documents).

The data: 1,000 queries, each with 1,000 ranked documents (random scores) and 200 judged ones
(grades 0–3, half of them among the retrieved). The measures: the ranking task's defaults,
trec_eval's ``map``, ``map_cut.10``, ``ndcg``, ``ndcg_cut.10`` (simjudge also computes ERR@10
and builds its typed rows). Three comparisons, each the best of 5 repeats of
``time.process_time``, the functions compared called in turn in each repeat (:func:`interleaved`):

1. in memory: pytrec_eval's ``RelevanceEvaluator(qrels, measures).evaluate(scores)`` against
   simjudge's measures (:func:`metrics.treceval.trec_measures` on the scores as read, and
   ERR@10: every number the task reports), and against
   :func:`judge.tasks.rankscore.score_queries` (the same, and the typed ``items.jsonl`` rows,
   each holding its query's ranked list and qrels);
2. from the files: pytrec_eval's ``parse_qrel`` + ``parse_run`` + evaluate against simjudge's
   readers (:func:`judge.tasks.ranking.load_ranking`: every line checked; the collector paused
   while they read, :mod:`metrics.trecfast`) + ``score_queries``; and pytrec_eval's with the
   collector paused too (``gc.disable`` around its parsing), for the like-for-like figure;
3. simjudge's own Python AP and NDCG (:mod:`metrics.ranking`), which the task used before.

Run: python benchmarks/bench_ranking.py
"""

from __future__ import annotations

import gc
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytrec_eval

from judge.tasks.ranking import load_ranking
from judge.tasks.rankoptions import RankingOptions
from judge.tasks.rankscore import score_queries
from metrics.ranking import average_precision, err_at_k, ndcg_at_k
from metrics.treceval import parse_measures, trec_measures

QUERIES, DOCS, JUDGED = 1000, 1000, 200
MEASURES = ["map", "map_cut.10", "ndcg", "ndcg_cut.10"]


def write_collection(folder: Path, seed: int = 0) -> tuple[Path, Path]:
    """A TREC run and qrels of :data:`QUERIES` × :data:`DOCS` in ``folder``."""
    rnd = random.Random(seed)
    run, qrels = folder / "run.txt", folder / "qrels.txt"
    with open(run, "w") as r, open(qrels, "w") as q:
        for n in range(QUERIES):
            docs = [f"D{n}-{k}" for k in range(DOCS * 2)]
            for k, d in enumerate(docs[:DOCS]):
                r.write(f"Q{n} Q0 {d} {k + 1} {rnd.random():.6f} bench\n")
            for d in rnd.sample(docs[:DOCS], JUDGED // 2) + rnd.sample(docs[DOCS:], JUDGED // 2):
                q.write(f"Q{n} 0 {d} {rnd.choice((0, 0, 1, 2, 3))}\n")
    return run, qrels


def cpu(fn: Callable[[], Any], repeats: int = 5) -> float:
    """The least CPU time (s) of ``repeats`` calls of ``fn``."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def interleaved(fns: list[Callable[[], Any]], repeats: int = 5) -> list[float]:
    """The least CPU time (s) of each of ``fns`` over ``repeats`` rounds, each round calling
    them in turn (a change of the machine's load then reaches all of them alike)."""
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            t0 = time.process_time()
            fn()
            best[i] = min(best[i], time.process_time() - t0)
    return best


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run_path, qrels_path = write_collection(Path(tmp))
        qrels = pytrec_eval.parse_qrel(qrels_path.read_text().splitlines())
        scores = pytrec_eval.parse_run(run_path.read_text().splitlines())
        items = load_ranking(run_path, qrels_path)
        ranked = {i.id: i.pred for i in items}
        scored = {i.id: i.extra["scores"] for i in items}
        opts, measures = RankingOptions(), parse_measures([])

        def ref() -> Any:
            return pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(scores)

        def ref_files() -> Any:
            q = pytrec_eval.parse_qrel(qrels_path.read_text().splitlines())
            return pytrec_eval.RelevanceEvaluator(q, MEASURES).evaluate(
                pytrec_eval.parse_run(run_path.read_text().splitlines()))

        def ref_files_paused() -> Any:
            gc.disable()
            try:
                q = pytrec_eval.parse_qrel(qrels_path.read_text().splitlines())
                run = pytrec_eval.parse_run(run_path.read_text().splitlines())
            finally:
                gc.enable()
            return pytrec_eval.RelevanceEvaluator(q, MEASURES).evaluate(run)

        def own_files() -> Any:
            return score_queries(load_ranking(run_path, qrels_path), opts, measures, "linear")

        def measures_and_err() -> Any:
            values = trec_measures(scored, qrels, parse_measures(MEASURES))
            return values, [err_at_k(i.pred, i.truth, 3, k=10) for i in items]

        def python_ap_ndcg() -> Any:
            return [(average_precision(ranked[q], qrels[q]), ndcg_at_k(ranked[q], qrels[q]),
                     average_precision(ranked[q], qrels[q], k=10),
                     ndcg_at_k(ranked[q], qrels[q], k=10)) for q in ranked]

        rows, _ = score_queries(items, opts, measures, "linear")
        check = ref()
        assert all(abs(r.ap - check[r.id]["map"]) < 1e-12 and
                   abs(r.ndcg_at_k - check[r.id]["ndcg_cut_10"]) < 1e-12 for r in rows)
        names = ["pytrec_eval evaluate (in memory)", "simjudge score_queries (rows, ERR@10)",
                 "simjudge's measures: trec_measures + ERR@10",
                 "  trec_measures alone (scores as read)", "  trec_measures alone (ranked lists)"]
        times = interleaved([
            ref, lambda: score_queries(items, opts, measures, "linear"), measures_and_err,
            lambda: trec_measures(scored, qrels, parse_measures(MEASURES)),
            lambda: trec_measures(ranked, qrels, parse_measures(MEASURES))])
        base = times[0]
        figures = [*zip(names, times, strict=True), ("simjudge's Python AP, AP@10, NDCG, NDCG@10",
                                        cpu(python_ap_ndcg, repeats=2))]
        files_ref, files_own, files_paused = interleaved([ref_files, own_files, ref_files_paused])
    print(f"{QUERIES} queries × {DOCS} documents, measures {', '.join(MEASURES)}; "
          "CPU seconds (best of 5)")
    for name, seconds in figures:
        print(f"  {name:<44} {seconds:7.3f} s  {seconds / base:5.2f}× pytrec_eval")
    print(f"  {'from the files: pytrec_eval parse + evaluate':<44} {files_ref:7.3f} s")
    print(f"  {'from the files: simjudge read + score':<44} {files_own:7.3f} s  "
          f"{files_own / files_ref:5.2f}× pytrec_eval")
    print(f"  {'  pytrec_eval, its parsing without the gc':<44} {files_paused:7.3f} s  "
          f"(simjudge {files_own / files_paused:4.2f}× that)")


if __name__ == "__main__":
    main()
