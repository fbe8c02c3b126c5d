"""Did a change alter what simjudge writes? Six runs written by two trees, compared.

For performance work, whose outputs must stay the same:

    PYTHONHASHSEED=0 python benchmarks/check_same_outputs.py make DIR_A [--tree TREE_A]
    PYTHONHASHSEED=0 python benchmarks/check_same_outputs.py make DIR_B [--tree TREE_B]
    python benchmarks/check_same_outputs.py diff DIR_A DIR_B

``make`` writes, with the tree's own command line run in this process:

* ``local10k`` / ``local10k_b``: 10,000 pairs of ``bench_local_judge.make_pairs``, ``--judge
  local`` with the encoder stubbed (``bench_local_overhead.stub_encoder``; ``PYTHONHASHSEED=0``
  fixes its vectors), ``--cache-mode off``, ``--bootstrap 0`` / ``200``;
* ``gloss_lex`` / ``gloss_loc``: ``examples/glossary_en_zh.jsonl`` with ``--judge lexical`` /
  ``--judge local`` (the real encoder, cache off);
* ``am2ico``: ``examples/am2ico_items.jsonl`` (125 items of 4×4 matrices), ``lexical``;
* ``spans``: ``examples/spans_ner.jsonl --task spans``, ``lexical``.

``diff`` compares ``verdicts.jsonl``, ``items.jsonl``, ``summary.json``, ``config.json`` and the
data embedded in ``report.html`` (gzip shards inflated) as parsed JSON, with what differs from
run to run masked (latencies, wall times, dates, paths, the encoder's thread count), prints
each difference and ``differences: N``, and exits 1 when N > 0.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
VOLATILE = {"latency_s", "wall_s", "judge_wall_s", "created_at", "source", "directory", "run",
            "path", "argv", "command", "sha256", "files", "input", "data", "threads"}
"""Keys whose values differ between two runs of the same code: masked at any depth."""


def mask(x: Any) -> Any:
    """``x`` with the :data:`VOLATILE` keys' values and temporary paths masked."""
    if isinstance(x, dict):
        return {k: ("<masked>" if k in VOLATILE else mask(v)) for k, v in x.items()}
    if isinstance(x, list):
        return [mask(v) for v in x]
    if isinstance(x, str):
        return re.sub(r"/tmp/[^\s\"':]+", "<tmp>", x)
    return x


def page_data(html: str) -> Any:
    """The data object embedded in a ``report.html`` (plain, or gzip + base64 shards)."""
    plain = re.search(r'<script type="application/json" id="data">(.*?)</script>', html, re.S)
    if plain:
        return json.loads(plain.group(1))
    main = re.search(r'<script type="application/octet-stream" id="data-gz">(.*?)</script>',
                     html, re.S)
    assert main is not None, "no page data in report.html"
    data = json.loads(gzip.decompress(base64.b64decode(main.group(1))))
    for shard in re.findall(r'<script type="application/octet-stream" class="verdicts-gz">'
                            r'(.*?)</script>', html, re.S):
        data["verdicts"].extend(json.loads(gzip.decompress(base64.b64decode(shard))))
    return data


def load(run: Path) -> dict[str, Any]:
    """The compared parts of one run directory, masked."""
    out: dict[str, Any] = {}
    for name in ("verdicts.jsonl", "items.jsonl"):
        if (run / name).exists():
            out[name] = [mask(json.loads(line))
                         for line in (run / name).read_text("utf-8").splitlines()]
    for name in ("summary.json", "config.json"):
        out[name] = mask(json.loads((run / name).read_text("utf-8")))
    out["report"] = mask(page_data((run / "report.html").read_text("utf-8")))
    return out


def make(out: Path, tree: Path) -> None:
    """Write the six runs of the module docstring into ``out`` with ``tree``'s code."""
    sys.path[:0] = [str(tree), str(tree / "benchmarks"), str(REPO / "benchmarks")]
    os.chdir(tree)
    from bench_local_judge import make_pairs
    from bench_local_overhead import stub_encoder, write_items

    import judge.judges.embedding.local as local
    from tests.clirun import run_cli

    out.mkdir(parents=True, exist_ok=True)

    def run(name: str, *args: Any) -> None:
        res = run_cli("eval", *args, "--out", str(out / name), "--overwrite", "--quiet")
        assert res.returncode == 0, (name, res.stderr)

    run("gloss_lex", "examples/glossary_en_zh.jsonl", "--task", "selection", "--judge",
        "lexical")
    run("am2ico", "examples/am2ico_items.jsonl", "--task", "selection", "--judge", "lexical")
    run("spans", "examples/spans_ner.jsonl", "--task", "spans", "--judge", "lexical")
    run("gloss_loc", "examples/glossary_en_zh.jsonl", "--task", "selection", "--judge",
        "local", "--cache-mode", "off")
    local.LocalJudge._encode_batch = stub_encoder()  # type: ignore[method-assign]
    items = write_items(make_pairs(10_000), Path(tempfile.mkdtemp()) / "items10k.jsonl")
    for name, boot in (("local10k", "0"), ("local10k_b", "200")):
        run(name, items, "--judge", "local", "--cache-mode", "off", "--bootstrap", boot)


def diff(a: Path, b: Path) -> int:
    """Print the differences between two ``make`` directories; their number."""
    bad = 0
    for run in sorted(p.name for p in a.iterdir() if p.is_dir()):
        x, y = load(a / run), load(b / run)
        for part, mine in x.items():
            theirs = y.get(part)
            if mine == theirs:
                continue
            bad += 1
            print(f"DIFF {run}/{part}")
            if isinstance(mine, list) and isinstance(theirs, list):
                pairs = enumerate(zip(mine, theirs, strict=False))  # lengths checked below
                k = next((k for k, (u, v) in pairs if u != v), None)
                if k is not None:
                    print(f"  entry {k}\n  A: {json.dumps(mine[k])[:600]}\n"
                          f"  B: {json.dumps(theirs[k])[:600]}")
                if len(mine) != len(theirs):
                    print(f"  {len(mine)} against {len(theirs)} entries")
            elif isinstance(mine, dict) and isinstance(theirs, dict):
                for key in sorted(set(mine) | set(theirs)):
                    if mine.get(key) != theirs.get(key):
                        print(f"  key {key}\n  A: {json.dumps(mine.get(key))[:600]}\n"
                              f"  B: {json.dumps(theirs.get(key))[:600]}")
    print(f"differences: {bad}")
    return bad


def main() -> None:
    """``make`` or ``diff`` (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    mk = sub.add_parser("make")
    mk.add_argument("out", type=Path)
    mk.add_argument("--tree", type=Path, default=REPO)
    df = sub.add_parser("diff")
    df.add_argument("a", type=Path)
    df.add_argument("b", type=Path)
    a = ap.parse_args()
    if a.what == "make":
        make(a.out.resolve(), a.tree.resolve())
    else:
        sys.exit(1 if diff(a.a, a.b) else 0)


if __name__ == "__main__":
    main()
