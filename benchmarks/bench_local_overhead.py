"""simjudge's own work in ``eval --judge local`` on 10,000 pairs: the encoder replaced by a stub.

``bench_local_judge.py`` sets simjudge beside a bare loop over the real encoder; what separates
them is simjudge's own work (reading the items, the scores and the guard, the verdicts and
their log, the matching, ``items.jsonl``, ``report.html``), a second or so against ~6 s of
encoding, and the encoder's time varies more than that between rounds. Here the encoder is
replaced by a stub (each string's vector the normalised sum of fixed random word vectors, so
strings sharing words are near and the guard has work), which leaves simjudge's own work
nearly alone: compare two trees with it (``--tree``), run side by side in the same minute.

    PYTHONHASHSEED=0 python benchmarks/bench_local_overhead.py [--rounds 7] [--tree DIR]

Prints the median and min wall and CPU seconds (``time.process_time``: all threads) of
``simjudge eval ITEMS --judge local --cache-mode off --bootstrap 0 --out DIR --quiet`` run in
this process (after one warm-up run), and what the stub alone costs on the same strings.
``PYTHONHASHSEED=0`` makes the stub's vectors (hashed words) the same from run to run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def stub_encoder(dim: int = 512, words: int = 4096) -> Callable[[Any, Sequence[str]], Any]:
    """A stand-in for ``LocalJudge._encode_batch``: ``(judge, batch of n strings) -> (n, dim)
    float32`` unit vectors, each the sum of its words' vectors (a fixed table of ``words``
    random vectors indexed by ``hash(word)``) normalised."""
    import numpy as np

    table = np.random.default_rng(0).standard_normal((words, dim)).astype(np.float32)
    table /= np.linalg.norm(table, axis=1, keepdims=True)

    def encode(_judge: Any, batch: Sequence[str]) -> Any:
        out = np.stack([table[[hash(w) % words for w in s.split()] or [0]].sum(axis=0)
                        for s in batch])
        return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)

    return encode


def write_items(pairs: Sequence[tuple[str, str]], path: Path) -> Path:
    """``pairs`` as selection items (one pred, one truth each; ids 0..n-1) in JSONL at
    ``path``."""
    path.write_text("".join(json.dumps({"id": str(k), "pred": [a], "truth": [b]},
                                       ensure_ascii=False) + "\n"
                            for k, (a, b) in enumerate(pairs)), encoding="utf-8")
    return path


def main() -> None:
    """Measure and print (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--tree", type=Path, default=REPO, help="the simjudge tree to measure")
    a = ap.parse_args()
    tree = a.tree.resolve()
    sys.path[:0] = [str(tree), str(tree / "benchmarks")]
    os.chdir(tree)
    from bench_local_judge import make_pairs  # the tree's own pairs

    import judge.judges.embedding.local as local
    from tests.clirun import run_cli

    encode = stub_encoder()
    local.LocalJudge._encode_batch = encode  # type: ignore[method-assign]
    work = Path(tempfile.mkdtemp())
    warm = write_items(make_pairs(64, seed=1), work / "warm.jsonl")
    pairs = make_pairs(a.pairs)
    items = write_items(pairs, work / "items.jsonl")

    def once(data: Path) -> tuple[float, float]:
        c0, t0 = time.process_time(), time.perf_counter()
        res = run_cli("eval", data, "--judge", "local", "--cache-mode", "off", "--bootstrap",
                      "0", "--out", work / "run", "--overwrite", "--quiet")
        assert res.returncode == 0, res.stderr
        return time.perf_counter() - t0, time.process_time() - c0

    once(warm)
    strings = sorted({s for p in pairs for s in p}, key=len)
    c0 = time.process_time()
    for k in range(0, len(strings), 64):
        encode(None, strings[k:k + 64])
    stub = time.process_time() - c0
    walls, cpus = zip(*(once(items) for _ in range(a.rounds)), strict=True)
    print(f"{a.pairs:,} pairs, {tree}: wall median {statistics.median(walls):.3f} s (min "
          f"{min(walls):.3f}); CPU median {statistics.median(cpus):.3f} s (min {min(cpus):.3f});"
          f" of which the stub encoder {stub:.3f} s; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
