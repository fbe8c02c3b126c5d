"""Peak memory (RSS) and wall time of the embedded judges on one very long string.

Issue 11: one 10 MB field drove the ``local`` judge to 24 GB and an OOM kill (1 MB → 5.4 GB),
and ``lexical`` ran for minutes. Target: the 10 MB field within 500 MB RSS.

Each case runs in a fresh subprocess (so ``ru_maxrss`` is that case's own peak): one item
whose prediction is a single string of N characters (mixed English and Chinese words) against
two short gold strings, scored through the Python API ``judge.evaluate(..., max_chars=0)``
(the load-time limit off, so the judge itself must cope), with a throw-away cache. A baseline
case with a short string shows the floor (interpreter, numpy, the encoder's weights).

    python benchmarks/bench_memory.py                 # local and lexical; 10 B, 1 MB, 10 MB
    python benchmarks/bench_memory.py --judge local --sizes 1000000

Prints one row per case: judge, characters, peak RSS in MB, wall seconds, and the verdict's
rationale tail (it says where the input was truncated). If ``judge.evaluate`` has no
``max_chars`` argument (older code), the judge's ``judge_pairs`` is called directly.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WORDS = ["job", "information", "user", "login", "account", "data", "report", "screen",
         "security", "file", "record", "职位", "信息", "用户", "登录", "账户", "数据", "报告",
         "界面", "安全", "文件", "记录", "挂起", "描述"]
GOLD = ["Job Information", "职位描述信息"]


def make_text(n_chars: int, seed: int = 0) -> str:
    """A deterministic string of exactly ``n_chars`` characters of space-separated words."""
    rng = random.Random(seed)
    words = [rng.choice(WORDS) for _ in range(n_chars // 3 + 2)]
    return " ".join(words)[:n_chars]


def run_case(judge: str, n_chars: int) -> dict[str, object]:
    """Score one long prediction in this process; peak RSS and wall time."""
    text = make_text(n_chars)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as cache:
        try:
            from judge import evaluate

            result = evaluate([{"id": "big", "pred": [text], "truth": GOLD}], judge=judge,
                              cache_dir=cache, max_chars=0)
            rationale = result.verdicts[0].rationale
            via = "judge.evaluate(max_chars=0)"
        except TypeError:  # no max_chars argument: call the judge itself
            from judge.cache import JudgeCache
            from judge.judges.base import JudgeContext
            from judge.judges.registry import parse_judge_spec

            j = parse_judge_spec(judge)
            jc = JudgeCache(cache)
            ctx = JudgeContext(cache=jc)
            verdicts = asyncio.run(j.judge_pairs([(text, g) for g in GOLD], ctx))
            jc.close()
            rationale = verdicts[0].rationale if verdicts[0] else ""
            via = f"{type(j).__name__}.judge_pairs"
    wall = time.perf_counter() - t0
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KB on Linux
    return {"judge": judge, "chars": n_chars, "peak_rss_mb": round(peak_kb / 1024, 1),
            "wall_s": round(wall, 2), "via": via, "rationale": rationale}


def main() -> None:
    """Run every (judge, size) case in its own subprocess and print a table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--judge", action="append", help="local and/or lexical (default both)")
    ap.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")],
                    default=[10, 1_000_000, 10_000_000], help="characters, comma-separated")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per case")
    ap.add_argument("--case", nargs=2, metavar=("JUDGE", "CHARS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case[0], int(args.case[1])), ensure_ascii=False))
        return
    print(f"{'judge':8} {'chars':>11} {'peak RSS MB':>12} {'wall s':>8}  via / rationale tail")
    for judge in args.judge or ["local", "lexical"]:
        for n in args.sizes:
            try:
                proc = subprocess.run([sys.executable, __file__, "--case", judge, str(n)],
                                      capture_output=True, text=True, timeout=args.timeout,
                                      cwd=REPO)
            except subprocess.TimeoutExpired:
                print(f"{judge:8} {n:>11,} {'?':>12} {'>' + str(int(args.timeout)):>8}  timed out")
                continue
            if proc.returncode != 0:
                tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
                print(f"{judge:8} {n:>11,} {'?':>12} {'?':>8}  failed "
                      f"(exit {proc.returncode}): {tail}")
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            why = str(r["rationale"])
            print(f"{judge:8} {n:>11,} {r['peak_rss_mb']:>12,.1f} {r['wall_s']:>8.2f}  "
                  f"{r['via']}: …{why[-90:]}", flush=True)


if __name__ == "__main__":
    main()
