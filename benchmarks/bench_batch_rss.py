"""Peak client memory and wall time of the ``--batch-api`` round trip at 10k, 100k and 1M
requests, against the loopback Batch API fake (tests/fake_batch.py) in its own process.

    python benchmarks/bench_batch_rss.py [--sizes 10000 100000 1000000]
    python benchmarks/bench_batch_rss.py --sizes 20000 60000 --max-requests 20000 \
        --max-bytes 30000000    # the split at scale (was tests/judge/test_batch_scale.py)

Each size runs in a fresh client process (tests/batch_client.py: generated pairs, a fresh
cache, OpenAI's limits of 50,000 requests and 200 MB per batch unless ``--max-requests`` and
``--max-bytes`` say otherwise), so its peak RSS (``ru_maxrss``) is that size's alone. Each
size's batches are checked: every request answered once, every file within both limits. The
last line gives the growth of the peak from the first size to the last: bounded memory means it
grows by the page caches filling (the scratch SQLite's 32 MB, the judge cache's), not with
the requests (the unsplit in-memory path measured 796 MB peak at 60,163 requests; the
split path 143 MB at 20k, 161 MB at 60k at 20,000 requests / 30 MB per batch).

The wall time covers rendering the prompts, writing and uploading the chunks, the fake
answering every line (in its own process, on the same 2 cores), downloading, parsing and
caching every answer. The fake keeps its files on disk (--work, about
2.5 GB at 1M). Prints one table row per size.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _check_inputs(files: Path, n: int, max_requests: int, max_bytes: int) -> None:
    """The uploaded request files of one size: each within both limits, every request in
    exactly one (the result files, which the fake also keeps there, are skipped)."""
    ids: list[str] = []
    for p in files.iterdir():
        data = p.read_bytes()
        if b'"method": "POST"' not in data[:300]:
            continue
        lines = data.splitlines()
        assert len(data) <= max_bytes and len(lines) <= max_requests, (p, len(data), len(lines))
        ids += [json.loads(x)["custom_id"] for x in lines]
    assert len(ids) == len(set(ids)) == n, (len(ids), len(set(ids)), n)


def main() -> None:
    """Run the sizes and print the table (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--work", type=Path, default=None, help="scratch directory (default: tmp)")
    ap.add_argument("--max-requests", type=int, default=50_000, help="requests per batch")
    ap.add_argument("--max-bytes", type=int, default=200_000_000, help="bytes per batch file")
    a = ap.parse_args()
    work = Path(a.work or tempfile.mkdtemp(prefix="bench-batch-"))
    files = work / "files"
    files.mkdir(parents=True, exist_ok=True)
    fake = subprocess.Popen([sys.executable, "-m", "tests.fake_batch", "--file-dir", str(files)],
                            cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert fake.stdout is not None
        url = fake.stdout.readline().strip()
        env = {**os.environ, "SIMJUDGE_BATCH_POLL_S": "0.5", "PYTHONPATH": str(REPO)}
        print(f"limits: {a.max_requests:,} requests, {a.max_bytes:,} bytes per batch")
        print("| requests | batches | result files (in + out) | peak client RSS | wall time |")
        print("|---:|---:|---:|---:|---:|")
        peaks = []
        for n in a.sizes:
            cache = work / f"cache-{n}"
            before = sum(p.stat().st_size for p in files.iterdir())
            res = subprocess.run([sys.executable, "-m", "tests.batch_client", url, str(n),
                                  str(cache), "--max-requests", str(a.max_requests),
                                  "--max-bytes", str(a.max_bytes)], cwd=REPO, env=env,
                                 capture_output=True, text=True, check=True)
            row = json.loads(res.stdout.strip().splitlines()[-1])
            (s,) = row["summary"]
            assert row["answered"] == n == s["answered"] and s["failed"] == 0, row
            _check_inputs(files, n, a.max_requests, a.max_bytes)
            peaks.append(row["maxrss_kb"] / 1024)
            uploaded = sum(p.stat().st_size for p in files.iterdir()) - before
            print(f"| {n:,} | {len(s['batches'])} | {uploaded / 1e6:,.0f} MB "
                  f"| {row['maxrss_kb'] / 1024:,.0f} MB | {row['wall_s']:,.0f} s |",
                  flush=True)
            shutil.rmtree(cache)
            for p in files.iterdir():
                p.unlink()
        if len(peaks) > 1:
            print(f"peak RSS growth {a.sizes[0]:,} → {a.sizes[-1]:,} requests: "
                  f"{peaks[-1] - peaks[0]:+,.0f} MB ({peaks[0]:,.0f} → {peaks[-1]:,.0f} MB)")
    finally:
        fake.terminate()
        fake.wait(10)
        if a.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
