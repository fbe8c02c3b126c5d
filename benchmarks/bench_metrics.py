"""Benchmarks for the metrics package (prints measured figures; no pass/fail).

1. fuzzy_match on a random 1000×1000 similarity matrix (target < 0.5 s).
2. fc_score on 10,000 generated home-automation items vs the seed 003 reference loop
   (per item: jieba segmentation of both texts, a fresh ROUGE scorer, nltk BLEU), as a speed
   ratio (target ≥ 2×); both must give identical numbers.

Run: python benchmarks/bench_metrics.py
"""

from __future__ import annotations

import random
import statistics
import time
import warnings

import jieba
import numpy as np
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu
from rouge_score import rouge_scorer

from metrics import fc_score, fns2str, fuzzy_match, score_function_calls


def bench_fuzzy_match(n: int = 1000, repeats: int = 5) -> None:
    rng = np.random.default_rng(0)
    sim = rng.random((n, n))
    pred = [f"pred item {i}" for i in range(n)]
    truth = [f"gold item {j}" for j in range(n)]
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        r = fuzzy_match(pred, truth, sim, tau=0.7)
        times.append(time.perf_counter() - t0)
    print(f"fuzzy_match {n}x{n}: median {statistics.median(times):.3f} s, "
          f"min {min(times):.3f} s over {repeats} runs (target < 0.5 s); "
          f"{len(r.matches)} matches, TP_fuzzy {r.tp_fuzzy:.2f}")


ROOMS = ["客厅", "卧室", "厨房", "书房", "阳台", "卫生间", "餐厅", "儿童房"]
DEVICES = ["light_control", "ac_control", "curtain_control", "fan_control", "audio_control",
           "humidifier_control", "tv_control", "heater_control"]
ACTIONS = ["打开", "关闭", "开启", "暂停", "调高", "调低"]


def generate_items(n: int, seed: int = 0) -> list[dict]:
    rnd = random.Random(seed)
    items = []
    for _ in range(n):
        calls = []
        for _ in range(rnd.choice([1, 1, 1, 2])):
            args = {"room": rnd.choice(ROOMS), "action": rnd.choice(ACTIONS)}
            if rnd.random() < 0.3:
                args["temperature"] = str(rnd.randint(16, 30))
            calls.append({"name": rnd.choice(DEVICES), "arguments": args})
        pred = [dict(c, arguments=dict(c["arguments"])) for c in calls]
        if rnd.random() < 0.3:  # inject an argument error
            pred[0]["arguments"]["action"] = rnd.choice(ACTIONS)
        if rnd.random() < 0.05:  # wrong function name
            pred[0]["name"] = rnd.choice(DEVICES)
        items.append({"query": "", "gold_fn": calls, "pred_fn": pred})
    return items


def seed_reference_fc_score(items: list[dict]) -> dict[str, float]:
    """Seed 003's loop: per item score_fn, jieba.cut of both texts, a new scorer, BLEU."""
    smooth = SmoothingFunction().method3
    rows = []
    for item in items:
        name_acc, all_acc = score_function_calls(item["gold_fn"], item["pred_fn"])
        gold, pred = fns2str(item["gold_fn"]), fns2str(item["pred_fn"])
        ref = [t for t in jieba.cut(gold) if t.strip()]
        hyp = [t for t in jieba.cut(pred) if t.strip()]

        class _Tok:
            def tokenize(self, text: str, _m={gold: ref, pred: hyp}) -> list[str]:  # noqa: B006
                return _m[text]

        scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], tokenizer=_Tok())
        r = scorer.score(gold, pred)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bleu = sentence_bleu([ref], hyp, smoothing_function=smooth)
        rows.append([name_acc, all_acc, r["rouge1"].fmeasure, r["rouge2"].fmeasure,
                     r["rougeL"].fmeasure, bleu])
    keys = ["fn_acc_name", "fn_acc_all", "rouge-1", "rouge-2", "rouge-l", "bleu-4"]
    means = np.mean(np.array(rows), axis=0)
    rounded = {k: round(float(v), 5) for k, v in zip(keys, means, strict=True)}
    return {"eval_size": len(items), **rounded}


def bench_fc_score(n: int = 10_000) -> None:
    items = generate_items(n)
    jieba.initialize()  # dictionary load is excluded from both timings
    fc_score(generate_items(1, seed=1))  # so are the (lazy) nltk / rouge-score imports
    t0 = time.perf_counter()
    ref = seed_reference_fc_score(items)
    t_ref = time.perf_counter() - t0
    from metrics.tokenize import _jieba_cached

    _jieba_cached.cache_clear()  # start ours cold as well
    t0 = time.perf_counter()
    ours = fc_score(items)
    t_ours = time.perf_counter() - t0
    same = ours == ref
    print(f"fc_score {n} items: ours {t_ours:.2f} s, seed reference loop {t_ref:.2f} s, "
          f"ratio {t_ref / t_ours:.1f}x (target >= 2x); identical results: {same}")
    print(f"  results: {ours}")
    if not same:
        print(f"  reference: {ref}")


if __name__ == "__main__":
    bench_fuzzy_match()
    bench_fc_score()
