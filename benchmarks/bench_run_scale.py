"""Memory, time and size of a whole evaluation run at 10k, 100k and 1M judged cells.

Issue 15 item 3: a million-cell run must fit in bounded memory (target ≤ 1.5 GB peak RSS) and
write a browsable report (target ≤ 150 MB). Each case is a ``selection`` run of N items of
10 predictions × 10 gold strings (every cell a distinct judged pair), run in a fresh
subprocess through the same code as ``simjudge eval`` — ``run_evaluation`` (judging, matching,
1,000 bootstrap resamples) then ``write_run`` (run files + report.html) — with a synthetic
judge whose verdicts look like an LLM judge's (a 90–130 character rationale naming the pair,
a JSON raw reply, a sha256 cache key, tokens, latency), so the run's data is real-sized while
the judge itself costs almost nothing. The cache is off.

Printed per case: cells, seconds judging+scoring, seconds writing, peak RSS (``ru_maxrss`` of
the subprocess), run directory and report.html sizes, and per-cell costs.

    python benchmarks/bench_run_scale.py                    # 10k, 100k, 1M cells
    python benchmarks/bench_run_scale.py 10000 100000       # chosen sizes
    python benchmarks/bench_run_scale.py --code /path/to/other/checkout 100000   # "before"

``--code`` runs the cases against another checkout of simjudge (``PYTHONPATH``), e.g. a git
worktree of an earlier commit, for before/after tables (this script only uses APIs both
layouts have).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run_case(cells: int, keep: Path | None = None) -> dict[str, Any]:
    """One run of ``cells`` judged cells in this process (call in a fresh subprocess);
    ``keep``: write the run directory there instead of a temporary one."""
    from collections.abc import Sequence

    from judge.cache import JudgeCache
    from judge.pipeline.evaluate import run_evaluation
    from judge.record.store import write_run
    from judge.runs.report import RENDERERS
    from judge.tasks.base import Params
    from judge.tasks.registry import get_task
    from judge.verdict import Verdict

    class SyntheticJudge:
        """Deterministic verdicts shaped like an LLM judge's, at almost no cost."""

        id = "synthetic"
        item_scoped = False

        def describe(self) -> dict[str, Any]:
            return {"id": self.id, "backend": "synthetic", "method": "synthetic@v1"}

        def work_units(self, pairs: Sequence[tuple[str, str]]) -> int:
            return len(pairs)

        async def judge_pairs(self, pairs: Sequence[tuple[str, str]], ctx: Any) -> list[Any]:
            out = []
            for p, t in pairs:
                h = hashlib.sha256(f"{p}\x00{t}".encode()).hexdigest()
                score = int(h[:4], 16) / 65535
                why = (f"'{p}' and '{t}' name {'the same' if score > 0.7 else 'different'} "
                       f"data functions; overlap {h[4:6]} ({score:.2f})")
                out.append(Verdict(pred=p, truth=t, score=score, rationale=why, outcome="ok",
                                   raw=json.dumps({"score": round(score, 4), "reason": why}),
                                   judge_id=self.id, scorer="synthetic@v1", cache_key=h,
                                   latency_s=0.4 + score, tokens_in=180, tokens_out=40))
                if ctx.progress is not None:
                    ctx.progress(1)
            return out

    n_items = max(1, cells // 100)
    rows = [{"id": f"item{k:06d}",
             "pred": [f"predicted entity {k}-{i}" for i in range(10)],
             "truth": [f"gold entity {k}-{j}" for j in range(10)]} for k in range(n_items)]
    task = get_task("selection")
    items = task.from_dicts(rows)
    del rows
    with tempfile.TemporaryDirectory() as tmp:
        cache = JudgeCache(Path(tmp) / "cache", "off")
        t0 = time.perf_counter()
        record = run_evaluation(items, task, SyntheticJudge(),  # type: ignore[arg-type]
                                Params(tau=0.7), cache=cache, bootstrap=1000)
        t_eval = time.perf_counter() - t0
        t0 = time.perf_counter()
        out = write_run(record, keep or Path(tmp) / "run", renderers=RENDERERS)
        t_write = time.perf_counter() - t0
        run_bytes = _size(out)
        report = (out / "report.html").stat().st_size
        with open(out / "verdicts.jsonl", encoding="utf-8") as fh:
            n_verdicts = sum(1 for _ in fh)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    return {"cells": n_items * 100, "verdicts": n_verdicts, "eval_s": round(t_eval, 1),
            "write_s": round(t_write, 1), "peak_rss_mb": round(rss / 1e6),
            "run_dir_mb": round(run_bytes / 1e6, 1), "report_mb": round(report / 1e6, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cells", nargs="*", type=int, default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--code", type=Path, default=REPO, help="checkout of simjudge to measure")
    ap.add_argument("--keep", type=Path, help="with one size: keep the run directory here "
                    "(e.g. to open its report.html)")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # the subprocess's case
    args = ap.parse_args()
    if args.one is not None:
        print(json.dumps(run_case(args.one, args.keep)))
        return
    env = {**os.environ, "PYTHONPATH": str(args.code)}
    print(f"code: {args.code}")
    print(f"{'cells':>9} {'verdicts':>9} {'eval s':>7} {'write s':>8} {'peak RSS MB':>12} "
          f"{'run dir MB':>11} {'report MB':>10} {'RSS KB/cell':>12} {'report B/cell':>14}")
    for cells in args.cells:
        keep = ["--keep", str(args.keep.resolve())] if args.keep and len(args.cells) == 1 else []
        proc = subprocess.run([sys.executable, __file__, "--one", str(cells), *keep], env=env,
                              capture_output=True, text=True, check=False, cwd=args.code)
        if proc.returncode != 0:
            print(f"{cells:>9} failed: {proc.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"{r['cells']:>9,} {r['verdicts']:>9,} {r['eval_s']:>7} {r['write_s']:>8} "
              f"{r['peak_rss_mb']:>12,} {r['run_dir_mb']:>11} {r['report_mb']:>10} "
              f"{r['peak_rss_mb'] * 1000 / r['cells']:>12.2f} "
              f"{r['report_mb'] * 1e6 / r['cells']:>14.0f}")


if __name__ == "__main__":
    main()
