"""Benchmark of `simjudge eval` with the embedded `local` judge (prints measured figures).

1. Building the similarity matrices of the IFPUG selection runs (../shared/data/ifpug) with a
   cold cache: distinct pairs per second, with the encoder's weights already loaded and
   including the load (target >= 1,000 pairs/s on 2 cores).
2. The same strings all-against-all (a dense matrix) to show the matrix-product throughput.
3. A warm-cache rerun of the whole CLI command in a fresh process (target < 2 s wall).

Run: python benchmarks/bench_eval.py   (skips what needs ../shared/data when it is absent)
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IFPUG = REPO.parent / "shared" / "data" / "ifpug" / "ilf_runs.jsonl"
ARGS = ["--where", "task=ilf_selection", "--pred-field", "final_answer", "--truth-field",
        "ground_truth", "--id-field", "run,doc_id", "--judge", "local"]


def bench_result_repr(n: int = 100_000) -> None:
    """asyncio.run builds the repr of its coroutine's result in CPython 3.11/3.12 (restoring
    the SIGINT handler); judge.aio.run does not. A regression here costs ~1 s per 100k
    verdicts, ~10x that per 1M (the matrices and verdicts of a run are returned that way)."""
    import asyncio
    from dataclasses import dataclass

    from judge import aio
    from judge.verdict import Verdict

    @dataclass
    class Build:  # like judge.matrix.MatrixBuild: its default repr shows every verdict
        verdicts: list[Verdict]

    verdicts = [Verdict(pred=f"p{i}", truth=f"t{i}", score=0.5, judge_id="j", scorer="s@v1")
                for i in range(n)]

    async def result() -> Build:
        return Build(verdicts)

    t0 = time.perf_counter()
    asyncio.run(result())
    plain = time.perf_counter() - t0
    t0 = time.perf_counter()
    aio.run(result())
    ours = time.perf_counter() - t0
    print(f"returning {n:,} verdicts from the event loop: asyncio.run {plain:.3f} s, "
          f"judge.aio.run {ours:.4f} s (target < 0.01 s)")


def main() -> None:
    bench_result_repr()
    if not IFPUG.exists():
        print(f"skipped: {IFPUG} not found")
        return
    from judge.cache import JudgeCache
    from judge.judges.base import JudgeContext
    from judge.judges.embedding.local import LocalJudge, _shared_encoder
    from judge.matrix import build_matrices_async
    from judge.tasks.base import Source
    from judge.tasks.registry import get_task

    items = get_task("selection").load(Source(IFPUG, pred_field="final_answer",
                                              truth_field="ground_truth",
                                              id_fields=("run", "doc_id"),
                                              where=("task=ilf_selection",)))
    pairs_items = [(i.pred, i.truth) for i in items]
    with tempfile.TemporaryDirectory() as tmp:
        judge = LocalJudge()
        t0 = time.perf_counter()
        _shared_encoder(judge.threads)._model  # noqa: B018  (load the weights)
        load_s = time.perf_counter() - t0
        ctx = JudgeContext(cache=JudgeCache(Path(tmp) / "c1"))
        t0 = time.perf_counter()
        build = asyncio.run(build_matrices_async(pairs_items, judge, ctx))
        cold = time.perf_counter() - t0
        n = build.pairs_distinct
        print(f"IFPUG selection: {len(items)} items, {build.pairs_total} cells, {n} distinct "
              f"judged pairs, {ctx.stats.judge_calls} strings embedded")
        print(f"  cold cache, weights loaded: {cold:.3f} s → {n / cold:,.0f} pairs/s "
              f"(target >= 1,000)")
        print(f"  including the weights' load ({load_s:.2f} s): {n / (cold + load_s):,.0f} pairs/s")

        strings = sorted({s for p, t in pairs_items for s in (*p, *t)})
        dense = [(strings, strings)]
        ctx2 = JudgeContext(cache=JudgeCache(Path(tmp) / "c2"))
        t0 = time.perf_counter()
        b2 = asyncio.run(build_matrices_async(dense, judge, ctx2))
        t_dense = time.perf_counter() - t0
        print(f"dense {len(strings)}x{len(strings)}: {b2.pairs_distinct:,} pairs in "
              f"{t_dense:.2f} s → {b2.pairs_distinct / t_dense:,.0f} pairs/s (verdict objects "
              "included)")

        cache = Path(tmp) / "cli-cache"
        cmd = [sys.executable, "-m", "judge.cli", "eval", str(IFPUG), *ARGS, "--cache-dir",
               str(cache)]
        subprocess.run([*cmd, "--out", str(Path(tmp) / "r1")], check=True, capture_output=True)
        t0 = time.perf_counter()
        subprocess.run([*cmd, "--out", str(Path(tmp) / "r2")], check=True, capture_output=True)
        warm = time.perf_counter() - t0
        s = json.loads((Path(tmp) / "r2" / "summary.json").read_text())
        print(f"warm-cache CLI rerun: {warm:.2f} s wall for the whole process (target < 2 s); "
              f"in-run wall_s {s['wall_s']:.3f}, judge_calls {s['judge_calls']}, "
              f"cache_hits {s['cache_hits']}")


if __name__ == "__main__":
    main()
