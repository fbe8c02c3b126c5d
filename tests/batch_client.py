"""One ``--batch-api`` round trip of N generated pairs against a Batch API server, measured:
``python -m tests.batch_client BASE_URL N CACHE_DIR [--max-requests R] [--max-bytes B]``
prints one JSON line with the client's peak RSS (``ru_maxrss``, kB), the wall time (s) and the
summary. The pairs are generated on demand (never a list of N), so what is measured is the
Batch API path itself — render, split, upload, wait, download, cache, on-disk answers — not
the input. Used by tests/judge/test_batch_scale.py and benchmarks/bench_batch_rss.py; the
server runs in another process (its memory is not the client's).
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, overload


class GeneratedPairs(Sequence[tuple[str, str]]):
    """``n`` distinct (pred, gold) pairs made on demand: ``("Alpha item k", "apple item k")``
    alternating with pairs that share no first letter (the fake scores 0.9 and 0.1)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def _pair(self, k: int) -> tuple[str, str]:
        return (f"Alpha item {k}", f"apple item {k}" if k % 2 else f"zulu item {k}")

    @overload
    def __getitem__(self, k: int) -> tuple[str, str]: ...
    @overload
    def __getitem__(self, k: slice) -> Sequence[tuple[str, str]]: ...

    def __getitem__(self, k: int | slice) -> Any:
        if isinstance(k, slice):
            return [self._pair(i) for i in range(*k.indices(self.n))]
        if not -self.n <= k < self.n:
            raise IndexError(k)
        return self._pair(k % self.n)


def round_trip(base_url: str, n: int, cache_dir: Path, max_requests: int,
               max_bytes: int) -> dict[str, Any]:
    """Fetch the answers of ``n`` generated pairs through the Batch API at ``base_url``."""
    from judge import aio
    from judge.cache import JudgeCache
    from judge.judges.base import JudgeContext
    from judge.judges.llm.batchapi import fetch_batches, release
    from judge.judges.llm.batchstate import BatchLimits
    from judge.judges.options import JudgeOptions
    from judge.judges.registry import parse_judge_spec
    from judge.prices import Price

    t0 = time.perf_counter()
    opts = JudgeOptions(base_url=base_url, prices={"fake-model": Price(0.15, 0.6)})
    judge = parse_judge_spec("openai:fake-model", opts)
    cache = JudgeCache(cache_dir)
    ctx = JudgeContext(cache=cache)
    lines: list[str] = []
    summary = aio.run(fetch_batches([judge], [("", GeneratedPairs(n))], ctx, say=lines.append,
                                    limits=BatchLimits(max_requests, max_bytes)))
    answered = len(ctx.batch)
    release(ctx)
    cache.close()
    return {"n": n, "wall_s": round(time.perf_counter() - t0, 2),
            "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "answered": answered, "summary": summary, "lines": len(lines)}


def main() -> None:
    """Command-line entry (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("base_url")
    ap.add_argument("n", type=int)
    ap.add_argument("cache_dir", type=Path)
    ap.add_argument("--max-requests", type=int, default=50_000)
    ap.add_argument("--max-bytes", type=int, default=200_000_000)
    a = ap.parse_args()
    print(json.dumps(round_trip(a.base_url, a.n, a.cache_dir, a.max_requests, a.max_bytes)))


if __name__ == "__main__":
    main()
