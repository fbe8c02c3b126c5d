"""Build the in-repo examples from licence-clean data in ../shared/data.

Usage:  python scripts/make_examples.py [--data ../shared/data]

* examples/glossary_en_zh.jsonl from Multi-SimLex en–zh (CC-BY 4.0, Vulić et al. 2020);
* examples/am2ico_word_pairs.tsv from AM2iCo en–zh dev (CC-BY 4.0, Liu et al. 2021): the
  target words marked ``<word>…</word>`` in each context pair, with the human label
  (T = same meaning in context → 1, F → 0);
* examples/am2ico_items.jsonl (selection items of 4 of those pairs) with
  examples/am2ico_items_human.jsonl (every item's matches by the AM2iCo annotators) and
  examples/am2ico_items_human40.jsonl (40 of those items, a seeded uniform sample): the
  tutorial's "label 40 items" and ``benchmarks/ppi_coverage.py``.

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


def make_am2ico_items(group: int = 4, sample: int = 40) -> None:
    """Selection items of ``group`` consecutive AM2iCo word pairs (Chinese predictions, English
    gold; items whose words repeat are skipped, so matches are one-to-one), the annotators'
    matches of every item (the pairs labelled 1), and a seeded uniform sample of ``sample``
    items' matches."""
    with open(REPO / "examples" / "am2ico_word_pairs.tsv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    items, human = [], []
    for k in range(0, len(rows) - group + 1, group):
        part = rows[k:k + group]
        if len({r["pred"] for r in part}) < group or len({r["truth"] for r in part}) < group:
            continue
        item_id = f"am2ico-{k // group + 1:03d}"
        items.append({"id": item_id, "pred": [r["pred"] for r in part],
                      "truth": [r["truth"] for r in part],
                      "am2ico_dev_lines": [int(r["am2ico_dev_line"]) for r in part]})
        human.append({"id": item_id, "matches": [[r["pred"], r["truth"]] for r in part
                                                 if r["label"] == "1"]})
    chosen = sorted(random.Random(sample).sample(range(len(human)), sample))
    for name, lines in (("am2ico_items.jsonl", items), ("am2ico_items_human.jsonl", human),
                        (f"am2ico_items_human{sample}.jsonl", [human[k] for k in chosen])):
        out = REPO / "examples" / name
        out.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                       encoding="utf-8")
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
    make_am2ico_items()


if __name__ == "__main__":
    main()
