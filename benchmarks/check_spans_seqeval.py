"""Check ``metrics.spans`` (and ``--task spans``) against seqeval's strict span F1 on real data.

Data: the WNUT-17 Emerging and Rare Entities test set (gold ``emerging.test.annotated``, 1,287
sentences, 23,394 tokens, 6 entity types) and the shared task's seven system submissions
(``submissions/*``: tokens + predicted IOB2 tags), from <https://github.com/leondz/emerging_entities_17>
(commit e52a2d2), CC-BY 4.0 — Derczynski, Nichols, van Erp, Limsopatham (2017), "Results of the
WNUT2017 Shared Task on Novel and Emerging Entity Recognition", W-NUT at EMNLP.

Method, per submission: each sentence is an item whose text is its gold tokens joined by one
space (``mic-cis.txt`` rewrote some tokens — "gt" → "get" — but keeps every position, so the
gold tokens give both sides' offsets); spans are the strict IOB2 chunks (``B-X I-X*``; an
``I-X`` that does not continue an X chunk starts none — seqeval's strict mode), checked to be
exactly seqeval's own ``Entities(..., IOB2)``. Then

1. :func:`metrics.spans.span_match` at τ = 1 with *every* judge score set to 1.0 (the highest
   a judge can give: a fuzzy match needs a score strictly greater than τ, so only exact spans
   count) → micro P/R/F1, macro P/R/F1 and per-type F1;
2. ``SpansTask`` end to end (``load`` from JSONL, ``judge`` with the ``lexical`` judge,
   ``score``) at τ = 1 → the same figures (and, for information, micro F1 at τ = 0.5);
3. seqeval 1.2.2 ``precision/recall/f1_score(mode="strict", scheme=IOB2)`` micro and macro and
   ``classification_report(..., output_dict=True)`` per type.

Every figure must agree to 1e-9 (the script exits 1 otherwise).

Get the data and run (seqeval is needed here only; it is not a simjudge dependency)::

    git clone https://github.com/leondz/emerging_entities_17 /tmp/emerging_entities_17
    pip install seqeval==1.2.2
    python benchmarks/check_spans_seqeval.py /tmp/emerging_entities_17

Figures printed (seqeval 1.2.2, numpy 2.4.6): micro P/R/F1, macro F1, per-type strict F1
(corporation, creative-work, group, location, person, product), then — not a seqeval figure —
our fuzzy micro F1 with the ``lexical`` judge at τ = 0.5 (``lex.5``). The largest
|ours − seqeval| over every figure of every submission, for both of our paths, is 0::

    system        P      R      F1     macroF1 corpor creati group  locati person produc lex.5
    arcada        0.4740 0.3457 0.3998 0.2946  0.1860 0.1505 0.2353 0.4738 0.5588 0.1628 0.4353
    drexel_cci    0.5039 0.1779 0.2630 0.1491  0.0000 0.0000 0.0000 0.4390 0.3811 0.0746 0.2993
    flytxt        0.4792 0.3197 0.3835 0.2639  0.1400 0.1846 0.1538 0.4187 0.5832 0.1029 0.4063
    mic-cis       0.4157 0.3383 0.3730 0.2840  0.1560 0.1523 0.2846 0.4615 0.5036 0.1458 0.4016
    sjtu_adapt    0.5021 0.3383 0.4042 0.2924  0.2906 0.0408 0.2480 0.4298 0.5921 0.1530 0.4291
    spinningbytes 0.4886 0.3577 0.4131 0.2713  0.0994 0.1488 0.1531 0.5227 0.6251 0.0784 0.4590
    uh_ritual     0.5754 0.3290 0.4186 0.3158  0.2655 0.1279 0.2414 0.5286 0.5866 0.1446 0.4533
    max |ours - seqeval| over every figure: 0 (tolerance 1e-09)

``--excerpt uh_ritual -n 18`` wrote ``tests/fixtures/spans/wnut17_uh_ritual.{conll,jsonl}`` (the
first 18 test sentences holding a gold or predicted entity) and printed seqeval's figures on
it, which ``tests/metrics/test_spans.py`` asserts.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from metrics.spans import as_spans, by_type, counts_of, span_match, span_scores, sum_counts

TOL = 1e-9


def read_conll(path: Path) -> list[list[tuple[str, str]]]:
    """Sentences of ``token<TAB or space>tag`` lines, blank-line separated (CR dropped)."""
    sents: list[list[tuple[str, str]]] = []
    cur: list[tuple[str, str]] = []
    for line in path.read_text(encoding="utf-8").replace("\r", "").split("\n"):
        if not line.strip():
            if cur:
                sents.append(cur)
                cur = []
            continue
        parts = line.split()
        cur.append((parts[0], parts[-1]))
    if cur:
        sents.append(cur)
    return sents


def chunks(tags: list[str]) -> list[tuple[str, int, int]]:
    """Strict IOB2 chunks ``(type, first token, end token exclusive)``: ``B-X`` then ``I-X``."""
    out = []
    k = 0
    while k < len(tags):
        if tags[k].startswith("B-"):
            typ, end = tags[k][2:], k + 1
            while end < len(tags) and tags[end] == f"I-{typ}":
                end += 1
            out.append((typ, k, end))
            k = end
        else:
            k += 1
    return out


def to_spans(tokens: list[str], tags: list[str]) -> list[dict[str, Any]]:
    """Chunks as character spans over ``" ".join(tokens)``."""
    starts = np.cumsum([0] + [len(t) + 1 for t in tokens])
    text = " ".join(tokens)
    spans = []
    for typ, a, b in chunks(tags):
        s, e = int(starts[a]), int(starts[b - 1] + len(tokens[b - 1]))
        spans.append({"start": s, "end": e, "type": typ, "text": text[s:e]})
    return spans


def ours_metrics(gold: list[list[dict[str, Any]]], pred: list[list[dict[str, Any]]],
                 ) -> dict[str, Any]:
    """metrics.spans at τ = 1 with every judge score 1.0."""
    counts = []
    for p, t in zip(pred, gold, strict=True):
        ps, ts = as_spans(p, "pred"), as_spans(t, "truth")
        sims = {typ: np.ones((len(ip), len(it))) for typ, (ip, it) in by_type(ps, ts).items()}
        counts.append(counts_of(span_match(ps, ts, sims, tau=1.0)))
    return span_scores(sum_counts(counts))


def task_metrics(gold: list[list[dict[str, Any]]], pred: list[list[dict[str, Any]]],
                 taus: tuple[float, ...]) -> list[dict[str, Any]]:
    """``SpansTask`` load → judge (lexical) → score, at each τ."""
    from judge.cache import JudgeCache
    from judge.judges.base import JudgeContext
    from judge.judges.lexical import LexicalJudge
    from judge.tasks.base import Params, Source
    from judge.tasks.registry import get_task

    task = get_task("spans")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "items.jsonl"
        path.write_text("".join(json.dumps({"id": k, "pred": p, "truth": t}) + "\n"
                                for k, (p, t) in enumerate(zip(pred, gold, strict=True))))
        items = task.load(Source(path, max_chars=0))
        ctx = JudgeContext(cache=JudgeCache(Path(tmp) / "cache", "off"))
        judged = asyncio.run(task.judge(items, LexicalJudge(), ctx, Params(tau=taus[0])))
        return [task.score(items, judged, Params(tau=tau))[1] for tau in taus]


def seqeval_metrics(gold_tags: list[list[str]], pred_tags: list[list[str]]) -> dict[str, Any]:
    """seqeval strict IOB2: micro and macro P/R/F1 and per-type F1."""
    from seqeval.metrics import classification_report, f1_score, precision_score, recall_score
    from seqeval.scheme import IOB2

    kw: dict[str, Any] = {"mode": "strict", "scheme": IOB2, "zero_division": 0}
    rep = classification_report(gold_tags, pred_tags, output_dict=True, **kw)
    return {
        "micro_precision": precision_score(gold_tags, pred_tags, average="micro", **kw),
        "micro_recall": recall_score(gold_tags, pred_tags, average="micro", **kw),
        "micro_f1": f1_score(gold_tags, pred_tags, average="micro", **kw),
        "macro_precision": precision_score(gold_tags, pred_tags, average="macro", **kw),
        "macro_recall": recall_score(gold_tags, pred_tags, average="macro", **kw),
        "macro_f1": f1_score(gold_tags, pred_tags, average="macro", **kw),
        "per_type_f1": {k: v["f1-score"] for k, v in rep.items() if "avg" not in k},
    }


def seqeval_entities(tags: list[list[str]]) -> set[tuple[int, str, int, int]]:
    """seqeval's own strict IOB2 entities ``(sentence, type, start, end)``."""
    from seqeval.scheme import IOB2, Entities

    return {x.to_tuple() for sent in Entities(tags, IOB2).entities for x in sent}


def compare(name: str, ref: dict[str, Any], got: dict[str, Any]) -> float:
    """Largest |difference| between our figures and seqeval's (types must be the same)."""
    if set(ref["per_type_f1"]) != set(got["per_type"]):
        raise SystemExit(f"{name}: types differ: {sorted(ref['per_type_f1'])} vs "
                         f"{sorted(got['per_type'])}")
    diffs = [abs(ref[k] - got[k]) for k in ("micro_precision", "micro_recall", "micro_f1",
                                            "macro_precision", "macro_recall", "macro_f1")]
    diffs += [abs(ref["per_type_f1"][t] - got["per_type"][t]["f1"]) for t in ref["per_type_f1"]]
    return max(diffs)


def load(repo: Path, system: str) -> tuple[list[list[str]], list[list[str]], list[list[str]]]:
    """``(tokens, gold tags, predicted tags)`` per sentence of one submission."""
    gold_sents = read_conll(repo / "emerging.test.annotated")
    sents = read_conll(repo / "submissions" / system)
    if [len(s) for s in sents] != [len(s) for s in gold_sents]:
        raise SystemExit(f"{system}: sentences do not align with the gold file")
    return ([[w for w, _ in s] for s in gold_sents], [[t for _, t in s] for s in gold_sents],
            [[t for _, t in s] for s in sents])


def check(repo: Path) -> int:
    """Compare every submission; print the figures; 0 when all agree within :data:`TOL`."""
    worst = 0.0
    types: list[str] = []
    for sub in sorted((repo / "submissions").iterdir()):
        tokens, gold_tags, pred_tags = load(repo, sub.name)
        gold = [to_spans(w, t) for w, t in zip(tokens, gold_tags, strict=True)]
        pred = [to_spans(w, t) for w, t in zip(tokens, pred_tags, strict=True)]
        for side, tags, spans in (("gold", gold_tags, gold), ("pred", pred_tags, pred)):
            ours = {(k, typ, a, b) for k, t in enumerate(tags) for typ, a, b in chunks(t)}
            if ours != seqeval_entities(tags) or sum(map(len, spans)) != len(ours):
                raise SystemExit(f"{sub.name}: our {side} chunks differ from seqeval's")
        ref = seqeval_metrics(gold_tags, pred_tags)
        at1, at05 = task_metrics(gold, pred, (1.0, 0.5))
        worst = max(worst, compare(sub.name, ref, ours_metrics(gold, pred)),
                    compare(sub.name + " (task)", ref, at1))
        if not types:
            types = sorted(ref["per_type_f1"])
            print(f"{'system':<14}{'P':<7}{'R':<7}{'F1':<7}{'macroF1':<8}"
                  + "".join(f"{t[:6]:<7}" for t in types) + "lex.5")
        print(f"{Path(sub.name).stem:<14}{ref['micro_precision']:<7.4f}"
              f"{ref['micro_recall']:<7.4f}{ref['micro_f1']:<7.4f}{ref['macro_f1']:<8.4f}"
              + "".join(f"{ref['per_type_f1'][t]:<7.4f}" for t in types)
              + f"{at05['micro_f1']:.4f}")
    print(f"max |ours - seqeval| over every figure: {worst:.3g} (tolerance {TOL:g})")
    return 0 if worst <= TOL else 1


def excerpt(repo: Path, system: str, n: int, out: Path) -> int:
    """Write the first ``n`` sentences holding a gold or predicted entity as a three-column
    CoNLL file (token, gold, prediction) and as spans JSONL; print seqeval's strict figures."""
    tokens, gold_tags, pred_tags = load(repo, system)
    keep = [k for k in range(len(tokens)) if chunks(gold_tags[k]) or chunks(pred_tags[k])][:n]
    out.mkdir(parents=True, exist_ok=True)
    stem = f"wnut17_{Path(system).stem}"
    with open(out / f"{stem}.conll", "w", encoding="utf-8") as fh:
        for k in keep:
            fh.writelines(f"{w}\t{g}\t{p}\n" for w, g, p in
                          zip(tokens[k], gold_tags[k], pred_tags[k], strict=True))
            fh.write("\n")
    with open(out / f"{stem}.jsonl", "w", encoding="utf-8") as fh:
        for k in keep:
            fh.write(json.dumps({"id": f"test-{k}", "text": " ".join(tokens[k]),
                                 "pred": to_spans(tokens[k], pred_tags[k]),
                                 "truth": to_spans(tokens[k], gold_tags[k])},
                                ensure_ascii=False) + "\n")
    ref = seqeval_metrics([gold_tags[k] for k in keep], [pred_tags[k] for k in keep])
    print(f"{len(keep)} sentences → {out}/{stem}.{{conll,jsonl}}")
    print(json.dumps(ref, indent=1))
    return 0


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo", type=Path, help="a checkout of leondz/emerging_entities_17")
    ap.add_argument("--excerpt", metavar="SYSTEM", help="write an excerpt of this submission")
    ap.add_argument("-n", type=int, default=40, help="sentences in the excerpt (default 40)")
    ap.add_argument("--out", type=Path, default=Path("tests/fixtures/spans"))
    a = ap.parse_args()
    sys.exit(excerpt(a.repo, a.excerpt, a.n, a.out) if a.excerpt else check(a.repo))
