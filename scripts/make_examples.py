"""Build the in-repo examples from licence-clean data in ../shared/data.

Usage:  python scripts/make_examples.py [--data ../shared/data]

* examples/glossary_en_zh.jsonl from Multi-SimLex en–zh (CC-BY 4.0, Vulić et al. 2020);
* examples/am2ico_word_pairs.tsv from AM2iCo en–zh dev (CC-BY 4.0, Liu et al. 2021): the
  target words marked ``<word>…</word>`` in each context pair, with the human label
  (T = same meaning in context → 1, F → 0).

A small cross-lingual selection task like the IFPUG one (Chinese predictions, English gold):
each item takes 4 held-out concept pairs (pair_id % 10 == 0, never used to fit the local
judge); the gold list is the 4 English words; the prediction lists the Mandarin translations
of 3 of them plus, in place of the 4th, the Mandarin word of a *different* concept from the same
Multi-SimLex pair (a related-but-wrong answer). Deterministic (seeded).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def make_am2ico(data: Path) -> None:
    """Extract the marked target words of each AM2iCo dev pair with its label."""
    import re

    src = data / "am2ico_en_zh" / "dev.tsv"
    out = REPO / "examples" / "am2ico_word_pairs.tsv"
    word = re.compile(r"<word>(.*?)</word>")
    with open(src, encoding="utf-8") as fh, open(out, "w", encoding="utf-8", newline="") as fo:
        w = csv.writer(fo, delimiter="\t", lineterminator="\n")
        w.writerow(["pred", "truth", "label", "am2ico_dev_line"])
        for lineno, row in enumerate(csv.DictReader(fh, delimiter="\t"), start=2):
            zh = word.search(row["context1"])
            en = word.search(row["context2"])
            if zh is None or en is None:
                raise ValueError(f"{src}:{lineno}: no <word> span")
            w.writerow([zh.group(1).strip(), en.group(1).strip(),
                        1 if row["label"] == "T" else 0, lineno])
    print(f"wrote {out}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--items", type=int, default=24)
    args = ap.parse_args()
    path = args.data / "multisimlex_en_zh" / "derived_en_zh_pairs.tsv"
    with open(path, encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t")
                if int(r["pair_id"]) % 10 == 0 and r["pos"] == "nouns"]
    rnd = random.Random(2020)
    rnd.shuffle(rows)
    out = REPO / "examples" / "glossary_en_zh.jsonl"
    with open(out, "w", encoding="utf-8") as fh:
        for k in range(args.items):
            group = rows[4 * k: 4 * k + 4]
            if len(group) < 4:
                break
            truth = [r["en_word1"] for r in group]
            pred = [r["zh_word1"] for r in group[:3]] + [group[3]["zh_word2"]]
            rnd.shuffle(pred)
            fh.write(json.dumps({"id": f"glossary-{k + 1:02d}", "pred": pred, "truth": truth,
                                 "multisimlex_pair_ids": [int(r["pair_id"]) for r in group]},
                                ensure_ascii=False) + "\n")
    print(f"wrote {out}")
    make_am2ico(args.data)


if __name__ == "__main__":
    main()
