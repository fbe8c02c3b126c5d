"""Start-up time of the ``simjudge`` command line.

Issue 11: ``simjudge --help`` took 1.3–2.8 s because importing the CLI imported scipy.optimize,
jieba, nltk and the numpy/pydantic stack. Target: ``--help`` ≤ 0.4 s. The heavy modules are
now imported by the commands that use them (``judge/__init__.py`` resolves its public names
lazily; ``tests/judge/test_install.py`` checks that ``import judge.cli`` imports
none of scipy, jieba, nltk, openai, langchain).

    python benchmarks/bench_startup.py [--runs 15] [--top 15]

Prints the median and min/max wall time (s) of ``simjudge --help`` and ``simjudge eval --help``
over ``--runs`` runs each (the ``simjudge`` script beside this interpreter, or
``python -m judge.cli`` when there is none), then the same, with the median CPU time (user +
system), for the minimal evaluation of issue 34: ``simjudge eval examples/glossary_en_zh.jsonl
--task selection --judge lexical --out DIR`` (24 items; target ≤ 0.8 s wall on an idle
machine), then the modules with the largest cumulative import time under ``python -X
importtime -c "import judge.cli"`` (µs, a single run).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def command() -> list[str]:
    """The ``simjudge`` console script beside ``sys.executable``, else ``python -m``."""
    script = Path(sys.executable).with_name("simjudge")
    if script.exists():
        return [str(script)]
    found = shutil.which("simjudge")
    return [found] if found else [sys.executable, "-m", "judge.cli"]


def wall_times(argv: list[str], runs: int) -> list[float]:
    """Wall seconds of ``runs`` runs of ``argv`` (after one untimed warm-up run).

    Raises:
        subprocess.CalledProcessError: the command failed.
    """
    return [w for w, _ in times(argv, runs)]


def times(argv: list[str], runs: int) -> list[tuple[float, float]]:
    """``(wall seconds, CPU seconds)`` of ``runs`` runs of ``argv`` (after one untimed warm-up
    run); CPU = the child's user + system time (``getrusage(RUSAGE_CHILDREN)``).

    Raises:
        subprocess.CalledProcessError: the command failed.
    """
    subprocess.run(argv, check=True, capture_output=True, cwd=REPO)
    out = []
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, cwd=REPO)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        out.append((wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime))
    return out


def top_imports(top: int) -> list[tuple[int, int, str]]:
    """``(cumulative µs, self µs, module)`` of the slowest imports of ``import judge.cli``."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "import judge.cli"],
                          capture_output=True, text=True, check=True, cwd=REPO)
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        self_us, cum_us, name = line[len("import time:"):].split("|")
        rows.append((int(cum_us), int(self_us), name.rstrip()))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    """Print the timings and the import table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    cmd = command()
    print(f"command: {' '.join(cmd)}  (Python {sys.version.split()[0]}, {args.runs} runs)")
    for extra in (["--help"], ["eval", "--help"]):
        t = wall_times([*cmd, *extra], args.runs)
        print(f"simjudge {' '.join(extra):12} median {statistics.median(t):.3f} s  "
              f"(min {min(t):.3f}, max {max(t):.3f})")
    with tempfile.TemporaryDirectory() as tmp:
        t = times([*cmd, "eval", "examples/glossary_en_zh.jsonl", "--task", "selection",
                   "--judge", "lexical", "--out", str(Path(tmp) / "run"), "--overwrite"],
                  args.runs)
    wall, cpu = [w for w, _ in t], [c for _, c in t]
    print(f"minimal lexical eval (24 items) median {statistics.median(wall):.3f} s wall "
          f"(min {min(wall):.3f}, max {max(wall):.3f}), CPU {statistics.median(cpu):.3f} s; "
          f"target <= 0.8 s wall, load {os.getloadavg()[0]:.1f}")
    print("\nslowest imports of `import judge.cli` (cumulative µs, self µs, module):")
    for cum, own, name in top_imports(args.top):
        print(f"{cum:>10,} {own:>9,}  {name}")


if __name__ == "__main__":
    main()
