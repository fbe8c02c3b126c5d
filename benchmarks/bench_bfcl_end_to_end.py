"""Scoring the whole BFCL archive end to end: BFCL's own ``eval_runner.py`` against
``simjudge eval``, on the same machine in the same session, CPU and wall seconds of each, and
whether the per-category accuracies they write agree.

Three ways of scoring the 71 models × 7 AST categories of the archive release:

1. **official** — gorilla ``de8307b4``'s ``eval_checker/eval_runner.py --test-category ast``, one
   process for every model (as its README runs it), in a scratch copy of its
   ``eval_checker/`` and ``model_handler/`` beside links to ``--data`` and the archive's
   ``result/``. It writes one score file per model and category and ``data.csv``. It builds each
   model's handler, whose ``__init__`` makes an API client from an environment variable:
   the run sets each such variable to the string ``unused``, which is never sent (the AST
   categories only decode, no request is made); provider SDKs that ``handler_map.py``
   imports but that are not installed are empty modules (``SDK_NAMES`` of
   ``bench_bfcl_vs_official.py``). Needs tree-sitter 0.21.3,
   tree-sitter-java 0.21.0, tree-sitter-javascript 0.21.4 in ``--official-python``;
2. **simjudge, one process** — :func:`judge.cli.evalrun.run_eval` for each model folder in one
   Python process (what a script over the archive does): a full run directory per model
   (config, items, summary, report.html, bootstrap CIs);
3. **simjudge CLI** — one ``simjudge eval RESULT_FOLDER --task function-call --format bfcl
   --functions DATA`` process per model, for the first ``--cli-models`` models (default all).

CPU seconds are the children's user + system time (``resource.getrusage(RUSAGE_CHILDREN)``)
of each subprocess; wall seconds by ``time.perf_counter``. The accuracy check compares each
model's seven per-category accuracies from the official score files (first line of
``score/MODEL/CATEGORY_score.json``) with those in simjudge's ``summary.json``.

Usage::

    python benchmarks/bench_bfcl_end_to_end.py --archive BFCL-Result/2024-08-11 \\
        --data gorilla/berkeley-function-call-leaderboard/data \\
        --gorilla gorilla/berkeley-function-call-leaderboard \\
        [--official-python OFFVENV/bin/python] [--cli-models 71] [--keep DIR]

Exit status 1 when an accuracy differs; without the three folders the script says it is
skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_bfcl_vs_official import SDK_NAMES  # the same stand-ins, one list

from judge.tasks.bfclcheck import AST_CATEGORIES

OFFICIAL_RUNNER = """
import importlib, runpy, sys, types
for name, attrs in {sdks!r}.items():
    try:
        importlib.import_module(name)
    except ImportError:
        module = types.ModuleType(name)
        for attr in attrs:
            setattr(module, attr, type(attr, (), {{"__init__": lambda self, *a, **k: None}}))
        sys.modules[name] = module
sys.argv = ["eval_runner.py", "--test-category", "ast"]
sys.path[:0] = [".", ".."]
runpy.run_path("eval_runner.py", run_name="__main__")
"""
"""The official run: SDK stand-ins, then ``eval_runner.py`` as ``__main__``."""
CLIENT_VARIABLES = ("ANTHROPIC_API_KEY", "COHERE_API_KEY", "FIRE_WORKS_API_KEY",
                    "MISTRAL_API_KEY", "NVIDIA_API_KEY", "OPENAI_API_KEY", "YI_API_KEY")
"""The variables gorilla's handlers read in ``__init__`` (each set to ``unused``, never sent)."""
ONE_PROCESS = """
import sys
from pathlib import Path
from judge.cli.evalrun import run_eval
from judge.pipeline.config import EvalConfig
result, data, out = (Path(a) for a in sys.argv[1:4])
for model in sys.argv[4:]:
    run_eval(EvalConfig(task="function-call", data=result / model, out_dir=out / model,
                        task_options={{"format": "bfcl", "functions": data}}))
"""
"""simjudge in one process: one run per model folder given."""


def timed(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
          ) -> tuple[float, float]:
    """``(CPU seconds, wall seconds)`` of running ``cmd`` to completion.

    Raises:
        subprocess.CalledProcessError: the command failed (its output is shown).
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        print(done.stdout[-2000:], done.stderr[-4000:], file=sys.stderr)
        raise subprocess.CalledProcessError(done.returncode, cmd)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def run_official(python: str, gorilla: Path, data: Path, result: Path, scratch: Path
                 ) -> tuple[float, float, Path]:
    """Run ``eval_runner.py`` over every model (see the module docstring); returns CPU and
    wall seconds and the ``score/`` folder it wrote."""
    root = scratch / "official"
    for part in ("eval_checker", "model_handler"):
        shutil.copytree(gorilla / part, root / part)
    (root / "data").symlink_to(data)
    (root / "result").symlink_to(result)
    (root / "score").mkdir()
    env = {**os.environ, **dict.fromkeys(CLIENT_VARIABLES, "unused")}
    cpu, wall = timed([python, "-c", OFFICIAL_RUNNER.format(sdks=SDK_NAMES)],
                      cwd=root / "eval_checker", env=env)
    return cpu, wall, root / "score"


def official_accuracy(score: Path, model: str) -> dict[str, float]:
    """The seven per-category accuracies of ``model`` in the official score files."""
    out = {}
    for cat in AST_CATEGORIES:
        with open(score / model / f"{cat}_score.json", encoding="utf-8") as fh:
            out[cat] = float(json.loads(fh.readline())["accuracy"])
    return out


def simjudge_accuracy(run: Path) -> dict[str, float]:
    """The per-category accuracies in a simjudge run's ``summary.json``."""
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    return {k: float(v) for k, v in summary["metrics"]["accuracy_by_category"].items()}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--archive", type=Path, default=os.environ.get("BFCL_ARCHIVE"))
    ap.add_argument("--data", type=Path, default=os.environ.get("BFCL_DATA"))
    ap.add_argument("--gorilla", type=Path, default=os.environ.get("BFCL_GORILLA"))
    ap.add_argument("--official-python", default=sys.executable,
                    help="the interpreter for eval_runner.py (with tree-sitter 0.21.3)")
    ap.add_argument("--cli-models", type=int, default=None,
                    help="run the CLI on the first N models only (default: all)")
    ap.add_argument("--keep", type=Path, help="leave the runs and score files here")
    args = ap.parse_args(argv)
    if not (args.archive and args.data and args.gorilla and (args.archive / "result").is_dir()
            and (args.gorilla / "eval_checker").is_dir()):
        print("skipped: give --archive, --data and --gorilla")
        return 0
    result, data, gorilla = (p.resolve() for p in (args.archive / "result", args.data,
                                                   args.gorilla))
    models = sorted(p.name for p in result.iterdir() if p.is_dir())
    scratch = Path(args.keep or tempfile.mkdtemp(prefix="bfcl-e2e-")).resolve()
    scratch.mkdir(parents=True, exist_ok=True)
    rows: list[tuple[str, int, float, float]] = []
    try:
        cpu, wall, score = run_official(args.official_python, gorilla, data, result, scratch)
        rows.append(("official eval_runner.py, one process", len(models), cpu, wall))
        one = scratch / "simjudge-one-process"
        cpu, wall = timed([sys.executable, "-c", ONE_PROCESS.format(), str(result), str(data),
                           str(one), *models])
        rows.append(("simjudge, one process (Python API)", len(models), cpu, wall))
        cli_models = models[:args.cli_models] if args.cli_models else models
        cpu = wall = 0.0
        for model in cli_models:
            c, w = timed([sys.executable, "-m", "judge.cli", "eval", str(result / model),
                          "--task", "function-call", "--format", "bfcl", "--functions",
                          str(data), "--out", str(scratch / "simjudge-cli" / model), "-q"])
            cpu, wall = cpu + c, wall + w
        rows.append(("simjudge eval, a process per model", len(cli_models), cpu, wall))
        differ = [(m, c) for m in models for c, v in official_accuracy(score, m).items()
                  if simjudge_accuracy(one / m).get(c) != v]
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)
    base = rows[0][2] / rows[0][1]
    print(f"{len(models)} models × {len(AST_CATEGORIES)} AST categories\n")
    print(f"{'':40}{'models':>7}{'CPU s':>9}{'wall s':>9}{'CPU s/model':>13}{'÷ official':>12}")
    for label, n, c, w in rows:
        print(f"{label:40}{n:7d}{c:9.1f}{w:9.1f}{c / n:13.2f}{c / n / base:12.2f}")
    print(f"\nper-category accuracy, simjudge = official score files: "
          f"{len(models) * len(AST_CATEGORIES) - len(differ)} / "
          f"{len(models) * len(AST_CATEGORIES)}")
    for m, c in differ[:20]:
        print(f"  differs: {m} {c}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
