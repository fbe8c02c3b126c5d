"""Benchmark of the run record at 100k judged pairs (prints measured figures).

A selection run of 1,000 items × 10 predictions × 10 gold strings (100,000 distinct pairs, one
lexical verdict each) is built in memory — the Python API's ``record_from_parts`` from row
lists, which holds every verdict (``simjudge eval`` streams them to a spool file instead:
``benchmarks/bench_run_scale.py`` measures that path) — then:

1. validating it as a :class:`judge.record.runrecord.RunRecord` (what ``run_evaluation`` does once
   per run; target: adds < 1 s at 100k verdicts);
2. ``write_run``: the run files plus report.html rendered from the record (no JSON round trip);
3. ``load_run``: reading the run directory back (``audit``, ``rescore``, ``compare``).

Printed: times, the run directory's size and report.html's size (embedded gzip+base64 above
``judge.runs.report.COMPRESS_OVER`` characters of page data; ``--plain`` forces plain JSON, the
layout before compression).

Measured (2026-11-24, 2 cores): report.html at 10k verdicts 3.7 MB plain → 0.1 MB compressed,
at 100k verdicts 36.6 MB → 1.0 MB (these synthetic rationales repeat, so they compress far more
than real ones: a real 10k-pair ``local`` run, 6.6 → 0.67 MB); write_run 7.2 s and peak RSS
0.72 GB at 100k either way.

Run: python benchmarks/bench_run_record.py [N_ITEMS] [--plain]   (default 1000 → 100k pairs)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _parts(n_items: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Item rows and verdict rows shaped as the selection task writes them."""
    items, verdicts = [], []
    for k in range(n_items):
        pred = [f"predicted entity {k}-{i}" for i in range(10)]
        truth = [f"gold entity {k}-{j}" for j in range(10)]
        scores = [[0.5 + 0.2 * (i == j) + 0.001 * j for j in range(10)] for i in range(10)]
        matches = [{"pred_index": i, "truth_index": i, "pred": pred[i], "truth": truth[i],
                    "score": scores[i][i], "exact": False, "judge_id": "lexical"}
                   for i in range(10)]
        tp = sum(scores[i][i] for i in range(10))
        items.append({"id": f"item{k:05d}", "source": f"d.jsonl:{k + 1}", "n_pred": 10,
                      "n_truth": 10, "n_exact": 0, "tp_fuzzy": tp, "precision": tp / 10,
                      "recall": tp / 10, "f1": tp / 10, "matches": matches,
                      "unmatched_pred": [], "unmatched_truth": [], "cells_without_verdict": 0,
                      "pred": pred, "truth": truth, "scores": scores})
        verdicts += [{"pred": p, "truth": t, "score": scores[i][j],
                      "rationale": "character-bigram Dice 0.55, jieba-token F1 0.60 → 0.58",
                      "outcome": "ok", "raw": f"{scores[i][j]:.6f}", "raw_truncated": False,
                      "judge_id": "lexical", "scorer": "lexical@v1", "template_sha256": "",
                      "cache_key": "", "latency_s": 0.0, "tokens_in": 0, "tokens_out": 0,
                      "cached": False, "output_mode": "", "cost_usd": 0.0}
                     for i, p in enumerate(pred) for j, t in enumerate(truth)]
    return items, verdicts


def main() -> None:
    from judge.record.store import load_run, record_from_parts, write_run
    from judge.runs import report

    args = [a for a in sys.argv[1:] if a != "--plain"]
    if "--plain" in sys.argv[1:]:
        report.COMPRESS_OVER = 10**15
    n_items = int(args[0]) if args else 1000
    items, verdicts = _parts(n_items)
    config = {"task": "selection", "tau": 0.7,
              "judge": {"id": "lexical", "backend": "lexical", "method": "lexical@v1"}}
    summary = {"task": "selection", "n_items": n_items, "metrics": {}}
    t0 = time.perf_counter()
    record = record_from_parts(config, summary, items, verdicts)
    build = time.perf_counter() - t0
    print(f"{len(verdicts):,} verdicts, {n_items:,} items: RunRecord validated in {build:.2f} s "
          "(target < 1 s)")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        write_run(record, Path(tmp) / "run", renderers=report.RENDERERS)
        write = time.perf_counter() - t0
        size = sum(p.stat().st_size for p in (Path(tmp) / "run").iterdir()) / 1e6
        html = Path(tmp) / "run" / "report.html"
        packed = 'id="data-gz"' in html.read_text(encoding="utf-8")
        print(f"write_run (run files + report.html from the record): {write:.2f} s, "
              f"{size:.1f} MB; report.html {html.stat().st_size / 1e6:.1f} MB "
              f"({'gzip+base64' if packed else 'plain JSON'})")
        t0 = time.perf_counter()
        back = load_run(Path(tmp) / "run")
        print(f"load_run: {time.perf_counter() - t0:.2f} s ({len(back.verdicts):,} verdicts)")


if __name__ == "__main__":
    main()
