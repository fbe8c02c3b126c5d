"""Remote-judge throughput and batch savings, against a loopback OpenAI-compatible server.

1. A server with a fixed 100 ms latency, in its own process; 5,000 distinct pairs at
   concurrency 64 through the real ``openai`` SDK: pairs/s against the bound
   64 / 0.1 s = 640 pairs/s (target >= 85 %), and the client's CPU per request. A run has
   fixed costs besides its calls — the slow start (the first call goes alone until it
   succeeds: one 100 ms latency) and opening 64 connections — ~0.2 s, 3 % of a 5,000-pair
   round and 6 % of a 2,000-pair one (``--pairs``). Each round
   runs simjudge, then bare aiohttp POSTs of the same body (no SDK, no judging) against the
   same server — this machine's ceiling — so the ratio compares like with like; ``--rounds``
   rounds (default 5), the median reported.
2. The IFPUG selection runs (../shared/data): calls and tokens of the batch scorer
   (entity_similarity_batch@v1) against the per-pair scorer (target >= 5x fewer calls).

Run: python benchmarks/bench_judge_throughput.py [--rounds N] [--pairs N] [--code CHECKOUT]
(``--code``: the simjudge checkout to measure, e.g. a ``git worktree`` of an older commit.)
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
IFPUG = REPO.parent / "shared" / "data" / "ifpug" / "ilf_runs.jsonl"


def run(judge: Any, pairs: list[tuple[str, str]], cache_dir: str) -> tuple[float, float, Any,
                                                                          Any]:
    """``(wall s, client CPU s, context, verdicts)`` of one judge_pairs run, cache off."""
    from judge.cache import JudgeCache
    from judge.judges.base import JudgeContext

    ctx = JudgeContext(cache=JudgeCache(cache_dir, "off"))
    t0, c0 = time.perf_counter(), time.process_time()
    verdicts = asyncio.run(judge.judge_pairs(pairs, ctx))
    return time.perf_counter() - t0, time.process_time() - c0, ctx, verdicts


def throughput(n: int, rounds: int, concurrency: int = 64, latency: float = 0.1) -> None:
    """Print each round and the medians (the server runs in its own process so it does not
    share the client's GIL)."""
    from judge.judges.options import JudgeOptions
    from judge.judges.registry import parse_judge_spec

    pairs = [(f"predicted item {i}", f"gold item {i}") for i in range(n)]
    proc = subprocess.Popen([sys.executable, "-m", "tests.fake_openai", "--latency",
                             str(latency)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    bound = concurrency / latency
    ours: list[tuple[float, float]] = []
    bare: list[tuple[float, float]] = []
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as tmp:
            judge = parse_judge_spec("openai:fake", JudgeOptions(base_url=base_url,
                                                                 concurrency=concurrency))
            run(judge, pairs[:concurrency], tmp)  # warm-up: imports, first connections
            body = {"model": "fake", "messages": judge.requests_for(pairs[:1], "")[0].messages}
            print(f"throughput: {n} pairs at concurrency {concurrency}, {latency * 1000:.0f} ms "
                  f"server latency; bound {bound:.0f}/s")
            for r in range(rounds):
                wall, cpu, ctx, verdicts = run(judge, pairs, tmp)
                ok = sum(v is not None and v.outcome == "ok" for v in verdicts)
                assert ok == n == ctx.stats.judge_calls, (ok, ctx.stats.judge_calls)
                ours.append((n / wall, cpu / n))
                bare.append(asyncio.run(_bare_aiohttp(base_url, body, n, concurrency)))
                print(f"  round {r + 1}: simjudge {ours[-1][0]:.0f}/s = "
                      f"{ours[-1][0] / bound:.1%} of the bound, {ours[-1][1] * 1e3:.2f} ms CPU "
                      f"per request; bare aiohttp {bare[-1][0]:.0f}/s = "
                      f"{bare[-1][0] / bound:.1%}, {bare[-1][1] * 1e3:.2f} ms; ratio "
                      f"{ours[-1][0] / bare[-1][0]:.0%}")
    finally:
        proc.kill()
    rate = statistics.median(x for x, _ in ours)
    ceiling = statistics.median(x for x, _ in bare)
    ratios = [a / b for (a, _), (b, _) in zip(ours, bare, strict=True)]
    print(f"median of {rounds}: simjudge {rate:.0f} pairs/s = {rate / bound:.1%} of the bound "
          f"(target >= 85 %), {statistics.median(c for _, c in ours) * 1e3:.2f} ms CPU per "
          f"request; bare aiohttp {ceiling:.0f}/s = {ceiling / bound:.1%} of the bound, "
          f"{statistics.median(c for _, c in bare) * 1e3:.2f} ms; simjudge/bare "
          f"{statistics.median(ratios):.0%} (rounds {min(ratios):.0%}–{max(ratios):.0%})")


async def _bare_aiohttp(base_url: str, body: dict[str, Any], n: int,
                        concurrency: int) -> tuple[float, float]:
    """``(requests/s, CPU s per request)`` of bare aiohttp against the same server."""
    import aiohttp

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=100)) as s:
        sem = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with sem, s.post(base_url + "/chat/completions", json=body) as r:
                await r.json()

        await asyncio.gather(*(one() for _ in range(concurrency)))
        t0, c0 = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one() for _ in range(n)))
        return n / (time.perf_counter() - t0), (time.process_time() - c0) / n


def batch_vs_pair() -> None:
    if not IFPUG.exists():
        print(f"batch vs per-pair: skipped ({IFPUG} not found)")
        return
    from judge.judges.options import JudgeOptions
    from judge.judges.registry import parse_judge_spec
    from judge.matrix import distinct_pairs
    from judge.tasks.base import Source
    from judge.tasks.registry import get_task
    from tests.fake_openai import FakeOpenAIServer

    items = get_task("selection").load(Source(IFPUG, pred_field="final_answer",
                                              truth_field="ground_truth",
                                              id_fields=("run", "doc_id"),
                                              where=("task=ilf_selection",)))
    pairs = distinct_pairs([(i.pred, i.truth) for i in items])[0]
    with FakeOpenAIServer() as srv, tempfile.TemporaryDirectory() as tmp:
        out = {}
        for scorer in ("entity_similarity@v1", "entity_similarity_batch@v1"):
            judge = parse_judge_spec("openai:fake", JudgeOptions(base_url=srv.base_url,
                                                                 scorer=scorer))
            wall, _, ctx, verdicts = run(judge, pairs, tmp)
            ok = sum(v is not None and v.outcome == "ok" for v in verdicts)
            out[scorer] = (ctx.stats.judge_calls, ctx.stats.tokens_in + ctx.stats.tokens_out, ok)
            print(f"{scorer}: {len(pairs)} IFPUG pairs → {ctx.stats.judge_calls} calls, "
                  f"{ctx.stats.tokens_in} prompt + {ctx.stats.tokens_out} completion tokens, "
                  f"{ok} ok, {wall:.2f} s")
    (c1, t1, _), (c2, t2, _) = out.values()
    print(f"batch scorer: {c1 / c2:.1f}x fewer calls (target >= 5x), {t1 / t2:.1f}x fewer "
          "tokens")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pairs", type=int, default=5000)
    ap.add_argument("--code", type=Path, default=REPO, help="simjudge checkout to measure")
    ap.add_argument("--no-batch", action="store_true", help="skip the IFPUG batch comparison")
    args = ap.parse_args()
    sys.path.insert(0, str(args.code.resolve()))
    sys.path.insert(1, str(REPO))  # tests.fake_openai of this checkout
    print(f"code: {args.code}")
    throughput(args.pairs, args.rounds)
    if not args.no_batch:
        batch_vs_pair()
