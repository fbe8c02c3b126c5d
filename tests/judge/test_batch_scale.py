"""60,000 ``--batch-api`` requests split within the provider's limits at bounded client memory:
the client (tests/batch_client.py) and the Batch API fake (files on disk) each run in their
own process, so the client's peak RSS is its own. The same round trip at 20,000 requests is
the yardstick: tripling the requests may grow the peak only by the page caches filling (the
scratch SQLite's 32 MB, the judge cache's), while the input files
total ~110 MB (the unsplit in-memory path measured 796 MB peak at 60,163 requests)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

MAX_REQUESTS, MAX_BYTES = 20_000, 30_000_000


@pytest.fixture()
def fake(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    files = tmp_path / "files"
    files.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "tests.fake_batch", "--file-dir",
                             str(files)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip(), files
    finally:
        proc.terminate()
        proc.wait(10)


def _client(url: str, n: int, cache: Path) -> dict:  # type: ignore[type-arg]
    env = {**os.environ, "SIMJUDGE_BATCH_POLL_S": "0.05"}
    res = subprocess.run([sys.executable, "-m", "tests.batch_client", url, str(n),
                          str(cache), "--max-requests", str(MAX_REQUESTS), "--max-bytes",
                          str(MAX_BYTES)], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    out: dict = json.loads(res.stdout.strip().splitlines()[-1])  # type: ignore[type-arg]
    return out


def test_60k_requests_split_within_limits_at_bounded_rss(tmp_path: Path,
                                                          fake: tuple[str, Path]) -> None:
    url, files = fake
    small = _client(url, 20_000, tmp_path / "c20k")
    earlier = set(files.iterdir())
    big = _client(url, 60_000, tmp_path / "c60k")
    new = sorted((p for p in files.iterdir() if p not in earlier),
                 key=lambda p: int(p.name.split("-")[1]))
    inputs = [p.read_bytes() for p in new if b'"method": "POST"' in p.read_bytes()[:300]]
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
    # bounded: 3× the requests (+80 MB of input), the peak grows by less than 48 MB — the
    # page caches filling (measured: 143 MB at 20k, 153 MB at 40k, 161 MB at 60k)
    growth_kb = big["maxrss_kb"] - small["maxrss_kb"]
    assert growth_kb * 1024 < 48e6, (small["maxrss_kb"], big["maxrss_kb"])
