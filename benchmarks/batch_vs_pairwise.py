"""Agreement of the batch scorer with the pairwise scorer on the same pairs, with a real model.

``entity_similarity_batch@v1`` judges one anchor string against up to ``--max-batch`` strings
of the other side per request; ``entity_similarity@v1`` judges one (pred, truth) pair per
request. Both score the same distinct non-exact pairs of the IFPUG selection runs
(``../shared/data/ifpug/ilf_runs.jsonl``, the pairs ``simjudge eval`` would judge; an optional
seeded subset) through one OpenAI-compatible server, and the script prints, per scorer: the
calls made, cache hits, outcomes (``ok`` / ``parse_error`` / ``transport_error`` / ``refused`` /
no verdict) and wall seconds; then, over the pairs both scored ``ok``: Cohen's κ of the match
decisions at τ (match = score > τ, the IFPUG rule; :func:`metrics.cohen_kappa`, cross-checked
against ``sklearn.metrics.cohen_kappa_score``), Spearman's ρ (``scipy.stats.spearmanr``), the
mean |Δ| of the scores and how many pairs fall on opposite sides of τ.

Answers are cached (``--cache-dir``), so a rerun makes no call. Temperature 0 by default. A
llama.cpp-style server answers one request at a time: keep ``--concurrency`` low and
``--timeout`` long, or queued requests time out.

Run (llama-cpp-python's server on loopback, see scripts/record_cassettes.sh)::

    python benchmarks/batch_vs_pairwise.py --base-url http://127.0.0.1:8765/v1 \\
        --model SmolLM2-135M-Instruct
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judge import aio  # noqa: E402
from judge.cache import JudgeCache  # noqa: E402
from judge.judges.base import Judge, JudgeContext, Pair  # noqa: E402
from judge.judges.options import JudgeOptions  # noqa: E402
from judge.judges.registry import parse_judge_spec  # noqa: E402
from judge.matrix import distinct_pairs  # noqa: E402
from judge.tasks.base import Source  # noqa: E402
from judge.tasks.registry import get_task  # noqa: E402
from metrics import cohen_kappa, spearman  # noqa: E402

IFPUG = REPO.parent / "shared" / "data" / "ifpug" / "ilf_runs.jsonl"
PAIRWISE = "entity_similarity@v1"
BATCH = "entity_similarity_batch@v1"


@dataclass
class ScorerRun:
    """One scorer's pass over the pairs.

    Attributes:
        scorer: scorer id (``name@version``).
        scores: per pair (aligned with the input pairs), the score in [0, 1] or None when the
            judge gave no ``ok`` verdict.
        outcomes: verdict outcome → pair count (``none`` = no verdict at all).
        calls: model calls made (cache hits excluded).
        cache_hits: requests answered from the cache.
        requests: requests the scorer forms for these pairs (calls + hits when nothing failed).
        wall_s: wall-clock seconds of the pass.
        tokens_in, tokens_out: token usage of the calls made.
        first_errors: up to three failure rationales, for the report.
    """

    scorer: str
    scores: list[float | None]
    outcomes: dict[str, int]
    calls: int
    cache_hits: int
    requests: int
    wall_s: float
    tokens_in: int = 0
    tokens_out: int = 0
    first_errors: list[str] = field(default_factory=list)


def load_pairs(data: Path, sample: int, seed: int) -> tuple[list[Pair], int]:
    """The distinct non-exact (pred, truth) pairs of the IFPUG ``ilf_selection`` records.

    Args:
        data: ``ilf_runs.jsonl`` (fields ``final_answer``, ``ground_truth``, ``run``,
            ``doc_id``, ``task``).
        sample: keep a seeded random subset of this many pairs (0 or >= the total = all,
            in first-seen order).
        seed: seed of that subset (``random.Random(seed).sample``).

    Returns:
        ``(pairs, total distinct pairs before sampling)``.

    Raises:
        judge.errors.InputError: unreadable or malformed data (from the task's loader).
    """
    items = get_task("selection").load(Source(data, pred_field="final_answer",
                                              truth_field="ground_truth",
                                              id_fields=("run", "doc_id"),
                                              where=("task=ilf_selection",)))
    pairs = distinct_pairs([(i.pred, i.truth) for i in items])[0]
    if 0 < sample < len(pairs):
        keep = set(random.Random(seed).sample(range(len(pairs)), sample))
        return [p for k, p in enumerate(pairs) if k in keep], len(pairs)
    return pairs, len(pairs)


def score_with(judge: Judge, pairs: Sequence[Pair], cache: JudgeCache,
               scorer: str) -> ScorerRun:
    """Judge ``pairs`` once with ``judge`` through ``cache``, timing the pass.

    Returns:
        The :class:`ScorerRun` (scores aligned with ``pairs``; None where not ``ok``).
    """
    ctx = JudgeContext(cache=cache)
    requests = judge.work_units(pairs)
    t0 = time.perf_counter()
    verdicts = aio.run(judge.judge_pairs(pairs, ctx))
    wall = time.perf_counter() - t0
    outcomes: Counter[str] = Counter()
    scores: list[float | None] = []
    errors: list[str] = []
    for v in verdicts:
        if v is None:
            outcomes["none"] += 1
            scores.append(None)
            continue
        outcomes[v.outcome] += 1
        ok = v.outcome == "ok" and v.score is not None
        scores.append(float(v.score) if ok and v.score is not None else None)
        if not ok and len(errors) < 3:
            errors.append(f"{v.outcome}: {v.rationale[:160]}")
    return ScorerRun(scorer, scores, dict(outcomes), ctx.stats.judge_calls,
                     ctx.stats.cache_hits, requests, wall, ctx.stats.tokens_in,
                     ctx.stats.tokens_out, errors)


def agreement(a: Sequence[float | None], b: Sequence[float | None],
              tau: float) -> dict[str, Any]:
    """Agreement of two scorers over the pairs both scored.

    Args:
        a, b: aligned scores in [0, 1], None where a scorer has no ``ok`` verdict.
        tau: match threshold: a pair matches when its score is strictly greater than ``tau``.

    Returns:
        ``both_ok`` (pairs compared), ``kappa`` (:func:`metrics.cohen_kappa` of the match
        decisions; NaN when undefined), ``kappa_sklearn`` (the same by
        ``sklearn.metrics.cohen_kappa_score``), ``spearman`` (ρ; NaN when a side is constant),
        ``mean_abs_delta`` (mean |a − b|), ``opposite_sides`` (pairs matched by exactly one
        scorer), ``match_a`` / ``match_b`` (pairs each scorer matches) and ``confusion``
        (``{"both", "a_only", "b_only", "neither"}`` counts). With no pair both scored every
        number is NaN and every count 0.
    """
    from sklearn.metrics import cohen_kappa_score

    both = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    nan = float("nan")
    out: dict[str, Any] = {"both_ok": len(both), "kappa": nan, "kappa_sklearn": nan,
                           "spearman": nan, "mean_abs_delta": nan, "opposite_sides": 0,
                           "match_a": 0, "match_b": 0,
                           "confusion": {"both": 0, "a_only": 0, "b_only": 0, "neither": 0}}
    if not both:
        return out
    xa = [x for x, _ in both]
    xb = [y for _, y in both]
    ma = [x > tau for x in xa]
    mb = [y > tau for y in xb]
    out["kappa"] = cohen_kappa(ma, mb)
    if len(set(ma) | set(mb)) > 1:  # sklearn warns and returns NaN for one shared label
        out["kappa_sklearn"] = float(cohen_kappa_score(ma, mb))
    out["spearman"] = spearman(xa, xb) if len(both) >= 2 else nan
    out["mean_abs_delta"] = sum(abs(x - y) for x, y in both) / len(both)
    out["opposite_sides"] = sum(p != q for p, q in zip(ma, mb, strict=True))
    out["match_a"] = sum(ma)
    out["match_b"] = sum(mb)
    out["confusion"] = {"both": sum(p and q for p, q in zip(ma, mb, strict=True)),
                        "a_only": sum(p and not q for p, q in zip(ma, mb, strict=True)),
                        "b_only": sum(q and not p for p, q in zip(ma, mb, strict=True)),
                        "neither": sum(not p and not q for p, q in zip(ma, mb, strict=True))}
    return out


def _fmt(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.3f}"


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (see the module docstring); returns the exit status
    (2 when the data file is missing)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base-url", required=True, help="OpenAI-compatible endpoint (…/v1)")
    ap.add_argument("--model", required=True, help="model name as the server knows it")
    ap.add_argument("--data", type=Path, default=IFPUG, help="IFPUG ilf_runs.jsonl")
    ap.add_argument("--sample", type=int, default=0,
                    help="seeded subset of this many distinct pairs (0 = all)")
    ap.add_argument("--seed", type=int, default=0, help="seed of --sample")
    ap.add_argument("--cache-dir", type=Path, default=Path(".cache/batch_vs_pairwise"),
                    help="answer cache: a rerun with the same settings makes no call")
    ap.add_argument("--tau", type=float, default=0.7, help="match = score > tau")
    ap.add_argument("--max-batch", type=int, default=20, help="items per batch request")
    ap.add_argument("--concurrency", type=int, default=1, help="calls in flight")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per request")
    ap.add_argument("--temperature", type=float, default=0.0)
    ap.add_argument("--max-tokens", type=int, default=None,
                    help="completion cap per request (default: the server's)")
    ap.add_argument("--context", default="", help="task context given to both scorers")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = ap.parse_args(argv)
    if not args.data.exists():
        print(f"skipped: {args.data} not found")
        return 2
    pairs, total = load_pairs(args.data, args.sample, args.seed)
    print(f"pairs: {len(pairs)} distinct non-exact IFPUG pairs"
          + (f" (seeded subset, seed {args.seed}, of {total})" if len(pairs) < total else "")
          + f"; {len({p for p, _ in pairs})} distinct predictions, "
          f"{len({t for _, t in pairs})} distinct gold names")
    params: dict[str, Any] = {"temperature": args.temperature}
    if args.max_tokens is not None:
        params["max_tokens"] = args.max_tokens
    cache = JudgeCache(args.cache_dir)
    runs: dict[str, ScorerRun] = {}
    for scorer in (PAIRWISE, BATCH):
        judge = parse_judge_spec(f"openai:{args.model}", JudgeOptions(
            base_url=args.base_url, scorer=scorer, params=dict(params),
            concurrency=args.concurrency, max_batch=args.max_batch, timeout_s=args.timeout,
            max_retries=0))
        run = runs[scorer] = score_with(judge, pairs, cache, scorer)
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(run.outcomes.items()))
        print(f"{scorer}: {run.requests} requests → {run.calls} calls made, "
              f"{run.cache_hits} cache hits; {run.tokens_in} prompt + {run.tokens_out} "
              f"completion tokens; {run.wall_s:.1f} s wall; pairs: {outcomes}")
        for e in run.first_errors:
            print(f"    e.g. {e}")
    pw, bt = runs[PAIRWISE], runs[BATCH]
    if bt.requests:
        print(f"requests: pairwise {pw.requests} / batch {bt.requests} = "
              f"{pw.requests / bt.requests:.1f}x fewer with the batch scorer")
    ag = agreement(pw.scores, bt.scores, args.tau)
    c = ag["confusion"]
    print(f"agreement over the {ag['both_ok']} pairs both scorers scored ok "
          f"(match = score > {args.tau}):")
    print(f"  Cohen's kappa {_fmt(ag['kappa'])} (sklearn {_fmt(ag['kappa_sklearn'])}); "
          f"Spearman {_fmt(ag['spearman'])}; mean |delta| {_fmt(ag['mean_abs_delta'])}")
    print(f"  opposite sides of tau: {ag['opposite_sides']}; matches: pairwise "
          f"{ag['match_a']}, batch {ag['match_b']} (both {c['both']}, pairwise only "
          f"{c['a_only']}, batch only {c['b_only']}, neither {c['neither']})")
    if args.json is not None:
        args.json.write_text(json.dumps({
            "model": args.model, "base_url": args.base_url, "pairs": len(pairs),
            "pairs_total": total, "sample": args.sample, "seed": args.seed, "tau": args.tau,
            "params": params, "max_batch": args.max_batch,
            "scorers": {s: {k: v for k, v in vars(r).items() if k != "scores"}
                        for s, r in runs.items()},
            "agreement": ag}, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
