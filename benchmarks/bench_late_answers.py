"""Late answers under load: is a pair ever paid twice when a slow replica answers right at the
deadline while CPU-bound neighbours keep the machine busy? (issue 36, "late answers")

Two fake OpenAI-compatible replicas (``tests/fake_openai.py``): A answers in 20 ms, B in exactly
``--timeout`` seconds, so B's answers land when the client's deadline fires. ``--neighbours``
processes spin on the CPU meanwhile (``python -c 'while True: pass'``; 6 on this 2-core machine
is a load of 7–8). Each run judges ``--pairs`` pairs through ``--base-url A,B`` with
``--concurrency 8``. Per run it prints the pairs whose answer was delivered by *both* replicas
(paid twice: B's answer written to a still-connected client that then bought the pair from A),
B's answers delivered, the late answers the client counted, and the exchanges it cancelled.

Goal: 0 pairs paid twice in every run, and every B answer delivered either used (a late
answer) or never delivered (the client left first).

Run: ``python benchmarks/bench_late_answers.py [--runs 5] [--neighbours 6]`` (about 1 minute).
Measured figures: docs/performance.md, "Late answers".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judge.cache import JudgeCache  # noqa: E402
from judge.judges.base import JudgeContext  # noqa: E402
from judge.judges.options import JudgeOptions  # noqa: E402
from judge.judges.registry import parse_judge_spec  # noqa: E402
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig  # noqa: E402


def one_run(n_pairs: int, timeout_s: float, seed: int) -> dict[str, int]:
    """One run: the counts printed per run (module docstring)."""
    pairs = [(f"Alpha {seed}-{k}", f"apple {k}") for k in range(n_pairs)]
    with FakeOpenAIServer(FakeServerConfig(latency_s=0.02)) as a, \
            FakeOpenAIServer(FakeServerConfig(latency_s=timeout_s)) as b, \
            tempfile.TemporaryDirectory() as tmp:
        judge = parse_judge_spec("openai:fake-model", JudgeOptions(
            base_url=f"{a.base_url},{b.base_url}", timeout_s=timeout_s, max_retries=2,
            concurrency=8))
        ctx = JudgeContext(cache=JudgeCache(Path(tmp) / "cache", "read-write"))
        verdicts = asyncio.run(judge.judge_pairs(pairs, ctx))
        stats = judge.endpoint_pool.stats()
        time.sleep(0.5)  # the servers' threads note the last deliveries
        delivered: dict[str, set[str]] = {}
        for name, srv in (("A", a), ("B", b)):
            for r in srv.log:
                if r.answered_at is not None:
                    delivered.setdefault(json.dumps(r.body["messages"]), set()).add(name)
        sb = stats[b.base_url]
        a_got = {json.dumps(r.body["messages"]): r.t for r in a.log}
        for r in b.log:  # each pair paid twice: when B answered and A got it, from B's receipt
            key = json.dumps(r.body["messages"])
            if r.answered_at is not None and key in delivered and len(delivered[key]) > 1:
                print(f"  paid twice: B answered {r.answered_at - r.t:+.3f} s, A received it "
                      f"{a_got[key] - r.t:+.3f} s after B did", flush=True)
    return {"ok": sum(v.outcome == "ok" for v in verdicts),
            "paid_twice": sum(len(s) > 1 for s in delivered.values()),
            "b_delivered": sum("B" in s for s in delivered.values()),
            "late_answers": sum(s["late_answers"] for s in stats.values()),
            "cancelled": sb["cancelled"]}


def main() -> None:
    """Parse the options, start the neighbours, print one line per run and the totals."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--neighbours", type=int, default=6)
    ap.add_argument("--pairs", type=int, default=60)
    ap.add_argument("--timeout", type=float, default=0.5)
    args = ap.parse_args()
    spin = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(args.neighbours)]
    try:
        total = {"paid_twice": 0, "b_delivered": 0, "late_answers": 0}
        for run in range(args.runs):
            r = one_run(args.pairs, args.timeout, run)
            for k in total:
                total[k] += r[k]
            print(f"run {run + 1}: {r['ok']}/{args.pairs} ok; paid twice {r['paid_twice']}; "
                  f"B delivered {r['b_delivered']}, late answers counted "
                  f"{r['late_answers']}, B exchanges cancelled {r['cancelled']}", flush=True)
    finally:
        for p in spin:
            p.kill()
            p.wait()
    print(f"{args.runs} runs, {args.neighbours} CPU-bound neighbours: paid twice "
          f"{total['paid_twice']}; B answers delivered {total['b_delivered']}, late answers "
          f"counted {total['late_answers']}")


if __name__ == "__main__":
    main()
