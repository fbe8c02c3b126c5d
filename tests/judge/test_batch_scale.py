"""60,000 ``--batch-api`` requests split within the provider's limits at bounded client memory:
the client (tests/batch_client.py) runs in its own process so its peak RSS is its own; the
Batch API fake runs here. The same round trip at 20,000 requests is the yardstick: tripling
the requests must not grow the peak by more than a small constant, while the input files
total ~110 MB (the unsplit in-memory path measured 796 MB peak at 60,163 requests)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from tests.fake_batch import FakeBatchServer

MAX_REQUESTS, MAX_BYTES = 20_000, 30_000_000


def _client(srv: FakeBatchServer, n: int, cache: Path) -> dict:  # type: ignore[type-arg]
    env = {**os.environ, "SIMJUDGE_BATCH_POLL_S": "0.05"}
    res = subprocess.run([sys.executable, "-m", "tests.batch_client", srv.base_url, str(n),
                          str(cache), "--max-requests", str(MAX_REQUESTS), "--max-bytes",
                          str(MAX_BYTES)], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    out: dict = json.loads(res.stdout.strip().splitlines()[-1])  # type: ignore[type-arg]
    return out


def test_60k_requests_split_within_limits_at_bounded_rss(tmp_path: Path) -> None:
    with FakeBatchServer(log_lines=False) as srv:
        small = _client(srv, 20_000, tmp_path / "c20k")
        srv.batches.clear()
        before = set(srv.files)
        big = _client(srv, 60_000, tmp_path / "c60k")
        inputs = [srv.files[b["input_file_id"]] for b in srv.batches.values()]
        assert not before & {b["input_file_id"] for b in srv.batches.values()}
    assert big["answered"] == 60_000 and big["summary"][0]["failed"] == 0
    assert small["answered"] == 20_000
    # every file within both limits, and cut greedily: the next line would not have fitted
    sizes = [len(f) for f in inputs]
    lines = [f.splitlines(keepends=True) for f in inputs]
    assert len(inputs) == len(big["summary"][0]["batches"]) >= 3
    assert max(sizes) <= MAX_BYTES and max(len(x) for x in lines) <= MAX_REQUESTS
    for this, after in itertools.pairwise(lines):
        assert (len(this) == MAX_REQUESTS
                or sum(map(len, this)) + len(after[0]) > MAX_BYTES)
    ids = [json.loads(x)["custom_id"] for f in lines for x in f]
    assert len(ids) == len(set(ids)) == 60_000
    total = sum(sizes)
    assert total > 100e6  # ~1.8 kB a request
    # bounded: 3× the requests, the peak grows by less than a fifth of one input file
    growth_kb = big["maxrss_kb"] - small["maxrss_kb"]
    assert growth_kb * 1024 < 0.2 * MAX_BYTES, (small["maxrss_kb"], big["maxrss_kb"])
    assert big["maxrss_kb"] * 1024 < total  # no buffer held the input, let alone the run
