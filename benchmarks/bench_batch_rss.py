"""Peak client memory and wall time of the ``--batch-api`` round trip at 10k, 100k and 1M
requests, against the loopback Batch API fake (tests/fake_batch.py) in its own process.

    python benchmarks/bench_batch_rss.py [--sizes 10000 100000 1000000]

Each size runs in a fresh client process (tests/batch_client.py: generated pairs, a fresh
cache, OpenAI's limits of 50,000 requests and 200 MB per batch), so its peak RSS
(``ru_maxrss``) is that size's alone. The wall time covers rendering the prompts, writing and
uploading the chunks, the fake answering every line (in its own process, on the same 2 cores),
downloading, parsing and caching every answer. The fake keeps its files on disk (--work, about
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


def main() -> None:
    """Run the sizes and print the table (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--work", type=Path, default=None, help="scratch directory (default: tmp)")
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
        print("| requests | batches | result files (in + out) | peak client RSS | wall time |")
        print("|---:|---:|---:|---:|---:|")
        for n in a.sizes:
            cache = work / f"cache-{n}"
            before = sum(p.stat().st_size for p in files.iterdir())
            res = subprocess.run([sys.executable, "-m", "tests.batch_client", url, str(n),
                                  str(cache)], cwd=REPO, env=env, capture_output=True,
                                 text=True, check=True)
            row = json.loads(res.stdout.strip().splitlines()[-1])
            (s,) = row["summary"]
            assert row["answered"] == n == s["answered"], row
            uploaded = sum(p.stat().st_size for p in files.iterdir()) - before
            print(f"| {n:,} | {len(s['batches'])} | {uploaded / 1e6:,.0f} MB "
                  f"| {row['maxrss_kb'] / 1024:,.0f} MB | {row['wall_s']:,.0f} s |",
                  flush=True)
            shutil.rmtree(cache)
            for p in files.iterdir():
                p.unlink()
    finally:
        fake.terminate()
        fake.wait(10)
        if a.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
