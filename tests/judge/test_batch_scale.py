"""``--batch-api`` requests split within the provider's limits, greedily, with every request in
exactly one batch: the same round trip as at 60,000 requests (tests/batch_client.py's generated
pairs, rendered, split, uploaded, answered, downloaded and cached), at thresholds small enough
to take a second. Both limits bind: a chunk ends at ``max_requests`` lines or when the next line
would pass ``max_bytes``.

The scale itself — 60,000 requests split at 20,000 requests / 30 MB in bounded client memory —
is measured by ``benchmarks/bench_batch_rss.py --sizes 20000 60000 --max-requests 20000
--max-bytes 30000000`` (peak RSS of each size in a process of its own; docs/performance.md)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from tests.batch_client import round_trip
from tests.fake_batch import FakeBatchServer

MAX_REQUESTS, MAX_BYTES = 50, 110_000  # a request is ~1.8 kB: 110 kB holds ~60


@pytest.mark.parametrize(("n", "max_requests", "max_bytes"), [
    (130, MAX_REQUESTS, 10**9),   # the request limit alone binds: 50, 50, 30
    (130, 10**6, MAX_BYTES),      # the byte limit alone binds
    (301, MAX_REQUESTS, 80_000),  # both: ~44 lines per 80 kB, so bytes bind first
])
def test_requests_split_within_limits_greedily(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               n: int, max_requests: int,
                                               max_bytes: int) -> None:
    monkeypatch.setenv("SIMJUDGE_BATCH_POLL_S", "0.01")
    with FakeBatchServer() as srv:
        got = round_trip(srv.base_url, n, tmp_path / "cache", max_requests, max_bytes)
        inputs = [srv.files[b["input_file_id"]] for b in srv.batches.values()]
    assert got["answered"] == n and got["summary"][0]["failed"] == 0
    lines = [f.splitlines(keepends=True) for f in inputs]  # bytes
    sizes = [len(f) for f in inputs]
    assert len(inputs) == len(got["summary"][0]["batches"]) >= 3
    # every file within both limits, and cut greedily: the next line would not have fitted
    assert max(sizes) <= max_bytes and max(len(x) for x in lines) <= max_requests
    for this, after in itertools.pairwise(lines):
        assert (len(this) == max_requests
                or sum(map(len, this)) + len(after[0]) > max_bytes)
    ids = [json.loads(x)["custom_id"] for f in lines for x in f]
    assert len(ids) == len(set(ids)) == n
    if max_bytes == 10**9:  # by hand: 130 = 50 + 50 + 30
        assert [len(x) for x in lines] == [50, 50, 30]
