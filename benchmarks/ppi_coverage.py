"""Do the intervals of ``simjudge estimate`` hold? Coverage on real judge scores and real human
truth (issue 35).

Three populations, each judged by the embedded ``local`` judge at τ 0.7 and fully labelled by
people, so the all-items human value (the estimand) is known:

* ``am2ico-items``: 125 selection items of 4 English words (gold) and their 4 Chinese words
  (predictions), ``examples/am2ico_items.jsonl`` (AM2iCo dev, Liu et al. 2021); the
  human matches are the pairs the annotators labelled "same meaning in context"; the judge
  sees the words without their contexts, so it errs where the context decides.
* ``am2ico-1x1``: the 500 pairs as 1×1 items: the human pass rate.
* ``multisimlex-items`` (when ``../shared/data/multisimlex_en_zh`` is there): items of 4
  English nouns and the Mandarin translations of 1–4 of them (seeded), a related concept's
  word for the others (Multi-SimLex, Vulić et al. 2020: its translators' word pairs are the
  human matches), as ``examples/glossary_en_zh.jsonl`` is built.

For each population, metric (micro F1, macro F1, the TP total; the pass rate = macro F1 of
1×1 items) and n ∈ {20, 30, 50}: ``--draws`` simple random samples of n labelled items
(``uniform``) and as many stratified ones (``stratified``: the strata of
:mod:`judge.human.design`, near-τ items sampled 3× and mid ones 1.5× their share, at least
3 per stratum). Printed per case: the PPI++ interval's coverage of the all-items human value
(target ≥ 93 % at 95 %), the human-only interval's, whether the judge-only bootstrap interval
covers it, the mean widths, n_eff = n × (width_human / width_PPI)², and the mean error of the
PPI++ estimate (unbiased: near 0).

    python benchmarks/ppi_coverage.py [--draws 1000] [--seed 0]
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
MULTISIMLEX = REPO.parent / "shared" / "data" / "multisimlex_en_zh" / "derived_en_zh_pairs.tsv"


def am2ico_rows() -> list[dict[str, str]]:
    with open(REPO / "examples" / "am2ico_word_pairs.tsv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def am2ico_items() -> tuple[list[dict[str, Any]], dict[str, list[list[str]]]]:
    """``examples/am2ico_items.jsonl`` (items of 4 consecutive pairs whose words do not repeat,
    built by ``scripts/make_examples.py``) and the annotators' matches of every item
    (``examples/am2ico_items_human.jsonl``)."""
    import json

    def lines(name: str) -> list[dict[str, Any]]:
        text = (REPO / "examples" / name).read_text(encoding="utf-8")
        return [json.loads(x) for x in text.splitlines()]

    items = [{"id": r["id"], "pred": r["pred"], "truth": r["truth"]}
             for r in lines("am2ico_items.jsonl")]
    return items, {r["id"]: r["matches"] for r in lines("am2ico_items_human.jsonl")}


def am2ico_single() -> tuple[list[dict[str, Any]], dict[str, list[list[str]]]]:
    items, human = [], {}
    for k, r in enumerate(am2ico_rows()):
        items.append({"id": f"p{k}", "pred": [r["pred"]], "truth": [r["truth"]]})
        human[f"p{k}"] = [[r["pred"], r["truth"]]] if r["label"] == "1" else []
    return items, human


def multisimlex_items(seed: int) -> tuple[list[dict[str, Any]], dict[str, list[list[str]]]]:
    with open(MULTISIMLEX, encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["pos"] == "nouns"]
    rnd = random.Random(seed)
    rnd.shuffle(rows)
    items, human = [], {}
    for k in range(0, len(rows) - 3, 4):
        group = rows[k:k + 4]
        right = rnd.randint(1, 4)  # translations; the others a related concept's word
        truth = [r["en_word1"] for r in group]
        pred = [r["zh_word1"] for r in group[:right]] + [r["zh_word2"] for r in group[right:]]
        if len(set(truth)) < 4 or len(set(pred)) < 4:
            continue
        item_id = f"m{k // 4}"
        items.append({"id": item_id, "pred": pred, "truth": truth})
        human[item_id] = [[r["zh_word1"], r["en_word1"]] for r in group[:right]]
    return items, human


def population(items: list[dict[str, Any]], human: dict[str, list[list[str]]],
               cache: Path) -> dict[str, Any]:
    """The run, the full human columns and the strata of one population."""
    import judge
    from judge.human.design import item_strata
    from judge.human.labels import ItemLabel, check_labels
    from judge.tasks.humantruth import LabelPlace
    from judge.tasks.params import Params
    from judge.tasks.registry import get_task

    result = judge.evaluate(items, judge="local", tau=0.7, cache_dir=cache, bootstrap=1000)
    record = result.record
    task = get_task("selection")
    rows = task.rows(record)
    labels = [ItemLabel(i, {"matches": m}, "", None, None, None, LabelPlace("truth"))
              for i, m in human.items()]
    checked = check_labels(labels, [r.id for r in rows], [task.row_strings(r) for r in rows],
                           task, None, "the population")
    cols = {c.metric: c for c in task.human_columns(rows, checked.truths, Params(tau=0.7))}
    return {"rows": rows, "cols": cols, "summary": record.summary,
            "strata": item_strata(task, rows, 0.7)}


def draw_stratified(strata: list[str], n: int, rng: np.random.Generator
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Indices and inclusion probabilities of a stratified sample of about n items: near-τ
    items weighted 3, mid 1.5, far 1 (proportional to share × weight), at least 3 a stratum
    (or all of a stratum smaller than that)."""
    names = list(dict.fromkeys(strata))
    members = {h: [k for k, s in enumerate(strata) if s == h] for h in names}
    weight = {"near": 3.0, "mid": 1.5, "far": 1.0}
    mass = {h: len(members[h]) * weight.get(h, 1.0) for h in names}
    total = sum(mass.values())
    idx, pi = [], []
    for h in names:
        size = len(members[h])
        n_h = min(size, max(3, round(n * mass[h] / total)))
        chosen = rng.choice(members[h], n_h, replace=False)
        idx += list(chosen)
        pi += [n_h / size] * n_h
    return np.asarray(idx), np.asarray(pi)


def study(name: str, pop: dict[str, Any], metrics: list[str], draws: int, seed: int) -> None:
    from metrics import ppi_mean

    ci95 = (pop["summary"].bootstrap or {}).get("ci95") or {}
    strata = pop["strata"]
    big_n = len(pop["rows"])
    counts = {h: strata.count(h) for h in dict.fromkeys(strata)}
    print(f"\n## {name}: {big_n} items; strata {counts}")
    print("| metric | design | n | truth | judge (covers?) | PPI++ coverage | human-only "
          "coverage | width PPI / human | n_eff | PPI mean error |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for metric in metrics:
        col = pop["cols"][metric]
        y_all = np.asarray([col.human[k] for k in range(big_n)])
        f = np.asarray(col.judge)
        truth = float(col.factor * y_all.mean())
        judge_value = pop["summary"].metrics.get(metric)
        jci = ci95.get(metric)
        judge_cell = (f"{judge_value:.3f} ({'yes' if jci and jci[0] <= truth <= jci[1] else 'no'})"
                      if judge_value is not None else "–")
        for design in ("uniform", "stratified"):
            for n in (20, 30, 50):
                rng = np.random.default_rng(seed + n)
                hit_p = hit_h = 0
                wp, wh, err = [], [], []
                for _ in range(draws):
                    if design == "uniform":
                        idx = rng.choice(big_n, n, replace=False)
                        kw: dict[str, Any] = {}
                    else:
                        idx, pi = draw_stratified(strata, n, rng)
                        kw = {"pi": pi, "strata": [strata[k] for k in idx],
                              "population_strata": strata}
                    p = ppi_mean(y_all[idx], f[idx], f, **kw).scaled(col.factor)
                    h = ppi_mean(y_all[idx], f[idx], f, lam=0.0, **kw).scaled(col.factor)
                    hit_p += p.ci[0] <= truth <= p.ci[1]
                    hit_h += h.ci[0] <= truth <= h.ci[1]
                    wp.append(p.ci[1] - p.ci[0])
                    wh.append(h.ci[1] - h.ci[0])
                    err.append(p.value - truth)
                mean_wp, mean_wh = float(np.mean(wp)), float(np.mean(wh))
                n_eff = len(idx) * (mean_wh / mean_wp) ** 2 if mean_wp > 0 else float("nan")
                print(f"| {metric} | {design} | {n} | {truth:.3f} | {judge_cell} | "
                      f"{hit_p / draws:.1%} | {hit_h / draws:.1%} | {mean_wp:.3f} / "
                      f"{mean_wh:.3f} | {n_eff:.0f} | {np.mean(err):+.4f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default=None, help="one population (am2ico-items, am2ico-1x1, "
                    "multisimlex-items)")
    a = ap.parse_args()
    sys.path.insert(0, str(REPO))
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        cases = [("am2ico-items", am2ico_items(), ["micro_f1", "macro_f1", "tp_fuzzy"]),
                 ("am2ico-1x1", am2ico_single(), ["macro_f1"])]
        if MULTISIMLEX.exists():
            cases.append(("multisimlex-items", multisimlex_items(a.seed),
                          ["micro_f1", "macro_f1", "tp_fuzzy"]))
        else:
            print(f"({MULTISIMLEX} absent: the Multi-SimLex population is skipped)")
        for name, (items, human), metrics in cases:
            if a.only and name != a.only:
                continue
            study(name, population(items, human, cache), metrics, a.draws, a.seed)
    print("\n(the 1x1 items' macro_f1 is their human pass rate)")


if __name__ == "__main__":
    main()
