"""Write the small BFCL sample of ``tests/fixtures/bfcl/``: per decoder family one model of the
BFCL-Result archive, a few items of each AST category, copied verbatim.

For each decoder family of :data:`judge.tasks.bfclmodels.FAMILIES` present in the archive
(all but ``generic``, simjudge's own), the model in :data:`CHOSEN` and, per AST category, the
item with the shortest result-plus-question line among the items the official score file marks
wrong (``simple``, ``parallel_function``, ``java``, ``relevance``) or right (the other three),
the other verdict when the category has none; one more ``simple`` item with the other verdict;
where :data:`FEATURES` names one, the shortest item showing the family's decoding quirk; and,
for each decoder of :data:`NEIGHBOURS` that the items so far cannot tell from the family's own,
the shortest item where the two give different verdicts (when the model has one).
Copied verbatim: the result lines, the score files' summary lines and the entries of the
sampled items they list, and the question and possible-answer lines those items need.

Usage::

    python scripts/make_bfcl_fixture.py --archive BFCL-Result/2024-08-11 \\
        --data gorilla/berkeley-function-call-leaderboard/data --out tests/fixtures/bfcl

Inputs: github.com/HuanzhiMao/BFCL-Result at b4adfc9b (release folder 2024-08-11) and
github.com/ShishirPatil/gorilla at de8307b4 (``berkeley-function-call-leaderboard/data``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judge.tasks.bfclcheck import AST_CATEGORIES, bfcl_verdict
from judge.tasks.bfclmodels import BfclModel, bfcl_model

CHOSEN = {
    "python": "gpt-4o-2024-05-13", "fc-json": "gpt-4o-2024-05-13-FC",
    "claude-prompt": "claude-instant-1.2", "mistral-prompt": "mistral-medium-2312",
    "gorilla": "gorilla-openfunctions-v2", "nexus": "Nexusflow-Raven-v2",
    "gemini": "gemini-1.5-pro-preview-0514", "gemma": "google_gemma-7b-it",
    "deepseek": "deepseek-ai_deepseek-coder-6.7b-instruct",
    "databricks": "databricks-dbrx-instruct", "hermes": "NousResearch_Hermes-2-Pro-Llama-3-8B",
    "llama": "meta-llama_Meta-Llama-3-8B-Instruct", "cohere-fc": "command-r-plus-FC",
    "bracketed": "command-r-plus", "nvidia": "nvidia_nemotron-4-340b-instruct",
    "granite": "ibm-granite_granite-20b-functioncalling", "glm": "THUDM_glm-4-9b-chat",
    "xlam": "Salesforce_xLAM-7b-fc-r"}
"""Decoder family → the archive's model folder sampled for it."""

PREFER_WRONG = ("simple", "parallel_function", "java", "relevance")
"""Categories whose sampled item is one the official score file marks wrong (when it has one)."""


def _text(pattern: str) -> Callable[[Any], bool]:
    return lambda r: isinstance(r, str) and re.search(pattern, r, re.DOTALL) is not None


FEATURES: dict[str, tuple[Callable[[Any], bool], ...]] = {
    "llama": (_text(r"^\s*\[[^\]]*\([^\]]*\)\s*$"),          # the closing ] missing
              _text(r"=\s*\d+\s*[-+*/]\s*\d")),                # arithmetic folded
    "python": (_text(r"^```"),),                               # a fenced answer: not parsed
    "mistral-prompt": (_text(r"\\_"),),
    "nexus": (_text("out_of_domain"),),
    "nvidia": (_text(r"^\['"),),
    "databricks": (_text("'"),),
    "gorilla": (_text(r"=\[\]"),),
    "granite": (_text("no_function"),),
}
"""Per family, the decoding quirk one more sampled item shows (missing ``]``, ``\\_``, …)."""

NEIGHBOURS = ("python", "generic", "fc-json", "llama", "claude-prompt")
"""Decoders each family's sample must tell apart from its own (a few items are added where
needed)."""

PREFIX = "gorilla_openfunctions_v1_test_"


def lines(path: Path) -> list[str]:
    """The non-empty lines of ``path``, each without its newline."""
    return [x for x in path.read_text(encoding="utf-8").split("\n") if x.strip()]


def position(item_id: str) -> int:
    """The 1-based position of ``category_N`` in its question file: N + 1 (checked below)."""
    return int(item_id.rsplit("_", 1)[1]) + 1


def _add_discriminating(picked: dict[str, set[str]], family: str, model: str,
                        results: dict[str, dict[str, str]], questions: dict[str, list[str]],
                        answers: dict[str, list[str]]) -> None:
    """For each decoder of :data:`NEIGHBOURS` that gives every picked item the same verdict as
    ``family``'s own, add the shortest item of the model where the two verdicts differ (so
    that the sample tells the two decoders apart), when the archive has one."""
    own = bfcl_model(model)

    def verdict(m: BfclModel, cat: str, item_id: str) -> bool:
        q = json.loads(questions[cat][position(item_id) - 1])
        gold = ({} if cat == "relevance"
                else json.loads(answers[cat][position(item_id) - 1])["ground_truth"])
        fns = q["function"] if isinstance(q["function"], list) else [q["function"]]
        return bfcl_verdict(json.loads(results[cat][item_id])["result"], cat, gold, fns,
                            m).correct

    for other in NEIGHBOURS:
        if other == family:
            continue
        swapped = dataclasses.replace(own, family=other)
        if any(verdict(own, c, i) != verdict(swapped, c, i) for c in picked for i in picked[c]):
            continue
        found = sorted((len(r), c, i) for c in AST_CATEGORIES for i, r in results[c].items()
                       if verdict(own, c, i) != verdict(swapped, c, i))
        if found:
            picked[found[0][1]].add(found[0][2])


def main(argv: list[str] | None = None) -> int:
    """Write the sample; see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--archive", type=Path, required=True)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    questions = {c: lines(args.data / f"{PREFIX}{c}.json") for c in AST_CATEGORIES}
    answers = {c: lines(args.data / "possible_answer" / f"{PREFIX}{c}.json")
               for c in AST_CATEGORIES if c != "relevance"}
    for c, qs in [*questions.items(), *answers.items()]:  # score "id": the 1-based position
        assert all(position(json.loads(q)["id"]) == k for k, q in enumerate(qs, 1)), c
    needed: dict[str, set[str]] = {c: set() for c in AST_CATEGORIES}
    for d in ("result", "score", "data"):
        shutil.rmtree(args.out / d, ignore_errors=True)
    for family, model in CHOSEN.items():
        picked: dict[str, set[str]] = {c: set() for c in AST_CATEGORIES}
        results: dict[str, dict[str, str]] = {}
        failed: dict[str, dict[int, str]] = {}
        summary: dict[str, str] = {}
        for c in AST_CATEGORIES:
            results[c] = {json.loads(x)["id"]: x for x in lines(
                args.archive / "result" / model / f"{PREFIX}{c}_result.json")}
            score = lines(args.archive / "score" / model / f"{c}_score.json")
            summary[c] = score[0]
            failed[c] = {json.loads(x)["id"]: x for x in score[1:]}
            size = {i: len(r) + len(questions[c][position(i) - 1]) for i, r in results[c].items()}
            wrong = sorted((i for i in results[c] if position(i) in failed[c]), key=size.get)
            right = sorted((i for i in results[c] if position(i) not in failed[c]), key=size.get)
            first, second = (wrong, right) if c in PREFER_WRONG else (right, wrong)
            picked[c].add((first or second)[0])
            if c == "simple" and second:
                picked[c].add(second[0])
        for feature in FEATURES.get(family, ()):
            found = sorted(((len(r), c, i) for c in AST_CATEGORIES
                            for i, r in results[c].items() if feature(json.loads(r)["result"])))
            if found:
                picked[found[0][1]].add(found[0][2])
        _add_discriminating(picked, family, model, results, questions, answers)
        for c in AST_CATEGORIES:
            ids = sorted(picked[c], key=position)
            needed[c].update(ids)
            out = args.out / "result" / model / f"{PREFIX}{c}_result.json"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text("".join(results[c][i] + "\n" for i in ids), encoding="utf-8")
            score_out = args.out / "score" / model / f"{c}_score.json"
            score_out.parent.mkdir(parents=True, exist_ok=True)
            score_out.write_text("".join(x + "\n" for x in [summary[c]] + [
                failed[c][position(i)] for i in ids if position(i) in failed[c]]),
                encoding="utf-8")
    for c in AST_CATEGORIES:
        ids = sorted(needed[c], key=position)
        q = args.out / "data" / f"{PREFIX}{c}.json"
        q.parent.mkdir(parents=True, exist_ok=True)
        q.write_text("".join(questions[c][position(i) - 1] + "\n" for i in ids), encoding="utf-8")
        if c != "relevance":
            a = args.out / "data" / "possible_answer" / f"{PREFIX}{c}.json"
            a.parent.mkdir(parents=True, exist_ok=True)
            a.write_text("".join(answers[c][position(i) - 1] + "\n" for i in ids),
                         encoding="utf-8")
    total = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"{sum(len(v) for v in needed.values())} distinct items, {total:,} bytes in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
