"""Effect of the `local` judge's opposite-term guard on every human-labelled pair set we have.

For each set, the `local` judge scores every pair twice — guard off (``usem3-cosine@v1``, the
calibrated cosine) and on (``usem3-cosine@v2``, opposed short pairs capped at
:data:`judge.judges.embedding.opposites.CAP`) — and the script prints: pairs, positives, how many
pairs the
guard capped (and how many of those are labelled positive, i.e. wrongly capped), ROC-AUC
(:func:`metrics.roc_auc`, cross-checked with ``sklearn.metrics.roc_auc_score``) and F1 of the
match decision score > τ (τ = 0.7, the calibrated cut; :func:`metrics.binary_scores`), before →
after, and a few capped pairs. The cosines are computed once per set; only the mapping differs.

Sets (labels as in ``scripts/fit_local_judge.py`` unless said):

* ``am2ico`` — ``examples/am2ico_word_pairs.tsv`` (in the repo; AM2iCo en–zh dev target words,
  CC-BY 4.0, Liu et al. 2021), label as given.
* ``multisimlex-xl`` — Multi-SimLex en–zh (CC-BY 4.0, Vulić et al. 2020): a word and its
  Mandarin translation = 1, a word and the other concept's Mandarin word = 0.
* ``multisimlex-en`` / ``multisimlex-zh`` — the same concept pairs within one language,
  positive = rating >= 4.5 of 6.
* ``cos960`` — COS960 zh word pairs (MIT, Huang et al. 2019), positive = mean rating >= 3 of 4.
* ``pawsx-zh`` — PAWS-X zh dev (Google, Yang et al. 2019) sentence pairs, label as given.
* ``ifpug`` — no human labels: the distinct (prediction, gold) pairs of the IFPUG selection
  runs; the upstream evaluator's LLM judge's ``semantic_matches`` (pairs it scored > 0.7) serve
  as labels, so "capped positives" counts pairs that judge matched and the guard caps.

The shared sets live in ``../shared/data`` and are skipped (with a message) when it is absent.

Run: ``python benchmarks/local_opposites.py [--data ../shared/data] [--json out.json]``
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judge.judges.embedding.local import LocalJudge  # noqa: E402
from judge.judges.embedding.opposites import CAP, Lexicon, find_opposition, parse_lexicon  # noqa: E402
from metrics import binary_scores, roc_auc  # noqa: E402

TAU = 0.7
Pairs = list[tuple[str, str, int]]


def _dedupe(pairs: Pairs) -> Pairs:
    seen: dict[tuple[str, str], int] = {}
    for a, b, y in pairs:
        if a != b:
            seen.setdefault((a, b), y)
    return [(a, b, y) for (a, b), y in seen.items()]


def load_sets(data: Path) -> Iterator[tuple[str, Pairs | str]]:
    """(name, pairs) for each set, or (name, reason) when its file is absent."""
    with open(REPO / "examples" / "am2ico_word_pairs.tsv", encoding="utf-8") as fh:
        yield "am2ico", _dedupe([(r["pred"], r["truth"], int(r["label"]))
                                 for r in csv.DictReader(fh, delimiter="\t")])
    msl = data / "multisimlex_en_zh" / "derived_en_zh_pairs.tsv"
    if msl.exists():
        xl: Pairs = []
        en: Pairs = []
        zh: Pairs = []
        with open(msl, encoding="utf-8") as fh:
            for r in csv.DictReader(fh, delimiter="\t"):
                e1, e2, z1, z2 = r["en_word1"], r["en_word2"], r["zh_word1"], r["zh_word2"]
                xl += [(e1, z1, 1), (e2, z2, 1), (e1, z2, 0), (e2, z1, 0)]
                en.append((e1, e2, int(float(r["en_score"]) >= 4.5)))
                zh.append((z1, z2, int(float(r["zh_score"]) >= 4.5)))
        yield "multisimlex-xl", _dedupe(xl)
        yield "multisimlex-en", _dedupe(en)
        yield "multisimlex-zh", _dedupe(zh)
    else:
        for n in ("multisimlex-xl", "multisimlex-en", "multisimlex-zh"):
            yield n, f"{msl} not found"
    cos = data / "cos960_zh" / "COS960_all.txt"
    if cos.exists():
        with open(cos, encoding="utf-8") as fh:
            rows = [ln.split() for ln in fh]
        yield "cos960", _dedupe([(p[0], p[1], int(float(p[2]) >= 3.0))
                                 for p in rows if len(p) >= 3])
    else:
        yield "cos960", f"{cos} not found"
    paws = data / "pawsx_zh" / "dev_2k.tsv"
    if paws.exists():
        with open(paws, encoding="utf-8") as fh:
            rd = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
            yield "pawsx-zh", _dedupe([(r["sentence1"], r["sentence2"], int(r["label"]))
                                       for r in rd if r.get("label") in ("0", "1")])
    else:
        yield "pawsx-zh", f"{paws} not found"
    ifpug = data / "ifpug" / "ilf_runs.jsonl"
    if ifpug.exists():
        yield "ifpug", ifpug_pairs(ifpug)
    else:
        yield "ifpug", f"{ifpug} not found"


_MATCH = re.compile(r"^(.*) <-> (.*) \(([0-9.]+)\)$")


def ifpug_pairs(path: Path) -> Pairs:
    """Distinct (prediction, gold) pairs of the ILF selection runs; label 1 when the upstream
    evaluator's LLM judge listed the pair among its ``semantic_matches``."""
    pairs: set[tuple[str, str]] = set()
    matched: set[tuple[str, str]] = set()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if r.get("task") != "ilf_selection":
                continue
            preds = r.get("final_answer") or []
            gold = r.get("ground_truth") or []
            if not isinstance(preds, list) or not isinstance(gold, list):
                continue
            pairs.update((str(p), str(g)) for p in preds for g in gold)
            for m in (r.get("evaluation_metrics") or {}).get("semantic_matches") or []:
                hit = _MATCH.match(str(m))
                if hit:
                    matched.add((hit.group(1).strip(), hit.group(2).strip()))
    return [(p, g, int((p, g) in matched)) for p, g in sorted(pairs) if p != g]


def software_lexicon() -> Lexicon:
    """The shipped lexicon's software-action entries only (the lines before its "# everyday"
    section): the part written for function names, not for everyday antonyms, several of
    which are concept pairs of Multi-SimLex and COS960 (so those sets do not test it blind)."""
    text = (REPO / "judge" / "judges" / "opposites.tsv").read_text(encoding="utf-8")
    return parse_lexicon(text.split("# everyday")[0])


def measure(pairs: Pairs, judge: LocalJudge, software: Lexicon) -> dict[str, Any]:
    """Guard off / on / software entries only, for one set: counts, ROC-AUC, F1 at τ and the
    pairs the full guard capped."""
    from sklearn.metrics import roc_auc_score

    cos = judge.raw_cosines([(a, b) for a, b, _ in pairs])
    labels = [y for _, _, y in pairs]
    out: dict[str, Any] = {"pairs": len(pairs), "positives": sum(labels)}
    capped: list[tuple[str, str, int, float, str]] = []
    for name, guard in (("off", False), ("on", True), ("software", False)):
        judge.opposite_guard = guard
        scores = []
        for (a, b, y), c in zip(pairs, cos, strict=True):
            s, _why, detail = judge.score(float(c), a, b)
            if name == "software" and find_opposition(a, b, software) is not None:
                s = min(s, CAP)
                out["capped_software"] = out.get("capped_software", 0) + 1
            scores.append(s)
            if guard and "opposition" in detail:
                capped.append((a, b, y, float(c), " / ".join(detail["opposition"][:2])))
        both = len(set(labels)) > 1
        bs = binary_scores([bool(y) for y in labels], [s > TAU for s in scores])
        out[name] = {"auc": roc_auc(labels, scores) if both else float("nan"),
                     "auc_sklearn": float(roc_auc_score(labels, scores)) if both else None,
                     "f1": bs.f1, "precision": bs.precision, "recall": bs.recall}
    out["capped"] = len(capped)
    out["capped_positive"] = sum(y for _, _, y, _, _ in capped)
    out["examples"] = capped[:8]
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = ap.parse_args(argv)
    judge = LocalJudge()
    software = software_lexicon()
    results: dict[str, Any] = {}
    print("capped = pairs the guard caps, cap+ = of those labelled positive; "
          "sw = software-action entries only")
    print(f"{'set':<16}{'pairs':>7}{'pos':>6}{'capped':>8}{'cap+':>6}   "
          f"{'ROC-AUC off → on (sw)':<28}{'F1@0.7 off → on (sw)':<28}")
    for name, pairs in load_sets(args.data):
        if isinstance(pairs, str):
            print(f"{name:<16}skipped: {pairs}")
            continue
        r = results[name] = measure(pairs, judge, software)
        off, on, sw = r["off"], r["on"], r["software"]
        print(f"{name:<16}{r['pairs']:>7}{r['positives']:>6}{r['capped']:>8}"
              f"{r['capped_positive']:>6}   {off['auc']:.4f} → {on['auc']:.4f} "
              f"({sw['auc']:.4f})   {off['f1']:.4f} → {on['f1']:.4f} ({sw['f1']:.4f})")
        for a, b, y, c, why in r["examples"]:
            print(f"{'':<18}label {y}  cos {c:.2f}  {a!r} / {b!r}  ({why})")
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False),
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
