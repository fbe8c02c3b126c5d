"""Malformed judge replies at scale: runs of 2,000 pairs in which a few requests get a broken
HTTP 200 reply complete, with exit status 1, exactly those pairs failed, nothing of theirs
cached (issue 11).

The unit suite (``tests/judge/test_judges_replies.py``) makes the same checks on a few hundred
pairs; this runs them, unchanged, on ``--pairs`` pairs (default 2,000) against the loopback
fake server (``tests/fake_openai.py``) and prints each check's wall time:

- ``chat``: ``eval --judge openai:…``, six requests answered with one of each malformed chat
  reply (HTML, cut-off JSON, a JSON array, ``message`` a string, ``content`` a list,
  non-numeric ``usage``), then a rerun that asks exactly those six again;
- ``batch``: the batch scorer (20 items a request), six requests answered malformed;
- ``embeddings``: ``openai-embedding:…``, eight of its 64-string requests answered malformed.

Run: ``python benchmarks/bench_malformed_replies.py [--pairs 2000]`` (about a minute on 2
cores). Each check raises ``AssertionError`` when it fails.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.judge.test_judges_replies import (  # noqa: E402
    check_malformed_batch,
    check_malformed_chat,
    check_malformed_embeddings,
)


def main() -> None:
    """Run the three checks on ``--pairs`` pairs each; print their wall times."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=2000,
                    help="pairs per run: a multiple of 20 (the batch scorer's requests), >= 480")
    args = ap.parse_args()
    if args.pairs < 480 or args.pairs % 20:
        ap.error("--pairs must be a multiple of 20 and >= 480 (eight malformed embedding "
                 "requests of 64 strings)")
    os.environ.setdefault("OPENAI_API_KEY", "sk-local-bench")
    for name, check in (("chat", check_malformed_chat), ("batch", check_malformed_batch),
                        ("embeddings", check_malformed_embeddings)):
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["SIMJUDGE_CACHE_DIR"] = str(Path(tmp) / "default-cache")
            t0 = time.perf_counter()
            check(Path(tmp), args.pairs)
            print(f"{name:<10} {args.pairs:,} pairs: checks passed in "
                  f"{time.perf_counter() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
