"""simjudge's BFCL verdicts against the official score files of the public leaderboard archive.

For every model folder of a BFCL result archive release (the 2024-08-11 release of
github.com/HuanzhiMao/BFCL-Result holds 71 models) and every AST category (simple,
multiple_function, parallel_function, parallel_multiple_function, java, javascript, relevance),
each item is decoded and checked by simjudge exactly as ``simjudge eval --format bfcl`` does
(:func:`judge.tasks.bfclcheck.bfcl_verdict`, the model's decoder chosen from its folder name,
``--fc-matching official``), and its verdict is compared with the official score file's (an
item is wrong there iff its 1-based position is listed). Prints the per-item agreement per
category, every disagreeing item, and the per-category accuracy table of each model next to
the official one; ``--optimal`` also counts the items whose verdict changes under
``--fc-matching optimal``.

Usage::

    python benchmarks/check_bfcl_archive.py --archive BFCL-Result/2024-08-11 \\
        --data gorilla/berkeley-function-call-leaderboard/data [--models M …] [--optimal]

``--data`` is BFCL's data folder (question files and ``possible_answer/``) at gorilla commit
de8307b4 (the code and data behind that release). Java/JavaScript prompt-style items need
``pip install "simjudge[bfcl]"``. Without ``--archive``/``--data`` (or the environment
variables ``BFCL_ARCHIVE``/``BFCL_DATA``) the script says it is skipped and exits 0. Exit
status 1 when any verdict differs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from judge.tasks.bfclcheck import AST_CATEGORIES, bfcl_verdict
from judge.tasks.bfclmodels import bfcl_model


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON object on each non-empty line of ``path``."""
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def official_failures(path: Path) -> tuple[dict[str, Any], set[int]]:
    """``(summary line, 1-based positions of the failed items)`` of a BFCL score file."""
    rows = read_jsonl(path)
    return rows[0], {int(r["id"]) for r in rows[1:]}


def category_items(data: Path, category: str) -> list[tuple[str, dict[str, Any], list[Any]]]:
    """``(id, gold, schemas)`` per question of a category, in file order."""
    questions = read_jsonl(data / f"gorilla_openfunctions_v1_test_{category}.json")
    answers: dict[str, Any] = {}
    if category != "relevance":
        answers = {a["id"]: a["ground_truth"] for a in read_jsonl(
            data / "possible_answer" / f"gorilla_openfunctions_v1_test_{category}.json")}
    out = []
    for q in questions:
        fns = q["function"]
        out.append((q["id"], answers.get(q["id"], {}), fns if isinstance(fns, list) else [fns]))
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the comparison; see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--archive", type=Path, default=os.environ.get("BFCL_ARCHIVE"))
    ap.add_argument("--data", type=Path, default=os.environ.get("BFCL_DATA"))
    ap.add_argument("--models", nargs="*", help="model folders (default: all)")
    ap.add_argument("--optimal", action="store_true",
                    help="also count verdicts that change under --fc-matching optimal")
    ap.add_argument("--show", type=int, default=20, help="disagreements printed (default 20)")
    args = ap.parse_args(argv)
    if not (args.archive and args.data and (args.archive / "result").is_dir()
            and args.data.is_dir()):
        print("skipped: BFCL archive or data folder absent (give --archive and --data)")
        return 0
    items = {c: category_items(args.data, c) for c in AST_CATEGORIES}
    models = args.models or sorted(p.name for p in (args.archive / "result").iterdir()
                                   if p.is_dir())
    agree = dict.fromkeys(AST_CATEGORIES, 0)
    total = dict.fromkeys(AST_CATEGORIES, 0)
    changed = dict.fromkeys(AST_CATEGORIES, 0)
    diffs: list[str] = []
    table: list[tuple[str, dict[str, tuple[float, float]]]] = []
    started = time.process_time()
    for name in models:
        model = bfcl_model(name)
        row: dict[str, tuple[float, float]] = {}
        for cat in AST_CATEGORIES:
            results = read_jsonl(args.archive / "result" / name /
                                 f"gorilla_openfunctions_v1_test_{cat}_result.json")
            summary, failed = official_failures(args.archive / "score" / name /
                                                f"{cat}_score.json")
            by_id = {r["id"]: r["result"] for r in results}
            correct = 0
            for pos, (item_id, gold, schemas) in enumerate(items[cat], start=1):
                if item_id not in by_id:
                    raise SystemExit(f"{name}: no result for {item_id}")
                v = bfcl_verdict(by_id[item_id], cat, gold, schemas, model)
                correct += v.correct
                total[cat] += 1
                if v.correct == (pos not in failed):
                    agree[cat] += 1
                else:
                    diffs.append(f"{name} {item_id}: simjudge {v.correct} ({v.error_type}: "
                                 f"{v.message[:120]}), official {pos not in failed}")
                if args.optimal and cat != "relevance":
                    o = bfcl_verdict(by_id[item_id], cat, gold, schemas, model, "optimal")
                    changed[cat] += o.correct != v.correct
            row[cat] = (correct / len(items[cat]), float(summary["accuracy"]))
        table.append((name, row))
    seconds = time.process_time() - started
    print(f"{len(models)} models, {sum(total.values())} items, "
          f"{seconds:.1f} s CPU ({1e6 * seconds / max(1, sum(total.values())):.0f} µs/item)\n")
    print(f"{'category':28} {'agree':>7} {'items':>7} {'agreement':>9}"
          + (f" {'optimal≠':>8}" if args.optimal else ""))
    for cat in AST_CATEGORIES:
        print(f"{cat:28} {agree[cat]:7d} {total[cat]:7d} {agree[cat] / max(1, total[cat]):9.2%}"
              + (f" {changed[cat]:8d}" if args.optimal else ""))
    print(f"{'all':28} {sum(agree.values()):7d} {sum(total.values()):7d} "
          f"{sum(agree.values()) / max(1, sum(total.values())):9.2%}"
          + (f" {sum(changed.values()):8d}" if args.optimal else ""))
    print("\nper-category accuracy, simjudge / official (* = differs)")
    short = ["simple", "multiple", "parallel", "par-mult", "java", "js", "relevance"]
    print(f"{'model':42}" + "".join(f"{s:>17}" for s in short))
    for name, row in table:
        cells = "".join(f"{ours:>8.4f}/{theirs:.4f}{'*' if abs(ours - theirs) > 1e-9 else ' '}"
                        for ours, theirs in (row[c] for c in AST_CATEGORIES))
        print(f"{name[:42]:42}{cells}")
    if diffs:
        print(f"\n{len(diffs)} disagreeing item(s):")
        for d in diffs[:args.show]:
            print("  " + d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
