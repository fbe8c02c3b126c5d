"""Remote-judge throughput and batch savings, against a loopback OpenAI-compatible server.

1. A server with a fixed 100 ms latency; 2,000 distinct pairs at concurrency 64 through the
   real ``openai`` SDK: pairs/s against the bound 64 / 0.1 s = 640 pairs/s (target >= 85 %).
2. The IFPUG selection runs (../shared/data): calls and tokens of the batch scorer
   (entity_similarity_batch@v1) against the per-pair scorer (target >= 5x fewer calls).

Run: python benchmarks/bench_judge_throughput.py
"""

from __future__ import annotations

import asyncio
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
from tests.fake_openai import FakeOpenAIServer  # noqa: E402

IFPUG = REPO.parent / "shared" / "data" / "ifpug" / "ilf_runs.jsonl"


def run(judge, pairs, cache_dir):  # type: ignore[no-untyped-def]
    ctx = JudgeContext(cache=JudgeCache(cache_dir, "off"))
    t0 = time.perf_counter()
    verdicts = asyncio.run(judge.judge_pairs(pairs, ctx))
    return time.perf_counter() - t0, ctx, verdicts


def throughput(n: int = 2000, concurrency: int = 64, latency: float = 0.1) -> None:
    """The server runs in its own process so it does not share the client's GIL."""
    import subprocess

    pairs = [(f"predicted item {i}", f"gold item {i}") for i in range(n)]
    proc = subprocess.Popen([sys.executable, "-m", "tests.fake_openai", "--latency",
                             str(latency)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as tmp:
            judge = parse_judge_spec("openai:fake", JudgeOptions(base_url=base_url,
                                                                 concurrency=concurrency))
            run(judge, pairs[:concurrency], tmp)  # warm-up: connections, imports
            wall, ctx, verdicts = run(judge, pairs, tmp)
            ceiling = asyncio.run(_raw_ceiling(base_url, judge.requests_for(pairs, "")[0],
                                               n, concurrency))
    finally:
        proc.kill()
    bound = concurrency / latency
    rate = n / wall
    ok = sum(v is not None and v.outcome == "ok" for v in verdicts)
    print(f"throughput: {n} pairs at concurrency {concurrency}, {latency * 1000:.0f} ms server "
          f"latency: {wall:.2f} s → {rate:.0f} pairs/s = {rate / bound:.1%} of the {bound:.0f}/s "
          f"bound (target >= 85 %); {ok} ok, {ctx.stats.judge_calls} calls")
    print(f"  this machine's ceiling: bare aiohttp POSTs of the same body, no SDK and no judging: "
          f"{ceiling:.0f}/s = {ceiling / bound:.1%} of the bound; simjudge reaches "
          f"{rate / ceiling:.0%} of it")


async def _raw_ceiling(base_url: str, req, n: int, concurrency: int) -> float:  # type: ignore[no-untyped-def]
    """Requests/s of bare aiohttp against the same server (what the rig itself allows)."""
    import aiohttp

    body = {"model": "fake", "messages": req.messages}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=100)) as s:
        sem = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with sem, s.post(base_url + "/chat/completions", json=body) as r:
                await r.json()

        await asyncio.gather(*(one() for _ in range(concurrency)))
        t0 = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(n)))
        return n / (time.perf_counter() - t0)


def batch_vs_pair() -> None:
    if not IFPUG.exists():
        print(f"batch vs per-pair: skipped ({IFPUG} not found)")
        return
    from judge.matrix import distinct_pairs
    from judge.tasks.base import Source
    from judge.tasks.registry import get_task

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
            wall, ctx, verdicts = run(judge, pairs, tmp)
            ok = sum(v is not None and v.outcome == "ok" for v in verdicts)
            out[scorer] = (ctx.stats.judge_calls, ctx.stats.tokens_in + ctx.stats.tokens_out, ok)
            print(f"{scorer}: {len(pairs)} IFPUG pairs → {ctx.stats.judge_calls} calls, "
                  f"{ctx.stats.tokens_in} prompt + {ctx.stats.tokens_out} completion tokens, "
                  f"{ok} ok, {wall:.2f} s")
    (c1, t1, _), (c2, t2, _) = out.values()
    print(f"batch scorer: {c1 / c2:.1f}x fewer calls (target >= 5x), {t1 / t2:.1f}x fewer "
          "tokens")


if __name__ == "__main__":
    throughput()
    batch_vs_pair()
