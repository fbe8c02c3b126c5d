"""Fit the `local` judge's monotone cosine → score mapping on human-labelled word pairs.

Usage:  python scripts/fit_local_judge.py [--data ../shared/data]
        [--out judge/judges/local_calibration.json]

Why: raw USE-multilingual cosines are on different scales for cross-lingual and same-language
pairs (best cuts ≈ 0.64 and ≈ 0.78), so a single τ cannot serve both. For each setting we fit

    score(c) = sigmoid(slope · (c − centre) + logit(0.7))

where ``centre`` is the F1-best cut on the labelled pairs (metrics.best_threshold: midpoints,
ties to the larger cut) and ``slope`` is the slope of a logistic regression of the label on the
cosine. So τ = 0.7 on the mapped score is the F1-best cut of that setting, and the mapping is
strictly monotone (rankings and AUC are unchanged).

Data (licences allow use; see ../shared/data/README.md), Multi-SimLex rows with
pair_id % 10 == 0 held out for the reported held-out check:
* cross-lingual: Multi-SimLex en–zh (Vulić et al. 2020, CC-BY 4.0): a word and its Mandarin
  translation = same (1); a word and the Mandarin word of the *other* concept of its pair = not
  the same (0), e.g. "democracy"/"帝制".
* same-language: Multi-SimLex en–en and zh–zh pairs, same = rating ≥ 4.5 of 6; COS960
  (Huang et al. 2019, MIT) zh–zh pairs, same = mean rating ≥ 3 of 4.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import hashlib
import json
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from judge.judges.embedding.local import LocalJudge, is_cross_lingual
from metrics import best_threshold, roc_auc

REPO = Path(__file__).resolve().parents[1]
TAU = 0.7


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_pairs(data: Path) -> dict[str, dict[str, list[tuple[str, str, int]]]]:
    msl = data / "multisimlex_en_zh" / "derived_en_zh_pairs.tsv"
    cos = data / "cos960_zh" / "COS960_all.txt"
    out: dict[str, dict[str, list[tuple[str, str, int]]]] = {
        "cross-lingual": {"train": [], "heldout": []},
        "same-language": {"train": [], "heldout": []},
    }
    with open(msl, encoding="utf-8") as fh:
        for r in csv.DictReader(fh, delimiter="\t"):
            split = "heldout" if int(r["pair_id"]) % 10 == 0 else "train"
            e1, e2, z1, z2 = r["en_word1"], r["en_word2"], r["zh_word1"], r["zh_word2"]
            out["cross-lingual"][split] += [(e1, z1, 1), (e2, z2, 1), (e1, z2, 0), (e2, z1, 0)]
            out["same-language"][split] += [(e1, e2, int(float(r["en_score"]) >= 4.5)),
                                            (z1, z2, int(float(r["zh_score"]) >= 4.5))]
    with open(cos, encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 3:
                out["same-language"]["train"].append((parts[0], parts[1],
                                                      int(float(parts[2]) >= 3.0)))
    for setting in out.values():
        for split, pairs in setting.items():
            seen: dict[tuple[str, str], int] = {}
            for a, b, y in pairs:
                if a != b:
                    seen.setdefault((a, b), y)
            setting[split] = [(a, b, y) for (a, b), y in seen.items()]
    return out


def logistic_slope(c: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Maximum-likelihood logistic regression y ~ sigmoid(a·c + b); returns (a, b)."""
    def nll(w: np.ndarray) -> float:
        z = w[0] * c + w[1]
        return float(np.sum(np.logaddexp(0.0, z) - y * z))

    res = minimize(nll, x0=np.array([5.0, -3.0]), method="BFGS")
    return float(res.x[0]), float(res.x[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--out", type=Path,
                    default=REPO / "judge" / "judges" / "local_calibration.json")
    args = ap.parse_args()
    pairs = load_pairs(args.data)
    judge = LocalJudge(calibration=None)
    result: dict = {
        "created": dt.date.today().isoformat(),
        "script": "scripts/fit_local_judge.py",
        "model": judge.model_identity(),
        "formula": "score = sigmoid(slope * (cosine - centre) + logit(0.7))",
        "tau": TAU,
        "data": {
            "multisimlex_en_zh/derived_en_zh_pairs.tsv": {
                "sha256": sha256(args.data / "multisimlex_en_zh" / "derived_en_zh_pairs.tsv"),
                "licence": "CC-BY 4.0", "citation": "Vulić et al. 2020, Multi-SimLex"},
            "cos960_zh/COS960_all.txt": {
                "sha256": sha256(args.data / "cos960_zh" / "COS960_all.txt"),
                "licence": "MIT", "citation": "Huang et al. 2019, COS960"},
        },
        "settings": {},
    }
    for setting, splits in pairs.items():
        train = splits["train"]
        c = judge.raw_cosines([(a, b) for a, b, _ in train])
        y = np.array([lab for _, _, lab in train], dtype=float)
        assert all(is_cross_lingual(a, b) == (setting == "cross-lingual") for a, b, _ in train)
        best = best_threshold(c, y.astype(bool), objective="f1")
        slope, intercept = logistic_slope(c, y)
        entry = {
            "centre": round(best.tau, 6), "slope": round(slope, 6),
            "logistic_intercept": round(intercept, 6),
            "train": {"pairs": len(train), "positives": int(y.sum()),
                      "auc": round(roc_auc(y.astype(bool), c), 4),
                      "f1_at_centre": round(best.f1, 4),
                      "precision_at_centre": round(best.precision, 4),
                      "recall_at_centre": round(best.recall, 4)},
        }
        held = splits["heldout"]
        hc = judge.raw_cosines([(a, b) for a, b, _ in held])
        hy = np.array([lab for _, _, lab in held], dtype=bool)
        pred = hc > best.tau
        tp = int((pred & hy).sum())
        fp = int((pred & ~hy).sum())
        fn = int((~pred & hy).sum())
        entry["heldout"] = {"pairs": len(held), "positives": int(hy.sum()),
                            "auc": round(roc_auc(hy, hc), 4),
                            "f1_at_tau_0.7": round(2 * tp / (2 * tp + fp + fn), 4)
                            if tp + fp + fn else None}
        result["settings"][setting] = entry
        print(setting, json.dumps(entry))
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
